/* cli.h: what every orrery subcommand shares: the exit status an error
 * gives, the one line on stderr that reports it, and the help text that
 * documents both.
 *
 * What it models: the program's contract with its caller.  Exit status 0
 * success, 1 usage or input error, 2 internal error, 3 deadlock, 4 a limit
 * reached (sim/README.md, limits).  The status is decided by the error's
 * domain and code together: orrery's own domains (SIM_ERROR, WL_ERROR)
 * carry a SimErrorCode, which is the status; every other domain that can
 * reach a command (G_OPTION_ERROR from option parsing, G_FILE_ERROR and
 * G_IO_ERROR from GLib's file calls, JSON_PARSER_ERROR, G_MARKUP_ERROR, ...)
 * numbers its codes its own way, and is a usage or input error whatever its
 * code.
 * Ownership: app_cli_fail takes the error it is given; nothing else is
 * allocated.
 *
 * Layer: sim/app.  May include: sim (errors), workload (its error domain),
 * GLib.
 */
#ifndef ORRERY_SIM_APP_CLI_H
#define ORRERY_SIM_APP_CLI_H

#include <glib.h>

/* The closing paragraph of the --help of a command that simulates (run,
 * plan, orrery's own). */
#define APP_CLI_EXIT_CODES_HELP                                                                  \
  "Exit status: 0 success, 1 usage or input error, 2 internal error, 3 deadlock,\n"             \
  "4 a limit reached (--max-events, --max-sim-time) or the simulated clock overflowed."

/* The closing paragraph of the --help of a command that simulates nothing
 * (gen, convert, rescale, plot-data): it can neither deadlock nor reach a
 * limit (SIM_ERROR_DEADLOCK and SIM_ERROR_LIMIT come from simulation.c
 * only). */
#define APP_CLI_EXIT_CODES_TOOL_HELP                                                             \
  "Exit status: 0 success, 1 usage or input error, 2 internal error."

/* The exit status for ERROR (not NULL): its SimErrorCode in SIM_ERROR and
 * WL_ERROR (a code outside SimErrorCode there is a bug: 2); 1 in any other
 * domain. */
int app_cli_exit_status (const GError *error);

/* Print "orrery CMD: MESSAGE" on stderr ("internal error: " before the
 * message when the status is 2), free ERROR and return its exit status. */
int app_cli_fail (const char *cmd, GError *error);

/* g_option_context_parse (CTX, ARGC, ARGV, ERROR), where a short option
 * glued to its value ("-cFILE", which GLib reads as the options c, F, I, L
 * and E) is first cut in two ("-c" "FILE"), as getopt reads it; nothing
 * after "--" is cut.  ARGV is then a new array, which OWNED (free function
 * g_free) holds with the strings cut off.  Every command that parses this
 * way takes options only: an argument left over is refused ("unexpected
 * argument 'x': the command takes options only ...").  A
 * number option's bad value is worded "--batch 1M: not a whole number" or
 * "--batch 4294967296: out of range (-2147483648 .. 2147483647)". */
gboolean app_cli_parse (GOptionContext *ctx, int *argc, char ***argv, GPtrArray *owned,
                        GError **error);

/* The count option NAME's VALUE into *OUT (for a G_OPTION_ARG_CALLBACK
 * entry), as G_OPTION_ARG_INT reads it but in decimal only (GLib reads
 * as C does: 010 is 8, 0x2 is 2) and with any negative as -1: commands
 * mark an option not given with G_MININT, which G_OPTION_ARG_INT reads
 * too, and refuse every negative count alike.  Errors are worded as
 * app_cli_parse words them ("--top-k 1M: not a whole number"). */
gboolean app_cli_count (const char *name, const char *value, gint *out, GError **error);

/* The name of NAMES (NULL-terminated) nearest to the unknown GIVEN ("rnu"),
 * within two edits (sim_edit_distance, case kept), for a "did you mean"
 * hint; NULL when none is that near or two are equally near.  Borrowed
 * from NAMES. */
const char *app_cli_nearest (const char *given, const char *const *names);

#endif /* ORRERY_SIM_APP_CLI_H */
