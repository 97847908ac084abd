/* chakra_write.c: writing Chakra traces (chakra.h: WlChakraWriter), frame
 * by frame, plain or gzip; the reading side is chakra.c. */
#include "workload/chakra.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <zlib.h>

#include "sim/out_file.h"

/* A length varint never needs more than ten bytes (64 bits, 7 per byte). */
#define VARINT_MAX_BYTES 10

struct _WlChakraWriter
{
  char *path;
  SimOutFile *out; /* where a file output goes: put in place at close */
  FILE *file; /* plain output, or NULL */
  gzFile gz;  /* gzip output, or NULL */
  GByteArray *mem; /* in-memory output (wl_chakra_writer_open_memory), or NULL */
  guint8 *buf; /* scratch space for one frame, reused to avoid a malloc per node */
  gsize cap;
  gboolean closed;
  gboolean failed;
};

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
  if (w->mem != NULL)
    {
      g_byte_array_append (w->mem, bytes, (guint) len);
      return TRUE;
    }
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

/* The output is written as every output of orrery is (sim/out_file.h): a
 * regular file atomically, so a reader or a second `gen` writing the same
 * name sees the old trace or a whole new one.  Unsynced: a workload is
 * thousands of traces, made again in seconds (4,096 syncs took 4 s). */
static gboolean
writer_create (WlChakraWriter *w, GError **error)
{
  g_autoptr (GError) local = NULL;
  w->out = sim_out_file_open (w->path, &local);
  if (w->out == NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot create: %s", w->path,
                   local->message);
      return FALSE;
    }
  sim_out_file_skip_sync (w->out);
  int fd = dup (sim_out_file_fd (w->out));
  if (fd >= 0 && g_str_has_suffix (w->path, ".gz"))
    w->gz = gzdopen (fd, "wb");
  else if (fd >= 0)
    w->file = fdopen (fd, "wb");
  if (w->gz == NULL && w->file == NULL)
    {
      int errsv = errno;
      if (fd >= 0)
        close (fd);
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot open for writing: %s",
                   w->path, g_strerror (errsv));
      return FALSE;
    }
  return TRUE;
}

/* The stream is closed: put the file in place. */
static gboolean
writer_commit (WlChakraWriter *w, GError **error)
{
  g_autoptr (GError) local = NULL;
  gboolean ok = sim_out_file_commit (g_steal_pointer (&w->out), &local);
  if (!ok)
    {
      w->failed = TRUE;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s", local->message);
    }
  return ok;
}

WlChakraWriter *
wl_chakra_writer_open (const char *path, const char *version, GError **error)
{
  g_return_val_if_fail (version != NULL, NULL);
  ChakraProtoMsg__GlobalMetadata meta = CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
  meta.version = (char *) version;
  return wl_chakra_writer_open_metadata (path, &meta, error);
}

/* Frame 0 holding VERSION and FACTS (NULL: none), pointing into itself. */
typedef struct
{
  ChakraProtoMsg__GlobalMetadata meta;
  ChakraProtoMsg__AttributeProto attrs[WL_TRACE_FACTS_MAX];
  ChakraProtoMsg__AttributeProto *ptrs[WL_TRACE_FACTS_MAX];
} FactsMeta;

static void
facts_meta (FactsMeta *m, const char *version, const WlTraceFacts *facts)
{
  m->meta = (ChakraProtoMsg__GlobalMetadata) CHAKRA_PROTO_MSG__GLOBAL_METADATA__INIT;
  m->meta.version = (char *) version;
  for (guint i = 0; i < WL_TRACE_FACTS_MAX; i++)
    m->ptrs[i] = &m->attrs[i];
  m->meta.n_attr = facts != NULL ? wl_chakra_facts_attrs (facts, m->attrs) : 0;
  m->meta.attr = m->ptrs;
}

WlChakraWriter *
wl_chakra_writer_open_full (const char *path, const char *version, const WlTraceFacts *facts,
                            GError **error)
{
  g_return_val_if_fail (version != NULL, NULL);
  FactsMeta m;
  facts_meta (&m, version, facts);
  return wl_chakra_writer_open_metadata (path, &m.meta, error);
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

WlChakraWriter *
wl_chakra_writer_open_memory (const char *name, const char *version, const WlTraceFacts *facts)
{
  g_return_val_if_fail (name != NULL && version != NULL, NULL);
  WlChakraWriter *w = g_new0 (WlChakraWriter, 1);
  w->path = g_strdup (name);
  w->mem = g_byte_array_new ();
  FactsMeta m;
  facts_meta (&m, version, facts);
  gboolean ok = writer_put (w, &m.meta.base, NULL);
  g_assert (ok); /* memory output cannot fail but for a frame over 2 GiB */
  return w;
}

GBytes *
wl_chakra_writer_steal_bytes (WlChakraWriter *w)
{
  g_return_val_if_fail (w != NULL && w->mem != NULL, NULL);
  w->closed = TRUE;
  return g_byte_array_free_to_bytes (g_steal_pointer (&w->mem));
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
  if (w->mem != NULL)
    return TRUE;
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
      return writer_commit (w, error);
    }
  gboolean had_error = ferror (w->file) != 0;
  int ret = fclose (w->file);
  w->file = NULL;
  if (ret != 0 || had_error)
    return writer_io_error (w, ret != 0 ? errno : EIO, error);
  return writer_commit (w, error);
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
  /* Not closed, or closing failed: what the path named stays. */
  sim_out_file_discard (w->out);
  if (w->mem != NULL)
    g_byte_array_unref (w->mem);
  g_free (w->buf);
  g_free (w->path);
  g_free (w);
}

void
wl_chakra_attr_set_int64 (ChakraProtoMsg__AttributeProto *a, const char *name, gint64 v)
{
  *a = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a->name = (char *) name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  a->int64_val = v;
}

void
wl_chakra_attr_set_int32 (ChakraProtoMsg__AttributeProto *a, const char *name, gint32 v)
{
  *a = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a->name = (char *) name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL;
  a->int32_val = v;
}

void
wl_chakra_attr_set_string (ChakraProtoMsg__AttributeProto *a, const char *name, const char *v)
{
  *a = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a->name = (char *) name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a->string_val = (char *) v;
}

void
wl_chakra_attr_set_uint (ChakraProtoMsg__AttributeProto *a, const char *name, guint64 v)
{
  *a = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a->name = (char *) name;
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
  a->uint64_val = v;
}
