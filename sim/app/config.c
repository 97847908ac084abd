/* config.c: an AppConfig's defaults, release and warnings.  The loaders live in
 * config_astra.c (ASTRA-sim inputs) and config_xml.c (native cluster XML). */
#include "sim/app/config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/error.h"
#include "sim/printable.h"

void
app_config_init (AppConfig *cfg)
{
  g_return_if_fail (cfg != NULL);
  memset (cfg, 0, sizeof *cfg);
  /* A network has no sensible default shape: n_dims stays 0 until a loader
   * fills it, and net_topo_new rejects it if none did. */
  cfg->net.model = NET_MODEL_ANALYTICAL;
  sys_params_init (&cfg->sys);
  wl_params_init (&cfg->wl);
  app_compat_apply (APP_COMPAT_NATIVE, &cfg->net, &cfg->sys, &cfg->wl);
  cfg->groups = NULL;
  cfg->astra_mode = FALSE;
  cfg->sources = g_ptr_array_new_with_free_func (g_free);
  cfg->warnings = g_ptr_array_new_with_free_func (g_free);
}

void
app_compat_apply (AppCompat compat, NetSpec *net, SysParams *sys, WlParams *wl)
{
  g_return_if_fail (net != NULL && sys != NULL && wl != NULL);
  gboolean reference = compat == APP_COMPAT_REFERENCE;
  net->rounding = reference ? NET_ROUND_NS_TRUNCATED : NET_ROUND_PS;
  /* ASTRA-sim's analytical backend gives every message a link's full
   * bandwidth, and its reference tables depend on it; a real port carries
   * one message at a time. */
  net->share_ports = !reference;
  net->innermost_route = reference;
  if (reference)
    sys_compat_reference (&sys->compat);
  else
    sys_compat_native (&sys->compat);
  wl->timing = reference ? WL_TIMING_REFERENCE : WL_TIMING_NATIVE;
}

void
app_config_print_warnings (const AppConfig *cfg, const char *cmd)
{
  for (guint i = 0; i < cfg->warnings->len; i++)
    {
      g_autofree char *line = sim_printable (cfg->warnings->pdata[i], FALSE);
      fprintf (stderr, "orrery %s: warning: %s\n", cmd, line);
    }
}

void
app_config_clear (AppConfig *cfg)
{
  g_return_if_fail (cfg != NULL);
  g_clear_pointer (&cfg->groups, wl_groups_free);
  g_clear_pointer (&cfg->graph, net_graph_spec_free);
  cfg->net.graph = NULL;
  g_clear_pointer (&cfg->sources, g_ptr_array_unref);
  g_clear_pointer (&cfg->warnings, g_ptr_array_unref);
  g_clear_pointer (&cfg->kernel_table, wl_kernel_table_free);
  cfg->wl.kernel_table = NULL;
}

gboolean
app_config_read_file (const char *path, char **text, gsize *len, GError **error)
{
  g_return_val_if_fail (path != NULL && text != NULL, FALSE);
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    {
      int errsv = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot read: %s", path,
                   g_strerror (errsv));
      return FALSE;
    }
  /* Read in pieces up to one byte past the limit: the size fstat reports
   * means nothing for pipes and devices. */
  g_autoptr (GByteArray) buf = g_byte_array_new ();
  guint8 chunk[65536];
  gsize n = 0;
  while (buf->len <= APP_CONFIG_MAX_BYTES && (n = fread (chunk, 1, sizeof chunk, f)) > 0)
    g_byte_array_append (buf, chunk, (guint) n);
  int errsv = errno;
  gboolean failed = ferror (f) != 0;
  fclose (f);
  if (failed)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot read: %s", path,
                   g_strerror (errsv));
      return FALSE;
    }
  if (buf->len > APP_CONFIG_MAX_BYTES)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: longer than " APP_CONFIG_MAX_TEXT ": not a configuration file (a "
                   "device, a stream without end, or a trace?)", path);
      return FALSE;
    }
  if (len != NULL)
    *len = buf->len;
  g_byte_array_append (buf, (const guint8 *) "", 1);
  *text = (char *) g_byte_array_free (g_steal_pointer (&buf), FALSE);
  return TRUE;
}
