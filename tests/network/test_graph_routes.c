/* test_graph_routes.c: graph routes against a straightforward reference on
 * random small graphs with several link widths.
 *
 * The reference, per (source, destination): the widest width is the widest
 * bandwidth B such that the links at least B wide join them (one
 * breadth-first search per distinct bandwidth); the hops are that search's;
 * at each device the candidates are its out-links, in file order, at least
 * B wide, into a device one hop closer; the pick is graph.h's stable hash of
 * (src, dst, device) modulo their count.  Ranks on switches only (whose
 * routes graph.c derives from their switches') and ranks linked to ranks
 * (searched on their own) both occur.
 */
#include <check.h>

#include "network/graph.h"
#include "support/testutil.h"

/* Hops from every device to dst over the links at least bw wide. */
static void
ref_bfs (const NetGraphSpec *s, guint32 dst, double bw, guint32 *dist)
{
  guint32 n = s->ranks + s->switches;
  for (guint32 v = 0; v < n; v++)
    dist[v] = G_MAXUINT32;
  dist[dst] = 0;
  for (gboolean grew = TRUE; grew;)
    {
      grew = FALSE;
      for (guint i = 0; i < s->links->len; i++)
        {
          const NetGraphLink *l = &g_array_index (s->links, NetGraphLink, i);
          if (l->bandwidth_Bps >= bw && dist[l->to] != G_MAXUINT32
              && dist[l->to] + 1 < dist[l->from])
            dist[l->from] = dist[l->to] + 1, grew = TRUE;
        }
    }
}

static guint32
ref_pick (guint32 src, guint32 dst, guint32 at, guint32 candidates)
{
  guint64 h = ((guint64) src << 42) ^ ((guint64) dst << 21) ^ at;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
  h ^= h >> 31;
  return (guint32) (h % candidates);
}

/* A random graph: `ranks` ranks, `switches` switches; every rank linked
 * to one to three switches, the switches in a ring plus random chords, and
 * with rank_links, random rank-to-rank links; bandwidths from three. */
static NetGraphSpec *
random_graph (GRand *rng, guint32 ranks, guint32 switches, gboolean rank_links)
{
  static const double bws[] = { 400e9, 100e9, 25e9 };
  NetGraphSpec *s = net_graph_spec_new (ranks);
  for (guint32 i = 0; i < switches; i++)
    {
      g_autofree char *name = g_strdup_printf ("s%u", i);
      net_graph_spec_add_switch (s, name);
    }
#define BW bws[g_rand_int_range (rng, 0, 3)]
  for (guint32 r = 0; r < ranks; r++)
    for (gint k = g_rand_int_range (rng, 1, 4); k > 0; k--)
      net_graph_spec_add_link (s, r, ranks + (guint32) g_rand_int_range (rng, 0, (gint) switches),
                               BW, 1000, TRUE, 1);
  for (guint32 i = 0; switches > 1 && i < switches; i++)
    net_graph_spec_add_link (s, ranks + i, ranks + (i + 1) % switches, BW, 1000, TRUE, 2);
  for (gint k = g_rand_int_range (rng, 0, (gint) switches); k > 0; k--)
    {
      guint32 a = (guint32) g_rand_int_range (rng, 0, (gint) switches);
      guint32 b = (guint32) g_rand_int_range (rng, 0, (gint) switches);
      if (a != b)
        net_graph_spec_add_link (s, ranks + a, ranks + b, BW, 1000, g_rand_boolean (rng), 3);
    }
  for (gint k = rank_links ? g_rand_int_range (rng, 1, (gint) ranks) : 0; k > 0; k--)
    {
      guint32 a = (guint32) g_rand_int_range (rng, 0, (gint) ranks);
      guint32 b = (guint32) g_rand_int_range (rng, 0, (gint) ranks);
      if (a != b)
        net_graph_spec_add_link (s, a, b, BW, 1000, TRUE, 4);
    }
#undef BW
  return s;
}

/* Every pair's route, hop by hop, is the reference's; and its hop count. */
static void
check_routes (const NetGraphSpec *s)
{
  static const double bws[] = { 400e9, 100e9, 25e9 };
  g_autoptr (GError) error = NULL;
  g_autoptr (NetGraph) g = net_graph_new (s, &error);
  g_assert_no_error (error);
  guint32 n = s->ranks + s->switches;
  g_autofree guint32 *dist = g_new (guint32, n);
  for (guint32 dst = 0; dst < s->ranks; dst++)
    for (guint32 src = 0; src < s->ranks; src++)
      {
        if (src == dst)
          continue;
        double bw = 0;
        for (guint b = 0; b < G_N_ELEMENTS (bws); b++)
          {
            bw = bws[b];
            ref_bfs (s, dst, bw, dist);
            if (dist[src] != G_MAXUINT32)
              break;
          }
        ck_assert_uint_eq (net_graph_hops (g, src, dst), dist[src]);
        for (guint32 at = src; at != dst;)
          {
            guint32 candidates = 0, pick, want = G_MAXUINT32;
            for (guint i = 0; i < s->links->len; i++)
              {
                const NetGraphLink *l = &g_array_index (s->links, NetGraphLink, i);
                candidates += l->from == at && l->bandwidth_Bps >= bw
                              && dist[l->to] + 1 == dist[at];
              }
            ck_assert_uint_gt (candidates, 0);
            pick = ref_pick (src, dst, at, candidates);
            for (guint i = 0; i < s->links->len && want == G_MAXUINT32; i++)
              {
                const NetGraphLink *l = &g_array_index (s->links, NetGraphLink, i);
                if (l->from == at && l->bandwidth_Bps >= bw && dist[l->to] + 1 == dist[at]
                    && pick-- == 0)
                  want = i;
              }
            ck_assert_uint_eq (net_graph_next (g, at, src, dst), want);
            at = g_array_index (s->links, NetGraphLink, want).to;
          }
      }
}

START_TEST (test_random_routes)
{
  g_autoptr (GRand) rng = g_rand_new_with_seed (17);
  for (guint t = 0; t < 60; t++)
    {
      guint32 ranks = (guint32) g_rand_int_range (rng, 2, 14);
      guint32 switches = (guint32) g_rand_int_range (rng, 1, 7);
      g_autoptr (NetGraphSpec) s = random_graph (rng, ranks, switches, t % 3 == 2);
      check_routes (s);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("graph_routes");
  tcase_add_test (tu_tcase (s, "random_routes", NULL, NULL, 0), test_random_routes);
  return tu_run_suite (s);
}
