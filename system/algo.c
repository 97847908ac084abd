/* algo.c: the registry of collective algorithms: the built-in rows, one
 * file each, and any registered at run time. */
#include "system/algo.h"

#include <string.h>

#include "sim/error.h"
#include "sim/registry.h"

static const SysAlgoClass *const builtin[] = {
  &sys_algo_ring,
  &sys_algo_direct,
  &sys_algo_hd,
  &sys_algo_dbt,
  &sys_algo_direct_packets,
  &sys_algo_hd_reference,
  &sys_algo_dbt_reference,
};

static SimRegistry registry = SIM_REGISTRY_INIT (builtin);

guint
sys_algo_count (void)
{
  return sim_registry_count (&registry);
}

const SysAlgoClass *
sys_algo_nth (guint i)
{
  return sim_registry_nth (&registry, i);
}

static const SysAlgoClass *
find (const char *name, gsize len, SysTiming timing)
{
  const SysAlgoClass *algo;
  for (guint i = 0; (algo = sys_algo_nth (i)) != NULL; i++)
    if (algo->timing == timing && strlen (algo->name) == len
        && strncmp (algo->name, name, len) == 0)
      return algo;
  return NULL;
}

/* One name and timing, one row. */
static gboolean
same_algo (const void *row, const void *other)
{
  const SysAlgoClass *a = row, *b = other;
  return a->timing == b->timing && strcmp (a->name, b->name) == 0;
}

gboolean
sys_algo_register (const SysAlgoClass *algo, GError **error)
{
  g_return_val_if_fail (algo != NULL && algo->name != NULL && algo->start != NULL
                            && algo->on_message != NULL, FALSE);
  const SimRegistryName name = { "algorithm", algo->name };
  return sim_registry_add (&registry, algo, same_algo, &name, NULL, error);
}

gboolean
sys_algo_resolve (const char *name, SysTiming timing, SysAlgoRef *out)
{
  g_return_val_if_fail (name != NULL && out != NULL, FALSE);
  /* "oneRing", "oneDirect", ...: that algorithm over every member of the
   * group at once, as one flat dimension. */
  g_autofree char *base = NULL;
  gboolean flat = g_str_has_prefix (name, "one") && g_ascii_isupper (name[3]);
  if (flat)
    {
      base = g_strdup (name + 3);
      base[0] = g_ascii_tolower (base[0]);
      name = base;
    }
  gsize len = strlen (name);
  while (len > 0 && g_ascii_isdigit (name[len - 1]))
    len--;
  guint64 value = 0;
  if (name[len] != '\0')
    {
      value = g_ascii_strtoull (name + len, NULL, 10);
      if (value == 0 || value > G_MAXUINT32)
        return FALSE;
    }
  const SysAlgoClass *algo = find (name, len, timing);
  if (algo == NULL && timing != SYS_TIMING_NATIVE)
    algo = find (name, len, SYS_TIMING_NATIVE);
  if (algo == NULL)
    return FALSE;
  *out = (SysAlgoRef) { .algo = algo, .param = (guint32) value, .flat = flat };
  return TRUE;
}

const SysAlgoClass *
sys_algo_lookup (const char *name, guint32 *param)
{
  SysAlgoRef ref;
  if (!sys_algo_resolve (name, SYS_TIMING_NATIVE, &ref) || ref.flat)
    return NULL;
  if (param != NULL)
    *param = ref.param;
  return ref.algo;
}

char *
sys_algo_flat_name (const SysAlgoClass *algo)
{
  g_return_val_if_fail (algo != NULL && algo->name[0] != '\0', NULL);
  return g_strdup_printf ("one%c%s", g_ascii_toupper (algo->name[0]), algo->name + 1);
}
