/* gen_dragonfly.c: the dragonfly network generator (a gen_topo.h registry row).
 *
 * g groups of a routers "router<group>.<r>", p ranks per router
 * (terminal links: the local bandwidth and latency), the routers
 * of a group fully connected (local links), every pair of groups
 * joined by exactly one global link.  A router has h global
 * ports, so g <= a h + 1 (default: a h + 1, every port used).
 * Group G's link to group T leaves from its global port
 * i = (T - G - 1) mod g, on router i mod a (so the g - 1 links
 * of a group are dealt round-robin over its routers, at most h
 * each).  Ranks p a g; switches a g; duplex links p a g +
 * g a (a-1)/2 + g (g-1)/2.  Dims (Switch): ranks of a router
 * (p, local), routers of a group (a, local), groups (g, global),
 * all network links: a rank reaches its router through its NIC.
 * Hops between groups <= 5: terminal, local, global, local,
 * terminal.  With gpus G >= 2, each terminal is a node of G GPUs:
 * its NVSwitch "nvs<node>" (after the routers) linked to them by
 * nvlink links, and each GPU's own NIC linked to the node's router
 * (a local link).  Ranks G p a g (a node's GPUs consecutive);
 * switches a g + p a g; duplex links 2 G p a g + g a (a-1)/2 +
 * g (g-1)/2.  Dims: GPUs of a node (G, nvlink), then the three
 * above.
 *
 * Layer: network.  May include: sim, GLib.
 */
#include "network/gen_topo.h"

static guint64
dragonfly_groups (const NetGenParams *p)
{
  guint64 most = (guint64) p->dragonfly.routers * p->dragonfly.global_links + 1;
  return p->dragonfly.groups != 0 ? p->dragonfly.groups : most;
}

static gboolean
dragonfly_count (const NetGenParams *p, NetGenCounts *c, GError **error)
{
  guint64 a = p->dragonfly.routers, ppr = p->dragonfly.ranks_per_router;
  guint64 h = p->dragonfly.global_links, g = dragonfly_groups (p);
  if (a == 0 || ppr == 0 || h == 0)
    return net_gen_fail (p, error, "routers, ranks-per-router and global-links must be at least 1");
  if (g > a * h + 1)
    return net_gen_fail (p, error,
                         "%" G_GUINT64_FORMAT " groups need %" G_GUINT64_FORMAT
                         " global links per group, but %" G_GUINT64_FORMAT " routers with %"
                         G_GUINT64_FORMAT " each have %" G_GUINT64_FORMAT
                         " (at most %" G_GUINT64_FORMAT " groups)",
                         g, g - 1, a, h, a * h, a * h + 1);
  if (!net_gen_check_link (p, &p->dragonfly.local, "the local bandwidth", error)
      || !net_gen_check_link (p, &p->dragonfly.global, "the global bandwidth", error)
      || !net_gen_check_nodes (p, p->dragonfly.gpus, &p->dragonfly.nvlink, error))
    return FALSE;
  guint64 gpus = net_gen_node_gpus (p->dragonfly.gpus);
  guint64 routers = net_gen_mul_sat (a, g), nodes = net_gen_mul_sat (ppr, routers);
  c->switches = gpus > 1 ? net_gen_add_sat (routers, nodes) : routers;
  c->ranks = net_gen_mul_sat (nodes, gpus);
  /* A NIC per GPU, and with G >= 2 an NVLink per GPU. */
  guint64 terminal = net_gen_mul_sat (c->ranks, gpus > 1 ? 2 : 1);
  c->links = net_gen_add_sat (net_gen_add_sat (terminal, net_gen_mul_sat (routers, a - 1) / 2),
                              net_gen_mul_sat (g, g - 1) / 2);
  return TRUE;
}

static void
dragonfly_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint32 a = p->dragonfly.routers, ppr = p->dragonfly.ranks_per_router;
  guint32 groups = (guint32) dragonfly_groups (p), base = g->ranks;
  guint32 gpus = net_gen_node_gpus (p->dragonfly.gpus);
  const NetGenLink *local = &p->dragonfly.local, *global = &p->dragonfly.global;
  for (guint32 grp = 0; grp < groups; grp++)
    for (guint32 r = 0; r < a; r++)
      net_gen_switch (g, "router%u.%u", grp, r);
  for (guint32 rt = 0; rt < a * groups; rt++)
    {
      for (guint32 i = 0; i < ppr * gpus; i++)
        net_gen_link (g, p, i + ppr * gpus * rt, base + rt, local);
      for (guint32 s = rt % a + 1; s < a; s++)
        net_gen_link (g, p, base + rt, base + rt - rt % a + s, local);
    }
  /* One global link per pair of groups: G's port (T - G - 1) mod g to T's
   * port (G - T - 1) mod g, port i on router i mod a (gen_topo.h). */
  g_assert (groups < 2 || a > 0);
  for (guint32 grp = 0; grp < groups; grp++)
    for (guint32 other = grp + 1; other < groups; other++)
      {
        guint32 from = (other - grp - 1) % a, to = (groups + grp - other - 1) % a;
        net_gen_link (g, p, base + grp * a + from, base + other * a + to, global);
      }
  net_gen_nodes_build (g, p, ppr * a * groups, gpus, &p->dragonfly.nvlink, spec);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, ppr, local);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, a, local);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NET, groups, global);
}

static const NetGenAttr attrs[] = {
  { "routers", NET_GEN_ATTR_COUNT, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, dragonfly.routers),
    NULL },
  { "ranks-per-router", NET_GEN_ATTR_COUNT, TRUE, 0,
    G_STRUCT_OFFSET (NetGenParams, dragonfly.ranks_per_router), NULL },
  { "global-links", NET_GEN_ATTR_COUNT, TRUE, 0,
    G_STRUCT_OFFSET (NetGenParams, dragonfly.global_links), NULL },
  { "groups", NET_GEN_ATTR_COUNT, FALSE, 0, G_STRUCT_OFFSET (NetGenParams, dragonfly.groups),
    NULL },
  { "local-", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, dragonfly.local), NULL },
  { "global-", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, dragonfly.global),
    NULL },
  { "gpus", NET_GEN_ATTR_COUNT, FALSE, 1, G_STRUCT_OFFSET (NetGenParams, dragonfly.gpus), NULL },
  { "nvlink-", NET_GEN_ATTR_LINK, FALSE, 0, G_STRUCT_OFFSET (NetGenParams, dragonfly.nvlink),
    NULL },
  { NULL, NET_GEN_ATTR_COUNT, FALSE, 0, 0, NULL },
};

const NetGenClass net_gen_dragonfly = {
  .name = "dragonfly",
  .help = "dragonfly: groups of fully connected routers, one global link per pair of groups; "
          "terminals are hosts or nodes of G GPUs on an NVSwitch",
  .attrs = attrs,
  .count = dragonfly_count,
  .build = dragonfly_build,
};
