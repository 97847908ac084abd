/* program_private.h: a program as program.c builds it and algo_program.c
 * runs it.  Only those two include it.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_PROGRAM_PRIVATE_H
#define ORRERY_SYSTEM_PROGRAM_PRIVATE_H

#include "system/program.h"

typedef struct
{
  SysProgOpSpec spec;
  const char *label;   /* in the program's string chunk */
  guint32 n_deps;      /* operations of this position it waits for */
  guint32 succ_first;  /* its successors: succ[pos][succ_first ..] */
  guint32 n_succ;
  guint32 match;       /* send: the receive's index at the peer; receive: the send's */
} SysProgOp;

struct _SysProgram
{
  SysAlgoClass algo; /* first: the row's vtable finds the program from it */
  char *name, *source;
  char *rank_prefix, *rank_suffix; /* sys_program_set_rank_files, or NULL */
  guint32 n;
  SysProgTiming timing;
  guint32 chunks;
  GStringChunk *labels;
  /* While building: operations and (op, dep) pairs per position. */
  GArray **build, **deps;
  /* Sealed: */
  SysProgOp **ops;
  guint32 *n_ops;
  guint32 **succ;
  guint32 max_ops;
  gboolean sealed;
};

/* Fill prog->algo (algo_program.c). */
void sys_program_class_init (SysProgram *prog);

#endif /* ORRERY_SYSTEM_PROGRAM_PRIVATE_H */
