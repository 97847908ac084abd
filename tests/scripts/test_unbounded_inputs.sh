#!/usr/bin/env bash
# Tests that unbounded inputs are refused with one clear line and exit 1
# (issue 19, item 4), never held in memory, read forever or aborted on:
# a gzip frame longer than any node (256 MiB: no longer buffered whole);
# devices, pipes and directories given as traces (to run and inspect);
# chunk counts past SYS_SPLITS_MAX in cluster XML and ASTRA-sim JSON; and
# gen / rescale asked for more ranks than run simulates or an output above
# the cap (ORRERY_GEN_MAX_OUTPUT); messages in more packets than the
# congestion model may hold.  Every command runs under `timeout`, so
# that a regression that hangs fails here instead of stalling the suite.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed".  Usage: tests/scripts/test_unbounded_inputs.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

# refused NAME TEXT COMMAND...: COMMAND exits 1 within 30 s, saying TEXT.
refused () {
  local name=$1 text=$2; shift 2
  timeout 30 "$@" >"$TMP/out" 2>&1
  check "$name: exit 1" eq $? 1
  check "$name: says '$text'" has "$TMP/out" "$text"
}

cat >"$TMP/c.xml" <<'EOF'
<?xml version="1.0"?>
<cluster name="two" rounding="ps">
  <network model="analytical">
    <dim kind="Ring" size="2" bandwidth="1GB/s" latency="100ns"/>
  </network>
  <system scheduling="FIFO" endpoint-delay="10ns" active-chunks-per-dim="1"
          splits="SPLITS" local-mem-bw="1000GB/s" reduction-passes="3"/>
</cluster>
EOF
"$ORRERY" gen collective --type all-reduce --ranks 2 --bytes 1MB --out "$TMP/ar" >/dev/null
sed 's/SPLITS/1/' "$TMP/c.xml" >"$TMP/c1.xml"

# gzip traces: a metadata frame, then a frame that claims LENGTH bytes and
# holds ZEROS MiB of zeros.
gz_trace () {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys, zlib
def varint(n):
    out = b''
    while True:
        b, n = n & 0x7f, n >> 7
        if not n:
            return out + bytes([b])
        out += bytes([b | 0x80])
meta = b'\x0a\x05' + b'0.0.4'
co = zlib.compressobj(9, zlib.DEFLATED, 31)
data = co.compress(varint(len(meta)) + meta + varint(int(sys.argv[2])))
for _ in range(int(sys.argv[3])):
    data += co.compress(bytes(1 << 20))
open(sys.argv[1], 'wb').write(data + co.flush())
EOF
}
if command -v python3 >/dev/null; then
  # 300 MiB of real zeros (300 KB compressed): refused before the frame
  # buffer grows to hold them.
  gz_trace "$TMP/big.0.et" $((300 << 20)) 300
  refused "gzip frame of 300 MiB" "frame length 314572800 bytes: longer than 256 MiB" \
    "$ORRERY" inspect "$TMP/big.0.et"
  # 1 TiB claimed by a 30-byte file: where its data ends, as before.
  gz_trace "$TMP/tb.0.et" $((1 << 40)) 0
  refused "gzip frame of 1 TiB" "frame length 1099511627776 runs past end of file (0 bytes left)" \
    "$ORRERY" inspect "$TMP/tb.0.et"
fi

# Devices, pipes and directories as traces.
ln -s /dev/zero "$TMP/zero.0.et"
ln -s /dev/zero "$TMP/zero.1.et"
ln -s /dev/urandom "$TMP/rand.0.et"
ln -s /dev/urandom "$TMP/rand.1.et"
mkfifo "$TMP/fifo.0.et" "$TMP/fifo.1.et"
for t in zero:"a character device" rand:"a character device" fifo:"a pipe (FIFO)"; do
  refused "run on ${t%%:*}" "$TMP/${t%%:*}.0.et: ${t#*:}, not a trace file" \
    "$ORRERY" run --config "$TMP/c1.xml" --workload "$TMP/${t%%:*}"
done
for t in zero:"a character device" fifo:"a pipe (FIFO)"; do
  refused "rescale from ${t%%:*}" "$TMP/${t%%:*}.0.et: ${t#*:}, not a trace file" \
    "$ORRERY" rescale --from "$TMP/${t%%:*}" --ranks 4 --out "$TMP/r"
done
refused "inspect /dev/zero" "/dev/zero: a character device, not a trace file" \
  "$ORRERY" inspect /dev/zero
# plot-data reads a report: a device is refused, not read for ever.
refused "plot-data /dev/zero" "/dev/zero: not a regular file" \
  "$ORRERY" plot-data /dev/zero "$TMP/pd"
refused "inspect a directory" "$TMP: a directory, not a trace file" "$ORRERY" inspect "$TMP"
refused "inspect a prefix of devices" "zero.0.et: a character device" \
  "$ORRERY" inspect "$TMP/zero"

# Chunk counts.
sed 's/SPLITS/4294967295/' "$TMP/c.xml" >"$TMP/c2.xml"
refused "splits 2^32 - 1" "<system>: splits '4294967295' is not a whole number from 1 to 65536" \
  "$ORRERY" run --config "$TMP/c2.xml" --workload "$TMP/ar"
sed 's/SPLITS/65536/' "$TMP/c.xml" >"$TMP/c3.xml"
timeout 60 "$ORRERY" run --config "$TMP/c3.xml" --workload "$TMP/ar" >"$TMP/out" 2>&1
check "splits 65536 runs" eq $? 0
printf 'topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' \
  >"$TMP/n.yml"
sed 's/"preferred-dataset-splits": 4/"preferred-dataset-splits": 1e8/' \
  configs/astra/system_ring_4chunks.json >"$TMP/s.json"
refused "preferred-dataset-splits 1e8" \
  "s.json: 'preferred-dataset-splits': 100000000 chunks per collective: at most 65536" \
  "$ORRERY" run --astra-network "$TMP/n.yml" --astra-system "$TMP/s.json" --workload "$TMP/ar"

# gen and rescale: run's rank limit and the output cap, checked before
# anything is written.
mkdir "$TMP/gen"
refused "gen collective 2^24 + 1 ranks" "16777217 ranks: orrery run simulates at most 16777216" \
  "$ORRERY" gen collective --type all-reduce --ranks 16777217 --bytes 1MB --out "$TMP/gen/x"
refused "gen collective --count 10^8" "above the cap of 4.3 GB: set ORRERY_GEN_MAX_OUTPUT" \
  "$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 1MB --count 100000000 \
  --out "$TMP/gen/x"
refused "gen transformer --layers 10^8" "above the cap of 4.3 GB" \
  "$ORRERY" gen transformer --preset llama2-7b --layers 100000000 --micro-batch 1 \
  --global-batch 8 --tp 2 --pp 2 --dp 2 --out "$TMP/gen/x"
refused "gen transformer 2^26 ranks" "67108864 ranks: orrery run simulates at most" \
  "$ORRERY" gen transformer --preset llama2-7b --micro-batch 1 --global-batch 1048576 \
  --tp 8 --pp 8 --dp 1048576 --out "$TMP/gen/x"
refused "rescale to 2^24 + 1 ranks" "16777217 ranks: orrery run simulates at most" \
  "$ORRERY" rescale --from "$TMP/ar" --ranks 16777217 --out "$TMP/gen/x"
refused "rescale to 2 M ranks" "the output would be about 8.2 GB (2000000 files" \
  "$ORRERY" rescale --from "$TMP/ar" --ranks 2000000 --out "$TMP/gen/x"
check "nothing written by the refusals" eq "$(ls "$TMP/gen" | wc -l)" 0
ORRERY_GEN_MAX_OUTPUT=1MB timeout 30 "$ORRERY" rescale --from "$TMP/ar" --ranks 8 \
  --out "$TMP/gen/y" >"$TMP/out" 2>&1
check "rescale within ORRERY_GEN_MAX_OUTPUT" eq $? 0
refused "rescale above ORRERY_GEN_MAX_OUTPUT" "above the cap of 10.0 kB" \
  env ORRERY_GEN_MAX_OUTPUT=10KB "$ORRERY" rescale --from "$TMP/ar" --ranks 8 --out "$TMP/gen/z"
refused "ORRERY_GEN_MAX_OUTPUT not a size" "ORRERY_GEN_MAX_OUTPUT: 'lots' is not a size" \
  env ORRERY_GEN_MAX_OUTPUT=lots "$ORRERY" rescale --from "$TMP/ar" --ranks 8 --out "$TMP/gen/z"

# Packets: the congestion model holds a message's packets at once, so a
# message may have at most 2^20 of them.  A 1 GiB all-reduce in 1-byte
# packets (2^30 at once: an abort on memory, or hours) is refused at load
# with the smallest packet that fits, 2^30 / 2^20 + 1 = 1025 bytes.
"$ORRERY" gen collective --type all-reduce --ranks 2 --bytes 1GiB --out "$TMP/big" >/dev/null
refused "1-byte packets of a 1 GiB all-reduce" \
  "node 0: a message of up to 1073741824 bytes (its comm_size) makes more than 1048576" \
  "$ORRERY" run -q --config "$TMP/c1.xml" --workload "$TMP/big" --network-model congestion \
  --packet-size 1B
check "1-byte packets: says the smallest packet that fits" has "$TMP/out" \
  "packets of 1 B, the most a message may have (each is held and simulated hop by hop): use"
check "1-byte packets: the smallest is 1025 B" has "$TMP/out" "use --packet-size 1025B or more"
timeout 60 "$ORRERY" run -q --config "$TMP/c1.xml" --workload "$TMP/big" \
  --network-model congestion --packet-size 1025B >"$TMP/out" 2>&1
check "1025-byte packets of a 1 GiB all-reduce run" eq $? 0

finish
