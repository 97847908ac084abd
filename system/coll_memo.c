/* coll_memo.c: the plans a group's collectives ask for again and again,
 * each made once (coll_plan.c) and copied into every instance, in the
 * storage of a finished instance where the group kept one; and the
 * instance's life, sys_coll_new to sys_coll_free (coll_private.h). */
#include "system/coll_private.h"

#include <stdlib.h>
#include <string.h>

#include "sim/sched.h"

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
 * taken from the spares, or NULL (new storage, then).  One that was an instance of the request
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
  /* Another plan's storage only once the spares are full: a group that
   * alternates two plans (a class's forward and backward all-reduce) would
   * otherwise hand each one's storage to the other, copying the whole plan
   * every time, where a second storage soon lets each find its own (2,081
   * of the 2,098 collectives of the Llama-2 row with symmetry classes). */
  if (pick == G_MAXUINT || (!*same && memo->n_spare < COLL_SPARES))
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
                      .runs = sys_coll_runs_alloc (z->runs),
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

/* Make C, a finished instance of PLAN, PLAN's copy again but for its
 * arrays' contents: the fields of the instance that a run changes
 * (coll_private.h, "changed by a run") alone differ from the plan's, and
 * sys_coll_new sets the rest of its own (seq, first_join, the memo's and
 * the live list's).  Copying the whole instance was 110 instructions a
 * collective. */
static void
coll_reset_header (SysColl *c, const SysColl *plan)
{
  c->joined = plan->joined;
  c->done = plan->done;
  c->last_join = plan->last_join;
  c->last_member = plan->last_member;
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
  else
    {
      same = FALSE; /* take_spare's already; said again for the analyzer */
      if ((c = coll_storage_new (&z, plan->group->n, &store)) == NULL)
        return NULL;
    }
  if (same)
    coll_reset_header (c, plan);
  else
    {
      *c = *plan;
      c->in_bytes = store.in_bytes;
      c->ctx = store.ctx;
      c->runs = store.runs;
      c->line_ticket = store.line_ticket;
      c->members = store.members;
    }
  /* Through store, whose arrays are C's either way (and known not NULL). */
  memset (store.members, 0, plan->group->n * sizeof *store.members);
  memcpy (store.runs, plan->runs, z.runs * sizeof *store.runs);
  if (z.lines)
    memset (store.line_ticket, 0, z.runs * sizeof *store.line_ticket);
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
      coll = sys_coll_plan_new (sys, group, req, root, error);
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
