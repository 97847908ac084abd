/* link_flow_fill.c: progressive filling of one component of the flow model
 * (link_flow.c): every rate rises together until a link is full, the flows
 * on it freeze at its share, and the rest go on.
 */
#include "network/link_flow_private.h"

#include <math.h>
#include <string.h>

/* ---- progressive filling -------------------------------------------------------- */

/* Room in the per-link and per-flow filling arrays for the component, the
 * links padded to a power of two for the tournament. */
static void
component_reserve (Component *c)
{
  guint32 leaves = 1;
  while (leaves < c->links.len)
    leaves *= 2;
  c->leaves = leaves;
  if (leaves > c->link_room)
    {
      c->link_room = leaves;
      c->cap_left = g_renew (double, c->cap_left, leaves);
      c->share = g_renew (double, c->share, leaves);
      c->unfrozen = g_renew (guint32, c->unfrozen, leaves);
      c->touched = g_renew (guint32, c->touched, leaves);
      c->win = g_renew (guint32, c->win, 2 * (gsize) leaves);
    }
  if (c->flows.len > c->flow_room)
    {
      c->flow_room = MAX (c->flows.len, 2 * c->flow_room);
      c->frozen = g_renew (guint8, c->frozen, c->flow_room);
      c->rate = g_renew (double, c->rate, c->flow_room);
    }
}

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

/* Link i's share changed: replay its matches up the tournament.  A match
 * whose winner stays the same other link leaves every match above it as it
 * was (that winner's share did not move), so the walk stops there. */
static void
win_update (Component *c, guint32 i)
{
  const double *share = c->share;
  guint32 *win = c->win;
  for (guint32 n = (c->leaves + i) >> 1; n >= 1; n >>= 1)
    {
      guint32 w = win_of (share, win[2 * n], win[2 * n + 1]);
      if (w == win[n] && w != i)
        return;
      win[n] = w;
    }
}

/* Every link at its capacity with all its flows unfrozen, its share
 * computed, and the tournament played. */
static void
fill_init (FlowNet *f)
{
  Component *c = &f->comp;
  component_reserve (c);
  guint32 leaves = c->leaves;
  for (guint32 i = 0; i < c->links.len; i++)
    {
      const FlowLink *link = &f->links[c->links.v[i]];
      c->cap_left[i] = link->capacity;
      c->unfrozen[i] = link->n;
      c->touched[i] = 0;
      c->share[i] = link->n == 0 ? INFINITY : MAX (c->cap_left[i], 0.0) / c->unfrozen[i];
    }
  for (guint32 i = c->links.len; i < leaves; i++)
    c->share[i] = INFINITY;
  for (guint32 i = 0; i < leaves; i++)
    c->win[leaves + i] = i;
  for (guint32 n = leaves - 1; n >= 1; n--)
    c->win[n] = win_of (c->share, c->win[2 * n], c->win[2 * n + 1]);
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
  double *cap_left = c->cap_left;
  guint32 *unfrozen = c->unfrozen, *touched = c->touched;
  guint8 *frozen_k = c->frozen;
  guint32 round = ++f->round, len = link->len, frozen = 0;
  c->changed.len = 0;
  for (guint32 j = 0; j < len; j++)
    {
      if (ids[j] == FLOW_GONE)
        continue;
      guint32 k = flow_tags[ids[j]].local;
      if (frozen_k[k])
        continue;
      frozen_k[k] = 1;
      c->rate[k] = share;
      frozen++;
      for (guint32 h = first[k], end = first[k + 1]; h < end; h++)
        {
          guint32 i = hops[h];
          cap_left[i] -= share;
          unfrozen[i]--;
          if (touched[i] != round)
            {
              touched[i] = round;
              u32s_push (&c->changed, i);
            }
        }
    }
  for (guint32 n = 0; n < c->changed.len; n++)
    {
      guint32 i = c->changed.v[n];
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
  fill_init (f);
  while (left > 0)
    {
      guint32 best = c->win[1];
      g_assert (c->share[best] < INFINITY); /* some link has room: the filling can go on */
      left -= fill_freeze (f, best, c->share[best]);
    }
}
