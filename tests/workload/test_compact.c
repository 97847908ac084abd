/* test_compact.c: compact renamed graphs (graph.h, "Compact renamed
 * graphs"): a rank whose trace is read against an earlier one alike but for
 * the ranks it names holds only its renamed nodes until it is simulated.
 *
 * Under symmetry classes the ranks the classes do not simulate stay
 * compact, and the run gives every figure the run over every rank (every
 * graph expanded) gives: tu_sim_modes_run compares the modes figure by
 * figure, and the times are asserted from the exact network of
 * tu_exact_ring on a Switch (a message of b bytes takes 200 + b ns).
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "support/modes.h"
#include "support/testutil.h"
#include "workload/graph.h"
#include "workload/replay.h"

enum
{
  T_SEND = 5, T_RECV = 6
};

/* Rank R: 5 us of compute, then 1000 bytes (tag 7) to R ^ 1; a receive
 * from R ^ 1 (posted at 0), then 1 us of compute. */
static void
write_pair_rank (const char *prefix, guint32 r)
{
  ChakraProtoMsg__Node *c = tu_comp (1, 5);
  ChakraProtoMsg__Node *s = tu_p2p (2, T_SEND, r, r ^ 1, 7, 1000);
  tu_node_dep (s, 1);
  ChakraProtoMsg__Node *v = tu_p2p (3, T_RECV, r ^ 1, r, 7, 1000);
  ChakraProtoMsg__Node *after = tu_comp (4, 1);
  tu_node_dep (after, 3);
  ChakraProtoMsg__Node *nodes[] = { c, s, v, after };
  tu_write_rank (prefix, r, nodes, 4);
}

/* Pairs 0<->1, 2<->3 on a Switch of 4: one class (test_classes.c's
 * straight pairs), ranks 1 to 3 read against the rank before them. */
START_TEST (test_unsimulated_ranks_stay_compact)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    write_pair_rank (prefix, r);
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  cfg.net.dims[0].kind = NET_DIM_SWITCH;
  AppSim *sim = tu_sim_all_modes_ok (&cfg, prefix);
  WlReplay *replay = app_sim_replay (sim);
  ck_assert_uint_eq (wl_replay_n_classes (replay), 1);
  ck_assert (wl_replay_simulated (replay, 0));
  ck_assert_ptr_nonnull (wl_replay_graph_compact (replay, 0)->nodes);
  for (guint32 r = 1; r < 4; r++)
    {
      const WlGraph *g = wl_replay_graph_compact (replay, r);
      ck_assert (!wl_replay_simulated (replay, r));
      ck_assert_msg (g->nodes == NULL, "rank %u was expanded", r);
      ck_assert_ptr_nonnull (g->base);
      /* Its send and its receive name other ranks than rank 0's (rank 2
       * and 3 read against the rank before: both nodes differ from their
       * base's, rank 0's). */
      ck_assert_ptr_nonnull (g->table); /* one map of rank 0's names */
      WlNode tmp;
      ck_assert_uint_eq (wl_graph_node_at (g, 1, NULL, &tmp)->peer_dst, r ^ 1);
      ck_assert_uint_eq (wl_graph_node_at (g, 2, NULL, &tmp)->peer_src, r ^ 1);
      ck_assert_uint_eq (wl_graph_node_at (g, 0, NULL, &tmp)->duration_ps, 5000000);
    }
  /* Send at 5 us, arrival 5 us + 200 ns + 1000 ns, then 1 us. */
  for (guint32 r = 0; r < 4; r++)
    ck_assert_uint_eq (wl_replay_rank_stats (replay, r)->finish,
                       sim_time_from_ns (5000 + 200 + 1000 + 1000));
  /* What reads a rank's nodes whole has them, as its own load gives. */
  const WlGraph *g3 = wl_replay_graph (replay, 3);
  ck_assert_ptr_nonnull (g3->nodes);
  g_autofree char *p3 = g_strdup_printf ("%s.3.et", prefix);
  g_autoptr (WlGraph) full = wl_graph_load (p3, NULL);
  ck_assert_ptr_nonnull (full);
  for (guint32 v = 0; v < full->n_nodes; v++)
    tu_assert_same_node (&g3->nodes[v], &full->nodes[v]);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("compact");
  TCase *tc = tu_tcase (s, "compact", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_unsimulated_ranks_stay_compact);
  return tu_run_suite (s);
}
