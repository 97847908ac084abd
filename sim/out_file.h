/* out_file.h: the one way output files are opened and put in place (run's
 * --report, --stats, --links and --timeline, plan's plan.csv, plot-data's
 * files, a sweep's), so that every output obeys the same rules.
 *
 * What it models: where an output goes and how it replaces what was there.
 *   - A regular file (or a name that does not exist yet) is written
 *     atomically: the text goes to a temporary file NAME.XXXXXX in the same
 *     folder (mode 0666 less the umask) and is renamed over NAME at commit.
 *     A reader, or a second run writing the same name at the same time,
 *     sees the old file or a complete new one, never a mixture: concurrent
 *     runs leave the output of one run or the other.  When the old file
 *     had contents, the new one is fsync'ed before the rename, so a crash
 *     cannot leave it empty (g_file_set_contents' rule).
 *   - A symbolic link is followed to its target, which is replaced as
 *     above: the link stays a link (a dangling link gets its target made).
 *   - Anything else (a character device such as /dev/null, a FIFO, a
 *     socket, or a link into /proc such as /dev/stdout, which names a file
 *     this process has open) is written in place: it is opened for
 *     writing and never replaced, so a device node stays a device node.
 *   - A directory goes the atomic way and fails at the rename, leaving the
 *     directory as it was (sim_out_file_check refuses it before any work).
 * Errors are G_FILE_ERROR in g_file_set_contents' words ("Failed to create
 * file “NAME.XXXXXX”: why", with the Xs as they are, "Failed to rename
 * file ..."), but for a folder that does not exist ("the folder DIR does
 * not exist"); a failed commit
 * or a discard removes the temporary file, so nothing is left behind; so
 * does SIGINT, SIGTERM or SIGHUP while it is open (a handler, installed at
 * the first temporary file where the signal is not ignored, removes the
 * open ones, puts back the action there was and raises the signal again).
 * Ownership: the writer is the caller's from _open until _commit or
 * _discard, which free it; the file descriptor belongs to the writer (a
 * caller that wraps it in a stdio or zlib stream hands that a dup()).
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_OUT_FILE_H
#define ORRERY_SIM_OUT_FILE_H

#include <glib.h>

typedef struct _SimOutFile SimOutFile;

/* Open PATH's output as the header says: NULL with ERROR set when the
 * temporary file (or the target, in place) cannot be opened. */
SimOutFile *sim_out_file_open (const char *path, GError **error);

/* The descriptor to write to, open until _commit or _discard. */
int sim_out_file_fd (const SimOutFile *out);

/* Never fsync the new file before the rename, even over an old one with
 * contents: for outputs made by the thousand and cheaply made again (a
 * workload's traces), where a sync each costs seconds in all; a crash may
 * then leave such a file empty. */
void sim_out_file_skip_sync (SimOutFile *out);

/* The file the output is for (the target, not the temporary file, so that
 * messages are the same from run to run). */
const char *sim_out_file_name (const SimOutFile *out);

/* Close the file and put it in place: FALSE with ERROR set (and the
 * temporary file removed) when the sync, close or rename fails.  Frees
 * OUT. */
gboolean sim_out_file_commit (SimOutFile *out, GError **error);

/* Close the file and remove the temporary file (a write failed): what
 * PATH was stays.  Frees OUT; NULL is accepted. */
void sim_out_file_discard (SimOutFile *out);

/* Write LEN bytes of TEXT (LEN -1: up to its NUL) to PATH through a
 * writer, as g_file_set_contents would, with the rules above (a device
 * written in place, a link followed): FALSE with ERROR set, and PATH as it
 * was, when it cannot be.  For the smaller files other commands write
 * whole (plan.csv, plot-data's files, a sweep's). */
gboolean sim_out_file_set_contents (const char *path, const char *text, gssize len,
                                    GError **error);

/* Whether PATH can be written, before any work is done: a temporary file
 * is created beside the target and removed (in-place targets must
 * exist).  FALSE with ERROR set, in _open's words, when not. */
gboolean sim_out_file_check (const char *path, GError **error);

/* Set ERROR to G_FILE_ERROR from errno ERR, as g_file_set_contents words
 * it: FORMAT holds one %s for FILE's display name, then ": why". */
void sim_out_file_error (GError **error, int err, const char *format, const char *file);

/* What PATH names once links and the folder are resolved (an absolute
 * path), to tell two options naming the same file apart from two
 * different ones; NULL for an in-place target (writing a device twice
 * loses nothing) or a folder that cannot be resolved.  Free with
 * g_free. */
char *sim_out_file_identity (const char *path);

/* Whether the output OUT would replace the existing input file IN: both
 * exist and are the same regular file once links are followed (hard links
 * included).  An output that does not exist yet cannot be an input. */
gboolean sim_out_file_is (const char *out, const char *in);

/* Whether OUT names (links and the folders resolved, where they exist)
 * PREFIX.RANK.et or PREFIX.RANK.json, RANK one or more digits: a trace of
 * the set PREFIX, written or to be written. */
gboolean sim_out_file_names_set (const char *out, const char *prefix);

/* Whether the output OUT would replace a trace of the set PREFIX: OUT is an
 * existing regular file and sim_out_file_names_set. */
gboolean sim_out_file_in_set (const char *out, const char *prefix);

#endif /* ORRERY_SIM_OUT_FILE_H */
