# shellcheck shell=bash
# The harness shared by the script tests (tests/scripts/test_*.sh), which
# source it first: `. "$(dirname "$0")/lib.sh"`.  It is not a test itself.
#
# On sourcing: resolves ORRERY (the orrery binary, default build/orrery)
# against the directory the test was started from, exports it, and moves to
# the repository root, where every test then runs.
#
# Provides:
#   check NAME COMMAND...  one check: "ok NAME" or "FAIL NAME", counted
#   finish                 prints "N checks, N failed"; fails if any failed
#   skip REASON...         prints "skip: REASON" and exits 0
#   make_tmp               TMP, a fresh directory named after the test,
#                          removed on exit (a test may replace the trap)
#   has FILE TEXT          FILE holds TEXT
#   eq ACTUAL EXPECTED     the two are equal (both shown on stderr if not)
#   four_rank_cluster DIR  writes DIR/cluster.xml, a 4-rank switch
#   spec FILE SIZES BANDWIDTHS [COUNT]
#                          writes a sweep spec over that cluster
# scripts/run-tests counts the "ok " and "FAIL " lines.

ORRERY=${ORRERY:-build/orrery}
case "$ORRERY" in /*) ;; */*) ORRERY=$PWD/$ORRERY ;; esac
export ORRERY
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1

checks=0 failures=0
# check NAME COMMAND...: one check, passed when COMMAND succeeds.
check () {
  local name=$1; shift
  checks=$((checks + 1))
  if "$@"; then
    echo "ok $name"
  else
    echo "FAIL $name"
    failures=$((failures + 1))
  fi
}

# finish: the closing line; its status is the test's (1 if any check failed).
finish () {
  echo "$checks checks, $failures failed"
  [ "$failures" -eq 0 ]
}

# skip REASON...: the test cannot run here, which is not a failure.
skip () { echo "skip: $*"; exit 0; }

# make_tmp: sets TMP to a new directory under TMPDIR (default /tmp) named
# after the test, and removes it when the test exits.
make_tmp () {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$(basename "$0" .sh).XXXXXX") || exit 1
  trap 'rm -rf "$TMP"' EXIT
}

has () { grep -qF -- "$2" "$1"; }
eq () { [ "$1" = "$2" ] || { echo "  expected '$2', got '$1'" >&2; return 1; }; }

# four_rank_cluster DIR: DIR/cluster.xml, 4 ranks on one switch (analytical
# network), which the specs written by spec refer to.
four_rank_cluster () {
  cat >"$1/cluster.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<cluster name="four" rounding="ps">
  <network model="analytical">
    <dim kind="Switch" size="4" bandwidth="100GB/s" latency="1us"/>
  </network>
  <system scheduling="LIFO" endpoint-delay="10ns" active-chunks-per-dim="1" splits="1">
    <algorithm collective="all-reduce" dims="ring"/>
  </system>
  <compute model="roofline" peak="100TFLOP/s" mem-bw="1000GB/s"/>
</cluster>
EOF
}

# spec FILE SIZES BANDWIDTHS [COUNT]: a sweep named after FILE over the
# cluster.xml beside it, a grid of all-reduces of each size on each
# bandwidth, COUNT of them one after another (orrery's default, 1, if absent).
spec () {
  local name
  name=$(basename "$1" .xml)
  cat >"$1" <<EOF
<sweep name="$name">
  <config path="cluster.xml"/>
  <generate>gen collective --type all_reduce --ranks 4 --bytes {size}${4:+ --count $4}</generate>
  <grid>
    <param name="size" values="$2"/>
    <param name="bw" select="/cluster/network/dim[1]/@bandwidth" values="$3"/>
  </grid>
</sweep>
EOF
}

# refuses NAME MESSAGE COMMAND...: COMMAND exits 1 and its stderr is exactly
# MESSAGE (one line).
refuses () {
  local name=$1 want=$2; shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  check "$name: exit status 1" eq "$?" 1
  check "$name: the message" eq "$(cat "$TMP/err")" "$want"
}
