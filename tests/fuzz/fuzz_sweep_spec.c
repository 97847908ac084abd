/* fuzz_sweep_spec.c: libFuzzer target for the sweep spec reader
 * (sim/app/sweep_spec.c): schema validation, the walk, the cross-checks
 * (placeholders, XPath selects into the base cluster XML, command lines)
 * and, for small specs, the expansion into point directories
 * (sim/app/sweep_expand.c), listed back by app_sweep_points
 * (sim/app/sweep_run.c).
 *
 * Input: one selector byte, then the spec's bytes, written to
 * TMP/sweep/spec.xml.  The project's cluster XMLs (configs/NAME.xml) are
 * copied into TMP once, so that a spec's <config path="../default.xml">
 * finds its base as it does in configs/sweeps/.
 *
 * app_sweep_expand is the one entry point, and it validates everything
 * before it writes anything.  Expanding into a directory that is not empty
 * and not a sweep fails after validation and before any write: that is the
 * validate-only run, done for every input.  When bit 0 of the selector is
 * set and the spec has at most MAX_EXPAND points (counted here from its
 * values lists; ranges are not expanded), it is then expanded for real into
 * a fresh directory, twice (the second expand finds every point there), and
 * the directory is removed.
 *
 * Layer: tests.  May include: sim/app, GLib, libxml2.
 */
#include <string.h>

#include "fuzz_common.h"
#include "sim/app/sweep.h"
#include "sim/app/xml_lib.h"

#ifndef FUZZ_CONFIGS_DIR
#error "compile with -DFUZZ_CONFIGS_DIR=\"/path/to/configs\""
#endif

#define MAX_EXPAND 64

static char *spec_dir;
static char *not_empty;

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  const char *tmp = fuzz_tmpdir ();
  GDir *dir = g_dir_open (FUZZ_CONFIGS_DIR, 0, NULL);
  const char *name;
  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_suffix (name, ".xml"))
      {
        char *src = g_build_filename (FUZZ_CONFIGS_DIR, name, NULL);
        char *text = NULL;
        gsize len = 0;
        if (g_file_get_contents (src, &text, &len, NULL))
          g_free (fuzz_write (name, text, len));
        g_free (text);
        g_free (src);
      }
  if (dir != NULL)
    g_dir_close (dir);
  spec_dir = g_build_filename (tmp, "sweep", NULL);
  not_empty = g_build_filename (tmp, "not-empty", NULL);
  g_mkdir_with_parents (spec_dir, 0700);
  g_mkdir_with_parents (not_empty, 0700);
  g_free (fuzz_write ("not-empty/keep", "", 0));
  return 0;
}

/* The number of points if every param is a values list, at most limit + 1
 * (a zip counts as its product: an overestimate); limit + 1 with a range. */
static guint64
count_points (const xmlNode *node, guint64 limit)
{
  guint64 n = 1;
  for (const xmlNode *c = node; c != NULL && n <= limit; c = c->next)
    {
      if (c->type != XML_ELEMENT_NODE)
        continue;
      if (strcmp ((const char *) c->name, "param") == 0)
        {
          if (xmlHasProp (c, (const xmlChar *) "from") != NULL
              || xmlHasProp (c, (const xmlChar *) "to") != NULL)
            return limit + 1;
          xmlChar *values = xmlGetProp (c, (const xmlChar *) "values");
          if (values != NULL)
            {
              char **words = g_strsplit_set ((const char *) values, " \t\r\n", -1);
              guint64 k = 0;
              for (char **w = words; *w != NULL; w++)
                k += **w != '\0';
              g_strfreev (words);
              xmlFree (values);
              n *= MAX (k, 1);
            }
        }
      n *= count_points (c->children, limit);
    }
  return MIN (n, limit + 1);
}

static gboolean
small_enough (const uint8_t *data, size_t size)
{
  if (size > G_MAXINT)
    return FALSE;
  xmlDoc *doc = xmlReadMemory ((const char *) data, (int) size, "spec.xml", NULL,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == NULL)
    return FALSE;
  guint64 n = count_points (xmlDocGetRootElement (doc), MAX_EXPAND);
  xmlFreeDoc (doc);
  return n <= MAX_EXPAND;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  gboolean expand = data[0] & 1;
  data++;
  size--;
  char *spec = fuzz_write ("sweep/spec.xml", data, size);
  GError *error = NULL;
  guint64 n = 0;
  if (app_sweep_expand (spec, not_empty, &n, &error))
    g_error ("fuzz: expanded into a directory that is not a sweep");
  char *refused = g_strdup_printf ("%s: not an empty directory", not_empty);
  gboolean valid = g_str_has_prefix (error->message, refused);
  g_free (refused);
  g_clear_error (&error);
  if (valid && expand && small_enough (data, size))
    {
      char *out = g_build_filename (fuzz_tmpdir (), "out", NULL);
      for (int round = 0; round < 2; round++)
        {
          if (!app_sweep_expand (spec, out, &n, &error))
            g_error ("fuzz: a valid spec did not expand: %s", error->message);
          char **ids = app_sweep_points (out, &error);
          if (ids == NULL || g_strv_length (ids) != n)
            g_error ("fuzz: %" G_GUINT64_FORMAT " points expanded, %u listed", n,
                     ids != NULL ? g_strv_length (ids) : 0);
          g_strfreev (ids);
        }
      fuzz_remove_tree (out);
      g_free (out);
    }
  g_free (spec);
  return 0;
}
