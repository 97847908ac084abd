/* algo.c: the table of collective algorithms. */
#include "system/algo.h"

static const SysAlgoClass *const algorithms[] = {
  &sys_algo_ring,
};

const SysAlgoClass *
sys_algo_lookup (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (algorithms); i++)
    if (g_strcmp0 (algorithms[i]->name, name) == 0)
      return algorithms[i];
  return NULL;
}
