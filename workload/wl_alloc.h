/* wl_alloc.h: allocations that a large input can make fail, reported as
 * input errors instead of aborting.
 *
 * What it models: the big per-node and per-rank arrays of loading and
 * replay.  GLib's g_new aborts when memory runs out; these helpers use
 * g_try_malloc and g_try_realloc and set an error (WL_ERROR,
 * SIM_ERROR_INPUT) "out of memory allocating N bytes for WHAT", where WHAT
 * names the array, so that a trace too large for the machine (or for an
 * address-space limit) ends with exit status 1 and a message, not a crash.
 * Sizes whose product overflows count as failures.
 *
 * WlVec is a growable array of fixed-size elements (capacity doubling),
 * every growth checked.
 *
 * Ownership: wl_try_alloc's result and a WlVec's data belong to the
 * caller (g_free; wl_vec_clear).
 *
 * Layer: workload.  May include: sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_WL_ALLOC_H
#define ORRERY_WORKLOAD_WL_ALLOC_H

#include <glib.h>

/* Set ERROR to "out of memory allocating B bytes for WHAT", B being N x SIZE
 * (saturated at 2^64 - 1), and return FALSE. */
gboolean wl_alloc_error (guint64 n, gsize size, const char *what, GError **error);

/* N elements of SIZE bytes (at least one element is allocated, so the
 * result is never NULL on success), zero-filled when ZERO.  NULL with
 * ERROR set when the allocation fails. */
gpointer wl_try_alloc (guint64 n, gsize size, gboolean zero, const char *what, GError **error);

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
