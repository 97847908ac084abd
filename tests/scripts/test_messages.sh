#!/usr/bin/env bash
# test_messages.sh: messages and exit codes through the binary (issue 19,
# item 9): a short option glued to its value works as getopt reads it; a
# key repeated in a JSON object is refused, naming the file and the key;
# libxml2 writes nothing of its own: its message is folded into orrery's
# one line.
. "$(dirname "$0")/lib.sh"
make_tmp
four_rank_cluster "$TMP"
"$ORRERY" gen collective --type all_reduce --ranks 4 --bytes 1MiB --out "$TMP/ar" >/dev/null

# Summaries without the wall-clock lines, which differ from run to run.
summary () { "$@" 2>&1 | grep -v -E 'wall'; }

# -cFILE and -wPREFIX: the same run as "-c FILE -w PREFIX" (once "Unknown option").
glued=$(summary "$ORRERY" run "-c$TMP/cluster.xml" "-w$TMP/ar")
apart=$(summary "$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar")
check "run -cFILE -wPREFIX exits 0" eq "$("$ORRERY" run "-c$TMP/cluster.xml" "-w$TMP/ar" \
  >/dev/null 2>&1; echo $?)" 0
check "run -cFILE prints what -c FILE prints" eq "$glued" "$apart"
check "run -cFILE has a summary" has <(echo "$glued") "simulated time:"
"$ORRERY" gen collective -tall_reduce -n4 -b1MiB "-o$TMP/g" >/dev/null 2>&1
check "gen collective -tKIND -nN -bSIZE -oPREFIX writes the traces" test -f "$TMP/g.3.et"
"$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar" -mbogus >"$TMP/m.out" 2>&1; rc=$?
check "run -mVALUE reaches the option's own check (exit 1)" eq "$rc" 1
check "run -mVALUE is named as a network model" has "$TMP/m.out" "bogus"

# A key twice in one object: refused, naming the file and the key.
printf '{"1": [0, 1], "1": [2, 3]}\n' >"$TMP/groups.json"
"$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar" --comm-groups "$TMP/groups.json" \
  >"$TMP/dup.out" 2>&1; rc=$?
check "--comm-groups with a key twice exits 1" eq "$rc" 1
check "--comm-groups names the file and the key" has "$TMP/dup.out" \
  "$TMP/groups.json: key \"1\" appears twice in one object"
# "1" and "01" are two keys naming one group: refused as the group defined twice.
printf '{"1": [0, 1], "01": [2, 3]}\n' >"$TMP/groups01.json"
"$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar" --comm-groups "$TMP/groups01.json" \
  >"$TMP/dup01.out" 2>&1; rc=$?
check "--comm-groups \"1\" and \"01\" exits 1" eq "$rc" 1
check "--comm-groups \"1\" and \"01\": group 1 defined twice" has "$TMP/dup01.out" \
  "group 1 is defined twice"
# A rank past the run's last: the message names the group and the ranks
# there are (once "process groups name rank 9", no group, no range).
printf '{"1": [0, 1], "2": [2, 9]}\n' >"$TMP/groups9.json"
"$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar" --comm-groups "$TMP/groups9.json" \
  >"$TMP/r9.out" 2>&1; rc=$?
check "--comm-groups naming rank 9 of 4 exits 1" eq "$rc" 1
r9="process group 2 (--comm-groups or the cluster's <groups>) names rank 9,"
check "--comm-groups naming rank 9 of 4 names group 2 and the ranks 0-3" has "$TMP/r9.out" \
  "$r9 but the run has 4 ranks (0-3)"
# --symmetry explain with --links: the reason is --links, not a
# "--symmetry off" that was never given.
"$ORRERY" run -c "$TMP/cluster.xml" -w "$TMP/ar" -m congestion --links "$TMP/l.csv" \
  --symmetry explain >"$TMP/links.out" 2>&1; rc=$?
check "--links --symmetry explain exits 0" eq "$rc" 0
check "--links --symmetry explain gives --links as the reason" has "$TMP/links.out" \
  "symmetry classes: refused: --links counts every rank's messages on its links"
check "--links --symmetry explain does not blame --symmetry off" eq \
  "$(grep -c -e '--symmetry off$' "$TMP/links.out")" 0
mkdir -p "$TMP/astra"
printf 'topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n' \
  >"$TMP/astra/net.yml"
printf '{"scheduling-policy": "LIFO", "endpoint-delay": 10, "endpoint-delay": 10000}\n' \
  >"$TMP/astra/sys.json"
"$ORRERY" run --astra-network "$TMP/astra/net.yml" --astra-system "$TMP/astra/sys.json" \
  -w "$TMP/ar" >"$TMP/sys.out" 2>&1; rc=$?
check "--astra-system with a key twice exits 1" eq "$rc" 1
check "--astra-system names the file and the key" has "$TMP/sys.out" \
  "$TMP/astra/sys.json: key \"endpoint-delay\" appears twice in one object"

# libxml2's own output: none; orrery's line holds its message.
cat >"$TMP/fn.xml" <<EOF2
<sweep name="fn">
  <config path="cluster.xml"/>
  <generate>gen collective --type all_reduce --ranks 4 --bytes 1MiB</generate>
  <grid>
    <param name="bw" select="foo(1)" values="1GB/s"/>
  </grid>
</sweep>
EOF2
"$ORRERY" sweep expand "$TMP/fn.xml" "$TMP/fn.out" >"$TMP/fn.stdout" 2>"$TMP/fn.err"; rc=$?
check "sweep: an unknown XPath function exits 1" eq "$rc" 1
check "sweep: one line on stderr" eq "$(wc -l <"$TMP/fn.err")" 1
check "sweep: the line holds libxml2's reason" has "$TMP/fn.err" \
  "is not an XPath expression (Unregistered function: function foo not found)"
printf '<cluster name="x\303\050"/>\n' >"$TMP/utf8.xml"
"$ORRERY" run -c "$TMP/utf8.xml" -w "$TMP/ar" >/dev/null 2>"$TMP/utf8.err"; rc=$?
check "config not UTF-8 exits 1" eq "$rc" 1
check "config not UTF-8: one line on stderr" eq "$(wc -l <"$TMP/utf8.err")" 1
check "config not UTF-8: names the file and the bytes" has "$TMP/utf8.err" \
  "utf8.xml:1: Input is not proper UTF-8, indicate encoding !; Bytes: 0xC3 0x28"
# A well-formedness error: reported at libxml2's first error, which is the
# mistake (the <dim> left open at line 3, seen at line 4), not at its last
# (recovering, "Premature end of data" at line 7, the file's end).
cat >"$TMP/open.xml" <<'EOF2'
<cluster name="open">
  <network model="analytical">
    <dim kind="Switch" size="4" bandwidth="100GB/s" latency="1us">
  </network>
  <compute model="roofline" peak="100TFLOP/s" mem-bw="1000GB/s"/>
</cluster>
EOF2
"$ORRERY" run -c "$TMP/open.xml" -w "$TMP/ar" >/dev/null 2>"$TMP/open.err"; rc=$?
check "config with a tag left open exits 1" eq "$rc" 1
check "config with a tag left open: libxml2's first error, at line 4" eq \
  "$(cat "$TMP/open.err")" \
  "orrery run: $TMP/open.xml:4: Opening and ending tag mismatch: dim line 3 and network"
# gen transformer --list: each number with its unit; B is billions of
# parameters, so the active count says parameters too (not bytes), and the
# sequence is in tokens (Llama 2's context: 4096 tokens).
"$ORRERY" gen transformer --list >"$TMP/list" 2>&1
check "preset list: llama2-7b's sequence in tokens" has "$TMP/list" "vocab 32000 seq 4096 tokens"
check "preset list: the active count names parameters" \
  sh -c "grep '^mixtral-8x7b ' '$TMP/list' | grep -q 'B parameters active a token)'"
# --help lists the exit statuses a command can return: only a simulation
# deadlocks (3) or reaches a limit (4), so the commands that simulate
# nothing list 0, 1 and 2 (convert, rescale and plot-data listed 3 and 4).
for c in convert rescale plot-data "gen collective" "gen transformer" "gen dlrm" gen; do
  # shellcheck disable=SC2086  # the command's words
  "$ORRERY" $c --help >"$TMP/help" 2>&1
  check "$c --help: exit statuses 0, 1, 2" has "$TMP/help" \
    "Exit status: 0 success, 1 usage or input error, 2 internal error."
  check "$c --help: no deadlock, no limit" test "$(grep -c -E 'deadlock|limit reached' \
    "$TMP/help")" = 0
done
for c in run plan; do
  "$ORRERY" $c --help >"$TMP/help" 2>&1
  check "$c --help: 3 deadlock, 4 a limit" has "$TMP/help" "3 deadlock,
4 a limit reached"
done
finish
