/* fuzz_cluster_xml.c: libFuzzer target for the native cluster XML loader
 * (sim/app/config_xml.c, config_xml_net.c, xml_schema.c).
 *
 * Input: the XML's bytes, written to a file and loaded into a fresh
 * AppConfig, which is then cleared: a loader that fails must leave nothing
 * behind either.
 *
 * Layer: tests.  May include: sim/app, GLib.
 */
#include "fuzz_common.h"
#include "sim/app/config.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *path = fuzz_write ("cluster.xml", data, size);
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  gboolean ok = app_config_load_xml (&cfg, path, &error);
  if (ok == (error != NULL))
    g_error ("fuzz: app_config_load_xml returned %d with error %s", ok,
             error != NULL ? error->message : "unset");
  g_clear_error (&error);
  app_config_clear (&cfg);
  g_free (path);
  return 0;
}
