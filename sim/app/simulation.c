/* simulation.c: wiring the layers together and running them. */
#include "sim/app/simulation.h"

#include <stdio.h>

#include "sim/error.h"
#include "sim/units.h"

struct _AppSim
{
  const AppConfig *cfg;
  char *workload;
  SimSched *sched;
  NetTopo *topo;
  Net *net;
  Sys *sys;
  WlReplay *replay;
  double wall;
  gboolean progress;
  gboolean no_symmetry;
};

AppSim *
app_sim_new (const AppConfig *cfg, const char *workload_prefix, GError **error)
{
  g_return_val_if_fail (cfg != NULL && workload_prefix != NULL, NULL);
  g_autoptr (AppSim) sim = g_new0 (AppSim, 1);
  sim->cfg = cfg;
  sim->workload = g_strdup (workload_prefix);
  sim->sched = sim_sched_new ();
  sim->topo = net_topo_new (&cfg->net, error);
  if (sim->topo == NULL)
    return NULL;
  sim->net = net_new (sim->sched, sim->topo, error);
  if (sim->net == NULL)
    return NULL;
  sim->sys = sys_new (sim->sched, sim->net, &cfg->sys, error);
  if (sim->sys == NULL)
    return NULL;
  sim->replay = wl_replay_new (sim->sched, sim->sys, &cfg->wl);
  if (!wl_replay_load (sim->replay, workload_prefix, net_topo_ranks (sim->topo), error)
      || !wl_replay_bind_groups (sim->replay, cfg->groups, error))
    return NULL;
  return g_steal_pointer (&sim);
}

void
app_sim_free (AppSim *sim)
{
  if (sim == NULL)
    return;
  /* Upper layers first: each borrows the ones below it. */
  wl_replay_free (sim->replay);
  sys_free (sim->sys);
  net_free (sim->net);
  net_topo_free (sim->topo);
  sim_sched_free (sim->sched);
  g_free (sim->workload);
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
app_sim_set_recording (AppSim *sim, gboolean on)
{
  wl_replay_set_recording (sim->replay, on);
}

void
app_sim_set_symmetry (AppSim *sim, gboolean allow)
{
  sim->no_symmetry = !allow;
}

gboolean
app_sim_symmetric (const AppSim *sim)
{
  return wl_replay_lockstep (sim->replay);
}

void
app_sim_set_progress (AppSim *sim, gboolean on)
{
  sim->progress = on;
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

/* Run in slices of events, redrawing the progress line about 4 times a
 * second once a second has passed.  Slicing does not change the order of
 * events, so the results are those of one uninterrupted run. */
static void
run_with_progress (AppSim *sim, gint64 t0)
{
  const guint64 slice = 1u << 20;
  gint64 last_draw = 0;
  guint64 last_events = 0;
  gboolean drawn = FALSE;
  while (sim_sched_run (sim->sched, SIM_TIME_MAX, slice) == SIM_RUN_EVENT_LIMIT)
    {
      gint64 now = g_get_monotonic_time ();
      if (now - t0 < G_USEC_PER_SEC || now - last_draw < G_USEC_PER_SEC / 4)
        continue;
      guint64 events = sim_sched_events_run (sim->sched);
      double rate = last_draw > 0 ? (double) (events - last_events) / ((double) (now - last_draw) / 1e6)
                                  : (double) events / ((double) (now - t0) / 1e6);
      g_autofree char *t = sim_units_format_time (sim_sched_now (sim->sched));
      fprintf (stderr, "\r\033[Korrery: simulated %s, %.2f M events/s, %u of %u ranks finished",
               t, rate / 1e6, ranks_finished (sim), wl_replay_ranks (sim->replay));
      fflush (stderr);
      drawn = TRUE;
      last_draw = now;
      last_events = events;
    }
  if (drawn)
    fputs ("\r\033[K", stderr);
}

gboolean
app_sim_run (AppSim *sim, GError **error)
{
  g_return_val_if_fail (sim != NULL, FALSE);
  gint64 t0 = g_get_monotonic_time ();
  const char *why = NULL;
  if (!sim->no_symmetry && wl_replay_symmetric (sim->replay, &why))
    {
      sys_set_lockstep (sim->sys, TRUE);
      wl_replay_set_lockstep (sim->replay, TRUE);
    }
  wl_replay_start (sim->replay);
  if (sim->progress)
    run_with_progress (sim, t0);
  else
    sim_sched_run (sim->sched, SIM_TIME_MAX, 0);
  if (wl_replay_lockstep (sim->replay))
    wl_replay_lockstep_finish (sim->replay);
  sim->wall = (double) (g_get_monotonic_time () - t0) / 1e6;
  if (!wl_replay_ok (sim->replay, error) || !sys_ok (sim->sys, error))
    return FALSE;
  if (wl_replay_unfinished (sim->replay) > 0)
    {
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
