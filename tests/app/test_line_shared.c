/* test_line_shared.c: collectives in flight at once on the same lines start
 * their chunk phases in one order per line, whichever collective a phase
 * belongs to (system/coll.c, "the line order"), so that two collectives a
 * rank really runs at once (two `comm` slots, or separate streams) finish,
 * and a true circular wait is still reported.  test_line_order.c runs two
 * at once on a contended fat-tree under every network model (no closed
 * form); this file pins a small forced order in closed form.
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
#include <string.h>

#include "support/modes.h"
#include "support/report_read.h"
#include "support/testutil.h"

#define RING 4
#define RING_BYTES 1048576
#define FORCED_PS G_GINT64_CONSTANT (76463096)

/* test_forced_order's cluster (a Ring of 4, or KIND) with COMM comm slots. */
static char *
write_line (const char *kind, guint comm)
{
  g_autofree char *xml = g_strdup_printf (
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<cluster name=\"ring-4\" rounding=\"ps\">\n"
    "  <network model=\"analytical\">\n"
    "    <dim kind=\"%s\" size=\"4\" bandwidth=\"50GB/s\" latency=\"1us\"/>\n"
    "  </network>\n"
    "  <system scheduling=\"LIFO\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"1\"\n"
    "          splits=\"1\" local-mem-bw=\"3350GB/s\" reduction-passes=\"3\"/>\n"
    "  <slots comm=\"%u\"/>\n"
    "</cluster>\n",
    kind, comm);
  return tu_write_file ("line-4.xml", xml);
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

/* Run the cluster CFG on the trace set WL with the --comm-groups file
 * GROUPS in every mode (tu_run_modes); it must finish.  Returns its --stats
 * CSV's text. */
static char *
run_stats (const char *cfg, const char *wl, const char *groups)
{
  g_autofree char *csv = tu_scratch_path ("stats.csv");
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        "--comm-groups", groups, "--stats", csv, NULL };
  g_autofree char *out = NULL;
  int status = tu_run_modes (&out, run);
  ck_assert_msg (status == 0, "exit status %d:\n%s", status, out);
  char *text = NULL;
  ck_assert (g_file_get_contents (csv, &text, NULL, NULL));
  return text;
}

START_TEST (test_forced_order)
{
  g_autofree char *cfg = write_line ("Ring", 2);
  g_autofree char *groups = NULL;
  g_autofree char *wl = write_crossed (&groups);
  g_autofree char *text = run_stats (cfg, wl, groups);
  for (guint r = 0; r < RING; r++)
    {
      g_auto (GStrv) f = tu_stats_row (text, r);
      ck_assert_int_eq (tu_stats_field (f, 0), r);
      ck_assert_int_eq (tu_stats_field (f, 1), FORCED_PS);
    }
}
END_TEST

/* A phase of a collective a rank has not joined holds back only the phases
 * whose lines meet its line at another rank.  On one Switch of 4 with one
 * comm slot: rank 0 joins an all-reduce on {0,1} at 0 and starts its
 * phase, which rank 1 then owes; rank 1 runs one on {1,3} first (with rank
 * 3), whose line meets {0,1} at rank 1 alone, and only then joins {0,1}.
 * Holding rank 1's {1,3} phase for the one it owes would be a deadlock no
 * real rank has (rank 1 cannot join {0,1} before {1,3} is done).  A ring
 * all-reduce of S = 1 MiB on two members through the Switch (2 hops of
 * 1 us) is 2 steps of S/2 = 524,288 bytes, the first reducing:
 *   - 2 x (2 us + 524,288 B / 50 GB/s = 10,485,760 ps) = 24,971,520 ps;
 *   - 3 passes over 524,288 bytes at 3350 GB/s, each rounded up to the ps
 *     (156,504 ps): 469,512 ps;
 *   - endpoint delay once for the phase and once per message: 30,000 ps;
 * T2 = 25,471,032 ps.  Rank 1 runs the two one after the other, so it
 * finishes no sooner than 2 T2, and rank 3 no sooner than T2 (later in
 * fact: rank 0's first message to rank 1 takes rank 1's port first). */
START_TEST (test_unjoined_bypassed)
{
  g_autofree char *cfg = write_line ("Switch", 1);
  g_autofree char *groups = tu_write_file ("pair.json", "{\"1\": [0, 1], \"2\": [1, 3]}\n");
  g_autofree char *wl = tu_scratch_path ("pair");
  for (guint32 r = 0; r < RING; r++)
    {
      ChakraProtoMsg__Node *nodes[2] = { NULL, NULL };
      guint n = 0;
      if (r == 2)
        nodes[n++] = tu_comp (1, 1);
      if (r == 1 || r == 3)
        {
          nodes[n] = tu_coll (n + 1, 0, RING_BYTES);
          tu_node_attr_string (nodes[n++], "pg_name", "2");
        }
      if (r == 0 || r == 1)
        {
          nodes[n] = tu_coll (n + 1, 0, RING_BYTES);
          tu_node_attr_string (nodes[n], "pg_name", "1");
          if (n > 0)
            tu_node_dep (nodes[n], n);
          n++;
        }
      tu_write_rank (wl, r, nodes, n);
    }
  g_autofree char *text = run_stats (cfg, wl, groups);
  const gint64 t2 = 25471032;
  g_auto (GStrv) f1 = tu_stats_row (text, 1);
  g_auto (GStrv) f3 = tu_stats_row (text, 3);
  ck_assert_int_ge (tu_stats_field (f3, 1), t2);
  ck_assert_int_ge (tu_stats_field (f1, 1), 2 * t2);
}
END_TEST

/* _i 0: the crossed collectives with one comm slot; 1: two ranks that each
 * receive from the other before sending. */
START_TEST (test_true_deadlock_reported)
{
  g_autofree char *cfg = write_line ("Ring", 1);
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

/* Symmetry classes meet the line order.  On one Switch of 4 with three comm
 * slots: at 1 us rank 1 starts its phase of an all-reduce on {0,1} and
 * rank 0 its phase of one on {0,2}; rank 0 joins the {0,1} one at 3 us (its
 * phase waits behind the {0,2} one, and is owed to rank 1's ticket) and a
 * second on {0,2} at 4 us, which under LIFO comes first when the queue
 * frees.  Ranks 2 and 3 do the same on {2,3} and {0,2}, {1,3}, and ranks 1
 * and 3 a last one on {1,3}: two classes, {0,2} and {1,3}, simulated at 0
 * and 1; {0,2} and {1,3} lie inside a class (run in lockstep, no tickets),
 * {0,1} spans both (every member simulated) and {2,3} mirrors it.  Rank
 * 0's second {0,2} phase must wait for the {0,1} one it joined and owes,
 * as each rank of its class would for a ticket of its own: the run with
 * classes stops and is redone over every rank, with every figure as with
 * --symmetry off.  Each all-reduce is of 1 MiB. */
START_TEST (test_classes_redone)
{
  g_autofree char *cfg = write_line ("Switch", 3);
  g_autofree char *groups = tu_write_file (
      "grid.json", "{\"1\": [0, 1], \"2\": [2, 3], \"3\": [0, 2], \"4\": [1, 3], "
                   "\"5\": [0, 2]}\n");
  g_autofree char *wl = tu_scratch_path ("grid");
  for (guint32 r = 0; r < RING; r++)
    {
      const char *across = r < 2 ? "1" : "2";
      ChakraProtoMsg__Node *nodes[6] = { tu_comp (1, 1) };
      guint n = 1;
      if (r % 2 == 0)
        {
          /* 5 at 1 us; across at 3 us; 3 at 4 us. */
          nodes[n++] = tu_coll (2, 0, RING_BYTES);
          tu_node_attr_string (nodes[1], "pg_name", "5");
          nodes[n++] = tu_comp (3, 2);
          nodes[n++] = tu_coll (4, 0, RING_BYTES);
          tu_node_attr_string (nodes[3], "pg_name", across);
          nodes[n++] = tu_comp (5, 1);
          nodes[n++] = tu_coll (6, 0, RING_BYTES);
          tu_node_attr_string (nodes[5], "pg_name", "3");
          static const guint64 deps[] = { 0, 1, 1, 3, 3, 5 };
          for (guint k = 1; k < n; k++)
            tu_node_dep (nodes[k], deps[k]);
        }
      else
        {
          /* across and 4 at 1 us. */
          nodes[n++] = tu_coll (2, 0, RING_BYTES);
          tu_node_attr_string (nodes[1], "pg_name", across);
          nodes[n++] = tu_coll (3, 0, RING_BYTES);
          tu_node_attr_string (nodes[2], "pg_name", "4");
          tu_node_dep (nodes[1], 1);
          tu_node_dep (nodes[2], 1);
        }
      tu_write_rank (wl, r, nodes, n);
    }
  g_autofree char *csv = tu_scratch_path ("auto.csv");
  g_autofree char *csv_off = tu_scratch_path ("off.csv");
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        "--comm-groups", groups, "--stats", csv, NULL, NULL, NULL };
  g_autofree char *out = NULL;
  int status = tu_run (&out, run);
  ck_assert_msg (status == 0, "exit status %d:\n%s", status, out);
  ck_assert_msg (strstr (out, "symmetry classes: tried, but a collective of one class waited "
                              "in a rank's dimension queue for another's chunk phase")
                     != NULL,
                 "%s", out);
  /* The same figures as a run of every rank from the start. */
  run[9] = csv_off;
  run[10] = "--symmetry";
  run[11] = "off";
  g_autofree char *out_off = NULL;
  ck_assert_int_eq (tu_run (&out_off, run), 0);
  g_autofree char *a = NULL, *b = NULL;
  ck_assert (g_file_get_contents (csv, &a, NULL, NULL));
  ck_assert (g_file_get_contents (csv_off, &b, NULL, NULL));
  ck_assert_str_eq (a, b);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("line_shared");
  TCase *tc = tu_tcase (s, "line_shared", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_forced_order);
  tcase_add_loop_test (tc, test_true_deadlock_reported, 0, 2);
  tcase_add_test (tc, test_classes_redone);
  tcase_add_test (tc, test_unjoined_bypassed);
  return tu_run_suite (s);
}
