/* timeline_out.h: where a timeline's text goes: a file written through a
 * 64 KiB buffer to zlib (gzip-compressed when the name ends in ".gz",
 * plain otherwise), the events of its JSON array separated as they come,
 * and the number and string formatting the events need.
 *
 * What it models: output that never fails in the middle: the first write
 * error is kept, later writes are dropped, and app_timeline_out_close
 * reports it ("cannot write timeline PATH: why", SIM_ERROR_INPUT).  Numbers
 * are formatted with integer arithmetic only, so that times in
 * microseconds with six decimals are exact picoseconds and the output is
 * the same on every machine.  The file is opened and put in place as
 * out_file.h says for every output.
 * Ownership: the stream is the caller's from _open until _close, which
 * frees it; the GStrings handed out are the stream's buffer, appended to
 * and never kept.
 *
 * Layer: sim/app.  May include: sim/app (out_file), sim (errors, time), GLib, zlib.
 */
#ifndef ORRERY_SIM_APP_TIMELINE_OUT_H
#define ORRERY_SIM_APP_TIMELINE_OUT_H

#include <glib.h>

#include "sim/units.h"

typedef struct _AppTimelineOut AppTimelineOut;

/* Create PATH for writing: NULL with an input error when it cannot be. */
AppTimelineOut *app_timeline_out_open (const char *path, GError **error);

/* The buffer, to append text that is not an event (the header, the
 * closing brackets). */
GString *app_timeline_out_text (AppTimelineOut *out);

/* Start an event: the separator from the previous one (none before the
 * first); the caller appends the object to the buffer returned. */
GString *app_timeline_out_event (AppTimelineOut *out);

/* Flush, close and free OUT: FALSE with the first error of its life. */
gboolean app_timeline_out_close (AppTimelineOut *out, GError **error);

/* V in decimal. */
void app_timeline_append_u64 (GString *s, guint64 v);

/* Picoseconds as microseconds with six decimals, exactly. */
void app_timeline_append_us (GString *s, SimTime ps);

/* A JSON string, as app_json_append_string (json_out.h) writes it. */
void app_timeline_append_string (GString *s, const char *text);

/* ,"KEY": (the value follows). */
void app_timeline_append_key (GString *s, const char *key);

#endif /* ORRERY_SIM_APP_TIMELINE_OUT_H */
