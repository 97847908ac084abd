/* cmd_run.c: `orrery run`, its options, their checks, the simulation
 * they ask for and what it prints and writes (main.c dispatches to it).
 *
 * Layer: sim/app.  May include: every layer.
 */
#include "sim/app/cmd_run.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/app/cli.h"
#include "sim/app/config.h"
#include "sim/out_file.h"
#include "sim/app/report.h"
#include "sim/app/report_perf.h"
#include "sim/app/simulation.h"
#include "sim/app/timeline.h"
#include "sim/app/tp_nodes.h"
#include "sim/error.h"
#include "sim/units.h"
#include "network/net.h"
#include "workload/graph_cache.h"
#include "workload/stream.h"

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
  char *load_threads;
  gboolean lenient;
  gboolean quiet;
  char *models_help; /* --network-model's description, from the link-model table */
} RunOptions;

/* The link models as "a (what a is), b (...) or c (...)"; with WHAT
 * FALSE, the names alone.  From the table, so that a new row shows up in
 * --help and in the error below without an edit here. */
static char *
link_models_text (gboolean what)
{
  GString *s = g_string_new (NULL);
  guint n = net_model_count ();
  for (guint i = 0; i < n; i++)
    {
      const NetModelClass *m = net_model_class ((NetModelKind) i);
      g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", m->name);
      if (what)
        g_string_append_printf (s, " (%s)", m->help);
    }
  return g_string_free (s, FALSE);
}

/* What run's options come to: the limits (0 events, SIM_TIME_MAX: none) and
 * the memory budget in bytes (0: none). */
typedef struct
{
  guint64 max_events;
  SimTime max_sim_time;
  guint64 budget;
  guint load_threads; /* threads that decode the trace files */
} RunLimits;

/* --max-events N (1 or more) and --max-sim-time T (more than 0, with a
 * unit); absent: no limit (0, SIM_TIME_MAX). */
static gboolean
parse_limits (const RunOptions *o, RunLimits *limits, GError **error)
{
  guint64 *max_events = &limits->max_events;
  SimTime *max_sim_time = &limits->max_sim_time;
  *max_events = 0;
  *max_sim_time = SIM_TIME_MAX;
  g_autoptr (GError) bad = NULL;
  if (o->max_events != NULL
      && !g_ascii_string_to_unsigned (o->max_events, 10, 1, G_MAXUINT64, max_events, &bad))
    {
      /* A whole number past 2^64 - 1 is one, only too large to count. */
      gboolean too_large = g_error_matches (bad, G_NUMBER_PARSER_ERROR,
                                            G_NUMBER_PARSER_ERROR_OUT_OF_BOUNDS)
                           && o->max_events[0] != '0' && o->max_events[0] != '-';
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   too_large ? "--max-events: '%s' is too large (over 2^64 - 1 events)"
                             : "--max-events: '%s' is not a whole number of events, 1 or more",
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

/* The most threads --load-threads takes by default: past 8, loading is
 * bound by memory bandwidth more than by cores. */
#define DEFAULT_LOAD_THREADS_MAX 8

/* --load-threads N (1 to WL_LOAD_THREADS_MAX); absent: the online CPUs, at
 * most DEFAULT_LOAD_THREADS_MAX. */
static gboolean
parse_load_threads (const RunOptions *o, guint *threads, GError **error)
{
  guint64 n = MIN ((guint64) g_get_num_processors (), (guint64) DEFAULT_LOAD_THREADS_MAX);
  if (o->load_threads != NULL
      && !g_ascii_string_to_unsigned (o->load_threads, 10, 1, WL_LOAD_THREADS_MAX, &n, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--load-threads: '%s' is not a whole number of threads from 1 to %d",
                   o->load_threads, WL_LOAD_THREADS_MAX);
      return FALSE;
    }
  *threads = (guint) MAX (n, (guint64) 1);
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

/* --packet-size: parsed, and refused unless the congestion model runs,
 * the only one that cuts messages into packets (a user would believe the
 * others applied it).  0, whole messages, suits every model, so that a
 * sweep may pair it with the analytical and flow models. */
static gboolean
packet_size_option (const RunOptions *o, AppConfig *cfg, GError **error)
{
  if (!sim_units_parse_bytes (o->packet_size, &cfg->net.packet_bytes, error))
    {
      g_prefix_error (error, "--packet-size: ");
      return FALSE;
    }
  if (cfg->net.packet_bytes == 0 || cfg->net.model == NET_MODEL_CONGESTION)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "--packet-size %s: only the congestion model cuts messages into packets; this "
               "run's network model is %s (--network-model congestion%s)", o->packet_size,
               net_model_name_of (cfg->net.model),
               o->config != NULL ? ", or <network model=\"congestion\">" : "");
  return FALSE;
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
  /* Either loader's warnings ("FILE: ..." lines), one a line. */
  app_config_print_warnings (cfg, "run");
  if (o->network_model != NULL && !net_model_parse (o->network_model, &cfg->net.model))
    {
      g_autofree char *known = link_models_text (FALSE);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--network-model: '%s' is not a link model (%s)", o->network_model, known);
      return FALSE;
    }
  if (o->packet_size != NULL && !packet_size_option (o, cfg, error))
    return FALSE;
  return o->comm_groups == NULL || app_config_load_comm_groups (cfg, o->comm_groups, error);
}

/* The inputs: the cluster, in either format, and the workload. */
static void
add_input_options (AppCli *cli, RunOptions *o)
{
  GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &o->config,
      "Native cluster description (validated against configs/cluster.rng)", "CLUSTER.xml" },
    { "astra-network", 0, 0, G_OPTION_ARG_FILENAME, &o->astra_network,
      "ASTRA-sim network config (bandwidth in its GB/s, which are GiB/s; latency in ns)",
      "NET.yml" },
    { "astra-system", 0, 0, G_OPTION_ARG_FILENAME, &o->astra_system,
      "ASTRA-sim system config (endpoint-delay in ns, local-mem-bw in GB/s)", "SYS.json" },
    { "astra-memory", 0, 0, G_OPTION_ARG_FILENAME, &o->astra_memory,
      "ASTRA-sim remote-memory config (remote-mem-latency in ns, remote-mem-bw in GB/s)",
      "MEM.json" },
    { "comm-groups", 0, 0, G_OPTION_ARG_FILENAME, &o->comm_groups,
      "Process groups as ASTRA-sim's JSON: {\"<id>\": [ranks...]}", "GROUPS.json" },
    { "workload", 'w', 0, G_OPTION_ARG_FILENAME, &o->workload,
      "Trace prefix: reads PREFIX.0.et .. PREFIX.<ranks-1>.et (or .json)", "PREFIX" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  app_cli_add_entries (cli, NULL, entries);
}

/* The link model and the outputs. */
static void
add_output_options (AppCli *cli, RunOptions *o)
{
  g_autofree char *models = link_models_text (TRUE);
  o->models_help = g_strdup_printf ("Link model, overriding the config: %s", models);
  GOptionEntry entries[] = {
    { "report", 'r', 0, G_OPTION_ARG_FILENAME, &o->report,
      "Write the JSON report (times in ns and ps) to FILE", "FILE.json" },
    { "network-model", 'm', 0, G_OPTION_ARG_STRING, &o->network_model, o->models_help,
      "MODEL" },
    { "packet-size", 0, 0, G_OPTION_ARG_STRING, &o->packet_size,
      "Congestion model: cut messages into packets of SIZE (e.g. 4KiB); default whole messages",
      "SIZE" },
    { "stats", 0, 0, G_OPTION_ARG_FILENAME, &o->stats,
      "Write one CSV row per rank (times in ps): finish, compute, exposed communication "
      "(the summary's row plus its pipeline bubble), idle, after finish, communication busy, "
      "cpu, nodes; native runs add pipeline bubble, model and hardware FLOPs (and exchange "
      "wait, SM contention where any)", "FILE.csv" },
    { "links", 0, 0, G_OPTION_ARG_FILENAME, &o->links,
      "Write per-link statistics as CSV (congestion and flow models): bytes, busy time in ns, "
      "utilization, peak queue", "FILE.csv" },
    { "timeline", 't', 0, G_OPTION_ARG_FILENAME, &o->timeline,
      "Write a Chrome trace-event timeline (open it in ui.perfetto.dev); gzip when FILE ends "
      "in .gz", "FILE.json" },
    { "timeline-ranks", 0, 0, G_OPTION_ARG_STRING, &o->timeline_ranks,
      "Only these ranks in the timeline, e.g. 0-7,64", "LIST" },
    { "timeline-window", 0, 0, G_OPTION_ARG_STRING, &o->timeline_window,
      "Only nodes overlapping this simulated-time window, e.g. 10ms-20ms", "FROM-TO" },
    { "critical-path", 'p', 0, G_OPTION_ARG_INT, &o->critical_path,
      "Print the N longest steps of the critical path (the chain of nodes, across ranks and "
      "messages, that sets the finish time)", "N" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  app_cli_add_entries (cli, NULL, entries);
}

/* How the run goes: the shortcut, the limits, the memory, messy traces. */
static void
add_control_options (AppCli *cli, RunOptions *o)
{
  GOptionEntry entries[] = {
    { "symmetry", 0, 0, G_OPTION_ARG_STRING, &o->symmetry,
      "auto (default): when every rank runs the same trace and every collective treats its "
      "members alike, simulate rank 0 for all; else when ranks fall into classes alike up to "
      "the ranks they name (DP replicas, TP peers), one rank per class (the same results, much "
      "faster); off: simulate every rank; explain: as auto, and the summary says how the "
      "classes came to be as many as they are, or why they were refused (the group, ranks or "
      "collective concerned)", "auto|off|explain" },
    { "max-events", 0, 0, G_OPTION_ARG_STRING, &o->max_events,
      "Stop after N events: the outputs cover what was simulated, marked incomplete, and the "
      "exit status is 4", "N" },
    { "max-sim-time", 0, 0, G_OPTION_ARG_STRING, &o->max_sim_time,
      "Stop at simulated time T (with a unit: 10ms, 500us), as --max-events does", "T" },
    { "memory-budget", 0, 0, G_OPTION_ARG_STRING, &o->memory_budget,
      "Memory for the traces' nodes, with its unit (512MiB, 2GB; 0 or none: no limit; default "
      "half the physical memory).  Traces that do not fit are streamed: each rank's file is "
      "read as the replay goes, into a window of nodes, with the same results, or an error "
      "when the window is too small; --report, --timeline and --critical-path are then refused "
      "and the symmetric shortcut is not taken", "SIZE" },
    { "load-threads", 0, 0, G_OPTION_ARG_STRING, &o->load_threads,
      "Threads that read and decode the trace files (1 to 64; default the online CPUs, at "
      "most 8; 1: all in the main thread).  The results are the same whatever N; streamed "
      "traces, and a set's first 16 MiB of files, are read in the main thread", "N" },
    { "lenient", 0, 0, G_OPTION_ARG_NONE, &o->lenient,
      "Load messy traces: drop dangling dependencies, edges closing cycles, collectives "
      "without comm_type or comm_size, valueless attributes, repeated ids and a truncated last "
      "frame, count them and say so in the summary (orrery inspect names each)", NULL },
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &o->quiet,
      "No summary, ASTRA-sim lines or progress; errors only", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  app_cli_add_entries (cli, NULL, entries);
}

/* The options of run, in --help order, writing into O. */
static AppCli *
run_context (RunOptions *o)
{
  AppCli *cli = app_cli_new ("- simulate a workload on a cluster");
  GOptionContext *ctx = app_cli_context (cli);
  g_option_context_set_description (
      ctx, "Either --config CLUSTER.xml, or --astra-network and --astra-system (ASTRA-sim's\n"
           "files, read unchanged; its per-rank 'finished' lines are printed too).\n\n"
           APP_CLI_EXIT_CODES_HELP "\n");
  add_input_options (cli, o);
  add_output_options (cli, o);
  add_control_options (cli, o);
  return cli;
}

/* The input the output OUT would replace, as "--config c.xml" (a cluster or
 * ASTRA-sim file, the comm groups, a trace of the workload), or NULL. */
static char *
input_replaced (const RunOptions *o, const char *out)
{
  const char *ins[][2] = { { "--config", o->config }, { "--astra-network", o->astra_network },
    { "--astra-system", o->astra_system }, { "--astra-memory", o->astra_memory },
    { "--comm-groups", o->comm_groups } };
  for (guint k = 0; k < G_N_ELEMENTS (ins); k++)
    if (ins[k][1] != NULL && sim_out_file_is (out, ins[k][1]))
      return g_strdup_printf ("%s %s", ins[k][0], ins[k][1]);
  return sim_out_file_in_set (out, o->workload) ? g_strdup_printf ("--workload %s", o->workload)
                                                 : NULL;
}

/* The output files the options name: each can be created (not a folder),
 * none is an input, and no two name the same file (the second written would
 * replace the first), checked before anything is simulated.  FALSE with
 * ERROR set at the first that fails. */
static gboolean
check_outputs (const RunOptions *o, GError **error)
{
  const struct { const char *option, *noun, *path; } outs[] = {
    { "--report", "report", o->report },       { "--stats", "stats", o->stats },
    { "--links", "links", o->links },          { "--timeline", "timeline", o->timeline },
  };
  char *ids[G_N_ELEMENTS (outs)] = { NULL };
  gboolean ok = TRUE;
  for (guint i = 0; ok && i < G_N_ELEMENTS (outs); i++)
    {
      if (outs[i].path == NULL)
        continue;
      g_autoptr (GError) ioerr = NULL;
      g_autofree char *input = NULL;
      if (!sim_out_file_check (outs[i].path, &ioerr))
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s %s: %s",
                     outs[i].noun, outs[i].path, ioerr->message);
      else if ((input = input_replaced (o, outs[i].path)) != NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s %s is an input of the run (%s): "
                     "writing it would destroy it; name another file", outs[i].option,
                     outs[i].path, input);
      ok = ioerr == NULL && input == NULL;
      ids[i] = ok ? sim_out_file_identity (outs[i].path) : NULL;
      for (guint k = 0; ok && ids[i] != NULL && k < i; k++)
        if (ids[k] != NULL && strcmp (ids[k], ids[i]) == 0)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "%s %s and %s %s are the same file: give each output its own",
                         outs[k].option, outs[k].path, outs[i].option, outs[i].path);
            ok = FALSE;
          }
    }
  for (guint i = 0; i < G_N_ELEMENTS (outs); i++)
    g_free (ids[i]);
  return ok;
}

/* The checks on run's options, in the order their messages take precedence,
 * then the configuration: FALSE with ERROR set at the first that fails. */
static gboolean
check_run_options (const RunOptions *o, RunLimits *limits, AppConfig *cfg, GError **error)
{
  if (o->workload == NULL && o->config == NULL && o->astra_network == NULL
      && o->astra_system == NULL)
    /* Bare "orrery run": say both inputs at once, not one per try. */
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "needs a workload and a cluster: --workload PREFIX (Chakra traces "
                 "PREFIX.0.et ...) and --config CLUSTER.xml, or ASTRA-sim's --astra-network "
                 "NET.yml --astra-system SYS.json (--help lists every option)");
  else if (o->workload == NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "no workload: give --workload PREFIX");
  else if (o->critical_path < 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--critical-path: N must be 0 or more");
  else if (o->timeline == NULL && (o->timeline_ranks != NULL || o->timeline_window != NULL))
    /* The filters of a timeline not asked for did nothing, without a word. */
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "%s filters the timeline: give --timeline FILE.json too",
                 o->timeline_ranks != NULL ? "--timeline-ranks" : "--timeline-window");
  else if (o->symmetry != NULL && strcmp (o->symmetry, "auto") != 0
           && strcmp (o->symmetry, "off") != 0 && strcmp (o->symmetry, "explain") != 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--symmetry: '%s' is none of auto, off and explain", o->symmetry);
  else
    return parse_limits (o, limits, error)
           && parse_memory_budget (o, &limits->budget, error)
           && parse_load_threads (o, &limits->load_threads, error)
           && app_timeline_check_filters (o->timeline_ranks, o->timeline_window, error)
           && check_outputs (o, error)
           && load_config (o, cfg, error);
  return FALSE;
}

/* The simulation of O's workload on CFG, set up as the options say; NULL
 * with ERROR set when the traces cannot be loaded. */
static AppSim *
new_simulation (const RunOptions *o, const RunLimits *limits, AppConfig *cfg, GError **error)
{
  cfg->wl.lenient = o->lenient;
  g_autofree char *records = record_options (o);
  AppSimLoad load = { .memory_budget = limits->budget, .needs_all_nodes = records,
                      .load_threads = limits->load_threads };
  AppSim *sim = app_sim_new_full (cfg, o->workload, &load, error);
  if (sim == NULL)
    return NULL;
  /* --links reads the link model's links: refuse a model without any before
   * simulating, not after (app_report_links says the same as a guard). */
  if (o->links != NULL && net_links (app_sim_net (sim)) == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--links: the %s link model has no links; use --network-model congestion "
                   "or flow",
                   net_model_name (app_sim_net (sim)));
      app_sim_free (sim);
      return NULL;
    }
  app_sim_set_recording (sim, o->timeline != NULL || o->report != NULL || o->critical_path > 0);
  guint output_bytes = o->timeline != NULL ? app_timeline_node_bytes () : 0;
  if (o->report != NULL || o->critical_path > 0)
    output_bytes += app_report_node_bytes (o->critical_path > 0);
  app_sim_set_output_memory (sim, output_bytes);
  gint64 after_us = -1;
  if (!o->quiet && isatty (STDERR_FILENO) && !app_progress_after (&after_us, error))
    {
      app_sim_free (sim);
      return NULL;
    }
  app_sim_set_progress (sim, after_us);
  app_sim_set_limits (sim, limits->max_events, limits->max_sim_time);
  gboolean explain = o->symmetry != NULL && strcmp (o->symmetry, "explain") == 0;
  gboolean allow = o->symmetry == NULL || strcmp (o->symmetry, "auto") == 0 || explain;
  app_sim_set_symmetry (sim, allow);
  /* Per-link statistics need every rank's messages; --symmetry explain
   * says so rather than "--symmetry off", which was not given. */
  if (allow && o->links != NULL)
    app_sim_refuse_symmetry (sim, "refused: --links counts every rank's messages on its links");
  app_sim_set_explain_symmetry (sim, explain);
  return sim;
}

/* Once a run: messages between two GPUs of one node that left it, which on
 * real hardware would cross the NICs at a fraction of NVLink's bandwidth
 * (net_left_node). */
static void
print_left_node (AppSim *sim)
{
  const Net *net = app_sim_net (sim);
  guint32 src = 0, dst = 0, via = 0;
  guint64 left = net_left_node (net, &src, &dst, &via);
  if (left == 0)
    return;
  NetGraph *graph = net_topo_graph (net_topo (net));
  guint32 gpus = net_topo_dim_size (net_topo (net), 0);
  fprintf (stderr,
           "orrery run: warning: %" G_GUINT64_FORMAT " message%s between two GPUs of one node "
           "left the node (the first: r%u -> r%u through %s); a node is a line of %u ranks of "
           "the innermost dimension, and only its GPUs and switches that link to nothing else "
           "are inside: give its GPUs a way of their own (NVLink, NVSwitch)\n",
           left, left == 1 ? "" : "s", src, dst, net_graph_name (graph, via), gpus);
}

/* A run whose traces need more memory per GPU than the device has would
 * not run on it: said on stderr too, where a sweep's point keeps it. */
static void
print_memory_over (AppSim *sim)
{
  AppMemory m;
  if (!app_memory (sim, &m) || !app_memory_over (&m))
    return;
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  g_autofree char *file = g_path_get_basename (m.path);
  fprintf (stderr,
           "orrery run: warning: %s needs %.2f GiB per GPU (its peak_memory_bytes), more than "
           "the %.2f GiB of %s%s: on the hardware this run would fail out of memory\n",
           file, (double) m.need_B / GiB, m.have_B / GiB,
           m.device[0] != '\0' ? "the " : "the config's device", m.device);
}

/* A measured kernel table that prices none of the run's kernels changes
 * nothing: a warning, not a silent what-if. */
static void
print_table_unused (AppSim *sim)
{
  guint distinct = 0, from_table = 0;
  wl_replay_kernel_table_use (app_sim_replay (sim), &distinct, &from_table);
  if (distinct > 0 && from_table == 0)
    fprintf (stderr,
             "orrery run: warning: the kernel table has a row for none of the traces' %u "
             "distinct kernels (the shapes, dtype and device must match exactly): the kernel "
             "model priced them all\n", distinct);
}

/* What stderr says about how the run went: streamed, nodes skipped. */
static void
print_run_notes (const RunOptions *o, const RunLimits *limits, AppSim *sim)
{
  if (app_sim_streamed (sim) && !o->quiet)
    {
      g_autofree char *b = sim_units_format_bytes (limits->budget);
      fprintf (stderr,
               "orrery run: the traces do not fit the memory budget (%s): streamed, "
               "%u nodes per rank at a time\n",
               b, wl_stream_window_nodes (wl_replay_stream_window (app_sim_replay (sim))));
    }
  print_left_node (sim);
  print_memory_over (sim);
  print_table_unused (sim);
  app_tp_nodes_warn (sim, stderr);
  guint64 unknown = wl_replay_unknown_nodes (app_sim_replay (sim));
  if (unknown > 0)
    fprintf (stderr,
             "orrery run: warning: %" G_GUINT64_FORMAT
             " nodes of unknown types were skipped (taken as instantaneous)\n",
             unknown);
}

/* The files the options ask for, up to the first that cannot be written:
 * its exit status, or 0. */
static int
write_run_files (const RunOptions *o, AppSim *sim)
{
  GError *error = NULL;
  if ((o->report != NULL && !app_report_json (sim, o->report, &error))
      || (o->links != NULL && !app_report_links (sim, o->links, &error))
      || (o->stats != NULL && !app_report_stats (sim, o->stats, &error))
      || (o->timeline != NULL
          && !app_timeline_write (sim, o->timeline, o->timeline_ranks, o->timeline_window,
                                  &error)))
    return app_cli_fail ("run", error);
  return 0;
}

/* The run's wall time on stderr: loading (LOAD_WALL seconds, everything
 * before the first event), then the event loop. */
static void
print_wall_times (AppSim *sim, double load_wall)
{
  const WlReplay *replay = app_sim_replay (sim);
  double mb = (double) wl_replay_trace_bytes (replay) / 1e6;
  fprintf (stderr, "orrery: loaded %u traces (%u distinct, %.0f MB) in %.3f s wall\n",
           wl_replay_ranks (replay), wl_replay_distinct_graphs (replay), mb, load_wall);
  double wall = app_sim_wall_seconds (sim);
  guint64 events = sim_sched_events_run (app_sim_sched (sim));
  fprintf (stderr, "orrery: %" G_GUINT64_FORMAT " events in %.3f s wall (%.2f M events/s)\n",
           events, wall, wall > 0 ? (double) events / wall / 1e6 : 0.0);
}

/* Everything a finished (or stopped) run prints and writes: its exit
 * status. */
static int
report_run (const RunOptions *o, const RunLimits *limits, const AppConfig *cfg, AppSim *sim,
            double load_wall)
{
  print_run_notes (o, limits, sim);
  /* --quiet is errors only: ASTRA-sim's lines go with the summary (the
   * report and the CSV keep every figure they hold). */
  if (cfg->astra_mode && !o->quiet)
    app_report_astra_lines (sim, stdout);
  if (!o->quiet)
    app_report_summary (sim, stdout);
  GError *error = NULL;
  int code = 0;
  if (o->critical_path > 0
      && !app_report_critical_path (sim, (guint) o->critical_path, stdout, &error))
    code = app_cli_fail ("run", error);
  if (code == 0)
    code = write_run_files (o, sim);
  if (!o->quiet)
    print_wall_times (sim, load_wall);
  if (code == 0 && app_sim_stopped (sim) != APP_SIM_COMPLETE)
    code = report_stopped (sim);
  return code;
}

static void
run_options_clear (RunOptions *o)
{
  char **strings[] = { &o->config,         &o->astra_network,  &o->astra_system,
                       &o->astra_memory,   &o->comm_groups,    &o->workload,
                       &o->report,         &o->network_model,  &o->links,
                       &o->stats,          &o->packet_size,    &o->timeline,
                       &o->timeline_ranks, &o->timeline_window, &o->symmetry,
                       &o->max_events,     &o->max_sim_time,   &o->memory_budget,
                       &o->load_threads,   &o->models_help };
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
}

int
app_cmd_run (int argc, char **argv)
{
  RunOptions o = { 0 };
  g_autoptr (AppCli) cli = run_context (&o);
  GError *error = NULL;
  AppConfig cfg;
  app_config_init (&cfg);
  RunLimits limits = { 0 };
  int code;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  if (!app_cli_parse (cli, &argc, &argv, owned, &error)
      || !check_run_options (&o, &limits, &cfg, &error))
    code = app_cli_fail ("run", error);
  else
    {
      gint64 t0 = g_get_monotonic_time ();
      g_autoptr (AppSim) sim = new_simulation (&o, &limits, &cfg, &error);
      double load_wall = (double) (g_get_monotonic_time () - t0) / 1e6;
      if (sim == NULL || !app_sim_run (sim, &error))
        code = app_cli_fail ("run", error);
      else
        code = report_run (&o, &limits, &cfg, sim, load_wall);
    }
  app_config_clear (&cfg);
  run_options_clear (&o);
  return code;
}
