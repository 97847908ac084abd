/* coll.c: collective instances (joined, run and retired) and the per-rank
 * dimension queues that pipeline chunks across dimensions; an instance's
 * plan (chunks, phases, runs) is coll_plan.c's, the helpers algorithms act
 * through coll_phase.c's.
 *
 * Cost per message: one delivery event (the network's), plus one event per
 * member and chunk phase for its end.  Progress lives in flat arrays owned by
 * the instance; nothing is allocated per message.
 */
#include "system/coll_private.h"

#include "sim/error.h"
#include "sim/printable.h"

/* SysColl and its parts: coll_private.h; what a collective reports:
 * coll_report.c. */

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
  SysRun *run;
  const SysPhaseCtx *ctx = sys_coll_ctx_init (coll, index, &run);
  run->started = 1;
  ctx->algo->start (ctx, run);
}

/* ---- the line order --------------------------------------------------------
 *
 * Two members of a line (the ranks a chunk phase's dimension connects) must
 * start the chunk phases they both take part in in one order, whichever
 * collective each belongs to: with a dimension queue at its window
 * (active-chunks-per-dim), a member that started one collective's chunk 2
 * reduce-scatter while its peer started another's (or the same one's)
 * chunk 0 all-gather there would wait for its peer's message for ever, and
 * the peer for its.  A real rank has no such window to fill; where orrery
 * models one, the members agree.  The first member to start a run takes
 * the next ticket (one counter for the system) and hands it to every other
 * member of the run's line, which owes it to the same dimension queue.  A
 * rank starts what it owes in the order it was handed, before anything
 * else there, with one exception: a run of a collective the rank has not
 * joined yet (its trace has not issued it, or its comm slots are busy)
 * holds back only the runs whose lines meet its line at another rank too.
 * A run meeting it at this rank alone shares no peer with it that could
 * see the two in the other order, and holding it would invent a wait that
 * no real rank has (ranks 0 and 1 in a tensor-parallel all-gather while
 * rank 1 is still in its data-parallel all-reduce with 3, 5 and 7, which
 * rank 1 must finish before it can join the all-gather).  Where every
 * member agrees (the analytical model's symmetric runs, a collective a
 * rank runs alone) each takes its runs in the order the first did: nothing
 * is held.  A circular wait the trace itself makes (ranks joining two
 * collectives of the same ranks in opposite orders, one at a time) is
 * still one, and the run reports the deadlock. */

/* Where the ticket of run INDEX's line is kept (SysColl.line_ticket): at
 * the run of the line's first member, pos members back, each next_runs
 * runs from the one before (the context's, never 0 where there are
 * tickets: not in lockstep). */
static guint32 *
line_ticket_of (SysColl *coll, guint64 index)
{
  const SysRun *run = &coll->runs[index];
  return &coll->line_ticket[index - run->pos * coll->ctx[run->chunk_phase].next_runs];
}

/* Whether run INDEX's line holds a rank, other than its member's, that is
 * on the line of O too. */
static G_NO_INLINE gboolean
lines_meet (const SysOwed *o, SysColl *coll, guint64 index)
{
  const SysRun *run = &coll->runs[index];
  const SysPhaseCtx *ctx = &coll->ctx[run->chunk_phase];
  const SysPhaseCtx *octx = &o->coll->ctx[o->chunk_phase];
  guint32 first = run->member - run->pos * ctx->stride;
  for (guint32 i = 0; i < ctx->n; i++)
    {
      gint64 m = i == run->pos ? -1
                               : sys_group_member (o->coll->group,
                                                   coll->group->ranks[first + i * ctx->stride]);
      if (m >= o->first && ((guint32) m - o->first) % octx->stride == 0
          && ((guint32) m - o->first) / octx->stride < octx->n)
        return TRUE;
    }
  return FALSE;
}

/* Whether run INDEX may start now as far as its line's order goes: nothing
 * its member owes ahead of it holds it back (above).  A lockstep
 * collective (one member runs for all, who agree) takes no tickets but
 * waits as a run no member started does; with symmetry classes, such a
 * wait is one the ranks the class stands for would meet with tickets of
 * their own: the run stops and is redone over every rank
 * (sys_class_line_holds).  OWED is what the run's member owes the queue
 * the run waits in.  When it may start, *PAID is the place in OWED of the
 * ticket it pays, or -1 when it pays none (it is the first on its line, or
 * takes no tickets), so that line_note_start need not look for it again. */
G_ALWAYS_INLINE static inline gboolean
line_allows (SysColl *coll, guint64 index, const SysOwedList *owed, gint *paid)
{
  *paid = -1;
  if (owed->len == 0) /* the common case: nothing owed (line_note_start checks its ticket) */
    return TRUE;
  guint32 ticket = coll->line_ticket != NULL ? *line_ticket_of (coll, index) : 0;
  for (guint i = 0; i < owed->len; i++)
    {
      const SysOwed *o = &owed->items[i];
      if (ticket != 0 && o->ticket == ticket)
        {
          *paid = (gint) i;
          return TRUE;
        }
      if (o->coll->members[o->member].joined || lines_meet (o, coll, index))
        {
          if (coll->line_ticket == NULL && coll->sys->classes)
            {
              coll->sys->class_line_holds++;
              sim_sched_stop (coll->sys->sched);
            }
          return FALSE;
        }
    }
  return TRUE;
}

/* Run INDEX starts: the first on its line hands its ticket to the others,
 * the others pay theirs (item PAID of OWED, from line_allows). */
static G_NO_INLINE void line_hand_ticket (SysColl *coll, guint64 index);

static inline void
line_note_start (SysColl *coll, guint64 index, SysOwedList *owed, gint paid)
{
  if (coll->line_ticket == NULL)
    return;
  if (paid >= 0)
    sys_owed_remove (owed, (guint) paid);
  else
    line_hand_ticket (coll, index);
}

/* line_note_start for the first on its line (a quarter of the starts on
 * the Llama-2 row), out of line so that the queue's kick saves fewer
 * registers. */
static G_NO_INLINE void
line_hand_ticket (SysColl *coll, guint64 index)
{
  guint32 *ticket = line_ticket_of (coll, index);
  /* A run another member started is owed until this one starts it:
   * line_allows found its ticket. */
  g_assert (*ticket == 0);
  const SysRun *run = &coll->runs[index];
  Sys *sys = coll->sys;
  if (++sys->line_clock == 0) /* 0 is "none"; tickets are only compared for equality */
    ++sys->line_clock;
  *ticket = sys->line_clock;
  const SysPhaseCtx *ctx = &coll->ctx[run->chunk_phase];
  guint dim = coll->phase[ctx->phase].topo_dim;
  SysOwed o = { .coll = coll, .ticket = *ticket, .first = run->member - run->pos * ctx->stride,
                .chunk_phase = run->chunk_phase };
  for (guint32 i = 0; i < ctx->n; i++)
    if (i != run->pos)
      {
        o.member = o.first + i * ctx->stride;
        sys_owed_push (&sys->queues[coll->group->ranks[o.member]].owed[dim], &o);
      }
}

/* Start W, popped from RANK's queue Q of DIM, unless its line holds it
 * back (FALSE). */
G_ALWAYS_INLINE static inline gboolean
queue_try_start (SysRankQueues *q, guint dim, const SysWaiting *w)
{
  /* The queue a run waits in is its member's queue of its dimension:
   * this one, so what the member owes is what this rank owes here. */
  SysOwedList *owed = &q->owed[dim];
  gint paid;
  if (!line_allows (w->coll, w->run_index, owed, &paid))
    return FALSE;
  q->active[dim]++;
  line_note_start (w->coll, w->run_index, owed, paid);
  run_start (w->coll, w->run_index);
  return TRUE;
}

/* queue_kick from the first run its line holds back (W): those are set
 * aside, and come back in their arrival order when the window is full or
 * the queue empty.  Out of line: the common kick sets nothing aside. */
static G_NO_INLINE void
queue_kick_holding (SysRankQueues *q, guint dim, guint limit, const SysWaiting *held_first)
{
  SysWaitQueue *waiting = &q->waiting[dim];
  SysWaitQueue held = { 0 };
  SysWaiting w;
  sys_waitq_push (&held, held_first);
  while (q->active[dim] < limit && sys_waitq_pop (waiting, &w))
    if (!queue_try_start (q, dim, &w))
      sys_waitq_push (&held, &w);
  while (sys_waitq_pop (&held, &w))
    sys_waitq_push (waiting, &w);
  sys_waitq_clear (&held);
}

static void
queue_kick (Sys *sys, guint32 rank, guint dim, const SysColl *coll)
{
  SysRankQueues *q = &sys->queues[rank];
  if (sys->classes_shared)
    note_use (sys, q, dim, coll);
  /* The next to run is the highest priority, the oldest among equals
   * (waitq.h).  Priorities belong to collectives (see collective_priority),
   * so the chunks and phases of one collective keep their arrival order,
   * except where the member's line started them in another order (the
   * members of a line must agree: line_allows): those wait, set aside, for
   * the run the line started before them (queue_kick_holding). */
  SysWaitQueue *waiting = &q->waiting[dim];
  guint limit = sys->params.active_chunks_per_dim;
  SysWaiting w;
  while (q->active[dim] < limit && sys_waitq_pop (waiting, &w))
    if (!queue_try_start (q, dim, &w))
      {
        queue_kick_holding (q, dim, limit, &w);
        return;
      }
}

/* ---- events ---------------------------------------------------------------- */

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
  sys_group_live_remove (coll->group, coll->seq);
  if (coll->live_prev != NULL)
    coll->live_prev->live_next = coll->live_next;
  else
    sys->live_colls = coll->live_next;
  if (coll->live_next != NULL)
    coll->live_next->live_prev = coll->live_prev;
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

/* Node-shift symmetry: the members MEMBER stands for join with it and are
 * done with it (SysColl.period). */
static void
period_join (SysColl *coll, guint32 member)
{
  g_assert (member < coll->period);
  for (guint32 i = member + coll->period; i < coll->group->n; i += coll->period)
    {
      coll->members[i] = (SysMember) { .join_time = coll->members[member].join_time,
                                       .joined = 1, .done = 1 };
      coll->joined++;
      coll->done++;
    }
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

/* sys_phase_on_done for a chunk phase other than the last: the next phase
 * waits in its dimension's queue.  Out of line: the Llama-2 row's
 * collectives are all of one phase. */
static G_NO_INLINE void
phase_next (SysColl *coll, guint64 index, guint ph, guint32 member)
{
  Sys *sys = coll->sys;
  guint32 rank = coll->group->ranks[member];
  guint dim = coll->phase[ph].topo_dim, next_dim = coll->phase[ph + 1].topo_dim;
  queue_push (sys, rank, next_dim, coll, index + 1, coll->members[member].priority);
  queue_kick (sys, rank, dim, coll);
  if (next_dim != dim)
    queue_kick (sys, rank, next_dim, coll);
}

/* The NCCL library's runs wait in no queue. */
static G_NO_INLINE void
nccl_phase_done (SysColl *coll, guint32 member)
{
  if (--coll->members[member].chunks_left == 0)
    member_done (coll, member);
}

/* sys_phase_on_done for the member's last chunk phase: the kick comes
 * before member_done, which may join the member's next collective.  Out
 * of line, so that the handler's paths are all tail calls. */
static G_NO_INLINE void
phase_last_done (Sys *sys, guint32 rank, guint dim, SysColl *coll, guint32 member)
{
  /* After a collective's last chunk the queue is mostly empty, and then
   * the kick would do nothing but note the use (symmetry classes over
   * shared ports): its call is left out. */
  if (sys->classes_shared || sys->queues[rank].waiting[dim].len > 0)
    queue_kick (sys, rank, dim, coll);
  member_done (coll, member);
}

/* Every path ends in a tail call, so that the handler saves no registers
 * of its own. */
void
sys_phase_on_done (SimSched *sched, gpointer data, guint64 index)
{
  (void) sched;
  SysColl *coll = data;
  SysRun *run = &coll->runs[index];
  guint ph = coll->ctx[run->chunk_phase].phase; /* chunk_phase % P without dividing */
  guint32 member = run->member;
  run->done = 1;
  if (G_UNLIKELY (coll->is_nccl))
    {
      nccl_phase_done (coll, member);
      return;
    }
  Sys *sys = coll->sys;
  guint32 rank = coll->group->ranks[member];
  guint dim = coll->phase[ph].topo_dim;
  sys->queues[rank].active[dim]--;
  if (G_UNLIKELY (ph + 1 < coll->n_phases))
    {
      phase_next (coll, index, ph, member);
      return;
    }
  if (G_LIKELY (--coll->members[member].chunks_left != 0))
    {
      queue_kick (sys, rank, dim, coll);
      return;
    }
  phase_last_done (sys, rank, dim, coll, member);
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
  SysColl *coll = sys_group_live (group, seq);
  if (coll == NULL)
    {
      coll = sys_coll_new (sys, group, seq, req, root, error);
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

  SimTime now = sim_sched_now (sys->sched);
  SysMember *m = &coll->members[member];
  *m = (SysMember) { .on_done = req->on_done, .data = req->data, .arg = req->arg,
                     .on_last_joiner = req->on_last_joiner, .node_id = req->node_id,
                     .order = req->order, .join_time = now,
                     .priority = collective_priority (sys, rank, req),
                     .chunks_left = coll->n_chunks, .joined = 1 };
  coll->joined++;
  if (req->ctas != NULL)
    *req->ctas = coll->is_nccl ? coll->nccl.choice.channels : 0;
  if (coll->lockstep)
    lockstep_join_all (coll, member);
  else if (coll->period > 0)
    period_join (coll, (guint32) member);
  coll->last_join = now;
  coll->last_member = (guint32) member;
  if (coll->n_phases == 0)
    {
      sim_sched_at (sys->sched, now, on_trivial_done, coll,
                    (guint64) member);
      return TRUE;
    }
  if (coll->is_nccl)
    {
      for (guint c = 0; c < coll->n_chunks; c++)
        run_start (coll, sys_coll_run_index (coll, (guint32) member, c, 0));
      return TRUE;
    }
  /* Every chunk's first phase waits in the first phase's queue: as
   * queue_push's, with the queue and the entry's fixed fields found once
   * (note_use, which queue_kick calls next, cannot tell its calls for one
   * collective apart). */
  guint dim = coll->phase[0].topo_dim;
  SysRankQueues *q = &sys->queues[rank];
  SysWaitQueue *waiting = &q->waiting[dim];
  guint limit = sys->params.active_chunks_per_dim;
  SysWaiting w = { .coll = coll,
                   .run_index = sys_coll_run_index (coll, (guint32) member, 0, 0),
                   .priority = m->priority };
  /* Where the kick would pop chunk 0 first (the window has room and it
   * outranks what waits: newer than all, it needs a higher priority), it
   * is offered to its line at once rather than pushed and popped (with
   * symmetry classes over shared ports the kick's note_use comes first:
   * not there).  Starting it schedules events and touches no queue, so the
   * other chunks may wait after. */
  SysWaiting first = w;
  gboolean offered = !sys->classes_shared && q->active[dim] < limit
                     && (waiting->len == 0 || w.priority > waiting->heap[0].priority);
  gboolean started = FALSE;
  guint c = 0;
  if (offered)
    {
      first.order = sys->queue_order++;
      started = queue_try_start (q, dim, &first);
      c = 1;
      w.run_index += coll->n_phases;
    }
  if (c < coll->n_chunks) /* the other chunks wait as one run (waitq.h) */
    {
      w.order = sys->queue_order;
      w.more = coll->n_chunks - c - 1;
      w.stride = coll->n_phases;
      sys->queue_order += coll->n_chunks - c;
      sys_waitq_push (waiting, &w);
    }
  if (offered && !started) /* as the kick that had popped it and set it aside */
    queue_kick_holding (q, dim, limit, &first);
  else if (!started || q->active[dim] < limit) /* else the kick would start nothing */
    queue_kick (sys, rank, dim, coll);
  return TRUE;
}
