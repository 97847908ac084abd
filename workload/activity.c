/* activity.c: a rank's compute and exposed communication per time bin. */
#include "workload/activity.h"

#include <stdlib.h>

#include "sim/error.h"

typedef struct
{
  SimTime t;
  gint8 comp, comm; /* +1 starts, -1 ends */
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

/* Whether node V of G, recorded as REC, counts as compute (*COMP) or
 * communication (*COMM) with a non-empty interval. */
static gboolean
counted (const WlGraph *g, const WlNodeRecord *rec, guint32 v, gboolean *comp, gboolean *comm)
{
  WlOp op = (WlOp) g->nodes[v].op;
  *comp = op == WL_OP_COMP;
  *comm = op == WL_OP_COLL || op == WL_OP_SEND || op == WL_OP_RECV;
  return (*comp || *comm) && rec[v].end != SIM_TIME_MAX && rec[v].end != rec[v].start;
}

guint
wl_activity_node_bytes (void)
{
  return 2 * sizeof (Change);
}

gboolean
wl_activity_bins (const WlReplay *r, guint32 rank, SimTime end, guint bins, double *compute,
                  double *exposed, GError **error)
{
  const WlNodeRecord *rec = wl_replay_records (r, rank);
  if (rec == NULL || end == 0 || bins == 0)
    return FALSE;
  const WlGraph *g = wl_replay_graph (r, rank);
  /* Counted first, so that the changes are allocated once and tried. */
  guint64 n = 0;
  gboolean comp_v, comm_v;
  for (guint32 v = 0; v < g->n_nodes; v++)
    n += counted (g, rec, v, &comp_v, &comm_v) ? 2 : 0;
  if (n > G_MAXUINT)
    return sim_alloc_error (n, sizeof (Change), "a rank's activity over time", error);
  g_autofree Change *ch = sim_try_alloc (n, sizeof (Change), FALSE,
                                         "a rank's activity over time", error);
  if (ch == NULL)
    return FALSE;
  guint len = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    if (counted (g, rec, v, &comp_v, &comm_v))
      {
        ch[len++] = (Change) { rec[v].start, (gint8) comp_v, (gint8) comm_v };
        ch[len++] = (Change) { rec[v].end, (gint8) -comp_v, (gint8) -comm_v };
      }
  /* Stable order is not needed: changes at one instant are applied together. */
  qsort (ch, len, sizeof (Change), cmp_change);
  for (guint i = 0; i < bins; i++)
    compute[i] = exposed[i] = 0.0;
  gint comp = 0, comm = 0;
  for (guint i = 0; i < len;)
    {
      SimTime t = ch[i].t;
      for (; i < len && ch[i].t == t; i++)
        {
          comp += ch[i].comp;
          comm += ch[i].comm;
        }
      SimTime next = i < len ? ch[i].t : t;
      next = MIN (next, end);
      if (comp > 0)
        charge (compute, end, bins, t, next);
      else if (comm > 0)
        charge (exposed, end, bins, t, next);
    }
  for (guint i = 0; i < bins; i++)
    {
      double w = (double) (bin_start (end, bins, i + 1) - bin_start (end, bins, i));
      compute[i] = w > 0 ? MIN (1.0, compute[i] / w) : 0.0;
      exposed[i] = w > 0 ? MIN (1.0, exposed[i] / w) : 0.0;
    }
  return TRUE;
}
