/* test_inspect.c: trace-set summaries and the defects the inspector reports.
 *
 * Traces are written by the test; expected counts are the nodes the test
 * wrote, expected messages name the files and ids the test chose.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "workload/inspect.h"
#include "workload/wl_error.h"
#include "support/testutil.h"

enum
{
  T_META = 1, T_COMP = 4, T_SEND = 5, T_RECV = 6, T_COLL = 7
};
enum
{
  ALL_REDUCE = 0, ALL_GATHER = 2
};

static char *
rank_path (guint32 rank)
{
  g_autofree char *name = g_strdup_printf ("wl.%u.et", rank);
  return tu_scratch_path (name);
}

static ChakraProtoMsg__Node *
p2p (guint64 id, int type, gint64 src, gint64 dst)
{
  ChakraProtoMsg__Node *n = tu_node_new (id, type, type == T_SEND ? "send" : "recv");
  tu_node_attr_int (n, "comm_src", src);
  tu_node_attr_int (n, "comm_dst", dst);
  tu_node_attr_int (n, "comm_size", 64);
  return n;
}

/* Rank r of a clean set: comp(10 us) -> all-reduce 1000 B -> comp(5 us) ->
 * all-gather 200 B, a send to and a receive from the ring neighbours, and
 * a METADATA node. */
static void
write_clean_rank (guint32 r, guint32 ranks)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[] = {
    tu_node_new (1, T_META, "meta"), tu_comp (2, 10), tu_coll (3, ALL_REDUCE, 1000), tu_comp (4, 5),
    tu_coll (5, ALL_GATHER, 200), p2p (6, T_SEND, r, (r + 1) % ranks),
    p2p (7, T_RECV, (r + ranks - 1) % ranks, r)
  };
  for (guint i = 2; i < G_N_ELEMENTS (nodes); i++)
    tu_node_dep (nodes[i], i); /* node i + 1 depends on node i */
  tu_write_rank (wl, r, nodes, G_N_ELEMENTS (nodes));
}

/* Inspect the files wl.0.et .. wl.<n-1>.et; asserts it reads them. */
static WlInspectReport *
inspect (guint n)
{
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  for (guint r = 0; r < n; r++)
    g_ptr_array_add (paths, rank_path (r));
  GError *error = NULL;
  WlInspectReport *rep = wl_inspect_files ((const char *const *) paths->pdata, n, &error);
  ck_assert_ptr_null (error);
  ck_assert_ptr_nonnull (rep);
  return rep;
}

/* The report has exactly one defect, and it holds every needle. */
static void
assert_one_defect (const WlInspectReport *rep, const char *const *needles)
{
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 1);
  const char *msg = wl_inspect_report_defect (rep, 0);
  for (guint i = 0; needles[i] != NULL; i++)
    if (strstr (msg, needles[i]) == NULL)
      ck_abort_msg ("defect \"%s\" lacks \"%s\"", msg, needles[i]);
}

START_TEST (test_clean_set)
{
  for (guint32 r = 0; r < 4; r++)
    write_clean_rank (r, 4);
  g_autoptr (WlInspectReport) rep = inspect (4);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 0);
  ck_assert_uint_eq (wl_inspect_report_n_ranks (rep), 4);
  for (guint r = 0; r < 4; r++)
    {
      const WlInspectRank *f = wl_inspect_report_rank (rep, r);
      ck_assert_uint_eq (f->nodes[T_META], 1);
      ck_assert_uint_eq (f->nodes[T_COMP], 2);
      ck_assert_uint_eq (f->nodes[T_COLL], 2);
      ck_assert_uint_eq (f->nodes[T_SEND], 1);
      ck_assert_uint_eq (f->nodes[T_RECV], 1);
      ck_assert_uint_eq (f->nodes[0], 0);
      ck_assert_uint_eq (f->nodes[WL_INSPECT_TYPE_UNKNOWN], 0);
      ck_assert_uint_eq (f->compute_micros, 15);
      ck_assert_uint_eq (f->coll_count[ALL_REDUCE], 1);
      ck_assert_uint_eq (f->coll_bytes[ALL_REDUCE], 1000);
      ck_assert_uint_eq (f->coll_count[ALL_GATHER], 1);
      ck_assert_uint_eq (f->coll_bytes[ALL_GATHER], 200);
    }
  g_autofree char *out_path = tu_scratch_path ("out.txt");
  FILE *out = fopen (out_path, "w");
  wl_inspect_report_print (rep, out);
  fclose (out);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (out_path, &text, NULL, NULL));
  ck_assert_ptr_nonnull (strstr (text, "ranks 0-3: 7 nodes ("));
  ck_assert_ptr_nonnull (strstr (text, "ALL_REDUCE x1 1000 bytes"));
  ck_assert_ptr_nonnull (strstr (text, "\n0 defects\n"));
}
END_TEST

START_TEST (test_dangling)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), tu_comp (2, 1) };
  tu_node_dep (nodes[1], 9);
  tu_write_rank (wl, 0, nodes, 2);
  g_autoptr (WlInspectReport) rep = inspect (1);
  const char *needles[] = { "wl.0.et", "node 2 depends on node 9", "dangling", NULL };
  assert_one_defect (rep, needles);
}
END_TEST

START_TEST (test_duplicate)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), tu_comp (4, 1), tu_comp (4, 1) };
  tu_write_rank (wl, 0, nodes, 3);
  g_autoptr (WlInspectReport) rep = inspect (1);
  const char *needles[] = { "wl.0.et", "node 4", "appears twice in the trace", NULL };
  assert_one_defect (rep, needles);
}
END_TEST

/* Two separate cycles (1 -> 2 -> 3 -> 1 and 5 -> 6 -> 5) are both named. */
START_TEST (test_cycles)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1), tu_comp (2, 1), tu_comp (3, 1), tu_comp (4, 1),
                                    tu_comp (5, 1), tu_comp (6, 1) };
  tu_node_dep (nodes[0], 2);
  tu_node_dep (nodes[1], 3);
  tu_node_ctrl_dep (nodes[2], 1);
  tu_node_dep (nodes[4], 6);
  tu_node_dep (nodes[5], 5);
  tu_write_rank (wl, 0, nodes, 6);
  g_autoptr (WlInspectReport) rep = inspect (1);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 2);
  const char *a = wl_inspect_report_defect (rep, 0), *b = wl_inspect_report_defect (rep, 1);
  ck_assert_ptr_nonnull (strstr (a, "wl.0.et"));
  ck_assert_ptr_nonnull (strstr (a, "cycle through 3 nodes: 1 -> 2 -> 3 -> 1"));
  ck_assert_ptr_nonnull (strstr (b, "cycle through 2 nodes: 5 -> 6 -> 5"));
}
END_TEST

START_TEST (test_collective_without_type_or_size)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *no_type = tu_node_new (3, T_COLL, "coll");
  tu_node_attr_int (no_type, "comm_size", 8);
  ChakraProtoMsg__Node *nodes[] = { no_type };
  tu_write_rank (wl, 0, nodes, 1);
  g_autoptr (WlInspectReport) rep = inspect (1);
  const char *needles[] = { "wl.0.et", "node 3", "without comm_type", NULL };
  assert_one_defect (rep, needles);
  wl_inspect_report_free (g_steal_pointer (&rep));

  ChakraProtoMsg__Node *no_size = tu_node_new (8, T_COLL, "coll");
  tu_node_attr_int (no_size, "comm_type", ALL_REDUCE);
  ChakraProtoMsg__Node *nodes2[] = { no_size };
  tu_write_rank (wl, 0, nodes2, 1);
  rep = inspect (1);
  const char *needles2[] = { "wl.0.et", "node 8", "without comm_size", NULL };
  assert_one_defect (rep, needles2);
}
END_TEST

/* A kernels attribute the run would refuse (kernels.h's grammar, or an
 * integer where text belongs) is a defect, worded as the run words it. */
START_TEST (test_bad_kernels)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *bad = tu_comp (4, 10);
  tu_node_attr_string (bad, "kernels", "gemm:m=1,n=2");
  ChakraProtoMsg__Node *good = tu_comp (5, 10);
  tu_node_attr_string (good, "kernels", "gemm:m=1,n=2,k=3;mem:bytes=8,what=add");
  ChakraProtoMsg__Node *nodes[] = { bad, good };
  tu_write_rank (wl, 0, nodes, 2);
  g_autoptr (WlInspectReport) rep = inspect (1);
  const char *needles[] = { "wl.0.et", "node 4", "kernels: 'gemm' needs k", NULL };
  assert_one_defect (rep, needles);
  /* The good list counts as a node the kernel model prices, the bad one
   * not; the summary says so beside the durations' sum (10 + 10 us). */
  ck_assert_uint_eq (wl_inspect_report_rank (rep, 0)->kernel_nodes, 1);
  g_autofree char *text = NULL;
  gsize len = 0;
  FILE *f = open_memstream (&text, &len);
  wl_inspect_report_print (rep, f);
  fclose (f);
  ck_assert_msg (strstr (text, "compute 20 us in durations (1 compute node lists kernels, which "
                               "the kernel model prices instead)") != NULL, "%s", text);
  wl_inspect_report_free (g_steal_pointer (&rep));

  ChakraProtoMsg__Node *kind = tu_comp (6, 10);
  tu_node_attr_int (kind, "kernels", 3);
  ChakraProtoMsg__Node *nodes2[] = { kind };
  tu_write_rank (wl, 0, nodes2, 1);
  rep = inspect (1);
  const char *needles2[] = { "wl.0.et", "node 6", "kernels", NULL };
  assert_one_defect (rep, needles2);
}
END_TEST

START_TEST (test_p2p_wrong_rank)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *r0[] = { p2p (1, T_SEND, 0, 1) };
  tu_write_rank (wl, 0, r0, 1);
  ChakraProtoMsg__Node *r1[] = { p2p (2, T_RECV, 0, 3) };
  tu_write_rank (wl, 1, r1, 1);
  g_autoptr (WlInspectReport) rep = inspect (2);
  const char *needles[] = { "wl.1.et", "node 2", "comm_dst = 3", "rank 1", NULL };
  assert_one_defect (rep, needles);
  wl_inspect_report_free (g_steal_pointer (&rep));

  ChakraProtoMsg__Node *s[] = { p2p (5, T_SEND, 0, 0) };
  tu_write_rank (wl, 1, s, 1);
  rep = inspect (2);
  const char *needles2[] = { "wl.1.et", "node 5", "COMM_SEND with comm_src = 0", NULL };
  assert_one_defect (rep, needles2);
}
END_TEST

/* Rank 2's second collective has another size; rank 3 lacks the second. */
START_TEST (test_sequences_disagree)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_coll (1, ALL_REDUCE, 100),
                                        tu_coll (2, ALL_GATHER, r == 2 ? 300 : 200) };
      tu_write_rank (wl, r, nodes, r == 3 ? 1 : 2);
      if (r == 3)
        tu_node_free (nodes[1]);
    }
  g_autoptr (WlInspectReport) rep = inspect (4);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 2);
  const char *a = wl_inspect_report_defect (rep, 0), *b = wl_inspect_report_defect (rep, 1);
  ck_assert_ptr_nonnull (strstr (a, "wl.2.et: collective #2 on all ranks is ALL_GATHER 300 bytes"));
  ck_assert_ptr_nonnull (strstr (a, "rank 0"));
  ck_assert_ptr_nonnull (strstr (a, "has ALL_GATHER 200 bytes"));
  ck_assert_ptr_nonnull (strstr (b, "wl.3.et: collective #2 on all ranks is the end"));

  /* Sequences are compared group by group: ranks 0 and 1 in group 1, 2 and
   * 3 in group 2 may differ (a size of 100 against 200); within group 2,
   * rank 3's 300 disagrees with rank 2's 200. */
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *c = tu_coll (1, ALL_REDUCE, r < 2 ? 100 : r == 2 ? 200 : 300);
      tu_node_attr_string (c, "pg_name", r < 2 ? "1" : "2");
      ChakraProtoMsg__Node *nodes[] = { c };
      tu_write_rank (wl, r, nodes, 1);
    }
  wl_inspect_report_free (g_steal_pointer (&rep));
  rep = inspect (4);
  const char *needles[] = { "wl.3.et", "collective #1 on group 2", "rank 2", NULL };
  assert_one_defect (rep, needles);
}
END_TEST

START_TEST (test_unreadable)
{
  g_autofree char *path = rank_path (0);
  ck_assert (g_file_set_contents (path, "not a trace", -1, NULL));
  const char *paths[] = { path };
  GError *error = NULL;
  ck_assert_ptr_null (wl_inspect_files (paths, 1, &error));
  ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
  ck_assert_ptr_nonnull (strstr (error->message, "wl.0.et"));
  g_error_free (error);
}
END_TEST

START_TEST (test_cli_exit_codes)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    write_clean_rank (r, 4);
  g_autofree char *prefix = tu_scratch_path ("wl");
  g_autofree char *out = NULL;
  const char *argv[] = { tu_orrery (), "inspect", prefix, NULL };
  ck_assert_int_eq (tu_run (&out, argv), 0);
  ck_assert_ptr_nonnull (strstr (out, "4 files\nranks 0-3: "));
  ck_assert_ptr_nonnull (strstr (out, "0 defects"));

  /* One file alone, by name: rank 2 from its name. */
  g_autofree char *one = rank_path (2);
  const char *argv1[] = { tu_orrery (), "inspect", one, NULL };
  g_free (g_steal_pointer (&out));
  ck_assert_int_eq (tu_run (&out, argv1), 0);
  ck_assert_ptr_nonnull (strstr (out, "rank 2: 7 nodes"));

  ChakraProtoMsg__Node *bad[] = { tu_comp (1, 1), tu_comp (1, 1) };
  tu_node_dep (bad[0], 7);
  tu_write_rank (wl, 3, bad, 2);
  g_free (g_steal_pointer (&out));
  ck_assert_int_eq (tu_run (&out, argv), 1);
  ck_assert_ptr_nonnull (strstr (out, "node 1 depends on node 7"));
  ck_assert_ptr_nonnull (strstr (out, "node 1: the id appears twice in the trace"));
  ck_assert_ptr_nonnull (strstr (out, "\n3 defects\n")); /* + the collective sequence */

  g_autofree char *missing = tu_scratch_path ("nothing");
  const char *argv2[] = { tu_orrery (), "inspect", missing, NULL };
  g_free (g_steal_pointer (&out));
  ck_assert_int_eq (tu_run (&out, argv2), 1);
  ck_assert_ptr_nonnull (strstr (out, "nothing"));
}
END_TEST

/* A set with a gap (wl.2.et missing, wl.3.et there) is refused, naming
 * both files; it read as a set of two ranks, whose process groups naming
 * rank 2 or 3 were each a defect.  Without wl.3.et the set of three is
 * read as before. */
START_TEST (test_gap_refused)
{
  for (guint32 r = 0; r < 4; r++)
    write_clean_rank (r, 4);
  g_autofree char *prefix = tu_scratch_path ("wl");
  g_autofree char *second = rank_path (2);
  g_autofree char *third = rank_path (3);
  ck_assert_int_eq (g_unlink (second), 0);
  GError *error = NULL;
  GPtrArray *paths = wl_inspect_resolve (prefix, &error);
  ck_assert_ptr_null (paths);
  ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
  g_autofree char *want = g_strdup_printf ("%s: not found, but %s is: the trace set has a gap at "
                                           "rank 2",
                                           second, third);
  ck_assert_msg (g_str_has_prefix (error->message, want), "%s", error->message);
  g_clear_error (&error);
  ck_assert_int_eq (g_unlink (third), 0);
  g_autoptr (GPtrArray) two = wl_inspect_resolve (prefix, &error);
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (two->len, 2);
}
END_TEST

START_TEST (test_shared_microbenchmark)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autofree char *prefix = g_build_filename (
      shared, "traces/astra-sim/examples/workload/microbenchmarks/all_reduce/16npus_1MB/all_reduce",
      NULL);
  GError *error = NULL;
  g_autoptr (GPtrArray) paths = wl_inspect_resolve (prefix, &error);
  if (paths == NULL)
    {
      printf ("skipped: %s\n", error->message);
      g_error_free (error);
      return;
    }
  g_autoptr (WlInspectReport) rep
      = wl_inspect_files ((const char *const *) paths->pdata, paths->len, &error);
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (wl_inspect_report_n_ranks (rep), 16);
  ck_assert_uint_eq (wl_inspect_report_n_defects (rep), 0);
  for (guint r = 0; r < 16; r++)
    {
      const WlInspectRank *f = wl_inspect_report_rank (rep, r);
      ck_assert_uint_eq (f->nodes[T_COLL], 1);
      ck_assert_uint_eq (f->coll_count[ALL_REDUCE], 1);
      ck_assert_uint_eq (f->coll_bytes[ALL_REDUCE], 1048576);
    }
}
END_TEST

static Suite *
inspect_suite (void)
{
  Suite *s = suite_create ("inspect");
  TCase *tc = tu_tcase (s, "inspect", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_clean_set);
  tcase_add_test (tc, test_dangling);
  tcase_add_test (tc, test_duplicate);
  tcase_add_test (tc, test_cycles);
  tcase_add_test (tc, test_collective_without_type_or_size);
  tcase_add_test (tc, test_p2p_wrong_rank);
  tcase_add_test (tc, test_bad_kernels);
  tcase_add_test (tc, test_sequences_disagree);
  tcase_add_test (tc, test_unreadable);
  tcase_add_test (tc, test_cli_exit_codes);
  tcase_add_test (tc, test_gap_refused);
  tcase_add_test (tc, test_shared_microbenchmark);
  return s;
}

int
main (void)
{
  return tu_run_suite (inspect_suite ());
}
