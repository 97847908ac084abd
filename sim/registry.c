/* registry.c: a table of classes that grows at run time. */
#include "sim/registry.h"

#include "sim/error.h"

guint
sim_registry_count (SimRegistry *r)
{
  g_mutex_lock (&r->lock);
  guint n = r->n_builtin + (r->added != NULL ? r->added->len : 0);
  g_mutex_unlock (&r->lock);
  return n;
}

const void *
sim_registry_nth (SimRegistry *r, guint i)
{
  if (i < r->n_builtin)
    return r->builtin[i];
  i -= r->n_builtin;
  g_mutex_lock (&r->lock);
  const void *row = r->added != NULL && i < r->added->len ? r->added->pdata[i] : NULL;
  g_mutex_unlock (&r->lock);
  return row;
}

/* Is a row like ROW there?  Called with the lock held. */
static gboolean
registry_has (const SimRegistry *r, const void *row,
              gboolean (*same) (const void *row, const void *other))
{
  for (guint i = 0; i < r->n_builtin; i++)
    if (same (row, r->builtin[i]))
      return TRUE;
  for (guint i = 0; r->added != NULL && i < r->added->len; i++)
    if (same (row, r->added->pdata[i]))
      return TRUE;
  return FALSE;
}

gboolean
sim_registry_add (SimRegistry *r, const void *row,
                  gboolean (*same) (const void *row, const void *other),
                  const SimRegistryName *name, guint *index, GError **error)
{
  g_return_val_if_fail (row != NULL && same != NULL && name != NULL, FALSE);
  g_mutex_lock (&r->lock);
  gboolean taken = registry_has (r, row, same);
  guint i = 0;
  if (!taken)
    {
      if (r->added == NULL)
        r->added = g_ptr_array_new ();
      g_ptr_array_add (r->added, (gpointer) row);
      i = r->n_builtin + r->added->len - 1;
    }
  g_mutex_unlock (&r->lock);
  if (taken)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s '%s' is registered twice", name->what,
                   name->name);
      return FALSE;
    }
  if (index != NULL)
    *index = i;
  return TRUE;
}
