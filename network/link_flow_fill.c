/* link_flow_fill.c: progressive filling of one component of the flow model
 * (link_flow.c): every rate rises together until a link is full, the flows
 * on it freeze at its share, and the rest go on.
 */
#include "network/link_flow_private.h"

#include <math.h>
#include <string.h>

/* ---- progressive filling -------------------------------------------------------- */

/* Room in the per-link and per-flow filling arrays for the component. */
static void
component_reserve (Component *c)
{
  if (c->links.len > c->link_room)
    {
      c->link_room = MAX (c->links.len, 2 * c->link_room);
      c->cap_left = g_renew (double, c->cap_left, c->link_room);
      c->share = g_renew (double, c->share, c->link_room);
      c->at = g_renew (guint32, c->at, c->link_room);
      c->near = g_renew (guint32, c->near, c->link_room);
      c->near_mark = g_renew (guint8, c->near_mark, c->link_room);
      c->unfrozen = g_renew (guint32, c->unfrozen, c->link_room);
      c->touched = g_renew (guint32, c->touched, c->link_room);
      c->live = g_renew (guint32, c->live, c->link_room);
    }
  if (c->flows.len > c->flow_room)
    {
      c->flow_room = MAX (c->flows.len, 2 * c->flow_room);
      c->frozen = g_renew (guint8, c->frozen, c->flow_room);
      c->rate = g_renew (double, c->rate, c->flow_room);
    }
}

/* Every link at its capacity with all its flows unfrozen; returns the number
 * of links carrying flows, listed in c->live in component order. */
static guint32
fill_init (FlowNet *f)
{
  Component *c = &f->comp;
  component_reserve (c);
  guint32 n_live = 0;
  for (guint32 i = 0; i < c->links.len; i++)
    {
      const FlowLink *link = &f->links[c->links.v[i]];
      c->cap_left[i] = link->capacity;
      c->unfrozen[i] = link->n;
      c->touched[i] = 0;
      if (link->n == 0)
        continue;
      c->share[n_live] = MAX (c->cap_left[i], 0.0) / c->unfrozen[i];
      c->near_mark[n_live] = 0;
      c->at[i] = n_live;
      c->live[n_live++] = i;
    }
  memset (c->frozen, 0, c->flows.len);
  c->n_near = 0;
  c->near_max = -INFINITY;
  return n_live;
}

/* The smallest of n shares (infinity if none), in four independent chains
 * so that the comparisons overlap. */
/* The smallest of n shares (infinity if none), in four independent chains
 * so that the comparisons overlap. */
static double
fill_min (const double *share, guint32 n)
{
  double m0 = INFINITY, m1 = INFINITY, m2 = INFINITY, m3 = INFINITY;
  guint32 k = 0;
  for (; k + 4 <= n; k += 4)
    {
      m0 = share[k] < m0 ? share[k] : m0;
      m1 = share[k + 1] < m1 ? share[k + 1] : m1;
      m2 = share[k + 2] < m2 ? share[k + 2] : m2;
      m3 = share[k + 3] < m3 ? share[k + 3] : m3;
    }
  for (; k < n; k++)
    m0 = share[k] < m0 ? share[k] : m0;
  return MIN (MIN (m0, m1), MIN (m2, m3));
}

static void
near_add (Component *c, guint32 k)
{
  c->near_mark[k] = 1;
  c->near[c->n_near++] = k;
}

/* Forget the near places (before the live places move). */
static void
near_clear (Component *c)
{
  for (guint32 j = 0; j < c->n_near; j++)
    c->near_mark[c->near[j]] = 0;
  c->n_near = 0;
  c->near_max = -INFINITY;
}

/* The near list's target length per live link: a rebuild costs three
 * passes over the live links and lasts about as many rounds as the list
 * holds links. */
#define NEAR_PER_LIVE 16

/* Scan every live link: near_max becomes the smallest share m times the
 * largest of 2, 1.5, 1.25, 1.125 that keeps at most live / NEAR_PER_LIVE
 * (and at least 4) links at or below it, or m itself, and near every place
 * at or below it, in live order.  Any near_max >= m keeps the pick exact;
 * its choice only sets how long the list lasts. */
static void
near_rebuild (Component *c, guint32 n_live)
{
  near_clear (c);
  double m = fill_min (c->share, n_live);
  g_assert (m < INFINITY); /* some link has room: the filling can go on */
  const double t[4] = { 2 * m, 1.5 * m, 1.25 * m, 1.125 * m };
  guint32 n[4] = { 0, 0, 0, 0 };
  for (guint32 k = 0; k < n_live; k++)
    {
      double v = c->share[k];
      n[0] += v <= t[0];
      n[1] += v <= t[1];
      n[2] += v <= t[2];
      n[3] += v <= t[3];
    }
  guint32 want = MAX (4, n_live / NEAR_PER_LIVE);
  c->near_max = m;
  for (guint i = 0; i < 4; i++)
    if (n[i] <= want)
      {
        c->near_max = t[i];
        break;
      }
  for (guint32 k = 0; k < n_live; k++)
    if (c->share[k] <= c->near_max)
      near_add (c, k);
}

/* The near place with the smallest share, the first in live order on a tie
 * (G_MAXUINT32 when none is left at or below near_max), dropping the places
 * whose share has grown past near_max. */
static guint32
near_best (Component *c)
{
  guint32 best = G_MAXUINT32, kept = 0;
  double least = INFINITY;
  for (guint32 j = 0; j < c->n_near; j++)
    {
      guint32 k = c->near[j];
      double v = c->share[k];
      if (v > c->near_max)
        {
          c->near_mark[k] = 0;
          continue;
        }
      c->near[kept++] = k;
      if (best == G_MAXUINT32 || v < least || (v == least && k < best))
        {
          least = v;
          best = k;
        }
    }
  c->n_near = kept;
  return best;
}

/* Freeze the flows on component link `best` that are not frozen yet at
 * `share`, taking it from every link they cross; returns how many. */
static guint32
fill_freeze (FlowNet *f, guint32 best, double share)
{
  Component *c = &f->comp;
  const FlowLink *link = &f->links[c->links.v[best]];
  guint32 frozen = 0;
  f->round++;
  c->changed.len = 0;
  const CompTag *flow_tags = (const CompTag *) f->flow_tags->data;
  for (guint32 j = 0; j < link->len; j++)
    {
      if (link->ids[j] == FLOW_GONE)
        continue;
      guint32 k = flow_tags[link->ids[j]].local;
      if (c->frozen[k])
        continue;
      c->frozen[k] = 1;
      c->rate[k] = share;
      frozen++;
      for (guint32 h = c->first.v[k]; h < c->first.v[k + 1]; h++)
        {
          guint32 i = c->hops.v[h];
          c->cap_left[i] -= share;
          c->unfrozen[i]--;
          if (c->touched[i] != f->round)
            {
              c->touched[i] = f->round;
              u32s_push (&c->changed, i);
            }
        }
    }
  for (guint32 n = 0; n < c->changed.len; n++)
    {
      guint32 i = c->changed.v[n];
      if (c->unfrozen[i] > 0)
        {
          guint32 k = c->at[i];
          c->share[k] = MAX (c->cap_left[i], 0.0) / c->unfrozen[i];
          if (c->share[k] <= c->near_max && !c->near_mark[k])
            near_add (c, k);
        }
      else
        {
          c->share[c->at[i]] = INFINITY;
          c->n_dead++;
        }
    }
  return frozen;
}

/* Drop the links without unfrozen flows from the live list, keeping the
 * order; returns the new length. */
static guint32
fill_compact (Component *c, guint32 n_live)
{
  guint32 kept = 0;
  for (guint32 k = 0; k < n_live; k++)
    {
      guint32 i = c->live[k];
      if (c->unfrozen[i] == 0)
        continue;
      c->live[kept] = i;
      c->share[kept] = c->share[k];
      c->at[i] = kept++;
    }
  c->n_dead = 0;
  return kept;
}

/* Below this many live links a round scans them all; above, it looks at the
 * near places first (a rebuild pays only when it lasts several rounds). */
#define NEAR_MIN_LIVE 128

/* The live place with the smallest share, the first in live order on a
 * tie: the link a scan of every live link with a strict < picks.  (No
 * share is NaN: each is MAX (cap_left, 0) / unfrozen, or infinity.) */
static guint32
fill_best (Component *c, guint32 n_live)
{
  if (n_live < NEAR_MIN_LIVE)
    {
      double least = fill_min (c->share, n_live);
      g_assert (least < INFINITY); /* some link has room: the filling can go on */
      guint32 best = 0;
      while (c->share[best] != least)
        best++;
      return best;
    }
  guint32 best = near_best (c);
  if (best == G_MAXUINT32)
    {
      near_rebuild (c, n_live);
      best = near_best (c);
    }
  return best;
}

/* Progressive filling over the component: every unfrozen flow's rate rises
 * together; the link whose fair share is smallest (the first in component
 * order on a tie) fills first and freezes its flows at that share.  A link's
 * share is recomputed only when a round changes it, the same division of the
 * same operands as recomputing it every round would do; a link without
 * unfrozen flows has share infinity, so it is never picked, and is dropped
 * from the scan once such links are half of it. */
void
net_flow_component_fill (FlowNet *f)
{
  Component *c = &f->comp;
  guint32 left = c->flows.len;
  guint32 n_live = fill_init (f);
  c->n_dead = 0;
  while (left > 0)
    {
      if (2 * c->n_dead > n_live)
        {
          near_clear (c);
          n_live = fill_compact (c, n_live);
        }
      guint32 best = fill_best (c, n_live);
      left -= fill_freeze (f, c->live[best], c->share[best]);
    }
}

