# shellcheck shell=bash
# plot.d/common.sh: what every mode shares: the sizes and terminals of the figures,
# draw (a gnuplot script to PNG, SVG and PDF), the CSV reader and the awk
# functions of the sweep and plan modes, and draw_table.
# Sourced by scripts/plot (which defines prog, die, usage and plot_d); not
# run alone.

# Sizes, for a paper figure: PNG and SVG 1200 x 700 pixels with 20-point
# text; PDF 6 x 3.5 inches with 12-point text, which reads as 8-point text
# when the figure is scaled to a 3.3-inch column (4 x 3.5 inches: the
# timeline's three panels are 1.5 times as tall: 1200 x 1050, 6 x 5.25).
PNG_FONT="font 'sans,20'"
PDF_FONT="font 'sans,12'"

# Check for gnuplot and choose its terminals: PNG by pngcairo, else
# libgd's png, else none (PNG_TERM empty); PDF by pdfcairo, else none
# (PDF_TERM empty); SVG always.
PNG_TERM=
PDF_TERM=
need_gnuplot () {
  command -v gnuplot >/dev/null 2>&1 \
    || die "gnuplot is missing; install gnuplot: apt-get install gnuplot-nox"
  local terms
  terms=$(gnuplot -e 'set terminal' 2>&1 </dev/null || true)
  if grep -qE '^ *pngcairo ' <<<"$terms"; then
    PNG_TERM="pngcairo $PNG_FONT"
  elif grep -qE '^ *png ' <<<"$terms"; then
    PNG_TERM="png $PNG_FONT"
  else
    echo "$prog: this gnuplot has no PNG terminal: SVG only" >&2
  fi
  if grep -qE '^ *pdfcairo ' <<<"$terms"; then
    PDF_TERM="pdfcairo $PDF_FONT"
  else
    echo "$prog: this gnuplot has no pdfcairo terminal: no PDF" >&2
  fi
}

# A value from meta.gp ("name = value").
meta () { sed -n "s/^$2 = //p" "$1/meta.gp"; }

# draw GP_SCRIPT DATA_DIR TITLE OUT_BASE [tall]: OUT_BASE.png (when
# PNG_TERM is set), OUT_BASE.svg and OUT_BASE.pdf (when PDF_TERM is set),
# each path printed once written; "tall" for a figure of stacked panels.
draw () {
  local gp=$1 data=$2 title=$3 out=$4 px="size 1200,700" in="size 6in,3.5in"
  [ "${5:-}" != tall ] || { px="size 1200,1050"; in="size 6in,5.25in"; }
  if [ -n "$PNG_TERM" ]; then
    gnuplot -c "$gp" "$data" "$PNG_TERM $px" "$out.png" "$title" || die "gnuplot failed on $out.png"
    echo "$out.png"
  fi
  gnuplot -c "$gp" "$data" "svg $px $PNG_FONT dynamic background rgb 'white'" "$out.svg" \
    "$title" || die "gnuplot failed on $out.svg"
  echo "$out.svg"
  if [ -n "$PDF_TERM" ]; then
    gnuplot -c "$gp" "$data" "$PDF_TERM $in" "$out.pdf" "$title" || die "gnuplot failed on $out.pdf"
    echo "$out.pdf"
  fi
}

# awk: a CSV (RFC 4180: quoted fields may hold commas, doubled quotes and
# line breaks) as tab-separated records, with the tabs and line breaks
# inside fields made spaces.  A byte order mark and CRLF line ends are
# dropped; blank lines and lines that start with '#' outside a quoted
# field (notes: an interrupted plan's last line) are skipped.  Fails when
# a record's field count differs from the header's, or a quote is left
# open.  ENVIRON: PLOT_CSV
# (the path, for messages).
csv_awk () {
  cat <<'EOF'
function fail(msg) {
  print "plot: " ENVIRON["PLOT_CSV"] ": " msg > "/dev/stderr"
  failed = 1; exit 1
}
# Splits record s into F[1..nf], returns nf.
function split_csv(s,   n, i, c, f, q, len) {
  if (index(s, "\"") == 0) return split(s, F, ",")
  n = 0; f = ""; q = 0; len = length(s)
  for (i = 1; i <= len; i++) {
    c = substr(s, i, 1)
    if (q) {
      if (c != "\"") f = f c
      else if (substr(s, i + 1, 1) == "\"") { f = f c; i++ }
      else q = 0
    } else if (c == "\"") q = 1
    else if (c == ",") { F[++n] = f; f = "" }
    else f = f c
  }
  F[++n] = f
  return n
}
NR == 1 { sub(/^\357\273\277/, "") }
{
  sub(/\r$/, "")
  line = $0
  if (!open && substr(line, 1, 1) == "#") next
  if (open) rec = rec "\n" line
  else { rec = line; start = NR }
  # A record ends where the quotes seen so far are balanced.
  quotes += gsub(/"/, "\"", line)
  open = quotes % 2
  if (open) next
  quotes = 0
  if (rec == "") next
  n = split_csv(rec)
  if (nf == 0) nf = n
  else if (n != nf) fail("line " start " has " n " fields, the header " nf)
  out = ""
  for (i = 1; i <= n; i++) {
    gsub(/[\t\r\n]/, " ", F[i])
    out = out (i > 1 ? "\t" : "") F[i]
  }
  print out
}
END {
  if (failed) exit 1
  if (open) fail("line " start ": a quoted field is never closed")
  if (nf == 0) fail("empty file")
}
EOF
}

# awk: functions shared by the sweep and plan modes, so that their data
# files and charts read alike.
common_awk () {
  cat <<'EOF'
function num(v) { return sprintf("%.15g", v) }
# A gnuplot string.
function q(s) { gsub(/'/, "''", s); return "'" s "'" }
function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
# The smallest of us, ms and s in which every value is below 10,000, given
# the largest magnitude MAX_NS in ns: sets TUNIT to its name and returns
# the ns in one of it.
function time_unit(max_ns) {
  if (max_ns < 1e7) { TUNIT = "us"; return 1e3 }
  if (max_ns < 1e10) { TUNIT = "ms"; return 1e6 }
  TUNIT = "s"; return 1e9
}
EOF
}

# draw_table TMP OUT TITLE: the plot that an awk program of the CSV modes
# wrote as TMP/plot.dat and TMP/body.gp, kept as OUT.dat and drawn as
# OUT.png (when PNG_TERM is set) and OUT.svg; each path printed once
# written.
draw_table () {
  local tmp=$1 out=$2 title=$3
  mkdir -p "$(dirname "$out")"
  cp "$tmp/plot.dat" "$out.dat"
  echo "$out.dat"
  { cat <<'EOF'
set terminal @ARG2
set termoption noenhanced
set output ARG3
set datafile separator '\t'
f = ARG1
EOF
    cat "$tmp/body.gp"
  } >"$tmp/plot.gp"
  draw "$tmp/plot.gp" "$out.dat" "$title" "$out"
}
