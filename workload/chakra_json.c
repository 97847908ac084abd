/* chakra_json.c: reading Chakra traces written as JSON (chakra_jsonizer's
 * form) into the bytes of the .et file they stand for. */
#include "workload/chakra_json.h"
#include "workload/chakra_json_private.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chakra.pb-c.h"
#include "sim/error.h"
#include "sim/json_numbers.h"
#include "sim/nesting.h"
#include "workload/json_keys.h"
#include "workload/wl_error.h"

/* One object being decoded: where it is, for messages, and the blocks its
 * messages are built in (freed together once it is encoded). */
typedef struct
{
  const char *path;
  guint line;       /* the line the object starts on */
  char *what;       /* "GlobalMetadata" or "node ID" */
  GPtrArray *pool;  /* g_free'd blocks */
} Obj;

gboolean
wl_chakra_json_path (const char *path)
{
  return path != NULL && g_str_has_suffix (path, ".json");
}

static gpointer
obj_alloc (Obj *o, gsize size)
{
  gpointer p = g_malloc0 (MAX (size, 1));
  g_ptr_array_add (o->pool, p);
  return p;
}

static gboolean
bad (Obj *o, const char *field, GError **error, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

/* An input error "PATH:LINE: WHAT: field "FIELD": <fmt>". */
static gboolean
bad (Obj *o, const char *field, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%u: %s: field \"%s\": %s", o->path, o->line,
               o->what, field, msg);
  return FALSE;
}

/* An integer from a JSON number or a decimal string, within LO .. HI
 * (as signed), or within 0 .. UHI when UNSIGNED_. */
static gboolean
get_int (Obj *o, const char *field, JsonNode *v, gboolean unsigned_, gint64 lo, gint64 hi,
         guint64 uhi, guint64 *out, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_INT64)
    {
      gint64 x = json_node_get_int (v);
      if (unsigned_ ? x < 0 || (guint64) x > uhi : x < lo || x > hi)
        return bad (o, field, error, "%" G_GINT64_FORMAT " is out of range", x);
      *out = (guint64) x;
      return TRUE;
    }
  if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_STRING)
    return bad (o, field, error, "must be an integer (a number or a decimal string)");
  const char *s = json_node_get_string (v);
  if (unsigned_)
    {
      if (g_ascii_string_to_unsigned (s, 10, 0, uhi, out, NULL))
        return TRUE;
    }
  else
    {
      gint64 x;
      if (g_ascii_string_to_signed (s, 10, lo, hi, &x, NULL))
        {
          *out = (guint64) x;
          return TRUE;
        }
    }
  return bad (o, field, error, "\"%s\" is not an integer in range", s);
}

/* A double from a number or "NaN", "Infinity", "-Infinity" (or a decimal
 * string, as protobuf accepts). */
static gboolean
get_double (Obj *o, const char *field, JsonNode *v, double *out, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_INT64)
    {
      *out = (double) json_node_get_int (v);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_DOUBLE)
    {
      *out = json_node_get_double (v);
      return TRUE;
    }
  if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING)
    {
      const char *s = json_node_get_string (v);
      char *end = NULL;
      *out = strcmp (s, "NaN") == 0        ? NAN
             : strcmp (s, "Infinity") == 0  ? INFINITY
             : strcmp (s, "-Infinity") == 0 ? -INFINITY
                                            : g_ascii_strtod (s, &end);
      if (end == NULL || (end != s && *end == '\0' && isfinite (*out)))
        return TRUE;
      return bad (o, field, error, "\"%s\" is not a number", s);
    }
  return bad (o, field, error, "must be a number");
}

static gboolean decode_message (Obj *o, JsonObject *obj, ProtobufCMessage *m, GError **error);

/* Base64 (standard or URL-safe, padding optional) into B, as protobuf
 * reads bytes fields. */
static gboolean
get_bytes (Obj *o, const char *field, const char *s, ProtobufCBinaryData *b, GError **error)
{
  gsize n = strlen (s);
  char *t = obj_alloc (o, n + 4);
  /* Up to two '=' of padding at the end. */
  for (guint pad = 0; pad < 2 && n > 0 && s[n - 1] == '='; pad++)
    n--;
  for (gsize i = 0; i < n; i++)
    {
      char c = s[i];
      if (c == '-' || c == '_')
        c = c == '-' ? '+' : '/';
      if (!g_ascii_isalnum (c) && c != '+' && c != '/')
        return bad (o, field, error, "is not base64");
      t[i] = c;
    }
  if (n % 4 == 1)
    return bad (o, field, error, "is not base64 (a length of 4 k + 1 characters)");
  while (n % 4 != 0)
    t[n++] = '=';
  gsize len = 0;
  guchar *data = n > 0 ? g_base64_decode (t, &len) : NULL;
  if (data != NULL)
    g_ptr_array_add (o->pool, data);
  b->data = data;
  b->len = len;
  return TRUE;
}

/* One value of field F from V into AT.  A message recurses into
 * decode_message: as deep as the schema nests (Node > AttributeProto >
 * a list), whatever the text. */
static gboolean
get_value (Obj *o, const ProtobufCFieldDescriptor *f, /* NOLINT(misc-no-recursion) */
           const char *field, JsonNode *v, void *at, GError **error)
{
  guint64 u = 0;
  double d = 0;
  switch (f->type)
    {
    case PROTOBUF_C_TYPE_INT32:
    case PROTOBUF_C_TYPE_SINT32:
    case PROTOBUF_C_TYPE_SFIXED32:
      if (!get_int (o, field, v, FALSE, G_MININT32, G_MAXINT32, 0, &u, error))
        return FALSE;
      *(gint32 *) at = (gint32) (gint64) u;
      return TRUE;
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
      if (!get_int (o, field, v, TRUE, 0, 0, G_MAXUINT32, &u, error))
        return FALSE;
      *(guint32 *) at = (guint32) u;
      return TRUE;
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
      if (!get_int (o, field, v, FALSE, G_MININT64, G_MAXINT64, 0, &u, error))
        return FALSE;
      *(gint64 *) at = (gint64) u;
      return TRUE;
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
      return get_int (o, field, v, TRUE, 0, 0, G_MAXUINT64, (guint64 *) at, error);
    case PROTOBUF_C_TYPE_DOUBLE:
      return get_double (o, field, v, (double *) at, error);
    case PROTOBUF_C_TYPE_FLOAT:
      if (!get_double (o, field, v, &d, error))
        return FALSE;
      if (isfinite (d) && fabs (d) > 3.4028234663852886e38)
        return bad (o, field, error, "%g is too large for a float", d);
      *(float *) at = (float) d;
      return TRUE;
    case PROTOBUF_C_TYPE_BOOL:
      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_BOOLEAN)
        return bad (o, field, error, "must be true or false");
      *(protobuf_c_boolean *) at = json_node_get_boolean (v);
      return TRUE;
    case PROTOBUF_C_TYPE_ENUM:
      if (JSON_NODE_HOLDS_VALUE (v) && json_node_get_value_type (v) == G_TYPE_STRING)
        {
          const ProtobufCEnumValue *ev = protobuf_c_enum_descriptor_get_value_by_name (
              f->descriptor, json_node_get_string (v));
          if (ev == NULL)
            return bad (o, field, error, "\"%s\" is not a %s", json_node_get_string (v),
                        ((const ProtobufCEnumDescriptor *) f->descriptor)->short_name);
          *(int *) at = ev->value;
          return TRUE;
        }
      if (!get_int (o, field, v, FALSE, G_MININT32, G_MAXINT32, 0, &u, error))
        return FALSE;
      *(int *) at = (int) (gint64) u;
      return TRUE;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_BYTES:
      if (!JSON_NODE_HOLDS_VALUE (v) || json_node_get_value_type (v) != G_TYPE_STRING)
        return bad (o, field, error, "must be a string");
      if (f->type == PROTOBUF_C_TYPE_BYTES)
        return get_bytes (o, field, json_node_get_string (v), at, error);
      {
        gsize n = strlen (json_node_get_string (v));
        *(char **) at = obj_alloc (o, n + 1);
        memcpy (*(char **) at, json_node_get_string (v), n);
        return TRUE;
      }
    case PROTOBUF_C_TYPE_MESSAGE:
      {
        if (!JSON_NODE_HOLDS_OBJECT (v))
          return bad (o, field, error, "must be an object");
        const ProtobufCMessageDescriptor *md = f->descriptor;
        ProtobufCMessage *sub = obj_alloc (o, md->sizeof_message);
        protobuf_c_message_init (md, sub);
        *(ProtobufCMessage **) at = sub;
        return decode_message (o, json_node_get_object (v), sub, error);
      }
    }
  return bad (o, field, error, "has a type orrery does not know");
}

/* The field of D that JSON member NAME names (lowerCamel or .proto name). */
static const ProtobufCFieldDescriptor *
field_named (const ProtobufCMessageDescriptor *d, const char *name)
{
  for (guint i = 0; i < d->n_fields; i++)
    {
      char camel[64];
      wl_cj_camel (&d->fields[i], camel, sizeof camel);
      if (strcmp (name, camel) == 0 || strcmp (name, d->fields[i].name) == 0)
        return &d->fields[i];
    }
  return NULL;
}

/* Member NAME (value V) into M: its field, once, and one oneof member. */
static gboolean
decode_member (Obj *o, ProtobufCMessage *m, const char *name, /* NOLINT(misc-no-recursion) */
               JsonNode *v, guint64 *seen, GError **error)
{
  const ProtobufCMessageDescriptor *d = m->descriptor;
  const ProtobufCFieldDescriptor *f = field_named (d, name);
  if (f == NULL)
    return bad (o, name, error, "is not a field of the Chakra schema's %s", d->short_name);
  guint idx = (guint) (f - d->fields);
  if (*seen & (G_GUINT64_CONSTANT (1) << idx))
    return bad (o, name, error, "is given twice (as \"%s\" and its other name)", name);
  *seen |= G_GUINT64_CONSTANT (1) << idx;
  if (JSON_NODE_HOLDS_NULL (v))
    return TRUE; /* null: the default, as protobuf reads it */
  guint8 *base = (guint8 *) m;
  if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF)
    {
      uint32_t *which = (uint32_t *) (base + f->quantifier_offset);
      if (*which != 0)
        return bad (o, name, error, "is a second value of one oneof");
      *which = f->id;
    }
  else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->quantifier_offset != 0
           && f->type != PROTOBUF_C_TYPE_STRING && f->type != PROTOBUF_C_TYPE_MESSAGE)
    *(protobuf_c_boolean *) (base + f->quantifier_offset) = TRUE;
  if (f->label != PROTOBUF_C_LABEL_REPEATED)
    return get_value (o, f, name, v, base + f->offset, error);
  if (!JSON_NODE_HOLDS_ARRAY (v))
    return bad (o, name, error, "must be a list");
  JsonArray *a = json_node_get_array (v);
  gsize n = json_array_get_length (a), size = wl_cj_elt_size (f->type);
  guint8 *arr = obj_alloc (o, n * size);
  for (gsize k = 0; k < n; k++)
    if (!get_value (o, f, name, json_array_get_element (a, (guint) k), arr + k * size, error))
      return FALSE;
  *(size_t *) (base + f->quantifier_offset) = n;
  *(void **) (base + f->offset) = arr;
  return TRUE;
}

static gboolean
decode_message (Obj *o, JsonObject *obj, ProtobufCMessage *m, /* NOLINT(misc-no-recursion) */
                GError **error)
{
  guint64 seen = 0;
  g_assert (m->descriptor->n_fields <= 64);
  g_autoptr (GList) names = json_object_get_members (obj);
  for (GList *l = names; l != NULL; l = l->next)
    if (!decode_member (o, m, l->data, json_object_get_member (obj, l->data), &seen, error))
      return FALSE;
  return TRUE;
}

/* The end of the JSON object starting at TEXT[AT] ('{'): the index after
 * its closing brace, or LEN when the text ends first (*CLOSED then FALSE).
 * *LINES counts the newlines in it. */
static gsize
object_end (const char *text, gsize len, gsize at, guint *lines, gboolean *closed)
{
  *closed = TRUE;
  guint depth = 0;
  gboolean in_string = FALSE;
  for (gsize i = at; i < len; i++)
    {
      char c = text[i];
      if (c == '\n')
        (*lines)++;
      if (in_string)
        {
          if (c == '\\' && i + 1 < len && text[i + 1] != '\n')
            i++;
          else if (c == '"')
            in_string = FALSE;
        }
      else if (c == '"')
        in_string = TRUE;
      else if (c == '{' || c == '[')
        depth++;
      else if ((c == '}' || c == ']') && --depth == 0)
        return i + 1;
    }
  *closed = FALSE;
  return len;
}

/* json-glib's "<data>:L:C: message" for the object at LINE as
 * "PATH:L':C: message", L' counted in the file. */
static void
parse_error (const char *path, guint line, const GError *err, GError **error)
{
  const char *p = err->message;
  char *end = NULL;
  guint64 l = 0, c = 0;
  if (g_str_has_prefix (p, "<data>:"))
    l = g_ascii_strtoull (p + 7, &end, 10);
  if (end != NULL && *end == ':')
    c = g_ascii_strtoull (end + 1, &end, 10);
  if (l > 0 && l < G_MAXUINT && c > 0 && g_str_has_prefix (end, ": "))
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%" G_GUINT64_FORMAT ":%" G_GUINT64_FORMAT
                 ": %s", path, line + l - 1, c, end + 2);
  else
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%u: %s", path, line, err->message);
}

/* The frame of the object TEXT[AT .. END) (at LINE; the GlobalMetadata
 * when FIRST) appended to OUT. */
static gboolean
decode_object (const char *path, const char *text, gsize at, gsize end, guint line,
               gboolean first, GByteArray *out, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (WlJsonKeys) keys = wl_json_keys_watch (parser);
  g_autoptr (GError) err = NULL;
  if (!json_parser_load_from_data (parser, text + at, (gssize) (end - at), &err))
    {
      parse_error (path, line, err, error);
      return FALSE;
    }
  g_autofree char *where = g_strdup_printf ("%s:%u", path, line);
  if (!wl_json_keys_check (keys, where, error))
    return FALSE;
  JsonObject *obj = json_node_get_object (json_parser_get_root (parser));
  const ProtobufCMessageDescriptor *d = first ? &chakra_proto_msg__global_metadata__descriptor
                                              : &chakra_proto_msg__node__descriptor;
  JsonNode *id = first ? NULL : json_object_get_member (obj, "id");
  Obj o = { .path = path, .line = line, .pool = g_ptr_array_new_with_free_func (g_free) };
  o.what = first                   ? g_strdup ("GlobalMetadata")
           : id != NULL && JSON_NODE_HOLDS_VALUE (id)
               && json_node_get_value_type (id) == G_TYPE_STRING
             ? g_strdup_printf ("node %s", json_node_get_string (id))
           : id != NULL && JSON_NODE_HOLDS_VALUE (id)
               && json_node_get_value_type (id) == G_TYPE_INT64
             ? g_strdup_printf ("node %" G_GINT64_FORMAT, json_node_get_int (id))
             : g_strdup ("node");
  ProtobufCMessage *m = obj_alloc (&o, d->sizeof_message);
  protobuf_c_message_init (d, m);
  gboolean ok = decode_message (&o, obj, m, error);
  if (ok)
    {
      gsize n = protobuf_c_message_get_packed_size (m);
      guint8 varint[10];
      guint k = 0;
      for (guint64 v = n; k == 0 || v > 0; v >>= 7)
        varint[k++] = (guint8) ((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
      g_byte_array_append (out, varint, k);
      gsize from = out->len;
      g_byte_array_set_size (out, (guint) (from + n));
      protobuf_c_message_pack (m, out->data + from);
    }
  g_ptr_array_unref (o.pool);
  g_free (o.what);
  return ok;
}

GBytes *
wl_chakra_json_to_et (const char *path, const char *text, gsize len, GError **error)
{
  g_return_val_if_fail (path != NULL && (text != NULL || len == 0), NULL);
  g_autoptr (GError) deep = NULL;
  if (!sim_json_depth_check (text, (gssize) len, &deep))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%s", path, deep->message);
      return NULL;
    }
  /* json-glib would wrap a bare integer past 2^63 - 1; protobuf's JSON
   * writes 64-bit integers as strings, which get_int reads exactly. */
  if (!sim_json_numbers_check (text, (gssize) len, SIM_JSON_INT64, NULL, &deep))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s:%s; a 64-bit field may hold it as a decimal string (\"...\")", path,
                   deep->message);
      return NULL;
    }
  g_autoptr (GByteArray) out = g_byte_array_new ();
  guint line = 1;
  gboolean first = TRUE;
  for (gsize at = 0; at < len;)
    {
      char c = text[at];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n')
        {
          line += c == '\n';
          at++;
          continue;
        }
      if (c != '{')
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "%s:%u: expected a JSON object ('{'), one per message, found '%c'", path,
                       line, g_ascii_isprint (c) ? c : '?');
          return NULL;
        }
      guint lines = 0;
      gboolean closed;
      gsize end = object_end (text, len, at, &lines, &closed);
      if (!closed)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "%s: truncated: the %s that starts on line %u is not closed when the "
                       "file ends (line %u, byte %" G_GSIZE_FORMAT ")",
                       path, first ? "GlobalMetadata" : "node", line,
                       line + lines - (text[len - 1] == '\n'), len);
          return NULL;
        }
      if (out->len > G_MAXUINT - (end - at) * 4
          || !decode_object (path, text, at, end, line, first, out, error))
        {
          if (error != NULL && *error == NULL)
            g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%u: trace too large", path, line);
          return NULL;
        }
      first = FALSE;
      line += lines;
      at = end;
    }
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}
