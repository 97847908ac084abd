/* replay_record.c: per-node records of a replay (wl_replay_set_recording):
 * when each node was ready, started and ended, what issued it, and which
 * peer it met: the matching send or receive, as the system layer reports
 * it (SysP2PMatchFunc), or a collective's last joiner. */
#include <string.h>

#include "workload/replay_private.h"

/* A rank's next collective sequence number on one group (the key is
 * inside). */
typedef struct
{
  guint64 group;
  guint32 next;
} WlCollSeq;

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
}

void
wl_replay_record_free (WlReplay *r)
{
  if (r->insts != NULL)
    g_array_unref (r->insts);
  if (r->inst_index != NULL)
    g_hash_table_unref (r->inst_index);
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
  k->coll_seq = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
}

/* This rank joins its next collective on `group`: note it in the instance.
 * Tables grow per group and per instance, never per join. */
static void
record_join (WlRank *k, guint32 index, guint64 group, SimTime now)
{
  WlReplay *r = k->replay;
  WlCollSeq *next = g_hash_table_lookup (k->coll_seq, &group);
  if (next == NULL)
    {
      next = g_new0 (WlCollSeq, 1);
      next->group = group;
      g_hash_table_insert (k->coll_seq, &next->group, next);
    }
  guint32 seq = next->next++;
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

void
wl_replay_record_p2p_match (gpointer data, guint64 arg, gpointer peer_data, guint64 peer_arg)
{
  WlRank *k = data;
  const WlRank *peer = peer_data;
  k->rec[arg].peer_rank = peer->rank;
  k->rec[arg].peer_index = (guint32) peer_arg;
}

void
wl_replay_record_start (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  k->rec[index].start = now;
  k->rec[index].pred = k->finishing;
  if (n->op == WL_OP_COLL
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
