/* stream.c: the first pass over a trace, and the window a streamed replay
 * reads it into. */
#include "workload/stream.h"

#include <stdlib.h>
#include <string.h>

#include "sim/units.h"
#include "workload/chakra.h"
#include "workload/idmap.h"
#include "workload/kernels.h"
#include "workload/wl_alloc.h"
#include "workload/wl_error.h"

/* No edge, no pending entry. */
#define NONE G_MAXUINT32

/* The largest block of a window, in nodes. */
#define MAX_BLOCK 4096u

/* ---- the ids seen: sorted disjoint intervals -------------------------------------- */

typedef struct
{
  guint64 lo, hi; /* inclusive */
} Span;

/* The index of the first span with lo > ID (spans->len when none). */
static gsize
span_after (const WlVec *spans, guint64 id)
{
  const Span *sp = (const Span *) spans->data;
  gsize a = 0, b = spans->len;
  while (a < b)
    {
      gsize m = a + (b - a) / 2;
      if (sp[m].lo > id)
        b = m;
      else
        a = m + 1;
    }
  return a;
}

static gboolean
ids_contain (const WlVec *spans, guint64 id)
{
  if (spans->len == 0)
    return FALSE;
  const Span *last = &WL_VEC_AT (spans, Span, spans->len - 1);
  if (id >= last->lo)
    return id <= last->hi;
  gsize i = span_after (spans, id);
  return i > 0 && WL_VEC_AT (spans, Span, i - 1).hi >= id;
}

/* Add ID, which is not in the set. */
static gboolean
ids_add (WlVec *spans, guint64 id, GError **error)
{
  Span *sp = (Span *) spans->data;
  gsize n = spans->len;
  if (n > 0 && sp[n - 1].hi != G_MAXUINT64 && sp[n - 1].hi + 1 == id)
    {
      sp[n - 1].hi = id; /* the usual case: the next id */
      return TRUE;
    }
  gsize i = n > 0 && id > sp[n - 1].hi ? n : span_after (spans, id);
  gboolean joins_prev = i > 0 && sp[i - 1].hi + 1 == id;
  gboolean joins_next = i < n && id != G_MAXUINT64 && sp[i].lo == id + 1;
  if (joins_prev && joins_next)
    {
      sp[i - 1].hi = sp[i].hi;
      memmove (sp + i, sp + i + 1, (n - i - 1) * sizeof (Span));
      spans->len--;
      return TRUE;
    }
  if (joins_prev || joins_next)
    {
      if (joins_prev)
        sp[i - 1].hi = id;
      else
        sp[i].lo = id;
      return TRUE;
    }
  if (wl_vec_push (spans, "the ids seen", error) == NULL)
    return FALSE;
  sp = (Span *) spans->data;
  memmove (sp + i + 1, sp + i, (n - i) * sizeof (Span));
  sp[i] = (Span) { id, id };
  return TRUE;
}

/* ---- first pass ----------------------------------------------------------------------- */

typedef struct
{
  WlTraceScan *scan;
  WlNodeDecoder dec;
  WlVec ids;        /* Span */
  GArray *deps, *sorted;
  guint64 position; /* of the next node among the file's nodes */
  WlScanFunc func;
  gpointer data;
} Scanner;

void
wl_trace_scan_free (WlTraceScan *scan)
{
  if (scan == NULL)
    return;
  g_free (scan->path);
  g_array_unref (scan->group_defs);
  wl_kernel_lists_free (scan->kernels);
  if (scan->exchanges != NULL)
    g_ptr_array_unref (scan->exchanges);
  g_array_unref (scan->forward);
  g_array_unref (scan->repeats);
  g_free (scan);
}

static gboolean
scan_node (gpointer data, ChakraProtoMsg__Node *n, GError **error)
{
  Scanner *sc = data;
  WlTraceScan *scan = sc->scan;
  guint64 position = sc->position++;
  gboolean repeat = ids_contain (&sc->ids, n->id);
  if (repeat && scan->lenient)
    {
      scan->dropped.duplicate_nodes_dropped++;
      g_array_append_val (scan->repeats, position);
      return TRUE;
    }
  if (repeat || scan->n_nodes == G_MAXUINT32 - 1)
    return wl_trace_id_error (scan->path, n->id, repeat ? 0 : scan->n_nodes, error);
  WlNode w;
  if (!wl_node_decode (&sc->dec, n, &w, error))
    return FALSE;
  wl_deps_unique (n, sc->deps, sc->sorted);
  for (guint i = 0; i < sc->deps->len; i++)
    {
      guint64 dep = g_array_index (sc->deps, guint64, i);
      if (ids_contain (&sc->ids, dep))
        continue;
      WlForwardRef f = { .child_id = n->id, .parent_id = dep, .child = scan->n_nodes };
      g_array_append_val (scan->forward, f);
    }
  if (!ids_add (&sc->ids, n->id, error))
    {
      g_prefix_error (error, "%s: ", scan->path);
      return FALSE;
    }
  scan->n_nodes++;
  return sc->func == NULL || sc->func (sc->data, &w, error);
}

/* Every forward reference must have found its node by the end of the
 * file. */
static gboolean
check_dangling (Scanner *sc, GError **error)
{
  const WlTraceScan *scan = sc->scan;
  for (guint i = 0; i < scan->forward->len; i++)
    {
      const WlForwardRef *f = &g_array_index (scan->forward, WlForwardRef, i);
      if (ids_contain (&sc->ids, f->parent_id))
        continue;
      wl_dangling_error (scan->path, f->child_id, f->parent_id,
                         scan->lenient ? "; --lenient drops such dependencies only when the "
                                         "traces are loaded whole, and these are streamed (they "
                                         "do not fit the memory budget): raise --memory-budget, "
                                         "or give --memory-budget none"
                                       : NULL,
                         error);
      return FALSE;
    }
  return TRUE;
}


WlTraceScan *
wl_trace_scan (const char *path, gboolean lenient, WlScanFunc func, gpointer data,
               GError **error)
{
  WlScanRequest req = { .path = path, .lenient = lenient, .func = func, .data = data };
  return wl_trace_scan_request (&req, error);
}

WlTraceScan *
wl_trace_scan_request (const WlScanRequest *req, GError **error)
{
  g_return_val_if_fail (req != NULL && req->path != NULL, NULL);
  gboolean lenient = req->lenient;
  g_autoptr (WlTraceScan) scan = g_new0 (WlTraceScan, 1);
  scan->path = g_strdup (req->path);
  scan->lenient = lenient;
  scan->group_defs = wl_group_defs_new ();
  scan->kernels = wl_kernel_lists_new ();
  scan->exchanges = g_ptr_array_new_with_free_func (g_free);
  scan->forward = g_array_new (FALSE, FALSE, sizeof (WlForwardRef));
  scan->repeats = g_array_new (FALSE, FALSE, sizeof (guint64));
  Scanner sc = { .scan = scan, .ids = WL_VEC_INIT (Span), .func = req->func,
                 .data = req->data };
  sc.dec = (WlNodeDecoder) { .path = scan->path, .lenient = lenient,
                             .group_defs = scan->group_defs, .kernels = scan->kernels,
                             .exchanges = scan->exchanges,
                             .group_memo = req->group_memo, .bytes = req->bytes,
                             .n_bytes = req->n_bytes };
  sc.deps = g_array_new (FALSE, FALSE, sizeof (guint64));
  sc.sorted = g_array_new (FALSE, FALSE, sizeof (guint64));
  gboolean ok = wl_trace_read (&sc.dec, scan_node, &sc, error)
                && check_dangling (&sc, error);
  wl_vec_clear (&sc.ids);
  g_array_unref (sc.deps);
  g_array_unref (sc.sorted);
  if (!ok)
    return NULL;
  scan->n_skipped_unknown = sc.dec.unknown;
  scan->n_streams = MAX (sc.dec.streams.n, 1u);
  scan->facts = sc.dec.facts;
  scan->dropped.headerless_files = sc.dec.dropped.headerless_files;
  scan->dropped.truncated_frames = sc.dec.dropped.truncated_frames;
  scan->dropped.colls_skipped = sc.dec.dropped.colls_skipped;
  scan->dropped.valueless_attrs_ignored = sc.dec.dropped.valueless_attrs_ignored;
  return g_steal_pointer (&scan);
}

/* ---- the window ------------------------------------------------------------------------ */

/* Consecutive nodes; the state bytes follow the nodes. */
typedef struct
{
  guint32 n_read;
  guint32 n_done;
  WlNode nodes[];
} Block;

/* A dependency edge (parent -> CHILD) in a parent's list, or a dependent
 * waiting for a node not read yet. */
typedef struct
{
  guint32 child;
  guint32 next;
} Link;

struct _WlStream
{
  const WlTraceScan *scan;
  WlChakraReader *reader;
  WlNodeDecoder dec;
  guint32 window;
  guint32 rank;
  guint64 budget;
  guint32 block_size;   /* a power of two */
  guint block_shift;
  guint32 max_blocks;
  GPtrArray *blocks;    /* block number base + i -> Block*, NULL once freed */
  guint32 base;
  guint32 resident;     /* blocks allocated */
  guint32 next;         /* index of the next node to read */
  guint64 position;     /* of the next node among the file's nodes, repeats included */
  guint repeat_at;      /* next entry of scan->repeats */
  guint forward_at;     /* next entry of scan->forward */
  gboolean eof;
  WlIdMap *index;       /* id -> index of resident unfinished nodes */
  WlIdMap *waiting;     /* id not read yet -> first Link of the dependents waiting on it */
  WlVec edges, links;   /* Link pools */
  guint32 free_edge, free_link;
  GArray *deps, *sorted, *scratch;
  WlStreamPrepareFunc prepare;
  gpointer data;
};

static inline Block *
block_at (const WlStream *s, guint32 seq)
{
  return s->blocks->pdata[(seq >> s->block_shift) - s->base];
}

WlNode *
wl_stream_node (WlStream *s, guint32 seq)
{
  return &block_at (s, seq)->nodes[seq & (s->block_size - 1)];
}

guint8 *
wl_stream_state (WlStream *s, guint32 seq)
{
  Block *b = block_at (s, seq);
  return (guint8 *) (b->nodes + s->block_size) + (seq & (s->block_size - 1));
}

/* Blocks of about an eighth of the window, so that a block held by one
 * slow node costs little of it. */
static guint32
block_size (guint32 window)
{
  return MIN (MAX_BLOCK, 1u << (g_bit_storage (MAX (window / 8, 1u)) - 1));
}

guint32
wl_stream_window_nodes (guint32 window)
{
  guint32 b = block_size (window);
  return MAX (window / b, 1u) * b;
}

WlStream *
wl_stream_open (const WlStreamParams *p, GError **error)
{
  g_return_val_if_fail (p != NULL && p->scan != NULL && p->window > 0, NULL);
  g_autoptr (WlStream) s = g_new0 (WlStream, 1);
  s->scan = p->scan;
  s->rank = p->rank;
  s->budget = p->budget;
  s->prepare = p->prepare;
  s->data = p->data;
  s->block_size = block_size (p->window);
  s->block_shift = (guint) g_bit_storage (s->block_size) - 1;
  s->max_blocks = MAX (p->window / s->block_size, 1u);
  s->window = wl_stream_window_nodes (p->window);
  s->blocks = g_ptr_array_new ();
  s->index = wl_id_map_new ("the window's node index");
  s->waiting = wl_id_map_new ("the window's forward references");
  s->edges = (WlVec) WL_VEC_INIT (Link);
  s->links = (WlVec) WL_VEC_INIT (Link);
  s->free_edge = s->free_link = NONE;
  s->deps = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->sorted = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->scratch = g_array_new (FALSE, FALSE, sizeof (guint32));
  s->dec = (WlNodeDecoder) { .path = p->scan->path, .lenient = p->scan->lenient,
                             .kernels = p->scan->kernels,
                             .exchanges = p->scan->exchanges };
  s->reader = wl_chakra_reader_open_full (
    p->scan->path, p->scan->lenient ? WL_CHAKRA_ALLOW_HEADERLESS : WL_CHAKRA_READ_DEFAULT, error);
  if (s->reader == NULL)
    return NULL;
  return g_steal_pointer (&s);
}

void
wl_stream_free (WlStream *s)
{
  if (s == NULL)
    return;
  wl_chakra_reader_free (s->reader);
  for (guint i = 0; i < s->blocks->len; i++)
    g_free (s->blocks->pdata[i]);
  g_ptr_array_unref (s->blocks);
  wl_id_map_free (s->index);
  wl_id_map_free (s->waiting);
  wl_vec_clear (&s->edges);
  wl_vec_clear (&s->links);
  g_array_unref (s->deps);
  g_array_unref (s->sorted);
  g_array_unref (s->scratch);
  g_free (s);
}

/* A Link from POOL (reusing freed ones), or NONE with ERROR set (naming
 * the pool WHAT). */
static guint32
link_new (WlVec *pool, guint32 *free_head, guint32 child, const char *what, GError **error)
{
  guint32 i = *free_head;
  if (i != NONE)
    *free_head = WL_VEC_AT (pool, Link, i).next;
  else
    {
      if (pool->len >= NONE - 1)
        {
          sim_alloc_error (NONE, sizeof (Link), what, error);
          return NONE;
        }
      if (wl_vec_push (pool, what, error) == NULL)
        return NONE;
      i = (guint32) pool->len - 1;
    }
  WL_VEC_AT (pool, Link, i) = (Link) { child, NONE };
  return i;
}

static void
link_free (WlVec *pool, guint32 *free_head, guint32 i)
{
  WL_VEC_AT (pool, Link, i).next = *free_head;
  *free_head = i;
}

/* Append CHILD to PARENT's dependents. */
static gboolean
edge_add (WlStream *s, guint32 parent, guint32 child, GError **error)
{
  guint32 e = link_new (&s->edges, &s->free_edge, child, "the window's dependency edges", error);
  if (e == NONE)
    return FALSE;
  WlNode *p = wl_stream_node (s, parent);
  if (p->child_start == NONE)
    p->child_start = e;
  else
    WL_VEC_AT (&s->edges, Link, p->n_children).next = e;
  p->n_children = e;
  return TRUE;
}

/* A slot for node s->next, in a new block when the last one is full. */
static WlNode *
slot_new (WlStream *s, GError **error)
{
  guint32 seq = s->next;
  if ((seq & (s->block_size - 1)) == 0)
    {
      gsize bytes = sizeof (Block) + (gsize) s->block_size * (sizeof (WlNode) + 1);
      Block *b = g_try_malloc (bytes);
      if (b == NULL)
        {
          sim_alloc_error (1, bytes, "a block of the streaming window", error);
          return NULL;
        }
      b->n_read = b->n_done = 0;
      if (s->blocks->len == 0)
        s->base = seq >> s->block_shift;
      g_ptr_array_add (s->blocks, b);
      s->resident++;
    }
  Block *b = block_at (s, seq);
  b->n_read++;
  s->next++;
  *wl_stream_state (s, seq) = 0;
  return &b->nodes[seq & (s->block_size - 1)];
}

/* Free SEQ's block when every node it will hold is done. */
static void
block_release (WlStream *s, guint32 seq)
{
  guint32 number = seq >> s->block_shift;
  Block *b = s->blocks->pdata[number - s->base];
  gboolean last = number == (s->next - 1) >> s->block_shift;
  if (b->n_done < b->n_read || (b->n_read < s->block_size && !(last && s->eof)))
    return;
  g_free (b);
  s->blocks->pdata[number - s->base] = NULL;
  s->resident--;
  guint lead = 0;
  while (lead < s->blocks->len && s->blocks->pdata[lead] == NULL)
    lead++;
  if (lead > 0)
    {
      g_ptr_array_remove_range (s->blocks, 0, lead);
      s->base += lead;
    }
}

static gboolean
has_room (const WlStream *s)
{
  return (s->next & (s->block_size - 1)) != 0 || s->resident < s->max_blocks;
}

/* What to tell a user whose budget is too small: the budget the window
 * stands for (or the window itself when none was given). */
static char *
budget_advice (const WlStream *s)
{
  if (s->budget == 0)
    return g_strdup_printf ("the window holds %u nodes per rank: give a larger --memory-budget, "
                            "or --memory-budget none to load the traces whole", s->window);
  g_autofree char *b = sim_units_format_bytes (s->budget);
  return g_strdup_printf ("--memory-budget %s leaves a window of %u nodes per rank: give a "
                          "larger budget, or --memory-budget none to load the traces whole",
                          b, s->window);
}

static gboolean
too_late (WlStream *s, const WlStreamFill *f, guint64 id, gboolean has_deps, guint64 parent,
          GError **error)
{
  g_autofree char *t = sim_units_format_time (f->now);
  g_autofree char *advice = budget_advice (s);
  if (!has_deps)
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                 "%s: rank %u: node %" G_GUINT64_FORMAT " has no dependencies, so it is ready "
                 "when the rank starts, but it lies beyond the %u nodes the memory budget lets "
                 "orrery read ahead (it was read at %s): the budget is too small to stream this "
                 "trace exactly; %s", s->scan->path, s->rank, id, s->window, t, advice);
  else
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                 "%s: rank %u: node %" G_GUINT64_FORMAT " was read at %s, after its parent "
                 "node %" G_GUINT64_FORMAT " had finished: the memory budget is too small to "
                 "stream this trace exactly; %s", s->scan->path, s->rank, id, t, parent, advice);
  return FALSE;
}

/* The dependents waiting for ID, in file order (into s->scratch); their
 * links are freed. */
static void
take_waiting (WlStream *s, guint64 id)
{
  g_array_set_size (s->scratch, 0);
  guint32 i;
  if (!wl_id_map_lookup (s->waiting, id, &i))
    return;
  wl_id_map_remove (s->waiting, id);
  while (i != NONE)
    {
      Link *l = &WL_VEC_AT (&s->links, Link, i);
      guint32 next = l->next;
      g_array_append_val (s->scratch, l->child);
      link_free (&s->links, &s->free_link, i);
      i = next;
    }
  /* Pushed at the head: reverse into file order. */
  guint32 *c = (guint32 *) s->scratch->data;
  for (guint a = 0, b = s->scratch->len; a + 1 < b; a++, b--)
    {
      guint32 t = c[a];
      c[a] = c[b - 1];
      c[b - 1] = t;
    }
}

static gboolean
wait_for (WlStream *s, guint64 id, guint32 child, GError **error)
{
  guint32 head = NONE;
  wl_id_map_lookup (s->waiting, id, &head);
  guint32 l = link_new (&s->links, &s->free_link, child, "the window's forward references",
                        error);
  if (l == NONE)
    return FALSE;
  WL_VEC_AT (&s->links, Link, l).next = head;
  return wl_id_map_insert (s->waiting, id, l, error);
}

/* V's dependents in the window, in list order (a WlDependentsFunc). */
static void
window_dependents (gpointer data, guint32 v, GArray *out)
{
  WlStream *s = data;
  for (guint32 e = wl_stream_node (s, v)->child_start; e != NONE;
       e = WL_VEC_AT (&s->edges, Link, e).next)
    g_array_append_val (out, WL_VEC_AT (&s->edges, Link, e).child);
}

/* Whether linking SEQ as the parent of the waiting dependents in
 * s->scratch closes a cycle: a path from one of them through dependents to
 * SEQ.  The cycle's ids go to IDS, each depending on the next. */
static gboolean
closes_cycle (WlStream *s, guint32 seq, GArray *ids, GError **error)
{
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  if (!wl_cycle_reach ((const guint32 *) s->scratch->data, s->scratch->len, seq,
                       window_dependents, s, path, error))
    return FALSE;
  for (guint i = 0; i < path->len; i++)
    g_array_append_val (ids, wl_stream_node (s, g_array_index (path, guint32, i))->id);
  return TRUE;
}

static gboolean
cycle_error (WlStream *s, GArray *ids, GError **error)
{
  return wl_cycle_error (s->scan->path, (const guint64 *) ids->data, ids->len,
                         s->scan->lenient ? "; --lenient drops the edges that close cycles only "
                                            "when the traces are loaded whole, and these are "
                                            "streamed (they do not fit the memory budget): "
                                            "raise --memory-budget, or give --memory-budget none"
                                          : NULL,
                         error);
}

/* Node SEQ (id ID) was read: link the dependents waiting for it.  HAS_PARENT:
 * it depends on a resident node (else no path can lead to it yet). */
static gboolean
link_waiting (WlStream *s, guint32 seq, guint64 id, gboolean has_parent, GError **error)
{
  take_waiting (s, id);
  if (s->scratch->len == 0)
    return TRUE;
  gboolean self = FALSE;
  for (guint i = 0; i < s->scratch->len; i++)
    self |= g_array_index (s->scratch, guint32, i) == seq;
  if (has_parent || self)
    {
      g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
      GError *local = NULL;
      if (closes_cycle (s, seq, ids, &local))
        return cycle_error (s, ids, error);
      if (local != NULL)
        {
          g_propagate_prefixed_error (error, local, "%s: ", s->scan->path);
          return FALSE;
        }
    }
  /* s->scratch is reused by nothing below. */
  for (guint i = 0; i < s->scratch->len; i++)
    if (!edge_add (s, seq, g_array_index (s->scratch, guint32, i), error))
      return FALSE;
  return TRUE;
}

/* Resolve the dependencies of node SEQ, read just now. */
static gboolean
resolve (WlStream *s, const WlStreamFill *f, guint32 seq, const ChakraProtoMsg__Node *n,
         GError **error)
{
  const GArray *fwd = s->scan->forward;
  guint fwd_end = s->forward_at;
  while (fwd_end < fwd->len && g_array_index (fwd, WlForwardRef, fwd_end).child == seq)
    fwd_end++;
  guint32 unfinished = 0;
  gboolean has_parent = FALSE, released = FALSE, has_done = FALSE;
  guint64 done_parent = 0;
  wl_deps_unique (n, s->deps, s->sorted);
  for (guint i = 0; i < s->deps->len; i++)
    {
      guint64 dep = g_array_index (s->deps, guint64, i);
      gboolean forward = FALSE;
      for (guint k = s->forward_at; k < fwd_end && !forward; k++)
        forward = g_array_index (fwd, WlForwardRef, k).parent_id == dep;
      guint32 parent;
      if (forward)
        {
          if (!wait_for (s, dep, seq, error))
            return FALSE;
          unfinished++;
        }
      else if (wl_id_map_lookup (s->index, dep, &parent))
        {
          if (!edge_add (s, parent, seq, error))
            return FALSE;
          unfinished++;
          has_parent = TRUE;
        }
      else if (f->finishing && dep == f->finishing_id)
        released = TRUE;
      else if (!has_done)
        {
          has_done = TRUE;
          done_parent = dep;
        }
    }
  s->forward_at = fwd_end;
  wl_stream_node (s, seq)->n_parents = unfinished;
  if (!wl_id_map_insert (s->index, n->id, seq, error)
      || !link_waiting (s, seq, n->id, has_parent, error))
    return FALSE;
  if (unfinished > 0)
    return TRUE;
  if (!f->started || released)
    {
      f->ready (f->data, seq);
      return TRUE;
    }
  return too_late (s, f, n->id, s->deps->len > 0, done_parent, error);
}

/* Read one node into the window (or skip a repeat, or find the end). */
static gboolean
read_one (WlStream *s, const WlStreamFill *f, GError **error)
{
  GError *local = NULL;
  g_autoptr (ChakraProtoMsg__Node) n = wl_chakra_reader_next (s->reader, &local);
  if (n == NULL)
    {
      if (local != NULL && !(s->scan->lenient && wl_chakra_reader_truncated (s->reader)))
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      g_clear_error (&local);
      s->eof = TRUE;
      if (s->next > 0 && wl_stream_resident (s, s->next - 1))
        block_release (s, s->next - 1);
      return TRUE;
    }
  guint64 position = s->position++;
  const GArray *repeats = s->scan->repeats;
  if (s->repeat_at < repeats->len && g_array_index (repeats, guint64, s->repeat_at) == position)
    {
      s->repeat_at++;
      return TRUE;
    }
  WlNode w;
  if (!wl_node_decode (&s->dec, n, &w, error))
    return FALSE;
  if (s->prepare != NULL)
    s->prepare (s->data, &w);
  guint32 seq = s->next;
  WlNode *slot = slot_new (s, error);
  if (slot == NULL)
    {
      g_prefix_error (error, "%s: ", s->scan->path);
      return FALSE;
    }
  w.child_start = w.n_children = NONE;
  w.n_parents = 0;
  *slot = w;
  if (resolve (s, f, seq, n, error))
    return TRUE;
  if (!g_str_has_prefix ((*error)->message, s->scan->path))
    g_prefix_error (error, "%s: ", s->scan->path);
  return FALSE;
}

gboolean
wl_stream_fill (WlStream *s, const WlStreamFill *f, GError **error)
{
  g_return_val_if_fail (s != NULL && f != NULL && f->ready != NULL, FALSE);
  while (!s->eof && has_room (s))
    if (!read_one (s, f, error))
      return FALSE;
  return TRUE;
}

void
wl_stream_finish (WlStream *s, guint32 seq, WlStreamReadyFunc ready, gpointer data)
{
  WlNode *n = wl_stream_node (s, seq);
  wl_id_map_remove (s->index, n->id);
  for (guint32 e = n->child_start; e != NONE;)
    {
      Link *l = &WL_VEC_AT (&s->edges, Link, e);
      guint32 child = l->child, next = l->next;
      link_free (&s->edges, &s->free_edge, e);
      if (--wl_stream_node (s, child)->n_parents == 0)
        ready (data, child);
      e = next;
    }
  n->child_start = n->n_children = NONE;
  block_at (s, seq)->n_done++;
  block_release (s, seq);
}

gboolean
wl_stream_stuck (const WlStream *s, SimTime now, GError **error)
{
  g_autofree char *t = sim_units_format_time (now);
  g_autofree char *advice = budget_advice (s);
  /* Name the first dependent still waiting for a node not read yet. */
  const GArray *fwd = s->scan->forward;
  const WlForwardRef *culprit = NULL;
  for (guint i = 0; i < s->forward_at && culprit == NULL; i++)
    {
      const WlForwardRef *f = &g_array_index (fwd, WlForwardRef, i);
      if (wl_id_map_lookup (s->waiting, f->parent_id, NULL))
        culprit = f;
    }
  g_autofree char *which = culprit == NULL ? g_strdup ("")
                           : g_strdup_printf (" (node %" G_GUINT64_FORMAT " depends on node %"
                                              G_GUINT64_FORMAT ", not read yet)",
                                              culprit->child_id, culprit->parent_id);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: rank %u: at %s every node in the memory budget's window of %u nodes waits "
               "on nodes further in the file%s: the budget is too small to stream this trace; "
               "%s", s->scan->path, s->rank, t, s->window, which, advice);
  return FALSE;
}

gboolean
wl_stream_read_all (const WlStream *s)
{
  return s->eof;
}

guint32
wl_stream_first (const WlStream *s)
{
  return s->blocks->len > 0 ? s->base << s->block_shift : s->next;
}

guint32
wl_stream_end (const WlStream *s)
{
  return s->next;
}

gboolean
wl_stream_resident (const WlStream *s, guint32 seq)
{
  guint32 number = seq >> s->block_shift;
  return seq < s->next && number >= s->base && number - s->base < s->blocks->len
         && s->blocks->pdata[number - s->base] != NULL;
}

