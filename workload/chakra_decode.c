/* chakra_decode.c: the Node fast path (see chakra_decode.h).
 *
 * A Node is read in two passes, as protobuf-c reads it: the first walks the
 * frame's top level, checks every tag, wire type and length and counts the
 * elements of the repeated fields, the second allocates those arrays at
 * their final size (the arena cannot grow a block) and decodes.  Each
 * AttributeProto and *List is read the same way one level down.  Every
 * read is bounded by the end of its (sub)message; any surprise returns
 * NULL and the caller falls back to protobuf-c.
 */
#include "workload/chakra_decode.h"

#include <string.h>

#include "workload/chakra_node.h"

#include "workload/chakra_wire.h"

static inline void *
arena_alloc (ProtobufCAllocator *a, gsize size)
{
  return wl_pb_arena_alloc (a->allocator_data, size); /* inline bump */
}

/* A string field: copied with a NUL, as protobuf-c copies it. */
static inline gboolean
read_string (Cur *c, guint wt, ProtobufCAllocator *a, char **out)
{
  Cur s;
  if (wt != WT_LEN || !read_len (c, &s))
    return FALSE;
  gsize n = (gsize) (s.end - s.p);
  char *copy = arena_alloc (a, n + 1);
  if (copy == NULL)
    return FALSE;
  memcpy (copy, s.p, n);
  copy[n] = '\0';
  *out = copy;
  return TRUE;
}

/* An attribute's name: one orrery reads points at its static copy
 * (wl_chakra_attr_known: equal text, no allocation, and known to
 * wl_chakra_attr_index by its address); any other is copied. */
static inline gboolean
read_name (Cur *c, guint wt, ProtobufCAllocator *a, char **out)
{
  Cur s;
  if (wt != WT_LEN || !read_len (c, &s))
    return FALSE;
  gsize n = (gsize) (s.end - s.p);
  const char *known = wl_chakra_attr_known ((const char *) s.p, n);
  if (known != NULL)
    {
      *out = (char *) known; /* never written, nor freed (the node is the arena's) */
      return TRUE;
    }
  char *copy = arena_alloc (a, n + 1);
  if (copy == NULL)
    return FALSE;
  memcpy (copy, s.p, n);
  copy[n] = '\0';
  *out = copy;
  return TRUE;
}

/* First pass over one occurrence of a repeated varint field: one element
 * unpacked, or one per terminating byte packed (count_packed_elements);
 * a packed run must end on a terminating byte. */
static gboolean
count_varints (Cur *c, guint wt, gsize *count)
{
  guint64 v;
  if (wt == WT_VARINT)
    {
      (*count)++;
      return read_varint (c, &v);
    }
  Cur b;
  if (wt != WT_LEN || !read_len (c, &b))
    return FALSE;
  if (b.p < b.end && (b.end[-1] & 0x80) != 0)
    return FALSE;
  for (const guint8 *q = b.p; q < b.end; q++)
    *count += (*q & 0x80) == 0;
  return TRUE;
}

/* Read one value into element *N of OUT, 64-bit integers or, when BOOLS,
 * protobuf_c_booleans; count it. */
static inline gboolean
read_element (Cur *c, gboolean bools, void *out, gsize *n)
{
  if (bools)
    return read_bool (c, (protobuf_c_boolean *) out + (*n)++);
  return read_varint (c, (guint64 *) out + (*n)++);
}

/* Second pass: append the occurrence's values to OUT.  Each value read
 * uses one terminating byte, so *N stays within the first pass's count. */
static gboolean
fill_varints (Cur *c, guint wt, gboolean bools, void *out, gsize *n)
{
  if (wt == WT_VARINT)
    return read_element (c, bools, out, n);
  Cur b;
  if (!read_len (c, &b))
    return FALSE;
  while (b.p < b.end)
    if (!read_element (&b, bools, out, n))
      return FALSE;
  return TRUE;
}

/* Int64List, Uint64List or (BOOLS) BoolList: field 1, packed or not, into
 * *N and *VALUES. */
static gboolean
decode_varint_list (Cur body, ProtobufCAllocator *a, gboolean bools, gsize *n, void **values)
{
  gsize count = 0;
  guint f, wt;
  for (Cur c = body; c.p < c.end;)
    if (!read_tag (&c, &f, &wt) || f != 1 || !count_varints (&c, wt, &count))
      return FALSE;
  if (count == 0)
    return TRUE;
  *values = arena_alloc (a, count * (bools ? sizeof (protobuf_c_boolean) : sizeof (guint64)));
  if (*values == NULL)
    return FALSE;
  for (Cur c = body; c.p < c.end;)
    if (!read_tag (&c, &f, &wt) || !fill_varints (&c, wt, bools, *values, n))
      return FALSE;
  return TRUE;
}

/* DoubleList: packed runs of 8-byte values, or one fixed64 per tag. */
static gboolean
decode_double_list (Cur body, ProtobufCAllocator *a, ChakraProtoMsg__DoubleList *l)
{
  gsize count = 0;
  guint f, wt;
  Cur b = { NULL, NULL };
  for (Cur c = body; c.p < c.end;)
    {
      if (!read_tag (&c, &f, &wt) || f != 1)
        return FALSE;
      if (wt == WT_I64 && c.end - c.p >= 8)
        c.p += 8, count++;
      else if (wt == WT_LEN && read_len (&c, &b) && (b.end - b.p) % 8 == 0)
        count += (gsize) (b.end - b.p) / 8;
      else
        return FALSE;
    }
  if (count == 0)
    return TRUE;
  l->values = arena_alloc (a, count * sizeof (double));
  if (l->values == NULL)
    return FALSE;
  for (Cur c = body; c.p < c.end;)
    {
      read_tag (&c, &f, &wt); /* checked by the first pass */
      if (wt != WT_LEN)
        b = (Cur) { c.p, c.p + 8 }, c.p += 8;
      else if (!read_len (&c, &b))
        return FALSE;
      memcpy (l->values + l->n_values, b.p, (gsize) (b.end - b.p));
      l->n_values += (gsize) (b.end - b.p) / 8;
    }
  return TRUE;
}

/* StringList: one string per tag. */
static gboolean
decode_string_list (Cur body, ProtobufCAllocator *a, ChakraProtoMsg__StringList *l)
{
  gsize count = 0;
  guint f, wt;
  Cur s;
  for (Cur c = body; c.p < c.end; count++)
    if (!read_tag (&c, &f, &wt) || f != 1 || wt != WT_LEN || !read_len (&c, &s))
      return FALSE;
  if (count == 0)
    return TRUE;
  l->values = arena_alloc (a, count * sizeof (char *));
  if (l->values == NULL)
    return FALSE;
  for (Cur c = body; c.p < c.end; l->n_values++)
    if (!read_tag (&c, &f, &wt) || !read_string (&c, wt, a, &l->values[l->n_values]))
      return FALSE;
  return TRUE;
}

/* One list member of the value oneof (F: its field number) into *OUT. */
static gboolean
decode_list (Cur *c, guint f, guint wt, ProtobufCAllocator *a, void **out)
{
  Cur body;
  if (wt != WT_LEN || !read_len (c, &body))
    return FALSE;
  switch (f)
    {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_LIST:
      {
        ChakraProtoMsg__Int64List *l = arena_alloc (a, sizeof *l);
        if (l == NULL)
          return FALSE;
        chakra_proto_msg__int64_list__init (l);
        *out = l;
        return decode_varint_list (body, a, FALSE, &l->n_values, (void **) &l->values);
      }
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_LIST:
      {
        ChakraProtoMsg__Uint64List *l = arena_alloc (a, sizeof *l);
        if (l == NULL)
          return FALSE;
        chakra_proto_msg__uint64_list__init (l);
        *out = l;
        return decode_varint_list (body, a, FALSE, &l->n_values, (void **) &l->values);
      }
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST:
      {
        ChakraProtoMsg__BoolList *l = arena_alloc (a, sizeof *l);
        if (l == NULL)
          return FALSE;
        chakra_proto_msg__bool_list__init (l);
        *out = l;
        return decode_varint_list (body, a, TRUE, &l->n_values, (void **) &l->values);
      }
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_LIST:
      {
        ChakraProtoMsg__DoubleList *l = arena_alloc (a, sizeof *l);
        if (l == NULL)
          return FALSE;
        chakra_proto_msg__double_list__init (l);
        *out = l;
        return decode_double_list (body, a, l);
      }
    default:
      {
        ChakraProtoMsg__StringList *l = arena_alloc (a, sizeof *l);
        if (l == NULL)
          return FALSE;
        chakra_proto_msg__string_list__init (l);
        *out = l;
        return decode_string_list (body, a, l);
      }
    }
}

/* One member of the value oneof, field F.  Last one wins: protobuf-c
 * clears the previous member's bytes (at most 8 for the kinds read here)
 * before it writes the new one. */
static gboolean
decode_value (Cur *c, guint f, guint wt, ProtobufCAllocator *a, ChakraProtoMsg__AttributeProto *at)
{
  guint64 v = 0;
  memset (&at->uint64_val, 0, sizeof at->uint64_val);
  switch (f)
    {
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_VAL:
      if (wt != WT_I64 || c->end - c->p < 8)
        return FALSE;
      memcpy (&at->double_val, c->p, 8);
      c->p += 8;
      break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT32_VAL:
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT32_VAL:
      if (wt != WT_VARINT || !read_varint (c, &v))
        return FALSE;
      at->uint32_val = (guint32) v; /* parse_uint32: the low 32 bits */
      break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL:
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL:
      if (wt != WT_VARINT || !read_varint (c, &v))
        return FALSE;
      at->uint64_val = v;
      break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL:
      if (wt != WT_VARINT || !read_bool (c, &at->bool_val))
        return FALSE;
      break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL:
      if (!read_string (c, wt, a, &at->string_val))
        return FALSE;
      break;
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_DOUBLE_LIST:
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_LIST:
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_LIST:
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_LIST:
    case CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_LIST:
      if (!decode_list (c, f, wt, a, (void **) &at->string_list))
        return FALSE;
      break;
    default:
      return FALSE; /* a kind traces do not use: protobuf-c's job */
    }
  at->value_case = (ChakraProtoMsg__AttributeProto__ValueCase) f;
  return TRUE;
}

static ChakraProtoMsg__AttributeProto *
decode_attr (Cur body, ProtobufCAllocator *a)
{
  ChakraProtoMsg__AttributeProto *at = arena_alloc (a, sizeof *at);
  if (at == NULL)
    return NULL;
  static const ChakraProtoMsg__AttributeProto attr_init = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  *at = attr_init; /* chakra_proto_msg__attribute_proto__init, inline */
  guint f, wt;
  for (Cur c = body; c.p < c.end;)
    {
      if (!read_tag (&c, &f, &wt))
        return NULL;
      gboolean ok;
      if (f == 1)
        ok = read_name (&c, wt, a, &at->name);
      else if (f == 2)
        ok = read_string (&c, wt, a, &at->doc_string);
      else
        ok = decode_value (&c, f, wt, a, at);
      if (!ok)
        return NULL;
    }
  return at;
}

static ChakraProtoMsg__IOInfo *
decode_io (Cur body, ProtobufCAllocator *a)
{
  ChakraProtoMsg__IOInfo *io = arena_alloc (a, sizeof *io);
  if (io == NULL)
    return NULL;
  chakra_proto_msg__ioinfo__init (io);
  guint f, wt;
  for (Cur c = body; c.p < c.end;)
    {
      if (!read_tag (&c, &f, &wt) || f < 1 || f > 3)
        return NULL;
      char **slot = f == 1 ? &io->values : f == 2 ? &io->shapes : &io->types;
      if (!read_string (&c, wt, a, slot))
        return NULL;
    }
  return io;
}

typedef struct
{
  gsize ctrl, data, attr; /* elements of the repeated fields */
} NodeCounts;

/* First pass over a Node: every field known, with its wire type, and
 * inputs and outputs at most once each (protobuf-c merges repeats). */
static gboolean
node_scan (Cur c, NodeCounts *n)
{
  guint f, wt, seen = 0;
  guint64 v;
  Cur b;
  while (c.p < c.end)
    {
      if (!read_tag (&c, &f, &wt))
        return FALSE;
      gboolean ok;
      switch (f)
        {
        case 1: case 3: case 6: case 7:
          ok = wt == WT_VARINT && read_varint (&c, &v);
          break;
        case 4:
          ok = count_varints (&c, wt, &n->ctrl);
          break;
        case 5:
          ok = count_varints (&c, wt, &n->data);
          break;
        case 8: case 9:
          ok = wt == WT_LEN && (seen & (1u << f)) == 0 && read_len (&c, &b);
          seen |= 1u << f;
          break;
        case 10:
          n->attr++;
          /* fall through */
        case 2:
          ok = wt == WT_LEN && read_len (&c, &b);
          break;
        default:
          ok = FALSE;
        }
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

/* Second pass: one field F of a scanned Node into NODE. */
static gboolean
node_field (Cur *c, guint f, guint wt, ProtobufCAllocator *a, ChakraProtoMsg__Node *node)
{
  guint64 v;
  Cur b = { NULL, NULL };
  switch (f)
    {
    case 1: return read_varint (c, &node->id);
    case 2: return read_string (c, wt, a, &node->name);
    case 3:
      if (!read_varint (c, &v))
        return FALSE;
      node->type = (ChakraProtoMsg__NodeType) (gint32) (guint32) v; /* parse_int32 */
      return TRUE;
    case 4: return fill_varints (c, wt, FALSE, node->ctrl_deps, &node->n_ctrl_deps);
    case 5: return fill_varints (c, wt, FALSE, node->data_deps, &node->n_data_deps);
    case 6: return read_varint (c, &node->start_time_micros);
    case 7: return read_varint (c, &node->duration_micros);
    case 8:
    case 9:
      if (!read_len (c, &b))
        return FALSE;
      *(f == 8 ? &node->inputs : &node->outputs) = decode_io (b, a);
      return (f == 8 ? node->inputs : node->outputs) != NULL;
    default:
      if (!read_len (c, &b))
        return FALSE;
      node->attr[node->n_attr] = decode_attr (b, a);
      return node->attr[node->n_attr++] != NULL;
    }
}

/* An array of N elements of SIZE bytes from A, or NULL for none (as
 * protobuf-c leaves an empty repeated field).  *OK turns false when the
 * arena is out of memory. */
static void *
alloc_array (ProtobufCAllocator *a, gsize n, gsize size, gboolean *ok)
{
  if (n == 0)
    return NULL;
  void *p = arena_alloc (a, n * size);
  *ok = *ok && p != NULL;
  return p;
}

ChakraProtoMsg__Node *
wl_chakra_decode_fast (WlPbArena *arena, gsize len, const guint8 *data)
{
  g_return_val_if_fail (arena != NULL, NULL);
  if (len == 0)
    data = (const guint8 *) ""; /* an empty frame may come as NULL */
  Cur frame = { data, data + len };
  NodeCounts n = { 0, 0, 0 };
  if (len > (gsize) G_MAXINT || !node_scan (frame, &n))
    return NULL;
  ProtobufCAllocator *a = wl_pb_arena_allocator (arena);
  ChakraProtoMsg__Node *node = arena_alloc (a, sizeof *node);
  if (node == NULL)
    return NULL;
  chakra_proto_msg__node__init (node);
  gboolean ok = TRUE;
  node->ctrl_deps = alloc_array (a, n.ctrl, sizeof (guint64), &ok);
  node->data_deps = alloc_array (a, n.data, sizeof (guint64), &ok);
  node->attr = alloc_array (a, n.attr, sizeof (ChakraProtoMsg__AttributeProto *), &ok);
  guint f, wt;
  for (Cur c = frame; ok && c.p < c.end;)
    ok = read_tag (&c, &f, &wt) && node_field (&c, f, wt, a, node);
  return ok ? node : NULL;
}

ChakraProtoMsg__Node *
wl_chakra_decode_node (WlPbArena *arena, gsize len, const guint8 *data)
{
  g_return_val_if_fail (arena != NULL, NULL);
  wl_pb_arena_reset (arena);
  ChakraProtoMsg__Node *node = wl_chakra_decode_fast (arena, len, data);
  if (node != NULL)
    return node;
  wl_pb_arena_reset (arena);
  return chakra_proto_msg__node__unpack (wl_pb_arena_allocator (arena), len, data);
}
