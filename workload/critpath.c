/* critpath.c: walking a recorded run back from its last node. */
#include "workload/critpath.h"

/* The node on another rank this one waited for, or FALSE. */
static gboolean
waited_for (const WlReplay *r, guint32 rank, guint32 index, guint64 rendezvous, guint32 *prank,
            guint32 *pindex)
{
  const WlNodeRecord *rec = &wl_replay_records (r, rank)[index];
  const WlNode *n = &wl_replay_graph (r, rank)->nodes[index];
  if (rec->peer_rank == WL_NO_NODE)
    return FALSE;
  if (n->op == WL_OP_SEND && n->bytes < rendezvous)
    return FALSE; /* eager: the send does not wait for its receive */
  if (n->op != WL_OP_COLL && n->op != WL_OP_SEND && n->op != WL_OP_RECV)
    return FALSE;
  if (rec->peer_rank == rank && rec->peer_index == index)
    return FALSE;
  const WlNodeRecord *peer = &wl_replay_records (r, rec->peer_rank)[rec->peer_index];
  if (peer->start == SIM_TIME_MAX || peer->start > rec->end)
    return FALSE;
  /* A receive waited for its data when the send's delivery (its end) came
   * after the receive was posted, even if the send was posted first; a
   * collective or a rendezvous send waited when the peer arrived later. */
  if (n->op == WL_OP_RECV ? peer->end <= rec->start : peer->start <= rec->start)
    return FALSE;
  *prank = rec->peer_rank;
  *pindex = rec->peer_index;
  return TRUE;
}

/* The node that finished last: latest end, then lowest rank, then highest
 * index. */
static gboolean
last_node (const WlReplay *r, guint32 *rank, guint32 *index)
{
  gboolean found = FALSE;
  SimTime best = 0;
  for (guint32 k = 0; k < wl_replay_ranks (r); k++)
    {
      const WlNodeRecord *rec = wl_replay_records (r, k);
      guint32 n = wl_replay_graph (r, k)->n_nodes;
      for (guint32 v = 0; v < n; v++)
        if (rec[v].end != SIM_TIME_MAX && (!found || rec[v].end > best
                                           || (rec[v].end == best && k == *rank)))
          {
            found = TRUE;
            best = rec[v].end;
            *rank = k;
            *index = v;
          }
    }
  return found;
}

GArray *
wl_critical_path (const WlReplay *r, guint64 rendezvous)
{
  GArray *path = g_array_new (FALSE, FALSE, sizeof (WlCritStep));
  guint32 rank = 0, index = 0;
  g_return_val_if_fail (r != NULL, path);
  if (wl_replay_ranks (r) == 0 || wl_replay_records (r, 0) == NULL || !last_node (r, &rank, &index))
    return path;
  SimTime bound = wl_replay_records (r, rank)[index].end;
  /* Each step moves to a node whose issue came earlier in the run, so the
   * walk ends; the guard only protects against inconsistent records. */
  guint64 guard = 0;
  for (guint32 k = 0; k < wl_replay_ranks (r); k++)
    guard += wl_replay_graph (r, k)->n_nodes;
  for (guint64 steps = 0; steps <= guard; steps++)
    {
      const WlNodeRecord *rec = &wl_replay_records (r, rank)[index];
      WlCritStep step = { .rank = rank, .index = index, .from = rec->start, .to = bound,
                          .waited_rank = WL_NO_NODE, .waited_index = WL_NO_NODE };
      guint32 prank, pindex;
      if (waited_for (r, rank, index, rendezvous, &prank, &pindex))
        {
          /* Its own time began when the last peer arrived; the path goes on
           * with what made that peer's node start. */
          step.from = wl_replay_records (r, prank)[pindex].start;
          step.waited_rank = prank;
          step.waited_index = pindex;
          g_array_append_val (path, step);
          rank = prank;
          index = pindex;
          rec = &wl_replay_records (r, rank)[index];
        }
      else
        g_array_append_val (path, step);
      bound = rec->start;
      if (rec->pred == WL_NO_NODE)
        break;
      index = rec->pred;
    }
  /* First step first. */
  for (guint i = 0, j = path->len ? path->len - 1 : 0; i < j; i++, j--)
    {
      WlCritStep t = g_array_index (path, WlCritStep, i);
      g_array_index (path, WlCritStep, i) = g_array_index (path, WlCritStep, j);
      g_array_index (path, WlCritStep, j) = t;
    }
  return path;
}
