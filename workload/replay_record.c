/* replay_record.c: per-node records of a replay (wl_replay_set_recording):
 * when each node was ready, started and ended, what issued it, and which
 * peer it met (the matching send or receive, a collective's last joiner). */
#include <string.h>

#include "workload/replay_private.h"

/* Point-to-point nodes waiting for their match on one (src, dst, tag), as
 * rank << 32 | index. */
typedef struct
{
  guint32 src, dst;
  gint32 tag;
} WlP2PKey;

typedef struct
{
  GArray *sends, *recvs; /* guint64 */
  guint send_head, recv_head;
} WlP2PWait;

static void
p2p_wait_free (gpointer p)
{
  WlP2PWait *w = p;
  g_array_unref (w->sends);
  g_array_unref (w->recvs);
  g_free (w);
}

static guint
p2p_key_hash (gconstpointer p)
{
  const WlP2PKey *k = p;
  return (k->src * 2654435761u) ^ (k->dst * 40503u) ^ (guint) k->tag;
}

static gboolean
p2p_key_equal (gconstpointer a, gconstpointer b)
{
  const WlP2PKey *x = a, *y = b;
  return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

void
wl_replay_set_recording (WlReplay *r, gboolean on)
{
  g_return_if_fail (r != NULL);
  r->recording = on;
  if (!on || r->insts != NULL)
    return;
  r->insts = g_array_new (FALSE, FALSE, sizeof (WlCollInst));
  r->inst_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                         (GDestroyNotify) g_array_unref);
  r->p2p_wait = g_hash_table_new_full (p2p_key_hash, p2p_key_equal, g_free, p2p_wait_free);
}

void
wl_replay_record_free (WlReplay *r)
{
  if (r->insts != NULL)
    g_array_unref (r->insts);
  if (r->inst_index != NULL)
    g_hash_table_unref (r->inst_index);
  if (r->p2p_wait != NULL)
    g_hash_table_unref (r->p2p_wait);
}

void
wl_replay_record_alloc (WlRank *k)
{
  guint32 n = k->stats.nodes;
  k->rec = g_new (WlNodeRecord, MAX (n, 1u));
  for (guint32 v = 0; v < n; v++)
    k->rec[v] = (WlNodeRecord) { .ready = SIM_TIME_MAX, .start = SIM_TIME_MAX,
                                 .end = SIM_TIME_MAX, .pred = WL_NO_NODE,
                                 .peer_rank = WL_NO_NODE, .peer_index = WL_NO_NODE,
                                 .link = WL_NO_NODE };
  k->coll_seq = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

/* This rank joins its next collective on `group`: note it in the instance. */
static void
record_join (WlRank *k, guint32 index, guint64 group, SimTime now)
{
  WlReplay *r = k->replay;
  guint32 seq = GPOINTER_TO_UINT (g_hash_table_lookup (k->coll_seq, &group));
  g_hash_table_replace (k->coll_seq, g_memdup2 (&group, sizeof group), GUINT_TO_POINTER (seq + 1));
  GArray *by_seq = g_hash_table_lookup (r->inst_index, &group);
  if (by_seq == NULL)
    {
      by_seq = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (r->inst_index, g_memdup2 (&group, sizeof group), by_seq);
    }
  if (seq >= by_seq->len)
    {
      WlCollInst inst = { .last_rank = k->rank, .last_index = index, .last_join = now };
      guint32 id = r->insts->len;
      g_array_append_val (r->insts, inst);
      g_array_append_val (by_seq, id);
    }
  guint32 id = g_array_index (by_seq, guint32, seq);
  WlCollInst *inst = &g_array_index (r->insts, WlCollInst, id);
  if (now >= inst->last_join)
    *inst = (WlCollInst) { .last_rank = k->rank, .last_index = index, .last_join = now };
  k->rec[index].link = id;
}

/* Pair a send or receive with the oldest waiting counterpart. */
static void
record_p2p (WlRank *k, guint32 index, const WlNode *n)
{
  WlReplay *r = k->replay;
  gboolean send = n->op == WL_OP_SEND;
  WlP2PKey key = { .src = send ? k->rank : n->peer_src, .dst = send ? n->peer_dst : k->rank,
                   .tag = n->tag };
  WlP2PWait *w = g_hash_table_lookup (r->p2p_wait, &key);
  if (w == NULL)
    {
      w = g_new0 (WlP2PWait, 1);
      w->sends = g_array_new (FALSE, FALSE, sizeof (guint64));
      w->recvs = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_hash_table_insert (r->p2p_wait, g_memdup2 (&key, sizeof key), w);
    }
  GArray *other = send ? w->recvs : w->sends;
  guint *head = send ? &w->recv_head : &w->send_head;
  guint64 self = (guint64) k->rank << 32 | index;
  if (*head == other->len)
    {
      g_array_append_val (send ? w->sends : w->recvs, self);
      return;
    }
  guint64 peer = g_array_index (other, guint64, (*head)++);
  guint32 prank = (guint32) (peer >> 32), pindex = (guint32) peer;
  k->rec[index].peer_rank = prank;
  k->rec[index].peer_index = pindex;
  r->ranks[prank].rec[pindex].peer_rank = k->rank;
  r->ranks[prank].rec[pindex].peer_index = index;
}

void
wl_replay_record_start (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  k->rec[index].start = now;
  k->rec[index].pred = k->finishing;
  if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    record_p2p (k, index, n);
  else if (n->op == WL_OP_COLL
           && !(n->coll_kind == SYS_COLL_BROADCAST && k->replay->params.timing.broadcast_as_delay))
    record_join (k, index, n->group, now);
}

void
wl_replay_record_end (WlRank *k, guint32 index, SimTime now)
{
  WlNodeRecord *rec = &k->rec[index];
  rec->end = now;
  if (rec->link != WL_NO_NODE)
    {
      const WlCollInst *inst = &g_array_index (k->replay->insts, WlCollInst, rec->link);
      rec->peer_rank = inst->last_rank;
      rec->peer_index = inst->last_index;
    }
}

const WlNodeRecord *
wl_replay_records (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return r->ranks[rank].rec;
}
