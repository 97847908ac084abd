/* graph.h: one rank's trace as a compact dependency graph.
 *
 * Models: the Chakra nodes of one file, mapped to dense indices in file
 * order, with the fields replay needs already decoded (times in ps, sizes in
 * bytes, the collective kind) and every dependency (data and control alike)
 * resolved.  The dependents of all nodes live in one flat array.  Building
 * the graph checks it: a dependency on an id that never appears, a repeated
 * id, or a cycle is an input error naming the file and node ids.  Node ids
 * are uint64 throughout (never converted through double), so ids above
 * 2^53 are kept and named exactly.
 *
 * Strict and lenient loading.  Converted PyTorch traces are often messy.
 * Strict loading (the default) refuses each defect below with the message
 * `orrery inspect` prints for it (prefixed with the file).  Lenient loading
 * drops what is broken, deterministically, and counts it in the graph's
 * WlLenientStats:
 *   - a dangling dependency (on an id not in the file) is dropped: the node
 *     no longer waits for it.  Strict: "PATH: node C depends on node P,
 *     which is not in the trace (dangling dependency)".
 *   - a dependency cycle is broken by dropping the edges that close it: a
 *     depth-first search along dependencies, starting from each node in
 *     file order and following each node's data_deps then ctrl_deps in file
 *     order, drops every back edge (an edge to a node on the current search
 *     path).  The inspector runs the same search, so each cycle it lists,
 *     "a -> b -> ... -> x -> a", names the dropped edge last: x's dependency
 *     on a.  Strict: "PATH: dependency cycle through N nodes: a -> b -> a
 *     (each depends on the next)", the first cycle that search finds.
 *   - a COMM_COLL node without comm_type, or without comm_size (barriers
 *     may omit the size), is replayed as a skipped node: it completes at
 *     once and releases its dependents.  Every rank whose trace lacks the
 *     field skips it alike; a rank that has it still joins the collective.
 *     Strict: "PATH: node N: COMM_COLL node without comm_type" (or
 *     comm_size).
 *   - an attribute with a name and no value is taken as absent (it is
 *     removed before the node is decoded).  Strict: such an attribute is an
 *     error only when orrery reads it ("PATH: node N: attribute "NAME" has
 *     no value (valueless attribute)"); others are ignored as any unused
 *     attribute is.
 *   - a repeated id: the first node with that id is kept, later ones are
 *     dropped (dependencies on the id resolve to the first).  Strict: "PATH:
 *     node N: the id appears twice in the trace (duplicate id)".
 *   - a last frame cut short (an interrupted writer), or gzip data cut
 *     short (inside a frame, or after one), is dropped and every complete
 *     node before it kept.  Strict: the reader's "PATH: frame K at byte
 *     offset O: frame length L runs past end of file (B bytes left):
 *     truncated file?" (or "truncated length varint at end of file"; for
 *     gzip, "... (decompressed): ...: truncated gzip data (the .gz file is
 *     cut short ...)").
 *   - a headerless (pre-2024) file, whose frame 0 is already a Node, is read
 *     from that node on.  Strict: "PATH: headerless (pre-2024) Chakra trace:
 *     frame 0 is a Node (id N, type T), not a GlobalMetadata; ...".
 * Lenient loading still refuses, with the strict message: an empty file
 * (zero bytes: it holds no node to keep, and a rank without nodes would
 * never join the other ranks' collectives, turning an input error into a
 * deadlock far from its cause), a file that is not a Chakra trace, a frame
 * in the middle that does not unpack, attributes of the wrong kind, and
 * values out of range.  Proto2-era writers' layout (repeated deps written
 * unpacked, one tag per id, and zero scalars written out) needs no leniency:
 * protobuf decoding accepts it in both modes.
 *
 * Ranks whose files are byte-identical share one WlGraph (see WlGraphCache):
 * a graph holds nothing rank-specific (a send without comm_src keeps "own
 * rank" as WL_RANK_SELF).
 *
 * Ownership: a WlGraph is reference-counted; WlGraphCache holds one
 * reference to each graph it made.
 *
 * Memory: the graph's arrays and the loader's are allocated with checks;
 * running out of memory is an input error naming what could not be
 * allocated, not an abort.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GRAPH_H
#define ORRERY_WORKLOAD_GRAPH_H

#include <glib.h>

#include "sim/simtime.h"
#include "workload/chakra.h"
#include "workload/groups.h"

#define WL_RANK_SELF G_MAXUINT32

/* What a node does in replay. */
typedef enum
{
  WL_OP_SKIP,    /* METADATA, INVALID, unknown types: completes at once */
  WL_OP_COMP,    /* accelerator compute */
  WL_OP_CPU,     /* host compute (is_cpu_op) */
  WL_OP_COLL,    /* collective */
  WL_OP_SEND,
  WL_OP_RECV,
  WL_OP_MEM      /* MEM_LOAD or MEM_STORE */
} WlOp;

typedef struct
{
  guint64 id;           /* the trace's node id */
  guint64 duration_ps;  /* duration_micros in ps (COMP, WAIT) */
  guint64 num_ops;      /* COMP: FLOPs, 0 when absent */
  guint64 bytes;        /* COLL/SEND/RECV: comm_size; COMP/MEM: tensor_size */
  guint64 group;        /* COLL: group id (WL_GROUP_ALL for all ranks) */
  guint32 child_start;  /* dependents: children[child_start .. +n_children] */
  guint32 n_children;
  guint32 n_parents;
  guint32 peer_src;     /* SEND/RECV: comm_src, or WL_RANK_SELF */
  guint32 peer_dst;     /* SEND/RECV: comm_dst, or WL_RANK_SELF */
  gint32 tag;           /* SEND/RECV: comm_tag */
  gint32 priority;      /* COLL: comm_priority */
  guint32 involved;     /* COLL: bit d set: dimension d may be used */
  guint32 root;         /* COLL, rooted kinds: the root rank, or WL_RANK_SELF: the
                         * group's first member */
  guint8 op;            /* WlOp */
  guint8 coll_kind;     /* COLL: SysCollKind */
  guint8 chakra_type;   /* the trace's NodeType */
  guint8 has_duration;
} WlNode;

/* What lenient loading dropped from one file (all zero for strict loads and
 * clean files).  See the header comment for each rule. */
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

typedef struct
{
  volatile gint ref;
  char *path;           /* the file it was read from (the first, if shared) */
  guint32 n_nodes;
  WlNode *nodes;
  guint32 *children;    /* all dependents, grouped by parent */
  guint32 n_roots;      /* nodes with no dependencies */
  GArray *group_defs;   /* process groups from METADATA nodes: WlGroupDef */
  guint32 n_skipped_unknown; /* nodes of types orrery does not know */
  const char **names;   /* per node: its name ("" when it has none) */
  GStringChunk *names_chunk; /* holds the names, each distinct name once */
  guint64 name_bytes;   /* each node's name and its NUL, summed (an upper bound of
                         * what names_chunk holds, for the memory budget) */
  char *sha256;         /* hex digest of the file (graphs from WlGraphCache), or NULL */
  gboolean lenient;     /* loaded leniently */
  WlLenientStats dropped; /* what lenient loading dropped (zero when strict) */
} WlGraph;

/* A process group defined by a METADATA node. */
typedef struct
{
  guint64 id;
  GArray *ranks; /* guint32; empty means all ranks */
} WlGroupDef;

/* A new empty array of WlGroupDef (each def's ranks freed with it). */
GArray *wl_group_defs_new (void);

/* Decoding one node as graph loading does, shared with the streamed replay
 * (stream.h), which reads nodes one at a time. */
typedef struct
{
  const char *path;         /* the file, for messages */
  gboolean lenient;
  WlLenientStats dropped;   /* counts colls_skipped, valueless_attrs_ignored */
  guint32 unknown;          /* nodes of types orrery does not know */
  GArray *group_defs;       /* METADATA process groups are appended here
                             * (WlGroupDef); NULL: not decoded */
} WlNodeDecoder;

/* Decode N into *OUT: with d->lenient its valueless attributes are removed
 * first (and counted); a collective without comm_type or comm_size is a
 * skipped node (lenient) or an error.  FALSE with ERROR set (WL_ERROR,
 * SIM_ERROR_INPUT, "PATH: node ID: ...") when the node is bad.  Checks of
 * ids and dependencies are the caller's. */
gboolean wl_node_decode (WlNodeDecoder *d, ChakraProtoMsg__Node *n, WlNode *out, GError **error);

/* Called by wl_trace_read with each node (the callee may change it; it is
 * freed afterwards).  FALSE stops the reading: with ERROR set, an error. */
typedef gboolean (*WlTraceNodeFunc) (gpointer data, ChakraProtoMsg__Node *n, GError **error);

/* Read every node of PATH as graph loading does: with LENIENT, a headerless
 * file is read from its first node and a truncated last frame ends the
 * trace, each counted in DROPPED (headerless_files, truncated_frames);
 * otherwise both are errors.  Returns TRUE at the end of the trace, FALSE
 * with ERROR set on a read error, or FALSE when FUNC returned FALSE (with
 * its error, if it set one). */
gboolean wl_trace_read (const char *path, gboolean lenient, WlLenientStats *dropped,
                        WlTraceNodeFunc func, gpointer data, GError **error);

/* Graph loading's errors for a node ID of PATH whose id was seen before
 * ("PATH: node ID: the id appears twice in the trace (duplicate id)"), or
 * that comes when N_NODES is G_MAXUINT32 - 1 ("... too many nodes in one
 * trace"), and for a dangling dependency ("PATH: node CHILD depends on node
 * PARENT, which is not in the trace (dangling dependency)", then WHY when
 * not NULL).  wl_trace_id_error returns FALSE. */
gboolean wl_trace_id_error (const char *path, guint64 id, guint32 n_nodes, GError **error);
void wl_dangling_error (const char *path, guint64 child, guint64 parent, const char *why,
                        GError **error);

/* The working memory of a load, as wl_graph_load_limited counts it: per
 * node read so far, its WlNode and name pointer (88 bytes, up to twice
 * that while the arrays double), its id index entry (24 to 48) and the
 * checks' arrays (17); per dependency, its pending record (16, up to 32)
 * and the arrays that resolve and link it (16); plus each node's name. */
#define WL_LOAD_NODE_BYTES 160
#define WL_LOAD_DEP_BYTES 40

/* Read and check one trace file.  Unknown node types are counted (and warned
 * about once per file by the caller); a collective type orrery cannot
 * simulate is an error naming the node.  LENIENT: drop what is broken as
 * the header comment says, counting it in graph->dropped.  Returns a new
 * graph, or NULL with ERROR set (WL_ERROR, SIM_ERROR_INPUT, naming the
 * file and node ids).  Running out of memory for the graph's arrays is such
 * an error too: "PATH: out of memory allocating N bytes for the trace's
 * nodes" (or dependencies, node index, dependency cycle search, ...). */
WlGraph *wl_graph_load_full (const char *path, gboolean lenient, GError **error);

/* As wl_graph_load_full, but give up, returning NULL with ERROR unset and
 * *OVER set (OVER may be NULL), as soon as the load's working memory
 * (WL_LOAD_NODE_BYTES per node read so far, WL_LOAD_DEP_BYTES per
 * dependency, plus the names) passes LIMIT bytes (G_MAXUINT64: no limit).
 * The count depends only on the file, so where a load stops is
 * deterministic. */
WlGraph *wl_graph_load_limited (const char *path, gboolean lenient, guint64 limit,
                                gboolean *over, GError **error);
/* wl_graph_load_full (path, FALSE, error). */
WlGraph *wl_graph_load (const char *path, GError **error);
WlGraph *wl_graph_ref (WlGraph *graph);
void wl_graph_unref (WlGraph *graph); /* accepts NULL */

/* Cycle messages list at most this many ids. */
#define WL_CYCLE_MAX_IDS 20

/* Append "dependency cycle through LEN nodes: a -> b -> ... -> a (each
 * depends on the next)" for the cycle IDS[0 .. LEN-1] (each depends on the
 * next, the last on the first); at most WL_CYCLE_MAX_IDS ids are listed.
 * Shared with the inspector so that both word cycles alike. */
void wl_cycle_describe (GString *out, const guint64 *ids, guint32 len);

/* A dependency that leads to no node (dangling, or dropped). */
#define WL_CYCLE_NO_NODE G_MAXUINT32

/* Called by wl_cycle_search for each dependency that closes a cycle: slot
 * SLOT's dependency leads back to PATH[0], and PATH[0 .. LEN-1] (node
 * indices, each depending on the next, the last on PATH[0]) is the cycle.
 * PATH is borrowed for the call.  Returns FALSE to stop the search. */
typedef gboolean (*WlCycleFunc) (gpointer data, guint32 slot, const guint32 *path, guint32 len);

/* The depth-first search along dependencies that both the graph builder and
 * the inspector run: from each of the N nodes in index order, following
 * node v's dependencies in slot order, slots START[v] .. START[v + 1] - 1
 * (START holds N + 1 entries).  TARGET[slot] is the index of the node that
 * dependency leads to, or WL_CYCLE_NO_NODE (not followed).  Each edge to a
 * node on the current path is passed to ON_CYCLE and never followed, so a
 * caller may drop it.  Returns FALSE when ON_CYCLE stopped the search, and
 * FALSE with ERROR set when its arrays (13 bytes a node) cannot be
 * allocated ("out of memory allocating N bytes for the dependency cycle
 * search"). */
gboolean wl_cycle_search (guint32 n, const guint32 *start, const guint32 *target,
                          WlCycleFunc on_cycle, gpointer data, GError **error);

/* Bytes the graph holds in memory (for the memory report and the memory
 * budget): 88 per node, 4 per dependency edge, plus name_bytes. */
gsize wl_graph_bytes (const WlGraph *graph);

/* The SHA-256 of the file at PATH (lower-case hex, newly allocated), read
 * in pieces; NULL with ERROR set (WL_ERROR, SIM_ERROR_INPUT) when it cannot
 * be read. */
char *wl_file_sha256 (const char *path, GError **error);

/* Loads files, sharing one graph among byte-identical files. */
typedef struct _WlGraphCache WlGraphCache;
WlGraphCache *wl_graph_cache_new (void);
/* A cache whose graphs are loaded leniently (wl_graph_load_full). */
WlGraphCache *wl_graph_cache_new_full (gboolean lenient);
void wl_graph_cache_free (WlGraphCache *cache); /* accepts NULL */
/* A new reference to the graph of `path`. */
WlGraph *wl_graph_cache_load (WlGraphCache *cache, const char *path, GError **error);
/* As wl_graph_cache_load, loading a new file with wl_graph_load_limited
 * (a file identical to one already loaded costs nothing and never stops). */
WlGraph *wl_graph_cache_load_limited (WlGraphCache *cache, const char *path, guint64 limit,
                                      gboolean *over, GError **error);
guint wl_graph_cache_distinct (const WlGraphCache *cache);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGraph, wl_graph_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGraphCache, wl_graph_cache_free)

#endif /* ORRERY_WORKLOAD_GRAPH_H */
