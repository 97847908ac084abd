#!/usr/bin/env bash
# End-to-end test of where `orrery run` writes its output files (--report,
# --stats, --links, --timeline; sim/out_file.h): a character device is
# written in place and stays a device (a private null device made with
# mknod, and /dev/null itself: both skipped when not root or not
# writable, /dev/null only after the private device passed); a symbolic
# link stays a link and its target gets the output (plot-data's files as
# well); two options naming the same file, directly or through a link, are
# refused before anything runs;
# outputs into a folder that does not exist, outputs that are folders and
# outputs that are the run's inputs (its config, a trace, by any name) are
# refused before simulating (nothing on stdout, nothing replaced); and two runs writing the same files at once leave
# each file complete from one run or the other; the same for the traces
# two `gen`s write at once, and a trace name that is a link.
# Prints one "ok NAME" or "FAIL NAME" line per check, then "N checks, N
# failed"; exits 1 if any check failed.
# Usage: tests/scripts/test_outputs.sh   (run by `make check` through
# scripts/run-tests, from the repository root; about 10 s).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"

make_tmp
four_rank_cluster "$TMP"
sed 's/size="4"/size="256"/' "$TMP/cluster.xml" >"$TMP/c256.xml"
"$ORRERY" gen collective --type all-reduce --ranks 4 --bytes 1MiB --out "$TMP/w" >/dev/null \
  || { echo "FAIL gen"; exit 1; }
run4 () { "$ORRERY" run -q --config "$TMP/cluster.xml" --workload "$TMP/w" "$@"; }

# References, written to plain files.
run4 --report "$TMP/ref.json" --stats "$TMP/ref.csv" --timeline "$TMP/ref.tl.json"
check references [ -s "$TMP/ref.json" ] && [ -s "$TMP/ref.csv" ] && [ -s "$TMP/ref.tl.json" ]

# ---- devices: written in place, never replaced ----------------------------------
device_stays () { # DEVICE: every output into it, and it is still a character device
  run4 --report "$1" --stats "$1" --timeline "$1" --links "$1" --network-model congestion \
    && [ -c "$1" ]
}
# /dev/null only once a private device came through: a binary that replaced
# devices must not be let near the system's.
private=skip
if [ "$(id -u)" = 0 ] && mknod "$TMP/null" c 1 3 2>/dev/null; then
  check private_null_stays_a_device device_stays "$TMP/null"
  device_stays "$TMP/null" && private=ok
else
  echo "skip: private null device (not root, or mknod refused)"
fi
if [ $private = ok ] && [ -c /dev/null ] && [ -w /dev/null ]; then
  check dev_null_stays_a_device device_stays /dev/null
else
  echo "skip: /dev/null (not root, not writable, or the private device failed)"
fi

# ---- symbolic links: followed, the link survives ---------------------------------
mkdir "$TMP/real"
ln -s real/r.json "$TMP/r.json"
ln -s "$TMP/real/s.csv" "$TMP/s.csv"
ln -s real/t.json "$TMP/t.json"
echo old >"$TMP/real/r.json"
run4 --report "$TMP/r.json" --stats "$TMP/s.csv" --timeline "$TMP/t.json"
check links_stay_links [ -L "$TMP/r.json" ] && [ -L "$TMP/s.csv" ] && [ -L "$TMP/t.json" ]
check link_targets_written cmp -s "$TMP/real/r.json" "$TMP/ref.json"
check dangling_link_target_made cmp -s "$TMP/real/s.csv" "$TMP/ref.csv"
check timeline_through_link cmp -s "$TMP/real/t.json" "$TMP/ref.tl.json"
check no_temporary_left [ "$(ls "$TMP/real" | wc -l)" = 3 ]

# The files other commands write whole go the same way: plot-data's.
mkdir "$TMP/plot"
ln -s ../real/ranks.dat "$TMP/plot/ranks.dat"
"$ORRERY" plot-data "$TMP/ref.json" "$TMP/plot"
check plot_data_link_stays [ -L "$TMP/plot/ranks.dat" ] && [ -s "$TMP/real/ranks.dat" ]

# ---- the same file twice ---------------------------------------------------------
same_refused () { # OPTION1 PATH1 OPTION2 PATH2: exit 1 naming both, nothing written
  local out
  out=$(run4 "$1" "$2" "$3" "$4" 2>&1)
  [ $? = 1 ] && [[ $out == *"$1 $2 and $3 $4 are the same file"* ]] \
    || { echo "  got: $out" >&2; return 1; }
}
check same_path_refused same_refused --report "$TMP/x" --stats "$TMP/x"
check same_path_not_written [ ! -e "$TMP/x" ]
mkdir "$TMP/sub"
check same_file_by_other_name same_refused --stats "$TMP/x.csv" --timeline "$TMP/sub/../x.csv"
check same_file_through_link same_refused --report "$TMP/real/r.json" --links "$TMP/r.json"

# ---- a folder that does not exist: refused before simulating ---------------------
missing_refused () { # OPTION NOUN: exit 1 naming the file and the folder, no summary printed
  local out err
  err=$("$ORRERY" run --config "$TMP/cluster.xml" --workload "$TMP/w" \
          --network-model congestion "$1" "$TMP/none/f" 2>&1 >"$TMP/stdout")
  [ $? = 1 ] && [[ $err == *"cannot write $2 $TMP/none/f: the folder $TMP/none does not exist"* ]] \
    && [ ! -s "$TMP/stdout" ] || { echo "  got: $err" >&2; return 1; }
}
check missing_folder_report missing_refused --report report
check missing_folder_stats missing_refused --stats stats
check missing_folder_links missing_refused --links links
check missing_folder_timeline missing_refused --timeline timeline

# ---- a folder, or a file the run reads: refused before simulating ----------------
mkdir "$TMP/dir"
folder_refused () { # OPTION NOUN: exit 1 naming the folder, nothing simulated, folder kept
  local err
  err=$(run4 --network-model congestion "$1" "$TMP/dir" 2>&1 >"$TMP/stdout")
  [ $? = 1 ] && [[ $err == *"cannot write $2 $TMP/dir: $TMP/dir is a folder"* ]] \
    && [ ! -s "$TMP/stdout" ] && [ -d "$TMP/dir" ] || { echo "  got: $err" >&2; return 1; }
}
check folder_report folder_refused --report report
check folder_stats folder_refused --stats stats
check folder_links folder_refused --links links
check folder_timeline folder_refused --timeline timeline
cp "$TMP/cluster.xml" "$TMP/keep.xml"
cp "$TMP/w.0.et" "$TMP/keep.0.et"
input_refused () { # OPTION PATH INPUT: exit 1 naming the output and the input, files unchanged
  local err
  err=$(run4 "$1" "$2" 2>&1 >"$TMP/stdout")
  [ $? = 1 ] && [[ $err == *"$1 $2 is an input of the run ($3)"* ]] && [ ! -s "$TMP/stdout" ] \
    && cmp -s "$TMP/cluster.xml" "$TMP/keep.xml" && cmp -s "$TMP/w.0.et" "$TMP/keep.0.et" \
    || { echo "  got: $err" >&2; return 1; }
}
check config_not_replaced input_refused --report "$TMP/cluster.xml" "--config $TMP/cluster.xml"
check trace_not_replaced input_refused --stats "$TMP/w.0.et" "--workload $TMP/w"
check trace_by_other_name input_refused --timeline "$TMP/sub/../w.3.et" "--workload $TMP/w"
ln -s w.2.et "$TMP/w2link"
check trace_through_link input_refused --report "$TMP/w2link" "--workload $TMP/w"
ln "$TMP/cluster.xml" "$TMP/hard.xml"
check config_hard_link input_refused --links "$TMP/hard.xml" "--config $TMP/cluster.xml"
run4 --stats "$TMP/w.0.et.csv" --report "$TMP/w.json"
check near_names_written [ -s "$TMP/w.0.et.csv" ] && [ -s "$TMP/w.json" ]

# ---- two runs at once: each output complete from one run or the other ------------
"$ORRERY" gen collective --type all-reduce --ranks 256 --bytes 1MiB --count 50 \
  --out "$TMP/a" >/dev/null
"$ORRERY" gen collective --type all-reduce --ranks 256 --bytes 2MiB --count 50 \
  --out "$TMP/b" >/dev/null
run256 () { # WORKLOAD NAME
  "$ORRERY" run -q --config "$TMP/c256.xml" --workload "$TMP/$1" \
    --report "$TMP/$2.json" --stats "$TMP/$2.csv" --timeline "$TMP/$2.tl.json"
}
run256 a A
run256 b B
whole () { # NAME: each output of NAME equals A's or B's
  local ext
  for ext in json csv tl.json; do
    cmp -s "$TMP/$1.$ext" "$TMP/A.$ext" || cmp -s "$TMP/$1.$ext" "$TMP/B.$ext" \
      || { echo "  $1.$ext is neither run's" >&2; return 1; }
  done
}
concurrent () {
  local i
  for i in 1 2 3 4 5; do
    run256 a S & run256 b S &
    wait
    whole S || return 1
  done
}
differ () { ! cmp -s "$1" "$2"; }
check references_differ differ "$TMP/A.tl.json" "$TMP/B.tl.json"
check concurrent_runs_leave_whole_files concurrent
check concurrent_no_temporary_left [ "$(ls "$TMP"/S.* | wc -l)" = 3 ]

# ---- traces written by gen (and rescale): the same rules --------------------------
gen4 () { # PREFIX SIZE: 200,000 all-reduces (14 MB a trace) of SIZE
  "$ORRERY" gen collective --type all-reduce --ranks 4 --bytes "$2" --count 200000 --out "$1" \
    >/dev/null
}
gen4 "$TMP/GA" 1MiB
gen4 "$TMP/GB" 2MiB
whole_traces () {
  local r
  for r in 0 1 2 3; do
    cmp -s "$TMP/GS.$r.et" "$TMP/GA.$r.et" || cmp -s "$TMP/GS.$r.et" "$TMP/GB.$r.et" \
      || { echo "  GS.$r.et is neither gen's" >&2; return 1; }
  done
}
concurrent_gen () {
  local i
  for i in 1 2 3; do
    gen4 "$TMP/GS" 1MiB & gen4 "$TMP/GS" 2MiB &
    wait
    whole_traces || return 1
  done
}
check gen_references_differ differ "$TMP/GA.0.et" "$TMP/GB.0.et"
check concurrent_gens_leave_whole_traces concurrent_gen
check concurrent_gen_no_temporary_left [ "$(ls "$TMP"/GS.* | wc -l)" = 4 ]
cp "$TMP/GA.0.et" "$TMP/target.et"
ln -s target.et "$TMP/GL.0.et"
gen4 "$TMP/GL" 2MiB
check gen_link_stays_a_link [ -L "$TMP/GL.0.et" ]
check gen_link_target_written cmp -s "$TMP/target.et" "$TMP/GB.0.et"

# A sweep's own outputs named by relative paths in <run-options> and
# <generate> land in each point's directory, not where `sweep run` was
# started (once every point wrote the one file there, in turn).
mkdir -p "$TMP/sw" "$TMP/cwd"
four_rank_cluster "$TMP/sw"
cat >"$TMP/sw/s.xml" <<'EOF'
<sweep name="s">
  <config path="cluster.xml"/>
  <generate>gen collective -t all_reduce -n 4 -b {size} --comm-groups-out g.json</generate>
  <run-options>--timeline t.json</run-options>
  <grid><param name="size" values="1KiB 2KiB"/></grid>
</sweep>
EOF
"$ORRERY" sweep expand "$TMP/sw/s.xml" "$TMP/sw/out" >/dev/null
(cd "$TMP/cwd" && "$ORRERY" sweep run ../sw/out 0 && "$ORRERY" sweep run ../sw/out 1) \
  >/dev/null 2>&1
check sweep_outputs_in_each_point test -s "$TMP/sw/out/points/0/t.json" \
  -a -s "$TMP/sw/out/points/1/t.json" -a -s "$TMP/sw/out/points/1/g.json"
check sweep_outputs_not_in_cwd eq "$(ls -A "$TMP/cwd")" ""

finish
