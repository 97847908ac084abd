# shellcheck shell=bash
# plot.d/run.sh: the mode of one run's JSON report (plot_report): per-rank bars
# and the timeline's panels, from `orrery plot-data`.
# Sourced by scripts/plot (which defines prog, die, usage and plot_d); not
# run alone.

# gnuplot scripts: ARG1 data directory, ARG2 terminal, ARG3 output, ARG4
# title.  Colours (Paul Tol's, readable with colour blindness) are shared:
# compute blue, exposed communication red, pipeline bubble cyan, idle
# yellow, after finish grey.
prologue_gp () {
  cat <<'EOF'
load ARG1.'/meta.gp'
set terminal @ARG2
set termoption noenhanced
set output ARG3
# A time given in ms, in the unit people would say it in.
when(ms) = ms >= 1 ? sprintf('%.6g ms', ms) \
  : (ms >= 1e-3 ? sprintf('%.6g us', ms * 1e3) : sprintf('%.6g ns', ms * 1e6))
EOF
}

ranks_gp () {
  prologue_gp
  cat <<'EOF'
set title sprintf('%s: time per rank (%s simulated)', ARG4, when(simulated_ms))
set xlabel 'rank'
set ylabel 'time (ms)'
set key below center horizontal
set grid ytics
set tics out nomirror
set xrange [-0.5:ranks - 0.5]
set yrange [0:(simulated_ms > 0 ? simulated_ms : 1)]
# Few ranks: a bar with gaps and a tic each; many: bars side by side and
# tics that gnuplot spaces.
if (ranks > 64) {
  set boxwidth 1.0 absolute
  set style fill solid 1.0 noborder
  set xtics autofreq
} else {
  set boxwidth 0.8 absolute
  set style fill solid 1.0 border rgb '#555555'
  set xtics 0, (ranks > 32 ? 4 : (ranks > 16 ? 2 : 1))
}
# Each bar is drawn from its top segment down, every segment over the ones
# below it, so that the key lists the segments as they are stacked.
f = ARG1.'/ranks.dat'
# Column 6, the pipeline bubble, is drawn apart from exposed communication
# (column 3, less it), as the summary counts them.
plot f using 1:($2+$3+$6+$4+$5) with boxes lc rgb '#BBBBBB' title 'waiting after finish', \
     f using 1:($2+$3+$6+$4) with boxes lc rgb '#CCBB44' title 'idle', \
     f using 1:($2+$3+$6) with boxes lc rgb '#66CCEE' title 'pipeline bubble', \
     f using 1:($2+$3) with boxes lc rgb '#EE6677' title 'exposed communication', \
     f using 1:2 with boxes lc rgb '#4477AA' title 'compute'
EOF
}

timeline_gp () {
  prologue_gp
  cat <<'EOF'
# Three panels of rank (rank 0 on top) against time, one per activity,
# four where the report has a pipeline bubble (native runs with pipeline
# stages), which is drawn apart from exposed communication, as in the
# ranks plot: each
# cell is shaded by the activity's share of the rank's time bin, from
# white (none of the bin) to the activity's colour (all of it), so that a
# rank half computing and half waiting on communication shows in both.
# The bins span bins x bin_ms, which rounding may put a little off the
# simulated time.
set tics out nomirror
unset key
set xrange [0:bins * bin_ms]
set yrange [ranks - 0.5:-0.5]
# A panel is short: about four rank tics, at powers of 2 (0, 16, 32, 48).
if (ranks <= 6) { set ytics 1 } else { set ytics 0, 2**ceil(log(ranks / 4.0) / log(2)) }
set cbrange [0:1]
set cbtics 0.5
set ylabel 'rank'
# Margins fixed, so that the panels' time axes line up; the left one wide
# enough for the rank tics and the label beside them: 0.12 holds two
# digits, and each more takes 0.016 (a digit of the PDF's 12 points on 6
# inches, the widest of the terminals), or the label of 1,024 ranks was cut.
digits = strlen(sprintf('%d', ranks > 1 ? ranks - 1 : 1))
set lmargin at screen 0.12 + 0.016 * (digits > 2 ? digits - 2 : 0)
set rmargin at screen 0.84
f = ARG1.'/overview.dat'
# An SVG image is one small PNG that viewers stretch and blur: draw each
# cell as a rectangle there instead, up to 50,000 cells (about 5 MB of SVG;
# larger grids are hardly stretched).
pixels = (GPVAL_TERM eq 'svg' && ranks * bins <= 50000) ? 'pixels' : ''
# overview.dat's columns: 3 compute, 4 exposed communication less the
# bubble, 5 idle, 6 the bubble (0 without one).
panels = bubble ? 4 : 3
columns = bubble ? '3 4 6 5' : '3 4 5'
colours = bubble ? '#4477AA #EE6677 #66CCEE #AA9900' : '#4477AA #EE6677 #AA9900'
# Panels of equal height: each gets an equal slot of the page between the
# figure's title and the time axis below the last, and its plot the slot
# less room for its title.  Left to the layout, the last panel's slot also
# held the axis's label, and its plot was shorter (54 pixels against 90
# with four panels).  The panels share the time axis (the margins line them
# up), so only the last labels its tics.
# A line of text as a share of the page: 20-point text on the PNG's and
# SVG's 1050 pixels, 12-point text on the PDF's 5.25 inches (half as much
# again).
line = GPVAL_TERM eq 'pdfcairo' ? 0.042 : 0.026
slot_top = 1 - 2.7 * line
slot_bottom = 4.2 * line
slot = (slot_top - slot_bottom) / panels
set multiplot layout panels, 1 title sprintf('%s: share of each %s bin per rank', ARG4, \
  when(bin_ms))
do for [p = 1:panels] {
  set tmargin at screen slot_top - (p - 1) * slot - 2.5 * line
  set bmargin at screen slot_top - p * slot + 0.4 * line
  if (p == panels) { set format x '% h' } else { set format x '' }
  c = int(word(columns, p))
  set title (c == 3 ? 'compute' : (c == 4 ? 'exposed communication' \
    : (c == 6 ? 'pipeline bubble' : 'idle or finished')))
  set palette defined (0 'white', 1 word(colours, p))
  if (p == panels) { set xlabel 'time (ms)' } else { unset xlabel }
  # "with image" needs a grid of at least 2 x 2; smaller ones are boxes.
  if (ranks >= 2 && bins >= 2) {
    plot f using 1:2:(column(c)) with image @pixels
  } else {
    plot f using 1:2:(bin_ms / 2):(0.5):(column(c)) with boxxyerror fs solid noborder \
      fc palette
  }
}
unset multiplot
EOF
}

# Mode: one run's JSON report.
plot_report () {
  [ $# -le 2 ] || { usage >&2; exit 1; }
  local report=$1 prefix=${2:-${1%.json}}
  local orrery=${ORRERY:-$(cd "$plot_d/../.." && pwd)/build/orrery}
  [ -r "$report" ] || die "cannot read $report"
  need_gnuplot
  command -v "$orrery" >/dev/null 2>&1 || die "$orrery not found: run make, or set ORRERY"

  local tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/orrery-plot.XXXXXX")
  # shellcheck disable=SC2064  # expand $tmp now: it is local
  trap "rm -rf '$tmp'" EXIT
  "$orrery" plot-data "$report" "$tmp/data" || die "$orrery plot-data failed on $report"
  [ "$(meta "$tmp/data" ranks)" -gt 0 ] || die "$report has no ranks"
  ranks_gp >"$tmp/ranks.gp"
  timeline_gp >"$tmp/timeline.gp"
  mkdir -p "$(dirname "$prefix")"

  local title
  title=$(basename "$report")
  draw "$tmp/ranks.gp" "$tmp/data" "$title" "$prefix-ranks"
  if [ ! -f "$tmp/data/overview.dat" ]; then
    echo "$prog: $report has no \"overview\": no timeline plot" >&2
  elif [ "$(meta "$tmp/data" bin_ms)" = 0.000000000 ]; then
    echo "$prog: $report has zero-length overview bins: no timeline plot" >&2
  else
    draw "$tmp/timeline.gp" "$tmp/data" "$title" "$prefix-timeline" tall
  fi
}
