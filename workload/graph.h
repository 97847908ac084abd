/* graph.h: one rank's trace as a compact dependency graph.
 *
 * Models: the Chakra nodes of one file, mapped to dense indices in file
 * order, with the fields replay needs already decoded (times in ps, sizes in
 * bytes, the collective kind) and every dependency (data and control alike)
 * resolved.  The dependents of all nodes live in one flat array.  Building
 * the graph checks it: a dependency on an id that never appears, a repeated
 * id, or a cycle is an input error naming the file and node ids.
 *
 * Ranks whose files are byte-identical share one WlGraph (see WlGraphCache):
 * a graph holds nothing rank-specific (a send without comm_src keeps "own
 * rank" as WL_RANK_SELF).
 *
 * Ownership: a WlGraph is reference-counted; WlGraphCache holds one
 * reference to each graph it made.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GRAPH_H
#define ORRERY_WORKLOAD_GRAPH_H

#include <glib.h>

#include "sim/simtime.h"
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
  char *sha256;         /* hex digest of the file (graphs from WlGraphCache), or NULL */
} WlGraph;

/* A process group defined by a METADATA node. */
typedef struct
{
  guint64 id;
  GArray *ranks; /* guint32; empty means all ranks */
} WlGroupDef;

/* Read and check one trace file.  Unknown node types are counted (and warned
 * about once per file by the caller); a collective type orrery cannot
 * simulate is an error naming the node. */
WlGraph *wl_graph_load (const char *path, GError **error);
WlGraph *wl_graph_ref (WlGraph *graph);
void wl_graph_unref (WlGraph *graph); /* accepts NULL */

/* Bytes the graph holds in memory (for the memory report). */
gsize wl_graph_bytes (const WlGraph *graph);

/* Loads files, sharing one graph among byte-identical files. */
typedef struct _WlGraphCache WlGraphCache;
WlGraphCache *wl_graph_cache_new (void);
void wl_graph_cache_free (WlGraphCache *cache); /* accepts NULL */
/* A new reference to the graph of `path`. */
WlGraph *wl_graph_cache_load (WlGraphCache *cache, const char *path, GError **error);
guint wl_graph_cache_distinct (const WlGraphCache *cache);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGraph, wl_graph_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGraphCache, wl_graph_cache_free)

#endif /* ORRERY_WORKLOAD_GRAPH_H */
