/* test_trace_groups.c: process groups defined by the traces' METADATA
 * nodes, end to end through `orrery run` and `orrery inspect`.
 *
 * A group is a set of ranks, validated as --comm-groups validates its
 * groups: a rank listed twice is an input error naming the file, the node
 * and the group (run and inspect word it alike); a group of every rank is
 * the world only when it is the one such communicator the collectives use;
 * two ids that each hold every rank stay two groups, whose collectives
 * never match each other's.
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra.h"

enum
{
  T_METADATA = 1, ALL_REDUCE = 0
};

/* A 4-rank ring, exact timing. */
static char *
write_config (void)
{
  return tu_write_file (
      "ring4.xml",
      "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"ring\" rounding=\"ps\">\n"
      "  <network model=\"analytical\">\n"
      "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\"\n"
      "          active-chunks-per-dim=\"1\" splits=\"1\" reduction-passes=\"0\"/>\n"
      "</cluster>\n");
}

static ChakraProtoMsg__Node *
coll_in (guint64 id, gint64 bytes, const char *group, guint64 dep)
{
  ChakraProtoMsg__Node *n = tu_coll (id, ALL_REDUCE, bytes);
  tu_node_attr_string (n, "pg_name", group);
  if (dep != 0)
    tu_node_dep (n, dep);
  return n;
}

/* Write the 4-rank set "wl": node 1 METADATA with GROUPS (JSON), then on
 * every rank two all-reduces in a chain (node 3 after node 2), on groups
 * FIRST and SECOND; rank 0 swaps them when SWAP0 (the same sizes). */
static char *
write_traces (const char *groups, const char *first, const char *second, gboolean swap0)
{
  char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *meta = tu_node_new (1, T_METADATA, "process_groups");
      tu_node_inputs (meta, groups);
      gboolean swap = swap0 && r == 0;
      ChakraProtoMsg__Node *nodes[] = { meta, coll_in (2, 4096, swap ? second : first, 0),
                                        coll_in (3, 4096, swap ? first : second, 2) };
      tu_write_rank (prefix, r, nodes, G_N_ELEMENTS (nodes));
    }
  return prefix;
}

static int
run_cmd (char **out, const char *prefix)
{
  g_autofree char *cfg = write_config ();
  return tu_run_workload (out, cfg, prefix);
}

/* GROUPS (JSON) is refused by run (exit 1) and reported by inspect, both
 * with WHAT after "PATH: node 1: ". */
static void
assert_refused (const char *groups, const char *what)
{
  g_autofree char *prefix = write_traces (groups, "1", "1", FALSE);
  g_autofree char *want = g_strdup_printf ("%s.0.et: node 1: %s", prefix, what);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 1);
  ck_assert_msg (strstr (out, want) != NULL, "run: want '%s' in:\n%s", want, out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, want) != NULL, "inspect: want '%s' in:\n%s", want, ins);
}

/* A key twice in one object: json-glib kept the last "ranks" silently. */
START_TEST (test_key_twice)
{
  assert_refused ("[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2, 3], \"ranks\": [0, 1]}]",
                  "METADATA process group has the key \"ranks\" twice");
}
END_TEST

/* GROUPS lists rank R of group 1 twice: run refuses it (exit 1) and inspect
 * reports it, both with "PATH: node 1: process group 1 lists rank R twice". */
static void
assert_repeated (const char *groups, guint32 rank)
{
  g_autofree char *prefix = write_traces (groups, "1", "1", FALSE);
  g_autofree char *want
      = g_strdup_printf ("%s.0.et: node 1: process group 1 lists rank %u twice", prefix, rank);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 1);
  ck_assert_msg (strstr (out, want) != NULL, "run: want '%s' in:\n%s", want, out);
  ck_assert_msg (strstr (out, "assertion") == NULL && strstr (out, "deadlock") == NULL, "%s", out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, want) != NULL, "inspect: want '%s' in:\n%s", want, ins);
}

/* A rank past the set's files: run refuses it and inspect reports it, in
 * the same words, with the file and node (run named neither). */
START_TEST (test_rank_past_the_world)
{
  g_autofree char *prefix
      = write_traces ("[{\"pg_name\": \"1\", \"ranks\": [0, 4]}]", "1", "1", FALSE);
  const char *what = "METADATA process group 1 names rank 4, but there are 4 ranks";
  g_autofree char *want = g_strdup_printf ("%s.0.et: node 1: %s", prefix, what);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 1);
  ck_assert_msg (strstr (out, want) != NULL, "run: want '%s' in:\n%s", want, out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, want) != NULL, "inspect: want '%s' in:\n%s", want, ins);
}
END_TEST

/* As many members as ranks, but not every rank: not the world. */
START_TEST (test_count_is_not_the_world)
{
  assert_repeated ("[{\"pg_name\": \"1\", \"ranks\": [0, 0, 1, 1]}]", 0);
}
END_TEST

/* Two members, one rank: once an assertion (src != dst). */
START_TEST (test_one_rank_twice)
{
  assert_repeated ("[{\"pg_name\": \"1\", \"ranks\": [0, 0]}]", 0);
}
END_TEST

/* Once a self-contradicting deadlock. */
START_TEST (test_three_members_two_ranks)
{
  assert_repeated ("[{\"pg_name\": \"1\", \"ranks\": [0, 1, 1]}]", 1);
}
END_TEST

#define TWO_WORLDS                                                                               \
  "[{\"pg_name\": \"1\", \"ranks\": [0, 1, 2, 3]}, {\"pg_name\": \"2\", \"ranks\": [3, 2, 1, 0]}]"

/* Rank 0 runs group 2's all-reduce first, the others group 1's: on real
 * NCCL a hang.  Matched per group, each waits for the other: a deadlock
 * (exit 3), not a run whose collectives paired across groups. */
START_TEST (test_two_worlds_disagree)
{
  g_autofree char *prefix = write_traces (TWO_WORLDS, "1", "2", TRUE);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 3);
  ck_assert_msg (strstr (out, "group 1") != NULL && strstr (out, "group 2") != NULL, "%s", out);
}
END_TEST

/* The same order on every rank: it runs, and the summary counts one
 * all-reduce in each of groups 1 and 2 (a row "1-2": identical figures),
 * not two in one group. */
START_TEST (test_two_worlds_agree)
{
  g_autofree char *prefix = write_traces (TWO_WORLDS, "1", "2", FALSE);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 0);
  ck_assert_msg (g_regex_match_simple ("all_reduce +1-2 +4 +1 ", out, 0, 0), "%s", out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 0);
}
END_TEST

/* One group of every rank, in any order, is the world: as before. */
START_TEST (test_one_world)
{
  g_autofree char *prefix
      = write_traces ("[{\"pg_name\": \"1\", \"ranks\": [3, 1, 2, 0]}]", "1", "1", FALSE);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 0);
  ck_assert_msg (g_regex_match_simple ("all_reduce +all +4 +2 ", out, 0, 0), "%s", out);
}
END_TEST

static Suite *
trace_groups_suite (void)
{
  Suite *s = suite_create ("trace_groups");
  TCase *tc = tcase_create ("core");
  tcase_add_checked_fixture (tc, tu_scratch_setup, tu_scratch_teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_count_is_not_the_world);
  tcase_add_test (tc, test_one_rank_twice);
  tcase_add_test (tc, test_three_members_two_ranks);
  tcase_add_test (tc, test_two_worlds_disagree);
  tcase_add_test (tc, test_two_worlds_agree);
  tcase_add_test (tc, test_one_world);
  tcase_add_test (tc, test_key_twice);
  tcase_add_test (tc, test_rank_past_the_world);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return tu_run_suite (trace_groups_suite ());
}
