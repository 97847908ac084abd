/* test_stream.c: streamed replay (stream.h, wl_replay_set_stream_window)
 * against the in-memory replay of the same traces.
 *
 * The reference for every streamed run is the in-memory replay of the same
 * files on the same cluster (with the symmetric shortcut off, so that both
 * simulate every rank and count the same events): each rank's figures
 * (finish, compute, exposed communication, busy times, bytes, counts) and
 * the number of events must be equal.  Workloads come from the project's
 * generators (data-parallel and pipelined transformers, mixture of
 * experts, group collectives) and from traces written here (forward
 * references, gzip, lenient defects).  Windows are small (a handful of
 * nodes per rank) so that nodes come and go all through the run.
 *
 * The error cases are traces built so that a window of 16 nodes cannot
 * stream them exactly; each must stop with the message that names the
 * node, without hanging.  The budget rule (when loading switches to
 * streaming) is checked against the byte counts of wl_replay.h worked out
 * by hand.
 */
#include <check.h>
#include <string.h>
#include <zlib.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "support/testutil.h"
#include "workload/gen.h"
#include "workload/gen_transformer.h"
#include "workload/stream.h"
#include "workload/wl_error.h"

enum
{
  T_META = 1, T_COMP = 4, T_SEND = 5, T_RECV = 6, T_COLL = 7
};

/* Build the simulation of PREFIX on CFG: in memory (WINDOW 0) or streamed
 * with WINDOW nodes per rank; NULL with ERROR set when loading fails. */
static AppSim *
sim_new (const AppConfig *cfg, const char *prefix, guint32 window, GError **error)
{
  AppSimLoad load = { .stream_window = window };
  AppSim *sim = app_sim_new_full (cfg, prefix, &load, error);
  if (sim != NULL)
    app_sim_set_symmetry (sim, FALSE);
  return sim;
}

/* Run PREFIX in memory, then streamed with each window of WINDOWS (0
 * ends the list): every run must complete, and every rank's figures and
 * the event counts must be equal. */
static void
assert_same (const AppConfig *cfg, const char *prefix, const guint32 *windows)
{
  GError *error = NULL;
  g_autoptr (AppSim) ref = sim_new (cfg, prefix, 0, &error);
  g_assert_no_error (error);
  ck_assert (!app_sim_streamed (ref));
  ck_assert (app_sim_run (ref, &error));
  g_assert_no_error (error);
  const WlReplay *rr = app_sim_replay (ref);
  for (const guint32 *w = windows; *w != 0; w++)
    {
      g_autoptr (AppSim) sim = sim_new (cfg, prefix, *w, &error);
      g_assert_no_error (error);
      ck_assert (app_sim_streamed (sim));
      ck_assert_uint_eq (wl_replay_stream_window (app_sim_replay (sim)), *w);
      ck_assert_msg (app_sim_run (sim, &error), "window %u: %s", *w, error->message);
      const WlReplay *sr = app_sim_replay (sim);
      ck_assert_uint_eq (wl_replay_ranks (sr), wl_replay_ranks (rr));
      ck_assert_uint_eq (wl_replay_distinct_graphs (sr), wl_replay_distinct_graphs (rr));
      ck_assert_uint_eq (wl_replay_unfinished (sr), 0);
      for (guint32 r = 0; r < wl_replay_ranks (rr); r++)
        {
          const WlRankStats *a = wl_replay_rank_stats (rr, r), *b = wl_replay_rank_stats (sr, r);
          ck_assert_msg (a->finish > 0, "rank %u did nothing", r);
          ck_assert_msg (memcmp (a, b, sizeof *a) == 0,
                         "window %u rank %u: finish %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                         ", compute %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                         ", exposed %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT
                         ", nodes %u / %u", *w, r, a->finish, b->finish, a->compute,
                         b->compute, a->exposed_comm, b->exposed_comm, a->nodes_done,
                         b->nodes_done);
        }
      ck_assert_uint_eq (sim_sched_events_run (app_sim_sched (sim)),
                         sim_sched_events_run (app_sim_sched (ref)));
    }
}

/* A small transformer iteration (Llama-2 7B shapes, LAYERS layers) into the
 * scratch directory as NAME. */
static char *
gen_transformer (const char *name, guint32 layers, guint32 tp, guint32 pp, guint32 dp,
                 guint32 microbatches, WlPipeSchedule schedule)
{
  char *prefix = tu_scratch_path (name);
  WlGenTransformer req = { .model = *wl_transformer_preset ("llama2-7b"), .micro_batch = 1,
                           .tp = tp, .pp = pp, .dp = dp, .microbatches = microbatches,
                           .schedule = schedule };
  req.model.layers = layers;
  GError *error = NULL;
  ck_assert (wl_gen_transformer (prefix, &req, &error));
  g_assert_no_error (error);
  return prefix;
}

/* Data parallelism over 8 ranks: one all-reduce per layer, gradients
 * overlapping the backward pass. */
START_TEST (test_data_parallel)
{
  g_autofree char *wl = gen_transformer ("dp", 4, 1, 1, 8, 2, WL_PIPE_1F1B);
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  assert_same (&cfg, wl, (const guint32[]) { 5, 8, 16, 64, 0 });
  app_config_clear (&cfg);
}
END_TEST

/* Pipelines of 4 stages (sends and receives between stages), 1F1B and
 * GPipe, tensor parallelism 2 inside each stage. */
START_TEST (test_pipeline)
{
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  g_autofree char *a = gen_transformer ("pp1f1b", 8, 2, 4, 1, 6, WL_PIPE_1F1B);
  assert_same (&cfg, a, (const guint32[]) { 4, 7, 32, 0 });
  g_autofree char *b = gen_transformer ("gpipe", 8, 1, 4, 2, 4, WL_PIPE_GPIPE);
  assert_same (&cfg, b, (const guint32[]) { 4, 9, 32, 0 });
  app_config_clear (&cfg);
}
END_TEST

/* Mixture of experts: all-to-all dispatch and combine on expert-parallel
 * groups (METADATA process groups), expert gradients on the expert-DP
 * groups. */
START_TEST (test_moe)
{
  g_autofree char *wl = tu_scratch_path ("moe");
  WlGenTransformer req = { .model = *wl_transformer_preset ("mixtral-8x7b"), .micro_batch = 1,
                           .tp = 1, .pp = 1, .dp = 8, .ep = 4, .microbatches = 2 };
  req.model.layers = 2;
  GError *error = NULL;
  ck_assert (wl_gen_transformer (wl, &req, &error));
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  assert_same (&cfg, wl, (const guint32[]) { 4, 6, 32, 0 });
  app_config_clear (&cfg);
}
END_TEST

/* Collectives on groups of 4 and of stride 2, five in a row. */
START_TEST (test_group_collectives)
{
  g_autofree char *rows = tu_scratch_path ("rows");
  g_autofree char *cols = tu_scratch_path ("cols");
  WlGenCollective r = { .kind = SYS_COLL_ALL_REDUCE, .ranks = 8, .bytes = 1 << 20,
                        .group_size = 4, .count = 5 };
  WlGenCollective c = { .kind = SYS_COLL_ALL_GATHER, .ranks = 8, .bytes = 1 << 16,
                        .group_size = 4, .stride = 2, .count = 5 };
  GError *error = NULL;
  ck_assert (wl_gen_collective_full (rows, &r, &error));
  ck_assert (wl_gen_collective_full (cols, &c, &error));
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  assert_same (&cfg, rows, (const guint32[]) { 1, 2, 0 });
  assert_same (&cfg, cols, (const guint32[]) { 1, 3, 0 });
  app_config_clear (&cfg);
}
END_TEST

/* Per rank, 48 nodes in 12 groups of 4: in group g, a -> b -> c -> d (each
 * depends on the one before) written d, c, b, a, so that every dependency
 * but the group's first is on a node later in the file (a forward
 * reference); a depends on the previous group's d, and every third group
 * ends with an all-reduce.  Durations differ by rank so that ranks wait
 * for each other. */
static void
write_backwards (const char *prefix, guint32 ranks)
{
  for (guint32 r = 0; r < ranks; r++)
    {
      ChakraProtoMsg__Node *nodes[48];
      for (guint32 g = 0; g < 12; g++)
        {
          guint64 base = 100 + 10 * g;
          ChakraProtoMsg__Node *d = g % 3 == 2 ? tu_coll (base + 3, 0, 1 << 16)
                                               : tu_comp (base + 3, 5 + r);
          ChakraProtoMsg__Node *c = tu_comp (base + 2, 3 + g % 4);
          ChakraProtoMsg__Node *b = tu_comp (base + 1, 2 + r % 3);
          ChakraProtoMsg__Node *a = tu_comp (base, 1);
          tu_node_dep (d, base + 2);
          tu_node_ctrl_dep (c, base + 1);
          tu_node_dep (b, base);
          if (g > 0)
            tu_node_dep (a, base - 10 + 3);
          nodes[4 * g] = d;
          nodes[4 * g + 1] = c;
          nodes[4 * g + 2] = b;
          nodes[4 * g + 3] = a;
        }
      tu_write_rank (prefix, r, nodes, 48);
    }
}

START_TEST (test_forward_references)
{
  g_autofree char *wl = tu_scratch_path ("back");
  write_backwards (wl, 8);
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  /* A group is 4 nodes: a window of 8 holds it and the next. */
  assert_same (&cfg, wl, (const guint32[]) { 8, 12, 64, 0 });
  app_config_clear (&cfg);
}
END_TEST

/* Replace the file at PATH by its gzip compression (the name is kept:
 * readers go by the content). */
static void
gzip_in_place (const char *path)
{
  g_autofree char *raw = NULL;
  gsize len = 0;
  ck_assert (g_file_get_contents (path, &raw, &len, NULL));
  gzFile gz = gzopen (path, "wb");
  ck_assert_ptr_nonnull (gz);
  ck_assert_int_eq (gzwrite (gz, raw, (unsigned) len), (int) len);
  ck_assert_int_eq (gzclose (gz), Z_OK);
}

START_TEST (test_gzip)
{
  g_autofree char *wl = gen_transformer ("gz", 8, 1, 4, 2, 4, WL_PIPE_1F1B);
  for (guint32 r = 0; r < 8; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", wl, r);
      gzip_in_place (path);
    }
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  assert_same (&cfg, wl, (const guint32[]) { 4, 16, 0 });
  app_config_clear (&cfg);
}
END_TEST

/* Lenient reading of messy traces gives the same replay and the same
 * counts of what was dropped: per rank, a repeated id, a collective
 * without comm_type (skipped), a valueless attribute, and a last frame cut
 * short. */
START_TEST (test_lenient)
{
  g_autofree char *wl = tu_scratch_path ("messy");
  for (guint32 r = 0; r < 8; r++)
    {
      ChakraProtoMsg__Node *nodes[40];
      guint n = 0;
      for (guint64 i = 1; i <= 36; i++)
        {
          ChakraProtoMsg__Node *x = i % 9 == 0 ? tu_coll (i, 0, 4096) : tu_comp (i, 2 + (i + r) % 5);
          if (i > 1)
            tu_node_dep (x, i - 1);
          nodes[n++] = x;
        }
      ChakraProtoMsg__Node *dup = tu_comp (20, 99); /* dropped: id 20 came first */
      tu_node_dep (dup, 3);
      nodes[n++] = dup;
      ChakraProtoMsg__Node *notype = tu_node_new (37, T_COLL, "no type");
      tu_node_attr_int (notype, "comm_size", 64);
      tu_node_dep (notype, 36);
      nodes[n++] = notype;
      ChakraProtoMsg__Node *valueless = tu_comp (38, 4);
      tu_node_attr_int (valueless, "num_ops", 1);
      valueless->attr[valueless->n_attr - 1]->value_case
          = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET;
      tu_node_dep (valueless, 37);
      nodes[n++] = valueless;
      nodes[n++] = tu_comp (39, 1);
      tu_write_rank (wl, r, nodes, n);
      /* Cut the last frame (node 39) short. */
      g_autofree char *path = g_strdup_printf ("%s.%u.et", wl, r);
      g_autofree char *raw = NULL;
      gsize len = 0;
      ck_assert (g_file_get_contents (path, &raw, &len, NULL));
      ck_assert (g_file_set_contents (path, raw, (gssize) len - 2, NULL));
    }
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  cfg.wl.lenient = TRUE;
  assert_same (&cfg, wl, (const guint32[]) { 2, 8, 0 });
  GError *error = NULL;
  g_autoptr (AppSim) sim = sim_new (&cfg, wl, 4, &error);
  g_assert_no_error (error);
  WlLenientStats st;
  wl_replay_lenient_stats (app_sim_replay (sim), &st);
  ck_assert_uint_eq (st.duplicate_nodes_dropped, 8);
  ck_assert_uint_eq (st.colls_skipped, 8);
  ck_assert_uint_eq (st.valueless_attrs_ignored, 8);
  ck_assert_uint_eq (st.truncated_frames, 8);
  ck_assert_uint_eq (wl_lenient_stats_total (&st), 32);
  ck_assert_uint_eq (wl_replay_rank_stats (app_sim_replay (sim), 0)->nodes, 38);
  app_config_clear (&cfg);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------- */

/* Write one trace (rank 0 of a 1-rank workload) and run it streamed with
 * WINDOW: it must fail with an input error holding each of NEEDLES. */
static void
expect_stream_error (ChakraProtoMsg__Node **nodes, guint n, guint32 window,
                     const char *const *needles)
{
  g_autofree char *wl = tu_scratch_path ("bad");
  tu_write_rank (wl, 0, nodes, n);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  GError *error = NULL;
  g_autoptr (AppSim) sim = sim_new (&cfg, wl, window, &error);
  if (sim != NULL)
    ck_assert (!app_sim_run (sim, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (error->code == SIM_ERROR_INPUT, "code %d: %s", error->code, error->message);
  for (const char *const *s = needles; *s != NULL; s++)
    ck_assert_msg (strstr (error->message, *s) != NULL, "'%s' not in: %s", *s, error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}

/* A chain of 30 nodes (each 1 us, after the one before), then node 500
 * without dependencies: in memory node 500 is ready at time 0.  A window
 * of 16 nodes does not reach it when the rank starts (the chain itself
 * streams: each link is read while the one before waits). */
START_TEST (test_late_root)
{
  ChakraProtoMsg__Node *nodes[31];
  for (guint i = 0; i < 30; i++)
    {
      nodes[i] = tu_comp (1 + i, 1);
      if (i > 0)
        tu_node_dep (nodes[i], i);
    }
  nodes[30] = tu_comp (500, 1);
  expect_stream_error (nodes, 31, 16,
                       (const char *[]) { "bad.0.et", "rank 0", "node 500 has no dependencies",
                                          "ready when the rank starts", "beyond the 16 nodes",
                                          "--memory-budget", NULL });
}
END_TEST

/* Node 1 (1 us) and node 2 (1000 us), both without dependencies, a chain
 * of 28 nodes after node 2, then node 600 after node 1 only.  In memory
 * node 600 is ready at 1 us; a window of 16 nodes is full of the chain
 * then, and reaches node 600 only as the chain runs, long after node 1
 * finished. */
START_TEST (test_read_after_parent)
{
  ChakraProtoMsg__Node *nodes[31];
  nodes[0] = tu_comp (1, 1);
  nodes[1] = tu_comp (2, 1000);
  for (guint i = 2; i < 30; i++)
    {
      nodes[i] = tu_comp (1 + i, 1);
      tu_node_dep (nodes[i], i);
    }
  nodes[30] = tu_comp (600, 1);
  tu_node_dep (nodes[30], 1);
  expect_stream_error (nodes, 31, 16,
                       (const char *[]) { "bad.0.et", "rank 0: node 600 was read at",
                                          "after its parent node 1 had finished",
                                          "the memory budget is too small to stream this "
                                          "trace exactly", "the window holds 16 nodes per rank",
                                          "--memory-budget none", NULL });
}
END_TEST

/* Nodes 1 .. 30 all wait on node 900, the last in the file (a root): the
 * window of 16 fills with nodes that wait, and nothing can run. */
START_TEST (test_window_full_of_waiters)
{
  ChakraProtoMsg__Node *nodes[31];
  for (guint i = 0; i < 30; i++)
    {
      nodes[i] = tu_comp (1 + i, 1);
      tu_node_dep (nodes[i], 900);
    }
  nodes[30] = tu_comp (900, 1);
  expect_stream_error (nodes, 31, 16,
                       (const char *[]) { "bad.0.et", "rank 0: at 0 ns",
                                          "every node in the memory budget's window of 16 nodes "
                                          "waits on nodes further in the file",
                                          "node 1 depends on node 900, not read yet", NULL });
}
END_TEST

/* A dependency on an id absent from the file is found by the first pass,
 * in graph loading's words; when lenient, the message says why it cannot
 * be dropped while streaming. */
START_TEST (test_dangling)
{
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), tu_comp (2, 1), tu_comp (3, 1) };
  tu_node_dep (nodes[1], 1);
  tu_node_dep (nodes[2], 77);
  expect_stream_error (nodes, 3, 16,
                       (const char *[]) { "bad.0.et: node 3 depends on node 77, which is not in "
                                          "the trace (dangling dependency)", NULL });
  ChakraProtoMsg__Node *again[] = { tu_comp (1, 1), tu_comp (2, 1) };
  tu_node_dep (again[1], 77);
  g_autofree char *wl = tu_scratch_path ("lenient");
  tu_write_rank (wl, 0, again, 2);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  cfg.wl.lenient = TRUE;
  GError *error = NULL;
  ck_assert_ptr_null (sim_new (&cfg, wl, 16, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_msg (strstr (error->message, "node 2 depends on node 77, which is not in the trace")
                 != NULL && strstr (error->message, "--lenient drops such dependencies only "
                                                    "when the traces are loaded whole") != NULL,
                 "%s", error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}
END_TEST

/* A cycle 1 -> 3 -> 2 -> 1 (1 depends on 3, 3 on 2, 2 on 1) beside a root:
 * the same message as graph loading's, when node 3 closes it. */
START_TEST (test_cycle)
{
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), tu_comp (2, 1), tu_comp (3, 1),
                                    tu_comp (4, 1) };
  tu_node_dep (nodes[0], 3);
  tu_node_dep (nodes[1], 1);
  tu_node_ctrl_dep (nodes[2], 2);
  expect_stream_error (nodes, 4, 16,
                       (const char *[]) { "bad.0.et: dependency cycle through 3 nodes: 1 -> 3 -> "
                                          "2 -> 1 (each depends on the next)", NULL });
  ChakraProtoMsg__Node *self[] = { tu_comp (1, 1), tu_comp (2, 1) };
  tu_node_dep (self[1], 2);
  expect_stream_error (self, 2, 16,
                       (const char *[]) { "dependency cycle through 1 node: 2 -> 2", NULL });
}
END_TEST

/* Per-node checks happen in the first pass, with graph loading's words. */
START_TEST (test_node_checks)
{
  ChakraProtoMsg__Node *dup[] = { tu_comp (1, 1), tu_comp (1, 2) };
  expect_stream_error (dup, 2, 16,
                       (const char *[]) { "bad.0.et: node 1: the id appears twice in the trace "
                                          "(duplicate id)", NULL });
  ChakraProtoMsg__Node *notype[] = { tu_comp (1, 1), tu_node_new (2, T_COLL, "c") };
  expect_stream_error (notype, 2, 16,
                       (const char *[]) { "bad.0.et: node 2: COMM_COLL node without comm_type",
                                          NULL });
  ChakraProtoMsg__Node *peer[] = { tu_p2p (1, T_SEND, 0, 5, 0, 8) };
  expect_stream_error (peer, 1, 16,
                       (const char *[]) { "bad.0.et: rank 0 node 1: comm_dst names a rank "
                                          "beyond the topology", NULL });
}
END_TEST

/* Rank 0 receives from rank 1 a message rank 1 never sends, then runs
 * LENGTH nodes after it; rank 1 computes.  In memory the run deadlocks.
 * Streamed with a window that holds rank 0's whole trace, the deadlock is
 * reported in the same words; with a smaller window the run cannot tell a
 * deadlock from a window too small, and says so. */
static char *
write_deadlock (guint length)
{
  char *wl = tu_scratch_path ("stuck");
  ChakraProtoMsg__Node *r0[40];
  r0[0] = tu_p2p (1, T_RECV, 1, 0, 5, 64);
  for (guint i = 1; i <= length; i++)
    {
      r0[i] = tu_comp (1 + i, 1);
      tu_node_dep (r0[i], i);
    }
  tu_write_rank (wl, 0, r0, length + 1);
  ChakraProtoMsg__Node *r1[] = { tu_comp (1, 3) };
  tu_write_rank (wl, 1, r1, 1);
  return wl;
}

START_TEST (test_deadlock)
{
  g_autofree char *wl = write_deadlock (10);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  GError *e1 = NULL, *e2 = NULL;
  g_autoptr (AppSim) whole = sim_new (&cfg, wl, 0, &e1);
  g_autoptr (AppSim) streamed = sim_new (&cfg, wl, 16, &e2);
  ck_assert (!app_sim_run (whole, &e1));
  ck_assert (!app_sim_run (streamed, &e2));
  g_assert_error (e1, SIM_ERROR, SIM_ERROR_DEADLOCK);
  g_assert_error (e2, SIM_ERROR, SIM_ERROR_DEADLOCK);
  ck_assert_str_eq (e1->message, e2->message);
  ck_assert_msg (strstr (e1->message, "rank 0: 11 of 11 nodes unfinished; blocked in node 1 "
                                      "(COMM_RECV from rank 1 tag 5); 10 nodes wait on their "
                                      "dependencies") != NULL, "%s", e1->message);
  g_clear_error (&e1);
  g_clear_error (&e2);
  g_autofree char *longer = write_deadlock (30);
  g_autoptr (AppSim) small = sim_new (&cfg, longer, 16, &e2);
  g_assert_no_error (e2);
  ck_assert (!app_sim_run (small, &e2));
  g_assert_error (e2, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_msg (strstr (e2->message, "stuck.0.et: rank 0: the run stopped at 3.000 us with "
                                      "nodes of this trace not read yet") != NULL
                 && strstr (e2->message, "either the workload deadlocks, or the budget is too "
                                         "small") != NULL, "%s", e2->message);
  g_error_free (e2);
  app_config_clear (&cfg);
}
END_TEST

/* Recording (reports, timelines) needs every node: refused. */
START_TEST (test_no_recording)
{
  g_autofree char *wl = tu_scratch_path ("rec");
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1) };
  tu_write_rank (wl, 0, nodes, 1);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  GError *error = NULL;
  g_autoptr (AppSim) sim = sim_new (&cfg, wl, 16, &error);
  g_assert_no_error (error);
  app_sim_set_recording (sim, TRUE);
  ck_assert (!app_sim_run (sim, &error));
  tu_assert_input_error (error, "need every trace node in memory");
  g_error_free (error);
  app_config_clear (&cfg);
}
END_TEST

/* ---- the budget ---------------------------------------------------------------------- */

/* One rank, 10 nodes named "n" (2 bytes with the NUL), a chain: 9
 * dependencies.  Loading counts WL_LOAD_NODE_BYTES per node, WL_LOAD_DEP_BYTES
 * per dependency and the names while it reads, 160 x 10 + 40 x 9 + 2 x 10 =
 * 1980 bytes after the last node; afterwards the graph and the rank's state
 * take less.  A budget of 1980 bytes loads it whole; 1979 streams it, with
 * the smallest window. */
START_TEST (test_budget_rule)
{
  g_autofree char *wl = tu_scratch_path ("chain");
  ChakraProtoMsg__Node *nodes[10];
  for (guint i = 0; i < 10; i++)
    {
      nodes[i] = tu_node_new (i + 1, T_COMP, "n");
      nodes[i]->duration_micros = 1;
      if (i > 0)
        tu_node_dep (nodes[i], i);
    }
  tu_write_rank (wl, 0, nodes, 10);
  ck_assert_uint_eq (WL_LOAD_NODE_BYTES * 10 + WL_LOAD_DEP_BYTES * 9 + 2 * 10, 1980);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  for (guint64 budget = 1979; budget <= 1980; budget++)
    {
      AppSimLoad load = { .memory_budget = budget };
      GError *error = NULL;
      g_autoptr (AppSim) sim = app_sim_new_full (&cfg, wl, &load, &error);
      g_assert_no_error (error);
      ck_assert_int_eq (app_sim_streamed (sim), budget == 1979);
      if (budget == 1979)
        ck_assert_uint_eq (wl_replay_stream_window (app_sim_replay (sim)), WL_STREAM_MIN_WINDOW);
      ck_assert (app_sim_run (sim, &error));
      ck_assert_uint_eq (app_sim_end_time (sim), sim_time_from_us (10));
      /* One rank doing the same as itself: symmetric, unless streamed. */
      ck_assert_int_eq (app_sim_symmetric (sim), budget == 1980);
      if (budget == 1979)
        ck_assert_str_eq (app_sim_not_symmetric (sim),
                          "the traces are streamed (they do not fit the memory budget)");
    }
  /* What streaming a rank costs turns a larger budget into its window. */
  guint64 budget = WL_STREAM_RANK_BYTES + 1000 * WL_STREAM_NODE_BYTES;
  g_autofree char *big = tu_scratch_path ("big");
  ChakraProtoMsg__Node *many[2000];
  for (guint i = 0; i < 2000; i++)
    many[i] = tu_comp (i + 1, 1);
  tu_write_rank (big, 0, many, 2000);
  AppSimLoad load = { .memory_budget = budget };
  GError *error = NULL;
  g_autoptr (AppSim) sim = app_sim_new_full (&cfg, big, &load, &error);
  g_assert_no_error (error);
  ck_assert (app_sim_streamed (sim));
  ck_assert_uint_eq (wl_replay_stream_window (app_sim_replay (sim)), 1000);
  app_config_clear (&cfg);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("stream");
  TCase *same = tu_tcase (s, "same", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_test (same, test_data_parallel);
  tcase_add_test (same, test_pipeline);
  tcase_add_test (same, test_moe);
  tcase_add_test (same, test_group_collectives);
  tcase_add_test (same, test_forward_references);
  tcase_add_test (same, test_gzip);
  tcase_add_test (same, test_lenient);
  TCase *errors = tu_tcase (s, "errors", tu_scratch_setup, tu_scratch_teardown, 30);
  tcase_add_test (errors, test_late_root);
  tcase_add_test (errors, test_read_after_parent);
  tcase_add_test (errors, test_window_full_of_waiters);
  tcase_add_test (errors, test_dangling);
  tcase_add_test (errors, test_cycle);
  tcase_add_test (errors, test_node_checks);
  tcase_add_test (errors, test_no_recording);
  tcase_add_test (errors, test_deadlock);
  tcase_add_test (errors, test_budget_rule);
  return tu_run_suite (s);
}
