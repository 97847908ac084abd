# shellcheck shell=bash
# plot.d/plan.sh: the mode of a plan's CSV (plot_plan): iteration time against
# memory per GPU with the Pareto front; plan_csv tells a plan's CSV.
# Sourced by scripts/plot (which defines prog, die, usage and plot_d); not
# run alone.

# awk: from the table of csv_awk of orrery plan's plan.csv, the data file
# and the gnuplot commands of its chart of iteration time against memory
# per GPU, with the Pareto front (with common_awk).  ENVIRON: PLOT_CSV (the
# path, for messages), PLOT_NAME (for the title), PLOT_DAT and PLOT_GP (the
# files to write).  The gnuplot commands read the data file from the
# variable f and use the terminal already set.
plan_awk () {
  cat <<'EOF'
function fail(msg) {
  print "plot: " ENVIRON["PLOT_CSV"] ": " msg > "/dev/stderr"
  failed = 1; exit 1
}
function warn(msg) { print "plot: " msg > "/dev/stderr" }
# Columns are found by name, so that orrery may add some.  orrery plan
# --dlrm's plan.csv (DLRM set: a "what" and a "max_memory_B" column, no
# "tp") names each candidate by its what, its memory the largest GPU's.
function header(   i, k, need) {
  for (i = 1; i <= NF; i++) if (!($i in C)) C[$i] = i
  DLRM = ("what" in C) && ("max_memory_B" in C) && !("tp" in C)
  MEM = DLRM ? "max_memory_B" : "memory_per_gpu_B"
  k = split(DLRM ? "id what status max_memory_B iteration_ps" \
                 : "id tp pp v dp cp ep micro_batch zero recompute schedule status" \
                   " memory_per_gpu_B iteration_ps", need, " ")
  for (i = 1; i <= k; i++)
    if (!(need[i] in C))
      fail("not a plan CSV (orrery plan's plan.csv): no \"" need[i] "\" column")
}
# A candidate's knobs, short: "tp8 pp4 v1 dp32 mb1 dist-opt none 1f1b", with
# cp and ep only when above 1; a DLRM plan's what ("every table
# column-wise", "t0 row_wise").
function knobs(   s) {
  if (DLRM) return $(C["what"])
  s = "tp" $(C["tp"]) " pp" $(C["pp"]) " v" $(C["v"]) " dp" $(C["dp"])
  if ($(C["cp"]) != 1) s = s " cp" $(C["cp"])
  if ($(C["ep"]) != 1) s = s " ep" $(C["ep"])
  return s " mb" $(C["micro_batch"]) " " $(C["zero"]) " " $(C["recompute"]) " " $(C["schedule"])
}
function row(   st, b, t) {
  total++
  st = $(C["status"])
  if (st != "simulated") {
    if (!(st in LEFT)) STATUS[++nstatus] = st
    LEFT[st]++
    return
  }
  b = $(C[MEM]); t = $(C["iteration_ps"])
  if (!isnum(b) || !isnum(t)) { novalue++; return }
  n++
  ID[n] = $(C["id"]); B[n] = b + 0; PS[n] = t + 0; KNOBS[n] = knobs()
}
# The counts of the candidates left out, by status: orrery's order first
# (as its summary prints them), then any other status as it came.
function left_out(   s, i, k, known) {
  s = ""
  k = split("bounded-out failed pruned", known, " ")
  for (i = 1; i <= k; i++) if (known[i] in LEFT) s = s ", " LEFT[known[i]] " " known[i]
  for (i = 1; i <= nstatus; i++)
    if (STATUS[i] !~ /^(bounded-out|failed|pruned)$/)
      s = s ", " LEFT[STATUS[i]] " " (STATUS[i] == "" ? "without a status" : STATUS[i])
  if (novalue) s = s ", " novalue " simulated without a memory or a time"
  return substr(s, 3)
}
# Whether candidate i comes before j by memory, then time, then id (then
# row, should ids repeat): a total order, so any sort gives the same.
function before(i, j) {
  if (B[i] != B[j]) return B[i] < B[j]
  if (PS[i] != PS[j]) return PS[i] < PS[j]
  if (ID[i] + 0 != ID[j] + 0) return ID[i] + 0 < ID[j] + 0
  return i < j
}
# Moves S[r] down the heap S[1..m], largest (by before) on top.
function sift(r, m,   c, t) {
  while ((c = 2 * r) <= m) {
    if (c < m && before(S[c], S[c + 1])) c++
    if (!before(S[r], S[c])) return
    t = S[r]; S[r] = S[c]; S[c] = t; r = c
  }
}
# S[1..n]: the candidates in the order of before; a heap sort, as a plan
# can have thousands of candidates.
function sort_candidates(   i, t) {
  for (i = 1; i <= n; i++) S[i] = i
  for (i = int(n / 2); i >= 1; i--) sift(i, n)
  for (i = n; i > 1; i--) { t = S[1]; S[1] = S[i]; S[i] = t; sift(1, i - 1) }
}
# FRONT[i] = 1 for the candidates no other beats in both time and memory
# (time <= and memory <=, one strictly), NFRONT their number.  Walking S by
# memory, a group of equal memory is beaten by any smaller candidate as
# fast as its fastest; otherwise its fastest are on the front (candidates
# alike in both beat neither) and the rest of the group is not.
function pareto(   r, g, have, best, fastest) {
  NFRONT = 0
  for (r = 1; r <= n; r = g) {
    fastest = PS[S[r]]
    for (g = r; g <= n && B[S[g]] == B[S[r]]; g++)
      if ((!have || fastest < best) && PS[S[g]] == fastest) { FRONT[S[g]] = 1; NFRONT++ }
    if (!have || fastest < best) { best = fastest; have = 1 }
  }
}
# Candidate i as a line of the data file.
function point(i) {
  return num(B[i] / 1073741824) "\t" num(PS[i] / PSUNIT) "\t" ID[i] "\t" KNOBS[i]
}
# The gnuplot range of axis ax over [lo, hi], widened by a margin (wider on
# the right, where the ids are written): a factor on a log axis, else 5 %
# of the span (10 % of the value when it is one) and not below 0.
function range(ax, lo, hi, logscale, right,   pad) {
  if (logscale) {
    pad = exp(log(hi / lo) * 0.05)
    lo /= pad; hi *= pad
  } else {
    pad = (hi - lo) * 0.05
    if (pad == 0) pad = hi > 0 ? hi * 0.1 : 1
    lo -= pad; hi += pad * right
    if (lo < 0) lo = 0
  }
  if (logscale) print "set logscale " ax " 10" > GP
  print "set " ax "range [" num(lo) ":" num(hi) "]" > GP
  RLO[ax] = lo; RHI[ax] = hi; RLOG[ax] = logscale
}
# Where v lies along axis ax's range, from 0 to 1.
function frac(ax, v) {
  if (RHI[ax] <= RLO[ax]) return 0
  if (RLOG[ax]) return log(v / RLO[ax]) / log(RHI[ax] / RLO[ax])
  return (v - RLO[ax]) / (RHI[ax] - RLO[ax])
}

# A label of ids beside each point of the front: one per place, so that
# candidates alike in memory and time share it ("4, 5").  Beyond 12 points
# the labels would overlap: then none (the data file has the ids).  Points
# that nearly coincide (ids 3012 and 3014 of a plan) would write their
# labels over each other: a label is put above right of its point, else
# below right, else its ids join the label it would cover ("3012, 3014").
# A label's box, in fractions of the axes' ranges, is estimated from the
# picture (draw in common.sh: 1200 x 700 px, the plot some 1000 x 400 px)
# and a 20-point glyph of about 11 x 24 px: LW a character wide, LH a line.
function labels(   r, i, j, k, m, ids, x, y, dy, hit) {
  if (NFRONT > 12) return
  LW = 0.011; LH = 0.06
  k = 0
  for (r = 1; r <= n; r = j) {
    i = S[r]
    for (j = r + 1; j <= n && B[S[j]] == B[i] && PS[S[j]] == PS[i]; j++) ;
    if (!FRONT[i]) continue
    ids = ID[i]
    for (r++; r < j; r++) ids = ids ", " ID[S[r]]
    x = frac("x", B[i] / 1073741824); y = frac("y", PS[i] / PSUNIT)
    hit = 0
    for (dy = 0.7; dy >= -0.7; dy -= 1.4) {
      hit = label_hit(k, x, y + dy * LH, length(ids))
      if (!hit) break
    }
    if (hit) { LT[hit] = LT[hit] ", " ids; continue }
    LX[++k] = x; LY[k] = y + dy * LH; LT[k] = ids; LDY[k] = dy
    LAT[k] = num(B[i] / 1073741824) ", " num(PS[i] / PSUNIT)
  }
  for (m = 1; m <= k; m++)
    print "set label " m " " q(LT[m]) " at " LAT[m] " left offset char 0.7, char " LDY[m] > GP
}
# The first of labels 1..k whose box meets that of a label of len
# characters centred at height y, beginning 0.7 characters right of x;
# 0 for none.
function label_hit(k, x, y, len,   m, dx) {
  for (m = 1; m <= k; m++) {
    dx = x - LX[m]
    if (y - LY[m] < LH && LY[m] - y < LH \
        && dx < (length(LT[m]) + 1) * LW && -dx < (len + 1) * LW)
      return m
  }
  return 0
}

BEGIN {
  FS = "\t"
  NAME = ENVIRON["PLOT_NAME"]; DAT = ENVIRON["PLOT_DAT"]; GP = ENVIRON["PLOT_GP"]
}
NR == 1 { header(); next }
{ row() }
END {
  if (failed) exit 1
  if (n == 0)
    fail("no simulated candidate to plot (" total " candidate" (total == 1 ? "" : "s") \
         (total ? ": " left_out() : "") ")")
  sort_candidates()
  pareto()
  fast = 1; bmin = bmax = B[1]; tmin = tmax = PS[1]
  for (i = 2; i <= n; i++) {
    if (PS[i] < PS[fast] || (PS[i] == PS[fast] && before(i, fast))) fast = i
    if (B[i] < bmin) bmin = B[i]
    if (B[i] > bmax) bmax = B[i]
    if (PS[i] < tmin) tmin = PS[i]
    if (PS[i] > tmax) tmax = PS[i]
  }
  # Picoseconds in the unit shown.
  PSUNIT = 1000 * time_unit(tmax / 1000)

  print "# " NAME ": iteration time (" TUNIT ") against memory per GPU (GiB): " \
        n " candidates, " NFRONT " on the Pareto front" > DAT
  print "# columns: memory per GPU (GiB), iteration time (" TUNIT "), id, knobs" > DAT
  # The block that may be empty comes last: gnuplot does not count an
  # empty block before others, which would shift their indices.
  print "# the Pareto front, by memory" > DAT
  for (r = 1; r <= n; r++) if (FRONT[S[r]]) print point(S[r]) > DAT
  print "\n\n# the fastest" > DAT
  print point(fast) > DAT
  print "\n\n# not on the Pareto front, by memory" > DAT
  for (r = 1; r <= n; r++) if (!FRONT[S[r]]) print point(S[r]) > DAT

  # Two lines: one line of some 90 characters, centred over the plot,
  # began left of the picture.
  print "set title " q(NAME ": iteration time against memory per GPU") " . \"\\n\" . " \
        q(n " simulated candidate" (n == 1 ? "" : "s") ", " NFRONT " on the Pareto front") > GP
  print "set xlabel 'memory per GPU (GiB)'" > GP
  print "set ylabel " q("iteration time (" TUNIT ")") > GP
  range("x", bmin / 1073741824, bmax / 1073741824, 0, 2)
  range("y", tmin / PSUNIT, tmax / PSUNIT, tmin > 0 && tmax > 100 * tmin, 1)
  print "set grid" > GP
  print "set tics out nomirror" > GP
  # The key below the plot: right of it, its longest entry (the fastest's
  # knobs) squeezed the plot into a third of the picture.
  print "set key outside below center horizontal Left reverse spacing 1.2" > GP
  labels()
  # The front as a staircase: from each point, its time holds until the
  # next point's memory (steps: across, then down).
  cmd = "plot "
  if (n > NFRONT)
    cmd = cmd "f index 2 using 1:2 with points pt 7 ps 1 lc rgb '#BBBBBB'" \
          " title 'other candidates', \\\n    "
  cmd = cmd "f index 0 using 1:2 with steps lw 2 lc rgb '#EE6677' title 'Pareto front', \\\n" \
        "    f index 0 using 1:2 with points pt 7 ps 1.5 lc rgb '#EE6677' notitle, \\\n" \
        "    f index 1 using 1:2 with points pt 6 ps 3 lw 2 lc rgb '#4477AA' title " \
        q("fastest: id " ID[fast]) ", \\\n" \
        "    keyentry with lines lt nodraw title " q(KNOBS[fast])
  print cmd > GP
  close(DAT); close(GP)
  # Only once the plot is sure, so that an error is the one line printed.
  if (total > n) warn("left out " total - n " of " total " candidates: " left_out())
}
EOF
}

# Mode: orrery plan's plan.csv.
plot_plan () {
  local csv='' prefix=''
  while [ $# -gt 0 ]; do
    # --option=value is --option value.
    case "$1" in --*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;; esac
    case "$1" in
      --plan | -o)
        [ $# -ge 2 ] || die "$1 needs a value (scripts/plot --help)"
        if [ "$1" = -o ]; then
          prefix=$2
        else
          [ -z "$csv" ] || die "one CSV only (got $csv and $2)"
          csv=$2
        fi
        shift 2 ;;
      -h | --help) usage; exit 0 ;;
      -*) die "unknown option $1 for a plan's CSV (scripts/plot --help)" ;;
      *) [ -z "$csv" ] || die "one CSV only (got $csv and $1)"; csv=$1; shift ;;
    esac
  done
  [ -n "$csv" ] || die "no plan CSV given (scripts/plot --help)"
  if [ ! -f "$csv" ] || [ ! -r "$csv" ]; then die "cannot read $csv"; fi
  need_gnuplot
  [ -n "$prefix" ] || prefix=${csv%.csv}

  # The plan's name: its directory's for a plan.csv, else the file's.
  local name
  name=$(basename "$csv" .csv)
  [ "$name" != plan ] || name=$(basename "$(cd "$(dirname "$csv")" && pwd)")

  local tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/orrery-plot.XXXXXX")
  # shellcheck disable=SC2064  # expand $tmp now: it is local
  trap "rm -rf '$tmp'" EXIT
  csv_awk >"$tmp/csv.awk"
  { common_awk; plan_awk; } >"$tmp/plan.awk"
  # Numbers as C prints them, whatever the user's locale.
  export LC_ALL=C
  PLOT_CSV=$csv awk -f "$tmp/csv.awk" "$csv" >"$tmp/table.tsv" || exit 1
  PLOT_CSV=$csv PLOT_NAME=$name PLOT_DAT="$tmp/plot.dat" PLOT_GP="$tmp/body.gp" \
    awk -f "$tmp/plan.awk" "$tmp/table.tsv" || exit 1
  draw_table "$tmp" "$prefix-time-memory" "$name"
}

# Whether FILE's header is that of orrery plan's plan.csv (or of orrery
# plan --dlrm's), which the bare form `scripts/plot FILE.csv` then draws as
# a plan rather than a sweep.
plan_csv () {
  local head=''
  [ -f "$1" ] && [ -r "$1" ] || return 1
  IFS= read -r head <"$1" || [ -n "$head" ] || return 1
  head=${head#$'\xef\xbb\xbf'}
  head=${head%$'\r'}
  [[ "$head," == id,*,status,*,memory_per_gpu_B,*,iteration_ps,* ]] \
    || [[ "$head," == id,what,*,status,*,max_memory_B,iteration_ps,* ]]
}
