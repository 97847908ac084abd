/* fuzz_plot_data.c: libFuzzer target for `orrery plot-data`
 * (app_plot_data, sim/app/plotdata.c, with json_skim.c and the nesting
 * bound of sim/nesting.c under it): reading a JSON report and writing the
 * data files gnuplot draws.
 *
 * Input: the report's bytes, written to TMP/report.json.  The data files
 * go to TMP/plot, which is removed after each input.
 *
 * Layer: tests.  May include: sim/app, GLib.
 */
#include "fuzz_common.h"
#include "sim/app/plotdata.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *report = fuzz_write ("report.json", data, size);
  char *out = g_build_filename (fuzz_tmpdir (), "plot", NULL);
  GError *error = NULL;
  if (!app_plot_data (report, out, &error) && error == NULL)
    g_error ("fuzz: plot-data failed without an error");
  g_clear_error (&error);
  fuzz_remove_tree (out);
  g_free (out);
  g_free (report);
  return 0;
}
