/* link_congestion.c: the store-and-forward link model (optionally in
 * packets: NetSpec.packet_bytes).
 *
 * Every dimension is built from real links: a Ring has one link each way
 * between neighbours, a FullyConnected line one link between every ordered
 * pair, a Switch line a switch device with an up and a down link per member.
 * A message is routed dimension by dimension, innermost first (a Ring the
 * shorter way round, clockwise on a tie), and hops from device to device.  On
 * each link it waits until the link is free (first come, first served: the
 * links are served in event order), keeps it busy for its serialization time
 * bytes / bandwidth, and reaches the next device latency + bytes / bandwidth
 * after it started.  A switch forwards only whole messages.
 *
 * With NET_ROUND_NS_TRUNCATED both times are computed in double
 * nanoseconds and truncated, as ASTRA-sim's congestion-aware backend does,
 * so with whole messages on one dimension this reproduces that backend (on a
 * Switch each message costs 2 x floor(a + m/B)).
 *
 * Cost: one event per hop; nothing is allocated per message once the message
 * pool has grown to the number of messages in flight, and a link prices a
 * size once for as long as the sizes crossing it do not change.
 */
#include "network/links.h"
#include "network/net_private.h"

#include <string.h>

#include "sim/error.h"

typedef struct
{
  SimTime busy_until;
  guint64 bytes;
  guint64 messages;
  SimTime busy;     /* summed serialization time */
  SimTime *starts;  /* start times of messages still waiting, oldest first
                     * from starts[head] to starts[len - 1]; allocated when
                     * a message first has to wait (it then starts later
                     * than now, so link_queue appends it) */
  guint32 head, len, cap;
  guint32 peak_queue;
  /* The serialization and hop times of the last size that crossed the
   * link, and that size + 1 (0: none, or a size of 2^64 - 1, priced each
   * time): a collective's messages come in runs of one size, priced once
   * rather than in double division each. */
  guint64 priced_bytes;
  SimTime priced_ser, priced_hop;
} NetLink;

typedef struct
{
  SimHandler fn;
  gpointer data;
  guint64 arg;
  guint64 bytes;
  NetCursor cursor;
  guint32 parent;       /* a packet: index + 1 of its message; 0: a whole message */
  guint32 packets_left; /* a packetized message: packets not yet delivered */
  guint32 next_free;
} NetMsg;

typedef struct
{
  Net *net;
  const NetSpec *spec;
  NetLinks layout;
  guint32 n_links;
  NetLink *links;
  GArray *msgs;   /* NetMsg pool */
  guint32 free_head; /* index + 1 of the first free message, 0: none */
} Congestion;

static gpointer
congestion_create (Net *net, GError **error)
{
  Congestion *c = g_new0 (Congestion, 1);
  c->net = net;
  c->spec = net_topo_spec (net->topo);
  if (!net_links_init (&c->layout, net->topo, error))
    {
      g_free (c);
      return NULL;
    }
  c->n_links = c->layout.n_links;
  c->links = sim_try_alloc (c->n_links, sizeof (NetLink), TRUE, "the links' state", error);
  if (c->links == NULL)
    {
      g_free (c);
      return NULL;
    }
  c->msgs = g_array_new (FALSE, FALSE, sizeof (NetMsg));
  return c;
}

static void
congestion_destroy (gpointer state)
{
  Congestion *c = state;
  if (c == NULL)
    return;
  for (guint32 i = 0; i < c->n_links; i++)
    g_free (c->links[i].starts);
  g_free (c->links);
  g_array_unref (c->msgs);
  g_free (c);
}

static guint32
msg_alloc (Congestion *c)
{
  if (c->free_head != 0)
    {
      guint32 i = c->free_head - 1;
      c->free_head = g_array_index (c->msgs, NetMsg, i).next_free;
      return i;
    }
  g_array_set_size (c->msgs, c->msgs->len + 1);
  return c->msgs->len - 1;
}

static void
msg_free (Congestion *c, guint32 i)
{
  g_array_index (c->msgs, NetMsg, i).next_free = c->free_head;
  c->free_head = i + 1;
}

static void on_hop (SimSched *sched, gpointer data, guint64 index);

/* Queue depth: the messages that got the link but have not started on it.
 * Starts come in increasing order, so the ones already begun are at the
 * front: they are dropped by moving the head, and the array is slid down
 * only once the dropped part is the larger, so each start is moved O(1)
 * times on average. */
static void
link_queue (NetLink *link, SimTime now, SimTime start)
{
  while (link->head < link->len && link->starts[link->head] <= now)
    link->head++;
  if (link->head == link->len)
    link->head = link->len = 0;
  else if (link->head > link->len - link->head)
    {
      link->len -= link->head;
      memmove (link->starts, link->starts + link->head, link->len * sizeof (SimTime));
      link->head = 0;
    }
  if (start > now)
    {
      if (link->len == link->cap)
        {
          link->cap = MAX (8, 2 * link->cap);
          link->starts = g_renew (SimTime, link->starts, link->cap);
        }
      link->starts[link->len++] = start;
    }
  link->peak_queue = MAX (link->peak_queue, link->len - link->head);
}

/* Price `bytes` on link id into its memo. */
static void
link_price (Congestion *c, guint32 id, guint64 bytes)
{
  NetLink *link = &c->links[id];
  double bandwidth = net_links_bandwidth (&c->layout, id);
  SimTime latency = net_links_latency (&c->layout, id);
  SimTime ser, hop;
  if (c->spec->rounding == NET_ROUND_NS_TRUNCATED)
    {
      double bw_Bpns = bandwidth / 1e9;
      double lat_ns = (double) latency / (double) SIM_PS_PER_NS;
      ser = sim_time_from_ns_truncated ((double) bytes / bw_Bpns);
      hop = sim_time_from_ns_truncated (lat_ns + (double) bytes / bw_Bpns);
    }
  else
    {
      ser = net_serialization_ps (bytes, bandwidth);
      hop = sim_time_add (latency, ser);
    }
  link->priced_bytes = bytes + 1;
  link->priced_ser = ser;
  link->priced_hop = hop;
}

/* The message is at a device now: deliver it, or put it on its next link. */
static void
advance (Congestion *c, guint32 index)
{
  SimTime now = sim_sched_now (c->net->sched);
  NetMsg *m = &g_array_index (c->msgs, NetMsg, index);
  if (net_cursor_arrived (&m->cursor) && m->parent != 0)
    {
      /* A packet is in: the message is when its last packet is. */
      guint32 parent = m->parent - 1;
      msg_free (c, index);
      if (--g_array_index (c->msgs, NetMsg, parent).packets_left > 0)
        return;
      index = parent;
      m = &g_array_index (c->msgs, NetMsg, index);
      m->cursor.at = m->cursor.dst; /* the message is in with its last packet */
    }
  if (net_cursor_arrived (&m->cursor))
    {
      SimHandler fn = m->fn;
      gpointer data = m->data;
      guint64 arg = m->arg;
      msg_free (c, index);
      g_assert (fn != NULL); /* only packets (parent != 0) have none, and they return above */
      fn (c->net->sched, data, arg);
      return;
    }
  guint32 id = net_links_next (&c->layout, &m->cursor);
  NetLink *link = &c->links[id];
  if (G_UNLIKELY (link->priced_bytes != m->bytes + 1 || link->priced_bytes == 0))
    link_price (c, id, m->bytes);
  SimTime ser = link->priced_ser, hop = link->priced_hop;
  SimTime start = MAX (now, link->busy_until);
  if (link->busy_until > now || link->starts != NULL)
    link_queue (link, now, start);
  link->busy_until = sim_time_add (start, ser);
  link->bytes += m->bytes;
  link->messages++;
  link->busy += ser;
  sim_sched_at (c->net->sched, sim_time_add (start, hop), on_hop, c, index);
}

static void
on_hop (SimSched *sched, gpointer data, guint64 index)
{
  (void) sched;
  advance (data, (guint32) index);
}

/* Links are taken in event order, so a message that leaves later must wait
 * for its time to come. */
static void
congestion_inject (Congestion *c, SimTime at, guint32 index)
{
  if (at == sim_sched_now (c->net->sched))
    advance (c, index);
  else
    sim_sched_at (c->net->sched, at, on_hop, c, index);
}

static void
congestion_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
                 SimHandler on_delivered, gpointer data, guint64 arg)
{
  Congestion *c = net->state;
  guint32 index = msg_alloc (c);
  g_array_index (c->msgs, NetMsg, index) = (NetMsg) { .fn = on_delivered, .data = data,
                                                      .arg = arg, .bytes = bytes,
                                                      .cursor = net_cursor (src, dst) };
  guint64 pb = c->spec->packet_bytes;
  if (pb == 0 || bytes <= pb)
    {
      congestion_inject (c, at, index);
      return;
    }
  /* Packets, in order: each crosses the network on its own, behind the one
   * before it on every link they share. */
  guint64 n = (bytes + pb - 1) / pb;
  g_assert (n < G_MAXUINT32);
  g_array_index (c->msgs, NetMsg, index).packets_left = (guint32) n;
  for (guint64 i = 0; i < n; i++)
    {
      guint32 p = msg_alloc (c);
      g_array_index (c->msgs, NetMsg, p)
          = (NetMsg) { .bytes = MIN (pb, bytes - i * pb), .cursor = net_cursor (src, dst),
                       .parent = index + 1 };
      congestion_inject (c, at, p);
    }
}

static guint32
congestion_n_links (gpointer state)
{
  return ((Congestion *) state)->n_links;
}

static void
congestion_link_stats (gpointer state, guint32 id, NetLinkStats *out)
{
  const Congestion *c = state;
  const NetLink *link = &c->links[id];
  net_links_stats (&c->layout, id, link->bytes, link->messages, link->busy, link->peak_queue,
                   out);
}

const NetModelClass net_congestion_class = {
  .name = "congestion",
  .help = "store-and-forward, FIFO links; with ASTRA-sim inputs it plays its congestion-aware "
          "backend",
  .sharing = NET_SHARING_PER_LINK,
  .create = congestion_create,
  .destroy = congestion_destroy,
  .send = congestion_send,
  .n_links = congestion_n_links,
  .link_stats = congestion_link_stats,
};
