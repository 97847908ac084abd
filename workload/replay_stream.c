/* replay_stream.c: the replay of streamed traces (stream.h): their loading
 * (a first pass over each distinct file, whose checks stand for graph
 * loading's), and their ranks' start and completions, which read ahead
 * into each rank's window.  Nodes are launched by replay.c. */
#include <string.h>
#include <sys/resource.h>

#include "sim/units.h"
#include "workload/replay_private.h"
#include "workload/wl_error.h"

void
wl_replay_scan_info_free (gpointer p)
{
  ScanInfo *info = p;
  g_clear_error (&info->compute);
  g_array_unref (info->colls);
  g_hash_table_unref (info->seen);
  g_free (info);
}

typedef struct
{
  WlReplay *replay;
  ScanInfo *info;
  const char *path;
  guint32 n_ranks;
} ScanCtx;

/* Each node of a file's first pass: note what the checks need. */
static gboolean
scan_node (gpointer data, const WlNode *n, GError **error)
{
  (void) error;
  ScanCtx *c = data;
  ScanInfo *info = c->info;
  guint64 at = info->position++;
  wl_replay_node_check (c->replay, c->path, n);
  if (info->compute == NULL && wl_replay_untimeable (&c->replay->params, n))
    wl_replay_untimeable_error (c->path, n, &info->compute);
  if (n->op == WL_OP_COLL && !g_hash_table_contains (info->seen, &n->group))
    {
      CollGroup cg = { .group = n->group, .node = n->id };
      g_array_append_val (info->colls, cg);
      g_hash_table_add (info->seen, g_memdup2 (&n->group, sizeof n->group));
    }
  if (n->op != WL_OP_SEND && n->op != WL_OP_RECV)
    return TRUE;
  guint32 self = n->op == WL_OP_SEND ? n->peer_src : n->peer_dst;
  if (self != WL_RANK_SELF && info->first_self_at == G_MAXUINT64)
    {
      info->first_self = *n;
      info->first_self_at = at;
    }
  else if (self != WL_RANK_SELF && info->other_self_at == G_MAXUINT64
           && self != (info->first_self.op == WL_OP_SEND ? info->first_self.peer_src
                                                        : info->first_self.peer_dst))
    {
      info->other_self = *n;
      info->other_self_at = at;
    }
  if (info->bad_peer_at == G_MAXUINT64 && wl_replay_peer_problem (n, c->n_ranks) != NULL)
    {
      info->bad_peer = *n;
      info->bad_peer_at = at;
    }
  return TRUE;
}

/* check_rank from a first pass's notes: the first send or receive, in file
 * order, that names another rank as its own, or lacks a valid peer. */
static gboolean
check_rank_noted (const ScanInfo *info, const char *path, guint32 rank, guint32 n_ranks,
                  GError **error)
{
  const WlNode *self = NULL;
  guint64 self_at = G_MAXUINT64;
  if (info->first_self_at != G_MAXUINT64
      && wl_replay_self_problem (&info->first_self, rank) != NULL)
    {
      self = &info->first_self;
      self_at = info->first_self_at;
    }
  else if (info->other_self_at != G_MAXUINT64)
    {
      self = &info->other_self;
      self_at = info->other_self_at;
    }
  if (self != NULL && self_at <= info->bad_peer_at)
    return wl_replay_p2p_error (path, rank, self, wl_replay_self_problem (self, rank), error);
  if (info->bad_peer_at != G_MAXUINT64)
    return wl_replay_p2p_error (path, rank, &info->bad_peer,
                                wl_replay_peer_problem (&info->bad_peer, n_ranks), error);
  return TRUE;
}

/* The first pass over PATH, or the one already made over an identical
 * file; *FRESH tells which. */
static WlTraceScan *
scan_trace (WlReplay *r, GHashTable *by_digest, const char *path, guint32 n_ranks,
            ScanInfo **info, gboolean *fresh, GError **error)
{
  char *digest = wl_file_sha256 (path, error);
  if (digest == NULL)
    return NULL;
  gpointer hit = NULL;
  if (g_hash_table_lookup_extended (by_digest, digest, NULL, &hit))
    {
      g_free (digest);
      *fresh = FALSE;
      *info = r->infos->pdata[GPOINTER_TO_UINT (hit)];
      return r->scans->pdata[GPOINTER_TO_UINT (hit)];
    }
  ScanInfo *ni = g_new0 (ScanInfo, 1);
  ni->first_self_at = ni->other_self_at = ni->bad_peer_at = G_MAXUINT64;
  ni->colls = g_array_new (FALSE, FALSE, sizeof (CollGroup));
  ni->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  ScanCtx ctx = { .replay = r, .info = ni, .path = path, .n_ranks = n_ranks };
  WlTraceScan *scan = wl_trace_scan (path, r->params.lenient, scan_node, &ctx, error);
  if (scan == NULL)
    {
      wl_replay_scan_info_free (ni);
      g_free (digest);
      return NULL;
    }
  scan->sha256 = g_strdup (digest);
  g_hash_table_insert (by_digest, digest, GUINT_TO_POINTER (r->scans->len));
  g_ptr_array_add (r->scans, scan);
  g_ptr_array_add (r->infos, ni);
  *info = ni;
  *fresh = TRUE;
  return scan;
}

/* A streamed replay keeps one file open per rank: raise the soft limit on
 * open files (up to the hard one) when the ranks need more. */
static void
allow_open_files (guint32 ranks)
{
  struct rlimit rl;
  rlim_t want = (rlim_t) ranks + 64;
  if (getrlimit (RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
    return;
  rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ? want : MIN (want, rl.rlim_max);
  setrlimit (RLIMIT_NOFILE, &rl);
}

/* Streamed mode: the process group of a collective node, resolved by
 * wl_replay_bind_groups. */
static void
stream_prepare (gpointer data, WlNode *n)
{
  WlReplay *r = data;
  if (n->op != WL_OP_COLL)
    return;
  const guint64 *to = r->group_map != NULL ? g_hash_table_lookup (r->group_map, &n->group) : NULL;
  if (to != NULL)
    n->group = *to;
}

/* The window of each rank: the budget shared by the ranks, less each one's
 * reader, in WL_STREAM_NODE_BYTES slots, and never below
 * WL_STREAM_MIN_WINDOW. */
static guint32
window_for (const WlReplay *r, guint32 ranks)
{
  if (r->forced_window > 0)
    return r->forced_window;
  guint64 share = r->budget / ranks;
  guint64 nodes = share > WL_STREAM_RANK_BYTES
                    ? (share - WL_STREAM_RANK_BYTES) / WL_STREAM_NODE_BYTES
                    : 0;
  return (guint32) CLAMP (nodes, (guint64) WL_STREAM_MIN_WINDOW, (guint64) G_MAXUINT32 - 1);
}

gboolean
wl_replay_load_streamed (WlReplay *r, const char *const *paths, guint32 ranks, GError **error)
{
  r->window = window_for (r, ranks);
  g_autoptr (GHashTable) by_digest = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint32 i = 0; i < ranks; i++)
    {
      WlRank *k = &r->ranks[i];
      ScanInfo *info = NULL;
      gboolean fresh = FALSE;
      WlTraceScan *scan = scan_trace (r, by_digest, paths[i], ranks, &info, &fresh, error);
      if (scan == NULL || !check_rank_noted (info, scan->path, i, ranks, error))
        return FALSE;
      if (fresh && info->compute != NULL)
        {
          g_propagate_error (error, g_error_copy (info->compute));
          return FALSE;
        }
      k->replay = r;
      k->rank = i;
      k->scan = scan;
      k->info = info;
      k->done = wl_replay_on_stream_done;
      k->speed = wl_params_rank_speed (&r->params, i);
      k->stats.nodes = scan->n_nodes;
      r->n_ranks = i + 1;
    }
  allow_open_files (ranks);
  for (guint32 i = 0; i < ranks; i++)
    {
      WlRank *k = &r->ranks[i];
      WlStreamParams p = { .scan = k->scan, .window = r->window, .rank = i,
                           .budget = r->forced_window > 0 ? 0 : r->budget,
                           .prepare = stream_prepare, .data = r };
      k->stream = wl_stream_open (&p, error);
      if (k->stream == NULL)
        return FALSE;
    }
  return TRUE;
}

/* The traces need more than the budget: refuse when an option needs every
 * node in memory. */
gboolean
wl_replay_may_stream (const WlReplay *r, GError **error)
{
  if (r->needs_all == NULL)
    return TRUE;
  g_autofree char *b = sim_units_format_bytes (r->budget);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "the traces do not fit the memory budget (--memory-budget %s) and would be "
               "streamed, but %s needs every trace node in memory (a record of each): "
               "give a larger --memory-budget, or --memory-budget none, or drop %s",
               b, r->needs_all, r->needs_all);
  return FALSE;
}

gboolean
wl_replay_resolve_streamed_groups (WlReplay *r, const WlGroups *groups, GHashTable *defs,
                                   GHashTable *world, GError **error)
{
  if (r->group_map == NULL)
    r->group_map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  for (guint i = 0; i < r->scans->len; i++)
    {
      const WlTraceScan *scan = r->scans->pdata[i];
      const ScanInfo *info = r->infos->pdata[i];
      for (guint j = 0; j < info->colls->len; j++)
        {
          const CollGroup *cg = &g_array_index (info->colls, CollGroup, j);
          guint64 to;
          if (!wl_replay_system_group (groups, defs, world, cg->group, scan->path, cg->node,
                                       &to, error))
            return FALSE;
          g_hash_table_replace (r->group_map, g_memdup2 (&cg->group, sizeof cg->group),
                                g_memdup2 (&to, sizeof to));
        }
    }
  return TRUE;
}

/* ---- completions ------------------------------------------------------------------ */

/* A node of the window is ready (a WlStreamReadyFunc). */
static void
stream_ready (gpointer data, guint32 seq)
{
  WlRank *k = data;
  *wl_stream_state (k->stream, seq) = NODE_READY;
  wl_replay_fifo_push (k, &k->ready[wl_replay_slot_of (wl_stream_node (k->stream, seq))], seq);
}

/* Read ahead after the rank started, or after node INDEX finished and
 * released its dependents (FILL says which); then issue, and stop the run
 * with an error when nothing can run any more although nodes are left
 * (their dependencies lie beyond the window), or on a read error. */
static void
stream_advance (WlRank *k, const WlStreamFill *fill, guint32 index)
{
  GError *error = NULL;
  if (!wl_stream_fill (k->stream, fill, &error))
    {
      wl_replay_fail_in_event (k->replay, error);
      return;
    }
  wl_replay_issue_after (k, index);
  guint pending = 0;
  for (guint s = 0; s < SLOT_N; s++)
    pending += k->ready[s].len + k->busy[s];
  if (pending == 0 && k->stats.nodes_done < k->stats.nodes)
    {
      wl_stream_stuck (k->stream, fill->now, &error);
      wl_replay_fail_in_event (k->replay, error);
    }
}

void
wl_replay_on_stream_done (SimSched *sched, gpointer data, guint64 index)
{
  WlRank *k = data;
  const WlNode *n = wl_stream_node (k->stream, (guint32) index);
  WlStreamFill fill = { .now = sim_sched_now (sched), .started = TRUE, .finishing = TRUE,
                        .finishing_id = n->id, .ready = stream_ready, .data = k };
  wl_replay_complete (k, (guint32) index, n, fill.now);
  *wl_stream_state (k->stream, (guint32) index) = NODE_DONE;
  wl_stream_finish (k->stream, (guint32) index, stream_ready, k);
  stream_advance (k, &fill, (guint32) index);
}

void
wl_replay_on_stream_start (SimSched *sched, gpointer data, guint64 arg)
{
  (void) arg;
  WlRank *k = data;
  WlStreamFill fill = { .now = sim_sched_now (sched), .started = FALSE, .ready = stream_ready,
                        .data = k };
  stream_advance (k, &fill, WL_NO_NODE);
}

gboolean
wl_replay_check_windows (const WlReplay *r, GError **error)
{
  for (guint32 i = 0; i < r->n_ranks; i++)
    {
      const WlRank *k = &r->ranks[i];
      if (k->stream == NULL || wl_stream_read_all (k->stream)
          || k->stats.nodes_done == k->stats.nodes)
        continue;
      g_autofree char *t = sim_units_format_time (sim_sched_now (r->sched));
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: rank %u: the run stopped at %s with nodes of this trace not read yet "
                   "and the memory budget's window (%u nodes) full: either the workload "
                   "deadlocks, or the budget is too small to stream it; give a larger "
                   "--memory-budget, or --memory-budget none, to tell", k->scan->path, k->rank,
                   t, r->window);
      return FALSE;
    }
  return TRUE;
}
