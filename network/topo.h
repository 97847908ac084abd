/* topo.h: the cluster topology as dimensions of identical building blocks.
 *
 * Models: ranks (accelerators) arranged in up to NET_MAX_DIMS dimensions,
 * innermost first.  Each dimension is a Ring (bidirectional, shortest way
 * around), a FullyConnected group (one hop between any two members) or a
 * Switch (two hops: up and down), with its own link bandwidth (bytes/s, per
 * direction) and per-hop latency (ps).  Rank r's coordinate in dimension d is
 * (r / stride[d]) % size[d], stride[d] being the product of the sizes of the
 * dimensions before d.  The rank count is the product of the sizes.
 *
 * A message between ranks that differ in several coordinates travels the
 * first (innermost) dimension in which they differ, as ASTRA-sim's
 * congestion-unaware backend does.
 *
 * Ownership: a NetTopo owns a copy of its spec; it is immutable once built.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_TOPO_H
#define ORRERY_NETWORK_TOPO_H

#include <glib.h>

#include "network/graph.h"
#include "sim/simtime.h"

#define NET_MAX_DIMS 8
/* A dimension nobody has worked out: the network finds it from the ranks. */
#define NET_DIM_UNKNOWN G_MAXUINT

/* The most ranks a topology may have: 2^24 (16,777,216).  Every rank costs
 * its own state in every layer (link queues, collective bookkeeping, the
 * replay's per-rank and per-node arrays: kilobytes a rank before its trace),
 * so a size typo like 10^9 ranks would exhaust memory long before simulating;
 * 2^24 is 64 times the largest clusters built so far.  NET_MAX_RANKS_TEXT
 * says so in error messages. */
#define NET_MAX_RANKS (G_GUINT64_CONSTANT (1) << 24)
#define NET_MAX_RANKS_TEXT "16777216 (2^24: per-rank state would exhaust memory)"

typedef enum
{
  NET_DIM_RING,
  NET_DIM_FULLY_CONNECTED,
  NET_DIM_SWITCH
} NetDimKind;

/* What a dimension's links are, for models that price by link type (the
 * NCCL collective model's step latencies and bandwidths).  DEFAULT: not
 * said; the innermost dimension counts as NVLink, the others as network. */
typedef enum
{
  NET_LINK_DEFAULT,
  NET_LINK_NVLINK, /* GPU to GPU or to an NVSwitch, inside a node */
  NET_LINK_PCIE,   /* GPU to GPU through PCIe, inside a node */
  NET_LINK_NET     /* between nodes, through NICs */
} NetLinkKind;

typedef struct
{
  NetDimKind kind;
  NetLinkKind link;     /* NET_LINK_DEFAULT unless the config says */
  guint32 size;         /* members along this dimension, >= 1 */
  double bandwidth_Bps; /* bytes per second, per link and direction */
  SimTime latency;      /* per hop, picoseconds */
  /* A dimension of an explicit graph given no bandwidth and latency (or
   * no <dim> at all): the graph's links price every message, and
   * bandwidth_Bps 1, latency 0 stand in. */
  gboolean graph_priced;
} NetDimSpec;

/* Hops between coordinates ca and cb of a line of kind `dim`: a ring goes
 * the shorter way, a switch is two links (up and down), a full mesh one. */
static inline guint32
net_dim_hops (const NetDimSpec *dim, guint32 ca, guint32 cb)
{
  switch (dim->kind)
    {
    case NET_DIM_RING:
      {
        guint32 fwd = cb >= ca ? cb - ca : cb + dim->size - ca;
        return MIN (fwd, dim->size - fwd);
      }
    case NET_DIM_FULLY_CONNECTED:
      return 1;
    case NET_DIM_SWITCH:
    default:
      return 2;
    }
}

/* The most bytes/s one rank sends (and, the ports being symmetric, takes
 * in) at once along a line of kind `dim` where the native models share
 * endpoint ports (link_analytical.c's ports, the flow and congestion
 * models' links): a Switch one port each way; a Ring one each way round,
 * but a ring of two goes clockwise on the tie, so one; a full mesh one
 * per peer.  0 on a line of one rank (no traffic). */
static inline double
net_dim_port_Bps (const NetDimSpec *dim)
{
  if (dim->size < 2)
    return 0.0;
  switch (dim->kind)
    {
    case NET_DIM_RING:
      return dim->size > 2 ? 2.0 * dim->bandwidth_Bps : dim->bandwidth_Bps;
    case NET_DIM_FULLY_CONNECTED:
      return (double) (dim->size - 1) * dim->bandwidth_Bps;
    case NET_DIM_SWITCH:
    default:
      return dim->bandwidth_Bps;
    }
}

/* How a message's delay is rounded. */
typedef enum
{
  /* Exact: hops x latency + ceil(bytes / bandwidth) in picoseconds. */
  NET_ROUND_PS,
  /* ASTRA-sim's analytical backend: the delay is computed in double-precision
   * nanoseconds, hops x latency + bytes / (bytes per ns), and truncated to
   * whole nanoseconds. */
  NET_ROUND_NS_TRUNCATED
} NetRounding;

/* A link model: an index into the link-model registry (net.h).  The
 * built-in rows have these ids; rows registered at run time the next ones. */
typedef enum
{
  NET_MODEL_ANALYTICAL, /* no contention: hops x latency + bytes / bandwidth */
  NET_MODEL_CONGESTION, /* store-and-forward over FIFO links, switches as devices */
  NET_MODEL_FLOW        /* fluid flows sharing links max-min fairly */
} NetModelKind;

typedef struct
{
  guint n_dims;
  NetDimSpec dims[NET_MAX_DIMS];
  NetModelKind model;
  NetRounding rounding;
  /* An explicit graph (borrowed; NULL: the dimensions are the network).
   * With a graph, messages follow its widest-then-shortest paths and the
   * dimensions only give collectives their structure (group lines,
   * algorithm per dimension): their kinds, bandwidths and latencies are
   * not used for pricing. */
  const NetGraphSpec *graph;
  /* The congestion model cuts messages into packets of this many bytes (the
   * last one shorter) that cross the network one behind the other; 0:
   * whole messages. */
  guint64 packet_bytes;
  /* Native models only: a message holds its sender's egress port and its
   * receiver's ingress port on the dimension it travels for its
   * serialization, so no endpoint carries more than its bandwidth.  FALSE
   * under ASTRA-sim compatibility (every message gets the full bandwidth). */
  gboolean share_ports;
  /* ASTRA-sim compatibility: a message between ranks that differ in several
   * dimensions travels only the innermost of them, as ASTRA-sim's
   * analytical backend prices it (../shared/reference/ASTRA-SIM.md).
   * FALSE (native): the analytical model prices it across every dimension
   * it crosses (net_span), so a message between two nodes pays the NIC
   * whatever the GPUs' places in their nodes. */
  gboolean innermost_route;
} NetSpec;

typedef struct _NetTopo NetTopo;

/* Build a topology.  Fails (SIM_ERROR_INPUT, NET_ERROR domain) on zero
 * dimensions, a dimension of size 0, a bandwidth <= 0, or a rank count that
 * overflows 32 bits. */
NetTopo *net_topo_new (const NetSpec *spec, GError **error);
void net_topo_free (NetTopo *topo); /* accepts NULL */

/* Where the network layer keeps its cache of route prices over TOPO's
 * graph (net_path_price): with the topology, which fixes every price, so
 * that every Net made on it shares one (the planner's candidates, one
 * after another on one topology, fill it once).  Freed (g_free) with
 * TOPO. */
gpointer *net_topo_path_cache (const NetTopo *topo);

const NetSpec *net_topo_spec (const NetTopo *topo);
/* The explicit graph, or NULL. */
NetGraph *net_topo_graph (const NetTopo *topo);
guint32 net_topo_ranks (const NetTopo *topo);
guint net_topo_dims (const NetTopo *topo);
guint32 net_topo_dim_size (const NetTopo *topo, guint dim);
guint32 net_topo_stride (const NetTopo *topo, guint dim);
guint32 net_topo_coord (const NetTopo *topo, guint32 rank, guint dim);

/* The dimension a message from src to dst travels (the innermost one in which
 * they differ), and its hop count there.  src != dst. */
guint net_topo_route_dim (const NetTopo *topo, guint32 src, guint32 dst);
/* Both at once: returns the dimension, stores the hops (hops may be NULL). */
guint net_topo_route (const NetTopo *topo, guint32 src, guint32 dst, guint32 *hops);
/* net_topo_route for ranks the caller knows to differ only in coordinate
 * `dim` (NET_DIM_UNKNOWN: it does not know), without searching for it:
 * the same answer, hops set. */
guint net_topo_route_on (const NetTopo *topo, guint dim, guint32 src, guint32 dst, guint32 *hops);
/* Every rank's coordinates, rank-major ([rank * dims + d]), or NULL when
 * the topology is too large to tabulate them.  Owned by the topology. */
const guint32 *net_topo_coords (const NetTopo *topo);
guint32 net_topo_hops (const NetTopo *topo, guint32 src, guint32 dst);

/* "Ring", "FullyConnected", "Switch"; and the reverse (case-insensitive),
 * FALSE for an unknown name. */
const char *net_dim_kind_name (NetDimKind kind);
gboolean net_dim_kind_parse (const char *name, NetDimKind *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (NetTopo, net_topo_free)

#endif /* ORRERY_NETWORK_TOPO_H */
