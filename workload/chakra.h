/* chakra.h: read and write Chakra execution traces (.et files).
 *
 * What it models: one rank's trace file as the reference Chakra tools frame
 * it (../shared/chakra/FORMAT.md): a sequence of frames, each a varint byte
 * length followed by a protobuf message; frame 0 is a GlobalMetadata, every
 * later frame a Node.  Files starting with the gzip magic (1f 8b) are
 * inflated transparently.  Messages are the protobuf-c types generated from
 * workload/chakra.proto (ChakraProtoMsg__Node and friends), so callers see
 * every field, including unknown node types (values 8 and up) unchanged.
 * Re-writing what was read reproduces the original bytes: see the writer.
 * A path ending in ".json" is a trace in Chakra's JSON form (chakra_json.h):
 * every reader reads the .et bytes it stands for, converted in memory (the
 * JSON text and those bytes are held whole while the reader is open).
 *
 * Ownership: a reader or writer owns its file and buffers, and is freed with
 * its _free function (NULL accepted; g_autoptr works).  Nodes returned by the
 * reader belong to the caller (free with wl_chakra_node_free), or with
 * WL_CHAKRA_BORROW_NODES to the reader until the next node.  A node's
 * attributes are read with the helpers of chakra_node.h, included here.
 *
 * The reader reads the file one frame at a time (through zlib, which
 * inflates gzip, concatenated members included, and reads other files
 * through unchanged; pipes work too) and unpacks one node per call, so
 * memory is the largest frame so far plus zlib's buffers (24 KiB; 64 KiB
 * for gzip), whatever the file size, and time is linear in the file size.
 * A frame's length is never trusted for an allocation: for a plain regular
 * file it is checked against the bytes left before anything is allocated;
 * for gzip data and pipes, whose size is unknown, the frame buffer grows
 * only as the bytes actually arrive.  Failing to allocate a frame buffer is an error
 * ("out of memory allocating N bytes for the frame"), not an abort.
 *
 * Layer: workload.  May include: sim, GLib, protobuf-c, zlib.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_H
#define ORRERY_WORKLOAD_CHAKRA_H

#include <glib.h>

#include "chakra.pb-c.h"
#include "workload/chakra_node.h"
#include "workload/wl_error.h"

/* ---------------------------------------------------------------- reader */

typedef struct _WlChakraReader WlChakraReader;

typedef enum
{
  WL_CHAKRA_READ_DEFAULT = 0,
  /* Accept headerless (pre-2024) files, whose frame 0 is already a Node:
   * wl_chakra_reader_next then returns that node first. */
  WL_CHAKRA_ALLOW_HEADERLESS = 1 << 0,
  /* Accept an empty file (zero bytes, or a gzip stream of zero bytes) as a
   * trace with neither metadata nor nodes (wl_chakra_reader_is_empty), so
   * that a checker can report it and go on. */
  WL_CHAKRA_ALLOW_EMPTY = 1 << 1,
  /* Nodes from wl_chakra_reader_next and _step belong to the reader and
   * last until the next call or wl_chakra_reader_free (never free them):
   * each is decoded into an arena reused frame after frame (pb_arena.h),
   * without a malloc per node. */
  WL_CHAKRA_BORROW_NODES = 1 << 2
} WlChakraReadFlags;

/* Same as wl_chakra_reader_open_full (path, WL_CHAKRA_READ_DEFAULT, error):
 * headerless files are refused. */
WlChakraReader *wl_chakra_reader_open (const char *path, GError **error);

/* Open the trace at PATH (plain or gzip) and read frame 0.
 *
 * Frame 0 is GlobalMetadata when every field in it is field 1 or 2 with
 * length-delimited encoding (version, attr) and it unpacks as such.  If not,
 * and it unpacks as a Node, the file is headerless: an error
 * (SIM_ERROR_INPUT, naming PATH and the node id) unless FLAGS has
 * WL_CHAKRA_ALLOW_HEADERLESS.  If it is neither, the file is not a Chakra
 * trace.  An empty file is an error ("PATH: empty trace (no GlobalMetadata
 * frame)") unless FLAGS has WL_CHAKRA_ALLOW_EMPTY.  Gzip data cut short
 * before the end of frame 0 is an error ("PATH: truncated gzip data ..."),
 * whatever FLAGS: a cut frame 0 leaves nothing to read.
 *
 * Returns a new reader, or NULL with ERROR set (domain WL_ERROR, code
 * SIM_ERROR_INPUT; the message names PATH, and for framing errors the frame
 * index and byte offset, counted in decompressed bytes for gzip files). */
WlChakraReader *wl_chakra_reader_open_full (const char *path, WlChakraReadFlags flags,
                                            GError **error);

/* As wl_chakra_reader_open_full, reading the file's LEN bytes from BYTES
 * (borrowed: they must outlive the reader) instead of from PATH, which only
 * names the file in messages.  Every check and message is the file's, with
 * BYTES taken as a plain regular file of LEN bytes.  Gzip data (BYTES
 * starting with the gzip magic 1f 8b) is not inflated from memory: PATH is
 * opened and read as wl_chakra_reader_open_full reads it. */
WlChakraReader *wl_chakra_reader_open_bytes (const char *path, const guint8 *bytes, gsize len,
                                             WlChakraReadFlags flags, GError **error);

/* The trace's version: GlobalMetadata.version, or when that is empty the
 * string value of its "schema" attribute (which is where current
 * ASTRA-sim/Chakra tools put it), or "" when neither is present; NULL for a
 * headerless file.  Borrowed from the reader. */
const char *wl_chakra_reader_version (const WlChakraReader *r);

/* Frame 0 exactly as read (NULL for a headerless file); borrowed from the
 * reader.  Pass it to wl_chakra_writer_open_metadata to copy a trace. */
const ChakraProtoMsg__GlobalMetadata *wl_chakra_reader_metadata (const WlChakraReader *r);

/* TRUE when the file had no GlobalMetadata (only with
 * WL_CHAKRA_ALLOW_HEADERLESS). */
gboolean wl_chakra_reader_is_headerless (const WlChakraReader *r);

/* TRUE when the file was empty (only with WL_CHAKRA_ALLOW_EMPTY): there is
 * no metadata, and wl_chakra_reader_next returns NULL at once. */
gboolean wl_chakra_reader_is_empty (const WlChakraReader *r);

/* TRUE when wl_chakra_reader_next has failed because the last frame is cut
 * short: its length varint, or the bytes its length announces, run past the
 * end of the file (what an interrupted writer leaves), or the file is gzip
 * data cut short (the message then says "truncated gzip data"; the cut may
 * fall inside a frame or right after one, before the gzip trailer).  Every
 * node before that frame was returned intact.  FALSE before any failure and
 * for other framing errors (bytes that do not unpack as a Node, bad gzip
 * data). */
gboolean wl_chakra_reader_truncated (const WlChakraReader *r);

/* Unpack the next node.  Returns it (the caller owns it: free with
 * wl_chakra_node_free or chakra_proto_msg__node__free_unpacked (n, NULL);
 * with WL_CHAKRA_BORROW_NODES the reader owns it), or
 * NULL: at the end of the file with ERROR unset, or with ERROR set when the
 * next frame is bad (truncated or over-long length varint, a length running
 * past the end of the file, gzip data cut short or corrupt, bytes that do not
 * unpack as a Node, a frame buffer that cannot be allocated); the message
 * names the file, the frame index and its byte offset.  After an error every
 * later call fails with the same error. */
ChakraProtoMsg__Node *wl_chakra_reader_next (WlChakraReader *r, GError **error);

/* wl_chakra_reader_next for callers that may accept a file whose last frame
 * is cut short (wl_chakra_reader_truncated): TRUE with *NODE the next node
 * (the caller's), or NULL at the end of the file, where with ACCEPT_CUT a
 * truncated last frame also counts as the end, *CUT (if not NULL) then
 * holding the reader's message (the caller's, g_free).  FALSE with ERROR
 * set for any other bad frame, or a cut one without ACCEPT_CUT. */
gboolean wl_chakra_reader_step (WlChakraReader *r, gboolean accept_cut,
                                ChakraProtoMsg__Node **node, char **cut, GError **error);

/* Free the reader, closing its file.  Accepts NULL. */
void wl_chakra_reader_free (WlChakraReader *r);

/* A frame read but not yet decoded: its bytes (the reader's, valid until
 * the next call) and where it starts in the file. */
typedef struct
{
  const guint8 *data;
  gsize len;
  guint64 offset;
} WlChakraFrame;

/* The next frame, read but not decoded, for a caller with a decoder of its
 * own (chakra_raw.h); hand it to wl_chakra_reader_step_frame when that
 * decoder declines it.  FALSE when there is no such frame: the end, a bad
 * frame, or a node read already (a headerless file's first): then
 * wl_chakra_reader_next (or _step) says which, exactly as without this
 * call.  Interleaved with those calls, the reader behaves as with them
 * alone. */
gboolean wl_chakra_reader_next_frame (WlChakraReader *r, WlChakraFrame *frame);
/* wl_chakra_reader_step for FRAME (from wl_chakra_reader_next_frame): its
 * node, decoded as wl_chakra_reader_next decodes, or its error. */
gboolean wl_chakra_reader_step_frame (WlChakraReader *r, const WlChakraFrame *frame,
                                      gboolean accept_cut, ChakraProtoMsg__Node **node,
                                      char **cut, GError **error);

/* Free a node from wl_chakra_reader_next.  Accepts NULL. */
void wl_chakra_node_free (ChakraProtoMsg__Node *node);

/* Free an unpacked GlobalMetadata.  Accepts NULL. */
void wl_chakra_metadata_free (ChakraProtoMsg__GlobalMetadata *meta);

/* ---------------------------------------------------------------- writer */

typedef struct _WlChakraWriter WlChakraWriter;

/* Create (or truncate) PATH and write frame 0: a GlobalMetadata holding only
 * VERSION (e.g. "0.0.4").  The output is gzip-compressed when PATH ends in
 * ".gz".  Returns a new writer, or NULL with ERROR set (WL_ERROR,
 * SIM_ERROR_INPUT, naming PATH). */
WlChakraWriter *wl_chakra_writer_open (const char *path, const char *version, GError **error);

/* As wl_chakra_writer_open, with FACTS (borrowed; NULL: none) written as
 * frame 0's attributes (tokens_per_iteration, model_flops, flops_formula):
 * what a generator records about the whole iteration. */
WlChakraWriter *wl_chakra_writer_open_full (const char *path, const char *version,
                                            const WlTraceFacts *facts, GError **error);

/* As wl_chakra_writer_open, writing META (borrowed) as frame 0, so that a
 * trace copied node by node comes out byte for byte identical. */
WlChakraWriter *wl_chakra_writer_open_metadata (const char *path,
                                                const ChakraProtoMsg__GlobalMetadata *meta,
                                                GError **error);

/* A writer whose frames are kept in memory instead of a file (frame 0 as
 * wl_chakra_writer_open_full writes it): the bytes a file would hold,
 * taken with wl_chakra_writer_steal_bytes.  NAME names the trace in
 * messages.  Writing to memory does not fail (a frame over 2 GiB is an
 * error, as for a file). */
WlChakraWriter *wl_chakra_writer_open_memory (const char *name, const char *version,
                                              const WlTraceFacts *facts);
/* The bytes written so far by a writer from wl_chakra_writer_open_memory
 * (the writer is closed: free it afterwards). */
GBytes *wl_chakra_writer_steal_bytes (WlChakraWriter *w);

/* Append NODE (borrowed) as the next frame.  Encoding is protobuf-c's:
 * fields in number order, proto3 zero scalars omitted, oneof members
 * written even when zero, repeated scalars packed, unknown fields kept.
 * Returns FALSE with ERROR set on a write error; after one, every later
 * call fails. */
gboolean wl_chakra_writer_add (WlChakraWriter *w, const ChakraProtoMsg__Node *node,
                               GError **error);

/* Flush and close the file, reporting any write error (FALSE, ERROR set).
 * The writer must still be freed; closing twice is harmless. */
gboolean wl_chakra_writer_close (WlChakraWriter *w, GError **error);

/* Free the writer, closing the file first if needed (errors ignored: call
 * wl_chakra_writer_close to see them).  Accepts NULL. */
void wl_chakra_writer_free (WlChakraWriter *w);

/* Fill *A as an integer attribute NAME (borrowed: it must outlive the node's
 * writing) holding V, as a 64-bit or a 32-bit value: what the generators
 * write into the nodes they build. */
void wl_chakra_attr_set_int64 (ChakraProtoMsg__AttributeProto *a, const char *name, gint64 v);
void wl_chakra_attr_set_int32 (ChakraProtoMsg__AttributeProto *a, const char *name, gint32 v);
/* Likewise an unsigned integer attribute, and a string one (V borrowed too). */
void wl_chakra_attr_set_uint (ChakraProtoMsg__AttributeProto *a, const char *name, guint64 v);
void wl_chakra_attr_set_string (ChakraProtoMsg__AttributeProto *a, const char *name,
                                const char *v);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlChakraReader, wl_chakra_reader_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlChakraWriter, wl_chakra_writer_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ChakraProtoMsg__Node, wl_chakra_node_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (ChakraProtoMsg__GlobalMetadata, wl_chakra_metadata_free)

#endif /* ORRERY_WORKLOAD_CHAKRA_H */
