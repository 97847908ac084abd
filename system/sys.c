/* sys.c: the system layer's lifetime: building it (resolving every
 * configured algorithm), registering groups, and the per-kind totals.
 * Collectives themselves live in coll.c. */
#include "system/coll_private.h"
#include "system/sys_private.h"

#include <string.h>

#include "sim/error.h"

/* The names a configuration may give KIND, from the table: every native
 * row's name whose row under TIMING (as sys_algo_resolve picks it: that
 * timing's row, else the native one) implements KIND; "ring, direct, ...". */
char *
sys_algorithms_for (SysCollKind kind, SysTiming timing)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < sys_algo_count (); i++)
    {
      const SysAlgoClass *a = sys_algo_nth (i);
      SysAlgoRef ref;
      if (a->timing == SYS_TIMING_NATIVE && sys_algo_resolve (a->name, timing, &ref)
          && sys_algo_supports (ref.algo, kind))
        g_string_append_printf (s, "%s%s", s->len > 0 ? ", " : "", a->name);
    }
  return g_string_free (s, FALSE);
}

/* Every kind's algorithm on every dimension, resolved.  One the kind lacks
 * is kept when the parameters defer that check to the collectives that
 * reach it (SysParams.kind_check_at_use: coll.c checks each plan). */
static gboolean
resolve_algorithms (Sys *sys, GError **error)
{
  for (guint k = 0; k < SYS_COLL_N; k++)
    for (guint d = 0; d < net_topo_dims (sys->topo); d++)
      {
        guint i = MIN (d, sys->params.n_impl[k] - 1);
        const char *name = sys->params.impl[k][i];
        SysAlgoRef *ref = &sys->algo[k][d];
        if (sys->params.program[k] != NULL)
          {
            *ref = (SysAlgoRef) { .algo = sys->params.program[k], .flat = TRUE };
            continue;
          }
        gboolean known = sys_algo_resolve (name, sys->params.compat.timing, ref);
        if (!known || (!sys_algo_supports (ref->algo, (SysCollKind) k)
                       && !sys->params.kind_check_at_use))
          {
            g_autofree char *known_names
                = sys_algorithms_for ((SysCollKind) k, sys->params.compat.timing);
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "%s: algorithm '%s' (dimension %u) does not exist for this collective "
                         "(it has: %s)",
                         sys_coll_kind_name ((SysCollKind) k), name, d, known_names);
            return FALSE;
          }
      }
  return TRUE;
}

/* The row groups run when the policy lays them flat, or NULL. */
static gboolean
resolve_subgroup_algorithm (Sys *sys, GError **error)
{
  const SysCompat *c = &sys->params.compat;
  if (!c->subgroups_flat)
    return TRUE;
  SysAlgoRef ref;
  if (c->subgroup_algorithm == NULL || !sys_algo_resolve (c->subgroup_algorithm, c->timing, &ref))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "the compatibility policy runs groups with algorithm '%s', which does not "
                   "exist", c->subgroup_algorithm ? c->subgroup_algorithm : "(none)");
      return FALSE;
    }
  sys->subgroup_algo = ref.algo;
  return TRUE;
}

Sys *
sys_new (SimSched *sched, Net *net, const SysParams *params, GError **error)
{
  g_return_val_if_fail (sched != NULL && net != NULL && params != NULL, NULL);
  if (params->splits == 0 || params->active_chunks_per_dim == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "splits and active chunks per dimension must be at least 1");
      return NULL;
    }
  g_autoptr (Sys) sys = g_new0 (Sys, 1);
  sys->sched = sched;
  sys->net = net;
  sys->topo = net_topo (net);
  sys->params = *params;
  sys->groups = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                       (GDestroyNotify) sys_group_free);
  sys->group_stats = g_array_new (FALSE, FALSE, sizeof (SysCollGroupStats));
  sys->group_stats_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sys->group_stats_rows = sys_stats_rows_new ();
  sys->coll_records = g_array_new (FALSE, FALSE, sizeof (SysCollRecord));
  sys->p2p = sys_p2p_new ();
  sys->world = sys_group_new (sys->topo, SYS_GROUP_WORLD, NULL, net_topo_ranks (sys->topo),
                              FALSE, error);
  if (sys->world == NULL)
    return NULL;
  sys->queues = sim_try_alloc (net_topo_ranks (sys->topo), sizeof (SysRankQueues), TRUE,
                                 "per-rank collective queues", error);
  if (sys->queues == NULL || !resolve_algorithms (sys, error)
      || !resolve_subgroup_algorithm (sys, error))
    return NULL;
  return g_steal_pointer (&sys);
}

void
sys_free (Sys *sys)
{
  if (sys == NULL)
    return;
  for (SysColl *coll = sys->live_colls, *next; coll != NULL; coll = next)
    {
      next = coll->live_next;
      sys_coll_free (coll);
    }
  if (sys->queues != NULL)
    for (guint32 r = 0; r < net_topo_ranks (sys->topo); r++)
      for (guint d = 0; d < NET_MAX_DIMS; d++)
        {
          sys_waitq_clear (&sys->queues[r].waiting[d]);
          sys_owed_clear (&sys->queues[r].owed[d]);
        }
  g_free (sys->queues);
  if (sys->group_stats != NULL)
    g_array_unref (sys->group_stats);
  if (sys->group_stats_index != NULL)
    g_hash_table_unref (sys->group_stats_index);
  if (sys->group_stats_rows != NULL)
    g_hash_table_unref (sys->group_stats_rows);
  if (sys->coll_records != NULL)
    g_array_unref (sys->coll_records);
  sys_group_free (sys->world);
  if (sys->groups != NULL)
    g_hash_table_unref (sys->groups);
  sys_p2p_free (sys->p2p);
  g_free (sys);
}

const SysParams *
sys_params (const Sys *sys)
{
  return &sys->params;
}

/* NCCL 2.26.2 src/graph/paths.cc, ncclTopoGetNchannels: a peer on another
 * node gets NCCL_NCHANNELS_PER_NET_PEER channels, unset "start from 2
 * channels per NIC" (fewer only when 2 x ranks > 4 x the communicator's p2p
 * channels); ncclTopoComputeP2pChannels takes the least over the
 * communicator's peers as every peer's count (p2pnChannelsPerPeer), so any
 * communicator that spans nodes runs its sends and receives on 2 channels,
 * one CTA each (src/enqueue.cc).  A peer on NVLink alone would get
 * 2 x (path bandwidth / NVLink bandwidth): more, which is not modelled. */
#define NCCL_P2P_CHANNELS_PER_PEER 2u
/* Concurrent p2p operations share the communicator's p2p channels,
 * p2pnChannels <= NCCL_MAX_P2P_NCHANNELS, by default MAXCHANNELS = 64
 * (v2.26.2 src/include/device.h; paths.cc ncclTopoComputeP2pChannels). */
#define NCCL_MAX_P2P_CHANNELS 64u

guint32
sys_p2p_ctas (const Sys *sys, guint32 ops)
{
  g_return_val_if_fail (sys != NULL, 0);
  if (sys->params.lib.library != SYS_LIBRARY_NCCL)
    return 0;
  return (guint32) MIN ((guint64) ops * NCCL_P2P_CHANNELS_PER_PEER, NCCL_MAX_P2P_CHANNELS);
}

Net *
sys_net (const Sys *sys)
{
  return sys->net;
}

const guint32 *
sys_group_ranks (Sys *sys, guint64 id, guint32 *n)
{
  const SysGroup *group = sys_group_find (sys, id);
  *n = group != NULL ? group->n : 0;
  return group != NULL ? group->ranks : NULL;
}

gboolean
sys_group_add (Sys *sys, guint64 id, const guint32 *ranks, guint n, GError **error)
{
  g_return_val_if_fail (sys != NULL && ranks != NULL, FALSE);
  if (n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "group %" G_GUINT64_FORMAT " has no ranks",
                   id);
      return FALSE;
    }
  if (id == SYS_GROUP_WORLD || g_hash_table_contains (sys->groups, &id))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "group %" G_GUINT64_FORMAT " is registered twice", id);
      return FALSE;
    }
  guint32 world = net_topo_ranks (sys->topo);
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint i = 0; i < n; i++)
    {
      if (ranks[i] >= world)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "group %" G_GUINT64_FORMAT " names rank %u, but the topology has %u ranks",
                       id, ranks[i], world);
          return FALSE;
        }
      if (!g_hash_table_add (seen, GUINT_TO_POINTER (ranks[i] + 1u)))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "group %" G_GUINT64_FORMAT " names rank %u twice", id, ranks[i]);
          return FALSE;
        }
    }
  /* Every rank (distinct, so n of them) in any order: laid out as the world
   * is, on the topology's own dimensions, with a sequence of its own. */
  SysGroup *g = sys_group_new (sys->topo, id, n == world ? NULL : ranks, n,
                               sys->params.compat.subgroups_flat, error);
  if (g == NULL)
    return FALSE;
  g_hash_table_insert (sys->groups, g_memdup2 (&id, sizeof id), g);
  return TRUE;
}

void
sys_coll_stats (const Sys *sys, SysCollKind kind, SysCollStats *out)
{
  g_return_if_fail (kind < SYS_COLL_N);
  *out = sys->stats[kind];
}

static gint
cmp_group_stats (gconstpointer a, gconstpointer b)
{
  const SysCollGroupStats *x = a, *y = b;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  /* The world (G_MAXUINT64) first, then ids in order. */
  guint64 gx = x->group + 1, gy = y->group + 1;
  if (gx != gy)
    return gx < gy ? -1 : 1;
  return strcmp (x->algorithm, y->algorithm);
}

void
sys_set_lockstep (Sys *sys, gboolean on)
{
  sys->lockstep = on;
}

static gboolean
power_of_two (guint32 n)
{
  return n > 0 && (n & (n - 1)) == 0;
}

/* Whether the algorithm of one dimension of `size` members treats them
 * alike over a network that shares as `sharing` says; FALSE with the
 * class's reason otherwise. */
static gboolean
dim_alike (const SysAlgoRef *ref, guint32 size, NetSharing sharing, const char **why)
{
  const SysAlgoClass *a = ref->algo;
  if (ref->flat)
    return (*why = "a \"one\" algorithm runs over members on different dimensions", FALSE);
  if (a->disjoint_links)
    return TRUE;
  if (sharing != NET_SHARING_NONE)
    return (*why = a->links_why, FALSE);
  if (a->alike == SYS_ALIKE_ALWAYS || (a->alike == SYS_ALIKE_POW2 && power_of_two (size)))
    return TRUE;
  return (*why = a->unlike_why, FALSE);
}

gboolean
sys_symmetric (const Sys *sys, SysCollKind kind, guint32 involved, const char **why)
{
  const NetSpec *spec = net_topo_spec (sys->topo);
  const NetModelClass *model = net_model (sys->net);
  /* The Net's, not the class's: the analytical model shares ports only
   * under some configurations. */
  NetSharing sharing = net_sharing (sys->net);
  if (sys_coll_kind_rooted (kind))
    return (*why = "rooted collectives treat the root differently", FALSE);
  if (kind == SYS_COLL_BARRIER)
    return (*why = "a barrier runs over all members as one line, across dimensions", FALSE);
  if (sys->params.program[kind] != NULL)
    return (*why = sys->params.program[kind]->unlike_why, FALSE);
  if (net_topo_graph (sys->topo) != NULL)
    return (*why = "an explicit network graph", FALSE);
  SysNcclFunc func;
  if (sys->params.lib.library == SYS_LIBRARY_NCCL && sys_nccl_func_of (kind, &func))
    return (*why = "the NCCL library's algorithms give members different roles "
                   "(node boundaries, tree positions)", FALSE);
  if (sharing == NET_SHARING_FLOWS)
    return (*why = model->sharing_why, FALSE);
  for (guint d = 0; d < spec->n_dims; d++)
    {
      if (!(involved & (1u << d)) || spec->dims[d].size < 2)
        continue;
      if (sys->params.compat.dims_from_impl && d >= sys->params.n_impl[kind])
        continue;
      if (!dim_alike (&sys->algo[kind][d], spec->dims[d].size, sharing, why))
        return FALSE;
    }
  return TRUE;
}

gboolean
sys_set_classes (Sys *sys, const guint32 *rep_of, const char **why)
{
  if (!net_set_rank_alias (sys->net, rep_of, why))
    return FALSE;
  sys->lockstep = rep_of != NULL;
  sys->classes = rep_of != NULL;
  sys->rep_of = rep_of;
  sys->classes_shared = sys->classes && net_sharing (sys->net) != NET_SHARING_NONE;
  return TRUE;
}

guint64
sys_class_overlaps (const Sys *sys)
{
  return sys->class_overlaps;
}

guint64
sys_class_line_holds (const Sys *sys)
{
  return sys->class_line_holds;
}

/* A topology dimension on which any subset of positions is alike: every
 * pair of positions is as far apart as any other. */
static gboolean
dim_uniform (const NetDimSpec *dim)
{
  return dim->kind == NET_DIM_SWITCH || dim->kind == NET_DIM_FULLY_CONNECTED;
}

/* A group laid out as one flat line (ASTRA-sim's sub-groups) runs the
 * policy's algorithm over its members in order: alike when that algorithm
 * only passes to the next member (a ring) and every such hop is priced
 * alike. */
static gboolean
flat_alike (Sys *sys, const SysGroup *group, NetSharing sharing, const char **why)
{
  const SysAlgoClass *a = sys->subgroup_algo;
  if (!a->disjoint_links || a->alike != SYS_ALIKE_ALWAYS)
    return (*why = "a sub-group laid out flat runs an algorithm whose members differ", FALSE);
  if (sharing == NET_SHARING_FLOWS)
    return (*why = a->links_why, FALSE);
  for (guint32 m = 0; m < group->n; m++)
    if (!net_routes_alike (sys->net, group->ranks[m], group->ranks[(m + 1) % group->n],
                           group->ranks[0], group->ranks[1]))
      return (*why = "a sub-group laid out flat whose ring hops are priced differently", FALSE);
  return TRUE;
}

/* NCCL's plan of a collective of KIND and BYTES on GROUP (its shape made
 * once); FALSE with *WHY when NCCL cannot plan it (the run reports that
 * where the collective is met). */
static gboolean
group_nccl_plan (Sys *sys, SysGroup *group, SysCollKind kind, guint64 bytes, SysNcclPlan *plan,
                 const char **why)
{
  GError *error = NULL;
  if (group->nccl == NULL)
    group->nccl = sys_nccl_group_new (sys->topo, group->ranks, group->n, &sys->params.lib,
                                      &error);
  if (group->nccl == NULL || !sys_nccl_plan (group->nccl, kind, bytes, plan, &error))
    {
      g_error_free (error);
      return (*why = "NCCL cannot plan one of the collectives", FALSE);
    }
  return TRUE;
}

gboolean
sys_group_alike (Sys *sys, guint64 id, SysCollKind kind, guint64 bytes, guint32 involved,
                 const char **why)
{
  SysGroup *group = sys_group_find (sys, id);
  g_return_val_if_fail (group != NULL, FALSE);
  return sys_group_alike_of (sys, group, kind, bytes, involved, why);
}

gboolean
sys_group_alike_of (Sys *sys, SysGroup *group, SysCollKind kind, guint64 bytes,
                    guint32 involved, const char **why)
{
  if (group->n < 2)
    return TRUE;
  if (sys_coll_kind_rooted (kind))
    return (*why = "rooted collectives treat the root differently", FALSE);
  if (kind == SYS_COLL_BARRIER)
    return (*why = "a barrier runs over all members as one line, across dimensions", FALSE);
  if (sys->params.program[kind] != NULL)
    return (*why = sys->params.program[kind]->unlike_why, FALSE);
  const NetSpec *spec = net_topo_spec (sys->topo);
  NetSharing sharing = net_sharing (sys->net);
  if (sharing == NET_SHARING_FLOWS)
    return (*why = net_model (sys->net)->sharing_why, FALSE);
  SysNcclFunc func;
  if (sys->params.lib.library == SYS_LIBRARY_NCCL && sys_nccl_func_of (kind, &func))
    {
      SysNcclPlan plan;
      return group_nccl_plan (sys, group, kind, bytes, &plan, why)
             && sys_nccl_plan_alike (&plan, sys->net, group->ranks, group->n, why);
    }
  if (net_topo_graph (sys->topo) != NULL)
    return (*why = "an explicit network graph", FALSE);
  if (group->policy_flat)
    return flat_alike (sys, group, sharing, why);
  for (guint g = 0; g < group->n_dims; g++)
    {
      const SysGroupDim *gd = &group->dims[g];
      guint d = gd->topo_dim;
      if (!(involved & (1u << d)) || gd->size < 2)
        continue;
      if (sys->params.compat.dims_from_impl && d >= sys->params.n_impl[kind])
        continue;
      if (!dim_uniform (&spec->dims[d]) && gd->size != spec->dims[d].size)
        return (*why = "a process group holds part of a ring only", FALSE);
      if (!dim_alike (&sys->algo[kind][d], gd->size, sharing, why))
        return FALSE;
    }
  return TRUE;
}

guint32
sys_group_period (Sys *sys, guint64 id, SysCollKind kind, guint64 bytes, guint32 involved,
                  const char **why)
{
  (void) involved; /* NCCL's plans span the group's dimensions whatever it says */
  SysGroup *group = sys_group_find (sys, id);
  g_return_val_if_fail (group != NULL, 0);
  SysNcclFunc func;
  if (sys->params.lib.library != SYS_LIBRARY_NCCL || !sys_nccl_func_of (kind, &func))
    return (*why = "only NCCL's rings are known to repeat node by node", 0);
  if (sys->params.program[kind] != NULL)
    return (*why = sys->params.program[kind]->unlike_why, 0);
  if (net_sharing (sys->net) == NET_SHARING_FLOWS)
    return (*why = net_model (sys->net)->sharing_why, 0);
  SysNcclPlan plan;
  if (!group_nccl_plan (sys, group, kind, bytes, &plan, why))
    return 0;
  return sys_nccl_plan_period (&plan, sys->net, group->ranks, group->n, why);
}

/* The NCCL plans of a collective on groups A and B, the same but for the
 * ranks (sys_group_mirrors). */
static gboolean
nccl_mirrors (Sys *sys, SysGroup *a, SysGroup *b, SysCollKind kind, guint64 bytes,
              SysNcclPlan plan[2], const char **why)
{
  if (!group_nccl_plan (sys, a, kind, bytes, &plan[0], why)
      || !group_nccl_plan (sys, b, kind, bytes, &plan[1], why))
    return FALSE;
  return sys_nccl_plans_mirror (&plan[0], &plan[1], a->n, why);
}

/* The per-dimension algorithms of a collective on groups A and B, laid
 * out alike (sys_group_mirrors). */
static gboolean
dims_mirror (Sys *sys, const SysGroup *a, const SysGroup *b, SysCollKind kind, guint32 involved,
             const char **why)
{
  if (a->policy_flat != b->policy_flat || a->n_dims != b->n_dims || a->aligned != b->aligned)
    return (*why = "a process group and its image are laid out differently", FALSE);
  if (a->policy_flat)
    {
      const char *no = sys->subgroup_algo->mirror_why;
      return no == NULL || (*why = no, FALSE);
    }
  for (guint g = 0; g <= a->n_dims; g++)
    if (a->dims[g].topo_dim != b->dims[g].topo_dim || a->dims[g].size != b->dims[g].size
        || a->dims[g].stride != b->dims[g].stride)
      return (*why = "a process group and its image are laid out differently", FALSE);
  for (guint g = 0; g < a->n_dims; g++)
    {
      guint d = a->dims[g].topo_dim;
      if (!(involved & (1u << d)) || a->dims[g].size < 2)
        continue;
      const SysAlgoClass *row = sys->algo[kind][d].algo;
      if (row != NULL && row->mirror_why != NULL)
        return (*why = row->mirror_why, FALSE);
    }
  return TRUE;
}

gboolean
sys_group_mirrors (Sys *sys, guint64 id, guint64 image, SysCollKind kind, guint64 bytes,
                   guint32 involved, const char **why)
{
  SysGroup *a = sys_group_find (sys, id), *b = sys_group_find (sys, image);
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);
  if (a->n != b->n)
    return (*why = "a process group and its image differ in size", FALSE);
  if (a->n < 2 || id == image)
    return TRUE;
  if (sys_coll_kind_rooted (kind))
    return (*why = "rooted collectives name their root by rank", FALSE);
  if (kind == SYS_COLL_BARRIER)
    return (*why = "a barrier runs over all members as one line, across dimensions", FALSE);
  if (sys->params.program[kind] != NULL)
    return (*why = sys->params.program[kind]->mirror_why, FALSE);
  if (net_sharing (sys->net) == NET_SHARING_FLOWS)
    return (*why = net_model (sys->net)->sharing_why, FALSE);
  SysNcclFunc func;
  SysNcclPlan plan[2];
  gboolean nccl = sys->params.lib.library == SYS_LIBRARY_NCCL && sys_nccl_func_of (kind, &func);
  gboolean ok = nccl ? nccl_mirrors (sys, a, b, kind, bytes, plan, why)
                     : dims_mirror (sys, a, b, kind, involved, why);
  if (!ok)
    return FALSE;
  /* Every pair of places that may carry a message: under NCCL the pairs
   * its plan's algorithm sends between (the same in both plans, which
   * mirror each other; on a rail network a DP group over nodes with two
   * members each sends across nodes only rail to rail, where its other
   * pairs would take an ECMP path that the stand-ins need not share);
   * else any pair. */
  for (guint32 i = 0; i < a->n; i++)
    for (guint32 j = 0; j < a->n; j++)
      {
        NetRoutesDiff d = NET_ROUTES_ALIKE;
        if (i != j && (!nccl || sys_nccl_plan_pair (&plan[0], i, j)))
          d = net_routes_differ (sys->net, a->ranks[i], a->ranks[j], b->ranks[i], b->ranks[j]);
        if (d == NET_ROUTES_PORTS)
          return (*why = "messages in a process group and its image take equal-cost routes "
                         "through different ports (a graph's routes are picked per pair of "
                         "ranks, which the image need not keep)",
                  FALSE);
        if (d != NET_ROUTES_ALIKE)
          return (*why = "messages in a process group and its image take routes priced "
                         "differently",
                  FALSE);
      }
  return TRUE;
}

void
sys_classes_finish (Sys *sys, const guint64 *groups, guint n_pairs)
{
  guint rows = sys->group_stats->len;
  for (guint i = 0; i < n_pairs; i++)
    for (guint j = 0; j < rows; j++)
      {
        SysCollGroupStats st = g_array_index (sys->group_stats, SysCollGroupStats, j);
        if (st.group != groups[(gsize) 2 * i + 1])
          continue;
        st.group = groups[(gsize) 2 * i];
        g_array_append_val (sys->group_stats, st);
        SysCollStats *k = &sys->stats[st.kind];
        k->count += st.count;
        k->bytes += st.bytes;
        k->busy += st.busy;
      }
}

void
sys_set_coll_records (Sys *sys, gboolean on)
{
  sys->no_coll_records = !on;
}

const SysCollRecord *
sys_coll_records (const Sys *sys, guint *n)
{
  *n = sys->coll_records->len;
  return (const SysCollRecord *) sys->coll_records->data;
}

GArray *
sys_coll_group_stats (const Sys *sys)
{
  GArray *out = g_array_sized_new (FALSE, FALSE, sizeof (SysCollGroupStats),
                                   sys->group_stats->len);
  g_array_append_vals (out, sys->group_stats->data, sys->group_stats->len);
  g_array_sort (out, cmp_group_stats);
  return out;
}

