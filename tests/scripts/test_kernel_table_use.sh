#!/usr/bin/env bash
# test_kernel_table_use.sh: how much of a run a measured kernel table
# prices.  The summary counts the traces' distinct kernels (a kernel's
# shapes and dtype, its count aside) and those the table has a row for on
# the config's device; a table that prices none of them warns, where it
# used to change nothing without a word.  The expected count is the
# traces' own kernel lists read as text (each `op:shape` once).
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_kernel_table_use.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
lacks () { ! grep -qF -- "$2" "$1"; }

# Llama-2 7B, TP 8 on one node of H200s.
"$ORRERY" gen transformer --preset llama2-7b --ranks 8 --tp 8 --global-batch 8 \
  --micro-batch 1 --out "$TMP/l" >/dev/null 2>&1
check "gen: exit 0" eq "$?" 0
for r in 0 1 2 3 4 5 6 7; do "$ORRERY" convert "$TMP/l.$r.et" "$TMP/j.$r.json"; done
n=$(cat "$TMP"/j.*.json | grep -o '\(gemm\|attn\|mem\):[^;"]*' | sed 's/,count=[0-9]*//' \
  | sort -u | wc -l)
check "the traces list kernels" test "$n" -gt 2
check "one of them is gemm m=4096 n=2752 k=4096" \
  test "$(cat "$TMP"/j.*.json | grep -c 'gemm:m=4096,n=2752,k=4096')" -gt 0

# table ROWS: a config on the H200 with a kernel table of ROWS.
table () {
  printf 'operator,shapes,dtype,device,time\n%s\n' "$1" >"$TMP/t.csv"
  sed "s|device=\"H100-SXM\"/>|device=\"H200\" kernel-table=\"$TMP/t.csv\"/>|" \
    configs/hgx-h100.xml >"$TMP/h200.xml"
  "$ORRERY" run --config "$TMP/h200.xml" --workload "$TMP/l" >"$TMP/out" 2>"$TMP/err"
}

table "gemm,m=4096 n=2752 k=4096,bf16,H200,500us"
check "one row: exit 0" eq "$?" 0
check "one row: the summary's count" has "$TMP/out" \
  "  kernel table: 1 of the traces' $n distinct kernels priced from it, the rest by the kernel model"
check "one row: no warning" lacks "$TMP/err" "kernel table"

# A row for another shape (m 4095) or another device's: none priced.
table "gemm,m=4095 n=2752 k=4096,bf16,H200,500us
gemm,m=4096 n=2752 k=4096,bf16,H100-SXM,500us"
check "no match: exit 0" eq "$?" 0
check "no match: the summary's count" has "$TMP/out" \
  "  kernel table: 0 of the traces' $n distinct kernels priced from it"
check "no match: the warning" eq "$(grep 'kernel table' "$TMP/err")" \
  "orrery run: warning: the kernel table has a row for none of the traces' $n distinct kernels (the shapes, dtype and device must match exactly): the kernel model priced them all"

# Without a table: no line.
"$ORRERY" run --config configs/hgx-h100.xml --workload "$TMP/l" >"$TMP/out" 2>&1
check "no table: no line" lacks "$TMP/out" "kernel table"
finish
