/* kernel_model.h: the time of one GPU kernel on a device, from its shape.
 *
 * Models (times in ns, rates in FLOP/s, sizes in bytes; the device's peaks
 * and bandwidth are its compute.h preset's):
 *
 *   gemm  C[m x n] = A[m x k] B[k x n], `batch` independent products.  The
 *         output is cut into tiles (tm x tn, one per SM at a time, from the
 *         device's CUTLASS/cuBLAS tile list); tiles = ceil(m/tm) ceil(n/tn)
 *         batch run in waves = ceil(tiles / SMs); a tile takes
 *         2 tm tn (k + k_fix) / rate_sm, where k_fix is the tile's
 *         pipeline prologue and epilogue in k-steps, so small k runs below
 *         the large-GEMM rate.  The fastest tile of the list is taken (as
 *         cuBLAS's heuristics choose per shape).  rate_sm is the measured
 *         maximum achievable matmul FLOP/s (MAMF) per SM with the k_fix
 *         share of its shape's k taken out:
 *         rate_sm = MAMF / SMs x (k_mamf + k_fix) / k_mamf (the MAMF shape,
 *         best of a brute-force search, ran in full waves), at most
 *         peak / SMs; and no shape runs faster than the MAMF.  The time is
 *         the larger of that and the operands' memory time:
 *         ((m k + k n) in + m n out bytes) batch / (bandwidth x the
 *         device's achieved fraction).
 *         Split-K, when a tile's output tiles leave SMs idle (tiles <
 *         SMs), as CUTLASS's GemmSplitKParallel (gemm/device/
 *         gemm_splitk_parallel.h: each of S splits writes an fp32 partial
 *         of the output to a workspace, then reduction/kernel/
 *         reduce_split_k.h sums them): the tiles x S units run in waves,
 *         each 2 tm tn (ceil (k / S) + k_fix); the time above, plus the
 *         reduction's traffic (S fp32 partials written and read, the
 *         output written, wl_kernel_splitk_bytes) at the achieved
 *         bandwidth, plus one launch overhead (the reduction is a second
 *         kernel).  S runs over 1 .. min (floor (SMs / tiles),
 *         floor (k / k_fix)) (the splits fill at most the idle wave, each
 *         keeps at least one pipeline's depth of k-blocks) and the
 *         fastest (tile, S) is taken, as a library's heuristic would.
 *         Stream-K (Osama et al., PPoPP 2023; CUTLASS 3.x on SM90) would
 *         split the k-loop across the SMs without the separate kernel;
 *         it is not modelled.
 *         Smaller tiles (a device with a known L2 bandwidth: the A100's
 *         CUTLASS SM80 128x64, 64x128 and 64x64) are offered beside the
 *         large ones and the fastest is taken: a tiny product (a batched
 *         27 x 27 x 128 interaction) no longer pays for a whole 128x128
 *         tile.  A tile streams (tm + tn) operand elements from L2 for
 *         every k-step of its 2 tm tn FLOPs, so its SM runs at most
 *         L2 bandwidth / SMs x 2 tm tn / ((tm + tn) x element bytes)
 *         (the small tile's lower reuse; no bound binds the large tiles).
 *         The calibration of rate_sm uses the large tiles only.
 *   attn  a FlashAttention kernel: FLOPs / the published achieved rate for
 *         its direction and mask at its head dimension and sequence length
 *         (interpolated linearly in log2 of each between the tables' head
 *         dimensions 64, 128, 256 and lengths 512 .. 16k, held beyond);
 *         at least its Q, K, V, O (and gradients) memory time.
 *   mem   bytes / (bandwidth x achieved fraction), or flops at the vector
 *         (fp32) peak if that is longer.
 *
 * A launch of any kernel adds the device's launch overhead (the gap between
 * back-to-back kernels of one stream when the host runs ahead): that is
 * the caller's (kernels.h prices lists).  No kernel runs faster than its
 * FLOPs at the dtype's peak or its bytes at the full bandwidth
 * (wl_kernel_bound_ns); the model asserts it.  Every constant and its
 * source: kernel_model.c and configs/devices/README.md.
 *
 * Ownership: devices are static tables; kernels are plain values.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_KERNEL_MODEL_H
#define ORRERY_WORKLOAD_KERNEL_MODEL_H

#include <glib.h>

#include "workload/compute.h"

typedef enum
{
  WL_KERNEL_GEMM,
  WL_KERNEL_ATTN,
  WL_KERNEL_MEM,
  WL_KERNEL_N
} WlKernelOp;

/* One kernel of a node's `kernels` attribute (the grammar: kernels.h). */
typedef struct
{
  guint8 op;        /* WlKernelOp */
  guint8 dtype;     /* WlDtype of the inputs */
  guint8 bwd;       /* attn: the backward kernel */
  guint8 causal;    /* attn: causal mask */
  guint64 count;    /* launches of this kernel (>= 1) */
  guint64 m, n, k, batch;         /* gemm */
  guint64 b, hq, hkv, sq, skv, d; /* attn */
  guint64 bytes, flops;           /* mem: bytes read + written, FLOPs */
  char what[24];                  /* mem: what it is (layernorm, adam, ...) */
} WlKernel;

/* A GEMM output tile; k_fix 0: the device's k_fix for the dtype. */
typedef struct
{
  guint32 m, n;
  guint32 k_fix;
} WlTile;

/* FlashAttention achieved TFLOP/s as published, at head dimensions 64, 128
 * and 256 and sequence lengths 512, 1k, .. 16k, times a scale per
 * direction.  A backward row of zeros is not published: it is the head
 * dimension 128 backward times this dimension's forward / 128's.  The
 * causal backward is the backward times the causal / non-causal forward. */
#define WL_FA_DIMS 3
#define WL_FA_POINTS 6
typedef struct
{
  double fwd[WL_FA_DIMS][WL_FA_POINTS];
  double fwd_causal[WL_FA_DIMS][WL_FA_POINTS];
  double bwd[WL_FA_DIMS][WL_FA_POINTS];
  double fwd_scale, bwd_scale;
} WlFaTable;

typedef struct _WlKernelDevice
{
  const char *name;              /* its compute.h preset */
  guint32 n_sm;                  /* SMs (NVIDIA) or CUs (AMD) */
  guint32 n_tiles;               /* the large tiles: the MAMF calibration's */
  guint32 n_small;               /* then smaller tiles: priced, never calibrated */
  WlTile tiles[6];               /* output tiles cuBLAS/CUTLASS choose among */
  guint32 k_fix[WL_DTYPE_N];     /* per-tile prologue + epilogue, k-steps */
  double mamf[WL_DTYPE_N];       /* measured large-GEMM FLOP/s; 0: not measured */
  guint32 mamf_shape[WL_DTYPE_N][3]; /* m, n, k where it was measured */
  double mem_fraction;           /* achieved fraction of the HBM bandwidth */
  double launch_ns;              /* per launch */
  const WlFaTable *fa;           /* bf16 FlashAttention rates (TFLOP/s) */
  double fa_scale;               /* 1 where fa was measured on this device, else
                                  * this device's bf16 MAMF / the table device's */
  double l2_Bps;                 /* L2 -> SM read bandwidth, bytes/s; 0: not known
                                  * (then no smaller tiles are offered) */
} WlKernelDevice;

/* The kernel table of preset `name` (case-insensitive), or NULL. */
const WlKernelDevice *wl_kernel_device (const char *name);
/* "A100-80GB, H100-SXM, ...": free with g_free. */
char *wl_kernel_device_names (void);

/* FLOPs of one launch (iface: gemm 2 m n k batch; attn fwd 4 b hq sq skv d,
 * halved when causal, bwd 2.5 x; mem its flops). */
double wl_kernel_flops (const WlKernel *kernel);
/* Bytes one launch must move at least (operands and results). */
double wl_kernel_bytes (const WlKernel *kernel);

/* The bytes a GEMM split SPLIT ways adds (its reduction): SPLIT fp32
 * partials of m x n written and read, the m x n output written (bf16 for
 * fp8), times batch; 0 for SPLIT <= 1. */
double wl_kernel_splitk_bytes (const WlKernel *kernel, guint split);
/* The split of K the model chooses for the GEMM KERNEL on DEV (1: none). */
guint wl_kernel_gemm_split (const WlKernelDevice *dev, const WlKernel *kernel);

/* One launch's time in ns on DEV, launch overhead excluded (a split GEMM's
 * reduction kernel's launch included). */
double wl_kernel_ns (const WlKernelDevice *dev, const WlKernel *kernel);

/* wl_kernel_ns with SMS of DEV's n_sm SMs free for the kernel (clamped to
 * 1 .. n_sm; n_sm gives wl_kernel_ns exactly): the others run another
 * kernel, as an NCCL collective's CTAs (one per channel, each resident on
 * an SM for the collective's whole run: NCCL src/enqueue.cc launches a
 * grid of one block per channel) hold theirs.  A GEMM's tiles run in
 * waves over SMS SMs (splits fill at most SMS), at most the MAMF's share
 * SMS / n_sm; attention at that share of its table's rate; memory-bound
 * kernels as on the whole device (HBM saturates with a fraction of the
 * SMs; the collective's own HBM traffic is not taken off). */
double wl_kernel_ns_on (const WlKernelDevice *dev, const WlKernel *kernel, guint32 sms);

/* The physical floor of one launch as it runs (a dtype the device lacks
 * as bf16, as wl_kernel_ns runs it): max (FLOPs / peak of its dtype,
 * bytes / full bandwidth), ns. */
double wl_kernel_bound_ns (const WlKernelDevice *dev, const WlKernel *kernel);

#endif /* ORRERY_WORKLOAD_KERNEL_MODEL_H */
