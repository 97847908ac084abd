/* plan_run.h: `orrery plan`'s simulations: a lower bound per candidate,
 * the simulation of one candidate, and the bounded search over worker
 * processes.
 *
 * Models: a candidate's iteration time is what `orrery run` gives for the
 * traces `gen transformer` writes for it (symmetry classes on): one
 * function, plan_run_one, that a faster path can replace.  Its lower bound
 * (plan_run_bound) is the pipeline's longest path of compute, each stage's
 * compute nodes priced as the run prices them and communication free
 * (wl_gen_transformer_bound, which says why the run cannot be faster), or
 * the mean over the GPUs of their compute FLOPs at the fastest rate any
 * kernel can reach if that is larger.  The search simulates the surviving
 * candidates in the order of their bounds (ties by id), PLAN_BATCH at a
 * time; after each batch the K-th best simulated time bounds out every
 * remaining candidate whose bound is at least that.  A candidate reached
 * is bounded out too, without its run, when its compute floor is at least
 * the K-th best before its batch: the busiest rank's compute nodes priced
 * as the run would price them (wl_replay_compute_floor), known once its
 * traces are made and loaded; its bound becomes the larger of the two.
 * The batches do not depend on the number of workers, so neither does any
 * result.  Times are picoseconds.
 *
 * Ownership: the environment is borrowed; candidates are updated in place.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_RUN_H
#define ORRERY_SIM_APP_PLAN_RUN_H

#include <glib.h>

#include "sim/app/config.h"
#include "sim/app/plan_space.h"

/* Candidates simulated between two updates of the K-th best. */
#define PLAN_BATCH 8

typedef struct
{
  const PlanProblem *pb;
  const AppConfig *cfg;
  const NetTopo *topo; /* cfg's topology, built once for every candidate (may be NULL) */
  gint64 progress_us;  /* redraw a progress line on stderr after this long; < 0: never */
  /* plan_run_one does not simulate a candidate whose compute floor is at
   * least this (the K-th best time so far; 0: simulate every one). */
  guint64 cutoff;
} PlanEnv;

/* Why ENV's compute model allows no bound (static: a kernel model without
 * a device), or NULL when plan_run_bound is one (every other model: the
 * pipeline bound prices nodes as the run does, a measured kernel table and
 * the scaled model included). */
const char *plan_run_no_bound (const PlanEnv *env);

/* K's lower bound in ps (0 when plan_run_no_bound). */
guint64 plan_run_bound (const PlanEnv *env, const PlanKnobs *k);

/* Make K's traces in memory (no file is written), simulate them and fill
 * OUT; OUT's floor_ps is the compute floor of the traces (the busiest
 * rank's compute nodes, priced as the run prices them: a lower bound of
 * the iteration).  Without EXPLAIN, when ENV's cutoff is set and the floor
 * is at least it, the traces are not simulated: OUT has cut set and only
 * floor_ps besides.  With EXPLAIN > 0, print the critical path on stdout, its
 * EXPLAIN names with the most time on it (plan_path_print).  FALSE with ERROR set when the generator or the
 * simulation fails. */
gboolean plan_run_one (const PlanEnv *env, const PlanKnobs *k, guint explain, PlanResult *out,
                       GError **error);

/* Bound every PLAN_PENDING candidate of CANDS, then simulate them as above
 * over JOBS worker processes (1: in this process), keeping the TOP best;
 * with EXHAUSTIVE every one is simulated.  Each ends PLAN_SIMULATED,
 * PLAN_FAILED or PLAN_BOUNDED_OUT.  With ENV's progress, a search past a
 * second redraws one line on stderr after each batch: candidates done, the
 * best time so far and the time the rest would take at most; without it,
 * each batch prints a line of its own (simulated, bounded out, seconds).
 * When a signal is noted (plan_pool_interrupted), the search stops after
 * the batch in flight and the candidates not simulated stay PLAN_PENDING. */
void plan_run_search (const PlanEnv *env, GArray *cands, guint top, guint jobs,
                      gboolean exhaustive);

/* The cluster of CFG (read from CONFIG) resized to WANT GPUs (0: as it is):
 * WANT must be a multiple of a node's GPUs (the first dimension's), and a
 * count other than the cluster's takes a cluster of two or more
 * dimensions without an explicit graph, whose last dimension gets more or
 * fewer nodes.  Sets *GPUS and *NODE_GPUS; FALSE with the reason. */
gboolean plan_cluster_gpus (AppConfig *cfg, const char *config, guint32 want, guint32 *gpus,
                            guint32 *node_gpus, GError **error);

/* ", its last dimension resized from A to B" when plan_cluster_gpus made
 * the cluster of CLUSTER_GPUS (the file's count) GPUS GPUs, "" when it did
 * not: for the header after the file's name.  Free with g_free. */
char *plan_resized_note (const NetSpec *net, guint32 gpus, guint32 cluster_gpus);

#endif /* ORRERY_SIM_APP_PLAN_RUN_H */
