#!/usr/bin/env bash
# The first study of README.md runs as written (issue 21, item 4).
#
# The study is the part of README.md between the lines <!-- first-study -->
# and <!-- /first-study -->.  Each ```sh block there is one step: its text,
# exactly as written, runs as a bash script (stopping at the first failing
# command) from the root of a fresh copy of configs/ and scripts/ beside
# build/orrery (a link to the binary under test), as a newcomer's checkout
# would be.  The ```text block right after a step holds lines the step must
# print (stdout or stderr), each found verbatim (leading spaces aside); a
# line that is a build/ path must also be a file afterwards.  After the
# last step, every `build/...` path the study's prose names must exist, and
# the comparisons the prose draws must hold: the H100 node faster than the
# A100, TP 2 x PP 4 faster than TP 8, a timeline of ranks 0 to 7.
# Usage: tests/scripts/test_first_study.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
for tool in gnuplot parallel; do
  command -v "$tool" >/dev/null || skip "$tool not installed (make deps installs it)"
done

# ---- the study's steps --------------------------------------------------------------
study=$TMP/study.md
awk '/^<!-- first-study -->$/ { on = 1; next } /^<!-- \/first-study -->$/ { on = 0 }
     on' README.md >"$study"
check "README.md has a first study" test -s "$study"
# Split it: step N's script in $TMP/step.N.sh, its expected lines in
# $TMP/step.N.expect (empty when no text block follows), the prose apart.
awk -v dir="$TMP" '
  /^```sh$/   { n++; out = dir "/step." n ".sh"; printf "" >out;
                printf "" >(dir "/step." n ".expect"); last = "sh"; next }
  /^```text$/ { if (last != "shdone") { print "text block without a step" >"/dev/stderr"; exit 1 }
                out = dir "/step." n ".expect"; last = "text"; next }
  /^```$/     { out = ""; last = (last == "sh") ? "shdone" : ""; next }
  /^```/      { print "unknown block: " $0 >"/dev/stderr"; exit 1 }
  out != ""   { print >>out; next }
  /[^ ]/ && last == "shdone" { last = "" }
              { print >>(dir "/prose.md") }
' "$study"
check "the study splits into steps" test $? -eq 0
steps=$(find "$TMP" -maxdepth 1 -name 'step.*.sh' | wc -l)
check "the study has its steps (at least 6)" test "$steps" -ge 6

# ---- a newcomer's checkout ----------------------------------------------------------
repo=$TMP/repo
mkdir -p "$repo/build"
cp -r configs scripts "$repo/"
ln -s "$ORRERY" "$repo/build/orrery"

# expect_lines N: step N printed each line of its text block.
expect_lines () {
  local line missing=0
  while IFS= read -r line; do
    line=${line#"${line%%[! ]*}"}
    [ -n "$line" ] || continue
    grep -qF -- "$line" "$TMP/out.$1" || { echo "  step $1 did not print: $line" >&2; missing=1; }
    case "$line" in
      build/*) [ -f "$repo/$line" ] || { echo "  step $1: no file $line" >&2; missing=1; } ;;
    esac
  done <"$TMP/step.$1.expect"
  return "$missing"
}
for ((n = 1; n <= steps; n++)); do
  (cd "$repo" && env -u ORRERY bash -e -o pipefail "$TMP/step.$n.sh") >"$TMP/out.$n" 2>&1
  status=$?
  check "step $n: exit status 0" eq "$status" 0
  [ "$status" -eq 0 ] || tail -n 5 "$TMP/out.$n" | sed 's/^/    /' >&2
  check "step $n: prints what README.md shows" expect_lines "$n"
done

# ---- the files and comparisons the prose names --------------------------------------
# shellcheck disable=SC2016  # the backticks are Markdown's, not commands
prose_files () {
  local f missing=0
  while IFS= read -r f; do
    [ -f "$repo/$f" ] || { echo "  no file $f" >&2; missing=1; }
  done < <(grep -oE '`build/[^` ]+`' "$TMP/prose.md" | tr -d '`' | grep -E '\.[a-z]+$' | sort -u)
  return "$missing"
}
check "every build/ file the study names exists" prose_files
# shellcheck disable=SC2016  # the backticks are Markdown's, not commands
check "the study names its output files" \
  test "$(grep -oE '`build/[^` ]+\.[a-z]+`' "$TMP/prose.md" | sort -u | wc -l)" -ge 2

# time_ps FILE: the "simulated time:" of a run's output, in picoseconds.
time_ps () {
  sed -n 's/^simulated time: //p' "$1" | head -n 1 | awk '
    { m["ps"] = 1; m["ns"] = 1e3; m["us"] = 1e6; m["ms"] = 1e9; m["s"] = 1e12
      printf "%.0f\n", $1 * m[$2] }'
}
# The steps that print a run: find them by their network line and workload.
out_of () { grep -lF -- "$1" "$TMP"/out.* | head -n 1; }
h100=$(out_of 'Switch 8 (450.00 GB/s'); a100=$(out_of 'Switch 8 (300.00 GB/s')
tp2pp4=$(grep -lF 'tp 2 pp 4' "$TMP"/out.* | head -n 1)
check "the H100 node is faster than the A100" \
  test "$(time_ps "$h100")" -lt "$(time_ps "$a100")"
check "TP 2 x PP 4 is faster than TP 8" \
  test "$(time_ps "$tp2pp4")" -lt "$(time_ps "$h100")"
timeline=$repo/build/study/tp2pp4-timeline.json
check "the timeline has ranks 0 to 7" \
  eq "$(grep -oE '"args":\{"name":"rank [0-9]+"\}' "$timeline" | sort -u | wc -l)" 8
check "the timeline has compute and communication threads" \
  test "$(grep -cE '"name":"(compute|communication)"' "$timeline")" -ge 16
# The arrows from sends to receives: TP 2 x PP 4 with 8 micro-batches sends
# activations forward and gradients back across each of the 3 stage
# boundaries, per micro-batch and tensor rank: 8 x 3 x 2 x 2 = 96 messages.
check "the timeline joins each of the 96 pipeline sends to its receive" \
  eq "$(grep -c '"ph":"s"' "$timeline") $(grep -c '"ph":"f"' "$timeline")" "96 96"

finish
