/* phase_cost.c: the prices algorithms ask through their chunk phase's
 * context (algo.h): a message's serialization at a rate and a reduction
 * of bytes into local memory, both remembered per size in the system's
 * price tables (network/price.h), and a copy in local memory.  Rates in
 * bytes/s, times in SimTime; local memory's rate and the rounding are the
 * system parameters' (local-mem-bw, SysCompat.reduce_pricing).
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#include "system/sys_private.h"

SimTime
sys_phase_serialization (const SysPhaseCtx *ctx, guint64 bytes, double rate_Bps)
{
  return net_price_serialization (&ctx->sys->serial_prices, bytes, rate_Bps);
}

SimTime
sys_phase_reduce_cost (const SysPhaseCtx *ctx, guint64 bytes)
{
  Sys *sys = ctx->sys;
  const SysParams *p = &sys->params;
  /* Steps reduce runs of a few sizes, interleaved over chunks and phases:
   * remember their prices. */
  SimTime cost;
  if (net_price_find (&sys->reduce_prices, bytes, p->local_mem_bw_Bps, &cost))
    return cost;
  if (p->compat.reduce_pricing == SYS_MEM_TRUNCATED_NS)
    {
      /* Each memory pass takes bytes / (bytes/s) seconds, in
       * double precision, truncated to whole nanoseconds; done in its order
       * of operations, since an exact multiple can come out one below.
       * Saturated, not cast: a rate like 1e-300 GB/s gives more
       * nanoseconds than 64 bits hold, and the cast made them a few. */
      SimTime pass = sim_time_from_ns_truncated ((double) bytes / p->local_mem_bw_Bps * 1e9);
      cost = sim_time_mul (pass, p->reduction_passes);
    }
  else
    cost = sim_time_mul (net_serialization_ps (bytes, p->local_mem_bw_Bps), p->reduction_passes);
  net_price_store (&sys->reduce_prices, bytes, p->local_mem_bw_Bps, cost);
  return cost;
}

SimTime
sys_phase_copy_cost (const SysPhaseCtx *ctx, guint64 bytes)
{
  const SysParams *p = &ctx->sys->params;
  if (p->compat.reduce_pricing == SYS_MEM_TRUNCATED_NS)
    return sim_time_from_ns_truncated ((double) bytes / p->local_mem_bw_Bps * 1e9);
  return net_serialization_ps (bytes, p->local_mem_bw_Bps);
}
