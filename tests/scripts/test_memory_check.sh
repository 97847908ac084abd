#!/usr/bin/env bash
# test_memory_check.sh: the memory a GPU needs, from the traces to the run.
# gen transformer writes each rank's stage total (the figure its memory
# lines print; the model itself is worked by hand in test_gen_memory.c)
# into the rank's GlobalMetadata as peak_memory_bytes; run's summary, its
# JSON report and a sweep's CSV hold the largest to the device's memory,
# and a run that would not fit warns.  Traces without the figure, and
# ASTRA-sim runs, say nothing of it.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_memory_check.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
lacks () { ! grep -qF -- "$2" "$1"; }
# json FILE KEY: the report's value of KEY (each appears once, in its
# efficiency object).
json () { sed -n "s/.*\"$2\" : \([^,]*\).*/\1/p" "$1"; }

# Llama-2 7B on 8 GPUs, TP 2 x PP 2 x DP 2: two stages, rank 0 in stage 0.
"$ORRERY" gen transformer --preset llama2-7b --tp 2 --pp 2 --dp 2 --global-batch 16 \
  --micro-batch 1 --out "$TMP/l8" >"$TMP/gen.out" 2>&1
check "gen: exit 0" eq "$?" 0
s0=$(sed -n 's/^stage 0: .*, total \([0-9.]*\) GiB$/\1/p' "$TMP/gen.out")
s1=$(sed -n 's/^stage 1: .*, total \([0-9.]*\) GiB$/\1/p' "$TMP/gen.out")
check "gen: both stages' totals printed" test -n "$s0" -a -n "$s1"
check "gen: stage 0 holds more (its first micro-batches' activations)" \
  awk -v a="$s0" -v b="$s1" 'BEGIN { exit !(a > b) }'

# inspect gives each stage's figure with the ranks that carry it.
"$ORRERY" inspect "$TMP/l8" >"$TMP/inspect.out" 2>&1
check "inspect: stage 0's ranks" eq "$(grep -c "^ranks 0-3: .*, peak memory $s0 GiB (peak_memory_bytes)$" "$TMP/inspect.out")" 1
check "inspect: stage 1's ranks" eq "$(grep -c "^ranks 4-7: .*, peak memory $s1 GiB (peak_memory_bytes)$" "$TMP/inspect.out")" 1

# The H100's 81,559 MiB (its datasheet's 80 GB as nvidia-smi shows it):
# 79.65 GiB.
"$ORRERY" run --config configs/hgx-h100.xml --workload "$TMP/l8" --report "$TMP/r.json" \
  >"$TMP/run.out" 2>"$TMP/run.err"
check "fits: exit 0" eq "$?" 0
check "fits: the summary's line" has "$TMP/run.out" \
  "  memory per GPU: $s0 GiB by the traces' estimate (the largest: l8.0.et's peak_memory_bytes), within the H100-SXM's 79.65 GiB"
check "fits: no warning" lacks "$TMP/run.err" "memory"
check "fits: report memory_fits" eq "$(json "$TMP/r.json" memory_fits)" true
check "fits: report capacity, bytes" eq "$(json "$TMP/r.json" memory_capacity_bytes)" \
  $((81559 * 1048576))
check "fits: report peak, bytes, as gen printed it" awk -v b="$(json "$TMP/r.json" peak_memory_bytes)" \
  -v g="$s0" 'BEGIN { d = b / 1073741824 - g; exit !(d <= 0.005 && d >= -0.005) }'

# The same on a device of 32 GiB (the roofline model, which takes a device
# of one's own, whose NCCL constants <system gpu> then names): stage 0 does
# not fit; the run goes on and says so twice.
sed -e 's|<compute model="kernel" device="H100-SXM"/>|<compute model="roofline" device="Small"><device name="Small" bf16="989.5TFLOP/s" mem-bw="3.35TB/s" mem-capacity="32GiB"/></compute>|' \
  -e 's|<system |<system gpu="hopper" |' configs/hgx-h100.xml >"$TMP/small.xml"
check "small: the config was edited" has "$TMP/small.xml" 'mem-capacity="32GiB"'
"$ORRERY" run --config "$TMP/small.xml" --workload "$TMP/l8" --report "$TMP/s.json" \
  >"$TMP/run.out" 2>"$TMP/run.err"
check "small: exit 0" eq "$?" 0
check "small: the summary's line" has "$TMP/run.out" \
  "  memory per GPU: $s0 GiB by the traces' estimate (the largest: l8.0.et's peak_memory_bytes), more than the Small's 32.00 GiB: on the hardware this run would fail out of memory"
check "small: the warning" eq "$(grep memory "$TMP/run.err")" \
  "orrery run: warning: l8.0.et needs $s0 GiB per GPU (its peak_memory_bytes), more than the 32.00 GiB of the Small: on the hardware this run would fail out of memory"
check "small: report memory_fits" eq "$(json "$TMP/s.json" memory_fits)" false

# Ranks whose traces give none are named as not checked: the same set as
# JSON, ranks 4-7 (stage 1) without the attribute.
mkdir -p "$TMP/js"
for r in 0 1 2 3 4 5 6 7; do
  "$ORRERY" convert "$TMP/l8.$r.et" "$TMP/js/l8.$r.json"
done
for r in 4 5 6 7; do
  sed -z -i 's/,\n    {\n      "name": "peak_memory_bytes",\n      "uint64Val": "[0-9]*"\n    }//' \
    "$TMP/js/l8.$r.json"
done
check "some without: the attribute was removed" eq "$(cat "$TMP"/js/l8.[4-7].json | grep -c peak_memory)" 0
"$ORRERY" run --config configs/hgx-h100.xml --workload "$TMP/js/l8" >"$TMP/run.out" 2>&1
check "some without: said" has "$TMP/run.out" \
  "within the H100-SXM's 79.65 GiB (4 of the 8 distinct traces give none: their ranks are not checked)"

# Traces without the figure (a collective): no line, nulls in the report.
"$ORRERY" gen collective --type all_reduce --ranks 8 --bytes 1MiB --out "$TMP/ar" >/dev/null
"$ORRERY" run --config configs/hgx-h100.xml --workload "$TMP/ar" --report "$TMP/a.json" \
  >"$TMP/run.out" 2>&1
check "no figure: no line" lacks "$TMP/run.out" "memory per GPU"
check "no figure: report peak null" eq "$(json "$TMP/a.json" peak_memory_bytes)" null
check "no figure: report memory_fits null" eq "$(json "$TMP/a.json" memory_fits)" null

# gen dlrm writes each rank's own total (its tables' shards differ): run
# gives the largest, the one gen names as "most memory".
"$ORRERY" gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 8 --out "$TMP/dl" >"$TMP/dl.out" 2>&1
most=$(sed -n 's/.*most memory: rank \([0-9]*\), \([0-9.]*\) GiB;.*/\1 \2/p' "$TMP/dl.out")
check "dlrm: gen names the most" test -n "$most"
"$ORRERY" run --config configs/hgx-h100.xml --workload "$TMP/dl" >"$TMP/run.out" 2>&1
check "dlrm: the summary's line" has "$TMP/run.out" \
  "  memory per GPU: ${most#* } GiB by the traces' estimate (the largest: dl.${most% *}.et's peak_memory_bytes), within the H100-SXM's 79.65 GiB"

# rescale keeps each rank's work: a plain data-parallel set of 8 ranks
# rescaled to 2 gives the iteration's tokens (2 x 4096), model FLOPs and
# peak memory of the same set generated for 2 ranks; a set that shards
# state (ZeRO 1) loses its memory figure, which the shards' sizes change,
# and rescale says so.
sed 's/size="8"/size="2"/' configs/hgx-h100.xml >"$TMP/x2.xml"
for z in 0 1; do
  "$ORRERY" gen transformer --preset llama2-7b --ranks 8 --tp 1 --pp 1 --global-batch 8 \
    --micro-batch 1 --zero $z --out "$TMP/z$z/l" >/dev/null 2>&1
  "$ORRERY" gen transformer --preset llama2-7b --ranks 2 --tp 1 --pp 1 --global-batch 2 \
    --micro-batch 1 --zero $z --out "$TMP/f$z/l" >/dev/null 2>&1
  "$ORRERY" rescale --from "$TMP/z$z/l" --ranks 2 --out "$TMP/r$z/l" >/dev/null 2>"$TMP/rs$z.err"
done
facts () { "$ORRERY" run --config "$TMP/x2.xml" --workload "$1" 2>/dev/null \
  | grep -E '^  (MFU|model FLOPs|[0-9]+ tokens/s|memory per GPU)'; }
check "rescale: plain DP, the facts of a fresh 2-rank set" eq "$(facts "$TMP/r0/l")" \
  "$(facts "$TMP/f0/l")"
check "rescale: plain DP, 8192 tokens" has <(facts "$TMP/r0/l") "(8192 tokens per iteration)"
check "rescale: plain DP, no warning" eq "$(cat "$TMP/rs0.err")" ""
check "rescale: ZeRO 1, no memory line" eq "$(facts "$TMP/r1/l" | grep -c 'memory per GPU')" 0
check "rescale: ZeRO 1, the warning" has "$TMP/rs1.err" \
  "orrery rescale: warning: the traces shard state over the ranks"

# A sweep over the device's memory: the two columns.
cat >"$TMP/mem.xml" <<SPEC
<sweep name="mem">
  <config path="small.xml"/>
  <workload prefix="$TMP/l8"/>
  <grid>
    <param name="cap" select="/cluster/compute/device/@mem-capacity" values="32GiB 64GiB"/>
  </grid>
</sweep>
SPEC
scripts/sweep -j 1 -o "$TMP/sw" "$TMP/mem.xml" >"$TMP/sweep.log" 2>&1
check "sweep: exit 0" eq "$?" 0
# col CSV NAME: the column NAME's values, space-separated (no field here
# holds a comma).
col () { awk -F, -v n="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i; next }
  { printf "%s%s", (NR > 2 ? " " : ""), $c }' "$1"; }
check "sweep: peak_memory_GiB" eq "$(col "$TMP/sw/sweep.csv" peak_memory_GiB)" "$s0 $s0"
check "sweep: fits_memory" eq "$(col "$TMP/sw/sweep.csv" fits_memory)" "no yes"

# A sweep may generate DLRM iterations too: the table-wise point's column
# is the figure gen dlrm named above.
cat >"$TMP/dl.xml" <<SPEC
<sweep name="dl">
  <config path="$PWD/configs/hgx-h100.xml"/>
  <generate>gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 8 --sharding {sh}</generate>
  <grid><param name="sh" values="table-wise"/></grid>
</sweep>
SPEC
scripts/sweep -j 1 -o "$TMP/swd" "$TMP/dl.xml" >"$TMP/sweepd.log" 2>&1
check "dlrm sweep: exit 0" eq "$?" 0
check "dlrm sweep: peak_memory_GiB" eq "$(col "$TMP/swd/sweep.csv" peak_memory_GiB)" "${most#* }"
finish
