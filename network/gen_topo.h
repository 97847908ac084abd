/* gen_topo.h: topology generators: a few parameters in, an explicit network
 * graph and the dimensions collectives use out; the generator registry.
 *
 * A generator is a registry row (a NetGenClass: its config element's name,
 * help line, attribute table, counting and building functions), one file
 * each (gen_fat_tree.c, gen_torus.c, gen_rail.c, gen_dragonfly.c): adding
 * one is adding a file, its extern and NetGenKind value here, its
 * parameters in NetGenParams and a row in gen_topo.c's table (and its
 * element in configs/cluster.rng: tests/app/test_registry.c fails until
 * the schema agrees), or calling net_gen_register.  The config reader
 * (sim/app) parses a generator's element from its attribute table alone.
 *
 * Models: four standard cluster networks, built as a NetGraphSpec (ranks
 * 0 .. R-1, then switches with readable names) whose messages take the fastest
 * paths (graph.h), plus a NetDimSpec list (innermost first, product = R)
 * that gives hierarchical collectives their group lines.  Ranks are numbered
 * in the dimensions' mixed-radix order, rank = i0 + size0 (i1 + size1 (i2
 * ...)), so that a dimension's line is a physical group: "the hosts under
 * one edge switch", "the GPUs of one node".  fat-tree and dragonfly take
 * gpus="G": each host becomes a node of G GPUs on an NVSwitch (an innermost
 * dimension of G, NVLink links, in front of the fabric's), each GPU with
 * its own NIC into the host's edge switch or router.  Every link is full duplex;
 * bandwidths are bytes/s per direction, latencies picoseconds per link.
 *
 *   fat-tree, torus, rail, dragonfly: see each generator's file.
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

/* A generator: an index into the registry.  The built-in rows have these
 * ids; rows registered at run time the next ones. */
typedef enum
{
  NET_GEN_FAT_TREE,
  NET_GEN_TORUS,
  NET_GEN_RAIL,
  NET_GEN_DRAGONFLY
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
      NetGenLink link;          /* every link of the fabric, and each GPU's NIC */
      guint32 gpus;             /* GPUs per host (node); 0 reads as 1 */
      NetGenLink nvlink;        /* GPU to its node's NVSwitch (gpus >= 2) */
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
      guint32 gpus;             /* GPUs per terminal (node); 0 reads as 1 */
      NetGenLink nvlink;        /* GPU to its node's NVSwitch (gpus >= 2) */
    } dragonfly;
    /* For generators registered at run time: their attributes' fields. */
    struct
    {
      guint32 count[6];
      NetGenLink link[3];
    } any;
  };
} NetGenParams;

/* One attribute (or pair) of a generator's config element. */
typedef enum
{
  NET_GEN_ATTR_COUNT, /* a whole number >= 1, into a guint32 */
  /* "<name>bandwidth" and "<name>latency", into a NetGenLink; when not
   * required, both or neither (then the link is left zero) */
  NET_GEN_ATTR_LINK,
  NET_GEN_ATTR_TEXT   /* text handed to `parse` */
} NetGenAttrType;

typedef struct
{
  const char *name; /* NULL ends a table; LINK: the prefix ("", "nvlink-") */
  NetGenAttrType type;
  gboolean required;
  guint32 default_value; /* COUNT, when absent */
  gsize offset;          /* COUNT, LINK: where the value goes in NetGenParams */
  /* TEXT: store the value in p; FALSE with an error quoting text. */
  gboolean (*parse) (const char *text, NetGenParams *p, GError **error);
} NetGenAttr;

/* What a generator would make, counted before anything is built. */
typedef struct
{
  guint64 ranks, switches;
  guint64 links; /* duplex pairs */
} NetGenCounts;

typedef struct
{
  const char *name;        /* the config element: "fat-tree" */
  const char *help;        /* one line for --help and the README */
  const NetGenAttr *attrs; /* in the order they are read */
  /* Check p's parameters and count what they make (64-bit, saturating);
   * FALSE with an error naming the parameter (net_gen_fail). */
  gboolean (*count) (const NetGenParams *p, NetGenCounts *c, GError **error);
  /* Add the switches and links to g (which has the ranks already) and fill
   * spec's dimensions.  p has passed count. */
  void (*build) (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec);
} NetGenClass;

/* The registry: the built-in rows (gen_topo.c) and any registered since.
 * net_gen_class: the row of `kind`, or NULL.  net_gen_register adds a row
 * for the rest of the process (the class must outlive it) and gives its
 * id; it fails when the name is taken.  Safe from any thread. */
guint net_gen_count (void);
const NetGenClass *net_gen_class (NetGenKind kind);
gboolean net_gen_register (const NetGenClass *klass, NetGenKind *kind_out, GError **error);

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

/* Helpers for generators. */
/* a x b and a + b, G_MAXUINT64 on overflow: counts only need to be compared
 * with limits, so a saturated count fails as it should. */
guint64 net_gen_mul_sat (guint64 a, guint64 b);
guint64 net_gen_add_sat (guint64 a, guint64 b);
/* FALSE with an input error "<generator>: <message>". */
gboolean net_gen_fail (const NetGenParams *p, GError **error, const char *format, ...)
    G_GNUC_PRINTF (3, 4);
/* FALSE (net_gen_fail) unless l's bandwidth is positive and finite. */
gboolean net_gen_check_link (const NetGenParams *p, const NetGenLink *l, const char *what,
                             GError **error);
/* A duplex link a <-> b of class l; a switch named by the format (its device
 * number); a dimension of the collectives' structure, whose links are of
 * kind `link` (what a GPU's port on that dimension is: NVLink, PCIe or a
 * NIC; NET_LINK_DEFAULT where the generator cannot say). */
void net_gen_link (NetGraphSpec *g, const NetGenParams *p, guint32 a, guint32 b,
                   const NetGenLink *l);
guint32 net_gen_switch (NetGraphSpec *g, const char *format, ...) G_GNUC_PRINTF (2, 3);
void net_gen_dim (NetSpec *spec, NetDimKind kind, NetLinkKind link, guint32 size,
                  const NetGenLink *l);

/* Nodes of G GPUs (fat-tree, dragonfly): the GPU count (gpus 0 reads as
 * 1); FALSE (net_gen_fail) when gpus >= 2 without a positive nvlink
 * bandwidth.  net_gen_nodes_build: each node n's NVSwitch "nvs<n>" linked
 * to its GPUs n G .. n G + G - 1 (nothing when G = 1), and the innermost
 * dimension (G, Switch, NVLink links) when G >= 2. */
guint32 net_gen_node_gpus (guint32 gpus);
gboolean net_gen_check_nodes (const NetGenParams *p, guint32 gpus, const NetGenLink *nvlink,
                              GError **error);
void net_gen_nodes_build (NetGraphSpec *g, const NetGenParams *p, guint32 nodes, guint32 gpus,
                          const NetGenLink *nvlink, NetSpec *spec);

/* The built-in rows, one file each. */
extern const NetGenClass net_gen_fat_tree;
extern const NetGenClass net_gen_torus;
extern const NetGenClass net_gen_rail;
extern const NetGenClass net_gen_dragonfly;

#endif /* ORRERY_NETWORK_GEN_TOPO_H */
