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

#include <glib.h>

#include "sim/error.h"

#define WL_ERROR (wl_error_quark ())

/* The GQuark of the workload error domain; codes are SimErrorCode. */
GQuark wl_error_quark (void);

#endif /* ORRERY_WORKLOAD_WL_ERROR_H */
