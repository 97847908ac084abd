/* report_perf.c: MFU, HFU, TFLOP/s, tokens/s and the pipeline bubble; see
 * report_perf.h. */
#include "sim/app/report_perf.h"

#include <stdlib.h>
#include <string.h>

#include "sim/units.h"
#include "workload/compute.h"

gboolean
app_efficiency_reported (const AppSim *sim)
{
  return sys_compat_is_native (&app_sim_config (sim)->sys.compat);
}

gboolean
app_contention_reported (const AppSim *sim)
{
  WlReplay *replay = app_sim_replay (sim);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    if (wl_replay_rank_stats (replay, r)->compute_contention > 0)
      return TRUE;
  return FALSE;
}

gboolean
app_exchanges_reported (const AppSim *sim)
{
  if (!app_efficiency_reported (sim))
    return FALSE;
  WlReplay *replay = app_sim_replay (sim);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    if (wl_replay_rank_stats (replay, r)->exchange_recvs > 0)
      return TRUE;
  return FALSE;
}

/* One exchange: its name (borrowed from the replay) and each rank's wait. */
typedef struct
{
  const char *name;
  SimTime *wait; /* per rank */
} ExchangeRow;

static void
exchange_row_free (gpointer p)
{
  ExchangeRow *row = p;
  g_free (row->wait);
  g_free (row);
}

/* The exchanges by name, in order of first appearance in the ranks'
 * traces (rank 0's first), with each rank's wait on them. */
static GPtrArray *
exchange_rows (const AppSim *sim)
{
  WlReplay *replay = app_sim_replay (sim);
  guint32 ranks = wl_replay_ranks (replay);
  GPtrArray *rows = g_ptr_array_new_with_free_func (exchange_row_free);
  for (guint32 r = 0; r < ranks; r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      for (guint i = 0; i < WL_MAX_EXCHANGES; i++)
        {
          const char *name = wl_replay_exchange_name (replay, r, i);
          if (name == NULL && s->exchange_wait_by[i] == 0)
            continue;
          name = name != NULL ? name : "(unnamed)";
          guint k = 0;
          while (k < rows->len && strcmp (((ExchangeRow *) rows->pdata[k])->name, name) != 0)
            k++;
          if (k == rows->len)
            {
              ExchangeRow *row = g_new (ExchangeRow, 1);
              *row = (ExchangeRow) { .name = name, .wait = g_new0 (SimTime, MAX (ranks, 1u)) };
              g_ptr_array_add (rows, row);
            }
          ((ExchangeRow *) rows->pdata[k])->wait[r] += s->exchange_wait_by[i];
        }
    }
  return rows;
}

static int
cmp_time (const void *a, const void *b)
{
  SimTime x = *(const SimTime *) a, y = *(const SimTime *) b;
  return (x > y) - (x < y);
}

/* ROW's waits: min, median (the lower middle, as the summary's), max and
 * mean over the N ranks. */
static void
exchange_spread (const ExchangeRow *row, guint32 n, SimTime out[4])
{
  g_autofree SimTime *v = g_memdup2 (row->wait, MAX (n, 1u) * sizeof (SimTime));
  guint64 sum = 0;
  for (guint32 r = 0; r < n; r++)
    sum += v[r];
  qsort (v, n, sizeof (SimTime), cmp_time);
  out[0] = n > 0 ? v[0] : 0;
  out[1] = n > 0 ? v[(n - 1) / 2] : 0;
  out[2] = n > 0 ? v[n - 1] : 0;
  out[3] = n > 0 ? sum / n : 0;
}

void
app_report_exchanges (const AppSim *sim, FILE *out)
{
  if (!app_exchanges_reported (sim))
    return;
  g_autoptr (GPtrArray) rows = exchange_rows (sim);
  guint32 n = wl_replay_ranks (app_sim_replay (sim));
  fprintf (out, "exchanges (sends and receives named as one collective; per rank, the time "
                "waiting on their receives with no compute, part of exposed communication):\n");
  /* The name column fits the longest name (table-row-wise's "all-to-all
   * (embedding gradients, backward, stage 2)" is 52 characters). */
  int w = 48;
  for (guint k = 0; k < rows->len; k++)
    w = MAX (w, (int) strlen (((ExchangeRow *) rows->pdata[k])->name));
  fprintf (out, "  %-*s %14s %14s %14s\n", w, "exchange", "min", "median", "max");
  for (guint k = 0; k < rows->len; k++)
    {
      SimTime t[4];
      exchange_spread (rows->pdata[k], n, t);
      g_autofree char *lo = sim_units_format_time (t[0]);
      g_autofree char *mid = sim_units_format_time (t[1]);
      g_autofree char *hi = sim_units_format_time (t[2]);
      fprintf (out, "  %-*s %14s %14s %14s\n", w, ((ExchangeRow *) rows->pdata[k])->name, lo,
               mid, hi);
    }
}

GArray *
app_exchange_stats (const AppSim *sim)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (AppExchangeStat));
  if (!app_exchanges_reported (sim))
    return out;
  WlReplay *replay = app_sim_replay (sim);
  for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      for (guint i = 0; i < WL_MAX_EXCHANGES; i++)
        {
          gboolean sent = (s->exchange_started & (1u << i)) != 0;
          if (!sent && s->exchange_msgs_by[i] == 0)
            continue;
          const char *name = wl_replay_exchange_name (replay, r, i);
          name = name != NULL ? name : "(unnamed)";
          guint k = 0;
          while (k < out->len && strcmp (g_array_index (out, AppExchangeStat, k).name, name) != 0)
            k++;
          if (k == out->len)
            {
              AppExchangeStat x = { .name = name, .first = G_MAXUINT64 };
              g_array_append_val (out, x);
            }
          AppExchangeStat *x = &g_array_index (out, AppExchangeStat, k);
          x->ranks++;
          x->msgs += s->exchange_msgs_by[i];
          x->bytes += s->exchange_bytes_by[i];
          if (sent)
            {
              x->first = MIN (x->first, s->exchange_start_by[i]);
              x->last_join = MAX (x->last_join, s->exchange_start_by[i]);
            }
          x->done = MAX (x->done, s->exchange_done_by[i]);
        }
    }
  return out;
}

gboolean
app_exchange_bandwidth (const AppExchangeStat *x, double *alg, double *bus)
{
  if (x->ranks < 2 || x->done <= x->last_join || x->bytes == 0)
    return FALSE;
  *bus = (double) x->bytes / x->ranks / ((double) (x->done - x->last_join) / 1e12);
  *alg = *bus * x->ranks / (x->ranks - 1);
  return TRUE;
}

/* The report's efficiency.exchanges[]. */
static void
exchanges_json (const AppSim *sim, AppJsonOut *j)
{
  g_autoptr (GPtrArray) rows = exchange_rows (sim);
  guint32 n = wl_replay_ranks (app_sim_replay (sim));
  app_json_out_begin_array (j, "exchanges");
  for (guint k = 0; k < rows->len; k++)
    {
      SimTime t[4];
      exchange_spread (rows->pdata[k], n, t);
      app_json_out_begin_object (j, NULL);
      app_json_out_string (j, "name", ((ExchangeRow *) rows->pdata[k])->name);
      app_json_out_uint (j, "min_wait_ps", t[0]);
      app_json_out_uint (j, "median_wait_ps", t[1]);
      app_json_out_uint (j, "max_wait_ps", t[2]);
      app_json_out_uint (j, "mean_wait_ps", t[3]);
      app_json_out_end_object (j);
    }
  app_json_out_end_array (j);
}

/* FLOPs summed from the ranks' COMP nodes, and the mean bubble and
 * remaining exposed communication. */
static void
sum_ranks (WlReplay *replay, AppEfficiency *e, double *unmarked)
{
  guint64 bubble = 0, exposed = 0, exchange = 0;
  *unmarked = 0.0;
  for (guint32 r = 0; r < e->ranks; r++)
    {
      const WlRankStats *s = wl_replay_rank_stats (replay, r);
      e->hardware_flops += s->flops;
      e->compute += s->compute;
      *unmarked += s->flops - s->recompute_flops;
      bubble += s->pipeline_bubble;
      exposed += s->exposed_comm - s->pipeline_bubble;
      exchange += s->exchange_wait;
      e->exchanges |= s->exchange_recvs > 0;
    }
  e->mean_bubble = e->ranks > 0 ? bubble / e->ranks : 0;
  e->mean_exchange = e->ranks > 0 ? exchange / e->ranks : 0;
  e->mean_exposed = e->ranks > 0 ? exposed / e->ranks : 0;
}

/* The device's peak for the dtype of most of the ranks' matrix FLOPs, when
 * the config names a device that has one; the label says which dtype and,
 * unless it is the config's and the only one, its share. */
static void
dtype_peak (WlReplay *replay, const WlParams *wl, AppEfficiency *e)
{
  double by[WL_DTYPE_N] = { 0 }, total = 0.0;
  for (guint32 r = 0; r < e->ranks; r++)
    for (guint t = 0; t < WL_DTYPE_N; t++)
      by[t] += wl_replay_rank_stats (replay, r)->matrix_flops[t];
  guint best = 0;
  for (guint t = 0; t < WL_DTYPE_N; t++)
    {
      total += by[t];
      if (by[t] > by[best])
        best = t;
    }
  if (!(total > 0.0) || !(wl->dtype_peak[best] > 0.0))
    return;
  e->peak_flops = wl->dtype_peak[best];
  double share = by[best] / total;
  if (best == wl->peak_dtype && share == 1.0)
    return;
  g_snprintf (e->peak_label, sizeof e->peak_label,
              "%s %s: the dtype of %.1f %% of the GEMM and attention FLOPs", wl->device,
              wl_dtype_name ((WlDtype) best), 100.0 * share);
}

void
app_efficiency (const AppSim *sim, AppEfficiency *out)
{
  g_return_if_fail (sim != NULL && out != NULL);
  WlReplay *replay = app_sim_replay (sim);
  const WlParams *wl = &app_sim_config (sim)->wl;
  *out = (AppEfficiency) { .ranks = wl_replay_ranks (replay),
                           .seconds = (double) app_sim_end_time (sim) / (double) SIM_PS_PER_S };
  g_strlcpy (out->peak_label, wl->peak_label, sizeof out->peak_label);
  if (wl->peak_label[0] != '\0')
    out->peak_flops = wl->peak_flops;
  out->replayed = wl->compute == WL_COMPUTE_REPLAY;
  double unmarked = 0.0;
  sum_ranks (replay, out, &unmarked);
  dtype_peak (replay, wl, out);
  WlTraceFacts facts;
  wl_replay_trace_facts (replay, &facts);
  out->from_metadata = facts.model_flops > 0.0;
  out->model_flops = out->from_metadata ? facts.model_flops : unmarked;
  out->formula = out->from_metadata ? facts.flops_formula : NULL;
  out->tokens = facts.tokens_per_iteration;
}

gboolean
app_efficiency_mfu (const AppEfficiency *e, double *mfu, double *hfu)
{
  double capacity = e->seconds * (double) e->ranks * e->peak_flops;
  if (!(capacity > 0.0))
    return FALSE;
  *mfu = e->model_flops / capacity;
  *hfu = e->hardware_flops / capacity;
  return TRUE;
}

/* FLOP/s per GPU of FLOPS over the iteration, in TFLOP/s (0 without time). */
static double
tflops_per_gpu (const AppEfficiency *e, double flops)
{
  double gpu_s = e->seconds * (double) e->ranks;
  return gpu_s > 0.0 ? flops / gpu_s / 1e12 : 0.0;
}

static void
print_mfu (const AppEfficiency *e, FILE *out)
{
  double mfu = 0.0, hfu = 0.0;
  if (app_efficiency_mfu (e, &mfu, &hfu))
    {
      fprintf (out, "  MFU %.1f %%, HFU %.1f %% of %.1f TFLOP/s per GPU (%s)\n", 100.0 * mfu,
               100.0 * hfu, e->peak_flops / 1e12, e->peak_label);
      /* Above 100 %, kernels ran above this peak: FP8 GEMMs measured
       * against the bf16 peak, say.  The figure stays (it is what the
       * convention gives); the reader learns why. */
      if (mfu > 1.0 || hfu > 1.0)
        fprintf (out, "  (above 100 %%: the kernels ran faster than this peak, e.g. FP8 GEMMs "
                      "against a bf16 peak; <compute dtype=\"fp8\"> measures against FP8's)\n");
    }
  else if (e->peak_flops > 0.0)
    fprintf (out, "  MFU not available: no simulated time\n");
  else
    fprintf (out, "  MFU not available: the config names no peak "
                  "(<compute device=...> or <compute peak=...>)\n");
}

/* MFU and HFU, and the FLOPs with where they come from. */
static void
print_flops (const AppEfficiency *e, FILE *out)
{
  print_mfu (e, out);
  if (e->from_metadata)
    fprintf (out, "  model FLOPs %.4g (the traces' metadata: %s): %.1f TFLOP/s per GPU\n",
             e->model_flops, e->formula != NULL ? e->formula : "formula not named",
             tflops_per_gpu (e, e->model_flops));
  else
    fprintf (out, "  model FLOPs %.4g (num_ops of COMP nodes not marked is_recompute): %.1f "
                  "TFLOP/s per GPU\n",
             e->model_flops, tflops_per_gpu (e, e->model_flops));
  fprintf (out, "  hardware FLOPs %.4g (num_ops of every COMP node): %.1f TFLOP/s per GPU\n",
           e->hardware_flops, tflops_per_gpu (e, e->hardware_flops));
  /* MFU above HFU looks like a bug and is not one: the formula's
   * convention counts work no kernel does (PaLM's and Megatron's count
   * the causal mask's skipped half of attention). */
  if (e->from_metadata && e->model_flops > e->hardware_flops)
    fprintf (out, "  (model FLOPs above hardware FLOPs: the formula counts work the kernels "
                  "skip, such as the masked half of causal attention)\n");
  /* FLOPs that took no time: traces written without durations (gen
   * transformer without --device) replayed as they are, on a config
   * without a compute model (fat-tree-256.xml).  The summary's "compute
   * 0 ns" then says nothing of why. */
  if (e->hardware_flops > 0.0 && e->compute == 0 && e->replayed)
    fprintf (out, "  (no compute time: the COMP nodes carry FLOPs but no duration, and the "
                  "config replays durations (<compute model=\"replay\">, the default); price "
                  "them with <compute model=\"kernel\" device=\"H100-SXM\"> or "
                  "model=\"roofline\", or write durations with gen transformer --device)\n");
}

gboolean
app_memory (const AppSim *sim, AppMemory *out)
{
  g_return_val_if_fail (sim != NULL && out != NULL, FALSE);
  const WlParams *wl = &app_sim_config (sim)->wl;
  *out = (AppMemory) { .have_B = wl->mem_capacity_B, .device = wl->device };
  if (!app_efficiency_reported (sim))
    return FALSE;
  out->need_B = wl_replay_peak_memory (app_sim_replay (sim), &out->path, &out->missing,
                                      &out->traces);
  return out->need_B > 0;
}

gboolean
app_memory_over (const AppMemory *m)
{
  return m->need_B > 0 && m->have_B > 0.0 && (double) m->need_B > m->have_B;
}

/* The summary's memory line: the traces' need per GPU and, where the config
 * names the device's memory, whether it fits. */
static void
print_memory (const AppSim *sim, FILE *out)
{
  AppMemory m;
  if (!app_memory (sim, &m))
    return;
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  g_autofree char *file = g_path_get_basename (m.path);
  g_autofree char *of = m.device[0] != '\0' ? g_strdup_printf ("the %s's", m.device)
                                              : g_strdup ("the config's");
  fprintf (out, "  memory per GPU: %.2f GiB by the traces' estimate (the largest: %s's "
                "peak_memory_bytes)", (double) m.need_B / GiB, file);
  if (!(m.have_B > 0.0))
    fprintf (out, "; the config names no device memory to hold it to");
  else if (!app_memory_over (&m))
    fprintf (out, ", within %s %.2f GiB", of, m.have_B / GiB);
  else
    fprintf (out, ", more than %s %.2f GiB: on the hardware this run would fail out of memory",
             of, m.have_B / GiB);
  /* Ranks whose traces say nothing are not checked: said, not implied. */
  if (m.missing > 0)
    fprintf (out, " (%u of the %u distinct traces give none: their ranks are not checked)",
             m.missing, m.traces);
  fputc ('\n', out);
}

/* With a measured kernel table: how much of the run it priced (a table
 * whose shapes the traces never list changes nothing, and said nothing). */
static void
print_kernel_table (const AppSim *sim, FILE *out)
{
  guint distinct = 0, from_table = 0;
  wl_replay_kernel_table_use (app_sim_replay (sim), &distinct, &from_table);
  if (distinct > 0)
    fprintf (out, "  kernel table: %u of the traces' %u distinct kernels priced from it, the "
                  "rest by the kernel model\n", from_table, distinct);
}

void
app_report_efficiency (const AppSim *sim, FILE *out)
{
  if (!app_efficiency_reported (sim))
    return;
  AppEfficiency e;
  app_efficiency (sim, &e);
  fprintf (out, "efficiency (one iteration = the simulated time, %u GPUs):\n", e.ranks);
  if (e.hardware_flops > 0.0 || e.from_metadata)
    print_flops (&e, out);
  else
    fprintf (out, "  no FLOPs: the traces give neither num_ops on COMP nodes nor model_flops\n");
  if (e.tokens > 0 && e.seconds > 0.0)
    fprintf (out, "  %.0f tokens/s (%" G_GUINT64_FORMAT " tokens per iteration)\n",
             (double) e.tokens / e.seconds, e.tokens);
  print_memory (sim, out);
  print_kernel_table (sim, out);
  g_autofree char *exposed = sim_units_format_time (e.mean_exposed);
  g_autofree char *bubble = sim_units_format_time (e.mean_bubble);
  g_autofree char *exchange = sim_units_format_time (e.mean_exchange);
  g_autofree char *of_it = e.exchanges ? g_strdup_printf (" (%s of it waiting on exchanges)",
                                                         exchange)
                                       : g_strdup ("");
  double iteration = (double) app_sim_end_time (sim);
  fprintf (out, "  mean per rank: exposed communication %s%s, pipeline bubble %s (%.1f %% of the "
                "iteration)\n",
           exposed, of_it, bubble,
           iteration > 0.0 ? 100.0 * (double) e.mean_bubble / iteration : 0.0);
}

static void
add_number (AppJsonOut *j, const char *name, double v, gboolean valid)
{
  if (valid)
    app_json_out_double (j, name, v);
  else
    app_json_out_null (j, name);
}

void
app_report_efficiency_json (const AppSim *sim, AppJsonOut *j)
{
  if (!app_efficiency_reported (sim))
    return;
  AppEfficiency e;
  app_efficiency (sim, &e);
  double mfu = 0.0, hfu = 0.0;
  gboolean has_mfu = app_efficiency_mfu (&e, &mfu, &hfu);
  app_json_out_begin_object (j, "efficiency");
  add_number (j, "model_flops", e.model_flops, TRUE);
  app_json_out_string (j, "model_flops_source", e.from_metadata ? "metadata" : "nodes");
  if (e.formula != NULL)
    app_json_out_string (j, "flops_formula", e.formula);
  else
    app_json_out_null (j, "flops_formula");
  add_number (j, "hardware_flops", e.hardware_flops, TRUE);
  add_number (j, "peak_flops_per_gpu", e.peak_flops, e.peak_flops > 0.0);
  app_json_out_string (j, "peak", e.peak_label);
  add_number (j, "mfu", mfu, has_mfu);
  add_number (j, "hfu", hfu, has_mfu);
  add_number (j, "model_tflops_per_gpu", tflops_per_gpu (&e, e.model_flops), e.seconds > 0.0);
  add_number (j, "hardware_tflops_per_gpu", tflops_per_gpu (&e, e.hardware_flops),
              e.seconds > 0.0);
  add_number (j, "tokens_per_iteration", (double) e.tokens, e.tokens > 0);
  add_number (j, "tokens_per_s", e.seconds > 0.0 ? (double) e.tokens / e.seconds : 0.0,
              e.tokens > 0 && e.seconds > 0.0);
  AppMemory m;
  gboolean need = app_memory (sim, &m);
  if (need)
    app_json_out_uint (j, "peak_memory_bytes", m.need_B);
  else
    app_json_out_null (j, "peak_memory_bytes");
  if (m.have_B > 0.0)
    app_json_out_uint (j, "memory_capacity_bytes", (guint64) m.have_B);
  else
    app_json_out_null (j, "memory_capacity_bytes");
  if (need && m.have_B > 0.0)
    app_json_out_boolean (j, "memory_fits", !app_memory_over (&m));
  else
    app_json_out_null (j, "memory_fits");
  app_json_out_uint (j, "mean_pipeline_bubble_ps", e.mean_bubble);
  app_json_out_uint (j, "mean_exposed_comm_less_bubble_ps", e.mean_exposed);
  if (e.exchanges)
    {
      app_json_out_uint (j, "mean_exchange_wait_ps", e.mean_exchange);
      exchanges_json (sim, j);
    }
  app_json_out_end_object (j);
}
