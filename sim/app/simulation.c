/* simulation.c: wiring the layers together and running them. */
#include "sim/app/simulation.h"

#include "sim/error.h"

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

gboolean
app_sim_run (AppSim *sim, GError **error)
{
  g_return_val_if_fail (sim != NULL, FALSE);
  gint64 t0 = g_get_monotonic_time ();
  wl_replay_start (sim->replay);
  sim_sched_run (sim->sched, SIM_TIME_MAX, 0);
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
