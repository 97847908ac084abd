/* json_skim.h: the few members of a large JSON file's root object that a
 * reader needs, read in one pass without holding the rest (plot-data reads
 * four members of a report whose critical path alone can be 300 MB; as a
 * json-glib tree the whole report took 2.3 GB).
 *
 * What it models: a conservative kind of JSON, every file of which
 * json-glib 1.6's parser reads: RFC 8259 with whitespace of space, tab,
 * CR and LF only; a root object followed by whitespace only; containers
 * nested up to 32 levels below the root; strings of valid UTF-8 with no
 * control character, whose \u escapes lie in 0001-007f; numbers of at
 * most 18 integer digits, with at most 3 exponent digits; top-level member
 * names without escapes.
 * For such a file the text returned is the root object with the members
 * named in KEEP copied byte for byte and every other member's value
 * replaced by null, so json-glib makes of the members kept exactly what it
 * makes of them in the whole file.  For any other file (or one that cannot
 * be read) the answer is NULL: the caller parses the file itself, and its
 * errors stay json-glib's.
 * Ownership: the text returned is the caller's (g_free); PATH and KEEP are
 * borrowed.
 *
 * Layer: sim/app.  May include: GLib.
 */
#ifndef ORRERY_SIM_APP_JSON_SKIM_H
#define ORRERY_SIM_APP_JSON_SKIM_H

#include <glib.h>

/* KEEP: the names of the members to copy, NULL-terminated. */
char *app_json_skim (const char *path, const char *const *keep);

#endif /* ORRERY_SIM_APP_JSON_SKIM_H */
