#!/usr/bin/env bash
# test_help.sh: what a new user meets first, through the binary: `orrery
# help COMMAND` prints the command's own help, every usage line names the
# program as typed ("orrery run", not GLib's bare "run"), and a bare
# `orrery run` names both inputs it needs and both ways to give the cluster.
# Usage: tests/scripts/test_help.sh   (run by `make test`).
. "$(dirname "$0")/lib.sh"
make_tmp

# help COMMAND: the same bytes as COMMAND --help, exit 0.
for c in run rescale inspect convert plot-data plan sweep gen "gen collective" \
  "gen transformer" "gen dlrm"; do
  # shellcheck disable=SC2086  # the command's words
  "$ORRERY" $c --help >"$TMP/own" 2>&1
  # shellcheck disable=SC2086
  "$ORRERY" help $c >"$TMP/help" 2>&1; rc=$?
  check "help $c exits 0" eq "$rc" 0
  check "help $c prints $c --help" cmp -s "$TMP/help" "$TMP/own"
done
# GOption's "Usage:" line: the program's name, then the command's words.
for c in run rescale inspect convert plot-data plan "gen collective" "gen transformer" \
  "gen dlrm"; do
  # shellcheck disable=SC2086
  line=$("$ORRERY" $c --help 2>&1 | sed -n 2p)
  check "$c --help: usage names 'orrery $c'" test "${line#  orrery "$c" [}" != "$line"
done
"$ORRERY" help >"$TMP/bare" 2>&1; rc=$?
check "bare help exits 0" eq "$rc" 0
check "bare help lists the commands" has "$TMP/bare" "Commands:"
check "bare help names help COMMAND" has "$TMP/bare" "'orrery help COMMAND'"
# --version (and version): "orrery " and the build's git describe (a
# commit's hex, maybe a tag and -dirty) or "unknown" outside a checkout.
for v in --version version; do
  out=$("$ORRERY" $v 2>&1); rc=$?
  check "$v exits 0" eq "$rc" 0
  check "$v prints the build" test -n "$(printf '%s\n' "$out" \
    | grep -xE 'orrery ([A-Za-z0-9._-]*[0-9a-f]{7,}(-dirty)?|unknown)')"
done
check "bare help names --version" has "$TMP/bare" "'orrery --version'"
# A report names the build that wrote it, as --version prints it.
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/ar" >/dev/null
four_rank_cluster "$TMP"
"$ORRERY" run --config "$TMP/cluster.xml" --workload "$TMP/ar" --report "$TMP/r.json" -q
check "the report's inputs.orrery_version is --version's" eq \
  "$(sed -n 's/.*"orrery_version" : "\([^"]*\)".*/\1/p' "$TMP/r.json")" \
  "$("$ORRERY" --version | sed 's/^orrery //')"
# --version with more words: refused as taking none, not as an unknown
# command (it said "unknown command '--version'", a command it knows).
for v in --version version; do
  "$ORRERY" $v extra >"$TMP/vx" 2>&1; rc=$?
  check "$v extra exits 1" eq "$rc" 1
  check "$v extra: takes no arguments" eq "$(cat "$TMP/vx")" \
    "orrery: $v takes no arguments ('extra')"
done
"$ORRERY" help version >"$TMP/hv" 2>&1; rc=$?
check "help version exits 0" eq "$rc" 0
check "help version names the build's describe" has "$TMP/hv" "git describe"
# The Makefile's describe is the source directory's own checkout: a
# tarball unpacked inside another repository is "unknown", not that
# repository's commit.
mkdir -p "$TMP/outer/orrery"
git -C "$TMP/outer" init -q && git -C "$TMP/outer" -c user.name=t -c user.email=t@t \
  commit -q --allow-empty -m outer
cp Makefile "$TMP/outer/orrery/"
make -s -C "$TMP/outer/orrery" build/gen/version.h >/dev/null 2>&1
check "a tarball inside another repository: version unknown" eq \
  "$(cat "$TMP/outer/orrery/build/gen/version.h" 2>&1)" '#define ORRERY_VERSION "unknown"'
"$ORRERY" help rnu >"$TMP/typo" 2>&1; rc=$?
check "help of an unknown command exits 1" eq "$rc" 1
check "help rnu: did you mean run" has "$TMP/typo" "unknown command 'rnu' (did you mean run?)"

# Bare run: both inputs in one message, both ways to give the cluster.
"$ORRERY" run >"$TMP/run.out" 2>&1; rc=$?
check "bare run exits 1" eq "$rc" 1
check "bare run: one line" eq "$(wc -l <"$TMP/run.out")" 1
for w in "needs a workload and a cluster" "--workload PREFIX" "--config CLUSTER.xml" \
  "--astra-network NET.yml --astra-system SYS.json"; do
  check "bare run names '$w'" has "$TMP/run.out" "$w"
done
# A cluster without a workload: the workload alone is missing.
four_rank_cluster "$TMP"
"$ORRERY" run --config "$TMP/cluster.xml" >"$TMP/nowl.out" 2>&1; rc=$?
check "run --config alone exits 1" eq "$rc" 1
check "run --config alone: no workload" eq "$(cat "$TMP/nowl.out")" \
  "orrery run: no workload: give --workload PREFIX"

# plot-data --help names every column it writes (pipeline_bubble_ms was
# missing): the names are read from the files' own header lines.
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/ar" >/dev/null
"$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar" --report "$TMP/r.json" >/dev/null 2>&1
"$ORRERY" plot-data "$TMP/r.json" "$TMP/pd" >/dev/null 2>&1; rc=$?
check "plot-data of a run's report exits 0" eq "$rc" 0
"$ORRERY" plot-data --help >"$TMP/pd.help" 2>&1
# words WORD...: each WORD is in plot-data --help, as a word.
words () { local w; for w; do grep -qw -- "$w" "$TMP/pd.help" || { echo "  $w" >&2; return 1; }; done; }
# shellcheck disable=SC2046  # one word a column
check "plot-data --help names ranks.dat's columns" \
  words $(head -1 "$TMP/pd/ranks.dat" | sed 's/^# //; s/ (.*//')
# shellcheck disable=SC2046
check "plot-data --help names overview.dat's columns" \
  words $(head -1 "$TMP/pd/overview.dat" | sed 's/^# //; s/ (.*//')
# shellcheck disable=SC2046
check "plot-data --help names meta.gp's variables" \
  words $(sed -n 's/^\([a-z_]*\) = .*/\1/p' "$TMP/pd/meta.gp")
check "ranks.dat has pipeline_bubble_ms" has "$TMP/pd/ranks.dat" pipeline_bubble_ms
finish
