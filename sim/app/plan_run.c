/* plan_run.c: bounds, one candidate's simulation, and the bounded search
 * over worker processes; see plan_run.h. */
#include "sim/app/plan_run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "network/gen_topo.h"
#include "sim/app/plan_path.h"
#include "sim/app/plan_pool.h"
#include "sim/app/report.h"
#include "sim/app/report_perf.h"
#include "sim/app/simulation.h"
#include "sim/units.h"
#include "sim/error.h"
#include "workload/compute.h"

/* The largest peak FLOP/s of DEVICE over the data types the planner's
 * traces use: bf16 (the layers, attention, the LM head), fp32 (Adam's
 * arithmetic) and, with FP8, fp8 (the layers' GEMMs); 0 without a
 * device. */
static double
traces_peak (const WlDevice *device, gboolean fp8)
{
  if (device == NULL)
    return 0.0;
  double peak = MAX (device->peak_flops[WL_DTYPE_BF16], device->peak_flops[WL_DTYPE_FP32]);
  return fp8 ? MAX (peak, device->peak_flops[WL_DTYPE_FP8]) : peak;
}

/* Why ENV's compute model allows no FLOPs bound (static), or NULL. */
static const char *
no_flops_bound (const PlanEnv *env)
{
  const WlParams *wl = &env->cfg->wl;
  if (wl->compute == WL_COMPUTE_SCALED)
    return "the scaled compute model";
  if (wl->kernel_table != NULL)
    return "a measured kernel table";
  return NULL;
}

const char *
plan_run_no_bound (const PlanEnv *env)
{
  const WlParams *wl = &env->cfg->wl;
  /* The pipeline bound prices nodes as the run does under every model;
   * the kernel model needs its device's kernel table for that. */
  if (wl->compute == WL_COMPUTE_KERNEL && wl->kernel_device == NULL)
    return no_flops_bound (env) != NULL ? no_flops_bound (env) : "a kernel model without a device";
  return NULL;
}

/* The FLOP/s no compute node of ENV's runs can beat, or 0.
 * - kernel model: every kernel is priced at or below the device's datasheet
 *   peak for its type (GEMMs at the measured achievable rate, below the
 *   peak; FlashAttention at its published rates, below it; memory-bound
 *   kernels at the larger of FLOPs over the peak and bytes over the
 *   bandwidth; workload/kernel_model.c), plus launch overheads, so a node
 *   takes at least its FLOPs (num_ops, the kernels' sum) over the largest
 *   peak of its kernels' types (traces_peak); nodes without kernels take
 *   the roofline.
 * - roofline: num_ops / min (peak x efficiency, ...) >= num_ops / peak
 *   (every generated compute node has num_ops).
 * - replay: the generated durations are the roofline on the planner's
 *   device, rounded up.
 * A measured kernel table or the scaled model can price below that. */
static double
fastest_rate (const PlanEnv *env)
{
  const WlParams *wl = &env->cfg->wl;
  double peak = wl->peak_flops;
  if (no_flops_bound (env) != NULL)
    return 0.0;
  if (wl->compute == WL_COMPUTE_KERNEL)
    peak = MAX (peak, traces_peak (wl_device_preset (wl->device), env->pb->fp8));
  else if (wl->compute == WL_COMPUTE_REPLAY)
    peak = traces_peak (env->pb->device, env->pb->fp8);
  double speed = 1.0;
  for (guint i = 0; i < wl->n_speed_rules; i++)
    speed = MAX (speed, wl->speed_rules[i].speed);
  return peak * speed * MAX (wl->slots_comp, 1u);
}

/* The FLOPs bound: a GPU runs its compute nodes one at a time
 * (slots_comp at once, faster ranks by their speed), so its finish, and
 * the iteration's end (the last finish), is at least its compute FLOPs
 * over the fastest rate; the busiest GPU has at least the mean,
 * wl_gen_transformer_flops (the num_ops of every rank's compute nodes)
 * over the GPUs.  Rounded down. */
static guint64
flops_bound (const PlanEnv *env, const WlGenTransformer *req)
{
  double rate = fastest_rate (env);
  if (!(rate > 0.0))
    return 0;
  double seconds = wl_gen_transformer_flops (req) / (double) env->pb->gpus / rate;
  return (guint64) (seconds * (double) SIM_PS_PER_S);
}

/* The most bytes/s a rank's ports take in at once, all summed, the
 * largest over the ranks: per dimension net_dim_port_Bps (the ports
 * link_analytical.c and the flow and congestion models give a rank); with
 * an explicit graph the links into the rank.  0 where the ports are
 * not shared (ASTRA-sim's semantics: a message in flight gets a link's
 * full bandwidth whatever else is in it, so no floor holds). */
static double
most_in_Bps (const NetTopo *topo)
{
  const NetSpec *spec = topo != NULL ? net_topo_spec (topo) : NULL;
  if (spec == NULL || !spec->share_ports)
    return 0.0;
  double most = 0.0;
  if (spec->graph != NULL)
    {
      guint32 ranks = spec->graph->ranks;
      g_autofree double *in = g_new0 (double, ranks);
      for (guint i = 0; i < spec->graph->links->len; i++)
        {
          const NetGraphLink *l = &g_array_index (spec->graph->links, NetGraphLink, i);
          if (l->to < ranks)
            most = MAX (most, in[l->to] += l->bandwidth_Bps);
        }
      return most;
    }
  for (guint d = 0; d < spec->n_dims; d++)
    most += net_dim_port_Bps (&spec->dims[d]);
  return most;
}

/* Whether only algorithms that give every member of a reduce-scatter n - 1
 * shards can run one (WlTfNetFloor.rs_shards): NCCL's, or rings and direct
 * on every dimension, no program. */
static gboolean
rs_shards (const SysParams *sys)
{
  const SysCollKind rs = SYS_COLL_REDUCE_SCATTER;
  if (sys->program[rs] != NULL)
    return FALSE;
  if (sys->lib.library == SYS_LIBRARY_NCCL)
    return TRUE;
  for (guint d = 0; d < sys->n_impl[rs]; d++)
    if (strcmp (sys->impl[rs][d], "ring") != 0 && strcmp (sys->impl[rs][d], "direct") != 0)
      return FALSE;
  return sys->n_impl[rs] > 0;
}

/* The larger of the FLOPs bound and the pipeline bound
 * (wl_gen_transformer_bound: each stage's compute nodes priced as the run
 * prices them, along the schedule's dependencies, the communication on a
 * rank's chain at least its bytes over the rank's ports where they are
 * shared).  The FLOPs bound stays for the rare case the pipeline bound is
 * 0 (a kernel model without a device); where both are known the pipeline
 * bound is the larger but for rounding. */
guint64
plan_run_bound (const PlanEnv *env, const PlanKnobs *k)
{
  WlGenTransformer req;
  plan_space_request (env->pb, k, &req);
  WlTfNetFloor net = { .in_Bps = most_in_Bps (env->topo), .rs_shards = rs_shards (&env->cfg->sys) };
  return MAX (flops_bound (env, &req), wl_gen_transformer_bound (&req, &env->cfg->wl, &net));
}

/* SIM's figures into OUT. */
static void
fill_result (const AppSim *sim, PlanResult *out)
{
  AppEfficiency e;
  app_efficiency (sim, &e);
  double hfu = 0.0, end = (double) app_sim_end_time (sim);
  memset (out, 0, sizeof *out);
  out->iter_ps = app_sim_end_time (sim);
  if (!app_efficiency_mfu (&e, &out->mfu, &hfu))
    out->mfu = 0.0;
  out->tokens_per_s = e.seconds > 0 ? (double) e.tokens / e.seconds : 0.0;
  WlReplay *replay = app_sim_replay (sim);
  double compute = 0.0, waiting = 0.0;
  for (guint32 r = 0; r < e.ranks; r++)
    {
      const WlRankStats *st = wl_replay_rank_stats (replay, r);
      compute += (double) st->compute_busy;
      /* Over [0, end]: compute_busy + exposed_comm + idle = finish, and
       * the rest of the iteration after it. */
      waiting += end - (double) st->compute_busy - (double) st->exposed_comm;
    }
  if (end > 0 && e.ranks > 0)
    {
      out->compute = compute / e.ranks / end;
      out->exposed = (double) e.mean_exposed / end;
      out->bubble = (double) e.mean_bubble / end;
      out->waiting = waiting / e.ranks / end;
    }
  guint32 classes = wl_replay_n_classes (replay);
  out->simulated_ranks = app_sim_symmetric (sim) ? 1 : classes > 0 ? classes : e.ranks;
  const char *why = app_sim_symmetric (sim) ? "symmetric: rank 0 for all"
                    : app_sim_classes_dropped (sim) != NULL ? app_sim_classes_dropped (sim)
                                                            : wl_replay_classes_why (replay);
  g_strlcpy (out->symmetry, why != NULL ? why : "", sizeof out->symmetry);
}

/* Simulate candidate K: its traces made in memory
 * (wl_gen_transformer_graphs: the graphs its files would give), no file
 * written. */
gboolean
plan_run_one (const PlanEnv *env, const PlanKnobs *k, guint explain, PlanResult *out,
              GError **error)
{
  WlGenTransformer req;
  plan_space_request (env->pb, k, &req);
  g_autoptr (GPtrArray) graphs = wl_gen_transformer_graphs ("candidate", &req, error);
  if (graphs == NULL)
    return FALSE;
  g_autoptr (AppSim) sim = app_sim_new_graphs (env->cfg, env->topo, "candidate", graphs, error);
  if (sim == NULL)
    return FALSE;
  SimTime floor_ps = wl_replay_compute_floor (app_sim_replay (sim));
  if (explain == 0 && env->cutoff > 0 && floor_ps >= env->cutoff)
    {
      memset (out, 0, sizeof *out);
      out->floor_ps = floor_ps;
      out->cut = TRUE;
      return TRUE;
    }
  app_sim_set_symmetry (sim, TRUE);
  app_sim_set_recording (sim, explain > 0);
  app_sim_set_coll_records (sim, FALSE);
  if (!app_sim_run (sim, error))
    return FALSE;
  fill_result (sim, out);
  out->floor_ps = floor_ps;
  return explain == 0 || plan_path_print (sim, explain, stdout, error);
}

/* Simulate candidate ITEM in this process, setting its status. */
static void
run_here (gpointer data, gpointer item)
{
  const PlanEnv *env = data;
  PlanCandidate *c = item;
  GError *error = NULL;
  if (plan_run_one (env, &c->k, 0, &c->r, &error))
    c->status = c->r.cut ? PLAN_BOUNDED_OUT : PLAN_SIMULATED;
  else
    {
      c->status = PLAN_FAILED;
      g_strlcpy (c->r.note, error != NULL ? error->message : "failed", sizeof c->r.note);
      g_clear_error (&error);
    }
}

/* What a worker sends back per candidate. */
typedef struct
{
  PlanStatus status;
  PlanResult r;
} Record;

static void
encode (gconstpointer item, gpointer record)
{
  const PlanCandidate *c = item;
  Record rec;
  memset (&rec, 0, sizeof rec); /* the padding after status too: the whole record is written */
  rec.status = c->status;
  memcpy (&rec.r, &c->r, sizeof rec.r);
  memcpy (record, &rec, sizeof rec);
}

static void
decode (gpointer item, gconstpointer record)
{
  PlanCandidate *c = item;
  Record rec;
  memcpy (&rec, record, sizeof rec);
  c->status = rec.status;
  c->r = rec.r;
}

static void
fail (gpointer item, const char *why)
{
  PlanCandidate *c = item;
  c->status = PLAN_FAILED;
  g_strlcpy (c->r.note, why, sizeof c->r.note);
}

/* Simulate the N candidates of BATCH over up to JOBS worker processes;
 * those whose worker died are PLAN_FAILED. */
static void
run_batch (const PlanEnv *env, PlanCandidate **batch, guint n, guint jobs)
{
  PlanPool pool = { .data = (gpointer) env, .record_size = sizeof (Record), .run = run_here,
                    .encode = encode, .decode = decode, .fail = fail };
  plan_pool_run (&pool, (gpointer *) batch, n, jobs);
}

static gint
by_bound (gconstpointer a, gconstpointer b)
{
  const PlanCandidate *x = *(PlanCandidate *const *) a, *y = *(PlanCandidate *const *) b;
  if (x->bound_ps != y->bound_ps)
    return x->bound_ps < y->bound_ps ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static gint
by_time (gconstpointer a, gconstpointer b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

/* Where stderr is not a terminal, one line per batch: how many of the
 * first DONE of the N candidates that survived pruning were simulated,
 * and how many are bounded out: those of the DONE whose compute floor
 * was, and those of the rest whose bound is, at least KTH; after ELAPSED
 * us. */
static void
progress_line (PlanCandidate *const *all, guint done, guint n, guint64 kth, gint64 elapsed)
{
  guint out = 0, out_done = 0;
  for (guint j = 0; j < done; j++)
    out_done += all[j]->status == PLAN_BOUNDED_OUT;
  for (guint j = done; j < n; j++)
    out += all[j]->bound_ps >= kth;
  fprintf (stderr, "orrery plan: simulated %u of %u, %u bounded out, %.1f s\n", done - out_done,
           n, out + out_done, (double) elapsed / 1e6);
  fflush (stderr);
}

void
plan_run_search (const PlanEnv *env, GArray *cands, guint top, guint jobs, gboolean exhaustive)
{
  gint64 t0 = g_get_monotonic_time ();
  gboolean drawn = FALSE;
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  for (guint i = 0; i < cands->len; i++)
    {
      PlanCandidate *c = &g_array_index (cands, PlanCandidate, i);
      if (c->status != PLAN_PENDING)
        continue;
      c->bound_ps = plan_run_bound (env, &c->k);
      g_ptr_array_add (order, c);
    }
  g_ptr_array_sort (order, by_bound);
  g_autoptr (GArray) times = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint64 kth = G_MAXUINT64;
  guint i = 0, n = order->len;
  PlanCandidate **all = (PlanCandidate **) order->pdata;
  while (i < n && (exhaustive || all[i]->bound_ps < kth))
    {
      guint m = 0;
      while (i + m < n && m < PLAN_BATCH && (exhaustive || all[i + m]->bound_ps < kth))
        m++;
      /* The batch's workers see the K-th best as it stands before it: what
       * they bound out does not depend on how many there are. */
      PlanEnv batch_env = *env;
      batch_env.cutoff = exhaustive || kth == G_MAXUINT64 ? 0 : kth;
      run_batch (&batch_env, all + i, m, MAX (jobs, 1u));
      for (guint j = 0; j < m; j++)
        all[i + j]->bound_ps = MAX (all[i + j]->bound_ps, all[i + j]->r.floor_ps);
      if (plan_pool_interrupted () != 0)
        break; /* what was not sent back stays PLAN_PENDING */
      for (guint j = 0; j < m; j++)
        if (all[i + j]->status == PLAN_SIMULATED)
          g_array_append_val (times, all[i + j]->r.iter_ps);
      g_array_sort (times, by_time);
      if (top > 0 && times->len >= top)
        kth = g_array_index (times, guint64, top - 1);
      i += m;
      if (env->progress_us >= 0)
        plan_pool_progress (i, n,
                            times->len > 0 ? g_array_index (times, guint64, 0) : G_MAXUINT64,
                            g_get_monotonic_time () - t0, env->progress_us, &drawn);
      else
        progress_line (all, i, n, exhaustive ? G_MAXUINT64 : kth, g_get_monotonic_time () - t0);
    }
  if (drawn)
    fputs ("\r\033[K", stderr);
  for (; i < n && plan_pool_interrupted () == 0; i++)
    all[i]->status = PLAN_BOUNDED_OUT;
}

/* Why a cluster whose links are a graph cannot take GPUS GPUs, and what to
 * edit in CONFIG instead: the generator element that made the graph, on
 * its line, with the count that makes GPUS where one attribute sets it. */
static char *
graph_fixed_reason (const AppConfig *cfg, const char *config, guint32 gpus, guint32 node_gpus)
{
  NetGenKind kind;
  if (cfg->generator == NULL || !net_gen_parse_name (cfg->generator, &kind))
    return g_strdup_printf ("its <switch> and <link> elements fix it: give a config of %u GPUs",
                            gpus);
  if (strcmp (cfg->generator, "rail") == 0)
    return g_strdup_printf ("its links are a graph, which cannot be resized: set "
                            "<rail nodes=\"%u\"> (%u nodes of %u GPUs) on line %u of %s, or give a "
                            "config of %u GPUs",
                            gpus / node_gpus, gpus / node_gpus, node_gpus, cfg->generator_line,
                            config, gpus);
  GString *attrs = g_string_new (NULL);
  for (const NetGenAttr *a = net_gen_class (kind)->attrs; a->name != NULL; a++)
    if (a->type == NET_GEN_ATTR_COUNT)
      g_string_append_printf (attrs, "%s%s=...", attrs->len > 0 ? " " : "", a->name);
  char *out = g_strdup_printf ("its links are a graph, which cannot be resized: edit <%s %s> on "
                               "line %u of %s to make %u GPUs, or give a config of that many",
                               cfg->generator, attrs->str, cfg->generator_line, config, gpus);
  g_string_free (attrs, TRUE);
  return out;
}

gboolean
plan_cluster_gpus (AppConfig *cfg, const char *config, guint32 want, guint32 *gpus,
                   guint32 *node_gpus, GError **error)
{
  NetSpec *net = &cfg->net;
  guint64 ranks = 1, inner = 1;
  for (guint d = 0; d < net->n_dims; d++)
    ranks *= net->dims[d].size;
  for (guint d = 0; d + 1 < net->n_dims; d++)
    inner *= net->dims[d].size;
  *node_gpus = net->dims[0].size;
  *gpus = want > 0 ? want : (guint32) ranks;
  if (*gpus % *node_gpus != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--gpus %u is not a multiple of the %u GPUs of a node of %s", *gpus,
                   *node_gpus, config);
      return FALSE;
    }
  if (*gpus != ranks && (net->graph != NULL || net->n_dims < 2 || *gpus % inner != 0))
    {
      g_autofree char *why
          = net->graph != NULL ? graph_fixed_reason (cfg, config, *gpus, *node_gpus)
            : net->n_dims < 2
                ? g_strdup ("one dimension, a single node")
                : g_strdup_printf ("--gpus must be a multiple of the %" G_GUINT64_FORMAT
                                   " GPUs of all but its last dimension", inner);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--gpus %u: %s has %" G_GUINT64_FORMAT " GPUs and a fixed shape (%s)", *gpus,
                   config, ranks, why);
      return FALSE;
    }
  net->dims[net->n_dims - 1].size = (guint32) (*gpus / inner);
  return TRUE;
}

char *
plan_resized_note (const NetSpec *net, guint32 gpus, guint32 cluster_gpus)
{
  guint32 last = net->n_dims > 0 ? net->dims[net->n_dims - 1].size : 1;
  if (gpus == cluster_gpus || last == 0 || gpus < last)
    return g_strdup ("");
  return g_strdup_printf (", its last dimension resized from %u to %u",
                          cluster_gpus / (gpus / last), last);
}
