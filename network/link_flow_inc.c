/* link_flow_inc.c: the flow model's incremental max-min (link_flow.c): when
 * a flow starts or ends, only the flows whose rate may change are refilled.
 *
 * The reference is the max-min fair allocation itself, which is unique, not
 * one order of floating-point sums (network/README.md, *The flow model's
 * reference*).  Its characterization (Bertsekas and Gallager, Data
 * Networks, 2nd ed., 1992, section 6.5.2): a feasible allocation (no link
 * carries more than its capacity) is max-min fair if and only if every flow
 * has a bottleneck, a link on its route that is full and on which no flow
 * has a higher rate.
 *
 * The update.  S is the set of flows to recompute, starting with every
 * flow on the links of the flow that started or ended (the seeds); the
 * other flows keep their rates.  L is the seeds and every link of S's
 * routes.  Progressive filling runs over S alone, each link of L offering
 * its capacity less its kept flows' rates; each flow of S freezes on a link
 * (its bottleneck, kept in Flow.bneck).  Then every flow is checked to have
 * a bottleneck, and a flow that may not have one joins S:
 *   (1) a kept flow g whose bottleneck b is outside L: every flow on b is
 *       kept and none started or ended there (b is no seed), so b is as
 *       full as before and g still has the highest rate on it.  Nothing to
 *       check: this is why the flows outside S need not be visited.
 *   (2) a kept flow g whose bottleneck b is in L: b must still be full and
 *       no flow of S on b faster than g; if not, g joins S.
 *   (3) a flow f of S frozen at share t on link b: b is full (the filling
 *       stopped there); the flows of S on b have at most t (the filling
 *       raises every unfrozen rate together, so those frozen before have
 *       less); every kept flow on b must have at most t, else it joins S.
 *       A kept flow that froze on b before (its bottleneck is b) at a rate
 *       other than t joins S too: in exact arithmetic the two are equal
 *       (both are b's share; rounding made them differ), and refilled
 *       together they get one rate, the one division the full filling
 *       does, so flows bottlenecked on one link keep equal rates.
 * Feasibility: a link outside L carries the same flows at the same rates;
 * a link of L gets from S at most what its kept flows leave, and where they
 * leave nothing or less (a full link that some flow of S crosses), the
 * flows of S there freeze at 0 beside faster kept flows, which (3) adds.
 * If no flow joined S, every flow has a bottleneck and the rates are the
 * max-min allocation; otherwise the filling runs again over the larger S.
 * S only grows, and once it is the whole component there are no kept flows
 * on L and nothing to check: the full recomputation.  (Where L's links
 * carry many flows, as when every flow shares links with many others, the
 * model refills the whole component instead, the same result, so a change
 * never costs much more than the full recomputation.)  So in exact
 * arithmetic the result is the max-min allocation, and the flows it leaves
 * alone are exactly those whose rate provably cannot change.
 *
 * In floating point a link's rates sum to its capacity only up to rounding,
 * so (2) and (3) compare within a relative FLOW_TOL: a check that passes
 * within it may leave a rate that far from exact, and one that fails
 * without cause only adds flows to S (work, not error).  The test
 * (tests/network/test_flow.c) compares every rate with the full
 * recomputation (net_flow_check) on random networks: within 1e-9.
 */
#include "network/link_flow_private.h"

#include <math.h>

/* Fallbacks in a row after which changes go to the whole component at once,
 * and how often they try the rounds again then (a choice of cost, not of
 * result: see net_flow_update). */
#define FLOW_WHOLE_STREAK 4
#define FLOW_WHOLE_RETRY 16

/* A relative 1e-13: a link's rates summed round within a few units in the
 * last place of a double (2.2e-16 each) per flow on it, far below this;
 * and distinct shares of the tests' integer capacities (up to 4.7e12 B/s)
 * differ by at least 2e-13, above it. */
#define FLOW_TOL 1e-13

/* Add link l to L, if it is not there. */
static inline guint32
l_add (FlowNet *f, guint32 l, guint32 epoch)
{
  CompTag *t = &f->link_tags[l];
  if (t->mark != epoch)
    {
      *t = (CompTag) { .mark = epoch, .local = f->comp.links.len };
      f->comp.links.v[f->comp.links.len++] = l;
    }
  return t->local;
}

/* Add flow id to S with its route (its links to L). */
static void
s_add (FlowNet *f, guint32 id, guint32 epoch)
{
  Component *c = &f->comp;
  CompTag *flow_tags = (CompTag *) f->flow_tags->data;
  flow_tags[id] = (CompTag) { .mark = epoch, .local = c->flows.len };
  c->first.v[c->flows.len] = c->hops.len;
  c->flows.v[c->flows.len++] = id;
  const Flow *fl = &g_array_index (f->flows, Flow, id);
  for (guint32 h = 0; h < fl->n_hops; h++)
    {
      guint32 i = l_add (f, fl->path[h], epoch);
      c->hops.v[c->hops.len++] = i;
    }
}

/* Ready every link of L for the filling: its capacity less its kept flows'
 * rates (in the order they joined), its flows in S, its share.  Returns
 * the places it scanned in the links' lists. */
static guint64
ready_links (FlowNet *f, guint32 epoch)
{
  guint64 scanned = 0;
  Component *c = &f->comp;
  const CompTag *flow_tags = (const CompTag *) f->flow_tags->data;
  const Flow *pool = (const Flow *) f->flows->data;
  c->first.v[c->flows.len] = c->hops.len;
  for (guint32 i = 0; i < c->links.len; i++)
    {
      const FlowLink *link = &f->links[c->links.v[i]];
      double left = link->capacity;
      guint32 n = 0;
      for (guint32 j = 0; j < link->len; j++)
        {
          guint32 id = link->ids[j];
          if (id == FLOW_GONE)
            continue;
          if (flow_tags[id].mark == epoch)
            n++;
          else
            left -= pool[id].rate;
        }
      c->cap_left[i] = left;
      c->unfrozen[i] = n;
      c->touched[i] = 0;
      c->share[i] = n == 0 ? INFINITY : MAX (left, 0.0) / n;
      scanned += link->len;
    }
  return scanned;
}

/* Checks (2) and (3) of the comment at the top, over the n_flows flows of
 * S and n_links links of L that the filling saw; adds to S each kept flow
 * that fails one, and returns how many did. */
static guint32
check_bottlenecks (FlowNet *f, guint32 epoch, guint32 n_flows, guint32 n_links)
{
  Component *c = &f->comp;
  const Flow *pool = (const Flow *) f->flows->data;
  guint32 added = 0;
  /* (3): no kept flow faster than a flow of S on the link it froze on;
   * and none that froze there too at another rate (see above). */
  for (guint32 k = 0; k < n_flows; k++)
    {
      guint32 b = c->links.v[c->bneck[k]];
      const FlowLink *link = &f->links[b];
      double t = c->rate[k], most = t * (1.0 + FLOW_TOL);
      for (guint32 j = 0; j < link->len; j++)
        {
          guint32 id = link->ids[j];
          if (id == FLOW_GONE || g_array_index (f->flow_tags, CompTag, id).mark == epoch)
            continue;
          const Flow *g = &pool[id];
          if (g->rate > most || (g->bneck == b && g->rate != t))
            {
              s_add (f, id, epoch);
              added++;
            }
        }
    }
  /* (2): a kept flow's bottleneck in L still full, no flow of S faster. */
  for (guint32 i = 0; i < n_links; i++)
    {
      guint32 l = c->links.v[i];
      const FlowLink *link = &f->links[l];
      gboolean full = c->cap_left[i] <= FLOW_TOL * link->capacity;
      double fastest = 0.0; /* of S's flows on it */
      gboolean kept_here = FALSE;
      for (guint32 j = 0; j < link->len; j++)
        {
          guint32 id = link->ids[j];
          if (id == FLOW_GONE)
            continue;
          const CompTag *t = &g_array_index (f->flow_tags, CompTag, id);
          if (t->mark != epoch)
            kept_here |= pool[id].bneck == l;
          else if (t->local < n_flows)
            fastest = MAX (fastest, c->rate[t->local]);
        }
      if (!kept_here)
        continue;
      for (guint32 j = 0; j < link->len; j++)
        {
          guint32 id = link->ids[j];
          if (id == FLOW_GONE || pool[id].bneck != l)
            continue;
          const CompTag *t = &g_array_index (f->flow_tags, CompTag, id);
          if (t->mark != epoch && (!full || fastest > pool[id].rate * (1.0 + FLOW_TOL)))
            {
              s_add (f, id, epoch);
              added++;
            }
        }
    }
  return added;
}

void
net_flow_update (FlowNet *f, const guint32 *seeds, guint32 n_seeds)
{
  Component *c = &f->comp;
  /* Room for S and L as large as the whole network's flows in flight. */
  if (c->links.cap < f->layout.n_links)
    {
      c->links.cap = f->layout.n_links;
      c->links.v = g_renew (guint32, c->links.v, c->links.cap);
    }
  if (c->flows.cap < f->flows->len + 1)
    {
      c->flows.cap = c->first.cap = MAX (f->flows->len + 1, 2 * c->flows.cap);
      c->flows.v = g_renew (guint32, c->flows.v, c->flows.cap);
      c->first.v = g_renew (guint32, c->first.v, c->first.cap);
    }
  if (c->hops.cap < f->hops_in_flight)
    {
      c->hops.cap = MAX (f->hops_in_flight, 2 * c->hops.cap);
      c->hops.v = g_renew (guint32, c->hops.v, c->hops.cap);
    }
  guint32 epoch = ++f->epoch;
  c->links.len = c->flows.len = c->hops.len = 0;
  for (guint32 i = 0; i < n_seeds; i++)
    l_add (f, seeds[i], epoch);
  /* S starts as every flow on the seeds, in the order they joined. */
  guint32 n_seed_links = c->links.len;
  for (guint32 i = 0; i < n_seed_links; i++)
    {
      const FlowLink *link = &f->links[c->links.v[i]];
      for (guint32 j = 0; j < link->len; j++)
        {
          guint32 id = link->ids[j];
          if (id != FLOW_GONE && g_array_index (f->flow_tags, CompTag, id).mark != epoch)
            s_add (f, id, epoch);
        }
    }
  if (c->flows.len == 0)
    return;
  /* Each round scans L's lists three times (readying, checking); the whole
   * component's refill scans at most every hop in flight twice (collecting,
   * filling).  Once the rounds have scanned a quarter of the hops in
   * flight, the whole component is the cheaper way on: it costs the same
   * as the full recomputation and a quarter more at worst. */
  guint64 scanned = 0, enough = f->hops_in_flight / 2;
  /* Where the last changes all fell back (a torus all-to-all, whose every
   * link carries hundreds of flows), the rounds' scans are wasted: go to
   * the whole component at once, trying the rounds again now and then in
   * case the flows in flight have thinned.  Which way a change goes depends
   * only on the run's own past: deterministic; either way gives the
   * max-min allocation. */
  gboolean rounds = f->never_whole || f->whole_streak < FLOW_WHOLE_STREAK
                    || f->whole_streak % FLOW_WHOLE_RETRY == 0;
  while (rounds)
    {
      scanned += ready_links (f, epoch);
      if (scanned > enough && !f->never_whole)
        break;
      net_flow_component_fill (f);
      if (check_bottlenecks (f, epoch, c->flows.len, c->links.len) == 0)
        {
          f->whole_streak = 0;
          return;
        }
    }
  f->whole_streak++;
  net_flow_component_collect (f, seeds, n_seeds);
  net_flow_component_fill (f);
}
