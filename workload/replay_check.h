/* replay_check.h: the checks a replay makes while loading a trace, in one
 * pass over its nodes.
 *
 * Models: graph loading checks each file by itself (graph.h); the replay
 * adds what depends on the run: that the compute model can time every
 * COMP node, that each send and receive names a valid peer and, when it
 * names its own rank, the rank that replays it, and the caller's node
 * check (wl_replay_set_node_check).  One pass over a distinct file's nodes
 * notes what these need, so that no node has to be kept: the in-memory
 * loader runs it over a graph's nodes, the streamed loader feeds it from
 * the first pass over the file (stream.h).  The rank check then costs
 * nothing per rank, whichever way the trace is held.
 *
 * Also noted: each process group id that collectives use, in order of
 * first use (with the first node using it), for binding groups.
 *
 * Ownership: a WlTraceCheck owns its notes (wl_trace_check_free); it
 * borrows its path and params, which must outlive it.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_CHECK_H
#define ORRERY_WORKLOAD_REPLAY_CHECK_H

#include <glib.h>

#include "workload/graph.h"
#include "workload/wl_params.h"

/* A process group id used by collectives, and the first node using it. */
typedef struct
{
  guint64 group;
  guint64 node;
} WlCollGroup;

/* The caller's check of each node (wl_replay_set_node_check). */
typedef void (*WlTraceNodeHook) (gpointer data, const char *path, const WlNode *n);

typedef struct
{
  const char *path;
  const WlParams *params;
  guint32 n_ranks;
  WlTraceNodeHook hook; /* may be NULL */
  gpointer hook_data;
  guint64 position;     /* nodes seen so far */
  WlNode first_self;    /* the first send/receive with its own rank explicit */
  WlNode other_self;    /* the first whose explicit own rank differs from that */
  WlNode bad_peer;      /* the first with a missing or out-of-range peer */
  guint64 first_self_at, other_self_at, bad_peer_at; /* positions; G_MAXUINT64: none */
  GError *compute;      /* the first COMP node the compute model cannot time */
  GArray *colls;        /* WlCollGroup, in order of first use */
  GHashTable *seen;     /* guint64* group ids in colls */
  guint64 last_group;   /* the group of the last collective noted (colls not empty) */
} WlTraceCheck;

/* A check of PATH's nodes for a run of N_RANKS ranks under PARAMS. */
WlTraceCheck *wl_trace_check_new (const char *path, const WlParams *params, guint32 n_ranks,
                                  WlTraceNodeHook hook, gpointer hook_data);
void wl_trace_check_free (WlTraceCheck *check); /* accepts NULL */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlTraceCheck, wl_trace_check_free)

/* Note node N, the next in file order, in the check DATA (a WlScanFunc:
 * never fails). */
gboolean wl_trace_check_node (gpointer data, const WlNode *n, GError **error);

/* As wl_trace_check_node, noting only what depends on the ranks and groups
 * N names (its collective's group, its peers): for a trace whose nodes are
 * another's, already checked, but for those names (wl_graph_renamed). */
void wl_trace_check_node_names (WlTraceCheck *check, const WlNode *n);
/* As wl_trace_check_node_names for the next node in file order when it
 * names no rank or group (neither a send, a receive nor a collective):
 * only counted, the node not read. */
void wl_trace_check_skip (WlTraceCheck *check);

/* The first send or receive, in file order, that names another rank than
 * RANK as its own, or lacks a valid peer: FALSE with ERROR set ("PATH:
 * rank R node N: comm_src is not this rank", "... a send without
 * comm_dst", "... comm_dst names a rank beyond the topology", ...). */
gboolean wl_trace_check_rank (const WlTraceCheck *check, guint32 rank, GError **error);

/* The first COMP node the compute model cannot time: FALSE with ERROR set
 * ("PATH: node N: a COMP node with neither num_ops nor duration_micros: the
 * roofline model cannot time it"). */
gboolean wl_trace_check_compute (const WlTraceCheck *check, GError **error);

#endif /* ORRERY_WORKLOAD_REPLAY_CHECK_H */
