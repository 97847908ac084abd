/* algo_ring.c: the ring algorithm on one dimension.
 *
 * Every member sends to its successor on the line and receives from its
 * predecessor; a member sends step j+1 once step j's message has arrived and
 * has been reduced (when the step reduces) and the endpoint delay has passed.
 * Step counts and message sizes, for n members and a chunk of c bytes:
 *   all-reduce      2(n-1) steps of c/n, the first n-1 reduce
 *   reduce-scatter   n-1   steps of c/n, all reduce
 *   all-gather       n-1   steps of c (c is each member's input)
 *   all-to-all    n(n-1)/2 steps of c/n (data for distance d travels d hops)
 * In lockstep each member therefore finishes after
 *   e + k (hop delay + e) + r (reduction)
 * which is ASTRA-sim's closed form (../shared/reference/ASTRA-SIM.md).
 */
#include "system/algo.h"

static gboolean
ring_supports (SysCollKind op)
{
  return op < SYS_COLL_N;
}

static guint32
ring_steps (SysCollKind op, guint32 n)
{
  switch (op)
    {
    case SYS_COLL_ALL_REDUCE:
      return 2 * (n - 1);
    case SYS_COLL_REDUCE_SCATTER:
    case SYS_COLL_ALL_GATHER:
      return n - 1;
    case SYS_COLL_ALL_TO_ALL:
      return n * (n - 1) / 2;
    case SYS_COLL_N:
      break;
    }
  g_assert_not_reached ();
  return 0;
}

static gboolean
ring_step_reduces (SysCollKind op, guint32 n, guint32 step)
{
  return op == SYS_COLL_REDUCE_SCATTER || (op == SYS_COLL_ALL_REDUCE && step < n - 1);
}

static guint64
ring_message_bytes (const SysPhaseCtx *ctx)
{
  if (ctx->op == SYS_COLL_ALL_GATHER)
    return ctx->in_bytes;
  return sys_phase_split (ctx, ctx->in_bytes, ctx->n);
}

/* Consume every arrived message in order: each one ends a step, and all but
 * the last lead to the next send. */
static void
ring_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  guint32 k = ring_steps (ctx->op, ctx->n);
  guint64 m = ring_message_bytes (ctx);
  SimTime e = sys_phase_endpoint_delay (ctx);
  SimTime now = sys_phase_now (ctx);
  while (run->processed < run->arrived)
    {
      guint32 step = run->processed;
      SimTime t = MAX (now, run->busy_until);
      if (ring_step_reduces (ctx->op, ctx->n, step))
        t += sys_phase_reduce_cost (ctx, m);
      t += e;
      run->busy_until = t;
      run->processed++;
      if (run->processed < k)
        sys_phase_send (ctx, (ctx->pos + 1) % ctx->n, run->processed, m, t);
      else
        sys_phase_finish (ctx, t);
    }
}

static void
ring_start (const SysPhaseCtx *ctx, SysRun *run)
{
  run->busy_until = sys_phase_now (ctx) + sys_phase_endpoint_delay (ctx);
  sys_phase_send (ctx, (ctx->pos + 1) % ctx->n, 0, ring_message_bytes (ctx), run->busy_until);
  ring_drain (ctx, run);
}

static void
ring_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  g_assert (step == run->arrived); /* one predecessor, in-order delivery */
  run->arrived++;
  if (run->started)
    ring_drain (ctx, run);
}

const SysAlgoClass sys_algo_ring = {
  .name = "ring",
  .supports = ring_supports,
  .start = ring_start,
  .on_message = ring_on_message,
};
