/* plan_dlrm_private.h: what plan_dlrm.c (options, outputs) and
 * plan_dlrm_search.c (candidates, simulations, search) share; see
 * plan_dlrm.h.
 *
 * Ownership: a DlrmCand owns its arrays (dlrm_cand_free); the search's
 * array of candidates owns them; the environment is borrowed.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_DLRM_PRIVATE_H
#define ORRERY_SIM_APP_PLAN_DLRM_PRIVATE_H

#include <glib.h>

#include "sim/app/config.h"
#include "sim/app/plan_dlrm.h"
#include "workload/gen_dlrm.h"

/* The baselines, ids 0 .. DLRM_BASELINES - 1. */
#define DLRM_BASELINES 7

/* A table-wise table's rank left to gen dlrm's placement rule. */
#define DLRM_PLACED G_MAXUINT32

typedef struct
{
  WlGenDlrm base;        /* model, ranks, batch, dtype, optimizer, device; no plan */
  guint32 T;             /* tables */
  const AppConfig *cfg;
  guint32 cluster_gpus;  /* the config's own count, which --gpus may resize */
  const NetTopo *topo;   /* cfg's, built once */
  double capacity_B;     /* the device's memory */
  guint budget, jobs;
  gboolean exhaustive;   /* simulate every candidate, bounds or not */
  gint64 progress_us;    /* redraw a progress line on stderr after this long; < 0: never */
  guint32 stop_id;       /* --explain: stop once this id is made (G_MAXUINT32: never) */
  /* The bound's terms (dlrm_bound_init): the fastest a rank's compute can
   * move its embedding bytes (B/s; 0 when the compute model allows no
   * bound, no_bound says why) and the least time of its nodes that no
   * plan changes (s). */
  double bound_Bps, dense_s;
  guint64 bound_slack_ps; /* taken off for rounding down to whole ns */
  const char *no_bound;
} DlrmEnv;

typedef enum
{
  DLRM_PENDING,
  DLRM_SIMULATED,
  DLRM_PRUNED, /* a rank's memory over the device's */
  DLRM_FAILED, /* the layout or the simulation failed (note) */
  DLRM_BOUNDED /* skipped: its lower bound is not below the current plan's time */
} DlrmStatus;

typedef struct
{
  guint32 id;
  char what[64];     /* its origin: a baseline's name or the move made */
  gboolean baseline;
  gboolean accepted; /* the search's current plan at some point */
  WlShardKind *kind; /* per table */
  guint32 *rank;     /* per table: a table-wise table's rank, or DLRM_PLACED */
  DlrmStatus status;
  char note[160];
  guint64 mem_B;     /* the largest memory of a rank */
  guint64 iter_ps;
  guint64 bound_ps;  /* its lower bound (dlrm_cand_bound), 0 without one */
  double lookup_bal, comm_bal; /* max over mean per GPU: lookup bytes, all-to-all bytes */
} DlrmCand;

/* A candidate with FROM's plan (NULL: every table table-wise, placed). */
DlrmCand *dlrm_cand_new (const DlrmEnv *env, const DlrmCand *from, const char *what);
void dlrm_cand_free (DlrmCand *c);

/* C's layout, or NULL with ERROR. */
WlDlrmLayout *dlrm_cand_layout (const DlrmEnv *env, const DlrmCand *c, GError **error);

/* Each rank's embedding bytes in L under the lookup model (gen_dlrm.h;
 * OUT, ranks entries): the forward and backward HBM bytes of its shards,
 * and every data-parallel table's on every rank: its forward and, with
 * DENSE_GRAD, the dense gradient written as its backward (a lower bound of
 * gen dlrm's bytes, for the bound), else the lookup model's backward (the
 * lookup cost the search balances). */
void dlrm_rank_bytes (const DlrmEnv *env, const WlDlrmLayout *l, gboolean dense_grad,
                      double *out);

/* ENV's bound rates from its config (plan_dlrm_bound.c). */
void dlrm_bound_init (DlrmEnv *env);

/* L's lower bound in ps (0 without one): the largest over the ranks of
 * (embedding bytes / bound_Bps + dense_s), less the slack. */
guint64 dlrm_cand_bound (const DlrmEnv *env, const WlDlrmLayout *l);

/* C's layout, memory and balance: TRUE when it is to be simulated
 * (DLRM_PENDING), else DLRM_PRUNED or DLRM_FAILED with its note. */
gboolean dlrm_cand_prepare (const DlrmEnv *env, DlrmCand *c);

/* Simulate C: *ITER_PS, or FALSE with ERROR.  With EXPLAIN > 0, print
 * the EXPLAIN longest steps of its critical path on stdout. */
gboolean dlrm_cand_simulate (const DlrmEnv *env, const DlrmCand *c, guint explain,
                             guint64 *iter_ps, GError **error);

/* The baselines, then the local search, every candidate into ALL
 * (DlrmCand*, owned) in id order; the best simulated, or NULL when none
 * was. */
DlrmCand *dlrm_search (const DlrmEnv *env, GPtrArray *all);

#endif /* ORRERY_SIM_APP_PLAN_DLRM_PRIVATE_H */
