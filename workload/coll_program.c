/* coll_program.c: ASTRA-sim's custom collective traces read into a
 * program (coll_program.h). */
#include "workload/coll_program.h"

#include "sim/error.h"
#include "workload/chakra.h"

/* How many PREFIX.<pos>.et exist, counting from 0. */
static guint32
count_files (const char *prefix)
{
  guint32 n = 0;
  for (;; n++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, n);
      if (!g_file_test (path, G_FILE_TEST_EXISTS) || n == G_MAXUINT32 - 1)
        return n;
    }
}

/* An attribute a send or receive cannot do without. */
static gboolean
need_uint (const char *path, const ChakraProtoMsg__Node *node, const char *attr, guint64 *out,
           GError **error)
{
  GError *err = NULL;
  if (wl_chakra_attr_uint (node, attr, out, &err))
    return TRUE;
  if (err != NULL)
    g_propagate_prefixed_error (error, err, "%s: ", path);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT ": a %s needs %s",
                 path, node->id, wl_chakra_node_type_name (node->type), attr);
  return FALSE;
}

/* One node as an operation; FALSE with an error naming the node. */
static gboolean
node_spec (const char *path, const ChakraProtoMsg__Node *node, SysProgOpSpec *spec,
           GError **error)
{
  *spec = (SysProgOpSpec) { 0 };
  switch (node->type)
    {
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE:
      spec->kind = SYS_PROG_COMPUTE;
      /* Microseconds as ns x 1000; a node of no duration still takes 1 ns. */
      spec->cost = sim_time_from_ns (node->duration_micros == 0 ? 1
                                     : node->duration_micros > G_MAXUINT64 / 1000
                                         ? G_MAXUINT64
                                         : node->duration_micros * 1000);
      return TRUE;
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE:
    case CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE:
      break;
    default:
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: node %" G_GUINT64_FORMAT ": a %s, which a custom collective does not "
                   "run (COMM_SEND_NODE, COMM_RECV_NODE, COMP_NODE)",
                   path, node->id, wl_chakra_node_type_name (node->type));
      return FALSE;
    }
  gboolean send = node->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
  const char *peer_attr = send ? "comm_dst" : "comm_src";
  guint64 peer = 0, size = 0;
  gint64 tag = 0;
  if (!need_uint (path, node, peer_attr, &peer, error)
      || !need_uint (path, node, "comm_size", &size, error))
    return FALSE;
  GError *err = NULL;
  if (!wl_chakra_attr_int (node, "comm_tag", &tag, &err) && err != NULL)
    {
      g_propagate_prefixed_error (error, err, "%s: ", path);
      return FALSE;
    }
  spec->kind = send ? SYS_PROG_SEND : SYS_PROG_RECV;
  spec->peer = peer > G_MAXUINT32 ? G_MAXUINT32 : (guint32) peer;
  spec->tag = tag;
  spec->amount = size;
  return TRUE;
}

/* Dependencies of one position, by node id, once every node is in. */
static gboolean
add_deps (SysProgram *prog, guint32 pos, const char *path, GPtrArray *nodes, GHashTable *index,
          GError **error)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      const ChakraProtoMsg__Node *node = nodes->pdata[i];
      for (int list = 0; list < 2; list++)
        {
          size_t n = list == 0 ? node->n_data_deps : node->n_ctrl_deps;
          const uint64_t *deps = list == 0 ? node->data_deps : node->ctrl_deps;
          for (size_t d = 0; d < n; d++)
            {
              gpointer at;
              if (!g_hash_table_lookup_extended (index, &deps[d], NULL, &at))
                {
                  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                               "%s: node %" G_GUINT64_FORMAT " depends on node %" G_GUINT64_FORMAT
                               ", which is not in the trace (dangling dependency)",
                               path, node->id, (guint64) deps[d]);
                  return FALSE;
                }
              /* An id in both lists is one edge. */
              if (list == 1 && node->n_data_deps > 0)
                {
                  gboolean dup = FALSE;
                  for (size_t e = 0; e < node->n_data_deps && !dup; e++)
                    dup = node->data_deps[e] == deps[d];
                  if (dup)
                    continue;
                }
              sys_program_add_dep (prog, pos, i, GPOINTER_TO_UINT (at));
            }
        }
    }
  return TRUE;
}

static gboolean
load_one (SysProgram *prog, guint32 pos, const char *path, GError **error)
{
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, error);
  if (r == NULL)
    return FALSE;
  g_autoptr (GPtrArray) nodes =
      g_ptr_array_new_with_free_func ((GDestroyNotify) wl_chakra_node_free);
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  ChakraProtoMsg__Node *node;
  GError *err = NULL;
  while ((node = wl_chakra_reader_next (r, &err)) != NULL)
    {
      g_ptr_array_add (nodes, node);
      SysProgOpSpec spec;
      if (!node_spec (path, node, &spec, error))
        return FALSE;
      if (g_hash_table_contains (index, &node->id))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: node %" G_GUINT64_FORMAT ": the id appears twice in the trace "
                       "(duplicate id)", path, node->id);
          return FALSE;
        }
      g_autofree char *label = g_strdup_printf ("%s: node %" G_GUINT64_FORMAT " (%s)", path,
                                                node->id, node->name != NULL ? node->name : "");
      guint32 op = sys_program_add (prog, pos, &spec, label);
      g_hash_table_insert (index, g_memdup2 (&node->id, sizeof node->id), GUINT_TO_POINTER (op));
    }
  if (err != NULL)
    {
      g_propagate_error (error, err);
      return FALSE;
    }
  return add_deps (prog, pos, path, nodes, index, error);
}

SysProgram *
wl_coll_program_load_et (const char *prefix, const char *name, GError **error)
{
  guint32 n = count_files (prefix);
  if (n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s.0.et: no such file (a custom collective is one Chakra trace per rank, "
                   "PREFIX.<rank>.et)", prefix);
      return NULL;
    }
  g_autofree char *source = g_strdup_printf ("%s.{0..%u}.et", prefix, n - 1);
  SysProgram *prog = sys_program_new (name, source, n, SYS_PROG_TIMING_P2P, 0);
  sys_program_set_rank_files (prog, prefix, ".et");
  for (guint32 pos = 0; pos < n; pos++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, pos);
      if (!load_one (prog, pos, path, error))
        {
          sys_program_free (prog);
          return NULL;
        }
    }
  if (!sys_program_seal (prog, error))
    {
      sys_program_free (prog);
      return NULL;
    }
  return prog;
}
