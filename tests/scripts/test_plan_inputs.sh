#!/usr/bin/env bash
# test_plan_inputs.sh: what a new user of `orrery plan` and `orrery plan
# --dlrm` gets wrong, each said before any simulation, exit 1, naming the
# option and the value, and nothing written outside the outputs asked for
# (brief h18v: the defects found trying the planners as a newcomer).
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP
CFG=configs/hgx-h100.xml
# Two small tables: the 7 baselines of a --budget 0 search take well under
# a second.
printf 'rows,dim,pooling\n4000000,64,20\n100000,64,1\n' >"$T/t.csv"
DLRM=(plan --dlrm --bottom-mlp 13-64 --top-mlp 128-1 --batch 1024 --config "$CFG" --budget 0)

# ---- --device on a kernel-model cluster: the memory limit, not the compute ------------
# configs/hgx-h100.xml prices every compute node with the kernel model as
# H100-SXM (<compute model="kernel" device="H100-SXM"/>); --device A100-80GB
# changes the memory that bounds a plan (79.22 GiB) but not that pricing,
# and the header must say so, as `orrery plan` (transformers) does.
"$ORRERY" "${DLRM[@]}" --tables "$T/t.csv" >"$T/d0.out" 2>/dev/null
"$ORRERY" "${DLRM[@]}" --tables "$T/t.csv" --device A100-80GB >"$T/d1.out" 2>/dev/null
check "plan --dlrm --device A100-80GB runs (exit 0)" test $? -eq 0
check "  the header says --device sets the memory limit, the compute priced as H100-SXM" \
  has "$T/d1.out" "note: --device A100-80GB sets the memory limit"
check "  and names the cluster's device" has "$T/d1.out" "kernels priced as H100-SXM"
t0=$(awk '$1 == "0" && /greedy by size/ { print $(NF - 5), $(NF - 4) }' "$T/d0.out" | head -n 1)
t1=$(awk '$1 == "0" && /greedy by size/ { print $(NF - 5), $(NF - 4) }' "$T/d1.out" | head -n 1)
check "  (baseline 0's time is the same with and without it: $t1)" eq "$t1" "$t0"
check "  no note when --device is the cluster's own" \
  sh -c "! grep -q '^note: --device' '$T/d0.out'"

# ---- --out: a folder that takes no file is said before the search ---------------------
"$ORRERY" "${DLRM[@]}" --tables "$T/t.csv" --out /proc/self >"$T/o1.out" 2>"$T/o1.err"
check "plan --dlrm --out /proc/self: exit 1" test $? -eq 1
check "  named as --out, with the folder" \
  has "$T/o1.err" "--out: cannot create files in /proc/self"
check "  before any simulation (no counts line)" sh -c "! grep -q '^candidates:' '$T/o1.out'"

# ---- --out: a plan that fails or dies leaves no folder -------------------------------
# The folder --out names (and its missing parents) is made when the outputs
# are written, not before the search: tp 16 on 8-GPU nodes prunes every
# candidate (exit 1), and $T/new/a/b, made for the check, is gone with its
# parents.
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$CFG" --out "$T/new/a/b" \
  --space "tp=16;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" >/dev/null 2>&1
check "plan, no candidate fits, --out NEW/a/b: exit 1" test $? -eq 1
check "  and no folder left (not NEW, not NEW/a)" test ! -e "$T/new"
# plan --dlrm killed (SIGTERM) during its search: no folder left either.
{ echo "rows,dim,pooling"; echo "40000000,64,100"
  for i in $(seq 1 60); do echo "$((1000 * i)),64,$((i % 7 + 1))"; done; } >"$T/many.csv"
"$ORRERY" plan --dlrm --tables "$T/many.csv" --bottom-mlp 13-128-64 --top-mlp 256-1 \
  --batch 8192 --config "$CFG" --budget 2000 --exhaustive --out "$T/killed/p" \
  >"$T/k.out" 2>/dev/null &
pid=$!
for _ in $(seq 100); do grep -q '^plan --dlrm:' "$T/k.out" && break; sleep 0.05; done
sleep 0.3 # past the --out check, into the search (2.5 s alone)
kill -TERM "$pid"
wait "$pid"
check "plan --dlrm killed by SIGTERM in its search: died of it" test $? -eq 143
check "  and left no folder" test ! -e "$T/killed"

# ---- --out: never over an input ------------------------------------------------------
# The tables saved as DIR/plan.csv or DIR/plan.txt, then --out DIR: the
# planner would replace them with its own plan.csv or plan.txt.
for name in plan.csv plan.txt; do
  mkdir -p "$T/in-$name"
  cp "$T/t.csv" "$T/in-$name/$name"
  "$ORRERY" "${DLRM[@]}" --tables "$T/in-$name/$name" --out "$T/in-$name" >"$T/i.out" 2>&1
  check "--tables DIR/$name with --out DIR: exit 1" test $? -eq 1
  check "  names --tables and $name" \
    sh -c "grep -q -- '--tables $T/in-$name/$name' '$T/i.out' && grep -q 'is an input' '$T/i.out'"
  check "  the tables are left as they were" cmp -s "$T/t.csv" "$T/in-$name/$name"
done
# orrery plan (transformers): its one output, plan.csv, over --config.
mkdir -p "$T/cfg"
cp "$CFG" "$T/cfg/plan.csv"
"$ORRERY" plan --model llama2-7b --global-batch 8 --config "$T/cfg/plan.csv" \
  --space "tp=8;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b" --out "$T/cfg" >"$T/c.out" 2>&1
check "plan --config DIR/plan.csv --out DIR: exit 1" test $? -eq 1
check "  names --config" has "$T/c.out" "is an input"
check "  the config is left as it was" cmp -s "$CFG" "$T/cfg/plan.csv"
# ---- plan --dlrm takes what gen dlrm takes, no more ----------------------------------
# --mlp-dtype tf32 on a device without a TF32 rate (the H100 preset has
# none): gen dlrm refuses it, so the planner must too (its plan.txt could
# not be made into traces); it priced the GEMMs as bf16 instead.
"$ORRERY" gen dlrm --tables "$T/t.csv" --bottom-mlp 13-64 --top-mlp 128-1 --batch 1024 \
  --ranks 8 --mlp-dtype tf32 --dry-run >"$T/g.out" 2>&1
check "gen dlrm --mlp-dtype tf32 on H100-SXM: refused (exit 1)" test $? -eq 1
"$ORRERY" "${DLRM[@]}" --tables "$T/t.csv" --mlp-dtype tf32 >"$T/p.out" 2>&1
check "plan --dlrm --mlp-dtype tf32 on H100-SXM: refused too (exit 1)" test $? -eq 1
check "  in gen dlrm's words" has "$T/p.out" "--mlp-dtype tf32: a H100-SXM has no TF32 rate"

# ---- an ASTRA-sim file given as --config ---------------------------------------------
# configs/astra/switch_4x8.yml is an ASTRA-sim network config: libxml2's
# "Start tag expected" alone does not say what to do; the message names
# the options that take it.
for cmd in "plan --model llama3-8b --global-batch 8" "run --workload $T/none"; do
  # shellcheck disable=SC2086  # the command's words
  "$ORRERY" $cmd --config configs/astra/switch_4x8.yml >"$T/a.out" 2>&1
  check "${cmd%% *} --config an ASTRA-sim .yml: exit 1" test $? -eq 1
  check "  names --astra-network" \
    has "$T/a.out" "ASTRA-sim's network .yml is orrery run's --astra-network"
done

# ---- gen dlrm --out never over its --tables or --plan ---------------------------------
# An input named like a trace of the set (PREFIX.0.et, or PREFIX.2.et,
# which the write removes as left from a larger set) was replaced or
# removed by the traces.
mkdir -p "$T/ov"
cp "$T/t.csv" "$T/ov/d.0.et"
"$ORRERY" gen dlrm --tables "$T/ov/d.0.et" --bottom-mlp 13-64 --top-mlp 128-1 --batch 64 \
  --ranks 2 --out "$T/ov/d" >"$T/ov.out" 2>&1
check "gen dlrm --tables P.0.et --out P: exit 1" test $? -eq 1
check "  names --tables" has "$T/ov.out" "is an input (--tables $T/ov/d.0.et)"
check "  the tables are left as they were" cmp -s "$T/t.csv" "$T/ov/d.0.et"
cp "$T/t.csv" "$T/ov/t.csv"
printf '0,row_wise\n' >"$T/ov/p.2.et"
"$ORRERY" gen dlrm --tables "$T/ov/t.csv" --plan "$T/ov/p.2.et" --bottom-mlp 13-64 \
  --top-mlp 128-1 --batch 64 --ranks 2 --out "$T/ov/p" >"$T/ov2.out" 2>&1
check "gen dlrm --plan P.2.et --out P (2 ranks): exit 1, named" \
  sh -c "test $? -eq 1 && grep -q -- 'is an input (--plan' '$T/ov2.out'"
check "  the plan file is still there" test -s "$T/ov/p.2.et"

# ---- a model no candidate can make ---------------------------------------------------
# Sizes the generator refuses whatever the split (32 heads do not divide a
# hidden size of 100; 5 kv heads do not divide 32 heads; top-k 4 of 2
# experts): said with the options and values, before the space, instead of
# every candidate "pruned, refused by the generator" with no reason.
TINY=(plan --model llama3-8b --config "$CFG" --global-batch 8 --layers 2
      --space "tp=1,2;pp=1;v=1;mb=1;zero=1;recompute=none;sched=1f1b")
"$ORRERY" "${TINY[@]}" --hidden 100 >"$T/m1.out" 2>&1
check "plan --hidden 100 (llama3-8b's 32 heads): exit 1" test $? -eq 1
check "  says heads must divide hidden, with both values" \
  has "$T/m1.out" "the heads (32) must divide the hidden size (100)"
check "  before the space" sh -c "! grep -q '^space:' '$T/m1.out'"
"$ORRERY" "${TINY[@]}" --kv-heads 5 >"$T/m2.out" 2>&1
check "plan --kv-heads 5 (32 heads): exit 1, named" \
  sh -c "test $? -eq 1 && grep -q 'the kv heads (5) must divide the heads (32)' '$T/m2.out'"
"$ORRERY" "${TINY[@]}" --experts 2 --top-k 4 >"$T/m3.out" 2>&1
check "plan --experts 2 --top-k 4: exit 1, named" \
  sh -c "test $? -eq 1 && grep -q -- '--top-k (4) must be at most --experts (2)' '$T/m3.out'"
finish
