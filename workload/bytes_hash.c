/* bytes_hash.c: the 64-bit hash of a file's bytes, in plain C, SSE2 and
 * AVX2 (the same value from each). */
#include "workload/bytes_hash.h"

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define HAVE_X86_VECTORS 1
#include <immintrin.h>
#else
#define HAVE_X86_VECTORS 0
#endif

/* xxHash64's primes (Yann Collet, xxHash, XXH_PRIME64_1 .. 5) and
 * XXH_PRIME32_1: odd constants with well-spread bits, as any
 * multiplicative hash needs. */
#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull
#define P32 0x9E3779B1u

#define STRIPE ((gsize) 64) /* bytes: eight lanes of eight */
#define STRIPES (WL_BYTES_HASH_BLOCK / STRIPE)

/* The per-position constants: stripe S of a block XORs its eight words
 * with KEY[2 S .. 2 S + 7] (each stripe's start 16-byte aligned, for the
 * vector loads), and the block's scramble uses KEY[SCRAMBLE ..].  They
 * are splitmix64's outputs from 0 (Steele, Lea and Flood, "Fast
 * splittable pseudorandom number generators", 2014): any well-mixed bits
 * do. */
#define SCRAMBLE (2 * (STRIPES - 1) + 8)
static _Alignas (32) const guint64 key[SCRAMBLE + 8] = {
  0xE220A8397B1DCDAFULL, 0x6E789E6AA1B965F4ULL, 0x06C45D188009454FULL,
  0xF88BB8A8724C81ECULL, 0x1B39896A51A8749BULL, 0x53CB9F0C747EA2EAULL,
  0x2C829ABE1F4532E1ULL, 0xC584133AC916AB3CULL, 0x3EE5789041C98AC3ULL,
  0xF3B8488C368CB0A6ULL, 0x657EECDD3CB13D09ULL, 0xC2D326E0055BDEF6ULL,
  0x8621A03FE0BBDB7BULL, 0x8E1F7555983AA92FULL, 0xB54E0F1600CC4D19ULL,
  0x84BB3F97971D80ABULL, 0x7D29825C75521255ULL, 0xC3CF17102B7F7F86ULL,
  0x3466E9A083914F64ULL, 0xD81A8D2B5A4485ACULL, 0xDB01602B100B9ED7ULL,
  0xA9038A921825F10DULL, 0xEDF5F1D90DCA2F6AULL, 0x54496AD67BD2634CULL,
  0xDD7C01D4F5407269ULL, 0x935E82F1DB4C4F7BULL, 0x69B82EBC92233300ULL,
  0x40D29EB57DE1D510ULL, 0xA2F09DABB45C6316ULL, 0xEE521D7A0F4D3872ULL,
  0xF16952EE72F3454FULL, 0x377D35DEA8E40225ULL, 0x0C7DE8064963BAB0ULL,
  0x05582D37111AC529ULL, 0xD254741F599DC6F7ULL, 0x69630F7593D108C3ULL,
  0x417EF96181DAA383ULL, 0x3C3C41A3B43343A1ULL, 0x6E19905DCBE531DFULL,
  0x4FA9FA7324851729ULL, 0x84EB4454A792922AULL, 0x134F7096918175CEULL,
  0x07DC930B302278A8ULL, 0x12C015A97019E937ULL, 0xCC06C31652EBF438ULL,
  0xECEE65630A691E37ULL,
};

static inline guint64
rotl64 (guint64 x, int r)
{
  return (x << r) | (x >> (64 - r));
}

static inline guint64
load64 (const guint8 *p)
{
  guint64 v;
  memcpy (&v, p, sizeof v);
  return v;
}

static inline guint64
lane (guint64 acc, guint64 v)
{
  return rotl64 (acc + v * P2, 31) * P1;
}

/* ---- plain C ---------------------------------------------------------------- */

/* Stripe S of a block, at P, into ACC. */
static inline void
stripe_c (guint64 *acc, const guint8 *p, gsize s)
{
  for (gsize i = 0; i < 8; i++)
    {
      guint64 d = load64 (p + 8 * i);
      guint64 k = d ^ key[2 * s + i];
      acc[i ^ 1] += d;
      acc[i] += (k & 0xFFFFFFFFu) * (k >> 32);
    }
}

static void
blocks_c (guint64 *acc, const guint8 *p, gsize n)
{
  for (gsize b = 0; b < n; b++, p += WL_BYTES_HASH_BLOCK)
    {
      for (gsize s = 0; s < STRIPES; s++)
        stripe_c (acc, p + STRIPE * s, s);
      for (gsize i = 0; i < 8; i++)
        acc[i] = (acc[i] ^ (acc[i] >> 47) ^ key[SCRAMBLE + i]) * P32;
    }
}

/* ---- x86-64: SSE2 always, AVX2 where the processor has it ------------------- */

#if HAVE_X86_VECTORS

/* Each 64-bit lane times P32 (its low 32 bits by P32, plus its high 32
 * bits by P32 moved up: what fits in 64 bits of the product). */
static inline __m128i
times_p32_sse2 (__m128i x)
{
  const __m128i prime = _mm_set1_epi32 ((int) P32);
  __m128i lo = _mm_mul_epu32 (x, prime);
  __m128i hi = _mm_mul_epu32 (_mm_shuffle_epi32 (x, _MM_SHUFFLE (0, 3, 0, 1)), prime);
  return _mm_add_epi64 (lo, _mm_slli_epi64 (hi, 32));
}

static void
blocks_sse2 (guint64 *acc, const guint8 *p, gsize n)
{
  __m128i a[4];
  for (gsize j = 0; j < 4; j++)
    a[j] = _mm_loadu_si128 ((const __m128i *) (acc + 2 * j));
  for (gsize b = 0; b < n; b++, p += WL_BYTES_HASH_BLOCK)
    {
      for (gsize s = 0; s < STRIPES; s++)
        for (gsize j = 0; j < 4; j++)
          {
            __m128i d = _mm_loadu_si128 ((const __m128i *) (p + STRIPE * s + 16 * j));
            __m128i k = _mm_xor_si128 (d, _mm_load_si128 ((const __m128i *) (key + 2 * s
                                                                              + 2 * j)));
            /* Each word's low half times its high half; the words swapped
             * within the pair (lane i takes word i ^ 1). */
            __m128i kh = _mm_shuffle_epi32 (k, _MM_SHUFFLE (0, 3, 0, 1));
            a[j] = _mm_add_epi64 (a[j], _mm_mul_epu32 (k, kh));
            a[j] = _mm_add_epi64 (a[j], _mm_shuffle_epi32 (d, _MM_SHUFFLE (1, 0, 3, 2)));
          }
      for (gsize j = 0; j < 4; j++)
        {
          __m128i x = _mm_xor_si128 (a[j], _mm_srli_epi64 (a[j], 47));
          x = _mm_xor_si128 (x, _mm_load_si128 ((const __m128i *) (key + SCRAMBLE + 2 * j)));
          a[j] = times_p32_sse2 (x);
        }
    }
  for (gsize j = 0; j < 4; j++)
    _mm_storeu_si128 ((__m128i *) (acc + 2 * j), a[j]);
}

__attribute__ ((target ("avx2"))) static inline __m256i
times_p32_avx2 (__m256i x)
{
  const __m256i prime = _mm256_set1_epi32 ((int) P32);
  __m256i lo = _mm256_mul_epu32 (x, prime);
  __m256i hi = _mm256_mul_epu32 (_mm256_shuffle_epi32 (x, _MM_SHUFFLE (0, 3, 0, 1)), prime);
  return _mm256_add_epi64 (lo, _mm256_slli_epi64 (hi, 32));
}

/* blocks_sse2's, two pairs of lanes at a time. */
__attribute__ ((target ("avx2"))) static void
blocks_avx2 (guint64 *acc, const guint8 *p, gsize n)
{
  __m256i a[2];
  for (gsize j = 0; j < 2; j++)
    a[j] = _mm256_loadu_si256 ((const __m256i *) (acc + 4 * j));
  for (gsize b = 0; b < n; b++, p += WL_BYTES_HASH_BLOCK)
    {
      for (gsize s = 0; s < STRIPES; s++)
        for (gsize j = 0; j < 2; j++)
          {
            __m256i d = _mm256_loadu_si256 ((const __m256i *) (p + STRIPE * s + 32 * j));
            __m256i k = _mm256_xor_si256 (d, _mm256_loadu_si256 ((const __m256i *) (key + 2 * s
                                                                                    + 4 * j)));
            __m256i kh = _mm256_shuffle_epi32 (k, _MM_SHUFFLE (0, 3, 0, 1));
            a[j] = _mm256_add_epi64 (a[j], _mm256_mul_epu32 (k, kh));
            a[j] = _mm256_add_epi64 (a[j], _mm256_shuffle_epi32 (d, _MM_SHUFFLE (1, 0, 3, 2)));
          }
      for (gsize j = 0; j < 2; j++)
        {
          __m256i x = _mm256_xor_si256 (a[j], _mm256_srli_epi64 (a[j], 47));
          x = _mm256_xor_si256 (x, _mm256_loadu_si256 ((const __m256i *) (key + SCRAMBLE
                                                                           + 4 * j)));
          a[j] = times_p32_avx2 (x);
        }
    }
  for (gsize j = 0; j < 2; j++)
    _mm256_storeu_si256 ((__m256i *) (acc + 4 * j), a[j]);
}

#endif /* HAVE_X86_VECTORS */

typedef void (*BlocksFunc) (guint64 *acc, const guint8 *p, gsize n);

/* The fastest of the block loops this processor runs. */
static BlocksFunc
blocks_func (void)
{
#if HAVE_X86_VECTORS
  static gsize chosen = 0;
  static BlocksFunc func = blocks_sse2;
  if (g_once_init_enter (&chosen))
    {
      /* GCC's check asks the system too: AVX2 needs its registers saved. */
      if (__builtin_cpu_supports ("avx2"))
        func = blocks_avx2;
      g_once_init_leave (&chosen, 1);
    }
  return func;
#else
  return blocks_c;
#endif
}

/* ---- the hash ---------------------------------------------------------------- */

void
wl_bytes_hash_init (WlBytesHash *h)
{
  g_return_if_fail (h != NULL);
  static const guint64 init[8] = { P32, P1, P2, P3, P4, 0x85EBCA77u, P5, 0xC2B2AE3Du };
  memcpy (h->acc, init, sizeof init);
}

void
wl_bytes_hash_feed (WlBytesHash *h, const guint8 *p, gsize n)
{
  g_return_if_fail (h != NULL && n % WL_BYTES_HASH_BLOCK == 0);
  if (n > 0)
    blocks_func () (h->acc, p, n / WL_BYTES_HASH_BLOCK);
}

guint64
wl_bytes_hash_end (const WlBytesHash *h, const guint8 *p, gsize len)
{
  g_return_val_if_fail (h != NULL, 0);
  guint64 acc[8];
  memcpy (acc, h->acc, sizeof acc);
  /* The whole stripes past the last block, then the words and bytes past
   * them, as xxHash64 ends. */
  gsize i = len & ~(WL_BYTES_HASH_BLOCK - 1);
  for (gsize s = 0; i + STRIPE <= len; s++, i += STRIPE)
    stripe_c (acc, p + i, s);
  guint64 x = P5 + len;
  for (int k = 0; k < 8; k++)
    x = rotl64 (x ^ lane (0, acc[k]), 27) * P1 + P4;
  for (; i + 8 <= len; i += 8)
    x = rotl64 (x ^ lane (0, load64 (p + i)), 27) * P1 + P4;
  for (; i < len; i++)
    x = rotl64 (x ^ (p[i] * P5), 11) * P1;
  x ^= x >> 33;
  x *= P2;
  x ^= x >> 29;
  x *= P3;
  return x ^ (x >> 32);
}

guint64
wl_bytes_hash (const guint8 *p, gsize len)
{
  WlBytesHash h;
  wl_bytes_hash_init (&h);
  wl_bytes_hash_feed (&h, p, len & ~(WL_BYTES_HASH_BLOCK - 1));
  return wl_bytes_hash_end (&h, p, len);
}

/* The hash by the block loop FUNC. */
static guint64
hash_by (BlocksFunc func, const guint8 *p, gsize len)
{
  WlBytesHash h;
  wl_bytes_hash_init (&h);
  func (h.acc, p, len / WL_BYTES_HASH_BLOCK);
  return wl_bytes_hash_end (&h, p, len);
}

guint
wl_bytes_hash_each (const guint8 *p, gsize len, guint64 out[3])
{
  guint n = 0;
  out[n++] = hash_by (blocks_c, p, len);
#if HAVE_X86_VECTORS
  out[n++] = hash_by (blocks_sse2, p, len);
  if (blocks_func () == blocks_avx2)
    out[n++] = hash_by (blocks_avx2, p, len);
#endif
  return n;
}
