/* sha256.h: the SHA-256 of bytes in memory, with the CPU's SHA instructions
 * when it has them.
 *
 * Models: FIPS 180-4's SHA-256.  Loading takes the digest of every trace
 * file (byte-identical files share one graph, and reports print it); GLib's
 * GChecksum computes it in portable C at about 50 instructions per byte,
 * which made hashing the largest part of loading.  x86-64 processors with
 * the SHA extensions (Intel since Ice Lake and Goldmont, AMD since Zen)
 * compute a 64-byte block in a few dozen instructions; elsewhere this falls
 * back to GChecksum.  Both give the same digest.
 *
 * Layer: workload.  May include: GLib.
 */
#ifndef ORRERY_WORKLOAD_SHA256_H
#define ORRERY_WORKLOAD_SHA256_H

#include <glib.h>

/* The SHA-256 of LEN bytes at P (P may be NULL when LEN is 0) as 64
 * lower-case hex digits, newly allocated (g_free). */
char *wl_sha256_hex (const guint8 *p, gsize len);

/* TRUE when wl_sha256_hex uses the CPU's SHA instructions (so that a test
 * can say which path it checked). */
gboolean wl_sha256_accelerated (void);

#endif /* ORRERY_WORKLOAD_SHA256_H */
