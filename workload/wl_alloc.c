/* wl_alloc.c: checked allocations and growable arrays. */
#include "workload/wl_alloc.h"

#include "workload/wl_error.h"

gboolean
wl_alloc_error (guint64 n, gsize size, const char *what, GError **error)
{
  guint64 bytes = 0;
  if (!g_uint64_checked_mul (&bytes, n, size))
    bytes = G_MAXUINT64;
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "out of memory allocating %" G_GUINT64_FORMAT " bytes for %s", bytes, what);
  return FALSE;
}

gpointer
wl_try_alloc (guint64 n, gsize size, gboolean zero, const char *what, GError **error)
{
  gsize bytes = 0;
  gpointer p = NULL;
  if (n <= G_MAXSIZE && g_size_checked_mul (&bytes, MAX ((gsize) n, (gsize) 1), size))
    p = zero ? g_try_malloc0 (bytes) : g_try_malloc (bytes);
  if (p == NULL)
    wl_alloc_error (n, size, what, error);
  return p;
}

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
    return wl_alloc_error (cap, v->elt, what, error);
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
