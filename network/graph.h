/* graph.h: an explicit network graph: ranks, switches and directed links,
 * with shortest-path routing.
 *
 * Models: devices 0 .. ranks-1 are the ranks, the switches follow.  Each
 * link has its own bandwidth (bytes/s) and latency (ps).  A message takes a
 * shortest path (fewest links); where several next links are equally short,
 * a stable hash of (source, destination) picks one, so a pair's messages
 * always take the same path and different pairs spread over equal-cost
 * paths (ECMP).  Distances are found by breadth-first search from each
 * destination the first time it is used, and kept.
 *
 * Ownership: a NetGraph owns copies of its links.  NetGraphSpec is the
 * description configs and generators fill; it owns its arrays.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_GRAPH_H
#define ORRERY_NETWORK_GRAPH_H

#include <glib.h>

#include "sim/simtime.h"

typedef struct
{
  guint32 from, to;     /* devices */
  double bandwidth_Bps;
  SimTime latency;
  guint line;           /* the config line that made it, for errors (0: none) */
} NetGraphLink;

typedef struct
{
  guint32 ranks;
  guint32 switches;
  GArray *links;        /* NetGraphLink */
  GPtrArray *names;     /* device names, for messages and statistics */
  char *source;         /* the file it came from, for errors (may be NULL) */
} NetGraphSpec;

NetGraphSpec *net_graph_spec_new (guint32 ranks);
void net_graph_spec_free (NetGraphSpec *spec);
NetGraphSpec *net_graph_spec_copy (const NetGraphSpec *spec);
/* Add a switch named `name`; returns its device number. */
guint32 net_graph_spec_add_switch (NetGraphSpec *spec, const char *name);
/* Add a link (both directions when duplex). */
void net_graph_spec_add_link (NetGraphSpec *spec, guint32 from, guint32 to, double bandwidth_Bps,
                              SimTime latency, gboolean duplex, guint line);

typedef struct _NetGraph NetGraph;

/* Check and index a graph: every link's ends exist, bandwidths are
 * positive, and every rank reaches every other rank; errors name the
 * config line or the ranks that cannot reach each other. */
NetGraph *net_graph_new (const NetGraphSpec *spec, GError **error);
void net_graph_free (NetGraph *graph);

guint32 net_graph_links (const NetGraph *graph);
const NetGraphLink *net_graph_link (const NetGraph *graph, guint32 link);
const char *net_graph_name (const NetGraph *graph, guint32 device);

/* The next link from device `at` on the route from rank src to rank dst
 * (at != dst). */
guint32 net_graph_next (NetGraph *graph, guint32 at, guint32 src, guint32 dst);

/* Fewest links from rank src to rank dst. */
guint32 net_graph_hops (NetGraph *graph, guint32 src, guint32 dst);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NetGraphSpec, net_graph_spec_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NetGraph, net_graph_free)

#endif /* ORRERY_NETWORK_GRAPH_H */
