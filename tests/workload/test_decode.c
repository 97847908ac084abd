/* test_decode.c: the hand-written Node decoder (chakra_decode.h) against
 * protobuf-c's unpack of the same frame.  Every frame of generated traces
 * and of the shared ASTRA-sim traces, and hand-made frames (packed and
 * unpacked repeated fields, a field repeated, unknown fields, every value
 * kind, 10- and 11-byte varints, every truncation and many corruptions of a
 * frame), is decoded both ways; the two nodes must re-pack to the same
 * bytes, or both decoders must refuse the frame.  The frames of real traces
 * must also take the fast path (not only the fallback).
 */
#include <check.h>
#include <string.h>
#include <zlib.h>

#include "support/testutil.h"
#include "workload/chakra_decode.h"

/* NODE packed (NULL stays NULL: a refused frame). */
static GBytes *
pack (const ChakraProtoMsg__Node *node)
{
  if (node == NULL)
    return NULL;
  gsize size = chakra_proto_msg__node__get_packed_size (node);
  guint8 *buf = g_malloc (MAX (size, 1));
  ck_assert_uint_eq (chakra_proto_msg__node__pack (node, buf), size);
  return g_bytes_new_take (buf, size);
}

static void
assert_same (GBytes *want, GBytes *got)
{
  ck_assert_msg ((want == NULL) == (got == NULL), "protobuf-c %s, the decoder %s",
                 want ? "unpacks" : "refuses", got ? "unpacks" : "refuses");
  if (want != NULL)
    ck_assert_msg (g_bytes_equal (want, got), "the nodes differ");
}

/* Decode DATA both ways: wl_chakra_decode_node must give what protobuf-c
 * gives, and so must the fast path when it does not give up.  Returns
 * whether the fast path decoded it. */
static gboolean
check_frame (const guint8 *data, gsize len)
{
  ChakraProtoMsg__Node *ref = chakra_proto_msg__node__unpack (NULL, len, data);
  g_autoptr (GBytes) want = pack (ref);
  g_autoptr (GBytes) whole = NULL;
  g_autoptr (GBytes) fast = NULL;
  g_autoptr (WlPbArena) arena = wl_pb_arena_new ();
  whole = pack (wl_chakra_decode_node (arena, len, data));
  assert_same (want, whole);
  wl_pb_arena_reset (arena);
  ChakraProtoMsg__Node *f = wl_chakra_decode_fast (arena, len, data);
  if (f != NULL)
    {
      ck_assert_uint_eq (f->base.n_unknown_fields, 0);
      fast = pack (f);
      assert_same (want, fast);
    }
  wl_chakra_node_free (ref);
  return f != NULL;
}

/* The whole (inflated) file at PATH. */
static GByteArray *
slurp (const char *path)
{
  gzFile gz = gzopen (path, "rb");
  ck_assert_ptr_nonnull (gz);
  GByteArray *all = g_byte_array_new ();
  guint8 buf[65536];
  int n;
  while ((n = gzread (gz, buf, sizeof buf)) > 0)
    g_byte_array_append (all, buf, (guint) n);
  ck_assert_int_eq (n, 0);
  gzclose (gz);
  return all;
}

/* Check every frame after frame 0 of the trace at PATH; count them in
 * *FRAMES and those the fast path took in *FAST. */
static void
check_file (const char *path, guint *frames, guint *fast)
{
  g_autoptr (GByteArray) all = slurp (path);
  const guint8 *p = all->data, *end = all->data + all->len;
  for (guint i = 0; p < end; i++)
    {
      guint64 len = 0;
      guint shift = 0;
      while (p < end && (*p & 0x80) && shift < 63)
        len |= (guint64) (*p++ & 0x7f) << shift, shift += 7;
      ck_assert (p < end);
      len |= (guint64) (*p++ & 0x7f) << shift;
      ck_assert_uint_le (len, (guint64) (end - p));
      if (i > 0)
        {
          (*frames)++;
          *fast += check_frame (p, len);
        }
      p += len;
    }
}

/* Every frame of every rank PREFIX.0.et .. PREFIX.(RANKS-1).et; all of them
 * must take the fast path. */
static void
check_ranks (const char *prefix, guint ranks)
{
  guint frames = 0, fast = 0;
  for (guint r = 0; r < ranks; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
      check_file (path, &frames, &fast);
    }
  ck_assert_uint_gt (frames, 0);
  ck_assert_uint_eq (fast, frames);
}

START_TEST (test_generated_transformer)
{
  g_autofree char *prefix = tu_scratch_path ("t");
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b",
                         "--layers", "2", "--tp", "2", "--pp", "2", "--dp", "2",
                         "--global-batch", "4", "--micro-batch", "1", "--out", prefix, NULL };
  ck_assert_int_eq (tu_run (NULL, argv), 0);
  check_ranks (prefix, 8);
}
END_TEST

START_TEST (test_generated_collective)
{
  g_autofree char *prefix = tu_scratch_path ("c");
  const char *argv[] = { tu_orrery (), "gen", "collective", "--type", "all-gather", "--ranks", "4",
                         "--bytes", "1KiB", "--count", "3", "--out", prefix, NULL };
  ck_assert_int_eq (tu_run (NULL, argv), 0);
  check_ranks (prefix, 4);
}
END_TEST

/* Every .et file under DIR (recursively). */
static void
check_tree (const char *dir, guint *frames, guint *fast)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        check_tree (path, frames, fast);
      else if (g_str_has_suffix (name, ".et") || g_str_has_suffix (name, ".et.gz"))
        check_file (path, frames, fast);
    }
}

START_TEST (test_shared_traces)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autofree char *dir = g_build_filename (shared, "traces", NULL);
  guint frames = 0, fast = 0;
  check_tree (dir, &frames, &fast);
  /* ASTRA-sim's traces use only the common kinds: all take the fast path. */
  ck_assert_uint_eq (fast, frames);
}
END_TEST

/* ------------------------------------------------------ hand-made frames */

static void
put_varint (GByteArray *b, guint64 v)
{
  while (v >= 0x80)
    {
      guint8 c = (guint8) (v | 0x80);
      g_byte_array_append (b, &c, 1);
      v >>= 7;
    }
  guint8 c = (guint8) v;
  g_byte_array_append (b, &c, 1);
}

static void
put_tag (GByteArray *b, guint field, guint wt)
{
  put_varint (b, ((guint64) field << 3) | wt);
}

/* Field FIELD, length-delimited, holding the bytes of INNER. */
static void
put_len (GByteArray *b, guint field, const GByteArray *inner)
{
  put_tag (b, field, 2);
  put_varint (b, inner->len);
  g_byte_array_append (b, inner->data, inner->len);
}

static void
put_raw (GByteArray *b, guint field, guint wt, const void *bytes, gsize n)
{
  put_tag (b, field, wt);
  g_byte_array_append (b, bytes, (guint) n);
}

static void
put_string (GByteArray *b, guint field, const char *s)
{
  put_tag (b, field, 2);
  put_varint (b, strlen (s));
  g_byte_array_append (b, (const guint8 *) s, (guint) strlen (s));
}

/* A node: id, name, type, ctrl deps 1 2 packed then 3 unpacked, data deps
 * 7 unpacked then 8 9 packed, times, inputs, then the attributes ATTRS
 * (each an AttributeProto body). */
static GByteArray *
node_with (GPtrArray *attrs)
{
  GByteArray *n = g_byte_array_new ();
  g_autoptr (GByteArray) run = g_byte_array_new ();
  g_autoptr (GByteArray) io = g_byte_array_new ();
  put_tag (n, 1, 0), put_varint (n, 42);
  put_string (n, 2, "node");
  put_tag (n, 3, 0), put_varint (n, 4);
  put_varint (run, 1), put_varint (run, 2);
  put_len (n, 4, run);
  put_tag (n, 4, 0), put_varint (n, 3);
  put_tag (n, 5, 0), put_varint (n, 7);
  g_byte_array_set_size (run, 0);
  put_varint (run, 8), put_varint (run, 1ull << 63);
  put_len (n, 5, run);
  put_tag (n, 6, 0), put_varint (n, 1000);
  put_tag (n, 7, 0), put_varint (n, 5);
  put_string (io, 1, "v"), put_string (io, 2, "[[1,2]]"), put_string (io, 3, "t");
  put_len (n, 8, io);
  for (guint i = 0; attrs != NULL && i < attrs->len; i++)
    put_len (n, 10, g_ptr_array_index (attrs, i));
  return n;
}

/* An attribute NAME whose value is field KIND holding two values V1, V2
 * where it is a list, else V1; packed lists when PACKED. */
static GByteArray *
attr_kind (guint kind, gboolean packed)
{
  static const guint kind_wt[33] = { [3] = 1, [5] = 5, [19] = 5, [21] = 1, [23] = 5,
                                     [25] = 1, [29] = 2, [31] = 2 };
  GByteArray *a = g_byte_array_new ();
  g_autofree char *name = g_strdup_printf ("k%u", kind);
  put_string (a, 1, name);
  put_string (a, 2, "doc");
  gboolean list = kind % 2 == 0;
  guint scalar = list ? kind - 1 : kind;
  /* Values past 32 bits, negative when signed; a packed bool is one byte. */
  guint64 v64 = scalar == 27 ? 1 : 0x8000000000000003ull;
  guint32 v32 = scalar == 27 ? 0 : 0xfffffffeu;
  g_autoptr (GByteArray) body = g_byte_array_new ();
  GByteArray *dst = list ? body : a;
  guint field = list ? 1 : kind;
  guint wt = kind_wt[scalar];
  for (guint i = 0; i < (list ? 2u : 1u); i++)
    {
      if (wt == 2)
        put_string (dst, field, i ? "second" : "first");
      else if (wt == 1)
        put_raw (dst, field, 1, &v64, 8);
      else if (wt == 5)
        put_raw (dst, field, 5, &v32, 4);
      else
        put_tag (dst, field, 0), put_varint (dst, i ? v32 : v64);
    }
  if (list && packed && wt != 2)
    {
      /* The same values as one packed run: drop the tags. */
      g_autoptr (GByteArray) run = g_byte_array_new ();
      for (guint i = 0; i < 2; i++)
        if (wt == 1)
          g_byte_array_append (run, (const guint8 *) &v64, 8);
        else if (wt == 5)
          g_byte_array_append (run, (const guint8 *) &v32, 4);
        else
          put_varint (run, i ? v32 : v64);
      g_byte_array_set_size (body, 0);
      put_len (body, 1, run);
    }
  if (list)
    put_len (a, kind, body);
  return a;
}

/* A frame's truncations and single-byte corruptions decode alike. */
static void
check_damaged (const GByteArray *frame)
{
  g_autoptr (GByteArray) copy = g_byte_array_new ();
  g_byte_array_append (copy, frame->data, frame->len);
  for (guint cut = 0; cut < frame->len; cut++)
    check_frame (frame->data, cut);
  static const guint8 flips[] = { 0x80, 0x7f, 0xff, 0x01, 0x07 };
  for (guint i = 0; i < frame->len; i++)
    for (guint k = 0; k < G_N_ELEMENTS (flips); k++)
      {
        copy->data[i] = frame->data[i] ^ flips[k];
        check_frame (copy->data, copy->len);
        copy->data[i] = frame->data[i];
      }
}

START_TEST (test_every_value_kind)
{
  g_autoptr (GPtrArray) attrs = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  for (guint kind = 3; kind <= 32; kind++)
    g_ptr_array_add (attrs, attr_kind (kind, TRUE));
  for (guint kind = 4; kind <= 32; kind += 2)
    g_ptr_array_add (attrs, attr_kind (kind, FALSE));
  g_autoptr (GByteArray) n = node_with (attrs);
  check_frame (n->data, n->len);
  /* The kinds traces use, alone, take the fast path, packed or not. */
  static const guint common[] = { 3, 4, 7, 9, 10, 11, 13, 14, 27, 28, 29, 30 };
  for (guint i = 0; i < G_N_ELEMENTS (common); i++)
    for (int packed = 0; packed < 2; packed++)
      {
        g_autoptr (GPtrArray) one = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
        g_ptr_array_add (one, attr_kind (common[i], packed));
        g_autoptr (GByteArray) f = node_with (one);
        ck_assert_msg (check_frame (f->data, f->len), "kind %u takes the fast path", common[i]);
        check_damaged (f);
      }
}
END_TEST

START_TEST (test_repeated_and_unknown)
{
  g_autoptr (GByteArray) n = node_with (NULL);
  /* Singular fields again: the last wins. */
  put_tag (n, 1, 0), put_varint (n, 43);
  put_string (n, 2, "renamed");
  put_tag (n, 3, 0), put_varint (n, 0xffffffff00000005ull); /* enum: low 32 bits */
  ck_assert (check_frame (n->data, n->len));
  /* An attribute whose value is set three times, of three kinds. */
  g_autoptr (GByteArray) a = g_byte_array_new ();
  put_string (a, 1, "x");
  put_tag (a, 9, 0), put_varint (a, 5);
  put_string (a, 29, "s");
  put_tag (a, 27, 0), put_varint (a, 0);
  put_len (n, 10, a);
  ck_assert (check_frame (n->data, n->len));
  /* inputs twice: protobuf-c merges them, the fast path gives up. */
  g_autoptr (GByteArray) io = g_byte_array_new ();
  put_string (io, 2, "[[3]]");
  put_len (n, 8, io);
  ck_assert (!check_frame (n->data, n->len));
  /* An unknown field, kept by protobuf-c. */
  g_autoptr (GByteArray) u = node_with (NULL);
  put_tag (u, 15, 0), put_varint (u, 1);
  ck_assert (!check_frame (u->data, u->len));
  check_damaged (n);
  /* An empty frame, as the reader passes it (no bytes, maybe no pointer):
   * a node of defaults. */
  ck_assert (check_frame (NULL, 0));
}
END_TEST

START_TEST (test_long_varints)
{
  /* A bool of ten bytes whose only payload bit is past bit 63: true for
   * protobuf-c although the 64-bit value is 0. */
  static const guint8 ten[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02 };
  static const guint8 eleven[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 };
  for (int k = 0; k < 2; k++)
    {
      g_autoptr (GByteArray) a = g_byte_array_new ();
      put_raw (a, 27, 0, k ? eleven : ten, k ? sizeof eleven : sizeof ten);
      g_autoptr (GPtrArray) one = g_ptr_array_new ();
      g_ptr_array_add (one, a);
      g_autoptr (GByteArray) f = node_with (one);
      ck_assert (check_frame (f->data, f->len) == (k == 0));
      ChakraProtoMsg__Node *ref = chakra_proto_msg__node__unpack (NULL, f->len, f->data);
      ck_assert ((ref != NULL) == (k == 0));
      if (ref != NULL)
        ck_assert_int_eq (ref->attr[0]->bool_val, 1);
      wl_chakra_node_free (ref);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("decode");
  TCase *tc = tu_tcase (s, "decode", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_test (tc, test_generated_transformer);
  tcase_add_test (tc, test_generated_collective);
  tcase_add_test (tc, test_shared_traces);
  tcase_add_test (tc, test_every_value_kind);
  tcase_add_test (tc, test_repeated_and_unknown);
  tcase_add_test (tc, test_long_varints);
  return tu_run_suite (s);
}
