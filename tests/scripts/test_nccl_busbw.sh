#!/usr/bin/env bash
# Tests of scripts/reproduce/nccl-busbw: `run --quick` exits 0 and prints
# its summary lines (not their numbers); --tsv gives 9 tab-separated
# columns whose deviation follows from the other columns; --system runs one
# system, and the A3 Mega latency line reads the shared table when SHARED
# has it and says it is skipped when not; published.tsv is well formed and
# every busbw it copies agrees with its time (nccl-tests' own definitions),
# which catches a mistyped figure.  Prints one "ok NAME" or "FAIL NAME" line
# per check, then "N checks, N failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_nccl_busbw.sh   (run by `make test` through
# scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
SHARED=${SHARED:-../shared}
case "$SHARED" in /*) ;; *) SHARED=$PWD/$SHARED ;; esac
export SHARED
D=$PWD/scripts/reproduce/nccl-busbw
A3=$SHARED/reference/nccl-tests/gcp_a3mega_2node_16xH100_all_reduce_outofplace.csv

make_tmp

# The human output of --quick: exit 0 and every summary line.
"$D/run" --quick >"$TMP/quick.out" 2>"$TMP/quick.err"
check "run --quick: exits 0" eq $? 0
check "run --quick: nothing on stderr" test ! -s "$TMP/quick.err"
for line in "summary: mean |deviation| per system" "geomean |deviation| over all " \
            "sizes >= 1 MiB within 10%: " "sizes < 1 MiB within 25%: " \
            "latency floor (A3 Mega, 8 B .. 64 KiB): " " points simulated, "; do
  check "run --quick: prints '$line'" has "$TMP/quick.out" "$line"
done
check "run --quick: one summary line per system" \
  eq "$(grep -cE '^  (1node|2node|4node|16node) +[0-9.]+% +\([0-9]+ points\)$' "$TMP/quick.out")" 4

# --tsv: a header, 9 columns on every row, the summary as comments.
"$D/run" --quick --tsv >"$TMP/quick.tsv" 2>"$TMP/tsv.err"
check "run --quick --tsv: exits 0" eq $? 0
check "run --quick --tsv: header" eq "$(head -n 1 "$TMP/quick.tsv")" \
  "$(printf 'system\tbytes\torrery_busbw_GBps\torrery_time_us\tpublished_busbw_GBps\tpublished_time_us\tdeviation_pct\tsource\talgorithm')"
check "run --quick --tsv: 9 columns on every row" \
  eq "$(grep -v '^#' "$TMP/quick.tsv" | awk -F'\t' 'NF != 9' | wc -l)" 0
check "run --quick --tsv: 12 points" eq "$(grep -vc -e '^#' -e '^system' "$TMP/quick.tsv")" 12
check "run --quick --tsv: summary as comments" has "$TMP/quick.tsv" "# geomean |deviation| over all "
# The deviation is (orrery - published) / published of the bus bandwidth:
# from the times where the source gives one (busbw is S/t times a constant),
# else from the bus bandwidths; recomputed here to 0.1 %.
check "run --quick --tsv: deviation follows from the columns" \
  eq "$(awk -F'\t' 'NR > 1 && !/^#/ {
          d = ($6 != "-") ? ($6 / $4 - 1) * 100 : ($3 - $5) * 100 / $5
          if (d - $7 > 0.051 || $7 - d > 0.051) bad++ }
        END { print bad + 0 }' "$TMP/quick.tsv")" 0
check "run --quick --tsv: algorithm reported" \
  eq "$(awk -F'\t' 'NR > 1 && !/^#/ && $9 == "-"' "$TMP/quick.tsv" | wc -l)" 0

# --system: one system, all its sizes; the A3 Mega table from SHARED.
if [ -f "$A3" ]; then
  "$D/run" --system a3mega-2n --tsv >"$TMP/a3.tsv" 2>&1
  check "run --system a3mega-2n: exits 0" eq $? 0
  # The table has 21 sizes (8 B, 1 KiB, 8 KiB, then 64 KiB .. 8 GiB).
  check "run --system a3mega-2n: 21 published points" \
    has "$TMP/a3.tsv" "# 21 points simulated, 21 beside a published figure, 0 failed"
  check "run --system a3mega-2n: the latency floor compares 4 sizes" \
    grep -qE '^# latency floor \(A3 Mega, 8 B \.\. 64 KiB\): [0-4] of 4 times within 20%' "$TMP/a3.tsv"
  check "run --system a3mega-2n: published 8 B time from the table" \
    grep -qE '^#   8 B: orrery [0-9.]+ us, published 135\.8 us' "$TMP/a3.tsv"
else
  echo "skip: nccl-busbw A3 Mega table: $A3 not found (set SHARED)"
fi
SHARED=$TMP/none "$D/run" --system a3mega-2n >"$TMP/noa3.out" 2>&1
check "run without the A3 Mega table: exits 0" eq $? 0
check "run without the A3 Mega table: says it is skipped" \
  grep -q '^latency floor (A3 Mega, 8 B .. 64 KiB): skipped, .* not found' "$TMP/noa3.out"
"$D/run" --system nosuch >/dev/null 2>&1
check "run --system with an unknown name exits 1" eq $? 1

# README.md keeps the markers update-readme regenerates between.
for m in "BEGIN run output" "END run output" "BEGIN deviation table" "END deviation table"; do
  check "README.md has the '$m' marker" has "$D/README.md" "<!-- $m"
done

# published.tsv: 5 columns, power-of-2 sizes, known sources; and where the
# source gives the time, busbw = S / t x 2(n-1)/n (nccl-tests'
# doc/PERFORMANCE.md) to the source's rounding (0.01 GB/s, 4 significant
# digits of the time): n = 8 on one node, 16 on two.
check "published.tsv: 5 columns, sizes powers of 2, known sources" \
  eq "$(awk -F'\t' '!/^#/ && $1 != "system" {
          b = $2; while (b > 1 && b % 2 == 0) b /= 2
          if (NF != 5 || b != 1 || $4 !~ /^(together-1n|aws-p5|oci-a100-1n|oci-a100-2n)$/) bad++ }
        END { print bad + 0 }' "$D/published.tsv")" 0
check "published.tsv: busbw agrees with the time" \
  eq "$(awk -F'\t' '!/^#/ && $1 != "system" && $5 != "-" {
          n = ($1 == "a100-2n") ? 16 : 8
          bw = $2 / ($5 * 1000) * 2 * (n - 1) / n
          if (bw - $3 > 0.006 + bw * 0.002 || $3 - bw > 0.006 + bw * 0.002) bad++ }
        END { print bad + 0 }' "$D/published.tsv")" 0

finish
