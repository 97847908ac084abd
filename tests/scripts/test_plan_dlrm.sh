#!/usr/bin/env bash
# test_plan_dlrm.sh: `orrery plan --dlrm` (issue 22): on one huge hot table
# and many small ones the planner splits the huge one (whose lookups, on
# one GPU, make that GPU the slowest), beats every table-wise baseline and
# balances the lookup cost; its plan.txt, run through `gen dlrm --plan` and
# `orrery run`, gives the time it printed; on random table sets (fixed
# seeds) its plan is never slower than greedy table-wise, both simulated
# from files; --jobs 1 and 2 print the same; the lower bound is never above
# the simulated time (every candidate, --exhaustive), is worked by hand, and
# the bounded search finds what the exhaustive one does while skipping some;
# --explain prints a candidate's plan, balance per GPU and critical path;
# the progress line on a terminal; bad input is named.
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

# ---- the lower bound ------------------------------------------------------------------
# Never above the simulated time: every candidate of the search, all simulated
# (--exhaustive), has bound_ps (plan.csv's last column) > 0 and <= iteration_ps.
# Its --out holds an earlier plan's plan.csv, plot and plan.txt: the plot
# is removed (said), plan.txt replaced (the same as the bounded run's,
# below).
mkdir -p "$T/hx"
for f in plan.txt plan-time-memory.png plan-time-memory.dat; do echo old >"$T/hx/$f"; done
printf 'id,what\n' >"$T/hx/plan.csv"
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --budget 8 --exhaustive --out "$T/hx" >"$T/hx.out" 2>"$T/hx.err"
check "--exhaustive runs (exit 0)" test $? -eq 0
check "--out: the earlier plot removed" test ! -e "$T/hx/plan-time-memory.png" \
  -a ! -e "$T/hx/plan-time-memory.dat"
check "--out: its removal said" has "$T/hx.out" "removed $T/hx/plan-time-memory.png"
check "--out: plan.txt rewritten, not removed" \
  test "$(grep -cF "removed $T/hx/plan.txt" "$T/hx.out")" = 0
check "--exhaustive skips none" has "$T/hx.out" "failed, 0 skipped by the bound"
check "the bound is > 0 and <= the simulated time on every candidate" awk -F, '
  NR > 1 && $4 == "simulated" { n++; if (!($12 > 0 && $12 <= $8)) bad++ }
  END { exit !(n > 0 && bad == 0) }' "$T/hx/plan.csv"
# The bounded search follows the same path: the same best plan, and the
# candidates it skips (bound >= the current plan's time) are slower than it
# in the exhaustive run.
check "bounded and exhaustive: the same best" \
  eq "$(grep '^best:' "$T/h.out")" "$(grep '^best:' "$T/hx.out")"
check "bounded and exhaustive: the same plan.txt" cmp -s "$T/h/plan.txt" "$T/hx/plan.txt"
skipped=$(sed -n 's/.* \([0-9]*\) skipped by the bound$/\1/p' "$T/h.out")
check "the bounded search skips some ($skipped)" test "${skipped:-0}" -gt 0
check "  each one no faster, simulated exhaustively, than the best" awk -F, '
  NR == FNR { if ($4 == "bounded-out") skip[$1] = 1; next }
  FNR > 1 && $4 == "simulated" && (best == "" || $8 < best) { best = $8 }
  FNR > 1 && $1 in skip { n++; t[$1] = $8; if ($4 != "simulated") bad++ }
  END { for (i in t) if (t[i] < best) bad++; exit !(n > 0 && bad == 0) }' \
  "$T/h/plan.csv" "$T/hx/plan.csv"
# By hand: the bound is the busiest GPU's embedding bytes at H100-SXM's
# 3.35 TB/s plus the time of the nodes no plan changes (MLPs, interaction,
# loss); on candidate 7's critical path (--explain below) those six nodes
# run one after another, so that time is the sum of their contributions.
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --explain 0 >"$T/x0.out" 2>/dev/null
check "--explain 0 runs" test $? -eq 0
check "  the bound's bandwidth: H100-SXM's 3350.0 GB/s" has "$T/x0.out" \
  "embedding bytes at 3350.0 GB/s, plus "
mib=$(sed -n "s/.*the busiest GPU's \([0-9.]*\) MiB.*/\1/p" "$T/x0.out")
dense=$(sed -n 's/.*, plus \([0-9.]*\) us of MLPs.*/\1/p' "$T/x0.out")
lb=$(sed -n 's/.*lower bound \([0-9.]* [mun]*s\).*/\1/p' "$T/x0.out")
check "  the bound is bytes / bandwidth + that time ($mib MiB, $dense us; $lb)" awk \
  -v m="$mib" -v d="$dense" -v l="$(to_ps "$lb")" 'BEGIN {
    want = m * 1048576 / 3.35e12 + d * 1e-6
    exit !(m > 0 && d > 0 && l / 1e12 > want * 0.999 && l / 1e12 < want * 1.001) }'

# ---- --explain ------------------------------------------------------------------------
check "--explain 0: the plan per table" has "$T/x0.out" "t0        40000000    64   100.00"
check "  per GPU: 8 rows" eq "$(awk '/^   gpu /{ on = 1; next } /^max over mean/ { on = 0 }
  on' "$T/x0.out" | wc -l)" 8
check "  the critical path" has "$T/x0.out" "critical path: "
check "  the time the search gives it" \
  eq "$(time_of "$T/x0.out" 'iteration ')" \
  "$(awk '$1 == "0" { print $(NF - 5), $(NF - 4) }' "$T/h.out" | head -n 1)"
# A candidate of the local search (id 7, the first neighbour): the same ids
# as plan.csv's, and its time there.
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --budget 8 --explain 7 >"$T/x7.out" 2>/dev/null
what7=$(awk -F, '$1 == 7 { print $2 }' "$T/hx/plan.csv")
check "--explain 7 is plan.csv's candidate 7 ($what7)" has "$T/x7.out" "candidate 7 ($what7)"
ps7=$(awk -F, '$1 == 7 { print $8 }' "$T/hx/plan.csv")
on_path=$(awk '$8 ~ /^(bottom_fwd|inter_fwd|top_fwd|top_bwd|inter_bwd|bottom_bwd)$/ {
  n++; v = $6; if ($7 == "ms") v *= 1000; if ($7 == "ns") v /= 1000; s += v }
  END { if (n == 6) printf "%.3f", s }' "$T/x7.out")
# Communication kernels holding SMs (sm-contention, configs/README.md) can
# only slow them; without it they take exactly the bound's time.
check "  the six dense nodes on its critical path: at least the bound's $dense us ($on_path)" \
  awk -v a="$on_path" -v b="$dense" 'BEGIN { exit !(a != "" && a >= b - 0.01) }'
sed 's|<compute model="kernel"|& sm-contention="off"|' "$CFG" >"$T/off.xml"
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$T/off.xml" \
  --budget 8 --explain 7 >"$T/x7off.out" 2>/dev/null
off_path=$(awk '$8 ~ /^(bottom_fwd|inter_fwd|top_fwd|top_bwd|inter_bwd|bottom_bwd)$/ {
  n++; v = $6; if ($7 == "ms") v *= 1000; if ($7 == "ns") v /= 1000; s += v }
  END { if (n == 6) printf "%.3f", s }' "$T/x7off.out")
check "  sm-contention off: exactly the bound's $dense us ($off_path)" \
  awk -v a="$off_path" -v b="$dense" 'BEGIN { d = a - b; if (d < 0) d = -d
    exit !(a != "" && d <= 0.01) }'
check "  with its simulated time ($ps7 ps, to the 4 digits printed)" awk -v p="$ps7" \
  -v t="$(to_ps "$(time_of "$T/x7.out" 'iteration ')")" \
  'BEGIN { d = t - p; if (d < 0) d = -d; exit !(p > 0 && d <= p * 1e-3) }'
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --budget 8 --explain 100000 >"$T/e6" 2>&1
check "--explain past the search is refused, named" \
  sh -c "test $? -eq 1 && grep -q -- '--explain 100000: the search makes candidates 0 .. ' '$T/e6'"
"$ORRERY" plan --dlrm --tables "$T/huge.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
  --explain -1 >"$T/e7" 2>&1
check "--explain -1 is refused" \
  sh -c "test $? -eq 1 && grep -q -- \"--explain -1: a candidate's id is at least 0\" '$T/e7'"

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
  "$ORRERY" plan --dlrm --tables "$T/r$seed.csv" "${MLP[@]}" --batch 8192 --config "$CFG" \
    --budget 8 --exhaustive --out "$T/rx$seed" >"$T/rx$seed.out" 2>/dev/null
  check "seed $seed: bounded and exhaustive give the same plan" \
    cmp -s "$T/r$seed/plan.txt" "$T/rx$seed/plan.txt"
  check "seed $seed: the bound <= the simulated time on every candidate" awk -F, '
    NR > 1 && $4 == "simulated" { n++; if (!($12 > 0 && $12 <= $8)) bad++ }
    END { exit !(n > 0 && bad == 0) }' "$T/rx$seed/plan.csv"
  p=$(to_ps "$(time_of "$T/rp$seed.out" 'simulated time: ')")
  g=$(to_ps "$(time_of "$T/rg$seed.out" 'simulated time: ')")
  check "seed $seed: the plan ($p ps) is not slower than greedy table-wise ($g ps)" \
    test -n "$p" -a -n "$g" -a "$p" -gt 0 -a "$p" -le "${g:-0}"
done

# ---- the progress line, on a terminal ---------------------------------------------------
# As `orrery plan`'s (test_first_hour.sh): after each batch, the candidates
# tried of the baselines and the budget (7 + 16), the best so far and the
# most the rest can take; nothing into a pipe.  ORRERY_PROGRESS_AFTER=0s
# draws it from the first batch, however fast the machine.
if command -v script >/dev/null 2>&1; then
  prog=("$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config "$CFG" --budget 16
        --exhaustive)
  ORRERY_PROGRESS_AFTER=0s script -qc "$(printf '%q ' "${prog[@]}")" /dev/null >"$T/tty" 2>&1
  tr '\r' '\n' <"$T/tty" >"$T/lines"
  line='^.\[Korrery plan: [0-9]+ of 23 candidates, best [0-9.]+ [mu]?s, '
  line+='at most about [0-9]+ (s|min) left$'
  check "progress: drawn on a terminal" grep -qE "$line" "$T/lines"
  check "progress: nothing drawn into a pipe" eq "$(grep -c 'candidates, best' "$T/hx.err")" 0
else
  echo "skip: progress line (no script(1) to give the run a terminal)"
fi

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
# No plan fits: two tables of 2e9 rows x 128 fp32 are 2 x 953.67 GiB of
# weights, more than 8 x 79.65 GiB whichever way they are cut; every
# baseline is pruned, each reason is printed, and --out still gets plan.csv
# (a header and the 7 baselines).
printf 'rows,dim,pooling\n2000000000,128,1\n2000000000,128,1\n' >"$T/nofit.csv"
"$ORRERY" plan --dlrm --tables "$T/nofit.csv" --bottom-mlp 13-128 --top-mlp 64-1 --batch 1024 \
  --config "$CFG" --out "$T/nf" >"$T/e6" 2>&1
check "no plan fits: exit 1" test $? -eq 1
check "  every baseline's reason is printed" eq "$(grep -c 'pruned: memory: rank' "$T/e6")" 7
check "  and plan.csv is written (7 rows)" eq "$(($(wc -l <"$T/nf/plan.csv") - 1))" 7
: >"$T/afile"
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config "$CFG" --out "$T/afile" >"$T/e7" 2>&1
check "--out naming a file is refused before any simulation" \
  sh -c "test $? -eq 1 && grep -q 'a file of that name is there' '$T/e7' \
         && ! grep -q '^candidates:' '$T/e7'"
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config configs/dgx1.xml >"$T/e8" 2>&1
check "a config without a device says so" \
  sh -c "test $? -eq 1 && grep -q 'dgx1.xml names no device' '$T/e8'"
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config "$CFG" --plan x >"$T/e9" 2>&1
check "gen dlrm's --plan is unknown here, with no self-suggestion" \
  sh -c "test $? -eq 1 && grep -q 'Unknown option --plan\$' '$T/e9'"
# gen dlrm's training options are plan --dlrm's too (the header says them).
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config "$CFG" --emb-optimizer adam \
  --mlp-dtype fp16 --dcn-layers 2 --budget 0 >"$T/e10" 2>&1
check "--emb-optimizer adam, --mlp-dtype, --dcn-layers are taken" \
  sh -c "test $? -eq 0 && grep -q 'fp32 (MLPs fp16)' '$T/e10'"
"$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config "$CFG" --dcn-layers 17 >"$T/e11" 2>&1
check "  and checked as gen dlrm checks them" \
  sh -c "test $? -eq 1 && grep -q -- '--dcn-layers 17: must be 1 .. 16' '$T/e11'"
# ---- --gpus resizing the cluster: said in the header -----------------------------------
# configs/default.xml is 8 nodes of 8 GPUs; --gpus 16 plans on 2 of them,
# which `orrery plan` (the transformer) says after the file's name and
# plan --dlrm did not: its header read as if the file were run as it is.
{ echo "rows,dim,pooling"; echo "1000,64,1"; echo "2000,64,1"; } >"$T/two.csv"
"$ORRERY" plan --dlrm --tables "$T/two.csv" "${MLP[@]}" --batch 1024 \
  --config configs/default.xml --gpus 16 --budget 1 >"$T/rs.out" 2>/dev/null
check "plan --dlrm --gpus 16 on default.xml: exit 0" test $? -eq 0
check "  the header says the last dimension went from 8 to 2" has "$T/rs.out" \
  "on 16 GPUs (configs/default.xml, its last dimension resized from 8 to 2), batch 1024"
"$ORRERY" plan --dlrm --tables "$T/two.csv" "${MLP[@]}" --batch 1024 \
  --config configs/default.xml --budget 1 >"$T/nr.out" 2>/dev/null
check "  without --gpus: the file's name alone" has "$T/nr.out" \
  "on 64 GPUs (configs/default.xml), batch 1024"
finish
