/* net.c: the link-model registry and the send entry point. */
#include "network/net.h"

#include <math.h>

#include "network/net_private.h"
#include "sim/error.h"
#include "sim/registry.h"

static const NetModelClass *const builtin[] = {
  [NET_MODEL_ANALYTICAL] = &net_analytical_class,
  [NET_MODEL_CONGESTION] = &net_congestion_class,
  [NET_MODEL_FLOW] = &net_flow_class,
};

static SimRegistry registry = SIM_REGISTRY_INIT (builtin);

guint
net_model_count (void)
{
  return sim_registry_count (&registry);
}

const NetModelClass *
net_model_class (NetModelKind kind)
{
  return sim_registry_nth (&registry, (guint) kind);
}

gboolean
net_model_parse (const char *name, NetModelKind *out)
{
  const NetModelClass *klass;
  for (guint i = 0; (klass = net_model_class ((NetModelKind) i)) != NULL; i++)
    if (g_ascii_strcasecmp (name, klass->name) == 0)
      {
        *out = (NetModelKind) i;
        return TRUE;
      }
  return FALSE;
}

const char *
net_model_name_of (NetModelKind kind)
{
  const NetModelClass *klass = net_model_class (kind);
  return klass != NULL ? klass->name : "unknown";
}

/* Names are matched without case, as net_model_parse reads them. */
static gboolean
same_model (const void *row, const void *other)
{
  return g_ascii_strcasecmp (((const NetModelClass *) row)->name,
                             ((const NetModelClass *) other)->name) == 0;
}

gboolean
net_model_register (const NetModelClass *klass, NetModelKind *kind_out, GError **error)
{
  g_return_val_if_fail (klass != NULL && klass->name != NULL && klass->send != NULL, FALSE);
  const SimRegistryName name = { "link model", klass->name };
  guint kind;
  if (!sim_registry_add (&registry, klass, same_model, &name, &kind, error))
    return FALSE;
  if (kind_out != NULL)
    *kind_out = (NetModelKind) kind;
  return TRUE;
}

Net *
net_new (SimSched *sched, const NetTopo *topo, GError **error)
{
  g_return_val_if_fail (sched != NULL && topo != NULL, NULL);
  NetModelKind kind = net_topo_spec (topo)->model;
  const NetModelClass *klass = net_model_class (kind);
  if (klass == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "unknown network model %d", (int) kind);
      return NULL;
    }
  return net_new_with_model (sched, topo, klass, error);
}

/* Whether the innermost dimension is a node's GPUs (net_left_node). */
static gboolean
dim0_is_node (const NetSpec *spec)
{
  if (spec->n_dims == 0 || spec->dims[0].size < 2)
    return FALSE;
  NetLinkKind k = spec->dims[0].link;
  return k == NET_LINK_NVLINK || k == NET_LINK_PCIE || (k == NET_LINK_DEFAULT && spec->n_dims >= 2);
}

/* device_node (net_private.h): a rank's node is its line of the innermost
 * dimension; a switch's, the one node every link of it reaches. */
static void
index_nodes (Net *net)
{
  const guint32 none = G_MAXUINT32, unseen = G_MAXUINT32 - 1;
  if (net->graph == NULL || !dim0_is_node (net->spec))
    return;
  guint32 links = net_graph_links (net->graph), ranks = net_topo_ranks (net->topo);
  guint32 devices = ranks, g = net->spec->dims[0].size;
  for (guint32 l = 0; l < links; l++)
    devices = MAX (devices, MAX (net_graph_link (net->graph, l)->to,
                                 net_graph_link (net->graph, l)->from) + 1);
  guint32 *node = g_new (guint32, devices);
  for (guint32 d = 0; d < devices; d++)
    node[d] = d < ranks ? d / g : unseen;
  for (guint32 l = 0; l < links; l++)
    {
      const NetGraphLink *link = net_graph_link (net->graph, l);
      guint32 ends[2][2] = { { link->from, link->to }, { link->to, link->from } };
      for (guint e = 0; e < 2; e++)
        {
          guint32 sw = ends[e][0], other = ends[e][1];
          if (sw < ranks)
            continue;
          guint32 want = other < ranks ? other / g : none;
          node[sw] = node[sw] == unseen || node[sw] == want ? want : none;
        }
    }
  for (guint32 d = ranks; d < devices; d++)
    if (node[d] == unseen)
      node[d] = none;
  net->node_gpus = g;
  net->device_node = node;
}

Net *
net_new_with_model (SimSched *sched, const NetTopo *topo, const NetModelClass *klass,
                    GError **error)
{
  g_return_val_if_fail (sched != NULL && topo != NULL && klass != NULL, NULL);
  Net *net = g_new0 (Net, 1);
  net->sched = sched;
  net->topo = topo;
  net->spec = net_topo_spec (topo);
  net->graph = net_topo_graph (topo);
  net->coord = net_topo_coords (topo);
  net->clock = sim_sched_clock (sched);
  net->coord_routes = net->graph == NULL && net->coord != NULL;
  net->span_routes = net->graph == NULL && !net->spec->innermost_route;
  net->klass = klass;
  index_nodes (net);
  if (klass->create != NULL && (net->state = klass->create (net, error)) == NULL)
    {
      g_free (net);
      return NULL;
    }
  return net;
}

void
net_free (Net *net)
{
  if (net == NULL)
    return;
  if (net->klass->destroy != NULL)
    net->klass->destroy (net->state);
  g_free (net->in_ordinal);
  g_free (net->in_first);
  g_free (net->in_links);
  g_free (net->device_node);
  g_free (net->class_size);
  g_free (net);
}

const NetTopo *
net_topo (const Net *net)
{
  return net->topo;
}

SimSched *
net_sched (const Net *net)
{
  return net->sched;
}

const char *
net_model_name (const Net *net)
{
  return net->klass->name;
}

const NetModelClass *
net_model (const Net *net)
{
  return net->klass;
}

NetSharing
net_sharing (const Net *net)
{
  return net->klass->sharing_of != NULL ? net->klass->sharing_of (net->state) : net->klass->sharing;
}

void
net_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes, SimHandler on_delivered,
          gpointer data, guint64 arg)
{
  g_assert (src != dst);
  g_assert (at >= sim_sched_now (net->sched));
  net_note_node (net, src, dst);
  net->tally.messages++;
  net->tally.bytes += bytes;
  net->klass->send (net, at, src, dst, bytes, on_delivered, data, arg);
}

/* Number every link among the links into its device (graphs). */
static void
index_in_links (Net *net)
{
  const NetGraph *graph = net_topo_graph (net->topo);
  guint32 links = net_graph_links (graph), devices = 0;
  for (guint32 l = 0; l < links; l++)
    devices = MAX (devices, net_graph_link (graph, l)->to + 1);
  net->in_first = g_new0 (guint32, (gsize) devices + 1);
  net->in_ordinal = g_new (guint32, MAX (links, 1u));
  net->in_links = g_new (guint32, MAX (links, 1u));
  for (guint32 l = 0; l < links; l++)
    net->in_ordinal[l] = net->in_first[net_graph_link (graph, l)->to + 1]++;
  for (guint32 d = 0; d < devices; d++)
    net->in_first[d + 1] += net->in_first[d];
  for (guint32 l = 0; l < links; l++)
    net->in_links[net->in_first[net_graph_link (graph, l)->to] + net->in_ordinal[l]] = l;
}

static guint32
in_degree (const Net *net, guint32 dev)
{
  return net->in_first[dev + 1] - net->in_first[dev];
}

gboolean
net_set_rank_alias (Net *net, const guint32 *alias, const char **why)
{
  if (alias != NULL && net->klass != &net_analytical_class)
    return (*why = "links shared by every rank's messages (congestion or flow model)", FALSE);
  if (alias != NULL && net_topo_graph (net->topo) != NULL)
    {
      if (net->in_first == NULL)
        index_in_links (net);
      for (guint32 r = 0; r < net_topo_ranks (net->topo); r++)
        if (in_degree (net, r) != in_degree (net, alias[r]))
          return (*why = "ranks of one class have different numbers of links", FALSE);
    }
  net->rank_alias = alias;
  /* Messages that leave a node count once per rank of the sender's class
   * (net_left_node): each sends the mirror image of its stand-in's. */
  g_clear_pointer (&net->class_size, g_free);
  if (alias != NULL && net->device_node != NULL)
    {
      guint32 n = net_topo_ranks (net->topo);
      net->class_size = g_new0 (guint32, n);
      for (guint32 r = 0; r < n; r++)
        net->class_size[alias[r]]++;
    }
  return TRUE;
}

guint64
net_alias_ties (const Net *net)
{
  return net->alias_ties;
}

guint32
net_alias_in_link (const Net *net, guint32 link, guint32 rank)
{
  guint32 at = net->rank_alias[rank];
  return at == rank ? link : net->in_links[net->in_first[at] + net->in_ordinal[link]];
}

/* A route as what prices it and which ports it takes: per-dimension
 * topologies its dimension, hops and, on a Ring, which way round; graphs
 * its latency, narrowest bandwidth and the place of its last link among
 * the links into the receiver (the sender's port is its own either way).
 * How the two differ (NET_ROUTES_ALIKE: they do not). */
static NetRoutesDiff
route_differs (Net *net, guint32 a, guint32 b, guint32 c, guint32 d)
{
  const NetTopo *topo = net->topo;
  if (net_topo_graph (topo) != NULL)
    {
      if (net->in_first == NULL)
        index_in_links (net);
      NetPathPrice x = *net_path_price (net, a, b);
      const NetPathPrice *y = net_path_price (net, c, d);
      if (x.latency != y->latency || x.bottleneck_Bps != y->bottleneck_Bps)
        return NET_ROUTES_PRICED;
      return net->in_ordinal[x.last_link] == net->in_ordinal[y->last_link] ? NET_ROUTES_ALIKE
                                                                           : NET_ROUTES_PORTS;
    }
  /* Every dimension the route crosses (only the innermost under
   * NetSpec.innermost_route): crossed by both, with as many hops, and on
   * a Ring the same way round. */
  const NetSpec *spec = net_topo_spec (topo);
  gboolean crossed = FALSE;
  for (guint k = 0; k < spec->n_dims && !(crossed && spec->innermost_route); k++)
    {
      guint32 xa = net_topo_coord (topo, a, k), xb = net_topo_coord (topo, b, k);
      guint32 ya = net_topo_coord (topo, c, k), yb = net_topo_coord (topo, d, k);
      if ((xa == xb) != (ya == yb))
        return NET_ROUTES_PRICED;
      if (xa == xb)
        continue;
      crossed = TRUE;
      const NetDimSpec *dim = &spec->dims[k];
      if (net_dim_hops (dim, xa, xb) != net_dim_hops (dim, ya, yb))
        return NET_ROUTES_PRICED;
      guint32 fx = (xb + dim->size - xa) % dim->size, fy = (yb + dim->size - ya) % dim->size;
      if (dim->kind == NET_DIM_RING && (fx <= dim->size - fx) != (fy <= dim->size - fy))
        return NET_ROUTES_PRICED;
    }
  return NET_ROUTES_ALIKE;
}

NetRoutesDiff
net_routes_differ (Net *net, guint32 a, guint32 b, guint32 c, guint32 d)
{
  if ((a == b) != (c == d))
    return NET_ROUTES_PRICED;
  return a == b ? NET_ROUTES_ALIKE : route_differs (net, a, b, c, d);
}

gboolean
net_routes_alike (Net *net, guint32 a, guint32 b, guint32 c, guint32 d)
{
  return net_routes_differ (net, a, b, c, d) == NET_ROUTES_ALIKE;
}

void
net_send_message (Net *net, const NetMessage *msg)
{
  g_assert (msg->src != msg->dst);
  g_assert (msg->at >= *net->clock);
  net_note_node (net, msg->src, msg->dst);
  net->tally.messages++;
  net->tally.bytes += msg->bytes;
  if (G_LIKELY (net->route_priced))
    {
      sim_sched_at (net->sched,
                    sim_time_add (msg->at, net_delay_hinted (net, msg->dim, msg->src, msg->dst,
                                                             msg->bytes)),
                    msg->on_delivered, msg->data, msg->arg);
      return;
    }
  if (net->klass->send_message != NULL)
    net->klass->send_message (net, msg);
  else
    net->klass->send (net, msg->at, msg->src, msg->dst, msg->bytes, msg->on_delivered, msg->data,
                      msg->arg);
}

gboolean
net_fixed_prices (const Net *net)
{
  return net->route_priced;
}

NetTally *
net_direct_tally (Net *net)
{
  return net->route_priced && net->device_node == NULL ? &net->tally : NULL;
}

void
net_send_priced (Net *net, SimTime at, SimTime delay, guint32 src, guint32 dst, guint64 bytes,
                 SimHandler on_delivered, gpointer data, guint64 arg)
{
  g_assert (net->route_priced && src != dst);
  g_assert (at >= *net->clock);
  net_note_node (net, src, dst);
  net->tally.messages++;
  net->tally.bytes += bytes;
  sim_sched_at (net->sched, sim_time_add (at, delay), on_delivered, data, arg);
}

SimTime
net_serialization_ps (guint64 bytes, double bandwidth_Bps)
{
  g_assert (bandwidth_Bps > 0.0);
  if (bytes == 0)
    return 0;
  /* A whole number of bytes/s (every unit orrery parses from whole numbers
   * gives one) allows an exact ceiling: bytes x 10^12 fits in 128 bits. */
  if (bandwidth_Bps <= 1.8e19 && bandwidth_Bps == floor (bandwidth_Bps))
    {
      unsigned __int128 num = (unsigned __int128) bytes * SIM_PS_PER_S;
      guint64 bw = (guint64) bandwidth_Bps;
      unsigned __int128 q = (num + bw - 1) / bw;
      return q > SIM_TIME_MAX ? SIM_TIME_MAX : (SimTime) q;
    }
  double ps = ceil ((double) bytes * ((double) SIM_PS_PER_S / bandwidth_Bps));
  return ps >= (double) SIM_TIME_MAX ? SIM_TIME_MAX : (SimTime) ps;
}

/* splitmix64's finalizer: every bit of the pair moves every bit of the
 * place. */
static guint64
pair_hash (guint64 h)
{
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  return h ^ (h >> 31);
}

/* Along the route from src to dst: every link's latency, and the narrowest
 * link's bandwidth. */
const NetPathPrice *
net_path_price (Net *net, guint32 src, guint32 dst)
{
  NetGraph *graph = net_topo_graph (net->topo);
  if (G_UNLIKELY (net->paths == NULL))
    {
      gpointer *shared = net_topo_path_cache (net->topo);
      if (*shared == NULL)
        *shared = g_new0 (NetPathPrice, NET_PATH_CACHE);
      net->paths = *shared;
    }
  guint64 key = ((guint64) src << 32 | dst) + 1;
  NetPathPrice *p = &net->paths[pair_hash (key) & (NET_PATH_CACHE - 1)];
  if (p->key == key)
    return p;
  *p = (NetPathPrice) { .key = key, .latency = 0, .bottleneck_Bps = INFINITY,
                        .outside = G_MAXUINT32 };
  p->first_link = net_graph_next (graph, src, src, dst);
  for (guint32 at = src; at != dst;)
    {
      p->last_link = net_graph_next (graph, at, src, dst);
      const NetGraphLink *l = net_graph_link (graph, p->last_link);
      p->latency = sim_time_add (p->latency, l->latency);
      p->bottleneck_Bps = MIN (p->bottleneck_Bps, l->bandwidth_Bps);
      at = l->to;
      if (net->device_node != NULL && p->outside == G_MAXUINT32
          && net->device_node[at] != net->device_node[src])
        p->outside = at;
    }
  return p;
}

SimTime
net_delay (Net *net, guint32 src, guint32 dst, guint64 bytes)
{
  return net_delay_on (net, NET_DIM_UNKNOWN, src, dst, bytes);
}

SimTime
net_delay_on (Net *net, guint dim, guint32 src, guint32 dst, guint64 bytes)
{
  if (net->graph != NULL)
    {
      const NetPathPrice *p = net_path_price (net, src, dst);
      return sim_time_add (p->latency,
                           net_price_serialization (&net->serial, bytes, p->bottleneck_Bps));
    }
  return net_delay_routed (net, dim, src, dst, bytes);
}

gboolean
net_span (const Net *net, guint32 src, guint32 dst, NetSpan *span)
{
  const NetSpec *spec = net->spec;
  if (spec->innermost_route || net->graph != NULL)
    return FALSE;
  guint crossed = 0;
  *span = (NetSpan) { .bandwidth_Bps = INFINITY };
  for (guint d = 0; d < spec->n_dims; d++)
    {
      guint32 ca = net_topo_coord (net->topo, src, d), cb = net_topo_coord (net->topo, dst, d);
      if (ca == cb)
        continue;
      const NetDimSpec *dim = &spec->dims[d];
      if (crossed++ == 0)
        span->first = d;
      span->last = d;
      /* Reached with dst's coordinates below d, src's from d up. */
      span->via = dst - cb * net_topo_stride (net->topo, d) + ca * net_topo_stride (net->topo, d);
      span->latency = sim_time_add (span->latency,
                                    sim_time_mul (dim->latency, net_dim_hops (dim, ca, cb)));
      span->bandwidth_Bps = MIN (span->bandwidth_Bps, dim->bandwidth_Bps);
    }
  return crossed > 1;
}

SimTime
net_span_delay (Net *net, const NetSpan *span, guint64 bytes)
{
  if (net->spec->rounding == NET_ROUND_NS_TRUNCATED)
    {
      /* As net_price: double-precision nanoseconds, truncated. */
      double ns = (double) span->latency / (double) SIM_PS_PER_NS
                  + (double) bytes / (span->bandwidth_Bps / 1e9);
      return sim_time_from_ns_truncated (ns);
    }
  return sim_time_add (span->latency,
                       net_price_serialization (&net->serial, bytes, span->bandwidth_Bps));
}

SimTime
net_price (const NetSpec *spec, guint d, guint32 hops, guint64 bytes)
{
  const NetDimSpec *dim = &spec->dims[d];
  if (spec->rounding == NET_ROUND_NS_TRUNCATED)
    {
      /* ASTRA-sim's analytical backend prices a message in double-precision
       * nanoseconds with the bandwidth in bytes per ns and keeps the whole
       * nanoseconds. */
      double lat_ns = (double) dim->latency / (double) SIM_PS_PER_NS;
      double bw_Bpns = dim->bandwidth_Bps / 1e9;
      double ns = (double) hops * lat_ns + (double) bytes / bw_Bpns;
      return sim_time_from_ns_truncated (ns);
    }
  return sim_time_add (sim_time_mul (dim->latency, hops),
                       net_serialization_ps (bytes, dim->bandwidth_Bps));
}

guint32
net_links (const Net *net)
{
  return net->klass->n_links != NULL ? net->klass->n_links (net->state) : 0;
}

void
net_link_stats (const Net *net, guint32 link, NetLinkStats *out)
{
  g_return_if_fail (link < net_links (net));
  net->klass->link_stats (net->state, link, out);
}

guint64
net_messages (const Net *net)
{
  return net->tally.messages;
}

guint64
net_bytes (const Net *net)
{
  return net->tally.bytes;
}

guint64
net_left_node (const Net *net, guint32 *src, guint32 *dst, guint32 *via)
{
  if (net->left_node > 0)
    {
      *src = net->left_src;
      *dst = net->left_dst;
      *via = net->left_via;
    }
  return net->left_node;
}

guint32
net_node_gpus (const Net *net)
{
  const NetSpec *spec = net->spec;
  return dim0_is_node (spec) && spec->n_dims >= 2 ? spec->dims[0].size : 0;
}
