/* graph.c: reading a trace file into a checked, compact dependency graph. */
#include "workload/graph.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "workload/chakra_raw.h"
#include "workload/idmap.h"
#include "workload/kernels.h"
#include "workload/wl_alloc.h"
#include "workload/wl_error.h"

G_STATIC_ASSERT (sizeof (gpointer) == sizeof (guint64));

typedef struct
{
  guint32 child;
  guint64 parent_id;
} PendingDep;

/* Node names lately interned, in a slot by a few of their bytes: most
 * names of a trace repeat ("attn_fwd", "tp_all_gather"), and comparing
 * one costs less than hashing it into the chunk again. */
#define RECENT_NAMES 256

typedef struct
{
  const char *s; /* in names_chunk; NULL: an empty slot */
  gsize len;
} RecentName;

typedef struct
{
  WlNodeDecoder dec;   /* path, lenient, what was dropped, group definitions */
  WlVec nodes;         /* WlNode */
  WlVec deps;          /* PendingDep, in child order */
  WlVec names;         /* const char*, in node order, from names_chunk */
  WlVec frame_names;   /* WlRawNames, in node order (WlGraph.frame_names); let go
                        * (empty, FRAME_NAMES_LOST) when it cannot grow */
  gboolean frame_names_lost;
  WlIdMap *index;      /* id -> index */
  GStringChunk *names_chunk;
  guint64 name_bytes;  /* each node's name and its NUL, summed */
  guint64 limit;       /* stop once the load's working memory would pass it */
  guint64 peak;        /* the working memory last compared with the limit */
  gboolean over;       /* stopped at the limit */
  RecentName recent[RECENT_NAMES];
} Builder;

/* RAW's name as interned in B's chunk (the string
 * g_string_chunk_insert_const gives: one copy of each). */
static const char *
raw_name (Builder *b, WlRawNode *raw)
{
  const guint8 *p = raw->name;
  gsize len = raw->name_len;
  guint h = len == 0 ? 0
                     : (guint) (len * 31u + (gsize) p[0] * 7u + (gsize) p[len / 2] * 131u
                                + p[len - 1])
                         % RECENT_NAMES;
  RecentName *r = &b->recent[h];
  if (r->s != NULL && r->len == len && (len == 0 || memcmp (r->s, p, len) == 0))
    return r->s;
  const char *name = g_string_chunk_insert_const (b->names_chunk,
                                                  wl_raw_node_text (raw, p, len));
  *r = (RecentName) { name, len };
  return name;
}

/* Where node NAMES's frame names sit (a node read in place) or that it was
 * not (NULL), noted for the file read against this one next: a hint, so
 * memory running out drops them all, not the load. */
static void
note_frame_names (Builder *b, const WlRawNames *names)
{
  if (b->frame_names_lost || b->dec.lenient)
    return;
  WlRawNames *slot = wl_vec_push (&b->frame_names, NULL, NULL);
  if (slot == NULL)
    {
      b->frame_names_lost = TRUE;
      wl_vec_clear (&b->frame_names);
      return;
    }
  if (names != NULL)
    *slot = *names;
  else
    memset (slot, 0, sizeof *slot);
}

/* A dependency resolved to no node: dangling, or dropped to break a cycle. */
#define NO_PARENT WL_CYCLE_NO_NODE

/* The bytes a load holds while it builds a graph, by what it has read so
 * far (see wl_graph_load_limited). */
static guint64
working_bytes (const Builder *b)
{
  return (guint64) b->nodes.len * WL_LOAD_NODE_BYTES + (guint64) b->deps.len * WL_LOAD_DEP_BYTES
         + b->name_bytes;
}

static gboolean
add_deps (Builder *b, guint32 child, const guint64 *ids, gsize n, GError **error)
{
  if (!wl_vec_reserve (&b->deps, n, "the trace's dependencies", error))
    return FALSE;
  for (gsize i = 0; i < n; i++)
    {
      PendingDep *d = wl_vec_push (&b->deps, NULL, NULL);
      *d = (PendingDep) { child, ids[i] };
    }
  return TRUE;
}

/* Add N to the graph being built; FALSE with ERROR set when it is bad, and
 * FALSE with ERROR unset (b->over set) when the load's working memory
 * passes b->limit. */
static gboolean
add_node (gpointer data, ChakraProtoMsg__Node *n, GError **error)
{
  Builder *b = data;
  guint32 index = (guint32) b->nodes.len;
  gboolean repeat = wl_id_map_lookup (b->index, n->id, NULL);
  if (repeat && b->dec.lenient)
    {
      b->dec.dropped.duplicate_nodes_dropped++;
      return TRUE;
    }
  if (repeat || index == G_MAXUINT32 - 1)
    return wl_trace_id_error (b->dec.path, n->id, repeat ? 0 : index, error);
  WlNode w;
  if (!wl_node_decode (&b->dec, n, &w, error))
    return FALSE;
  const char *name = g_string_chunk_insert_const (b->names_chunk, n->name ? n->name : "");
  WlNode *slot = wl_vec_push (&b->nodes, "the trace's nodes", error);
  const char **name_slot = slot != NULL ? wl_vec_push (&b->names, "the node names", error) : NULL;
  if (name_slot == NULL || !wl_id_map_insert (b->index, n->id, index, error))
    {
      g_prefix_error (error, "%s: ", b->dec.path);
      return FALSE;
    }
  *slot = w;
  *name_slot = name;
  note_frame_names (b, NULL);
  b->name_bytes += strlen (name) + 1;
  if (!add_deps (b, index, n->data_deps, n->n_data_deps, error)
      || !add_deps (b, index, n->ctrl_deps, n->n_ctrl_deps, error))
    {
      g_prefix_error (error, "%s: ", b->dec.path);
      return FALSE;
    }
  b->peak = working_bytes (b);
  b->over = b->peak > b->limit;
  return !b->over;
}

/* add_node for a frame read in place (wl_trace_read_raw): the same node,
 * name and dependencies, or WL_TAKE_DECLINED, with B untouched, where
 * add_node might say otherwise (a repeated id, the last index, a node
 * wl_node_decode_raw leaves to wl_node_decode). */
static WlTake
add_raw (gpointer data, WlRawNode *raw, GError **error)
{
  Builder *b = data;
  guint32 index = (guint32) b->nodes.len;
  WlNode w;
  if (wl_id_map_lookup (b->index, raw->id, NULL) || index == G_MAXUINT32 - 1
      || !wl_node_decode_raw (&b->dec, raw, &w))
    return WL_TAKE_DECLINED;
  const char *name = raw_name (b, raw);
  WlNode *slot = wl_vec_push (&b->nodes, "the trace's nodes", error);
  const char **name_slot = slot != NULL ? wl_vec_push (&b->names, "the node names", error) : NULL;
  if (name_slot == NULL || !wl_id_map_insert (b->index, raw->id, index, error)
      || !add_deps (b, index, raw->data_deps.v, raw->data_deps.n, error)
      || !add_deps (b, index, raw->ctrl_deps.v, raw->ctrl_deps.n, error))
    {
      g_prefix_error (error, "%s: ", b->dec.path);
      return WL_TAKE_FAILED;
    }
  *slot = w;
  *name_slot = name;
  WlRawNames at;
  gboolean comm = w.op == WL_OP_SEND || w.op == WL_OP_RECV || w.op == WL_OP_COLL;
  note_frame_names (b, comm && wl_raw_names_of (raw, &at) ? &at : NULL);
  b->name_bytes += raw->name_len + 1;
  b->peak = working_bytes (b);
  b->over = b->peak > b->limit;
  return b->over ? WL_TAKE_FAILED : WL_TAKE_DONE;
}

static int
cmp_u32 (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

/* Resolve every dependency to its parent's index; a dangling one is an
 * error, or (lenient) NO_PARENT.  START receives, per node, where its
 * dependencies begin in b->deps (and the total last). */
static gboolean
resolve_deps (Builder *b, const WlGraph *g, guint32 *start, guint32 *parent, GError **error)
{
  const PendingDep *deps = (const PendingDep *) b->deps.data;
  guint32 k = 0, n_nodes = g->n_nodes;
  for (guint32 v = 0; v <= n_nodes; v++)
    {
      start[v] = k;
      for (; v < n_nodes && k < b->deps.len && deps[k].child == v; k++)
        {
          if (wl_id_map_lookup (b->index, deps[k].parent_id, &parent[k]))
            continue;
          parent[k] = NO_PARENT;
          if (!b->dec.lenient)
            {
              wl_dangling_error (b->dec.path, g->nodes[v].id, deps[k].parent_id, NULL, error);
              return FALSE;
            }
          b->dec.dropped.dangling_deps_dropped++;
        }
    }
  return TRUE;
}

typedef struct
{
  Builder *b;
  const WlGraph *g;
  guint32 *parent;
  GError **error;
} CycleBreak;

/* A back edge: strict, the error naming the cycle PATH[0 .. LEN-1]; lenient,
 * the edge is dropped. */
static gboolean
break_cycle (gpointer data, guint32 slot, const guint32 *path, guint32 len)
{
  CycleBreak *cb = data;
  if (cb->b->dec.lenient)
    {
      cb->parent[slot] = NO_PARENT;
      cb->b->dec.dropped.cycle_edges_dropped++;
      return TRUE;
    }
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint32 i = 0; i < len; i++)
    g_array_append_val (ids, cb->g->nodes[path[i]].id);
  return wl_cycle_error (cb->b->dec.path, (const guint64 *) ids->data, len, NULL, cb->error);
}

/* Depth-first search along dependencies (wl_cycle_search, the inspector's
 * search).  A back edge closes a cycle: an error, or (lenient) the edge is
 * dropped. */
static gboolean
break_cycles (Builder *b, const WlGraph *g, const guint32 *start, guint32 *parent,
              GError **error)
{
  CycleBreak cb = { .b = b, .g = g, .parent = parent, .error = error };
  if (wl_cycle_search (g->n_nodes, start, parent, break_cycle, &cb, error))
    return TRUE;
  if (error != NULL && *error != NULL && !g_str_has_prefix ((*error)->message, b->dec.path))
    g_prefix_error (error, "%s: ", b->dec.path);
  return FALSE;
}

/* Lay the dependents out parent by parent from the resolved dependencies
 * (NO_PARENT ones left out); an id in both data_deps and ctrl_deps is one
 * edge. */
static gboolean
link_edges (WlGraph *g, const guint32 *start, const guint32 *parent, GError **error)
{
  guint32 n_deps = start[g->n_nodes];
  g_autofree guint32 *edges = sim_try_alloc ((guint64) n_deps * 2, sizeof (guint32), FALSE,
                                             "the dependency edges", error);
  if (edges == NULL)
    return FALSE;
  guint32 n_edges = 0;
  /* One node's parents at a time, in a buffer for the widest (no call per
   * dependency). */
  guint32 widest = 1;
  for (guint32 v = 0; v < g->n_nodes; v++)
    widest = MAX (widest, start[v + 1] - start[v]);
  g_autofree guint32 *parents = sim_try_alloc (widest, sizeof (guint32), FALSE,
                                               "the dependency edges", error);
  if (parents == NULL)
    return FALSE;
  for (guint32 child = 0; child < g->n_nodes; child++)
    {
      guint32 n_parents = 0;
      for (guint32 k = start[child]; k < start[child + 1]; k++)
        if (parent[k] != NO_PARENT)
          parents[n_parents++] = parent[k];
      if (n_parents > 1)
        qsort (parents, n_parents, sizeof (guint32), cmp_u32);
      for (guint32 j = 0; j < n_parents; j++)
        {
          guint32 p = parents[j];
          if (j > 0 && p == parents[j - 1])
            continue;
          edges[(gsize) 2 * n_edges] = p;
          edges[(gsize) 2 * n_edges + 1] = child;
          n_edges++;
          g->nodes[child].n_parents++;
          g->nodes[p].n_children++;
        }
    }
  guint32 offset = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    {
      g->nodes[v].child_start = offset;
      offset += g->nodes[v].n_children;
      g->nodes[v].n_children = 0; /* refilled below */
      g->n_roots += g->nodes[v].n_parents == 0;
    }
  g->children = sim_try_alloc (offset, sizeof (guint32), FALSE, "the dependents", error);
  if (g->children == NULL)
    return FALSE;
  /* Edges are in child order, so each parent's dependents come out in file
   * order: the order in which replay releases them. */
  for (guint32 i = 0; i < n_edges; i++)
    {
      WlNode *p = &g->nodes[edges[(gsize) 2 * i]];
      g->children[p->child_start + p->n_children++] = edges[(gsize) 2 * i + 1];
    }
  return TRUE;
}

/* Resolve, check and link what read_nodes gathered into G (whose nodes
 * are b's). */
static gboolean
finish_graph (Builder *b, WlGraph *g, GError **error)
{
  guint32 n = g->n_nodes;
  g_autofree guint32 *start = sim_try_alloc ((guint64) n + 1, sizeof (guint32), FALSE,
                                             "the dependency lists", error);
  g_autofree guint32 *parent = start ? sim_try_alloc (b->deps.len, sizeof (guint32), FALSE,
                                                      "the dependency lists", error)
                                     : NULL;
  if (parent == NULL)
    {
      g_prefix_error (error, "%s: ", b->dec.path);
      return FALSE;
    }
  if (!resolve_deps (b, g, start, parent, error) || !break_cycles (b, g, start, parent, error))
    return FALSE;
  if (!link_edges (g, start, parent, error))
    {
      g_prefix_error (error, "%s: ", b->dec.path);
      return FALSE;
    }
  return TRUE;
}

/* Room in B for the nodes of REQ's bytes, counted by their frames, made
 * once: doubling from 16 copied each base's node array (80 bytes a node)
 * eight times, 0.2 M instructions a base on issue 17's Llama-2 row.  Only
 * where the count fits the load's limit (a load that the limit stops
 * must not hold more first), and never an error: the arrays grow as
 * before when this does not help. */
static void
reserve_frames (Builder *b, const WlGraphLoad *req)
{
  if (req->bytes == NULL || req->n_bytes < 2 || (req->bytes[0] == 0x1f && req->bytes[1] == 0x8b))
    return;
  guint32 n = wl_chakra_count_frames (req->bytes, req->n_bytes);
  if (n < 2 || (guint64) n * WL_LOAD_NODE_BYTES > req->limit)
    return;
  n--; /* the GlobalMetadata */
  if (wl_vec_reserve (&b->nodes, n, NULL, NULL))
    (void) wl_vec_reserve (&b->names, n, NULL, NULL);
  if (!b->dec.lenient)
    (void) wl_vec_reserve (&b->frame_names, n, NULL, NULL);
}

WlGraph *
wl_graph_load_request (const WlGraphLoad *req, GError **error)
{
  g_return_val_if_fail (req != NULL && req->path != NULL, NULL);
  const char *path = req->path;
  gboolean lenient = req->lenient;
  gboolean *over = req->over;
  Builder b = { .dec = { .path = path, .lenient = lenient, .group_memo = req->group_memo,
                         .bytes = req->bytes, .n_bytes = req->n_bytes },
                .limit = req->limit };
  b.nodes = (WlVec) WL_VEC_INIT (WlNode);
  b.deps = (WlVec) WL_VEC_INIT (PendingDep);
  b.names = (WlVec) WL_VEC_INIT (const char *);
  b.frame_names = (WlVec) WL_VEC_INIT (WlRawNames);
  b.index = wl_id_map_new ("the node index");
  b.dec.group_defs = wl_group_defs_new ();
  b.dec.kernels = wl_kernel_lists_new ();
  b.dec.exchanges = g_ptr_array_new_with_free_func (g_free);
  b.names_chunk = g_string_chunk_new (4096);
  if (over != NULL)
    *over = FALSE;

  reserve_frames (&b, req);
  WlTraceFuncs funcs = { .node = add_node, .raw = add_raw };
  gboolean ok = wl_trace_read_raw (&b.dec, &funcs, &b, error);
  WlGraph *g = g_new0 (WlGraph, 1);
  g->ref = 1;
  g->path = g_strdup (path);
  g->n_nodes = (guint32) b.nodes.len;
  /* A full graph always has its array, even a trace of no nodes (its
   * metadata alone): a NULL array is what marks a compact graph. */
  g->nodes = b.nodes.len > 0 ? wl_vec_steal (&b.nodes) : g_new0 (WlNode, 1);
  wl_vec_clear (&b.nodes); /* room reserve_frames made for nodes that never came */
  g->names = wl_vec_steal (&b.names);
  g->group_defs = b.dec.group_defs;
  g->kernels = b.dec.kernels;
  g->exchanges = b.dec.exchanges;
  g->names_chunk = b.names_chunk;
  g->name_bytes = b.name_bytes;
  g->n_skipped_unknown = b.dec.unknown;
  g->n_streams = MAX (b.dec.streams.n, 1u);
  g->facts = b.dec.facts;
  g->lenient = lenient;
  if (b.frame_names.len == g->n_nodes && g->n_nodes > 0)
    g->frame_names = wl_vec_steal (&b.frame_names);
  wl_vec_clear (&b.frame_names);
  if (ok)
    ok = finish_graph (&b, g, error);
  g->dropped = b.dec.dropped;
  g->load_peak = b.peak;
  if (req->peak != NULL)
    *req->peak = b.peak;
  wl_vec_clear (&b.deps);
  wl_id_map_free (b.index);
  if (!ok)
    {
      if (over != NULL)
        *over = b.over;
      wl_graph_unref (g);
      return NULL;
    }
  return g;
}

WlGraph *
wl_graph_load_limited (const char *path, gboolean lenient, guint64 limit,
                       gboolean *over, /* NOLINT(readability-non-const-parameter): the load
                                        * writes it, through the request */
                       GError **error)
{
  WlGraphLoad req = { .path = path, .lenient = lenient, .limit = limit, .over = over };
  return wl_graph_load_request (&req, error);
}

WlGraph *
wl_graph_load_full (const char *path, gboolean lenient, GError **error)
{
  return wl_graph_load_limited (path, lenient, G_MAXUINT64, NULL, error);
}

WlGraph *
wl_graph_load (const char *path, GError **error)
{
  return wl_graph_load_full (path, FALSE, error);
}

WlGraph *
wl_graph_ref (WlGraph *g)
{
  g_atomic_int_inc (&g->ref);
  return g;
}

/* Node arrays from this many bytes on are mapped (wl_graph_nodes_new),
 * unless nodes_on_heap (wl_graph_set_nodes_mapped). */
#define NODES_MAP_BYTES ((gsize) 256 * 1024)

static gboolean nodes_on_heap;

void
wl_graph_set_nodes_mapped (gboolean on)
{
  nodes_on_heap = !on;
}

WlNode *
wl_graph_nodes_new (guint32 n)
{
  gsize bytes = (gsize) MAX (n, 1u) * sizeof (WlNode);
#ifdef MAP_POPULATE
  if (bytes >= NODES_MAP_BYTES && !nodes_on_heap)
    {
      void *p = mmap (NULL, bytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
      return p != MAP_FAILED ? p : NULL;
    }
#endif
  return g_try_malloc (bytes);
}

void
wl_graph_nodes_free (WlNode *nodes, guint32 n)
{
  if (nodes == NULL)
    return;
#ifdef MAP_POPULATE
  gsize bytes = (gsize) MAX (n, 1u) * sizeof (WlNode);
  if (bytes >= NODES_MAP_BYTES && !nodes_on_heap)
    {
      munmap (nodes, bytes);
      return;
    }
#else
  (void) n;
#endif
  g_free (nodes);
}

void
wl_graph_unref (WlGraph *g)
{
  /* A renamed graph holds a reference to its base, which has none: a
   * loop, not recursion. */
  while (g != NULL && g_atomic_int_dec_and_test (&g->ref))
    {
      WlGraph *base = g->base;
      g_free (g->path);
      g_free (g->frame_names);
      if (base != NULL)
        {
          wl_graph_nodes_free (g->nodes, g->n_nodes);
          g_free (g->patches);
          wl_rename_table_free (g->table);
        }
      else
        {
          g_free (g->nodes);
          g_free (g->children);
          g_array_unref (g->group_defs);
          wl_kernel_lists_free (g->kernels);
          if (g->exchanges != NULL)
            g_ptr_array_unref (g->exchanges);
          g_free (g->names);
          g_string_chunk_free (g->names_chunk);
          wl_graph_name_slots_free (g->slots);
        }
      g_free (g);
      g = base;
    }
}

/* RANK moved by DELTA into *OUT (WL_RANK_SELF stays). */
static gboolean
move_rank (guint32 rank, gint64 delta, guint32 *out)
{
  if (rank == WL_RANK_SELF)
    return (*out = rank, TRUE);
  gint64 to = (gint64) rank + delta;
  if (to < 0 || to >= (gint64) WL_RANK_SELF)
    return FALSE;
  *out = (guint32) to;
  return TRUE;
}

/* Whether N names ranks or groups that a rename moves. */
static inline gboolean
names_ranks (const WlNode *n)
{
  return n->op == WL_OP_SEND || n->op == WL_OP_RECV || n->op == WL_OP_COLL;
}

/* The patch of node N of BASE (at V) renamed by DELTA and GROUP_MAP into
 * *P: FALSE when a moved rank leaves the ranks.  *CHANGED: whether the
 * names differ from N's. */
static gboolean
rename_patch (const WlNode *n, guint32 v, gint64 delta, const guint64 *group_map,
              guint n_groups, WlNodePatch *p, gboolean *changed)
{
  *p = (WlNodePatch) { .index = v };
  if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    {
      if (!move_rank (n->peer_src, delta, &p->a) || !move_rank (n->peer_dst, delta, &p->b))
        return FALSE;
      *changed = p->a != n->peer_src || p->b != n->peer_dst;
      return TRUE;
    }
  if (!move_rank (n->root, delta, &p->a))
    return FALSE;
  p->group = n->group;
  p->b = n->sys_group_index;
  for (guint i = 0; i < n_groups; i++)
    if (n->group == group_map[(gsize) 2 * i])
      {
        p->group = group_map[(gsize) 2 * i + 1];
        break;
      }
  *changed = p->a != n->root || p->group != n->group;
  return TRUE;
}

/* wl_graph_renamed with patches: only the nodes whose names move are
 * held; the rest are the base's.  Also what names the node whose rank
 * leaves the ranks. */
static WlGraph *
renamed_patches (WlGraph *base, const char *path, gint64 delta, const guint64 *group_map,
                 guint n_groups, GError **error)
{
  /* At most one patch per node that names ranks or groups: counted first,
   * so the array is made once. */
  guint32 named = 0, n_patches = 0;
  for (guint32 v = 0; v < base->n_nodes; v++)
    named += names_ranks (&base->nodes[v]);
  g_autofree WlNodePatch *patches = g_new (WlNodePatch, MAX (named, 1u));
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      const WlNode *n = &base->nodes[v];
      if (!names_ranks (n))
        continue;
      gboolean changed = FALSE;
      if (!rename_patch (n, v, delta, group_map, n_groups, &patches[n_patches], &changed))
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "%s: node %" G_GUINT64_FORMAT ": a rank moved by %" G_GINT64_FORMAT
                       " leaves the ranks",
                       path, n->id, delta);
          return NULL;
        }
      n_patches += changed;
    }
  return wl_graph_patched_take (base, path, g_steal_pointer (&patches), n_patches);
}

/* BASE renamed by DELTA and GROUP_MAP as a table, or NULL when a moved
 * rank leaves the ranks. */
static WlRenameTable *
renamed_table (const WlNameSlots *s, gint64 delta, const guint64 *group_map, guint n_groups)
{
  WlRenameTable *t = wl_rename_table_new (s);
  for (guint32 k = 0; k < s->n_ranks; k++)
    if (!move_rank (s->ranks[k], delta, &t->rank_to[k]))
      {
        wl_rename_table_free (t);
        return NULL;
      }
  for (guint32 k = 0; k < s->n_groups; k++)
    for (guint i = 0; i < n_groups; i++)
      if (s->groups[k] == group_map[(gsize) 2 * i])
        {
          t->group_to[k] = group_map[(gsize) 2 * i + 1];
          break;
        }
  return t;
}

/* A compact graph (graph.h): a rank delta and a group map are one map of
 * the base's names, so the graph holds a rename table, unless the base
 * names so many ranks and groups that patches take less.  A run gives its
 * node array only to the ranks it simulates (wl_graph_expand), so the
 * ranks symmetry classes stand for never copy the base's nodes. */
WlGraph *
wl_graph_renamed (WlGraph *base, const char *path, gint64 delta, const guint64 *group_map,
                  guint n_groups, GError **error)
{
  g_return_val_if_fail (base != NULL && base->base == NULL && path != NULL, NULL);
  const WlNameSlots *s = wl_graph_name_slots (base);
  if (s != NULL && wl_rename_table_bytes (s) <= (gsize) s->named * sizeof (WlNodePatch))
    {
      WlRenameTable *t = renamed_table (s, delta, group_map, n_groups);
      if (t != NULL)
        return wl_graph_tabled_take (base, path, t);
    }
  /* Patches, or the error naming the first node whose rank leaves. */
  return renamed_patches (base, path, delta, group_map, n_groups, error);
}

WlGraph *
wl_graph_derived (WlGraph *base, const char *path, gboolean roots_moved)
{
  WlGraph *g = g_new (WlGraph, 1);
  *g = *base;
  g->ref = 1;
  g->path = g_strdup (path);
  g->nodes = NULL;
  g->base = wl_graph_ref (base);
  g->roots_moved = roots_moved;
  g->patches = NULL;
  g->n_patches = 0;
  g->table = NULL;
  g->slots = NULL;
  g->frame_names = NULL;
  return g;
}

gsize
wl_graph_bytes (const WlGraph *g)
{
  if (g->base != NULL)
    return sizeof *g + g->n_nodes * sizeof (WlNode);
  guint64 edges = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    edges += g->nodes[v].n_children;
  return sizeof *g + g->n_nodes * (sizeof (WlNode) + sizeof (char *)) + edges * sizeof (guint32)
         + g->name_bytes;
}

/* Nodes name exchanges by number: the same numbers must be the same names
 * (NULL is the empty table). */
static gboolean
exchanges_equal (const GPtrArray *a, const GPtrArray *b)
{
  guint n = a != NULL ? a->len : 0;
  if (n != (b != NULL ? b->len : 0))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (strcmp (a->pdata[i], b->pdata[i]) != 0)
      return FALSE;
  return TRUE;
}

/* What graphs_alike reads of A and B: with SHAPE, their shape nodes SA and
 * SB and their roots; else their own nodes (TA, TB for the copies). */
typedef struct
{
  const WlGraph *a, *b;
  const WlNode *sa, *sb;
  guint32 ha, hb;
  WlNode ta, tb;
} AlikeWalk;

/* Node V of W's graphs the same as SAME compares them; *EDGES counts its
 * children. */
static inline gboolean
node_alike (AlikeWalk *w, guint32 v, gboolean (*same) (const WlNode *x, const WlNode *y),
            guint64 *edges)
{
  const WlNode *x, *y;
  if (w->sa != NULL)
    {
      x = &w->sa[v];
      y = &w->sb[v];
      /* A collective's root may be renamed; any other node's is its
       * shape's (wl_graph_root_at). */
      if (x->op == WL_OP_COLL
            ? wl_graph_root_at (w->a, v, &w->ha) != wl_graph_root_at (w->b, v, &w->hb)
            : x->root != y->root)
        return FALSE;
    }
  else
    {
      x = wl_graph_node_at (w->a, v, &w->ha, &w->ta);
      y = wl_graph_node_at (w->b, v, &w->hb, &w->tb);
    }
  *edges += x->n_children;
  return same (x, y);
}

static gboolean
graphs_alike (const WlGraph *a, const WlGraph *b, gboolean shape,
              gboolean (*same) (const WlNode *x, const WlNode *y))
{
  if (a == b)
    return TRUE;
  if (a->n_nodes != b->n_nodes)
    return FALSE;
  guint64 edges = 0;
  AlikeWalk w = { .a = a, .b = b };
  if (shape)
    {
      w.sa = wl_graph_shape_nodes (a);
      w.sb = wl_graph_shape_nodes (b);
    }
  for (guint32 v = 0; v < a->n_nodes; v++)
    if (!node_alike (&w, v, same, &edges))
      return FALSE;
  /* Nodes name kernel lists by number: the same numbers must be the same
   * lists. */
  return memcmp (a->children, b->children, edges * sizeof (guint32)) == 0
         && wl_kernel_lists_equal (a->kernels, b->kernels)
         && exchanges_equal (a->exchanges, b->exchanges);
}

gboolean
wl_graphs_alike (const WlGraph *a, const WlGraph *b,
                 gboolean (*same) (const WlNode *x, const WlNode *y))
{
  return graphs_alike (a, b, FALSE, same);
}

gboolean
wl_graphs_alike_shape (const WlGraph *a, const WlGraph *b,
                       gboolean (*same) (const WlNode *x, const WlNode *y))
{
  return graphs_alike (a, b, TRUE, same);
}
