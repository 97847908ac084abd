/* test_bytes_hash.c: the hash loading finds a file it may have seen by
 * (bytes_hash.h): the vector code (SSE2, AVX2 where the processor has it)
 * gives the plain C code's value, fed at once or in pieces; any one
 * byte changed, any length, blocks or words moved, change it; and the
 * cache (graph_cache.h) takes a file for an earlier one only when every
 * byte is the same, wherever the one byte that differs lies (the first
 * block, a middle one, the last 64 bytes).
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/bytes_hash.h"
#include "workload/graph_cache.h"

#define BLOCK WL_BYTES_HASH_BLOCK

/* N bytes of a fixed, well-mixed sequence (Knuth's multiplicative
 * constant, the top byte of each product). */
static guint8 *
bytes_new (gsize n)
{
  guint8 *b = g_malloc (n);
  for (gsize i = 0; i < n; i++)
    b[i] = (guint8) ((i * 2654435761u) >> 24);
  return b;
}

START_TEST (test_vector_is_portable)
{
  gsize n = 5 * BLOCK + 100;
  g_autofree guint8 *b = bytes_new (n);
  /* Every length up to two blocks and a stripe past them (each length of
   * whole stripes, part-stripes and words), then every 7th to the end. */
  guint64 each[3];
  for (gsize len = 0; len <= n; len += len <= 2 * BLOCK + 64 ? 1 : 7)
    {
      guint ways = wl_bytes_hash_each (b, len, each);
      ck_assert_uint_ge (ways, 1);
      for (guint w = 0; w < ways; w++)
        ck_assert_msg (each[w] == wl_bytes_hash (b, len), "length %" G_GSIZE_FORMAT " way %u",
                       len, w);
    }
  /* Fed a block, then three, none, one, and the part-block at the end:
   * the same. */
  WlBytesHash h;
  wl_bytes_hash_init (&h);
  wl_bytes_hash_feed (&h, b, BLOCK);
  wl_bytes_hash_feed (&h, b + BLOCK, 3 * BLOCK);
  wl_bytes_hash_feed (&h, b + 4 * BLOCK, 0);
  wl_bytes_hash_feed (&h, b + 4 * BLOCK, BLOCK);
  ck_assert (wl_bytes_hash_end (&h, b, n) == wl_bytes_hash (b, n));
}
END_TEST

/* H added to SEEN; FALSE when it was there. */
static gboolean
fresh (GHashTable *seen, GArray *keep, guint64 h)
{
  g_array_append_val (keep, h);
  return g_hash_table_add (seen, g_memdup2 (&h, sizeof h));
}

START_TEST (test_every_change_shows)
{
  gsize n = 2 * BLOCK + 100; /* two blocks, a stripe, 36 bytes */
  g_autofree guint8 *b = bytes_new (n);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                       NULL);
  g_autoptr (GArray) keep = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (gsize len = 0; len <= n; len++)
    ck_assert_msg (fresh (seen, keep, wl_bytes_hash (b, len)), "length %" G_GSIZE_FORMAT, len);
  /* One bit, then a whole byte, changed anywhere: another hash each. */
  for (gsize i = 0; i < n; i++)
    for (guint8 x = 1; x != 0; x = x == 1 ? 0xFF : 0)
      {
        b[i] ^= x;
        ck_assert_msg (fresh (seen, keep, wl_bytes_hash (b, n)), "byte %" G_GSIZE_FORMAT, i);
        b[i] ^= x;
      }
  /* The same bytes moved: two blocks swapped, two stripes of a block, two
   * words of one pair of lanes (each lane adds its neighbour's word). */
  g_autofree guint8 *m = g_memdup2 (b, n);
  memcpy (m, b + BLOCK, BLOCK);
  memcpy (m + BLOCK, b, BLOCK);
  ck_assert (fresh (seen, keep, wl_bytes_hash (m, n)));
  memcpy (m, b, n);
  memcpy (m, b + 64, 64);
  memcpy (m + 64, b, 64);
  ck_assert (fresh (seen, keep, wl_bytes_hash (m, n)));
  memcpy (m, b, n);
  memcpy (m, b + 8, 8);
  memcpy (m + 8, b, 8);
  ck_assert (fresh (seen, keep, wl_bytes_hash (m, n)));
}
END_TEST

/* A trace of NODES compute nodes, each named by a run of 200 letters
 * (changing one keeps the trace valid), written to NAME; its bytes into
 * *BYTES, *LEN. */
static char *
write_named_trace (const char *name, guint nodes, char **bytes, gsize *len)
{
  char *path = tu_scratch_path (name);
  g_autofree ChakraProtoMsg__Node **n = g_new (ChakraProtoMsg__Node *, nodes);
  char label[201];
  for (guint i = 0; i < nodes; i++)
    {
      memset (label, 'a' + (int) (i % 26), 200);
      label[200] = '\0';
      n[i] = tu_node_new (i + 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, label);
      n[i]->duration_micros = 10;
    }
  tu_write_trace (path, n, nodes);
  for (guint i = 0; i < nodes; i++)
    tu_node_free (n[i]);
  ck_assert (g_file_get_contents (path, bytes, len, NULL));
  return path;
}

/* Loaded through a cache with THREADS workers, announced: a copy of a
 * trace shares its graph, and a copy with one letter of a name changed
 * at each place of WHERE (byte offsets) has a graph of its own. */
static void
assert_one_byte_apart (guint threads)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_autofree char *p0 = write_named_trace ("o.0.et", 20, &bytes, &len);
  ck_assert_uint_gt (len, 4 * BLOCK);
  /* The first letter of the first name (in the first block), the middle
   * of the eleventh (a middle block), and the last letter of the last
   * name, in the last 64 bytes: past the whole blocks, hashed at the end. */
  const char *first = memmem (bytes, len, "aaaa", 4);
  const char *middle = memmem (bytes, len, "kkkk", 4);
  const char *last = memmem (bytes, len, "tttt", 4);
  ck_assert_ptr_nonnull (first);
  ck_assert_ptr_nonnull (middle);
  ck_assert_ptr_nonnull (last);
  gsize where[3] = { (gsize) (first - bytes), (gsize) (middle - bytes) + 100,
                     (gsize) (last - bytes) + 199 };
  ck_assert_uint_lt (where[0], BLOCK);
  ck_assert_uint_ge (where[1], BLOCK);
  ck_assert_uint_lt (where[1], (len & ~(BLOCK - 1)) - BLOCK);
  ck_assert_uint_ge (where[2], len - 64);
  for (guint k = 0; k < 3; k++)
    ck_assert_int_eq (bytes[where[k]], "akt"[k]);
  g_autofree char *p1 = tu_scratch_path ("o.1.et");
  ck_assert (g_file_set_contents (p1, bytes, (gssize) len, NULL));
  char *paths[5] = { p0, p1 };
  for (guint k = 0; k < 3; k++)
    {
      char name[16];
      g_snprintf (name, sizeof name, "o.%u.et", k + 2);
      paths[k + 2] = tu_scratch_path (name);
      bytes[where[k]] ^= 0x20; /* 'a' to 'A': still a name */
      ck_assert (g_file_set_contents (paths[k + 2], bytes, (gssize) len, NULL));
      bytes[where[k]] ^= 0x20;
    }
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  wl_graph_cache_set_threads (cache, threads);
  wl_graph_cache_prefetch (cache, (const char *const *) paths, 5, G_MAXUINT64);
  WlGraph *g[5];
  for (guint i = 0; i < 5; i++)
    {
      GError *error = NULL;
      g[i] = wl_graph_cache_load_limited (cache, paths[i], G_MAXUINT64, NULL, &error);
      g_assert_no_error (error);
    }
  wl_graph_cache_prefetch_end (cache);
  ck_assert_ptr_eq (g[1], g[0]);
  for (guint i = 2; i < 5; i++)
    for (guint j = 0; j < i; j++)
      ck_assert_msg (g[i] != g[j], "%u taken for %u", i, j);
  ck_assert_uint_eq (wl_graph_cache_distinct (cache), 4);
  for (guint i = 0; i < 5; i++)
    wl_graph_unref (g[i]);
  for (guint k = 2; k < 5; k++)
    g_free (paths[k]);
}

START_TEST (test_cache_one_byte_apart)
{
  assert_one_byte_apart (1);
  assert_one_byte_apart (2);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("bytes_hash");
  TCase *tc = tu_tcase (s, "bytes_hash", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_vector_is_portable);
  tcase_add_test (tc, test_every_change_shows);
  tcase_add_test (tc, test_cache_one_byte_apart);
  return tu_run_suite (s);
}
