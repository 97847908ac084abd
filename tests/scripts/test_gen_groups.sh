#!/usr/bin/env bash
# test_gen_groups.sh: the process groups `orrery gen` writes, as ASTRA-sim
# reads them (issue 20, item 4).  A METADATA node's list is in the PyTorch
# converter's form, which ASTRA-sim's Workload::issue_pytorch_pg_metadata
# parses by dropping two characters at each end and reading JSON (emulated
# here with Python's json module when python3 is there).  --comm-groups-out
# writes the groups as ASTRA-sim's comm-group JSON instead, and the traces
# carry no METADATA node (ASTRA-sim 518bd51's statistics assert on every
# METADATA node).
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP

# Ring of 4, 1 GB/s, 100 ns per hop: an all-reduce of 4096 bytes on the
# neighbour pairs {0,1} and {2,3} takes 2 x (100 + 2048) ns = 4.296 us.
cat >"$T/ring4.xml" <<'EOF'
<?xml version="1.0"?>
<cluster name="ring" rounding="ps">
  <network model="analytical">
    <dim kind="Ring" size="4" bandwidth="1GB/s" latency="100ns"/>
  </network>
  <system scheduling="FIFO" endpoint-delay="0ns"
          active-chunks-per-dim="1" splits="1" reduction-passes="0"/>
</cluster>
EOF

"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 4KiB --groups 2 --out "$T/m" \
  >/dev/null
"$ORRERY" convert "$T/m.0.et" "$T/m0.json"
want_values='"values": "['"'"'[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, '
want_values+='{\"pg_name\": \"2\", \"ranks\": [2, 3]}]'"'"']"'
check "gen writes the groups in the converter's form" has "$T/m0.json" "$want_values"
if command -v python3 >/dev/null; then
  "$ORRERY" convert "$T/m.0.et" "$T/m0.json"
  astra=$(python3 -c '
import json, sys
nodes = sys.stdin.read().replace("}\n{", "}\x00{").split("\x00")
meta = [json.loads(n) for n in nodes if "METADATA_NODE" in n][0]
v = meta["inputs"]["values"]
print(sorted((g["pg_name"], g["ranks"]) for g in json.loads(v[2:len(v) - 2])))' <"$T/m0.json")
  check "ASTRA-sim's parse (substr (2, n - 4), JSON) reads both groups" eq "$astra" \
    "[('1', [0, 1]), ('2', [2, 3])]"
else
  echo "skip: no python3: ASTRA-sim's parse not emulated"
fi
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/m" >"$T/m.out" 2>&1
check "orrery runs its own form" grep -qE '^  finish +4\.296 us +4\.296 us +4\.296 us' "$T/m.out"

"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 4KiB --groups 2 \
  --comm-groups-out "$T/g.json" --out "$T/g" >/dev/null
check "--comm-groups-out writes ASTRA-sim's comm-group JSON" eq "$(cat "$T/g.json")" '{
  "1": [0, 1],
  "2": [2, 3]
}'
"$ORRERY" inspect "$T/g" >"$T/g.ins"
check "--comm-groups-out: no METADATA node in the traces" has "$T/g.ins" \
  "ranks 0-3: 1 nodes (COMM_COLL 1)"
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/g" --comm-groups "$T/g.json" >"$T/g.out" 2>&1
check "--comm-groups-out: the groups run from the file" \
  grep -qE '^  finish +4\.296 us +4\.296 us +4\.296 us' "$T/g.out"
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/g" >"$T/g2.out" 2>&1
check "--comm-groups-out: without the file, the group is undefined (exit 1)" eq "$?" 1
check "--comm-groups-out: ... and named" has "$T/g2.out" "process group 1 (pg_name) is not defined"

# The transformer: the same groups either way, the same times.
"$ORRERY" gen transformer --preset llama2-7b --tp 2 --pp 2 --dp 1 --micro-batch 1 \
  --global-batch 2 --out "$T/tm" >/dev/null
"$ORRERY" gen transformer --preset llama2-7b --tp 2 --pp 2 --dp 1 --micro-batch 1 \
  --global-batch 2 --comm-groups-out "$T/tg.json" --out "$T/tg" >/dev/null
check "gen transformer --comm-groups-out: TP groups {0,1}, {2,3}" has "$T/tg.json" \
  '"1": [0, 1],'
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/tm" 2>/dev/null | grep finish \
  >"$T/tm.fin"
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/tg" --comm-groups "$T/tg.json" \
  2>/dev/null | grep finish >"$T/tg.fin"
check "gen transformer: METADATA or comm-group file, the same finish" cmp -s "$T/tm.fin" \
  "$T/tg.fin"
check "gen transformer: it ran" test -s "$T/tm.fin"

# --comm-groups-out naming a trace of the set is refused (it replaced the
# trace, exit 0): before anything is written, by any name of the file.
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 4KiB --groups 2 \
  --comm-groups-out "$T/g.0.et" --out "$T/g" >"$T/clash.out" 2>&1
check "--comm-groups-out PREFIX.0.et: exit 1" eq "$?" 1
check "--comm-groups-out PREFIX.0.et: said" has "$T/clash.out" \
  "--comm-groups-out $T/g.0.et names a trace of the set --out $T/g: name another file"
"$ORRERY" inspect "$T/g" >"$T/g.ins2"
check "--comm-groups-out PREFIX.0.et: the traces kept" cmp -s "$T/g.ins" "$T/g.ins2"
mkdir "$T/sub"
"$ORRERY" gen transformer --preset llama2-7b --tp 2 --pp 2 --dp 1 --micro-batch 1 \
  --global-batch 2 --comm-groups-out "$T/sub/../new/tx.3.et" --out "$T/new/tx" >"$T/clash.out" 2>&1
check "gen transformer --comm-groups-out in the set, new folder: exit 1" eq "$?" 1
check "gen transformer: nothing written" test ! -e "$T/new/tx.0.et"
# --comm-groups-out that cannot be written (a folder; a folder that does not
# exist) is said in the path given, before any work: no temporary name
# (NAME.XXXXXX with its letters) in the message, nothing left on disk.
mkdir "$T/bad" "$T/bad/gdir"
for target in "$T/bad/gdir" "$T/bad/nodir/g.json"; do
  "$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 4KiB --groups 2 \
    --comm-groups-out "$target" --out "$T/bad/b" >"$T/bad.out" 2>&1
  check "--comm-groups-out $target: exit 1" eq "$?" 1
  check "--comm-groups-out $target: named as given" has "$T/bad.out" \
    "orrery gen collective: --comm-groups-out $target: "
  check "--comm-groups-out $target: no temporary name" eq "$(grep -c '\.[A-Za-z0-9]\{6\}”' \
    "$T/bad.out")" 0
  check "--comm-groups-out $target: nothing left" eq "$(cd "$T/bad" && find . | sort | \
    tr '\n' ' ')" ". ./gdir "
done
check "--comm-groups-out in a missing folder: why" has "$T/bad.out" \
  "the folder $T/bad/nodir does not exist"
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 4KiB --groups 2 \
  --comm-groups-out "$T/bad/gdir" --out "$T/bad/b" >"$T/bad.out" 2>&1
check "--comm-groups-out FOLDER: why" has "$T/bad.out" "$T/bad/gdir is a folder: name a file"
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 4KiB --groups 2 \
  --comm-groups-out "$T/bad/new/g.json" --out "$T/bad/new/b" >/dev/null 2>&1
check "--comm-groups-out in the folder --out makes: written" test -s "$T/bad/new/g.json"
finish
