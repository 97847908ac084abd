/* idmap.h: a map from trace node ids (uint64) to 32-bit values, such as
 * node indices.
 *
 * What it models: the id index of graph loading and of streamed replay,
 * where it holds one entry per node and is the largest structure after the
 * nodes themselves.  Open addressing with linear probing in two flat arrays
 * (12 bytes a slot, at most half the slots used, a quarter after growing),
 * GLib's hash for integers (times 11 modulo a prime: consecutive ids, the
 * common case, land at a steady stride, which keeps lookups in file order
 * cheap and probe runs short),
 * removal by backward shifting (no tombstones), so a map that entries leave
 * as fast as they come (a streaming window) stays small.  Every growth is
 * checked: running out of memory is an error (wl_alloc.h), not an abort.
 *
 * Ownership: the map owns its arrays; wl_id_map_free accepts NULL.
 *
 * Layer: workload.  May include: sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_IDMAP_H
#define ORRERY_WORKLOAD_IDMAP_H

#include <glib.h>

typedef struct _WlIdMap WlIdMap;

/* An empty map; WHAT names it in out-of-memory messages ("the node index"),
 * and is borrowed (a string literal). */
WlIdMap *wl_id_map_new (const char *what);
void wl_id_map_free (WlIdMap *m);

/* Map ID to VALUE (below G_MAXUINT32), replacing any earlier value.  FALSE
 * with ERROR set when the map cannot grow. */
gboolean wl_id_map_insert (WlIdMap *m, guint64 id, guint32 value, GError **error);

/* TRUE with *VALUE set when ID is mapped (VALUE may be NULL). */
gboolean wl_id_map_lookup (const WlIdMap *m, guint64 id, guint32 *value);

/* Remove ID; FALSE when it was not mapped. */
gboolean wl_id_map_remove (WlIdMap *m, guint64 id);


G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlIdMap, wl_id_map_free)

#endif /* ORRERY_WORKLOAD_IDMAP_H */
