/* main.c: the orrery program: subcommand dispatch (run: cmd_run.c;
 * inspect, convert and plot-data: cmd_tools.c; gen and rescale:
 * cmd_gen.c; plan: cmd_plan.c; sweep: sweep_run.c).
 *
 * Exit codes (decided from the error's domain and code in cli.c): 0
 * success, 1 usage or input error (out of memory for an input's node
 * records included), 2 internal error, 3 deadlock, 4 a limit reached
 * (--max-events, --max-sim-time: the outputs are still written) or the
 * simulated clock overflowed (nothing written).
 *
 * Layer: sim/app.  May include: every layer.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "sim/app/cli.h"
#include "sim/app/cmd_gen.h"
#include "sim/app/cmd_plan.h"
#include "sim/app/cmd_run.h"
#include "sim/app/cmd_tools.h"
#include "sim/app/report.h"
#include "sim/app/sweep.h"
#include "sim/error.h"
#include "version.h" /* generated: ORRERY_VERSION (Makefile) */

static void
usage (FILE *out)
{
  fprintf (out,
           "usage: orrery COMMAND [OPTIONS]\n\n"
           "Commands:\n"
           "  run   simulate a workload (Chakra traces) on a cluster\n"
           "  gen   generate workloads: gen collective, gen transformer, gen dlrm\n"
           "  rescale  rewrite a data-parallel trace set for another number of ranks\n"
           "  inspect  summarise a trace set (PREFIX or FILE) and list its defects\n"
           "  convert  convert a trace between .et and Chakra JSON (IN OUT, by extension)\n"
           "  plot-data  write a --report's figures as data for gnuplot (see scripts/plot)\n"
           "  sweep  expand a parameter sweep spec into points, run one, gather a CSV\n"
           "  plan   search a transformer's parallel configurations on a cluster, simulated\n"
           "         (plan --dlrm: a DLRM's embedding sharding)\n\n"
           "'orrery COMMAND --help' (or 'orrery help COMMAND') lists a command's options,\n"
           "with units and defaults; 'orrery --version' the build (git describe).\n\n"
           APP_CLI_EXIT_CODES_HELP "\n");
}

static const char *const commands[] = { "run",     "gen",       "rescale", "inspect",
                                         "convert", "plot-data", "plan",    "sweep",
                                         "help",    NULL };

/* "orrery: unknown command 'rnu' (did you mean run?)", then the usage: exit 1. */
static int
unknown_command (const char *given)
{
  const char *near = app_cli_nearest (given, commands);
  fprintf (stderr, "orrery: unknown command '%s'%s%s%s\n", given,
           near != NULL ? " (did you mean " : "", near != NULL ? near : "",
           near != NULL ? "?)" : "");
  usage (stderr);
  return SIM_ERROR_INPUT;
}

/* GOption's --help begins "Usage: PRGNAME [OPTION…]", PRGNAME the argv[0]
 * of the first parse, which is the bare command ("run"): the program's name
 * goes first, as the user types it ("orrery run"). */
static void
name_command (const char *cmd)
{
  g_autofree char *name = g_strconcat ("orrery ", cmd, NULL);
  g_set_prgname (name);
}

/* "orrery help COMMAND [GENERATOR]" as "orrery COMMAND [GENERATOR] --help":
 * argv[0], the words after "help", then --help (ARGC words in all). */
static char **
help_as_option (int argc, char **argv)
{
  char **args = g_new0 (char *, (gsize) argc + 1);
  args[0] = argv[0];
  for (int i = 2; i < argc; i++)
    args[i - 1] = argv[i];
  args[argc - 1] = (char *) "--help";
  return args;
}

static gboolean
is_version (const char *word)
{
  return strcmp (word, "--version") == 0 || strcmp (word, "version") == 0;
}

/* Which build made a result (a report or a README figure is tied to a
 * commit): git describe of the checkout it was built from.  It takes no
 * arguments but --help ("help version"). */
static int
version (int argc, char **argv)
{
  if (argc == 2)
    {
      printf ("orrery %s\n", ORRERY_VERSION);
      return 0;
    }
  if (argc == 3 && (strcmp (argv[2], "--help") == 0 || strcmp (argv[2], "-h") == 0))
    {
      printf ("usage: orrery --version (or orrery version): the build, as git describe of the "
              "checkout it was built from (\"unknown\" outside one)\n");
      return 0;
    }
  fprintf (stderr, "orrery: %s takes no arguments ('%s')\n", argv[1], argv[2]);
  return SIM_ERROR_INPUT;
}

static int
dispatch (int argc, char **argv)
{
  if (argc < 2)
    {
      usage (stderr);
      return SIM_ERROR_INPUT;
    }
  /* Bare "help" (the commands); "help COMMAND" was rewritten by main. */
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return 0;
    }
  if (is_version (argv[1]))
    return version (argc, argv);
  app_report_set_version (ORRERY_VERSION);
  if (!g_strv_contains (commands, argv[1]))
    return unknown_command (argv[1]);
  name_command (argv[1]);
  if (strcmp (argv[1], "run") == 0)
    return app_cmd_run (argc - 1, argv + 1);
  if (strcmp (argv[1], "gen") == 0)
    return app_cmd_gen (argc - 1, argv + 1);
  if (strcmp (argv[1], "rescale") == 0)
    return app_cmd_rescale (argc - 1, argv + 1);
  if (strcmp (argv[1], "inspect") == 0)
    return app_cmd_inspect (argc - 1, argv + 1);
  if (strcmp (argv[1], "convert") == 0)
    return app_cmd_convert (argc - 1, argv + 1);
  if (strcmp (argv[1], "plot-data") == 0)
    return app_cmd_plot_data (argc - 1, argv + 1);
  if (strcmp (argv[1], "plan") == 0)
    return app_cmd_plan (argc - 1, argv + 1);
  return app_sweep_main (argc - 1, argv + 1, argv[0]);
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  /* "orrery help COMMAND": the command's own help. */
  g_autofree char **args = NULL;
  if (argc >= 3 && strcmp (argv[1], "help") == 0 && argv[2][0] != '-'
      && strcmp (argv[2], "help") != 0)
    {
      if (!g_strv_contains (commands, argv[2]) && !is_version (argv[2]))
        return unknown_command (argv[2]);
      args = help_as_option (argc, argv);
    }
  return dispatch (argc, args != NULL ? args : argv);
}
