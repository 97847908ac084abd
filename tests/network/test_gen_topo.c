/* test_gen_topo.c: topology generators (network/gen_topo.c): device and link
 * counts, names, hop counts and dimension lines against the definitions,
 * parameter errors, the XML elements, and a whole run on an oversubscribed
 * fat-tree.
 *
 * Every expected count and distance is computed here from the generator's
 * definition (gen_topo.h), never read back from the generated graph.
 */
#include <check.h>
#include <string.h>

#include "network/gen_topo.h"
#include "sim/app/simulation.h"
#include "workload/gen.h"
#include "support/modes.h"
#include "support/testutil.h"

#define NS(x) ((SimTime) (x) * 1000)

static const NetGenLink LINK = { 1e9, NS (100) };
static const NetGenLink FAST = { 4e9, NS (10) };

/* A generated network, checked and indexed. */
typedef struct
{
  NetSpec spec;
  NetGraphSpec *gspec;
  NetGraph *graph;
} Built;

static void
built_make (Built *b, const NetGenParams *p)
{
  GError *error = NULL;
  memset (b, 0, sizeof *b);
  b->spec.model = NET_MODEL_FLOW;
  ck_assert (net_gen_topology (p, &b->spec, &b->gspec, &error));
  g_assert_no_error (error);
  ck_assert_ptr_eq (b->spec.graph, b->gspec);
  ck_assert_int_eq (b->spec.model, NET_MODEL_FLOW); /* left alone */
  /* Every rank reaches every other. */
  b->graph = net_graph_new (b->gspec, &error);
  g_assert_no_error (error);
  /* The dimensions are a valid topology whose product is the rank count. */
  NetTopo *topo = net_topo_new (&b->spec, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (net_topo_ranks (topo), b->gspec->ranks);
  net_topo_free (topo);
}

static void
built_clear (Built *b)
{
  net_graph_free (b->graph);
  net_graph_spec_free (b->gspec);
}

static const char *
device_name (const Built *b, guint32 device)
{
  return b->gspec->names->pdata[device];
}

/* Directed links leaving a device. */
static guint32
out_degree (const Built *b, guint32 device)
{
  guint32 n = 0;
  for (guint i = 0; i < b->gspec->links->len; i++)
    n += g_array_index (b->gspec->links, NetGraphLink, i).from == device;
  return n;
}

/* The rank's only neighbour, which must be a switch named `want`. */
static void
assert_attached (const Built *b, guint32 rank, const char *want)
{
  guint32 found = 0;
  for (guint i = 0; i < b->gspec->links->len; i++)
    {
      const NetGraphLink *l = &g_array_index (b->gspec->links, NetGraphLink, i);
      if (l->from == rank && strcmp (device_name (b, l->to), want) == 0)
        found++;
    }
  ck_assert_msg (found == 1, "r%u: %u links to %s", rank, found, want);
}

static void
assert_dim (const Built *b, guint d, NetDimKind kind, guint32 size, const NetGenLink *l)
{
  ck_assert_int_eq (b->spec.dims[d].kind, kind);
  ck_assert_uint_eq (b->spec.dims[d].size, size);
  ck_assert (b->spec.dims[d].bandwidth_Bps == l->bandwidth_Bps);
  ck_assert_uint_eq (b->spec.dims[d].latency, l->latency);
}

/* ---- fat-tree ------------------------------------------------------------- */

/* Counts (k^3/4 edge-aggregation and aggregation-core links each), degrees,
 * dimension lines and hops: a host's edge switch is its rank / (o k/2), its
 * pod rank / (o k^2/4); same edge 2 links, same pod 4, other pod 6. */
START_TEST (test_fat_tree)
{
  static const guint32 cases[][2] = { { 2, 1 }, { 4, 1 }, { 4, 2 }, { 6, 1 }, { 8, 3 } };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint32 k = cases[c][0], o = cases[c][1], half = k / 2, hosts = o * half;
      NetGenParams p = { .kind = NET_GEN_FAT_TREE };
      p.fat_tree.k = k;
      p.fat_tree.oversubscription = o;
      p.fat_tree.link = LINK;
      Built b;
      built_make (&b, &p);
      guint32 ranks = o * k * k * k / 4;
      ck_assert_uint_eq (b.gspec->ranks, ranks);
      ck_assert_uint_eq (b.gspec->switches, k * k + half * half);
      ck_assert_uint_eq (b.gspec->links->len, 2 * (ranks + k * k * k / 2));
      ck_assert_uint_eq (b.spec.n_dims, 3);
      assert_dim (&b, 0, NET_DIM_SWITCH, hosts, &LINK);
      assert_dim (&b, 1, NET_DIM_SWITCH, half, &LINK);
      assert_dim (&b, 2, NET_DIM_SWITCH, k, &LINK);
      for (guint32 r = 0; r < ranks; r++)
        {
          g_autofree char *edge = g_strdup_printf ("edge%u.%u", r / (hosts * half),
                                                   (r / hosts) % half);
          ck_assert_uint_eq (out_degree (&b, r), 1);
          assert_attached (&b, r, edge);
        }
      for (guint32 s = ranks; s < ranks + b.gspec->switches; s++)
        {
          const char *name = device_name (&b, s);
          guint32 want = g_str_has_prefix (name, "edge") ? hosts + half : k;
          ck_assert_msg (out_degree (&b, s) == want, "%s: %u links", name, out_degree (&b, s));
        }
      for (guint32 x = 0; x < ranks; x++)
        for (guint32 y = 0; y < ranks; y++)
          {
            guint32 want = x == y                                   ? 0
                           : x / hosts == y / hosts                 ? 2
                           : x / (hosts * half) == y / (hosts * half) ? 4
                                                                    : 6;
            ck_assert_uint_eq (net_graph_hops (b.graph, x, y), want);
          }
      built_clear (&b);
    }
}
END_TEST

/* Nodes of G GPUs (gpus >= 2) in a fat-tree and a dragonfly: rank r is GPU
 * r % G of node r / G; every GPU has two links, to "nvs<r / G>" (nvlink)
 * and to the switch its node hangs off (nic); the NVSwitch has the G GPUs
 * of its node.  Between two GPUs of a node the route is GPU, NVSwitch, GPU
 * (2 hops, NVLink-wide: wider than the equally short way through the
 * NIC's switch, which plain shortest paths took for half the pairs);
 * between nodes the host-level hops (fat-tree: same edge 2, same pod 4,
 * other pod 6).  Dimensions: (G, NVLink) in front of the fabric's. */
static void
assert_nodes (const Built *b, guint32 gpus, const NetGenLink *nvlink)
{
  ck_assert_int_eq (b->spec.dims[0].link, NET_LINK_NVLINK);
  assert_dim (b, 0, NET_DIM_SWITCH, gpus, nvlink);
  for (guint32 r = 0; r < b->gspec->ranks; r++)
    {
      g_autofree char *nvs = g_strdup_printf ("nvs%u", r / gpus);
      ck_assert_uint_eq (out_degree (b, r), 2);
      assert_attached (b, r, nvs);
      for (guint32 y = r - r % gpus; y < r - r % gpus + gpus; y++)
        if (y != r)
          {
            ck_assert_uint_eq (net_graph_hops (b->graph, r, y), 2);
            guint32 first = net_graph_next (b->graph, r, r, y);
            const NetGraphLink *l = net_graph_link (b->graph, first);
            ck_assert_str_eq (device_name (b, l->to), nvs);
            ck_assert (l->bandwidth_Bps == nvlink->bandwidth_Bps);
          }
    }
  for (guint32 s = b->gspec->ranks; s < b->gspec->ranks + b->gspec->switches; s++)
    if (g_str_has_prefix (device_name (b, s), "nvs"))
      ck_assert_uint_eq (out_degree (b, s), gpus);
}

START_TEST (test_fat_tree_nodes)
{
  static const guint32 cases[][3] = { { 2, 1, 8 }, { 4, 1, 4 }, { 4, 2, 2 } };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint32 k = cases[c][0], o = cases[c][1], gpus = cases[c][2];
      guint32 half = k / 2, hosts = o * half, nodes = o * k * k * k / 4;
      NetGenParams p = { .kind = NET_GEN_FAT_TREE };
      p.fat_tree.k = k;
      p.fat_tree.oversubscription = o;
      p.fat_tree.link = LINK;
      p.fat_tree.gpus = gpus;
      p.fat_tree.nvlink = FAST;
      Built b;
      built_make (&b, &p);
      guint32 ranks = nodes * gpus;
      ck_assert_uint_eq (b.gspec->ranks, ranks);
      ck_assert_uint_eq (b.gspec->switches, k * k + half * half + nodes);
      ck_assert_uint_eq (b.gspec->links->len, 2 * (2 * ranks + k * k * k / 2));
      ck_assert_uint_eq (b.spec.n_dims, 4);
      assert_nodes (&b, gpus, &FAST);
      assert_dim (&b, 1, NET_DIM_SWITCH, hosts, &LINK);
      assert_dim (&b, 2, NET_DIM_SWITCH, half, &LINK);
      assert_dim (&b, 3, NET_DIM_SWITCH, k, &LINK);
      for (guint32 r = 0; r < ranks; r++)
        {
          guint32 node = r / gpus;
          g_autofree char *edge = g_strdup_printf ("edge%u.%u", node / (hosts * half),
                                                   (node / hosts) % half);
          assert_attached (&b, r, edge);
          for (guint32 y = 0; y < ranks; y++)
            {
              guint32 other = y / gpus;
              guint32 want = y == r                                         ? 0
                             : node == other                                ? 2
                             : node / hosts == other / hosts                ? 2
                             : node / (hosts * half) == other / (hosts * half) ? 4
                                                                            : 6;
              ck_assert_uint_eq (net_graph_hops (b.graph, r, y), want);
            }
        }
      built_clear (&b);
    }
}
END_TEST

/* 2 routers a group, 1 terminal a router, 1 global link a router: 3
 * groups, 6 nodes of 4 GPUs (24 ranks), 6 routers + 6 NVSwitches; links:
 * 24 NICs, 24 NVLinks, 3 local, 3 global. */
START_TEST (test_dragonfly_nodes)
{
  NetGenParams p = { .kind = NET_GEN_DRAGONFLY };
  p.dragonfly.routers = 2;
  p.dragonfly.ranks_per_router = 1;
  p.dragonfly.global_links = 1;
  p.dragonfly.local = LINK;
  p.dragonfly.global = LINK;
  p.dragonfly.gpus = 4;
  p.dragonfly.nvlink = FAST;
  Built b;
  built_make (&b, &p);
  ck_assert_uint_eq (b.gspec->ranks, 24);
  ck_assert_uint_eq (b.gspec->switches, 12);
  ck_assert_uint_eq (b.gspec->links->len, 2 * (24 + 24 + 3 + 3));
  ck_assert_uint_eq (b.spec.n_dims, 4);
  assert_nodes (&b, 4, &FAST);
  assert_dim (&b, 1, NET_DIM_SWITCH, 1, &LINK);
  assert_dim (&b, 2, NET_DIM_SWITCH, 2, &LINK);
  assert_dim (&b, 3, NET_DIM_SWITCH, 3, &LINK);
  for (guint32 r = 0; r < 24; r++)
    {
      g_autofree char *router = g_strdup_printf ("router%u.%u", r / 8, (r / 4) % 2);
      assert_attached (&b, r, router);
    }
  built_clear (&b);
}
END_TEST

/* ---- torus ---------------------------------------------------------------- */

/* Manhattan distance with wraparound, coordinates in mixed radix. */
static guint32
torus_distance (const guint32 *size, guint n, guint32 x, guint32 y)
{
  guint32 hops = 0;
  for (guint d = 0; d < n; d++)
    {
      guint32 a = x % size[d], c = y % size[d];
      guint32 fwd = (c + size[d] - a) % size[d];
      hops += MIN (fwd, size[d] - fwd);
      x /= size[d];
      y /= size[d];
    }
  return hops;
}

START_TEST (test_torus)
{
  static const char *const cases[] = { "4x4", "4x4x2", "3x5", "2x2x2", "1x4", "5", "4x1x3" };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      GError *error = NULL;
      NetGenParams p = { .kind = NET_GEN_TORUS };
      ck_assert (net_gen_parse_torus_sizes (cases[c], &p, &error));
      p.torus.link = LINK;
      Built b;
      built_make (&b, &p);
      guint32 ranks = 1, degree = 0;
      for (guint d = 0; d < p.torus.n_dims; d++)
        ranks *= p.torus.size[d];
      /* Per dimension: two neighbours from size 3 on, one at size 2. */
      for (guint d = 0; d < p.torus.n_dims; d++)
        degree += p.torus.size[d] >= 3 ? 2 : p.torus.size[d] == 2 ? 1 : 0;
      ck_assert_uint_eq (b.gspec->ranks, ranks);
      ck_assert_uint_eq (b.gspec->switches, 0);
      ck_assert_uint_eq (b.gspec->links->len, ranks * degree);
      ck_assert_uint_eq (b.spec.n_dims, p.torus.n_dims);
      for (guint d = 0; d < p.torus.n_dims; d++)
        assert_dim (&b, d, NET_DIM_RING, p.torus.size[d], &LINK);
      for (guint32 x = 0; x < ranks; x++)
        {
          ck_assert_uint_eq (out_degree (&b, x), degree);
          for (guint32 y = 0; y < ranks; y++)
            ck_assert_uint_eq (net_graph_hops (b.graph, x, y),
                               torus_distance (p.torus.size, p.torus.n_dims, x, y));
        }
      built_clear (&b);
    }
}
END_TEST

/* ---- rail ----------------------------------------------------------------- */

/* GPU i of node n is rank i + G n, on nvs<n> and rail<i>.  Same node: GPU,
 * NVSwitch, GPU (2).  Same index: GPU, rail, GPU (2).  Otherwise no switch
 * joins the two, so a shortest path (4) changes node and index in two legs
 * through an intermediate GPU that forwards: GPU i of n -> nvs<n> -> GPU j of
 * n -> rail<j> -> GPU j of m, or the other way round via GPU i of m (both
 * are 4 links; the hash picks one per pair). */
START_TEST (test_rail)
{
  static const guint32 cases[][2] = { { 4, 8 }, { 3, 2 }, { 1, 4 }, { 5, 1 } };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint32 nodes = cases[c][0], gpus = cases[c][1], ranks = nodes * gpus;
      NetGenParams p = { .kind = NET_GEN_RAIL };
      p.rail.nodes = nodes;
      p.rail.gpus = gpus;
      p.rail.nvlink = FAST;
      p.rail.nic = LINK;
      Built b;
      built_make (&b, &p);
      ck_assert_uint_eq (b.gspec->ranks, ranks);
      ck_assert_uint_eq (b.gspec->switches, nodes + gpus);
      ck_assert_uint_eq (b.gspec->links->len, 4 * ranks);
      ck_assert_uint_eq (b.spec.n_dims, 2);
      assert_dim (&b, 0, NET_DIM_SWITCH, gpus, &FAST);
      assert_dim (&b, 1, NET_DIM_SWITCH, nodes, &LINK);
      for (guint32 r = 0; r < ranks; r++)
        {
          g_autofree char *nvs = g_strdup_printf ("nvs%u", r / gpus);
          g_autofree char *rail = g_strdup_printf ("rail%u", r % gpus);
          ck_assert_uint_eq (out_degree (&b, r), 2);
          assert_attached (&b, r, nvs);
          assert_attached (&b, r, rail);
        }
      for (guint32 x = 0; x < ranks; x++)
        for (guint32 y = 0; y < ranks; y++)
          {
            guint32 want = x == y                                      ? 0
                           : x / gpus == y / gpus || x % gpus == y % gpus ? 2
                                                                       : 4;
            ck_assert_uint_eq (net_graph_hops (b.graph, x, y), want);
            if (want != 4)
              continue;
            /* The device after the first switch is the forwarding GPU. */
            guint32 at = net_graph_link (b.graph, net_graph_next (b.graph, x, x, y))->to;
            guint32 mid = net_graph_link (b.graph, net_graph_next (b.graph, at, x, y))->to;
            ck_assert (mid == y % gpus + gpus * (x / gpus) || mid == x % gpus + gpus * (y / gpus));
          }
      built_clear (&b);
    }
}
END_TEST

/* ---- dragonfly ------------------------------------------------------------ */

/* Rank r is on router (r / p) mod a of group r / (p a).  Same router: 2
 * links; same group: 3 (terminal, local, terminal); other groups: 3 to 5
 * (terminal, [local], global, [local], terminal) as every pair of groups
 * has its own global link.  Global ports: each router has at most h, and
 * exactly h when g = a h + 1. */
START_TEST (test_dragonfly)
{
  /* routers a, ranks per router p, global links h, groups g (0: a h + 1) */
  static const guint32 cases[][4]
      = { { 4, 2, 2, 0 }, { 4, 2, 2, 9 }, { 4, 1, 2, 5 }, { 2, 3, 1, 3 }, { 1, 2, 1, 0 },
          { 3, 1, 2, 1 } };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint32 a = cases[c][0], ppr = cases[c][1], h = cases[c][2];
      guint32 g = cases[c][3] != 0 ? cases[c][3] : a * h + 1, ranks = ppr * a * g;
      NetGenParams p = { .kind = NET_GEN_DRAGONFLY };
      p.dragonfly.routers = a;
      p.dragonfly.ranks_per_router = ppr;
      p.dragonfly.global_links = h;
      p.dragonfly.groups = cases[c][3];
      p.dragonfly.local = FAST;
      p.dragonfly.global = LINK;
      Built b;
      built_make (&b, &p);
      ck_assert_uint_eq (b.gspec->ranks, ranks);
      ck_assert_uint_eq (b.gspec->switches, a * g);
      ck_assert_uint_eq (b.gspec->links->len, 2 * (ranks + g * a * (a - 1) / 2 + g * (g - 1) / 2));
      ck_assert_uint_eq (b.spec.n_dims, 3);
      assert_dim (&b, 0, NET_DIM_SWITCH, ppr, &FAST);
      assert_dim (&b, 1, NET_DIM_SWITCH, a, &FAST);
      assert_dim (&b, 2, NET_DIM_SWITCH, g, &LINK);
      for (guint32 r = 0; r < ranks; r++)
        {
          g_autofree char *router = g_strdup_printf ("router%u.%u", r / (ppr * a), (r / ppr) % a);
          assert_attached (&b, r, router);
        }
      /* Global links: one per pair of groups, at most h per router. */
      g_autofree guint32 *pairs = g_new0 (guint32, g * g);
      g_autofree guint32 *ports = g_new0 (guint32, a * g);
      const NetGenLink *lk = &p.dragonfly.global;
      for (guint i = 0; i < b.gspec->links->len; i++)
        {
          const NetGraphLink *l = &g_array_index (b.gspec->links, NetGraphLink, i);
          if (l->from < ranks || l->to < ranks || (l->from - ranks) / a == (l->to - ranks) / a)
            continue;
          ck_assert (l->bandwidth_Bps == lk->bandwidth_Bps && l->latency == lk->latency);
          pairs[(l->from - ranks) / a * g + (l->to - ranks) / a]++;
          ports[l->from - ranks]++;
        }
      for (guint32 x = 0; x < g; x++)
        for (guint32 y = 0; y < g; y++)
          ck_assert_uint_eq (pairs[x * g + y], x != y);
      for (guint32 rt = 0; rt < a * g; rt++)
        {
          ck_assert_uint_le (ports[rt], h);
          if (g == a * h + 1)
            ck_assert_uint_eq (ports[rt], h);
        }
      for (guint32 x = 0; x < ranks; x++)
        for (guint32 y = 0; y < ranks; y++)
          {
            guint32 hops = net_graph_hops (b.graph, x, y);
            if (x == y)
              ck_assert_uint_eq (hops, 0);
            else if (x / ppr == y / ppr)
              ck_assert_uint_eq (hops, 2);
            else if (x / (ppr * a) == y / (ppr * a))
              ck_assert_uint_eq (hops, 3);
            else
              ck_assert (hops >= 3 && hops <= 5);
          }
      built_clear (&b);
    }
}
END_TEST

/* ---- errors --------------------------------------------------------------- */

START_TEST (test_gen_errors)
{
  GError *error = NULL;
  NetSpec spec = { 0 };
  NetGraphSpec *g = NULL;
  NetGenParams p = { .kind = NET_GEN_FAT_TREE };
  p.fat_tree.k = 5;
  p.fat_tree.oversubscription = 1;
  p.fat_tree.link = LINK;
  ck_assert (!net_gen_topology (&p, &spec, &g, &error));
  tu_assert_input_error (error, "fat-tree: k must be an even number of at least 2, not 5");
  g_clear_error (&error);
  /* 2048^3 / 4 = 2^31 ranks: one too many. */
  p.fat_tree.k = 2048;
  ck_assert_uint_eq (net_gen_ranks (&p), G_GUINT64_CONSTANT (1) << 31);
  ck_assert (!net_gen_topology (&p, &spec, &g, &error));
  tu_assert_input_error (error, "2147483648 ranks is more than the 2147483647 supported");
  g_clear_error (&error);
  p.fat_tree.k = 4;
  p.fat_tree.link.bandwidth_Bps = 0;
  ck_assert (!net_gen_topology (&p, &spec, &g, &error));
  tu_assert_input_error (error, "fat-tree: the bandwidth must be a positive number");
  g_clear_error (&error);

  NetGenParams t = { .kind = NET_GEN_TORUS };
  ck_assert (!net_gen_parse_torus_sizes ("4x0", &t, &error));
  tu_assert_input_error (error, "'4x0' is not 1 to 3 sizes");
  g_clear_error (&error);
  ck_assert (!net_gen_parse_torus_sizes ("2x2x2x2", &t, &error));
  g_clear_error (&error);
  ck_assert (!net_gen_parse_torus_sizes ("4x", &t, &error));
  g_clear_error (&error);

  NetGenParams d = { .kind = NET_GEN_DRAGONFLY };
  d.dragonfly.routers = 2;
  d.dragonfly.ranks_per_router = 1;
  d.dragonfly.global_links = 1;
  d.dragonfly.groups = 4;
  d.dragonfly.local = d.dragonfly.global = LINK;
  ck_assert (!net_gen_topology (&d, &spec, &g, &error));
  tu_assert_input_error (error, "(at most 3 groups)");
  g_clear_error (&error);
  ck_assert_ptr_null (g);
  ck_assert_uint_eq (spec.n_dims, 0);
}
END_TEST

/* ---- XML ------------------------------------------------------------------ */

static gboolean
load_xml (const char *network, AppConfig *cfg, GError **error)
{
  g_autofree char *path = tu_scratch_path ("net.xml");
  g_autofree char *xml = g_strdup_printf (
      "<cluster rounding=\"ps\">\n"
      "  <network>\n"
      "%s"
      "  </network>\n"
      "  <system endpoint-delay=\"0ns\" splits=\"1\" reduction-passes=\"0\"/>\n"
      "</cluster>\n",
      network);
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  app_config_init (cfg);
  return app_config_load_xml (cfg, path, error);
}

/* Each element loads into the graph and dimensions its definition gives. */
START_TEST (test_xml_elements)
{
  static const struct
  {
    const char *xml;
    guint32 ranks, switches, dim0;
    guint line; /* libxml2 numbers an element by the line its start tag ends on */
  } cases[] = {
    { "    <fat-tree k=\"4\" bandwidth=\"50GB/s\" latency=\"1us\" oversubscription=\"2\"/>\n", 32,
      20, 4, 3 },
    { "    <torus dims=\"4x4x2\" bandwidth=\"50GB/s\" latency=\"500ns\"/>\n", 32, 0, 4, 3 },
    { "    <rail nodes=\"4\" nvlink-bandwidth=\"450GB/s\" nvlink-latency=\"500ns\"\n"
      "          nic-bandwidth=\"400Gb/s\" nic-latency=\"2us\"/>\n",
      32, 12, 8, 4 },
    { "    <dragonfly routers=\"4\" ranks-per-router=\"2\" global-links=\"2\"\n"
      "       local-bandwidth=\"50GB/s\" local-latency=\"1us\"\n"
      "       global-bandwidth=\"25GB/s\" global-latency=\"2us\"/>\n",
      72, 36, 2, 5 },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      GError *error = NULL;
      AppConfig cfg;
      ck_assert (load_xml (cases[c].xml, &cfg, &error));
      g_assert_no_error (error);
      ck_assert_ptr_nonnull (cfg.graph);
      ck_assert_ptr_eq (cfg.net.graph, cfg.graph);
      ck_assert_uint_eq (cfg.graph->ranks, cases[c].ranks);
      ck_assert_uint_eq (cfg.graph->switches, cases[c].switches);
      ck_assert_uint_eq (cfg.net.dims[0].size, cases[c].dim0);
      ck_assert_uint_eq (g_array_index (cfg.graph->links, NetGraphLink, 0).line, cases[c].line);
      app_config_clear (&cfg);
    }
}
END_TEST

START_TEST (test_xml_errors)
{
  static const struct
  {
    const char *xml, *message;
  } cases[] = {
    { "    <fat-tree k=\"3\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:3: fat-tree: k must be an even number of at least 2, not 3" },
    { "    <fat-tree k=\"0\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:3: <fat-tree>: k '0' is not a whole number" },
    { "    <fat-tree k=\"4\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n"
      "    <dim kind=\"Ring\" size=\"16\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:4: <dim>: cannot be combined with <fat-tree> (line 3)" },
    { "    <link from=\"r0\" to=\"r1\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n"
      "    <torus dims=\"4x4\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:3: <link>: cannot be combined with <torus> (line 4)" },
    { "    <torus dims=\"4x4\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n"
      "    <torus dims=\"4x4\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:4: <torus>: a second generator in <network> (<torus> is on line 3)" },
    { "    <torus dims=\"4x0\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:3: <torus dims>: '4x0' is not 1 to 3 sizes" },
    { "    <torus dims=\"65536x65536\" bandwidth=\"1GB/s\" latency=\"1us\"/>\n",
      "net.xml:3: torus: 4294967296 ranks is more than the 2147483647 supported" },
    { "    <rail nodes=\"4\" nvlink-bandwidth=\"450GB/s\" nvlink-latency=\"500ns\"/>\n",
      "net.xml:3: <rail>: missing attribute 'nic-bandwidth'" },
    { "    <dragonfly routers=\"2\" ranks-per-router=\"1\" global-links=\"1\" groups=\"4\" "
      "local-bandwidth=\"1GB/s\" local-latency=\"1us\" global-bandwidth=\"1GB/s\" "
      "global-latency=\"1us\"/>\n",
      "net.xml:3: dragonfly: 4 groups need 3 global links per group" },
    { "    <fat-tree k=\"4\" bandwidth=\"1GB/s\" latency=\"1us\" radix=\"4\"/>\n",
      "net.xml:3: <fat-tree>: unknown attribute 'radix'" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      GError *error = NULL;
      AppConfig cfg;
      ck_assert_msg (!load_xml (cases[c].xml, &cfg, &error), "case %u loaded", c);
      tu_assert_input_error (error, cases[c].message);
      g_clear_error (&error);
      app_config_clear (&cfg);
    }
}
END_TEST

/* ---- a whole run ---------------------------------------------------------- */

/* The end time of an all-to-all of `bytes` per rank over the network the
 * cluster file describes, under `model`. */
static SimTime
run_all_to_all (const char *network, const char *model, guint64 bytes)
{
  GError *error = NULL;
  AppConfig cfg;
  ck_assert (load_xml (network, &cfg, &error));
  g_assert_no_error (error);
  ck_assert (net_model_parse (model, &cfg.net.model));
  g_autofree char *wl = tu_scratch_path ("a2a");
  ck_assert (wl_gen_collective (wl, SYS_COLL_ALL_TO_ALL, cfg.graph->ranks, bytes, NULL));
  g_autoptr (AppSim) sim = tu_sim_all_modes_ok (&cfg, wl);
  SimTime end = app_sim_end_time (sim);
  g_clear_pointer (&sim, app_sim_free);
  app_config_clear (&cfg);
  return end;
}

static char *
fat_tree_xml (guint32 k, guint32 o)
{
  return g_strdup_printf ("    <fat-tree k=\"%u\" bandwidth=\"1GB/s\" latency=\"1ns\" "
                          "oversubscription=\"%u\"/>\n",
                          k, o);
}

/* flow / analytical for an all-to-all of c = 1 MiB per rank at B = 1 byte
 * per ns: about a millisecond per c/B, beside which the 1 ns link
 * latencies are negligible. */
static double
flow_over_analytical (guint32 k, guint32 o, SimTime *analytical)
{
  g_autofree char *xml = fat_tree_xml (k, o);
  *analytical = run_all_to_all (xml, "analytical", 1 << 20);
  SimTime flow = run_all_to_all (xml, "flow", 1 << 20);
  return (double) flow / (double) *analytical;
}

/* With k = 2 every pod has one edge, one aggregation switch and one path
 * out, so no hash chooses among paths and the effect of oversubscription is
 * exact.  Dims o x 1 x 2; the ring all-to-all runs each dimension in turn
 * on the whole chunk c, n(n-1)/2 steps of c/n: o(o-1)/2 steps of c/o under
 * the edge ((o-1)/2 c/B, one flow per host link in both models), then one
 * step of c/2 between the pods, where the o hosts of an edge share its one
 * uplink (bisection 1/o of full): c/(2B) alone, o c/(2B) shared.  So
 * flow / analytical = ((o-1)/2 + o/2) / ((o-1)/2 + 1/2) = (2o - 1) / o:
 * 1, 1.5, 1.75 for o = 1, 2, 4. */
START_TEST (test_bisection_exact)
{
  static const guint32 os[] = { 1, 2, 4 };
  for (guint i = 0; i < G_N_ELEMENTS (os); i++)
    {
      SimTime analytical = 0;
      double ratio = flow_over_analytical (2, os[i], &analytical);
      double want = (2.0 * os[i] - 1) / os[i];
      ck_assert_uint_ge (analytical, NS (os[i] / 2.0 * (1 << 20)));
      ck_assert_msg (ratio > want - 1e-4 && ratio < want + 1e-4, "o = %u: ratio %.6f, not %.4f",
                     os[i], ratio, want);
    }
}
END_TEST

/* k = 4, o = 2: 32 ranks, dims 4 (hosts of an edge) x 2 (edges of a pod) x
 * 4 (pods): 6 steps of c/4 under the edge, 1 step of c/2 between the edges
 * of a pod, 6 steps of c/4 between pods; 3.5 c/B without contention.  The
 * first dimension never leaves an edge switch and costs the same in both
 * models.  In the other two every host sends at once: the o k/2 = 4 hosts
 * of an edge share its k/2 = 2 uplinks (and each pod's 8 hosts its 4 core
 * uplinks, and the same going down), so with o = 2 a flow gets at most B/2
 * and those phases take at least twice as long: flow / analytical >=
 * (1.5 + 2 (0.5 + 1.5)) / 3.5 = 11/7 = 1.57 if the equal-cost paths were
 * shared out perfectly.  They are not: each pair's path is a fixed hash
 * (graph.h), and some links carry 3 to 7 flows in a step where 2 would be
 * even, so the measured ratio is higher (about 3.9; even o = 1 gives about
 * 2.7 for the same reason).  test_bisection_exact isolates the bisection
 * effect on a fat-tree without path choices. */
START_TEST (test_oversubscribed_all_to_all)
{
  SimTime analytical = 0;
  double ratio = flow_over_analytical (4, 2, &analytical);
  ck_assert_uint_ge (analytical, NS (3.5 * (1 << 20)));
  ck_assert_uint_le (analytical, NS (3.5 * (1 << 20) + 1000));
  ck_assert_msg (ratio > 1.3, "flow / analytical = %.3f", ratio);
  ck_assert_msg (ratio >= 11.0 / 7.0 - 1e-3, "ratio %.3f below the bisection bound 11/7", ratio);
  /* Store and forward of whole messages cannot beat fair sharing of the
   * same links: the congestion model is bound by the bisection too. */
  g_autofree char *xml = fat_tree_xml (4, 2);
  SimTime congestion = run_all_to_all (xml, "congestion", 1 << 20);
  double cratio = (double) congestion / (double) analytical;
  ck_assert_msg (cratio >= 11.0 / 7.0 - 1e-3, "congestion / analytical = %.3f", cratio);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("gen_topo");
  tcase_add_test (tu_tcase (s, "fat_tree", NULL, NULL, 0), test_fat_tree);
  tcase_add_test (tu_tcase (s, "fat_tree_nodes", NULL, NULL, 0), test_fat_tree_nodes);
  tcase_add_test (tu_tcase (s, "dragonfly_nodes", NULL, NULL, 0), test_dragonfly_nodes);
  tcase_add_test (tu_tcase (s, "torus", NULL, NULL, 0), test_torus);
  tcase_add_test (tu_tcase (s, "rail", NULL, NULL, 0), test_rail);
  tcase_add_test (tu_tcase (s, "dragonfly", NULL, NULL, 0), test_dragonfly);
  tcase_add_test (tu_tcase (s, "gen_errors", NULL, NULL, 0), test_gen_errors);
  tcase_add_test (tu_tcase (s, "xml_elements", tu_scratch_setup, tu_scratch_teardown, 0),
                  test_xml_elements);
  tcase_add_test (tu_tcase (s, "xml_errors", tu_scratch_setup, tu_scratch_teardown, 0),
                  test_xml_errors);
  tcase_add_test (tu_tcase (s, "bisection_exact", tu_scratch_setup, tu_scratch_teardown, 0),
                  test_bisection_exact);
  tcase_add_test (tu_tcase (s, "oversubscribed_all_to_all", tu_scratch_setup,
                            tu_scratch_teardown, 0),
                  test_oversubscribed_all_to_all);
  return tu_run_suite (s);
}
