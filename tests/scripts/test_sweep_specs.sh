#!/usr/bin/env bash
# Sweep specs that try to set what the sweep sets (issue 19, item 8), end
# to end through scripts/sweep and the orrery binary (ORRERY, default
# build/orrery): a {placeholder} whose value is "--config=other.xml", a
# short-option group "-qr" that would take the sweep's --report as its
# value, a last option that takes a value, and an XPath select that matches
# a namespace node.  Prints one "ok NAME" or "FAIL NAME" line per check,
# then "N checks, N failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_sweep_specs.sh   (run by `make check` through
# scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
SWEEP=$PWD/scripts/sweep
make_tmp
four_rank_cluster "$TMP"
cp "$TMP/cluster.xml" "$TMP/other.xml"

# sweep_spec FILE OPTIONS VALUES [SELECT]: a spec over cluster.xml whose
# <run-options> are OPTIONS and whose param "o" takes VALUES (selecting
# SELECT in the config when given).
sweep_spec () {
  local sel=""
  [ -z "${4:-}" ] || sel=" select=\"$4\""
  cat >"$1" <<SPEC
<sweep name="s">
  <config path="cluster.xml"/>
  <generate>gen collective --type all_reduce --ranks 4 --bytes 1KB</generate>
  <run-options>$2</run-options>
  <grid><param name="o"$sel values="$3"/></grid>
</sweep>
SPEC
}
# refused LOG MESSAGE COMMAND...: COMMAND exits 1 with one line on stderr
# that holds MESSAGE.
refused () {
  local log=$1 msg=$2 rc=0; shift 2
  timeout 60 "$@" >"$log.out" 2>"$log" || rc=$?
  [ "$rc" = 1 ] || { echo "  exit status $rc, expected 1: $(cat "$log")" >&2; return 1; }
  [ "$(wc -l <"$log")" = 1 ] || { echo "  stderr: $(cat "$log")" >&2; return 1; }
  has "$log" "$msg" || { echo "  stderr: $(cat "$log")" >&2; return 1; }
}

# A value substituted into the options is checked like the options.
sweep_spec "$TMP/sub.xml" '--critical-path 1 {o}' '-q --config=other.xml'
check placeholder_config refused "$TMP/sub.log" \
  "<run-options> of point 1: --config is set by the sweep itself (in '--config=other.xml')" \
  "$ORRERY" sweep expand "$TMP/sub.xml" "$TMP/sub"
check placeholder_config_writes_nothing eq "$(ls "$TMP/sub" 2>/dev/null)" ""
rc=0
"$SWEEP" -o "$TMP/sub2" "$TMP/sub.xml" >"$TMP/sub2.log" 2>&1 || rc=$?
check placeholder_config_sweep_fails eq "$rc" 1
check placeholder_config_sweep_says has "$TMP/sub2.log" "--config is set by the sweep itself"
check placeholder_config_sweep_no_csv eq "$(ls "$TMP/sub2" 2>/dev/null | grep -c csv)" 0

# "-qr": -q, then -r taking the next word as the report's path.
sweep_spec "$TMP/group.xml" '-qr' '1'
check short_group refused "$TMP/group.log" \
  "<run-options>: -r is set by the sweep itself (in '-qr')" \
  "$ORRERY" sweep expand "$TMP/group.xml" "$TMP/group"
sweep_spec "$TMP/group2.xml" '{o}' '-q -wr'
check short_group_placeholder refused "$TMP/group2.log" \
  "<run-options> of point 1: -w is set by the sweep itself (in '-wr')" \
  "$ORRERY" sweep expand "$TMP/group2.xml" "$TMP/group2"

# An option that takes a value, last: it has nothing of the sweep's to take.
sweep_spec "$TMP/last.xml" '--critical-path {o} --timeline' '1'
mkdir -p "$TMP/cwd"
(cd "$TMP/cwd" && "$SWEEP" -o "$TMP/last" "$TMP/last.xml" >"$TMP/last.log" 2>&1)
check last_option_fails_the_point has "$TMP/last.log" "1 points: 0 ok, 1 failed"
check last_option_no_stray_file eq "$(ls -A "$TMP/cwd")" ""
check last_option_report_path has "$TMP/last/points/0/args" "$TMP/last/points/0/report.json"

# --packet-size is refused unless the congestion model runs (only it cuts
# packets): a sweep that varies the model zips the packet size with it,
# 0 (whole messages) for the others, and every point runs; crossing them
# instead fails the analytical points with run's message, the others run.
cat >"$TMP/ps.xml" <<'SPEC'
<sweep name="ps">
  <config path="cluster.xml"/>
  <generate>gen collective --type all_reduce --ranks 4 --bytes 1MiB</generate>
  <run-options>--network-model {model} --packet-size {ps}</run-options>
  <grid><zip>
    <param name="model" values="analytical flow congestion congestion"/>
    <param name="ps" values="0 0 4KiB 64KiB"/>
  </zip></grid>
</sweep>
SPEC
"$SWEEP" -o "$TMP/ps" "$TMP/ps.xml" >"$TMP/ps.log" 2>&1
check packet_size_zipped_with_the_model_runs has "$TMP/ps.log" "4 points: 4 ok, 0 failed"
sed 's|<zip>||; s|</zip>||; s|"analytical flow congestion congestion"|"analytical congestion"|;
     s|"0 0 4KiB 64KiB"|"4KiB"|' "$TMP/ps.xml" >"$TMP/psx.xml"
"$SWEEP" -o "$TMP/psx" "$TMP/psx.xml" >"$TMP/psx.log" 2>&1
check packet_size_crossed_fails_the_analytical_point has "$TMP/psx.log" "2 points: 1 ok, 1 failed"
check packet_size_crossed_says_why has "$TMP/psx/points/0/status" \
  "--packet-size 4KiB: only the congestion model cuts messages into packets"

# namespace::* selects xmlNs nodes, the document "/": neither takes a value.
sweep_spec "$TMP/ns.xml" '' '1' '//namespace::*'
check namespace_select refused "$TMP/ns.log" "that is not an element, attribute or text" \
  "$ORRERY" sweep expand "$TMP/ns.xml" "$TMP/ns"
sweep_spec "$TMP/doc.xml" '' '1' '/'
check document_select refused "$TMP/doc.log" "that is not an element, attribute or text" \
  "$ORRERY" sweep expand "$TMP/doc.xml" "$TMP/doc"
# A value listed twice in one param would run each of its points twice
# (two ids, two rows of sweep.csv): refused, naming the param and the value.
# In a zip only a whole tuple listed twice is (one param's value may recur).
sweep_spec "$TMP/dup.xml" '--critical-path {o}' '1 2 1'
check duplicate_value refused "$TMP/dup.log" \
  "dup.xml:5: <param>: param 'o' lists the value 1 twice (values 1 and 3)" \
  "$ORRERY" sweep expand "$TMP/dup.xml" "$TMP/dup"
check duplicate_value_writes_nothing eq "$(ls "$TMP/dup" 2>/dev/null)" ""
sed 's|"0 0 4KiB 64KiB"|"0 0 4KiB 4KiB"|' "$TMP/ps.xml" >"$TMP/dupzip.xml"
check duplicate_zip_tuple refused "$TMP/dupzip.log" \
  "the zip lists the same values twice (positions 3 and 4, 'model' = congestion" \
  "$ORRERY" sweep expand "$TMP/dupzip.xml" "$TMP/dupzip"
# Words are split at blanks, no quoting: a quote in <run-options> (an
# unterminated one, or a pair around a path with a blank) reached the run
# as a character of a word; refused at the element's line, as is one that
# a value brings into a point.
sweep_spec "$TMP/quote.xml" '--timeline "my t.json {o}' '1'
check unterminated_quote refused "$TMP/quote.log" \
  "quote.xml:4: <run-options>: quote \" in '\"my': quotes are not read" \
  "$ORRERY" sweep expand "$TMP/quote.xml" "$TMP/quote"
check unterminated_quote_writes_nothing eq "$(ls "$TMP/quote" 2>/dev/null)" ""
sweep_spec "$TMP/quote2.xml" '--timeline {o}' "a.json it's"
check quote_in_a_value refused "$TMP/quote2.log" \
  "quote2.xml:4: <run-options> of point 1: quote ' in 'it's': quotes are not read" \
  "$ORRERY" sweep expand "$TMP/quote2.xml" "$TMP/quote2"
finish
