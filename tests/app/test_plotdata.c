/* test_plotdata.c: gnuplot data files from hand-written JSON reports.
 *
 * The reports are written here, small enough to check by hand: every
 * expected millisecond figure is the report's picoseconds divided by 10^9,
 * written out, and every expected overview line holds the report's compute
 * and comm shares with six decimals and idle = 1 - compute - comm (the rule
 * in plotdata.h).  Each test gets a fresh scratch directory.
 */
#include <check.h>
#include <string.h>

#include "sim/app/plotdata.h"
#include "sim/error.h"
#include "support/testutil.h"

/* The contents of tu_scratch/out/name, which must exist. */
static char *
read_out (const char *name)
{
  g_autofree char *path = g_build_filename (tu_scratch, "out", name, NULL);
  char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "%s not written", path);
  return text;
}

static gboolean
out_exists (const char *name)
{
  g_autofree char *path = g_build_filename (tu_scratch, "out", name, NULL);
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

/* Run app_plot_data on report text into tu_scratch/out, which must work. */
static void
plot_ok (const char *report)
{
  g_autofree char *path = tu_write_file ("report.json", report);
  g_autofree char *out = tu_scratch_path ("out");
  GError *error = NULL;
  ck_assert_msg (app_plot_data (path, out, &error), "%s", error ? error->message : "");
}

/* Run app_plot_data on report text: it must fail with an input error that
 * names the file and holds needle, and write nothing. */
static void
plot_fails (const char *report, const char *needle)
{
  g_autofree char *path = tu_write_file ("report.json", report);
  g_autofree char *out = tu_scratch_path ("out");
  GError *error = NULL;
  ck_assert_msg (!app_plot_data (path, out, &error), "accepted, expected '%s'", needle);
  tu_assert_input_error (error, path);
  tu_assert_input_error (error, needle);
  g_clear_error (&error);
  ck_assert (!out_exists ("ranks.dat"));
}

/* 10.000000003 ms in 4 bins of 2.500000001 ms; the bins' middles are
 * b x 2500000001 + 1250000000 ps. */
static const char report_v2[]
    = "{\n"
      "  \"schema_version\": 2,\n"
      "  \"simulated_time_ns\": 10000000, \"simulated_time_ps\": 10000000003,\n"
      "  \"ranks\": [\n"
      "    { \"rank\": 0, \"finish_ps\": 10000000003, \"compute_ps\": 6000000000,\n"
      "      \"exposed_comm_ps\": 4000000003, \"idle_ps\": 0, \"after_finish_ps\": 0,\n"
      "      \"nodes\": 7 },\n"
      "    { \"rank\": 1, \"finish_ps\": 7500000000, \"compute_ps\": 2500000000,\n"
      "      \"exposed_comm_ps\": 1000000000, \"idle_ps\": 4000000000,\n"
      "      \"after_finish_ps\": 2500000003 },\n"
      "    { \"rank\": 2, \"finish_ps\": 1000000, \"compute_ps\": 999999,\n"
      "      \"exposed_comm_ps\": 1, \"idle_ps\": 0, \"after_finish_ps\": 9999000003 }\n"
      "  ],\n"
      "  \"overview\": {\n"
      "    \"bins\": 4, \"bin_ps\": 2500000001,\n"
      "    \"ranks\": [\n"
      "      { \"rank\": 0, \"compute\": [1, 0.5, 0.4, 0.0], \"comm\": [0, 0.5, 0.3, 0.9] },\n"
      "      { \"rank\": 1, \"compute\": [0.2, 0, 0.25, 0], \"comm\": [0.5, 0.3, 0.25, 0] },\n"
      "      { \"rank\": 2, \"compute\": [0.25, 0, 0, 0], \"comm\": [0.5, 0.5, 0.25, 1.0] }\n"
      "    ]\n"
      "  }\n"
      "}\n";

START_TEST (test_v2_ranks)
{
  plot_ok (report_v2);
  g_autofree char *ranks = read_out ("ranks.dat");
  ck_assert_str_eq (ranks, "# rank compute_ms exposed_comm_ms idle_ms after_finish_ms "
                           "pipeline_bubble_ms (exposed less the bubble)\n"
                           "0 6.000000000 4.000000003 0.000000000 0.000000000 0.000000000\n"
                           "1 2.500000000 1.000000000 4.000000000 2.500000003 0.000000000\n"
                           "2 0.000999999 0.000000001 0.000000000 9.999000003 0.000000000\n");
  g_autofree char *meta = read_out ("meta.gp");
  ck_assert_str_eq (meta, "# the run, for the plot's ranges\n"
                          "schema_version = 2\n"
                          "simulated_ms = 10.000000003\n"
                          "ranks = 3\n"
                          "overview = 1\n"
                          "bubble = 0\n"
                          "bins = 4\n"
                          "bin_ms = 2.500000001\n");
}
END_TEST

START_TEST (test_v2_overview)
{
  plot_ok (report_v2);
  g_autofree char *ov = read_out ("overview.dat");
  /* Each bin's shares as given, idle the rest: a bin half compute and
   * half communication shows both halves, not a majority state. */
  ck_assert_str_eq (ov, "# time_ms rank compute comm idle bubble "
                        "(bin middle; shares of the bin, adding up to 1; comm less the "
                        "bubble)\n"
                        "1.250000000 0 1.000000 0.000000 0.000000 0.000000\n"
                        "3.750000001 0 0.500000 0.500000 0.000000 0.000000\n"
                        "6.250000002 0 0.400000 0.300000 0.300000 0.000000\n"
                        "8.750000003 0 0.000000 0.900000 0.100000 0.000000\n"
                        "\n"
                        "1.250000000 1 0.200000 0.500000 0.300000 0.000000\n"
                        "3.750000001 1 0.000000 0.300000 0.700000 0.000000\n"
                        "6.250000002 1 0.250000 0.250000 0.500000 0.000000\n"
                        "8.750000003 1 0.000000 0.000000 1.000000 0.000000\n"
                        "\n"
                        "1.250000000 2 0.250000 0.500000 0.250000 0.000000\n"
                        "3.750000001 2 0.000000 0.500000 0.500000 0.000000\n"
                        "6.250000002 2 0.000000 0.250000 0.750000 0.000000\n"
                        "8.750000003 2 0.000000 1.000000 0.000000 0.000000\n"
                        "\n");
}
END_TEST

START_TEST (test_deterministic)
{
  plot_ok (report_v2);
  g_autofree char *ranks1 = read_out ("ranks.dat");
  g_autofree char *ov1 = read_out ("overview.dat");
  plot_ok (report_v2);
  g_autofree char *ranks2 = read_out ("ranks.dat");
  g_autofree char *ov2 = read_out ("overview.dat");
  ck_assert_str_eq (ranks1, ranks2);
  ck_assert_str_eq (ov1, ov2);
}
END_TEST

/* Schema 1: no idle_ps or after_finish_ps, no overview.  Written over the
 * files of a v2 report: the old overview.dat must go. */
START_TEST (test_v1)
{
  plot_ok (report_v2);
  ck_assert (out_exists ("overview.dat"));
  plot_ok ("{ \"schema_version\": 1, \"simulated_time_ps\": 3000000000,\n"
           "  \"ranks\": [\n"
           "    { \"rank\": 0, \"finish_ps\": 3000000000, \"compute_ps\": 1000000000,\n"
           "      \"exposed_comm_ps\": 2000000000 },\n"
           "    { \"rank\": 1, \"finish_ps\": 1500000, \"compute_ps\": 1500000,\n"
           "      \"exposed_comm_ps\": 0 } ] }\n");
  g_autofree char *ranks = read_out ("ranks.dat");
  ck_assert_str_eq (ranks, "# rank compute_ms exposed_comm_ms idle_ms after_finish_ms "
                           "pipeline_bubble_ms (exposed less the bubble)\n"
                           "0 1.000000000 2.000000000 0.000000000 0.000000000 0.000000000\n"
                           "1 0.001500000 0.000000000 0.000000000 2.998500000 0.000000000\n");
  ck_assert (!out_exists ("overview.dat"));
  g_autofree char *meta = read_out ("meta.gp");
  ck_assert (strstr (meta, "\noverview = 0\n") != NULL);
  ck_assert (strstr (meta, "\nranks = 2\n") != NULL);
}
END_TEST

START_TEST (test_missing_file)
{
  g_autofree char *path = tu_scratch_path ("absent.json");
  g_autofree char *out = tu_scratch_path ("out");
  GError *error = NULL;
  ck_assert (!app_plot_data (path, out, &error));
  tu_assert_input_error (error, path);
  g_clear_error (&error);
}
END_TEST

START_TEST (test_not_json)
{
  plot_fails ("schema_version: 2\n", "");
  plot_fails ("[ 1, 2 ]\n", "expected a JSON object, got a list");
}
END_TEST

START_TEST (test_bad_members)
{
  static const struct
  {
    const char *report;
    const char *needle;
  } cases[] = {
    { "{ \"schema_version\": 4, \"simulated_time_ps\": 0, \"ranks\": [] }",
      "schema_version 4 is not supported" },
    { "{ \"schema_version\": \"2\", \"simulated_time_ps\": 0, \"ranks\": [] }",
      "member \"schema_version\" must be a whole number, got a string" },
    { "{ \"schema_version\": 2, \"ranks\": [] }", "missing member \"simulated_time_ps\"" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": -1, \"ranks\": [] }",
      "member \"simulated_time_ps\" must be a whole number >= 0, got the number -1" },
    /* 2^64 - 1 is the largest time; 2^64 is none (json-glib kept 2^64 - 1
     * for it), nor is a negative one past -2^63 (json-glib wrapped it). */
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 18446744073709551616, \"ranks\": [] }",
      "member \"simulated_time_ps\" must be a whole number, got the number 1.84467e+19" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": -10000000000000000000, \"ranks\": [] }",
      "member \"simulated_time_ps\" must be a whole number >= 0, got the number -1e+19" },
    /* A whole value written as a fraction: said so (it read "got the
     * number 5", a whole number). */
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5.0, \"ranks\": [] }",
      "member \"simulated_time_ps\" must be a whole number, got 5.0 (a fraction; write 5)" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 0e0, \"ranks\": [] }",
      "member \"simulated_time_ps\" must be a whole number, got 0.0 (a fraction; write 0)" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5 }", "missing member \"ranks\"" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5, \"ranks\": [ 1 ] }",
      "member \"ranks[0]\" must be an object, got the number 1" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5, \"ranks\": [\n"
      "  { \"rank\": 0, \"finish_ps\": 5, \"compute_ps\": 5, \"exposed_comm_ps\": 0,\n"
      "    \"idle_ps\": 0, \"after_finish_ps\": 0 },\n"
      "  { \"rank\": 1, \"finish_ps\": 5, \"compute_ps\": 5, \"exposed_comm_ps\": 0,\n"
      "    \"after_finish_ps\": 0 } ] }",
      "missing member \"ranks[1].idle_ps\"" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5, \"ranks\": [\n"
      "  { \"rank\": 0, \"finish_ps\": 5, \"compute_ps\": 5.5, \"exposed_comm_ps\": 0,\n"
      "    \"idle_ps\": 0, \"after_finish_ps\": 0 } ] }",
      "member \"ranks[0].compute_ps\" must be a whole number, got the number 5.5" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5, \"ranks\": [\n"
      "  { \"rank\": 1, \"finish_ps\": 5, \"compute_ps\": 5, \"exposed_comm_ps\": 0,\n"
      "    \"idle_ps\": 0, \"after_finish_ps\": 0 } ] }",
      "member \"ranks[0].rank\" must be 0 (ranks in order), got 1" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 5, \"ranks\": [\n"
      "  { \"rank\": 0, \"finish_ps\": 5, \"compute_ps\": 4, \"exposed_comm_ps\": 0,\n"
      "    \"idle_ps\": 0, \"after_finish_ps\": 0 } ] }",
      "ranks[0].compute_ps + exposed_comm_ps + idle_ps differs from finish_ps" },
    { "{ \"schema_version\": 2, \"simulated_time_ps\": 6, \"ranks\": [\n"
      "  { \"rank\": 0, \"finish_ps\": 5, \"compute_ps\": 5, \"exposed_comm_ps\": 0,\n"
      "    \"idle_ps\": 0, \"after_finish_ps\": 0 } ] }",
      "ranks[0].finish_ps + after_finish_ps differs from simulated_time_ps" },
    { "{ \"schema_version\": 1, \"simulated_time_ps\": 4, \"ranks\": [\n"
      "  { \"rank\": 0, \"finish_ps\": 5, \"compute_ps\": 5, \"exposed_comm_ps\": 0 } ] }",
      "ranks[0].finish_ps is after simulated_time_ps" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    plot_fails (cases[i].report, cases[i].needle);
}
END_TEST

/* One rank of 5 ps, with the overview given as text. */
static char *
with_overview (const char *overview)
{
  return g_strdup_printf ("{ \"schema_version\": 2, \"simulated_time_ps\": 5, \"ranks\": [\n"
                          "  { \"rank\": 0, \"finish_ps\": 5, \"compute_ps\": 5,\n"
                          "    \"exposed_comm_ps\": 0, \"idle_ps\": 0, \"after_finish_ps\": 0 }\n"
                          "], \"overview\": %s }\n",
                          overview);
}

START_TEST (test_bad_overview)
{
  static const struct
  {
    const char *overview;
    const char *needle;
  } cases[] = {
    { "[]", "member \"overview\" must be an object, got a list" },
    { "{ \"bin_ps\": 5, \"ranks\": [] }", "missing member \"overview.bins\"" },
    { "{ \"bins\": 0, \"bin_ps\": 5, \"ranks\": [] }",
      "member \"overview.bins\" must be a whole number from 1 to 4294967295, got the number 0" },
    /* Too many: the message gives the upper bound (once ">= 1" alone, which
     * 10^12 is). */
    { "{ \"bins\": 1000000000000, \"bin_ps\": 5, \"ranks\": [] }",
      "member \"overview.bins\" must be a whole number from 1 to 4294967295, got the number "
      "1000000000000" },
    { "{ \"bins\": 1, \"ranks\": [] }", "missing member \"overview.bin_ps\"" },
    { "{ \"bins\": 3, \"bin_ps\": 9223372036854775807, \"ranks\": [] }",
      "overview.bins x overview.bin_ps is too large" },
    { "{ \"bins\": 1, \"bin_ps\": 5 }", "missing member \"overview.ranks\"" },
    { "{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [] }",
      "member \"overview.ranks\" has 0 entries, \"ranks\" has 1" },
    { "{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [ { \"rank\": 0, \"comm\": [0] } ] }",
      "missing member \"overview.ranks[0].compute\"" },
    { "{ \"bins\": 2, \"bin_ps\": 3, \"ranks\": [ { \"rank\": 0, \"compute\": [1],"
      " \"comm\": [0, 0] } ] }",
      "member \"overview.ranks[0].compute\" has 1 entries, overview.bins is 2" },
    { "{ \"bins\": 2, \"bin_ps\": 3, \"ranks\": [ { \"rank\": 0, \"compute\": [1, 1],"
      " \"comm\": [0, 1.5] } ] }",
      "member \"overview.ranks[0].comm[1]\" must be a number from 0 to 1, got the number 1.5" },
    { "{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [ { \"rank\": 0, \"compute\": [null],"
      " \"comm\": [0] } ] }",
      "member \"overview.ranks[0].compute[0]\" must be a number from 0 to 1, got null" },
    { "{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [ { \"rank\": 3, \"compute\": [1],"
      " \"comm\": [0] } ] }",
      "member \"overview.ranks[0].rank\" must be 0 (ranks in order), got 3" },
    { "{ \"bins\": 2, \"bin_ps\": 3, \"ranks\": [ { \"rank\": 0, \"compute\": [0.5, 0.75],"
      " \"comm\": [0.5, 0.5] } ] }",
      "overview.ranks[0].compute[1] + overview.ranks[0].comm[1] is 1.25, more than the whole "
      "bin" },
    { "{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [ { \"rank\": 0, \"compute\": [0.5],"
      " \"comm\": [0.25], \"bubble\": [0.5] } ] }",
      "overview.ranks[0].bubble[0] is 0.5, above overview.ranks[0].comm[0] (0.25), which holds "
      "it" },
    { "{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [ { \"rank\": 0, \"compute\": [0.5],"
      " \"comm\": [0.25], \"bubble\": [-1] } ] }",
      "member \"overview.ranks[0].bubble[0]\" must be a number from 0 to 1, got the number -1" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *report = with_overview (cases[i].overview);
      plot_fails (report, cases[i].needle);
    }
}
END_TEST

/* Times past 2^63 ps, as --report writes them (unsigned, app_json_out_uint):
 * read exactly, never wrapped negative.  10^19 ps = 10^10 ms, of which
 * compute 2^63 = 9223372036854775808 ps and exposed communication the rest,
 * 776627963145224192 ps. */
START_TEST (test_past_2_63)
{
  plot_ok ("{ \"schema_version\": 2, \"simulated_time_ps\": 10000000000000000000,\n"
           "  \"ranks\": [ { \"rank\": 0, \"finish_ps\": 10000000000000000000,\n"
           "    \"compute_ps\": 9223372036854775808, \"exposed_comm_ps\": 776627963145224192,\n"
           "    \"idle_ps\": 0, \"after_finish_ps\": 0, \"name\": \"-7 1e99999\" } ] }\n");
  g_autofree char *ranks = read_out ("ranks.dat");
  ck_assert_str_eq (ranks, "# rank compute_ms exposed_comm_ms idle_ms after_finish_ms "
                           "pipeline_bubble_ms (exposed less the bubble)\n"
                           "0 9223372036.854775808 776627963.145224192 0.000000000 0.000000000 "
                           "0.000000000\n");
  g_autofree char *meta = read_out ("meta.gp");
  ck_assert_msg (strstr (meta, "simulated_ms = 10000000000.000000000\n") != NULL, "%s", meta);
}
END_TEST

/* A number with a negative exponent is a number: 1.5e-07 (a member plot-data
 * does not read, as a report's g_ascii_dtostr writes tiny doubles) and
 * 5e-1 (a share of 0.5) were once cut at the exponent's '-' and refused
 * as "Parse error". */
START_TEST (test_negative_exponent)
{
  plot_ok ("{ \"schema_version\": 2, \"simulated_time_ps\": 10000000000000000000,\n"
           "  \"ranks\": [ { \"rank\": 0, \"finish_ps\": 10000000000000000000,\n"
           "    \"compute_ps\": 9223372036854775808, \"exposed_comm_ps\": 776627963145224192,\n"
           "    \"idle_ps\": 0, \"after_finish_ps\": 0, \"mfu\": 1.5e-07 } ],\n"
           "  \"overview\": { \"bins\": 1, \"bin_ps\": 10000000000000000000,\n"
           "    \"ranks\": [ { \"rank\": 0, \"compute\": [5e-1], \"comm\": [2.5E-1] } ] } }\n");
  g_autofree char *ranks = read_out ("ranks.dat");
  ck_assert_msg (strstr (ranks, "\n0 9223372036.854775808 776627963.145224192 ") != NULL, "%s",
                 ranks);
  g_autofree char *ov = read_out ("overview.dat");
  ck_assert_msg (strstr (ov, "0.500000 0.250000 0.250000") != NULL, "%s", ov);
}
END_TEST

/* The output directory is made with its parents. */
/* A native report's exposed_comm_ps holds the pipeline bubble, which the
 * summary counts apart: ranks.dat gives exposed communication less the
 * bubble, and the bubble in its own column.  Rank 0: 4 ms exposed, of
 * which 1.5 ms bubble, so 2.5 ms exposed and 1.5 ms bubble; rank 1 has no
 * bubble.  A bubble above the exposed time that holds it is refused. */
START_TEST (test_bubble)
{
  plot_ok ("{ \"schema_version\": 2, \"simulated_time_ps\": 10000000000,\n"
           "  \"ranks\": [ { \"rank\": 0, \"finish_ps\": 10000000000, \"compute_ps\": 6000000000,\n"
           "    \"exposed_comm_ps\": 4000000000, \"idle_ps\": 0, \"after_finish_ps\": 0,\n"
           "    \"pipeline_bubble_ps\": 1500000000 },\n"
           "  { \"rank\": 1, \"finish_ps\": 10000000000, \"compute_ps\": 9000000000,\n"
           "    \"exposed_comm_ps\": 1000000000, \"idle_ps\": 0, \"after_finish_ps\": 0,\n"
           "    \"pipeline_bubble_ps\": 0 } ] }\n");
  g_autofree char *ranks = read_out ("ranks.dat");
  ck_assert_str_eq (ranks, "# rank compute_ms exposed_comm_ms idle_ms after_finish_ms "
                           "pipeline_bubble_ms (exposed less the bubble)\n"
                           "0 6.000000000 2.500000000 0.000000000 0.000000000 1.500000000\n"
                           "1 9.000000000 1.000000000 0.000000000 0.000000000 0.000000000\n");
}
END_TEST

START_TEST (test_bubble_above_exposed)
{
  plot_fails ("{ \"schema_version\": 2, \"simulated_time_ps\": 10,\n"
              "  \"ranks\": [ { \"rank\": 0, \"finish_ps\": 10, \"compute_ps\": 6,\n"
              "    \"exposed_comm_ps\": 4, \"idle_ps\": 0, \"after_finish_ps\": 0,\n"
              "    \"pipeline_bubble_ps\": 5 } ] }\n",
              "ranks[0].pipeline_bubble_ps is above exposed_comm_ps, which holds it");
}
END_TEST

/* The overview's bubble, the part of comm in the pipeline bubble, drawn
 * apart as in ranks.dat: comm less the bubble, and the bubble in the
 * last column.  Bin 0: compute 0.25, comm 0.5 of which bubble 0.375, so
 * comm 0.125 and idle 0.25; bin 1: comm 1 all bubble (a bubble above the
 * comm that holds it is refused: test_bad_overview). */
START_TEST (test_bubble_overview)
{
  g_autofree char *report = with_overview ("{ \"bins\": 2, \"bin_ps\": 3, \"ranks\": [ {"
                                           " \"rank\": 0, \"compute\": [0.25, 0],"
                                           " \"comm\": [0.5, 1], \"bubble\": [0.375, 1] } ] }");
  plot_ok (report);
  g_autofree char *ov = read_out ("overview.dat");
  ck_assert_str_eq (ov, "# time_ms rank compute comm idle bubble "
                        "(bin middle; shares of the bin, adding up to 1; comm less the "
                        "bubble)\n"
                        "0.000000001 0 0.250000 0.125000 0.250000 0.375000\n"
                        "0.000000004 0 0.000000 0.000000 0.000000 1.000000\n"
                        "\n");
  g_autofree char *meta = read_out ("meta.gp");
  ck_assert (strstr (meta, "\nbubble = 1\n") != NULL);
  /* A native run without pipeline stages gives a bubble of 0 everywhere:
   * no bubble panel (meta.gp's bubble = 0). */
  g_autofree char *none = with_overview ("{ \"bins\": 1, \"bin_ps\": 5, \"ranks\": [ {"
                                         " \"rank\": 0, \"compute\": [1], \"comm\": [0],"
                                         " \"bubble\": [0] } ] }");
  plot_ok (none);
  g_autofree char *meta0 = read_out ("meta.gp");
  ck_assert (strstr (meta0, "\nbubble = 0\n") != NULL);
}
END_TEST

START_TEST (test_nested_out_dir)
{
  g_autofree char *path = tu_write_file ("report.json", report_v2);
  g_autofree char *out = g_build_filename (tu_scratch, "a", "b", NULL);
  GError *error = NULL;
  ck_assert_msg (app_plot_data (path, out, &error), "%s", error ? error->message : "");
  g_autofree char *ranks = g_build_filename (out, "ranks.dat", NULL);
  ck_assert (g_file_test (ranks, G_FILE_TEST_IS_REGULAR));
}
END_TEST

static Suite *
plotdata_suite (void)
{
  Suite *s = suite_create ("plotdata");
  TCase *tc = tu_tcase (s, "files", tu_scratch_setup, tu_scratch_teardown, 30);
  tcase_add_test (tc, test_v2_ranks);
  tcase_add_test (tc, test_v2_overview);
  tcase_add_test (tc, test_deterministic);
  tcase_add_test (tc, test_v1);
  tcase_add_test (tc, test_bubble);
  tcase_add_test (tc, test_bubble_above_exposed);
  tcase_add_test (tc, test_bubble_overview);
  tcase_add_test (tc, test_nested_out_dir);
  tcase_add_test (tc, test_past_2_63);
  tcase_add_test (tc, test_negative_exponent);
  tc = tu_tcase (s, "errors", tu_scratch_setup, tu_scratch_teardown, 30);
  tcase_add_test (tc, test_missing_file);
  tcase_add_test (tc, test_not_json);
  tcase_add_test (tc, test_bad_members);
  tcase_add_test (tc, test_bad_overview);
  return s;
}

int
main (void)
{
  return tu_run_suite (plotdata_suite ());
}
