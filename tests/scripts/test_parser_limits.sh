#!/usr/bin/env bash
# Parser depth and cost (issue 19, item 3), end to end through the orrery
# binary (ORRERY, default build/orrery): JSON nested ~200 KB deep at every
# JSON entry point, YAML nested 100,000 deep, an XML internal entity used
# thousands of times, each refused at once with one line naming the file
# (exit 1) where they crashed or took minutes; 200,000 process groups read
# in seconds.  Every command runs under a timeout, so a regression fails
# rather than hangs.  Prints one "ok NAME" or "FAIL NAME" line per check,
# then "N checks, N failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_parser_limits.sh   (run by `make check` through
# scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
four_rank_cluster "$TMP"

# repeat N TEXT: TEXT N times.
repeat () { head -c "$1" /dev/zero | tr '\0' "$2"; }
# refused LOG MESSAGE COMMAND...: COMMAND exits 1 within LIMIT seconds
# (default 20), with one line on stderr, which holds MESSAGE.
refused () {
  local log=$1 msg=$2 rc=0; shift 2
  timeout "${LIMIT:-20}" "$@" >"$log.out" 2>"$log" || rc=$?
  [ "$rc" = 1 ] || { echo "  exit status $rc, expected 1: $(head -c 300 "$log")" >&2; return 1; }
  [ "$(wc -l <"$log")" = 1 ] || { echo "  stderr: $(head -c 300 "$log")" >&2; return 1; }
  has "$log" "$msg" || { echo "  stderr: $(cat "$log")" >&2; return 1; }
}

{ printf '{"1": '; repeat 200000 '['; repeat 200000 ']'; printf '}\n'; } >"$TMP/deep.json"
deep="$TMP/deep.json:1: JSON nested deeper than 256 levels"
check comm_groups_deep refused "$TMP/cg" "$deep" \
  "$ORRERY" run --config "$TMP/cluster.xml" --comm-groups "$TMP/deep.json" --workload "$TMP/w"
check astra_system_deep refused "$TMP/sys" "$deep" \
  "$ORRERY" run --astra-network configs/astra/switch_4x8.yml --astra-system "$TMP/deep.json" \
  --workload "$TMP/w"
check astra_memory_deep refused "$TMP/mem" "$deep" \
  "$ORRERY" run --astra-network configs/astra/switch_4x8.yml \
  --astra-system configs/astra/system_ring_4chunks.json --astra-memory "$TMP/deep.json" \
  --workload "$TMP/w"
check plot_data_deep refused "$TMP/plot" "$deep" "$ORRERY" plot-data "$TMP/deep.json" "$TMP/p"
# Brackets inside a string (after an escaped quote) are not nesting.
{ printf '{"1": [0, "\\"'; repeat 1000 '['; printf '"]}\n'; } >"$TMP/str.json"
check brackets_in_strings refused "$TMP/str" "group '1': entry 1: a rank is" \
  "$ORRERY" run --config "$TMP/cluster.xml" --comm-groups "$TMP/str.json" --workload "$TMP/w"

{ printf 'topology: '; repeat 100000 '['; repeat 100000 ']'; printf '\n'; } >"$TMP/deep.yml"
check yaml_deep refused "$TMP/yml" "$TMP/deep.yml:1: YAML nested deeper than 256 levels" \
  "$ORRERY" run --astra-network "$TMP/deep.yml" \
  --astra-system configs/astra/system_ring_4chunks.json --workload "$TMP/w"

# One internal entity of 100 KB used 4,000 times: 400 MB once expanded.
{ printf '<?xml version="1.0"?>\n<!DOCTYPE cluster [<!ENTITY e "%s">]>\n' \
    "$(repeat 100000 x)"
  printf '<cluster name="%s">\n' "$(for _ in $(seq 4000); do printf '&e;'; done)"
  tail -n +3 "$TMP/cluster.xml"; } >"$TMP/entity.xml"
doctype="$TMP/entity.xml:2: <!DOCTYPE> is not accepted"
check xml_entity refused "$TMP/ent" "$doctype" \
  "$ORRERY" run --config "$TMP/entity.xml" --workload "$TMP/w"
mkdir -p "$TMP/sw"
cp "$TMP/entity.xml" "$TMP/sw/cluster.xml"
{ printf '<?xml version="1.0"?>\n<!DOCTYPE sweep [<!ENTITY n "x">]>\n'
  printf '<sweep name="&n;"><config path="cluster.xml"/>\n'
  printf '<generate>gen collective --type all_reduce --ranks 4 --bytes {s}</generate>\n'
  printf '<grid><param name="s" values="1KB"/></grid></sweep>\n'; } >"$TMP/sw/spec.xml"
check sweep_doctype refused "$TMP/swd" "$TMP/sw/spec.xml:2: <!DOCTYPE> is not accepted" \
  "$ORRERY" sweep expand "$TMP/sw/spec.xml" "$TMP/sw/out"
# 200,000 <group>s: the config loads (the workload is then missing) in
# seconds (30 under ASan on a busy machine); validation took about four
# minutes (quadratic: 36 s for 80,000).
{ head -n -1 "$TMP/cluster.xml"; echo '<groups>'
  seq 200000 | awk '{ printf "<group id=\"%d\" ranks=\"0-1\"/>\n", $1 }'
  echo '</groups></cluster>'; } >"$TMP/groups.xml"
LIMIT=90 check many_groups refused "$TMP/groups" "$TMP/none.0.et: not found" \
  "$ORRERY" run --config "$TMP/groups.xml" --workload "$TMP/none"
# The duplicate among them is still found, at its line.
sed -i 's|<group id="200000"|<group id="7"|' "$TMP/groups.xml"
LIMIT=90 check many_groups_duplicate refused "$TMP/dup" \
  "$TMP/groups.xml:200011: <group ranks>: group 7 is defined twice" \
  "$ORRERY" run --config "$TMP/groups.xml" --workload "$TMP/none"
# An explicit graph of 100,000 parallel links between two switches:
# validated in seconds; inside the schema's <interleave> it was quadratic.
{ echo '<cluster><network model="analytical" ranks="2">'
  echo '<switch id="a"/><switch id="b"/>'
  echo '<link from="r0" to="a" bandwidth="1GB/s" latency="1ns"/>'
  echo '<link from="r1" to="b" bandwidth="1GB/s" latency="1ns"/>'
  seq 100000 | awk '{ print "<link from=\"a\" to=\"b\" bandwidth=\"1GB/s\" latency=\"1ns\"/>" }'
  echo '</network></cluster>'; } >"$TMP/graph.xml"
LIMIT=60 check many_links refused "$TMP/graph" "$TMP/none.0.et: not found" \
  "$ORRERY" run --config "$TMP/graph.xml" --workload "$TMP/none"
# Two ranks at the ends of a chain of 100,000 switches: the hop counts are
# one breadth-first search each way, linear; searched level by level over
# every link they took minutes (quadratic in the chain's length).
{ echo '<cluster><network model="analytical" ranks="2">'
  seq 100000 | awk '{ printf "<switch id=\"s%d\"/>\n", $1 }'
  echo '<link from="r0" to="s1" bandwidth="1GB/s" latency="1ns"/>'
  seq 99999 | awk '{ printf "<link from=\"s%d\" to=\"s%d\"", $1, $1 + 1
                     print " bandwidth=\"1GB/s\" latency=\"1ns\"/>" }'
  echo '<link from="s100000" to="r1" bandwidth="1GB/s" latency="1ns"/>'
  echo '</network></cluster>'; } >"$TMP/chain.xml"
LIMIT=60 check switch_chain refused "$TMP/chain" "$TMP/none.0.et: not found" \
  "$ORRERY" run --config "$TMP/chain.xml" --workload "$TMP/none"
# A sweep spec of 200,000 params: validated in seconds (its <grid> apart;
# inside <sweep>'s <interleave> libxml2 took 16 s for 80,000, quadratic).
{ echo '<sweep><config path="none.xml"/><workload prefix="w"/><grid>'
  seq 200000 | awk '{ printf "<param name=\"p%d\" values=\"1\" select=\"/a\"/>\n", $1 }'
  echo '</grid></sweep>'; } >"$TMP/sweep.xml"
LIMIT=60 check sweep_params refused "$TMP/sweep-out" "$TMP/none.xml: cannot read" \
  "$ORRERY" sweep expand "$TMP/sweep.xml" "$TMP/sweep-out"
finish
