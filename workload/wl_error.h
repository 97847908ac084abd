/* wl_error.h: the workload layer's error domain.
 *
 * What it models: recoverable failures while reading, writing or checking
 * workloads (bad Chakra traces, unwritable outputs).  Codes are the shared
 * SimErrorCode values of sim/error.h, so the program's exit status follows
 * from the code: a bad trace is SIM_ERROR_INPUT.
 * Ownership: nothing is allocated here.
 *
 * Layer: workload.  May include: sim, GLib, protobuf-c, zlib.
 */
#ifndef ORRERY_WORKLOAD_WL_ERROR_H
#define ORRERY_WORKLOAD_WL_ERROR_H

#include <sys/stat.h>

#include <glib.h>

#include "sim/error.h"

#define WL_ERROR (wl_error_quark ())

/* The GQuark of the workload error domain; codes are SimErrorCode. */
GQuark wl_error_quark (void);

/* TRUE when FD (opened from PATH) is a regular file.  Otherwise FALSE with
 * ERROR set (SIM_ERROR_INPUT) saying what it is: a trace is read more than
 * once (hashed, then loaded), and a device such as /dev/zero or a pipe
 * never ends, so only files are traces. */
gboolean wl_file_check_regular (int fd, const char *path, GError **error);
/* The same, leaving FD's status in *ST (when TRUE), so that a caller that
 * needs it (the size) does not ask twice. */
gboolean wl_file_check_regular_stat (int fd, const char *path, struct stat *st, GError **error);

/* The same for PATH, opened for the check (without blocking on a FIFO);
 * FALSE with ERROR also when it cannot be opened. */
gboolean wl_path_check_regular (const char *path, GError **error);

#endif /* ORRERY_WORKLOAD_WL_ERROR_H */
