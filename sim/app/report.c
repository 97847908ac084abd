/* report.c: the summary, ASTRA-sim's lines and the JSON report. */
#include "sim/app/report.h"

#include <errno.h>
#include <json-glib/json-glib.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/units.h"

static SimTime
exposed_comm (const WlRankStats *s)
{
  return s->finish > s->compute ? s->finish - s->compute : 0;
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
               r, sim_time_to_ns (s->finish), sim_time_to_ns (exposed_comm (s)));
    }
}

static int
cmp_time (const void *a, const void *b)
{
  SimTime x = *(const SimTime *) a, y = *(const SimTime *) b;
  return (x > y) - (x < y);
}

/* min, median (lower middle), max of one per-rank figure. */
static void
print_spread (FILE *out, const char *label, const AppSim *sim,
              SimTime (*get) (const WlRankStats *))
{
  WlReplay *replay = app_sim_replay (sim);
  guint32 n = wl_replay_ranks (replay);
  g_autofree SimTime *v = g_new (SimTime, n);
  for (guint32 r = 0; r < n; r++)
    v[r] = get (wl_replay_rank_stats (replay, r));
  qsort (v, n, sizeof (SimTime), cmp_time);
  g_autofree char *lo = sim_units_format_time (v[0]);
  g_autofree char *mid = sim_units_format_time (v[(n - 1) / 2]);
  g_autofree char *hi = sim_units_format_time (v[n - 1]);
  fprintf (out, "  %-22s %14s %14s %14s\n", label, lo, mid, hi);
}

static SimTime get_finish (const WlRankStats *s) { return s->finish; }
static SimTime get_compute (const WlRankStats *s) { return s->compute; }
static SimTime get_exposed (const WlRankStats *s) { return exposed_comm (s); }
static SimTime get_idle (const WlRankStats *s, SimTime end) { return end - s->finish; }

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
      fprintf (out, "%s %s %u (%s, %s/hop)", d ? " x" : "", net_dim_kind_name (spec->dims[d].kind),
               spec->dims[d].size, bw, lat);
    }
  fputc ('\n', out);
}

static void
print_collectives (const AppSim *sim, FILE *out)
{
  const SysParams *p = sys_params (app_sim_sys (sim));
  gboolean header = FALSE;
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      SysCollStats st;
      sys_coll_stats (app_sim_sys (sim), (SysCollKind) k, &st);
      if (st.count == 0)
        continue;
      if (!header)
        fprintf (out, "collectives:\n  %-15s %6s %12s %14s %14s  %s\n", "kind", "count", "bytes",
                 "total time", "mean time", "algorithm (per dimension)");
      header = TRUE;
      g_autofree char *bytes = sim_units_format_bytes (st.bytes);
      g_autofree char *total = sim_units_format_time (st.busy);
      g_autofree char *mean = sim_units_format_time (st.busy / st.count);
      g_autoptr (GString) algo = g_string_new (NULL);
      for (guint i = 0; i < p->n_impl[k]; i++)
        g_string_append_printf (algo, "%s%s", i ? ", " : "", p->impl[k][i]);
      fprintf (out, "  %-15s %6" G_GUINT64_FORMAT " %12s %14s %14s  %s\n",
               sys_coll_kind_name ((SysCollKind) k), st.count, bytes, total, mean, algo->str);
    }
}

void
app_report_summary (const AppSim *sim, FILE *out)
{
  WlReplay *replay = app_sim_replay (sim);
  SimTime end = app_sim_end_time (sim);
  g_autofree char *end_s = sim_units_format_time (end);
  fprintf (out, "workload: %s (%u ranks, %u distinct trace graphs)\n", app_sim_workload (sim),
           wl_replay_ranks (replay), wl_replay_distinct_graphs (replay));
  print_topology (sim, out);
  fprintf (out, "simulated time: %s\n", end_s);
  fprintf (out, "  %-22s %14s %14s %14s\n", "per rank", "min", "median", "max");
  print_spread (out, "finish", sim, get_finish);
  print_spread (out, "compute", sim, get_compute);
  print_spread (out, "exposed communication", sim, get_exposed);
  /* Idle: waiting for the slowest rank after finishing. */
  guint32 n = wl_replay_ranks (replay);
  g_autofree SimTime *idle = g_new (SimTime, n);
  for (guint32 r = 0; r < n; r++)
    idle[r] = get_idle (wl_replay_rank_stats (replay, r), end);
  qsort (idle, n, sizeof (SimTime), cmp_time);
  g_autofree char *i0 = sim_units_format_time (idle[0]);
  g_autofree char *i1 = sim_units_format_time (idle[(n - 1) / 2]);
  g_autofree char *i2 = sim_units_format_time (idle[n - 1]);
  fprintf (out, "  %-22s %14s %14s %14s\n", "idle after finish", i0, i1, i2);
  print_collectives (sim, out);
}

/* ---- JSON ------------------------------------------------------------------ */

static void
add_time (JsonBuilder *b, const char *name, SimTime t)
{
  /* Whole nanoseconds (rounded down; what ASTRA-sim reports), and the exact
   * picoseconds: a JSON double cannot hold every ps figure in ns exactly. */
  g_autofree char *ps_name = g_strdup_printf ("%.*sps", (int) strlen (name) - 2, name);
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) sim_time_to_ns (t));
  json_builder_set_member_name (b, ps_name);
  json_builder_add_int_value (b, (gint64) t);
}

static void
add_inputs (JsonBuilder *b, const AppSim *sim)
{
  const AppConfig *cfg = app_sim_config (sim);
  json_builder_set_member_name (b, "inputs");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "workload");
  json_builder_add_string_value (b, app_sim_workload (sim));
  json_builder_set_member_name (b, "configs");
  json_builder_begin_array (b);
  for (guint i = 0; cfg->sources != NULL && i < cfg->sources->len; i++)
    json_builder_add_string_value (b, cfg->sources->pdata[i]);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "astra_mode");
  json_builder_add_boolean_value (b, cfg->astra_mode);
  json_builder_end_object (b);
}

static void
add_ranks (JsonBuilder *b, const AppSim *sim)
{
  WlReplay *replay = app_sim_replay (sim);
  json_builder_set_member_name (b, "ranks");
  json_builder_begin_array (b);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "rank");
      json_builder_add_int_value (b, r);
      add_time (b, "finish_ns", s->finish);
      add_time (b, "compute_ns", s->compute);
      add_time (b, "cpu_ns", s->cpu);
      add_time (b, "exposed_comm_ns", exposed_comm (s));
      json_builder_set_member_name (b, "nodes");
      json_builder_add_int_value (b, s->nodes);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

static void
add_collectives (JsonBuilder *b, const AppSim *sim)
{
  json_builder_set_member_name (b, "collectives");
  json_builder_begin_array (b);
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      SysCollStats st;
      sys_coll_stats (app_sim_sys (sim), (SysCollKind) k, &st);
      if (st.count == 0)
        continue;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, sys_coll_kind_name ((SysCollKind) k));
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, (gint64) st.count);
      json_builder_set_member_name (b, "bytes");
      json_builder_add_int_value (b, (gint64) st.bytes);
      add_time (b, "total_ns", st.busy);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

gboolean
app_report_json (const AppSim *sim, const char *path, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "schema_version");
  json_builder_add_int_value (b, 1);
  add_time (b, "simulated_time_ns", app_sim_end_time (sim));
  json_builder_set_member_name (b, "events");
  json_builder_add_int_value (b, (gint64) sim_sched_events_run (app_sim_sched (sim)));
  add_inputs (b, sim);
  add_ranks (b, sim);
  add_collectives (b, sim);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autoptr (GError) ioerr = NULL;
  if (!json_generator_to_file (gen, path, &ioerr))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write report %s: %s", path,
                   ioerr->message);
      return FALSE;
    }
  return TRUE;
}

/* ---- per-link CSV ------------------------------------------------------------- */

gboolean
app_report_links (const AppSim *sim, const char *path, GError **error)
{
  Net *net = app_sim_net (sim);
  guint32 n = net_links (net);
  if (n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--links: the %s link model has no links; use --network-model congestion",
                   net_model_name (net));
      return FALSE;
    }
  FILE *f = fopen (path, "w");
  if (f == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  SimTime end = app_sim_end_time (sim);
  fprintf (f, "link,dim,from,to,bytes,messages,busy_ns,utilization,peak_queue\n");
  for (guint32 i = 0; i < n; i++)
    {
      NetLinkStats st;
      net_link_stats (net, i, &st);
      char util[G_ASCII_DTOSTR_BUF_SIZE];
      g_ascii_formatd (util, sizeof util, "%.6f",
                       end > 0 ? (double) st.busy / (double) end : 0.0);
      fprintf (f, "%u,%u,%s,%s,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.3f,%s,%u\n", i,
               st.dim, st.from, st.to, st.bytes, st.messages, (double) st.busy / 1000.0, util,
               st.peak_queue);
    }
  if (fclose (f) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* ---- per-rank CSV -------------------------------------------------------------- */

gboolean
app_report_stats (const AppSim *sim, const char *path, GError **error)
{
  FILE *f = fopen (path, "w");
  if (f == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  WlReplay *replay = app_sim_replay (sim);
  SimTime end = app_sim_end_time (sim);
  fprintf (f, "rank,finish_ps,compute_ps,cpu_ps,exposed_comm_ps,comm_busy_ps,idle_ps,nodes\n");
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      fprintf (f,
               "%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
               ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%u\n",
               r, s->finish, s->compute, s->cpu, exposed_comm (s), s->comm_busy, end - s->finish,
               s->nodes);
    }
  if (fclose (f) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}
