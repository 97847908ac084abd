/* test_names.c: names copied from traces into orrery's outputs (issue 19,
 * items 7 and 3), through the built program.
 *
 * A node name or pg_name holds whatever bytes the trace gives: bytes that
 * are not UTF-8 must not make the JSON report invalid (orrery's own
 * plot-data read it back and refused it), and terminal escape sequences
 * must not reach the terminal through the summary, inspect's defects or a
 * message: they are shown as \xNN.  A METADATA node's process-group JSON
 * nested 200,000 deep is refused (it overflowed json-glib's stack).
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "support/testutil.h"

enum
{
  T_COMP = 4
};

/* Not UTF-8 (0xff), an escape sequence that sets the terminal's title,
 * one that turns text red, DEL and a C1 control (U+009B, CSI). */
static const char hostile[] = "mm\xff\x1b]0;owned\x07\x1b[31mred\x7f\xc2\x9b";

static char *
write_config (void)
{
  return tu_write_file ("ring.xml",
                        "<?xml version=\"1.0\"?>\n"
                        "<cluster name=\"one\" rounding=\"ps\">\n"
                        "  <network model=\"analytical\">\n"
                        "    <dim kind=\"Ring\" size=\"1\" bandwidth=\"1GB/s\""
                        " latency=\"100ns\"/>\n"
                        "  </network>\n"
                        "</cluster>\n");
}

/* No byte of the terminal's controls in TEXT: no ESC, BEL, DEL or CSI. */
static void
assert_no_controls (const char *text)
{
  ck_assert_msg (strchr (text, '\x1b') == NULL, "ESC in: %s", text);
  ck_assert_msg (strchr (text, '\x07') == NULL, "BEL in output");
  ck_assert_msg (strchr (text, '\x7f') == NULL, "DEL in output");
  ck_assert_msg (strstr (text, "\xc2\x9b") == NULL, "CSI in output");
}

START_TEST (test_report_and_summary)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *prefix = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[1] = { tu_node_new (1, T_COMP, hostile) };
  tu_node_attr_int (nodes[0], "duration_micros", 5);
  tu_write_rank (prefix, 0, nodes, 1);
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *out = NULL;
  const char *argv[] = { tu_orrery (), "run",    "--config",        cfg, "--workload",
                         prefix,       "--report", report, "--critical-path", "5",
                         NULL };
  ck_assert_int_eq (tu_run (&out, argv), 0);
  assert_no_controls (out);
  ck_assert_msg (strstr (out, "mm\\xff\\x1b]0;owned\\x07\\x1b[31mred\\x7f\\xc2\\x9b") != NULL,
                 "%s", out);

  /* The report is valid JSON, the name's bad byte U+FFFD. */
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  ck_assert_msg (json_parser_load_from_file (parser, report, &error), "%s",
                 error != NULL ? error->message : "");
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (report, &text, NULL, NULL));
  ck_assert (g_utf8_validate (text, -1, NULL));
  ck_assert_msg (strstr (text, "mm\xef\xbf\xbd\\u001b]0;owned\\u0007\\u001b[31mred\\u007f\xc2\x9b")
                     != NULL,
                 "%s", text);

  g_autofree char *dir = tu_scratch_path ("plot");
  g_autofree char *plot_out = NULL;
  const char *plot[] = { tu_orrery (), "plot-data", report, dir, NULL };
  ck_assert_msg (tu_run (&plot_out, plot) == 0, "%s", plot_out);
}
END_TEST

/* Two ranks disagree on the collective of group HOSTILE: inspect names it
 * in a defect, run in its error. */
START_TEST (test_inspect_and_messages)
{
  g_autofree char *cfg = tu_write_file ("ring2.xml",
                                        "<?xml version=\"1.0\"?>\n"
                                        "<cluster name=\"two\" rounding=\"ps\">\n"
                                        "  <network model=\"analytical\">\n"
                                        "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\""
                                        " latency=\"100ns\"/>\n"
                                        "  </network>\n"
                                        "  <groups><group id=\"7\" ranks=\"0-1\"/></groups>\n"
                                        "</cluster>\n");
  g_autofree char *prefix = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *nodes[1] = { tu_coll (1, r == 0 ? 0 : 2, 1024) };
      tu_node_attr_string (nodes[0], "pg_name", hostile);
      tu_write_rank (prefix, r, nodes, 1);
    }
  g_autofree char *out = NULL;
  const char *inspect[] = { tu_orrery (), "inspect", prefix, NULL };
  int status = tu_run (&out, inspect);
  ck_assert_msg (status == 1, "exit %d: %s", status, out);
  assert_no_controls (out);
  ck_assert_msg (strstr (out, "\\x1b]0;owned\\x07") != NULL, "%s", out);

  g_autofree char *run_out = NULL;
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", prefix, NULL };
  status = tu_run (&run_out, run);
  ck_assert_msg (status == 1, "exit %d: %s", status, run_out);
  assert_no_controls (run_out);
  ck_assert_msg (strstr (run_out, "\\x1b]0;owned\\x07") != NULL, "%s", run_out);
}
END_TEST

START_TEST (test_metadata_deep)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *prefix = tu_scratch_path ("wl");
  GString *deep = g_string_new ("[{\"pg_name\": \"1\", \"ranks\": ");
  for (int i = 0; i < 200000; i++)
    g_string_append_c (deep, '[');
  for (int i = 0; i < 200000; i++)
    g_string_append_c (deep, ']');
  g_string_append (deep, "}]");
  ChakraProtoMsg__Node *nodes[2];
  nodes[0] = tu_node_new (1, 1 /* METADATA */, "groups");
  tu_node_inputs (nodes[0], deep->str);
  nodes[1] = tu_coll (2, 0, 1024);
  tu_node_attr_string (nodes[1], "pg_name", "1");
  tu_node_dep (nodes[1], 1);
  tu_write_rank (prefix, 0, nodes, 2);
  g_string_free (deep, TRUE);
  g_autofree char *out = NULL;
  const char *run[] = { tu_orrery (), "run", "--config", cfg, "--workload", prefix, NULL };
  ck_assert_msg (tu_run (&out, run) == 1, "%s", out);
  ck_assert_msg (strstr (out, "nests deeper than 256 levels") != NULL, "%s", out);
}
END_TEST

static Suite *
names_suite (void)
{
  Suite *s = suite_create ("names");
  TCase *tc = tu_tcase (s, "names", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_report_and_summary);
  tcase_add_test (tc, test_inspect_and_messages);
  tcase_add_test (tc, test_metadata_deep);
  return s;
}

int
main (void)
{
  return tu_run_suite (names_suite ());
}
