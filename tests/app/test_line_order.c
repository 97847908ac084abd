/* test_line_order.c: the members of a line start their chunk phases in one
 * order (system/coll.c, queue_kick), so that an all-reduce whose phases
 * reach the members of a line in different orders still finishes.
 *
 * The smallest case found that deadlocked before: a k = 4 fat-tree with 2:1
 * oversubscription at the edge (32 ranks, Switch 4 x Switch 2 x Switch 4),
 * a 2 MiB all-reduce cut into 4 chunks with one chunk phase in flight per
 * dimension (localBWAware: reduce-scatter on dimensions 0 and 1, all-reduce
 * on 2, all-gather on 1 and 0).  Under the flow and congestion models the
 * shared uplinks make some members finish chunk 0's all-reduce on dimension
 * 2 before chunk 3's reduce-scatter on dimension 0, and their line peers on
 * dimension 1 the other way round; each then started a different chunk
 * phase on dimension 1 and waited for its peer's message for ever ("the
 * event queue is empty", exit status 3).  The analytical model, whose runs
 * are symmetric, finished.
 *
 * What must hold, with no closed form for the contended times: the run
 * finishes (exit status 0, in every mode: tu_run_modes), and no rank's
 * all-reduce ends before the bandwidth floor of its single 400 Gb/s host
 * link, which carries every dimension's messages: a ring all-reduce sends
 * 2 (n - 1) / n of the buffer out of every rank, 2 x 31 / 32 x 2 MiB =
 * 4,063,232 bytes at 50 GB/s = 81,264,640 ps.
 *
 * test_two_collectives_finish, test_concurrent_finish: two collectives
 * issued at once on the same lines, run one after the other or at once
 * (below; the line order is then shared by the two, test_line_shared.c).
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "support/modes.h"
#include "support/testutil.h"

#define RANKS 32
#define FLOOR_PS G_GUINT64_CONSTANT (81264640)

/* The case's cluster, with SLOTS (a <slots> element, or "") after its
 * <system>. */
static char *
write_config (const char *slots)
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
    slots);
  return tu_write_file ("fat-tree-32.xml", xml);
}

/* Every rank's finish time from a --stats CSV (rank,finish_ps,...): none
 * below FLOOR ps. */
static void
assert_finish_above (const char *csv, guint64 floor_ps)
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
      guint64 finish = strtoull (f[1], NULL, 10);
      ck_assert_msg (finish >= floor_ps, "rank %u finished at %" G_GUINT64_FORMAT
                     " ps, before the bandwidth floor %" G_GUINT64_FORMAT " ps", rows, finish,
                     floor_ps);
    }
  ck_assert_uint_eq (rows, RANKS);
}

static const char *const models[] = { "flow", "congestion" };

START_TEST (test_all_reduce_finishes)
{
  g_autofree char *cfg = write_config ("");
  g_autofree char *wl = tu_scratch_path ("ar");
  const char *gen[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks",
                        G_STRINGIFY (RANKS), "--bytes", "2MiB", "--out", wl, NULL };
  ck_assert_int_eq (tu_run (NULL, gen), 0);
  g_autofree char *csv = tu_scratch_path ("stats.csv");
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        "--network-model", models[_i], "--stats", csv, NULL };
  g_autofree char *out = NULL;
  int status = tu_run_modes (&out, run);
  ck_assert_msg (status == 0, "exit status %d:\n%s", status, out);
  /* The case keeps its shape: the middle dimension (two members per line)
   * is where the members' orders met. */
  ck_assert_msg (strstr (out, "Switch 4 (50.00 GB/s, 1.000 us/hop) x Switch 2 (50.00 GB/s, "
                              "1.000 us/hop) x Switch 4")
                     != NULL,
                 "%s", out);
  assert_finish_above (csv, FLOOR_PS);
}
END_TEST

/* Two different collectives issued at once on the same lines: every rank
 * issues both at time 0, with no dependency between them.  With the
 * default one comm slot a rank runs them one after the other
 * (tests/app/test_comm_slot.c), so their runs never meet in a dimension
 * queue: this checks that case finishes, no faster than the bandwidth
 * floor.  test_concurrent_finish runs them truly at once (below).  Two
 * cases, 2 MiB each (S):
 *   - two all-reduces on all 32 ranks (every dimension shared): each rank
 *     sends 2 x 2 (32 - 1) / 32 x S = 8,126,464 bytes through its 50 GB/s
 *     host link, at least 162,529,280 ps;
 *   - a "TP" all-reduce on blocks of 8 (ranks 8b .. 8b + 7: dimensions 0
 *     and 1) and a "DP" one on ranks = i mod 4 (8 ranks: dimensions 1 and
 *     2), sharing dimension 1: 2 x 2 (8 - 1) / 8 x S = 7,340,032 bytes,
 *     at least 146,800,640 ps.
 * A ring all-reduce sends 2 (n - 1) / n of its buffer out of every member
 * however it is cut into dimensions (localBWAware's reduce-scatters,
 * all-reduce and all-gathers add up to that), and the host link carries
 * every dimension's messages. */
#define PAIR_BYTES 2097152
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

/* The --comm-groups file of pair P: TP groups 1 .. 32 / block, DP groups
 * after them; NULL for the world pair. */
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

/* Run pair P under MODEL on the cluster with SLOTS, each collective on its
 * own stream (1 and 2), and check it finishes no faster than its floor. */
static void
run_pair (guint p, const char *model, const char *slots)
{
  g_autofree char *cfg = write_config (slots);
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
  ck_assert_msg (status == 0, "%s, %s, %s: exit status %d:\n%s", pairs[p].name, model, slots,
                 status, out);
  assert_finish_above (csv, pairs[p].floor_ps);
}

START_TEST (test_two_collectives_finish)
{
  run_pair ((guint) _i / G_N_ELEMENTS (models), models[_i % G_N_ELEMENTS (models)], "");
}
END_TEST

/* The same pairs in flight at once, by either trigger (two comm slots, or
 * separate streams), under every network model.  Before the line order
 * was shared by the collectives on a line, ranks 0-3 started the first
 * all-reduce's chunk 2 reduce-scatter on dimension 1 while their peers 4-7
 * started the second's chunk 0 all-gather there, and the run stopped in a
 * false deadlock (analytical included). */
static const char *const all_models[] = { "analytical", "flow", "congestion" };
static const char *const triggers[] = { "<slots comm=\"2\"/>",
                                        "<slots comm-streams=\"separate\"/>" };

/* _i: (trigger * pairs + pair) * models + model. */
START_TEST (test_concurrent_finish)
{
  guint n_models = G_N_ELEMENTS (all_models), n_pairs = G_N_ELEMENTS (pairs);
  run_pair ((guint) _i / n_models % n_pairs, all_models[_i % n_models],
            triggers[(guint) _i / n_models / n_pairs]);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("line_order");
  TCase *tc = tu_tcase (s, "all_reduce_finishes", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_loop_test (tc, test_all_reduce_finishes, 0, (int) G_N_ELEMENTS (models));
  tcase_add_loop_test (tc, test_two_collectives_finish, 0,
                       (int) (G_N_ELEMENTS (pairs) * G_N_ELEMENTS (models)));
  tcase_add_loop_test (tc, test_concurrent_finish, 0,
                       (int) (G_N_ELEMENTS (triggers) * G_N_ELEMENTS (pairs)
                              * G_N_ELEMENTS (all_models)));
  return tu_run_suite (s);
}
