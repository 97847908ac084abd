/* config.c: an AppConfig's defaults and release.  The loaders live in
 * config_astra.c (ASTRA-sim inputs) and config_xml.c (native cluster XML). */
#include "sim/app/config.h"

#include <string.h>

void
app_config_init (AppConfig *cfg)
{
  g_return_if_fail (cfg != NULL);
  memset (cfg, 0, sizeof *cfg);
  /* A network has no sensible default shape: n_dims stays 0 until a loader
   * fills it, and net_topo_new rejects it if none did. */
  cfg->net.model = NET_MODEL_ANALYTICAL;
  cfg->net.rounding = NET_ROUND_PS;
  sys_params_init (&cfg->sys);
  wl_params_init (&cfg->wl);
  cfg->groups = NULL;
  cfg->astra_mode = FALSE;
  cfg->sources = g_ptr_array_new_with_free_func (g_free);
}

void
app_config_clear (AppConfig *cfg)
{
  g_return_if_fail (cfg != NULL);
  g_clear_pointer (&cfg->groups, wl_groups_free);
  g_clear_pointer (&cfg->graph, net_graph_spec_free);
  cfg->net.graph = NULL;
  g_clear_pointer (&cfg->sources, g_ptr_array_unref);
}
