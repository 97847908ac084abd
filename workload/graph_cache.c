/* graph_cache.c: one graph per distinct trace file, found by content. */
#include "workload/graph_cache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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

gboolean
wl_file_image_open (WlFileImage *img, const char *path, GError **error)
{
  g_return_val_if_fail (img != NULL && path != NULL, FALSE);
  *img = (WlFileImage) { 0 };
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "Failed to open file \u201c%s\u201d: %s",
                   path, g_strerror (errsv));
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

struct _WlGraphCache
{
  GHashTable *by_digest; /* sha256 hex -> WlGraph* (one reference) */
  WlGroupMemo *groups;   /* METADATA group lists of every file loaded */
  guint64 bytes;         /* wl_graph_cache_bytes */
  gboolean lenient;
};

WlGraphCache *
wl_graph_cache_new_full (gboolean lenient)
{
  WlGraphCache *c = g_new0 (WlGraphCache, 1);
  c->lenient = lenient;
  c->groups = wl_group_memo_new ();
  c->by_digest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                        (GDestroyNotify) wl_graph_unref);
  return c;
}

void
wl_graph_cache_free (WlGraphCache *c)
{
  if (c == NULL)
    return;
  g_hash_table_unref (c->by_digest);
  wl_group_memo_free (c->groups);
  g_free (c);
}

WlGraph *
wl_graph_cache_load_limited (WlGraphCache *c, const char *path, guint64 limit, gboolean *over,
                             GError **error)
{
  if (over != NULL)
    *over = FALSE;
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
  WlGraphLoad req = { .path = path, .lenient = c->lenient, .limit = limit, .over = over,
                      .bytes = img.bytes, .n_bytes = img.len, .group_memo = c->groups };
  g = wl_graph_load_request (&req, error);
  if (g != NULL)
    {
      g->sha256 = g_steal_pointer (&img.sha256);
      g_hash_table_insert (c->by_digest, g_strdup (g->sha256), wl_graph_ref (g));
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
