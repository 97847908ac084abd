#!/usr/bin/env bash
# Multi-GPU nodes in generated fabrics and fastest-path routing (issue 21
# item 2), end to end through the binary: a fat-tree and a dragonfly of
# nodes of G GPUs on an NVSwitch (gpus="G") give an all-reduce among one
# node's GPUs NVLink's bus bandwidth; gpus="1" reports exactly what the
# same config without it does; a hand-made graph whose shortest path is
# narrow routes widest then shortest; a run warns once, with a count, when
# traffic between two GPUs of one node must leave the node, and not on
# generated nodes; bad gpus/nvlink attributes are input errors.
# Every expected figure is worked by hand in the comments.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_node_topologies.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

# cluster FILE NETWORK-BODY: a cluster without per-message costs (no
# endpoint delay, no reduction cost, one chunk), analytical unless run says.
cluster () {
  cat >"$1" <<XML
<cluster name="t" rounding="ps">
  <network model="analytical">
$2
  </network>
  <system scheduling="LIFO" endpoint-delay="0ns" active-chunks-per-dim="1" splits="1"
          local-mem-bw="3350GB/s" reduction-passes="0"/>
</cluster>
XML
}
# row FILE: the all_reduce row of a summary, squeezed.
row () { grep -E '^  all_reduce ' "$1" | tr -s ' '; }
simtime () { sed -n 's/^simulated time: //p' "$1"; }

# A k=2 fat-tree of 2 hosts, each a node of 8 GPUs (16 ranks), NICs 50 GB/s,
# NVLink 400 GB/s, no latency.  All-reduce of 8 MB in groups of 8 (one
# node each): a ring of 2 (8-1) = 14 steps of 1 MB, each over GPU ->
# NVSwitch -> GPU at 400 GB/s: 2.5 us, 35 us in all; algbw 8 MB / 35 us =
# 228.57 GB/s, busbw x 2 (8-1)/8 = 400 GB/s, NVLink's (through the NICs it
# would be 50).
cluster "$TMP/ft.xml" '    <fat-tree k="2" gpus="8" bandwidth="50GB/s" latency="0ns"
              nvlink-bandwidth="400GB/s" nvlink-latency="0ns"/>'
"$ORRERY" gen collective --type all_reduce --ranks 16 --bytes 8MB --groups 8 \
  --out "$TMP/ar16" >/dev/null
for m in analytical flow; do
  "$ORRERY" run --config "$TMP/ft.xml" --workload "$TMP/ar16" --network-model $m \
    >"$TMP/ft.$m" 2>"$TMP/ft.$m.err"
  check "fat-tree gpus=8 ($m): exits 0" eq $? 0
  check "fat-tree gpus=8 ($m): 35 us" eq "$(simtime "$TMP/ft.$m")" "35.000 us"
  check "fat-tree gpus=8 ($m): no warning" test "$(grep -c warning "$TMP/ft.$m.err")" = 0
done
check "fat-tree gpus=8: busbw is NVLink's 400 GB/s" has "$TMP/ft.analytical" \
  "228.57       400.00  ring"
check "fat-tree gpus=8: 16 ranks, an (8, NVLink) dimension first" has "$TMP/ft.analytical" \
  "16 ranks = Switch 8 (400.00 GB/s, 0 ns/hop) x Switch 1 (50.00 GB/s"

# A dragonfly of 3 groups of 2 routers, 1 node of 4 GPUs per router (24
# ranks).  All-reduce of 8 MB in groups of 4: 2 (4-1) = 6 steps of 2 MB at
# 400 GB/s, 5 us each: 30 us; busbw 400 GB/s.
cluster "$TMP/df.xml" '    <dragonfly routers="2" ranks-per-router="1" global-links="1" gpus="4"
               local-bandwidth="50GB/s" local-latency="0ns"
               global-bandwidth="25GB/s" global-latency="0ns"
               nvlink-bandwidth="400GB/s" nvlink-latency="0ns"/>'
"$ORRERY" gen collective --type all_reduce --ranks 24 --bytes 8MB --groups 4 \
  --out "$TMP/ar24" >/dev/null
"$ORRERY" run --config "$TMP/df.xml" --workload "$TMP/ar24" >"$TMP/df.out" 2>"$TMP/df.err"
check "dragonfly gpus=4: exits 0" eq $? 0
check "dragonfly gpus=4: 30 us" eq "$(simtime "$TMP/df.out")" "30.000 us"
check "dragonfly gpus=4: busbw is NVLink's 400 GB/s" has "$TMP/df.out" "400.00  ring"
check "dragonfly gpus=4: no warning" test "$(grep -c warning "$TMP/df.err")" = 0

# gpus="1" is today's fabric: the shipped fat-tree config and a dragonfly
# report byte for byte what they do without it (wall times aside).
"$ORRERY" gen collective --type all_reduce --ranks 256 --bytes 1MiB --out "$TMP/ar256" >/dev/null
sed 's/<fat-tree /<fat-tree gpus="1" /' configs/fat-tree-256.xml >"$TMP/ft1.xml"
"$ORRERY" gen collective --type all_to_all --ranks 6 --bytes 1MiB --out "$TMP/a2a6" >/dev/null
cluster "$TMP/df0.xml" '    <dragonfly routers="2" ranks-per-router="1" global-links="1"
               local-bandwidth="50GB/s" local-latency="100ns"
               global-bandwidth="25GB/s" global-latency="1us"/>'
sed 's/<dragonfly /<dragonfly gpus="1" /' "$TMP/df0.xml" >"$TMP/df1.xml"
nowall () { grep -v -E 'wall|events/s'; }
for pair in "configs/fat-tree-256.xml $TMP/ft1.xml ar256" "$TMP/df0.xml $TMP/df1.xml a2a6"; do
  read -r a b w <<<"$pair"
  for m in analytical congestion flow; do
    "$ORRERY" run --config "$a" --workload "$TMP/$w" --network-model $m 2>&1 | nowall >"$TMP/a"
    "$ORRERY" run --config "$b" --workload "$TMP/$w" --network-model $m 2>&1 | nowall >"$TMP/b"
    check "gpus=1 is today's $(basename "$a") ($m)" cmp -s "$TMP/a" "$TMP/b"
  done
done

# Widest then shortest: r0 and r1 joined directly at 10 GB/s (1 hop) and
# through switch s at 100 GB/s (2 hops).  A 2 MB all-reduce on the two is
# 2 steps of 1 MB through s: 10 us each, 20 us (the direct link: 200 us).
cluster "$TMP/narrow.xml" '    <switch id="s"/>
    <link from="r0" to="r1" bandwidth="10GB/s" latency="0ns"/>
    <link from="r0" to="s" bandwidth="100GB/s" latency="0ns"/>
    <link from="s" to="r1" bandwidth="100GB/s" latency="0ns"/>
    <dim kind="Switch" size="2" bandwidth="100GB/s" latency="0ns"/>'
"$ORRERY" gen collective --type all_reduce --ranks 2 --bytes 2MB --out "$TMP/ar2" >/dev/null
for m in analytical congestion flow; do
  "$ORRERY" run --config "$TMP/narrow.xml" --workload "$TMP/ar2" --network-model $m \
    >"$TMP/narrow.$m" 2>&1
  # Congestion stores and forwards: 2 links of 10 us a step, 40 us.
  want="20.000 us"; [ $m = congestion ] && want="40.000 us"
  check "narrow shortcut ($m): the wide way, $want" eq "$(simtime "$TMP/narrow.$m")" "$want"
done

# In-node traffic that must leave the node: 2 nodes of 2 GPUs (the
# innermost dimension, NVLink) whose GPUs only reach a shared NIC switch
# "leaf".  All-reduce of 8 MB in groups of 2: 2 steps of 4 MB at 50 GB/s,
# 80 us each, 160 us; 2 messages a step per group, 8 in all, every one
# through leaf.  Warned once, with the count, under every model and with
# symmetry classes off.
cluster "$TMP/nic.xml" '    <dim kind="Switch" size="2" bandwidth="400GB/s" latency="0ns" link="nvlink"/>
    <dim kind="Switch" size="2" bandwidth="50GB/s" latency="0ns" link="net"/>
    <switch id="leaf"/>
    <link from="r0" to="leaf" bandwidth="50GB/s" latency="0ns"/>
    <link from="r1" to="leaf" bandwidth="50GB/s" latency="0ns"/>
    <link from="r2" to="leaf" bandwidth="50GB/s" latency="0ns"/>
    <link from="r3" to="leaf" bandwidth="50GB/s" latency="0ns"/>'
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 8MB --groups 2 --out "$TMP/ar4" \
  >/dev/null
warn="orrery run: warning: 8 messages between two GPUs of one node left the node (the first: r0 -> r1 through leaf)"
for m in analytical congestion flow; do
  for sym in auto off; do
    "$ORRERY" run --config "$TMP/nic.xml" --workload "$TMP/ar4" --network-model $m \
      --symmetry $sym >"$TMP/nic.out" 2>"$TMP/nic.err"
    check "nic only ($m, symmetry $sym): exits 0" eq $? 0
    check "nic only ($m, symmetry $sym): warned once" eq "$(grep -c warning "$TMP/nic.err")" 1
    check "nic only ($m, symmetry $sym): the count and the pair" has "$TMP/nic.err" "$warn"
  done
done
check "nic only: 160 us at the NIC's 50 GB/s" eq "$(simtime "$TMP/nic.out")" "160.000 us"
# The same graph with an NVSwitch per node: nothing leaves, no warning,
# and the NVSwitch's 400 GB/s: 2 x 4 MB / 400 GB/s = 20 us.
sed 's|<switch id="leaf"/>|<switch id="leaf"/><switch id="nvs0"/><switch id="nvs1"/>\
    <link from="r0" to="nvs0" bandwidth="400GB/s" latency="0ns"/>\
    <link from="r1" to="nvs0" bandwidth="400GB/s" latency="0ns"/>\
    <link from="r2" to="nvs1" bandwidth="400GB/s" latency="0ns"/>\
    <link from="r3" to="nvs1" bandwidth="400GB/s" latency="0ns"/>|' "$TMP/nic.xml" >"$TMP/nvs.xml"
"$ORRERY" run --config "$TMP/nvs.xml" --workload "$TMP/ar4" >"$TMP/nvs.out" 2>"$TMP/nvs.err"
check "with NVSwitches: exits 0" eq $? 0
check "with NVSwitches: no warning" test "$(grep -c warning "$TMP/nvs.err")" = 0
check "with NVSwitches: 20 us" eq "$(simtime "$TMP/nvs.out")" "20.000 us"

# Errors: gpus >= 2 without the NVSwitch's figures; half a link class.
cluster "$TMP/bad1.xml" '    <fat-tree k="2" gpus="8" bandwidth="50GB/s" latency="0ns"/>'
"$ORRERY" run --config "$TMP/bad1.xml" --workload "$TMP/ar16" >/dev/null 2>"$TMP/bad1.err"
check "gpus=8 without nvlink: exit 1" eq $? 1
check "gpus=8 without nvlink: says what is missing" has "$TMP/bad1.err" \
  'bad1.xml:3: fat-tree: gpus="8" needs nvlink-bandwidth and nvlink-latency'
cluster "$TMP/bad2.xml" '    <dragonfly routers="2" ranks-per-router="1" global-links="1" gpus="4"
               local-bandwidth="50GB/s" local-latency="0ns"
               global-bandwidth="25GB/s" global-latency="0ns" nvlink-bandwidth="400GB/s"/>'
"$ORRERY" run --config "$TMP/bad2.xml" --workload "$TMP/ar24" >/dev/null 2>"$TMP/bad2.err"
check "nvlink-bandwidth without nvlink-latency: exit 1" eq $? 1
check "nvlink-bandwidth without nvlink-latency: names it" has "$TMP/bad2.err" "nvlink-latency"
# Too many ranks, refused before the graph is built (it took 14 s and 7 GB
# to refuse 2^25 ranks afterwards): 2 hosts x 2^24 GPUs = 2^25 ranks.
cluster "$TMP/big.xml" '    <fat-tree k="2" gpus="16777216" bandwidth="50GB/s" latency="0ns"
              nvlink-bandwidth="400GB/s" nvlink-latency="0ns"/>'
timeout 20 "$ORRERY" run --config "$TMP/big.xml" --workload "$TMP/ar16" >/dev/null 2>"$TMP/big.err"
check "2^25 ranks: exit 1 at once" eq $? 1
check "2^25 ranks: says the limit" has "$TMP/big.err" \
  'big.xml:4: <fat-tree>: makes 33554432 ranks; at most 16777216'

finish
