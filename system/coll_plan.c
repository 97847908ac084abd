/* coll_plan.c: a collective instance made and planned: its phases per
 * dimension and their algorithms, chunk sizes, the runs of every member,
 * chunk and phase (see coll_private.h); freed by sys_coll_free. */
#include "system/coll_private.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

/* A collective's runs, one cache line each (SysRun is 64 bytes) and
 * aligned to one: every message event reads and writes its run, and the
 * every-rank ring all-reduce's 4,096 runs outgrow the first-level cache,
 * so a run that straddled two lines (malloc aligns to 16) cost two misses
 * an event where one will do.  NULL when memory is short; zeroed.  Free
 * with free (). */
G_STATIC_ASSERT (sizeof (SysRun) == 64);
static SysRun *
runs_alloc (gsize n)
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

/* A group's collectives ask for the same few plans again and again (a
 * training step's tensor- and data-parallel collectives, of a few sizes
 * each): a plan is made once per (kind, bytes, involved dimensions, root)
 * and copied into each instance of it, in the storage of a finished
 * instance of the same shape where the group kept one.  A plan is a
 * function of the group, the request and what stays fixed through a run
 * (the system's parameters and algorithms, the network's kind of prices,
 * the symmetry classes), so the copy is what planning again would make.
 * On the Llama-2 7B TP 4 x PP 2 x DP 4 iteration with every rank, planning
 * and freeing its 8,392 collectives took 52 M instructions (6,200 each:
 * eight allocations, the plan, four hash-table operations), 20 % of the
 * event loop (tests/README.md "Performance"). */
#define COLL_MEMO 8   /* plans per group, a power of two */
#define COLL_SPARES 4 /* finished instances' storage kept per group */

typedef struct
{
  SysColl *plan; /* never run; NULL: an empty place */
  SysCollKind kind;
  guint64 bytes;
  guint32 involved;
  guint32 root;
  /* The plan's statistics row + 1 (coll_report.c), 0 until its first
   * instance retires: a function of the plan, so every later instance's
   * row, found without building its key and looking it up (350
   * instructions a collective).  GEN tells an instance that its place
   * still holds its request (SysColl.memo_gen). */
  guint32 stats_row;
  guint64 gen;
} MemoPlace;

struct _SysCollMemo
{
  MemoPlace place[COLL_MEMO];
  SysColl *spare[COLL_SPARES];
  guint n_spare;
  guint64 gen; /* the last MemoPlace.gen given */
};

static void coll_storage_free (SysColl *coll);

/* The place of the request (KIND, BYTES, INVOLVED, ROOT) in MEMO: its plan
 * there is that request's when it has one; else the place is emptied for
 * it. */
static MemoPlace *
memo_place (SysCollMemo *memo, SysCollKind kind, guint64 bytes, guint32 involved, guint32 root)
{
  guint64 h = (bytes ^ ((guint64) kind << 56) ^ ((guint64) involved << 40)
               ^ ((guint64) root << 24))
              * 0x9E3779B97F4A7C15ull;
  MemoPlace *m = &memo->place[h >> 61 & (COLL_MEMO - 1)];
  if (m->gen != 0 && m->kind == kind && m->bytes == bytes && m->involved == involved
      && m->root == root)
    return m;
  g_clear_pointer (&m->plan, coll_storage_free);
  *m = (MemoPlace) { .kind = kind, .bytes = bytes, .involved = involved, .root = root,
                     .gen = ++memo->gen };
  return m;
}

/* The sizes of a collective's arrays. */
typedef struct
{
  gsize in_bytes, ctx, runs;
  gboolean lines; /* a line order: line_ticket, one per run */
} CollSizes;

static CollSizes
coll_sizes (const SysColl *c)
{
  guint P = MAX (c->n_phases, 1u);
  return (CollSizes) { .in_bytes = (gsize) c->n_chunks * P,
                       .ctx = MAX ((gsize) c->n_chunks * c->n_phases, 1u),
                       .runs = (gsize) c->group->n * c->n_chunks * P,
                       .lines = c->line_ticket != NULL };
}

/* A kept instance of MEMO's of PLAN's shape (its arrays of PLAN's sizes),
 * taken from the spares, or NULL.  One that was an instance of the request
 * of place PLACE while it had generation GEN is preferred: it was made
 * from the same plan (*SAME set), so what a run leaves alone is PLAN's
 * already. */
static SysColl *
take_spare (SysCollMemo *memo, const SysColl *plan, guint32 place, guint64 gen, gboolean *same)
{
  guint pick = G_MAXUINT;
  *same = FALSE;
  for (guint k = memo->n_spare; k-- > 0;)
    {
      const SysColl *c = memo->spare[k];
      if (gen != 0 && c->memo_gen == gen && c->memo_place == place)
        {
          pick = k;
          *same = TRUE;
          break;
        }
      if (pick == G_MAXUINT && c->n_chunks == plan->n_chunks && c->n_phases == plan->n_phases
          && c->is_nccl == plan->is_nccl
          && (c->line_ticket != NULL) == (plan->line_ticket != NULL))
        pick = k;
    }
  if (pick == G_MAXUINT)
    return NULL;
  SysColl *c = memo->spare[pick];
  memo->spare[pick] = memo->spare[--memo->n_spare];
  return c;
}

/* The arrays of a collective's storage. */
typedef struct
{
  guint64 *in_bytes;
  SysPhaseCtx *ctx;
  SysMember *members;
  SysRun *runs;
  guint32 *line_ticket;
} CollStore;

static void
coll_store_free (CollStore *st)
{
  g_free (st->in_bytes);
  g_free (st->ctx);
  g_free (st->members);
  free (st->runs);
  g_free (st->line_ticket);
}

/* New storage for a copy of a collective of sizes Z on a group of MEMBERS,
 * its arrays in ST; NULL (nothing kept) when memory is short. */
static SysColl *
coll_storage_new (const CollSizes *z, guint32 members, CollStore *st)
{
  SysColl *c = g_try_new0 (SysColl, 1);
  if (c == NULL)
    return NULL;
  *st = (CollStore) { .in_bytes = g_try_new (guint64, z->in_bytes),
                      .ctx = g_try_new (SysPhaseCtx, z->ctx),
                      .members = g_try_new (SysMember, members),
                      .runs = runs_alloc (z->runs),
                      .line_ticket = z->lines ? g_try_new (guint32, z->runs) : NULL };
  if (st->in_bytes == NULL || st->ctx == NULL || st->members == NULL || st->runs == NULL
      || (z->lines && st->line_ticket == NULL))
    {
      coll_store_free (st);
      g_free (c);
      return NULL;
    }
  return c;
}

/* A copy of PLAN (unrun), the plan of place PLACE of generation GEN (0:
 * none), in a spare's storage or new storage; NULL when memory is short
 * (then planned afresh, which says so). */
static SysColl *
coll_copy (SysCollMemo *memo, const SysColl *plan, guint32 place, guint64 gen)
{
  CollSizes z = coll_sizes (plan);
  gboolean same;
  SysColl *c = take_spare (memo, plan, place, gen, &same);
  CollStore store;
  if (c != NULL)
    store = (CollStore) { .in_bytes = c->in_bytes, .ctx = c->ctx, .members = c->members,
                          .runs = c->runs, .line_ticket = c->line_ticket };
  else if ((c = coll_storage_new (&z, plan->group->n, &store)) == NULL)
    return NULL;
  *c = *plan;
  c->in_bytes = store.in_bytes;
  c->ctx = store.ctx;
  c->members = memset (store.members, 0, plan->group->n * sizeof *c->members);
  c->runs = memcpy (store.runs, plan->runs, z.runs * sizeof *c->runs);
  c->line_ticket = store.line_ticket;
  if (z.lines)
    memset (c->line_ticket, 0, z.runs * sizeof *c->line_ticket);
  if (same)
    {
      /* A run changes in its contexts only whose run they hold
       * (coll_private.h, SysColl.ctx); the rest, and in_bytes, are the
       * plan's (and saving their copies was 0.8 M instructions of the
       * every-rank Llama-2 row's 4.6 M here). */
      for (gsize k = 0; k < z.ctx; k++)
        {
          c->ctx[k].member = plan->ctx[k].member;
          c->ctx[k].pos = plan->ctx[k].pos;
          c->ctx[k].run_index = plan->ctx[k].run_index;
        }
      return c;
    }
  memcpy (c->in_bytes, plan->in_bytes, z.in_bytes * sizeof *c->in_bytes);
  memcpy (c->ctx, plan->ctx, z.ctx * sizeof *c->ctx);
  for (gsize k = 0; k < z.ctx; k++)
    {
      c->ctx[k].coll = c;
      c->ctx[k].runs = c->runs;
    }
  return c;
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

/* A new instance of REQ on GROUP, planned (sys_coll_new's, but for its
 * sequence number, its first join and the tables that find it). */
static SysColl *
plan_new (Sys *sys, SysGroup *group, const SysCollRequest *req, guint32 root, GError **error)
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
  coll->runs = runs_alloc (n_runs);
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

SysColl *
sys_coll_new (Sys *sys, SysGroup *group, guint32 seq, const SysCollRequest *req, guint32 root,
              GError **error)
{
  if (group->coll_memo == NULL)
    group->coll_memo = g_new0 (SysCollMemo, 1);
  SysCollMemo *memo = group->coll_memo;
  guint64 bytes = req->kind == SYS_COLL_BARRIER ? 0 : req->bytes;
  MemoPlace *m = memo_place (memo, req->kind, bytes, req->involved_dims, root);
  guint32 place = (guint32) (m - memo->place);
  SysColl *coll = m->plan != NULL ? coll_copy (memo, m->plan, place, m->gen) : NULL;
  if (coll == NULL)
    {
      coll = plan_new (sys, group, req, root, error);
      if (coll == NULL)
        return NULL;
      /* Kept unrun, for the next instance of the same request. */
      SysColl *plan = coll_copy (memo, coll, place, 0);
      if (plan != NULL)
        {
          coll_storage_free (m->plan);
          m->plan = plan;
        }
    }
  coll->memo_place = place;
  coll->memo_gen = m->gen;
  coll->seq = seq;
  coll->whole = TRUE;
  coll->first_join = sim_sched_now (sys->sched);
  sys_group_live_add (group, seq, coll);
  coll->live_prev = NULL;
  coll->live_next = sys->live_colls;
  if (sys->live_colls != NULL)
    sys->live_colls->live_prev = coll;
  sys->live_colls = coll;
  return coll;
}

void
sys_coll_free (SysColl *coll)
{
  if (coll == NULL)
    return;
  /* Rows that keep state per run release what a collective left unfinished
   * (a run whose peers never came). */
  guint P = coll->n_phases, CP = coll->n_chunks * P;
  for (guint ph = 0; coll->runs != NULL && ph < P; ph++)
    if (coll->phase[ph].algo->run_free != NULL)
      for (guint cp = ph; cp < CP; cp += P)
        for (guint32 m = 0; m < coll->group->n; m++)
          coll->phase[ph].algo->run_free (&coll->runs[(gsize) m * CP + cp]);
  SysCollMemo *memo = coll->group->coll_memo;
  if (coll->whole && memo != NULL && memo->n_spare < COLL_SPARES)
    memo->spare[memo->n_spare++] = coll;
  else
    coll_storage_free (coll);
}

/* The place of COLL's request in its group's memo while it holds that
 * request, else NULL. */
static MemoPlace *
coll_place (const SysColl *coll)
{
  SysCollMemo *memo = coll->group->coll_memo;
  if (memo == NULL || coll->memo_gen == 0 || coll->memo_place >= COLL_MEMO)
    return NULL;
  MemoPlace *m = &memo->place[coll->memo_place];
  return m->gen == coll->memo_gen ? m : NULL;
}

guint32
sys_coll_memo_stats_row (const SysColl *coll)
{
  const MemoPlace *m = coll_place (coll);
  return m != NULL ? m->stats_row : 0;
}

void
sys_coll_memo_keep_stats_row (const SysColl *coll, guint32 row)
{
  MemoPlace *m = coll_place (coll);
  if (m != NULL)
    m->stats_row = row;
}

void
sys_coll_memo_free (SysCollMemo *memo)
{
  if (memo == NULL)
    return;
  for (guint k = 0; k < COLL_MEMO; k++)
    coll_storage_free (memo->place[k].plan);
  for (guint k = 0; k < memo->n_spare; k++)
    coll_storage_free (memo->spare[k]);
  g_free (memo);
}

/* ---- plans made once ------------------------------------------------------- */

static void
coll_storage_free (SysColl *coll)
{
  if (coll == NULL)
    return;
  coll_store_free (&(CollStore) { .in_bytes = coll->in_bytes, .ctx = coll->ctx,
                                  .members = coll->members, .runs = coll->runs,
                                  .line_ticket = coll->line_ticket });
  g_free (coll);
}
