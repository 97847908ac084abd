/* stream.h: a rank's trace read as the replay goes, for traces that do not
 * fit in memory.
 *
 * What it models: the same trace graph as graph.h, never held whole.  Each
 * file is read twice:
 *
 *   1. wl_trace_scan, before the simulation, reads every node once and
 *      keeps no node: it makes every check graph loading makes per node
 *      (the node decoder of node.h: attributes, collectives without
 *      comm_type, ...), finds repeated ids and dependencies on ids absent
 *      from the file (dangling), counts the nodes and what lenient loading
 *      drops, collects METADATA process groups, and records the forward
 *      references (dependencies on ids that appear later in the file).  It
 *      keeps the ids it has seen as a sorted set of id intervals: 16 bytes
 *      per run of consecutive ids, so nothing per node when ids increase
 *      through the file, as converters write them (16 bytes per node, and
 *      a slower insertion, when they come in no order).
 *
 *   2. A WlStream reads the file again during the replay, in file order,
 *      into a window of at most W resident nodes, kept in blocks of
 *      consecutive nodes; a block is freed once all its nodes are done.
 *      When a node is read its dependencies are resolved: on a resident
 *      unfinished node, the new node joins that parent's dependents (in
 *      file order, the order in which an in-memory graph releases them);
 *      on a forward reference, it waits for that node to be read; on a
 *      node already finished, nothing (that parent's completion is past).
 *      Reading a node whose forward references come to rest on it links
 *      those waiting dependents to it, and checks first that the new edges
 *      close no cycle (deps.h's wl_cycle_reach: a search from the waiting
 *      dependents through their resident descendants, made only when the
 *      new node itself has a resident parent).
 *
 * Exactness.  A streamed replay is the in-memory one exactly when every
 * node is read before it would have become ready: roots (nodes without
 * dependencies) before the rank starts, every other node no later than the
 * completion of its last parent.  The replay reads ahead as far as the
 * window allows when the rank starts and after each completion (right
 * after that node released the dependents it had, so that the dependents
 * read then, which come later in the file, are released after them, as in
 * memory).  A node read too late is an error (wl_stream_fill), as is a
 * window full of nodes that all wait on nodes further in the file
 * (wl_stream_stuck): the budget is too small for this trace.  Nothing is
 * approximated.
 *
 * Memory of a window: WL_STREAM_NODE_BYTES per resident node slot (its
 * WlNode, its state, its entry in the id index, and an allowance for its
 * dependency edges, which take 8 bytes each), plus zlib's and the frame
 * buffers (WL_STREAM_RANK_BYTES per rank).  The scan adds, for the run,
 * 24 bytes per forward reference and 8 per repeated id (lenient).
 *
 * Ownership: a WlTraceScan owns its copies and arrays (wl_trace_scan_free);
 * a WlStream borrows its scan and owns its reader and window
 * (wl_stream_free).  Both free functions accept NULL.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_STREAM_H
#define ORRERY_WORKLOAD_STREAM_H

#include <glib.h>

#include "sim/simtime.h"
#include "workload/graph.h"

/* Bytes accounted per node slot of a window, and per rank, when a memory
 * budget is turned into windows (see wl_replay_set_memory_budget). */
#define WL_STREAM_NODE_BYTES G_GUINT64_CONSTANT (128)
#define WL_STREAM_RANK_BYTES (G_GUINT64_CONSTANT (64) * 1024)

/* The smallest window: a budget that leaves less streams with this many. */
#define WL_STREAM_MIN_WINDOW 64

/* ---- first pass ------------------------------------------------------------- */

/* A dependency on an id that appears later in the file. */
typedef struct
{
  guint64 child_id;
  guint64 parent_id;
  guint32 child;     /* the dependent's index in file order */
} WlForwardRef;

typedef struct
{
  char *path;
  gboolean lenient;
  guint32 n_nodes;           /* nodes kept (repeated ids dropped when lenient) */
  guint32 n_skipped_unknown; /* nodes of types orrery does not know */
  guint n_streams;           /* distinct comm stream indices, 1 or more */
  WlTraceFacts facts;        /* GlobalMetadata's iteration facts */
  WlLenientStats dropped;    /* what lenient reading drops (never dangling
                              * dependencies or cycle edges: see wl_trace_scan) */
  GArray *group_defs;        /* WlGroupDef from METADATA nodes */
  GPtrArray *exchanges;      /* SEND/RECV nodes' exchange names (WlNode.exchange) */
  WlKernelLists *kernels;    /* COMP nodes' distinct `kernels` lists: the window
                              * numbers its nodes' lists here too */
  GArray *forward;           /* WlForwardRef, by dependent then dependency order */
  GArray *repeats;           /* guint64: lenient, the positions among the file's
                              * nodes (0 for the first) of those dropped as repeats */
} WlTraceScan;

/* Called by wl_trace_scan with each node kept, decoded, in file order;
 * returning FALSE (ERROR set) stops the scan with that error. */
typedef gboolean (*WlScanFunc) (gpointer data, const WlNode *node, GError **error);

/* The first pass over PATH (plain or gzip; headerless and a truncated last
 * frame accepted when LENIENT, as graph loading does).  FUNC (may be NULL)
 * sees every node kept.  Errors (WL_ERROR, SIM_ERROR_INPUT) are graph
 * loading's, in its words: a bad node, "the id appears twice in the trace
 * (duplicate id)", "node C depends on node P, which is not in the trace
 * (dangling dependency)" (the first in file order, reported at the end of
 * the file).  When LENIENT, a dangling dependency is an error too, saying
 * that lenient loading cannot drop it while streaming: dropping it makes
 * the dependent a root, which must be known when the rank starts, before
 * the end of the file is read. */
WlTraceScan *wl_trace_scan (const char *path, gboolean lenient, WlScanFunc func, gpointer data,
                            GError **error);

/* What wl_trace_scan_request scans, and how. */
typedef struct
{
  const char *path;
  gboolean lenient;
  WlScanFunc func;
  gpointer data;
  const guint8 *bytes;     /* the file's bytes when the caller holds them
                            * (borrowed; wl_chakra_reader_open_bytes), else NULL */
  gsize n_bytes;
  WlGroupMemo *group_memo; /* METADATA group lists parsed through it (borrowed;
                            * NULL: parse each) */
} WlScanRequest;

/* wl_trace_scan as REQ says.  One pass over the file's bytes: linear in
 * them (each node decoded once, its id and forward references noted). */
WlTraceScan *wl_trace_scan_request (const WlScanRequest *req, GError **error);
void wl_trace_scan_free (WlTraceScan *scan);

/* ---- the window ------------------------------------------------------------- */

typedef struct _WlStream WlStream;

/* Fix up a node as it enters the window (e.g. resolve its process group). */
typedef void (*WlStreamPrepareFunc) (gpointer data, WlNode *node);

typedef struct
{
  const WlTraceScan *scan;   /* borrowed: the file and its first pass */
  guint32 window;            /* resident node slots, 1 or more */
  guint32 rank;              /* for messages */
  guint64 budget;            /* the budget the window stands for (messages): 0, none */
  WlStreamPrepareFunc prepare; /* may be NULL */
  gpointer data;
} WlStreamParams;

/* The nodes a window of WINDOW slots holds: whole blocks, so up to a
 * block fewer (what the messages and notes name). */
guint32 wl_stream_window_nodes (guint32 window);

/* Open SCAN's file for the second pass; nothing is read past frame 0 yet.
 * NULL with ERROR set when it cannot be opened. */
WlStream *wl_stream_open (const WlStreamParams *params, GError **error);
void wl_stream_free (WlStream *s);

/* Node SEQ (its index in file order), which must be resident.  In a
 * window, n_parents counts the node's unfinished parents, and child_start
 * and n_children hold the first and last of its dependency edges (internal
 * to the stream). */
WlNode *wl_stream_node (WlStream *s, guint32 seq);

/* The replay's state byte of resident node SEQ (0 when it is read). */
guint8 *wl_stream_state (WlStream *s, guint32 seq);

/* Called for each node that becomes ready, with its index. */
typedef void (*WlStreamReadyFunc) (gpointer data, guint32 seq);

typedef struct
{
  SimTime now;             /* for messages */
  gboolean started;        /* FALSE: the rank starts; nodes read without
                            * dependencies are its roots, passed to READY */
  gboolean finishing;      /* a node has just finished and released its dependents: */
  guint64 finishing_id;    /* its id; a node read now whose last parent it is
                            * becomes ready (passed to READY) */
  WlStreamReadyFunc ready;
  gpointer data;
} WlStreamFill;

/* Read nodes while the window has room and the file has nodes.  FALSE with
 * ERROR set (WL_ERROR, SIM_ERROR_INPUT) on a bad node, a dependency cycle
 * (graph loading's message; when lenient, also that it cannot be dropped
 * while streaming), or a node read too late: after the rank started
 * without dependencies ("PATH: rank R: node N has no dependencies, so it
 * is ready when the rank starts, but it lies beyond the W nodes the memory
 * budget lets orrery read ahead (it was read at T): the budget is too small
 * to stream this trace exactly; ADVICE"), or after its last parent
 * finished ("PATH: rank R: node N was read at T, after its parent node P
 * had finished: the memory budget is too small to stream this trace
 * exactly; ADVICE").  ADVICE is "--memory-budget B leaves a window of W
 * nodes per rank: give a larger budget, or --memory-budget none to load the
 * traces whole" (or, for a window given without a budget, "the window holds
 * W nodes per rank: ..."). */
gboolean wl_stream_fill (WlStream *s, const WlStreamFill *fill, GError **error);

/* Node SEQ is done: release its dependents (in file order: READY is
 * called for each that has no unfinished parent left), and free its slot
 * (its block once every node in it is done). */
void wl_stream_finish (WlStream *s, guint32 seq, WlStreamReadyFunc ready, gpointer data);

/* The error for a rank whose resident nodes all wait and whose window is
 * full: "PATH: rank R: at T every node in the memory budget's window of W
 * nodes waits on nodes further in the file (node C depends on node P, not
 * read yet): the budget is too small to stream this trace; ADVICE".
 * Always returns FALSE. */
gboolean wl_stream_stuck (const WlStream *s, SimTime now, GError **error);

/* TRUE once every node of the file was read. */
gboolean wl_stream_read_all (const WlStream *s);

/* The resident nodes, in file order: the first index, and one past the
 * last (nodes in between whose block was freed are done). */
guint32 wl_stream_first (const WlStream *s);
guint32 wl_stream_end (const WlStream *s);
/* Whether SEQ's block is resident. */
gboolean wl_stream_resident (const WlStream *s, guint32 seq);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlTraceScan, wl_trace_scan_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlStream, wl_stream_free)

#endif /* ORRERY_WORKLOAD_STREAM_H */
