/* link_flow.c: the fluid flow model with max-min fair sharing.
 *
 * Every message is a flow along its route (links.h).  The flows that share
 * links split their bandwidth max-min fairly: progressive filling raises
 * every rate together until a link is full, freezes the flows on it, and
 * goes on with the rest.  Rates change only when a flow starts or ends, and
 * only for some of the flows connected to it through shared links: the
 * model refills the flows whose rate may change (link_flow_inc.c, which
 * proves the others cannot), brings the remaining bytes of those whose rate
 * did change up to date, and moves their end events.  A flow's last byte
 * leaves when its remaining bytes reach zero; it arrives the sum of the
 * route's link latencies later.  Times are exact picoseconds (rounded up).
 *
 * Per link it keeps bytes, messages, the time it carried at least one flow
 * (busy), and the most flows it carried at once (reported as peak_queue).
 *
 * Cost: a start or an end costs time linear in the flows it refills and the
 * flows on their links, plus, for each link whose share a filling round
 * changes, a replay of its matches up a tournament (logarithmic in the
 * links refilled).  Flow records, their routes and the scratch are pooled:
 * nothing is allocated per message once the pools have grown to the flows
 * in flight.
 *
 * The reference is the max-min allocation itself, not one order of sums:
 * the check path (net_flow_check, for tests) refills the whole component of
 * every change, as the model did before, and compares; they agree within
 * rounding (network/README.md, *The flow model's reference*).
 */
#include "network/link_flow_private.h"
#include "sim/error.h"

#include <math.h>
#include <string.h>



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
  if (!net_flow_component_init (&f->comp, f->layout.n_links, error))
    {
      net_flow_component_free (&f->comp);
      g_free (f->link_tags);
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
  net_flow_component_free (&f->comp);
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
  else if (link->len - link->n > link->n / 4)
    link_compact (f, l);
}

/* ---- the reference: max-min over the whole component --------------------------- */

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
 * joined, each new flow's hops in route order, readying each link for the
 * filling (its capacity, flows and fair share).  The counts and arrays live
 * in locals so that the stores into the arrays do not make the compiler
 * reload them.  The model refills whole components only where its
 * refill of fewer flows would grow as large (link_flow_inc.c), and the
 * check path (net_flow_check) for every change. */
void
net_flow_component_collect (FlowNet *f, const guint32 *seeds, guint32 n_seeds)
{
  Component *c = &f->comp;
  u32s_reserve (&c->links, f->layout.n_links);
  u32s_reserve (&c->flows, f->flows->len);
  u32s_reserve (&c->first, f->flows->len + 1);
  u32s_reserve (&c->hops, f->hops_in_flight);
  guint32 epoch = ++f->epoch;
  guint32 *links = c->links.v, *flows = c->flows.v, *first = c->first.v, *hops = c->hops.v;
  guint32 *unfrozen = c->unfrozen, *touched = c->touched;
  double *cap_left = c->cap_left, *share = c->share;
  CompTag *link_tags = f->link_tags, *flow_tags = (CompTag *) f->flow_tags->data;
  const Flow *pool = (const Flow *) f->flows->data;
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
      cap_left[i] = link->capacity;
      unfrozen[i] = link->n;
      touched[i] = 0;
      share[i] = link->n == 0 ? INFINITY : MAX (cap_left[i], 0.0) / unfrozen[i];
      const guint32 *ids = link->ids;
      for (guint32 j = 0, len = link->len; j < len; j++)
        {
          guint32 id = ids[j];
          if (id == FLOW_GONE || flow_tags[id].mark == epoch)
            continue;
          flow_tags[id] = (CompTag) { .mark = epoch, .local = n_flows };
          first[n_flows] = n_hops;
          flows[n_flows++] = id;
          const guint32 *path = pool[id].path;
          for (guint32 h = 0, n = pool[id].n_hops; h < n; h++)
            {
              CompTag *on = &link_tags[path[h]];
              if (on->mark != epoch)
                {
                  *on = (CompTag) { .mark = epoch, .local = n_links };
                  links[n_links++] = path[h];
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

/* When a flow of remaining bytes (as of `updated`) at `rate` ends: the
 * remaining bytes brought up to now, then their time at the rate, rounded
 * up to a picosecond. */
static SimTime
flow_end_at (const Flow *fl, double rate, SimTime now, double *remaining)
{
  double left = MAX (0.0, fl->remaining - fl->rate * (double) (now - fl->updated) / 1e12);
  if (remaining != NULL)
    *remaining = left;
  double ps = ceil (left / rate * 1e12);
  return ps >= (double) (SIM_TIME_MAX - now) ? SIM_TIME_MAX : now + (SimTime) ps;
}

/* The check path: the whole component of the seeds refilled, each rate and
 * the end time it gives compared with the incremental model's (which has
 * already moved its end events: an unchanged rate keeps the end time it
 * was given when it was set). */
static void
check_against_component (FlowNet *f, const guint32 *seeds, guint32 n_seeds, SimTime now)
{
  guint32 refilled = f->comp.flows.len;
  net_flow_component_collect (f, seeds, n_seeds);
  NetFlowCheck *k = &f->checked;
  k->changes++;
  k->refilled += refilled;
  if (f->comp.flows.len == 0)
    return;
  net_flow_component_fill (f);
  for (guint32 i = 0; i < f->comp.flows.len; i++)
    {
      const Flow *fl = flow_at (f, f->comp.flows.v[i]);
      double want = f->comp.rate[i];
      k->flows++;
      k->worst_rel = MAX (k->worst_rel, fabs (fl->rate - want) / want);
      SimTime end = flow_end_at (fl, want, now, NULL);
      k->worst_ps = MAX (k->worst_ps, end > fl->end_at ? end - fl->end_at : fl->end_at - end);
    }
}

/* ---- a start or an end ------------------------------------------------------------ */

static void on_flow_end (SimSched *sched, gpointer data, guint64 id);

/* The rates anew after a change on the links `seeds` (net_flow_update), and
 * the end events moved for the flows whose rate changed: only those have
 * their remaining bytes brought up to date. */
static void
flows_reshare (FlowNet *f, const guint32 *seeds, guint32 n_seeds, SimTime now)
{
  net_flow_update (f, seeds, n_seeds);
  const Component *c = &f->comp;
  for (guint32 k = 0; k < c->flows.len; k++)
    {
      guint32 id = c->flows.v[k];
      Flow *fl = flow_at (f, id);
      double rate = c->rate[k];
      fl->bneck = c->links.v[c->bneck[k]];
      g_assert (rate > 0.0);
      if (rate == fl->rate && fl->end_event != 0)
        continue;
      SimTime end = flow_end_at (fl, rate, now, &fl->remaining);
      fl->updated = now;
      fl->rate = rate;
      if (fl->end_event != 0 && end == fl->end_at)
        continue;
      if (fl->end_event != 0)
        sim_sched_cancel (f->net->sched, fl->end_event);
      fl->end_at = end;
      fl->end_event = sim_sched_at_cancellable (f->net->sched, end, on_flow_end, f, id);
    }
  if (f->check)
    check_against_component (f, seeds, n_seeds, now);
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
  /* Off its links, the flow is in no component; its route seeds the
   * recomputation (its record is reused only by a later send). */
  flow_release (f, id);
  flows_reshare (f, fl->path, fl->n_hops, now);
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
  flows_reshare (f, fl->path, fl->n_hops, now);
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
      latency = sim_time_add (latency, net_links_latency (&f->layout, l));
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
net_flow_check (Net *net, gboolean on, gboolean never_whole)
{
  if (net->klass != &net_flow_class)
    return FALSE;
  FlowNet *f = net->state;
  f->check = on;
  f->never_whole = never_whole;
  return TRUE;
}

gboolean
net_flow_checked (Net *net, NetFlowCheck *out)
{
  if (net->klass != &net_flow_class)
    return FALSE;
  *out = ((FlowNet *) net->state)->checked;
  return TRUE;
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
