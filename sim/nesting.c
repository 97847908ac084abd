/* nesting.c: the bracket-depth pre-scan of JSON text. */
#include "sim/nesting.h"

#include <stdio.h>
#include <sys/stat.h>

#include "sim/error.h"

/* Where the scan stands between pieces of a file. */
typedef struct
{
  guint depth;
  guint64 line;
  gboolean in_string;
  gboolean escaped;
} DepthScan;

/* Scan N bytes; FALSE (and the error) at the first level too deep. */
static gboolean
depth_scan (DepthScan *s, const char *p, gsize n, GError **error)
{
  for (gsize i = 0; i < n; i++)
    {
      char c = p[i];
      if (c == '\n')
        s->line++;
      if (s->in_string)
        {
          if (s->escaped)
            s->escaped = FALSE;
          else if (c == '\\')
            s->escaped = TRUE;
          else if (c == '"')
            s->in_string = FALSE;
        }
      else if (c == '"')
        s->in_string = TRUE;
      else if (c == '[' || c == '{')
        {
          if (++s->depth > SIM_NESTING_MAX)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                           "%" G_GUINT64_FORMAT ": JSON nested deeper than %d levels",
                           s->line, SIM_NESTING_MAX);
              return FALSE;
            }
        }
      else if ((c == ']' || c == '}') && s->depth > 0)
        s->depth--;
    }
  return TRUE;
}

gboolean
sim_json_depth_check (const char *text, gssize len, GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  DepthScan s = { .line = 1 };
  return depth_scan (&s, text, len < 0 ? strlen (text) : (gsize) len, error);
}

gboolean
sim_json_depth_check_file (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    return TRUE;
  /* A device or a pipe may never end (/dev/zero): only files are read. */
  struct stat st;
  if (fstat (fileno (f), &st) != 0 || !S_ISREG (st.st_mode))
    {
      fclose (f);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: not a regular file", path);
      return FALSE;
    }
  DepthScan s = { .line = 1 };
  char buf[65536];
  gsize n;
  gboolean ok = TRUE;
  while (ok && (n = fread (buf, 1, sizeof buf, f)) > 0)
    ok = depth_scan (&s, buf, n, error);
  fclose (f);
  if (!ok)
    sim_error_prefix (error, "%s:", path);
  return ok;
}
