/* json_out.c: JSON written as it is produced, in json-glib's pretty
 * layout, through an output file (out_file.h); see json_out.h. */
#include "sim/app/json_out.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "sim/out_file.h"

/* The buffer between the values and write(2). */
#define JSON_OUT_BUF_BYTES ((gsize) 64 * 1024)
/* Containers open at once; the report nests five deep. */
#define JSON_OUT_MAX_DEPTH 32

struct _AppJsonOut
{
  SimOutFile *file;
  char *buf;           /* JSON_OUT_BUF_BYTES */
  gsize len;           /* bytes in buf */
  GError *error;       /* the first write error; later output is dropped */
  guint depth;         /* containers open */
  char closer[JSON_OUT_MAX_DEPTH + 1];     /* ']' or '}' per open container */
  gboolean has_items[JSON_OUT_MAX_DEPTH + 1];
};

AppJsonOut *
app_json_out_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  SimOutFile *file = sim_out_file_open (path, error);
  if (file == NULL)
    return NULL;
  AppJsonOut *out = g_new0 (AppJsonOut, 1);
  out->file = file;
  out->buf = g_malloc (JSON_OUT_BUF_BYTES);
  return out;
}

/* Write LEN bytes at P to the file, unless an error came before. */
static void
write_all (AppJsonOut *out, const char *p, gsize len)
{
  while (out->error == NULL && len > 0)
    {
      ssize_t n = write (sim_out_file_fd (out->file), p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          sim_out_file_error (&out->error, errno, "Failed to write file “%s”: write() failed",
                          sim_out_file_name (out->file));
          break;
        }
      p += n;
      len -= (gsize) n;
    }
}

static void
out_flush (AppJsonOut *out)
{
  write_all (out, out->buf, out->len);
  out->len = 0;
}

/* Append LEN bytes at P: a copy into the buffer (a library call per
 * append cost more than the rest of a value), or straight to the file
 * when larger than the buffer. */
static void
put (AppJsonOut *out, const char *p, gsize len)
{
  if (out->len + len > JSON_OUT_BUF_BYTES)
    {
      out_flush (out);
      if (len > JSON_OUT_BUF_BYTES)
        {
          write_all (out, p, len);
          return;
        }
    }
  memcpy (out->buf + out->len, p, len);
  out->len += len;
}

static void
put_c (AppJsonOut *out, char c)
{
  if (out->len == JSON_OUT_BUF_BYTES)
    out_flush (out);
  out->buf[out->len++] = c;
}

static void
put_str (AppJsonOut *out, const char *text)
{
  put (out, text, strlen (text));
}

/* Write the rest and put the file in place: the first error in
 * OUT->error. */
static void
out_finish (AppJsonOut *out)
{
  out_flush (out);
  if (out->error != NULL)
    sim_out_file_discard (out->file);
  else
    sim_out_file_commit (out->file, &out->error);
  out->file = NULL;
}

gboolean
app_json_out_close (AppJsonOut *out, GError **error)
{
  g_return_val_if_fail (out != NULL, FALSE);
  g_warn_if_fail (out->depth == 0);
  out_finish (out);
  gboolean ok = out->error == NULL;
  if (!ok)
    g_propagate_error (error, out->error);
  g_free (out->buf);
  g_free (out);
  return ok;
}

void
app_json_out_fail (AppJsonOut *out, GError *error)
{
  g_return_if_fail (out != NULL && error != NULL);
  if (out->error == NULL)
    out->error = error;
  else
    g_error_free (error);
}

/* Two spaces per level. */
static void
put_indent (AppJsonOut *out, guint level)
{
  static const char spaces[2 * JSON_OUT_MAX_DEPTH + 1] =
    "                                                                ";
  put (out, spaces, 2 * (gsize) level);
}

void
app_json_append_string (GString *s, const char *text)
{
  g_return_if_fail (s != NULL && text != NULL);
  /* Names come from traces byte for byte: not UTF-8, they would make the
   * file invalid JSON, which orrery's own plot-data then refused. */
  g_autofree char *valid = g_utf8_validate (text, -1, NULL) ? NULL : g_utf8_make_valid (text, -1);
  if (valid != NULL)
    text = valid;
  g_string_append_c (s, '"');
  const char *run = text;
  for (const char *p = text; *p != '\0'; p++)
    {
      unsigned char c = (unsigned char) *p;
      if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
        continue;
      g_string_append_len (s, run, p - run);
      run = p + 1;
      switch (c)
        {
        case '"': g_string_append (s, "\\\""); break;
        case '\\': g_string_append (s, "\\\\"); break;
        case '\n': g_string_append (s, "\\n"); break;
        case '\r': g_string_append (s, "\\r"); break;
        case '\t': g_string_append (s, "\\t"); break;
        case '\b': g_string_append (s, "\\b"); break;
        case '\f': g_string_append (s, "\\f"); break;
        default: g_string_append_printf (s, "\\u%04x", c); break;
        }
    }
  g_string_append (s, run);
  g_string_append_c (s, '"');
}

/* TEXT between quotes, escaped (app_json_append_string). */
static void
put_string (AppJsonOut *out, const char *text)
{
  g_autoptr (GString) s = g_string_sized_new (strlen (text) + 2);
  app_json_append_string (s, text);
  put (out, s->str, s->len);
}

/* Start a value: the separator from the previous one in its container, the
 * indentation of its level, and its name inside an object. */
static void
item_start (AppJsonOut *out, const char *name)
{
  if (out->depth > 0)
    {
      if (out->has_items[out->depth])
        put (out, ",\n", 2);
      else
        put_c (out, '\n');
      out->has_items[out->depth] = TRUE;
    }
  put_indent (out, out->depth);
  if (name != NULL)
    {
      put_string (out, name);
      put (out, " : ", 3);
    }
}

static void
begin (AppJsonOut *out, const char *name, char open, char close)
{
  g_return_if_fail (out != NULL && out->depth < JSON_OUT_MAX_DEPTH);
  item_start (out, name);
  put_c (out, open);
  out->depth++;
  out->closer[out->depth] = close;
  out->has_items[out->depth] = FALSE;
}

/* Close the innermost container: a newline and its own indentation before
 * the bracket when it has items; an empty object keeps the indentation
 * (json-glib's layout), an empty array is [] . */
static void
end (AppJsonOut *out, char close)
{
  g_return_if_fail (out != NULL && out->depth > 0 && out->closer[out->depth] == close);
  gboolean items = out->has_items[out->depth];
  out->depth--;
  if (items)
    put_c (out, '\n');
  if (items || close == '}')
    put_indent (out, out->depth);
  put_c (out, close);
}

void
app_json_out_begin_object (AppJsonOut *out, const char *name)
{
  begin (out, name, '{', '}');
}

void
app_json_out_end_object (AppJsonOut *out)
{
  end (out, '}');
}

void
app_json_out_begin_array (AppJsonOut *out, const char *name)
{
  begin (out, name, '[', ']');
}

void
app_json_out_end_array (AppJsonOut *out)
{
  end (out, ']');
}

/* Write the magnitude V in decimal, behind a '-' when NEGATIVE. */
static void
put_whole (AppJsonOut *out, const char *name, guint64 v, gboolean negative)
{
  char digits[21];
  int i = sizeof digits;
  do
    {
      digits[--i] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  if (negative)
    digits[--i] = '-';
  item_start (out, name);
  put (out, digits + i, sizeof digits - (gsize) i);
}

void
app_json_out_int (AppJsonOut *out, const char *name, gint64 value)
{
  g_return_if_fail (out != NULL);
  put_whole (out, name, value < 0 ? -(guint64) value : (guint64) value, value < 0);
}

void
app_json_out_uint (AppJsonOut *out, const char *name, guint64 value)
{
  g_return_if_fail (out != NULL);
  put_whole (out, name, value, FALSE);
}

void
app_json_out_double (AppJsonOut *out, const char *name, double value)
{
  g_return_if_fail (out != NULL);
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_dtostr (text, sizeof text, value);
  item_start (out, name);
  put_str (out, text);
  if (strchr (text, '.') == NULL)
    put (out, ".0", 2);
}

void
app_json_out_string (AppJsonOut *out, const char *name, const char *value)
{
  g_return_if_fail (out != NULL && value != NULL);
  item_start (out, name);
  put_string (out, value);
}

void
app_json_out_boolean (AppJsonOut *out, const char *name, gboolean value)
{
  g_return_if_fail (out != NULL);
  item_start (out, name);
  put_str (out, value ? "true" : "false");
}

void
app_json_out_null (AppJsonOut *out, const char *name)
{
  g_return_if_fail (out != NULL);
  item_start (out, name);
  put (out, "null", 4);
}
