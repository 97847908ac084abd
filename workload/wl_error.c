/* wl_error.c: the workload error domain. */
#include "workload/wl_error.h"

G_DEFINE_QUARK (orrery-workload-error-quark, wl_error)
