#!/usr/bin/env bash
# Tests of scripts/sweep against the real orrery binary (ORRERY, default
# build/orrery): local runs with GNU parallel (first run, resume, a failing
# point, an interrupted sweep) and the Slurm scripts (run by hand, without
# Slurm).  Prints one "ok NAME" or "FAIL NAME" line per check, then
# "N checks, N failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_sweep.sh   (run by `make check` through
# scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
SWEEP=$PWD/scripts/sweep

make_tmp

# csv_column CSV NAME: the values of column NAME, one per row (the columns
# before it must hold no quoted commas: parameter values here have none).
csv_column () {
  awk -F, -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); if ($i == want) c = i }; next }
                        c { v = $c; gsub(/"/, "", v); print v }' "$1"
}
# rows CSV: the number of data rows.
rows () { tail -n +2 "$1" | grep -c .; }
# statuses CSV: "N ok, N failed, N pending".
statuses () {
  local s
  s=$(csv_column "$1" status)
  echo "$(grep -cx ok <<<"$s") ok, $(grep -cx failed <<<"$s") failed, $(grep -cx pending <<<"$s") pending"
}
# point_id OUTDIR K: the id of point K (from 0).
point_id () { "$ORRERY" sweep points "$1" | sed -n "$(($2 + 1))p"; }
# done_ids OUTDIR: the ids of the points done, on one line.
done_ids () { (cd "$1/points" && for d in *; do [ -f "$d/done" ] && printf '%s ' "$d"; done); echo; }

# A 4-rank cluster of one switch, and sweep specs over it (spec, in lib.sh).
four_rank_cluster "$TMP"

# Local runs: 2 x 2 points.
spec "$TMP/four.xml" "1KiB 1MiB" "10GB/s 100GB/s"
out=$TMP/four
"$SWEEP" -j 2 -o "$out" "$TMP/four.xml" >"$TMP/run1.log" 2>&1
check "first run exits 0" eq $? 0
check "first run: sweep.csv has 4 rows" eq "$(rows "$out/sweep.csv")" 4
check "first run: all points ok" eq "$(statuses "$out/sweep.csv")" "4 ok, 0 failed, 0 pending"
check "first run: summary" has "$TMP/run1.log" "4 points: 4 ok, 0 failed, 0 done already"

# Determinism: the same spec swept again into a fresh OUTDIR, one point at
# a time instead of two, gives the same CSV byte for byte but for wall_s,
# the one measured column (simulated time is integer picoseconds, events in
# (time, insertion order)).
"$SWEEP" -j 1 -o "$TMP/again" "$TMP/four.xml" >"$TMP/again.log" 2>&1
check "a fresh sweep of the same spec exits 0" eq $? 0
# no_wall CSV: CSV without its wall_s column (no quoted commas here).
no_wall () {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
           { out = ""; for (i = 1; i <= NF; i++) if (i != w) out = out (out == "" && i == 1 ? "" : ",") $i; print out }' "$1"
}
check "sweep.csv has a wall_s column" eq "$(head -1 "$out/sweep.csv" | tr , '\n' | grep -cx wall_s)" 1
check "a fresh sweep: the same CSV, byte for byte, wall_s aside" \
  cmp -s <(no_wall "$out/sweep.csv") <(no_wall "$TMP/again/sweep.csv")
check "a fresh sweep: the CSV is not empty of figures" \
  test "$(csv_column "$TMP/again/sweep.csv" simulated_time_ns | grep -c '^[1-9][0-9]*$')" = 4
cp "$out/sweep.csv" "$TMP/sweep1.csv"
touch "$TMP/mark"
"$SWEEP" -j 2 -o "$out" "$TMP/four.xml" >"$TMP/run2.log" 2>&1
check "second run exits 0" eq $? 0
check "second run: every point done already" has "$TMP/run2.log" "4 points: 0 ok, 0 failed, 4 done already"
check "second run: no point ran" \
  eq "$(find "$out/points" -newer "$TMP/mark" \( -name 'done' -o -name sweep.log \) | wc -l)" 0
check "second run: sweep.csv identical" cmp -s "$out/sweep.csv" "$TMP/sweep1.csv"

id=$(point_id "$out" 1)
rm "$out/points/$id/done"
touch "$TMP/mark"
"$SWEEP" -j 2 -o "$out" "$TMP/four.xml" >"$TMP/run3.log" 2>&1
check "rerun of one point exits 0" eq $? 0
check "rerun of one point: summary" has "$TMP/run3.log" "4 points: 1 ok, 0 failed, 3 done already"
check "rerun of one point: only point $id ran" \
  eq "$(find "$out/points" -newer "$TMP/mark" -name 'done' | sed "s|^$out/points/||")" "$id/done"
check "rerun of one point: joblog has one job" eq "$(tail -n +2 "$out/joblog" | wc -l)" 1
check "rerun of one point: all points ok" eq "$(statuses "$out/sweep.csv")" "4 ok, 0 failed, 0 pending"

# One invalid point among three: it fails, the others run and are gathered.
spec "$TMP/bad.xml" "1KiB" "10GB/s 0GB/s 100GB/s"
out=$TMP/bad
"$SWEEP" -o "$out" "$TMP/bad.xml" >"$TMP/bad.log" 2>&1
check "failing point: exits 1" eq $? 1
check "failing point: summary" has "$TMP/bad.log" "3 points: 2 ok, 1 failed, 0 done already"
id=$(point_id "$out" 1)
check "failing point: named with its stderr and error" has "$TMP/bad.log" \
  "point $id failed (stderr: $out/points/$id/stderr): exit 1: orrery run: $out/points/$id/config.xml:4:"
check "failing point: stderr kept" grep -q "bandwidth must be positive" "$out/points/$id/stderr"
check "failing point: the others gathered" eq "$(statuses "$out/sweep.csv")" "2 ok, 1 failed, 0 pending"
check "failing point: no done" test ! -e "$out/points/$id/done"

# An interrupted sweep (SIGTERM after a few points) completes when run again.
# Each point runs 200 all-reduces so that it takes a moment.
spec "$TMP/twenty.xml" "1KiB 4KiB 16KiB 64KiB 256KiB" "10GB/s 25GB/s 50GB/s 100GB/s" 200
out=$TMP/twenty
"$SWEEP" -j 1 -o "$out" "$TMP/twenty.xml" >"$TMP/kill.log" 2>&1 &
pid=$!
for _ in $(seq 600); do
  [ "$(find "$out/points" -name 'done' 2>/dev/null | wc -l)" -ge 3 ] && break
  sleep 0.05
done
kill -TERM "$pid"
wait "$pid"
check "interrupted: exits 143" eq $? 143
ndone=$(find "$out/points" -name 'done' | wc -l)
check "interrupted: some points done, not all" test "$ndone" -ge 3 -a "$ndone" -lt 20
check "interrupted: says so" has "$TMP/kill.log" "interrupted"
# A point that was finishing when the signal came may still write its done
# marker: wait (up to 5 s) until none runs, then count again, so that the
# resumed run's "done already" is compared with what is really on disk.
for _ in $(seq 100); do
  [ "$(pgrep -f -- "sweep run $out" | wc -l)" = 0 ] && break
  sleep 0.05
done
check "interrupted: no point left running" eq "$(pgrep -f -- "sweep run $out" | wc -l)" 0
ndone=$(find "$out/points" -name 'done' | wc -l)
"$SWEEP" -j 2 -o "$out" "$TMP/twenty.xml" >"$TMP/resume.log" 2>&1
check "resumed: exits 0" eq $? 0
check "resumed: ran only the rest" has "$TMP/resume.log" "20 points: $((20 - ndone)) ok, 0 failed, $ndone done already"
check "resumed: 20 rows, all ok" eq "$(statuses "$out/sweep.csv")" "20 ok, 0 failed, 0 pending"

# Slurm: the scripts, with 3 points per task, then run by hand.
out=$TMP/slurm
"$SWEEP" --slurm --points-per-task 3 --partition debug --time 5:00 -o "$out" "$TMP/twenty.xml" \
  >"$TMP/slurm.log" 2>&1
check "slurm: exits 0" eq $? 0
for f in sweep.sbatch gather.sbatch submit.sh; do
  check "slurm: $f is bash" bash -n "$out/slurm/$f"
done
check "slurm: 7 tasks of 3 points" has "$out/slurm/sweep.sbatch" "#SBATCH --array=0-6"
check "slurm: output per task" has "$out/slurm/sweep.sbatch" "#SBATCH --output=$out/slurm/%A_%a.out"
check "slurm: partition" has "$out/slurm/sweep.sbatch" "#SBATCH --partition=debug"
check "slurm: time" has "$out/slurm/sweep.sbatch" "#SBATCH --time=5:00"
(cd / && SLURM_ARRAY_TASK_ID=1 bash "$out/slurm/sweep.sbatch") >"$TMP/task1.log" 2>&1
check "slurm: task 1 exits 0" eq $? 0
check "slurm: task 1 runs points 03-05" eq "$(done_ids "$out")" "03 04 05 "
(cd / && SLURM_ARRAY_TASK_ID=6 bash "$out/slurm/sweep.sbatch") >"$TMP/task6.log" 2>&1
check "slurm: last task runs the last 2 points" eq "$(done_ids "$out")" "03 04 05 18 19 "
(cd / && bash "$out/slurm/gather.sbatch") >"$TMP/gather.log" 2>&1
check "slurm: gather exits 1 with points pending" eq $? 1
check "slurm: gather writes sweep.csv" eq "$(statuses "$out/sweep.csv")" "5 ok, 0 failed, 15 pending"

# submit.sh through a stand-in sbatch that records its arguments.
mkdir -p "$TMP/bin"
cat >"$TMP/bin/sbatch" <<EOF
#!/usr/bin/env bash
echo "\$*" >>"$TMP/sbatch.log"
[ -e "$TMP/sbatch.n" ] && echo 1002 || { touch "$TMP/sbatch.n"; echo "1001;cluster"; }
EOF
chmod +x "$TMP/bin/sbatch"
PATH=$TMP/bin:$PATH "$out/slurm/submit.sh" >"$TMP/submit.log" 2>&1
check "slurm: submit.sh exits 0" eq $? 0
check "slurm: submit.sh submits the array, then the gather after it" eq "$(cat "$TMP/sbatch.log")" \
  "--parsable $out/slurm/sweep.sbatch
--parsable --dependency=afterany:1001 $out/slurm/gather.sbatch"
check "slurm: submit.sh prints both ids" eq "$(cat "$TMP/submit.log")" "array job: 1001
gather job: 1002"

# Default points per task: at most 1000 tasks.
"$SWEEP" --slurm -o "$TMP/slurm20" "$TMP/twenty.xml" >/dev/null 2>&1
check "slurm: 20 points, 20 tasks by default" has "$TMP/slurm20/slurm/sweep.sbatch" "#SBATCH --array=0-19"
cat >"$TMP/many.xml" <<'EOF'
<sweep name="many">
  <config path="cluster.xml"/>
  <generate>gen collective --type all_reduce --ranks 4 --bytes {bytes}</generate>
  <grid><param name="bytes" from="1" to="1001"/></grid>
</sweep>
EOF
"$SWEEP" --slurm -o "$TMP/many" "$TMP/many.xml" >/dev/null 2>&1
check "slurm: 1001 points, 501 tasks of 2 by default" has "$TMP/many/slurm/sweep.sbatch" "#SBATCH --array=0-500"
if ! command -v sbatch >/dev/null 2>&1; then
  "$SWEEP" --slurm --submit -o "$TMP/slurm20" "$TMP/twenty.xml" >"$TMP/nosbatch.log" 2>&1
  check "slurm: --submit without sbatch exits 1" eq $? 1
  check "slurm: --submit without sbatch says so" has "$TMP/nosbatch.log" "sbatch not found"
fi

# Errors: one line on stderr, exit 1.
# error NAME EXPECTED_MESSAGE [ENV=VALUE...] -- ARGS...: a failing call.
error () {
  local name=$1 want=$2; shift 2
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" "$SWEEP" "$@" >"$TMP/err.out" 2>"$TMP/err.log"
  local rc=$?
  check "error, $name: exits 1" eq $rc 1
  check "error, $name: one line" eq "$(wc -l <"$TMP/err.log")" 1
  check "error, $name: message" has "$TMP/err.log" "$want"
}
error "no spec" "no sweep spec" --
error "spec not found" "$TMP/none.xml: no such file" -- "$TMP/none.xml"
error "orrery missing" "$TMP/none not found" ORRERY="$TMP/none" -- "$TMP/four.xml"
printf '#!/bin/sh\necho "parallel from moreutils" >&2; exit 1\n' >"$TMP/bin/parallel"
chmod +x "$TMP/bin/parallel"
error "parallel missing" "install GNU parallel: apt-get install parallel" \
  PATH="$TMP/bin:$PATH" -- "$TMP/four.xml"
"$SWEEP" --help >"$TMP/help.log" 2>&1
check "--help exits 0" eq $? 0
check "--help prints usage" has "$TMP/help.log" "usage: scripts/sweep"

if command -v shellcheck >/dev/null 2>&1; then
  check "shellcheck scripts/sweep" shellcheck "$SWEEP"
fi

finish
