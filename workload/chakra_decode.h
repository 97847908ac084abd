/* chakra_decode.h: a hand-written decoder of one Chakra Node frame.
 *
 * Why: protobuf-c's generic, table-driven unpack costs thousands of
 * instructions per node (a scan of every member into a slab, a descriptor
 * lookup per field, a recursive unpack per attribute), and loading traces
 * is the largest cost of a run.  This decoder reads the wire format of the
 * fields and attribute kinds that traces use straight into the
 * ChakraProtoMsg__Node that chakra_proto_msg__node__unpack would build, so
 * that every consumer stays unchanged.
 *
 * Equality with protobuf-c: the fast path accepts only frames it decodes
 * exactly as protobuf-c 1.4 does (varints as parse_uint64/parse_uint32/
 * parse_boolean read them, packed and unpacked repeated fields concatenated
 * in wire order, last-one-wins for singular fields and the value oneof,
 * strings copied with a NUL).  Anything else (an unknown field, a field
 * with an unexpected wire type, an IOInfo given twice (protobuf-c merges
 * those), an attribute kind outside the common ones, a broken varint or
 * length) makes it give up, and wl_chakra_decode_node then unpacks the same
 * frame with protobuf-c: odd and malformed frames behave exactly as before.
 *
 * Ownership: every block of the node comes from ARENA (pb_arena.h) and
 * lives until its next reset; never free the node.
 *
 * Layer: workload.  May include: GLib, protobuf-c, workload.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_DECODE_H
#define ORRERY_WORKLOAD_CHAKRA_DECODE_H

#include <glib.h>

#include "chakra.pb-c.h"
#include "workload/pb_arena.h"

/* Reset ARENA and decode the LEN bytes at DATA (one frame, without its
 * length prefix) as a Node into it: the fast path, else protobuf-c.
 * Returns NULL where protobuf-c's unpack returns NULL. */
ChakraProtoMsg__Node *wl_chakra_decode_node (WlPbArena *arena, gsize len, const guint8 *data);

/* The fast path alone, into ARENA (not reset): NULL when it gives up,
 * which is no verdict on the frame.  Public so that tests can check that
 * the frames of real traces take it and decode as protobuf-c does. */
ChakraProtoMsg__Node *wl_chakra_decode_fast (WlPbArena *arena, gsize len, const guint8 *data);

#endif /* ORRERY_WORKLOAD_CHAKRA_DECODE_H */
