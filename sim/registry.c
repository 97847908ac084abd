/* registry.c: a table of classes that grows at run time. */
#include "sim/registry.h"

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

guint
sim_registry_add (SimRegistry *r, const void *row)
{
  g_return_val_if_fail (row != NULL, 0);
  g_mutex_lock (&r->lock);
  if (r->added == NULL)
    r->added = g_ptr_array_new ();
  g_ptr_array_add (r->added, (gpointer) row);
  guint i = r->n_builtin + r->added->len - 1;
  g_mutex_unlock (&r->lock);
  return i;
}
