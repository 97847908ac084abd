/* replay.c: per-rank replay of trace graphs: ready queues, slots, timing. */
#include "workload/replay.h"

#include <math.h>
#include <string.h>

#include "workload/compute.h"
#include "workload/graph.h"
#include "workload/replay_private.h"
#include "workload/wl_alloc.h"
#include "workload/wl_error.h"

static void on_node_done (SimSched *sched, gpointer data, guint64 index);

/* Double K's ready queue F; a failure stops the run with an error. */
gboolean
wl_replay_fifo_grow (WlRank *k, WlFifo *f)
{
  guint32 cap = MAX (8u, f->cap * 2);
  GError *error = NULL;
  guint32 *buf = wl_try_alloc (cap, sizeof (guint32), FALSE, "a ready queue", &error);
  if (buf == NULL)
    {
      g_prefix_error (&error, "rank %u: ", k->rank);
      wl_replay_fail_in_event (k->replay, error);
      return FALSE;
    }
  for (guint32 i = 0; i < f->len; i++)
    buf[i] = f->buf[(f->head + i) % f->cap];
  g_free (f->buf);
  f->buf = buf;
  f->head = 0;
  f->cap = cap;
  return TRUE;
}

static guint32
fifo_pop (WlFifo *f)
{
  g_assert (f->len > 0);
  guint32 v = f->buf[f->head];
  f->head = (f->head + 1) % f->cap;
  f->len--;
  return v;
}

WlReplay *
wl_replay_new (SimSched *sched, Sys *sys, const WlParams *params)
{
  g_return_val_if_fail (sched != NULL && sys != NULL && params != NULL, NULL);
  WlReplay *r = g_new0 (WlReplay, 1);
  r->sched = sched;
  r->sys = sys;
  r->params = *params;
  r->cache = wl_graph_cache_new_full (params->lenient);
  r->graphs = g_ptr_array_new ();
  r->scans = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_trace_scan_free);
  r->infos = g_ptr_array_new_with_free_func (wl_replay_scan_info_free);
  return r;
}

/* Free what each rank holds (graphs, states, windows) and forget the
 * ranks, keeping the array. */
static void
ranks_clear (WlReplay *r)
{
  for (guint32 i = 0; i < r->n_ranks; i++)
    {
      WlRank *k = &r->ranks[i];
      wl_graph_unref (k->graph);
      wl_stream_free (k->stream);
      g_free (k->parents_left);
      g_free (k->state);
      for (guint s = 0; s < SLOT_N; s++)
        g_free (k->ready[s].buf);
      if (i == 0 || !r->lockstep)
        g_free (k->rec); /* in lockstep every rank shares rank 0's */
      if (k->coll_seq != NULL)
        g_hash_table_unref (k->coll_seq);
      memset (k, 0, sizeof *k);
    }
  r->n_ranks = 0;
}

void
wl_replay_free (WlReplay *r)
{
  if (r == NULL)
    return;
  ranks_clear (r);
  g_free (r->ranks);
  if (r->insts != NULL)
    g_array_unref (r->insts);
  if (r->inst_index != NULL)
    g_hash_table_unref (r->inst_index);
  if (r->p2p_wait != NULL)
    g_hash_table_unref (r->p2p_wait);
  g_ptr_array_unref (r->graphs);
  g_ptr_array_unref (r->infos);
  g_ptr_array_unref (r->scans);
  if (r->group_map != NULL)
    g_hash_table_unref (r->group_map);
  wl_graph_cache_free (r->cache);
  g_clear_error (&r->error);
  g_clear_error (&r->check_error);
  g_free (r->needs_all);
  g_free (r);
}

void
wl_replay_set_memory_budget (WlReplay *r, guint64 bytes, const char *needs_all_nodes)
{
  g_return_if_fail (r != NULL && r->ranks == NULL);
  r->budget = bytes;
  g_free (r->needs_all);
  r->needs_all = g_strdup (needs_all_nodes);
}

void
wl_replay_set_stream_window (WlReplay *r, guint32 nodes)
{
  g_return_if_fail (r != NULL && r->ranks == NULL);
  r->forced_window = nodes;
}

void
wl_replay_set_node_check (WlReplay *r, WlNodeCheckFunc check, gpointer data)
{
  g_return_if_fail (r != NULL && r->ranks == NULL);
  r->check = check;
  r->check_data = data;
}

gboolean
wl_replay_node_check_ok (const WlReplay *r, GError **error)
{
  if (r->check_error == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (r->check_error));
  return FALSE;
}

gboolean
wl_replay_streamed (const WlReplay *r)
{
  return r->window > 0;
}

guint32
wl_replay_stream_window (const WlReplay *r)
{
  return r->window;
}

/* ---- loading ----------------------------------------------------------------- */

/* The node check, keeping its first failure. */
void
wl_replay_node_check (WlReplay *r, const char *path, const WlNode *n)
{
  if (r->check != NULL && r->check_error == NULL)
    r->check (r->check_data, path, n, &r->check_error);
}

/* Whether the compute model cannot time N. */
gboolean
wl_replay_untimeable (const WlParams *p, const WlNode *n)
{
  return p->compute == WL_COMPUTE_ROOFLINE && n->op == WL_OP_COMP && n->num_ops == 0
         && !n->has_duration;
}

void
wl_replay_untimeable_error (const char *path, const WlNode *n, GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT
               ": a COMP node with neither num_ops nor duration_micros: the roofline "
               "model cannot time it", path, n->id);
}

/* Whether every COMP node of g can be timed by the compute model. */
static gboolean
check_compute (const WlParams *p, const WlGraph *g, GError **error)
{
  for (guint32 v = 0; v < g->n_nodes; v++)
    if (wl_replay_untimeable (p, &g->nodes[v]))
      {
        wl_replay_untimeable_error (g->path, &g->nodes[v], error);
        return FALSE;
      }
  return TRUE;
}

/* A send or receive naming another rank than RANK as its own (NULL when
 * it names none, or RANK). */
const char *
wl_replay_self_problem (const WlNode *n, guint32 rank)
{
  gboolean send = n->op == WL_OP_SEND;
  guint32 self = send ? n->peer_src : n->peer_dst;
  if (self == WL_RANK_SELF || self == rank)
    return NULL;
  return send ? "comm_src is not this rank" : "comm_dst is not this rank";
}

/* A send or receive without a peer, or with one beyond the topology. */
const char *
wl_replay_peer_problem (const WlNode *n, guint32 n_ranks)
{
  gboolean send = n->op == WL_OP_SEND;
  guint32 peer = send ? n->peer_dst : n->peer_src;
  if (peer == WL_RANK_SELF)
    return send ? "a send without comm_dst" : "a receive without comm_src";
  if (peer >= n_ranks)
    return send ? "comm_dst names a rank beyond the topology"
                : "comm_src names a rank beyond the topology";
  return NULL;
}

gboolean
wl_replay_p2p_error (const char *path, guint32 rank, const WlNode *n, const char *what,
                     GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: rank %u node %" G_GUINT64_FORMAT ": %s",
               path, rank, n->id, what);
  return FALSE;
}

/* Rank-dependent checks of a (possibly shared) graph. */
static gboolean
check_rank (const WlGraph *g, guint32 rank, guint32 n_ranks, GError **error)
{
  for (guint32 v = 0; v < g->n_nodes; v++)
    {
      const WlNode *n = &g->nodes[v];
      if (n->op != WL_OP_SEND && n->op != WL_OP_RECV)
        continue;
      const char *what = wl_replay_self_problem (n, rank);
      if (what == NULL)
        what = wl_replay_peer_problem (n, n_ranks);
      if (what != NULL)
        return wl_replay_p2p_error (g->path, rank, n, what, error);
    }
  return TRUE;
}

/* Per-rank replay state of an in-memory graph. */
static gboolean
rank_init (WlReplay *r, WlRank *k, guint32 rank, WlGraph *g, GError **error)
{
  k->replay = r;
  k->rank = rank;
  k->graph = g;
  k->done = on_node_done;
  k->speed = wl_params_rank_speed (&r->params, rank);
  k->parents_left = wl_try_alloc (g->n_nodes, sizeof (guint32), FALSE,
                                  "the replay's dependency counts", error);
  k->state = k->parents_left != NULL ? wl_try_alloc (g->n_nodes, 1, TRUE,
                                                     "the replay's node states", error)
                                     : NULL;
  if (k->state == NULL)
    {
      g_prefix_error (error, "%s: rank %u: ", g->path, rank);
      return FALSE;
    }
  for (guint32 v = 0; v < g->n_nodes; v++)
    k->parents_left[v] = g->nodes[v].n_parents;
  k->stats.nodes = g->n_nodes;
  return TRUE;
}

/* Per-rank replay state, in bytes per node (parents_left, state), for the
 * memory budget. */
#define RANK_NODE_BYTES (sizeof (guint32) + 1)

/* Load every rank's graph.  With a budget, FALSE with ERROR unset and
 * *OVER set as soon as the bytes held would pass it. */
static gboolean
load_in_memory (WlReplay *r, const char *const *paths, guint32 ranks, gboolean *over,
                GError **error)
{
  guint64 total = 0;
  for (guint32 i = 0; i < ranks; i++)
    {
      guint64 limit = r->budget == 0 ? G_MAXUINT64 : r->budget - MIN (total, r->budget);
      guint before = wl_graph_cache_distinct (r->cache);
      WlGraph *g = wl_graph_cache_load_limited (r->cache, paths[i], limit, over, error);
      if (g == NULL)
        return FALSE;
      gboolean fresh = wl_graph_cache_distinct (r->cache) > before;
      total += (fresh ? wl_graph_bytes (g) : 0) + (guint64) g->n_nodes * RANK_NODE_BYTES;
      if (r->budget != 0 && total > r->budget)
        {
          *over = TRUE;
          wl_graph_unref (g);
          return FALSE;
        }
      if (!check_rank (g, i, ranks, error)
          || (fresh && !check_compute (&r->params, g, error)))
        {
          wl_graph_unref (g);
          return FALSE;
        }
      if (fresh)
        {
          g_ptr_array_add (r->graphs, g);
          for (guint32 v = 0; v < g->n_nodes; v++)
            wl_replay_node_check (r, g->path, &g->nodes[v]);
        }
      r->n_ranks = i + 1;
      if (!rank_init (r, &r->ranks[i], i, g, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
wl_replay_load_files (WlReplay *r, const char *const *paths, guint32 ranks, GError **error)
{
  g_return_val_if_fail (r != NULL && r->ranks == NULL && ranks > 0, FALSE);
  r->ranks = wl_try_alloc (ranks, sizeof (WlRank), TRUE, "the ranks' replay state", error);
  if (r->ranks == NULL)
    return FALSE;
  if (r->forced_window == 0)
    {
      gboolean over = FALSE;
      if (load_in_memory (r, paths, ranks, &over, error))
        return TRUE;
      if (!over)
        return FALSE;
      /* Over the budget: let go of everything loaded, and stream. */
      ranks_clear (r);
      g_ptr_array_set_size (r->graphs, 0);
      wl_graph_cache_free (r->cache);
      r->cache = wl_graph_cache_new_full (r->params.lenient);
      g_clear_error (&r->check_error);
      if (!wl_replay_may_stream (r, error))
        return FALSE;
    }
  return wl_replay_load_streamed (r, paths, ranks, error);
}

gboolean
wl_replay_load (WlReplay *r, const char *prefix, guint32 ranks, GError **error)
{
  g_return_val_if_fail (r != NULL && prefix != NULL, FALSE);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  for (guint32 i = 0; i < ranks; i++)
    {
      char *p = g_strdup_printf ("%s.%u.et", prefix, i);
      if (!g_file_test (p, G_FILE_TEST_EXISTS))
        {
          guint32 have = 0;
          while (have < G_MAXUINT32)
            {
              g_autofree char *q = g_strdup_printf ("%s.%u.et", prefix, have);
              if (!g_file_test (q, G_FILE_TEST_EXISTS))
                break;
              have++;
            }
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "%s: not found: the topology has %u ranks but the workload has %s%u "
                       "trace files (%s.0.et ...)",
                       p, ranks, have ? "only " : "", have, prefix);
          g_free (p);
          return FALSE;
        }
      g_ptr_array_add (paths, p);
    }
  g_autofree char *extra = g_strdup_printf ("%s.%u.et", prefix, ranks);
  if (g_file_test (extra, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s exists: the workload has more trace files than the topology's %u ranks",
                   extra, ranks);
      return FALSE;
    }
  return wl_replay_load_files (r, (const char *const *) paths->pdata, ranks, error);
}

/* ---- process groups ---------------------------------------------------------- */

/* Group id -> rank list (GArray of guint32, borrowed); an empty list means
 * all ranks.  Config definitions first: they win over METADATA nodes. */
/* The distinct traces: how many, and the path and METADATA groups of the
 * I-th (in memory or streamed). */
static guint
n_traces (const WlReplay *r)
{
  return r->window > 0 ? r->scans->len : r->graphs->len;
}

static const GArray *
trace_group_defs (const WlReplay *r, guint i, const char **path)
{
  if (r->window > 0)
    {
      const WlTraceScan *scan = r->scans->pdata[i];
      *path = scan->path;
      return scan->group_defs;
    }
  const WlGraph *g = r->graphs->pdata[i];
  *path = g->path;
  return g->group_defs;
}

static gboolean
collect_groups (WlReplay *r, const WlGroups *groups, GHashTable *defs, GError **error)
{
  for (guint i = 0; i < n_traces (r); i++)
    {
      const char *path = NULL;
      const GArray *gdefs = trace_group_defs (r, i, &path);
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
          if (prev->len != d->ranks->len
              || memcmp (prev->data, d->ranks->data, prev->len * sizeof (guint32)) != 0)
            {
              g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                           "%s: METADATA defines process group %" G_GUINT64_FORMAT
                           " differently from another trace",
                           path, d->id);
              return FALSE;
            }
        }
    }
  return TRUE;
}

static gboolean
register_group (WlReplay *r, guint64 id, const guint32 *ranks, guint n, GHashTable *world,
                GError **error)
{
  if (n == 0 || n == r->n_ranks)
    {
      /* All ranks, in any order, is the world group: the topology's own
       * dimensions, no registration. */
      g_hash_table_add (world, g_memdup2 (&id, sizeof id));
      return TRUE;
    }
  if (!sys_group_add (r->sys, id, ranks, n, error))
    return FALSE;
  return TRUE;
}

/* The system group that collectives naming group ID run on, or FALSE with
 * ERROR set (naming PATH and NODE, the first node using ID) when ID is
 * not defined. */
gboolean
wl_replay_system_group (const WlGroups *groups, GHashTable *defs, GHashTable *world, guint64 id,
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

/* Point every collective at the system group it runs on: in memory, each
 * node; streamed, each group id the first pass saw (in the order of its
 * first use, so that the first undefined one is the one graph loading
 * names), mapped for stream_prepare. */
static gboolean
resolve_node_groups (WlReplay *r, const WlGroups *groups, GHashTable *defs, GHashTable *world,
                     GError **error)
{
  if (r->window > 0)
    return wl_replay_resolve_streamed_groups (r, groups, defs, world, error);
  for (guint i = 0; i < r->graphs->len; i++)
    {
      WlGraph *g = r->graphs->pdata[i];
      for (guint32 v = 0; v < g->n_nodes; v++)
        {
          WlNode *n = &g->nodes[v];
          if (n->op == WL_OP_COLL
              && !wl_replay_system_group (groups, defs, world, n->group, g->path, n->id,
                                          &n->group, error))
            return FALSE;
        }
    }
  return TRUE;
}

static gint
cmp_u64 (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
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
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "process groups name rank %" G_GINT64_FORMAT ", but there are %u ranks",
                   wl_groups_max_rank (groups), r->n_ranks);
      return FALSE;
    }
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
            g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                         "METADATA process group %" G_GUINT64_FORMAT " names rank %u, but there "
                         "are %u ranks", id, g_array_index (ranks, guint32, j), r->n_ranks);
            return FALSE;
          }
      if (!register_group (r, id, (const guint32 *) ranks->data, ranks->len, world, error))
        return FALSE;
    }
  if (groups != NULL)
    {
      g_autoptr (GArray) gids = wl_groups_ids (groups);
      for (guint i = 0; i < gids->len; i++)
        {
          guint64 id = g_array_index (gids, guint64, i);
          guint n = 0;
          const guint32 *ranks = wl_groups_lookup (groups, id, &n);
          if (!register_group (r, id, ranks, n, world, error))
            return FALSE;
        }
    }
  return resolve_node_groups (r, groups, defs, world, error);
}

/* ---- timing ------------------------------------------------------------------- */

/* Round a time in double-precision nanoseconds the configured way. */
static SimTime
round_ns (const WlParams *p, double ns)
{
  if (!(ns > 0.0))
    return 0;
  const guint64 max_ns = SIM_TIME_MAX / SIM_PS_PER_NS;
  if (ns >= (double) max_ns)
    return SIM_TIME_MAX;
  if (p->astra_rounding)
    return sim_time_from_ns ((guint64) ns);
  return (SimTime) ceil (ns * (double) SIM_PS_PER_NS);
}

/* A compute node's time: the compute model (compute.h) for COMP nodes,
 * divided by the rank's speed; host nodes keep their roofline time (as in
 * ASTRA-sim) or trace duration, at speed 1. */
static SimTime
compute_time (const WlParams *p, const WlNode *n, double speed)
{
  gboolean comp = n->op == WL_OP_COMP;
  gboolean modelled = p->compute == WL_COMPUTE_ROOFLINE ? n->num_ops > 0
                      : p->compute == WL_COMPUTE_SCALED ? comp
                                                        : FALSE;
  if (!comp)
    speed = 1.0;
  if (modelled)
    return round_ns (p, wl_compute_node_ns (p, n) / speed);
  if (p->astra_rounding && n->duration_ps == 0)
    return sim_time_from_ns (1); /* ASTRA-sim runs an empty node for 1 ns */
  if (speed == 1.0)
    return n->duration_ps;
  return round_ns (p, (double) n->duration_ps / (double) SIM_PS_PER_NS / speed);
}

static SimTime
memory_time (const WlParams *p, const WlNode *n)
{
  if (p->mem.kind == WL_MEM_NONE)
    return round_ns (p, (double) n->bytes / p->mem_bw_Bps * 1e9);
  return sim_time_add (p->mem.latency, round_ns (p, (double) n->bytes / p->mem.bandwidth_Bps * 1e9));
}

/* ---- replay --------------------------------------------------------------------- */


static guint
slot_limit (const WlReplay *r, guint slot)
{
  switch (slot)
    {
    case SLOT_COMP:
      return r->params.slots_comp;
    case SLOT_CPU:
      return r->params.slots_cpu;
    case SLOT_COMM:
      return r->params.slots_comm;
    default:
      return G_MAXUINT;
    }
}

void
wl_replay_fail_in_event (WlReplay *r, GError *error)
{
  if (r->error == NULL)
    r->error = error;
  else
    g_error_free (error);
  sim_sched_stop (r->sched);
}

/* Charge the time since the last change of what is in flight. */
static void
account (WlRank *k, SimTime now)
{
  SimTime dt = now - k->acct_since;
  k->acct_since = now;
  if (k->comp_in_flight > 0)
    k->stats.compute_busy += dt;
  if (k->comm_in_flight > 0)
    {
      k->stats.comm_busy += dt;
      if (k->comp_in_flight == 0)
        k->stats.exposed_comm += dt;
    }
}

static gboolean
is_comm (const WlNode *n)
{
  return n->op == WL_OP_COLL || n->op == WL_OP_SEND || n->op == WL_OP_RECV;
}

static void
in_flight_change (WlRank *k, const WlNode *n, SimTime now, int delta)
{
  if (n->op == WL_OP_COMP)
    {
      account (k, now);
      k->comp_in_flight += delta;
    }
  else if (is_comm (n))
    {
      account (k, now);
      k->comm_in_flight += delta;
    }
}

/* ---- recording ------------------------------------------------------------------- */

static void
p2p_wait_free (gpointer p)
{
  WlP2PWait *w = p;
  g_array_unref (w->sends);
  g_array_unref (w->recvs);
  g_free (w);
}

static guint
p2p_key_hash (gconstpointer p)
{
  const WlP2PKey *k = p;
  return (k->src * 2654435761u) ^ (k->dst * 40503u) ^ (guint) k->tag;
}

static gboolean
p2p_key_equal (gconstpointer a, gconstpointer b)
{
  const WlP2PKey *x = a, *y = b;
  return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

void
wl_replay_set_recording (WlReplay *r, gboolean on)
{
  g_return_if_fail (r != NULL);
  r->recording = on;
  if (!on || r->insts != NULL)
    return;
  r->insts = g_array_new (FALSE, FALSE, sizeof (WlCollInst));
  r->inst_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                         (GDestroyNotify) g_array_unref);
  r->p2p_wait = g_hash_table_new_full (p2p_key_hash, p2p_key_equal, g_free, p2p_wait_free);
}

static void
record_alloc (WlRank *k)
{
  guint32 n = k->graph->n_nodes;
  k->rec = g_new (WlNodeRecord, MAX (n, 1u));
  for (guint32 v = 0; v < n; v++)
    k->rec[v] = (WlNodeRecord) { .ready = SIM_TIME_MAX, .start = SIM_TIME_MAX,
                                 .end = SIM_TIME_MAX, .pred = WL_NO_NODE,
                                 .peer_rank = WL_NO_NODE, .peer_index = WL_NO_NODE,
                                 .link = WL_NO_NODE };
  k->coll_seq = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
}

/* This rank joins its next collective on `group`: note it in the instance. */
static void
record_join (WlRank *k, guint32 index, guint64 group, SimTime now)
{
  WlReplay *r = k->replay;
  guint32 seq = GPOINTER_TO_UINT (g_hash_table_lookup (k->coll_seq, &group));
  g_hash_table_replace (k->coll_seq, g_memdup2 (&group, sizeof group), GUINT_TO_POINTER (seq + 1));
  GArray *by_seq = g_hash_table_lookup (r->inst_index, &group);
  if (by_seq == NULL)
    {
      by_seq = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_hash_table_insert (r->inst_index, g_memdup2 (&group, sizeof group), by_seq);
    }
  if (seq >= by_seq->len)
    {
      WlCollInst inst = { .last_rank = k->rank, .last_index = index, .last_join = now };
      guint32 id = r->insts->len;
      g_array_append_val (r->insts, inst);
      g_array_append_val (by_seq, id);
    }
  guint32 id = g_array_index (by_seq, guint32, seq);
  WlCollInst *inst = &g_array_index (r->insts, WlCollInst, id);
  if (now >= inst->last_join)
    *inst = (WlCollInst) { .last_rank = k->rank, .last_index = index, .last_join = now };
  k->rec[index].link = id;
}

/* Pair a send or receive with the oldest waiting counterpart. */
static void
record_p2p (WlRank *k, guint32 index, const WlNode *n)
{
  WlReplay *r = k->replay;
  gboolean send = n->op == WL_OP_SEND;
  WlP2PKey key = { .src = send ? k->rank : n->peer_src, .dst = send ? n->peer_dst : k->rank,
                   .tag = n->tag };
  WlP2PWait *w = g_hash_table_lookup (r->p2p_wait, &key);
  if (w == NULL)
    {
      w = g_new0 (WlP2PWait, 1);
      w->sends = g_array_new (FALSE, FALSE, sizeof (guint64));
      w->recvs = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_hash_table_insert (r->p2p_wait, g_memdup2 (&key, sizeof key), w);
    }
  GArray *other = send ? w->recvs : w->sends;
  guint *head = send ? &w->recv_head : &w->send_head;
  guint64 self = (guint64) k->rank << 32 | index;
  if (*head == other->len)
    {
      g_array_append_val (send ? w->sends : w->recvs, self);
      return;
    }
  guint64 peer = g_array_index (other, guint64, (*head)++);
  guint32 prank = (guint32) (peer >> 32), pindex = (guint32) peer;
  k->rec[index].peer_rank = prank;
  k->rec[index].peer_index = pindex;
  r->ranks[prank].rec[pindex].peer_rank = k->rank;
  r->ranks[prank].rec[pindex].peer_index = index;
}

/* Start node INDEX (N): account for it and hand it to the compute model
 * or the system layer, which calls k->done when it is complete.  Shared by
 * both ways of holding a trace. */
static inline void
launch_node (WlRank *k, guint32 index, const WlNode *n)
{
  WlReplay *r = k->replay;
  SimHandler on_done = k->done;
  SimTime now = sim_sched_now (r->sched);
  GError *error = NULL;
  in_flight_change (k, n, now, +1);
  if (n->op == WL_OP_COLL)
    {
      k->stats.colls++;
      k->stats.coll_bytes += n->bytes;
    }
  else if (n->op == WL_OP_SEND)
    {
      k->stats.sends++;
      k->stats.send_bytes += n->bytes;
    }
  if (k->rec != NULL)
    {
      k->rec[index].start = now;
      k->rec[index].pred = k->finishing;
      if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
        record_p2p (k, index, n);
      else if (n->op == WL_OP_COLL
               && !(n->coll_kind == SYS_COLL_BROADCAST && r->params.astra_rounding))
        record_join (k, index, n->group, now);
    }
  switch ((WlOp) n->op)
    {
    case WL_OP_COMP:
    case WL_OP_CPU:
      {
        SimTime t = compute_time (&r->params, n, k->speed);
        if (n->op == WL_OP_COMP)
          k->stats.compute += t;
        else
          k->stats.cpu += t;
        sim_sched_at (r->sched, sim_time_add (now, t), on_done, k, index);
        return;
      }
    case WL_OP_MEM:
      sim_sched_at (r->sched, sim_time_add (now, memory_time (&r->params, n)), on_done, k,
                    index);
      return;
    case WL_OP_SKIP:
      sim_sched_at (r->sched, now, on_done, k, index);
      return;
    case WL_OP_COLL:
      {
        if (n->coll_kind == SYS_COLL_BROADCAST && r->params.astra_rounding)
          {
            /* ASTRA-sim does not simulate a broadcast: it waits out the
             * node's duration. */
            sim_sched_at (r->sched, sim_time_add (now, n->duration_ps), on_done, k, index);
            return;
          }
        SysCollRequest req = { .kind = (SysCollKind) n->coll_kind, .bytes = n->bytes,
                               .group = n->group, .priority = n->priority,
                               .root = n->root == WL_RANK_SELF ? SYS_ROOT_FIRST : n->root,
                               .involved_dims = n->involved, .node_id = n->id,
                               .on_done = on_done, .data = k, .arg = index };
        if (!sys_coll_join (r->sys, k->rank, &req, &error))
          wl_replay_fail_in_event (r, error);
        return;
      }
    case WL_OP_SEND:
    case WL_OP_RECV:
      {
        gboolean send = n->op == WL_OP_SEND;
        SysP2PRequest req = { .src = send ? k->rank : n->peer_src,
                              .dst = send ? n->peer_dst : k->rank, .tag = n->tag,
                              .bytes = n->bytes, .node_id = n->id, .on_done = on_done,
                              .data = k, .arg = index };
        if (!(send ? sys_p2p_send (r->sys, &req, &error) : sys_p2p_recv (r->sys, &req, &error)))
          wl_replay_fail_in_event (r, error);
        return;
      }
    }
  g_assert_not_reached ();
}

/* Start node INDEX, held in memory or in a streamed window. */
static void
launch (WlRank *k, guint32 index)
{
  const WlNode *n;
  guint8 *state;
  if (G_LIKELY (k->stream == NULL))
    {
      n = &k->graph->nodes[index];
      state = &k->state[index];
    }
  else
    {
      n = wl_stream_node (k->stream, index);
      state = wl_stream_state (k->stream, index);
    }
  *state = NODE_RUNNING;
  launch_node (k, index, n);
}

/* Start every ready node that has a free slot. */
static void
issue (WlRank *k)
{
  for (guint s = 0; s < SLOT_N; s++)
    {
      guint limit = slot_limit (k->replay, s);
      while (k->ready[s].len > 0 && k->busy[s] < limit)
        {
          k->busy[s]++;
          launch (k, fifo_pop (&k->ready[s]));
        }
    }
}

static void
make_ready (WlRank *k, guint32 index)
{
  k->state[index] = NODE_READY;
  if (k->rec != NULL)
    k->rec[index].ready = sim_sched_now (k->replay->sched);
  wl_replay_fifo_push (k, &k->ready[wl_replay_slot_of (&k->graph->nodes[index])], index);
}

/* What a completion does before releasing dependents, in both modes. */
static inline void
complete (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  k->busy[wl_replay_slot_of (n)]--;
  k->stats.nodes_done++;
  k->stats.finish = now;
  in_flight_change (k, n, now, -1);
  if (k->rec != NULL)
    {
      WlNodeRecord *rec = &k->rec[index];
      rec->end = now;
      if (rec->link != WL_NO_NODE)
        {
          const WlCollInst *inst = &g_array_index (k->replay->insts, WlCollInst, rec->link);
          rec->peer_rank = inst->last_rank;
          rec->peer_index = inst->last_index;
        }
    }
}

/* Issue what node INDEX's completion made ready (or freed a slot for),
 * noting INDEX as their predecessor. */
static inline void
issue_after (WlRank *k, guint32 index)
{
  guint32 outer = k->finishing;
  k->finishing = index;
  issue (k);
  k->finishing = outer;
}

static void
on_node_done (SimSched *sched, gpointer data, guint64 index)
{
  WlRank *k = data;
  const WlGraph *g = k->graph;
  const WlNode *n = &g->nodes[index];
  complete (k, (guint32) index, n, sim_sched_now (sched));
  k->state[index] = NODE_DONE;
  for (guint32 c = 0; c < n->n_children; c++)
    {
      guint32 child = g->children[n->child_start + c];
      if (--k->parents_left[child] == 0)
        make_ready (k, child);
    }
  issue_after (k, (guint32) index);
}

/* The streamed replay's completions share these (replay_stream.c); the
 * in-memory one keeps them inline. */
void
wl_replay_complete (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  complete (k, index, n, now);
}

void
wl_replay_issue_after (WlRank *k, guint32 index)
{
  issue_after (k, index);
}

static void
on_rank_start (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  (void) arg;
  WlRank *k = data;
  k->finishing = WL_NO_NODE;
  if (k->replay->recording && k->rec == NULL)
    record_alloc (k);
  for (guint32 v = 0; v < k->graph->n_nodes; v++)
    if (k->graph->nodes[v].n_parents == 0)
      make_ready (k, v);
  issue (k);
}

/* Same nodes (types, sizes, times, peers, groups) and dependencies; ids may
 * differ (they only name nodes). */
static gboolean
same_graph (const WlGraph *a, const WlGraph *b)
{
  if (a->n_nodes != b->n_nodes)
    return FALSE;
  guint64 edges = 0;
  for (guint32 v = 0; v < a->n_nodes; v++)
    {
      const WlNode *x = &a->nodes[v], *y = &b->nodes[v];
      if (x->duration_ps != y->duration_ps || x->num_ops != y->num_ops
          || x->bytes != y->bytes || x->group != y->group || x->child_start != y->child_start
          || x->n_children != y->n_children || x->n_parents != y->n_parents
          || x->peer_src != y->peer_src || x->peer_dst != y->peer_dst || x->tag != y->tag
          || x->priority != y->priority || x->involved != y->involved || x->root != y->root
          || x->op != y->op || x->coll_kind != y->coll_kind || x->has_duration != y->has_duration)
        return FALSE;
      edges += x->n_children;
    }
  return memcmp (a->children, b->children, edges * sizeof (guint32)) == 0;
}

gboolean
wl_replay_symmetric (const WlReplay *r, const char **why)
{
  /* The shortcut compares every rank's whole graph, and keeps rank 0's
   * node states for all. */
  if (r->window > 0)
    return (*why = "the traces are streamed (they do not fit the memory budget)", FALSE);
  /* Files may differ in what replay ignores (node names, attribute order):
   * the decoded graphs must be the same. */
  const WlGraph *g0 = r->graphs->pdata[0];
  for (guint i = 1; i < r->graphs->len; i++)
    if (!same_graph (g0, r->graphs->pdata[i]))
      return (*why = "the ranks' traces differ", FALSE);
  for (guint32 i = 1; i < r->n_ranks; i++)
    if (wl_params_rank_speed (&r->params, i) != wl_params_rank_speed (&r->params, 0))
      return (*why = "ranks compute at different speeds", FALSE);
  for (guint32 v = 0; v < g0->n_nodes; v++)
    {
      const WlNode *n = &g0->nodes[v];
      if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
        return (*why = "point-to-point messages", FALSE);
      if (n->op != WL_OP_COLL
          || (n->coll_kind == SYS_COLL_BROADCAST && r->params.astra_rounding))
        continue;
      if (n->group != SYS_GROUP_WORLD)
        return (*why = "collectives on process groups", FALSE);
      if (!sys_symmetric (r->sys, (SysCollKind) n->coll_kind, n->involved, why))
        return FALSE;
    }
  return TRUE;
}

void
wl_replay_set_lockstep (WlReplay *r, gboolean on)
{
  r->lockstep = on;
}

gboolean
wl_replay_lockstep (const WlReplay *r)
{
  return r->lockstep;
}

void
wl_replay_lockstep_finish (WlReplay *r)
{
  g_return_if_fail (r->lockstep);
  for (guint32 i = 1; i < r->n_ranks; i++)
    {
      r->ranks[i].stats = r->ranks[0].stats;
      r->ranks[i].rec = r->ranks[0].rec;
      memcpy (r->ranks[i].state, r->ranks[0].state, r->ranks[0].graph->n_nodes);
    }
}

void
wl_replay_start (WlReplay *r)
{
  if (r->lockstep)
    {
      sim_sched_at (r->sched, sim_sched_now (r->sched), on_rank_start, &r->ranks[0], 0);
      return;
    }
  for (guint32 i = 0; i < r->n_ranks; i++)
    sim_sched_at (r->sched, sim_sched_now (r->sched),
                  r->window > 0 ? wl_replay_on_stream_start : on_rank_start, &r->ranks[i], 0);
}

/* ---- results ---------------------------------------------------------------------- */

gboolean
wl_replay_ok (const WlReplay *r, GError **error)
{
  if (r->error == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (r->error));
  return FALSE;
}

guint32
wl_replay_unfinished (const WlReplay *r)
{
  guint32 count = 0;
  for (guint32 i = 0; i < r->n_ranks; i++)
    count += r->ranks[i].stats.nodes_done < r->ranks[i].stats.nodes;
  return count;
}

static const char *
op_name (const WlNode *n)
{
  static const char *const names[] = { "skipped", "COMP", "CPU COMP", "COMM_COLL", "COMM_SEND",
                                       "COMM_RECV", "MEM" };
  return names[n->op];
}

/* Node V of K's trace, and its state; NULL when streamed and V's block is
 * not resident (V is done, or not read yet). */
static const WlNode *
rank_node (const WlRank *k, guint32 v, guint8 *state)
{
  if (k->stream == NULL)
    {
      *state = k->state[v];
      return &k->graph->nodes[v];
    }
  if (!wl_stream_resident (k->stream, v))
    return NULL;
  *state = *wl_stream_state (k->stream, v);
  return wl_stream_node (k->stream, v);
}

static void
describe_rank (const WlRank *k, GString *out)
{
  guint32 running = 0, ready = 0;
  g_string_append_printf (out, "rank %u: %u of %u nodes unfinished", k->rank,
                          k->stats.nodes - k->stats.nodes_done, k->stats.nodes);
  /* Running nodes are resident; a streamed trace's nodes not read yet all
   * wait (any that would be ready was an error when read). */
  guint32 first = k->stream != NULL ? wl_stream_first (k->stream) : 0;
  guint32 end = k->stream != NULL ? wl_stream_end (k->stream) : k->stats.nodes;
  for (guint32 v = first; v < end; v++)
    {
      guint8 state = NODE_DONE;
      const WlNode *n = rank_node (k, v, &state);
      if (n == NULL || state != NODE_RUNNING)
        continue;
      if (running++ < 4)
        {
          g_string_append_printf (out, "%s node %" G_GUINT64_FORMAT " (%s", running == 1 ? "; blocked in" : ",",
                                  n->id, op_name (n));
          if (n->op == WL_OP_RECV)
            g_string_append_printf (out, " from rank %u tag %d", n->peer_src, n->tag);
          else if (n->op == WL_OP_SEND)
            g_string_append_printf (out, " to rank %u tag %d", n->peer_dst, n->tag);
          g_string_append_c (out, ')');
        }
    }
  for (guint s = 0; s < SLOT_N; s++)
    ready += k->ready[s].len;
  guint32 waiting = k->stats.nodes - k->stats.nodes_done - running - ready;
  if (waiting > 0)
    g_string_append_printf (out, "; %u nodes wait on their dependencies", waiting);
  g_string_append_c (out, '\n');
}

void
wl_replay_describe_blocked (const WlReplay *r, GString *out, guint max_ranks)
{
  guint shown = 0, total = 0;
  for (guint32 i = 0; i < r->n_ranks; i++)
    if (r->ranks[i].stats.nodes_done < r->ranks[i].stats.nodes)
      {
        if (shown++ < max_ranks)
          describe_rank (&r->ranks[i], out);
        total++;
      }
  if (total > max_ranks)
    g_string_append_printf (out, "... and %u more ranks\n", total - max_ranks);
}

guint32
wl_replay_ranks (const WlReplay *r)
{
  return r->n_ranks;
}

const WlRankStats *
wl_replay_rank_stats (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return &r->ranks[rank].stats;
}

const WlNodeRecord *
wl_replay_records (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return r->ranks[rank].rec;
}

const WlGraph *
wl_replay_graph (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return r->ranks[rank].graph;
}

guint
wl_replay_distinct_graphs (const WlReplay *r)
{
  return n_traces (r);
}

guint64
wl_replay_unknown_nodes (const WlReplay *r)
{
  guint64 total = 0;
  for (guint i = 0; i < r->graphs->len; i++)
    total += ((const WlGraph *) r->graphs->pdata[i])->n_skipped_unknown;
  for (guint i = 0; i < r->scans->len; i++)
    total += ((const WlTraceScan *) r->scans->pdata[i])->n_skipped_unknown;
  return total;
}

void
wl_replay_lenient_stats (const WlReplay *r, WlLenientStats *out)
{
  g_return_if_fail (r != NULL && out != NULL);
  *out = (WlLenientStats) { 0 };
  for (guint32 i = 0; i < r->n_ranks; i++)
    wl_lenient_stats_add (out, r->ranks[i].graph != NULL ? &r->ranks[i].graph->dropped
                                                         : &r->ranks[i].scan->dropped);
}
