/* main.c: the orrery program: subcommand dispatch, option parsing, exit codes.
 *
 * Exit codes: 0 success, 1 usage or input error (out of memory for an
 * input's node records included), 2 internal error, 3 deadlock, 4 a limit
 * reached (--max-events, --max-sim-time: the outputs are still written) or
 * the simulated clock overflowed (nothing written).
 *
 * Layer: sim/app.  May include: every layer.
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/app/config.h"
#include "sim/app/plotdata.h"
#include "sim/app/report.h"
#include "sim/app/simulation.h"
#include "sim/app/sweep.h"
#include "sim/app/timeline.h"
#include "sim/error.h"
#include "sim/units.h"
#include "workload/compute.h"
#include "workload/gen.h"
#include "workload/gen_transformer.h"
#include "workload/inspect.h"
#include "workload/rescale.h"

#define EXIT_CODES_HELP                                                                          \
  "Exit status: 0 success, 1 usage or input error, 2 internal error, 3 deadlock,\n"             \
  "4 a limit reached (--max-events, --max-sim-time) or the simulated clock overflowed."

static int
exit_code_of (const GError *error)
{
  if (error->code >= SIM_ERROR_INPUT && error->code <= SIM_ERROR_LIMIT)
    return error->code;
  return SIM_ERROR_INPUT;
}

static int
report_error (const char *cmd, GError *error)
{
  int code = exit_code_of (error);
  fprintf (stderr, "orrery %s: %s%s\n", cmd, code == SIM_ERROR_INTERNAL ? "internal error: " : "",
           error->message);
  g_error_free (error);
  return code;
}

/* ---- run ---------------------------------------------------------------------- */

typedef struct
{
  char *config;
  char *astra_network;
  char *astra_system;
  char *astra_memory;
  char *comm_groups;
  char *workload;
  char *report;
  char *network_model;
  char *links;
  char *stats;
  char *packet_size;
  char *timeline;
  char *timeline_ranks;
  char *timeline_window;
  gint critical_path;
  char *symmetry;
  char *max_events;
  char *max_sim_time;
  char *memory_budget;
  gboolean lenient;
  gboolean quiet;
} RunOptions;

/* --max-events N (1 or more) and --max-sim-time T (more than 0, with a
 * unit); absent: no limit (0, SIM_TIME_MAX). */
static gboolean
parse_limits (const RunOptions *o, guint64 *max_events, SimTime *max_sim_time, GError **error)
{
  *max_events = 0;
  *max_sim_time = SIM_TIME_MAX;
  if (o->max_events != NULL
      && !g_ascii_string_to_unsigned (o->max_events, 10, 1, G_MAXUINT64, max_events, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--max-events: '%s' is not a whole number of events, 1 or more",
                   o->max_events);
      return FALSE;
    }
  if (o->max_sim_time != NULL)
    {
      if (!sim_units_parse_time (o->max_sim_time, max_sim_time, error))
        {
          g_prefix_error (error, "--max-sim-time: ");
          return FALSE;
        }
      if (*max_sim_time == 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "--max-sim-time: '%s' is not a time after 0", o->max_sim_time);
          return FALSE;
        }
    }
  return TRUE;
}

/* Half the physical memory (sysconf), or 0 (no limit) when it is unknown. */
static guint64
default_memory_budget (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0)
    return 0;
  return (guint64) pages * (guint64) page / 2;
}

/* --memory-budget SIZE (with its unit), 0 or none (no limit); absent: the
 * default. */
static gboolean
parse_memory_budget (const RunOptions *o, guint64 *budget, GError **error)
{
  if (o->memory_budget == NULL)
    {
      *budget = default_memory_budget ();
      return TRUE;
    }
  if (strcmp (o->memory_budget, "none") == 0 || strcmp (o->memory_budget, "0") == 0)
    {
      *budget = 0;
      return TRUE;
    }
  if (!sim_units_parse_bytes (o->memory_budget, budget, error))
    {
      g_prefix_error (error, "--memory-budget: ");
      return FALSE;
    }
  return TRUE;
}

/* The options that keep a record per trace node, which a streamed replay
 * cannot: named for the error that refuses them (NULL: none given). */
static char *
record_options (const RunOptions *o)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  if (o->report != NULL)
    g_ptr_array_add (names, "--report");
  if (o->timeline != NULL)
    g_ptr_array_add (names, "--timeline");
  if (o->critical_path > 0)
    g_ptr_array_add (names, "--critical-path");
  if (names->len == 0)
    return NULL;
  g_ptr_array_add (names, NULL);
  return g_strjoinv ("/", (char **) names->pdata);
}

/* The one line on stderr, and the exit status, of a run a limit stopped. */
static int
report_stopped (const AppSim *sim)
{
  guint32 done = app_sim_ranks_finished (sim), ranks = wl_replay_ranks (app_sim_replay (sim));
  if (app_sim_stopped (sim) == APP_SIM_STOPPED_EVENTS)
    fprintf (stderr,
             "orrery run: stopped at the event limit %" G_GUINT64_FORMAT
             " (--max-events); %u of %u ranks finished; the outputs cover what was simulated\n",
             app_sim_max_events (sim), done, ranks);
  else
    {
      g_autofree char *t = sim_units_format_time (app_sim_max_sim_time (sim));
      fprintf (stderr,
               "orrery run: stopped at simulated time %s (--max-sim-time); %u of %u ranks "
               "finished; the outputs cover what was simulated\n", t, done, ranks);
    }
  return SIM_ERROR_LIMIT;
}

static gboolean
load_config (const RunOptions *o, AppConfig *cfg, GError **error)
{
  gboolean astra = o->astra_network != NULL || o->astra_system != NULL;
  if (astra && o->config != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "give either --config or the --astra-* files, not both");
      return FALSE;
    }
  if (astra)
    {
      if (o->astra_network == NULL || o->astra_system == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "ASTRA-sim inputs need both --astra-network and --astra-system");
          return FALSE;
        }
      if (!app_config_load_astra (cfg, o->astra_network, o->astra_system, o->astra_memory, error))
        return FALSE;
    }
  else if (o->config != NULL)
    {
      if (!app_config_load_xml (cfg, o->config, error))
        return FALSE;
    }
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "no configuration: give --config CLUSTER.xml, or --astra-network NET.yml "
                   "--astra-system SYS.json");
      return FALSE;
    }
  if (o->network_model != NULL && !net_model_parse (o->network_model, &cfg->net.model))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--network-model: '%s' is not a link model (analytical, congestion, flow)",
                   o->network_model);
      return FALSE;
    }
  if (o->packet_size != NULL && !sim_units_parse_bytes (o->packet_size, &cfg->net.packet_bytes, error))
    {
      g_prefix_error (error, "--packet-size: ");
      return FALSE;
    }
  return o->comm_groups == NULL || app_config_load_comm_groups (cfg, o->comm_groups, error);
}

static int
cmd_run (int argc, char **argv)
{
  RunOptions o = { 0 };
  GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &o.config,
      "Native cluster description (validated against configs/cluster.rng)", "CLUSTER.xml" },
    { "astra-network", 0, 0, G_OPTION_ARG_FILENAME, &o.astra_network,
      "ASTRA-sim network config (bandwidth in its GB/s, which are GiB/s; latency in ns)",
      "NET.yml" },
    { "astra-system", 0, 0, G_OPTION_ARG_FILENAME, &o.astra_system,
      "ASTRA-sim system config (endpoint-delay in ns, local-mem-bw in GB/s)", "SYS.json" },
    { "astra-memory", 0, 0, G_OPTION_ARG_FILENAME, &o.astra_memory,
      "ASTRA-sim remote-memory config (remote-mem-latency in ns, remote-mem-bw in GB/s)",
      "MEM.json" },
    { "comm-groups", 0, 0, G_OPTION_ARG_FILENAME, &o.comm_groups,
      "Process groups as ASTRA-sim's JSON: {\"<id>\": [ranks...]}", "GROUPS.json" },
    { "workload", 'w', 0, G_OPTION_ARG_FILENAME, &o.workload,
      "Trace prefix: reads PREFIX.0.et .. PREFIX.<ranks-1>.et", "PREFIX" },
    { "report", 'r', 0, G_OPTION_ARG_FILENAME, &o.report,
      "Write the JSON report (times in ns and ps) to FILE", "FILE.json" },
    { "network-model", 'm', 0, G_OPTION_ARG_STRING, &o.network_model,
      "Link model, overriding the config: analytical (no contention), congestion "
      "(store-and-forward, FIFO links; with ASTRA-sim inputs it plays its congestion-aware "
      "backend) or flow (max-min fair sharing of links)", "MODEL" },
    { "packet-size", 0, 0, G_OPTION_ARG_STRING, &o.packet_size,
      "Congestion model: cut messages into packets of SIZE (e.g. 4KiB); default whole messages",
      "SIZE" },
    { "stats", 0, 0, G_OPTION_ARG_FILENAME, &o.stats,
      "Write one CSV row per rank (times in ps): finish, compute, exposed communication, "
      "idle, after finish, communication busy, cpu, nodes", "FILE.csv" },
    { "links", 0, 0, G_OPTION_ARG_FILENAME, &o.links,
      "Write per-link statistics as CSV (congestion model): bytes, busy time in ns, "
      "utilization, peak queue", "FILE.csv" },
    { "timeline", 't', 0, G_OPTION_ARG_FILENAME, &o.timeline,
      "Write a Chrome trace-event timeline (open it in ui.perfetto.dev); gzip when FILE ends "
      "in .gz", "FILE.json" },
    { "timeline-ranks", 0, 0, G_OPTION_ARG_STRING, &o.timeline_ranks,
      "Only these ranks in the timeline, e.g. 0-7,64", "LIST" },
    { "timeline-window", 0, 0, G_OPTION_ARG_STRING, &o.timeline_window,
      "Only nodes overlapping this simulated-time window, e.g. 10ms-20ms", "FROM-TO" },
    { "critical-path", 'p', 0, G_OPTION_ARG_INT, &o.critical_path,
      "Print the N longest steps of the critical path (the chain of nodes, across ranks and "
      "messages, that sets the finish time)", "N" },
    { "symmetry", 0, 0, G_OPTION_ARG_STRING, &o.symmetry,
      "auto (default): when every rank runs the same trace and every collective treats its "
      "members alike, simulate rank 0 for all (the same results, much faster); off: simulate "
      "every rank", "auto|off" },
    { "max-events", 0, 0, G_OPTION_ARG_STRING, &o.max_events,
      "Stop after N events: the outputs cover what was simulated, marked incomplete, and the "
      "exit status is 4", "N" },
    { "max-sim-time", 0, 0, G_OPTION_ARG_STRING, &o.max_sim_time,
      "Stop at simulated time T (with a unit: 10ms, 500us), as --max-events does", "T" },
    { "memory-budget", 0, 0, G_OPTION_ARG_STRING, &o.memory_budget,
      "Memory for the traces' nodes, with its unit (512MiB, 2GB; 0 or none: no limit; default "
      "half the physical memory).  Traces that do not fit are streamed: each rank's file is "
      "read as the replay goes, into a window of nodes, with the same results, or an error "
      "when the window is too small; --report, --timeline and --critical-path are then refused "
      "and the symmetric shortcut is not taken", "SIZE" },
    { "lenient", 0, 0, G_OPTION_ARG_NONE, &o.lenient,
      "Load messy traces: drop dangling dependencies, edges closing cycles, collectives "
      "without comm_type or comm_size, valueless attributes, repeated ids and a truncated last "
      "frame, count them and say so in the summary (orrery inspect names each)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet, "No summary or progress; errors only", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- simulate a workload on a cluster");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (
      ctx, "Either --config CLUSTER.xml, or --astra-network and --astra-system (ASTRA-sim's\n"
           "files, read unchanged; its per-rank 'finished' lines are printed too).\n\n"
           EXIT_CODES_HELP "\n");
  GError *error = NULL;
  AppConfig cfg;
  app_config_init (&cfg);
  int code = 0;
  guint64 max_events = 0, budget = 0;
  SimTime max_sim_time = SIM_TIME_MAX;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    code = report_error ("run", error);
  else if (o.workload == NULL)
    code = report_error ("run", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                             "no workload: give --workload PREFIX"));
  else if (o.critical_path < 0)
    code = report_error ("run", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                             "--critical-path: N must be 0 or more"));
  else if (o.symmetry != NULL && strcmp (o.symmetry, "auto") != 0
           && strcmp (o.symmetry, "off") != 0)
    code = report_error ("run", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                             "--symmetry: '%s' is neither auto nor off",
                                             o.symmetry));
  else if (!parse_limits (&o, &max_events, &max_sim_time, &error)
           || !parse_memory_budget (&o, &budget, &error)
           || !app_timeline_check_filters (o.timeline_ranks, o.timeline_window, &error)
           || !load_config (&o, &cfg, &error))
    code = report_error ("run", error);
  else
    {
      cfg.wl.lenient = o.lenient;
      g_autofree char *records = record_options (&o);
      AppSimLoad load = { .memory_budget = budget, .needs_all_nodes = records };
      g_autoptr (AppSim) sim = app_sim_new_full (&cfg, o.workload, &load, &error);
      if (sim != NULL)
        {
          app_sim_set_recording (sim, o.timeline != NULL || o.report != NULL
                                          || o.critical_path > 0);
          app_sim_set_progress (sim, !o.quiet && isatty (STDERR_FILENO));
          app_sim_set_limits (sim, max_events, max_sim_time);
          /* Per-link statistics need every rank's messages. */
          app_sim_set_symmetry (sim, (o.symmetry == NULL || strcmp (o.symmetry, "auto") == 0)
                                         && o.links == NULL);
        }
      if (sim == NULL || !app_sim_run (sim, &error))
        code = report_error ("run", error);
      else
        {
          if (app_sim_streamed (sim) && !o.quiet)
            {
              g_autofree char *b = sim_units_format_bytes (budget);
              fprintf (stderr,
                       "orrery run: the traces do not fit the memory budget (%s): streamed, "
                       "%u nodes per rank at a time\n",
                       b, wl_replay_stream_window (app_sim_replay (sim)));
            }
          guint64 unknown = wl_replay_unknown_nodes (app_sim_replay (sim));
          if (unknown > 0)
            fprintf (stderr,
                     "orrery run: warning: %" G_GUINT64_FORMAT
                     " nodes of unknown types were skipped (taken as instantaneous)\n",
                     unknown);
          if (cfg.astra_mode)
            app_report_astra_lines (sim, stdout);
          if (!o.quiet)
            app_report_summary (sim, stdout);
          if (o.critical_path > 0)
            app_report_critical_path (sim, (guint) o.critical_path, stdout);
          if (o.report != NULL && !app_report_json (sim, o.report, &error))
            code = report_error ("run", error);
          else if (o.links != NULL && !app_report_links (sim, o.links, &error))
            code = report_error ("run", error);
          else if (o.stats != NULL && !app_report_stats (sim, o.stats, &error))
            code = report_error ("run", error);
          else if (o.timeline != NULL
                   && !app_timeline_write (sim, o.timeline, o.timeline_ranks, o.timeline_window,
                                           &error))
            code = report_error ("run", error);
          if (!o.quiet)
            {
              double wall = app_sim_wall_seconds (sim);
              guint64 events = sim_sched_events_run (app_sim_sched (sim));
              fprintf (stderr, "orrery: %" G_GUINT64_FORMAT " events in %.3f s wall (%.2f M events/s)\n",
                       events, wall, wall > 0 ? (double) events / wall / 1e6 : 0.0);
            }
          if (code == 0 && app_sim_stopped (sim) != APP_SIM_COMPLETE)
            code = report_stopped (sim);
        }
    }
  app_config_clear (&cfg);
  g_free (o.config);
  g_free (o.astra_network);
  g_free (o.astra_system);
  g_free (o.astra_memory);
  g_free (o.comm_groups);
  g_free (o.workload);
  g_free (o.report);
  g_free (o.network_model);
  g_free (o.links);
  g_free (o.stats);
  g_free (o.packet_size);
  g_free (o.timeline);
  g_free (o.timeline_ranks);
  g_free (o.timeline_window);
  g_free (o.symmetry);
  g_free (o.max_events);
  g_free (o.max_sim_time);
  g_free (o.memory_budget);
  return code;
}

/* ---- gen ----------------------------------------------------------------------- */

/* Options that are absent stay at -1, so that they can be told from 0. */
static gboolean
gen_request (const char *type, const char *bytes_s, gint ranks, gint groups, gint stride,
             gint root, gint count, WlGenCollective *req, GError **error)
{
  if (!wl_coll_kind_parse (type, &req->kind))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "unknown collective '%s'", type);
      return FALSE;
    }
  const char *bad = groups == 0 || groups < -1 ? "--groups" : stride == 0 || stride < -1 ? "--stride"
                    : root < -1                ? "--root"
                    : count == 0 || count < -1 ? "--count"
                                               : NULL;
  if (bad != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s must be a positive number%s", bad,
                   strcmp (bad, "--root") == 0 ? " or 0" : "");
      return FALSE;
    }
  if (root >= 0 && !sys_coll_kind_rooted (req->kind))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--root applies to rooted collectives (broadcast, reduce, gather, scatter), "
                   "not %s", sys_coll_kind_name (req->kind));
      return FALSE;
    }
  req->ranks = (guint32) ranks;
  req->group_size = groups > 0 ? (guint32) groups : 0;
  req->stride = stride > 0 ? (guint32) stride : 1;
  req->root = root > 0 ? (guint32) root : 0;
  req->count = count > 0 ? (guint32) count : 1;
  return sim_units_parse_bytes (bytes_s, &req->bytes, error);
}

static int
cmd_gen_collective (int argc, char **argv)
{
  char *type = NULL, *bytes_s = NULL, *out = NULL;
  gint ranks = 0, groups = -1, stride = -1, root = -1, count = -1;
  GOptionEntry entries[] = {
    { "type", 't', 0, G_OPTION_ARG_STRING, &type,
      "all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce, gather, scatter "
      "or barrier", "KIND" },
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "Number of ranks (trace files)", "N" },
    { "bytes", 'b', 0, G_OPTION_ARG_STRING, &bytes_s,
      "comm_size with a unit (1MiB, 64KB); all_gather: each rank's input", "SIZE" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write PREFIX.0.et .. PREFIX.<N-1>.et",
      "PREFIX" },
    { "groups", 'g', 0, G_OPTION_ARG_INT, &groups,
      "Run each collective on process groups of SIZE ranks (default: all ranks)", "SIZE" },
    { "stride", 's', 0, G_OPTION_ARG_INT, &stride,
      "Group members are S ranks apart: r, r+S, r+2S, ... (default 1: consecutive ranks; "
      "without --groups, groups of N/S)", "S" },
    { "root", 0, 0, G_OPTION_ARG_INT, &root,
      "Rooted kinds: the root's member index in its group (default 0)", "R" },
    { "count", 'k', 0, G_OPTION_ARG_INT, &count,
      "Issue K collectives back to back, each after the previous (default 1)", "K" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("- write a collective microbenchmark, one trace per rank");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (
      ctx, "Groups: ranks are cut into blocks of SIZE x S consecutive ranks, each holding S\n"
           "groups; N must be a multiple of SIZE x S.  Groups are defined by a METADATA node\n"
           "in every trace and named in each collective's pg_name (1 .. N/SIZE).\n\n"
           EXIT_CODES_HELP "\n");
  GError *error = NULL;
  WlGenCollective req = { 0 };
  int code = 0;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    code = report_error ("gen collective", error);
  else if (type == NULL || bytes_s == NULL || out == NULL || ranks <= 0)
    code = report_error ("gen collective",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "need --type KIND --ranks N --bytes SIZE --out PREFIX"));
  else if (!gen_request (type, bytes_s, ranks, groups, stride, root, count, &req, &error)
           || !wl_gen_collective_full (out, &req, &error))
    code = report_error ("gen collective", error);
  else
    printf ("wrote %s.0.et .. %s.%d.et\n", out, out, ranks - 1);
  g_free (type);
  g_free (bytes_s);
  g_free (out);
  return code;
}

static int
gen_transformer_list (void)
{
  guint n;
  const WlTransformerModel *m = wl_transformer_presets (&n);
  for (guint i = 0; i < n; i++)
    {
      printf ("%-12s %.2fB parameters: layers %u hidden %u heads %u kv-heads %u ffn %u%s vocab %u "
              "seq %u",
              m[i].name, (double) wl_transformer_params (&m[i]) / 1e9, m[i].layers, m[i].hidden,
              m[i].heads, m[i].kv_heads > 0 ? m[i].kv_heads : m[i].heads, m[i].ffn, m[i].gated_ffn ? " (gated)" : "", m[i].vocab, m[i].seq);
      if (m[i].experts > 0)
        printf (" experts %u top-k %u (%.2fB active)", m[i].experts, m[i].top_k,
                (double) wl_transformer_active_params (&m[i]) / 1e9);
      printf ("\n");
    }
  return 0;
}

/* Options that are absent stay at 0; model sizes given with --preset
 * override the preset's. */
static gboolean
gen_transformer_request (const char *preset, const gint *model, const char *sched,
                         WlGenTransformer *req, GError **error)
{
  if (preset != NULL)
    {
      const WlTransformerModel *m = wl_transformer_preset (preset);
      if (m == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "unknown preset '%s' (see --list)", preset);
          return FALSE;
        }
      req->model = *m;
    }
  else
    {
      req->model.name = "custom";
      req->model.ffn = (guint32) (4 * MAX (model[1], 0));
    }
  guint32 *fields[6] = { &req->model.layers, &req->model.hidden, &req->model.heads,
                         &req->model.ffn, &req->model.vocab, &req->model.seq };
  for (guint i = 0; i < 6; i++)
    {
      if (model[i] < 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "model sizes must be positive");
          return FALSE;
        }
      if (model[i] > 0)
        *fields[i] = (guint32) model[i];
    }
  if (sched != NULL && g_ascii_strcasecmp (sched, "gpipe") == 0)
    req->schedule = WL_PIPE_GPIPE;
  else if (sched != NULL && g_ascii_strcasecmp (sched, "1f1b") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--schedule: '%s' is not 1f1b or gpipe",
                   sched);
      return FALSE;
    }
  return TRUE;
}

/* Print each stage's per-rank memory; with DEVICE, check it against the
 * capacity: a warning on stderr per stage over it, or (STRICT) an error. */
static gboolean
gen_transformer_memory (const WlGenTransformer *req, const WlDevice *device, gboolean strict,
                        GError **error)
{
  g_autofree WlStageMemory *mem = g_new0 (WlStageMemory, req->pp);
  if (!wl_gen_transformer_memory (req, mem, error))
    return FALSE;
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  gint64 over = -1;
  for (guint32 p = 0; p < req->pp; p++)
    {
      printf ("stage %u: parameters %.2f GiB, gradients %.2f GiB, optimizer %.2f GiB, "
              "activations %.2f GiB, total %.2f GiB",
              p, (double) mem[p].params_B / GiB, (double) mem[p].grads_B / GiB,
              (double) mem[p].optimizer_B / GiB, (double) mem[p].activations_B / GiB,
              (double) mem[p].total_B / GiB);
      if (device != NULL)
        printf (" of %.2f GiB", device->mem_capacity_B / GiB);
      printf ("\n");
      if (device != NULL && (double) mem[p].total_B > device->mem_capacity_B)
        {
          if (over < 0)
            over = p;
          if (!strict)
            fprintf (stderr,
                     "orrery gen transformer: warning: stage %u needs %.2f GiB per rank, more than "
                     "the %.2f GiB of a %s\n",
                     p, (double) mem[p].total_B / GiB, device->mem_capacity_B / GiB, device->name);
        }
    }
  fflush (stdout);
  if (strict && over >= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "stage %u needs %.2f GiB per rank, more than the %.2f GiB of a %s "
                   "(--strict-memory)",
                   (guint) over, (double) mem[over].total_B / GiB, device->mem_capacity_B / GiB,
                   device->name);
      return FALSE;
    }
  return TRUE;
}

static int
cmd_gen_transformer (int argc, char **argv)
{
  char *preset = NULL, *sched = NULL, *out = NULL, *device_name = NULL;
  gint model[6] = { 0 }, b = 0, B = 0, tp = 1, pp = 1, dp = 0, M = 0, zero = -1, ranks = 0;
  gint ep = 1, experts = -1, top_k = -1;
  gboolean recompute = FALSE, list = FALSE, strict_memory = FALSE, fsdp = FALSE;
  GOptionEntry entries[] = {
    { "preset", 'p', 0, G_OPTION_ARG_STRING, &preset, "Model preset (see --list)", "NAME" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &list, "List the presets with their parameters", NULL },
    { "layers", 0, 0, G_OPTION_ARG_INT, &model[0], "Layers (overrides the preset's)", "L" },
    { "hidden", 0, 0, G_OPTION_ARG_INT, &model[1], "Hidden size", "H" },
    { "heads", 0, 0, G_OPTION_ARG_INT, &model[2], "Attention heads", "N" },
    { "ffn", 0, 0, G_OPTION_ARG_INT, &model[3], "FFN size (default 4 x hidden)", "F" },
    { "vocab", 0, 0, G_OPTION_ARG_INT, &model[4], "Vocabulary size", "V" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &model[5], "Sequence length in tokens", "S" },
    { "micro-batch", 'b', 0, G_OPTION_ARG_INT, &b, "Sequences per micro-batch", "B" },
    { "global-batch", 'B', 0, G_OPTION_ARG_INT, &B, "Sequences per iteration", "B" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &tp, "Tensor-parallel degree (default 1)", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &pp, "Pipeline stages (default 1)", "N" },
    { "dp", 0, 0, G_OPTION_ARG_INT, &dp,
      "Data-parallel degree (default: ranks / (tp x pp), or 1)", "N" },
    { "ranks", 0, 0, G_OPTION_ARG_INT, &ranks,
      "Total ranks: tp x pp x dp (checked, or gives dp)", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &ep,
      "Expert-parallel degree (default 1): EP groups of ep consecutive DP indices", "N" },
    { "experts", 0, 0, G_OPTION_ARG_INT, &experts,
      "Experts per layer (mixture of experts; 0 = dense; overrides the preset's)", "E" },
    { "top-k", 0, 0, G_OPTION_ARG_INT, &top_k, "Experts per token (default 2 with --experts)",
      "K" },
    { "microbatches", 'm', 0, G_OPTION_ARG_INT, &M,
      "Micro-batches per pipeline (default global-batch / (micro-batch x dp))", "M" },
    { "schedule", 0, 0, G_OPTION_ARG_STRING, &sched, "1f1b (default) or gpipe", "NAME" },
    { "recompute", 0, 0, G_OPTION_ARG_NONE, &recompute, "Full activation recomputation", NULL },
    { "zero", 0, 0, G_OPTION_ARG_INT, &zero,
      "ZeRO stage 0 (default), 1 (optimizer), 2 (+ gradients) or 3 (+ parameters)", "0|1|2|3" },
    { "fsdp", 0, 0, G_OPTION_ARG_NONE, &fsdp, "Fully sharded data parallelism (= --zero 3)",
      NULL },
    { "device", 0, 0, G_OPTION_ARG_STRING, &device_name,
      "Device preset (H100-SXM, ...): compute nodes get their roofline durations (bf16, whole "
      "us) and each stage's per-rank memory is checked against its capacity", "NAME" },
    { "strict-memory", 0, 0, G_OPTION_ARG_NONE, &strict_memory,
      "Fail (exit 1, no trace written) when a stage exceeds the device memory", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write PREFIX.0.et .. PREFIX.<ranks-1>.et",
      "PREFIX" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("- write one training iteration of a decoder transformer "
                              "(dense or mixture-of-experts)");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (
      ctx, "Ranks: tp x pp x dp, rank = t + tp x (d + dp x p).  Tensor parallelism uses\n"
           "sequence parallelism (all-gather / reduce-scatter per block), the pipeline\n"
           "send/recv between stages, data parallelism one gradient all-reduce per layer.\n"
           "See workload/gen_transformer.h for the model and its FLOP count.\n"
           "Prints each stage's per-rank memory (bf16 weights and gradients, Adam in\n"
           "fp32, sharded per --zero; activations as in Korthikanti et al. 2022); with --device,\n"
           "stages over its capacity are warned about (errors with --strict-memory).\n\n"
           EXIT_CODES_HELP "\n");
  GError *error = NULL;
  WlGenTransformer req = { 0 };
  int code = 0;
  gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
  if (parsed && dp == 0)
    dp = ranks > 0 && tp > 0 && pp > 0 ? MAX (ranks / (tp * pp), 1) : 1;
  if (!parsed)
    code = report_error ("gen transformer", error);
  else if (list)
    code = gen_transformer_list ();
  else if (ranks != 0 && (ranks < 0 || tp <= 0 || pp <= 0 || ranks % (tp * pp) != 0
                          || (dp != 0 && dp * tp * pp != ranks)))
    code = report_error ("gen transformer",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "--ranks %d is not tp x pp x dp (tp %d, pp %d, dp %d)",
                                      ranks, tp, pp, dp));
  else if (out == NULL || b <= 0 || (B <= 0 && M <= 0) || tp <= 0 || pp <= 0 || dp <= 0
           || M < 0)
    code = report_error ("gen transformer",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "need --preset NAME (or the model sizes) --micro-batch b "
                                      "--global-batch B --tp N --pp N --dp N --out PREFIX"));
  else if (ep <= 0 || experts < -1 || top_k < -1)
    code = report_error ("gen transformer",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "--ep must be at least 1, --experts and --top-k at least 0"));
  else if (zero > 3 || zero < -1 || (fsdp && zero >= 0 && zero != 3))
    code = report_error ("gen transformer",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "--zero must be 0, 1, 2 or 3 (--fsdp means 3)"));
  else if (strict_memory && device_name == NULL)
    code = report_error ("gen transformer",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "--strict-memory needs --device NAME"));
  else if (device_name != NULL && wl_device_preset (device_name) == NULL)
    {
      g_autofree char *names = wl_device_preset_names ();
      code = report_error ("gen transformer",
                           g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                        "unknown device '%s' (one of %s)", device_name, names));
    }
  else
    {
      const WlDevice *device = device_name != NULL ? wl_device_preset (device_name) : NULL;
      req.micro_batch = (guint32) b;
      req.global_batch = (guint32) MAX (B, 0);
      req.tp = (guint32) tp;
      req.pp = (guint32) pp;
      req.dp = (guint32) dp;
      req.microbatches = (guint32) M;
      req.recompute = recompute;
      req.zero = fsdp ? 3 : (guint32) MAX (zero, 0);
      req.ep = (guint32) ep;
      req.device = device;
      gboolean ok = gen_transformer_request (preset, model, sched, &req, &error);
      if (ok && experts >= 0)
        req.model.experts = (guint32) experts;
      if (ok && top_k >= 0)
        req.model.top_k = (guint32) top_k;
      else if (ok && req.model.experts > 0 && req.model.top_k == 0)
        req.model.top_k = MIN (2, req.model.experts);
      if (!ok
          || !gen_transformer_memory (&req, device, strict_memory, &error)
          || !wl_gen_transformer (out, &req, &error))
        code = report_error ("gen transformer", error);
      else
        printf ("%s: %d ranks (tp %d pp %d dp %d), %u micro-batches, %" G_GUINT64_FORMAT
                " parameters, %.4g FLOPs per iteration; wrote %s.0.et .. %s.%d.et\n",
                req.model.name, tp * pp * dp, tp, pp, dp,
                wl_gen_transformer_microbatches (&req, NULL),
                wl_transformer_params (&req.model), wl_gen_transformer_flops (&req), out, out,
                tp * pp * dp - 1);
    }
  g_free (preset);
  g_free (sched);
  g_free (out);
  g_free (device_name);
  return code;
}

static int
cmd_gen (int argc, char **argv)
{
  if (argc >= 2 && strcmp (argv[1], "collective") == 0)
    return cmd_gen_collective (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "transformer") == 0)
    return cmd_gen_transformer (argc - 1, argv + 1);
  fprintf (stderr, "usage: orrery gen collective --type KIND --ranks N --bytes SIZE --out PREFIX\n"
                   "         [--groups SIZE] [--stride S] [--root R] [--count K]\n"
                   "       orrery gen transformer --preset NAME --micro-batch b --global-batch B\n"
                   "         --tp N --pp N --dp N --out PREFIX (--help for all, --list presets)\n");
  return SIM_ERROR_INPUT;
}

/* ---- rescale ------------------------------------------------------------------- */

static int
cmd_rescale (int argc, char **argv)
{
  char *from = NULL, *out = NULL;
  gint ranks = 0;
  GOptionEntry entries[] = {
    { "from", 'f', 0, G_OPTION_ARG_FILENAME, &from,
      "Data-parallel traces PREFIX.0.et .. PREFIX.<p-1>.et (p = the files there are)", "PREFIX" },
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "Ranks to write for (q >= 1)", "Q" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write PREFIX2.0.et .. PREFIX2.<Q-1>.et",
      "PREFIX2" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("- rewrite a data-parallel trace set for another number of ranks");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_description (
      ctx, "Every rank's trace must be the same (rank 0's is written Q times).  Collectives\n"
           "must span all ranks; all-reduce, reduce-scatter, all-to-all, reduce and broadcast\n"
           "keep comm_size (the whole buffer), all-gather, gather and scatter get\n"
           "comm_size x p / Q (each rank's shard, rounded up).  Point-to-point nodes and\n"
           "subgroup collectives are refused.\n\n" EXIT_CODES_HELP "\n");
  GError *error = NULL;
  guint32 p = 0;
  int code = 0;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    code = report_error ("rescale", error);
  else if (from == NULL || out == NULL || ranks <= 0)
    code = report_error ("rescale", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                                 "need --from PREFIX --ranks Q (Q >= 1) "
                                                 "--out PREFIX2"));
  else if (!wl_rescale (from, (guint32) ranks, out, &p, &error))
    code = report_error ("rescale", error);
  else
    printf ("rescaled %u ranks to %d: wrote %s.0.et .. %s.%d.et\n", p, ranks, out, out,
            ranks - 1);
  g_free (from);
  g_free (out);
  return code;
}

/* ---- inspect ------------------------------------------------------------------- */

static int
cmd_inspect (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("PREFIX|FILE - summarise a trace set and list its defects");
  g_option_context_set_description (
      ctx, "Reads FILE, or PREFIX.0.et, PREFIX.1.et, ... up to the first missing one.  Prints\n"
           "node counts, compute time and collectives per rank (ranks with identical figures\n"
           "once), then every defect: dangling dependencies, duplicate ids, dependency\n"
           "cycles, collectives without comm_type or comm_size, sends/receives whose\n"
           "comm_src/comm_dst is not the rank, and collective sequences that differ from\n"
           "rank 0's.\n\nExit status: 0 no defects, 1 defects found, usage or input error.\n");
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return report_error ("inspect", error);
  if (argc != 2)
    return report_error ("inspect", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                                 "need one PREFIX or FILE"));
  g_autoptr (GPtrArray) paths = wl_inspect_resolve (argv[1], &error);
  if (paths == NULL)
    return report_error ("inspect", error);
  g_autoptr (WlInspectReport) report
      = wl_inspect_files ((const char *const *) paths->pdata, paths->len, &error);
  if (report == NULL)
    return report_error ("inspect", error);
  wl_inspect_report_print (report, stdout);
  return wl_inspect_report_n_defects (report) > 0 ? 1 : 0;
}

/* ---- plot-data ------------------------------------------------------------------ */

static int
cmd_plot_data (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx
      = g_option_context_new ("REPORT.json DIR - write a report's figures as gnuplot data");
  g_option_context_set_description (
      ctx, "Writes DIR/ranks.dat (per rank: compute, exposed communication, idle and the\n"
           "wait after finishing, in ms), DIR/overview.dat (per rank and time bin: the state\n"
           "it was in most of the bin) and DIR/meta.gp.  scripts/plot draws them.\n\n"
           EXIT_CODES_HELP "\n");
  GError *error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    return report_error ("plot-data", error);
  if (argc != 3)
    return report_error ("plot-data", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                                   "need REPORT.json and an output directory"));
  if (!app_plot_data (argv[1], argv[2], &error))
    return report_error ("plot-data", error);
  return 0;
}

static void
usage (FILE *out)
{
  fprintf (out,
           "usage: orrery COMMAND [OPTIONS]\n\n"
           "Commands:\n"
           "  run   simulate a workload (Chakra traces) on a cluster\n"
           "  gen   generate workloads: gen collective\n"
           "  rescale  rewrite a data-parallel trace set for another number of ranks\n"
           "  inspect  summarise a trace set (PREFIX or FILE) and list its defects\n"
           "  plot-data  write a --report's figures as data for gnuplot (see scripts/plot)\n"
           "  sweep  expand a parameter sweep spec into points, run one, gather a CSV\n\n"
           "'orrery COMMAND --help' lists a command's options, with units and defaults.\n\n"
           EXIT_CODES_HELP "\n");
}

int
main (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  setlocale (LC_NUMERIC, "C");
  if (argc < 2)
    {
      usage (stderr);
      return SIM_ERROR_INPUT;
    }
  if (strcmp (argv[1], "run") == 0)
    return cmd_run (argc - 1, argv + 1);
  if (strcmp (argv[1], "gen") == 0)
    return cmd_gen (argc - 1, argv + 1);
  if (strcmp (argv[1], "rescale") == 0)
    return cmd_rescale (argc - 1, argv + 1);
  if (strcmp (argv[1], "inspect") == 0)
    return cmd_inspect (argc - 1, argv + 1);
  if (strcmp (argv[1], "plot-data") == 0)
    return cmd_plot_data (argc - 1, argv + 1);
  if (strcmp (argv[1], "sweep") == 0)
    return app_sweep_main (argc - 1, argv + 1, argv[0]);
  if (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0 || strcmp (argv[1], "help") == 0)
    {
      usage (stdout);
      return 0;
    }
  fprintf (stderr, "orrery: unknown command '%s'\n", argv[1]);
  usage (stderr);
  return SIM_ERROR_INPUT;
}
