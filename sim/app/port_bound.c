/* port_bound.c: the ports bound of each process group (port_bound.h). */
#include "sim/app/port_bound.h"

#include <math.h>

/* What the members of one group span: the dimensions in which some member's
 * coordinate differs from the first member's, and (explicit graphs) the
 * smallest egress bandwidth of a member. */
typedef struct
{
  guint32 first;
  guint32 span;
  double min_out_Bps;
} GroupSpan;

struct _AppPortBounds
{
  const NetTopo *topo;
  double *out_Bps;      /* explicit graphs: per rank, its outgoing links' sum */
  GHashTable *groups;   /* guint64* group id -> GroupSpan* */
  gboolean complete;    /* every rank's trace graph was there to read */
};

static void
graph_egress (AppPortBounds *b, NetGraph *graph)
{
  guint32 ranks = net_topo_ranks (b->topo);
  b->out_Bps = g_new0 (double, ranks);
  for (guint32 l = 0; l < net_graph_links (graph); l++)
    {
      const NetGraphLink *link = net_graph_link (graph, l);
      if (link->from < ranks)
        b->out_Bps[link->from] += link->bandwidth_Bps;
    }
}

/* The nodes of GRAPH that graph_groups visits: when a table renames it,
 * its base's wl_graph_group_firsts (cached in FIRSTS, by base); else NULL
 * (every node). */
static const GArray *
nodes_to_visit (const WlGraph *graph, GHashTable *firsts)
{
  if (graph->nodes != NULL || graph->table == NULL)
    return NULL;
  GArray *a = g_hash_table_lookup (firsts, graph->base);
  if (a == NULL)
    g_hash_table_insert (firsts, graph->base, a = wl_graph_group_firsts (graph->base));
  return a;
}

/* graph_groups' walk over a graph's collectives. */
typedef struct
{
  const WlReplay *replay;
  const WlGraph *graph;
  GArray *ids;         /* the groups found (guint64) */
  guint64 last;        /* the last group found */
  guint32 hint;        /* wl_graph_group_index_at's */
  guint32 last_index;  /* the last collective's group index */
} GroupWalk;

/* Collective I of W's graph: its group noted, when new.  A trace uses a
 * handful of groups: a linear search, after a check of the last one
 * found, is enough. */
static inline void
walk_coll (GroupWalk *w, guint32 i)
{
  guint32 index = wl_graph_group_index_at (w->graph, i, &w->hint);
  if (index == w->last_index)
    return; /* its group is LAST, or the world */
  w->last_index = index;
  guint64 g = wl_replay_group_at (w->replay, index);
  if (g == SYS_GROUP_WORLD || g == w->last)
    return;
  w->last = g;
  guint j = 0;
  while (j < w->ids->len && g_array_index (w->ids, guint64, j) != g)
    j++;
  if (j == w->ids->len)
    g_array_append_val (w->ids, g);
}

/* The distinct groups other than the world that GRAPH's collectives run on
 * (a new array of guint64), FIRSTS as nodes_to_visit's. */
static GArray *
graph_groups (const WlReplay *replay, const WlGraph *graph, GHashTable *firsts)
{
  GroupWalk w = { .replay = replay, .graph = graph, .last = SYS_GROUP_WORLD,
                  .last_index = G_MAXUINT32 };
  w.ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* Ops are the shape's (a compact graph names other groups, nothing
   * else): only the collectives' group indices are read, and the group of
   * an index only when it is not the last one's (runs of one group). */
  const WlNode *shape = wl_graph_shape_nodes (graph);
  const GArray *visit = nodes_to_visit (graph, firsts);
  if (visit != NULL)
    for (guint32 e = 0; e < visit->len; e++)
      walk_coll (&w, g_array_index (visit, guint32, e));
  else
    for (guint32 i = 0; i < graph->n_nodes; i++)
      if (shape[i].op == WL_OP_COLL)
        walk_coll (&w, i);
  return w.ids;
}

static void
add_member (AppPortBounds *b, guint64 group, guint32 rank)
{
  GroupSpan *s = g_hash_table_lookup (b->groups, &group);
  double out = b->out_Bps != NULL ? b->out_Bps[rank] : INFINITY;
  if (s == NULL)
    {
      s = g_new0 (GroupSpan, 1);
      *s = (GroupSpan) { .first = rank, .span = 0, .min_out_Bps = out };
      g_hash_table_insert (b->groups, g_memdup2 (&group, sizeof group), s);
      return;
    }
  s->min_out_Bps = MIN (s->min_out_Bps, out);
  for (guint d = 0; d < net_topo_dims (b->topo); d++)
    if (net_topo_coord (b->topo, rank, d) != net_topo_coord (b->topo, s->first, d))
      s->span |= 1u << d;
}

AppPortBounds *
app_port_bounds_new (const AppSim *sim)
{
  g_return_val_if_fail (sim != NULL, NULL);
  AppPortBounds *b = g_new0 (AppPortBounds, 1);
  b->topo = app_sim_topo (sim);
  b->groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  b->complete = TRUE;
  if (net_topo_graph (b->topo) != NULL)
    graph_egress (b, net_topo_graph (b->topo));
  WlReplay *replay = app_sim_replay (sim);
  /* Ranks with byte-identical traces share a graph: read each once. */
  g_autoptr (GHashTable) per_graph = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                            (GDestroyNotify) g_array_unref);
  g_autoptr (GHashTable) firsts = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL,
                                                         (GDestroyNotify) g_array_unref);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlGraph *graph = wl_replay_graph_compact (replay, r);
      if (graph == NULL)
        {
          b->complete = FALSE;
          break;
        }
      GArray *ids = g_hash_table_lookup (per_graph, graph);
      if (ids == NULL)
        {
          ids = graph_groups (replay, graph, firsts);
          g_hash_table_insert (per_graph, (gpointer) graph, ids);
        }
      for (guint i = 0; i < ids->len; i++)
        add_member (b, g_array_index (ids, guint64, i), r);
    }
  return b;
}

void
app_port_bounds_free (AppPortBounds *b)
{
  if (b == NULL)
    return;
  g_hash_table_unref (b->groups);
  g_free (b->out_Bps);
  g_free (b);
}

gboolean
app_port_bound (const AppPortBounds *b, guint64 group, double *out_Bps)
{
  g_return_val_if_fail (b != NULL && out_Bps != NULL, FALSE);
  const NetSpec *spec = net_topo_spec (b->topo);
  guint32 span = 0;
  double min_out = INFINITY;
  if (group == SYS_GROUP_WORLD)
    {
      for (guint d = 0; d < spec->n_dims; d++)
        if (spec->dims[d].size > 1)
          span |= 1u << d;
      for (guint32 r = 0; b->out_Bps != NULL && r < net_topo_ranks (b->topo); r++)
        min_out = MIN (min_out, b->out_Bps[r]);
    }
  else
    {
      const GroupSpan *s = b->complete ? g_hash_table_lookup (b->groups, &group) : NULL;
      if (s == NULL)
        return FALSE;
      span = s->span;
      min_out = s->min_out_Bps;
    }
  if (b->out_Bps != NULL)
    return (*out_Bps = min_out, TRUE);
  double sum = 0;
  for (guint d = 0; d < spec->n_dims; d++)
    if (span & (1u << d))
      sum += net_dim_port_Bps (&spec->dims[d]);
  *out_Bps = sum;
  return TRUE;
}

gboolean
app_port_exceeds (const AppPortBounds *b, guint64 group, gboolean in_network, double bus_Bps,
                  double *bound_Bps)
{
  *bound_Bps = 0;
  if (!app_port_bound (b, group, bound_Bps) || in_network)
    return FALSE;
  /* Times are whole picoseconds rounded up, so an honest model stays at or
   * below the bound; the margin absorbs the division's last bits. */
  return bus_Bps > *bound_Bps * (1.0 + 1e-9);
}
