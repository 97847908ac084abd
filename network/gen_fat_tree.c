/* gen_fat_tree.c: the k-ary three-level fat-tree generator (a gen_topo.h registry row).
 *
 * k-ary three-level fat-tree (k even, >= 2): k pods of k/2 edge
 * switches "edge<pod>.<i>" and k/2 aggregation switches
 * "agg<pod>.<i>", (k/2)^2 core switches "core<j>".  Each edge
 * switch has o k/2 hosts (o: the oversubscription, default 1)
 * and links to every aggregation switch of its pod; aggregation
 * switch i of every pod links to cores i k/2 .. i k/2 + k/2 - 1.
 * Ranks o k^3/4; switches 5k^2/4; duplex links o k^3/4 + k^3/2.
 * Dims (Switch): hosts of an edge (o k/2), edges of a pod (k/2),
 * pods (k), all network links: a host reaches its edge switch
 * through its NIC, so every message leaves the host by the
 * network.  Hops: same edge 2, same pod 4, other pod 6.
 * With gpus G >= 2, each host is a node of G GPUs: its NVSwitch
 * "nvs<node>" (after the cores) linked to them by nvlink links,
 * and each GPU's own NIC linked to the host's edge switch (the
 * edge then has o k/2 G NIC links below its k/2 uplinks; <rail>
 * wires NICs rail-optimized instead).  Ranks G o k^3/4 (a node's
 * GPUs consecutive); switches 5k^2/4 + o k^3/4; duplex links
 * 2 G o k^3/4 + k^3/2.  Dims: GPUs of a node (G, nvlink), then
 * the three above.  Between GPUs of one node the NVSwitch is both
 * the widest and the shortest route (2 hops).
 *
 * Layer: network.  May include: sim, GLib.
 */
#include "network/gen_topo.h"

static gboolean
fat_tree_count (const NetGenParams *p, NetGenCounts *c, GError **error)
{
  guint64 k = p->fat_tree.k, o = p->fat_tree.oversubscription, half = k / 2;
  guint64 gpus = net_gen_node_gpus (p->fat_tree.gpus);
  if (k < 2 || k % 2 != 0)
    return net_gen_fail (p, error, "k must be an even number of at least 2, not %" G_GUINT64_FORMAT,
                         k);
  if (o < 1)
    return net_gen_fail (p, error, "the oversubscription must be at least 1");
  if (!net_gen_check_link (p, &p->fat_tree.link, "the bandwidth", error)
      || !net_gen_check_nodes (p, p->fat_tree.gpus, &p->fat_tree.nvlink, error))
    return FALSE;
  /* o k/2 hosts under each of k k/2 edge switches, G GPUs each. */
  guint64 hosts = net_gen_mul_sat (net_gen_mul_sat (o, half), k * half);
  c->ranks = net_gen_mul_sat (hosts, gpus);
  c->switches = net_gen_add_sat (k * k, half * half);
  if (gpus > 1)
    c->switches = net_gen_add_sat (c->switches, hosts);
  /* Edge to aggregation and aggregation to core: k^3/4 each; a NIC per
   * GPU, and with G >= 2 an NVLink per GPU. */
  c->links = net_gen_add_sat (net_gen_mul_sat (c->ranks, gpus > 1 ? 2 : 1),
                              net_gen_mul_sat (2 * half, net_gen_mul_sat (k, half)));
  return TRUE;
}

/* Switches in order: per pod its k/2 edges then its k/2 aggregations, then
 * the cores, so that the device numbers follow from the indices. */
static void
fat_tree_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint32 k = p->fat_tree.k, half = k / 2, hosts = p->fat_tree.oversubscription * half;
  guint32 gpus = net_gen_node_gpus (p->fat_tree.gpus);
  const NetGenLink *l = &p->fat_tree.link;
  guint32 base = g->ranks;
  for (guint32 pod = 0; pod < k; pod++)
    {
      for (guint32 i = 0; i < half; i++)
        net_gen_switch (g, "edge%u.%u", pod, i);
      for (guint32 i = 0; i < half; i++)
        net_gen_switch (g, "agg%u.%u", pod, i);
    }
  for (guint32 j = 0; j < half * half; j++)
    net_gen_switch (g, "core%u", j);
  guint32 cores = base + k * k;
  for (guint32 pod = 0; pod < k; pod++)
    for (guint32 e = 0; e < half; e++)
      {
        guint32 edge = base + pod * k + e;
        for (guint32 h = 0; h < hosts; h++)
          for (guint32 i = 0; i < gpus; i++)
            net_gen_link (g, p, i + gpus * (h + hosts * (e + half * pod)), edge, l);
        for (guint32 a = 0; a < half; a++)
          net_gen_link (g, p, edge, base + pod * k + half + a, l);
      }
  for (guint32 pod = 0; pod < k; pod++)
    for (guint32 a = 0; a < half; a++)
      for (guint32 j = 0; j < half; j++)
        net_gen_link (g, p, base + pod * k + half + a, cores + a * half + j, l);
  net_gen_nodes_build (g, p, hosts * half * k, gpus, &p->fat_tree.nvlink, spec);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, hosts, l);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, half, l);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, k, l);
}

static const NetGenAttr attrs[] = {
  { "k", NET_GEN_ATTR_COUNT, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, fat_tree.k), NULL },
  { "oversubscription", NET_GEN_ATTR_COUNT, FALSE, 1,
    G_STRUCT_OFFSET (NetGenParams, fat_tree.oversubscription), NULL },
  { "", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, fat_tree.link), NULL },
  { "gpus", NET_GEN_ATTR_COUNT, FALSE, 1, G_STRUCT_OFFSET (NetGenParams, fat_tree.gpus), NULL },
  { "nvlink-", NET_GEN_ATTR_LINK, FALSE, 0, G_STRUCT_OFFSET (NetGenParams, fat_tree.nvlink),
    NULL },
  { NULL, NET_GEN_ATTR_COUNT, FALSE, 0, 0, NULL },
};

const NetGenClass net_gen_fat_tree = {
  .name = "fat-tree",
  .help = "k-ary three-level fat-tree (k even), optionally oversubscribed at the edge, "
          "of hosts or of nodes of G GPUs on an NVSwitch",
  .attrs = attrs,
  .count = fat_tree_count,
  .build = fat_tree_build,
};
