/* test_line_shared.c: collectives in flight at once on the same lines start
 * their chunk phases in one order per line, whichever collective a phase
 * belongs to (system/coll.c, line_allows), so that two collectives a rank
 * really runs at once (two `comm` slots, or separate streams) finish, and a
 * true circular wait is still reported.
 *
 * test_concurrent_finish: test_line_order.c's fat-tree-32 (k = 4, 2:1 at
 * the edge, Switch 4 x Switch 2 x Switch 4 at 50 GB/s, 1 us per hop,
 * splits 4, one chunk phase per dimension at a time, localBWAware) with its
 * two pairs of 2 MiB all-reduces issued at time 0, each pair run at once,
 * by either trigger, under every network model.  Before the line order was
 * shared, ranks 0-3 started the first all-reduce's chunk 2 reduce-scatter
 * on dimension 1 while their peers 4-7 started the second's chunk 0
 * all-gather there, and the run stopped in a false deadlock.  No closed
 * form for the contended times: the run finishes (exit status 0, in every
 * mode: tu_run_modes) and no rank ends before its host link's bandwidth
 * floor (test_line_order.c works the floors out).
 *
 * test_forced_order: a closed form.  Four ranks on one 1-D Ring of 4
 * (50 GB/s, 1 us per hop; the analytical model, exact ps; splits 1; one
 * chunk phase at a time), two 1 MiB (S) all-reduces A and B on two groups
 * of the same four ranks, A on group 1, B on group 2.  Ranks 0 and 1 issue
 * A first, ranks 2 and 3 issue B first, all at time 0 and with two comm
 * slots, so both are in flight at once.  Rank 0, the first to start a phase
 * on the line, starts A's; the line's order then makes ranks 2 and 3 hold
 * B until they have started A, and B runs after A everywhere.  One ring
 * all-reduce on 4 is one phase of 6 steps of S/4 = 262,144 bytes, the
 * first 3 reducing:
 *   - 6 x (1 hop x 1 us + 262,144 B / 50 GB/s = 5,242,880 ps)
 *     = 37,457,280 ps;
 *   - 3 reducing steps of 3 passes over 262,144 bytes at 3350 GB/s, each
 *     rounded up to the ps (78,252 ps): 704,268 ps;
 *   - endpoint delay (10 ns) once for the phase and once per message
 *     received: 7 x 10 ns = 70,000 ps;
 * T = 38,231,548 ps for A; B starts when A ends and takes as long: every
 * rank finishes at 2 T = 76,463,096 ps.  Before, ranks 0-1 ran A and 2-3
 * ran B and each pair waited for the other for ever.
 *
 * test_true_deadlock_reported: the same two orders with one comm slot is a
 * real circular wait (rank 0 is in A until rank 2 joins it, rank 2 in B
 * until rank 0 does), as it would be in a real run: it must still be
 * reported, and so must a point-to-point one (each of two ranks receives
 * before it sends). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "support/modes.h"
#include "support/testutil.h"

#define RANKS 32
#define PAIR_BYTES 2097152

static const char *const models[] = { "analytical", "flow", "congestion" };

/* The two triggers: two comm slots, or separate streams (each collective on
 * its own `stream`). */
static const char *const triggers[] = { "<slots comm=\"2\"/>",
                                        "<slots comm-streams=\"separate\"/>" };

static char *
write_fat_tree (guint trigger)
{
  g_autofree char *xml = g_strdup_printf (
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cluster name=\"fat-tree-32\" rounding=\"ps\">\n"
    "  <network model=\"flow\">\n"
    "    <fat-tree k=\"4\" oversubscription=\"2\" bandwidth=\"400Gb/s\" latency=\"1us\"/>\n"
    "  </network>\n"
    "  <system scheduling=\"LIFO\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"1\"\n"
    "          splits=\"4\" collective-optimization=\"localBWAware\"\n"
    "          local-mem-bw=\"3350GB/s\" reduction-passes=\"3\"/>\n"
    "  %s\n"
    "</cluster>\n",
    triggers[trigger]);
  return tu_write_file ("fat-tree-32.xml", xml);
}

/* Every rank's finish time (ps) from a --stats CSV, rank by rank, into
 * finish[0 .. ranks - 1]. */
static void
read_finish (const char *csv, guint64 *finish, guint ranks)
{
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (csv, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint rows = 0;
  for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++, rows++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], ",", 3);
      ck_assert (f[0] != NULL && f[1] != NULL);
      ck_assert_uint_eq (strtoull (f[0], NULL, 10), rows);
      ck_assert_uint_lt (rows, ranks);
      finish[rows] = strtoull (f[1], NULL, 10);
    }
  ck_assert_uint_eq (rows, ranks);
}

/* test_line_order.c's pairs: both all-reduces on the world, or a "TP" one
 * on blocks of 8 and a "DP" one on ranks = i mod 4 (sharing dimension 1),
 * with the floor of each (test_line_order.c: 2 x 2 (n - 1) / n x 2 MiB
 * through a 50 GB/s host link). */
static const struct
{
  const char *name;
  guint tp_block; /* 0: both on the world group */
  guint dp_mod;
  guint64 floor_ps;
} pairs[] = {
  { "two world all-reduces", 0, 0, G_GUINT64_CONSTANT (162529280) },
  { "TP and DP sharing dimension 1", 8, 4, G_GUINT64_CONSTANT (146800640) },
};

/* The --comm-groups file of pair P (TP groups 1 .. 32 / block, DP groups
 * after them); NULL for the world pair. */
static char *
write_pair_groups (guint p)
{
  if (pairs[p].tp_block == 0)
    return NULL;
  g_autoptr (GString) s = g_string_new ("{");
  guint id = 1;
  for (guint b = 0; b < RANKS / pairs[p].tp_block; b++, id++)
    {
      g_string_append_printf (s, "%s\"%u\": [", id > 1 ? ", " : "", id);
      for (guint r = 0; r < pairs[p].tp_block; r++)
        g_string_append_printf (s, "%s%u", r > 0 ? ", " : "", b * pairs[p].tp_block + r);
      g_string_append_c (s, ']');
    }
  for (guint m = 0; m < pairs[p].dp_mod; m++, id++)
    {
      g_string_append_printf (s, ", \"%u\": [", id);
      for (guint r = m; r < RANKS; r += pairs[p].dp_mod)
        g_string_append_printf (s, "%s%u", r > m ? ", " : "", r);
      g_string_append_c (s, ']');
    }
  g_string_append (s, "}\n");
  return tu_write_file ("groups.json", s->str);
}

/* _i: (trigger * pairs + pair) * models + model. */
START_TEST (test_concurrent_finish)
{
  guint n_models = G_N_ELEMENTS (models), n_pairs = G_N_ELEMENTS (pairs);
  const char *model = models[_i % n_models];
  guint p = (guint) _i / n_models % n_pairs;
  guint trigger = (guint) _i / n_models / n_pairs;
  g_autofree char *cfg = write_fat_tree (trigger);
  g_autofree char *wl = tu_scratch_path ("pair");
  g_autofree char *groups = write_pair_groups (p);
  for (guint32 r = 0; r < RANKS; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_coll (1, 0, PAIR_BYTES), tu_coll (2, 0, PAIR_BYTES) };
      for (guint k = 0; k < 2; k++)
        tu_node_attr_int (nodes[k], "stream", k + 1);
      if (groups != NULL)
        {
          g_autofree char *tp = g_strdup_printf ("%u", 1 + r / pairs[p].tp_block);
          g_autofree char *dp = g_strdup_printf ("%u", 1 + RANKS / pairs[p].tp_block
                                                           + r % pairs[p].dp_mod);
          tu_node_attr_string (nodes[0], "pg_name", tp);
          tu_node_attr_string (nodes[1], "pg_name", dp);
        }
      tu_write_rank (wl, r, nodes, 2);
    }
  g_autofree char *csv = tu_scratch_path ("stats.csv");
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        "--network-model", model, "--stats", csv,
                        groups != NULL ? "--comm-groups" : NULL, groups, NULL };
  g_autofree char *out = NULL;
  int status = tu_run_modes (&out, run);
  ck_assert_msg (status == 0, "%s, %s, %s: exit status %d:\n%s", triggers[trigger],
                 pairs[p].name, model, status, out);
  guint64 finish[RANKS];
  read_finish (csv, finish, RANKS);
  for (guint r = 0; r < RANKS; r++)
    ck_assert_msg (finish[r] >= pairs[p].floor_ps,
                   "%s, %s: rank %u finished at %" G_GUINT64_FORMAT " ps, before the "
                   "bandwidth floor %" G_GUINT64_FORMAT " ps", pairs[p].name, model, r,
                   finish[r], pairs[p].floor_ps);
}
END_TEST

#define RING 4
#define RING_BYTES 1048576
#define FORCED_PS G_GUINT64_CONSTANT (76463096)

/* test_forced_order's cluster with COMM comm slots. */
static char *
write_ring (guint comm)
{
  g_autofree char *xml = g_strdup_printf (
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cluster name=\"ring-4\" rounding=\"ps\">\n"
    "  <network model=\"analytical\">\n"
    "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"50GB/s\" latency=\"1us\"/>\n"
    "  </network>\n"
    "  <system scheduling=\"LIFO\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"1\"\n"
    "          splits=\"1\" local-mem-bw=\"3350GB/s\" reduction-passes=\"3\"/>\n"
    "  <slots comm=\"%u\"/>\n"
    "</cluster>\n",
    comm);
  return tu_write_file ("ring-4.xml", xml);
}

/* test_forced_order's workload: A on group 1, B on group 2 (both ranks
 * 0-3), ranks 0-1 issuing A first, ranks 2-3 B first; the --comm-groups
 * file into *groups. */
static char *
write_crossed (char **groups)
{
  *groups = tu_write_file ("crossed.json", "{\"1\": [0, 1, 2, 3], \"2\": [0, 1, 2, 3]}\n");
  g_autofree char *wl = tu_scratch_path ("crossed");
  for (guint32 r = 0; r < RING; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_coll (1, 0, RING_BYTES), tu_coll (2, 0, RING_BYTES) };
      tu_node_attr_string (nodes[0], "pg_name", r < RING / 2 ? "1" : "2");
      tu_node_attr_string (nodes[1], "pg_name", r < RING / 2 ? "2" : "1");
      tu_write_rank (wl, r, nodes, 2);
    }
  return g_steal_pointer (&wl);
}

START_TEST (test_forced_order)
{
  g_autofree char *cfg = write_ring (2);
  g_autofree char *groups = NULL;
  g_autofree char *wl = write_crossed (&groups);
  g_autofree char *csv = tu_scratch_path ("stats.csv");
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        "--comm-groups", groups, "--stats", csv, NULL };
  g_autofree char *out = NULL;
  int status = tu_run_modes (&out, run);
  ck_assert_msg (status == 0, "exit status %d:\n%s", status, out);
  guint64 finish[RING];
  read_finish (csv, finish, RING);
  for (guint r = 0; r < RING; r++)
    ck_assert_msg (finish[r] == FORCED_PS, "rank %u finished at %" G_GUINT64_FORMAT
                   " ps, not 2 T = %" G_GUINT64_FORMAT " ps:\n%s", r, finish[r], FORCED_PS,
                   out);
}
END_TEST

/* _i 0: the crossed collectives with one comm slot; 1: two ranks that each
 * receive from the other before sending. */
START_TEST (test_true_deadlock_reported)
{
  g_autofree char *cfg = write_ring (1);
  g_autofree char *groups = NULL;
  g_autofree char *wl = NULL;
  if (_i == 0)
    wl = write_crossed (&groups);
  else
    {
      wl = tu_scratch_path ("p2p");
      for (guint32 r = 0; r < RING; r++)
        {
          guint32 peer = r ^ 1;
          ChakraProtoMsg__Node *nodes[] = { tu_p2p (1, 6, peer, r, 7, 4096),
                                            tu_p2p (2, 5, r, peer, 7, 4096) };
          tu_node_dep (nodes[1], 1);
          tu_write_rank (wl, r, nodes, 2);
        }
    }
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        groups != NULL ? "--comm-groups" : NULL, groups, NULL };
  g_autofree char *out = NULL;
  int status = tu_run (&out, run);
  ck_assert_msg (status == 3, "exit status %d:\n%s", status, out);
  ck_assert_msg (strstr (out, "deadlock: the event queue is empty") != NULL, "%s", out);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("line_shared");
  TCase *tc = tu_tcase (s, "line_shared", tu_scratch_setup, tu_scratch_teardown, 300);
  tcase_add_loop_test (tc, test_concurrent_finish, 0,
                       (int) (G_N_ELEMENTS (triggers) * G_N_ELEMENTS (pairs)
                              * G_N_ELEMENTS (models)));
  tcase_add_test (tc, test_forced_order);
  tcase_add_loop_test (tc, test_true_deadlock_reported, 0, 2);
  return tu_run_suite (s);
}
