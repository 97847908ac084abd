/* gen.c: the collective microbenchmark generator. */
#include "workload/gen.h"

#include "workload/chakra.h"

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

static gboolean
write_rank (const char *path, SysCollKind kind, guint64 bytes, GError **error)
{
  ChakraProtoMsg__AttributeProto type_attr = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  type_attr.name = (char *) "comm_type";
  type_attr.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  type_attr.int64_val = wl_chakra_comm_type_of (kind);
  ChakraProtoMsg__AttributeProto size_attr = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  size_attr.name = (char *) "comm_size";
  size_attr.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  size_attr.int64_val = (gint64) bytes;
  ChakraProtoMsg__AttributeProto cpu_attr = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  cpu_attr.name = (char *) "is_cpu_op";
  cpu_attr.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
  cpu_attr.bool_val = FALSE;
  ChakraProtoMsg__AttributeProto *attrs[] = { &cpu_attr, &type_attr, &size_attr };

  ChakraProtoMsg__Node node = CHAKRA_PROTO_MSG__NODE__INIT;
  node.id = 0;
  node.name = (char *) sys_coll_kind_name (kind);
  node.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
  node.n_attr = G_N_ELEMENTS (attrs);
  node.attr = attrs;

  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", error);
  return w != NULL && wl_chakra_writer_add (w, &node, error) && wl_chakra_writer_close (w, error);
}

gboolean
wl_gen_collective (const char *prefix, SysCollKind kind, guint32 ranks, guint64 bytes,
                   GError **error)
{
  g_return_val_if_fail (prefix != NULL && kind < SYS_COLL_N && ranks > 0, FALSE);
  for (guint32 r = 0; r < ranks; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
      if (!write_rank (path, kind, bytes, error))
        return FALSE;
    }
  return TRUE;
}
