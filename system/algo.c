/* algo.c: the table of collective algorithms. */
#include "system/algo.h"

#include <string.h>

static const SysAlgoClass *const algorithms[] = {
  &sys_algo_ring,
  &sys_algo_dbt,
  &sys_algo_hd,
  &sys_algo_direct,
};

const SysAlgoClass *
sys_algo_lookup (const char *name, guint32 *param)
{
  gsize len = strlen (name);
  while (len > 0 && g_ascii_isdigit (name[len - 1]))
    len--;
  guint64 value = 0;
  if (name[len] != '\0')
    {
      value = g_ascii_strtoull (name + len, NULL, 10);
      if (value == 0 || value > G_MAXUINT32)
        return NULL;
    }
  for (guint i = 0; i < G_N_ELEMENTS (algorithms); i++)
    if (strlen (algorithms[i]->name) == len && strncmp (algorithms[i]->name, name, len) == 0)
      {
        if (param != NULL)
          *param = (guint32) value;
        return algorithms[i];
      }
  return NULL;
}
