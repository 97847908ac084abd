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
 * Ranks whose files are byte-identical share one WlGraph (graph_cache.h):
 * a graph holds nothing rank-specific (a send without comm_src keeps "own
 * rank" as WL_RANK_SELF).
 *
 * The graph is built from pieces with their own modules: node.h decodes
 * each node, deps.h resolves dependencies and searches for cycles,
 * lenient.h counts what lenient loading drops.
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
#include "workload/deps.h"
#include "workload/lenient.h"
#include "workload/node.h"

/* One node of a compact renamed graph (wl_graph_delta) that names other
 * ranks or groups than its base's node: what it has in place of the base's. */
typedef struct
{
  guint64 group;        /* COLL: WlNode.group; SEND/RECV: 0 */
  guint32 index;        /* the node */
  guint32 a;            /* COLL: root; SEND/RECV: peer_src */
  guint32 b;            /* COLL: sys_group_index; SEND/RECV: peer_dst */
  guint32 unused;
} WlNodePatch;

/* The ranks and groups a base graph's nodes name, each given a slot, for
 * the rename tables of the graphs renamed from it (WlRenameTable): made
 * once per base (wl_graph_name_slots) and held with it. */
typedef struct
{
  guint32 n_ranks;      /* distinct ranks named (WL_RANK_SELF not counted) */
  guint32 n_groups;     /* distinct group ids of collectives */
  guint32 *ranks;       /* by slot, rising */
  guint64 *groups;      /* by slot, rising */
  guint32 *rank_uses;   /* per rank slot: the names of nodes that are that rank */
  guint32 *group_uses;  /* per group slot: the collectives of that group */
  guint8 *rank_is_root; /* per rank slot: some collective's root */
  guint32 *slot;        /* per node, two: SEND/RECV: peer_src's and peer_dst's rank
                         * slots; COLL: its group slot and root's rank slot;
                         * WL_NO_SLOT where it names no rank (WL_RANK_SELF, others) */
  guint32 named;        /* nodes that name ranks or groups (SEND, RECV, COLL) */
  guint32 *firsts;      /* the nodes, rising, that first name a name in some place:
                         * each group slot's first collective, and per kind (SEND,
                         * RECV) each rank slot's (or WL_RANK_SELF's) first node
                         * with it as peer_src and first with it as peer_dst.  A
                         * walk over a renamed graph's nodes whose state changes
                         * only where a node first names a rank or group in some
                         * place (replay_load's checks of the names) changes it
                         * only at these, whatever the table. */
  guint32 n_firsts;
} WlNameSlots;

#define WL_NO_SLOT G_MAXUINT32

/* A compact renamed graph's names as a map of its base's (graph.h,
 * "Compact renamed graphs"): each rank the base names becomes one rank,
 * each group one group, whichever node names it. */
typedef struct
{
  guint32 *rank_to;     /* by the base's rank slot */
  guint64 *group_to;    /* by the base's group slot */
  guint32 *sys_to;      /* by group slot: the system group index the replay bound
                         * (WL_NO_SLOT until then: the base node's) */
} WlRenameTable;

typedef struct _WlGraph
{
  volatile gint ref;
  char *path;           /* the file it was read from (the first, if shared) */
  guint32 n_nodes;
  WlNode *nodes;
  guint32 *children;    /* all dependents, grouped by parent */
  guint32 n_roots;      /* nodes with no dependencies */
  GArray *group_defs;   /* process groups from METADATA nodes: WlGroupDef */
  WlKernelLists *kernels; /* the distinct `kernels` lists of COMP nodes (kernel_list) */
  GPtrArray *exchanges; /* the exchange names of SEND/RECV nodes (WlNode.exchange) */
  guint32 n_skipped_unknown; /* nodes of types orrery does not know */
  guint n_streams;      /* distinct comm stream indices (WlNode.comm_stream), 1 or more */
  WlTraceFacts facts;   /* GlobalMetadata's iteration facts */
  const char **names;   /* per node: its name ("" when it has none) */
  GStringChunk *names_chunk; /* holds the names, each distinct name once */
  guint64 name_bytes;   /* each node's name and its NUL, summed (an upper bound of
                         * what names_chunk holds, for the memory budget) */
  gboolean lenient;     /* loaded leniently */
  WlLenientStats dropped; /* what lenient loading dropped (zero when strict) */
  struct _WlGraph *base; /* a renamed graph (wl_graph_renamed): the graph whose
                          * arrays but nodes it shares (a reference); else NULL */
  gboolean roots_moved;  /* renamed: a collective's root differs from the base's */
  guint64 load_peak;     /* the working memory its load reached (WlGraphLoad.peak);
                          * a renamed graph's is its base's */
  WlNodePatch *patches;  /* compact (NODES NULL) without a table: the nodes whose
                          * names differ from the base's, by index
                          * (wl_graph_node_at); else NULL */
  guint32 n_patches;
  WlRenameTable *table; /* compact: the names as a map of the base's (no patches);
                         * else NULL */
  WlNameSlots *slots;   /* a base of tables: its names' slots (wl_graph_name_slots) */
  WlRawNames *frame_names; /* per node, where its frame's names sit (chakra_raw.h),
                            * for the next file read against this one: taken
                            * by that read (wl_graph_delta), or NULL */
} WlGraph;

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
 * an error too: "PATH: out of memory allocating N x S bytes for the trace's
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
/* What wl_graph_load_request loads, and how. */
typedef struct
{
  const char *path;     /* the file (named in messages) */
  gboolean lenient;
  guint64 limit;        /* as wl_graph_load_limited's (G_MAXUINT64: none) */
  gboolean *over;       /* as wl_graph_load_limited's (may be NULL) */
  const guint8 *bytes;  /* the file's bytes when the caller holds them (borrowed;
                         * see wl_chakra_reader_open_bytes), else NULL */
  gsize n_bytes;
  WlGroupMemo *group_memo; /* METADATA group lists parsed through it (borrowed;
                            * NULL: parse each) */
  guint64 *peak;        /* when not NULL, receives the working memory last
                         * compared with the limit (0 if none was): the load
                         * with any limit below *PEAK stops over it, with any
                         * other ends as this one did (the count only grows) */
} WlGraphLoad;

/* wl_graph_load_limited as REQ says, from the bytes given or the file.
 * One pass over the file's bytes (linear in them): each node is decoded,
 * indexed by id (hash map) and its dependencies queued; then the
 * dependencies are resolved (one lookup each), searched for cycles and
 * laid out (linear in nodes and edges, each node's parents sorted). */
WlGraph *wl_graph_load_request (const WlGraphLoad *req, GError **error);
/* wl_graph_load_full (path, FALSE, error). */
WlGraph *wl_graph_load (const char *path, GError **error);
WlGraph *wl_graph_ref (WlGraph *graph);
void wl_graph_unref (WlGraph *graph); /* accepts NULL */

/* A graph that differs from BASE only in the ranks and groups its nodes
 * name: the trace of a rank whose place in the run is BASE's moved by
 * DELTA ranks.  Every rank a send or receive names (comm_src, comm_dst) and
 * every root moves by DELTA; every collective's group id found in
 * GROUP_MAP (N_GROUPS pairs: the id in BASE, the id here) becomes its
 * pair's second, other ids stay.  What a generator uses to make the ranks
 * alike but for their names without writing and reading each rank's
 * trace.  The new graph is compact (see "Compact renamed graphs" below:
 * a rename table, or patches where the base names so many ranks and
 * groups that they take less; no node array until wl_graph_expand) with
 * its own PATH (copied), and shares the rest of BASE
 * (a reference).  NULL with ERROR set (WL_ERROR, SIM_ERROR_INPUT) when a
 * moved rank leaves 0 .. 2^32 - 2. */
/* The start of wl_graph_renamed's and wl_graph_patched_take's graphs: a new
 * graph (one reference) sharing all of BASE (a reference taken) but its
 * PATH (copied), with ROOTS_MOVED, and neither nodes nor patches yet: the
 * caller sets one.  For graph.c and graph_patch.c alone. */
WlGraph *wl_graph_derived (WlGraph *base, const char *path, gboolean roots_moved);

/* An array of N nodes for a renamed graph (uninitialised), or NULL when
 * the memory cannot be had; wl_graph_nodes_free (or the graph) frees it.
 * Large arrays are mapped with their pages made at once (MAP_POPULATE):
 * a trace set of thousands of renamed ranks otherwise takes a page fault
 * for every 4 KiB of their nodes, a large part of loading on a virtual
 * machine. */
WlNode *wl_graph_nodes_new (guint32 n);
void wl_graph_nodes_free (WlNode *nodes, guint32 n); /* accepts NULL */

/* Whether wl_graph_nodes_new maps large arrays (the default) or takes
 * every array from the heap: a process that makes and frees many trace
 * sets and keeps its heap (the planner) reuses its pages instead of
 * having new ones zeroed for each set.  Set before any array is made: an
 * array is freed as it was made only while this does not change. */
void wl_graph_set_nodes_mapped (gboolean on);

WlGraph *wl_graph_renamed (WlGraph *base, const char *path, gint64 delta,
                           const guint64 *group_map, guint n_groups, GError **error);

/* The graph of the trace file BYTES (LEN of them, named PATH) read against
 * PREV's file PREV_BYTES (PREV_LEN): a renamed graph (as wl_graph_renamed
 * makes; of PREV's base when PREV is renamed) when the two files frame
 * alike and every frame of PATH is PREV's byte for byte, or the same node
 * but for the ranks and group it names (a send's or receive's comm_src and
 * comm_dst, a collective's group and root; same id, dependencies, name and
 * every other field).  Then the graph is exactly what loading PATH
 * strictly gives (wl_graph_load_request: the same nodes, dependencies,
 * groups, kernel lists and facts), and loading it would have failed
 * nowhere: its ids, dependencies and frames are PREV's, and each node that
 * differs decodes without a fault.  Its working memory (load_peak) is
 * PREV's, as PATH's own load would count it.  NULL otherwise, which is no
 * verdict on PATH: load it.  Only for strict loads of plain .et bytes (not
 * gzip, not JSON); PREV is a graph loaded (or read so) from PREV_BYTES.
 * Linear in the bytes; decodes only the frames that differ, and of those
 * that differ from a frame PREV->frame_names notes only within its names,
 * only the names.  PREV's frame_names go to the new graph (updated) when
 * the two lengths are equal, else a copy of them: PREV's are then gone
 * (the next file of its length is read against the new graph). */
WlGraph *wl_graph_delta (WlGraph *prev, const guint8 *prev_bytes, gsize prev_len,
                         const char *path, const guint8 *bytes, gsize len);

/* Compact renamed graphs.  A trace set of thousands of ranks alike but
 * for the ranks and groups they name (a generated iteration's DP replicas,
 * TP peers, like stages) read against each other (wl_graph_delta) gives
 * graphs that hold, in place of their own node arrays, a map of their
 * base's names ("Rename tables" below) or, where their names follow no
 * one map, only the nodes whose names differ from their base's
 * (WlNodePatch, 24 bytes each):
 * their NODES is NULL until wl_graph_expand makes the array.  Under
 * symmetry classes only the classes' first ranks need their arrays, so the
 * others stay compact: memory scales with classes, not ranks.  What reads
 * a graph that may be compact reads it through wl_graph_node_at (or the
 * shape, wl_graph_shape_nodes); what needs NODES expands it first. */

/* The node V of G: &G->nodes[V] for a full graph; for a compact one, the
 * base's node or, where G names other ranks or groups, a copy of it with
 * G's names in *TMP.  HINT (a patch position, 0 at first, may be NULL)
 * makes a walk of rising V linear. */
const WlNode *wl_graph_node_at (const WlGraph *g, guint32 v, guint32 *hint, WlNode *tmp);
/* wl_graph_node_at (G, V, HINT, ...)->sys_group_index for a collective
 * node V, without copying the node (a compact graph's group index is its
 * patch's or its table's, else its base's); HINT as there. */
guint32 wl_graph_group_index_at (const WlGraph *g, guint32 v, guint32 *hint);
/* wl_graph_node_at (G, V, HINT, ...)->root, without copying the node (a
 * compact graph's root of a collective is its patch's or its table's,
 * else, and any other node's, its base's); HINT as there. */
guint32 wl_graph_root_at (const WlGraph *g, guint32 v, guint32 *hint);
/* The collectives of BASE (a base of tables) that read a distinct group
 * of a graph renamed by a table, whatever the table: the first of each
 * distinct (group slot, group index), by rising index (a new array of
 * guint32).  A walk of such a graph's collectives meets each group it
 * names first at one of these, in the same order. */
GArray *wl_graph_group_firsts (const WlGraph *base);
/* The nodes whose ops, sizes, times and dependencies G's are: G's, or its
 * base's when G is compact (they differ only in the names). */
const WlNode *wl_graph_shape_nodes (const WlGraph *g);
/* Give compact G its own node array (the base's with G's names); nothing
 * for a full graph.  FALSE with ERROR set (WL_ERROR, SIM_ERROR_INPUT)
 * when the memory cannot be had. */
gboolean wl_graph_expand (WlGraph *g, GError **error);
/* A compact renamed graph of BASE read from PATH whose patches are
 * PATCHES (N of them, by rising index; taken: freed with the graph). */
WlGraph *wl_graph_patched_take (WlGraph *base, const char *path, WlNodePatch *patches,
                                guint32 n);

/* Rename tables.  A compact graph whose names follow one map of its
 * base's (each rank the base names always becomes the same rank, each
 * group the same group, whichever node names it) holds that map
 * (WlRenameTable, a few bytes per distinct name) in place of patches:
 * wl_graph_renamed's always do (a rank delta and a group map are such a
 * map) and wl_graph_delta's do when the differing nodes agree on one
 * (else patches, exactly as before).  Reads are the same either way. */

/* BASE's names' slots (made on first call, held with BASE; safe from
 * several threads), or NULL when the memory cannot be had. */
const WlNameSlots *wl_graph_name_slots (WlGraph *base);
void wl_graph_name_slots_free (WlNameSlots *slots); /* accepts NULL */
/* The table of slots S that renames nothing (each name to itself). */
WlRenameTable *wl_rename_table_new (const WlNameSlots *s);
void wl_rename_table_free (WlRenameTable *t); /* accepts NULL */
/* Bytes a table of slots S holds. */
gsize wl_rename_table_bytes (const WlNameSlots *s);
/* The table of BASE (whose slots are made) that the N PATCHES (by rising
 * index) give, or NULL when they follow no one map: a name two patches
 * move to different names, one a patch moves while a node without a patch
 * keeps it, or a WL_RANK_SELF a patch names a rank (or the reverse). */
WlRenameTable *wl_rename_table_from_patches (const WlGraph *base, const WlNodePatch *patches,
                                             guint32 n);
/* As wl_rename_table_from_patches, but the nodes without a patch name
 * what table PREV (of BASE's slots; NULL: none, BASE's names) maps
 * BASE's to, and a patch holds all its node's names (those PREV gives it
 * or others). */
WlRenameTable *wl_rename_table_over (const WlGraph *base, const WlRenameTable *prev,
                                     const WlNodePatch *patches, guint32 n);
/* A compact renamed graph of BASE (whose slots are made) read from PATH
 * whose names are TABLE's (taken: freed with the graph). */
WlGraph *wl_graph_tabled_take (WlGraph *base, const char *path, WlRenameTable *table);
/* Base node N (at V) of tabled graph G with G's names into *OUT: TRUE, or
 * FALSE (OUT untouched) when they are N's.  For graph_patch.c. */
gboolean wl_rename_apply (const WlGraph *g, guint32 v, const WlNode *n, WlNode *out);
/* Point compact G's collectives at the system groups MAP (trace group id
 * -> index, as guint64* -> GUINT_TO_POINTER) gives their groups; the
 * nodes G shares with its base are the base's rank's to bind. */
void wl_graph_bind_groups (WlGraph *g, GHashTable *map);

/* Bytes the graph holds in memory (for the memory report and the memory
 * budget): 88 per node, 4 per dependency edge, plus name_bytes; a renamed
 * graph, 80 per node (its own nodes). */
gsize wl_graph_bytes (const WlGraph *graph);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGraph, wl_graph_unref)

/* Whether A and B have the same nodes as SAME compares them, the same
 * dependencies, the same kernel lists and the same exchange names (the
 * replay's symmetry shortcut and its classes of ranks). */
gboolean wl_graphs_alike (const WlGraph *a, const WlGraph *b,
                          gboolean (*same) (const WlNode *x, const WlNode *y));
/* wl_graphs_alike with SAME comparing their shape nodes
 * (wl_graph_shape_nodes), and the nodes' roots (wl_graph_root_at) compared
 * here: for a SAME that reads no name a rename changes (groups of
 * collectives, their group indices and roots, peers) but the root, which
 * it leaves out.  No node of a compact graph is copied. */
gboolean wl_graphs_alike_shape (const WlGraph *a, const WlGraph *b,
                                gboolean (*same) (const WlNode *x, const WlNode *y));

#endif /* ORRERY_WORKLOAD_GRAPH_H */
