/* test_gen_dlrm_tf.c: `gen dlrm --emb-update tf`, the embeddings'
 * backward and update as TensorFlow runs them in NVIDIA
 * DeepLearningExamples' TF2 DLRM/DCNv2 step (gen_dlrm_emit.c,
 * tf_update_bytes): each kernel's bytes worked by hand for one table;
 * and the TF32 type of `--mlp-dtype tf32` (the reproduction's TF32 rows).
 */
#include <check.h>
#include <math.h>

#include "workload/compute.h"
#include "workload/gen_dlrm.h"
#include "workload/kernel_model.h"
#include "workload/kernels.h"
#include "support/testutil.h"

/* Lazy Adam on an A100 (L2 40 MiB): one table of 10^6 rows of 128 fp32
 * (a row 512 B, whole sectors: r = v = 512), 65,536 one-hot lookups into
 * 65,536 bags (no broadcast).  U = 10^6 (1 - (1 - 10^-6)^65536), about
 * 63,435.  Unique 16 n; UnsortedSegmentSum zero-fill U v, values n v,
 * positions 4 n, the sums read and written 2 U r; the gathers of m and v
 * 2 (U r + U v); the fused elementwise update 6 U v; the scatters of m and
 * v 2 (U v + U r); the variable's scatter-sub U v + 2 U r.  In all
 * 16 n + 4 n + 512 n + 512 U (1 + 2 + 2 + 6 + 2 + 1 + 2 + 2 + 2 + 2)
 * = 532 n + 10240 U = 34,865,152 + 649.6 MB. */
START_TEST (test_lazy_adam)
{
  WlGenDlrm r = { .dtype = WL_DTYPE_FP32, .emb_opt = WL_EMB_OPT_ADAM,
                  .device = "A100-80GB", .tf_update = TRUE };
  double n = 65536, U = 1e6 * (1 - pow (1 - 1e-6, n));
  WlLookupCost c = wl_dlrm_lookup_cost (&r, 1000000, 128, n, 65536);
  ck_assert (fabs (c.distinct_rows - U) < 1e-3);
  ck_assert (fabs (U - 63435) < 1);
  double want = 532 * n + 10240 * U;
  ck_assert_msg (fabs ((double) c.bwd_B - want) <= 2, "%" G_GUINT64_FORMAT " vs %.1f",
                 c.bwd_B, want);
  /* The fused model of the same shard (FBGEMM's TBE backward): the pooled
   * gradient, the sort, and per distinct row the row and its two moments
   * read and written: 512 n + 16 n + U (2 x 512 + 2 x 1024). */
  r.tf_update = FALSE;
  c = wl_dlrm_lookup_cost (&r, 1000000, 128, n, 65536);
  ck_assert (fabs ((double) c.bwd_B - (528 * n + 3072 * U)) <= 2);
  /* The forward is the same either way. */
  WlLookupCost f = wl_dlrm_lookup_cost (&r, 1000000, 128, n, 65536);
  r.tf_update = TRUE;
  ck_assert_uint_eq (wl_dlrm_lookup_cost (&r, 1000000, 128, n, 65536).fwd_B, f.fwd_B);
}
END_TEST

/* SGD.  The same table with the loss scale (amp_casts): the learning
 * rate's Mul is in the unscale's XLA cluster, so ResourceScatterAdd only:
 * the values n v, the indices 8 n, and each row touch that misses the L2
 * read and written, 2 x 512 (U + (n - U)(1 - h)), h = 41,943,040 / 512e6
 * = 0.08192. */
START_TEST (test_sgd)
{
  WlGenDlrm r = { .dtype = WL_DTYPE_FP32, .emb_opt = WL_EMB_OPT_SGD, .device = "A100-80GB",
                  .tf_update = TRUE, .amp_casts = TRUE, .mlp_dtype_set = TRUE,
                  .mlp_dtype = WL_DTYPE_FP16 };
  double n = 65536, U = 1e6 * (1 - pow (1 - 1e-6, n)), h = 41943040.0 / 512e6;
  WlLookupCost c = wl_dlrm_lookup_cost (&r, 1000000, 128, n, 65536);
  ck_assert (fabs (c.hit - h) < 1e-12);
  double want = 520 * n + 1024 * (U + (n - U) * (1 - h));
  ck_assert_msg (fabs ((double) c.bwd_B - want) <= 2, "%" G_GUINT64_FORMAT " vs %.1f",
                 c.bwd_B, want);
  /* A multi-hot table on an H100 (L2 50 MiB: it fits, h = 1), no loss
   * scale: 1000 rows of 16 fp32 (64 B), 100 lookups into 10 bags.  The
   * pooled gradient broadcast to one row an index (10 + 100) x 64 = 7040,
   * the learning rate's Mul 2 x 100 x 64 = 12,800, the scatter-add
   * 100 x 64 + 800 + 2 x 64 U, U = 1000 (1 - 0.999^100) = 95.2079:
   * 7040 + 12800 + 6400 + 800 + 12186.6 = 39,226.6. */
  WlGenDlrm s = { .dtype = WL_DTYPE_FP32, .emb_opt = WL_EMB_OPT_SGD, .device = "H100-SXM",
                  .tf_update = TRUE };
  c = wl_dlrm_lookup_cost (&s, 1000, 16, 100, 10);
  ck_assert_uint_eq (c.bwd_B, 39227);
}
END_TEST

/* TF32: parsed and named, 4 bytes an element, the A100's datasheet rate
 * (156 TFLOP/s dense, half its bf16 312), none on the other presets.  A
 * large compute-bound GEMM (8192^3) on the A100 runs the same tiles in
 * TF32 as in bf16 at half the rate: twice the time, give or take the
 * operands' doubled bytes (hidden under the math at this size). */
START_TEST (test_tf32)
{
  WlDtype t = WL_DTYPE_FP32;
  ck_assert (wl_dtype_parse ("tf32", &t) && t == WL_DTYPE_TF32);
  ck_assert_str_eq (wl_dtype_name (WL_DTYPE_TF32), "tf32");
  ck_assert_uint_eq (wl_dlrm_elem_bytes (WL_DTYPE_TF32), 4);
  ck_assert (wl_device_preset ("A100-80GB")->peak_flops[WL_DTYPE_TF32] == 156e12);
  ck_assert (wl_device_preset ("H100-SXM")->peak_flops[WL_DTYPE_TF32] == 0);
  const WlKernelDevice *dev = wl_kernel_device ("A100-80GB");
  g_autoptr (GArray) a = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  g_autoptr (GArray) b = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  ck_assert (wl_kernels_parse ("gemm:m=8192,n=8192,k=8192,batch=1,dtype=tf32", a, NULL));
  ck_assert (wl_kernels_parse ("gemm:m=8192,n=8192,k=8192,batch=1,dtype=bf16", b, NULL));
  double ratio = wl_kernel_list_ns (dev, NULL, a) / wl_kernel_list_ns (dev, NULL, b);
  ck_assert_msg (ratio > 1.98 && ratio < 2.02, "tf32 / bf16 time %.4f", ratio);
}
END_TEST

static Suite *
gen_dlrm_tf_suite (void)
{
  Suite *s = suite_create ("gen_dlrm_tf");
  TCase *tc = tcase_create ("core");
  tcase_add_test (tc, test_lazy_adam);
  tcase_add_test (tc, test_sgd);
  tcase_add_test (tc, test_tf32);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_dlrm_tf_suite ());
}
