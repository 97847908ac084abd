/* graph.c: reading a trace file into a checked, compact dependency graph. */
#include "workload/graph.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "system/sys_params.h"
#include "workload/chakra.h"
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
  const char *path;
  GArray *nodes;     /* WlNode */
  GArray *deps;      /* PendingDep, in child order */
  GHashTable *index; /* id -> index + 1 */
  GArray *group_defs;
  GStringChunk *names_chunk;
  GPtrArray *names;  /* const char*, in node order, from names_chunk */
  guint32 unknown;
  gboolean lenient;
  WlLenientStats dropped;
} Builder;

/* A dependency resolved to no node: dangling, or dropped to break a cycle. */
#define NO_PARENT WL_CYCLE_NO_NODE

static gboolean
fail (GError **error, const Builder *b, guint64 id, const char *what)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT ": %s", b->path,
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
decode_metadata (Builder *b, const ChakraProtoMsg__Node *n, GError **error)
{
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
decode_collective (Builder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
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
decode_p2p (Builder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
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
decode_node (Builder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
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

static void
add_deps (Builder *b, guint32 child, const guint64 *ids, gsize n)
{
  for (gsize i = 0; i < n; i++)
    {
      PendingDep d = { child, ids[i] };
      g_array_append_val (b->deps, d);
    }
}

/* Add N to the graph being built; FALSE with ERROR set when it is bad. */
static gboolean
add_node (Builder *b, ChakraProtoMsg__Node *n, GError **error)
{
  guint32 index = b->nodes->len;
  if (index == G_MAXUINT32 - 1)
    return fail (error, b, n->id, "too many nodes in one trace");
  gpointer key = (gpointer) (guintptr) n->id;
  if (g_hash_table_contains (b->index, key))
    {
      if (!b->lenient)
        return fail (error, b, n->id, "the id appears twice in the trace (duplicate id)");
      b->dropped.duplicate_nodes_dropped++;
      return TRUE;
    }
  if (b->lenient)
    b->dropped.valueless_attrs_ignored += wl_chakra_node_drop_valueless (n);
  WlNode w;
  if (!decode_node (b, n, &w, error))
    {
      if (!g_str_has_prefix ((*error)->message, b->path))
        g_prefix_error (error, "%s: ", b->path);
      return FALSE;
    }
  g_hash_table_insert (b->index, key, GUINT_TO_POINTER (index + 1u));
  g_array_append_val (b->nodes, w);
  g_ptr_array_add (b->names, g_string_chunk_insert_const (b->names_chunk, n->name ? n->name : ""));
  add_deps (b, index, n->data_deps, n->n_data_deps);
  add_deps (b, index, n->ctrl_deps, n->n_ctrl_deps);
  return TRUE;
}

static gboolean
read_nodes (Builder *b, GError **error)
{
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open_full (
    b->path, b->lenient ? WL_CHAKRA_ALLOW_HEADERLESS : WL_CHAKRA_READ_DEFAULT, error);
  if (r == NULL)
    return FALSE;
  b->dropped.headerless_files = wl_chakra_reader_is_headerless (r) ? 1 : 0;
  for (;;)
    {
      GError *local = NULL;
      g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, &local);
      if (n == NULL && local != NULL && b->lenient && wl_chakra_reader_truncated (r))
        {
          g_error_free (local);
          b->dropped.truncated_frames++;
          return TRUE;
        }
      if (n == NULL)
        {
          if (local == NULL)
            return TRUE;
          g_propagate_error (error, local);
          return FALSE;
        }
      GError *bad = NULL;
      if (!add_node (b, n, &bad))
        {
          g_propagate_error (error, bad);
          return FALSE;
        }
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
resolve_deps (Builder *b, guint32 n_nodes, guint32 *start, guint32 *parent, GError **error)
{
  const PendingDep *deps = (const PendingDep *) b->deps->data;
  guint k = 0;
  for (guint32 v = 0; v <= n_nodes; v++)
    {
      start[v] = k;
      for (; v < n_nodes && k < b->deps->len && deps[k].child == v; k++)
        {
          gpointer hit = g_hash_table_lookup (b->index, (gpointer) (guintptr) deps[k].parent_id);
          parent[k] = hit != NULL ? GPOINTER_TO_UINT (hit) - 1 : NO_PARENT;
          if (hit != NULL)
            continue;
          if (!b->lenient)
            {
              const WlNode *child = &g_array_index (b->nodes, WlNode, v);
              g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                           "%s: node %" G_GUINT64_FORMAT " depends on node %" G_GUINT64_FORMAT
                           ", which is not in the trace (dangling dependency)",
                           b->path, child->id, deps[k].parent_id);
              return FALSE;
            }
          b->dropped.dangling_deps_dropped++;
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
                 WlCycleFunc on_cycle, gpointer data)
{
  g_return_val_if_fail (start != NULL && on_cycle != NULL, FALSE);
  g_autofree guint8 *state = g_new0 (guint8, MAX (n, 1u)); /* 0 new, 1 on path, 2 done */
  g_autofree guint32 *pos = g_new (guint32, MAX (n, 1u));  /* position on the path */
  g_autofree guint32 *stack = g_new (guint32, MAX (n, 1u));
  g_autofree guint32 *next = g_new (guint32, MAX (n, 1u)); /* next dependency to follow */
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
  guint32 *parent;
  GError **error;
} CycleBreak;

/* A back edge: strict, the error naming the cycle PATH[0 .. LEN-1]; lenient,
 * the edge is dropped. */
static gboolean
break_cycle (gpointer data, guint32 slot, const guint32 *path, guint32 len)
{
  CycleBreak *cb = data;
  if (cb->b->lenient)
    {
      cb->parent[slot] = NO_PARENT;
      cb->b->dropped.cycle_edges_dropped++;
      return TRUE;
    }
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint32 i = 0; i < len; i++)
    g_array_append_val (ids, g_array_index (cb->b->nodes, WlNode, path[i]).id);
  g_autoptr (GString) text = g_string_new (NULL);
  wl_cycle_describe (text, (const guint64 *) ids->data, len);
  g_set_error (cb->error, WL_ERROR, SIM_ERROR_INPUT, "%s: %s", cb->b->path, text->str);
  return FALSE;
}

/* Depth-first search along dependencies (wl_cycle_search, the inspector's
 * search).  A back edge closes a cycle: an error, or (lenient) the edge is
 * dropped. */
static gboolean
break_cycles (Builder *b, guint32 n, const guint32 *start, guint32 *parent, GError **error)
{
  CycleBreak cb = { .b = b, .parent = parent, .error = error };
  return wl_cycle_search (n, start, parent, break_cycle, &cb);
}

/* Lay the dependents out parent by parent from the resolved dependencies
 * (NO_PARENT ones left out); an id in both data_deps and ctrl_deps is one
 * edge. */
static void
link_edges (WlGraph *g, const guint32 *start, const guint32 *parent)
{
  GArray *edges = g_array_sized_new (FALSE, FALSE, 2 * sizeof (guint32), start[g->n_nodes]);
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
          guint32 e[2] = { p, child };
          g_array_append_vals (edges, e, 1);
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
  g->children = g_new (guint32, MAX (offset, 1u));
  /* Edges are in child order, so each parent's dependents come out in file
   * order: the order in which replay releases them. */
  for (guint i = 0; i < edges->len; i++)
    {
      const guint32 *e = &g_array_index (edges, guint32, (gsize) 2 * i);
      WlNode *p = &g->nodes[e[0]];
      g->children[p->child_start + p->n_children++] = e[1];
    }
  g_array_unref (edges);
}

static void
group_def_clear (gpointer p)
{
  WlGroupDef *d = p;
  g_array_unref (d->ranks);
}

WlGraph *
wl_graph_load_full (const char *path, gboolean lenient, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  Builder b = { .path = path, .lenient = lenient };
  b.nodes = g_array_new (FALSE, FALSE, sizeof (WlNode));
  b.deps = g_array_new (FALSE, FALSE, sizeof (PendingDep));
  b.index = g_hash_table_new (g_direct_hash, g_direct_equal);
  b.group_defs = g_array_new (FALSE, FALSE, sizeof (WlGroupDef));
  g_array_set_clear_func (b.group_defs, group_def_clear);
  b.names_chunk = g_string_chunk_new (4096);
  b.names = g_ptr_array_new ();

  gboolean ok = read_nodes (&b, error);
  guint32 n = b.nodes->len;
  g_autofree guint32 *start = g_new (guint32, n + 1u);
  g_autofree guint32 *parent = g_new (guint32, MAX (b.deps->len, 1u));
  ok = ok && resolve_deps (&b, n, start, parent, error)
       && break_cycles (&b, n, start, parent, error);

  WlGraph *g = g_new0 (WlGraph, 1);
  g->ref = 1;
  g->path = g_strdup (path);
  g->n_nodes = n;
  g->nodes = (WlNode *) g_array_free (b.nodes, FALSE);
  g->group_defs = b.group_defs;
  g->names_chunk = b.names_chunk;
  g->names = (const char **) g_ptr_array_free (b.names, FALSE);
  g->n_skipped_unknown = b.unknown;
  g->lenient = lenient;
  g->dropped = b.dropped;
  if (ok)
    link_edges (g, start, parent);
  g_array_unref (b.deps);
  g_hash_table_unref (b.index);
  if (!ok)
    {
      wl_graph_unref (g);
      return NULL;
    }
  return g;
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
  return sizeof *g + g->n_nodes * (sizeof (WlNode) + sizeof (char *)) + edges * sizeof (guint32);
}

/* ---- sharing identical files ------------------------------------------------ */

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
wl_graph_cache_load (WlGraphCache *c, const char *path, GError **error)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_autoptr (GError) ioerr = NULL;
  if (!g_file_get_contents (path, &bytes, &len, &ioerr))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s", ioerr->message);
      return NULL;
    }
  char *digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes, len);
  WlGraph *g = g_hash_table_lookup (c->by_digest, digest);
  if (g != NULL)
    {
      g_free (digest);
      return wl_graph_ref (g);
    }
  g = wl_graph_load_full (path, c->lenient, error);
  if (g == NULL)
    {
      g_free (digest);
      return NULL;
    }
  g->sha256 = g_strdup (digest);
  g_hash_table_insert (c->by_digest, digest, wl_graph_ref (g));
  return g;
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
