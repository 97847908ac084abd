/* activity.c: a rank's compute and exposed communication per time bin. */
#include "workload/activity.h"

#include <stdlib.h>

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

gboolean
wl_activity_bins (const WlReplay *r, guint32 rank, SimTime end, guint bins, double *compute,
                  double *exposed)
{
  const WlNodeRecord *rec = wl_replay_records (r, rank);
  if (rec == NULL || end == 0 || bins == 0)
    return FALSE;
  const WlGraph *g = wl_replay_graph (r, rank);
  g_autoptr (GArray) ch = g_array_new (FALSE, FALSE, sizeof (Change));
  for (guint32 v = 0; v < g->n_nodes; v++)
    {
      WlOp op = (WlOp) g->nodes[v].op;
      gboolean comp = op == WL_OP_COMP;
      gboolean comm = op == WL_OP_COLL || op == WL_OP_SEND || op == WL_OP_RECV;
      if ((!comp && !comm) || rec[v].end == SIM_TIME_MAX || rec[v].end == rec[v].start)
        continue;
      Change a = { rec[v].start, (gint8) comp, (gint8) comm };
      Change b = { rec[v].end, (gint8) -comp, (gint8) -comm };
      g_array_append_val (ch, a);
      g_array_append_val (ch, b);
    }
  /* Stable order is not needed: changes at one instant are applied together. */
  qsort (ch->data, ch->len, sizeof (Change), cmp_change);
  for (guint i = 0; i < bins; i++)
    compute[i] = exposed[i] = 0.0;
  gint comp = 0, comm = 0;
  for (guint i = 0; i < ch->len;)
    {
      SimTime t = g_array_index (ch, Change, i).t;
      for (; i < ch->len && g_array_index (ch, Change, i).t == t; i++)
        {
          comp += g_array_index (ch, Change, i).comp;
          comm += g_array_index (ch, Change, i).comm;
        }
      SimTime next = i < ch->len ? g_array_index (ch, Change, i).t : t;
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
