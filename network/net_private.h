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

struct _Net
{
  NetDelayMemo memo;
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
