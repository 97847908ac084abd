#!/usr/bin/env bash
# test_astra_keys.sh: what orrery does with each key of ASTRA-sim's system
# JSON that it does not simply reproduce (issue 20, items 3 and 6).
#
# Item 3: a known algorithm listed for a kind that lacks it (halvingDoubling
# for all-to-all, or one list for all four kinds) is accepted when the JSON is
# read, as ASTRA-sim accepts it, and fails with exit 1 naming the trace file,
# node, kind, dimension and algorithm only when a collective of that kind
# reaches a dimension that runs it.  An unknown name is still refused as the
# file is read, with the nearest known name.
# Item 6: model-shared-bus and replay-only are refused when on (they change
# ASTRA-sim's times in ways orrery does not model) and accepted when off;
# track-local-mem is accepted with a warning; L/o/g/G,
# local-reduction-delay, trace-enabled, boost-mode and
# local-mem-trace-filename change no time and are accepted without a word;
# a key within two edits of one ASTRA-sim reads is warned about.
#
# Expected times are ASTRA-sim's own (../shared/reference/astra-sim-microbench.tsv)
# and the closed form of ../shared/reference/ASTRA-SIM.md:
#   T = S (k floor(h a + m/B) + r 3 floor(m/L) + (k+1) e)
# A 1 MiB ring all-reduce on a 4-NPU Ring (50 GB/s = 53.687 B/ns, 500 ns,
# Ring_4chunks.json: S = 4, e = 10 ns, L = 1600 B/ns): c = 262144, m = 65536,
# k = 6, r = 3: 4 (6 floor(500 + 1220.70) + 3 x 3 x 40 + 7 x 10) = 43000 ns,
# ASTRA-sim's figure for that row.
. "$(dirname "$0")/lib.sh"
make_tmp
S=../shared
[ -d "$S/reference/configs" ] || skip "no ../shared/reference/configs"
NET=$S/reference/configs/Ring_4npus.yml
BASE=$S/reference/configs/Ring_4chunks.json
MB=$S/traces/astra-sim/examples/workload/microbenchmarks
AR=$MB/all_reduce/4npus_1MB/all_reduce
A2A=$MB/all_to_all/4npus_1MB/all_to_all

# sys NAME JSON-MEMBERS: Ring_4chunks.json with JSON-MEMBERS added (a key
# given twice is refused, so each key added here is one the file lacks, or
# replaces its value by a sed on its own line).
sys () {
  sed "s|\"boost-mode\": 0,|\"boost-mode\": 0, $2,|" "$BASE" >"$TMP/$1.json"
}
# impl NAME KIND 'NAMES': Ring_4chunks.json with KIND's list starting with
# NAMES (its old entries move under an unused key).
impl () {
  sed "s|\"$2-implementation\": \\[|\"$2-implementation\": [$3], \"u-$2\": [|" \
    "$BASE" >"$TMP/$1.json"
}
# run_astra NAME WORKLOAD [NET]: stdout in NAME.out, stderr in NAME.err, exit status in $rc.
run_astra () {
  "$ORRERY" run --astra-network "${3:-$NET}" --astra-system "$TMP/$1.json" --workload "$2" \
    >"$TMP/$1.out" 2>"$TMP/$1.err"
  rc=$?
}
# finishes FILE NS: all four ranks finish at NS ns.
finishes () { eq "$(grep -c "finished, $2 cycles" "$1")" 4; }
# quiet FILE: nothing on stderr but the wall-clock lines.
quiet () { ! grep -v -E 'wall' "$1" | grep -q .; }

# ---- item 3 ----------------------------------------------------------------
# All-to-all's list names halvingDoubling, which has no all-to-all: the
# all-reduce runs and gives ASTRA-sim's figure.
impl a2a_hd all-to-all '"halvingDoubling"'
run_astra a2a_hd "$AR"
check "halvingDoubling listed for all-to-all: an all-reduce runs (exit 0)" eq "$rc" 0
check "... and every rank finishes at ASTRA-sim's 43000 ns" finishes "$TMP/a2a_hd.out" 43000

# One list for all four kinds: the all-reduce runs as with the same
# algorithm listed for all-reduce alone.
impl hd4 all-reduce '"halvingDoubling"'
for k in reduce-scatter all-gather all-to-all; do
  BASE=$TMP/hd4.json impl hd4k "$k" '"halvingDoubling"' && mv "$TMP/hd4k.json" "$TMP/hd4.json"
done
check "one list for all four kinds: all four name halvingDoubling" \
  eq "$(grep -o '"halvingDoubling"' "$TMP/hd4.json" | wc -l)" 4
impl hd1 all-reduce '"halvingDoubling"'
run_astra hd4 "$AR"
check "halvingDoubling for all four kinds: the all-reduce runs (exit 0)" eq "$rc" 0
run_astra hd1 "$AR"
check "... finishing where halvingDoubling for all-reduce alone does" \
  eq "$(grep finished "$TMP/hd4.out")" "$(grep finished "$TMP/hd1.out")"
check "... the comparison compares something" has "$TMP/hd4.out" "sys[3] finished"

# The all-to-all itself reaches the algorithm: exit 1, naming the node.
run_astra hd4 "$A2A"
check "halvingDoubling for all four kinds: an all-to-all exits 1" eq "$rc" 1
check "... naming the trace file" has "$TMP/hd4.err" "$A2A.0.et: "
check "... the node's id and name" has "$TMP/hd4.err" 'rank 0 node 0 "all_to_all_4npus_1MB"'
check "... the kind, dimension and algorithm" has "$TMP/hd4.err" \
  "all_to_all on dimension 0: the config's algorithm 'halvingDoubling' has no all_to_all"
check "... and the algorithms that have one" has "$TMP/hd4.err" \
  "(algorithms that have: ring, direct)"

# Two dimensions (4 x 2 = 8 NPUs), ring on the first and halvingDoubling on
# the second: the error names dimension 1.
printf 'topology: [ Ring, Ring ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50.0, 50.0 ]\n%s\n' \
  'latency: [ 500.0, 500.0 ]' >"$TMP/net2.yml"
impl dim1 all-to-all '"ring", "halvingDoubling"'
run_astra dim1 "$MB/all_to_all/8npus_1MB/all_to_all" "$TMP/net2.yml"
check "ring, halvingDoubling for all-to-all on 4 x 2: exit 1" eq "$rc" 1
check "... naming dimension 1" has "$TMP/dim1.err" \
  "all_to_all on dimension 1: the config's algorithm 'halvingDoubling' has no all_to_all"

# A group smaller than the system runs ASTRA-sim's flat ring whatever the
# lists say, so it never reaches halvingDoubling: two groups of 2 on the
# 4-NPU Ring, each rank's neighbour one hop away, k = 1, m = 262144 / 2:
# 4 (floor(500 + 131072 / 53.687) + 2 x 10) = 4 x 2961 = 11844 ns.
"$ORRERY" gen collective --type all-to-all --ranks 4 --bytes 1MiB --groups 2 --out "$TMP/g2" \
  >/dev/null
run_astra hd4 "$TMP/g2"
check "halvingDoubling for all-to-all, groups of 2: exit 0" eq "$rc" 0
check "... every rank at 11844 ns (a flat ring)" finishes "$TMP/hd4.out" 11844

# A name that is no algorithm is refused as the file is read, with a hint.
impl typo all-reduce '"halvingDubling"'
run_astra typo "$AR"
check "an unknown algorithm exits 1" eq "$rc" 1
check "... naming the file, key and name, with the nearest known one" has "$TMP/typo.err" \
  "$TMP/typo.json: 'all-reduce-implementation': entry 0: unknown algorithm 'halvingDubling' \
(did you mean 'halvingDoubling'?"
check "... and nothing ran" eq "$(grep -c finished "$TMP/typo.out")" 0
# oneDoubleBinaryTree is no name ASTRA-sim takes: the tree has no "one" form.
impl onedbt all-reduce '"oneDoubleBinaryTree"'
run_astra onedbt "$AR"
check "oneDoubleBinaryTree exits 1 as unknown" has "$TMP/onedbt.err" \
  "unknown algorithm 'oneDoubleBinaryTree' (did you mean 'doubleBinaryTree'?"

# ASTRA-sim reads a window's digits as a number: "direct08" is direct8.
impl d08 all-reduce '"direct08"'
impl d8 all-reduce '"direct8"'
run_astra d08 "$AR"
check "direct08 is accepted (exit 0)" eq "$rc" 0
run_astra d8 "$AR"
check "... and runs as direct8" eq "$(grep finished "$TMP/d08.out")" "$(grep finished "$TMP/d8.out")"

# A native cluster XML stays strict: the pair is refused before anything
# runs, naming the file, even for a workload of all-reduces.
four_rank_cluster "$TMP"
sed 's|<algorithm collective="all-reduce" dims="ring"/>|&\n<algorithm collective="all-to-all" \
dims="halvingDoubling"/>|' "$TMP/cluster.xml" >"$TMP/hd.xml"
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 1MiB --out "$TMP/ar4" >/dev/null
"$ORRERY" run --config "$TMP/hd.xml" --workload "$TMP/ar4" >"$TMP/xml.out" 2>&1
check "cluster XML with halvingDoubling for all-to-all: exit 1 before running" eq "$?" 1
check "... naming the file, the kind and the algorithm" has "$TMP/xml.out" \
  "$TMP/hd.xml: all_to_all: algorithm 'halvingDoubling' (dimension 0) does not exist for this"

# ---- item 6 ----------------------------------------------------------------
sys bus1 '"model-shared-bus": 1'
run_astra bus1 "$AR"
check "model-shared-bus 1 exits 1" eq "$rc" 1
check "... naming the file and key, and what orrery does instead" has "$TMP/bus1.err" \
  "$TMP/bus1.json: 'model-shared-bus': 1 models the bus between NPU and memory with LogGP"
sys bustrue '"model-shared-bus": true'
run_astra bustrue "$AR"
check "model-shared-bus true is 1: exit 1" eq "$rc" 1
sys bus0 '"model-shared-bus": 0'
run_astra bus0 "$AR"
check "model-shared-bus 0 (ASTRA-sim's default): exit 0" eq "$rc" 0
check "... 43000 ns" finishes "$TMP/bus0.out" 43000
check "... no message" quiet "$TMP/bus0.err"
sys busstr '"model-shared-bus": "on"'
run_astra busstr "$AR"
check "model-shared-bus \"on\": exit 1, a number or boolean expected" has "$TMP/busstr.err" \
  "'model-shared-bus': expected 0 or 1, got a string"

sys replay1 '"replay-only": 1'
run_astra replay1 "$AR"
check "replay-only 1 exits 1" eq "$rc" 1
check "... naming the key and what orrery does instead" has "$TMP/replay1.err" \
  "'replay-only': on, it makes ASTRA-sim replay every node"
sys replay0 '"replay-only": 0'
run_astra replay0 "$AR"
check "replay-only 0: 43000 ns, no message" finishes "$TMP/replay0.out" 43000
check "... no message" quiet "$TMP/replay0.err"

sys track1 '"track-local-mem": 1, "local-mem-trace-filename": "mem_trace/x"'
run_astra track1 "$AR"
check "track-local-mem 1: exit 0" eq "$rc" 0
check "... 43000 ns" finishes "$TMP/track1.out" 43000
check "... a warning naming the file and key" has "$TMP/track1.err" \
  "orrery run: warning: $TMP/track1.json: 'track-local-mem': orrery does not track local memory"
check "... and no trace file written" test ! -e mem_trace/x
sys track0 '"track-local-mem": 0'
run_astra track0 "$AR"
check "track-local-mem 0: no warning" quiet "$TMP/track0.err"

# Read only by the shared-bus model, or logging: no time changes, no word.
sys logp '"L": 700, "o": 30, "g": 20, "G": 0.5, "local-reduction-delay": 4, "trace-enabled": 1'
run_astra logp "$AR"
check "L, o, g, G, local-reduction-delay, trace-enabled with the bus off: 43000 ns" \
  finishes "$TMP/logp.out" 43000
check "... no message" quiet "$TMP/logp.err"
sed 's|"boost-mode": 0|"boost-mode": 1|' "$BASE" >"$TMP/boost.json"
run_astra boost "$AR"
check "boost-mode 1 (ASTRA-sim does not read it): 43000 ns" finishes "$TMP/boost.out" 43000

# A key ASTRA-sim does not read is ignored, as ASTRA-sim ignores it; one
# within two edits of a key it reads is a misspelling, which was ignored
# without a word (the run went on with the default policy): a warning names
# the key it is near.  Times do not move.
sys polcy '"scheduling-polcy": "FIFO"'
run_astra polcy "$AR"
check "scheduling-polcy: 43000 ns, exit 0" finishes "$TMP/polcy.out" 43000
check "... a warning naming the key it is near" eq "$(cat "$TMP/polcy.err" | grep -v wall)" \
  "orrery run: warning: $TMP/polcy.json: 'scheduling-polcy' is not a key ASTRA-sim reads, \
ignored: did you mean 'scheduling-policy'?"
sys tracing '"trace-enabld": 1'
run_astra tracing "$AR"
check "trace-enabld: near a no-effect key, named" has "$TMP/tracing.err" \
  "'trace-enabld' is not a key ASTRA-sim reads, ignored: did you mean 'trace-enabled'?"

sys pernode '"per-node-custom-implementation": "per_node.yml"'
run_astra pernode "$AR"
check "per-node-custom-implementation exits 1" eq "$rc" 1
check "... saying it is not supported" has "$TMP/pernode.err" \
  "'per-node-custom-implementation': per-node custom collective algorithms"

# ns-3's logical network (what ASTRA-sim's ns-3 examples pass as the
# network file) given for the analytical one: the message says what it is
# (once only "missing 'topology'").
printf '{\n    "logical-dims": ["4"]\n}\n' >"$TMP/logical.json"
cp "$BASE" "$TMP/ns3.json"
run_astra ns3 "$AR" "$TMP/logical.json"
check "ns-3 logical network exits 1" eq "$rc" 1
check "... saying it is ns-3's logical network" has "$TMP/ns3.err" \
  "missing 'topology' (this is ASTRA-sim's ns-3 logical network, 'logical-dims';"

finish
