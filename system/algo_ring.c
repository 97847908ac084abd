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
 *   barrier         2(n-1) steps of 0 bytes (an all-reduce of nothing)
 * In lockstep each member therefore finishes after
 *   e + k (hop delay + e) + r (reduction)
 * which is ASTRA-sim's closed form (../shared/reference/ASTRA-SIM.md).
 *
 * The rooted kinds run as a chain along the ring.  With d = (pos - root) mod
 * n a member's distance downstream of the root:
 *   broadcast  the root sends c to d = 1, which forwards it, ... to d = n-1
 *   scatter    the root sends (n-1)c to d = 1, which keeps c and forwards
 *              (n-2)c, ... d = n-1 receives c
 *   reduce     d = 1 sends its c to d = 2, which reduces and forwards c, ...
 *              d = n-1 forwards to the root, which reduces
 *   gather     as reduce without reductions, d sending d c bytes
 * The chain's source finishes once its message has left (start + e); every
 * other member when its message has arrived, been reduced (reduce) and the
 * endpoint delay has passed.  In lockstep the member j hops down the chain
 * from the source finishes at e + j (D_j + e) (+ j r for reduce), D_j the
 * delay of the j-th hop's message.
 */
#include "system/algo.h"

static guint32
ring_steps (SysCollKind op, guint32 n)
{
  switch (op)
    {
    case SYS_COLL_ALL_REDUCE:
    case SYS_COLL_BARRIER:
      return 2 * (n - 1);
    case SYS_COLL_REDUCE_SCATTER:
    case SYS_COLL_ALL_GATHER:
      return n - 1;
    case SYS_COLL_ALL_TO_ALL:
      return n * (n - 1) / 2;
    default:
      break;
    }
  g_assert_not_reached ();
  return 0;
}

static guint64
ring_message_bytes (const SysPhaseCtx *ctx)
{
  if (ctx->op == SYS_COLL_ALL_GATHER)
    return ctx->in_bytes;
  if (ctx->op == SYS_COLL_BARRIER)
    return 0;
  return ctx->share;
}

/* ---- chains: the rooted kinds ------------------------------------------------ */

static guint32
chain_distance (const SysPhaseCtx *ctx)
{
  return (ctx->pos + ctx->n - ctx->root) % ctx->n;
}

/* Broadcast and scatter flow out of the root; reduce and gather into it,
 * starting at the member after it. */
static gboolean
chain_outward (SysCollKind op)
{
  return op == SYS_COLL_BROADCAST || op == SYS_COLL_SCATTER;
}

static gboolean
chain_is_source (const SysPhaseCtx *ctx)
{
  return chain_distance (ctx) == (chain_outward (ctx->op) ? 0u : 1u);
}

static gboolean
chain_is_sink (const SysPhaseCtx *ctx)
{
  return chain_distance (ctx) == (chain_outward (ctx->op) ? ctx->n - 1 : 0u);
}

/* What this member passes on. */
static guint64
chain_out_bytes (const SysPhaseCtx *ctx)
{
  guint64 c = ctx->in_bytes;
  guint32 d = chain_distance (ctx);
  switch (ctx->op)
    {
    case SYS_COLL_SCATTER:
      return (guint64) (ctx->n - 1 - d) * c;
    case SYS_COLL_GATHER:
      return (guint64) d * c;
    default:
      return c;
    }
}

static void
chain_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  if (!run->started || run->processed == run->arrived)
    return;
  g_assert (run->arrived == 1);
  SimTime t = MAX (sys_phase_now (ctx), run->busy_until);
  if (ctx->op == SYS_COLL_REDUCE)
    t = sim_time_add (t, sys_phase_reduce_cost (ctx, ctx->in_bytes));
  t = sim_time_add (t, sys_phase_endpoint_delay (ctx));
  run->busy_until = t;
  run->processed = 1;
  if (!chain_is_sink (ctx))
    sys_phase_send (ctx, (ctx->pos + 1) % ctx->n, 0, chain_out_bytes (ctx), t);
  sys_phase_finish (ctx, t);
}

/* Out of line: ring_start's common case, the ring proper, then saves
 * fewer registers. */
static G_NO_INLINE void
chain_start (const SysPhaseCtx *ctx, SysRun *run)
{
  run->busy_until = sim_time_add (sys_phase_now (ctx), sys_phase_endpoint_delay (ctx));
  if (chain_is_source (ctx))
    {
      sys_phase_send (ctx, (ctx->pos + 1) % ctx->n, 0, chain_out_bytes (ctx), run->busy_until);
      sys_phase_finish (ctx, run->busy_until);
      return;
    }
  chain_drain (ctx, run);
}

/* ---- the ring proper ---------------------------------------------------------- */

/* What every step asks, worked out once per chunk phase: the steps, the
 * first ones that reduce (all-reduce's first half, all of reduce-scatter)
 * and the bytes of each message. */
static void
ring_prepare (SysPhaseCtx *ctx)
{
  if (sys_coll_kind_rooted (ctx->op))
    return;
  ctx->steps = ring_steps (ctx->op, ctx->n);
  ctx->reducing_steps = 0;
  if (ctx->op == SYS_COLL_REDUCE_SCATTER)
    ctx->reducing_steps = ctx->steps;
  else if (ctx->op == SYS_COLL_ALL_REDUCE)
    ctx->reducing_steps = ctx->n - 1;
  ctx->step_bytes = ring_message_bytes (ctx);
  ctx->reduce_delay = sim_time_add (ctx->share_reduce, sys_phase_endpoint_delay (ctx));
  /* The steps sent fit the events' step field, so that no send checks. */
  g_assert (ctx->steps <= (G_GUINT64_CONSTANT (1) << ctx->step_bits));
}

/* ring_step's ends but the inline send, out of its line so that the
 * inline path saves no registers.  The last step ends the phase at t,
 * which is >= now: its event is pushed as sys_phase_finish's, without
 * that call's check, and without the context owning the run. */
static G_NO_INLINE void
ring_step_slow (const SysPhaseCtx *ctx, SysRun *run, guint32 step, SimTime t, SysPhaseCtx *own)
{
  if (step >= ctx->steps)
    {
      sys_phase_finish_run (ctx, run, t);
      return;
    }
  if (own != NULL)
    sys_phase_ctx_own (own, run);
  sys_phase_send_next_slow (ctx, run, step, ctx->step_bytes, t);
}

/* Consume the next arrived message: it ends a step, and all but the last
 * lead to the next send.  The steps that reduce move the share, whose cost
 * the context holds with the endpoint delay (reduce_delay).  own: NULL
 * when ctx owns run already, else ctx, to be made the run's own before
 * the slow paths read it (sys_phase_ctx_own). */
G_ALWAYS_INLINE static inline void
ring_step (const SysPhaseCtx *ctx, SysRun *run, SimTime now, SysPhaseCtx *own)
{
  guint32 step = run->processed;
  SimTime t = MAX (now, run->busy_until);
  t = sim_time_add (t, step < ctx->reducing_steps ? ctx->reduce_delay
                                                  : sys_phase_endpoint_delay (ctx));
  run->busy_until = t;
  run->processed = ++step;
  if (G_LIKELY (step < ctx->steps && sys_phase_next_inline (ctx, run)))
    {
      sys_phase_send_next (ctx, run, step, t);
      return;
    }
  ring_step_slow (ctx, run, step, t, own);
}

/* Consume every arrived message in order.  Out of line: its callers test
 * whether anything is left to consume (mostly not, at a start) first. */
static G_NO_INLINE void
ring_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  SimTime now = sys_phase_now (ctx);
  while (run->processed < run->arrived)
    ring_step (ctx, run, now, NULL);
}

/* ring_start's first send and what follows it where that is more than
 * sys_phase_send_next's inline path: its slow path, or messages that
 * arrived before the start (a predecessor that started first), consumed
 * after the send.  Out of line, so that the start calls nothing but in
 * tail position and saves no registers. */
static G_NO_INLINE void
ring_start_slow (const SysPhaseCtx *ctx, SysRun *run)
{
  sys_phase_send_next (ctx, run, 0, run->busy_until);
  if (run->processed < run->arrived)
    ring_drain (ctx, run);
}

static void
ring_start (const SysPhaseCtx *ctx, SysRun *run)
{
  if (sys_coll_kind_rooted (ctx->op))
    {
      chain_start (ctx, run);
      return;
    }
  run->busy_until = sim_time_add (sys_phase_now (ctx), sys_phase_endpoint_delay (ctx));
  if (G_UNLIKELY (!sys_phase_next_inline (ctx, run) || run->processed < run->arrived))
    {
      ring_start_slow (ctx, run);
      return;
    }
  sys_phase_send_next (ctx, run, 0, run->busy_until);
}

/* ring_on_message's other cases, out of its line so that its common one
 * saves no registers. */
static G_NO_INLINE void
ring_on_message_other (const SysPhaseCtx *ctx, SysRun *run)
{
  if (sys_coll_kind_rooted (ctx->op))
    chain_drain (ctx, run);
  else if (run->started)
    ring_drain (ctx, run);
}

/* A message of `step` arrived.  The common case, a started member that had
 * consumed every message before this one, takes one step without the
 * loop.  may_be_chain: the phase may be a rooted kind's chain (steps 0),
 * which the common case must leave to ring_on_message_other.  own: as
 * ring_step's. */
G_ALWAYS_INLINE static inline void
ring_arrive (const SysPhaseCtx *ctx, SysRun *run, guint32 step, gboolean may_be_chain,
             SysPhaseCtx *own)
{
  g_assert (step == run->arrived); /* one predecessor, in-order delivery */
  run->arrived++;
  if (G_LIKELY (run->started && run->processed == step && (!may_be_chain || ctx->steps != 0)))
    {
      ring_step (ctx, run, sys_phase_now (ctx), own);
      return;
    }
  if (own != NULL)
    sys_phase_ctx_own (own, run);
  ring_on_message_other (ctx, run);
}

static void
ring_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  ring_arrive (ctx, run, step, TRUE, NULL);
}

/* The messages of sys_phase_send_next's inline path, which only the ring
 * proper sends (never a chain).  The context owns the run only once a
 * slow path needs it to. */
static void
ring_deliver (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  SysPhaseCtx *ctx = data;
  guint32 step;
  SysRun *run = sys_phase_event_run (ctx, arg, &step);
  ring_arrive (ctx, run, step, FALSE, ctx);
}

const SysAlgoClass sys_algo_ring = {
  .name = "ring",
  .help = "each member sends to its successor on the line, n-1 steps a half",
  .timing = SYS_TIMING_NATIVE,
  .kinds = SYS_KINDS_ALL,
  .flat_variant = TRUE,
  .alike = SYS_ALIKE_ALWAYS,
  .disjoint_links = TRUE, /* neighbours only: one link each way per member */
  .prepare = ring_prepare,
  .start = ring_start,
  .on_message = ring_on_message,
  .deliver = ring_deliver,
};
