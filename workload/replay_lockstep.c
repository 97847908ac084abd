/* replay_lockstep.c: the lock-step shortcut: when every rank's trace and
 * speed are the same and every collective runs on the world alike, rank 0
 * is replayed for all (wl_replay_symmetric, replay.h); in its own file to
 * keep the replay core (replay.c) about issuing and completing nodes. */
#include "workload/replay.h"

#include "workload/replay_private.h"

/* Same node (type, sizes, times, peers, groups, dependency counts); ids may
 * differ (they only name nodes).  Collectives are compared by the system
 * group they run on, not by the trace's name for it. */
static gboolean
same_node (const WlNode *x, const WlNode *y)
{
  gboolean coll = x->op == WL_OP_COLL;
  if (coll ? x->sys_group_index != y->sys_group_index : x->group != y->group)
    return FALSE;
  return x->duration_ps == y->duration_ps && x->num_ops == y->num_ops && x->bytes == y->bytes
         && x->child_start == y->child_start && x->n_children == y->n_children
         && x->n_parents == y->n_parents && x->peer_src == y->peer_src
         && x->peer_dst == y->peer_dst && x->tag == y->tag && x->priority == y->priority
         && x->involved == y->involved && x->root == y->root && x->op == y->op
         && x->coll_kind == y->coll_kind && x->comm_stream == y->comm_stream
         && x->comp_flags == y->comp_flags;
}

/* Same nodes and dependencies. */
static gboolean
same_graph (const WlGraph *a, const WlGraph *b)
{
  return wl_graphs_alike (a, b, same_node);
}

gboolean
wl_replay_symmetric (const WlReplay *r, const char **why)
{
  /* The shortcut compares every rank's whole graph, and keeps rank 0's
   * node states for all. */
  if (r->window > 0)
    return (*why = "the traces are streamed (they do not fit the memory budget)", FALSE);
  /* Files may differ in what replay ignores (node names, attribute order):
   * the decoded graphs must be the same. */
  const WlGraph *g0 = r->graphs->pdata[0];
  for (guint i = 1; i < r->graphs->len; i++)
    if (!same_graph (g0, r->graphs->pdata[i]))
      return (*why = "the ranks' traces differ", FALSE);
  for (guint32 i = 1; i < r->n_ranks; i++)
    if (wl_params_rank_speed (&r->params, i) != wl_params_rank_speed (&r->params, 0))
      return (*why = "ranks compute at different speeds", FALSE);
  guint32 hint = 0;
  WlNode tmp;
  for (guint32 v = 0; v < g0->n_nodes; v++)
    {
      const WlNode *n = wl_graph_node_at (g0, v, &hint, &tmp);
      if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
        return (*why = "point-to-point messages", FALSE);
      if (n->op != WL_OP_COLL
          || (n->coll_kind == SYS_COLL_BROADCAST && r->params.timing.broadcast_as_delay))
        continue;
      if (wl_replay_node_group (r, n) != SYS_GROUP_WORLD)
        return (*why = "collectives on process groups", FALSE);
      if (!sys_symmetric (r->sys, (SysCollKind) n->coll_kind, n->involved, why))
        return FALSE;
    }
  return TRUE;
}

void
wl_replay_set_lockstep (WlReplay *r, gboolean on)
{
  r->lockstep = on;
  sys_set_lockstep (r->sys, on);
}

gboolean
wl_replay_lockstep (const WlReplay *r)
{
  return r->lockstep;
}

void
wl_replay_lockstep_finish (WlReplay *r)
{
  g_return_if_fail (r->lockstep);
  WlNodeSource *src0 = r->ranks[0].src;
  for (guint32 i = 1; i < r->n_ranks; i++)
    {
      WlNodeSource *src = r->ranks[i].src;
      r->ranks[i].stats = r->ranks[0].stats;
      r->ranks[i].rec = r->ranks[0].rec;
      for (guint32 v = 0; v < src0->n_nodes; v++)
        *src->klass->state (src, v) = *src0->klass->state (src0, v);
    }
}
