/* error.c: the sim error domain. */
#include "sim/error.h"

G_DEFINE_QUARK (orrery-sim-error-quark, sim_error)

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
