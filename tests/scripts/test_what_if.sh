#!/usr/bin/env bash
# test_what_if.sh: what a new user met on a first pass over `orrery run`,
# sweeps and plots (a topology what-if, a bad config, a sweep's plot), each
# answer that misled checked through the binary: the exact message on
# stderr, the exit status, or the plot's gnuplot commands.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_what_if.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
lacks () { ! grep -qF -- "$2" "$1"; }

# The H100 cluster preset on 2 nodes (16 ranks), analytical, as a user
# copies it; the lines the messages name for its <network>, <rail> and
# <compute>: where each start tag ends (libxml2's line of an element).
sed -e 's/nodes="16"/nodes="2"/' -e 's/model="congestion" packet-size="64KiB"/model="analytical"/' \
  configs/h100-cluster.xml >"$TMP/rail.xml"
at () { grep -n "$1" "$TMP/rail.xml" | head -1 | cut -d: -f1; }
NET=$(at '^ *<network ') RAIL=$(at 'nic-latency=.*/>') COMP=$(at '^ *<compute ')
"$ORRERY" gen collective --type all_reduce --ranks 16 --bytes 64MiB --out "$TMP/ar" >/dev/null
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/ar" -q
check "the base config runs" eq "$?" 0

# bad SED: the config edited by SED, run; its stderr in $TMP/err, status in rc.
bad () {
  sed "$1" "$TMP/rail.xml" >"$TMP/bad.xml"
  "$ORRERY" run --config "$TMP/bad.xml" --workload "$TMP/ar" -q >/dev/null 2>"$TMP/err"
  rc=$?
}

# --- 1. One mistake, one message -----------------------------------------
# A bad value inside <cluster> was followed by libxml2's knock-ons at the
# <cluster> line ("Element cluster failed to validate content", "Invalid
# sequence in interleave"): a second place to look at, and no second
# mistake there.
bad 's/model="analytical"/model="Flow"/'
check "bad network model: exit 1" eq "$rc" 1
check "bad network model: one line" eq "$(cat "$TMP/err")" \
  "orrery run: $TMP/bad.xml:$NET: <network>: model 'Flow' is not one of: analytical, \
congestion, flow"
bad 's/model="kernel"/model="kernal"/'
check "bad compute model: one line" eq "$(cat "$TMP/err")" \
  "orrery run: $TMP/bad.xml:$COMP: <compute>: model 'kernal' is not one of: replay, roofline, \
scaled, kernel"
# Two mistakes: both named, the second by the schema, without "Expecting
# an element device, got nothing" (the other way to write <compute>).
bad 's/nic-bandwidth=/nic-bandwith=/; s/model="kernel"/model="kernel" sm-contention="maybe"/'
want="orrery run: $TMP/bad.xml:$RAIL: <rail>: unknown attribute 'nic-bandwith' (expected: nodes, "
want+="gpus, nvlink-bandwidth, nvlink-latency, nic-bandwidth, nic-latency)
$TMP/bad.xml:$COMP: Invalid attribute sm-contention for element compute"
check "two mistakes: both, nothing else" eq "$(cat "$TMP/err")" "$want"

# --- 2. A NIC too slow for NCCL's search -----------------------------------
# Below the slowest channel NCCL's topology search tries (0.12 GB/s between
# nodes on Hopper), no algorithm has a bandwidth.  The message said the
# config's nccl-algo / nccl-proto "rule out all this machine has for it
# (none)", and the config sets neither; it now says why, and what NCCL
# itself would do.  0.5 Gb/s is 0.0625 GB/s.
bad 's#nic-bandwidth="400Gb/s"#nic-bandwidth="0.5Gb/s"#'
check "NIC of 0.5 Gb/s: exit 1" eq "$rc" 1
want="orrery run: $TMP/ar.0.et: rank 0 node 0 \"all_reduce\" (all ranks): NCCL library: no "
want+="algorithm for all_reduce of 67108864 bytes on 16 ranks (2 nodes): NCCL's topology search "
want+="finds no channel on this machine (between nodes its slowest channel is 0.12 GB/s and a "
want+="GPU's NIC path gives 0.0625 GB/s); NCCL would fall back to one channel of 0.1 GB/s, "
want+="which orrery does not model: give the links more bandwidth, or use "
want+="<system library=\"per-dimension\">"
check "NIC of 0.5 Gb/s: says why" eq "$(cat "$TMP/err")" "$want"
check "NIC of 0.5 Gb/s: not the enable lists" lacks "$TMP/err" "rule out"
# Inside a node: 4 GPUs on PCIe at 1 GB/s, below the 3 GB/s the search
# starts from.
cat >"$TMP/pcie.xml" <<'XML'
<cluster name="pcie" rounding="ps">
  <network model="analytical">
    <dim kind="Switch" size="4" bandwidth="1GB/s" latency="1us" link="pcie"/>
  </network>
  <system library="nccl" cpu="intel" gpu="hopper" endpoint-delay="10ns"/>
</cluster>
XML
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/ar4" >/dev/null
"$ORRERY" run --config "$TMP/pcie.xml" --workload "$TMP/ar4" -q 2>"$TMP/err"
check "PCIe of 1 GB/s: exit 1" eq "$?" 1
check "PCIe of 1 GB/s: says why" has "$TMP/err" "(1 node): NCCL's topology search finds no \
channel on this machine (inside a node its slowest channel is 3 GB/s and a GPU's links give \
1 GB/s)"

# --- 3. FLOPs that took no time ---------------------------------------------
# gen transformer without --device writes compute nodes with FLOPs and
# kernels but no duration; a config without <compute> (fat-tree-256.xml)
# replays durations, so every rank computed for 0 ns, and the summary said
# so without a word of why.  The efficiency block now says; with a compute
# model (here the kernel model on the same traces) it does not.
"$ORRERY" gen transformer --preset llama2-7b --layers 1 --ranks 16 --tp 8 -b 1 -B 2 \
  --out "$TMP/tf" >/dev/null
sed '/<compute /d; s/cpu="intel"/cpu="intel" gpu="hopper"/' "$TMP/rail.xml" >"$TMP/replay.xml"
"$ORRERY" run --config "$TMP/replay.xml" --workload "$TMP/tf" >"$TMP/replay.out" 2>/dev/null
check "no compute model: exit 0" eq "$?" 0
check "no compute model: compute 0 ns" has "$TMP/replay.out" \
  "  compute                          0 ns           0 ns           0 ns"
want='  (no compute time: the COMP nodes carry FLOPs but no duration, and the config replays '
want+='durations (<compute model="replay">, the default); price them with <compute '
want+='model="kernel" device="H100-SXM"> or model="roofline", or write durations with gen '
want+='transformer --device)'
check "no compute model: says why" has "$TMP/replay.out" "$want"
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/tf" >"$TMP/kernel.out" 2>/dev/null
check "kernel model: computes" lacks "$TMP/kernel.out" "compute                          0 ns"
check "kernel model: no such line" lacks "$TMP/kernel.out" "no compute time"


# --- 4. One name per FLOP count -------------------------------------------------
# gen transformer printed "1.423e+15 FLOPs per iteration": the kernels' sum,
# run's "hardware FLOPs", while run's MFU counts the model FLOPs, which gen
# never printed.  Llama-2 7B on 8 ranks, 8 sequences of 4,096 (T = 32,768
# tokens): 6 N T + 12 L s^2 h B with N the parameters that do matmuls (the
# input embedding's 32,000 x 4,096 do none: 6,607,077,376) = 1.29900e15 +
# 12 x 32 x 4096^2 x 4096 x 8 = 2.11106e14, 1.51011e15.  Both are printed,
# named as run names them, and run's two lines give the same figures.
"$ORRERY" gen transformer --preset llama2-7b --ranks 8 --tp 8 --pp 1 --global-batch 8 \
  --micro-batch 1 --out "$TMP/l8" >"$TMP/gen.out"
want="llama2-7b: 8 ranks (tp 8 pp 1 dp 1), 8 micro-batches, 6738149376 parameters, 1.423e+15 "
want+="hardware and 1.51e+15 model FLOPs per iteration; wrote $TMP/l8.0.et .. $TMP/l8.7.et"
check "gen: both FLOP counts, named" eq "$(tail -1 "$TMP/gen.out")" "$want"
sed 's/nodes="2"/nodes="1"/' "$TMP/rail.xml" >"$TMP/node.xml"
"$ORRERY" run --config "$TMP/node.xml" --workload "$TMP/l8" >"$TMP/l8.out" 2>&1
check "run: the same model FLOPs" has "$TMP/l8.out" "  model FLOPs 1.51e+15 (the traces' metadata"
check "run: the same hardware FLOPs" has "$TMP/l8.out" "  hardware FLOPs 1.423e+15 (num_ops"


# --- 5. --stats names what it writes ---------------------------------------------
# Its help listed 8 columns of the 11 to 13 a native run writes (no SM
# contention here: TP alone, each collective between compute), and called one
# "exposed communication", the name of a summary row that leaves out the
# pipeline bubble the column keeps (sim/README.md, "Pipeline bubble").
"$ORRERY" run --help >"$TMP/help.out"
check "--stats help: the bubble in exposed communication" has "$TMP/help.out" \
  "exposed communication (the summary's row plus its pipeline bubble)"
check "--stats help: the native columns" has "$TMP/help.out" \
  "native runs add pipeline bubble, model and hardware FLOPs"
"$ORRERY" run --config "$TMP/node.xml" --workload "$TMP/l8" --stats "$TMP/l8.csv" >/dev/null 2>&1
want="rank,finish_ps,compute_ps,exposed_comm_ps,idle_ps,after_finish_ps,comm_busy_ps,cpu_ps,"
want+="nodes,pipeline_bubble_ps,model_flops,hardware_flops"
check "--stats: the columns the help names" eq "$(head -1 "$TMP/l8.csv")" "$want"


# --- 6. A trace set named wrongly -------------------------------------------
# A folder given for the workload read as the prefix "DIR/" ("DIR/.0.et: not
# found ... 0 trace files"), and a set with a hole at rank 1 as a set of one
# ("only 1 trace file" with ar.2.et to ar.15.et there).
mkdir -p "$TMP/set" "$TMP/none"
cp "$TMP"/ar.*.et "$TMP/set/"
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/set/" -q >/dev/null 2>"$TMP/err"
check "a folder for the workload: exit 1" eq "$?" 1
want="$TMP/set/ is a folder: the workload is named by the prefix of its files (PREFIX.0.et, "
want+="PREFIX.1.et, ...): did you mean $TMP/set/ar?"
check "a folder for the workload: the prefix inside it" has "$TMP/err" "$want"
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/none" -q >/dev/null 2>"$TMP/err"
check "a folder without a set: said so" has "$TMP/err" \
  "$TMP/none is a folder holding no trace set (no NAME.0.et or NAME.0.json in it)"
rm "$TMP/set/ar.1.et"
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/set/ar" -q >/dev/null 2>"$TMP/err"
check "a gap in the set: exit 1" eq "$?" 1
want="$TMP/set/ar.1.et: not found, but $TMP/set/ar.2.et is: the trace set has a gap at rank 1 "
want+="(the topology has 16 ranks)"
check "a gap in the set: named" has "$TMP/err" "$want"

finish
