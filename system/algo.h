/* algo.h: what a collective algorithm sees, and the algorithm table.
 *
 * Models: one phase of one chunk of a collective on one member: the member
 * sits at position `pos` on a line of `n` members (the ranks that share every
 * coordinate but the phase's dimension), starts when its dimension queue lets
 * it, exchanges messages with other positions in numbered steps, and finishes
 * at a time it computes.  An algorithm is a table row (name -> class): adding
 * one is adding a file and a row in algo.c.
 *
 * Algorithms keep their per-member progress in SysRun (one per member, chunk
 * and phase, in one flat array owned by the collective) and act only through
 * the sys_phase_* helpers, which know the group layout and the network.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_ALGO_H
#define ORRERY_SYSTEM_ALGO_H

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
} SysRun;

typedef struct
{
  Sys *sys;
  SysColl *coll;
  SysCollKind op;    /* what this phase does: all-reduce, reduce-scatter, ... */
  guint64 in_bytes;  /* chunk bytes entering the phase on each member */
  guint32 pos;       /* this member's position on the line */
  guint32 n;         /* members on the line, >= 2 */
  guint64 run_index; /* (member, chunk, phase) as an index into the runs */
  guint64 run_key;   /* the same in bit fields, as events carry it */
  guint32 member;
  guint chunk;
  guint phase;
  guint32 root;      /* position of the root on the line (rooted kinds), else 0 */
  guint32 param;     /* the number after the name ("direct4": 4), 0 if none */
  gboolean astra;    /* reproduce ASTRA-sim's timing quirks (SysParams.astra_rounding) */
} SysPhaseCtx;

typedef struct
{
  const char *name;
  /* Does this algorithm implement this phase operation? */
  gboolean (*supports) (SysCollKind op);
  /* The phase starts on this member now (run->started already set). */
  void (*start) (const SysPhaseCtx *ctx, SysRun *run);
  /* A message of `step` arrived for this member, started or not. */
  void (*on_message) (const SysPhaseCtx *ctx, SysRun *run, guint32 step);
} SysAlgoClass;

/* The algorithm called `name` (ASTRA-sim's spelling), or NULL.  A decimal
 * number may follow the name ("direct8": a window of 8 messages); it goes to
 * *param (0 when absent). */
const SysAlgoClass *sys_algo_lookup (const char *name, guint32 *param);

/* Helpers for algorithms. */
/* Send `bytes` to the member at position `to` on the line, tagged `step`,
 * leaving at `at` (>= now). */
void sys_phase_send (const SysPhaseCtx *ctx, guint32 to, guint32 step, guint64 bytes, SimTime at);
/* This member's phase ends at `at` (>= now). */
void sys_phase_finish (const SysPhaseCtx *ctx, SimTime at);
/* The cost of reducing `bytes` into local memory. */
SimTime sys_phase_reduce_cost (const SysPhaseCtx *ctx, guint64 bytes);
SimTime sys_phase_endpoint_delay (const SysPhaseCtx *ctx);
SimTime sys_phase_now (const SysPhaseCtx *ctx);
/* in / n, rounded as the configuration says (ASTRA-sim: down; else up). */
guint64 sys_phase_split (const SysPhaseCtx *ctx, guint64 in, guint32 n);

extern const SysAlgoClass sys_algo_ring;
extern const SysAlgoClass sys_algo_dbt;
extern const SysAlgoClass sys_algo_hd;
extern const SysAlgoClass sys_algo_direct;

#endif /* ORRERY_SYSTEM_ALGO_H */
