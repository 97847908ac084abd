/* timeline.h: a run as a Chrome trace-event JSON file (Perfetto,
 * chrome://tracing).
 *
 * Models: one process per rank, with threads for accelerator compute,
 * communication, host CPU work and other nodes (memory operations, skipped
 * nodes); a thread gets extra lanes ("communication #2") where its nodes
 * overlap, so that slices nest.  Every node that ran is one complete event
 * ("ph":"X", times in microseconds with picosecond decimals) named after
 * the node, whose args carry the node id, Chakra type, bytes, process group
 * and algorithm.  Point-to-point messages are flow arrows from the send to the
 * receive.  Filters keep large runs small: a rank list ("0-7,64") and a time
 * window ("10ms-20ms": nodes overlapping it are kept whole).  A name ending
 * in ".gz" is written gzip-compressed.  The output is a pure function of the
 * run: byte-identical across runs.
 *
 * Needs the replay's per-node records (wl_replay_set_recording).
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_TIMELINE_H
#define ORRERY_SIM_APP_TIMELINE_H

#include <glib.h>

#include "sim/app/simulation.h"

/* Check a --timeline-ranks / --timeline-window value before a run; NULL
 * means "all". */
gboolean app_timeline_check_filters (const char *ranks, const char *window, GError **error);

/* Write the timeline of a finished run to `path`.  `ranks` and `window` are
 * the filters (NULL: all ranks, the whole run); a rank beyond the run's is an
 * input error. */
/* What app_timeline_write allocates per trace node of every rank (each
 * node's lane, and the spans of the rank being laid out); for
 * app_sim_set_output_memory. */
guint app_timeline_node_bytes (void);

gboolean app_timeline_write (const AppSim *sim, const char *path, const char *ranks,
                             const char *window, GError **error);

#endif /* ORRERY_SIM_APP_TIMELINE_H */
