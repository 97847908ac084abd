/* link_flow_private.h: the flow model's state, shared by link_flow.c (flows,
 * links, components, events) and link_flow_fill.c (progressive filling of a
 * component).  Only those two files include it.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_LINK_FLOW_PRIVATE_H
#define ORRERY_NETWORK_LINK_FLOW_PRIVATE_H

#include "network/links.h"
#include "network/net_private.h"

/* A departed flow's place in a link's list, until the list is compacted. */
#define FLOW_GONE G_MAXUINT32

typedef struct
{
  /* The flows on it in the order they joined (the order the filling visits
   * them in), with FLOW_GONE holes: a flow leaves in O(1) through the place
   * it keeps, and the holes are squeezed out once they are more than a
   * quarter of the flows (every collection and filling scans them too). */
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
  guint32 bneck;    /* the link it froze on when its rate was last set */
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
 * is comp_flows.v[k] with its hops' link indices at hops.v[first.v[k] ..].
 * The per-link filling arrays have room for every link of the network
 * (the collection fills them as it reaches each link). */
typedef struct
{
  U32s links;
  U32s flows;
  U32s first;
  U32s hops;
  /* per link, for the filling */
  double *cap_left;
  guint32 *unfrozen;
  guint32 *touched;  /* the round that last changed it */
  guint32 *changed;  /* the links changed in this round */
  /* Its fair share, cap_left / unfrozen as of the last change (infinity
   * once it has no unfrozen flows, and for the padding up to leaves), and a
   * tournament over the shares: link i is leaf leaves + i, win[n] for
   * 1 <= n < leaves the link with the smaller share of node n's two
   * children, the first in component order on a tie; win[1] is the link
   * the next round fills. */
  double *share;
  guint32 *win;
  guint32 leaves;    /* a power of two >= 2 and >= the component's links */
  /* per flow */
  guint8 *frozen;
  double *rate;      /* its new rate, written back after the filling */
  guint32 *bneck;    /* the component link it froze on */
  guint32 flow_room;
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
  /* The check path (net_flow_check): after every change, the whole
   * component refilled and compared with the incremental rates. */
  gboolean check;
  gboolean never_whole; /* no fallback to the whole component (tests) */
  /* Changes in a row that fell back to the whole component: from
   * FLOW_WHOLE_STREAK on, changes go to it at once but for one in
   * FLOW_WHOLE_RETRY, which tries the rounds again (net_flow_update). */
  guint32 whole_streak;
  NetFlowCheck checked;
} FlowNet;

static inline void
u32s_push (U32s *a, guint32 x)
{
  if (G_UNLIKELY (a->len == a->cap))
    {
      a->cap = MAX (64, 2 * a->cap);
      a->v = g_renew (guint32, a->v, a->cap);
    }
  a->v[a->len++] = x;
}

/* Room in the per-link filling arrays for every link of the network;
 * FALSE with an error if it cannot be had (link_flow_fill.c). */
gboolean net_flow_component_init (Component *c, guint32 n_links, GError **error);
void net_flow_component_free (Component *c);

/* Collect into f->comp the whole component of flows linked to the links
 * `seeds` through shared links, readied for the filling (link_flow.c). */
void net_flow_component_collect (FlowNet *f, const guint32 *seeds, guint32 n_seeds);

/* Max-min rates of the flows of f->comp (collected, with each link's
 * capacity, flows and share set), into f->comp.rate by progressive filling
 * (link_flow_fill.c); each flow's link in f->comp.bneck.  Only the flows
 * the collection tagged with f->epoch count: a link's other flows keep
 * their rates (taken off its capacity by the collection). */
void net_flow_component_fill (FlowNet *f);

/* The max-min rates after a flow started or ended on the links `seeds`,
 * recomputed for as few flows as the proof in link_flow_inc.c allows, into
 * f->comp (flows, rate, bneck: the flows whose rate was recomputed). */
void net_flow_update (FlowNet *f, const guint32 *seeds, guint32 n_seeds);

#endif /* ORRERY_NETWORK_LINK_FLOW_PRIVATE_H */
