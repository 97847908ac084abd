#!/usr/bin/env bash
# A differential fuzzer of symmetry classes (workload/replay_classes.c,
# sim/README.md "Groups that repeat node by node"): draws small random
# clusters and workloads, runs each with --symmetry auto and --symmetry off,
# and checks that the two agree byte for byte: the summary on stdout but for
# the lines naming the mode ("symmetric:", "symmetry classes:", "orrery: N
# events in", "orrery: loaded"), and the per-rank CSV (--stats).  Classes
# are meant to give exactly what simulating every rank gives, so any
# difference is a wrong class run (`orrery plan` would rank plans wrongly).
#
# Clusters: configs/rail-1024.xml cut to 2-8 nodes of 4 or 8 GPUs,
# configs/default.xml's 2-D switch with 2-8 GPUs x 2-8 nodes, the single
# nodes configs/dgx-a100.xml and configs/hgx-h100.xml; sometimes NCCL's
# algorithms or protocols narrowed, 1-8 splits, two comm slots, one shared
# comm stream.
# Workloads: `gen transformer` (small models, random tp/pp/dp, interleaving,
# ZeRO 0-3 or the distributed optimizer, recomputation, micro-batch size,
# no sequence parallelism, no DP overlap, small DP buckets, GPipe, MoE, GQA)
# or `gen collective` (every kind, sizes 1 KiB-64 MiB, sub-groups by -g and
# -s, -k 1-3).
#
# Deterministic: the cases follow from the seed alone (bash's RANDOM, seeded).
# Environment: FUZZ_SEED (default 1), FUZZ_CASES (default 200), FUZZ_SECONDS
# (default 60: no case is drawn after that many seconds, so a loaded machine
# runs a shorter prefix of the same sequence), FUZZ_KEEP (a folder: every
# mismatching case's inputs and a repro.sh, run from the repository root,
# are kept there as case-N/; default none), FUZZ_VERBOSE (set: say why gen
# refused a draw).  The mismatches it found, minimised, run after the drawn
# cases every time (fixed since; see the end).
# Prints one "ok" or "FAIL" line per case (the case's commands after it on a
# failure), then "N checks, N failed"; exits 1 if any case failed.
# Usage: tests/scripts/test_symmetry_fuzz.sh   (run by `make test` through
# scripts/run-tests, from the repository root);
# FUZZ_CASES=2000 FUZZ_SEED=7 FUZZ_KEEP=/tmp/fuzz tests/scripts/test_symmetry_fuzz.sh
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp

SEED=${FUZZ_SEED:-1}
CASES=${FUZZ_CASES:-200}
KEEP=${FUZZ_KEEP:-}
BUDGET=${FUZZ_SECONDS:-60}
RANDOM=$SEED

# pick WORD...: one of the words, drawn.
pick () { local a=("$@"); echo "${a[RANDOM % ${#a[@]}]}"; }
# chance N: true one time in N.
chance () { [ $((RANDOM % $1)) -eq 0 ]; }

# switch2 FILE GPUS NODES COMM: configs/default.xml with GPUS x NODES, COMM
# comm slots.
switch2 () {
  sed -e "s/size=\"8\" bandwidth=\"450GB\/s\"/size=\"$2\" bandwidth=\"450GB\/s\"/" \
      -e "s/size=\"8\" bandwidth=\"400Gb\/s\"/size=\"$3\" bandwidth=\"400Gb\/s\"/" \
      -e "s/comm=\"1\"/comm=\"$4\"/" configs/default.xml >"$1"
}

# cluster FILE: draws a cluster into FILE; sets RANKS and GPN (GPUs a node).
cluster () {
  local kind nodes algo
  kind=$(pick rail rail switch switch single)
  case $kind in
    rail)
      nodes=$(pick 2 3 4 6 8); GPN=$(pick 4 8)
      sed -e "s/nodes=\"128\"/nodes=\"$nodes\"/" -e "s/gpus=\"8\"/gpus=\"$GPN\"/" \
        configs/rail-1024.xml >"$1" ;;
    switch)
      nodes=$(pick 2 3 4 8); GPN=$(pick 2 4 8)
      switch2 "$1" "$GPN" "$nodes" 1 ;;
    single)
      nodes=1; GPN=8
      cp "configs/$(pick dgx-a100 hgx-h100).xml" "$1" ;;
  esac
  RANKS=$((nodes * GPN))
  if chance 3; then
    algo=$(pick allreduce:tree allreduce:ring tree ring '^tree')
    sed -i -e "s/library=\"nccl\"/library=\"nccl\" nccl-algo=\"$algo\"/" "$1"
  fi
  chance 4 && sed -i -e "s/nccl\"/nccl\" nccl-proto=\"$(pick '^LL128' Simple LL)\"/" "$1"
  chance 4 && sed -i -e "s/splits=\"4\"/splits=\"$(pick 1 2 8)\"/" "$1"
  chance 4 && sed -i -e 's/comm="1"/comm="2"/' "$1"
  chance 3 && sed -i -e 's/comm-streams="separate"/comm-streams="shared"/' "$1"
  return 0
}

# divisor N MAX: a random divisor of N, at most MAX, from 1 2 3 4 8.
divisor () {
  local d ds=()
  for d in 1 2 3 4 8; do
    [ "$d" -le "$2" ] && [ $(($1 % d)) -eq 0 ] && ds+=("$d")
  done
  pick "${ds[@]}"
}

# transformer PREFIX: draws a transformer over RANKS ranks into PREFIX; the
# arguments into GEN.
transformer () {
  local tp pp dp mb m layers hidden heads zero v=1
  tp=$(divisor "$RANKS" "$GPN")
  pp=$(divisor $((RANKS / tp)) 4)
  dp=$((RANKS / tp / pp))
  layers=$(pick 2 4); [ "$layers" -lt "$pp" ] && layers=$((pp * $(pick 1 2)))
  hidden=$(pick 256 384 512); heads=$(pick 4 8)
  [ "$tp" -eq 3 ] && { hidden=384; heads=$(pick 6 12); }
  [ "$tp" -eq 8 ] && heads=8
  mb=$(pick 1 1 2)
  m=$((pp > 1 ? pp * $(pick 1 2) : $(pick 1 2)))
  GEN=(gen transformer --layers "$layers" --hidden "$hidden" --heads "$heads"
       --vocab 1024 --seq "$(pick 128 256)" --micro-batch "$mb" --tp "$tp" --pp "$pp"
       --dp "$dp" --global-batch $((mb * m * dp)))
  if [ "$pp" -gt 1 ] && [ $((layers % (pp * 2))) -eq 0 ] && chance 3; then
    v=2; GEN+=(--virtual-stages 2)
  fi
  zero=$(pick 0 0 1 2 3)
  if chance 4; then GEN+=(--distributed-optimizer); zero=-1
  else GEN+=(--zero "$zero"); fi
  chance 4 && GEN+=(--recompute "$(pick selective full)")
  chance 4 && GEN+=(--no-sequence-parallel)
  [ "$zero" -eq 0 ] && chance 3 && GEN+=(--no-dp-overlap)
  [ "$dp" -ge 2 ] && [ $((dp % 2)) -eq 0 ] && chance 6 && GEN+=(--experts 4 --ep 2)
  [ "$dp" -ge 2 ] && [ "$zero" -eq 0 ] && chance 3 && GEN+=(--dp-bucket "$(pick 256KB 1MB)")
  [ "$pp" -gt 1 ] && [ "$v" -eq 1 ] && chance 4 && GEN+=(--schedule gpipe)
  [ $((heads % 4)) -eq 0 ] && [ $((4 % tp)) -eq 0 ] && chance 5 && GEN+=(--kv-heads 4 --gated-ffn)
  GEN+=(--out "$1")
}

# collective PREFIX: draws a collective microbenchmark over RANKS ranks.
collective () {
  local g s kind
  kind=$(pick all_reduce reduce_scatter all_gather all_to_all broadcast reduce gather \
              scatter barrier)
  g=$(divisor "$RANKS" "$RANKS")
  chance 3 && g=$RANKS
  s=1
  [ "$g" -lt "$RANKS" ] && chance 2 && s=$(divisor $((RANKS / g)) 8)
  GEN=(gen collective --type "$kind" --ranks "$RANKS" --bytes "$(pick 1KiB 64KiB 1MiB 16MiB 64MiB)"
       --count "$(pick 1 1 2 3)")
  [ "$g" -lt "$RANKS" ] && GEN+=(--groups "$g")
  [ "$s" -gt 1 ] && GEN+=(--stride "$s")
  case $kind in broadcast|reduce|gather|scatter)
    chance 2 && GEN+=(--root $((RANDOM % g))) ;;
  esac
  GEN+=(--out "$1")
}

# mode_free FILE: FILE's stdout without the lines naming the mode.
mode_free () {
  grep -v -e '^symmetric:' -e '^symmetry classes:' -e '^orrery: [0-9]* events in' \
    -e '^orrery: loaded' "$1"
}

# keep N DIR: copies the case's inputs to $KEEP/case-N with a repro.sh.
keep () {
  [ -n "$KEEP" ] || return 0
  local to=$KEEP/case-$1
  rm -rf "$to"; mkdir -p "$to"
  cp "$2"/c.xml "$2"/w.* "$to"/
  {
    echo "#!/bin/sh"
    echo "# seed $SEED case $1; generated by: orrery ${GEN[*]}"
    echo "O=\${ORRERY:-build/orrery}; D=$to"
    echo "\$O run --config \$D/c.xml --workload \$D/w --stats \$D/auto.csv >\$D/auto.out"
    echo "\$O run --config \$D/c.xml --workload \$D/w --symmetry off --stats \$D/off.csv >\$D/off.out"
    echo "diff \$D/auto.out \$D/off.out; cmp \$D/auto.csv \$D/off.csv"
  } >"$to/repro.sh"
}

# run_case N DIR DESC: runs the case in DIR both ways and checks they agree.
run_case () {
  local ra ro
  "$ORRERY" run --config "$2/c.xml" --workload "$2/w" --stats "$2/auto.csv" \
    >"$2/auto" 2>"$2/auto.err"
  ra=$?
  "$ORRERY" run --config "$2/c.xml" --workload "$2/w" --symmetry off --stats "$2/off.csv" \
    >"$2/off" 2>"$2/off.err"
  ro=$?
  grep -q '^symmetry classes: [0-9]* classes' "$2/auto" && classes_used=$((classes_used + 1))
  diff <(mode_free "$2/auto") <(mode_free "$2/off") >"$2/diff"
  local same=$?
  if [ "$ra" -eq "$ro" ] && [ "$same" -eq 0 ] &&
     { [ "$ra" -ne 0 ] || cmp -s "$2/auto.csv" "$2/off.csv"; }; then
    check "$3" true
    rm -rf "$2"; return
  fi
  check "$3" false
  echo "  exit $ra (auto) vs $ro (off); $(grep '^symmetry classes:' "$2/auto" | cut -c1-80)"
  sed -n 1,6p "$2/diff" | sed 's/^/  /'
  [ -f "$2/auto.csv" ] && [ -f "$2/off.csv" ] &&
    diff "$2/auto.csv" "$2/off.csv" | sed -n 1,6p | sed 's/^/  csv: /'
  grep -e '<rail' -e '<dim' -e '<system' -e '<slots' "$2/c.xml" | sed 's/^/  /'
  tail -1 "$2/off.err" | sed 's/^/  /'
  keep "$1" "$2"
}

gen_rejected=0 classes_used=0 drawn=0
for ((n = 1; n <= CASES && SECONDS < BUDGET; n++)); do
  drawn=$n
  d=$TMP/$n; mkdir -p "$d"
  cluster "$d/c.xml"
  if [ "$RANKS" -ge 4 ] && chance 3; then collective "$d/w"; else transformer "$d/w"; fi
  if ! "$ORRERY" "${GEN[@]}" >"$d/gen.out" 2>&1; then
    gen_rejected=$((gen_rejected + 1))
    [ -n "${FUZZ_VERBOSE:-}" ] && echo "  gen rejected: ${GEN[*]}: $(tail -1 "$d/gen.out")"
    rm -rf "$d"; continue
  fi
  g="${GEN[*]}"
  run_case "$n" "$d" \
    "case $n: $(sed -n 's/<cluster name="\([^"]*\)".*/\1/p' "$d/c.xml") $RANKS ranks; ${g% --out*}"
done
# The mismatches it found, minimised, each fixed since: (1) and (3) by the
# classes' check that a group inside a class is laid out and priced as its
# image (sys_group_mirrors, replay_classes_groups.c); (2) and (4) by NCCL's
# inter-node ring hop taking its port order from the ring step's member
# (system/coll.c, network/README.md).  They run every time.
{
  # (1) Groups of 3 on 3 nodes of 4 GPUs: group {3, 4, 5} has 1 GPU on node 0
  # and 2 on node 1, which NCCL's model refuses with every rank simulated
  # (exit 1); the classes (1 class, rank 0, group {0, 1, 2}) never meet it
  # and print figures (exit 0).
  d=$TMP/known-1; mkdir -p "$d"; switch2 "$d/c.xml" 4 3 1
  GEN=(gen collective --type all_reduce --ranks 12 --bytes 1MiB --groups 3 --out "$d/w")
  "$ORRERY" "${GEN[@]}" >/dev/null
  run_case known-1 "$d" "known 1: uneven NCCL group hidden by the classes"
  # (2) MoE with ZeRO 3, DP 16 on 2 nodes of 8 GPUs, two comm slots: 8
  # classes (places mod 8, the DP ring repeating node by node); with every
  # rank simulated ranks 0 and 7 finish 5.728 ns later than ranks 8 and 15,
  # so node 0 and node 1 are not alike, and the classes give node 0 node
  # 1's figures.  Changing the layers (1, 3), hidden (384, 1024), experts
  # (2, 8) or comm slots (1) makes it agree: a tie at one instant.
  d=$TMP/known-2; mkdir -p "$d"; switch2 "$d/c.xml" 8 2 2
  GEN=(gen transformer --layers 2 --hidden 512 --heads 8 --vocab 1024 --seq 128 --micro-batch 1
       --tp 1 --pp 1 --dp 16 --global-batch 16 --zero 3 --experts 4 --ep 2 --out "$d/w")
  "$ORRERY" "${GEN[@]}" >/dev/null
  run_case known-2 "$d" "known 2: MoE ZeRO 3 on 2 nodes, two comm slots"
  # (3) As (1) with figures: 6 ranks on 2 nodes of 3 GPUs, all-gathers on
  # groups of 2 ({0, 1}, {2, 3}, {4, 5}; {2, 3} crosses the nodes): one
  # class, rank 0's group inside node 0 run for all, 14.637 us; with every
  # rank simulated the crossing group takes 44.245 us.  All-reduce and
  # reduce-scatter alike (15.237 against 54.745 us, 10.918 against 33.134).
  d=$TMP/known-3; mkdir -p "$d"; switch2 "$d/c.xml" 3 2 1
  GEN=(gen collective --type all_gather --ranks 6 --bytes 1MiB --groups 2 --out "$d/w")
  "$ORRERY" "${GEN[@]}" >/dev/null
  run_case known-3 "$d" "known 3: a group across nodes run as one inside a node"
  # (4) As (2), smaller, on the rail network: 2 nodes of 4 GPUs, two comm
  # slots, DP 8 with ZeRO 3 and 2 experts (EP 2), one layer: 4 classes
  # (places mod 4); with every rank simulated rank 3 finishes 399.639 ns
  # after rank 7 (its image a node on), and the classes give it rank 7's
  # time.  Agrees before node-shift classes (7c76b05) and on the 2-D switch.
  d=$TMP/known-4; mkdir -p "$d"
  sed -e 's/nodes="128"/nodes="2"/' -e 's/gpus="8"/gpus="4"/' -e 's/comm="1"/comm="2"/' \
    configs/rail-1024.xml >"$d/c.xml"
  GEN=(gen transformer --layers 1 --hidden 384 --heads 8 --vocab 1024 --seq 128 --micro-batch 1
       --tp 1 --pp 1 --dp 8 --global-batch 8 --zero 3 --experts 2 --ep 2 --out "$d/w")
  "$ORRERY" "${GEN[@]}" >/dev/null
  run_case known-4 "$d" "known 4: MoE ZeRO 3 on 2 rail nodes of 4, two comm slots"
}

echo "seed $SEED: $drawn of $CASES cases drawn (budget ${BUDGET} s), $gen_rejected rejected by gen," \
  "$classes_used run by classes"
finish
