/* test_cli_numbers.c: whole-number options as app_cli_parse reads them
 * (cli.h): decimal only in every spelling GLib accepts, leading zeros
 * included (010 is ten, where GLib read eight), -2147483647 ..
 * 2147483647 (G_MININT, the commands' mark of an option not given, never
 * comes from the command line), nothing after "--" touched, and --help as
 * GLib prints the same entries.  In process, on a small option table;
 * tests/scripts/test_cli_numbers.sh runs the commands themselves.
 */
#include <check.h>
#include <string.h>

#include "sim/app/cli.h"
#include "support/testutil.h"

/* What the table below writes into: COUNT starts at G_MININT, as the
 * commands' "not given". */
typedef struct
{
  gint count;
  char *name;
  gboolean flag;
  char **rest;
} Opts;

static void
opts_clear (Opts *o)
{
  g_free (o->name);
  g_strfreev (o->rest);
}

/* --count/-k (whole), --name/-s (string), --flag/-q, and with REST the
 * arguments after "--" into o->rest. */
static AppCli *
make_cli (Opts *o, gboolean rest, GOptionGroup *group)
{
  GOptionEntry entries[] = {
    { "count", 'k', 0, G_OPTION_ARG_INT, &o->count, "How many", "K" },
    { "name", 's', 0, G_OPTION_ARG_STRING, &o->name, "A name", "S" },
    { "flag", 'q', 0, G_OPTION_ARG_NONE, &o->flag, "A flag", NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->rest, NULL, NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  if (!rest)
    entries[3] = entries[4];
  AppCli *cli = app_cli_new ("- a test");
  app_cli_add_entries (cli, group, entries);
  if (group != NULL)
    g_option_context_set_main_group (app_cli_context (cli), group);
  return cli;
}

/* Parse ARGS (NULL-terminated, after the program's name) with CLI; the
 * error, or NULL. */
static GError *
parse_with (AppCli *cli, const char *const *args)
{
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, "prog");
  for (const char *const *a = args; *a != NULL; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  int argc = (int) argv->len - 1;
  char **av = (char **) argv->pdata;
  GError *error = NULL;
  gboolean ok = app_cli_parse (cli, &argc, &av, owned, &error);
  ck_assert_int_eq (ok, error == NULL);
  return error;
}

/* parse_with a command of O's options. */
static GError *
parse_rest (Opts *o, gboolean rest, const char *const *args)
{
  g_autoptr (AppCli) cli = make_cli (o, rest, NULL);
  return parse_with (cli, args);
}

static GError *
parse (Opts *o, const char *const *args)
{
  return parse_rest (o, FALSE, args);
}

/* ERROR (freed) is a bad option value worded exactly WANT. */
static void
assert_refused (GError *error, const char *want)
{
  ck_assert_msg (error != NULL, "accepted; want '%s'", want);
  ck_assert_msg (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE),
                 "%s: domain %s code %d", error->message, g_quark_to_string (error->domain),
                 error->code);
  ck_assert_str_eq (error->message, want);
  ck_assert_int_eq (app_cli_exit_status (error), 1);
  g_error_free (error);
}

/* 010 is ten in each spelling: --x V, --x=V, -x V, -xV, and -x last in a
 * group of short flags (-qk V). */
START_TEST (test_leading_zeros_every_spelling)
{
  const char *const spellings[][3] = { { "--count", "010", NULL }, { "--count=010", NULL },
                                       { "-k", "010", NULL },      { "-k010", NULL },
                                       { "-qk", "010", NULL } };
  for (guint i = 0; i < G_N_ELEMENTS (spellings); i++)
    {
      Opts o = { .count = G_MININT };
      GError *error = parse (&o, spellings[i]);
      ck_assert_msg (error == NULL, "%s: %s", spellings[i][0], error->message);
      ck_assert_int_eq (o.count, 10);
      opts_clear (&o);
    }
}
END_TEST

/* Anything but digits after one sign is refused, named by the long
 * option however it was given: C's hex and octal, spaces (GLib skipped a
 * leading one), a fraction, an exponent, a unit, a sign alone, nothing. */
START_TEST (test_not_decimal_refused)
{
  const char *const bad[] = { "0x2", "0X10", " 8", "8 ", "\t8", "10.0", "1e3", "1M",
                              "+",   "-",    "--", "+-1", "١", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *want = g_strdup_printf ("--count %s: not a whole number", bad[i]);
      g_autofree char *eq = g_strdup_printf ("--count=%s", bad[i]);
      g_autofree char *glued = g_strdup_printf ("-k%s", bad[i]);
      const char *const forms[][3] = { { "--count", bad[i], NULL }, { eq, NULL },
                                       { "-k", bad[i], NULL },      { glued, NULL } };
      /* "-k" alone is -k with its value missing: GLib's own error. */
      guint n = bad[i][0] == '\0' ? 3 : 4;
      for (guint f = 0; f < n; f++)
        {
          Opts o = { .count = G_MININT };
          assert_refused (parse (&o, forms[f]), want);
          opts_clear (&o);
        }
    }
}
END_TEST

/* The range: -(2^31 - 1) .. 2^31 - 1, worded with the bound on the side
 * the value passed, however many digits. */
START_TEST (test_range)
{
  const struct
  {
    const char *text;
    gint value;       /* when MESSAGE is NULL */
    const char *message;
  } cases[] = {
    { "2147483647", G_MAXINT, NULL },
    { "-2147483647", -2147483647, NULL },
    { "-0", 0, NULL },
    { "+7", 7, NULL },
    { "-08", -8, NULL },
    { "000000000000000000000000042", 42, NULL },
    { "2147483648", 0, "--count 2147483648: too large (at most 2147483647)" },
    { "-2147483648", 0, "--count -2147483648: too small (at least -2147483647)" },
    { "99999999999999999999999", 0,
      "--count 99999999999999999999999: too large (at most 2147483647)" },
    { "-9223372036854775809", 0,
      "--count -9223372036854775809: too small (at least -2147483647)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Opts o = { .count = G_MININT };
      const char *const args[] = { "--count", cases[i].text, NULL };
      GError *error = parse (&o, args);
      if (cases[i].message != NULL)
        assert_refused (error, cases[i].message);
      else
        {
          ck_assert_msg (error == NULL, "%s: %s", cases[i].text, error->message);
          ck_assert_int_eq (o.count, cases[i].value);
        }
      opts_clear (&o);
    }
}
END_TEST

/* Absent, the variable keeps what the command put there; given twice, the
 * last value counts and each is checked. */
START_TEST (test_absent_and_repeated)
{
  Opts o = { .count = G_MININT };
  const char *const none[] = { "--name", "x", "-q", NULL };
  ck_assert_ptr_null (parse (&o, none));
  ck_assert_int_eq (o.count, G_MININT);
  ck_assert_str_eq (o.name, "x");
  ck_assert (o.flag);
  opts_clear (&o);

  Opts twice = { .count = G_MININT };
  const char *const last[] = { "--count", "4", "-k", "05", NULL };
  ck_assert_ptr_null (parse (&twice, last));
  ck_assert_int_eq (twice.count, 5);
  opts_clear (&twice);

  const char *const firsts[][5] = { { "--count", "0x2", "--count", "5", NULL },
                                    { "--count", "5", "--count", "0x2", NULL } };
  for (guint i = 0; i < G_N_ELEMENTS (firsts); i++)
    {
      Opts bad = { .count = G_MININT };
      assert_refused (parse (&bad, firsts[i]), "--count 0x2: not a whole number");
      opts_clear (&bad);
    }
}
END_TEST

/* After "--" nothing is an option: the arguments there reach the
 * command's G_OPTION_REMAINING byte for byte, and a command without one
 * refuses them as arguments, not as numbers. */
START_TEST (test_after_double_dash)
{
  Opts o = { .count = G_MININT };
  const char *const args[] = { "--count", "3", "--", "--count", "0x2", "-k010", NULL };
  ck_assert_ptr_null (parse_rest (&o, TRUE, args));
  ck_assert_int_eq (o.count, 3);
  ck_assert_ptr_nonnull (o.rest);
  ck_assert_int_eq (g_strv_length (o.rest), 3);
  ck_assert_str_eq (o.rest[0], "--count");
  ck_assert_str_eq (o.rest[1], "0x2");
  ck_assert_str_eq (o.rest[2], "-k010");
  opts_clear (&o);

  Opts plain = { .count = G_MININT };
  GError *error = parse (&plain, args);
  ck_assert_ptr_nonnull (error);
  /* GLib keeps "--" when nothing takes what follows it. */
  ck_assert_msg (g_str_has_prefix (error->message, "unexpected argument '--': "), "%s",
                 error->message);
  g_error_free (error);
  opts_clear (&plain);
}
END_TEST

/* An error GLib finds (an unknown option) comes first, and leaves the
 * whole numbers as they were, as it leaves every option. */
START_TEST (test_glib_error_leaves_numbers)
{
  Opts o = { .count = G_MININT };
  const char *const args[] = { "--count", "5", "--bogus", NULL };
  GError *error = parse (&o, args);
  ck_assert_ptr_nonnull (error);
  ck_assert (g_error_matches (error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION));
  ck_assert_int_eq (o.count, G_MININT);
  g_error_free (error);
  opts_clear (&o);
}
END_TEST

/* Parse ARGS (NULL-terminated, after the program's name) into O, with
 * the options in a group of the command's own made the main group (as gen
 * transformer does: its callbacks take its options as data); the error,
 * or NULL. */
static GError *
parse_group (Opts *o, const char *const *args)
{
  GOptionGroup *group = g_option_group_new ("test", "", "", o, NULL);
  g_autoptr (AppCli) cli = make_cli (o, FALSE, group);
  return parse_with (cli, args);
}

/* Entries added to a group rather than the main options are read the
 * same. */
START_TEST (test_group_entries)
{
  Opts o = { .count = G_MININT };
  const char *const good[] = { "-k", "0012", NULL };
  ck_assert_ptr_null (parse_group (&o, good));
  ck_assert_int_eq (o.count, 12);
  opts_clear (&o);
  Opts bad = { .count = G_MININT };
  const char *const hex[] = { "--count=0x2", NULL };
  assert_refused (parse_group (&bad, hex), "--count 0x2: not a whole number");
  opts_clear (&bad);
}
END_TEST

/* --help is what GLib prints for the same entries given to it directly:
 * the help shows no option's type. */
START_TEST (test_help_unchanged)
{
  Opts o = { .count = G_MININT };
  g_autoptr (AppCli) cli = make_cli (&o, FALSE, NULL);
  GOptionEntry plain_entries[] = {
    { "count", 'k', 0, G_OPTION_ARG_INT, &o.count, "How many", "K" },
    { "name", 's', 0, G_OPTION_ARG_STRING, &o.name, "A name", "S" },
    { "flag", 'q', 0, G_OPTION_ARG_NONE, &o.flag, "A flag", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) plain = g_option_context_new ("- a test");
  g_option_context_add_main_entries (plain, plain_entries, NULL);
  g_autofree char *want = g_option_context_get_help (plain, TRUE, NULL);
  g_autofree char *got = g_option_context_get_help (app_cli_context (cli), TRUE, NULL);
  ck_assert_str_eq (got, want);
  ck_assert_ptr_nonnull (strstr (got, "-k, --count=K"));
}
END_TEST

static Suite *
cli_numbers_suite (void)
{
  Suite *s = suite_create ("cli_numbers");
  TCase *tc = tu_tcase (s, "cli_numbers", NULL, NULL, 30);
  tcase_add_test (tc, test_leading_zeros_every_spelling);
  tcase_add_test (tc, test_not_decimal_refused);
  tcase_add_test (tc, test_range);
  tcase_add_test (tc, test_absent_and_repeated);
  tcase_add_test (tc, test_after_double_dash);
  tcase_add_test (tc, test_glib_error_leaves_numbers);
  tcase_add_test (tc, test_group_entries);
  tcase_add_test (tc, test_help_unchanged);
  return s;
}

int
main (void)
{
  return tu_run_suite (cli_numbers_suite ());
}
