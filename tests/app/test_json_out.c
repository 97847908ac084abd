/* test_json_out.c: the streaming JSON writer of the report (json_out.h).
 *
 * The expected texts are written by hand from json-glib 1.6's pretty
 * layout and escaping rules (json_out.h lists them) and from what %.17g
 * gives for each double; one test also builds the same documents with
 * json-glib's JsonBuilder and JsonGenerator, which wrote the report before,
 * and compares the bytes.  The error tests check that a failed report
 * leaves nothing behind and the old file untouched.
 */
#include <check.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>

#include "sim/app/json_out.h"
#include "support/testutil.h"

/* Close OUT (asserting success) and return the file's text. */
static char *
close_and_read (AppJsonOut *out, const char *path)
{
  g_autoptr (GError) error = NULL;
  ck_assert_msg (app_json_out_close (out, &error), "%s", error ? error->message : "");
  char *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static AppJsonOut *
open_ok (const char *path)
{
  g_autoptr (GError) error = NULL;
  AppJsonOut *out = app_json_out_open (path, &error);
  ck_assert_msg (out != NULL, "%s", error ? error->message : "");
  return out;
}

/* Number of entries in the scratch directory (temporary files left?). */
static guint
scratch_entries (void)
{
  g_autoptr (GDir) dir = g_dir_open (tu_scratch, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* Every control character, quote, backslash, DEL, '/', valid UTF-8 (é, €,
 * U+1F600) and an invalid byte, in a value and in a member name. */
static const char escapes_in[] =
  "\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f"
  "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f"
  " \"\\/\x7f" "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xff";

/* \b \t \n \f \r by name, the other bytes up to 0x1f as \u00xx (json-glib
 * left 0x1f raw, which JSON forbids), DEL as \u007f, the invalid byte as
 * U+FFFD (EF BF BD), the rest unchanged. */
static const char escapes_out[] =
  "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
  "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b"
  "\\u001c\\u001d\\u001e\\u001f"
  " \\\"\\\\/\\u007f" "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbd\"";

START_TEST (test_escapes)
{
  g_autofree char *path = tu_scratch_path ("e.json");
  AppJsonOut *out = open_ok (path);
  app_json_out_begin_object (out, NULL);
  app_json_out_string (out, escapes_in, escapes_in);
  app_json_out_end_object (out);
  g_autofree char *text = close_and_read (out, path);
  g_autofree char *expected = g_strdup_printf ("{\n  %s : %s\n}", escapes_out, escapes_out);
  ck_assert_str_eq (text, expected);
}
END_TEST

/* %.17g of the nearest doubles: 0.1 is 0.1000000000000000055511...,
 * 1e300 is 1.00000000000000005250...e300; 123456789.125 is exact (a
 * multiple of 2^-3 below 2^53).  ".0" is appended when there is no '.':
 * -0 and 100, and (json-glib's rule) 1e+22 and inf too. */
START_TEST (test_doubles)
{
  g_autofree char *path = tu_scratch_path ("d.json");
  AppJsonOut *out = open_ok (path);
  const double v[] = { 0.1, 1e300, -0.0, 123456789.125, 100.0, 0.5, 1e22, INFINITY, 2.5e-5 };
  app_json_out_begin_array (out, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    app_json_out_double (out, NULL, v[i]);
  app_json_out_end_array (out);
  g_autofree char *text = close_and_read (out, path);
  ck_assert_str_eq (text, "[\n"
                          "  0.10000000000000001,\n"
                          "  1.0000000000000001e+300,\n"
                          "  -0.0,\n"
                          "  123456789.125,\n"
                          "  100.0,\n"
                          "  0.5,\n"
                          "  1e+22.0,\n"
                          "  inf.0,\n"
                          "  2.5000000000000001e-05\n"
                          "]");
}
END_TEST

/* Nesting, separators, indentation, empty containers (an empty object
 * keeps its level's indentation between the braces), integers at both
 * ends of gint64, booleans and null. */
static void
write_layout (AppJsonOut *out)
{
  app_json_out_begin_object (out, NULL);
  app_json_out_int (out, "min", G_MININT64);
  app_json_out_int (out, "max", G_MAXINT64);
  app_json_out_int (out, "zero", 0);
  app_json_out_begin_array (out, "list");
  app_json_out_begin_object (out, NULL);
  app_json_out_boolean (out, "t", TRUE);
  app_json_out_boolean (out, "f", FALSE);
  app_json_out_end_object (out);
  app_json_out_begin_object (out, NULL);
  app_json_out_end_object (out);
  app_json_out_begin_array (out, NULL);
  app_json_out_end_array (out);
  app_json_out_null (out, NULL);
  app_json_out_end_array (out);
  app_json_out_begin_object (out, "empty");
  app_json_out_end_object (out);
  app_json_out_begin_array (out, "none");
  app_json_out_end_array (out);
  app_json_out_end_object (out);
}

START_TEST (test_layout)
{
  g_autofree char *path = tu_scratch_path ("l.json");
  AppJsonOut *out = open_ok (path);
  write_layout (out);
  g_autofree char *text = close_and_read (out, path);
  ck_assert_str_eq (text, "{\n"
                          "  \"min\" : -9223372036854775808,\n"
                          "  \"max\" : 9223372036854775807,\n"
                          "  \"zero\" : 0,\n"
                          "  \"list\" : [\n"
                          "    {\n"
                          "      \"t\" : true,\n"
                          "      \"f\" : false\n"
                          "    },\n"
                          "    {    },\n"
                          "    [],\n"
                          "    null\n"
                          "  ],\n"
                          "  \"empty\" : {  },\n"
                          "  \"none\" : []\n"
                          "}");
}
END_TEST

/* The layout document and every byte and the doubles above, through
 * json-glib as report.c used it: the same bytes. */
static char *
json_glib_text (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "min");
  json_builder_add_int_value (b, G_MININT64);
  json_builder_set_member_name (b, "max");
  json_builder_add_int_value (b, G_MAXINT64);
  json_builder_set_member_name (b, "zero");
  json_builder_add_int_value (b, 0);
  json_builder_set_member_name (b, "list");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "t");
  json_builder_add_boolean_value (b, TRUE);
  json_builder_set_member_name (b, "f");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_begin_array (b);
  json_builder_end_array (b);
  json_builder_add_null_value (b);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "empty");
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "none");
  json_builder_begin_array (b);
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

static char *
json_glib_scalars (const char *bytes, const double *v, guint n)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_array (b);
  json_builder_add_string_value (b, bytes);
  for (guint i = 0; i < n; i++)
    json_builder_add_double_value (b, v[i]);
  json_builder_end_array (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  return json_generator_to_data (gen, NULL);
}

START_TEST (test_same_as_json_glib)
{
  g_autofree char *path = tu_scratch_path ("l.json");
  AppJsonOut *out = open_ok (path);
  write_layout (out);
  g_autofree char *text = close_and_read (out, path);
  g_autofree char *glib_text = json_glib_text ();
  ck_assert_str_eq (text, glib_text);

  char bytes[256];
  for (int i = 1; i < 256; i++)
    bytes[i - 1] = (char) i;
  bytes[255] = '\0';
  const double v[] = { 0.1, 1e300, -0.0, 123456789.125, 100.0, 1e22, 1e21, 1e16, 5e-324,
                       INFINITY, -INFINITY, 1.0 / 3.0, 123456789012345678.0, 0.001 };
  out = open_ok (path);
  app_json_out_begin_array (out, NULL);
  app_json_out_string (out, NULL, bytes);
  for (guint i = 0; i < G_N_ELEMENTS (v); i++)
    app_json_out_double (out, NULL, v[i]);
  app_json_out_end_array (out);
  g_autofree char *scalars = close_and_read (out, path);
  /* json-glib passes bytes that are not UTF-8, and 0x1f, through: invalid
   * JSON.  orrery makes the text valid UTF-8 (U+FFFD) and escapes 0x1f; in
   * everything else the two agree byte for byte. */
  g_autofree char *valid = g_utf8_make_valid (bytes, -1);
  g_autofree char *glib_scalars = json_glib_scalars (valid, v, G_N_ELEMENTS (v));
  g_auto (GStrv) parts = g_strsplit (glib_scalars, "\x1f", -1);
  ck_assert_uint_eq (g_strv_length (parts), 2);
  g_autofree char *expected = g_strjoinv ("\\u001f", parts);
  ck_assert_str_eq (scalars, expected);
}
END_TEST

/* More than one 64 KiB buffer of output arrives whole. */
START_TEST (test_long_output)
{
  g_autofree char *path = tu_scratch_path ("long.json");
  AppJsonOut *out = open_ok (path);
  app_json_out_begin_array (out, NULL);
  for (gint64 i = 0; i < 100000; i++)
    app_json_out_int (out, NULL, i);
  app_json_out_end_array (out);
  g_autofree char *text = close_and_read (out, path);
  /* "[" and "\n]"; each element two spaces of indent, its digits, ",\n"
   * (the last without the comma): digits of 0..99999 are
   * 10 + 90 * 2 + 900 * 3 + 9000 * 4 + 90000 * 5 = 488890. */
  gsize expected = 1 + 2 + 100000 * (2 + 2) - 1 + 488890;
  ck_assert_uint_eq (strlen (text), expected);
  ck_assert (g_str_has_suffix (text, "  99998,\n  99999\n]"));
}
END_TEST

/* A directory that does not exist: no writer, G_FILE_ERROR_NOENT, saying
 * which folder. */
START_TEST (test_cannot_create)
{
  g_autofree char *path = tu_scratch_path ("missing/r.json");
  g_autoptr (GError) error = NULL;
  ck_assert_ptr_null (app_json_out_open (path, &error));
  ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT));
  g_autofree char *dir = tu_scratch_path ("missing");
  g_autofree char *want = g_strdup_printf ("the folder %s does not exist", dir);
  ck_assert_msg (strcmp (error->message, want) == 0, "%s", error->message);
}
END_TEST

/* A write that fails in the middle (the file size limit: EFBIG, as a full
 * disk gives ENOSPC): close fails naming the cause, the temporary file is
 * gone and the old report is as it was. */
START_TEST (test_write_error_keeps_old_file)
{
  g_autofree char *path = tu_write_file ("r.json", "old report");
  guint before = scratch_entries ();
  struct rlimit old_limit, limit;
  ck_assert_int_eq (getrlimit (RLIMIT_FSIZE, &old_limit), 0);
  limit = old_limit;
  limit.rlim_cur = 100 * 1024;
  void (*old_handler) (int) = signal (SIGXFSZ, SIG_IGN);
  ck_assert_int_eq (setrlimit (RLIMIT_FSIZE, &limit), 0);
  AppJsonOut *out = open_ok (path);
  app_json_out_begin_array (out, NULL);
  for (gint64 i = 0; i < 100000; i++)
    app_json_out_int (out, NULL, i);
  app_json_out_end_array (out);
  g_autoptr (GError) error = NULL;
  gboolean ok = app_json_out_close (out, &error);
  setrlimit (RLIMIT_FSIZE, &old_limit);
  signal (SIGXFSZ, old_handler);
  ck_assert (!ok);
  ck_assert_msg (strstr (error->message, "write() failed") != NULL
                   && strstr (error->message, g_strerror (EFBIG)) != NULL,
                 "%s", error->message);
  ck_assert_uint_eq (scratch_entries (), before);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  ck_assert_str_eq (text, "old report");
}
END_TEST

/* PATH a directory: the rename fails and the temporary file goes. */
START_TEST (test_rename_error)
{
  g_autofree char *path = tu_scratch_path ("dir");
  ck_assert_int_eq (g_mkdir (path, 0755), 0);
  g_autofree char *inside = tu_scratch_path ("dir/x");
  ck_assert (g_file_set_contents (inside, "x", 1, NULL));
  guint before = scratch_entries ();
  AppJsonOut *out = open_ok (path);
  app_json_out_null (out, NULL);
  g_autoptr (GError) error = NULL;
  ck_assert (!app_json_out_close (out, &error));
  ck_assert_msg (strstr (error->message, "Failed to rename file") != NULL, "%s",
                 error->message);
  ck_assert_uint_eq (scratch_entries (), before);
  ck_assert (g_file_test (inside, G_FILE_TEST_IS_REGULAR));
}
END_TEST

static Suite *
json_out_suite (void)
{
  Suite *s = suite_create ("json_out");
  TCase *tc = tu_tcase (s, "json_out", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_escapes);
  tcase_add_test (tc, test_doubles);
  tcase_add_test (tc, test_layout);
  tcase_add_test (tc, test_same_as_json_glib);
  tcase_add_test (tc, test_long_output);
  tcase_add_test (tc, test_cannot_create);
  tcase_add_test (tc, test_write_error_keeps_old_file);
  tcase_add_test (tc, test_rename_error);
  return s;
}

int
main (void)
{
  return tu_run_suite (json_out_suite ());
}
