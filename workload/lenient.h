/* lenient.h: what lenient loading dropped from a trace, counted.
 *
 * Models: one counter per kind of defect that lenient loading drops
 * instead of refusing (graph.h's header comment states each rule), summed
 * over files and worded for the summary.  Plain values; nothing is owned.
 *
 * Layer: workload.  May include: sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_LENIENT_H
#define ORRERY_WORKLOAD_LENIENT_H

#include <glib.h>

/* What lenient loading dropped from one file (all zero for strict loads and
 * clean files).  See graph.h's header comment for each rule. */
typedef struct
{
  guint64 dangling_deps_dropped;   /* dependencies on absent ids */
  guint64 cycle_edges_dropped;     /* back edges of the file-order DFS */
  guint64 colls_skipped;           /* COMM_COLL without comm_type or comm_size */
  guint64 valueless_attrs_ignored; /* attributes with a name and no value */
  guint64 duplicate_nodes_dropped; /* later nodes with an id seen before */
  guint64 truncated_frames;        /* a cut last frame: 0 or 1 per file */
  guint64 headerless_files;        /* 0 or 1 per file */
} WlLenientStats;

/* Add every counter of B to A. */
void wl_lenient_stats_add (WlLenientStats *a, const WlLenientStats *b);

/* Everything dropped, summed (0: the traces were clean). */
guint64 wl_lenient_stats_total (const WlLenientStats *s);

/* Append to OUT one line (no newline) saying what was dropped, e.g.
 * "lenient: dropped 2 dangling dependencies, 1 cycle edge; skipped 1
 * collective without comm_type/comm_size; ... (orrery inspect names them)";
 * "lenient: the traces were clean" when nothing was. */
void wl_lenient_stats_describe (const WlLenientStats *s, GString *out);

#endif /* ORRERY_WORKLOAD_LENIENT_H */
