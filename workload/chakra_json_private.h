/* chakra_json_private.h: what the JSON reader (chakra_json.c) and writer
 * (chakra_json_write.c) of Chakra traces share.
 *
 * Layer: workload.  May include: sim, GLib, protobuf-c.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_JSON_PRIVATE_H
#define ORRERY_WORKLOAD_CHAKRA_JSON_PRIVATE_H

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

/* F's JSON name: its .proto name in lowerCamelCase ("ctrl_deps" ->
 * "ctrlDeps"), written into OUT (CAP bytes; names are short). */
void wl_cj_camel (const ProtobufCFieldDescriptor *f, char *out, gsize cap);

/* The bytes of one element of a field of type T (in a repeated array). */
gsize wl_cj_elt_size (ProtobufCType t);

/* Whether field F of M is set, as the binary encoder decides it: repeated
 * fields with elements (*N their count), the oneof member chosen, proto3
 * scalars that are not zero (bitwise), strings that are not empty, bytes
 * with data, messages that are there. */
gboolean wl_cj_present (const ProtobufCMessage *m, const ProtobufCFieldDescriptor *f, gsize *n);

/* Append M to OUT as MessageToJson prints it at indent level DEPTH (two
 * spaces each).  FALSE with WHY (a new string) when a string field is not
 * UTF-8 or M has fields the schema lacks. */
gboolean wl_cj_write_message (GString *out, const ProtobufCMessage *m, guint depth, char **why);

#endif /* ORRERY_WORKLOAD_CHAKRA_JSON_PRIVATE_H */
