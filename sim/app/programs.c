/* programs.c: the process's programs, read once per file (programs.h). */
#include "sim/app/programs.h"

#include "workload/coll_program.h"

/* "FORM TIMING KIND PATH" -> SysProgram*: kept for the process's life,
 * since parameter sets copied into sweeps and plans point at their rows. */
static GHashTable *cache;
static GMutex cache_lock;

const SysAlgoClass *
app_program_get (AppProgramForm form, const char *path, SysProgTiming timing, SysCollKind kind,
                 GError **error)
{
  g_return_val_if_fail (path != NULL && kind < SYS_COLL_N, NULL);
  g_autofree char *key = g_strdup_printf ("%d %d %d %s", form, timing, kind, path);
  g_mutex_lock (&cache_lock);
  if (cache == NULL)
    cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                   (GDestroyNotify) sys_program_free);
  SysProgram *prog = g_hash_table_lookup (cache, key);
  if (prog == NULL)
    {
      if (form == APP_PROGRAM_MSCCL)
        prog = app_msccl_load (path, timing, kind, error);
      else
        {
          g_autofree char *base = g_path_get_basename (path);
          g_autofree char *name = g_strdup_printf ("custom:%s", base);
          prog = wl_coll_program_load_et (path, name, error);
          if (prog != NULL)
            sys_program_set_kinds (prog, SYS_KIND_BIT (kind));
        }
      if (prog != NULL)
        g_hash_table_insert (cache, g_steal_pointer (&key), prog);
    }
  g_mutex_unlock (&cache_lock);
  return prog != NULL ? sys_program_algo (prog) : NULL;
}
