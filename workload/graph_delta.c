/* graph_delta.c: a trace read against an earlier one that it matches but
 * for the ranks and groups its nodes name (wl_graph_delta, graph.h). */
#include "workload/graph.h"

#include <string.h>

#include "workload/chakra_json.h"
#include "workload/chakra_raw.h"
#include "workload/kernels.h"

/* Frames of a trace's bytes, walked as the reader walks them (each one's
 * length as a varint, then its bytes). */
typedef struct
{
  const guint8 *p;
  gsize left;
} Walk;

/* The next frame of W into *DATA and *LEN; FALSE at the end, or where the
 * bytes do not frame (the full load says why). */
static inline gboolean
next_frame (Walk *w, const guint8 **data, gsize *len)
{
  guint64 v = 0;
  gsize i = 0;
  /* Frames run to a few hundred bytes: lengths of one or two bytes read
   * at once, as the loop below reads them. */
  if (w->left > 0 && w->p[0] < 0x80)
    v = w->p[i++];
  else if (w->left > 1 && w->p[1] < 0x80)
    {
      v = (guint64) (w->p[0] & 0x7f) | (guint64) w->p[1] << 7;
      i = 2;
    }
  else
    for (;;)
      {
        if (i >= w->left || i >= 10)
          return FALSE;
        guint8 b = w->p[i];
        v |= (guint64) (b & 0x7f) << (7 * i);
        i++;
        if ((b & 0x80) == 0)
          break;
      }
  if (v > w->left - i)
    return FALSE;
  *data = w->p + i;
  *len = (gsize) v;
  w->p += i + v;
  w->left -= i + (gsize) v;
  return TRUE;
}

static gboolean
same_ids (const WlRawIds *a, const WlRawIds *b)
{
  return a->n == b->n && (a->n == 0 || memcmp (a->v, b->v, a->n * sizeof *a->v) == 0);
}

/* Whether A and B (decoded alike) differ at most in the ranks and group
 * they name: a send's or receive's comm_src and comm_dst, a collective's
 * group and root (what wl_graph_renamed changes). */
static gboolean
same_but_names (const WlNode *a, const WlNode *b)
{
  if (a->op != b->op || a->id != b->id || a->duration_ps != b->duration_ps
      || a->num_ops != b->num_ops || a->bytes != b->bytes || a->priority != b->priority
      || a->involved != b->involved || a->coll_kind != b->coll_kind
      || a->chakra_type != b->chakra_type || a->comm_stream != b->comm_stream)
    return FALSE;
  switch ((WlOp) a->op)
    {
    case WL_OP_SEND:
    case WL_OP_RECV:
      return a->tag == b->tag && a->group == b->group && a->root == b->root;
    case WL_OP_COLL:
      return a->peer_src == b->peer_src && a->peer_dst == b->peer_dst && a->tag == b->tag;
    default:
      return FALSE;
    }
}

typedef struct
{
  guint32 v;
  WlRawNames names;
} NameNote;

/* What a delta reads with: the decoder and frames of differing_node, and
 * where the earlier file's frames' names sit (AN, per node, or NULL). */
typedef struct
{
  WlNodeDecoder dec;
  WlRawNode ra, rb;
  const WlRawNames *an;
  gsize known;  /* how many first bytes of the frames differing_node is given are alike */
  NameNote *bn; /* where this file's differing frames' names sit */
  guint n_bn, bn_cap;
  const guint8 *meta; /* this file's frame 0 where it differs from PREV's, else NULL */
  gsize meta_len;
} Reading;

/* Where the names of this file's frame V sit. */
static void
note_names (Reading *r, guint32 v, const WlRawNames *names)
{
  if (r->n_bn == r->bn_cap)
    {
      r->bn_cap = MAX (1024u, 2 * r->bn_cap);
      r->bn = g_renew (NameNote, r->bn, r->bn_cap);
    }
  r->bn[r->n_bn++] = (NameNote) { v, *names };
}

/* Frames FA (of PREV's file) and FB that differ: *OUT is PREV's node N
 * (node V) with the names FB gives it, when the two frames are the same
 * node but for those names; else FALSE.  Where FA's names are known
 * (R->an) and FB differs only within them, only those are read. */
static gboolean
differing_node (Reading *r, guint32 v, const guint8 *fa, gsize la, const guint8 *fb, gsize lb,
                const WlNode *n, WlNode *out)
{
  WlRawNames bn;
  if (r->an != NULL && r->an[v].clean
      && wl_chakra_raw_names_against (fa, la, &r->an[v], fb, lb, r->known, &r->rb, &bn)
      && wl_node_decode_raw_names (&r->rb, n, out))
    {
      /* FB decodes wherever FA does (its node is N, R->an[v] says), and
       * as FA but for these names: what the walk below gives. */
      note_names (r, v, &bn);
      return TRUE;
    }
  WlNodeDecoder *dec = &r->dec;
  WlRawNode *ra = &r->ra, *rb = &r->rb;
  WlNode na, nb;
  gboolean names_only;
  if (!wl_chakra_raw_node_against (fa, la, fb, lb, rb, &names_only))
    return FALSE;
  if (names_only)
    {
      /* FA reads as FB but for the names (chakra_raw.h): NB is NA with
       * other names, and the two are the same but for names exactly when
       * NB is a send, a receive or a collective (only those read names).
       * Reading FB alone, in the same walk that compares it with FA,
       * halves what a delta reads of the frames that differ (Megatron's
       * 1T row: 2,700 of each file's 15,400 nodes). */
      if (!wl_node_decode_raw (dec, rb, &nb)
          || (nb.op != WL_OP_SEND && nb.op != WL_OP_RECV && nb.op != WL_OP_COLL)
          || nb.id != n->id || nb.op != n->op)
        return FALSE;
    }
  else if (!wl_chakra_raw_node (fa, la, ra)
           || ra->id != rb->id || ra->type != rb->type || ra->name_len != rb->name_len
           || (ra->name_len > 0 && memcmp (ra->name, rb->name, ra->name_len) != 0)
           || !same_ids (&ra->data_deps, &rb->data_deps)
           || !same_ids (&ra->ctrl_deps, &rb->ctrl_deps)
           || !wl_node_decode_raw (dec, ra, &na) || !wl_node_decode_raw (dec, rb, &nb)
           || !same_but_names (&na, &nb) || na.id != n->id || na.op != n->op)
    return FALSE;
  *out = *n;
  if (nb.op == WL_OP_COLL)
    {
      out->group = nb.group;
      out->root = nb.root;
    }
  else
    {
      out->peer_src = nb.peer_src;
      out->peer_dst = nb.peer_dst;
    }
  /* FB read and decoded as a node of N's id and op.  Its names are noted
   * even where an offset does not fit (BN then not clean): else this file
   * would pass on PREV's note for V, whose offsets are FA's, not FB's, and
   * the next file read against it would take bytes of FB for its names. */
  if (r->an != NULL)
    {
      (void) wl_raw_names_of (rb, &bn);
      note_names (r, v, &bn);
    }
  return TRUE;
}

static gboolean
gzip_bytes (const guint8 *p, gsize len)
{
  return len >= 2 && p[0] == 0x1f && p[1] == 0x8b;
}

/* The first byte at which A and B (N bytes each) differ, or N: 64 bytes a
 * step (wl_common_prefix_long) over the next KiB (frames differ a few
 * hundred bytes apart where they differ at all, as every collective of a
 * rank in another tensor-parallel group does), then by memcmp's blocks,
 * the bytes of the trace sets alike being mostly equal. */
static gsize
first_diff (const guint8 *a, const guint8 *b, gsize n)
{
  gsize head = MIN (n, (gsize) 1024);
  gsize off = wl_common_prefix_long (a, b, head);
  if (off < head)
    return off;
  while (off + 4096 <= n && memcmp (a + off, b + off, 4096) == 0)
    off += 4096;
  /* The difference, if any, is in the next 4 KiB. */
  return off + wl_common_prefix_long (a + off, b + off, MIN (n - off, (gsize) 4096));
}

/* Patches as a delta gathers them (a GArray's append is a call per node). */
typedef struct
{
  WlNodePatch *v;
  guint32 n, cap;
} Patches;

/* Room in P for MORE patches. */
static void
patches_reserve (Patches *p, guint32 more)
{
  if (more <= p->cap - p->n)
    return;
  p->cap = MAX (p->n + more, MAX (16u, 2 * p->cap));
  p->v = g_renew (WlNodePatch, p->v, p->cap);
}

static inline void
patches_push (Patches *p, const WlNodePatch *x)
{
  if (p->n == p->cap)
    patches_reserve (p, 1);
  p->v[p->n++] = *x;
}

/* The patch of node V whose names are N's, appended to PATCHES when they
 * differ from BASE's node V (or ALWAYS). */
static void
patch_if_renamed (const WlGraph *base, guint32 v, const WlNode *n, gboolean always,
                  Patches *patches)
{
  g_assert (base->nodes != NULL); /* a base is a full graph */
  const WlNode *b = &base->nodes[v];
  WlNodePatch p = { .index = v };
  if (n->op == WL_OP_COLL)
    {
      if (n->group == b->group && n->root == b->root && !always)
        return;
      p.group = n->group;
      p.a = n->root;
      p.b = n->sys_group_index;
    }
  else if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    {
      if (n->peer_src == b->peer_src && n->peer_dst == b->peer_dst && !always)
        return;
      p.a = n->peer_src;
      p.b = n->peer_dst;
    }
  else
    return;
  patches_push (patches, &p);
}

/* PREV's nodes FROM .. END (its frames are this file's) into PATCHES:
 * PREV's patches there when PREV is compact, else each node that names
 * other ranks or groups than BASE's. */
static void
carry_nodes (const WlGraph *prev, const WlGraph *base, guint32 from, guint32 end,
             guint32 *hint, Patches *patches)
{
  if (prev == base || from >= end)
    return;
  if (prev->table != NULL)
    {
      WlNode tmp;
      for (guint32 v = from; v < end; v++)
        patch_if_renamed (base, v, wl_graph_node_at (prev, v, NULL, &tmp), FALSE, patches);
      return;
    }
  if (prev->nodes == NULL)
    {
      WlNode tmp;
      wl_graph_node_at (prev, from, hint, &tmp); /* *HINT: the first patch from FROM */
      guint32 k = *hint, from_k = k;
      while (k < prev->n_patches && prev->patches[k].index < end)
        k++;
      patches_reserve (patches, k - from_k);
      memcpy (patches->v + patches->n, prev->patches + from_k, (k - from_k) * sizeof *patches->v);
      patches->n += k - from_k;
      *hint = k;
      return;
    }
  for (guint32 v = from; v < end; v++)
    patch_if_renamed (base, v, &prev->nodes[v], FALSE, patches);
}

/* The file BYTES (LEN) read against PREV's file PREV_BYTES (PREV_LEN):
 * the nodes that name other ranks or groups than BASE's (PREV's base, or
 * PREV) into PATCHES; FALSE where they are not the same trace but for
 * names.  Frames wholly before the next byte that differs are PREV's (only
 * their lengths are read); the frame holding it is compared node to node.
 * DIFFS: instead, only the nodes whose frames differ from PREV's, each
 * with all its names (for a table over PREV's, wl_rename_table_over). */
static gboolean
delta_nodes (const WlGraph *prev, const WlGraph *base, const guint8 *prev_bytes,
             gsize prev_len, const guint8 *bytes, gsize len, gboolean diffs, Patches *patches,
             Reading *r)
{
  Walk wa = { prev_bytes, prev_len }, wb = { bytes, len };
  const guint8 *fa, *fb;
  gsize la, lb;
  /* Frame 0, the GlobalMetadata: PREV's facts where it is PREV's byte for
   * byte, else read apart (wl_graph_delta): files alike but for a rank's
   * own facts, such as its pipeline stage's peak memory, are still read
   * against each other. */
  if (!next_frame (&wa, &fa, &la) || !next_frame (&wb, &fb, &lb))
    return FALSE;
  gboolean same_meta = la == lb && memcmp (fa, fb, la) == 0;
  r->meta = same_meta ? NULL : fb;
  r->meta_len = same_meta ? 0 : lb;
  r->n_bn = 0;
  gboolean ok = TRUE;
  guint32 v = 0, hint = 0;
  while (ok && (wa.left > 0 || wb.left > 0))
    {
      /* PREV's frames up to the next difference are this file's too. */
      gsize same = first_diff (wa.p, wb.p, MIN (wa.left, wb.left));
      const guint8 *stop = wa.p + same;
      Walk probe = wa;
      guint32 from = v;
      /* A frame of PREV whose bytes (length and all) lie before the
       * difference is the same frame here. */
      while (v < prev->n_nodes && next_frame (&probe, &fa, &la) && probe.p <= stop)
        {
          gsize step = (gsize) (probe.p - wa.p);
          wb.p += step;
          wb.left -= step;
          wa = probe;
          v++;
        }
      if (!diffs)
        carry_nodes (prev, base, from, v, &hint, patches);
      if (wa.left == 0 && wb.left == 0)
        break;
      WlNode tmp, out;
      ok = v < prev->n_nodes && next_frame (&wa, &fa, &la) && next_frame (&wb, &fb, &lb);
      /* The difference lies in this frame, or in its length. */
      r->known = ok && stop > fa ? (gsize) (stop - fa) : 0;
      ok = ok
           && differing_node (r, v, fa, la, fb, lb, wl_graph_node_at (prev, v, &hint, &tmp),
                              &out);
      if (ok)
        patch_if_renamed (base, v, &out, diffs, patches);
      v++;
    }
  return ok && v == prev->n_nodes;
}

/* G (a graph read against PREV, or NULL) given where its frames' names
 * sit: PREV's AN (taken) with the differing frames' (R->bn). */
static WlGraph *
with_names (WlGraph *g, WlRawNames *an, Reading *r)
{
  if (g == NULL || an == NULL)
    {
      g_free (an);
      return g;
    }
  for (guint k = 0; k < r->n_bn; k++)
    an[r->bn[k].v] = r->bn[k].names;
  g->frame_names = an;
  return g;
}


/* PREV's frames' names (WlGraph.frame_names) for a read against it: taken
 * when TAKE (PREV is the file before this one of its length, and the next
 * of that length is read against this one), else copied (PREV stays the
 * one its length's next file is read against); NULL when it has none. */
static WlRawNames *
prev_names (WlGraph *prev, gboolean take)
{
  /* Two reads against one graph (rare: loading one file at a time while
   * announced files are decoded) take or copy them one at a time. */
  static GMutex lock;
  g_mutex_lock (&lock);
  WlRawNames *an = prev->frame_names;
  if (take)
    prev->frame_names = NULL;
  else if (an != NULL)
    an = g_memdup2 (an, (gsize) prev->n_nodes * sizeof *an);
  g_mutex_unlock (&lock);
  return an;
}

/* wl_graph_delta's reading, with R, once PREV's node names are in hand. */
static WlGraph *
delta_graph (WlGraph *prev, WlGraph *base, const guint8 *prev_bytes, gsize prev_len,
             const char *path, const guint8 *bytes, gsize len, Reading *r)
{
  /* As many patches as PREV's, most often (DP replicas and TP peers alike):
   * room made once, not by doubling copies. */
  /* Read against a table: the frames that differ only, and PREV's table
   * with their names, when that is one map (the nodes in between need no
   * walk: they name what PREV's table gives); else patches as below. */
  if (prev->table != NULL)
    {
      Patches diffs = { 0 };
      /* Room for as many as the frames that differ most often (a few in
       * a hundred): made once, not by doubling copies. */
      patches_reserve (&diffs, prev->n_nodes / 8 + 16);
      gboolean ok = delta_nodes (prev, base, prev_bytes, prev_len, bytes, len, TRUE, &diffs, r);
      WlRenameTable *t = ok ? wl_rename_table_over (base, prev->table, diffs.v, diffs.n) : NULL;
      g_free (diffs.v);
      if (!ok)
        return NULL;
      if (t != NULL)
        return wl_graph_tabled_take (base, path, t);
    }
  Patches patches = { 0 };
  patches_reserve (&patches, prev->nodes == NULL ? prev->n_patches + 16 : prev->n_nodes / 8);
  if (!delta_nodes (prev, base, prev_bytes, prev_len, bytes, len, FALSE, &patches, r))
    {
      g_free (patches.v);
      return NULL;
    }
  guint32 n = patches.n;
  /* A table when the patches follow one map and it takes less room. */
  const WlNameSlots *s = n > 0 ? wl_graph_name_slots (base) : NULL;
  if (s != NULL && wl_rename_table_bytes (s) <= (gsize) n * sizeof (WlNodePatch))
    {
      WlRenameTable *t = wl_rename_table_from_patches (base, patches.v, n);
      if (t != NULL)
        {
          g_free (patches.v);
          return wl_graph_tabled_take (base, path, t);
        }
    }
  /* Held for the run: no room to spare. */
  WlNodePatch *p = g_renew (WlNodePatch, patches.v, MAX (n, 1u));
  return wl_graph_patched_take (base, path, p, n);
}

/* G's facts from its own frame 0, META (LEN bytes), where it differs from
 * the graph it was read against; FALSE where that frame does not read, for
 * the whole read (wl_trace_read) to say why. */
static gboolean
own_facts (WlGraph *g, const guint8 *meta, gsize len)
{
  ChakraProtoMsg__GlobalMetadata *m = chakra_proto_msg__global_metadata__unpack (NULL, len, meta);
  gboolean ok = m != NULL && wl_chakra_metadata_facts (m, &g->facts, NULL);
  if (m != NULL)
    chakra_proto_msg__global_metadata__free_unpacked (m, NULL);
  return ok;
}

WlGraph *
wl_graph_delta (WlGraph *prev, const guint8 *prev_bytes, gsize prev_len, const char *path,
                const guint8 *bytes, gsize len)
{
  g_return_val_if_fail (prev != NULL && path != NULL, NULL);
  /* PREV's arrays but its nodes are its base's when it is renamed. */
  WlGraph *base = prev->base != NULL ? prev->base : prev;
  /* A strict load of a plain .et file only: gzip and JSON files are not
   * their bytes' frames, and lenient loading drops what is broken. */
  if (base->lenient || prev_bytes == NULL || bytes == NULL
      || base->dropped.headerless_files != 0 || gzip_bytes (prev_bytes, prev_len)
      || gzip_bytes (bytes, len) || wl_chakra_json_path (prev->path)
      || wl_chakra_json_path (path))
    return NULL;
  Reading r = { .dec = { .path = prev->path, .kernels = wl_kernel_lists_new () } };
  wl_raw_node_init (&r.ra);
  wl_raw_node_init (&r.rb);
  WlRawNames *an = prev_names (prev, prev_len == len);
  r.an = an;
  WlGraph *g = with_names (delta_graph (prev, base, prev_bytes, prev_len, path, bytes, len, &r),
                           an, &r);
  /* A derived graph starts with its base's facts; PREV's are this file's
   * where frame 0 is the same (PREV may have its own). */
  if (g != NULL && g != base && g != prev)
    {
      g->facts = prev->facts;
      if (r.meta != NULL && !own_facts (g, r.meta, r.meta_len))
        g_clear_pointer (&g, wl_graph_unref);
    }
  wl_raw_node_clear (&r.ra);
  wl_raw_node_clear (&r.rb);
  wl_kernel_lists_free (r.dec.kernels);
  g_free (r.bn);
  return g;
}
