/* group.c: process groups laid over the topology's dimensions.
 *
 * A group whose members form a sub-grid of the topology (every combination of
 * the coordinates they take, in the dimensions where they differ) runs its
 * collectives over those dimensions: a group inside one node uses only the
 * intra-node dimension.  Members are then ordered by rank, which is the
 * mixed-radix order of their coordinates.  Any other group is one flat
 * dimension in the order given, queued and given its algorithm as the
 * outermost topology dimension it spans; each of its messages is still
 * priced by the network on the route it takes.
 */
#include "system/sys_private.h"

#include <stdlib.h>
#include <string.h>

#include "sim/error.h"

/* The places a group's live table starts with (SysGroup.live): a group
 * mostly has a collective or two in flight. */
#define GROUP_LIVE_MIN 8

static int
cmp_u32 (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return (x > y) - (x < y);
}

/* Count the distinct coordinates members take in dimension d. */
static guint32
distinct_coords (const NetTopo *topo, const guint32 *ranks, guint32 n, guint d)
{
  guint32 size = net_topo_dim_size (topo, d);
  g_autofree guint8 *seen = g_new0 (guint8, size);
  guint32 count = 0;
  for (guint32 i = 0; i < n; i++)
    {
      guint32 c = net_topo_coord (topo, ranks[i], d);
      count += !seen[c];
      seen[c] = 1;
    }
  return count;
}

static void
group_layout (SysGroup *g, const NetTopo *topo, const guint32 *given)
{
  guint32 counts[NET_MAX_DIMS] = { 0 };
  guint64 product = 1;
  for (guint d = 0; d < net_topo_dims (topo); d++)
    {
      counts[d] = distinct_coords (topo, given, g->n, d);
      product *= counts[d];
    }
  if (product == g->n)
    {
      memcpy (g->ranks, given, g->n * sizeof (guint32));
      qsort (g->ranks, g->n, sizeof (guint32), cmp_u32);
      guint32 stride = 1;
      for (guint d = 0; d < net_topo_dims (topo); d++)
        if (counts[d] > 1)
          {
            g->dims[g->n_dims++] = (SysGroupDim) { .topo_dim = d, .size = counts[d], .stride = stride };
            stride *= counts[d];
          }
      g->aligned = TRUE;
      return;
    }
  memcpy (g->ranks, given, g->n * sizeof (guint32));
  guint outer = 0;
  for (guint d = 0; d < net_topo_dims (topo); d++)
    if (counts[d] > 1)
      outer = d;
  g->dims[0] = (SysGroupDim) { .topo_dim = outer, .size = g->n, .stride = 1 };
  g->n_dims = 1;
}

/* The flat dimension over all members, queued and priced as the outermost
 * topology dimension they span. */
static void
group_flat_dim (SysGroup *g, const NetTopo *topo)
{
  guint outer = 0;
  for (guint d = 0; d < net_topo_dims (topo); d++)
    for (guint32 i = 1; i < g->n; i++)
      if (net_topo_coord (topo, g->ranks[i], d) != net_topo_coord (topo, g->ranks[0], d))
        {
          outer = d;
          break;
        }
  g->dims[g->n_dims] = (SysGroupDim) { .topo_dim = outer, .size = g->n, .stride = 1 };
}

/* Tabulate every member's position on every group dimension. */
static void
group_positions (SysGroup *g)
{
  guint per = g->n_dims + 1;
  if ((guint64) g->n * per > (1u << 22)) /* 16 MiB */
    return;
  g->pos = g_new (guint32, MAX ((gsize) g->n * per, 1u));
  for (guint32 m = 0; m < g->n; m++)
    for (guint d = 0; d < per; d++)
      g->pos[(gsize) m * per + d] = (m / g->dims[d].stride) % g->dims[d].size;
}

SysGroup *
sys_group_new (const NetTopo *topo, guint64 id, const guint32 *ranks, guint32 n,
               gboolean flat_subgroups, GError **error)
{
  g_autofree guint32 *members = sim_try_alloc (n, sizeof (guint32), TRUE, "a group's members", error);
  g_autofree guint32 *next_seq
      = members != NULL ? sim_try_alloc (n, sizeof (guint32), TRUE, "a group's members", error) : NULL;
  if (next_seq == NULL)
    return NULL;
  SysGroup *g = g_new0 (SysGroup, 1);
  g->id = id;
  g->n = n;
  g->ranks = g_steal_pointer (&members);
  g->next_seq = g_steal_pointer (&next_seq);
  g->live_cap = GROUP_LIVE_MIN;
  g->live = g_new0 (SysLiveSlot, g->live_cap);
  if (ranks == NULL)
    {
      /* The world: every rank, every dimension of more than one member. */
      for (guint32 r = 0; r < n; r++)
        g->ranks[r] = r;
      for (guint d = 0; d < net_topo_dims (topo); d++)
        if (net_topo_dim_size (topo, d) > 1)
          g->dims[g->n_dims++] = (SysGroupDim) { .topo_dim = d,
                                                 .size = net_topo_dim_size (topo, d),
                                                 .stride = net_topo_stride (topo, d) };
      g->aligned = TRUE;
      group_flat_dim (g, topo);
      group_positions (g);
      return g;
    }
  if (flat_subgroups && n > 1 && n < net_topo_ranks (topo))
    {
      memcpy (g->ranks, ranks, n * sizeof (guint32));
      g->dims[0] = (SysGroupDim) { .topo_dim = 0, .size = n, .stride = 1 };
      g->n_dims = 1;
      g->policy_flat = TRUE;
    }
  else if (n > 1)
    group_layout (g, topo, ranks);
  else
    g->ranks[0] = ranks[0];
  group_flat_dim (g, topo);
  group_positions (g);
  g->member_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint32 i = 0; i < n; i++)
    g_hash_table_insert (g->member_of, GUINT_TO_POINTER (g->ranks[i] + 1u),
                         GUINT_TO_POINTER (i + 1u));
  return g;
}

void
sys_group_free (SysGroup *g)
{
  if (g == NULL)
    return;
  g_free (g->ranks);
  g_free (g->next_seq);
  g_free (g->pos);
  if (g->member_of != NULL)
    g_hash_table_unref (g->member_of);
  g_free (g->live);
  sys_nccl_group_free (g->nccl);
  g_free (g->nccl_memo);
  sys_coll_memo_free (g->coll_memo);
  g_free (g);
}

/* Double G's live table, its collectives at their new places (those at
 * distinct places modulo the old size stay distinct modulo the new). */
static void
live_grow (SysGroup *g)
{
  g_assert (g->live_cap <= G_MAXUINT32 / 2);
  guint32 cap = g->live_cap * 2;
  SysLiveSlot *v = g_new0 (SysLiveSlot, cap);
  for (guint32 i = 0; i < g->live_cap; i++)
    if (g->live[i].coll != NULL)
      v[g->live[i].seq & (cap - 1)] = g->live[i];
  g_free (g->live);
  g->live = v;
  g->live_cap = cap;
}

void
sys_group_live_add (SysGroup *g, guint32 seq, SysColl *coll)
{
  g_assert (coll != NULL && sys_group_live (g, seq) == NULL);
  while (g->live[seq & (g->live_cap - 1)].coll != NULL)
    live_grow (g);
  g->live[seq & (g->live_cap - 1)] = (SysLiveSlot) { .coll = coll, .seq = seq };
}

void
sys_group_live_remove (SysGroup *g, guint32 seq)
{
  SysLiveSlot *s = &g->live[seq & (g->live_cap - 1)];
  g_assert (s->coll != NULL && s->seq == seq);
  s->coll = NULL;
}

/* The most members sys_group_member scans (a hash lookup costs about as
 * much as a scan of 16). */
#define GROUP_SCAN_MAX 16

gint64
sys_group_member (const SysGroup *g, guint32 rank)
{
  if (g->member_of == NULL)
    return rank < g->n ? (gint64) rank : -1;
  /* A small group's members are scanned rather than hashed (every
   * collective join asks), from the last, as member_of keeps the last
   * member of a rank. */
  if (g->n <= GROUP_SCAN_MAX)
    {
      for (guint32 i = g->n; i-- > 0;)
        if (g->ranks[i] == rank)
          return i;
      return -1;
    }
  gpointer v = g_hash_table_lookup (g->member_of, GUINT_TO_POINTER (rank + 1u));
  return v == NULL ? -1 : (gint64) GPOINTER_TO_UINT (v) - 1;
}

SysGroup *
sys_group_find (Sys *sys, guint64 id)
{
  if (id == SYS_GROUP_WORLD)
    return sys->world;
  SysGroup **hint = &sys->group_hint[id & (SYS_GROUP_HINTS - 1)];
  if (*hint != NULL && (*hint)->id == id)
    return *hint;
  SysGroup *g = g_hash_table_lookup (sys->groups, &id);
  if (g != NULL)
    *hint = g;
  return g;
}

/* "the world" or "group 7", for messages. */
char *
sys_group_label (const SysGroup *group)
{
  if (group->id == SYS_GROUP_WORLD)
    return g_strdup ("all ranks");
  return g_strdup_printf ("group %" G_GUINT64_FORMAT, group->id);
}
