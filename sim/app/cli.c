/* cli.c: reading a command's options, and the exit status by error
 * domain and code; see cli.h. */
#include "sim/app/cli.h"

#include <stdio.h>
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

/* A whole-number option: GLib collects its values as text into TEXTS
 * (a G_OPTION_ARG_FILENAME_ARRAY: every value, in the order given, copied
 * byte for byte), and app_cli_parse reads them into *TARGET. */
typedef struct
{
  const char *name; /* "layers": the long name, for the messages */
  gint *target;
  char **texts;
} WholeOption;

struct _AppCli
{
  GOptionContext *ctx;
  GPtrArray *wholes; /* of WholeOption, each allocated: GLib holds &texts */
};

static void
whole_option_free (gpointer p)
{
  WholeOption *w = p;
  g_strfreev (w->texts);
  g_free (w);
}

AppCli *
app_cli_new (const char *parameter_string)
{
  AppCli *cli = g_new0 (AppCli, 1);
  cli->ctx = g_option_context_new (parameter_string);
  cli->wholes = g_ptr_array_new_with_free_func (whole_option_free);
  return cli;
}

void
app_cli_free (AppCli *cli)
{
  if (cli == NULL)
    return;
  g_option_context_free (cli->ctx);
  g_ptr_array_unref (cli->wholes);
  g_free (cli);
}

GOptionContext *
app_cli_context (AppCli *cli)
{
  g_return_val_if_fail (cli != NULL, NULL);
  return cli->ctx;
}

void
app_cli_add_entries (AppCli *cli, GOptionGroup *group, const GOptionEntry *entries)
{
  g_return_if_fail (cli != NULL && entries != NULL);
  gsize n = 0;
  while (entries[n].long_name != NULL)
    n++;
  g_autofree GOptionEntry *copy = g_memdup2 (entries, (n + 1) * sizeof *entries);
  for (gsize i = 0; i < n; i++)
    {
      g_return_if_fail (copy[i].arg != G_OPTION_ARG_INT64 && copy[i].arg != G_OPTION_ARG_DOUBLE);
      if (copy[i].arg != G_OPTION_ARG_INT)
        continue;
      WholeOption *w = g_new0 (WholeOption, 1);
      w->name = copy[i].long_name;
      w->target = copy[i].arg_data;
      g_ptr_array_add (cli->wholes, w);
      /* The type shows nowhere in --help: the line stays the same. */
      copy[i].arg = G_OPTION_ARG_FILENAME_ARRAY;
      copy[i].arg_data = &w->texts;
    }
  /* Both copy the entries (GLib's own array), not their strings. */
  if (group != NULL)
    g_option_group_add_entries (group, copy);
  else
    g_option_context_add_main_entries (cli->ctx, copy, NULL);
}

/* TEXT, a value of the option --NAME, into *OUT: decimal digits after an
 * optional sign, from -G_MAXINT to G_MAXINT (G_MININT is the commands'
 * mark of an option not given).  FALSE with ERROR set (G_OPTION_ERROR,
 * as GLib's own bad values) otherwise. */
static gboolean
whole_number (const char *name, const char *text, gint *out, GError **error)
{
  const char *digits = text + (text[0] == '-' || text[0] == '+');
  gsize n = strspn (digits, "0123456789");
  if (n == 0 || digits[n] != '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--%s %s: not a whole number", name, text);
      return FALSE;
    }
  /* Saturated one past G_MAXINT: any more digits are out of range alike. */
  gint64 v = 0;
  for (gsize i = 0; i < n; i++)
    v = MIN (v * 10 + (digits[i] - '0'), (gint64) G_MAXINT + 1);
  if (text[0] == '-')
    v = -v;
  if (v > G_MAXINT || v < -G_MAXINT)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   v > 0 ? "--%s %s: too large (at most %d)" : "--%s %s: too small (at least %d)",
                   name, text, v > 0 ? G_MAXINT : -G_MAXINT);
      return FALSE;
    }
  *out = (gint) v;
  return TRUE;
}

/* Every whole-number option CLI's parse saw, each value in turn (all are
 * checked: a bad one is not excused by a later good one), the last into
 * its gint.  The texts stay: GLib keeps its record of the arrays it made
 * until the context is freed. */
static gboolean
read_wholes (AppCli *cli, GError **error)
{
  for (guint i = 0; i < cli->wholes->len; i++)
    {
      WholeOption *w = cli->wholes->pdata[i];
      for (char **t = w->texts; t != NULL && *t != NULL; t++)
        if (!whole_number (w->name, *t, w->target, error))
          return FALSE;
    }
  return TRUE;
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

gboolean
app_cli_parse (AppCli *cli, int *argc, char ***argv, GPtrArray *owned, GError **error)
{
  g_return_val_if_fail (cli != NULL, FALSE);
  GOptionContext *ctx = cli->ctx;
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
      if (!read_wholes (cli, error))
        return FALSE;
      if (*argc <= 1)
        return TRUE;
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED,
                   "unexpected argument '%s': the command takes options only (usage: %s "
                   "[OPTION…]; --help lists them)", (*argv)[1],
                   g_get_prgname () != NULL ? g_get_prgname () : "orrery COMMAND");
      return FALSE;
    }
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
