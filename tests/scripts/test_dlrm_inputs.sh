#!/usr/bin/env bash
# test_dlrm_inputs.sh: what a new user's trial of `gen dlrm` and `plan
# --dlrm` found (issue 22): inputs at the edges of their ranges refused
# by name instead of written as wrapped figures, and the summary saying
# what the traces hold.
. "$(dirname "$0")/lib.sh"
make_tmp
T=$TMP

# ---- sizes past 64-bit counts ------------------------------------------------------------
# One table of 2^20 rows x 65536 columns looked up 10^6 times a sample by
# 2^31 - 1 samples: 2.1e15 lookups of 256 KiB rows, 5.6e20 bytes, past
# 2^64: the lookup node's num_ops came out as -2^63.
printf 'rows,dim,pooling\n1048576,65536,1000000\n' >"$T/lk.csv"
"$ORRERY" gen dlrm --tables "$T/lk.csv" --bottom-mlp 13-65536 --top-mlp 1 --ranks 1 \
  --batch 2147483647 --emb-optimizer sgd --out "$T/lk/d" >"$T/lk.out" 2>&1
check "lookups past 2^62 bytes: exit 1" test $? -eq 1
check "... said" has "$T/lk.out" \
  "one iteration's embedding lookups and all-to-alls could pass 2^62 bytes"
check "... nothing written" test ! -e "$T/lk/d.0.et"
# 4096 tables of pooling 10^6 on rank 1, 2^30 samples a rank: rank 0 sends
# 2^30 x 4096 x (8 x 10^6 + 4) = 3.5e19 bytes of indices, which wrapped
# to 1.67e19 in the summary and the traces.
{ echo rows,dim,pooling; for i in $(seq 4096); do echo 1000,1,1000000; done; } >"$T/ov.csv"
for i in $(seq 0 4095); do echo "$i,table_wise,1"; done >"$T/ov.plan"
"$ORRERY" gen dlrm --tables "$T/ov.csv" --bottom-mlp 13-1 --top-mlp 1 --ranks 2 \
  --local-batch 1073741823 --emb-optimizer sgd --plan "$T/ov.plan" --dry-run >"$T/ov.out" 2>&1
check "index exchange past 2^64 bytes: exit 1" test $? -eq 1
check "... said" has "$T/ov.out" "could pass 2^62 bytes"
# A top MLP of 2^20 x 2^20 at 2^31 - 1 samples: 6.6e21 FLOPs a GEMM.
printf 'rows,dim,pooling\n1000,16,2\n' >"$T/t.csv"
"$ORRERY" gen dlrm --tables "$T/t.csv" --bottom-mlp 13-16 --top-mlp 1048576-1048576-1 \
  --ranks 1 --batch 2147483647 --dry-run >"$T/mf.out" 2>&1
check "MLP FLOPs past 2^62: exit 1" test $? -eq 1
check "... said" has "$T/mf.out" "one iteration's MLPs and interaction could pass 2^62 FLOPs"
# The largest batch the preset takes on 1024 GPUs still generates.
"$ORRERY" gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 1024 --local-batch 2097151 \
  --sharding column-wise --dry-run >"$T/big.out" 2>&1
check "the preset at 2^31 - 1024 samples on 1024 ranks: exit 0" test $? -eq 0

# ---- the summary says what the traces hold ---------------------------------------------
# --pipeline none writes no index exchange (no "sparse indices" node in
# the traces), so the summary must not report the bytes TorchRec's would.
printf 'rows,dim,pooling\n1000,16,2\n50,16,1\n300000,16,4\n' >"$T/three.csv"
"$ORRERY" gen dlrm --tables "$T/three.csv" --bottom-mlp 13-64-16 --top-mlp 32-1 --ranks 2 \
  --batch 8 --pipeline none --out "$T/pn/d" >"$T/pn.out" 2>&1
check "--pipeline none: the traces have no index exchange" \
  test "$(grep -ca 'sparse indices' "$T/pn/d.0.et")" -eq 0
check "--pipeline none: the summary reports none" \
  test "$(grep -c 'indices sent' "$T/pn.out")" -eq 0
check "... and says so" has "$T/pn.out" "no index exchange (--pipeline none)"
# Every table data-parallel: each rank holds the preset's 26,135,627,264
# fp32 parameters, their gradient and exact Adagrad's state, 12 bytes each:
# 313,627,527,168 B = 292.09 GiB, with the MLPs' 16,044,545 x 12 B 292.27
# GiB.  The summary said "embeddings 0.00 GiB, optimizer state 0.00 GiB,
# total 292.27 GiB": the parts did not add up to the total.
"$ORRERY" gen dlrm --preset dlrm-dcnv2-criteo1tb --ranks 8 --sharding data-parallel \
  --dry-run >"$T/dp.out" 2>&1
check "data-parallel tables: their memory is a part of the rank's" has "$T/dp.out" \
  "optimizer state 0.00 GiB, data-parallel tables 292.09 GiB, total 292.27 GiB"

# ---- run's exchanges table ---------------------------------------------------------------
# Table-row-wise over two "nodes" of 4 ranks has the 52-character exchange
# "all-to-all (embedding gradients, backward, stage 2)", which overflowed
# the 48-column name and pushed its row's figures out of their columns:
# every line of the table (the header and each row) is as long as the next.
"$ORRERY" gen dlrm --tables "$T/three.csv" --bottom-mlp 13-64-16 --top-mlp 32-1 --ranks 8 \
  --ranks-per-node 4 --batch 64 --sharding table-row-wise --out "$T/tw/d" >/dev/null 2>&1
"$ORRERY" run --config configs/hgx-h100.xml --workload "$T/tw/d" >"$T/tw.out" 2>&1
sed -n '/^exchanges (/,/^collectives/p' "$T/tw.out" | sed '1d;$d' >"$T/tw.rows"
check "the table-row-wise run has the stage-2 exchange row" has "$T/tw.rows" \
  "all-to-all (embedding gradients, backward, stage 2)"
check "the exchanges table's lines are all as long" \
  test "$(awk '{ print length }' "$T/tw.rows" | sort -u | wc -l)" -eq 1

# ---- plan --dlrm's counts ----------------------------------------------------------------
# --gpus 0 and --batch 0 were taken for "the cluster's" and "the preset's"
# and planned with exit 0; every count names itself and its value.
for a in "gpus 0" "batch 0" "gpus -8" "top 0" "jobs 0" "budget -1"; do
  set -- $a
  # (--budget 0 first, so that the old code plans only the baselines.)
  "$ORRERY" plan --dlrm --preset dlrm-dcnv2-criteo1tb --config configs/hgx-h100.xml \
    --budget 0 "--$1" "$2" >"$T/pc.out" 2>&1
  check "plan --dlrm --$1 $2: exit 1" test $? -eq 1
  want="at least 1"; [ "$1" = budget ] && want="at least 0"
  check "... said" has "$T/pc.out" "--$1 $2: must be $want"
done
finish
