/* file_image.c: a trace file's bytes, mapped or read, and their hashes:
 * the 64-bit hash loading finds a file by (wl_bytes_hash, bytes_hash.c),
 * the SHA-256 a report prints (wl_file_sha256) and the byte-for-byte comparison of a
 * file with an image (wl_file_image_same).  The cache of decoded graphs
 * that uses them is graph_cache.c. */
#include "workload/graph_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "workload/sha256.h"
#include "workload/wl_error.h"


#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* Linux's; elsewhere pages come as they are read */
#endif

/* The SHA-256 of the file at PATH read in pieces (a file that cannot be
 * mapped). */
static char *
file_sha256_read (const char *path, GError **error)
{
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

/* Files up to this size are read into the heap rather than mapped: a
 * small trace (a collective's, a few KiB) costs a mapping, its page-table
 * entries and an unmapping that, with the loading threads running,
 * interrupts every processor the process runs on to flush its TLB.  On
 * the 1,024 ranks of a ring all-reduce (4.5 KB each, every file also read
 * again to be compared) mapping took 0.16 s of system time, four times
 * the user time of the whole loading.  Larger files too: hashing and
 * comparing a mapped file's bytes costs a TLB miss every 4 KiB page, and
 * on this project's virtual machine that made hashing the 1,024 traces of
 * 3.3 MB of Megatron's 1T model at DP 2 take 2.06 s of user time against
 * 0.25 s read into a buffer used again (scripts/bench's shape; measured
 * with a loop over the files, /usr/bin/time).  Files over
 * IMAGE_READ_MAX are mapped: a copy of them would double their memory. */
#define IMAGE_READ_MAX ((guint64) 64 << 20)

/* Buffers over glibc's threshold for mapping an allocation (128 KiB) are
 * kept for the next read (POOL_N of them, POOL_BYTES in all): a new one
 * each time costs a mapping and a fault per page, as much as mapping the
 * file.  Under it, freed buffers are reused without new pages.  Loading
 * holds up to 48 MiB of files' bytes at once (graph_cache.c's KEPT_KIB):
 * the pool holds as much. */
#define POOL_MIN ((gsize) 128 << 10)
#define POOL_N 64
#define POOL_BYTES ((gsize) 48 << 20)
#define POOL_STEP ((gsize) 256 << 10)

/* pthread's, not GLib's, as graph_cache.c's (ThreadSanitizer sees it). */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct
{
  guint8 *buf;
  gsize cap;
} pool[POOL_N];
static guint pool_n;
static gsize pool_bytes; /* the CAPs of the pool's buffers, summed */

/* A buffer of LEN bytes or more into *CAP (its size), from the pool when
 * one there is large enough; NULL when memory is short. */
static guint8 *
buffer_take (gsize len, gsize *cap)
{
  *cap = len;
  if (len <= POOL_MIN)
    return g_try_malloc (len);
  /* In steps of 256 KiB: files of a set differ in length by a little
   * (Megatron's stages by a few KiB), and each buffer serves them all. */
  len = (len + POOL_STEP - 1) & ~(POOL_STEP - 1);
  *cap = len;
  pthread_mutex_lock (&pool_lock);
  guint best = pool_n;
  for (guint k = 0; k < pool_n; k++)
    if (pool[k].cap >= len && (best == pool_n || pool[k].cap < pool[best].cap))
      best = k;
  guint8 *buf = NULL;
  if (best < pool_n)
    {
      buf = pool[best].buf;
      *cap = pool[best].cap;
      pool_bytes -= pool[best].cap;
      pool[best] = pool[--pool_n];
    }
  pthread_mutex_unlock (&pool_lock);
  return buf != NULL ? buf : g_try_malloc (len);
}

/* BUF (CAP bytes) back to the pool, or freed. */
static void
buffer_give (guint8 *buf, gsize cap)
{
  if (buf == NULL)
    return;
  if (cap > POOL_MIN && cap <= POOL_BYTES)
    {
      pthread_mutex_lock (&pool_lock);
      /* A full pool lets its smallest buffers go for a larger one. */
      for (;;)
        {
          guint small = 0;
          for (guint k = 1; k < pool_n; k++)
            if (pool[k].cap < pool[small].cap)
              small = k;
          if (pool_n < POOL_N && pool_bytes + cap <= POOL_BYTES)
            {
              pool[pool_n].buf = buf;
              pool[pool_n++].cap = cap;
              pool_bytes += cap;
              buf = NULL;
              break;
            }
          if (pool_n == 0 || pool[small].cap >= cap)
            break;
          g_free (pool[small].buf);
          pool_bytes -= pool[small].cap;
          pool[small] = pool[--pool_n];
        }
      pthread_mutex_unlock (&pool_lock);
    }
  g_free (buf);
}

void
wl_file_image_pool_drain (void)
{
  pthread_mutex_lock (&pool_lock);
  for (guint k = 0; k < pool_n; k++)
    g_free (pool[k].buf);
  pool_n = 0;
  pool_bytes = 0;
  pthread_mutex_unlock (&pool_lock);
}

/* Bytes read at a time: each piece is hashed while it is still in the
 * processor's cache, not read again from memory afterwards. */
#define READ_PIECE ((gsize) 256 << 10)

/* LEN bytes of FD into IMG's heap copy, and their hash into IMG->hash
 * when HASH; IMG->bytes stays NULL when they cannot be read (the loader
 * reads the file itself, and says why). */
static void
image_read (WlFileImage *img, int fd, gsize len, gboolean hash)
{
  gsize cap;
  guint8 *buf = buffer_take (len, &cap);
  gsize got = 0, fed = 0;
  WlBytesHash h;
  wl_bytes_hash_init (&h);
  while (buf != NULL && got < len)
    {
      ssize_t n = pread (fd, buf + got, MIN (len - got, READ_PIECE), (off_t) got);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      got += (gsize) n;
      if (hash)
        {
          gsize upto = got & ~(WL_BYTES_HASH_BLOCK - 1);
          wl_bytes_hash_feed (&h, buf + fed, upto - fed);
          fed = upto;
        }
    }
  if (buf == NULL || got < len)
    {
      buffer_give (buf, cap);
      return;
    }
  img->heap = buf;
  img->cap = cap;
  img->bytes = buf;
  img->len = len;
  if (hash)
    {
      img->hash = wl_bytes_hash_end (&h, buf, len);
      img->hashed = TRUE;
    }
}

/* Map PATH into IMG (zeroed first), or read it when small; IMG->bytes
 * stays NULL for a file that cannot be mapped or read (empty).  FALSE with
 * ERROR set when it cannot be opened or is not a regular file. */
static gboolean
image_load (WlFileImage *img, const char *path, gboolean hash, GError **error)
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
  struct stat st;
  if (!wl_file_check_regular_stat (fd, path, &st, error))
    {
      close (fd);
      return FALSE;
    }
  gboolean regular = st.st_size > 0;
  if (regular && (guint64) st.st_size <= IMAGE_READ_MAX)
    image_read (img, fd, (gsize) st.st_size, hash);
  else if (regular && (guint64) st.st_size <= (guint64) G_MAXSIZE)
    {
      /* Every byte is read: its pages made at once, not a fault each. */
      void *map = mmap (NULL, (gsize) st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
                        0);
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
wl_file_image_map (WlFileImage *img, const char *path, GError **error)
{
  return image_load (img, path, FALSE, error);
}

gboolean
wl_file_image_open (WlFileImage *img, const char *path, GError **error)
{
  g_return_val_if_fail (img != NULL && path != NULL, FALSE);
  if (!image_load (img, path, TRUE, error))
    return FALSE;
  if (img->bytes != NULL && !img->hashed)
    img->hash = wl_bytes_hash (img->bytes, img->len);
  return TRUE;
}

char *
wl_file_sha256 (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_auto (WlFileImage) img = { 0 };
  if (!wl_file_image_map (&img, path, error))
    return NULL;
  if (img.bytes == NULL)
    return file_sha256_read (path, error);
  return wl_sha256_hex (img.bytes, img.len);
}

void
wl_file_image_clear (WlFileImage *img)
{
  g_return_if_fail (img != NULL);
  if (img->map != NULL)
    munmap (img->map, img->len);
  buffer_give (img->heap, img->cap);
  *img = (WlFileImage) { 0 };
}

gboolean
wl_file_image_same (const WlFileImage *img, const char *path)
{
  g_return_val_if_fail (img != NULL && path != NULL, FALSE);
  if (img->bytes == NULL)
    return FALSE;
  WlFileImage b;
  GError *e = NULL;
  if (!wl_file_image_map (&b, path, &e))
    {
      g_clear_error (&e);
      return FALSE;
    }
  gboolean same = b.bytes != NULL && b.len == img->len
                  && memcmp (b.bytes, img->bytes, img->len) == 0;
  wl_file_image_clear (&b);
  return same;
}
