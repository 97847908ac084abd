#!/usr/bin/env bash
# Tests of symmetry classes (workload/replay_classes.c): generated training
# iterations whose ranks are alike up to the ranks they name run once per
# class, and give exactly what simulating every rank gives.  Each case runs
# both ways (the default and --symmetry off) and compares every figure:
# the whole summary but for the classes line, and the per-rank CSV
# (--stats), byte for byte.  The number of classes is worked out by hand
# for each case (a stage of a pipeline is one class: its TP peers and DP
# replicas are alike, the stages are not, and the first and last stages
# differ from the middle ones).  Prints one "ok NAME" or "FAIL NAME" line
# per check, then "N checks, N failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_symmetry_classes.sh   (run by `make test`
# through scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

SMALL=(--layers 8 --hidden 512 --heads 8 --vocab 1024 --seq 256 --micro-batch 1)

# both NAME CLASSES ARGS...: run ARGS both ways; check the classes line says
# CLASSES classes (0: no classes line), and that every figure agrees.
both () {
  local name=$1 classes=$2; shift 2
  "$ORRERY" run "$@" --stats "$TMP/$name.auto.csv" >"$TMP/$name.auto" 2>"$TMP/$name.auto.err"
  check "$name: runs" eq $? 0
  "$ORRERY" run "$@" --symmetry off --stats "$TMP/$name.off.csv" >"$TMP/$name.off" \
    2>"$TMP/$name.off.err"
  check "$name: runs with --symmetry off" eq $? 0
  local line
  line=$(sed -n -e 's/^symmetry classes: \([0-9]*\) class.*/\1/p' "$TMP/$name.auto")
  check "$name: $classes classes" eq "${line:-0}" "$classes"
  check "$name: the same summary" \
    diff <(grep -v '^symmetry classes: ' "$TMP/$name.auto") "$TMP/$name.off"
  check "$name: the same per-rank figures" cmp "$TMP/$name.auto.csv" "$TMP/$name.off.csv"
}

# cluster FILE GPUS NODES [STREAMS]: NODES nodes of GPUS GPUs, otherwise as
# configs/default.xml (NCCL's algorithms, the kernel compute model, comm
# streams STREAMS: separate as there, or shared).
cluster () {
  sed -e "s/<dim kind=\"Switch\" size=\"8\" bandwidth=\"450GB\/s\"/<dim kind=\"Switch\" size=\"$2\" bandwidth=\"450GB\/s\"/" \
      -e "s/<dim kind=\"Switch\" size=\"8\" bandwidth=\"400Gb\/s\"/<dim kind=\"Switch\" size=\"$3\" bandwidth=\"400Gb\/s\"/" \
      -e "s/comm-streams=\"separate\"/comm-streams=\"${4:-separate}\"/" \
    configs/default.xml >"$1"
}
cluster "$TMP/c32.xml" 4 8
cluster "$TMP/c32s.xml" 4 8 shared
cluster "$TMP/c32x8.xml" 8 4
cluster "$TMP/c16.xml" 8 2
cluster "$TMP/c16s.xml" 8 2 shared

# TP 4, PP 2, DP 4 on 8 nodes of 4 GPUs: a TP group fills a node, a DP
# group has one GPU on each of 4 nodes, so NCCL's rings treat their
# members alike; two stages, two classes.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 4 --pp 2 --dp 4 --global-batch 16 \
  --out "$TMP/t442" >/dev/null
both "tp4 pp2 dp4, NCCL, one comm stream" 2 --config "$TMP/c32s.xml" --workload "$TMP/t442"
# With separate comm streams (as NCCL runs DP and TP) a rank's TP and DP
# collectives may be in flight at once, their messages served at its
# shared ports in the order of their nodes, at every rank alike.
both "tp4 pp2 dp4, NCCL, separate streams" 2 --config "$TMP/c32.xml" --workload "$TMP/t442"
# On 4 nodes of 8 GPUs a DP group has two GPUs on each of two nodes: NCCL's
# ring crosses nodes at some members only, so its four places are roles
# ((4')); a member hears from two others at once at its shared ports,
# served by their places ((4'')).  Its ring repeats node by node, two
# members per node ((4''')): places 0 and 2, 1 and 3 are one role; two
# stages x two places mod 2, four classes.
both "tp4 pp2 dp4 on 8-GPU nodes" 4 --config "$TMP/c32x8.xml" --workload "$TMP/t442"

# The same traces on ASTRA-sim's inputs: a 2-D switch network (TP inside
# the first dimension), its ring algorithm on every dimension.
cat >"$TMP/net.yml" <<'EOF'
topology: [ Switch, Switch ]
npus_count: [ 4, 8 ]
bandwidth: [ 100.0, 25.0 ]
latency: [ 500.0, 2000.0 ]
EOF
both "tp4 pp2 dp4, ASTRA-sim inputs" 2 --astra-network "$TMP/net.yml" \
  --astra-system configs/astra/system_ring_4chunks.json --workload "$TMP/t442"

# PP 4 interleaved (2 model chunks per stage), TP 2, DP 2 on 16 GPUs: the
# first, the last and the two middle stages differ (their neighbours'
# classes differ): four classes.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 4 --dp 2 --virtual-stages 2 \
  --global-batch 16 --out "$TMP/t242" >/dev/null
both "tp2 pp4 dp2 interleaved" 4 --config "$TMP/c16s.xml" --workload "$TMP/t242"

# Data parallelism with ZeRO 3 and no pipeline: every rank alike, one
# class... which is the old whole-world shortcut when the collectives are
# symmetric there; here NCCL's rings cross nodes at some members only, so
# every place is a role ((4'), 16 classes of one rank: none).  But the
# world's ring has 8 members on each of the 2 nodes and repeats node by
# node ((4''')): places mod 8, 8 classes, node 0 simulated.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 1 --pp 1 --dp 16 --zero 3 --global-batch 16 \
  --out "$TMP/z3" >/dev/null
both "dp16 zero3 across nodes" 8 --config "$TMP/c16.xml" --workload "$TMP/z3"
# With experts (EP 2: two DP groups of 8 for the experts' weights, one
# for the rest) and two comm slots, a rank's DP collectives of the two
# groups may start their rings at one instant.  NCCL's ring leaves a node
# from the rail's member (ring_hop's from: GPU 0 or 8 sends for its line's
# last member), so node 0's GPU 0 and node 1's GPU 8 each send the two
# collectives' first steps over their NIC at one instant.  Their order
# key was the rail member's node (0: it had not joined yet, on either
# node), then its place in each group: places 0 and 0 on node 0 (so the
# order the run sent them in), 8 and 4 on node 1 (the other way), and the
# full run put GPUs 0 and 7 5.728 ns behind 8 and 15.  Now the key is the
# node of the member whose line sends (coll.c, sys_phase_send_routed).
# Every rank then finishes as the same GPU on the other node, and the 8
# classes give the same figures.
sed -e 's/comm="1"/comm="2"/' "$TMP/c16.xml" >"$TMP/c16c2.xml"
"$ORRERY" gen transformer --layers 2 --hidden 512 --heads 8 --vocab 1024 --seq 128 \
  --micro-batch 1 --tp 1 --pp 1 --dp 16 --global-batch 16 --zero 3 --experts 4 --ep 2 \
  --out "$TMP/z3e" >/dev/null
both "dp16 zero3 ep2, two comm slots, PXN order" 8 --config "$TMP/c16c2.xml" \
  --workload "$TMP/z3e"
check "dp16 zero3 ep2, two comm slots: ranks alike on both nodes" eq \
  "$(awk -F, 'NR > 1 { $1 = $1 % 8; print }' \
     "$TMP/dp16 zero3 ep2, two comm slots, PXN order.off.csv" \
     | sort -u | cut -d' ' -f1 | uniq -d | wc -l)" 0

# The flow model shares links between every rank's messages: no classes.
both "tp4 pp2 dp4, flow model" 0 --config "$TMP/c32.xml" --network-model flow \
  --workload "$TMP/t442"

# Odd layouts on ASTRA-sim's inputs, 4 x 4 switches (16 ranks, TP 2 inside
# the first dimension; a DP group of 4 has two members in each of two
# first-dimension groups, a flat sub-group treated alike at every member),
# per-dimension rings: a stage is a class (two stages, two classes; four
# for four stages, whose first, last and middle ones differ).
cat >"$TMP/net44.yml" <<'EOF2'
topology: [ Switch, Switch ]
npus_count: [ 4, 4 ]
bandwidth: [ 100.0, 25.0 ]
latency: [ 500.0, 2000.0 ]
EOF2
ASTRA44=(--astra-network "$TMP/net44.yml" --astra-system configs/astra/system_ring_4chunks.json)
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 2 --dp 4 --zero 3 --global-batch 16 \
  --out "$TMP/a_z3" >/dev/null
both "tp2 pp2 dp4 zero3, ASTRA-sim inputs" 2 "${ASTRA44[@]}" --workload "$TMP/a_z3"
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 2 --dp 4 --experts 4 --ep 2 \
  --global-batch 16 --out "$TMP/a_moe" >/dev/null
both "tp2 pp2 dp4 MoE ep2, ASTRA-sim inputs" 2 "${ASTRA44[@]}" --workload "$TMP/a_moe"
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 4 --dp 2 --schedule gpipe \
  --global-batch 16 --out "$TMP/a_gp" >/dev/null
both "tp2 pp4 dp2 gpipe, ASTRA-sim inputs" 4 "${ASTRA44[@]}" --workload "$TMP/a_gp"

# TP 2, PP 2, DP 4 on 2 nodes of 8 GPUs with NCCL: a stage fills a node,
# its DP groups ({0,2,4,6}, ...) and TP pairs lie inside it: two classes.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 2 --dp 4 --distributed-optimizer \
  --global-batch 16 --out "$TMP/x8" >/dev/null
both "tp2 pp2 dp4 distributed optimizer on 8-GPU nodes" 2 --config "$TMP/c16s.xml" \
  --workload "$TMP/x8"

# TP 4, PP 4 with NCCL on FullyConnected nodes of 4 joined by a Ring of 4:
# a stage is a node; the first, the last and the two middle stages differ
# (the middle ones' neighbours' classes differ): four classes.
sed -e 's/<dim kind="Switch" size="8" bandwidth="450GB\/s"/<dim kind="FullyConnected" size="4" bandwidth="450GB\/s"/' \
    -e 's/<dim kind="Switch" size="8" bandwidth="400Gb\/s"/<dim kind="Ring" size="4" bandwidth="400Gb\/s"/' \
  configs/default.xml >"$TMP/fcring.xml"
"$ORRERY" gen transformer "${SMALL[@]}" --tp 4 --pp 4 --global-batch 16 --out "$TMP/t44" >/dev/null
both "tp4 pp4, FullyConnected x Ring" 4 --config "$TMP/fcring.xml" --workload "$TMP/t44"

# Layouts whose ranks run TP and DP (or expert) collectives at one instant
# over separate streams: served at the ports in the order of their nodes,
# at every rank alike (tests/workload/test_classes.c,
# test_same_instant_collectives), two classes, the same figures.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 2 --dp 4 --zero 3 --global-batch 16 \
  --out "$TMP/x8z3" >/dev/null
both "tp2 pp2 dp4 zero3 on 8-GPU nodes" 2 --config "$TMP/c16.xml" --workload "$TMP/x8z3"
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 2 --dp 4 --experts 4 --ep 2 \
  --global-batch 16 --out "$TMP/x8moe" >/dev/null
both "tp2 pp2 dp4 MoE ep2 on 8-GPU nodes" 2 --config "$TMP/c16.xml" --workload "$TMP/x8moe"
both "tp2 pp2 dp4 MoE ep2 on 8-GPU nodes, one comm stream" 2 --config "$TMP/c16s.xml" \
  --workload "$TMP/x8moe"

# Groups whose members play different roles (workload/replay_classes.c,
# (4')): NCCL's tree for the DP all-reduce (nccl-algo="allreduce:tree").
# cluster_tree FILE GPUS NODES: as cluster, NCCL's all-reduce a tree.
cluster_tree () {
  cluster "$1" "$2" "$3"
  sed -i -e 's/library="nccl"/library="nccl" nccl-algo="allreduce:tree"/' "$1"
}
cluster_tree "$TMP/t16x8.xml" 8 2
cluster_tree "$TMP/t16x4.xml" 4 4
cluster_tree "$TMP/t32x4.xml" 4 8
# TP 8, DP 2 on 2 nodes of 8: a DP group is a pair {i, i + 8}, NCCL's tree
# over two nodes, its members in the two places (root and leaf).  Ranks
# in one place run alike (a node's TP group inside one class), the places
# differ: two classes, {0..7} and {8..15}; DP group {0, 8} is simulated
# whole and the seven others run as it does.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 8 --pp 1 --dp 2 --global-batch 16 \
  --out "$TMP/tr812" >/dev/null
both "tp8 dp2, NCCL tree" 2 --config "$TMP/t16x8.xml" --workload "$TMP/tr812"
# With ZeRO 1 (the DP pairs' bucketed all-reduces trees, their all-gathers
# of the updated shards NCCL rings of two, alike): two classes.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 8 --pp 1 --dp 2 --zero 1 --global-batch 16 \
  --out "$TMP/tr812z" >/dev/null
both "tp8 dp2 zero1, NCCL tree" 2 --config "$TMP/t16x8.xml" --workload "$TMP/tr812z"
# TP 4, PP 2, DP 2 on 4 nodes of 4: a node is one TP group; two stages
# times two places in the DP tree: four classes.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 4 --pp 2 --dp 2 --global-batch 16 \
  --out "$TMP/tr422" >/dev/null
both "tp4 pp2 dp2, NCCL tree" 4 --config "$TMP/t16x4.xml" --workload "$TMP/tr422"
# DP 4: a tree over four nodes, where a member hears from two others at
# one instant at its shared ports, served in the order of their places in
# the group, at every rank alike ((4''), network/README.md): each place a
# role, two stages x four places, eight classes, the same figures.
both "tp4 pp2 dp4, NCCL tree over 4 nodes" 8 --config "$TMP/t32x4.xml" --workload "$TMP/t442"
# NCCL tree all-reduce alone over 4 and 8 nodes (TP inside a node, so a
# node's GPUs hold one place of their DP groups): one class per place, 4
# and 8 classes.
cluster_tree "$TMP/t16x4n.xml" 4 4
"$ORRERY" gen transformer "${SMALL[@]}" --tp 4 --pp 1 --dp 4 --global-batch 16 \
  --out "$TMP/tr414" >/dev/null
both "tp4 dp4, NCCL tree over 4 nodes" 4 --config "$TMP/t16x4n.xml" --workload "$TMP/tr414"
cluster_tree "$TMP/t16x2.xml" 2 8
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 1 --dp 8 --global-batch 16 \
  --out "$TMP/tr218" >/dev/null
both "tp2 dp8, NCCL tree over 8 nodes" 8 --config "$TMP/t16x2.xml" --workload "$TMP/tr218"
# The double binary tree of the per-dimension algorithms on the DP
# dimension: its two places are roles (4'), two classes.
DBT='<algorithm collective="all-reduce" dims="ring doubleBinaryTree"/>'
sed -e 's/ library="nccl"//' -e "s#<algorithm collective=\"all-to-all\" dims=\"ring ring\"/>#&$DBT#" \
  "$TMP/c16.xml" >"$TMP/dbt16.xml"
both "tp8 dp2, double binary tree" 2 --config "$TMP/dbt16.xml" --workload "$TMP/tr812"

# The rail network (configs/rail-1024.xml's generator, 8 nodes of 8 GPUs):
# TP 4, PP 4, DP 4 with ZeRO 1.  A stage fills two nodes; DP group {0, 4,
# 8, 12} has GPUs 0 and 4 of each node, so its places are roles ((4')).
# Its places 0 and 3 (GPU 0 of node 0, GPU 4 of node 1) would talk over
# a path through either node's NVSwitch (ECMP, a hash of the pair) which
# the image group's places need not share, but NCCL's rings and trees
# send across nodes only between members of the same local index (one
# rail: one path), so the group mirrors its image (sys_nccl_plan_pair):
# four stages x four places, 16 classes ((4')); the group's ring repeats
# node by node with 2 members per node ((4''')), so four stages x two
# places mod 2, 8 classes.  With NCCL's tree (roles by depth, no period)
# every place stays a class: 16.
sed -e 's/nodes="128"/nodes="8"/' configs/rail-1024.xml >"$TMP/rail64.xml"
sed -e 's/library="nccl"/library="nccl" nccl-algo="allreduce:tree"/' "$TMP/rail64.xml" \
  >"$TMP/rail64t.xml"
"$ORRERY" gen transformer "${SMALL[@]}" --tp 4 --pp 4 --dp 4 --zero 1 --global-batch 16 \
  --out "$TMP/r444" >/dev/null
both "tp4 pp4 dp4 zero1, rail network" 8 --config "$TMP/rail64.xml" --workload "$TMP/r444"
both "tp4 pp4 dp4 zero1, rail network, NCCL tree" 16 --config "$TMP/rail64t.xml" \
  --workload "$TMP/r444"
# TP 2, DP 32 with ZeRO 2 on the same 8 rail nodes: the shape of the
# planner's heaviest Llama-3 70B candidates (TP 2 or 4, PP 1, whose DP rings
# of 256 or 512 members run every member, one class per place).  A DP group
# ({0, 2, .., 62}) has four GPUs on each node, so NCCL's ring crosses nodes
# at its last member there: 32 places, 32 classes (the odd GPUs' group
# mirrors the even ones') by (4'); the ring repeats every node, 4 members
# per node ((4''')): places mod 4, 4 classes (GPUs 0 and 1, 2 and 3, 4 and
# 5, 6 and 7 of every node), node 0's even GPUs simulated.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 1 --dp 32 --zero 2 --global-batch 32 \
  --out "$TMP/r2z2" >/dev/null
both "tp2 dp32 zero2, rail network" 4 --config "$TMP/rail64.xml" --workload "$TMP/r2z2"
# Its nodes are alike: shifting every rank by one node (8 GPUs) maps the
# traces, groups, ring lines and rail routes onto themselves, so with every
# rank simulated a rank's figures are those of the same GPU on any other
# node (what a class per GPU index, rather than per place, would rely on).
check "tp2 dp32 zero2, rail network: ranks alike on every node" eq \
  "$(awk -F, 'NR > 1 { $1 = $1 % 8; print }' "$TMP/tp2 dp32 zero2, rail network.off.csv" \
     | sort -u | cut -d' ' -f1 | uniq -d | wc -l)" 0

# --symmetry explain says how the classes came to be: the rail case's four
# trace shapes (first, two middle, last stage) split into 8 by the four
# places mod 2 of the DP group {0, 4, 8, 12} (TP 4 innermost, then DP),
# whose NCCL ring crosses nodes at some members only and repeats node by
# node.
"$ORRERY" run --config "$TMP/rail64.xml" --workload "$TMP/r444" --symmetry explain \
  >"$TMP/explain.out" 2>/dev/null
check "--symmetry explain: runs" eq $? 0
check "--symmetry explain: why 8 classes" grep -q \
  "^  why 8 classes: 4 of ranks alike but for the ranks they name; 8 split by their places mod 2 (the groups repeat node by node) in groups whose members play roles (NCCL's rings cross nodes at some members only: all_reduce of [0-9]* B on the group of 4 ranks 0, 4, 8, 12)$" \
  "$TMP/explain.out"
check "--symmetry explain: the same figures" \
  diff <(grep -v '^symmetry classes: \|^  why ' "$TMP/explain.out") \
  <(grep -v '^symmetry classes: ' "$TMP/tp4 pp4 dp4 zero1, rail network.auto")
# Mixture of experts on the same 8 rail nodes.  TP 2, EP 8: the EP group
# {1, 3, .., 15} (GPUs 1, 3, 5, 7 of nodes 0 and 1) and its image {0, 2, ..,
# 14} run an all-to-all, whose every pair of places carries a message.
# Places 0 -> 5 are ranks 1 -> 11 (GPU 1 of node 0 to GPU 3 of node 1) and
# 0 -> 10 in the image: no switch joins either pair, and of the two
# 4-link routes (first through the sender's NVSwitch, or first over its
# rail) net_graph_next's hash of the pair (splitmix64's finalizer of
# src << 42 ^ dst << 21 ^ src, mod 2) picks the NVSwitch for 1 -> 11 and
# the rail for 0 -> 10: as long and as wide, but into the receiver through
# its rail link for one and its NVLink for the other, so no classes, and
# explain says the ports differ, not the prices.
"$ORRERY" gen transformer "${SMALL[@]}" --experts 8 --tp 2 --ep 8 --dp 32 --global-batch 32 \
  --out "$TMP/moe28" >/dev/null
both "tp2 dp32 ep8 MoE, rail network" 0 --config "$TMP/rail64.xml" --workload "$TMP/moe28"
"$ORRERY" run --config "$TMP/rail64.xml" --workload "$TMP/moe28" --symmetry explain \
  >"$TMP/explain-moe.out" 2>/dev/null
want="^symmetry classes: refused: messages in a process group and its image take equal-cost"
want+=" routes through different ports (.*): all_to_all of [0-9]* B on the group of 8 ranks"
want+=" 1, 3, 5, 7, 9, 11, 13, 15 (its image: the group of 8 ranks 0, 2, 4, 6, 8, 10, 12, 14)$"
check "--symmetry explain, MoE on rails: equal-cost routes, different ports" grep -q "$want" \
  "$TMP/explain-moe.out"
# TP 8, EP 8: the EP group {g, 8 + g, .., 56 + g} is rail g's GPUs, one per
# node, every pair one rail hop apart (one path), so GPU g's group mirrors
# GPU 0's: one trace shape, split by the 8 places of the all-to-all's
# group (an explicit graph: roles, no period), 8 classes.
"$ORRERY" gen transformer "${SMALL[@]}" --experts 8 --tp 8 --ep 8 --dp 8 --global-batch 8 \
  --out "$TMP/moe88" >/dev/null
both "tp8 dp8 ep8 MoE, rail network" 8 --config "$TMP/rail64.xml" --workload "$TMP/moe88"
# With NCCL's tree the places keep a class each, and explain says why no
# period was taken.
"$ORRERY" run --config "$TMP/rail64t.xml" --workload "$TMP/r444" --symmetry explain \
  >"$TMP/explain-tree.out" 2>/dev/null
check "--symmetry explain, tree: why 16 classes, no period" grep -q \
  "^  why 16 classes: 4 of ranks alike but for the ranks they name; 16 split by their places in groups whose members play roles (.*); the places not taken mod a period: NCCL's tree, NVLS and CollNet algorithms give members different roles$" \
  "$TMP/explain-tree.out"
# Periods refused, classes per place: with a vocabulary of 32768 the first
# stage's DP groups also all-reduce the embedding's gradients, which NCCL
# runs as a tree on them (no period), while the other stages' groups repeat
# every node; the pipeline's sends then split the second stage's places 0
# and 2 (their peers in the first stage differ), so its group's first
# members do not stand for those a period on ((4''')): searched again per
# place, 16 classes as without periods, the same figures, and explain says
# why.
"$ORRERY" gen transformer --layers 8 --hidden 512 --heads 8 --vocab 32768 --seq 256 \
  --micro-batch 1 --tp 4 --pp 4 --dp 4 --zero 1 --global-batch 16 --out "$TMP/r444v" >/dev/null
both "tp4 pp4 dp4, embedding by tree, rail network" 16 --config "$TMP/rail64.xml" \
  --workload "$TMP/r444v"
"$ORRERY" run --config "$TMP/rail64.xml" --workload "$TMP/r444v" --symmetry explain \
  >"$TMP/explain-fallback.out" 2>/dev/null
check "--symmetry explain, periods refused: says why" grep -q \
  "^  why 16 classes: .*; 16 split by their places in groups whose members play roles (.*); the places not taken mod a period: a process group across classes whose first members do not stand for the members a period on: all_reduce of [0-9]* B on the group of 4 ranks 16, 20, 24, 28$" \
  "$TMP/explain-fallback.out"
# A refused case: TP 2, PP 2, DP 2, CP 2 on 16 GPUs.  The ranks of a CP
# group run different attention pieces, so the DP x CP group of stage 0,
# TP index 0 (TP innermost, then CP and DP: ranks 0, 2, 4, 6) holds ranks
# of different classes, some simulated and some not: refused, and said so.
"$ORRERY" gen transformer "${SMALL[@]}" --tp 2 --pp 2 --dp 2 --cp 2 --global-batch 16 \
  --out "$TMP/cp2" >/dev/null
"$ORRERY" run --config "$TMP/c16.xml" --workload "$TMP/cp2" --symmetry explain \
  >"$TMP/refused.out" 2>&1
check "--symmetry explain, refused: runs" eq $? 0
check "--symmetry explain, refused: says why" grep -q \
  "^symmetry classes: refused: a process group across classes holds simulated ranks and others: all_reduce of [0-9]* B on the group of 4 ranks 0, 2, 4, 6$" \
  "$TMP/refused.out"

# Groups laid out differently over nodes (workload/replay_classes.c, (4)):
# 6 ranks on 2 nodes of 3 GPUs, a collective on groups of 2 ({0, 1}, {2,
# 3}, {4, 5}).  Every rank's trace is alike up to its group, but {2, 3}
# crosses the nodes (1 GPU on each) while its image at rank 0, {0, 1}, lies
# inside node 0: NCCL plans them differently, so a class cannot stand for
# both.  The classes are refused (no classes line), every rank runs, and
# the crossing group's figures are printed as they are with --symmetry off.
cluster "$TMP/c6.xml" 3 2
for kind in all_gather all_reduce reduce_scatter; do
  "$ORRERY" gen collective --type $kind --ranks 6 --bytes 1MiB --groups 2 \
    --out "$TMP/g6-$kind" >/dev/null
  both "$kind on groups of 2, one across nodes" 0 --config "$TMP/c6.xml" \
    --workload "$TMP/g6-$kind"
  # Group 2 (ranks 2, 3) pays the inter-node links (50 GB/s against 450
  # GB/s inside a node): its row is slower than group 1's.
  out="$TMP/$kind on groups of 2, one across nodes.auto"
  t1=$(awk '$2 == "1" && $8 == "us" { print $7 }' "$out")
  t2=$(awk '$2 == "2" && $8 == "us" { print $7 }' "$out")
  check "$kind on groups of 2, one across nodes: the crossing group is slower" \
    awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(a > 0 && b > a) }'
done
"$ORRERY" run --config "$TMP/c6.xml" --workload "$TMP/g6-all_gather" --symmetry explain \
  >"$TMP/layout.out" 2>&1
want="symmetry classes: refused: a process group and its image are laid out differently over "
want+="nodes: all_gather of 1048576 B on the group of 2 ranks 2, 3 (its image: the group of 2 "
want+="ranks 0, 1)"
check "--symmetry explain, groups laid out differently: says why" grep -qxF "$want" \
  "$TMP/layout.out"
# The same groups on 2 nodes of 4 GPUs (8 ranks): every group lies inside a
# node, laid out as its image: one class, the same figures.
cluster "$TMP/c8.xml" 4 2
"$ORRERY" gen collective --type all_gather --ranks 8 --bytes 1MiB --groups 2 \
  --out "$TMP/g8" >/dev/null
both "all_gather on groups of 2 inside nodes" 1 --config "$TMP/c8.xml" --workload "$TMP/g8"
# 12 ranks on 3 nodes of 4 GPUs, groups of 3: group {3, 4, 5} has 1 GPU on
# node 0 and 2 on node 1, which NCCL's model refuses.  Its image at rank 0,
# {0, 1, 2}, lies inside node 0; the classes must not hide the error: exit
# 1 with NCCL's message both ways.
cluster "$TMP/c12.xml" 4 3
"$ORRERY" gen collective --type all_reduce --ranks 12 --bytes 1MiB --groups 3 \
  --out "$TMP/g12" >/dev/null
for mode in auto off; do
  "$ORRERY" run --config "$TMP/c12.xml" --workload "$TMP/g12" --symmetry $mode \
    >"$TMP/g12.$mode" 2>&1
  check "uneven NCCL group, --symmetry $mode: exit 1" eq $? 1
  want="rank 3 node 1 \"all_reduce\" (group 2): NCCL library: a group of 3 ranks has 1 GPUs "
  want+="on its first node and 2 on node 1; NCCL's model needs the same number on every node"
  check "uneven NCCL group, --symmetry $mode: NCCL's message" grep -qF "$want" "$TMP/g12.$mode"
done

# A report records every rank's nodes: no classes, the same figures.
"$ORRERY" run --config "$TMP/c32.xml" --workload "$TMP/t442" --report "$TMP/r.json" \
  >"$TMP/report.out" 2>&1
check "--report: runs" eq $? 0
want="symmetry classes: not tried: --report, --timeline and --critical-path record every "
want+="rank's nodes; every rank was simulated"
check "--report: no classes, and said why" eq "$(grep '^symmetry classes' "$TMP/report.out")" "$want"

finish
