/* compute.c: accelerator presets and COMP node times (see compute.h). */
#include "workload/compute.h"

#include <string.h>

#define T 1e12  /* TFLOP/s */
#define TBS 1e12 /* TB/s */

/* Dense figures from the vendors' datasheets; configs/devices/README.md
 * names the source of each number.  bf16 and fp16 have the same peak on
 * every preset. */
static const WlDevice presets[] = {
  /* The capacity is what the driver gives a program, not the datasheet's
   * round figure: A100-SXM4-80GB 85,056,798,720 B (torch.cuda
   * total_memory), H100 80GB HBM3 81,559 MiB, H200 143,771 MiB and B200
   * 183,359 MiB (nvidia-smi's memory.total), MI300X 205,822,885,888 B
   * (rocm-smi's VRAM total); public logs of each, configs/devices/README.md. */
  /* A100 TF32 tensor core: 156 TFLOP/s dense (NVIDIA A100 datasheet,
   * "TF32 Tensor Core 156 TF"); the other presets give none (a TF32
   * GEMM on them is refused where a generator is asked for one). */
  { "A100-80GB", { 19.5 * T, 312 * T, 312 * T, 0, 156 * T }, 2.039 * TBS, 85056798720.0, 1.0,
    1.0 },
  { "H100-SXM", { 67 * T, 989.5 * T, 989.5 * T, 1979 * T }, 3.35 * TBS, 81559.0 * 1048576.0, 1.0, 1.0 },
  { "H200", { 67 * T, 989.5 * T, 989.5 * T, 1979 * T }, 4.8 * TBS, 143771.0 * 1048576.0, 1.0, 1.0 },
  { "B200", { 75 * T, 2250 * T, 2250 * T, 4500 * T }, 8 * TBS, 183359.0 * 1048576.0, 1.0, 1.0 },
  { "MI300X", { 163.4 * T, 1307.4 * T, 1307.4 * T, 2614.9 * T }, 5.3 * TBS, 205822885888.0, 1.0, 1.0 },
};

const WlDevice *
wl_device_preset (const char *name)
{
  g_return_val_if_fail (name != NULL, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    if (g_ascii_strcasecmp (name, presets[i].name) == 0)
      return &presets[i];
  return NULL;
}

const WlDevice *
wl_device_preset_nth (guint i)
{
  return i < G_N_ELEMENTS (presets) ? &presets[i] : NULL;
}

char *
wl_device_preset_names (void)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", presets[i].name);
  return g_string_free (s, FALSE);
}

static const char *const dtype_names[WL_DTYPE_N] = { "fp32", "bf16", "fp16", "fp8", "tf32" };

const char *
wl_dtype_name (WlDtype dtype)
{
  return (guint) dtype < WL_DTYPE_N ? dtype_names[dtype] : "unknown";
}

gboolean
wl_dtype_parse (const char *name, WlDtype *out)
{
  for (guint i = 0; i < WL_DTYPE_N; i++)
    if (g_ascii_strcasecmp (name, dtype_names[i]) == 0)
      {
        *out = (WlDtype) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
wl_device_roofline (const WlDevice *d, WlDtype dtype, WlRoofline *out)
{
  g_return_val_if_fail (d != NULL && out != NULL && (guint) dtype < WL_DTYPE_N, FALSE);
  if (!(d->peak_flops[dtype] > 0))
    return FALSE;
  *out = (WlRoofline) { .peak_flops = d->peak_flops[dtype], .mem_bw_Bps = d->mem_bw_Bps,
                        .matrix_eff = d->matrix_eff, .memory_eff = d->memory_eff };
  return TRUE;
}

double
wl_roofline_ns (const WlRoofline *r, guint64 num_ops, guint64 bytes)
{
  /* Attainable FLOP/s: the lesser of the achievable peak and what memory
   * can feed at this node's operational intensity (FLOPs per byte).  The
   * products are written so that efficiencies of 1 give exactly the
   * ASTRA-sim figures. */
  double perf = r->peak_flops * r->matrix_eff;
  if (bytes > 0)
    perf = MIN (perf, r->mem_bw_Bps * r->memory_eff * ((double) num_ops / (double) bytes));
  return (double) num_ops / perf * 1e9;
}

double
wl_compute_scale (const WlRoofline *from, const WlRoofline *to, guint64 num_ops, guint64 bytes)
{
  if (num_ops > 0)
    return wl_roofline_ns (to, num_ops, bytes) / wl_roofline_ns (from, num_ops, bytes);
  return (from->peak_flops * from->matrix_eff) / (to->peak_flops * to->matrix_eff);
}

double
wl_compute_node_ns (const WlParams *p, const WlNode *n)
{
  double duration_ns = (double) n->duration_ps / (double) SIM_PS_PER_NS;
  WlRoofline here = wl_params_roofline (p);
  switch (p->compute)
    {
    case WL_COMPUTE_ROOFLINE:
    case WL_COMPUTE_KERNEL: /* a node without kernels: the roofline */
      return n->num_ops > 0 ? wl_roofline_ns (&here, n->num_ops, n->bytes) : duration_ns;
    case WL_COMPUTE_SCALED:
      return duration_ns * wl_compute_scale (&p->captured, &here, n->num_ops, n->bytes);
    case WL_COMPUTE_REPLAY:
    default:
      return duration_ns;
    }
}
