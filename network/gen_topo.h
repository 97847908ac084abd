/* gen_topo.h: topology generators: a few parameters in, an explicit network
 * graph and the dimensions collectives use out.
 *
 * Models: four standard cluster networks, built as a NetGraphSpec (ranks
 * 0 .. R-1, then switches with readable names) whose messages take shortest
 * paths (graph.h), plus a NetDimSpec list (innermost first, product = R)
 * that gives hierarchical collectives their group lines.  Ranks are numbered
 * in the dimensions' mixed-radix order, rank = i0 + size0 (i1 + size1 (i2
 * ...)), so that a dimension's line is a physical group: "the hosts under
 * one edge switch", "the GPUs of one node".  Every link is full duplex;
 * bandwidths are bytes/s per direction, latencies picoseconds per link.
 *
 *   fat-tree   k-ary three-level fat-tree (k even, >= 2): k pods of k/2 edge
 *              switches "edge<pod>.<i>" and k/2 aggregation switches
 *              "agg<pod>.<i>", (k/2)^2 core switches "core<j>".  Each edge
 *              switch has o k/2 hosts (o: the oversubscription, default 1)
 *              and links to every aggregation switch of its pod; aggregation
 *              switch i of every pod links to cores i k/2 .. i k/2 + k/2 - 1.
 *              Ranks o k^3/4; switches 5k^2/4; duplex links o k^3/4 + k^3/2.
 *              Dims (Switch): hosts of an edge (o k/2), edges of a pod (k/2),
 *              pods (k).  Hops: same edge 2, same pod 4, other pod 6.
 *   torus      1 to 3 dimensions of sizes s0 x s1 x s2, each rank linked to
 *              its + and - neighbour in each dimension with wraparound: a
 *              dimension of size >= 3 adds one duplex link per rank, size 2
 *              one per pair, size 1 none.  No switches.  Dims (Ring): the
 *              torus dimensions.  Hops: the Manhattan distance, each
 *              coordinate the shorter way around.
 *   rail       N nodes of G GPUs: NVSwitch "nvs<node>" linked to its node's G
 *              GPUs (nvlink), rail switch "rail<g>" linked to GPU g of every
 *              node (nic).  Ranks N G; switches N + G; duplex links 2 N G.
 *              Dims (Switch): GPUs of a node (G, nvlink), nodes (N, nic).
 *              Hops: same node 2, same GPU index 2, otherwise 4 (through a
 *              GPU of either node, which forwards: both ways are shortest).
 *   dragonfly  g groups of a routers "router<group>.<r>", p ranks per router
 *              (terminal links: the local bandwidth and latency), the routers
 *              of a group fully connected (local links), every pair of groups
 *              joined by exactly one global link.  A router has h global
 *              ports, so g <= a h + 1 (default: a h + 1, every port used).
 *              Group G's link to group T leaves from its global port
 *              i = (T - G - 1) mod g, on router i mod a (so the g - 1 links
 *              of a group are dealt round-robin over its routers, at most h
 *              each).  Ranks p a g; switches a g; duplex links p a g +
 *              g a (a-1)/2 + g (g-1)/2.  Dims (Switch): ranks of a router
 *              (p, local), routers of a group (a, local), groups (g, global).
 *              Hops between groups <= 5: terminal, local, global, local,
 *              terminal.
 *
 * Ownership: the caller owns the NetGraphSpec returned; the NetSpec it fills
 * borrows it (spec->graph).
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_GEN_TOPO_H
#define ORRERY_NETWORK_GEN_TOPO_H

#include <glib.h>

#include "network/graph.h"
#include "network/topo.h"
#include "sim/simtime.h"

/* The largest rank count a generator makes (as <network ranks>). */
#define NET_GEN_MAX_RANKS G_MAXINT32

typedef enum
{
  NET_GEN_FAT_TREE,
  NET_GEN_TORUS,
  NET_GEN_RAIL,
  NET_GEN_DRAGONFLY,
  NET_GEN_N
} NetGenKind;

/* One class of links: bytes/s per direction, picoseconds. */
typedef struct
{
  double bandwidth_Bps;
  SimTime latency;
} NetGenLink;

typedef struct
{
  NetGenKind kind;
  guint line; /* the config line, stamped on every link (0: none) */
  union
  {
    struct
    {
      guint32 k;                /* ports per switch, even, >= 2 */
      guint32 oversubscription; /* hosts per edge = oversubscription x k/2; >= 1 */
      NetGenLink link;          /* every link */
    } fat_tree;
    struct
    {
      guint n_dims;        /* 1 to 3 */
      guint32 size[3];     /* each >= 1 */
      NetGenLink link;
    } torus;
    struct
    {
      guint32 nodes, gpus; /* each >= 1 */
      NetGenLink nvlink;   /* GPU to its NVSwitch */
      NetGenLink nic;      /* GPU to its rail switch */
    } rail;
    struct
    {
      guint32 routers;          /* a, routers per group, >= 1 */
      guint32 ranks_per_router; /* p, >= 1 */
      guint32 global_links;     /* h, global ports per router, >= 1 */
      guint32 groups;           /* g, 1 .. a h + 1; 0: a h + 1 */
      NetGenLink local;         /* router to router in a group, and rank to router */
      NetGenLink global;        /* group to group */
    } dragonfly;
  };
} NetGenParams;

/* "fat-tree", "torus", "rail", "dragonfly" (the XML element names); and the
 * reverse (FALSE for an unknown name). */
const char *net_gen_name (NetGenKind kind);
gboolean net_gen_parse_name (const char *name, NetGenKind *out);

/* Parse torus sizes "8", "4x4" or "4x4x2" into p->torus.n_dims and size[];
 * fails (SIM_ERROR_INPUT, a message quoting text) on anything else or on a
 * size of 0. */
gboolean net_gen_parse_torus_sizes (const char *text, NetGenParams *p, GError **error);

/* The rank count p would make, or 0 when a parameter is out of range (the
 * count is not clipped: it may exceed NET_GEN_MAX_RANKS). */
guint64 net_gen_ranks (const NetGenParams *p);

/* Build the network p describes: a new graph in *graph_out (the caller frees
 * it with net_graph_spec_free) and spec->n_dims, spec->dims and spec->graph
 * (= *graph_out); spec->model and spec->rounding are left as they are.
 * Fails (SIM_ERROR_INPUT, messages naming the parameter, without a file
 * location) on a parameter out of range, a bandwidth <= 0, or more than
 * NET_GEN_MAX_RANKS ranks; then nothing is changed. */
gboolean net_gen_topology (const NetGenParams *p, NetSpec *spec, NetGraphSpec **graph_out,
                           GError **error);

#endif /* ORRERY_NETWORK_GEN_TOPO_H */
