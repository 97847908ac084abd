/* cmd_plan.h: `orrery plan`: the best parallel configuration of a
 * transformer on a cluster, searched, simulated and explained.
 *
 * What it models: the options (the model as `gen transformer` takes it,
 * the GPUs, the global batch, the cluster, the search space), the checks on
 * them, and the outputs: the top K table on stdout, the counts by status
 * and reason, DIR/plan.csv of every candidate, and --explain's critical
 * path.  The search itself: plan_space.h (enumeration, pruning) and
 * plan_run.h (bounds, simulations, workers).  Exit status as in cli.h.
 * Ownership: argv is borrowed (GLib's option parser may reorder it).
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_CMD_PLAN_H
#define ORRERY_SIM_APP_CMD_PLAN_H

/* `orrery plan ...` with argv[0] "plan": the exit status. */
int app_cmd_plan (int argc, char **argv);

#endif /* ORRERY_SIM_APP_CMD_PLAN_H */
