/* program.h: collective algorithms given as programs (custom collectives).
 *
 * Models: an algorithm written as data, not code: for each position of the
 * collective's group, a DAG of operations (send bytes to a position with a
 * tag, receive from a position with a tag, a local reduction or copy, a
 * compute of fixed time).  ASTRA-sim's Chakra-defined custom collectives and
 * MSCCL XML both compile into this form (workload/coll_program.c,
 * sim/app/msccl.c); one engine runs it through the network model as a
 * collective algorithm row (SysAlgoClass) that takes the whole group as one
 * flat line and the whole collective as one chunk.
 *
 * Matching is static: on a channel (source, destination, tag) the n-th send
 * in the source's operation order meets the n-th receive in the
 * destination's.  sys_program_seal checks every send has its receive and
 * that no chain of dependencies and messages waits on itself, so a program
 * that would deadlock is refused at load, naming the operations.
 *
 * Two timings (SysProgTiming), chosen by the front end:
 *   P2P (ASTRA-sim's custom collectives): an operation starts once its
 *     dependencies are done; a send's data leaves then and the send is done
 *     when the data has arrived; a receive is done at the later of its start
 *     and its data's arrival (plus its reduction, if any); no endpoint delay.
 *   NATIVE (orrery's collective rule, as the ring's): the phase costs the
 *     endpoint delay e once at its start; a send is done when its data
 *     leaves; a receive is done e after the later of its start and its
 *     data's arrival (after its reduction, if any).
 * Either way a compute operation is done its fixed time after it starts,
 * reductions cost the system's local-memory passes and copies one pass,
 * and a member is done when its last operation is.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_PROGRAM_H
#define ORRERY_SYSTEM_PROGRAM_H

#include "system/algo.h"

typedef enum
{
  SYS_PROG_TIMING_P2P,
  SYS_PROG_TIMING_NATIVE
} SysProgTiming;

typedef enum
{
  SYS_PROG_SEND,
  SYS_PROG_RECV,
  SYS_PROG_COMPUTE
} SysProgOpKind;

/* What an operation does to local memory besides moving data. */
typedef enum
{
  SYS_PROG_MEM_NONE,
  SYS_PROG_MEM_REDUCE, /* the system's reduction passes over its bytes */
  SYS_PROG_MEM_COPY    /* one pass over its bytes */
} SysProgMem;

typedef struct
{
  SysProgOpKind kind;
  SysProgMem mem;
  guint32 peer;   /* send, receive: the other position */
  gint64 tag;     /* send, receive: the channel */
  guint64 amount; /* bytes, or chunks when the program counts in chunks */
  SimTime cost;   /* compute: fixed time */
} SysProgOpSpec;

typedef struct _SysProgram SysProgram;

/* A new program for `n` positions named `name` (what reports call the
 * algorithm) from `source` (what messages name).  `chunks` > 0: amounts
 * are counts of chunks of MSCCL's buffer / chunks (as sys_phase_split
 * rounds), the buffer being the collective's bytes, times the line's size
 * for an all-gather (its output); 0: amounts are bytes. */
SysProgram *sys_program_new (const char *name, const char *source, guint32 n,
                             SysProgTiming timing, guint32 chunks);
void sys_program_free (SysProgram *prog); /* accepts NULL */

/* Append an operation to position `pos`; `label` names it in messages
 * ("FILE:12: gpu 0 tb 1 step 3").  Returns its index among pos's. */
guint32 sys_program_add (SysProgram *prog, guint32 pos, const SysProgOpSpec *spec,
                         const char *label);
/* Operation `op` of `pos` starts only after operation `dep` of `pos`. */
void sys_program_add_dep (SysProgram *prog, guint32 pos, guint32 op, guint32 dep);
/* The label of an operation (borrowed). */
const char *sys_program_label (const SysProgram *prog, guint32 pos, guint32 op);

/* Match sends with receives and check the program can run to its end: every
 * peer in range and not the sender itself, every send with its receive
 * (equal amounts) and the reverse, no cycle of dependencies and messages.
 * FALSE with an input error naming the operations otherwise.  A sealed
 * program is read-only: one may serve several simulations at once. */
gboolean sys_program_seal (SysProgram *prog, GError **error);

guint32 sys_program_size (const SysProgram *prog);
const char *sys_program_source (const SysProgram *prog);
/* The program came from one file per position, PREFIX.<pos>SUFFIX: a
 * group of another size is told which file is missing or left over. */
void sys_program_set_rank_files (SysProgram *prog, const char *prefix, const char *suffix);
/* The kinds the program implements: set by the front end (SYS_KIND_BIT). */
void sys_program_set_kinds (SysProgram *prog, guint32 kinds);

/* The algorithm row running `prog` (sealed; it must outlive the row's
 * users): an algorithm takes the whole group as one line and the whole
 * collective as one chunk, never alike across members. */
const SysAlgoClass *sys_program_algo (const SysProgram *prog);

#endif /* ORRERY_SYSTEM_PROGRAM_H */
