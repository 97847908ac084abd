/* test_classes.c: adversarial workloads for symmetry classes
 * (workload/replay_classes.c).  The promise: where classes are taken, every
 * figure is what simulating every rank gives; where they cannot be shown
 * exact, the run falls back to every rank.
 *
 * Each case runs in every mode (tu_sim_modes_run: auto, every rank,
 * streamed; they must agree figure for figure, or fail with the same
 * error) and asserts whether the auto run kept classes, and how many, as
 * worked out by hand from conditions (1)-(4) of replay_classes.c.  Where
 * the times are simple they are asserted too: on tu_exact_ring a message
 * of b bytes between neighbours takes 100 + b ns; on a FullyConnected
 * dimension of the same bandwidth and latency, between any two ranks; on
 * a Switch 200 + b ns (two hops, up and down, network/topo.h).
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "support/modes.h"
#include "support/testutil.h"
#include "workload/graph_cache.h"

enum
{
  T_META = 1, T_COMP = 4, T_SEND = 5, T_RECV = 6, T_COLL = 7
};

/* Chakra's ALL_REDUCE comm_type. */
#define ALL_REDUCE 0

/* What the auto run did. */
typedef struct
{
  guint32 classes;      /* wl_replay_n_classes: 0 when none were kept */
  gboolean dropped;     /* tried, then redone over every rank */
  gboolean symmetric;   /* the whole-world shortcut */
  const char *why;      /* app_sim_not_symmetric */
} Outcome;

/* Run the trace set "wl" on CFG in every mode (they must agree); returns
 * the auto mode's simulation (the caller frees) and what it did, or NULL
 * with the error (the same in every mode). */
static AppSim *
run (const AppConfig *cfg, Outcome *out, GError **error)
{
  g_autofree char *p = tu_scratch_path ("wl");
  TuSimModes modes;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = cfg, .prefix = p }, &modes);
  AppSim *sim = g_steal_pointer (&modes.sim[TU_MODE_AUTO]);
  if (sim == NULL)
    g_propagate_error (error, g_steal_pointer (&modes.error[TU_MODE_AUTO]));
  tu_sim_modes_clear (&modes);
  memset (out, 0, sizeof *out);
  if (sim == NULL)
    return NULL;
  out->classes = wl_replay_n_classes (app_sim_replay (sim));
  out->dropped = app_sim_classes_dropped (sim) != NULL;
  out->symmetric = app_sim_symmetric (sim);
  out->why = app_sim_not_symmetric (sim);
  return sim;
}

/* Run, which must succeed, and assert the number of classes kept (0:
 * none) and whether classes were tried and dropped. */
static AppSim *
run_classes (const AppConfig *cfg, guint32 classes, gboolean dropped)
{
  Outcome o;
  GError *error = NULL;
  AppSim *sim = run (cfg, &o, &error);
  g_assert_no_error (error);
  ck_assert_msg (!o.symmetric, "the whole-world shortcut was taken");
  ck_assert_msg (o.classes == classes, "%u classes, not %u (%s)", o.classes, classes,
                 o.why != NULL ? o.why : "taken");
  ck_assert_msg (o.dropped == dropped, "classes %s dropped", o.dropped ? "were" : "were not");
  return sim;
}

/* Run, which must succeed and refuse classes for a reason holding WHY. */
static AppSim *
run_refused (const AppConfig *cfg, const char *why)
{
  AppSim *sim = run_classes (cfg, 0, FALSE);
  const char *said = app_sim_not_symmetric (sim);
  ck_assert_msg (said != NULL && strstr (said, why) != NULL, "'%s' not in: %s", why,
                 said != NULL ? said : "(none)");
  return sim;
}

static SimTime
finish (AppSim *sim, guint32 rank)
{
  return wl_replay_rank_stats (app_sim_replay (sim), rank)->finish;
}

/* One dimension of N ranks of KIND, timed as tu_exact_ring. */
static void
exact_dim (AppConfig *cfg, NetDimKind kind, guint32 n)
{
  tu_exact_ring (cfg, n);
  cfg->net.dims[0].kind = kind;
}

/* Rank R's exchange: compute COMP_US, then send BYTES with TAG to TO;
 * receive with TAG_IN from FROM (posted at 0); 1 us of compute after the
 * receive.  Nonzero STREAM and STREAM_IN set the send's and the receive's
 * comm streams. */
typedef struct
{
  guint32 to, from;
  gint64 tag, tag_in, bytes;
  guint64 comp_us;
  gint64 stream, stream_in;
} Exchange;

static void
write_exchange (guint32 r, const Exchange *x)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *c = tu_comp (1, x->comp_us);
  ChakraProtoMsg__Node *s = tu_p2p (2, T_SEND, r, x->to, x->tag, x->bytes);
  tu_node_dep (s, 1);
  ChakraProtoMsg__Node *v = tu_p2p (3, T_RECV, x->from, r, x->tag_in, x->bytes);
  if (x->stream != 0)
    tu_node_attr_int (s, "stream", x->stream);
  if (x->stream_in != 0)
    tu_node_attr_int (v, "stream", x->stream_in);
  ChakraProtoMsg__Node *after = tu_comp (4, 1);
  tu_node_dep (after, 3);
  ChakraProtoMsg__Node *nodes[] = { c, s, v, after };
  tu_write_rank (wl, r, nodes, 4);
}

/* Every rank of N exchanges 1000 bytes (tag 7) with PARTNER (r), after
 * 5 us of compute. */
static void
write_pairs (guint32 n, guint32 (*partner) (guint32))
{
  for (guint32 r = 0; r < n; r++)
    write_exchange (r, &(Exchange) { .to = partner (r), .from = partner (r), .tag = 7,
                                     .tag_in = 7, .bytes = 1000, .comp_us = 5 });
}

static guint32 straight (guint32 r) { return r ^ 1; }
static guint32 crosswise (guint32 r) { return (r + 2) % 4; }
static guint32 self (guint32 r) { return r; }

/* The latency of a route of KIND in exact_dim: a Switch is two hops. */
static guint64
hop_ns (NetDimKind kind)
{
  return kind == NET_DIM_SWITCH ? 200 : 100;
}

/* Every rank of a pair sends at 5 us; the message arrives at
 * 5 us + LATENCY + 1000 ns, then 1 us of compute. */
static void
assert_pair_times (AppSim *sim, guint32 n, guint64 latency_ns)
{
  for (guint32 r = 0; r < n; r++)
    ck_assert_uint_eq (finish (sim, r), sim_time_from_ns (5000 + latency_ns + 1000 + 1000));
}

/* Straight pairs 0<->1, 2<->3 on a Switch: one class of four (each rank
 * talks to one rank of the class, which talks back; every route is one
 * switch hop).  On a Ring of 4, 1 -> 0 goes the other way round from
 * 0 -> 1: routes priced differently, no classes, the same figures. */
START_TEST (test_straight_pairs)
{
  write_pairs (4, straight);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  assert_pair_times (sim, 4, 200);
  app_sim_free (sim);
  app_config_clear (&cfg);

  tu_exact_ring (&cfg, 4);
  sim = run_refused (&cfg, "routes priced differently");
  assert_pair_times (sim, 4, 100);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Crosswise pairs 0<->2, 1<->3.  On a Switch and FullyConnected: one class,
 * times as straight.  On a Ring of 4 both directions of a pair are two
 * hops, the half-way tie broken alike (the same way round): one class;
 * 0 -> 2 and 1 -> 3 share the link 1 -> 2, but the analytical model
 * prices ports, not links, and no two messages meet at a port: kept, two
 * hops of 100 ns. */
START_TEST (test_crosswise_pairs)
{
  write_pairs (4, crosswise);
  const NetDimKind kinds[] = { NET_DIM_SWITCH, NET_DIM_FULLY_CONNECTED };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      AppConfig cfg;
      exact_dim (&cfg, kinds[k], 4);
      AppSim *sim = run_classes (&cfg, 1, FALSE);
      assert_pair_times (sim, 4, hop_ns (kinds[k]));
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  assert_pair_times (sim, 4, 200);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* A ring of sends 0 -> 1 -> 2 -> 3 -> 0: every trace has one shape, one
 * class after refinement, but rank 0 exchanges messages with 1 and 3, two
 * ranks of its own class: refused.  Each rank sends at 5 us and receives
 * its neighbour's message at 6.2 us (one Switch route: 200 ns). */
START_TEST (test_ring_of_sends)
{
  for (guint32 r = 0; r < 4; r++)
    write_exchange (r, &(Exchange) { .to = (r + 1) % 4, .from = (r + 3) % 4, .tag = 7,
                                     .tag_in = 7, .bytes = 1000, .comp_us = 5 });
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_refused (&cfg, "two ranks of one class");
  assert_pair_times (sim, 4, 200);
  app_sim_free (sim);
  app_config_clear (&cfg);

  /* Two rings of three, 0 -> 1 -> 2 -> 0 and 3 -> 4 -> 5 -> 3, each
   * position with its own tag (rank r sends tag r % 3, receives tag
   * (r + 2) % 3): classes {0,3}, {1,4}, {2,5}, each rank's two peers in
   * the two other classes, every relation mutual: three classes, one
   * message into each port. */
  for (guint32 r = 0; r < 6; r++)
    {
      guint32 base = r - r % 3;
      write_exchange (r, &(Exchange) { .to = base + (r + 1) % 3, .from = base + (r + 2) % 3,
                                       .tag = r % 3, .tag_in = (r + 2) % 3, .bytes = 1000,
                                       .comp_us = 5 });
    }
  exact_dim (&cfg, NET_DIM_SWITCH, 6);
  sim = run_classes (&cfg, 3, FALSE);
  assert_pair_times (sim, 6, 200);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Rank 0 sends to 1 and to 2 (ranks 1 and 2 alike: one receive from 0),
 * as rank 4 to 5 and 6; ranks 3 and 7 only compute.  Classes by shape:
 * {0,4}, {1,2,5,6}, {3,7}; rank 0 talks to two ranks of one class:
 * refused.  Rank 0's one comm stream runs its two sends in turn: one
 * lands at 5 us + 1.2 us, the other leaves then and lands 1.2 us later. */
START_TEST (test_send_to_two_of_a_class)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 8; r++)
    {
      guint32 base = r & ~3u, k = r & 3;
      ChakraProtoMsg__Node *nodes[3];
      guint n = 0;
      if (k == 0)
        {
          nodes[n++] = tu_comp (1, 5);
          nodes[n++] = tu_p2p (2, T_SEND, r, base + 1, 7, 1000);
          nodes[n++] = tu_p2p (3, T_SEND, r, base + 2, 7, 1000);
          tu_node_dep (nodes[1], 1);
          tu_node_dep (nodes[2], 1);
        }
      else if (k < 3)
        nodes[n++] = tu_p2p (1, T_RECV, base, r, 7, 1000);
      else
        nodes[n++] = tu_comp (1, 3);
      tu_write_rank (wl, r, nodes, n);
    }
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 8);
  AppSim *sim = run_refused (&cfg, "two ranks of one class");
  ck_assert_uint_eq (finish (sim, 3), sim_time_from_us (3));
  ck_assert_uint_eq (MIN (finish (sim, 1), finish (sim, 2)), sim_time_from_ns (6200));
  ck_assert_uint_eq (MAX (finish (sim, 1), finish (sim, 2)), sim_time_from_ns (7400));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* A peer relation that is not mutual: 0 sends to 2 and 1 to 3, while 2
 * receives from 1 and 3 from 0.  Classes {0,1} (one send) and {2,3} (one
 * receive) refine to themselves, but 0's peer 2 talks to 1, not 0:
 * refused.  Nothing matches: every mode deadlocks with the same error. */
START_TEST (test_not_mutual)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = {
        r < 2 ? tu_p2p (1, T_SEND, r, r + 2, 7, 1000)
              : tu_p2p (1, T_RECV, r == 2 ? 1 : 0, r, 7, 1000)
      };
      tu_write_rank (wl, r, nodes, 1);
    }
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  Outcome o;
  GError *error = NULL;
  ck_assert_ptr_null (run (&cfg, &o, &error));
  g_assert_error (error, SIM_ERROR, SIM_ERROR_DEADLOCK);
  ck_assert_msg (strstr (error->message, "COMM_RECV from rank 1") != NULL, "%s", error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}
END_TEST

/* Straight pairs on a Switch whose tags do not match (send tag 7, receive
 * tag 8): one class is taken, the class's run deadlocks, and the run is
 * redone over every rank for its diagnostics: the same error in every
 * mode, naming every rank. */
START_TEST (test_classed_deadlock)
{
  for (guint32 r = 0; r < 4; r++)
    write_exchange (r, &(Exchange) { .to = r ^ 1, .from = r ^ 1, .tag = 7, .tag_in = 8,
                                     .bytes = 1000, .comp_us = 5 });
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  Outcome o;
  GError *error = NULL;
  ck_assert_ptr_null (run (&cfg, &o, &error));
  g_assert_error (error, SIM_ERROR, SIM_ERROR_DEADLOCK);
  ck_assert_msg (strstr (error->message, "rank 3") != NULL, "%s", error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}
END_TEST

/* Pairs alike but for one field: 0<->1 and 2<->3 differ in the tag, the
 * message size, or the comm streams (a trace numbers its streams by first
 * sight: the first pair sends and receives on its stream 0, the second
 * receives on its stream 1; a receive posted at 0 does not hold back a
 * send on its stream, so the times are the same).  The pairs are two
 * classes on a Switch, {0,1} and {2,3}; the hash of the first classes
 * leaves these fields out, so unlike ranks meet there.  With sizes 1000
 * and 3000 bytes the second pair finishes 2 us later. */
START_TEST (test_pairs_differ_in_one_field)
{
  for (guint field = 0; field < 3; field++)
    {
      for (guint32 r = 0; r < 4; r++)
        {
          gboolean second = r >= 2;
          Exchange x = { .to = r ^ 1, .from = r ^ 1, .tag = 7, .tag_in = 7, .bytes = 1000,
                         .comp_us = 5 };
          if (field == 0 && second)
            x.tag = x.tag_in = 9;
          if (field == 1 && second)
            x.bytes = 3000;
          if (field == 2)
            {
              x.stream = 1;
              x.stream_in = second ? 2 : 1;
            }
          write_exchange (r, &x);
        }
      AppConfig cfg;
      exact_dim (&cfg, NET_DIM_SWITCH, 4);
      cfg.wl.separate_comm_streams = TRUE;
      AppSim *sim = run_classes (&cfg, 2, FALSE);
      for (guint32 r = 0; r < 4; r++)
        ck_assert_uint_eq (finish (sim, r),
                           sim_time_from_ns (5000 + 200 + (field == 1 && r >= 2 ? 3000 : 1000)
                                             + 1000));
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Within a pair the tags cross (rank 0 sends tag 1 and receives tag 2;
 * rank 1 the other way round): even and odd ranks differ in shape, two
 * classes {0,2} and {1,3}, each rank's one peer in the other class. */
START_TEST (test_tags_cross_within_pair)
{
  for (guint32 r = 0; r < 4; r++)
    write_exchange (r, &(Exchange) { .to = r ^ 1, .from = r ^ 1, .tag = 1 + (r & 1),
                                     .tag_in = 2 - (r & 1), .bytes = 1000, .comp_us = 5 });
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 2, FALSE);
  assert_pair_times (sim, 4, 200);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Self-sends: every rank sends to itself: one class (a rank's one peer is
 * itself).  Ranks 0,1 sending to themselves while 2<->3 exchange: the
 * traces have one shape and refine to one class, but the stand-in's route
 * (to itself) and rank 2's (to 3) differ: refused. */
START_TEST (test_self_sends)
{
  write_pairs (4, self);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  app_sim_free (sim);
  for (guint32 r = 0; r < 4; r++)
    {
      guint32 p = r < 2 ? r : r ^ 1;
      write_exchange (r, &(Exchange) { .to = p, .from = p, .tag = 7, .tag_in = 7,
                                       .bytes = 1000, .comp_us = 5 });
    }
  sim = run_refused (&cfg, "routes priced differently");
  for (guint32 r = 2; r < 4; r++)
    ck_assert_uint_eq (finish (sim, r), sim_time_from_ns (5000 + 1200 + 1000));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Sizes around the rendezvous threshold (1000 bytes): a rendezvous
 * message leaves when its receive is posted.  The receives are posted at
 * 0, so rendezvous or eager, the pair exchange is classed and timed the
 * same; then a case where the receive is posted late (after 8 us of
 * compute) on one side of each pair, which only rendezvous waits for. */
START_TEST (test_rendezvous_and_eager)
{
  const gint64 sizes[] = { 999, 1000, 1001 };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      for (guint32 r = 0; r < 4; r++)
        write_exchange (r, &(Exchange) { .to = r ^ 1, .from = r ^ 1, .tag = 7, .tag_in = 7,
                                         .bytes = sizes[i], .comp_us = 5 });
      AppConfig cfg;
      exact_dim (&cfg, NET_DIM_SWITCH, 4);
      cfg.sys.rendezvous_threshold = 1000;
      AppSim *sim = run_classes (&cfg, 1, FALSE);
      for (guint32 r = 0; r < 4; r++)
        ck_assert_uint_eq (finish (sim, r), sim_time_from_ns (5000 + 200 + sizes[i] + 1000));
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
  /* Even ranks send at 1 us, odd ranks receive after 8 us of compute
   * (and send nothing): classes {0,2}, {1,3}.  Eager (999 bytes): the
   * odd rank finishes at 8 us (data long there) + 1 us; rendezvous (1001):
   * the data leaves at 8 us, arrives at 8 us + 1.201 us. */
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i += 2)
    {
      g_autofree char *wl = tu_scratch_path ("wl");
      for (guint32 r = 0; r < 4; r++)
        {
          ChakraProtoMsg__Node *nodes[3];
          if (r % 2 == 0)
            {
              nodes[0] = tu_comp (1, 1);
              nodes[1] = tu_p2p (2, T_SEND, r, r + 1, 7, sizes[i]);
              tu_node_dep (nodes[1], 1);
              tu_write_rank (wl, r, nodes, 2);
              continue;
            }
          nodes[0] = tu_comp (1, 8);
          nodes[1] = tu_p2p (2, T_RECV, r - 1, r, 7, sizes[i]);
          nodes[2] = tu_comp (3, 1);
          tu_node_dep (nodes[1], 1);
          tu_node_dep (nodes[2], 2);
          tu_write_rank (wl, r, nodes, 3);
        }
      AppConfig cfg;
      exact_dim (&cfg, NET_DIM_SWITCH, 4);
      cfg.sys.rendezvous_threshold = 1000;
      AppSim *sim = run_classes (&cfg, 2, FALSE);
      SimTime want = sizes[i] < 1000 ? sim_time_from_us (9)
                                     : sim_time_from_ns (8000 + 200 + sizes[i] + 1000);
      ck_assert_uint_eq (finish (sim, 1), want);
      ck_assert_uint_eq (finish (sim, 3), want);
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Ranks alike but for their compute speed: ranks 2 and 3 twice as fast
 * (a speed rule).  Pairs 0<->1 and 2<->3 are then two classes; the fast
 * pair sends at 2.5 us.  A speed rule splitting a pair (ranks 1 and 3
 * fast) leaves classes {0,2} and {1,3}: each rank's one peer is in the
 * other class, classed, and the slow rank's message arrives last. */
START_TEST (test_compute_speeds)
{
  write_pairs (4, straight);
  for (guint split = 0; split < 2; split++)
    {
      AppConfig cfg;
      exact_dim (&cfg, NET_DIM_SWITCH, 4);
      if (split)
        {
          cfg.wl.speed_rules[0] = (WlSpeedRule) { .first = 1, .last = 1, .speed = 2.0 };
          cfg.wl.speed_rules[1] = (WlSpeedRule) { .first = 3, .last = 3, .speed = 2.0 };
          cfg.wl.n_speed_rules = 2;
        }
      else
        {
          cfg.wl.speed_rules[0] = (WlSpeedRule) { .first = 2, .last = 3, .speed = 2.0 };
          cfg.wl.n_speed_rules = 1;
        }
      AppSim *sim = run_classes (&cfg, 2, FALSE);
      for (guint32 r = 0; r < 4; r++)
        {
          /* When the message from the partner lands and the rank's own
           * compute ends, 1 us of compute at the rank's own speed; or
           * later, when the rank's own send lands. */
          gboolean fast = split ? r % 2 == 1 : r >= 2;
          gboolean partner_fast = split ? r % 2 == 0 : r >= 2;
          guint64 sent_ns = partner_fast ? 2500 : 5000, after_ns = fast ? 500 : 1000;
          guint64 own_ns = fast ? 2500 : 5000;
          guint64 land_ns = sent_ns + 1200;
          ck_assert_uint_eq (finish (sim, r),
                             sim_time_from_ns (MAX (own_ns + 1200,
                                                    MAX (land_ns, own_ns) + after_ns)));
        }
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* A rank's process groups: pg 1 = {0,1}, 2 = {2,3}, 3 = {0,2}, 4 = {1,3}.
 * Each rank writes a metadata node and a chain of all-reduces (400 bytes)
 * on the groups GROUPS[r][0..1], after COMP_US[r] of compute named
 * COMP_NAMES[r] (NULL: all "comp"; a name of another length makes a file
 * of another length, read against none of the others). */
static void
write_grid_named (const char *const groups[4][2], const guint64 comp_us[4],
                  const char *const comp_names[4])
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[4];
      nodes[0] = tu_node_new (1, T_META, "pgs");
      tu_node_inputs (nodes[0], "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                                "{\"pg_name\": \"2\", \"ranks\": [2, 3]}, "
                                "{\"pg_name\": \"3\", \"ranks\": [0, 2]}, "
                                "{\"pg_name\": \"4\", \"ranks\": [1, 3]}]");
      nodes[1] = tu_comp (2, comp_us[r]);
      if (comp_names != NULL)
        {
          g_free (nodes[1]->name);
          nodes[1]->name = g_strdup (comp_names[r]);
        }
      tu_node_dep (nodes[1], 1);
      for (guint i = 0; i < 2; i++)
        {
          nodes[2 + i] = tu_coll (3 + i, ALL_REDUCE, 400);
          tu_node_attr_string (nodes[2 + i], "pg_name", groups[r][i]);
          tu_node_dep (nodes[2 + i], 2 + i);
        }
      tu_write_rank (wl, r, nodes, 4);
    }
}

static void
write_grid (const char *const groups[4][2], const guint64 comp_us[4])
{
  write_grid_named (groups, comp_us, NULL);
}

/* A 2 x 2 grid of groups used in the same order (TP then DP): one class of
 * four, each group's image the simulated rank's own.  An all-reduce of 400
 * bytes on two ranks is one exchange of 200 bytes each way... the figures
 * are compared with every rank's. */
START_TEST (test_group_grid)
{
  const char *const groups[4][2] = { { "1", "3" }, { "1", "4" }, { "2", "3" }, { "2", "4" } };
  const guint64 comp[4] = { 2, 2, 2, 2 };
  write_grid (groups, comp);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  for (guint32 r = 1; r < 4; r++)
    ck_assert_uint_eq (finish (sim, r), finish (sim, 0));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* The same grid, but ranks 2 and 3 run their groups in the other order
 * (DP then TP).  Every trace has one shape (a collective's group is not
 * part of it), one class; rank 2's first group, 3, would be the image of
 * rank 0's first, 1, while rank 0 maps 3 to itself: refused.  (No
 * deadlock: 0 and 2 both reach group 3 second and first respectively,
 * each collective's members arrive in turn.) */
START_TEST (test_group_order_differs)
{
  const char *const groups[4][2] = { { "1", "3" }, { "1", "4" }, { "3", "2" }, { "4", "2" } };
  const guint64 comp[4] = { 2, 2, 2, 2 };
  write_grid (groups, comp);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_refused (&cfg, "process groups in different orders");
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* The grid with rank 3 alone running its groups in the other order, and
 * ranks 2 and 3 of another file length than 0 and 1: rank 3 is rank 2's
 * graph renamed by a table (groups 2 -> 4, 3 -> 2), of another base than
 * its class's first rank, 0.  Rank 1 maps group 4 to 3, rank 3 maps it to
 * rank 0's first group, 1: refused, found at rank 3 (each use of a base
 * renamed by tables read once, against the first rank's own groups). */
START_TEST (test_group_order_differs_other_base)
{
  const char *const groups[4][2] = { { "1", "3" }, { "1", "4" }, { "2", "3" }, { "4", "2" } };
  const guint64 comp[4] = { 2, 2, 2, 2 };
  const char *const names[4] = { "comp", "comp", "compute", "compute" };
  write_grid_named (groups, comp, names);
  {
    /* Loaded as the run loads them (one at a time, through the cache). */
    g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
    g_autofree char *wl = tu_scratch_path ("wl");
    WlGraph *g[4];
    for (guint32 r = 0; r < 4; r++)
      {
        g_autofree char *path = g_strdup_printf ("%s.%u.et", wl, r);
        g[r] = wl_graph_cache_load_limited (cache, path, G_MAXUINT64, NULL, NULL);
        ck_assert_ptr_nonnull (g[r]);
      }
    ck_assert_ptr_nonnull (g[3]->table);
    ck_assert_ptr_eq (g[3]->base, g[2]);
    ck_assert_ptr_ne (g[3]->base, g[0]);
    ck_assert_ptr_ne (g[3]->base, g[0]->base);
    for (guint32 r = 0; r < 4; r++)
      wl_graph_unref (g[r]);
  }
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_refused (&cfg, "process groups in different orders");
  app_sim_free (sim);
  app_config_clear (&cfg);
  /* Rank 3 in the grid's order ({2, 4}): one class, every rank alike. */
  const char *const alike[4][2] = { { "1", "3" }, { "1", "4" }, { "2", "3" }, { "2", "4" } };
  write_grid_named (alike, comp, names);
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  sim = run_classes (&cfg, 1, FALSE);
  for (guint32 r = 1; r < 4; r++)
    ck_assert_uint_eq (finish (sim, r), finish (sim, 0));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* A group spanning two classes: ranks 0 and 2 compute 2 us, 1 and 3 3 us,
 * then the grid's all-reduces: classes by shape {0,2} and {1,3}, and
 * group 1 = {0,1} holds both, simulated whole (ranks 0 and 1 are the
 * classes' first); group 2 = {2,3} holds, place by place, ranks of the
 * classes of 0 and 1, and runs as group 1 does (replay_classes.c, (4')):
 * two classes, every figure as with every rank (run's modes). */
START_TEST (test_group_spans_classes)
{
  const char *const groups[4][2] = { { "1", "3" }, { "1", "4" }, { "2", "3" }, { "2", "4" } };
  const guint64 comp[4] = { 2, 3, 2, 3 };
  write_grid (groups, comp);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 2, FALSE);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Ranks 0 and 3 compute 2 us, 1 and 2 3 us: classes {0,3} and {1,2},
 * simulated at 0 and 1; group 3 = {0,2} spans both and holds a simulated
 * rank and one that is not, whose part no simulated rank plays: refused. */
START_TEST (test_group_spans_classes_partly)
{
  const char *const groups[4][2] = { { "1", "3" }, { "1", "4" }, { "2", "3" }, { "2", "4" } };
  const guint64 comp[4] = { 2, 3, 3, 2 };
  write_grid (groups, comp);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_refused (&cfg, "holds simulated ranks and others");
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Two groups with the same members: pg 1 and 5 are both {0,1}, pg 2 and 6
 * both {2,3}; ranks 0,1 all-reduce on 1 then 5, ranks 2,3 on 2 then 6.
 * One class: images 2 -> 1 and 6 -> 5, consistent. */
START_TEST (test_groups_same_members)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[3];
      nodes[0] = tu_node_new (1, T_META, "pgs");
      tu_node_inputs (nodes[0], "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                                "{\"pg_name\": \"5\", \"ranks\": [0, 1]}, "
                                "{\"pg_name\": \"2\", \"ranks\": [2, 3]}, "
                                "{\"pg_name\": \"6\", \"ranks\": [2, 3]}]");
      for (guint i = 0; i < 2; i++)
        {
          nodes[1 + i] = tu_coll (2 + i, ALL_REDUCE, 400);
          tu_node_attr_string (nodes[1 + i], "pg_name",
                               r < 2 ? (i == 0 ? "1" : "5") : (i == 0 ? "2" : "6"));
          tu_node_dep (nodes[1 + i], 1 + i);
        }
      tu_write_rank (wl, r, nodes, 3);
    }
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Two senders meet at one port at one instant: ranks 0 and 3 send 1000
 * bytes (tag 1) to r + 2, ranks 1 and 4 (tag 2) to r + 1, ranks 2 and 5
 * receive both.  Classes {0,3}, {1,4}, {2,5}, every relation mutual.
 * When both send at 5 us their messages claim rank 2's port at once:
 * tried, then redone over every rank.  When rank 1 and 4 send at 7 us,
 * no meeting: three classes kept; the receivers finish when the later
 * message lands, 7 us + 1.2 us, then 1 us. */
START_TEST (test_meeting_at_a_port)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint late = 0; late < 2; late++)
    {
      for (guint32 r = 0; r < 6; r++)
        {
          guint32 k = r % 3;
          ChakraProtoMsg__Node *nodes[3];
          if (k < 2)
            {
              nodes[0] = tu_comp (1, k == 1 && late ? 7 : 5);
              nodes[1] = tu_p2p (2, T_SEND, r, r - k + 2, 1 + k, 1000);
              tu_node_dep (nodes[1], 1);
              tu_write_rank (wl, r, nodes, 2);
              continue;
            }
          nodes[0] = tu_p2p (1, T_RECV, r - 2, r, 1, 1000);
          nodes[1] = tu_p2p (2, T_RECV, r - 1, r, 2, 1000);
          nodes[2] = tu_comp (3, 1);
          tu_node_dep (nodes[2], 1);
          tu_node_dep (nodes[2], 2);
          tu_write_rank (wl, r, nodes, 3);
        }
      AppConfig cfg;
      exact_dim (&cfg, NET_DIM_SWITCH, 6);
      AppSim *sim = run_classes (&cfg, late ? 3 : 0, !late);
      if (late)
        {
          ck_assert_uint_eq (finish (sim, 2), sim_time_from_ns (7000 + 1200 + 1000));
          ck_assert_uint_eq (finish (sim, 5), sim_time_from_ns (7000 + 1200 + 1000));
        }
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Equal-time events within one rank: on a Ring of 2 (both directions one
 * hop, the same way round), ranks send 1900 bytes at 0 and compute 2 us
 * meanwhile; the message lands at 100 + 1900 ns = 2 us, the instant the
 * compute ends; a last 1 us of compute needs both.  One class. */
START_TEST (test_equal_time_within_rank)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 2), tu_p2p (2, T_SEND, r, 1 - r, 7, 1900),
                                        tu_p2p (3, T_RECV, 1 - r, r, 7, 1900), tu_comp (4, 1) };
      tu_node_dep (nodes[3], 1);
      tu_node_dep (nodes[3], 3);
      tu_write_rank (wl, r, nodes, 4);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  for (guint32 r = 0; r < 2; r++)
    ck_assert_uint_eq (finish (sim, r), sim_time_from_us (3));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* The congestion and flow models on the crosswise pairs: their links are
 * shared by every rank's messages, which a stand-in cannot receive for
 * others: refused, the figures every rank's. */
START_TEST (test_network_models)
{
  write_pairs (4, crosswise);
  const NetModelKind models[] = { NET_MODEL_CONGESTION, NET_MODEL_FLOW };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      AppConfig cfg;
      exact_dim (&cfg, NET_DIM_SWITCH, 4);
      cfg.net.model = models[m];
      AppSim *sim = run_refused (&cfg, "links shared by every rank's messages");
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Ring groups: ranks 0-3 and 4-7 all-reduce 4000 bytes in their half
 * (pg 1, 2) after 1 us of compute.  On a Ring of 8 a half is part of a
 * ring: the ring algorithm's step from its last member back to its first
 * (3 -> 0) is three hops, the others one, so the members are not alike;
 * but the halves are laid out alike (4 -> 7 as 0 -> 3), so the four
 * places are roles (replay_classes.c, (4')) whose ties at the shared
 * ports go by place ((4'')): four classes, {0, 4} .. {3, 7}, the same
 * figures in every mode.  On Rings of 4 x 2 a
 * half is a whole first-dimension ring, every member alike: one class of
 * eight, every rank finishing at one time. */
START_TEST (test_ring_groups)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 8; r++)
    {
      ChakraProtoMsg__Node *nodes[3];
      nodes[0] = tu_node_new (1, T_META, "pgs");
      tu_node_inputs (nodes[0], "[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2, 3]}, "
                                "{\"pg_name\": \"2\", \"ranks\": [4, 5, 6, 7]}]");
      nodes[1] = tu_comp (2, 1);
      tu_node_dep (nodes[1], 1);
      nodes[2] = tu_coll (3, ALL_REDUCE, 4000);
      tu_node_attr_string (nodes[2], "pg_name", r < 4 ? "1" : "2");
      tu_node_dep (nodes[2], 2);
      tu_write_rank (wl, r, nodes, 3);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 8);
  AppSim *sim = run_classes (&cfg, 4, FALSE);
  for (guint32 r = 4; r < 8; r++)
    ck_assert_uint_eq (finish (sim, r), finish (sim, r - 4));
  app_sim_free (sim);
  cfg.net.n_dims = 2;
  cfg.net.dims[0].size = 4;
  cfg.net.dims[1] = cfg.net.dims[0];
  cfg.net.dims[1].size = 2;
  sim = run_classes (&cfg, 1, FALSE);
  for (guint32 r = 1; r < 8; r++)
    ck_assert_uint_eq (finish (sim, r), finish (sim, 0));
  ck_assert_uint_gt (finish (sim, 0), sim_time_from_us (1));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* An unmatched message in a classed run: straight pairs on a Switch
 * (one class, as test_straight_pairs) where each rank also sends its
 * partner 64 bytes with tag 9 that nobody receives.  Eager (the default),
 * the stray message leaves without a receive: every node completes, one
 * class kept.  Rendezvous (threshold 0), it waits for a receive forever:
 * the class's run deadlocks and is redone over every rank, the same
 * deadlock error in every mode, naming the stray sends. */
START_TEST (test_unmatched_message)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *c = tu_comp (1, 5);
      ChakraProtoMsg__Node *s = tu_p2p (2, T_SEND, r, r ^ 1, 7, 1000);
      ChakraProtoMsg__Node *v = tu_p2p (3, T_RECV, r ^ 1, r, 7, 1000);
      ChakraProtoMsg__Node *stray = tu_p2p (4, T_SEND, r, r ^ 1, 9, 64);
      tu_node_dep (s, 1);
      tu_node_dep (stray, 1);
      ChakraProtoMsg__Node *nodes[] = { c, s, v, stray };
      tu_write_rank (wl, r, nodes, 4);
    }
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  AppSim *sim = run_classes (&cfg, 1, FALSE);
  ck_assert_uint_eq (wl_replay_unfinished (app_sim_replay (sim)), 0);
  app_sim_free (sim);
  cfg.sys.rendezvous_threshold = 0;
  Outcome o;
  GError *error = NULL;
  ck_assert_ptr_null (run (&cfg, &o, &error));
  g_assert_error (error, SIM_ERROR, SIM_ERROR_DEADLOCK);
  ck_assert_msg (strstr (error->message, "tag 9") != NULL, "%s", error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}
END_TEST

/* The grid of test_group_grid with both collectives after one compute
 * node of 2 us, on separate comm streams: an all-reduce of DP_BYTES on
 * the DP groups (pg 3 = {0,2}, 4 = {1,3}; node 3, stream 1) and one of
 * TP_BYTES on the TP groups (pg 1 = {0,1}, 2 = {2,3}; node 4, stream 0). */
static void
write_same_instant (gint64 dp_bytes, gint64 tp_bytes)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  const char *const tp[4] = { "1", "1", "2", "2" }, *const dp[4] = { "3", "4", "3", "4" };
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[4];
      nodes[0] = tu_node_new (1, T_META, "pgs");
      tu_node_inputs (nodes[0], "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                                "{\"pg_name\": \"2\", \"ranks\": [2, 3]}, "
                                "{\"pg_name\": \"3\", \"ranks\": [0, 2]}, "
                                "{\"pg_name\": \"4\", \"ranks\": [1, 3]}]");
      nodes[1] = tu_comp (2, 2);
      tu_node_dep (nodes[1], 1);
      nodes[2] = tu_coll (3, ALL_REDUCE, dp_bytes);
      tu_node_attr_string (nodes[2], "pg_name", dp[r]);
      tu_node_attr_int (nodes[2], "stream", 1);
      nodes[3] = tu_coll (4, ALL_REDUCE, tp_bytes);
      tu_node_attr_string (nodes[3], "pg_name", tp[r]);
      tu_node_attr_int (nodes[3], "stream", 0);
      tu_node_dep (nodes[2], 2);
      tu_node_dep (nodes[3], 2);
      tu_write_rank (wl, r, nodes, 4);
    }
}

/* Two collectives of different groups starting at one instant at every
 * rank: after 2 us of compute each rank all-reduces 2 MiB with its DP
 * peer (pg 3 = {0,2}, 4 = {1,3}; comm stream 1) and 32 KiB with its TP
 * peer (pg 1 = {0,1}, 2 = {2,3}; stream 0), on separate comm streams, on
 * one NVSwitch node (2 hops of 500 ns, 450 GB/s) with NCCL's library.
 * Every collective starts when its last member joins, in the order the
 * simulation handles the joins: ranks 0 and 1 start their TP all-reduce
 * before their DP one, ranks 2 and 3 the other way round.  Were the
 * messages served at the egress port in that order, ranks 2 and 3 would
 * queue their TP messages behind the DP ones and 0 and 1 would not: the
 * ranks would not be alike, and one class could not stand for them.  The
 * messages of one instant go in the order of their nodes instead (the DP
 * all-reduce is node 3, the TP one node 4), at every rank: all four
 * finish together, and one class of four is exact, with one comm stream
 * or two. */
START_TEST (test_same_instant_collectives)
{
  write_same_instant (2 << 20, 32 << 10);
  AppConfig cfg;
  app_config_init (&cfg);
  cfg.net.n_dims = 1;
  /* HGX H100 NVSwitch, as configs/default.xml: NVLink 4, 450 GB/s per
   * direction, about 500 ns per hop. */
  cfg.net.dims[0] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = 4, .bandwidth_Bps = 450e9,
                                   .latency = sim_time_from_ns (500) };
  cfg.net.rounding = NET_ROUND_PS;
  cfg.sys.lib.library = SYS_LIBRARY_NCCL;
  cfg.sys.lib.gpu = SYS_GPU_HOPPER;
  for (int streams = 1; streams <= 2; streams++)
    {
      cfg.wl.separate_comm_streams = streams == 2;
      AppSim *sim = run_classes (&cfg, 1, FALSE);
      for (guint32 r = 1; r < 4; r++)
        ck_assert_uint_eq (finish (sim, r), finish (sim, 0));
      app_sim_free (sim);
    }
  app_config_clear (&cfg);
}
END_TEST

/* The same two collectives at one instant, on the ASTRA-sim-style ring
 * (no NCCL library) over the one Switch dimension of 4 ranks, 4 chunks
 * each, one chunk in flight per dimension and rank: both collectives queue
 * their chunks on the rank's one dimension queue at the instant they
 * join, the TP all-reduce's waiting when the DP one's arrive.  The guard
 * does not look at what decides the next chunk: here the priorities
 * (LIFO, by each rank's own order of joining) decide alike at every rank, and
 * a run keeping the class gives the same figures; but where two queued
 * collectives tie, the order the run handled them in would decide.  So
 * classes are tried, the meeting stops the run, and it is redone over
 * every rank (the same figures as --symmetry off). */
START_TEST (test_queue_meeting)
{
  write_same_instant (64 << 10, 64 << 10);
  AppConfig cfg;
  exact_dim (&cfg, NET_DIM_SWITCH, 4);
  cfg.sys.splits = 4;
  cfg.sys.active_chunks_per_dim = 1;
  cfg.wl.separate_comm_streams = TRUE;
  AppSim *sim = run_classes (&cfg, 0, TRUE);
  ck_assert_str_eq (app_sim_classes_dropped (sim),
                    "two collectives picked from one of a rank's dimension queues at once while "
                    "others waited there, in an order the classes cannot show to be every rank's");
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

static Suite *
classes_suite (void)
{
  Suite *s = suite_create ("classes");
  TCase *tc = tu_tcase (s, "classes", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_straight_pairs);
  tcase_add_test (tc, test_crosswise_pairs);
  tcase_add_test (tc, test_ring_of_sends);
  tcase_add_test (tc, test_send_to_two_of_a_class);
  tcase_add_test (tc, test_not_mutual);
  tcase_add_test (tc, test_classed_deadlock);
  tcase_add_test (tc, test_pairs_differ_in_one_field);
  tcase_add_test (tc, test_tags_cross_within_pair);
  tcase_add_test (tc, test_self_sends);
  tcase_add_test (tc, test_rendezvous_and_eager);
  tcase_add_test (tc, test_compute_speeds);
  tcase_add_test (tc, test_group_grid);
  tcase_add_test (tc, test_group_order_differs);
  tcase_add_test (tc, test_group_order_differs_other_base);
  tcase_add_test (tc, test_group_spans_classes);
  tcase_add_test (tc, test_group_spans_classes_partly);
  tcase_add_test (tc, test_groups_same_members);
  tcase_add_test (tc, test_meeting_at_a_port);
  tcase_add_test (tc, test_equal_time_within_rank);
  tcase_add_test (tc, test_network_models);
  tcase_add_test (tc, test_ring_groups);
  tcase_add_test (tc, test_unmatched_message);
  tcase_add_test (tc, test_same_instant_collectives);
  tcase_add_test (tc, test_queue_meeting);
  return s;
}

int
main (void)
{
  return tu_run_suite (classes_suite ());
}
