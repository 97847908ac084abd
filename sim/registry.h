/* registry.h: a table of classes that grows at run time: the built-in rows,
 * then those added since.  The layers' registries (algorithms, link models,
 * topology generators) are each one of these, so that adding a class is
 * adding a file and a row, or one call.
 *
 * Rows are borrowed pointers to classes that outlive the process's use of
 * them (static structs).  Adding and reading are safe from any thread; rows
 * are never removed, so an index stays valid.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_REGISTRY_H
#define ORRERY_SIM_REGISTRY_H

#include <glib.h>

typedef struct
{
  const void *const *builtin;
  guint n_builtin;
  GPtrArray *added; /* created on the first add */
  GMutex lock;      /* zero-filled static storage needs no initialization */
} SimRegistry;

/* A registry of a static array of class pointers. */
#define SIM_REGISTRY_INIT(array)                                                               \
  { (const void *const *) (array), G_N_ELEMENTS (array), NULL, { 0 } }

guint sim_registry_count (SimRegistry *registry);
/* Row i, or NULL past the end. */
const void *sim_registry_nth (SimRegistry *registry, guint i);
/* Append a row; returns its index. */
guint sim_registry_add (SimRegistry *registry, const void *row);

#endif /* ORRERY_SIM_REGISTRY_H */
