/* net.h: the network as the system layer sees it: one narrow send interface
 * in front of interchangeable link models.
 *
 * Models: moving `bytes` from rank src to rank dst over the topology.  The
 * link model decides how long that takes; `analytical` charges
 * hops x latency + bytes / bandwidth with no contention in the links (under
 * NetSpec.share_ports, native configs, a message first waits for its
 * sender's and receiver's ports).  Models are rows of
 * one registry (a NetModelClass: name, help line, how members' messages
 * interact, vtable): adding one is adding a file, its extern in
 * net_private.h, a NetModelKind value (topo.h) and a row in net.c's table
 * (and its name in configs/cluster.rng: tests/app/test_registry.c fails
 * until the schema agrees; --help lists the table), or calling
 * net_model_register.
 *
 * Ownership: a Net borrows its scheduler and topology, which must outlive it.
 * Callbacks' data pointers are borrowed.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_NET_H
#define ORRERY_NETWORK_NET_H

#include <glib.h>

#include "network/topo.h"
#include "sim/sched.h"

typedef struct _Net Net;

/* What one directed link carried over the run. */
typedef struct _NetLinkStats
{
  char from[32], to[32]; /* devices: "r12" (rank 12) or "sw1.4" (the switch of
                          * line 4 of dimension 1) */
  guint dim;             /* the topology dimension it belongs to */
  guint64 bytes;
  guint64 messages;
  SimTime busy;          /* time spent serializing */
  guint32 peak_queue;    /* most messages waiting for it at once */
} NetLinkStats;

/* How messages of different senders interact on a model: what the
 * symmetric shortcut (sys_symmetric) may assume. */
typedef enum
{
  NET_SHARING_NONE,     /* not at all: a message's delay is its own */
  NET_SHARING_PER_LINK, /* through the links they share (queues) */
  NET_SHARING_FLOWS     /* every flow's rate depends on all the flows in flight */
} NetSharing;

/* A message as net_send_message takes it: bytes from rank src to rank dst,
 * leaving src at `at`, on_delivered(sched, data, arg) run at delivery.
 * dim: the topology dimension it travels, when the sender knows that src
 * and dst differ only in that coordinate (a collective's line), which
 * spares the network its search; NET_DIM_UNKNOWN otherwise.  order: the
 * place in its sender's trace of the node it belongs to (0 when none); for
 * a message one member sends for another (NCCL's hop between nodes, from
 * the rail's member), in the trace of the member whose step it is.
 * tie: 1 + the sender's place in its collective's group when the
 * collective's members play different roles (a tree: SysColl.tie_by_place),
 * 0 otherwise (a point-to-point message, a collective run alike at every
 * member).  Messages that claim one shared port at one instant are served
 * in (at, order, tie) order, and in the order they were sent among equals
 * (one node's messages), not in the order the run happens to handle their
 * senders (link_analytical.c). */
typedef struct
{
  SimTime at;
  guint32 src, dst;
  guint32 order;
  guint32 tie;
  guint dim;
  guint64 bytes;
  SimHandler on_delivered;
  gpointer data;
  guint64 arg;
} NetMessage;

/* One link model: how a message's delivery is scheduled. */
typedef struct
{
  const char *name; /* as configs and --network-model write it */
  const char *help; /* what it models, as --help says it after the name */
  NetSharing sharing;
  const char *sharing_why; /* NET_SHARING_FLOWS: why no two senders are alike (static) */
  /* How messages interact on one Net when its configuration decides (the
   * analytical model shares ports only under NetSpec.share_ports); NULL:
   * always `sharing`.  Given the model's state (NULL create: NULL). */
  NetSharing (*sharing_of) (gconstpointer state);
  /* Build the model's state for net (NULL create: no state). */
  gpointer (*create) (Net *net, GError **error);
  void (*destroy) (gpointer state);
  /* Schedule on_delivered(sched, data, arg) when the message from src to dst,
   * leaving src at time `at`, has fully arrived. */
  void (*send) (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
                SimHandler on_delivered, gpointer data, guint64 arg);
  /* The same for a NetMessage, using its dimension (NULL: send is called,
   * the dimension dropped). */
  void (*send_message) (Net *net, const NetMessage *msg);
  /* Per-link statistics (NULL: the model has no links). */
  guint32 (*n_links) (gpointer state);
  void (*link_stats) (gpointer state, guint32 link, NetLinkStats *out);
} NetModelClass;


/* The link-model registry: the built-in rows (net.c, one file each) and
 * any registered since.  net_model_class: the row of `kind`, or NULL.
 * net_model_register adds a row for the rest of the process (the class must
 * outlive it) and gives its id; it fails when the name is taken.  Safe from
 * any thread. */
guint net_model_count (void);
const NetModelClass *net_model_class (NetModelKind kind);
gboolean net_model_register (const NetModelClass *klass, NetModelKind *kind_out, GError **error);
/* The name of a model ("unknown" for none); and the model of a name,
 * ignoring case (FALSE for an unknown name). */
const char *net_model_name_of (NetModelKind kind);
gboolean net_model_parse (const char *name, NetModelKind *out);

/* The model named by the topology spec; NULL with an error for an unknown one. */
Net *net_new (SimSched *sched, const NetTopo *topo, GError **error);
void net_free (Net *net); /* accepts NULL */

/* A network driven by a link model the caller supplies (tests use a fake one
 * with a fixed delay); `klass` must outlive the Net. */
Net *net_new_with_model (SimSched *sched, const NetTopo *topo, const NetModelClass *klass,
                         GError **error);

const NetTopo *net_topo (const Net *net);
SimSched *net_sched (const Net *net);
const char *net_model_name (const Net *net);
const NetModelClass *net_model (const Net *net);
/* How messages of different senders interact on this Net: its model's
 * sharing, as its configuration makes it (what sys_symmetric asks). */
NetSharing net_sharing (const Net *net);

/* Send bytes from src to dst, leaving src at `at` (>= now; sending ahead of
 * time lets a caller that already knows when it will send save an event).
 * src != dst, both valid ranks.  on_delivered runs once, at delivery. */
void net_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
               SimHandler on_delivered, gpointer data, guint64 arg);
/* net_send with the message's dimension when the caller knows it. */
void net_send_message (Net *net, const NetMessage *msg);
/* Whether every message's delay is its route's price alone, whatever else
 * is in flight (the analytical model without shared ports): a sender that
 * sends many messages over one route may then price it once (net_delay_on)
 * and send each with net_send_priced, which builds no message and finds no
 * route. */
gboolean net_fixed_prices (const Net *net);
/* net_send_message of a message from src to dst whose delay the caller
 * took from net_delay_on for its route and size (net_fixed_prices only):
 * counted as net_send_message counts it, delivered at at + delay. */
void net_send_priced (Net *net, SimTime at, SimTime delay, guint32 src, guint32 dst,
                      guint64 bytes, SimHandler on_delivered, gpointer data, guint64 arg);
/* What a Net counts of the messages sent through it (net_messages,
 * net_bytes). */
typedef struct
{
  guint64 messages;
  guint64 bytes;
} NetTally;
/* Where a sender that schedules a message's delivery itself, at its leaving
 * time plus its route's price (net_delay_on), counts it: the Net's tally
 * when that is all net_send_priced would do (fixed prices, no node whose
 * leaving messages are counted: net_left_node), else NULL.  The path every
 * ring message takes is then one call shorter. */
NetTally *net_direct_tally (Net *net);

/* Symmetry classes (sys_set_classes): ranks that stand for others.  With
 * an alias, a message to rank q is received at the ports of alias[q] (its
 * class's simulated rank), which in the full run receives the mirror image
 * of every message its class gets; senders are always simulated ranks.
 * On a graph, the link into the stand-in at the same place among its
 * links (its ranks must have as many links as those they stand for).
 * Only the analytical model supports it (the others share links between
 * every rank's messages): FALSE with *why (a static string) otherwise.  `alias` (one entry per rank) is
 * borrowed and must outlive the Net; NULL removes it. */
gboolean net_set_rank_alias (Net *net, const guint32 *alias, const char **why);

/* With a rank alias: how many times two senders claimed one port at the
 * same instant with one waiting for the other, an order the run cannot
 * show to be every rank's (link_analytical.c): the results of the run are
 * then not known to be exact. */
guint64 net_alias_ties (const Net *net);

/* Whether a message from a to b and one from c to d of the same size cost
 * the same and use their ports alike (the same route dimension and hop
 * count, on a Ring the same way round; on a graph the same latency and
 * narrowest bandwidth, through links at the same places among their
 * devices' links): what a rank permutation must preserve for symmetry
 * classes. */
gboolean net_routes_alike (Net *net, guint32 a, guint32 b, guint32 c, guint32 d);

/* How two routes compare (net_routes_differ). */
typedef enum
{
  NET_ROUTES_ALIKE,
  /* Different hops, latency, bandwidth, dimensions or way round. */
  NET_ROUTES_PRICED,
  /* On a graph, as long and as wide, but entering the receiver through a
   * link at another place: equal-cost routes are picked per pair
   * (net_graph_next's hash of the pair), which no permutation of the ranks
   * need keep (a rail's GPU a of one node to GPU b of another, a != b,
   * leaves over NVLink for some pairs and over its rail for others). */
  NET_ROUTES_PORTS,
} NetRoutesDiff;

/* As net_routes_alike, saying how the two differ (symmetry classes'
 * explanations). */
NetRoutesDiff net_routes_differ (Net *net, guint32 a, guint32 b, guint32 c, guint32 d);

/* The contention-free delay of a message: hops x latency + bytes / bandwidth
 * on the dimension it travels, rounded as the spec says; across several
 * (NetSpec.innermost_route FALSE) every one's hops x latency + bytes / the
 * narrowest bandwidth. */
SimTime net_delay (Net *net, guint32 src, guint32 dst, guint64 bytes);
/* net_delay for a message travelling dimension dim (NET_DIM_UNKNOWN:
 * found from the ranks), as NetMessage says. */
SimTime net_delay_on (Net *net, guint dim, guint32 src, guint32 dst, guint64 bytes);

/* The contention-free delay of `bytes` over `hops` hops of dimension `dim`. */
SimTime net_price (const NetSpec *spec, guint dim, guint32 hops, guint64 bytes);

/* Time to push `bytes` through a link of `bandwidth_Bps`, rounded up to whole
 * picoseconds (exactly, with integer arithmetic where the bandwidth is a
 * whole number of bytes/s). */
SimTime net_serialization_ps (guint64 bytes, double bandwidth_Bps);

/* Links of the model (0 for the analytical model, which has none) and their
 * statistics, link < net_links (net). */
guint32 net_links (const Net *net);
void net_link_stats (const Net *net, guint32 link, NetLinkStats *out);

/* Totals over the run. */
guint64 net_messages (const Net *net);
guint64 net_bytes (const Net *net);

/* Messages between two GPUs of one node whose route left the node (with
 * symmetry classes, a simulated rank's counted once per rank of its class,
 * each of which sends their mirror image), and the first of them: its
 * ends and the first device on its route outside the node (the
 * out-parameters untouched when there is none).  Nodes, on an
 * explicit graph whose innermost dimension is a node's GPUs (its links
 * NVLink or PCIe: said by link="...", or by default when there are two
 * dimensions or more, as the NCCL model reads them; generated nodes of G
 * GPUs are), are that dimension's lines; a switch is inside a node when
 * every link it has joins it to that node's GPUs (an NVSwitch), and a
 * route leaves when it passes any other device (a NIC's switch, the
 * fabric, another node's GPU).  Widest-first routing keeps in-node
 * traffic inside wherever the node has a way of its own. */
guint64 net_left_node (const Net *net, guint32 *src, guint32 *dst, guint32 *via);

/* GPUs per node: the innermost dimension's size when it is a node's GPUs
 * (as net_left_node reads it, on an explicit graph or on dimensions) and
 * there is a dimension outside it; 0 when the cluster has no such nodes.
 * Rank r is on node r / that size. */
guint32 net_node_gpus (const Net *net);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Net, net_free)

#endif /* ORRERY_NETWORK_NET_H */
