/* wl_params.h: the workload layer's configuration: compute and memory models
 * and the execution slots of each rank.
 *
 * Models: a COMP node takes its trace duration (replay) or the roofline time
 * of its num_ops and tensor_size on a device of peak_flops and mem_bw_Bps.
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
  WL_COMPUTE_ROOFLINE /* num_ops / min(peak, mem_bw x num_ops / tensor_size) */
} WlComputeModel;

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

typedef struct
{
  WlComputeModel compute;
  double peak_flops; /* FLOP/s, roofline */
  double mem_bw_Bps; /* bytes/s of local memory: roofline and local loads */
  /* Round compute times to whole nanoseconds (down) as ASTRA-sim does;
   * otherwise to picoseconds (up). */
  gboolean astra_rounding;
  guint slots_comp;
  guint slots_cpu;
  guint slots_comm;
  WlMemSpec mem;
} WlParams;

/* Defaults: replay, 1 slot each, no memory expansion, 900 TFLOP/s peak,
 * 1600 GB/s local memory, exact ps. */
void wl_params_init (WlParams *params);

const char *wl_mem_kind_name (WlMemKind kind);
gboolean wl_mem_kind_parse (const char *name, WlMemKind *out);

#endif /* ORRERY_WORKLOAD_WL_PARAMS_H */
