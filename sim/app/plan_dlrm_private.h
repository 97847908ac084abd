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

/* A table-wise table's rank left to gen dlrm's placement rule. */
#define DLRM_PLACED G_MAXUINT32

typedef struct
{
  WlGenDlrm base;        /* model, ranks, batch, dtype, optimizer, device; no plan */
  guint32 T;             /* tables */
  const AppConfig *cfg;
  const NetTopo *topo;   /* cfg's, built once */
  double capacity_B;     /* the device's memory */
  guint budget, jobs;
} DlrmEnv;

typedef enum
{
  DLRM_PENDING,
  DLRM_SIMULATED,
  DLRM_PRUNED, /* a rank's memory over the device's */
  DLRM_FAILED  /* the layout or the simulation failed (note) */
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
  double lookup_bal, comm_bal; /* max over mean per GPU: lookup bytes, all-to-all bytes */
} DlrmCand;

/* A candidate with FROM's plan (NULL: every table table-wise, placed). */
DlrmCand *dlrm_cand_new (const DlrmEnv *env, const DlrmCand *from, const char *what);
void dlrm_cand_free (DlrmCand *c);

/* C's layout, or NULL with ERROR. */
WlDlrmLayout *dlrm_cand_layout (const DlrmEnv *env, const DlrmCand *c, GError **error);

/* Each rank's lookup cost in L (OUT, ranks entries): the forward and
 * backward HBM bytes of its shards under the lookup model (gen_dlrm.h),
 * data-parallel tables' on every rank. */
void dlrm_rank_lookup (const DlrmEnv *env, const WlDlrmLayout *l, double *out);

/* C's layout, memory and balance: TRUE when it is to be simulated
 * (DLRM_PENDING), else DLRM_PRUNED or DLRM_FAILED with its note. */
gboolean dlrm_cand_prepare (const DlrmEnv *env, DlrmCand *c);

/* Simulate C: *ITER_PS, or FALSE with ERROR. */
gboolean dlrm_cand_simulate (const DlrmEnv *env, const DlrmCand *c, guint64 *iter_ps,
                             GError **error);

/* The baselines, then the local search, every candidate into ALL
 * (DlrmCand*, owned) in id order; the best simulated, or NULL when none
 * was. */
DlrmCand *dlrm_search (const DlrmEnv *env, GPtrArray *all);

#endif /* ORRERY_SIM_APP_PLAN_DLRM_PRIVATE_H */
