/* nesting.h: a bound on how deeply a text nests, checked before a parser
 * sees it.
 *
 * json-glib and the tree builders over libyaml recurse once per level, so
 * about 200 KB of "[[[[..." overflows the stack (SIGSEGV) before any error
 * can be raised.  Every JSON entry point (--comm-groups, --astra-system,
 * --astra-memory, METADATA process groups in a trace, plot-data's report)
 * runs this linear pre-scan first; no input orrery reads nests beyond a
 * handful of levels, so SIM_NESTING_MAX is far above any real file.
 *
 * What it models: JSON text, counted by its brackets ([ and {) outside
 * strings ("..." with backslash escapes); nothing else of the syntax is
 * checked (the parser does that).  Lines count LF characters, from 1.
 *
 * Ownership: the text and path are borrowed.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_NESTING_H
#define ORRERY_SIM_NESTING_H

#include <glib.h>

/* The deepest nesting of arrays and objects (or YAML collections) accepted. */
#define SIM_NESTING_MAX 256

/* TRUE when TEXT (LEN bytes, or up to its NUL when LEN is negative) nests
 * at most SIM_NESTING_MAX levels; else an input error (SIM_ERROR,
 * SIM_ERROR_INPUT) "L: JSON nested deeper than 256 levels" (L the line),
 * which the caller prefixes with "FILE:". */
gboolean sim_json_depth_check (const char *text, gssize len, GError **error);

/* The same for the file at PATH, read in pieces (a report can be hundreds of
 * megabytes).  A file that cannot be read passes: the parser that follows
 * names that error itself.  The error names PATH. */
gboolean sim_json_depth_check_file (const char *path, GError **error);

#endif /* ORRERY_SIM_NESTING_H */
