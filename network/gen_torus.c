/* gen_torus.c: the torus generator, 1 to 3 dimensions (a gen_topo.h registry row).
 *
 * 1 to 3 dimensions of sizes s0 x s1 x s2, each rank linked to
 * its + and - neighbour in each dimension with wraparound: a
 * dimension of size >= 3 adds one duplex link per rank, size 2
 * one per pair, size 1 none.  No switches.  Dims (Ring): the
 * torus dimensions, NVLink links: the torus models accelerators
 * wired chip to chip with no NIC or switch between them (as TPU
 * pods' inter-chip links, or NVLink point to point in a DGX-1's
 * cube mesh), which NCCL prices as NVLink peer-to-peer.  Hops:
 * the Manhattan distance, each coordinate the shorter way
 * around.
 *
 * Layer: network.  May include: sim, GLib.
 */
#include "network/gen_topo.h"

#include <string.h>

#include "sim/error.h"

/* Duplex links along one dimension of `size` among `ranks` ranks: one per
 * rank to its + neighbour (which is also the neighbour's - link), but a
 * single pair when the + and - neighbours are the same rank. */
static guint64
torus_dim_links (guint64 ranks, guint32 size)
{
  return size >= 3 ? ranks : size == 2 ? ranks / 2 : 0;
}

static gboolean
torus_count (const NetGenParams *p, NetGenCounts *c, GError **error)
{
  guint n = p->torus.n_dims;
  if (n < 1 || n > 3)
    return net_gen_fail (p, error, "1 to 3 dimensions, not %u", n);
  c->ranks = 1;
  for (guint d = 0; d < n; d++)
    {
      if (p->torus.size[d] == 0)
        return net_gen_fail (p, error, "dimension %u has size 0", d);
      c->ranks = net_gen_mul_sat (c->ranks, p->torus.size[d]);
    }
  if (!net_gen_check_link (p, &p->torus.link, "the bandwidth", error))
    return FALSE;
  c->switches = 0;
  c->links = 0;
  for (guint d = 0; d < n; d++)
    c->links = net_gen_add_sat (c->links, torus_dim_links (c->ranks, p->torus.size[d]));
  return TRUE;
}

static void
torus_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint n = p->torus.n_dims;
  for (guint32 r = 0; r < g->ranks; r++)
    {
      guint32 stride = 1;
      for (guint d = 0; d < n; d++)
        {
          guint32 size = p->torus.size[d], here = (r / stride) % size;
          if (size >= 3 || (size == 2 && here == 0))
            net_gen_link (g, p, r, r - here * stride + ((here + 1) % size) * stride,
                          &p->torus.link);
          stride *= size;
        }
    }
  for (guint d = 0; d < n; d++)
    net_gen_dim (spec, NET_DIM_RING, NET_LINK_NVLINK, p->torus.size[d], &p->torus.link);
}

gboolean
net_gen_parse_torus_sizes (const char *text, NetGenParams *p, GError **error)
{
  g_return_val_if_fail (text != NULL && p != NULL, FALSE);
  g_auto (GStrv) parts = g_strsplit (text, "x", -1);
  guint n = g_strv_length (parts);
  guint32 size[3] = { 0, 0, 0 };
  gboolean ok = n >= 1 && n <= 3;
  for (guint d = 0; ok && d < n; d++)
    {
      guint64 v = 0;
      ok = parts[d][0] != '+' && parts[d][0] != '-'
           && g_ascii_string_to_unsigned (parts[d], 10, 1, G_MAXUINT32, &v, NULL);
      size[d] = (guint32) v;
    }
  if (!ok)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "'%s' is not 1 to 3 sizes of at least 1 joined by 'x' (as 4x4x2)",
                   text);
      return FALSE;
    }
  p->torus.n_dims = n;
  memcpy (p->torus.size, size, sizeof size);
  return TRUE;
}

static const NetGenAttr attrs[] = {
  { "dims", NET_GEN_ATTR_TEXT, TRUE, 0, 0, net_gen_parse_torus_sizes },
  { "", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, torus.link), NULL },
  { NULL, NET_GEN_ATTR_COUNT, FALSE, 0, 0, NULL },
};

const NetGenClass net_gen_torus = {
  .name = "torus",
  .help = "1 to 3 dimensional torus (dims=\"4x4x2\"), every rank linked to its neighbours",
  .attrs = attrs,
  .count = torus_count,
  .build = torus_build,
};
