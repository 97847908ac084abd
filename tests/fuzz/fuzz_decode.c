/* fuzz_decode.c: libFuzzer target comparing the hand-written Node decoder
 * (workload/chakra_decode.c) with protobuf-c's unpack, frame by frame.
 *
 * Input: a trace's bytes (frames: a varint length, then the message).
 * Every frame whose length prefix fits is decoded three ways: protobuf-c,
 * wl_chakra_decode_node and wl_chakra_decode_fast.  Both of the first two
 * must refuse it or both must give nodes that pack to the same bytes, and
 * so must the fast path whenever it does not give up; anything else aborts.
 *
 * Layer: tests.  May include: workload, GLib, protobuf-c.
 */
#include <string.h>

#include "fuzz_common.h"
#include "workload/chakra.h"
#include "workload/chakra_decode.h"

/* NODE packed (a new GBytes), or NULL for NULL. */
static GBytes *
pack (const ChakraProtoMsg__Node *node)
{
  if (node == NULL)
    return NULL;
  gsize size = chakra_proto_msg__node__get_packed_size (node);
  guint8 *buf = g_malloc (MAX (size, 1));
  if (chakra_proto_msg__node__pack (node, buf) != size)
    g_error ("fuzz: packed size changed");
  return g_bytes_new_take (buf, size);
}

static void
assert_same (GBytes *want, GBytes *got, const char *what)
{
  if ((want == NULL) != (got == NULL))
    g_error ("fuzz: protobuf-c %s a frame that %s %s", want ? "unpacks" : "refuses", what,
             got ? "unpacks" : "refuses");
  if (want != NULL && !g_bytes_equal (want, got))
    g_error ("fuzz: %s and protobuf-c decode a frame differently", what);
}

static void
check_frame (WlPbArena *arena, const uint8_t *data, size_t len)
{
  ChakraProtoMsg__Node *ref = chakra_proto_msg__node__unpack (NULL, len, data);
  GBytes *want = pack (ref);
  wl_chakra_node_free (ref);
  GBytes *got = pack (wl_chakra_decode_node (arena, len, data));
  assert_same (want, got, "wl_chakra_decode_node");
  g_clear_pointer (&got, g_bytes_unref);
  wl_pb_arena_reset (arena);
  ChakraProtoMsg__Node *fast = wl_chakra_decode_fast (arena, len, data);
  if (fast != NULL)
    {
      got = pack (fast);
      assert_same (want, got, "the fast path");
      g_bytes_unref (got);
    }
  if (want != NULL)
    g_bytes_unref (want);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  WlPbArena *arena = wl_pb_arena_new ();
  const uint8_t *p = data, *end = data + size;
  while (p < end)
    {
      guint64 len = 0;
      guint shift = 0;
      while (p < end && (*p & 0x80) && shift < 63)
        len |= (guint64) (*p++ & 0x7f) << shift, shift += 7;
      if (p == end)
        break;
      len |= (guint64) (*p++ & 0x7f) << shift;
      /* A frame cut short is checked as it stands, and ends the input. */
      size_t n = len <= (guint64) (end - p) ? (size_t) len : (size_t) (end - p);
      check_frame (arena, p, n);
      p += n;
    }
  wl_pb_arena_free (arena);
  return 0;
}
