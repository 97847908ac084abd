/* test_coll_program.c: ASTRA-sim's custom collective traces read into a
 * program (workload/coll_program.c): each thing a trace set can get wrong
 * refused naming the file and node, and a small program run end to end
 * through the binary in every mode, against its time worked by hand.
 */
#include <check.h>
#include <string.h>

#include "support/modes.h"
#include "support/testutil.h"
#include "workload/coll_program.h"

#define SEND 5
#define RECV 6

/* Rank r of two: send 1000 B to the other with tag 5 (node 0), receive
 * 1000 B from it (node 1), then a COMP of 0 us (node 2) after both. */
static void
write_pair (const char *prefix, gint64 bytes0, gint64 bytes1)
{
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *n[3] = {
        tu_p2p (0, SEND, r, 1 - r, 5, r == 0 ? bytes0 : bytes1),
        tu_p2p (1, RECV, 1 - r, r, 5, r == 0 ? bytes1 : bytes0),
        tu_comp (2, 0),
      };
      tu_node_dep (n[2], 0);
      tu_node_dep (n[2], 1);
      tu_write_rank (prefix, r, n, 3);
    }
}

/* load PREFIX: refused with an error holding every needle. */
static void
assert_refused (const char *prefix, const char *needle, const char *needle2)
{
  GError *error = NULL;
  SysProgram *prog = wl_coll_program_load_et (prefix, "custom:t", &error);
  ck_assert_ptr_null (prog);
  tu_assert_input_error (error, needle);
  if (needle2 != NULL)
    tu_assert_input_error (error, needle2);
  g_error_free (error);
}

START_TEST (test_loads)
{
  g_autofree char *prefix = tu_scratch_path ("ok");
  write_pair (prefix, 1000, 1000);
  GError *error = NULL;
  SysProgram *prog = wl_coll_program_load_et (prefix, "custom:t", &error);
  ck_assert_msg (prog != NULL, "%s", error ? error->message : "");
  ck_assert_uint_eq (sys_program_size (prog), 2);
  ck_assert_str_eq (sys_program_algo (prog)->name, "custom:t");
  ck_assert_int_eq (sys_program_algo (prog)->alike, SYS_ALIKE_NEVER);
  sys_program_free (prog);
}
END_TEST

START_TEST (test_missing)
{
  g_autofree char *none = tu_scratch_path ("none");
  assert_refused (none, "none.0.et: no such file", NULL);
}
END_TEST

/* The set NAME written before, refused again with NEEDLE. */
static void
assert_refused_again (const char *name, const char *needle)
{
  g_autofree char *prefix = tu_scratch_path (name);
  assert_refused (prefix, needle, NULL);
}

/* One bad node in rank 1 of an otherwise good pair. */
static void
assert_bad_rank1 (const char *name, ChakraProtoMsg__Node **nodes, guint n, const char *needle)
{
  g_autofree char *prefix = tu_scratch_path (name);
  write_pair (prefix, 1000, 1000);
  tu_write_rank (prefix, 1, nodes, n);
  g_autofree char *file = g_strdup_printf ("%s.1.et: ", name);
  assert_refused (prefix, file, needle);
}

START_TEST (test_bad_nodes)
{
  ChakraProtoMsg__Node *coll[1] = { tu_coll (0, 1, 1000) };
  assert_bad_rank1 ("coll", coll, 1,
                    "node 0: a COMM_COLL_NODE, which a custom collective does not run");
  ChakraProtoMsg__Node *dup[2] = { tu_comp (4, 1), tu_comp (4, 1) };
  assert_bad_rank1 ("dup", dup, 2, "node 4: the id appears twice");
  ChakraProtoMsg__Node *dangling[1] = { tu_comp (0, 1) };
  tu_node_dep (dangling[0], 9);
  assert_bad_rank1 ("dangling", dangling, 1,
                    "node 0 depends on node 9, which is not in the trace (dangling dependency)");
  ChakraProtoMsg__Node *nosize[1] = { tu_node_new (0, SEND, "s") };
  tu_node_attr_int (nosize[0], "comm_dst", 0);
  assert_bad_rank1 ("nosize", nosize, 1, "node 0: a COMM_SEND_NODE needs comm_size");
  ChakraProtoMsg__Node *nopeer[1] = { tu_node_new (0, RECV, "r") };
  tu_node_attr_int (nopeer[0], "comm_size", 8);
  assert_bad_rank1 ("nopeer", nopeer, 1, "node 0: a COMM_RECV_NODE needs comm_src");
}
END_TEST

START_TEST (test_bad_programs)
{
  /* Rank 1 expects 999 B where rank 0 sends 1000. */
  ChakraProtoMsg__Node *sizes[2] = { tu_p2p (0, SEND, 1, 0, 5, 1000),
                                     tu_p2p (1, RECV, 0, 1, 5, 999) };
  assert_bad_rank1 ("sizes", sizes, 2, "sizes.0.et: node 0 (send): sends 1000 bytes but the "
                                       "receive it meets, ");
  assert_refused_again ("sizes", "sizes.1.et: node 1 (recv), expects 999");
  /* Rank 1 sends to position 5 of 2. */
  ChakraProtoMsg__Node *far[2] = { tu_p2p (0, SEND, 1, 5, 5, 1000),
                                   tu_p2p (1, RECV, 0, 1, 5, 1000) };
  assert_bad_rank1 ("far", far, 2, "node 0 (send): sends to position 5, but the program has "
                                   "2 positions (0 to 1)");
  /* Rank 1 sends to itself. */
  ChakraProtoMsg__Node *self[2] = { tu_p2p (0, SEND, 1, 1, 5, 1000),
                                    tu_p2p (1, RECV, 0, 1, 5, 1000) };
  assert_bad_rank1 ("self", self, 2, "node 0 (send): sends to itself (position 1)");
  /* Rank 1 only receives: rank 0's receive has no send. */
  ChakraProtoMsg__Node *deaf[1] = { tu_p2p (1, RECV, 0, 1, 5, 1000) };
  g_autofree char *prefix = tu_scratch_path ("deaf");
  write_pair (prefix, 1000, 1000);
  tu_write_rank (prefix, 1, deaf, 1);
  assert_refused (prefix, "deaf.0.et: node 1 (recv): a receive with no matching send "
                          "(position 1 sends 0 times to position 0 on tag/channel 5, which "
                          "receives 1 times)", NULL);
  /* Both receive before they send (control dependencies): a cycle. */
  g_autofree char *stuck = tu_scratch_path ("stuck");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *n[2] = { tu_p2p (0, SEND, r, 1 - r, 0, 8),
                                     tu_p2p (1, RECV, 1 - r, r, 0, 8) };
      tu_node_ctrl_dep (n[0], 1);
      tu_write_rank (stuck, r, n, 2);
    }
  assert_refused (stuck, "4 operations wait on each other in a cycle", "stuck.0.et: node 0");
}
END_TEST

/* Through the binary, every mode: two ranks on a Ring of 2 (50 GB/s that
 * are GiB/s, 500 ns).  Each sends 1000 B and receives 1000 B at once: both
 * are done when the data arrives, 500 + 1000 / 53.6870912 = 518.63 ns,
 * truncated to 518; the COMP of 0 us then takes 1 ns: 519 ns. */
START_TEST (test_runs)
{
  g_autofree char *prefix = tu_scratch_path ("pair");
  write_pair (prefix, 1000, 1000);
  g_autofree char *wl = tu_scratch_path ("ar2");
  const char *gen[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks", "2",
                        "--bytes", "4KiB", "--out", wl, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, gen), 0);
  g_autofree char *net = tu_write_file (
      "net.yml", "topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
  g_autofree char *json = g_strdup_printf ("{ \"all-reduce-implementation-custom\": [\"%s\"] }",
                                           prefix);
  g_autofree char *sys = tu_write_file ("sys.json", json);
  const char *run[] = { tu_orrery (), "run", "--astra-network", net, "--astra-system", sys,
                        "--workload", wl, NULL };
  g_autofree char *res = NULL;
  ck_assert_int_eq (tu_run_modes (&res, run), 0);
  ck_assert_msg (strstr (res, "sys[0] finished, 519 cycles") != NULL, "%s", res);
  ck_assert_msg (strstr (res, "sys[1] finished, 519 cycles") != NULL, "%s", res);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("coll_program");
  TCase *tc = tu_tcase (s, "coll_program", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_loads);
  tcase_add_test (tc, test_missing);
  tcase_add_test (tc, test_bad_nodes);
  tcase_add_test (tc, test_bad_programs);
  tcase_add_test (tc, test_runs);
  return tu_run_suite (s);
}
