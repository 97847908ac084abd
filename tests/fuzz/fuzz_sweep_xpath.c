/* fuzz_sweep_xpath.c: libFuzzer target for the sweep expander's XPath
 * selects (sim/app/sweep_spec.c select_targets, sim/app/sweep_expand.c
 * set_value): a param's select evaluated in the base cluster XML, and the
 * nodes it matches set to the param's value in each point's config.xml.
 *
 * Input: the XPath expression, a line feed, then the value (blanks become
 * '_', so that there is one point).  They go, escaped, into a spec over
 * configs/default.xml (copied into TMP once), which is expanded into a
 * fresh directory, removed after each input.  A spec whose text is not
 * UTF-8 is skipped (the schema refuses it before any XPath).
 *
 * Layer: tests.  May include: sim/app, GLib.
 */
#include <string.h>

#include "fuzz_common.h"
#include "sim/app/sweep.h"

#ifndef FUZZ_CONFIGS_DIR
#error "compile with -DFUZZ_CONFIGS_DIR=\"/path/to/configs\""
#endif

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (FUZZ_CONFIGS_DIR "/default.xml", &text, &len, NULL))
    g_error ("fuzz: cannot read %s/default.xml", FUZZ_CONFIGS_DIR);
  g_free (fuzz_write ("default.xml", text, len));
  g_free (text);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *input = g_strndup ((const char *) data, size);
  if (strlen (input) != size || !g_utf8_validate (input, -1, NULL))
    {
      g_free (input);
      return 0;
    }
  char *nl = strchr (input, '\n');
  const char *value = "1";
  if (nl != NULL)
    {
      *nl = '\0';
      value = nl + 1;
    }
  char *v = g_strdelimit (g_strdup (*value != '\0' ? value : "1"), " \t\r\n", '_');
  char *sel = g_markup_escape_text (input, -1);
  char *val = g_markup_escape_text (v, -1);
  char *spec = g_strdup_printf (
      "<sweep name=\"x\">\n  <config path=\"default.xml\"/>\n"
      "  <generate>gen collective --type all_reduce --ranks 64 --bytes 1KB</generate>\n"
      "  <grid><param name=\"p\" select=\"%s\" values=\"%s\"/></grid>\n</sweep>\n",
      sel, val);
  char *path = fuzz_write ("spec.xml", spec, strlen (spec));
  char *out = g_build_filename (fuzz_tmpdir (), "out", NULL);
  GError *error = NULL;
  guint64 n = 0;
  if (app_sweep_expand (path, out, &n, &error) && n != 1)
    g_error ("fuzz: one value expanded into %" G_GUINT64_FORMAT " points", n);
  g_clear_error (&error);
  fuzz_remove_tree (out);
  g_free (out);
  g_free (path);
  g_free (spec);
  g_free (val);
  g_free (sel);
  g_free (v);
  g_free (input);
  return 0;
}
