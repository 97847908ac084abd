/* simulation.h: one simulation wired from a configuration and a workload.
 *
 * Models: the whole stack for one run: scheduler, topology, network, system
 * and replay, built in that order (each layer takes the one below), then run
 * until the event queue is empty, or until an event or simulated-time limit
 * (then the results cover what was simulated: ranks not finished keep the
 * figures of the nodes they finished).  A run that ends with ranks still holding
 * unfinished nodes has deadlocked: the error (SIM_ERROR_DEADLOCK) says which
 * ranks wait for what, and which collectives or messages never completed.
 *
 * Ownership: AppSim borrows the configuration; it owns every layer.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_SIMULATION_H
#define ORRERY_SIM_APP_SIMULATION_H

#include <glib.h>

#include "network/net.h"
#include "sim/app/config.h"
#include "sim/sched.h"
#include "system/sys.h"
#include "workload/replay.h"

typedef struct _AppSim AppSim;

/* Build every layer and load PREFIX.<rank>.et for each of the topology's
 * ranks, whole (no memory budget). */
AppSim *app_sim_new (const AppConfig *cfg, const char *workload_prefix, GError **error);

/* How app_sim_new_full loads the traces. */
typedef struct
{
  /* Bytes the traces' nodes may take (0: no limit): traces that need more
   * are streamed (wl_replay_set_memory_budget). */
  guint64 memory_budget;
  /* An option that needs every node in memory ("--timeline"), or NULL:
   * streaming is then refused with an input error naming it. */
  const char *needs_all_nodes;
  /* Stream with this window (nodes per rank) whatever the budget; 0: no
   * (tests). */
  guint32 stream_window;
  /* Threads that decode the trace files (wl_replay_set_load_threads); 0
   * or 1: the calling thread. */
  guint load_threads;
} AppSimLoad;

/* As app_sim_new, loading as LOAD says (NULL: as app_sim_new). */
AppSim *app_sim_new_full (const AppConfig *cfg, const char *workload_prefix,
                          const AppSimLoad *load, GError **error);

/* As app_sim_new, with the ranks' graphs given in memory (WlGraph*, one
 * per rank of the topology, in rank order; GRAPHS is referenced, not
 * copied) instead of read from files: what `orrery plan` simulates.  NAME
 * names the workload in messages and reports.  TOPO, when not NULL, is
 * CFG's topology built once (net_topo_new) and borrowed, for runs one after
 * another (a topology's only changes are memos of its routes). */
AppSim *app_sim_new_graphs (const AppConfig *cfg, const NetTopo *topo, const char *name,
                            GPtrArray *graphs, GError **error);

/* Whether the traces are streamed (they did not fit the memory budget). */
gboolean app_sim_streamed (const AppSim *sim);
void app_sim_free (AppSim *sim); /* accepts NULL */

/* Keep per-node records for timelines, the critical path and the report's
 * overview (wl_replay_set_recording).  Call before app_sim_run. */
void app_sim_set_recording (AppSim *sim, gboolean on);
/* Whether the run simulated every rank only because it kept per-node
 * records (app_sim_set_recording): symmetry was allowed, the whole-world
 * shortcut did not apply and symmetry classes were not tried. */
gboolean app_sim_records_kept_classes_off (const AppSim *sim);

/* Keep each completed collective for the JSON report's
 * collective_instances (sys_set_coll_records; default on).  The planner
 * turns it off: it reads none of them. */
void app_sim_set_coll_records (AppSim *sim, gboolean on);

/* What the outputs written after the run allocate besides the node
 * records, in bytes per trace node of every rank (the critical path's
 * steps, the timeline's lanes: app_report_node_bytes,
 * app_timeline_node_bytes); 0 by default.  With recording on, app_sim_run
 * counts it with the records, before simulating: against the memory budget
 * (with the traces held, wl_replay_held_bytes), and by trying to allocate
 * it.  Call before app_sim_run. */
void app_sim_set_output_memory (AppSim *sim, guint bytes_per_node);

/* Print a progress line on stderr (simulated time, events/s, ranks
 * finished), redrawn in place, once the run has taken AFTER_US of wall
 * time (app_progress_after; negative: never); the line is erased at the
 * end.  For interactive terminals. */
void app_sim_set_progress (AppSim *sim, gint64 after_us);

/* The wall time after which `run` and `plan` draw their progress line on a
 * terminal: ORRERY_PROGRESS_AFTER (a time with its unit, e.g. 0s or 5s)
 * when set, else one second.  FALSE with ERROR when it does not parse. */
gboolean app_progress_after (gint64 *us, GError **error);

/* Allow the symmetric shortcut (on by default): when every rank runs the
 * same trace and every collective treats members alike
 * (wl_replay_symmetric), rank 0 is simulated for all, with the same
 * results as simulating each rank. */
void app_sim_set_symmetry (AppSim *sim, gboolean allow);
/* Turn the shortcut off for a reason other than --symmetry off: WHY (a
 * static string, e.g. what an output needs) is what
 * app_sim_not_symmetric says. */
void app_sim_refuse_symmetry (AppSim *sim, const char *why);
/* Whether the summary explains the symmetry classes (--symmetry explain):
 * how they came to be as many as they are (wl_replay_classes_why), or why
 * none were used.  Default off. */
void app_sim_set_explain_symmetry (AppSim *sim, gboolean on);
gboolean app_sim_explains_symmetry (const AppSim *sim);
/* After the run: whether the shortcut was taken; when it was not, why (a
 * static string: "--symmetry off", "the ranks' traces differ", "the traces
 * are streamed (they do not fit the memory budget)", ...; NULL before the
 * run). */
gboolean app_sim_symmetric (const AppSim *sim);
const char *app_sim_not_symmetric (const AppSim *sim);
/* Why symmetry classes were tried and the run redone over every rank
 * (static), or NULL: the classes' run may not be exact when messages of
 * two ranks meet at a shared port at once (net_alias_ties), and one that
 * fails is redone for the every-rank diagnostics. */
const char *app_sim_classes_dropped (const AppSim *sim);

/* Stop the run after `max_events` events (0: no limit), or once every event
 * at or before `max_sim_time` has run (SIM_TIME_MAX: no limit).  A limit the
 * run does not reach changes nothing; one it reaches leaves the results of
 * what was simulated (app_sim_stopped).  Call before app_sim_run. */
void app_sim_set_limits (AppSim *sim, guint64 max_events, SimTime max_sim_time);

typedef enum
{
  APP_SIM_COMPLETE,        /* every rank finished (or the run has not ended) */
  APP_SIM_STOPPED_EVENTS,  /* stopped at the event limit */
  APP_SIM_STOPPED_TIME     /* stopped at the simulated-time limit */
} AppSimStop;

/* After app_sim_run: whether a limit stopped it; "max-events" or
 * "max-sim-time" for the report (NULL when complete). */
AppSimStop app_sim_stopped (const AppSim *sim);
const char *app_sim_stopped_name (const AppSim *sim);
/* The limits set (0 / SIM_TIME_MAX: none). */
guint64 app_sim_max_events (const AppSim *sim);
SimTime app_sim_max_sim_time (const AppSim *sim);
/* Ranks whose every node finished. */
guint32 app_sim_ranks_finished (const AppSim *sim);

/* Run to the end, or to a limit (app_sim_set_limits): TRUE then, with
 * app_sim_stopped saying which.  FALSE with an error on bad input met during
 * the run; on deadlock (SIM_ERROR_DEADLOCK, with the diagnosis as the
 * message); on a clock overflow (SIM_ERROR_LIMIT: an event fell due at or
 * past 2^64 ps, the times having saturated, with what each rank was doing);
 * or when the node records (recording) and the outputs' memory
 * (app_sim_set_output_memory) cannot be allocated (SIM_ERROR_INPUT, "out of
 * memory allocating N bytes for ...") or, with the traces, pass the memory
 * budget (SIM_ERROR_INPUT, naming the bytes), which is checked before
 * simulating.  With streamed traces: recording is an input error (it needs
 * every node), a window too small to stream a trace exactly stops the run
 * with an input error naming the node (stream.h), and a run that ends with
 * a rank whose window is full and whose trace is not read to the end is an
 * input error rather than a deadlock (wl_replay_check_windows). */
gboolean app_sim_run (AppSim *sim, GError **error);

SimSched *app_sim_sched (const AppSim *sim);
const NetTopo *app_sim_topo (const AppSim *sim);
Net *app_sim_net (const AppSim *sim);
Sys *app_sim_sys (const AppSim *sim);
WlReplay *app_sim_replay (const AppSim *sim);
const AppConfig *app_sim_config (const AppSim *sim);
const char *app_sim_workload (const AppSim *sim);
/* The latest finish time over all ranks. */
SimTime app_sim_end_time (const AppSim *sim);
/* Wall-clock seconds spent in app_sim_run. */
double app_sim_wall_seconds (const AppSim *sim);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AppSim, app_sim_free)

#endif /* ORRERY_SIM_APP_SIMULATION_H */
