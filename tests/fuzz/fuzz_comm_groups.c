/* fuzz_comm_groups.c: libFuzzer target for the ASTRA-sim comm-group JSON
 * loader (app_config_load_comm_groups, sim/app/config_astra.c, and
 * workload/groups.c under it).
 *
 * Input: the JSON's bytes.  It is loaded twice into one AppConfig: the
 * second load meets the groups of the first (every id already defined, the
 * "already defined" path), and must fail without changing them.
 *
 * Layer: tests.  May include: sim/app, workload, GLib.
 */
#include "fuzz_common.h"
#include "sim/app/config.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *path = fuzz_write ("groups.json", data, size);
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  if (app_config_load_comm_groups (&cfg, path, &error))
    {
      guint before = cfg.groups != NULL ? wl_groups_count (cfg.groups) : 0;
      (void) wl_groups_max_rank (cfg.groups);
      GArray *ids = wl_groups_ids (cfg.groups);
      for (guint i = 0; i < ids->len; i++)
        {
          guint n = 0;
          if (wl_groups_lookup (cfg.groups, g_array_index (ids, guint64, i), &n) == NULL
              || n == 0)
            g_error ("fuzz: a defined group is missing or empty");
        }
      g_array_unref (ids);
      gboolean again = app_config_load_comm_groups (&cfg, path, &error);
      if (before > 0 && again)
        g_error ("fuzz: the same groups were defined twice");
      if (wl_groups_count (cfg.groups) != (again ? 2 * before : before))
        g_error ("fuzz: a failed load changed the groups");
    }
  g_clear_error (&error);
  app_config_clear (&cfg);
  g_free (path);
  return 0;
}
