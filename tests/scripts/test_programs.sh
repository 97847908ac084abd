#!/usr/bin/env bash
# test_programs.sh: collective algorithms given as programs, end to end
# through the binary: ASTRA-sim's custom collectives (Chakra traces, its
# shipped example, from SHARED, default ../shared: skipped when absent) and
# MSCCL XML (ASTRA-sim's custom key and the cluster XML's msccl=), against
# hand-worked times and the built-in algorithms; and the errors a program
# that cannot run gets at load.
# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
SHARED=${SHARED:-../shared}
ASTRA=$SHARED/traces/astra-sim

# msccl_ring N: an MSCCL ring all-reduce over N gpus, one thread block each,
# as msccl-tools' allreduce_a100_ring.py writes it (for N = 8 it is the file
# ASTRA-sim ships, custom_allreduce.xml, but for the <algo> line): send own
# chunk, n-1 times receive-reduce and pass on, then pass the reduced chunks
# round (n-1 receives, a send after all but the last).
msccl_ring () {
  local n=$1 r s c k j
  echo "<algo name=\"ring$n\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"$n\"" \
    "ngpus=\"$n\" coll=\"allreduce\" inplace=\"1\">"
  for ((r = 0; r < n; r++)); do
    echo " <gpu id=\"$r\" i_chunks=\"$n\" o_chunks=\"0\" s_chunks=\"0\">"
    echo "  <tb id=\"0\" send=\"$(((r + 1) % n))\" recv=\"$(((r + n - 1) % n))\" chan=\"0\">"
    s=0
    step () {
      echo "   <step s=\"$s\" type=\"$1\" srcbuf=\"i\" srcoff=\"$2\" dstbuf=\"i\"" \
        "dstoff=\"$2\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>"
      s=$((s + 1))
    }
    step s "$r"
    for ((k = 1; k < n; k++)); do c=$(((r - k + n) % n)); step rrc $c; step s $c; done
    for ((j = 0; j < n - 1; j++)); do
      c=$(((r - j + n) % n)); step r $c
      if [ $j -lt $((n - 2)) ]; then step s $c; fi
    done
    echo "  </tb>"
    echo " </gpu>"
  done
  echo "</algo>"
}

# msccl_alltoall N: all pairs, one thread block per peer (send, then receive).
msccl_alltoall () {
  local n=$1 r p t
  echo "<algo name=\"a2a$n\" proto=\"Simple\" nchannels=\"1\" nchunksperloop=\"$n\"" \
    "ngpus=\"$n\" coll=\"alltoall\" inplace=\"0\">"
  for ((r = 0; r < n; r++)); do
    echo " <gpu id=\"$r\" i_chunks=\"$n\" o_chunks=\"$n\" s_chunks=\"0\">"
    t=0
    for ((p = 0; p < n; p++)); do
      [ $p -eq $r ] && continue
      echo "  <tb id=\"$t\" send=\"$p\" recv=\"$p\" chan=\"0\">"
      echo "   <step s=\"0\" type=\"s\" srcbuf=\"i\" srcoff=\"$p\" dstbuf=\"o\"" \
        "dstoff=\"$r\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>"
      echo "   <step s=\"1\" type=\"r\" srcbuf=\"i\" srcoff=\"$r\" dstbuf=\"o\"" \
        "dstoff=\"$p\" cnt=\"1\" depid=\"-1\" deps=\"-1\" hasdep=\"0\"/>"
      echo "  </tb>"
      t=$((t + 1))
    done
    echo " </gpu>"
  done
  echo "</algo>"
}

# msccl_allgather_ring N: the ring all-gather: send own chunk, receive and
# pass on (rcs) n-2 times, receive the last; chunks of the output (n of
# them), each one rank's input.
msccl_allgather_ring () {
  local n=$1 r k c
  echo "<algo name=\"agring$n\" nchunksperloop=\"$n\" ngpus=\"$n\" coll=\"allgather\">"
  for ((r = 0; r < n; r++)); do
    echo " <gpu id=\"$r\" i_chunks=\"1\" o_chunks=\"$n\" s_chunks=\"0\">"
    echo "  <tb id=\"0\" send=\"$(((r + 1) % n))\" recv=\"$(((r + n - 1) % n))\" chan=\"0\">"
    echo "   <step s=\"0\" type=\"s\" srcbuf=\"o\" srcoff=\"$r\" dstbuf=\"o\"" \
      "dstoff=\"$r\" cnt=\"1\"/>"
    for ((k = 1; k < n; k++)); do
      c=$(((r - k + n) % n))
      echo "   <step s=\"$k\" type=\"$([ $k -lt $((n - 1)) ] && echo rcs || echo r)\"" \
        "srcbuf=\"o\" srcoff=\"$c\" dstbuf=\"o\" dstoff=\"$c\" cnt=\"1\"/>"
    done
    echo "  </tb>"
    echo " </gpu>"
  done
  echo "</algo>"
}

# cluster FILE N KIND MODEL DIMKIND ENDPOINT ALGO-ATTRIBUTE
cluster () {
  cat >"$1" <<EOF
<cluster name="c">
  <network model="$4"><dim kind="$5" size="$2" bandwidth="50GiB/s" latency="500ns"/></network>
  <system endpoint-delay="$6" splits="1" local-mem-bw="1600GB/s">
    <algorithm collective="$3" $7/>
  </system>
</cluster>
EOF
}

# finishes CONFIG WORKLOAD [OPTIONS...]: every rank's finish in ps, one line.
finishes () {
  local cfg=$1 wl=$2; shift 2
  "$ORRERY" run --config "$cfg" --workload "$wl" --stats "$TMP/st.csv" "$@" >/dev/null 2>&1 \
    && cut -d, -f2 "$TMP/st.csv" | tail -n +2 | tr '\n' ' '
}

# same N VALUE: VALUE repeated N times, as finishes prints it.
same () { local i; for ((i = 0; i < $1; i++)); do printf '%s ' "$2"; done; }

msccl_ring 8 >"$TMP/ring8.xml"
check "configs/msccl/ring_allreduce_8.xml is the generator's ring" \
  eq "$(sed 1d configs/msccl/ring_allreduce_8.xml)" "$(sed 1d "$TMP/ring8.xml")"
msccl_ring 16 >"$TMP/ring16.xml"
msccl_alltoall 8 >"$TMP/a2a8.xml"
"$ORRERY" gen collective --type all-reduce --ranks 8 --bytes 1MiB --out "$TMP/ar8" >/dev/null
"$ORRERY" gen collective --type all-reduce --ranks 16 --bytes 1MiB --out "$TMP/ar16" >/dev/null
"$ORRERY" gen collective --type all-to-all --ranks 8 --bytes 1MiB --out "$TMP/aa8" >/dev/null

# ---- MSCCL in a cluster XML against the built-in ring and direct ----------
# Ring of 8, 1 MiB all-reduce, one chunk: each of the 2(n-1) = 14 messages
# carries a chunk of 1 MiB / 8 = 131072 B: D = 500 ns + 131072 B / 50 GiB/s
# = 500 ns + 2441406.25 ps, rounded up: 2941407 ps; the first n-1 = 7 reduce
# 3 passes of 131072 B at 1600 GB/s: r = 3 x 81920 ps = 245760 ps; e = 10 ns
# once at the start and once per received message:
#   T = e + 14 (D + e) + 7 r = 10000 + 14 x 2951407 + 7 x 245760
#     = 43050018 ps, the ring's closed form.
for n in 8 16; do
  cluster "$TMP/ring.xml" $n all-reduce analytical Ring 10ns 'dims="ring"'
  cluster "$TMP/msccl.xml" $n all-reduce analytical Ring 10ns "msccl=\"ring$n.xml\""
  ring=$(finishes "$TMP/ring.xml" "$TMP/ar$n")
  check "msccl ring all-reduce = built-in ring, $n ranks" \
    eq "$(finishes "$TMP/msccl.xml" "$TMP/ar$n")" "$ring"
  check "msccl ring, $n ranks, symmetry off" \
    eq "$(finishes "$TMP/msccl.xml" "$TMP/ar$n" --symmetry off)" "$ring"
done
cluster "$TMP/msccl.xml" 8 all-reduce analytical Ring 10ns 'msccl="ring8.xml"'
check "msccl ring 8: hand-worked 43050018 ps" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/ar8")" "$(same 8 43050018)"
# With the NCCL library the program takes NCCL's place for its kind.
sed 's/<system /<system library="nccl" gpu="hopper" /' "$TMP/msccl.xml" >"$TMP/nccl.xml"
check "msccl under library=nccl: the program's time" \
  eq "$(finishes "$TMP/nccl.xml" "$TMP/ar8")" "$(same 8 43050018)"
cluster "$TMP/ring.xml" 8 all-reduce congestion Ring 10ns 'dims="ring"'
cluster "$TMP/msccl.xml" 8 all-reduce congestion Ring 10ns 'msccl="ring8.xml"'
check "msccl ring = ring under the congestion model" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/ar8")" "$(finishes "$TMP/ring.xml" "$TMP/ar8")"
out=$("$ORRERY" run --config "$TMP/msccl.xml" --workload "$TMP/ar8" --timeline "$TMP/tl.json" 2>&1)
check "the report names the program" has <(echo "$out") "msccl:ring8"
check "the timeline names the program" has "$TMP/tl.json" "msccl:ring8"

# All-gather of 128 KiB per rank on the ring of 8: MSCCL's chunk is the
# output (8 x 128 KiB) / 8 = 131072 B, the built-in ring's message each
# rank's input; 7 steps, no reduction: e + 7 (D + e) = 10000 + 7 x 2951407
# = 20669849 ps.
msccl_allgather_ring 8 >"$TMP/ag8.xml"
"$ORRERY" gen collective --type all-gather --ranks 8 --bytes 128KiB --out "$TMP/ag8" >/dev/null
cluster "$TMP/ring.xml" 8 all-gather analytical Ring 10ns 'dims="ring"'
cluster "$TMP/msccl.xml" 8 all-gather analytical Ring 10ns 'msccl="ag8.xml"'
check "msccl ring all-gather = built-in ring" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/ag8")" "$(finishes "$TMP/ring.xml" "$TMP/ag8")"
check "msccl ring all-gather: 20669849 ps" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/ag8")" "$(same 8 20669849)"

# Local steps, on 2 ranks, 1 MiB in 2 chunks of 524288 B: thread block 0
# sends the own chunk; thread block 1 receives the other's, reduces it (re),
# copies it (cpy), then a nop waits for block 0's send (depid/deps).
# e = 10 ns at the start, the send leaves then; D = 500 ns + 524288 B /
# 50 GiB/s = 500 ns + 9765625 ps; the receive ends e after the arrival:
# 10000 + 10265625 + 10000 = 10285625 ps; re: 3 passes of 524288 B at
# 1600 GB/s, 3 x 327680 ps; cpy: one pass, 327680 ps; the nop: nothing.
#   T = 10285625 + 983040 + 327680 = 11596345 ps.
# st S TYPE SRCBUF SRCOFF DSTBUF DSTOFF CNT [MORE]: one <step>.
st () {
  echo "   <step s=\"$1\" type=\"$2\" srcbuf=\"$3\" srcoff=\"$4\" dstbuf=\"$5\"" \
    "dstoff=\"$6\" cnt=\"$7\" $8/>"
}
{
  echo '<algo name="local" nchunksperloop="2" ngpus="2" coll="allreduce">'
  for g in 0 1; do
    o=$((1 - g))
    echo " <gpu id=\"$g\" i_chunks=\"2\" o_chunks=\"0\" s_chunks=\"1\">"
    echo "  <tb id=\"0\" send=\"$o\" recv=\"-1\" chan=\"0\">"
    st 0 s i $g s 0 1
    echo "  </tb><tb id=\"1\" send=\"-1\" recv=\"$o\" chan=\"0\">"
    st 0 r i $o s 0 1
    st 1 re s 0 i $g 1
    st 2 cpy i $g i $o 1
    st 3 nop i 0 i 0 0 'depid="0" deps="0"'
    echo "  </tb> </gpu>"
  done
  echo '</algo>'
} >"$TMP/local.xml"
"$ORRERY" gen collective --type all-reduce --ranks 2 --bytes 1MiB --out "$TMP/ar2" >/dev/null
cluster "$TMP/msccl.xml" 2 all-reduce analytical Ring 10ns 'msccl="local.xml"'
check "re, cpy and nop steps: 11596345 ps" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/ar2")" "$(same 2 11596345)"

# All pairs on a FullyConnected 8: every member sends its 7 chunks of
# 131072 B at once, D = 2941407 ps each.  Direct: a message pays e before it
# leaves, T = e + D.  The program pays e at the start and e per received
# message (the ring's rule): T = e + D + e.  Equal without an endpoint delay.
cluster "$TMP/direct.xml" 8 all-to-all analytical FullyConnected 0ns 'dims="direct"'
cluster "$TMP/msccl.xml" 8 all-to-all analytical FullyConnected 0ns 'msccl="a2a8.xml"'
check "msccl all-pairs all-to-all = direct (e = 0)" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/aa8")" "$(finishes "$TMP/direct.xml" "$TMP/aa8")"
check "all-pairs, e = 0: D = 2941407 ps" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/aa8")" "$(same 8 2941407)"
cluster "$TMP/direct.xml" 8 all-to-all analytical FullyConnected 10ns 'dims="direct"'
cluster "$TMP/msccl.xml" 8 all-to-all analytical FullyConnected 10ns 'msccl="a2a8.xml"'
check "direct, e = 10 ns: e + D" eq "$(finishes "$TMP/direct.xml" "$TMP/aa8")" "$(same 8 2951407)"
check "all-pairs, e = 10 ns: e + D + e" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/aa8")" "$(same 8 2961407)"
check "all-pairs, symmetry off" \
  eq "$(finishes "$TMP/msccl.xml" "$TMP/aa8" --symmetry off)" "$(same 8 2961407)"

# A sweep writes each point's config elsewhere: msccl= is made absolute.
mkdir -p "$TMP/sweep"
cluster "$TMP/sweep/cluster.xml" 8 all-reduce analytical Ring 10ns 'msccl="ring.xml"'
cp "$TMP/ring8.xml" "$TMP/sweep/ring.xml"
cat >"$TMP/sweep/spec.xml" <<'EOF'
<sweep name="s">
  <config path="cluster.xml"/>
  <generate>gen collective --type all_reduce --ranks 8 --bytes {size}</generate>
  <grid><param name="size" values="1MiB"/></grid>
</sweep>
EOF
"$ORRERY" sweep expand "$TMP/sweep/spec.xml" "$TMP/sweep/out" >/dev/null 2>&1
check "a sweep point runs a relative msccl=" \
  sh -c "cd / && \"$ORRERY\" sweep run \"$TMP/sweep/out\" 0 >/dev/null 2>&1"
csv=$("$ORRERY" sweep gather "$TMP/sweep/out" 2>/dev/null)
check "... at the program's time" has "$csv" ",ok,43050,"

# ---- errors at load, or where the collective is met ------------------------
# fails FILE-OR-CONFIG TEXT [WORKLOAD]: run refuses (exit 1) saying TEXT.
fails () {
  local out rc
  out=$("$ORRERY" run --config "$1" --workload "${3:-$TMP/ar8}" 2>&1)
  rc=$?
  [ $rc -eq 1 ] || { echo "  exit $rc: $out" >&2; return 1; }
  case "$out" in *"$2"*) ;; *) echo "  got: $out" >&2; return 1 ;; esac
}
bad () { # bad NAME SED-EXPRESSION TEXT: ring8.xml edited, refused saying TEXT
  sed "$2" "$TMP/ring8.xml" >"$TMP/bad.xml"
  cluster "$TMP/bad_cfg.xml" 8 all-reduce analytical Ring 10ns 'msccl="bad.xml"'
  check "$1" fails "$TMP/bad_cfg.xml" "$3"
}
cluster "$TMP/msccl.xml" 16 all-reduce analytical Ring 10ns 'msccl="ring8.xml"'
check "ngpus vs the group's size" \
  fails "$TMP/msccl.xml" \
  "ring8.xml: the program is written for 8 ranks but this all_reduce's group has 16" "$TMP/ar16"
bad "a peer out of range" '0,/send="1"/s//send="9"/' \
  'bad.xml:3: <tb>: send="9": the peer must be another gpu, 0 to 7'
bad "a send with no matching receive" '/gpu id="1"/,/<\/tb>/{/s="27"/d}' \
  'gpu 0 tb 0 step 26 (s): a send with no matching receive'
bad "an unknown step type" '0,/type="rrc"/s//type="rrx"/' \
  'bad.xml:5: <step>: type="rrx": unknown step type'
bad "an offset past the chunks" '0,/srcoff="0"/s//srcoff="8"/' \
  'bad.xml:4: <step>: srcoff="8" cnt="1": chunks 8 to 8 of buffer i, which has 8 on this gpu'
bad "a dependency on no step" '0,/depid="-1" deps="-1"/s//depid="3" deps="0"/' \
  'depid="3" deps="0": gpu 0 has no such thread block and step'
bad "coll for another kind" 's/coll="allreduce"/coll="allgather"/' \
  'coll="allgather", but it is given for all_reduce'
bad "steps out of order" '0,/<step s="1"/s//<step s="2"/' 's="2": expected 1'
# Two gpus that both receive before they send wait for each other.
cat >"$TMP/bad.xml" <<'EOF'
<algo name="stuck" nchunksperloop="2" ngpus="2" coll="allreduce">
 <gpu id="0" i_chunks="2"><tb id="0" send="1" recv="1" chan="0">
  <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1"/>
  <step s="1" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1"/>
 </tb></gpu>
 <gpu id="1" i_chunks="2"><tb id="0" send="0" recv="0" chan="0">
  <step s="0" type="r" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1"/>
  <step s="1" type="s" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="-1" deps="-1"/>
 </tb></gpu>
</algo>
EOF
cluster "$TMP/bad_cfg.xml" 2 all-reduce analytical Ring 10ns 'msccl="bad.xml"'
check "a cycle is refused at load, naming the steps" fails "$TMP/bad_cfg.xml" \
  "(the program would deadlock): $TMP/bad.xml:3: gpu 0 tb 0 step 0 (r)"
# gpu 0 waits on a cycle between gpus 1 and 2 without being on it: the
# error names the cycle's steps (4 of them), not gpu 0's.
cat >"$TMP/bad.xml" <<'EOF'
<algo name="downstream" nchunksperloop="3" ngpus="3" coll="allreduce">
 <gpu id="0" i_chunks="3"><tb id="0" send="-1" recv="1" chan="0">
  <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1"/>
 </tb></gpu>
 <gpu id="1" i_chunks="3"><tb id="0" send="2" recv="2" chan="0">
  <step s="0" type="r" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1"/>
  <step s="1" type="s" srcbuf="i" srcoff="0" dstbuf="i" dstoff="0" cnt="1" depid="-1" deps="-1"/>
 </tb><tb id="1" send="0" recv="-1" chan="0">
  <step s="0" type="s" srcbuf="i" srcoff="1" dstbuf="i" dstoff="1" cnt="1" depid="0" deps="1"/>
 </tb></gpu>
 <gpu id="2" i_chunks="3"><tb id="0" send="1" recv="1" chan="0">
  <step s="0" type="r" srcbuf="i" srcoff="2" dstbuf="i" dstoff="2" cnt="1" depid="-1" deps="-1"/>
  <step s="1" type="s" srcbuf="i" srcoff="2" dstbuf="i" dstoff="2" cnt="1" depid="-1" deps="-1"/>
 </tb></gpu>
</algo>
EOF
cluster "$TMP/bad_cfg.xml" 3 all-reduce analytical Ring 10ns 'msccl="bad.xml"'
"$ORRERY" gen collective --type all-reduce --ranks 3 --bytes 1MiB --out "$TMP/ar3" >/dev/null
check "a cycle upstream: the cycle's steps are named" fails "$TMP/bad_cfg.xml" \
  "4 operations wait on each other in a cycle of dependencies and messages (the program \
would deadlock): $TMP/bad.xml:6: gpu 1 tb 0 step 0 (r)" "$TMP/ar3"
cluster "$TMP/bad_cfg.xml" 8 all-reduce analytical Ring 10ns 'msccl="none.xml"'
check "a missing file" fails "$TMP/bad_cfg.xml" "none.xml"

# ---- ASTRA-sim's custom key ---------------------------------------------------
cat >"$TMP/Ring_8npus.yml" <<'EOF'
topology: [ Ring ]
npus_count: [ 8 ]
bandwidth: [ 50.0 ]  # GB/s
latency: [ 500.0 ]  # ns
EOF
# astra SYS.json WORKLOAD [OPTIONS...]: the "sys[i] finished" cycles, one line.
astra () {
  local sys=$1 wl=$2; shift 2
  "$ORRERY" run --astra-network "$TMP/Ring_8npus.yml" --astra-system "$sys" --workload "$wl" \
    "$@" 2>/dev/null | sed -n 's/^sys\[[0-9]*\] finished, \([0-9]*\) cycles.*/\1/p' | tr '\n' ' '
}
# The MSCCL ring as ASTRA-sim runs a custom collective: a send is done when
# its data has arrived (D = 500 + 131072 / 53.6870912 = 2941.40625, 2941 ns),
# a receive when its data is in, no endpoint delay; a thread block's steps
# one after another; rrc reduces 3 passes of 131072 B at local-mem-bw 50 GB/s
# (2621.44 ns, truncated: 2621 x 3 = 7863 ns).  Per rank: s, 7 (rrc, s),
# 6 (r, s), r: 14 sends of D, 7 reductions: 14 x 2941 + 7 x 7863 = 96215.
cp "$TMP/ring8.xml" "$TMP/custom8.xml"
echo '{ "preferred-dataset-splits": 1, "local-mem-bw": 50,
  "all-reduce-implementation-custom": ["custom8.xml"] }' >"$TMP/sysx.json"
check "MSCCL through ASTRA-sim's custom key: 96215 ns" \
  eq "$(astra "$TMP/sysx.json" "$TMP/ar8")" "$(same 8 96215)"
echo '{ "all-reduce-implementation-custom": "custom8.xml" }' >"$TMP/sysbad.json"
out=$("$ORRERY" run --astra-network "$TMP/Ring_8npus.yml" --astra-system "$TMP/sysbad.json" \
  --workload "$TMP/ar8" 2>&1)
check "the custom key wants a list of one" \
  has <(echo "$out") "'all-reduce-implementation-custom': expected a list of one trace prefix"
echo '{ "all-reduce-implementation-custom": ["ar8"] }' >"$TMP/syscoll.json"
out=$("$ORRERY" run --astra-network "$TMP/Ring_8npus.yml" --astra-system "$TMP/syscoll.json" \
  --workload "$TMP/ar8" 2>&1)
check "a custom trace holding a collective node is refused" \
  has <(echo "$out") "ar8.0.et: node 0: a COMM_COLL_NODE, which a custom collective does not run"

if [ ! -d "$ASTRA/examples/system/custom_collectives" ]; then
  echo "skip: ASTRA-sim's custom collective example ($ASTRA absent)"
  finish
  exit
fi
# ASTRA-sim's example, custom_ring_allreduce_8npus_1MB: per rank 35 nodes in
# one chain, SEND, RECV, COMP (7 us) seven times, then SEND, RECV seven
# times, every message 131072 B to the next rank.  A send is done when its
# data has arrived, D = 2941 ns (above); the matching receive's data (the
# predecessor's send, issued at the same instant) is in then too; a COMP
# takes 7 x 1000 ns.  T = 7 (D + 7000) + 7 D = 14 x 2941 + 49000 = 90174 ns,
# on both analytical backends (each rank's messages use its own link).
EX=$ASTRA/examples/system/custom_collectives/custom_collective.json
WL=$ASTRA/examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce
check "ASTRA-sim's custom collective example: 90174 ns" eq "$(astra "$EX" "$WL")" "$(same 8 90174)"
check "... congestion-aware" eq "$(astra "$EX" "$WL" -m congestion)" "$(same 8 90174)"
check "... symmetry off" eq "$(astra "$EX" "$WL" --symmetry off)" "$(same 8 90174)"
# Its prefix is relative to ASTRA-sim's root: found from there as well.
WLABS=$(cd "$(dirname "$WL")" && pwd)/all_reduce
check "... run from ASTRA-sim's root" \
  eq "$(cd "$ASTRA" && astra examples/system/custom_collectives/custom_collective.json "$WLABS")" \
  "$(same 8 90174)"
# 16 ranks with 8 files: the error names the file that is missing.
sed 's/8/16/' "$TMP/Ring_8npus.yml" >"$TMP/Ring_16npus.yml"
out=$("$ORRERY" run --astra-network "$TMP/Ring_16npus.yml" --astra-system "$EX" \
  --workload "$TMP/ar16" 2>&1)
check "16 ranks, 8 traces: names the missing trace" \
  has <(echo "$out") "custom_allreduce.8.et is missing"
finish
