/* graph_cache.c: one graph per distinct trace file, found by content. */
#include "workload/graph_cache.h"

#include <errno.h>
#include <stdio.h>

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

struct _WlGraphCache
{
  GHashTable *by_digest; /* sha256 hex -> WlGraph* (one reference) */
  gboolean lenient;
};

WlGraphCache *
wl_graph_cache_new_full (gboolean lenient)
{
  WlGraphCache *c = g_new0 (WlGraphCache, 1);
  c->lenient = lenient;
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
  g_free (c);
}

WlGraph *
wl_graph_cache_load_limited (WlGraphCache *c, const char *path, guint64 limit, gboolean *over,
                             GError **error)
{
  if (over != NULL)
    *over = FALSE;
  char *digest = wl_file_sha256 (path, error);
  if (digest == NULL)
    return NULL;
  WlGraph *g = g_hash_table_lookup (c->by_digest, digest);
  if (g != NULL)
    {
      g_free (digest);
      return wl_graph_ref (g);
    }
  g = wl_graph_load_limited (path, c->lenient, limit, over, error);
  if (g == NULL)
    {
      g_free (digest);
      return NULL;
    }
  g->sha256 = g_strdup (digest);
  g_hash_table_insert (c->by_digest, digest, wl_graph_ref (g));
  return g;
}

guint
wl_graph_cache_distinct (const WlGraphCache *c)
{
  return g_hash_table_size (c->by_digest);
}

