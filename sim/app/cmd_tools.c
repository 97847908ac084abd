/* cmd_tools.c: `orrery inspect`, `orrery convert` and `orrery plot-data`
 * (cmd_tools.h). */
#include "sim/app/cmd_tools.h"

#include <stdio.h>

#include "sim/app/cli.h"
#include "sim/app/cmd_gen.h"
#include "sim/app/plotdata.h"
#include "sim/error.h"
#include "workload/chakra_json.h"
#include "workload/inspect.h"

/* Parse CMD's command line (it takes no option but --help: PARAMS and HELP
 * are what --help prints): -1 when *ARGC is then WANT (the command's name
 * and WANT - 1 arguments), else the exit status of the refusal, whose
 * message is TOO_FEW or TOO_MANY. */
static int
tool_args (const char *cmd, const char *params, const char *help, int *argc, char ***argv,
           int want, const char *too_few, const char *too_many)
{
  g_autoptr (GOptionContext) ctx = g_option_context_new (params);
  g_option_context_set_description (ctx, help);
  GError *error = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &error))
    return app_cli_fail (cmd, error);
  if (*argc != want)
    return app_cli_fail (cmd, g_error_new (SIM_ERROR, SIM_ERROR_INPUT, "%s",
                                           *argc < want ? too_few : too_many));
  return -1;
}

/* ---- inspect ------------------------------------------------------------------- */

int
app_cmd_inspect (int argc, char **argv)
{
  int code = tool_args (
      "inspect", "PREFIX|FILE - summarise a trace set and list its defects",
      "Reads FILE, or PREFIX.0.et, PREFIX.1.et, ... up to the first missing one (a gap,\n"
      "PREFIX.5.et missing and PREFIX.6.et there, is an input error naming both).  Prints\n"
      "node counts, compute time, collectives and the peak memory the GlobalMetadata\n"
      "gives (peak_memory_bytes) per rank (ranks with identical figures once), then\n"
      "every defect: dangling dependencies, duplicate ids, dependency\n"
      "cycles, collectives without comm_type or comm_size, sends/receives whose\n"
      "comm_src/comm_dst is not the rank, process groups defined twice with other\n"
      "ranks, and collective sequences that differ from rank 0's.\n\nExit status: 0 no defects, 1 defects found, usage or input error.\n",
      &argc, &argv, 2, "need one PREFIX or FILE", "need one PREFIX or FILE");
  if (code >= 0)
    return code;
  GError *error = NULL;
  g_autoptr (GPtrArray) paths = wl_inspect_resolve (argv[1], &error);
  if (paths == NULL)
    return app_cli_fail ("inspect", error);
  g_autoptr (WlInspectReport) report
      = wl_inspect_files ((const char *const *) paths->pdata, paths->len, &error);
  if (report == NULL)
    return app_cli_fail ("inspect", error);
  wl_inspect_report_print (report, stdout);
  return wl_inspect_report_n_defects (report) > 0 ? 1 : 0;
}

/* ---- convert -------------------------------------------------------------------- */

int
app_cmd_convert (int argc, char **argv)
{
  int code = tool_args (
      "convert", "IN OUT - convert a Chakra trace between .et and JSON",
      "Each file's form is chosen by its name: ending in .json, the JSON that\n"
      "chakra_jsonizer writes (one object per message, protobuf's JSON mapping); anything\n"
      "else, the binary .et (gzip when OUT ends in .gz; IN may be gzip whatever its\n"
      "name).  .et -> JSON -> .et gives back the same bytes.  run, inspect and rescale\n"
      "read JSON traces too (PREFIX.RANK.json where PREFIX.RANK.et is missing).\n"
      "OUT's folder is made when it does not exist; OUT appears only whole (an input\n"
      "that cannot be read to its end leaves OUT as it was, and no folder made).\n\n"
      APP_CLI_EXIT_CODES_TOOL_HELP "\n",
      &argc, &argv, 3, "need an input and an output file: usage: orrery convert IN OUT",
      "too many arguments: usage: orrery convert IN OUT");
  if (code >= 0)
    return code;
  GError *error = NULL;
  g_autofree char *made = NULL;
  if (!app_out_file_name_ok (argv[2], &error)
      || !app_out_folder_make ("", argv[2], &made, &error))
    return app_cli_fail ("convert", error);
  if (!wl_chakra_convert (argv[1], argv[2], &error))
    {
      app_out_folder_unmake (argv[2], made);
      return app_cli_fail ("convert", error);
    }
  return 0;
}

/* ---- plot-data ------------------------------------------------------------------ */

int
app_cmd_plot_data (int argc, char **argv)
{
  int code = tool_args (
      "plot-data", "REPORT.json DIR - write a report's figures as gnuplot data",
      "Writes into DIR (made when missing), each column named in the file's first line:\n"
      "  ranks.dat     a line per rank, in ms: rank compute_ms exposed_comm_ms idle_ms\n"
      "                after_finish_ms pipeline_bubble_ms (exposed_comm_ms less the\n"
      "                bubble; the bubble is 0 where the report gives none)\n"
      "  overview.dat  where the report has an overview (run --report writes one), a\n"
      "                line per rank and time bin: time_ms (the bin's middle) rank\n"
      "                compute comm idle bubble, shares of the bin adding up to 1 (comm\n"
      "                less the bubble); a blank line between ranks\n"
      "  meta.gp       gnuplot variables: schema_version simulated_ms ranks overview\n"
      "                bubble bins bin_ms\n"
      "scripts/plot draws them.\n\n" APP_CLI_EXIT_CODES_TOOL_HELP "\n",
      &argc, &argv, 3, "need REPORT.json and an output directory",
      "need REPORT.json and an output directory");
  if (code >= 0)
    return code;
  GError *error = NULL;
  if (!app_plot_data (argv[1], argv[2], &error))
    return app_cli_fail ("plot-data", error);
  return 0;
}
