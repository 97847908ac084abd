/* gen.h: trace generators: workloads made from a description instead of a
 * capture, written as ordinary Chakra files (PREFIX.<rank>.et).
 *
 * Models: a collective microbenchmark: every rank issues one collective of
 * the same kind and size, as ASTRA-sim's microbenchmark traces do.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GEN_H
#define ORRERY_WORKLOAD_GEN_H

#include <glib.h>

#include "system/sys_params.h"

/* Write PREFIX.0.et .. PREFIX.(ranks-1).et, each one COMM_COLL node of
 * `kind` and comm_size `bytes` (all-gather: each rank's input). */
gboolean wl_gen_collective (const char *prefix, SysCollKind kind, guint32 ranks, guint64 bytes,
                            GError **error);

/* Chakra's CollectiveCommType value of a kind. */
int wl_chakra_comm_type_of (SysCollKind kind);

/* "all_reduce", "all-reduce", "allreduce" (any case) -> kind. */
gboolean wl_coll_kind_parse (const char *name, SysCollKind *out);

#endif /* ORRERY_WORKLOAD_GEN_H */
