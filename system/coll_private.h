/* coll_private.h: a collective instance as coll.c, coll_phase.c and
 * coll_report.c see it.
 * Only system/ includes it.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_COLL_PRIVATE_H
#define ORRERY_SYSTEM_COLL_PRIVATE_H

#include "system/algo_nccl.h"
#include "system/sys_private.h"

#define SYS_MAX_PHASES (2 * NET_MAX_DIMS)

typedef struct
{
  guint gdim;      /* group dimension */
  guint topo_dim;  /* topology dimension: queue and algorithm choice */
  SysCollKind op;
  const SysAlgoClass *algo;
  guint32 param;
} SysPhasePlan;

typedef struct
{
  SimHandler on_done;
  gpointer data;
  guint64 arg;
  SysCollJoinerFunc on_last_joiner;
  guint64 node_id;
  guint32 order; /* SysCollRequest.order */
  SimTime join_time;
  gint64 priority;
  guint32 chunks_left;
  guint8 joined;
  guint8 done;
} SysMember;

struct _SysColl
{
  Sys *sys;
  SysGroup *group;
  guint32 seq;
  SysCollKind kind;
  guint64 bytes;
  guint64 chunk_bytes; /* SYS_CHUNKS_FIXED_SIZE: every chunk's size */
  guint32 root;        /* rooted kinds: the root's member index */
  guint n_chunks;
  guint n_phases;
  /* Events name a run by its index; messages append the step in the low
   * step_bits bits; step_mask is 2^step_bits - 1, what the handler keeps
   * of an event's arg. */
  guint step_bits;
  guint64 step_mask;
  SysPhasePlan phase[SYS_MAX_PHASES];
  guint64 *in_bytes; /* [chunk * n_phases + phase] */
  /* Per chunk and phase ([chunk * n_phases + phase]): the context every
   * member's run shares, all but member, pos and run_index, filled when
   * the collective is planned.  A run changes those three alone (and
   * in_bytes never): coll_plan.c gives a later instance of the same plan
   * the storage of a finished one without copying the rest again. */
  SysPhaseCtx *ctx;
  SysMember *members;
  SysRun *runs;      /* [(member * n_chunks + chunk) * n_phases + phase] */
  /* Changed by a run: joined, done, last_join and last_member are the
   * only fields of the instance itself (not of its arrays) that change
   * after sys_coll_new, which coll_memo.c's coll_copy resets alone when it
   * gives a finished instance's storage to the next of the same plan. */
  guint32 joined;
  guint32 done;
  SimTime first_join;
  SimTime last_join;
  guint32 last_member; /* the member that joined last so far */
  /* The NCCL library's plan: its runs start at join, outside the
   * dimension queues (one kernel per collective). */
  gboolean is_nccl;
  SysNcclPlan nccl;
  /* One member runs for all (sys->lockstep, and with symmetry classes a
   * group inside one class; a group across classes has every member
   * simulated, or none: sys_group_mirrors). */
  gboolean lockstep;
  /* Symmetry classes over a group that repeats node by node
   * (sys_group_period): its members m < period are simulated, member m
   * stands in for members m + period, m + 2 period, ..., which join and
   * are done with it, and a message to member q is delivered to member
   * q mod period.  0: every member runs (or lockstep). */
  guint32 period;
  /* Its members play roles (not run alike: sys_group_alike) and the ports
   * are shared: its messages carry the sender's place in the group, which
   * orders those that meet at a port at one instant (NetMessage.tie). */
  gboolean tie_by_place;
  /* Its network's messages cost their route's price alone
   * (net_fixed_prices): sys_phase_send_next keeps a run's price. */
  gboolean fixed_prices;
  NetTally *direct_tally; /* net_direct_tally: sys_phase_send_next schedules */
  /* The order in which a line starts its chunk phases (coll.c, "the line
   * order"): the ticket of each run, kept at the run of the line's first
   * member, 0 until a member of the line starts it; the tickets a rank
   * owes are its queues' (SysRankQueues.owed).  NULL in lockstep and for
   * the NCCL library (no queues). */
  guint32 *line_ticket; /* [run index of the line's first member] */
  /* Made whole (sys_coll_new): its storage may serve a later instance
   * of its group (coll_plan.c's spares). */
  gboolean whole;
  /* Its request's place in its group's plans (coll_plan.c's memo) and
   * that place's generation when it was made; memo_gen 0: none. */
  guint32 memo_place;
  guint64 memo_gen;
  /* Sys.live_colls, the collectives joined and not yet done, is a list
   * through these (a hash set's add and remove cost more, once per
   * collective). */
  SysColl *live_prev;
  SysColl *live_next;
};

/* A new instance of REQ on GROUP (sequence SEQ, ROOT for rooted kinds),
 * planned: its phases, algorithms, chunks and runs (coll_plan.c, copied
 * from its group's memo by coll_memo.c).  NULL
 * with ERROR set when the plan cannot be made (a kind an algorithm lacks,
 * the NCCL library's refusal).  Free with sys_coll_free. */
SysColl *sys_coll_new (Sys *sys, SysGroup *group, guint32 seq, const SysCollRequest *req,
                       guint32 root, GError **error);

/* A new instance of REQ on GROUP, planned afresh (sys_coll_new's, but for
 * its sequence number, its first join and the tables that find it;
 * coll_memo.c copies it for later instances).  NULL with ERROR set as
 * sys_coll_new's. */
SysColl *sys_coll_plan_new (Sys *sys, SysGroup *group, const SysCollRequest *req,
                            guint32 root, GError **error);

/* N runs, zeroed, each on a cache line of its own (coll_plan.c says why);
 * NULL when memory is short.  Free with free (). */
SysRun *sys_coll_runs_alloc (gsize n);

/* Add a finished collective to its (kind, group, algorithms) row and to
 * the records (coll_report.c). */
void sys_coll_stats_add (Sys *sys, const SysColl *coll, SimTime now);

/* The statistics row + 1 kept with COLL's plan, 0 when none is kept (or
 * its plan's place holds another request now); keep ROW (+ 1) there. */
guint32 sys_coll_memo_stats_row (const SysColl *coll);
void sys_coll_memo_keep_stats_row (const SysColl *coll, guint32 row);

/* The index of a (member, chunk, phase)'s run in SysColl.runs. */
static inline guint64
sys_coll_run_index (const SysColl *coll, guint32 member, guint chunk, guint phase)
{
  return ((guint64) member * coll->n_chunks + chunk) * coll->n_phases + phase;
}

/* The context of run `index`: its (chunk, phase)'s, which every member's
 * run shares, given the member's part from the run (plan_runs) in place
 * rather than copied (the copy was a tenth of the message path).  One
 * run's part at a time is enough: an algorithm acts only through the
 * sys_phase_* helpers, which schedule what they cause and never call an
 * algorithm back, so no other run of the collective starts or hears a
 * message while this one's handler runs. */
static inline const SysPhaseCtx *
sys_coll_ctx_init (SysColl *coll, guint64 index, SysRun **run_out)
{
  SysRun *run = &coll->runs[index];
  SysPhaseCtx *ctx = &coll->ctx[run->chunk_phase];
  ctx->member = run->member;
  ctx->pos = run->pos;
  ctx->run_index = index;
  *run_out = run;
  return ctx;
}

#endif /* ORRERY_SYSTEM_COLL_PRIVATE_H */
