/* kernel_model.c: kernel times from their shapes (see kernel_model.h).
 * Every constant's source is beside it and in configs/devices/README.md. */
#include "workload/kernel_model.h"

#include <math.h>

#define T 1e12 /* TFLOP/s */

/* FlashAttention-3 paper (Shah et al., arXiv 2407.08608v2), H100 80GB SXM5,
 * bf16, FlashAttention-3 bars, TFLOP/s at 512 .. 16k for head dimensions
 * 64, 128, 256: Figure 5 (forward, without and with causal mask) and
 * Figure 6 (backward, without mask; head dimensions 64 and 128 only). */
static const WlFaTable fa_h100 = {
  .fwd = { { 333, 392, 460, 476, 496, 497 },
           { 467, 565, 625, 638, 646, 648 },
           { 482, 627, 707, 736, 746, 756 } },
  .fwd_causal = { { 197, 265, 371, 420, 460, 473 },
                  { 292, 423, 521, 579, 602, 616 },
                  { 286, 427, 537, 612, 628, 642 } },
  .bwd = { { 272, 363, 422, 453, 472, 474 }, { 316, 424, 501, 542, 559, 561 } },
  .fwd_scale = 1.0,
  .bwd_scale = 1.0,
};

/* A100: the FlashAttention-2 paper (Dao, arXiv 2307.08691) gives its A100
 * maxima in words: the forward reaches 73 % and the backward 63 % of the
 * 312 TFLOP/s peak.  Its per-length bars are not transcribed here; the
 * head dimension, length and mask dependence is FlashAttention-2's own as
 * measured on H100 in the FlashAttention-3 paper (Figures 5 and 6,
 * FlashAttention-2 bars), scaled so that head dimension 128 at 16k is the
 * A100 maximum (FA2 on H100 there: forward 370, backward 322). */
static const WlFaTable fa_a100 = {
  .fwd = { { 282, 306, 318, 321, 322, 324 },
           { 309, 350, 362, 368, 370, 370 },
           { 275, 313, 321, 323, 324, 326 } },
  .fwd_causal = { { 180, 229, 262, 284, 295, 299 },
                  { 191, 260, 298, 319, 333, 335 },
                  { 208, 251, 278, 293, 297, 298 } },
  .bwd = { { 198, 238, 264, 279, 287, 291 }, { 214, 260, 291, 310, 318, 322 } },
  .fwd_scale = 0.73 * 312 / 370,
  .bwd_scale = 0.63 * 312 / 322,
};

/* Maximum achievable matmul FLOP/s (MAMF) and the shape it was measured at:
 * stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable
 * Matmul FLOPS comparison table" (BF16 and FP8 tables, mean of 100
 * iterations).  The H100 bf16 row notes "H200 is the same".  A burst
 * figure, as the B200's and MI300X's below are: it scales the H100's
 * FlashAttention table onto those two, burst against burst. */
#define H100_MAMF 794.5
/* What a GH100 sustains at its 700 W power limit, measured on an H200 SXM
 * lent to this project (2026-12-04; configs/devices/README.md, "Measured on
 * an H200"): the mean of 10 s of back-to-back products at the MAMF shapes
 * (bf16 2048 x 2048 x 13312, fp8 1280 x 4096 x 12032), TFLOP/s.  The H100
 * SXM and the H200 are one die (GH100, 132 SMs enabled) at one power
 * limit.  MAMF's figures (794.5 bf16 and 1402.6 / 1453.4 fp8, a
 * best-of-search on another machine and stack) are 13 % and 18 % higher:
 * partly the clock, which falls to 1,365-1,635 MHz (from 1,980) within a
 * second at the limit (the H200's first windows at 8192^3 ran 5 % above
 * its sustained rate), partly that machine and stack.  A training step
 * runs at the limit. */
#define GH100_SUSTAINED_BF16 700.9
#define GH100_SUSTAINED_FP8 1227.2
/* The GH100 parts' rates and calibration shapes (above). */
#define GH100_RATES { BF16 (GH100_SUSTAINED_BF16 * T), [WL_DTYPE_FP8] = GH100_SUSTAINED_FP8 * T }, \
    { [WL_DTYPE_BF16] = { 2048, 2048, 13312 }, [WL_DTYPE_FP16] = { 2048, 2048, 13312 }, \
      [WL_DTYPE_FP8] = { 1280, 4096, 12032 } }
#define BF16(x) [WL_DTYPE_BF16] = (x), [WL_DTYPE_FP16] = (x)

/* Output tiles.  NVIDIA: CUTLASS's default tensor-op threadblock tile for
 * bf16 on SM80 is 128x256x64 with 3 stages (cutlass/gemm/device/
 * default_gemm_configuration.h), cuBLAS ships both orientations and
 * 128x128 tiles; SM90/SM100 kernels use the same 128x256 and 128x128 tiles
 * (CUTLASS's hopper/blackwell GEMM examples).  AMD: hipBLASLt's MI300
 * kernels use 256x256, 256x128 and 128x128 macro tiles. */
#define NV_TILES 3, 0, { { 128, 256, 0 }, { 256, 128, 0 }, { 128, 128, 0 } }

/* The A100's large tiles and, for small shapes, CUTLASS's smaller SM80
 * f16/bf16 tensor-op threadblock tiles (python/cutlass_library/
 * generator.py, GenerateSM80_TensorOp_16816: 128x64x64 and 64x128x64 with
 * 3 stages, 64x64x64 with 5; its smallest tile is 64x64).  k_fix as above:
 * (stages - 1) x 64 + 64, 192 for the 3-stage tiles, 320 for 64x64x64. */
#define A100_TILES 3, 3, { { 128, 256, 0 }, { 256, 128, 0 }, { 128, 128, 0 }, \
                           { 128, 64, 0 }, { 64, 128, 0 }, { 64, 64, 320 } }

/* A100 L2 read bandwidth: 5120 bytes a clock (NVIDIA A100 Tensor Core GPU
 * Architecture whitepaper, 2020: "2.3x the L2 cache read bandwidth of
 * V100", whose L2 reads 2048 bytes a clock, at 1410 against 1530 MHz;
 * the whitepaper's V100/A100 table lists 2048 and 5120 bytes/clk) at the
 * 1410 MHz boost clock: 7.22 TB/s.  Other devices: no NVIDIA or AMD
 * figure was found, so they are offered no smaller tile. */
#define A100_L2_BPS (5120.0 * 1410e6)

/* k_fix: a tile's pipeline prologue (stages - 1 k-blocks loaded before the
 * first MMA) plus its epilogue (about one k-block), in k-steps.  SM80: 3
 * stages of 64 -> 2 x 64 + 64 = 192.  SM90/SM100: 4 stages of 64 (bf16) or
 * 128 (fp8) fit the shared memory of a 128x256 tile -> 3 x 64 + 64 = 256 and
 * 3 x 128 + 128 = 512.  MI300X: 2 LDS buffers of 64 -> 64 + 64 = 128 (256
 * for fp8's 128-deep blocks). */
#define KFIX(x, f8) { [WL_DTYPE_FP32] = (x), [WL_DTYPE_BF16] = (x), [WL_DTYPE_FP16] = (x), \
                      [WL_DTYPE_FP8] = (f8), [WL_DTYPE_TF32] = (x) }

/* Achieved HBM fraction: an estimate (the fractions STREAM-class triads are
 * commonly reported to sustain); no citable public measurement was found,
 * configs/devices/README.md says so. */
#define NV_MEM 0.90
#define AMD_MEM 0.81

/* Launch overhead: NVIDIA's "Getting Started with CUDA Graphs" (developer
 * blog, 2019, a V100): a 2.9 us kernel launched back to back in one
 * stream takes 3.8 us per kernel (one sync per 20 kernels): at most 0.9 us
 * of GPU-side gap.  No A100/H100/MI300X figure was found. */
#define LAUNCH_NS 900.0

static const WlKernelDevice devices[] = {
  { "A100-80GB", 108, A100_TILES, KFIX (192, 192), { BF16 (271.2 * T) },
    { [WL_DTYPE_BF16] = { 1024, 10240, 5120 }, [WL_DTYPE_FP16] = { 1024, 10240, 5120 } },
    NV_MEM, LAUNCH_NS, &fa_a100, 1.0, A100_L2_BPS },
  /* H100 SXM and H200: GH100 at 700 W, at the rates it sustains there
   * (above; MAMF's burst figures for the H100 were 794.5 bf16 and 1402.6
   * fp8).  The H200 differs only in its HBM (workload/compute.c). */
  { "H100-SXM", 132, NV_TILES, KFIX (256, 512), GH100_RATES,
    NV_MEM, LAUNCH_NS, &fa_h100, 1.0, 0.0 },
  { "H200", 132, NV_TILES, KFIX (256, 512), GH100_RATES,
    NV_MEM, LAUNCH_NS, &fa_h100, 1.0, 0.0 },
  /* B200: 148 SMs (NVIDIA Blackwell architecture technical brief); no
   * FlashAttention table: the H100's scaled by the MAMF ratio. */
  { "B200", 148, NV_TILES, KFIX (256, 512), { BF16 (1745.0 * T), [WL_DTYPE_FP8] = 3432.5 * T },
    { [WL_DTYPE_BF16] = { 1792, 16128, 3072 }, [WL_DTYPE_FP16] = { 1792, 16128, 3072 },
      [WL_DTYPE_FP8] = { 15360, 4096, 3072 } },
    NV_MEM, LAUNCH_NS, &fa_h100, 1745.0 / H100_MAMF, 0.0 },
  /* MI300X: 304 CUs (AMD CDNA 3 white paper); bf16 MAMF 668.4 (the table's
   * row with PyTorch TunableOp); fp8 not measured there. */
  { "MI300X", 304, 3, 0, { { 256, 256, 0 }, { 256, 128, 0 }, { 128, 128, 0 } }, KFIX (128, 256),
    { BF16 (668.4 * T) },
    { [WL_DTYPE_BF16] = { 10240, 15360, 8192 }, [WL_DTYPE_FP16] = { 10240, 15360, 8192 } },
    AMD_MEM, LAUNCH_NS, &fa_h100, 668.4 / H100_MAMF, 0.0 },
};

const WlKernelDevice *
wl_kernel_device (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    if (g_ascii_strcasecmp (name, devices[i].name) == 0)
      return &devices[i];
  return NULL;
}

char *
wl_kernel_device_names (void)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (devices); i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", devices[i].name);
  return g_string_free (s, FALSE);
}

static double
dtype_bytes (WlDtype t)
{
  return t == WL_DTYPE_FP32 || t == WL_DTYPE_TF32 ? 4.0 : t == WL_DTYPE_FP8 ? 1.0 : 2.0;
}

double
wl_kernel_flops (const WlKernel *k)
{
  switch ((WlKernelOp) k->op)
    {
    case WL_KERNEL_GEMM:
      return 2.0 * (double) k->m * (double) k->n * (double) k->k * (double) k->batch;
    case WL_KERNEL_ATTN:
      {
        double fwd = 4.0 * (double) k->b * (double) k->hq * (double) k->sq * (double) k->skv
                     * (double) k->d * (k->causal ? 0.5 : 1.0);
        return k->bwd ? 2.5 * fwd : fwd;
      }
    case WL_KERNEL_MEM:
    case WL_KERNEL_N:
    default:
      return (double) k->flops;
    }
}

double
wl_kernel_bytes (const WlKernel *k)
{
  double e = dtype_bytes ((WlDtype) k->dtype);
  switch ((WlKernelOp) k->op)
    {
    case WL_KERNEL_GEMM:
      {
        /* fp8 GEMMs write bf16 (Transformer Engine); others their input type. */
        double out = k->dtype == WL_DTYPE_FP8 ? 2.0 : e;
        double m = (double) k->m, n = (double) k->n, kk = (double) k->k;
        return ((m * kk + kk * n) * e + m * n * out) * (double) k->batch;
      }
    case WL_KERNEL_ATTN:
      {
        /* Forward: Q, K, V read, O written.  Backward: Q, O, dO read and dQ
         * written; K, V read and dK, dV written. */
        double q = (double) k->b * (double) k->hq * (double) k->sq * (double) k->d;
        double kv = (double) k->b * (double) k->hkv * (double) k->skv * (double) k->d;
        return (k->bwd ? 4.0 * q + 4.0 * kv : 2.0 * q + 2.0 * kv) * e;
      }
    case WL_KERNEL_MEM:
    case WL_KERNEL_N:
    default:
      return (double) k->bytes;
    }
}

/* The device's peak for dtype, or (a type it lacks: A100 fp8) none. */
static double
peak_of (const WlDevice *hw, WlDtype t)
{
  return hw->peak_flops[t];
}

/* A type the device lacks runs as bf16 (Transformer Engine on A100). */
static WlDtype
usable_dtype (const WlDevice *hw, WlDtype t)
{
  return peak_of (hw, t) > 0 ? t : WL_DTYPE_BF16;
}

/* Large-GEMM achievable FLOP/s for dtype: measured, else bf16's fraction of
 * peak applied to this type's peak. */
static double
achievable (const WlKernelDevice *dev, const WlDevice *hw, WlDtype t)
{
  if (dev->mamf[t] > 0)
    return dev->mamf[t];
  return dev->mamf[WL_DTYPE_BF16] / peak_of (hw, WL_DTYPE_BF16) * peak_of (hw, t);
}

/* Tile I's prologue + epilogue in k-steps: its own, else the device's. */
static double
tile_kfix (const WlKernelDevice *dev, WlDtype t, guint i)
{
  return dev->tiles[i].k_fix > 0 ? dev->tiles[i].k_fix : dev->k_fix[t];
}

/* Tile-steps of a GEMM on tile I with its k split S ways: waves of the
 * tiles x S units over the SMS SMs it has, each 2 tm tn (ceil (k / S) +
 * k_fix); its time at one FLOP/s per SM. */
static double
tile_units (const WlKernelDevice *dev, WlDtype t, guint i, const double mnk[3], double batch,
            double s, double sms)
{
  double tm = dev->tiles[i].m, tn = dev->tiles[i].n, k = mnk[2];
  double waves = ceil (ceil (mnk[0] / tm) * ceil (mnk[1] / tn) * batch * s / sms);
  return waves * 2.0 * tm * tn * (ceil (k / s) + tile_kfix (dev, t, i));
}

/* Tile-steps of an unsplit GEMM for the fastest large tile (the
 * calibration's: the smaller tiles are not). */
static double
gemm_units (const WlKernelDevice *dev, WlDtype t, double m, double n, double k, double batch)
{
  double best = INFINITY;
  for (guint i = 0; i < dev->n_tiles; i++)
    best = MIN (best, tile_units (dev, t, i, (const double[3]) { m, n, k }, batch, 1,
                                  dev->n_sm));
  return best;
}

/* FLOP/s per SM, calibrated so that the model gives the measured MAMF at
 * the shape it was measured at: that shape's tile-steps (its waves and
 * prologue/epilogue share, for the model's tiles, unsplit) take the
 * measured time.  At most the peak's share. */
static double
rate_per_sm (const WlKernelDevice *dev, const WlDevice *hw, WlDtype t)
{
  WlDtype shape_t = dev->mamf[t] > 0 ? t : WL_DTYPE_BF16;
  double m = dev->mamf_shape[shape_t][0], n = dev->mamf_shape[shape_t][1];
  double k = dev->mamf_shape[shape_t][2];
  double rate = gemm_units (dev, t, m, n, k, 1) * achievable (dev, hw, t) / (2.0 * m * n * k);
  return MIN (rate, peak_of (hw, t) / dev->n_sm);
}

static double
mem_ns (const WlKernelDevice *dev, const WlDevice *hw, double bytes)
{
  return bytes / (hw->mem_bw_Bps * dev->mem_fraction) * 1e9;
}

/* The largest split of K on tile I that makes TILES output tiles: the
 * splits fill at most the one wave the tiles leave idle (S tiles <= SMs:
 * more would add waves, which splitting is meant to remove), and each
 * split keeps at least k_fix k-steps, i.e. one pipeline's depth of
 * k-blocks (3 on SM80, 4 on SM90/SM100, kernel_model.h): a shorter split
 * never reaches its main loop's steady state. */
static guint
split_max (const WlKernelDevice *dev, WlDtype t, guint i, double tiles, double k, double sms)
{
  if (tiles >= sms)
    return 1;
  double s = MIN (floor (sms / tiles), floor (k / tile_kfix (dev, t, i)));
  return s > 1 ? (guint) s : 1;
}

double
wl_kernel_splitk_bytes (const WlKernel *k, guint split)
{
  if (split <= 1)
    return 0.0;
  /* fp8 GEMMs write bf16 (Transformer Engine); others their input type. */
  double out = k->dtype == WL_DTYPE_FP8 ? 2.0 : dtype_bytes ((WlDtype) k->dtype);
  double mn = (double) k->m * (double) k->n * (double) k->batch;
  return 2.0 * split * mn * 4.0 + mn * out;
}

/* Tile I's FLOP/s on one SM: RATE_SM, or less when L2 cannot feed it:
 * each k-step of its 2 tm tn FLOPs streams tm + tn operand elements, and
 * an SM's share of the L2 bandwidth is l2_Bps / SMs (kernel_model.h). */
static double
tile_rate (const WlKernelDevice *dev, WlDtype t, guint i, double rate_sm)
{
  if (!(dev->l2_Bps > 0))
    return rate_sm;
  double tm = dev->tiles[i].m, tn = dev->tiles[i].n;
  double feed = dev->l2_Bps / dev->n_sm * 2.0 * tm * tn / ((tm + tn) * dtype_bytes (t));
  return MIN (rate_sm, feed);
}

/* The time of the GEMM on tile I split S ways on SMS of the SMs: its
 * compute (at least the MAMF's time on that share of the SMs: no shape
 * beats the searched maximum) or its operands' memory time, whichever is
 * longer; a split adds its reduction kernel (wl_kernel_splitk_bytes at the
 * achieved bandwidth, and its launch). */
static double
split_ns (const WlKernelDevice *dev, const WlDevice *hw, const WlKernel *k, WlDtype t,
          guint i, guint s, double rate_sm, double sms)
{
  const double mnk[3] = { (double) k->m, (double) k->n, (double) k->k };
  double units = tile_units (dev, t, i, mnk, (double) k->batch, s, sms);
  double mamf = achievable (dev, hw, t);
  if (sms < dev->n_sm)
    mamf *= sms / dev->n_sm;
  double compute = MAX (units / tile_rate (dev, t, i, rate_sm), wl_kernel_flops (k) / mamf);
  double ns = MAX (compute * 1e9, mem_ns (dev, hw, wl_kernel_bytes (k)));
  if (s > 1)
    ns += mem_ns (dev, hw, wl_kernel_splitk_bytes (k, s)) + dev->launch_ns;
  return ns;
}

/* The fastest (tile, split) of K on SMS SMs: its time, and its split in
 * *SPLIT. */
static double
gemm_plan (const WlKernelDevice *dev, const WlDevice *hw, const WlKernel *k, WlDtype t,
           double sms, guint *split)
{
  double best = INFINITY, rate_sm = rate_per_sm (dev, hw, t);
  *split = 1;
  for (guint i = 0; i < dev->n_tiles + dev->n_small; i++)
    {
      double tiles = ceil ((double) k->m / dev->tiles[i].m)
                     * ceil ((double) k->n / dev->tiles[i].n) * (double) k->batch;
      guint smax = split_max (dev, t, i, tiles, (double) k->k, sms);
      for (guint s = 1; s <= smax; s++)
        {
          double ns = split_ns (dev, hw, k, t, i, s, rate_sm, sms);
          if (ns < best)
            best = ns, *split = s;
        }
    }
  return best;
}

static double
gemm_ns (const WlKernelDevice *dev, const WlDevice *hw, const WlKernel *k, WlDtype t,
         double sms)
{
  guint split;
  return gemm_plan (dev, hw, k, t, sms, &split);
}

guint
wl_kernel_gemm_split (const WlKernelDevice *dev, const WlKernel *k)
{
  g_return_val_if_fail (dev != NULL && k != NULL && k->op == WL_KERNEL_GEMM, 1);
  const WlDevice *hw = wl_device_preset (dev->name);
  g_assert (hw != NULL);
  WlKernel as_run = *k;
  as_run.dtype = (guint8) usable_dtype (hw, (WlDtype) k->dtype);
  guint split;
  gemm_plan (dev, hw, &as_run, (WlDtype) as_run.dtype, dev->n_sm, &split);
  return split;
}

/* Point I of head dimension row DI of the table, TFLOP/s (rules in
 * kernel_model.h). */
static double
fa_point (const WlFaTable *fa, const WlKernel *k, guint di, guint i)
{
  double fwd = fa->fwd[di][i];
  double mask = k->causal ? fa->fwd_causal[di][i] / fwd : 1.0;
  if (!k->bwd)
    return fwd * mask * fa->fwd_scale;
  double bwd = fa->bwd[di][i] > 0 ? fa->bwd[di][i] : fa->bwd[1][i] * fwd / fa->fwd[1][i];
  return bwd * mask * fa->bwd_scale;
}

/* Position X on a log2 axis of N points: *I and the fraction *F toward
 * I + 1, held at the ends. */
static void
log_axis (double x, guint n, guint *i, double *f)
{
  if (!(x > 0))
    x = 0;
  if (x >= n - 1)
    x = n - 1;
  *i = MIN ((guint) x, n - 2);
  *f = x - *i;
}

/* The table's TFLOP/s for K: linear in log2 (s / 512) and log2 (d / 64). */
static double
fa_rate (const WlFaTable *fa, const WlKernel *k, double s)
{
  guint si, di;
  double sf, df;
  log_axis (log2 (s / 512.0), WL_FA_POINTS, &si, &sf);
  log_axis (log2 ((double) k->d / 64.0), WL_FA_DIMS, &di, &df);
  double lo = fa_point (fa, k, di, si) * (1 - sf) + fa_point (fa, k, di, si + 1) * sf;
  double hi = fa_point (fa, k, di + 1, si) * (1 - sf) + fa_point (fa, k, di + 1, si + 1) * sf;
  return lo * (1 - df) + hi * df;
}

/* On SMS of the SMs, the rate is that share of the table's (its thread
 * blocks, b hq ceil (sq / 128) of them, run in many waves at the tables'
 * sizes: no wave quantization is modelled for attention). */
static double
attn_ns (const WlKernelDevice *dev, const WlDevice *hw, const WlKernel *k, WlDtype t,
         double sms)
{
  /* The tables are square problems (sq = skv); another is taken at the
   * length of the square one with the same work per head. */
  double s = sqrt ((double) k->sq * (double) k->skv);
  double rate = fa_rate (dev->fa, k, s) * T * dev->fa_scale * achievable (dev, hw, t)
                / achievable (dev, hw, WL_DTYPE_BF16);
  if (sms < dev->n_sm)
    rate *= sms / dev->n_sm;
  return MAX (wl_kernel_flops (k) / rate * 1e9, mem_ns (dev, hw, wl_kernel_bytes (k)));
}

double
wl_kernel_bound_ns (const WlKernelDevice *dev, const WlKernel *k)
{
  const WlDevice *hw = wl_device_preset (dev->name);
  /* The kernel as it runs (wl_kernel_ns): a type the device lacks as bf16,
   * with bf16's bytes (a TF32 GEMM on an H100 moves half its fp32 bytes). */
  WlKernel as_run = *k;
  as_run.dtype = (guint8) usable_dtype (hw, (WlDtype) k->dtype);
  WlDtype t = k->op == WL_KERNEL_MEM ? WL_DTYPE_FP32 : (WlDtype) as_run.dtype;
  return MAX (wl_kernel_flops (&as_run) / peak_of (hw, t),
              wl_kernel_bytes (&as_run) / hw->mem_bw_Bps) * 1e9;
}

double
wl_kernel_ns (const WlKernelDevice *dev, const WlKernel *k)
{
  g_return_val_if_fail (dev != NULL, 0.0);
  return wl_kernel_ns_on (dev, k, dev->n_sm);
}

double
wl_kernel_ns_on (const WlKernelDevice *dev, const WlKernel *k, guint32 sms)
{
  g_return_val_if_fail (dev != NULL && k != NULL, 0.0);
  double on = CLAMP (sms, 1u, dev->n_sm);
  const WlDevice *hw = wl_device_preset (dev->name);
  g_assert (hw != NULL);
  /* A type the device lacks runs as bf16, its operands' bytes included
   * (an FP8 GEMM on an A100 moves 2-byte elements). */
  WlKernel as_run = *k;
  as_run.dtype = (guint8) usable_dtype (hw, (WlDtype) k->dtype);
  WlDtype t = (WlDtype) as_run.dtype;
  double ns;
  switch ((WlKernelOp) k->op)
    {
    case WL_KERNEL_GEMM:
      ns = gemm_ns (dev, hw, &as_run, t, on);
      break;
    case WL_KERNEL_ATTN:
      ns = attn_ns (dev, hw, &as_run, t, on);
      break;
    case WL_KERNEL_MEM:
    case WL_KERNEL_N:
    default:
      ns = MAX (mem_ns (dev, hw, (double) k->bytes),
                (double) k->flops / peak_of (hw, WL_DTYPE_FP32) * 1e9);
      break;
    }
  /* Nothing beats physics (a relative slack for rounding only). */
  double floor_ns = wl_kernel_bound_ns (dev, k);
  g_assert (ns >= floor_ns * (1.0 - 1e-12));
  return ns;
}
