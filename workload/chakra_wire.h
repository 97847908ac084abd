/* chakra_wire.h: the protobuf wire primitives of the hand-written Chakra
 * decoders (chakra_decode.c, chakra_raw.c): varints, bools, tags and
 * length prefixes read exactly as protobuf-c 1.4 reads them, each bounded
 * by the end of its (sub)message and FALSE on any surprise.
 *
 * Private to those decoders (static inline: the hot loop of loading).
 *
 * Layer: workload.  May include: GLib, protobuf-c.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_WIRE_H
#define ORRERY_WORKLOAD_CHAKRA_WIRE_H

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

enum
{
  WT_VARINT = 0,
  WT_I64 = 1,
  WT_LEN = 2
};

typedef struct
{
  const guint8 *p;   /* next byte */
  const guint8 *end; /* end of the (sub)message */
} Cur;

/* A varint of at most 10 bytes ending before the end, its bits past 64
 * dropped (protobuf-c's scan_varint and parse_uint64). */
static inline gboolean
read_varint (Cur *c, guint64 *v)
{
  if (c->p < c->end && c->p[0] < 0x80) /* most are one byte */
    {
      *v = *c->p++;
      return TRUE;
    }
  guint64 r = 0;
  for (guint i = 0; i < 10 && c->p + i < c->end; i++)
    {
      guint8 b = c->p[i];
      r |= (guint64) (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0)
        {
          c->p += i + 1;
          *v = r;
          return TRUE;
        }
    }
  return FALSE;
}

/* A bool as protobuf-c's parse_boolean reads one: true when any byte of
 * the varint has a payload bit, even one past bit 63. */
static inline gboolean
read_bool (Cur *c, protobuf_c_boolean *out)
{
  const guint8 *start = c->p;
  guint64 v;
  if (!read_varint (c, &v))
    return FALSE;
  *out = FALSE;
  for (const guint8 *q = start; q < c->p; q++)
    *out |= (*q & 0x7f) != 0;
  return TRUE;
}

/* A tag of one or two bytes (fields 1 to 2047); longer tags are left to
 * protobuf-c.  Field 0 comes back as 0, which no caller knows. */
static inline gboolean
read_tag (Cur *c, guint *field, guint *wt)
{
  guint b0 = c->p[0];
  *wt = b0 & 7;
  if (b0 < 0x80)
    {
      *field = b0 >> 3;
      c->p++;
      return TRUE;
    }
  if (c->end - c->p < 2 || c->p[1] >= 0x80)
    return FALSE;
  *field = ((b0 & 0x7f) >> 3) | ((guint) c->p[1] << 4);
  c->p += 2;
  return TRUE;
}

/* A length prefix of at most 5 bytes, at most G_MAXINT, and the bytes it
 * announces, all before the end (scan_length_prefixed_data). */
static inline gboolean
read_len (Cur *c, Cur *body)
{
  if (c->p < c->end && c->p[0] < 0x80) /* most are one byte */
    {
      const guint8 *at = c->p + 1;
      if (c->p[0] > c->end - at)
        return FALSE;
      body->p = at;
      body->end = at + c->p[0];
      c->p = body->end;
      return TRUE;
    }
  gsize v = 0;
  for (guint i = 0; i < 5 && c->p + i < c->end; i++)
    {
      guint8 b = c->p[i];
      v |= (gsize) (b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0)
        {
          const guint8 *at = c->p + i + 1;
          if (v > G_MAXINT || v > (gsize) (c->end - at))
            return FALSE;
          body->p = at;
          body->end = at + v;
          c->p = at + v;
          return TRUE;
        }
    }
  return FALSE;
}

#endif /* ORRERY_WORKLOAD_CHAKRA_WIRE_H */
