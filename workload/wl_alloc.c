/* wl_alloc.c: growable arrays whose every growth is checked. */
#include "workload/wl_alloc.h"

#include "sim/error.h"

gboolean
wl_vec_reserve (WlVec *v, gsize n, const char *what, GError **error)
{
  if (v->cap - v->len >= n)
    return TRUE;
  gsize want = v->len + n, cap = MAX (v->cap, (gsize) 16), bytes = 0;
  while (cap < want && cap <= G_MAXSIZE / 2)
    cap *= 2;
  cap = MAX (cap, want);
  gpointer p = NULL;
  if (g_size_checked_mul (&bytes, cap, v->elt))
    p = g_try_realloc (v->data, bytes);
  if (p == NULL)
    return sim_alloc_error (cap, v->elt, what, error);
  v->data = p;
  v->cap = cap;
  return TRUE;
}

gpointer
wl_vec_steal (WlVec *v)
{
  gpointer p = v->data;
  v->data = NULL;
  v->len = v->cap = 0;
  return p;
}

void
wl_vec_clear (WlVec *v)
{
  g_free (wl_vec_steal (v));
}
