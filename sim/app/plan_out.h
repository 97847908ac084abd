/* plan_out.h: what both planners (`orrery plan`: plan.csv; `orrery plan
 * --dlrm`: plan.txt and plan.csv) say and write alike: the --out folder,
 * made and checked before any simulation, so that a wrong --out costs no
 * search and no output ever replaces one of the run's inputs; and the
 * header's note on a --device that does not price the compute.
 *
 * Models: a folder DIR, made with its parents when missing, that takes a
 * new file (a probe, created and removed), and whose output files DIR/NAME
 * are none of the input files (--config, --tables: the same regular file
 * once links are followed, as sim_out_file_is tells).
 *
 * Ownership: every argument is borrowed.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_OUT_H
#define ORRERY_SIM_APP_PLAN_OUT_H

#include <glib.h>

#include "workload/compute.h"
#include "workload/wl_params.h"

/* One input of a planner: its option ("--tables") and its path (NULL when
 * the option was not given). */
typedef struct
{
  const char *option, *path;
} PlanOutInput;

/* Check that DIR (made with its parents for the check when missing) takes
 * a file, and that none of the N_NAMES files DIR/NAMES[i] is one of the
 * N_INS inputs INS.  The folders the check made are removed again, so
 * that a search that fails or dies (a signal) leaves nothing behind:
 * plan_out_make makes them when the outputs are written.  FALSE with
 * ERROR set (SIM_ERROR_INPUT, the message starting "--out") at the first
 * that fails. */
gboolean plan_out_prepare (const char *dir, const char *const *names, guint n_names,
                           const PlanOutInput *ins, guint n_ins, GError **error);

/* Make DIR with its parents, before the outputs are written; *MADE (a new
 * string, or NULL when DIR was there) the outermost folder made, for
 * plan_out_unmake.  FALSE with ERROR set ("--out DIR: ...") when it cannot
 * be made. */
gboolean plan_out_make (const char *dir, char **made, GError **error);

/* After a failed write into DIR: remove the folders plan_out_make made
 * (MADE, NULL for none), those that are still empty. */
void plan_out_unmake (const char *dir, const char *made);

/* Whether DIR holds a planner's plan.csv (a regular file, its header a
 * planner's): ask before writing the new one, for plan_out_remove_stale. */
gboolean plan_out_held_plan (const char *dir);

/* After a planner wrote DIR/plan.csv (and DIR/plan.txt when WROTE_TXT)
 * over an earlier plan's (HELD_PLAN, plan_out_held_plan before the
 * write): remove what the earlier plan left in DIR under the names the
 * planners own and this one did not write, so that no stale file sits
 * beside the new plan.csv: plan.txt (plan --dlrm's, only when it starts
 * as plan --dlrm writes it) and the plot scripts/plot draws of
 * DIR/plan.csv by default, plan-time-memory.png, .svg, .pdf and .dat.
 * Nothing when DIR held no plan: files of those names there are the
 * user's (an input of the plan, even).  Each removed is said on stdout;
 * no other file is touched. */
void plan_out_remove_stale (const char *dir, gboolean wrote_txt, gboolean held_plan);

/* Print on stdout, after a planner's header line, the note that --device
 * DEVICE (NULL when not given) sets SETS ("the memory limit") only, the
 * compute being priced by the cluster's <compute> (WL): kernels priced as
 * its device, or its peak and bandwidth.  Nothing when DEVICE is NULL, is
 * the cluster's device (names compared ignoring case, as the presets are
 * looked up) or the compute is replayed from the traces. */
void plan_out_device_note (const char *device, const char *sets, const WlParams *wl);

/* "note: ..." on stdout where WL replays the traces' durations: gen wrote
 * each compute node's time as DEV's roofline (its bf16 peak x matrix
 * efficiency, its memory bandwidth x memory efficiency), not the kernel
 * model's, and the header should say so.  Nothing for other models. */
void plan_out_replay_note (const WlDevice *dev, const WlParams *wl);

#endif /* ORRERY_SIM_APP_PLAN_OUT_H */
