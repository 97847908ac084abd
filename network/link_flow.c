/* link_flow.c: the fluid flow model with max-min fair sharing.
 *
 * Every message is a flow along its route (links.h).  The flows that share
 * links split their bandwidth max-min fairly: progressive filling raises
 * every rate together until a link is full, freezes the flows on it, and
 * goes on with the rest.  Rates change only when a flow starts or ends, and
 * only for the flows connected to it through shared links: the model
 * recomputes that component, brings each of its flows' remaining bytes up to
 * date, and moves the end events that changed.  A flow's last byte leaves
 * when its remaining bytes reach zero; it arrives the sum of the route's
 * link latencies later.  Times are exact picoseconds (rounded up).
 *
 * Per link it keeps bytes, messages, the time it carried at least one flow
 * (busy), and the most flows it carried at once (reported as peak_queue).
 *
 * Cost: a start or an end costs time linear in its component (its links,
 * and its flows' hops) times the filling rounds; the component is copied
 * into dense scratch arrays, so a round scans cached shares, not links.
 * Flow records, their routes and the scratch are pooled: nothing is
 * allocated per message once the pools have grown to the flows in flight.
 */
#include "network/links.h"
#include "sim/error.h"
#include "network/net_private.h"

#include <math.h>
#include <string.h>

/* A departed flow's place in a link's list, until the list is compacted. */
#define FLOW_GONE G_MAXUINT32

typedef struct
{
  /* The flows on it in the order they joined (the order the filling visits
   * them in), with FLOW_GONE holes: a flow leaves in O(1) through the place
   * it keeps, and the holes are squeezed out once they outnumber the flows. */
  guint32 *ids;
  guint32 len, cap;
  guint32 n; /* flows on it */
  double capacity;
  guint64 bytes;
  guint64 messages;
  SimTime busy;
  SimTime busy_since;
  guint32 peak;
} FlowLink;

typedef struct
{
  SimHandler fn;
  gpointer data;
  guint64 arg;
  double remaining; /* bytes */
  double rate;      /* bytes/s */
  SimTime updated;
  SimTime latency;
  guint32 *path;    /* n_hops links, kept with the pooled record */
  guint32 *place;   /* its place in each of those links' lists */
  guint32 n_hops;
  guint32 hops_cap; /* room in path and place */
  SimEventId end_event;
  SimTime end_at;
  guint32 next_free;
} Flow;

/* The component collection that last reached a link or a flow, and its
 * index in that component: kept apart from the records, densely, because
 * collection checks them for every flow on every link it reaches. */
typedef struct
{
  guint32 mark;
  guint32 local;
} CompTag;

/* A growable array of guint32, kept between uses. */
typedef struct
{
  guint32 *v;
  guint32 len, cap;
} U32s;

/* The component being recomputed, dense: link i is comp_links.v[i], flow k
 * is comp_flows.v[k] with its hops' link indices at hops.v[first.v[k] ..]. */
typedef struct
{
  U32s links;
  U32s flows;
  U32s first;
  U32s hops;
  /* per link, for the filling */
  double *cap_left;
  guint32 *at;       /* its place in live */
  guint32 *unfrozen;
  guint32 *touched;  /* the round that last changed it */
  /* the links still carrying unfrozen flows, in order, and their shares
   * (cap_left / unfrozen as of the last change; infinity once it has none) */
  guint32 *live;
  double *share;
  guint32 link_room;
  /* per flow */
  guint8 *frozen;
  double *rate;      /* its new rate, written back after the filling */
  guint32 flow_room;
  U32s changed;      /* links changed in this round */
  guint32 n_dead;    /* links in live without unfrozen flows */
  /* The live places that may hold the smallest share: every place whose
   * share is at most near_max is in near (and marked), so a round looks
   * at these few and scans every live link only when none is left. */
  guint32 *near;
  guint8 *near_mark;
  guint32 n_near;
  double near_max;
} Component;

typedef struct
{
  Net *net;
  NetLinks layout;
  FlowLink *links;
  CompTag *link_tags; /* per link */
  GArray *flows;     /* Flow pool */
  GArray *flow_tags; /* CompTag per pooled flow */
  guint32 free_head; /* index + 1 of the first free flow */
  guint32 epoch;
  guint32 round;
  Component comp;
  U32s route;        /* the route being built for a new flow */
  guint32 hops_in_flight; /* the started flows' hops */
} FlowNet;

static void
u32s_push (U32s *a, guint32 x)
{
  if (G_UNLIKELY (a->len == a->cap))
    {
      a->cap = MAX (64, 2 * a->cap);
      a->v = g_renew (guint32, a->v, a->cap);
    }
  a->v[a->len++] = x;
}

static gpointer
flow_create (Net *net, GError **error)
{
  FlowNet *f = g_new0 (FlowNet, 1);
  f->net = net;
  if (!net_links_init (&f->layout, net->topo, error))
    {
      g_free (f);
      return NULL;
    }
  f->links = sim_try_alloc (f->layout.n_links, sizeof (FlowLink), TRUE, "the links' state", error);
  if (f->links == NULL)
    {
      g_free (f);
      return NULL;
    }
  f->link_tags = sim_try_alloc (f->layout.n_links, sizeof (CompTag), TRUE, "the links' state",
                                error);
  if (f->link_tags == NULL)
    {
      g_free (f->links);
      g_free (f);
      return NULL;
    }
  for (guint32 i = 0; i < f->layout.n_links; i++)
    f->links[i].capacity = net_links_bandwidth (&f->layout, i);
  f->flows = g_array_new (FALSE, FALSE, sizeof (Flow));
  f->flow_tags = g_array_new (FALSE, TRUE, sizeof (CompTag));
  return f;
}

static void
component_free (Component *c)
{
  g_free (c->links.v);
  g_free (c->flows.v);
  g_free (c->first.v);
  g_free (c->hops.v);
  g_free (c->cap_left);
  g_free (c->share);
  g_free (c->at);
  g_free (c->near);
  g_free (c->near_mark);
  g_free (c->unfrozen);
  g_free (c->touched);
  g_free (c->live);
  g_free (c->frozen);
  g_free (c->rate);
  g_free (c->changed.v);
}

static void
flow_destroy (gpointer state)
{
  FlowNet *f = state;
  if (f == NULL)
    return;
  for (guint32 i = 0; i < f->layout.n_links; i++)
    g_free (f->links[i].ids);
  for (guint i = 0; i < f->flows->len; i++)
    g_free (g_array_index (f->flows, Flow, i).path);
  g_free (f->links);
  g_free (f->link_tags);
  g_array_unref (f->flows);
  g_array_unref (f->flow_tags);
  component_free (&f->comp);
  g_free (f->route.v);
  g_free (f);
}

static Flow *
flow_at (FlowNet *f, guint32 id)
{
  return &g_array_index (f->flows, Flow, id);
}

/* A flow record from the pool; its route buffer (path, place) is kept from
 * its last use. */
static guint32
flow_alloc (FlowNet *f)
{
  if (f->free_head != 0)
    {
      guint32 id = f->free_head - 1;
      f->free_head = flow_at (f, id)->next_free;
      return id;
    }
  g_array_set_size (f->flows, f->flows->len + 1);
  g_array_set_size (f->flow_tags, f->flows->len); /* cleared: mark 0, never an epoch */
  memset (flow_at (f, f->flows->len - 1), 0, sizeof (Flow));
  return f->flows->len - 1;
}

static void
flow_release (FlowNet *f, guint32 id)
{
  Flow *fl = flow_at (f, id);
  fl->next_free = f->free_head;
  f->free_head = id + 1;
}

/* Room for n hops in the flow's route buffer (one block: path, then place). */
static void
flow_reserve (Flow *fl, guint32 n)
{
  if (n <= fl->hops_cap)
    return;
  g_free (fl->path);
  fl->path = g_new (guint32, 2 * (gsize) n);
  fl->place = fl->path + n;
  fl->hops_cap = n;
}

/* ---- the flows on a link ------------------------------------------------------- */

static void
link_join (FlowNet *f, guint32 id, guint32 h, SimTime now)
{
  Flow *fl = flow_at (f, id);
  FlowLink *link = &f->links[fl->path[h]];
  if (link->len == link->cap)
    {
      link->cap = MAX (4, 2 * link->cap);
      link->ids = g_renew (guint32, link->ids, link->cap);
    }
  if (link->n == 0)
    link->busy_since = now;
  fl->place[h] = link->len;
  link->ids[link->len++] = id;
  link->n++;
  link->peak = MAX (link->peak, link->n);
  f->hops_in_flight++;
  link->bytes += (guint64) fl->remaining;
  link->messages++;
}

/* Squeeze the holes out of a link's list, keeping the order, and tell each
 * flow that moved its new place. */
static void
link_compact (FlowNet *f, guint32 l)
{
  FlowLink *link = &f->links[l];
  guint32 kept = 0;
  for (guint32 j = 0; j < link->len; j++)
    {
      guint32 id = link->ids[j];
      if (id == FLOW_GONE)
        continue;
      if (kept != j)
        {
          Flow *fl = flow_at (f, id);
          for (guint32 h = 0; h < fl->n_hops; h++)
            if (fl->path[h] == l && fl->place[h] == j)
              fl->place[h] = kept;
          link->ids[kept] = id;
        }
      kept++;
    }
  link->len = kept;
}

static void
link_leave (FlowNet *f, const Flow *fl, guint32 h, SimTime now)
{
  guint32 l = fl->path[h];
  FlowLink *link = &f->links[l];
  link->ids[fl->place[h]] = FLOW_GONE;
  link->n--;
  f->hops_in_flight--;
  if (link->n == 0)
    {
      link->len = 0;
      link->busy += now - link->busy_since;
    }
  else if (link->len - link->n > link->n)
    link_compact (f, l);
}

/* ---- the component of flows that share links with the seeds ------------------ */

/* Room for a component of every flow in flight. */
static void
u32s_reserve (U32s *a, guint32 n)
{
  if (n > a->cap)
    {
      a->cap = MAX (n, 2 * a->cap);
      a->v = g_renew (guint32, a->v, a->cap);
    }
}

/* Breadth first from the seed links: each link's flows in the order they
 * joined, each new flow's hops in route order.  This order is the filling's
 * tie-break and the order end events are moved in.  The counts live in
 * locals so that the stores into the arrays do not make the compiler reload
 * them. */
static void
component_collect (FlowNet *f, const guint32 *seeds, guint32 n_seeds)
{
  Component *c = &f->comp;
  u32s_reserve (&c->links, f->layout.n_links);
  u32s_reserve (&c->flows, f->flows->len);
  u32s_reserve (&c->first, f->flows->len + 1);
  u32s_reserve (&c->hops, f->hops_in_flight);
  guint32 epoch = ++f->epoch;
  guint32 *links = c->links.v, *flows = c->flows.v, *first = c->first.v, *hops = c->hops.v;
  CompTag *link_tags = f->link_tags, *flow_tags = (CompTag *) f->flow_tags->data;
  guint32 n_links = 0, n_flows = 0, n_hops = 0;
  for (guint32 i = 0; i < n_seeds; i++)
    if (link_tags[seeds[i]].mark != epoch)
      {
        link_tags[seeds[i]] = (CompTag) { .mark = epoch, .local = n_links };
        links[n_links++] = seeds[i];
      }
  for (guint32 i = 0; i < n_links; i++)
    {
      const FlowLink *link = &f->links[links[i]];
      for (guint32 j = 0; j < link->len; j++)
        {
          guint32 id = link->ids[j];
          if (id == FLOW_GONE || flow_tags[id].mark == epoch)
            continue;
          flow_tags[id] = (CompTag) { .mark = epoch, .local = n_flows };
          first[n_flows] = n_hops;
          flows[n_flows++] = id;
          const Flow *fl = flow_at (f, id);
          for (guint32 h = 0; h < fl->n_hops; h++)
            {
              CompTag *on = &link_tags[fl->path[h]];
              if (on->mark != epoch)
                {
                  *on = (CompTag) { .mark = epoch, .local = n_links };
                  links[n_links++] = fl->path[h];
                }
              hops[n_hops++] = on->local;
            }
        }
    }
  first[n_flows] = n_hops;
  c->links.len = n_links;
  c->flows.len = n_flows;
  c->hops.len = n_hops;
}

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
static void
component_fill (FlowNet *f)
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

static void on_flow_end (SimSched *sched, gpointer data, guint64 id);

/* Bring the component's flows up to date at their old rates, share the
 * links anew, and move the end events that changed. */
static void
component_reschedule (FlowNet *f, SimTime now)
{
  const U32s *flows = &f->comp.flows;
  for (guint32 k = 0; k < flows->len; k++)
    {
      Flow *fl = flow_at (f, flows->v[k]);
      fl->remaining = MAX (0.0, fl->remaining - fl->rate * (double) (now - fl->updated) / 1e12);
      fl->updated = now;
    }
  component_fill (f);
  for (guint32 k = 0; k < flows->len; k++)
    {
      guint32 id = flows->v[k];
      Flow *fl = flow_at (f, id);
      fl->rate = f->comp.rate[k];
      g_assert (fl->rate > 0.0);
      double ps = ceil (fl->remaining / fl->rate * 1e12);
      SimTime end = ps >= (double) (SIM_TIME_MAX - now) ? SIM_TIME_MAX : now + (SimTime) ps;
      if (fl->end_event != 0 && end == fl->end_at)
        continue;
      if (fl->end_event != 0)
        sim_sched_cancel (f->net->sched, fl->end_event);
      fl->end_at = end;
      fl->end_event = sim_sched_at_cancellable (f->net->sched, end, on_flow_end, f, id);
    }
}

static void
on_flow_end (SimSched *sched, gpointer data, guint64 id64)
{
  FlowNet *f = data;
  guint32 id = (guint32) id64;
  SimTime now = sim_sched_now (sched);
  Flow *fl = flow_at (f, id);
  fl->end_event = 0;
  for (guint32 h = 0; h < fl->n_hops; h++)
    link_leave (f, fl, h, now);
  /* The last byte arrives one route latency after it left. */
  sim_sched_at (sched, sim_time_add (now, fl->latency), fl->fn, fl->data, fl->arg);
  /* Off its links, the flow is in no component; its route seeds the one it
   * leaves behind. */
  component_collect (f, fl->path, fl->n_hops);
  flow_release (f, id);
  if (f->comp.flows.len > 0)
    component_reschedule (f, now);
}

/* A flow starts now. */
static void
flow_start (FlowNet *f, guint32 id)
{
  SimTime now = sim_sched_now (f->net->sched);
  Flow *fl = flow_at (f, id);
  fl->updated = now;
  for (guint32 h = 0; h < fl->n_hops; h++)
    link_join (f, id, h, now);
  component_collect (f, fl->path, fl->n_hops);
  component_reschedule (f, now);
}

static void
on_flow_start (SimSched *sched, gpointer data, guint64 id)
{
  (void) sched;
  flow_start (data, (guint32) id);
}

static void
flow_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
           SimHandler on_delivered, gpointer data, guint64 arg)
{
  FlowNet *f = net->state;
  /* The route, and its latency. */
  SimTime latency = 0;
  f->route.len = 0;
  NetCursor cur = net_cursor (src, dst);
  while (!net_cursor_arrived (&cur))
    {
      guint32 l = net_links_next (&f->layout, &cur);
      u32s_push (&f->route, l);
      latency += net_links_latency (&f->layout, l);
    }
  if (bytes == 0)
    {
      sim_sched_at (net->sched, sim_time_add (at, latency), on_delivered, data, arg);
      return;
    }
  guint32 id = flow_alloc (f);
  Flow *fl = flow_at (f, id);
  flow_reserve (fl, f->route.len);
  fl->fn = on_delivered;
  fl->data = data;
  fl->arg = arg;
  fl->remaining = (double) bytes;
  fl->rate = 0.0;
  fl->latency = latency;
  fl->n_hops = f->route.len;
  memcpy (fl->path, f->route.v, fl->n_hops * sizeof (guint32));
  fl->end_event = 0;
  fl->end_at = 0;
  if (at == sim_sched_now (net->sched))
    flow_start (f, id);
  else
    sim_sched_at (net->sched, at, on_flow_start, f, id);
}

gboolean
net_flow_visit (Net *net, NetFlowVisit visit, gpointer user)
{
  if (net->klass != &net_flow_class)
    return FALSE;
  FlowNet *f = net->state;
  for (guint32 id = 0; id < f->flows->len; id++)
    {
      const Flow *fl = flow_at (f, id);
      /* In flight: started (on its links) and not ended. */
      if (fl->n_hops > 0 && fl->end_event != 0)
        visit (fl->path, fl->n_hops, fl->rate, user);
    }
  return TRUE;
}

static guint32
flow_n_links (gpointer state)
{
  return ((FlowNet *) state)->layout.n_links;
}

static void
flow_link_stats (gpointer state, guint32 id, NetLinkStats *out)
{
  const FlowNet *f = state;
  const FlowLink *link = &f->links[id];
  net_links_stats (&f->layout, id, link->bytes, link->messages, link->busy, link->peak, out);
}

const NetModelClass net_flow_class = {
  .name = "flow",
  .help = "max-min fair sharing of links",
  .sharing = NET_SHARING_FLOWS,
  .sharing_why = "the flow model shares links between members",
  .create = flow_create,
  .destroy = flow_destroy,
  .send = flow_send,
  .n_links = flow_n_links,
  .link_stats = flow_link_stats,
};
