#!/usr/bin/env bash
# test_plan_user.sh: what a new user met planning a layout and running a
# large model that was wrong, unclear or unhelpful (brief hnew, second
# pass), each fixed and checked here: fail before the fix, pass after.
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP
CFG=configs/hgx-h100.xml

# ---- a model that fits nowhere: how far from fitting, not only "all pruned" -----------
# Llama-3 405B on one 8-GPU H100 node: every split is pruned, 276 of them
# for memory, and the error said only "all 2160 are pruned".  The least
# memory of a split is TP 8 with one stage and one DP rank (ZeRO then
# shards nothing): each GPU holds an eighth of the 405,849,243,648
# parameters at 2 (bf16) + 4 (fp32 gradients) + 12 (Adam's fp32 master,
# m, v) = 18 bytes, 405849243648 x 18 / 8 / 2^30 = 850.4 GiB before
# activations, far above the 79.65 GiB of an H100.
"$ORRERY" plan --model llama3-405b --config "$CFG" --global-batch 8 >"$T/fit.out" 2>&1
check "plan llama3-405b on 8 H100s: exit 1" test $? -eq 1
line=$(grep '^orrery plan: no candidate fits' "$T/fit.out")
gib=$(echo "$line" | sed -n 's/.* for memory is \([0-9.]*\) GiB a GPU (candidate \([0-9]*\).*/\1/p')
id=$(echo "$line" | sed -n 's/.* GiB a GPU (candidate \([0-9]*\):.*/\1/p')
check "  the error says the least memory a split needs and its candidate (got '$gib', '$id')" \
  sh -c "[ -n '$gib' ] && [ -n '$id' ]"
check "  at least the weights, gradients and optimizer: 850.4 GiB (got $gib)" \
  awk -v g="$gib" 'BEGIN { exit !(g >= 405849243648 * 18 / 8 / 2^30 - 0.01) }'
check "  the split named: tp 8, pp 1, dp 1" \
  has "$T/fit.out" "(candidate $id: tp 8, pp 1, v 1, dp 1,"
check "  and the device it passes" has "$T/fit.out" "above the H100-SXM's 79.65 GiB"
# gen transformer's own memory lines for that split give the same total.
"$ORRERY" gen transformer --preset llama3-405b --tp 8 --pp 1 --dp 1 --ranks 8 --micro-batch 1 \
  --global-batch 8 --recompute=full --device H100-SXM --out "$T/g405/x" >"$T/g405.out" 2>&1
check "  gen transformer of that split prints the same $gib GiB" \
  has "$T/g405.out" "total $gib GiB of 79.65 GiB"
# A space pruned by divisibility only names no memory.
"$ORRERY" plan --model llama2-7b --config "$CFG" --global-batch 8 --space "tp=3" \
  >"$T/div.out" 2>&1
check "plan --space tp=3 on 8 GPUs: exit 1, no memory figure" \
  sh -c "test $? -eq 1 && ! grep -q 'for memory' '$T/div.out' \
         && grep -q 'no candidate fits: all 240 are pruned (the reasons above)$' '$T/div.out'"
# ---- sim/README.md's plan example prints what the README shows -----------------------
# The README's table (1.031 s, 74.0 % MFU for the best) had not followed the
# SM-contention compute model (1.045 s, 73.0 %): its command is run as
# written (its --out in the test's folder) and every stdout line the README
# shows after it ("# " lines) must be a line of the output.
awk '/^orrery plan --model llama2-7b --gpus 64 /, /^```/' sim/README.md >"$T/ex.md"
cmd=$(awk '/^orrery plan/ && !/\.\.\./, /--out build\/plan$/' "$T/ex.md" | tr -d '\\\n')
check "the README's plan example is found" test -n "$cmd"
cmd=${cmd#orrery }
cmd=${cmd%--out build/plan}
eval "\"\$ORRERY\" $cmd --out \"\$T/readme-plan\"" >"$T/ex.out" 2>/dev/null
check "  it runs: exit 0" test $? -eq 0
sed -n 's/^# //p' "$T/ex.md" >"$T/ex.want"
missing=$(grep -vxFf "$T/ex.out" "$T/ex.want")
check "  every line the README shows is printed (missing: ${missing:-none})" test -z "$missing"
check "  and it shows the table's three rows" test "$(grep -c '^ *[123] ' "$T/ex.want")" -eq 3
# ---- a count below 1: worded as gen transformer and plan --dlrm word it --------------
# plan said "--global-batch (-8) must be at least 1" and "--gpus (0) ...",
# where gen transformer, plan --dlrm and plan's own --top and --jobs say
# "--global-batch -8: must be at least 1".
"$ORRERY" plan --model llama2-7b --config "$CFG" --global-batch -8 >"$T/gb.out" 2>&1
check "plan --global-batch -8: exit 1, as gen transformer words it" \
  sh -c "test $? -eq 1 && grep -qxF 'orrery plan: --global-batch -8: must be at least 1' '$T/gb.out'"
"$ORRERY" gen transformer --preset llama2-7b --ranks 8 --tp 8 --pp 1 --micro-batch 1 \
  --global-batch -8 --out "$T/gb/x" >"$T/gbgen.out" 2>&1
check "  gen transformer's words for it" has "$T/gbgen.out" "--global-batch -8: must be at least 1"
"$ORRERY" plan --model llama2-7b --config configs/default.xml --global-batch 8 --gpus 0 \
  >"$T/g0.out" 2>&1
check "plan --gpus 0: the same form" \
  sh -c "test $? -eq 1 && grep -qxF 'orrery plan: --gpus 0: must be at least 1' '$T/g0.out'"
# ---- a replayed-compute cluster: the header says what prices the compute -------------
# configs/dgx1.xml replays trace durations, which gen writes as the device's
# roofline at its datasheet peak (efficiencies 1): the header said nothing,
# so a plan there read as the kernel model's.
ONE="tp=8;pp=1;v=1;cp=1;mb=1;zero=0;recompute=none;sched=1f1b"
"$ORRERY" plan --model llama2-7b --config configs/dgx1.xml --device H100-SXM --global-batch 8 \
  --top 1 --space "$ONE" --out "$T/replay" >"$T/replay.out" 2>&1
check "plan on a replay cluster: exit 0" test $? -eq 0
check "  the header names the roofline the traces carry" grep -qF \
  "note: the cluster's <compute> replays the traces' durations, which gen gives as the roofline of H100-SXM (bf16 989.5 TFLOP/s x matrix efficiency 1.00, memory 3.35 TB/s x 1.00)" \
  "$T/replay.out"
"$ORRERY" plan --model llama2-7b --config configs/hgx-h100.xml --global-batch 8 --top 1 \
  --space "$ONE" --out "$T/kernel" >"$T/kernel.out" 2>&1
check "  and a kernel-model cluster's does not" sh -c "! grep -q replays '$T/kernel.out'"
# "--dlrm" after "--" is an argument, not the switch to plan --dlrm (it
# was taken for the switch wherever it stood).
"$ORRERY" plan --model llama2-7b --config configs/default.xml --global-batch 8 -- --dlrm \
  >"$T/dd.out" 2>&1
check "plan ... -- --dlrm: refused as an argument (exit 1)" \
  sh -c "test $? -eq 1 && grep -qF \"unexpected argument '--'\" '$T/dd.out'"
finish
