/* test_comm_slot.c: two dependency-free collectives a rank issues at time 0
 * do not run at once: a rank runs one communication node at a time (its
 * `comm` slot, workload/README.md), so the second starts when the first is
 * done and two take exactly twice one, whatever the scheduling.
 *
 * The case is test_line_order.c's fat-tree-32 (a k = 4 fat-tree, 2:1 at the
 * edge: Switch 4 x Switch 2 x Switch 4 at 50 GB/s, 1 us per hop) under the
 * analytical model, one chunk (splits 1), so that one 2 MiB (S) all-reduce
 * has a closed form.  localBWAware runs, as rings: a reduce-scatter on
 * dimension 0 (4 members: 3 steps of S/4), one on dimension 1 (2: 1 step of
 * S/8), an all-reduce on dimension 2 (4: 6 steps of S/32, the first 3
 * reducing), an all-gather on 1 (1 step of S/8) and on 0 (3 of S/4):
 *   - bytes: 2 x 3 x S/4 + 2 x S/8 + 6 x S/32 = 2 x 31/32 x S = 4,063,232
 *     bytes at 50 GB/s: 81,264,640 ps;
 *   - latency: a step crosses 2 hops on dimension 0 (host, edge, host), 4 on
 *     1 (through an aggregation switch), 6 on 2 (through a core switch):
 *     6 x 2 + 2 x 4 + 6 x 6 = 56 hops at 1 us: 56,000,000 ps;
 *   - reductions: 3 passes over each received piece at 3350 GB/s, each
 *     rounded up to the ps: 3 x ceil (3 x S/4 / 3350 GB/s) = 3 x 469,512,
 *     ceil (3 x S/8 / 3350 GB/s) = 234,756, 3 x ceil (3 x S/32 / 3350 GB/s)
 *     = 3 x 58,689: 1,819,359 ps;
 *   - endpoint delay (10 ns) once per phase and once per received message:
 *     (5 + 14) x 10 ns = 190,000 ps;
 * one all-reduce: 139,273,999 ps; two, back to back: 278,547,998 ps.
 * Under LIFO and FIFO alike: only one collective is ever in the dimension
 * queues, so their priorities never meet. */
#include <check.h>

#include "support/modes.h"
#include "support/report_read.h"
#include "support/testutil.h"

#define RANKS 32
#define BYTES 2097152
#define ONE_PS G_GINT64_CONSTANT (139273999)

static char *
write_config (const char *scheduling)
{
  g_autofree char *xml = g_strdup_printf (
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cluster name=\"fat-tree-32\" rounding=\"ps\">\n"
    "  <network model=\"analytical\">\n"
    "    <fat-tree k=\"4\" oversubscription=\"2\" bandwidth=\"400Gb/s\" latency=\"1us\"/>\n"
    "  </network>\n"
    "  <system scheduling=\"%s\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"1\"\n"
    "          splits=\"1\" collective-optimization=\"localBWAware\"\n"
    "          local-mem-bw=\"3350GB/s\" reduction-passes=\"3\"/>\n"
    "</cluster>\n",
    scheduling);
  return tu_write_file ("fat-tree-32.xml", xml);
}

/* Every rank's finish time in a --stats CSV is WANT ps. */
static void
assert_finish_is (const char *csv, gint64 want)
{
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (csv, &text, NULL, NULL));
  for (guint r = 0; r < RANKS; r++)
    {
      g_auto (GStrv) f = tu_stats_row (text, r);
      ck_assert_int_eq (tu_stats_field (f, 0), r);
      ck_assert_int_eq (tu_stats_field (f, 1), want);
    }
}

static const char *const schedulings[] = { "LIFO", "FIFO" };

/* _i: scheduling * 2 + collectives - 1. */
START_TEST (test_back_to_back)
{
  const char *scheduling = schedulings[_i / 2];
  guint n = (guint) _i % 2 + 1;
  g_autofree char *cfg = write_config (scheduling);
  g_autofree char *wl = tu_scratch_path ("ar");
  for (guint32 r = 0; r < RANKS; r++)
    {
      ChakraProtoMsg__Node *nodes[2] = { tu_coll (1, 0, BYTES), NULL };
      if (n == 2)
        nodes[1] = tu_coll (2, 0, BYTES);
      tu_write_rank (wl, r, nodes, n);
    }
  g_autofree char *csv = tu_scratch_path ("stats.csv");
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, "--stats", csv,
                        NULL };
  g_autofree char *out = NULL;
  int status = tu_run_modes (&out, run);
  ck_assert_msg (status == 0, "%s, %u: exit status %d:\n%s", scheduling, n, status, out);
  assert_finish_is (csv, (gint64) n * ONE_PS);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("comm_slot");
  TCase *tc = tu_tcase (s, "back_to_back", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_loop_test (tc, test_back_to_back, 0, (int) G_N_ELEMENTS (schedulings) * 2);
  return tu_run_suite (s);
}
