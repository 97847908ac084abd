/* report_csv.c: the per-link and per-rank CSV files (--links, --stats). */
#include "sim/app/report.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/out_file.h"
#include "sim/app/report_perf.h"
#include "sim/error.h"

/* ---- the file ------------------------------------------------------------------- */

/* A CSV output: a stdio stream on PATH's output file (out_file.h). */
typedef struct
{
  SimOutFile *file;
  FILE *f;
} CsvOut;

static void
csv_fail (GError **error, const char *path, const char *why)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path, why);
}

/* Open PATH: FALSE with ERROR set when it cannot be. */
static gboolean
csv_open (CsvOut *out, const char *path, GError **error)
{
  g_autoptr (GError) ioerr = NULL;
  out->file = sim_out_file_open (path, &ioerr);
  if (out->file == NULL)
    {
      csv_fail (error, path, ioerr->message);
      return FALSE;
    }
  /* The stream gets its own descriptor: fclose closes it, the file's own
   * stays for the commit. */
  int fd = dup (sim_out_file_fd (out->file));
  out->f = fd >= 0 ? fdopen (fd, "w") : NULL;
  if (out->f == NULL)
    {
      csv_fail (error, path, g_strerror (errno));
      if (fd >= 0)
        close (fd);
      sim_out_file_discard (out->file);
      return FALSE;
    }
  return TRUE;
}

/* Flush, close and put the file in place: FALSE with ERROR set (and
 * nothing left behind) when a write failed. */
static gboolean
csv_close (CsvOut *out, const char *path, GError **error)
{
  gboolean written = !ferror (out->f);
  int err = errno;
  if (fclose (out->f) != 0 && written)
    {
      written = FALSE;
      err = errno;
    }
  if (!written)
    {
      csv_fail (error, path, g_strerror (err));
      sim_out_file_discard (out->file);
      return FALSE;
    }
  g_autoptr (GError) ioerr = NULL;
  if (!sim_out_file_commit (out->file, &ioerr))
    {
      csv_fail (error, path, ioerr->message);
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
                   "--links: the %s link model has no links; use --network-model congestion "
                   "or flow",
                   net_model_name (net));
      return FALSE;
    }
  CsvOut out;
  if (!csv_open (&out, path, error))
    return FALSE;
  FILE *f = out.f;
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
  return csv_close (&out, path, error);
}

/* ---- per-rank CSV -------------------------------------------------------------- */

gboolean
app_report_stats (const AppSim *sim, const char *path, GError **error)
{
  CsvOut out;
  if (!csv_open (&out, path, error))
    return FALSE;
  FILE *f = out.f;
  WlReplay *replay = app_sim_replay (sim);
  SimTime end = app_sim_end_time (sim);
  /* Native runs add the pipeline bubble and the rank's FLOPs
   * (ASTRA-sim-compatible runs keep their columns). */
  gboolean native = app_efficiency_reported (sim);
  gboolean exchanges = app_exchanges_reported (sim);
  gboolean contention = app_contention_reported (sim);
  fprintf (f, "rank,finish_ps,compute_ps,exposed_comm_ps,idle_ps,after_finish_ps,comm_busy_ps,"
              "cpu_ps,nodes%s%s%s\n",
           native ? ",pipeline_bubble_ps,model_flops,hardware_flops" : "",
           exchanges ? ",exchange_wait_ps" : "", contention ? ",compute_contention_ps" : "");
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
      if (exchanges)
        fprintf (f, ",%" G_GUINT64_FORMAT, s->exchange_wait);
      if (contention)
        fprintf (f, ",%" G_GUINT64_FORMAT, s->compute_contention);
      fputc ('\n', f);
    }
  return csv_close (&out, path, error);
}
