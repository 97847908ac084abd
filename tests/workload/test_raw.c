/* test_raw.c: frames read in place (chakra_raw.h, wl_node_decode_raw)
 * against the usual path (wl_chakra_decode_node, then wl_node_decode):
 * where the raw path takes a frame, the same WlNode, dependencies, name and
 * decoder notes; where it declines, the decoder untouched.  Which frames it
 * takes is decided here by hand from chakra_raw.h's rules.  Then a whole
 * generated trace loaded strictly (the raw path) and leniently (every node
 * decoded) gives the same graph.
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra_decode.h"
#include "workload/chakra_raw.h"
#include "workload/graph.h"
#include "workload/kernels.h"

static void
assert_same_ids (const WlRawIds *raw, const guint64 *ids, gsize n)
{
  ck_assert_uint_eq (raw->n, n);
  for (gsize i = 0; i < n; i++)
    ck_assert_uint_eq (raw->v[i], ids[i]);
}

/* N through both paths; the raw path takes it exactly when TAKEN.  N is
 * freed. */
static void
check_node (ChakraProtoMsg__Node *n, gboolean taken)
{
  gsize len = chakra_proto_msg__node__get_packed_size (n);
  g_autofree guint8 *buf = g_malloc (len);
  chakra_proto_msg__node__pack (n, buf);
  for (gsize i = 0; i < n->n_attr; i++) /* attr_bool_list's, which tu_node_free leaves */
    if (n->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST)
      {
        g_free (n->attr[i]->bool_list->values);
        g_clear_pointer (&n->attr[i]->bool_list, g_free);
      }
  tu_node_free (n);
  WlNodeDecoder da = { .path = "t.et", .kernels = wl_kernel_lists_new () };
  WlNodeDecoder db = { .path = "t.et", .kernels = wl_kernel_lists_new () };
  g_autoptr (WlPbArena) arena = wl_pb_arena_new ();
  ChakraProtoMsg__Node *d = wl_chakra_decode_node (arena, len, buf);
  ck_assert_ptr_nonnull (d);
  WlNode wa, wb;
  GError *error = NULL;
  gboolean ok_a = wl_node_decode (&da, d, &wa, &error);
  g_clear_error (&error);
  WlRawNode raw;
  wl_raw_node_init (&raw);
  gboolean ok_b = wl_chakra_raw_node (buf, len, &raw) && wl_node_decode_raw (&db, &raw, &wb);
  ck_assert_int_eq (ok_b, taken);
  if (ok_b)
    {
      ck_assert (ok_a);
      tu_assert_same_node (&wa, &wb);
      assert_same_ids (&raw.data_deps, d->data_deps, d->n_data_deps);
      assert_same_ids (&raw.ctrl_deps, d->ctrl_deps, d->n_ctrl_deps);
      ck_assert_uint_eq (raw.name_len, strlen (d->name));
      ck_assert (raw.name_len == 0 || memcmp (raw.name, d->name, raw.name_len) == 0);
      ck_assert_uint_eq (da.unknown, db.unknown);
      ck_assert_uint_eq (da.streams.n, db.streams.n);
      for (guint i = 0; i < da.streams.n; i++)
        ck_assert_int_eq (da.streams.values[i], db.streams.values[i]);
      ck_assert (wl_kernel_lists_equal (da.kernels, db.kernels));
      if (wa.op == WL_OP_COMP)
        ck_assert_uint_eq (wa.kernel_list, wb.kernel_list);
    }
  else
    {
      /* Declined: nothing noted. */
      ck_assert_uint_eq (db.unknown, 0);
      ck_assert_uint_eq (db.streams.n, 0);
      ck_assert (wl_kernel_lists_equal (db.kernels, NULL));
    }
  wl_raw_node_clear (&raw);
  wl_kernel_lists_free (da.kernels);
  wl_kernel_lists_free (db.kernels);
}

/* An involved_dim bool list of N entries, VALUES[i]. */
static void
attr_bool_list (ChakraProtoMsg__Node *n, const char *name, const gboolean *values, gsize len)
{
  tu_node_attr_int (n, name, 0); /* an attribute to turn into a list */
  ChakraProtoMsg__AttributeProto *a = n->attr[n->n_attr - 1];
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST;
  a->bool_list = g_new0 (ChakraProtoMsg__BoolList, 1);
  chakra_proto_msg__bool_list__init (a->bool_list);
  a->bool_list->n_values = len;
  a->bool_list->values = g_new0 (protobuf_c_boolean, MAX (len, 1));
  for (gsize i = 0; i < len; i++)
    a->bool_list->values[i] = values[i];
}

/* Frames counted by their length prefixes alone: a one-byte prefix, an
 * empty frame, a two-byte prefix (130 = 0x82 0x01); bytes that end inside
 * a frame or its prefix frame nothing. */
START_TEST (test_count_frames)
{
  guint8 buf[3 + 1 + 2 + 130] = { 2, 0xaa, 0xbb, 0, 0x82, 0x01 };
  ck_assert_uint_eq (wl_chakra_count_frames (buf, sizeof buf), 3);
  ck_assert_uint_eq (wl_chakra_count_frames (buf, 4), 2);
  ck_assert_uint_eq (wl_chakra_count_frames (buf, sizeof buf - 1), 0);
  ck_assert_uint_eq (wl_chakra_count_frames (buf, 5), 0);
  ck_assert_uint_eq (wl_chakra_count_frames (buf, 0), 0);
}
END_TEST

START_TEST (test_taken_nodes)
{
  ChakraProtoMsg__Node *n = tu_comp (7, 12);
  tu_node_attr_int (n, "num_ops", 1000);
  tu_node_attr_int (n, "tensor_size", 4096);
  tu_node_attr_bool (n, "is_recompute", TRUE);
  tu_node_attr_string (n, "kernels", "gemm:m=64,n=64,k=64");
  tu_node_dep (n, 3);
  tu_node_dep (n, 5);
  tu_node_ctrl_dep (n, 2);
  check_node (n, TRUE);
  n = tu_comp (8, 1);
  tu_node_attr_bool (n, "is_cpu_op", TRUE);
  check_node (n, TRUE);
  static const gboolean dims[] = { FALSE, TRUE, TRUE };
  n = tu_coll (9, 0, 1 << 20);
  tu_node_attr_string (n, "pg_name", "3");
  attr_bool_list (n, "involved_dim", dims, G_N_ELEMENTS (dims));
  tu_node_attr_int (n, "comm_priority", -4);
  tu_node_attr_int (n, "stream", 12);
  tu_node_attr_int (n, "tid", 99); /* ignored */
  check_node (n, TRUE);
  n = tu_coll (10, 5, 64); /* a broadcast: rooted */
  tu_node_attr_int (n, "comm_root", 2);
  attr_bool_list (n, "involved_dim", dims, 0); /* empty: every dimension */
  check_node (n, TRUE);
  check_node (tu_coll (11, 9, 0), TRUE); /* a barrier */
  n = tu_node_new (12, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "c");
  tu_node_attr_bool (n, "comm_type", TRUE); /* a bool: 1, REDUCE */
  tu_node_attr_int (n, "comm_size", 8);
  check_node (n, TRUE);
  check_node (tu_p2p (13, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, 1, 7, 256), TRUE);
  n = tu_node_new (14, CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE, "m");
  tu_node_attr_int (n, "tensor_size", 1024);
  check_node (n, TRUE);
  check_node (tu_node_new (15, 99, "unknown type"), TRUE);
  check_node (tu_node_new (16, CHAKRA_PROTO_MSG__NODE_TYPE__INVALID_NODE, ""), TRUE);
}
END_TEST

START_TEST (test_declined_nodes)
{
  /* Errors of the usual path. */
  check_node (tu_node_new (1, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "no type"), FALSE);
  check_node (tu_coll (2, 0, -1), FALSE);       /* a negative size */
  check_node (tu_coll (3, 12, 64), FALSE);      /* not a collective type */
  ChakraProtoMsg__Node *n = tu_coll (4, 0, 64);
  tu_node_attr_int (n, "comm_priority", (gint64) G_MAXINT32 + 1);
  check_node (n, FALSE);
  n = tu_coll (5, 0, 64);
  tu_node_attr_string (n, "pg_name", "x");
  check_node (n, FALSE);
  n = tu_comp (6, 1);
  tu_node_attr_string (n, "num_ops", "many"); /* the wrong kind */
  check_node (n, FALSE);
  n = tu_comp (7, 1);
  tu_node_attr_string (n, "kernels", "nonsense");
  check_node (n, FALSE);
  n = tu_comp (8, G_MAXUINT64 / 1000); /* the duration overflows the clock */
  check_node (n, FALSE);
  n = tu_coll (9, 0, 64);
  tu_node_attr_int (n, "stream", 0);
  n->attr[n->n_attr - 1]->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET;
  check_node (n, FALSE);
  /* A second comm_type (ASTRA-sim keeps the last value, the index the
   * first): the usual path refuses it. */
  n = tu_coll (12, 9, 0);
  tu_node_attr_int (n, "comm_type", 0);
  check_node (n, FALSE);
  /* Left to the usual path though it decodes them: METADATA (IOInfo) and
   * any node with IOInfo. */
  n = tu_node_new (10, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE, "groups");
  tu_node_inputs (n, "[]");
  check_node (n, FALSE);
  n = tu_comp (11, 1);
  tu_node_inputs (n, "x");
  check_node (n, FALSE);
}
END_TEST

/* A generated trace loaded strictly (frames read in place) and leniently
 * (every node decoded): the same graph. */
START_TEST (test_same_graph_as_decoded)
{
  g_autofree char *prefix = tu_scratch_path ("g");
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b", "--tp",
                         "2", "--pp", "2", "--ranks", "4", "--global-batch", "2",
                         "--micro-batch", "1", "--out", prefix, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 0);
  for (guint r = 0; r < 4; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
      GError *error = NULL;
      g_autoptr (WlGraph) a = wl_graph_load_full (path, FALSE, &error);
      g_assert_no_error (error);
      g_autoptr (WlGraph) b = wl_graph_load_full (path, TRUE, &error);
      g_assert_no_error (error);
      ck_assert_uint_eq (a->n_nodes, b->n_nodes);
      ck_assert_uint_eq (a->n_roots, b->n_roots);
      ck_assert_uint_eq (a->n_streams, b->n_streams);
      ck_assert_uint_eq (a->n_skipped_unknown, b->n_skipped_unknown);
      ck_assert_uint_eq (a->name_bytes, b->name_bytes);
      ck_assert_uint_eq (a->group_defs->len, b->group_defs->len);
      ck_assert (wl_kernel_lists_equal (a->kernels, b->kernels));
      for (guint32 v = 0; v < a->n_nodes; v++)
        {
          tu_assert_same_node (&a->nodes[v], &b->nodes[v]);
          ck_assert_uint_eq (a->nodes[v].n_children, b->nodes[v].n_children);
          ck_assert_uint_eq (a->nodes[v].child_start, b->nodes[v].child_start);
          ck_assert_uint_eq (a->nodes[v].kernel_list, b->nodes[v].kernel_list);
          ck_assert_str_eq (a->names[v], b->names[v]);
        }
      const WlNode *last = &a->nodes[a->n_nodes - 1];
      for (guint32 k = 0; k < last->child_start + last->n_children; k++)
        ck_assert_uint_eq (a->children[k], b->children[k]);
    }
}
END_TEST

/* A send of SIZE bytes from SRC to DST whose pg_name is PG. */
static GBytes *
send_frame (gint64 src, gint64 dst, gint64 size, const char *pg)
{
  ChakraProtoMsg__Node *n = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, src, dst,
                                    7, size);
  tu_node_dep (n, 1);
  tu_node_attr_string (n, "pg_name", pg);
  return tu_node_frame (n);
}

/* wl_chakra_raw_node_against (A, B) takes B exactly when
 * wl_chakra_raw_node does, reads it alike, and says what
 * wl_chakra_raw_names_only says of the two. */
static void
assert_against (const guint8 *pa, gsize la, const guint8 *pb, gsize lb)
{
  WlRawNode one, two;
  wl_raw_node_init (&one);
  wl_raw_node_init (&two);
  gboolean alike = TRUE; /* a FALSE return must set it FALSE */
  gboolean took = wl_chakra_raw_node (pb, lb, &one);
  ck_assert_int_eq (wl_chakra_raw_node_against (pa, la, pb, lb, &two, &alike), took);
  ck_assert_int_eq (alike, took && wl_chakra_raw_names_only (pa, la, pb, lb));
  if (took)
    {
      ck_assert_uint_eq (one.id, two.id);
      ck_assert_int_eq (one.type, two.type);
      ck_assert_uint_eq (one.duration_micros, two.duration_micros);
      ck_assert_ptr_eq (one.name, two.name);
      ck_assert_uint_eq (one.name_len, two.name_len);
      ck_assert_uint_eq (one.seen, two.seen);
      ck_assert_uint_eq (one.data_deps.n, two.data_deps.n);
      ck_assert_uint_eq (one.ctrl_deps.n, two.ctrl_deps.n);
      for (guint k = 0; k < WL_ATTR_OTHER; k++)
        if ((one.seen & (1u << k)) != 0)
          {
            ck_assert_int_eq (one.attr[k].kind, two.attr[k].kind);
            ck_assert_uint_eq (one.attr[k].u, two.attr[k].u);
            ck_assert_ptr_eq (one.attr[k].p, two.attr[k].p);
            ck_assert_uint_eq (one.attr[k].len, two.attr[k].len);
          }
    }
  wl_raw_node_clear (&one);
  wl_raw_node_clear (&two);
}

static gboolean
names_only (GBytes *a, GBytes *b)
{
  gsize la, lb;
  const guint8 *pa = g_bytes_get_data (a, &la), *pb = g_bytes_get_data (b, &lb);
  gboolean ab = wl_chakra_raw_names_only (pa, la, pb, lb);
  ck_assert_int_eq (ab, wl_chakra_raw_names_only (pb, lb, pa, la)); /* either way round */
  assert_against (pa, la, pb, lb);
  assert_against (pb, lb, pa, la);
  return ab;
}

/* Frames that differ only in the values of comm_src, comm_dst, comm_root,
 * root and pg_name are the same but for names (wl_chakra_raw_names_only),
 * even where a value's length moves every length after it; a difference
 * anywhere else, or in an attribute's name or kind, is not. */
START_TEST (test_names_only_frames)
{
  g_autoptr (GBytes) base = send_frame (0, 1, 1000, "5");
  g_autoptr (GBytes) same = send_frame (0, 1, 1000, "5");
  g_autoptr (GBytes) peers = send_frame (300, 70000, 1000, "5"); /* longer varints */
  g_autoptr (GBytes) group = send_frame (0, 1, 1000, "61");
  g_autoptr (GBytes) size = send_frame (0, 1, 2000, "5");
  g_autoptr (GBytes) both = send_frame (3, 1, 2000, "5");
  ck_assert (names_only (base, same));
  ck_assert (names_only (base, peers));
  ck_assert (names_only (base, group));
  ck_assert (!names_only (base, size));
  ck_assert (!names_only (base, both));
  /* The duration, a dependency, the node's name: not names. */
  ChakraProtoMsg__Node *n = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, 1, 7,
                                    1000);
  n->duration_micros = 3;
  tu_node_dep (n, 1);
  tu_node_attr_string (n, "pg_name", "5");
  g_autoptr (GBytes) time = tu_node_frame (n);
  ck_assert (!names_only (base, time));
  n = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, 1, 7, 1000);
  tu_node_dep (n, 9);
  tu_node_attr_string (n, "pg_name", "5");
  g_autoptr (GBytes) dep = tu_node_frame (n);
  ck_assert (!names_only (base, dep));
  /* comm_root and root of a collective; comm_tag is not a name. */
  n = tu_coll (4, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST, 64);
  tu_node_attr_int (n, "comm_root", 0);
  tu_node_attr_int (n, "root", 0);
  tu_node_attr_int (n, "comm_tag", 0);
  g_autoptr (GBytes) c0 = tu_node_frame (n);
  n = tu_coll (4, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST, 64);
  tu_node_attr_int (n, "comm_root", 5);
  tu_node_attr_int (n, "root", 6);
  tu_node_attr_int (n, "comm_tag", 0);
  g_autoptr (GBytes) c1 = tu_node_frame (n);
  n = tu_coll (4, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST, 64);
  tu_node_attr_int (n, "comm_root", 0);
  tu_node_attr_int (n, "root", 0);
  tu_node_attr_int (n, "comm_tag", 1);
  g_autoptr (GBytes) c2 = tu_node_frame (n);
  ck_assert (names_only (c0, c1));
  ck_assert (!names_only (c0, c2));
  /* An attribute a letter off comm_src ("comm_srd"), its value alike or
   * not; comm_src's value as another kind (uint64_val, not int64_val). */
  n = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, 1, 7, 1000);
  tu_node_dep (n, 1);
  tu_node_attr_string (n, "pg_name", "5");
  ChakraProtoMsg__AttributeProto *src = NULL;
  for (gsize i = 0; i < n->n_attr; i++)
    if (strcmp (n->attr[i]->name, "comm_src") == 0)
      src = n->attr[i];
  ck_assert_ptr_nonnull (src);
  src->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
  src->uint64_val = 0;
  g_autoptr (GBytes) kind = tu_node_frame (n);
  ck_assert (!names_only (base, kind));
  gsize lb;
  const guint8 *pb = g_bytes_get_data (base, &lb);
  g_autofree guint8 *renamed = g_memdup2 (pb, lb);
  guint8 *at = memmem (renamed, lb, "comm_src", 8);
  ck_assert_ptr_nonnull (at);
  at[7] = 'd';
  ck_assert (!wl_chakra_raw_names_only (pb, lb, renamed, lb));
  ck_assert (!wl_chakra_raw_names_only (renamed, lb, pb, lb));
  /* A frame cut short by a byte; two empty frames are alike. */
  ck_assert (!wl_chakra_raw_names_only (pb, lb, pb, lb - 1));
  ck_assert (!wl_chakra_raw_names_only (pb, lb - 1, pb, lb));
  ck_assert (wl_chakra_raw_names_only (pb, 0, pb, 0));
  assert_against (pb, lb, renamed, lb);
  assert_against (renamed, lb, pb, lb);
  assert_against (pb, lb, pb, lb - 1);
  assert_against (pb, lb - 1, pb, lb);
  assert_against (pb, 0, pb, lb);
  assert_against (pb, lb, pb, 0);
  /* A's bytes past B's end, and A a frame this reader does not take (a
   * field it does not know): what is compared is A's bytes, not A read. */
  g_autofree guint8 *longer = g_malloc (lb + 2);
  memcpy (longer, pb, lb);
  longer[lb] = 0x40; /* field 8 (IOInfo), length-delimited, empty */
  longer[lb + 1] = 0;
  assert_against (longer, lb + 2, pb, lb);
  assert_against (pb, lb, longer, lb + 2);
}
END_TEST

/* B read against A by their names alone (wl_chakra_raw_names_against, A's
 * names from its own clean read, KNOWN 0 and every byte they share): TRUE
 * or FALSE, the same both ways of KNOWN.  Where TRUE, B's node as
 * wl_node_decode_raw_names gives it from A's node is what B's own read and
 * decode give, and *BN where B's own read finds its names; *OUT that
 * node. */
static gboolean
against_by_names (GBytes *a, GBytes *b, WlNode *out)
{
  gsize la, lb;
  const guint8 *pa = g_bytes_get_data (a, &la), *pb = g_bytes_get_data (b, &lb);
  WlRawNode ra, rb, rn;
  wl_raw_node_init (&ra);
  wl_raw_node_init (&rb);
  wl_raw_node_init (&rn);
  WlNodeDecoder d = { .path = "t.et" };
  WlNode na, nb;
  WlRawNames an, bn, own;
  ck_assert (wl_chakra_raw_node (pa, la, &ra) && wl_node_decode_raw (&d, &ra, &na));
  ck_assert (wl_raw_names_of (&ra, &an));
  gsize known = wl_common_prefix (pa, pb, MIN (la, lb));
  gboolean got = wl_chakra_raw_names_against (pa, la, &an, pb, lb, 0, &rn, &bn);
  ck_assert_int_eq (wl_chakra_raw_names_against (pa, la, &an, pb, lb, known, &rn, &bn), got);
  if (got && wl_node_decode_raw_names (&rn, &na, out))
    {
      ck_assert (wl_chakra_raw_node (pb, lb, &rb) && wl_node_decode_raw (&d, &rb, &nb));
      tu_assert_same_node (out, &nb);
      ck_assert (wl_raw_names_of (&rb, &own));
      ck_assert (memcmp (&own, &bn, sizeof own) == 0);
    }
  wl_raw_node_clear (&ra);
  wl_raw_node_clear (&rb);
  wl_raw_node_clear (&rn);
  return got;
}

/* A broadcast of 64 bytes (id 4) with the name attributes ROOTS names
 * (comm_root then root; a negative value: none) and PG0, then PG1 when
 * not NULL (two pg_name attributes). */
static GBytes *
bcast_frame (gint64 comm_root, gint64 root, const char *pg0, const char *pg1)
{
  ChakraProtoMsg__Node *n = tu_coll (4, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST, 64);
  if (comm_root >= 0)
    tu_node_attr_int (n, "comm_root", comm_root);
  if (root >= 0)
    tu_node_attr_int (n, "root", root);
  tu_node_attr_string (n, "pg_name", pg0);
  if (pg1 != NULL)
    tu_node_attr_string (n, "pg_name", pg1);
  return tu_node_frame (n);
}

/* A frame that differs from an earlier one only within the name
 * attributes the earlier one's read noted is read there alone, and gives
 * what its own read gives; a difference anywhere else (a size, a second
 * pg_name the reader does not keep), a cut frame, a name that does not
 * read, or earlier names not noted as clean: no verdict. */
START_TEST (test_names_against)
{
  WlNode w;
  g_autoptr (GBytes) base = send_frame (0, 1, 1000, "5");
  g_autoptr (GBytes) peers = send_frame (300, 70000, 1000, "5"); /* longer varints */
  g_autoptr (GBytes) group = send_frame (0, 1, 1000, "61");
  g_autoptr (GBytes) size = send_frame (3, 1, 2000, "5");
  ck_assert (against_by_names (base, base, &w));
  ck_assert_uint_eq (w.peer_src, 0);
  ck_assert (against_by_names (base, peers, &w));
  ck_assert_uint_eq (w.peer_src, 300);
  ck_assert_uint_eq (w.peer_dst, 70000);
  ck_assert (against_by_names (peers, base, &w));
  ck_assert_uint_eq (w.peer_dst, 1);
  /* A send's pg_name is read (the reader keeps it) but names nothing. */
  ck_assert (against_by_names (base, group, &w));
  ck_assert_uint_eq (w.peer_src, 0);
  ck_assert (!against_by_names (base, size, &w));
  /* A broadcast's root: comm_root's, else root's. */
  g_autoptr (GBytes) r0 = bcast_frame (0, 0, "5", NULL);
  g_autoptr (GBytes) r1 = bcast_frame (5, 6, "7", NULL);
  ck_assert (against_by_names (r0, r1, &w));
  ck_assert_uint_eq (w.root, 5);
  ck_assert_uint_eq (w.group, 7);
  g_autoptr (GBytes) f0 = bcast_frame (-1, 2, "5", NULL);
  g_autoptr (GBytes) f1 = bcast_frame (-1, 6, "5", NULL);
  ck_assert (against_by_names (f0, f1, &w));
  ck_assert_uint_eq (w.root, 6);
  ck_assert_uint_eq (w.group, 5);
  /* Two pg_names: the reader does not take the frame (loading refuses
   * it), and a frame that adds one to a clean frame is no verdict. */
  g_autoptr (GBytes) two = bcast_frame (0, 0, "5", "7");
  gsize l2, l0;
  const guint8 *p2 = g_bytes_get_data (two, &l2), *p0 = g_bytes_get_data (r0, &l0);
  WlRawNode r2;
  wl_raw_node_init (&r2);
  ck_assert (!wl_chakra_raw_node (p2, l2, &r2));
  WlNode n0;
  WlRawNames a0, b2;
  WlNodeDecoder d0 = { .path = "t.et" };
  ck_assert (wl_chakra_raw_node (p0, l0, &r2) && wl_node_decode_raw (&d0, &r2, &n0));
  ck_assert (wl_raw_names_of (&r2, &a0));
  ck_assert (!wl_chakra_raw_names_against (p0, l0, &a0, p2, l2, 0, &r2, &b2));
  wl_raw_node_clear (&r2);
  /* A rank that does not decode (comm_src -1): the names are read, the
   * node is not. */
  g_autoptr (GBytes) negative = send_frame (-1, 1, 1000, "5");
  gsize la, lb;
  const guint8 *pa = g_bytes_get_data (base, &la), *pn = g_bytes_get_data (negative, &lb);
  WlRawNode ra, rn;
  wl_raw_node_init (&ra);
  wl_raw_node_init (&rn);
  WlNodeDecoder d = { .path = "t.et" };
  WlNode na;
  WlRawNames an, bn;
  ck_assert (wl_chakra_raw_node (pa, la, &ra) && wl_node_decode_raw (&d, &ra, &na));
  ck_assert (wl_raw_names_of (&ra, &an));
  ck_assert (wl_chakra_raw_names_against (pa, la, &an, pn, lb, 0, &rn, &bn));
  ck_assert (!wl_node_decode_raw_names (&rn, &na, &w));
  /* A string name holding a NUL does not read; a cut frame; names not
   * noted as clean. */
  g_autofree guint8 *nul = g_memdup2 (pa, la);
  guint8 *at = memmem (nul, la, "pg_name", 7);
  ck_assert_ptr_nonnull (at);
  /* The name, the value's tag (field 29: two bytes) and length, the value. */
  ck_assert_uint_eq (at[10], '5');
  at[10] = 0;
  ck_assert (!wl_chakra_raw_names_against (pa, la, &an, nul, la, 0, &rn, &bn));
  ck_assert (!wl_chakra_raw_node (nul, la, &rn));
  ck_assert (!wl_chakra_raw_names_against (pa, la, &an, pa, la - 1, 0, &rn, &bn));
  /* The same node without its pg_name: a frame that ends where the
   * earlier frame's last name field begins, in a block of its own length
   * (tu_node_frame's: memcheck and ASan see a read past it). */
  ChakraProtoMsg__Node *bare = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, 1, 7,
                                       1000);
  tu_node_dep (bare, 1);
  g_autoptr (GBytes) nameless = tu_node_frame (bare);
  gsize lc;
  const guint8 *pc = g_bytes_get_data (nameless, &lc);
  ck_assert_uint_lt (lc, la);
  ck_assert (memcmp (pa, pc, lc) == 0);
  ck_assert (!wl_chakra_raw_names_against (pa, la, &an, pc, lc, 0, &rn, &bn));
  WlRawNames dirty = an;
  dirty.clean = 0;
  ck_assert (!wl_chakra_raw_names_against (pa, la, &dirty, pa, la, 0, &rn, &bn));
  wl_raw_node_clear (&ra);
  wl_raw_node_clear (&rn);
}
END_TEST

/* Name attributes in another order than wl_raw_name_keys' (a receive's
 * comm_dst before its comm_src; a broadcast's pg_name, root, then
 * comm_root) are read where each sits: hand-expected, the second frame's
 * names. */
START_TEST (test_names_out_of_order)
{
  GBytes *f[2];
  for (guint i = 0; i < 2; i++)
    {
      ChakraProtoMsg__Node *n = tu_node_new (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, "recv");
      tu_node_attr_int (n, "comm_dst", i == 0 ? 1 : 40);
      tu_node_attr_int (n, "comm_src", i == 0 ? 0 : 300);
      tu_node_attr_int (n, "comm_tag", 7);
      tu_node_attr_int (n, "comm_size", 64);
      f[i] = tu_node_frame (n);
    }
  WlNode w;
  ck_assert (against_by_names (f[0], f[1], &w));
  ck_assert_uint_eq (w.peer_src, 300);
  ck_assert_uint_eq (w.peer_dst, 40);
  g_bytes_unref (f[0]);
  g_bytes_unref (f[1]);
  for (guint i = 0; i < 2; i++)
    {
      ChakraProtoMsg__Node *n
        = tu_coll (4, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__BROADCAST, 64);
      tu_node_attr_string (n, "pg_name", i == 0 ? "5" : "12");
      tu_node_attr_int (n, "root", i == 0 ? 2 : 9);
      tu_node_attr_int (n, "comm_root", i == 0 ? 3 : 6);
      f[i] = tu_node_frame (n);
    }
  ck_assert (against_by_names (f[0], f[1], &w));
  ck_assert_uint_eq (w.root, 6); /* comm_root's, before root's */
  ck_assert_uint_eq (w.group, 12);
  g_bytes_unref (f[0]);
  g_bytes_unref (f[1]);
}
END_TEST

/* wl_common_prefix, its plain-C twin and its long-run (AVX2) form: the
 * first byte that differs, wherever it sits in a word or a 32- or 64-byte
 * block, whichever bit of it differs, from any alignment; N when none
 * does, a second difference later unseen. */
START_TEST (test_common_prefix)
{
  guint8 a[160], b[160];
  for (gsize i = 0; i < sizeof a; i++)
    a[i] = (guint8) (i * 37u + 11u);
  for (gsize start = 0; start < 3; start++)
    for (gsize n = 0; n + start <= 150; n++)
      for (gsize d = 0; d <= n; d++)
        {
          guint8 bit = (guint8) (1u << ((n + d) % 8));
          memcpy (b, a, sizeof b);
          if (d < n)
            b[start + d] ^= bit;
          if (d + 5 < n)
            b[start + d + 5] ^= 0xff;
          ck_assert_uint_eq (wl_common_prefix (a + start, b + start, n), d);
          ck_assert_uint_eq (wl_common_prefix_c (a + start, b + start, n), d);
          ck_assert_uint_eq (wl_common_prefix_long (a + start, b + start, n), d);
        }
}
END_TEST

/* A collective's pg_name as the raw path reads it (up to 18 digits in
 * place, the rest as text): the group hand-worked here, and the usual
 * decoder's (check_node); names that are no group declined. */
START_TEST (test_group_names)
{
  static const struct
  {
    const char *pg;
    guint64 group;
  } ok[] = {
    { "", WL_GROUP_ALL },
    { "0", 0 },
    { "007", 7 },
    { "3.0", 3 },
    { "999999999999999999", 999999999999999999ull },    /* 18 digits: in place */
    { "1234567890123456789", 1234567890123456789ull }, /* 19: as text */
  };
  for (guint i = 0; i < G_N_ELEMENTS (ok); i++)
    {
      ChakraProtoMsg__Node *n = tu_coll (9, 0, 64);
      tu_node_attr_string (n, "pg_name", ok[i].pg);
      g_autoptr (GBytes) f = tu_node_frame (n);
      gsize len;
      const guint8 *p = g_bytes_get_data (f, &len);
      WlNodeDecoder d = { .path = "t.et", .kernels = wl_kernel_lists_new () };
      WlRawNode raw;
      wl_raw_node_init (&raw);
      WlNode w;
      ck_assert (wl_chakra_raw_node (p, len, &raw) && wl_node_decode_raw (&d, &raw, &w));
      ck_assert_uint_eq (w.group, ok[i].group);
      wl_raw_node_clear (&raw);
      wl_kernel_lists_free (d.kernels);
      n = tu_coll (9, 0, 64);
      tu_node_attr_string (n, "pg_name", ok[i].pg);
      check_node (n, TRUE);
    }
  static const char *const bad[] = { "3.5", "12a", "-1", "99999999999999999999999" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ChakraProtoMsg__Node *n = tu_coll (9, 0, 64);
      tu_node_attr_string (n, "pg_name", bad[i]);
      check_node (n, FALSE);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("raw");
  TCase *tc = tu_tcase (s, "raw", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_taken_nodes);
  tcase_add_test (tc, test_declined_nodes);
  tcase_add_test (tc, test_same_graph_as_decoded);
  tcase_add_test (tc, test_names_only_frames);
  tcase_add_test (tc, test_names_against);
  tcase_add_test (tc, test_names_out_of_order);
  tcase_add_test (tc, test_common_prefix);
  tcase_add_test (tc, test_group_names);
  tcase_add_test (tc, test_count_frames);
  return tu_run_suite (s);
}
