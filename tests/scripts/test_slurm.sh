#!/usr/bin/env bash
# Test of `scripts/sweep --slurm --submit` on a real Slurm: starts munged,
# slurmctld and slurmd for one node on loopback, all inside a temporary
# directory, submits a sweep's job array and gather job, waits for them, and
# compares the gathered sweep.csv with a local run of the same spec (every
# column but wall_s).  Stops the daemons and removes the directory on exit,
# failed or not.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.  Without Slurm and MUNGE (apt-get
# install slurmctld slurmd slurm-client munge: `make deps` tries), or when
# not root (the daemons need it), prints one "skip: ..." line and exits 0.
# Usage: tests/scripts/test_slurm.sh   (run by `make check` through
# scripts/run-tests, from the repository root; about 10 s).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

# The daemons live in sbin, which a login shell's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
for c in munged munge unmunge slurmctld slurmd sbatch squeue sinfo scontrol scancel; do
  command -v "$c" >/dev/null 2>&1 \
    || skip "$c not found (apt-get install slurmctld slurmd slurm-client munge)"
done
[ "$(id -u)" = 0 ] || skip "not root: munged, slurmctld and slurmd need it"

SWEEP=$PWD/scripts/sweep

# munged wants every directory above its socket searchable by all, and none
# writable by others (sticky /tmp is allowed).
make_tmp
chmod 755 "$TMP"
export SLURM_CONF=$TMP/slurm.conf
NODE=orrery-test
MUNGED_PID='' CTLD_PID='' SLURMD_PID=''

alive () { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# wait_for SECONDS COMMAND...: polls COMMAND every 0.2 s until it succeeds
# (0) or SECONDS have passed (1).
wait_for () {
  local end=$((SECONDS + $1)); shift
  until "$@"; do
    [ $SECONDS -lt $end ] || return 1
    sleep 0.2
  done
}

# logs: the daemons' last lines, on stderr, after a failure.
logs () {
  local f
  for f in munged.log slurmctld.log slurmd.log; do
    [ -f "$TMP/$f" ] || continue
    echo "  --- $TMP/$f:" >&2
    tail -n 15 "$TMP/$f" | sed 's/^/  /' >&2
  done
}

# stop PID [GRACE]: ends a daemon started here: it has GRACE seconds
# (default 0) to go by itself, then gets SIGTERM, then 5 s later SIGKILL;
# reaps it.
stop () {
  local pid=$1 grace=${2:-0}
  alive "$pid" || return 0
  if [ "$grace" -gt 0 ] && wait_for "$grace" bash -c "! kill -0 $pid 2>/dev/null"; then
    wait "$pid" 2>/dev/null
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null
  wait_for 5 bash -c "! kill -0 $pid 2>/dev/null" || kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  return 0
}

# stop_cluster: cancels what is still queued or running, shuts Slurm down,
# stops munged.  Safe to call twice.
stop_cluster () {
  if alive "$CTLD_PID"; then
    scancel --quiet --user="$(id -un)" 2>/dev/null
    wait_for 10 test -z "$(squeue -h -o %i 2>/dev/null)"
    scontrol shutdown >/dev/null 2>&1
  fi
  stop "$CTLD_PID" 5; stop "$SLURMD_PID" 5
  stop "$MUNGED_PID"
  CTLD_PID='' SLURMD_PID='' MUNGED_PID=''
}
trap 'stop_cluster; rm -rf "$TMP"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# free_port PORT: PORT has no listener on loopback.
free_port () { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Two consecutive free ports in 20000-59999, for slurmctld and slurmd.
for _ in $(seq 50); do
  port=$((20000 + RANDOM % 40000))
  free_port "$port" && free_port $((port + 1)) && break
done

# steps: the number of live slurmstepd processes (a step that has exited but
# is not yet reaped does not count).  Those of another Slurm on this
# machine, if any, are not ours.
# shellcheck disable=SC2009  # pgrep cannot leave out one state
steps () { ps -C slurmstepd -o stat= | grep -vc '^Z'; }
steps_before=$(steps)

# MUNGE: a fresh key and socket for this test only.
dd if=/dev/urandom of="$TMP/munge.key" bs=1 count=1024 status=none
chmod 400 "$TMP/munge.key"
munged --foreground --key-file="$TMP/munge.key" --socket="$TMP/munge.sock" \
  --pid-file="$TMP/munged.pid" --log-file="$TMP/munged.log" --seed-file="$TMP/munged.seed" \
  >"$TMP/munged.out" 2>&1 &
MUNGED_PID=$!
munge_ok () { munge -n -S "$TMP/munge.sock" 2>/dev/null | unmunge -S "$TMP/munge.sock" >/dev/null 2>&1; }

# Slurm: one node of every core here, one partition, no accounting, no
# cgroups (linuxproc tracks a job's processes by parentage).
mkdir -p "$TMP/state" "$TMP/spool"
cat >"$SLURM_CONF" <<EOF
ClusterName=orrerytest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$TMP/munge.sock
StateSaveLocation=$TMP/state
SlurmdSpoolDir=$TMP/spool
SlurmctldPidFile=$TMP/slurmctld.pid
SlurmdPidFile=$TMP/slurmd.pid
SlurmctldLogFile=$TMP/slurmctld.log
SlurmdLogFile=$TMP/slurmd.log
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MailProg=/bin/true
NodeName=$NODE NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

node_idle () { [ "$(sinfo -h -N -n "$NODE" -o %t 2>/dev/null)" = idle ]; }
up=0
if wait_for 10 munge_ok; then
  slurmctld -D -c -f "$SLURM_CONF" >"$TMP/slurmctld.out" 2>&1 &
  CTLD_PID=$!
  slurmd -D -N "$NODE" -f "$SLURM_CONF" >"$TMP/slurmd.out" 2>&1 &
  SLURMD_PID=$!
  wait_for 60 node_idle && up=1
fi
# A machine where the packages installed but the daemons cannot run (a
# sandbox without the sockets or privileges they need) skips, showing why;
# ORRERY_REQUIRE_SLURM=1 makes that a failure.
if [ $up = 0 ] && [ "${ORRERY_REQUIRE_SLURM:-0}" != 1 ]; then
  logs
  skip "the single-node Slurm did not come up within 60 s (logs above)"
fi
check "slurm: munged, slurmctld and slurmd up, node idle" eq $up 1
if [ $up = 0 ]; then
  logs
  finish
  exit 1
fi

# A 3 x 2 sweep on the 4-rank switch of lib.sh.
four_rank_cluster "$TMP"
spec "$TMP/six.xml" "1KiB 64KiB 1MiB" "10GB/s 100GB/s"

# Submitted from the temporary directory: the jobs start there, not in the
# repository.
out=$TMP/slurm
(cd "$TMP" && "$SWEEP" --slurm --submit --points-per-task 2 --partition test --time 5:00 \
  -o "$out" "$TMP/six.xml") >"$TMP/submit.log" 2>&1
check "slurm: --submit exits 0" eq $? 0
array=$(sed -n 's/^array job: \([0-9][0-9]*\)$/\1/p' "$TMP/submit.log")
gather=$(sed -n 's/^gather job: \([0-9][0-9]*\)$/\1/p' "$TMP/submit.log")
check "slurm: --submit prints the array and gather job ids" test -n "$array" -a -n "$gather"
check "slurm: 3 array tasks of 2 points" has "$TMP/submit.log" "6 points in 3 array tasks of 2"

# squeue lists jobs pending, running or completing: the sweep is over when
# it lists none.
queue_empty () { [ -z "$(squeue -h -o %i 2>/dev/null)" ]; }
done_in=0
wait_for 180 queue_empty && done_in=1
check "slurm: array and gather job done within 180 s" eq $done_in 1
[ $done_in = 1 ] || { squeue >&2; logs; }

# scontrol still knows finished jobs (for MinJobAge, 300 s by default).
# states JOB: each of the job's tasks' "JobState ExitCode", one per line.
states () {
  scontrol -o show job "$1" 2>/dev/null \
    | sed -n 's/.*JobState=\([A-Z_]*\).* ExitCode=\([0-9:]*\).*/\1 \2/p'
}
check "slurm: array tasks completed, exit 0" eq "$(states "$array")" \
  "$(printf 'COMPLETED 0:0\n%.0s' 1 2 3)"
check "slurm: gather job completed, exit 0" eq "$(states "$gather")" "COMPLETED 0:0"
for t in 0 1 2; do
  log=$out/slurm/${array}_$t.out
  check "slurm: task $t log ${array}_$t.out ran 2 points" \
    eq "$(grep -c '^point [0-9]*: ok$' "$log" 2>/dev/null)" 2
done
check "slurm: gather log says every point done" \
  has "$out/slurm/gather_$gather.out" "6 points: 6 done, 0 not done"

# The same spec run here: identical simulated results.
"$SWEEP" -j 2 -o "$TMP/local" "$TMP/six.xml" >"$TMP/local.log" 2>&1
check "local: the same sweep exits 0" eq $? 0
# simulated CSV: CSV without its wall_s column.
simulated () {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s" || $i == "\"wall_s\"") w = i }
           { s = ""; for (i = 1; i <= NF; i++) if (i != w) { printf "%s%s", s, $i; s = "," }; print "" }' "$1"
}
# statuses CSV: its status column, counted: "6 ok".
statuses () {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { gsub(/"/, "", $i); if ($i == "status") c = i }; next }
           c { v = $c; gsub(/"/, "", v); n[v]++ }
           END { for (v in n) print n[v], v }' "$1" 2>/dev/null | sort
}
check "slurm: sweep.csv has 6 rows, all ok" eq "$(statuses "$out/sweep.csv")" "6 ok"
check "slurm: sweep.csv has a wall_s column" grep -q '^point,.*,wall_s,' "$out/sweep.csv"
check "slurm: sweep.csv identical to the local sweep but for wall_s" \
  diff <(simulated "$TMP/local/sweep.csv") <(simulated "$out/sweep.csv")

stop_cluster
check "slurm: daemons stopped" eq "$(pgrep -f -- "$TMP" | wc -l)" 0
steps_gone () { [ "$(steps)" -le "$steps_before" ]; }
check "slurm: no job step left" wait_for 10 steps_gone

finish
