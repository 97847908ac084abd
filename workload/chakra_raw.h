/* chakra_raw.h: one Chakra Node frame read in place, for loading.
 *
 * Why: decoding a frame into a ChakraProtoMsg__Node (chakra_decode.h)
 * copies every string into an arena and builds a message per attribute,
 * only for graph loading to look the attributes up again and keep a few
 * numbers.  This reader walks the frame once and keeps, in place, what
 * loading reads: the id, type, duration, name, dependencies, and the
 * attribute of each name orrery knows (WlAttrKey), its value widened as
 * the attribute accessors widen it (chakra_node.h); a frame that gives
 * one of those names twice is not taken (the usual decoder refuses it).
 *
 * It takes only frames that wl_chakra_decode_fast takes too (the same
 * fields, wire types and attribute kinds, every length within its
 * message), and of those only what graph loading reads without a question:
 * no IOInfo (METADATA nodes carry their groups there), no attribute kind
 * beyond the scalars, strings and bool lists, no NUL inside a name or a
 * string it keeps.  Anything else returns FALSE, which is no verdict on
 * the frame: the caller decodes it the usual way.
 *
 * Ownership: pointers into the frame (valid while the frame is); the
 * dependency arrays are the WlRawNode's, reused frame after frame.
 *
 * Layer: workload.  May include: GLib, protobuf-c, workload.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_RAW_H
#define ORRERY_WORKLOAD_CHAKRA_RAW_H

#include <glib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "workload/chakra_node.h"
#include "workload/node.h"

/* What an attribute's value is, as the accessors see it. */
typedef enum
{
  WL_RAW_NONE,      /* a name without a value */
  WL_RAW_INT,       /* int32, int64, uint32, uint64 or bool: IS_SIGNED, S, U */
  WL_RAW_STRING,    /* string_val: P, LEN */
  WL_RAW_BOOL_LIST, /* bool_list: the list's truth values in BITS (first 32), N */
  WL_RAW_OTHER      /* double_val: no accessor orrery uses reads it */
} WlRawKind;

typedef struct
{
  WlRawKind kind;
  gboolean is_signed;
  gint64 s;
  guint64 u;
  const guint8 *p;
  gsize len;        /* string bytes, or bool list entries */
  guint32 bits;     /* bool list: bit i set when entry i (< 32) is true */
  const guint8 *field; /* the attribute's field in the frame (its tag's first byte) */
} WlRawAttr;

/* Node ids, reused frame after frame. */
typedef struct
{
  guint64 *v;
  guint n;
  guint cap;
} WlRawIds;

/* An attribute's bytes and what they read as, remembered (chakra_raw.c's
 * raw_attr): a trace's attributes repeat (a group's name, a size, a
 * type), and comparing a few bytes costs less than reading them again.
 * ATTR.p is then an offset from the attribute's body, in P_OFF. */
#define WL_RAW_MEMO_MIN 8    /* bodies shorter are not remembered */
#define WL_RAW_MEMO_MAX 32   /* nor longer ones (kernel lists) */
#define WL_RAW_MEMO_SLOTS 64 /* a power of two */

typedef struct
{
  guint8 len;                  /* the body's length; 0: an empty slot */
  guint8 key;                  /* its WlAttrKey (WL_ATTR_OTHER: kept nowhere) */
  guint8 p_off;
  guint8 bytes[WL_RAW_MEMO_MAX];
  WlRawAttr attr;              /* its field and p unset */
} WlRawMemo;

struct _WlRawNode
{
  const guint8 *frame;       /* the frame read (its first byte past the length) */
  guint64 id;
  gint32 type;               /* NodeType, as parse_int32 reads it */
  guint64 duration_micros;
  const guint8 *name;        /* NULL: no name */
  gsize name_len;
  WlRawIds data_deps;        /* in wire order */
  WlRawIds ctrl_deps;
  guint32 seen;              /* bit k: an attribute named key k came (a second: not taken) */
  WlRawAttr attr[WL_ATTR_OTHER];
  char *text;                /* wl_raw_node_text's copy */
  gsize text_cap;
  WlRawMemo *memo;           /* attributes read before, by their bytes' hash
                              * (WL_RAW_MEMO_SLOTS, made on first use) */
};

void wl_raw_node_init (WlRawNode *raw);
void wl_raw_node_clear (WlRawNode *raw);
/* The LEN bytes at P as C text, copied into RAW (valid until the next
 * call). */
const char *wl_raw_node_text (WlRawNode *raw, const guint8 *p, gsize len);

/* Read the LEN bytes at DATA (one frame, without its length prefix) into
 * RAW; FALSE when this reader does not take the frame (see above). */
gboolean wl_chakra_raw_node (const guint8 *data, gsize len, WlRawNode *raw);

/* Whether frames A (LA bytes) and B (LB) are the same node but for the
 * values of attributes that name ranks or groups (comm_src, comm_dst,
 * comm_root, root, pg_name): their fields come in the same order with the
 * same numbers and wire types, and every other field and attribute is the
 * same byte for byte.  Then the two read alike (wl_chakra_raw_node,
 * wl_node_decode_raw) in all but the ranks and the group their nodes
 * name: a delta (graph_delta.c) reads one of the two, not both.  FALSE
 * is no verdict: the caller reads both. */
gboolean wl_chakra_raw_names_only (const guint8 *a, gsize la, const guint8 *b, gsize lb);

/* Read frame B (LB bytes) into RAW as wl_chakra_raw_node does, and set
 * *NAMES_ONLY to what wl_chakra_raw_names_only (A, LA, B, LB) says, in
 * one walk of B: the bytes of A before each difference are only compared,
 * not walked field by field.  FALSE (and *NAMES_ONLY FALSE) when
 * wl_chakra_raw_node does not take B; A need not be a frame it takes. */
gboolean wl_chakra_raw_node_against (const guint8 *a, gsize la, const guint8 *b, gsize lb,
                                     WlRawNode *raw, gboolean *names_only);

/* The attributes whose values name ranks and groups: comm_src, comm_dst,
 * comm_root, root and pg_name, in this order (WlRawNames.at). */
#define WL_RAW_N_NAMES 5
extern const WlAttrKey wl_raw_name_keys[WL_RAW_N_NAMES];

/* Where a frame's names sit, kept per node of a loaded trace so that the
 * next trace read against it (graph_delta.c) need not read a frame again
 * whose bytes differ only there.  AT[i]: one past the offset in the frame
 * of the first attribute field named wl_raw_name_keys[i] (the one reading
 * keeps), 0 when none is.  CLEAN: 1 when the frame was read by
 * wl_chakra_raw_node and decoded by wl_node_decode_raw, strictly, as a
 * send, a receive or a collective of the id and op of the graph's node at
 * its index; else 0, and AT says nothing. */
struct _WlRawNames
{
  guint16 at[WL_RAW_N_NAMES];
  guint16 clean;
};

/* Where RAW's names (read by wl_chakra_raw_node or the functions below)
 * sit in its frame, into *OUT, CLEAN set; FALSE (CLEAN 0) where an offset
 * does not fit. */
gboolean wl_raw_names_of (const WlRawNode *raw, WlRawNames *out);

/* Frame B (LB bytes) read against frame A (LA), whose names AN gives
 * (AN->clean, from wl_raw_names_of): TRUE when B is A byte for byte but
 * within A's fields that AN names, each of which is in B an attribute of
 * the same name (the first of it, as in A) that reads as
 * wl_chakra_raw_node reads it.  Then B reads (wl_chakra_raw_node) as A
 * does but for those attributes, so it decodes (wl_node_decode_raw) as A
 * does but for the names they give; RAW holds B's name attributes alone
 * (its other fields unread: zero) and *BN where they sit in B.  Only the
 * few name attributes are read; the bytes between are compared, but
 * for the first KNOWN, which the caller knows A and B share.  FALSE is no
 * verdict (the caller reads B the usual way). */
gboolean wl_chakra_raw_names_against (const guint8 *a, gsize la, const WlRawNames *an,
                                      const guint8 *b, gsize lb, gsize known, WlRawNode *raw,
                                      WlRawNames *bn);

/* How many bytes A and B (N each) share at their start, eight at a time
 * in plain C (wl_common_prefix's twin where SSE2 is not, and the tests'
 * check of it). */
static inline gsize
wl_common_prefix_c (const guint8 *a, const guint8 *b, gsize n)
{
  gsize i = 0;
  for (; i + 8 <= n; i += 8)
    {
      guint64 x, y;
      memcpy (&x, a + i, 8);
      memcpy (&y, b + i, 8);
      if (x != y)
        {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
          /* The lowest differing bit's byte is the first that differs. */
          return i + (gsize) (__builtin_ctzll (x ^ y) >> 3);
#else
          break;
#endif
        }
    }
  if (i < n && n >= 8 && n - i < 8)
    {
      /* The tail in one word, overlapping the bytes known alike (no byte
       * loop): its first differing byte is at or past I. */
      guint64 x, y;
      memcpy (&x, a + n - 8, 8);
      memcpy (&y, b + n - 8, 8);
      if (x == y)
        return n;
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      return n - 8 + (gsize) (__builtin_ctzll (x ^ y) >> 3);
#endif
    }
  while (i < n && a[i] == b[i])
    i++;
  return i;
}

/* How many bytes A and B (N each) share at their start, without a call
 * (frames are short, and a delta compares millions; a call to memcmp
 * costs more than a short comparison): 32 at a time by SSE2 (every
 * x86-64), the rest as wl_common_prefix_c; that alone elsewhere. */
static inline gsize
wl_common_prefix (const guint8 *a, const guint8 *b, gsize n)
{
  gsize i = 0;
#ifdef __SSE2__
  for (; i + 32 <= n; i += 32)
    {
      __m128i e0 = _mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) (const void *) (a + i)),
                                   _mm_loadu_si128 ((const __m128i *) (const void *) (b + i)));
      __m128i e1
        = _mm_cmpeq_epi8 (_mm_loadu_si128 ((const __m128i *) (const void *) (a + i + 16)),
                          _mm_loadu_si128 ((const __m128i *) (const void *) (b + i + 16)));
      if (_mm_movemask_epi8 (_mm_and_si128 (e0, e1)) != 0xffff)
        {
          /* Bit k of the mask: byte k equal; the first clear one differs. */
          guint32 ne = ~((guint32) _mm_movemask_epi8 (e0)
                         | ((guint32) _mm_movemask_epi8 (e1) << 16));
          return i + (gsize) __builtin_ctz (ne);
        }
    }
#endif
  return i + wl_common_prefix_c (a + i, b + i, n - i);
}

/* wl_common_prefix for runs of hundreds of bytes: 64 at a time by AVX2
 * where the processor has it (chosen as the program runs: the build
 * targets every x86-64), else wl_common_prefix; one answer either way. */
gsize wl_common_prefix_long (const guint8 *a, const guint8 *b, gsize n);

/* How many length-prefixed frames LEN bytes at DATA hold, the last
 * ending at the end (the GlobalMetadata's included); 0 where they do not
 * frame so.  Only lengths are read: a hint of how many nodes a load will
 * meet, for room made once (graph.c). */
guint32 wl_chakra_count_frames (const guint8 *data, gsize len);

#endif /* ORRERY_WORKLOAD_CHAKRA_RAW_H */
