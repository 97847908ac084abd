/* config_astra_private.h: what the parts of the ASTRA-sim input loader
 * share.  Only sim/app/config_astra*.c include it.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_CONFIG_ASTRA_PRIVATE_H
#define ORRERY_SIM_APP_CONFIG_ASTRA_PRIVATE_H

#include "sim/app/config.h"

/* Read ASTRA-sim's network YAML at path into spec (its dimensions only):
 * FALSE with error naming path:line on anything ASTRA-sim would not take. */
gboolean app_astra_net_yaml_load (const char *path, NetSpec *spec, GError **error);

/* An algorithm name an ASTRA-sim *-implementation list may give (ring,
 * oneRing, direct8, ...): FALSE with an error naming it, the nearest known
 * name when one is near, and the known names. */
gboolean app_astra_algorithm_check (const char *name, GError **error);

#endif /* ORRERY_SIM_APP_CONFIG_ASTRA_PRIVATE_H */
