/* test_raw_memo.c: the raw reader's memo of attributes (chakra_raw.h,
 * WlRawMemo).  One WlRawNode reads frame after frame, as loading does, so
 * an attribute whose bytes came before is taken from the memo: every
 * frame must still read as it reads alone.  Names repeat and differ in
 * length (pg_name "3", "12", "123"; comm_src 5 and 300, one varint byte
 * and two), many distinct names share the memo's slots, and an attribute
 * first met as a second copy (its frame declined then) is checked when
 * it comes first.  Expected values are the names written, by hand.
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra_raw.h"
#include "workload/kernels.h"

/* A reader kept across frames, as loading keeps one. */
typedef struct
{
  WlRawNode raw;
  WlNodeDecoder dec;
} Reader;

static void
reader_init (Reader *r)
{
  wl_raw_node_init (&r->raw);
  r->dec = (WlNodeDecoder) { .path = "t.et", .kernels = wl_kernel_lists_new () };
}

static void
reader_clear (Reader *r)
{
  wl_raw_node_clear (&r->raw);
  wl_kernel_lists_free (r->dec.kernels);
}

/* F read and decoded by R into *W; whether both took it. */
static gboolean
read_frame (Reader *r, GBytes *f, WlNode *w)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (f, &len);
  return wl_chakra_raw_node (p, len, &r->raw) && wl_node_decode_raw (&r->dec, &r->raw, w);
}

/* An all-reduce of 64 bytes in group PG. */
static GBytes *
coll_frame (guint64 id, const char *pg)
{
  ChakraProtoMsg__Node *n = tu_coll (id, 0, 64);
  tu_node_attr_string (n, "pg_name", pg);
  return tu_node_frame (n);
}

static GBytes *
send_frame (guint64 id, gint64 src, gint64 dst)
{
  return tu_node_frame (tu_p2p (id, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, src, dst, 7, 64));
}

START_TEST (test_names_repeat)
{
  static const struct
  {
    const char *pg;
    guint64 group;
  } colls[] = { { "3", 3 }, { "12", 12 }, { "3", 3 }, { "123", 123 },
                { "12", 12 }, { "3", 3 }, { "123", 123 }, { "1", 1 } };
  static const struct
  {
    gint64 src, dst;
  } sends[] = { { 5, 6 }, { 300, 6 }, { 5, 6 }, { 5, 300 }, { 300, 5 }, { 5, 6 } };
  Reader r;
  reader_init (&r);
  /* Collectives and sends in turn, each name met again later. */
  for (guint round = 0; round < 2; round++)
    for (guint i = 0; i < G_N_ELEMENTS (colls); i++)
      {
        WlNode w;
        g_autoptr (GBytes) c = coll_frame (10 + i, colls[i].pg);
        ck_assert (read_frame (&r, c, &w));
        ck_assert_uint_eq (w.op, WL_OP_COLL);
        ck_assert_uint_eq (w.id, 10 + i);
        ck_assert_uint_eq (w.group, colls[i].group);
        ck_assert_uint_eq (w.bytes, 64);
        guint k = i % G_N_ELEMENTS (sends);
        g_autoptr (GBytes) s = send_frame (100 + i, sends[k].src, sends[k].dst);
        ck_assert (read_frame (&r, s, &w));
        ck_assert_uint_eq (w.op, WL_OP_SEND);
        ck_assert_uint_eq (w.peer_src, (guint64) sends[k].src);
        ck_assert_uint_eq (w.peer_dst, (guint64) sends[k].dst);
        ck_assert_int_eq (w.tag, 7);
      }
  reader_clear (&r);
}
END_TEST

/* More distinct names than the memo has slots, read three times over:
 * each its own group whatever slot it shares. */
START_TEST (test_many_names)
{
  Reader r;
  reader_init (&r);
  for (guint round = 0; round < 3; round++)
    for (guint g = 0; g < 4 * WL_RAW_MEMO_SLOTS; g++)
      {
        char pg[16];
        g_snprintf (pg, sizeof pg, "%u", g * 7919u);
        g_autoptr (GBytes) c = coll_frame (g, pg);
        WlNode w;
        ck_assert (read_frame (&r, c, &w));
        ck_assert_uint_eq (w.group, (guint64) g * 7919u);
      }
  reader_clear (&r);
}
END_TEST

/* F (a frame holding the text "1x" once) with that x made a NUL. */
static GBytes *
with_nul (GBytes *f)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (f, &len);
  guint8 *q = g_memdup2 (p, len);
  guint8 *x = memmem (q, len, "1x", 2);
  ck_assert_ptr_nonnull (x);
  x[1] = 0;
  return g_bytes_new_take (q, len);
}

/* A pg_name with a NUL inside is declined (C string semantics: the usual
 * decoder's), and so is a frame that gives pg_name twice (the usual
 * decoder refuses a known attribute given twice), whether its second copy
 * is read or found in the memo: the same bytes twice ("4" and "4"), met
 * again after the memo holds them. */
START_TEST (test_unchecked_copy)
{
  Reader r;
  reader_init (&r);
  ChakraProtoMsg__Node *n = tu_coll (1, 0, 64);
  tu_node_attr_string (n, "pg_name", "4");
  tu_node_attr_string (n, "pg_name", "1x");
  g_autoptr (GBytes) raw2 = tu_node_frame (n);
  g_autoptr (GBytes) second = with_nul (raw2);
  ChakraProtoMsg__Node *t = tu_coll (4, 0, 64);
  tu_node_attr_string (t, "pg_name", "4");
  tu_node_attr_string (t, "pg_name", "4");
  g_autoptr (GBytes) twice = tu_node_frame (t);
  g_autoptr (GBytes) raw1 = coll_frame (2, "1x");
  g_autoptr (GBytes) first = with_nul (raw1);
  WlNode w;
  for (guint round = 0; round < 2; round++)
    {
      ck_assert (!read_frame (&r, second, &w));
      ck_assert (!read_frame (&r, twice, &w));
      ck_assert (!read_frame (&r, first, &w));
    }
  /* The plain names still read after. */
  g_autoptr (GBytes) plain = coll_frame (3, "4");
  ck_assert (read_frame (&r, plain, &w));
  ck_assert_uint_eq (w.group, 4);
  ck_assert (!read_frame (&r, twice, &w));
  reader_clear (&r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("raw_memo");
  TCase *tc = tu_tcase (s, "raw_memo", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_names_repeat);
  tcase_add_test (tc, test_many_names);
  tcase_add_test (tc, test_unchecked_copy);
  return tu_run_suite (s);
}
