/* replay_source.h: where the replay core gets one rank's nodes from.
 *
 * Models: the replay core (replay.c) issues nodes, times them and counts
 * them; it never knows how the rank's trace is held.  A node source holds
 * it and answers the core's few questions through a small table of
 * functions: node INDEX and its state byte, which nodes are ready when the
 * rank starts, which become ready when a node finishes, and (for the
 * deadlock report) which nodes are resident.  Two sources exist: the
 * trace graph in memory (replay_mem.c, graph.h) and the streamed window
 * (replay_stream.c, stream.h), which reads ahead as nodes finish and may
 * stop the run when the window is too small to replay exactly.
 *
 * A source makes a node ready by calling its ready function (set by the
 * core when the rank is made); nodes are indexed in file order.
 *
 * Ownership: the core owns each rank's source (wl_node_source_free); an
 * in-memory source holds a reference to its graph, a streamed one borrows
 * its first pass from the loader.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_SOURCE_H
#define ORRERY_WORKLOAD_REPLAY_SOURCE_H

#include <glib.h>

#include "workload/graph.h"
#include "workload/stream.h"

/* Node states, per rank, as the state byte of each node holds them. */
enum
{
  NODE_WAITING,
  NODE_READY,
  NODE_RUNNING,
  NODE_DONE
};

typedef struct _WlNodeSource WlNodeSource;

/* Called by a source for each node that becomes ready. */
typedef void (*WlNodeReadyFunc) (gpointer data, guint32 index);

typedef struct
{
  /* Node INDEX, resident, and its state byte (NODE_*). */
  WlNode *(*node) (WlNodeSource *src, guint32 index);
  guint8 *(*state) (WlNodeSource *src, guint32 index);
  /* The rank starts at NOW: make its first nodes ready.  FALSE with ERROR
   * set stops the run. */
  gboolean (*start) (WlNodeSource *src, SimTime now, GError **error);
  /* Node INDEX finished at NOW (its state is NODE_DONE already): make
   * ready what it released, in file order.  FALSE with ERROR set stops the
   * run. */
  gboolean (*release) (WlNodeSource *src, guint32 index, SimTime now, GError **error);
  /* Nothing is ready or running and nodes are left: the error to stop the
   * run with (returns FALSE), or NULL when the source cannot stall. */
  gboolean (*stuck) (WlNodeSource *src, SimTime now, GError **error);
  /* Node INDEX and its state when resident, else NULL; the resident
   * range, [*FIRST, *END). */
  const WlNode *(*peek) (WlNodeSource *src, guint32 index, guint8 *state);
  void (*range) (const WlNodeSource *src, guint32 *first, guint32 *end);
  /* Point each collective at its system group: MAP takes a trace's group
   * id (guint64*) to its sys_group_index (GUINT_TO_POINTER). */
  void (*resolve) (WlNodeSource *src, GHashTable *map);
  /* After a run that ended with nodes left: FALSE with ERROR set when the
   * source cannot tell a deadlock from its own limit (NULL: it can). */
  gboolean (*check_end) (const WlNodeSource *src, SimTime now, GError **error);
  void (*free) (WlNodeSource *src);
} WlNodeSourceClass;

struct _WlNodeSource
{
  const WlNodeSourceClass *klass;
  WlNodeReadyFunc ready;
  gpointer ready_data;
  const char *path;    /* the rank's trace file, for messages (borrowed) */
  guint32 n_nodes;     /* nodes of the rank's trace */
  guint n_streams;     /* its distinct comm stream indices (WlNode.comm_stream), 1 or more */
  /* Where not NULL, node INDEX is nodes[INDEX] and its state byte
   * states[INDEX], which the core reads in place (the class's node and
   * state, three calls each a node, were 2.3 M instructions of the
   * every-rank Llama-2 row's 151 M loop).
   * The in-memory source lends its states from its creation and its
   * nodes once its rank starts; a streamed one neither. */
  WlNode *nodes;
  guint8 *states;
  /* Where not NULL (with nodes), node INDEX's dependents are
   * children[nodes[INDEX].child_start ...] (n_children of them) and
   * parents_left[V] counts node V's unfinished dependencies: the core
   * releases dependents there itself, without the class's release and a
   * call of ready per dependent (3 M instructions of the every-rank
   * Llama-2 row).  The in-memory source lends both once its rank starts
   * with its graph expanded; a streamed one neither. */
  const guint32 *children;
  guint32 *parents_left;
};

/* Node INDEX of SRC and its state byte, in place where the source lends
 * its arrays (the core's hot path), else through its class. */
static inline WlNode *
wl_node_source_node (WlNodeSource *src, guint32 index)
{
  return G_LIKELY (src->nodes != NULL) ? &src->nodes[index] : src->klass->node (src, index);
}

static inline guint8 *
wl_node_source_state (WlNodeSource *src, guint32 index)
{
  return G_LIKELY (src->states != NULL) ? &src->states[index] : src->klass->state (src, index);
}

/* A source over GRAPH for RANK, taking the caller's reference to GRAPH
 * (also when it fails); OWNER: this rank is the first to hold the graph
 * (it resolves the graph's groups, which byte-identical ranks share).
 * NULL with ERROR set ("PATH: rank R: out of memory ...") when its
 * per-node arrays cannot be allocated. */
WlNodeSource *wl_mem_source_new (WlGraph *graph, guint32 rank, gboolean owner, GError **error);

/* A source reading PARAMS->scan's file into a window (stream.h); NULL with
 * ERROR set when the file cannot be opened. */
WlNodeSource *wl_stream_source_new (const WlStreamParams *params, GError **error);

void wl_node_source_free (WlNodeSource *src); /* accepts NULL */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlNodeSource, wl_node_source_free)

#endif /* ORRERY_WORKLOAD_REPLAY_SOURCE_H */
