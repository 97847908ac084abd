/* wl_alloc.h: growable arrays whose growth a large input can make fail,
 * reported as input errors instead of aborting.
 *
 * What it models: the big per-node arrays of loading and streaming.  WlVec
 * is a growable array of fixed-size elements (capacity doubling); every
 * growth goes through g_try_realloc and a failure sets sim_alloc_error's
 * error (sim/error.h: "out of memory allocating N x SIZE bytes for WHAT"),
 * so that a trace too large for the machine ends with exit status 1 and a
 * message, not a crash.  Fixed-size checked allocations are
 * sim_try_alloc's (sim/error.h).
 *
 * Ownership: a WlVec's data belongs to the caller (wl_vec_steal,
 * wl_vec_clear).
 *
 * Layer: workload.  May include: sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_WL_ALLOC_H
#define ORRERY_WORKLOAD_WL_ALLOC_H

#include <glib.h>

#include "sim/error.h"

typedef struct
{
  guint8 *data;
  gsize len;  /* elements in use */
  gsize cap;  /* elements allocated */
  gsize elt;  /* bytes per element */
} WlVec;

#define WL_VEC_INIT(type) { NULL, 0, 0, sizeof (type) }

/* Room for N more elements; FALSE with ERROR set (naming WHAT) when the
 * array cannot grow. */
gboolean wl_vec_reserve (WlVec *v, gsize n, const char *what, GError **error);

/* A new element at the end (uninitialised), or NULL with ERROR set. */
static inline gpointer
wl_vec_push (WlVec *v, const char *what, GError **error)
{
  if (v->len == v->cap && !wl_vec_reserve (v, 1, what, error))
    return NULL;
  return v->data + v->elt * v->len++;
}

/* Element I. */
#define WL_VEC_AT(v, type, i) (((type *) (v)->data)[i])

/* Give up the data (the caller g_frees it; NULL when empty) and empty V. */
gpointer wl_vec_steal (WlVec *v);

/* Free the data and empty V. */
void wl_vec_clear (WlVec *v);


#endif /* ORRERY_WORKLOAD_WL_ALLOC_H */
