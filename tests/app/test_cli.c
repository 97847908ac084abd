/* test_cli.c: the orrery program as a user runs it: exit codes, one-line
 * errors that name the file, the JSON report's structure and sums, and
 * byte-identical reports from two runs of the same inputs.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "sim/app/cli.h"
#include "support/modes.h"
#include "support/testutil.h"
#include "workload/wl_error.h"

/* A 4-rank ring at exactly 1 byte per ns, 100 ns per hop, no endpoint delay,
 * reductions at 1000 GB/s with 3 passes. */
static char *
write_config (void)
{
  char *path = tu_scratch_path ("ring4.xml");
  const char *xml
      = "<?xml version=\"1.0\"?>\n"
        "<cluster name=\"ring4\" rounding=\"ps\">\n"
        "  <network model=\"analytical\">\n"
        "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
        "  </network>\n"
        "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\" active-chunks-per-dim=\"1\"\n"
        "          splits=\"1\" local-mem-bw=\"1000GB/s\" reduction-passes=\"3\"/>\n"
        "</cluster>\n";
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  return path;
}

static char *
gen (const char *kind, const char *ranks, const char *bytes)
{
  char *prefix = tu_scratch_path (kind);
  const char *argv[] = { tu_orrery (), "gen", "collective", "--type", kind, "--ranks", ranks,
                         "--bytes", bytes, "--out", prefix, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 0);
  return prefix;
}

/* Ring all-reduce of 1000 bytes on 4 ranks: 6 steps of 250 bytes, each
 * 100 ns + 250 ns; 3 reducing steps of 3 passes over 250 bytes at 1e12 B/s
 * (250 ps each): 6 x 350 ns + 9 x 250 ps = 2,102,250 ps. */
START_TEST (test_report_values_and_determinism)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *wl = gen ("all_reduce", "4", "1000B");
  g_autofree char *r1 = tu_scratch_path ("r1.json");
  g_autofree char *r2 = tu_scratch_path ("r2.json");
  const char *argv1[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, "--report", r1, NULL };
  const char *argv2[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", wl, "--report", r2, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run_modes (&out, argv1), 0);
  ck_assert_msg (strstr (out, "simulated time: 2.102 us") != NULL, "%s", out);
  ck_assert_int_eq (tu_run_modes (NULL, argv2), 0);

  g_autofree char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  g_assert_true (g_file_get_contents (r1, &a, &la, NULL));
  g_assert_true (g_file_get_contents (r2, &b, &lb, NULL));
  ck_assert_uint_eq (la, lb);
  ck_assert (memcmp (a, b, la) == 0);

  g_autoptr (JsonParser) parser = json_parser_new ();
  GError *error = NULL;
  json_parser_load_from_data (parser, a, (gssize) la, &error);
  g_assert_no_error (error);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  ck_assert_int_eq (json_object_get_int_member (root, "schema_version"), 3);
  ck_assert_int_eq (json_object_get_int_member (root, "simulated_time_ps"), 2102250);
  ck_assert_int_eq (json_object_get_int_member (root, "simulated_time_ns"), 2102);
  JsonArray *ranks = json_object_get_array_member (root, "ranks");
  ck_assert_uint_eq (json_array_get_length (ranks), 4);
  for (guint r = 0; r < 4; r++)
    {
      JsonObject *o = json_array_get_object_element (ranks, r);
      ck_assert_int_eq (json_object_get_int_member (o, "rank"), r);
      gint64 fin = json_object_get_int_member (o, "finish_ps");
      gint64 comp = json_object_get_int_member (o, "compute_ps");
      gint64 exposed = json_object_get_int_member (o, "exposed_comm_ps");
      ck_assert_int_eq (fin, 2102250);
      ck_assert_int_eq (comp + exposed, fin);
    }
  JsonArray *colls = json_object_get_array_member (root, "collectives");
  ck_assert_uint_eq (json_array_get_length (colls), 1);
  JsonObject *c = json_array_get_object_element (colls, 0);
  ck_assert_str_eq (json_object_get_string_member (c, "kind"), "all_reduce");
  ck_assert_int_eq (json_object_get_int_member (c, "size_bytes"), 1000);
}
END_TEST

/* The collectives table's size column is nccl-tests' size, the whole
 * buffer, whatever the trace's comm_size convention (FORMAT.md): two
 * all-gathers of 1000 bytes each rank's input on 4 ranks are 2 x 4 x 1000
 * = 8000 B = 7.8125 KiB (not 2000 B, the inputs); one reduce-scatter of
 * 4000 bytes is its input, 4000 B = 3.906 KiB (not 4 x 4000). */
START_TEST (test_coll_size_column)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *prefix = tu_scratch_path ("ag");
  const char *gen_ag[] = { tu_orrery (), "gen", "collective", "--type", "all_gather", "--ranks",
                           "4", "--bytes", "1000B", "--count", "2", "--out", prefix, NULL };
  ck_assert_int_eq (tu_run (NULL, gen_ag), 0);
  g_autofree char *rs = gen ("reduce_scatter", "4", "4000B");
  const char *wls[] = { prefix, rs };
  const char *rows[] = { "  all_gather     all           4      2   7.81 KiB ",
                         "  reduce_scatter all           4      1   3.91 KiB " };
  for (guint i = 0; i < 2; i++)
    {
      const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wls[i], NULL };
      g_autofree char *out = NULL;
      ck_assert_int_eq (tu_run (&out, argv), 0);
      ck_assert_msg (strstr (out, "count       size  total time") != NULL, "%s", out);
      ck_assert_msg (strstr (out, "size as nccl-tests: all-gather's output") != NULL, "%s", out);
      ck_assert_msg (strstr (out, rows[i]) != NULL, "%s", out);
    }
}
END_TEST

/* A simulation ("run") in every mode (tu_run_modes), other commands once. */
static void
expect_fail (const char *const *argv, int code, const char *needle)
{
  g_autofree char *out = NULL;
  gboolean run = argv[1] != NULL && strcmp (argv[1], "run") == 0;
  ck_assert_int_eq (run ? tu_run_modes (&out, argv) : tu_run (&out, argv), code);
  ck_assert_msg (strstr (out, needle) != NULL, "'%s' not in: %s", needle, out);
}

START_TEST (test_input_errors)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *wl8 = gen ("all_reduce", "8", "1KiB");
  g_autofree char *missing = tu_scratch_path ("nothing");
  const char *no_files[] = { tu_orrery (), "run", "--config", cfg, "--workload", missing, NULL };
  expect_fail (no_files, 1, "nothing.0.et: not found");
  const char *too_many[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl8, NULL };
  expect_fail (too_many, 1, "more trace files than the topology's 4 ranks");

  g_autofree char *bad = tu_scratch_path ("bad.xml");
  g_assert_true (g_file_set_contents (
      bad, "<cluster>\n  <network>\n    <dim kind=\"Ring\" size=\"4\" bandwidth=\"50GB\" latency=\"1ns\"/>\n"
           "  </network>\n</cluster>\n", -1, NULL));
  const char *bad_cfg[] = { tu_orrery (), "run", "--config", bad, "--workload", wl8, NULL };
  g_autofree char *line = g_strdup_printf ("%s:3:", bad);
  expect_fail (bad_cfg, 1, line);

  const char *no_cfg[] = { tu_orrery (), "run", "--workload", wl8, NULL };
  expect_fail (no_cfg, 1, "no configuration");
  const char *no_cmd[] = { tu_orrery (), NULL };
  expect_fail (no_cmd, 1, "usage: orrery COMMAND");
  const char *bad_size[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks",
                             "2", "--bytes", "12", "--out", missing, NULL };
  expect_fail (bad_size, 1, "12");
  const char *help[] = { tu_orrery (), "run", "--help", NULL };
  expect_fail (help, 0, "Exit status: 0 success, 1 usage or input error");
}
END_TEST

/* The exit status is decided by domain and code together (sim/README.md: 0
 * success, 1 usage or input error, 2 internal error, 3 deadlock, 4 limit).
 * Foreign domains number their codes their own way: G_FILE_ERROR_NOENT is 4,
 * G_OPTION_ERROR_FAILED 2, JSON_PARSER_ERROR_INVALID_BAREWORD 4, and none of
 * them is a limit or an internal error: each is a usage or input error. */
START_TEST (test_exit_status_by_domain)
{
  const GQuark ours[] = { SIM_ERROR, WL_ERROR };
  for (guint i = 0; i < G_N_ELEMENTS (ours); i++)
    for (int code = SIM_ERROR_INPUT; code <= SIM_ERROR_LIMIT; code++)
      {
        g_autoptr (GError) e = g_error_new_literal (ours[i], code, "x");
        ck_assert_int_eq (app_cli_exit_status (e), code);
      }
  g_autoptr (GError) no_code = g_error_new_literal (SIM_ERROR, 0, "x");
  ck_assert_int_eq (app_cli_exit_status (no_code), 2);
  g_autoptr (GError) too_big = g_error_new_literal (WL_ERROR, 5, "x");
  ck_assert_int_eq (app_cli_exit_status (too_big), 2);

  struct
  {
    GQuark domain;
    int code;
  } foreign[] = {
    { G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION },
    { G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE },
    { G_OPTION_ERROR, G_OPTION_ERROR_FAILED },
    { G_FILE_ERROR, G_FILE_ERROR_ACCES },
    { G_FILE_ERROR, G_FILE_ERROR_NOENT },
    { G_IO_ERROR, G_IO_ERROR_NOT_FOUND },
    { G_IO_ERROR, G_IO_ERROR_NOT_DIRECTORY },
    { JSON_PARSER_ERROR, JSON_PARSER_ERROR_MISSING_COLON },
    { JSON_PARSER_ERROR, JSON_PARSER_ERROR_INVALID_BAREWORD },
    { G_MARKUP_ERROR, G_MARKUP_ERROR_PARSE },
    { G_CONVERT_ERROR, G_CONVERT_ERROR_PARTIAL_INPUT },
  };
  for (guint i = 0; i < G_N_ELEMENTS (foreign); i++)
    {
      g_autoptr (GError) e = g_error_new_literal (foreign[i].domain, foreign[i].code, "x");
      ck_assert_msg (app_cli_exit_status (e) == 1, "%s code %d gives %d",
                     g_quark_to_string (e->domain), e->code, app_cli_exit_status (e));
    }
}
END_TEST

/* Errors of GLib's option parser and of reading files reach the commands
 * as they are: each exits 1, with the command's name. */
START_TEST (test_foreign_errors_exit_1)
{
  g_autofree char *missing = tu_scratch_path ("nothing");
  const char *unknown[] = { tu_orrery (), "run", "--no-such-option", NULL };
  expect_fail (unknown, 1, "orrery run: ");
  const char *bad_value[] = { tu_orrery (), "run", "--critical-path", "many", NULL };
  expect_fail (bad_value, 1, "orrery run: ");
  const char *bad_int[] = { tu_orrery (), "gen", "collective", "--ranks", "x", NULL };
  expect_fail (bad_int, 1, "orrery gen collective: ");
  const char *no_report[] = { tu_orrery (), "plot-data", missing, missing, NULL };
  expect_fail (no_report, 1, "orrery plot-data: ");
  const char *no_sweep[] = { tu_orrery (), "sweep", "points", missing, NULL };
  expect_fail (no_sweep, 1, "orrery sweep points: ");
}
END_TEST

/* Rank 3 never joins the all-reduce the others wait in, and waits itself for
 * a message no one sends: the run deadlocks, exit status 3, and the report
 * names both. */
START_TEST (test_deadlock_exit_code)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *wl = gen ("all_reduce", "3", "1000B");
  /* A fourth rank whose trace has a receive no one sends to. */
  g_autofree char *p3 = g_strdup_printf ("%s.3.et", wl);
  ChakraProtoMsg__Node *recv = tu_node_new (7, 6, "recv");
  tu_node_attr_int (recv, "comm_src", 0);
  tu_node_attr_int (recv, "comm_dst", 3);
  tu_node_attr_int (recv, "comm_size", 64);
  ChakraProtoMsg__Node *nodes[] = { recv };
  tu_write_trace (p3, nodes, 1);
  tu_node_free (recv);
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run_modes (&out, argv), 3);
  ck_assert_msg (strstr (out, "deadlock") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "3 of 4 ranks joined: 0,1,2; never joined: 3") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "rank 3 node 7 waits to receive 64 bytes from rank 0") != NULL, "%s",
                 out);
}
END_TEST

/* --links: the same all-reduce on the congestion model (one hop per
 * message between ring neighbours: the same times) writes one row per
 * directed ring link: the clockwise ones carry 6 steps x 250 bytes, the
 * others nothing.  The analytical model has no links: an error, before
 * simulating. */
START_TEST (test_links_csv)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *wl = gen ("all_reduce", "4", "1000B");
  g_autofree char *csv = tu_scratch_path ("links.csv");
  const char *argv[] = { tu_orrery (), "run", "-q", "--network-model", "congestion", "--config",
                         cfg, "--workload", wl, "--links", csv, NULL };
  ck_assert_int_eq (tu_run_modes (NULL, argv), 0);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  ck_assert_str_eq (lines[0], "link,dim,from,to,bytes,messages,busy_ns,utilization,peak_queue");
  ck_assert_uint_eq (g_strv_length (lines), 1 + 8 + 1);
  for (guint i = 0; i < 8; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[1 + i], ",", -1);
      guint r = i / 2;
      g_autofree char *from = g_strdup_printf ("r%u", r);
      g_autofree char *to = g_strdup_printf ("r%u", i % 2 == 0 ? (r + 1) % 4 : (r + 3) % 4);
      ck_assert_str_eq (f[2], from);
      ck_assert_str_eq (f[3], to);
      ck_assert_str_eq (f[4], i % 2 == 0 ? "1500" : "0");
      ck_assert_str_eq (f[8], "0");
    }
  /* --stats: one row per rank; each rank's finish is the all-reduce's
   * closed form of test_report_values_and_determinism, all of it exposed. */
  g_autofree char *stats = tu_scratch_path ("stats.csv");
  const char *sargv[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", wl,
                          "--stats", stats, NULL };
  ck_assert_int_eq (tu_run_modes (NULL, sargv), 0);
  g_autofree char *stext = NULL;
  g_assert_true (g_file_get_contents (stats, &stext, NULL, NULL));
  g_auto (GStrv) srows = g_strsplit (stext, "\n", -1);
  ck_assert_str_eq (srows[0],
                    "rank,finish_ps,compute_ps,exposed_comm_ps,idle_ps,after_finish_ps,"
                    "comm_busy_ps,cpu_ps,nodes,pipeline_bubble_ps,model_flops,hardware_flops");
  ck_assert_uint_eq (g_strv_length (srows), 1 + 4 + 1);
  ck_assert_str_eq (srows[3], "2,2102250,0,2102250,0,0,2102250,0,1,0,0,0");
  const char *analytical[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", wl,
                               "--links", csv, NULL };
  expect_fail (analytical, 1, "has no links; use --network-model congestion or flow");
  /* Refused before simulating: no summary was printed. */
  const char *loud[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                         "--links", csv, NULL };
  g_autofree char *aout = NULL;
  ck_assert_int_eq (tu_run_modes (&aout, loud), 1);
  ck_assert_msg (strstr (aout, "simulated time") == NULL, "simulated before refusing: %s", aout);
}
END_TEST

/* A dangling dependency on every rank: refused as it stands (exit 1,
 * naming the file, the node and the missing id); with --lenient the
 * dependency is dropped, the summary says so, and the compute node runs at
 * once: each rank finishes after its 3 us. */
START_TEST (test_lenient)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *wl = tu_scratch_path ("messy");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *c = tu_comp (1, 3);
      tu_node_dep (c, 99);
      ChakraProtoMsg__Node *nodes[] = { c };
      tu_write_rank (wl, r, nodes, 1);
    }
  const char *strict[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, NULL };
  g_autofree char *err = NULL;
  ck_assert_int_eq (tu_run_modes (&err, strict), 1);
  ck_assert_msg (strstr (err, "messy.0.et") != NULL && strstr (err, "99") != NULL
                     && strstr (err, "dangling") != NULL, "%s", err);
  const char *lenient[] = { tu_orrery (), "run", "--lenient", "--config", cfg, "--workload", wl,
                            NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run_modes (&out, lenient), 0);
  ck_assert_msg (strstr (out, "lenient:") != NULL && strstr (out, "dangling") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "simulated time: 3.000 us") != NULL, "%s", out);
}
END_TEST

/* The summary's network line says how oversubscribed a fat-tree is, which
 * its dimensions do not show: k 4 has k/2 = 2 uplinks per edge switch and
 * o k/2 hosts under it, o k^3/4 ranks in all (configs/README.md). */
START_TEST (test_fat_tree_line)
{
  static const struct
  {
    const char *o, *ranks, *want;
  } cases[] = {
    { "1", "16", ": a fat-tree of k 4, not oversubscribed (1:1)\n" },
    { "2", "32", ": a fat-tree of k 4, 2:1 oversubscribed (4 hosts share an edge switch's "
                 "2 uplinks)\n" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("ft%u.xml", i);
      g_autofree char *xml = g_strdup_printf (
          "<cluster name=\"ft\" rounding=\"ps\">\n"
          "  <network model=\"analytical\">\n"
          "    <fat-tree k=\"4\" oversubscription=\"%s\" bandwidth=\"400Gb/s\" latency=\"1us\"/>\n"
          "  </network>\n"
          "</cluster>\n", cases[i].o);
      g_autofree char *cfg = tu_write_file (name, xml);
      g_autofree char *wl = gen ("all_reduce", cases[i].ranks, "1KiB");
      const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, NULL };
      g_autofree char *out = NULL;
      ck_assert_int_eq (tu_run (&out, argv), 0);
      ck_assert_msg (strstr (out, cases[i].want) != NULL, "want %s in\n%s", cases[i].want, out);
    }
}
END_TEST

static Suite *
cli_suite (void)
{
  Suite *s = suite_create ("cli");
  TCase *tc = tu_tcase (s, "cli", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_report_values_and_determinism);
  tcase_add_test (tc, test_coll_size_column);
  tcase_add_test (tc, test_input_errors);
  tcase_add_test (tc, test_exit_status_by_domain);
  tcase_add_test (tc, test_foreign_errors_exit_1);
  tcase_add_test (tc, test_deadlock_exit_code);
  tcase_add_test (tc, test_links_csv);
  tcase_add_test (tc, test_lenient);
  tcase_add_test (tc, test_fat_tree_line);
  return s;
}

int
main (void)
{
  return tu_run_suite (cli_suite ());
}
