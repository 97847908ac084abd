/* graph.c: explicit network graphs, checked, with cached shortest paths. */
#include "network/graph.h"

#include <math.h>

#include "sim/error.h"

NetGraphSpec *
net_graph_spec_new (guint32 ranks)
{
  NetGraphSpec *s = g_new0 (NetGraphSpec, 1);
  s->ranks = ranks;
  s->links = g_array_new (FALSE, FALSE, sizeof (NetGraphLink));
  s->names = g_ptr_array_new_with_free_func (g_free);
  for (guint32 r = 0; r < ranks; r++)
    g_ptr_array_add (s->names, g_strdup_printf ("r%u", r));
  return s;
}

void
net_graph_spec_free (NetGraphSpec *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->links);
  g_ptr_array_unref (s->names);
  g_free (s->source);
  g_free (s);
}

NetGraphSpec *
net_graph_spec_copy (const NetGraphSpec *s)
{
  NetGraphSpec *c = net_graph_spec_new (0);
  c->ranks = s->ranks;
  c->switches = s->switches;
  g_array_append_vals (c->links, s->links->data, s->links->len);
  for (guint i = 0; i < s->names->len; i++)
    g_ptr_array_add (c->names, g_strdup (s->names->pdata[i]));
  c->source = g_strdup (s->source);
  return c;
}

guint32
net_graph_spec_add_switch (NetGraphSpec *s, const char *name)
{
  g_ptr_array_add (s->names, g_strdup (name));
  return s->ranks + s->switches++;
}

void
net_graph_spec_add_link (NetGraphSpec *s, guint32 from, guint32 to, double bandwidth_Bps,
                         SimTime latency, gboolean duplex, guint line)
{
  NetGraphLink l = { from, to, bandwidth_Bps, latency, line };
  g_array_append_val (s->links, l);
  if (duplex)
    {
      NetGraphLink back = { to, from, bandwidth_Bps, latency, line };
      g_array_append_val (s->links, back);
    }
}

struct _NetGraph
{
  NetGraphSpec *spec;
  guint32 devices;
  guint32 *out_start; /* CSR: links leaving device v: out_links[out_start[v] ..] */
  guint32 *out_links;
  guint32 **dist;     /* per destination rank, created on first use: hops to it */
};

static gboolean
graph_check_links (const NetGraphSpec *s, guint32 devices, GError **error)
{
  for (guint i = 0; i < s->links->len; i++)
    {
      const NetGraphLink *l = &g_array_index (s->links, NetGraphLink, i);
      const char *what = NULL;
      if (l->from >= devices || l->to >= devices)
        what = "names a device that does not exist";
      else if (l->from == l->to)
        what = "connects a device to itself";
      else if (!(l->bandwidth_Bps > 0.0) || !isfinite (l->bandwidth_Bps))
        what = "needs a positive bandwidth";
      if (what != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: link %s",
                       s->source ? s->source : "network", l->line, what);
          return FALSE;
        }
    }
  return TRUE;
}

/* Hops from every device to `to`, following links forwards (a BFS over the
 * reversed links from `to`). */
static guint32 *
graph_bfs_to (const NetGraph *g, guint32 to)
{
  guint32 *dist = g_new (guint32, g->devices);
  for (guint32 v = 0; v < g->devices; v++)
    dist[v] = G_MAXUINT32;
  /* Reverse adjacency built on the fly: scan all links per level.  Graphs
   * here are small; the result is cached per destination. */
  dist[to] = 0;
  gboolean changed = TRUE;
  for (guint32 level = 0; changed; level++)
    {
      changed = FALSE;
      for (guint i = 0; i < g->spec->links->len; i++)
        {
          const NetGraphLink *l = &g_array_index (g->spec->links, NetGraphLink, i);
          if (dist[l->to] == level && dist[l->from] == G_MAXUINT32)
            {
              dist[l->from] = level + 1;
              changed = TRUE;
            }
        }
    }
  return dist;
}

NetGraph *
net_graph_new (const NetGraphSpec *spec, GError **error)
{
  guint32 devices = spec->ranks + spec->switches;
  if (!graph_check_links (spec, devices, error))
    return NULL;
  g_autoptr (NetGraph) g = g_new0 (NetGraph, 1);
  g->spec = net_graph_spec_copy (spec);
  g->devices = devices;
  g->out_start = g_new0 (guint32, devices + 1);
  g->out_links = g_new (guint32, MAX (spec->links->len, 1u));
  for (guint i = 0; i < spec->links->len; i++)
    g->out_start[g_array_index (spec->links, NetGraphLink, i).from + 1]++;
  for (guint32 v = 0; v < devices; v++)
    g->out_start[v + 1] += g->out_start[v];
  g_autofree guint32 *fill = g_memdup2 (g->out_start, devices * sizeof (guint32));
  for (guint i = 0; i < spec->links->len; i++)
    g->out_links[fill[g_array_index (spec->links, NetGraphLink, i).from]++] = i;
  g->dist = g_new0 (guint32 *, spec->ranks);
  /* Every rank must reach every other: all reach rank 0, and rank 0 reaches
   * all (a BFS to rank 0, and checks of the routes from it below). */
  g->dist[0] = graph_bfs_to (g, 0);
  for (guint32 r = 1; r < spec->ranks; r++)
    {
      if (g->dist[0][r] == G_MAXUINT32)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: the network is not connected: %s cannot reach %s",
                       spec->source ? spec->source : "network", net_graph_name (g, r),
                       net_graph_name (g, 0));
          return NULL;
        }
      g->dist[r] = graph_bfs_to (g, r);
      if (g->dist[r][0] == G_MAXUINT32)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: the network is not connected: %s cannot reach %s",
                       spec->source ? spec->source : "network", net_graph_name (g, 0),
                       net_graph_name (g, r));
          return NULL;
        }
    }
  return g_steal_pointer (&g);
}

void
net_graph_free (NetGraph *g)
{
  if (g == NULL)
    return;
  for (guint32 r = 0; g->dist != NULL && r < g->spec->ranks; r++)
    g_free (g->dist[r]);
  g_free (g->dist);
  g_free (g->out_start);
  g_free (g->out_links);
  net_graph_spec_free (g->spec);
  g_free (g);
}

guint32
net_graph_links (const NetGraph *g)
{
  return g->spec->links->len;
}

const NetGraphLink *
net_graph_link (const NetGraph *g, guint32 link)
{
  return &g_array_index (g->spec->links, NetGraphLink, link);
}

const char *
net_graph_name (const NetGraph *g, guint32 device)
{
  return device < g->spec->names->len ? g->spec->names->pdata[device] : "?";
}

static guint32 *
graph_dist (NetGraph *g, guint32 dst)
{
  if (g->dist[dst] == NULL)
    g->dist[dst] = graph_bfs_to (g, dst);
  return g->dist[dst];
}

guint32
net_graph_next (NetGraph *g, guint32 at, guint32 src, guint32 dst)
{
  const guint32 *dist = graph_dist (g, dst);
  g_assert (at != dst && dist[at] != G_MAXUINT32);
  guint32 candidates = 0;
  for (guint32 i = g->out_start[at]; i < g->out_start[at + 1]; i++)
    candidates += dist[net_graph_link (g, g->out_links[i])->to] + 1 == dist[at];
  g_assert (candidates > 0);
  /* A stable hash of the pair and the device picks among equal-cost next
   * links (splitmix64's finalizer: every input bit moves every output bit). */
  guint64 h = ((guint64) src << 42) ^ ((guint64) dst << 21) ^ at;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  guint32 pick = (guint32) (h % candidates);
  for (guint32 i = g->out_start[at]; i < g->out_start[at + 1]; i++)
    {
      guint32 l = g->out_links[i];
      if (dist[net_graph_link (g, l)->to] + 1 == dist[at] && pick-- == 0)
        return l;
    }
  g_assert_not_reached ();
  return 0;
}

guint32
net_graph_hops (NetGraph *g, guint32 src, guint32 dst)
{
  return graph_dist (g, dst)[src];
}
