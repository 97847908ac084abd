/* graph_cache.c: one graph per distinct trace file, found by content. */
#include "workload/graph_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload/group_memo.h"
#include "workload/sha256.h"
#include "workload/wl_error.h"

char *
wl_file_sha256 (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  FILE *f = fopen (path, "rb");
  if (f == NULL)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "Failed to open file \u201c%s\u201d: %s",
                   path, g_strerror (errsv));
      return NULL;
    }
  if (!wl_file_check_regular (fileno (f), path, error))
    {
      fclose (f);
      return NULL;
    }
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint8 buf[65536];
  gsize n;
  while ((n = fread (buf, 1, sizeof buf, f)) > 0)
    g_checksum_update (sum, buf, (gssize) n);
  int errsv = errno;
  gboolean failed = ferror (f) != 0;
  fclose (f);
  if (failed)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "Error reading file \u201c%s\u201d: %s",
                   path, g_strerror (errsv));
      return NULL;
    }
  return g_strdup (g_checksum_get_string (sum));
}

/* Map PATH into IMG (zeroed first); IMG->bytes stays NULL for a file that
 * cannot be mapped (empty).  FALSE with ERROR set when it cannot be opened
 * or is not a regular file. */
static gboolean
image_map (WlFileImage *img, const char *path, GError **error)
{
  *img = (WlFileImage) { 0 };
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: no wait */
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "Failed to open file \u201c%s\u201d: %s",
                   path, g_strerror (errsv));
      return FALSE;
    }
  if (!wl_file_check_regular (fd, path, error))
    {
      close (fd);
      return FALSE;
    }
  struct stat st;
  if (fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > 0
      && (guint64) st.st_size <= (guint64) G_MAXSIZE)
    {
      void *map = mmap (NULL, (gsize) st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (map != MAP_FAILED)
        {
          img->map = map;
          img->bytes = map;
          img->len = (gsize) st.st_size;
        }
    }
  close (fd);
  return TRUE;
}

gboolean
wl_file_image_open (WlFileImage *img, const char *path, GError **error)
{
  g_return_val_if_fail (img != NULL && path != NULL, FALSE);
  if (!image_map (img, path, error))
    return FALSE;
  img->sha256 = img->bytes != NULL ? wl_sha256_hex (img->bytes, img->len)
                                   : wl_file_sha256 (path, error);
  return img->sha256 != NULL;
}

void
wl_file_image_clear (WlFileImage *img)
{
  g_return_if_fail (img != NULL);
  if (img->map != NULL)
    munmap (img->map, img->len);
  g_free (img->sha256);
  *img = (WlFileImage) { 0 };
}

typedef struct _Prefetch Prefetch;

struct _WlGraphCache
{
  GHashTable *by_digest; /* sha256 hex -> WlGraph* (one reference) */
  GHashTable *by_len;    /* guint64* file length -> the graph of the last new file
                          * of that length (one reference): the next one is
                          * read against it (wl_graph_delta) */
  WlGroupMemo *groups;   /* METADATA group lists of every file loaded (shared
                          * by the workers: it locks) */
  guint64 bytes;         /* wl_graph_cache_bytes */
  gboolean lenient;
  guint threads;         /* wl_graph_cache_set_threads */
  Prefetch *prefetch;    /* the announced loads, or NULL */
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
  char *sha256;       /* its digest (taken from IMG), or NULL */
  gsize len;          /* its bytes */
  GError *open_error; /* it could not be opened or read */
  SlotState state;    /* distinct files only */
  WlGraph *graph;     /* decoded with the prefetch's limit, or NULL: ERROR, or over */
  GError *error;
  guint64 peak;       /* WlGraphLoad.peak of that decode */
  guint32 prev;       /* distinct files: the distinct file of its length before
                       * it (itself when none is) */
  WlGraph *kept;      /* its graph (a reference), for the next file of its
                       * length, or NULL */
} Slot;

struct _Prefetch
{
  WlGraphCache *cache;
  char **paths;          /* the announced files (owned) */
  guint32 n;
  Slot *slots;           /* per announced file */
  guint32 *distinct;     /* the files whose digest no earlier file has, in order */
  guint32 n_distinct;
  gint next_open;        /* the next file to map (atomic) */
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

/* Map and digest the announced files, any free one, until none is left. */
static gpointer
open_worker (gpointer data)
{
  Prefetch *p = data;
  for (;;)
    {
      guint32 i = (guint32) g_atomic_int_add (&p->next_open, 1);
      if (i >= p->n)
        return NULL;
      Slot *s = &p->slots[i];
      if (wl_file_image_open (&s->img, p->paths[i], &s->open_error))
        {
          s->sha256 = g_steal_pointer (&s->img.sha256);
          s->len = s->img.len;
        }
      /* Let the mapping go until the file is decoded: every file mapped at
       * once would hold all their pages (the whole trace set) in memory. */
      wl_file_image_clear (&s->img);
    }
}

/* PATH (its BYTES, LEN of them) read against PREV's file (wl_graph_delta),
 * or NULL: load it. */
static WlGraph *
try_delta (WlGraph *prev, const char *path, const guint8 *bytes, gsize len)
{
  if (prev == NULL || bytes == NULL)
    return NULL;
  WlFileImage b;
  GError *e = NULL;
  if (!image_map (&b, prev->path, &e))
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
  if (s->prev != i)
    {
      /* That file was claimed before this one: it is decoded, or will be. */
      Slot *ps = &p->slots[s->prev];
      pthread_mutex_lock (&p->lock);
      while (ps->state != SLOT_DONE)
        pthread_cond_wait (&p->decoded, &p->lock);
      prev = ps->kept != NULL ? wl_graph_ref (ps->kept) : NULL;
      pthread_mutex_unlock (&p->lock);
    }
  gboolean over = FALSE;
  GError *map_error = NULL;
  if (!image_map (&s->img, p->paths[i], &map_error))
    g_clear_error (&map_error); /* it opened a moment ago: the load says why not now */
  s->graph = try_delta (prev, p->paths[i], s->img.bytes, s->img.len);
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
  if (s->graph != NULL)
    s->graph->sha256 = g_strdup (s->sha256);
  wl_file_image_clear (&s->img);
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

/* The distinct files, in order: a duplicate's mapping is let go at once. */
static void
find_distinct (Prefetch *p)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr (GHashTable) by_len = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint32 i = 0; i < p->n; i++)
    {
      Slot *s = &p->slots[i];
      if (s->sha256 == NULL)
        continue;
      if (g_hash_table_contains (seen, s->sha256))
        {
          wl_file_image_clear (&s->img);
          continue;
        }
      g_hash_table_add (seen, s->sha256);
      p->distinct[p->n_distinct++] = i;
      /* Each file is read against the last one of its length before it (as
       * the cache reads it when loading one file at a time, by_len). */
      G_STATIC_ASSERT (sizeof (gsize) == sizeof (gint64));
      const guint32 *last = g_hash_table_lookup (by_len, &s->len);
      s->prev = last != NULL ? *last : i;
      g_hash_table_insert (by_len, &s->len, &p->distinct[p->n_distinct - 1]);
    }
}

void
wl_graph_cache_set_threads (WlGraphCache *c, guint threads)
{
  g_return_if_fail (c != NULL && threads >= 1 && threads <= WL_LOAD_THREADS_MAX);
  c->threads = threads;
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
  c->prefetch = p;
  /* Settle the digest's one-time CPU check here, before the workers
   * digest: its g_once is invisible to ThreadSanitizer, thread creation
   * is not. */
  (void) wl_sha256_accelerated ();
  start_workers (p, open_worker, c->threads - 1);
  open_worker (p);
  join_workers (p);
  find_distinct (p);
  start_workers (p, decode_worker, c->threads);
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
      g_free (s->sha256);
      g_clear_error (&s->open_error);
      g_clear_error (&s->error);
      g_clear_pointer (&s->graph, wl_graph_unref);
      g_clear_pointer (&s->kept, wl_graph_unref);
    }
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

/* Keep G, the graph of a new file of LEN bytes: by its digest, and as the
 * one the next new file of that length is read against. */
static void
cache_add (WlGraphCache *c, WlGraph *g, gsize len)
{
  g_hash_table_insert (c->by_digest, g_strdup (g->sha256), wl_graph_ref (g));
  guint64 key = len;
  g_hash_table_replace (c->by_len, g_memdup2 (&key, sizeof key), wl_graph_ref (g));
}

/* The next announced file's graph (wl_graph_cache_load_limited's result
 * for it with LIMIT), from what the workers made of it. */
static WlGraph *
take_prefetched (WlGraphCache *c, guint64 limit, gboolean *over, GError **error)
{
  Prefetch *p = c->prefetch;
  guint32 i = p->next_use++;
  Slot *s = &p->slots[i];
  if (s->open_error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&s->open_error));
      return NULL;
    }
  c->bytes += s->len;
  WlGraph *g = g_hash_table_lookup (c->by_digest, s->sha256);
  if (g != NULL)
    return wl_graph_ref (g);
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
  g = g_steal_pointer (&s->graph);
  cache_add (c, g, s->len);
  return g;
}

/* ---- the cache -------------------------------------------------------------- */

WlGraphCache *
wl_graph_cache_new_full (gboolean lenient)
{
  WlGraphCache *c = g_new0 (WlGraphCache, 1);
  c->lenient = lenient;
  c->threads = 1;
  c->groups = wl_group_memo_new ();
  c->by_digest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) wl_graph_unref);
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
  g_hash_table_unref (c->by_digest);
  g_hash_table_unref (c->by_len);
  wl_group_memo_free (c->groups);
  g_free (c);
}

WlGraph *
wl_graph_cache_load_limited (WlGraphCache *c, const char *path, guint64 limit, gboolean *over,
                             GError **error)
{
  if (over != NULL)
    *over = FALSE;
  Prefetch *p = c->prefetch;
  if (p != NULL && p->next_use < p->n && limit <= p->limit
      && strcmp (path, p->paths[p->next_use]) == 0)
    return take_prefetched (c, limit, over, error);
  wl_graph_cache_prefetch_end (c); /* out of the announced order */
  WlFileImage img;
  if (!wl_file_image_open (&img, path, error))
    return NULL;
  c->bytes += img.len;
  WlGraph *g = g_hash_table_lookup (c->by_digest, img.sha256);
  if (g != NULL)
    {
      wl_file_image_clear (&img);
      return wl_graph_ref (g);
    }
  guint64 key = img.len;
  g = try_delta (g_hash_table_lookup (c->by_len, &key), path, img.bytes, img.len);
  if (g != NULL && g->load_peak > limit)
    {
      /* Its own load would have stopped there, as its base's would. */
      if (over != NULL)
        *over = TRUE;
      g_clear_pointer (&g, wl_graph_unref);
      wl_file_image_clear (&img);
      return NULL;
    }
  if (g == NULL)
    {
      WlGraphLoad req = { .path = path, .lenient = c->lenient, .limit = limit, .over = over,
                          .bytes = img.bytes, .n_bytes = img.len, .group_memo = c->groups };
      g = wl_graph_load_request (&req, error);
    }
  if (g != NULL)
    {
      g->sha256 = g_steal_pointer (&img.sha256);
      cache_add (c, g, img.len);
    }
  wl_file_image_clear (&img);
  return g;
}

guint
wl_graph_cache_distinct (const WlGraphCache *c)
{
  return g_hash_table_size (c->by_digest);
}


guint64
wl_graph_cache_bytes (const WlGraphCache *c)
{
  return c->bytes;
}
