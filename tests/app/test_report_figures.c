/* test_report_figures.c: the figures of the JSON report (--report) and the
 * summary worked out by hand: efficiency (MFU and HFU, against the config's
 * peak or the dtype's) and nccl-tests' algbw and busbw of one collective.
 * Split from test_report.c (the report's structure, sums, breakdown,
 * critical path and writing), on the same exact ring (support/report_read.h).
 *
 * The ring's timing: a message of b bytes between ring neighbours takes
 * 100 + b ns.  A ring member sends step 0 when it joins and step j + 1 once
 * step j has arrived from its predecessor; an all-reduce on p ranks takes
 * 2(p - 1) steps of S/p bytes, an all-gather p - 1 steps of comm_size bytes
 * (system/algo_ring.c).  Expected figures are derived in the comments from
 * those rules and nccl-tests' definitions.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "support/modes.h"
#include "support/report_read.h"
#include "support/testutil.h"
#include "workload/chakra.h"

enum
{
  ALL_REDUCE = 0, ALL_GATHER = 2
};

/* ---- efficiency ------------------------------------------------------------ */

/* Both ranks' traces: 100 us of compute of 5e10 FLOPs, then 100 us
 * recomputing 3e10 FLOPs (is_recompute), written with FACTS (NULL: none)
 * in frame 0. */
static void
write_flops_traces (const WlTraceFacts *facts)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *a = tu_comp (1, 100), *b = tu_comp (2, 100);
      tu_node_attr_int (a, "num_ops", 50000000000);
      tu_node_attr_int (b, "num_ops", 30000000000);
      tu_node_attr_bool (b, "is_recompute", TRUE);
      tu_node_dep (b, 1);
      g_autofree char *path = g_strdup_printf ("%s.%u.et", wl, r);
      g_autoptr (GError) error = NULL;
      g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_full (path, "0.0.4", facts, &error);
      ck_assert_ptr_nonnull (w);
      ck_assert (wl_chakra_writer_add (w, a, &error) && wl_chakra_writer_add (w, b, &error));
      ck_assert (wl_chakra_writer_close (w, &error));
      tu_node_free (a);
      tu_node_free (b);
    }
}

/* MFU and HFU by hand: 2 ranks, an iteration of T = 200 us, the node FLOPs
 * above (model 2 x 5e10 = 1e11, hardware 2 x 8e10 = 1.6e11).
 * With <compute peak="1000TFLOP/s">: MFU = 1e11 / (2e-4 s x 2 x 1e15) =
 *   25 %, HFU = 1.6e11 / 4e11 = 40 %; 250 and 400 TFLOP/s per GPU.
 * With the traces' model_flops 1.2e11 and 4096 tokens on an H100-SXM at
 *   bf16 (989.5 TFLOP/s dense, workload/compute.c): MFU = 1.2e11 /
 *   (4e-4 x 989.5e12) = 30.3 %, HFU = 1.6e11 / 3.958e11 = 40.4 %;
 *   tokens/s = 4096 / 2e-4 = 20480000.
 * Without a peak: MFU not available. */
START_TEST (test_efficiency_by_hand)
{
  g_autofree char *report = tu_scratch_path ("r.json");
  write_flops_traces (NULL);
  g_autofree char *cfg1
      = tu_report_ring (2, "  <compute model=\"replay\" peak=\"1000TFLOP/s\"/>\n");
  g_autofree char *stats = tu_scratch_path ("s.csv");
  g_autofree char *out1 = tu_report_run (
      cfg1, (const char *[]) { "--report", report, "--stats", stats, NULL });
  const char *want1 =
      "  MFU 25.0 %, HFU 40.0 % of 1000.0 TFLOP/s per GPU (the config's peak)\n"
      "  model FLOPs 1e+11 (num_ops of COMP nodes not marked is_recompute): 250.0 TFLOP/s per GPU\n"
      "  hardware FLOPs 1.6e+11 (num_ops of every COMP node): 400.0 TFLOP/s per GPU\n"
      "  mean per rank: exposed communication 0 ns, pipeline bubble 0 ns (0.0 % of the "
      "iteration)\n";
  ck_assert_msg (strstr (out1, want1) != NULL, "%s", out1);
  ck_assert_msg (strstr (out1, "above 100 %") == NULL, "%s", out1);
  /* A tenth of that peak: MFU 250 %, HFU 400 %, and the line that says
   * why a figure can pass 100 %. */
  g_autofree char *cfg0 = tu_report_ring (2, "  <compute model=\"replay\" peak=\"100TFLOP/s\"/>\n");
  g_autofree char *out0 = tu_report_run (cfg0, (const char *[]) { NULL });
  ck_assert_msg (strstr (out0, "  MFU 250.0 %, HFU 400.0 % of 100.0 TFLOP/s per GPU (the config's "
                               "peak)\n  (above 100 %: the kernels ran faster than this peak")
                     != NULL,
                 "%s", out0);
  g_autoptr (JsonParser) p1 = tu_json_load (report);
  JsonObject *e1 = json_object_get_object_member (tu_json_root (p1), "efficiency");
  ck_assert (fabs (tu_json_double (e1, "mfu") - 0.25) < 1e-12);
  ck_assert (fabs (tu_json_double (e1, "hfu") - 0.40) < 1e-12);
  ck_assert (tu_json_double (e1, "model_flops") == 1e11);
  ck_assert (tu_json_double (e1, "hardware_flops") == 1.6e11);
  ck_assert (json_object_get_null_member (e1, "tokens_per_s"));
  /* Per rank: 5e10 model FLOPs, 8e10 in all. */
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (stats, &text, NULL, NULL));
  JsonArray *ranks = tu_json_array (tu_json_root (p1), "ranks");
  for (guint r = 0; r < 2; r++)
    {
      g_auto (GStrv) f = tu_stats_row (text, r);
      ck_assert_str_eq (f[10], "50000000000");
      ck_assert_str_eq (f[11], "80000000000");
      JsonObject *o = json_array_get_object_element (ranks, r);
      ck_assert (tu_json_double (o, "model_flops") == 5e10);
      ck_assert (tu_json_double (o, "hardware_flops") == 8e10);
    }

  WlTraceFacts facts = { .model_flops = 1.2e11, .tokens_per_iteration = 4096,
                         .flops_formula = "6N+attention" };
  write_flops_traces (&facts);
  g_autofree char *cfg2 = tu_report_ring (
      2, "  <compute model=\"replay\" device=\"H100-SXM\" "
         "dtype=\"bf16\"/>\n");
  g_autofree char *out2 = tu_report_run (cfg2, (const char *[]) { "--report", report, NULL });
  const char *want2 =
      "  MFU 30.3 %, HFU 40.4 % of 989.5 TFLOP/s per GPU (H100-SXM bf16)\n"
      "  model FLOPs 1.2e+11 (the traces' metadata: 6N+attention): 300.0 TFLOP/s per GPU\n"
      "  hardware FLOPs 1.6e+11 (num_ops of every COMP node): 400.0 TFLOP/s per GPU\n"
      "  20480000 tokens/s (4096 tokens per iteration)\n";
  ck_assert_msg (strstr (out2, want2) != NULL, "%s", out2);
  g_autoptr (JsonParser) p2 = tu_json_load (report);
  JsonObject *e2 = json_object_get_object_member (tu_json_root (p2), "efficiency");
  ck_assert (fabs (tu_json_double (e2, "mfu") - 1.2e11 / (4e-4 * 989.5e12)) < 1e-12);
  ck_assert (fabs (tu_json_double (e2, "tokens_per_s") - 20480000.0) < 1e-6);
  ck_assert_str_eq (json_object_get_string_member (e2, "flops_formula"), "6N+attention");
  ck_assert_msg (strstr (out2, "model FLOPs above hardware") == NULL, "%s", out2);
  /* model_flops 2e11 > hardware 1.6e11: MFU 2e11 / 3.958e11 = 50.5 % above
   * HFU 40.4 %, and the line that says why. */
  facts.model_flops = 2e11;
  write_flops_traces (&facts);
  g_autofree char *out2b = tu_report_run (cfg2, (const char *[]) { NULL });
  ck_assert_msg (strstr (out2b, "  MFU 50.5 %, HFU 40.4 % of 989.5 TFLOP/s") != NULL, "%s", out2b);
  ck_assert_msg (strstr (out2b, "per GPU\n  (model FLOPs above hardware FLOPs: the formula counts "
                                "work the kernels skip")
                     != NULL,
                 "%s", out2b);

  g_autofree char *cfg3 = tu_report_ring (2, "");
  g_autofree char *out3 = tu_report_run (cfg3, (const char *[]) { "--report", report, NULL });
  ck_assert_msg (strstr (out3, "  MFU not available: the config names no peak") != NULL, "%s",
                 out3);
  g_autoptr (JsonParser) p3 = tu_json_load (report);
  JsonObject *e3 = json_object_get_object_member (tu_json_root (p3), "efficiency");
  ck_assert (json_object_get_null_member (e3, "mfu"));
}
END_TEST

/* MFU against the peak of the dtype the model's GEMMs run in, by hand: 2
 * ranks, each a node of 1000 us with a GEMM m=1000 n=1000 k=25000 in fp32
 * (2 x 1000 x 1000 x 25000 = 5e10 FLOPs, its num_ops), then one of 100 us
 * with a GEMM of k=5000 in FP32_OR_BF16 (1e10).  Model FLOPs 1.2e11 over
 * T = 1100 us on 2 GPUs.  On an H100-SXM configured at bf16, the fp32
 * peak (67 TFLOP/s dense, workload/compute.c's H100-SXM row) is taken:
 * MFU = 1.2e11 / (1.1e-3 x 2 x 67e12) = 81.4 %.  All fp32: "H100-SXM fp32:
 * the dtype of 100.0 % ..."; mixed: fp32 has 5e10 / 6e10 = 83.3 %.  With
 * <compute dtype="fp32"> and all fp32 the label is the config's. */
static void
write_dtype_traces (const char *second_dtype)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *a = tu_comp (1, 1000), *b = tu_comp (2, 100);
      tu_node_attr_int (a, "num_ops", 50000000000);
      tu_node_attr_string (a, "kernels", "gemm:m=1000,n=1000,k=25000,dtype=fp32");
      tu_node_attr_int (b, "num_ops", 10000000000);
      g_autofree char *k = g_strdup_printf ("gemm:m=1000,n=1000,k=5000,dtype=%s", second_dtype);
      tu_node_attr_string (b, "kernels", k);
      tu_node_dep (b, 1);
      ChakraProtoMsg__Node *n[] = { a, b };
      tu_write_rank (wl, r, n, 2);
    }
}

START_TEST (test_mfu_dtype_by_hand)
{
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *bf16 = tu_report_ring (
      2, "  <compute model=\"replay\" device=\"H100-SXM\" "
         "dtype=\"bf16\"/>\n");
  write_dtype_traces ("fp32");
  g_autofree char *out1 = tu_report_run (bf16, (const char *[]) { "--report", report, NULL });
  ck_assert_msg (strstr (out1, "  MFU 81.4 %, HFU 81.4 % of 67.0 TFLOP/s per GPU (H100-SXM fp32: "
                               "the dtype of 100.0 % of the GEMM and attention FLOPs)\n")
                     != NULL,
                 "%s", out1);
  g_autoptr (JsonParser) p1 = tu_json_load (report);
  JsonObject *e1 = json_object_get_object_member (tu_json_root (p1), "efficiency");
  ck_assert (fabs (tu_json_double (e1, "mfu") - 1.2e11 / (1.1e-3 * 2 * 67e12)) < 1e-12);
  ck_assert (tu_json_double (e1, "peak_flops_per_gpu") == 67e12);

  write_dtype_traces ("bf16");
  g_autofree char *out2 = tu_report_run (bf16, (const char *[]) { NULL });
  ck_assert_msg (strstr (out2, "  MFU 81.4 %, HFU 81.4 % of 67.0 TFLOP/s per GPU (H100-SXM fp32: "
                               "the dtype of 83.3 % of the GEMM and attention FLOPs)\n")
                     != NULL,
                 "%s", out2);

  write_dtype_traces ("fp32");
  g_autofree char *fp32 = tu_report_ring (
      2, "  <compute model=\"replay\" device=\"H100-SXM\" "
         "dtype=\"fp32\"/>\n");
  g_autofree char *out3 = tu_report_run (fp32, (const char *[]) { NULL });
  ck_assert_msg (strstr (out3, "  MFU 81.4 %, HFU 81.4 % of 67.0 TFLOP/s per GPU (H100-SXM fp32)\n")
                     != NULL,
                 "%s", out3);
}
END_TEST

/* Run tu_scratch/wl on the ring of 4 and parse its report. */
static JsonParser *
report_on_ring4 (void)
{
  g_autofree char *cfg = tu_report_ring (4, "");
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *out = tu_report_run (cfg, (const char *[]) { "-q", "--report", report, NULL });
  return tu_json_load (report);
}

/* The one row of the collective table. */
static JsonObject *
only_row (JsonObject *root, const char *kind)
{
  JsonArray *colls = tu_json_array (root, "collectives");
  ck_assert_uint_eq (json_array_get_length (colls), 1);
  JsonObject *c = json_array_get_object_element (colls, 0);
  ck_assert_str_eq (json_object_get_string_member (c, "kind"), kind);
  ck_assert_str_eq (json_object_get_string_member (c, "group"), "all");
  ck_assert_str_eq (json_object_get_string_member (c, "algorithm"), "ring");
  ck_assert_int_eq (tu_json_int (c, "ranks"), 4);
  ck_assert_int_eq (tu_json_int (c, "count"), 1);
  return c;
}

/* Ring all-reduce of S = 4000 bytes on p = 4 ranks: 6 steps of 1000 bytes,
 * 1 us on the wire + 0.1 us latency.  Rank 3 joins late, after a 1 us COMP.
 * Native configs share ports: member i's messages to i + 1 leave one at a
 * time, message j at L_i(j) = max(R_i(j), L_i(j - 1) + 1), asked for at
 * R_i(0) = J_i (joins J = (0, 0, 0, 1) us) and R_i(j) = P_i(j - 1), where
 * P_i(j) = max(L_{i-1}(j) + 1.1, P_i(j - 1)), P_i(-1) = J_i, is the time
 * member i takes step j (from member i - 1) and sends step j + 1:
 *   L_i(j):   0    1    2    3    4    5      P_i(j):  0    1    2    3    4    5
 *   rank 0:  0.0  2.1  3.1  4.1  5.1  6.5             2.1  3.1  4.1  5.1  6.5  7.5
 *   rank 1:  0.0  1.1  3.2  4.2  5.2  6.2             1.1  3.2  4.2  5.2  6.2  7.6
 *   rank 2:  0.0  1.1  2.2  4.3  5.3  6.3             1.1  2.2  4.3  5.3  6.3  7.3
 *   rank 3:  1.0  2.0  3.0  4.0  5.4  6.4             1.1  2.2  3.3  5.4  6.4  7.4
 * Done at 7.6 us: total 7.6 us, late joins 1 us, t = 6.6 us.  algbw = S /
 * t = 4000 B / 6.6 us = 0.60606... GB/s, busbw = algbw x 2(p - 1)/p =
 * algbw x 1.5. */
START_TEST (test_busbw_all_reduce)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *ar = tu_coll (2, ALL_REDUCE, 4000);
      if (r == 3)
        {
          ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), ar };
          tu_node_dep (ar, 1);
          tu_write_rank (wl, r, nodes, 2);
        }
      else
        {
          ChakraProtoMsg__Node *nodes[] = { ar };
          tu_write_rank (wl, r, nodes, 1);
        }
    }
  g_autoptr (JsonParser) parser = report_on_ring4 ();
  JsonObject *root = tu_json_root (parser);
  ck_assert_int_eq (tu_json_ps (root, "simulated_time"), TU_NS (7600));
  JsonObject *c = only_row (root, "all_reduce");
  ck_assert_int_eq (tu_json_int (c, "size_bytes"), 4000);
  ck_assert_int_eq (tu_json_ps (c, "total"), TU_NS (7600));
  ck_assert_int_eq (tu_json_ps (c, "mean"), TU_NS (7600));
  ck_assert_int_eq (tu_json_ps (c, "late_joins"), TU_US (1));
  double alg = 4000.0 / 6.6e-6 / 1e9;
  tu_assert_rel (json_object_get_double_member (c, "algbw_GBps"), alg);
  tu_assert_rel (json_object_get_double_member (c, "busbw_GBps"), alg * 2.0 * 3.0 / 4.0);
  JsonObject *i = json_array_get_object_element (tu_json_array (root, "collective_instances"), 0);
  ck_assert_int_eq (tu_json_ps (i, "first_join"), 0);
  ck_assert_int_eq (tu_json_ps (i, "last_join"), TU_US (1));
  ck_assert_int_eq (tu_json_ps (i, "done"), TU_NS (7600));
  const gint64 finish[] = { TU_NS (7500), TU_NS (7600), TU_NS (7300), TU_NS (7400) };
  JsonArray *ranks = tu_json_array (root, "ranks");
  for (guint r = 0; r < 4; r++)
    ck_assert_int_eq (tu_json_ps (json_array_get_object_element (ranks, r), "finish"), finish[r]);
}
END_TEST

/* Ring all-gather of comm_size 1000 bytes (each rank's input) on p = 4
 * ranks, all joining at 0: 3 steps of 1000 bytes, 3 x 1.1 = 3.3 us.
 * nccl-tests' size is the output, S = 4 x 1000 bytes: algbw = 4000 B /
 * 3.3 us = 1.2121... GB/s, busbw = algbw x (p - 1)/p = algbw x 0.75. */
START_TEST (test_busbw_all_gather)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_coll (1, ALL_GATHER, 1000) };
      tu_write_rank (wl, r, nodes, 1);
    }
  g_autoptr (JsonParser) parser = report_on_ring4 ();
  JsonObject *root = tu_json_root (parser);
  ck_assert_int_eq (tu_json_ps (root, "simulated_time"), TU_NS (3300));
  JsonObject *c = only_row (root, "all_gather");
  /* The summary's size, nccl-tests': the output, 4 x 1000 bytes. */
  ck_assert_int_eq (tu_json_int (c, "size_bytes"), 4000);
  ck_assert_int_eq (tu_json_ps (c, "total"), TU_NS (3300));
  ck_assert_int_eq (tu_json_ps (c, "late_joins"), 0);
  double alg = 4000.0 / 3.3e-6 / 1e9;
  tu_assert_rel (json_object_get_double_member (c, "algbw_GBps"), alg);
  tu_assert_rel (json_object_get_double_member (c, "busbw_GBps"), alg * 3.0 / 4.0);
}
END_TEST

static Suite *
report_figures_suite (void)
{
  Suite *s = suite_create ("report_figures");
  TCase *tc = tu_tcase (s, "figures", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_busbw_all_reduce);
  tcase_add_test (tc, test_busbw_all_gather);
  tcase_add_test (tc, test_efficiency_by_hand);
  tcase_add_test (tc, test_mfu_dtype_by_hand);
  return s;
}

int
main (void)
{
  return tu_run_suite (report_figures_suite ());
}
