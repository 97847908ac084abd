/* replay_floor.c: the least time any rank's compute nodes keep it busy,
 * priced before the run (wl_replay_compute_floor, replay.h). */
#include "workload/replay_private.h"

/* The sum of the times of RANK's COMP nodes, as the run prices them. */
static SimTime
rank_compute (const WlRank *k)
{
  SimTime sum = 0;
  const WlGraph *g = k->graph;
  /* Compute nodes name no ranks: a compact graph's are its base's. */
  const WlNode *nodes = wl_graph_shape_nodes (g);
  for (guint32 i = 0; i < g->n_nodes; i++)
    if (nodes[i].op == WL_OP_COMP)
      sum = sim_time_add (sum, wl_replay_compute_time (k, &nodes[i]));
  return sum;
}

SimTime
wl_replay_compute_floor (const WlReplay *replay)
{
  g_return_val_if_fail (replay != NULL, 0);
  SimTime most = 0;
  /* Renamed graphs (wl_graph_renamed) differ from their base only in the
   * ranks and groups their nodes name, so they cost what it costs at the
   * same speed: each (base graph, speed) is summed once. */
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  for (guint32 r = 0; r < replay->n_ranks; r++)
    {
      const WlRank *k = &replay->ranks[r];
      if (k->graph == NULL)
        return 0; /* streamed: its nodes are not all here */
      const WlGraph *base = k->graph->base != NULL ? k->graph->base : k->graph;
      gpointer at = g_hash_table_lookup (seen, base);
      if (at != NULL && *(const double *) at == k->speed)
        continue;
      if (at == NULL)
        g_hash_table_insert (seen, (gpointer) base, (gpointer) &k->speed);
      most = MAX (most, rank_compute (k));
    }
  return most / MAX (replay->params.slots_comp, 1u);
}
