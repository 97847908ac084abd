/* test_gen_bound.c: the pipeline lower bound of gen transformer's
 * iterations (wl_gen_transformer_walk, wl_gen_transformer_bound), the one
 * `orrery plan` orders and bounds its candidates by.
 *
 * The walk on hand-worked pipelines whose longest paths are worked out
 * below, step by step; the bound of real requests against what the run
 * gives: with one stage it is exactly the rank's compute priced by the run
 * (wl_replay_compute_floor: the same nodes, priced alike), with more it is
 * at least that and at most the simulated iteration.
 */
#include <check.h>

#include "sim/app/simulation.h"
#include "workload/gen_transformer.h"
#include "workload/kernel_model.h"
#include "workload/replay.h"
#include "support/testutil.h"

/* A request of PP stages, V chunks each, under SCHED: all the walk reads. */
static WlGenTransformer
pipe_of (guint32 pp, guint32 v, WlPipeSchedule sched)
{
  WlGenTransformer r = { .pp = pp, .virtual_stages = v, .schedule = sched, .tp = 1, .dp = 1 };
  r.model.layers = 64;
  return r;
}

/* Walk REQ with every chunk costing F forward and B backward, no step. */
static SimTime
walk_even (const WlGenTransformer *req, guint32 m, SimTime f, SimTime b)
{
  guint32 chunks = req->pp * MAX (req->virtual_stages, 1u);
  g_autofree WlTfChunkCost *cost = g_new0 (WlTfChunkCost, chunks);
  g_autofree SimTime *step = g_new0 (SimTime, req->pp);
  for (guint32 k = 0; k < chunks; k++)
    cost[k] = (WlTfChunkCost) { .fwd = f, .bwd = b };
  return wl_gen_transformer_walk (req, m, cost, step);
}

/* 1F1B with equal stages: the first micro-batch's forwards through p - 1
 * stages, the last stage's m forwards and backwards, the last micro-batch's
 * backwards back: (m + p - 1)(f + b). */
START_TEST (test_walk_1f1b)
{
  WlGenTransformer two = pipe_of (2, 1, WL_PIPE_1F1B), four = pipe_of (4, 1, WL_PIPE_1F1B);
  ck_assert_uint_eq (walk_even (&two, 4, 10, 20), (4 + 1) * 30);
  ck_assert_uint_eq (walk_even (&four, 8, 1, 2), (8 + 3) * 3);
  /* GPipe, 2 stages, 2 micro-batches, f 1, b 2: stage 0 F0 [0,1] F1
   * [1,2]; stage 1 F0 [1,2] F1 [2,3] B0 [3,5] B1 [5,7]; stage 0 B0 [5,7]
   * B1 [7,9]: (m + p - 1)(f + b) = 9 as well. */
  WlGenTransformer gpipe = pipe_of (2, 1, WL_PIPE_GPIPE);
  ck_assert_uint_eq (walk_even (&gpipe, 2, 1, 2), 9);
}
END_TEST

/* Unequal stages, 1F1B, m = 3: f = (1, 5), b = (2, 10).  Stage 0 runs F0
 * F1 B0 F2 B1 B2, stage 1 F0 B0 F1 B1 F2 B2.  Stage 0: F0 [0,1], F1 [1,2];
 * stage 1: F0 [1,6], B0 [6,16], F1 [16,21], B1 [21,31]; stage 0: B0
 * [16,18], F2 [18,19]; stage 1: F2 [31,36], B2 [36,46]; stage 0: B1
 * [31,33], B2 [46,48].  48 = f0 + 3 (f1 + b1) + b0, the closed form at
 * s = 1.  With optimizer steps of 5 (stage 0) and 100 (stage 1): stage 1
 * ends at 146, and stage 0 still receives its last gradient at 46 (the
 * step follows the send), so it ends at 48 + 5: the bound is 146. */
START_TEST (test_walk_uneven)
{
  WlGenTransformer r = pipe_of (2, 1, WL_PIPE_1F1B);
  WlTfChunkCost cost[2] = { { .fwd = 1, .bwd = 2 }, { .fwd = 5, .bwd = 10 } };
  SimTime none[2] = { 0, 0 }, step[2] = { 5, 100 };
  ck_assert_uint_eq (wl_gen_transformer_walk (&r, 3, cost, none), 48);
  ck_assert_uint_eq (wl_gen_transformer_walk (&r, 3, cost, step), 146);
  /* Stage 0's own step decides when it is the longer: 48 + 60. */
  SimTime late[2] = { 60, 1 };
  ck_assert_uint_eq (wl_gen_transformer_walk (&r, 3, cost, late), 108);
}
END_TEST

/* One stage, m = 3: f 1, b 2, the first forward 4 more (FP8 casts), each
 * later backward 8 more (gradient accumulation), the step 16:
 * 3 (1 + 2) + 4 + 2 x 8 + 16 = 45. */
START_TEST (test_walk_extras)
{
  WlGenTransformer r = pipe_of (1, 1, WL_PIPE_1F1B);
  WlTfChunkCost cost = { .fwd = 1, .bwd = 2, .fwd_first = 4, .bwd_later = 8 };
  SimTime step = 16;
  ck_assert_uint_eq (wl_gen_transformer_walk (&r, 3, &cost, &step), 45);
}
END_TEST

/* Interleaved 1F1B, p = 2, v = 2, m = 2, every chunk f 1, b 2 (chunks 0
 * and 2 on stage 0, 1 and 3 on stage 1).  Stage 0's order: F(0,0) F(0,1)
 * F(2,0) F(2,1) B(2,0) B(2,1) B(0,0) B(0,1); stage 1's: F(1,0) F(1,1)
 * F(3,0) B(3,0) F(3,1) B(3,1) B(1,0) B(1,1) (chunk, micro-batch).  Stage 0:
 * [0,1] [1,2]; stage 1: [1,2] [2,3]; stage 0: F(2,0) [2,3], F(2,1) [3,4];
 * stage 1: F(3,0) [3,4], B(3,0) [4,6], F(3,1) [6,7], B(3,1) [7,9]; stage 0:
 * B(2,0) [6,8], B(2,1) [9,11]; stage 1: B(1,0) [9,11], B(1,1) [11,13];
 * stage 0: B(0,0) [11,13], B(0,1) [13,15].  15 = (m v + p - 1)(f + b). */
START_TEST (test_walk_interleaved)
{
  WlGenTransformer r = pipe_of (2, 2, WL_PIPE_1F1B);
  ck_assert_uint_eq (walk_even (&r, 2, 1, 2), 15);
}
END_TEST

typedef struct
{
  guint32 tp, pp, dp, v;
  WlRecompute recompute;
  gboolean fp8;
  guint32 cp;
  gboolean no_sp;
} Layout;

/* 8 ranks of tu_config_2x4; the last two have two stages. */
static const Layout layouts[] = {
  { 2, 1, 4, 0, WL_RECOMPUTE_NONE, FALSE, 1, FALSE },
  { 1, 1, 8, 0, WL_RECOMPUTE_FULL, TRUE, 1, FALSE },
  { 2, 2, 2, 0, WL_RECOMPUTE_SELECTIVE, FALSE, 1, FALSE },
  { 1, 2, 4, 2, WL_RECOMPUTE_FULL, TRUE, 1, FALSE },
};

/* A small Llama-2 request of layout L: 4 layers, 4 micro-batches. */
static WlGenTransformer
request_of (const Layout *l)
{
  WlGenTransformer req = { .model = *wl_transformer_preset ("llama2-7b"), .micro_batch = 1,
                           .tp = l->tp, .pp = l->pp, .dp = l->dp, .virtual_stages = l->v,
                           .recompute = l->recompute, .fp8 = l->fp8, .unfused_grad_accum = TRUE,
                           .cp = l->cp, .no_sequence_parallel = l->no_sp,
                           .device = wl_device_preset ("H100-SXM") };
  req.model.layers = 4;
  req.model.seq = 256;
  req.model.vocab = 1000;
  req.global_batch = 4 * l->dp;
  return req;
}

/* Layout _i under three compute models: the bound against the compute
 * floor and the simulated iteration. */
START_TEST (test_bound_against_run)
{
  const Layout *l = &layouts[_i];
  WlGenTransformer req = request_of (l);
  GError *error = NULL;
  g_autoptr (GPtrArray) graphs = wl_gen_transformer_graphs ("b", &req, &error);
  ck_assert_msg (graphs != NULL, "%s", error != NULL ? error->message : "");
  const WlComputeModel models[] = { WL_COMPUTE_KERNEL, WL_COMPUTE_ROOFLINE, WL_COMPUTE_REPLAY };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      AppConfig cfg;
      tu_config_2x4 (&cfg);
      cfg.wl.compute = models[m];
      cfg.wl.kernel_device = wl_kernel_device ("H100-SXM");
      SimTime bound = wl_gen_transformer_bound (&req, &cfg.wl, NULL);
      g_autoptr (AppSim) sim = app_sim_new_graphs (&cfg, NULL, "b", graphs, &error);
      ck_assert_msg (sim != NULL, "%s", error != NULL ? error->message : "");
      SimTime floor_ps = wl_replay_compute_floor (app_sim_replay (sim));
      ck_assert_uint_gt (floor_ps, 0);
      /* One stage: its one chain of compute nodes, every one priced as
       * the run prices it. */
      if (l->pp == 1)
        ck_assert_uint_eq (bound, floor_ps);
      else
        ck_assert_uint_gt (bound, floor_ps);
      ck_assert (app_sim_run (sim, &error));
      ck_assert_uint_le (bound, app_sim_end_time (sim));
      app_config_clear (&cfg);
    }
}
END_TEST

/* The communication floor by hand: TP 8 on one node of 8 GPUs behind one
 * switch at 450 GB/s a port, one stage, sequence parallelism, 4 layers,
 * 4 micro-batches of 1 x 256 tokens, hidden 4096: A = 2 x 256 x 4096 =
 * 2,097,152 bytes of activation.  Each TP collective on the chain, an
 * all-gather of A / 8 a member or a reduce-scatter of A, has a member
 * receive 7 x 262,144 = 1,835,008 bytes: 1,835,008 / 450e9 s =
 * 4,077,795.6 ps, rounded down, less 1 ns: F = 4,076,795 ps.  A layer
 * has 4 of them forward and 4 backward, the embedding one each way, the
 * head one each way: (8 x 4 + 4) x 4 micro-batches = 144 F over the
 * bound without the floor (the compute unchanged).  Within the
 * simulated iteration under every network model. */
static void
config_1x8 (AppConfig *cfg, NetModelKind model)
{
  app_config_init (cfg);
  cfg->net.n_dims = 1;
  cfg->net.model = model;
  cfg->net.dims[0] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = 8, .bandwidth_Bps = 450e9,
                                    .latency = sim_time_from_ns (500) };
  cfg->wl.compute = WL_COMPUTE_KERNEL;
  cfg->wl.kernel_device = wl_kernel_device ("H100-SXM");
}

static SimTime
simulated (AppConfig *cfg, const char *prefix, GPtrArray *graphs)
{
  GError *error = NULL;
  g_autoptr (AppSim) sim = app_sim_new_graphs (cfg, NULL, prefix, graphs, &error);
  ck_assert_msg (sim != NULL, "%s", error != NULL ? error->message : "");
  ck_assert (app_sim_run (sim, &error));
  return app_sim_end_time (sim);
}

START_TEST (test_floor_by_hand)
{
  static const Layout tp8 = { 8, 1, 1, 0, WL_RECOMPUTE_NONE, FALSE, 1, FALSE };
  WlGenTransformer req = request_of (&tp8);
  GError *error = NULL;
  g_autoptr (GPtrArray) graphs = wl_gen_transformer_graphs ("h", &req, &error);
  ck_assert_msg (graphs != NULL, "%s", error != NULL ? error->message : "");
  const WlTfNetFloor net = { .in_Bps = 450e9, .rs_shards = TRUE };
  const NetModelKind models[] = { NET_MODEL_ANALYTICAL, NET_MODEL_CONGESTION, NET_MODEL_FLOW };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      AppConfig cfg;
      config_1x8 (&cfg, models[m]);
      SimTime free_ps = wl_gen_transformer_bound (&req, &cfg.wl, NULL);
      SimTime bound = wl_gen_transformer_bound (&req, &cfg.wl, &net);
      ck_assert_uint_gt (free_ps, 0);
      ck_assert_uint_eq (bound - free_ps, 144 * G_GUINT64_CONSTANT (4076795));
      /* A member of a reduce-scatter is owed one shard only (rs_shards
       * FALSE): its 18 per micro-batch count 262,144 bytes, 582,542 ps,
       * rounded down, less 1 ns: 581,542. */
      const WlTfNetFloor one = { .in_Bps = 450e9 };
      ck_assert_uint_eq (wl_gen_transformer_bound (&req, &cfg.wl, &one) - free_ps,
                         4 * (18 * G_GUINT64_CONSTANT (4076795) + 18 * 581542));
      ck_assert_uint_le (bound, simulated (&cfg, "h", graphs));
      app_config_clear (&cfg);
    }
}
END_TEST

/* 8 ranks of tu_config_2x4 (two Rings, 100 and 25 GB/s: a rank's ports
 * take in at most 2 x 100 + 2 x 25 GB/s) across its dimensions: TP 8
 * (both dimensions), TP 4 and 2 stages without sequence parallelism (TP
 * all-reduces, the all-gathers after the pipeline's receives), TP 2 with
 * CP 2 and 2 stages, interleaved, selective recomputation; TP 2 over 4
 * stages, full recomputation.  The floor raises the bound and keeps it
 * within the simulated iteration under every network model. */
static const Layout floor_layouts[] = {
  { 8, 1, 1, 0, WL_RECOMPUTE_NONE, FALSE, 1, FALSE },
  { 4, 2, 1, 0, WL_RECOMPUTE_NONE, FALSE, 1, TRUE },
  { 2, 2, 1, 2, WL_RECOMPUTE_SELECTIVE, FALSE, 2, FALSE },
  { 2, 4, 1, 0, WL_RECOMPUTE_FULL, TRUE, 1, FALSE },
};

START_TEST (test_floor_against_run)
{
  WlGenTransformer req = request_of (&floor_layouts[_i]);
  GError *error = NULL;
  g_autoptr (GPtrArray) graphs = wl_gen_transformer_graphs ("f", &req, &error);
  ck_assert_msg (graphs != NULL, "%s", error != NULL ? error->message : "");
  const WlTfNetFloor net = { .in_Bps = 2 * 100e9 + 2 * 25e9, .rs_shards = TRUE };
  const NetModelKind models[] = { NET_MODEL_ANALYTICAL, NET_MODEL_CONGESTION, NET_MODEL_FLOW };
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      AppConfig cfg;
      tu_config_2x4 (&cfg);
      cfg.net.model = models[m];
      cfg.wl.compute = WL_COMPUTE_KERNEL;
      cfg.wl.kernel_device = wl_kernel_device ("H100-SXM");
      SimTime bound = wl_gen_transformer_bound (&req, &cfg.wl, &net);
      ck_assert_uint_gt (bound, wl_gen_transformer_bound (&req, &cfg.wl, NULL));
      ck_assert_uint_le (bound, simulated (&cfg, "f", graphs));
      app_config_clear (&cfg);
    }
}
END_TEST

/* An inconsistent request (6 sequences over 4 DP ranks) has no bound. */
START_TEST (test_bound_refused)
{
  WlGenTransformer req = request_of (&layouts[0]);
  req.global_batch = 6;
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  ck_assert_uint_eq (wl_gen_transformer_bound (&req, &cfg.wl, NULL), 0);
  app_config_clear (&cfg);
}
END_TEST

static Suite *
gen_bound_suite (void)
{
  Suite *s = suite_create ("gen_bound");
  TCase *tc = tu_tcase (s, "gen_bound", NULL, NULL, 60);
  tcase_add_test (tc, test_walk_1f1b);
  tcase_add_test (tc, test_walk_uneven);
  tcase_add_test (tc, test_walk_extras);
  tcase_add_test (tc, test_walk_interleaved);
  tcase_add_loop_test (tc, test_bound_against_run, 0, G_N_ELEMENTS (layouts));
  tcase_add_test (tc, test_bound_refused);
  tcase_add_test (tc, test_floor_by_hand);
  tcase_add_loop_test (tc, test_floor_against_run, 0, G_N_ELEMENTS (floor_layouts));
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_bound_suite ());
}
