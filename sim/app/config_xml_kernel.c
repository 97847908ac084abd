/* config_xml_kernel.c: the kernel compute model's part of the cluster XML,
 * <compute model="kernel" device=... kernel-table=... sm-contention=...>
 * (workload/kernels.h): the device must be a preset with a kernel table
 * (kernel_model.c), and the optional measured table (a CSV, its path
 * relative to the config file) is read here, so that a bad row is an error
 * of the load.  sm-contention "on" (the default) or "off": whether compute
 * runs on the SMs communication kernels leave free (workload/replay_sm.c).
 */
#include "sim/app/config_xml_private.h"

#include "workload/kernels.h"

gboolean
app_xml_kernel_model (XmlLoad *l, const xmlNode *compute, GError **error)
{
  static const char *const on_off[] = { "off", "on", NULL };
  g_autofree char *device = NULL;
  g_autofree char *table = NULL;
  int contention = -1;
  if (!app_xml_attr_text (l, compute, "device", FALSE, &device, error)
      || !app_xml_attr_text (l, compute, "kernel-table", FALSE, &table, error)
      || !app_xml_attr_choice (l, compute, "sm-contention", on_off, &contention, error))
    return FALSE;
  if (l->wl.compute != WL_COMPUTE_KERNEL)
    {
      if (contention >= 0)
        return app_xml_fail (l, compute, error, "sm-contention applies only to model 'kernel'");
      return table == NULL
             || app_xml_fail (l, compute, error, "kernel-table applies only to model 'kernel'");
    }
  if (contention >= 0)
    l->wl.sm_contention = contention == 1;
  g_autofree char *known = wl_kernel_device_names ();
  if (device == NULL)
    return app_xml_fail (l, compute, error, "model 'kernel' needs device (one of: %s)", known);
  l->wl.kernel_device = wl_kernel_device (device);
  if (l->wl.kernel_device == NULL)
    return app_xml_fail (l, compute, error,
                         "model 'kernel' has kernel tables for the presets %s, not '%s'", known,
                         device);
  if (table == NULL)
    return TRUE;
  g_autofree char *dir = g_path_get_dirname (l->path);
  g_autofree char *path = g_path_is_absolute (table) ? g_strdup (table)
                                                     : g_build_filename (dir, table, NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!app_config_read_file (path, &text, &len, error))
    return FALSE;
  l->kernel_table = wl_kernel_table_parse (path, text, len, error);
  if (l->kernel_table == NULL)
    return FALSE;
  /* Rows only for other devices would change nothing, silently: almost
   * surely the wrong table or the wrong device (configs/devices/README.md). */
  const char *name = l->wl.kernel_device->name;
  if (!wl_kernel_table_has_device (l->kernel_table, name))
    {
      g_autofree char *has = wl_kernel_table_devices (l->kernel_table);
      return app_xml_fail (l, compute, error,
                           "kernel-table %s has no row for the device %s (%s%s): it would change "
                           "nothing; give a table measured on %s, or drop kernel-table",
                           path, name, *has != '\0' ? "its rows are for " : "it has no rows",
                           has, name);
    }
  l->wl.kernel_table = l->kernel_table;
  return TRUE;
}
