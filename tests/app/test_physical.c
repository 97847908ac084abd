/* test_physical.c: with a native configuration no link model lets a link
 * carry more than its bandwidth.
 *
 * The congestion and flow models each run an all-reduce and an all-to-all
 * (ring and direct algorithms, 4 chunks, 2 in flight per dimension) on a
 * small native 2-D cluster, in every mode (tu_sim_modes_run); then, in the
 * run that simulated every rank, every link's
 * statistics must satisfy busy <= simulated time and bytes <= bandwidth x
 * simulated time: what any wire obeys, whatever the model's bookkeeping.
 * The analytical model has no links; its ports are checked through the
 * collectives' bus bandwidth (test_report.c and tests/scripts/test_ports.sh).
 */
#include <check.h>

#include "sim/app/simulation.h"
#include "workload/gen.h"
#include "support/modes.h"
#include "support/testutil.h"

/* Ring 4 (100 GB/s, 500 ns) x Switch 4 (25 GB/s, 2 us): 16 ranks, native
 * timing (app_config_init's default). */
static void
two_dim_config (AppConfig *cfg, NetModelKind model, const char *algo)
{
  app_config_init (cfg);
  g_assert_true (cfg->net.share_ports);
  cfg->net.n_dims = 2;
  cfg->net.dims[0] = (NetDimSpec) { .kind = NET_DIM_RING, .size = 4, .bandwidth_Bps = 100e9,
                                    .latency = sim_time_from_ns (500) };
  cfg->net.dims[1] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = 4, .bandwidth_Bps = 25e9,
                                    .latency = sim_time_from_us (2) };
  cfg->net.model = model;
  cfg->sys.splits = 4;
  cfg->sys.active_chunks_per_dim = 2;
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      const char *names[] = { algo, algo };
      sys_params_set_impl (&cfg->sys, (SysCollKind) k, names, 2, NULL);
    }
}

/* Run KIND (4 MiB, twice back to back) on every rank and check every link. */
static void
assert_links_physical (NetModelKind model, SysCollKind kind, const char *algo)
{
  g_autofree char *prefix = tu_scratch_path (sys_coll_kind_name (kind));
  WlGenCollective req = { .kind = kind, .ranks = 16, .bytes = 4u << 20, .count = 2 };
  GError *error = NULL;
  g_assert_true (wl_gen_collective_full (prefix, &req, &error));
  AppConfig cfg;
  two_dim_config (&cfg, model, algo);
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = prefix }, &m);
  g_assert_no_error (m.error[TU_MODE_EVERY_RANK]);
  /* Every rank simulated: every link carried what it really carries. */
  const AppSim *sim = m.sim[TU_MODE_EVERY_RANK];
  const Net *net = app_sim_net (sim);
  SimTime end = app_sim_end_time (sim);
  ck_assert_uint_gt (end, 0);
  ck_assert_uint_gt (net_links (net), 0);
  guint64 carried = 0;
  for (guint32 l = 0; l < net_links (net); l++)
    {
      NetLinkStats st;
      net_link_stats (net, l, &st);
      double bw = cfg.net.dims[st.dim].bandwidth_Bps;
      ck_assert_msg (st.busy <= end, "%s %s: link %s->%s busy %" G_GUINT64_FORMAT
                     " ps over a run of %" G_GUINT64_FORMAT, net_model_name_of (model),
                     sys_coll_kind_name (kind), st.from, st.to, st.busy, end);
      ck_assert_msg ((double) st.bytes <= bw * ((double) end / 1e12),
                     "%s %s: link %s->%s carried %" G_GUINT64_FORMAT " bytes in %"
                     G_GUINT64_FORMAT " ps at %g B/s", net_model_name_of (model),
                     sys_coll_kind_name (kind), st.from, st.to, st.bytes, end, bw);
      carried += st.bytes;
    }
  ck_assert_uint_gt (carried, 0); /* the check above was not vacuous */
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}

START_TEST (test_congestion_links)
{
  static const char *const algos[] = { "ring", "direct" };
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    {
      assert_links_physical (NET_MODEL_CONGESTION, SYS_COLL_ALL_REDUCE, algos[a]);
      assert_links_physical (NET_MODEL_CONGESTION, SYS_COLL_ALL_TO_ALL, algos[a]);
    }
}
END_TEST

START_TEST (test_flow_links)
{
  static const char *const algos[] = { "ring", "direct" };
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    {
      assert_links_physical (NET_MODEL_FLOW, SYS_COLL_ALL_REDUCE, algos[a]);
      assert_links_physical (NET_MODEL_FLOW, SYS_COLL_ALL_TO_ALL, algos[a]);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("physical");
  TCase *tc = tu_tcase (s, "physical", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_congestion_links);
  tcase_add_test (tc, test_flow_links);
  return tu_run_suite (s);
}
