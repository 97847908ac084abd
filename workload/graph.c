/* graph.c: reading a trace file into a checked, compact dependency graph. */
#include "workload/graph.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

#include "system/sys_params.h"
#include "workload/chakra.h"
#include "workload/idmap.h"
#include "workload/wl_alloc.h"
#include "workload/wl_error.h"

G_STATIC_ASSERT (sizeof (gpointer) == sizeof (guint64));

/* Chakra NodeType and CollectiveCommType values (../shared/chakra/FORMAT.md). */
enum
{
  CK_INVALID = 0, CK_METADATA = 1, CK_MEM_LOAD = 2, CK_MEM_STORE = 3, CK_COMP = 4,
  CK_SEND = 5, CK_RECV = 6, CK_COLL = 7
};
enum
{
  CK_ALL_REDUCE = 0, CK_REDUCE = 1, CK_ALL_GATHER = 2, CK_GATHER = 3, CK_SCATTER = 4,
  CK_BROADCAST = 5, CK_ALL_TO_ALL = 6, CK_REDUCE_SCATTER = 7, CK_REDUCE_SCATTER_BLOCK = 8,
  CK_BARRIER = 9
};

/* Chakra's collective types as orrery's kinds; -1 for unknown values. */
static int
kind_of (gint64 type)
{
  switch (type)
    {
    case CK_ALL_REDUCE:
      return SYS_COLL_ALL_REDUCE;
    case CK_REDUCE:
      return SYS_COLL_REDUCE;
    case CK_ALL_GATHER:
      return SYS_COLL_ALL_GATHER;
    case CK_GATHER:
      return SYS_COLL_GATHER;
    case CK_SCATTER:
      return SYS_COLL_SCATTER;
    case CK_BROADCAST:
      return SYS_COLL_BROADCAST;
    case CK_ALL_TO_ALL:
      return SYS_COLL_ALL_TO_ALL;
    case CK_REDUCE_SCATTER:
    case CK_REDUCE_SCATTER_BLOCK: /* equal blocks: what orrery's reduce-scatter does */
      return SYS_COLL_REDUCE_SCATTER;
    case CK_BARRIER:
      return SYS_COLL_BARRIER;
    default:
      return -1;
    }
}

typedef struct
{
  guint32 child;
  guint64 parent_id;
} PendingDep;

typedef struct
{
  WlNodeDecoder dec;   /* path, lenient, what was dropped, group definitions */
  WlVec nodes;         /* WlNode */
  WlVec deps;          /* PendingDep, in child order */
  WlVec names;         /* const char*, in node order, from names_chunk */
  WlIdMap *index;      /* id -> index */
  GStringChunk *names_chunk;
  guint64 name_bytes;  /* each node's name and its NUL, summed */
  guint64 limit;       /* stop once the load's working memory would pass it */
  gboolean over;       /* stopped at the limit */
} Builder;

/* A dependency resolved to no node: dangling, or dropped to break a cycle. */
#define NO_PARENT WL_CYCLE_NO_NODE

static gboolean
fail (GError **error, const WlNodeDecoder *d, guint64 id, const char *what)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT ": %s", d->path,
               id, what);
  return FALSE;
}

/* An attribute that must fit a 32-bit signed field. */
static gboolean
attr_i32 (const ChakraProtoMsg__Node *n, const char *name, gint32 *out, GError **error)
{
  gint64 v;
  if (!wl_chakra_attr_int (n, name, &v, error))
    return FALSE;
  if (v < G_MININT32 || v > G_MAXINT32)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "node %" G_GUINT64_FORMAT ": %s = %" G_GINT64_FORMAT " is out of range",
                   n->id, name, v);
      return FALSE;
    }
  *out = (gint32) v;
  return TRUE;
}

/* comm_src / comm_dst: a rank, or own rank when absent. */
static gboolean
attr_rank (const ChakraProtoMsg__Node *n, const char *name, guint32 *out, GError **error)
{
  gint64 v;
  *out = WL_RANK_SELF;
  if (!wl_chakra_attr_int (n, name, &v, error))
    return error == NULL || *error == NULL;
  if (v < 0 || v >= G_MAXINT32)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "node %" G_GUINT64_FORMAT ": %s = %" G_GINT64_FORMAT " is not a rank", n->id,
                   name, v);
      return FALSE;
    }
  *out = (guint32) v;
  return TRUE;
}

static gboolean
absent_ok (GError **error)
{
  return error == NULL || *error == NULL;
}

/* [{"pg_name": "1", "ranks": [0, 1]}, ...] in inputs.values. */
static gboolean
decode_metadata (WlNodeDecoder *b, const ChakraProtoMsg__Node *n, GError **error)
{
  if (b->group_defs == NULL)
    return TRUE; /* not collected (read before) */
  if (n->inputs == NULL || n->inputs->values == NULL || strstr (n->inputs->values, "pg_name") == NULL)
    return TRUE;
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) jerr = NULL;
  if (!json_parser_load_from_data (parser, n->inputs->values, -1, &jerr))
    return fail (error, b, n->id, "METADATA node's process-group JSON does not parse");
  JsonNode *root = json_parser_get_root (parser);
  if (!JSON_NODE_HOLDS_ARRAY (root))
    return fail (error, b, n->id, "METADATA process groups must be a JSON list");
  JsonArray *list = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *item = json_array_get_element (list, i);
      JsonObject *o = JSON_NODE_HOLDS_OBJECT (item) ? json_node_get_object (item) : NULL;
      JsonNode *name = o ? json_object_get_member (o, "pg_name") : NULL;
      JsonNode *ranks = o ? json_object_get_member (o, "ranks") : NULL;
      guint64 id;
      if (name == NULL || json_node_get_value_type (name) != G_TYPE_STRING
          || !wl_group_id_parse (json_node_get_string (name), &id) || id == WL_GROUP_ALL
          || ranks == NULL || !JSON_NODE_HOLDS_ARRAY (ranks))
        return fail (error, b, n->id,
                     "METADATA process group needs a numeric \"pg_name\" and a \"ranks\" list");
      WlGroupDef def = { .id = id, .ranks = g_array_new (FALSE, FALSE, sizeof (guint32)) };
      g_array_append_val (b->group_defs, def);
      JsonArray *ra = json_node_get_array (ranks);
      for (guint j = 0; j < json_array_get_length (ra); j++)
        {
          JsonNode *r = json_array_get_element (ra, j);
          gint64 v = JSON_NODE_HOLDS_VALUE (r) ? json_node_get_int (r) : -1;
          if (!JSON_NODE_HOLDS_VALUE (r) || json_node_get_value_type (r) != G_TYPE_INT64 || v < 0
              || v >= G_MAXINT32)
            return fail (error, b, n->id, "METADATA process group ranks must be ranks");
          guint32 rank = (guint32) v;
          g_array_append_val (def.ranks, rank);
        }
    }
  return TRUE;
}

static gboolean
decode_collective (WlNodeDecoder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
{
  gint64 type;
  if (!wl_chakra_attr_int (n, "comm_type", &type, error))
    {
      if (!absent_ok (error))
        return FALSE;
      if (!b->lenient)
        return fail (error, b, n->id, "COMM_COLL node without comm_type");
      b->dropped.colls_skipped++;
      w->op = WL_OP_SKIP;
      return TRUE;
    }
  int kind = kind_of (type);
  if (kind < 0)
    {
      g_autofree char *msg = g_strdup_printf (
          "comm_type %" G_GINT64_FORMAT " is not a collective type (0 to 9)", type);
      return fail (error, b, n->id, msg);
    }
  w->coll_kind = (guint8) kind;
  w->op = WL_OP_COLL;
  if (!wl_chakra_attr_uint (n, "comm_size", &w->bytes, error))
    {
      if (!absent_ok (error))
        return FALSE;
      if (kind != SYS_COLL_BARRIER && !b->lenient)
        return fail (error, b, n->id, "COMM_COLL node without comm_size");
      if (kind != SYS_COLL_BARRIER)
        {
          b->dropped.colls_skipped++;
          w->op = WL_OP_SKIP;
          return TRUE;
        }
    }
  /* The root of a rooted collective: comm_root, else root, else the
   * group's first member. */
  w->root = WL_RANK_SELF;
  if (sys_coll_kind_rooted ((SysCollKind) kind)
      && (!attr_rank (n, "comm_root", &w->root, error)
          || (w->root == WL_RANK_SELF && !attr_rank (n, "root", &w->root, error))))
    return FALSE;
  const char *pg = NULL;
  w->group = WL_GROUP_ALL;
  if (wl_chakra_attr_string (n, "pg_name", &pg, error))
    {
      if (!wl_group_id_parse (pg, &w->group))
        {
          g_autofree char *msg = g_strdup_printf ("pg_name \"%s\" is not a group id", pg);
          return fail (error, b, n->id, msg);
        }
    }
  else if (!absent_ok (error))
    return FALSE;
  GArray *dims = NULL;
  w->involved = G_MAXUINT32;
  if (wl_chakra_attr_bool_list (n, "involved_dim", &dims, error))
    {
      w->involved = 0;
      for (guint d = 0; d < dims->len && d < 32; d++)
        if (g_array_index (dims, gboolean, d))
          w->involved |= 1u << d;
      /* Dimensions beyond the list are not involved... unless the list is
       * empty, which writers use for "not given". */
      if (dims->len == 0)
        w->involved = G_MAXUINT32;
      g_array_unref (dims);
    }
  else if (!absent_ok (error))
    return FALSE;
  if (!attr_i32 (n, "comm_priority", &w->priority, error) && !absent_ok (error))
    return FALSE;
  return TRUE;
}

static gboolean
decode_p2p (WlNodeDecoder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
{
  (void) b;
  w->op = (int) n->type == CK_SEND ? WL_OP_SEND : WL_OP_RECV;
  if (!attr_rank (n, "comm_src", &w->peer_src, error)
      || !attr_rank (n, "comm_dst", &w->peer_dst, error))
    return FALSE;
  if (!attr_i32 (n, "comm_tag", &w->tag, error) && !absent_ok (error))
    return FALSE;
  if (!wl_chakra_attr_uint (n, "comm_size", &w->bytes, error) && !absent_ok (error))
    return FALSE;
  return TRUE;
}

static gboolean
decode_node (WlNodeDecoder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
{
  memset (w, 0, sizeof *w);
  w->id = n->id;
  w->chakra_type = (guint8) MIN (n->type, 255u);
  w->duration_ps = n->duration_micros * SIM_PS_PER_US;
  w->has_duration = n->duration_micros > 0;
  if (n->duration_micros > G_MAXUINT64 / SIM_PS_PER_US)
    return fail (error, b, n->id, "duration_micros overflows the clock");
  switch ((int) n->type)
    {
    case CK_INVALID:
      w->op = WL_OP_SKIP;
      return TRUE;
    case CK_METADATA:
      w->op = WL_OP_SKIP;
      return decode_metadata (b, n, error);
    case CK_COMP:
      {
        gboolean cpu = FALSE;
        if (!wl_chakra_attr_bool (n, "is_cpu_op", &cpu, error) && !absent_ok (error))
          return FALSE;
        w->op = cpu ? WL_OP_CPU : WL_OP_COMP;
        if (!wl_chakra_attr_uint (n, "num_ops", &w->num_ops, error) && !absent_ok (error))
          return FALSE;
        if (!wl_chakra_attr_uint (n, "tensor_size", &w->bytes, error) && !absent_ok (error))
          return FALSE;
        return TRUE;
      }
    case CK_COLL:
      return decode_collective (b, n, w, error);
    case CK_SEND:
    case CK_RECV:
      return decode_p2p (b, n, w, error);
    case CK_MEM_LOAD:
    case CK_MEM_STORE:
      w->op = WL_OP_MEM;
      if (!wl_chakra_attr_uint (n, "tensor_size", &w->bytes, error) && !absent_ok (error))
        return FALSE;
      return TRUE;
    default:
      w->op = WL_OP_SKIP;
      b->unknown++;
      return TRUE;
    }
}

gboolean
wl_node_decode (WlNodeDecoder *d, ChakraProtoMsg__Node *n, WlNode *out, GError **error)
{
  g_return_val_if_fail (d != NULL && n != NULL && out != NULL, FALSE);
  if (d->lenient)
    d->dropped.valueless_attrs_ignored += wl_chakra_node_drop_valueless (n);
  if (decode_node (d, n, out, error))
    return TRUE;
  if (!g_str_has_prefix ((*error)->message, d->path))
    g_prefix_error (error, "%s: ", d->path);
  return FALSE;
}

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

gboolean
wl_trace_id_error (const char *path, guint64 id, guint32 n_nodes, GError **error)
{
  WlNodeDecoder d = { .path = path };
  if (n_nodes == G_MAXUINT32 - 1)
    return fail (error, &d, id, "too many nodes in one trace");
  return fail (error, &d, id, "the id appears twice in the trace (duplicate id)");
}

void
wl_dangling_error (const char *path, guint64 child, guint64 parent, const char *why,
                   GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: node %" G_GUINT64_FORMAT " depends on node %" G_GUINT64_FORMAT
               ", which is not in the trace (dangling dependency)%s",
               path, child, parent, why != NULL ? why : "");
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
  b->name_bytes += strlen (name) + 1;
  if (!add_deps (b, index, n->data_deps, n->n_data_deps, error)
      || !add_deps (b, index, n->ctrl_deps, n->n_ctrl_deps, error))
    {
      g_prefix_error (error, "%s: ", b->dec.path);
      return FALSE;
    }
  b->over = working_bytes (b) > b->limit;
  return !b->over;
}

gboolean
wl_trace_read (const char *path, gboolean lenient, WlLenientStats *dropped,
               WlTraceNodeFunc func, gpointer data, GError **error)
{
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open_full (
    path, lenient ? WL_CHAKRA_ALLOW_HEADERLESS : WL_CHAKRA_READ_DEFAULT, error);
  if (r == NULL)
    return FALSE;
  dropped->headerless_files = wl_chakra_reader_is_headerless (r) ? 1 : 0;
  for (;;)
    {
      GError *local = NULL;
      g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, &local);
      if (n == NULL && local != NULL && lenient && wl_chakra_reader_truncated (r))
        {
          g_error_free (local);
          dropped->truncated_frames++;
          return TRUE;
        }
      if (n == NULL)
        {
          if (local == NULL)
            return TRUE;
          g_propagate_error (error, local);
          return FALSE;
        }
      if (!func (data, n, error))
        return FALSE;
    }
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

void
wl_cycle_describe (GString *out, const guint64 *ids, guint32 len)
{
  g_return_if_fail (out != NULL && ids != NULL && len > 0);
  g_string_append_printf (out, "dependency cycle through %u node%s: ", len, len == 1 ? "" : "s");
  for (guint32 i = 0; i < len && i < WL_CYCLE_MAX_IDS; i++)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " -> ", ids[i]);
  if (len > WL_CYCLE_MAX_IDS)
    g_string_append (out, "... -> ");
  g_string_append_printf (out, "%" G_GUINT64_FORMAT " (each depends on the next)", ids[0]);
}

gboolean
wl_cycle_search (guint32 n, const guint32 *start, const guint32 *target,
                 WlCycleFunc on_cycle, gpointer data, GError **error)
{
  g_return_val_if_fail (start != NULL && on_cycle != NULL, FALSE);
  const char *what = "the dependency cycle search";
  /* Per node: 0 new, 1 on the path, 2 done; its position on the path; the
   * path; the next dependency to follow. */
  g_autofree guint8 *state = wl_try_alloc (n, 1, TRUE, what, error);
  g_autofree guint32 *pos = state ? wl_try_alloc (n, 4, FALSE, what, error) : NULL;
  g_autofree guint32 *stack = pos ? wl_try_alloc (n, 4, FALSE, what, error) : NULL;
  g_autofree guint32 *next = stack ? wl_try_alloc (n, 4, FALSE, what, error) : NULL;
  if (next == NULL)
    return FALSE;
  for (guint32 root = 0; root < n; root++)
    {
      if (state[root] != 0)
        continue;
      guint32 top = 0;
      stack[top++] = root;
      state[root] = 1;
      pos[root] = 0;
      next[root] = start[root];
      while (top > 0)
        {
          guint32 v = stack[top - 1];
          if (next[v] == start[v + 1])
            {
              state[v] = 2;
              top--;
              continue;
            }
          guint32 k = next[v]++;
          guint32 w = target[k];
          if (w == WL_CYCLE_NO_NODE)
            continue;
          if (state[w] == 1)
            {
              if (!on_cycle (data, k, stack + pos[w], top - pos[w]))
                return FALSE;
            }
          else if (state[w] == 0)
            {
              state[w] = 1;
              pos[w] = top;
              next[w] = start[w];
              stack[top++] = w;
            }
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
  g_autoptr (GString) text = g_string_new (NULL);
  wl_cycle_describe (text, (const guint64 *) ids->data, len);
  g_set_error (cb->error, WL_ERROR, SIM_ERROR_INPUT, "%s: %s", cb->b->dec.path, text->str);
  return FALSE;
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
  g_autofree guint32 *edges = wl_try_alloc ((guint64) n_deps * 2, sizeof (guint32), FALSE,
                                            "the dependency edges", error);
  if (edges == NULL)
    return FALSE;
  guint32 n_edges = 0;
  g_autoptr (GArray) parents = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 child = 0; child < g->n_nodes; child++)
    {
      g_array_set_size (parents, 0);
      for (guint32 k = start[child]; k < start[child + 1]; k++)
        if (parent[k] != NO_PARENT)
          g_array_append_val (parents, parent[k]);
      if (parents->len > 1)
        qsort (parents->data, parents->len, sizeof (guint32), cmp_u32);
      for (guint j = 0; j < parents->len; j++)
        {
          guint32 p = g_array_index (parents, guint32, j);
          if (j > 0 && p == g_array_index (parents, guint32, j - 1))
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
  g->children = wl_try_alloc (offset, sizeof (guint32), FALSE, "the dependents", error);
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

static void
group_def_clear (gpointer p)
{
  WlGroupDef *d = p;
  g_array_unref (d->ranks);
}

GArray *
wl_group_defs_new (void)
{
  GArray *defs = g_array_new (FALSE, FALSE, sizeof (WlGroupDef));
  g_array_set_clear_func (defs, group_def_clear);
  return defs;
}

/* Resolve, check and link what read_nodes gathered into G (whose nodes
 * are b's). */
static gboolean
finish_graph (Builder *b, WlGraph *g, GError **error)
{
  guint32 n = g->n_nodes;
  g_autofree guint32 *start = wl_try_alloc ((guint64) n + 1, sizeof (guint32), FALSE,
                                            "the dependency lists", error);
  g_autofree guint32 *parent = start ? wl_try_alloc (b->deps.len, sizeof (guint32), FALSE,
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

WlGraph *
wl_graph_load_limited (const char *path, gboolean lenient, guint64 limit, gboolean *over,
                       GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  Builder b = { .dec = { .path = path, .lenient = lenient }, .limit = limit };
  b.nodes = (WlVec) WL_VEC_INIT (WlNode);
  b.deps = (WlVec) WL_VEC_INIT (PendingDep);
  b.names = (WlVec) WL_VEC_INIT (const char *);
  b.index = wl_id_map_new ("the node index");
  b.dec.group_defs = wl_group_defs_new ();
  b.names_chunk = g_string_chunk_new (4096);
  if (over != NULL)
    *over = FALSE;

  gboolean ok = wl_trace_read (path, lenient, &b.dec.dropped, add_node, &b, error);
  WlGraph *g = g_new0 (WlGraph, 1);
  g->ref = 1;
  g->path = g_strdup (path);
  g->n_nodes = (guint32) b.nodes.len;
  g->nodes = wl_vec_steal (&b.nodes);
  g->names = wl_vec_steal (&b.names);
  g->group_defs = b.dec.group_defs;
  g->names_chunk = b.names_chunk;
  g->name_bytes = b.name_bytes;
  g->n_skipped_unknown = b.dec.unknown;
  g->lenient = lenient;
  if (ok)
    ok = finish_graph (&b, g, error);
  g->dropped = b.dec.dropped;
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

void
wl_graph_unref (WlGraph *g)
{
  if (g == NULL || !g_atomic_int_dec_and_test (&g->ref))
    return;
  g_free (g->path);
  g_free (g->nodes);
  g_free (g->children);
  g_array_unref (g->group_defs);
  g_free (g->names);
  g_string_chunk_free (g->names_chunk);
  g_free (g->sha256);
  g_free (g);
}

gsize
wl_graph_bytes (const WlGraph *g)
{
  guint64 edges = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    edges += g->nodes[v].n_children;
  return sizeof *g + g->n_nodes * (sizeof (WlNode) + sizeof (char *)) + edges * sizeof (guint32)
         + g->name_bytes;
}

/* ---- sharing identical files ------------------------------------------------ */

char *
wl_file_sha256 (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "Failed to open file \u201c%s\u201d: %s",
                   path, g_strerror (errsv));
      return NULL;
    }
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 buf[65536];
  gsize n;
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    g_checksum_update (sum, buf, (gssize) n);
  int errsv = errno;
  gboolean failed = ferror (f) != 0;
  fclose (f);
  if (failed)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "Error reading file \u201c%s\u201d: %s",
                   path, g_strerror (errsv));
      return NULL;
    }
  return g_strdup (g_checksum_get_string (sum));
}

struct _WlGraphCache
{
  GHashTable *by_digest; /* sha256 hex -> WlGraph* (one reference) */
  gboolean lenient;
};

WlGraphCache *
wl_graph_cache_new (void)
{
  return wl_graph_cache_new_full (FALSE);
}

WlGraphCache *
wl_graph_cache_new_full (gboolean lenient)
{
  WlGraphCache *c = g_new0 (WlGraphCache, 1);
  c->lenient = lenient;
  c->by_digest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) wl_graph_unref);
  return c;
}

void
wl_graph_cache_free (WlGraphCache *c)
{
  if (c == NULL)
    return;
  g_hash_table_unref (c->by_digest);
  g_free (c);
}

WlGraph *
wl_graph_cache_load_limited (WlGraphCache *c, const char *path, guint64 limit, gboolean *over,
                             GError **error)
{
  if (over != NULL)
    *over = FALSE;
  char *digest = wl_file_sha256 (path, error);
  if (digest == NULL)
    return NULL;
  WlGraph *g = g_hash_table_lookup (c->by_digest, digest);
  if (g != NULL)
    {
      g_free (digest);
      return wl_graph_ref (g);
    }
  g = wl_graph_load_limited (path, c->lenient, limit, over, error);
  if (g == NULL)
    {
      g_free (digest);
      return NULL;
    }
  g->sha256 = g_strdup (digest);
  g_hash_table_insert (c->by_digest, digest, wl_graph_ref (g));
  return g;
}

WlGraph *
wl_graph_cache_load (WlGraphCache *c, const char *path, GError **error)
{
  return wl_graph_cache_load_limited (c, path, G_MAXUINT64, NULL, error);
}

guint
wl_graph_cache_distinct (const WlGraphCache *c)
{
  return g_hash_table_size (c->by_digest);
}

/* ---- lenient counters -------------------------------------------------------- */

void
wl_lenient_stats_add (WlLenientStats *a, const WlLenientStats *b)
{
  g_return_if_fail (a != NULL && b != NULL);
  a->dangling_deps_dropped += b->dangling_deps_dropped;
  a->cycle_edges_dropped += b->cycle_edges_dropped;
  a->colls_skipped += b->colls_skipped;
  a->valueless_attrs_ignored += b->valueless_attrs_ignored;
  a->duplicate_nodes_dropped += b->duplicate_nodes_dropped;
  a->truncated_frames += b->truncated_frames;
  a->headerless_files += b->headerless_files;
}

guint64
wl_lenient_stats_total (const WlLenientStats *s)
{
  g_return_val_if_fail (s != NULL, 0);
  return s->dangling_deps_dropped + s->cycle_edges_dropped + s->colls_skipped
         + s->valueless_attrs_ignored + s->duplicate_nodes_dropped + s->truncated_frames
         + s->headerless_files;
}

/* Append ", N WHAT" (WHAT or PLURAL by N) when N > 0. */
static void
describe_count (GString *out, guint64 n, const char *what, const char *plural)
{
  if (n == 0)
    return;
  g_string_append_printf (out, "%s%" G_GUINT64_FORMAT " %s", out->len > 0 ? ", " : "", n,
                          n == 1 ? what : plural);
}

void
wl_lenient_stats_describe (const WlLenientStats *s, GString *out)
{
  g_return_if_fail (s != NULL && out != NULL);
  if (wl_lenient_stats_total (s) == 0)
    {
      g_string_append (out, "lenient: the traces were clean");
      return;
    }
  g_autoptr (GString) items = g_string_new (NULL);
  describe_count (items, s->dangling_deps_dropped, "dangling dependency dropped",
                  "dangling dependencies dropped");
  describe_count (items, s->cycle_edges_dropped, "dependency closing a cycle dropped",
                  "dependencies closing cycles dropped");
  describe_count (items, s->colls_skipped, "collective without comm_type/comm_size skipped",
                  "collectives without comm_type/comm_size skipped");
  describe_count (items, s->valueless_attrs_ignored, "valueless attribute ignored",
                  "valueless attributes ignored");
  describe_count (items, s->duplicate_nodes_dropped, "node with a repeated id dropped",
                  "nodes with repeated ids dropped");
  describe_count (items, s->truncated_frames, "truncated last frame dropped",
                  "truncated last frames dropped");
  describe_count (items, s->headerless_files, "headerless (pre-2024) file read",
                  "headerless (pre-2024) files read");
  g_string_append_printf (out, "lenient: %s (orrery inspect names them)", items->str);
}
