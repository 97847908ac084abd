/* printable.c: escaping control characters and invalid UTF-8 for terminals. */
#include "sim/printable.h"

#include <string.h>

static void
append_hex (GString *s, const char *p, gsize n)
{
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, "\\x%02x", (unsigned char) p[i]);
}

char *
sim_printable (const char *text, gboolean keep_lines)
{
  g_return_val_if_fail (text != NULL, NULL);
  GString *s = g_string_sized_new (strlen (text));
  const char *p = text;
  while (*p != '\0')
    {
      unsigned char c = (unsigned char) *p;
      if (c < 0x80)
        {
          if ((c < 0x20 && !(keep_lines && (c == '\n' || c == '\t'))) || c == 0x7f)
            append_hex (s, p, 1);
          else
            g_string_append_c (s, (char) c);
          p++;
          continue;
        }
      gunichar u = g_utf8_get_char_validated (p, -1);
      if (u == (gunichar) -1 || u == (gunichar) -2)
        {
          append_hex (s, p, 1);
          p++;
          continue;
        }
      const char *next = g_utf8_next_char (p);
      if (u >= 0x80 && u <= 0x9f)
        append_hex (s, p, (gsize) (next - p));
      else
        g_string_append_len (s, p, next - p);
      p = next;
    }
  return g_string_free (s, FALSE);
}
