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

/* What a registry's rows are called in its errors ("algorithm") and the
 * row's own name, for sim_registry_add's message. */
typedef struct
{
  const char *what;
  const char *name;
} SimRegistryName;

/* A registry of a static array of class pointers. */
#define SIM_REGISTRY_INIT(array)                                                               \
  { (const void *const *) (array), G_N_ELEMENTS (array), NULL, { 0 } }

guint sim_registry_count (SimRegistry *registry);
/* Row i, or NULL past the end. */
const void *sim_registry_nth (SimRegistry *registry, guint i);
/* Append ROW unless a row already there is SAME as it (SAME (row, other)
 * TRUE): the check and the append are one step under the lock, so two
 * threads adding one name cannot both succeed.  TRUE with *INDEX (may be
 * NULL) set to the new row's index; FALSE when a like row exists, with
 * ERROR set to "WHAT 'NAME' is registered twice". */
gboolean sim_registry_add (SimRegistry *registry, const void *row,
                           gboolean (*same) (const void *row, const void *other),
                           const SimRegistryName *name, guint *index, GError **error);

#endif /* ORRERY_SIM_REGISTRY_H */
