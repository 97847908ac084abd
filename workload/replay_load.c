/* replay_load.c: loading every rank's trace, in memory or streamed, and
 * the checks made while loading (one pass per distinct file, replay_check.h,
 * whichever way it is held). */
#include <sys/resource.h>

#include "sim/units.h"
#include "workload/chakra_json.h"
#include "workload/graph_cache.h"
#include "workload/group_memo.h"
#include "workload/kernels.h"
#include "workload/replay_private.h"
#include "workload/wl_error.h"

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
wl_replay_set_load_threads (WlReplay *r, guint threads)
{
  g_return_if_fail (r != NULL && r->ranks == NULL);
  wl_graph_cache_set_threads (r->cache, threads);
  wl_graph_cache_set_serial (r->cache, WL_LOAD_SERIAL_BYTES);
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

guint64
wl_replay_trace_bytes (const WlReplay *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->trace_bytes;
}

guint64
wl_replay_held_bytes (const WlReplay *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->held_bytes;
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

/* The node check (wl_replay_set_node_check), keeping its first failure. */
static void
node_check (gpointer data, const char *path, const WlNode *n)
{
  WlReplay *r = data;
  if (r->check != NULL && r->check_error == NULL)
    r->check (r->check_data, path, n, &r->check_error);
}

/* A check of PATH's nodes for this run. */
static WlTraceCheck *
check_new (WlReplay *r, const char *path, guint32 n_ranks)
{
  return wl_trace_check_new (path, &r->params, n_ranks, node_check, r);
}

/* A new distinct trace (CHECK is taken). */
static WlTrace *
trace_add (WlReplay *r, const char *path, const GArray *group_defs, guint32 unknown,
           WlTraceCheck *check)
{
  WlTrace t = { .path = path, .group_defs = group_defs, .n_skipped_unknown = unknown,
                .check = check };
  g_array_append_val (r->traces, t);
  return &g_array_index (r->traces, WlTrace, r->traces->len - 1);
}

void
wl_replay_trace_facts (const WlReplay *r, WlTraceFacts *out)
{
  g_return_if_fail (r != NULL && out != NULL);
  *out = (WlTraceFacts) { 0 };
  for (guint i = 0; i < r->traces->len; i++)
    {
      const WlTraceFacts *f = &g_array_index (r->traces, WlTrace, i).facts;
      if (i == 0)
        *out = *f;
      /* Facts about the whole iteration: a trace that says otherwise (or
       * nothing) leaves the run without that fact. */
      if (f->model_flops != out->model_flops || f->flops_formula != out->flops_formula)
        {
          out->model_flops = 0.0;
          out->flops_formula = NULL;
        }
      if (f->tokens_per_iteration != out->tokens_per_iteration)
        out->tokens_per_iteration = 0;
    }
  out->peak_memory_B = wl_replay_peak_memory (r, NULL, NULL, NULL);
}

void
wl_replay_kernel_table_use (const WlReplay *r, guint *distinct, guint *from_table)
{
  g_return_if_fail (r != NULL && distinct != NULL && from_table != NULL);
  *distinct = *from_table = 0;
  const WlParams *p = &r->params;
  if (p->kernel_table == NULL || p->kernel_device == NULL)
    return;
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  /* Graphs read against another share its lists: each walked once. */
  g_autoptr (GHashTable) walked = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < r->graphs->len; i++)
    {
      const WlGraph *g = g_ptr_array_index (r->graphs, i);
      if (g->kernels != NULL && g_hash_table_add (walked, g->kernels))
        wl_kernel_lists_table_use (g->kernels, p->kernel_table, p->kernel_device->name, seen,
                                   distinct, from_table);
    }
}

guint64
wl_replay_peak_memory (const WlReplay *r, const char **path, guint *missing, guint *traces)
{
  g_return_val_if_fail (r != NULL, 0);
  guint64 most = 0;
  const char *at = NULL;
  guint none = 0;
  for (guint i = 0; i < r->traces->len; i++)
    {
      const WlTrace *t = &g_array_index (r->traces, WlTrace, i);
      none += t->facts.peak_memory_B == 0;
      if (t->facts.peak_memory_B > most)
        {
          most = t->facts.peak_memory_B;
          at = t->path;
        }
    }
  if (path != NULL)
    *path = at;
  if (missing != NULL)
    *missing = none;
  if (traces != NULL)
    *traces = r->traces->len;
  return most;
}

void
wl_replay_traces_free (WlReplay *r)
{
  for (guint i = 0; i < r->traces->len; i++)
    wl_trace_check_free (g_array_index (r->traces, WlTrace, i).check);
  g_array_set_size (r->traces, 0);
  g_ptr_array_set_size (r->graphs, 0);
  g_ptr_array_set_size (r->scans, 0);
}

/* The checks of rank I's trace T; FRESH: the first rank with this file. */
static gboolean
check_trace (const WlTrace *t, guint32 i, gboolean fresh, GError **error)
{
  return wl_trace_check_rank (t->check, i, error)
         && (!fresh || wl_trace_check_compute (t->check, error));
}

/* Per-rank replay state, in bytes per node (parents_left, state), for the
 * memory budget. */
#define RANK_NODE_BYTES (sizeof (guint32) + 1)

/* Take G (a reference) as rank I's graph, FRESH when no earlier rank has
 * it; BY_GRAPH maps each graph to its trace's index. */
static gboolean
add_rank (WlReplay *r, guint32 i, WlGraph *g, gboolean fresh, guint32 ranks,
          GHashTable *by_graph, GError **error)
{
  if (fresh)
    {
      g_ptr_array_add (r->graphs, g);
      WlTrace *t = trace_add (r, g->path, g->group_defs, g->n_skipped_unknown,
                              check_new (r, g->path, ranks));
      t->facts = g->facts;
      /* A renamed graph's nodes are its base's but for the ranks and
       * groups they name: with the base checked, those are what is left. */
      guint32 hint = 0;
      WlNode tmp;
      const WlNode *shape = wl_graph_shape_nodes (g);
      /* Of a table's, only the nodes that first name a name in some place
       * can change what the check notes (the first node of each group,
       * the first own rank, another own rank, a bad peer: WlNameSlots'
       * firsts); the others are counted. */
      const WlNameSlots *s = g->table != NULL ? g->base->slots : NULL;
      if (s != NULL && g_hash_table_contains (by_graph, g->base))
        {
          guint32 v = 0;
          for (guint32 e = 0; e < s->n_firsts; e++, v++)
            {
              for (; v < s->firsts[e]; v++)
                wl_trace_check_skip (t->check);
              wl_trace_check_node_names (t->check, wl_graph_node_at (g, v, &hint, &tmp));
            }
          for (; v < g->n_nodes; v++)
            wl_trace_check_skip (t->check);
        }
      else if (g->base != NULL && g_hash_table_contains (by_graph, g->base))
        for (guint32 v = 0; v < g->n_nodes; v++)
          if (shape[v].op == WL_OP_SEND || shape[v].op == WL_OP_RECV || shape[v].op == WL_OP_COLL)
            wl_trace_check_node_names (t->check, wl_graph_node_at (g, v, &hint, &tmp));
          else
            wl_trace_check_skip (t->check); /* names nothing: the base's node, as checked */
      else
        for (guint32 v = 0; v < g->n_nodes; v++)
          wl_trace_check_node (t->check, wl_graph_node_at (g, v, &hint, &tmp), NULL);
      g_hash_table_insert (by_graph, g, GUINT_TO_POINTER (r->traces->len - 1));
    }
  guint ti = GPOINTER_TO_UINT (g_hash_table_lookup (by_graph, g));
  if (!check_trace (&g_array_index (r->traces, WlTrace, ti), i, fresh, error))
    {
      wl_graph_unref (g);
      return FALSE;
    }
  WlNodeSource *src = wl_mem_source_new (g, i, fresh, error);
  if (src == NULL)
    return FALSE;
  r->n_ranks = i + 1;
  wl_replay_rank_init (r, &r->ranks[i], i, src);
  r->ranks[i].graph = g;
  r->ranks[i].kernels = g->kernels;
  r->ranks[i].exchanges = g->exchanges;
  r->ranks[i].dropped = &g->dropped;
  return TRUE;
}

/* Load every rank's graph.  With a budget, FALSE with ERROR unset and
 * *OVER set as soon as the bytes held would pass it. */
static gboolean
load_in_memory (WlReplay *r, const char *const *paths, guint32 ranks, gboolean *over,
                GError **error)
{
  g_autoptr (GHashTable) by_graph = g_hash_table_new (g_direct_hash, g_direct_equal);
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
      if (!add_rank (r, i, g, fresh, ranks, by_graph, error))
        return FALSE;
    }
  r->held_bytes = total;
  return TRUE;
}

gboolean
wl_replay_load_graphs (WlReplay *r, WlGraph *const *graphs, guint32 ranks, GError **error)
{
  g_return_val_if_fail (r != NULL && graphs != NULL && ranks > 0, FALSE);
  g_return_val_if_fail (r->ranks == NULL, FALSE);
  r->ranks = sim_try_alloc (ranks, sizeof (WlRank), TRUE, "the ranks' replay state", error);
  if (r->ranks == NULL)
    return FALSE;
  /* Each rank's node source holds a reference to its graph: r->graphs
   * borrows them as it borrows the cache's. */
  g_autoptr (GHashTable) by_graph = g_hash_table_new (g_direct_hash, g_direct_equal);
  for (guint32 i = 0; i < ranks; i++)
    {
      gboolean fresh = !g_hash_table_contains (by_graph, graphs[i]);
      if (!add_rank (r, i, wl_graph_ref (graphs[i]), fresh, ranks, by_graph, error))
        return FALSE;
    }
  return TRUE;
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

/* The traces need more than the budget: refuse when an option needs every
 * node in memory. */
static gboolean
may_stream (const WlReplay *r, GError **error)
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

/* What the first passes of a streamed load share. */
typedef struct
{
  GHashTable *by_hash;   /* guint64* wl_bytes_hash (owned) -> GArray of the indices of
                          * the traces of that hash */
  WlGroupMemo *groups;   /* the files' METADATA group lists */
  guint32 n_ranks;
} ScanMemo;

/* The index of the trace scanned before whose file holds IMG's bytes
 * (compared in full), or -1. */
static gint64
scanned_before (const WlReplay *r, const ScanMemo *memo, const WlFileImage *img)
{
  const GArray *same = img->bytes != NULL ? g_hash_table_lookup (memo->by_hash, &img->hash)
                                          : NULL;
  for (guint k = 0; same != NULL && k < same->len; k++)
    {
      guint t = g_array_index (same, guint, k);
      if (wl_file_image_same (img, ((const WlTraceScan *) r->scans->pdata[t])->path))
        return t;
    }
  return -1;
}

/* The first pass over PATH (noting the checks), or the one already made
 * over an identical file (MEMO); *FRESH tells which and *TRACE is its
 * trace.  PATH is mapped, hashed, compared with the files of its hash,
 * and scanned when new. */
static WlTraceScan *
scan_trace (WlReplay *r, const ScanMemo *memo, const char *path, WlTrace **trace,
            gboolean *fresh, GError **error)
{
  g_auto (WlFileImage) img = { 0 };
  if (!wl_file_image_open (&img, path, error))
    return NULL;
  r->trace_bytes += img.len;
  gint64 hit = scanned_before (r, memo, &img);
  if (hit >= 0)
    {
      *fresh = FALSE;
      *trace = &g_array_index (r->traces, WlTrace, (guint) hit);
      return r->scans->pdata[hit];
    }
  WlTraceCheck *check = check_new (r, path, memo->n_ranks);
  WlScanRequest req = { .path = path, .lenient = r->params.lenient,
                        .func = wl_trace_check_node, .data = check, .bytes = img.bytes,
                        .n_bytes = img.len, .group_memo = memo->groups };
  WlTraceScan *scan = wl_trace_scan_request (&req, error);
  if (scan == NULL)
    {
      wl_trace_check_free (check);
      return NULL;
    }
  check->path = scan->path; /* PATH is the caller's, for the load only */
  if (img.bytes != NULL)
    {
      GArray *same = g_hash_table_lookup (memo->by_hash, &img.hash);
      if (same == NULL)
        {
          same = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (memo->by_hash, g_memdup2 (&img.hash, sizeof img.hash), same);
        }
      guint t = r->scans->len;
      g_array_append_val (same, t);
    }
  g_ptr_array_add (r->scans, scan);
  *trace = trace_add (r, scan->path, scan->group_defs, scan->n_skipped_unknown, check);
  (*trace)->facts = scan->facts;
  *fresh = TRUE;
  return scan;
}

/* Streamed loading, once the traces did not fit the budget: the first
 * pass over each distinct file, its checks, and each rank's window. */
static gboolean
load_streamed (WlReplay *r, const char *const *paths, guint32 ranks, GError **error)
{
  r->window = window_for (r, ranks);
  g_autoptr (GHashTable) by_hash = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                          (GDestroyNotify) g_array_unref);
  g_autoptr (WlGroupMemo) groups = wl_group_memo_new ();
  ScanMemo memo = { .by_hash = by_hash, .groups = groups, .n_ranks = ranks };
  g_autofree WlTraceScan **scans = g_new (WlTraceScan *, ranks);
  r->trace_bytes = 0;
  for (guint32 i = 0; i < ranks; i++)
    {
      WlTrace *t = NULL;
      gboolean fresh = FALSE;
      scans[i] = scan_trace (r, &memo, paths[i], &t, &fresh, error);
      if (scans[i] == NULL || !check_trace (t, i, fresh, error))
        return FALSE;
    }
  allow_open_files (ranks);
  for (guint32 i = 0; i < ranks; i++)
    {
      WlStreamParams p = { .scan = scans[i], .window = r->window, .rank = i,
                           .budget = r->forced_window > 0 ? 0 : r->budget };
      WlNodeSource *src = wl_stream_source_new (&p, error);
      if (src == NULL)
        return FALSE;
      r->n_ranks = i + 1;
      wl_replay_rank_init (r, &r->ranks[i], i, src);
      r->ranks[i].dropped = &scans[i]->dropped;
      r->ranks[i].kernels = scans[i]->kernels;
      r->ranks[i].exchanges = scans[i]->exchanges;
    }
  return TRUE;
}

gboolean
wl_replay_load_files (WlReplay *r, const char *const *paths, guint32 ranks, GError **error)
{
  g_return_val_if_fail (r != NULL && r->ranks == NULL && ranks > 0, FALSE);
  r->ranks = sim_try_alloc (ranks, sizeof (WlRank), TRUE, "the ranks' replay state", error);
  if (r->ranks == NULL)
    return FALSE;
  if (r->forced_window == 0)
    {
      gboolean over = FALSE;
      /* Workers decode ahead; load_in_memory takes their graphs in rank
       * order, each exactly as it would have loaded it. */
      wl_graph_cache_prefetch (r->cache, paths, ranks, r->budget == 0 ? G_MAXUINT64 : r->budget);
      gboolean ok = load_in_memory (r, paths, ranks, &over, error);
      wl_graph_cache_prefetch_end (r->cache);
      r->trace_bytes = wl_graph_cache_bytes (r->cache);
      if (ok)
        return TRUE;
      if (!over)
        return FALSE;
      /* Over the budget: let go of everything loaded, and stream. */
      wl_replay_ranks_clear (r);
      wl_replay_traces_free (r);
      wl_graph_cache_free (r->cache);
      r->cache = wl_graph_cache_new_full (r->params.lenient);
      g_clear_error (&r->check_error);
      if (!may_stream (r, error))
        return FALSE;
    }
  return load_streamed (r, paths, ranks, error);
}

/* The prefix of the trace set NAME is a file of ("w.3.et" and
 * "w.3.et.gz": "w"), when NAME is an existing file named so; else NULL. */
static char *
prefix_of_file (const char *name)
{
  if (!g_file_test (name, G_FILE_TEST_IS_REGULAR))
    return NULL;
  gsize len = strlen (name);
  if (g_str_has_suffix (name, ".gz"))
    len -= 3;
  if (len < 3 || strncmp (name + len - 3, ".et", 3) != 0)
    return NULL;
  len -= 3;
  gsize digits = 0;
  while (digits < len && g_ascii_isdigit (name[len - 1 - digits]))
    digits++;
  if (digits == 0 || digits + 1 >= len || name[len - 1 - digits] != '.')
    return NULL;
  return g_strndup (name, len - 1 - digits);
}

/* The prefixes of the trace sets in folder DIR_PATH (names NAME.0.et or
 * NAME.0.json), sorted, as DIR_PATH/NAME, joined by ", "; NULL when none. */
static char *
sets_in_folder (const char *dir_path)
{
  g_autoptr (GDir) d = g_dir_open (dir_path, 0, NULL);
  if (d == NULL)
    return NULL;
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const char *sep = g_str_has_suffix (dir_path, "/") ? "" : "/";
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      gsize len = strlen (name);
      const char *forms[] = { ".0.et", ".0.json" };
      for (guint f = 0; f < G_N_ELEMENTS (forms); f++)
        if (len > strlen (forms[f]) && g_str_has_suffix (name, forms[f]))
          g_ptr_array_add (found, g_strdup_printf ("%s%s%.*s", dir_path, sep,
                                                   (int) (len - strlen (forms[f])), name));
    }
  if (found->len == 0)
    return NULL;
  g_ptr_array_sort (found, (GCompareFunc) g_strcmp0);
  g_ptr_array_add (found, NULL);
  return g_strjoinv (", ", (char **) found->pdata);
}

/* Why the set PREFIX holds HAVE of the RANKS traces a run needs, PATH being
 * the first it lacks: a file of a set or a folder given for its prefix, a
 * gap in the numbering, or too few files. */
static void
missing_error (const WlTraceDir *dir, const char *prefix, guint32 ranks, guint32 have,
               const char *path, GError **error)
{
  g_autofree char *set = have == 0 ? prefix_of_file (prefix) : NULL;
  if (set != NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s is one trace of a set: the workload is named by the prefix of "
                   "its files (%s.0.et, %s.1.et, ...): did you mean %s?",
                   prefix, set, set, set);
      return;
    }
  if (have == 0 && g_file_test (prefix, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *sets = sets_in_folder (prefix);
      if (sets != NULL)
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                     "%s is a folder: the workload is named by the prefix of its files "
                     "(PREFIX.0.et, PREFIX.1.et, ...): did you mean %s?",
                     prefix, sets);
      else
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                     "%s is a folder holding no trace set (no NAME.0.et or NAME.0.json in it): "
                     "the workload is named by the prefix of its files (PREFIX.0.et, "
                     "PREFIX.1.et, ...)",
                     prefix);
      return;
    }
  gboolean next_exists = FALSE;
  g_autofree char *next = wl_chakra_trace_path_in (dir, prefix, have + 1, &next_exists);
  if (have > 0 && have + 1 < ranks && next_exists)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: not found, but %s is: the trace set has a gap at rank %u (the "
                   "topology has %u ranks)",
                   path, next, have, ranks);
      return;
    }
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: not found: the topology has %u ranks but the workload has %s%u "
               "trace file%s (%s.0.et ...)",
               path, ranks, have ? "only " : "", have, have == 1 ? "" : "s", prefix);
}

gboolean
wl_replay_load (WlReplay *r, const char *prefix, guint32 ranks, GError **error)
{
  g_return_val_if_fail (r != NULL && prefix != NULL, FALSE);
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  /* One listing of the directory answers which files exist (trace_dir.h). */
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, ranks);
  for (guint32 i = 0; i < ranks; i++)
    {
      gboolean exists;
      char *p = wl_chakra_trace_path_in (dir, prefix, i, &exists);
      if (!exists)
        {
          /* A set cut short at a folder or device named like a trace
           * (PREFIX.0.et a directory): that is the mistake to name, not
           * the count. */
          for (guint k = 0; k < paths->len; k++)
            if (!wl_path_check_regular (paths->pdata[k], error))
              {
                g_free (p);
                return FALSE;
              }
          guint32 have = 0;
          while (have < G_MAXUINT32)
            {
              g_free (wl_chakra_trace_path_in (dir, prefix, have, &exists));
              if (!exists)
                break;
              have++;
            }
          missing_error (dir, prefix, ranks, have, p, error);
          g_free (p);
          return FALSE;
        }
      g_ptr_array_add (paths, p);
      if (!wl_chakra_trace_form_check_in (dir, prefix, i, p, i > 0 ? paths->pdata[0] : NULL,
                                          error))
        return FALSE;
    }
  gboolean extra_exists;
  g_autofree char *extra = wl_chakra_trace_path_in (dir, prefix, ranks, &extra_exists);
  if (extra_exists)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s exists: the workload has more trace files than the topology's %u ranks",
                   extra, ranks);
      return FALSE;
    }
  /* One further on, past a gap in the numbering, is as likely a sign of
   * the wrong topology or a set half overwritten. */
  g_autofree char *past = wl_trace_dir_past (dir, ranks);
  if (past != NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: the trace set %s has a file past the topology's %u ranks (%s is "
                   "missing): a set must number its files 0 .. ranks - 1",
                   past, prefix, ranks, extra);
      return FALSE;
    }
  return wl_replay_load_files (r, (const char *const *) paths->pdata, ranks, error);
}

const WlGraph *
wl_replay_graph (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  WlGraph *g = r->ranks[rank].graph;
  g_autoptr (GError) error = NULL;
  if (g != NULL && !wl_graph_expand (g, &error))
    g_error ("%s", error->message);
  return g;
}

const WlGraph *
wl_replay_graph_compact (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return r->ranks[rank].graph;
}

const char *
wl_replay_exchange_name (const WlReplay *r, guint32 rank, guint i)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  const GPtrArray *t = r->ranks[rank].exchanges;
  return t != NULL && i < t->len ? t->pdata[i] : NULL;
}

void
wl_replay_exchange_note (WlRankStats *s, const WlNode *n, gboolean remote, SimTime now, int delta)
{
  guint i = n->exchange - 1;
  if (delta > 0 && n->op == WL_OP_SEND && !(s->exchange_started & (1u << i)))
    s->exchange_start_by[i] = now, s->exchange_started |= 1u << i;
  if (delta < 0 && remote)
    {
      s->exchange_bytes_by[i] += n->bytes;
      s->exchange_msgs_by[i]++;
      s->exchange_done_by[i] = MAX (s->exchange_done_by[i], now);
    }
}
