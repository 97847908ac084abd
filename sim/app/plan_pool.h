/* plan_pool.h: the worker processes both planners (`orrery plan`,
 * plan_run.c; `orrery plan --dlrm`, plan_dlrm_search.c) simulate a batch
 * of candidates over, and the progress line of their searches.
 *
 * Models: a batch of N items (the planner's candidates) is split over
 * w = min (jobs, N) forked workers, worker j taking items j, j + w, ...;
 * each runs the planner's callback on its copy of an item and sends back a
 * fixed-size record (the item's index and what the planner's encoder
 * writes); the parent decodes each record into its item.  Results land by
 * index, so the order of the batch's results never depends on jobs.  With
 * one job, or for the items of a worker that could not be forked, the
 * callback runs in this process; the items of a worker that died are
 * handed to the planner's failure callback.
 *
 * Ownership: the items and the planner's data are borrowed.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_POOL_H
#define ORRERY_SIM_APP_PLAN_POOL_H

#include <glib.h>

/* The most worker processes of one batch. */
#define PLAN_POOL_MAX_WORKERS 64

typedef struct
{
  gpointer data;    /* the planner's environment, passed to each callback */
  gsize record_size; /* bytes encode writes and decode reads */
  /* Simulate ITEM in place, setting its status and result. */
  void (*run) (gpointer data, gpointer item);
  /* ITEM's result (after run) into RECORD (record_size bytes). */
  void (*encode) (gconstpointer item, gpointer record);
  /* RECORD into ITEM. */
  void (*decode) (gpointer item, gconstpointer record);
  /* ITEM's worker died before sending it: mark it failed. */
  void (*fail) (gpointer item, const char *why);
} PlanPool;

/* Run POOL's callback on the N ITEMS over up to JOBS worker processes. */
void plan_pool_run (const PlanPool *pool, gpointer *items, guint n, guint jobs);

/* On SIGINT, SIGTERM, SIGHUP or SIGPIPE, pass the signal on to the worker
 * processes of the batch in flight, then die of it. */
void plan_pool_catch_signals (void);

/* With ON, the first SIGINT or SIGTERM is noted instead of fatal: the
 * workers of the batch in flight die of it, plan_pool_run returns with
 * the items they had not sent back untouched, and runs no batch after
 * it; even one job runs in a worker then (so that the parent, which
 * only waits, stops at once), unless the last batch's items took less
 * than 50 ms each (then it runs here, and an interrupt waits for it). */
void plan_pool_defer_interrupts (gboolean on);

/* The signal noted while deferred (SIGINT, SIGTERM), or 0. */
int plan_pool_interrupted (void);

/* A search's progress line on stderr: DONE of at most N candidates
 * simulated or tried (the rest may still be bounded out or never made, so
 * the time left is at most the pace so far times them), the best time so
 * far (G_MAXUINT64: none).  Drawn only once ELAPSED (us) reaches AFTER
 * (app_progress_after); sets *DRAWN then (the caller clears the line at
 * the end). */
/* *US: when a search draws its progress line (app_progress_after) with
 * stderr a terminal, else -1 (never).  FALSE with ERROR when
 * ORRERY_PROGRESS_AFTER does not parse. */
gboolean plan_pool_progress_after (gint64 *us, GError **error);

void plan_pool_progress (guint done, guint n, guint64 best_ps, gint64 elapsed, gint64 after,
                         gboolean *drawn);

#endif /* ORRERY_SIM_APP_PLAN_POOL_H */
