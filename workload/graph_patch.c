/* graph_patch.c: compact renamed graphs, which hold only the nodes whose
 * names differ from their base's (graph.h, "Compact renamed graphs"). */
#include "workload/graph.h"

#include <string.h>

#include "workload/wl_error.h"

/* Patches a hint may step over one by one before a search. */
#define HINT_STEPS 8

/* The position of the first patch of G at index V or after, from *HINT. */
static guint32
patch_find (const WlGraph *g, guint32 v, guint32 *hint)
{
  const WlNodePatch *p = g->patches;
  guint32 lo = 0, hi = g->n_patches;
  if (hint != NULL && *hint <= hi && (*hint == 0 || p[*hint - 1].index < v))
    {
      lo = *hint;
      for (guint32 k = 0; k < HINT_STEPS && lo < hi && p[lo].index < v; k++)
        lo++;
      /* A walk of rising V finds it here: no search (the classes' checks
       * walk every node of every rank); else it lies near: galloping
       * bounds it in steps doubling from the hint (a walk over sends and
       * receives steps over the collectives' patches between them). */
      if (lo == hi || p[lo].index >= v)
        hi = lo;
      else
        {
          /* P[LO] lies before V throughout. */
          guint32 step = 1;
          while (lo + step < hi && p[lo + step].index < v)
            {
              lo += step;
              step *= 2;
            }
          if (lo + step < hi)
            hi = lo + step + 1; /* P[LO + STEP] does not */
        }
    }
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;
      if (p[mid].index < v)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (hint != NULL)
    *hint = lo;
  return lo;
}

/* N with patch P's names. */
static void
patch_apply (const WlNodePatch *p, WlNode *n)
{
  if (n->op == WL_OP_COLL)
    {
      n->group = p->group;
      n->root = p->a;
      n->sys_group_index = p->b;
    }
  else
    {
      n->peer_src = p->a;
      n->peer_dst = p->b;
    }
}

const WlNode *
wl_graph_node_at (const WlGraph *g, guint32 v, guint32 *hint, WlNode *tmp)
{
  if (g->nodes != NULL)
    return &g->nodes[v];
  const WlNode *n = &g->base->nodes[v];
  if (g->table != NULL)
    return wl_rename_apply (g, v, n, tmp) ? tmp : n;
  guint32 at = patch_find (g, v, hint);
  if (at >= g->n_patches || g->patches[at].index != v)
    return n;
  *tmp = *n;
  patch_apply (&g->patches[at], tmp);
  return tmp;
}

guint32
wl_graph_group_index_at (const WlGraph *g, guint32 v, guint32 *hint)
{
  if (g->nodes != NULL)
    return g->nodes[v].sys_group_index;
  const WlNode *n = &g->base->nodes[v];
  g_return_val_if_fail (n->op == WL_OP_COLL, n->sys_group_index);
  if (g->table != NULL)
    {
      /* wl_rename_apply's index: the table's where it maps the slot. */
      guint32 a = g->base->slots->slot[(gsize) 2 * v];
      guint32 sys = g->table->sys_to[a];
      return sys != WL_NO_SLOT ? sys : n->sys_group_index;
    }
  guint32 at = patch_find (g, v, hint);
  return at < g->n_patches && g->patches[at].index == v ? g->patches[at].b : n->sys_group_index;
}

guint32
wl_graph_root_at (const WlGraph *g, guint32 v, guint32 *hint)
{
  if (g->nodes != NULL)
    return g->nodes[v].root;
  const WlNode *n = &g->base->nodes[v];
  if (n->op != WL_OP_COLL)
    return n->root; /* renames name a collective's root only */
  if (g->table != NULL)
    {
      /* wl_rename_apply's root: the table's rank where it maps the slot. */
      guint32 b = g->base->slots->slot[(gsize) 2 * v + 1];
      return b != WL_NO_SLOT ? g->table->rank_to[b] : n->root;
    }
  guint32 at = patch_find (g, v, hint);
  return at < g->n_patches && g->patches[at].index == v ? g->patches[at].a : n->root;
}

GArray *
wl_graph_group_firsts (const WlGraph *base)
{
  g_return_val_if_fail (base != NULL && base->nodes != NULL && base->slots != NULL, NULL);
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      const WlNode *n = &base->nodes[v];
      if (n->op != WL_OP_COLL)
        continue;
      /* The slot picks the table's index; the base's when it maps none. */
      guint64 key = (guint64) base->slots->slot[(gsize) 2 * v] << 32 | n->sys_group_index;
      if (g_hash_table_contains (seen, &key))
        continue;
      g_hash_table_add (seen, g_memdup2 (&key, sizeof key));
      g_array_append_val (out, v);
    }
  return out;
}

const WlNode *
wl_graph_shape_nodes (const WlGraph *g)
{
  return g->nodes != NULL ? g->nodes : g->base->nodes;
}

gboolean
wl_graph_expand (WlGraph *g, GError **error)
{
  if (g->nodes != NULL)
    return TRUE;
  WlNode *nodes = wl_graph_nodes_new (g->n_nodes);
  if (nodes == NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: out of memory allocating %u x %zu bytes for the trace's nodes",
                   g->path, g->n_nodes, sizeof (WlNode));
      return FALSE;
    }
  const WlNode *base = g->base->nodes;
  if (g->table != NULL)
    {
      /* One pass: each node is copied once, renamed or as the base's (a
       * whole-array copy first would write every renamed node twice,
       * and most of a tensor-parallel peer's collectives are renamed). */
      for (guint32 v = 0; v < g->n_nodes; v++)
        if (!wl_rename_apply (g, v, &base[v], &nodes[v]))
          memcpy (&nodes[v], &base[v], sizeof (WlNode));
    }
  else if (g->n_nodes > 0)
    memcpy (nodes, base, (gsize) g->n_nodes * sizeof (WlNode));
  for (guint32 k = 0; k < g->n_patches; k++)
    patch_apply (&g->patches[k], &nodes[g->patches[k].index]);
  g->nodes = nodes;
  g_clear_pointer (&g->table, wl_rename_table_free);
  g_clear_pointer (&g->patches, g_free);
  g->n_patches = 0;
  return TRUE;
}

WlGraph *
wl_graph_patched_take (WlGraph *base, const char *path, WlNodePatch *patches, guint32 n)
{
  g_return_val_if_fail (base != NULL && base->base == NULL && base->nodes != NULL, NULL);
  gboolean roots_moved = FALSE;
  for (guint32 k = 0; k < n; k++)
    roots_moved |= base->nodes[patches[k].index].op == WL_OP_COLL
                   && patches[k].a != base->nodes[patches[k].index].root;
  WlGraph *g = wl_graph_derived (base, path, roots_moved);
  g->patches = patches;
  g->n_patches = n;
  return g;
}

void
wl_graph_bind_groups (WlGraph *g, GHashTable *map)
{
  gpointer at;
  for (guint32 k = 0; g->nodes == NULL && k < g->n_patches; k++)
    {
      WlNodePatch *p = &g->patches[k];
      if (g->base->nodes[p->index].op == WL_OP_COLL
          && g_hash_table_lookup_extended (map, &p->group, NULL, &at))
        p->b = GPOINTER_TO_UINT (at);
    }
  const WlNameSlots *s = g->table != NULL ? g->base->slots : NULL;
  for (guint32 k = 0; s != NULL && k < s->n_groups; k++)
    if (g_hash_table_lookup_extended (map, &g->table->group_to[k], NULL, &at))
      g->table->sys_to[k] = GPOINTER_TO_UINT (at);
}
