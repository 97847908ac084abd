/* inspect.h: summarise a Chakra trace set and list every defect in it.
 *
 * What it models: nothing is simulated.  Each rank's file is read once with
 * the Chakra reader and summarised (node counts by type, total compute time
 * in microseconds as the trace gives it, collectives by kind with count and
 * bytes).  Unlike wl_graph_load, which stops at the first problem, the
 * inspector collects every defect it finds, each message naming the file and
 * the node ids, worded as strict loading (wl_graph_load) words its error
 * for the same defect:
 *   - an empty file ("empty trace (no GlobalMetadata frame)"),
 *   - a headerless (pre-2024) file, whose frame 0 is already a Node (named
 *     by id and type); its nodes are checked as usual,
 *   - a truncated last frame (the reader's message: frame index, byte
 *     offset, length and bytes left); the nodes before it are checked,
 *   - attributes with a name and no value ("attribute "NAME" has no value
 *     (valueless attribute)"); the checks below then take them as absent,
 *   - dangling dependencies (a data or control dependency on an absent id),
 *   - ids that appear more than once,
 *   - dependency cycles (one message per cycle found by a depth-first search
 *     from each node in file order, along its data_deps then ctrl_deps:
 *     every back edge closes one cycle, listed as "a -> b -> ... -> x -> a",
 *     read "a depends on b"; the last hop, x -> a, is the edge lenient
 *     loading drops),
 *   - COMM_COLL nodes without comm_type, or without comm_size (barriers may
 *     omit the size, as in replay),
 *   - attributes of the wrong kind (the reader's message),
 *   - METADATA process groups that graph loading refuses (a list that does
 *     not parse, a rank listed twice in a group), worded as it words them,
 *   - COMM_SEND whose comm_src, or COMM_RECV whose comm_dst, is not the rank,
 *   - ranks whose sequence of collectives (comm_type, comm_size, pg_name, in
 *     file order of the COMM_COLL nodes) differs from the first file's: the
 *     first differing position and both values are named.
 *
 * A file's rank is the number N in a name ending ".N.et" (as in PREFIX.N.et;
 * ".N.json" for a JSON trace, chakra_json.h),
 * else its position in the list.
 *
 * Ownership: a WlInspectReport owns its copies of the paths and messages; it
 * is freed with wl_inspect_report_free (NULL accepted; g_autoptr works).
 *
 * Layer: workload.  May include: sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_INSPECT_H
#define ORRERY_WORKLOAD_INSPECT_H

#include <stdio.h>

#include <glib.h>

/* Node-type slots of WlInspectRank.nodes: Chakra NodeType values 0..7, and
 * one slot for the types the schema does not define. */
#define WL_INSPECT_TYPE_UNKNOWN 8
#define WL_INSPECT_N_TYPES 9
/* Collective slots: CollectiveCommType values 0..9, and one slot for other
 * values.  A COMM_COLL without comm_type is counted in no slot. */
#define WL_INSPECT_COLL_OTHER 10
#define WL_INSPECT_N_COLLS 11

/* One rank's figures.  All fields are guint64 so that two ranks' figures
 * compare with memcmp. */
typedef struct
{
  guint64 nodes[WL_INSPECT_N_TYPES];
  guint64 compute_micros;                /* sum of duration_micros of COMP nodes */
  guint64 kernel_nodes;                  /* COMP nodes with a kernel list (priced at run time
                                          * under the kernel model, their durations aside) */
  guint64 coll_count[WL_INSPECT_N_COLLS];
  guint64 coll_bytes[WL_INSPECT_N_COLLS]; /* sum of comm_size */
  guint64 peak_memory_B;                 /* GlobalMetadata's peak_memory_bytes (0: none) */
} WlInspectRank;

typedef struct _WlInspectReport WlInspectReport;

/* The files to inspect for ARG: ARG itself when it is a regular file, else
 * ARG.0.et, ARG.1.et, ... (each .json where only that exists:
 * wl_chakra_trace_path) up to the first that is missing.  Returns a new
 * array of new strings (g_ptr_array_unref frees all), or NULL with ERROR set
 * (WL_ERROR, SIM_ERROR_INPUT) when there is neither, or when the first
 * missing file, past ARG.0, has the next rank's file after it (a gap: the
 * error names both). */
GPtrArray *wl_inspect_resolve (const char *arg, GError **error);

/* Read and check the N files PATHS (borrowed).  Returns a new report, or
 * NULL with ERROR set (WL_ERROR, SIM_ERROR_INPUT, naming the file) when a
 * file cannot be read, is not a Chakra trace, or has a frame before the last
 * that does not unpack: that is not a defect but a failure.  Defects found
 * (including empty, headerless and truncated files) are in the report. */
WlInspectReport *wl_inspect_files (const char *const *paths, guint n, GError **error);

/* Number of files in the report, and the figures of file I (borrowed). */
guint wl_inspect_report_n_ranks (const WlInspectReport *r);
const WlInspectRank *wl_inspect_report_rank (const WlInspectReport *r, guint i);

/* Number of defects, and defect I's message (borrowed): "PATH: ...". */
guint wl_inspect_report_n_defects (const WlInspectReport *r);
const char *wl_inspect_report_defect (const WlInspectReport *r, guint i);

/* Print the report to OUT: one summary line per group of ranks with
 * identical figures ("ranks 0-15: ..."), one "defect: ..." line per defect,
 * and "N defects" last. */
void wl_inspect_report_print (const WlInspectReport *r, FILE *out);

/* Free the report.  Accepts NULL. */
void wl_inspect_report_free (WlInspectReport *r);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlInspectReport, wl_inspect_report_free)

#endif /* ORRERY_WORKLOAD_INSPECT_H */
