/* cmd_run.h: `orrery run` (cmd_run.c; main.c dispatches to it).  It
 * takes the command's own argv (argv[0] the command's name) and returns
 * the process's exit status (cli.c's codes).
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_CMD_RUN_H
#define ORRERY_SIM_APP_CMD_RUN_H

int app_cmd_run (int argc, char **argv);

#endif
