/* p2p.c: point-to-point messages matched on (src, dst, tag), in order.
 *
 * The n-th send on a channel (src, dst, tag) meets the n-th receive posted on
 * it.  Messages below the rendezvous threshold are eager: the data leaves
 * when the send is posted.  Larger ones use rendezvous: the data leaves when
 * both the send and its receive have been posted.  Either way the send
 * completes when its data has arrived (as ASTRA-sim's analytical backend
 * reports it) and a receive when its data is in: at delivery, or when it is
 * posted if the data came first.
 */
#include "system/sys_private.h"

#include "sim/error.h"

typedef struct
{
  guint32 src, dst;
  gint64 tag;
} SysChannelKey;

typedef struct _SysMsg SysMsg;

typedef struct
{
  SysChannelKey key;
  GQueue sends; /* SysMsg* posted, not yet matched */
  GQueue recvs; /* SysP2PRequest* posted, not yet matched */
} SysChannel;

struct _SysMsg
{
  Sys *sys;
  SysP2PRequest send;
  SysP2PRequest recv;
  gboolean matched;
  gboolean delivered;
  gboolean departed;
};

struct _SysP2P
{
  GHashTable *channels; /* SysChannelKey* -> SysChannel* (key inside value) */
  GHashTable *in_flight; /* SysMsg* set, owned: sends not yet received */
};

static guint
key_hash (gconstpointer p)
{
  const SysChannelKey *k = p;
  guint64 h = ((guint64) k->src * 0x9E3779B97F4A7C15ull) ^ ((guint64) k->dst << 21)
              ^ (guint64) k->tag * 0xC2B2AE3D27D4EB4Full;
  return (guint) (h ^ (h >> 32));
}

static gboolean
key_equal (gconstpointer a, gconstpointer b)
{
  const SysChannelKey *x = a, *y = b;
  return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

static void
channel_free (gpointer p)
{
  SysChannel *ch = p;
  g_queue_clear (&ch->sends); /* the messages belong to in_flight */
  g_queue_clear_full (&ch->recvs, g_free);
  g_free (ch);
}

struct _SysP2P *
sys_p2p_new (void)
{
  struct _SysP2P *p2p = g_new0 (struct _SysP2P, 1);
  p2p->channels = g_hash_table_new_full (key_hash, key_equal, NULL, channel_free);
  p2p->in_flight = g_hash_table_new_full (g_direct_hash, g_direct_equal, g_free, NULL);
  return p2p;
}

void
sys_p2p_free (struct _SysP2P *p2p)
{
  if (p2p == NULL)
    return;
  g_hash_table_unref (p2p->in_flight);
  g_hash_table_unref (p2p->channels);
  g_free (p2p);
}

static SysChannel *
channel_get (struct _SysP2P *p2p, const SysP2PRequest *req)
{
  SysChannelKey key = { req->chan_alias ? req->chan_src : req->src,
                        req->chan_alias ? req->chan_dst : req->dst, req->tag };
  SysChannel *ch = g_hash_table_lookup (p2p->channels, &key);
  if (ch == NULL)
    {
      ch = g_new0 (SysChannel, 1);
      ch->key = key;
      g_hash_table_insert (p2p->channels, &ch->key, ch);
    }
  return ch;
}

static gboolean
check_sizes (const SysP2PRequest *send, const SysP2PRequest *recv, GError **error)
{
  if (send->bytes == recv->bytes)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "send node %" G_GUINT64_FORMAT " on rank %u carries %" G_GUINT64_FORMAT
               " bytes but the receive it matches, node %" G_GUINT64_FORMAT " on rank %u, expects %"
               G_GUINT64_FORMAT " (tag %" G_GINT64_FORMAT ")",
               send->node_id, send->src, send->bytes, recv->node_id, recv->dst, recv->bytes,
               send->tag);
  return FALSE;
}

/* SEND and RECV are matched: tell each side which request it met. */
static void
tell_match (const SysP2PRequest *send, const SysP2PRequest *recv)
{
  if (send->on_match != NULL)
    send->on_match (send->data, send->arg, recv->data, recv->arg);
  if (recv->on_match != NULL)
    recv->on_match (recv->data, recv->arg, send->data, send->arg);
}

static void
complete (Sys *sys, const SysP2PRequest *req)
{
  if (req->on_done != NULL)
    req->on_done (sys->sched, req->data, req->arg);
}

/* The data is in and the receive is posted: the message is finished. */
static void
msg_finish (SysMsg *msg)
{
  Sys *sys = msg->sys;
  SysP2PRequest recv = msg->recv;
  g_hash_table_remove (sys->p2p->in_flight, msg); /* frees msg */
  complete (sys, &recv);
}

static void
on_delivered (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  (void) arg;
  SysMsg *msg = data;
  msg->delivered = TRUE;
  SysP2PRequest send = msg->send;
  Sys *sys = msg->sys;
  gboolean matched = msg->matched;
  if (matched)
    msg_finish (msg);
  complete (sys, &send);
}

static gboolean
is_rendezvous (const Sys *sys, const SysP2PRequest *req)
{
  return req->bytes >= sys->params.rendezvous_threshold;
}

/* The data leaves now. */
static void
depart (Sys *sys, SysMsg *msg)
{
  msg->departed = TRUE;
  SimTime now = sim_sched_now (sys->sched);
  if (msg->send.src == msg->send.dst)
    sim_sched_at (sys->sched, now, on_delivered, msg, 0);
  else
    {
      NetMessage m = { .at = now, .src = msg->send.src, .dst = msg->send.dst,
                       .order = msg->send.order, .dim = NET_DIM_UNKNOWN, .bytes = msg->send.bytes,
                       .on_delivered = on_delivered, .data = msg };
      net_send_message (sys->net, &m);
    }
}

gboolean
sys_p2p_send (Sys *sys, const SysP2PRequest *req, GError **error)
{
  g_return_val_if_fail (sys != NULL && req != NULL, FALSE);
  guint32 ranks = net_topo_ranks (sys->topo);
  if (req->src >= ranks || req->dst >= ranks)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "send node %" G_GUINT64_FORMAT ": rank %u -> %u, but there are %u ranks",
                   req->node_id, req->src, req->dst, ranks);
      return FALSE;
    }
  SysChannel *ch = channel_get (sys->p2p, req);
  SysMsg *msg = g_new0 (SysMsg, 1);
  msg->sys = sys;
  msg->send = *req;
  SysP2PRequest *recv = g_queue_pop_head (&ch->recvs);
  if (recv != NULL)
    {
      msg->recv = *recv;
      msg->matched = TRUE;
      g_free (recv);
      if (!check_sizes (&msg->send, &msg->recv, error))
        {
          g_free (msg);
          return FALSE;
        }
      tell_match (&msg->send, &msg->recv);
    }
  else
    g_queue_push_tail (&ch->sends, msg);
  g_hash_table_add (sys->p2p->in_flight, msg);
  if (msg->matched || !is_rendezvous (sys, req))
    depart (sys, msg);
  return TRUE;
}

static void
on_recv_ready (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  (void) arg;
  msg_finish (data);
}

gboolean
sys_p2p_recv (Sys *sys, const SysP2PRequest *req, GError **error)
{
  g_return_val_if_fail (sys != NULL && req != NULL, FALSE);
  SysChannel *ch = channel_get (sys->p2p, req);
  SysMsg *msg = g_queue_pop_head (&ch->sends);
  if (msg == NULL)
    {
      g_queue_push_tail (&ch->recvs, g_memdup2 (req, sizeof *req));
      return TRUE;
    }
  msg->recv = *req;
  msg->matched = TRUE;
  if (!check_sizes (&msg->send, &msg->recv, error))
    return FALSE;
  tell_match (&msg->send, &msg->recv);
  if (!msg->departed)
    depart (sys, msg); /* rendezvous: both sides have now posted */
  else if (msg->delivered)
    /* Data that came first completes the receive now, in an event of its
     * own so that the caller is not re-entered. */
    sim_sched_at (sys->sched, sim_sched_now (sys->sched), on_recv_ready, msg, 0);
  return TRUE;
}

static gint
cmp_channels (gconstpointer a, gconstpointer b)
{
  const SysChannel *x = *(SysChannel *const *) a, *y = *(SysChannel *const *) b;
  if (x->key.dst != y->key.dst)
    return x->key.dst < y->key.dst ? -1 : 1;
  if (x->key.src != y->key.src)
    return x->key.src < y->key.src ? -1 : 1;
  return (x->key.tag > y->key.tag) - (x->key.tag < y->key.tag);
}

static gboolean
channel_blocked (const SysChannel *ch)
{
  if (ch->recvs.length > 0)
    return TRUE;
  for (GList *l = ch->sends.head; l != NULL; l = l->next)
    if (!((const SysMsg *) l->data)->departed)
      return TRUE;
  return FALSE;
}

guint
sys_p2p_describe (const struct _SysP2P *p2p, GString *out)
{
  g_autoptr (GPtrArray) chans = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, p2p->channels);
  while (g_hash_table_iter_next (&it, NULL, &v))
    if (channel_blocked (v))
      g_ptr_array_add (chans, v);
  g_ptr_array_sort (chans, cmp_channels);
  guint lines = 0;
  for (guint i = 0; i < chans->len; i++)
    {
      const SysChannel *ch = chans->pdata[i];
      for (GList *l = ch->recvs.head; l != NULL; l = l->next, lines++)
        {
          const SysP2PRequest *r = l->data;
          g_string_append_printf (out,
                                  "rank %u node %" G_GUINT64_FORMAT
                                  " waits to receive %" G_GUINT64_FORMAT
                                  " bytes from rank %u (tag %" G_GINT64_FORMAT
                                  "): no matching send\n",
                                  r->dst, r->node_id, r->bytes, r->src, r->tag);
        }
      for (GList *l = ch->sends.head; l != NULL; l = l->next)
        {
          const SysMsg *m = l->data;
          if (m->departed)
            continue;
          lines++;
          g_string_append_printf (out,
                                  "rank %u node %" G_GUINT64_FORMAT " waits to send %" G_GUINT64_FORMAT
                                  " bytes to rank %u (tag %" G_GINT64_FORMAT
                                  ", rendezvous): no matching receive\n",
                                  m->send.src, m->send.node_id, m->send.bytes, m->send.dst,
                                  m->send.tag);
        }
    }
  return lines;
}
