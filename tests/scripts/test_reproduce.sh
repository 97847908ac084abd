#!/usr/bin/env bash
# Tests of the reproductions under scripts/reproduce/ against the real
# orrery binary (ORRERY, default build/orrery): ASTRA-sim's 72
# microbenchmarks must all be exact (skipped, with a "skip:" line, when the
# shared data is absent: SHARED, default ../shared); the nccl-tests and
# Qin et al. reproductions must run with --quick, print their tables and
# exit 0; the DLRM / DCNv2 one runs its 1-GPU rows, the MLPerf DLRM-DCNv2
# one its three rows.  Prints one "ok NAME"
# or "FAIL NAME" line per check, then "N checks, N failed"; exits 1 if any
# check failed.
# Usage: tests/scripts/test_reproduce.sh   (run by `make check` through
# scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
SHARED=${SHARED:-../shared}
case "$SHARED" in /*) ;; *) SHARED=$PWD/$SHARED ;; esac
export SHARED
R=$PWD/scripts/reproduce

make_tmp

# count FILE REGEX: the number of lines matching the extended REGEX.
count () { grep -cE -- "$2" "$1"; }

# ASTRA-sim's microbenchmarks: every one of the 72 rows exact.
if [ -f "$SHARED/reference/astra-sim-microbench.tsv" ]; then
  "$R/astra-microbench/run" >"$TMP/astra.out" 2>"$TMP/astra.err"
  check "astra-microbench: exits 0" eq $? 0
  check "astra-microbench: last line" eq "$(tail -n 1 "$TMP/astra.out")" "72 of 72 exact"
  check "astra-microbench: 72 rows" eq "$(count "$TMP/astra.out" ' (unaware|aware) ')" 72
  check "astra-microbench: no deviation" eq "$(count "$TMP/astra.out" ' [+-]0\.00%$')" 72
  check "astra-microbench: nothing on stderr" test ! -s "$TMP/astra.err"
else
  echo "skip: astra-microbench: $SHARED/reference/astra-sim-microbench.tsv not found (set SHARED)"
fi
# Without the shared data the script says so and succeeds.
SHARED=$TMP/none "$R/astra-microbench/run" >"$TMP/noshared.out" 2>&1
check "astra-microbench without shared data: exits 0" eq $? 0
check "astra-microbench without shared data: skip line" has "$TMP/noshared.out" "skip:"
# A row asked for by name without the shared data: an error naming the
# row and the file, not a quiet skip (exit 0 read as "reproduced").
for r in training-throughput plan-published; do
  SHARED=$TMP/none "$R/$r/run" --case meg-1.7b >"$TMP/nocase.out" 2>"$TMP/nocase.err"
  check "$r --case without shared data: exits 1" eq $? 1
  check "$r --case without shared data: names the row and file" \
    has "$TMP/nocase.err" "case 'meg-1.7b': $TMP/none/reference/published/training.tsv not found"
  SHARED=$TMP/none "$R/$r/run" --quick >"$TMP/noshared.out" 2>&1
  check "$r without shared data: exits 0" eq $? 0
  check "$r without shared data: skip line" has "$TMP/noshared.out" "skip:"
done

# nccl-tests bus bandwidth, quick: 4 systems x 3 sizes.
"$R/nccl-busbw/run" --quick >"$TMP/nccl.out" 2>"$TMP/nccl.err"
check "nccl-busbw --quick: exits 0" eq $? 0
for sys in "(a) 1 node" "(b) 2 x AWS p5" "(b) 4 x AWS p5" "(b) 16 x AWS p5"; do
  check "nccl-busbw --quick: table $sys" has "$TMP/nccl.out" "$sys"
done
check "nccl-busbw --quick: 12 rows beside a published figure" \
  eq "$(count "$TMP/nccl.out" '^ +[0-9]+ [MG]iB +[0-9.]+ +[0-9.]+ +(together-1n|aws-p5) +[+-][0-9.]+%$')" 12
check "nccl-busbw --quick: summary" has "$TMP/nccl.out" "12 points simulated, 12 beside a published figure, 0 failed"
check "nccl-busbw: published table has 135 figures" \
  eq "$(grep -vc -e '^#' -e '^system' "$R/nccl-busbw/published.tsv")" 135
"$R/nccl-busbw/run" --bogus >/dev/null 2>"$TMP/bad.err"
check "nccl-busbw: unknown option exits 1" eq $? 1

# Qin et al. (MICRO 2025), quick.
"$R/qin-micro25-alltoall/run" --quick >"$TMP/qin.out" 2>"$TMP/qin.err"
check "qin-micro25-alltoall --quick: exits 0" eq $? 0
check "qin-micro25-alltoall --quick: Table 1 rows" \
  eq "$(count "$TMP/qin.out" '^ +[458] +(Ring|HalfRing) ')" 6
check "qin-micro25-alltoall --quick: Figure 15 rows" \
  eq "$(count "$TMP/qin.out" '^ +[48]x4x4 +16 MiB ')" 2
# On an odd ring the shortest paths of orrery's direct all-to-all split the
# traffic evenly, so its time is the paper's HalfRing closed form
# alpha + (N^2 - 1)/8 * S/(N B) (Table 1).
check "qin-micro25-alltoall: direct on a 5-ring is the HalfRing closed form" \
  grep -qE '^ +5 +HalfRing +[0-9.]+ +[0-9.]+ +[+-]0\.0% ' "$TMP/qin.out"
check "qin-micro25-alltoall --quick: all ran" has "$TMP/qin.out" "all simulations ran"
"$R/qin-micro25-alltoall/run" --bogus >/dev/null 2>"$TMP/bad.err"
check "qin-micro25-alltoall: unknown option exits 1" eq $? 1

# Published training throughput: one small row (8 GPUs), when the shared
# table is there.  Its TFLOP/s must be NeMo's Llama-2 formula over the
# printed iteration time: B s l h^2 (12 + 12 g/a + 18 f/h + 12 s/h +
# 6 V/(l h)) = 128 x 4096 x 32 x 4096^2 x (12 + 12 + 18 x 11008/4096 + 12
# + 6 x 32000/(32 x 4096)) = 2.416177e16 FLOPs, / (t x 8 GPUs).
if [ -f "$SHARED/reference/published/training.tsv" ]; then
  "$R/training-throughput/run" --tsv --case nemo-llama2-7b-fp8 >"$TMP/tt.out" 2>"$TMP/tt.err"
  check "training-throughput --case: exits 0" eq $? 0
  check "training-throughput --case: one row" \
    eq "$(count "$TMP/tt.out" '^nemo-llama2-7b-fp8	8	780	[0-9.]+	[+-][0-9.]+	[0-9.]+$')" 1
  check "training-throughput --case: TFLOP/s is NeMo's formula over the time" \
    awk -F'\t' '$1 == "nemo-llama2-7b-fp8" { x = 2.416177e16 / ($6 * 8) / 1e12
                 exit !(x - $4 < 0.1 && $4 - x < 0.1) }' "$TMP/tt.out"
  check "training-throughput --case: summary" has "$TMP/tt.out" "# 1 rows: mean |error|"
  # --explain: the same row (explaining changes no prediction), then what
  # produced it.  The row's DP 8 with NeMo's distributed optimizer: the
  # gradients reduce-scattered and the parameters all-gathered over the 8
  # ranks, the same bytes each way; the efficiency against the row's own
  # device and dtype (H100-SXM, fp8); with --tsv every explaining line is
  # a "# " comment, so the TSV still has one row.
  "$R/training-throughput/run" --tsv --explain --case nemo-llama2-7b-fp8 >"$TMP/tx.out" \
    2>"$TMP/tx.err"
  check "training-throughput --explain: exits 0" eq $? 0
  check "training-throughput --explain: the same row" \
    eq "$(grep -v '^#' "$TMP/tx.out")" "$(grep -v '^#' "$TMP/tt.out")"
  check "training-throughput --explain: the median rank's times" \
    has "$TMP/tx.out" "#     median rank: compute "
  check "training-throughput --explain: efficiency on the row's device and dtype" \
    sh -c "grep '^#     efficiency: MFU ' '$TMP/tx.out' | grep -q 'H100-SXM fp8'"
  # size ALGO KIND: the size of KIND's line, whose algorithm is NCCL's.
  size () { sed -n "s/^#     $1 group .* (8 ranks): [0-9]* of \([0-9.]* [KMG]*i*B\) in all, busbw [0-9.]* GB\/s, nccl [A-Za-z]*\/[A-Za-z0-9]* x[0-9]*$/\1/p" "$TMP/tx.out"; }
  rs=$(size reduce_scatter) ag=$(size all_gather)
  check "training-throughput --explain: reduce-scatter of 8 ranks, its algorithm and protocol" \
    test -n "$rs"
  check "training-throughput --explain: all-gather of as many bytes" eq "$ag" "$rs"
  "$R/training-throughput/run" --case no-such-row >/dev/null 2>"$TMP/nocase.err"
  check "training-throughput --case unknown: exits 1" eq $? 1
  check "training-throughput --case unknown: lists the cases" \
    has "$TMP/nocase.err" "(cases: meg-1.7b, "
else
  echo "skip: training-throughput: $SHARED/reference/published/training.tsv not found (set SHARED)"
fi
SHARED=$TMP/none "$R/training-throughput/run" >"$TMP/noshared.out" 2>&1
check "training-throughput without shared data: exits 0" eq $? 0
check "training-throughput without shared data: skip line" has "$TMP/noshared.out" "skip:"
"$R/training-throughput/run" --bogus >/dev/null 2>"$TMP/bad.err"
check "training-throughput: unknown option exits 1" eq $? 1

# One layer of Korthikanti et al.'s 22B model (arXiv 2205.05198, Table 4:
# ms per layer on a DGX A100, the five experiments).  Expected: the
# paper's figures within 15 % (the kernel model is 4-12 % fast on them,
# README.md "One layer"; a change that takes it further fails); the
# recomputation repeats exactly the forward (backward with full
# recomputation - without = the forward: the paper's 19.5 - 11.9 = 7.6 of
# its 7.7 ms forward); sequence parallelism saves the forward 0.5 ms
# (7.7 -> 7.2), here 7/8 of the layer norms' and dropout-adds' bytes,
# 0.53 ms, less 0.02 of slower collectives: within 0.15 ms.
"$R/training-throughput/layer" --tsv >"$TMP/layer.out" 2>"$TMP/layer.err"
check "training-throughput/layer: exits 0" eq $? 0
check "training-throughput/layer: 10 per-layer figures and 2 iterations" \
  eq "$(count "$TMP/layer.out" '	(forward|backward|iteration)	')" 12
check "training-throughput/layer: every per-layer figure within 15 % of the paper" \
  awk -F'\t' '$2 == "forward" || $2 == "backward" { n++; if ($5 > 15 || $5 < -15) bad++ }
              END { exit !(n == 10 && bad == 0) }' "$TMP/layer.out"
check "training-throughput/layer: full recomputation adds one forward to the backward" \
  awk -F'\t' '$2 == "forward" { f[$1] = $4 } $2 == "backward" { b[$1] = $4 }
              END { d = b["full-recompute"] - b["baseline"] - f["baseline"]
                    exit !(d < 0.01 * f["baseline"] && -d < 0.01 * f["baseline"]) }' \
  "$TMP/layer.out"
check "training-throughput/layer: sequence parallelism saves the forward 0.5 ms" \
  awk -F'\t' '$2 == "forward" { f[$1] = $4 }
              END { d = f["baseline"] - f["sequence-parallel"]; exit !(d > 0.35 && d < 0.65) }' \
  "$TMP/layer.out"
"$R/training-throughput/layer" --bogus >/dev/null 2>"$TMP/bad.err"
check "training-throughput/layer: unknown option exits 1" eq $? 1

# The planner on a published row (8 GPUs): the published configuration is
# in the searched space, so the best is at least as fast (gain >= 0), and
# the gain is (published - best) / published.
if [ -f "$SHARED/reference/published/training.tsv" ]; then
  "$R/plan-published/run" --tsv --case nemo-llama2-7b-fp8 >"$TMP/pp.out" 2>"$TMP/pp.err"
  check "plan-published --case: exits 0" eq $? 0
  check "plan-published --case: one row" \
    eq "$(count "$TMP/pp.out" '^nemo-llama2-7b-fp8	8	tp1 pp1 v1 mb1 none	')" 1
  check "plan-published --case: the best is no slower, the gain its difference" \
    awk -F'\t' '$1 == "nemo-llama2-7b-fp8" { g = ($6 - $9) / $6 * 100
                 exit !($9 <= $6 && g - $11 < 0.06 && $11 - g < 0.06) }' "$TMP/pp.out"
else
  echo "skip: plan-published: $SHARED/reference/published/training.tsv not found (set SHARED)"
fi
SHARED=$TMP/none "$R/plan-published/run" >"$TMP/noshared.out" 2>&1
check "plan-published without shared data: skip line" has "$TMP/noshared.out" "skip:"
"$R/plan-published/run" --bogus >/dev/null 2>"$TMP/bad.err"
check "plan-published: unknown option exits 1" eq $? 1

# DLRM / DCNv2 throughput on a DGX A100 (DeepLearningExamples), quick: the
# two 1-GPU rows (about a second).  Items/s must be the batch over the
# printed step (65536 samples), the error (predicted - published) /
# published; the 4.2B-parameter T15 tables come from facts in the script.
"$R/dlrm-dcnv2/run" --quick --tsv >"$TMP/dl.out" 2>"$TMP/dl.err"
check "dlrm-dcnv2 --quick: exits 0" eq $? 0
dl_row='^(dcnv2|dlrm)-1gpu-small(-tf32)?	1	[0-9.]+	[0-9.]+	[+-][0-9.]+	[0-9.]+$'
check "dlrm-dcnv2 --quick: the four 1-GPU rows (mixed precision, TF32)" \
  eq "$(count "$TMP/dl.out" "$dl_row")" 4
check "dlrm-dcnv2 --quick: items/s = 65536 / step, error against the published" \
  awk -F'\t' '{ x = 65536 / ($6 / 1000) / 1e6; e = 100 * ($4 - $3) / $3
         if (x - $4 > 0.002 || $4 - x > 0.002 || e - $5 > 0.1 || $5 - e > 0.1) bad = 1 }
       END { exit bad }' "$TMP/dl.out"
check "dlrm-dcnv2: nothing on stderr" test ! -s "$TMP/dl.err"
ORRERY=$TMP/none "$R/dlrm-dcnv2/run" >"$TMP/dlnone.out" 2>&1
check "dlrm-dcnv2 without orrery: exits 0" eq $? 0
check "dlrm-dcnv2 without orrery: skip line" has "$TMP/dlnone.out" "skip:"
"$R/dlrm-dcnv2/run" --bogus >/dev/null 2>"$TMP/bad.err"
check "dlrm-dcnv2: unknown option exits 1" eq $? 1
# Whether the rows meet issue 22's target (within 15 %) is said, counted
# from the errors.  An orrery whose run prints a 47.836 ms step makes the
# 1-GPU DCNv2 row 65536 / 47.836 ms = 1.370 M items/s, its published
# figure (error 0.0 %), the DLRM row 1.370 M against 4.55 M (-69.9 %), the
# TF32 rows 1.370 M against 0.689 M (+98.8 %) and 2.84 M (-51.8 %).
cat >"$TMP/fake-orrery" <<EOF
#!/bin/sh
[ "\$1" = run ] && { echo "simulated time: 47.836 ms"; exit 0; }
exec "$ORRERY" "\$@"
EOF
chmod +x "$TMP/fake-orrery"
ORRERY=$TMP/fake-orrery "$R/dlrm-dcnv2/run" --quick >"$TMP/dlfake.out" 2>&1
check "dlrm-dcnv2: the target line counts the rows within 15 %" has "$TMP/dlfake.out" \
  "within 15 % of the published figure (issue 22's target): 1 of 4 rows"
"$R/dlrm-dcnv2/run" --quick >"$TMP/dlq.out" 2>&1
check "dlrm-dcnv2: of the real rows (+11.5 %, +26.9 %, +25.5 %, +33.9 %) one is" \
  has "$TMP/dlq.out" "(issue 22's target): 1 of 4 rows"

# MLPerf Training v3.0 DLRM-DCNv2 (HugeCTR) on one node of 8 GPUs: three
# rows.  Published: 55296 x 3793 samples (the steps between two
# evaluations) over the logged interval; the DGX H100's 14,452.5 ms gives
# 209,737,728 / 14.4525 s = 14.512 M samples/s, 3.8103 ms a step.
# Predicted: 55296 over the printed step; the error against the published.
M=$R/mlperf-dlrm-dcnv2/run
"$M" --tsv >"$TMP/ml.out" 2>"$TMP/ml.err"
check "mlperf-dlrm-dcnv2: exits 0" eq $? 0
ml_row='^(nvidia-dgxh100|dell-xe9680-(a|h)100)	8	[0-9.]+	[0-9.]+	[+-][0-9.]+	[0-9.]+	[0-9.]+$'
check "mlperf-dlrm-dcnv2: three rows" eq "$(count "$TMP/ml.out" "$ml_row")" 3
check "mlperf-dlrm-dcnv2: the DGX H100's published figure is 14.512 M samples/s, 3.8103 ms" \
  grep -q '^nvidia-dgxh100	8	14.512	[0-9.]*	[+-][0-9.]*	[0-9.]*	3.8103$' "$TMP/ml.out"
check "mlperf-dlrm-dcnv2: published = 55296 / its step, predicted = 55296 / step, the error" \
  awk -F'\t' '{ p = 55296 / ($7 / 1000) / 1e6; x = 55296 / ($6 / 1000) / 1e6
         e = 100 * ($4 - $3) / $3
         if (p - $3 > 0.002 || $3 - p > 0.002 || x - $4 > 0.002 || $4 - x > 0.002 ||
             e - $5 > 0.1 || $5 - e > 0.1) bad = 1 }
       END { exit bad }' "$TMP/ml.out"
# Issue 22's target, met by every row (-2.3 to +1.3 %, README.md): a change that
# takes one further than 15 % fails here.
check "mlperf-dlrm-dcnv2: every row within 15 % of the published figure" \
  awk -F'\t' '{ if ($5 > 15 || $5 < -15) bad = 1 } END { exit bad }' "$TMP/ml.out"
check "mlperf-dlrm-dcnv2: nothing on stderr" test ! -s "$TMP/ml.err"
# The tables are train.py's: sum of rows x 128 = 26,135,627,264 parameters
# (the preset's, tests/workload/test_gen_dlrm.c).  The DGX H100's plan puts
# table 0 and a quarter of table 20 on GPU 1: (40,000,000 + 10,000,000) x
# 128 x 4 B = 25.6 GB = 23.84 GiB, and as much Adagrad state: the 51.2 GB
# HugeCTR's planner gives GPU 1 ("mem cost", 8 bytes an element).
"$M" --tables >"$TMP/ml.csv"
"$M" --plan nvidia-dgxh100 >"$TMP/ml.plan"
check "mlperf-dlrm-dcnv2 --plan: 26 tables, table 20 row-wise over GPUs 1-4" \
  awk -F, '{ n++ } $1 == 20 && $2 == "row_wise" && $3 == "1 2 3 4" { r = 1 }
           END { exit !(n == 26 && r) }' "$TMP/ml.plan"
"$ORRERY" gen dlrm --tables "$TMP/ml.csv" --bottom-mlp 13-512-256-128 \
  --top-mlp 1024-1024-512-256-1 --interaction dcnv2 --emb-optimizer adagrad --ranks 8 \
  --batch 55296 --plan "$TMP/ml.plan" --dry-run >"$TMP/mlgen.out" 2>&1
check "mlperf-dlrm-dcnv2 --tables: 26,135,627,264 embedding parameters" \
  has "$TMP/mlgen.out" "26 tables, 26135627264 embedding parameters"
check "mlperf-dlrm-dcnv2: GPU 1 holds 23.84 GiB of tables and as much Adagrad state" \
  grep -q "^rank 1: t0 t20; .* embeddings 23.84 GiB, optimizer state 23.84 GiB" "$TMP/mlgen.out"
ORRERY=$TMP/none "$M" >"$TMP/mlnone.out" 2>&1
check "mlperf-dlrm-dcnv2 without orrery: exits 0" eq $? 0
check "mlperf-dlrm-dcnv2 without orrery: skip line" has "$TMP/mlnone.out" "skip:"
"$M" --bogus >/dev/null 2>"$TMP/bad.err"
check "mlperf-dlrm-dcnv2: unknown option exits 1" eq $? 1
"$M" --plan bogus >/dev/null 2>"$TMP/bad.err"
check "mlperf-dlrm-dcnv2: unknown case exits 1" eq $? 1

if command -v shellcheck >/dev/null 2>&1; then
  for s in astra-microbench nccl-busbw qin-micro25-alltoall training-throughput plan-published \
           dlrm-dcnv2 mlperf-dlrm-dcnv2; do
    check "shellcheck $s/run" shellcheck "$R/$s/run"
  done
  check "shellcheck training-throughput/layer" shellcheck "$R/training-throughput/layer"
fi

# An unknown option: the usage names the script as typed from the
# repository root, as every other usage line does (it said "usage: run").
for s in "$R"/*/run "$R"/training-throughput/layer; do
  n=${s#"$R"/}
  "$s" --bogus >/dev/null 2>"$TMP/usage.err"
  check "$n --bogus: usage names scripts/reproduce/$n" \
    has "$TMP/usage.err" "(usage: scripts/reproduce/$n"
done
finish
