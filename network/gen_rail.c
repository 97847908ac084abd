/* gen_rail.c: the rail-optimized multi-rail network generator (a gen_topo.h registry row).
 *
 * N nodes of G GPUs: NVSwitch "nvs<node>" linked to its node's G
 * GPUs (nvlink), rail switch "rail<g>" linked to GPU g of every
 * node (nic).  Ranks N G; switches N + G; duplex links 2 N G.
 * Dims (Switch): GPUs of a node (G, nvlink; NVLink links),
 * nodes (N, nic; network links).
 * Hops: same node 2, same GPU index 2, otherwise 4 (through a
 * GPU of either node, which forwards: both ways are as wide and as short).
 *
 * Layer: network.  May include: sim, GLib.
 */
#include "network/gen_topo.h"

static gboolean
rail_count (const NetGenParams *p, NetGenCounts *c, GError **error)
{
  if (p->rail.nodes == 0 || p->rail.gpus == 0)
    return net_gen_fail (p, error, "nodes and gpus must be at least 1");
  if (!net_gen_check_link (p, &p->rail.nvlink, "the nvlink bandwidth", error)
      || !net_gen_check_link (p, &p->rail.nic, "the nic bandwidth", error))
    return FALSE;
  c->ranks = (guint64) p->rail.nodes * p->rail.gpus;
  c->switches = (guint64) p->rail.nodes + p->rail.gpus;
  c->links = 2 * c->ranks;
  return TRUE;
}

static void
rail_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint32 nodes = p->rail.nodes, gpus = p->rail.gpus;
  guint32 nvs = g->ranks, rails = g->ranks + nodes;
  for (guint32 n = 0; n < nodes; n++)
    net_gen_switch (g, "nvs%u", n);
  for (guint32 i = 0; i < gpus; i++)
    net_gen_switch (g, "rail%u", i);
  for (guint32 n = 0; n < nodes; n++)
    for (guint32 i = 0; i < gpus; i++)
      {
        net_gen_link (g, p, i + gpus * n, nvs + n, &p->rail.nvlink);
        net_gen_link (g, p, i + gpus * n, rails + i, &p->rail.nic);
      }
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NVLINK, gpus, &p->rail.nvlink);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, nodes, &p->rail.nic);
}

static const NetGenAttr attrs[] = {
  { "nodes", NET_GEN_ATTR_COUNT, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, rail.nodes), NULL },
  { "gpus", NET_GEN_ATTR_COUNT, FALSE, 8, G_STRUCT_OFFSET (NetGenParams, rail.gpus), NULL },
  { "nvlink-", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, rail.nvlink), NULL },
  { "nic-", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, rail.nic), NULL },
  { NULL, NET_GEN_ATTR_COUNT, FALSE, 0, 0, NULL },
};

const NetGenClass net_gen_rail = {
  .name = "rail",
  .help = "rail-optimized: an NVSwitch per node, a rail switch per GPU index",
  .attrs = attrs,
  .count = rail_count,
  .build = rail_build,
};
