/* kernels.h: a COMP node's `kernels` attribute: its grammar, the table of
 * a trace's distinct kernel lists, the measured kernel table, and a list's
 * time under the kernel compute model.
 *
 * Grammar (fixed by the interface note; integers decimal, no
 * spaces):
 *
 *   list   := kernel (';' kernel)*
 *   kernel := op ':' key '=' value (',' key '=' value)*
 *
 *   gemm  m n k (required), batch (1), dtype (bf16), count (1)
 *   attn  dir (fwd | bwd), b, hq, sq, d (required), hkv (= hq), skv (= sq),
 *         causal (0 | 1, default 0), dtype (bf16), count (1)
 *   mem   bytes (required), what (a name: [a-z0-9_], up to 23 characters),
 *         flops (0), count (1)
 *
 * A list's time is the sum over its kernels of count x (the kernel's time +
 * the device's launch overhead), where the kernel's time is the measured
 * table's when it has the kernel (same op, shapes, dtype and device, after
 * defaults), else kernel_model.h's.
 *
 * The measured table is a CSV file with the header line
 * `operator,shapes,dtype,device,time`; shapes are the kernel's key=value
 * pairs separated by spaces, without dtype and count (`m=4096 n=4096
 * k=4096`, `dir=fwd b=1 hq=32 sq=4096 d=128 causal=1`, `bytes=33554432
 * what=rmsnorm`), time one launch's with a unit (ns, us, ms, s: `812us`).
 * Blank lines and lines starting with '#' are skipped, and so are a UTF-8
 * byte-order mark at the file's start and extra blanks (spaces, tabs)
 * between shapes.
 *
 * Ownership: WlKernelLists and WlKernelTable are owned by whoever made them
 * (free functions accept NULL).  A list's price is remembered in its
 * WlKernelLists for the device and table it was priced for.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_KERNELS_H
#define ORRERY_WORKLOAD_KERNELS_H

#include <glib.h>

#include "workload/kernel_model.h"

/* Parse TEXT, appending its kernels (WlKernel) to OUT.  FALSE with ERROR
 * (WL_ERROR, SIM_ERROR_INPUT) "kernels: ..." naming the bad token, e.g.
 * "kernels: 'gemm' needs k"; OUT may then hold the kernels before it. */
gboolean wl_kernels_parse (const char *text, GArray *out, GError **error);

/* A trace's distinct kernel lists, numbered from 1 in order of first
 * appearance (0 is a node without kernels). */
typedef struct _WlKernelLists WlKernelLists;

WlKernelLists *wl_kernel_lists_new (void);
void wl_kernel_lists_free (WlKernelLists *lists);

/* *INDEX: TEXT's list, parsed the first time TEXT is seen.  FALSE with
 * wl_kernels_parse's error. */
gboolean wl_kernel_lists_intern (WlKernelLists *lists, const char *text, guint32 *index,
                                 GError **error);
/* wl_kernel_lists_intern for the LEN bytes at TEXT (no NUL needed; none
 * inside), as the text they spell. */
gboolean wl_kernel_lists_intern_len (WlKernelLists *lists, const char *text, gsize len,
                                     guint32 *index, GError **error);

/* Whether A and B hold the same strings under the same numbers (NULL is
 * the empty table). */
gboolean wl_kernel_lists_equal (const WlKernelLists *a, const WlKernelLists *b);

/* Count the kernels of L's lists not yet in SEEN (keys the measured table
 * matches on, owned by SEEN: g_str_hash, g_free) into *DISTINCT, adding
 * them, and those of them TABLE has a row for on DEVICE into *FROM_TABLE:
 * how much of a run a measured table prices. */
void wl_kernel_lists_table_use (const WlKernelLists *l, const struct _WlKernelTable *table,
                                const char *device, GHashTable *seen, guint *distinct,
                                guint *from_table);

/* The measured kernel table. */
typedef struct _WlKernelTable WlKernelTable;

/* Parse TEXT (LEN bytes; the caller reads the file, bounded in size) read
 * from PATH.  A bad line is an error (WL_ERROR, SIM_ERROR_INPUT)
 * "PATH:LINE: ..." (a NUL byte, a kernel that does not parse, an unknown
 * dtype or device, a time without a unit, a time below the physical floor
 * of a preset device, a kernel given twice), and so is an empty table (no
 * header line: "PATH: empty: ..."); a header without rows is not. */
WlKernelTable *wl_kernel_table_parse (const char *path, const char *text, gsize len,
                                      GError **error);
/* Whether TABLE has a row for DEVICE (its name compared without case, as
 * wl_kernel_table_ns looks rows up). */
gboolean wl_kernel_table_has_device (const WlKernelTable *table, const char *device);
/* The devices of TABLE's rows as written, in order of their first row:
 * "A100-80GB, H100-SXM" ("" when it has no rows).  Free with g_free. */
char *wl_kernel_table_devices (const WlKernelTable *table);
void wl_kernel_table_free (WlKernelTable *table);

/* One launch's measured time of KERNEL on DEVICE in ns, or -1 (TABLE may be
 * NULL). */
double wl_kernel_table_ns (const WlKernelTable *table, const char *device,
                           const WlKernel *kernel);

/* The time in ns of KERNELS (WlKernel) on DEV: count x (time + launch
 * overhead) summed, times from TABLE (may be NULL) where it has them. */
double wl_kernel_list_ns (const WlKernelDevice *dev, const WlKernelTable *table,
                          const GArray *kernels);

/* wl_kernel_list_ns of list INDEX (>= 1), computed once per device and
 * table and remembered. */
double wl_kernel_lists_ns (WlKernelLists *lists, guint32 index, const WlKernelDevice *dev,
                           const WlKernelTable *table);

/* wl_kernel_lists_ns of list INDEX with SMS of DEV's SMs free
 * (wl_kernel_ns_on; SMS >= n_sm: wl_kernel_lists_ns).  A measured
 * table's time, taken on the whole device, is used as it is.  Prices are
 * remembered per (list, SMS). */
double wl_kernel_lists_ns_on (WlKernelLists *lists, guint32 index, const WlKernelDevice *dev,
                              const WlKernelTable *table, guint32 sms);

/* Add to OUT, per WlDtype, the matrix FLOPs of list INDEX (>= 1): count x
 * wl_kernel_flops of its GEMM and attention kernels, by their dtype (what
 * the tensor-core peak of that dtype is for; memory-bound kernels are left
 * out).  The report measures MFU against the peak of the dtype that has
 * most of them. */
void wl_kernel_lists_matrix_flops (const WlKernelLists *lists, guint32 index,
                                   double out[WL_DTYPE_N]);

#endif /* ORRERY_WORKLOAD_KERNELS_H */
