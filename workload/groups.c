/* groups.c: process groups, a map from group id to a rank list. */
#include "workload/groups.h"

#include <errno.h>
#include <stdlib.h>

#include "sim/error.h"

struct _WlGroups
{
  GHashTable *by_id; /* guint64* -> GArray of guint32 */
  gint64 max_rank;
};

WlGroups *
wl_groups_new (void)
{
  WlGroups *groups = g_new0 (WlGroups, 1);
  groups->by_id = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                         (GDestroyNotify) g_array_unref);
  groups->max_rank = -1;
  return groups;
}

void
wl_groups_free (WlGroups *groups)
{
  if (groups == NULL)
    return;
  g_hash_table_unref (groups->by_id);
  g_free (groups);
}

gboolean
wl_group_id_parse (const char *name, guint64 *id)
{
  if (name == NULL || *name == '\0')
    {
      *id = WL_GROUP_ALL;
      return TRUE;
    }
  if (!g_ascii_isdigit (*name))
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull (name, &end, 10);
  if (errno != 0 || v == WL_GROUP_ALL)
    return FALSE;
  /* "3.0" names group 3; "3.5" names nothing. */
  if (*end == '.')
    {
      end++;
      while (*end == '0')
        end++;
    }
  if (*end != '\0')
    return FALSE;
  *id = v;
  return TRUE;
}

gboolean
wl_group_ranks_check (guint64 id, const guint32 *ranks, guint n, GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n; i++)
    {
      gpointer key = GUINT_TO_POINTER (ranks[i] + 1u);
      if (ranks[i] == G_MAXUINT32 || !g_hash_table_add (seen, key))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "process group %" G_GUINT64_FORMAT " lists rank %u twice", id, ranks[i]);
          return FALSE;
        }
    }
  return TRUE;
}

gboolean
wl_groups_define (WlGroups *groups, guint64 id, const guint32 *ranks, guint n, GError **error)
{
  g_return_val_if_fail (groups != NULL, FALSE);
  if (n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "group %" G_GUINT64_FORMAT " has no ranks",
                   id);
      return FALSE;
    }
  if (g_hash_table_contains (groups->by_id, &id))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "group %" G_GUINT64_FORMAT " is defined twice", id);
      return FALSE;
    }
  if (!wl_group_ranks_check (id, ranks, n, error))
    return FALSE;
  GArray *list = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  g_array_append_vals (list, ranks, n);
  for (guint i = 0; i < n; i++)
    groups->max_rank = MAX (groups->max_rank, (gint64) ranks[i]);
  g_hash_table_insert (groups->by_id, g_memdup2 (&id, sizeof id), list);
  return TRUE;
}

const guint32 *
wl_groups_lookup (const WlGroups *groups, guint64 id, guint *n)
{
  g_return_val_if_fail (groups != NULL, NULL);
  GArray *list = g_hash_table_lookup (groups->by_id, &id);
  if (list == NULL)
    return NULL;
  if (n != NULL)
    *n = list->len;
  return (const guint32 *) list->data;
}

guint
wl_groups_count (const WlGroups *groups)
{
  return g_hash_table_size (groups->by_id);
}

gint64
wl_groups_max_rank (const WlGroups *groups)
{
  return groups->max_rank;
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

GArray *
wl_groups_ids (const WlGroups *groups)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, groups->by_id);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_array_append_vals (ids, key, 1);
  g_array_sort (ids, cmp_u64);
  return ids;
}
