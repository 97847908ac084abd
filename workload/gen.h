/* gen.h: trace generators: workloads made from a description instead of a
 * capture, written as ordinary Chakra files (PREFIX.<rank>.et).
 *
 * Models: a collective microbenchmark: every rank issues `count` collectives
 * of the same kind and size back to back (each depending on the previous),
 * as ASTRA-sim's microbenchmark traces do, either on all ranks or on a
 * layout of equal process groups.
 *
 * Group layout: `group_size` members per group, members `stride` ranks
 * apart.  Ranks are cut into blocks of group_size x stride consecutive
 * ranks; block k holds `stride` groups, group j of it being ranks
 * k*group_size*stride + j + i*stride for i = 0 .. group_size-1.  So stride 1
 * gives groups of consecutive ranks (the lines of dimension 0 of a grid),
 * and stride = ranks / group_size the "columns" of a 2-D layout.  Groups
 * are numbered 1 .. G in block order, then j; every rank's trace defines
 * all of them in one METADATA node (inputs.values in the PyTorch
 * converter's form, ['[{"pg_name": "1", "ranks": [...]}, ...]'], the one
 * ASTRA-sim reads: group_list.h) and every collective depends on it and names its group in
 * pg_name.  Without a layout the trace is one COMM_COLL node per collective,
 * with no group (all ranks).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GEN_H
#define ORRERY_WORKLOAD_GEN_H

#include <glib.h>

#include "system/sys_params.h"

typedef struct
{
  SysCollKind kind;
  guint32 ranks;      /* trace files, >= 1 */
  guint64 bytes;      /* comm_size (all-gather: each rank's input) */
  guint32 group_size; /* members per group; 0: no groups (all ranks) */
  guint32 stride;     /* rank distance between members; 0 means 1 */
  guint32 root;       /* rooted kinds: the root's member index in its group */
  guint32 count;      /* collectives per rank, back to back; 0 means 1 */
  /* When set, the groups go to this file as ASTRA-sim's comm-group JSON
   * (wl_group_list_write_comm_groups) and the traces carry no METADATA
   * node: ASTRA-sim 2.x (518bd51) asserts on every METADATA node. */
  const char *comm_groups_out;
} WlGenCollective;

/* Write PREFIX.0.et .. PREFIX.(ranks-1).et for REQ (borrowed).  Rooted kinds
 * carry comm_root, the rank of member `root` of the rank's group (of rank
 * `root` without groups).  FALSE with ERROR set (WL_ERROR, SIM_ERROR_INPUT)
 * when the layout does not tile the ranks (ranks not a multiple of
 * group_size x stride), the root is not a member index, or a file cannot be
 * written. */
gboolean wl_gen_collective_full (const char *prefix, const WlGenCollective *req, GError **error);

/* One collective of `kind` and comm_size `bytes` on all ranks, no groups. */
gboolean wl_gen_collective (const char *prefix, SysCollKind kind, guint32 ranks, guint64 bytes,
                            GError **error);

/* Chakra's CollectiveCommType value of a kind. */
int wl_chakra_comm_type_of (SysCollKind kind);

/* Append one process group to a METADATA list being built in S (which
 * starts with "["): {"pg_name": "ID", "ranks": [RANKS...]}, after a comma
 * unless it is the first.  The generators' one spelling of FORMAT.md's
 * group list. */
void wl_gen_group_append (GString *s, guint32 id, const guint32 *ranks, guint32 n);

/* "all_reduce", "all-reduce", "allreduce" (any case) -> kind. */
gboolean wl_coll_kind_parse (const char *name, SysCollKind *out);

#endif /* ORRERY_WORKLOAD_GEN_H */
