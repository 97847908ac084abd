/* coll_plan.c: a collective instance made and planned: its phases per
 * dimension and their algorithms, chunk sizes, the runs of every member,
 * chunk and phase (see coll_private.h).  coll_memo.c keeps each plan
 * for later instances, and frees them. */
#include "system/coll_private.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

/* A collective's runs, one cache line each (SysRun is 64 bytes) and
 * aligned to one: every message event reads and writes its run, and the
 * every-rank ring all-reduce's 4,096 runs outgrow the first-level cache,
 * so a run that straddled two lines (malloc aligns to 16) cost two misses
 * an event where one will do (coll_private.h). */
G_STATIC_ASSERT (sizeof (SysRun) == 64);
SysRun *
sys_coll_runs_alloc (gsize n)
{
  if (n > G_MAXSIZE / sizeof (SysRun))
    return NULL;
  SysRun *runs = aligned_alloc (sizeof (SysRun), MAX (n, 1u) * sizeof (SysRun));
  if (runs != NULL)
    memset (runs, 0, MAX (n, 1u) * sizeof (SysRun));
  return runs;
}

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

/* sys_nccl_plan (GROUP->nccl, KIND, BYTES), through the group's memo
 * (SysNcclMemo): the same plan, without choosing it again. */
static gboolean
nccl_plan_memo (SysGroup *group, SysCollKind kind, guint64 bytes, SysNcclPlan *out,
                GError **error)
{
  if (group->nccl_memo == NULL)
    group->nccl_memo = g_new0 (SysNcclMemo, SYS_NCCL_MEMO);
  guint64 h = (bytes ^ ((guint64) kind << 56)) * 0x9E3779B97F4A7C15ull;
  SysNcclMemo *m = &group->nccl_memo[h >> 60 & (SYS_NCCL_MEMO - 1)];
  if (m->kind_1 == (guint32) kind + 1u && m->bytes == bytes)
    {
      *out = m->plan;
      return TRUE;
    }
  if (!sys_nccl_plan (group->nccl, kind, bytes, out, error))
    return FALSE;
  *m = (SysNcclMemo) { .bytes = bytes, .kind_1 = (guint32) kind + 1u, .plan = *out };
  return TRUE;
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
  if (!nccl_plan_memo (group, coll->kind, coll->bytes, &coll->nccl, error))
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

/* SysPhaseCtx.send_key (see algo.h).  Runs keep next_bytes 0 or, once
 * priced, step_bytes + 1 (only the ring sends through sys_phase_send_next,
 * always its step_bytes; 0 again for 2^64 - 1 bytes, which is never taken
 * for priced), so step_bytes + 2 is no run's, unless it wraps to 0, when
 * 1 is not either. */
static guint64
phase_next_key (const SysPhaseCtx *ctx)
{
  guint64 b = ctx->step_bytes;
  if (ctx->direct_tally != NULL && b != G_MAXUINT64)
    return b + 1;
  return b < G_MAXUINT64 - 1 ? b + 2 : 1;
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
        SysPhaseCtx *ctx = &coll->ctx[c * P + ph];
        ctx->share = ctx->n > 0 ? sys_phase_split (ctx, ctx->in_bytes, ctx->n) : 0;
        ctx->share_reduce = sys_phase_reduce_cost (ctx, ctx->share);
        guint64 runs_per_member = (guint64) coll->n_chunks * P;
        ctx->wrap_members = (ctx->n - 1) * ctx->stride;
        ctx->next_runs = coll->lockstep ? 0 : ctx->stride * runs_per_member;
        ctx->wrap_runs = coll->lockstep ? 0 : (guint64) 0 - ctx->wrap_members * runs_per_member;
        ctx->direct_tally = coll->fixed_prices ? coll->direct_tally : NULL;
        ctx->queue = sim_sched_queue (coll->sys->sched);
        ctx->step_bits = coll->step_bits;
        ctx->step_mask = coll->step_mask;
        ctx->runs = coll->runs;
        ctx->deliver = ctx->algo != NULL && ctx->algo->deliver != NULL ? ctx->algo->deliver
                                                                      : sys_phase_on_ctx_message;
        if (ctx->algo != NULL && ctx->algo->prepare != NULL)
          ctx->algo->prepare (ctx);
        ctx->send_key = phase_next_key (ctx);
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

/* The price of each ring run's first message to its successor, kept in
 * the run as sys_phase_send_next_slow keeps it (the same delay, bytes and
 * event arg), on a network whose prices are fixed and whose messages the
 * sender schedules (net_fixed_prices, net_direct_tally): every step of a
 * ring sends its ctx->step_bytes, so with the plan made once per request
 * (sys_coll_new) no instance prices its routes again.  Planned, the first
 * sends of the Llama-2 7B every-rank iteration took 210 instructions each
 * in the slow path (134,272 of them). */
static void
plan_prices (SysColl *coll)
{
  if (!coll->fixed_prices || coll->direct_tally == NULL || coll->is_nccl)
    return;
  guint CP = coll->n_chunks * coll->n_phases;
  const guint32 *ranks = coll->group->ranks;
  for (gsize i = 0; CP > 0 && i < (gsize) coll->group->n * CP; i++)
    {
      const SysPhaseCtx *ctx = &coll->ctx[i % CP];
      SysRun *run = &coll->runs[i];
      if (ctx->algo != &sys_algo_ring || sys_coll_kind_rooted (ctx->op) || ctx->steps == 0
          || ctx->n < 2)
        continue;
      /* As sys_phase_send_next_slow's, for RUN's member and position. */
      guint32 next = run->pos + 1 == ctx->n ? 0 : run->pos + 1;
      guint32 to_member = next == 0 ? run->member - ctx->wrap_members : run->member + ctx->stride;
      guint32 src = ranks[run->member], dst = ranks[to_member];
      if (src == dst)
        continue;
      guint64 to_run = i + (next == 0 ? ctx->wrap_runs : ctx->next_runs);
      run->next_delay = net_delay_on (coll->sys->net, ctx->net_dim, src, dst, ctx->step_bytes);
      run->next_bytes = ctx->step_bytes + 1;
      run->next_arg = to_run << coll->step_bits;
    }
}

/* Whether the messages of COLL carry their sender's place in the group
 * (SysColl.tie_by_place): over shared ports, when its members play roles.
 * A property of the collective alone, the same with symmetry classes as
 * without, so that a stand-in meets its ties as the ranks it stands for
 * (replay_classes.c, (4'')).  Without shared ports nothing reads it. */
static gboolean
ties_by_place (SysColl *coll, guint32 involved)
{
  Sys *sys = coll->sys;
  const char *why = NULL;
  if (net_sharing (sys->net) == NET_SHARING_NONE)
    return FALSE;
  if (coll->is_nccl)
    {
      /* A plan without ring steps is not alike; one with them is as its
       * group's layout is (sys_nccl_plan_alike), asked once per group. */
      SysGroup *g = coll->group;
      if (coll->nccl.nsteps == 0)
        return TRUE;
      if (g->nccl_rings_alike == 0)
        g->nccl_rings_alike = sys_nccl_plan_alike (&coll->nccl, sys->net, g->ranks, g->n, &why)
                                  ? 2 : 1;
      return g->nccl_rings_alike == 1;
    }
  return !sys_group_alike_of (sys, coll->group, coll->kind, coll->bytes, involved, &why);
}

/* Whether GROUP lies inside one symmetry class (or there are none). */
static gboolean
one_class (const Sys *sys, const SysGroup *group)
{
  if (sys->rep_of == NULL)
    return TRUE;
  for (guint32 m = 1; m < group->n; m++)
    if (sys->rep_of[group->ranks[m]] != sys->rep_of[group->ranks[0]])
      return FALSE;
  return TRUE;
}

/* With symmetry classes, a group across classes whose simulated members
 * are its first k, each standing for the members k, 2k, ... places on
 * (replay_classes.c, (4''')): k, else 0. */
static guint32
class_period (const Sys *sys, const SysGroup *group)
{
  if (sys->rep_of == NULL)
    return 0;
  guint32 k = 1;
  while (k < group->n && sys->rep_of[group->ranks[k]] == group->ranks[k])
    k++;
  if (k == group->n)
    return 0;
  /* The workload proved it (wl_classes_check_groups). */
  g_assert (group->n % k == 0);
  for (guint32 m = k; m < group->n; m++)
    g_assert (sys->rep_of[group->ranks[m]] == group->ranks[m % k]);
  return k;
}

/* See coll_private.h. */
SysColl *
sys_coll_plan_new (Sys *sys, SysGroup *group, const SysCollRequest *req, guint32 root, GError **error)
{
  SysColl *coll = g_new0 (SysColl, 1);
  coll->sys = sys;
  coll->group = group;
  coll->kind = req->kind;
  coll->bytes = req->kind == SYS_COLL_BARRIER ? 0 : req->bytes;
  coll->root = root;
  coll->lockstep = sys->lockstep && one_class (sys, group);
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
  coll->tie_by_place = ties_by_place (coll, req->involved_dims);
  if (!coll->lockstep)
    {
      coll->period = class_period (sys, group);
      g_assert (coll->period == 0 || (coll->is_nccl && coll->nccl.nsteps > 0));
    }
  coll->fixed_prices = net_fixed_prices (sys->net);
  coll->direct_tally = net_direct_tally (sys->net);
  coll->step_bits = plan_step_bits (coll);
  coll->step_mask = (G_GUINT64_CONSTANT (1) << coll->step_bits) - 1;
  guint64 n_runs = (guint64) group->n * coll->n_chunks * MAX (coll->n_phases, 1);
  g_assert (coll->step_bits + g_bit_storage (n_runs) <= 64);
  coll->members = g_new0 (SysMember, group->n);
  /* members x chunks x phases can be large (many ranks, many splits): an
   * input error rather than an abort in the allocator. */
  coll->runs = sys_coll_runs_alloc (n_runs);
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
  plan_prices (coll);
  if (!coll->lockstep && !coll->is_nccl && coll->n_phases > 0)
    {
      coll->line_ticket = g_try_new0 (guint32, n_runs);
      if (coll->line_ticket == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "out of memory allocating %" G_GUINT64_FORMAT
                       " x 4 bytes for the order of a collective's runs", n_runs);
          sys_coll_free (coll);
          return NULL;
        }
    }
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
  return coll;
}
