/* cmd_tools.h: the trace and report tools of the command line: `orrery
 * inspect`, `orrery convert` and `orrery plot-data` (main.c dispatches to
 * them).  Each takes the command's own argv (argv[0] the command's name)
 * and returns the process's exit status (cli.c's codes).
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_CMD_TOOLS_H
#define ORRERY_SIM_APP_CMD_TOOLS_H

int app_cmd_inspect (int argc, char **argv);
int app_cmd_convert (int argc, char **argv);
int app_cmd_plot_data (int argc, char **argv);

#endif
