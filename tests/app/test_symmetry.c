/* test_symmetry.c: the symmetric shortcut (rank 0 simulated for all) gives
 * exactly the results of simulating every rank.
 *
 * Each case runs twice, with the shortcut allowed and with it off, and
 * compares every rank's figures (finish, compute, exposed communication,
 * counts) and the per-group collective totals field by field.  The cases
 * where the shortcut must apply check that it did (so that the comparison
 * is not vacuous); the ones where it must not check that it did not.
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "system/algo.h"
#include "workload/gen.h"
#include "support/modes.h"
#include "support/testutil.h"


/* Both ways (and streamed: tu_sim_modes_run runs every mode); every
 * figure must agree.  Returns whether the shortcut was taken. */
static gboolean
same_both_ways (const AppConfig *cfg, const char *prefix, const char *what)
{
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = cfg, .prefix = prefix }, &m);
  g_assert_no_error (m.error[TU_MODE_AUTO]);
  g_assert_no_error (m.error[TU_MODE_EVERY_RANK]);
  AppSim *fast = m.sim[TU_MODE_AUTO];
  AppSim *full = m.sim[TU_MODE_EVERY_RANK];
  ck_assert_msg (!app_sim_symmetric (full), "%s: --symmetry off was not honoured", what);
  WlReplay *a = app_sim_replay (fast), *b = app_sim_replay (full);
  ck_assert_uint_eq (wl_replay_ranks (a), wl_replay_ranks (b));
  for (guint32 r = 0; r < wl_replay_ranks (a); r++)
    {
      const WlRankStats *x = wl_replay_rank_stats (a, r), *y = wl_replay_rank_stats (b, r);
      ck_assert_msg (x->finish == y->finish && x->compute == y->compute
                         && x->compute_busy == y->compute_busy
                         && x->exposed_comm == y->exposed_comm && x->comm_busy == y->comm_busy
                         && x->colls == y->colls && x->coll_bytes == y->coll_bytes
                         && x->nodes_done == y->nodes_done,
                     "%s: rank %u differs: finish %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT
                     " ps, exposed %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT " ps",
                     what, r, x->finish, y->finish, x->exposed_comm, y->exposed_comm);
    }
  g_autoptr (GArray) ga = sys_coll_group_stats (app_sim_sys (fast));
  g_autoptr (GArray) gb = sys_coll_group_stats (app_sim_sys (full));
  ck_assert_uint_eq (ga->len, gb->len);
  for (guint i = 0; i < ga->len; i++)
    {
      const SysCollGroupStats *x = &g_array_index (ga, SysCollGroupStats, i);
      const SysCollGroupStats *y = &g_array_index (gb, SysCollGroupStats, i);
      ck_assert_msg (x->kind == y->kind && x->count == y->count && x->bytes == y->bytes
                         && x->busy == y->busy && x->wait == y->wait && x->ranks == y->ranks
                         && strcmp (x->algorithm, y->algorithm) == 0,
                     "%s: collective row %u differs", what, i);
    }
  gboolean used = app_sim_symmetric (fast);
  tu_sim_modes_clear (&m);
  return used;
}

/* Every row of ASTRA-sim's microbenchmark table (ring algorithm, 4 chunks,
 * Ring / FullyConnected / Switch, analytical and congestion): the shortcut
 * applies to all of them. */
START_TEST (test_astra_microbenchmarks)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  static const char *const kinds[] = { "all_reduce", "all_gather", "reduce_scatter", "all_to_all" };
  static const char *const topos[] = { "Ring", "FullyConnected", "Switch" };
  static const guint npus[] = { 4, 8, 16 };
  guint cases = 0;
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint t = 0; t < G_N_ELEMENTS (topos); t++)
      for (guint n = 0; n < G_N_ELEMENTS (npus); n++)
        for (guint aware = 0; aware < 2; aware++)
          {
            g_autofree char *net = g_strdup_printf ("%s/reference/configs/%s_%unpus.yml", shared,
                                                    topos[t], npus[n]);
            g_autofree char *sys = g_strdup_printf ("%s/reference/configs/Ring_4chunks.json",
                                                    shared);
            g_autofree char *wl = g_strdup_printf (
                "%s/traces/astra-sim/examples/workload/microbenchmarks/%s/%unpus_1MB/%s", shared,
                kinds[k], npus[n], kinds[k]);
            AppConfig cfg;
            app_config_init (&cfg);
            GError *error = NULL;
            app_config_load_astra (&cfg, net, sys, NULL, &error);
            g_assert_no_error (error);
            cfg.net.model = aware ? NET_MODEL_CONGESTION : NET_MODEL_ANALYTICAL;
            g_autofree char *what = g_strdup_printf ("%s %s %u %s", kinds[k], topos[t], npus[n],
                                                     aware ? "congestion" : "analytical");
            ck_assert_msg (same_both_ways (&cfg, wl, what), "%s: no shortcut", what);
            app_config_clear (&cfg);
            cases++;
          }
  ck_assert_uint_eq (cases, 72);
}
END_TEST

/* A 3-D native cluster (Ring 4 x Switch 4 x FullyConnected 2, reductions
 * priced, 4 chunks, 2 active per dimension), every kind the shortcut
 * covers, each algorithm it covers on every dimension, both
 * multi-dimensional orders, exact ps and ASTRA-sim's rules, two collectives
 * back to back. */
static void
native_config (AppConfig *cfg, const char *algo, SysCollOpt opt, NetModelKind model,
               gboolean astra)
{
  app_config_init (cfg);
  /* ASTRA-sim's timing rules (whole ns, its quirks in direct and
   * halving-doubling) or exact ps. */
  app_compat_apply (astra ? APP_COMPAT_REFERENCE : APP_COMPAT_NATIVE, &cfg->net, &cfg->sys,
                    &cfg->wl);
  /* Native timing shares endpoint ports: the shortcut must stay exact
   * there too (every mode, streamed included, agrees). */
  g_assert_true (cfg->net.share_ports == !astra);
  cfg->net.n_dims = 3;
  cfg->net.dims[0] = (NetDimSpec) { .kind = NET_DIM_RING, .size = 4, .bandwidth_Bps = 200e9,
                                    .latency = sim_time_from_ns (300) };
  cfg->net.dims[1] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = 4, .bandwidth_Bps = 50e9,
                                    .latency = sim_time_from_ns (700) };
  cfg->net.dims[2] = (NetDimSpec) { .kind = NET_DIM_FULLY_CONNECTED, .size = 2,
                                    .bandwidth_Bps = 25e9, .latency = sim_time_from_ns (1100) };
  cfg->net.model = model;
  cfg->sys.splits = 4;
  cfg->sys.active_chunks_per_dim = 2;
  cfg->sys.opt = opt;
  /* Kinds the algorithm does not implement keep the ring. */
  guint32 param = 0;
  const SysAlgoClass *a = sys_algo_lookup (algo, &param);
  g_assert_nonnull (a);
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      const char *names[] = { sys_algo_supports (a, (SysCollKind) k) ? algo : "ring" };
      g_assert_true (sys_params_set_impl (&cfg->sys, (SysCollKind) k, names, 1, NULL));
    }
}

START_TEST (test_native_three_dimensions)
{
  static const SysCollKind kinds[] = { SYS_COLL_ALL_REDUCE, SYS_COLL_REDUCE_SCATTER,
                                       SYS_COLL_ALL_GATHER, SYS_COLL_ALL_TO_ALL };
  static const char *const algos[] = { "ring", "direct", "halvingDoubling" };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      g_autofree char *prefix = tu_scratch_path (sys_coll_kind_name (kinds[k]));
      WlGenCollective req = { .kind = kinds[k], .ranks = 32, .bytes = 3u << 20, .stride = 1,
                              .count = 2 };
      GError *error = NULL;
      g_assert_true (wl_gen_collective_full (prefix, &req, &error));
      g_assert_no_error (error);
      for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
        for (guint opt = 0; opt < 4; opt++)
          for (guint m = 0; m < 2; m++)
            {
              AppConfig cfg;
              NetModelKind model = m ? NET_MODEL_CONGESTION : NET_MODEL_ANALYTICAL;
              native_config (&cfg, algos[a], (SysCollOpt) (opt % 2), model, opt >= 2);
              g_autofree char *what = g_strdup_printf ("%s %s %s %s%s",
                                                       sys_coll_kind_name (kinds[k]), algos[a],
                                                       sys_coll_opt_name ((SysCollOpt) (opt % 2)),
                                                       net_model_name_of (model),
                                                       opt >= 2 ? " astra" : "");
              gboolean used = same_both_ways (&cfg, prefix, what);
              /* On a link model, and on the analytical one with native
               * timing (it shares endpoint ports), only the ring (also
               * where it stands in for an algorithm that lacks the kind)
               * keeps members on their own links; analytically under
               * ASTRA-sim's rules every algorithm here is symmetric (the
               * dimension sizes are powers of two). */
              guint32 param;
              gboolean ring = a == 0 || !sys_algo_supports (sys_algo_lookup (algos[a], &param), kinds[k]);
              gboolean shares = model == NET_MODEL_CONGESTION || opt < 2;
              gboolean expect = !shares || ring;
              ck_assert_msg (used == expect, "%s: shortcut %s", what, used ? "taken" : "not taken");
              app_config_clear (&cfg);
            }
    }
}
END_TEST

/* Where members differ the shortcut must not apply: a rooted kind, a
 * barrier (one line across dimensions), the double binary tree,
 * halving-doubling on 6 members, process groups, the flow model; and the
 * barrier really differs: simulated both ways on 3 dimensions, rank 0 alone
 * would not see the slower dimensions' hops. */
START_TEST (test_not_symmetric)
{
  struct
  {
    SysCollKind kind;
    const char *algo;
    guint32 ranks, group;
    NetModelKind model;
  } cases[] = {
    { SYS_COLL_BROADCAST, "ring", 8, 0, NET_MODEL_ANALYTICAL },
    { SYS_COLL_BARRIER, "ring", 8, 0, NET_MODEL_ANALYTICAL },
    { SYS_COLL_ALL_REDUCE, "doubleBinaryTree", 8, 0, NET_MODEL_ANALYTICAL },
    { SYS_COLL_ALL_REDUCE, "halvingDoubling", 6, 0, NET_MODEL_ANALYTICAL },
    { SYS_COLL_ALL_REDUCE, "ring", 8, 4, NET_MODEL_ANALYTICAL },
    { SYS_COLL_ALL_REDUCE, "ring", 8, 0, NET_MODEL_FLOW },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("case%u", i);
      g_autofree char *prefix = tu_scratch_path (name);
      WlGenCollective req = { .kind = cases[i].kind, .ranks = cases[i].ranks,
                              .bytes = 1u << 20, .group_size = cases[i].group, .stride = 1,
                              .count = 1 };
      GError *error = NULL;
      g_assert_true (wl_gen_collective_full (prefix, &req, &error));
      AppConfig cfg;
      app_config_init (&cfg);
      cfg.net.n_dims = 1;
      cfg.net.dims[0] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = cases[i].ranks,
                                       .bandwidth_Bps = 100e9,
                                       .latency = sim_time_from_ns (500) };
      cfg.net.model = cases[i].model;
      const char *names[] = { cases[i].algo };
      g_assert_true (sys_params_set_impl (&cfg.sys, cases[i].kind, names, 1, NULL));
      AppSim *sim = tu_sim_all_modes_ok (&cfg, prefix);
      ck_assert_msg (!app_sim_symmetric (sim), "case %u: shortcut taken", i);
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* A data-parallel training iteration (compute overlapping gradient
 * all-reduces, roofline times) through the command line: the per-rank CSV
 * and the report's collective table are byte for byte the same both ways. */
START_TEST (test_data_parallel_iteration)
{
  g_autofree char *wl = tu_scratch_path ("dp");
  g_autofree char *cfg = tu_scratch_path ("c.xml");
  g_assert_true (g_file_set_contents (
      cfg,
      "<?xml version=\"1.0\"?>\n<cluster name=\"dp\">\n  <network model=\"analytical\">\n"
      "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"300GB/s\" latency=\"400ns\"/>\n"
      "    <dim kind=\"Switch\" size=\"4\" bandwidth=\"50GB/s\" latency=\"2us\"/>\n"
      "  </network>\n  <system splits=\"4\" active-chunks-per-dim=\"2\"/>\n"
      "  <compute model=\"roofline\" peak=\"100TFLOP/s\" mem-bw=\"2TB/s\"/>\n</cluster>\n",
      -1, NULL));
  const char *gen[] = { tu_orrery (), "gen", "transformer", "--layers", "4", "--hidden", "1024",
                        "--heads", "8", "--vocab", "32000", "--seq", "1024", "-b", "1", "-B",
                        "16", "--dp", "8", "--ranks", "8", "-o", wl, NULL };
  ck_assert_int_eq (tu_run (NULL, gen), 0);
  g_autofree char *sa = tu_scratch_path ("a.csv"), *sb = tu_scratch_path ("b.csv");
  g_autofree char *ra = tu_scratch_path ("a.json"), *rb = tu_scratch_path ("b.json");
  const char *fast[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, "--stats", sa,
                         "--report", ra, NULL };
  const char *full[] = { tu_orrery (), "run", "--symmetry", "off", "--config", cfg,
                         "--workload", wl, "--stats", sb, "--report", rb, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, fast), 0);
  ck_assert_msg (strstr (out, "symmetric:") != NULL, "%s", out);
  ck_assert_int_eq (tu_run (NULL, full), 0);
  g_autofree char *a = NULL, *b = NULL;
  g_assert_true (g_file_get_contents (sa, &a, NULL, NULL));
  g_assert_true (g_file_get_contents (sb, &b, NULL, NULL));
  ck_assert_str_eq (a, b);
  /* The reports differ in events and "symmetric" only: compare from the
   * ranks on. */
  g_autofree char *ja = NULL, *jb = NULL;
  g_assert_true (g_file_get_contents (ra, &ja, NULL, NULL));
  g_assert_true (g_file_get_contents (rb, &jb, NULL, NULL));
  ck_assert_ptr_nonnull (strstr (ja, "\"ranks\" : ["));
  ck_assert_str_eq (strstr (ja, "\"ranks\" : ["), strstr (jb, "\"ranks\" : ["));
  const char *bad[] = { tu_orrery (), "run", "--symmetry", "maybe", "--config", cfg,
                        "--workload", wl, NULL };
  g_autofree char *err = NULL;
  ck_assert_int_eq (tu_run (&err, bad), 1);
  ck_assert_ptr_nonnull (strstr (err, "--symmetry"));
}
END_TEST

static Suite *
symmetry_suite (void)
{
  Suite *s = suite_create ("symmetry");
  TCase *tc = tu_tcase (s, "symmetry", tu_scratch_setup, tu_scratch_teardown, 300);
  tcase_add_test (tc, test_astra_microbenchmarks);
  tcase_add_test (tc, test_native_three_dimensions);
  tcase_add_test (tc, test_not_symmetric);
  tcase_add_test (tc, test_data_parallel_iteration);
  return s;
}

int
main (void)
{
  return tu_run_suite (symmetry_suite ());
}
