#!/usr/bin/env bash
# Mistakes a new user made that orrery took without a word, or answered
# with a message that did not help (issue 21 item 1 and its leftovers), end
# to end through the binary: each check runs the command and compares the
# exact message on stderr and the exit status (1: usage or input error),
# and that no partial output is left behind.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_mistakes.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

# refuses NAME MESSAGE COMMAND...: COMMAND exits 1 and its stderr is exactly
# MESSAGE (one line).
refuses () {
  local name=$1 want=$2; shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  check "$name: exit status 1" eq "$?" 1
  check "$name: the message" eq "$(cat "$TMP/err")" "$want"
}
# warns FILE: the warning lines of FILE.
warns () { grep -c warning "$1"; }

# --- 1. TP wider than a node -------------------------------------------------
# 4 nodes of 8 GPUs on rails (32 ranks).  gen transformer --tp 16 makes two
# TP groups (ranks 0..15 and 16..31), each on two nodes: run warns once,
# naming the count and the first group; --tp 8 fits a node: no warning.
cat >"$TMP/rail.xml" <<'XML'
<cluster name="rails" rounding="ps">
  <network model="analytical">
    <rail nodes="4" gpus="8" nvlink-bandwidth="450GB/s" nvlink-latency="500ns"
          nic-bandwidth="400Gb/s" nic-latency="2us"/>
  </network>
</cluster>
XML
tf () { "$ORRERY" gen transformer --preset llama2-7b --layers 1 --ranks 32 -b 1 "$@" >/dev/null; }
tf --tp 16 -B 2 --out "$TMP/tp16/t"
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/tp16/t" >/dev/null 2>"$TMP/tp16.err"
check "tp 16 on nodes of 8: run exits 0" eq "$?" 0
check "tp 16 on nodes of 8: one warning" eq "$(warns "$TMP/tp16.err")" 1
want='orrery run: warning: 2 TP groups span nodes of 8 GPUs (the first, of '
want+='"tp_reduce_scatter": group 1, 16 ranks r0 .. r15 on 2 nodes): tensor parallelism '
want+='crosses the NICs every layer; give gen transformer --tp 8 or less (a node is a line '
want+='of 8 ranks of the innermost dimension)'
check "tp 16 on nodes of 8: the warning" has "$TMP/tp16.err" "$want"
tf --tp 8 -B 4 --out "$TMP/tp8/t"
"$ORRERY" run --config "$TMP/rail.xml" --workload "$TMP/tp8/t" >/dev/null 2>"$TMP/tp8.err"
check "tp 8 on nodes of 8: run exits 0" eq "$?" 0
check "tp 8 on nodes of 8: no warning" eq "$(warns "$TMP/tp8.err")" 0
# gen reads no cluster: its options are refused with where they belong.
elsewhere=' gen writes traces for any cluster and reads none; `orrery run --config FILE` '
elsewhere+='warns when a TP group spans nodes, and `orrery plan --config FILE` keeps TP '
elsewhere+='within a node'
refuses "gen --config" "orrery gen: --config:$elsewhere" \
  "$ORRERY" gen transformer --preset llama2-7b --tp 16 --config "$TMP/rail.xml" --out "$TMP/c/t"
check "gen --config: nothing written" test ! -e "$TMP/c"
refuses "gen --gpus-per-node" "orrery gen: --gpus-per-node:$elsewhere" \
  "$ORRERY" gen transformer --preset llama2-7b --tp 16 --gpus-per-node=8 --out "$TMP/c/t"

# --- 5. gen --out DIR/ ---------------------------------------------------------
want="orrery gen collective: --out $TMP/d/: a prefix, not a folder (it would write hidden "
want+="files $TMP/d/.0.et ..): name the files, e.g. --out $TMP/d/trace for $TMP/d/trace.0.et .."
refuses "gen --out DIR/" "$want" \
  "$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MB --out "$TMP/d/"
check "gen --out DIR/: nothing written" test ! -e "$TMP/d"

# --- 3. convert: atomic output, its folder made, a folder refused ------------
"$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 1MB --count 50 \
  --out "$TMP/cv/t" >/dev/null
head -c 300 "$TMP/cv/t.0.et" >"$TMP/cv/trunc.et"
"$ORRERY" convert "$TMP/cv/trunc.et" "$TMP/cv/new/x.json" 2>"$TMP/err"
check "convert truncated .et: exit status 1" eq "$?" 1
check "convert truncated .et: says so" has "$TMP/err" "orrery convert: $TMP/cv/trunc.et: frame "
check "convert truncated .et: truncated" has "$TMP/err" "truncated file?"
check "convert truncated .et: no output, no folder" test ! -e "$TMP/cv/new"
echo old >"$TMP/cv/old.json"
"$ORRERY" convert "$TMP/cv/trunc.et" "$TMP/cv/old.json" 2>/dev/null
check "convert truncated .et: an old output stays" eq "$(cat "$TMP/cv/old.json")" old
check "convert truncated .et: no temporary file" eq "$(ls "$TMP/cv" | tr '\n' ' ')" \
  "old.json t.0.et t.1.et trunc.et "
"$ORRERY" convert "$TMP/cv/t.0.et" "$TMP/cv/made/deep/x.json"
check "convert: makes the output's folder" test -s "$TMP/cv/made/deep/x.json"
"$ORRERY" convert "$TMP/cv/made/deep/x.json" "$TMP/cv/back.et"
check "convert: .et -> JSON -> .et gives the same bytes" cmp -s "$TMP/cv/back.et" "$TMP/cv/t.0.et"
folder=": a folder, not a file: name the output file"
refuses "convert to a folder" \
  "orrery convert: $TMP/cv/made$folder (e.g. $TMP/cv/made/NAME.json)" \
  "$ORRERY" convert "$TMP/cv/t.0.et" "$TMP/cv/made"
refuses "convert to DIR/" \
  "orrery convert: $TMP/cv/nd/$folder (e.g. $TMP/cv/nd/NAME.json)" \
  "$ORRERY" convert "$TMP/cv/t.0.et" "$TMP/cv/nd/"
check "convert to DIR/: no folder made" test ! -e "$TMP/cv/nd"
refuses "convert: too many arguments" \
  "orrery convert: too many arguments: usage: orrery convert IN OUT" \
  "$ORRERY" convert "$TMP/cv/t.0.et" "$TMP/cv/a.json" "$TMP/cv/b.json"
refuses "convert: one argument" \
  "orrery convert: need an input and an output file: usage: orrery convert IN OUT" \
  "$ORRERY" convert "$TMP/cv/t.0.et"

# --- 4. inspect reports what run refuses, in run's words ------------------------
# A 2-rank all-reduce in JSON, then comm_size -5 and comm_type 99 (Chakra's
# collective types are 0 to 9).
cat >"$TMP/two.xml" <<'XML'
<cluster name="two" rounding="ps">
  <network model="analytical">
    <dim kind="Switch" size="2" bandwidth="100GB/s" latency="1us"/>
  </network>
</cluster>
XML
"$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 1MB --out "$TMP/j/t" >/dev/null
"$ORRERY" convert "$TMP/j/t.0.et" "$TMP/j/t.json"
mkdir -p "$TMP/neg" "$TMP/typ"
for r in 0 1; do
  sed 's/"1000000"/"-5"/' "$TMP/j/t.json" >"$TMP/neg/t.$r.json"
  sed 's/"int64Val": "0"/"int64Val": "99"/' "$TMP/j/t.json" >"$TMP/typ/t.$r.json"
done
for bad in "neg:attribute \"comm_size\" is -5, expected a non-negative integer" \
           "typ:comm_type 99 is not a collective type (0 to 9)"; do
  d=${bad%%:*} why=${bad#*:}
  refuses "run, $d" "orrery run: $TMP/$d/t.0.json: node 0: $why" \
    "$ORRERY" run --config "$TMP/two.xml" --workload "$TMP/$d/t"
  "$ORRERY" inspect "$TMP/$d/t" >"$TMP/$d.out" 2>&1
  check "inspect, $d: exit status 1" eq "$?" 1
  check "inspect, $d: run's message as a defect" has "$TMP/$d.out" \
    "defect: $TMP/$d/t.0.json: node 0: $why"
done

# --- 2. MSCCL XML: ngpus bounded by the file, nchunksperloop by the buffers ---
# configs/msccl/ring_allreduce_8.xml: 8 <gpu>, each i_chunks="8", and
# nchunksperloop="8".  ngpus="100000000" is refused before anything is sized
# by it (it took 25 s and 12.7 GB); nchunksperloop="64" breaks the MSCCL
# runtime's rule i_chunks = nchunksperloop (microsoft/msccl topo.cc).
msccl_cluster () {
  cat >"$TMP/$1.cfg.xml" <<XML
<cluster name="c">
  <network model="analytical">
    <dim kind="Ring" size="8" bandwidth="50GiB/s" latency="500ns"/>
  </network>
  <system endpoint-delay="10ns" splits="1" local-mem-bw="1600GB/s">
    <algorithm collective="all-reduce" msccl="$1.xml"/>
  </system>
</cluster>
XML
}
"$ORRERY" gen collective --type all_reduce --ranks 8 --bytes 8MB --out "$TMP/ar8/t" >/dev/null
sed 's/ngpus="8"/ngpus="100000000"/' configs/msccl/ring_allreduce_8.xml >"$TMP/big.xml"
sed '0,/nchunksperloop="8"/s//nchunksperloop="64"/' configs/msccl/ring_allreduce_8.xml \
  >"$TMP/loop.xml"
msccl_cluster big
msccl_cluster loop
start=$SECONDS
refuses "msccl ngpus far above its <gpu>s" \
  "orrery run: $TMP/big.cfg.xml:6: <algorithm msccl>: $TMP/big.xml:1: <algo>: \
ngpus=\"100000000\" but there are 8 <gpu> elements (one per gpu)" \
  "$ORRERY" run --config "$TMP/big.cfg.xml" --workload "$TMP/ar8/t"
check "msccl ngpus far above its <gpu>s: refused at once" test $((SECONDS - start)) -le 2
refuses "msccl nchunksperloop above i_chunks" \
  "orrery run: $TMP/loop.cfg.xml:6: <algorithm msccl>: $TMP/loop.xml:2: <gpu>: \
i_chunks=\"8\" but nchunksperloop=\"64\": the MSCCL runtime requires i_chunks = \
nchunksperloop (or i_chunks 0)" \
  "$ORRERY" run --config "$TMP/loop.cfg.xml" --workload "$TMP/ar8/t"

# --- 5. smaller confusions ------------------------------------------------------
# .et and .json of one prefix: refused, naming both files.
mkdir -p "$TMP/mix"
cp "$TMP/j/t.0.et" "$TMP/mix/t.0.et"
cp "$TMP/j/t.1.et" "$TMP/mix/t.1.et"
cp "$TMP/j/t.json" "$TMP/mix/t.0.json"
mixed=": a workload's traces are all .et or all .json, not both (move one form aside)"
refuses "run, t.0.et beside t.0.json" \
  "orrery run: $TMP/mix/t.0.et and $TMP/mix/t.0.json$mixed" \
  "$ORRERY" run --config "$TMP/two.xml" --workload "$TMP/mix/t"
refuses "inspect, t.0.et beside t.0.json" \
  "orrery inspect: $TMP/mix/t.0.et and $TMP/mix/t.0.json$mixed" \
  "$ORRERY" inspect "$TMP/mix/t"
rm "$TMP/mix/t.0.et"
refuses "run, t.0.json with t.1.et" \
  "orrery run: $TMP/mix/t.1.et and $TMP/mix/t.0.json$mixed" \
  "$ORRERY" run --config "$TMP/two.xml" --workload "$TMP/mix/t"

# A missing nvlink attribute: the message names it, and only it (libxml2
# added "Invalid attribute nvlink-latency", the one that was given).
cat >"$TMP/nv.xml" <<'XML'
<cluster name="t" rounding="ps">
  <network model="analytical">
    <fat-tree k="2" gpus="8" bandwidth="50GB/s" latency="0ns" nvlink-latency="0ns"/>
  </network>
</cluster>
XML
refuses "fat-tree without nvlink-bandwidth" \
  "orrery run: $TMP/nv.xml:3: <fat-tree>: missing attribute 'nvlink-bandwidth'" \
  "$ORRERY" run --config "$TMP/nv.xml" --workload "$TMP/j/t"

# <dim> with <link>s: bandwidth and latency may be left out (the links
# price messages), the summary saying so; one without the other, or
# library="nccl" (which reads them), is refused.  Two ranks on a switch,
# 100 GB/s and 1 us a link: an all-reduce of 1 MB is a ring of 2 steps of
# 0.5 MB, each 2 hops (2 us) + 0.5 MB / 100 GB/s (5 us) = 7 us: 14 us.
graph () {
  cat >"$TMP/$1.xml" <<XML
<cluster name="g" rounding="ps">
  <network model="analytical">
    $2
    <switch id="s"/>
    <link from="r0" to="s" bandwidth="100GB/s" latency="1us"/>
    <link from="r1" to="s" bandwidth="100GB/s" latency="1us"/>
  </network>
  <system endpoint-delay="0ns" splits="1" reduction-passes="0" ${3:-}/>
</cluster>
XML
}
graph gdim '<dim kind="Switch" size="2"/>'
"$ORRERY" run --config "$TMP/gdim.xml" --workload "$TMP/j/t" >"$TMP/gdim.out" 2>/dev/null
check "graph <dim> without bandwidth: runs" eq "$?" 0
check "graph <dim> without bandwidth: the links price it" has "$TMP/gdim.out" \
  "network: analytical, 2 ranks = Switch 2 (its links in the graph)"
check "graph <dim> without bandwidth: 14 us" has "$TMP/gdim.out" "simulated time: 14.000 us"
graph ghalf '<dim kind="Switch" size="2" latency="1us"/>'
refuses "graph <dim> with latency alone" \
  "orrery run: $TMP/ghalf.xml:3: <dim>: missing attribute 'bandwidth': with <link>s, give \
a <dim> bandwidth and latency together (library=\"nccl\" reads them) or neither (the links \
price messages)" \
  "$ORRERY" run --config "$TMP/ghalf.xml" --workload "$TMP/j/t"
graph gnccl '<dim kind="Switch" size="2"/>' 'library="nccl"'
refuses "graph <dim> without bandwidth, library nccl" \
  "orrery run: $TMP/gnccl.xml:8: <system>: library=\"nccl\" reads each dimension's \
bandwidth (its NVLink and NIC speeds): give the explicit graph <dim>s, each with bandwidth \
and latency" \
  "$ORRERY" run --config "$TMP/gnccl.xml" --workload "$TMP/j/t"
cat >"$TMP/nolink.xml" <<'XML'
<cluster name="d" rounding="ps">
  <network model="analytical"><dim kind="Switch" size="2"/></network>
</cluster>
XML
refuses "<dim> without bandwidth and without links" \
  "orrery run: $TMP/nolink.xml:2: <dim>: missing attribute 'bandwidth'" \
  "$ORRERY" run --config "$TMP/nolink.xml" --workload "$TMP/j/t"

# --ranks 0 is not "no --ranks".
refuses "gen collective --ranks 0" "orrery gen collective: --ranks 0: must be at least 1" \
  "$ORRERY" gen collective --type all_reduce --ranks 0 --bytes 1MB --out "$TMP/r0/t"
refuses "gen transformer --ranks 0" "orrery gen transformer: --ranks 0: must be at least 1" \
  "$ORRERY" gen transformer --preset llama2-7b --ranks 0 -b 1 -B 8 --out "$TMP/r0/t"
refuses "rescale --ranks 0" "orrery rescale: --ranks 0: must be at least 1" \
  "$ORRERY" rescale --from "$TMP/j/t" --ranks 0 --out "$TMP/r0/t"
check "--ranks 0: nothing written" test ! -e "$TMP/r0"

# tp that does not divide the model: the numbers (llama2-7b: hidden 4096,
# heads 32; llama3-8b: 8 kv heads).
divide="orrery gen transformer: tp must divide"
refuses "tp 3" "$divide hidden, heads and ffn: tp 3 does not divide hidden 4096" \
  "$ORRERY" gen transformer --preset llama2-7b --tp 3 -b 1 -B 8 --out "$TMP/r0/t"
refuses "tp 64" "$divide hidden, heads and ffn: tp 64 does not divide heads 32" \
  "$ORRERY" gen transformer --preset llama2-7b --tp 64 -b 1 -B 8 --out "$TMP/r0/t"
refuses "tp 16, 8 kv heads" "$divide the kv heads: tp 16 does not divide kv heads 8" \
  "$ORRERY" gen transformer --preset llama3-8b --tp 16 -b 1 -B 8 --out "$TMP/r0/t"

# --bytes 0 needs no unit (zero is zero in any); 5 still does.
"$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 0 --out "$TMP/b0/t" >/dev/null
check "--bytes 0: accepted" test -s "$TMP/b0/t.1.et"
refuses "--bytes 5" \
  "orrery gen collective: '5': a size needs a unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)" \
  "$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 5 --out "$TMP/b5/t"

# A mistyped command or generator gets the nearest name.
"$ORRERY" rnu >/dev/null 2>"$TMP/err"
check "orrery rnu: exit status 1" eq "$?" 1
check "orrery rnu: did you mean run" eq "$(head -n 1 "$TMP/err")" \
  "orrery: unknown command 'rnu' (did you mean run?)"
"$ORRERY" gen trasnformer >/dev/null 2>"$TMP/err"
check "gen trasnformer: did you mean transformer" eq "$(head -n 1 "$TMP/err")" \
  "orrery gen: unknown generator 'trasnformer' (did you mean transformer?)"

# A truncated JSON trace: the file, "truncated", and where.
head -c 120 "$TMP/j/t.json" >"$TMP/tj.0.json"
cp "$TMP/j/t.json" "$TMP/tj.1.json"
# The first 120 bytes end inside the node that starts on line 4, on the
# line after the last newline among them.
ends=$(($(wc -l <"$TMP/tj.0.json") + 1))
refuses "truncated JSON trace" \
  "orrery run: $TMP/tj.0.json: truncated: the node that starts on line 4 is not closed when \
the file ends (line $ends, byte 120)" \
  "$ORRERY" run --config "$TMP/two.xml" --workload "$TMP/tj"

# scripts/plot with no arguments: its usage, exit status 1 (2 is an
# internal error's).
scripts/plot >/dev/null 2>"$TMP/err"
check "scripts/plot alone: exit status 1" eq "$?" 1
check "scripts/plot alone: its usage" eq "$(head -n 1 "$TMP/err")" \
  "usage: scripts/plot REPORT.json [OUTPUT_PREFIX]"

finish
