/* links.h: the topology's dimensions as real, directed links, and the routes
 * of messages over them: what the link-level models (congestion, flow)
 * share.
 *
 * Models: a Ring has one link each way between neighbours, a FullyConnected
 * line one link between every ordered pair, a Switch line a switch device
 * with an up and a down link per member.  Link ids are laid out dimension by
 * dimension, then rank by rank.  A message is routed dimension by dimension,
 * innermost first (a Ring the shorter way round, clockwise on a tie); a
 * NetCursor walks the route one link at a time.
 *
 * Ownership: NetLinks borrows the topology.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_LINKS_H
#define ORRERY_NETWORK_LINKS_H

#include <glib.h>

#include "network/net.h"
#include "network/topo.h"

typedef struct
{
  const NetTopo *topo;
  const NetSpec *spec;
  NetGraph *graph;            /* the explicit graph's links, when there is one */
  guint32 base[NET_MAX_DIMS]; /* first link of each dimension */
  guint32 n_links;
} NetLinks;

/* Where a message is on its route. */
typedef struct
{
  guint32 at;       /* the rank it is at (or whose switch it is in; with a
                     * graph, the device it is at) */
  guint32 src;
  guint32 dst;
  gint16 in_switch; /* dimension of the switch it is in, or -1 */
} NetCursor;

/* Lay out the links of a topology; FALSE with an error when there would be
 * too many to number. */
gboolean net_links_init (NetLinks *links, const NetTopo *topo, GError **error);

static inline NetCursor
net_cursor (guint32 src, guint32 dst)
{
  return (NetCursor) { .at = src, .src = src, .dst = dst, .in_switch = -1 };
}

static inline gboolean
net_cursor_arrived (const NetCursor *c)
{
  return c->in_switch < 0 && c->at == c->dst;
}

/* The next link on the route, moving the cursor past it.  Not arrived. */
guint32 net_links_next (const NetLinks *links, NetCursor *cursor);

/* The dimension a link belongs to (0 for a graph's links). */
guint net_links_dim (const NetLinks *links, guint32 link);

/* A link's bandwidth (bytes/s) and latency (ps). */
double net_links_bandwidth (const NetLinks *links, guint32 link);
SimTime net_links_latency (const NetLinks *links, guint32 link);

/* The devices at the ends of a link: "r12", or "sw1.4" for the switch of
 * dimension 1 whose line starts at rank 4. */
void net_links_ends (const NetLinks *links, guint32 id, char *from, char *to, gsize size);

/* Fill a link's statistics: its dimension and ends from the layout, the
 * figures from the model. */
void net_links_stats (const NetLinks *links, guint32 link, guint64 bytes, guint64 messages,
                      SimTime busy, guint32 peak_queue, NetLinkStats *out);

/* What the flow model has in flight: each flow's route (n_hops link ids,
 * borrowed for the call) and its current rate in bytes/s. */
typedef void (*NetFlowVisit) (const guint32 *path, guint32 n_hops, double rate, gpointer user);

/* Visit the flow model's flows in flight (FALSE, visiting none, when the
 * net's link model is not the flow model): what a test needs to check the
 * incremental sharing against a max-min allocation computed from scratch. */
gboolean net_flow_visit (Net *net, NetFlowVisit visit, gpointer user);

/* The flow model's check path, for tests: with it on, every start and end
 * also recomputes max-min over the whole component of links it touches
 * (the reference: progressive filling of every flow there) and compares
 * each flow's rate, and the end time that rate gives, with the incremental
 * model's, which it leaves alone.  The worst differences so far: */
typedef struct
{
  guint64 changes;   /* starts and ends checked */
  guint64 flows;     /* flow rates compared */
  guint64 refilled;  /* of those, the incremental model recomputed */
  double worst_rel;  /* |rate - reference| / reference, the largest */
  guint64 worst_ps;  /* |end time - reference's|, ps, the largest */
} NetFlowCheck;

/* Turn the check path on or off (FALSE when the model is not the flow
 * model); net_flow_checked reads the figures.  never_whole: the model
 * itself never falls back to refilling whole components (where its rounds
 * grow costly), so that a test exercises its rounds to the end. */
gboolean net_flow_check (Net *net, gboolean on, gboolean never_whole);
gboolean net_flow_checked (Net *net, NetFlowCheck *out);

#endif /* ORRERY_NETWORK_LINKS_H */
