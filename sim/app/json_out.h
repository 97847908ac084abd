/* json_out.h: a JSON document written to its file as it is produced, so
 * that a report of any size never lives in memory (the JSON report of a
 * 1 M-node chain is 300 MB of text: built as a json-glib tree first, the
 * run peaked at 2.5 GB).
 *
 * What it models: the text json-glib 1.6's JsonGenerator writes with
 * pretty printing, byte for byte, so that reports stay what they were:
 *   - two spaces per level; each member or element on its own line,
 *     `"name" : value`, a comma after all but the last; no final newline;
 *   - an empty array is `[]`, an empty object `{`, the indentation of its
 *     own level, `}` (json-glib's dump_object indents before the brace
 *     even with no member);
 *   - strings and member names escaped as json-glib's json_strescape:
 *     `"` and `\` behind a backslash, \b \t \n \f \r, \u00xx for the other
 *     bytes 0x01-0x1f and for 0x7f; `/` and valid UTF-8 pass through
 *     unchanged; bytes that are not UTF-8 become U+FFFD, so that the file
 *     is valid JSON whatever a trace's names hold (json_strescape passed
 *     them, and 0x1f, through);
 *   - integers in decimal; doubles as g_ascii_dtostr gives them (%.17g in
 *     the C locale: 0.1 is 0.10000000000000001) with ".0" appended when
 *     that text has no '.' (so -0.0, 100.0, but also 1e+22.0 and inf.0:
 *     json-glib's rule, kept for identical output).
 * The file: opened, replaced or written in place as out_file.h says for
 * every output (a regular file through a temporary file renamed over it
 * when closed, a device written in place), so PATH is never left half
 * written and concurrent writers leave one complete document.
 * Errors: the first write error is kept and later output dropped; close
 * reports it (G_FILE_ERROR, in g_file_set_contents' words, naming the
 * temporary file) and removes the temporary file.
 * Ownership: the writer is the caller's from _open until _close, which
 * frees it whatever happens; names and values are borrowed for the call.
 *
 * Layer: sim/app.  May include: sim/app (out_file), GLib.
 */
#ifndef ORRERY_SIM_APP_JSON_OUT_H
#define ORRERY_SIM_APP_JSON_OUT_H

#include <glib.h>

typedef struct _AppJsonOut AppJsonOut;

/* Open PATH's output (sim_out_file_open): NULL with ERROR set when it
 * cannot be opened. */
AppJsonOut *app_json_out_open (const char *path, GError **error);

/* Write what is buffered, close, and put the file in place: FALSE
 * with ERROR set (and no file left behind) on the first error of the
 * writer's life.  Frees OUT. */
gboolean app_json_out_close (AppJsonOut *out, GError **error);

/* Fail the document with ERROR (taken), unless it failed already: later
 * output is dropped and close reports the first error, as for a write
 * error.  For what the caller could not produce (memory). */
void app_json_out_fail (AppJsonOut *out, GError *error);

/* Values.  NAME is the member's name inside an object, NULL for an element
 * of an array and for the document's root. */
void app_json_out_begin_object (AppJsonOut *out, const char *name);
void app_json_out_end_object (AppJsonOut *out);
void app_json_out_begin_array (AppJsonOut *out, const char *name);
void app_json_out_end_array (AppJsonOut *out);
void app_json_out_int (AppJsonOut *out, const char *name, gint64 value);
/* A count or time of 64 bits unsigned: the same decimal text as _int up
 * to 2^63 - 1, and the exact value beyond (a time past 106 days of
 * simulated picoseconds, cast to gint64, came out negative). */
void app_json_out_uint (AppJsonOut *out, const char *name, guint64 value);
void app_json_out_double (AppJsonOut *out, const char *name, double value);
void app_json_out_string (AppJsonOut *out, const char *name, const char *value);

/* TEXT as a JSON string, quotes included, escaped as above, appended to S:
 * the one escaping of every JSON orrery writes (reports, timelines). */
void app_json_append_string (GString *s, const char *text);
void app_json_out_boolean (AppJsonOut *out, const char *name, gboolean value);
void app_json_out_null (AppJsonOut *out, const char *name);

#endif /* ORRERY_SIM_APP_JSON_OUT_H */
