/* rescale.c: data-parallel trace sets from p ranks to q (rules in rescale.h). */
#include "workload/rescale.h"

#include <string.h>

#include "workload/chakra.h"
#include "workload/chakra_json.h"
#include "workload/group_list.h"
#include "workload/groups.h"
#include "workload/node.h"

typedef struct
{
  const char *from;
  guint32 p, q;
  char *path0;               /* FROM.0.et */
  GPtrArray *nodes;          /* rank 0's nodes, owned */
  GHashTable *groups;        /* group id -> GINT_TO_POINTER (1 world, 2 proper subgroup) */
  GHashTable *group_node;    /* group id -> id of the METADATA node defining it (guint64 *) */
  GHashTable *new_json;      /* METADATA node -> rewritten inputs.values (owned) */
  gboolean sharded;          /* an all-gather or reduce-scatter: state sharded over the ranks */
} Rescale;

enum { GROUP_WORLD = 1, GROUP_PROPER = 2 };

static gboolean G_GNUC_PRINTF (4, 5)
refuse (GError **error, const char *path, guint64 node, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "cannot rescale: %s node %" G_GUINT64_FORMAT
               ": %s", path, node, msg);
  return FALSE;
}

/* Record the groups of a METADATA node and its rewritten JSON, where every
 * group holds 0 .. q-1. */
static gboolean
read_groups (Rescale *rs, ChakraProtoMsg__Node *n, GError **error)
{
  g_autoptr (GArray) defs = wl_group_defs_new ();
  const char *why = wl_group_defs_parse (n->inputs->values, defs);
  if (why != NULL)
    return refuse (error, rs->path0, n->id, "%s", why);
  g_autofree char *fault = wl_group_defs_fault (defs, 0);
  if (fault != NULL)
    return refuse (error, rs->path0, n->id, "%s", fault);
  GString *out = g_string_new ("[");
  for (guint i = 0; i < defs->len; i++)
    {
      const WlGroupDef *def = &g_array_index (defs, WlGroupDef, i);
      guint64 id = def->id;
      /* World: empty, or each of 0 .. p-1 exactly once. */
      guint len = def->ranks->len;
      g_autofree gboolean *seen = g_new0 (gboolean, rs->p);
      guint hits = 0;
      for (guint j = 0; j < len; j++)
        {
          guint32 v = g_array_index (def->ranks, guint32, j);
          if (v < rs->p && !seen[v])
            seen[v] = TRUE, hits++;
        }
      gboolean world = len == 0 || (len == rs->p && hits == rs->p);
      g_hash_table_insert (rs->groups, g_memdup2 (&id, sizeof id),
                           GINT_TO_POINTER (world ? GROUP_WORLD : GROUP_PROPER));
      g_hash_table_insert (rs->group_node, g_memdup2 (&id, sizeof id),
                           g_memdup2 (&n->id, sizeof n->id));
      g_string_append_printf (out, "%s{\"pg_name\": \"%" G_GUINT64_FORMAT "\", \"ranks\": [",
                              i > 0 ? ", " : "", id);
      for (guint32 r = 0; r < rs->q; r++)
        g_string_append_printf (out, "%s%u", r > 0 ? ", " : "", r);
      g_string_append (out, "]}");
    }
  g_string_append (out, "]");
  g_autofree char *json = g_string_free (out, FALSE);
  g_hash_table_insert (rs->new_json, n, wl_group_list_wrap (json));
  return TRUE;
}

/* TRUE for kinds whose comm_size is each rank's shard. */
static gboolean
comm_size_is_shard (gint64 comm_type)
{
  return comm_type == 2 || comm_type == 3 || comm_type == 4; /* ALL_GATHER, GATHER, SCATTER */
}

/* Check a collective; when APPLY, rewrite its comm_size instead. */
static gboolean
rescale_coll (Rescale *rs, ChakraProtoMsg__Node *n, gboolean apply, GError **error)
{
  gint64 type = -1;
  GError *e = NULL;
  if (!wl_chakra_attr_int (n, "comm_type", &type, &e) || type < 0 || type > 9)
    {
      g_clear_error (&e);
      return refuse (error, rs->path0, n->id, "COMM_COLL node without a known comm_type");
    }
  const char *pg = NULL;
  if (!apply && wl_chakra_attr_string (n, "pg_name", &pg, NULL) && pg != NULL && *pg != '\0')
    {
      guint64 id;
      if (!wl_group_id_parse (pg, &id))
        return refuse (error, rs->path0, n->id, "pg_name \"%s\" is not a group id", pg);
      int kind = GPOINTER_TO_INT (g_hash_table_lookup (rs->groups, &id));
      if (kind == GROUP_PROPER)
        return refuse (error, rs->path0, n->id,
                       "%s on process group %s, a proper subgroup of the %u ranks: only "
                       "collectives on all ranks can be rescaled",
                       wl_chakra_comm_type_name ((int) type), pg, rs->p);
      if (kind == 0 && id != 0)
        return refuse (error, rs->path0, n->id,
                       "process group %s is not defined in the trace (a --comm-groups file may "
                       "make it a subgroup)", pg);
    }
  rs->sharded |= type == CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER
                 || type == CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER;
  gint64 root = -1;
  if (wl_chakra_attr_int (n, "comm_root", &root, NULL) && root >= rs->q)
    return refuse (error, rs->path0, n->id, "comm_root %" G_GINT64_FORMAT " is not below %u ranks",
                   root, rs->q);
  guint64 size = 0;
  if (!apply || !comm_size_is_shard (type) || !wl_chakra_attr_uint (n, "comm_size", &size, NULL))
    return TRUE;
  if (size > G_MAXUINT64 / rs->p) /* not reached for sizes below 2^54 bytes */
    return refuse (error, rs->path0, n->id, "comm_size too large");
  guint64 scaled = (size * rs->p + rs->q - 1) / rs->q;
  /* comm_size was found among the integer scalar kinds, none of which owns
   * memory, so the oneof can change kind in place. */
  for (gsize i = 0; i < n->n_attr; i++)
    if (g_strcmp0 (n->attr[i]->name, "comm_size") == 0)
      {
        n->attr[i]->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
        n->attr[i]->int64_val = (gint64) scaled;
        break;
      }
  return TRUE;
}

/* Check rank 0's nodes. */
static gboolean
check_rank0 (Rescale *rs, GError **error)
{
  for (guint i = 0; i < rs->nodes->len; i++)
    {
      ChakraProtoMsg__Node *n = g_ptr_array_index (rs->nodes, i);
      if (wl_group_list_node (n) && !read_groups (rs, n, error))
        return FALSE;
    }
  for (guint i = 0; i < rs->nodes->len; i++)
    {
      ChakraProtoMsg__Node *n = g_ptr_array_index (rs->nodes, i);
      if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
          || n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE)
        return refuse (error, rs->path0, n->id,
                       "%s is point-to-point: its peers cannot be mapped to another rank count",
                       wl_chakra_node_type_name (n->type));
      if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
          && !rescale_coll (rs, n, FALSE, error))
        return FALSE;
    }
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, rs->groups);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (GPOINTER_TO_INT (value) == GROUP_PROPER)
      return refuse (error, rs->path0, *(guint64 *) g_hash_table_lookup (rs->group_node, key),
                     "METADATA defines process group %" G_GUINT64_FORMAT
                     ", a proper subgroup of the %u ranks, which cannot be mapped",
                     *(guint64 *) key, rs->p);
  return TRUE;
}

/* N packed without what may differ between ranks. */
static GBytes *
pack_structure (const ChakraProtoMsg__Node *n)
{
  ChakraProtoMsg__Node c = *n;
  g_autofree ChakraProtoMsg__AttributeProto **attrs = g_new0 (ChakraProtoMsg__AttributeProto *, n->n_attr + 1);
  c.n_attr = 0;
  c.attr = attrs;
  c.start_time_micros = 0;
  for (gsize i = 0; i < n->n_attr; i++)
    {
      const char *name = n->attr[i]->name;
      if (g_strcmp0 (name, "comm_src") != 0 && g_strcmp0 (name, "comm_dst") != 0
          && g_strcmp0 (name, "pg_name") != 0)
        attrs[c.n_attr++] = n->attr[i];
    }
  gsize len = chakra_proto_msg__node__get_packed_size (&c);
  guint8 *buf = g_malloc (len + 1);
  chakra_proto_msg__node__pack (&c, buf);
  return g_bytes_new_take (buf, len);
}

static gboolean
deps_equal (const uint64_t *a, gsize na, const uint64_t *b, gsize nb)
{
  return na == nb && (na == 0 || memcmp (a, b, na * sizeof *a) == 0);
}

static const char *
difference (const ChakraProtoMsg__Node *a, const ChakraProtoMsg__Node *b)
{
  if (a->id != b->id)
    return "node ids";
  if (a->type != b->type)
    return "node types";
  if (!deps_equal (a->data_deps, a->n_data_deps, b->data_deps, b->n_data_deps)
      || !deps_equal (a->ctrl_deps, a->n_ctrl_deps, b->ctrl_deps, b->n_ctrl_deps))
    return "dependencies";
  if (a->duration_micros != b->duration_micros)
    return "durations";
  if (g_strcmp0 (a->name, b->name) != 0)
    return "names";
  g_autoptr (GBytes) pa = pack_structure (a);
  g_autoptr (GBytes) pb = pack_structure (b);
  return g_bytes_equal (pa, pb) ? NULL : "attributes or inputs/outputs";
}

/* Compare rank r's trace with rank 0's, node by node. */
static gboolean
compare_rank (Rescale *rs, guint32 r, GError **error)
{
  g_autofree char *path = wl_chakra_trace_path (rs->from, r);
  if (!wl_path_check_regular (path, error)) /* /dev/zero would never end */
    return FALSE;
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (path, error);
  if (rd == NULL)
    return FALSE;
  for (guint i = 0;; i++)
    {
      g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (rd, error);
      if (n == NULL && error != NULL && *error != NULL)
        return FALSE;
      if (n == NULL || i >= rs->nodes->len)
        {
          if (n == NULL && i == rs->nodes->len)
            return TRUE;
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "cannot rescale: %s has %s nodes than %s: the ranks are not all the same",
                       path, n == NULL ? "fewer" : "more", rs->path0);
          return FALSE;
        }
      const ChakraProtoMsg__Node *ref = g_ptr_array_index (rs->nodes, i);
      const char *what = difference (ref, n);
      if (what != NULL)
        return refuse (error, path, n->id,
                       "differs from node %" G_GUINT64_FORMAT " of %s in its %s: the ranks are "
                       "not all the same", ref->id, rs->path0, what);
    }
}

/* Frame 0 for Q ranks: rank 0's with the facts that depend on the rank
 * count rewritten.  Each rank keeps its work, so the iteration's tokens and
 * model FLOPs grow by Q / p (tokens dropped where p does not divide them);
 * a rank's peak memory stays where nothing is sharded over the ranks, and
 * is dropped where the set shards state (ZeRO, a distributed optimizer:
 * its all-gathers and reduce-scatters), which the trace cannot say how to
 * redo.  Other attributes are copied. */
typedef struct
{
  ChakraProtoMsg__GlobalMetadata meta;
  ChakraProtoMsg__AttributeProto facts[WL_TRACE_FACTS_MAX];
  GPtrArray *attrs; /* ChakraProtoMsg__AttributeProto *, borrowed */
} RescaledMeta;

static gboolean
rescaled_meta (const Rescale *rs, const ChakraProtoMsg__GlobalMetadata *in, RescaledMeta *out,
               GError **error)
{
  WlTraceFacts f;
  if (!wl_chakra_metadata_facts (in, &f, error))
    {
      g_prefix_error (error, "cannot rescale: %s: ", rs->path0);
      return FALSE;
    }
  f.model_flops = f.model_flops * rs->q / rs->p;
  f.tokens_per_iteration = f.tokens_per_iteration % rs->p == 0
                               ? f.tokens_per_iteration / rs->p * rs->q
                               : 0;
  if (rs->sharded)
    f.peak_memory_B = 0;
  guint n = wl_chakra_facts_attrs (&f, out->facts);
  out->meta = *in;
  out->attrs = g_ptr_array_new ();
  for (size_t i = 0; i < in->n_attr; i++)
    {
      /* A fact is replaced by its rewritten form below (or dropped). */
      if (!wl_chakra_is_fact (in->attr[i]->name))
        g_ptr_array_add (out->attrs, in->attr[i]);
    }
  for (guint i = 0; i < n; i++)
    g_ptr_array_add (out->attrs, &out->facts[i]);
  out->meta.n_attr = out->attrs->len;
  out->meta.attr = (ChakraProtoMsg__AttributeProto **) out->attrs->pdata;
  return TRUE;
}

static gboolean
write_rank (Rescale *rs, const ChakraProtoMsg__GlobalMetadata *meta, const char *path,
            GError **error)
{
  g_autoptr (WlChakraWriter) w = meta != NULL ? wl_chakra_writer_open_metadata (path, meta, error)
                                              : wl_chakra_writer_open (path, "", error);
  if (w == NULL)
    return FALSE;
  for (guint i = 0; i < rs->nodes->len; i++)
    {
      ChakraProtoMsg__Node *n = g_ptr_array_index (rs->nodes, i);
      const char *json = g_hash_table_lookup (rs->new_json, n);
      ChakraProtoMsg__Node copy = *n;
      ChakraProtoMsg__IOInfo inputs; /* set and used only when json != NULL */
      if (json != NULL)
        {
          inputs = *n->inputs;
          inputs.values = (char *) json;
          copy.inputs = &inputs;
        }
      if (!wl_chakra_writer_add (w, &copy, error))
        return FALSE;
    }
  return wl_chakra_writer_close (w, error);
}

static gboolean
rescale_run (Rescale *rs, const char *out, GError **error)
{
  if (!wl_path_check_regular (rs->path0, error)) /* /dev/zero would never end */
    return FALSE;
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (rs->path0, error);
  if (rd == NULL)
    return FALSE;
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (rd, error)) != NULL)
    g_ptr_array_add (rs->nodes, n);
  if (error != NULL && *error != NULL)
    return FALSE;
  if (!check_rank0 (rs, error))
    return FALSE;
  for (guint32 r = 1; r < rs->p; r++)
    if (!compare_rank (rs, r, error))
      return FALSE;
  /* Only now, once the ranks compared equal, rewrite rank 0's sizes. */
  for (guint i = 0; i < rs->nodes->len; i++)
    {
      ChakraProtoMsg__Node *c = g_ptr_array_index (rs->nodes, i);
      if (c->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
          && !rescale_coll (rs, c, TRUE, error))
        return FALSE;
    }
  const ChakraProtoMsg__GlobalMetadata *meta0 = wl_chakra_reader_metadata (rd);
  RescaledMeta meta = { 0 };
  if (meta0 != NULL && !rescaled_meta (rs, meta0, &meta, error))
    return FALSE;
  gboolean ok = TRUE;
  for (guint32 r = 0; r < rs->q && ok; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", out, r);
      ok = write_rank (rs, meta0 != NULL ? &meta.meta : NULL, path, error);
    }
  if (meta.attrs != NULL)
    g_ptr_array_unref (meta.attrs);
  return ok;
}

gboolean
wl_rescale (const char *from, guint32 q, const char *out, guint32 *p, GError **error)
{
  WlRescaleInfo info = { 0 };
  gboolean ok = wl_rescale_info (from, q, out, &info, error);
  if (p != NULL)
    *p = info.p;
  return ok;
}

gboolean
wl_rescale_info (const char *from, guint32 q, const char *out, WlRescaleInfo *info,
                 GError **error)
{
  g_return_val_if_fail (from != NULL && out != NULL && info != NULL, FALSE);
  if (q < 1)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "cannot rescale to %u ranks: need at least 1",
                   q);
      return FALSE;
    }
  Rescale rs = { .from = from, .q = q };
  for (;; rs.p++)
    {
      g_autofree char *path = wl_chakra_trace_path (from, rs.p);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        break;
    }
  info->p = rs.p;
  if (rs.p == 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "cannot rescale: no trace %s.0.et", from);
      return FALSE;
    }
  rs.path0 = wl_chakra_trace_path (from, 0);
  rs.nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_chakra_node_free);
  rs.groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  rs.group_node = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  rs.new_json = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  /* A local error, so that the end of a trace is told from a failure even
   * when the caller passes no ERROR. */
  GError *local = NULL;
  gboolean ok = rescale_run (&rs, out, &local);
  info->sharded = rs.sharded;
  if (local != NULL)
    g_propagate_error (error, local);
  g_hash_table_destroy (rs.new_json);
  g_hash_table_destroy (rs.group_node);
  g_hash_table_destroy (rs.groups);
  g_ptr_array_free (rs.nodes, TRUE);
  g_free (rs.path0);
  return ok;
}
