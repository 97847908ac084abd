/* critpath.c: walking a recorded run back from its last node. */
#include "workload/critpath.h"

#include "sim/error.h"

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

/* Walk the path back from the last node: its steps, last first, into
 * STEPS when not NULL; the number of steps.  Each step moves to a node
 * whose issue came earlier in the run, so the walk ends; GUARD (the nodes
 * of every rank) only protects against inconsistent records. */
static guint64
walk_back (const WlReplay *r, guint64 rendezvous, guint32 rank, guint32 index, guint64 guard,
           WlCritStep *steps)
{
  SimTime bound = wl_replay_records (r, rank)[index].end;
  guint64 n = 0;
  while (n <= guard)
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
          rank = prank;
          index = pindex;
          rec = &wl_replay_records (r, rank)[index];
        }
      if (steps != NULL)
        steps[n] = step;
      n++;
      bound = rec->start;
      if (rec->pred == WL_NO_NODE)
        break;
      index = rec->pred;
    }
  return n;
}

void
wl_crit_path_free (WlCritPath *path)
{
  if (path == NULL)
    return;
  g_free (path->steps);
  g_free (path);
}

WlCritPath *
wl_critical_path (const WlReplay *r, guint64 rendezvous, GError **error)
{
  guint32 rank = 0, index = 0;
  g_return_val_if_fail (r != NULL, NULL);
  WlCritPath *path = g_new0 (WlCritPath, 1);
  if (wl_replay_ranks (r) == 0 || wl_replay_records (r, 0) == NULL || !last_node (r, &rank, &index))
    return path;
  guint64 guard = 0;
  for (guint32 k = 0; k < wl_replay_ranks (r); k++)
    guard += wl_replay_graph (r, k)->n_nodes;
  /* Counted first, so that the steps are allocated once, at their size,
   * and tried: a path too long for memory is an error, not an abort. */
  guint64 n = walk_back (r, rendezvous, rank, index, guard, NULL);
  path->steps = n <= G_MAXUINT ? sim_try_alloc (n, sizeof (WlCritStep), FALSE,
                                                "the critical path's steps", error)
                               : NULL;
  if (path->steps == NULL)
    {
      if (n > G_MAXUINT)
        sim_alloc_error (n, sizeof (WlCritStep), "the critical path's steps", error);
      wl_crit_path_free (path);
      return NULL;
    }
  path->len = (guint) n;
  walk_back (r, rendezvous, rank, index, guard, path->steps);
  /* First step first. */
  for (guint i = 0, j = path->len ? path->len - 1 : 0; i < j; i++, j--)
    {
      WlCritStep t = path->steps[i];
      path->steps[i] = path->steps[j];
      path->steps[j] = t;
    }
  return path;
}
