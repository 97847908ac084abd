/* coll_phase.c: the helpers algorithms act through (sys_phase_*, algo.h):
 * sends to other members of a line, signals, a member's phase end, and the
 * handler of every message to a run.  Split from coll.c, which keeps the
 * collective instances and the dimension queues.
 */
#include "system/coll_private.h"

/* The step number of sys_phase_send_routed's readiness events: the
 * largest the step field holds, above every real step (< n^2). */
#define SYS_PHASE_READY_STEP(bits) ((guint32) ((G_GUINT64_CONSTANT (1) << (bits)) - 1))

/* sys_phase_send, inline in sys_phase_send_next_slow's path for networks
 * without fixed prices. */
static inline void
phase_send (const SysPhaseCtx *ctx, guint32 to, guint32 step, guint64 bytes, SimTime at)
{
  SysColl *coll = ctx->coll;
  g_assert (to < ctx->n && to != ctx->pos);
  g_assert (step < (G_GUINT64_CONSTANT (1) << coll->step_bits));
  guint32 to_member = ctx->member - ctx->pos * ctx->stride + to * ctx->stride;
  /* Same chunk and phase, another member: the run as many members' runs
   * away; in lockstep, the message its symmetric peer sends this member,
   * which arrives at the same time. */
  guint64 to_run = coll->lockstep ? ctx->run_index
                                  : ctx->run_index + ((guint64) to_member - ctx->member)
                                                         * coll->n_chunks * coll->n_phases;
  NetMessage msg = { .at = at, .src = coll->group->ranks[ctx->member],
                     .dst = coll->group->ranks[to_member],
                     .order = coll->members[ctx->member].order,
                     .tie = coll->tie_by_place ? ctx->member + 1 : 0, .dim = ctx->net_dim,
                     .bytes = bytes,
                     .on_delivered = sys_phase_on_message, .data = coll,
                     .arg = (to_run << coll->step_bits) | step };
  net_send_message (coll->sys->net, &msg);
}

void
sys_phase_send (const SysPhaseCtx *ctx, guint32 to, guint32 step, guint64 bytes, SimTime at)
{
  phase_send (ctx, to, step, bytes, at);
}

/* Out of line: the ring calls it from its hot path's rare case. */
G_NO_INLINE void
sys_phase_send_next_slow (const SysPhaseCtx *ctx, SysRun *run, guint32 step, guint64 bytes,
                          SimTime at)
{
  SysColl *coll = ctx->coll;
  guint32 next = ctx->pos + 1 == ctx->n ? 0 : ctx->pos + 1;
  if (!coll->fixed_prices)
    {
      phase_send (ctx, next, step, bytes, at);
      return;
    }
  g_assert (step < (G_GUINT64_CONSTANT (1) << coll->step_bits));
  guint32 to_member = next == 0 ? ctx->member - ctx->wrap_members : ctx->member + ctx->stride;
  guint32 src = coll->group->ranks[ctx->member], dst = coll->group->ranks[to_member];
  /* As sys_phase_send's, to position next. */
  guint64 to_run = ctx->run_index + (next == 0 ? ctx->wrap_runs : ctx->next_runs);
  if (run->next_bytes != bytes + 1 || run->next_bytes == 0)
    {
      g_assert (src != dst);
      run->next_delay = net_delay_on (coll->sys->net, ctx->net_dim, src, dst, bytes);
      run->next_bytes = bytes + 1;
      run->next_arg = to_run << coll->step_bits;
    }
  guint64 arg = (to_run << coll->step_bits) | step;
  NetTally *tally = coll->direct_tally;
  if (tally == NULL)
    {
      net_send_priced (coll->sys->net, at, run->next_delay, src, dst, bytes,
                       sys_phase_on_message, coll, arg);
      return;
    }
  /* net_send_priced's work, without the call. */
  g_assert (at >= *ctx->clock);
  tally->messages++;
  tally->bytes += bytes;
  sim_sched_at (coll->sys->sched, sim_time_add (at, run->next_delay), sys_phase_on_message, coll,
                arg);
}

guint32
sys_phase_ready_step (const SysPhaseCtx *ctx)
{
  return SYS_PHASE_READY_STEP (ctx->coll->step_bits);
}

const SysNcclPlan *
sys_phase_nccl (const SysPhaseCtx *ctx)
{
  g_assert (ctx->coll->is_nccl);
  return &ctx->coll->nccl;
}

void
sys_phase_send_routed (const SysPhaseCtx *ctx, guint32 from, guint32 via, guint32 to,
                       guint32 step, guint64 bytes, SimTime at)
{
  SysColl *coll = ctx->coll;
  g_assert (coll->phase[ctx->phase].gdim == coll->group->n_dims);
  g_assert (step < SYS_PHASE_READY_STEP (coll->step_bits));
  /* In lockstep only lines whose members send from their own rank to the
   * member they serve run (sys_group_alike): the message comes back as
   * the one the member's predecessor sends it. */
  g_assert (!coll->lockstep || (from == ctx->member && via == to));
  /* Node-shift symmetry: to member to mod k, which in the full run gets
   * it from the member as many places before `from` (its tie). */
  guint32 shift = coll->period > 0 ? to - to % coll->period : 0, n = coll->group->n;
  guint64 to_run = sys_coll_run_index (coll, coll->lockstep ? ctx->member : to - shift,
                                       ctx->chunk, ctx->phase);
  /* Its order is the node's place in the trace of the member whose line
   * sends it (ctx->member, who has joined), not of `from`: NCCL's hop
   * between nodes leaves from the rail's member (ring_hop), who may not
   * have joined yet (order 0) or never be simulated (a class's image).
   * Two collectives' first hops then met at its port with one order and
   * were put in order by its places in their groups, which differ from
   * node to node (the full run was not alike under a node shift:
   * tests/scripts/test_symmetry_classes.sh, "PXN order"). */
  NetMessage msg = { .at = at, .src = coll->group->ranks[from], .dst = coll->group->ranks[via],
                     .order = coll->members[ctx->member].order,
                     .tie = coll->tie_by_place ? (from + n - shift) % n + 1 : 0,
                     .dim = NET_DIM_UNKNOWN, .bytes = bytes,
                     .on_delivered = sys_phase_on_message, .data = coll,
                     .arg = (to_run << coll->step_bits) | step };
  net_send_message (coll->sys->net, &msg);
}

void
sys_phase_notify (const SysPhaseCtx *ctx, guint32 to, SimTime at)
{
  SysColl *coll = ctx->coll;
  if (coll->period > 0)
    to %= coll->period;
  guint64 to_run = sys_coll_run_index (coll, coll->lockstep ? ctx->member : to, ctx->chunk,
                                       ctx->phase);
  sim_sched_at (coll->sys->sched, at, sys_phase_on_message, coll,
                (to_run << coll->step_bits) | SYS_PHASE_READY_STEP (coll->step_bits));
}

void
sys_phase_finish (const SysPhaseCtx *ctx, SimTime at)
{
  /* Once per chunk phase on every rank: at or after now (the common case)
   * it pushes inline, as the ring's send does; sim_sched_at reports the
   * rest. */
  if (G_LIKELY (at >= *ctx->clock))
    sim_queue_push_trusted (ctx->queue, at, sys_phase_on_done, ctx->coll, ctx->run_index);
  else
    sim_sched_at (ctx->sys->sched, at, sys_phase_on_done, ctx->coll, ctx->run_index);
}

void
sys_phase_signal (const SysPhaseCtx *ctx, guint32 to, guint32 step, SimTime at)
{
  SysColl *coll = ctx->coll;
  g_assert (!coll->lockstep && to < ctx->n);
  g_assert (step < SYS_PHASE_READY_STEP (coll->step_bits));
  guint32 to_member = ctx->member - ctx->pos * ctx->stride + to * ctx->stride;
  guint64 to_run = sys_coll_run_index (coll, to_member, ctx->chunk, ctx->phase);
  sim_sched_at (coll->sys->sched, at, sys_phase_on_message, coll,
                (to_run << coll->step_bits) | step);
}

void
sys_phase_on_message (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  SysColl *coll = data;
  guint32 step = (guint32) (arg & coll->step_mask);
  SysRun *run;
  const SysPhaseCtx *ctx = sys_coll_ctx_init (coll, arg >> coll->step_bits, &run);
  ctx->algo->on_message (ctx, run, step);
}

void
sys_phase_on_ctx_message (SimSched *sched, gpointer data, guint64 arg)
{
  const SysPhaseCtx *ctx = data;
  sys_phase_on_message (sched, ctx->coll, arg);
}
