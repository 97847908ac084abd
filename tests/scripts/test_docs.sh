#!/usr/bin/env bash
# The documentation covers what the binary and the schemas define (issue 21,
# item 4), and README.md's table of contents matches its sections.
#
# The docs are README.md and every README.md beside what it documents
# (configs/, configs/devices/, tests/fuzz/, scripts/reproduce/*/, ...;
# build/ excluded).  Matching rules, strict enough to catch an omission:
#   - commands: each command `orrery --help` lists is written `orrery NAME`,
#     each `orrery sweep SUB` of `orrery sweep --help` and each generator
#     of `orrery gen --help` (`orrery gen NAME`) likewise;
#   - options: for every command (gen: every generator), each long option
#     that `orrery COMMAND --help` defines (a help
#     line that starts with `-x, --name` or `--name`; --help itself aside) is
#     written `--name` followed by a non-name character (so --seq is not
#     found inside --seq-len);
#   - schema elements (every <element name="X"> of configs/cluster.rng and
#     configs/sweep.rng) are written `<X` followed by a space, `>` or `/`;
#   - schema attributes (every <attribute name="X">) are written `X=` with no
#     name character before (so size= inside --size= or msg-size= does not
#     count);
#   - every `## ` heading of README.md (outside code blocks) is linked from
#     the table of contents (all above the first ##) as (#anchor), GitHub's
#     anchor of the heading, and every (#anchor) link of the contents
#     resolves to a heading;
#   - README.md's map of the docs (its section `## Where the docs are`)
#     links each README beside the code by its path;
#   - every relative link of every README, [text](path) or
#     [text](path#anchor), names a file or folder that exists (relative to
#     that README), and its #anchor, when it has one and the target is a
#     Markdown file (or the README itself), is GitHub's anchor of one of
#     that file's headings.
# Each missing name is printed ("  missing ...: NAME") above its FAIL line.
# Usage: tests/scripts/test_docs.sh   (run by `make test`).
set -uo pipefail

# shellcheck source=SCRIPTDIR/lib.sh
. "$(dirname "$0")/lib.sh"
make_tmp
command -v xmllint >/dev/null || skip "xmllint not installed"

docs=$(find . -path ./build -prune -o -path ./shared -prune -o -name README.md -print | sort)
# shellcheck disable=SC2086  # one word per README path, none has spaces
cat $docs >"$TMP/docs"

# all_found LABEL PATTERN-TEMPLATE NAMES...: every NAME is in the docs, as the
# extended regex PATTERN-TEMPLATE with @ replaced by the name; prints the missing.
all_found () {
  local label=$1 template=$2 name missing=0 pattern; shift 2
  for name in "$@"; do
    pattern=${template//@/${name//./\\.}}
    if ! grep -qE -- "$pattern" "$TMP/docs"; then
      echo "  missing $label: $name" >&2
      missing=1
    fi
  done
  return "$missing"
}

# ---- commands -----------------------------------------------------------------------
"$ORRERY" --help >"$TMP/help" 2>&1
mapfile -t commands < <(sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' "$TMP/help")
check "orrery --help lists commands" test "${#commands[@]}" -ge 8
check "every command documented" all_found command 'orrery @([^a-z-]|$)' "${commands[@]}"
mapfile -t subs < <("$ORRERY" sweep --help 2>&1 | grep -oE 'orrery sweep [a-z]+' | sort -u \
                    | sed 's/^orrery sweep //')
check "orrery sweep --help lists subcommands" test "${#subs[@]}" -ge 4
check "every sweep subcommand documented" \
  all_found command 'orrery sweep @([^a-z-]|$)' "${subs[@]}"
mapfile -t generators < <("$ORRERY" gen --help 2>&1 \
                          | sed -n '/^Generators:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
check "orrery gen --help lists generators" test "${#generators[@]}" -ge 2
check "every generator documented" all_found command 'orrery gen @([^a-z-]|$)' \
  "${generators[@]}"

# ---- options ------------------------------------------------------------------------
# options COMMAND...: the long options COMMAND's --help defines, one a line.
options () {
  "$ORRERY" "$@" --help 2>&1 | sed -nE 's/^ +(-[A-Za-z0-9], )?--([a-z][a-z0-9-]*).*/\2/p' \
    | grep -vx help | sort -u
}
# Every command of `orrery --help`, gen as its generators: a new command is
# checked without editing this test.
cmds=()
for cmd in "${commands[@]}"; do
  if [ "$cmd" = gen ]; then cmds+=("${generators[@]/#/gen }"); else cmds+=("$cmd"); fi
done
# The parse itself: the nine of today are among them.
check "the commands whose options are checked" eq "$(printf '%s\n' "${cmds[@]}" \
  | grep -cxE 'run|gen collective|gen transformer|rescale|inspect|plot-data|sweep|plan|convert')" 9
for cmd in "${cmds[@]}"; do
  # shellcheck disable=SC2086  # "gen collective" is two words
  mapfile -t opts < <(options $cmd)
  check "$cmd: options documented" all_found "option of $cmd" '--@([^a-z0-9-]|$)' \
    "${opts[@]}"
done
# The parse itself: run must define its well-known options (an empty list
# would pass the check above).
mapfile -t opts < <(options run)
check "run --help parsed" eq "$(printf '%s\n' "${opts[@]}" | grep -cxE 'config|workload|stats')" 3

# ---- schema -------------------------------------------------------------------------
# rng_names FILE KIND: the names of FILE's KIND (element or attribute) patterns.
rng_names () {
  xmllint --xpath "//*[local-name()='$2']/@name" "$1" 2>/dev/null \
    | grep -oE 'name="[^"]+"' | sed 's/name="\(.*\)"/\1/' | sort -u
}
for rng in configs/cluster.rng configs/sweep.rng; do
  mapfile -t elements < <(rng_names "$rng" element)
  mapfile -t attributes < <(rng_names "$rng" attribute)
  check "$rng: names parsed" test "${#elements[@]}" -ge 5 -a "${#attributes[@]}" -ge 5
  check "$rng: elements documented" all_found "element of $rng" '<@[ >/]' "${elements[@]}"
  check "$rng: attributes documented" all_found "attribute of $rng" \
    '(^|[^A-Za-z0-9_-])@=' "${attributes[@]}"
done

# ---- table of contents --------------------------------------------------------------
# headings LEVEL: README.md's headings of that level (a regex of #s) outside
# ``` blocks, without their #s.
headings () {
  awk -v re="^$1 " '/^```/ { code = !code; next } !code && $0 ~ re { sub(re, ""); print }' \
    README.md
}
# anchor: GitHub's anchor of each heading read: lower case, punctuation but
# - and _ dropped, spaces to -.
anchor () {
  tr '[:upper:]' '[:lower:]' | sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
# A helper's PENDING-DOCS section waits at the end for the lead to move it.
headings '##' | grep -v '^PENDING-DOCS ' >"$TMP/headings"
all_headings=$(headings '#+' | anchor)
# The contents: the (#anchor) links before the first ## heading.
awk '/^## / { exit } { print }' README.md | grep -oE '\]\(#[^)]+\)' \
  | sed -E 's/^\]\(#(.*)\)$/\1/' >"$TMP/toc"
toc_covers () {
  local heading a missing=0
  while IFS= read -r heading; do
    a=$(printf '%s\n' "$heading" | anchor)
    grep -qxF -- "$a" "$TMP/toc" || { echo "  not in the contents: ## $heading" >&2; missing=1; }
  done <"$TMP/headings"
  return "$missing"
}
toc_resolves () {
  local a missing=0
  while IFS= read -r a; do
    grep -qxF -- "$a" <<<"$all_headings" || { echo "  no heading for (#$a)" >&2; missing=1; }
  done <"$TMP/toc"
  return "$missing"
}
check "README.md has ## headings" test -s "$TMP/headings"
check "every ## heading in the contents" toc_covers
check "every contents link resolves" toc_resolves
# Each README beside code is linked from the map of the docs, by its path.
map_section () {
  awk '/^## / { on = ($0 == "## Where the docs are") } on' README.md
}
map_readmes () {
  local f missing=0
  for f in $docs; do
    [ "$f" = ./README.md ] && continue
    map_section | grep -qF -- "(${f#./})" \
      || { echo "  not in the map of the docs: ${f#./}" >&2; missing=1; }
  done
  return "$missing"
}
check "README.md has its map of the docs" test "$(map_section | wc -l)" -ge 5
check "every README beside code in the map of the docs" map_readmes

# file_anchors FILE: GitHub's anchors of FILE's headings, outside ``` blocks.
file_anchors () {
  awk '/^```/ { code = !code; next } !code && /^#+ / { sub(/^#+ /, ""); print }' "$1" \
    | anchor
}
# Every relative link of every README resolves: the file, then the anchor.
links_resolve () {
  local doc dir link path frag target missing=0
  for doc in $docs; do
    dir=$(dirname "$doc")
    while IFS= read -r link; do
      path=${link%%#*}
      frag=; [ "$path" = "$link" ] || frag=${link#*#}
      if [ -z "$path" ]; then target=$doc; else target=$dir/$path; fi
      if [ ! -e "$target" ]; then
        echo "  ${doc#./}: no file for ($link)" >&2; missing=1; continue
      fi
      if [ -n "$frag" ] && [[ $target == *.md ]] \
         && ! file_anchors "$target" | grep -qxF -- "$frag"; then
        echo "  ${doc#./}: no heading for ($link)" >&2; missing=1
      fi
    done < <(awk '/^```/ { code = !code; next } !code' "$doc" \
             | grep -oE '\]\([^)[:space:]]+\)' | sed -E 's/^\]\((.*)\)$/\1/' \
             | grep -vE '^[a-z]+:' | sort -u)
  done
  return "$missing"
}
check "every relative link of every README resolves" links_resolve

finish
