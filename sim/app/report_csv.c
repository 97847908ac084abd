/* report_csv.c: the per-link and per-rank CSV files (--links, --stats). */
#include "sim/app/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/app/report_perf.h"
#include "sim/error.h"

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
  /* Native runs add the pipeline bubble and the rank's FLOPs
   * (ASTRA-sim-compatible runs keep their columns). */
  gboolean native = app_efficiency_reported (sim);
  fprintf (f, "rank,finish_ps,compute_ps,exposed_comm_ps,idle_ps,after_finish_ps,comm_busy_ps,"
              "cpu_ps,nodes%s\n", native ? ",pipeline_bubble_ps,model_flops,hardware_flops" : "");
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      fprintf (f,
               "%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
               ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
               ",%" G_GUINT64_FORMAT ",%u",
               r, s->finish, s->compute_busy, s->exposed_comm, app_rank_idle (s), end - s->finish,
               s->comm_busy, s->cpu, s->nodes);
      if (native)
        fprintf (f, ",%" G_GUINT64_FORMAT ",%.0f,%.0f", s->pipeline_bubble,
                 s->flops - s->recompute_flops, s->flops);
      fputc ('\n', f);
    }
  if (fclose (f) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path,
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}
