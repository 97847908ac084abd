/* net_private.h: what link models see of a Net.  Only network/ includes it.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_NET_PRIVATE_H
#define ORRERY_NETWORK_NET_PRIVATE_H

#include "network/net.h"
#include "network/price.h"

/* Prices of routes on dimensions, direct-mapped by a hash of (route,
 * bytes), where route is dim << 32 | hops, plus 1 (0: an empty place).
 * Collectives send runs of a few sizes over a few routes, interleaved
 * (a data-parallel ring and a tensor-parallel one at once): one entry
 * missed there on every message.  A pair that finds its place taken is
 * priced again: the same price. */
typedef struct
{
  guint64 route;
  guint64 bytes;
  SimTime delay;
} NetDelayMemo;

#define NET_DELAY_MEMO 16 /* places, a power of two */

static inline guint
net_delay_memo_place (guint64 route, guint64 bytes)
{
  return (guint) ((route << 40 ^ bytes) * 0x9E3779B97F4A7C15ull >> 60) & (NET_DELAY_MEMO - 1);
}

/* The latency and narrowest bandwidth of one route of an explicit graph,
 * and its first and last links (the sender's and the receiver's ports),
 * cached under key src << 32 | dst, plus 1 (0: an empty place). */
typedef struct
{
  guint64 key;
  SimTime latency;
  double bottleneck_Bps;
  guint32 first_link, last_link;
  guint32 outside; /* the first device on it outside src's node, or G_MAXUINT32 */
} NetPathPrice;

#define NET_PATH_CACHE (1u << 18) /* places, a power of two */

struct _Net
{
  NetDelayMemo memo[NET_DELAY_MEMO];
  /* Explicit graphs: route prices, direct-mapped by a hash of the pair
   * (walking a route visits every port of each switch on it).  A pair that
   * finds its place taken walks its route again: same price.  The
   * topology's (net_topo_path_cache), shared by every Net on it: a price
   * is its graph's alone (device_node too is the topology's). */
  NetPathPrice *paths;
  NetPriceTable serial; /* explicit graphs: serializations at route bottlenecks */
  SimSched *sched;
  const NetTopo *topo;
  /* The topology's, looked up once: every message reads them. */
  const NetSpec *spec;
  NetGraph *graph;
  const guint32 *coord;
  const SimTime *clock; /* the scheduler's */
  gboolean coord_routes; /* no explicit graph, coordinates tabulated */
  /* No explicit graph, and a route the sender does not name may cross
   * several dimensions (NetSpec.innermost_route FALSE: net_span). */
  gboolean span_routes;
  const NetModelClass *klass;
  gpointer state; /* the link model's */
  /* Set by a link model whose messages arrive net_delay after they leave,
   * whatever else is in flight (the analytical model without shared
   * ports): net_send_message then schedules the delivery itself, a call
   * shorter on the path every message takes. */
  gboolean route_priced;
  const guint32 *rank_alias; /* net_set_rank_alias: receiving ranks' stand-ins, or NULL */
  /* Explicit graphs, for symmetry classes: per link its place among the
   * links into its device, and per device those links (in_first[dev] ..
   * in_first[dev + 1] in in_links); built on first use. */
  guint32 *in_ordinal, *in_first, *in_links;
  guint64 alias_ties; /* see net_alias_ties */
  /* Explicit graphs with nodes (net_left_node): GPUs per node and every
   * device's node (G_MAXUINT32: none); NULL without nodes. */
  guint32 node_gpus;
  guint32 *device_node;
  guint64 left_node;
  guint32 left_src, left_dst, left_via;
  /* With a rank alias and nodes: per simulated rank, how many ranks it
   * stands for (each sends the mirror of its messages); NULL otherwise. */
  guint32 *class_size;
  NetTally tally; /* net_messages, net_bytes */
};

/* net_topo_route_on, inline where the coordinates are tabulated (as they
 * are below 2^22 of them): the message path's common case.  A route
 * whose dimension the sender did not name takes the first in which the
 * ranks' coordinates differ, as net_topo_route does; *spans (when not
 * NULL) says whether, under Net.span_routes, they differ in a later one
 * too (then net_span has the whole route). */
G_ALWAYS_INLINE static inline guint
net_route_spans (const Net *net, guint dim, guint32 src, guint32 dst, guint32 *hops,
                 gboolean *spans)
{
  if (spans != NULL)
    *spans = FALSE;
  if (net->coord == NULL)
    {
      guint d = net_topo_route_on (net->topo, dim, src, dst, hops);
      if (spans != NULL && dim == NET_DIM_UNKNOWN && net->span_routes)
        for (guint k = d + 1; k < net->spec->n_dims; k++)
          *spans |= net_topo_coord (net->topo, src, k) != net_topo_coord (net->topo, dst, k);
      return d;
    }
  guint nd = net->spec->n_dims;
  const guint32 *a = &net->coord[(gsize) src * nd], *b = &net->coord[(gsize) dst * nd];
  if (dim == NET_DIM_UNKNOWN)
    {
      for (dim = 0; dim < nd && a[dim] == b[dim]; dim++)
        ;
      if (spans != NULL && net->span_routes)
        for (guint k = dim + 1; k < nd; k++)
          *spans |= a[k] != b[k];
    }
  g_assert (dim < nd && src != dst);
  *hops = net_dim_hops (&net->spec->dims[dim], a[dim], b[dim]);
  return dim;
}

G_ALWAYS_INLINE static inline guint
net_route_on (const Net *net, guint dim, guint32 src, guint32 dst, guint32 *hops)
{
  return net_route_spans (net, dim, src, dst, hops, NULL);
}

/* A route of the analytical model across several dimensions (native:
 * NetSpec.innermost_route FALSE): dimension by dimension, innermost first,
 * as the congestion model routes it, priced as a graph's route is: every
 * crossed dimension's hops x latency, plus bytes / the narrowest of their
 * bandwidths (cut-through).  Its ports are its first link's (the sender's
 * egress on dimension `first`) and its last link's (the receiver's ingress
 * on dimension `last`, from `via`, the rank it reaches that dimension
 * from). */
typedef struct
{
  guint first, last;
  guint32 via;
  SimTime latency;
  double bandwidth_Bps;
} NetSpan;

/* Whether a message from src to dst, whose route the sender did not name,
 * crosses several dimensions of a topology without an explicit graph under
 * the native rule; if so, its route in *span. */
gboolean net_span (const Net *net, guint32 src, guint32 dst, NetSpan *span);
/* The delay of bytes along such a route. */
SimTime net_span_delay (Net *net, const NetSpan *span, guint64 bytes);

/* The delay of a message on a topology without an explicit graph, its
 * route priced through the memo (or, across several dimensions, by
 * net_span_delay). */
G_ALWAYS_INLINE static inline SimTime
net_delay_routed (Net *net, guint dim, guint32 src, guint32 dst, guint64 bytes)
{
  guint32 hops = 0;
  gboolean spans;
  guint d = net_route_spans (net, dim, src, dst, &hops, &spans);
  NetSpan span;
  if (G_UNLIKELY (spans) && net_span (net, src, dst, &span))
    return net_span_delay (net, &span, bytes);
  guint64 route = ((guint64) d << 32 | hops) + 1;
  NetDelayMemo *memo = &net->memo[net_delay_memo_place (route, bytes)];
  if (G_LIKELY (memo->route == route && memo->bytes == bytes))
    return memo->delay;
  *memo = (NetDelayMemo) { .route = route, .bytes = bytes,
                           .delay = net_price (net->spec, d, hops, bytes) };
  return memo->delay;
}

/* net_delay_on, with its common case inline: a topology without an
 * explicit graph, whose routes are priced through the memo. */
static inline SimTime
net_delay_hinted (Net *net, guint dim, guint32 src, guint32 dst, guint64 bytes)
{
  if (G_LIKELY (net->coord_routes))
    return net_delay_routed (net, dim, src, dst, bytes);
  return net_delay_on (net, dim, src, dst, bytes);
}

/* The price of the route from src to dst over the explicit graph (the
 * topology has one); valid until the next call. */
const NetPathPrice *net_path_price (Net *net, guint32 src, guint32 dst);

/* Count a message src -> dst that leaves its node (net_left_node): two GPUs
 * of one node only; their route's price says (cached). */
static inline void
net_note_node (Net *net, guint32 src, guint32 dst)
{
  if (G_LIKELY (net->device_node == NULL) || src / net->node_gpus != dst / net->node_gpus)
    return;
  const NetPathPrice *p = net_path_price (net, src, dst);
  if (p->outside == G_MAXUINT32)
    return;
  if (net->left_node == 0)
    {
      net->left_src = src;
      net->left_dst = dst;
      net->left_via = p->outside;
    }
  net->left_node += net->class_size != NULL ? net->class_size[src] : 1;
}

/* The link into `rank`'s stand-in (net_set_rank_alias) that mirrors
 * `link`, a link into `rank`: the one at the same place among its links. */
guint32 net_alias_in_link (const Net *net, guint32 link, guint32 rank);

/* The link models, one file each. */
extern const NetModelClass net_analytical_class;
extern const NetModelClass net_congestion_class;
extern const NetModelClass net_flow_class;

#endif /* ORRERY_NETWORK_NET_PRIVATE_H */
