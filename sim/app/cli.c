/* cli.c: exit status by error domain and code; see cli.h. */
#include "sim/app/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/printable.h"
#include "sim/suggest.h"
#include "workload/wl_error.h"

int
app_cli_exit_status (const GError *error)
{
  g_return_val_if_fail (error != NULL, SIM_ERROR_INTERNAL);
  if (error->domain != SIM_ERROR && error->domain != WL_ERROR)
    return SIM_ERROR_INPUT;
  if (error->code >= SIM_ERROR_INPUT && error->code <= SIM_ERROR_LIMIT)
    return error->code;
  return SIM_ERROR_INTERNAL;
}

int
app_cli_fail (const char *cmd, GError *error)
{
  int code = app_cli_exit_status (error);
  /* Messages quote names and paths from the inputs byte for byte. */
  g_autofree char *msg = sim_printable (error->message, TRUE);
  fprintf (stderr, "orrery %s: %s%s\n", cmd, code == SIM_ERROR_INTERNAL ? "internal error: " : "",
           msg);
  g_error_free (error);
  return code;
}

/* The short options of CTX that take a value, as its help shows them
 * ("  -c, --config=CLUSTER.xml"): the help is the one list of a context's
 * options that GLib lets a caller read. */
static void
valued_shorts (GOptionContext *ctx, gboolean valued[128])
{
  g_autofree char *help = g_option_context_get_help (ctx, FALSE, NULL);
  g_auto (GStrv) lines = g_strsplit (help, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      const char *p = *l + strspn (*l, " ");
      if (p[0] != '-' || !g_ascii_isalnum (p[1]) || strncmp (p + 2, ", --", 4) != 0)
        continue;
      const char *name = p + 6;
      const char *eq = strchr (name, '=');
      if (eq != NULL && eq < name + strcspn (name, " "))
        valued[(guchar) p[1]] = TRUE;
    }
}

/* The long option of CTX nearest to the unknown `given` ("--confg"), as
 * its help lists them, within two edits; NULL when none is that near or
 * two are equally near. */
static char *
nearest_option (GOptionContext *ctx, const char *given)
{
  const char *name = given + strspn (given, "-");
  gsize len = strcspn (name, "=");
  g_autofree char *bare = g_strndup (name, len);
  g_autofree char *help = g_option_context_get_help (ctx, FALSE, NULL);
  g_autofree char *best = NULL;
  guint best_d = 3;
  gboolean tie = FALSE;
  /* Only the option lines ("  -c, --config=FILE  text" or "  --stats=FILE"):
   * a "--name" inside a description is not an option of this command. */
  g_auto (GStrv) lines = g_strsplit (help, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      const char *p = *l + strspn (*l, " ");
      if (p[0] == '-' && p[1] != '-' && p[1] != '\0' && p[2] == ',' && p[3] == ' ')
        p += 4;
      if (!g_str_has_prefix (p, "--"))
        continue;
      p += 2;
      gsize n = strspn (p, "abcdefghijklmnopqrstuvwxyz0123456789-");
      if (n == 0)
        continue;
      g_autofree char *opt = g_strndup (p, n);
      guint d = sim_edit_distance (bare, opt, FALSE);
      if (d < best_d)
        {
          g_free (best);
          best = g_steal_pointer (&opt);
          best_d = d;
          tie = FALSE;
        }
      else if (d == best_d && g_strcmp0 (best, opt) != 0)
        tie = TRUE;
    }
  return best != NULL && !tie ? g_strdup_printf ("--%s", best) : NULL;
}

/* GLib's words for a number option's bad value ("Cannot parse integer
 * value “1M” for --batch", "Integer value “X” for --batch out of range")
 * into orrery's: the option, the value, and what it must be. */
static void
number_message (GError *e)
{
  static const char *const forms[][2] = {
    { "Cannot parse integer value \u201c", "not a whole number" },
    { "Integer value \u201c", NULL },
    { "Cannot parse double value \u201c", "not a number" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (forms); i++)
    {
      if (!g_str_has_prefix (e->message, forms[i][0]))
        continue;
      const char *value = e->message + strlen (forms[i][0]);
      const char *close = strstr (value, "\u201d for ");
      if (close == NULL)
        return;
      g_autofree char *v = g_strndup (value, (gsize) (close - value));
      const char *opt = close + strlen ("\u201d for ");
      gsize opt_len = strcspn (opt, " ");
      const char *why = forms[i][1];
      g_autofree char *range = NULL;
      if (why == NULL)
        {
          /* Out of range: a G_OPTION_ARG_INT holds -2^31 .. 2^31 - 1, an
           * INT64 what strtoll reads without overflow.  Said on the side
           * the value passed: "-2147483648 .. 2147483647" read as if a
           * count such as --gpus could be negative. */
          errno = 0;
          (void) strtoll (v, NULL, 10);
          gboolean negative = v[strspn (v, " \t")] == '-';
          range = errno == ERANGE ? g_strdup (negative ? "too small" : "too large")
                  : negative      ? g_strdup_printf ("too small (at least %d)", G_MININT)
                                  : g_strdup_printf ("too large (at most %d)", G_MAXINT);
          why = range;
        }
      char *msg = g_strdup_printf ("%.*s %s: %s", (int) opt_len, opt, v, why);
      g_free (e->message);
      e->message = msg;
      return;
    }
}

gboolean
app_cli_parse (GOptionContext *ctx, int *argc, char ***argv, GPtrArray *owned, GError **error)
{
  gboolean valued[128] = { FALSE };
  valued_shorts (ctx, valued);
  GPtrArray *args = g_ptr_array_new ();
  gboolean ended = FALSE;
  for (int i = 0; i < *argc; i++)
    {
      char *a = (*argv)[i];
      ended = ended || strcmp (a, "--") == 0;
      if (!ended && i > 0 && a[0] == '-' && (guchar) a[1] < 128 && valued[(guchar) a[1]]
          && a[2] != '\0')
        {
          char *flag = g_strndup (a, 2);
          g_ptr_array_add (owned, flag);
          g_ptr_array_add (args, flag);
          g_ptr_array_add (args, a + 2);
        }
      else
        g_ptr_array_add (args, a);
    }
  *argc = (int) args->len;
  g_ptr_array_add (args, NULL);
  *argv = (char **) g_ptr_array_free (args, FALSE);
  g_ptr_array_add (owned, *argv);
  GError *local = NULL;
  if (g_option_context_parse (ctx, argc, argv, &local))
    {
      if (*argc <= 1)
        return TRUE;
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "unexpected argument '%s': the command takes options only (usage: %s "
                   "[OPTION…]; --help lists them)", (*argv)[1],
                   g_get_prgname () != NULL ? g_get_prgname () : "orrery COMMAND");
      return FALSE;
    }
  if (local->domain == G_OPTION_ERROR && local->code == G_OPTION_ERROR_BAD_VALUE)
    number_message (local);
  /* "Unknown option --confg": GLib names the option; say which it may be. */
  const char *unknown = g_str_has_prefix (local->message, "Unknown option ")
                          ? local->message + strlen ("Unknown option ")
                          : NULL;
  g_autofree char *near = local->domain == G_OPTION_ERROR
                              && local->code == G_OPTION_ERROR_UNKNOWN_OPTION && unknown != NULL
                            ? nearest_option (ctx, unknown)
                            : NULL;
  if (near != NULL)
    {
      char *msg = g_strdup_printf ("%s (did you mean %s?)", local->message, near);
      g_free (local->message);
      local->message = msg;
    }
  g_propagate_error (error, local);
  return FALSE;
}

const char *
app_cli_nearest (const char *given, const char *const *names)
{
  const char *best = NULL;
  guint best_d = 3;
  gboolean tie = FALSE;
  for (const char *const *n = names; *n != NULL; n++)
    {
      guint d = sim_edit_distance (given, *n, FALSE);
      if (d < best_d)
        {
          best = *n;
          best_d = d;
          tie = FALSE;
        }
      else if (d == best_d)
        tie = TRUE;
    }
  return tie ? NULL : best;
}

gboolean
app_cli_count (const char *name, const char *value, gint *out, GError **error)
{
  g_return_val_if_fail (name != NULL && value != NULL && out != NULL, FALSE);
  gint64 v = 0;
  g_autoptr (GError) err = NULL;
  if (g_ascii_string_to_signed (value, 10, G_MININT64, G_MAXINT, &v, &err))
    {
      *out = (gint) MAX (v, -1);
      return TRUE;
    }
  gboolean bounds = g_error_matches (err, G_NUMBER_PARSER_ERROR,
                                     G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS);
  if (bounds && value[0] == '-') /* below G_MININT64: a negative all the same */
    {
      *out = -1;
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               bounds ? "%s %s: too large (at most %d)" : "%s %s: not a whole number", name,
               value, G_MAXINT);
  return FALSE;
}
