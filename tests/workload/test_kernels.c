/* test_kernels.c: the kernel compute model: the `kernels` grammar and its
 * errors, each kind of kernel priced by hand on the H100-SXM, the
 * physical floor, lists with count= and the launch overhead, the measured
 * table and its errors, and <compute model="kernel"> through the loader,
 * every replay mode and the binary.
 *
 * Expected values are the closed forms of workload/kernel_model.h written
 * out here with the H100-SXM constants (configs/devices/README.md): 132
 * SMs; tiles 128x256, 256x128, 128x128; bf16 k_fix 256; bf16 700.9
 * TFLOP/s sustained at 2048 x 2048 x 13312 (the GH100's rate at its power
 * limit, measured on an H200); FlashAttention-3 table (forward 638,
 * causal 579, backward 542 TFLOP/s at 4k); 3.35 TB/s at 90 %; 0.9 us per
 * launch.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/kernels.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

enum { T_COMP = 4 };

#define H100_BF16 989.5e12
#define H100_BW 3.35e12
#define H100_MEM (H100_BW * 0.90)
#define LAUNCH_NS 900.0
/* The calibration rate (bf16, TFLOP/s at 2048 x 2048 x 13312), and the
 * rate per SM: that shape is 16 x 8 = 128 tiles of 128x256, one wave on
 * 128 of the 132 SMs, each tile 2 x 128 x 256 x (13312 + 256)
 * FLOP-steps, in the time 2 x 2048^2 x 13312 / rate; so rate_sm = rate /
 * 128 x (13312 + 256) / 13312. */
#define H100_MAMF 700.9e12
#define H100_RATE_SM (H100_MAMF / 128 * (13312.0 + 256.0) / 13312.0)

/* An input error (the workload's domain, or the config loader's) holding
 * NEEDLE. */
static void
assert_error (const GError *error, const char *needle)
{
  ck_assert_msg (error != NULL, "expected an error containing '%s'", needle);
  ck_assert_msg ((error->domain == WL_ERROR || error->domain == SIM_ERROR)
                     && error->code == SIM_ERROR_INPUT,
                 "wrong domain/code for: %s", error->message);
  ck_assert_msg (strstr (error->message, needle) != NULL, "'%s' not in: %s", needle,
                 error->message);
}

static const WlKernelDevice *
h100 (void)
{
  const WlKernelDevice *d = wl_kernel_device ("h100-sxm");
  ck_assert_ptr_nonnull (d);
  return d;
}

static void
assert_close (double got, double want)
{
  ck_assert_msg (fabs (got - want) <= 1e-9 * fabs (want), "got %.6f, want %.6f", got, want);
}

static double
kernel_ns (const char *text)
{
  WlKernel k = tu_kernel (text);
  return wl_kernel_ns (h100 (), &k);
}

/* The grammar's defaults. */
START_TEST (test_parse)
{
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  ck_assert (wl_kernels_parse ("gemm:m=4096,n=6144,k=4096,dtype=fp8;attn:dir=bwd,b=2,hq=32,hkv=8,"
                               "sq=4096,d=128,causal=1;mem:bytes=100,what=rmsnorm,count=3",
                               list, NULL));
  ck_assert_uint_eq (list->len, 3);
  const WlKernel *g = &g_array_index (list, WlKernel, 0);
  ck_assert_int_eq (g->op, WL_KERNEL_GEMM);
  ck_assert_int_eq (g->dtype, WL_DTYPE_FP8);
  ck_assert_uint_eq (g->batch, 1);
  ck_assert_uint_eq (g->count, 1);
  const WlKernel *a = &g_array_index (list, WlKernel, 1);
  ck_assert (a->bwd && a->causal);
  ck_assert_uint_eq (a->hkv, 8);
  ck_assert_uint_eq (a->skv, 4096); /* = sq */
  ck_assert_int_eq (a->dtype, WL_DTYPE_BF16);
  const WlKernel *m = &g_array_index (list, WlKernel, 2);
  ck_assert_uint_eq (m->count, 3);
  ck_assert_str_eq (m->what, "rmsnorm");
  /* FLOPs by the interface's formulas. */
  assert_close (wl_kernel_flops (g), 2.0 * 4096 * 6144 * 4096);
  assert_close (wl_kernel_flops (a), 2.5 * 4.0 * 2 * 32 * 4096.0 * 4096 * 128 / 2);
  ck_assert (wl_kernel_flops (m) == 0);
}
END_TEST

/* Matrix FLOPs of interned lists, by hand: gemm 2 x 3 x 4 (x 2), 5 times,
 * fp8: 240; attention forward b 1, hq 2, sq = skv 3, d 4, bf16: 4 x 72 =
 * 288; gemm 1 x 1 x 1, bf16: 2; the memory kernel none.  They add to what
 * OUT holds, each call. */
START_TEST (test_matrix_flops)
{
  WlKernelLists *l = wl_kernel_lists_new ();
  guint32 a = 0, b = 0;
  ck_assert (wl_kernel_lists_intern (l, "gemm:m=2,n=3,k=4,count=5,dtype=fp8;mem:bytes=100;"
                                        "attn:dir=fwd,b=1,hq=2,sq=3,d=4;gemm:m=1,n=1,k=1",
                                     &a, NULL));
  ck_assert (wl_kernel_lists_intern (l, "mem:bytes=64", &b, NULL));
  double out[WL_DTYPE_N];
  for (guint d = 0; d < WL_DTYPE_N; d++)
    out[d] = 1.0;
  wl_kernel_lists_matrix_flops (l, a, out);
  wl_kernel_lists_matrix_flops (l, b, out);
  wl_kernel_lists_matrix_flops (l, a, out);
  for (guint d = 0; d < WL_DTYPE_N; d++)
    {
      double want = d == WL_DTYPE_FP8    ? 1.0 + 2 * 240.0
                    : d == WL_DTYPE_BF16 ? 1.0 + 2 * 290.0
                                         : 1.0;
      ck_assert_msg (out[d] == want, "dtype %u: %g, want %g", d, out[d], want);
    }
  wl_kernel_lists_free (l);
}
END_TEST

static void
parse_fails (const char *text, const char *needle)
{
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  GError *error = NULL;
  ck_assert_msg (!wl_kernels_parse (text, list, &error), "'%s' parsed", text);
  assert_error (error, needle);
  g_error_free (error);
}

START_TEST (test_parse_errors)
{
  parse_fails ("gemm:m=1,n=2", "kernels: 'gemm' needs k");
  parse_fails ("attn:b=1,hq=2,sq=3,d=4", "'attn' needs dir");
  parse_fails ("mem:what=add", "'mem' needs bytes");
  parse_fails ("conv:m=1", "'conv' is not a kernel (gemm, attn, mem)");
  parse_fails ("gemm:m=1,n=2,k=3,q=4", "'gemm' has no key 'q'");
  parse_fails ("gemm:m=1,n=2,k=x3", "'gemm' k='x3' is not a decimal integer");
  parse_fails ("gemm:m=1,n=2,k=-3", "k='-3' is not a decimal integer");
  parse_fails ("gemm:m=1,n=2,k=3,m=4", "'gemm' gives m twice");
  parse_fails ("gemm:m=0,n=2,k=3", "'gemm' m must be at least 1");
  parse_fails ("gemm:m=1,n=2,k=3,dtype=int4", "dtype 'int4' is not one of");
  parse_fails ("attn:dir=up,b=1,hq=2,sq=3,d=4", "dir 'up' is not fwd or bwd");
  parse_fails ("attn:dir=fwd,b=1,hq=2,sq=3,d=4,causal=2", "causal '2' is not 0 or 1");
  parse_fails ("mem:bytes=1,what=Layer Norm", "what 'Layer Norm' is not a name");
  parse_fails ("gemm:m=1,n=2,k=3;", "'' is not op:key=value");
  parse_fails ("gemm:m=1,n 2,k=3", "'n 2' in 'gemm' is not key=value");
  parse_fails ("gemm:m=1,n=2,k=99999999999999999999", "is not a decimal integer");
}
END_TEST

/* 1408 x 3072 is 11 x 12 = 132 tiles of 128x256: one full wave (256x128
 * needs 6 x 24 = 144, two waves; 128x128 264, two waves of half-size
 * tiles: the same time).  One tile: 2 x 128 x 256 x (4096 + 256) FLOPs at
 * the SM's rate.  Its operands' memory time ((1408 x 4096 + 4096 x 3072) x
 * 2 + 1408 x 3072 x 2 bytes, 15 us) and the calibration rate's floor (50.6 us) are
 * shorter. */
START_TEST (test_gemm_full_wave)
{
  double want = 2.0 * 128 * 256 * (4096 + 256) / H100_RATE_SM * 1e9;
  assert_close (kernel_ns ("gemm:m=1408,n=3072,k=4096"), want);
  ck_assert (want > 2.0 * 1408 * 3072 * 4096 / H100_MAMF * 1e9);
  ck_assert (want > ((1408.0 * 4096 + 4096.0 * 3072) * 2 + 1408.0 * 3072 * 2) / H100_MEM * 1e9);
}
END_TEST

/* 1536 x 3072: 12 x 12 = 144 tiles of 128x256 (two waves of 132, the
 * second nearly empty), 6 x 24 = 144 of 256x128 (the same), 12 x 24 = 288
 * of 128x128 (three waves): the 128x128 tiles win, 3 waves x 2 x 128 x 128
 * x (4096 + 256) FLOPs, against 2 x 2 x 128 x 256 x 4352 for the large
 * tile. */
START_TEST (test_gemm_wave_quantization)
{
  double want = 3.0 * 2 * 128 * 128 * (4096 + 256) / H100_RATE_SM * 1e9;
  assert_close (kernel_ns ("gemm:m=1536,n=3072,k=4096"), want);
  /* Less efficient than the full wave above: 144/132 more work took 3/2 the
   * time. */
  double full = 2.0 * 128 * 256 * (4096 + 256) / H100_RATE_SM * 1e9;
  ck_assert (want / full > 1.4);
  /* batch multiplies the tiles: 2 x 132 tiles = 2 full waves. */
  assert_close (kernel_ns ("gemm:m=1408,n=3072,k=4096,batch=2"), 2 * full);
}
END_TEST

/* A thin GEMM is memory-bound: m=65536, n=128, k=128 moves (65536 x 128 +
 * 128 x 128) x 2 + 65536 x 128 x 2 bytes at 90 % of 3.35 TB/s. */
START_TEST (test_gemm_memory_bound)
{
  /* An A100 has no FP8: an FP8 kernel runs as bf16, its 2-byte operands
   * included, so it takes exactly the bf16 kernel's time. */
  const WlKernelDevice *a100 = wl_kernel_device ("A100-80GB");
  const char *pairs[][2] = { { "gemm:m=65536,n=128,k=128", "gemm:m=65536,n=128,k=128,dtype=fp8" },
                             { "attn:dir=fwd,b=1,hq=32,sq=512,d=128",
                               "attn:dir=fwd,b=1,hq=32,sq=512,d=128,dtype=fp8" } };
  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      WlKernel bf16 = tu_kernel (pairs[i][0]), fp8 = tu_kernel (pairs[i][1]);
      assert_close (wl_kernel_ns (a100, &fp8), wl_kernel_ns (a100, &bf16));
    }
  double bytes = (65536.0 * 128 + 128.0 * 128) * 2 + 65536.0 * 128 * 2;
  assert_close (kernel_ns ("gemm:m=65536,n=128,k=128"), bytes / H100_MEM * 1e9);
}
END_TEST

/* Split-K (kernel_model.h), hand-worked on 128 x 256 x 65536 bf16 (a
 * weight gradient: a small output, a long k).  Operands' memory time:
 * ((128 + 256) x 65536 + 128 x 256) x 2 = 50,397,184 bytes at 90 % of
 * 3.35 TB/s = 16.716 us; the calibration rate's floor 2 x 128 x 256 x
 * 65536 / 700.9e12 = 6.13 us.  Unsplit, 128x128 is best (2 tiles, one
 * wave, each 2 x 128 x 128 x (65536 + 256) at H100_RATE_SM = 5.8713 ns a
 * k-step: 386.3 us;
 * 128x256 is one tile of twice the work).  Split S ways, 128x128 runs 2 S
 * units (S <= 66: one wave) of ceil (65536 / S) + 256 k-steps, plus the
 * reduction: S fp32 partials of 128 x 256 written and read and the bf16
 * output written, (8 S + 2) x 32768 bytes at 3.015 TB/s, and a launch.
 * S = 26: 2521 + 256 = 2777 k-steps, 16.304 us, under the memory time:
 * 16.716 + 2.282 us + 0.9 us = 19.898 us.  S = 25: 2878 k-steps, 16.897
 * us (above the memory time) + 2.195 + 0.9 = 19.99 us.  S = 27: 2684
 * k-steps (15.76 us), 16.716 + 2.369 + 0.9 = 19.98 us.  128x256 split 2 S
 * ways has the same k per unit and twice the k_fix work: slower. */
static double
split_128x128_ns (double s)
{
  double steps = ceil (65536.0 / s) + 256;
  double compute = 2.0 * 128 * 128 * steps / H100_RATE_SM * 1e9;
  double operands = ((128.0 + 256) * 65536 + 128.0 * 256) * 2 / H100_MEM * 1e9;
  double reduce = (8.0 * s + 2) * 128 * 256 / H100_MEM * 1e9;
  return MAX (compute, operands) + reduce + LAUNCH_NS;
}

START_TEST (test_gemm_split_k)
{
  WlKernel k = tu_kernel ("gemm:m=128,n=256,k=65536");
  double unsplit = 2.0 * 128 * 128 * (65536 + 256) / H100_RATE_SM * 1e9;
  ck_assert_msg (fabs (unsplit - 386.3e3) < 0.1e3, "unsplit %.1f ns", unsplit);
  double want = split_128x128_ns (26);
  ck_assert_msg (fabs (want - 19898) < 1, "by hand 19.898 us, formula %.1f ns", want);
  ck_assert (split_128x128_ns (25) > want && split_128x128_ns (27) > want);
  assert_close (wl_kernel_ns (h100 (), &k), want);
  ck_assert_uint_eq (wl_kernel_gemm_split (h100 (), &k), 26);
  /* Never faster than physics (the MAMF floor and the full bandwidth). */
  ck_assert (want > 2.0 * 128 * 256 * 65536 / H100_MAMF * 1e9);
  ck_assert (want > wl_kernel_bound_ns (h100 (), &k));
}
END_TEST

/* Shapes that fill the SMs are not split: 1408 x 3072 is 132 tiles of
 * 128x256 (no idle SM: the price of test_gemm_full_wave); the MAMF shape
 * 2048 x 2048 x 13312 is 128 tiles of 128x256, 4 SMs idle, but split 2 it
 * is 256 units in 2 waves of 6656 + 256 k-steps, 13824 > 13568 unsplit
 * (its 256 tiles of 128x128 already fill the SMs); a short k (k < 2 k_fix
 * = 512) never splits: 128 x 256 x 384. */
START_TEST (test_gemm_split_none)
{
  const char *shapes[] = { "gemm:m=1408,n=3072,k=4096", "gemm:m=2048,n=2048,k=13312",
                           "gemm:m=128,n=256,k=384" };
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      WlKernel k = tu_kernel (shapes[i]);
      ck_assert_msg (wl_kernel_gemm_split (h100 (), &k) == 1, "%s split", shapes[i]);
    }
  assert_close (kernel_ns ("gemm:m=1408,n=3072,k=4096"),
                2.0 * 128 * 256 * (4096 + 256) / H100_RATE_SM * 1e9);
  assert_close (kernel_ns ("gemm:m=2048,n=2048,k=13312"),
                2.0 * 2048 * 2048 * 13312 / H100_MAMF * 1e9);
}
END_TEST

/* A100 constants (configs/devices/README.md): 108 SMs, bf16/fp16 MAMF
 * 271.2 TFLOP/s at 1024 x 10240 x 5120 (320 tiles of 128x256: 3 waves of
 * 108, each 2 x 128 x 256 x (5120 + 192) FLOP-steps), so rate_sm = 271.2e12
 * x 3 x 2 x 128 x 256 x 5312 / (2 x 1024 x 10240 x 5120), under the peak's
 * 312e12 / 108; L2 reads 5120 bytes a clock at 1410 MHz; HBM 2.039 TB/s at
 * 90 %. */
#define A100_RATE_SM (271.2e12 * 3 * 2 * 128 * 256 * 5312.0 / (2.0 * 1024 * 10240 * 5120))
#define A100_L2 (5120.0 * 1410e6)
#define A100_MEM (2.039e12 * 0.90)

/* A tiny batched product, the unfused DLRM interaction's 27 x 128 by 128 x
 * 27 for 65,536 samples (fp16): every tile holds one sample's 27 x 27, so
 * 65,536 tiles run in ceil (65536 / 108) = 607 waves whatever the tile.
 * 128x128 (k_fix 192): 607 x 2 x 128 x 128 x (128 + 192) / rate_sm =
 * 2.413 ms, the price before the smaller tiles.  128x64, half the tile:
 * 607 x 2 x 128 x 64 x 320 / rate_sm = 1.206 ms.  64x64
 * (5 stages, k_fix 320): 607 x 2 x 64 x 64 x (128 + 320) FLOP-steps, at
 * most L2 / 108 x 2 x 64 x 64 / (128 x 2 bytes) = 2.139 TFLOP/s an SM
 * (under rate_sm 2.638): 1.041 ms, the fastest.  Its operands' memory time
 * (65536 x ((27 x 128 + 128 x 27) x 2 + 27 x 27 x 2) bytes, 0.546 ms) and
 * the MAMF floor (0.045 ms) are shorter. */
START_TEST (test_gemm_small_tiles_batched)
{
  const WlKernelDevice *a100 = wl_kernel_device ("A100-80GB");
  WlKernel k = tu_kernel ("gemm:m=27,n=27,k=128,batch=65536,dtype=fp16");
  double feed = A100_L2 / 108 * 2.0 * 64 * 64 / (128.0 * 2);
  ck_assert (feed < A100_RATE_SM);
  double want = 607.0 * 2 * 64 * 64 * (128 + 320) / feed * 1e9;
  ck_assert_msg (fabs (want - 1.0414e6) < 0.001e6, "by hand 1.041 ms, formula %.0f ns", want);
  assert_close (wl_kernel_ns (a100, &k), want);
  double large = 607.0 * 2 * 128 * 128 * (128 + 192) / A100_RATE_SM * 1e9;
  double mid = 607.0 * 2 * 128 * 64 * (128 + 192) / A100_RATE_SM * 1e9;
  ck_assert (large > 2.4e6 && mid > want);
  ck_assert (want > 65536.0 * ((27 * 128 + 128 * 27) * 2 + 27 * 27 * 2) / A100_MEM * 1e9);
  ck_assert_uint_eq (wl_kernel_gemm_split (a100, &k), 1);
  /* The H100 has no L2 figure and so no smaller tile: its price is the
   * 128x128 tile's, 497 waves of 2 x 128 x 128 x (128 + 256). */
  assert_close (kernel_ns ("gemm:m=27,n=27,k=128,batch=65536,dtype=fp16"),
                497.0 * 2 * 128 * 128 * (128 + 256) / H100_RATE_SM * 1e9);
}
END_TEST

/* Shapes whose price the smaller tiles leave alone: the A100's MAMF shape
 * takes exactly its measured time, and 1152 x 3072 x 1024 (9 x 12 = 108
 * tiles of 128x256, one full wave) one tile's 2 x 128 x 256 x (1024 + 192)
 * at rate_sm (30.2 us, over the MAMF floor's 26.7): 128x64 makes 432 tiles
 * in 4 full waves of a quarter the work (the same time), 64x64 more work
 * at a lower rate. */
START_TEST (test_gemm_small_tiles_unchanged)
{
  const WlKernelDevice *a100 = wl_kernel_device ("A100-80GB");
  WlKernel mamf = tu_kernel ("gemm:m=1024,n=10240,k=5120");
  assert_close (wl_kernel_ns (a100, &mamf), 2.0 * 1024 * 10240 * 5120 / 271.2e12 * 1e9);
  WlKernel wave = tu_kernel ("gemm:m=1152,n=3072,k=1024");
  double want = 2.0 * 128 * 256 * (1024 + 192) / A100_RATE_SM * 1e9;
  ck_assert (want > 2.0 * 1152 * 3072 * 1024 / 271.2e12 * 1e9);
  assert_close (wl_kernel_ns (a100, &wave), want);
}
END_TEST

/* The reduction's bytes: S fp32 partials of m x n written and read, the
 * output written in the output type (bf16 2 bytes, fp32 4, fp8 writes
 * bf16), times batch; none unsplit. */
START_TEST (test_gemm_split_bytes)
{
  WlKernel bf16 = tu_kernel ("gemm:m=128,n=256,k=65536");
  ck_assert (wl_kernel_splitk_bytes (&bf16, 22) == 22.0 * 128 * 256 * 4 * 2 + 128.0 * 256 * 2);
  ck_assert (wl_kernel_splitk_bytes (&bf16, 22) == 5832704.0);
  ck_assert (wl_kernel_splitk_bytes (&bf16, 1) == 0.0);
  WlKernel fp32 = tu_kernel ("gemm:m=512,n=13,k=65536,dtype=fp32,batch=3");
  ck_assert (wl_kernel_splitk_bytes (&fp32, 4) == 3 * (4.0 * 512 * 13 * 8 + 512.0 * 13 * 4));
  WlKernel fp8 = tu_kernel ("gemm:m=128,n=256,k=65536,dtype=fp8");
  ck_assert (wl_kernel_splitk_bytes (&fp8, 2) == 2.0 * 128 * 256 * 8 + 128.0 * 256 * 2);
}
END_TEST

/* FlashAttention b=1 hq=32 s=4096 d=128: forward 4 x 32 x 4096^2 x 128
 * FLOPs at 638 TFLOP/s; causal half of it at 579; backward 2.5 x at 542;
 * causal backward 2.5 x half at 542 x 579 / 638.  s = 3072, between 2k
 * and 4k, interpolates 625 -> 638 at log2 (3072 / 512) - 2. */
START_TEST (test_attention)
{
  double f = 4.0 * 32 * 4096.0 * 4096 * 128;
  const char *shape = "b=1,hq=32,sq=4096,d=128";
  g_autofree char *fwd = g_strdup_printf ("attn:dir=fwd,%s", shape);
  g_autofree char *fwdc = g_strdup_printf ("attn:dir=fwd,%s,causal=1", shape);
  g_autofree char *bwd = g_strdup_printf ("attn:dir=bwd,%s", shape);
  g_autofree char *bwdc = g_strdup_printf ("attn:dir=bwd,%s,causal=1", shape);
  assert_close (kernel_ns (fwd), f / 638e12 * 1e9);
  assert_close (kernel_ns (fwdc), f / 2 / 579e12 * 1e9);
  assert_close (kernel_ns (bwd), 2.5 * f / 542e12 * 1e9);
  assert_close (kernel_ns (bwdc), 2.5 * f / 2 / (542e12 * 579 / 638) * 1e9);
  double x = log2 (3072.0 / 512);
  double rate = (625 + (638 - 625) * (x - 2)) * 1e12;
  assert_close (kernel_ns ("attn:dir=fwd,b=1,hq=32,sq=3072,d=128"),
                4.0 * 32 * 3072.0 * 3072 * 128 / rate * 1e9);
  /* Beyond the table: held at its 16k value. */
  assert_close (kernel_ns ("attn:dir=fwd,b=1,hq=1,sq=65536,d=128"),
                4.0 * 65536.0 * 65536 * 128 / 648e12 * 1e9);
}
END_TEST

/* Head dimensions: 64 has its own rows (forward 476 at 4k); 256 has no
 * published backward: 542 x 736 / 638 (128's backward times 256's forward
 * over 128's); 96 lies at log2 (96 / 64) between 64 and 128. */
START_TEST (test_attention_head_dim)
{
  double f64 = 4.0 * 32 * 4096.0 * 4096 * 64;
  assert_close (kernel_ns ("attn:dir=fwd,b=1,hq=32,sq=4096,d=64"), f64 / 476e12 * 1e9);
  double f256 = 4.0 * 32 * 4096.0 * 4096 * 256;
  assert_close (kernel_ns ("attn:dir=bwd,b=1,hq=32,sq=4096,d=256"),
                2.5 * f256 / (542e12 * 736 / 638) * 1e9);
  double x = log2 (96.0 / 64);
  double rate = (476 + (638 - 476) * x) * 1e12;
  assert_close (kernel_ns ("attn:dir=fwd,b=1,hq=32,sq=4096,d=96"),
                4.0 * 32 * 4096.0 * 4096 * 96 / rate * 1e9);
  /* A100: FlashAttention-2's 73 % of 312 TFLOP/s at 16k, shaped by FA2's
   * H100 bars (362 at 2k over 370 at 16k). */
  const WlKernelDevice *a100 = wl_kernel_device ("A100-80GB");
  WlKernel k = tu_kernel ("attn:dir=fwd,b=1,hq=32,sq=2048,d=128");
  assert_close (wl_kernel_ns (a100, &k),
                4.0 * 32 * 2048.0 * 2048 * 128 / (0.73 * 312e12 * 362 / 370) * 1e9);
}
END_TEST

/* A memory-bound kernel: bytes at 90 % of the bandwidth; FLOPs at the fp32
 * (vector) peak when longer. */
START_TEST (test_mem)
{
  assert_close (kernel_ns ("mem:bytes=1000000000,what=adam"), 1e9 / H100_MEM * 1e9);
  assert_close (kernel_ns ("mem:bytes=1,what=softmax,flops=67000000000"), 67e9 / 67e12 * 1e9);
}
END_TEST

/* A list: count x (time + 0.9 us) summed; a kernel that moves nothing
 * costs its launch. */
START_TEST (test_list_and_launch)
{
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  ck_assert (wl_kernels_parse ("mem:bytes=0,what=add", list, NULL));
  assert_close (wl_kernel_list_ns (h100 (), NULL, list), LAUNCH_NS);
  g_array_set_size (list, 0);
  ck_assert (wl_kernels_parse ("gemm:m=1408,n=3072,k=4096,count=3;mem:bytes=1000000,what=gelu",
                               list, NULL));
  double gemm = 2.0 * 128 * 256 * (4096 + 256) / H100_RATE_SM * 1e9;
  double mem = 1e6 / H100_MEM * 1e9;
  assert_close (wl_kernel_list_ns (h100 (), NULL, list),
                3 * (gemm + LAUNCH_NS) + mem + LAUNCH_NS);
}
END_TEST

/* No kernel of any kind, size or device beats its FLOPs at peak or its
 * bytes at the full bandwidth; the H100 floor of one GEMM by hand.  A
 * type the device lacks runs as bf16, so its floor is that of the kernel
 * as run: a TF32 GEMV on an H100 (no TF32 rate in the presets) moves
 * 2-byte elements, half its 4-byte bytes, and took the floor of the 4-byte
 * kernel, above its own time (the model's assertion aborted orrery run on
 * DCNv2 traces made with gen dlrm --device A100-80GB --mlp-dtype tf32). */
START_TEST (test_physics)
{
  static const char *const shapes[] = {
    "gemm:m=65536,n=1,k=8192,dtype=tf32",
    "gemm:m=1,n=1,k=1",
    "gemm:m=16384,n=16384,k=16384",
    "gemm:m=2048,n=2048,k=13312",
    "gemm:m=8192,n=8192,k=8192,dtype=fp8",
    "gemm:m=4096,n=4096,k=64,batch=96",
    "gemm:m=512,n=512,k=512,dtype=fp32",
    "attn:dir=fwd,b=8,hq=64,sq=16384,d=128",
    "attn:dir=bwd,b=1,hq=8,sq=128,d=64,causal=1",
    "attn:dir=fwd,b=4,hq=32,hkv=4,sq=2048,skv=8192,d=128,dtype=fp8",
    "mem:bytes=123456789,what=rope",
    "mem:bytes=1,flops=1000000000000",
  };
  static const char *const devices[] = { "A100-80GB", "H100-SXM", "H200", "B200", "MI300X" };
  for (guint d = 0; d < G_N_ELEMENTS (devices); d++)
    for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
      {
        const WlKernelDevice *dev = wl_kernel_device (devices[d]);
        ck_assert_ptr_nonnull (dev);
        WlKernel k = tu_kernel (shapes[i]);
        double ns = wl_kernel_ns (dev, &k);
        ck_assert_msg (ns >= wl_kernel_bound_ns (dev, &k), "%s on %s: %g < %g", shapes[i],
                       devices[d], ns, wl_kernel_bound_ns (dev, &k));
      }
  WlKernel k = tu_kernel ("gemm:m=16384,n=16384,k=16384");
  assert_close (wl_kernel_bound_ns (h100 (), &k), 2.0 * 16384 * 16384 * 16384 / H100_BF16 * 1e9);
  /* The floor itself: the GEMM runs slower than the peak. */
  ck_assert (wl_kernel_ns (h100 (), &k) > wl_kernel_bound_ns (h100 (), &k));
}
END_TEST

/* A list is parsed once per distinct text, numbered from 1, and priced once
 * per device and table. */
START_TEST (test_lists)
{
  WlKernelLists *l = wl_kernel_lists_new ();
  guint32 a = 0, b = 0, c = 0;
  ck_assert (wl_kernel_lists_intern (l, "mem:bytes=1000000,what=add", &a, NULL));
  ck_assert (wl_kernel_lists_intern (l, "mem:bytes=2000000,what=add", &b, NULL));
  ck_assert (wl_kernel_lists_intern (l, "mem:bytes=1000000,what=add", &c, NULL));
  ck_assert_uint_eq (a, 1);
  ck_assert_uint_eq (b, 2);
  ck_assert_uint_eq (c, 1);
  GError *error = NULL;
  ck_assert (!wl_kernel_lists_intern (l, "mem:what=add", &c, &error));
  assert_error (error, "'mem' needs bytes");
  g_error_free (error);
  assert_close (wl_kernel_lists_ns (l, 2, h100 (), NULL), 2e6 / H100_MEM * 1e9 + LAUNCH_NS);
  const WlKernelDevice *a100 = wl_kernel_device ("A100-80GB");
  assert_close (wl_kernel_lists_ns (l, 2, a100, NULL), 2e6 / (2.039e12 * 0.9) * 1e9 + LAUNCH_NS);
  WlKernelLists *other = wl_kernel_lists_new ();
  ck_assert (!wl_kernel_lists_equal (l, other));
  ck_assert (wl_kernel_lists_intern (other, "mem:bytes=1000000,what=add", &a, NULL));
  ck_assert (wl_kernel_lists_intern (other, "mem:bytes=2000000,what=add", &b, NULL));
  ck_assert (wl_kernel_lists_equal (l, other));
  wl_kernel_lists_free (other);
  wl_kernel_lists_free (l);
}
END_TEST

/* Texts met again between others that share their length, first, middle
 * and last bytes (the slot loading remembers them by), and a text that is
 * the start of another: each its own number, by first appearance (hand-
 * numbered), however often and in whatever order they come. */
START_TEST (test_lists_recent)
{
  WlKernelLists *l = wl_kernel_lists_new ();
  static const char *const texts[] = { "mem:bytes=1000000,what=add", "mem:bytes=2000000,what=add",
                                       "mem:bytes=3000000,what=add" };
  for (guint round = 0; round < 3; round++)
    for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
      {
        guint k = (i + round) % G_N_ELEMENTS (texts);
        guint32 got = 0;
        ck_assert (wl_kernel_lists_intern (l, texts[k], &got, NULL));
        /* First appearances: round 0 numbers them 1, 2, 3 in order. */
        ck_assert_uint_eq (got, k + 1);
      }
  static const char buf[] = "mem:bytes=640";
  guint32 a = 0, b = 0;
  for (guint round = 0; round < 2; round++)
    {
      ck_assert (wl_kernel_lists_intern_len (l, buf, 12, &a, NULL)); /* mem:bytes=64 */
      ck_assert (wl_kernel_lists_intern_len (l, buf, 13, &b, NULL));
      ck_assert_uint_eq (a, 4);
      ck_assert_uint_eq (b, 5);
    }
  wl_kernel_lists_free (l);
}
END_TEST

static char *
write_table (const char *rows)
{
  g_autofree char *text = g_strdup_printf ("operator,shapes,dtype,device,time\n%s", rows);
  return tu_write_file ("measured.csv", text);
}

/* The table in the file PATH, read whole (the program reads it bounded,
 * sim/app/config.c). */
static WlKernelTable *
load_table (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &text, &len, NULL));
  return wl_kernel_table_parse (path, text, len, error);
}

/* A measured row overrides the model for that kernel only (launch overhead
 * still added); shapes match after defaults. */
START_TEST (test_table_override)
{
  g_autofree char *path = write_table ("# measured on one H100\n"
                                       "gemm,m=1408 n=3072 k=4096,bf16,H100-SXM,812us\n"
                                       "\n"
                                       "attn,dir=fwd b=1 hq=32 sq=4096 d=128 causal=1,bf16,h100-sxm,"
                                       "0.5ms\n");
  GError *error = NULL;
  WlKernelTable *t = load_table (path, &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "");
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  ck_assert (wl_kernels_parse ("gemm:m=1408,n=3072,k=4096,batch=1,count=2;"
                               "attn:dir=fwd,b=1,hq=32,hkv=32,sq=4096,d=128,causal=1;"
                               "gemm:m=1408,n=3072,k=4096,dtype=fp8",
                               list, NULL));
  WlKernel fp8 = g_array_index (list, WlKernel, 2);
  double model_fp8 = wl_kernel_ns (h100 (), &fp8);
  assert_close (wl_kernel_list_ns (h100 (), t, list),
                2 * (812e3 + LAUNCH_NS) + 500e3 + LAUNCH_NS + model_fp8 + LAUNCH_NS);
  /* Another device: the model. */
  const WlKernelDevice *h200 = wl_kernel_device ("H200");
  ck_assert (wl_kernel_table_ns (t, "H200", &g_array_index (list, WlKernel, 0)) < 0);
  ck_assert (wl_kernel_table_ns (t, h200->name, &fp8) < 0);
  wl_kernel_table_free (t);
}
END_TEST

static void
table_fails (const char *text, const char *needle)
{
  g_autofree char *path = tu_write_file ("bad.csv", text);
  GError *error = NULL;
  ck_assert_ptr_null (load_table (path, &error));
  assert_error (error, "bad.csv:");
  assert_error (error, needle);
  g_error_free (error);
}

START_TEST (test_table_errors)
{
  /* A NUL byte (line 2) would hide the rows after it. */
  static const char nul[] = "operator,shapes,dtype,device,time\ngemm,m=1 n=1 k=1,bf16,H100-SXM,1ms"
                            "\0\ngemm,m=2 n=2 k=2,bf16,H100-SXM,1ms\n";
  GError *nul_error = NULL;
  ck_assert_ptr_null (wl_kernel_table_parse ("t.csv", nul, sizeof nul - 1, &nul_error));
  assert_error (nul_error, "t.csv:2: a NUL byte");
  g_error_free (nul_error);
  const char *h = "operator,shapes,dtype,device,time\n";
  table_fails ("op,shape,dtype,device,time\n", "bad.csv:1: kernels: the first line must be");
  g_autofree char *a = g_strconcat (h, "gemm,m=1 n=2,bf16,H100-SXM,1us\n", NULL);
  table_fails (a, "bad.csv:2: kernels: 'gemm' needs k");
  g_autofree char *b = g_strconcat (h, "\ngemm,m=1 n=2 k=3,bf16,V100,1us\n", NULL);
  table_fails (b, "bad.csv:3: kernels: device 'V100' is not a preset");
  g_autofree char *c = g_strconcat (h, "gemm,m=1 n=2 k=3,bf16,H100-SXM,12\n", NULL);
  table_fails (c, "bad.csv:2: kernels: time '12' is not a positive number with a unit");
  /* Decimal only, as every time in a config (C's hex floats are not). */
  g_autofree char *c2 = g_strconcat (h, "gemm,m=1 n=2 k=3,bf16,H100-SXM,0x1p10us\n", NULL);
  table_fails (c2, "bad.csv:2: kernels: time '0x1p10us' is not a positive number");
  g_autofree char *d = g_strconcat (h, "gemm,m=1 n=2 k=3,bf16,H100-SXM\n", NULL);
  table_fails (d, "bad.csv:2: kernels: a row has 5 columns");
  /* 2 x 16384^3 FLOPs take 8.9 ms at the bf16 peak: 1 ms is impossible. */
  g_autofree char *e = g_strconcat (h, "gemm,m=16384 n=16384 k=16384,bf16,H100-SXM,1ms\n", NULL);
  table_fails (e, "is faster than H100-SXM's peak and bandwidth allow");
  g_autofree char *f = g_strconcat (h, "mem,bytes=8 what=add,bf16,B200,1us\n",
                                    "mem,bytes=8 what=add,bf16,b200,2us\n", NULL);
  table_fails (f, "bad.csv:3: kernels: this kernel is in the table already");
  g_autofree char *g = g_strconcat (h, "gemm,m=1 n=2 k=3 dtype=fp8,bf16,H100-SXM,1us\n", NULL);
  table_fails (g, "dtype and count are columns of their own");
  g_autofree char *i = g_strconcat (h, "gemm,m=1 n=2 k=3,bf8,H100-SXM,1us\n", NULL);
  table_fails (i, "dtype 'bf8' is not one of");
}
END_TEST

/* What spreadsheets write: a UTF-8 byte-order mark before the header
 * (Excel's "CSV UTF-8") and shapes spaced by several blanks or a tab are
 * the same table. */
START_TEST (test_table_bom_and_blanks)
{
  g_autofree char *path = tu_write_file ("bom.csv", "\xef\xbb\xbfoperator,shapes,dtype,device,time\r\n"
                                         "gemm,m=1408  n=3072\tk=4096 ,bf16,H100-SXM,812us\r\n");
  GError *error = NULL;
  WlKernelTable *t = load_table (path, &error);
  ck_assert_msg (t != NULL, "%s", error ? error->message : "");
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  ck_assert (wl_kernels_parse ("gemm:m=1408,n=3072,k=4096", list, NULL));
  assert_close (wl_kernel_table_ns (t, "H100-SXM", &g_array_index (list, WlKernel, 0)), 812e3);
  wl_kernel_table_free (t);
  /* A mark anywhere but the file's start is still an error. */
  table_fails ("operator,shapes,dtype,device,time\n\xef\xbb\xbfgemm,m=1 n=2 k=3,bf16,H100-SXM,1us\n",
               "bad.csv:2: kernels:");
}
END_TEST

/* A floor below a nanosecond is printed with digits that show it: a 1x1x1
 * bf16 GEMM on an H200 moves 6 bytes, 1.25 ps at 4.8 TB/s, so 1 ps is
 * refused as "1 ps < 1.25 ps", not "0.0 ns < 0.0 ns". */
START_TEST (test_table_floor_message)
{
  table_fails ("operator,shapes,dtype,device,time\ngemm,m=1 n=1 k=1,bf16,H200,1ps\n",
               "(0.001 ns) is faster than H200's peak and bandwidth allow (0.00125 ns)");
}
END_TEST

/* ---- the config, the replay and the binary ------------------------------------ */

static char *
write_cluster (const char *compute)
{
  g_autofree char *text = g_strdup_printf (
      "<cluster>\n"
      "<network><dim kind=\"Ring\" size=\"4\" bandwidth=\"1GB/s\" latency=\"100ns\"/></network>\n"
      "%s\n</cluster>\n",
      compute);
  return tu_write_file ("cluster.xml", text);
}

/* Rank r's trace: node 1 with KERNELS (and 1 us traced), node 2 a roofline
 * node of 2e12 FLOPs, node 3 a traced 5 us node; a chain. */
static void
write_workload (const char *kernels)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *n[3] = { tu_node_new (1, T_COMP, "k"), tu_node_new (2, T_COMP, "r"),
                                     tu_comp (3, 5) };
      n[0]->duration_micros = 1;
      tu_node_attr_string (n[0], "kernels", kernels);
      tu_node_attr_int (n[0], "num_ops", 1000);
      tu_node_attr_int (n[1], "num_ops", 2000000000000);
      tu_node_dep (n[1], 1);
      tu_node_dep (n[2], 2);
      tu_write_rank (prefix, r, n, 3); /* frees the nodes */
    }
}

static SimTime
finish (const char *compute, GError **error)
{
  g_autofree char *path = write_cluster (compute);
  AppConfig cfg;
  app_config_init (&cfg);
  SimTime t = 0;
  if (app_config_load_xml (&cfg, path, error))
    {
      g_autofree char *prefix = tu_scratch_path ("wl");
      AppSim *sim = tu_sim_all_modes (&(TuSimRequest) { .cfg = &cfg, .prefix = prefix }, error);
      if (sim != NULL)
        t = wl_replay_rank_stats (app_sim_replay (sim), 0)->finish;
      app_sim_free (sim);
    }
  app_config_clear (&cfg);
  return t;
}

static void
assert_ps (SimTime got, double ns)
{
  ck_assert_msg (fabs ((double) got - ceil (ns * 1000)) <= 3, "got %" G_GUINT64_FORMAT
                 " ps, want %.0f", got, ceil (ns * 1000));
}

/* Node 1 by its kernels, node 2 by the roofline at the H100's bf16 peak,
 * node 3 by its trace; in every replay mode (memory, every rank,
 * streamed).  Without model="kernel" the attribute changes nothing. */
START_TEST (test_config_kernel_model)
{
  write_workload ("gemm:m=1408,n=3072,k=4096,count=2;mem:bytes=1000000,what=add");
  double gemm = 2.0 * 128 * 256 * (4096 + 256) / H100_RATE_SM * 1e9;
  double node1 = 2 * (gemm + LAUNCH_NS) + 1e6 / H100_MEM * 1e9 + LAUNCH_NS;
  double node2 = 2e12 / H100_BF16 * 1e9;
  GError *error = NULL;
  SimTime t = finish ("<compute model=\"kernel\" device=\"H100-SXM\"/>", &error);
  g_assert_no_error (error);
  /* Each node rounds up to a whole ps on its own. */
  ck_assert_msg (fabs ((double) t - (ceil (node1 * 1000) + ceil (node2 * 1000) + 5e6)) <= 3,
                 "got %" G_GUINT64_FORMAT, t);
  /* Roofline: node 1's num_ops (1000 FLOPs). */
  t = finish ("<compute model=\"roofline\" device=\"H100-SXM\"/>", &error);
  g_assert_no_error (error);
  assert_ps (t - 5000000 - (SimTime) ceil (node2 * 1000), 1000 / H100_BF16 * 1e9);
  /* Replay: the trace's durations, 1 + 0 + 5 us. */
  t = finish ("<compute/>", &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (t, sim_time_from_us (6));
  /* A measured table beside the config overrides the GEMM. */
  g_autofree char *csv = tu_write_file ("k.csv", "operator,shapes,dtype,device,time\n"
                                                 "gemm,m=1408 n=3072 k=4096,bf16,H100-SXM,100us\n");
  t = finish ("<compute model=\"kernel\" device=\"H100-SXM\" kernel-table=\"k.csv\"/>", &error);
  g_assert_no_error (error);
  double node1m = 2 * (100e3 + LAUNCH_NS) + 1e6 / H100_MEM * 1e9 + LAUNCH_NS;
  ck_assert_msg (fabs ((double) t - (ceil (node1m * 1000) + ceil (node2 * 1000) + 5e6)) <= 3,
                 "got %" G_GUINT64_FORMAT, t);
}
END_TEST

static void
config_fails (const char *compute, const char *needle)
{
  GError *error = NULL;
  finish (compute, &error);
  ck_assert_ptr_nonnull (error);
  assert_error (error, needle);
  g_error_free (error);
}

START_TEST (test_config_errors)
{
  write_workload ("mem:bytes=1,what=add");
  config_fails ("<compute model=\"kernel\"/>", "model 'kernel' needs device");
  config_fails ("<compute model=\"kernel\" device=\"X1\"><device name=\"X1\" bf16=\"1TFLOP/s\" "
                "mem-bw=\"1TB/s\"/></compute>",
                "model 'kernel' has kernel tables for the presets");
  config_fails ("<compute model=\"roofline\" device=\"H100-SXM\" kernel-table=\"k.csv\"/>",
                "kernel-table applies only to model 'kernel'");
  g_free (tu_write_file ("bad.csv", "operator,shapes,dtype,device,time\ngemm,m=1,bf16,H100-SXM,1us\n"));
  config_fails ("<compute model=\"kernel\" device=\"H100-SXM\" kernel-table=\"bad.csv\"/>",
                "bad.csv:2: kernels:");
  /* An empty table, or one without a row for the device: silently nothing. */
  g_free (tu_write_file ("e.csv", ""));
  config_fails ("<compute model=\"kernel\" device=\"H100-SXM\" kernel-table=\"e.csv\"/>",
                "e.csv: empty: a kernel table's first line is the header");
  g_free (tu_write_file ("a.csv", "operator,shapes,dtype,device,time\n"
                                  "gemm,m=1 n=1 k=1,bf16,A100-80GB,1us\n"));
  config_fails ("<compute model=\"kernel\" device=\"H100-SXM\" kernel-table=\"a.csv\"/>",
                "a.csv has no row for the device H100-SXM (its rows are for A100-80GB)");
  /* Read bounded as every config file: a device never ends. */
  config_fails ("<compute model=\"kernel\" device=\"H100-SXM\" kernel-table=\"/dev/zero\"/>",
                "/dev/zero: longer than 256 MiB");
  /* A bad attribute names the file and the node, in every mode. */
  write_workload ("gemm:m=1,n=2");
  config_fails ("<compute model=\"kernel\" device=\"H100-SXM\"/>",
                "wl.0.et: node 1: kernels: 'gemm' needs k");
}
END_TEST

/* The binary, in every mode (tu_run_modes): the report's simulated time is
 * the kernel model's. */
START_TEST (test_binary)
{
  write_workload ("mem:bytes=3015000000,what=copy");
  g_autofree char *cfg = write_cluster ("<compute model=\"kernel\" device=\"H100-SXM\"/>");
  g_autofree char *wl = tu_scratch_path ("wl");
  g_autofree char *report = tu_scratch_path ("r.json");
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, "--report",
                         report, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run_modes (&out, argv), 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  ck_assert (json_parser_load_from_file (parser, report, NULL));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  /* 3.015 GB at 3.015 TB/s: 1 ms, + 0.9 us launch; the roofline node, 5 us. */
  double node2 = ceil (2e12 / H100_BF16 * 1e12);
  double want = 1000900000 + node2 + 5000000;
  double got = (double) json_object_get_int_member (root, "simulated_time_ps");
  ck_assert_msg (fabs (got - want) <= 2, "got %.0f ps, want %.0f", got, want);
}
END_TEST

/* A sweep writes each point's config.xml in its own directory: a relative
 * kernel-table (here also a parameter) is written absolute, beside the
 * base config, so that the point's config loads. */
START_TEST (test_sweep_paths)
{
  g_free (write_cluster (
      "<compute model=\"kernel\" device=\"H100-SXM\" kernel-table=\"k.csv\"/>"));
  const char *rows = "operator,shapes,dtype,device,time\ngemm,m=1 n=1 k=1,bf16,H100-SXM,1us\n";
  g_free (tu_write_file ("k.csv", rows));
  g_free (tu_write_file ("k2.csv", rows));
  g_autofree char *spec = tu_write_file (
      "spec.xml", "<sweep>\n  <config path=\"cluster.xml\"/>\n  <workload prefix=\"wl\"/>\n"
                  "  <grid><param name=\"t\" select=\"/cluster/compute/@kernel-table\" "
                  "values=\"k.csv k2.csv\"/></grid>\n</sweep>\n");
  g_autofree char *out = tu_scratch_path ("out");
  const char *argv[] = { tu_orrery (), "sweep", "expand", spec, out, NULL };
  g_autofree char *output = NULL;
  ck_assert_msg (tu_run (&output, argv) == 0, "%s", output);
  static const char *const want[] = { "k.csv", "k2.csv" };
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *cfg
          = g_build_filename (out, "points", i == 0 ? "0" : "1", "config.xml", NULL);
      g_autofree char *text = NULL;
      ck_assert_msg (g_file_get_contents (cfg, &text, NULL, NULL), "no %s", cfg);
      g_autofree char *table = tu_scratch_path (want[i]);
      g_autofree char *attr = g_strdup_printf ("kernel-table=\"%s\"", table);
      ck_assert_msg (strstr (text, attr) != NULL, "%s not in %s", attr, text);
      AppConfig c;
      app_config_init (&c);
      GError *error = NULL;
      ck_assert_msg (app_config_load_xml (&c, cfg, &error), "%s", error->message);
      ck_assert_ptr_nonnull (c.kernel_table);
      app_config_clear (&c);
    }
}
END_TEST

static Suite *
kernels_suite (void)
{
  Suite *s = suite_create ("kernels");
  TCase *tc = tu_tcase (s, "kernels", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_parse);
  tcase_add_test (tc, test_matrix_flops);
  tcase_add_test (tc, test_parse_errors);
  tcase_add_test (tc, test_gemm_full_wave);
  tcase_add_test (tc, test_gemm_wave_quantization);
  tcase_add_test (tc, test_gemm_memory_bound);
  tcase_add_test (tc, test_gemm_split_k);
  tcase_add_test (tc, test_gemm_split_none);
  tcase_add_test (tc, test_gemm_split_bytes);
  tcase_add_test (tc, test_gemm_small_tiles_batched);
  tcase_add_test (tc, test_gemm_small_tiles_unchanged);
  tcase_add_test (tc, test_attention);
  tcase_add_test (tc, test_attention_head_dim);
  tcase_add_test (tc, test_mem);
  tcase_add_test (tc, test_list_and_launch);
  tcase_add_test (tc, test_physics);
  tcase_add_test (tc, test_lists);
  tcase_add_test (tc, test_lists_recent);
  tcase_add_test (tc, test_table_override);
  tcase_add_test (tc, test_table_errors);
  tcase_add_test (tc, test_table_bom_and_blanks);
  tcase_add_test (tc, test_table_floor_message);
  tcase_add_test (tc, test_config_kernel_model);
  tcase_add_test (tc, test_config_errors);
  tcase_add_test (tc, test_binary);
  tcase_add_test (tc, test_sweep_paths);
  return s;
}

int
main (void)
{
  return tu_run_suite (kernels_suite ());
}
