#!/usr/bin/env bash
# End-to-end tests of the mistakes a new user makes in the first hour
# (issue 21, item 1): each is refused (or mended) at once with a message
# that says what to do, with the numbers worked out.
#   - a mistyped option gets the nearest real one ("did you mean");
#   - `gen --out DIR/x` makes DIR (a file in the way is named);
#   - `--workload` given one file of a trace set names the set's prefix;
#   - gen transformer's --ranks, missing options and global batch say the
#     numbers (300 ranks are not a multiple of tp x pp = 8 x 4 = 32); a
#     value below 1 or two options in conflict are named;
#   - `orrery --help` lists every generator, `orrery gen --help` exits 0;
#   - a run or a plan over a second draws a progress line on a terminal
#     (issue 21, item 5): the share of nodes (candidates) done, the time left;
#   - scripts/sweep and scripts/plot find the binary from any folder.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed".  Usage: tests/scripts/test_first_hour.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
four_rank_cluster "$TMP"
repo=$PWD

# fails NAME TEXT COMMAND...: COMMAND exits 1 saying TEXT.
fails () {
  local name=$1 text=$2; shift 2
  "$@" >"$TMP/out" 2>&1
  check "$name: exit 1" eq $? 1
  check "$name: says '$text'" has "$TMP/out" "$text"
}

# ---- mistyped options -------------------------------------------------------------
fails "run --confg" "Unknown option --confg (did you mean --config?)" \
  "$ORRERY" run --confg "$TMP/cluster.xml"
fails "run --stat=x" "Unknown option --stat=x (did you mean --stats?)" \
  "$ORRERY" run --stat=x
fails "gen collective --rank" "(did you mean --ranks?)" \
  "$ORRERY" gen collective --rank 4
fails "plan --gpu" "(did you mean --gpus?)" "$ORRERY" plan --gpu 8
# Nothing near: no guess.
"$ORRERY" run --xyzzy >"$TMP/out" 2>&1
check "run --xyzzy: no guess" eq "$(cat "$TMP/out")" "orrery run: Unknown option --xyzzy"

# ---- gen --out into a folder that does not exist ----------------------------------
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 1MiB --out "$TMP/new/deep/w" \
  >"$TMP/out" 2>&1
check "gen --out makes its folder" eq $? 0
check "gen --out: the traces are there" [ -s "$TMP/new/deep/w.3.et" ]
touch "$TMP/afile"
fails "gen --out under a file" "--out $TMP/afile/w: $TMP/afile is not a folder" \
  "$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 1MiB --out "$TMP/afile/w"
"$ORRERY" rescale --from "$TMP/new/deep/w" --ranks 8 --out "$TMP/r8/w" >/dev/null 2>&1
check "rescale --out makes its folder" [ -s "$TMP/r8/w.7.et" ]

# ---- --workload given one file of the set -----------------------------------------
fails "run --workload FILE" "did you mean $TMP/new/deep/w?" \
  "$ORRERY" run --config "$TMP/cluster.xml" --workload "$TMP/new/deep/w.2.et"
"$ORRERY" run -q --config "$TMP/cluster.xml" --workload "$TMP/new/deep/w" >/dev/null 2>&1
check "run --workload PREFIX runs" eq $? 0

# ---- gen transformer: the numbers -------------------------------------------------
tf () { "$ORRERY" gen transformer --preset llama2-7b "$@"; }
fails "--ranks 300 --tp 8 --pp 4" \
  "--ranks 300 is not a multiple of tp x pp = 32 (one data-parallel replica)" \
  tf --ranks 300 --tp 8 --pp 4 --micro-batch 1 --global-batch 64 --out "$TMP/t"
fails "--ranks 64 --dp 3" "--ranks 64 is not tp x pp x dp = 32 x 3 = 96" \
  tf --ranks 64 --tp 8 --pp 4 --dp 3 --micro-batch 1 --global-batch 64 --out "$TMP/t"
fails "no --micro-batch" "missing --micro-batch (needed:" \
  tf --ranks 32 --tp 8 --pp 4 --global-batch 64 --out "$TMP/t"
fails "no --micro-batch, no --out" "missing --micro-batch and --out (needed:" \
  tf --ranks 32 --tp 8 --pp 4 --global-batch 64
# 64 ranks of tp 8 x pp 4: dp 2; 2 sequences a micro-batch: 4 a step.
fails "--global-batch 502" \
  "the global batch (502) must be a positive multiple of micro-batch x dp = 2 x 2 = 4 sequences" \
  tf --ranks 64 --tp 8 --pp 4 --micro-batch 2 --global-batch 502 --out "$TMP/t"
fails "--microbatches 3 against --global-batch 500" \
  "the global batch (500) is not micro-batch x dp x microbatches = 2 x 2 x 3 = 12" \
  tf --ranks 64 --tp 8 --pp 4 --micro-batch 2 --microbatches 3 --global-batch 500 --out "$TMP/t"
# An explicit 0 (or less) names its option (it used to read as "missing", or,
# for a model size over a preset's, to be ignored: 32 layers were written);
# options that contradict each other name both.
fails "--micro-batch 0" "--micro-batch 0: must be at least 1" \
  tf --ranks 32 --tp 8 --pp 4 --micro-batch 0 --global-batch 64 --out "$TMP/t"
fails "--global-batch -8" "--global-batch -8: must be at least 1" \
  tf --ranks 32 --tp 8 --pp 4 --micro-batch 1 --global-batch -8 --out "$TMP/t"
fails "--layers 0 over the preset" "--layers 0: must be at least 1" \
  tf --ranks 32 --tp 8 --pp 4 --micro-batch 1 --global-batch 64 --layers 0 --out "$TMP/t"
fails "--ffn 0" "--ffn 0: must be at least 1" \
  tf --ranks 32 --tp 8 --pp 4 --micro-batch 1 --global-batch 64 --ffn 0 --out "$TMP/t"
fails "--fsdp --zero 1" "--fsdp is ZeRO stage 3: it conflicts with --zero 1" \
  tf --ranks 32 --tp 8 --micro-batch 1 --global-batch 64 --fsdp --zero 1 --out "$TMP/t"
fails "--distributed-optimizer --zero 2" \
  "--distributed-optimizer is for ZeRO stage 0: it conflicts with --zero 2" \
  tf --ranks 32 --tp 8 --micro-batch 1 --global-batch 64 --distributed-optimizer --zero 2 \
  --out "$TMP/t"
fails "--no-dp-overlap --fsdp" \
  "--no-dp-overlap is for ZeRO stage 0: it conflicts with --fsdp (ZeRO stage 3)" \
  tf --ranks 32 --tp 8 --micro-batch 1 --global-batch 64 --no-dp-overlap --fsdp --out "$TMP/t"
# Sizes that do not divide say their values (5120 / 12 is no whole head).
fails "--heads 12 --hidden 5120" "heads 12 does not divide hidden 5120" \
  tf --ranks 8 --micro-batch 1 --global-batch 8 --hidden 5120 --heads 12 --out "$TMP/t"
fails "--pp 16 --layers 8" "more pipeline stages than layers: pp 16, layers 8" \
  tf --ranks 16 --pp 16 --micro-batch 1 --global-batch 16 --layers 8 --out "$TMP/t"
fails "--kv-heads 3" "kv heads must divide heads: kv heads 3, heads 32" \
  tf --ranks 8 --micro-batch 1 --global-batch 8 --kv-heads 3 --out "$TMP/t"
check "refused: no trace written" eq "$(ls "$TMP" | grep -c '^t\.')" 0
# Layers that do not divide by pp x v are split unevenly (the first L mod
# (pp v) chunks take one more), which Megatron-LM refuses: said, not refused.
# llama2-7b's 32 layers over 3 stages: 32 = 3 x 10 + 2, so 11 + 11 + 10;
# over pp 2 x v 3 = 6 chunks: 32 = 6 x 5 + 2, the first 2 chunks hold 6.
tf --ranks 3 --pp 3 --micro-batch 1 --global-batch 3 --out "$TMP/u/t" >"$TMP/out" 2>&1
check "uneven pp: exit 0" eq $? 0
check "uneven pp: said" has "$TMP/out" "note: 32 layers do not divide evenly over 3 pipeline \
stages: the first 2 hold 11 layers, the other 1 hold 10"
tf --ranks 2 --pp 2 --virtual-stages 3 --micro-batch 1 --global-batch 2 --out "$TMP/u/t" \
  >"$TMP/out" 2>&1
check "uneven chunks: said" has "$TMP/out" "over 6 model chunks (pp 2 x virtual stages 3): \
the first 2 hold 6 layers, the other 4 hold 5"
tf --ranks 2 --pp 2 --virtual-stages 4 --micro-batch 1 --global-batch 2 --out "$TMP/u/t" \
  >"$TMP/out" 2>&1
check "even chunks: no note" eq "$(grep -c 'note:' "$TMP/out")" 0

# ---- help ---------------------------------------------------------------------------
"$ORRERY" --help >"$TMP/out" 2>&1
check "orrery --help lists gen transformer" has "$TMP/out" "gen collective, gen transformer"
"$ORRERY" gen --help >"$TMP/out" 2>&1
check "orrery gen --help exits 0" eq $? 0
check "orrery gen --help lists collective" has "$TMP/out" "  collective "
check "orrery gen --help lists transformer" has "$TMP/out" "  transformer "
fails "orrery gen foo" "orrery gen: unknown generator 'foo' (collective, transformer, dlrm)" \
  "$ORRERY" gen foo

# ---- the progress line of a long run, on a terminal ---------------------------------
# A run past a second redraws one line on stderr: simulated time, the share
# of nodes done, the time left, events/s, ranks finished.  `script` gives
# the run a terminal; piped, it draws nothing.  ORRERY_PROGRESS_AFTER=0s
# draws it from the first slice of events, so the checks do not hang on how
# fast this machine is (a second was once 3.7 s of run here, then 0.9 s of
# plan on a faster machine, and the line never came).
if command -v script >/dev/null 2>&1; then
  sed 's/size="4"/size="64"/' "$TMP/cluster.xml" >"$TMP/c64.xml"
  "$ORRERY" gen collective --type all-reduce --ranks 64 --bytes 64MiB --count 200 \
    --out "$TMP/long" >/dev/null
  long=("$ORRERY" run --config "$TMP/c64.xml" --workload "$TMP/long" --symmetry off
        --network-model congestion)
  on_tty () { script -qc "$(printf '%q ' "$@")" /dev/null >"$TMP/tty" 2>&1; }
  ORRERY_PROGRESS_AFTER=0s on_tty "${long[@]}"
  tr '\r' '\n' <"$TMP/tty" >"$TMP/lines"
  line='^.\[Korrery: simulated [0-9.]+ [mu]?s, [0-9.]+% of nodes done, '
  line+='about [0-9]+ (s|min) left, [0-9.]+ M events/s, [0-9]+ of 64 ranks finished'
  check "progress: drawn on a terminal" grep -qE "$line" "$TMP/lines"
  check "progress: erased at the end" grep -qE "^.\[Kworkload: " "$TMP/lines"
  ORRERY_PROGRESS_AFTER=1h on_tty "${long[@]}"
  check "progress: none before ORRERY_PROGRESS_AFTER" eq "$(grep -c 'nodes done' "$TMP/tty")" 0
  ORRERY_PROGRESS_AFTER=0s "${long[@]}" >"$TMP/piped.out" 2>"$TMP/piped.err"
  check "progress: nothing drawn into a pipe" eq "$(grep -c 'nodes done' "$TMP/piped.err")" 0
  ORRERY_PROGRESS_AFTER=soon on_tty "${long[@]}"
  check "progress: a bad ORRERY_PROGRESS_AFTER said" grep -q \
    "ORRERY_PROGRESS_AFTER: 'soon' is not a time with its unit (e.g. 0s or 5s)" "$TMP/tty"
  # plan: after each batch of candidates, how many are done, the best so far
  # and the most the rest can take.
  plan=("$ORRERY" plan --model llama2-7b --gpus 64 --global-batch 64
        --config configs/default.xml --exhaustive --jobs 1 --out "$TMP/plan"
        --space "tp=2,8;pp=1,2;mb=1;zero=1;recompute=none;sched=1f1b")
  ORRERY_PROGRESS_AFTER=0s on_tty "${plan[@]}"
  tr '\r' '\n' <"$TMP/tty" >"$TMP/lines"
  line='^.\[Korrery plan: [0-9]+ of [0-9]+ candidates, best [0-9.]+ [mu]?s, '
  line+='at most about [0-9]+ (s|min) left$'
  check "progress: plan's line on a terminal" grep -qE "$line" "$TMP/lines"
  ORRERY_PROGRESS_AFTER=soon on_tty "${plan[@]}"
  check "progress: plan says a bad ORRERY_PROGRESS_AFTER" grep -q \
    "ORRERY_PROGRESS_AFTER: 'soon' is not a time" "$TMP/tty"
else
  echo "skip: progress line (no script(1) to give the run a terminal)"
fi

# ---- scripts from another folder ----------------------------------------------------
# Run from an empty folder with ORRERY unset: the scripts find the binary
# of their own repository (this test's binary when it is that one).
if [ "$ORRERY" = "$repo/build/orrery" ]; then
  (cd "$TMP" && env -u ORRERY "$repo/scripts/sweep" --slurm -o "$TMP/sw" \
     "$repo/configs/sweeps/microbench.xml") >"$TMP/out" 2>&1
  check "scripts/sweep from another folder" eq $? 0
  check "scripts/sweep: the job names the binary" has "$TMP/sw/slurm/sweep.sbatch" \
    "$repo/build/orrery"
  if command -v gnuplot >/dev/null 2>&1; then
    "$ORRERY" run -q --config "$TMP/cluster.xml" --workload "$TMP/new/deep/w" \
      --report "$TMP/r.json" >/dev/null 2>&1
    (cd "$TMP" && env -u ORRERY "$repo/scripts/plot" r.json r) >"$TMP/out" 2>&1
    check "scripts/plot from another folder" [ -s "$TMP/r-ranks.png" ]
  else
    echo "skip: scripts/plot (no gnuplot)"
  fi
else
  echo "skip: scripts from another folder (ORRERY is not this repository's build/orrery)"
fi

finish
