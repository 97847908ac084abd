/* report_read.h: the exact ring that the report suites (test_report.c,
 * test_report_figures.c) run their hand-timed workloads on, the run that
 * must succeed, and reading the JSON report back with checked members.
 *
 * The ring: a 1-D Ring at 1 GB/s (1 byte per ns), 100 ns per hop, no
 * endpoint delay, no reduction cost, one chunk per collective, so that a
 * message of b bytes between ring neighbours takes 100 + b ns.
 * Ownership: paths, outputs and parsers returned are the caller's; objects
 * and arrays returned belong to the parser they came from.
 *
 * Layer: tests.  May include: every layer.
 */
#ifndef ORRERY_TESTS_REPORT_READ_H
#define ORRERY_TESTS_REPORT_READ_H

#include <glib.h>
#include <json-glib/json-glib.h>

#define TU_US(x) ((gint64) (x) * 1000000)
#define TU_NS(x) ((gint64) (x) * 1000)

/* A ring of RANKS at exactly 1 byte per ns, 100 ns per hop, one chunk, FIFO,
 * no endpoint delay, as ring.xml in the scratch folder: REDUCE the system's
 * reduction attributes (reduction-passes, local-mem-bw), EXTRA elements after
 * <system>.  Returns its path (g_free). */
char *tu_ring_config (guint ranks, const char *reduce, const char *extra);

/* Write the exact ring of RANKS to tu_scratch/ring.xml, EXTRA (may be "")
 * inside <cluster>; its path. */
char *tu_report_ring (guint ranks, const char *extra);

/* Run orrery on tu_scratch/wl with CFG and the extra arguments EXTRA
 * (NULL-terminated), in every mode (modes.h); it must exit 0.  The
 * output. */
char *tu_report_run (const char *cfg, const char *const *extra);

/* Parse the JSON file PATH, which must parse. */
JsonParser *tu_json_load (const char *path);
JsonObject *tu_json_root (JsonParser *parser);

/* Member NAME of O, which must be there. */
gint64 tu_json_int (JsonObject *o, const char *name);
double tu_json_double (JsonObject *o, const char *name);
JsonArray *tu_json_array (JsonObject *o, const char *name);

/* The time figure NAME_ps of O; NAME_ns must be its whole nanoseconds. */
gint64 tu_json_ps (JsonObject *o, const char *name);

/* Rank RANK's row of the --stats CSV TEXT, split at commas: at least 12
 * fields under the native header (a native run adds the pipeline bubble
 * and the rank's model and hardware FLOPs; exchanges add a column).  Free
 * with g_strfreev. */
GStrv tu_stats_row (const char *text, guint rank);

/* Field I of a row, as a whole number. */
gint64 tu_stats_field (GStrv f, guint i);

/* GOT within 1e-9 of WANT, relatively. */
void tu_assert_rel (double got, double want);

#endif /* ORRERY_TESTS_REPORT_READ_H */
