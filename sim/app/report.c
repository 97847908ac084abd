/* report.c: the summary, ASTRA-sim's lines and the JSON report. */
#include "sim/app/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/json_out.h"
#include "sim/app/port_bound.h"
#include "sim/app/report_coll.h"
#include "sim/app/report_perf.h"
#include "sim/error.h"
#include "sim/printable.h"
#include "sim/units.h"
#include "workload/activity.h"
#include "workload/chakra_json.h"
#include "workload/critpath.h"
#include "workload/graph_cache.h"

/* ASTRA-sim's exposed communication: finish - compute. */
static SimTime
astra_exposed (const WlRankStats *s)
{
  return s->finish > s->compute ? s->finish - s->compute : 0;
}

/* Time before the rank's finish with neither compute nor communication. */
SimTime
app_rank_idle (const WlRankStats *s)
{
  /* A rank a limit stopped may have been charged compute or communication
   * in flight after its last finished node: no idle time then. */
  SimTime busy = s->compute_busy + s->exposed_comm;
  return s->finish > busy ? s->finish - busy : 0;
}

void
app_report_astra_lines (const AppSim *sim, FILE *out)
{
  WlReplay *replay = app_sim_replay (sim);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      fprintf (out, "sys[%u] finished, %" G_GUINT64_FORMAT " cycles, exposed communication %"
               G_GUINT64_FORMAT " cycles.\n",
               r, sim_time_to_ns (s->finish), sim_time_to_ns (astra_exposed (s)));
    }
}

static int
cmp_time (const void *a, const void *b)
{
  SimTime x = *(const SimTime *) a, y = *(const SimTime *) b;
  return (x > y) - (x < y);
}

/* min, median (lower middle), max of one per-rank figure; get == NULL:
 * the wait after finishing, end - finish. */
static void
print_spread (FILE *out, const char *label, const AppSim *sim,
              SimTime (*get) (const WlRankStats *))
{
  WlReplay *replay = app_sim_replay (sim);
  guint32 n = wl_replay_ranks (replay);
  SimTime end = app_sim_end_time (sim);
  g_autofree SimTime *v = g_new (SimTime, n);
  for (guint32 r = 0; r < n; r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      v[r] = get != NULL ? get (s) : end - s->finish;
    }
  qsort (v, n, sizeof (SimTime), cmp_time);
  g_autofree char *lo = sim_units_format_time (v[0]);
  g_autofree char *mid = sim_units_format_time (v[(n - 1) / 2]);
  g_autofree char *hi = sim_units_format_time (v[n - 1]);
  fprintf (out, "  %-22s %14s %14s %14s\n", label, lo, mid, hi);
}

static SimTime get_finish (const WlRankStats *s) { return s->finish; }
static SimTime get_compute (const WlRankStats *s) { return s->compute_busy; }
static SimTime get_exposed (const WlRankStats *s) { return s->exposed_comm; }
static SimTime get_exposed_less_bubble (const WlRankStats *s)
{
  return s->exposed_comm - s->pipeline_bubble;
}
static SimTime get_bubble (const WlRankStats *s) { return s->pipeline_bubble; }
static SimTime get_exchange (const WlRankStats *s) { return s->exchange_wait; }
static SimTime get_idle (const WlRankStats *s) { return app_rank_idle (s); }
static SimTime get_contention (const WlRankStats *s) { return s->compute_contention; }

static void
print_topology (const AppSim *sim, FILE *out)
{
  const NetSpec *spec = net_topo_spec (app_sim_topo (sim));
  fprintf (out, "network: %s, %u ranks =", net_model_name (app_sim_net (sim)),
           net_topo_ranks (app_sim_topo (sim)));
  for (guint d = 0; d < spec->n_dims; d++)
    {
      g_autofree char *bw = sim_units_format_bandwidth (spec->dims[d].bandwidth_Bps);
      g_autofree char *lat = sim_units_format_time (spec->dims[d].latency);
      g_autofree char *price = spec->dims[d].graph_priced
                                   ? g_strdup ("its links in the graph")
                                   : g_strdup_printf ("%s, %s/hop", bw, lat);
      fprintf (out, "%s %s %u (%s)", d ? " x" : "", net_dim_kind_name (spec->dims[d].kind),
               spec->dims[d].size, price);
    }
  /* The dimensions of a fat-tree hide how many hosts share an edge
   * switch's uplinks (configs/README.md, <fat-tree oversubscription>). */
  const AppConfig *cfg = app_sim_config (sim);
  guint32 k = cfg->fat_tree_k, o = cfg->fat_tree_oversubscription;
  if (k > 0 && o > 1)
    fprintf (out, ": a fat-tree of k %u, %u:1 oversubscribed (%u hosts share an edge switch's "
             "%u uplink%s)", k, o, o * (k / 2), k / 2, k / 2 == 1 ? "" : "s");
  else if (k > 0)
    fprintf (out, ": a fat-tree of k %u, not oversubscribed (1:1)", k);
  fputc ('\n', out);
}


/* The line that marks a run a limit stopped. */
static void
print_incomplete (const AppSim *sim, FILE *out)
{
  guint32 done = app_sim_ranks_finished (sim), ranks = wl_replay_ranks (app_sim_replay (sim));
  switch (app_sim_stopped (sim))
    {
    case APP_SIM_STOPPED_EVENTS:
      fprintf (out, "INCOMPLETE: stopped at the event limit %" G_GUINT64_FORMAT
                    "; %u of %u ranks finished\n", app_sim_max_events (sim), done, ranks);
      break;
    case APP_SIM_STOPPED_TIME:
      {
        g_autofree char *t = sim_units_format_time (app_sim_max_sim_time (sim));
        fprintf (out, "INCOMPLETE: stopped at simulated time %s; %u of %u ranks finished\n", t,
                 done, ranks);
        break;
      }
    default:
      break;
    }
}

/* What --lenient dropped, when it was on. */
static void
print_lenient (const AppSim *sim, FILE *out)
{
  if (!app_sim_config (sim)->wl.lenient)
    return;
  WlLenientStats st;
  wl_replay_lenient_stats (app_sim_replay (sim), &st);
  g_autoptr (GString) line = g_string_new (NULL);
  wl_lenient_stats_describe (&st, line);
  fprintf (out, "%s\n", line->str);
}

/* --symmetry explain: why the classes are as many as they are, or why
 * there are none. */
static void
print_classes_why (const AppSim *sim, FILE *out)
{
  WlReplay *replay = app_sim_replay (sim);
  const char *why = wl_replay_classes_why (replay);
  if (app_sim_symmetric (sim))
    return;
  if (wl_replay_n_classes (replay) > 0)
    fprintf (out, "  why %u classes: %s\n", wl_replay_n_classes (replay), why);
  else if (app_sim_classes_dropped (sim) == NULL)
    fprintf (out, "symmetry classes: %s\n",
             why != NULL ? why : app_sim_not_symmetric (sim) != NULL
                                     ? app_sim_not_symmetric (sim) : "not tried");
}

void
app_report_summary (const AppSim *sim, FILE *out)
{
  WlReplay *replay = app_sim_replay (sim);
  SimTime end = app_sim_end_time (sim);
  g_autofree char *end_s = sim_units_format_time (end);
  g_autofree char *workload = sim_printable (app_sim_workload (sim), FALSE);
  fprintf (out, "workload: %s (%u ranks, %u distinct trace graphs)\n", workload,
           wl_replay_ranks (replay), wl_replay_distinct_graphs (replay));
  print_topology (sim, out);
  print_lenient (sim, out);
  if (app_sim_symmetric (sim))
    fprintf (out, "symmetric: every rank runs the same trace in lockstep; rank 0 was simulated "
                  "for all (--symmetry off simulates each)\n");
  else if (wl_replay_n_classes (replay) > 0)
    fprintf (out, "symmetry classes: %u class%s of ranks whose traces are alike up to the "
                  "ranks they name; the first rank of each was simulated for its class "
                  "(--symmetry off simulates each)\n", wl_replay_n_classes (replay),
             wl_replay_n_classes (replay) == 1 ? "" : "es");
  else if (app_sim_classes_dropped (sim) != NULL)
    fprintf (out, "symmetry classes: tried, but %s; every rank was simulated\n",
             app_sim_classes_dropped (sim));
  else if (app_sim_records_kept_classes_off (sim) && !app_sim_explains_symmetry (sim))
    /* The one reason a run may cost many times what it would: say it. */
    fprintf (out, "symmetry classes: not tried: --report, --timeline and --critical-path record "
                  "every rank's nodes; every rank was simulated\n");
  if (app_sim_explains_symmetry (sim))
    print_classes_why (sim, out);
  fprintf (out, "simulated time: %s\n", end_s);
  print_incomplete (sim, out);
  fprintf (out, "  %-22s %14s %14s %14s\n", "per rank", "min", "median", "max");
  print_spread (out, "finish", sim, get_finish);
  print_spread (out, "compute", sim, get_compute);
  /* Its part added by collectives' and p2p kernels' CTAs on the SMs. */
  if (app_contention_reported (sim))
    print_spread (out, "  by comm SM contention", sim, get_contention);
  /* Native runs tell the pipeline's bubble from communication; ASTRA-sim's
   * figure counts both. */
  gboolean split = app_efficiency_reported (sim);
  print_spread (out, "exposed communication", sim, split ? get_exposed_less_bubble : get_exposed);
  /* Its part waiting on collective exchanges (all-to-alls sent as p2p). */
  if (app_exchanges_reported (sim))
    print_spread (out, "  in exchanges", sim, get_exchange);
  if (split)
    print_spread (out, "pipeline bubble", sim, get_bubble);
  print_spread (out, "idle", sim, get_idle);
  print_spread (out, "waiting after finish", sim, NULL);
  app_report_efficiency (sim, out);
  app_report_exchanges (sim, out);
  app_report_collectives (sim, out);
}

/* ---- JSON ------------------------------------------------------------------ */

static void
add_time (AppJsonOut *j, const char *name, SimTime t)
{
  /* Whole nanoseconds (rounded down; what ASTRA-sim reports), and the exact
   * picoseconds: a JSON double cannot hold every ps figure in ns exactly. */
  char ps_name[64];
  gsize len = strlen (name);
  g_return_if_fail (len >= 2 && len < sizeof ps_name);
  memcpy (ps_name, name, len - 2);
  memcpy (ps_name + len - 2, "ps", 3);
  app_json_out_uint (j, name, sim_time_to_ns (t));
  app_json_out_uint (j, ps_name, t);
}

/* Trace node ids are 64-bit unsigned: a number up to 2^63 - 1, a decimal
 * string beyond (JSON numbers past 2^53 lose digits in readers that use
 * doubles; ids that large are kept exact in the text either way). */
static void
add_node_id (AppJsonOut *j, const char *name, guint64 id)
{
  if (id <= G_MAXINT64)
    app_json_out_uint (j, name, id);
  else
    {
      char text[24];
      g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, id);
      app_json_out_string (j, name, text);
    }
}

/* {"path": ..., "sha256": ...} of a file; sha256 null when unreadable. */
static void
add_file (AppJsonOut *j, const char *path)
{
  app_json_out_begin_object (j, NULL);
  app_json_out_string (j, "path", path);
  /* Loading does not take digests (a fast hash and a comparison find
   * identical files): the report takes them here. */
  g_autofree char *digest = wl_file_sha256 (path, NULL);
  if (digest != NULL)
    app_json_out_string (j, "sha256", digest);
  else
    app_json_out_null (j, "sha256");
  app_json_out_end_object (j);
}

/* The build that wrote the report: a saved report tied to its commit. */
static const char *report_version = "unknown";

void
app_report_set_version (const char *version)
{
  g_return_if_fail (version != NULL);
  report_version = version;
}

static void
add_inputs (AppJsonOut *j, const AppSim *sim)
{
  const AppConfig *cfg = app_sim_config (sim);
  WlReplay *replay = app_sim_replay (sim);
  app_json_out_begin_object (j, "inputs");
  app_json_out_string (j, "orrery_version", report_version);
  app_json_out_string (j, "workload", app_sim_workload (sim));
  app_json_out_begin_array (j, "configs");
  for (guint i = 0; cfg->sources != NULL && i < cfg->sources->len; i++)
    add_file (j, cfg->sources->pdata[i]);
  app_json_out_end_array (j);
  app_json_out_begin_array (j, "traces");
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      g_autofree char *path = wl_chakra_trace_path (app_sim_workload (sim), r);
      add_file (j, path);
    }
  app_json_out_end_array (j);
  app_json_out_boolean (j, "astra_mode", cfg->astra_mode);
  app_json_out_end_object (j);
}

/* With --lenient: what was dropped, per class. */
static void
add_lenient (AppJsonOut *j, const AppSim *sim)
{
  if (!app_sim_config (sim)->wl.lenient)
    return;
  WlLenientStats st;
  wl_replay_lenient_stats (app_sim_replay (sim), &st);
  app_json_out_begin_object (j, "lenient");
  app_json_out_uint (j, "dangling_deps_dropped", st.dangling_deps_dropped);
  app_json_out_uint (j, "cycle_edges_dropped", st.cycle_edges_dropped);
  app_json_out_uint (j, "colls_skipped", st.colls_skipped);
  app_json_out_uint (j, "valueless_attrs_ignored", st.valueless_attrs_ignored);
  app_json_out_uint (j, "duplicate_nodes_dropped", st.duplicate_nodes_dropped);
  app_json_out_uint (j, "truncated_frames", st.truncated_frames);
  app_json_out_uint (j, "headerless_files", st.headerless_files);
  app_json_out_end_object (j);
}

static void
add_double (AppJsonOut *j, const char *name, double v, gboolean valid)
{
  if (valid)
    app_json_out_double (j, name, v);
  else
    app_json_out_null (j, name);
}

static void
add_ranks (AppJsonOut *j, const AppSim *sim)
{
  WlReplay *replay = app_sim_replay (sim);
  SimTime end = app_sim_end_time (sim);
  gboolean contention = app_contention_reported (sim);
  app_json_out_begin_array (j, "ranks");
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      app_json_out_begin_object (j, NULL);
      app_json_out_int (j, "rank", r);
      add_time (j, "finish_ns", s->finish);
      add_time (j, "compute_ns", s->compute_busy);
      add_time (j, "exposed_comm_ns", s->exposed_comm);
      add_time (j, "idle_ns", app_rank_idle (s));
      add_time (j, "after_finish_ns", end - s->finish);
      add_time (j, "comm_busy_ns", s->comm_busy);
      add_time (j, "cpu_ns", s->cpu);
      add_time (j, "astra_exposed_comm_ns", astra_exposed (s));
      if (app_efficiency_reported (sim))
        {
          add_time (j, "pipeline_bubble_ns", s->pipeline_bubble);
          if (contention)
            add_time (j, "compute_contention_ns", s->compute_contention);
          if (app_exchanges_reported (sim))
            add_time (j, "exchange_wait_ns", s->exchange_wait);
          add_double (j, "model_flops", s->flops - s->recompute_flops, TRUE);
          add_double (j, "hardware_flops", s->flops, TRUE);
        }
      app_json_out_int (j, "nodes", s->nodes);
      app_json_out_int (j, "collectives", s->colls);
      app_json_out_uint (j, "collective_bytes", s->coll_bytes);
      app_json_out_int (j, "sends", s->sends);
      app_json_out_uint (j, "send_bytes", s->send_bytes);
      app_json_out_end_object (j);
    }
  app_json_out_end_array (j);
}

/* The exchanges as collectives[] entries of kind "exchange". */
static void
add_exchange_rows (AppJsonOut *j, const AppSim *sim)
{
  g_autoptr (GArray) exch = app_exchange_stats (sim);
  for (guint i = 0; i < exch->len; i++)
    {
      const AppExchangeStat *x = &g_array_index (exch, AppExchangeStat, i);
      double alg = 0, bus = 0;
      gboolean bw = app_exchange_bandwidth (x, &alg, &bus);
      app_json_out_begin_object (j, NULL);
      app_json_out_string (j, "kind", "exchange");
      app_json_out_string (j, "name", x->name);
      app_json_out_int (j, "ranks", x->ranks);
      app_json_out_uint (j, "count", x->msgs);
      app_json_out_uint (j, "size_bytes", x->bytes);
      add_time (j, "total_ns", x->done - MIN (x->first, x->done));
      add_time (j, "late_joins_ns", x->last_join - MIN (x->first, x->last_join));
      add_double (j, "algbw_GBps", alg / 1e9, bw);
      add_double (j, "busbw_GBps", bus / 1e9, bw);
      app_json_out_end_object (j);
    }
}

static void
add_collectives (AppJsonOut *j, const AppSim *sim)
{
  g_autoptr (GArray) rows = sys_coll_group_stats (app_sim_sys (sim));
  g_autoptr (AppPortBounds) bounds = app_port_bounds_new (sim);
  app_json_out_begin_array (j, "collectives");
  for (guint i = 0; i < rows->len; i++)
    {
      const SysCollGroupStats *st = &g_array_index (rows, SysCollGroupStats, i);
      g_autofree char *group = app_coll_group_name (st->group);
      app_json_out_begin_object (j, NULL);
      app_json_out_string (j, "kind", sys_coll_kind_name (st->kind));
      app_json_out_string (j, "group", group);
      app_json_out_int (j, "ranks", st->ranks);
      app_json_out_string (j, "algorithm", st->algorithm);
      app_json_out_uint (j, "count", st->count);
      app_json_out_uint (j, "size_bytes", app_coll_row_size (st));
      add_time (j, "total_ns", st->busy);
      add_time (j, "mean_ns", st->busy / st->count);
      add_time (j, "late_joins_ns", st->wait);
      double alg = 0, bus = 0;
      gboolean bw = app_coll_row_bandwidth (st, &alg, &bus);
      add_double (j, "algbw_GBps", alg / 1e9, bw);
      add_double (j, "busbw_GBps", bus / 1e9, bw);
      double bound = 0;
      gboolean exceeds = bw && app_port_exceeds (bounds, st->group, st->in_network, bus, &bound);
      if (!bw)
        app_port_bound (bounds, st->group, &bound);
      add_double (j, "port_bound_GBps", bound / 1e9, bound > 0);
      app_json_out_boolean (j, "exceeds_ports", exceeds);
      app_json_out_end_object (j);
    }
  add_exchange_rows (j, sim);
  app_json_out_end_array (j);

  guint n = 0;
  const SysCollRecord *recs = sys_coll_records (app_sim_sys (sim), &n);
  app_json_out_begin_array (j, "collective_instances");
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *group = app_coll_group_name (recs[i].group);
      app_json_out_begin_object (j, NULL);
      app_json_out_string (j, "kind", sys_coll_kind_name (recs[i].kind));
      app_json_out_string (j, "group", group);
      app_json_out_int (j, "seq", recs[i].seq);
      app_json_out_int (j, "ranks", recs[i].ranks);
      app_json_out_uint (j, "bytes", recs[i].bytes);
      add_time (j, "first_join_ns", recs[i].first_join);
      add_time (j, "last_join_ns", recs[i].last_join);
      add_time (j, "done_ns", recs[i].done);
      app_json_out_end_object (j);
    }
  app_json_out_end_array (j);
}

/* ---- critical path ------------------------------------------------------------- */

static const char *
op_label (WlOp op)
{
  static const char *const names[] = { "other", "compute", "cpu", "collective", "send",
                                       "receive", "memory" };
  return names[op];
}

static WlCritPath *
critical_path (const AppSim *sim, GError **error)
{
  return wl_critical_path (app_sim_replay (sim),
                           sys_params (app_sim_sys (sim))->rendezvous_threshold, error);
}

static const WlNode *
step_node (const AppSim *sim, const WlCritStep *st, const char **name)
{
  const WlGraph *g = wl_replay_graph (app_sim_replay (sim), st->rank);
  *name = g->names[st->index];
  return &g->nodes[st->index];
}

/* Time on the path by kind of node. */
static void
path_by_op (const AppSim *sim, const WlCritPath *path, SimTime by_op[7])
{
  for (guint i = 0; i < 7; i++)
    by_op[i] = 0;
  for (guint i = 0; i < path->len; i++)
    {
      const WlCritStep *st = &path->steps[i];
      const char *name;
      by_op[step_node (sim, st, &name)->op] += st->to - st->from;
    }
}

static gint
cmp_contribution (gconstpointer a, gconstpointer b, gpointer unused)
{
  (void) unused;
  const WlCritStep *x = *(WlCritStep *const *) a, *y = *(WlCritStep *const *) b;
  SimTime cx = x->to - x->from, cy = y->to - y->from;
  if (cx != cy)
    return cx > cy ? -1 : 1;
  return (x->from > y->from) - (x->from < y->from);
}

guint
app_report_node_bytes (gboolean sorted)
{
  return (guint) (sizeof (WlCritStep) + wl_activity_node_bytes ()
                  + (sorted ? sizeof (WlCritStep *) : 0));
}

gboolean
app_report_critical_path (const AppSim *sim, guint top, FILE *out, GError **error)
{
  g_autoptr (WlCritPath) path = critical_path (sim, error);
  if (path == NULL)
    return FALSE;
  /* The steps by contribution, tried: as long as the path itself. */
  g_autofree const WlCritStep **order
      = sim_try_alloc (path->len, sizeof (WlCritStep *), FALSE,
                       "the critical path's steps sorted (--critical-path)", error);
  if (order == NULL)
    return FALSE;
  SimTime length = path->len ? path->steps[path->len - 1].to : 0;
  g_autofree char *len_s = sim_units_format_time (length);
  fprintf (out, "critical path: %s in %u steps;", len_s, path->len);
  SimTime by_op[7];
  path_by_op (sim, path, by_op);
  for (guint op = 0; op < 7; op++)
    if (by_op[op] > 0)
      {
        g_autofree char *t = sim_units_format_time (by_op[op]);
        fprintf (out, " %s %s (%.1f%%)", op_label ((WlOp) op), t,
                 100.0 * (double) by_op[op] / (double) length);
      }
  fputc ('\n', out);
  for (guint i = 0; i < path->len; i++)
    order[i] = &path->steps[i];
  /* Stable, as g_ptr_array_sort was: equal steps keep the path's order. */
  g_qsort_with_data (order, (gint) path->len, sizeof *order, cmp_contribution, NULL);
  guint shown = MIN (top, path->len);
  fprintf (out, "  %-5s %-14s %-11s %14s %14s  %s\n", "rank", "node", "type", "from",
           "contribution", "name");
  for (guint i = 0; i < shown; i++)
    {
      const WlCritStep *st = order[i];
      const char *name;
      const WlNode *n = step_node (sim, st, &name);
      g_autofree char *from = sim_units_format_time (st->from);
      g_autofree char *c = sim_units_format_time (st->to - st->from);
      g_autofree char *shown_name = sim_printable (name, FALSE);
      fprintf (out, "  %-5u %-14" G_GUINT64_FORMAT " %-11s %14s %14s  %s", st->rank, n->id,
               op_label ((WlOp) n->op), from, c, shown_name);
      if (st->waited_rank != WL_NO_NODE)
        {
          const WlGraph *g = wl_replay_graph (app_sim_replay (sim), st->waited_rank);
          fprintf (out, " (after rank %u node %" G_GUINT64_FORMAT " arrived)", st->waited_rank,
                   g->nodes[st->waited_index].id);
        }
      fputc ('\n', out);
    }
  if (path->len > shown)
    fprintf (out, "  ... %u more steps (the report lists them all)\n", path->len - shown);
  return TRUE;
}

/* PATH: the run's critical path, NULL when nothing was recorded. */
static void
add_critical_path (AppJsonOut *j, const AppSim *sim, const WlCritPath *path)
{
  if (path == NULL)
    return;
  SimTime length = path->len ? path->steps[path->len - 1].to : 0;
  app_json_out_begin_object (j, "critical_path");
  add_time (j, "length_ns", length);
  SimTime by_op[7];
  path_by_op (sim, path, by_op);
  app_json_out_begin_object (j, "by_type");
  for (guint op = 0; op < 7; op++)
    {
      g_autofree char *name = g_strdup_printf ("%s_ns", op_label ((WlOp) op));
      add_time (j, name, by_op[op]);
    }
  app_json_out_end_object (j);
  app_json_out_begin_array (j, "steps");
  for (guint i = 0; i < path->len; i++)
    {
      const WlCritStep *st = &path->steps[i];
      const char *name;
      const WlNode *n = step_node (sim, st, &name);
      app_json_out_begin_object (j, NULL);
      app_json_out_int (j, "rank", st->rank);
      add_node_id (j, "node", n->id);
      app_json_out_string (j, "name", name);
      app_json_out_string (j, "type", op_label ((WlOp) n->op));
      add_time (j, "from_ns", st->from);
      add_time (j, "to_ns", st->to);
      add_time (j, "contribution_ns", st->to - st->from);
      if (st->waited_rank != WL_NO_NODE)
        {
          const WlGraph *g = wl_replay_graph (app_sim_replay (sim), st->waited_rank);
          app_json_out_begin_object (j, "waited_for");
          app_json_out_int (j, "rank", st->waited_rank);
          add_node_id (j, "node", g->nodes[st->waited_index].id);
          app_json_out_end_object (j);
        }
      app_json_out_end_object (j);
    }
  app_json_out_end_array (j);
  app_json_out_end_object (j);
}

/* ---- overview -------------------------------------------------------------------- */

#define OVERVIEW_BINS 100

static void
add_fractions (AppJsonOut *j, const char *name, const double *v, guint n)
{
  app_json_out_begin_array (j, name);
  for (guint i = 0; i < n; i++)
    /* Three decimals are plenty for a picture, and keep the file small. */
    app_json_out_double (j, NULL, (double) (gint64) (v[i] * 1000.0 + 0.5) / 1000.0);
  app_json_out_end_array (j);
}

static void
add_overview (AppJsonOut *j, const AppSim *sim)
{
  WlReplay *replay = app_sim_replay (sim);
  SimTime end = app_sim_end_time (sim);
  if (end == 0 || wl_replay_records (replay, 0) == NULL)
    return;
  app_json_out_begin_object (j, "overview");
  app_json_out_int (j, "bins", OVERVIEW_BINS);
  app_json_out_uint (j, "bin_ps", end / OVERVIEW_BINS);
  app_json_out_begin_array (j, "ranks");
  double comp[OVERVIEW_BINS], comm[OVERVIEW_BINS], bubble[OVERVIEW_BINS];
  /* The bubble where ranks[] gives it (pipeline_bubble_ns), so that the
   * plot draws it apart in both. */
  gboolean split = app_efficiency_reported (sim);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      GError *error = NULL;
      if (!wl_activity_bins (replay, r, end, OVERVIEW_BINS, comp, comm, split ? bubble : NULL,
                             &error)
          && error != NULL)
        {
          app_json_out_fail (j, error);
          return;
        }
      app_json_out_begin_object (j, NULL);
      app_json_out_int (j, "rank", r);
      add_fractions (j, "compute", comp, OVERVIEW_BINS);
      add_fractions (j, "comm", comm, OVERVIEW_BINS);
      if (split)
        add_fractions (j, "bubble", bubble, OVERVIEW_BINS);
      app_json_out_end_object (j);
    }
  app_json_out_end_array (j);
  app_json_out_end_object (j);
}

/* "complete", and for a run a limit stopped: which limit, the simulated
 * time it stopped at and the ranks that had finished. */
static void
add_completion (AppJsonOut *j, const AppSim *sim)
{
  app_json_out_boolean (j, "complete", app_sim_stopped (sim) == APP_SIM_COMPLETE);
  if (app_sim_stopped (sim) == APP_SIM_COMPLETE)
    return;
  app_json_out_string (j, "stopped", app_sim_stopped_name (sim));
  add_time (j, "stopped_at_ns", sim_sched_now (app_sim_sched (sim)));
  app_json_out_int (j, "ranks_finished", app_sim_ranks_finished (sim));
}

gboolean
app_report_json (const AppSim *sim, const char *path, GError **error)
{
  /* The path before the file: its steps are the one allocation the
   * report makes in proportion to the run, and may fail. */
  g_autoptr (WlCritPath) crit = NULL;
  if (wl_replay_records (app_sim_replay (sim), 0) != NULL
      && (crit = critical_path (sim, error)) == NULL)
    return FALSE;
  g_autoptr (GError) ioerr = NULL;
  AppJsonOut *j = app_json_out_open (path, &ioerr);
  if (j != NULL)
    {
      app_json_out_begin_object (j, NULL);
      app_json_out_int (j, "schema_version", 3);
      add_time (j, "simulated_time_ns", app_sim_end_time (sim));
      app_json_out_uint (j, "events", sim_sched_events_run (app_sim_sched (sim)));
      app_json_out_boolean (j, "symmetric", app_sim_symmetric (sim));
      add_completion (j, sim);
      add_inputs (j, sim);
      add_lenient (j, sim);
      add_ranks (j, sim);
      app_report_efficiency_json (sim, j);
      add_collectives (j, sim);
      add_critical_path (j, sim, crit);
      g_clear_pointer (&crit, wl_crit_path_free); /* before the overview's memory */
      add_overview (j, sim);
      app_json_out_end_object (j);
    }
  if (j == NULL || !app_json_out_close (j, &ioerr))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write report %s: %s", path,
                   ioerr->message);
      return FALSE;
    }
  return TRUE;
}
