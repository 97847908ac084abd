/* test_chakra.c: the Chakra .et reader/writer against real and hand-made traces.
 *
 * Expected bytes and values come from the wire format written in
 * ../shared/chakra/FORMAT.md, from what each test builds itself, or from the
 * real traces' own bytes (a copy must equal its original); never from the
 * module's earlier output.  Each test runs in a fresh temporary directory.
 */
#include <check.h>
#include <math.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "support/testutil.h"
#include "workload/chakra.h"
#include "workload/graph.h"

#define VC(kind) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##kind

static char *tmpdir;

/* ------------------------------------------------------------ fixture */

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          remove_tree (child);
        }
      if (dir != NULL)
        g_dir_close (dir);
    }
  g_remove (path);
}

static void
setup (void)
{
  tmpdir = g_dir_make_tmp ("orrery-chakra-XXXXXX", NULL);
  ck_assert_ptr_nonnull (tmpdir);
}

static void
teardown (void)
{
  remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

/* ------------------------------------------------------------ helpers */

/* The bytes of PATH, inflated if it is gzip (zlib's gzread passes plain
 * files through): an independent view of what a file holds. */
static GByteArray *
file_bytes (const char *path)
{
  gzFile gz = gzopen (path, "rb");
  ck_assert_msg (gz != NULL, "cannot open %s", path);
  GByteArray *out = g_byte_array_new ();
  guint8 chunk[65536];
  int n;
  while ((n = gzread (gz, chunk, sizeof chunk)) > 0)
    g_byte_array_append (out, chunk, (guint) n);
  ck_assert_int_eq (n, 0);
  gzclose (gz);
  return out;
}

static void
write_bytes (const char *path, const void *data, gsize len)
{
  ck_assert (g_file_set_contents (path, data, (gssize) len, NULL));
}

/* Append MSG to BYTES framed as FORMAT.md says: varint length, then bytes. */
static void
append_frame (GByteArray *bytes, const ProtobufCMessage *msg)
{
  gsize size = protobuf_c_message_get_packed_size (msg);
  guint64 v = size;
  do
    {
      guint8 b = (guint8) ((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
      g_byte_array_append (bytes, &b, 1);
      v >>= 7;
    }
  while (v != 0);
  guint8 *buf = g_malloc (size);
  protobuf_c_message_pack (msg, buf);
  g_byte_array_append (bytes, buf, (guint) size);
  g_free (buf);
}

static gboolean
bytes_contain (const GByteArray *hay, const void *needle, gsize len)
{
  return memmem (hay->data, hay->len, needle, len) != NULL;
}

static void
assert_error (GError *error, const char *needle)
{
  ck_assert_msg (error != NULL, "expected an error mentioning \"%s\"", needle);
  ck_assert_msg (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT),
                 "wrong domain/code for: %s", error->message);
  ck_assert_msg (strstr (error->message, needle) != NULL,
                 "error \"%s\" does not mention \"%s\"", error->message, needle);
}

/* ------------------------------------------------- node building kit */

/* Everything the hand-built nodes point to, freed in one go. */
static GPtrArray *arena;

static gpointer
keep (gpointer p)
{
  g_ptr_array_add (arena, p);
  return p;
}

static ChakraProtoMsg__Node *
node_new (guint64 id, const char *name, int type)
{
  ChakraProtoMsg__Node *n = keep (g_new0 (ChakraProtoMsg__Node, 1));
  chakra_proto_msg__node__init (n);
  n->id = id;
  n->name = keep (g_strdup (name));
  n->type = (ChakraProtoMsg__NodeType) type;
  n->attr = keep (g_new0 (ChakraProtoMsg__AttributeProto *, 16));
  return n;
}

static ChakraProtoMsg__AttributeProto *
attr_add (ChakraProtoMsg__Node *n, const char *name, int kind)
{
  ck_assert_uint_lt (n->n_attr, 16);
  ChakraProtoMsg__AttributeProto *a = keep (g_new0 (ChakraProtoMsg__AttributeProto, 1));
  chakra_proto_msg__attribute_proto__init (a);
  a->name = keep (g_strdup (name));
  a->value_case = (ChakraProtoMsg__AttributeProto__ValueCase) kind;
  n->attr[n->n_attr++] = a;
  return a;
}

static void
deps_set (size_t *count, uint64_t **deps, const uint64_t *ids, size_t n)
{
  *count = n;
  *deps = keep (g_memdup2 (ids, n * sizeof *ids));
}

static ChakraProtoMsg__IOInfo *
io_new (const char *values, const char *shapes, const char *types)
{
  ChakraProtoMsg__IOInfo *io = keep (g_new0 (ChakraProtoMsg__IOInfo, 1));
  chakra_proto_msg__ioinfo__init (io);
  io->values = keep (g_strdup (values));
  io->shapes = keep (g_strdup (shapes));
  io->types = keep (g_strdup (types));
  return io;
}

/* A bool_list or int32_list attribute holding VALUES. */
static void
attr_list (ChakraProtoMsg__Node *n, const char *name, gboolean as_bool, const int *values,
           size_t count)
{
  if (as_bool)
    {
      ChakraProtoMsg__BoolList *l = keep (g_new0 (ChakraProtoMsg__BoolList, 1));
      chakra_proto_msg__bool_list__init (l);
      l->n_values = count;
      l->values = keep (g_new0 (protobuf_c_boolean, count));
      for (size_t i = 0; i < count; i++)
        l->values[i] = values[i];
      attr_add (n, name, VC (BOOL_LIST))->bool_list = l;
      return;
    }
  ChakraProtoMsg__Int32List *l = keep (g_new0 (ChakraProtoMsg__Int32List, 1));
  chakra_proto_msg__int32_list__init (l);
  l->n_values = count;
  l->values = keep (g_new0 (int32_t, count));
  for (size_t i = 0; i < count; i++)
    l->values[i] = values[i];
  attr_add (n, name, VC (INT32_LIST))->int32_list = l;
}

#define MIB 1048576
#define BIG_U64 (G_GUINT64_CONSTANT (1) << 63 | 5) /* above G_MAXINT64 */
#define NUM_FIXTURE_NODES 12

/* One node of every type (plus an unknown type 9 and a node with id 0),
 * dependencies forward, backward and dangling, and attributes of every
 * integer kind.  Fills NODES (borrowed from the arena). */
static void
build_fixture (ChakraProtoMsg__Node **nodes)
{
  static const uint64_t ctrl_13[] = { 10 }, data_13[] = { 11, 12 };
  static const uint64_t data_17[] = { 20, 13 }, ctrl_17[] = { 99 };
  static const int dims[] = { 1, 0, 1 }, int_dims[] = { 3, 0, -1 };
  ChakraProtoMsg__Node *n;

  n = nodes[0] = node_new (10, "process_groups", CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE);
  n->inputs = io_new ("[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]", "", "");
  n = nodes[1] = node_new (11, "load", CHAKRA_PROTO_MSG__NODE_TYPE__MEM_LOAD_NODE);
  attr_add (n, "tensor_size", VC (UINT64_VAL))->uint64_val = 4096;
  n = nodes[2] = node_new (12, "store", CHAKRA_PROTO_MSG__NODE_TYPE__MEM_STORE_NODE);
  attr_add (n, "tensor_size", VC (INT64_VAL))->int64_val = 2048;
  n = nodes[3] = node_new (13, "gemm", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
  deps_set (&n->n_ctrl_deps, &n->ctrl_deps, ctrl_13, G_N_ELEMENTS (ctrl_13));
  deps_set (&n->n_data_deps, &n->data_deps, data_13, G_N_ELEMENTS (data_13));
  n->start_time_micros = 7;
  n->duration_micros = 25;
  n->inputs = io_new ("[[1,2]]", "[[128,256]]", "[\"float\"]");
  n->outputs = io_new ("", "", ""); /* present but empty: must stay present */
  attr_add (n, "num_ops", VC (INT64_VAL))->int64_val = G_GINT64_CONSTANT (1) << 40;
  attr_add (n, "is_cpu_op", VC (INT32_VAL))->int32_val = 1;
  n = nodes[4] = node_new (14, "host_op", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
  attr_add (n, "is_cpu_op", VC (BOOL_VAL))->bool_val = TRUE;
  n = nodes[5] = node_new (15, "send", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE);
  attr_add (n, "is_cpu_op", VC (BOOL_VAL))->bool_val = FALSE;
  attr_add (n, "comm_src", VC (INT32_VAL))->int32_val = 0;
  attr_add (n, "comm_dst", VC (INT32_VAL))->int32_val = 1;
  attr_add (n, "comm_tag", VC (INT32_VAL))->int32_val = 7;
  attr_add (n, "comm_size", VC (UINT64_VAL))->uint64_val = 3 * MIB;
  n = nodes[6] = node_new (16, "recv", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE);
  attr_add (n, "comm_size", VC (INT64_VAL))->int64_val = 5 * MIB;
  n = nodes[7] = node_new (17, "all_reduce", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
  deps_set (&n->n_data_deps, &n->data_deps, data_17, G_N_ELEMENTS (data_17));
  deps_set (&n->n_ctrl_deps, &n->ctrl_deps, ctrl_17, G_N_ELEMENTS (ctrl_17));
  attr_add (n, "comm_type", VC (INT64_VAL))->int64_val =
    CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE;
  attr_add (n, "comm_size", VC (INT32_VAL))->int32_val = MIB;
  attr_add (n, "pg_name", VC (STRING_VAL))->string_val = keep (g_strdup ("0.0"));
  attr_list (n, "involved_dim", TRUE, dims, G_N_ELEMENTS (dims));
  n = nodes[8] = node_new (18, "reduce_scatter", CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
  attr_add (n, "comm_type", VC (INT64_VAL))->int64_val =
    CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER;
  attr_add (n, "comm_size", VC (FIXED64_VAL))->fixed64_val = 2 * MIB;
  attr_list (n, "involved_dim", FALSE, int_dims, G_N_ELEMENTS (int_dims));
  nodes[9] = node_new (19, "", CHAKRA_PROTO_MSG__NODE_TYPE__INVALID_NODE);
  n = nodes[10] = node_new (20, "future_storage_node", 9);
  attr_add (n, "k_uint32", VC (UINT32_VAL))->uint32_val = 4000000000u;
  attr_add (n, "k_sint32", VC (SINT32_VAL))->sint32_val = -5;
  attr_add (n, "k_sint64", VC (SINT64_VAL))->sint64_val = -6;
  attr_add (n, "k_fixed32", VC (FIXED32_VAL))->fixed32_val = 8;
  attr_add (n, "k_sfixed32", VC (SFIXED32_VAL))->sfixed32_val = -8;
  attr_add (n, "k_sfixed64", VC (SFIXED64_VAL))->sfixed64_val = -9;
  attr_add (n, "k_big", VC (UINT64_VAL))->uint64_val = BIG_U64;
  attr_add (n, "k_neg", VC (INT64_VAL))->int64_val = -3;
  attr_add (n, "k_double", VC (DOUBLE_VAL))->double_val = 1.5;
  n = nodes[11] = node_new (0, "id_zero", CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE);
  n->duration_micros = 1;
}

static void
fixture_begin (ChakraProtoMsg__Node **nodes)
{
  arena = g_ptr_array_new_with_free_func (g_free);
  build_fixture (nodes);
}

static void
fixture_end (void)
{
  g_clear_pointer (&arena, g_ptr_array_unref);
}

/* -------------------------------------------------- field comparison */

static void
assert_io_equal (const ChakraProtoMsg__IOInfo *want, const ChakraProtoMsg__IOInfo *got)
{
  ck_assert_int_eq (want == NULL, got == NULL);
  if (want == NULL)
    return;
  ck_assert_str_eq (want->values, got->values);
  ck_assert_str_eq (want->shapes, got->shapes);
  ck_assert_str_eq (want->types, got->types);
}

static void
assert_attr_equal (const ChakraProtoMsg__AttributeProto *w,
                   const ChakraProtoMsg__AttributeProto *g)
{
  ck_assert_str_eq (w->name, g->name);
  ck_assert_str_eq (w->doc_string, g->doc_string);
  ck_assert_int_eq (w->value_case, g->value_case);
  switch (w->value_case)
    {
    case VC (INT32_VAL): ck_assert_int_eq (w->int32_val, g->int32_val); break;
    case VC (INT64_VAL): ck_assert_int_eq (w->int64_val, g->int64_val); break;
    case VC (UINT32_VAL): ck_assert_uint_eq (w->uint32_val, g->uint32_val); break;
    case VC (UINT64_VAL): ck_assert_uint_eq (w->uint64_val, g->uint64_val); break;
    case VC (SINT32_VAL): ck_assert_int_eq (w->sint32_val, g->sint32_val); break;
    case VC (SINT64_VAL): ck_assert_int_eq (w->sint64_val, g->sint64_val); break;
    case VC (FIXED32_VAL): ck_assert_uint_eq (w->fixed32_val, g->fixed32_val); break;
    case VC (FIXED64_VAL): ck_assert_uint_eq (w->fixed64_val, g->fixed64_val); break;
    case VC (SFIXED32_VAL): ck_assert_int_eq (w->sfixed32_val, g->sfixed32_val); break;
    case VC (SFIXED64_VAL): ck_assert_int_eq (w->sfixed64_val, g->sfixed64_val); break;
    case VC (BOOL_VAL): ck_assert_int_eq (w->bool_val, g->bool_val); break;
    case VC (DOUBLE_VAL): ck_assert_double_eq (w->double_val, g->double_val); break;
    case VC (STRING_VAL): ck_assert_str_eq (w->string_val, g->string_val); break;
    case VC (BOOL_LIST):
      ck_assert_uint_eq (w->bool_list->n_values, g->bool_list->n_values);
      for (size_t i = 0; i < w->bool_list->n_values; i++)
        ck_assert_int_eq (w->bool_list->values[i], g->bool_list->values[i]);
      break;
    case VC (INT32_LIST):
      ck_assert_uint_eq (w->int32_list->n_values, g->int32_list->n_values);
      for (size_t i = 0; i < w->int32_list->n_values; i++)
        ck_assert_int_eq (w->int32_list->values[i], g->int32_list->values[i]);
      break;
    default:
      ck_abort_msg ("fixture uses an attribute kind (%d) the test cannot compare",
                    w->value_case);
    }
}

static void
assert_node_equal (const ChakraProtoMsg__Node *w, const ChakraProtoMsg__Node *g)
{
  ck_assert_uint_eq (w->id, g->id);
  ck_assert_str_eq (w->name, g->name);
  ck_assert_int_eq (w->type, g->type);
  ck_assert_uint_eq (w->n_ctrl_deps, g->n_ctrl_deps);
  for (size_t i = 0; i < w->n_ctrl_deps; i++)
    ck_assert_uint_eq (w->ctrl_deps[i], g->ctrl_deps[i]);
  ck_assert_uint_eq (w->n_data_deps, g->n_data_deps);
  for (size_t i = 0; i < w->n_data_deps; i++)
    ck_assert_uint_eq (w->data_deps[i], g->data_deps[i]);
  ck_assert_uint_eq (w->start_time_micros, g->start_time_micros);
  ck_assert_uint_eq (w->duration_micros, g->duration_micros);
  assert_io_equal (w->inputs, g->inputs);
  assert_io_equal (w->outputs, g->outputs);
  ck_assert_uint_eq (w->n_attr, g->n_attr);
  for (size_t i = 0; i < w->n_attr; i++)
    assert_attr_equal (w->attr[i], g->attr[i]);
}

static void
write_nodes (const char *path, ChakraProtoMsg__Node **nodes, size_t count)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  for (size_t i = 0; i < count; i++)
    ck_assert (wl_chakra_writer_add (w, nodes[i], &error));
  ck_assert (wl_chakra_writer_close (w, &error));
}

/* Read PATH back and compare every node with WANT. */
static void
assert_file_holds (const char *path, ChakraProtoMsg__Node **want, size_t count)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  ck_assert_str_eq (wl_chakra_reader_version (r), "0.0.4");
  ck_assert (!wl_chakra_reader_is_headerless (r));
  for (size_t i = 0; i < count; i++)
    {
      g_autoptr (ChakraProtoMsg__Node) got = wl_chakra_reader_next (r, &error);
      ck_assert_msg (got != NULL, "node %zu: %s", i, error ? error->message : "end");
      assert_node_equal (want[i], got);
    }
  ck_assert_ptr_null (wl_chakra_reader_next (r, &error));
  ck_assert_ptr_null (error);
}

/* ------------------------------------------------- real shared traces */

static void
collect_traces (const char *dir, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          collect_traces (path, out);
          g_free (path);
        }
      else if (g_str_has_suffix (name, ".et") || g_str_has_suffix (name, ".et.gz"))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
}

/* The microbenchmarks hold one collective of 1 MiB per rank (FORMAT.md),
 * whose kind is the name of the directory two levels up. */
static void
check_microbenchmark (const char *path, const ChakraProtoMsg__Node *n)
{
  static const struct { const char *dir; int type; } kinds[] = {
    { "/all_reduce/", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE },
    { "/all_gather/", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER },
    { "/reduce_scatter/", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__REDUCE_SCATTER },
    { "/all_to_all/", CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_TO_ALL },
  };
  g_autoptr (GError) error = NULL;
  gint64 comm_type = -1;
  guint64 size = 0;
  ck_assert_int_eq (n->type, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
  ck_assert (wl_chakra_attr_uint (n, "comm_size", &size, &error));
  ck_assert_uint_eq (size, MIB);
  ck_assert (wl_chakra_attr_int (n, "comm_type", &comm_type, &error));
  for (size_t i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strstr (path, kinds[i].dir) != NULL)
      ck_assert_int_eq (comm_type, kinds[i].type);
}

/* Copy PATH node by node into COPY; returns the node count. */
static guint
copy_trace (const char *path, const char *copy)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  g_autoptr (WlChakraWriter) w =
    wl_chakra_writer_open_metadata (copy, wl_chakra_reader_metadata (r), &error);
  ck_assert_msg (w != NULL, "%s", error ? error->message : "");
  guint count = 0;
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    {
      ck_assert (wl_chakra_writer_add (w, n, &error));
      if (strstr (path, "/microbenchmarks/") != NULL)
        check_microbenchmark (path, n);
      wl_chakra_node_free (n);
      count++;
    }
  ck_assert_msg (error == NULL, "%s", error ? error->message : "");
  ck_assert (wl_chakra_writer_close (w, &error));
  return count;
}

START_TEST (test_shared_traces_round_trip)
{
  const char *shared = g_getenv ("SHARED") != NULL ? g_getenv ("SHARED") : "../shared";
  g_autofree char *dir = g_build_filename (shared, "traces", NULL);
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      printf ("skipped: %s not found\n", dir);
      return;
    }
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  collect_traces (dir, paths);
  g_autofree char *copy = tmp_path ("copy.et");
  guint nodes = 0;
  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      nodes += copy_trace (path, copy);
      g_autoptr (GByteArray) want = file_bytes (path);
      g_autoptr (GByteArray) got = file_bytes (copy);
      ck_assert_msg (want->len == got->len && memcmp (want->data, got->data, want->len) == 0,
                     "%s: copy differs (%u vs %u bytes)", path, want->len, got->len);
    }
  printf ("round-tripped %u traces (%u nodes) from %s byte for byte\n", paths->len, nodes, dir);
  ck_assert_uint_gt (paths->len, 0);
}
END_TEST

/* ------------------------------------------------- hand-made fixtures */

START_TEST (test_fixture_round_trip)
{
  ChakraProtoMsg__Node *nodes[NUM_FIXTURE_NODES];
  fixture_begin (nodes);
  g_autofree char *path = tmp_path ("fixture.et");
  write_nodes (path, nodes, NUM_FIXTURE_NODES);
  assert_file_holds (path, nodes, NUM_FIXTURE_NODES);

  g_autoptr (GByteArray) bytes = file_bytes (path);
  /* Frame 0: length 7, field 1 (0x0a) "0.0.4". */
  static const guint8 header[] = { 0x07, 0x0a, 0x05, '0', '.', '0', '.', '4' };
  ck_assert_mem_eq (bytes->data, header, sizeof header);
  /* Attr (field 10 = 0x52), 13 bytes: name "comm_type", then int64_val
   * (field 9 varint = 0x48) 0: a oneof member is written even when zero. */
  static const guint8 all_reduce[] = { 0x52, 0x0d, 0x0a, 0x09, 'c', 'o', 'm', 'm', '_', 't',
                                       'y', 'p', 'e', 0x48, 0x00 };
  ck_assert (bytes_contain (bytes, all_reduce, sizeof all_reduce));
  /* is_cpu_op as bool_val (field 27 varint = d8 01) false. */
  static const guint8 cpu_false[] = { 0x52, 0x0e, 0x0a, 0x09, 'i', 's', '_', 'c', 'p', 'u',
                                      '_', 'o', 'p', 0xd8, 0x01, 0x00 };
  ck_assert (bytes_contain (bytes, cpu_false, sizeof cpu_false));
  fixture_end ();
}
END_TEST

START_TEST (test_fixture_gzip_round_trip)
{
  ChakraProtoMsg__Node *nodes[NUM_FIXTURE_NODES];
  fixture_begin (nodes);
  g_autofree char *plain = tmp_path ("fixture.et");
  g_autofree char *gz = tmp_path ("fixture.et.gz");
  write_nodes (plain, nodes, NUM_FIXTURE_NODES);
  write_nodes (gz, nodes, NUM_FIXTURE_NODES);
  assert_file_holds (gz, nodes, NUM_FIXTURE_NODES);

  g_autofree char *raw = NULL;
  gsize raw_len = 0;
  ck_assert (g_file_get_contents (gz, &raw, &raw_len, NULL));
  ck_assert_uint_ge (raw_len, 2);
  ck_assert_uint_eq ((guint8) raw[0], 0x1f);
  ck_assert_uint_eq ((guint8) raw[1], 0x8b);
  g_autoptr (GByteArray) a = file_bytes (plain);
  g_autoptr (GByteArray) b = file_bytes (gz);
  ck_assert_uint_eq (a->len, b->len);
  ck_assert_mem_eq (a->data, b->data, a->len);
  fixture_end ();
}
END_TEST

/* Many nodes: a quadratic reader or writer would not finish in time. */
START_TEST (test_many_nodes)
{
  enum { COUNT = 200000 };
  g_autofree char *path = tmp_path ("many.et.gz");
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", &error);
  ck_assert_ptr_nonnull (w);
  ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
  uint64_t dep = 0;
  n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
  for (guint64 i = 0; i < COUNT; i++)
    {
      n.id = i;
      n.duration_micros = i % 7;
      n.n_data_deps = i > 0;
      dep = i - 1;
      n.data_deps = &dep;
      ck_assert (wl_chakra_writer_add (w, &n, &error));
    }
  ck_assert (wl_chakra_writer_close (w, &error));
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  ck_assert_ptr_nonnull (r);
  guint64 seen = 0;
  ChakraProtoMsg__Node *got;
  while ((got = wl_chakra_reader_next (r, &error)) != NULL)
    {
      ck_assert_uint_eq (got->id, seen);
      ck_assert_uint_eq (got->duration_micros, seen % 7);
      ck_assert_uint_eq (got->n_data_deps, seen > 0);
      wl_chakra_node_free (got);
      seen++;
    }
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (seen, COUNT);
}
END_TEST

/* -------------------------------------------------- attribute helpers */

START_TEST (test_attr_integer_kinds)
{
  ChakraProtoMsg__Node *nodes[NUM_FIXTURE_NODES];
  fixture_begin (nodes);
  g_autoptr (GError) error = NULL;
  gint64 i = 0;
  guint64 u = 0;
  gboolean b = FALSE;
  ck_assert (wl_chakra_attr_bool (nodes[3], "is_cpu_op", &b, &error) && b); /* int32 1 */
  ck_assert (wl_chakra_attr_bool (nodes[4], "is_cpu_op", &b, &error) && b); /* bool */
  ck_assert (wl_chakra_attr_bool (nodes[5], "is_cpu_op", &b, &error) && !b);
  ck_assert (wl_chakra_attr_uint (nodes[5], "comm_size", &u, &error) && u == 3 * MIB);
  ck_assert (wl_chakra_attr_int (nodes[6], "comm_size", &i, &error) && i == 5 * MIB);
  ck_assert (wl_chakra_attr_int (nodes[7], "comm_size", &i, &error) && i == MIB);
  ck_assert (wl_chakra_attr_uint (nodes[8], "comm_size", &u, &error) && u == 2 * MIB);
  ck_assert (wl_chakra_attr_int (nodes[7], "comm_type", &i, &error) && i == 0);
  ck_assert (wl_chakra_attr_int (nodes[3], "num_ops", &i, &error) && i == 1LL << 40);
  ChakraProtoMsg__Node *k = nodes[10];
  ck_assert (wl_chakra_attr_int (k, "k_uint32", &i, &error) && i == 4000000000LL);
  ck_assert (wl_chakra_attr_int (k, "k_sint32", &i, &error) && i == -5);
  ck_assert (wl_chakra_attr_int (k, "k_sint64", &i, &error) && i == -6);
  ck_assert (wl_chakra_attr_int (k, "k_fixed32", &i, &error) && i == 8);
  ck_assert (wl_chakra_attr_int (k, "k_sfixed32", &i, &error) && i == -8);
  ck_assert (wl_chakra_attr_int (k, "k_sfixed64", &i, &error) && i == -9);
  ck_assert (wl_chakra_attr_bool (k, "k_neg", &b, &error) && b);
  ck_assert (wl_chakra_attr_uint (k, "k_big", &u, &error) && u == BIG_U64);
  ck_assert_ptr_null (error);
  fixture_end ();
}
END_TEST

START_TEST (test_attr_string_and_lists)
{
  ChakraProtoMsg__Node *nodes[NUM_FIXTURE_NODES];
  fixture_begin (nodes);
  g_autoptr (GError) error = NULL;
  const char *s = NULL;
  ck_assert (wl_chakra_attr_string (nodes[7], "pg_name", &s, &error));
  ck_assert_str_eq (s, "0.0");
  g_autoptr (GArray) dims = NULL;
  ck_assert (wl_chakra_attr_bool_list (nodes[7], "involved_dim", &dims, &error));
  ck_assert_uint_eq (dims->len, 3);
  ck_assert (g_array_index (dims, gboolean, 0) && !g_array_index (dims, gboolean, 1)
             && g_array_index (dims, gboolean, 2));
  g_autoptr (GArray) int_dims = NULL; /* int32_list {3, 0, -1} */
  ck_assert (wl_chakra_attr_bool_list (nodes[8], "involved_dim", &int_dims, &error));
  ck_assert_uint_eq (int_dims->len, 3);
  ck_assert (g_array_index (int_dims, gboolean, 0) && !g_array_index (int_dims, gboolean, 1)
             && g_array_index (int_dims, gboolean, 2));
  ck_assert_ptr_null (error);
  ck_assert_ptr_eq (wl_chakra_attr_find (nodes[7], "pg_name"), nodes[7]->attr[2]);
  ck_assert_ptr_null (wl_chakra_attr_find (nodes[7], "nope"));
  fixture_end ();
}
END_TEST

START_TEST (test_attr_absent_and_wrong_kind)
{
  ChakraProtoMsg__Node *nodes[NUM_FIXTURE_NODES];
  fixture_begin (nodes);
  g_autoptr (GError) error = NULL;
  gint64 i = 77;
  guint64 u = 0;
  const char *s = NULL;
  g_autoptr (GArray) list = NULL;
  /* Absent: FALSE, no error, output untouched (it keeps the default). */
  ck_assert (!wl_chakra_attr_int (nodes[9], "comm_size", &i, &error));
  ck_assert_ptr_null (error);
  ck_assert_int_eq (i, 77);
  ck_assert (!wl_chakra_attr_bool_list (nodes[9], "involved_dim", &list, &error));
  ck_assert_ptr_null (error);
  ck_assert_ptr_null (list);
  /* A string where an integer is expected. */
  ck_assert (!wl_chakra_attr_int (nodes[7], "pg_name", &i, &error));
  assert_error (error, "pg_name");
  assert_error (error, "node 17");
  assert_error (error, "string_val");
  g_clear_error (&error);
  ck_assert (!wl_chakra_attr_string (nodes[7], "comm_size", &s, &error));
  assert_error (error, "comm_size");
  g_clear_error (&error);
  ck_assert (!wl_chakra_attr_int (nodes[10], "k_double", &i, &error));
  assert_error (error, "k_double");
  g_clear_error (&error);
  ck_assert (!wl_chakra_attr_bool_list (nodes[7], "pg_name", &list, &error));
  assert_error (error, "pg_name");
  g_clear_error (&error);
  /* Out of range for the requested signedness. */
  ck_assert (!wl_chakra_attr_int (nodes[10], "k_big", &i, &error));
  assert_error (error, "k_big");
  assert_error (error, "node 20");
  g_clear_error (&error);
  ck_assert (!wl_chakra_attr_uint (nodes[10], "k_neg", &u, &error));
  assert_error (error, "k_neg");
  ck_assert_int_eq (i, 77);
  fixture_end ();
}
END_TEST

START_TEST (test_names)
{
  ck_assert_str_eq (wl_chakra_node_type_name (0), "INVALID_NODE");
  ck_assert_str_eq (wl_chakra_node_type_name (4), "COMP_NODE");
  ck_assert_str_eq (wl_chakra_node_type_name (7), "COMM_COLL_NODE");
  ck_assert_ptr_null (wl_chakra_node_type_name (9));
  ck_assert_ptr_null (wl_chakra_node_type_name (-1));
  ck_assert_str_eq (wl_chakra_comm_type_name (0), "ALL_REDUCE");
  ck_assert_str_eq (wl_chakra_comm_type_name (7), "REDUCE_SCATTER");
  ck_assert_str_eq (wl_chakra_comm_type_name (9), "BARRIER");
  ck_assert_ptr_null (wl_chakra_comm_type_name (10));
}
END_TEST

/* ------------------------------------------------------- bad input */

/* Open PATH with FLAGS and expect an error mentioning every NEEDLE. */
static void
assert_open_fails (const char *path, WlChakraReadFlags flags, const char *needle,
                   const char *needle2)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open_full (path, flags, &error);
  ck_assert_ptr_null (r);
  assert_error (error, needle);
  if (needle2 != NULL)
    assert_error (error, needle2);
}

/* Read nodes from PATH until an error; expect OK_NODES good nodes first and
 * an error mentioning NEEDLE and NEEDLE2, repeated by the next call. */
static void
assert_next_fails (const char *path, guint ok_nodes, const char *needle, const char *needle2)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < ok_nodes; i++)
    {
      ChakraProtoMsg__Node *n = wl_chakra_reader_next (r, &error);
      ck_assert_msg (n != NULL, "node %u: %s", i, error ? error->message : "end");
      wl_chakra_node_free (n);
    }
  ck_assert_ptr_null (wl_chakra_reader_next (r, &error));
  assert_error (error, needle);
  assert_error (error, needle2);
  assert_error (error, path);
  g_clear_error (&error);
  ck_assert_ptr_null (wl_chakra_reader_next (r, &error));
  assert_error (error, needle);
}

START_TEST (test_bad_empty_and_missing)
{
  g_autofree char *empty = tmp_path ("empty.et");
  write_bytes (empty, "", 0);
  assert_open_fails (empty, WL_CHAKRA_READ_DEFAULT, "empty trace", empty);
  assert_open_fails (empty, WL_CHAKRA_ALLOW_HEADERLESS, "empty trace", empty);
  g_autofree char *missing = tmp_path ("no/such/trace.et");
  assert_open_fails (missing, WL_CHAKRA_READ_DEFAULT, missing, NULL);
}
END_TEST

/* Two nodes written the pre-2024 way: no GlobalMetadata frame. */
static void
write_headerless (const char *path, guint64 first_id)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
  n.id = first_id;
  n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
  append_frame (bytes, &n.base);
  n.id = first_id + 1;
  n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
  append_frame (bytes, &n.base);
  write_bytes (path, bytes->data, bytes->len);
}

START_TEST (test_bad_headerless)
{
  g_autofree char *path = tmp_path ("old.et");
  /* First ids 5 (id is a varint field 1) and 0 (no id field: only the type). */
  for (guint64 first = 0; first <= 5; first += 5)
    {
      write_headerless (path, first);
      assert_open_fails (path, WL_CHAKRA_READ_DEFAULT, "headerless", path);
      g_autoptr (GError) error = NULL;
      g_autoptr (WlChakraReader) r =
        wl_chakra_reader_open_full (path, WL_CHAKRA_ALLOW_HEADERLESS, &error);
      ck_assert_msg (r != NULL, "%s", error ? error->message : "");
      ck_assert (wl_chakra_reader_is_headerless (r));
      ck_assert_ptr_null (wl_chakra_reader_version (r));
      ck_assert_ptr_null (wl_chakra_reader_metadata (r));
      for (guint64 i = 0; i < 2; i++)
        {
          g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, &error);
          ck_assert_ptr_nonnull (n);
          ck_assert_uint_eq (n->id, first + i);
        }
      ck_assert_ptr_null (wl_chakra_reader_next (r, &error));
      ck_assert_ptr_null (error);
    }
}
END_TEST

START_TEST (test_bad_truncated_frame)
{
  ChakraProtoMsg__Node *nodes[NUM_FIXTURE_NODES];
  fixture_begin (nodes);
  g_autofree char *full = tmp_path ("full.et");
  g_autofree char *head = tmp_path ("head.et");
  g_autofree char *cut = tmp_path ("cut.et");
  write_nodes (full, nodes, 3);
  write_nodes (head, nodes, 2); /* its size is the offset of frame 3 */
  g_autoptr (GByteArray) bytes = file_bytes (full);
  g_autoptr (GByteArray) prefix = file_bytes (head);
  write_bytes (cut, bytes->data, bytes->len - 3);
  g_autofree char *where = g_strdup_printf ("frame 3 at byte offset %u", prefix->len);
  assert_next_fails (cut, 2, where, "past end of file");
  fixture_end ();
}
END_TEST

START_TEST (test_bad_varints)
{
  static const guint8 meta[] = { 0x07, 0x0a, 0x05, '0', '.', '0', '.', '4' };
  g_autofree char *path = tmp_path ("varint.et");
  /* A length varint whose continuation bit never clears. */
  g_autoptr (GByteArray) endless = g_byte_array_new ();
  g_byte_array_append (endless, meta, sizeof meta);
  for (int i = 0; i < 12; i++)
    g_byte_array_append (endless, (const guint8 *) "\xff", 1);
  write_bytes (path, endless->data, endless->len);
  assert_next_fails (path, 0, "frame 1 at byte offset 8", "longer than 10 bytes");
  /* The file ends inside a length varint. */
  g_autoptr (GByteArray) cut = g_byte_array_new ();
  g_byte_array_append (cut, meta, sizeof meta);
  g_byte_array_append (cut, (const guint8 *) "\x80\x80", 2);
  write_bytes (path, cut->data, cut->len);
  assert_next_fails (path, 0, "frame 1 at byte offset 8", "truncated length varint");
  /* A frame whose bytes are not a Node: field 1 varint cut short. */
  g_autoptr (GByteArray) junk = g_byte_array_new ();
  g_byte_array_append (junk, meta, sizeof meta);
  g_byte_array_append (junk, (const guint8 *) "\x02\x08\x80", 3);
  write_bytes (path, junk->data, junk->len);
  assert_next_fails (path, 0, "frame 1 at byte offset 8", "do not unpack as a Node");
}
END_TEST

START_TEST (test_bad_garbage)
{
  g_autofree char *path = tmp_path ("garbage.et");
  const char *text = "this is not a Chakra trace at all\n";
  write_bytes (path, text, strlen (text));
  assert_open_fails (path, WL_CHAKRA_READ_DEFAULT, "frame 0 at byte offset 0", "past end");
  /* Framed correctly, but neither GlobalMetadata nor Node (wire type 7). */
  write_bytes (path, "\x03\xff\xff\xff", 4);
  assert_open_fails (path, WL_CHAKRA_ALLOW_HEADERLESS, "not a Chakra trace", path);
  /* The gzip magic followed by junk (a gzip file cut short is
   * test_gzip_cut's). */
  write_bytes (path, "\x1f\x8b\x08\x00junkjunkjunkjunk", 20);
  assert_open_fails (path, WL_CHAKRA_READ_DEFAULT, "bad gzip data", path);
}
END_TEST

/* A trace of 6 COMP nodes with ids 1 .. 6 (plain frames in PLAIN, and
 * where each frame ends in END[0 .. 6], frame 0 being the metadata), and
 * the same bytes as gzip with stored (uncompressed) deflate blocks, so that
 * a cut at byte c of the .gz file leaves exactly c - GZ_HEAD decompressed
 * bytes: the 10-byte gzip header and the 5-byte header of the one stored
 * block come first (checked), the 8-byte trailer last. */
#define GZ_HEAD 15
#define CUT_NODES 6

static GByteArray *
stored_gzip (const char *plain_path, const char *gz_path, gsize *end)
{
  GByteArray *plain = g_byte_array_new ();
  ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
  meta.version = (char *) "0.0.4";
  append_frame (plain, &meta.base);
  end[0] = plain->len;
  for (guint i = 0; i < CUT_NODES; i++)
    {
      ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
      n.id = i + 1;
      n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
      n.duration_micros = 10 + i;
      append_frame (plain, &n.base);
      end[i + 1] = plain->len;
    }
  write_bytes (plain_path, plain->data, plain->len);
  gzFile gz = gzopen (gz_path, "wb0");
  ck_assert_ptr_nonnull (gz);
  ck_assert_int_eq (gzwrite (gz, plain->data, plain->len), (int) plain->len);
  ck_assert_int_eq (gzclose (gz), Z_OK);
  g_autofree char *raw = NULL;
  gsize len = 0;
  ck_assert (g_file_get_contents (gz_path, &raw, &len, NULL));
  ck_assert_uint_eq (len, GZ_HEAD + plain->len + 8);
  ck_assert (memcmp (raw + GZ_HEAD, plain->data, plain->len) == 0);
  GByteArray *gzb = g_byte_array_new ();
  g_byte_array_append (gzb, (const guint8 *) raw, (guint) len);
  g_byte_array_unref (plain);
  return gzb;
}

/* Read PATH: K nodes (ids 1 .. K), then an error that is a truncation
 * (wl_chakra_reader_truncated) mentioning NEEDLE, "truncated gzip data" and
 * the path; strict graph loading refuses it with that message, lenient
 * loading keeps the K nodes and counts one truncated frame. */
static void
assert_cut_after (const char *path, guint k, const char *needle)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < k; i++)
    {
      g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, &error);
      ck_assert_msg (n != NULL, "node %u: %s", i, error ? error->message : "end");
      ck_assert_uint_eq (n->id, i + 1);
    }
  ck_assert_ptr_null (wl_chakra_reader_next (r, &error));
  assert_error (error, needle);
  assert_error (error, "truncated gzip data");
  assert_error (error, path);
  ck_assert (wl_chakra_reader_truncated (r));
  g_clear_error (&error);
  ck_assert_ptr_null (wl_graph_load (path, &error));
  assert_error (error, "truncated gzip data");
  assert_error (error, path);
  g_clear_error (&error);
  g_autoptr (WlGraph) g = wl_graph_load_full (path, TRUE, &error);
  ck_assert_msg (g != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (g->n_nodes, k);
  ck_assert_uint_eq (g->dropped.truncated_frames, 1);
  ck_assert_uint_eq (wl_lenient_stats_total (&g->dropped), 1);
}

/* A gzip file cut short is a truncated trace, as a plain one cut short is:
 * cut inside the gzip header or inside frame 0, nothing can be read
 * (strict or lenient); cut inside a later frame, exactly after one, or
 * inside the gzip trailer, the complete frames before the cut are read and
 * the rest is a truncation error naming the file. */
START_TEST (test_gzip_cut)
{
  g_autofree char *plain = tmp_path ("six.et");
  g_autofree char *gz = tmp_path ("six.et.gz");
  g_autofree char *cut = tmp_path ("cut.et");
  gsize end[CUT_NODES + 1];
  g_autoptr (GByteArray) bytes = stored_gzip (plain, gz, end);
  /* Uncut, all six nodes; the plain file reads alike. */
  g_autoptr (GError) error = NULL;
  g_autoptr (WlGraph) whole = wl_graph_load (gz, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (whole->n_nodes, CUT_NODES);

  /* Inside the gzip header, and inside frame 0. */
  gsize early[] = { 5, GZ_HEAD + end[0] - 2 };
  for (guint i = 0; i < G_N_ELEMENTS (early); i++)
    {
      write_bytes (cut, bytes->data, early[i]);
      assert_open_fails (cut, WL_CHAKRA_READ_DEFAULT, "truncated gzip data", cut);
      assert_open_fails (cut, WL_CHAKRA_ALLOW_HEADERLESS | WL_CHAKRA_ALLOW_EMPTY,
                         "truncated gzip data", cut);
      ck_assert_ptr_null (wl_graph_load_full (cut, TRUE, &error));
      assert_error (error, "truncated gzip data");
      g_clear_error (&error);
    }
  /* Inside frame 3 (after node 2): its length runs past the data left. */
  write_bytes (cut, bytes->data, GZ_HEAD + end[2] + 3);
  g_autofree char *where = g_strdup_printf ("frame 3 at byte offset %" G_GSIZE_FORMAT
                                            " (decompressed)", end[2]);
  assert_cut_after (cut, 2, where);
  assert_cut_after (cut, 2, "past end of file (2 bytes left)");
  /* Exactly after frame 4 (node 4), and inside the trailer (every frame
   * there, the end of the gzip stream missing). */
  write_bytes (cut, bytes->data, GZ_HEAD + end[4]);
  g_free (where);
  where = g_strdup_printf ("frame 5 at byte offset %" G_GSIZE_FORMAT " (decompressed)", end[4]);
  assert_cut_after (cut, 4, where);
  write_bytes (cut, bytes->data, bytes->len - 4);
  assert_cut_after (cut, CUT_NODES, "cut short");
}
END_TEST

/* The paths a test holds while a feeding child runs, kept reachable from
 * here: the child ends in _exit, and where the optimiser keeps the test's
 * pointers in registers only, valgrind's memcheck (make check) counted
 * them lost in the child. */
char *feed_paths[3]; /* not static: stores to it must stay */

/* Write BYTES into a new named pipe at PATH from a child process, for a
 * reader to open; returns the child's pid. */
static pid_t
pipe_feed (const char *path, const GByteArray *bytes)
{
  ck_assert_int_eq (mkfifo (path, 0600), 0);
  pid_t pid = fork ();
  ck_assert_int_ge (pid, 0);
  if (pid == 0)
    {
      FILE *f = fopen (path, "wb");
      gboolean ok = f != NULL && fwrite (bytes->data, 1, bytes->len, f) == bytes->len;
      ok = f != NULL && fclose (f) == 0 && ok;
      _exit (ok ? 0 : 1);
    }
  return pid;
}

static void
pipe_done (const char *path, pid_t pid)
{
  int status = 0;
  ck_assert_int_eq (waitpid (pid, &status, 0), pid);
  ck_assert (WIFEXITED (status));
  g_unlink (path);
}

/* A trace read from a pipe (no size to check lengths against): plain and
 * gzip, whole, and cut inside a frame (then the nodes before it). */
START_TEST (test_pipe)
{
  g_autofree char *plain = tmp_path ("six.et");
  g_autofree char *gz = tmp_path ("six.et.gz");
  g_autofree char *fifo = tmp_path ("fifo.et");
  feed_paths[0] = plain;
  feed_paths[1] = gz;
  feed_paths[2] = fifo;
  gsize end[CUT_NODES + 1];
  g_autoptr (GByteArray) gzb = stored_gzip (plain, gz, end);
  g_autoptr (GByteArray) pb = file_bytes (plain);
  const GByteArray *inputs[] = { pb, gzb };
  for (guint i = 0; i < G_N_ELEMENTS (inputs); i++)
    {
      pid_t pid = pipe_feed (fifo, inputs[i]);
      g_autoptr (GError) error = NULL;
      g_autoptr (WlGraph) g = wl_graph_load (fifo, &error);
      g_assert_no_error (error);
      ck_assert_uint_eq (g->n_nodes, CUT_NODES);
      pipe_done (fifo, pid);
    }
  g_autoptr (GByteArray) cut = g_byte_array_new ();
  g_byte_array_append (cut, pb->data, (guint) end[3] + 2);
  pid_t pid = pipe_feed (fifo, cut);
  g_autofree char *what = g_strdup_printf ("frame 4 at byte offset %" G_GSIZE_FORMAT, end[3]);
  assert_next_fails (fifo, 3, what, "past end of file (1 bytes left): truncated file?");
  pipe_done (fifo, pid);
}
END_TEST

/* A frame that announces more bytes than the file holds, 2^62 in a file of
 * a few dozen bytes, is a truncation error at once, plain or gzip: the
 * length is never allocated (that would fail and say "out of memory"). */
START_TEST (test_huge_frame_length)
{
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
  meta.version = (char *) "0.0.4";
  append_frame (bytes, &meta.base);
  gsize offset = bytes->len;
  /* varint (2^62): 9 bytes, then 3 bytes of the promised frame. */
  static const guint8 huge[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,
                                 0x08, 0x01, 0x20 };
  g_byte_array_append (bytes, huge, sizeof huge);
  g_autofree char *plain = tmp_path ("huge.et");
  write_bytes (plain, bytes->data, bytes->len);
  g_autofree char *where = g_strdup_printf ("frame 1 at byte offset %" G_GSIZE_FORMAT, offset);
  assert_next_fails (plain, 0, where, "frame length 4611686018427387904 runs past end of file "
                                      "(3 bytes left): truncated file?");
  g_autofree char *gz = tmp_path ("huge.et.gz");
  gzFile out = gzopen (gz, "wb");
  ck_assert_int_eq (gzwrite (out, bytes->data, bytes->len), (int) bytes->len);
  ck_assert_int_eq (gzclose (out), Z_OK);
  assert_next_fails (gz, 0, "(decompressed)", "frame length 4611686018427387904 runs past end "
                                              "of file (3 bytes left): truncated file?");
  /* A zero-length frame first (an empty Node: id 0), before any buffer was
   * needed. */
  g_byte_array_set_size (bytes, offset);
  g_byte_array_append (bytes, (const guint8 *) "\0", 1);
  out = gzopen (gz, "wb");
  ck_assert_int_eq (gzwrite (out, bytes->data, bytes->len), (int) bytes->len);
  ck_assert_int_eq (gzclose (out), Z_OK);
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (gz, &error);
  g_assert_no_error (error);
  g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, &error);
  g_assert_no_error (error);
  ck_assert_ptr_nonnull (n);
  ck_assert_uint_eq (n->id, 0);
  ck_assert_ptr_null (wl_chakra_reader_next (r, &error));
  g_assert_no_error (error);
}
END_TEST

START_TEST (test_bad_writer_paths)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *nowhere = tmp_path ("no/such/dir/out.et");
  ck_assert_ptr_null (wl_chakra_writer_open (nowhere, "0.0.4", &error));
  assert_error (error, nowhere);
  g_clear_error (&error);
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    return;
  /* Writes to /dev/full fail with ENOSPC, at the latest when flushing. */
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open ("/dev/full", "0.0.4", &error);
  ck_assert_ptr_nonnull (w);
  ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
  gboolean ok = wl_chakra_writer_add (w, &n, &error);
  ok = ok && wl_chakra_writer_close (w, &error);
  ck_assert (!ok);
  assert_error (error, "/dev/full");
  assert_error (error, g_strerror (ENOSPC));
}
END_TEST


/* ------------------------------------------------------ iteration facts */

/* The facts a generator writes into frame 0 come back from the reader and
 * from graph loading: model_flops as an integer while it is one, as a
 * double past 2^64. */
START_TEST (test_metadata_facts)
{
  const double flops[] = { 1e15, 1.5e21 };
  for (guint i = 0; i < G_N_ELEMENTS (flops); i++)
    {
      g_autofree char *path = tmp_path ("facts.et");
      g_autoptr (GError) error = NULL;
      WlTraceFacts want = { .model_flops = flops[i], .tokens_per_iteration = 4194304,
                            .flops_formula = g_intern_string ("6N+attention"),
                            .peak_memory_B = G_GUINT64_CONSTANT (85899345920) };
      g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_full (path, "0.0.4", &want, &error);
      ck_assert_ptr_nonnull (w);
      ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
      n.id = 1;
      n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
      n.duration_micros = 3;
      ck_assert (wl_chakra_writer_add (w, &n, &error));
      ck_assert (wl_chakra_writer_close (w, &error));

      g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
      ck_assert_ptr_nonnull (r);
      ck_assert_str_eq (wl_chakra_reader_version (r), "0.0.4");
      const ChakraProtoMsg__GlobalMetadata *meta = wl_chakra_reader_metadata (r);
      ck_assert_uint_eq (meta->n_attr, 4);
      ck_assert_int_eq (meta->attr[1]->value_case,
                        i == 0 ? CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL
                               : CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL);
      WlTraceFacts got;
      ck_assert (wl_chakra_metadata_facts (meta, &got, &error));
      ck_assert (got.model_flops == flops[i]);
      ck_assert_uint_eq (got.tokens_per_iteration, 4194304);
      ck_assert_str_eq (got.flops_formula, want.flops_formula);
      ck_assert_uint_eq (got.peak_memory_B, G_GUINT64_CONSTANT (85899345920));
      /* One copy per text: a second read gives the same pointer. */
      WlTraceFacts again;
      ck_assert (wl_chakra_metadata_facts (meta, &again, &error));
      ck_assert_ptr_eq (again.flops_formula, got.flops_formula);

      g_autoptr (WlGraph) g = wl_graph_load (path, &error);
      ck_assert_ptr_nonnull (g);
      ck_assert (g->facts.model_flops == flops[i]);
      ck_assert_uint_eq (g->facts.tokens_per_iteration, 4194304);
      ck_assert_str_eq (g->facts.flops_formula, "6N+attention");
      ck_assert_uint_eq (g->facts.peak_memory_B, G_GUINT64_CONSTANT (85899345920));
    }
}
END_TEST

/* No facts: none written, none read; a fact of the wrong kind or sign is an
 * input error naming it. */
START_TEST (test_metadata_facts_absent_and_bad)
{
  g_autofree char *path = tmp_path ("plain.et");
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_full (path, "0.0.4", NULL, &error);
  ck_assert (wl_chakra_writer_close (w, &error));
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  ck_assert_uint_eq (wl_chakra_reader_metadata (r)->n_attr, 0);
  WlTraceFacts got = { .model_flops = 1.0 };
  ck_assert (wl_chakra_metadata_facts (wl_chakra_reader_metadata (r), &got, &error));
  ck_assert (got.model_flops == 0.0 && got.tokens_per_iteration == 0 && got.flops_formula == NULL
             && got.peak_memory_B == 0);
  ck_assert (wl_chakra_metadata_facts (NULL, &got, &error));

  ChakraProtoMsg__AttributeProto a = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  ChakraProtoMsg__AttributeProto *attrs[] = { &a };
  ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
  meta.n_attr = 1;
  meta.attr = attrs;
  a.name = (char *) "tokens_per_iteration";
  a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a.string_val = (char *) "4096";
  ck_assert (!wl_chakra_metadata_facts (&meta, &got, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_str_eq (error->message, "GlobalMetadata: attribute \"tokens_per_iteration\" is not "
                                    "a non-negative integer");
  g_clear_error (&error);
  /* A peak memory below zero is no memory. */
  a.name = (char *) "peak_memory_bytes";
  a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  a.int64_val = -1;
  ck_assert (!wl_chakra_metadata_facts (&meta, &got, &error));
  ck_assert_str_eq (error->message, "GlobalMetadata: attribute \"peak_memory_bytes\" is not "
                                    "a non-negative integer");
  g_clear_error (&error);
  a.name = (char *) "model_flops";
  a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  a.int64_val = -5;
  ck_assert (!wl_chakra_metadata_facts (&meta, &got, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_str_eq (error->message,
                    "GlobalMetadata: attribute \"model_flops\" is not a finite non-negative number");
  g_clear_error (&error);
  /* A formula is a short name: one past 256 bytes is refused (they are
   * held for the process, so an input may not grow them without bound). */
  g_autofree char *long_formula = g_strnfill (257, 'x');
  a.name = (char *) "flops_formula";
  a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a.string_val = long_formula;
  ck_assert (!wl_chakra_metadata_facts (&meta, &got, &error));
  ck_assert_str_eq (error->message, "GlobalMetadata: attribute \"flops_formula\" is not "
                                    "a string of at most 256 bytes");
  g_clear_error (&error);
  long_formula[256] = '\0';
  ck_assert (wl_chakra_metadata_facts (&meta, &got, &error));
  ck_assert_str_eq (got.flops_formula, long_formula);
  a.name = (char *) "model_flops";
  /* Infinity would print "MFU inf %" and a report that is not JSON. */
  a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL;
  a.double_val = INFINITY;
  ck_assert (!wl_chakra_metadata_facts (&meta, &got, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  g_clear_error (&error);
  /* A formula that is not UTF-8 would make the JSON report invalid. */
  a.name = (char *) "flops_formula";
  a.value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a.string_val = (char *) "6N\xff";
  ck_assert (!wl_chakra_metadata_facts (&meta, &got, &error));
  ck_assert_str_eq (error->message,
                    "GlobalMetadata: attribute \"flops_formula\" is not a UTF-8 string");
}
END_TEST

/* --------------------------------------------------------------- main */

static void
add (Suite *s, const char *name, const TTest *test)
{
  tcase_add_test (tu_tcase (s, name, setup, teardown, 120), test);
}

int
main (void)
{
  Suite *s = suite_create ("chakra");
  add (s, "shared_traces", test_shared_traces_round_trip);
  add (s, "fixture", test_fixture_round_trip);
  add (s, "fixture_gzip", test_fixture_gzip_round_trip);
  add (s, "many_nodes", test_many_nodes);
  add (s, "attr_kinds", test_attr_integer_kinds);
  add (s, "attr_string_lists", test_attr_string_and_lists);
  add (s, "attr_errors", test_attr_absent_and_wrong_kind);
  add (s, "names", test_names);
  add (s, "bad_empty_missing", test_bad_empty_and_missing);
  add (s, "bad_headerless", test_bad_headerless);
  add (s, "bad_truncated", test_bad_truncated_frame);
  add (s, "bad_varints", test_bad_varints);
  add (s, "bad_garbage", test_bad_garbage);
  add (s, "gzip_cut", test_gzip_cut);
  add (s, "huge_frame_length", test_huge_frame_length);
  add (s, "pipe", test_pipe);
  add (s, "bad_writer", test_bad_writer_paths);
  add (s, "metadata_facts", test_metadata_facts);
  add (s, "metadata_facts_bad", test_metadata_facts_absent_and_bad);
  return tu_run_suite (s);
}
