/* wl_params.h: the workload layer's configuration: compute and memory models
 * and the execution slots of each rank.
 *
 * Models: a COMP node takes its trace duration (replay), the roofline time
 * of its num_ops and tensor_size on a device of peak_flops x matrix_eff and
 * mem_bw_Bps x memory_eff, or its trace duration scaled from the device it
 * was captured on to this one (workload/compute.h has the rules and the
 * device presets), or the sum of the GPU kernels it lists (kernel model:
 * workload/kernels.h).  A rank's speed factor divides its COMP times.
 * MEM_LOAD/MEM_STORE nodes take latency + tensor_size / bandwidth of the
 * remote-memory model.  Each rank runs at most slots_comp accelerator compute
 * nodes, slots_cpu host (is_cpu_op) nodes and slots_comm communication nodes
 * at a time; a receive takes no slot.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_WL_PARAMS_H
#define ORRERY_WORKLOAD_WL_PARAMS_H

#include <glib.h>

#include "sim/simtime.h"

typedef enum
{
  WL_COMPUTE_REPLAY,  /* duration_micros from the trace (1 ns when zero) */
  WL_COMPUTE_ROOFLINE, /* num_ops / min(peak, mem_bw x num_ops / tensor_size) */
  WL_COMPUTE_SCALED,   /* duration x roofline time here / roofline time on `captured` */
  WL_COMPUTE_KERNEL    /* a node's `kernels` priced on the device (kernels.h); without
                        * them, roofline; without num_ops, the duration */
} WlComputeModel;

/* A data type of compute (a device's peak is per type). */
typedef enum
{
  WL_DTYPE_FP32,
  WL_DTYPE_BF16,
  WL_DTYPE_FP16,
  WL_DTYPE_FP8,
  /* TF32: fp32 in memory, tensor-core math with a 10-bit mantissa (NVIDIA
   * A100 architecture whitepaper); the type of an fp32 GEMM that
   * TensorFlow >= 2.4 runs on an A100 by default. */
  WL_DTYPE_TF32,
  WL_DTYPE_N
} WlDtype;

/* A device as the roofline model sees it, for one data type. */
typedef struct
{
  double peak_flops; /* FLOP/s */
  double mem_bw_Bps; /* bytes/s */
  double matrix_eff; /* achievable fraction of peak_flops, (0, 1] */
  double memory_eff; /* achievable fraction of mem_bw_Bps, (0, 1] */
} WlRoofline;

/* Per-rank speed: ranks first..last run COMP nodes `speed` times as fast.
 * Rules are kept inline (no allocation, so WlParams copies freely); a later
 * rule wins over an earlier one. */
#define WL_MAX_SPEED_RULES 64
typedef struct
{
  guint32 first, last;
  double speed;
} WlSpeedRule;

typedef enum
{
  WL_MEM_NONE,    /* no memory expansion: loads/stores run at local memory bandwidth */
  WL_MEM_PER_NODE,
  WL_MEM_PER_NPU,
  WL_MEM_POOL
} WlMemKind;

typedef struct
{
  WlMemKind kind;
  SimTime latency;       /* per access, ps */
  double bandwidth_Bps;  /* bytes/s */
  guint32 num_nodes;     /* PER_NODE: nodes sharing expansions */
  guint32 npus_per_node; /* PER_NODE: ranks per node */
} WlMemSpec;

/* How modelled times are rounded to the clock. */
typedef enum
{
  WL_ROUND_PS,           /* up to a whole picosecond */
  WL_ROUND_NS_TRUNCATED  /* down to a whole nanosecond */
} WlRounding;

/* How replay turns nodes into time, beyond the compute model: the choices
 * a config makes when it reproduces another simulator's timing (sim/app
 * picks them; the workload only follows them). */
typedef struct
{
  WlRounding rounding;        /* of compute and memory times */
  gboolean broadcast_as_delay; /* a broadcast is not simulated: its node waits out
                                * duration_micros, and joins no collective */
  SimTime empty_compute_time; /* a compute node timed by its trace with a zero
                               * duration takes this long (0: no time), ps */
} WlTiming;

/* orrery's own timing: picoseconds rounded up, every collective
 * simulated, an empty node takes no time (the default). */
#define WL_TIMING_NATIVE ((WlTiming) { WL_ROUND_PS, FALSE, 0 })
/* The reference's timing (ASTRA-sim's analytical backend, for its
 * inputs): whole nanoseconds rounded down, broadcasts waited out as
 * delays, an empty compute node 1 ns. */
#define WL_TIMING_REFERENCE ((WlTiming) { WL_ROUND_NS_TRUNCATED, TRUE, SIM_PS_PER_NS })

typedef struct
{
  WlComputeModel compute;
  double peak_flops; /* FLOP/s, roofline */
  double mem_bw_Bps; /* bytes/s of local memory: roofline and local loads */
  double matrix_eff; /* roofline: achievable fraction of peak_flops (1 by default) */
  double memory_eff; /* roofline: achievable fraction of mem_bw_Bps (1 by default) */
  double mem_capacity_B; /* the device's memory, bytes (0: unknown; reported only) */
  char device[32];   /* the device's name, "" when given by peak/mem-bw alone */
  /* Where peak_flops comes from, for reports ("H100-SXM bf16", "the
   * config's peak"); "" when the configuration names no peak (MFU is then not
   * available). */
  char peak_label[48];
  /* With a device named: its peak FLOP/s per WlDtype (0: none), and the
   * dtype peak_flops is for; MFU takes the peak of the dtype of most of
   * the traces' matrix FLOPs (WlRankStats.matrix_flops) when they say. */
  double dtype_peak[WL_DTYPE_N];
  WlDtype peak_dtype;
  WlRoofline captured; /* SCALED: the device the trace was captured on */
  const struct _WlKernelDevice *kernel_device; /* KERNEL: the device's kernel
                                                 * table (static) */
  const struct _WlKernelTable *kernel_table;   /* KERNEL: measured kernel times,
                                                 * borrowed, or NULL */
  /* KERNEL: a COMP node that starts while collectives, sends or receives
   * of its rank are in flight runs on the SMs their CTAs leave free
   * (workload/replay_sm.c); FALSE: on the whole device.  TRUE by default. */
  gboolean sm_contention;
  guint n_speed_rules;
  WlSpeedRule speed_rules[WL_MAX_SPEED_RULES];
  WlTiming timing;
  guint slots_comp;
  guint slots_cpu;
  guint slots_comm;
  /* Each distinct comm stream of a trace (the `stream` attribute of its
   * collectives, sends and receives) has its own slots_comm slots, as NCCL
   * runs data-parallel and tensor-parallel collectives on separate CUDA
   * streams; FALSE: every communication node shares the rank's slots. */
  gboolean separate_comm_streams;
  WlMemSpec mem;
  /* Load traces leniently: drop dangling dependencies, edges closing
   * cycles, collectives without comm_type/comm_size (skipped), valueless
   * attributes, repeated ids and a truncated last frame, and accept
   * headerless files, counting each (workload/graph.h has the rules;
   * wl_replay_lenient_stats the counts).  FALSE: refuse them. */
  gboolean lenient;
} WlParams;

/* Defaults: replay, 1 slot each, no memory expansion, 900 TFLOP/s peak,
 * 1600 GB/s local memory, efficiencies 1, every rank at speed 1, exact ps,
 * strict loading. */
void wl_params_init (WlParams *params);

/* The roofline of the configured device. */
WlRoofline wl_params_roofline (const WlParams *params);

/* A time in double-precision nanoseconds in ps, rounded as PARAMS say
 * (up to the ps, or down to the ns under ASTRA-sim's truncation); 0 for
 * none, NaN or less, SIM_TIME_MAX past the clock.  Every compute price
 * (the replay's and the planner's bound) rounds through it. */
SimTime wl_params_round_ns (const WlParams *params, double ns);

/* Rank's speed factor: the last rule naming it, else 1. */
double wl_params_rank_speed (const WlParams *params, guint32 rank);

const char *wl_mem_kind_name (WlMemKind kind);
gboolean wl_mem_kind_parse (const char *name, WlMemKind *out);

#endif /* ORRERY_WORKLOAD_WL_PARAMS_H */
