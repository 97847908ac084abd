/* cmd_plan.c: `orrery plan`; see cmd_plan.h. */
#include "sim/app/cmd_plan.h"

#include <glib/gstdio.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sim/app/cli.h"
#include "sim/app/cmd_gen.h"
#include "sim/out_file.h"
#include "sim/app/config.h"
#include "sim/app/plan_dlrm.h"
#include "sim/app/plan_out.h"
#include "sim/app/plan_pool.h"
#include "sim/app/plan_run.h"
#include "sim/app/plan_space.h"
#include "sim/error.h"
#include "sim/units.h"
#include "workload/compute.h"
#include "workload/graph.h"

/* The options; what is absent stays UNSET (app_cli_parse refuses G_MININT
 * given). */
#define UNSET G_MININT

/* The model sizes' options, in the order of PlanOptions.sizes. */
static const char *const size_names[7] = { "layers", "hidden", "heads", "kv-heads",
                                           "ffn",    "vocab",  "seq" };
typedef struct
{
  char *model, *config, *device, *space, *out, *dtype, *attention;
  gint sizes[7]; /* layers, hidden, heads, kv-heads, ffn, vocab, seq */
  gint gpus, batch, top, jobs, explain, experts, top_k;
  gboolean exhaustive, no_sp, no_dp_overlap, dlrm;
} PlanOptions;

static AppCli *
plan_context (PlanOptions *o)
{
  GOptionEntry entries[] = {
    { "dlrm", 0, 0, G_OPTION_ARG_NONE, &o->dlrm,
      "Plan a DLRM's embedding sharding instead (its options: orrery plan --dlrm --help)",
      NULL },
    { "model", 0, 0, G_OPTION_ARG_STRING, &o->model,
      "Model preset (orrery gen transformer --list)", "PRESET" },
    { "layers", 0, 0, G_OPTION_ARG_INT, &o->sizes[0], "Layers (overrides the preset's)", "L" },
    { "hidden", 0, 0, G_OPTION_ARG_INT, &o->sizes[1], "Hidden size", "H" },
    { "heads", 0, 0, G_OPTION_ARG_INT, &o->sizes[2], "Attention heads", "N" },
    { "kv-heads", 0, 0, G_OPTION_ARG_INT, &o->sizes[3], "Key/value heads (default = heads)",
      "N" },
    { "ffn", 0, 0, G_OPTION_ARG_INT, &o->sizes[4], "FFN size (default 4 x hidden)", "F" },
    { "vocab", 0, 0, G_OPTION_ARG_INT, &o->sizes[5], "Vocabulary size", "V" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &o->sizes[6], "Sequence length in tokens", "S" },
    { "experts", 0, 0, G_OPTION_ARG_INT, &o->experts, "Experts per layer (0 = dense)", "E" },
    { "top-k", 0, 0, G_OPTION_ARG_INT, &o->top_k, "Experts per token (default 2)", "K" },
    { "gpus", 'n', 0, G_OPTION_ARG_INT, &o->gpus,
      "GPUs (default the cluster's; a multiple of a node's GPUs; another count only for "
      "a cluster of dimensions, see below)", "N" },
    { "global-batch", 'B', 0, G_OPTION_ARG_INT, &o->batch, "Sequences per iteration", "B" },
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &o->config, "Native cluster description",
      "CLUSTER.xml" },
    { "device", 0, 0, G_OPTION_ARG_STRING, &o->device,
      "Device whose memory bounds each stage (default the cluster's)", "NAME" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
      "bf16 (default) or fp8: the layers' GEMMs (as gen transformer)", "bf16|fp8" },
    { "attention", 0, 0, G_OPTION_ARG_STRING, &o->attention,
      "flash (default) or unfused (Megatron 2021; as gen transformer)", "flash|unfused" },
    { "no-sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o->no_sp,
      "TP all-reduces instead of sequence parallelism (as gen transformer)", NULL },
    { "no-dp-overlap", 0, 0, G_OPTION_ARG_NONE, &o->no_dp_overlap,
      "Gradients reduced after the backward (ZeRO 0 only; as gen transformer)", NULL },
    { "space", 0, 0, G_OPTION_ARG_STRING, &o->space,
      "Narrow or widen the search (grammar below)", "SPEC" },
    { "top", 'k', 0, G_OPTION_ARG_INT, &o->top, "Rank the K best (default 5)", "K" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o->jobs,
      "Worker processes (default 1); the output is the same for any J", "J" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out,
      "Write DIR/plan.csv (every candidate)", "DIR" },
    { "explain", 0, 0, G_OPTION_ARG_INT, &o->explain,
      "Simulate candidate ID (as plan.csv numbers them) and print its critical path", "ID" },
    { "exhaustive", 0, 0, G_OPTION_ARG_NONE, &o->exhaustive,
      "Simulate every candidate that fits, bounds or not (slow; checks the bound)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  AppCli *cli
      = app_cli_new ("- search the parallel configurations of a transformer on a cluster");
  app_cli_add_entries (cli, NULL, entries);
  g_option_context_set_description (
      app_cli_context (cli),
      "Enumerates tp, pp, virtual stages v, cp, ep (MoE), the micro-batch mb, ZeRO 0-3 or the\n"
      "distributed optimizer, recomputation and the schedule; dp = gpus / (tp pp cp).\n"
      "Prunes by divisibility and by gen transformer's memory model (each with its reason),\n"
      "bounds each survivor from below (each stage's compute priced as the run prices it,\n"
      "along the pipeline schedule, communication free), simulates them cheapest bound\n"
      "first, 8 at a time, and stops when no bound can beat the K-th best time.\n\n"
      "--space SPEC: KEY=VALUES clauses separated by ';', values by ',':\n"
      "  tp, pp, v, cp, ep, mb  whole numbers (defaults: tp the divisors of a node's GPUs\n"
      "                         (of all GPUs with tp-across=yes), pp the divisors of the\n"
      "                         GPUs up to the layers, v 1,2, cp 1 (2 and up: each simulates\n"
      "                         every rank), ep\n"
      "                         the divisors of the experts, mb the powers of two\n"
      "                         dividing global-batch / dp)\n"
      "  zero                   0,1,2,3,dist (dist: the distributed optimizer)\n"
      "  recompute              none,selective,full\n"
      "  sched                  1f1b,gpipe\n"
      "  tp-across              no (default) or yes: TP wider than a node\n"
      "e.g. --space \"tp=1,2,4,8;pp=1,2,4,8;mb=1,2;zero=0,1;recompute=none,full\"\n"
      "A space of more than 1,000,000 candidates is refused (narrow --space).\n\n"
      "--gpus N other than the cluster's count resizes a cluster whose shape is its <dim>s\n"
      "(two or more, no <graph>; e.g. configs/default.xml, configs/three-level-16k.xml):\n"
      "its last dimension gets N / (the GPUs of the others) nodes.  A cluster given as a\n"
      "<graph> (rail or fat-tree, e.g. configs/h100-cluster.xml) or of one dimension keeps\n"
      "its size: copy it and edit the node count of its graph, or give a config of N GPUs.\n"
      "--device sets the memory limit; under the kernel and roofline models the compute is\n"
      "still priced as the cluster's <compute> (the header says so).\n\n"
      APP_CLI_EXIT_CODES_PLAN_HELP "\n");
  return cli;
}

/* The sizes gen transformer refuses whatever the split (its own checks,
 * wl_gen_transformer_microbatches): said once, naming the options, rather
 * than as every candidate pruned "refused by the generator". */
static gboolean
plan_model_shape (const WlTransformerModel *m, GError **error)
{
  guint32 kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
  if (m->hidden % m->heads != 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the heads (%u) must divide the hidden "
                 "size (%u): the head dimension is hidden / heads (--heads, --hidden)",
                 m->name, m->heads, m->hidden);
  else if (kv > m->heads || m->heads % kv != 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: the kv heads (%u) must divide the "
                 "heads (%u) (--kv-heads, --heads)", m->name, kv, m->heads);
  else if (m->experts > 0 && m->top_k > m->experts)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: --top-k (%u) must be at most "
                 "--experts (%u)", m->name, m->top_k, m->experts);
  return error == NULL || *error == NULL;
}

/* The model: the preset, then the sizes given. */
static gboolean
plan_model (const PlanOptions *o, WlTransformerModel *m, GError **error)
{
  memset (m, 0, sizeof *m);
  if (o->model != NULL)
    {
      const WlTransformerModel *p = wl_transformer_preset (o->model);
      if (p == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "unknown model '%s' (orrery gen transformer --list)", o->model);
          return FALSE;
        }
      *m = *p;
    }
  else
    {
      m->name = "custom";
      m->ffn = o->sizes[1] > 0 ? (guint32) (4 * o->sizes[1]) : 0;
    }
  guint32 *fields[7] = { &m->layers, &m->hidden, &m->heads, &m->kv_heads,
                         &m->ffn,    &m->vocab,  &m->seq };
  for (guint i = 0; i < 7; i++)
    {
      if (o->sizes[i] == UNSET)
        continue;
      if (o->sizes[i] <= 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--%s %d: must be at least 1",
                       size_names[i], o->sizes[i]);
          return FALSE;
        }
      *fields[i] = (guint32) o->sizes[i];
    }
  if ((o->experts != UNSET && o->experts < 0) || (o->top_k != UNSET && o->top_k < 1))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--experts must be at least 0 and --top-k at least 1 (got %d and %d)",
                   o->experts == UNSET ? 0 : o->experts, o->top_k == UNSET ? 1 : o->top_k);
      return FALSE;
    }
  if (o->experts != UNSET)
    m->experts = (guint32) o->experts;
  if (o->top_k != UNSET)
    m->top_k = (guint32) o->top_k;
  else if (m->experts > 0 && m->top_k == 0)
    m->top_k = MIN (2, m->experts);
  if (m->layers == 0 || m->hidden == 0 || m->heads == 0 || m->vocab == 0 || m->seq == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "need --model PRESET, or --layers --hidden --heads --vocab --seq");
      return FALSE;
    }
  return plan_model_shape (m, error);
}

/* *GPUS: CFG's cluster as its file gives it (the product of its
 * dimensions), before --gpus resizes it.  TRUE, to chain in a condition. */
static gboolean
plan_cluster_size (const AppConfig *cfg, guint32 *gpus)
{
  guint64 n = 1;
  for (guint d = 0; d < cfg->net.n_dims; d++)
    n *= cfg->net.dims[d].size;
  *gpus = (guint32) MIN (n, G_MAXUINT32);
  return TRUE;
}

/* The checks, the configuration and the problem, in the order their
 * messages take precedence. */
static gboolean
plan_problem (const PlanOptions *o, AppConfig *cfg, PlanProblem *pb, PlanSpace *space,
              GError **error)
{
  if (o->config == NULL || o->batch == UNSET)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "need --model PRESET (or the sizes) --global-batch B --config CLUSTER.xml "
                 "[--gpus N]");
  else if (o->batch <= 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--global-batch %d: must be at least 1",
                 o->batch);
  else if (o->gpus != UNSET && o->gpus <= 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--gpus %d: must be at least 1", o->gpus);
  else if (o->top <= 0 || o->jobs <= 0) /* the one at fault, as plan --dlrm says it */
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s %d: must be at least 1",
                 o->top <= 0 ? "--top" : "--jobs", o->top <= 0 ? o->top : o->jobs);
  else if (o->explain != UNSET && o->explain < 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--explain %d: a candidate's id is at least 0",
                 o->explain);
  else if (plan_model (o, &pb->model, error) && plan_space_parse (o->space, space, error)
           && app_config_load_xml (cfg, o->config, error)
           && plan_cluster_size (cfg, &pb->cluster_gpus)
           && plan_cluster_gpus (cfg, o->config, o->gpus != UNSET ? (guint32) o->gpus : 0,
                                 &pb->gpus, &pb->node_gpus, error))
    {
      const char *name = o->device != NULL ? o->device : cfg->wl.device;
      pb->device = wl_device_preset (name);
      pb->global_batch = (guint32) o->batch;
      WlGenTransformer fw = { 0 };
      if (!app_gen_framework (o->dtype, o->attention, &fw, error))
        return FALSE;
      pb->fp8 = fw.fp8;
      pb->attention = fw.attention;
      pb->no_sp = o->no_sp;
      pb->no_dp_overlap = o->no_dp_overlap;
      if (pb->device != NULL)
        return TRUE;
      /* Where the name came from, so that the user knows what to change:
       * a cluster without <compute> (dgx1.xml) names none. */
      g_autofree char *names = wl_device_preset_names ();
      if (o->device != NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--device %s: no such device (one of %s)",
                     name, names);
      else if (*name == '\0')
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "%s names no device (<compute device=...>): give --device NAME (one of %s)",
                     o->config, names);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "%s: its device '%s' is not a preset: give --device NAME (one of %s)",
                     o->config, name, names);
    }
  return FALSE;
}

/* One reason and how many candidates it pruned. */
typedef struct
{
  const char *reason;
  guint count;
} ReasonCount;

static gint
by_count (gconstpointer a, gconstpointer b)
{
  const ReasonCount *x = a, *y = b;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  return strcmp (x->reason, y->reason);
}

/* The counts of pruned candidates by reason, most frequent first (ties by
 * name, so that the order is the same in every run). */
static void
print_reasons (GArray *cands, FILE *out)
{
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (ReasonCount));
  for (guint i = 0; i < cands->len; i++)
    {
      const PlanCandidate *c = &g_array_index (cands, PlanCandidate, i);
      guint j = 0;
      if (c->status != PLAN_PRUNED)
        continue;
      while (j < counts->len
             && strcmp (g_array_index (counts, ReasonCount, j).reason, c->reason) != 0)
        j++;
      if (j == counts->len)
        g_array_append_val (counts, ((ReasonCount) { c->reason, 0 }));
      g_array_index (counts, ReasonCount, j).count++;
    }
  g_array_sort (counts, by_count);
  for (guint j = 0; j < counts->len; j++)
    {
      const ReasonCount *rc = &g_array_index (counts, ReasonCount, j);
      /* The one reason a --space key lifts: say which. */
      fprintf (out, "  pruned, %s: %u%s\n", rc->reason, rc->count,
               strcmp (rc->reason, "tp wider than a node") == 0
                   ? " (--space tp-across=yes allows it)"
                   : "");
    }
}

static const char *
status_name (PlanStatus s)
{
  static const char *const names[] = { "pruned", "pending", "bounded-out", "simulated", "failed" };
  return names[s];
}

/* The header: the problem, then what a user might read wrongly into it:
 * a device given that does not price the compute, and a network model
 * that makes each candidate slow. */
static void
print_header (const PlanProblem *pb, const PlanOptions *o, const AppConfig *cfg)
{
  /* A cluster --gpus resized is not the file: say so where its name is. */
  g_autofree char *resized = plan_resized_note (&cfg->net, pb->gpus, pb->cluster_gpus);
  printf ("plan: %s on %u GPUs (%s%s), global batch %u, seq %u, %s (%.2f GiB)%s%s%s%s\n",
          pb->model.name, pb->gpus, o->config, resized, pb->global_batch, pb->model.seq,
          pb->device->name,
          pb->device->mem_capacity_B / (1024.0 * 1024.0 * 1024.0), pb->fp8 ? ", fp8 GEMMs" : "",
          pb->attention == WL_ATTENTION_UNFUSED ? ", unfused attention" : "",
          pb->no_sp ? ", no sequence parallelism" : "",
          pb->no_dp_overlap ? ", gradients reduced after the backward" : "");
  plan_out_device_note (o->device != NULL ? pb->device->name : NULL, "the memory limit",
                        &cfg->wl);
  plan_out_replay_note (pb->device, &cfg->wl);
  /* The kernel model runs a dtype its device lacks as bf16
   * (configs/devices/README.md): "fp8 GEMMs" alone would mislead. */
  if (pb->fp8 && cfg->wl.compute == WL_COMPUTE_KERNEL && cfg->wl.device[0] != '\0'
      && !(cfg->wl.dtype_peak[WL_DTYPE_FP8] > 0.0))
    printf ("note: --dtype fp8, but the cluster's %s has no FP8 rate: the kernel model prices "
            "its fp8 GEMMs as bf16 (configs/devices/README.md)\n", cfg->wl.device);
  if (cfg->net.model != NET_MODEL_ANALYTICAL)
    printf ("note: each candidate is simulated with the %s network model (%s): slower than "
            "the analytical model (latency + bytes / bandwidth, no contention), which a copy "
            "of the config with <network model=\"analytical\"> (and no packet-size=) would "
            "use\n",
            cfg->net.model == NET_MODEL_CONGESTION ? "congestion" : "flow",
            cfg->net.model == NET_MODEL_CONGESTION
                ? "store-and-forward packets over FIFO links"
                : "fluid flows sharing each link max-min fairly");
}

/* Before the search: the candidates, how many survive and the pruned by
 * reason. */
static void
print_space (GArray *cands)
{
  guint alive = 0;
  for (guint i = 0; i < cands->len; i++)
    alive += g_array_index (cands, PlanCandidate, i).status == PLAN_PENDING;
  printf ("space: %u candidate%s, %u pruned, %u to simulate (cheapest bound first, %d at a "
          "time)\n", cands->len, cands->len == 1 ? "" : "s", cands->len - alive, alive,
          PLAN_BATCH);
  print_reasons (cands, stdout);
  fflush (stdout);
}

/* After the search: the counts by status. */
static void
print_counts (GArray *cands)
{
  guint n[PLAN_FAILED + 1] = { 0 };
  for (guint i = 0; i < cands->len; i++)
    n[g_array_index (cands, PlanCandidate, i).status]++;
  printf ("candidates: %u: %u simulated, %u bounded out, %u failed, %u pruned\n", cands->len,
          n[PLAN_SIMULATED], n[PLAN_BOUNDED_OUT], n[PLAN_FAILED], n[PLAN_PRUNED]);
}

static gint
by_iteration (gconstpointer a, gconstpointer b)
{
  const PlanCandidate *x = *(PlanCandidate *const *) a, *y = *(PlanCandidate *const *) b;
  if (x->r.iter_ps != y->r.iter_ps)
    return x->r.iter_ps < y->r.iter_ps ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* One table row (or, C NULL, the header). */
static void
print_row (guint rank, const PlanCandidate *c)
{
  if (c == NULL)
    {
      printf ("%4s %6s %3s %3s %2s %5s %2s %2s %3s %-8s %-9s %-5s %12s %6s %10s %9s %7s %7s %6s "
              "%7s\n",
              "rank", "id", "tp", "pp", "v", "dp", "cp", "ep", "mb", "zero", "recompute", "sched",
              "iteration", "MFU", "tokens/s", "mem/GPU", "compute", "exposed", "bubble", "waiting");
      return;
    }
  const PlanKnobs *k = &c->k;
  g_autofree char *t = sim_units_format_time (c->r.iter_ps);
  /* An MFU of 0 is one without a peak (a cluster without <compute>
   * replays durations): "-", as `orrery run` prints no MFU then. */
  g_autofree char *mfu = c->r.mfu > 0.0 ? g_strdup_printf ("%5.1f%%", 100 * c->r.mfu)
                                        : g_strdup ("-");
  printf ("%4u %6u %3u %3u %2u %5u %2u %2u %3u %-8s %-9s %-5s %12s %6s %10.0f %5.1f GiB "
          "%6.1f%% %6.1f%% %5.1f%% %6.1f%%\n",
          rank, c->id, k->tp, k->pp, k->v, k->dp, k->cp, k->ep, k->mb, plan_zero_name (k->zero),
          plan_recompute_name (k->recompute), plan_sched_name (k->sched), t, mfu,
          c->r.tokens_per_s, (double) c->mem_B / (1024.0 * 1024.0 * 1024.0), 100 * c->r.compute,
          100 * c->r.exposed, 100 * c->r.bubble, 100 * c->r.waiting);
}

/* What limits the best candidate: its largest share, said to limit it
 * only when it is at least twice the next (51 % of compute against 49 %
 * of exposed communication is no single limit: both are named). */
static void
print_limit (const PlanCandidate *c)
{
  const char *const names[4]
      = { "compute", "exposed communication", "the pipeline bubble",
          ("waiting (for the last rank after finishing: a pipeline's drain; or for "
           "dependencies)") };
  const double shares[4] = { c->r.compute, c->r.exposed, c->r.bubble, c->r.waiting };
  guint first = 0, second = 1;
  for (guint i = 1; i < 4; i++)
    if (shares[i] > shares[first])
      second = first, first = i;
    else if (i != second && shares[i] > shares[second])
      second = i;
  if (shares[first] >= 2 * shares[second])
    printf ("The best (id %u) is limited by %s: %.1f%% of its iteration", c->id, names[first],
            100 * shares[first]);
  else
    printf ("The best (id %u) has no single limit: %s %.1f%% and %s %.1f%% of its iteration",
            c->id, names[first], 100 * shares[first], names[second], 100 * shares[second]);
  printf (" (compute %.1f%%, exposed communication %.1f%%, pipeline bubble %.1f%%, waiting "
          "%.1f%%).\n", 100 * c->r.compute, 100 * c->r.exposed, 100 * c->r.bubble,
          100 * c->r.waiting);
}

/* The top K simulated candidates, best first. */
static void
print_top (GArray *cands, guint top)
{
  g_autoptr (GPtrArray) done = g_ptr_array_new ();
  for (guint i = 0; i < cands->len; i++)
    if (g_array_index (cands, PlanCandidate, i).status == PLAN_SIMULATED)
      g_ptr_array_add (done, &g_array_index (cands, PlanCandidate, i));
  g_ptr_array_sort (done, by_iteration);
  if (done->len == 0)
    {
      printf ("no candidate was simulated successfully\n");
      return;
    }
  printf ("top %u:\n", MIN (top, done->len));
  print_row (0, NULL);
  for (guint i = 0; i < MIN (top, done->len); i++)
    print_row (i + 1, g_ptr_array_index (done, i));
  print_limit (g_ptr_array_index (done, 0));
}

/* TEXT as a CSV field: quoted, quotes doubled. */
static void
csv_text (GString *s, const char *text)
{
  g_string_append_c (s, '"');
  for (const char *p = text; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (s, '"');
      g_string_append_c (s, *p == '\n' ? ' ' : *p);
    }
  g_string_append_c (s, '"');
}

/* C's row of plan.csv. */
static void
csv_row (GString *s, const PlanCandidate *c)
{
  const PlanKnobs *k = &c->k;
  g_string_append_printf (s, "%u,%u,%u,%u,", c->id, k->tp, k->pp, k->v);
  if (k->dp > 0) /* 0: gpus is not a multiple of tp x pp x cp, and there is no dp */
    g_string_append_printf (s, "%u", k->dp);
  g_string_append_printf (s, ",%u,%u,%u,%s,%s,%s,%s,", k->cp, k->ep, k->mb,
                          plan_zero_name (k->zero), plan_recompute_name (k->recompute),
                          plan_sched_name (k->sched), status_name (c->status));
  csv_text (s, c->status == PLAN_PRUNED ? c->reason
               : c->status == PLAN_FAILED ? c->r.note
                                         : "");
  g_string_append_c (s, ',');
  if (c->mem_B > 0)
    g_string_append_printf (s, "%" G_GUINT64_FORMAT, c->mem_B);
  g_string_append_c (s, ',');
  if (c->status != PLAN_PRUNED)
    g_string_append_printf (s, "%" G_GUINT64_FORMAT, c->bound_ps);
  if (c->status == PLAN_SIMULATED)
    {
      g_string_append_printf (s, ",%" G_GUINT64_FORMAT ",", c->r.iter_ps);
      if (c->r.mfu > 0.0) /* empty without a peak, as in the table */
        g_string_append_printf (s, "%.3f", 100 * c->r.mfu);
      g_string_append_printf (s, ",%.1f,%.3f,%.3f,%.3f,%.3f,%u,", c->r.tokens_per_s,
                              100 * c->r.compute, 100 * c->r.exposed, 100 * c->r.bubble,
                              100 * c->r.waiting, c->r.simulated_ranks);
      csv_text (s, c->r.symmetry);
      g_string_append_c (s, '\n');
    }
  else
    g_string_append (s, ",,,,,,,,,\n");
}

/* DIR/plan.csv: every candidate, in id order; NOTE (or NULL) a last
 * line of its own, after a '#'. */
static gboolean
write_csv (const char *dir, GArray *cands, const char *note, GError **error)
{
  g_autoptr (GString) s = g_string_new (
      "id,tp,pp,v,dp,cp,ep,micro_batch,zero,recompute,schedule,status,reason,memory_per_gpu_B,"
      "bound_ps,iteration_ps,mfu_pct,tokens_per_s,compute_pct,exposed_comm_pct,bubble_pct,"
      "waiting_pct,simulated_ranks,symmetry\n");
  for (guint i = 0; i < cands->len; i++)
    csv_row (s, &g_array_index (cands, PlanCandidate, i));
  if (note != NULL)
    g_string_append_printf (s, "# %s\n", note);
  /* The folder is made now, not before the search, so that a search
   * that fails or dies leaves none (plan_out.h). */
  g_autofree char *made = NULL;
  g_autofree char *path = g_build_filename (dir, "plan.csv", NULL);
  if (!plan_out_make (dir, &made, error))
    return FALSE;
  gboolean held = plan_out_held_plan (dir);
  if (sim_out_file_set_contents (path, s->str, (gssize) s->len, error))
    {
      plan_out_remove_stale (dir, FALSE, held);
      return TRUE;
    }
  plan_out_unmake (dir, made);
  return FALSE;
}

/* The `orrery gen transformer` command that writes candidate K's traces
 * (what plan_run_one generates), for a user to keep or change them. */
static void
print_gen_command (const PlanOptions *o, const PlanProblem *pb, const PlanKnobs *k)
{
  g_autoptr (GString) cmd = g_string_new ("orrery gen transformer");
  if (o->model != NULL)
    g_string_append_printf (cmd, " --preset %s", o->model);
  for (guint i = 0; i < 7; i++)
    if (o->sizes[i] != UNSET)
      g_string_append_printf (cmd, " --%s %d", size_names[i], o->sizes[i]);
  if (pb->model.experts > 0)
    g_string_append_printf (cmd, " --experts %u --top-k %u", pb->model.experts, pb->model.top_k);
  g_string_append_printf (cmd, " --tp %u --pp %u --dp %u --ranks %u --micro-batch %u "
                          "--global-batch %u", k->tp, k->pp, k->dp, pb->gpus, k->mb,
                          pb->global_batch);
  if (k->v > 1)
    g_string_append_printf (cmd, " --virtual-stages %u", k->v);
  if (k->cp > 1)
    g_string_append_printf (cmd, " --cp %u", k->cp);
  if (k->ep > 1)
    g_string_append_printf (cmd, " --ep %u", k->ep);
  if (k->zero == PLAN_ZERO_DIST)
    g_string_append (cmd, " --distributed-optimizer");
  else if (k->zero > 0)
    g_string_append_printf (cmd, " --zero %u", k->zero);
  if (k->recompute != WL_RECOMPUTE_NONE)
    g_string_append_printf (cmd, " --recompute=%s", plan_recompute_name (k->recompute));
  if (k->sched != WL_PIPE_1F1B)
    g_string_append_printf (cmd, " --schedule %s", plan_sched_name (k->sched));
  if (pb->fp8)
    g_string_append (cmd, " --dtype fp8");
  if (pb->attention == WL_ATTENTION_UNFUSED)
    g_string_append (cmd, " --attention unfused");
  if (pb->no_sp)
    g_string_append (cmd, " --no-sequence-parallel");
  if (pb->no_dp_overlap)
    g_string_append (cmd, " --no-dp-overlap");
  g_string_append_printf (cmd, " --device %s --out PREFIX", pb->device->name);
  printf ("traces: %s\n", cmd->str);
}

/* --explain ID: simulate it alone and print its figures and critical path. */
static gboolean
explain (const PlanOptions *o, const PlanEnv *env, GArray *cands, gint id, GError **error)
{
  PlanCandidate *c = &g_array_index (cands, PlanCandidate, id);
  /* A repeat ("same as zero0 (dp 1)") is a configuration gen transformer
   * makes, with the traces of the one it repeats: explained as any other. */
  gboolean repeat = c->status == PLAN_PRUNED && g_str_has_prefix (c->reason, "same as ");
  if (c->status == PLAN_PRUNED && strcmp (c->reason, "memory") != 0 && !repeat)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--explain %d: the candidate is pruned (%s) and cannot be generated", id,
                   c->reason);
      return FALSE;
    }
  c->bound_ps = plan_run_bound (env, &c->k);
  if (repeat)
    {
      /* Its memory, not made when it was pruned; the generator took its
       * twin, so it takes it too. */
      (void) plan_space_memory (env->pb, &c->k, &c->mem_B, NULL);
      printf ("candidate %d (pruned from the search as %s):\n", id, c->reason);
    }
  else
    printf ("candidate %d%s:\n", id,
            c->status == PLAN_PRUNED ? " (does not fit the memory)" : "");
  print_gen_command (o, env->pb, &c->k);
  if (!plan_run_one (env, &c->k, 20, &c->r, error))
    return FALSE;
  c->status = PLAN_SIMULATED;
  /* The path above is cut to its longest steps; the whole of it is in the
   * JSON report of a run of the traces. */
  const NetSpec *net = &env->cfg->net;
  if (env->pb->gpus == env->pb->cluster_gpus)
    printf ("every step of the critical path: write the traces (the command above), then orrery "
            "run --config %s --workload PREFIX --report REPORT.json\n", o->config);
  else /* --gpus resized the cluster: the file as it is would refuse the traces */
    printf ("every step of the critical path: write the traces (the command above), then orrery "
            "run --config CLUSTER.xml --workload PREFIX --report REPORT.json, CLUSTER.xml a copy "
            "of %s with its last <dim> of size=\"%u\" (%u GPUs, as planned; the file has %u)\n",
            o->config, net->dims[net->n_dims - 1].size, env->pb->gpus, env->pb->cluster_gpus);
  print_row (0, NULL);
  print_row (1, c);
  g_autofree char *bound = sim_units_format_time (c->bound_ps);
  printf ("lower bound: %s\n", bound);
  return TRUE;
}

/* The search and its outputs.  On SIGINT or SIGTERM during the search,
 * the candidates simulated so far (the rest "pending" in plan.csv, with a
 * last line saying so); plan_pool_interrupted () tells the caller. */
static gboolean
plan_search (const PlanOptions *o, const PlanEnv *env, GArray *cands, GError **error)
{
  gint64 t0 = g_get_monotonic_time ();
  plan_pool_defer_interrupts (TRUE);
  plan_run_search (env, cands, (guint) o->top, (guint) o->jobs, o->exhaustive);
  plan_pool_defer_interrupts (FALSE);
  double wall = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_autofree char *note = NULL;
  if (plan_pool_interrupted () != 0)
    {
      guint done = 0, alive = 0;
      for (guint i = 0; i < cands->len; i++)
        {
          PlanStatus st = g_array_index (cands, PlanCandidate, i).status;
          done += st >= PLAN_SIMULATED;
          alive += st != PLAN_PRUNED;
        }
      note = g_strdup_printf ("interrupted by %s after %u of the %u candidates to simulate: the "
                              "rows marked pending were not simulated",
                              plan_pool_interrupted () == SIGINT ? "SIGINT" : "SIGTERM", done,
                              alive);
      printf ("%s\n", note);
    }
  print_counts (cands);
  const char *no_bound = plan_run_no_bound (env);
  if (no_bound != NULL)
    printf ("no lower bound under %s: every candidate that fits is simulated\n", no_bound);
  print_top (cands, (guint) o->top);
  guint sims = 0;
  for (guint i = 0; i < cands->len; i++)
    {
      const PlanCandidate *c = &g_array_index (cands, PlanCandidate, i);
      sims += c->status >= PLAN_SIMULATED;
      if (c->status == PLAN_FAILED)
        fprintf (stderr, "orrery plan: candidate %u failed: %s\n", i, c->r.note);
    }
  fprintf (stderr, "orrery plan: %u simulation%s in %.3f s wall (%.3f s each, --jobs %d)\n",
           sims, sims == 1 ? "" : "s", wall, sims > 0 ? wall / sims : 0.0, o->jobs);
  return o->out == NULL || write_csv (o->out, cands, note, error);
}

/* Enumerate SPACE, then explain one candidate or search them all. */
static gboolean
plan_main (const PlanOptions *o, const PlanSpace *space, const PlanEnv *env, GError **error)
{
  guint64 count = plan_space_count (space, env->pb);
  if (count > PLAN_MAX_CANDIDATES)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "the space has %" G_GUINT64_FORMAT " candidates, more than the limit %u "
                   "(narrow --space)", count, PLAN_MAX_CANDIDATES);
      return FALSE;
    }
  g_autoptr (GArray) cands = plan_space_enumerate (space, env->pb);
  /* An id out of range is bad input: its error alone, without the header. */
  if (o->explain != UNSET && (guint) o->explain >= cands->len)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--explain %d: the candidates are numbered 0 .. %u", o->explain,
                   cands->len - 1);
      return FALSE;
    }
  print_header (env->pb, o, env->cfg);
  if (o->explain != UNSET)
    return explain (o, env, cands, o->explain, error);
  guint alive = 0;
  for (guint i = 0; i < cands->len; i++)
    alive += g_array_index (cands, PlanCandidate, i).status == PLAN_PENDING;
  print_space (cands);
  if (alive == 0)
    {
      plan_space_none_fit (cands, env->pb, error);
      return FALSE;
    }
  return plan_search (o, env, cands, error);
}

/* Each candidate allocates and frees a few hundred MB (its 1,024 ranks'
 * graphs, its run's state): glibc would give the freed heap back to the
 * kernel and take it again, zeroed page by page, for the next one (a third
 * of a 1,024-GPU candidate's CPU time, measured with perf).  Keep it:
 * serve blocks up to 32 MiB (glibc's largest mmap threshold) from the heap
 * and never trim it, and take renamed graphs' node arrays from it rather
 * than from mappings of their own.  Where the C library is not glibc, the
 * heap is as it was.  Allocation moves no figure. */
static void
keep_heap (void)
{
#ifdef __GLIBC__
  mallopt (M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt (M_TRIM_THRESHOLD, G_MAXINT);
  mallopt (M_TOP_PAD, 64 * 1024 * 1024);
#endif
  wl_graph_set_nodes_mapped (FALSE);
}

int
app_cmd_plan (int argc, char **argv)
{
  keep_heap ();
  /* --dlrm among the options (not after "--", where it is an argument). */
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    if (strcmp (argv[i], "--dlrm") == 0)
      return app_cmd_plan_dlrm (argc, argv);
  PlanOptions o = { .top = 5, .jobs = 1, .explain = UNSET, .experts = UNSET, .top_k = UNSET,
                    .gpus = UNSET, .batch = UNSET };
  for (guint i = 0; i < G_N_ELEMENTS (o.sizes); i++)
    o.sizes[i] = UNSET;
  g_autoptr (AppCli) cli = plan_context (&o);
  GError *error = NULL;
  AppConfig cfg;
  app_config_init (&cfg);
  PlanProblem pb = { 0 };
  PlanSpace space;
  int code = 0;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  /* app_cli_parse refuses arguments left over: options only. */
  (void) app_cli_parse (cli, &argc, &argv, owned, &error);
  gint64 progress_us = -1;
  if (error != NULL || !plan_problem (&o, &cfg, &pb, &space, &error)
      || !plan_pool_progress_after (&progress_us, &error))
    code = app_cli_fail ("plan", error);
  else
    {
      app_config_print_warnings (&cfg, "plan");
      /* One topology for every candidate (its routes are the same). */
      NetTopo *topo = net_topo_new (&cfg.net, &error);
      if (topo == NULL && cfg.sources != NULL && cfg.sources->len > 0)
        sim_error_prefix (&error, "%s: ", (const char *) cfg.sources->pdata[0]);
      PlanEnv env = { .pb = &pb, .cfg = &cfg, .topo = topo,
                      .progress_us = progress_us };
      plan_pool_catch_signals ();
      const char *const names[] = { "plan.csv" };
      const PlanOutInput ins[] = { { "--config", o.config } };
      if (topo == NULL || (o.out != NULL && !plan_out_prepare (o.out, names, 1, ins, 1, &error))
          || !plan_main (&o, &space, &env, &error))
        code = app_cli_fail ("plan", error);
      else if (plan_pool_interrupted () != 0)
        code = 128 + plan_pool_interrupted (); /* as a shell reports a death by it */
      net_topo_free (topo);
    }
  app_config_clear (&cfg);
  char **strings[] = { &o.model, &o.config, &o.device, &o.space, &o.out, &o.dtype, &o.attention };
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
  return code;
}
