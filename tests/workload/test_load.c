/* test_load.c: loading a trace once, linearly: the file image and its
 * hash (graph_cache.h), the METADATA group memo (group_memo.h), decoding
 * into a per-frame arena (pb_arena.h, WL_CHAKRA_BORROW_NODES) and reading
 * from memory (wl_chakra_reader_open_bytes), each against the simple path
 * it replaces: the file's bytes, wl_group_defs_parse, owned nodes, reading
 * the file.  Expected groups and messages are written here by hand.
 */
#include <check.h>
#include <string.h>
#include <zlib.h>

#include "support/testutil.h"
#include "workload/graph.h"
#include "workload/graph_cache.h"
#include "workload/group_list.h"
#include "workload/group_memo.h"
#include "workload/pb_arena.h"
#include "workload/sha256.h"

/* Two groups {0,1} and {2,3}, as the generators write them. */
static const char LIST_A[]
  = "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]";
/* One group {3,0,2}: another list. */
static const char LIST_B[] = "[{\"pg_name\": \"7\", \"ranks\": [3, 0, 2]}]";
/* Group 5 = {1}, then an entry whose "ranks" is not a list (an absent one
 * is every rank, as PyTorch writes the world group). */
static const char LIST_BAD[]
  = "[{\"pg_name\": \"5\", \"ranks\": [1]}, {\"pg_name\": \"6\", \"ranks\": 6}]";

/* DEFS holds exactly the N groups IDS, group i having RANKS[i] (each list
 * ended by -1). */
static void
assert_groups (const GArray *defs, guint n, const guint64 *ids, const gint *const *ranks)
{
  ck_assert_uint_eq (defs->len, n);
  for (guint i = 0; i < n; i++)
    {
      const WlGroupDef *d = &g_array_index (defs, WlGroupDef, i);
      ck_assert_uint_eq (d->id, ids[i]);
      guint k = 0;
      while (ranks[i][k] >= 0)
        k++;
      ck_assert_uint_eq (d->ranks->len, k);
      for (guint j = 0; j < k; j++)
        ck_assert_uint_eq (g_array_index (d->ranks, guint32, j), (guint32) ranks[i][j]);
    }
}

static const guint64 IDS_A[] = { 1, 2 };
static const gint RANKS_A0[] = { 0, 1, -1 }, RANKS_A1[] = { 2, 3, -1 };
static const gint *const RANKS_A[] = { RANKS_A0, RANKS_A1 };
static const guint64 IDS_B[] = { 7 };
static const gint RANKS_B0[] = { 3, 0, 2, -1 };
static const gint *const RANKS_B[] = { RANKS_B0 };

START_TEST (test_memo_same_groups)
{
  g_autoptr (WlGroupMemo) memo = wl_group_memo_new ();
  g_autoptr (GArray) a1 = wl_group_defs_new ();
  g_autoptr (GArray) a2 = wl_group_defs_new ();
  g_autoptr (GArray) b = wl_group_defs_new ();
  ck_assert_ptr_null (wl_group_memo_parse (memo, LIST_A, a1));
  ck_assert_ptr_null (wl_group_memo_parse (memo, LIST_A, a2));
  ck_assert_ptr_null (wl_group_memo_parse (memo, LIST_B, b));
  assert_groups (a1, 2, IDS_A, RANKS_A);
  assert_groups (a2, 2, IDS_A, RANKS_A);
  assert_groups (b, 1, IDS_B, RANKS_B);
  /* One parse per distinct list: the second file's groups are the first's. */
  ck_assert_uint_eq (wl_group_memo_size (memo), 2);
  for (guint i = 0; i < 2; i++)
    ck_assert_ptr_eq (g_array_index (a1, WlGroupDef, i).ranks,
                      g_array_index (a2, WlGroupDef, i).ranks);
  /* The groups outlive the memo (they hold references). */
  g_clear_pointer (&memo, wl_group_memo_free);
  assert_groups (a2, 2, IDS_A, RANKS_A);
}
END_TEST

/* The common form, ['[...]'] (group_list.c reads it directly), gives the
 * groups of the same list read as plain JSON; and a wrapped list that is
 * not quite that form, or is faulty, still reads (or fails) as the
 * general parse says. */
START_TEST (test_common_form_groups)
{
  static const struct
  {
    const char *text;
    guint n;
  } good[] = {
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]']", 2 },
    /* The keys in the other order, other spacing, "1.0" naming group 1. */
    { "[ '[{\"ranks\":[0,1]},{\"pg_name\":\"2\",\"ranks\":[2 , 3]}]' ]", 0 },
    { "['[{\"ranks\": [0, 1], \"pg_name\": \"1.0\"}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]']", 2 },
    /* Plain JSON (the general path), and a tab (not the common form). */
    { LIST_A, 2 },
    { "['[{\"pg_name\": \"1\",\t\"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]']", 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GArray) defs = wl_group_defs_new ();
      const char *why = wl_group_defs_parse (good[i].text, defs);
      if (good[i].n == 0)
        {
          /* A group without pg_name: the general path's message. */
          ck_assert_str_eq (why, "METADATA process group needs a numeric \"pg_name\" (a decimal "
                                 "string or a non-negative integer)");
          continue;
        }
      ck_assert_ptr_null (why);
      assert_groups (defs, 2, IDS_A, RANKS_A);
    }
  g_autoptr (GArray) empty = wl_group_defs_new ();
  ck_assert_ptr_null (wl_group_defs_parse ("['[]']", empty));
  ck_assert_uint_eq (empty->len, 0);
  /* World group (an empty name), a rank out of range, a repeated key, a
   * rank that is not an integer: each the general path's message, with
   * the groups read before the fault. */
  static const struct
  {
    const char *text, *why;
    guint n;
  } bad[] = {
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, {\"pg_name\": \"\", \"ranks\": [2]}]']",
      "METADATA process group needs a numeric \"pg_name\" (a decimal string or a non-negative "
      "integer)", 1 },
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": "
      "[2147483647]}]']",
      "METADATA process group ranks must be ranks", 2 },
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1], \"ranks\": [2]}]']",
      "METADATA process group has the key \"ranks\" twice", 0 },
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1.5]}]']",
      "METADATA process group ranks must be ranks", 1 },
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]\n']",
      "METADATA node's process-group JSON does not parse", 0 },
    /* A string holding no JSON at all (empty, or spaces): json-glib parses
     * it to no root, which is no list (it was a critical, then the same
     * words). */
    { "['', '[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]']",
      "METADATA process groups must be a JSON list", 0 },
    { "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]', '  ']",
      "METADATA process groups must be a JSON list", 1 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GArray) defs = wl_group_defs_new ();
      ck_assert_str_eq (wl_group_defs_parse (bad[i].text, defs), bad[i].why);
      ck_assert_uint_eq (defs->len, bad[i].n);
    }
}
END_TEST

/* DEFS as text: "ID[R,R,]" per group, then WHY (or "ok"). */
static char *
defs_text (const GArray *defs, const char *why)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < defs->len; i++)
    {
      const WlGroupDef *d = &g_array_index (defs, WlGroupDef, i);
      g_string_append_printf (s, "%" G_GUINT64_FORMAT "[", d->id);
      for (guint j = 0; j < d->ranks->len; j++)
        g_string_append_printf (s, "%u,", g_array_index (d->ranks, guint32, j));
      g_string_append (s, "] ");
    }
  g_string_append (s, why != NULL ? why : "ok");
  return g_string_free (s, FALSE);
}

/* Near misses of the common form: each read as given (the direct reader
 * takes it or declines it) and behind a tab (which the direct reader
 * never takes: the general path alone) gives the same groups, or the
 * same message with the same groups before the fault. */
START_TEST (test_common_form_near_misses)
{
  static const char *const texts[] = {
    "['[{\"pg_name\": \"01\", \"ranks\": [0, 1]}]']",
    "['[{\"pg_name\": \"1e3\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"-0\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"+1\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \" 1\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"1.\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"18446744073709551615\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"18446744073709551614\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"18446744073709551616\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"1\\\\u0031\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"\\xc3\\xa9\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": 1, \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"1\", \"pg_name\": \"2\", \"ranks\": [0]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0]}, {\"pg_name\": \"1\", \"ranks\": [2, 3]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [[0], 1]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [1, 0, 1]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [-1]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [-0]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [01]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [1e3]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [1.0]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [2147483646]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [4294967296]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [99999999999999999999]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1,]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1],}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]},]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}],']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]',]",
    "  [  '  [ {  \"pg_name\"  :  \"1\"  ,  \"ranks\"  :  [  0  ,  1  ]  }  ]  '  ]  ",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]'] x",
    "[['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]']]",
    "['[{\"pg_name\": \"1\", \"ranks\": []}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": null}]']",
    "['[{\"pg_name\": \"1\"}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0], \"pg_desc\": \"x\"}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0]}]', '[{\"pg_name\": \"2\", \"ranks\": [1]}]']",
    "[\"[{\\\"pg_name\\\": \\\"1\\\", \\\"ranks\\\": [0, 1]}]\"]",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]' '']",
    "['[{\"pg_name\": \"1\", \"ranks\": (0, 1)}]']",
    "('[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]',)",
    "['[{\"pg_name\": \"1\" \"ranks\": [0, 1]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0 1]}]']",
    "['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]', '']",
    "['[]']",
    "[' [ ] ']",
  };
  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autoptr (GArray) direct = wl_group_defs_new ();
      g_autoptr (GArray) general = wl_group_defs_new ();
      g_autofree char *tabbed = g_strconcat ("\t", texts[i], NULL);
      const char *why_d = wl_group_defs_parse (texts[i], direct);
      const char *why_g = wl_group_defs_parse (tabbed, general);
      g_autofree char *d = defs_text (direct, why_d);
      g_autofree char *g = defs_text (general, why_g);
      ck_assert_msg (strcmp (d, g) == 0, "%s: as given %s, general %s", texts[i], d, g);
    }
}
END_TEST

START_TEST (test_memo_same_errors)
{
  g_autoptr (WlGroupMemo) memo = wl_group_memo_new ();
  static const guint64 ids[] = { 5 };
  static const gint r0[] = { 1, -1 };
  static const gint *const ranks[] = { r0 };
  const char *want
      = "METADATA process group \"ranks\" must be a list (empty, null or absent for every rank)";
  for (int round = 0; round < 2; round++)
    {
      g_autoptr (GArray) direct = wl_group_defs_new ();
      g_autoptr (GArray) memoed = wl_group_defs_new ();
      ck_assert_str_eq (wl_group_defs_parse (LIST_BAD, direct), want);
      ck_assert_str_eq (wl_group_memo_parse (memo, LIST_BAD, memoed), want);
      /* The groups read before the fault, as the parse leaves them. */
      assert_groups (direct, 1, ids, ranks);
      assert_groups (memoed, 1, ids, ranks);
    }
  g_autoptr (GArray) junk = wl_group_defs_new ();
  ck_assert_str_eq (wl_group_memo_parse (memo, "[{", junk),
                    "METADATA node's process-group JSON does not parse");
  ck_assert_str_eq (wl_group_memo_parse (memo, "[{", junk),
                    "METADATA node's process-group JSON does not parse");
  ck_assert_uint_eq (junk->len, 0);
}
END_TEST

/* Rank RANK's trace: a METADATA node carrying LIST, then a compute node
 * and an all-reduce on group 1 after it. */
static char *
write_rank_trace (const char *name, const char *list, guint64 micros)
{
  char *path = tu_scratch_path (name);
  ChakraProtoMsg__Node *nodes[3];
  nodes[0] = tu_node_new (1, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, "groups");
  tu_node_inputs (nodes[0], list);
  nodes[1] = tu_comp (2, micros);
  tu_node_dep (nodes[1], 1);
  nodes[2] = tu_coll (3, 0, 1024);
  tu_node_attr_string (nodes[2], "pg_name", "1");
  tu_node_dep (nodes[2], 2);
  tu_write_trace (path, nodes, 3);
  for (guint i = 0; i < 3; i++)
    tu_node_free (nodes[i]);
  return path;
}

START_TEST (test_cache_groups_as_parsed)
{
  /* Two files sharing list A (different compute times: distinct files),
   * one with list B. */
  g_autofree char *p0 = write_rank_trace ("t.0.et", LIST_A, 10);
  g_autofree char *p1 = write_rank_trace ("t.1.et", LIST_A, 20);
  g_autofree char *p2 = write_rank_trace ("t.2.et", LIST_B, 10);
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  GError *error = NULL;
  g_autoptr (WlGraph) g0 = wl_graph_cache_load_limited (cache, p0, G_MAXUINT64, NULL, &error);
  g_autoptr (WlGraph) g1 = wl_graph_cache_load_limited (cache, p1, G_MAXUINT64, NULL, &error);
  g_autoptr (WlGraph) g2 = wl_graph_cache_load_limited (cache, p2, G_MAXUINT64, NULL, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (wl_graph_cache_distinct (cache), 3);
  assert_groups (g0->group_defs, 2, IDS_A, RANKS_A);
  assert_groups (g1->group_defs, 2, IDS_A, RANKS_A);
  assert_groups (g2->group_defs, 1, IDS_B, RANKS_B);
  /* Each as the file alone gives it. */
  const char *paths[] = { p0, p1, p2 };
  const WlGraph *cached[] = { g0, g1, g2 };
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr (WlGraph) alone = wl_graph_load (paths[i], &error);
      g_assert_no_error (error);
      ck_assert_uint_eq (alone->group_defs->len, cached[i]->group_defs->len);
      ck_assert_uint_eq (alone->n_nodes, cached[i]->n_nodes);
      for (guint v = 0; v < alone->n_nodes; v++)
        ck_assert_int_eq (memcmp (&alone->nodes[v], &cached[i]->nodes[v], sizeof (WlNode)), 0);
    }
}
END_TEST

/* The image of PATH holds the file's bytes and their hash. */
static void
assert_image (const char *path)
{
  GError *error = NULL;
  g_auto (WlFileImage) img = { 0 };
  ck_assert (wl_file_image_open (&img, path, &error));
  g_assert_no_error (error);
  g_autofree char *contents = NULL;
  gsize len = 0;
  ck_assert (g_file_get_contents (path, &contents, &len, NULL));
  ck_assert_uint_eq (img.len, img.bytes != NULL ? len : 0);
  if (img.bytes != NULL)
    {
      ck_assert_int_eq (memcmp (img.bytes, contents, len), 0);
      ck_assert_uint_eq (img.hash, wl_bytes_hash ((const guint8 *) contents, len));
      ck_assert (wl_file_image_same (&img, path));
    }
}

START_TEST (test_image_hash)
{
  g_autofree char *trace = write_rank_trace ("t.et", LIST_A, 10);
  assert_image (trace);
  g_autofree char *empty = tu_write_file ("empty", "");
  assert_image (empty);
  g_autofree char *abc = tu_write_file ("abc", "abc");
  assert_image (abc);
  /* A gzip file is hashed and compared as its compressed bytes. */
  g_autofree char *gz = tu_scratch_path ("t.et.gz");
  gzFile out = gzopen (gz, "wb");
  gzputs (out, "not a trace, but gzip");
  gzclose (out);
  assert_image (gz);
  /* Files over 64 KiB (once mapped) are read into kept buffers, smaller
   * ones read alike: both give the same bytes, and a file is the same as
   * its copy, not as a copy a byte off. */
  gsize big_len = 200 * 1024 + 3;
  g_autofree char *big_bytes = g_malloc (big_len);
  for (gsize i = 0; i < big_len; i++)
    big_bytes[i] = (char) (i * 2654435761u >> 13);
  g_autofree char *big = tu_scratch_path ("big.bin");
  g_autofree char *big2 = tu_scratch_path ("big2.bin");
  ck_assert (g_file_set_contents (big, big_bytes, (gssize) big_len, NULL));
  ck_assert (g_file_set_contents (big2, big_bytes, (gssize) big_len, NULL));
  assert_image (big);
  {
    g_auto (WlFileImage) bimg = { 0 };
    ck_assert (wl_file_image_open (&bimg, big, NULL));
    ck_assert (wl_file_image_same (&bimg, big2));
    big_bytes[big_len - 1] ^= 1;
    ck_assert (g_file_set_contents (big2, big_bytes, (gssize) big_len, NULL));
    ck_assert (!wl_file_image_same (&bimg, big2));
  }
  /* Files over 128 KiB are read into buffers kept for the next read, and
   * hashed 256 KiB at a time as they are read: a file of 600 KiB and 5
   * bytes (three pieces, a tail under the hash's 1 KiB block), then the
   * 200 KiB one again into its larger buffer, give their bytes and the
   * hash of all of them at once. */
  gsize huge_len = 600 * 1024 + 5;
  g_autofree char *huge_bytes = g_malloc (huge_len);
  for (gsize i = 0; i < huge_len; i++)
    huge_bytes[i] = (char) (i * 2246822519u >> 11);
  g_autofree char *huge = tu_scratch_path ("huge.bin");
  ck_assert (g_file_set_contents (huge, huge_bytes, (gssize) huge_len, NULL));
  assert_image (huge);
  assert_image (big);
  assert_image (huge);
  wl_file_image_pool_drain ();
  assert_image (big);
  /* The hash changes with any byte and with the length (every length
   * around the 64-byte stripe and the 8-byte tail). */
  guint8 buf[100];
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 131 + 7);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree guint64 *h = g_new (guint64, 2 * sizeof buf + 1);
  guint k = 0;
  for (gsize len = 0; len <= sizeof buf; len++, k++)
    {
      h[k] = wl_bytes_hash (buf, len);
      ck_assert_msg (g_hash_table_add (seen, &h[k]), "length %" G_GSIZE_FORMAT, len);
    }
  for (gsize i = 0; i < sizeof buf; i++, k++)
    {
      buf[i] ^= 1;
      h[k] = wl_bytes_hash (buf, sizeof buf);
      buf[i] ^= 1;
      ck_assert_msg (g_hash_table_add (seen, &h[k]), "byte %" G_GSIZE_FORMAT, i);
    }
  /* Files are taken for each other on their bytes: same length, one byte
   * apart, is another file; the same bytes elsewhere are the same. */
  g_autofree char *abd = tu_write_file ("abd", "abd");
  g_autofree char *abc2 = tu_write_file ("abc2", "abc");
  g_auto (WlFileImage) img = { 0 };
  ck_assert (wl_file_image_open (&img, abc, NULL));
  ck_assert (wl_file_image_same (&img, abc2));
  ck_assert (!wl_file_image_same (&img, abd));
  ck_assert (!wl_file_image_same (&img, empty));
  /* The report's digest: the SHA-256 of "abc" is FIPS 180-2's first
   * example. */
  g_autofree char *digest = wl_file_sha256 (abc, NULL);
  ck_assert_str_eq (digest, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  GError *error = NULL;
  g_autofree char *missing = tu_scratch_path ("missing.et");
  wl_file_image_clear (&img);
  ck_assert (!wl_file_image_open (&img, missing, &error));
  ck_assert (g_str_has_prefix (error->message, "Failed to open file"));
  g_clear_error (&error);
  ck_assert_ptr_null (wl_file_sha256 (missing, &error));
  ck_assert (g_str_has_prefix (error->message, "Failed to open file"));
  g_clear_error (&error);
}
END_TEST

/* Files with the same bytes share one graph, wherever they are in the set
 * (here not next to each other, and two sets of equal files interleaved),
 * loaded one at a time or announced to THREADS workers; files a byte apart
 * do not. */
static void
assert_cache_shares (guint threads)
{
  g_autofree char *p0 = write_rank_trace ("s.0.et", LIST_A, 10);
  g_autofree char *p1 = write_rank_trace ("s.1.et", LIST_A, 20);
  g_autofree char *p2 = write_rank_trace ("s.2.et", LIST_A, 10);
  g_autofree char *p3 = write_rank_trace ("s.3.et", LIST_A, 30);
  g_autofree char *p4 = write_rank_trace ("s.4.et", LIST_A, 20);
  g_autofree char *p5 = write_rank_trace ("s.5.et", LIST_A, 10);
  const char *paths[] = { p0, p1, p2, p3, p4, p5 };
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  wl_graph_cache_set_threads (cache, threads);
  wl_graph_cache_prefetch (cache, paths, 6, G_MAXUINT64);
  WlGraph *g[6];
  for (guint i = 0; i < 6; i++)
    {
      GError *error = NULL;
      g[i] = wl_graph_cache_load_limited (cache, paths[i], G_MAXUINT64, NULL, &error);
      g_assert_no_error (error);
    }
  wl_graph_cache_prefetch_end (cache);
  ck_assert_ptr_eq (g[2], g[0]);
  ck_assert_ptr_eq (g[4], g[1]);
  ck_assert_ptr_eq (g[5], g[0]);
  ck_assert_ptr_ne (g[1], g[0]);
  ck_assert_ptr_ne (g[3], g[0]);
  ck_assert_ptr_ne (g[3], g[1]);
  ck_assert_uint_eq (wl_graph_cache_distinct (cache), 3);
  for (guint i = 0; i < 6; i++)
    wl_graph_unref (g[i]);
}

START_TEST (test_cache_shares_equal_bytes)
{
  assert_cache_shares (1);
  assert_cache_shares (2);
}
END_TEST


/* Loading CUT through the cache (from memory) and alone (through zlib)
 * fails with the same message, which holds NEEDLE. */
static void
assert_same_failure (const char *cut, const char *needle)
{
  GError *from_memory = NULL, *from_file = NULL;
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  ck_assert_ptr_null (wl_graph_cache_load_limited (cache, cut, G_MAXUINT64, NULL, &from_memory));
  ck_assert_ptr_null (wl_graph_load (cut, &from_file));
  ck_assert_ptr_nonnull (from_memory);
  ck_assert_ptr_nonnull (from_file);
  ck_assert_str_eq (from_memory->message, from_file->message);
  ck_assert_msg (strstr (from_memory->message, needle) != NULL, "%s", from_memory->message);
  g_error_free (from_memory);
  g_error_free (from_file);
}

START_TEST (test_truncated_and_corrupt)
{
  g_autofree char *path = write_rank_trace ("t.et", LIST_A, 10);
  g_autofree char *contents = NULL;
  gsize len = 0;
  ck_assert (g_file_get_contents (path, &contents, &len, NULL));
  g_autofree char *cut = tu_scratch_path ("cut.et");
  /* Three bytes short: the last frame's length runs past the end. */
  ck_assert (g_file_set_contents (cut, contents, (gssize) len - 3, NULL));
  assert_same_failure (cut, "runs past end of file");
  assert_same_failure (cut, "truncated file?");
  /* Lenient loading keeps the nodes before the cut frame, both ways. */
  g_autoptr (WlGraphCache) lenient = wl_graph_cache_new_full (TRUE);
  GError *error = NULL;
  g_autoptr (WlGraph) kept = wl_graph_cache_load_limited (lenient, cut, G_MAXUINT64, NULL, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (kept->n_nodes, 2);
  ck_assert_uint_eq (kept->dropped.truncated_frames, 1);
  /* A fourth node frame whose two bytes are not a node: field 1's varint
   * is cut short. */
  g_autoptr (GByteArray) junk = g_byte_array_new ();
  g_byte_array_append (junk, (const guint8 *) contents, (guint) len);
  g_byte_array_append (junk, (const guint8 *) "\x02\x08\x80", 3);
  ck_assert (g_file_set_contents (cut, (const char *) junk->data, junk->len, NULL));
  g_autofree char *where = g_strdup_printf ("frame 4 at byte offset %" G_GSIZE_FORMAT, len);
  assert_same_failure (cut, where);
  assert_same_failure (cut, "do not unpack as a Node");
  /* Not a trace at all, and empty. */
  ck_assert (g_file_set_contents (cut, "garbage, not a trace\n", -1, NULL));
  assert_same_failure (cut, "frame 0 at byte offset 0");
  ck_assert (g_file_set_contents (cut, "", 0, NULL));
  assert_same_failure (cut, "empty trace (no GlobalMetadata frame)");
}
END_TEST

/* Read every node of PATH with FLAGS, packing each (the bytes they encode). */
static GPtrArray *
packed_nodes (const char *path, WlChakraReadFlags flags)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  GError *error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open_full (path, flags, &error);
  g_assert_no_error (error);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    {
      gsize size = protobuf_c_message_get_packed_size (&n->base);
      guint8 *buf = g_malloc (size);
      protobuf_c_message_pack (&n->base, buf);
      g_ptr_array_add (out, g_bytes_new_take (buf, size));
      if (!(flags & WL_CHAKRA_BORROW_NODES))
        wl_chakra_node_free (n);
    }
  g_assert_no_error (error);
  return out;
}

START_TEST (test_borrowed_nodes_equal_owned)
{
  g_autofree char *path = write_rank_trace ("t.et", LIST_A, 10);
  g_autoptr (GPtrArray) owned = packed_nodes (path, WL_CHAKRA_READ_DEFAULT);
  g_autoptr (GPtrArray) lent = packed_nodes (path, WL_CHAKRA_BORROW_NODES);
  ck_assert_uint_eq (owned->len, 3);
  ck_assert_uint_eq (lent->len, 3);
  for (guint i = 0; i < 3; i++)
    ck_assert (g_bytes_equal (owned->pdata[i], lent->pdata[i]));
}
END_TEST

START_TEST (test_arena_bounded)
{
  g_autoptr (WlPbArena) a = wl_pb_arena_new ();
  ProtobufCAllocator *al = wl_pb_arena_allocator (a);
  /* Blocks are 16-byte aligned and distinct. */
  wl_pb_arena_reset (a);
  gsize first = wl_pb_arena_bytes (a);
  ck_assert_uint_gt (first, 0);
  guint8 *p = al->alloc (al->allocator_data, 1);
  guint8 *q = al->alloc (al->allocator_data, 24);
  ck_assert_uint_eq ((guintptr) p % 16, 0);
  ck_assert_uint_eq ((guintptr) q % 16, 0);
  ck_assert_ptr_eq (q, p + 16);
  /* A frame larger than the block overflows once; after the reset the
   * block holds such a frame and the same frames need nothing more. */
  for (int frame = 0; frame < 100; frame++)
    {
      wl_pb_arena_reset (a);
      for (int i = 0; i < 64; i++)
        {
          void *block = al->alloc (al->allocator_data, 1000);
          ck_assert_ptr_nonnull (block);
          memset (block, 0xab, 1000);
          al->free (al->allocator_data, block);
        }
    }
  /* 64 blocks of 1,008 bytes: 64,512, the demand that sized the block. */
  ck_assert_uint_eq (wl_pb_arena_bytes (a), 64 * 1008);
}
END_TEST

START_TEST (test_sha256)
{
  /* FIPS 180-2 appendix B's examples (one block, two blocks). */
  g_autofree char *abc = wl_sha256_hex ((const guint8 *) "abc", 3);
  ck_assert_str_eq (abc, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  g_autofree char *d2 = wl_sha256_hex ((const guint8 *) two, strlen (two));
  ck_assert_str_eq (d2, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  g_autofree char *none = wl_sha256_hex (NULL, 0);
  ck_assert_str_eq (none, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  /* Every length around the block and padding boundaries, as GChecksum
   * computes it. */
  guint8 buf[300];
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 131 + 7);
  for (gsize len = 0; len <= sizeof buf; len++)
    {
      g_autofree char *got = wl_sha256_hex (buf, len);
      g_autofree char *want = g_compute_checksum_for_data (G_CHECKSUM_SHA256, buf, len);
      ck_assert_msg (strcmp (got, want) == 0, "length %" G_GSIZE_FORMAT " (%s): %s, not %s",
                     len, wl_sha256_accelerated () ? "SHA instructions" : "GChecksum", got,
                     want);
    }
}
END_TEST

/* Groups 1 = {0..3} and 2 = {4..7}; and a list defining group 1 otherwise. */
static const char LIST_8[] = "[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2, 3]}, "
                             "{\"pg_name\": \"2\", \"ranks\": [4, 5, 6, 7]}]";
static const char LIST_8_OTHER[] = "[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2, 4]}]";

/* Rank RANK of the 8-rank set PREFIX: LIST's METADATA node, a compute
 * node of 10 + RANK us (every file distinct) and an all-reduce on its
 * group of LIST_8. */
static void
write_set_rank (const char *prefix, guint32 rank, const char *list)
{
  ChakraProtoMsg__Node *nodes[3];
  nodes[0] = tu_node_new (1, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, "groups");
  tu_node_inputs (nodes[0], list);
  nodes[1] = tu_comp (2, 10 + rank);
  tu_node_dep (nodes[1], 1);
  nodes[2] = tu_coll (3, 0, 1024);
  tu_node_attr_string (nodes[2], "pg_name", rank < 4 ? "1" : "2");
  tu_node_dep (nodes[2], 2);
  tu_write_rank (prefix, rank, nodes, 3);
}

START_TEST (test_group_conflict_after_shared_lists)
{
  /* Ranks 0-4 carry LIST_8, each file distinct, so that the binding skips
   * the lists it has seen; ranks 5-7 define group 1 otherwise: the first
   * of them is named. */
  g_autofree char *prefix = tu_scratch_path ("t");
  for (guint32 rank = 0; rank < 8; rank++)
    write_set_rank (prefix, rank, rank < 5 ? LIST_8 : LIST_8_OTHER);
  g_autofree char *config = tu_write_file ("c.xml", tu_cluster_c4x2);
  const char *argv[] = { tu_orrery (), "run", "--config", config, "--workload", prefix, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_ne (tu_run (&out, argv), 0);
  g_autofree char *want = g_strdup_printf ("%s.5.et: node 1: METADATA defines process group 1 "
                                           "with other ranks than %s.0.et (node 1)", prefix,
                                           prefix);
  ck_assert_msg (strstr (out, want) != NULL, "%s", out);
  /* inspect reports it in the same words (each of ranks 5-7 against rank 0). */
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, want) != NULL, "inspect: want '%s' in:\n%s", want, ins);
  ck_assert_msg (strstr (ins, "3 defects") != NULL, "%s", ins);
  /* One list defining group 1 twice, otherwise: that file and node, not
   * "another trace". */
  for (guint32 rank = 0; rank < 8; rank++)
    write_set_rank (prefix, rank, "[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2, 3]}, "
                                  "{\"pg_name\": \"2\", \"ranks\": [4, 5, 6, 7]}, "
                                  "{\"pg_name\": \"1\", \"ranks\": [0, 1]}]");
  g_clear_pointer (&out, g_free);
  ck_assert_int_ne (tu_run (&out, argv), 0);
  g_autofree char *twice = g_strdup_printf ("%s.0.et: node 1: METADATA defines process group 1 "
                                            "twice, with other ranks (node 1 first)", prefix);
  ck_assert_msg (strstr (out, twice) != NULL, "%s", out);
  /* inspect: the same words for every file carrying the list (rank 7's
   * too, although rank 0 defined group 1 first), and nothing else. */
  g_clear_pointer (&ins, g_free);
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, twice) != NULL, "inspect: want '%s' in:\n%s", twice, ins);
  g_autofree char *twice7 = g_strdup_printf ("%s.7.et: node 1: METADATA defines process group 1 "
                                             "twice, with other ranks (node 1 first)", prefix);
  ck_assert_msg (strstr (ins, twice7) != NULL, "inspect: want '%s' in:\n%s", twice7, ins);
  ck_assert_msg (strstr (ins, "8 defects") != NULL && strstr (ins, "other ranks than") == NULL,
                 "%s", ins);
  /* All eight with LIST_8: the lists agree, and the run completes. */
  for (guint32 rank = 0; rank < 8; rank++)
    write_set_rank (prefix, rank, LIST_8);
  g_clear_pointer (&out, g_free);
  ck_assert_msg (tu_run (&out, argv) == 0, "%s", out);
  g_clear_pointer (&ins, g_free);
  ck_assert_int_eq (tu_inspect (&ins, prefix), 0);
}
END_TEST

/* Two METADATA nodes of one file defining group 1 otherwise (node 1 with
 * LIST_8, node 4 with LIST_8_OTHER): run calls it defined twice in that
 * file, naming node 1, and inspect must say the same, not name the file
 * as "another" trace. */
START_TEST (test_group_conflict_two_lists_one_file)
{
  g_autofree char *prefix = tu_scratch_path ("t");
  for (guint32 rank = 1; rank < 8; rank++)
    write_set_rank (prefix, rank, LIST_8);
  ChakraProtoMsg__Node *nodes[4];
  nodes[0] = tu_node_new (1, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, "groups");
  tu_node_inputs (nodes[0], LIST_8);
  nodes[1] = tu_node_new (4, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, "groups_again");
  tu_node_inputs (nodes[1], LIST_8_OTHER);
  nodes[2] = tu_comp (2, 10);
  tu_node_dep (nodes[2], 1);
  nodes[3] = tu_coll (3, 0, 1024);
  tu_node_attr_string (nodes[3], "pg_name", "1");
  tu_node_dep (nodes[3], 2);
  tu_write_rank (prefix, 0, nodes, 4);
  g_autofree char *config = tu_write_file ("c.xml", tu_cluster_c4x2);
  const char *argv[] = { tu_orrery (), "run", "--config", config, "--workload", prefix, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_ne (tu_run (&out, argv), 0);
  g_autofree char *twice = g_strdup_printf ("%s.0.et: node 4: METADATA defines process group 1 "
                                            "twice, with other ranks (node 1 first)", prefix);
  ck_assert_msg (strstr (out, twice) != NULL, "%s", out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, twice) != NULL, "inspect: want '%s' in:\n%s", twice, ins);
  ck_assert_msg (strstr (ins, "1 defect\n") != NULL && strstr (ins, "other ranks than") == NULL,
                 "%s", ins);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("load");
  TCase *tc = tu_tcase (s, "load", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_memo_same_groups);
  tcase_add_test (tc, test_memo_same_errors);
  tcase_add_test (tc, test_cache_groups_as_parsed);
  tcase_add_test (tc, test_image_hash);
  tcase_add_test (tc, test_cache_shares_equal_bytes);
  tcase_add_test (tc, test_truncated_and_corrupt);
  tcase_add_test (tc, test_borrowed_nodes_equal_owned);
  tcase_add_test (tc, test_arena_bounded);
  tcase_add_test (tc, test_sha256);
  tcase_add_test (tc, test_common_form_groups);
  tcase_add_test (tc, test_common_form_near_misses);
  tcase_add_test (tc, test_group_conflict_after_shared_lists);
  tcase_add_test (tc, test_group_conflict_two_lists_one_file);
  return tu_run_suite (s);
}
