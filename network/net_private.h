/* net_private.h: what link models see of a Net.  Only network/ includes it.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_NET_PRIVATE_H
#define ORRERY_NETWORK_NET_PRIVATE_H

#include "network/net.h"

typedef struct
{
  gboolean valid;
  guint dim;
  guint32 hops;
  guint64 bytes;
  SimTime delay;
} NetDelayMemo;

/* The latency and narrowest bandwidth of one route of an explicit graph,
 * cached under key src << 32 | dst, plus 1 (0: an empty place). */
typedef struct
{
  guint64 key;
  SimTime latency;
  double bottleneck_Bps;
} NetPathPrice;

#define NET_PATH_CACHE (1u << 18) /* places, a power of two */

struct _Net
{
  NetDelayMemo memo;
  /* Explicit graphs: route prices, direct-mapped by a hash of the pair
   * (walking a route visits every port of each switch on it).  A pair that
   * finds its place taken walks its route again: same price. */
  NetPathPrice *paths;
  SimSched *sched;
  const NetTopo *topo;
  const NetModelClass *klass;
  gpointer state; /* the link model's */
  guint64 messages;
  guint64 bytes;
};

/* The link models, one file each. */
extern const NetModelClass net_analytical_class;
extern const NetModelClass net_congestion_class;
extern const NetModelClass net_flow_class;

#endif /* ORRERY_NETWORK_NET_PRIVATE_H */
