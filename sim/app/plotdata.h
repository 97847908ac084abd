/* plotdata.h: a run's JSON report turned into data files for gnuplot
 * (scripts/plot draws them).
 *
 * Models: where each rank's time went, read back from the report
 * (schema_version 1 to 3), and the report's optional "overview": per rank
 * and per equal time bin, the fraction of the bin spent computing, the
 * fraction with communication in flight and no compute, and (native runs)
 * the part of the latter in the pipeline bubble.  Nothing is
 * simulated here; the report is the only input, so that a plot can be
 * redrawn from an archived report without rerunning.
 *
 * Files written into out_dir (whitespace-separated, '#' comment lines,
 * times in milliseconds printed exactly from the report's picoseconds with
 * nine decimals, independent of the locale; the same report always gives
 * byte-identical files):
 *
 *   ranks.dat     one line per rank:
 *                 rank compute_ms exposed_comm_ms idle_ms after_finish_ms
 *                 pipeline_bubble_ms (the first four add up to the
 *                 simulated time less the bubble: exposed_comm_ms is the
 *                 report's exposed_comm_ps less its pipeline_bubble_ps, 0
 *                 where it has none).  A schema 1
 *                 report has no idle time: idle is 0 and after_finish is
 *                 simulated_time - finish.
 *   overview.dat  only when the report has an overview (a stale one is
 *                 removed otherwise): one line per (rank, bin),
 *                 time_ms rank compute comm idle bubble
 *                 with time_ms the middle of the bin (rounded down to the
 *                 ps), and a blank line after each rank, the grid that
 *                 gnuplot's "with image" reads.  compute, comm (exposed
 *                 communication: in flight with no compute) and idle (the
 *                 rest, finished included) are the bin's shares, with six
 *                 decimals: compute and comm rounded to the millionth
 *                 (comm trimmed where the two round up past 1), idle
 *                 1 - compute - comm, so the three add up to exactly 1.
 *                 bubble, the overview's part of comm in the pipeline
 *                 bubble (0 where it gives none), is then taken out of
 *                 comm, as ranks.dat does, so the four add up to 1.
 *   meta.gp       gnuplot assignments (also easy to read from a shell):
 *                 schema_version, simulated_ms, ranks, overview (0 or 1),
 *                 bubble (1 when some bin of the overview has a pipeline
 *                 bubble: scripts/plot draws its panel then), bins,
 *                 bin_ms.
 *
 * Validation: schema_version must be 1 to 3; ranks[i].rank must be i; a
 * schema 2 or 3 rank must satisfy compute + exposed_comm + idle = finish and
 * finish + after_finish = simulated_time; overview arrays hold one number
 * in [0, 1] per bin, compute + comm at most 1 and bubble at most comm in
 * each bin, and one entry
 * per rank in rank order.  Every error
 * (domain SIM_ERROR, code SIM_ERROR_INPUT) names the file and the member
 * ("r.json: missing member \"ranks[1].idle_ps\""); nothing is written
 * unless the whole report is valid.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLOTDATA_H
#define ORRERY_SIM_APP_PLOTDATA_H

#include <glib.h>

/* Read the report at report_path and write the files above into out_dir
 * (created, with its parents, when missing).  Both paths are borrowed. */
gboolean app_plot_data (const char *report_path, const char *out_dir, GError **error);

#endif /* ORRERY_SIM_APP_PLOTDATA_H */
