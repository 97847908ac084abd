/* error.c: the sim error domain. */
#include "sim/error.h"

G_DEFINE_QUARK (orrery-sim-error-quark, sim_error)

gboolean
sim_alloc_error (guint64 n, gsize size, const char *what, GError **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "out of memory allocating %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
               " bytes for %s", MAX (n, (guint64) 1), (guint64) size, what);
  return FALSE;
}

gpointer
sim_try_alloc (guint64 n, gsize size, gboolean zero, const char *what, GError **error)
{
  gsize bytes = 0;
  gpointer p = NULL;
  if (n <= G_MAXSIZE && g_size_checked_mul (&bytes, MAX ((gsize) n, (gsize) 1), size))
    p = zero ? g_try_malloc0 (bytes) : g_try_malloc (bytes);
  if (p == NULL)
    sim_alloc_error (n, size, what, error);
  return p;
}

void
sim_error_prefix (GError **error, const char *format, ...)
{
  if (error == NULL || *error == NULL)
    return;
  va_list ap;
  va_start (ap, format);
  g_autofree char *prefix = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_prefix_error (error, "%s", prefix);
}
