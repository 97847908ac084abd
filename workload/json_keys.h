/* json_keys.h: catch a key repeated within one JSON object.
 *
 * What it models: json-glib keeps the last of two members with the same
 * name and says nothing, so a file that sets a value twice would run with
 * whichever came last.  A watch on a JsonParser counts the members parsed
 * into each object (the parser's "object-member" signal) against the
 * members the object holds: fewer held than parsed means a key came twice.
 * Keys are compared as strings, byte for byte, as JSON compares them.
 * Time: constant per member; memory: one counter per object, freed with
 * the watch.
 *
 * Ownership: the watch borrows the parser, which must outlive it; free the
 * watch (it disconnects) before or after the parse, never during it.
 *
 * Layer: workload.  May include: sim, GLib, json-glib.
 */
#ifndef ORRERY_WORKLOAD_JSON_KEYS_H
#define ORRERY_WORKLOAD_JSON_KEYS_H

#include <glib.h>
#include <json-glib/json-glib.h>

typedef struct _WlJsonKeys WlJsonKeys;

/* Start watching PARSER's next parse. */
WlJsonKeys *wl_json_keys_watch (JsonParser *parser);
void wl_json_keys_free (WlJsonKeys *keys); /* accepts NULL */

/* The first key found twice in one object, or NULL. */
const char *wl_json_keys_repeated (const WlJsonKeys *keys);

/* FALSE with "WHERE: key "K" appears twice in one object" (an input error)
 * when a key was repeated; WHERE names the file. */
gboolean wl_json_keys_check (const WlJsonKeys *keys, const char *where, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlJsonKeys, wl_json_keys_free)

#endif /* ORRERY_WORKLOAD_JSON_KEYS_H */
