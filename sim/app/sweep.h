/* sweep.h: parameter sweeps: a spec expanded into points, each point run as
 * a child `orrery run`, the results gathered into one CSV.
 *
 * Models: a sweep spec (XML, configs/sweep.rng, compiled into the binary)
 * names a base configuration (a native cluster XML, or ASTRA-sim inputs), a
 * workload (a trace prefix, or an `orrery gen` command line) and a grid of
 * parameters.  The points are the product of the grid's axes in document
 * order, the first varying slowest (row-major); an axis is one <param> or a
 * <zip> of params whose value lists advance together.  A param reaches a
 * point through its select (an XPath 1.0 expression whose matches in the
 * base cluster XML take the value) and through {name} placeholders in the
 * <astra> paths, the workload prefix, <generate> and <run-options>.  Values
 * are strings, passed as written (units included) to orrery's own parsers.
 *
 * The sweep directory OUTDIR (every path written into it is absolute, so
 * that points run from any working directory):
 *
 *   spec.xml      a byte copy of the spec; a later expand must match it
 *   points.tsv    header "point" then the param names; one row per point
 *   points/ID/    ID = 0, 1, ... zero-padded to the number of digits of the
 *                 point count, in row-major order:
 *     config.xml  native configs: the base with this point's values
 *     args        the `orrery run` arguments, one per line
 *     gen-args    with <generate>: the `orrery gen` arguments, one per line,
 *                 ending with --out OUTDIR/points/ID/workload/w
 *     params.tsv  header "point" then the param names, and this point's row
 *   written by a run:
 *     stdout, stderr  the children's output (generator first)
 *     status      the exit status; on failure a second line, the failing
 *                 child's error: the last line of its stderr that starts
 *                 with "orrery " (a cluster XML error is followed by the
 *                 validator's details), else its last line
 *     wall_s      the simulation's wall time in seconds
 *     report.json, stats.csv  from `orrery run`
 *     workload/   generated traces
 *     done        written last, only on success (done.tmp, then renamed)
 *   sweep.csv     from gather
 *
 * Spec errors (schema violations, unknown placeholders, unused or duplicate
 * params, zip lists of different lengths, a select that matches nothing,
 * more than APP_SWEEP_MAX_POINTS points) name FILE:LINE.  A point whose
 * config turns out invalid fails when it runs; the sweep does not.
 *
 * Ownership: paths are borrowed; results are the caller's.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_SWEEP_H
#define ORRERY_SIM_APP_SWEEP_H

#include <glib.h>

#define APP_SWEEP_MAX_POINTS 1000000

/* Validate the spec at spec_path and expand it into outdir (created with
 * its parents).  Into an outdir expanded before from a byte-identical spec,
 * only the missing points are written (existing point directories and their
 * results are left alone); from any other spec, or into a non-empty
 * directory that is not a sweep, it is an error.  Nothing is written unless
 * the whole spec is valid.  *n_points: the number of points. */
gboolean app_sweep_expand (const char *spec_path, const char *outdir, guint64 *n_points,
                           GError **error);

/* The ids of outdir's points, in order (from points.tsv), NULL-terminated;
 * g_strfreev it. */
char **app_sweep_points (const char *outdir, GError **error);

/* What app_sweep_run_point did. */
typedef struct
{
  gboolean done_already; /* `done` was there: nothing ran */
  int exit_status;       /* 0 on success, else the failing child's status
                          * (128 + signal when killed) */
  char *message;         /* on failure, its error line (see status); g_free it */
  double wall_s;         /* the simulation's wall time */
} AppSweepRun;

/* Run point `id` of outdir: nothing when its `done` exists; else the
 * generator (with gen-args), then the simulation, both as children of
 * `self` (this program's path, from app_sweep_self_path), writing the files
 * listed above.  FALSE (error set) when the point does not exist or a child
 * cannot be started; TRUE when the point ran, with its outcome in *run. */
gboolean app_sweep_run_point (const char *outdir, const char *id, const char *self,
                              AppSweepRun *run, GError **error);

/* This program's path: /proc/self/exe, else argv0 resolved (through PATH
 * when it has no slash).  NULL when neither works. */
char *app_sweep_self_path (const char *argv0);

/* Write outdir/sweep.csv: header
 * point,<param names>,status,simulated_time_ns,compute_ns,exposed_comm_ns,
 * pipeline_bubble_ns,busbw_GBps,wall_s,error
 * and one row per point in id order; status ok (figures from report.json:
 * compute, exposed communication less the pipeline bubble, and the bubble
 * (empty where the report gives none) as the mean over ranks, rounded down;
 * busbw the largest over the collectives, empty when none), failed (error
 * "exit N: message") or pending.  Fields are quoted per RFC 4180 where
 * needed.  *csv_path: the file written. */
gboolean app_sweep_gather (const char *outdir, char **csv_path, GError **error);

/* `orrery sweep SUBCOMMAND ...` (argv[0] is "sweep"): expand, run, gather,
 * points.  Prints errors as one line on stderr; returns the exit status. */
int app_sweep_main (int argc, char **argv, const char *argv0);

/* Write LEN bytes of TEXT (-1: up to its NUL) as DIR/NAME, replacing it
 * atomically: FALSE with an input error carrying GLib's message (which
 * names the file) when it cannot be written.  For the files of a sweep
 * directory, written by expand, run and gather alike. */
gboolean app_sweep_write_file (const char *dir, const char *name, const char *text, gssize len,
                               GError **error);

#endif /* ORRERY_SIM_APP_SWEEP_H */
