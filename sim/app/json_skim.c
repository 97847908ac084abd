/* json_skim.c: a strict, streaming reading of a JSON file that keeps only
 * some members of its root object; see json_skim.h. */
#include "sim/app/json_skim.h"

#include <stdio.h>
#include <string.h>

#define SKIM_MAX_DEPTH 32
#define SKIM_MAX_INT_DIGITS 18
#define SKIM_MAX_EXP_DIGITS 3

typedef struct
{
  FILE *f;
  int c;            /* the next byte, EOF at the end */
  gboolean ok;      /* FALSE from the first thing outside the kind accepted */
  GString *out;     /* the text returned */
  GString *token;   /* the string or number being read */
  const char *const *keep;  /* the root's members copied */
} Skim;

static void
next (Skim *s)
{
  s->c = getc_unlocked (s->f);
}

static void
fail (Skim *s)
{
  s->ok = FALSE;
}

static void
skip_ws (Skim *s)
{
  while (s->c == ' ' || s->c == '\t' || s->c == '\n' || s->c == '\r')
    next (s);
}

/* Expect byte C, copying it when COPY. */
static void
expect (Skim *s, int c, gboolean copy)
{
  if (s->c != c)
    {
      fail (s);
      return;
    }
  if (copy)
    g_string_append_c (s->out, (char) c);
  next (s);
}

/* \uXXXX with XXXX in 0001-007f (the \u has been read into the token). */
static void
read_u_escape (Skim *s)
{
  guint v = 0;
  for (int i = 0; i < 4 && s->ok; i++)
    {
      int d = g_ascii_xdigit_value ((char) s->c);
      if (s->c == EOF || d < 0)
        fail (s);
      else
        {
          v = v * 16 + (guint) d;
          g_string_append_c (s->token, (char) s->c);
          next (s);
        }
    }
  if (v == 0 || v > 0x7f)
    fail (s);
}

/* A string, into s->token with its quotes. */
static void
read_string (Skim *s)
{
  g_string_truncate (s->token, 0);
  if (s->c != '"')
    {
      fail (s);
      return;
    }
  g_string_append_c (s->token, '"');
  next (s);
  while (s->ok && s->c != '"')
    {
      if (s->c == EOF || s->c < 0x20)
        {
          fail (s);
          break;
        }
      int c = s->c;
      g_string_append_c (s->token, (char) c);
      next (s);
      if (c != '\\')
        continue;
      if (s->c == 'u')
        {
          g_string_append_c (s->token, 'u');
          next (s);
          read_u_escape (s);
        }
      else if (s->c != EOF && strchr ("\"\\/bfnrt", s->c) != NULL)
        {
          g_string_append_c (s->token, (char) s->c);
          next (s);
        }
      else
        fail (s);
    }
  if (s->ok)
    {
      g_string_append_c (s->token, '"');
      next (s);
      if (!g_utf8_validate (s->token->str, (gssize) s->token->len, NULL))
        fail (s);
    }
}

/* Digits into the token: how many. */
static guint
read_digits (Skim *s)
{
  guint n = 0;
  while (s->c >= '0' && s->c <= '9')
    {
      g_string_append_c (s->token, (char) s->c);
      next (s);
      n++;
    }
  return n;
}

static void
read_number (Skim *s)
{
  g_string_truncate (s->token, 0);
  if (s->c == '-')
    {
      g_string_append_c (s->token, '-');
      next (s);
    }
  gboolean zero = s->c == '0';
  guint n = read_digits (s);
  if (n == 0 || n > SKIM_MAX_INT_DIGITS || (zero && n > 1))
    fail (s);
  if (s->ok && s->c == '.')
    {
      g_string_append_c (s->token, '.');
      next (s);
      if (read_digits (s) == 0)
        fail (s);
    }
  if (s->ok && (s->c == 'e' || s->c == 'E'))
    {
      g_string_append_c (s->token, (char) s->c);
      next (s);
      if (s->c == '+' || s->c == '-')
        {
          g_string_append_c (s->token, (char) s->c);
          next (s);
        }
      n = read_digits (s);
      if (n == 0 || n > SKIM_MAX_EXP_DIGITS)
        fail (s);
    }
}

static void
read_literal (Skim *s, gboolean copy)
{
  const char *word = s->c == 't' ? "true" : s->c == 'f' ? "false" : "null";
  for (const char *p = word; *p != '\0' && s->ok; p++)
    expect (s, *p, copy);
}

static void read_value (Skim *s, guint depth, gboolean copy);

/* The array or object at s->c; at depth 0 (the root) each member's value
 * is copied only when its name is kept.  Recursive through read_value, at
 * most SKIM_MAX_DEPTH deep. */
static void
read_container (Skim *s, guint depth, gboolean copy) /* NOLINT(misc-no-recursion) */
{
  gboolean object = s->c == '{';
  char close = object ? '}' : ']';
  expect (s, object ? '{' : '[', copy);
  skip_ws (s);
  if (s->ok && s->c == close)
    {
      expect (s, close, copy);
      return;
    }
  while (s->ok)
    {
      gboolean copy_value = copy;
      if (object)
        {
          read_string (s);
          if (depth == 0 && s->ok)
            {
              if (strchr (s->token->str, '\\') != NULL)
                fail (s);
              g_autofree char *name = g_strndup (s->token->str + 1, s->token->len - 2);
              copy_value = g_strv_contains (s->keep, name);
            }
          if (copy && s->ok)
            g_string_append_len (s->out, s->token->str, (gssize) s->token->len);
          skip_ws (s);
          expect (s, ':', copy);
          skip_ws (s);
          if (copy && !copy_value)
            g_string_append (s->out, "null");
        }
      read_value (s, depth + 1, copy_value);
      skip_ws (s);
      if (s->ok && s->c == close)
        {
          expect (s, close, copy);
          return;
        }
      expect (s, ',', copy);
      skip_ws (s);
    }
}

static void
read_value (Skim *s, guint depth, gboolean copy) /* NOLINT(misc-no-recursion) */
{
  if (depth > SKIM_MAX_DEPTH)
    fail (s);
  if (!s->ok)
    return;
  if (s->c == '{' || s->c == '[')
    read_container (s, depth, copy);
  else if (s->c == '"' || s->c == '-' || (s->c >= '0' && s->c <= '9'))
    {
      if (s->c == '"')
        read_string (s);
      else
        read_number (s);
      if (copy && s->ok)
        g_string_append_len (s->out, s->token->str, (gssize) s->token->len);
    }
  else if (s->c == 't' || s->c == 'f' || s->c == 'n')
    read_literal (s, copy);
  else
    fail (s);
}

char *
app_json_skim (const char *path, const char *const *keep)
{
  g_return_val_if_fail (path != NULL && keep != NULL, NULL);
  Skim s = { .f = fopen (path, "rb"), .ok = TRUE, .keep = keep };
  if (s.f == NULL)
    return NULL;
  s.out = g_string_new (NULL);
  s.token = g_string_new (NULL);
  next (&s);
  skip_ws (&s);
  if (s.c == '{')
    read_container (&s, 0, TRUE);
  else
    fail (&s);
  skip_ws (&s);
  if (s.c != EOF || ferror (s.f))
    fail (&s);
  fclose (s.f);
  g_string_free (s.token, TRUE);
  return g_string_free (s.out, !s.ok);
}
