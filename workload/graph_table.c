/* graph_table.c: compact renamed graphs whose names are a map of their
 * base's (a rename table, graph.h "Compact renamed graphs"): no storage
 * per node, so a trace set of thousands of renamed ranks costs a few
 * bytes per rank and name, not 24 per renamed node. */
#include "workload/graph.h"

#include <stdlib.h>
#include <string.h>

#include "workload/wl_error.h"

/* Base graphs' slots are made on first use, possibly by loader threads at
 * once: one lock for all (made once per base, rarely contended). */
G_LOCK_DEFINE_STATIC (slots_lock);

static int
cmp_u32 (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* The slot of RANK among S's ranks (WL_NO_SLOT for WL_RANK_SELF). */
static guint32
rank_slot (const WlNameSlots *s, guint32 rank)
{
  if (rank == WL_RANK_SELF)
    return WL_NO_SLOT;
  const guint32 *at = bsearch (&rank, s->ranks, s->n_ranks, sizeof (guint32), cmp_u32);
  return (guint32) (at - s->ranks);
}

static guint32
group_slot (const WlNameSlots *s, guint64 group)
{
  const guint64 *at = bsearch (&group, s->groups, s->n_groups, sizeof (guint64), cmp_u64);
  return (guint32) (at - s->groups);
}

/* Sort and deduplicate the N values of A (of SIZE bytes each); the count
 * left. */
static guint32
sort_unique (void *a, guint32 n, gsize size, int (*cmp) (const void *, const void *))
{
  if (n == 0)
    return 0;
  qsort (a, n, size, cmp);
  guint8 *p = a;
  guint32 k = 1;
  for (guint32 i = 1; i < n; i++)
    if (cmp (p + (gsize) i * size, p + (gsize) (k - 1) * size) != 0)
      memmove (p + (gsize) k++ * size, p + (gsize) i * size, size);
  return k;
}

static void
slots_free (WlNameSlots *s)
{
  if (s == NULL)
    return;
  g_free (s->ranks);
  g_free (s->groups);
  g_free (s->rank_uses);
  g_free (s->group_uses);
  g_free (s->rank_is_root);
  g_free (s->slot);
  g_free (s->firsts);
  g_free (s);
}

/* Names pushed lately, in a slot by their low bits: a trace names a few
 * ranks and groups over and over, so a name found here is not pushed
 * again (sort_unique then sorts a few, not one per node).  Slot I starts
 * at I + 1, which no name of slot I is. */
#define SEEN_SLOTS 16

typedef struct
{
  guint64 v[SEEN_SLOTS];
} Seen;

static void
seen_init (Seen *seen)
{
  for (guint i = 0; i < SEEN_SLOTS; i++)
    seen->v[i] = i + 1;
}

/* Whether X was met lately; noted as met. */
static inline gboolean
seen_again (Seen *seen, guint64 x)
{
  guint64 *at = &seen->v[x % SEEN_SLOTS];
  if (*at == x)
    return TRUE;
  *at = x;
  return FALSE;
}

/* The distinct names of BASE's nodes into S (ranks and groups, sorted). */
static void
collect_names (const WlGraph *base, WlNameSlots *s)
{
  guint32 nr = 0, ng = 0;
  Seen ranks, groups;
  seen_init (&ranks);
  seen_init (&groups);
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      const WlNode *n = &base->nodes[v];
      if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
        {
          if (n->peer_src != WL_RANK_SELF && !seen_again (&ranks, n->peer_src))
            s->ranks[nr++] = n->peer_src;
          if (n->peer_dst != WL_RANK_SELF && !seen_again (&ranks, n->peer_dst))
            s->ranks[nr++] = n->peer_dst;
        }
      else if (n->op == WL_OP_COLL)
        {
          if (!seen_again (&groups, n->group))
            s->groups[ng++] = n->group;
          if (n->root != WL_RANK_SELF && !seen_again (&ranks, n->root))
            s->ranks[nr++] = n->root;
        }
    }
  s->n_ranks = sort_unique (s->ranks, nr, sizeof (guint32), cmp_u32);
  s->n_groups = sort_unique (s->groups, ng, sizeof (guint64), cmp_u64);
}

/* Each node's slots and each name's uses, once S has the names. */
static void
fill_slots (const WlGraph *base, WlNameSlots *s)
{
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      const WlNode *n = &base->nodes[v];
      guint32 a = WL_NO_SLOT, b = WL_NO_SLOT;
      if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
        {
          a = rank_slot (s, n->peer_src);
          b = rank_slot (s, n->peer_dst);
        }
      else if (n->op == WL_OP_COLL)
        {
          a = group_slot (s, n->group);
          b = rank_slot (s, n->root);
          s->group_uses[a]++;
          if (b != WL_NO_SLOT)
            s->rank_is_root[b] = 1;
        }
      if (n->op != WL_OP_COLL && a != WL_NO_SLOT)
        s->rank_uses[a]++;
      if (b != WL_NO_SLOT)
        s->rank_uses[b]++;
      s->slot[(gsize) 2 * v] = a;
      s->slot[(gsize) 2 * v + 1] = b;
    }
}

/* The nodes that first name each name in each place into S->firsts. */
static void
fill_firsts (const WlGraph *base, WlNameSlots *s)
{
  /* Per place: SEND's peer_src and peer_dst, RECV's, then the groups; the
   * last rank entry of each is WL_RANK_SELF's. */
  guint32 nr = s->n_ranks + 1;
  gsize n_keys = (gsize) 4 * nr + s->n_groups;
  g_autofree guint8 *met = g_new0 (guint8, n_keys + 1);
  s->firsts = g_new (guint32, n_keys + 1);
  s->n_firsts = 0;
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      const WlNode *n = &base->nodes[v];
      guint32 a = s->slot[(gsize) 2 * v], b = s->slot[(gsize) 2 * v + 1];
      gsize ka, kb;
      if (n->op == WL_OP_COLL)
        ka = kb = (gsize) 4 * nr + a;
      else if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
        {
          gsize at = n->op == WL_OP_SEND ? 0 : (gsize) 2 * nr;
          ka = at + (a != WL_NO_SLOT ? a : s->n_ranks);
          kb = at + nr + (b != WL_NO_SLOT ? b : s->n_ranks);
        }
      else
        continue;
      if (met[ka] && met[kb])
        continue;
      met[ka] = met[kb] = 1;
      s->firsts[s->n_firsts++] = v;
    }
}

/* BASE's slots, made now (NULL when the memory cannot be had). */
static WlNameSlots *
slots_new (const WlGraph *base)
{
  WlNameSlots *s = g_new0 (WlNameSlots, 1);
  guint32 named = 0;
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      guint8 op = base->nodes[v].op;
      named += op == WL_OP_SEND || op == WL_OP_RECV || op == WL_OP_COLL;
    }
  s->named = named;
  /* At most two ranks and one group per named node, until deduplicated. */
  s->ranks = g_try_new (guint32, (gsize) 2 * named + 1);
  s->groups = g_try_new (guint64, (gsize) named + 1);
  s->slot = g_try_new (guint32, (gsize) 2 * base->n_nodes + 1);
  if (s->ranks == NULL || s->groups == NULL || s->slot == NULL)
    {
      slots_free (s);
      return NULL;
    }
  collect_names (base, s);
  s->ranks = g_renew (guint32, s->ranks, s->n_ranks + 1);
  s->groups = g_renew (guint64, s->groups, s->n_groups + 1);
  s->rank_uses = g_new0 (guint32, s->n_ranks + 1);
  s->group_uses = g_new0 (guint32, s->n_groups + 1);
  s->rank_is_root = g_new0 (guint8, s->n_ranks + 1);
  fill_slots (base, s);
  fill_firsts (base, s);
  return s;
}

const WlNameSlots *
wl_graph_name_slots (WlGraph *base)
{
  g_return_val_if_fail (base != NULL && base->base == NULL && base->nodes != NULL, NULL);
  G_LOCK (slots_lock);
  if (base->slots == NULL)
    base->slots = slots_new (base);
  WlNameSlots *s = base->slots;
  G_UNLOCK (slots_lock);
  return s;
}

void
wl_graph_name_slots_free (WlNameSlots *slots)
{
  slots_free (slots);
}

WlRenameTable *
wl_rename_table_new (const WlNameSlots *s)
{
  WlRenameTable *t = g_new (WlRenameTable, 1);
  t->rank_to = g_memdup2 (s->ranks, (gsize) s->n_ranks * sizeof (guint32));
  t->group_to = g_memdup2 (s->groups, (gsize) s->n_groups * sizeof (guint64));
  t->sys_to = g_new (guint32, s->n_groups + 1);
  for (guint32 k = 0; k < s->n_groups; k++)
    t->sys_to[k] = WL_NO_SLOT;
  return t;
}

void
wl_rename_table_free (WlRenameTable *t)
{
  if (t == NULL)
    return;
  g_free (t->rank_to);
  g_free (t->group_to);
  g_free (t->sys_to);
  g_free (t);
}

gsize
wl_rename_table_bytes (const WlNameSlots *s)
{
  return sizeof (WlRenameTable) + (gsize) s->n_ranks * sizeof (guint32)
         + (gsize) s->n_groups * (sizeof (guint64) + sizeof (guint32));
}

gboolean
wl_rename_apply (const WlGraph *g, guint32 v, const WlNode *n, WlNode *out)
{
  const WlNameSlots *s = g->base->slots;
  const WlRenameTable *t = g->table;
  guint32 a = s->slot[(gsize) 2 * v], b = s->slot[(gsize) 2 * v + 1];
  if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    {
      guint32 src = a != WL_NO_SLOT ? t->rank_to[a] : n->peer_src;
      guint32 dst = b != WL_NO_SLOT ? t->rank_to[b] : n->peer_dst;
      if (src == n->peer_src && dst == n->peer_dst)
        return FALSE;
      *out = *n;
      out->peer_src = src;
      out->peer_dst = dst;
      return TRUE;
    }
  if (n->op != WL_OP_COLL)
    return FALSE;
  guint32 root = b != WL_NO_SLOT ? t->rank_to[b] : n->root;
  guint32 sys = t->sys_to[a] != WL_NO_SLOT ? t->sys_to[a] : n->sys_group_index;
  if (t->group_to[a] == n->group && root == n->root && sys == n->sys_group_index)
    return FALSE;
  *out = *n;
  out->group = t->group_to[a];
  out->root = root;
  out->sys_group_index = sys;
  return TRUE;
}

WlGraph *
wl_graph_tabled_take (WlGraph *base, const char *path, WlRenameTable *table)
{
  g_return_val_if_fail (base != NULL && base->slots != NULL && table != NULL, NULL);
  const WlNameSlots *s = base->slots;
  gboolean roots_moved = FALSE;
  for (guint32 k = 0; k < s->n_ranks; k++)
    roots_moved |= s->rank_is_root[k] && table->rank_to[k] != s->ranks[k];
  WlGraph *g = wl_graph_derived (base, path, roots_moved);
  g->table = table;
  return g;
}

/* Set rank slot K of T to RANK as one node names it: FALSE when an earlier
 * node gave the slot another rank.  SEEN and USES count what was set. */
static gboolean
map_rank (WlRenameTable *t, guint8 *seen, guint32 *uses, guint32 k, guint32 rank)
{
  if (seen[k] && t->rank_to[k] != rank)
    return FALSE;
  seen[k] = 1;
  t->rank_to[k] = rank;
  uses[k]++;
  return TRUE;
}

/* One patch P of BASE's node N (slots A, B) into T; FALSE where it breaks
 * the map.  SEEN and USES hold the rank slots, then the group slots (from
 * GROUPS_AT). */
static gboolean
map_patch (WlRenameTable *t, guint8 *seen, guint32 *uses, guint32 groups_at,
           const WlNodePatch *p, const WlNode *n, guint32 a, guint32 b)
{
  guint32 n_ranks = 0;
  guint32 ranks[2], slots[2];
  if (n->op == WL_OP_COLL)
    {
      guint32 gk = groups_at + a;
      if (seen[gk] && t->group_to[a] != p->group)
        return FALSE;
      seen[gk] = 1;
      t->group_to[a] = p->group;
      uses[gk]++;
      ranks[n_ranks] = p->a;
      slots[n_ranks++] = b;
    }
  else
    {
      ranks[0] = p->a;
      slots[0] = a;
      ranks[1] = p->b;
      slots[1] = b;
      n_ranks = 2;
    }
  for (guint32 i = 0; i < n_ranks; i++)
    {
      /* WL_RANK_SELF has no slot: it must stay itself. */
      if (slots[i] == WL_NO_SLOT ? ranks[i] != WL_RANK_SELF
                                 : !map_rank (t, seen, uses, slots[i], ranks[i]))
        return FALSE;
    }
  return TRUE;
}

WlRenameTable *
wl_rename_table_from_patches (const WlGraph *base, const WlNodePatch *patches, guint32 n)
{
  return wl_rename_table_over (base, NULL, patches, n);
}

WlRenameTable *
wl_rename_table_over (const WlGraph *base, const WlRenameTable *prev,
                      const WlNodePatch *patches, guint32 n)
{
  const WlNameSlots *s = base->slots;
  guint32 n_slots = s->n_ranks + s->n_groups;
  g_autofree guint8 *seen = g_new0 (guint8, n_slots + 1);
  g_autofree guint32 *uses = g_new0 (guint32, n_slots + 1);
  WlRenameTable *t = wl_rename_table_new (s);
  /* The names of the nodes without a patch: BASE's, or PREV's map of
   * them. */
  const guint32 *rank_at = prev != NULL ? prev->rank_to : s->ranks;
  const guint64 *group_at = prev != NULL ? prev->group_to : s->groups;
  /* An empty map is NULL, which memcpy may not be given even for 0 bytes
   * (a graph of collectives alone names no rank). */
  if (prev != NULL && s->n_ranks > 0)
    memcpy (t->rank_to, rank_at, (gsize) s->n_ranks * sizeof (guint32));
  if (prev != NULL && s->n_groups > 0)
    memcpy (t->group_to, group_at, (gsize) s->n_groups * sizeof (guint64));
  gboolean ok = TRUE;
  for (guint32 k = 0; ok && k < n; k++)
    {
      guint32 v = patches[k].index;
      ok = map_patch (t, seen, uses, s->n_ranks, &patches[k], &base->nodes[v],
                      s->slot[(gsize) 2 * v], s->slot[(gsize) 2 * v + 1]);
    }
  /* A name the patches move must be moved everywhere: the nodes without a
   * patch keep theirs. */
  for (guint32 k = 0; ok && k < s->n_ranks; k++)
    ok = t->rank_to[k] == rank_at[k] || uses[k] == s->rank_uses[k];
  for (guint32 k = 0; ok && k < s->n_groups; k++)
    ok = t->group_to[k] == group_at[k] || uses[s->n_ranks + k] == s->group_uses[k];
  if (!ok)
    g_clear_pointer (&t, wl_rename_table_free);
  return t;
}
