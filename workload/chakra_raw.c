/* chakra_raw.c: a Node frame read in place (see chakra_raw.h).
 *
 * Each check mirrors wl_chakra_decode_fast's (chakra_decode.c): the same
 * fields with the same wire types, packed runs ending on a terminating
 * byte, the same value kinds, last one wins for singular fields and the
 * value oneof.  Where that decoder would build something loading does not
 * read without a question (IOInfo, lists other than bool_list), this one
 * gives up instead.
 */
#include "workload/chakra_raw.h"

#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_AVX2_PATH 1
#endif

#include "workload/chakra_wire.h"

/* Value fields of AttributeProto (chakra.proto). */
enum
{
  AV_DOUBLE = 3,
  AV_INT32 = 7,
  AV_INT64 = 9,
  AV_UINT32 = 11,
  AV_UINT64 = 13,
  AV_BOOL = 27,
  AV_BOOL_LIST = 28,
  AV_STRING = 29
};

void
wl_raw_node_init (WlRawNode *raw)
{
  memset (raw, 0, sizeof *raw);
}

void
wl_raw_node_clear (WlRawNode *raw)
{
  g_clear_pointer (&raw->data_deps.v, g_free);
  g_clear_pointer (&raw->ctrl_deps.v, g_free);
  g_clear_pointer (&raw->text, g_free);
  g_clear_pointer (&raw->memo, g_free);
}

const char *
wl_raw_node_text (WlRawNode *raw, const guint8 *p, gsize len)
{
  if (len + 1 > raw->text_cap)
    {
      raw->text_cap = MAX (len + 1, 2 * raw->text_cap);
      raw->text = g_realloc (raw->text, raw->text_cap);
    }
  if (len > 0)
    memcpy (raw->text, p, len);
  raw->text[len] = '\0';
  return raw->text;
}

/* Room for MORE ids past IDS->n; FALSE when memory runs out (the frame
 * is then the usual decoder's, which says so). */
static gboolean
ids_reserve (WlRawIds *ids, gsize more)
{
  if (more <= (gsize) (ids->cap - ids->n))
    return TRUE;
  gsize want = MAX ((gsize) ids->n + more, 2 * (gsize) ids->cap);
  guint64 *v = want <= G_MAXUINT ? g_try_renew (guint64, ids->v, want) : NULL;
  if (v == NULL)
    return FALSE;
  ids->v = v;
  ids->cap = (guint) want;
  return TRUE;
}

/* A bool as read_bool reads one, widened. */
static gboolean
raw_bool (Cur *c, gboolean *out)
{
  protobuf_c_boolean b = FALSE;
  if (!read_bool (c, &b))
    return FALSE;
  *out = b != 0;
  return TRUE;
}

/* BoolList's field 1, packed or not, into A (decode_varint_list's checks). */
static gboolean
raw_bool_list (Cur body, WlRawAttr *a)
{
  a->kind = WL_RAW_BOOL_LIST;
  a->len = 0;
  a->bits = 0;
  guint f, wt;
  for (Cur c = body; c.p < c.end;)
    {
      if (!read_tag (&c, &f, &wt) || f != 1)
        return FALSE;
      Cur b = { c.p, c.end };
      if (wt == WT_LEN)
        {
          if (!read_len (&c, &b) || (b.p < b.end && (b.end[-1] & 0x80) != 0))
            return FALSE;
        }
      else if (wt != WT_VARINT)
        return FALSE;
      /* Packed: every value of the run; unpacked: the one after the tag. */
      for (gboolean first = TRUE; wt == WT_LEN ? b.p < b.end : first; first = FALSE)
        {
          gboolean v;
          if (!raw_bool (&b, &v))
            return FALSE;
          a->bits |= (v && a->len < 32) ? 1u << a->len : 0u;
          a->len++;
        }
      if (wt == WT_VARINT)
        c.p = b.p;
    }
  return TRUE;
}

/* One member of the value oneof, field F, into A (decode_value's kinds). */
static gboolean
raw_value (Cur *c, guint f, guint wt, WlRawAttr *a)
{
  guint64 v = 0;
  Cur b;
  a->is_signed = f == AV_INT32 || f == AV_INT64;
  switch (f)
    {
    case AV_DOUBLE:
      if (wt != WT_I64 || c->end - c->p < 8)
        return FALSE;
      c->p += 8;
      a->kind = WL_RAW_OTHER;
      return TRUE;
    case AV_INT32:
    case AV_UINT32:
      if (wt != WT_VARINT || !read_varint (c, &v))
        return FALSE;
      a->kind = WL_RAW_INT;
      a->s = (gint32) (guint32) v; /* parse_uint32: the low 32 bits */
      a->u = (guint32) v;
      return TRUE;
    case AV_INT64:
    case AV_UINT64:
      if (wt != WT_VARINT || !read_varint (c, &v))
        return FALSE;
      a->kind = WL_RAW_INT;
      a->s = (gint64) v;
      a->u = v;
      return TRUE;
    case AV_BOOL:
      {
        gboolean t;
        if (wt != WT_VARINT || !raw_bool (c, &t))
          return FALSE;
        a->kind = WL_RAW_INT;
        a->u = t ? 1 : 0;
        return TRUE;
      }
    case AV_STRING:
      if (wt != WT_LEN || !read_len (c, &b))
        return FALSE;
      a->kind = WL_RAW_STRING;
      a->p = b.p;
      a->len = (gsize) (b.end - b.p);
      return TRUE;
    case AV_BOOL_LIST:
      return wt == WT_LEN && read_len (c, &b) && raw_bool_list (b, a);
    default:
      return FALSE; /* other kinds and lists: the usual decoder's */
    }
}

/* Whether the LEN bytes at P hold a NUL: in line when few (a group's
 * name is a digit or two; a call to memchr costs more). */
static inline gboolean
has_nul (const guint8 *p, gsize len)
{
  if (len > 16)
    return memchr (p, 0, len) != NULL;
  for (gsize i = 0; i < len; i++)
    if (p[i] == 0)
      return TRUE;
  return FALSE;
}

/* The memo slot for the N bytes at P (WL_RAW_MEMO_MIN <= N <= MAX): by a
 * hash of their last eight, where a value sits. */
static inline WlRawMemo *
memo_slot (WlRawNode *raw, const guint8 *p, gsize n)
{
  if (G_UNLIKELY (raw->memo == NULL))
    {
      /* Made here, not with RAW: a reader that never meets an attribute
       * (and every WlRawNode's zeroing) costs nothing. */
      raw->memo = g_new (WlRawMemo, WL_RAW_MEMO_SLOTS);
      for (guint i = 0; i < WL_RAW_MEMO_SLOTS; i++)
        raw->memo[i].len = 0;
    }
  guint64 x;
  memcpy (&x, p + n - 8, 8);
  guint64 h = (x ^ (guint64) n) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return &raw->memo[h >> (64 - 6)];
}
G_STATIC_ASSERT (WL_RAW_MEMO_SLOTS == 1 << 6);

/* Whether the N bytes (8 <= N <= 32) at A and B are the same, a word at a
 * time (the last word overlapping). */
static inline gboolean
same_short (const guint8 *a, const guint8 *b, gsize n)
{
  guint64 x, y, d = 0;
  for (gsize i = 0; i + 8 < n; i += 8)
    {
      memcpy (&x, a + i, 8);
      memcpy (&y, b + i, 8);
      d |= x ^ y;
    }
  memcpy (&x, a + n - 8, 8);
  memcpy (&y, b + n - 8, 8);
  return (d | (x ^ y)) == 0;
}

/* What raw_attr does with an attribute whose body BODY is M's bytes: M's
 * attribute kept when its name is known and first. */
static inline gboolean
memo_take (const WlRawMemo *m, const guint8 *body, const guint8 *field, WlRawNode *raw)
{
  WlAttrKey k = (WlAttrKey) m->key;
  if (k == WL_ATTR_OTHER)
    return TRUE;
  if ((raw->seen & (1u << k)) != 0)
    return FALSE; /* a known name twice: the usual decoder refuses it */
  raw->seen |= 1u << k;
  WlRawAttr *a = &raw->attr[k];
  *a = m->attr;
  a->p = body + m->p_off;
  a->field = field;
  return TRUE;
}

/* Remember in M (when not NULL) that BODY (N bytes) reads as A, kept as
 * key K (WL_ATTR_OTHER: not kept). */
static inline void
memo_note (WlRawMemo *m, const guint8 *body, gsize n, WlAttrKey k, const WlRawAttr *a)
{
  if (m == NULL)
    return;
  m->len = (guint8) n;
  m->key = (guint8) k;
  memcpy (m->bytes, body, n);
  if (k == WL_ATTR_OTHER)
    return;
  m->attr = *a;
  m->p_off = a->kind == WL_RAW_STRING ? (guint8) (a->p - body) : 0;
  m->attr.p = NULL;
  m->attr.field = NULL;
}

/* raw_attr's reading of BODY, remembered in M (when not NULL). */
G_GNUC_NO_INLINE static gboolean
raw_attr_read (Cur body, const guint8 *field, WlRawNode *raw, WlRawMemo *m)
{
  WlRawAttr a = { .kind = WL_RAW_NONE, .field = field };
  const guint8 *name = NULL;
  gsize name_len = 0;
  guint f, wt;
  Cur s;
  for (Cur c = body; c.p < c.end;)
    {
      if (!read_tag (&c, &f, &wt))
        return FALSE;
      if (f == 1 || f == 2)
        {
          if (wt != WT_LEN || !read_len (&c, &s))
            return FALSE;
          if (f == 1)
            name = s.p, name_len = (gsize) (s.end - s.p);
        }
      else if (!raw_value (&c, f, wt, &a))
        return FALSE;
    }
  gsize n = (gsize) (body.end - body.p);
  if (name == NULL)
    {
      memo_note (m, body.p, n, WL_ATTR_OTHER, NULL);
      return TRUE;
    }
  WlAttrKey k = wl_chakra_attr_key ((const char *) name, name_len);
  if (k == WL_ATTR_OTHER)
    {
      if (memchr (name, 0, name_len) != NULL)
        return FALSE; /* "comm_type\0x" is comm_type */
      memo_note (m, body.p, n, WL_ATTR_OTHER, NULL);
      return TRUE;
    }
  if ((raw->seen & (1u << k)) != 0)
    return FALSE; /* a known name twice: the usual decoder refuses it */
  if (a.kind == WL_RAW_STRING && has_nul (a.p, a.len))
    return FALSE; /* C string semantics: the usual decoder's */
  raw->seen |= 1u << k;
  raw->attr[k] = a;
  memo_note (m, body.p, n, k, &a);
  return TRUE;
}

/* One AttributeProto, its field at FIELD: kept in RAW when its name is
 * known and first.  Short bodies read before are not read again: what
 * they read as is a function of their bytes (and of RAW->seen, applied
 * afresh).  In line: most calls end in the memo. */
static inline gboolean
raw_attr (Cur body, const guint8 *field, WlRawNode *raw)
{
  gsize n = (gsize) (body.end - body.p);
  WlRawMemo *m = NULL;
  if (n >= WL_RAW_MEMO_MIN && n <= WL_RAW_MEMO_MAX)
    {
      m = memo_slot (raw, body.p, n);
      if (m->len == n && same_short (m->bytes, body.p, n))
        return memo_take (m, body.p, field, raw);
    }
  return raw_attr_read (body, field, raw, m);
}

/* A repeated uint64 field's occurrence (count_varints' and fill_varints'
 * checks), appended to IDS. */
static gboolean
raw_deps (Cur *c, guint wt, WlRawIds *ids)
{
  if (wt == WT_VARINT)
    {
      return ids_reserve (ids, 1) && read_varint (c, &ids->v[ids->n++]);
    }
  Cur b;
  if (wt != WT_LEN || !read_len (c, &b) || (b.p < b.end && (b.end[-1] & 0x80) != 0)
      || !ids_reserve (ids, (gsize) (b.end - b.p))) /* at most one id a byte */
    return FALSE;
  while (b.p < b.end)
    if (!read_varint (&b, &ids->v[ids->n++]))
      return FALSE;
  return TRUE;
}

/* Field F of a Node, its tag at START (node_scan's and node_field's
 * checks). */
static gboolean
raw_field (Cur *c, const guint8 *start, guint f, guint wt, WlRawNode *raw)
{
  guint64 v;
  Cur b;
  switch (f)
    {
    case 1: case 3: case 6: case 7:
      if (wt != WT_VARINT || !read_varint (c, &v))
        return FALSE;
      if (f == 1)
        raw->id = v;
      else if (f == 3)
        raw->type = (gint32) (guint32) v; /* parse_int32 */
      else if (f == 7)
        raw->duration_micros = v;
      return TRUE;
    case 2:
      if (wt != WT_LEN || !read_len (c, &b) || memchr (b.p, 0, (gsize) (b.end - b.p)) != NULL)
        return FALSE;
      raw->name = b.p;
      raw->name_len = (gsize) (b.end - b.p);
      return TRUE;
    case 4: return raw_deps (c, wt, &raw->ctrl_deps);
    case 5: return raw_deps (c, wt, &raw->data_deps);
    case 10: return wt == WT_LEN && read_len (c, &b) && raw_attr (b, start, raw);
    default:
      return FALSE; /* IOInfo (8, 9), unknown fields: the usual decoder's */
    }
}

/* RAW emptied for the frame DATA of LEN bytes; FALSE for lengths no frame
 * has. */
static gboolean
raw_reset (WlRawNode *raw, const guint8 *data, gsize len)
{
  if (len == 0 || len > (gsize) G_MAXINT)
    return FALSE;
  raw->frame = data;
  raw->id = 0;
  raw->type = 0;
  raw->duration_micros = 0;
  raw->name = NULL;
  raw->name_len = 0;
  raw->seen = 0;
  raw->data_deps.n = 0;
  raw->ctrl_deps.n = 0;
  return TRUE;
}

gboolean
wl_chakra_raw_node (const guint8 *data, gsize len, WlRawNode *raw)
{
  g_return_val_if_fail (raw != NULL, FALSE);
  if (!raw_reset (raw, data, len))
    return FALSE;
  guint f, wt;
  for (Cur c = { data, data + len }; c.p < c.end;)
    {
      const guint8 *start = c.p;
      if (!read_tag (&c, &f, &wt) || !raw_field (&c, start, f, wt, raw))
        return FALSE;
    }
  return TRUE;
}

/* The field at C (past it after): its number, wire type and, for a
 * length-delimited one, its body; FALSE for wire types raw frames lack. */
static inline gboolean
raw_skip_field (Cur *c, guint *f, guint *wt, Cur *body)
{
  guint64 v;
  if (!read_tag (c, f, wt))
    return FALSE;
  switch (*wt)
    {
    case WT_VARINT:
      return read_varint (c, &v);
    case WT_I64:
      if (c->end - c->p < 8)
        return FALSE;
      c->p += 8;
      return TRUE;
    case WT_LEN:
      return read_len (c, body);
    default:
      return FALSE;
    }
}

/* Whether attribute bodies A and B are one attribute, of a name that
 * names a rank or a group, but for its value: their fields alike in
 * number and kind, the name and doc string byte for byte. */
static gboolean
names_only_attr (Cur a, Cur b)
{
  const guint8 *name = NULL;
  gsize name_len = 0;
  while (a.p < a.end && b.p < b.end)
    {
      const guint8 *sa = a.p, *sb = b.p;
      guint fa, wa, fb, wb;
      Cur ba = { 0 }, bb = { 0 };
      if (!raw_skip_field (&a, &fa, &wa, &ba) || !raw_skip_field (&b, &fb, &wb, &bb)
          || fa != fb || wa != wb)
        return FALSE;
      gsize n = (gsize) (a.p - sa);
      gboolean same = n == (gsize) (b.p - sb) && wl_common_prefix (sa, sb, n) == n;
      if ((fa == 1 || fa == 2) && !same)
        return FALSE;
      if (fa == 1 && wa == WT_LEN)
        name = ba.p, name_len = (gsize) (ba.end - ba.p);
    }
  if (a.p != a.end || b.p != b.end || name == NULL)
    return FALSE;
  switch (wl_chakra_attr_key ((const char *) name, name_len))
    {
    case WL_ATTR_COMM_SRC:
    case WL_ATTR_COMM_DST:
    case WL_ATTR_COMM_ROOT:
    case WL_ATTR_ROOT:
    case WL_ATTR_PG_NAME:
      return TRUE;
    default:
      return FALSE;
    }
}

gboolean
wl_chakra_raw_names_only (const guint8 *a, gsize la, const guint8 *b, gsize lb)
{
  Cur ca = { a, a + la }, cb = { b, b + lb };
  while (ca.p < ca.end && cb.p < cb.end)
    {
      gsize ra = (gsize) (ca.end - ca.p), rb = (gsize) (cb.end - cb.p);
      gsize d = wl_common_prefix (ca.p, cb.p, MIN (ra, rb));
      if (d == ra && d == rb)
        return TRUE;
      /* Fields wholly before the first difference are the same fields in
       * both (their bytes read alike): stepped over in A and B together. */
      guint fa, wa, fb, wb;
      Cur ba = { 0 }, bb = { 0 };
      for (;;)
        {
          const guint8 *start = ca.p;
          if (ca.p == ca.end || !raw_skip_field (&ca, &fa, &wa, &ba))
            return FALSE;
          gsize len = (gsize) (ca.p - start);
          if (len > d)
            break; /* CB is at this field's start in B */
          d -= len;
          cb.p += len;
        }
      /* The field holding it: an attribute in both, alike but its value. */
      if (cb.p == cb.end || !raw_skip_field (&cb, &fb, &wb, &bb) || fa != fb || wa != wb || fa != 10
          || wa != WT_LEN || !names_only_attr (ba, bb))
        return FALSE;
    }
  return ca.p == ca.end && cb.p == cb.end;
}

/* Whether A's field at *CA and B's field that starts at SB and ends at
 * EB (field F, wire type WT, read) are one attribute but for the value of
 * a name (names_only_attr); *CA past A's field after. */
static gboolean
names_only_field (Cur *ca, const guint8 *sb, const guint8 *eb, guint f, guint wt)
{
  guint fa, wa;
  Cur ba = { 0 }, bb = { 0 };
  Cur cb = { sb, eb };
  guint fb, wb;
  return f == 10 && wt == WT_LEN && ca->p < ca->end && raw_skip_field (ca, &fa, &wa, &ba)
         && fa == f && wa == wt && raw_skip_field (&cb, &fb, &wb, &bb) && names_only_attr (ba, bb);
}

gboolean
wl_chakra_raw_node_against (const guint8 *a, gsize la, const guint8 *b, gsize lb,
                            WlRawNode *raw, gboolean *names_only)
{
  g_return_val_if_fail (raw != NULL && names_only != NULL, FALSE);
  *names_only = FALSE;
  if (!raw_reset (raw, b, lb))
    return FALSE;
  Cur ca = { a, a + la }, cb = { b, b + lb };
  gboolean alike = TRUE;
  /* B's bytes before DIFF are A's too, at the same distance from CA. */
  const guint8 *diff = b + wl_common_prefix (a, b, MIN (la, lb));
  guint f, wt;
  while (cb.p < cb.end)
    {
      const guint8 *start = cb.p;
      if (!read_tag (&cb, &f, &wt) || !raw_field (&cb, start, f, wt, raw))
        return FALSE;
      if (!alike)
        continue;
      if (cb.p <= diff)
        {
          /* A field wholly before the difference: the same field in A. */
          ca.p += cb.p - start;
          continue;
        }
      /* The field holding it: an attribute in both, alike but its value;
       * then the next difference from the fields after. */
      alike = names_only_field (&ca, start, cb.p, f, wt);
      if (alike)
        diff = cb.p + wl_common_prefix (ca.p, cb.p, MIN ((gsize) (ca.end - ca.p),
                                                      (gsize) (cb.end - cb.p)));
    }
  *names_only = alike && ca.p == ca.end;
  return TRUE;
}

const WlAttrKey wl_raw_name_keys[WL_RAW_N_NAMES] = {
  WL_ATTR_COMM_SRC, WL_ATTR_COMM_DST, WL_ATTR_COMM_ROOT, WL_ATTR_ROOT, WL_ATTR_PG_NAME
};

gboolean
wl_raw_names_of (const WlRawNode *raw, WlRawNames *out)
{
  g_return_val_if_fail (raw != NULL && out != NULL, FALSE);
  memset (out, 0, sizeof *out);
  for (guint i = 0; i < WL_RAW_N_NAMES; i++)
    {
      WlAttrKey k = wl_raw_name_keys[i];
      if ((raw->seen & (1u << k)) == 0)
        continue;
      gsize at = (gsize) (raw->attr[k].field - raw->frame) + 1;
      if (at >= G_MAXUINT16)
        return FALSE;
      out->at[i] = (guint16) at;
    }
  out->clean = 1;
  return TRUE;
}

/* The names AN gives, in the order their fields come: their indices into
 * ORDER; how many.  A frame names one or two (a group, a send's ranks):
 * those are placed without a sort. */
static inline guint
names_in_order (const WlRawNames *an, guint order[WL_RAW_N_NAMES])
{
  guint n = 0;
  for (guint i = 0; i < WL_RAW_N_NAMES; i++)
    if (an->at[i] != 0)
      order[n++] = i;
  if (n == 2 && an->at[order[0]] > an->at[order[1]])
    {
      guint t = order[0];
      order[0] = order[1];
      order[1] = t;
    }
  else if (n > 2)
    for (guint i = 1; i < n; i++)
      for (guint j = i; j > 0 && an->at[order[j - 1]] > an->at[order[j]]; j--)
        {
          guint t = order[j];
          order[j] = order[j - 1];
          order[j - 1] = t;
        }
  return n;
}

/* A's name field at *PA and B's at *PB (frames ending at EA and EB): both
 * attributes, B's read into RAW as wl_chakra_raw_node reads it (the first
 * of its name, as A's is) and named wl_raw_name_keys[I]; both past their
 * fields after. */
static gboolean
name_field_against (const guint8 **pa, const guint8 *ea, const guint8 **pb,
                    const guint8 *eb, guint i, WlRawNode *raw)
{
  Cur ca = { *pa, ea }, cb = { *pb, eb };
  guint fa, wa, fb, wb;
  Cur ba = { 0 }, bb = { 0 };
  /* raw_skip_field reads a tag's first byte unchecked: B may end here. */
  if (ca.p >= ca.end || cb.p >= cb.end || !raw_skip_field (&ca, &fa, &wa, &ba) || !raw_skip_field (&cb, &fb, &wb, &bb) || fa != 10
      || wa != WT_LEN || fb != fa || wb != wa || !raw_attr (bb, *pb, raw)
      || (raw->seen & (1u << wl_raw_name_keys[i])) == 0)
    return FALSE;
  *pa = ca.p;
  *pb = cb.p;
  return TRUE;
}

/* Whether the N bytes at A and B are the same: in line when few, else by
 * memcmp's blocks (a frame's bytes between names run to a hundred). */
static inline gboolean
same_bytes (const guint8 *a, const guint8 *b, gsize n)
{
  return n < 32 ? wl_common_prefix (a, b, n) == n : memcmp (a, b, n) == 0;
}

gboolean
wl_chakra_raw_names_against (const guint8 *a, gsize la, const WlRawNames *an, const guint8 *b,
                             gsize lb, gsize known, WlRawNode *raw, WlRawNames *bn)
{
  g_return_val_if_fail (an != NULL && raw != NULL && bn != NULL, FALSE);
  if (!an->clean || !raw_reset (raw, b, lb))
    return FALSE;
  guint order[WL_RAW_N_NAMES];
  guint n = names_in_order (an, order);
  const guint8 *pa = a, *pb = b, *ea = a + la, *eb = b + lb;
  memset (bn, 0, sizeof *bn);
  for (guint k = 0; k < n; k++)
    {
      /* The bytes up to A's next name field are B's too (the first KNOWN
       * are, while B's fields sit where A's do). */
      const guint8 *fa = a + an->at[order[k]] - 1;
      if (fa < pa || fa >= ea)
        return FALSE;
      gsize gap = (gsize) (fa - pa), at_a = (gsize) (pa - a);
      gsize skip = at_a == (gsize) (pb - b) && known > at_a ? MIN (known - at_a, gap) : 0;
      if (gap > (gsize) (eb - pb) || !same_bytes (pa + skip, pb + skip, gap - skip))
        return FALSE;
      pa = fa;
      pb += gap;
      gsize at = (gsize) (pb - b) + 1;
      if (at >= G_MAXUINT16 || !name_field_against (&pa, ea, &pb, eb, order[k], raw))
        return FALSE;
      bn->at[order[k]] = (guint16) at;
    }
  gsize rest = (gsize) (ea - pa);
  if ((gsize) (eb - pb) != rest || !same_bytes (pa, pb, rest))
    return FALSE;
  bn->clean = 1;
  return TRUE;
}

#ifdef HAVE_AVX2_PATH
__attribute__ ((target ("avx2"))) static gsize
common_prefix_avx2 (const guint8 *a, const guint8 *b, gsize n)
{
  gsize i = 0;
  for (; i + 64 <= n; i += 64)
    {
      __m256i e0 = _mm256_cmpeq_epi8 (_mm256_loadu_si256 ((const __m256i *) (const void *) (a + i)),
                                      _mm256_loadu_si256 ((const __m256i *) (const void *) (b + i)));
      __m256i e1
        = _mm256_cmpeq_epi8 (_mm256_loadu_si256 ((const __m256i *) (const void *) (a + i + 32)),
                             _mm256_loadu_si256 ((const __m256i *) (const void *) (b + i + 32)));
      if ((guint32) _mm256_movemask_epi8 (_mm256_and_si256 (e0, e1)) != G_MAXUINT32)
        {
          /* Bit k: byte k equal; the first clear one differs. */
          guint64 eq = (guint64) (guint32) _mm256_movemask_epi8 (e0)
                       | (guint64) (guint32) _mm256_movemask_epi8 (e1) << 32;
          return i + (gsize) __builtin_ctzll (~eq);
        }
    }
  return i + wl_common_prefix (a + i, b + i, n - i);
}
#endif

gsize
wl_common_prefix_long (const guint8 *a, const guint8 *b, gsize n)
{
#ifdef HAVE_AVX2_PATH
  if (__builtin_cpu_supports ("avx2"))
    return common_prefix_avx2 (a, b, n);
#endif
  return wl_common_prefix (a, b, n);
}

guint32
wl_chakra_count_frames (const guint8 *data, gsize len)
{
  Cur c = { data, data + len };
  guint32 n = 0;
  while (c.p < c.end)
    {
      Cur body;
      if (!read_len (&c, &body) || n == G_MAXUINT32)
        return 0;
      n++;
    }
  return n;
}
