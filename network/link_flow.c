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
 */
#include "network/links.h"
#include "sim/error.h"
#include "network/net_private.h"

#include <math.h>
#include <string.h>

typedef struct
{
  GArray *flows; /* guint32 ids of the flows on it */
  double capacity;
  guint64 bytes;
  guint64 messages;
  SimTime busy;
  SimTime busy_since;
  guint32 peak;
  /* progressive filling */
  double cap_left;
  guint32 unfrozen;
  guint32 mark;
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
  guint32 *path;
  guint32 n_hops;
  SimEventId end_event;
  SimTime end_at;
  guint32 mark;
  gboolean frozen;
  guint32 next_free;
} Flow;

typedef struct
{
  Net *net;
  NetLinks layout;
  FlowLink *links;
  GArray *flows;     /* Flow pool */
  guint32 free_head; /* index + 1 of the first free flow */
  guint32 epoch;
  GArray *comp_links; /* scratch: the component being recomputed */
  GArray *comp_flows;
} FlowNet;

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
  for (guint32 i = 0; i < f->layout.n_links; i++)
    f->links[i].capacity = net_links_bandwidth (&f->layout, i);
  f->flows = g_array_new (FALSE, FALSE, sizeof (Flow));
  f->comp_links = g_array_new (FALSE, FALSE, sizeof (guint32));
  f->comp_flows = g_array_new (FALSE, FALSE, sizeof (guint32));
  return f;
}

static void
flow_destroy (gpointer state)
{
  FlowNet *f = state;
  if (f == NULL)
    return;
  for (guint32 i = 0; i < f->layout.n_links; i++)
    if (f->links[i].flows != NULL)
      g_array_unref (f->links[i].flows);
  for (guint i = 0; i < f->flows->len; i++)
    g_free (g_array_index (f->flows, Flow, i).path);
  g_free (f->links);
  g_array_unref (f->flows);
  g_array_unref (f->comp_links);
  g_array_unref (f->comp_flows);
  g_free (f);
}

static Flow *
flow_at (FlowNet *f, guint32 id)
{
  return &g_array_index (f->flows, Flow, id);
}

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
  memset (flow_at (f, f->flows->len - 1), 0, sizeof (Flow));
  return f->flows->len - 1;
}

static void
flow_release (FlowNet *f, guint32 id)
{
  Flow *fl = flow_at (f, id);
  g_free (fl->path);
  fl->path = NULL;
  fl->next_free = f->free_head;
  f->free_head = id + 1;
}

/* ---- the component of flows that share links with the seeds ------------------ */

static void
component_add_link (FlowNet *f, guint32 l)
{
  if (f->links[l].mark == f->epoch)
    return;
  f->links[l].mark = f->epoch;
  g_array_append_val (f->comp_links, l);
}

static void
component_collect (FlowNet *f, const guint32 *seeds, guint32 n_seeds)
{
  f->epoch++;
  g_array_set_size (f->comp_links, 0);
  g_array_set_size (f->comp_flows, 0);
  for (guint32 i = 0; i < n_seeds; i++)
    component_add_link (f, seeds[i]);
  for (guint i = 0; i < f->comp_links->len; i++)
    {
      FlowLink *link = &f->links[g_array_index (f->comp_links, guint32, i)];
      for (guint j = 0; link->flows != NULL && j < link->flows->len; j++)
        {
          guint32 id = g_array_index (link->flows, guint32, j);
          Flow *fl = flow_at (f, id);
          if (fl->mark == f->epoch)
            continue;
          fl->mark = f->epoch;
          g_array_append_val (f->comp_flows, id);
          for (guint32 h = 0; h < fl->n_hops; h++)
            component_add_link (f, fl->path[h]);
        }
    }
}

/* Progressive filling over the component: every unfrozen flow's rate rises
 * together; the link whose fair share is smallest fills first and freezes
 * its flows at that share. */
static void
component_fill (FlowNet *f)
{
  guint32 left = f->comp_flows->len;
  for (guint i = 0; i < f->comp_links->len; i++)
    {
      FlowLink *link = &f->links[g_array_index (f->comp_links, guint32, i)];
      link->cap_left = link->capacity;
      link->unfrozen = link->flows != NULL ? link->flows->len : 0;
    }
  for (guint i = 0; i < f->comp_flows->len; i++)
    flow_at (f, g_array_index (f->comp_flows, guint32, i))->frozen = FALSE;
  /* The links still carrying unfrozen flows, compacted as they fill up, so
   * that each round scans fewer. */
  guint32 *live = (guint32 *) f->comp_links->data;
  guint n_live = f->comp_links->len;
  while (left > 0)
    {
      FlowLink *best = NULL;
      double share = INFINITY;
      guint kept = 0;
      for (guint i = 0; i < n_live; i++)
        {
          FlowLink *link = &f->links[live[i]];
          if (link->unfrozen == 0)
            continue;
          live[kept++] = live[i];
          double s = MAX (link->cap_left, 0.0) / link->unfrozen;
          if (s < share)
            {
              share = s;
              best = link;
            }
        }
      n_live = kept;
      g_assert (best != NULL);
      for (guint j = 0; j < best->flows->len; j++)
        {
          Flow *fl = flow_at (f, g_array_index (best->flows, guint32, j));
          if (fl->frozen)
            continue;
          fl->frozen = TRUE;
          fl->rate = share;
          left--;
          for (guint32 h = 0; h < fl->n_hops; h++)
            {
              FlowLink *on = &f->links[fl->path[h]];
              on->cap_left -= share;
              on->unfrozen--;
            }
        }
    }
}

static void on_flow_end (SimSched *sched, gpointer data, guint64 id);

/* Bring the component's flows up to date at their old rates, share the
 * links anew, and move the end events that changed. */
static void
component_reschedule (FlowNet *f, SimTime now)
{
  for (guint i = 0; i < f->comp_flows->len; i++)
    {
      Flow *fl = flow_at (f, g_array_index (f->comp_flows, guint32, i));
      fl->remaining = MAX (0.0, fl->remaining - fl->rate * (double) (now - fl->updated) / 1e12);
      fl->updated = now;
    }
  component_fill (f);
  for (guint i = 0; i < f->comp_flows->len; i++)
    {
      guint32 id = g_array_index (f->comp_flows, guint32, i);
      Flow *fl = flow_at (f, id);
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
link_join (FlowLink *link, guint32 id, guint64 bytes, SimTime now)
{
  if (link->flows == NULL)
    link->flows = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (link->flows->len == 0)
    link->busy_since = now;
  g_array_append_val (link->flows, id);
  link->peak = MAX (link->peak, link->flows->len);
  link->bytes += bytes;
  link->messages++;
}

static void
link_leave (FlowLink *link, guint32 id, SimTime now)
{
  for (guint j = 0; j < link->flows->len; j++)
    if (g_array_index (link->flows, guint32, j) == id)
      {
        g_array_remove_index (link->flows, j);
        break;
      }
  if (link->flows->len == 0)
    link->busy += now - link->busy_since;
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
    link_leave (&f->links[fl->path[h]], id, now);
  /* The last byte arrives one route latency after it left. */
  sim_sched_at (sched, sim_time_add (now, fl->latency), fl->fn, fl->data, fl->arg);
  g_autofree guint32 *seeds = g_memdup2 (fl->path, fl->n_hops * sizeof (guint32));
  guint32 n = fl->n_hops;
  flow_release (f, id);
  component_collect (f, seeds, n);
  if (f->comp_flows->len > 0)
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
    link_join (&f->links[fl->path[h]], id, (guint64) fl->remaining, now);
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
  guint32 id = flow_alloc (f);
  Flow *fl = flow_at (f, id);
  *fl = (Flow) { .fn = on_delivered, .data = data, .arg = arg, .remaining = (double) bytes };
  /* The route, and its latency. */
  GArray *path = g_array_new (FALSE, FALSE, sizeof (guint32));
  NetCursor cur = net_cursor (src, dst);
  while (!net_cursor_arrived (&cur))
    {
      guint32 l = net_links_next (&f->layout, &cur);
      g_array_append_val (path, l);
      fl->latency += net_links_latency (&f->layout, l);
    }
  fl->n_hops = path->len;
  fl->path = (guint32 *) g_array_free (path, FALSE);
  if (bytes == 0)
    {
      sim_sched_at (net->sched, sim_time_add (at, fl->latency), on_delivered, data, arg);
      flow_release (f, id);
      return;
    }
  if (at == sim_sched_now (net->sched))
    flow_start (f, id);
  else
    sim_sched_at (net->sched, at, on_flow_start, f, id);
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
