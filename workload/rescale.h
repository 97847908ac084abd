/* rescale.h: rewrite a data-parallel trace set captured on p ranks for q
 * ranks.
 *
 * Models: pure data parallelism.  Every rank runs the same graph; the
 * gradient buffer each rank holds is fixed by the model, not by p, so the
 * compute is unchanged and the collectives keep their per-rank buffers.
 *
 * Rules.  The input is PREFIX.0.et .. PREFIX.(p-1).et (each .json where
 * only that exists: chakra_json.h; p is the number of consecutive files
 * from 0).  Every rank's trace must be structurally
 * identical to rank 0's: the same nodes in the same order with the same ids,
 * types, names, dependencies, durations, inputs/outputs and attributes,
 * apart from start_time_micros and the attributes comm_src, comm_dst and
 * pg_name (typically the files are byte-identical).  Rank 0's trace is
 * written q times, as PREFIX2.0.et .. PREFIX2.(q-1).et, with its
 * GlobalMetadata (version) copied, and these changes:
 *   - collectives must run on the whole world: no pg_name, "" or "0", or a
 *     group whose METADATA definition holds all p ranks (or is empty);
 *   - comm_size per kind: all-reduce, reduce-scatter (incl. the block
 *     variant), all-to-all, reduce and broadcast are whole buffers and stay
 *     as they are; all-gather, gather and scatter give each rank's shard,
 *     so it becomes comm_size x p / q, rounded up to a whole byte (the
 *     gathered buffer stays the same); barriers carry no data;
 *   - a rooted collective's comm_root must be below q;
 *   - METADATA groups holding all p ranks are rewritten to hold 0 .. q-1
 *     (the list in the PyTorch converter's form: wl_group_list_wrap);
 *   - every other node (compute, memory, METADATA without groups, unknown
 *     types) is copied unchanged.
 * Refused, with an error naming the file and node: point-to-point nodes
 * (COMM_SEND/COMM_RECV), collectives on a proper subgroup or on a group the
 * trace does not define, METADATA defining a proper subgroup, ranks whose
 * traces differ structurally, q < 1, and unknown comm_type values.
 *
 * Ownership: the arguments are borrowed; nothing is kept.  Memory: rank
 * 0's nodes plus one node of the rank being compared.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_RESCALE_H
#define ORRERY_WORKLOAD_RESCALE_H

#include <glib.h>

/* Rescale the trace set FROM (a prefix) to Q ranks, writing OUT.<r>.et.
 * Returns FALSE with ERROR set (WL_ERROR, SIM_ERROR_INPUT) when it refuses
 * (see the rules above) or a file cannot be read or written; files may then
 * be partly written.  When P is not NULL it receives p. */
gboolean wl_rescale (const char *from, guint32 q, const char *out, guint32 *p, GError **error);

/* What wl_rescale_info found besides the files. */
typedef struct
{
  guint32 p;        /* the ranks of FROM */
  gboolean sharded; /* an all-gather or reduce-scatter: state sharded over the ranks (ZeRO, a
                     * distributed optimizer), whose compute on the shards is not rescaled and
                     * whose peak_memory_bytes was dropped */
} WlRescaleInfo;

/* wl_rescale, filling *INFO. */
gboolean wl_rescale_info (const char *from, guint32 q, const char *out, WlRescaleInfo *info,
                          GError **error);

#endif /* ORRERY_WORKLOAD_RESCALE_H */
