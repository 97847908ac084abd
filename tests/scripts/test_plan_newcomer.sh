#!/usr/bin/env bash
# test_plan_newcomer.sh: what a newcomer trying `orrery plan` met that was
# wrong, misleading or unclear (brief hnew), each fixed and checked here:
# fail before the fix, pass after.  Every plan here is a few candidates of
# a small model, well under a second each.
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP
CFG=configs/hgx-h100.xml
ONE="tp=1,2;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b"

# ---- a model too large for the generator: its reason, not "refused" alone ------------
# A sequence of 2e9 tokens makes one micro-batch's attention scores
# b heads s^2 x 8 bytes = 1 x 32 x 4e18 x 8, past the generator's 2^62-byte
# limit whatever the split; every candidate is pruned with the generator's
# own words instead of "refused by the generator" with no reason.
"$ORRERY" plan --model llama2-7b --seq 2000000000 --global-batch 16 --config "$CFG" \
  --space "$ONE" >"$T/big.out" 2>&1
check "plan --seq 2000000000: exit 1 (no candidate fits)" test $? -eq 1
check "  the pruned reason is the generator's, with the limit" \
  has "$T/big.out" \
  "pruned, refused by the generator (the model or micro-batch is too large: its tensors or\
 parameters pass 2^62 bytes): 2"
# ---- a cluster without a device: the file named ---------------------------------------
# configs/dgx1.xml has no <compute> and so no device to bound memory: the
# message said "no device: give --device NAME" without the file.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config configs/dgx1.xml >"$T/dev.out" 2>&1
check "plan --config configs/dgx1.xml (no <compute>): exit 1" test $? -eq 1
check "  names the file and what it lacks" \
  has "$T/dev.out" "configs/dgx1.xml names no device (<compute device=...>): give --device NAME"
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --device FOO >"$T/dev2.out" 2>&1
check "plan --device FOO: exit 1, named as --device" \
  sh -c "test $? -eq 1 && grep -q -- '--device FOO: no such device (one of' '$T/dev2.out'"
# ---- no peak, no MFU: "-" rather than 0.0% -------------------------------------------
# configs/dgx1.xml has no <compute>: the run replays the traces' durations
# and knows no peak (`orrery run` prints no MFU line), so an MFU of 0.0 %
# was not a figure but a missing one.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config configs/dgx1.xml --device A100-80GB \
  --space "tp=2;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" --out "$T/nopeak" \
  >"$T/np.out" 2>/dev/null
check "plan on dgx1.xml --device A100-80GB: exit 0" test $? -eq 0
mfu=$(awk '$1 == "1" && $3 == "2" { print $15 }' "$T/np.out")
check "  the table's MFU is '-' (got '$mfu')" eq "$mfu" "-"
col=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mfu_pct") c = i }
               NR == 2 { print "[" $c "]" }' "$T/nopeak/plan.csv")
check "  plan.csv's mfu_pct is empty (got $col)" eq "$col" "[]"
"$ORRERY" plan --model llama2-7b --global-batch 8 --config configs/default.xml --gpus 8 \
  --space "tp=2;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >"$T/pk.out" 2>/dev/null
mfu=$(awk '$1 == "1" && $3 == "2" { print $15 }' "$T/pk.out")
check "  with a peak (default.xml) the MFU is a percentage (got '$mfu')" \
  sh -c "echo '$mfu' | grep -Eq '^[0-9]+[.][0-9]%$'"
# ---- --explain with --gpus: the run command it prints must run ------------------------
# --gpus 16 plans on configs/default.xml (8 x 8 GPUs) with its last
# dimension resized to 2 nodes; `orrery run --config configs/default.xml`
# then refused the 16 traces (the topology has 64 ranks).  The line now
# says which copy to make; made as it says, the traces of the printed
# command run to the iteration time --explain printed.
EX=(plan --model llama2-7b --gpus 16 --global-batch 32 --config configs/default.xml
    --space "tp=1;pp=2;v=1;mb=1;zero=1;recompute=none;sched=1f1b" --explain 0)
"$ORRERY" "${EX[@]}" >"$T/ex.out" 2>/dev/null
check "plan --gpus 16 --explain 0: exit 0" test $? -eq 0
check "  the run line names the copy to make: last <dim> of size=\"2\"" \
  has "$T/ex.out" 'a copy of configs/default.xml with its last <dim> of size="2" (16 GPUs'
size=$(sed -n 's/.*last <dim> of size="\([0-9]*\)".*/\1/p' "$T/ex.out")
awk -v s="$size" '/<dim / { n = NR } { l[NR] = $0 }
  END { for (i = 1; i <= NR; i++) { if (i == n) sub(/size="[0-9]+"/, "size=\"" s "\"", l[i])
                                    print l[i] } }' configs/default.xml >"$T/c16.xml"
gen=$(sed -n 's/^traces: orrery //p' "$T/ex.out")
# shellcheck disable=SC2086  # the printed command's words
"$ORRERY" ${gen/PREFIX/$T/ex/t} >/dev/null 2>&1
"$ORRERY" run --config "$T/c16.xml" --workload "$T/ex/t" >"$T/run.out" 2>/dev/null
check "  the traces run on that copy (exit 0)" test $? -eq 0
want=$(awk '$1 == "1" && $2 == "0" { print $13, $14 }' "$T/ex.out")
got=$(sed -n 's/^simulated time: //p' "$T/run.out")
check "  to the time --explain printed ($want)" eq "$got" "$want"
"$ORRERY" plan --model llama2-7b --global-batch 8 --config configs/default.xml --gpus 64 \
  --space "tp=8;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" --explain 0 >"$T/ex2.out" 2>&1
check "  without a resize the line names the config itself" \
  has "$T/ex2.out" "then orrery run --config configs/default.xml --workload PREFIX"
# ---- --top 0, --jobs 0: the option at fault alone -----------------------------------
# "--top (0) and --jobs (1) must be at least 1" named both, the good one
# too; plan --dlrm says "--top 0: must be at least 1".
for bad in "--top 0" "--jobs 0" "--top -3"; do
  # shellcheck disable=SC2086  # the option and its value
  "$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" $bad >"$T/tj.out" 2>&1
  check "plan $bad: exit 1, '$bad: must be at least 1' alone" \
    sh -c "test $? -eq 1 && grep -qx -- 'orrery plan: $bad: must be at least 1' '$T/tj.out'"
done
# ---- one simulation is not "1 simulations" --------------------------------------------
"$ORRERY" plan --model llama2-7b --global-batch 8 --config configs/default.xml --gpus 8 \
  --space "tp=8;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >/dev/null 2>"$T/one.err"
check "plan of one candidate: '1 simulation in' on stderr" has "$T/one.err" \
  "orrery plan: 1 simulation in "
# ---- --space: a list too long is said as such -----------------------------------------
# A key takes at most 32 values (PLAN_MAX_VALUES); the 33rd was refused as
# "'33' is not a value of tp (too many values)", though 33 is a fine value.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" \
  --space "tp=$(seq -s, 1 40)" >"$T/long.out" 2>&1
check "plan --space tp=1,...,40: exit 1" test $? -eq 1
check "  says the list is too long, not that 33 is no value" \
  has "$T/long.out" "--space: tp lists more than 32 values ('33' and after)"
# ---- the header says the cluster was resized ------------------------------------------
# "plan: llama2-7b on 16 GPUs (configs/default.xml)" read as if the file
# had 16 GPUs; it has 64 (8 x 8), its last dimension resized to 2 nodes.
check "plan --gpus 16 on default.xml: the header says the resize" \
  has "$T/ex.out" "on 16 GPUs (configs/default.xml, its last dimension resized from 8 to 2),"
check "  and not without one (--gpus 64)" \
  has "$T/ex2.out" "on 64 GPUs (configs/default.xml), global batch"
# ---- --help's example of a resizable cluster resizes ----------------------------------
# The help named configs/h100-cluster.xml as a cluster --gpus resizes; it
# is a <rail> graph and --gpus 64 on it is refused.  Every config the help
# names as resizable must take --gpus of two of its last dimension's nodes
# (the header says the resize; tp=3 prunes every candidate, so nothing is
# simulated).
"$ORRERY" plan --help >"$T/help.out" 2>&1
named=$(sed -n '/resizes a cluster whose shape/,/nodes\./p' "$T/help.out" |
        grep -o 'configs/[a-z0-9-]*\.xml' | sort -u)
check "plan --help names resizable configs (${named//$'\n'/ })" test -n "$named"
for c in $named; do
  inner=$(awk -F'size="' '/<dim / { split($2, a, "\""); s[++n] = a[1] }
          END { p = 1; for (i = 1; i < n; i++) p *= s[i]; print (n >= 2 ? p : 0) }' "$c")
  "$ORRERY" plan --model llama2-7b --global-batch 512 --config "$c" --device H100-SXM \
    --gpus $((2 * inner)) --space "tp=3;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" \
    >"$T/rs.out" 2>&1
  check "  $c (dims, inner $inner) takes --gpus $((2 * inner))" \
    sh -c "test $inner -gt 0 && grep -q 'its last dimension resized from' '$T/rs.out'"
done
# ---- --out under a file: the message sim/README.md shows ------------------------------
# The README said "--out: cannot create DIR: REASON"; the message is the
# one below, which it now shows.
touch "$T/f"
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --space "$ONE" \
  --out "$T/f/sub" >"$T/of.out" 2>&1
check "plan --out FILE/sub: exit 1" test $? -eq 1
check "  as sim/README.md says it" \
  has "$T/of.out" "--out $T/f/sub/plan.csv: cannot make the folder $T/f/sub: Not a directory"
check "  sim/README.md shows that form" \
  has sim/README.md '`--out DIR/plan.csv: cannot make the folder'
# ---- one candidate is not "1 candidates", nor "all 1" ----------------------------------
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" \
  --space "tp=3;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >"$T/one1.out" 2>&1
check "plan of one pruned candidate: 'space: 1 candidate,'" \
  has "$T/one1.out" "space: 1 candidate, 1 pruned"
check "  and 'the one candidate is pruned'" \
  has "$T/one1.out" "no candidate fits: the one candidate is pruned (the reason above)"
# ---- tp wider than a node: how to allow it ---------------------------------------------
# tp=16 on 8-GPU nodes is pruned unless --space says tp-across=yes; the
# pruned line did not say that the space could allow it.
"$ORRERY" plan --model llama2-7b --global-batch 64 --config configs/default.xml \
  --space "tp=16;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >"$T/ta.out" 2>&1
check "plan tp=16 on 8-GPU nodes: the pruned line names tp-across=yes" \
  has "$T/ta.out" "pruned, tp wider than a node: 1 (--space tp-across=yes allows it)"
# ---- --explain of a repeat: it runs, as its twin -------------------------------------
# zero1 with one DP rank is pruned as "same as zero0 (dp 1)": the same
# traces.  --explain refused it as "pruned ... and cannot be generated",
# though gen transformer makes it; explained, it takes its twin's time and
# memory exactly.
TW=(plan --model llama2-7b --global-batch 8 --config configs/default.xml --gpus 8
    --space "tp=8;pp=1;v=1;mb=1;zero=0,1;recompute=none;sched=1f1b")
"$ORRERY" "${TW[@]}" --explain 1 >"$T/tw1.out" 2>&1
check "plan --explain of a repeat (zero1, dp 1): exit 0" test $? -eq 0
check "  says what it repeats" \
  has "$T/tw1.out" "candidate 1 (pruned from the search as same as zero0 (dp 1)):"
"$ORRERY" "${TW[@]}" --explain 0 >"$T/tw0.out" 2>&1
row () { awk '$1 == "1" && $2 == "'"$2"'" { print $13, $14, $17, $18 }' "$1"; }
check "  its time and memory are its twin's ($(row "$T/tw0.out" 0))" \
  eq "$(row "$T/tw1.out" 1)" "$(row "$T/tw0.out" 0)"
# ---- --dtype fp8 on a device without FP8 ----------------------------------------------
# configs/dgx-a100.xml prices kernels on the A100, which has no FP8 rate:
# the kernel model runs its fp8 GEMMs as bf16 (configs/devices/README.md),
# while the header said "fp8 GEMMs" alone.  The H100 has one: no note.
for c in dgx-a100 hgx-h100; do
  "$ORRERY" plan --model llama2-7b --global-batch 8 --config "configs/$c.xml" --dtype fp8 \
    --space "tp=3;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >"$T/f8-$c.out" 2>&1
done
check "plan --dtype fp8 on dgx-a100.xml: the header notes the A100 has no FP8 rate" \
  has "$T/f8-dgx-a100.out" \
  "note: --dtype fp8, but the cluster's A100-80GB has no FP8 rate: the kernel model prices"
check "  no such note on hgx-h100.xml" sh -c "! grep -q 'no FP8 rate' '$T/f8-hgx-h100.out'"
# ---- one stage: 1F1B stands for GPipe, whatever the order of sched= ------------------
# With pp 1 the schedules take the same time, but GPipe holds all 64
# micro-batches' activations (64 x 2.08 GiB, past the 79.65 GiB of an H100)
# where 1F1B holds one's (16.2 GiB in all).  With sched=gpipe,1f1b the
# space's first stood: GPipe, pruned by memory, and 1F1B pruned as its
# repeat: "no candidate fits".  Both orders must now give 1F1B.
for order in "gpipe,1f1b" "1f1b,gpipe"; do
  "$ORRERY" plan --model llama2-7b --global-batch 64 --config configs/default.xml --gpus 8 \
    --space "tp=8;pp=1;v=1;mb=1;zero=0;recompute=none;sched=$order" >"$T/sc.out" 2>&1
  check "plan sched=$order, pp 1: exit 0" test $? -eq 0
  check "  1f1b simulated, gpipe pruned as its repeat" sh -c \
    "awk '\$1 == \"1\" { print \$12 }' '$T/sc.out' | grep -qx 1f1b &&
     grep -q 'pruned, same as 1f1b (pp 1): 1' '$T/sc.out'"
done
# ---- a graph cluster --gpus cannot resize: what to edit, in which file ----------------
# configs/h100-cluster.xml is <rail nodes="16" gpus="8"> (128 GPUs, links a
# graph): 24 GPUs are 24 / 8 = 3 nodes.  The refusal said only "give a
# config of that many GPUs".  configs/fat-tree-256.xml's size is its
# <fat-tree k oversubscription gpus>, on line 11.
"$ORRERY" plan --model llama2-7b --global-batch 24 --config configs/h100-cluster.xml --gpus 24 \
  >"$T/rail.out" 2>&1
check "plan on a rail cluster, --gpus 24: exit 1" test $? -eq 1
check "  says which attribute to set to what, and the file" has "$T/rail.out" \
  'set <rail nodes="3"> (3 nodes of 8 GPUs) on line 23 of configs/h100-cluster.xml'
"$ORRERY" plan --model llama2-7b --global-batch 24 --config configs/fat-tree-256.xml \
  --gpus 24 >"$T/ft.out" 2>&1
check "plan on a fat-tree cluster, --gpus 24: exit 1" test $? -eq 1
check "  names the element, its sizes and the file" has "$T/ft.out" \
  "edit <fat-tree k=... oversubscription=... gpus=...> on line 11 of configs/fat-tree-256.xml"
# ---- --gpus not a multiple of the inner dimensions: the number said ------------------
# configs/three-level-16k.xml is 8 x 32 x 64 GPUs: only the last dimension
# resizes, so --gpus must be a multiple of 8 x 32 = 256; the message said
# "a multiple of the GPUs of all but its last dimension" without 256.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config configs/three-level-16k.xml \
  --gpus 8 >"$T/inner.out" 2>&1
check "plan on three-level-16k.xml --gpus 8: exit 1" test $? -eq 1
check "  gives the multiple, 256" has "$T/inner.out" \
  "--gpus must be a multiple of the 256 GPUs of all but its last dimension"
# ---- plan.csv: no dp on a row whose GPUs tp x pp x cp do not divide ------------------
# 8 GPUs, tp 3: 8 is not a multiple of 3, the candidate is pruned with no
# data-parallel degree; plan.csv said dp 0.  tp 2 gives dp 8 / 2 = 4.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --out "$T/dp" \
  --space "tp=3,2;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >/dev/null 2>&1
check "plan tp=3,2 on 8 GPUs: exit 0" test $? -eq 0
dps=$(awk -F, 'NR > 1 { printf "%s[%s]", $2, $5 }' "$T/dp/plan.csv")
check "  plan.csv's dp: empty for tp 3, 4 for tp 2 (got $dps)" eq "$dps" "3[]2[4]"
# ---- --explain of an id that does not exist: the error alone --------------------------
# The space tp=1,2 has 2 candidates, 0 and 1: --explain 99 printed the
# plan's header on stdout before its error, as if the plan had begun.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --space "$ONE" --explain 99 \
  >"$T/x99.out" 2>"$T/x99.err"
check "plan --explain 99 of 2 candidates: exit 1" test $? -eq 1
check "  nothing on stdout (no header)" test ! -s "$T/x99.out"
check "  the error names the id and the range" has "$T/x99.err" \
  "orrery plan: --explain 99: the candidates are numbered 0 .. 1"
# ---- a number past what an option holds: the range on its side ---------------------
# --gpus is read as a 32-bit int: 99999999999 is past 2^31 - 1 = 2147483647.
# The message quoted GLib's range "-2147483648 .. 2147483647", as if a
# negative count of GPUs were allowed; -99999999999 is past -(2^31 - 1)
# (-2^31 is refused too: it is the mark of an option not given).
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --gpus 99999999999 \
  >"$T/big.out" 2>&1
check "plan --gpus 99999999999: exit 1" test $? -eq 1
check "  too large, at most 2147483647" has "$T/big.out" \
  "orrery plan: --gpus 99999999999: too large (at most 2147483647)"
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --gpus -99999999999 \
  >"$T/neg.out" 2>&1
check "plan --gpus -99999999999: too small, at least -2147483647" has "$T/neg.out" \
  "orrery plan: --gpus -99999999999: too small (at least -2147483647)"
finish
