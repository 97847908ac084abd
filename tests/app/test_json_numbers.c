/* test_json_numbers.c: JSON numbers json-glib would misread, at every entry
 * point (sim/json_numbers.h).
 *
 * json-glib keeps an integer as a gint64 without a word when it does not
 * fit: 18446744073709551616 reads as -1, 9223372036854775808 as -2^63 and
 * -18446744073709551615 as 1; 1e400 reads as infinity.  The expected
 * values below are those facts and nlohmann::json's (ASTRA-sim's reader):
 * an integer beyond 64 bits is the double nearest to it, 2^64 exactly for
 * 18446744073709551616.  Each test gets a fresh scratch directory.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/app/config.h"
#include "sim/error.h"
#include "sim/json_numbers.h"
#include "support/testutil.h"
#include "workload/chakra_json.h"
#include "workload/group_list.h"
#include "workload/groups.h"
#include "workload/wl_error.h"

static const char net_yml[] = "topology: [ Ring ]\nnpus_count: [ 4 ]\n"
                              "bandwidth: [ 50 ]\nlatency: [ 500 ]\n";

/* A system JSON with MEMBER added to a valid one. */
static gboolean
load_sys (AppConfig *cfg, const char *member, GError **error)
{
  g_autofree char *text = g_strdup_printf ("{ \"scheduling-policy\": \"LIFO\",\n"
                                           "  \"all-reduce-implementation\": [\"ring\"],\n"
                                           "  %s\n}\n",
                                           member);
  g_autofree char *y = tu_write_file ("net.yml", net_yml);
  g_autofree char *s = tu_write_file ("sys.json", text);
  return app_config_load_astra (cfg, y, s, NULL, error);
}

static void
sys_fails (const char *member, const char *needle)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert_msg (!load_sys (&cfg, member, &error), "accepted %s", member);
  g_autofree char *path = tu_scratch_path ("sys.json");
  tu_assert_input_error (error, path);
  tu_assert_input_error (error, needle);
  g_clear_error (&error);
  app_config_clear (&cfg);
}

/* A count beyond 64 bits is refused, never read as json-glib's wrapped
 * value: -18446744073709551615 would be 1 active chunk. */
START_TEST (test_astra_counts)
{
  sys_fails ("\"active-chunks-per-dimension\": -18446744073709551615",
             "'active-chunks-per-dimension'");
  sys_fails ("\"preferred-dataset-splits\": 18446744073709551616", "'preferred-dataset-splits'");
  sys_fails ("\"endpoint-delay\": 9223372036854775808", "'endpoint-delay'");
  /* Beyond a double: nlohmann::json refuses to parse it, and so does orrery,
   * naming line 3 and the key. */
  sys_fails ("\"peak-perf\": 1e400", "sys.json:3: \"peak-perf\": 1e400 is beyond the range");
  sys_fails ("\"local-mem-bw\": -1E+999", "sys.json:3: \"local-mem-bw\": -1E+999 is beyond");
}
END_TEST

/* An integer past a double's range (10^309: a 1 and 309 zeros) is refused
 * as 1e309 is, naming it: nlohmann::json falls back to strtod for an
 * integer past 64 bits and refuses the infinity ("number overflow").  The
 * rewrite made it a fraction that json-glib read as infinity, which the
 * key refused as "got inf", a value the file does not hold. */
START_TEST (test_astra_integer_past_double)
{
  GString *zeros = g_string_new ("\"endpoint-delay\": 1");
  for (int i = 0; i < 309; i++)
    g_string_append_c (zeros, '0');
  sys_fails (zeros->str, "sys.json:3: \"endpoint-delay\": 1000000000000000000000000000000000000000"
                         "... is beyond the range of a double");
  g_string_insert_c (zeros, strlen ("\"endpoint-delay\": "), '-');
  sys_fails (zeros->str, "sys.json:3: \"endpoint-delay\": -100000000000000000000000000000000000000"
                         "... is beyond the range of a double");
  /* plot-data's unsigned mode rewrites too: the same refusal.  10^308 has
   * a double, and stays a fraction for the caller to refuse by name. */
  g_autoptr (GString) big = g_string_new ("[1");
  for (int i = 0; i < 308; i++)
    g_string_append_c (big, '0');
  GString *text = NULL;
  GError *error = NULL;
  ck_assert (sim_json_numbers_check (big->str, -1, SIM_JSON_UINT64, &text, &error));
  ck_assert_ptr_nonnull (text);
  g_string_free (text, TRUE);
  g_string_insert_c (big, 1, '1');
  ck_assert (!sim_json_numbers_check (big->str, -1, SIM_JSON_UINT64, &text, &error));
  tu_assert_input_error (error, "is beyond the range of a double");
  ck_assert_ptr_null (text);
  g_clear_error (&error);
  g_string_free (zeros, TRUE);
}
END_TEST

/* What JSON does not allow and json-glib reads its own way (010 as octal 8,
 * 0x10 as 16, .5 as 0.5) is refused, as nlohmann::json refuses it. */
START_TEST (test_not_json_numbers)
{
  sys_fails ("\"preferred-dataset-splits\": 010",
             "sys.json:3: \"preferred-dataset-splits\": 010 is not a JSON number");
  sys_fails ("\"peak-perf\": 0x10", "sys.json:3: \"peak-perf\": 0x10 is not a JSON number");
  sys_fails ("\"peak-perf\": .5", "sys.json:3: \"peak-perf\": .5 is not a JSON number");
  sys_fails ("\"peak-perf\": 5.", "sys.json:3: \"peak-perf\": 5. is not a JSON number");
  static const char trace[] = "{ \"version\": \"0.0.4\" }\n"
                              "{ \"id\": \"1\", \"name\": \"c\", \"type\": \"COMP_NODE\",\n"
                              "  \"attr\": [ { \"name\": \"num_ops\", \"int64Val\": 0x10 } ] }\n";
  GError *error = NULL;
  ck_assert_ptr_null (wl_chakra_json_to_et ("t.json", trace, strlen (trace), &error));
  ck_assert_msg (strstr (error->message, "t.json:3: \"int64Val\": 0x10 is not a JSON number")
                   != NULL, "%s", error->message);
  g_clear_error (&error);
}
END_TEST

/* A float key given an integer past 64 bits takes the double nearest to it,
 * as in ASTRA-sim: 2^64 GB/s is 2^64 x 1e9 B/s, 2^63 TFLOP/s 2^63 x 1e12. */
START_TEST (test_astra_floats)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert_msg (load_sys (&cfg,
                           "\"local-mem-bw\": 18446744073709551616, "
                           "\"peak-perf\": 9223372036854775808, \"roofline-enabled\": 1",
                           &error),
                 "%s", error != NULL ? error->message : "");
  ck_assert (cfg.sys.local_mem_bw_Bps == 0x1p64 * 1e9);
  ck_assert (cfg.wl.peak_flops == 0x1p63 * 1e12);
  app_config_clear (&cfg);
}
END_TEST

/* --comm-groups: a rank of -18446744073709551615 would be rank 1.  Read as
 * ASTRA-sim reads it, a double, it is no rank. */
START_TEST (test_comm_groups)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  g_autofree char *path = tu_write_file ("g.json", "{ \"3\": [0,\n  -18446744073709551615] }");
  ck_assert (!app_config_load_comm_groups (&cfg, path, &error));
  tu_assert_input_error (error, path);
  tu_assert_input_error (error, "group '3': entry 1: a rank is a whole number from 0 to "
                                "4294967294, got -1.84467e+19");
  g_clear_error (&error);
  /* 2^64 - 1 is a non-negative integer, but the id orrery keeps for "all
   * ranks": the message gives the range. */
  g_autofree char *ids = tu_write_file ("ids.json", "{ \"18446744073709551615\": [0, 1] }");
  ck_assert (!app_config_load_comm_groups (&cfg, ids, &error));
  tu_assert_input_error (error, "group id '18446744073709551615' is not a whole number from 0 to "
                                "18446744073709551614");
  g_clear_error (&error);
  app_config_clear (&cfg);
}
END_TEST

/* --comm-groups: a rank written 1.0 or 2e0 is the rank ASTRA-sim reads
 * (nlohmann::json converts the number to its int), as the system JSON's
 * whole-number keys take 1.0; orrery refused it with "got 1", a rank in
 * range.  1.5 is no rank. */
START_TEST (test_comm_groups_whole_fractions)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  g_autofree char *path = tu_write_file ("g.json", "{ \"1\": [0, 1.0], \"2\": [2e0, -0, 3.00] }");
  ck_assert_msg (app_config_load_comm_groups (&cfg, path, &error), "%s",
                 error != NULL ? error->message : "");
  guint n = 0;
  const guint32 *g1 = wl_groups_lookup (cfg.groups, 1, &n);
  ck_assert (g1 != NULL && n == 2 && g1[0] == 0 && g1[1] == 1);
  const guint32 *g2 = wl_groups_lookup (cfg.groups, 2, &n);
  ck_assert (g2 != NULL && n == 3 && g2[0] == 2 && g2[1] == 0 && g2[2] == 3);
  app_config_clear (&cfg);
  app_config_init (&cfg);
  g_autofree char *half = tu_write_file ("h.json", "{ \"1\": [0, 1.5] }");
  ck_assert (!app_config_load_comm_groups (&cfg, half, &error));
  tu_assert_input_error (error, "group '1': entry 1: a rank is a whole number from 0 to "
                                "4294967294, got 1.5");
  g_clear_error (&error);
  app_config_clear (&cfg);
}
END_TEST

/* A Chakra JSON trace (orrery convert): an int64 attribute of
 * -18446744073709551615 would be 1; a bare uint64 past 2^63 would come
 * out negative, and must be written as a string, as protobuf's JSON
 * writes 64-bit integers. */
START_TEST (test_chakra_json)
{
  static const char head[] = "{ \"version\": \"0.0.4\" }\n";
  static const struct
  {
    const char *node;
    const char *needle;
  } bad[] = {
    { "{ \"id\": \"1\", \"name\": \"c\", \"type\": \"COMP_NODE\",\n"
      "  \"attr\": [ { \"name\": \"num_ops\", \"int64Val\": -18446744073709551615 } ] }\n",
      "t.json:3: \"int64Val\": -18446744073709551615 is out of range" },
    { "{ \"id\": 18446744073709551615, \"name\": \"c\", \"type\": \"COMP_NODE\" }\n",
      "t.json:2: \"id\": 18446744073709551615 is out of range" },
    { "{ \"id\": \"1\", \"name\": \"c\", \"type\": \"COMP_NODE\", \"durationMicros\": 1e400 }\n",
      "t.json:2: \"durationMicros\": 1e400 is beyond the range of a double" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *text = g_strconcat (head, bad[i].node, NULL);
      GError *error = NULL;
      GBytes *et = wl_chakra_json_to_et ("t.json", text, strlen (text), &error);
      ck_assert_msg (et == NULL, "case %u accepted", i);
      ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
      ck_assert_msg (strstr (error->message, bad[i].needle) != NULL, "%s", error->message);
      g_clear_error (&error);
    }
  /* The same id as a string is read exactly. */
  static const char ok[] = "{ \"version\": \"0.0.4\" }\n"
                           "{ \"id\": \"18446744073709551615\", \"name\": \"c\", "
                           "\"type\": \"COMP_NODE\" }\n";
  GError *error = NULL;
  GBytes *et = wl_chakra_json_to_et ("t.json", ok, strlen (ok), &error);
  ck_assert_msg (et != NULL, "%s", error != NULL ? error->message : "");
  g_bytes_unref (et);
}
END_TEST

/* A METADATA node's process groups: pg_name or a rank of
 * -18446744073709551615 would be 1. */
START_TEST (test_metadata_groups)
{
  static const char *const bad[] = {
    "[{\"pg_name\": -18446744073709551615, \"ranks\": [0, 1]}]",
    "[{\"pg_name\": \"2\", \"ranks\": [0, -18446744073709551615]}]",
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GArray) defs = g_array_new (FALSE, FALSE, sizeof (WlGroupDef));
      const char *why = wl_group_defs_parse (bad[i], defs);
      ck_assert_msg (why != NULL, "case %u accepted", i);
      ck_assert_msg (strstr (why, "beyond 64 bits") != NULL, "case %u: %s", i, why);
      for (guint k = 0; k < defs->len; k++)
        g_array_unref (g_array_index (defs, WlGroupDef, k).ranks);
    }
}
END_TEST

/* The scan itself: strings are skipped, keys found at every level, lines
 * counted, and the rewrite (SIM_JSON_DOUBLE) keeps the lines. */
START_TEST (test_scan)
{
  GError *error = NULL;
  GString *text = NULL;
  /* Digits in strings and keys are not numbers. */
  ck_assert (sim_json_numbers_check ("{\"99999999999999999999\": \"1e400 \\\" 1e999\"}", -1,
                                     SIM_JSON_INT64, NULL, &error));
  ck_assert (sim_json_numbers_check ("[9223372036854775807, -9223372036854775808, -0, 0.0, "
                                     "1e308, 1e-400, 1E+2]",
                                     -1, SIM_JSON_INT64, NULL, &error));
  ck_assert (!sim_json_numbers_check ("[9223372036854775808]", -1, SIM_JSON_INT64, NULL, &error));
  tu_assert_input_error (error, "1: 9223372036854775808 is out of range");
  g_clear_error (&error);
  /* A list's numbers are named by its key, at any depth. */
  ck_assert (!sim_json_numbers_check ("{\"a\": {\"b\": 1},\n \"c\": [[1, 18446744073709551616]]}",
                                      -1, SIM_JSON_INT64, NULL, &error));
  tu_assert_input_error (error, "2: \"c\": 18446744073709551616 is out of range");
  g_clear_error (&error);
  /* Unsigned: 2^64 - 1 is kept (json-glib wraps it to -1, read back
   * modulo 2^64); negatives and 2^64 become fractions. */
  ck_assert (sim_json_numbers_check ("[18446744073709551615, 0]", -1, SIM_JSON_UINT64, &text,
                                     &error));
  ck_assert_ptr_null (text);
  ck_assert (sim_json_numbers_check ("[-1, 18446744073709551616, 1.5e-7]", -1, SIM_JSON_UINT64,
                                     &text, &error));
  ck_assert_str_eq (text->str, "[-1.0, 18446744073709551616.0, 1.5e-7]");
  g_string_free (text, TRUE);
  /* -0 is the integer 0, which json-glib reads as 0: not a negative to be
   * made a fraction (plot-data refused "idle_ps": -0 as not whole). */
  ck_assert (sim_json_numbers_check ("[-0, 0]", -1, SIM_JSON_UINT64, &text, &error));
  ck_assert_ptr_null (text);
  ck_assert (sim_json_numbers_check ("{\"a\": -18446744073709551616,\n\"b\": [1, 2e3]}", -1,
                                     SIM_JSON_DOUBLE, &text, &error));
  ck_assert_ptr_nonnull (text);
  ck_assert_str_eq (text->str, "{\"a\": -18446744073709551616.0,\n\"b\": [1, 2e3]}");
  g_string_free (text, TRUE);
  ck_assert (sim_json_numbers_check ("{\"a\": 1}", -1, SIM_JSON_DOUBLE, &text, &error));
  ck_assert_ptr_null (text);
}
END_TEST

/* A text given with its length ends there, whatever follows in memory (a
 * file's bytes carry no NUL): the 20 bytes of "[9223372036854775808" end
 * in an integer past 2^63 - 1, refused; the digit after them must not
 * make it read as a longer token (the digit count ran to the first
 * non-digit, so the token looked like a fraction and passed; the fuzzer
 * caught the read past the end). */
START_TEST (test_scan_length)
{
  static const char buf[] = "[92233720368547758089]";
  GError *error = NULL;
  ck_assert (!sim_json_numbers_check (buf, 20, SIM_JSON_INT64, NULL, &error));
  ck_assert_msg (strstr (error->message, "9223372036854775808 is out of range") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  ck_assert (sim_json_numbers_check (buf, 19, SIM_JSON_INT64, NULL, &error));
}
END_TEST

static Suite *
json_numbers_suite (void)
{
  Suite *s = suite_create ("json_numbers");
  TCase *tc = tu_tcase (s, "entry points", tu_scratch_setup, tu_scratch_teardown, 30);
  tcase_add_test (tc, test_astra_counts);
  tcase_add_test (tc, test_astra_integer_past_double);
  tcase_add_test (tc, test_astra_floats);
  tcase_add_test (tc, test_not_json_numbers);
  tcase_add_test (tc, test_comm_groups);
  tcase_add_test (tc, test_comm_groups_whole_fractions);
  tcase_add_test (tc, test_chakra_json);
  tcase_add_test (tc, test_metadata_groups);
  tcase_add_test (tc, test_scan);
  tcase_add_test (tc, test_scan_length);
  return s;
}

int
main (void)
{
  return tu_run_suite (json_numbers_suite ());
}
