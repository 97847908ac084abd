/* activity.c: a rank's compute, exposed communication and pipeline bubble per
 * time bin. */
#include "workload/activity.h"

#include <stdlib.h>

#include "sim/error.h"

typedef struct
{
  SimTime t;
  /* +1 starts, -1 ends: compute, communication, and of the latter the
   * receives from other ranks, of an exchange (exch) or not (recv). */
  gint8 comp, comm, recv, exch;
} Change;

static int
cmp_change (const void *a, const void *b)
{
  const Change *x = a, *y = b;
  return (x->t > y->t) - (x->t < y->t);
}

/* Width and start of bin i of `bins` over [0, end). */
static SimTime
bin_start (SimTime end, guint bins, guint i)
{
  return (SimTime) ((unsigned __int128) end * i / bins);
}

/* Spread the interval [a, b) of one state over the bins it covers. */
static void
charge (double *acc, SimTime end, guint bins, SimTime a, SimTime b)
{
  if (b <= a)
    return;
  guint i = (guint) ((unsigned __int128) a * bins / end);
  while (a < b && i < bins)
    {
      SimTime hi = MIN (b, bin_start (end, bins, i + 1));
      if (hi > a)
        acc[i] += (double) (hi - a);
      a = MAX (a, hi);
      i++;
    }
}

/* Whether node V of G (rank RANK), recorded as REC, counts as compute or
 * communication with a non-empty interval; *C the change its start makes.
 * A receive from another rank is an exchange's or the pipeline's as the
 * replay counts them (replay.c, in_flight_change). */
static gboolean
counted (const WlGraph *g, guint32 rank, const WlNodeRecord *rec, guint32 v, Change *c)
{
  const WlNode *n = &g->nodes[v];
  WlOp op = (WlOp) n->op;
  gboolean remote = op == WL_OP_RECV && n->peer_src != WL_RANK_SELF && n->peer_src != rank;
  c->comp = (gint8) (op == WL_OP_COMP);
  c->comm = (gint8) (op == WL_OP_COLL || op == WL_OP_SEND || op == WL_OP_RECV);
  c->exch = (gint8) (remote && n->exchange != 0);
  c->recv = (gint8) (remote && n->exchange == 0);
  return (c->comp || c->comm) && rec[v].end != SIM_TIME_MAX && rec[v].end != rec[v].start;
}

guint
wl_activity_node_bytes (void)
{
  return 2 * sizeof (Change);
}

/* acc[i] /= the width of bin i, at most 1. */
static void
to_fractions (double *acc, SimTime end, guint bins)
{
  for (guint i = 0; i < bins; i++)
    {
      double w = (double) (bin_start (end, bins, i + 1) - bin_start (end, bins, i));
      acc[i] = w > 0 ? MIN (1.0, acc[i] / w) : 0.0;
    }
}

gboolean
wl_activity_bins (const WlReplay *r, guint32 rank, SimTime end, guint bins, double *compute,
                  double *exposed, double *bubble, GError **error)
{
  const WlNodeRecord *rec = wl_replay_records (r, rank);
  if (rec == NULL || end == 0 || bins == 0)
    return FALSE;
  const WlGraph *g = wl_replay_graph (r, rank);
  /* Counted first, so that the changes are allocated once and tried. */
  guint64 n = 0;
  Change c;
  for (guint32 v = 0; v < g->n_nodes; v++)
    n += counted (g, rank, rec, v, &c) ? 2 : 0;
  if (n > G_MAXUINT)
    return sim_alloc_error (n, sizeof (Change), "a rank's activity over time", error);
  g_autofree Change *ch = sim_try_alloc (n, sizeof (Change), FALSE,
                                         "a rank's activity over time", error);
  if (ch == NULL)
    return FALSE;
  guint len = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    if (counted (g, rank, rec, v, &c))
      {
        c.t = rec[v].start;
        ch[len++] = c;
        ch[len++] = (Change) { rec[v].end, (gint8) -c.comp, (gint8) -c.comm, (gint8) -c.recv,
                               (gint8) -c.exch };
      }
  /* Stable order is not needed: changes at one instant are applied together. */
  qsort (ch, len, sizeof (Change), cmp_change);
  for (guint i = 0; i < bins; i++)
    {
      compute[i] = exposed[i] = 0.0;
      if (bubble != NULL)
        bubble[i] = 0.0;
    }
  gint comp = 0, comm = 0, recv = 0, exch = 0;
  for (guint i = 0; i < len;)
    {
      SimTime t = ch[i].t;
      for (; i < len && ch[i].t == t; i++)
        {
          comp += ch[i].comp;
          comm += ch[i].comm;
          recv += ch[i].recv;
          exch += ch[i].exch;
        }
      SimTime next = i < len ? ch[i].t : t;
      next = MIN (next, end);
      if (comp > 0)
        charge (compute, end, bins, t, next);
      else if (comm > 0)
        {
          charge (exposed, end, bins, t, next);
          /* An exchange's receive is communication even beside a
           * pipeline's, as in WlRankStats.pipeline_bubble. */
          if (bubble != NULL && exch == 0 && recv > 0)
            charge (bubble, end, bins, t, next);
        }
    }
  to_fractions (compute, end, bins);
  to_fractions (exposed, end, bins);
  if (bubble != NULL)
    to_fractions (bubble, end, bins);
  return TRUE;
}
