/* graph_cache.c: one graph per distinct trace file, found by content: the
 * cache of decoded graphs and the parallel loading of announced files
 * (wl_graph_cache_prefetch).  A file's bytes and their hashes (WlFileImage)
 * are file_image.c. */
#include "workload/graph_cache.h"

#include <pthread.h>
#include <string.h>

#include "workload/group_memo.h"

typedef struct _Prefetch Prefetch;

struct _WlGraphCache
{
  GHashTable *by_hash;   /* guint64* wl_bytes_hash -> GPtrArray of the graphs of files
                          * with that hash (one reference each), in order */
  guint n_distinct;      /* graphs made (wl_graph_cache_distinct) */
  GHashTable *by_len;    /* guint64* file length -> the graph of the last new file
                          * of that length (one reference): the next one is
                          * read against it (wl_graph_delta) */
  WlGraph *last_new;     /* the graph of the last new file (one reference), or
                          * NULL: a new file of a length no file had before is
                          * read against it (one pipeline stage's ranks differ
                          * in length by a few bytes of names) */
  WlGroupMemo *groups;   /* METADATA group lists of every file loaded (shared
                          * by the workers: it locks) */
  guint64 bytes;         /* wl_graph_cache_bytes */
  gboolean lenient;
  guint threads;         /* wl_graph_cache_set_threads */
  gint piece_kib;        /* wl_graph_cache_set_piece, in KiB */
  guint64 serial;        /* wl_graph_cache_set_serial */
  Prefetch *prefetch;    /* the announced loads, or NULL */
  char *same_path;       /* the file cache_same last compared with, or NULL */
  WlFileImage same;      /* its image, kept: a file shared by many ranks is
                          * read once, not once per rank */
};

/* ---- parallel loading (wl_graph_cache_prefetch) ------------------------------ */

typedef enum
{
  SLOT_WAITING, /* a distinct file nobody decodes yet */
  SLOT_CLAIMED, /* being decoded */
  SLOT_DONE
} SlotState;

/* One announced file. */
typedef struct
{
  WlFileImage img;    /* mapped while a worker decodes it */
  guint64 hash;       /* IMG's hash */
  gboolean mapped;    /* it opened and could be mapped (HASH is set) */
  gsize len;          /* its bytes */
  GError *open_error; /* it could not be opened or read */
  SlotState state;    /* distinct files only */
  gboolean held;      /* IMG holds the file's bytes from the digest (a small file) */
  gboolean dup;       /* an earlier announced file has its hash: compared and,
                       * rarely, loaded by the caller; no worker decodes it */
  WlGraph *graph;     /* decoded with the prefetch's limit, or NULL: ERROR, or over */
  GError *error;
  guint64 peak;       /* WlGraphLoad.peak of that decode */
  guint32 prev;       /* distinct files: the distinct file of its length before
                       * it (itself when none is) */
  gboolean pass_on;   /* distinct files: a later distinct file of this piece is
                       * read against it (prev): its bytes stay in IMG after
                       * its decode until that one's (pass_bytes) */
  WlGraph *kept;      /* its graph (a reference), for the next file of its
                       * length, or NULL */
} Slot;

struct _Prefetch
{
  WlGraphCache *cache;
  char **paths;          /* the announced files (owned) */
  guint32 n;
  Slot *slots;           /* per announced file */
  guint32 *distinct;     /* the files whose hash no earlier file has, in order */
  guint32 n_distinct;
  guint threads;         /* the cache's */
  guint32 opened;        /* files mapped, digested and sorted (find_distinct) so far:
                          * the announced files are taken in pieces (open_piece) */
  GHashTable *seen;      /* find_distinct's: guint64* hash of a distinct file */
  GHashTable *by_len;    /* find_distinct's: gsize* length -> guint32* (into DISTINCT)
                          * the last distinct file of that length */
  gint next_open;        /* the next file to map (atomic) */
  gint piece_kib;        /* KiB of this piece's files mapped so far (atomic) */
  gint kept_kib;         /* KiB of small files' bytes kept in their slots (atomic) */
  guint32 next_claim;    /* the next of DISTINCT to decode (under LOCK) */
  guint32 next_use;      /* the next file wl_graph_cache_load_limited takes */
  guint64 limit;         /* the largest limit a call will give */
  guint64 done_bytes;    /* wl_graph_bytes of the graphs decoded (under LOCK) */
  gboolean stop;         /* claim no more (under LOCK) */
  /* pthread's, not GLib's: ThreadSanitizer sees these (GLib's futex-based
   * GMutex is invisible to it, so every access it guards looks racy). */
  pthread_mutex_t lock;
  pthread_cond_t decoded; /* a slot became SLOT_DONE */
  GPtrArray *workers;    /* GThread* */
};

/* The bytes of a piece of the announced files (open_piece): what is
 * digested is decoded straight after, while its pages are still in the
 * page cache.  Digesting the whole set first read a trace set larger
 * than the page cache twice from disk (Megatron's 1T row: 8.9 GB).  The
 * bytes of a piece, read, are kept from the digest to the decode
 * (KEPT_KIB) rather than read a second time, and a file's for the next
 * file of its length (pass_on), a third. */
#define PIECE_KIB_DEFAULT (32 << 10)

/* KiB of files' bytes kept from the digest to the decode or the
 * comparison (the rest are read again there): a piece and the files
 * whose bytes wait for the next of their length. */
#define KEPT_KIB (48 << 10)

/* Keep slot S's image when it is a small file's bytes, read, and the
 * kept ones leave room; else let it go. */
static void
slot_keep (Prefetch *p, Slot *s)
{
  gint kib = (gint) (s->img.len >> 10) + 1;
  if (s->img.heap != NULL && g_atomic_int_add (&p->kept_kib, kib) + kib <= KEPT_KIB)
    {
      s->held = TRUE;
      return;
    }
  if (s->img.heap != NULL)
    g_atomic_int_add (&p->kept_kib, -kib);
  wl_file_image_clear (&s->img);
}

/* Let slot S's image go (a kept one makes room). */
static void
slot_release (Prefetch *p, Slot *s)
{
  if (s->held)
    g_atomic_int_add (&p->kept_kib, -((gint) (s->img.len >> 10) + 1));
  s->held = FALSE;
  wl_file_image_clear (&s->img);
}

/* Map and digest the announced files of this piece, any free one, until
 * none is left or the piece holds piece_kib's limit (the cache's). */
static gpointer
open_worker (gpointer data)
{
  Prefetch *p = data;
  for (;;)
    {
      if (g_atomic_int_get (&p->piece_kib) >= p->cache->piece_kib)
        return NULL;
      guint32 i = (guint32) g_atomic_int_add (&p->next_open, 1);
      if (i >= p->n)
        return NULL;
      Slot *s = &p->slots[i];
      if (wl_file_image_open (&s->img, p->paths[i], &s->open_error))
        {
          s->hash = s->img.hash;
          s->mapped = s->img.bytes != NULL;
          s->len = s->img.len;
          g_atomic_int_add (&p->piece_kib, (gint) MIN (s->len >> 10, (gsize) G_MAXINT / 2));
        }
      /* Let the mapping go until the file is decoded: every file mapped at
       * once would hold all their pages (the whole trace set) in memory.
       * A file's bytes, read, are kept (up to KEPT_KIB in all) and not
       * read again (a collective's 1,024 small traces, a piece of
       * Megatron's 3.3 MB ones). */
      slot_keep (p, s);
    }
}

/* PATH (its BYTES, LEN of them) read against PREV's file (wl_graph_delta),
 * whose bytes are PREV_IMG's when it holds them (else read here), or
 * NULL: load it. */
static WlGraph *
try_delta (WlGraph *prev, const WlFileImage *prev_img, const char *path, const guint8 *bytes,
           gsize len)
{
  if (prev == NULL || bytes == NULL)
    return NULL;
  if (prev_img != NULL && prev_img->bytes != NULL)
    return wl_graph_delta (prev, prev_img->bytes, prev_img->len, path, bytes, len);
  WlFileImage b;
  GError *e = NULL;
  if (!wl_file_image_map (&b, prev->path, &e))
    {
      g_clear_error (&e);
      return NULL;
    }
  WlGraph *g = wl_graph_delta (prev, b.bytes, b.len, path, bytes, len);
  wl_file_image_clear (&b);
  return g;
}

/* Decode slot I (claimed by the caller) with the prefetch's limit: read
 * against the file of its length before it when there is one, else (or
 * when that fails) in full. */
static void
decode_slot (Prefetch *p, guint32 i)
{
  Slot *s = &p->slots[i];
  WlGraph *prev = NULL;
  Slot *ps = NULL;
  if (s->prev != i)
    {
      /* That file was claimed before this one: it is decoded, or will be. */
      ps = &p->slots[s->prev];
      pthread_mutex_lock (&p->lock);
      while (ps->state != SLOT_DONE)
        pthread_cond_wait (&p->decoded, &p->lock);
      prev = ps->kept != NULL ? wl_graph_ref (ps->kept) : NULL;
      pthread_mutex_unlock (&p->lock);
    }
  gboolean over = FALSE;
  GError *map_error = NULL;
  if (!s->held && !wl_file_image_map (&s->img, p->paths[i], &map_error))
    g_clear_error (&map_error); /* it opened a moment ago: the load says why not now */
  /* PS's bytes, when it kept them for this file (pass_on), are only this
   * file's to read now, and to let go. */
  s->graph = try_delta (prev, ps != NULL && ps->pass_on ? &ps->img : NULL, p->paths[i],
                        s->img.bytes, s->img.len);
  if (ps != NULL && ps->pass_on)
    slot_release (p, ps);
  wl_graph_unref (prev);
  if (s->graph != NULL)
    s->peak = s->graph->load_peak;
  else
    {
      WlGraphLoad req = { .path = p->paths[i], .lenient = p->cache->lenient,
                          .limit = p->limit, .over = &over, .bytes = s->img.bytes,
                          .n_bytes = s->img.len, .group_memo = p->cache->groups,
                          .peak = &s->peak };
      s->graph = wl_graph_load_request (&req, &s->error);
    }
  /* Kept for the next of its length only when they were kept so far. */
  if (!(s->pass_on && s->held))
    {
      s->pass_on = FALSE;
      slot_release (p, s);
    }
  pthread_mutex_lock (&p->lock);
  if (s->graph != NULL)
    s->kept = wl_graph_ref (s->graph);
  s->state = SLOT_DONE;
  /* The caller stops at a file that failed, and before it holds more than
   * the limit: what lies past either is never asked for. */
  if (s->graph == NULL)
    p->stop = TRUE;
  else
    p->done_bytes += wl_graph_bytes (s->graph);
  if (p->limit != G_MAXUINT64 && p->done_bytes > p->limit)
    p->stop = TRUE;
  pthread_cond_broadcast (&p->decoded);
  pthread_mutex_unlock (&p->lock);
}

/* Decode the distinct files in order, each claimed by one worker. */
static gpointer
decode_worker (gpointer data)
{
  Prefetch *p = data;
  for (;;)
    {
      pthread_mutex_lock (&p->lock);
      /* The caller may have claimed the next ones itself (await_slot). */
      while (p->next_claim < p->n_distinct
             && p->slots[p->distinct[p->next_claim]].state != SLOT_WAITING)
        p->next_claim++;
      if (p->stop || p->next_claim == p->n_distinct)
        {
          pthread_mutex_unlock (&p->lock);
          return NULL;
        }
      guint32 i = p->distinct[p->next_claim++];
      p->slots[i].state = SLOT_CLAIMED;
      pthread_mutex_unlock (&p->lock);
      decode_slot (p, i);
    }
}

/* Start up to N_THREADS threads running FUNC (fewer when the system
 * refuses some: the caller's thread does what they leave). */
static void
start_workers (Prefetch *p, GThreadFunc func, guint n_threads)
{
  for (guint t = 0; t < n_threads; t++)
    {
      GThread *th = g_thread_try_new ("orrery-load", func, p, NULL);
      if (th == NULL)
        break;
      g_ptr_array_add (p->workers, th);
    }
}

static void
join_workers (Prefetch *p)
{
  for (guint t = 0; t < p->workers->len; t++)
    g_thread_join (p->workers->pdata[t]);
  g_ptr_array_set_size (p->workers, 0);
}

/* The distinct files of FROM .. END - 1, in order, after those before:
 * those whose hash no earlier file has. */
static void
find_distinct (Prefetch *p, guint32 from, guint32 end)
{
  for (guint32 i = from; i < end; i++)
    {
      Slot *s = &p->slots[i];
      if (s->open_error != NULL)
        continue;
      /* A file that could not be mapped is never taken for another. */
      if (s->mapped && g_hash_table_contains (p->seen, &s->hash))
        {
          s->dup = TRUE;
          continue;
        }
      if (s->mapped)
        g_hash_table_add (p->seen, &s->hash);
      p->distinct[p->n_distinct++] = i;
      /* Each file is read against the last one of its length before it (as
       * the cache reads it when loading one file at a time, by_len). */
      G_STATIC_ASSERT (sizeof (gsize) == sizeof (gint64));
      const guint32 *last = g_hash_table_lookup (p->by_len, &s->len);
      s->prev = last != NULL ? *last : i;
      /* Its bytes are handed on only within the piece: one decoded in an
       * earlier piece has let them go. */
      if (last != NULL && *last >= from)
        p->slots[*last].pass_on = TRUE;
      g_hash_table_insert (p->by_len, &s->len, &p->distinct[p->n_distinct - 1]);
    }
}

/* The next piece of the announced files (at least one file, the workers
 * joined): mapped and digested on every thread, sorted, and its distinct
 * files handed to the decoding workers. */
static void
open_piece (Prefetch *p)
{
  guint32 from = p->opened;
  p->next_open = (gint) from;
  p->piece_kib = 0;
  start_workers (p, open_worker, p->threads - 1);
  open_worker (p);
  join_workers (p);
  /* Every file claimed was digested, and claims are made in order: the
   * piece is the files before the next claim (one at least: the first
   * claim comes before any bytes are counted). */
  p->opened = MIN ((guint32) p->next_open, p->n);
  find_distinct (p, from, p->opened);
  start_workers (p, decode_worker, p->threads);
}

void
wl_graph_cache_set_threads (WlGraphCache *c, guint threads)
{
  g_return_if_fail (c != NULL && threads >= 1 && threads <= WL_LOAD_THREADS_MAX);
  c->threads = threads;
}

void
wl_graph_cache_set_piece (WlGraphCache *c, guint64 bytes)
{
  g_return_if_fail (c != NULL && bytes > 0);
  c->piece_kib = (gint) MIN ((bytes + 1023) >> 10, (guint64) G_MAXINT / 2);
}

void
wl_graph_cache_set_serial (WlGraphCache *c, guint64 bytes)
{
  g_return_if_fail (c != NULL);
  c->serial = bytes;
}

void
wl_graph_cache_prefetch (WlGraphCache *c, const char *const *paths, guint32 n, guint64 limit)
{
  g_return_if_fail (c != NULL && paths != NULL);
  wl_graph_cache_prefetch_end (c);
  if (c->threads <= 1 || n == 0)
    return;
  Prefetch *p = g_new0 (Prefetch, 1);
  p->cache = c;
  p->n = n;
  p->paths = g_new0 (char *, (gsize) n + 1);
  for (guint32 i = 0; i < n; i++)
    p->paths[i] = g_strdup (paths[i]);
  p->slots = g_new0 (Slot, n);
  p->distinct = g_new (guint32, n);
  p->limit = limit;
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->decoded, NULL);
  p->workers = g_ptr_array_new ();
  p->threads = c->threads;
  p->seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  p->by_len = g_hash_table_new (g_int64_hash, g_int64_equal);
  c->prefetch = p;
  /* The first piece is opened when the caller takes a file past the
   * serial bytes (take_prefetched: no file is opened yet). */
  if (c->serial == 0)
    open_piece (p);
}

void
wl_graph_cache_prefetch_end (WlGraphCache *c)
{
  g_return_if_fail (c != NULL);
  Prefetch *p = g_steal_pointer (&c->prefetch);
  if (p == NULL)
    return;
  pthread_mutex_lock (&p->lock);
  p->stop = TRUE;
  pthread_mutex_unlock (&p->lock);
  join_workers (p);
  g_ptr_array_unref (p->workers);
  for (guint32 i = 0; i < p->n; i++)
    {
      Slot *s = &p->slots[i];
      wl_file_image_clear (&s->img);
      g_clear_error (&s->open_error);
      g_clear_error (&s->error);
      g_clear_pointer (&s->graph, wl_graph_unref);
      g_clear_pointer (&s->kept, wl_graph_unref);
    }
  g_hash_table_unref (p->seen);
  g_hash_table_unref (p->by_len);
  g_free (p->slots);
  g_free (p->distinct);
  g_strfreev (p->paths);
  pthread_mutex_destroy (&p->lock);
  pthread_cond_destroy (&p->decoded);
  g_free (p);
}

/* Slot I decoded: waited for when a worker has it, decoded here when no
 * worker will (they stopped, or none could start). */
static void
await_slot (Prefetch *p, guint32 i)
{
  Slot *s = &p->slots[i];
  pthread_mutex_lock (&p->lock);
  while (s->state == SLOT_CLAIMED)
    pthread_cond_wait (&p->decoded, &p->lock);
  gboolean mine = s->state == SLOT_WAITING;
  if (mine)
    s->state = SLOT_CLAIMED;
  pthread_mutex_unlock (&p->lock);
  if (mine)
    decode_slot (p, i);
}

/* Whether the file PATH holds IMG's bytes (wl_file_image_same), its
 * image kept for the next comparison. */
static gboolean
cache_same (WlGraphCache *c, const WlFileImage *img, const char *path)
{
  if (img->bytes == NULL)
    return FALSE;
  if (c->same_path == NULL || strcmp (c->same_path, path) != 0)
    {
      wl_file_image_clear (&c->same);
      g_clear_pointer (&c->same_path, g_free);
      GError *e = NULL;
      if (!wl_file_image_map (&c->same, path, &e))
        g_clear_error (&e);
      c->same_path = g_strdup (path);
    }
  return c->same.bytes != NULL && c->same.len == img->len
         && memcmp (c->same.bytes, img->bytes, img->len) == 0;
}

/* The graph of a file loaded before whose bytes are IMG's, or NULL. */
static WlGraph *
cache_find (WlGraphCache *c, const WlFileImage *img)
{
  if (img->bytes == NULL)
    return NULL;
  GPtrArray *same = g_hash_table_lookup (c->by_hash, &img->hash);
  for (guint k = 0; same != NULL && k < same->len; k++)
    if (cache_same (c, img, ((WlGraph *) same->pdata[k])->path))
      return same->pdata[k];
  return NULL;
}

/* Keep G, the graph of a new file of LEN bytes: by its HASH when it was
 * MAPPED (a file that could not be mapped is never compared), and as the
 * one the next new file of its length (or of a new length) is read
 * against. */
static void
cache_add (WlGraphCache *c, WlGraph *g, gboolean mapped, guint64 hash, gsize len)
{
  c->n_distinct++;
  if (mapped)
    {
      GPtrArray *same = g_hash_table_lookup (c->by_hash, &hash);
      if (same == NULL)
        {
          same = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_graph_unref);
          g_hash_table_insert (c->by_hash, g_memdup2 (&hash, sizeof hash), same);
        }
      g_ptr_array_add (same, wl_graph_ref (g));
    }
  guint64 key = len;
  g_hash_table_replace (c->by_len, g_memdup2 (&key, sizeof key), wl_graph_ref (g));
  wl_graph_unref (c->last_new);
  c->last_new = wl_graph_ref (g);
}

/* The graph of the file PATH, mapped as IMG, that no earlier file has the
 * bytes of: read against the last new file of its length (of any length
 * when none has its length), else loaded in full, with LIMIT; kept. */
static WlGraph *
load_new (WlGraphCache *c, const char *path, const WlFileImage *img, guint64 limit,
          gboolean *over, GError **error)
{
  guint64 key = img->len;
  WlGraph *prev = g_hash_table_lookup (c->by_len, &key);
  WlGraph *g = try_delta (prev != NULL ? prev : c->last_new, NULL, path, img->bytes, img->len);
  if (g != NULL && g->load_peak > limit)
    {
      /* Its own load would have stopped there, as its base's would. */
      if (over != NULL)
        *over = TRUE;
      wl_graph_unref (g);
      return NULL;
    }
  if (g == NULL)
    {
      WlGraphLoad req = { .path = path, .lenient = c->lenient, .limit = limit, .over = over,
                          .bytes = img->bytes, .n_bytes = img->len, .group_memo = c->groups };
      g = wl_graph_load_request (&req, error);
    }
  if (g != NULL)
    cache_add (c, g, img->bytes != NULL, img->hash, img->len);
  return g;
}

/* An announced file that an earlier one may have: compared, and loaded
 * here when none has its bytes (a hash shared by chance). */
static WlGraph *
take_duplicate (WlGraphCache *c, Slot *s, const char *path, guint64 limit, gboolean *over,
                GError **error)
{
  g_auto (WlFileImage) img = { 0 };
  if (s->held)
    {
      /* Its bytes, read when it was digested. */
      img = s->img;
      s->img = (WlFileImage) { 0 };
      s->held = FALSE;
      g_atomic_int_add (&c->prefetch->kept_kib, -((gint) (img.len >> 10) + 1));
    }
  else if (!wl_file_image_open (&img, path, error))
    return NULL;
  WlGraph *g = cache_find (c, &img);
  return g != NULL ? wl_graph_ref (g) : load_new (c, path, &img, limit, over, error);
}

/* The next announced file's graph (wl_graph_cache_load_limited's result
 * for it with LIMIT), from what the workers made of it. */
static WlGraph *
take_prefetched (WlGraphCache *c, guint64 limit, gboolean *over, GError **error)
{
  Prefetch *p = c->prefetch;
  guint32 i = p->next_use++;
  Slot *s = &p->slots[i];
  if (i >= p->opened)
    {
      /* Every file before it taken: the workers have nothing left to do. */
      join_workers (p);
      open_piece (p);
    }
  if (s->open_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&s->open_error));
      return NULL;
    }
  c->bytes += s->len;
  if (s->dup)
    return take_duplicate (c, s, p->paths[i], limit, over, error);
  /* Graphs loaded before the announcement may have its hash. */
  if (s->mapped && g_hash_table_contains (c->by_hash, &s->hash))
    {
      g_auto (WlFileImage) img = { 0 };
      WlGraph *g = NULL;
      if (wl_file_image_map (&img, p->paths[i], NULL) && img.bytes != NULL)
        {
          img.hash = s->hash;
          g = cache_find (c, &img);
        }
      if (g != NULL)
        return wl_graph_ref (g);
    }
  await_slot (p, i);
  if (s->peak > limit)
    {
      /* The load with LIMIT would have stopped there, before the end or the
       * fault that this one reached. */
      if (over != NULL)
        *over = TRUE;
      g_clear_pointer (&s->graph, wl_graph_unref);
      g_clear_error (&s->error);
      return NULL;
    }
  if (s->graph == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&s->error));
      return NULL;
    }
  WlGraph *g = g_steal_pointer (&s->graph);
  cache_add (c, g, s->mapped, s->hash, s->len);
  return g;
}

/* ---- the cache -------------------------------------------------------------- */

WlGraphCache *
wl_graph_cache_new_full (gboolean lenient)
{
  WlGraphCache *c = g_new0 (WlGraphCache, 1);
  c->lenient = lenient;
  c->threads = 1;
  c->piece_kib = PIECE_KIB_DEFAULT;
  c->groups = wl_group_memo_new ();
  c->by_hash = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                      (GDestroyNotify) g_ptr_array_unref);
  c->by_len = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                     (GDestroyNotify) wl_graph_unref);
  return c;
}

void
wl_graph_cache_free (WlGraphCache *c)
{
  if (c == NULL)
    return;
  wl_graph_cache_prefetch_end (c);
  g_hash_table_unref (c->by_hash);
  g_hash_table_unref (c->by_len);
  wl_graph_unref (c->last_new);
  wl_group_memo_free (c->groups);
  wl_file_image_clear (&c->same);
  g_free (c->same_path);
  g_free (c);
  wl_file_image_pool_drain ();
}

WlGraph *
wl_graph_cache_load_limited (WlGraphCache *c, const char *path, guint64 limit, gboolean *over,
                             GError **error)
{
  if (over != NULL)
    *over = FALSE;
  Prefetch *p = c->prefetch;
  gboolean serial = FALSE;
  if (p != NULL && p->next_use < p->n && limit <= p->limit
      && strcmp (path, p->paths[p->next_use]) == 0)
    {
      if (p->opened > p->next_use || c->bytes >= c->serial)
        return take_prefetched (c, limit, over, error);
      /* Serial still (wl_graph_cache_set_serial): taken here, and no
       * worker will open it. */
      p->opened = ++p->next_use;
      serial = TRUE;
    }
  else
    wl_graph_cache_prefetch_end (c); /* out of the announced order */
  g_auto (WlFileImage) img = { 0 };
  if (!wl_file_image_open (&img, path, error))
    return NULL;
  c->bytes += img.len;
  WlGraph *g = cache_find (c, &img);
  g = g != NULL ? wl_graph_ref (g) : load_new (c, path, &img, limit, over, error);
  /* The workers' limit counts what the caller holds already (no worker
   * runs yet: no lock). */
  if (serial && g != NULL)
    p->done_bytes += wl_graph_bytes (g);
  return g;
}

guint
wl_graph_cache_distinct (const WlGraphCache *c)
{
  return c->n_distinct;
}


guint64
wl_graph_cache_bytes (const WlGraphCache *c)
{
  return c->bytes;
}
