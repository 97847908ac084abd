/* test_compute.c: the compute model: device presets, roofline and scaled
 * COMP times, efficiency factors, per-rank speeds, and their XML errors.
 *
 * Clusters are written as XML by the test and loaded the way the program
 * loads them; workloads are written with the Chakra writer.  Expected times
 * come from the roofline formulas (workload/compute.h) evaluated on the
 * datasheet figures cited in configs/devices/README.md, repeated here.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/compute.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

enum { T_COMP = 4 };

/* Dense bf16 peak (FLOP/s) and memory bandwidth (bytes/s), from the vendor
 * datasheets (configs/devices/README.md). */
#define A100_BF16 312e12
#define A100_BW 2.039e12
#define H100_BF16 989.5e12
#define H100_BW 3.35e12
#define MI300X_BF16 1307.4e12
#define MI300X_BW 5.3e12

/* A compute-bound node (2e12 FLOPs over 1 MB: intensity far above every
 * ridge point) and a memory-bound one (1e9 FLOPs over 1e9 bytes). */
#define CB_OPS 2000000000000ull
#define CB_BYTES 1000000ull
#define MB_OPS 1000000000ull
#define MB_BYTES 1000000000ull

/* Write `body` (lines 3.. of the file) into a 4-rank cluster; the caller
 * frees the path.  Line 1 is <cluster>, line 2 the network. */
static char *
write_cluster (const char *body)
{
  char *path = tu_scratch_path ("cluster.xml");
  g_autofree char *text = g_strdup_printf (
      "<cluster>\n"
      "<network><dim kind=\"Ring\" size=\"4\" bandwidth=\"1GB/s\" latency=\"100ns\"/></network>\n"
      "%s\n</cluster>\n",
      body);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
load_ok (AppConfig *cfg, const char *body)
{
  g_autofree char *path = write_cluster (body);
  GError *error = NULL;
  app_config_init (cfg);
  ck_assert_msg (app_config_load_xml (cfg, path, &error), "%s", error ? error->message : "");
}

/* Loading body must fail with a message holding "cluster.xml:LINE:" and needle. */
static void
load_fails (const char *body, guint line, const char *needle)
{
  g_autofree char *path = write_cluster (body);
  g_autofree char *where = g_strdup_printf ("cluster.xml:%u:", line);
  AppConfig cfg;
  GError *error = NULL;
  app_config_init (&cfg);
  ck_assert (!app_config_load_xml (&cfg, path, &error));
  tu_assert_input_error (error, where);
  tu_assert_input_error (error, needle);
  g_error_free (error);
  app_config_clear (&cfg);
}

static ChakraProtoMsg__Node *
comp (guint64 id, guint64 micros, guint64 ops, guint64 bytes)
{
  ChakraProtoMsg__Node *n = tu_node_new (id, T_COMP, "comp");
  n->duration_micros = micros;
  if (ops > 0)
    tu_node_attr_int (n, "num_ops", (gint64) ops);
  if (bytes > 0)
    tu_node_attr_int (n, "tensor_size", (gint64) bytes);
  return n;
}

/* Every one of the 4 ranks runs the single node `n` (freed here). */
static void
write_all (ChakraProtoMsg__Node *n)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
      tu_write_trace (path, &n, 1);
    }
  tu_node_free (n);
}

/* Rank `rank`'s finish time running the workload on cfg. */
static SimTime
finish (const AppConfig *cfg, guint32 rank)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  AppSim *sim = tu_sim_all_modes_ok (cfg, prefix);
  SimTime t = wl_replay_rank_stats (app_sim_replay (sim), rank)->finish;
  app_sim_free (sim);
  return t;
}

/* got is ns rounded up to whole ps (1 ps of slack for the order of
 * floating-point operations). */
static void
assert_ns (SimTime got, double ns)
{
  double want = ceil (ns * 1000.0);
  ck_assert_msg (fabs ((double) got - want) <= 1.0, "got %" G_GUINT64_FORMAT " ps, want %.0f ps",
                 got, want);
}

static double
roofline_ns (double peak, double bw, double ops, double bytes)
{
  return ops / MIN (peak, bw * ops / bytes) * 1e9;
}

static void
check_roofline (const char *compute, double peak, double bw)
{
  AppConfig cfg;
  load_ok (&cfg, compute);
  write_all (comp (1, 0, CB_OPS, CB_BYTES));
  assert_ns (finish (&cfg, 0), CB_OPS / peak * 1e9);
  write_all (comp (1, 0, MB_OPS, MB_BYTES));
  assert_ns (finish (&cfg, 0), MB_BYTES / bw * 1e9);
  assert_ns (finish (&cfg, 0), roofline_ns (peak, bw, MB_OPS, MB_BYTES));
  app_config_clear (&cfg);
}

/* Compute-bound and memory-bound nodes on two presets. */
START_TEST (test_roofline_presets)
{
  check_roofline ("<compute model=\"roofline\" device=\"H100-SXM\"/>", H100_BF16, H100_BW);
  check_roofline ("<compute model=\"roofline\" device=\"MI300X\" dtype=\"bf16\"/>", MI300X_BF16,
                  MI300X_BW);
  /* fp32 on the A100: 19.5 TFLOP/s. */
  check_roofline ("<compute model=\"roofline\" device=\"A100-80GB\" dtype=\"fp32\"/>", 19.5e12,
                  A100_BW);
}
END_TEST

/* Efficiencies scale the two roofs; a custom <device> carries its own,
 * which <compute> attributes override. */
START_TEST (test_efficiency)
{
  check_roofline ("<compute model=\"roofline\" device=\"H100-SXM\" matrix-efficiency=\"0.5\" "
                  "memory-efficiency=\"0.8\"/>",
                  H100_BF16 * 0.5, H100_BW * 0.8);
  check_roofline ("<compute model=\"roofline\" device=\"X1\">"
                  "<device name=\"X1\" bf16=\"500TFLOP/s\" mem-bw=\"2TB/s\" mem-capacity=\"96GB\" "
                  "matrix-efficiency=\"0.7\" memory-efficiency=\"0.75\"/></compute>",
                  500e12 * 0.7, 2e12 * 0.75);
  check_roofline ("<compute model=\"roofline\" device=\"X1\" memory-efficiency=\"0.5\">"
                  "<device name=\"X1\" bf16=\"500TFLOP/s\" mem-bw=\"2TB/s\" "
                  "matrix-efficiency=\"0.7\" memory-efficiency=\"0.75\"/></compute>",
                  500e12 * 0.7, 2e12 * 0.5);
}
END_TEST

/* A 100 us A100 duration moved to the H100: by the ratio of roofline times
 * for a memory-bound node with num_ops, by the ratio of peaks without. */
START_TEST (test_scaled)
{
  AppConfig cfg;
  load_ok (&cfg, "<compute model=\"scaled\" captured-on=\"A100-80GB\" device=\"H100-SXM\"/>");
  write_all (comp (1, 100, MB_OPS, MB_BYTES));
  assert_ns (finish (&cfg, 0), 100e3 * (MB_BYTES / H100_BW) / (MB_BYTES / A100_BW));
  write_all (comp (1, 100, 0, 0));
  assert_ns (finish (&cfg, 0), 100e3 * A100_BF16 / H100_BF16);
  write_all (comp (1, 100, CB_OPS, CB_BYTES));
  assert_ns (finish (&cfg, 0), 100e3 * A100_BF16 / H100_BF16);
  app_config_clear (&cfg);
}
END_TEST

/* Speeds 0.5 (ranks 0-1) and 2 (rank 3): 10 us of compute takes 20 us and
 * 5 us; rank 2 keeps 10 us.  A later <rank> wins over an earlier one. */
START_TEST (test_rank_speed)
{
  AppConfig cfg;
  load_ok (&cfg, "<ranks><rank ids=\"0-3\" speed=\"2\"/><rank ids=\"0-1\" speed=\"0.5\"/>"
                 "<rank id=\"2\" speed=\"1\"/></ranks>");
  write_all (comp (1, 10, 0, 0));
  ck_assert_uint_eq (finish (&cfg, 0), sim_time_from_us (20));
  ck_assert_uint_eq (finish (&cfg, 1), sim_time_from_us (20));
  ck_assert_uint_eq (finish (&cfg, 2), sim_time_from_us (10));
  ck_assert_uint_eq (finish (&cfg, 3), sim_time_from_us (5));
  app_config_clear (&cfg);
  /* Under the roofline model too. */
  load_ok (&cfg, "<compute model=\"roofline\" device=\"H100-SXM\"/>\n"
                 "<ranks><rank id=\"3\" speed=\"2\"/></ranks>");
  write_all (comp (1, 0, CB_OPS, CB_BYTES));
  assert_ns (finish (&cfg, 3), CB_OPS / H100_BF16 * 1e9 / 2);
  app_config_clear (&cfg);
}
END_TEST

/* Roofline needs num_ops or a duration: the load names file and node. */
START_TEST (test_missing_ops_and_duration)
{
  AppConfig cfg;
  load_ok (&cfg, "<compute model=\"roofline\" device=\"H100-SXM\"/>");
  write_all (comp (7, 0, 0, 4096));
  g_autofree char *prefix = tu_scratch_path ("wl");
  GError *error = NULL;
  ck_assert_ptr_null (tu_sim_all_modes (&(TuSimRequest) { .cfg = &cfg, .prefix = prefix }, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_msg (strstr (error->message, "wl.0.et: node 7") != NULL, "%s", error->message);
  ck_assert_msg (strstr (error->message, "neither num_ops nor duration") != NULL, "%s",
                 error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_xml_errors)
{
  load_fails ("\n<compute model=\"roofline\" device=\"V100\"/>", 4,
              "presets: A100-80GB, H100-SXM, H200, B200, MI300X");
  load_fails ("<compute model=\"roofline\" device=\"A100-80GB\" dtype=\"fp8\"/>", 3,
              "has no fp8 peak");
  load_fails ("<compute model=\"scaled\" device=\"H100-SXM\"/>", 3, "needs captured-on");
  load_fails ("<ranks>\n<rank id=\"1\" speed=\"2\"/>\n<rank ids=\"2-4\" speed=\"2\"/></ranks>", 5,
              "rank 4 is out of range");
  load_fails ("<ranks><rank id=\"9\" speed=\"0.5\"/></ranks>", 3, "rank 9 is out of range");
  load_fails ("<compute matrix-efficiency=\"1.5\"/>", 3, "matrix-efficiency");
  load_fails ("<ranks><rank id=\"1\" speed=\"0\"/></ranks>", 3, "not a positive number");
}
END_TEST

/* Every preset loads and sets its datasheet figures. */
START_TEST (test_presets_load)
{
  static const struct
  {
    const char *name;
    double bf16, fp8, bw, capacity;
  } want[] = {
    { "A100-80GB", A100_BF16, 0, A100_BW, 85056798720.0 }, /* torch total_memory */
    { "H100-SXM", H100_BF16, 1979e12, H100_BW, 81559.0 * 1048576 }, /* nvidia-smi MiB */
    /* What the driver gives a program (public nvidia-smi and rocm-smi
     * logs), not the datasheets' 141, 180 and 192 GB. */
    { "H200", 989.5e12, 1979e12, 4.8e12, 143771.0 * 1048576 },  /* nvidia-smi MiB */
    { "B200", 2250e12, 4500e12, 8e12, 183359.0 * 1048576 },     /* nvidia-smi MiB */
    { "MI300X", MI300X_BF16, 2614.9e12, MI300X_BW, 205822885888.0 }, /* rocm-smi bytes */
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autofree char *body = g_strdup_printf ("<compute model=\"roofline\" device=\"%s\"/>",
                                               want[i].name);
      AppConfig cfg;
      load_ok (&cfg, body);
      ck_assert_double_eq_tol (cfg.wl.peak_flops, want[i].bf16, 1e3);
      ck_assert_double_eq_tol (cfg.wl.mem_bw_Bps, want[i].bw, 1e3);
      ck_assert_double_eq_tol (cfg.wl.mem_capacity_B, want[i].capacity, 1);
      ck_assert_str_eq (cfg.wl.device, want[i].name);
      app_config_clear (&cfg);
      const WlDevice *d = wl_device_preset_nth (i);
      ck_assert_ptr_nonnull (d);
      ck_assert_double_eq_tol (d->peak_flops[WL_DTYPE_FP8], want[i].fp8, 1e3);
      ck_assert_double_eq_tol (d->peak_flops[WL_DTYPE_FP16], d->peak_flops[WL_DTYPE_BF16], 1e3);
    }
  ck_assert_ptr_null (wl_device_preset_nth (G_N_ELEMENTS (want)));
}
END_TEST

static Suite *
compute_suite (void)
{
  Suite *s = suite_create ("compute");
  TCase *tc = tu_tcase (s, "compute", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_roofline_presets);
  tcase_add_test (tc, test_efficiency);
  tcase_add_test (tc, test_scaled);
  tcase_add_test (tc, test_rank_speed);
  tcase_add_test (tc, test_missing_ops_and_duration);
  tcase_add_test (tc, test_xml_errors);
  tcase_add_test (tc, test_presets_load);
  return s;
}

int
main (void)
{
  return tu_run_suite (compute_suite ());
}
