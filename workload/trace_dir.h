/* trace_dir.h: which files of a trace set exist, from one listing of its
 * directory rather than a system call per file.
 *
 * What it models: the names in the directory of a trace set PREFIX
 * (PREFIX.0.et, PREFIX.1.et, ...) that start with PREFIX's last path
 * component, read once with readdir.  Finding a set's files asked the file
 * system three times per rank (PREFIX.R.et twice, PREFIX.R.json once); on
 * the 1,024 one-node traces of a ring all-reduce those calls were about
 * 7 ms of the 28 ms that loading took (2 to 3 us each on this project's
 * VM).  The answer is the same as g_file_test (path, G_FILE_TEST_EXISTS)
 * gives: a name the listing holds as anything but a symbolic link exists
 * (and its open then says why it cannot be read, as before); a link, or
 * an entry whose type readdir does not say, is asked of the file system,
 * so that a dangling link does not exist, as for access(2); a name the
 * listing lacks does not exist.  Without a listing (few ranks, where the
 * per-file calls are cheaper; a directory that cannot be read; one of more
 * entries than WL_TRACE_DIR_MAX_ENTRIES per expected file, where the
 * listing would cost more than it saves) every question goes to the file
 * system, as before.
 *
 * Ownership: the caller owns the WlTraceDir (wl_trace_dir_free); paths are
 * borrowed.  Not thread-safe.
 *
 * Layer: workload.  May include: GLib.
 */
#ifndef ORRERY_WORKLOAD_TRACE_DIR_H
#define ORRERY_WORKLOAD_TRACE_DIR_H

#include <glib.h>

/* Sets of fewer files are not listed: three calls per file cost less than
 * opening and reading the directory. */
#define WL_TRACE_DIR_MIN_FILES 32
/* The most directory entries read per expected file (the set's own files
 * in both forms, and some others) before the listing is given up. */
#define WL_TRACE_DIR_MAX_ENTRIES 8

typedef struct _WlTraceDir WlTraceDir;

/* The directory of the trace set PREFIX, listed when the set is expected
 * to hold FILES files or more (WL_TRACE_DIR_MIN_FILES).  Never NULL: a
 * directory that cannot be listed leaves every question to the file
 * system. */
WlTraceDir *wl_trace_dir_new (const char *prefix, guint32 files);
void wl_trace_dir_free (WlTraceDir *dir); /* accepts NULL */
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlTraceDir, wl_trace_dir_free)

/* Whether DIR holds a listing (FALSE: every question goes to the file
 * system).  For tests. */
gboolean wl_trace_dir_listed (const WlTraceDir *dir);

/* Whether PATH exists, as g_file_test (PATH, G_FILE_TEST_EXISTS) says.
 * DIR may be NULL (then it is that call). */
gboolean wl_trace_dir_exists (const WlTraceDir *dir, const char *path);

/* The path (PREFIX.N.et or PREFIX.N.json) of the lowest-numbered file of
 * the set with N >= RANKS, or NULL when
 * there is none.  A set that was not listed is listed now, however many
 * entries its directory holds, so that a file past a gap in the numbering
 * (which asking for BASE.RANKS.et does not find) is seen too; NULL when
 * the directory cannot be listed. */
char *wl_trace_dir_past (WlTraceDir *dir, guint32 ranks);

#endif /* ORRERY_WORKLOAD_TRACE_DIR_H */
