/* bytes_hash.h: the fast 64-bit hash loading finds a file it may have
 * seen by (graph_cache.h, replay_load.c), taken over every byte.
 *
 * Models: nothing of a machine.  Not cryptographic: loading compares every
 * byte of two files whose hashes meet, and no result rests on the hash;
 * a weak one costs comparisons, never a wrong answer.
 *
 * The shape is XXH3's long-input loop (Yann Collet, xxHash 0.8,
 * XXH3_accumulate_512 and XXH3_scrambleAcc): eight 64-bit lanes, each
 * adding the product of the two 32-bit halves of a word XORed with a
 * per-position constant and the neighbouring lane's word, 64 bytes a
 * stripe, the lanes scrambled every 1 KiB block so that moving a block
 * changes the hash.  It runs on SSE2 (every x86-64) or AVX2 when the
 * processor has it, and in plain C elsewhere: the same value on each.
 * (A sample of the bytes would not do: GPT-3's 1,024 generated traces,
 * all distinct, differ in so few places that a 64-byte sample of each
 * 4 KiB gave 422 hashes, and every meeting costs a comparison.)
 *
 * Threads: every function may be called from any thread at once.
 *
 * Layer: workload.  May include: GLib.
 */
#ifndef ORRERY_WORKLOAD_BYTES_HASH_H
#define ORRERY_WORKLOAD_BYTES_HASH_H

#include <glib.h>

/* Bytes fed at a time (wl_bytes_hash_feed): the lanes' block. */
#define WL_BYTES_HASH_BLOCK ((gsize) 1024)

/* A hash taken over bytes read in pieces.  Plain data: copy it freely. */
typedef struct
{
  guint64 acc[8];
} WlBytesHash;

/* H set to the state before any byte. */
void wl_bytes_hash_init (WlBytesHash *h);
/* Feed H the N bytes at P, N a multiple of WL_BYTES_HASH_BLOCK, that
 * follow those it was fed. */
void wl_bytes_hash_feed (WlBytesHash *h, const guint8 *p, gsize n);
/* The hash of the LEN bytes at P whose first LEN / WL_BYTES_HASH_BLOCK
 * blocks H was fed (the rest are read here): wl_bytes_hash (P, LEN). */
guint64 wl_bytes_hash_end (const WlBytesHash *h, const guint8 *p, gsize len);

/* A 64-bit hash of LEN bytes at P (P may be NULL when LEN is 0), mixing in
 * LEN: every byte. */
guint64 wl_bytes_hash (const guint8 *p, gsize len);
/* wl_bytes_hash of LEN bytes at P by each way this processor runs (plain
 * C first, then SSE2 and AVX2 where it has them) into OUT, their number
 * returned: for the tests, which check that every way gives one value. */
guint wl_bytes_hash_each (const guint8 *p, gsize len, guint64 out[3]);

#endif /* ORRERY_WORKLOAD_BYTES_HASH_H */
