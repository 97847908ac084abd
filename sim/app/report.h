/* report.h: what a finished simulation tells people and programs.
 *
 * Models: the human summary on stdout (simulated time; per-rank finish,
 * compute, exposed communication, idle and waiting time as min/median/max;
 * per collective kind and group: count, bytes, times, algorithms and
 * nccl-tests' algorithm and bus bandwidth; units on every number),
 * ASTRA-sim's per-rank "finished" lines, the critical path, and the
 * machine-readable JSON report (schema_version 3, documented in the
 * README).  Everything here is a pure function of the simulation's results:
 * two runs of the same inputs give byte-identical reports.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_REPORT_H
#define ORRERY_SIM_APP_REPORT_H

#include <glib.h>
#include <stdio.h>

#include "sim/app/simulation.h"

/* `sys[R] finished, T cycles, exposed communication E cycles.` per rank,
 * in nanoseconds, as ASTRA-sim prints them. */
void app_report_astra_lines (const AppSim *sim, FILE *out);

void app_report_summary (const AppSim *sim, FILE *out);

/* The `top` longest steps of the critical path, with the path's length and
 * its time by kind of node (needs recording): FALSE with ERROR set, and
 * nothing printed, when its steps cannot be allocated. */
gboolean app_report_critical_path (const AppSim *sim, guint top, FILE *out, GError **error);

/* What the report and the critical path may allocate after the run, per
 * trace node of every rank: the path's steps (it visits each node at most
 * once), the overview's working memory (wl_activity_node_bytes), and with
 * SORTED (app_report_critical_path) the steps' order by contribution; for
 * app_sim_set_output_memory. */
guint app_report_node_bytes (gboolean sorted);

/* The build the reports name (inputs.orrery_version): the program sets
 * its git describe once at start; "unknown" until then (tests in
 * process).  VERSION is borrowed for the process. */
void app_report_set_version (const char *version);

/* Write the JSON report to `path`: FALSE with ERROR set when it cannot be
 * written, or its critical path cannot be allocated. */
gboolean app_report_json (const AppSim *sim, const char *path, GError **error);

/* Write one CSV row per rank, times in exact picoseconds:
 * rank,finish_ps,compute_ps,exposed_comm_ps,idle_ps,after_finish_ps,
 * comm_busy_ps,cpu_ps,nodes
 * and in native runs ,pipeline_bubble_ps,model_flops,hardware_flops (the
 * part of exposed_comm waiting on a receive: report_perf.h; the num_ops of
 * the rank's COMP nodes not marked is_recompute, and of all of them)
 * Over [0, finish]: compute = accelerator compute in flight; exposed_comm =
 * communication in flight without compute; idle = neither (compute +
 * exposed_comm + idle = finish).  after_finish = simulated time - finish;
 * comm_busy = time with any collective, send or receive in flight; cpu =
 * host compute time, summed. */
gboolean app_report_stats (const AppSim *sim, const char *path, GError **error);

/* A rank's idle time: finish - compute - exposed communication, 0 when a
 * limit stopped it with work in flight (the summary and the CSV). */
SimTime app_rank_idle (const WlRankStats *s);

/* Write one CSV row per directed link (link models with links only):
 * link,dim,from,to,bytes,messages,busy_ns,utilization,peak_queue
 * utilization being busy time over the simulated time. */
gboolean app_report_links (const AppSim *sim, const char *path, GError **error);

#endif /* ORRERY_SIM_APP_REPORT_H */
