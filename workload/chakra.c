/* chakra.c: Chakra .et reader and writer (framing, gzip); a node's
 * attributes are read in chakra_node.c. */
#include "workload/chakra.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "workload/chakra_decode.h"
#include "workload/chakra_json.h"
#include "workload/pb_arena.h"

/* A length varint never needs more than ten bytes (64 bits, 7 per byte). */
#define VARINT_MAX_BYTES 10

G_STATIC_ASSERT (sizeof (gsize) == sizeof (guint64));

struct _WlChakraReader
{
  char *path;
  gzFile gz;      /* the file: inflated when gzip, read through unchanged otherwise */
  gint64 size;    /* a plain regular file's size; -1 when unknown (gzip, pipes) */
  guint64 pos;    /* offset of the next frame (in decompressed bytes for gzip) */
  guint64 frame;  /* index of the next frame, frame 0 being the metadata */
  guint8 *buf;    /* frames read through zlib; as large as the largest frame so far */
  gsize cap;
  const guint8 *mem; /* the file's bytes, when read from memory (not gzip); else NULL */
  gsize mem_at;      /* the next byte of mem to read */
  const guint8 *at; /* the current frame's bytes: into mem, or buf */
  WlPbArena *arena;  /* WL_CHAKRA_BORROW_NODES: nodes are decoded here */
  ChakraProtoMsg__Node *lent; /* borrowed headerless first node, freed at the next call */
  gboolean gzipped;
  gboolean headerless;
  gboolean empty;     /* an empty file opened with WL_CHAKRA_ALLOW_EMPTY */
  gboolean at_end;    /* every frame was read */
  gboolean truncated; /* the failure is a last frame cut short */
  ChakraProtoMsg__GlobalMetadata *meta; /* NULL when headerless */
  ChakraProtoMsg__Node *first; /* headerless: frame 0, not yet returned */
  GBytes *from_json; /* a JSON trace's .et bytes (chakra_json.h), read from mem */
  GError *failure; /* the first framing error, repeated by later calls */
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

/* ------------------------------------------------------------- reading */

/* The frame buffer grows by at least this much when the size of a frame
 * cannot be checked against the file (gzip, pipes). */
#define FRAME_GROW_BYTES ((gsize) 64 * 1024)

/* When the file's size does not bound a frame (gzip, pipes), the most
 * bytes of one frame buffered: a frame is held whole, and no Chakra node
 * comes near this (a 2 MB gzip file of zeros inflates to 2 GiB: its frame
 * length is corrupt, or it is not a trace).  A frame that ends sooner
 * still reports where the data ran out. */
#define FRAME_MAX_BYTES ((gsize) 256 << 20)

static gboolean
io_error (WlChakraReader *r, int errsv, GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot read Chakra trace: %s", r->path,
               g_strerror (errsv));
  return FALSE;
}

/* Whether the input so far ended because the gzip data is cut short: zlib
 * reports Z_BUF_ERROR ("unexpected end of file") and returns the bytes it
 * could inflate, every one of them good. */
static gboolean
gzip_cut (const WlChakraReader *r)
{
  int err = Z_OK;
  if (!r->gzipped)
    return FALSE;
  gzerror (r->gz, &err);
  return err == Z_BUF_ERROR;
}

/* A read error other than the end of the data: the system's, or zlib's
 * for bad gzip data. */
static gboolean
read_failed (WlChakraReader *r, GError **error)
{
  int err = Z_OK;
  const char *msg = gzerror (r->gz, &err);
  if (err == Z_ERRNO)
    return io_error (r, errno, error);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: bad gzip data: %s", r->path,
               msg != NULL && msg[0] != '\0' ? msg : "inflate failed");
  return FALSE;
}

/* Read up to LEN bytes into BUF.  *GOT receives how many were read: fewer
 * than LEN only at the end of the data.  FALSE with ERROR set on a read
 * error or bad gzip data. */
static gboolean
read_bytes (WlChakraReader *r, guint8 *buf, gsize len, gsize *got, GError **error)
{
  *got = 0;
  while (*got < len)
    {
      /* gzread counts in unsigned int and returns int. */
      unsigned chunk = (unsigned) MIN (len - *got, (gsize) G_MAXINT32);
      int n = gzread (r->gz, buf + *got, chunk);
      if (n < 0)
        return read_failed (r, error);
      if (n == 0)
        break;
      *got += (gsize) n;
    }
  return TRUE;
}

/* Open the file and find out whether it is gzip (zlib reads any other file
 * through unchanged).  A plain regular file's size is kept, so that frame
 * lengths are checked against it before anything is read. */
static gboolean
reader_open_file (WlChakraReader *r, GError **error)
{
  int fd = open (r->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return io_error (r, errno, error);
  struct stat st;
  gboolean regular = fstat (fd, &st) == 0 && S_ISREG (st.st_mode);
  r->gz = gzdopen (fd, "rb");
  if (r->gz == NULL)
    {
      int errsv = errno;
      close (fd);
      return io_error (r, errsv != 0 ? errsv : ENOMEM, error);
    }
  /* zlib's default buffers (8 KiB in, 16 KiB out): a streamed replay keeps
   * one reader open per rank. */
  r->gzipped = gzdirect (r->gz) == 0;
  r->size = regular && !r->gzipped ? (gint64) st.st_size : -1;
  return TRUE;
}

/* -------------------------------------------------------------- frames */

static void G_GNUC_PRINTF (4, 5)
frame_error (const WlChakraReader *r, guint64 offset, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *what = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: frame %" G_GUINT64_FORMAT " at byte offset %" G_GUINT64_FORMAT "%s: %s",
               r->path, r->frame, offset, r->gzipped ? " (decompressed)" : "", what);
}

/* How a frame read ended. */
typedef enum
{
  FRAME_OK,
  FRAME_END,   /* the data ended cleanly before the frame */
  FRAME_ERROR
} FrameStatus;

/* What follows a message about data that ends too early: for a gzip file
 * cut short, that its gzip data is truncated; otherwise a guess that the
 * trace itself was cut. */
static const char *
cut_hint (const WlChakraReader *r)
{
  return gzip_cut (r) ? "truncated gzip data (the .gz file is cut short)" : "truncated file?";
}

/* The next byte of the data, or -1 at its end or on a read error. */
static int
next_byte (WlChakraReader *r)
{
  if (r->mem == NULL)
    return gzgetc (r->gz);
  return r->mem_at < (gsize) r->size ? r->mem[r->mem_at++] : -1;
}

/* Read the frame's length varint.  FRAME_END when the data ends before
 * its first byte. */
static FrameStatus
read_length (WlChakraReader *r, guint64 *length, gsize *used, GError **error)
{
  guint64 v = 0;
  for (gsize i = 0; i < VARINT_MAX_BYTES; i++)
    {
      int c = next_byte (r);
      if (c < 0)
        {
          int err = Z_OK;
          if (r->mem == NULL)
            gzerror (r->gz, &err);
          if (err != Z_OK && err != Z_BUF_ERROR)
            {
              read_failed (r, error);
              return FRAME_ERROR;
            }
          if (i == 0 && err == Z_OK)
            return FRAME_END;
          r->truncated = TRUE;
          if (i == 0)
            frame_error (r, r->pos, error, "truncated gzip data (the .gz file is cut short "
                         "after %" G_GUINT64_FORMAT " decompressed bytes)", r->pos);
          else
            frame_error (r, r->pos, error, "truncated length varint at end of file%s%s",
                         err == Z_BUF_ERROR ? ": " : "", err == Z_BUF_ERROR ? cut_hint (r) : "");
          return FRAME_ERROR;
        }
      v |= (guint64) (c & 0x7f) << (7 * i);
      if ((c & 0x80) == 0)
        {
          *length = v;
          *used = i + 1;
          return FRAME_OK;
        }
    }
  frame_error (r, r->pos, error, "length varint longer than 10 bytes");
  return FRAME_ERROR;
}

/* Make room for LEN bytes in the frame buffer, reporting a failure. */
static gboolean
frame_room (WlChakraReader *r, gsize len, GError **error)
{
  if (len <= r->cap)
    return TRUE;
  guint8 *buf = g_try_realloc (r->buf, len);
  if (buf == NULL)
    {
      frame_error (r, r->pos, error, "out of memory allocating %" G_GSIZE_FORMAT
                   " bytes for the frame", len);
      return FALSE;
    }
  r->buf = buf;
  r->cap = len;
  return TRUE;
}

/* Read LENGTH frame bytes (after a USED-byte varint) into r->buf, or find
 * them in memory; r->at then points at them.  When the
 * file's size is known the length is checked against it first, so that a
 * corrupt length cannot cause a huge allocation; otherwise (gzip, pipes)
 * the buffer grows only as bytes actually arrive. */
static gboolean
read_body (WlChakraReader *r, guint64 length, gsize used, GError **error)
{
  gsize have = 0;
  gboolean complete = FALSE;
  if (r->size >= 0 && length > (guint64) r->size - r->pos - used)
    have = (gsize) ((guint64) r->size - r->pos - used);
  else if (r->mem != NULL)
    {
      /* In memory the frame is read where it lies. */
      r->at = r->mem + r->mem_at;
      r->mem_at += (gsize) length;
      complete = TRUE;
    }
  else
    for (;;)
      {
        if (have == length)
          {
            complete = TRUE;
            break;
          }
        if (have == r->cap && have >= FRAME_MAX_BYTES)
          {
            frame_error (r, r->pos, error,
                         "frame length %" G_GUINT64_FORMAT " bytes: longer than %" G_GSIZE_FORMAT
                         " MiB, which no Chakra node comes near (a corrupt length, or not a "
                         "trace)", length, FRAME_MAX_BYTES >> 20);
            return FALSE;
          }
        gsize grow = MIN (MAX (2 * r->cap, FRAME_GROW_BYTES), FRAME_MAX_BYTES);
        if (have == r->cap && !frame_room (r, (gsize) MIN (length, (guint64) grow), error))
          return FALSE;
        gsize want = (gsize) MIN (length - have, (guint64) (r->cap - have)), got = 0;
        if (!read_bytes (r, r->buf + have, want, &got, error))
          return FALSE;
        have += got;
        if (got < want)
          break;
      }
  if (complete)
    {
      if (r->mem == NULL)
        r->at = r->buf;
      return TRUE;
    }
  r->truncated = TRUE;
  frame_error (r, r->pos, error,
               "frame length %" G_GUINT64_FORMAT " runs past end of file (%" G_GSIZE_FORMAT
               " bytes left): %s", length, have, cut_hint (r));
  return FALSE;
}

/* Read the next frame into r->at (its length in *LEN) and advance past
 * it. */
static FrameStatus
frame_read (WlChakraReader *r, gsize *len, GError **error)
{
  guint64 length = 0;
  gsize used = 0;
  FrameStatus st = read_length (r, &length, &used, error);
  if (st != FRAME_OK)
    return st;
  if (r->mem == NULL && r->size >= 0 && length <= (guint64) r->size - r->pos - used
      && !frame_room (r, (gsize) length, error))
    return FRAME_ERROR;
  if (!read_body (r, length, used, error))
    return FRAME_ERROR;
  *len = (gsize) length;
  r->pos += used + length;
  r->frame++;
  return FRAME_OK;
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

/* Frame 0 is missing: an empty file, or gzip data cut before any byte of
 * it. */
static gboolean
no_first_frame (WlChakraReader *r, WlChakraReadFlags flags, GError **error)
{
  if (gzip_cut (r))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: truncated gzip data (after 0 decompressed bytes): the .gz file is cut "
                   "short", r->path);
      return FALSE;
    }
  if (flags & WL_CHAKRA_ALLOW_EMPTY)
    {
      r->empty = TRUE;
      return TRUE;
    }
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: empty trace (no GlobalMetadata frame)",
               r->path);
  return FALSE;
}

/* Decide what frame 0 is; see wl_chakra_reader_open_full. */
static gboolean
read_header (WlChakraReader *r, WlChakraReadFlags flags, GError **error)
{
  gsize len = 0;
  FrameStatus st = frame_read (r, &len, error);
  if (st == FRAME_END)
    return no_first_frame (r, flags, error);
  if (st == FRAME_ERROR)
    {
      r->truncated = FALSE; /* a cut frame 0 leaves nothing to keep */
      return FALSE;
    }
  const guint8 *frame = r->at;
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
  /* The node is the trace's first: wl_chakra_reader_next returns it. */
  r->headerless = TRUE;
  r->first = g_steal_pointer (&node);
  return TRUE;
}

/* -------------------------------------------------------------- reader */

WlChakraReader *
wl_chakra_reader_open (const char *path, GError **error)
{
  return wl_chakra_reader_open_full (path, WL_CHAKRA_READ_DEFAULT, error);
}

/* The .et bytes of the JSON trace PATH, whose text is BYTES (LEN of them)
 * or else the file's. */
static GBytes *
json_trace (const char *path, const guint8 *bytes, gsize len, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) err = NULL;
  if (bytes == NULL && !g_file_get_contents (path, &text, &len, &err))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot read: %s", path, err->message);
      return NULL;
    }
  return wl_chakra_json_to_et (path, bytes != NULL ? (const char *) bytes : text, len, error);
}

/* Open PATH, or read it from BYTES (LEN of them) unless they are gzip
 * data; see wl_chakra_reader_open_bytes.  A JSON trace is read from the
 * .et bytes it stands for. */
static WlChakraReader *
reader_open (const char *path, const guint8 *bytes, gsize len, WlChakraReadFlags flags,
             GError **error)
{
  g_autoptr (WlChakraReader) r = g_new0 (WlChakraReader, 1);
  r->path = g_strdup (path);
  if (wl_chakra_json_path (path))
    {
      r->from_json = json_trace (path, bytes, len, error);
      if (r->from_json == NULL)
        return NULL;
      bytes = g_bytes_get_data (r->from_json, &len);
      static const guint8 none[1];
      bytes = bytes != NULL ? bytes : none;
    }
  if (flags & WL_CHAKRA_BORROW_NODES)
    r->arena = wl_pb_arena_new ();
  /* zlib inflates exactly the data that starts with the gzip magic; it
   * reads anything else through unchanged, as memory does. */
  gboolean gzip = len >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
  if (bytes != NULL && !gzip && len <= (gsize) G_MAXINT64)
    {
      r->mem = bytes;
      r->size = (gint64) len;
    }
  else if (!reader_open_file (r, error))
    return NULL;
  if (!read_header (r, flags, error))
    return NULL;
  return g_steal_pointer (&r);
}

WlChakraReader *
wl_chakra_reader_open_full (const char *path, WlChakraReadFlags flags, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  return reader_open (path, NULL, 0, flags, error);
}

WlChakraReader *
wl_chakra_reader_open_bytes (const char *path, const guint8 *bytes, gsize len,
                             WlChakraReadFlags flags, GError **error)
{
  g_return_val_if_fail (path != NULL && (bytes != NULL || len == 0), NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  static const guint8 none[1];
  return reader_open (path, bytes != NULL ? bytes : none, len, flags, error);
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
      if (g_strcmp0 (a->name, "schema") == 0
          && a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
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

gboolean
wl_chakra_reader_next_frame (WlChakraReader *r, WlChakraFrame *frame)
{
  g_return_val_if_fail (r != NULL && frame != NULL, FALSE);
  g_clear_pointer (&r->lent, wl_chakra_node_free);
  if (r->first != NULL || r->failure != NULL || r->empty || r->at_end)
    return FALSE;
  frame->offset = r->pos;
  FrameStatus st = frame_read (r, &frame->len, &r->failure);
  if (st == FRAME_END)
    r->at_end = TRUE;
  if (st != FRAME_OK)
    return FALSE; /* the end, or r->failure: wl_chakra_reader_next says which */
  frame->data = r->at;
  return TRUE;
}

/* The node of FRAME (just read), decoded as the reader decodes nodes;
 * NULL with r->failure set when it does not unpack. */
static ChakraProtoMsg__Node *
decode_frame (WlChakraReader *r, const WlChakraFrame *frame)
{
  /* Borrowed nodes take the hand-written decoder (chakra_decode.h),
   * which falls back to protobuf-c on anything unusual; owned nodes
   * must be freeable piece by piece, so protobuf-c mallocs them. */
  ChakraProtoMsg__Node *node
    = r->arena != NULL ? wl_chakra_decode_node (r->arena, frame->len, frame->data)
                       : chakra_proto_msg__node__unpack (NULL, frame->len, frame->data);
  if (node == NULL)
    {
      r->frame--; /* name the frame that failed, not the next one */
      frame_error (r, frame->offset, &r->failure,
                   "%" G_GSIZE_FORMAT " bytes do not unpack as a Node", frame->len);
    }
  return node;
}

ChakraProtoMsg__Node *
wl_chakra_reader_next (WlChakraReader *r, GError **error)
{
  g_return_val_if_fail (r != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  WlChakraFrame frame;
  if (wl_chakra_reader_next_frame (r, &frame))
    {
      ChakraProtoMsg__Node *node = decode_frame (r, &frame);
      if (node == NULL)
        g_propagate_error (error, g_error_copy (r->failure));
      return node;
    }
  if (r->first != NULL)
    {
      if (r->arena != NULL)
        r->lent = r->first;
      return g_steal_pointer (&r->first);
    }
  if (r->failure != NULL)
    g_propagate_error (error, g_error_copy (r->failure));
  return NULL;
}

/* What wl_chakra_reader_step makes of NODE and LOCAL (the next node, or
 * its error). */
static gboolean
step_result (WlChakraReader *r, gboolean accept_cut, ChakraProtoMsg__Node *node, GError *local,
             ChakraProtoMsg__Node **out, char **cut, GError **error)
{
  *out = node;
  if (local == NULL)
    return TRUE;
  if (accept_cut && wl_chakra_reader_truncated (r))
    {
      if (cut != NULL)
        *cut = g_strdup (local->message);
      g_error_free (local);
      return TRUE;
    }
  g_propagate_error (error, local);
  return FALSE;
}

gboolean
wl_chakra_reader_step_frame (WlChakraReader *r, const WlChakraFrame *frame, gboolean accept_cut,
                             ChakraProtoMsg__Node **node, char **cut, GError **error)
{
  g_return_val_if_fail (r != NULL && frame != NULL && node != NULL, FALSE);
  ChakraProtoMsg__Node *n = decode_frame (r, frame);
  GError *local = n == NULL ? g_error_copy (r->failure) : NULL;
  return step_result (r, accept_cut, n, local, node, cut, error);
}

void
wl_chakra_reader_free (WlChakraReader *r)
{
  if (r == NULL)
    return;
  wl_chakra_metadata_free (r->meta);
  wl_chakra_node_free (r->first);
  wl_chakra_node_free (r->lent);
  wl_pb_arena_free (r->arena);
  if (r->from_json != NULL)
    g_bytes_unref (r->from_json);
  g_clear_error (&r->failure);
  if (r->gz != NULL)
    gzclose (r->gz);
  g_free (r->buf);
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

gboolean
wl_chakra_reader_step (WlChakraReader *r, gboolean accept_cut, ChakraProtoMsg__Node **node,
                       char **cut, GError **error)
{
  g_return_val_if_fail (r != NULL && node != NULL, FALSE);
  GError *local = NULL;
  ChakraProtoMsg__Node *n = wl_chakra_reader_next (r, &local);
  return step_result (r, accept_cut, n, local, node, cut, error);
}
