/* error.h: error domains and the codes they share.
 *
 * Every layer reports recoverable errors (bad input, I/O) through a GError in
 * its own domain; all domains use the codes below, and the program's exit
 * status is the code of the error that stopped it.  Programming errors are
 * assertions, never GErrors.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_ERROR_H
#define ORRERY_SIM_ERROR_H

#include <glib.h>

typedef enum
{
  SIM_ERROR_INPUT = 1,    /* usage, trace or config error */
  SIM_ERROR_INTERNAL = 2, /* an invariant broke: a bug in orrery */
  SIM_ERROR_DEADLOCK = 3, /* ranks left with unfinished work */
  SIM_ERROR_LIMIT = 4     /* --max-events or --max-sim-time reached */
} SimErrorCode;

#define SIM_ERROR (sim_error_quark ())
GQuark sim_error_quark (void);

/* Prefix an error's message with context ("file.xml:12: "), if set. */
void sim_error_prefix (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

/* The one checked allocation of every layer, for the arrays that grow with
 * the input (per rank, per link, per node): N elements of SIZE bytes (at
 * least one element, so the result is never NULL on success), zero-filled
 * when ZERO.  Where g_new would abort, it returns NULL and sets an input
 * error (SIM_ERROR, SIM_ERROR_INPUT) "out of memory allocating N x SIZE
 * bytes for WHAT" when the allocation fails or N x SIZE overflows.  Free
 * with g_free. */
gpointer sim_try_alloc (guint64 n, gsize size, gboolean zero, const char *what, GError **error);

/* sim_try_alloc's error, for callers that allocate otherwise (growing
 * arrays): always returns FALSE. */
gboolean sim_alloc_error (guint64 n, gsize size, const char *what, GError **error);

#endif /* ORRERY_SIM_ERROR_H */
