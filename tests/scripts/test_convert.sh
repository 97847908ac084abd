#!/usr/bin/env bash
# test_convert.sh: Chakra traces in JSON (chakra_jsonizer's form) through
# the binary (issue 20, item 5): `orrery convert IN OUT` between .et and
# JSON, byte-identical round trips on generated and on real traces, JSON
# written the way protobuf's MessageToJson writes it, JSON traces run and
# inspected like .et ones, and bad JSON refused naming the file, the line
# and the node.
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP

# rt FILE: FILE -> JSON -> .et gives FILE's bytes back, and JSON -> JSON
# gives the same JSON.
rt () {
  "$ORRERY" convert "$1" "$T/rt.json" && "$ORRERY" convert "$T/rt.json" "$T/rt.et" \
    && cmp -s "$1" "$T/rt.et" && "$ORRERY" convert "$T/rt.json" "$T/rt2.json" \
    && cmp -s "$T/rt.json" "$T/rt2.json"
}
# rt_set PREFIX: rt on every file of the set; the number that failed.
rt_set () {
  local bad=0 f
  for f in "$1".*.et; do rt "$f" || { echo "  round trip differs: $f" >&2; bad=$((bad + 1)); }; done
  echo $bad
}

# Generated traces: a grouped collective (METADATA), a transformer with
# pipeline, tensor and data parallelism (compute, send/recv, collectives,
# floats and lists in the attributes), gzip output and input.
"$ORRERY" gen collective --type all-gather --ranks 16 --bytes 1MiB --groups 4 --out "$T/c" \
  >/dev/null
"$ORRERY" gen transformer --preset llama2-7b --tp 2 --pp 2 --dp 2 --micro-batch 1 \
  --global-batch 4 --out "$T/tf" >/dev/null
check "gen collective: .et -> JSON -> .et is byte-identical" eq "$(rt_set "$T/c")" 0
check "gen transformer: .et -> JSON -> .et is byte-identical" eq "$(rt_set "$T/tf")" 0
"$ORRERY" convert "$T/tf.0.et" "$T/tf0.json" && "$ORRERY" convert "$T/tf0.json" "$T/tf0.et.gz"
check "JSON -> .et.gz writes gzip" eq "$(head -c 2 "$T/tf0.et.gz" | od -An -tx1 | tr -d ' ')" 1f8b
"$ORRERY" convert "$T/tf0.et.gz" "$T/tf0b.json"
check "a gzip .et reads back as the same JSON" cmp -s "$T/tf0.json" "$T/tf0b.json"

# Real traces (ASTRA-sim's examples and artifacts), when present.
real=$(find ../shared/traces -name '*.et' 2>/dev/null | sort)
if [ -z "$real" ]; then
  echo "skip: no traces under ../shared/traces: real-trace round trips not run"
else
  bad=0 n=0
  for f in $real; do
    n=$((n + 1))
    rt "$f" || { echo "  round trip differs: $f" >&2; bad=$((bad + 1)); }
  done
  check "real traces ($n files): .et -> JSON -> .et is byte-identical" eq "$bad" 0
fi

# A trace as chakra_jsonizer writes it (objects back to back, "}{"), with
# the other spellings protobuf's parser accepts: an id as a number, an enum
# by number, .proto field names, an int64 as a number.
cat >"$T/hand.json" <<'EOF'
{
  "version": "0.0.4",
  "attr": [
    {
      "name": "schema",
      "stringVal": "1.0.2-chakra.0.0.4"
    }
  ]
}{
  "id": "1",
  "name": "## process_group:init ##",
  "type": "METADATA_NODE",
  "inputs": {
    "values": "['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"ranks\": [0, 1, 2, 3]}]']"
  }
}{
  "id": "2",
  "name": "gemm",
  "type": "COMP_NODE",
  "ctrlDeps": ["1"],
  "durationMicros": "5",
  "attr": [
    {"name": "is_cpu_op", "boolVal": false},
    {"name": "num_ops", "int64Val": "1000"},
    {"name": "ratio", "doubleVal": 0.5},
    {"name": "tiny", "doubleVal": 1e-07},
    {"name": "f", "floatVal": 0.1},
    {"name": "dims", "boolList": {"values": [true, false]}},
    {"name": "blob", "bytesVal": "AAEC"},
    {"name": "neg", "sint64Val": "-3"},
    {"name": "big", "uint64Val": "18446744073709551615"},
    {"name": "i32", "int32List": {"values": [1, -2]}}
  ]
}{"id": 3, "name": "ar", "type": 7, "data_deps": ["2"],
  "attr": [{"name": "comm_type", "int64_val": 0}, {"name": "comm_size", "int64Val": 4096}]}
EOF
# The same trace as MessageToJson prints it: lowerCamel names, 64-bit
# integers as strings, enums by name, the shortest repr of each float, a
# oneof member written though zero, one object per message.
cat >"$T/want.json" <<'EOF'
{
  "version": "0.0.4",
  "attr": [
    {
      "name": "schema",
      "stringVal": "1.0.2-chakra.0.0.4"
    }
  ]
}
{
  "id": "1",
  "name": "## process_group:init ##",
  "type": "METADATA_NODE",
  "inputs": {
    "values": "['[{\"pg_name\": \"0\", \"pg_desc\": \"default_pg\", \"ranks\": [0, 1, 2, 3]}]']"
  }
}
{
  "id": "2",
  "name": "gemm",
  "type": "COMP_NODE",
  "ctrlDeps": [
    "1"
  ],
  "durationMicros": "5",
  "attr": [
    {
      "name": "is_cpu_op",
      "boolVal": false
    },
    {
      "name": "num_ops",
      "int64Val": "1000"
    },
    {
      "name": "ratio",
      "doubleVal": 0.5
    },
    {
      "name": "tiny",
      "doubleVal": 1e-07
    },
    {
      "name": "f",
      "floatVal": 0.1
    },
    {
      "name": "dims",
      "boolList": {
        "values": [
          true,
          false
        ]
      }
    },
    {
      "name": "blob",
      "bytesVal": "AAEC"
    },
    {
      "name": "neg",
      "sint64Val": "-3"
    },
    {
      "name": "big",
      "uint64Val": "18446744073709551615"
    },
    {
      "name": "i32",
      "int32List": {
        "values": [
          1,
          -2
        ]
      }
    }
  ]
}
{
  "id": "3",
  "name": "ar",
  "type": "COMM_COLL_NODE",
  "dataDeps": [
    "2"
  ],
  "attr": [
    {
      "name": "comm_type",
      "int64Val": "0"
    },
    {
      "name": "comm_size",
      "int64Val": "4096"
    }
  ]
}
EOF
"$ORRERY" convert "$T/hand.json" "$T/hand.et" && "$ORRERY" convert "$T/hand.et" "$T/hand2.json"
check "jsonizer's form reads; written back as MessageToJson writes it" cmp "$T/hand2.json" \
  "$T/want.json"
# Bytes on the wire, worked by hand: frame 0 is 0x26 (38) bytes: version
# (0a 05 "0.0.4": 7 bytes) and one attr (12 1d, then 29 bytes: name
# 0a 06 "schema", string_val, field 29: ea 01 12 "1.0.2-chakra.0.0.4").
check "the GlobalMetadata frame is the protobuf encoding" eq \
  "$(head -c 10 "$T/hand.et" | od -An -tx1 | tr -d ' \n')" "260a05302e302e34121d"

# A JSON trace set runs and inspects like .et files: COMP 5 us, then a
# ring all-reduce of 4096 bytes on 4 ranks (Ring, 1 GB/s, 100 ns):
# 6 x (100 + 1024) ns = 6.744 us; 11.744 us in all.
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
for r in 0 1 2 3; do cp "$T/hand.json" "$T/js.$r.json"; done
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/js" --report "$T/js.report.json" \
  >"$T/run.out" 2>&1
check "run reads PREFIX.RANK.json" grep -qE '^  finish +11\.744 us +11\.744 us +11\.744 us' \
  "$T/run.out"
check "the report names the JSON files it read" has "$T/js.report.json" "\"path\" : \"$T/js.3.json\""
"$ORRERY" run --config "$T/ring4.xml" --workload "$T/js" --memory-budget 1KiB >"$T/st.out" 2>&1
check "a streamed run reads JSON too" grep -qE '^  finish +11\.744 us' "$T/st.out"
"$ORRERY" inspect "$T/js" >"$T/ins.out" 2>&1
check "inspect reads PREFIX.RANK.json" has "$T/ins.out" "ranks 0-3: 3 nodes"
"$ORRERY" rescale --from "$T/js" --ranks 8 --out "$T/js8" >/dev/null 2>&1
"$ORRERY" inspect "$T/js8" >"$T/ins8.out" 2>&1
check "rescale reads a JSON set (8 .et files out)" has "$T/ins8.out" "ranks 0-7: 3 nodes"

# Bad JSON: exit 1, naming the file, the line (of the object, or json-glib's
# own) and the node.
bad () { # NAME TEXT WANT
  printf '%s' "$2" >"$T/bad.json"
  "$ORRERY" convert "$T/bad.json" "$T/bad.et" >"$T/bad.out" 2>&1
  local rc=$?
  check "$1: exit 1" eq "$rc" 1
  check "$1: says '$3'" has "$T/bad.out" "$3"
}
META='{"version": "0.0.4"}'
bad "unknown field" "$META
{\"id\": \"2\",
 \"fooBar\": 1}" "bad.json:2: node 2: field \"fooBar\": is not a field of the Chakra schema's Node"
bad "unknown attr field" "$META
{\"id\": \"4\", \"attr\": [{\"name\": \"x\", \"int65Val\": \"1\"}]}" \
  "bad.json:2: node 4: field \"int65Val\": is not a field of the Chakra schema's AttributeProto"
bad "parse error" "$META

{\"id\": \"2\",
 \"name\": }" "bad.json:4:"
bad "enum name" "$META
{\"id\": \"5\", \"type\": \"COMPUTE\"}" \
  "bad.json:2: node 5: field \"type\": \"COMPUTE\" is not a NodeType"
bad "uint64 below zero" "$META
{\"id\": \"6\", \"durationMicros\": \"-1\"}" \
  "node 6: field \"durationMicros\": \"-1\" is not an integer"
bad "two oneof values" "$META
{\"id\": \"7\", \"attr\": [{\"name\": \"x\", \"int64Val\": \"1\", \"boolVal\": true}]}" \
  "node 7: field \"boolVal\": is a second value of one oneof"
bad "a field under both names" "$META
{\"id\": \"8\", \"ctrlDeps\": [\"1\"], \"ctrl_deps\": [\"1\"]}" \
  "node 8: field \"ctrl_deps\": is given twice"
bad "not an object" "$META
[1]" "bad.json:2: expected a JSON object"
bad "a key twice" "$META
{\"id\": \"9\", \"name\": \"a\", \"name\": \"b\"}" "key \"name\" appears twice"
deep=$(printf '[%.0s' $(seq 300))
bad "nesting" "$META
{\"id\": \"1\", \"name\": $deep}" "bad.json:2: JSON nested deeper than 256 levels"

# Binary inputs JSON cannot carry, and a file converted onto itself.
printf '\x03\x0a\x01\x31\x05\x08\x01\x90\x03\x01' >"$T/unknown.et"
"$ORRERY" convert "$T/unknown.et" "$T/unknown.json" >"$T/u.out" 2>&1
check "a field the schema lacks: exit 1" eq "$?" 1
check "a field the schema lacks is named" has "$T/u.out" \
  "unknown.et: node 1: field number 50 is not in the Chakra schema's Node"
"$ORRERY" convert "$T/c.0.et" "$T/c.0.et" >"$T/same.out" 2>&1
check "the same file in and out: exit 1" eq "$?" 1
check "the same file in and out: said" has "$T/same.out" \
  "the input and the output are the same file"

# The help.
"$ORRERY" --help >"$T/help.out"
check "orrery --help lists convert" grep -q '^  convert ' "$T/help.out"
"$ORRERY" convert --help >"$T/chelp.out"
check "convert --help says how the form is chosen" has "$T/chelp.out" "chosen by its name"
finish
