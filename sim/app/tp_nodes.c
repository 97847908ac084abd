/* tp_nodes.c: the run's warning when a tensor-parallel group spans nodes
 * (tp_nodes.h). */
#include "sim/app/tp_nodes.h"

#include "network/net.h"
#include "system/sys.h"
#include "workload/graph.h"
#include "workload/replay.h"

/* The first TP group found that spans nodes, and how many do. */
typedef struct
{
  guint spanning;
  guint64 group;
  const char *name; /* its collective's name */
  guint32 ranks, nodes, first, last;
} TpSpan;

/* How many distinct nodes of G GPUs RANKS[0 .. N-1] lie on. */
static guint32
count_nodes (const guint32 *ranks, guint32 n, guint32 g)
{
  g_autoptr (GHashTable) nodes = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint32 i = 0; i < n; i++)
    g_hash_table_add (nodes, GUINT_TO_POINTER (ranks[i] / g + 1u));
  return g_hash_table_size (nodes);
}

/* The TP collectives of GRAPH, each group once (SEEN). */
static void
scan_graph (AppSim *sim, const WlGraph *graph, guint32 g, GHashTable *seen, TpSpan *out)
{
  WlReplay *replay = app_sim_replay (sim);
  guint32 hint = 0;
  WlNode tmp;
  /* A compact graph's ops and names are its base's: only its TP
   * collectives are read with its own groups (wl_graph_node_at renames
   * each node it gives, 6 % of Megatron's 1T row when asked for all). */
  const WlNode *shape = wl_graph_shape_nodes (graph);
  /* A full graph's or a rename table's collective whose base group and
   * system group are the last one's has its group (a table renames by
   * the base's group): seen already. */
  gboolean by_base = graph->nodes != NULL || graph->table != NULL;
  const WlNode *prev = NULL;
  for (guint32 i = 0; i < graph->n_nodes; i++)
    {
      if (shape[i].op != WL_OP_COLL || !g_str_has_prefix (graph->names[i], "tp_"))
        continue;
      if (by_base && prev != NULL && shape[i].group == prev->group
          && shape[i].sys_group_index == prev->sys_group_index)
        continue;
      prev = &shape[i];
      const WlNode *node = wl_graph_node_at (graph, i, &hint, &tmp);
      guint64 id = wl_replay_node_group (replay, node);
      if (g_hash_table_contains (seen, &id))
        continue;
      g_hash_table_add (seen, g_memdup2 (&id, sizeof id));
      /* The world (a group of every rank is bound to it) is ranks 0 .. n-1. */
      guint32 n = wl_replay_ranks (replay), nodes = (n + g - 1) / g, first = 0, last = n - 1;
      const guint32 *ranks = NULL;
      if (id != SYS_GROUP_WORLD && (ranks = sys_group_ranks (app_sim_sys (sim), id, &n)) != NULL)
        {
          nodes = count_nodes (ranks, n, g);
          first = ranks[0];
          last = ranks[n - 1];
        }
      if (nodes < 2 || out->spanning++ > 0)
        continue;
      *out = (TpSpan) { .spanning = 1, .group = id, .name = graph->names[i], .ranks = n,
                        .nodes = nodes, .first = first, .last = last };
    }
}

void
app_tp_nodes_warn (AppSim *sim, FILE *out)
{
  guint32 g = net_node_gpus (app_sim_net (sim));
  WlReplay *replay = app_sim_replay (sim);
  if (app_sim_config (sim)->astra_mode || g < 2 || wl_replay_streamed (replay))
    return;
  g_autoptr (GHashTable) graphs = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  TpSpan span = { 0 };
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlGraph *graph = wl_replay_graph_compact (replay, r);
      if (graph == NULL || !g_hash_table_add (graphs, (gpointer) graph))
        continue;
      scan_graph (sim, graph, g, seen, &span);
    }
  if (span.spanning == 0)
    return;
  g_autofree char *group = span.group == SYS_GROUP_WORLD
                               ? g_strdup ("the world group")
                               : g_strdup_printf ("group %" G_GUINT64_FORMAT, span.group);
  fprintf (out,
           "orrery run: warning: %u TP group%s span%s nodes of %u GPUs (the first, of "
           "\"%s\": %s, %u ranks r%u .. r%u on %u nodes): tensor parallelism crosses the NICs "
           "every layer; give gen transformer --tp %u or less (a node is a line of %u ranks of "
           "the innermost dimension)\n",
           span.spanning, span.spanning == 1 ? "" : "s", span.spanning == 1 ? "s" : "", g,
           span.name, group, span.ranks, span.first, span.last, span.nodes, g, g);
}
