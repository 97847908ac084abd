/* gen.c: the collective microbenchmark generator. */
#include "workload/gen.h"

#include "workload/chakra.h"
#include "workload/group_list.h"

int
wl_chakra_comm_type_of (SysCollKind kind)
{
  static const int values[SYS_COLL_N] = {
    [SYS_COLL_ALL_REDUCE] = 0,
    [SYS_COLL_REDUCE_SCATTER] = 7,
    [SYS_COLL_ALL_GATHER] = 2,
    [SYS_COLL_ALL_TO_ALL] = 6,
    [SYS_COLL_BROADCAST] = 5,
    [SYS_COLL_REDUCE] = 1,
    [SYS_COLL_GATHER] = 3,
    [SYS_COLL_SCATTER] = 4,
    [SYS_COLL_BARRIER] = 9,
  };
  g_return_val_if_fail (kind < SYS_COLL_N, -1);
  return values[kind];
}

gboolean
wl_coll_kind_parse (const char *name, SysCollKind *out)
{
  g_autofree char *norm = g_ascii_strdown (name, -1);
  g_strdelimit (norm, "-", '_');
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      g_autofree char *bare = g_strdup (sys_coll_kind_name ((SysCollKind) k));
      if (g_strcmp0 (norm, bare) == 0)
        {
          *out = (SysCollKind) k;
          return TRUE;
        }
      /* "allreduce" */
      char *w = bare;
      for (char *rd = bare; *rd; rd++)
        if (*rd != '_')
          *w++ = *rd;
      *w = '\0';
      if (g_strcmp0 (norm, bare) == 0)
        {
          *out = (SysCollKind) k;
          return TRUE;
        }
    }
  return FALSE;
}

/* The validated layout of a request: group_size and stride never 0. */
typedef struct
{
  const WlGenCollective *req;
  guint32 size, stride, count;
  gboolean grouped;
  char *groups_json; /* the METADATA node's inputs.values; NULL without groups */
} Layout;

/* Group id (1-based) of rank r, and the rank of member index i of it. */
static guint32
group_of (const Layout *l, guint32 r)
{
  guint32 block = r / (l->size * l->stride);
  return 1 + block * l->stride + r % l->stride;
}

static guint32
member_rank (const Layout *l, guint32 group, guint32 i)
{
  guint32 g = group - 1, block = g / l->stride, j = g % l->stride;
  return block * l->size * l->stride + j + i * l->stride;
}

void
wl_gen_group_append (GString *s, guint32 id, const guint32 *ranks, guint32 n)
{
  g_string_append_printf (s, "%s{\"pg_name\": \"%u\", \"ranks\": [", s->len > 1 ? ", " : "", id);
  for (guint32 i = 0; i < n; i++)
    g_string_append_printf (s, "%s%u", i > 0 ? ", " : "", ranks[i]);
  g_string_append (s, "]}");
}

static char *
groups_json (const Layout *l)
{
  GString *s = g_string_new ("[");
  g_autofree guint32 *members = g_new (guint32, MAX (l->size, 1u));
  guint32 n_groups = l->req->ranks / l->size;
  for (guint32 g = 1; g <= n_groups; g++)
    {
      for (guint32 i = 0; i < l->size; i++)
        members[i] = member_rank (l, g, i);
      wl_gen_group_append (s, g, members, l->size);
    }
  g_string_append (s, "]");
  g_autofree char *json = g_string_free (s, FALSE);
  return wl_group_list_wrap (json);
}

static gboolean
layout_init (Layout *l, const WlGenCollective *req, GError **error)
{
  *l = (Layout) { .req = req, .stride = MAX (req->stride, 1), .count = MAX (req->count, 1),
                  .grouped = req->group_size > 0 || req->stride > 1 };
  /* A stride alone makes groups as large as the stride allows: the columns. */
  l->size = req->group_size > 0 ? req->group_size
            : l->grouped        ? req->ranks / l->stride
                                : req->ranks;
  if (l->size == 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "a stride of %u leaves no room for a group in %u ranks", l->stride, req->ranks);
      return FALSE;
    }
  if (l->grouped && (guint64) l->size * l->stride > req->ranks)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "groups of %u members %u ranks apart span %" G_GUINT64_FORMAT
                   " ranks, more than the %u there are",
                   l->size, l->stride, (guint64) l->size * l->stride, req->ranks);
      return FALSE;
    }
  if (l->grouped && req->ranks % (l->size * l->stride) != 0)
    {
      if (l->stride == 1)
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                     "groups of %u ranks do not tile %u ranks: %u is not a multiple of %u",
                     l->size, req->ranks, req->ranks, l->size);
      else
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                     "groups of %u members %u ranks apart do not tile %u ranks: %u is not a "
                     "multiple of %u x %u",
                     l->size, l->stride, req->ranks, req->ranks, l->size, l->stride);
      return FALSE;
    }
  if (sys_coll_kind_rooted (req->kind) && req->root >= l->size)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "root %u is not a member index of a group of %u (0 to %u)", req->root,
                   l->size, l->size - 1);
      return FALSE;
    }
  if (l->grouped)
    l->groups_json = groups_json (l);
  return TRUE;
}

/* Append the rank's collectives (ids first, first+1, ...; each depending on
 * the one before, the first on `dep` when dep_n is 1). */
static gboolean
write_colls (WlChakraWriter *w, const Layout *l, guint32 rank, guint64 first, guint64 dep,
             gsize dep_n, GError **error)
{
  SysCollKind kind = l->req->kind;
  guint32 group = l->grouped ? group_of (l, rank) : 0;
  g_autofree char *pg = l->grouped ? g_strdup_printf ("%u", group) : NULL;
  ChakraProtoMsg__AttributeProto cpu = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  cpu.name = (char *) "is_cpu_op";
  cpu.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
  ChakraProtoMsg__AttributeProto type, size, pg_attr = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT,
                                             root;
  wl_chakra_attr_set_int64 (&type, "comm_type", wl_chakra_comm_type_of (kind));
  wl_chakra_attr_set_int64 (&size, "comm_size", (gint64) l->req->bytes);
  pg_attr.name = (char *) "pg_name";
  pg_attr.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  pg_attr.string_val = pg;
  /* comm_root is a rank, written as int32 like comm_src and comm_dst. */
  root = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  root.name = (char *) "comm_root";
  root.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
  root.int32_val = (gint32) (l->grouped ? member_rank (l, group, l->req->root) : l->req->root);
  ChakraProtoMsg__AttributeProto *attrs[5] = { &cpu, &type, &size };
  gsize n_attr = 3;
  if (l->grouped)
    attrs[n_attr++] = &pg_attr;
  if (sys_coll_kind_rooted (kind))
    attrs[n_attr++] = &root;

  for (guint32 c = 0; c < l->count; c++)
    {
      uint64_t prev = first + c - 1;
      ChakraProtoMsg__Node node = CHAKRA_PROTO_MSG__NODE__INIT;
      node.id = first + c;
      node.name = (char *) sys_coll_kind_name (kind);
      node.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
      node.n_attr = n_attr;
      node.attr = attrs;
      if (c > 0 || dep_n > 0)
        {
          node.n_data_deps = 1;
          node.data_deps = c > 0 ? &prev : &dep;
        }
      if (!wl_chakra_writer_add (w, &node, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
write_rank (const char *path, const Layout *l, guint32 rank, GError **error)
{
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", error);
  if (w == NULL)
    return FALSE;
  guint64 meta_id = 0;
  gboolean with_meta = l->grouped && l->req->comm_groups_out == NULL;
  if (with_meta)
    {
      ChakraProtoMsg__IOInfo in = CHAKRA_PROTO_MSG__IOINFO__INIT;
      in.values = l->groups_json;
      ChakraProtoMsg__Node meta = CHAKRA_PROTO_MSG__NODE__INIT;
      meta.id = meta_id;
      meta.name = (char *) "process_groups";
      meta.type = CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE;
      meta.inputs = &in;
      if (!wl_chakra_writer_add (w, &meta, error))
        return FALSE;
    }
  return write_colls (w, l, rank, with_meta ? 1 : 0, meta_id, with_meta ? 1 : 0, error)
         && wl_chakra_writer_close (w, error);
}

gboolean
wl_gen_collective_full (const char *prefix, const WlGenCollective *req, GError **error)
{
  g_return_val_if_fail (prefix != NULL && req != NULL, FALSE);
  g_return_val_if_fail (req->kind < SYS_COLL_N && req->ranks > 0, FALSE);
  Layout l;
  if (!layout_init (&l, req, error))
    return FALSE;
  gboolean ok = TRUE;
  for (guint32 r = 0; r < req->ranks && ok; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
      ok = write_rank (path, &l, r, error);
    }
  if (ok && req->comm_groups_out != NULL)
    ok = wl_group_list_write_comm_groups (l.groups_json != NULL ? l.groups_json : "[]",
                                          req->comm_groups_out, error);
  g_free (l.groups_json);
  return ok;
}

gboolean
wl_gen_collective (const char *prefix, SysCollKind kind, guint32 ranks, guint64 bytes,
                   GError **error)
{
  WlGenCollective req = { .kind = kind, .ranks = ranks, .bytes = bytes };
  return wl_gen_collective_full (prefix, &req, error);
}
