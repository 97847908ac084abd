/* test_sm_contention.c: compute slowed by the collectives that overlap it
 * (workload/replay_sm.c, wl_kernel_ns_on): a GEMM priced by hand on all
 * of an H100's 132 SMs and on the 108 an NCCL all-reduce's 24 CTAs leave,
 * the rate changing when the all-reduce ends, no overlap and the switch
 * leaving times alone, and the library without kernels holding no SMs.
 *
 * Hand figures (the H100-SXM constants of test_kernels.c, from
 * configs/devices/README.md): the GEMM 1408 x 3072 x 4096 is 132 tiles of
 * 128x256 (one full wave on 132 SMs; 256x128 makes 144 tiles, two waves;
 * 128x128 264, two waves of half-size tiles: the same).  On 108 SMs: 132
 * tiles of 128x256 (or 144 of 256x128) take two waves, 264 of 128x128
 * ceil (264 / 108) = 3 waves of half-size tiles, 1.5 full-tile waves: the
 * fastest; no split (every tile list fills the SMs).  Above the
 * calibration rate's share (2 x 1408 x 3072 x 4096 / (700.9e12 x 108 /
 * 132) = 61.8 us) and
 * the operands' memory time (15 us).  The all-reduce: 64 MiB on one H100
 * node, NCCL Ring/Simple, 24 channels (test_nccl.c works them by hand:
 * rings of 12 x 30 GB/s, collectives on twice the rings' channels, 64 MiB
 * leaving each its threshold); NCCL runs one CTA per channel.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "workload/kernels.h"
#include "support/modes.h"
#include "support/testutil.h"

#define LAUNCH_NS 900.0
/* The H100's bf16 rate sustained at 2048 x 2048 x 13312 and its rate per
 * SM (test_kernels.c works it). */
#define H100_MAMF 700.9e12
#define H100_RATE_SM (H100_MAMF / 128 * (13312.0 + 256.0) / 13312.0)
/* The GEMM on 132 SMs: one wave of 128x256 tiles; on 108: three of 128x128. */
#define GEMM_132_NS (2.0 * 128 * 256 * (4096 + 256) / H100_RATE_SM * 1e9)
#define GEMM_108_NS (3.0 * 2 * 128 * 128 * (4096 + 256) / H100_RATE_SM * 1e9)
#define GEMM "gemm:m=1408,n=3072,k=4096"

static const WlKernelDevice *
h100 (void)
{
  const WlKernelDevice *d = wl_kernel_device ("H100-SXM");
  ck_assert_ptr_nonnull (d);
  ck_assert_uint_eq (d->n_sm, 132);
  return d;
}

static WlKernel
one (const char *text)
{
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  ck_assert (wl_kernels_parse (text, list, NULL));
  return g_array_index (list, WlKernel, 0);
}

static void
assert_close (double got, double want)
{
  ck_assert_msg (fabs (got - want) <= 1e-9 * fabs (want), "got %.6f, want %.6f", got, want);
}

START_TEST (test_gemm_on_fewer_sms)
{
  WlKernel k = one (GEMM);
  /* All the SMs: wl_kernel_ns, to the bit. */
  ck_assert (wl_kernel_ns_on (h100 (), &k, 132) == wl_kernel_ns (h100 (), &k));
  ck_assert (wl_kernel_ns_on (h100 (), &k, 500) == wl_kernel_ns (h100 (), &k));
  assert_close (wl_kernel_ns_on (h100 (), &k, 132), GEMM_132_NS);
  assert_close (wl_kernel_ns_on (h100 (), &k, 108), GEMM_108_NS);
  ck_assert (GEMM_108_NS > 2.0 * 1408 * 3072 * 4096 / (H100_MAMF * 108 / 132) * 1e9);
  /* 66 SMs: 132 tiles of 128x256 in two waves, 264 of 128x128 in four:
   * both twice the one wave. */
  assert_close (wl_kernel_ns_on (h100 (), &k, 66), 2 * GEMM_132_NS);
  /* A memory-bound kernel keeps the device's bandwidth. */
  WlKernel m = one ("mem:bytes=1000000000,what=copy");
  ck_assert (wl_kernel_ns_on (h100 (), &m, 10) == wl_kernel_ns (h100 (), &m));
  /* Attention runs at the SMs' share of its rate: on half of them, twice
   * as long (its memory time is far shorter). */
  WlKernel a = one ("attn:dir=fwd,b=4,hq=32,sq=4096,d=128,causal=1");
  assert_close (wl_kernel_ns_on (h100 (), &a, 66), 2 * wl_kernel_ns (h100 (), &a));
}
END_TEST

/* One H100 node, the NCCL library (Ring/Simple), COMPUTE as the compute
 * element. */
static char *
write_cluster (const char *library, const char *compute)
{
  g_autofree char *text = g_strdup_printf (
      "<cluster>\n"
      "<network model=\"analytical\"><rail nodes=\"1\" gpus=\"8\" nvlink-bandwidth=\"450GB/s\" "
      "nvlink-latency=\"500ns\" nic-bandwidth=\"400Gb/s\" nic-latency=\"2us\"/></network>\n"
      "<system %s cpu=\"intel\"/>\n%s\n"
      "<slots compute=\"1\" cpu=\"1\" comm=\"1\"/>\n</cluster>\n",
      library, compute);
  return tu_write_file ("cluster.xml", text);
}

#define NCCL "library=\"nccl\" nccl-algo=\"ring\" nccl-proto=\"Simple\""
#define KERNEL "<compute model=\"kernel\" device=\"H100-SXM\"/>"

/* Each of 8 ranks: node 1 a COMP node running KERNELS (none: no node 1),
 * node 2 an all-reduce of 64 MiB (BYTES 0: none); no dependencies, so
 * both start at 0. */
static void
write_workload (const char *kernels, gint64 bytes)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 8; r++)
    {
      ChakraProtoMsg__Node *n[2];
      guint len = 0;
      if (kernels != NULL)
        {
          n[len] = tu_node_new (1, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, "gemm");
          n[len]->duration_micros = 1;
          tu_node_attr_string (n[len], "kernels", kernels);
          tu_node_attr_int (n[len++], "num_ops", 1000);
        }
      if (bytes > 0)
        n[len++] = tu_coll (2, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, bytes);
      tu_write_rank (prefix, r, n, len); /* frees the nodes */
    }
}

/* Rank 0's stats after simulating the workload on CLUSTER, in every mode. */
static WlRankStats
run (const char *library, const char *compute)
{
  g_autofree char *path = write_cluster (library, compute);
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert_msg (app_config_load_xml (&cfg, path, &error), "%s", error->message);
  g_autofree char *prefix = tu_scratch_path ("wl");
  AppSim *sim = tu_sim_all_modes_ok (&cfg, prefix);
  WlRankStats s = *wl_replay_rank_stats (app_sim_replay (sim), 0);
  app_sim_free (sim);
  app_config_clear (&cfg);
  return s;
}

static SimTime
ps (double ns)
{
  return (SimTime) ceil (ns * 1000);
}

/* The GEMM starts with the all-reduce (its 382 us outlast it): it runs on
 * 132 - 24 = 108 SMs, and the report's figure is the difference. */
START_TEST (test_overlap_hand)
{
  write_workload (GEMM, 64 << 20);
  WlRankStats s = run (NCCL, KERNEL);
  ck_assert_uint_eq (s.compute, ps (GEMM_108_NS + LAUNCH_NS));
  ck_assert_uint_eq (s.compute_contention,
                     ps (GEMM_108_NS + LAUNCH_NS) - ps (GEMM_132_NS + LAUNCH_NS));
  ck_assert (s.finish > s.compute); /* the all-reduce did outlast it */
  /* The switch off: the whole device. */
  s = run (NCCL, "<compute model=\"kernel\" device=\"H100-SXM\" sm-contention=\"off\"/>");
  ck_assert_uint_eq (s.compute, ps (GEMM_132_NS + LAUNCH_NS));
  ck_assert_uint_eq (s.compute_contention, 0);
  /* The per-dimension library models no kernels: nothing held. */
  s = run ("", KERNEL);
  ck_assert_uint_eq (s.compute, ps (GEMM_132_NS + LAUNCH_NS));
  ck_assert_uint_eq (s.compute_contention, 0);
}
END_TEST

/* No collective: the time of the whole device. */
START_TEST (test_no_overlap)
{
  write_workload (GEMM, 0);
  WlRankStats s = run (NCCL, KERNEL);
  ck_assert_uint_eq (s.compute, ps (GEMM_132_NS + LAUNCH_NS));
  ck_assert_uint_eq (s.finish, ps (GEMM_132_NS + LAUNCH_NS));
  ck_assert_uint_eq (s.compute_contention, 0);
}
END_TEST

/* Ten GEMMs (685 us on 108 SMs) outlast the all-reduce (T, taken from a
 * run of the all-reduce alone): until T they run at the 108-SM rate, then
 * the rest of their work, 1 - T / T108, at the 132-SM rate. */
START_TEST (test_overlap_ends)
{
  write_workload (NULL, 64 << 20);
  SimTime t_ar = run (NCCL, KERNEL).finish;
  double t108 = 10 * (GEMM_108_NS + LAUNCH_NS), t132 = 10 * (GEMM_132_NS + LAUNCH_NS);
  ck_assert (t_ar > 300000000 && (double) t_ar < t108 * 1000);
  write_workload (GEMM ",count=10", 64 << 20);
  WlRankStats s = run (NCCL, KERNEL);
  double left = 1.0 - (double) t_ar / 1000.0 / t108;
  SimTime want = t_ar + ps (left * t132);
  ck_assert_msg (s.finish + 2 >= want && s.finish <= want + 2,
                 "got %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, s.finish, want);
  ck_assert_uint_eq (s.compute, s.finish);
  ck_assert_uint_eq (s.compute_contention, s.finish - ps (t132));
}
END_TEST

/* The binary says what contention added: the summary's row, the CSV's
 * and the JSON's per-rank figure, the hand difference of test_overlap_hand;
 * without contention none of them. */
START_TEST (test_reported)
{
  write_workload (GEMM, 64 << 20);
  g_autofree char *cfg = write_cluster (NCCL, KERNEL);
  g_autofree char *wl = tu_scratch_path ("wl");
  g_autofree char *csv = tu_scratch_path ("s.csv");
  g_autofree char *json = tu_scratch_path ("r.json");
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, "--stats", csv,
                         "--report", json, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 0);
  SimTime added = ps (GEMM_108_NS + LAUNCH_NS) - ps (GEMM_132_NS + LAUNCH_NS);
  ck_assert_msg (strstr (out, "by comm SM contention") != NULL, "%s", out);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (csv, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", 0);
  ck_assert (g_str_has_suffix (lines[0], ",compute_contention_ps"));
  g_autofree char *tail = g_strdup_printf (",%" G_GUINT64_FORMAT, added);
  ck_assert_msg (g_str_has_suffix (lines[1], tail), "%s", lines[1]);
  g_autofree char *report = NULL;
  ck_assert (g_file_get_contents (json, &report, NULL, NULL));
  ck_assert (strstr (report, "\"compute_contention_ns\"") != NULL);
  /* Off: no row, no column, no key. */
  g_free (write_cluster (NCCL, "<compute model=\"kernel\" device=\"H100-SXM\" "
                               "sm-contention=\"off\"/>"));
  g_free (out);
  out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 0);
  ck_assert (strstr (out, "by comm SM contention") == NULL);
  g_free (text);
  ck_assert (g_file_get_contents (csv, &text, NULL, NULL));
  ck_assert (strstr (text, "compute_contention") == NULL);
  g_free (report);
  ck_assert (g_file_get_contents (json, &report, NULL, NULL));
  ck_assert (strstr (report, "compute_contention") == NULL);
}
END_TEST

START_TEST (test_config_errors)
{
  write_workload (GEMM, 0);
  g_autofree char *path = write_cluster (NCCL, "<compute model=\"roofline\" "
                                               "sm-contention=\"on\"/>");
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert (!app_config_load_xml (&cfg, path, &error));
  ck_assert_msg (strstr (error->message, "sm-contention applies only to model 'kernel'") != NULL,
                 "%s", error->message);
  g_clear_error (&error);
  app_config_clear (&cfg);
  g_free (path);
  path = write_cluster (NCCL, "<compute model=\"kernel\" device=\"H100-SXM\" "
                              "sm-contention=\"yes\"/>");
  app_config_init (&cfg);
  ck_assert (!app_config_load_xml (&cfg, path, &error));
  ck_assert_msg (strstr (error->message, "sm-contention 'yes' is not one of: off, on") != NULL,
                 "%s", error->message);
  g_clear_error (&error);
  app_config_clear (&cfg);
}
END_TEST

static Suite *
sm_suite (void)
{
  Suite *s = suite_create ("sm_contention");
  TCase *tc = tu_tcase (s, "sm_contention", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_gemm_on_fewer_sms);
  tcase_add_test (tc, test_overlap_hand);
  tcase_add_test (tc, test_no_overlap);
  tcase_add_test (tc, test_overlap_ends);
  tcase_add_test (tc, test_reported);
  tcase_add_test (tc, test_config_errors);
  return s;
}

int
main (void)
{
  return tu_run_suite (sm_suite ());
}
