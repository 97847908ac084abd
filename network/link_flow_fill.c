/* link_flow_fill.c: progressive filling of one component of the flow model
 * (link_flow.c): every rate rises together until a link is full, the flows
 * on it freeze at its share, and the rest go on.
 */
#include "network/link_flow_private.h"
#include "sim/error.h"

#include <math.h>
#include <string.h>

/* ---- the filling's arrays ------------------------------------------------------- */

gboolean
net_flow_component_init (Component *c, guint32 n_links, GError **error)
{
  guint32 leaves = 2;
  while (leaves < n_links)
    leaves *= 2;
  const char *what = "the flow model's filling";
  c->cap_left = sim_try_alloc (n_links, sizeof (double), FALSE, what, error);
  c->share = c->cap_left ? sim_try_alloc (leaves, sizeof (double), FALSE, what, error) : NULL;
  c->win = c->share ? sim_try_alloc (leaves, sizeof (guint32), FALSE, what, error) : NULL;
  c->unfrozen = c->win ? sim_try_alloc (n_links, sizeof (guint32), FALSE, what, error) : NULL;
  c->touched = c->unfrozen ? sim_try_alloc (n_links, sizeof (guint32), TRUE, what, error) : NULL;
  c->changed = c->touched ? sim_try_alloc (n_links, sizeof (guint32), FALSE, what, error) : NULL;
  return c->changed != NULL;
}

void
net_flow_component_free (Component *c)
{
  g_free (c->links.v);
  g_free (c->flows.v);
  g_free (c->first.v);
  g_free (c->hops.v);
  g_free (c->cap_left);
  g_free (c->share);
  g_free (c->win);
  g_free (c->unfrozen);
  g_free (c->touched);
  g_free (c->changed);
  g_free (c->frozen);
  g_free (c->rate);
  g_free (c->bneck);
}

/* ---- the tournament ------------------------------------------------------------- */

/* Of two links, a before b in component order, the one with the smaller
 * share, a on a tie: a scan in component order with a strict < keeps the
 * first of equal shares, and so does a tournament of these matches (a
 * node's left subtree holds the earlier links).  No share is NaN: each is
 * MAX (cap_left, 0) / unfrozen, or infinity. */
static inline guint32
win_of (const double *share, guint32 a, guint32 b)
{
  return share[b] < share[a] ? b : a;
}

/* Play every match, the lowest ones between neighbouring links. */
static void
win_build (Component *c)
{
  guint32 leaves = c->leaves, *win = c->win;
  for (guint32 n = leaves / 2; n < leaves; n++)
    win[n] = win_of (c->share, 2 * n - leaves, 2 * n - leaves + 1);
  for (gsize n = leaves / 2 - 1; n >= 1; n--)
    win[n] = win_of (c->share, win[2 * n], win[2 * n + 1]);
}

/* Link i's share changed: replay its matches up the tournament.  A match
 * whose winner stays the same other link leaves every match above it as it
 * was (that winner's share did not move), so the walk stops there. */
static void
win_update (Component *c, guint32 i)
{
  const double *share = c->share;
  guint32 *win = c->win;
  gsize n = (c->leaves + i) >> 1;
  guint32 w = win_of (share, i & ~1u, i | 1u);
  if (w == win[n] && w != i)
    return;
  win[n] = w;
  for (n >>= 1; n >= 1; n >>= 1)
    {
      w = win_of (share, win[2 * n], win[2 * n + 1]);
      if (w == win[n] && w != i)
        return;
      win[n] = w;
    }
}

/* ---- progressive filling -------------------------------------------------------- */

/* The shares padded to the tournament's size, the tournament played, no
 * flow frozen.  (The collection set every link's capacity, flows and
 * share.) */
static void
fill_init (Component *c)
{
  guint32 leaves = 2;
  while (leaves < c->links.len)
    leaves *= 2;
  c->leaves = leaves;
  for (guint32 i = c->links.len; i < leaves; i++)
    c->share[i] = INFINITY;
  win_build (c);
  if (c->flows.len > c->flow_room)
    {
      c->flow_room = MAX (c->flows.len, 2 * c->flow_room);
      c->frozen = g_renew (guint8, c->frozen, c->flow_room);
      c->rate = g_renew (double, c->rate, c->flow_room);
      c->bneck = g_renew (guint32, c->bneck, c->flow_room);
    }
  memset (c->frozen, 0, c->flows.len);
}

/* Freeze the flows on component link `best` that are not frozen yet at
 * `share`, taking it from every link they cross, and replay the matches of
 * the links whose share changed; returns how many flows froze.  The arrays
 * live in locals so that the stores into them do not make the compiler
 * reload them. */
static guint32
fill_freeze (FlowNet *f, guint32 best, double share)
{
  Component *c = &f->comp;
  const FlowLink *link = &f->links[c->links.v[best]];
  const guint32 *ids = link->ids, *first = c->first.v, *hops = c->hops.v;
  const CompTag *flow_tags = (const CompTag *) f->flow_tags->data;
  double *cap_left = c->cap_left, *rate = c->rate;
  guint32 *unfrozen = c->unfrozen, *touched = c->touched, *changed = c->changed;
  guint32 *bneck = c->bneck, epoch = f->epoch;
  guint8 *is_frozen = c->frozen;
  /* Round 0 would match every link the collection reset. */
  f->round = f->round == G_MAXUINT32 ? 1 : f->round + 1;
  guint32 round = f->round, len = link->len, frozen = 0, n_changed = 0;
  for (guint32 j = 0; j < len; j++)
    {
      if (ids[j] == FLOW_GONE || flow_tags[ids[j]].mark != epoch)
        continue; /* a flow whose rate is kept */
      guint32 k = flow_tags[ids[j]].local;
      if (is_frozen[k])
        continue;
      is_frozen[k] = 1;
      rate[k] = share;
      bneck[k] = best;
      frozen++;
      for (guint32 h = first[k], end = first[k + 1]; h < end; h++)
        {
          guint32 i = hops[h];
          cap_left[i] -= share;
          unfrozen[i]--;
          if (touched[i] != round)
            {
              touched[i] = round;
              changed[n_changed++] = i;
            }
        }
    }
  for (guint32 n = 0; n < n_changed; n++)
    {
      guint32 i = changed[n];
      c->share[i] = unfrozen[i] > 0 ? MAX (cap_left[i], 0.0) / unfrozen[i] : INFINITY;
      win_update (c, i);
    }
  return frozen;
}

/* Progressive filling over the component: every unfrozen flow's rate rises
 * together; the link whose fair share is smallest (the first in component
 * order on a tie: the tournament's winner) fills first and freezes its
 * flows at that share.  A link's share is recomputed only when a round
 * changes it, the same division of the same operands as recomputing it
 * every round would do; a link without unfrozen flows has share infinity,
 * so it is never picked. */
void
net_flow_component_fill (FlowNet *f)
{
  Component *c = &f->comp;
  guint32 left = c->flows.len;
  fill_init (c);
  while (left > 0)
    {
      guint32 best = c->win[1];
      g_assert (c->share[best] < INFINITY); /* some link has room: the filling can go on */
      left -= fill_freeze (f, best, c->share[best]);
    }
}
