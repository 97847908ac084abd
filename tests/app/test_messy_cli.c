/* test_messy_cli.c: the table of malformed traces (workload/README.md), row by row,
 * through the built program: for each defect, `orrery inspect` names it and
 * exits 1, `orrery run` refuses with the same words and exits 1, and `orrery
 * run --lenient` exits with the table's code and says what it dropped.
 *
 * Each trace is one rank's file on a one-rank ring; the expected messages
 * are written out from the trace each test builds (ids, frame offsets).
 * tests/workload/test_messy.c checks the same defects at the library level
 * (the graph each lenient load keeps).
 */
#include <check.h>
#include <string.h>

#include "support/modes.h"
#include "support/testutil.h"

enum
{
  T_COMP = 4,
  T_COLL = 7
};

/* One row: the defect's text after "PATH: " (NULL: the trace is clean),
 * and what --lenient does: its exit status and a line of its output. */
typedef struct
{
  const char *what;
  int lenient_exit;
  const char *lenient_says;
} Row;

static char *
write_config (void)
{
  return tu_write_file ("ring.xml",
                        "<?xml version=\"1.0\"?>\n"
                        "<cluster name=\"one\" rounding=\"ps\">\n"
                        "  <network model=\"analytical\">\n"
                        "    <dim kind=\"Ring\" size=\"1\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
                        "  </network>\n"
                        "</cluster>\n");
}

/* The trace set's one file, wl.0.et (the caller frees it). */
static char *
rank0_path (void)
{
  return tu_scratch_path ("wl.0.et");
}

static void
write_nodes (ChakraProtoMsg__Node **nodes, guint n)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  tu_write_rank (prefix, 0, nodes, n);
}

static void
write_raw (const GByteArray *bytes)
{
  g_autofree char *path = rank0_path ();
  ck_assert (g_file_set_contents (path, (const char *) bytes->data, bytes->len, NULL));
}

/* Run `orrery ARGS... --workload PREFIX` (run) or `orrery inspect FILE`;
 * return the exit status, the output in *out. */
static int
run_orrery (char **out, const char *mode)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *prefix = tu_scratch_path ("wl");
  g_autofree char *file = rank0_path ();
  if (strcmp (mode, "inspect") == 0)
    {
      const char *argv[] = { tu_orrery (), "inspect", file, NULL };
      return tu_run (out, argv);
    }
  gboolean lenient = strcmp (mode, "lenient") == 0;
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", prefix,
                         lenient ? "--lenient" : NULL, NULL };
  return tu_run_modes (out, argv);
}

/* The checks of one row on the trace written for it. */
static void
check_row (const Row *row)
{
  g_autofree char *file = rank0_path ();
  g_autofree char *out = NULL;
  if (row->what == NULL)
    {
      ck_assert_int_eq (run_orrery (&out, "inspect"), 0);
      g_clear_pointer (&out, g_free);
      ck_assert_int_eq (run_orrery (&out, "strict"), 0);
    }
  else
    {
      g_autofree char *line = g_strdup_printf ("%s: %s", file, row->what);
      ck_assert_int_eq (run_orrery (&out, "inspect"), 1);
      ck_assert_msg (strstr (out, line) != NULL, "inspect does not say \"%s\":\n%s", line, out);
      g_clear_pointer (&out, g_free);
      ck_assert_int_eq (run_orrery (&out, "strict"), 1);
      g_autofree char *refusal = g_strdup_printf ("orrery run: %s\n", line);
      ck_assert_msg (strstr (out, refusal) != NULL, "run does not say \"%s\":\n%s", refusal,
                     out);
    }
  g_clear_pointer (&out, g_free);
  ck_assert_int_eq (run_orrery (&out, "lenient"), row->lenient_exit);
  ck_assert_msg (strstr (out, row->lenient_says) != NULL, "--lenient does not say \"%s\":\n%s",
                 row->lenient_says, out);
}

START_TEST (test_dangling)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 3);
  tu_node_dep (a, 99);
  ChakraProtoMsg__Node *nodes[] = { a };
  write_nodes (nodes, 1);
  check_row (&(Row) { "node 1 depends on node 99, which is not in the trace (dangling "
                      "dependency)", 0, "lenient: 1 dangling dependency dropped" });
}
END_TEST

/* 10 waits for 30 (data), 30 for 20 (control), 20 for 10. */
START_TEST (test_cycle)
{
  ChakraProtoMsg__Node *a = tu_comp (10, 1), *b = tu_comp (20, 1), *c = tu_comp (30, 1);
  tu_node_dep (a, 30);
  tu_node_dep (b, 10);
  tu_node_ctrl_dep (c, 20);
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  write_nodes (nodes, 3);
  check_row (&(Row) { "dependency cycle through 3 nodes: 10 -> 30 -> 20 -> 10 (each depends on "
                      "the next)", 0, "lenient: 1 dependency closing a cycle dropped" });
}
END_TEST

START_TEST (test_coll_without_type)
{
  ChakraProtoMsg__Node *a = tu_node_new (1, T_COLL, "ar");
  tu_node_attr_int (a, "comm_size", 4096);
  ChakraProtoMsg__Node *nodes[] = { a };
  write_nodes (nodes, 1);
  check_row (&(Row) { "node 1: COMM_COLL node without comm_type", 0,
                      "lenient: 1 collective without comm_type/comm_size skipped" });
}
END_TEST

START_TEST (test_valueless_attr)
{
  ChakraProtoMsg__Node *a = tu_comp (5, 3);
  tu_node_attr_int (a, "num_ops", 0);
  a->attr[a->n_attr - 1]->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET;
  ChakraProtoMsg__Node *nodes[] = { a };
  write_nodes (nodes, 1);
  check_row (&(Row) { "node 5: attribute \"num_ops\" has no value (valueless attribute)", 0,
                      "lenient: 1 valueless attribute ignored" });
}
END_TEST

START_TEST (test_duplicate)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (1, 7);
  ChakraProtoMsg__Node *nodes[] = { a, b };
  write_nodes (nodes, 2);
  check_row (&(Row) { "node 1: the id appears twice in the trace (duplicate id)", 0,
                      "lenient: 1 node with a repeated id dropped" });
}
END_TEST

/* A compute node that gives num_ops twice: ASTRA-sim's reader keeps the
 * last value, another the first, so both modes refuse it. */
START_TEST (test_repeated_attr)
{
  ChakraProtoMsg__Node *a = tu_comp (5, 3);
  tu_node_attr_int (a, "num_ops", 100);
  tu_node_attr_int (a, "num_ops", 200);
  ChakraProtoMsg__Node *nodes[] = { a };
  write_nodes (nodes, 1);
  const char *what = "node 5: attribute \"num_ops\" is given twice (ASTRA-sim keeps the last "
                     "value, other readers the first): keep one";
  check_row (&(Row) { what, 1, what });
}
END_TEST

/* Ids 2^53 and 2^53 + 1 (one double) and 2^64 - 1, in a chain of 1 us
 * nodes: clean, and the dangling dependency of the last names its id
 * exactly. */
START_TEST (test_big_ids)
{
  guint64 lo = G_GUINT64_CONSTANT (1) << 53, hi = lo + 1, top = G_MAXUINT64;
  ChakraProtoMsg__Node *a = tu_comp (lo, 1), *b = tu_comp (hi, 1), *c = tu_comp (top, 1);
  tu_node_dep (b, lo);
  tu_node_dep (c, hi);
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  write_nodes (nodes, 3);
  check_row (&(Row) { NULL, 0, "simulated time: 3.000 us" });

  a = tu_comp (lo, 1);
  c = tu_comp (top, 1);
  tu_node_dep (c, hi);
  ChakraProtoMsg__Node *broken[] = { a, c };
  write_nodes (broken, 2);
  check_row (&(Row) { "node 18446744073709551615 depends on node 9007199254740993, which is not "
                      "in the trace (dangling dependency)", 0,
                      "lenient: 1 dangling dependency dropped" });
}
END_TEST

START_TEST (test_empty)
{
  g_autoptr (GByteArray) none = g_byte_array_new ();
  write_raw (none);
  check_row (&(Row) { "empty trace (no GlobalMetadata frame)", 1,
                      "empty trace (no GlobalMetadata frame)" });
}
END_TEST

/* A trace of its GlobalMetadata alone is clean: nothing to do, finished
 * at 0.  Its graph has no nodes, which once left it without a node array
 * and crashed the load (the array is what tells a full graph from a
 * compact one). */
START_TEST (test_metadata_only)
{
  write_nodes (NULL, 0);
  check_row (&(Row) { NULL, 0, "simulated time: 0 ns" });
}
END_TEST

/* Writes NODES (N_ALL of them) as rank 0's trace cut 2 bytes short, and
 * checks the messages: frame LAST (the last node's, whose frame has a
 * one-byte length) starts where the trace of the first N_HEAD nodes
 * alone ends, and --lenient drops it. */
static void
check_cut_short (ChakraProtoMsg__Node **nodes, guint n_head, guint n_all, guint last)
{
  g_autofree char *head = tu_scratch_path ("head.et");
  tu_write_trace (head, n_head > 0 ? nodes : NULL, n_head);
  write_nodes (nodes, n_all);
  g_autofree char *path = rank0_path ();
  g_autofree char *data = NULL, *headdata = NULL;
  gsize len = 0, offset = 0;
  ck_assert (g_file_get_contents (path, &data, &len, NULL));
  ck_assert (g_file_get_contents (head, &headdata, &offset, NULL));
  ck_assert (g_file_set_contents (path, data, (gssize) len - 2, NULL));
  gsize frame = len - offset - 1;
  g_autofree char *what = g_strdup_printf (
    "frame %u at byte offset %" G_GSIZE_FORMAT ": frame length %" G_GSIZE_FORMAT
    " runs past end of file (%" G_GSIZE_FORMAT " bytes left): truncated file?",
    last, offset, frame, frame - 2);
  check_row (&(Row) { what, 0, "lenient: 1 truncated last frame dropped" });
}

/* One node cut short: --lenient drops its frame and keeps the metadata
 * alone, a graph of no nodes (the crash above, reached through a
 * truncated file). */
START_TEST (test_truncated_only_frame)
{
  ChakraProtoMsg__Node *one[] = { tu_comp (1, 1) };
  check_cut_short (one, 0, 1, 1);
}
END_TEST

/* Nodes 1 -> 2 -> 3 with 2 bytes cut off the end: frame 3 (node 3) starts
 * where the trace of nodes 1 and 2 alone ends. */
START_TEST (test_truncated_frame)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (2, 2), *c = tu_comp (3, 3);
  tu_node_dep (b, 1);
  tu_node_dep (c, 2);
  ChakraProtoMsg__Node *three[] = { a, b, c };
  check_cut_short (three, 2, 3, 3);
}
END_TEST

static void
append_frame (GByteArray *out, const guint8 *msg, gsize len)
{
  ck_assert_uint_lt (len, 128); /* a one-byte length */
  guint8 head = (guint8) len;
  g_byte_array_append (out, &head, 1);
  g_byte_array_append (out, msg, (guint) len);
}

/* Frame 0 is a Node (id 7, a 1 us COMP): no GlobalMetadata. */
START_TEST (test_headerless)
{
  ChakraProtoMsg__Node *a = tu_comp (7, 1);
  guint8 buf[128];
  gsize len = chakra_proto_msg__node__get_packed_size (a);
  ck_assert_uint_le (len, sizeof buf);
  chakra_proto_msg__node__pack (a, buf);
  tu_node_free (a);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  append_frame (bytes, buf, len);
  write_raw (bytes);
  check_row (&(Row) { "headerless (pre-2024) Chakra trace: frame 0 is a Node (id 7, type "
                      "COMP_NODE), not a GlobalMetadata; convert it with a current Chakra "
                      "converter", 0, "lenient: 1 headerless (pre-2024) file read" });
}
END_TEST

/* Written byte by byte as proto2-era writers did: node 2 lists node 1 twice
 * (a data and a control dependency, each under its own tag) and zero
 * scalars are written out.  Node 1 runs 2 us, node 2 3 us: 5 us. */
START_TEST (test_proto2_layout)
{
  static const guint8 meta[] = { 0x0a, 0x05, '0', '.', '0', '.', '1' };
  static const guint8 n1[] = { 0x08, 0x01, 0x12, 0x01, 'a', 0x18, 0x04, 0x30, 0x00, 0x38, 0x02 };
  static const guint8 n2[] = { 0x08, 0x02, 0x18, 0x04, 0x20, 0x01, 0x28, 0x01, 0x30, 0x00,
                               0x38, 0x03 };
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  append_frame (bytes, meta, sizeof meta);
  append_frame (bytes, n1, sizeof n1);
  append_frame (bytes, n2, sizeof n2);
  write_raw (bytes);
  check_row (&(Row) { NULL, 0, "simulated time: 5.000 us" });
}
END_TEST

/* A frame in the middle that does not unpack (its first byte, tag 0, is
 * invalid protobuf) is refused in both modes. */
START_TEST (test_bad_middle_frame)
{
  static const guint8 meta[] = { 0x0a, 0x05, '0', '.', '0', '.', '1' };
  static const guint8 n1[] = { 0x08, 0x01, 0x18, 0x04, 0x38, 0x02 };
  static const guint8 bad[] = { 0x00, 0x01 };
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  append_frame (bytes, meta, sizeof meta);
  append_frame (bytes, bad, sizeof bad);
  append_frame (bytes, n1, sizeof n1);
  write_raw (bytes);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_orrery (&out, "strict"), 1);
  ck_assert_msg (strstr (out, "frame 1 at byte offset 8: 2 bytes do not unpack as a Node"),
                 "%s", out);
  g_clear_pointer (&out, g_free);
  ck_assert_int_eq (run_orrery (&out, "lenient"), 1);
  ck_assert_msg (strstr (out, "do not unpack as a Node"), "%s", out);
  g_clear_pointer (&out, g_free);
  ck_assert_int_eq (run_orrery (&out, "inspect"), 1);
  ck_assert_msg (strstr (out, "do not unpack as a Node"), "%s", out);
}
END_TEST

static Suite *
messy_cli_suite (void)
{
  Suite *s = suite_create ("messy_cli");
  TCase *tc = tu_tcase (s, "messy_cli", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_dangling);
  tcase_add_test (tc, test_cycle);
  tcase_add_test (tc, test_coll_without_type);
  tcase_add_test (tc, test_valueless_attr);
  tcase_add_test (tc, test_duplicate);
  tcase_add_test (tc, test_repeated_attr);
  tcase_add_test (tc, test_big_ids);
  tcase_add_test (tc, test_empty);
  tcase_add_test (tc, test_truncated_frame);
  tcase_add_test (tc, test_metadata_only);
  tcase_add_test (tc, test_truncated_only_frame);
  tcase_add_test (tc, test_headerless);
  tcase_add_test (tc, test_proto2_layout);
  tcase_add_test (tc, test_bad_middle_frame);
  return s;
}

int
main (void)
{
  return tu_run_suite (messy_cli_suite ());
}
