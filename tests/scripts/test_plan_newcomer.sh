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
  "pruned, refused by the generator (the model or micro-batch is too large: its tensors or parameters pass 2^62 bytes): 2"
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
finish
