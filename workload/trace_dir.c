/* trace_dir.c: which files of a trace set exist, from one listing of its
 * directory (see trace_dir.h). */
#include "workload/trace_dir.h"

#include <dirent.h>
#include <string.h>

/* What the listing says of a name. */
enum
{
  TRACE_DIR_HAS = 1, /* it exists */
  TRACE_DIR_ASK = 2  /* a link, or of a type readdir did not say: ask */
};

struct _WlTraceDir
{
  char *prefix;
  gsize off;          /* where the last path component of prefix starts */
  GHashTable *names;  /* name in the directory -> TRACE_DIR_*; NULL: not listed */
};

/* Read the directory DIR_PATH's names that start with BASE followed by a
 * dot into a new table, or NULL when it cannot be read or holds more than
 * LIMIT entries. */
static GHashTable *
trace_dir_list (const char *dir_path, const char *base, guint64 limit)
{
  DIR *d = opendir (dir_path);
  if (d == NULL)
    return NULL;
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gsize base_len = strlen (base);
  guint64 seen = 0;
  const struct dirent *e;
  while ((e = readdir (d)) != NULL)
    {
      if (++seen > limit)
        {
          g_clear_pointer (&names, g_hash_table_destroy);
          break;
        }
      if (strncmp (e->d_name, base, base_len) != 0 || e->d_name[base_len] != '.')
        continue;
      guint what = e->d_type == DT_LNK || e->d_type == DT_UNKNOWN ? TRACE_DIR_ASK
                                                                  : TRACE_DIR_HAS;
      g_hash_table_insert (names, g_strdup (e->d_name), GUINT_TO_POINTER (what));
    }
  closedir (d);
  return names;
}

/* List DIR's directory, giving up past LIMIT entries. */
static void
trace_dir_fill (WlTraceDir *dir, guint64 limit)
{
  g_autofree char *dir_path = dir->off > 0 ? g_strndup (dir->prefix, dir->off) : g_strdup (".");
  dir->names = trace_dir_list (dir_path, dir->prefix + dir->off, limit);
}

WlTraceDir *
wl_trace_dir_new (const char *prefix, guint32 files)
{
  g_return_val_if_fail (prefix != NULL, NULL);
  WlTraceDir *dir = g_new0 (WlTraceDir, 1);
  dir->prefix = g_strdup (prefix);
  const char *slash = strrchr (prefix, '/');
  dir->off = slash != NULL ? (gsize) (slash - prefix) + 1 : 0;
  if (files >= WL_TRACE_DIR_MIN_FILES)
    trace_dir_fill (dir, (guint64) files * WL_TRACE_DIR_MAX_ENTRIES + 64);
  return dir;
}

/* The rank N of a set file's NAME (BASE.N.et or BASE.N.json, N in decimal
 * without leading zeros, as the set's files are named; a number past
 * G_MAXUINT32, however long, is G_MAXUINT32 + 1, past any rank), or -1. */
static gint64
trace_dir_rank (const char *name, gsize base_len)
{
  const char *p = name + base_len + 1, *q = p;
  guint64 n = 0;
  for (; g_ascii_isdigit (*q); q++)
    n = n > G_MAXUINT32 ? n : n * 10 + (guint64) (*q - '0');
  if (q == p || (*p == '0' && q - p > 1)
      || (strcmp (q, ".et") != 0 && strcmp (q, ".json") != 0))
    return -1;
  return (gint64) MIN (n, (guint64) G_MAXUINT32 + 1);
}

/* Whether the set file A (rank RA) comes before B (rank RB): the lower
 * number, and of one number's two forms the .et.  Numbers past
 * G_MAXUINT32 share a rank: of those the shorter is the lower, and of as
 * long byte order is numeric order. */
static gboolean
trace_dir_before (const char *a, gint64 ra, const char *b, gint64 rb, gsize base_len)
{
  if (ra != rb)
    return ra < rb;
  gsize da = strspn (a + base_len + 1, "0123456789");
  gsize db = strspn (b + base_len + 1, "0123456789");
  return da != db ? da < db : strcmp (a, b) < 0;
}

char *
wl_trace_dir_past (WlTraceDir *dir, guint32 ranks)
{
  g_return_val_if_fail (dir != NULL, NULL);
  /* However many entries: the question is asked once a load, and a stray
   * must not pass because the directory is crowded. */
  if (dir->names == NULL)
    trace_dir_fill (dir, G_MAXUINT64);
  if (dir->names == NULL)
    return NULL;
  gsize base_len = strlen (dir->prefix + dir->off);
  const char *first = NULL;
  gint64 first_rank = -1;
  GHashTableIter it;
  gpointer key, what;
  g_hash_table_iter_init (&it, dir->names);
  while (g_hash_table_iter_next (&it, &key, &what))
    {
      gint64 r = trace_dir_rank (key, base_len);
      /* The lowest, so that the answer does not hang on the table's order. */
      if (r < ranks || (first != NULL && !trace_dir_before (key, r, first, first_rank, base_len)))
        continue;
      if (GPOINTER_TO_UINT (what) == TRACE_DIR_ASK)
        {
          g_autofree char *path = g_strconcat (dir->prefix, (const char *) key + base_len, NULL);
          if (!g_file_test (path, G_FILE_TEST_EXISTS)) /* a dangling link */
            continue;
        }
      first = key;
      first_rank = r;
    }
  return first != NULL ? g_strconcat (dir->prefix, first + base_len, NULL) : NULL;
}

void
wl_trace_dir_free (WlTraceDir *dir)
{
  if (dir == NULL)
    return;
  if (dir->names != NULL)
    g_hash_table_destroy (dir->names);
  g_free (dir->prefix);
  g_free (dir);
}

gboolean
wl_trace_dir_listed (const WlTraceDir *dir)
{
  g_return_val_if_fail (dir != NULL, FALSE);
  return dir->names != NULL;
}

gboolean
wl_trace_dir_exists (const WlTraceDir *dir, const char *path)
{
  g_return_val_if_fail (path != NULL, FALSE);
  if (dir == NULL || dir->names == NULL || !g_str_has_prefix (path, dir->prefix))
    return g_file_test (path, G_FILE_TEST_EXISTS);
  const char *name = path + dir->off;
  const char *base = dir->prefix + dir->off;
  gsize base_len = strlen (base);
  /* Only the set's own names were kept: any other is asked. */
  if (strncmp (name, base, base_len) != 0 || name[base_len] != '.' || strchr (name, '/') != NULL)
    return g_file_test (path, G_FILE_TEST_EXISTS);
  guint what = GPOINTER_TO_UINT (g_hash_table_lookup (dir->names, name));
  if (what == TRACE_DIR_ASK)
    return g_file_test (path, G_FILE_TEST_EXISTS);
  return what == TRACE_DIR_HAS;
}
