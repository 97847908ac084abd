/* algo.h: what a collective algorithm sees, and the algorithm registry.
 *
 * Models: one phase of one chunk of a collective on one member: the member
 * sits at position `pos` on a line of `n` members (the ranks that share every
 * coordinate but the phase's dimension), starts when its dimension queue lets
 * it, exchanges messages with other positions in numbered steps, and finishes
 * at a time it computes.  An algorithm is a registry row (a SysAlgoClass:
 * name, help line, kinds, what the symmetric shortcut may assume, vtable):
 * adding one is adding a file, its extern below and a row in algo.c's table
 * (and its name in configs/cluster.rng: tests/app/test_registry.c fails
 * until the schema agrees), or calling sys_algo_register.
 *
 * Algorithms keep their per-member progress in SysRun (one per member, chunk
 * and phase, in one flat array owned by the collective) and act only through
 * the sys_phase_* helpers, which know the group layout and the network.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_ALGO_H
#define ORRERY_SYSTEM_ALGO_H

#include "sim/queue.h"
#include "system/sys.h"

typedef struct _SysColl SysColl;

/* Progress of one member on one chunk phase.  busy_until, arrived and
 * processed are the algorithm's; started/done belong to the scheduler. */
typedef struct
{
  SimTime busy_until; /* the member's endpoint is busy until then */
  guint64 bits;       /* algorithm-specific (e.g. steps whose data arrived) */
  guint32 arrived;    /* messages arrived */
  guint32 processed;  /* messages consumed */
  guint8 started;
  guint8 done;
  /* Set when the collective is planned, so that an event naming the run
   * finds its context without decoding: whose run it is, that member's
   * position on the phase's line, and the (chunk, phase) it belongs to. */
  guint32 member;
  guint32 pos;
  guint32 chunk_phase; /* chunk * phases + phase */
  /* sys_phase_send_next's: the delay of its last message to the member's
   * successor and that message's bytes + 1 (0: none yet, or 2^64 - 1
   * bytes, priced each time), and, set with them, the arg of an event to
   * the successor's run with step 0 (its run index shifted left by the
   * step bits), so that a step's send only or's in its step. */
  guint64 next_bytes;
  SimTime next_delay;
  guint64 next_arg;
} SysRun;

typedef struct _SysAlgoClass SysAlgoClass;

typedef struct
{
  Sys *sys;
  SysColl *coll;
  const SysAlgoClass *algo; /* the row running this phase */
  SysCollKind op;    /* what this phase does: all-reduce, reduce-scatter, ... */
  guint64 in_bytes;  /* chunk bytes entering the phase on each member */
  guint32 pos;       /* this member's position on the line */
  guint32 n;         /* members on the line, >= 2 */
  guint64 run_index; /* (member, chunk, phase) as an index into the runs, as
                      * events carry it */
  guint32 member;
  guint chunk;
  guint phase;
  guint32 root;      /* position of the root on the line (rooted kinds), else 0 */
  guint32 param;     /* the number after the name ("direct4": 4), 0 if none */
  /* coll.c's: members between neighbours on the line, and the topology
   * dimension a message along it travels (NET_DIM_UNKNOWN: the network
   * finds it from the ranks). */
  guint32 stride;
  guint net_dim;
  SimTime endpoint_delay; /* sys_phase_endpoint_delay's */
  const SimTime *clock;   /* the scheduler's (sys_phase_now) */
  gboolean split_down;    /* sys_phase_split rounds down (SysCompat.split) */
  /* Worked out once when the collective is planned, as every step of a
   * ring asks: sys_phase_split (in_bytes, n), the cost of reducing that
   * many bytes (sys_phase_reduce_cost). */
  guint64 share;
  SimTime share_reduce;
  /* sys_phase_send_next's, set when the collective is planned: from a
   * member to its successor, the members between them on the way back to
   * position 0 ((n - 1) x stride), and the runs between them (in lockstep
   * 0: a member's own run hears its predecessor's message) one step on
   * and on the way back, modulo 2^64. */
  guint32 wrap_members;
  guint64 next_runs, wrap_runs;
  /* sys_phase_send_next's fast path, copied from the collective when it is
   * planned so that the path reads the context alone: where the network
   * lets a sender count a message of fixed price and schedule its delivery
   * itself (net_direct_tally, else NULL), the scheduler's queue, which it
   * pushes to inline (sim_sched_queue), and the bits of an event's arg
   * that hold the step. */
  NetTally *direct_tally;
  SimQueue *queue;
  guint step_bits;
  /* The event that path schedules: its handler (the row's deliver, else
   * sys_phase_on_ctx_message), given this context as data and the arg
   * sys_phase_on_message takes; and what sys_phase_event_run decodes that
   * arg with: the collective's runs and 2^step_bits - 1. */
  SimHandler deliver;
  SysRun *runs;
  guint64 step_mask;
  /* The row's own, filled by its prepare hook when the collective is
   * planned, so that no step works them out again (the ring: its steps,
   * how many of the first reduce, its messages' bytes, and the delay a
   * reducing step adds: share_reduce + endpoint_delay, saturated, which
   * sim_time_add may take in one addition as both are >= 0). */
  guint32 steps;
  guint32 reducing_steps;
  guint64 step_bytes;
  SimTime reduce_delay;
  /* sys_phase_send_next's one test, set after the prepare hook: where the
   * inline path may run (direct_tally set), step_bytes + 1, what a run
   * priced for them keeps in next_bytes; otherwise a value no run of the
   * context keeps, neither 0 (none yet) nor step_bytes + 1. */
  guint64 send_key;
} SysPhaseCtx;

/* Whether every member of a line does the same at the same times on a
 * contention-free network (the symmetric shortcut, sys_symmetric). */
typedef enum
{
  SYS_ALIKE_NEVER, /* members play different roles (trees) */
  SYS_ALIKE_POW2,  /* alike when the line's size is a power of two */
  SYS_ALIKE_ALWAYS
} SysAlike;

#define SYS_KIND_BIT(k) (1u << (k))
#define SYS_KINDS_ALL ((1u << SYS_COLL_N) - 1)

/* One algorithm: a row of the registry. */
struct _SysAlgoClass
{
  const char *name; /* as configs write it (ASTRA-sim's spelling) */
  const char *help; /* one line on what it does, for listings of the table */
  SysTiming timing; /* which family of timings the row belongs to (SysCompat) */
  guint32 kinds;    /* SYS_KIND_BIT (op) set: implements phase operation op */
  /* Config syntax: "one<Name>" runs it over a whole group as one line;
   * the name may end in a window of messages in flight ("direct8"). */
  gboolean flat_variant;
  gboolean windowed;
  /* The symmetric shortcut asks these, never the row's identity. */
  SysAlike alike;
  /* Each member's messages use links no other member's use (neighbours
   * only), so members stay alike under link models with contention. */
  gboolean disjoint_links;
  const char *unlike_why; /* why not alike (static): alike != ALWAYS */
  const char *links_why;  /* why not alike under contention: !disjoint_links */
  /* NULL when a member's part depends on its position on the line alone
   * (and, for the NCCL library's rows, on the group's node layout), so that
   * a group laid out as another, whose messages between positions are
   * priced alike, runs at each position as the other does
   * (sys_group_mirrors); otherwise why not (static). */
  const char *mirror_why;
  /* Programs (system/program.h): one phase over the whole group as one
   * flat line, the whole collective as one chunk; steps numbered below
   * max_steps (0: below n^2, which every other row keeps to). */
  gboolean whole_group;
  guint32 max_steps;
  /* May be NULL.  check: can the row run phase operation `op` on a line of
   * n members (FALSE with an input error saying why); run_free: release
   * what the row keeps for a run (in run->bits) when its collective goes
   * before the run ended. */
  gboolean (*check) (const SysAlgoClass *algo, SysCollKind op, guint32 n, GError **error);
  void (*run_free) (SysRun *run);
  /* May be NULL.  Fill the row's own fields of a (chunk, phase)'s context
   * (steps, reducing_steps, step_bytes), once, when the collective is
   * planned: every other field is set by then but member, pos and
   * run_index, which are each run's. */
  void (*prepare) (SysPhaseCtx *ctx);
  /* The phase starts on this member now (run->started already set). */
  void (*start) (const SysPhaseCtx *ctx, SysRun *run);
  /* A message of `step` arrived for this member, started or not. */
  void (*on_message) (const SysPhaseCtx *ctx, SysRun *run, guint32 step);
  /* May be NULL.  The handler of the messages sys_phase_send_next's inline
   * path schedules, given the phase's context as data (a run's successor
   * is on the same chunk phase) and the arg sys_phase_on_message takes,
   * which sys_phase_event_run decodes: it does what on_message would,
   * without sys_phase_on_message's look-ups and second indirect call (a
   * sixth of the every-rank ring all-reduce's instructions were that
   * dispatch).  NULL: sys_phase_on_ctx_message, which dispatches. */
  SimHandler deliver;
};

/* Does `algo` implement phase operation `op`?  FALSE for no algorithm. */
static inline gboolean
sys_algo_supports (const SysAlgoClass *algo, SysCollKind op)
{
  return algo != NULL && op < SYS_COLL_N && (algo->kinds & SYS_KIND_BIT (op)) != 0;
}

/* A configured name resolved: the row, the number after the name (0 when
 * absent) and whether it was the "one" variant. */
typedef struct
{
  const SysAlgoClass *algo;
  guint32 param;
  gboolean flat;
} SysAlgoRef;

/* Resolve a configured name ("ring", "direct8", "oneRing") to the row of
 * that name and `timing`, or of that name and SYS_TIMING_NATIVE when it has
 * no such row.  FALSE for an unknown name or a malformed number. */
gboolean sys_algo_resolve (const char *name, SysTiming timing, SysAlgoRef *out);

/* The native row called `name` (no "one" prefix), or NULL.  A decimal
 * number may follow the name ("direct8": a window of 8 messages); it goes to
 * *param (0 when absent; param may be NULL). */
const SysAlgoClass *sys_algo_lookup (const char *name, guint32 *param);

/* The registry: the built-in rows (algo.c) and any registered since, in
 * order.  Registering adds a row for the rest of the process (the class
 * must outlive it); it fails when a row of that name and timing exists.
 * Safe from any thread. */
gboolean sys_algo_register (const SysAlgoClass *algo, GError **error);
guint sys_algo_count (void);
const SysAlgoClass *sys_algo_nth (guint i);

/* A config-syntax name a row accepts: its name, or "one" + its name
 * capitalised (flat), as a new string. */
char *sys_algo_flat_name (const SysAlgoClass *algo);

/* Helpers for algorithms. */
/* Send `bytes` to the member at position `to` on the line, tagged `step`,
 * leaving at `at` (>= now). */
void sys_phase_send (const SysPhaseCtx *ctx, guint32 to, guint32 step, guint64 bytes, SimTime at);
/* sys_phase_send of the context's step_bytes to the member's successor on
 * the line ((pos + 1) mod n), from its run, leaving at `at` >= now
 * (unchecked on the inline path): on a network of fixed prices
 * (net_fixed_prices) the route's price is kept in the run, since a ring
 * sends one size to one peer a phase long.  Inline below: its common case,
 * a run priced already on a network that only counts its messages, is
 * every ring step's (a tenth of a ring's instructions went to the call);
 * the rest is sys_phase_send_next_slow's, which needs the context to own
 * the run (its member, position and run index set). */
static inline void sys_phase_send_next (const SysPhaseCtx *ctx, SysRun *run, guint32 step,
                                        SimTime at);
/* Whether sys_phase_send_next takes its inline path for run: its one
 * test, for callers that must prepare the slow path first. */
static inline gboolean
sys_phase_next_inline (const SysPhaseCtx *ctx, const SysRun *run)
{
  return run->next_bytes == ctx->send_key;
}
/* What sys_phase_send_next does outside its common case: it prices the
 * route for a new size, or hands the message to the network. */
void sys_phase_send_next_slow (const SysPhaseCtx *ctx, SysRun *run, guint32 step, guint64 bytes,
                               SimTime at);
/* The handler of every message and signal to a run (data: the collective,
 * arg: the run's index shifted left by the step bits, or'ed with the step),
 * for sys_phase_send_next's inline path. */
void sys_phase_on_message (SimSched *sched, gpointer data, guint64 arg);
/* sys_phase_on_message for an event whose data is the phase's context,
 * not the collective: sys_phase_send_next's inline path's handler for
 * rows without a deliver of their own. */
void sys_phase_on_ctx_message (SimSched *sched, gpointer data, guint64 arg);
/* For a row's deliver handler: the run that an event's arg names (ctx,
 * the event's data, is that run's chunk phase's context), and the step in
 * *step.  The context does not own the run yet: its member, position and
 * run index are another's until sys_phase_ctx_own, which the deliver calls
 * before anything but the inline sys_phase_send_next reads them (filling
 * them on every event was 5 instructions of the ring's 117). */
static inline SysRun *
sys_phase_event_run (const SysPhaseCtx *ctx, guint64 arg, guint32 *step)
{
  *step = (guint32) (arg & ctx->step_mask);
  return &ctx->runs[arg >> ctx->step_bits];
}
/* Make ctx, run's chunk phase's context, the run's own, as
 * sys_phase_on_message makes it: its member, position and run index. */
static inline void
sys_phase_ctx_own (SysPhaseCtx *ctx, const SysRun *run)
{
  ctx->member = run->member;
  ctx->pos = run->pos;
  ctx->run_index = (guint64) (run - ctx->runs);
}
/* This member's phase ends at `at` (>= now). */
void sys_phase_finish (const SysPhaseCtx *ctx, SimTime at);
/* The handler of the event sys_phase_finish schedules (data: the
 * collective, arg: the run's index). */
void sys_phase_on_done (SimSched *sched, gpointer data, guint64 index);
/* sys_phase_finish for run, inline and without the context owning the
 * run (sys_phase_event_run): the same event, pushed unchecked, for a
 * row whose caller knows `at` >= now (the ring's last step, once per
 * chunk phase on every rank, had a call and a check of its own for it). */
static inline void
sys_phase_finish_run (const SysPhaseCtx *ctx, const SysRun *run, SimTime at)
{
  sim_queue_push_trusted (ctx->queue, at, sys_phase_on_done, ctx->coll,
                          (guint64) (run - ctx->runs));
}
/* net_serialization_ps (bytes, rate_Bps), the same bits, through the
 * system's price table (network/price.h): algorithms pace runs of equal
 * messages. */
SimTime sys_phase_serialization (const SysPhaseCtx *ctx, guint64 bytes, double rate_Bps);
/* The cost of reducing `bytes` into local memory. */
SimTime sys_phase_reduce_cost (const SysPhaseCtx *ctx, guint64 bytes);
/* The cost of one pass over `bytes` of local memory (a copy). */
SimTime sys_phase_copy_cost (const SysPhaseCtx *ctx, guint64 bytes);
/* Tell the member at position `to` on the line that `step` happened, at
 * `at` (>= now): its on_message gets `step`, and nothing crosses the
 * network.  Not in lockstep. */
void sys_phase_signal (const SysPhaseCtx *ctx, guint32 to, guint32 step, SimTime at);
/* The delay each message costs its endpoint (the policy's, for a group
 * laid out flat), inline: every step of every algorithm asks. */
static inline SimTime
sys_phase_endpoint_delay (const SysPhaseCtx *ctx)
{
  return ctx->endpoint_delay;
}
/* The current simulated time, read in place (inline: every step asks). */
static inline SimTime
sys_phase_now (const SysPhaseCtx *ctx)
{
  return *ctx->clock;
}
/* in / n, rounded as the compatibility policy says (SysCompat.split). */
static inline guint64
sys_phase_split (const SysPhaseCtx *ctx, guint64 in, guint32 n)
{
  return ctx->split_down ? in / n : (in + n - 1) / n;
}

G_ALWAYS_INLINE static inline void
sys_phase_send_next (const SysPhaseCtx *ctx, SysRun *run, guint32 step, SimTime at)
{
  /* One test covers the network's tally and the run's price (the key is
   * no run's next_bytes where the tally is NULL). */
  if (G_UNLIKELY (!sys_phase_next_inline (ctx, run)))
    {
      sys_phase_send_next_slow (ctx, run, step, ctx->step_bytes, at);
      return;
    }
  /* The caller keeps step below 2^step_bits (the ring's prepare checks
   * its steps once) and at >= now (the ring sends when a step is done, at
   * or after now), so the delivery is not in the past and the queue's
   * push need not be checked.  As sys_phase_send's, to position
   * (pos + 1) mod n, whose run's arg the slow path kept with the price;
   * net_send_priced's work. */
  NetTally *tally = ctx->direct_tally;
  tally->messages++;
  tally->bytes += run->next_bytes - 1; /* step_bytes, as the test just read */
  sim_queue_push_trusted (ctx->queue, sim_time_add (at, run->next_delay), ctx->deliver,
                          (gpointer) ctx, run->next_arg | step);
}

/* The built-in rows, one file each. */
extern const SysAlgoClass sys_algo_ring;
extern const SysAlgoClass sys_algo_dbt;
extern const SysAlgoClass sys_algo_dbt_reference;
extern const SysAlgoClass sys_algo_hd;
extern const SysAlgoClass sys_algo_hd_reference;
extern const SysAlgoClass sys_algo_direct;
extern const SysAlgoClass sys_algo_direct_packets;

#endif /* ORRERY_SYSTEM_ALGO_H */
