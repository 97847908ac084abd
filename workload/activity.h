/* activity.h: what a rank was doing over time, in bins, from its records.
 *
 * Models: [0, end) cut into `bins` equal bins (bin i covers
 * [end * i / bins, end * (i + 1) / bins) in whole ps); per bin, the fraction of it with accelerator
 * compute in flight, and the fraction with communication (a collective,
 * send or receive) in flight but no compute: the same split as
 * WlRankStats' compute_busy and exposed_comm, so that the bins of a rank
 * sum, weighted by their widths, to those figures; and the part of the
 * latter that is the pipeline's bubble (WlRankStats.pipeline_bubble).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_ACTIVITY_H
#define ORRERY_WORKLOAD_ACTIVITY_H

#include <glib.h>

#include "workload/replay.h"

/* Fill compute[bins] and exposed_comm[bins] with fractions in [0, 1] for
 * `rank` of a recorded run, and bubble[bins] (may be NULL) with the part
 * of exposed_comm that is the pipeline's bubble: a receive from another
 * rank in flight and no exchange's receive, as WlRankStats.pipeline_bubble
 * counts it.  FALSE when recording was off or end is 0
 * (ERROR unset), or when its working memory (wl_activity_node_bytes per
 * node of the rank) cannot be allocated (ERROR set: "out of memory
 * allocating N x S bytes for a rank's activity over time", SIM_ERROR_INPUT). */
gboolean wl_activity_bins (const WlReplay *replay, guint32 rank, SimTime end, guint bins,
                           double *compute, double *exposed_comm, double *bubble,
                           GError **error);

/* The working memory of wl_activity_bins, in bytes per node of the rank. */
guint wl_activity_node_bytes (void);

#endif /* ORRERY_WORKLOAD_ACTIVITY_H */
