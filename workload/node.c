/* node.c: decoding one Chakra node into what replay needs (reading a trace
 * file node by node is trace_read.c's). */
#include "workload/node.h"

#include <string.h>

#include "system/sys_params.h"
#include "workload/chakra_raw.h"
#include "workload/group_list.h"
#include "workload/group_memo.h"
#include "workload/groups.h"
#include "workload/kernels.h"
#include "workload/wl_error.h"

/* Chakra NodeType and CollectiveCommType values (../shared/chakra/FORMAT.md). */
enum
{
  CK_INVALID = 0, CK_METADATA = 1, CK_MEM_LOAD = 2, CK_MEM_STORE = 3, CK_COMP = 4,
  CK_SEND = 5, CK_RECV = 6, CK_COLL = 7
};
enum
{
  CK_ALL_REDUCE = 0, CK_REDUCE = 1, CK_ALL_GATHER = 2, CK_GATHER = 3, CK_SCATTER = 4,
  CK_BROADCAST = 5, CK_ALL_TO_ALL = 6, CK_REDUCE_SCATTER = 7, CK_REDUCE_SCATTER_BLOCK = 8,
  CK_BARRIER = 9
};

/* Chakra's collective types as orrery's kinds; -1 for unknown values. */
static int
kind_of (gint64 type)
{
  switch (type)
    {
    case CK_ALL_REDUCE:
      return SYS_COLL_ALL_REDUCE;
    case CK_REDUCE:
      return SYS_COLL_REDUCE;
    case CK_ALL_GATHER:
      return SYS_COLL_ALL_GATHER;
    case CK_GATHER:
      return SYS_COLL_GATHER;
    case CK_SCATTER:
      return SYS_COLL_SCATTER;
    case CK_BROADCAST:
      return SYS_COLL_BROADCAST;
    case CK_ALL_TO_ALL:
      return SYS_COLL_ALL_TO_ALL;
    case CK_REDUCE_SCATTER:
    case CK_REDUCE_SCATTER_BLOCK: /* equal blocks: what orrery's reduce-scatter does */
      return SYS_COLL_REDUCE_SCATTER;
    case CK_BARRIER:
      return SYS_COLL_BARRIER;
    default:
      return -1;
    }
}

/* A node and its attributes by name (looked up once per node). */
typedef struct
{
  const ChakraProtoMsg__Node *n;
  WlAttrIndex idx;
} Attrs;

#define AT(key) (x->idx.of[WL_ATTR_##key])

static gboolean
fail (GError **error, const WlNodeDecoder *d, guint64 id, const char *what)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT ": %s", d->path,
               id, what);
  return FALSE;
}

/* An attribute that must fit a 32-bit signed field. */
static gboolean
attr_i32 (const Attrs *x, WlAttrKey key, gint32 *out, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  const char *name = wl_chakra_attr_name (key);
  gint64 v;
  if (!wl_chakra_attr_int_at (n, x->idx.of[key], &v, error))
    return FALSE;
  if (v < G_MININT32 || v > G_MAXINT32)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "node %" G_GUINT64_FORMAT ": %s = %" G_GINT64_FORMAT " is out of range",
                   n->id, name, v);
      return FALSE;
    }
  *out = (gint32) v;
  return TRUE;
}

/* comm_src / comm_dst: a rank, or own rank when absent. */
static gboolean
attr_rank (const Attrs *x, WlAttrKey key, guint32 *out, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  const char *name = wl_chakra_attr_name (key);
  gint64 v;
  *out = WL_RANK_SELF;
  if (!wl_chakra_attr_int_at (n, x->idx.of[key], &v, error))
    return error == NULL || *error == NULL;
  if (v < 0 || v >= G_MAXINT32)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "node %" G_GUINT64_FORMAT ": %s = %" G_GINT64_FORMAT " is not a rank", n->id,
                   name, v);
      return FALSE;
    }
  *out = (guint32) v;
  return TRUE;
}

static gboolean
absent_ok (GError **error)
{
  return error == NULL || *error == NULL;
}

char *
wl_group_defs_fault (const GArray *defs, guint from)
{
  for (guint i = from; i < defs->len; i++)
    {
      const WlGroupDef *d = &g_array_index (defs, WlGroupDef, i);
      g_autoptr (GError) err = NULL;
      if (!wl_group_ranks_check (d->id, (const guint32 *) d->ranks->data, d->ranks->len, &err))
        return g_strdup (err->message);
    }
  return NULL;
}

/* DEFS[FROM ..] marked as defined by the node NODE. */
static void
defs_mark_node (GArray *defs, guint from, guint64 node)
{
  for (guint i = from; i < defs->len; i++)
    g_array_index (defs, WlGroupDef, i).node = node;
}

/* The process groups in inputs.values (group_list.h). */
static gboolean
decode_metadata (WlNodeDecoder *b, const ChakraProtoMsg__Node *n, GError **error)
{
  if (b->group_defs == NULL)
    return TRUE; /* not collected (read before) */
  if (!wl_group_list_node (n))
    return TRUE;
  guint from = b->group_defs->len;
  if (b->group_memo != NULL)
    {
      const char *why = wl_group_memo_parse (b->group_memo, n->inputs->values, b->group_defs);
      defs_mark_node (b->group_defs, from, n->id);
      return why == NULL ? TRUE : fail (error, b, n->id, why);
    }
  const char *why = wl_group_defs_parse (n->inputs->values, b->group_defs);
  defs_mark_node (b->group_defs, from, n->id);
  if (why != NULL)
    return fail (error, b, n->id, why);
  g_autofree char *fault = wl_group_defs_fault (b->group_defs, from);
  return fault == NULL ? TRUE : fail (error, b, n->id, fault);
}

/* wl_group_id_parse (NAME, ID), with the common case first: up to 18
 * decimal digits (below 10^18, so neither overflow nor WL_GROUP_ALL) and
 * nothing else are the number they spell. */
static gboolean
group_id (const char *name, guint64 *id)
{
  guint64 v = 0;
  guint i = 0;
  for (; i < 18 && name[i] >= '0' && name[i] <= '9'; i++)
    v = v * 10 + (guint64) (name[i] - '0');
  if (i > 0 && name[i] == '\0')
    {
      *id = v;
      return TRUE;
    }
  return wl_group_id_parse (name, id);
}

/* A collective's process group: pg_name, or all ranks. */
static gboolean
decode_group (WlNodeDecoder *b, const Attrs *x, WlNode *w, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  const char *pg = NULL;
  w->group = WL_GROUP_ALL;
  if (wl_chakra_attr_string_at (n, AT (PG_NAME), &pg, error))
    {
      if (!group_id (pg, &w->group))
        {
          g_autofree char *msg = g_strdup_printf ("pg_name \"%s\" is not a group id", pg);
          return fail (error, b, n->id, msg);
        }
      return TRUE;
    }
  return absent_ok (error);
}

/* A collective's involved_dim list as a mask (every dimension when absent). */
static gboolean
decode_involved (const Attrs *x, WlNode *w, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  GArray *dims = NULL;
  w->involved = G_MAXUINT32;
  if (!wl_chakra_attr_bool_list_at (n, AT (INVOLVED_DIM), &dims, error))
    return absent_ok (error);
  w->involved = 0;
  for (guint d = 0; d < dims->len && d < 32; d++)
    if (g_array_index (dims, gboolean, d))
      w->involved |= 1u << d;
  /* Dimensions beyond the list are not involved... unless the list is
   * empty, which writers use for "not given". */
  if (dims->len == 0)
    w->involved = G_MAXUINT32;
  g_array_unref (dims);
  return TRUE;
}

/* W's comm_stream: the index of stream value V in the trace's table, the
 * value added on first sight. */
static void
stream_slot (WlNodeDecoder *b, gint64 v, WlNode *w)
{
  WlStreamTable *t = &b->streams;
  guint i = 0;
  while (i < t->n && t->values[i] != v)
    i++;
  if (i == t->n && t->n < WL_MAX_STREAMS)
    t->values[t->n++] = v;
  w->comm_stream = (guint8) MIN (i, WL_MAX_STREAMS - 1u);
}

/* A communication node's `stream` (0 when absent) as its index in the
 * trace's table (stream_slot). */
static gboolean
decode_stream (WlNodeDecoder *b, const Attrs *x, WlNode *w, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  gint64 v = 0;
  if (!wl_chakra_attr_int_at (n, AT (STREAM), &v, error) && !absent_ok (error))
    return FALSE;
  stream_slot (b, v, w);
  return TRUE;
}

gboolean
wl_node_coll_attrs (const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *type,
                    const ChakraProtoMsg__AttributeProto *size, WlCollAttrs *out,
                    GError **error)
{
  *out = (WlCollAttrs) { .kind = -1 };
  if (wl_chakra_attr_int_at (n, type, &out->type, error))
    out->has_type = TRUE;
  else if (!absent_ok (error))
    return FALSE;
  if (wl_chakra_attr_uint_at (n, size, &out->bytes, error))
    out->has_size = TRUE;
  else if (!absent_ok (error))
    return FALSE;
  if (out->has_type && (out->kind = kind_of (out->type)) < 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "node %" G_GUINT64_FORMAT ": comm_type %" G_GINT64_FORMAT
                   " is not a collective type (0 to 9)",
                   n->id, out->type);
      return FALSE;
    }
  return TRUE;
}

static gboolean
decode_collective (WlNodeDecoder *b, const Attrs *x, WlNode *w, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  WlCollAttrs c;
  if (!wl_node_coll_attrs (n, AT (COMM_TYPE), AT (COMM_SIZE), &c, error))
    return FALSE;
  if (!c.has_type)
    {
      if (!b->lenient)
        return fail (error, b, n->id, "COMM_COLL node without comm_type");
      b->dropped.colls_skipped++;
      w->op = WL_OP_SKIP;
      return TRUE;
    }
  int kind = c.kind;
  w->coll_kind = (guint8) kind;
  w->op = WL_OP_COLL;
  w->bytes = c.bytes;
  if (!c.has_size)
    {
      if (kind != SYS_COLL_BARRIER && !b->lenient)
        return fail (error, b, n->id, "COMM_COLL node without comm_size");
      if (kind != SYS_COLL_BARRIER)
        {
          b->dropped.colls_skipped++;
          w->op = WL_OP_SKIP;
          return TRUE;
        }
    }
  /* The root of a rooted collective: comm_root, else root, else the
   * group's first member. */
  w->root = WL_RANK_SELF;
  if (sys_coll_kind_rooted ((SysCollKind) kind)
      && (!attr_rank (x, WL_ATTR_COMM_ROOT, &w->root, error)
          || (w->root == WL_RANK_SELF && !attr_rank (x, WL_ATTR_ROOT, &w->root, error))))
    return FALSE;
  if (!decode_group (b, x, w, error) || !decode_involved (x, w, error))
    return FALSE;
  if (!attr_i32 (x, WL_ATTR_COMM_PRIORITY, &w->priority, error) && !absent_ok (error))
    return FALSE;
  return decode_stream (b, x, w, error);
}

/* NAME's index in the trace's exchange names T (added on first sight; the
 * last index for names past WL_MAX_EXCHANGES; 0 without a table). */
static guint32
exchange_slot (GPtrArray *t, const char *name)
{
  if (t == NULL)
    return 0;
  guint i = 0;
  while (i < t->len && strcmp (t->pdata[i], name) != 0)
    i++;
  if (i == t->len && t->len < WL_MAX_EXCHANGES)
    g_ptr_array_add (t, g_strdup (name));
  return MIN (i, WL_MAX_EXCHANGES - 1u);
}

static gboolean
decode_p2p (WlNodeDecoder *b, const Attrs *x, WlNode *w, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  w->op = (int) n->type == CK_SEND ? WL_OP_SEND : WL_OP_RECV;
  if (!attr_rank (x, WL_ATTR_COMM_SRC, &w->peer_src, error)
      || !attr_rank (x, WL_ATTR_COMM_DST, &w->peer_dst, error))
    return FALSE;
  if (!attr_i32 (x, WL_ATTR_COMM_TAG, &w->tag, error) && !absent_ok (error))
    return FALSE;
  if (!wl_chakra_attr_uint_at (n, AT (COMM_SIZE), &w->bytes, error) && !absent_ok (error))
    return FALSE;
  /* The collective exchange it is part of (its name is for the reader of
   * the trace and the timeline; the replay needs to know only that it is
   * one). */
  const char *exchange = NULL;
  if (wl_chakra_attr_string_at (n, AT (EXCHANGE), &exchange, error))
    w->exchange = 1 + exchange_slot (b->exchanges, exchange);
  else if (!absent_ok (error))
    return FALSE;
  return decode_stream (b, x, w, error);
}

/* A COMP node's `kernels` list, numbered in the decoder's table. */
static gboolean
decode_kernels (WlNodeDecoder *b, const Attrs *x, WlNode *w, GError **error)
{
  const ChakraProtoMsg__Node *n = x->n;
  const char *text = NULL;
  if (b->kernels == NULL || w->op != WL_OP_COMP)
    return TRUE;
  if (!wl_chakra_attr_string_at (n, AT (KERNELS), &text, error))
    return absent_ok (error);
  GError *why = NULL;
  if (wl_kernel_lists_intern (b->kernels, text, &w->kernel_list, &why))
    return TRUE;
  fail (error, b, n->id, why->message);
  g_error_free (why);
  return FALSE;
}

static gboolean
decode_node (WlNodeDecoder *b, const ChakraProtoMsg__Node *n, WlNode *w, GError **error)
{
  Attrs attrs = { .n = n };
  const Attrs *x = &attrs;
  wl_chakra_attr_index (n, &attrs.idx);
  if (attrs.idx.again != NULL)
    {
      /* ASTRA-sim's reader keeps the last value, wl_chakra_attr_find the
       * first: whichever were taken, the other reader would simulate
       * another trace. */
      g_autofree char *why
          = g_strdup_printf ("attribute \"%s\" " WL_ATTR_AGAIN_WHY, attrs.idx.again->name);
      return fail (error, b, n->id, why);
    }
  memset (w, 0, sizeof *w);
  w->id = n->id;
  w->chakra_type = (guint8) MIN (n->type, 255u);
  w->duration_ps = n->duration_micros * SIM_PS_PER_US;
  if (n->duration_micros > G_MAXUINT64 / SIM_PS_PER_US)
    return fail (error, b, n->id, "duration_micros overflows the clock");
  switch ((int) n->type)
    {
    case CK_INVALID:
      w->op = WL_OP_SKIP;
      return TRUE;
    case CK_METADATA:
      w->op = WL_OP_SKIP;
      return decode_metadata (b, n, error);
    case CK_COMP:
      {
        /* The converter's process_group:init node, before it was METADATA. */
        if (!decode_metadata (b, n, error))
          return FALSE;
        gboolean cpu = FALSE;
        if (!wl_chakra_attr_bool_at (n, AT (IS_CPU_OP), &cpu, error) && !absent_ok (error))
          return FALSE;
        w->op = cpu ? WL_OP_CPU : WL_OP_COMP;
        if (!wl_chakra_attr_uint_at (n, AT (NUM_OPS), &w->num_ops, error) && !absent_ok (error))
          return FALSE;
        if (!wl_chakra_attr_uint_at (n, AT (TENSOR_SIZE), &w->bytes, error) && !absent_ok (error))
          return FALSE;
        gboolean recompute = FALSE;
        if (!wl_chakra_attr_bool_at (n, AT (IS_RECOMPUTE), &recompute, error) && !absent_ok (error))
          return FALSE;
        w->comp_flags = recompute ? WL_COMP_RECOMPUTE : 0;
        return decode_kernels (b, x, w, error);
      }
    case CK_COLL:
      return decode_collective (b, x, w, error);
    case CK_SEND:
    case CK_RECV:
      return decode_p2p (b, x, w, error);
    case CK_MEM_LOAD:
    case CK_MEM_STORE:
      w->op = WL_OP_MEM;
      if (!wl_chakra_attr_uint_at (n, AT (TENSOR_SIZE), &w->bytes, error) && !absent_ok (error))
        return FALSE;
      return TRUE;
    default:
      w->op = WL_OP_SKIP;
      b->unknown++;
      return TRUE;
    }
}

gboolean
wl_node_decode (WlNodeDecoder *d, ChakraProtoMsg__Node *n, WlNode *out, GError **error)
{
  g_return_val_if_fail (d != NULL && n != NULL && out != NULL, FALSE);
  if (d->lenient)
    d->dropped.valueless_attrs_ignored += d->borrowed ? wl_chakra_node_unlink_valueless (n)
                                                      : wl_chakra_node_drop_valueless (n);
  if (decode_node (d, n, out, error))
    return TRUE;
  if (!g_str_has_prefix ((*error)->message, d->path))
    g_prefix_error (error, "%s: ", d->path);
  return FALSE;
}

/* ---- frames read in place (chakra_raw.h) ------------------------------------ */

/* The raw attribute KEY of R as wl_chakra_attr_int reads it: 1 present (*V
 * set), 0 absent, -1 where that accessor would fail. */
static int
raw_int (const WlRawNode *r, WlAttrKey key, gint64 *v)
{
  if ((r->seen & (1u << key)) == 0)
    return 0;
  const WlRawAttr *a = &r->attr[key];
  if (a->kind != WL_RAW_INT || (!a->is_signed && a->u > (guint64) G_MAXINT64))
    return -1;
  *v = a->is_signed ? a->s : (gint64) a->u;
  return 1;
}

/* As raw_int, as wl_chakra_attr_uint reads it. */
static int
raw_uint (const WlRawNode *r, WlAttrKey key, guint64 *v)
{
  if ((r->seen & (1u << key)) == 0)
    return 0;
  const WlRawAttr *a = &r->attr[key];
  if (a->kind != WL_RAW_INT || (a->is_signed && a->s < 0))
    return -1;
  *v = a->is_signed ? (guint64) a->s : a->u;
  return 1;
}

/* As raw_int, as wl_chakra_attr_bool reads it. */
static int
raw_bool (const WlRawNode *r, WlAttrKey key, gboolean *v)
{
  if ((r->seen & (1u << key)) == 0)
    return 0;
  const WlRawAttr *a = &r->attr[key];
  if (a->kind != WL_RAW_INT)
    return -1;
  *v = a->is_signed ? a->s != 0 : a->u != 0;
  return 1;
}

/* The group R's pg_name names into *ID (WL_GROUP_ALL when absent); FALSE
 * where decode_group would fail.  Up to 18 digits, the common case of
 * group_id, are read in place (a string the raw reader keeps holds no
 * NUL: chakra_raw.h); anything else as C text (wl_raw_node_text). */
static gboolean
raw_group (WlRawNode *r, guint64 *id)
{
  *id = WL_GROUP_ALL;
  if ((r->seen & (1u << WL_ATTR_PG_NAME)) == 0)
    return TRUE;
  const WlRawAttr *a = &r->attr[WL_ATTR_PG_NAME];
  if (a->kind != WL_RAW_STRING)
    return FALSE;
  if (a->len > 0 && a->len <= 18)
    {
      guint64 v = 0;
      gsize i = 0;
      for (; i < a->len && a->p[i] >= '0' && a->p[i] <= '9'; i++)
        v = v * 10 + (guint64) (a->p[i] - '0');
      if (i == a->len)
        {
          *id = v;
          return TRUE;
        }
    }
  return group_id (wl_raw_node_text (r, a->p, a->len), id);
}

/* attr_rank's value of KEY into *OUT (WL_RANK_SELF when absent); FALSE
 * where attr_rank would fail. */
static gboolean
raw_rank (const WlRawNode *r, WlAttrKey key, guint32 *out)
{
  gint64 v;
  *out = WL_RANK_SELF;
  int got = raw_int (r, key, &v);
  if (got <= 0)
    return got == 0;
  if (v < 0 || v >= G_MAXINT32)
    return FALSE;
  *out = (guint32) v;
  return TRUE;
}

/* attr_i32's value of KEY into *OUT (untouched when absent). */
static gboolean
raw_i32 (const WlRawNode *r, WlAttrKey key, gint32 *out)
{
  gint64 v;
  int got = raw_int (r, key, &v);
  if (got <= 0)
    return got == 0;
  if (v < G_MININT32 || v > G_MAXINT32)
    return FALSE;
  *out = (gint32) v;
  return TRUE;
}

/* A collective's names from R (its root, for a rooted KIND, and its
 * group) into W; FALSE where decode_collective would fail on them. */
static gboolean
raw_coll_names (WlRawNode *r, SysCollKind kind, WlNode *w)
{
  w->root = WL_RANK_SELF;
  if (sys_coll_kind_rooted (kind)
      && (!raw_rank (r, WL_ATTR_COMM_ROOT, &w->root)
          || (w->root == WL_RANK_SELF && !raw_rank (r, WL_ATTR_ROOT, &w->root))))
    return FALSE;
  return raw_group (r, &w->group);
}

/* A send's or receive's names from R into W; FALSE where decode_node
 * would fail on them. */
static gboolean
raw_peers (const WlRawNode *r, WlNode *w)
{
  return raw_rank (r, WL_ATTR_COMM_SRC, &w->peer_src)
         && raw_rank (r, WL_ATTR_COMM_DST, &w->peer_dst);
}

/* decode_collective's fields, but the stream, from R; FALSE where it
 * would fail. */
static gboolean
raw_collective (WlRawNode *r, WlNode *w)
{
  gint64 type;
  if (raw_int (r, WL_ATTR_COMM_TYPE, &type) <= 0 || kind_of (type) < 0)
    return FALSE;
  int kind = kind_of (type);
  w->coll_kind = (guint8) kind;
  w->op = WL_OP_COLL;
  int size = raw_uint (r, WL_ATTR_COMM_SIZE, &w->bytes);
  if (size < 0 || (size == 0 && kind != SYS_COLL_BARRIER))
    return FALSE;
  if (!raw_coll_names (r, (SysCollKind) kind, w))
    return FALSE;
  w->involved = G_MAXUINT32;
  if ((r->seen & (1u << WL_ATTR_INVOLVED_DIM)) != 0)
    {
      const WlRawAttr *a = &r->attr[WL_ATTR_INVOLVED_DIM];
      if (a->kind != WL_RAW_BOOL_LIST)
        return FALSE;
      w->involved = a->len == 0 ? G_MAXUINT32 : a->bits;
    }
  return raw_i32 (r, WL_ATTR_COMM_PRIORITY, &w->priority);
}

/* decode_node's COMP case from R, but the kernels. */
static gboolean
raw_comp (const WlRawNode *r, WlNode *w)
{
  gboolean cpu = FALSE, recompute = FALSE;
  if (raw_bool (r, WL_ATTR_IS_CPU_OP, &cpu) < 0 || raw_uint (r, WL_ATTR_NUM_OPS, &w->num_ops) < 0
      || raw_uint (r, WL_ATTR_TENSOR_SIZE, &w->bytes) < 0
      || raw_bool (r, WL_ATTR_IS_RECOMPUTE, &recompute) < 0)
    return FALSE;
  w->op = cpu ? WL_OP_CPU : WL_OP_COMP;
  w->comp_flags = recompute ? WL_COMP_RECOMPUTE : 0;
  return TRUE;
}

/* The fields of R's node that decode_node takes from attributes, checked
 * before anything is noted in D (streams, kernel lists, unknown types). */
static gboolean
raw_fields (WlRawNode *r, WlNode *w)
{
  switch ((int) r->type)
    {
    case CK_INVALID:
      w->op = WL_OP_SKIP;
      return TRUE;
    case CK_COMP:
      return raw_comp (r, w);
    case CK_COLL:
      return raw_collective (r, w);
    case CK_SEND:
    case CK_RECV:
      /* An exchange's name is a string: the usual decoder checks it. */
      if ((r->seen & (1u << WL_ATTR_EXCHANGE)) != 0)
        return FALSE;
      w->op = (int) r->type == CK_SEND ? WL_OP_SEND : WL_OP_RECV;
      return raw_peers (r, w) && raw_i32 (r, WL_ATTR_COMM_TAG, &w->tag)
             && raw_uint (r, WL_ATTR_COMM_SIZE, &w->bytes) >= 0;
    case CK_MEM_LOAD:
    case CK_MEM_STORE:
      w->op = WL_OP_MEM;
      return raw_uint (r, WL_ATTR_TENSOR_SIZE, &w->bytes) >= 0;
    case CK_METADATA:
      return FALSE; /* its groups are in IOInfo, which raw frames lack */
    default:
      w->op = WL_OP_SKIP;
      return TRUE;
    }
}

gboolean
wl_node_decode_raw (WlNodeDecoder *d, WlRawNode *r, WlNode *out)
{
  g_return_val_if_fail (d != NULL && r != NULL && out != NULL, FALSE);
  if (d->lenient || r->duration_micros > G_MAXUINT64 / SIM_PS_PER_US)
    return FALSE;
  WlNode w;
  memset (&w, 0, sizeof w);
  w.id = r->id;
  w.chakra_type = (guint8) MIN ((guint) r->type, 255u);
  w.duration_ps = r->duration_micros * SIM_PS_PER_US;
  if (!raw_fields (r, &w))
    return FALSE;
  gint64 stream = 0;
  gboolean comm = w.op == WL_OP_COLL || w.op == WL_OP_SEND || w.op == WL_OP_RECV;
  if (comm && raw_int (r, WL_ATTR_STREAM, &stream) < 0)
    return FALSE;
  if (w.op == WL_OP_COMP && d->kernels != NULL && (r->seen & (1u << WL_ATTR_KERNELS)) != 0)
    {
      const WlRawAttr *k = &r->attr[WL_ATTR_KERNELS];
      /* A list that does not parse is the usual decoder's error. */
      if (k->kind != WL_RAW_STRING
          || !wl_kernel_lists_intern_len (d->kernels, (const char *) k->p, k->len,
                                          &w.kernel_list, NULL))
        return FALSE;
    }
  /* Nothing can fail from here: note what decode_node notes. */
  if (comm)
    stream_slot (d, stream, &w);
  if (w.op == WL_OP_SKIP && (int) r->type != CK_INVALID)
    d->unknown++;
  *out = w;
  return TRUE;
}

gboolean
wl_node_decode_raw_names (WlRawNode *r, const WlNode *n, WlNode *out)
{
  g_return_val_if_fail (r != NULL && n != NULL && out != NULL, FALSE);
  WlNode w = *n;
  gboolean ok;
  switch ((WlOp) n->op)
    {
    case WL_OP_COLL:
      ok = raw_coll_names (r, (SysCollKind) n->coll_kind, &w);
      break;
    case WL_OP_SEND:
    case WL_OP_RECV:
      ok = raw_peers (r, &w);
      break;
    default:
      return FALSE;
    }
  if (ok)
    *out = w;
  return ok;
}

static void
group_def_clear (gpointer p)
{
  WlGroupDef *d = p;
  g_array_unref (d->ranks);
}

GArray *
wl_group_defs_new (void)
{
  GArray *defs = g_array_new (FALSE, FALSE, sizeof (WlGroupDef));
  g_array_set_clear_func (defs, group_def_clear);
  return defs;
}
