/* chakra_json.h: Chakra traces in JSON, as chakra_jsonizer writes them.
 *
 * What it models: the JSON form of a trace file (mlcommons/chakra
 * src/jsonizer: protobuf's MessageToJson of the GlobalMetadata, then of
 * each node, one object after another): every message an object whose
 * members are the fields that are set, named in lowerCamelCase
 * ("ctrlDeps", "durationMicros", "int64Val"); 64-bit integers as decimal
 * strings, 32-bit ones as numbers; enums by name ("COMP_NODE"), or by
 * number for values the schema lacks; bytes in base64; floats and doubles
 * as the shortest decimal that reads back to the same value ("NaN",
 * "Infinity", "-Infinity" as strings); proto3 zero scalars, empty strings
 * and empty lists omitted, a oneof member written even when zero, a
 * present but empty message written {}.  So a trace written as JSON and
 * read back is the same messages, and re-encoded the same bytes.
 *
 * Written: objects pretty-printed as MessageToJson prints them (two-space
 * indent, non-ASCII as \u escapes), one per line group, separated by a
 * newline.  Read: any sequence of JSON objects separated by white space
 * (the jsonizer writes "}{"), each field under its lowerCamel or its
 * .proto name, integers as numbers or strings, enums by name or number:
 * what protobuf's own JSON parser accepts.  A member the schema lacks, a
 * value of the wrong kind, a key twice, text that does not parse: an input
 * error naming the file, the line of the object (and the node id once
 * known) and the field.  Text nesting deeper than SIM_NESTING_MAX is
 * refused before it is parsed (sim/nesting.h).
 *
 * Files: a path ending in ".json" is JSON, anything else binary (.et,
 * gzip when it ends in ".gz").
 *
 * Ownership: paths and texts are borrowed; results are the caller's.
 *
 * Layer: workload.  May include: sim, GLib, json-glib, protobuf-c.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_JSON_H
#define ORRERY_WORKLOAD_CHAKRA_JSON_H

#include <glib.h>

#include "workload/trace_dir.h"

/* Whether PATH names a JSON trace (it ends in ".json"). */
gboolean wl_chakra_json_path (const char *path);

/* The JSON trace TEXT (LEN bytes; PATH names it in messages) as the bytes
 * of the .et file it stands for (frame 0 the GlobalMetadata, then a frame
 * per node); NULL with ERROR set (WL_ERROR, SIM_ERROR_INPUT) when it is
 * not one.  An empty text (white space only) gives an empty file. */
GBytes *wl_chakra_json_to_et (const char *path, const char *text, gsize len, GError **error);

/* Convert the trace IN to OUT, each JSON or binary by its name (see
 * above): .et -> JSON, JSON -> .et, or either to the same form (a copy
 * through the messages).  A binary input must have its GlobalMetadata
 * (headerless files are refused), and fields the schema lacks (kept by the
 * binary reader) are refused since JSON cannot carry them.  FALSE with
 * ERROR set naming the file on any failure; OUT is then as it was (the
 * output is written through sim/out_file.h). */
gboolean wl_chakra_convert (const char *in, const char *out, GError **error);

/* The trace file of RANK in the set PREFIX: PREFIX.RANK.et, or
 * PREFIX.RANK.json when only that exists.  A new string. */
char *wl_chakra_trace_path (const char *prefix, guint32 rank);
/* The same, with what exists read from DIR, PREFIX's listing (NULL: asked
 * of the file system per file); *EXISTS (when not NULL) says whether the
 * file returned exists. */
char *wl_chakra_trace_path_in (const WlTraceDir *dir, const char *prefix, guint32 rank,
                               gboolean *exists);

/* A set's traces are all .et or all .json: PATH, RANK's file in the set
 * PREFIX (wl_chakra_trace_path), is checked against its other form
 * (PREFIX.RANK.json beside PREFIX.RANK.et) and against FIRST, rank 0's
 * file (NULL for rank 0).  FALSE with ERROR set (WL_ERROR,
 * SIM_ERROR_INPUT) naming both files when they mix. */
gboolean wl_chakra_trace_form_check (const char *prefix, guint32 rank, const char *path,
                                     const char *first, GError **error);
/* The same, with what exists read from DIR (NULL: the file system). */
gboolean wl_chakra_trace_form_check_in (const WlTraceDir *dir, const char *prefix, guint32 rank,
                                        const char *path, const char *first, GError **error);

#endif /* ORRERY_WORKLOAD_CHAKRA_JSON_H */
