/* cmd_gen.h: the subcommands that write trace sets rather than simulate
 * them: `orrery gen collective`, `orrery gen transformer` and `orrery
 * rescale`.
 *
 * What it models: option parsing and checking for the workload generators
 * (workload/gen.h, workload/gen_transformer.h, workload/rescale.h); sizes
 * take units (64KiB), counts are whole numbers.  Exit status as in cli.h.
 * Ownership: argv is borrowed (GLib's option parser may reorder it).
 *
 * Layer: sim/app.  May include: sim, system (collective kinds), workload,
 * GLib.
 */
#ifndef ORRERY_SIM_APP_CMD_GEN_H
#define ORRERY_SIM_APP_CMD_GEN_H

/* `orrery gen SUB ...` with argv[0] "gen": the exit status. */
int app_cmd_gen (int argc, char **argv);

/* `orrery rescale ...` with argv[0] "rescale": the exit status. */
int app_cmd_rescale (int argc, char **argv);

#endif /* ORRERY_SIM_APP_CMD_GEN_H */
