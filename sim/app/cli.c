/* cli.c: exit status by error domain and code; see cli.h. */
#include "sim/app/cli.h"

#include <stdio.h>
#include <string.h>

#include "sim/error.h"
#include "sim/printable.h"
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
  return g_option_context_parse (ctx, argc, argv, error);
}
