/* json_numbers.c: JSON numbers json-glib would misread; see json_numbers.h. */
#include "sim/json_numbers.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "sim/nesting.h"
#include "sim/printable.h"

/* Keys are remembered this many levels deep; deeper text is refused by
 * sim_json_depth_check before any parse, and only loses its key here. */
#define KEY_LEVELS (SIM_NESTING_MAX + 1)

/* A stretch of the text: a key's bytes between its quotes. */
typedef struct
{
  gsize at, len;
} Span;

typedef struct
{
  const char *text;
  gsize len;
  SimJsonInts ints;
  guint64 line;
  guint depth;
  Span last_string;
  Span keys[KEY_LEVELS]; /* per level: the key of the value being read */
  GString *out;          /* the rewritten text, once one integer needs it */
  gsize copied;          /* bytes of text already in out */
} Scan;

/* Digits D (N of them, leading zeros allowed) compared with the decimal
 * LIMIT: <0, 0 or >0. */
static int
digits_cmp (const char *d, gsize n, const char *limit)
{
  while (n > 1 && d[0] == '0')
    d++, n--;
  gsize ln = strlen (limit);
  if (n != ln)
    return n < ln ? -1 : 1;
  return strncmp (d, limit, n);
}

/* Whether the integer TOK (N bytes: an optional '-', then digits) is one
 * INTS reads as an integer: -2^63 .. 2^63 - 1, or 0 .. 2^64 - 1 for
 * SIM_JSON_UINT64 (-0 among them: json-glib reads it as 0). */
static gboolean
int_fits (const char *tok, gsize n, SimJsonInts ints)
{
  if (ints == SIM_JSON_UINT64)
    return tok[0] != '-' ? digits_cmp (tok, n, "18446744073709551615") <= 0
                         : digits_cmp (tok + 1, n - 1, "0") == 0;
  if (tok[0] == '-')
    return digits_cmp (tok + 1, n - 1, "9223372036854775808") <= 0;
  return digits_cmp (tok, n, "9223372036854775807") <= 0;
}

/* The digits at T[*I..N), at least one; FALSE when there are none. */
static gboolean
skip_digits (const char *t, gsize n, gsize *i)
{
  gsize from = *i;
  while (*i < n && g_ascii_isdigit (t[*i]))
    (*i)++;
  return *i > from;
}

/* Whether TOK (N bytes) is a number as RFC 8259 writes one:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?. */
static gboolean
json_number (const char *t, gsize n)
{
  gsize i = t[0] == '-';
  if (i < n && t[i] == '0')
    i++;
  else if (i >= n || t[i] < '1' || t[i] > '9' || !skip_digits (t, n, &i))
    return FALSE;
  if (i < n && t[i] == '.' && (i++, !skip_digits (t, n, &i)))
    return FALSE;
  if (i < n && (t[i] == 'e' || t[i] == 'E'))
    {
      i++;
      i += i < n && (t[i] == '+' || t[i] == '-');
      if (!skip_digits (t, n, &i))
        return FALSE;
    }
  return i == n;
}

static gboolean
number_error (const Scan *s, gsize at, gsize n, const char *why, GError **error)
{
  const Span *k = &s->keys[MIN (s->depth, KEY_LEVELS - 1)];
  g_autofree char *raw_key = g_strndup (s->text + k->at, MIN (k->len, 64));
  g_autofree char *key = sim_printable (raw_key, FALSE);
  g_autofree char *raw_tok = g_strndup (s->text + at, MIN (n, 40));
  g_autofree char *tok = sim_printable (raw_tok, FALSE);
  g_autofree char *where = k->len > 0 || k->at > 0 ? g_strdup_printf ("\"%s\": ", key)
                                                    : g_strdup ("");
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%" G_GUINT64_FORMAT ": %s%s%s %s", s->line,
               where, tok, n > 40 ? "..." : "", why);
  return FALSE;
}

/* The number at AT (N bytes): FALSE with the error when json-glib would
 * misread it; an integer beyond a gint64 is marked for the rewrite. */
static gboolean
number_check (Scan *s, gsize at, gsize n, GError **error)
{
  const char *tok = s->text + at;
  const char *astra = s->ints == SIM_JSON_DOUBLE ? ", which ASTRA-sim's JSON reader refuses too"
                                                 : "";
  if (!json_number (tok, n))
    {
      g_autofree char *why = g_strdup_printf ("is not a JSON number (json-glib would read it its "
                                              "own way: 010 as octal 8, 0x10 as 16)%s",
                                              astra);
      return number_error (s, at, n, why, error);
    }
  /* Digits only within the N bytes: the text need not end in a NUL (a
   * file read with its length), so no str* call may run past them. */
  gsize d = tok[0] == '-';
  while (d < n && g_ascii_isdigit (tok[d]))
    d++;
  if (d == n && int_fits (tok, n, s->ints))
    return TRUE;
  if (d == n && s->ints == SIM_JSON_INT64)
    return number_error (s, at, n,
                         "is out of range: an integer here is from -9223372036854775808 to "
                         "9223372036854775807 (json-glib would wrap it silently)",
                         error);
  /* A fraction, or an integer to be rewritten as one: json-glib reads it
   * with strtod, and nlohmann::json refuses the infinity it gives past a
   * double's range (an integer past 64 bits too). */
  g_autofree char *copy = g_strndup (tok, n);
  if (isinf (g_ascii_strtod (copy, NULL)))
    {
      g_autofree char *why
          = g_strdup_printf ("is beyond the range of a double (about 1.8e308)%s", astra);
      return number_error (s, at, n, why, error);
    }
  if (d != n)
    return TRUE;
  if (s->out == NULL)
    s->out = g_string_sized_new (s->len + 16);
  g_string_append_len (s->out, s->text + s->copied, (gssize) (at + n - s->copied));
  g_string_append (s->out, ".0");
  s->copied = at + n;
  return TRUE;
}

/* One byte outside strings at I; returns the bytes consumed. */
static gsize
structure (Scan *s, gsize i, gboolean *bad, GError **error)
{
  char c = s->text[i];
  if (c == '{' || c == '[')
    {
      s->depth++;
      if (s->depth < KEY_LEVELS)
        s->keys[s->depth] = c == '[' ? s->keys[s->depth - 1] : (Span) { 0, 0 };
    }
  else if ((c == '}' || c == ']') && s->depth > 0)
    s->depth--;
  else if (c == ':' && s->depth < KEY_LEVELS)
    s->keys[s->depth] = s->last_string;
  else if (c == '-' || c == '.' || g_ascii_isdigit (c))
    {
      /* The whole token, letters too: json-glib reads 0x10 as one. */
      gsize n = 1;
      while (i + n < s->len
             && (g_ascii_isalnum (s->text[i + n]) || strchr ("+-.", s->text[i + n]) != NULL)
             && s->text[i + n] != '\0')
        n++;
      *bad = !number_check (s, i, n, error);
      return n;
    }
  return 1;
}

gboolean
sim_json_numbers_check (const char *text, gssize len, SimJsonInts ints, GString **rewritten,
                        GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  g_return_val_if_fail (ints == SIM_JSON_INT64 || rewritten != NULL, FALSE);
  if (rewritten != NULL)
    *rewritten = NULL;
  g_autofree Scan *s = g_new0 (Scan, 1);
  *s = (Scan) { .text = text, .len = len < 0 ? strlen (text) : (gsize) len, .ints = ints,
                .line = 1 };
  gboolean in_string = FALSE, escaped = FALSE, bad = FALSE;
  for (gsize i = 0; i < s->len && !bad;)
    {
      char c = text[i];
      s->line += c == '\n';
      if (in_string)
        {
          if (escaped)
            escaped = FALSE;
          else if (c == '\\')
            escaped = TRUE;
          else if (c == '"')
            {
              in_string = FALSE;
              s->last_string.len = i - s->last_string.at;
            }
          i++;
        }
      else if (c == '"')
        {
          in_string = TRUE;
          s->last_string = (Span) { i + 1, 0 };
          i++;
        }
      else
        i += structure (s, i, &bad, error);
    }
  /* Only the modes that take REWRITTEN ever start a rewrite. */
  if (!bad && s->out != NULL && rewritten != NULL)
    {
      g_string_append_len (s->out, text + s->copied, (gssize) (s->len - s->copied));
      *rewritten = g_steal_pointer (&s->out);
    }
  if (s->out != NULL)
    g_string_free (s->out, TRUE);
  return !bad;
}
