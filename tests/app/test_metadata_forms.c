/* test_metadata_forms.c: every form in which Chakra writers put process
 * groups in a METADATA node's inputs.values, end to end through `orrery
 * run` and `orrery inspect`.
 *
 * The PyTorch converter (chakra_converter PyTorch) writes Python's str() of
 * the execution trace's values: a list holding the JSON group list as a
 * string, ['[{"pg_name": "0", "pg_desc": ..., "ranks": [...]}]'].  Others
 * write the bare list, a JSON list of such strings, or a Python literal of
 * the group objects; pg_name comes as a string or an integer, and the world
 * group with its ranks empty, null or absent.  Each form must give the same
 * groups, hence the same times, worked by hand below.
 *
 * Timing (4-rank Ring, 1 GB/s, 100 ns per hop, analytical, no endpoint
 * delay or reduction cost): a ring all-reduce of B bytes on p ranks takes
 * 2 (p - 1) steps of 100 ns + (B / p) ns.  B = 4096:
 *   groups {0,1} and {2,3} (neighbours): 2 x (100 + 2048) = 4296 ns;
 *   all four ranks: 6 x (100 + 1024) = 6744 ns.
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra.h"

enum
{
  T_METADATA = 1, T_COMP = 4, ALL_REDUCE = 0
};

#define PAIRS_NS "4\\.296 us"
#define WORLD_NS "6\\.744 us"

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

/* The 4-rank set "wl": node 1 of TYPE (METADATA or COMP) named as the
 * converter names it, carrying VALUES, then node 2, an all-reduce of 4096
 * bytes on group LOW (ranks 0 and 1) or HIGH (ranks 2 and 3); NULL names
 * no group. */
static char *
write_traces_typed (const char *values, int type, const char *low, const char *high)
{
  char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *meta = tu_node_new (1, type, "## process_group:init ##");
      tu_node_inputs (meta, values);
      ChakraProtoMsg__Node *ar = tu_coll (2, ALL_REDUCE, 4096);
      const char *pg = r < 2 ? low : high;
      if (pg != NULL)
        tu_node_attr_string (ar, "pg_name", pg);
      tu_node_dep (ar, 1);
      ChakraProtoMsg__Node *nodes[] = { meta, ar };
      tu_write_rank (prefix, r, nodes, G_N_ELEMENTS (nodes));
    }
  return prefix;
}

static char *
write_traces (const char *values, const char *low, const char *high)
{
  return write_traces_typed (values, T_METADATA, low, high);
}

static int
run_cmd (char **out, const char *prefix)
{
  g_autofree char *cfg = write_config ();
  return tu_run_workload (out, cfg, prefix);
}

/* The trace set PREFIX runs (exit 0) and every rank finishes at T (a
 * regex: the summary's "finish" row, min, median and max alike); inspect
 * accepts it. */
static void
assert_set_runs (const char *prefix, const char *t)
{
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 0);
  g_autofree char *want = g_strdup_printf ("\n  finish +%s +%s +%s\n", t, t, t);
  ck_assert_msg (g_regex_match_simple (want, out, 0, 0), "want '%s' in:\n%s", want, out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 0);
}

/* VALUES in a METADATA node, with collectives on LOW and HIGH: as
 * assert_set_runs. */
static void
assert_runs (const char *values, const char *low, const char *high, const char *t)
{
  g_autofree char *prefix = write_traces (values, low, high);
  assert_set_runs (prefix, t);
}

/* VALUES is refused by run (exit 1) and reported by inspect, both with
 * WHAT after "PATH: node 1: ". */
static void
assert_refused (const char *values, const char *what)
{
  g_autofree char *prefix = write_traces (values, "1", "2");
  g_autofree char *want = g_strdup_printf ("%s.0.et: node 1: %s", prefix, what);
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_cmd (&out, prefix), 1);
  ck_assert_msg (strstr (out, want) != NULL, "run: want '%s' in:\n%s", want, out);
  g_autofree char *ins = NULL;
  ck_assert_int_eq (tu_inspect (&ins, prefix), 1);
  ck_assert_msg (strstr (ins, want) != NULL, "inspect: want '%s' in:\n%s", want, ins);
}

/* The bare JSON list (orrery's own form before, hand-made traces). */
START_TEST (test_bare_list)
{
  assert_runs ("[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]",
               "1", "2", PAIRS_NS);
}
END_TEST

/* What chakra_converter PyTorch writes: str() of a list holding the
 * execution trace's JSON text, with PyTorch's keys (pg_desc,
 * backend_config, pg_size) beside pg_name and ranks. */
START_TEST (test_converter_form)
{
  assert_runs ("['[{\"pg_name\": \"1\", \"pg_desc\": \"dp_a\", \"backend_config\": \"cuda:nccl\", "
               "\"pg_size\": 2, \"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"pg_desc\": \"dp_b\", "
               "\"backend_config\": \"cuda:nccl\", \"pg_size\": 2, \"ranks\": [2, 3]}]']",
               "1", "2", PAIRS_NS);
}
END_TEST

/* Python escapes a single quote and doubles a backslash inside the
 * quoted string (a pg_desc of «it's a \ group», which the JSON writes as
 * "it's a \\ group"). */
START_TEST (test_converter_form_escapes)
{
  assert_runs ("['[{\"pg_name\": \"1\", \"pg_desc\": \"it\\'s a \\\\\\\\ group\", "
               "\"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]']",
               "1", "2", PAIRS_NS);
}
END_TEST

/* Several strings in the list: each one's groups, in order. */
START_TEST (test_converter_form_two_strings)
{
  assert_runs ("['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]', "
               "'[{\"pg_name\": \"2\", \"ranks\": [2, 3]}]']",
               "1", "2", PAIRS_NS);
}
END_TEST

/* A JSON list of strings (the execution trace's own "values" array, as a
 * JSON writer serialises it). */
START_TEST (test_json_list_of_strings)
{
  assert_runs ("[\"[{\\\"pg_name\\\": \\\"1\\\", \\\"ranks\\\": [0, 1]}, "
               "{\\\"pg_name\\\": \\\"2\\\", \\\"ranks\\\": [2, 3]}]\"]",
               "1", "2", PAIRS_NS);
}
END_TEST

/* A Python literal of the objects themselves (single quotes, a tuple,
 * None). */
START_TEST (test_python_objects)
{
  assert_runs ("[{'pg_name': '1', 'ranks': [0, 1], 'pg_desc': None}, "
               "{'pg_name': '2', 'ranks': (2, 3), 'is_world': False}]",
               "1", "2", PAIRS_NS);
}
END_TEST

/* pg_name as a JSON integer, and as "2.0". */
START_TEST (test_numeric_pg_name)
{
  assert_runs ("['[{\"pg_name\": 1, \"ranks\": [0, 1]}, "
               "{\"pg_name\": \"2.0\", \"ranks\": [2, 3]}]']",
               "1", "2", PAIRS_NS);
}
END_TEST

/* The world group as PyTorch writes it: ranks absent, null or empty. */
START_TEST (test_world_ranks_absent)
{
  assert_runs ("['[{\"pg_name\": \"3\", \"pg_desc\": \"default_pg\", \"pg_size\": 4}]']", "3", "3",
               WORLD_NS);
}
END_TEST

START_TEST (test_world_ranks_null_or_empty)
{
  assert_runs ("['[{\"pg_name\": \"3\", \"ranks\": null}]']", "3", "3", WORLD_NS);
  assert_runs ("['[{\"pg_name\": \"3\", \"ranks\": []}]']", "3", "3", WORLD_NS);
}
END_TEST

/* No groups at all: an empty list, bare or wrapped (the converter's
 * "values": [] gives "[]"). */
START_TEST (test_no_groups)
{
  assert_runs ("[]", NULL, NULL, WORLD_NS);
  assert_runs ("['[]']", NULL, NULL, WORLD_NS);
}
END_TEST

/* Python's own escapes decoded: a JSON escaped quote in pg_desc arrives
 * as \\" (json-glib, which takes '...' as a string too, would end the
 * desc there). */
START_TEST (test_converter_form_escaped_quote)
{
  assert_runs ("['[{\"pg_name\": \"1\", \"pg_desc\": \"a \\\\\"b\\\\\" c\", "
               "\"ranks\": [0, 1]}, {\"pg_name\": \"2\", \"ranks\": [2, 3]}]']",
               "1", "2", PAIRS_NS);
}
END_TEST

/* Before chakra 7750db3 (Dec 2024) the converter wrote the
 * process_group:init node as a COMP_NODE: its groups count all the same. */
START_TEST (test_converter_comp_node)
{
  g_autofree char *prefix
      = write_traces_typed ("['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                            "{\"pg_name\": \"2\", \"ranks\": [2, 3]}]']",
                            T_COMP, "1", "2");
  assert_set_runs (prefix, PAIRS_NS);
}
END_TEST

/* Malformed lists: an input error naming the file and the node. */
START_TEST (test_cut_short)
{
  assert_refused ("['[{\"pg_name\": \"1\", \"ranks\": [0, 1]}",
                  "METADATA node's process-group JSON does not parse");
}
END_TEST

START_TEST (test_name_not_numeric)
{
  assert_refused ("['[{\"pg_name\": \"default_pg\", \"ranks\": [0, 1]}]']",
                  "METADATA process group needs a numeric \"pg_name\"");
}
END_TEST

START_TEST (test_ranks_not_a_list)
{
  assert_refused ("['[{\"pg_name\": \"1\", \"ranks\": \"0, 1\"}]']",
                  "METADATA process group \"ranks\" must be a list");
}
END_TEST

/* A list in a string in a list in a string: wrapped once too often. */
START_TEST (test_wrapped_twice)
{
  assert_refused ("[\"[\\\"[{\\\\\\\"pg_name\\\\\\\": \\\\\\\"1\\\\\\\", "
                  "\\\\\\\"ranks\\\\\\\": [0, 1]}]\\\"]\"]",
                  "METADATA process-group list in a string must hold groups");
}
END_TEST

START_TEST (test_list_in_list)
{
  assert_refused ("[[{\"pg_name\": \"1\", \"ranks\": [0, 1]}]]",
                  "METADATA process-group list items must be groups or strings holding a list");
}
END_TEST

/* A string left open at the end (the scan for Python quotes once read
 * past the text: fuzz regression group-list-unclosed-string-overflow). */
START_TEST (test_unclosed_string)
{
  assert_refused ("[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, \"pg_name\\",
                  "METADATA node's process-group JSON does not parse");
}
END_TEST

/* A Python escape no repr writes (\q) leaves a text that is neither JSON
 * nor a Python literal. */
START_TEST (test_bad_python_escape)
{
  assert_refused ("['[{\"pg_name\": \"1\\q\", \"ranks\": [0, 1]}]']",
                  "METADATA node's process-group JSON does not parse");
}
END_TEST

static Suite *
metadata_forms_suite (void)
{
  Suite *s = suite_create ("metadata_forms");
  TCase *tc = tcase_create ("core");
  tcase_add_checked_fixture (tc, tu_scratch_setup, tu_scratch_teardown);
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_bare_list);
  tcase_add_test (tc, test_converter_form);
  tcase_add_test (tc, test_converter_form_escapes);
  tcase_add_test (tc, test_converter_form_two_strings);
  tcase_add_test (tc, test_converter_form_escaped_quote);
  tcase_add_test (tc, test_converter_comp_node);
  tcase_add_test (tc, test_json_list_of_strings);
  tcase_add_test (tc, test_python_objects);
  tcase_add_test (tc, test_numeric_pg_name);
  tcase_add_test (tc, test_world_ranks_absent);
  tcase_add_test (tc, test_world_ranks_null_or_empty);
  tcase_add_test (tc, test_no_groups);
  tcase_add_test (tc, test_cut_short);
  tcase_add_test (tc, test_name_not_numeric);
  tcase_add_test (tc, test_ranks_not_a_list);
  tcase_add_test (tc, test_wrapped_twice);
  tcase_add_test (tc, test_list_in_list);
  tcase_add_test (tc, test_bad_python_escape);
  tcase_add_test (tc, test_unclosed_string);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return tu_run_suite (metadata_forms_suite ());
}
