/* replay.h: replaying every rank's trace graph through the system layer.
 *
 * Models: each rank issues its ready nodes (all dependencies finished) in the
 * order they became ready, subject to its execution slots: at most
 * slots_comp accelerator compute nodes, slots_cpu host nodes and slots_comm
 * communication nodes (collectives and sends) at once; receives, memory
 * operations and skipped nodes take no slot.  COMP time comes from the
 * compute model (wl_params.h), collectives and messages from the system
 * layer.  Finishing a node releases its dependents.
 *
 * Per rank it accounts: the finish time (last node done), accelerator compute
 * time, and exposed communication = finish - compute (ASTRA-sim's figure).
 *
 * Ownership: WlReplay borrows the scheduler, system layer and params; it
 * owns the graphs (shared between byte-identical files).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_H
#define ORRERY_WORKLOAD_REPLAY_H

#include <glib.h>

#include "sim/sched.h"
#include "system/sys.h"
#include "workload/groups.h"
#include "workload/wl_params.h"

typedef struct _WlReplay WlReplay;

typedef struct
{
  SimTime finish;      /* when its last node finished (0 if it had none) */
  SimTime compute;     /* accelerator compute time, summed */
  SimTime cpu;         /* host compute time, summed */
  SimTime comm_busy;   /* time with at least one collective or send in flight */
  guint32 nodes;       /* nodes in its trace */
  guint32 nodes_done;
} WlRankStats;

WlReplay *wl_replay_new (SimSched *sched, Sys *sys, const WlParams *params);
void wl_replay_free (WlReplay *replay); /* accepts NULL */

/* Load PREFIX.0.et .. PREFIX.(ranks-1).et.  Fails when one is missing or
 * unreadable, or when PREFIX.<ranks>.et exists too (the trace was made for
 * more ranks than the topology has). */
gboolean wl_replay_load (WlReplay *replay, const char *prefix, guint32 ranks, GError **error);

/* Load one graph per rank from explicit paths (tests, generators). */
gboolean wl_replay_load_files (WlReplay *replay, const char *const *paths, guint32 ranks,
                               GError **error);

/* Register with the system layer every group that `groups` (may be NULL) or
 * the traces' METADATA nodes define; a definition in `groups` wins.  Checks
 * that every collective names a defined group, "0" or none. */
gboolean wl_replay_bind_groups (WlReplay *replay, const WlGroups *groups, GError **error);

/* Schedule every rank's first nodes at time 0. */
void wl_replay_start (WlReplay *replay);

/* After the run: FALSE with the first error raised inside an event. */
gboolean wl_replay_ok (const WlReplay *replay, GError **error);

/* Ranks with unfinished nodes after the run. */
guint32 wl_replay_unfinished (const WlReplay *replay);

/* One line per blocked rank (at most `max_ranks`): what it waits for. */
void wl_replay_describe_blocked (const WlReplay *replay, GString *out, guint max_ranks);

guint32 wl_replay_ranks (const WlReplay *replay);
const WlRankStats *wl_replay_rank_stats (const WlReplay *replay, guint32 rank);
guint wl_replay_distinct_graphs (const WlReplay *replay);
/* Nodes of types orrery does not know, skipped, over all distinct graphs. */
guint64 wl_replay_unknown_nodes (const WlReplay *replay);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlReplay, wl_replay_free)

#endif /* ORRERY_WORKLOAD_REPLAY_H */
