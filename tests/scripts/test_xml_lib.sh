#!/usr/bin/env bash
# test_xml_lib.sh: libxml2 is opened on first use (sim/app/xml_lib.h), not
# linked: the binary does not need it, a run from ASTRA-sim inputs (YAML and
# JSON) never loads it, and an XML input with a library that cannot be
# loaded fails with exit 1 and a message naming the library, or the symbol
# it lacks, instead of crashing.
#
# The library is replaced through LD_LIBRARY_PATH, which dlopen() searches
# before the system's directories: by a file that is not a library, and by a
# library of one function that has none of libxml2's.
. "$(dirname "$0")/lib.sh"
make_tmp
command -v cc >/dev/null || skip "no C compiler to build the stand-in library"

# The soname the binary asks for: libxml2.so.2, or libxml2.so.16 from 2.14.
so=$(strings "$ORRERY" | grep -m1 -E '^libxml2\.so\.[0-9]+$')
check "binary names libxml2's soname" test -n "$so"
check "binary does not link libxml2" \
  bash -c "! LD_TRACE_LOADED_OBJECTS=1 '$ORRERY' | grep -q libxml2"

four_rank_cluster "$TMP"
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/ar" >/dev/null
"$ORRERY" gen collective --type all_reduce --ranks 32 --bytes 1MiB --out "$TMP/a32" >/dev/null
mkdir "$TMP/junk" "$TMP/empty"
echo "not a library" >"$TMP/junk/$so"
echo 'int orrery_not_libxml2 (void) { return 0; }' >"$TMP/empty/x.c"
cc -shared -fPIC -o "$TMP/empty/$so" "$TMP/empty/x.c"

# run LIBDIR ARGS...: orrery with LIBDIR searched first; status in $TMP/rc,
# stderr in $TMP/err.
run () {
  local dir=$1; shift
  LD_LIBRARY_PATH=$dir "$ORRERY" "$@" >"$TMP/out" 2>"$TMP/err"
  echo $? >"$TMP/rc"
}

check "XML config: it runs with the real library" \
  bash -c "'$ORRERY' run --config '$TMP/cluster.xml' --workload '$TMP/ar' 2>/dev/null \
    | grep -q all_reduce"

run "$TMP/junk" run --config "$TMP/cluster.xml" --workload "$TMP/ar"
check "not a library: exit 1" eq "$(cat "$TMP/rc")" 1
check "not a library: named" has "$TMP/err" \
  "orrery: cannot load libxml2 ($so), which XML inputs need: $TMP/junk/$so"
check "not a library: said once" eq "$(grep -c libxml2 "$TMP/err")" 1

run "$TMP/empty" run --config "$TMP/cluster.xml" --workload "$TMP/ar"
check "no symbol: exit 1" eq "$(cat "$TMP/rc")" 1
check "no symbol: the first one listed named" has "$TMP/err" \
  "orrery: cannot load libxml2 ($so), which XML inputs need: no symbol xmlCtxtGetLastError"

# A sweep spec is XML too: the same message before anything is expanded.
spec "$TMP/s.xml" "1MiB" "100GB/s"
run "$TMP/empty" sweep expand "$TMP/s.xml" "$TMP/sweep"
check "sweep spec: exit 1" eq "$(cat "$TMP/rc")" 1
check "sweep spec: symbol named" has "$TMP/err" "no symbol xmlCtxtGetLastError"
check "sweep spec: nothing expanded" test ! -e "$TMP/sweep"

# ASTRA-sim inputs read no XML: the broken library is never opened.
run "$TMP/junk" run --astra-network configs/astra/switch_4x8.yml \
  --astra-system configs/astra/system_ring_4chunks.json --workload "$TMP/a32"
check "ASTRA-sim inputs: exit 0 without libxml2" eq "$(cat "$TMP/rc")" 0
check "ASTRA-sim inputs: simulated" has "$TMP/out" "all_reduce"
finish
