#!/usr/bin/env bash
# Whole-number options end to end, through every command that has them:
# GLib read them as C's strtol (..., 0) does, so --ranks 010 was 8 ranks
# and --tp 0x2 was 2, and -2147483648 (G_MININT, the mark of an option not
# given) passed as no option at all (plan --dlrm --budget -2147483648 ran
# with the default budget).  Now each is read in decimal by the one option
# parser (sim/app/cli.c), in every spelling, and -2147483648 refused.
# tests/app/test_cli_numbers.c tests the parser itself.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_cli_numbers.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

# says NAME TEXT COMMAND...: COMMAND's output (stdout and stderr) holds TEXT.
says () {
  local name=$1 want=$2; shift 2
  "$@" >"$TMP/out" 2>&1
  check "$name" has "$TMP/out" "$want"
}
too_small="too small (at least -2147483647)"

# ---- gen collective: --ranks 010 is ten ranks, in each spelling ---------------------
gc () { "$ORRERY" gen collective --type all_reduce --bytes 1MB "$@"; }
i=0
for spelling in "--ranks 010" "--ranks=010" "-n 010" "-n010"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # the spelling is one or two words
  says "gen collective $spelling: ten ranks" "wrote $TMP/c$i/c.0.et .. $TMP/c$i/c.9.et" \
    gc $spelling --out "$TMP/c$i/c"
  check "gen collective $spelling: c.9.et and no c.10.et" \
    test -e "$TMP/c$i/c.9.et" -a ! -e "$TMP/c$i/c.10.et"
done
cx="orrery gen collective"
refuses "gen collective --ranks 0x2" "$cx: --ranks 0x2: not a whole number" \
  gc --ranks 0x2 --out "$TMP/x/c"
refuses "gen collective -n0x2 (named by its long name)" "$cx: --ranks 0x2: not a whole number" \
  gc -n0x2 --out "$TMP/x/c"
# --count not given is G_MININT: -2147483648 wrote one collective.
refuses "gen collective --count -2147483648" "$cx: --count -2147483648: $too_small" \
  gc --ranks 4 --count -2147483648 --out "$TMP/x/c"
refuses "gen collective -k-2147483648" "$cx: --count -2147483648: $too_small" \
  gc --ranks 4 -k-2147483648 --out "$TMP/x/c"
# After "--" nothing is an option: the value there is an argument, refused
# as one, not read as a number.
refuses "gen collective -- --ranks 0x2" "$cx: unexpected argument '--': the command takes \
options only (usage: $cx [OPTION…]; --help lists them)" \
  gc --ranks 4 --out "$TMP/x/c" -- --ranks 0x2
check "gen collective refused: nothing written" test ! -e "$TMP/x"

# ---- gen transformer: --layers 010 is ten layers -------------------------------------
# Llama 2 7B (h 4096, FFN 11008 gated, vocabulary 32000, kv-heads = heads):
# a layer holds 4 h^2 + 3 h f = 67108864 + 135266304 = 202375168 parameters,
# the embedding and the output layer 2 V h = 262144000; ten layers:
# 2023751680 + 262144000 = 2285895680 (eight, GLib's octal, 1881145344).
gt () { "$ORRERY" gen transformer --preset llama2-7b -B 8 "$@"; }
says "gen transformer --layers 010: ten layers" " 2285895680 parameters" \
  gt -b 1 --layers 010 --out "$TMP/t/t"
says "gen transformer --layers=010: ten layers" " 2285895680 parameters" \
  gt -b 1 --layers=010 --out "$TMP/t2/t"
tx="orrery gen transformer"
refuses "gen transformer --layers -2147483648 (was the preset's 32)" \
  "$tx: --layers -2147483648: $too_small" gt -b 1 --layers -2147483648 --out "$TMP/y/t"
refuses "gen transformer -b0x1" "$tx: --micro-batch 0x1: not a whole number" \
  gt -b0x1 --out "$TMP/y/t"
refuses "gen transformer --tp=0x2" "$tx: --tp 0x2: not a whole number" \
  gt -b 1 --tp=0x2 --out "$TMP/y/t"
check "gen transformer refused: nothing written" test ! -e "$TMP/y"

# ---- gen dlrm: --ranks and --batch in decimal ----------------------------------------
dl=(gen dlrm --preset dlrm-dcnv2-criteo1tb --dry-run)
refuses "gen dlrm --ranks 010: ten ranks" "orrery gen dlrm: the global batch (65536 samples) \
must be a positive multiple of the ranks (10), at most 2147483647" \
  "$ORRERY" "${dl[@]}" --ranks 010
refuses "gen dlrm -B0100: a hundred samples" "orrery gen dlrm: the global batch (100 samples) \
must be a positive multiple of the ranks (8), at most 2147483647" \
  "$ORRERY" "${dl[@]}" --ranks 8 -B0100
refuses "gen dlrm --dcn-rank -2147483648" \
  "orrery gen dlrm: --dcn-rank -2147483648: $too_small" \
  "$ORRERY" "${dl[@]}" --ranks 8 --dcn-rank -2147483648

# ---- rescale: --ranks 010 writes ten ---------------------------------------------------
gc --ranks 4 --out "$TMP/r/r" >/dev/null
says "rescale -n010: ten ranks" "rescaled 4 ranks to 10: wrote $TMP/r10/r.0.et .. $TMP/r10/r.9.et" \
  "$ORRERY" rescale --from "$TMP/r/r" -n010 --out "$TMP/r10/r"
refuses "rescale --ranks -2147483648" "orrery rescale: --ranks -2147483648: $too_small" \
  "$ORRERY" rescale --from "$TMP/r/r" --ranks -2147483648 --out "$TMP/r11/r"

# ---- run: --critical-path 010 lists ten steps -----------------------------------------
# Twelve all-reduces back to back on 4 ranks: a chain of 12 steps; ten
# listed, and the 2 more said.
four_rank_cluster "$TMP"
gc --ranks 4 --count 12 --out "$TMP/k/k" >/dev/null
for spelling in "--critical-path 010" "-p010"; do
  # shellcheck disable=SC2086
  "$ORRERY" run --config "$TMP/cluster.xml" --workload "$TMP/k/k" $spelling >"$TMP/cp" 2>&1
  check "run $spelling: exit 0" eq "$?" 0
  check "run $spelling: 12 steps, 10 listed" has "$TMP/cp" "... 2 more steps"
  check "run $spelling: 10 step lines" \
    eq "$(grep -cE '^  0 +[0-9]+ +collective ' "$TMP/cp")" 10
done
refuses "run -p 0x10" "orrery run: --critical-path 0x10: not a whole number" \
  "$ORRERY" run --config "$TMP/cluster.xml" --workload "$TMP/k/k" -p 0x10

# ---- plan and plan --dlrm -----------------------------------------------------------
# Two candidates (tp 1 and 2): --explain 010 asks for the eleventh.
ONE="tp=1,2;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b"
pl=(plan --model llama2-7b --global-batch 8 --config configs/hgx-h100.xml --space "$ONE")
refuses "plan --explain 010: candidate 10" \
  "orrery plan: --explain 10: the candidates are numbered 0 .. 1" \
  "$ORRERY" "${pl[@]}" --explain 010
refuses "plan --explain -2147483648 (was no --explain)" \
  "orrery plan: --explain -2147483648: $too_small" "$ORRERY" "${pl[@]}" --explain -2147483648
refuses "plan -k0x5" "orrery plan: --top 0x5: not a whole number" "$ORRERY" "${pl[@]}" -k0x5
pd=(plan --dlrm --preset dlrm-dcnv2-criteo1tb --config configs/hgx-h100.xml)
refuses "plan --dlrm --budget -2147483648 (was the default 64)" \
  "orrery plan: --budget -2147483648: $too_small" "$ORRERY" "${pd[@]}" --budget -2147483648
refuses "plan --dlrm --gpus=0x8" "orrery plan: --gpus 0x8: not a whole number" \
  "$ORRERY" "${pd[@]}" --gpus=0x8

finish
