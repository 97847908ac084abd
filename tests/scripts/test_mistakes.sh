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

# A number with an exponent in the cluster file, as every other quantity
# takes it: 4.5e2GB/s is 450GB/s (the schema refused it with only "Invalid
# attribute bandwidth for element dim").
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/e/t" >/dev/null
for bw in 450GB/s 4.5e2GB/s; do
  cat >"$TMP/e/c.xml" <<XML
<cluster name="e" rounding="ps">
  <network model="analytical">
    <dim kind="Ring" size="4" bandwidth="$bw" latency="5e2ns"/>
  </network>
</cluster>
XML
  "$ORRERY" run --config "$TMP/e/c.xml" --workload "$TMP/e/t" 2>&1 | grep '^simulated time' \
    >"$TMP/e/$(echo "$bw" | tr / _)"
done
check "bandwidth 4.5e2GB/s runs" test -s "$TMP/e/4.5e2GB_s"
check "bandwidth 4.5e2GB/s is 450GB/s" cmp -s "$TMP/e/450GB_s" "$TMP/e/4.5e2GB_s"

# --ranks 0 is not "no --ranks".
refuses "gen collective --ranks 0" "orrery gen collective: --ranks 0: must be at least 1" \
  "$ORRERY" gen collective --type all_reduce --ranks 0 --bytes 1MB --out "$TMP/r0/t"
refuses "gen transformer --ranks 0" "orrery gen transformer: --ranks 0: must be at least 1" \
  "$ORRERY" gen transformer --preset llama2-7b --ranks 0 -b 1 -B 8 --out "$TMP/r0/t"
refuses "rescale --ranks 0" "orrery rescale: --ranks 0: must be at least 1" \
  "$ORRERY" rescale --from "$TMP/j/t" --ranks 0 --out "$TMP/r0/t"
check "--ranks 0: nothing written" test ! -e "$TMP/r0"

# -1 is not "not given": gen's integer options once took -1 for their
# default (--count -1 wrote one collective, --zero -1 no ZeRO).
gc () { "$ORRERY" gen collective --type broadcast --ranks 4 --bytes 1MB --out "$TMP/m1/c" "$@"; }
refuses "gen collective --count -1" "orrery gen collective: --count must be a positive number" \
  gc --count -1
refuses "gen collective --groups -1" "orrery gen collective: --groups must be a positive number" \
  gc --groups -1
refuses "gen collective --stride -1" "orrery gen collective: --stride must be a positive number" \
  gc --stride -1
refuses "gen collective --root -1" \
  "orrery gen collective: --root must be a positive number or 0" gc --root -1
gt () { "$ORRERY" gen transformer --preset llama2-7b --ranks 2 -b 1 -B 2 --out "$TMP/m1/t" "$@"; }
refuses "gen transformer --zero -1" \
  "orrery gen transformer: --zero must be 0, 1, 2 or 3 (--fsdp means 3)" gt --zero -1
refuses "gen transformer --experts -1" \
  "orrery gen transformer: --ep must be at least 1, --experts and --top-k at least 0" \
  gt --experts -1
refuses "gen transformer --top-k -1" \
  "orrery gen transformer: --ep must be at least 1, --experts and --top-k at least 0" \
  gt --top-k -1
# -2147483648 is G_MININT, the mark of an option not given: it was taken
# as no --experts (a dense model) or no --top-k.  GLib reads numbers as C
# does: 010 was 8 experts a token, 0x2 two.  Every whole-number option is
# now read in decimal by cli.c, and -2147483648 refused there, for all
# (tests/scripts/test_cli_numbers.sh).
refuses "gen transformer --experts -2147483648" \
  "orrery gen transformer: --experts -2147483648: too small (at least -2147483647)" \
  gt --experts -2147483648
refuses "gen transformer --top-k -2147483648" \
  "orrery gen transformer: --top-k -2147483648: too small (at least -2147483647)" \
  gt --experts 8 --top-k -2147483648
refuses "gen transformer --top-k 010 is ten" \
  "orrery gen transformer: top-k must be 1 .. experts and ep must divide experts: top-k 10, experts 8, ep 1" \
  gt --experts 8 --top-k 010
refuses "gen transformer --top-k 0x2" "orrery gen transformer: --top-k 0x2: not a whole number" \
  gt --experts 8 --top-k 0x2
refuses "gen transformer --experts ' 8'" "orrery gen transformer: --experts  8: not a whole number" \
  gt --experts ' 8'
refuses "gen transformer --top-k -10^20" \
  "orrery gen transformer: --top-k -99999999999999999999: too small (at least -2147483647)" \
  gt --experts 8 --top-k -99999999999999999999
refuses "gen transformer --top-k 2^32" \
  "orrery gen transformer: --top-k 4294967297: too large (at most 2147483647)" \
  gt --experts 8 --top-k 4294967297
check "gen -1: nothing written" test ! -e "$TMP/m1"

# --- gen dlrm and the other generators: issue 22's new user ------------------------------
D=(gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 8)
dl="orrery gen dlrm"
# Cross layers: 1 .. 16 (as the MLPs' layers); the rank: 1 .. the cross
# network's width, (26 tables + 1) x 128 = 3456.
refuses "--dcn-layers 2000000000" "$dl: --dcn-layers 2000000000: must be 1 .. 16" \
  "$ORRERY" "${D[@]}" --dcn-layers 2000000000 --out "$TMP/dcn/d"
refuses "--dcn-layers 17" "$dl: --dcn-layers 17: must be 1 .. 16" \
  "$ORRERY" "${D[@]}" --dcn-layers 17 --out "$TMP/dcn/d"
refuses "--dcn-rank 3457" "$dl: --dcn-rank 3457: must be 1 .. 3456 (the cross network's \
width: 27 features of dimension 128)" "$ORRERY" "${D[@]}" --dcn-rank 3457 --out "$TMP/dcn/d"
refuses "--dcn-rank 0" "$dl: --dcn-rank 0: must be 1 .. 3456 (the cross network's \
width: 27 features of dimension 128)" "$ORRERY" "${D[@]}" --dcn-rank 0 --out "$TMP/dcn/d"
check "--dcn-*: nothing written" test ! -e "$TMP/dcn"
"$ORRERY" "${D[@]}" --dcn-layers 16 --dcn-rank 3456 --dry-run >/dev/null 2>&1
check "--dcn-layers 16 --dcn-rank 3456: accepted" eq "$?" 0
# Zero and negatives are refused, naming the option and the value (they
# used to mean "the default").
for opt in --batch --local-batch --ranks-per-node; do
  refuses "$opt 0" "$dl: $opt 0: must be at least 1" "$ORRERY" "${D[@]}" "$opt" 0 --dry-run
done
refuses "gen dlrm --ranks 0" "$dl: --ranks 0: must be at least 1" \
  "$ORRERY" gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 0 --dry-run
refuses "gen dlrm --ranks -8" "$dl: --ranks -8: must be at least 1" \
  "$ORRERY" gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks -8 --dry-run
refuses "gen dlrm --ranks 1025" "$dl: --ranks 1025: must be 1 .. 1024" \
  "$ORRERY" gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 1025 --dry-run
# Numbers: the shared option parser (cli.c) reads them, and words their
# errors the same for every command.
refuses "--batch 1M" "$dl: --batch 1M: not a whole number" "$ORRERY" "${D[@]}" --batch 1M \
  --dry-run
refuses "--batch 128.0" "$dl: --batch 128.0: not a whole number" \
  "$ORRERY" "${D[@]}" --batch 128.0 --dry-run
refuses "--batch 2^31" "$dl: --batch 2147483648: too large (at most 2147483647)" \
  "$ORRERY" "${D[@]}" --batch 2147483648 --dry-run
refuses "--local-batch x 8 above 2^31 - 1" "$dl: the global batch (2147483648 samples) must \
be a positive multiple of the ranks (8), at most 2147483647" \
  "$ORRERY" "${D[@]}" --local-batch 268435456 --dry-run
refuses "gen transformer --tp 1M" "orrery gen transformer: --tp 1M: not a whole number" \
  "$ORRERY" gen transformer --preset llama2-7b --tp 1M -b 1 -B 8 --out "$TMP/x/t"
# A stray argument: refused by every command that takes options only.
# The usage names the command as typed ("orrery gen dlrm"), not GLib's bare
# argv[0] ("dlrm").
stray () { echo "$1: unexpected argument 'extra': the command takes options only (usage: $1 \
[OPTION…]; --help lists them)"; }
refuses "gen dlrm extra" "$(stray "$dl")" "$ORRERY" "${D[@]}" --out "$TMP/x/d" extra
refuses "run extra" "$(stray "orrery run")" "$ORRERY" run --workload "$TMP/j/t" extra
refuses "gen collective extra" "$(stray "orrery gen collective")" \
  "$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 1MB --out "$TMP/x/t" extra
check "a stray argument: nothing written" test ! -e "$TMP/x"
# --out: an empty prefix is refused as a folder is; a bad --out prints no
# summary.
refuses "gen dlrm --out ''" "$dl: --out '': an empty prefix (it would write hidden files \
.0.et ..): name the files, e.g. --out trace for trace.0.et .." "$ORRERY" "${D[@]}" --out ""
check "--out '': no summary" test ! -s "$TMP/out"
check "--out '': no hidden .0.et" test ! -e .0.et
# A set is written all or nothing: a folder among its names is refused
# before anything is written ...
mkdir -p "$TMP/pw/d.3.et"
refuses "a folder among the set" "$dl: --out $TMP/pw/d: $TMP/pw/d.3.et is a folder: the set \
$TMP/pw/d.0.et .. $TMP/pw/d.7.et cannot be written (nothing was)" \
  "$ORRERY" "${D[@]}" --out "$TMP/pw/d"
check "a folder among the set: no summary" test ! -s "$TMP/out"
check "a folder among the set: nothing written" test ! -e "$TMP/pw/d.0.et"
# ... and a write that fails at rank 5 (a link into a missing folder)
# removes ranks 0 .. 4, which it had written.
mkdir -p "$TMP/pl" && ln -s "$TMP/nowhere/x" "$TMP/pl/d.5.et"
"$ORRERY" "${D[@]}" --out "$TMP/pl/d" >/dev/null 2>"$TMP/err"
check "a failed set: exit status 1" eq "$?" 1
check "a failed set: ranks 0 .. 4 removed" eq "$(ls "$TMP/pl")" d.5.et
# Stale files: a smaller set under the same prefix removes the larger
# one's tail (run would read it with the new set), and says so.
S=(--tables "$TMP/t3.csv" --bottom-mlp 13-16 --top-mlp 1 --batch 64)
printf 'rows,dim,pooling\n1000,16,1\n2000,16,2\n500,16,20\n' >"$TMP/t3.csv"
"$ORRERY" gen dlrm "${S[@]}" --ranks 8 --out "$TMP/st/d" >/dev/null
"$ORRERY" gen dlrm "${S[@]}" --ranks 4 --out "$TMP/st/d" >"$TMP/out" 2>"$TMP/err"
check "stale tail: exit 0" eq "$?" 0
check "stale tail: said" eq "$(cat "$TMP/err")" \
  "$dl: removed $TMP/st/d.4.et .. $TMP/st/d.7.et, left from an earlier set of 8 ranks"
check "stale tail: 4 files left" eq "$(ls "$TMP/st" | tr '\n' ' ')" "d.0.et d.1.et d.2.et d.3.et "
"$ORRERY" gen dlrm "${S[@]}" --ranks 1 --out "$TMP/st/d" >"$TMP/out" 2>"$TMP/err"
check "one rank: 'wrote PREFIX.0.et'" eq "$(tail -n 1 "$TMP/out")" "wrote $TMP/st/d.0.et"
check "one rank: '1 rank, ... 3 tables'" has "$TMP/out" "custom: 1 rank, 64 samples a step"
"$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 1MB --out "$TMP/st/d" \
  >/dev/null 2>"$TMP/err"
check "gen collective, stale tail: none (d.1.et was not there)" test ! -s "$TMP/err"
"$ORRERY" run --config "$TMP/two.xml" --workload "$TMP/st/d" >/dev/null 2>&1
check "the new set runs" eq "$?" 0
# Tables and plan files: file, line, values.
printf '\xef\xbb\xbfrows,dim,pooling\n1000,16,2\n' >"$TMP/bom.csv"
"$ORRERY" gen dlrm --tables "$TMP/bom.csv" --bottom-mlp 13-16 --top-mlp 1 --batch 64 \
  --ranks 1 --dry-run >/dev/null 2>&1
check "a byte-order mark: accepted" eq "$?" 0
printf 'rows,dim,pooling\n1000,128,1\n2000,64,2\n' >"$TMP/mix.csv"
refuses "mixed dimensions" "$dl: $TMP/mix.csv:3: dim 64 differs from the first table's 128 \
(line 2): every table must have the same dimension (the interaction stacks them)" \
  "$ORRERY" gen dlrm --tables "$TMP/mix.csv" --bottom-mlp 13-128 --top-mlp 1 -B 64 -n 1 --dry-run
{ echo rows,dim,pooling; for _ in $(seq 4097); do echo 10,16,1; done; } >"$TMP/many.csv"
refuses "4097 tables" "$dl: $TMP/many.csv:4098: more than 4096 tables" \
  "$ORRERY" gen dlrm --tables "$TMP/many.csv" --bottom-mlp 13-16 --top-mlp 1 -B 64 -n 1 --dry-run
for pool in 0x10 1e-300 inf; do
  printf 'rows,dim,pooling\n1000,16,%s\n' "$pool" >"$TMP/pool.csv"
  refuses "pooling $pool" "$dl: $TMP/pool.csv:2: pooling '$pool' must be a decimal number \
from 0.001 to 1e6 (indices a sample)" "$ORRERY" gen dlrm --tables "$TMP/pool.csv" \
    --bottom-mlp 13-16 --top-mlp 1 -B 64 -n 1 --dry-run
done
P=(gen dlrm "${S[@]}" --ranks 4 --ranks-per-node 2 --dry-run --plan "$TMP/p.plan")
printf '# a comment\n0,column_wise,0 1 2\n' >"$TMP/p.plan"
refuses "plan: column shards" "$dl: $TMP/p.plan:2: table 0: 3 column shards do not divide its \
dimension 16" "$ORRERY" "${P[@]}"
printf '0,table_row_wise,0-3\n' >"$TMP/p.plan"
refuses "plan: table_row_wise across nodes" "$dl: $TMP/p.plan:1: table 0: table_row_wise ranks \
0 and 2 must be on one node (2 ranks a node)" "$ORRERY" "${P[@]}"
printf '0,table_wise,9\n' >"$TMP/p.plan"
refuses "plan: a rank out of range" "$dl: $TMP/p.plan:1: rank 9 is out of range 0 .. 3" \
  "$ORRERY" "${P[@]}"

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
# comm_size is a signed 64-bit field: 2^63 - 1 bytes is the largest size a
# trace holds; 2^63 (8 x 2^60 = 8388608 TiB) and 2^64 - 1 were written as
# negative sizes.  Nothing is written.
"$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 9223372036854775807B \
  --out "$TMP/bmax/t" >/dev/null
check "--bytes 2^63 - 1: accepted" test -s "$TMP/bmax/t.1.et"
big="comm_size is a signed 64-bit field and holds at most 9223372036854775807 bytes (2^63 - 1)"
refuses "--bytes 2^63" "orrery gen collective: --bytes '8388608TiB': $big" \
  "$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 8388608TiB --out "$TMP/b63/t"
check "--bytes 2^63: nothing written" test ! -e "$TMP/b63"
refuses "--bytes 2^64 - 1" "orrery gen collective: --bytes '18446744073709551615B': $big" \
  "$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 18446744073709551615B \
  --out "$TMP/b64/t"

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

# --packet-size with a network model that sends whole messages (issue hpol
# item 2): only the congestion model cuts packets, so the option would be
# ignored while the user believes it applied.  Refused, naming the option
# and the model in use; 0 (whole messages, every model's way) and the
# congestion model run.
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/ps/ar" >/dev/null
cat >"$TMP/ps.xml" <<'XML'
<cluster name="ps" rounding="ps">
  <network model="MODEL">
    <dim kind="Switch" size="4" bandwidth="100GB/s" latency="1us"/>
  </network>
</cluster>
XML
sed 's/MODEL/analytical/' "$TMP/ps.xml" >"$TMP/ps-a.xml"
psrun () { "$ORRERY" run -q --config "$TMP/ps-a.xml" --workload "$TMP/ps/ar" "$@"; }
refuses "--packet-size, analytical model" \
  "orrery run: --packet-size 4KiB: only the congestion model cuts messages into packets; \
this run's network model is analytical (--network-model congestion, or <network \
model=\"congestion\">)" psrun --packet-size 4KiB
refuses "--packet-size, flow model" \
  "orrery run: --packet-size 64KiB: only the congestion model cuts messages into packets; \
this run's network model is flow (--network-model congestion, or <network \
model=\"congestion\">)" psrun --packet-size 64KiB --network-model flow
psrun --packet-size 0 >/dev/null 2>&1
check "--packet-size 0 (whole messages), analytical model: runs" eq $? 0
psrun --packet-size 4KiB --network-model congestion >/dev/null 2>&1
check "--packet-size 4KiB, --network-model congestion: runs" eq $? 0
# The cluster XML's packet-size= on a network of another model: the same,
# with the file and line.
sed 's/"MODEL"/"flow" packet-size="16KiB"/' "$TMP/ps.xml" >"$TMP/ps-f.xml"
"$ORRERY" run -q --config "$TMP/ps-f.xml" --workload "$TMP/ps/ar" >/dev/null 2>"$TMP/err"
check "packet-size= on a flow <network>: exit status 1" eq "$?" 1
check "packet-size= on a flow <network>: file, line and why" has "$TMP/err" \
  "$TMP/ps-f.xml:2: <network>: packet-size=\"16KiB\": only the congestion model cuts messages \
into packets; this network's model is flow (model=\"congestion\", or no packet-size=)"
# A congestion network's packet-size= stays its own: run with another
# model by --network-model, it is not the run's doing (configs/h100-cluster.xml
# and the training-throughput reproduction).
sed 's/"MODEL"/"congestion" packet-size="16KiB"/' "$TMP/ps.xml" >"$TMP/ps-c.xml"
"$ORRERY" run -q --config "$TMP/ps-c.xml" --workload "$TMP/ps/ar" \
  --network-model analytical >/dev/null 2>&1
check "packet-size= on a congestion <network>, run as analytical: runs" eq $? 0

# scripts/plot with no arguments: its usage, exit status 1 (2 is an
# internal error's).
scripts/plot >/dev/null 2>"$TMP/err"
check "scripts/plot alone: exit status 1" eq "$?" 1
check "scripts/plot alone: its usage" eq "$(head -n 1 "$TMP/err")" \
  "usage: scripts/plot REPORT.json [OUTPUT_PREFIX]"


# <algorithm> rows for collectives NCCL's model prices are ignored with
# library="nccl": said at load (a 1 GiB all-reduce stayed NVLS however the
# row read), with the file and line; rows NCCL runs as point-to-point
# (all-to-all, gather, scatter: the presets') are used, and say nothing.
sed 's|<algorithm collective="all-to-all" dims="direct"/>|&\n    <algorithm collective="all-reduce" dims="halvingDoubling"/>|' \
  configs/hgx-h100.xml >"$TMP/nccl-rows.xml"
"$ORRERY" gen collective --type all_reduce --ranks 8 --bytes 1MiB --out "$TMP/ar8/w" >/dev/null
"$ORRERY" run --config "$TMP/nccl-rows.xml" --workload "$TMP/ar8/w" >/dev/null 2>"$TMP/nr.err"
check "nccl with an all-reduce row: exit 0" eq "$?" 0
check "nccl with an all-reduce row: one warning" eq "$(warns "$TMP/nr.err")" 1
check "nccl with an all-reduce row: warned, with file and line" grep -qxF \
  "orrery run: warning: $TMP/nccl-rows.xml:25: <algorithm collective=\"all-reduce\"> is ignored with library=\"nccl\", whose tuning model picks the algorithm (nccl-algo= narrows its choice)" \
  "$TMP/nr.err"
# plan prices its candidates with the same config: the same warning, once
# (it ignored the row in silence).
"$ORRERY" plan --layers 2 --hidden 1024 --heads 8 --vocab 32000 --seq 512 --global-batch 8 \
  --config "$TMP/nccl-rows.xml" --top 1 --space "tp=8;pp=1;v=1;mb=1;zero=0;recompute=none" \
  >/dev/null 2>"$TMP/np.err"
check "plan, nccl with an all-reduce row: exit 0" eq "$?" 0
check "plan, nccl with an all-reduce row: warned once, with file and line" eq \
  "$(grep -cxF "orrery plan: warning: $TMP/nccl-rows.xml:25: <algorithm collective=\"all-reduce\"> is ignored with library=\"nccl\", whose tuning model picks the algorithm (nccl-algo= narrows its choice)" \
  "$TMP/np.err")" 1
"$ORRERY" run --config configs/hgx-h100.xml --workload "$TMP/ar8/w" >/dev/null 2>"$TMP/nr0.err"
check "the shipped hgx-h100.xml (all-to-all, gather, scatter rows): no warning" \
  eq "$(warns "$TMP/nr0.err")" 0

finish
