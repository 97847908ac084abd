/* net_private.h: what link models see of a Net.  Only network/ includes it.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_NET_PRIVATE_H
#define ORRERY_NETWORK_NET_PRIVATE_H

#include "network/net.h"
#include "network/price.h"

typedef struct
{
  gboolean valid;
  guint dim;
  guint32 hops;
  guint64 bytes;
  SimTime delay;
} NetDelayMemo;

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
  NetDelayMemo memo;
  /* Explicit graphs: route prices, direct-mapped by a hash of the pair
   * (walking a route visits every port of each switch on it).  A pair that
   * finds its place taken walks its route again: same price. */
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
  const NetModelClass *klass;
  gpointer state; /* the link model's */
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
  guint64 messages;
  guint64 bytes;
};

/* net_topo_route_on, inline where the coordinates are tabulated (as they
 * are below 2^22 of them): the message path's common case. */
static inline guint
net_route_on (const Net *net, guint dim, guint32 src, guint32 dst, guint32 *hops)
{
  if (dim == NET_DIM_UNKNOWN || net->coord == NULL)
    return net_topo_route_on (net->topo, dim, src, dst, hops);
  guint nd = net->spec->n_dims;
  g_assert (dim < nd && src != dst);
  *hops = net_dim_hops (&net->spec->dims[dim], net->coord[(gsize) src * nd + dim],
                        net->coord[(gsize) dst * nd + dim]);
  return dim;
}

/* net_delay_on, with its common case inline: a message whose dimension the
 * sender named, on a topology without an explicit graph, priced as the
 * one before it (collectives send runs of equal messages).  The rest goes
 * to net_delay_on, which fills the memo. */
static inline SimTime
net_delay_hinted (Net *net, guint dim, guint32 src, guint32 dst, guint64 bytes)
{
  if (dim != NET_DIM_UNKNOWN && net->coord_routes)
    {
      guint32 hops = 0;
      net_route_on (net, dim, src, dst, &hops);
      const NetDelayMemo *memo = &net->memo;
      if (memo->valid && memo->dim == dim && memo->hops == hops && memo->bytes == bytes)
        return memo->delay;
    }
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
