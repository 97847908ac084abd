#!/usr/bin/env bash
# test_plan_dlrm.sh: `orrery plan --dlrm` (issue 22): on one huge hot table
# and many small ones the planner splits the huge one (whose lookups, on
# one GPU, make that GPU the slowest), beats every table-wise baseline and
# balances the lookup cost; its plan.txt, run through `gen dlrm --plan` and
# `orrery run`, gives the time it printed; on random table sets (fixed
# seeds) its plan is never slower than greedy table-wise, both simulated
# from files; --jobs 1 and 2 print the same; bad input is named.
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP
CFG=configs/hgx-h100.xml
MLP=(--bottom-mlp 13-128-64 --top-mlp 256-1)

# time_of FILE PATTERN: the time after PATTERN in FILE ("1.733 ms").
time_of () { sed -n "s/.*$2\([0-9.]* [mun]*s\).*/\1/p" "$1" | head -n 1; }

# to_ps "1.733 ms": picoseconds (to compare times printed with units).
to_ps () {
  awk -v t="$1" 'BEGIN { split(t, a, " "); m = -1
    if (a[2] == "s") m = 1e12; if (a[2] == "ms") m = 1e9
    if (a[2] == "us") m = 1e6; if (a[2] == "ns") m = 1e3
    printf "%.0f", a[1] * m }'
}

# ---- one huge hot table, 15 small ones ------------------------------------------------
{ echo "rows,dim,pooling"; echo "40000000,64,100"
  for i in $(seq 1 15); do echo "$((1000 * i)),64,1"; done; } >"$T/huge.csv"
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --budget 8 --out "$T/h" >"$T/h.out" 2>"$T/h.err"
check "plan --dlrm runs (exit 0)" test $? -eq 0
check "it writes plan.txt and plan.csv" test -s "$T/h/plan.txt" -a -s "$T/h/plan.csv"
# Table-wise, the huge table's 8192 x 100 lookups are on one GPU and the 15
# small tables' 8192 each on the others: that GPU's lookup bytes are many
# times the mean (the baselines' max/mean column), so the best splits it.
best_t0=$(awk '$1 == "t0" { print $5 }' "$T/h.out")
check "the huge table is split (row-, column- or table-row-wise): $best_t0" \
  grep -qxE 'row_wise|column_wise|table_row_wise' <<<"$best_t0"
lookup_bal=$(sed -n 's/.*lookup cost \([0-9.]*\),.*/\1/p' "$T/h.out")
check "the best plan's lookup cost is balanced (max/mean $lookup_bal <= 1.10)" \
  awk -v b="$lookup_bal" 'BEGIN { exit !(b != "" && b <= 1.10) }'
greedy_bal=$(awk '$1 == "0" && /greedy by size/ { print $(NF - 1) }' "$T/h.out")
check "greedy table-wise's lookup cost is unbalanced (max/mean $greedy_bal >= 4)" \
  awk -v b="$greedy_bal" 'BEGIN { exit !(b >= 4) }'
best=$(to_ps "$(time_of "$T/h.out" 'iteration ')")
tw_ok=1
for id in 0 1; do
  t=$(awk -v id="$id" '$1 == id { print $(NF - 5), $(NF - 4) }' "$T/h.out" | head -n 1)
  [ "$(to_ps "$t")" -gt "$best" ] || tw_ok=0
done
check "the best is faster than both table-wise baselines" test "$tw_ok" -eq 1
check "the CSV has a row per candidate" \
  eq "$(($(wc -l <"$T/h/plan.csv") - 1))" "$(sed -n 's/^candidates: \([0-9]*\):.*/\1/p' "$T/h.out")"

# plan.txt reproduces the plan: gen dlrm --plan, then orrery run.
"$ORRERY" gen dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --ranks 8 \
  --plan "$T/h/plan.txt" --out "$T/hp/d" >/dev/null 2>&1
"$ORRERY" run --config "$CFG" --workload "$T/hp/d" >"$T/hp.out" 2>&1
check "gen dlrm --plan plan.txt, run, gives the planner's time" \
  eq "$(time_of "$T/hp.out" 'simulated time: ')" "$(time_of "$T/h.out" 'iteration ')"

# ---- --jobs 1 and 2 --------------------------------------------------------------------
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --budget 8 --jobs 2 --out "$T/h2" >"$T/h2.out" 2>/dev/null
sed "s|$T/h2/|$T/h/|g" "$T/h2.out" >"$T/h2.same"
check "--jobs 2 prints what --jobs 1 does" cmp -s "$T/h.out" "$T/h2.same"
check "--jobs 2 writes the same plan.csv" cmp -s "$T/h/plan.csv" "$T/h2/plan.csv"

# ---- random table sets: never slower than greedy table-wise ----------------------------
for seed in 1 2 3; do
  RANDOM=$seed
  { echo "rows,dim,pooling"
    for _ in 1 2 3 4 5 6; do
      echo "$(((RANDOM % 2000 + 1) * 1000)),64,$((RANDOM % 30 + 1))"
    done; } >"$T/r$seed.csv"
  "$ORRERY" plan --dlrm --tables "$T/r$seed.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
    --budget 8 --out "$T/r$seed" >"$T/r$seed.out" 2>/dev/null
  "$ORRERY" gen dlrm --tables "$T/r$seed.csv" "${MLP[@]}" --batch 8192 --ranks 8 \
    --plan "$T/r$seed/plan.txt" --out "$T/rp$seed/d" >/dev/null 2>&1
  "$ORRERY" run --config "$CFG" --workload "$T/rp$seed/d" >"$T/rp$seed.out" 2>&1
  "$ORRERY" gen dlrm --tables "$T/r$seed.csv" "${MLP[@]}" --batch 8192 --ranks 8 \
    --out "$T/rg$seed/d" >/dev/null 2>&1
  "$ORRERY" run --config "$CFG" --workload "$T/rg$seed/d" >"$T/rg$seed.out" 2>&1
  p=$(to_ps "$(time_of "$T/rp$seed.out" 'simulated time: ')")
  g=$(to_ps "$(time_of "$T/rg$seed.out" 'simulated time: ')")
  check "seed $seed: the plan ($p ps) is not slower than greedy table-wise ($g ps)" \
    test -n "$p" -a -n "$g" -a "$p" -gt 0 -a "$p" -le "${g:-0}"
done

# ---- bad input ------------------------------------------------------------------------
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --config "$CFG" >"$T/e1" 2>&1
check "--tables without --batch is refused (exit 1)" test $? -eq 1
check "  and named" has "$T/e1" "--tables needs --batch"
printf 'rows,dim,pooling\n100,64,x\n' >"$T/bad.csv"
"$ORRERY" plan --dlrm --tables "$T/bad.csv" "${MLP[@]}" --batch 8 --config "$CFG" >"$T/e2" 2>&1
check "a bad table line is named FILE:LINE (exit 1)" \
  sh -c "test $? -eq 1 && grep -q 'bad.csv:2' '$T/e2'"
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --batch 100 --config "$CFG" >"$T/e3" 2>&1
check "a batch not a multiple of the GPUs is refused" \
  sh -c "test $? -eq 1 && grep -q 'not a multiple of the 8 GPUs' '$T/e3'"
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config "$CFG" --jobs 0 >"$T/e4" 2>&1
check "--jobs 0 is refused" sh -c "test $? -eq 1 && grep -q 'at least 1' '$T/e4'"
"$ORRERY" plan --dlrm --preset nope --config "$CFG" >"$T/e5" 2>&1
check "an unknown preset is named" \
  sh -c "test $? -eq 1 && grep -q \"unknown preset 'nope'\" '$T/e5'"
finish
