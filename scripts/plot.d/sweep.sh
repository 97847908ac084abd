# shellcheck shell=bash
# plot.d/sweep.sh: the mode of a sweep's CSV (plot_sweep): a metric against a
# parameter, as lines or a heat map.
# Sourced by scripts/plot (which defines prog, die, usage and plot_d); not
# run alone.

# awk: from the table of csv_awk, the data file and the gnuplot commands of
# one plot (with common_awk).  ENVIRON: PLOT_MODE (lines or heat), PLOT_X,
# PLOT_Y, PLOT_SERIES, PLOT_HEAT (names; empty for the defaults), PLOT_WHERE
# (PARAM=VALUE lines), PLOT_NAME (the sweep's name, for the title),
# PLOT_DAT and PLOT_GP (the files to write).  The gnuplot commands read the
# data file from the variable f and use the terminal already set.
sweep_awk () {
  cat <<'EOF'
function fail(msg) { print "plot: " msg > "/dev/stderr"; failed = 1; exit 1 }
function warn(msg) { print "plot: " msg > "/dev/stderr" }
function unit(name, base, factor) { UBASE[name] = base; UFACTOR[name] = factor }
# The units of sim/units.c (and lower-case k), each to its base unit.
function units(   p, f, i) {
  unit("B", "bytes", 1); unit("KiB", "bytes", 1024); unit("MiB", "bytes", 1024 ^ 2)
  unit("GiB", "bytes", 1024 ^ 3); unit("TiB", "bytes", 1024 ^ 4)
  split("k K M G T", p, " ")
  split("1e3 1e3 1e6 1e9 1e12", f, " ")
  for (i = 1; i <= 5; i++) {
    unit(p[i] "B", "bytes", f[i])
    unit(p[i] "B/s", "B/s", f[i])
    unit(p[i] "b/s", "B/s", f[i] / 8); unit(p[i] "bps", "B/s", f[i] / 8)
    unit(p[i] "FLOP/s", "FLOP/s", f[i]); unit(p[i] "FLOPS", "FLOP/s", f[i])
  }
  unit("PFLOP/s", "FLOP/s", 1000 ^ 5); unit("PFLOPS", "FLOP/s", 1000 ^ 5)
  unit("KiB/s", "B/s", 1024); unit("MiB/s", "B/s", 1024 ^ 2)
  unit("GiB/s", "B/s", 1024 ^ 3); unit("TiB/s", "B/s", 1024 ^ 4)
  unit("B/s", "B/s", 1); unit("b/s", "B/s", 1 / 8); unit("bps", "B/s", 1 / 8)
  unit("FLOP/s", "FLOP/s", 1); unit("FLOPS", "FLOP/s", 1)
  unit("ps", "ns", 0.001); unit("ns", "ns", 1); unit("us", "ns", 1000)
  unit("µs", "ns", 1000); unit("ms", "ns", 1000 ^ 2); unit("s", "ns", 1000 ^ 3)
}
# Parses "NUMBER[ ]UNIT" or "NUMBER": sets QBASE ("" for a plain number) and
# QVAL, returns 1; returns 0 for anything else.
function quantity(v,   u) {
  if (!match(v, /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?/)) return 0
  u = substr(v, RLENGTH + 1)
  sub(/^ +/, "", u)
  QUNIT = u
  if (u == "") { QBASE = ""; QVAL = substr(v, 1, RLENGTH) + 0; return 1 }
  if (!(u in UBASE)) return 0
  QBASE = UBASE[u]; QVAL = substr(v, 1, RLENGTH) * UFACTOR[u]
  return 1
}
function names(a, n, sep,   i, s) {
  s = ""
  for (i = 1; i <= n; i++) s = s (i > 1 ? sep : "") a[i]
  return s
}
# The values of parameter k in the whole CSV, for messages.
function all_values(k,   i, s) {
  s = ""
  for (i = 1; i <= NAV[k]; i++) s = s (i > 1 ? ", " : "") AV[k, i]
  return s
}
function param(name, option) {
  if (!(name in PK))
    fail("unknown parameter '" name "' for " option "; the parameters are: " names(P, np, ", "))
  return PK[name]
}

function header(   i) {
  if ($1 != "point")
    fail(ENVIRON["PLOT_CSV"] ": not a sweep CSV: its first column is not \"point\"")
  for (i = 2; i <= NF; i++) if ($i == "status") { sc = i; break }
  if (!sc) fail(ENVIRON["PLOT_CSV"] ": not a sweep CSV: no \"status\" column")
  for (i = 2; i < sc; i++) { P[++np] = $i; PK[$i] = np; PC[np] = i }
  for (i = sc + 1; i <= NF; i++) if ($i != "error") { M[++nm] = $i; MC[$i] = i }
  if (np == 0) fail(ENVIRON["PLOT_CSV"] ": the sweep has no parameters")
  if (!(yname in MC))
    fail("unknown metric '" yname "' for --y; the metrics are: " names(M, nm, ", "))
  xk = xname == "" ? 1 : param(xname, "--x")
  sk = sname == "" ? 0 : param(sname, "--series")
  hk = hname == "" ? 0 : param(hname, "--heat")
  if (sk == xk) fail("--series and --x both name '" P[xk] "'")
  if (hk == xk) fail("--heat and --x both name '" P[xk] "': a heat map needs two parameters")
  nw = split(ENVIRON["PLOT_WHERE"], W, "\n")
  for (i = 1; i <= nw; i++) {
    WP[i] = param(substr(W[i], 1, index(W[i], "=") - 1), "--where")
    WV[i] = substr(W[i], index(W[i], "=") + 1)
    WANT[WP[i], WV[i]] = 1; FIXED[WP[i]] = 1
  }
}

function row(   k, v, st) {
  for (k = 1; k <= np; k++) {
    v = $(PC[k])
    if (!((k, v) in SEEN)) { SEEN[k, v] = 1; AV[k, ++NAV[k]] = v }
  }
  for (k = 1; k <= np; k++) if ((k in FIXED) && !((k, $(PC[k])) in WANT)) return
  matching++
  st = $sc
  if (st != "ok") {
    if (!(st in NSTATUS)) STATUSES[++nstatuses] = st
    NSTATUS[st]++; notok++
    return
  }
  if (!isnum($(MC[yname]))) { novalue++; return }
  n++
  ID[n] = $1; Y[n] = $(MC[yname]) + 0
  for (k = 1; k <= np; k++) {
    v = V[n, k] = $(PC[k])
    if (!((k, v) in VI)) { VI[k, v] = ++NV[k]; VAL[k, NV[k]] = v }
  }
}

# Places the values of parameter k on an axis: AXNUM[k] (1: numeric, in
# AXBASE[k] units; 0: categories), AXUNIT[k] the unit every value is
# written in ("" when none or several), POS[k, i] the position of value i,
# and ORDER[k, r] the value of rank r (by position).  Numeric positions are
# the values; categories are numbered in their order of appearance, from 0.
function axis(k,   i, j, t, base) {
  AXNUM[k] = 1
  for (i = 1; i <= NV[k]; i++) {
    if (!quantity(VAL[k, i]) || (i > 1 && QBASE != base)) { AXNUM[k] = 0; break }
    base = QBASE; POS[k, i] = QVAL
    AXUNIT[k] = i == 1 || QUNIT == AXUNIT[k] ? QUNIT : ""
  }
  AXBASE[k] = AXNUM[k] ? base : ""
  for (i = 1; i <= NV[k]; i++) {
    if (!AXNUM[k]) POS[k, i] = i - 1
    ORDER[k, i] = i
  }
  # Insertion sort, stable: values in order of appearance stay so.
  for (i = 2; i <= NV[k]; i++) {
    t = ORDER[k, i]
    for (j = i - 1; j >= 1 && POS[k, ORDER[k, j]] > POS[k, t]; j--) ORDER[k, j + 1] = ORDER[k, j]
    ORDER[k, j + 1] = t
  }
  AXMIN[k] = POS[k, ORDER[k, 1]]; AXMAX[k] = POS[k, ORDER[k, NV[k]]]
  AXLOG[k] = AXNUM[k] && AXMIN[k] > 0 \
             && (AXMAX[k] > 100 * AXMIN[k] || (AXMAX[k] >= 10 * AXMIN[k] && geometric(k)))
}
# Whether the values of parameter k (n >= 3, all positive) are more evenly
# spaced on a log axis than on a linear one, as 16MiB 64MiB 256MiB 1GiB are:
# the ratio of the widest gap to the narrowest is smaller between logs.
function geometric(k,   r, a, b, d, l, lmin, lmax, dmin, dmax) {
  if (NV[k] < 3) return 0
  for (r = 2; r <= NV[k]; r++) {
    a = POS[k, ORDER[k, r - 1]]; b = POS[k, ORDER[k, r]]
    if (b == a) continue
    d = b - a; l = log(b / a)
    if (dmax == "" || d > dmax) dmax = d
    if (dmin == "" || d < dmin) dmin = d
    if (lmax == "" || l > lmax) lmax = l
    if (lmin == "" || l < lmin) lmin = l
  }
  return dmin != "" && lmax / lmin < dmax / dmin
}
# The label of parameter k's column in the data file: in its base unit.
function axis_label(k,   s) {
  s = AXBASE[k]
  if (AXLOG[k]) s = s (s != "" ? ", " : "") "log scale"
  return P[k] (s != "" ? " (" s ")" : "")
}
# gnuplot commands for axis ax (x or y) showing parameter k: its range and
# tics; in cells (heat maps) each value takes one unit, by rank.
function axis_gp(ax, k, cells,   i, r, lo, hi, pad, tics, longest) {
  longest = 0
  tics = ""
  for (r = 1; r <= NV[k]; r++) {
    i = ORDER[k, r]
    tics = tics (r > 1 ? ", " : "") q(VAL[k, i]) " " (cells ? r - 1 : num(POS[k, i]))
    if (length(VAL[k, i]) > longest) longest = length(VAL[k, i])
  }
  # A heat map's rows of categories read down, in order, like a table's.
  if (cells && ax == "y" && !AXNUM[k]) { lo = NV[k] - 0.5; hi = -0.5 }
  else if (cells) { lo = -0.5; hi = NV[k] - 0.5 }
  else if (AXLOG[k]) {
    print "set logscale " ax " 10" > GP
    pad = exp(log(AXMAX[k] / AXMIN[k]) * 0.05); lo = AXMIN[k] / pad; hi = AXMAX[k] * pad
  } else if (AXNUM[k]) {
    pad = (AXMAX[k] - AXMIN[k]) * 0.05
    if (pad == 0) pad = AXMAX[k] != 0 ? (AXMAX[k] < 0 ? -AXMAX[k] : AXMAX[k]) * 0.1 : 1
    lo = AXMIN[k] - pad; hi = AXMAX[k] + pad
  } else { lo = -0.5; hi = NV[k] - 0.5 }
  print "set " ax "range [" num(lo) ":" num(hi) "]" > GP
  # Up to 30 values are labelled as written; beyond, gnuplot chooses, in
  # the base unit.  The label names the unit the tics are in: the one every
  # value is written in, or none when they differ (16MiB, 1GiB); a heat
  # map's cells are evenly spaced: no scale.
  if (NV[k] > 30 && AXNUM[k] && !cells) {
    print "set " ax "label " q(axis_label(k)) > GP
    print "set " ax "tics autofreq" > GP
  } else {
    print "set " ax "label " q(tics_label(k, cells)) > GP
    print "set " ax "tics (" tics ")" \
          (ax == "x" && (NV[k] > 10 || longest > 12 || (!cells && crowded(k, lo, hi))) \
           ? " rotate by 30 right" : "") > GP
  }
}
# Whether two neighbouring tics of parameter k, on an axis from lo to hi,
# would overlap written flat: 100Gb/s and 200Gb/s on a linear axis to
# 800Gb/s did.  The x axis is taken as 55 characters of tic font wide (a
# PNG's plot area with a key beside it, about 700 pixels at 20 points);
# two labels need half their lengths and a character between their centres.
function crowded(k, lo, hi,   r, a, b, fa, fb) {
  if (!AXNUM[k]) return 0
  for (r = 2; r <= NV[k]; r++) {
    a = ORDER[k, r - 1]; b = ORDER[k, r]
    fa = AXLOG[k] ? log(POS[k, a] / lo) / log(hi / lo) : (POS[k, a] - lo) / (hi - lo)
    fb = AXLOG[k] ? log(POS[k, b] / lo) / log(hi / lo) : (POS[k, b] - lo) / (hi - lo)
    if ((fb - fa) * 55 < (length(VAL[k, a]) + length(VAL[k, b])) / 2 + 1) return 1
  }
  return 0
}
# The axis label of parameter k when its tics are its values as written.
function tics_label(k, cells,   s) {
  s = AXNUM[k] ? AXUNIT[k] : ""
  if (AXLOG[k] && !cells) s = s (s != "" ? ", " : "") "log scale"
  return P[k] (s != "" ? " (" s ")" : "")
}

# The metric's name in words, and YSCALE, YUNIT: the factor from its column
# to the unit shown.  Times (columns ending in _ns, _ps or _s) are shown in
# the unit time_unit (common_awk) chooses.
function metric(   ns, i, m, a) {
  YSCALE = 1; YUNIT = ""
  if (yname ~ /_ns$/) ns = 1
  else if (yname ~ /_ps$/) ns = 0.001
  else if (yname ~ /_s$/) ns = 1e9
  else if (yname ~ /_GBps$/) YUNIT = "GB/s"
  if (ns) {
    m = 0
    for (i = 1; i <= n; i++) { a = Y[i] < 0 ? -Y[i] : Y[i]; if (a * ns > m) m = a * ns }
    YSCALE = ns / time_unit(m); YUNIT = TUNIT
  }
  if (yname == "simulated_time_ns") return "simulated time"
  if (yname == "compute_ns") return "mean compute time"
  if (yname == "exposed_comm_ns") return "mean exposed communication"
  if (yname == "pipeline_bubble_ns") return "mean pipeline bubble"
  if (yname == "busbw_GBps") return "bus bandwidth"
  if (yname == "wall_s") return "wall time"
  return yname
}
function ylabel() { return YWORDS (YUNIT != "" ? " (" YUNIT ")" : "") }

# Lines: one block of the data file per line, two blank lines apart.
function lines(   k, i, j, m, r, t, key, nl, label, pt, colours, c, ymin, ymax, cmd) {
  # Line labels: the series value, then the values of the other varying
  # parameters (named in the key's title).
  nkp = 0
  if (sk) KP[++nkp] = sk
  for (k = 1; k <= np; k++)
    if (k != xk && k != sk && NV[k] > 1) { KP[++nkp] = k; EXTRA[++nextra] = P[k] }
  key = ""
  for (i = 1; i <= nkp; i++) key = key (i > 1 ? ", " : "") P[KP[i]]
  nl = 0
  for (i = 1; i <= n; i++) {
    label = ""
    for (j = 1; j <= nkp; j++) label = label (j > 1 ? ", " : "") V[i, KP[j]]
    if (!(label in LI)) { LI[label] = ++nl; LABEL[nl] = label }
    L[i] = LI[label]
  }
  if (nextra && nl > 12)
    fail(nl " lines (one per " key ") are too many to read: fix " \
         names(EXTRA, nextra, ", ") " with --where PARAM=VALUE, or choose another --series")
  axis(xk)
  # Each line's points by x position (ties keep CSV order): AT[r, j, m] is
  # the m-th point of line r at the j-th x.
  for (j = 1; j <= NV[xk]; j++) XR[ORDER[xk, j]] = j
  for (i = 1; i <= n; i++) {
    j = XR[VI[xk, V[i, xk]]]
    AT[L[i], j, ++NAT[L[i], j]] = i
  }
  YWORDS = metric()
  ymin = ymax = Y[1] * YSCALE
  for (i = 1; i <= n; i++) {
    t = Y[i] * YSCALE
    if (t < ymin) ymin = t
    if (t > ymax) ymax = t
  }
  print "# " NAME ": " ylabel() " against " P[xk] (nkp ? ", one block per " key : "") > DAT
  print "# columns: " axis_label(xk) (AXNUM[xk] ? "" : " as a category number") ", " \
        ylabel() ", " P[xk] " as written" > DAT
  for (r = 1; r <= nl; r++) {
    print (r > 1 ? "\n\n" : "") "# " (nkp ? key ": " LABEL[r] : "all points") > DAT
    for (j = 1; j <= NV[xk]; j++)
      for (m = 1; m <= NAT[r, j]; m++) {
        i = AT[r, j, m]
        print num(POS[xk, ORDER[xk, j]]) "\t" num(Y[i] * YSCALE) "\t" V[i, xk] > DAT
      }
  }
  print "set title " q(NAME ": " YWORDS " against " P[xk] (nkp ? ", one line per " key : "") \
                       constants()) > GP
  axis_gp("x", xk, 0)
  print "set ylabel " q(ylabel()) > GP
  if (ymin > 0 && ymax > 100 * ymin) print "set logscale y 10" > GP
  else if (ymin >= 0) print "set yrange [0:*]" > GP
  print "set grid" > GP
  print "set tics out nomirror" > GP
  if (nkp) print "set key outside right top vertical Left reverse title " q(key) > GP
  else print "unset key" > GP
  # Paul Tol's bright and muted colours, readable with colour blindness.
  split("#4477AA #EE6677 #228833 #CCBB44 #66CCEE #AA3377 " \
        "#332288 #117733 #999933 #882255 #44AA99 #DDCC77", colours, " ")
  split("7 5 9 11 13 15 6 4 8 10 12 14", pt, " ")
  cmd = "plot"
  for (r = 1; r <= nl; r++) {
    c = (r - 1) % 12 + 1
    cmd = cmd (r > 1 ? ", \\\n    " : " ") "f index " r - 1 " using 1:2 with linespoints lw 2" \
          " pt " pt[c] " ps 1.3 lc rgb '" colours[c] "' " (nkp ? "title " q(LABEL[r]) : "notitle")
  }
  print cmd > GP
}

# Heat map: one line of the data file per cell.
function heat(   k, i, j, c, lo, hi, t, logcb, words, frac, missing) {
  for (k = 1; k <= np; k++) if (k != xk && k != hk && NV[k] > 1) EXTRA[++nextra] = P[k]
  if (nextra)
    fail("a heat map has one point per cell, but " names(EXTRA, nextra, ", ") \
         (nextra > 1 ? " vary too: fix them" : " varies too: fix it") " with --where PARAM=VALUE" \
         " (e.g. --where " EXTRA[1] "=" VAL[PK[EXTRA[1]], 1] ")")
  axis(xk); axis(hk)
  for (i = 1; i <= NV[xk]; i++) XR[ORDER[xk, i]] = i - 1
  for (i = 1; i <= NV[hk]; i++) HR[ORDER[hk, i]] = i - 1
  for (i = 1; i <= n; i++) {
    c = XR[VI[xk, V[i, xk]]] SUBSEP HR[VI[hk, V[i, hk]]]
    if (c in CELL)
      fail("points " ID[CELL[c]] " and " ID[i] " both have " P[xk] "=" V[i, xk] ", " \
           P[hk] "=" V[i, hk] ": a heat map has one point per cell")
    CELL[c] = i
  }
  YWORDS = metric()
  lo = hi = Y[1] * YSCALE
  for (i = 1; i <= n; i++) {
    t = Y[i] * YSCALE
    if (t < lo) lo = t
    if (t > hi) hi = t
  }
  logcb = lo > 0 && hi > 100 * lo
  words = NV[xk] <= 12 && NV[hk] <= 12
  print "# " NAME ": " ylabel() " over " P[xk] " and " P[hk] ", one line per cell" > DAT
  print "# columns: " P[xk] " rank, " P[hk] " rank, " ylabel() ", " P[xk] " as written, " \
        P[hk] " as written, the value as printed, its colour" > DAT
  missing = NV[xk] * NV[hk]
  for (j = 0; j < NV[hk]; j++)
    for (k = 0; k < NV[xk]; k++) {
      c = k SUBSEP j
      if (!(c in CELL)) continue
      missing--
      i = CELL[c]; t = Y[i] * YSCALE
      # White on the dark half of the palette, black on the light half.
      frac = hi > lo ? (logcb ? log(t / lo) / log(hi / lo) : (t - lo) / (hi - lo)) : 1
      print k "\t" j "\t" num(t) "\t" V[i, xk] "\t" V[i, hk] "\t" \
            sprintf(t < 1e4 && t > -1e4 ? "%.4g" : "%.0f", t) "\t" \
            (frac < 0.55 ? 16777215 : 0) > DAT
    }
  print "set title " q(NAME ": " YWORDS " over " P[xk] " and " P[hk] constants() \
                       (missing ? "; grey: no ok point" : "")) > GP
  axis_gp("x", xk, 1)
  axis_gp("y", hk, 1)
  print "set cblabel " q(ylabel()) > GP
  if (hi == lo) { t = lo != 0 ? (lo < 0 ? -lo : lo) * 0.1 : 1; lo -= t; hi += t }
  if (logcb) print "set logscale cb 10" > GP
  print "set cbrange [" num(lo) ":" num(hi) "]" > GP
  print "set tics out nomirror" > GP
  print "unset key" > GP
  # Viridis: dark blue to yellow, even in lightness.
  print "set palette defined (0 '#440154', 1 '#3B528B', 2 '#21918C', 3 '#5EC962', 4 '#FDE725')" > GP
  if (missing)
    print "set object 1 rectangle from graph 0, graph 0 to graph 1, graph 1 behind" \
          " fc rgb '#DDDDDD' fs solid noborder" > GP
  print "plot f using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette notitle" \
        (words ? ", \\\n    f using 1:2:6:7 with labels tc rgb variable notitle" : "") > GP
}

# ", constant parameters" for a title: those not on an axis nor in the key.
function constants(   k, s) {
  s = ""
  for (k = 1; k <= np; k++)
    if (k != xk && k != sk && k != hk && NV[k] == 1) s = s (s != "" ? ", " : "") P[k] "=" VAL[k, 1]
  return s != "" ? " (" s ")" : ""
}

BEGIN {
  FS = "\t"
  mode = ENVIRON["PLOT_MODE"]; xname = ENVIRON["PLOT_X"]; yname = ENVIRON["PLOT_Y"]
  sname = ENVIRON["PLOT_SERIES"]; hname = ENVIRON["PLOT_HEAT"]
  NAME = ENVIRON["PLOT_NAME"]; DAT = ENVIRON["PLOT_DAT"]; GP = ENVIRON["PLOT_GP"]
  units()
}
NR == 1 { header(); next }
{ row() }
END {
  if (failed) exit 1
  for (i = 1; i <= nw; i++)
    if (!((WP[i], WV[i]) in SEEN))
      fail("no point has " P[WP[i]] "=" WV[i] "; its values are: " all_values(WP[i]))
  where = ""
  for (i = 1; i <= nw; i++) where = where " --where " P[WP[i]] "=" WV[i]
  s = ""
  for (i = 1; i <= nstatuses; i++) s = s ", " NSTATUS[STATUSES[i]] " " STATUSES[i]
  if (novalue) s = s ", " novalue " ok without a number"
  if (n == 0)
    fail("nothing to plot: none of the " matching " points" (where != "" ? " matching" where : "") \
         " is ok with a number in " yname " (" substr(s, 3) ")")
  if (mode == "lines" && !sk)
    for (k = 1; k <= np; k++) if (k != xk && NV[k] > 1) { sk = k; break }
  if (mode == "heat") heat(); else lines()
  close(DAT); close(GP)
  # Only once the plot is sure, so that an error is the one line printed.
  if (notok)
    warn("left out " notok " of " matching " points" (where != "" ? " matching" where : "") \
         ": status not ok (" substr(s, 3) ")")
  else if (novalue) warn("left out " novalue " ok points without a number in " yname)
}
EOF
}

# sweep_name CSV: the sweep's name, for titles: the name of the spec
# (<sweep name="...">) that scripts/sweep copies beside its sweep.csv as
# spec.xml; without one, the CSV's directory's name for a sweep.csv, else
# the file's name without .csv.
sweep_name () {
  local csv=$1 dir name=
  dir=$(dirname "$csv")
  if [ "$(basename "$csv")" = sweep.csv ] && [ -r "$dir/spec.xml" ]; then
    # The attributes of the <sweep ...> start tag, on any number of lines,
    # then its name="..." (or '...'), entities replaced.
    name=$(tr '\n\t\r' '   ' <"$dir/spec.xml" \
      | sed -n 's/.*<sweep \([^>]*\)>.*/ \1/p' \
      | sed -nE "s/.* name *= *(\"([^\"]*)\"|'([^']*)').*/\2\3/p" \
      | sed "s/&lt;/</g; s/&gt;/>/g; s/&quot;/\"/g; s/&apos;/'/g; s/&amp;/\\&/g")
  fi
  if [ -z "$name" ]; then
    name=$(basename "$csv" .csv)
    [ "$name" != sweep ] || name=$(basename "$(cd "$dir" && pwd)")
  fi
  printf '%s\n' "$name"
}

# Mode: a sweep's CSV.
plot_sweep () {
  local csv='' x='' y=simulated_time_ns series='' heat='' prefix='' where=''
  while [ $# -gt 0 ]; do
    # --option=value is --option value.
    case "$1" in --*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;; esac
    case "$1" in
      --sweep | --x | --y | --series | --heat | --where | -o)
        [ $# -ge 2 ] || die "$1 needs a value (scripts/plot --help)"
        case "$1" in
          --sweep) [ -z "$csv" ] || die "one CSV only (got $csv and $2)"; csv=$2 ;;
          --x) x=$2 ;;
          --y) y=$2 ;;
          --series) series=$2 ;;
          --heat) heat=$2 ;;
          --where)
            [[ "$2" == ?*=* ]] || die "--where needs PARAM=VALUE, not '$2'"
            where+=${where:+$'\n'}$2 ;;
          -o) prefix=$2 ;;
        esac
        shift 2 ;;
      -h | --help) usage; exit 0 ;;
      -*) die "unknown option $1 (scripts/plot --help)" ;;
      *) [ -z "$csv" ] || die "one CSV only (got $csv and $1)"; csv=$1; shift ;;
    esac
  done
  [ -n "$csv" ] || die "no sweep CSV given (scripts/plot --help)"
  [ -z "$heat" ] || [ -z "$series" ] || die "--series is for lines, --heat for a heat map: not both"
  if [ ! -f "$csv" ] || [ ! -r "$csv" ]; then die "cannot read $csv"; fi
  need_gnuplot
  [ -n "$prefix" ] || prefix=${csv%.csv}

  local name
  name=$(sweep_name "$csv")

  local tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/orrery-plot.XXXXXX")
  # shellcheck disable=SC2064  # expand $tmp now: it is local
  trap "rm -rf '$tmp'" EXIT
  csv_awk >"$tmp/csv.awk"
  { common_awk; sweep_awk; } >"$tmp/sweep.awk"
  # Numbers as C prints them, whatever the user's locale.
  export LC_ALL=C
  PLOT_CSV=$csv awk -f "$tmp/csv.awk" "$csv" >"$tmp/table.tsv" || exit 1
  PLOT_CSV=$csv PLOT_MODE=$([ -n "$heat" ] && echo heat || echo lines) PLOT_X=$x PLOT_Y=$y \
    PLOT_SERIES=$series PLOT_HEAT=$heat PLOT_WHERE=$where PLOT_NAME=$name \
    PLOT_DAT="$tmp/plot.dat" PLOT_GP="$tmp/body.gp" \
    awk -f "$tmp/sweep.awk" "$tmp/table.tsv" || exit 1

  # A heat map and the lines of one metric are different files.
  draw_table "$tmp" "$prefix-$y$([ -z "$heat" ] || echo -heat)" "$name"
}
