/* chakra.c: Chakra .et reader and writer (framing, gzip, attribute access). */
#include "workload/chakra.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* A length varint never needs more than ten bytes (64 bits, 7 per byte). */
#define VARINT_MAX_BYTES 10

/* The union member name of an AttributeProto value kind, e.g. VC (INT32_VAL). */
#define VC(kind) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##kind

struct _WlChakraReader
{
  char *path;
  guint8 *data;   /* the whole file, decompressed */
  gsize size;
  gsize pos;      /* offset of the next frame */
  guint64 frame;  /* index of the next frame, frame 0 being the metadata */
  gboolean gzipped;
  gboolean headerless;
  gboolean empty;     /* an empty file opened with WL_CHAKRA_ALLOW_EMPTY */
  gboolean truncated; /* the failure is a last frame cut short */
  ChakraProtoMsg__GlobalMetadata *meta; /* NULL when headerless */
  GError *failure; /* the first framing error, repeated by later calls */
};

struct _WlChakraWriter
{
  char *path;
  FILE *file; /* plain output, or NULL */
  gzFile gz;  /* gzip output, or NULL */
  guint8 *buf; /* scratch space for one frame, reused to avoid a malloc per node */
  gsize cap;
  gboolean closed;
  gboolean failed;
};

/* ------------------------------------------------------------ varints */

typedef enum
{
  VARINT_OK,
  VARINT_TRUNCATED, /* the input ended inside the varint */
  VARINT_TOO_LONG   /* more than ten bytes with the continuation bit */
} VarintStatus;

static VarintStatus
varint_decode (const guint8 *p, gsize avail, guint64 *value, gsize *used)
{
  guint64 v = 0;
  for (gsize i = 0; i < avail && i < VARINT_MAX_BYTES; i++)
    {
      v |= (guint64) (p[i] & 0x7f) << (7 * i);
      if ((p[i] & 0x80) == 0)
        {
          *value = v;
          *used = i + 1;
          return VARINT_OK;
        }
    }
  return avail < VARINT_MAX_BYTES ? VARINT_TRUNCATED : VARINT_TOO_LONG;
}

static gsize
varint_encode (guint8 *out, guint64 v)
{
  gsize n = 0;
  while (v >= 0x80)
    {
      out[n++] = (guint8) (v | 0x80);
      v >>= 7;
    }
  out[n++] = (guint8) v;
  return n;
}

/* ------------------------------------------------------------- loading */

/* Inflate a gzip image (possibly several concatenated members, as `cat a.gz
 * b.gz` makes).  The output buffer doubles as it fills, so the cost stays
 * linear in the output size. */
static gboolean
gunzip (const char *path, const guint8 *in, gsize in_len, guint8 **out, gsize *out_len,
        GError **error)
{
  z_stream zs = { 0 };
  if (inflateInit2 (&zs, 16 + MAX_WBITS) != Z_OK)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot start gzip decoder", path);
      return FALSE;
    }
  gsize cap = MAX (in_len * 4, (gsize) 1 << 16), len = 0, in_pos = 0;
  g_autofree guint8 *buf = g_malloc (cap);
  for (;;)
    {
      /* zlib counts in uInt, so feed and drain in pieces below 4 GiB. */
      if (zs.avail_in == 0 && in_pos < in_len)
        {
          zs.next_in = (Bytef *) in + in_pos;
          zs.avail_in = (uInt) MIN (in_len - in_pos, (gsize) G_MAXINT32);
          in_pos += zs.avail_in;
        }
      if (len == cap)
        buf = g_realloc (buf, cap *= 2);
      uInt room = (uInt) MIN (cap - len, (gsize) G_MAXINT32);
      zs.next_out = buf + len;
      zs.avail_out = room;
      int ret = inflate (&zs, Z_NO_FLUSH);
      len += room - zs.avail_out;
      gboolean input_done = zs.avail_in == 0 && in_pos == in_len;
      if (ret == Z_STREAM_END && input_done)
        break;
      if (ret == Z_STREAM_END)
        ret = inflateReset (&zs);
      else if (ret == Z_BUF_ERROR && input_done)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "%s: truncated gzip data (after %" G_GSIZE_FORMAT " decompressed bytes)",
                       path, len);
          inflateEnd (&zs);
          return FALSE;
        }
      if (ret != Z_OK && ret != Z_BUF_ERROR)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: bad gzip data: %s", path,
                       zs.msg != NULL ? zs.msg : "inflate failed");
          inflateEnd (&zs);
          return FALSE;
        }
    }
  inflateEnd (&zs);
  *out = g_steal_pointer (&buf);
  *out_len = len;
  return TRUE;
}

static gboolean
load_error (WlChakraReader *r, int errsv, GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot read Chakra trace: %s", r->path,
               g_strerror (errsv));
  return FALSE;
}

/* Read the whole file; it need not be a regular file (a pipe works), so
 * the size from fstat is only the first guess and the buffer doubles. */
static gboolean
read_raw (WlChakraReader *r, guint8 **raw, gsize *len, GError **error)
{
  FILE *f = fopen (r->path, "rb");
  if (f == NULL)
    return load_error (r, errno, error);
  struct stat st;
  gsize cap = fstat (fileno (f), &st) == 0 && st.st_size > 0 ? (gsize) st.st_size + 1 : 65536;
  gsize n = 0;
  g_autofree guint8 *buf = g_malloc (cap);
  for (;;)
    {
      n += fread (buf + n, 1, cap - n, f);
      if (n < cap)
        break;
      buf = g_realloc (buf, cap *= 2);
    }
  int errsv = errno;
  gboolean failed = ferror (f) != 0;
  fclose (f);
  if (failed)
    return load_error (r, errsv, error);
  *raw = g_steal_pointer (&buf);
  *len = n;
  return TRUE;
}

static gboolean
load_file (WlChakraReader *r, GError **error)
{
  guint8 *raw = NULL;
  gsize len = 0;
  if (!read_raw (r, &raw, &len, error))
    return FALSE;
  if (len >= 2 && raw[0] == 0x1f && raw[1] == 0x8b)
    {
      r->gzipped = TRUE;
      gboolean ok = gunzip (r->path, raw, len, &r->data, &r->size, error);
      g_free (raw);
      return ok;
    }
  r->data = raw;
  r->size = len;
  return TRUE;
}

/* -------------------------------------------------------------- frames */

static void G_GNUC_PRINTF (4, 5)
frame_error (const WlChakraReader *r, gsize offset, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: frame %" G_GUINT64_FORMAT " at byte offset %" G_GSIZE_FORMAT "%s: %s",
               r->path, r->frame, offset, r->gzipped ? " (decompressed)" : "", what);
}

/* Cut the frame at r->pos (the caller has checked r->pos < r->size) and
 * advance past it.  The length is checked against the bytes left before
 * anything is allocated, so a corrupt length cannot cause a huge allocation. */
static gboolean
frame_take (WlChakraReader *r, const guint8 **frame, gsize *len, GError **error)
{
  guint64 length = 0;
  gsize used = 0;
  VarintStatus st = varint_decode (r->data + r->pos, r->size - r->pos, &length, &used);
  if (st != VARINT_OK)
    {
      r->truncated = st == VARINT_TRUNCATED;
      frame_error (r, r->pos, error, st == VARINT_TRUNCATED
                   ? "truncated length varint at end of file"
                   : "length varint longer than 10 bytes");
      return FALSE;
    }
  gsize left = r->size - r->pos - used;
  if (length > left)
    {
      r->truncated = TRUE;
      frame_error (r, r->pos, error,
                   "frame length %" G_GUINT64_FORMAT " runs past end of file (%" G_GSIZE_FORMAT
                   " bytes left): truncated file?", length, left);
      return FALSE;
    }
  *frame = r->data + r->pos + used;
  *len = (gsize) length;
  r->pos += used + (gsize) length;
  r->frame++;
  return TRUE;
}

/* TRUE when every top-level field is field 1 or 2 with length-delimited
 * encoding, the only shape a GlobalMetadata (version, attr) can have.  A
 * Node's id is field 1 as a varint, and its type, deps, times, IOInfo and
 * attributes are fields 3..10, so any real node fails this test. */
static gboolean
has_metadata_shape (const guint8 *buf, gsize len)
{
  gsize pos = 0;
  while (pos < len)
    {
      guint64 tag = 0, field_len = 0;
      gsize used = 0;
      if (varint_decode (buf + pos, len - pos, &tag, &used) != VARINT_OK)
        return FALSE;
      pos += used;
      if ((tag >> 3 != 1 && tag >> 3 != 2) || (tag & 7) != 2)
        return FALSE;
      if (varint_decode (buf + pos, len - pos, &field_len, &used) != VARINT_OK)
        return FALSE;
      pos += used;
      if (field_len > len - pos)
        return FALSE;
      pos += (gsize) field_len;
    }
  return TRUE;
}

/* Decide what frame 0 is; see wl_chakra_reader_open_full. */
static gboolean
read_header (WlChakraReader *r, WlChakraReadFlags flags, GError **error)
{
  const guint8 *frame = NULL;
  gsize len = 0;
  if (r->size == 0 && (flags & WL_CHAKRA_ALLOW_EMPTY))
    {
      r->empty = TRUE;
      return TRUE;
    }
  if (r->size == 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: empty trace (no GlobalMetadata frame)", r->path);
      return FALSE;
    }
  if (!frame_take (r, &frame, &len, error))
    {
      r->truncated = FALSE; /* a cut frame 0 leaves nothing to keep */
      return FALSE;
    }
  if (has_metadata_shape (frame, len))
    r->meta = chakra_proto_msg__global_metadata__unpack (NULL, len, frame);
  if (r->meta != NULL)
    return TRUE;

  g_autoptr (ChakraProtoMsg__Node) node = chakra_proto_msg__node__unpack (NULL, len, frame);
  if (node == NULL)
    {
      /* Not node-like either: perhaps metadata with fields from a newer schema. */
      r->meta = chakra_proto_msg__global_metadata__unpack (NULL, len, frame);
      if (r->meta != NULL)
        return TRUE;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: frame 0 (%" G_GSIZE_FORMAT " bytes) is neither a GlobalMetadata nor "
                   "a Node: not a Chakra trace", r->path, len);
      return FALSE;
    }
  if (!(flags & WL_CHAKRA_ALLOW_HEADERLESS))
    {
      const char *type = wl_chakra_node_type_name (node->type);
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: headerless (pre-2024) Chakra trace: frame 0 is a Node (id %"
                   G_GUINT64_FORMAT ", type %s), not a GlobalMetadata; convert it with a "
                   "current Chakra converter", r->path, node->id, type != NULL ? type : "?");
      return FALSE;
    }
  r->headerless = TRUE;
  r->pos = 0;
  r->frame = 0;
  return TRUE;
}

/* -------------------------------------------------------------- reader */

WlChakraReader *
wl_chakra_reader_open (const char *path, GError **error)
{
  return wl_chakra_reader_open_full (path, WL_CHAKRA_READ_DEFAULT, error);
}

WlChakraReader *
wl_chakra_reader_open_full (const char *path, WlChakraReadFlags flags, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autoptr (WlChakraReader) r = g_new0 (WlChakraReader, 1);
  r->path = g_strdup (path);
  if (!load_file (r, error) || !read_header (r, flags, error))
    return NULL;
  return g_steal_pointer (&r);
}

const char *
wl_chakra_reader_version (const WlChakraReader *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  if (r->meta == NULL)
    return NULL;
  if (r->meta->version != NULL && r->meta->version[0] != '\0')
    return r->meta->version;
  for (size_t i = 0; i < r->meta->n_attr; i++)
    {
      const ChakraProtoMsg__AttributeProto *a = r->meta->attr[i];
      if (g_strcmp0 (a->name, "schema") == 0 && a->value_case == VC (STRING_VAL))
        return a->string_val;
    }
  return "";
}

const ChakraProtoMsg__GlobalMetadata *
wl_chakra_reader_metadata (const WlChakraReader *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  return r->meta;
}

gboolean
wl_chakra_reader_is_headerless (const WlChakraReader *r)
{
  g_return_val_if_fail (r != NULL, FALSE);
  return r->headerless;
}

gboolean
wl_chakra_reader_is_empty (const WlChakraReader *r)
{
  g_return_val_if_fail (r != NULL, FALSE);
  return r->empty;
}

gboolean
wl_chakra_reader_truncated (const WlChakraReader *r)
{
  g_return_val_if_fail (r != NULL, FALSE);
  return r->failure != NULL && r->truncated;
}

const char *
wl_chakra_reader_path (const WlChakraReader *r)
{
  g_return_val_if_fail (r != NULL, NULL);
  return r->path;
}

ChakraProtoMsg__Node *
wl_chakra_reader_next (WlChakraReader *r, GError **error)
{
  g_return_val_if_fail (r != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (r->failure != NULL)
    {
      g_propagate_error (error, g_error_copy (r->failure));
      return NULL;
    }
  if (r->pos == r->size)
    return NULL;
  gsize offset = r->pos;
  const guint8 *frame = NULL;
  gsize len = 0;
  ChakraProtoMsg__Node *node = NULL;
  if (frame_take (r, &frame, &len, &r->failure))
    {
      node = chakra_proto_msg__node__unpack (NULL, len, frame);
      if (node == NULL)
        {
          r->frame--; /* name the frame that failed, not the next one */
          frame_error (r, offset, &r->failure,
                       "%" G_GSIZE_FORMAT " bytes do not unpack as a Node", len);
        }
    }
  if (r->failure != NULL)
    g_propagate_error (error, g_error_copy (r->failure));
  return node;
}

void
wl_chakra_reader_free (WlChakraReader *r)
{
  if (r == NULL)
    return;
  wl_chakra_metadata_free (r->meta);
  g_clear_error (&r->failure);
  g_free (r->data);
  g_free (r->path);
  g_free (r);
}

void
wl_chakra_node_free (ChakraProtoMsg__Node *node)
{
  if (node != NULL)
    chakra_proto_msg__node__free_unpacked (node, NULL);
}

void
wl_chakra_metadata_free (ChakraProtoMsg__GlobalMetadata *meta)
{
  if (meta != NULL)
    chakra_proto_msg__global_metadata__free_unpacked (meta, NULL);
}

/* ---------------------------------------------------------- attributes */

/* An integer attribute widened without loss: signed kinds in S, unsigned
 * kinds and bool in U. */
typedef struct
{
  gboolean is_signed;
  gint64 s;
  guint64 u;
} IntValue;

static gboolean
int_value (const ChakraProtoMsg__AttributeProto *a, IntValue *v)
{
  *v = (IntValue) { 0 };
  switch (a->value_case)
    {
    case VC (INT32_VAL): v->is_signed = TRUE; v->s = a->int32_val; return TRUE;
    case VC (INT64_VAL): v->is_signed = TRUE; v->s = a->int64_val; return TRUE;
    case VC (SINT32_VAL): v->is_signed = TRUE; v->s = a->sint32_val; return TRUE;
    case VC (SINT64_VAL): v->is_signed = TRUE; v->s = a->sint64_val; return TRUE;
    case VC (SFIXED32_VAL): v->is_signed = TRUE; v->s = a->sfixed32_val; return TRUE;
    case VC (SFIXED64_VAL): v->is_signed = TRUE; v->s = a->sfixed64_val; return TRUE;
    case VC (UINT32_VAL): v->u = a->uint32_val; return TRUE;
    case VC (UINT64_VAL): v->u = a->uint64_val; return TRUE;
    case VC (FIXED32_VAL): v->u = a->fixed32_val; return TRUE;
    case VC (FIXED64_VAL): v->u = a->fixed64_val; return TRUE;
    case VC (BOOL_VAL): v->u = a->bool_val ? 1 : 0; return TRUE;
    default: return FALSE;
    }
}

static void
attr_error (GError **error, const ChakraProtoMsg__Node *n,
            const ChakraProtoMsg__AttributeProto *a, const char *problem)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "node %" G_GUINT64_FORMAT ": attribute \"%s\" %s", n->id, a->name, problem);
}

/* Report that A has the wrong kind, naming the kind it has. */
static void
kind_error (GError **error, const ChakraProtoMsg__Node *n,
            const ChakraProtoMsg__AttributeProto *a, const char *expected)
{
  if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET)
    {
      attr_error (error, n, a, "has no value (valueless attribute)");
      return;
    }
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field (
    &chakra_proto_msg__attribute_proto__descriptor, (unsigned) a->value_case);
  g_autofree char *problem = g_strdup_printf ("is %s, expected %s",
                                              f != NULL ? f->name : "of an unknown kind", expected);
  attr_error (error, n, a, problem);
}

/* Look NAME up as an integer: 1 when found (*V set), 0 when absent, -1 with
 * ERROR set when it has another kind.  *A receives the attribute. */
static int
lookup_int (const ChakraProtoMsg__Node *n, const char *name, IntValue *v,
            const ChakraProtoMsg__AttributeProto **a, GError **error)
{
  *a = wl_chakra_attr_find (n, name);
  if (*a == NULL)
    return 0;
  if (!int_value (*a, v))
    {
      kind_error (error, n, *a, "an integer or bool");
      return -1;
    }
  return 1;
}

const ChakraProtoMsg__AttributeProto *
wl_chakra_attr_find (const ChakraProtoMsg__Node *n, const char *name)
{
  g_return_val_if_fail (n != NULL && name != NULL, NULL);
  for (size_t i = 0; i < n->n_attr; i++)
    if (g_strcmp0 (n->attr[i]->name, name) == 0)
      return n->attr[i];
  return NULL;
}

gboolean
wl_chakra_attr_int (const ChakraProtoMsg__Node *n, const char *name, gint64 *out,
                    GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  const ChakraProtoMsg__AttributeProto *a = NULL;
  IntValue v;
  if (lookup_int (n, name, &v, &a, error) <= 0)
    return FALSE;
  if (!v.is_signed && v.u > (guint64) G_MAXINT64)
    {
      g_autofree char *problem = g_strdup_printf (
        "is %" G_GUINT64_FORMAT ", above the largest signed 64-bit integer", v.u);
      attr_error (error, n, a, problem);
      return FALSE;
    }
  *out = v.is_signed ? v.s : (gint64) v.u;
  return TRUE;
}

gboolean
wl_chakra_attr_uint (const ChakraProtoMsg__Node *n, const char *name, guint64 *out,
                     GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  const ChakraProtoMsg__AttributeProto *a = NULL;
  IntValue v;
  if (lookup_int (n, name, &v, &a, error) <= 0)
    return FALSE;
  if (v.is_signed && v.s < 0)
    {
      g_autofree char *problem = g_strdup_printf (
        "is %" G_GINT64_FORMAT ", expected a non-negative integer", v.s);
      attr_error (error, n, a, problem);
      return FALSE;
    }
  *out = v.is_signed ? (guint64) v.s : v.u;
  return TRUE;
}

gboolean
wl_chakra_attr_bool (const ChakraProtoMsg__Node *n, const char *name, gboolean *out,
                     GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  const ChakraProtoMsg__AttributeProto *a = NULL;
  IntValue v;
  if (lookup_int (n, name, &v, &a, error) <= 0)
    return FALSE;
  *out = v.is_signed ? v.s != 0 : v.u != 0;
  return TRUE;
}

gboolean
wl_chakra_attr_string (const ChakraProtoMsg__Node *n, const char *name, const char **out,
                       GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  const ChakraProtoMsg__AttributeProto *a = wl_chakra_attr_find (n, name);
  if (a == NULL)
    return FALSE;
  if (a->value_case != VC (STRING_VAL))
    {
      kind_error (error, n, a, "string_val");
      return FALSE;
    }
  *out = a->string_val;
  return TRUE;
}

guint
wl_chakra_node_drop_valueless (ChakraProtoMsg__Node *n)
{
  g_return_val_if_fail (n != NULL, 0);
  size_t kept = 0;
  for (size_t i = 0; i < n->n_attr; i++)
    {
      if (n->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET)
        chakra_proto_msg__attribute_proto__free_unpacked (n->attr[i], NULL);
      else
        n->attr[kept++] = n->attr[i];
    }
  guint dropped = (guint) (n->n_attr - kept);
  n->n_attr = kept;
  return dropped;
}

/* Append LIST's values to ARR as gboolean; a NULL list is empty. */
#define APPEND_TRUTHS(arr, list)                                              \
  do                                                                          \
    {                                                                         \
      for (size_t i_ = 0; (list) != NULL && i_ < (list)->n_values; i_++)      \
        {                                                                     \
          gboolean b_ = (list)->values[i_] != 0;                              \
          g_array_append_val ((arr), b_);                                     \
        }                                                                     \
    }                                                                         \
  while (0)

gboolean
wl_chakra_attr_bool_list (const ChakraProtoMsg__Node *n, const char *name, GArray **out,
                          GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  const ChakraProtoMsg__AttributeProto *a = wl_chakra_attr_find (n, name);
  if (a == NULL)
    return FALSE;
  g_autoptr (GArray) arr = g_array_new (FALSE, FALSE, sizeof (gboolean));
  switch (a->value_case)
    {
    case VC (BOOL_LIST): APPEND_TRUTHS (arr, a->bool_list); break;
    case VC (INT32_LIST): APPEND_TRUTHS (arr, a->int32_list); break;
    case VC (INT64_LIST): APPEND_TRUTHS (arr, a->int64_list); break;
    case VC (UINT32_LIST): APPEND_TRUTHS (arr, a->uint32_list); break;
    case VC (UINT64_LIST): APPEND_TRUTHS (arr, a->uint64_list); break;
    case VC (SINT32_LIST): APPEND_TRUTHS (arr, a->sint32_list); break;
    case VC (SINT64_LIST): APPEND_TRUTHS (arr, a->sint64_list); break;
    case VC (FIXED32_LIST): APPEND_TRUTHS (arr, a->fixed32_list); break;
    case VC (FIXED64_LIST): APPEND_TRUTHS (arr, a->fixed64_list); break;
    case VC (SFIXED32_LIST): APPEND_TRUTHS (arr, a->sfixed32_list); break;
    case VC (SFIXED64_LIST): APPEND_TRUTHS (arr, a->sfixed64_list); break;
    default:
      kind_error (error, n, a, "a bool or integer list");
      return FALSE;
    }
  *out = g_steal_pointer (&arr);
  return TRUE;
}

/* -------------------------------------------------------------- writer */

static gboolean
writer_io_error (WlChakraWriter *w, int errsv, GError **error)
{
  w->failed = TRUE;
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: write failed: %s", w->path,
               g_strerror (errsv));
  return FALSE;
}

static gboolean
writer_write (WlChakraWriter *w, const guint8 *bytes, gsize len, GError **error)
{
  if (w->gz != NULL)
    {
      if (gzwrite (w->gz, bytes, (unsigned) len) == (int) len)
        return TRUE;
      int zerr = Z_OK;
      const char *msg = gzerror (w->gz, &zerr);
      if (zerr == Z_ERRNO)
        return writer_io_error (w, errno, error);
      w->failed = TRUE;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: gzip write failed: %s", w->path, msg);
      return FALSE;
    }
  if (fwrite (bytes, 1, len, w->file) == len)
    return TRUE;
  return writer_io_error (w, errno, error);
}

/* Frame MSG (varint length, then the packed bytes) and write it in one call. */
static gboolean
writer_put (WlChakraWriter *w, const ProtobufCMessage *msg, GError **error)
{
  if (w->closed || w->failed)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: writer is %s", w->path,
                   w->closed ? "closed" : "in error after an earlier failure");
      return FALSE;
    }
  gsize size = protobuf_c_message_get_packed_size (msg);
  if (size > (gsize) G_MAXINT32)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: a %" G_GSIZE_FORMAT "-byte message is too large for protobuf",
                   w->path, size);
      return FALSE;
    }
  if (w->cap < size + VARINT_MAX_BYTES)
    {
      w->cap = MAX (size + VARINT_MAX_BYTES, w->cap * 2);
      w->buf = g_realloc (w->buf, w->cap);
    }
  gsize head = varint_encode (w->buf, size);
  gsize packed = protobuf_c_message_pack (msg, w->buf + head);
  g_assert (packed == size);
  return writer_write (w, w->buf, head + size, error);
}

static gboolean
writer_create (WlChakraWriter *w, GError **error)
{
  int fd = open (w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot create: %s", w->path,
                   g_strerror (errsv));
      return FALSE;
    }
  if (g_str_has_suffix (w->path, ".gz"))
    w->gz = gzdopen (fd, "wb");
  else
    w->file = fdopen (fd, "wb");
  if (w->gz == NULL && w->file == NULL)
    {
      int errsv = errno;
      close (fd);
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot open for writing: %s",
                   w->path, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

WlChakraWriter *
wl_chakra_writer_open (const char *path, const char *version, GError **error)
{
  g_return_val_if_fail (version != NULL, NULL);
  ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
  meta.version = (char *) version;
  return wl_chakra_writer_open_metadata (path, &meta, error);
}

WlChakraWriter *
wl_chakra_writer_open_metadata (const char *path, const ChakraProtoMsg__GlobalMetadata *meta,
                                GError **error)
{
  g_return_val_if_fail (path != NULL && meta != NULL, NULL);
  g_return_val_if_fail (meta->base.descriptor == &chakra_proto_msg__global_metadata__descriptor,
                        NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  g_autoptr (WlChakraWriter) w = g_new0 (WlChakraWriter, 1);
  w->path = g_strdup (path);
  if (!writer_create (w, error) || !writer_put (w, &meta->base, error))
    return NULL;
  return g_steal_pointer (&w);
}

gboolean
wl_chakra_writer_add (WlChakraWriter *w, const ChakraProtoMsg__Node *node, GError **error)
{
  g_return_val_if_fail (w != NULL && node != NULL, FALSE);
  g_return_val_if_fail (node->base.descriptor == &chakra_proto_msg__node__descriptor, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  return writer_put (w, &node->base, error);
}

gboolean
wl_chakra_writer_close (WlChakraWriter *w, GError **error)
{
  g_return_val_if_fail (w != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (w->closed)
    return TRUE;
  w->closed = TRUE;
  if (w->gz != NULL)
    {
      int ret = gzclose (w->gz);
      w->gz = NULL;
      if (ret == Z_ERRNO)
        return writer_io_error (w, errno, error);
      if (ret != Z_OK)
        {
          w->failed = TRUE;
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: gzip close failed (%d)",
                       w->path, ret);
          return FALSE;
        }
      return TRUE;
    }
  gboolean had_error = ferror (w->file) != 0;
  int ret = fclose (w->file);
  w->file = NULL;
  if (ret != 0 || had_error)
    return writer_io_error (w, ret != 0 ? errno : EIO, error);
  return TRUE;
}

void
wl_chakra_writer_free (WlChakraWriter *w)
{
  if (w == NULL)
    return;
  if (w->gz != NULL)
    gzclose (w->gz);
  if (w->file != NULL)
    fclose (w->file);
  g_free (w->buf);
  g_free (w->path);
  g_free (w);
}

/* --------------------------------------------------------------- names */

const char *
wl_chakra_node_type_name (int type)
{
  const ProtobufCEnumValue *v =
    protobuf_c_enum_descriptor_get_value (&chakra_proto_msg__node_type__descriptor, type);
  return v != NULL ? v->name : NULL;
}

const char *
wl_chakra_comm_type_name (int comm_type)
{
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value (
    &chakra_proto_msg__collective_comm_type__descriptor, comm_type);
  return v != NULL ? v->name : NULL;
}
