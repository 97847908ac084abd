/* suggest.c: the edit distance behind "did you mean" hints; see suggest.h. */
#include "sim/suggest.h"

#include <string.h>

guint
sim_edit_distance (const char *a, const char *b, gboolean fold_case)
{
  gsize la = strlen (a), lb = strlen (b);
  g_autofree guint *row = g_new (guint, lb + 1);
  for (gsize j = 0; j <= lb; j++)
    row[j] = (guint) j;
  for (gsize i = 1; i <= la; i++)
    {
      guint diag = row[0];
      row[0] = (guint) i;
      for (gsize j = 1; j <= lb; j++)
        {
          guint up = row[j];
          gboolean same = fold_case ? g_ascii_tolower (a[i - 1]) == g_ascii_tolower (b[j - 1])
                                    : a[i - 1] == b[j - 1];
          row[j] = MIN (MIN (up, row[j - 1]) + 1, diag + !same);
          diag = up;
        }
    }
  return row[lb];
}
