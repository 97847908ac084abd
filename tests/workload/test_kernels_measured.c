/* test_kernels_measured.c: the kernel model against kernels measured on a
 * real GPU, and the H200 constants that came from that measurement.
 *
 * configs/devices/h200-measured.csv holds GEMM and attention times
 * measured on an H200 SXM at its power limit (configs/devices/README.md,
 * "Measured on an H200"; scripts/calibrate/).  They are an independent
 * reference: the model's prices are checked against them within the
 * bands that README states, so a change to the model that moves it away
 * from the hardware fails here.  The calibration itself is checked in
 * closed form: the two MAMF shapes take exactly their measured sustained
 * rates (700.9 TFLOP/s bf16 at 2048 x 2048 x 13312, 1227.2 fp8 at
 * 1280 x 4096 x 12032), on the H200 and on the H100 SXM, the same die.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "workload/kernels.h"
#include "support/testutil.h"

#define TABLE "configs/devices/h200-measured.csv"

static const WlKernelDevice *
h200 (void)
{
  const WlKernelDevice *d = wl_kernel_device ("H200");
  ck_assert_ptr_nonnull (d);
  return d;
}

static void
assert_close (double got, double want)
{
  ck_assert_msg (fabs (got - want) <= 1e-9 * want, "got %.6f ns, want %.6f", got, want);
}

/* The calibration shapes run at the measured sustained rates. */
START_TEST (test_calibration)
{
  WlKernel bf16 = tu_kernel ("gemm:m=2048,n=2048,k=13312");
  WlKernel fp8 = tu_kernel ("gemm:m=1280,n=4096,k=12032,dtype=fp8");
  assert_close (wl_kernel_ns (h200 (), &bf16), 2.0 * 2048 * 2048 * 13312 / 700.9e12 * 1e9);
  assert_close (wl_kernel_ns (h200 (), &fp8), 2.0 * 1280 * 4096 * 12032 / 1227.2e12 * 1e9);
  /* Below MAMF's burst figure at the same shape (794.5 TFLOP/s). */
  ck_assert (wl_kernel_ns (h200 (), &bf16) > 2.0 * 2048 * 2048 * 13312 / 794.5e12 * 1e9 * 1.1);
  /* The H100 SXM is the same die at the same power limit: the same
   * sustained rates at the same shapes (their operands' memory time, under
   * either HBM, is far shorter). */
  const WlKernelDevice *h100 = wl_kernel_device ("H100-SXM");
  ck_assert_ptr_nonnull (h100);
  assert_close (wl_kernel_ns (h100, &bf16), 2.0 * 2048 * 2048 * 13312 / 700.9e12 * 1e9);
  assert_close (wl_kernel_ns (h100, &fp8), 2.0 * 1280 * 4096 * 12032 / 1227.2e12 * 1e9);
}
END_TEST

/* One measured row: its kernel in the grammar's form and the table's time. */
typedef struct
{
  char text[256];
  WlKernel kernel;
  double measured_ns;
  double model_ns;
} Row;

/* Every row of TABLE, priced by the model and looked up in the table. */
static GArray *
load_rows (void)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  GError *error = NULL;
  ck_assert_msg (g_file_get_contents (TABLE, &text, &len, &error), "%s",
                 error ? error->message : "");
  WlKernelTable *table = wl_kernel_table_parse (TABLE, text, len, &error);
  ck_assert_msg (table != NULL, "%s", error ? error->message : "");
  g_autofree char *devices = wl_kernel_table_devices (table);
  ck_assert_str_eq (devices, "H200");

  GArray *rows = g_array_new (FALSE, TRUE, sizeof (Row));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean header = FALSE;
  for (guint i = 0; lines[i] != NULL; i++) {
    if (lines[i][0] == '\0' || lines[i][0] == '#')
      continue;
    if (!header) {
      header = TRUE;
      continue;
    }
    g_auto (GStrv) f = g_strsplit (lines[i], ",", -1);
    ck_assert_uint_eq (g_strv_length (f), 5);
    g_autofree char *shapes = g_strdelimit (g_strdup (f[1]), " ", ',');
    Row r = { 0 };
    g_snprintf (r.text, sizeof r.text, "%s:%s,dtype=%s", f[0], shapes, f[2]);
    r.kernel = tu_kernel (r.text);
    r.measured_ns = wl_kernel_table_ns (table, "H200", &r.kernel);
    ck_assert_msg (r.measured_ns > 0, "%s: not found in its own table", r.text);
    r.model_ns = wl_kernel_ns (h200 (), &r.kernel);
    g_array_append_val (rows, r);
  }
  wl_kernel_table_free (table);
  return rows;
}

static double
log_error (const Row *r)
{
  return log (r->model_ns / r->measured_ns);
}

/* GEMMs with batch 1 (164: the published rows' layers in bf16 and fp8):
 * geomean |error| 3.3 %, asserted under 5 %; 160 within 20 %; none off by
 * 40 % (the four beyond 20 % leave SMs idle in the model's waves, 1536 x
 * 3072 x 32768 the worst at +34 %, where cuBLAS fills them by splitting
 * k, which the model prices only when tiles < SMs). */
START_TEST (test_gemms)
{
  g_autoptr (GArray) rows = load_rows ();
  double sum = 0;
  guint n = 0, within = 0;
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = &g_array_index (rows, Row, i);
    if (r->kernel.op != WL_KERNEL_GEMM || r->kernel.batch != 1)
      continue;
    ck_assert_msg (fabs (log_error (r)) < log (1.4), "%s: model %.1f us, measured %.1f us",
                   r->text, r->model_ns / 1e3, r->measured_ns / 1e3);
    within += fabs (log_error (r)) < log (1.2);
    sum += fabs (log_error (r));
    n++;
  }
  ck_assert_uint_eq (n, 164);
  ck_assert_uint_ge (within, 155);
  ck_assert_msg (exp (sum / n) - 1 < 0.05, "geomean |error| %.1f %%", 100 * (exp (sum / n) - 1));
}
END_TEST

/* FlashAttention at head dimensions 64 and 128 from 2k tokens up (the
 * FlashAttention-3 sweep's shapes, 16k tokens a batch): within 10 %. */
START_TEST (test_attention)
{
  g_autoptr (GArray) rows = load_rows ();
  guint n = 0;
  for (guint i = 0; i < rows->len; i++) {
    const Row *r = &g_array_index (rows, Row, i);
    const WlKernel *k = &r->kernel;
    if (k->op != WL_KERNEL_ATTN || k->d > 128 || k->sq < 2048 || k->b * k->sq != 16384)
      continue;
    ck_assert_msg (fabs (log_error (r)) < log (1.1), "%s: model %.1f us, measured %.1f us",
                   r->text, r->model_ns / 1e3, r->measured_ns / 1e3);
    n++;
  }
  ck_assert_uint_eq (n, 32);
}
END_TEST

static Suite *
kernels_measured_suite (void)
{
  Suite *s = suite_create ("kernels_measured");
  TCase *tc = tcase_create ("core");
  tcase_add_test (tc, test_calibration);
  tcase_add_test (tc, test_gemms);
  tcase_add_test (tc, test_attention);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return tu_run_suite (kernels_measured_suite ());
}
