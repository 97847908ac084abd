/* wl_params.c: defaults and names of the workload layer's configuration. */
#include "workload/wl_params.h"

#include <math.h>
#include <string.h>

void
wl_params_init (WlParams *params)
{
  g_return_if_fail (params != NULL);
  memset (params, 0, sizeof *params);
  params->compute = WL_COMPUTE_REPLAY;
  params->peak_flops = 900e12;
  params->mem_bw_Bps = 1600e9;
  params->matrix_eff = 1.0;
  params->memory_eff = 1.0;
  params->slots_comp = 1;
  params->slots_cpu = 1;
  params->slots_comm = 1;
  params->sm_contention = TRUE;
  params->mem.kind = WL_MEM_NONE;
}

WlRoofline
wl_params_roofline (const WlParams *p)
{
  return (WlRoofline) { .peak_flops = p->peak_flops, .mem_bw_Bps = p->mem_bw_Bps,
                        .matrix_eff = p->matrix_eff, .memory_eff = p->memory_eff };
}

double
wl_params_rank_speed (const WlParams *p, guint32 rank)
{
  for (guint i = p->n_speed_rules; i > 0; i--)
    {
      const WlSpeedRule *s = &p->speed_rules[i - 1];
      if (rank >= s->first && rank <= s->last)
        return s->speed;
    }
  return 1.0;
}

static const struct
{
  WlMemKind kind;
  const char *alias; /* the name ASTRA-sim's inputs give it */
  const char *native;
} mem_names[] = {
  { WL_MEM_NONE, "NO_MEMORY_EXPANSION", "none" },
  { WL_MEM_PER_NODE, "PER_NODE_MEMORY_EXPANSION", "per-node" },
  { WL_MEM_PER_NPU, "PER_NPU_MEMORY_EXPANSION", "per-npu" },
  { WL_MEM_POOL, "MEMORY_POOL", "pool" },
};

const char *
wl_mem_kind_name (WlMemKind kind)
{
  for (guint i = 0; i < G_N_ELEMENTS (mem_names); i++)
    if (mem_names[i].kind == kind)
      return mem_names[i].native;
  return "unknown";
}

/* Accepts both ASTRA-sim's names and orrery's. */
gboolean
wl_mem_kind_parse (const char *name, WlMemKind *out)
{
  for (guint i = 0; i < G_N_ELEMENTS (mem_names); i++)
    if (g_ascii_strcasecmp (name, mem_names[i].alias) == 0
        || g_ascii_strcasecmp (name, mem_names[i].native) == 0)
      {
        *out = mem_names[i].kind;
        return TRUE;
      }
  return FALSE;
}

SimTime
wl_params_round_ns (const WlParams *p, double ns)
{
  if (!(ns > 0.0))
    return 0;
  const guint64 max_ns = SIM_TIME_MAX / SIM_PS_PER_NS;
  if (ns >= (double) max_ns)
    return SIM_TIME_MAX;
  if (p->timing.rounding == WL_ROUND_NS_TRUNCATED)
    return sim_time_from_ns ((guint64) ns);
  double ps = ceil (ns * (double) SIM_PS_PER_NS);
  return ps >= 0x1p64 ? SIM_TIME_MAX : (SimTime) ps;
}
