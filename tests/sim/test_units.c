/* test_units.c: parsing and formatting of times, sizes, bandwidths and
 * compute rates (sim/units.c).
 *
 * Expected values are written out from the units' definitions (50 GiB/s =
 * 50 x 2^30 B/s, 936.25 ns = 936250 ps), never taken from earlier output.
 */
#include <check.h>

#include "sim/error.h"
#include "sim/units.h"
#include "support/testutil.h"

#define GIB 1073741824.0

START_TEST (test_units_time_exact)
{
  static const struct
  {
    const char *text;
    SimTime ps;
  } cases[] = {
    { "936.25ns", 936250 },     { "1.5us", 1500000 },          { "2ms", 2000000000 },
    { "1s", 1000000000000 },    { "10ps", 10 },                 { "0ns", 0 },
    { "500 ns", 500000 },       { "0.001ns", 1 },               { "1.50000us", 1500000 },
    { "2µs", 2000000 },         { "18446744073709551615ps", G_MAXUINT64 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      SimTime ps = 1;
      ck_assert_msg (sim_units_parse_time (cases[i].text, &ps, &error), "%s: %s", cases[i].text,
                     error ? error->message : "");
      ck_assert_msg (ps == cases[i].ps, "%s: %" G_GUINT64_FORMAT " != %" G_GUINT64_FORMAT,
                     cases[i].text, ps, cases[i].ps);
    }
}
END_TEST

START_TEST (test_units_time_errors)
{
  static const struct
  {
    const char *text;
    const char *needle;
  } cases[] = {
    { "12", "needs a unit (ps, ns" },
    { "1.0001ps", "not a whole number of picoseconds" },
    { "ns", "'ns' is not a time" },
    { "", "is not a time" },
    { "-1ns", "non-negative" },
    { "5xs", "unknown time unit 'xs'" },
    { "99999999999s", "too large" },
    { "18446744073709551616ps", "" },
    { "1.5.5ns", "unknown time unit" },
    { "1e-4ps", "not a whole number" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      SimTime ps = 7;
      ck_assert_msg (!sim_units_parse_time (cases[i].text, &ps, &error), "%s accepted",
                     cases[i].text);
      ck_assert_uint_eq (ps, 7);
      tu_assert_input_error (error, cases[i].needle);
      g_autofree char *quoted = g_strdup_printf ("'%s'", cases[i].text);
      tu_assert_input_error (error, quoted);
      g_error_free (error);
    }
}
END_TEST

START_TEST (test_units_bytes)
{
  guint64 b = 0;
  ck_assert (sim_units_parse_bytes ("1MiB", &b, NULL));
  ck_assert_uint_eq (b, 1048576);
  ck_assert (sim_units_parse_bytes ("1.5KB", &b, NULL));
  ck_assert_uint_eq (b, 1500);
  ck_assert (sim_units_parse_bytes ("1.5GiB", &b, NULL));
  ck_assert_uint_eq (b, 3 * (G_GUINT64_CONSTANT (1) << 29));
  ck_assert (sim_units_parse_bytes ("64B", &b, NULL));
  ck_assert_uint_eq (b, 64);
  ck_assert (sim_units_parse_bytes ("2TB", &b, NULL));
  ck_assert_uint_eq (b, G_GUINT64_CONSTANT (2000000000000));
  GError *error = NULL;
  ck_assert (!sim_units_parse_bytes ("0.5B", &b, &error));
  tu_assert_input_error (error, "not a whole number of bytes");
  g_clear_error (&error);
  ck_assert (!sim_units_parse_bytes ("1.0001KB", &b, &error));
  tu_assert_input_error (error, "'1.0001KB'");
  g_clear_error (&error);
  ck_assert (!sim_units_parse_bytes ("4096", &b, &error));
  tu_assert_input_error (error, "KiB");
  g_clear_error (&error);
}
END_TEST

START_TEST (test_units_bandwidth)
{
  static const struct
  {
    const char *text;
    double Bps;
  } cases[] = {
    { "50GiB/s", 50 * GIB },     { "400Gb/s", 5e10 }, { "400Gbps", 5e10 },
    { "1600GB/s", 1.6e12 },      { "1Kb/s", 125 },    { "0.01GiB/s", 0.01 * GIB },
    { "2.5 TB/s", 2.5e12 },      { "1B/s", 1 },       { "3MiB/s", 3 * 1048576.0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      double v = 0;
      GError *error = NULL;
      ck_assert_msg (sim_units_parse_bandwidth (cases[i].text, &v, &error), "%s: %s",
                     cases[i].text, error ? error->message : "");
      ck_assert_msg (v == cases[i].Bps, "%s: %.17g != %.17g", cases[i].text, v, cases[i].Bps);
    }
  static const char *const bad[] = { "0GB/s", "50GB", "50gb/s", "50", "GB/s", "50 GiBps" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      double v = 0;
      GError *error = NULL;
      ck_assert_msg (!sim_units_parse_bandwidth (bad[i], &v, &error), "%s accepted", bad[i]);
      g_autofree char *quoted = g_strdup_printf ("'%s'", bad[i]);
      tu_assert_input_error (error, quoted);
      g_error_free (error);
    }
}
END_TEST

START_TEST (test_units_flops)
{
  double f = 0;
  ck_assert (sim_units_parse_flops ("989TFLOP/s", &f, NULL));
  ck_assert (f == 989e12);
  ck_assert (sim_units_parse_flops ("900TFLOPS", &f, NULL));
  ck_assert (f == 900e12);
  ck_assert (sim_units_parse_flops ("1.5PFLOP/s", &f, NULL));
  ck_assert (f == 1.5e15);
  ck_assert (sim_units_parse_flops ("1FLOP/s", &f, NULL));
  ck_assert (f == 1);
  GError *error = NULL;
  ck_assert (!sim_units_parse_flops ("900", &f, &error));
  tu_assert_input_error (error, "TFLOP/s");
  g_clear_error (&error);
  ck_assert (!sim_units_parse_flops ("900TB/s", &f, &error));
  tu_assert_input_error (error, "unknown compute rate unit 'TB/s'");
  g_clear_error (&error);
}
END_TEST

START_TEST (test_units_scaled)
{
  guint64 v = 0;
  ck_assert (sim_units_parse_scaled ("936.25", 1000, &v, NULL));
  ck_assert_uint_eq (v, 936250);
  ck_assert (sim_units_parse_scaled ("500.0", 1000, &v, NULL));
  ck_assert_uint_eq (v, 500000);
  ck_assert (sim_units_parse_scaled ("5e2", 1000, &v, NULL));
  ck_assert_uint_eq (v, 500000);
  ck_assert (sim_units_parse_scaled ("  7 ", 1, &v, NULL));
  ck_assert_uint_eq (v, 7);
  GError *error = NULL;
  ck_assert (!sim_units_parse_scaled ("0.0001", 1000, &v, &error));
  tu_assert_input_error (error, "not a whole number");
  g_clear_error (&error);
  ck_assert (!sim_units_parse_scaled ("12ns", 1000, &v, &error));
  tu_assert_input_error (error, "'12ns'");
  g_clear_error (&error);
}
END_TEST

static void
expect_format (char *got, const char *want)
{
  ck_assert_str_eq (got, want);
  g_free (got);
}

START_TEST (test_units_format)
{
  expect_format (sim_units_format_time (0), "0 ns");
  expect_format (sim_units_format_time (500000), "500 ns");
  expect_format (sim_units_format_time (936250), "936.25 ns");
  expect_format (sim_units_format_time (10), "0.01 ns");
  expect_format (sim_units_format_time (999999), "999.999 ns");
  expect_format (sim_units_format_time (99640000), "99.640 us");
  expect_format (sim_units_format_time (4207000000), "4.207 ms");
  expect_format (sim_units_format_time (4206999999), "4.207 ms");
  expect_format (sim_units_format_time (999999999), "1.000 ms");
  expect_format (sim_units_format_time (G_GUINT64_CONSTANT (1500000000000)), "1.500 s");
  expect_format (sim_units_format_bytes (512), "512 B");
  expect_format (sim_units_format_bytes (1048576), "1 MiB");
  expect_format (sim_units_format_bytes (64 * 1048576), "64 MiB");
  expect_format (sim_units_format_bytes (1536), "1.50 KiB");
  expect_format (sim_units_format_bytes (3 * (G_GUINT64_CONSTANT (1) << 29)), "1.50 GiB");
  expect_format (sim_units_format_bandwidth (5e10), "50.00 GB/s");
  expect_format (sim_units_format_bandwidth (50 * GIB), "53.69 GB/s");
  expect_format (sim_units_format_bandwidth (1e7), "0.01 GB/s");
  expect_format (sim_units_format_bandwidth (4e6), "4.00 MB/s");
  expect_format (sim_units_format_bandwidth (2000), "2.00 KB/s");
  /* A table's column in GB/s: the number alone, never "0.00" for a
   * bandwidth that is not 0. */
  expect_format (sim_units_format_gbps (5e10), "50.00");
  expect_format (sim_units_format_gbps (1e7), "0.01");
  expect_format (sim_units_format_gbps (4e6), "0.004");
  expect_format (sim_units_format_gbps (2000), "2e-06");
  expect_format (sim_units_format_gbps (0), "0.00");
  expect_format (sim_units_format_bandwidth (0.25), "0.25 B/s");
}
END_TEST

static Suite *
units_suite (void)
{
  Suite *s = suite_create ("units");
  TCase *tc = tu_tcase (s, "units", NULL, NULL, 60);
  tcase_add_test (tc, test_units_time_exact);
  tcase_add_test (tc, test_units_time_errors);
  tcase_add_test (tc, test_units_bytes);
  tcase_add_test (tc, test_units_bandwidth);
  tcase_add_test (tc, test_units_flops);
  tcase_add_test (tc, test_units_scaled);
  tcase_add_test (tc, test_units_format);
  return s;
}

int
main (void)
{
  return tu_run_suite (units_suite ());
}
