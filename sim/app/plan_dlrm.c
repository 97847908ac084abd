/* plan_dlrm.c: `orrery plan --dlrm`: options, the problem, and the
 * outputs (stdout, DIR/plan.txt, DIR/plan.csv); see plan_dlrm.h. */
#include "sim/app/plan_dlrm.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sim/app/cli.h"
#include "sim/app/cmd_gen.h"
#include "sim/app/plan_dlrm_private.h"
#include "sim/app/plan_out.h"
#include "sim/app/plan_pool.h"
#include "sim/app/plan_run.h"
#include "sim/error.h"
#include "sim/out_file.h"
#include "sim/units.h"
#include "workload/compute.h"
#include "workload/kernel_model.h"

/* A count option not given (--gpus, --batch, --budget, --explain). */
#define UNSET G_MININT

typedef struct
{
  gboolean dlrm;
  char *preset, *tables, *bottom, *top_mlp, *interaction, *config, *dtype, *emb_opt, *device;
  char *out, *interaction_kernel, *mlp_dtype;
  gint gpus, batch, top, jobs, budget, explain, dcn_layers, dcn_rank;
  gboolean exhaustive;
} Options;

static AppCli *
context (Options *o)
{
  GOptionEntry entries[] = {
    { "dlrm", 0, 0, G_OPTION_ARG_NONE, &o->dlrm, "Plan a DLRM's embedding sharding", NULL },
    { "preset", 'p', 0, G_OPTION_ARG_STRING, &o->preset,
      "DLRM preset: dlrm-dcnv2-criteo1tb (as gen dlrm)", "NAME" },
    { "tables", 0, 0, G_OPTION_ARG_FILENAME, &o->tables,
      "Embedding tables instead of a preset: gen dlrm's CSV (rows,dim,pooling)", "FILE.csv" },
    { "bottom-mlp", 0, 0, G_OPTION_ARG_STRING, &o->bottom,
      "Bottom MLP, e.g. 13-512-256-128 (required with --tables)", "SIZES" },
    { "top-mlp", 0, 0, G_OPTION_ARG_STRING, &o->top_mlp,
      "Top MLP, e.g. 1024-1024-512-256-1 (required with --tables)", "SIZES" },
    { "interaction", 0, 0, G_OPTION_ARG_STRING, &o->interaction,
      "dot (default with --tables) or dcnv2 (the preset's)", "dot|dcnv2" },
    { "interaction-kernel", 0, 0, G_OPTION_ARG_STRING, &o->interaction_kernel,
      "The dot interaction's kernels, as gen dlrm: unfused (default) or fused", "unfused|fused" },
    { "dcn-layers", 0, 0, G_OPTION_ARG_INT, &o->dcn_layers,
      "DCNv2 cross layers, as gen dlrm (default 3)", "N" },
    { "dcn-rank", 0, 0, G_OPTION_ARG_INT, &o->dcn_rank,
      "DCNv2 low rank, as gen dlrm (default 512)", "R" },
    { "gpus", 'n', 0, G_OPTION_ARG_INT, &o->gpus,
      "GPUs (default: the cluster's), a multiple of a node's", "N" },
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &o->config, "Cluster (native XML config)",
      "CLUSTER.xml" },
    { "batch", 'B', 0, G_OPTION_ARG_INT, &o->batch,
      "Global batch in samples, a multiple of the GPUs (preset: 65536)", "B" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
      "Embeddings' and MLPs' data type: fp32 (default), bf16 or fp16", "fp32|bf16|fp16" },
    { "mlp-dtype", 0, 0, G_OPTION_ARG_STRING, &o->mlp_dtype,
      "The MLPs' compute type under mixed precision, as gen dlrm (default: --dtype; tf32 on "
      "a device with a TF32 rate)", "fp32|tf32|bf16|fp16" },
    { "emb-optimizer", 0, 0, G_OPTION_ARG_STRING, &o->emb_opt,
      "adagrad (preset's default), rowwise-adagrad (--tables' default), adam or sgd", "NAME" },
    { "device", 0, 0, G_OPTION_ARG_STRING, &o->device,
      "Device whose memory bounds a plan and whose L2 the lookups' bytes assume; the "
      "compute is priced by the cluster's <compute> (default: the cluster's device)", "NAME" },
    { "top", 'k', 0, G_OPTION_ARG_INT, &o->top, "Candidates listed, fastest first (default 5)",
      "K" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &o->jobs,
      "Worker processes simulating candidates (default 1; the output does not depend on it)",
      "J" },
    { "budget", 0, 0, G_OPTION_ARG_INT, &o->budget,
      "Candidates the search tries after the baselines, simulated or bounded out "
      "(default 64)", "N" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out,
      "Write DIR/plan.txt (gen dlrm's --plan) and DIR/plan.csv (every candidate)", "DIR" },
    { "explain", 0, 0, G_OPTION_ARG_INT, &o->explain,
      "Print candidate ID's plan (as plan.csv numbers them), its balance per GPU and its "
      "critical path", "ID" },
    { "exhaustive", 0, 0, G_OPTION_ARG_NONE, &o->exhaustive,
      "Simulate every candidate, bounds or not (slower; checks the bound)", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  AppCli *cli = app_cli_new (
      "--dlrm - the embedding sharding of a DLRM on a cluster, searched and simulated");
  GOptionContext *ctx = app_cli_context (cli);
  app_cli_add_entries (cli, NULL, entries);
  g_option_context_set_description (
      ctx, "Simulates the baselines (table-wise greedy by size and by lookup cost; every\n"
           "table row-wise, column-wise, table-row-wise, data-parallel), then a local\n"
           "search from the best: move a table, change one table's sharding type.\n"
           "Plans over the device's memory are pruned; a search candidate whose lower bound\n"
           "(the busiest GPU's embedding bytes at the HBM bandwidth plus the GEMMs' FLOPs at\n"
           "the peak) is not below the current plan's time is skipped.  See\n"
           "sim/app/plan_dlrm.h.\n\n"
           APP_CLI_EXIT_CODES_PLAN_HELP "\n");
  return cli;
}

static gboolean
fail (GError **error, const char *msg)
{
  g_set_error_literal (error, SIM_ERROR, SIM_ERROR_INPUT, msg);
  return FALSE;
}

/* A count option's value: absent (UNSET) or at least LEAST.  0 is not
 * "absent": --gpus 0 and --batch 0 were taken for the defaults. */
static gboolean
count_ok (const char *name, gint v, gint least, GError **error)
{
  if (v == UNSET || v >= least)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--%s %d: must be at least %d", name, v, least);
  return FALSE;
}

/* The request every candidate shares. */
static gboolean
problem (const Options *o, AppConfig *cfg, DlrmEnv *env, GError **error)
{
  WlGenDlrm *r = &env->base;
  guint32 n = 0, node = 0;
  if (o->config == NULL)
    return fail (error, "plan --dlrm needs --preset NAME or --tables FILE.csv, --config "
                 "CLUSTER.xml [--gpus N] [--batch B]");
  if (!count_ok ("gpus", o->gpus, 1, error) || !count_ok ("batch", o->batch, 1, error)
      || !count_ok ("top", o->top, 1, error) || !count_ok ("jobs", o->jobs, 1, error)
      || !count_ok ("budget", o->budget, 0, error))
    return FALSE;
  if (o->explain != UNSET && o->explain < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--explain %d: a candidate's id is at least 0", o->explain);
      return FALSE;
    }
  AppDlrmArgs args = { .preset = o->preset, .tables = o->tables, .bottom = o->bottom,
                       .top = o->top_mlp, .interaction = o->interaction,
                       .interaction_kernel = o->interaction_kernel, .dtype = o->dtype,
                       .mlp_dtype = o->mlp_dtype, .emb_opt = o->emb_opt,
                       .dcn_layers = o->dcn_layers, .dcn_rank = o->dcn_rank };
  if (!app_gen_dlrm_request (&args, r, error) || !app_config_load_xml (cfg, o->config, error))
    return FALSE;
  env->cluster_gpus = 1;
  for (guint d = 0; d < cfg->net.n_dims; d++)
    env->cluster_gpus *= cfg->net.dims[d].size;
  if (!plan_cluster_gpus (cfg, o->config, o->gpus != UNSET ? (guint32) o->gpus : 0, &n,
                             &node, error))
    return FALSE;
  r->ranks = n;
  r->ranks_per_node = node;
  r->global_batch = o->batch != UNSET ? (guint64) o->batch : o->preset != NULL ? 65536 : 0;
  if (r->global_batch == 0)
    return fail (error, "--tables needs --batch B (samples a step)");
  if (r->global_batch % n != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--batch %" G_GUINT64_FORMAT " is not a multiple of the %u GPUs",
                   r->global_batch, n);
      return FALSE;
    }
  r->sharding = WL_SHARD_TABLE_WISE;
  const char *dev = o->device != NULL ? o->device : cfg->wl.device;
  const WlDevice *d = dev != NULL ? wl_device_preset (dev) : NULL;
  if (d == NULL || wl_kernel_device (dev) == NULL)
    {
      g_autofree char *names = wl_kernel_device_names ();
      if (dev == NULL || *dev == '\0')
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "%s names no device (<compute device=...>): give --device NAME (one of "
                     "%s)", o->config, names);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "no device '%s': give --device NAME "
                     "(one of %s)", dev, names);
      return FALSE;
    }
  r->device = d->name;
  /* gen dlrm's rule (cmd_gen_dlrm.c), so that plan.txt makes traces. */
  if (r->mlp_dtype_set && r->mlp_dtype == WL_DTYPE_TF32 && !(d->peak_flops[WL_DTYPE_TF32] > 0))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--mlp-dtype tf32: a %s has no TF32 rate in orrery's presets", d->name);
      return FALSE;
    }
  env->capacity_B = d->mem_capacity_B;
  env->T = r->model.tables->len;
  env->budget = o->budget == UNSET ? PLAN_DLRM_BUDGET : (guint) o->budget;
  env->jobs = (guint) o->jobs;
  env->exhaustive = o->exhaustive;
  env->stop_id = o->explain != UNSET ? (guint32) o->explain : G_MAXUINT32;
  return wl_gen_dlrm_check (r, error);
}

/* A shard's ranks of table T in L, by rows then columns, into S. */
static void
table_ranks (const WlDlrmLayout *l, guint32 t, GString *s)
{
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (l->shards, WlDlrmShard, i);
      if (sh->table == t)
        g_string_append_printf (s, "%s%u", s->len > 0 ? " " : "", sh->rank);
    }
}

static const char *const status_names[] = { "pending", "simulated", "pruned", "failed",
                                             "bounded-out" };

/* C's plan in one CSV field: per table tw@RANK (or tw), rw, cw, twrw, dp. */
static void
plan_field (const DlrmEnv *env, const DlrmCand *c, GString *s)
{
  static const char *const abbrev[WL_SHARD_N] = { "tw", "rw", "cw", "twrw", "dp" };
  for (guint32 t = 0; t < env->T; t++)
    {
      g_string_append_printf (s, "%s%s", t > 0 ? " " : "", abbrev[c->kind[t]]);
      if (c->rank[t] != DLRM_PLACED)
        g_string_append_printf (s, "@%u", c->rank[t]);
    }
}

static gboolean
write_csv (const DlrmEnv *env, const char *dir, GPtrArray *all, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "plan.csv", NULL);
  GString *s = g_string_new ("id,what,baseline,status,note,accepted,max_memory_B,iteration_ps,"
                             "lookup_max_over_mean,comm_max_over_mean,plan,bound_ps\n");
  for (guint i = 0; i < all->len; i++)
    {
      const DlrmCand *c = g_ptr_array_index (all, i);
      g_autofree char *note = g_strdelimit (g_strdup (c->note), ",\"\n", ';');
      g_autofree char *what = g_strdelimit (g_strdup (c->what), ",\"\n", ';');
      g_string_append_printf (s, "%u,%s,%d,%s,%s,%d,%" G_GUINT64_FORMAT ",", c->id, what,
                              c->baseline, status_names[c->status], note, c->accepted,
                              c->mem_B);
      if (c->status == DLRM_SIMULATED)
        g_string_append_printf (s, "%" G_GUINT64_FORMAT, c->iter_ps);
      g_string_append_printf (s, ",%.4f,%.4f,", c->lookup_bal, c->comm_bal);
      plan_field (env, c, s);
      g_string_append_printf (s, ",%" G_GUINT64_FORMAT "\n", c->bound_ps);
    }
  gboolean ok = sim_out_file_set_contents (path, s->str, (gssize) s->len, error);
  g_string_free (s, TRUE);
  return ok;
}

/* DIR/plan.txt: BEST in gen dlrm's --plan format (its own representation:
 * table-wise ranks where the plan fixes them, the placement rule's
 * elsewhere, so that gen dlrm makes the same layout), the placement in
 * comments. */
static gboolean
write_plan (const DlrmEnv *env, const char *dir, const DlrmCand *best, const WlDlrmLayout *l,
            GError **error)
{
  g_autofree char *path = g_build_filename (dir, "plan.txt", NULL);
  g_autofree char *t_s = sim_units_format_time (best->iter_ps);
  GString *s = g_string_new (NULL);
  g_string_append_printf (s, "# orrery plan --dlrm: candidate %u (%s), iteration %s\n"
                          "# TABLE,TYPE[,RANK]: orrery gen dlrm --plan FILE reproduces it\n",
                          best->id, best->what, t_s);
  for (guint32 t = 0; t < env->T; t++)
    {
      g_autoptr (GString) ranks = g_string_new (NULL);
      table_ranks (l, t, ranks);
      g_string_append_printf (s, "# t%u on %s\n%u,%s", t, ranks->len > 0 ? ranks->str : "all",
                              t, wl_shard_kind_name (best->kind[t]));
      if (best->rank[t] != DLRM_PLACED)
        g_string_append_printf (s, ",%u", best->rank[t]);
      g_string_append_c (s, '\n');
    }
  gboolean ok = sim_out_file_set_contents (path, s->str, (gssize) s->len, error);
  g_string_free (s, TRUE);
  return ok;
}

static gint
by_time (gconstpointer a, gconstpointer b)
{
  const DlrmCand *x = *(DlrmCand *const *) a, *y = *(DlrmCand *const *) b;
  if (x->iter_ps != y->iter_ps)
    return x->iter_ps < y->iter_ps ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* One candidate's row. */
static void
print_row (const DlrmCand *c)
{
  g_autofree char *t = c->status == DLRM_SIMULATED ? sim_units_format_time (c->iter_ps)
                                                   : g_strdup (status_names[c->status]);
  printf ("  %4u  %-42s %12s %9.2f GiB %7.2f %7.2f%s%s\n", c->id, c->what, t,
          (double) c->mem_B / 1073741824.0, c->lookup_bal, c->comm_bal,
          c->status == DLRM_SIMULATED ? "" : "  ", c->status == DLRM_SIMULATED ? "" : c->note);
}

/* C's plan in L: per table its sizes, type and GPUs. */
static void
print_tables (const DlrmEnv *env, const DlrmCand *c, const WlDlrmLayout *l)
{
  printf ("  table         rows   dim  pooling  type            ranks\n");
  for (guint32 t = 0; t < env->T; t++)
    {
      const WlDlrmTable *tb = &g_array_index (env->base.model.tables, WlDlrmTable, t);
      g_autoptr (GString) ranks = g_string_new (NULL);
      table_ranks (l, t, ranks);
      printf ("  t%-4u %12" G_GUINT64_FORMAT " %5u %8.2f  %-15s %s\n", t, tb->rows, tb->dim,
              tb->pooling, wl_shard_kind_name (c->kind[t]), ranks->len > 0 ? ranks->str : "all");
    }
}

static void
print_results (const DlrmEnv *env, const Options *o, GPtrArray *all, const DlrmCand *best,
               const WlDlrmLayout *l)
{
  guint counts[G_N_ELEMENTS (status_names)] = { 0 };
  for (guint i = 0; i < all->len; i++)
    counts[((DlrmCand *) g_ptr_array_index (all, i))->status]++;
  printf ("candidates: %u: %u simulated, %u pruned (memory), %u failed, %u skipped by the "
          "bound\n", all->len, counts[DLRM_SIMULATED], counts[DLRM_PRUNED], counts[DLRM_FAILED],
          counts[DLRM_BOUNDED]);
  if (env->no_bound != NULL)
    printf ("no lower bound under %s: every candidate that fits is simulated\n", env->no_bound);
  const char *head = "    id  what                                          iteration"
                     "   mem/GPU max  lookup    comm\n";
  printf ("baselines (lookup, comm: max over mean per GPU of lookup bytes, all-to-all "
          "bytes):\n%s", head);
  const DlrmCand *greedy = g_ptr_array_index (all, 0);
  for (guint i = 0; i < all->len; i++)
    if (((DlrmCand *) g_ptr_array_index (all, i))->baseline)
      print_row (g_ptr_array_index (all, i));
  g_autoptr (GPtrArray) sorted = g_ptr_array_new ();
  for (guint i = 0; i < all->len; i++)
    if (((DlrmCand *) g_ptr_array_index (all, i))->status == DLRM_SIMULATED)
      g_ptr_array_add (sorted, g_ptr_array_index (all, i));
  g_ptr_array_sort (sorted, by_time);
  printf ("top %u:\n%s", MIN ((guint) o->top, sorted->len), head);
  for (guint i = 0; i < sorted->len && i < (guint) o->top; i++)
    print_row (g_ptr_array_index (sorted, i));
  g_autofree char *bt = sim_units_format_time (best->iter_ps);
  printf ("best: candidate %u (%s), iteration %s", best->id, best->what, bt);
  if (greedy->status == DLRM_SIMULATED)
    printf (", %.1f %% faster than table-wise greedy by size",
            100.0 * (1.0 - (double) best->iter_ps / (double) greedy->iter_ps));
  printf ("; per GPU max over mean: lookup cost %.2f, all-to-all bytes %.2f\n",
          best->lookup_bal, best->comm_bal);
  print_tables (env, best, l);
}

/* C's balance per GPU in L: lookup bytes, all-to-all bytes, memory. */
static void
print_balance (const DlrmEnv *env, const DlrmCand *c, const WlDlrmLayout *l)
{
  guint32 N = env->base.ranks;
  g_autofree double *lookup = g_new0 (double, N);
  dlrm_rank_bytes (env, l, FALSE, lookup);
  printf ("per GPU (lookup: the lookup model's HBM bytes of its shards, forward and backward;\n"
          "a2a: its pooled-embedding all-to-all bytes, sent and received, forward and again\n"
          "backward; memory: gen dlrm's):\n"
          "   gpu   lookup MiB  a2a sent MiB  a2a recv MiB  memory GiB\n");
  for (guint32 k = 0; k < N; k++)
    {
      guint64 sent = 0, recv = 0;
      wl_dlrm_layout_a2a (l, k, &sent, &recv);
      printf ("  %4u %12.2f %13.2f %13.2f %11.2f\n", k, lookup[k] / 1048576.0,
              (double) sent / 1048576.0, (double) recv / 1048576.0,
              (double) l->total_B[k] / 1073741824.0);
    }
  printf ("max over mean: lookup cost %.2f, all-to-all bytes %.2f\n", c->lookup_bal,
          c->comm_bal);
}

/* --explain ID: the search up to candidate ID (the same ids as a full
 * search), then its plan, balance, critical path, time and bound. */
static int
explain (const Options *o, DlrmEnv *env, GError **error)
{
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) dlrm_cand_free);
  dlrm_search (env, all);
  if ((guint) o->explain >= all->len)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--explain %d: the search makes candidates 0 .. %u", o->explain,
                   all->len - 1);
      return 1;
    }
  DlrmCand *c = g_ptr_array_index (all, o->explain);
  dlrm_cand_prepare (env, c);
  g_autoptr (WlDlrmLayout) l = c->status == DLRM_FAILED ? NULL
                                                          : dlrm_cand_layout (env, c, error);
  if (l == NULL)
    {
      if (c->status == DLRM_FAILED)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--explain %d: %s", o->explain,
                     c->note);
      return 1;
    }
  printf ("candidate %u (%s)%s%s:\n", c->id, c->what, c->status == DLRM_PRUNED ? ": " : "",
          c->status == DLRM_PRUNED ? c->note : "");
  print_tables (env, c, l);
  print_balance (env, c, l);
  if (!dlrm_cand_simulate (env, c, 20, &c->iter_ps, error))
    return 1;
  g_autofree char *t = sim_units_format_time (c->iter_ps);
  g_autofree char *b = sim_units_format_time (c->bound_ps);
  printf ("iteration %s, lower bound %s", t, b);
  if (env->no_bound != NULL)
    printf (" (none under %s)\n", env->no_bound);
  else
    {
      g_autofree double *bytes = g_new0 (double, env->base.ranks);
      dlrm_rank_bytes (env, l, TRUE, bytes);
      double most = 0.0;
      for (guint32 k = 0; k < env->base.ranks; k++)
        most = MAX (most, bytes[k]);
      printf (" (the busiest GPU's %.2f MiB of embedding bytes at %.1f GB/s, plus %.3f us "
              "of MLPs, interaction and loss)\n", most / 1048576.0, env->bound_Bps / 1e9,
              env->dense_s * 1e6);
    }
  return 0;
}

/* DIR/plan.txt (BEST's, unless BEST is NULL) and DIR/plan.csv (ALL), the
 * folder made now, not before the search, so that a search that fails or
 * dies leaves none (plan_out.h).  On a failure, what this call wrote and
 * made is removed: no plan.txt beside a plan.csv of another search. */
static gboolean
write_out (const DlrmEnv *env, const char *dir, GPtrArray *all, const DlrmCand *best,
           const WlDlrmLayout *l, GError **error)
{
  g_autofree char *made = NULL;
  if (!plan_out_make (dir, &made, error))
    return FALSE;
  gboolean held = plan_out_held_plan (dir);
  gboolean txt = best != NULL && write_plan (env, dir, best, l, error);
  if ((best == NULL || txt) && write_csv (env, dir, all, error))
    {
      plan_out_remove_stale (dir, txt, held);
      return TRUE;
    }
  if (txt)
    {
      g_autofree char *path = g_build_filename (dir, "plan.txt", NULL);
      g_unlink (path);
    }
  plan_out_unmake (dir, made);
  return FALSE;
}

static int
run (const Options *o, DlrmEnv *env, GError **error)
{
  const WlGenDlrm *r = &env->base;
  g_autofree char *dt = r->mlp_dtype_set && r->mlp_dtype != r->dtype
                          ? g_strdup_printf ("%s (MLPs %s)", wl_dtype_name (r->dtype),
                                             wl_dtype_name (r->mlp_dtype))
                          : g_strdup (wl_dtype_name (r->dtype));
  g_autofree char *resized = plan_resized_note (&env->cfg->net, r->ranks, env->cluster_gpus);
  printf ("plan --dlrm: %s, %u table%s, on %u GPU%s (%s%s), batch %" G_GUINT64_FORMAT
          " (%" G_GUINT64_FORMAT " a GPU), %s, %s (%.2f GiB), budget %u candidates\n",
          r->model.name, env->T, env->T == 1 ? "" : "s", r->ranks, r->ranks == 1 ? "" : "s",
          o->config, resized, r->global_batch,
          r->global_batch / r->ranks, dt, r->device,
          env->capacity_B / 1073741824.0, env->budget);
  /* As orrery plan says it: a device other than the cluster's does not
   * price the compute, which the cluster's kernel or roofline model does. */
  plan_out_device_note (o->device != NULL ? r->device : NULL,
                        "the memory limit and the L2 of the lookup model", &env->cfg->wl);
  fflush (stdout);
  if (o->explain != UNSET)
    return explain (o, env, error);
  /* The output folder first: a wrong --out is said before any simulation. */
  const char *const names[] = { "plan.csv", "plan.txt" };
  const PlanOutInput ins[] = { { "--tables", o->tables }, { "--config", o->config } };
  if (o->out != NULL
      && !plan_out_prepare (o->out, names, G_N_ELEMENTS (names), ins, G_N_ELEMENTS (ins),
                            error))
    return 1;
  g_autoptr (GPtrArray) all = g_ptr_array_new_with_free_func ((GDestroyNotify) dlrm_cand_free);
  gint64 t0 = g_get_monotonic_time ();
  DlrmCand *best = dlrm_search (env, all);
  fprintf (stderr, "orrery plan: %u candidates in %.2f s wall\n", all->len,
           (double) (g_get_monotonic_time () - t0) / 1e6);
  if (best == NULL)
    {
      printf ("no plan fits; the baselines:\n");
      for (guint i = 0; i < all->len; i++)
        {
          const DlrmCand *c = g_ptr_array_index (all, i);
          printf ("  %4u  %-44s  %s: %s\n", c->id, c->what, status_names[c->status], c->note);
        }
      if (o->out != NULL && write_out (env, o->out, all, NULL, NULL, error))
        printf ("wrote %s/plan.csv\n", o->out);
      if (*error == NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "no plan fits: none of the %u baselines could be simulated (their "
                     "reasons above)", all->len);
      return 1;
    }
  g_autoptr (WlDlrmLayout) l = dlrm_cand_layout (env, best, error);
  if (l == NULL)
    return 1;
  print_results (env, o, all, best, l);
  if (o->out != NULL)
    {
      if (!write_out (env, o->out, all, best, l, error))
        return 1;
      printf ("wrote %s/plan.txt, %s/plan.csv\n", o->out, o->out);
    }
  return 0;
}

int
app_cmd_plan_dlrm (int argc, char **argv)
{
  Options o = { .gpus = UNSET, .batch = UNSET, .top = 5, .jobs = 1, .budget = UNSET,
                .explain = UNSET, .dcn_layers = APP_GEN_RANKS_ABSENT,
                .dcn_rank = APP_GEN_RANKS_ABSENT };
  g_autoptr (AppCli) cli = context (&o);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  GError *error = NULL;
  AppConfig cfg;
  app_config_init (&cfg);
  DlrmEnv env = { 0 };
  int code = 0;
  /* app_cli_parse refuses arguments left over: options only. */
  (void) app_cli_parse (cli, &argc, &argv, owned, &error);
  if (error != NULL || !problem (&o, &cfg, &env, &error)
      || !plan_pool_progress_after (&env.progress_us, &error))
    code = app_cli_fail ("plan", error);
  else
    {
      app_config_print_warnings (&cfg, "plan");
      NetTopo *topo = net_topo_new (&cfg.net, &error);
      env.cfg = &cfg;
      env.topo = topo;
      dlrm_bound_init (&env);
      plan_pool_catch_signals ();
      if (topo == NULL || run (&o, &env, &error) != 0)
        code = app_cli_fail ("plan", error);
      net_topo_free (topo);
    }
  wl_dlrm_model_clear (&env.base.model);
  app_config_clear (&cfg);
  char **strings[] = { &o.preset, &o.tables, &o.bottom, &o.top_mlp, &o.interaction,
                       &o.config, &o.dtype, &o.emb_opt, &o.device, &o.out,
                       &o.interaction_kernel, &o.mlp_dtype };
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
  return code;
}
