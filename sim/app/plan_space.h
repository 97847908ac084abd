/* plan_space.h: `orrery plan`'s search space: the parallel configurations
 * of one transformer on one cluster, enumerated, and pruned with a reason
 * before any simulation.
 *
 * Models: a candidate is one choice of the knobs `gen transformer` takes:
 * tensor (tp), pipeline (pp) with virtual stages (v, interleaved 1F1B),
 * context (cp) and expert (ep) parallelism, the micro-batch b, the ZeRO
 * stage or Megatron's distributed optimizer, recomputation and the
 * pipeline schedule; data parallelism is what is left, dp = N / (tp pp cp).
 * The space is the product of each knob's values (defaults below, or the
 * --space SPEC's lists; tp: the divisors of a node's GPUs, or of all
 * GPUs with tp-across=yes), enumerated in a fixed nested order (tp slowest,
 * then pp, v, cp, ep, b, zero, recompute, schedule), which numbers the
 * candidates 0, 1, ...  Each candidate either survives or is pruned with
 * the first reason that applies (a static or interned string; counted by reason):
 * divisibility (naming which), TP wider than a node when not allowed,
 * configurations that repeat another (ZeRO with one DP rank, GPipe with one
 * stage), what the generator refuses, and memory: the generator's own
 * per-stage memory model (wl_gen_transformer_memory) over the device's
 * capacity.  Memory is in bytes.
 *
 * SPEC grammar: "key=value,value;key=value,..." with keys tp, pp, v, cp,
 * ep, mb (positive whole numbers), zero (0, 1, 2, 3 or dist: the
 * distributed optimizer with ZeRO 0), recompute (none, selective, full),
 * sched (1f1b, gpipe) and tp-across (yes, no: TP wider than a node).
 * A key given replaces its default list; unknown keys and values are
 * errors naming them.
 *
 * Ownership: PlanSpace and PlanCandidate are plain values; the candidate
 * array from plan_space_enumerate is the caller's (g_array_unref).
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_SPACE_H
#define ORRERY_SIM_APP_PLAN_SPACE_H

#include <glib.h>

#include "workload/gen_transformer.h"

/* The knobs that take lists, in enumeration order. */
typedef enum
{
  PLAN_TP,
  PLAN_PP,
  PLAN_V,
  PLAN_CP,
  PLAN_EP,
  PLAN_MB,
  PLAN_ZERO,
  PLAN_RECOMPUTE,
  PLAN_SCHED,
  PLAN_N_KEYS
} PlanKey;

#define PLAN_MAX_VALUES 32
/* zero=dist: the distributed optimizer (with ZeRO 0). */
#define PLAN_ZERO_DIST 4

typedef struct
{
  guint32 values[PLAN_N_KEYS][PLAN_MAX_VALUES];
  guint n[PLAN_N_KEYS]; /* 0: the key's default list */
  gboolean tp_across;   /* TP may span nodes */
} PlanSpace;

/* What is searched for: the model, the machine and the batch. */
typedef struct
{
  WlTransformerModel model;
  guint32 gpus, node_gpus, global_batch;
  guint32 cluster_gpus;   /* the config's own count, which --gpus may resize */
  const WlDevice *device; /* its capacity bounds memory; its roofline goes in the traces */
  /* How the framework trains, the same for every candidate (gen
   * transformer's options of these names): */
  gboolean fp8;           /* --dtype fp8 */
  WlAttention attention;  /* --attention */
  gboolean no_sp;         /* --no-sequence-parallel */
  gboolean no_dp_overlap; /* --no-dp-overlap */
} PlanProblem;

/* One candidate's knobs (dp derived; 0 when gpus is not a multiple of
 * tp pp cp). */
typedef struct
{
  guint32 tp, pp, v, dp, cp, ep, mb, zero; /* zero PLAN_ZERO_DIST: distributed optimizer */
  WlRecompute recompute;
  WlPipeSchedule sched;
} PlanKnobs;

typedef enum
{
  PLAN_PRUNED,
  PLAN_PENDING,     /* survived pruning, not yet simulated */
  PLAN_BOUNDED_OUT, /* its bound could not beat the K-th best */
  PLAN_SIMULATED,
  PLAN_FAILED       /* the simulation failed (the error in note) */
} PlanStatus;

/* A simulated candidate's figures (times in ps, shares of the iteration,
 * means over the GPUs: compute, exposed communication less the bubble, the
 * pipeline bubble, and waiting: neither, before a rank's finish or after
 * it, for the last rank (a pipeline's drain); they add up to 1). */
typedef struct
{
  guint64 iter_ps;
  double mfu, tokens_per_s, compute, exposed, bubble, waiting;
  guint32 simulated_ranks; /* the ranks simulated for all (symmetry classes) */
  guint64 floor_ps; /* the compute floor of its traces (wl_replay_compute_floor), 0 when
                     * not known: a lower bound of iter_ps */
  gboolean cut;     /* not simulated: floor_ps was at least the search's cutoff */
  char note[200]; /* PLAN_FAILED: the error */
  char symmetry[320]; /* how the ranks were simulated as fewer, or why not (cut) */
} PlanResult;

typedef struct
{
  guint32 id;
  PlanKnobs k;
  PlanStatus status;
  const char *reason; /* PLAN_PRUNED: static or interned (g_intern_string) */
  guint64 mem_B;      /* the largest stage's per-GPU memory (0 when not computed) */
  guint64 bound_ps;   /* lower bound of the iteration time */
  PlanResult r;
} PlanCandidate;

/* Parse SPEC (NULL: all defaults) into OUT.  FALSE with ERROR set
 * (SIM_ERROR_INPUT) naming an unknown key or value. */
gboolean plan_space_parse (const char *spec, PlanSpace *out, GError **error);

/* The most candidates a space may have: plan_space_enumerate keeps one
 * PlanCandidate (about 330 bytes) for each, so a million take about
 * 330 MB; a larger space is refused before anything is allocated. */
#define PLAN_MAX_CANDIDATES 1000000u

/* How many candidates plan_space_enumerate would give for SPACE and PB,
 * counted without making them. */
guint64 plan_space_count (const PlanSpace *space, const PlanProblem *pb);

/* Every candidate of SPACE for PB, numbered in enumeration order, pruned
 * or PLAN_PENDING (with mem_B). */
GArray *plan_space_enumerate (const PlanSpace *space, const PlanProblem *pb);

/* The generator's request for candidate K of PB (device set). */
void plan_space_request (const PlanProblem *pb, const PlanKnobs *k, WlGenTransformer *req);

/* *MEM_B: the largest stage's memory per GPU of K's configuration, in
 * bytes, as gen transformer's memory model gives it.  FALSE (ERROR set to
 * the generator's reason, when it gives one) when the generator refuses
 * the configuration. */
gboolean plan_space_memory (const PlanProblem *pb, const PlanKnobs *k, guint64 *mem_B,
                            GError **error);

/* When no candidate of CANDS survived pruning: ERROR set (SIM_ERROR_INPUT)
 * to say so and, where some were pruned for memory, how much the least of
 * those needs a GPU, which candidate that is, and PB's device capacity it
 * passes, so that a user learns how far the model is from fitting. */
void plan_space_none_fit (GArray *cands, const PlanProblem *pb, GError **error);

/* "zero 1", "dist-opt", "none", "1f1b": the knobs' names for tables. */
const char *plan_zero_name (guint32 zero);
const char *plan_recompute_name (WlRecompute r);
const char *plan_sched_name (WlPipeSchedule s);

#endif /* ORRERY_SIM_APP_PLAN_SPACE_H */
