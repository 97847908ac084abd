/* link_analytical.c: the contention-free link model.
 *
 * A message arrives hops x latency + bytes / bandwidth after it starts, on
 * the dimension it travels (net_delay(); natively, across several, each
 * one's hops x latency and the narrowest bandwidth), whatever else is in
 * the links.
 *
 * Under ASTRA-sim compatibility it starts when it leaves, so every message
 * in flight gets a link's full bandwidth, as ASTRA-sim's analytical backend
 * gives it.  With NetSpec.share_ports (native configs) it first waits for
 * its endpoints: a NIC or GPU port pushes one message at a time, so without
 * this a rank with k chunks in flight would send k times faster than its
 * port (make run showed 92 GB/s through a 50 GB/s NIC).  A message holds
 * its sender's egress port and its receiver's ingress port on the
 * dimension it travels for its serialization bytes / bandwidth: the egress
 * port serves it when free (not before it leaves), then the ingress port
 * when free (not before the egress started: cut-through), each busy for its
 * serialization.  The messages sent at one instant claim their ports
 * together at its end (sim_sched_at_instant_end), in the order of (when
 * they leave, their node's place in the sender's trace: NetMessage.order,
 * then for a collective whose members play roles the sender's place in
 * its group: NetMessage.tie), one node's messages in the order it sent
 * them: the order of the program, the same at every rank that runs the
 * same trace, where the order the run happens to handle the ranks in
 * (rank 0 first) would give ranks alike in every way different times at a
 * tie, and so results that change when ranks are renumbered.  So a member
 * of a tree that hears from two children at one instant serves first the
 * one in the lower place of the group, whichever the run sent first; a
 * symmetry class's stand-in meets the same order (replay_classes.c, (4'')).
 * Messages of collectives run alike at every member, and point-to-point
 * messages, have tie 0: among those of one (at, order) from different
 * senders the order they were sent in stands (and symmetry classes check
 * that none waits for another: net_alias_ties).  The ports per dimension:
 *   Switch          an egress and an ingress port per rank;
 *   Ring            per rank, one out and one in port each way round (a
 *                   message goes the shorter way, clockwise on a tie, as in
 *                   links.c);
 *   FullyConnected  one link per ordered pair, which is both ports;
 *   explicit graph  the first and the last link of the route;
 *   several dims    (a native route between ranks that differ in several
 *                   dimensions, net_span) the sender's egress port on the
 *                   first and the receiver's ingress port on the last.
 * The switch fabric and a Ring's intermediate ranks are not modelled: the
 * congestion and flow models do that.
 *
 * Cost: O(1) per message, exactly one event (the delivery), no allocation
 * per message: one SimTime per port, allocated with the Net; with shared
 * ports, each instant's messages sorted (O(m log m) for m of them) and
 * copied once into a buffer that grows to the most sent at one instant.
 */
#include "network/net_private.h"

#include <stdlib.h>
#include <string.h>

#include "network/price.h"
#include "sim/error.h"

/* A message waiting for the end of its instant to claim its ports. */
typedef struct
{
  NetMessage msg;
  guint32 seq; /* the order it was sent in, within its instant */
} Claim;

/* What orders the claims of an instant, apart from them: sorting these
 * moves a fifth of the bytes a Claim has. */
typedef struct
{
  SimTime at;
  guint32 order, tie, seq;
} ClaimKey;

typedef struct
{
  Net *net;
  guint32 base[NET_MAX_DIMS]; /* first port of each dimension */
  SimTime *free_at;           /* per port: when its last message is serialized;
                               * NULL: ports are not shared */
  /* The messages sent at the current instant, served at its end. */
  Claim *pending;
  ClaimKey *keys; /* the pending claims' keys, as many */
  ClaimKey *keys_tmp; /* room for as many, for sorting them */
  guint32 n_pending, cap_pending;
  guint64 batch; /* how many instants' messages have been served */
  /* With a rank alias (symmetry classes): per port, its last claim's
   * instant, batch, sender and key (at, order), to see two senders meet
   * there at once. */
  SimTime *claimed_at;
  guint64 *claimed_batch;
  guint32 *claimed_by;
  guint32 *claimed_order;
  guint32 *claimed_tie;
  SimTime *claimed_ready;
  gsize n_ports;
  /* Serializations priced: the exact price is a 128-bit division. */
  NetPriceTable serial;
} Ports;

/* Ports per rank in dimension d: Switch 2 (out, in), Ring 4 (out and in,
 * each way round), FullyConnected one per destination coordinate. */
static guint64
ports_per_rank (const NetDimSpec *dim)
{
  switch (dim->kind)
    {
    case NET_DIM_RING:
      return 4;
    case NET_DIM_FULLY_CONNECTED:
      return dim->size;
    case NET_DIM_SWITCH:
    default:
      return 2;
    }
}

static gpointer
analytical_create (Net *net, GError **error)
{
  const NetSpec *spec = net_topo_spec (net->topo);
  NetGraph *graph = net_topo_graph (net->topo);
  Ports *p = g_new0 (Ports, 1);
  p->net = net;
  if (!spec->share_ports)
    {
      /* What analytical_send_message does without ports, net.c does. */
      net->route_priced = TRUE;
      return p;
    }
  guint64 total = 0;
  if (graph != NULL)
    total = net_graph_links (graph);
  else
    for (guint d = 0; d < spec->n_dims; d++)
      {
        p->base[d] = (guint32) total;
        total += (guint64) net_topo_ranks (net->topo) * ports_per_rank (&spec->dims[d]);
        if (total > G_MAXUINT32)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "sharing ports in this topology would need more than %u ports",
                         G_MAXUINT32);
            g_free (p);
            return NULL;
          }
      }
  p->n_ports = MAX (total, 1);
  p->free_at = sim_try_alloc (MAX (total, 1), sizeof (SimTime), TRUE, "the ports' state", error);
  if (p->free_at == NULL)
    {
      g_free (p);
      return NULL;
    }
  return p;
}

static void
analytical_destroy (gpointer state)
{
  Ports *p = state;
  if (p == NULL)
    return;
  g_free (p->free_at);
  g_free (p->pending);
  g_free (p->keys);
  g_free (p->keys_tmp);
  g_free (p->claimed_at);
  g_free (p->claimed_batch);
  g_free (p->claimed_by);
  g_free (p->claimed_order);
  g_free (p->claimed_tie);
  g_free (p->claimed_ready);
  g_free (p);
}

static NetSharing
analytical_sharing (gconstpointer state)
{
  const Ports *p = state;
  return p->free_at != NULL ? NET_SHARING_PER_LINK : NET_SHARING_NONE;
}

/* What a message holds and costs besides its serialization. */
typedef struct
{
  guint32 out, in;     /* its ports */
  double bandwidth_Bps; /* it is serialized at */
  SimTime latency;     /* of its hops */
} PortRoute;

/* The ports of a message from `from` to `to`, ranks that differ on
 * dimension d: from's egress port there and to's ingress port, received at
 * rank at's, as the header says. */
G_ALWAYS_INLINE static inline void
dim_ports (const Ports *p, guint d, guint32 from, guint32 to, guint32 at, PortRoute *r)
{
  const NetTopo *topo = p->net->topo;
  const NetDimSpec *dim = &p->net->spec->dims[d];
  switch (dim->kind)
    {
    case NET_DIM_RING:
      {
        guint32 ca = net_topo_coord (topo, from, d), cb = net_topo_coord (topo, to, d);
        guint32 fwd = (cb + dim->size - ca) % dim->size;
        guint32 way = fwd <= dim->size - fwd ? 0 : 1;
        r->out = p->base[d] + from * 4 + way;
        r->in = p->base[d] + at * 4 + 2 + way;
        break;
      }
    case NET_DIM_FULLY_CONNECTED:
      r->out = r->in = p->base[d] + from * dim->size + net_topo_coord (topo, to, d);
      break;
    case NET_DIM_SWITCH:
    default:
      r->out = p->base[d] + from * 2;
      r->in = p->base[d] + at * 2 + 1;
      break;
    }
}

/* The ports a message from src to dst holds, as the header says; one that
 * crosses several dimensions (net_span) its first and last link's. */
static PortRoute
port_route (Ports *p, guint route_dim, guint32 src, guint32 dst)
{
  if (p->net->graph != NULL)
    {
      const NetPathPrice *price = net_path_price (p->net, src, dst);
      guint32 in = p->net->rank_alias != NULL ? net_alias_in_link (p->net, price->last_link, dst)
                                              : price->last_link;
      return (PortRoute) { price->first_link, in, price->bottleneck_Bps, price->latency };
    }
  /* Symmetry classes: received at the ports of the rank that stands for
   * dst (net_set_rank_alias). */
  guint32 at = p->net->rank_alias != NULL ? p->net->rank_alias[dst] : dst;
  guint32 hops = 0;
  gboolean spans;
  guint d = net_route_spans (p->net, route_dim, src, dst, &hops, &spans);
  NetSpan span;
  PortRoute r;
  if (G_UNLIKELY (spans) && net_span (p->net, src, dst, &span))
    {
      PortRoute last;
      dim_ports (p, span.first, src, dst, at, &r);
      dim_ports (p, span.last, span.via, dst, at, &last);
      r.in = last.in;
      r.bandwidth_Bps = span.bandwidth_Bps;
      r.latency = span.latency;
      return r;
    }
  const NetDimSpec *dim = &p->net->spec->dims[d];
  dim_ports (p, d, src, dst, at, &r);
  r.bandwidth_Bps = dim->bandwidth_Bps;
  r.latency = hops * dim->latency;
  return r;
}

/* Symmetry classes: message C claims PORT, ready at READY.  The messages
 * of one instant claim ports in (at, order, tie) order (ports_flush), which
 * is every rank's as much as it is the simulated rank's; but two messages
 * with equal keys from different senders (or the images of such, at a
 * stand-in's ingress port) claim it in the order the run happens to send
 * them, and so do messages of two batches of one instant (a delivery at
 * the instant it was sent).  When such a meeting makes one wait for the
 * other, note it (net_alias_ties): the results are then not known to be
 * every rank's. */
static void
note_claim (Net *net, Ports *p, guint32 port, const NetMessage *m, SimTime ready)
{
  if (p->claimed_at == NULL)
    {
      p->claimed_at = g_new0 (SimTime, p->n_ports);
      p->claimed_batch = g_new0 (guint64, p->n_ports);
      p->claimed_by = g_new (guint32, p->n_ports);
      p->claimed_order = g_new0 (guint32, p->n_ports);
      p->claimed_tie = g_new0 (guint32, p->n_ports);
      p->claimed_ready = g_new0 (SimTime, p->n_ports);
      memset (p->claimed_by, 0xff, p->n_ports * sizeof (guint32));
    }
  SimTime now = sim_sched_now (net->sched);
  if (p->claimed_at[port] == now && p->claimed_by[port] != G_MAXUINT32 && p->free_at[port] > ready
      && (p->claimed_batch[port] != p->batch
          || (p->claimed_by[port] != m->src && p->claimed_order[port] == m->order
              && p->claimed_tie[port] == m->tie && p->claimed_ready[port] == m->at)))
    net->alias_ties++;
  p->claimed_at[port] = now;
  p->claimed_batch[port] = p->batch;
  p->claimed_by[port] = m->src;
  p->claimed_order[port] = m->order;
  p->claimed_tie[port] = m->tie;
  p->claimed_ready[port] = m->at;
}

/* With shared ports: when the message starts (claiming its ports) and when
 * it arrives.  Out of line, so that the unshared path saves no registers
 * for it. */
G_GNUC_NO_INLINE static SimTime
ports_arrival (Net *net, Ports *p, const NetMessage *msg)
{
  SimTime at = msg->at;
  guint64 bytes = msg->bytes;
  PortRoute r = port_route (p, msg->dim, msg->src, msg->dst);
  SimTime ps = net_price_serialization (&p->serial, bytes, r.bandwidth_Bps);
  /* The egress port serves it first come, first served, then the ingress
   * port, cut through: the receiver's queue does not hold the sender's
   * port (a switch buffers), so a member sending to several peers and
   * receiving from several is not idled by claiming both ends at once.
   * One link for both (FullyConnected) is claimed once. */
  if (net->rank_alias != NULL)
    note_claim (net, p, r.out, msg, at);
  SimTime start = MAX (at, p->free_at[r.out]);
  p->free_at[r.out] = sim_time_add (start, ps);
  if (r.in != r.out)
    {
      if (net->rank_alias != NULL)
        note_claim (net, p, r.in, msg, start);
      start = MAX (start, p->free_at[r.in]);
      p->free_at[r.in] = sim_time_add (start, ps);
    }
  /* Exact picoseconds: net_delay's formula, from what is known already. */
  if (net->spec->rounding == NET_ROUND_PS)
    return sim_time_add (start, sim_time_add (r.latency, ps));
  return sim_time_add (start, net_delay_on (net, msg->dim, msg->src, msg->dst, bytes));
}

/* Whether claim X comes before claim Y: (at, order, tie, seq) order. */
static inline gboolean
claim_before (const ClaimKey *x, const ClaimKey *y)
{
  if (x->at != y->at)
    return x->at < y->at;
  if (x->order != y->order)
    return x->order < y->order;
  if (x->tie != y->tie)
    return x->tie < y->tie;
  return x->seq < y->seq;
}

/* Claims in a sorted run of at most this many are placed by insertion. */
#define CLAIM_RUN 16u

/* Sort the N keys K by claim_before, TMP (room for N) as scratch: runs of
 * CLAIM_RUN by insertion, then merged pairwise (a pair already in order
 * is copied).  The keys are all different (seq), so this is the one order
 * any sort gives; with the comparison inline it costs a fraction of
 * qsort's (a sixth of a 1,024-GPU plan candidate's instructions went to
 * qsort here). */
static void
claims_sort (ClaimKey *k, ClaimKey *tmp, guint32 n)
{
  for (guint32 s = 0; s < n; s += CLAIM_RUN)
    for (guint32 i = s + 1; i < MIN (s + CLAIM_RUN, n); i++)
      {
        ClaimKey x = k[i];
        guint32 j = i;
        for (; j > s && claim_before (&x, &k[j - 1]); j--)
          k[j] = k[j - 1];
        k[j] = x;
      }
  ClaimKey *src = k, *dst = tmp;
  for (guint32 w = CLAIM_RUN; w < n; w *= 2)
    {
      for (guint32 lo = 0; lo < n; lo += 2 * w)
        {
          guint32 mid = MIN (lo + w, n), hi = MIN (lo + 2 * w, n), i = lo, j = mid, o = lo;
          if (mid == hi || claim_before (&src[mid - 1], &src[mid]))
            {
              memcpy (dst + lo, src + lo, (gsize) (hi - lo) * sizeof *src);
              continue;
            }
          while (i < mid && j < hi)
            dst[o++] = claim_before (&src[j], &src[i]) ? src[j++] : src[i++];
          while (i < mid)
            dst[o++] = src[i++];
          while (j < hi)
            dst[o++] = src[j++];
        }
      ClaimKey *t = src;
      src = dst;
      dst = t;
    }
  if (src != k)
    memcpy (k, src, (gsize) n * sizeof *k);
}

/* The end of an instant: its messages claim their ports, in (at, order,
 * tie) order, the order they were sent in among equals (the header says why),
 * and their deliveries are scheduled. */
static void
ports_flush (SimSched *sched, gpointer data, guint64 arg)
{
  (void) arg;
  Net *net = data;
  Ports *p = net->state;
  guint32 n = p->n_pending;
  p->n_pending = 0; /* the deliveries run after this: nothing is sent meanwhile */
  p->batch++;
  /* The keys are all different (seq), so any sort gives the one order;
   * an instant's messages often come in it already. */
  gboolean sorted = TRUE;
  for (guint32 i = 1; i < n && sorted; i++)
    sorted = claim_before (&p->keys[i - 1], &p->keys[i]);
  if (!sorted)
    claims_sort (p->keys, p->keys_tmp, n);
  for (guint32 i = 0; i < n; i++)
    {
      const NetMessage *msg = &p->pending[p->keys[i].seq].msg;
      sim_sched_at (sched, ports_arrival (net, p, msg), msg->on_delivered, msg->data, msg->arg);
    }
}

static void
analytical_send_message (Net *net, const NetMessage *msg)
{
  Ports *p = net->state;
  if (p->free_at == NULL)
    {
      sim_sched_at (net->sched,
                    sim_time_add (msg->at, net_delay_hinted (net, msg->dim, msg->src, msg->dst,
                                                             msg->bytes)),
                    msg->on_delivered, msg->data, msg->arg);
      return;
    }
  if (p->n_pending == 0)
    sim_sched_at_instant_end (net->sched, ports_flush, net);
  if (p->n_pending == p->cap_pending)
    {
      p->cap_pending = MAX (16u, p->cap_pending * 2);
      p->pending = g_renew (Claim, p->pending, p->cap_pending);
      p->keys = g_renew (ClaimKey, p->keys, p->cap_pending);
      p->keys_tmp = g_renew (ClaimKey, p->keys_tmp, p->cap_pending);
    }
  p->pending[p->n_pending] = (Claim) { .msg = *msg, .seq = p->n_pending };
  p->keys[p->n_pending] = (ClaimKey) { .at = msg->at, .order = msg->order, .tie = msg->tie,
                                       .seq = p->n_pending };
  p->n_pending++;
}

static void
analytical_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
                 SimHandler on_delivered, gpointer data, guint64 arg)
{
  NetMessage msg = { .at = at, .src = src, .dst = dst, .dim = NET_DIM_UNKNOWN, .bytes = bytes,
                     .on_delivered = on_delivered, .data = data, .arg = arg };
  analytical_send_message (net, &msg);
}

const NetModelClass net_analytical_class = {
  .name = "analytical",
  .help = "no contention in links (native configs: endpoint ports shared)",
  .sharing = NET_SHARING_NONE,
  .sharing_of = analytical_sharing,
  .create = analytical_create,
  .destroy = analytical_destroy,
  .send = analytical_send,
  .send_message = analytical_send_message,
};
