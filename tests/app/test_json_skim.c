/* test_json_skim.c: the members of a JSON file that plot-data reads, taken
 * in one pass (json_skim.h).
 *
 * The texts returned are written out by hand; every file accepted is also
 * parsed by json-glib whole and skimmed, and the members kept must be the
 * same nodes (json-glib reads every file of the kind accepted); every file
 * outside that kind must give NULL, so that the caller parses it itself.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "sim/app/json_skim.h"
#include "support/testutil.h"

static const char *const keep_ac[] = { "a", "c", NULL };

static char *
skim_text (const char *text)
{
  g_autofree char *path = tu_write_file ("in.json", text);
  return app_json_skim (path, keep_ac);
}

/* The kept members byte for byte, whitespace between tokens dropped, the
 * others' values null, whatever they hold. */
START_TEST (test_keeps_named_members)
{
  g_autofree char *got = skim_text (" {\n  \"a\" : [ 1, -0.5e+10, \"x\\ty\" ],\r\n"
                                    "\t\"b\" : { \"a\" : [ { } , [ ] ], \"c\" : true },\n"
                                    "  \"c\" : { \"d\" : null, \"e\" : false, "
                                    "\"f\" : \"\\u0041\" },\n"
                                    "  \"z\" : \"\xc3\xa9\"\n} \n");
  ck_assert_str_eq (got, "{\"a\":[1,-0.5e+10,\"x\\ty\"],\"b\":null,"
                         "\"c\":{\"d\":null,\"e\":false,\"f\":\"\\u0041\"},\"z\":null}");
  g_autofree char *empty = skim_text ("{}");
  ck_assert_str_eq (empty, "{}");
}
END_TEST

/* Files json-glib reads (or refuses) that are not of the kind accepted:
 * NULL for each. */
START_TEST (test_refuses_the_rest)
{
  const char *const refused[] = {
    "", "   ", "[1]", "\"a\"", "{\"a\":1} x", "{\"a\":1}{}", "{\"a\":1,}", "{\"a\" 1}",
    "{\"a\":01}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":-}", "{\"a\":1e}", "{\"a\":1e1234}",
    "{\"a\":1234567890123456789}", "{\"a\":1e+22.0}", "{\"a\":inf.0}", "{\"a\":tru}",
    "{\"b\":\"\x1f\"}", "{\"b\":\"\\u0000\"}", "{\"b\":\"\\u00e9\"}", "{\"b\":\"\\ud83d\"}",
    "{\"b\":\"\xff\"}", "{\"b\":\"\\x\"}", "{\"b\":\"open}", "{\"\\u0061\":1}", "{\"a\":1",
    "\xef\xbb\xbf{}", "{\"a\":\f1}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (refused); i++)
    {
      g_autofree char *got = skim_text (refused[i]);
      ck_assert_msg (got == NULL, "accepted <%s> as <%s>", refused[i], got);
    }
  g_autofree char *missing = tu_scratch_path ("missing.json");
  ck_assert_ptr_null (app_json_skim (missing, keep_ac));
}
END_TEST

/* Nesting: 32 levels below the root are read, 33 are not. */
START_TEST (test_depth)
{
  for (guint levels = 31; levels <= 33; levels++)
    {
      g_autoptr (GString) text = g_string_new ("{\"b\":");
      for (guint i = 0; i < levels; i++)
        g_string_append_c (text, '[');
      for (guint i = 0; i < levels; i++)
        g_string_append_c (text, ']');
      g_string_append_c (text, '}');
      g_autofree char *got = skim_text (text->str);
      if (levels <= 32)
        ck_assert_str_eq (got, "{\"b\":null}");
      else
        ck_assert_ptr_null (got);
    }
}
END_TEST

/* What json-glib makes of member NAME of the root of TEXT, as JSON text. */
static char *
member_by_json_glib (const char *text, const char *name)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  ck_assert_msg (json_parser_load_from_data (p, text, -1, &error), "%s: %s", text,
                 error ? error->message : "");
  JsonNode *node = json_object_get_member (json_node_get_object (json_parser_get_root (p)), name);
  ck_assert_ptr_nonnull (node);
  return json_to_string (node, FALSE);
}

/* Accepted files at the edges of the kind (18 digits, 3-digit exponents,
 * -0, every escape, UTF-8 up to 4 bytes, duplicate names): json-glib reads
 * the whole file, and its members "a" and "c" are what it reads from the
 * skim. */
START_TEST (test_same_members_as_json_glib)
{
  const char *const accepted[] = {
    "{\"a\":123456789012345678,\"c\":-123456789012345678}",
    "{\"a\":1.5e-300,\"c\":-0,\"b\":1E+308}",
    "{\"a\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0001\\u007f\","
    "\"c\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}",
    "{\"a\":1,\"b\":[{\"a\":2}],\"a\":3,\"c\":{\"x\":[true,false,null]}}",
    "{\"b\":\"\xf0\x9f\x98\x80\",\"a\":[],\"c\":{}}",
  };
  for (guint i = 0; i < G_N_ELEMENTS (accepted); i++)
    {
      g_autofree char *got = skim_text (accepted[i]);
      ck_assert_msg (got != NULL, "refused <%s>", accepted[i]);
      for (const char *const *name = keep_ac; *name != NULL; name++)
        {
          g_autofree char *whole = member_by_json_glib (accepted[i], *name);
          g_autofree char *skimmed = member_by_json_glib (got, *name);
          ck_assert_str_eq (skimmed, whole);
        }
    }
}
END_TEST

static Suite *
json_skim_suite (void)
{
  Suite *s = suite_create ("json_skim");
  TCase *tc = tu_tcase (s, "json_skim", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_keeps_named_members);
  tcase_add_test (tc, test_refuses_the_rest);
  tcase_add_test (tc, test_depth);
  tcase_add_test (tc, test_same_members_as_json_glib);
  return s;
}

int
main (void)
{
  return tu_run_suite (json_skim_suite ());
}
