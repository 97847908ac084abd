/* sha256.c: SHA-256 with the x86 SHA extensions, GChecksum otherwise. */
#include "workload/sha256.h"

#include <string.h>

#if defined(__x86_64__)
#define HAVE_SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#else
#define HAVE_SHA_NI 0
#endif

/* GChecksum counts in gssize: hash in pieces below that. */
static char *
checksum_hex (const guint8 *p, gsize len)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  for (gsize at = 0; at < len; at += (gsize) G_MAXINT32)
    g_checksum_update (sum, p + at, (gssize) MIN (len - at, (gsize) G_MAXINT32));
  return g_strdup (g_checksum_get_string (sum));
}

#if HAVE_SHA_NI

/* FIPS 180-4 section 4.2.2: the round constants. */
static const guint32 K[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* FIPS 180-4 section 5.3.3: the initial hash value. */
static const guint32 H0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

/* Compress N 64-byte blocks at P into STATE (a..h), 4 rounds per step
 * (sha256rnds2 does two; sha256msg1/msg2 extend the message schedule),
 * as Intel's "SHA extensions" white paper (2013) lays the rounds out. */
__attribute__ ((target ("sha,sse4.1,ssse3"))) static void
ni_blocks (guint32 state[8], const guint8 *p, gsize n)
{
  const __m128i swap = _mm_set_epi64x (0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_shuffle_epi32 (_mm_loadu_si128 ((const __m128i *) &state[0]), 0xB1);
  __m128i s1 = _mm_shuffle_epi32 (_mm_loadu_si128 ((const __m128i *) &state[4]), 0x1B);
  __m128i s0 = _mm_alignr_epi8 (tmp, s1, 8);  /* ABEF */
  s1 = _mm_blend_epi16 (s1, tmp, 0xF0);       /* CDGH */
  for (; n > 0; n--, p += 64)
    {
      __m128i save0 = s0, save1 = s1, w[4];
      for (int g = 0; g < 16; g++)
        {
          if (g < 4)
            w[g] = _mm_shuffle_epi8 (_mm_loadu_si128 ((const __m128i *) (p + 16 * (gsize) g)), swap);
          __m128i m = _mm_add_epi32 (w[g % 4], _mm_loadu_si128 ((const __m128i *) (K + 4 * (gsize) g)));
          s1 = _mm_sha256rnds2_epu32 (s1, s0, m);
          if (g >= 3 && g <= 14)
            {
              /* W for steps g+1: from the step before's msg1. */
              __m128i t = _mm_alignr_epi8 (w[g % 4], w[(g + 3) % 4], 4);
              w[(g + 1) % 4] = _mm_sha256msg2_epu32 (_mm_add_epi32 (w[(g + 1) % 4], t), w[g % 4]);
            }
          s0 = _mm_sha256rnds2_epu32 (s0, s1, _mm_shuffle_epi32 (m, 0x0E));
          if (g >= 1 && g <= 12)
            w[(g + 3) % 4] = _mm_sha256msg1_epu32 (w[(g + 3) % 4], w[g % 4]);
        }
      s0 = _mm_add_epi32 (s0, save0);
      s1 = _mm_add_epi32 (s1, save1);
    }
  tmp = _mm_shuffle_epi32 (s0, 0x1B);          /* FEBA */
  s1 = _mm_shuffle_epi32 (s1, 0xB1);           /* DCHG */
  s0 = _mm_blend_epi16 (tmp, s1, 0xF0);        /* DCBA */
  s1 = _mm_alignr_epi8 (s1, tmp, 8);           /* HGFE */
  _mm_storeu_si128 ((__m128i *) &state[0], s0);
  _mm_storeu_si128 ((__m128i *) &state[4], s1);
}

/* CPUID: leaf 7 EBX bit 29 (SHA), leaf 1 ECX bits 19 (SSE4.1) and 9 (SSSE3). */
static gboolean
cpu_has_sha (void)
{
  unsigned a, b, c, d;
  if (!__get_cpuid (1, &a, &b, &c, &d) || !(c & (1u << 19)) || !(c & (1u << 9)))
    return FALSE;
  if (!__get_cpuid_count (7, 0, &a, &b, &c, &d))
    return FALSE;
  return (b & (1u << 29)) != 0;
}

static char *
ni_hex (const guint8 *p, gsize len)
{
  guint32 state[8];
  memcpy (state, H0, sizeof state);
  ni_blocks (state, p, len / 64);
  /* FIPS 180-4 section 5.1.1: a 1 bit, zeros, and the length in bits
   * (big-endian, 64 bits) end the message on a block boundary. */
  guint8 tail[128] = { 0 };
  gsize rest = len % 64, n_tail = rest < 56 ? 64 : 128;
  if (rest > 0)
    memcpy (tail, p + len - rest, rest);
  tail[rest] = 0x80;
  guint64 bits = (guint64) len * 8;
  for (int i = 0; i < 8; i++)
    tail[n_tail - 1 - i] = (guint8) (bits >> (8 * i));
  ni_blocks (state, tail, n_tail / 64);
  char *hex = g_malloc (65);
  for (int i = 0; i < 8; i++)
    g_snprintf (hex + 8 * (gsize) i, 9, "%08x", state[i]);
  return hex;
}

#endif /* HAVE_SHA_NI */

gboolean
wl_sha256_accelerated (void)
{
#if HAVE_SHA_NI
  static gsize checked = 0;
  static gboolean has = FALSE;
  if (g_once_init_enter (&checked))
    {
      has = cpu_has_sha ();
      g_once_init_leave (&checked, 1);
    }
  return has;
#else
  return FALSE;
#endif
}

char *
wl_sha256_hex (const guint8 *p, gsize len)
{
  g_return_val_if_fail (p != NULL || len == 0, NULL);
#if HAVE_SHA_NI
  if (wl_sha256_accelerated ())
    return ni_hex (p, len);
#endif
  return checksum_hex (p, len);
}
