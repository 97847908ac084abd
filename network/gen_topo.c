/* gen_topo.c: topology generators (fat-tree, torus, rail, dragonfly), one
 * table row each. */
#include "network/gen_topo.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"

/* What a generator would make, counted before anything is built. */
typedef struct
{
  guint64 ranks, switches;
  guint64 links; /* duplex pairs */
} GenCounts;

typedef struct
{
  const char *name;
  /* Check p's parameters and count what they make (64-bit, saturating);
   * FALSE with an error naming the parameter. */
  gboolean (*count) (const NetGenParams *p, GenCounts *c, GError **error);
  /* Add the switches and links to g (which has the ranks already) and fill
   * spec's dimensions.  p has passed count. */
  void (*build) (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec);
} GenClass;

/* a x b, G_MAXUINT64 on overflow: counts only need to be compared with
 * limits, so a saturated count fails as it should. */
static guint64
mul_sat (guint64 a, guint64 b)
{
  guint64 r = 0;
  return g_uint64_checked_mul (&r, a, b) ? r : G_MAXUINT64;
}

static guint64
add_sat (guint64 a, guint64 b)
{
  guint64 r = 0;
  return g_uint64_checked_add (&r, a, b) ? r : G_MAXUINT64;
}

static gboolean G_GNUC_PRINTF (3, 4)
gen_fail (const NetGenParams *p, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", net_gen_name (p->kind), msg);
  return FALSE;
}

static gboolean
gen_check_link (const NetGenParams *p, const NetGenLink *l, const char *what, GError **error)
{
  if (!(l->bandwidth_Bps > 0.0) || !isfinite (l->bandwidth_Bps))
    return gen_fail (p, error, "%s must be a positive number of bytes/s", what);
  return TRUE;
}

static void
gen_link (NetGraphSpec *g, const NetGenParams *p, guint32 a, guint32 b, const NetGenLink *l)
{
  net_graph_spec_add_link (g, a, b, l->bandwidth_Bps, l->latency, TRUE, p->line);
}

static guint32 G_GNUC_PRINTF (2, 3)
gen_switch (NetGraphSpec *g, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *name = g_strdup_vprintf (format, ap);
  va_end (ap);
  return net_graph_spec_add_switch (g, name);
}

static void
gen_dim (NetSpec *spec, NetDimKind kind, guint32 size, const NetGenLink *l)
{
  spec->dims[spec->n_dims++] = (NetDimSpec) { .kind = kind, .size = size,
                                              .bandwidth_Bps = l->bandwidth_Bps,
                                              .latency = l->latency };
}

/* ---- fat-tree ------------------------------------------------------------- */

static gboolean
fat_tree_count (const NetGenParams *p, GenCounts *c, GError **error)
{
  guint64 k = p->fat_tree.k, o = p->fat_tree.oversubscription, half = k / 2;
  if (k < 2 || k % 2 != 0)
    return gen_fail (p, error, "k must be an even number of at least 2, not %" G_GUINT64_FORMAT,
                     k);
  if (o < 1)
    return gen_fail (p, error, "the oversubscription must be at least 1");
  if (!gen_check_link (p, &p->fat_tree.link, "the bandwidth", error))
    return FALSE;
  /* o k/2 hosts under each of k k/2 edge switches. */
  c->ranks = mul_sat (mul_sat (o, half), k * half);
  c->switches = add_sat (k * k, half * half);
  /* Edge to aggregation and aggregation to core: k^3/4 each. */
  c->links = add_sat (c->ranks, mul_sat (2 * half, mul_sat (k, half)));
  return TRUE;
}

/* Switches in order: per pod its k/2 edges then its k/2 aggregations, then
 * the cores, so that the device numbers follow from the indices. */
static void
fat_tree_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint32 k = p->fat_tree.k, half = k / 2, hosts = p->fat_tree.oversubscription * half;
  const NetGenLink *l = &p->fat_tree.link;
  guint32 base = g->ranks;
  for (guint32 pod = 0; pod < k; pod++)
    {
      for (guint32 i = 0; i < half; i++)
        gen_switch (g, "edge%u.%u", pod, i);
      for (guint32 i = 0; i < half; i++)
        gen_switch (g, "agg%u.%u", pod, i);
    }
  for (guint32 j = 0; j < half * half; j++)
    gen_switch (g, "core%u", j);
  guint32 cores = base + k * k;
  for (guint32 pod = 0; pod < k; pod++)
    for (guint32 e = 0; e < half; e++)
      {
        guint32 edge = base + pod * k + e;
        for (guint32 h = 0; h < hosts; h++)
          gen_link (g, p, h + hosts * (e + half * pod), edge, l);
        for (guint32 a = 0; a < half; a++)
          gen_link (g, p, edge, base + pod * k + half + a, l);
      }
  for (guint32 pod = 0; pod < k; pod++)
    for (guint32 a = 0; a < half; a++)
      for (guint32 j = 0; j < half; j++)
        gen_link (g, p, base + pod * k + half + a, cores + a * half + j, l);
  gen_dim (spec, NET_DIM_SWITCH, hosts, l);
  gen_dim (spec, NET_DIM_SWITCH, half, l);
  gen_dim (spec, NET_DIM_SWITCH, k, l);
}

/* ---- torus ---------------------------------------------------------------- */

/* Duplex links along one dimension of `size` among `ranks` ranks: one per
 * rank to its + neighbour (which is also the neighbour's - link), but a
 * single pair when the + and - neighbours are the same rank. */
static guint64
torus_dim_links (guint64 ranks, guint32 size)
{
  return size >= 3 ? ranks : size == 2 ? ranks / 2 : 0;
}

static gboolean
torus_count (const NetGenParams *p, GenCounts *c, GError **error)
{
  guint n = p->torus.n_dims;
  if (n < 1 || n > 3)
    return gen_fail (p, error, "1 to 3 dimensions, not %u", n);
  c->ranks = 1;
  for (guint d = 0; d < n; d++)
    {
      if (p->torus.size[d] == 0)
        return gen_fail (p, error, "dimension %u has size 0", d);
      c->ranks = mul_sat (c->ranks, p->torus.size[d]);
    }
  if (!gen_check_link (p, &p->torus.link, "the bandwidth", error))
    return FALSE;
  c->switches = 0;
  c->links = 0;
  for (guint d = 0; d < n; d++)
    c->links = add_sat (c->links, torus_dim_links (c->ranks, p->torus.size[d]));
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
            gen_link (g, p, r, r - here * stride + ((here + 1) % size) * stride, &p->torus.link);
          stride *= size;
        }
    }
  for (guint d = 0; d < n; d++)
    gen_dim (spec, NET_DIM_RING, p->torus.size[d], &p->torus.link);
}

/* ---- rail ----------------------------------------------------------------- */

static gboolean
rail_count (const NetGenParams *p, GenCounts *c, GError **error)
{
  if (p->rail.nodes == 0 || p->rail.gpus == 0)
    return gen_fail (p, error, "nodes and gpus must be at least 1");
  if (!gen_check_link (p, &p->rail.nvlink, "the nvlink bandwidth", error)
      || !gen_check_link (p, &p->rail.nic, "the nic bandwidth", error))
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
    gen_switch (g, "nvs%u", n);
  for (guint32 i = 0; i < gpus; i++)
    gen_switch (g, "rail%u", i);
  for (guint32 n = 0; n < nodes; n++)
    for (guint32 i = 0; i < gpus; i++)
      {
        gen_link (g, p, i + gpus * n, nvs + n, &p->rail.nvlink);
        gen_link (g, p, i + gpus * n, rails + i, &p->rail.nic);
      }
  gen_dim (spec, NET_DIM_SWITCH, gpus, &p->rail.nvlink);
  gen_dim (spec, NET_DIM_SWITCH, nodes, &p->rail.nic);
}

/* ---- dragonfly ------------------------------------------------------------ */

static guint64
dragonfly_groups (const NetGenParams *p)
{
  guint64 most = (guint64) p->dragonfly.routers * p->dragonfly.global_links + 1;
  return p->dragonfly.groups != 0 ? p->dragonfly.groups : most;
}

static gboolean
dragonfly_count (const NetGenParams *p, GenCounts *c, GError **error)
{
  guint64 a = p->dragonfly.routers, ppr = p->dragonfly.ranks_per_router;
  guint64 h = p->dragonfly.global_links, g = dragonfly_groups (p);
  if (a == 0 || ppr == 0 || h == 0)
    return gen_fail (p, error, "routers, ranks-per-router and global-links must be at least 1");
  if (g > a * h + 1)
    return gen_fail (p, error,
                     "%" G_GUINT64_FORMAT " groups need %" G_GUINT64_FORMAT
                     " global links per group, but %" G_GUINT64_FORMAT " routers with %"
                     G_GUINT64_FORMAT " each have %" G_GUINT64_FORMAT
                     " (at most %" G_GUINT64_FORMAT " groups)",
                     g, g - 1, a, h, a * h, a * h + 1);
  if (!gen_check_link (p, &p->dragonfly.local, "the local bandwidth", error)
      || !gen_check_link (p, &p->dragonfly.global, "the global bandwidth", error))
    return FALSE;
  c->switches = mul_sat (a, g);
  c->ranks = mul_sat (ppr, c->switches);
  c->links = add_sat (add_sat (c->ranks, mul_sat (c->switches, a - 1) / 2),
                      mul_sat (g, g - 1) / 2);
  return TRUE;
}

static void
dragonfly_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint32 a = p->dragonfly.routers, ppr = p->dragonfly.ranks_per_router;
  guint32 groups = (guint32) dragonfly_groups (p), base = g->ranks;
  const NetGenLink *local = &p->dragonfly.local, *global = &p->dragonfly.global;
  for (guint32 grp = 0; grp < groups; grp++)
    for (guint32 r = 0; r < a; r++)
      gen_switch (g, "router%u.%u", grp, r);
  for (guint32 rt = 0; rt < a * groups; rt++)
    {
      for (guint32 i = 0; i < ppr; i++)
        gen_link (g, p, i + ppr * rt, base + rt, local);
      for (guint32 s = rt % a + 1; s < a; s++)
        gen_link (g, p, base + rt, base + rt - rt % a + s, local);
    }
  /* One global link per pair of groups: G's port (T - G - 1) mod g to T's
   * port (G - T - 1) mod g, port i on router i mod a (gen_topo.h). */
  g_assert (groups < 2 || a > 0);
  for (guint32 grp = 0; grp < groups; grp++)
    for (guint32 other = grp + 1; other < groups; other++)
      {
        guint32 from = (other - grp - 1) % a, to = (groups + grp - other - 1) % a;
        gen_link (g, p, base + grp * a + from, base + other * a + to, global);
      }
  gen_dim (spec, NET_DIM_SWITCH, ppr, local);
  gen_dim (spec, NET_DIM_SWITCH, a, local);
  gen_dim (spec, NET_DIM_SWITCH, groups, global);
}

/* ---- the table ------------------------------------------------------------ */

static const GenClass gen_classes[NET_GEN_N] = {
  [NET_GEN_FAT_TREE] = { "fat-tree", fat_tree_count, fat_tree_build },
  [NET_GEN_TORUS] = { "torus", torus_count, torus_build },
  [NET_GEN_RAIL] = { "rail", rail_count, rail_build },
  [NET_GEN_DRAGONFLY] = { "dragonfly", dragonfly_count, dragonfly_build },
};

const char *
net_gen_name (NetGenKind kind)
{
  return (guint) kind < NET_GEN_N ? gen_classes[kind].name : "unknown";
}

gboolean
net_gen_parse_name (const char *name, NetGenKind *out)
{
  for (guint i = 0; i < NET_GEN_N; i++)
    if (g_strcmp0 (name, gen_classes[i].name) == 0)
      {
        *out = (NetGenKind) i;
        return TRUE;
      }
  return FALSE;
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

guint64
net_gen_ranks (const NetGenParams *p)
{
  g_return_val_if_fail (p != NULL && (guint) p->kind < NET_GEN_N, 0);
  GenCounts c;
  return gen_classes[p->kind].count (p, &c, NULL) ? c.ranks : 0;
}

gboolean
net_gen_topology (const NetGenParams *p, NetSpec *spec, NetGraphSpec **graph_out,
                  GError **error)
{
  g_return_val_if_fail (p != NULL && spec != NULL && graph_out != NULL, FALSE);
  g_return_val_if_fail ((guint) p->kind < NET_GEN_N, FALSE);
  const GenClass *cls = &gen_classes[p->kind];
  GenCounts c;
  if (!cls->count (p, &c, error))
    return FALSE;
  if (c.ranks > NET_GEN_MAX_RANKS)
    return gen_fail (p, error,
                     "%" G_GUINT64_FORMAT " ranks is more than the %d supported",
                     c.ranks, NET_GEN_MAX_RANKS);
  /* Device and link numbers are 32-bit; ask for no more than half of that
   * range of directed links, as the dimension layout does (links.c). */
  if (add_sat (c.ranks, c.switches) > G_MAXINT32 || c.links > G_MAXUINT32 / 4)
    return gen_fail (p, error, "%" G_GUINT64_FORMAT " switches and %" G_GUINT64_FORMAT
                     " duplex links are too many to model",
                     c.switches, c.links);
  g_autoptr (NetGraphSpec) g = net_graph_spec_new ((guint32) c.ranks);
  NetSpec built = *spec;
  built.n_dims = 0;
  cls->build (p, g, &built);
  g_assert (g->switches == c.switches && g->links->len == 2 * c.links);
  built.graph = g;
  *spec = built;
  *graph_out = g_steal_pointer (&g);
  return TRUE;
}
