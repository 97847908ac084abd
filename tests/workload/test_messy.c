/* test_messy.c: messy traces (as converted from PyTorch) through the
 * inspector, strict loading and lenient loading.
 *
 * For each class of defect the test writes a trace (with the Chakra writer,
 * or byte by byte for truncated, empty, headerless and proto2-era files) and
 * checks what `orrery inspect` says (the defect and the ids), the strict
 * load error (the same wording), and what lenient loading keeps and counts.
 * Expected ids, edges and counts are those the test wrote; byte offsets come
 * from the sizes of files the test wrote, not from the reader.
 */
#include <check.h>
#include <string.h>
#include <zlib.h>

#include "sim/app/simulation.h"
#include "workload/graph.h"
#include "workload/inspect.h"
#include "workload/replay.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

enum
{
  T_COMP = 4, T_COLL = 7
};
enum
{
  ALL_REDUCE = 0
};

/* 2^53 + 1: the first integer a double cannot hold. */
#define BIG ((guint64) 9007199254740993ull)

static char *
rank_path (guint32 rank)
{
  g_autofree char *name = g_strdup_printf ("wl.%u.et", rank);
  return tu_scratch_path (name);
}

/* Write nodes as wl.0.et (frees them); returns the path. */
static char *
write0 (ChakraProtoMsg__Node **nodes, guint n)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  tu_write_rank (wl, 0, nodes, n);
  return rank_path (0);
}

/* Give N's last attribute a name and no value. */
static void
make_last_valueless (ChakraProtoMsg__Node *n)
{
  n->attr[n->n_attr - 1]->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET;
}

/* Inspect PATH alone; asserts it reads it. */
static WlInspectReport *
inspect1 (const char *path)
{
  GError *error = NULL;
  const char *paths[] = { path };
  WlInspectReport *rep = wl_inspect_files (paths, 1, &error);
  g_assert_no_error (error);
  ck_assert_ptr_nonnull (rep);
  return rep;
}

/* The report holds a defect equal to "PATH: " + WHAT. */
static void
assert_defect (const WlInspectReport *rep, const char *path, const char *what)
{
  g_autofree char *want = g_strdup_printf ("%s: %s", path, what);
  GString *all = g_string_new (NULL);
  for (guint i = 0; i < wl_inspect_report_n_defects (rep); i++)
    {
      if (strcmp (wl_inspect_report_defect (rep, i), want) == 0)
        {
          g_string_free (all, TRUE);
          return;
        }
      g_string_append_printf (all, "\n  %s", wl_inspect_report_defect (rep, i));
    }
  ck_abort_msg ("no defect \"%s\" among:%s", want, all->str);
}

/* Strict loading of PATH fails with exactly "PATH: " + WHAT. */
static void
assert_strict_error (const char *path, const char *what)
{
  GError *error = NULL;
  WlGraph *g = wl_graph_load (path, &error);
  ck_assert_ptr_null (g);
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  g_autofree char *want = g_strdup_printf ("%s: %s", path, what);
  ck_assert_str_eq (error->message, want);
  g_error_free (error);
}

static WlGraph *
load_lenient (const char *path)
{
  GError *error = NULL;
  WlGraph *g = wl_graph_load_full (path, TRUE, &error);
  g_assert_no_error (error);
  ck_assert_ptr_nonnull (g);
  ck_assert (g->lenient);
  return g;
}

/* The index of the node with id ID in G (asserts it is there). */
static guint32
index_of (const WlGraph *g, guint64 id)
{
  for (guint32 v = 0; v < g->n_nodes; v++)
    if (g->nodes[v].id == id)
      return v;
  ck_abort_msg ("node %" G_GUINT64_FORMAT " not in the graph", id);
  return 0;
}

/* Whether CHILD waits for PARENT in G. */
static gboolean
has_edge (const WlGraph *g, guint64 parent, guint64 child)
{
  const WlNode *p = &g->nodes[index_of (g, parent)];
  guint32 c = index_of (g, child);
  for (guint32 k = 0; k < p->n_children; k++)
    if (g->children[p->child_start + k] == c)
      return TRUE;
  return FALSE;
}

static guint64
edges (const WlGraph *g)
{
  guint64 e = 0;
  for (guint32 v = 0; v < g->n_nodes; v++)
    e += g->nodes[v].n_children;
  return e;
}

/* Everything but the one counter named must be zero. */
static void
assert_only (const WlLenientStats *s, const guint64 *field, guint64 want)
{
  WlLenientStats copy = *s;
  guint64 *mine = (guint64 *) ((char *) &copy + ((const char *) field - (const char *) s));
  ck_assert_uint_eq (*mine, want);
  *mine = 0;
  ck_assert_uint_eq (wl_lenient_stats_total (&copy), 0);
}

static void
write_bytes (const char *path, const guint8 *bytes, gsize len)
{
  GError *error = NULL;
  ck_assert (g_file_set_contents (path, (const char *) bytes, (gssize) len, &error));
}

/* The bytes of PATH (asserts it reads them); LEN receives their count. */
static char *
read_all (const char *path, gsize *len)
{
  char *data = NULL;
  ck_assert (g_file_get_contents (path, &data, len, NULL));
  return data;
}

static gsize
file_size (const char *path)
{
  gsize len = 0;
  g_autofree char *data = read_all (path, &len);
  return len;
}

/* Cut CUT bytes (fewer than it holds) off the end of PATH. */
static void
cut_file (const char *path, gsize cut)
{
  gsize len = 0;
  g_autofree char *data = read_all (path, &len);
  ck_assert_uint_gt (len, cut);
  write_bytes (path, (const guint8 *) data, len - cut);
}

/* PATH has the one defect WHAT: the inspector reports it alone and strict
 * loading refuses the file with it.  Returns the inspector's report. */
static WlInspectReport *
assert_one_defect (const char *path, const char *what)
{
  WlInspectReport *rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 1);
  assert_defect (rep, path, what);
  assert_strict_error (path, what);
  return rep;
}

/* PATH holds two COMP nodes, CHILD waiting for PARENT, and the one defect
 * WHAT (assert_one_defect), which lenient loading counts once in the
 * WlLenientStats counter at byte offset FIELD, keeping both nodes. */
static void
assert_two_kept (const char *path, const char *what, guint64 parent, guint64 child, gsize field)
{
  g_autoptr (WlInspectReport) rep = assert_one_defect (path, what);
  ck_assert_uint_eq (wl_inspect_report_rank (rep, 0)->nodes[T_COMP], 2);

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 2);
  ck_assert (has_edge (g, parent, child));
  assert_only (&g->dropped, (const guint64 *) ((const char *) &g->dropped + field), 1);
}

/* ---- dangling dependencies ---------------------------------------------------- */

START_TEST (test_dangling)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (2, 1);
  tu_node_dep (a, 99);
  tu_node_dep (b, 1);
  tu_node_ctrl_dep (b, 77);
  ChakraProtoMsg__Node *nodes[] = { a, b };
  g_autofree char *path = write0 (nodes, 2);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 2);
  assert_defect (rep, path,
                 "node 1 depends on node 99, which is not in the trace (dangling dependency)");
  assert_defect (rep, path,
                 "node 2 depends on node 77, which is not in the trace (dangling dependency)");
  assert_strict_error (path,
                       "node 1 depends on node 99, which is not in the trace (dangling dependency)");

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 2);
  ck_assert_uint_eq (edges (g), 1);
  ck_assert (has_edge (g, 1, 2));
  ck_assert_uint_eq (g->n_roots, 1);
  assert_only (&g->dropped, &g->dropped.dangling_deps_dropped, 2);
}
END_TEST

/* ---- cycles through control dependencies ------------------------------------ */

START_TEST (test_cycle_ctrl)
{
  /* 10 waits for 30 (data), 30 for 20 (control), 20 for 10 (data); 40 waits
   * for 30.  The search from 10 goes 10 -> 30 -> 20, and 20's dependency on
   * 10 closes the cycle: that edge is the one dropped. */
  ChakraProtoMsg__Node *a = tu_comp (10, 1), *b = tu_comp (20, 1), *c = tu_comp (30, 1),
                       *d = tu_comp (40, 1);
  tu_node_dep (a, 30);
  tu_node_dep (b, 10);
  tu_node_ctrl_dep (c, 20);
  tu_node_dep (d, 30);
  ChakraProtoMsg__Node *nodes[] = { a, b, c, d };
  g_autofree char *path = write0 (nodes, 4);
  const char *what = "dependency cycle through 3 nodes: 10 -> 30 -> 20 -> 10 "
                     "(each depends on the next)";

  g_autoptr (WlInspectReport) rep = assert_one_defect (path, what);

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 4);
  ck_assert_uint_eq (edges (g), 3);
  ck_assert (has_edge (g, 30, 10));
  ck_assert (has_edge (g, 20, 30));
  ck_assert (has_edge (g, 30, 40));
  ck_assert (!has_edge (g, 10, 20));
  ck_assert_uint_eq (g->n_roots, 1); /* 20 */
  ck_assert_uint_eq (g->nodes[index_of (g, 20)].n_parents, 0);
  assert_only (&g->dropped, &g->dropped.cycle_edges_dropped, 1);
}
END_TEST

/* Two cycles, one a node waiting for itself: every back edge is dropped. */
START_TEST (test_two_cycles)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (2, 1), *c = tu_comp (3, 1);
  tu_node_ctrl_dep (a, 1);
  tu_node_dep (b, 3);
  tu_node_ctrl_dep (c, 2);
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  g_autofree char *path = write0 (nodes, 3);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 2);
  assert_defect (rep, path, "dependency cycle through 1 node: 1 -> 1 (each depends on the next)");
  assert_defect (rep, path,
                 "dependency cycle through 2 nodes: 2 -> 3 -> 2 (each depends on the next)");
  assert_strict_error (path, "dependency cycle through 1 node: 1 -> 1 (each depends on the next)");

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (edges (g), 1);
  ck_assert (has_edge (g, 3, 2));
  assert_only (&g->dropped, &g->dropped.cycle_edges_dropped, 2);
}
END_TEST

/* ---- collectives without comm_type or comm_size ---------------------------- */

START_TEST (test_coll_without_type)
{
  ChakraProtoMsg__Node *a = tu_node_new (1, T_COLL, "no_type");
  tu_node_attr_int (a, "comm_size", 4096);
  ChakraProtoMsg__Node *b = tu_node_new (2, T_COLL, "no_size");
  tu_node_attr_int (b, "comm_type", ALL_REDUCE);
  ChakraProtoMsg__Node *c = tu_comp (3, 5);
  tu_node_dep (c, 1);
  tu_node_dep (c, 2);
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  g_autofree char *path = write0 (nodes, 3);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 2);
  assert_defect (rep, path, "node 1: COMM_COLL node without comm_type");
  assert_defect (rep, path, "node 2: COMM_COLL node without comm_size");
  assert_strict_error (path, "node 1: COMM_COLL node without comm_type");

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 3);
  ck_assert_uint_eq (g->nodes[0].op, WL_OP_SKIP);
  ck_assert_uint_eq (g->nodes[1].op, WL_OP_SKIP);
  ck_assert_uint_eq (g->nodes[2].op, WL_OP_COMP);
  ck_assert (has_edge (g, 1, 3) && has_edge (g, 2, 3));
  assert_only (&g->dropped, &g->dropped.colls_skipped, 2);
}
END_TEST

/* ---- attributes with no value ------------------------------------------------ */

START_TEST (test_valueless_attr)
{
  ChakraProtoMsg__Node *a = tu_comp (5, 3);
  tu_node_attr_int (a, "num_ops", 0);
  make_last_valueless (a);
  tu_node_attr_int (a, "stream", 0);
  make_last_valueless (a);
  ChakraProtoMsg__Node *b = tu_node_new (6, T_COLL, "ar");
  tu_node_attr_int (b, "comm_type", 0);
  make_last_valueless (b);
  tu_node_attr_int (b, "comm_size", 100);
  tu_node_dep (b, 5);
  ChakraProtoMsg__Node *nodes[] = { a, b };
  g_autofree char *path = write0 (nodes, 2);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 4);
  assert_defect (rep, path, "node 5: attribute \"num_ops\" has no value (valueless attribute)");
  assert_defect (rep, path, "node 5: attribute \"stream\" has no value (valueless attribute)");
  assert_defect (rep, path, "node 6: attribute \"comm_type\" has no value (valueless attribute)");
  assert_defect (rep, path, "node 6: COMM_COLL node without comm_type");
  assert_strict_error (path, "node 5: attribute \"num_ops\" has no value (valueless attribute)");

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 2);
  ck_assert_uint_eq (g->nodes[0].op, WL_OP_COMP);
  ck_assert_uint_eq (g->nodes[0].num_ops, 0);
  ck_assert_uint_eq (g->nodes[0].duration_ps, 3 * SIM_PS_PER_US);
  ck_assert_uint_eq (g->nodes[1].op, WL_OP_SKIP);
  ck_assert (has_edge (g, 5, 6));
  ck_assert_uint_eq (g->dropped.valueless_attrs_ignored, 3);
  ck_assert_uint_eq (g->dropped.colls_skipped, 1);
  ck_assert_uint_eq (wl_lenient_stats_total (&g->dropped), 4);
}
END_TEST

/* A valueless attribute orrery does not read is no error even when strict. */
START_TEST (test_valueless_unread_strict)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1);
  tu_node_attr_int (a, "rf_id", 0);
  make_last_valueless (a);
  ChakraProtoMsg__Node *nodes[] = { a };
  g_autofree char *path = write0 (nodes, 1);
  GError *error = NULL;
  g_autoptr (WlGraph) g = wl_graph_load (path, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (g->n_nodes, 1);
}
END_TEST

/* ---- ids above 2^53 ------------------------------------------------------------ */

START_TEST (test_big_ids)
{
  /* 2^53 and 2^53 + 1 are one double: any conversion would merge them. */
  guint64 lo = BIG - 1, hi = BIG, top = G_MAXUINT64;
  ChakraProtoMsg__Node *a = tu_comp (lo, 1), *b = tu_comp (hi, 1), *c = tu_comp (top, 1);
  tu_node_dep (b, lo);
  tu_node_dep (c, hi);
  tu_node_dep (c, BIG + 2); /* dangling */
  tu_node_ctrl_dep (a, top); /* closes lo <- hi <- top <- lo */
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  g_autofree char *path = write0 (nodes, 3);
  const char *dangling = "node 18446744073709551615 depends on node 9007199254740995, which is "
                         "not in the trace (dangling dependency)";
  const char *cycle = "dependency cycle through 3 nodes: 9007199254740992 -> "
                      "18446744073709551615 -> 9007199254740993 -> 9007199254740992 "
                      "(each depends on the next)";

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 2);
  assert_defect (rep, path, dangling);
  assert_defect (rep, path, cycle);
  assert_strict_error (path, dangling);

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 3);
  ck_assert_uint_eq (g->nodes[0].id, lo);
  ck_assert_uint_eq (g->nodes[1].id, hi);
  ck_assert_uint_eq (g->nodes[2].id, top);
  /* The search goes lo -> top -> hi; hi's dependency on lo closes it. */
  ck_assert (has_edge (g, top, lo) && has_edge (g, hi, top));
  ck_assert (!has_edge (g, lo, hi));
  ck_assert_uint_eq (edges (g), 2);
  ck_assert_uint_eq (g->dropped.dangling_deps_dropped, 1);
  ck_assert_uint_eq (g->dropped.cycle_edges_dropped, 1);
  ck_assert_uint_eq (wl_lenient_stats_total (&g->dropped), 2);
}
END_TEST

/* ---- repeated ids ------------------------------------------------------------- */

START_TEST (test_duplicate)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (1, 7), *c = tu_comp (2, 1);
  tu_node_dep (c, 1);
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  g_autofree char *path = write0 (nodes, 3);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 1);
  assert_defect (rep, path, "node 1: the id appears twice in the trace (duplicate id)");
  assert_strict_error (path, "node 1: the id appears twice in the trace (duplicate id)");

  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 2);
  ck_assert_uint_eq (g->nodes[0].duration_ps, 1 * SIM_PS_PER_US); /* the first kept */
  ck_assert (has_edge (g, 1, 2));
  assert_only (&g->dropped, &g->dropped.duplicate_nodes_dropped, 1);
}
END_TEST

/* ---- repeated attributes ------------------------------------------------------- */

/* A collective of 1024 bytes that gives comm_size again as 70000:
 * ASTRA-sim's reader keeps the last value, the index the first, so the two
 * would simulate different traces.  Refused by the inspector, the strict
 * load and the lenient one alike (lenient loading drops nothing it could
 * choose between); a name loading does not read may repeat. */
START_TEST (test_repeated_attr)
{
  ChakraProtoMsg__Node *c = tu_coll (3, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 1024);
  tu_node_attr_int (c, "comm_size", 70000);
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), c };
  g_autofree char *path = write0 (nodes, 2);
  const char *what = "node 3: attribute \"comm_size\" is given twice (ASTRA-sim keeps the last "
                     "value, other readers the first): keep one";
  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 1);
  assert_defect (rep, path, what);
  assert_strict_error (path, what);
  GError *error = NULL;
  ck_assert_ptr_null (wl_graph_load_full (path, TRUE, &error));
  g_autofree char *want = g_strdup_printf ("%s: %s", path, what);
  ck_assert_str_eq (error->message, want);
  g_clear_error (&error);

  ChakraProtoMsg__Node *d = tu_coll (3, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 1024);
  tu_node_attr_int (d, "tid", 1);
  tu_node_attr_int (d, "tid", 2);
  ChakraProtoMsg__Node *other[] = { tu_comp (1, 1), d };
  g_autofree char *ok = write0 (other, 2);
  g_autoptr (WlGraph) g = wl_graph_load (ok, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (g->nodes[1].bytes, 1024);
}
END_TEST

/* ---- empty files ----------------------------------------------------------------- */

START_TEST (test_empty)
{
  g_autofree char *path = rank_path (0);
  write_bytes (path, (const guint8 *) "", 0);
  const char *what = "empty trace (no GlobalMetadata frame)";

  g_autoptr (WlInspectReport) rep = assert_one_defect (path, what);
  /* Lenient loading refuses it too: there is nothing to keep. */
  GError *error = NULL;
  ck_assert_ptr_null (wl_graph_load_full (path, TRUE, &error));
  g_autofree char *want = g_strdup_printf ("%s: %s", path, what);
  ck_assert_str_eq (error->message, want);
  g_error_free (error);
}
END_TEST

/* ---- truncated last frames ------------------------------------------------------- */

/* Write nodes 1 -> 2 -> 3 as wl.0.et, cut CUT bytes off its end, and return
 * the byte offset of the last frame (the size of the same trace without
 * node 3). */
static gsize
write_truncated (const char *path, gsize cut)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (2, 2), *c = tu_comp (3, 3);
  tu_node_dep (b, 1);
  tu_node_dep (c, 2);
  g_autofree char *head = tu_scratch_path ("head.et");
  ChakraProtoMsg__Node *two[] = { a, b };
  tu_write_trace (head, two, 2);
  ChakraProtoMsg__Node *three[] = { a, b, c };
  tu_write_trace (path, three, 3);
  tu_node_free (a);
  tu_node_free (b);
  tu_node_free (c);
  cut_file (path, cut);
  return file_size (head);
}

START_TEST (test_truncated_frame)
{
  g_autofree char *path = rank_path (0);
  gsize offset = write_truncated (path, 2);
  gsize size = file_size (path);
  /* Frame 3 (node 3) starts at `offset` with a one-byte length. */
  gsize len = size + 2 - offset - 1;
  g_autofree char *what = g_strdup_printf (
    "frame 3 at byte offset %" G_GSIZE_FORMAT ": frame length %" G_GSIZE_FORMAT
    " runs past end of file (%" G_GSIZE_FORMAT " bytes left): truncated file?",
    offset, len, len - 2);

  assert_two_kept (path, what, 1, 2, G_STRUCT_OFFSET (WlLenientStats, truncated_frames));
}
END_TEST

/* The cut falls inside the last frame's length varint. */
START_TEST (test_truncated_varint)
{
  g_autofree char *path = rank_path (0);
  gsize offset = write_truncated (path, 0);
  gsize len = 0;
  g_autofree char *data = read_all (path, &len);
  /* Replace node 3's frame by one byte of an unfinished varint. */
  guint8 *bytes = (guint8 *) data;
  bytes[offset] = 0x80;
  write_bytes (path, bytes, offset + 1);
  g_autofree char *what = g_strdup_printf (
    "frame 3 at byte offset %" G_GSIZE_FORMAT ": truncated length varint at end of file", offset);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  assert_defect (rep, path, what);
  assert_strict_error (path, what);
  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (g->n_nodes, 2);
  assert_only (&g->dropped, &g->dropped.truncated_frames, 1);
}
END_TEST

/* Replace PATH by its gzip with stored (uncompressed) deflate blocks, cut
 * to the first KEEP decompressed bytes: the 10-byte gzip header and the
 * 5-byte stored block header, then the data (KEEP bytes of it kept); the
 * rest, and the trailer, cut off. */
static void
gzip_cut (const char *path, gsize keep)
{
  gsize len = 0;
  g_autofree char *plain = read_all (path, &len);
  gzFile gz = gzopen (path, "wb0");
  ck_assert_ptr_nonnull (gz);
  ck_assert_int_eq (gzwrite (gz, plain, (unsigned) len), (int) len);
  ck_assert_int_eq (gzclose (gz), Z_OK);
  gsize gz_len = 0;
  g_autofree char *packed = read_all (path, &gz_len);
  ck_assert_uint_eq (gz_len, 15 + len + 8);
  ck_assert (memcmp (packed + 15, plain, len) == 0);
  cut_file (path, gz_len - (15 + keep));
}

/* A gzip file cut short is a truncated trace too: cut inside node 3's
 * frame, or right after node 2's, both nodes before the cut are kept
 * (lenient), strict loading and the inspector report the cut in the same
 * words. */
START_TEST (test_truncated_gzip)
{
  g_autofree char *path = rank_path (0);
  gsize offset = write_truncated (path, 0);
  gsize size = file_size (path);
  gsize len = size - offset - 1; /* frame 3: a one-byte length, then LEN bytes */
  gzip_cut (path, offset + 2);
  g_autofree char *inside = g_strdup_printf (
    "frame 3 at byte offset %" G_GSIZE_FORMAT " (decompressed): frame length %" G_GSIZE_FORMAT
    " runs past end of file (1 bytes left): truncated gzip data (the .gz file is cut short)",
    offset, len);
  assert_two_kept (path, inside, 1, 2, G_STRUCT_OFFSET (WlLenientStats, truncated_frames));

  write_truncated (path, 0);
  gzip_cut (path, offset);
  g_autofree char *after = g_strdup_printf (
    "frame 3 at byte offset %" G_GSIZE_FORMAT " (decompressed): truncated gzip data (the .gz "
    "file is cut short after %" G_GSIZE_FORMAT " decompressed bytes)", offset, offset);
  assert_two_kept (path, after, 1, 2, G_STRUCT_OFFSET (WlLenientStats, truncated_frames));
}
END_TEST

/* A frame in the middle that does not unpack is refused even leniently. */
START_TEST (test_bad_middle_frame)
{
  g_autofree char *path = rank_path (0);
  gsize offset = write_truncated (path, 0);
  gsize len = 0;
  g_autofree char *data = read_all (path, &len);
  guint8 *bytes = (guint8 *) data;
  /* Frame 3's first byte becomes tag 0 (field 0: invalid in protobuf). */
  bytes[offset + 1] = 0x00;
  write_bytes (path, bytes, len);
  GError *error = NULL;
  ck_assert_ptr_null (wl_graph_load_full (path, TRUE, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert (strstr (error->message, "do not unpack as a Node") != NULL);
  g_error_free (error);
}
END_TEST

/* ---- headerless and proto2-era files -------------------------------------------- */

/* Append N as a frame (varint length, bytes) to OUT. */
static void
append_frame (GByteArray *out, const guint8 *msg, gsize len)
{
  ck_assert_uint_lt (len, 128); /* one-byte length */
  guint8 head = (guint8) len;
  g_byte_array_append (out, &head, 1);
  g_byte_array_append (out, msg, (guint) len);
}

static void
append_node (GByteArray *out, const ChakraProtoMsg__Node *n)
{
  guint8 buf[128];
  gsize len = chakra_proto_msg__node__get_packed_size (n);
  ck_assert_uint_le (len, sizeof buf);
  chakra_proto_msg__node__pack (n, buf);
  append_frame (out, buf, len);
}

START_TEST (test_headerless)
{
  g_autofree char *path = rank_path (0);
  ChakraProtoMsg__Node *a = tu_comp (7, 1), *b = tu_comp (8, 1);
  tu_node_dep (b, 7);
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  append_node (bytes, a);
  append_node (bytes, b);
  tu_node_free (a);
  tu_node_free (b);
  write_bytes (path, bytes->data, bytes->len);
  const char *what = "headerless (pre-2024) Chakra trace: frame 0 is a Node (id 7, type "
                     "COMP_NODE), not a GlobalMetadata; convert it with a current Chakra "
                     "converter";

  assert_two_kept (path, what, 7, 8, G_STRUCT_OFFSET (WlLenientStats, headerless_files));
}
END_TEST

/* Proto2-era writers put every repeated id under its own tag (unpacked) and
 * write zero scalars out.  Written byte by byte: a GlobalMetadata with
 * version "0.0.1"; node 1 (COMP, explicit start 0 and duration 2); node 2
 * waiting for 1 as data and as control dependency; node 3 waiting for 1 and
 * 2, unpacked. */
START_TEST (test_proto2_layout)
{
  g_autofree char *path = rank_path (0);
  static const guint8 meta[] = { 0x0a, 0x05, '0', '.', '0', '.', '1' };
  static const guint8 n1[] = { 0x08, 0x01, 0x12, 0x01, 'a', 0x18, 0x04, 0x30, 0x00, 0x38, 0x02 };
  static const guint8 n2[] = { 0x08, 0x02, 0x18, 0x04, 0x20, 0x01, 0x28, 0x01, 0x30, 0x00,
                               0x38, 0x03 };
  static const guint8 n3[] = { 0x08, 0x03, 0x18, 0x04, 0x28, 0x01, 0x28, 0x02, 0x38, 0x04 };
  g_autoptr (GByteArray) bytes = g_byte_array_new ();
  append_frame (bytes, meta, sizeof meta);
  append_frame (bytes, n1, sizeof n1);
  append_frame (bytes, n2, sizeof n2);
  append_frame (bytes, n3, sizeof n3);
  write_bytes (path, bytes->data, bytes->len);

  g_autoptr (WlInspectReport) rep = inspect1 (path);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 0);
  ck_assert_uint_eq (wl_inspect_report_rank (rep, 0)->nodes[T_COMP], 3);
  ck_assert_uint_eq (wl_inspect_report_rank (rep, 0)->compute_micros, 9);

  for (int lenient = 0; lenient <= 1; lenient++)
    {
      GError *error = NULL;
      g_autoptr (WlGraph) g = wl_graph_load_full (path, lenient, &error);
      g_assert_no_error (error);
      ck_assert_uint_eq (g->n_nodes, 3);
      ck_assert_uint_eq (edges (g), 3);
      ck_assert (has_edge (g, 1, 2) && has_edge (g, 1, 3) && has_edge (g, 2, 3));
      ck_assert_uint_eq (g->nodes[1].n_parents, 1); /* data and control: one edge */
      ck_assert_uint_eq (g->nodes[2].duration_ps, 4 * SIM_PS_PER_US);
      ck_assert_uint_eq (wl_lenient_stats_total (&g->dropped), 0);
    }
}
END_TEST

/* ---- lenient graphs replay to completion ----------------------------------------- */

/* Rank r's messy trace: comp 1 waits for absent 99; an all-reduce 2 after
 * it; 3 and 4 wait for each other (4 by control dependency); collective 5
 * has no comm_type; comp 6 has a valueless attribute and waits for 4 and 5;
 * comp 7 is cut off by truncation. */
static void
write_messy_rank (guint32 r)
{
  ChakraProtoMsg__Node *n1 = tu_comp (1, 10), *n2 = tu_coll (2, ALL_REDUCE, 1000),
                       *n3 = tu_comp (3, 1), *n4 = tu_comp (4, 1),
                       *n5 = tu_node_new (5, T_COLL, "no_type"), *n6 = tu_comp (6, 5),
                       *n7 = tu_comp (7, 1);
  tu_node_dep (n1, 99);
  tu_node_dep (n2, 1);
  tu_node_dep (n3, 4);
  tu_node_dep (n3, 2);
  tu_node_ctrl_dep (n4, 3);
  tu_node_attr_int (n5, "comm_size", 64);
  tu_node_dep (n5, 2);
  tu_node_attr_int (n6, "tid", 0);
  make_last_valueless (n6);
  tu_node_dep (n6, 4);
  tu_node_dep (n6, 5);
  tu_node_dep (n7, 6);
  g_autofree char *path = rank_path (r);
  ChakraProtoMsg__Node *nodes[] = { n1, n2, n3, n4, n5, n6, n7 };
  tu_write_trace (path, nodes, G_N_ELEMENTS (nodes));
  for (guint i = 0; i < G_N_ELEMENTS (nodes); i++)
    tu_node_free (nodes[i]);
  cut_file (path, 1);
}

START_TEST (test_lenient_replay)
{
  for (guint32 r = 0; r < 2; r++)
    write_messy_rank (r);
  g_autofree char *wl = tu_scratch_path ("wl");
  g_autofree char *path0 = rank_path (0);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);

  GError *error = NULL;
  ck_assert_ptr_null (tu_sim_all_modes (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, &error));
  /* Nodes are decoded as they are read, so the collective is met before
   * the dependencies are resolved. */
  g_autofree char *want = g_strdup_printf ("%s: node 5: COMM_COLL node without comm_type",
                                           path0);
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_str_eq (error->message, want);
  g_clear_error (&error);

  cfg.wl.lenient = TRUE;
  AppSim *sim = tu_sim_all_modes_ok (&cfg, wl);
  const WlReplay *rp = app_sim_replay (sim);
  ck_assert_uint_eq (wl_replay_unfinished (rp), 0);
  for (guint32 r = 0; r < 2; r++)
    {
      const WlRankStats *st = wl_replay_rank_stats (rp, r);
      ck_assert_uint_eq (st->nodes, 6);
      ck_assert_uint_eq (st->nodes_done, 6);
      ck_assert_uint_eq (st->colls, 1); /* the all-reduce; node 5 was skipped */
      /* 1 (10 us), the all-reduce, then 3 and 6 (1 + 5 us) on the one
       * compute slot. */
      ck_assert_uint_gt (st->finish, 16 * SIM_PS_PER_US);
    }
  WlLenientStats s;
  wl_replay_lenient_stats (rp, &s);
  ck_assert_uint_eq (s.dangling_deps_dropped, 2);
  ck_assert_uint_eq (s.cycle_edges_dropped, 2);
  ck_assert_uint_eq (s.colls_skipped, 2);
  ck_assert_uint_eq (s.valueless_attrs_ignored, 2);
  ck_assert_uint_eq (s.truncated_frames, 2);
  ck_assert_uint_eq (s.duplicate_nodes_dropped, 0);
  ck_assert_uint_eq (s.headerless_files, 0);
  g_autoptr (GString) text = g_string_new (NULL);
  wl_lenient_stats_describe (&s, text);
  ck_assert_str_eq (text->str,
                    "lenient: 2 dangling dependencies dropped, 2 dependencies closing cycles "
                    "dropped, 2 collectives without comm_type/comm_size skipped, 2 valueless "
                    "attributes ignored, 2 truncated last frames dropped (orrery inspect names "
                    "them)");
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* A clean trace loads the same either way, and says so. */
START_TEST (test_lenient_clean)
{
  ChakraProtoMsg__Node *a = tu_comp (1, 1), *b = tu_comp (2, 1);
  tu_node_dep (b, 1);
  ChakraProtoMsg__Node *nodes[] = { a, b };
  g_autofree char *path = write0 (nodes, 2);
  g_autoptr (WlGraph) g = load_lenient (path);
  ck_assert_uint_eq (wl_lenient_stats_total (&g->dropped), 0);
  g_autoptr (GString) text = g_string_new (NULL);
  wl_lenient_stats_describe (&g->dropped, text);
  ck_assert_str_eq (text->str, "lenient: the traces were clean");
}
END_TEST

static Suite *
messy_suite (void)
{
  Suite *s = suite_create ("messy");
  struct { const char *name; const TTest *test; } cases[] = {
    { "dangling", test_dangling },
    { "cycle_ctrl", test_cycle_ctrl },
    { "two_cycles", test_two_cycles },
    { "coll_without_type", test_coll_without_type },
    { "valueless_attr", test_valueless_attr },
    { "valueless_unread_strict", test_valueless_unread_strict },
    { "big_ids", test_big_ids },
    { "duplicate", test_duplicate },
    { "repeated_attr", test_repeated_attr },
    { "empty", test_empty },
    { "truncated_frame", test_truncated_frame },
    { "truncated_varint", test_truncated_varint },
    { "truncated_gzip", test_truncated_gzip },
    { "bad_middle_frame", test_bad_middle_frame },
    { "headerless", test_headerless },
    { "proto2_layout", test_proto2_layout },
    { "lenient_replay", test_lenient_replay },
    { "lenient_clean", test_lenient_clean },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      TCase *tc = tu_tcase (s, cases[i].name, tu_scratch_setup, tu_scratch_teardown, 0);
      tcase_add_test (tc, cases[i].test);
    }
  return s;
}

int
main (void)
{
  return tu_run_suite (messy_suite ());
}
