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
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "support/modes.h"
#include "support/testutil.h"

#define RANKS 32
#define FLOOR_PS G_GUINT64_CONSTANT (81264640)

static char *
write_config (void)
{
  static const char xml[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cluster name=\"fat-tree-32\" rounding=\"ps\">\n"
    "  <network model=\"flow\">\n"
    "    <fat-tree k=\"4\" oversubscription=\"2\" bandwidth=\"400Gb/s\" latency=\"1us\"/>\n"
    "  </network>\n"
    "  <system scheduling=\"LIFO\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"1\"\n"
    "          splits=\"4\" collective-optimization=\"localBWAware\"\n"
    "          local-mem-bw=\"3350GB/s\" reduction-passes=\"3\"/>\n"
    "</cluster>\n";
  return tu_write_file ("fat-tree-32.xml", xml);
}

/* Every rank's finish time from a --stats CSV (rank,finish_ps,...). */
static void
assert_finish_above_floor (const char *csv)
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
      ck_assert_msg (finish >= FLOOR_PS, "rank %u finished at %" G_GUINT64_FORMAT
                     " ps, before the bandwidth floor", rows, finish);
    }
  ck_assert_uint_eq (rows, RANKS);
}

static const char *const models[] = { "flow", "congestion" };

START_TEST (test_all_reduce_finishes)
{
  g_autofree char *cfg = write_config ();
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
  assert_finish_above_floor (csv);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("line_order");
  TCase *tc = tu_tcase (s, "all_reduce_finishes", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_loop_test (tc, test_all_reduce_finishes, 0, (int) G_N_ELEMENTS (models));
  return tu_run_suite (s);
}
