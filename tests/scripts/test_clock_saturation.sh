#!/usr/bin/env bash
# Tests that simulated time saturates instead of wrapping (issue 19, item 2):
# a collective whose endpoint delay, link latency or reduction cost takes the
# clock past 2^64 ps ends the run with sim/README.md's clock-overflow report
# (exit 4), never with a false deadlock (exit 3) or an abort.  The delays are
# just below 2^63 ps, where 2 x delay wraps, and 9e18 ps, where a delay added
# to the time of the collective's second step does; every algorithm and link
# model adds times in its own code, so each pair is run.  Prints one "ok
# NAME" or "FAIL NAME" line per check, then "N checks, N failed".
# Usage: tests/scripts/test_clock_saturation.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

OVERFLOW='simulated time overflows the clock (2^64 ps, about 213 days)'

# cluster FILE MODEL ALGO DELAY LATENCY MEMBW: four ranks on a ring.
cluster () {
  cat >"$1" <<EOF
<?xml version="1.0"?>
<cluster name="wrap" rounding="ps">
  <network model="$2">
    <dim kind="Ring" size="4" bandwidth="1GB/s" latency="$5"/>
  </network>
  <system scheduling="FIFO" endpoint-delay="$4" active-chunks-per-dim="1"
          splits="2" local-mem-bw="$6" reduction-passes="3">
    <algorithm collective="all-reduce" dims="$3"/>
  </system>
</cluster>
EOF
}

# overflows NAME ARGS...: orrery run ARGS exits 4 with the overflow report.
overflows () {
  local name=$1; shift
  timeout 60 "$ORRERY" run "$@" >"$TMP/out" 2>&1
  check "$name: exit 4" eq $? 4
  check "$name: the clock-overflow message" has "$TMP/out" "$OVERFLOW"
}

"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 1MB --out "$TMP/ar" >/dev/null

# The two reproducers of the issue: 9e18 ps in cluster XML, 9.2e15 ns in an
# ASTRA-sim system file.
cluster "$TMP/c.xml" analytical ring 9000000000000000000ps 100ns 1000GB/s
overflows "XML endpoint-delay 9e18 ps" --config "$TMP/c.xml" --workload "$TMP/ar"
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n' \
  >"$TMP/n.yml"
sed 's/"endpoint-delay": 10,/"endpoint-delay": 9200000000000000,/' \
  configs/astra/system_ring_4chunks.json >"$TMP/s.json"
check "the ASTRA-sim system file has the delay" has "$TMP/s.json" 9200000000000000
overflows "ASTRA-sim endpoint-delay 9.2e15 ns" \
  --astra-network "$TMP/n.yml" --astra-system "$TMP/s.json" --workload "$TMP/ar"

# Near 2^63 ps (2^63 - 808), in every algorithm and link model, and as a
# link latency and a reduction cost (3 passes over 12.5 GB at 1 B/s of
# memory bandwidth: 3.75e22 ps, where the product wraps).
for model in analytical congestion flow; do
  for algo in ring direct halvingDoubling doubleBinaryTree; do
    cluster "$TMP/c.xml" "$model" "$algo" 9223372036854775000ps 100ns 1000GB/s
    overflows "$model $algo endpoint-delay 2^63 ps" --config "$TMP/c.xml" --workload "$TMP/ar"
    cluster "$TMP/c.xml" "$model" "$algo" 10ns 9223372036854775000ps 1000GB/s
    overflows "$model $algo latency 2^63 ps" --config "$TMP/c.xml" --workload "$TMP/ar"
  done
done
cluster "$TMP/c.xml" analytical ring 10ns 100ns 1B/s
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 100GB --out "$TMP/big" >/dev/null
overflows "reduction at 1 B/s" --config "$TMP/c.xml" --workload "$TMP/big"

# ASTRA-sim's reductions truncate bytes / local-mem-bw to whole ns in double
# precision: at 1e-300 GB/s a pass over 1 MB is 1e312 ns (infinite as a
# double), which was cast out of range and came out as a few ns (a run
# faster than at 1600 GB/s, exit 0).  It saturates.
sed 's/"local-mem-bw": 1600,/"local-mem-bw": 1e-300,/' \
  configs/astra/system_ring_4chunks.json >"$TMP/m.json"
check "the ASTRA-sim system file has the rate" has "$TMP/m.json" 1e-300
overflows "ASTRA-sim local-mem-bw 1e-300 GB/s" \
  --astra-network "$TMP/n.yml" --astra-system "$TMP/m.json" --workload "$TMP/ar"

finish
