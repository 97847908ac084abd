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
} Builder;

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
    return absent_ok (error) ? fail (error, b, n->id, "COMM_COLL node without comm_type") : FALSE;
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
      if (kind != SYS_COLL_BARRIER)
        return fail (error, b, n->id, "COMM_COLL node without comm_size");
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

static gboolean
read_nodes (Builder *b, GError **error)
{
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (b->path, error);
  if (r == NULL)
    return FALSE;
  for (;;)
    {
      g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, error);
      if (n == NULL)
        return absent_ok (error);
      guint32 index = b->nodes->len;
      if (index == G_MAXUINT32 - 1)
        return fail (error, b, n->id, "too many nodes in one trace");
      gpointer key = (gpointer) (guintptr) n->id;
      if (g_hash_table_contains (b->index, key))
        return fail (error, b, n->id, "the id appears twice in the trace");
      g_hash_table_insert (b->index, key, GUINT_TO_POINTER (index + 1u));
      WlNode w;
      if (!decode_node (b, n, &w, error))
        {
          if (!g_str_has_prefix ((*error)->message, b->path))
            g_prefix_error (error, "%s: ", b->path);
          return FALSE;
        }
      g_array_append_val (b->nodes, w);
      g_ptr_array_add (b->names,
                       g_string_chunk_insert_const (b->names_chunk, n->name ? n->name : ""));
      add_deps (b, index, n->data_deps, n->n_data_deps);
      add_deps (b, index, n->ctrl_deps, n->n_ctrl_deps);
    }
}

static int
cmp_u32 (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

/* Resolve dependency ids to indices, drop repeats (an id in both data_deps
 * and ctrl_deps is one edge), and lay the dependents out parent by parent. */
static gboolean
link_edges (Builder *b, WlGraph *g, GError **error)
{
  GArray *edges = g_array_sized_new (FALSE, FALSE, 2 * sizeof (guint32), b->deps->len);
  g_autoptr (GArray) parents = g_array_new (FALSE, FALSE, sizeof (guint32));
  const PendingDep *deps = (const PendingDep *) b->deps->data;
  for (guint i = 0; i < b->deps->len;)
    {
      guint32 child = deps[i].child;
      g_array_set_size (parents, 0);
      for (; i < b->deps->len && deps[i].child == child; i++)
        {
          gpointer v = g_hash_table_lookup (b->index, (gpointer) (guintptr) deps[i].parent_id);
          if (v == NULL)
            {
              g_array_unref (edges);
              g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                           "%s: node %" G_GUINT64_FORMAT " depends on node %" G_GUINT64_FORMAT
                           ", which is not in the trace (dangling dependency)",
                           b->path, g->nodes[child].id, deps[i].parent_id);
              return FALSE;
            }
          guint32 p = GPOINTER_TO_UINT (v) - 1;
          g_array_append_val (parents, p);
        }
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
      const guint32 *e = &g_array_index (edges, guint32, 2 * i);
      WlNode *p = &g->nodes[e[0]];
      g->children[p->child_start + p->n_children++] = e[1];
    }
  g_array_unref (edges);
  return TRUE;
}

/* Kahn's algorithm; on a cycle, name the ids on one. */
static gboolean
check_acyclic (const WlGraph *g, GError **error)
{
  g_autofree guint32 *indeg = g_new (guint32, MAX (g->n_nodes, 1u));
  g_autofree guint32 *stack = g_new (guint32, MAX (g->n_nodes, 1u));
  guint32 top = 0, seen = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    if ((indeg[v] = g->nodes[v].n_parents) == 0)
      stack[top++] = v;
  while (top > 0)
    {
      const WlNode *n = &g->nodes[stack[--top]];
      seen++;
      for (guint32 c = 0; c < n->n_children; c++)
        if (--indeg[g->children[n->child_start + c]] == 0)
          stack[top++] = g->children[n->child_start + c];
    }
  if (seen == g->n_nodes)
    return TRUE;
  /* Every node left has a parent left: walk parents until one repeats. */
  g_autofree guint32 *parent_left = g_new (guint32, g->n_nodes);
  for (guint32 v = 0; v < g->n_nodes; v++)
    parent_left[v] = G_MAXUINT32;
  for (guint32 v = 0; v < g->n_nodes; v++)
    if (indeg[v] > 0)
      for (guint32 c = 0; c < g->nodes[v].n_children; c++)
        parent_left[g->children[g->nodes[v].child_start + c]] = v;
  guint32 v = 0;
  while (indeg[v] == 0)
    v++;
  g_autofree guint8 *on_path = g_new0 (guint8, g->n_nodes);
  while (!on_path[v])
    {
      on_path[v] = 1;
      v = parent_left[v];
    }
  g_autoptr (GString) ids = g_string_new (NULL);
  guint32 start = v, count = 0;
  do
    {
      if (count++ < 20)
        g_string_append_printf (ids, "%s%" G_GUINT64_FORMAT, ids->len ? " <- " : "",
                                g->nodes[v].id);
      v = parent_left[v];
    }
  while (v != start);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: dependency cycle through %u nodes: %s%s (%u nodes can never run)", g->path,
               count, ids->str, count > 20 ? " ..." : "", g->n_nodes - seen);
  return FALSE;
}

static void
group_def_clear (gpointer p)
{
  WlGroupDef *d = p;
  g_array_unref (d->ranks);
}

WlGraph *
wl_graph_load (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  Builder b = { .path = path };
  b.nodes = g_array_new (FALSE, FALSE, sizeof (WlNode));
  b.deps = g_array_new (FALSE, FALSE, sizeof (PendingDep));
  b.index = g_hash_table_new (g_direct_hash, g_direct_equal);
  b.group_defs = g_array_new (FALSE, FALSE, sizeof (WlGroupDef));
  g_array_set_clear_func (b.group_defs, group_def_clear);
  b.names_chunk = g_string_chunk_new (4096);
  b.names = g_ptr_array_new ();

  WlGraph *g = g_new0 (WlGraph, 1);
  g->ref = 1;
  g->path = g_strdup (path);
  gboolean ok = read_nodes (&b, error);
  g->n_nodes = b.nodes->len;
  g->nodes = (WlNode *) g_array_free (b.nodes, FALSE);
  g->group_defs = b.group_defs;
  g->names_chunk = b.names_chunk;
  g->names = (const char **) g_ptr_array_free (b.names, FALSE);
  g->n_skipped_unknown = b.unknown;
  ok = ok && link_edges (&b, g, error) && check_acyclic (g, error);
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
};

WlGraphCache *
wl_graph_cache_new (void)
{
  WlGraphCache *c = g_new0 (WlGraphCache, 1);
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
  g = wl_graph_load (path, error);
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
