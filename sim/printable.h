/* printable.h: text from the inputs made safe to show on a terminal.
 *
 * Trace node names, process-group names and paths are copied from the
 * inputs byte for byte into messages, the summary and inspect's defects;
 * an escape sequence among them ("\x1b]0;...") would reach the terminal and
 * act there.  Everything orrery prints that can hold such text passes
 * through sim_printable.
 *
 * What it models: C0 control characters (below 0x20), DEL (0x7f), C1
 * control characters (U+0080..U+009F) and bytes that are not UTF-8, each
 * shown as \xNN (a C1 character as the \xNN of both its bytes); a
 * backslash stays as it is; valid UTF-8 otherwise passes unchanged.
 *
 * Ownership: the text is borrowed; the result is the caller's (g_free).
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_PRINTABLE_H
#define ORRERY_SIM_PRINTABLE_H

#include <glib.h>

/* TEXT with the characters above escaped; line feeds and tabs are kept when
 * KEEP_LINES (a message of several lines), else escaped too (one name). */
char *sim_printable (const char *text, gboolean keep_lines);

#endif /* ORRERY_SIM_PRINTABLE_H */
