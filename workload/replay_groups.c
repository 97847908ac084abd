/* replay_groups.c: binding the traces' process groups to the system
 * layer's, and pointing each collective at the group it runs on. */
#include <string.h>

#include "workload/replay_private.h"
#include "workload/wl_error.h"

/* Whether A and B define the same groups with the very same rank arrays
 * (files whose METADATA lists the group memo shared, group_memo.h). */
static gboolean
same_defs (const GArray *a, const GArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint j = 0; j < a->len; j++)
    {
      const WlGroupDef *x = &g_array_index (a, WlGroupDef, j);
      const WlGroupDef *y = &g_array_index (b, WlGroupDef, j);
      if (x->id != y->id || x->ranks != y->ranks)
        return FALSE;
    }
  return TRUE;
}

/* The first definition of group ID in R's traces, in the order they are
 * bound (the one DEFS holds); its file into *PATH. */
static const WlGroupDef *
first_def (const WlReplay *r, guint64 id, const char **path)
{
  for (guint i = 0; i < r->traces->len; i++)
    {
      const WlTrace *t = &g_array_index (r->traces, WlTrace, i);
      for (guint j = 0; j < t->group_defs->len; j++)
        {
          const WlGroupDef *d = &g_array_index (t->group_defs, WlGroupDef, j);
          if (d->id == id)
            {
              *path = t->path;
              return d;
            }
        }
    }
  g_return_val_if_reached (NULL);
}

/* The group D of the trace PATH defined with other ranks than before:
 * where, and where first. */
static gboolean
conflict_error (const WlReplay *r, const char *path, const WlGroupDef *d, GError **error)
{
  const char *first_path = NULL;
  const WlGroupDef *f = first_def (r, d->id, &first_path);
  if (first_path == path)
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                 "%s: node %" G_GUINT64_FORMAT ": METADATA defines process group %" G_GUINT64_FORMAT
                 " twice, with other ranks (node %" G_GUINT64_FORMAT " first)",
                 path, d->node, d->id, f->node);
  else
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                 "%s: node %" G_GUINT64_FORMAT ": METADATA defines process group %" G_GUINT64_FORMAT
                 " with other ranks than %s (node %" G_GUINT64_FORMAT ")",
                 path, d->node, d->id, first_path, f->node);
  return FALSE;
}

/* Every trace's METADATA groups into DEFS (id -> rank array), each id once;
 * an id defined differently by two traces is an error.  Generated traces
 * all carry the run's whole list, so a trace whose list is the one before
 * it (the same arrays) is skipped after a pointer comparison per group:
 * linear in the groups of the files, never in traces x ranks. */
static gboolean
collect_groups (WlReplay *r, const WlGroups *groups, GHashTable *defs, GError **error)
{
  for (guint i = 0; i < r->traces->len; i++)
    {
      const WlTrace *t = &g_array_index (r->traces, WlTrace, i);
      const char *path = t->path;
      const GArray *gdefs = t->group_defs;
      if (i > 0 && same_defs (gdefs, g_array_index (r->traces, WlTrace, i - 1).group_defs))
        continue;
      for (guint j = 0; j < gdefs->len; j++)
        {
          const WlGroupDef *d = &g_array_index (gdefs, WlGroupDef, j);
          if (groups != NULL && wl_groups_lookup (groups, d->id, NULL) != NULL)
            continue;
          GArray *prev = g_hash_table_lookup (defs, &d->id);
          if (prev == NULL)
            {
              g_hash_table_insert (defs, (gpointer) &d->id, d->ranks);
              continue;
            }
          if (prev != d->ranks
              && (prev->len != d->ranks->len
                  || memcmp (prev->data, d->ranks->data, prev->len * sizeof (guint32)) != 0))
            return conflict_error (r, path, d, error);
        }
    }
  return TRUE;
}

/* Whether RANKS[0 .. N-1] (each below n_ranks) is every rank: decided by
 * the set, not the count.  Empty also means every rank (Chakra's own
 * convention for the world group). */
static gboolean
covers_all (const WlReplay *r, const guint32 *ranks, guint n)
{
  if (n == 0)
    return TRUE;
  if (n < r->n_ranks)
    return FALSE;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n; i++)
    g_hash_table_add (seen, GUINT_TO_POINTER (ranks[i] + 1u));
  return g_hash_table_size (seen) == r->n_ranks;
}

/* A group of every rank is the world (no registration) unless the
 * collectives use another id of every rank (SHARE_WORLD false): then it is
 * a group of its own, so that two such groups never match each other's
 * collectives. */
static gboolean
register_group (WlReplay *r, guint64 id, const guint32 *ranks, guint n, gboolean share_world,
                GHashTable *world, GError **error)
{
  if (!covers_all (r, ranks, n))
    return sys_group_add (r->sys, id, ranks, n, error);
  if (share_world)
    {
      g_hash_table_add (world, g_memdup2 (&id, sizeof id));
      return TRUE;
    }
  if (n > 0)
    return sys_group_add (r->sys, id, ranks, n, error);
  g_autofree guint32 *every = g_new (guint32, r->n_ranks);
  for (guint32 i = 0; i < r->n_ranks; i++)
    every[i] = i;
  return sys_group_add (r->sys, id, every, r->n_ranks, error);
}

/* Whether the traces' collectives use at most one id of DEFS and GROUPS
 * whose ranks are every rank: that one is the world, shared with the
 * collectives that name no group.  Two or more are communicators of their
 * own (on NCCL, collectives on one never match those on another). */
static gboolean
one_world (const WlReplay *r, const WlGroups *groups, GHashTable *defs)
{
  g_autoptr (GHashTable) whole = g_hash_table_new (g_int64_hash, g_int64_equal);
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init (&it, defs);
  while (g_hash_table_iter_next (&it, &key, &val))
    if (covers_all (r, (const guint32 *) ((GArray *) val)->data, ((GArray *) val)->len))
      g_hash_table_add (whole, key);
  g_autoptr (GArray) gids = groups != NULL ? wl_groups_ids (groups) : NULL;
  for (guint i = 0; gids != NULL && i < gids->len; i++)
    {
      guint n = 0;
      const guint32 *ranks = wl_groups_lookup (groups, g_array_index (gids, guint64, i), &n);
      if (covers_all (r, ranks, n))
        g_hash_table_add (whole, &g_array_index (gids, guint64, i));
    }
  g_autoptr (GHashTable) used = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < r->traces->len && g_hash_table_size (whole) > 1; i++)
    {
      const WlTrace *t = &g_array_index (r->traces, WlTrace, i);
      for (guint j = 0; j < t->check->colls->len; j++)
        {
          guint64 *id = &g_array_index (t->check->colls, WlCollGroup, j).group;
          if (g_hash_table_contains (whole, id))
            g_hash_table_add (used, id);
        }
    }
  return g_hash_table_size (used) <= 1;
}

/* The system group that collectives naming group ID run on, or FALSE with
 * ERROR set (naming PATH and NODE, the first node using ID) when ID is
 * not defined. */
static gboolean
system_group (const WlGroups *groups, GHashTable *defs, GHashTable *world, guint64 id,
              const char *path, guint64 node, guint64 *out, GError **error)
{
  if (id == WL_GROUP_ALL || g_hash_table_contains (world, &id))
    *out = SYS_GROUP_WORLD;
  else if ((groups != NULL && wl_groups_lookup (groups, id, NULL) != NULL)
           || g_hash_table_contains (defs, &id))
    *out = id;
  else if (id == 0)
    *out = SYS_GROUP_WORLD; /* an undefined "0" means all ranks */
  else
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: node %" G_GUINT64_FORMAT ": process group %" G_GUINT64_FORMAT
                   " (pg_name) is not defined by --comm-groups, the config or a "
                   "METADATA node",
                   path, node, id);
      return FALSE;
    }
  return TRUE;
}

/* The index of system group ID in r->sys_groups, adding it the first
 * time; INDEX (guint64* -> GUINT_TO_POINTER) finds it. */
static guint
sys_group_index (WlReplay *r, GHashTable *index, guint64 id)
{
  gpointer at;
  if (g_hash_table_lookup_extended (index, &id, NULL, &at))
    return GPOINTER_TO_UINT (at);
  guint i = r->sys_groups->len;
  g_array_append_val (r->sys_groups, id);
  g_hash_table_insert (index, g_memdup2 (&id, sizeof id), GUINT_TO_POINTER (i));
  return i;
}

/* Map each group id the traces' collectives use to the system group it
 * runs on (checking, in the order of first use, that it is defined, so
 * that the first undefined one is the first node's), and point every
 * rank's collectives at it.  Trace ids that name the same system group
 * share its index, so that comparing indices compares system groups. */
static gboolean
resolve_node_groups (WlReplay *r, const WlGroups *groups, GHashTable *defs, GHashTable *world,
                     GError **error)
{
  if (r->group_map != NULL)
    g_hash_table_unref (r->group_map);
  if (r->sys_groups != NULL)
    g_array_unref (r->sys_groups);
  r->group_map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->sys_groups = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint i = 0; i < r->traces->len; i++)
    {
      const WlTrace *t = &g_array_index (r->traces, WlTrace, i);
      for (guint j = 0; j < t->check->colls->len; j++)
        {
          const WlCollGroup *cg = &g_array_index (t->check->colls, WlCollGroup, j);
          guint64 to;
          if (!system_group (groups, defs, world, cg->group, t->path, cg->node, &to, error))
            return FALSE;
          guint at = sys_group_index (r, index, to);
          g_hash_table_replace (r->group_map, g_memdup2 (&cg->group, sizeof cg->group),
                                GUINT_TO_POINTER (at));
        }
    }
  for (guint32 i = 0; i < r->n_ranks; i++)
    r->ranks[i].src->klass->resolve (r->ranks[i].src, r->group_map);
  return TRUE;
}

guint64
wl_replay_node_group (const WlReplay *r, const WlNode *n)
{
  g_return_val_if_fail (n != NULL && n->op == WL_OP_COLL, SYS_GROUP_WORLD);
  return wl_replay_group_at (r, n->sys_group_index);
}

guint64
wl_replay_group_at (const WlReplay *r, guint32 sys_group_index)
{
  g_return_val_if_fail (r != NULL && r->sys_groups != NULL, SYS_GROUP_WORLD);
  g_return_val_if_fail (sys_group_index < r->sys_groups->len, SYS_GROUP_WORLD);
  return g_array_index (r->sys_groups, guint64, sys_group_index);
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* The error for GROUPS (--comm-groups, the cluster's <groups>) naming a
 * rank past the last of N_RANKS: the lowest group id that does, and the
 * highest rank it names, so that the user finds the line to mend. */
static gboolean
out_of_range_group (const WlGroups *groups, guint32 n_ranks, GError **error)
{
  g_autoptr (GArray) ids = wl_groups_ids (groups); /* ascending */
  for (guint i = 0; i < ids->len; i++)
    {
      guint64 id = g_array_index (ids, guint64, i);
      guint n = 0;
      const guint32 *ranks = wl_groups_lookup (groups, id, &n);
      guint32 top = 0;
      for (guint j = 0; j < n; j++)
        top = MAX (top, ranks[j]);
      if (n > 0 && top >= n_ranks)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "process group %" G_GUINT64_FORMAT " (--comm-groups or the cluster's "
                       "<groups>) names rank %u, but the run has %u ranks (0-%u)",
                       id, top, n_ranks, n_ranks - 1);
          return FALSE;
        }
    }
  g_return_val_if_reached (FALSE);
}

gboolean
wl_replay_bind_groups (WlReplay *r, const WlGroups *groups, GError **error)
{
  g_return_val_if_fail (r != NULL, FALSE);
  g_autoptr (GHashTable) defs = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GHashTable) world = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  if (!collect_groups (r, groups, defs, error))
    return FALSE;
  if (groups != NULL && wl_groups_max_rank (groups) >= (gint64) r->n_ranks)
    return out_of_range_group (groups, r->n_ranks, error);
  /* Register in id order so that nothing depends on hash order. */
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, defs);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_array_append_vals (ids, key, 1);
  g_array_sort (ids, cmp_u64);
  for (guint i = 0; i < ids->len; i++)
    {
      guint64 id = g_array_index (ids, guint64, i);
      GArray *ranks = g_hash_table_lookup (defs, &id);
      for (guint j = 0; j < ranks->len; j++)
        if (g_array_index (ranks, guint32, j) >= r->n_ranks)
          {
            const char *path = NULL;
            const WlGroupDef *d = first_def (r, id, &path);
            g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                         "%s: node %" G_GUINT64_FORMAT ": METADATA process group %" G_GUINT64_FORMAT
                         " names rank %u, but there are %u ranks", path, d->node, id,
                         g_array_index (ranks, guint32, j), r->n_ranks);
            return FALSE;
          }
    }
  gboolean share = one_world (r, groups, defs);
  for (guint i = 0; i < ids->len; i++)
    {
      guint64 id = g_array_index (ids, guint64, i);
      GArray *ranks = g_hash_table_lookup (defs, &id);
      if (!register_group (r, id, (const guint32 *) ranks->data, ranks->len, share, world, error))
        return FALSE;
    }
  g_autoptr (GArray) gids = groups != NULL ? wl_groups_ids (groups) : NULL;
  for (guint i = 0; gids != NULL && i < gids->len; i++)
    {
      guint64 id = g_array_index (gids, guint64, i);
      guint n = 0;
      const guint32 *ranks = wl_groups_lookup (groups, id, &n);
      if (!register_group (r, id, ranks, n, share, world, error))
        return FALSE;
    }
  return resolve_node_groups (r, groups, defs, world, error);
}
