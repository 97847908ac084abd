/* algo_program.c: the engine that runs a program (program.h) as a
 * collective algorithm row.
 *
 * Each member keeps, per operation of its position, how many dependencies
 * are still open, the latest time one of them ended (its start once none is
 * open), and for a receive when its data arrived.  Times are computed ahead
 * as the ring's are: an operation whose dependencies are done knows when it
 * starts, a send leaves then (sys_phase_send, tagged with the index of the
 * receive it meets at the peer), a compute ends its cost later, and only a
 * receive waits for an event: its data's arrival.  Under the P2P timing a
 * send ends when its data arrives: the receiver signals the sender at the
 * arrival (sys_phase_signal, tagged with the send's own index).  The state
 * is allocated at the member's first event and freed when its last
 * operation is done (or with the collective, run_free).
 */
#include "system/program_private.h"

#include <string.h>

#include "sim/error.h"

enum
{
  OP_STARTED = 1,
  OP_ARRIVED = 2,
  OP_DONE = 4
};

typedef struct
{
  guint32 n;       /* operations */
  guint32 left;    /* not done */
  SimTime end;     /* the latest end so far */
  guint32 *open;   /* [n] dependencies not done */
  SimTime *start;  /* [n] latest end of a dependency; the start once open == 0 */
  SimTime *arrival;
  guint8 *flags;
  guint32 *stack;  /* operations that can start, to handle without recursion */
  guint32 top;
} ProgRun;

static const SysProgram *
prog_of (const SysPhaseCtx *ctx)
{
  return (const SysProgram *) (const void *) ctx->algo;
}

static ProgRun *
state (const SysPhaseCtx *ctx, SysRun *run)
{
  if (run->bits != 0)
    return GSIZE_TO_POINTER ((gsize) run->bits);
  const SysProgram *prog = prog_of (ctx);
  guint32 n = prog->n_ops[ctx->pos];
  ProgRun *st = g_new0 (ProgRun, 1);
  st->n = st->left = n;
  st->open = g_new (guint32, MAX (n, 1u));
  st->start = g_new0 (SimTime, MAX (n, 1u));
  st->arrival = g_new0 (SimTime, MAX (n, 1u));
  st->flags = g_new0 (guint8, MAX (n, 1u));
  st->stack = g_new (guint32, MAX (n, 1u));
  for (guint32 i = 0; i < n; i++)
    st->open[i] = prog->ops[ctx->pos][i].n_deps;
  run->bits = (guint64) GPOINTER_TO_SIZE (st);
  return st;
}

static void
state_free (SysRun *run)
{
  ProgRun *st = GSIZE_TO_POINTER ((gsize) run->bits);
  if (st == NULL)
    return;
  g_free (st->open);
  g_free (st->start);
  g_free (st->arrival);
  g_free (st->flags);
  g_free (st->stack);
  g_free (st);
  run->bits = 0;
}

/* What an operation moves, in bytes. */
static guint64
op_bytes (const SysPhaseCtx *ctx, const SysProgOp *op)
{
  const SysProgram *prog = prog_of (ctx);
  if (prog->chunks == 0)
    return op->spec.amount;
  guint64 total = ctx->in_bytes;
  if (ctx->op == SYS_COLL_ALL_GATHER)
    total *= ctx->n;
  return sys_phase_split (ctx, total, prog->chunks) * op->spec.amount;
}

static SimTime
op_mem_cost (const SysPhaseCtx *ctx, const SysProgOp *op)
{
  switch (op->spec.mem)
    {
    case SYS_PROG_MEM_REDUCE:
      return sys_phase_reduce_cost (ctx, op_bytes (ctx, op));
    case SYS_PROG_MEM_COPY:
      return sys_phase_copy_cost (ctx, op_bytes (ctx, op));
    case SYS_PROG_MEM_NONE:
      break;
    }
  return 0;
}

static void
op_done (const SysPhaseCtx *ctx, SysRun *run, ProgRun *st, guint32 i, SimTime t)
{
  const SysProgram *prog = prog_of (ctx);
  const SysProgOp *op = &prog->ops[ctx->pos][i];
  g_assert (!(st->flags[i] & OP_DONE));
  st->flags[i] |= OP_DONE;
  st->left--;
  st->end = MAX (st->end, t);
  for (guint32 s = 0; s < op->n_succ; s++)
    {
      guint32 j = prog->succ[ctx->pos][op->succ_first + s];
      st->start[j] = MAX (st->start[j], t);
      if (--st->open[j] == 0)
        st->stack[st->top++] = j;
    }
  if (st->left == 0)
    {
      sys_phase_finish (ctx, st->end);
      state_free (run);
    }
}

/* A receive that has started and whose data is in. */
static void
recv_done (const SysPhaseCtx *ctx, SysRun *run, ProgRun *st, guint32 i)
{
  const SysProgOp *op = &prog_of (ctx)->ops[ctx->pos][i];
  SimTime t = sim_time_add (MAX (st->start[i], st->arrival[i]), op_mem_cost (ctx, op));
  if (prog_of (ctx)->timing == SYS_PROG_TIMING_NATIVE)
    t = sim_time_add (t, sys_phase_endpoint_delay (ctx));
  op_done (ctx, run, st, i, t);
}

/* Start every operation on the stack, and those they let start. */
static void
drain (const SysPhaseCtx *ctx, SysRun *run, ProgRun *st)
{
  const SysProgram *prog = prog_of (ctx);
  while (run->bits != 0 && st->top > 0)
    {
      guint32 i = st->stack[--st->top];
      const SysProgOp *op = &prog->ops[ctx->pos][i];
      SimTime t = st->start[i];
      st->flags[i] |= OP_STARTED;
      switch (op->spec.kind)
        {
        case SYS_PROG_SEND:
          sys_phase_send (ctx, op->spec.peer, op->match, op_bytes (ctx, op), t);
          if (prog->timing == SYS_PROG_TIMING_NATIVE)
            op_done (ctx, run, st, i, t);
          break;
        case SYS_PROG_RECV:
          if (st->flags[i] & OP_ARRIVED)
            recv_done (ctx, run, st, i);
          break;
        case SYS_PROG_COMPUTE:
          op_done (ctx, run, st, i,
                   sim_time_add (sim_time_add (t, op->spec.cost), op_mem_cost (ctx, op)));
          break;
        }
    }
}

static void
prog_start (const SysPhaseCtx *ctx, SysRun *run)
{
  const SysProgram *prog = prog_of (ctx);
  ProgRun *st = state (ctx, run);
  SimTime t0 = sys_phase_now (ctx);
  if (prog->timing == SYS_PROG_TIMING_NATIVE)
    t0 = sim_time_add (t0, sys_phase_endpoint_delay (ctx));
  if (st->n == 0)
    {
      sys_phase_finish (ctx, t0);
      state_free (run);
      return;
    }
  for (guint32 i = 0; i < st->n; i++)
    {
      st->start[i] = t0;
      if (st->open[i] == 0)
        st->stack[st->top++] = i;
    }
  drain (ctx, run, st);
}

static void
prog_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  const SysProgram *prog = prog_of (ctx);
  ProgRun *st = state (ctx, run);
  g_assert (step < st->n);
  const SysProgOp *op = &prog->ops[ctx->pos][step];
  SimTime now = sys_phase_now (ctx);
  if (op->spec.kind == SYS_PROG_SEND)
    {
      /* P2P: the data of this send has arrived. */
      op_done (ctx, run, st, step, now);
      drain (ctx, run, st);
      return;
    }
  g_assert (op->spec.kind == SYS_PROG_RECV && !(st->flags[step] & OP_ARRIVED));
  st->flags[step] |= OP_ARRIVED;
  st->arrival[step] = now;
  if (prog->timing == SYS_PROG_TIMING_P2P)
    sys_phase_signal (ctx, op->spec.peer, op->match, now);
  if (st->flags[step] & OP_STARTED)
    {
      recv_done (ctx, run, st, step);
      drain (ctx, run, st);
    }
}

static gboolean
prog_check (const SysAlgoClass *algo, SysCollKind op, guint32 n, GError **error)
{
  const SysProgram *prog = (const SysProgram *) (const void *) algo;
  if (n == prog->n)
    return TRUE;
  g_autofree char *why = NULL;
  if (prog->rank_prefix != NULL && n > prog->n)
    why = g_strdup_printf (": %s.%u%s is missing", prog->rank_prefix, prog->n, prog->rank_suffix);
  else if (prog->rank_prefix != NULL)
    why = g_strdup_printf (": %s.%u%s and up are not used", prog->rank_prefix, n,
                           prog->rank_suffix);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "%s: the program is written for %u ranks but this %s's group has %u%s",
               prog->source, prog->n, sys_coll_kind_name (op), n, why != NULL ? why : "");
  return FALSE;
}

void
sys_program_class_init (SysProgram *prog)
{
  prog->algo = (SysAlgoClass) {
    .name = prog->name,
    .help = "a program: per rank, sends, receives and local steps with dependencies",
    .timing = SYS_TIMING_NATIVE,
    .alike = SYS_ALIKE_NEVER,
    .unlike_why = "a program gives every rank its own operations",
    .links_why = "a program gives every rank its own operations",
    .mirror_why = "a program gives every rank its own operations",
    .whole_group = TRUE,
    .check = prog_check,
    .run_free = state_free,
    .start = prog_start,
    .on_message = prog_on_message,
  };
}
