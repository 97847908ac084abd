/* cli.h: what every orrery subcommand shares: how it reads its options,
 * the exit status an error gives, the one line on stderr that reports it,
 * and the help text that documents both.
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
 * Ownership: app_cli_fail takes the error it is given; an AppCli is the
 * caller's (below).
 *
 * Layer: sim/app.  May include: sim (errors), workload (its error domain),
 * GLib.
 */
#ifndef ORRERY_SIM_APP_CLI_H
#define ORRERY_SIM_APP_CLI_H

#include <glib.h>

/* The closing paragraph of the --help of a command that simulates (run,
 * orrery's own). */
#define APP_CLI_EXIT_CODES_HELP                                                                  \
  "Exit status: 0 success, 1 usage or input error, 2 internal error, 3 deadlock,\n"             \
  "4 a limit reached (--max-events, --max-sim-time) or the simulated clock overflowed."

/* The closing paragraph of plan's --help: it takes no --max-events or
 * --max-sim-time, and a candidate of a search that fails is counted, not
 * an exit status; --explain's one simulation can deadlock or overflow the
 * clock. */
#define APP_CLI_EXIT_CODES_PLAN_HELP                                                             \
  "Exit status: 0 success, 1 usage or input error, 2 internal error, 3 deadlock,\n"             \
  "4 a limit reached (the simulated clock overflowed): these two in --explain's\n"              \
  "simulation; in a search, a candidate that fails is counted as failed."

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

/* A command's command line: its GOptionContext, and which of its options
 * are whole numbers.  GLib reads a G_OPTION_ARG_INT as strtol (..., 0)
 * does (--layers 010 is 8 layers, 0x2 is 2, " 8" is 8) and lets
 * -2147483648 through, which is G_MININT, the mark commands give an option
 * not given: such a value was silently no option at all.  So
 * app_cli_add_entries takes every G_OPTION_ARG_INT entry over and
 * app_cli_parse reads its values itself, in decimal only.
 * Ownership: app_cli_new returns a new AppCli (free function
 * app_cli_free), which owns its context. */
typedef struct _AppCli AppCli;

/* A command line whose context is g_option_context_new (PARAMETER_STRING). */
AppCli *app_cli_new (const char *parameter_string);

/* Free CLI (NULL allowed) and its context. */
void app_cli_free (AppCli *cli);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (AppCli, app_cli_free)

/* CLI's context (borrowed): for its description, or a main group. */
GOptionContext *app_cli_context (AppCli *cli);

/* Add ENTRIES (NULL-terminated; copied, their strings borrowed, as GLib
 * borrows them) to GROUP, or to the context's main options when GROUP is
 * NULL.  Every G_OPTION_ARG_INT entry among them is read by app_cli_parse
 * (which stores the last value given into its gint, and leaves it as it
 * was when the option is absent); its --help line is the same.  An
 * INT64 or DOUBLE entry is a critical (GLib would read it as strtoll or
 * strtod do, hex and all): whole numbers are G_OPTION_ARG_INT, and
 * others a string the command reads. */
void app_cli_add_entries (AppCli *cli, GOptionGroup *group, const GOptionEntry *entries);

/* g_option_context_parse (CLI's context, ARGC, ARGV, ERROR), where a short
 * option glued to its value ("-cFILE", which GLib reads as the options c,
 * F, I, L and E) is first cut in two ("-c" "FILE"), as getopt reads it;
 * nothing after "--" is cut.  ARGV is then a new array, which OWNED (free
 * function g_free) holds with the strings cut off.  Every command that
 * parses this way takes options only: an argument left over is refused
 * ("unexpected argument 'x': the command takes options only ...").
 * A whole-number option's every value, however written (--x V, --x=V,
 * -x V, -xV), must be decimal digits after an optional sign, leading zeros
 * read as decimal (010 is 10), from -2147483647 to 2147483647, so that
 * G_MININT never comes from the command line; else "--batch 0x2: not a
 * whole number", "--batch 2147483648: too large (at most 2147483647)" or
 * "--batch -2147483648: too small (at least -2147483647)", the option
 * named by its long name however it was given. */
gboolean app_cli_parse (AppCli *cli, int *argc, char ***argv, GPtrArray *owned,
                        GError **error);

/* The name of NAMES (NULL-terminated) nearest to the unknown GIVEN ("rnu"),
 * within two edits (sim_edit_distance, case kept), for a "did you mean"
 * hint; NULL when none is that near or two are equally near.  Borrowed
 * from NAMES. */
const char *app_cli_nearest (const char *given, const char *const *names);

#endif /* ORRERY_SIM_APP_CLI_H */
