/* test_critpath.c: the critical path of a recorded run (critpath.h) and the
 * per-bin activity of a rank (activity.h), on small workloads timed by hand.
 *
 * The cluster is exact (tu_exact_ring): a 1-D ring, 1 GB/s (1 byte per ns),
 * 100 ns per hop, no endpoint delay, no reduction cost, so a message of b
 * bytes between neighbours takes 100 + b ns (on a 3-ring every pair is a
 * neighbour).  A member of a ring all-reduce on n ranks sends step 0 when it
 * joins, and step j + 1 when step j has arrived from its predecessor (and it
 * has joined); after 2(n - 1) arrivals it is done (system/algo_ring.c).
 * Every expected time below is derived in the comments from those rules.
 */
#include <check.h>
#include <math.h>

#include "sim/app/simulation.h"
#include "workload/activity.h"
#include "workload/critpath.h"
#include "support/modes.h"
#include "support/testutil.h"

enum
{
  T_COMP = 4, T_SEND = 5, T_RECV = 6
};

#define NS(x) sim_time_from_ns (x)
#define NONE WL_NO_NODE

/* Run the workload with recording on (or off) in every mode
 * (tu_sim_all_modes: streamed only without recording); it must succeed.
 * The caller frees the simulation. */
static AppSim *
run_recorded (const AppConfig *cfg, gboolean recording)
{
  g_autofree char *p = tu_scratch_path ("wl");
  GError *error = NULL;
  AppSim *sim = tu_sim_all_modes (
      &(TuSimRequest) { .cfg = cfg, .prefix = p, .recording = recording }, &error);
  g_assert_no_error (error);
  return sim;
}

/* One expected step: the node by its trace id, the interval, and the node
 * (by trace id) it waited for, or NONE. */
typedef struct
{
  guint32 rank;
  guint64 id;
  SimTime from, to;
  guint32 waited_rank;
  guint64 waited_id;
} Step;

/* The path of the run must be exactly `want`, and its contributions must
 * sum to the run's end time. */
static void
assert_path (AppSim *sim, guint64 rendezvous, const Step *want, guint n_want)
{
  WlReplay *r = app_sim_replay (sim);
  g_autoptr (WlCritPath) path = wl_critical_path (r, rendezvous, NULL);
  ck_assert_uint_eq (path->len, n_want);
  SimTime sum = 0;
  for (guint i = 0; i < n_want; i++)
    {
      const WlCritStep *st = &path->steps[i];
      ck_assert_msg (st->rank == want[i].rank, "step %u: rank %u, want %u", i, st->rank,
                     want[i].rank);
      ck_assert_uint_eq (wl_replay_graph (r, st->rank)->nodes[st->index].id, want[i].id);
      ck_assert_msg (st->from == want[i].from && st->to == want[i].to,
                     "step %u: [%" G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "] ps, want [%"
                     G_GUINT64_FORMAT ", %" G_GUINT64_FORMAT "]", i, st->from, st->to,
                     want[i].from, want[i].to);
      ck_assert_uint_eq (st->waited_rank, want[i].waited_rank);
      if (want[i].waited_rank != NONE)
        ck_assert_uint_eq (wl_replay_graph (r, st->waited_rank)->nodes[st->waited_index].id,
                           want[i].waited_id);
      else
        ck_assert_uint_eq (st->waited_index, NONE);
      /* The steps tile [0, end]: each begins where the one before ended. */
      ck_assert_uint_eq (st->from, i == 0 ? 0 : path->steps[i - 1].to);
      sum += st->to - st->from;
    }
  ck_assert_uint_eq (sum, app_sim_end_time (sim));
}

static const WlNodeRecord *
record (AppSim *sim, guint32 rank, guint32 index)
{
  return &wl_replay_records (app_sim_replay (sim), rank)[index];
}

static const WlRankStats *
stats (AppSim *sim, guint32 rank)
{
  return wl_replay_rank_stats (app_sim_replay (sim), rank);
}

/* Three ranks, an all-reduce of 300 bytes on all of them (4 steps of 100
 * bytes, 200 ns a step); file order gives the node indices 0, 1, ...
 *   rank 0: 1 COMP 10 us -> 2 SEND 1000 B to rank 1 -> 3 all-reduce
 *   rank 1: 1 COMP 2 us;  2 RECV 1000 B from rank 0 -> 3 COMP 3 us -> 4 all-reduce
 *   rank 2: 1 COMP `late_us` -> 2 all-reduce
 * The send leaves at 10 us and arrives at 10 + 0.1 + 1 = 11.1 us: the send
 * (which completes on arrival) and the receive end then.  Rank 0 joins the
 * all-reduce at 11.1 us, rank 1 after its 3 us at 14.1 us, rank 2 at
 * late_us. */
static void
write_three_ranks (guint64 late_us)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *s0 = tu_p2p (2, T_SEND, 0, 1, 0, 1000), *a0 = tu_coll (3, 0, 300);
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 10), s0, a0 };
  tu_node_dep (s0, 1);
  tu_node_dep (a0, 2);
  tu_write_rank (wl, 0, n0, 3);
  ChakraProtoMsg__Node *c1 = tu_comp (3, 3), *a1 = tu_coll (4, 0, 300);
  ChakraProtoMsg__Node *n1[] = { tu_comp (1, 2), tu_p2p (2, T_RECV, 0, 1, 0, 1000), c1, a1 };
  tu_node_dep (c1, 2);
  tu_node_dep (a1, 3);
  tu_write_rank (wl, 1, n1, 4);
  ChakraProtoMsg__Node *a2 = tu_coll (2, 0, 300);
  ChakraProtoMsg__Node *n2[] = { tu_comp (1, late_us), a2 };
  tu_node_dep (a2, 1);
  tu_write_rank (wl, 2, n2, 2);
}

/* Rank 2 is late (50 us).  The all-reduce (ring 0 -> 1 -> 2 -> 0); a
 * sender's port serializes its messages one after the other (100 ns each,
 * native configs share ports), so messages sent at once arrive 100 ns
 * apart:
 *   11.1  rank 0 joins, sends step 0: at rank 1 at 11.3
 *   14.1  rank 1 joins, sends step 0 and (step 0 being in) step 1: at rank 2
 *         at 14.3, 14.4
 *   50.0  rank 2 joins, sends steps 0, 1, 2: at rank 0 at 50.2, 50.3, 50.4
 *   50.2  rank 0 takes steps 0, 1, 2 as they come, sending steps 1, 2, 3 at
 *         50.2, 50.3, 50.4: at rank 1 at 50.4, 50.5, 50.6
 *   50.4  rank 1 takes steps 1, 2, 3 as they come, sending steps 2, 3 at 50.4,
 *         50.5: at rank 2 at 50.6, 50.7; done with step 3 at 50.6
 *   50.6  rank 2 takes step 2, sends step 3: at rank 0 at 50.8; done with
 *         step 3 at 50.7
 *   50.8  rank 0 takes step 3: done.
 * The last node is rank 0's all-reduce (50.8 us).  It waited for rank 2,
 * the last to join (at 50 us): its own part is [50, 50.8] us, and the path
 * goes on with what issued rank 2's all-reduce, its 50 us COMP, which
 * started with the run. */
START_TEST (test_late_rank_two)
{
  write_three_ranks (50);
  AppConfig cfg;
  tu_exact_ring (&cfg, 3);
  AppSim *sim = run_recorded (&cfg, TRUE);
  ck_assert_uint_eq (stats (sim, 0)->finish, NS (50800));
  ck_assert_uint_eq (stats (sim, 1)->finish, NS (50600));
  ck_assert_uint_eq (stats (sim, 2)->finish, NS (50700));
  ck_assert_uint_eq (record (sim, 1, 1)->end, NS (11100));
  ck_assert_uint_eq (record (sim, 0, 2)->start, NS (11100));
  ck_assert_uint_eq (record (sim, 0, 2)->pred, 1); /* the send */
  ck_assert_uint_eq (record (sim, 0, 2)->peer_rank, 2);
  ck_assert_uint_eq (record (sim, 0, 2)->peer_index, 1);
  const Step want[] = {
    { 2, 1, 0, NS (50000), NONE, 0 },
    { 0, 3, NS (50000), NS (50800), 2, 2 },
  };
  assert_path (sim, G_MAXUINT64, want, G_N_ELEMENTS (want));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Rank 2 is early (5 us): rank 1's chain, through the message, is the
 * longest.  Joins: rank 2 at 5, rank 0 at 11.1, rank 1 at 14.1 us.  As
 * above, messages sent at once leave (and arrive) 100 ns apart:
 *    5.0  rank 2 sends step 0: at rank 0 at 5.2
 *   11.1  rank 0 joins, sends steps 0, 1: at rank 1 at 11.3, 11.4
 *   14.1  rank 1 joins, sends steps 0, 1, 2: at rank 2 at 14.3, 14.4, 14.5
 *   14.3  rank 2 takes steps 0, 1, 2 as they come, sending steps 1, 2, 3 at
 *         14.3, 14.4, 14.5: at rank 0 at 14.5, 14.6, 14.7
 *   14.5  rank 0 takes steps 1, 2, 3 as they come, sending steps 2, 3 at
 *         14.5, 14.6: at rank 1 at 14.7, 14.8; done with step 3 at 14.7
 *   14.7  rank 1 takes step 2, sends step 3: at rank 2 at 14.9; done with
 *         step 3 at 14.8
 *   14.9  rank 2 takes step 3: done.
 * Walking back from rank 2's all-reduce (14.9 us): it waited for rank 1's
 * join at 14.1 us; rank 1's all-reduce was issued by its COMP 3 us
 * [11.1, 14.1]; that by the receive, which waited for the send posted at
 * 10 us, its own part [10, 11.1]; the send was issued by rank 0's COMP
 * [0, 10], which started with the run. */
START_TEST (test_late_rank_one_through_message)
{
  write_three_ranks (5);
  AppConfig cfg;
  tu_exact_ring (&cfg, 3);
  AppSim *sim = run_recorded (&cfg, TRUE);
  ck_assert_uint_eq (stats (sim, 0)->finish, NS (14700));
  ck_assert_uint_eq (stats (sim, 1)->finish, NS (14800));
  ck_assert_uint_eq (stats (sim, 2)->finish, NS (14900));
  ck_assert_uint_eq (record (sim, 1, 2)->pred, 1); /* COMP 3 us, issued by the receive */
  ck_assert_uint_eq (record (sim, 1, 1)->peer_rank, 0);
  ck_assert_uint_eq (record (sim, 1, 1)->peer_index, 1);
  const Step want[] = {
    { 0, 1, 0, NS (10000), NONE, 0 },
    { 1, 2, NS (10000), NS (11100), 0, 2 },
    { 1, 3, NS (11100), NS (14100), NONE, 0 },
    { 2, 2, NS (14100), NS (14900), 1, 4 },
  };
  assert_path (sim, G_MAXUINT64, want, G_N_ELEMENTS (want));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* One rank, two independent COMP nodes (10 and 20 us) and one accelerator
 * slot: the second waits for the slot, from 10 to 30 us, and its pred is
 * the first, which freed the slot.  The path is both. */
START_TEST (test_slot_wait)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 10), tu_comp (2, 20) };
  tu_write_rank (wl, 0, n0, 2);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  ck_assert_uint_eq (cfg.wl.slots_comp, 1);
  AppSim *sim = run_recorded (&cfg, TRUE);
  ck_assert_uint_eq (record (sim, 0, 1)->ready, 0);
  ck_assert_uint_eq (record (sim, 0, 1)->start, NS (10000));
  ck_assert_uint_eq (record (sim, 0, 1)->pred, 0);
  ck_assert_uint_eq (record (sim, 0, 0)->pred, NONE);
  const Step want[] = {
    { 0, 1, 0, NS (10000), NONE, 0 },
    { 0, 2, NS (10000), NS (30000), NONE, 0 },
  };
  assert_path (sim, G_MAXUINT64, want, G_N_ELEMENTS (want));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Two ranks.  Rank 0 sends 5000 bytes to rank 1 at 0: delivered at
 * 100 + 5000 = 5100 ns.  Rank 1 computes 2 us, then posts the receive at
 * 2000 ns (the data still in flight), which ends at 5100, then computes
 * 1 us: done at 6100.  The receive waited for the data, so the path is the
 * message from the send's start (0) to 5100, then rank 1's last compute;
 * rank 1's first compute, which ended before the data arrived, is not on
 * it. */
START_TEST (test_receive_waits_for_data_in_flight)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *n0[] = { tu_p2p (1, T_SEND, 0, 1, 0, 5000) };
  tu_write_rank (wl, 0, n0, 1);
  ChakraProtoMsg__Node *recv = tu_p2p (2, T_RECV, 0, 1, 0, 5000), *c3 = tu_comp (3, 1);
  tu_node_dep (recv, 1);
  tu_node_dep (c3, 2);
  ChakraProtoMsg__Node *n1[] = { tu_comp (1, 2), recv, c3 };
  tu_write_rank (wl, 1, n1, 3);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_recorded (&cfg, TRUE);
  ck_assert_uint_eq (record (sim, 1, 1)->start, NS (2000));
  ck_assert_uint_eq (record (sim, 1, 1)->end, NS (5100));
  const Step want[] = {
    { 1, 2, 0, NS (5100), 0, 1 },
    { 1, 3, NS (5100), NS (6100), NONE, 0 },
  };
  assert_path (sim, G_MAXUINT64, want, G_N_ELEMENTS (want));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Ties for the last node: rank 0's COMP and host node both end at 10 us,
 * and so does rank 1's COMP.  The lowest rank wins, then the highest index:
 * rank 0's host node, alone on the path. */
START_TEST (test_last_node_ties)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *cpu = tu_comp (2, 10);
  tu_node_attr_bool (cpu, "is_cpu_op", TRUE);
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 10), cpu };
  tu_write_rank (wl, 0, n0, 2);
  ChakraProtoMsg__Node *n1[] = { tu_comp (1, 10) };
  tu_write_rank (wl, 1, n1, 1);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_recorded (&cfg, TRUE);
  const Step want[] = { { 0, 2, 0, NS (10000), NONE, 0 } };
  assert_path (sim, G_MAXUINT64, want, G_N_ELEMENTS (want));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Rendezvous (threshold 0): rank 0 posts a 1000-byte send at 0, rank 1 its
 * receive after a 5 us COMP; the data leaves at 5 us and arrives at 6.1 us,
 * ending both.  The send (rank 0 wins the tie) waited for the receive: its
 * own part is [5, 6.1] us, after rank 1's COMP.  Walked as eager (a
 * threshold above 1000 bytes), the send waited for nobody: [0, 6.1] us. */
START_TEST (test_rendezvous_send)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *n0[] = { tu_p2p (1, T_SEND, 0, 1, 0, 1000) };
  tu_write_rank (wl, 0, n0, 1);
  ChakraProtoMsg__Node *r1 = tu_p2p (2, T_RECV, 0, 1, 0, 1000);
  ChakraProtoMsg__Node *n1[] = { tu_comp (1, 5), r1 };
  tu_node_dep (r1, 1);
  tu_write_rank (wl, 1, n1, 2);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  cfg.sys.rendezvous_threshold = 0;
  AppSim *sim = run_recorded (&cfg, TRUE);
  ck_assert_uint_eq (app_sim_end_time (sim), NS (6100));
  const Step rdv[] = {
    { 1, 1, 0, NS (5000), NONE, 0 },
    { 0, 1, NS (5000), NS (6100), 1, 2 },
  };
  assert_path (sim, 0, rdv, G_N_ELEMENTS (rdv));
  const Step eager[] = { { 0, 1, 0, NS (6100), NONE, 0 } };
  assert_path (sim, 1001, eager, G_N_ELEMENTS (eager));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Without recording there is no path, and no activity. */
START_TEST (test_no_recording)
{
  write_three_ranks (5);
  AppConfig cfg;
  tu_exact_ring (&cfg, 3);
  AppSim *sim = run_recorded (&cfg, FALSE);
  WlReplay *r = app_sim_replay (sim);
  ck_assert_ptr_null (wl_replay_records (r, 0));
  g_autoptr (WlCritPath) path = wl_critical_path (r, G_MAXUINT64, NULL);
  ck_assert_ptr_nonnull (path);
  ck_assert_uint_eq (path->len, 0);
  double comp[4], comm[4];
  ck_assert (!wl_activity_bins (r, 0, app_sim_end_time (sim), 4, comp, comm, NULL, NULL));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* sum over bins of fraction x width, bins as in activity.h. */
static double
weighted (const double *v, SimTime end, guint bins)
{
  double sum = 0;
  for (guint i = 0; i < bins; i++)
    {
      SimTime lo = (SimTime) ((unsigned __int128) end * i / bins);
      SimTime hi = (SimTime) ((unsigned __int128) end * (i + 1) / bins);
      sum += v[i] * (double) (hi - lo);
    }
  return sum;
}

static void
assert_close (double got, double want)
{
  ck_assert_msg (fabs (got - want) <= 1e-9 * MAX (fabs (want), 1.0), "%.17g, want %.17g", got,
                 want);
}

/* The run of test_late_rank_one_through_message (end 14.9 us).  By hand:
 *   rank 0: COMP [0, 10], send [10, 11.1], all-reduce [11.1, 14.7]:
 *           compute 10 us, exposed 4.7 us, comm busy 4.7 us
 *   rank 1: COMP [0, 2], receive [0, 11.1], COMP [11.1, 14.1], all-reduce
 *           [14.1, 14.8]: compute 5 us, exposed 9.1 + 0.7 = 9.8 us, comm
 *           busy 11.1 + 0.7 = 11.8 us
 *   rank 2: COMP [0, 5], all-reduce [5, 14.9]: compute 5, exposed 9.9 us
 * The bins, weighted by their widths, sum to those figures; with 149 bins
 * of exactly 100 ns, rank 0's first 100 bins are compute, the next 47
 * exposed communication, the last 2 neither.  The pipeline bubble, exposed
 * communication with a receive from another rank in flight: rank 1's
 * [2, 11.1] us, 9.1 us (bins 20 to 110 of 149), none for ranks 0 and 2. */
START_TEST (test_activity_bins)
{
  write_three_ranks (5);
  AppConfig cfg;
  tu_exact_ring (&cfg, 3);
  AppSim *sim = run_recorded (&cfg, TRUE);
  WlReplay *r = app_sim_replay (sim);
  const SimTime want[3][4] = { { NS (10000), NS (4700), NS (4700), 0 },
                               { NS (5000), NS (9800), NS (11800), NS (9100) },
                               { NS (5000), NS (9900), NS (9900), 0 } };
  SimTime end = app_sim_end_time (sim);
  ck_assert_uint_eq (end, NS (14900));
  for (guint32 k = 0; k < 3; k++)
    {
      ck_assert_uint_eq (stats (sim, k)->compute_busy, want[k][0]);
      ck_assert_uint_eq (stats (sim, k)->exposed_comm, want[k][1]);
      ck_assert_uint_eq (stats (sim, k)->comm_busy, want[k][2]);
      ck_assert_uint_eq (stats (sim, k)->pipeline_bubble, want[k][3]);
      ck_assert_uint_eq (stats (sim, k)->compute_busy + stats (sim, k)->exposed_comm,
                         stats (sim, k)->finish);
      const guint counts[] = { 1, 7, 100, 149 };
      for (guint c = 0; c < G_N_ELEMENTS (counts); c++)
        {
          guint bins = counts[c];
          g_autofree double *comp = g_new (double, bins);
          g_autofree double *comm = g_new (double, bins);
          g_autofree double *bubble = g_new (double, bins);
          ck_assert (wl_activity_bins (r, k, end, bins, comp, comm, bubble, NULL));
          assert_close (weighted (comp, end, bins), (double) want[k][0]);
          assert_close (weighted (comm, end, bins), (double) want[k][1]);
          assert_close (weighted (bubble, end, bins), (double) want[k][3]);
        }
    }
  double comp[149], comm[149];
  ck_assert (wl_activity_bins (r, 0, end, 149, comp, comm, NULL, NULL));
  for (guint i = 0; i < 149; i++)
    {
      ck_assert_msg (comp[i] == (i < 100 ? 1.0 : 0.0), "bin %u compute %g", i, comp[i]);
      ck_assert_msg (comm[i] == (i >= 100 && i < 147 ? 1.0 : 0.0), "bin %u comm %g", i, comm[i]);
    }
  double bubble[149];
  ck_assert (wl_activity_bins (r, 1, end, 149, comp, comm, bubble, NULL));
  for (guint i = 0; i < 149; i++)
    {
      gboolean in = i >= 20 && i < 111;
      ck_assert_msg (bubble[i] == (in ? 1.0 : 0.0), "bin %u bubble %g", i, bubble[i]);
      ck_assert_msg (!in || comm[i] == 1.0, "bin %u comm %g", i, comm[i]);
    }
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

static Suite *
critpath_suite (void)
{
  Suite *s = suite_create ("critpath");
  TCase *tc = tu_tcase (s, "critpath", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_late_rank_two);
  tcase_add_test (tc, test_late_rank_one_through_message);
  tcase_add_test (tc, test_slot_wait);
  tcase_add_test (tc, test_receive_waits_for_data_in_flight);
  tcase_add_test (tc, test_last_node_ties);
  tcase_add_test (tc, test_rendezvous_send);
  tcase_add_test (tc, test_no_recording);
  tcase_add_test (tc, test_activity_bins);
  return s;
}

int
main (void)
{
  return tu_run_suite (critpath_suite ());
}
