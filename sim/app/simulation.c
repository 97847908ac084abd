/* simulation.c: wiring the layers together and running them. */
#include "sim/app/simulation.h"

#include <math.h>
#include <stdio.h>

#include "sim/error.h"
#include "sim/units.h"

struct _AppSim
{
  const AppConfig *cfg;
  char *workload;
  GPtrArray *graphs;    /* the ranks' graphs when given in memory (app_sim_new_graphs), or NULL */
  const NetTopo *given_topo; /* the topology when given (app_sim_new_graphs), or NULL */
  SimSched *sched;
  NetTopo *topo;
  Net *net;
  Sys *sys;
  WlReplay *replay;
  double wall;
  gint64 progress_us; /* draw the progress line after this much wall time; < 0: never */
  const char *no_symmetry; /* why the shortcut is off (static), or NULL */
  gboolean explain_symmetry; /* the summary says why the classes are as they are */
  gboolean recording;
  gboolean no_coll_records; /* app_sim_set_coll_records */
  guint output_node_bytes; /* app_sim_set_output_memory */
  guint64 max_events;   /* 0: no limit */
  SimTime max_sim_time; /* SIM_TIME_MAX: no limit */
  AppSimStop stopped;
  const char *not_symmetric; /* why the shortcut was not taken (static), or NULL */
  guint32 ranks;        /* the topology's */
  double slowest;       /* the slowest dimension's bandwidth (bytes/s); INFINITY: none */
  AppSimLoad load;      /* how it was loaded (needs_all_nodes owned), to load again */
  const char *classes_dropped; /* why a run with symmetry classes was redone (static) */
};

/* Reject, before simulating, a message size the clock or the byte counters
 * cannot hold: comm_size times what the kind moves through one rank
 * (sys_coll_rank_bytes_factor; 1 for a message) must stay
 * below 2^63 bytes, and its serialization at the slowest dimension's
 * bandwidth below 2^63 ps (about 106 days: half the clock, leaving room for
 * the rest of the run).  With an explicit link graph the dimensions'
 * bandwidths are not the links' and only the first check applies; the run
 * still stops with an error if the clock overflows (app_sim_run).  The
 * replay runs it on every node as it loads (wl_replay_set_node_check), in
 * memory or streamed, and app_sim_new reports the first failure after
 * binding the process groups. */
/* The congestion model holds every packet of a message at once, an event
 * per packet and hop: a message (at most its node's comm_size: every
 * algorithm sends pieces of it) may have at most this many packets. */
#define APP_PACKETS_MAX (G_GUINT64_CONSTANT (1) << 20)

static gboolean
packets_fit (const AppSim *sim, const char *path, const WlNode *n, GError **error)
{
  guint64 total = n->bytes;
  guint64 pb = sim->cfg->net.packet_bytes;
  if (sim->cfg->net.model != NET_MODEL_CONGESTION || pb == 0 || total / pb < APP_PACKETS_MAX)
    return TRUE;
  g_autofree char *size = sim_units_format_bytes (pb);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "%s: node %" G_GUINT64_FORMAT ": a message of up to %" G_GUINT64_FORMAT
               " bytes (its comm_size) makes more than %" G_GUINT64_FORMAT " packets of %s, "
               "the most a message may have (each is held and simulated hop by hop): use "
               "--packet-size %" G_GUINT64_FORMAT "B or more", path, n->id, total,
               APP_PACKETS_MAX, size,
               total / APP_PACKETS_MAX + 1);
  return FALSE;
}

static gboolean
check_message_size (gpointer data, const char *path, const WlNode *n, GError **error)
{
  const AppSim *sim = data;
  const guint64 limit = G_GUINT64_CONSTANT (1) << 63;
  if (n->op != WL_OP_COLL && n->op != WL_OP_SEND && n->op != WL_OP_RECV)
    return TRUE;
  guint64 factor = n->op == WL_OP_COLL
                     ? sys_coll_rank_bytes_factor ((SysCollKind) n->coll_kind, sim->ranks)
                     : 1;
  guint64 total = 0;
  gboolean fits = g_uint64_checked_mul (&total, n->bytes, factor) && total < limit;
  if (!packets_fit (sim, path, n, error))
    return FALSE;
  if (fits && (isinf (sim->slowest) || net_serialization_ps (total, sim->slowest) < limit))
    return TRUE;
  if (!fits)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "%s: node %" G_GUINT64_FORMAT ": comm_size %" G_GUINT64_FORMAT
                 " bytes x %" G_GUINT64_FORMAT " (what it moves through one rank) "
                 "overflows 2^63 bytes", path, n->id, n->bytes, factor);
  else
    {
      g_autofree char *bw = sim_units_format_bandwidth (sim->slowest);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: node %" G_GUINT64_FORMAT ": comm_size %" G_GUINT64_FORMAT
                   " bytes x %" G_GUINT64_FORMAT " at the slowest link (%s) "
                   "takes past 2^63 ps (about 106 days): it overflows the simulated "
                   "clock", path, n->id, n->bytes, factor, bw);
    }
  return FALSE;
}

AppSim *
app_sim_new (const AppConfig *cfg, const char *workload_prefix, GError **error)
{
  return app_sim_new_full (cfg, workload_prefix, NULL, error);
}

/* Build the layers and load the traces, as SIM's config and load say. */
static gboolean
sim_build (AppSim *sim, GError **error)
{
  const AppConfig *cfg = sim->cfg;
  sim->sched = sim_sched_new ();
  sim->topo = sim->given_topo != NULL ? (NetTopo *) sim->given_topo
                                       : net_topo_new (&cfg->net, error);
  if (sim->topo == NULL)
    {
      if (cfg->sources != NULL && cfg->sources->len > 0)
        sim_error_prefix (error, "%s: ", (const char *) cfg->sources->pdata[0]);
      return FALSE;
    }
  sim->net = net_new (sim->sched, sim->topo, error);
  if (sim->net == NULL)
    return FALSE;
  sim->sys = sys_new (sim->sched, sim->net, &cfg->sys, error);
  if (sim->sys == NULL)
    {
      /* The algorithms are the config's (a cluster XML's, or the system
       * JSON, the second ASTRA-sim source): name the file. */
      guint src = cfg->astra_mode ? 1 : 0;
      if (cfg->sources != NULL && cfg->sources->len > src)
        sim_error_prefix (error, "%s: ", (const char *) cfg->sources->pdata[src]);
      return FALSE;
    }
  sys_set_coll_records (sim->sys, !sim->no_coll_records);
  sim->ranks = net_topo_ranks (sim->topo);
  sim->slowest = INFINITY;
  const NetSpec *spec = net_topo_spec (sim->topo);
  for (guint d = 0; d < spec->n_dims && net_topo_graph (sim->topo) == NULL; d++)
    sim->slowest = MIN (sim->slowest, spec->dims[d].bandwidth_Bps);
  sim->replay = wl_replay_new (sim->sched, sim->sys, &cfg->wl);
  wl_replay_set_node_check (sim->replay, check_message_size, sim);
  wl_replay_set_memory_budget (sim->replay, sim->load.memory_budget, sim->load.needs_all_nodes);
  if (sim->load.stream_window > 0)
    wl_replay_set_stream_window (sim->replay, sim->load.stream_window);
  if (sim->load.load_threads > 1)
    wl_replay_set_load_threads (sim->replay, sim->load.load_threads);
  gboolean loaded;
  if (sim->graphs == NULL)
    loaded = wl_replay_load (sim->replay, sim->workload, sim->ranks, error);
  else if (sim->graphs->len != sim->ranks)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: the workload has %u ranks but the topology has %u", sim->workload,
                   sim->graphs->len, sim->ranks);
      loaded = FALSE;
    }
  else
    loaded = wl_replay_load_graphs (sim->replay, (WlGraph *const *) sim->graphs->pdata,
                                    sim->ranks, error);
  return loaded && wl_replay_bind_groups (sim->replay, cfg->groups, error)
         && wl_replay_node_check_ok (sim->replay, error);
}

/* Free the layers, upper ones first: each borrows the ones below it. */
static void
sim_teardown (AppSim *sim)
{
  g_clear_pointer (&sim->replay, wl_replay_free);
  g_clear_pointer (&sim->sys, sys_free);
  g_clear_pointer (&sim->net, net_free);
  if (sim->given_topo != NULL)
    sim->topo = NULL;
  g_clear_pointer (&sim->topo, net_topo_free);
  g_clear_pointer (&sim->sched, sim_sched_free);
}

AppSim *
app_sim_new_full (const AppConfig *cfg, const char *workload_prefix, const AppSimLoad *load,
                  GError **error)
{
  g_return_val_if_fail (cfg != NULL && workload_prefix != NULL, NULL);
  g_autoptr (AppSim) sim = g_new0 (AppSim, 1);
  sim->cfg = cfg;
  sim->workload = g_strdup (workload_prefix);
  sim->max_sim_time = SIM_TIME_MAX;
  sim->progress_us = -1;
  if (load != NULL)
    {
      sim->load = *load;
      sim->load.needs_all_nodes = g_strdup (load->needs_all_nodes);
    }
  if (!sim_build (sim, error))
    return NULL;
  return g_steal_pointer (&sim);
}

AppSim *
app_sim_new_graphs (const AppConfig *cfg, const NetTopo *topo, const char *name,
                    GPtrArray *graphs, GError **error)
{
  g_return_val_if_fail (cfg != NULL && name != NULL && graphs != NULL, NULL);
  g_autoptr (AppSim) sim = g_new0 (AppSim, 1);
  sim->cfg = cfg;
  sim->given_topo = topo;
  sim->workload = g_strdup (name);
  sim->graphs = g_ptr_array_ref (graphs);
  sim->max_sim_time = SIM_TIME_MAX;
  sim->progress_us = -1;
  if (!sim_build (sim, error))
    return NULL;
  return g_steal_pointer (&sim);
}

void
app_sim_free (AppSim *sim)
{
  if (sim == NULL)
    return;
  sim_teardown (sim);
  g_free ((char *) sim->load.needs_all_nodes);
  g_free (sim->workload);
  if (sim->graphs != NULL)
    g_ptr_array_unref (sim->graphs);
  g_free (sim);
}

static void
deadlock_error (AppSim *sim, GError **error)
{
  g_autoptr (GString) msg = g_string_new (NULL);
  guint32 stuck = wl_replay_unfinished (sim->replay);
  g_string_append_printf (msg,
                          "deadlock: the event queue is empty at %" G_GUINT64_FORMAT
                          " ns but %u of %u ranks have unfinished nodes\n",
                          sim_time_to_ns (sim_sched_now (sim->sched)), stuck,
                          wl_replay_ranks (sim->replay));
  wl_replay_describe_blocked (sim->replay, msg, 16);
  sys_describe_pending (sim->sys, msg);
  if (msg->len > 0 && msg->str[msg->len - 1] == '\n')
    g_string_truncate (msg, msg->len - 1);
  g_set_error_literal (error, SIM_ERROR, SIM_ERROR_DEADLOCK, msg->str);
}

void
app_sim_set_output_memory (AppSim *sim, guint bytes_per_node)
{
  g_return_if_fail (sim != NULL);
  sim->output_node_bytes = bytes_per_node;
}

void
app_sim_set_recording (AppSim *sim, gboolean on)
{
  sim->recording = on;
  wl_replay_set_recording (sim->replay, on);
}

gboolean
app_sim_records_kept_classes_off (const AppSim *sim)
{
  return sim->recording && sim->no_symmetry == NULL && sim->classes_dropped == NULL
         && sim->not_symmetric != NULL && wl_replay_n_classes (sim->replay) == 0;
}

void
app_sim_set_coll_records (AppSim *sim, gboolean on)
{
  sim->no_coll_records = !on;
  sys_set_coll_records (sim->sys, on);
}

void
app_sim_set_symmetry (AppSim *sim, gboolean allow)
{
  sim->no_symmetry = allow ? NULL : "--symmetry off";
}

void
app_sim_refuse_symmetry (AppSim *sim, const char *why)
{
  g_return_if_fail (sim != NULL && why != NULL);
  sim->no_symmetry = why;
}

void
app_sim_set_explain_symmetry (AppSim *sim, gboolean on)
{
  sim->explain_symmetry = on;
}

gboolean
app_sim_explains_symmetry (const AppSim *sim)
{
  return sim->explain_symmetry;
}

gboolean
app_sim_symmetric (const AppSim *sim)
{
  return wl_replay_lockstep (sim->replay);
}

const char *
app_sim_classes_dropped (const AppSim *sim)
{
  return sim->classes_dropped;
}

const char *
app_sim_not_symmetric (const AppSim *sim)
{
  return sim->not_symmetric;
}

gboolean
app_sim_streamed (const AppSim *sim)
{
  return wl_replay_streamed (sim->replay);
}

void
app_sim_set_progress (AppSim *sim, gint64 after_us)
{
  sim->progress_us = after_us;
}

gboolean
app_progress_after (gint64 *us, GError **error)
{
  const char *env = g_getenv ("ORRERY_PROGRESS_AFTER");
  SimTime ps = 0;
  *us = G_USEC_PER_SEC;
  if (env == NULL)
    return TRUE;
  if (!sim_units_parse_time (env, &ps, NULL) || ps / 1000000 > (SimTime) G_MAXINT64)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "ORRERY_PROGRESS_AFTER: '%s' is not a time with its unit (e.g. 0s or 5s)",
                   env);
      return FALSE;
    }
  *us = (gint64) (ps / 1000000);
  return TRUE;
}

static guint32
ranks_finished (const AppSim *sim)
{
  guint32 n = wl_replay_ranks (sim->replay), done = 0;
  for (guint32 r = 0; r < n; r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (sim->replay, r);
      done += s->nodes_done == s->nodes;
    }
  return done;
}

void
app_sim_set_limits (AppSim *sim, guint64 max_events, SimTime max_sim_time)
{
  sim->max_events = max_events;
  sim->max_sim_time = max_sim_time;
}

AppSimStop
app_sim_stopped (const AppSim *sim)
{
  return sim->stopped;
}

const char *
app_sim_stopped_name (const AppSim *sim)
{
  switch (sim->stopped)
    {
    case APP_SIM_STOPPED_EVENTS:
      return "max-events";
    case APP_SIM_STOPPED_TIME:
      return "max-sim-time";
    default:
      return NULL;
    }
}

guint64
app_sim_max_events (const AppSim *sim)
{
  return sim->max_events;
}

SimTime
app_sim_max_sim_time (const AppSim *sim)
{
  return sim->max_sim_time;
}

guint32
app_sim_ranks_finished (const AppSim *sim)
{
  return ranks_finished (sim);
}

/* Whether the event limit is spent. */
static gboolean
events_spent (const AppSim *sim)
{
  return sim->max_events != 0 && sim_sched_events_run (sim->sched) >= sim->max_events;
}

/* One call of the scheduler: at most `slice` events (0: any number), within
 * the limits.  Times saturate at SIM_TIME_MAX (sim_time_add), so an event
 * due there stands for a clock that overflowed: it is never run, and the
 * scheduler stops before it with SIM_RUN_TIME_LIMIT. */
static SimRunStatus
run_step (AppSim *sim, guint64 slice)
{
  guint64 budget = slice;
  if (sim->max_events != 0)
    {
      guint64 left = sim->max_events - sim_sched_events_run (sim->sched);
      budget = budget == 0 ? left : MIN (budget, left);
    }
  return sim_sched_run (sim->sched, MIN (sim->max_sim_time, SIM_TIME_MAX - 1), budget);
}

/* "N% of nodes done, about T left, " for the progress line: the nodes done
 * among those of the ranks simulated, and the time left were the rest to
 * go at the pace so far (wall time `elapsed` us); "" before any node is
 * done or when the traces' node counts are not known. */
static char *
progress_eta (const AppSim *sim, gint64 elapsed)
{
  guint32 n = wl_replay_ranks (sim->replay);
  guint64 done = 0, total = 0;
  for (guint32 r = 0; r < n; r++)
    if (wl_replay_simulated (sim->replay, r))
      {
        const WlRankStats *s = wl_replay_rank_stats (sim->replay, r);
        done += s->nodes_done;
        total += s->nodes;
      }
  if (done == 0 || total == 0 || done > total)
    return g_strdup ("");
  double f = (double) done / (double) total;
  double left_s = (double) elapsed / 1e6 * (1.0 - f) / f;
  g_autofree char *left = left_s < 60 ? g_strdup_printf ("%.0f s", ceil (left_s))
                          : left_s < 3600 ? g_strdup_printf ("%.0f min", ceil (left_s / 60))
                                          : g_strdup_printf ("%.1f h", left_s / 3600);
  return g_strdup_printf ("%.1f%% of nodes done, about %s left, ", 100.0 * f, left);
}

/* Run in slices of events, redrawing the progress line about 4 times a
 * second once a second has passed.  Slicing does not change the order of
 * events, so the results are those of one uninterrupted run. */
static SimRunStatus
run_with_progress (AppSim *sim, gint64 t0)
{
  const guint64 slice = 1u << 20;
  gint64 last_draw = 0;
  guint64 last_events = 0;
  gboolean drawn = FALSE;
  SimRunStatus status;
  while ((status = run_step (sim, slice)) == SIM_RUN_EVENT_LIMIT && !events_spent (sim))
    {
      gint64 now = g_get_monotonic_time ();
      if (now - t0 < sim->progress_us || now - last_draw < G_USEC_PER_SEC / 4)
        continue;
      guint64 events = sim_sched_events_run (sim->sched);
      double rate = last_draw > 0
                      ? (double) (events - last_events) / ((double) (now - last_draw) / 1e6)
                      : (double) events / ((double) (now - t0) / 1e6);
      g_autofree char *t = sim_units_format_time (sim_sched_now (sim->sched));
      g_autofree char *eta = progress_eta (sim, now - t0);
      fprintf (stderr, "\r\033[Korrery: simulated %s, %s%.2f M events/s, %u of %u ranks finished",
               t, eta, rate / 1e6, ranks_finished (sim), wl_replay_ranks (sim->replay));
      fflush (stderr);
      drawn = TRUE;
      last_draw = now;
      last_events = events;
    }
  if (drawn)
    fputs ("\r\033[K", stderr);
  return status;
}

/* NODES x SIZE, saturated at G_MAXUINT64. */
static guint64
mul_sat (guint64 nodes, guint64 size)
{
  guint64 bytes;
  return g_uint64_checked_mul (&bytes, nodes, size) ? bytes : G_MAXUINT64;
}

/* The memory recording takes, with the traces held, against the memory
 * budget: FALSE with ERROR set, naming the sizes, when it passes it. */
static gboolean
check_record_budget (const AppSim *sim, guint64 records, guint64 outputs, GError **error)
{
  guint64 budget = sim->load.memory_budget;
  guint64 held = wl_replay_held_bytes (sim->replay);
  guint64 need = records > G_MAXUINT64 - outputs ? G_MAXUINT64 : records + outputs;
  if (budget == 0 || (need <= G_MAXUINT64 - held && held + need <= budget))
    return TRUE;
  const char *opts = sim->load.needs_all_nodes != NULL ? sim->load.needs_all_nodes
                                                       : "the per-node records";
  g_autofree char *b = sim_units_format_bytes (budget);
  g_autofree char *h = sim_units_format_bytes (held);
  g_autofree char *r = sim_units_format_bytes (records);
  g_autofree char *o = sim_units_format_bytes (outputs);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "%s needs %s of node records and %s for the outputs written after the run; "
               "with the traces' %s that passes the memory budget (--memory-budget %s): "
               "give a larger --memory-budget, or --memory-budget none, or drop %s",
               opts, r, o, h, b, opts);
  return FALSE;
}

/* The node records that recording will allocate as the ranks start
 * (wl_replay_set_recording): one WlNodeRecord per node of every simulated
 * rank, the biggest allocation a large input makes, and what the outputs
 * allocate after the run (app_sim_set_output_memory) per node of every
 * rank.  Both are allocated where a failure would abort (inside the run)
 * or after all the simulating, so they are counted against the budget and
 * tried here first, before simulating. */
static gboolean
check_record_memory (AppSim *sim, GError **error)
{
  guint32 ranks = wl_replay_lockstep (sim->replay) ? 1 : wl_replay_ranks (sim->replay);
  guint64 nodes = 0, all = 0;
  for (guint32 r = 0; r < wl_replay_ranks (sim->replay); r++)
    {
      guint64 n = MAX (wl_replay_graph (sim->replay, r)->n_nodes, 1u);
      nodes += r < ranks ? n : 0;
      all += n;
    }
  if (!check_record_budget (sim, mul_sat (nodes, sizeof (WlNodeRecord)),
                            mul_sat (all, sim->output_node_bytes), error))
    return FALSE;
  g_autofree char *what = g_strdup_printf (
      "node records (--report, --timeline, --critical-path) of %u ranks", ranks);
  g_autofree gpointer probe = sim_try_alloc (nodes, sizeof (WlNodeRecord), FALSE, what, error);
  if (probe == NULL)
    return FALSE;
  if (sim->output_node_bytes == 0)
    return TRUE;
  g_autofree gpointer more = sim_try_alloc (all, sim->output_node_bytes, FALSE,
                                            "the outputs written after the run (the critical "
                                            "path's steps, the timeline's lanes)", error);
  return more != NULL;
}

static void
overflow_error (AppSim *sim, GError **error)
{
  g_autoptr (GString) msg = g_string_new (NULL);
  g_autofree char *last = sim_units_format_time (app_sim_end_time (sim));
  g_string_append_printf (msg,
                          "simulated time overflows the clock (2^64 ps, about 213 days): an "
                          "event fell due beyond it; the last node finished at %s; at the "
                          "nodes in flight:\n", last);
  wl_replay_describe_blocked (sim->replay, msg, 16);
  if (msg->len > 0 && msg->str[msg->len - 1] == '\n')
    g_string_truncate (msg, msg->len - 1);
  g_set_error_literal (error, SIM_ERROR, SIM_ERROR_LIMIT, msg->str);
}

/* Whether a run with symmetry classes may not be every rank's: two
 * messages met at a port at once (net_alias_ties), or it did not finish
 * (an error or a deadlock, which a run of every rank describes rank by
 * rank).  Sets sim->classes_dropped to say which. */
static gboolean
classes_inexact (AppSim *sim, SimRunStatus status)
{
  GError *error = NULL;
  /* A hold first: it stops the run, but the rest of its instant runs, and
   * may then meet the held phase in the queue (sys_class_overlaps). */
  if (sys_class_line_holds (sim->sys) > 0)
    sim->classes_dropped = "a collective of one class waited in a rank's dimension queue for "
                           "another's chunk phase, in an order the classes cannot show to be "
                           "every rank's";
  else if (sys_class_overlaps (sim->sys) > 0)
    sim->classes_dropped = "two collectives picked from one of a rank's dimension queues at once "
                           "while others waited there, in an order the classes cannot show to be "
                           "every rank's";
  else if (net_alias_ties (sim->net) > 0)
    sim->classes_dropped = "two ranks' messages met at a shared port at once, in an order the "
                           "classes cannot show to be every rank's";
  else if (!wl_replay_ok (sim->replay, &error)
           || (status == SIM_RUN_EMPTY && wl_replay_unfinished (sim->replay) > 0))
    sim->classes_dropped = "the run with classes did not complete";
  g_clear_error (&error);
  return sim->classes_dropped != NULL;
}

/* Load again, to simulate every rank (after classes_inexact). */
static gboolean
reload (AppSim *sim, GError **error)
{
  sim_teardown (sim);
  if (!sim_build (sim, error))
    return FALSE;
  wl_replay_set_recording (sim->replay, sim->recording);
  return TRUE;
}

static gboolean run_once (AppSim *sim, gboolean *redo, GError **error);

gboolean
app_sim_run (AppSim *sim, GError **error)
{
  g_return_val_if_fail (sim != NULL, FALSE);
  gboolean redo = FALSE;
  gboolean ok = run_once (sim, &redo, error);
  /* A run with symmetry classes that may not be every rank's: once more,
   * every rank (classes_dropped keeps classes off). */
  if (redo)
    ok = reload (sim, error) && run_once (sim, &redo, error);
  return ok;
}

/* One run; *REDO set (and nothing else reported) when it had symmetry
 * classes and must be redone over every rank. */
static gboolean
run_once (AppSim *sim, gboolean *redo, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  const char *why = NULL;
  if (sim->no_symmetry != NULL)
    sim->not_symmetric = sim->no_symmetry;
  else if (sim->classes_dropped != NULL)
    sim->not_symmetric = sim->classes_dropped;
  else if (!wl_replay_symmetric (sim->replay, &why))
    {
      /* Not one class: maybe several (replay.h, wl_replay_classes). */
      if (!wl_replay_classes (sim->replay, &why))
        sim->not_symmetric = why;
    }
  else
    wl_replay_set_lockstep (sim->replay, TRUE);
  if (sim->recording && wl_replay_streamed (sim->replay))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "node records (--report, --timeline, --critical-path) need every trace node "
                   "in memory, and the traces are streamed (they do not fit the memory budget)");
      return FALSE;
    }
  if (sim->recording && !check_record_memory (sim, error))
    return FALSE;
  if (!wl_replay_start (sim->replay, error))
    return FALSE;
  SimRunStatus status = sim->progress_us >= 0 ? run_with_progress (sim, t0) : run_step (sim, 0);
  if (wl_replay_lockstep (sim->replay))
    wl_replay_lockstep_finish (sim->replay);
  if (wl_replay_n_classes (sim->replay) > 0)
    {
      wl_replay_classes_finish (sim->replay);
      if (classes_inexact (sim, status))
        return (*redo = TRUE);
    }
  sim->wall = (double) (g_get_monotonic_time () - t0) / 1e6;
  if (!wl_replay_ok (sim->replay, error))
    return FALSE;
  if (status == SIM_RUN_TIME_LIMIT && sim->max_sim_time >= SIM_TIME_MAX - 1)
    {
      overflow_error (sim, error);
      return FALSE;
    }
  if (status == SIM_RUN_TIME_LIMIT || status == SIM_RUN_EVENT_LIMIT)
    {
      sim->stopped = status == SIM_RUN_TIME_LIMIT ? APP_SIM_STOPPED_TIME : APP_SIM_STOPPED_EVENTS;
      return TRUE;
    }
  if (wl_replay_unfinished (sim->replay) > 0)
    {
      if (wl_replay_check_windows (sim->replay, error))
        deadlock_error (sim, error);
      return FALSE;
    }
  return TRUE;
}

SimSched *
app_sim_sched (const AppSim *sim)
{
  return sim->sched;
}

const NetTopo *
app_sim_topo (const AppSim *sim)
{
  return sim->topo;
}

Net *
app_sim_net (const AppSim *sim)
{
  return sim->net;
}

Sys *
app_sim_sys (const AppSim *sim)
{
  return sim->sys;
}

WlReplay *
app_sim_replay (const AppSim *sim)
{
  return sim->replay;
}

const AppConfig *
app_sim_config (const AppSim *sim)
{
  return sim->cfg;
}

const char *
app_sim_workload (const AppSim *sim)
{
  return sim->workload;
}

SimTime
app_sim_end_time (const AppSim *sim)
{
  SimTime end = 0;
  for (guint32 r = 0; r < wl_replay_ranks (sim->replay); r++)
    end = MAX (end, wl_replay_rank_stats (sim->replay, r)->finish);
  return end;
}

double
app_sim_wall_seconds (const AppSim *sim)
{
  return sim->wall;
}
