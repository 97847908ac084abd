/* compute.h: the compute model: accelerator presets and the time of a COMP node.
 *
 * Models: a device is its dense (no sparsity) peak FLOP/s per data type, its
 * memory bandwidth and capacity, and two achievable-efficiency factors, one
 * for matrix (compute-bound) work and one for memory-bound work.  For a COMP
 * node of num_ops FLOPs touching tensor_size bytes, the roofline time is
 *
 *   num_ops / min (peak x matrix_eff, mem_bw x memory_eff x num_ops / tensor_size)
 *
 * (the memory term is left out when tensor_size is 0).  The scaled model
 * keeps the trace's duration but moves it from the device the trace was
 * captured on (`captured`) to the configured one:
 *
 *   duration x roofline_time(here) / roofline_time(captured)   when num_ops > 0
 *   duration x (peak x matrix_eff)(captured) / (peak x matrix_eff)(here)  otherwise
 *
 * Presets carry datasheet figures (sources: configs/devices/README.md) with
 * both efficiencies 1; a config lowers them.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_COMPUTE_H
#define ORRERY_WORKLOAD_COMPUTE_H

#include <glib.h>

#include "workload/graph.h"
#include "workload/wl_params.h"

/* WlDtype: wl_params.h. */

typedef struct
{
  const char *name;
  double peak_flops[WL_DTYPE_N]; /* dense FLOP/s; 0 where the device has no such unit */
  double mem_bw_Bps;             /* bytes/s */
  double mem_capacity_B;         /* bytes */
  double matrix_eff;             /* (0, 1] */
  double memory_eff;             /* (0, 1] */
} WlDevice;

/* The preset called `name` (case-insensitive), or NULL.  Static storage. */
const WlDevice *wl_device_preset (const char *name);
/* The i-th preset, or NULL past the last. */
const WlDevice *wl_device_preset_nth (guint i);
/* "A100-80GB, H100-SXM, ...": free with g_free. */
char *wl_device_preset_names (void);

/* "fp32", "bf16", "fp16", "fp8". */
const char *wl_dtype_name (WlDtype dtype);
gboolean wl_dtype_parse (const char *name, WlDtype *out);

/* The device's roofline for dtype; FALSE when it has no peak for that type. */
gboolean wl_device_roofline (const WlDevice *device, WlDtype dtype, WlRoofline *out);

/* Roofline time in ns of num_ops FLOPs over bytes (0: compute-bound only). */
double wl_roofline_ns (const WlRoofline *roof, guint64 num_ops, guint64 bytes);

/* The factor the scaled model applies to a captured duration (rule above). */
double wl_compute_scale (const WlRoofline *from, const WlRoofline *to, guint64 num_ops,
                         guint64 bytes);

/* A COMP node's time in ns under params' model, before rounding and before
 * the rank's speed factor.  Roofline falls back to the trace duration when
 * num_ops is 0.  The kernel model prices a node's kernels itself
 * (kernels.h); here it is the roofline, for nodes without kernels. */
double wl_compute_node_ns (const WlParams *params, const WlNode *node);

#endif /* ORRERY_WORKLOAD_COMPUTE_H */
