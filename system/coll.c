/* coll.c: collective instances, chunking, phase planning and the per-rank
 * dimension queues that pipeline chunks across dimensions.
 *
 * Cost per message: one delivery event (the network's), plus one event per
 * member and chunk phase for its end.  Progress lives in flat arrays owned by
 * the instance; nothing is allocated per message.
 */
#include "system/coll_private.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/printable.h"

/* The step number of sys_phase_send_routed's readiness events: the
 * largest the step field holds, above every real step (< n^2). */
#define SYS_PHASE_READY_STEP(bits) ((guint32) ((G_GUINT64_CONSTANT (1) << (bits)) - 1))

/* SysColl and its parts: coll_private.h; what a collective reports:
 * coll_report.c. */

/* ---- planning ------------------------------------------------------------- */

static void
plan_add (SysColl *coll, guint gdim, guint d, SysCollKind op)
{
  g_assert (coll->n_phases < SYS_MAX_PHASES);
  SysPhasePlan plan = { .gdim = gdim, .topo_dim = d, .op = op,
                        .algo = coll->sys->algo[coll->kind][d].algo,
                        .param = coll->sys->algo[coll->kind][d].param };
  if (coll->group->policy_flat && !plan.algo->whole_group)
    {
      /* The policy's algorithm on a flat group's own line. */
      plan.algo = coll->sys->subgroup_algo;
      plan.param = 0;
    }
  coll->phase[coll->n_phases++] = plan;
}

/* The algorithm of a phase on topology dimension d. */
static const SysAlgoClass *
phase_algo (const SysColl *coll, guint d)
{
  return coll->group->policy_flat ? coll->sys->subgroup_algo : coll->sys->algo[coll->kind][d].algo;
}

/* The phases every chunk runs, over the group dimensions allowed by the
 * request's involved-dimension mask. */
static void
plan_phases (SysColl *coll, guint32 involved)
{
  const SysParams *p = &coll->sys->params;
  if (coll->group->n < 2)
    return;
  /* Rooted kinds, the barrier and programs run over every member as one
   * line (a program on dimension 0's queue, as ASTRA-sim runs a custom
   * collective). */
  if (coll->sys->algo[coll->kind][0].algo->whole_group)
    {
      plan_add (coll, coll->group->n_dims, 0, coll->kind);
      return;
    }
  if (sys_coll_kind_rooted (coll->kind) || coll->kind == SYS_COLL_BARRIER)
    {
      guint flat = coll->group->n_dims;
      plan_add (coll, flat, coll->group->dims[flat].topo_dim, coll->kind);
      return;
    }
  guint dims[NET_MAX_DIMS + 1], tds[NET_MAX_DIMS + 1], nd = 0;
  for (guint g = 0; g < coll->group->n_dims; g++)
    {
      guint d = coll->group->dims[g].topo_dim;
      /* ASTRA-sim's logical topology has as many dimensions as the kind's
       * implementation list names: the others are never used. */
      if (p->compat.dims_from_impl && d >= p->n_impl[coll->kind])
        continue;
      /* A "one" algorithm takes every member from here on as one flat
       * dimension and ends the list. */
      if (coll->sys->algo[coll->kind][d].flat && !coll->group->policy_flat)
        {
          tds[nd] = d;
          dims[nd++] = coll->group->n_dims;
          break;
        }
      if (involved & (1u << d))
        {
          tds[nd] = d;
          dims[nd++] = g;
        }
    }
  if (nd == 0)
    return;
  if (coll->kind == SYS_COLL_ALL_REDUCE && coll->sys->params.opt == SYS_OPT_LOCAL_BW_AWARE)
    {
      /* A dimension whose algorithm only all-reduces (doubleBinaryTree)
       * all-reduces the whole chunk in place of the reduce-scatter and
       * contributes nothing on the way down, as in ASTRA-sim. */
      for (guint i = 0; i + 1 < nd; i++)
        plan_add (coll, dims[i], tds[i],
                  sys_algo_supports (phase_algo (coll, tds[i]), SYS_COLL_REDUCE_SCATTER)
                      ? SYS_COLL_REDUCE_SCATTER
                      : SYS_COLL_ALL_REDUCE);
      plan_add (coll, dims[nd - 1], tds[nd - 1], SYS_COLL_ALL_REDUCE);
      for (guint i = nd - 1; i-- > 0;)
        if (sys_algo_supports (phase_algo (coll, tds[i]), SYS_COLL_ALL_GATHER))
          plan_add (coll, dims[i], tds[i], SYS_COLL_ALL_GATHER);
      return;
    }
  /* All-gather grows its data as it goes: it starts on the outermost
   * dimension, where the per-rank input is smallest, and ends innermost
   * (ASTRA-sim orders it the same way). */
  if (coll->kind == SYS_COLL_ALL_GATHER)
    for (guint i = nd; i-- > 0;)
      plan_add (coll, dims[i], tds[i], coll->kind);
  else
    for (guint i = 0; i < nd; i++)
      plan_add (coll, dims[i], tds[i], coll->kind);
}

/* Every phase's algorithm implements what the phase does.  Only a system
 * that defers that check to use (SysParams.kind_check_at_use) can plan one
 * that does not: a kind listed with an algorithm it lacks, met on a
 * dimension that runs it (a dimension of one member, one the collective
 * does not involve, or a group laid out flat never runs it). */
static gboolean
plan_check (const SysColl *coll, GError **error)
{
  const SysParams *p = &coll->sys->params;
  for (guint ph = 0; ph < coll->n_phases; ph++)
    {
      const SysPhasePlan *plan = &coll->phase[ph];
      if (sys_algo_supports (plan->algo, plan->op))
        continue;
      guint d = plan->topo_dim;
      g_autofree char *known = sys_algorithms_for (plan->op, p->compat.timing);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s on dimension %u: the config's algorithm '%s' has no %s (algorithms "
                   "that have: %s)",
                   sys_coll_kind_name (coll->kind), d,
                   p->impl[coll->kind][MIN (d, p->n_impl[coll->kind] - 1)],
                   sys_coll_kind_name (plan->op), known);
      return FALSE;
    }
  return TRUE;
}

static guint64
split_bytes (const Sys *sys, guint64 in, guint32 n)
{
  return sys->params.compat.split == SYS_SPLIT_DOWN ? in / n : (in + n - 1) / n;
}

/* Sizes entering each phase of each chunk: reduce-scatter divides by the
 * dimension's size, all-gather multiplies. */
static void
plan_sizes (SysColl *coll)
{
  const SysParams *p = &coll->sys->params;
  coll->in_bytes = g_new (guint64, (gsize) coll->n_chunks * MAX (coll->n_phases, 1));
  for (guint c = 0; c < coll->n_chunks; c++)
    {
      guint64 cur = p->compat.chunking == SYS_CHUNKS_FIXED_SIZE ? coll->chunk_bytes
                                      : coll->bytes / coll->n_chunks
                                            + (c < coll->bytes % coll->n_chunks);
      for (guint ph = 0; ph < coll->n_phases; ph++)
        {
          guint32 n = coll->group->dims[coll->phase[ph].gdim].size;
          coll->in_bytes[c * coll->n_phases + ph] = cur;
          if (coll->phase[ph].op == SYS_COLL_REDUCE_SCATTER)
            cur = split_bytes (coll->sys, cur, n);
          else if (coll->phase[ph].op == SYS_COLL_ALL_GATHER)
            cur = cur * n;
        }
    }
}

/* The most steps any phase can take, to size the step field of a message. */
static guint
plan_step_bits (const SysColl *coll)
{
  guint64 max_steps = 1;
  for (guint ph = 0; ph < coll->n_phases; ph++)
    {
      guint64 n = coll->group->dims[coll->phase[ph].gdim].size;
      max_steps = MAX (max_steps, n * n); /* generous bound for every algorithm */
      max_steps = MAX (max_steps, (guint64) coll->phase[ph].algo->max_steps + 1);
    }
  guint bits = g_bit_storage (max_steps);
  return bits;
}

/* Chunks, as the policy's SysChunking says. */
static void
plan_chunks (SysColl *coll)
{
  const SysParams *p = &coll->sys->params;
  coll->n_chunks = p->splits;
  if (coll->sys->algo[coll->kind][0].algo->whole_group)
    {
      /* A program moves the sizes it names, once (ASTRA-sim's custom
       * collectives: one stream over the whole size). */
      coll->n_chunks = 1;
      coll->chunk_bytes = coll->bytes;
      return;
    }
  if (p->compat.chunking == SYS_CHUNKS_EXACT)
    return;
  guint64 size = coll->bytes, chunk = size / p->splits;
  guint64 ranks = net_topo_ranks (coll->sys->topo);
  if (coll->kind != SYS_COLL_ALL_GATHER && chunk < ranks)
    {
      chunk = ranks;
      size = p->splits * ranks;
    }
  coll->chunk_bytes = chunk;
  coll->n_chunks = chunk == 0 ? 1 : (guint) ((size + chunk - 1) / chunk);
}

/* The NCCL library's plan, when it runs this kind: one phase over every
 * member (flat), a chunk per ring line, each the lines' share of the bytes.
 * FALSE with an error when NCCL cannot run it. */
static gboolean
plan_nccl (SysColl *coll, GError **error)
{
  Sys *sys = coll->sys;
  SysGroup *group = coll->group;
  SysNcclFunc func;
  /* A program given for the kind takes NCCL's place, as MSCCL's does. */
  if (sys->params.lib.library != SYS_LIBRARY_NCCL || !sys_nccl_func_of (coll->kind, &func)
      || group->n < 2 || sys->params.program[coll->kind] != NULL)
    return TRUE;
  if (group->nccl == NULL)
    {
      group->nccl = sys_nccl_group_new (sys->topo, group->ranks, group->n, &sys->params.lib, error);
      if (group->nccl == NULL)
        return FALSE;
    }
  if (!sys_nccl_plan (group->nccl, coll->kind, coll->bytes, &coll->nccl, error))
    return FALSE;
  coll->is_nccl = TRUE;
  coll->n_chunks = coll->nccl.lines;
  guint flat = group->n_dims;
  coll->phase[0] = (SysPhasePlan) { .gdim = flat, .topo_dim = group->dims[flat].topo_dim,
                                    .op = coll->kind, .algo = sys_nccl_plan_algo (&coll->nccl) };
  coll->n_phases = 1;
  coll->in_bytes = g_new (guint64, coll->n_chunks);
  for (guint c = 0; c < coll->n_chunks; c++)
    coll->in_bytes[c] = coll->bytes / coll->n_chunks + (c < coll->bytes % coll->n_chunks);
  return TRUE;
}

/* What an event needs to find its run's context: the context each
 * (chunk, phase) shares, and each run's member, position and (chunk,
 * phase), so that no event decodes or recomputes them. */
static void
plan_runs (SysColl *coll)
{
  const SysGroup *group = coll->group;
  guint P = coll->n_phases, CP = coll->n_chunks * P;
  coll->ctx = g_new0 (SysPhaseCtx, MAX (CP, 1u));
  for (guint c = 0; c < coll->n_chunks; c++)
    for (guint ph = 0; ph < P; ph++)
      {
        const SysPhasePlan *plan = &coll->phase[ph];
        const SysGroupDim *gd = &group->dims[plan->gdim];
        coll->ctx[c * P + ph] = (SysPhaseCtx) {
          .sys = coll->sys, .coll = coll, .algo = plan->algo, .op = plan->op,
          .in_bytes = coll->in_bytes[c * P + ph], .n = gd->size, .chunk = c, .phase = ph,
          .root = coll->root, .param = plan->param, .stride = gd->stride,
          .clock = sim_sched_clock (coll->sys->sched),
          .split_down = coll->sys->params.compat.split == SYS_SPLIT_DOWN,
          .endpoint_delay = group->policy_flat ? coll->sys->params.compat.subgroup_delay
                                               : coll->sys->params.endpoint_delay,
          .net_dim = plan->gdim < group->n_dims && !group->policy_flat && group->aligned
                         ? gd->topo_dim
                         : NET_DIM_UNKNOWN };
      }
  for (guint32 m = 0; m < group->n; m++)
    for (guint cp = 0; cp < CP; cp++)
      {
        const SysGroupDim *gd = &group->dims[coll->phase[cp % P].gdim];
        SysRun *run = &coll->runs[(gsize) m * CP + cp];
        run->member = m;
        run->chunk_phase = cp;
        run->pos = group->pos != NULL
                       ? group->pos[(gsize) m * (group->n_dims + 1) + coll->phase[cp % P].gdim]
                       : (m / gd->stride) % gd->size;
      }
}

static SysColl *
coll_new (Sys *sys, SysGroup *group, guint32 seq, const SysCollRequest *req, guint32 root,
          GError **error)
{
  SysColl *coll = g_new0 (SysColl, 1);
  coll->sys = sys;
  coll->group = group;
  coll->seq = seq;
  coll->kind = req->kind;
  coll->bytes = req->kind == SYS_COLL_BARRIER ? 0 : req->bytes;
  coll->root = root;
  if (!plan_nccl (coll, error))
    {
      g_free (coll);
      return NULL;
    }
  if (!coll->is_nccl)
    {
      plan_chunks (coll);
      plan_phases (coll, req->involved_dims);
      if (!plan_check (coll, error))
        {
          g_free (coll);
          return NULL;
        }
      plan_sizes (coll);
    }
  coll->step_bits = plan_step_bits (coll);
  guint64 n_runs = (guint64) group->n * coll->n_chunks * MAX (coll->n_phases, 1);
  g_assert (coll->step_bits + g_bit_storage (n_runs) <= 64);
  coll->members = g_new0 (SysMember, group->n);
  /* members x chunks x phases can be large (many ranks, many splits): an
   * input error rather than an abort in the allocator. */
  coll->runs = n_runs <= G_MAXSIZE / sizeof (SysRun) ? g_try_new0 (SysRun, n_runs) : NULL;
  if (coll->runs == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "out of memory allocating %" G_GUINT64_FORMAT " x %zu bytes for a collective's "
                   "runs (%u members x %u chunks x %u phases)", n_runs, sizeof (SysRun),
                   group->n, coll->n_chunks, MAX (coll->n_phases, 1));
      sys_coll_free (coll);
      return NULL;
    }
  plan_runs (coll);
  for (guint ph = 0; ph < coll->n_phases; ph++)
    {
      const SysAlgoClass *a = coll->phase[ph].algo;
      if (a->check != NULL
          && !a->check (a, coll->phase[ph].op, coll->group->dims[coll->phase[ph].gdim].size,
                        error))
        {
          sys_coll_free (coll);
          return NULL;
        }
    }
  coll->first_join = sim_sched_now (sys->sched);
  g_hash_table_insert (group->live, GUINT_TO_POINTER (seq + 1u), coll);
  g_hash_table_add (sys->live_colls, coll);
  return coll;
}

void
sys_coll_free (SysColl *coll)
{
  if (coll == NULL)
    return;
  /* Rows that keep state per run release what a collective left unfinished
   * (a run whose peers never came). */
  guint CP = coll->n_chunks * coll->n_phases;
  for (guint cp = 0; coll->runs != NULL && cp < CP; cp++)
    if (coll->phase[cp % coll->n_phases].algo->run_free != NULL)
      for (guint32 m = 0; m < coll->group->n; m++)
        coll->phase[cp % coll->n_phases].algo->run_free (&coll->runs[(gsize) m * CP + cp]);
  g_free (coll->in_bytes);
  g_free (coll->ctx);
  g_free (coll->members);
  g_free (coll->runs);
  g_free (coll);
}

/* ---- phase context and helpers for algorithms ------------------------------ */

static guint64
run_index (const SysColl *coll, guint32 member, guint chunk, guint phase)
{
  return ((guint64) member * coll->n_chunks + chunk) * coll->n_phases + phase;
}

/* The context of run `index`: its (chunk, phase)'s, with the member's
 * part from the run (plan_runs). */
static inline SysRun *
ctx_init (SysPhaseCtx *ctx, SysColl *coll, guint64 index)
{
  SysRun *run = &coll->runs[index];
  *ctx = coll->ctx[run->chunk_phase];
  ctx->member = run->member;
  ctx->pos = run->pos;
  ctx->run_index = index;
  return run;
}

static void on_message (SimSched *sched, gpointer data, guint64 arg);
static void on_phase_done (SimSched *sched, gpointer data, guint64 index);

void
sys_phase_send (const SysPhaseCtx *ctx, guint32 to, guint32 step, guint64 bytes, SimTime at)
{
  SysColl *coll = ctx->coll;
  g_assert (to < ctx->n && to != ctx->pos);
  g_assert (step < (G_GUINT64_CONSTANT (1) << coll->step_bits));
  guint32 to_member = ctx->member - ctx->pos * ctx->stride + to * ctx->stride;
  /* Same chunk and phase, another member; in lockstep, the message its
   * symmetric peer sends this member, which arrives at the same time. */
  guint64 to_run = run_index (coll, coll->sys->lockstep ? ctx->member : to_member, ctx->chunk,
                              ctx->phase);
  NetMessage msg = { .at = at, .src = coll->group->ranks[ctx->member],
                     .dst = coll->group->ranks[to_member],
                     .order = coll->members[ctx->member].order, .dim = ctx->net_dim, .bytes = bytes,
                     .on_delivered = on_message, .data = coll,
                     .arg = (to_run << coll->step_bits) | step };
  net_send_message (coll->sys->net, &msg);
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
  g_assert (!coll->sys->lockstep || (from == ctx->member && via == to));
  guint64 to_run = run_index (coll, coll->sys->lockstep ? ctx->member : to, ctx->chunk, ctx->phase);
  NetMessage msg = { .at = at, .src = coll->group->ranks[from], .dst = coll->group->ranks[via],
                     .order = coll->members[from].order, .dim = NET_DIM_UNKNOWN, .bytes = bytes,
                     .on_delivered = on_message, .data = coll,
                     .arg = (to_run << coll->step_bits) | step };
  net_send_message (coll->sys->net, &msg);
}

void
sys_phase_notify (const SysPhaseCtx *ctx, guint32 to, SimTime at)
{
  SysColl *coll = ctx->coll;
  guint64 to_run = run_index (coll, coll->sys->lockstep ? ctx->member : to, ctx->chunk, ctx->phase);
  sim_sched_at (coll->sys->sched, at, on_message, coll,
                (to_run << coll->step_bits) | SYS_PHASE_READY_STEP (coll->step_bits));
}

void
sys_phase_finish (const SysPhaseCtx *ctx, SimTime at)
{
  sim_sched_at (ctx->sys->sched, at, on_phase_done, ctx->coll, ctx->run_index);
}

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
       * of operations, since an exact multiple can come out one below. */
      guint64 ns = (guint64) ((double) bytes / p->local_mem_bw_Bps * 1e9);
      cost = sim_time_mul (sim_time_from_ns (ns), p->reduction_passes);
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
    return sim_time_from_ns ((guint64) ((double) bytes / p->local_mem_bw_Bps * 1e9));
  return net_serialization_ps (bytes, p->local_mem_bw_Bps);
}

void
sys_phase_signal (const SysPhaseCtx *ctx, guint32 to, guint32 step, SimTime at)
{
  SysColl *coll = ctx->coll;
  g_assert (!coll->sys->lockstep && to < ctx->n);
  g_assert (step < SYS_PHASE_READY_STEP (coll->step_bits));
  guint32 to_member = ctx->member - ctx->pos * ctx->stride + to * ctx->stride;
  guint64 to_run = run_index (coll, to_member, ctx->chunk, ctx->phase);
  sim_sched_at (coll->sys->sched, at, on_message, coll, (to_run << coll->step_bits) | step);
}

/* ---- per-rank dimension queues --------------------------------------------- */

/* Whether RANK's queue Q of DIM holds a chunk phase of another collective
 * than COLL. */
static gboolean
others_wait (const SysWaitQueue *q, const SysColl *coll)
{
  for (guint i = 0; i < q->len; i++)
    if (q->heap[i].coll != coll)
      return TRUE;
  return FALSE;
}

/* Symmetry classes over shared ports: COLL uses queue Q of DIM (a push or
 * a pick).  When another collective used it at this instant and chunk
 * phases of another collective wait in it, which goes first is the order
 * the run handles the two in, which the ranks a class stands for may meet
 * differently (sys_class_overlaps).  A use by one collective after
 * another's at one instant with nothing else waiting (the next node of a
 * trace starting as the last one ends) decides nothing. */
static void
note_use (Sys *sys, SysRankQueues *q, guint dim, const SysColl *coll)
{
  SimTime now = sim_sched_now (sys->sched);
  if (q->used_group[dim] != NULL && q->used_at[dim] == now
      && (q->used_group[dim] != coll->group || q->used_seq[dim] != coll->seq)
      && others_wait (&q->waiting[dim], coll))
    {
      /* The run will be redone: stop it now. */
      sys->class_overlaps++;
      sim_sched_stop (sys->sched);
    }
  q->used_at[dim] = now;
  q->used_group[dim] = coll->group;
  q->used_seq[dim] = coll->seq;
}

static void
queue_push (Sys *sys, guint32 rank, guint dim, SysColl *coll, guint64 run, gint64 prio)
{
  SysRankQueues *q = &sys->queues[rank];
  SysWaiting w = { .coll = coll, .run_index = run, .priority = prio,
                   .order = sys->queue_order++ };
  sys_waitq_push (&q->waiting[dim], &w);
  if (sys->classes_shared)
    note_use (sys, q, dim, coll);
}

/* LIFO: each collective a rank issues outranks the ones before it; FIFO:
 * the reverse; EXPLICIT: the trace's comm_priority.  Running phases are
 * never preempted: the order only decides among waiting ones. */
static gint64
collective_priority (Sys *sys, guint32 rank, const SysCollRequest *req)
{
  SysRankQueues *q = &sys->queues[rank];
  switch (sys->params.policy)
    {
    case SYS_SCHED_LIFO:
      return ++q->issued;
    case SYS_SCHED_FIFO:
      return -(++q->issued);
    case SYS_SCHED_EXPLICIT:
    default:
      return req->priority;
    }
}

static void
run_start (SysColl *coll, guint64 index)
{
  SysPhaseCtx ctx;
  SysRun *run = ctx_init (&ctx, coll, index);
  run->started = 1;
  ctx.algo->start (&ctx, run);
}

static void
queue_kick (Sys *sys, guint32 rank, guint dim, const SysColl *coll)
{
  SysRankQueues *q = &sys->queues[rank];
  if (sys->classes_shared)
    note_use (sys, q, dim, coll);
  /* The next to run is the highest priority, the oldest among equals
   * (waitq.h).  Priorities belong to collectives (see collective_priority),
   * so the chunks and phases of one collective keep their arrival order. */
  SysWaiting w;
  while (q->active[dim] < sys->params.active_chunks_per_dim && sys_waitq_pop (&q->waiting[dim], &w))
    {
      q->active[dim]++;
      run_start (w.coll, w.run_index);
    }
}

/* ---- events ---------------------------------------------------------------- */

static void
on_message (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  SysColl *coll = data;
  guint32 step = (guint32) (arg & ((G_GUINT64_CONSTANT (1) << coll->step_bits) - 1));
  SysPhaseCtx ctx;
  SysRun *run = ctx_init (&ctx, coll, arg >> coll->step_bits);
  ctx.algo->on_message (&ctx, run, step);
}

static void
coll_retire (SysColl *coll)
{
  Sys *sys = coll->sys;
  SysCollStats *st = &sys->stats[coll->kind];
  SimTime now = sim_sched_now (sys->sched);
  st->count++;
  st->bytes += coll->bytes;
  st->busy += now - coll->first_join;
  sys_coll_stats_add (sys, coll, now);
  g_hash_table_remove (coll->group->live, GUINT_TO_POINTER (coll->seq + 1u));
  g_hash_table_remove (sys->live_colls, coll);
  sys_coll_free (coll);
}

/* Lockstep: the other members join with the one that runs, and are done
 * with it (in lockstep every member of a group stands for the others: the
 * world, or with symmetry classes a group inside one class). */
static void
lockstep_join_all (SysColl *coll, gint64 runner)
{
  g_assert (coll->joined == 1);
  for (guint32 i = 0; i < coll->group->n; i++)
    if (i != runner)
      coll->members[i] = (SysMember) { .join_time = coll->members[runner].join_time,
                                       .joined = 1, .done = 1 };
  coll->joined = coll->group->n;
  coll->done = coll->group->n - 1;
}

static void
member_done (SysColl *coll, guint32 member)
{
  SysMember *m = &coll->members[member];
  g_assert (m->joined && !m->done);
  m->done = 1;
  SimHandler fn = m->on_done;
  gpointer data = m->data;
  guint64 arg = m->arg;
  SysCollJoinerFunc joiner = m->on_last_joiner;
  const SysMember *last = &coll->members[coll->last_member];
  gpointer last_data = last->data;
  guint64 last_arg = last->arg;
  SimSched *sched = coll->sys->sched;
  if (++coll->done == coll->group->n)
    coll_retire (coll); /* frees coll */
  if (joiner != NULL)
    joiner (data, arg, last_data, last_arg);
  /* Last, so that the caller may join its next collective from here. */
  if (fn != NULL)
    fn (sched, data, arg);
}

static void
on_phase_done (SimSched *sched, gpointer data, guint64 index)
{
  (void) sched;
  SysColl *coll = data;
  Sys *sys = coll->sys;
  guint P = coll->n_phases;
  SysRun *run = &coll->runs[index];
  guint ph = run->chunk_phase % P;
  guint32 member = run->member;
  guint32 rank = coll->group->ranks[member];
  guint dim = coll->phase[ph].topo_dim;
  run->done = 1;
  if (coll->is_nccl)
    {
      if (--coll->members[member].chunks_left == 0)
        member_done (coll, member);
      return;
    }
  sys->queues[rank].active[dim]--;
  if (ph + 1 < P)
    {
      guint next_dim = coll->phase[ph + 1].topo_dim;
      queue_push (sys, rank, next_dim, coll, index + 1, coll->members[member].priority);
      queue_kick (sys, rank, dim, coll);
      if (next_dim != dim)
        queue_kick (sys, rank, next_dim, coll);
      return;
    }
  gboolean last = --coll->members[member].chunks_left == 0;
  queue_kick (sys, rank, dim, coll);
  if (last)
    member_done (coll, member);
}

/* A collective with nothing to do on the network (one member, or no
 * involved dimension) completes for each member when it joins. */
static void
on_trivial_done (SimSched *sched, gpointer data, guint64 member)
{
  (void) sched;
  member_done (data, (guint32) member);
}

/* ---- joining --------------------------------------------------------------- */

static gboolean
check_match (const SysColl *coll, guint32 rank, const SysCollRequest *req, guint32 root,
             GError **error)
{
  if (coll->kind == req->kind && coll->root != root)
    {
      g_autofree char *label = sys_group_label (coll->group);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "rank %u node %" G_GUINT64_FORMAT ": %s #%u on %s has root rank %u here but "
                   "rank %u on the ranks that joined it first",
                   rank, req->node_id, sys_coll_kind_name (req->kind), coll->seq, label,
                   coll->group->ranks[root], coll->group->ranks[coll->root]);
      return FALSE;
    }
  if (coll->kind == req->kind
      && (coll->bytes == req->bytes || coll->kind == SYS_COLL_BARRIER))
    return TRUE;
  g_autofree char *label = sys_group_label (coll->group);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "rank %u node %" G_GUINT64_FORMAT ": collective #%u on %s is %s of %"
               G_GUINT64_FORMAT " bytes here but %s of %" G_GUINT64_FORMAT
               " bytes on the ranks that joined it first",
               rank, req->node_id, coll->seq, label, sys_coll_kind_name (req->kind), req->bytes,
               sys_coll_kind_name (coll->kind), coll->bytes);
  return FALSE;
}

gboolean
sys_coll_join (Sys *sys, guint32 rank, const SysCollRequest *req, GError **error)
{
  g_return_val_if_fail (sys != NULL && req != NULL && req->kind < SYS_COLL_N, FALSE);
  SysGroup *group = sys_group_find (sys, req->group);
  if (group == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "rank %u node %" G_GUINT64_FORMAT ": group %" G_GUINT64_FORMAT
                   " is not defined",
                   rank, req->node_id, req->group);
      return FALSE;
    }
  gint64 member = sys_group_member (group, rank);
  if (member < 0)
    {
      g_autoptr (GString) members = g_string_new (NULL);
      for (guint32 i = 0; i < group->n && i < 16; i++)
        g_string_append_printf (members, "%s%u", i ? "," : "", group->ranks[i]);
      if (group->n > 16)
        g_string_append_printf (members, ",... (%u in all)", group->n);
      g_autofree char *label = sys_group_label (group);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "rank %u node %" G_GUINT64_FORMAT ": its collective names %s, whose members "
                   "are %s: rank %u is not one of them",
                   rank, req->node_id, label, members->str, rank);
      return FALSE;
    }
  guint32 root = 0;
  if (sys_coll_kind_rooted (req->kind) && req->root != SYS_ROOT_FIRST)
    {
      gint64 r = req->root < net_topo_ranks (sys->topo) ? sys_group_member (group, req->root) : -1;
      if (r < 0)
        {
          g_autofree char *label = sys_group_label (group);
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "rank %u node %" G_GUINT64_FORMAT ": the root of its %s, rank %u, is "
                       "not a member of %s",
                       rank, req->node_id, sys_coll_kind_name (req->kind), req->root, label);
          return FALSE;
        }
      root = (guint32) r;
    }
  guint32 seq = group->next_seq[member]++;
  SysColl *coll = g_hash_table_lookup (group->live, GUINT_TO_POINTER (seq + 1u));
  if (coll == NULL)
    {
      coll = coll_new (sys, group, seq, req, root, error);
      if (coll == NULL)
        {
          group->next_seq[member]--;
          g_autofree char *label = sys_group_label (group);
          g_autofree char *name = req->node_name != NULL && req->node_name[0] != '\0'
                                      ? sim_printable (req->node_name, FALSE)
                                      : NULL;
          sim_error_prefix (error, "rank %u node %" G_GUINT64_FORMAT "%s%s%s (%s): ", rank,
                            req->node_id, name ? " \"" : "", name ? name : "",
                            name ? "\"" : "", label);
          return FALSE;
        }
    }
  else if (!check_match (coll, rank, req, root, error))
    return FALSE;

  SysMember *m = &coll->members[member];
  *m = (SysMember) { .on_done = req->on_done, .data = req->data, .arg = req->arg,
                     .on_last_joiner = req->on_last_joiner, .node_id = req->node_id,
                     .order = req->order, .join_time = sim_sched_now (sys->sched),
                     .priority = collective_priority (sys, rank, req),
                     .chunks_left = coll->n_chunks, .joined = 1 };
  coll->joined++;
  if (sys->lockstep)
    lockstep_join_all (coll, member);
  coll->last_join = sim_sched_now (sys->sched);
  coll->last_member = (guint32) member;
  if (coll->n_phases == 0)
    {
      sim_sched_at (sys->sched, sim_sched_now (sys->sched), on_trivial_done, coll,
                    (guint64) member);
      return TRUE;
    }
  if (coll->is_nccl)
    {
      for (guint c = 0; c < coll->n_chunks; c++)
        run_start (coll, run_index (coll, (guint32) member, c, 0));
      return TRUE;
    }
  guint dim = coll->phase[0].topo_dim;
  for (guint c = 0; c < coll->n_chunks; c++)
    {
      queue_push (sys, rank, dim, coll, run_index (coll, (guint32) member, c, 0), m->priority);
    }
  queue_kick (sys, rank, dim, coll);
  return TRUE;
}
