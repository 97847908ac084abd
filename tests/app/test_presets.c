/* test_presets.c: the hardware presets in configs/ (hgx-h100, dgx-a100,
 * h100-cluster, a100-cluster; figures and sources in configs/README.md).
 *
 * Each preset must hold the datasheet figures configs/README.md gives,
 * worked out here from the per-link numbers (NVLink 4: 18 links x 25 GB/s
 * per direction; NVLink 3: 12 x 25 GB/s; a NIC's Gb/s / 8), name the NCCL
 * library with the GPU generation of its device, and run an all-reduce on
 * its rank count to completion.  The clusters' node count is one attribute:
 * editing it alone rescales the cluster.  Run from the repository root.
 */
#include <check.h>
#include <string.h>

#include "sim/app/config.h"
#include "support/testutil.h"

#define GBPS 1e9 /* bytes/s in a GB/s */

typedef struct
{
  const char *file;
  guint32 gpus, nodes;  /* per node; nodes 1: a single-node preset (one dimension) */
  double nvlink_Bps;    /* per GPU and direction */
  double nic_Bps;       /* per GPU and direction; 0 for one node */
  SysGpuArch gpu;
  SysCpuVendor cpu;
} Preset;

static const Preset presets[] = {
  /* NVLink 4: 18 x 25 GB/s; ConnectX-7 NDR 400 Gb/s = 50 GB/s. */
  { "configs/hgx-h100.xml", 8, 1, 18 * 25 * GBPS, 0, SYS_GPU_HOPPER, SYS_CPU_INTEL },
  { "configs/h100-cluster.xml", 8, 16, 18 * 25 * GBPS, 400 * GBPS / 8, SYS_GPU_HOPPER,
    SYS_CPU_INTEL },
  /* NVLink 3: 12 x 25 GB/s; ConnectX-6 HDR 200 Gb/s = 25 GB/s. */
  { "configs/dgx-a100.xml", 8, 1, 12 * 25 * GBPS, 0, SYS_GPU_AMPERE, SYS_CPU_AMD },
  { "configs/a100-cluster.xml", 8, 16, 12 * 25 * GBPS, 200 * GBPS / 8, SYS_GPU_AMPERE,
    SYS_CPU_AMD },
};

static void
assert_preset (const AppConfig *cfg, const Preset *p)
{
  ck_assert_uint_eq (cfg->net.n_dims, p->nodes > 1 ? 2 : 1);
  const NetDimSpec *nvs = &cfg->net.dims[0];
  ck_assert_uint_eq (nvs->size, p->gpus);
  ck_assert_int_eq (nvs->kind, NET_DIM_SWITCH);
  ck_assert_int_eq (nvs->link, NET_LINK_NVLINK);
  ck_assert_msg (nvs->bandwidth_Bps == p->nvlink_Bps, "%s: %.17g", p->file, nvs->bandwidth_Bps);
  ck_assert_uint_eq (nvs->latency, 500000); /* 500 ns */
  if (p->nodes > 1)
    {
      const NetDimSpec *rail = &cfg->net.dims[1];
      ck_assert_uint_eq (rail->size, p->nodes);
      ck_assert_int_eq (rail->link, NET_LINK_NET);
      ck_assert_msg (rail->bandwidth_Bps == p->nic_Bps, "%s: %.17g", p->file,
                     rail->bandwidth_Bps);
      ck_assert_uint_eq (rail->latency, 2000000); /* 2 us */
    }
  ck_assert_int_eq (cfg->sys.lib.library, SYS_LIBRARY_NCCL);
  ck_assert_int_eq (cfg->sys.lib.gpu, p->gpu);
  ck_assert_int_eq (cfg->sys.lib.cpu, p->cpu);
  ck_assert (!cfg->sys.lib.collnet);
}

START_TEST (test_preset_figures)
{
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    {
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      ck_assert_msg (app_config_load_xml (&cfg, presets[i].file, &error), "%s",
                     error != NULL ? error->message : "");
      assert_preset (&cfg, &presets[i]);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Every preset runs a small all-reduce on all its ranks to the end. */
START_TEST (test_preset_runs)
{
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    {
      g_autofree char *ranks = g_strdup_printf ("%u", presets[i].gpus * presets[i].nodes);
      g_autofree char *prefix = tu_scratch_path (ranks);
      const char *gen[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce",
                            "--ranks", ranks, "--bytes", "64KiB", "--out", prefix, NULL };
      ck_assert_int_eq (tu_run (NULL, gen), 0);
      const char *run[] = { tu_orrery (), "run", "--config", presets[i].file, "--workload",
                            prefix, NULL };
      g_autofree char *out = NULL;
      int status = tu_run (&out, run);
      ck_assert_msg (status == 0, "%s: exit %d\n%s", presets[i].file, status, out);
      ck_assert_msg (strstr (out, "all_reduce") != NULL, "%s\n%s", presets[i].file, out);
    }
}
END_TEST

/* The clusters' node count is <rail nodes> alone: 2 nodes make 16 ranks
 * with every other figure unchanged. */
START_TEST (test_cluster_node_count)
{
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    {
      if (presets[i].nodes == 1)
        continue;
      g_autofree char *text = NULL;
      ck_assert (g_file_get_contents (presets[i].file, &text, NULL, NULL));
      g_auto (GStrv) parts = g_strsplit (text, "nodes=\"16\"", -1);
      ck_assert_uint_eq (g_strv_length (parts), 2); /* the attribute, once */
      g_autofree char *two = g_strjoinv ("nodes=\"2\"", parts);
      g_autofree char *path = tu_write_file ("two-nodes.xml", two);
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      ck_assert_msg (app_config_load_xml (&cfg, path, &error), "%s",
                     error != NULL ? error->message : "");
      Preset p = presets[i];
      p.nodes = 2;
      assert_preset (&cfg, &p);
      app_config_clear (&cfg);
    }
}
END_TEST

static Suite *
presets_suite (void)
{
  Suite *s = suite_create ("presets");
  TCase *tc = tu_tcase (s, "presets", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_test (tc, test_preset_figures);
  tcase_add_test (tc, test_preset_runs);
  tcase_add_test (tc, test_cluster_node_count);
  return s;
}

int
main (void)
{
  return tu_run_suite (presets_suite ());
}
