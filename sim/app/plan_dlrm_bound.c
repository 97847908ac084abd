/* plan_dlrm_bound.c: `orrery plan --dlrm`'s lower bound per candidate;
 * see plan_dlrm_private.h.
 *
 * Why it is one: a rank's compute nodes run slots_comp at a time (one on
 * the native configs), so the iteration lasts at least the sum of any
 * rank's compute times over slots_comp.  Every compute node of gen dlrm's
 * traces is a list of kernels, and
 * - the kernel model (no measured table) prices each kernel at or above
 *   its physics bound, max (FLOPs / the peak of its type, bytes / the HBM
 *   bandwidth) (wl_kernel_bound_ns, asserted in wl_kernel_ns);
 * - the roofline prices a node at max (FLOPs / (peak x efficiency), bytes /
 *   (bandwidth x efficiency)); a node without FLOPs keeps its trace time,
 *   the kernel model's on gen dlrm's device, bounded as above;
 * so a rank takes at least its lookup kernels' bytes over the bandwidth
 * (the config device's; the roofline's, or gen dlrm's device's if larger)
 * plus the time of its compute nodes that no plan changes (the MLPs, the
 * interaction and the loss: wl_dlrm_dense_kernels, priced as the
 * simulator prices them: the kernel model's list time, or the roofline of
 * their summed FLOPs and bytes), both over the fastest rank's speed.  The
 * slack covers rounding down to
 * whole nanoseconds (1 ns per compute node, at most 16 of them).  A
 * measured kernel table, the scaled model or replayed durations could
 * price below that: no bound. */
#include "sim/app/plan_dlrm_private.h"

#include <math.h>

#include "sim/units.h"
#include "workload/compute.h"
#include "workload/kernel_model.h"
#include "workload/kernels.h"

void
dlrm_bound_init (DlrmEnv *env)
{
  const WlParams *wl = &env->cfg->wl;
  const WlDevice *gen = wl_device_preset (env->base.device);
  const WlDevice *cfg = wl->device[0] != '\0' ? wl_device_preset (wl->device) : NULL;
  env->bound_Bps = env->dense_s = 0.0;
  env->no_bound = NULL;
  if (wl->compute == WL_COMPUTE_KERNEL && wl->kernel_table != NULL)
    env->no_bound = "a measured kernel table";
  else if (wl->compute == WL_COMPUTE_KERNEL && (cfg == NULL || wl->kernel_device == NULL))
    env->no_bound = "a kernel model without a device preset";
  else if (wl->compute != WL_COMPUTE_KERNEL && wl->compute != WL_COMPUTE_ROOFLINE)
    env->no_bound = wl->compute == WL_COMPUTE_SCALED ? "the scaled compute model"
                                                     : "replayed trace durations";
  else if (gen == NULL)
    env->no_bound = "an unknown device";
  if (env->no_bound != NULL)
    return;
  g_autofree char *dense = wl_dlrm_dense_kernels (&env->base);
  g_autoptr (GArray) ks = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  gboolean parsed = wl_kernels_parse (dense, ks, NULL);
  g_assert (parsed); /* the generator writes the grammar */
  double bw;
  if (wl->compute == WL_COMPUTE_KERNEL)
    {
      /* Every node has kernels: the config's device prices them all. */
      bw = cfg->mem_bw_Bps;
      env->dense_s = wl_kernel_list_ns (wl->kernel_device, NULL, ks) / 1e9;
    }
  else
    {
      /* A node's roofline, max (FLOPs / (peak x eff), bytes / (bw x eff)),
       * summed over nodes, is at least that of their sums. */
      double flops = 0.0, bytes = 0.0;
      for (guint i = 0; i < ks->len; i++)
        {
          const WlKernel *k = &g_array_index (ks, WlKernel, i);
          flops += wl_kernel_flops (k) * (double) k->count;
          bytes += wl_kernel_bytes (k) * (double) k->count;
        }
      WlRoofline r = wl_params_roofline (wl);
      env->dense_s = MAX (flops / (r.peak_flops * r.matrix_eff),
                          bytes / (r.mem_bw_Bps * r.memory_eff));
      bw = MAX (gen->mem_bw_Bps, wl->mem_bw_Bps * MAX (wl->memory_eff, 1.0));
    }
  double speed = 1.0;
  for (guint i = 0; i < wl->n_speed_rules; i++)
    speed = MAX (speed, wl->speed_rules[i].speed);
  double slots = MAX (wl->slots_comp, 1u);
  env->bound_Bps = bw * speed * slots;
  env->dense_s /= speed * slots;
  env->bound_slack_ps = wl->timing.rounding == WL_ROUND_NS_TRUNCATED ? 16 * SIM_PS_PER_NS : 0;
}

guint64
dlrm_cand_bound (const DlrmEnv *env, const WlDlrmLayout *l)
{
  if (!(env->bound_Bps > 0.0))
    return 0;
  guint32 N = env->base.ranks;
  g_autofree double *bytes = g_new0 (double, N);
  dlrm_rank_bytes (env, l, TRUE, bytes);
  double most = 0.0;
  for (guint32 k = 0; k < N; k++)
    most = MAX (most, bytes[k]);
  double s = most / env->bound_Bps + env->dense_s;
  double ps = floor (s * (double) SIM_PS_PER_S);
  return ps > (double) env->bound_slack_ps ? (guint64) ps - env->bound_slack_ps : 0;
}
