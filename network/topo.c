/* topo.c: dimension-structured topologies: coordinates, routes, hop counts. */
#include "network/topo.h"

#include <math.h>

#include "sim/error.h"

struct _NetTopo
{
  NetSpec spec;
  guint32 ranks;
  guint32 stride[NET_MAX_DIMS];
  NetGraph *graph;
  /* Every rank's coordinates, rank-major ([rank * n_dims + d]): routing
   * compares them for every message.  NULL past 2^22 entries (then
   * computed). */
  guint32 *coord;
  /* The Net layer's route prices over graph (net_topo_path_cache), or
   * NULL until a Net asks. */
  gpointer path_cache;
};

static const char *const dim_kind_names[] = { "Ring", "FullyConnected", "Switch" };



const char *
net_dim_kind_name (NetDimKind kind)
{
  return (guint) kind < G_N_ELEMENTS (dim_kind_names) ? dim_kind_names[kind] : "unknown";
}

gboolean
net_dim_kind_parse (const char *name, NetDimKind *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (dim_kind_names); i++)
    if (g_ascii_strcasecmp (name, dim_kind_names[i]) == 0)
      {
        *out = (NetDimKind) i;
        return TRUE;
      }
  return FALSE;
}

NetTopo *
net_topo_new (const NetSpec *spec, GError **error)
{
  g_return_val_if_fail (spec != NULL, NULL);
  if (spec->n_dims == 0 || spec->n_dims > NET_MAX_DIMS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "topology has %u dimensions; 1 to %d are supported", spec->n_dims,
                   NET_MAX_DIMS);
      return NULL;
    }
  guint64 ranks = 1;
  guint32 stride[NET_MAX_DIMS];
  for (guint d = 0; d < spec->n_dims; d++)
    {
      const NetDimSpec *dim = &spec->dims[d];
      if (dim->size == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "dimension %u has size 0", d);
          return NULL;
        }
      if (!(dim->bandwidth_Bps > 0.0) || !isfinite (dim->bandwidth_Bps))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "dimension %u: bandwidth must be a positive number of bytes/s", d);
          return NULL;
        }
      stride[d] = (guint32) ranks;
      ranks *= dim->size;
      if (ranks > NET_MAX_RANKS)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "topology has %" G_GUINT64_FORMAT " ranks or more (dimension %u makes "
                       "it); at most " NET_MAX_RANKS_TEXT " are supported", ranks, d);
          return NULL;
        }
    }
  NetGraph *graph = NULL;
  if (spec->graph != NULL)
    {
      if (spec->graph->ranks != ranks)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: the graph has %u ranks but the dimensions make %" G_GUINT64_FORMAT,
                       spec->graph->source ? spec->graph->source : "network", spec->graph->ranks,
                       ranks);
          return NULL;
        }
      if ((graph = net_graph_new (spec->graph, error)) == NULL)
        return NULL;
    }
  NetTopo *topo = g_new0 (NetTopo, 1);
  topo->spec = *spec;
  topo->spec.graph = NULL; /* the copy in topo->graph is the one used */
  topo->graph = graph;
  topo->ranks = (guint32) ranks;
  for (guint d = 0; d < spec->n_dims; d++)
    topo->stride[d] = stride[d];
  if (ranks * spec->n_dims <= (1u << 22))
    {
      topo->coord = g_new (guint32, ranks * spec->n_dims);
      for (guint32 r = 0; r < topo->ranks; r++)
        for (guint d = 0; d < spec->n_dims; d++)
          topo->coord[(gsize) r * spec->n_dims + d] = (r / stride[d]) % spec->dims[d].size;
    }
  return topo;
}

void
net_topo_free (NetTopo *topo)
{
  if (topo == NULL)
    return;
  net_graph_free (topo->graph);
  g_free (topo->coord);
  g_free (topo->path_cache);
  g_free (topo);
}

gpointer *
net_topo_path_cache (const NetTopo *topo)
{
  return &((NetTopo *) topo)->path_cache;
}

NetGraph *
net_topo_graph (const NetTopo *topo)
{
  return topo->graph;
}

const NetSpec *
net_topo_spec (const NetTopo *topo)
{
  return &topo->spec;
}

guint32
net_topo_ranks (const NetTopo *topo)
{
  return topo->ranks;
}

guint
net_topo_dims (const NetTopo *topo)
{
  return topo->spec.n_dims;
}

guint32
net_topo_dim_size (const NetTopo *topo, guint dim)
{
  g_assert (dim < topo->spec.n_dims);
  return topo->spec.dims[dim].size;
}

guint32
net_topo_stride (const NetTopo *topo, guint dim)
{
  g_assert (dim < topo->spec.n_dims);
  return topo->stride[dim];
}

guint32
net_topo_coord (const NetTopo *topo, guint32 rank, guint dim)
{
  g_assert (dim < topo->spec.n_dims && rank < topo->ranks);
  return (rank / topo->stride[dim]) % topo->spec.dims[dim].size;
}

/* Peel coordinates off innermost first: one division and one remainder per
 * dimension until the first that differs. */
guint
net_topo_route (const NetTopo *topo, guint32 src, guint32 dst, guint32 *hops)
{
  g_assert (src != dst);
  guint nd = topo->spec.n_dims;
  guint d = 0;
  guint32 ca = 0, cb = 0;
  if (topo->coord != NULL)
    {
      const guint32 *xa = &topo->coord[(gsize) src * nd], *xb = &topo->coord[(gsize) dst * nd];
      while (d < nd && xa[d] == xb[d])
        d++;
      if (d < nd)
        {
          ca = xa[d];
          cb = xb[d];
        }
    }
  else
    {
      for (guint32 a = src, b = dst; d < nd; d++)
        {
          guint32 n = topo->spec.dims[d].size;
          if ((ca = a % n) != (cb = b % n))
            break;
          a /= n;
          b /= n;
        }
    }
  g_assert (d < nd);
  if (hops != NULL)
    *hops = net_dim_hops (&topo->spec.dims[d], ca, cb);
  return d;
}

guint
net_topo_route_on (const NetTopo *topo, guint dim, guint32 src, guint32 dst, guint32 *hops)
{
  if (dim == NET_DIM_UNKNOWN)
    return net_topo_route (topo, src, dst, hops);
  g_assert (dim < topo->spec.n_dims && src != dst);
  guint32 ca, cb;
  if (topo->coord != NULL)
    {
      ca = topo->coord[(gsize) src * topo->spec.n_dims + dim];
      cb = topo->coord[(gsize) dst * topo->spec.n_dims + dim];
    }
  else
    {
      ca = (src / topo->stride[dim]) % topo->spec.dims[dim].size;
      cb = (dst / topo->stride[dim]) % topo->spec.dims[dim].size;
    }
  *hops = net_dim_hops (&topo->spec.dims[dim], ca, cb);
  return dim;
}

const guint32 *
net_topo_coords (const NetTopo *topo)
{
  return topo->coord;
}

guint
net_topo_route_dim (const NetTopo *topo, guint32 src, guint32 dst)
{
  return net_topo_route (topo, src, dst, NULL);
}

guint32
net_topo_hops (const NetTopo *topo, guint32 src, guint32 dst)
{
  guint32 hops = 0;
  net_topo_route (topo, src, dst, &hops);
  return hops;
}
