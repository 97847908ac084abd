#!/usr/bin/env bash
# Tests of scripts/plot: sweep CSVs written here by hand (a quoted field, a
# failed point, values with units) drawn as lines and heat maps, the data
# files gnuplot reads checked against values computed by hand, the errors;
# and the report mode on a small hand-written report (with the real orrery
# binary, ORRERY, default build/orrery).  Prints one "ok NAME" or "FAIL
# NAME" line per check, then "N checks, N failed"; exits 1 if any check
# failed.  Without gnuplot, prints "skip: gnuplot not installed" and exits 0.
# Usage: tests/scripts/test_plot.sh   (run by `make check` through
# scripts/run-tests, from the repository root).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
PLOT=$PWD/scripts/plot

command -v gnuplot >/dev/null 2>&1 || skip "gnuplot not installed"
make_tmp

# png FILE: FILE starts with PNG's signature (89 50 4E 47 0D 0A 1A 0A).
png () { [ "$(head -c 8 "$1" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
# svg FILE: FILE is a non-empty SVG document.
svg () { [ -s "$1" ] && grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }
# pdf FILE: FILE is a PDF document (its header and end-of-file marker).
pdf () { [ "$(head -c 5 "$1" 2>/dev/null)" = %PDF- ] && tail -c 32 "$1" | grep -q '%%EOF'; }
# drawn PREFIX: PREFIX.png, PREFIX.svg and PREFIX.pdf were drawn.
drawn () { png "$1.png" && svg "$1.svg" && pdf "$1.pdf"; }
# lacks FILE TEXT: FILE does not hold TEXT.
lacks () { ! grep -qF -- "$2" "$1"; }
# same ACTUAL EXPECTED: the two texts are equal (a diff on stderr if not).
same () { diff -u <(printf '%s\n' "$2") <(printf '%s\n' "$1") >&2; }
# same_file FILE EXPECTED: FILE holds EXPECTED and a line break.
same_file () { diff -u <(printf '%s\n' "$2") "$1" >&2; }
# fails_with LOG MESSAGE COMMAND...: COMMAND exits 1 with one line on
# stderr, which holds MESSAGE, and draws nothing.
fails_with () {
  local log=$1 msg=$2 rc=0; shift 2
  "$@" >"$log.out" 2>"$log" || rc=$?
  [ "$rc" = 1 ] || { echo "  exit status $rc, expected 1" >&2; return 1; }
  [ "$(wc -l <"$log")" = 1 ] || { echo "  stderr: $(cat "$log")" >&2; return 1; }
  has "$log" "$msg" || { echo "  stderr: $(cat "$log")" >&2; return 1; }
  ! grep -q '\.png$' "$log.out"
}
T=$'\t'

# A sweep of size x algorithm x model.  The second algorithm's name holds a
# comma, so it is quoted; point 3 failed, with a message holding doubled
# quotes, a comma and a line break.
cat >"$TMP/grid.csv" <<'EOF'
point,size,algo,model,status,simulated_time_ns,compute_ns,exposed_comm_ns,busbw_GBps,wall_s,error
0,16MiB,"ring, 2 chunks",flow,ok,1500000,0,1500000,10,0.5,
1,64MiB,"ring, 2 chunks",flow,ok,4500000,0,4500000,15,0.25,
2,16MiB,tree,flow,ok,2500,0,2500,20,0.125,
3,64MiB,tree,flow,failed,,,,,0.5,"exit 1: a ""quoted"", message
on two lines"
4,16MiB,"ring, 2 chunks",analytical,ok,1000000,0,1000000,30,0.5,
5,64MiB,"ring, 2 chunks",analytical,ok,2000000,0,2000000,40,0.5,
6,16MiB,tree,analytical,ok,3000000,0,3000000,50,0.5,
7,64MiB,tree,analytical,ok,6000000,0,6000000,60,0.5,
EOF

# Lines, model fixed: 16MiB and 64MiB are 16777216 and 67108864 bytes, the
# largest time 4,500,000 ns is below 10,000 us, so times are in us.
out=$TMP/flow
"$PLOT" --sweep "$TMP/grid.csv" --x size --series algo --where model=flow -o "$out" \
  >"$out.out" 2>"$out.err"
check lines_exit [ $? = 0 ]
check lines_drawn drawn "$out-simulated_time_ns"
check lines_prints_paths same_file "$out.out" "$out-simulated_time_ns.dat
$out-simulated_time_ns.png
$out-simulated_time_ns.svg
$out-simulated_time_ns.pdf"
check lines_data same_file "$out-simulated_time_ns.dat" "# grid: simulated time (us) against size, one block per algo
# columns: size (bytes), simulated time (us), size as written
# algo: ring, 2 chunks
16777216${T}1500${T}16MiB
67108864${T}4500${T}64MiB


# algo: tree
16777216${T}2.5${T}16MiB"
check lines_failed_counted has "$out.err" "left out 1 of 4 points matching --where model=flow: status not ok (1 failed)"
check lines_constant_in_title grep -q "model=flow" "$out-simulated_time_ns.svg"

# The same data again, byte for byte.
cp "$out-simulated_time_ns.dat" "$TMP/first.dat"
"$PLOT" --sweep "$TMP/grid.csv" --x size --series algo --where model=flow -o "$out" >/dev/null 2>&1
check lines_deterministic cmp -s "$TMP/first.dat" "$out-simulated_time_ns.dat"

# The bare form with the defaults: x = size, one line per algo, model
# added to the labels; the prefix is the CSV's path without .csv.  The
# largest time, 6,000,000 ns, is 6000 us.
"$PLOT" "$TMP/grid.csv" >"$TMP/bare.out" 2>"$TMP/bare.err"
check bare_exit [ $? = 0 ]
check bare_drawn drawn "$TMP/grid-simulated_time_ns"
check bare_blocks same "$(grep '^# algo' "$TMP/grid-simulated_time_ns.dat")" "# algo, model: ring, 2 chunks, flow
# algo, model: tree, flow
# algo, model: ring, 2 chunks, analytical
# algo, model: tree, analytical"
check bare_values has "$TMP/grid-simulated_time_ns.dat" "67108864${T}6000${T}64MiB"
check bare_failed_counted has "$TMP/bare.err" "left out 1 of 8 points: status not ok (1 failed)"

# Two values of one --where are alternatives: the same as no --where.
"$PLOT" "$TMP/grid.csv" --where model=flow --where=model=analytical -o "$TMP/both" >/dev/null 2>&1
check where_alternatives cmp -s "$TMP/both-simulated_time_ns.dat" "$TMP/grid-simulated_time_ns.dat"
# Two --where on different parameters must both hold.
"$PLOT" "$TMP/grid.csv" --x size --where model=analytical --where algo=tree -o "$TMP/one" >/dev/null 2>&1
check where_filters same "$(grep -v '^#' "$TMP/one-simulated_time_ns.dat")" "16777216${T}3000${T}16MiB
67108864${T}6000${T}64MiB"

# wall_s: 0.5 s is 500,000,000 ns, at least 10,000 us: shown in ms.
"$PLOT" "$TMP/grid.csv" --y wall_s --x algo --series size --where model=flow -o "$TMP/wall" >/dev/null 2>&1
check wall_in_ms same "$(sed -n '2,4p' "$TMP/wall-wall_s.dat")" "# columns: algo as a category number, wall time (ms), algo as written
# size: 16MiB
0${T}500${T}ring, 2 chunks"

# Heat map of bus bandwidth, model fixed: size across, algo down in order
# of appearance; 30..60 GB/s, so 30 and 40 (below the middle of the
# colour scale) are printed white (16777215), 50 and 60 black.
out=$TMP/heat
"$PLOT" --sweep "$TMP/grid.csv" --x size --heat algo --y busbw_GBps --where model=analytical \
  -o "$out" >"$out.out" 2>"$out.err"
check heat_exit [ $? = 0 ]
check heat_drawn drawn "$out-busbw_GBps-heat"
check heat_data same "$(grep -v '^#' "$out-busbw_GBps-heat.dat")" "0${T}0${T}30${T}16MiB${T}ring, 2 chunks${T}30${T}16777215
1${T}0${T}40${T}64MiB${T}ring, 2 chunks${T}40${T}16777215
0${T}1${T}50${T}16MiB${T}tree${T}50${T}0
1${T}1${T}60${T}64MiB${T}tree${T}60${T}0"
check heat_quiet [ ! -s "$out.err" ]
# The failed point leaves its cell empty (grey).
"$PLOT" --sweep "$TMP/grid.csv" --heat algo --where model=flow -o "$TMP/hole" >/dev/null 2>"$TMP/hole.err"
check heat_hole same "$(grep -v '^#' "$TMP/hole-simulated_time_ns-heat.dat" | cut -f1-3)" "0${T}0${T}1500
1${T}0${T}4500
0${T}1${T}2.5"
check heat_hole_drawn drawn "$TMP/hole-simulated_time_ns-heat"
check heat_hole_counted has "$TMP/hole.err" "(1 failed)"

# Units: bandwidths over a factor 1000 (a log axis) in B/s (1 Gb/s is
# 125,000,000 B/s), sorted by value.
cat >"$TMP/bw.csv" <<'EOF'
point,bw,status,simulated_time_ns,busbw_GBps,error
0,1Tb/s,ok,1000,1,
1,10Gb/s,ok,2000,2,
2,1Gb/s,ok,3000,3,
3,100Gb/s,ok,4000,4,
EOF
"$PLOT" "$TMP/bw.csv" -o "$TMP/bw" >/dev/null 2>&1
check bandwidth_axis same_file "$TMP/bw-simulated_time_ns.dat" "# bw: simulated time (us) against bw
# columns: bw (B/s, log scale), simulated time (us), bw as written
# all points
125000000${T}3${T}1Gb/s
1250000000${T}2${T}10Gb/s
12500000000${T}4${T}100Gb/s
125000000000${T}1${T}1Tb/s"
# The axis label names the unit its tics are written in: these tics read
# 1Gb/s ... 1Tb/s, two units, so the label names none (the data file's
# column stays in B/s, its numbers' unit).
check bandwidth_label has "$TMP/bw-simulated_time_ns.svg" "<text>bw (log scale)</text>"
check bandwidth_label_not_base lacks "$TMP/bw-simulated_time_ns.svg" "B/s, log scale"
# All in Gb/s, a factor 1000: the label says Gb/s, as the tics do.
printf '%s\n' "point,bw,status,simulated_time_ns,error" "0,1Gb/s,ok,4," "1,10Gb/s,ok,3," \
  "2,100Gb/s,ok,2," "3,1000Gb/s,ok,1," >"$TMP/gbps.csv"
"$PLOT" "$TMP/gbps.csv" >/dev/null 2>&1
check gbps_label has "$TMP/gbps-simulated_time_ns.svg" "<text>bw (Gb/s, log scale)</text>"
check gbps_tic has "$TMP/gbps-simulated_time_ns.svg" "<text>100Gb/s</text>"
# tilted FILE TIC: the tic TIC of FILE (an SVG) is drawn rotated.
tilted () { grep -B1 -F "<text>$2</text>" "$1" | head -1 | grep -q 'rotate('; }
# 100 .. 800 Gb/s, a factor 8: a linear axis, where 100Gb/s and 200Gb/s
# written flat overlapped (their centres 92 pixels apart, each about 80
# wide): the tics are tilted.  A factor 1000 on a log axis leaves room.
printf '%s\n' "point,bw,status,simulated_time_ns,error" "0,100Gb/s,ok,4," "1,200Gb/s,ok,3," \
  "2,400Gb/s,ok,2," "3,800Gb/s,ok,1," >"$TMP/nic.csv"
"$PLOT" "$TMP/nic.csv" >/dev/null 2>&1
check crowded_tics_tilted tilted "$TMP/nic-simulated_time_ns.svg" 100Gb/s
check roomy_tics_flat eval '! tilted "$TMP/gbps-simulated_time_ns.svg" 100Gb/s'

# A heat map and the lines of one metric, with one prefix: two sets of files.
"$PLOT" "$TMP/grid.csv" --x size --where model=flow -o "$TMP/kinds" >"$TMP/kinds.out" 2>/dev/null
"$PLOT" "$TMP/grid.csv" --x size --heat algo --where model=flow -o "$TMP/kinds" \
  >>"$TMP/kinds.out" 2>/dev/null
check kinds_lines_drawn drawn "$TMP/kinds-simulated_time_ns"
check kinds_heat_drawn drawn "$TMP/kinds-simulated_time_ns-heat"
check kinds_two_names eq "$(sort -u "$TMP/kinds.out" | wc -l)" 8
check kinds_lines_kept has "$TMP/kinds-simulated_time_ns.dat" "one block per algo"
check kinds_heat_kept has "$TMP/kinds-simulated_time_ns-heat.dat" "one line per cell"

# Titles name the sweep by its spec's <sweep name> (copied by scripts/sweep
# beside sweep.csv as spec.xml), not by the folder; without a spec, by the
# folder.
mkdir -p "$TMP/run7"
cp "$TMP/grid.csv" "$TMP/run7/sweep.csv"
"$PLOT" "$TMP/run7/sweep.csv" -o "$TMP/run7/nospec" >/dev/null 2>&1
check title_folder has "$TMP/run7/nospec-simulated_time_ns.svg" "<text>run7: simulated time"
printf '%s\n' '<?xml version="1.0"?>' '<!-- a comment: <sweep name="not this"> -->' \
  '<sweep' '   name="link &amp; size study">' '  <param name="size" values="1 2"/>' \
  '</sweep>' >"$TMP/run7/spec.xml"
"$PLOT" "$TMP/run7/sweep.csv" >/dev/null 2>&1
check title_sweep_name has "$TMP/run7/sweep-simulated_time_ns.svg" \
  "<text>link &amp; size study: simulated time"
check title_not_folder lacks "$TMP/run7/sweep-simulated_time_ns.svg" "run7:"

# Latencies with time units, in ns, on a linear axis (a factor 4); chunk
# counts, plain numbers, as the series.
cat >"$TMP/lat.csv" <<'EOF'
point,lat,chunks,status,simulated_time_ns,busbw_GBps,error
0,2us,4,ok,1000,1,
1,500ns,4,ok,2000,2,
2,1.5 us,8,ok,3000,3,
3,0.002ms,8,ok,4000,4,
EOF
"$PLOT" "$TMP/lat.csv" -o "$TMP/lat" >/dev/null 2>&1
check time_axis same_file "$TMP/lat-simulated_time_ns.dat" "# lat: simulated time (us) against lat, one block per chunks
# columns: lat (ns), simulated time (us), lat as written
# chunks: 4
500${T}2${T}500ns
2000${T}1${T}2us


# chunks: 8
1500${T}3${T}1.5 us
2000${T}4${T}0.002ms"
"$PLOT" "$TMP/lat.csv" --x chunks -o "$TMP/chunks" >/dev/null 2>&1
check plain_numbers has "$TMP/chunks-simulated_time_ns.dat" "# columns: chunks, "
# Sizes of a factor 4 each, 64 in all: log scale as well.
printf '%s\n' "point,size,status,simulated_time_ns,error" "0,16MiB,ok,1," "1,64MiB,ok,2," \
  "2,256MiB,ok,3," "3,1GiB,ok,4," >"$TMP/sizes.csv"
"$PLOT" "$TMP/sizes.csv" >/dev/null 2>&1
check geometric_log has "$TMP/sizes-simulated_time_ns.dat" "# columns: size (bytes, log scale), "
check single_line drawn "$TMP/sizes-simulated_time_ns"
# Mixed kinds of values are categories, in order of appearance.
printf '%s\n' "point,size,status,simulated_time_ns,error" "0,1GiB,ok,1," "1,fast,ok,2," "2,16MiB,ok,3," \
  >"$TMP/mixed.csv"
"$PLOT" "$TMP/mixed.csv" >/dev/null 2>&1
check categories same "$(grep -v '^#' "$TMP/mixed-simulated_time_ns.dat")" "0${T}0.001${T}1GiB
1${T}0.002${T}fast
2${T}0.003${T}16MiB"

# Errors: one line, exit 1, nothing drawn.
e=$TMP/err
check err_unknown_x fails_with "$e" "unknown parameter 'nosuch' for --x; the parameters are: size, algo, model" \
  "$PLOT" --sweep "$TMP/grid.csv" --x nosuch -o "$e"
check err_unknown_metric fails_with "$e" "unknown metric 'flops' for --y; the metrics are: simulated_time_ns, compute_ns, exposed_comm_ns, busbw_GBps, wall_s" \
  "$PLOT" --sweep "$TMP/grid.csv" --y flops -o "$e"
check err_unknown_where fails_with "$e" "unknown parameter 'nosuch' for --where" \
  "$PLOT" --sweep "$TMP/grid.csv" --where nosuch=1 -o "$e"
check err_where_value fails_with "$e" "no point has model=nosuch; its values are: flow, analytical" \
  "$PLOT" --sweep "$TMP/grid.csv" --where model=nosuch -o "$e"
check err_where_syntax fails_with "$e" "--where needs PARAM=VALUE" \
  "$PLOT" --sweep "$TMP/grid.csv" --where model -o "$e"
check err_empty_selection fails_with "$e" "nothing to plot: none of the 1 points matching --where size=64MiB --where algo=tree --where model=flow is ok" \
  "$PLOT" --sweep "$TMP/grid.csv" --where size=64MiB --where algo=tree --where model=flow -o "$e"
check err_heat_varying fails_with "$e" "model varies too: fix it with --where PARAM=VALUE (e.g. --where model=flow)" \
  "$PLOT" --sweep "$TMP/grid.csv" --heat algo -o "$e"
check err_heat_same_x fails_with "$e" "--heat and --x both name 'size'" \
  "$PLOT" --sweep "$TMP/grid.csv" --heat size -o "$e"
check err_no_csv fails_with "$e" "cannot read $TMP/none.csv" "$PLOT" "$TMP/none.csv"
printf 'point,a,status,simulated_time_ns\n0,"x,1,ok,5\n' >"$TMP/open.csv"
check err_open_quote fails_with "$e" "a quoted field is never closed" "$PLOT" "$TMP/open.csv" -o "$e"
printf 'point,a,status,simulated_time_ns\n0,x,ok\n' >"$TMP/short.csv"
check err_field_count fails_with "$e" "line 2 has 3 fields, the header 4" "$PLOT" "$TMP/short.csv" -o "$e"
# Without gnuplot on PATH (bash alone is there), before reading anything.
mkdir -p "$TMP/bin"
ln -s "$(command -v bash)" "$TMP/bin/bash"
check err_no_gnuplot fails_with "$e" "gnuplot is missing" \
  env PATH="$TMP/bin" "$TMP/bin/bash" "$PLOT" --sweep "$TMP/grid.csv" -o "$e"
"$PLOT" --help >"$TMP/help" 2>&1
check help_exit [ $? = 0 ]
check help_sweep_mode has "$TMP/help" "scripts/plot --sweep CSV"
check help_report_mode has "$TMP/help" "scripts/plot REPORT.json"

# ---- plan mode -------------------------------------------------------------
# A plan.csv by hand, rows out of id order.  Memory (GiB) and time (ms) of
# the simulated candidates, by memory: 0 (1, 900), 7 (1.5, 1200), 1 (2,
# 500), 2 (2, 700), 3 (3, 500), 4 (4, 250), 5 (4, 250), 6 (5, 300).  The
# front: 0 (the smallest), 1 (faster than 0; 2 is as large and slower), 4
# and 5 (faster than 1, and alike: neither beats the other); 7 is beaten by
# 0, 3 by 1 (as fast and smaller), 6 by 4.  The fastest: 4 (the lower id
# of the tie).  The largest time, 1,200 ms, is 1,200,000 us: shown in ms.
# Left out: 2 pruned, 1 bounded-out, 1 failed (its reason quoted, with a
# comma).
PLAN_HEADER=id,tp,pp,v,dp,cp,ep,micro_batch,zero,recompute,schedule,status,reason
PLAN_HEADER+=,memory_per_gpu_B,bound_ps,iteration_ps,mfu_pct,tokens_per_s,compute_pct
PLAN_HEADER+=,exposed_comm_pct,bubble_pct,waiting_pct
{ echo "$PLAN_HEADER"; cat; } >"$TMP/hand.csv" <<'EOF'
6,1,1,1,8,1,1,1,zero1,none,1f1b,simulated,"",5368709120,1000,300000000000,1,1,1,1,1,1
5,2,1,1,4,1,1,1,zero1,none,1f1b,simulated,"",4294967296,1000,250000000000,1,1,1,1,1,1
4,2,1,1,4,1,1,2,zero1,none,1f1b,simulated,"",4294967296,1000,250000000000,1,1,1,1,1,1
0,8,1,1,1,1,1,1,zero0,full,1f1b,simulated,"",1073741824,1000,900000000000,1,1,1,1,1,1
1,4,2,1,1,1,1,1,dist-opt,selective,gpipe,simulated,"",2147483648,1000,500000000000,1,1,1,1,1,1
2,4,2,1,1,1,1,2,dist-opt,selective,gpipe,simulated,"",2147483648,1000,700000000000,1,1,1,1,1,1
3,2,2,2,2,1,1,1,zero3,none,1f1b,simulated,"",3221225472,1000,500000000000,1,1,1,1,1,1
7,1,2,1,2,2,1,1,zero0,full,1f1b,simulated,"",1610612736,1000,1200000000000,1,1,1,1,1,1
8,1,1,1,8,1,1,4,zero0,none,1f1b,pruned,"memory",99999999999,,,,,,,,
9,16,1,1,1,1,1,1,zero0,none,1f1b,pruned,"tp wider than a node",,,,,,,,,
10,1,4,1,2,1,1,1,zero0,none,1f1b,bounded-out,"",1073741824,1300000000000,,,,,,,
11,1,8,1,1,1,1,1,zero0,none,gpipe,failed,"exit 1: a ""quoted"", message",1073741824,1000,,,,,,,
EOF
out=$TMP/hand
"$PLOT" --plan "$TMP/hand.csv" -o "$out" >"$out.out" 2>"$out.err"
check plan_exit [ $? = 0 ]
check plan_drawn drawn "$out-time-memory"
check plan_prints_paths same_file "$out.out" "$out-time-memory.dat
$out-time-memory.png
$out-time-memory.svg
$out-time-memory.pdf"
check plan_data same_file "$out-time-memory.dat" \
  "# hand: iteration time (ms) against memory per GPU (GiB): 8 candidates, 4 on the Pareto front
# columns: memory per GPU (GiB), iteration time (ms), id, knobs
# the Pareto front, by memory
1${T}900${T}0${T}tp8 pp1 v1 dp1 mb1 zero0 full 1f1b
2${T}500${T}1${T}tp4 pp2 v1 dp1 mb1 dist-opt selective gpipe
4${T}250${T}4${T}tp2 pp1 v1 dp4 mb2 zero1 none 1f1b
4${T}250${T}5${T}tp2 pp1 v1 dp4 mb1 zero1 none 1f1b


# the fastest
4${T}250${T}4${T}tp2 pp1 v1 dp4 mb2 zero1 none 1f1b


# not on the Pareto front, by memory
1.5${T}1200${T}7${T}tp1 pp2 v1 dp2 cp2 mb1 zero0 full 1f1b
2${T}700${T}2${T}tp4 pp2 v1 dp1 mb2 dist-opt selective gpipe
3${T}500${T}3${T}tp2 pp2 v2 dp2 mb1 zero3 none 1f1b
5${T}300${T}6${T}tp1 pp1 v1 dp8 mb1 zero1 none 1f1b"
check plan_left_out same_file "$out.err" \
  "plot: left out 4 of 12 candidates: 1 bounded-out, 1 failed, 2 pruned"
# 4 and 5, alike, share one label.
check plan_tie_label grep -q '>4, 5<' "$out-time-memory.svg"
check plan_fastest_in_key grep -q "tp2 pp1 v1 dp4 mb2 zero1 none 1f1b" "$out-time-memory.svg"
check plan_title grep -q "hand: iteration time against memory per GPU" "$out-time-memory.svg"
# Front points that nearly coincide (0.06 GiB and 1 ms apart, on axes of
# some 45 GiB and 1100 ms) wrote their ids over each other: the first is
# labelled above right, the second below right, and the third, with no
# room left, joins the label it would cover; the two labels stand at least
# a line (the 20-point font) apart.
{ echo "$PLAN_HEADER"; cat; } >"$TMP/near.csv" <<'EOF'
3012,1,1,1,8,1,1,1,zero1,none,1f1b,simulated,"",42949672960,1000,1045000000000,1,1,1,1,1,1
3014,1,1,1,8,1,1,2,zero1,none,1f1b,simulated,"",43014097715,1000,1044000000000,1,1,1,1,1,1
3016,1,1,1,8,1,1,4,zero1,none,1f1b,simulated,"",43078522470,1000,1043000000000,1,1,1,1,1,1
5,2,1,1,4,1,1,1,zero1,none,1f1b,simulated,"",21474836480,1000,2000000000000,1,1,1,1,1,1
6,2,1,1,4,1,1,1,zero1,none,1f1b,simulated,"",64424509440,1000,900000000000,1,1,1,1,1,1
EOF
"$PLOT" --plan "$TMP/near.csv" -o "$TMP/near" >/dev/null 2>&1
label_y () {
  grep -B1 -F ">$1<" "$TMP/near-time-memory.svg" | head -1 \
    | sed -E 's/.*translate\([0-9.]+,([0-9.]+)\).*/\1/'
}
check plan_near_labels_apart awk -v a="$(label_y 3012)" -v b="$(label_y '3014, 3016')" \
  'BEGIN { exit !(a != "" && b != "" && b - a >= 20) }'
check plan_far_labels_alone grep -q '>6<' "$TMP/near-time-memory.svg"
# The title fits the picture: each line, centred at its x, at most half its
# characters x 11 px (a 20-point sans glyph is about 0.55 em) left of it.
# On one line (91 characters, centred over the narrow plot beside the key)
# it began left of the picture's edge.
title_fits () {
  awk '/text-anchor="middle"/ && match($0, /translate\([0-9.]+/) {
         x = substr($0, RSTART + 10, RLENGTH - 10); next }
       x != "" && /<text>/ { t = $0; gsub(/^[ \t]*<text>|<\/text>.*$/, "", t)
         if (t ~ /against memory|Pareto front/) { seen++; if (x - length(t) * 11 / 2 < 0) bad++ }
         x = "" }
       END { exit !(seen > 0 && !bad) }' "$1"
}
check plan_title_fits title_fits "$out-time-memory.svg"
# The plot spans the picture's width: the key (with the fastest's knobs, 35
# characters here, 40 with dp 256, cp and ep) stood right of it and
# squeezed it into a third of the 1200 px, its title centred over that
# third (x 352 for a plan of Llama-3 70B on 1,024 GPUs) and cut off at
# the left in the PNG.  Now the key is below: the title, centred over the
# plot, is within 100 px of the picture's middle, 600.
title_centred () {
  awk '/text-anchor="middle"/ && match($0, /translate\([0-9.]+/) {
         x = substr($0, RSTART + 10, RLENGTH - 10); next }
       x != "" && /<text>/ { if ($0 ~ /against memory/) { seen++; if (x < 500 || x > 700) bad++ }
         x = "" }
       END { exit !(seen > 0 && !bad) }' "$1"
}
check plan_plot_full_width title_centred "$out-time-memory.svg"
cp "$out-time-memory.dat" "$TMP/first.dat"
"$PLOT" --plan "$TMP/hand.csv" -o "$out" >/dev/null 2>&1
check plan_deterministic cmp -s "$TMP/first.dat" "$out-time-memory.dat"

# The bare form tells a plan's CSV by its header, from any folder (here a
# relative path from the CSV's); a plan.csv is named after its directory.
# Times: up to 9,999 us (9.999e9 ps) stay in us; 20 s (2e13 ps) is 20,000
# ms, so s.
mkdir -p "$TMP/us" "$TMP/s"
{ echo "$PLAN_HEADER"
  echo '0,1,1,1,8,1,1,1,zero1,none,1f1b,simulated,"",1073741824,1,9999000000,1,1,1,1,1,1'
  echo '1,2,1,1,4,1,1,1,zero1,none,1f1b,simulated,"",536870912,1,2500000,1,1,1,1,1,1'
} >"$TMP/us/plan.csv"
(cd "$TMP/us" && "$PLOT" plan.csv) >"$TMP/us.out" 2>"$TMP/us.err"
check plan_bare_exit [ $? = 0 ]
check plan_bare_drawn drawn "$TMP/us/plan-time-memory"
check plan_bare_quiet [ ! -s "$TMP/us.err" ]
check plan_us same "$(grep -v '^#' "$TMP/us/plan-time-memory.dat" | grep .)" \
  "0.5${T}2.5${T}1${T}tp2 pp1 v1 dp4 mb1 zero1 none 1f1b
0.5${T}2.5${T}1${T}tp2 pp1 v1 dp4 mb1 zero1 none 1f1b
1${T}9999${T}0${T}tp1 pp1 v1 dp8 mb1 zero1 none 1f1b"
check plan_named_after_dir has "$TMP/us/plan-time-memory.dat" "# us: iteration time (us)"
{ echo "$PLAN_HEADER"
  echo '0,1,1,1,8,1,1,1,zero1,none,1f1b,simulated,"",1073741824,1,20000000000000,1,1,1,1,1,1'
} >"$TMP/s/plan.csv"
"$PLOT" -o "$TMP/s/out" "$TMP/s/plan.csv" >/dev/null 2>"$TMP/s.err"
# One candidate: the front alone, no other block drawn, gnuplot quiet.
check plan_one_quiet [ ! -s "$TMP/s.err" ]
check plan_s has "$TMP/s/out-time-memory.dat" "1${T}20${T}0${T}"
check plan_s_unit has "$TMP/s/out-time-memory.dat" \
  "# columns: memory per GPU (GiB), iteration time (s)"

# orrery plan --dlrm's plan.csv (its own columns: what, max_memory_B), by
# the bare form too.  Memory (GiB) and time (ms): 0 (2, 26), 1 (1, 21), 3
# (1, 22); 2 pruned.  The front: 1 alone (3 is as large and slower, 0
# larger and slower); the fastest: 1, named by its `what`.
mkdir -p "$TMP/dl"
DL_HEADER=id,what,baseline,status,note,accepted,max_memory_B,iteration_ps
DL_HEADER+=,lookup_max_over_mean,comm_max_over_mean,plan,bound_ps
{ echo "$DL_HEADER"; cat; } >"$TMP/dl/plan.csv" <<'EOF'
0,table-wise greedy by size (gen dlrm's),1,simulated,,0,2147483648,26000000000,4.4,3,tw tw,1
1,every table column-wise,1,simulated,,0,1073741824,21000000000,1,1,cw cw,1
2,every table data-parallel,1,pruned,memory: rank 0 needs 9 GiB,0,9663676416,,1,1,dp dp,0
3,t0 row_wise,0,simulated,,1,1073741824,22000000000,1,1,rw cw,1
EOF
"$PLOT" "$TMP/dl/plan.csv" >/dev/null 2>"$TMP/dl.err"
check plan_dlrm_exit [ $? = 0 ]
check plan_dlrm_drawn drawn "$TMP/dl/plan-time-memory"
check plan_dlrm_data same "$(grep -v '^#' "$TMP/dl/plan-time-memory.dat" | grep .)" \
  "1${T}21${T}1${T}every table column-wise
1${T}21${T}1${T}every table column-wise
1${T}22${T}3${T}t0 row_wise
2${T}26${T}0${T}table-wise greedy by size (gen dlrm's)"
check plan_dlrm_left_out same_file "$TMP/dl.err" "plot: left out 1 of 4 candidates: 1 pruned"

# Errors: one line naming the file, exit 1, nothing drawn.
msg="plot: $TMP/grid.csv: not a plan CSV (orrery plan's plan.csv): no \"id\" column"
check err_plan_not_plan fails_with "$e" "$msg" "$PLOT" --plan "$TMP/grid.csv" -o "$e"
sed 's/,simulated,/,bounded-out,/' "$TMP/hand.csv" >"$TMP/none.csv"
msg="plot: $TMP/none.csv: no simulated candidate to plot"
msg+=" (12 candidates: 9 bounded-out, 1 failed, 2 pruned)"
check err_plan_none_simulated fails_with "$e" "$msg" "$PLOT" --plan "$TMP/none.csv" -o "$e"
check err_plan_option fails_with "$e" "unknown option --x for a plan's CSV" \
  "$PLOT" --plan "$TMP/hand.csv" --x tp -o "$e"
check help_plan_mode has "$TMP/help" "scripts/plot --plan CSV [-o PREFIX]"

# Report mode, unchanged: 3 ranks and a 4-bin overview (the report of
# tests/app/test_plotdata.c).
if [ -x "$ORRERY" ] || command -v "$ORRERY" >/dev/null 2>&1; then
  cat >"$TMP/r.json" <<'EOF'
{
  "schema_version": 2,
  "simulated_time_ns": 10000000, "simulated_time_ps": 10000000003,
  "ranks": [
    { "rank": 0, "finish_ps": 10000000003, "compute_ps": 6000000000,
      "exposed_comm_ps": 4000000003, "idle_ps": 0, "after_finish_ps": 0 },
    { "rank": 1, "finish_ps": 7500000000, "compute_ps": 2500000000,
      "exposed_comm_ps": 1000000000, "idle_ps": 4000000000, "after_finish_ps": 2500000003 },
    { "rank": 2, "finish_ps": 1000000, "compute_ps": 999999,
      "exposed_comm_ps": 1, "idle_ps": 0, "after_finish_ps": 9999000003 }
  ],
  "overview": {
    "bins": 4, "bin_ps": 2500000001,
    "ranks": [
      { "rank": 0, "compute": [1, 0.5, 0.4, 0.0], "comm": [0, 0.5, 0.3, 0.9] },
      { "rank": 1, "compute": [0.2, 0, 0.25, 0], "comm": [0.5, 0.3, 0.25, 0] },
      { "rank": 2, "compute": [0.25, 0, 0, 0], "comm": [0.5, 0.5, 0.25, 1.0] }
    ]
  }
}
EOF
  "$PLOT" "$TMP/r.json" "$TMP/rep" >"$TMP/rep.out" 2>&1
  check report_exit [ $? = 0 ]
  check report_ranks drawn "$TMP/rep-ranks"
  check report_timeline drawn "$TMP/rep-timeline"
  check report_prints_paths same_file "$TMP/rep.out" "$TMP/rep-ranks.png
$TMP/rep-ranks.svg
$TMP/rep-ranks.pdf
$TMP/rep-timeline.png
$TMP/rep-timeline.svg
$TMP/rep-timeline.pdf"
  # Shares, not a majority: rank 0 computes 52 % of bin 0 and waits on
  # communication the other 48 % (a majority label said "compute"); bin 1
  # is a quarter communication, three quarters idle.  Bins of 1 ms: their
  # middles are 0.5 and 1.5 ms.
  cat >"$TMP/s.json" <<'EOF'
{ "schema_version": 2, "simulated_time_ps": 2000000000,
  "ranks": [ { "rank": 0, "finish_ps": 2000000000, "compute_ps": 520000000,
               "exposed_comm_ps": 730000000, "idle_ps": 750000000, "after_finish_ps": 0 } ],
  "overview": { "bins": 2, "bin_ps": 1000000000,
                "ranks": [ { "rank": 0, "compute": [0.52, 0], "comm": [0.48, 0.25] } ] } }
EOF
  "$ORRERY" plot-data "$TMP/s.json" "$TMP/sd" >/dev/null 2>&1
  check shares_exit [ $? = 0 ]
  check shares_data same "$(grep -v '^#' "$TMP/sd/overview.dat")" \
    "0.500000000 0 0.520000 0.480000 0.000000 0.000000
1.500000000 0 0.000000 0.250000 0.750000 0.000000"
  # Shares that do not round evenly still add up to exactly 1 in every bin
  # (added as whole millionths, the decimal points dropped): 0.333333 +
  # 0.666667 + 0, and 0.123457 + 0.4 + 0.476543.
  sed 's/\[0.52, 0\]/[0.3333333, 0.1234567]/; s/\[0.48, 0.25\]/[0.6666667, 0.4]/' \
    "$TMP/s.json" >"$TMP/s3.json"
  "$ORRERY" plot-data "$TMP/s3.json" "$TMP/sd3" >/dev/null 2>&1
  check shares_sum_to_one same "$(awk 'NF == 6 { gsub(/\./, ""); print $3 + $4 + $5 + $6 }' \
    "$TMP/sd3/overview.dat")" "1000000
1000000"
  check shares_rounded has "$TMP/sd3/overview.dat" " 0.123457 0.400000 0.476543"
  "$PLOT" "$TMP/s.json" "$TMP/shares" >/dev/null 2>&1
  check shares_timeline_drawn drawn "$TMP/shares-timeline"
  # No bubble in the report (ASTRA-sim's semantics): three panels.
  check timeline_no_bubble_panel lacks "$TMP/shares-timeline.svg" "pipeline bubble"
  # A native report's bubble is drawn apart in the timeline as in the ranks
  # plot: of bin 1's 0.25 exposed communication, 0.2 is bubble, so the
  # exposed panel gets 0.05 and a fourth panel the bubble's 0.2.
  sed 's/"comm": \[0.48, 0.25\]/&, "bubble": [0, 0.2]/' "$TMP/s.json" >"$TMP/b.json"
  "$ORRERY" plot-data "$TMP/b.json" "$TMP/bd" >/dev/null 2>&1
  check bubble_data same "$(grep -v '^#' "$TMP/bd/overview.dat")" \
    "0.500000000 0 0.520000 0.480000 0.000000 0.000000
1.500000000 0 0.000000 0.050000 0.750000 0.200000"
  "$PLOT" "$TMP/b.json" "$TMP/bubble" >/dev/null 2>&1
  check bubble_timeline_drawn drawn "$TMP/bubble-timeline"
  check bubble_timeline_panel has "$TMP/bubble-timeline.svg" "pipeline bubble"
  # Panels of equal height: the plot borders in the SVG (closed rectangles
  # from the left margin, x 144) are as tall in every panel.  The layout
  # gave the last panel's slot the time axis's label too: 54 pixels
  # against 90, with four panels.
  # heights SVG: "N panels, H1 H2 ...", the distinct heights of the borders.
  heights () {
    grep -oE "d='M144\.00,[0-9.]+ L144\.00,[0-9.]+ L" "$1" | sort -u \
      | awk -F'[,L ]+' '{ n++; h[sprintf("%.0f", $4 - $2)] = 1 }
        END { printf "%d panels,", n; for (k in h) printf " %s", k; print "" }'
  }
  check timeline_four_equal_panels test "$(heights "$TMP/bubble-timeline.svg" \
    | sed -E 's/ [0-9]+$//')" = "4 panels,"
  check timeline_three_equal_panels test "$(heights "$TMP/shares-timeline.svg" \
    | sed -E 's/ [0-9]+$//')" = "3 panels,"
  # The rank label beside 4-digit tics: a report of N ranks, each computing
  # all of one 1 ms bin.  The timeline's left margin was fixed for two
  # digits, so beside 1024's tics the label "rank" was pushed out of the
  # PNG; it now stands at least as far in as beside 64's.
  many () {
    awk -v n="$1" 'BEGIN {
      printf "{ \"schema_version\": 2, \"simulated_time_ps\": 1000000000, \"ranks\": ["
      for (r = 0; r < n; r++)
        printf "%s{ \"rank\": %d, \"finish_ps\": 1000000000, \"compute_ps\": 1000000000, " \
               "\"exposed_comm_ps\": 0, \"idle_ps\": 0, \"after_finish_ps\": 0 }", r ? ", " : "", r
      printf "], \"overview\": { \"bins\": 2, \"bin_ps\": 500000000, \"ranks\": ["
      for (r = 0; r < n; r++)
        printf "%s{ \"rank\": %d, \"compute\": [1, 1], \"comm\": [0, 0] }", r ? ", " : "", r
      print "] } }" }' >"$TMP/n$1.json"
    "$PLOT" "$TMP/n$1.json" "$TMP/n$1" >/dev/null 2>&1
    # The x of the label's anchor in the SVG (the line before its text).
    grep -B1 -F '<text>rank</text>' "$TMP/n$1-timeline.svg" | head -1 \
      | sed -E 's/.*translate\(([0-9.]+),.*/\1/'
  }
  x64=$(many 64) x1024=$(many 1024)
  check wide_rank_tics_label_in awk -v a="$x1024" -v b="$x64" 'BEGIN { exit !(a != "" && a >= b) }'
  # More than the whole bin is an error naming the file and the bin.
  sed 's/\[0.48, 0.25\]/[0.5, 0.25]/' "$TMP/s.json" >"$TMP/over.json"
  check shares_over_one fails_with "$e" \
    "$TMP/over.json: overview.ranks[0].compute[0] + overview.ranks[0].comm[0] is 1.02" \
    "$ORRERY" plot-data "$TMP/over.json" "$TMP/od"
else
  echo "skip: report mode: $ORRERY not built"
fi

# Plan mode end to end: a real orrery plan of a tiny model on the
# four-rank cluster of lib.sh (48 candidates, 32 simulated, in well under a
# second), its plan.csv drawn by the bare form.
if [ -x "$ORRERY" ] || command -v "$ORRERY" >/dev/null 2>&1; then
  mkdir -p "$TMP/plan"
  four_rank_cluster "$TMP/plan"
  "$ORRERY" plan --layers 4 --hidden 512 --heads 8 --vocab 1024 --seq 512 --gpus 4 \
    --global-batch 8 --device H100-SXM --config "$TMP/plan/cluster.xml" --out "$TMP/plan" \
    --space "tp=1,2,4;pp=1,2;v=1;cp=1;mb=1,2;zero=0,1;recompute=none,full;sched=1f1b" \
    >"$TMP/plan.out" 2>&1
  check plan_run_exit [ $? = 0 ]
  "$PLOT" "$TMP/plan/plan.csv" >"$TMP/plan-plot.out" 2>"$TMP/plan-plot.err"
  check plan_run_plot_exit [ $? = 0 ]
  check plan_run_drawn drawn "$TMP/plan/plan-time-memory"
  check plan_run_data [ -s "$TMP/plan/plan-time-memory.dat" ]
  # Every simulated candidate is a point: once on the front or once off it.
  check plan_run_points eq \
    "$(awk '/^# / {skip = /fastest/} !skip && /^[0-9]/' "$TMP/plan/plan-time-memory.dat" \
       | wc -l)" \
    "$(awk -F, '$12 == "simulated"' "$TMP/plan/plan.csv" | wc -l)"
  check plan_run_left_out has "$TMP/plan-plot.err" "plot: left out "
else
  echo "skip: plan mode end to end: $ORRERY not built"
fi

# The script stays within the house limit of ~800 lines a file: a driver
# and its parts in scripts/plot.d/ (hpol item 5).
longest=$(wc -l scripts/plot scripts/plot.d/*.sh | awk '$2 != "total" && $1 > m { m = $1 } END { print m }')
check plot_files_within_800_lines [ "$longest" -le 800 ]
finish
