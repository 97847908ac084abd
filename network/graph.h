/* graph.h: an explicit network graph: ranks, switches and directed links,
 * with widest-then-shortest routing.
 *
 * Models: devices 0 .. ranks-1 are the ranks, the switches follow.  Each
 * link has its own bandwidth (bytes/s) and latency (ps).  A message takes
 * the fastest route, widest then shortest: among the routes from its
 * source to its destination, those whose narrowest link is widest, and of
 * those one with the fewest links (so traffic between two GPUs of a node
 * stays on their NVLink rather than taking a shorter way through NICs).
 * Where several next links are equally good, a stable hash of (source,
 * destination) picks one, so a pair's messages always take the same path
 * and different pairs spread over equal-cost paths (ECMP).  Per
 * destination, the widest route from every rank is found the first time
 * the destination is used (the links let in widest first, linear in
 * devices and links), and for each width a source needs, every device's
 * hops over the links at least that wide (a breadth-first search); all
 * are kept.  A rank whose every in-neighbour is a switch derives both from
 * its switches' searches instead, shared by the ranks on the same switches
 * (the same values, so the same routes).  With one bandwidth everywhere
 * this is plain shortest paths.
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

/* The links on the route from rank src to rank dst (the fewest among the
 * widest routes). */
guint32 net_graph_hops (NetGraph *graph, guint32 src, guint32 dst);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NetGraphSpec, net_graph_spec_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (NetGraph, net_graph_free)

#endif /* ORRERY_NETWORK_GRAPH_H */
