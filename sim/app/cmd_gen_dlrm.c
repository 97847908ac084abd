/* cmd_gen_dlrm.c: `orrery gen dlrm`: options, the printed summary (the
 * model, each rank's shards, all-to-all bytes and memory) and the traces
 * (workload/gen_dlrm.h); see cmd_gen.h. */
#include "sim/app/cmd_gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/app/cli.h"
#include "sim/app/config.h"
#include "sim/error.h"
#include "sim/out_file.h"
#include "workload/compute.h"
#include "workload/gen_dlrm.h"
#include "workload/kernel_model.h"

typedef struct
{
  char *preset, *tables, *bottom, *top, *interaction, *dtype, *mlp_dtype, *emb_opt, *sharding;
  char *plan, *interaction_kernel, *pipeline, *emb_update, *exchange_dtype;
  char *device, *out;
  gint ranks, ranks_per_node, batch, local_batch, dcn_layers, dcn_rank;
  gboolean dry_run, amp_casts;
} DlrmOptions;

static AppCli *
dlrm_context (DlrmOptions *o)
{
  GOptionEntry entries[] = {
    { "preset", 'p', 0, G_OPTION_ARG_STRING, &o->preset,
      "Model preset: dlrm-dcnv2-criteo1tb (MLPerf Training's DLRM-DCNv2); 'list' lists it",
      "NAME" },
    { "tables", 0, 0, G_OPTION_ARG_FILENAME, &o->tables,
      "Embedding tables instead of a preset: a CSV file, header 'rows,dim,pooling', one table "
      "a line (pooling: indices a sample)", "FILE.csv" },
    { "bottom-mlp", 0, 0, G_OPTION_ARG_STRING, &o->bottom,
      "Bottom MLP from the dense features to the tables' dimension, e.g. 13-512-256-128 "
      "(required with --tables)", "SIZES" },
    { "top-mlp", 0, 0, G_OPTION_ARG_STRING, &o->top,
      "Top MLP's layer sizes after the interaction, e.g. 1024-1024-512-256-1 (required with "
      "--tables)", "SIZES" },
    { "interaction", 0, 0, G_OPTION_ARG_STRING, &o->interaction,
      "dot (DLRM's pairwise dot products; default with --tables) or dcnv2 (low-rank cross "
      "network; the preset's)", "dot|dcnv2" },
    { "interaction-kernel", 0, 0, G_OPTION_ARG_STRING, &o->interaction_kernel,
      "The dot interaction's kernels: unfused (default: a batched GEMM and the lower-triangle "
      "gather, as TorchRec) or fused (one kernel, NVIDIA DeepLearningExamples' "
      "dot_based_interact)", "unfused|fused" },
    { "dcn-layers", 0, 0, G_OPTION_ARG_INT, &o->dcn_layers,
      "DCNv2 cross layers, 1 .. 16 (default 3)", "N" },
    { "dcn-rank", 0, 0, G_OPTION_ARG_INT, &o->dcn_rank,
      "DCNv2 low rank, 1 .. the cross network's width (tables + 1) x dim (default 512)", "R" },
    { "batch", 'B', 0, G_OPTION_ARG_INT, &o->batch,
      "Global batch in samples, a multiple of the ranks, at most 2147483647 (preset: 65536)",
      "B" },
    { "local-batch", 'b', 0, G_OPTION_ARG_INT, &o->local_batch,
      "Samples a rank (instead of --batch: B = b x ranks)", "b" },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
      "Embeddings' and MLPs' data type: fp32 (default, as the reference), bf16 or fp16",
      "fp32|bf16|fp16" },
    { "mlp-dtype", 0, 0, G_OPTION_ARG_STRING, &o->mlp_dtype,
      "The MLPs' compute type under automatic mixed precision (GEMMs, activations, "
      "interaction); their weights, gradients, all-reduce and optimizer stay in --dtype "
      "(default: --dtype); tf32: fp32 GEMMs on the tensor cores (TensorFlow's default on an "
      "A100), with --dtype fp32 on a device with a TF32 rate", "fp32|tf32|bf16|fp16" },
    { "emb-optimizer", 0, 0, G_OPTION_ARG_STRING, &o->emb_opt,
      "The embeddings' fused optimizer: adagrad (exact, one fp32 a parameter: the preset's "
      "default), rowwise-adagrad (one fp32 a row: the default with --tables), adam (lazy "
      "Adam, two fp32 a parameter) or sgd; the MLPs use Adagrad, Adam with adam, SGD with "
      "sgd", "NAME" },
    { "pipeline", 0, 0, G_OPTION_ARG_STRING, &o->pipeline,
      "How a step runs: torchrec (default: TrainPipelineSparseDist, the next batch's indices "
      "distributed during the step) or none (NVIDIA DeepLearningExamples' TF2 step: each "
      "rank's loader reads its own tables' indices, no input distribution)", "torchrec|none" },
    { "amp-casts", 0, 0, G_OPTION_ARG_NONE, &o->amp_casts,
      "Keras mixed-precision work as NVIDIA DeepLearningExamples' TF2 DLRM runs it (needs "
      "--mlp-dtype): lookups cast to the MLP type before the exchange (which then carries "
      "it) and their gradients back, the MLP weights and their gradients cast, the loss "
      "scale's unscale of every gradient; memory-bound kernels by their bytes (default off)",
      NULL },
    { "exchange-dtype", 0, 0, G_OPTION_ARG_STRING, &o->exchange_dtype,
      "The pooled embeddings' exchange and its gradients' element type when the lookups "
      "write it directly (HugeCTR under mixed precision: fp16), no cast kernel (default: "
      "--dtype; with --amp-casts the MLP type)", "fp32|bf16|fp16" },
    { "emb-update", 0, 0, G_OPTION_ARG_STRING, &o->emb_update,
      "How the embeddings' backward and update run: fused (default: FBGEMM's TBE backward "
      "with the optimizer fused) or tf (TensorFlow's: the gather's gradient as one value "
      "row an index, then the Keras optimizer's own kernels: ResourceScatterAdd for sgd; "
      "Unique, UnsortedSegmentSum, gathers and scatters for adam, lazy Adam as TF Addons "
      "runs it); tf takes sgd or adam", "fused|tf" },
    { "sharding", 0, 0, G_OPTION_ARG_STRING, &o->sharding,
      "Every table's sharding: table-wise (default), row-wise, column-wise, table-row-wise or "
      "data-parallel", "TYPE" },
    { "plan", 0, 0, G_OPTION_ARG_FILENAME, &o->plan,
      "Per-table sharding, lines TABLE,TYPE[,RANKS] (TorchRec's names: table_wise, row_wise, "
      "column_wise, table_row_wise, data_parallel; RANKS like '0 2 4-7'); tables without a "
      "line take --sharding", "FILE" },
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &o->ranks, "Ranks (GPUs, trace files), 1 .. 1024",
      "N" },
    { "ranks-per-node", 0, 0, G_OPTION_ARG_INT, &o->ranks_per_node,
      "Ranks a node, for table-row-wise (default 8, or the ranks when fewer)", "N" },
    { "device", 0, 0, G_OPTION_ARG_STRING, &o->device,
      "Device whose kernel model prices the compute nodes (duration_micros) and whose L2 and "
      "memory the lookups and the memory check use (default H100-SXM)", "NAME" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out, "Write PREFIX.0.et .. PREFIX.<N-1>.et",
      "PREFIX" },
    { "dry-run", 0, 0, G_OPTION_ARG_NONE, &o->dry_run,
      "Print the summary (shards, all-to-all bytes, memory per rank) and write nothing", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  AppCli *cli = app_cli_new ("- write one DLRM training iteration per rank, with its "
                             "embedding tables sharded as TorchRec shards them");
  GOptionContext *ctx = app_cli_context (cli);
  app_cli_add_entries (cli, NULL, entries);
  g_option_context_set_description (
      ctx, "Every rank runs TorchRec's TrainPipelineSparseDist iteration: lookups, the\n"
           "pooled-embedding exchange overlapping the bottom MLP, interaction, top MLP,\n"
           "backward with the gradients' exchange and the fused embedding update, MLP\n"
           "gradients all-reduced during the backward (--pipeline none drops the next\n"
           "batch's index exchange; --amp-casts adds Keras mixed precision's casts and\n"
           "loss-scale unscale, as DeepLearningExamples' TF2 step runs).  Prints each\n"
           "rank's shards, the bytes it sends and receives in the forward exchange (the\n"
           "backward's are the same, swapped) and its memory (GiB = 2^30 bytes).\n"
           "See workload/gen_dlrm.h for the model, placement and cost model.\n\n"
           APP_CLI_EXIT_CODES_TOOL_HELP "\n");
  return cli;
}

static gboolean input_error (GError **error, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

/* An input error (SIM_ERROR_INPUT) with FMT's message; FALSE. */
static gboolean
input_error (GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  GError *e = g_error_new_valist (SIM_ERROR, SIM_ERROR_INPUT, fmt, ap);
  va_end (ap);
  g_propagate_error (error, e);
  return FALSE;
}

/* Read PATH, refusing a NUL byte. */
static char *
read_text (const char *path, GError **error)
{
  char *text = NULL;
  gsize len = 0;
  if (!app_config_read_file (path, &text, &len, error))
    return NULL;
  if (strlen (text) != len)
    {
      g_free (text);
      input_error (error, "%s: a NUL byte: not a text file", path);
      return NULL;
    }
  return text;
}

/* --dtype, --mlp-dtype and --emb-optimizer of O into REQ. */
static gboolean
dlrm_types (const DlrmOptions *o, WlGenDlrm *req, GError **error)
{
  req->dtype = WL_DTYPE_FP32;
  if (o->dtype != NULL
      && (!wl_dtype_parse (o->dtype, &req->dtype) || req->dtype == WL_DTYPE_FP8
          || req->dtype == WL_DTYPE_TF32))
    return input_error (error, "--dtype: '%s' is not fp32, bf16 or fp16", o->dtype);
  req->mlp_dtype_set = o->mlp_dtype != NULL;
  if (o->mlp_dtype != NULL
      && (!wl_dtype_parse (o->mlp_dtype, &req->mlp_dtype) || req->mlp_dtype == WL_DTYPE_FP8))
    return input_error (error, "--mlp-dtype: '%s' is not fp32, tf32, bf16 or fp16", o->mlp_dtype);
  /* Mixed precision computes in a type no wider than the master copy
   * (--dtype bf16 --mlp-dtype fp32 would compute in fp32 from bf16
   * weights): refused rather than accepted silently. */
  if (req->mlp_dtype_set && wl_dlrm_elem_bytes (req->mlp_dtype) > wl_dlrm_elem_bytes (req->dtype))
    return input_error (error, "--mlp-dtype %s is wider than --dtype %s (the MLPs compute in "
                        "the master weights' type or a narrower one)", o->mlp_dtype, o->dtype);
  req->emb_opt = o->preset != NULL ? WL_EMB_OPT_ADAGRAD : WL_EMB_OPT_ROWWISE_ADAGRAD;
  if (o->emb_opt != NULL)
    {
      g_autofree char *s = g_strdelimit (g_ascii_strdown (o->emb_opt, -1), "_", '-');
      if (strcmp (s, "adagrad") == 0)
        req->emb_opt = WL_EMB_OPT_ADAGRAD;
      else if (strcmp (s, "rowwise-adagrad") == 0)
        req->emb_opt = WL_EMB_OPT_ROWWISE_ADAGRAD;
      else if (strcmp (s, "sgd") == 0)
        req->emb_opt = WL_EMB_OPT_SGD;
      else if (strcmp (s, "adam") == 0)
        req->emb_opt = WL_EMB_OPT_ADAM;
      else
        return input_error (error, "--emb-optimizer: '%s' is not adagrad, rowwise-adagrad, "
                            "adam or sgd", o->emb_opt);
    }
  return TRUE;
}

static gboolean
dlrm_model (const DlrmOptions *o, WlGenDlrm *req, GError **error)
{
  WlDlrmModel *m = &req->model;
  if ((o->preset == NULL) == (o->tables == NULL))
    return input_error (error, "give --preset NAME or --tables FILE.csv, one of them");
  if (o->preset != NULL && !wl_dlrm_preset (o->preset, m))
    return input_error (error, "unknown preset '%s' (one of %s)", o->preset,
                        wl_dlrm_preset_names ());
  if (o->tables != NULL)
    {
      g_autofree char *text = read_text (o->tables, error);
      *m = (WlDlrmModel) { .name = "custom", .dcn_layers = 3, .dcn_rank = 512 };
      m->tables = g_array_new (FALSE, FALSE, sizeof (WlDlrmTable));
      if (text == NULL || !wl_dlrm_tables_parse (o->tables, text, m->tables, error))
        return FALSE;
      if (o->bottom == NULL || o->top == NULL)
        return input_error (error, "--tables needs --bottom-mlp and --top-mlp");
    }
  if (o->bottom != NULL
      && !wl_dlrm_mlp_parse ("--bottom-mlp", o->bottom, m->bottom, &m->n_bottom, error))
    return FALSE;
  if (o->top != NULL && !wl_dlrm_mlp_parse ("--top-mlp", o->top, m->top, &m->n_top, error))
    return FALSE;
  if (o->interaction != NULL)
    {
      if (g_ascii_strcasecmp (o->interaction, "dot") != 0
          && g_ascii_strcasecmp (o->interaction, "dcnv2") != 0)
        return input_error (error, "--interaction: '%s' is not dot or dcnv2", o->interaction);
      m->dcn = g_ascii_strcasecmp (o->interaction, "dcnv2") == 0;
    }
  if (o->interaction_kernel != NULL)
    {
      gboolean fused = g_ascii_strcasecmp (o->interaction_kernel, "fused") == 0;
      if (!fused && g_ascii_strcasecmp (o->interaction_kernel, "unfused") != 0)
        return input_error (error, "--interaction-kernel: '%s' is not fused or unfused",
                            o->interaction_kernel);
      if (fused && m->dcn)
        return input_error (error, "--interaction-kernel fused is the dot interaction's; "
                                   "this model's is dcnv2");
      m->dot_fused = fused;
    }
  /* At most 16 cross layers, as the MLPs' layers (WL_DLRM_MAX_MLP): the
   * DCNv2 paper (Wang et al., WWW 2021, section 7) studies 1 to 4 and
   * MLPerf's reference uses 3; a trace has nodes per layer, so the bound
   * also bounds the output. */
  if (o->dcn_layers != APP_GEN_RANKS_ABSENT
      && (o->dcn_layers < 1 || o->dcn_layers > WL_DLRM_MAX_DCN_LAYERS))
    return input_error (error, "--dcn-layers %d: must be 1 .. %d", o->dcn_layers,
                        WL_DLRM_MAX_DCN_LAYERS);
  if (o->dcn_layers != APP_GEN_RANKS_ABSENT)
    m->dcn_layers = (guint32) o->dcn_layers;
  /* A low rank r factors the N x N cross matrix (N = F D, the stacked
   * features) as U V^T: above N it is no longer low. */
  guint32 F = m->tables->len + 1, D = g_array_index (m->tables, WlDlrmTable, 0).dim;
  guint64 N = (guint64) F * D;
  if (o->dcn_rank != APP_GEN_RANKS_ABSENT && (o->dcn_rank < 1 || (guint64) o->dcn_rank > N))
    return input_error (error, "--dcn-rank %d: must be 1 .. %" G_GUINT64_FORMAT " (the cross "
                        "network's width: %u features of dimension %u)", o->dcn_rank, N, F, D);
  if (o->dcn_rank != APP_GEN_RANKS_ABSENT)
    m->dcn_rank = (guint32) o->dcn_rank;
  /* The cross network's options mean nothing to the dot interaction:
   * refused rather than silently ignored. */
  if (!m->dcn && (o->dcn_layers != APP_GEN_RANKS_ABSENT || o->dcn_rank != APP_GEN_RANKS_ABSENT))
    return input_error (error, "%s is the dcnv2 interaction's; this model's is dot",
                        o->dcn_layers != APP_GEN_RANKS_ABSENT ? "--dcn-layers" : "--dcn-rank");
  return TRUE;
}

gboolean
app_gen_dlrm_request (const AppDlrmArgs *a, WlGenDlrm *req, GError **error)
{
  DlrmOptions o = { .preset = (char *) a->preset, .tables = (char *) a->tables,
                    .bottom = (char *) a->bottom, .top = (char *) a->top,
                    .interaction = (char *) a->interaction,
                    .interaction_kernel = (char *) a->interaction_kernel,
                    .dtype = (char *) a->dtype, .mlp_dtype = (char *) a->mlp_dtype,
                    .emb_opt = (char *) a->emb_opt, .dcn_layers = a->dcn_layers,
                    .dcn_rank = a->dcn_rank };
  return dlrm_types (&o, req, error) && dlrm_model (&o, req, error);
}

/* A count option given (not APP_GEN_RANKS_ABSENT) below 1: FALSE with
 * ERROR naming it and its value; absent: *V 0. */
static gboolean
count_given (const char *option, gint *v, GError **error)
{
  if (*v == APP_GEN_RANKS_ABSENT)
    *v = 0;
  else if (*v < 1)
    return input_error (error, "%s %d: must be at least 1", option, *v);
  return TRUE;
}

static gboolean
dlrm_options (DlrmOptions *o, WlGenDlrm *req, GError **error)
{
  if (!count_given ("--ranks", &o->ranks, error)
      || !count_given ("--ranks-per-node", &o->ranks_per_node, error)
      || !count_given ("--batch", &o->batch, error)
      || !count_given ("--local-batch", &o->local_batch, error))
    return FALSE;
  if (o->ranks == 0)
    return input_error (error, "--ranks N is required (1 .. %d)", WL_DLRM_MAX_RANKS);
  if (o->ranks > WL_DLRM_MAX_RANKS)
    return input_error (error, "--ranks %d: must be 1 .. %d", o->ranks, WL_DLRM_MAX_RANKS);
  req->ranks = (guint32) o->ranks;
  if (o->ranks_per_node > 0 && o->ranks % o->ranks_per_node != 0)
    return input_error (error, "--ranks-per-node %d must divide --ranks %d", o->ranks_per_node,
                        o->ranks);
  req->ranks_per_node = (guint32) o->ranks_per_node;
  if (o->batch > 0 && o->local_batch > 0)
    return input_error (error, "give --batch or --local-batch, not both");
  req->global_batch = o->batch > 0         ? (guint64) o->batch
                      : o->local_batch > 0 ? (guint64) o->local_batch * (guint64) o->ranks
                      : o->preset != NULL  ? 65536 /* the reference's GLOBAL_BATCH_SIZE */
                                           : 0;
  if (req->global_batch == 0)
    return input_error (error, "--tables needs --batch B or --local-batch b (samples)");
  if (!dlrm_types (o, req, error))
    return FALSE;
  req->sharding = WL_SHARD_TABLE_WISE;
  if (o->sharding != NULL && !wl_shard_kind_parse (o->sharding, &req->sharding))
    return input_error (error, "--sharding: '%s' is not table-wise, row-wise, column-wise, "
                        "table-row-wise or data-parallel", o->sharding);
  req->device = o->device != NULL ? o->device : "H100-SXM";
  if (wl_kernel_device (req->device) == NULL || wl_device_preset (req->device) == NULL)
    {
      g_autofree char *names = wl_kernel_device_names ();
      return input_error (error, "--device: unknown device '%s' (one of %s)", req->device, names);
    }
  if (o->out == NULL && !o->dry_run)
    return input_error (error, "--out PREFIX is required (or --dry-run)");
  if (o->pipeline != NULL && g_ascii_strcasecmp (o->pipeline, "none") != 0
      && g_ascii_strcasecmp (o->pipeline, "torchrec") != 0)
    return input_error (error, "--pipeline: '%s' is not torchrec or none", o->pipeline);
  req->pipeline_none = o->pipeline != NULL && g_ascii_strcasecmp (o->pipeline, "none") == 0;
  if (o->amp_casts && !req->mlp_dtype_set)
    return input_error (error, "--amp-casts needs --mlp-dtype (the type the casts go to)");
  if (req->mlp_dtype_set && req->mlp_dtype == WL_DTYPE_TF32)
    {
      if (o->amp_casts)
        return input_error (error, "--amp-casts: --mlp-dtype tf32 has no casts (its "
                            "tensors are fp32)");
      if (!(wl_device_preset (req->device)->peak_flops[WL_DTYPE_TF32] > 0))
        return input_error (error, "--mlp-dtype tf32: a %s has no TF32 rate in orrery's "
                            "presets", req->device);
    }
  req->amp_casts = o->amp_casts;
  req->exchange_dtype_set = o->exchange_dtype != NULL;
  if (o->exchange_dtype != NULL
      && (!wl_dtype_parse (o->exchange_dtype, &req->exchange_dtype)
          || req->exchange_dtype == WL_DTYPE_FP8 || req->exchange_dtype == WL_DTYPE_TF32))
    return input_error (error, "--exchange-dtype: '%s' is not fp32, bf16 or fp16",
                        o->exchange_dtype);
  if (o->exchange_dtype != NULL && o->amp_casts)
    return input_error (error, "--exchange-dtype: --amp-casts already sets the exchange's type "
                        "(the MLP type its casts go to)");
  if (o->emb_update != NULL && g_ascii_strcasecmp (o->emb_update, "tf") != 0
      && g_ascii_strcasecmp (o->emb_update, "fused") != 0)
    return input_error (error, "--emb-update: '%s' is not fused or tf", o->emb_update);
  req->tf_update = o->emb_update != NULL && g_ascii_strcasecmp (o->emb_update, "tf") == 0;
  if (req->tf_update && req->emb_opt != WL_EMB_OPT_SGD && req->emb_opt != WL_EMB_OPT_ADAM)
    return input_error (error, "--emb-update tf takes --emb-optimizer sgd or adam (the "
                        "TensorFlow step's optimizers), not %s",
                        req->emb_opt == WL_EMB_OPT_ADAGRAD ? "adagrad" : "rowwise-adagrad");
  req->plan_path = o->plan;
  return dlrm_model (o, req, error);
}

/* One rank's line of the summary.  Under --pipeline none the traces have
 * no index exchange (each rank's loader reads its own tables' indices), so
 * the line says so instead of the bytes TorchRec's pipeline would send.
 * Data-parallel tables (every rank's copy, gradient and optimizer state)
 * have their own figure, else the total would not add up. */
static void
print_rank (const WlGenDlrm *req, const WlDlrmLayout *l, guint32 k, const WlDevice *dev)
{
  const double GiB = 1073741824.0;
  guint64 sent = 0, recv = 0, in_sent = 0;
  wl_dlrm_layout_a2a (l, k, &sent, &recv);
  for (guint32 d = 0; d < l->ranks; d++)
    in_sent += l->input[k * l->ranks + d];
  g_autoptr (GString) tables = g_string_new (NULL);
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (l->shards, WlDlrmShard, i);
      if (sh->rank == k)
        g_string_append_printf (tables, " t%u", sh->table);
    }
  g_autofree char *indices
      = req->pipeline_none ? g_strdup ("no index exchange (--pipeline none)")
                           : g_strdup_printf ("indices sent %" G_GUINT64_FORMAT " B", in_sent);
  g_autofree char *dp = l->dp_B > 0 ? g_strdup_printf (", data-parallel tables %.2f GiB",
                                                        (double) l->dp_B / GiB)
                                     : g_strdup ("");
  printf ("rank %u:%s; all-to-all forward sent %" G_GUINT64_FORMAT " B, received %"
          G_GUINT64_FORMAT " B; %s; embeddings %.2f GiB, "
          "optimizer state %.2f GiB%s, total %.2f GiB of %.2f GiB%s\n",
          k, tables->len > 0 ? tables->str : " (no shards)", sent, recv, indices,
          (double) l->emb_B[k] / GiB, (double) l->emb_state_B[k] / GiB, dp,
          (double) l->total_B[k] / GiB, dev->mem_capacity_B / GiB,
          (double) l->total_B[k] > dev->mem_capacity_B ? " (does not fit)" : "");
}

static void
print_summary (const WlGenDlrm *req, const WlDlrmLayout *l)
{
  const WlDlrmModel *m = &req->model;
  const double GiB = 1073741824.0;
  const WlDevice *dev = wl_device_preset (req->device);
  g_assert (req->ranks > 0 && dev != NULL && m->tables != NULL); /* checked before */
  static const char *const opt[] = { "adagrad", "rowwise-adagrad", "sgd", "adam" };
  const char *e_dt = wl_dtype_name (req->dtype);
  g_autofree char *dt = req->mlp_dtype_set ? g_strdup_printf ("%s (MLPs %s)", e_dt,
                                                              wl_dtype_name (req->mlp_dtype))
                                           : g_strdup (e_dt);
  printf ("%s: %u rank%s, %" G_GUINT64_FORMAT " samples a step (%" G_GUINT64_FORMAT
          " a rank), %s, %u table%s, %" G_GUINT64_FORMAT " embedding parameters, %"
          G_GUINT64_FORMAT " MLP and interaction parameters (%s), embeddings' optimizer %s\n",
          m->name, req->ranks, req->ranks == 1 ? "" : "s", req->global_batch,
          req->global_batch / req->ranks, dt, m->tables->len,
          m->tables->len == 1 ? "" : "s", wl_dlrm_embedding_params (m),
          l->mlp_params, m->dcn ? "dcnv2" : "dot", opt[req->emb_opt]);
  guint32 worst = 0, busiest = 0;
  guint64 most_sent = 0;
  for (guint32 k = 0; k < req->ranks; k++)
    {
      guint64 sent = 0, recv = 0;
      wl_dlrm_layout_a2a (l, k, &sent, &recv);
      if (sent > most_sent)
        {
          busiest = k;
          most_sent = sent;
        }
      if (l->total_B[k] > l->total_B[worst])
        worst = k;
      if (req->ranks <= 16)
        print_rank (req, l, k, dev);
    }
  if (req->ranks > 16)
    {
      printf ("(%u ranks: the one with the most memory; 16 or fewer are all shown)\n",
              req->ranks);
      print_rank (req, l, worst, dev);
    }
  printf ("all-reduces: MLP gradients %" G_GUINT64_FORMAT " B, data-parallel tables %"
          G_GUINT64_FORMAT " B; most memory: rank %u, %.2f GiB; most sent: rank %u, %"
          G_GUINT64_FORMAT " B\n",
          l->mlp_params * wl_dlrm_elem_bytes (req->dtype), l->dp_table_B, worst,
          (double) l->total_B[worst] / GiB, busiest, most_sent);
  if ((double) l->total_B[worst] > dev->mem_capacity_B)
    fprintf (stderr, "orrery gen dlrm: warning: rank %u needs %.2f GiB, more than the %.2f GiB "
             "of the %s\n", worst, (double) l->total_B[worst] / GiB, dev->mem_capacity_B / GiB,
             dev->name);
}

static int
dlrm_list (void)
{
  WlDlrmModel m = { 0 };
  gboolean ok = wl_dlrm_preset (wl_dlrm_preset_names (), &m);
  g_assert (ok);
  printf ("%-22s %u tables of dim 128, %" G_GUINT64_FORMAT " embedding parameters, %"
          G_GUINT64_FORMAT " MLP and interaction parameters, DCNv2 3 x 512, batch 65536\n",
          m.name, m.tables->len, wl_dlrm_embedding_params (&m), wl_dlrm_mlp_params (&m));
  wl_dlrm_model_clear (&m);
  return 0;
}

static void
dlrm_options_clear (DlrmOptions *o)
{
  g_free (o->preset);
  g_free (o->tables);
  g_free (o->bottom);
  g_free (o->top);
  g_free (o->interaction);
  g_free (o->dtype);
  g_free (o->mlp_dtype);
  g_free (o->emb_opt);
  g_free (o->sharding);
  g_free (o->plan);
  g_free (o->interaction_kernel);
  g_free (o->pipeline);
  g_free (o->emb_update);
  g_free (o->exchange_dtype);
  g_free (o->device);
  g_free (o->out);
}

/* The plan file into REQ (PLAN keeps it). */
static gboolean
dlrm_plan (const DlrmOptions *o, WlGenDlrm *req, WlDlrmTablePlan **plan, GError **error)
{
  if (o->plan == NULL)
    return TRUE;
  g_assert (req->model.tables != NULL); /* dlrm_options made them */
  g_autofree char *text = read_text (o->plan, error);
  if (text == NULL)
    return FALSE;
  *plan = wl_dlrm_plan_parse (o->plan, text, req->model.tables->len, req->ranks, error);
  req->plan = *plan;
  return *plan != NULL;
}

/* gen dlrm's file size: about 16 KiB of fixed nodes and metadata, 512
 * bytes a peer (the exchanges' nodes) and 512 a cross layer (measured:
 * 100000 layers wrote 36 MB a rank, 360 bytes a layer). */
static gboolean
dlrm_output_check (const DlrmOptions *o, const WlGenDlrm *req, GError **error)
{
  /* An input named like a trace of the set would be replaced by it, or
   * removed after it as left from a larger set (app_gen_set_end). */
  const char *ins[][2] = { { "--tables", o->tables }, { "--plan", o->plan } };
  for (guint i = 0; i < G_N_ELEMENTS (ins); i++)
    if (ins[i][1] != NULL && sim_out_file_in_set (ins[i][1], o->out))
      return input_error (error, "--out %s: a trace of its set is an input (%s %s): writing "
                          "the set would destroy it; name another prefix", o->out, ins[i][0],
                          ins[i][1]);
  guint64 per_file = 16384 + 512 * (guint64) req->ranks
                     + (req->model.dcn ? 512 * (guint64) req->model.dcn_layers : 0);
  return app_gen_output_check (req->ranks, per_file, error);
}

int
app_cmd_gen_dlrm (int argc, char **argv)
{
  DlrmOptions o = { .dcn_layers = APP_GEN_RANKS_ABSENT, .dcn_rank = APP_GEN_RANKS_ABSENT,
                    .ranks = APP_GEN_RANKS_ABSENT, .ranks_per_node = APP_GEN_RANKS_ABSENT,
                    .batch = APP_GEN_RANKS_ABSENT, .local_batch = APP_GEN_RANKS_ABSENT };
  g_autoptr (AppCli) cli = dlrm_context (&o);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  GError *error = NULL;
  WlGenDlrm req = { 0 };
  WlDlrmTablePlan *plan = NULL;
  WlDlrmLayout *l = NULL;
  AppGenSet *set = NULL;
  int code = 0;
  if (!app_cli_parse (cli, &argc, &argv, owned, &error))
    code = app_cli_fail ("gen dlrm", error);
  else if (o.preset != NULL && strcmp (o.preset, "list") == 0)
    code = dlrm_list ();
  else if (!dlrm_options (&o, &req, &error) || !dlrm_plan (&o, &req, &plan, &error)
           || (l = wl_dlrm_layout_new (&req, &error)) == NULL
           || (!o.dry_run
               && (!dlrm_output_check (&o, &req, &error)
                   || (set = app_gen_set_begin (o.out, req.ranks, &error)) == NULL)))
    code = app_cli_fail ("gen dlrm", error);
  else
    {
      /* Checked before anything is printed: a bad --out prints no summary. */
      print_summary (&req, l);
      fflush (stdout);
      if (!o.dry_run && !app_gen_set_end ("gen dlrm", set, wl_gen_dlrm (o.out, &req, &error)))
        code = app_cli_fail ("gen dlrm", error);
      else if (!o.dry_run)
        {
          g_autofree char *wrote = app_gen_set_text (o.out, req.ranks);
          printf ("wrote %s\n", wrote);
        }
    }
  wl_dlrm_layout_free (l);
  if (req.model.tables != NULL)
    wl_dlrm_plan_free (plan, req.model.tables->len);
  wl_dlrm_model_clear (&req.model);
  dlrm_options_clear (&o);
  return code;
}
