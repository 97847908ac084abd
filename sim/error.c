/* error.c: the sim error domain. */
#include "sim/error.h"

G_DEFINE_QUARK (orrery-sim-error-quark, sim_error)

gpointer
sim_try_alloc0 (gsize n, gsize size, const char *what, GError **error)
{
  gsize bytes = 0;
  gpointer p = NULL;
  if (g_size_checked_mul (&bytes, MAX (n, 1), size) && (p = g_try_malloc0 (bytes)) != NULL)
    return p;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "out of memory allocating %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT
               " bytes for %s", (guint64) MAX (n, 1), (guint64) size, what);
  return NULL;
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
