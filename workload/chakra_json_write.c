/* chakra_json_write.c: Chakra messages as JSON, the way chakra_jsonizer
 * (protobuf's MessageToJson) prints them, and `orrery convert`. */
#include "workload/chakra_json.h"
#include "workload/chakra_json_private.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/error.h"
#include "sim/out_file.h"
#include "workload/chakra.h"

void
wl_cj_camel (const ProtobufCFieldDescriptor *f, char *out, gsize cap)
{
  gsize j = 0;
  gboolean up = FALSE;
  for (const char *p = f->name; *p != '\0' && j + 1 < cap; p++)
    {
      if (*p == '_')
        {
          up = TRUE;
          continue;
        }
      out[j++] = *p;
      if (up)
        out[j - 1] = g_ascii_toupper (*p);
      up = FALSE;
    }
  out[j] = '\0';
}

gsize
wl_cj_elt_size (ProtobufCType t)
{
  switch (t)
    {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE:
      return 8;
    case PROTOBUF_C_TYPE_BOOL:
      return sizeof (protobuf_c_boolean);
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE:
      return sizeof (void *);
    case PROTOBUF_C_TYPE_BYTES:
      return sizeof (ProtobufCBinaryData);
    default:
      return 4;
    }
}

gboolean
wl_cj_present (const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, gsize *n)
{
  const guint8 *base = (const guint8 *) m;
  const void *at = base + f->offset;
  *n = 1;
  if (f->label == PROTOBUF_C_LABEL_REPEATED)
    {
      *n = *(const size_t *) (base + f->quantifier_offset);
      return *n > 0;
    }
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    return *(const uint32_t *) (base + f->quantifier_offset) == f->id;
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_STRING:
      return *(char *const *) at != NULL && **(char *const *) at != '\0';
    case PROTOBUF_C_TYPE_MESSAGE:
      return *(void *const *) at != NULL;
    case PROTOBUF_C_TYPE_BYTES:
      return ((const ProtobufCBinaryData *) at)->len > 0;
    default:
      break;
    }
  if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset != 0)
    return *(const protobuf_c_boolean *) (base + f->quantifier_offset);
  return wl_cj_elt_size (f->type) == 8 ? *(const guint64 *) at != 0 : *(const guint32 *) at != 0;
}

/* Append S (valid UTF-8) as a JSON string, escaped as Python's json.dumps
 * escapes with ensure_ascii: everything outside ' ' .. '~'. */
static void
put_string (GString *out, const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\n' ? "\\n"
                        : c == '\r' ? "\\r" : c == '\t' ? "\\t" : c == '\b' ? "\\b"
                        : c == '\f' ? "\\f" : NULL;
      if (esc != NULL)
        g_string_append (out, esc);
      else if (c >= 0x20 && c <= 0x7e)
        g_string_append_c (out, (char) c);
      else if (c < 0x10000)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_printf (out, "\\u%04x\\u%04x", 0xD800 + ((c - 0x10000) >> 10),
                                0xDC00 + ((c - 0x10000) & 0x3FF));
    }
  g_string_append_c (out, '"');
}

/* V as Python's repr prints a float: the shortest digits that read back
 * to V, fixed notation for exponents -4 .. 15 (with ".0" when whole),
 * else d.ddde+XX. */
static void
put_repr (GString *out, double v)
{
  char buf[40];
  for (int p = 0; p < 17; p++)
    {
      snprintf (buf, sizeof buf, "%.*e", p, v);
      if (strtod (buf, NULL) == v)
        break;
    }
  char *e = strchr (buf, 'e');
  int exp = (int) strtol (e + 1, NULL, 10);
  *e = '\0';
  gboolean neg = buf[0] == '-';
  GString *digits = g_string_new (NULL);
  for (const char *p = buf + neg; *p != '\0'; p++)
    if (g_ascii_isdigit (*p))
      g_string_append_c (digits, *p);
  while (digits->len > 1 && digits->str[digits->len - 1] == '0')
    g_string_truncate (digits, digits->len - 1);
  if (neg)
    g_string_append_c (out, '-');
  gint n = (gint) digits->len;
  if (exp >= -4 && exp < 16)
    {
      if (exp < 0)
        {
          g_string_append (out, "0.");
          for (int i = -1; i > exp; i--)
            g_string_append_c (out, '0');
          g_string_append (out, digits->str);
        }
      else
        {
          for (int i = 0; i <= exp; i++)
            g_string_append_c (out, i < n ? digits->str[i] : '0');
          g_string_append_c (out, '.');
          g_string_append (out, n > exp + 1 ? digits->str + exp + 1 : "0");
        }
    }
  else
    {
      g_string_append_c (out, digits->str[0]);
      if (n > 1)
        g_string_append_printf (out, ".%s", digits->str + 1);
      g_string_append_printf (out, "e%c%02d", exp < 0 ? '-' : '+', ABS (exp));
    }
  g_string_free (digits, TRUE);
}

/* A double or float V: a number, or "NaN"/"Infinity"/"-Infinity". */
static void
put_double (GString *out, double v)
{
  if (isnan (v))
    g_string_append (out, "\"NaN\"");
  else if (isinf (v))
    g_string_append (out, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  else
    put_repr (out, v);
}

/* A float as protobuf prints it: the double of the shortest %g (from 6
 * digits) that reads back to the same float. */
static void
put_float (GString *out, float v)
{
  if (isnan (v) || isinf (v))
    {
      put_double (out, v);
      return;
    }
  char buf[40];
  for (int p = 6; p <= 9; p++)
    {
      snprintf (buf, sizeof buf, "%.*g", p, (double) v);
      if (strtof (buf, NULL) == v)
        break;
    }
  put_repr (out, strtod (buf, NULL));
}

static void
newline (GString *out, guint depth)
{
  g_string_append_c (out, '\n');
  for (guint i = 0; i < depth; i++)
    g_string_append (out, "  ");
}

/* One value of field F at AT; a message recurses (as deep as the schema
 * nests). */
static gboolean
put_value (GString *out, const ProtobufCFieldDescriptor *f, /* NOLINT(misc-no-recursion) */
           const void *at, guint depth, char **why)
{
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      g_string_append_printf (out, "%" G_GINT32_FORMAT, *(const gint32 *) at);
      return TRUE;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      g_string_append_printf (out, "%" G_GUINT32_FORMAT, *(const guint32 *) at);
      return TRUE;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      g_string_append_printf (out, "\"%" G_GINT64_FORMAT "\"", *(const gint64 *) at);
      return TRUE;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      g_string_append_printf (out, "\"%" G_GUINT64_FORMAT "\"", *(const guint64 *) at);
      return TRUE;
    case PROTOBUF_C_TYPE_FLOAT:
      put_float (out, *(const float *) at);
      return TRUE;
    case PROTOBUF_C_TYPE_DOUBLE:
      put_double (out, *(const double *) at);
      return TRUE;
    case PROTOBUF_C_TYPE_BOOL:
      g_string_append (out, *(const protobuf_c_boolean *) at ? "true" : "false");
      return TRUE;
    case PROTOBUF_C_TYPE_ENUM:
      {
        const ProtobufCEnumValue *ev
            = protobuf_c_enum_descriptor_get_value (f->descriptor, *(const int *) at);
        if (ev != NULL)
          put_string (out, ev->name);
        else
          g_string_append_printf (out, "%d", *(const int *) at);
        return TRUE;
      }
    case PROTOBUF_C_TYPE_STRING:
      {
        const char *s = *(char *const *) at;
        if (!g_utf8_validate (s, -1, NULL))
          {
            *why = g_strdup_printf ("field \"%s\" is not UTF-8 text, which JSON cannot hold",
                                    f->name);
            return FALSE;
          }
        put_string (out, s);
        return TRUE;
      }
    case PROTOBUF_C_TYPE_BYTES:
      {
        const ProtobufCBinaryData *b = at;
        g_autofree char *text = g_base64_encode (b->data, b->len);
        g_string_append_printf (out, "\"%s\"", text);
        return TRUE;
      }
    case PROTOBUF_C_TYPE_MESSAGE:
      return wl_cj_write_message (out, *(const ProtobufCMessage *const *) at, depth, why);
    }
  return TRUE;
}

gboolean
wl_cj_write_message (GString *out, const ProtobufCMessage *m, /* NOLINT(misc-no-recursion) */
                     guint depth, char **why)
{
  const ProtobufCMessageDescriptor *d = m->descriptor;
  if (m->n_unknown_fields > 0)
    {
      *why = g_strdup_printf ("field number %u is not in the Chakra schema's %s, and JSON "
                              "cannot carry it", m->unknown_fields[0].tag, d->short_name);
      return FALSE;
    }
  guint written = 0;
  g_string_append_c (out, '{');
  for (guint i = 0; i < d->n_fields; i++)
    {
      const ProtobufCFieldDescriptor *f = &d->fields[i];
      gsize n;
      if (!wl_cj_present (m, f, &n))
        continue;
      char name[64];
      wl_cj_camel (f, name, sizeof name);
      g_string_append (out, written++ > 0 ? "," : "");
      newline (out, depth + 1);
      g_string_append_printf (out, "\"%s\": ", name);
      const guint8 *at = (const guint8 *) m + f->offset;
      if (f->label != PROTOBUF_C_LABEL_REPEATED)
        {
          if (!put_value (out, f, at, depth + 1, why))
            return FALSE;
          continue;
        }
      const guint8 *arr = *(const guint8 *const *) at;
      gsize size = wl_cj_elt_size (f->type);
      g_string_append_c (out, '[');
      for (gsize k = 0; k < n; k++)
        {
          g_string_append (out, k > 0 ? "," : "");
          newline (out, depth + 2);
          if (!put_value (out, f, arr + k * size, depth + 2, why))
            return FALSE;
        }
      newline (out, depth + 1);
      g_string_append_c (out, ']');
    }
  if (written > 0)
    newline (out, depth);
  g_string_append_c (out, '}');
  return TRUE;
}

/* Write the messages of reader R (of the file IN) to OUT as JSON, through a
 * writer (sim/out_file.h): OUT appears whole when every message was read and
 * written, and is left as it was (absent, or its old contents) otherwise. */
static gboolean
write_json (WlChakraReader *r, const char *in, const char *out, GError **error)
{
  g_autoptr (GError) local = NULL;
  SimOutFile *of = sim_out_file_open (out, &local);
  if (of == NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", out,
                   local->message);
      return FALSE;
    }
  int fd = dup (sim_out_file_fd (of));
  FILE *fp = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (fp == NULL)
    {
      int errsv = errno;
      if (fd >= 0)
        close (fd);
      sim_out_file_discard (of);
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", out,
                   g_strerror (errsv));
      return FALSE;
    }
  g_autoptr (GString) s = g_string_new (NULL);
  g_autofree char *why = NULL;
  gboolean ok = wl_cj_write_message (s, &wl_chakra_reader_metadata (r)->base, 0, &why);
  if (!ok)
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: GlobalMetadata: %s",
                 in, why);
  while (ok)
    {
      g_string_append_c (s, '\n');
      ok = fwrite (s->str, 1, s->len, fp) == s->len;
      if (!ok)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", out,
                       g_strerror (errno));
          break;
        }
      g_string_truncate (s, 0);
      ChakraProtoMsg__Node *n = wl_chakra_reader_next (r, error);
      if (n == NULL)
        break;
      ok = wl_cj_write_message (s, &n->base, 0, &why);
      if (!ok)
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT ": %s",
                     in, n->id, why);
      wl_chakra_node_free (n);
    }
  ok = (error == NULL || *error == NULL) && ok;
  if (fclose (fp) != 0 && ok)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", out,
                   g_strerror (errno));
      ok = FALSE;
    }
  if (!ok)
    {
      sim_out_file_discard (of);
      return FALSE;
    }
  if (!sim_out_file_commit (of, &local))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s", local->message);
      return FALSE;
    }
  return TRUE;
}

/* Write the messages of reader R to OUT as a binary trace. */
static gboolean
write_et (WlChakraReader *r, const char *out, GError **error)
{
  g_autoptr (WlChakraWriter) w
      = wl_chakra_writer_open_metadata (out, wl_chakra_reader_metadata (r), error);
  if (w == NULL)
    return FALSE;
  for (;;)
    {
      g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (r, error);
      if (n == NULL)
        break;
      if (!wl_chakra_writer_add (w, n, error))
        return FALSE;
    }
  if (error != NULL && *error != NULL)
    return FALSE;
  return wl_chakra_writer_close (w, error);
}

gboolean
wl_chakra_convert (const char *in, const char *out, GError **error)
{
  g_return_val_if_fail (in != NULL && out != NULL, FALSE);
  GStatBuf a, b;
  if (g_stat (in, &a) == 0 && g_stat (out, &b) == 0 && a.st_dev == b.st_dev
      && a.st_ino == b.st_ino)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: the input and the output are the same file", out);
      return FALSE;
    }
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (in, error);
  if (r == NULL)
    return FALSE;
  return wl_chakra_json_path (out) ? write_json (r, in, out, error) : write_et (r, out, error);
}

char *
wl_chakra_trace_path_in (const WlTraceDir *dir, const char *prefix, guint32 rank,
                         gboolean *exists)
{
  char *et = g_strdup_printf ("%s.%u.et", prefix, rank);
  gboolean found = wl_trace_dir_exists (dir, et);
  if (!found)
    {
      char *json = g_strdup_printf ("%s.%u.json", prefix, rank);
      if (wl_trace_dir_exists (dir, json))
        {
          g_free (et);
          et = json;
          found = TRUE;
        }
      else
        g_free (json);
    }
  if (exists != NULL)
    *exists = found;
  return et;
}

char *
wl_chakra_trace_path (const char *prefix, guint32 rank)
{
  return wl_chakra_trace_path_in (NULL, prefix, rank, NULL);
}

gboolean
wl_chakra_trace_form_check_in (const WlTraceDir *dir, const char *prefix, guint32 rank,
                               const char *path, const char *first, GError **error)
{
  gboolean json = wl_chakra_json_path (path);
  g_autofree char *other = json ? NULL : g_strdup_printf ("%s.%u.json", prefix, rank);
  const char *clash = other != NULL && wl_trace_dir_exists (dir, other) ? other
                      : first != NULL && wl_chakra_json_path (first) != json ? first
                                                                             : NULL;
  if (clash == NULL)
    return TRUE;
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s and %s: a workload's traces are all .et or all .json, not both (move one "
               "form aside)", path, clash);
  return FALSE;
}

gboolean
wl_chakra_trace_form_check (const char *prefix, guint32 rank, const char *path,
                            const char *first, GError **error)
{
  return wl_chakra_trace_form_check_in (NULL, prefix, rank, path, first, error);
}
