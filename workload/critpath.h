/* critpath.h: the critical path of a recorded run.
 *
 * Models: the chain of nodes, across ranks and through messages and
 * collectives, that determines when the last node finishes.  Walking back
 * from the node that finished last: a node's time is its own, unless it
 * waited for another rank (a collective whose last member joined after this
 * rank did, a receive whose data arrived after it was posted, a rendezvous
 * send whose receive was posted later): then the step runs from that
 * arrival (for a receive: from the send's start, the message being in
 * flight since) and the path continues on the rank that arrived last.  Otherwise the
 * path continues with the node whose completion issued this one (its last
 * dependency, or the node that freed its execution slot).  The steps tile
 * [0, end]: their contributions sum to the finish time.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_CRITPATH_H
#define ORRERY_WORKLOAD_CRITPATH_H

#include <glib.h>

#include "workload/replay.h"

typedef struct
{
  guint32 rank, index;   /* the node: index into wl_replay_graph (rank)->nodes */
  SimTime from, to;      /* the part of the path it accounts for: to - from */
  /* WL_NO_NODE, or the node on another rank (or the collective's last
   * member) whose arrival at `from` this step waited for. */
  guint32 waited_rank, waited_index;
} WlCritStep;

/* A critical path: its steps, first first. */
typedef struct
{
  guint len;
  WlCritStep *steps;
} WlCritPath;

void wl_crit_path_free (WlCritPath *path); /* accepts NULL */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlCritPath, wl_crit_path_free)

/* The critical path of a finished, recorded run, first step first (no
 * steps when no node ran).  Sends of at least `rendezvous_threshold` bytes
 * wait for their receive (sys_params: rendezvous_threshold).  NULL with
 * ERROR set ("out of memory allocating N x S bytes for the critical path's
 * steps", SIM_ERROR_INPUT) when the steps cannot be allocated: at most one
 * WlCritStep per node of every rank, which a caller may try up front.  The
 * path is the caller's: wl_crit_path_free. */
WlCritPath *wl_critical_path (const WlReplay *replay, guint64 rendezvous_threshold,
                              GError **error);

#endif /* ORRERY_WORKLOAD_CRITPATH_H */
