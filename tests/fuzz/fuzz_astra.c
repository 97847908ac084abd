/* fuzz_astra.c: libFuzzer target for the ASTRA-sim input loaders
 * (app_config_load_astra, sim/app/config_astra.c): the network YAML, the
 * system JSON and the remote-memory JSON.
 *
 * Input: one selector byte, then one file's bytes.  The selector (mod 3)
 * says which file the bytes are: 0 the network YAML, 1 the system JSON, 2
 * the memory JSON; the other files are fixed, valid ones (a 4-NPU ring
 * written here, and configs/astra's system_ring_4chunks.json, ring
 * collectives, and memory_none.json, no memory expansion), so that the
 * fuzzed file is the only thing that can fail.
 *
 * Layer: tests.  May include: sim/app, GLib.
 */
#include "fuzz_common.h"
#include "sim/app/config.h"

static const char good_net[] = "topology: [ Ring ]\n"
                               "npus_count: [ 4 ]\n"
                               "bandwidth: [ 50.0 ]\n"
                               "latency: [ 500.0 ]\n";

static char *paths[3];

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  paths[0] = fuzz_write ("good.yml", good_net, sizeof good_net - 1);
  paths[1] = g_build_filename (FUZZ_CONFIGS_DIR, "astra", "system_ring_4chunks.json", NULL);
  paths[2] = g_build_filename (FUZZ_CONFIGS_DIR, "astra", "memory_none.json", NULL);
  /* The fixed files must load, or every run tests nothing. */
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  if (!app_config_load_astra (&cfg, paths[0], paths[1], paths[2], &error))
    g_error ("fuzz: the fixed ASTRA-sim inputs do not load: %s", error->message);
  app_config_clear (&cfg);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  static const char *const names[3] = { "net.yml", "sys.json", "mem.json" };
  guint which = data[0] % 3;
  char *fuzzed = fuzz_write (names[which], data + 1, size - 1);
  const char *use[3] = { paths[0], paths[1], paths[2] };
  use[which] = fuzzed;
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  gboolean ok = app_config_load_astra (&cfg, use[0], use[1], use[2], &error);
  if (ok == (error != NULL))
    g_error ("fuzz: app_config_load_astra returned %d with error %s", ok,
             error != NULL ? error->message : "unset");
  g_clear_error (&error);
  app_config_clear (&cfg);
  /* Without the memory file too, when the memory file is not the one
   * fuzzed. */
  if (which != 2)
    {
      app_config_init (&cfg);
      if (!app_config_load_astra (&cfg, use[0], use[1], NULL, &error))
        g_clear_error (&error);
      app_config_clear (&cfg);
    }
  g_free (fuzzed);
  return 0;
}
