/* cmd_gen.c: `orrery gen collective` and `orrery gen transformer`, and the
 * output checks `orrery rescale` (cmd_rescale.c) shares; see cmd_gen.h. */
#include "sim/app/cmd_gen.h"

#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "sim/app/cli.h"
#include "sim/app/cmd_gen_transformer.h"
#include "sim/error.h"
#include "sim/units.h"
#include "network/topo.h"
#include "workload/chakra_json.h"
#include "workload/compute.h"
#include "workload/gen.h"
#include "workload/gen_transformer.h"

/* ---- gen collective -------------------------------------------------------------- */

/* The options of gen collective; those that are absent stay at -1, so that
 * they can be told from 0. */
typedef struct
{
  char *type;
  char *bytes;
  char *out;
  char *groups_out;
  gint ranks;
  gint groups;
  gint stride;
  gint root;
  gint count;
} CollectiveOptions;

/* What an integer option of gen collective or gen transformer holds when
 * not given (-1 was, and so --count -1 or --zero -1 passed as the
 * default).  No value given can be it: app_cli_parse refuses G_MININT. */
#define OPT_ABSENT G_MININT

static gboolean
gen_request (const CollectiveOptions *o, WlGenCollective *req, GError **error)
{
  if (!wl_coll_kind_parse (o->type, &req->kind))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "unknown collective '%s'", o->type);
      return FALSE;
    }
  /* OPT_ABSENT marks an option not given: -1 given is refused like -2. */
  const char *bad = o->groups != OPT_ABSENT && o->groups < 1   ? "--groups"
                    : o->stride != OPT_ABSENT && o->stride < 1 ? "--stride"
                    : o->root != OPT_ABSENT && o->root < 0     ? "--root"
                    : o->count != OPT_ABSENT && o->count < 1   ? "--count"
                                                               : NULL;
  if (bad != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s must be a positive number%s", bad,
                   strcmp (bad, "--root") == 0 ? " or 0" : "");
      return FALSE;
    }
  if (o->root >= 0 && !sys_coll_kind_rooted (req->kind))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--root applies to rooted collectives (broadcast, reduce, gather, scatter), "
                   "not %s", sys_coll_kind_name (req->kind));
      return FALSE;
    }
  req->ranks = (guint32) o->ranks;
  req->group_size = o->groups > 0 ? (guint32) o->groups : 0;
  req->stride = o->stride > 0 ? (guint32) o->stride : 1;
  req->root = o->root > 0 ? (guint32) o->root : 0;
  req->count = o->count > 0 ? (guint32) o->count : 1;
  req->comm_groups_out = o->groups_out;
  if (!sim_units_parse_bytes (o->bytes, &req->bytes, error))
    return FALSE;
  /* comm_size is a signed 64-bit attribute in the trace: a size of 2^63
   * or more would be written as a negative one. */
  if (req->bytes > (guint64) G_MAXINT64)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--bytes '%s': comm_size is a signed 64-bit field and holds at most "
                   "%" G_GINT64_FORMAT " bytes (2^63 - 1)",
                   o->bytes, G_MAXINT64);
      return FALSE;
    }
  return TRUE;
}

static AppCli *
gen_collective_context (CollectiveOptions *o)
{
  GOptionEntry entries[] = {
    { "type", 't', 0, G_OPTION_ARG_STRING, &o->type,
      "all_reduce, reduce_scatter, all_gather, all_to_all, broadcast, reduce, gather, scatter "
      "or barrier", "KIND" },
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &o->ranks, "Number of ranks (trace files)", "N" },
    { "bytes", 'b', 0, G_OPTION_ARG_STRING, &o->bytes,
      "comm_size with a unit (1MiB, 64KB); all_gather: each rank's input", "SIZE" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out, "Write PREFIX.0.et .. PREFIX.<N-1>.et",
      "PREFIX" },
    { "groups", 'g', 0, G_OPTION_ARG_INT, &o->groups,
      "Run each collective on process groups of SIZE ranks (default: all ranks)", "SIZE" },
    { "stride", 's', 0, G_OPTION_ARG_INT, &o->stride,
      "Group members are S ranks apart: r, r+S, r+2S, ... (default 1: consecutive ranks; "
      "without --groups, groups of N/S)", "S" },
    { "root", 0, 0, G_OPTION_ARG_INT, &o->root,
      "Rooted kinds: the root's member index in its group (default 0)", "R" },
    { "count", 'k', 0, G_OPTION_ARG_INT, &o->count,
      "Issue K collectives back to back, each after the previous (default 1)", "K" },
    { "comm-groups-out", 0, 0, G_OPTION_ARG_FILENAME, &o->groups_out,
      "Write the process groups to FILE as ASTRA-sim's comm-group JSON (its "
      "--comm-group-configuration; orrery run's --comm-groups) instead of a METADATA node in "
      "every trace, which ASTRA-sim 2.x asserts on", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  AppCli *cli = app_cli_new ("- write a collective microbenchmark, one trace per rank");
  app_cli_add_entries (cli, NULL, entries);
  g_option_context_set_description (
      app_cli_context (cli),
      "Groups: ranks are cut into blocks of SIZE x S consecutive ranks, each holding S\n"
      "groups; N must be a multiple of SIZE x S.  Groups are defined by a METADATA node\n"
      "in every trace and named in each collective's pg_name (1 .. N/SIZE).\n\n"
      APP_CLI_EXIT_CODES_TOOL_HELP "\n");
  return cli;
}

/* ---- output bounds ----------------------------------------------------------------
 * gen and rescale write one file per rank: refuse a rank count run could
 * not simulate, and an output estimated above a cap, before writing
 * anything.  Each file counts at least a file system block. */

#define GEN_MAX_OUTPUT_DEFAULT ((guint64) 4 << 30)
#define GEN_FILE_MIN_BYTES 4096u

/* The cap on the estimated output: ORRERY_GEN_MAX_OUTPUT (a size, e.g.
 * 100GB) when set, else 4 GiB.  FALSE with ERROR when it does not parse. */
static gboolean
gen_output_cap (guint64 *cap, GError **error)
{
  const char *env = g_getenv ("ORRERY_GEN_MAX_OUTPUT");
  *cap = GEN_MAX_OUTPUT_DEFAULT;
  if (env == NULL || sim_units_parse_bytes (env, cap, NULL))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "ORRERY_GEN_MAX_OUTPUT: '%s' is not a size with its unit (e.g. 100GB)", env);
  return FALSE;
}

/* BYTES in decimal units with one decimal, as "8.2 GB" (g_format_size
 * writes a no-break space in UTF-8 locales). */
static char *
size_text (guint64 bytes)
{
  static const char *const units[] = { "kB", "MB", "GB", "TB", "PB", "EB" };
  if (bytes < 1000)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " bytes", bytes);
  double v = (double) bytes / 1000.0;
  guint u = 0;
  for (; v >= 1000.0 && u + 1 < G_N_ELEMENTS (units); u++)
    v /= 1000.0;
  return g_strdup_printf ("%.1f %s", v, units[u]);
}

/* RANKS files of about PER_FILE bytes each: within run's rank limit and
 * the output cap, or FALSE with ERROR saying which and the estimate. */
gboolean
app_gen_output_check (guint64 ranks, guint64 per_file, GError **error)
{
  if (ranks > NET_MAX_RANKS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%" G_GUINT64_FORMAT " ranks: orrery run simulates at most " NET_MAX_RANKS_TEXT,
                   ranks);
      return FALSE;
    }
  guint64 cap = 0;
  if (!gen_output_cap (&cap, error))
    return FALSE;
  per_file = MAX (per_file, GEN_FILE_MIN_BYTES);
  if (per_file <= cap / ranks)
    return TRUE;
  guint64 est = per_file > G_MAXUINT64 / ranks ? G_MAXUINT64 : per_file * ranks;
  g_autofree char *est_text = size_text (est);
  g_autofree char *cap_text = size_text (cap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "the output would be about %s (%" G_GUINT64_FORMAT " files of about %"
               G_GUINT64_FORMAT " bytes), above the cap of %s: set ORRERY_GEN_MAX_OUTPUT "
               "(a size, e.g. 100GB) to allow more", est_text, ranks, per_file, cap_text);
  return FALSE;
}

/* gen collective's file size: the metadata (with the group lists, about
 * 12 bytes a rank when there are groups) and COUNT nodes of at most about
 * 128 bytes (measured: 70 to 90). */
static gboolean
gen_collective_output_check (const WlGenCollective *req, GError **error)
{
  guint64 per_file = 256 + (guint64) req->count * 128
                     + (req->group_size != 0 ? (guint64) req->ranks * 12 : 0);
  return app_gen_output_check (req->ranks, per_file, error);
}

static int
cmd_gen_collective (int argc, char **argv)
{
  CollectiveOptions o = { .groups = OPT_ABSENT, .stride = OPT_ABSENT, .root = OPT_ABSENT,
                          .count = OPT_ABSENT, .ranks = APP_GEN_RANKS_ABSENT };
  g_autoptr (AppCli) cli = gen_collective_context (&o);
  GError *error = NULL;
  WlGenCollective req = { 0 };
  AppGenSet *set = NULL;
  int code = 0;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  if (!app_cli_parse (cli, &argc, &argv, owned, &error)
      || !app_gen_ranks_given (&o.ranks, &error))
    code = app_cli_fail ("gen collective", error);
  else if (o.type == NULL || o.bytes == NULL || o.out == NULL || o.ranks <= 0)
    code = app_cli_fail ("gen collective",
                         g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                      "need --type KIND --ranks N --bytes SIZE --out PREFIX"));
  else if (!gen_request (&o, &req, &error) || !gen_collective_output_check (&req, &error)
           || !app_gen_groups_out_check (o.groups_out, o.out, &error)
           || (set = app_gen_set_begin (o.out, req.ranks, &error)) == NULL
           || !app_gen_set_end ("gen collective", set,
                                wl_gen_collective_full (o.out, &req, &error)))
    code = app_cli_fail ("gen collective", error);
  else
    {
      g_autofree char *wrote = app_gen_set_text (o.out, req.ranks);
      printf ("wrote %s%s%s\n", wrote, o.groups_out != NULL ? " and " : "",
              o.groups_out != NULL ? o.groups_out : "");
    }
  g_free (o.groups_out);
  g_free (o.type);
  g_free (o.bytes);
  g_free (o.out);
  return code;
}

/* ---- gen transformer ------------------------------------------------------------- */

/* gen transformer's file size: about 32 KiB of metadata and fixed nodes,
 * and about 3 KiB per layer of a stage and micro-batch (measured on
 * Llama-2 and Mixtral with tp 2, pp 2: 19 to 24 KiB, and 1.9 KiB with ZeRO
 * 3 to 2.6 KiB with full recomputation).  The rank count is a product of
 * four options, checked for overflow first. */
static gboolean
gen_transformer_output_check (const WlGenTransformer *req, GError **error)
{
  guint64 ranks = 1;
  guint64 factors[] = { req->tp, req->pp, req->dp, MAX (req->cp, 1u) };
  for (guint i = 0; i < G_N_ELEMENTS (factors); i++)
    if (!g_uint64_checked_mul (&ranks, ranks, factors[i]))
      ranks = G_MAXUINT64;
  if (ranks > NET_MAX_RANKS)
    return app_gen_output_check (ranks, 0, error);
  guint32 M = wl_gen_transformer_microbatches (req, error);
  if (M == 0)
    return FALSE;
  double stage_layers = ceil ((double) req->model.layers / req->pp);
  double per_file = 32768 + stage_layers * M * 3072;
  return app_gen_output_check (ranks, per_file >= 0x1p63 ? G_MAXUINT64 / 2 : (guint64) per_file,
                           error);
}

/* The ranks of REQ (within run's limit once gen_transformer_output_check
 * passed). */
static guint32
transformer_ranks (const WlGenTransformer *req)
{
  return req->tp * req->pp * req->dp * MAX (req->cp, 1u);
}

/* --recompute [none|selective|full]: alone, full (the old boolean). */
static gboolean
parse_recompute (const char *name, const char *value, gpointer data, GError **error)
{
  (void) name;
  TransformerOptions *o = data;
  if (value == NULL || g_ascii_strcasecmp (value, "full") == 0)
    o->recompute = WL_RECOMPUTE_FULL;
  else if (g_ascii_strcasecmp (value, "selective") == 0)
    o->recompute = WL_RECOMPUTE_SELECTIVE;
  else if (g_ascii_strcasecmp (value, "none") == 0)
    o->recompute = WL_RECOMPUTE_NONE;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--recompute: '%s' is not none, selective or full", value);
      return FALSE;
    }
  return TRUE;
}

/* ARGV with "--recompute KIND" joined into "--recompute=KIND" (GOption
 * takes an optional value only after '='); the joined strings go to OWNED.
 * The array is borrowed pointers, freed with g_free. */
static char **
join_recompute (int argc, char **argv, GPtrArray *owned)
{
  char **out = g_new0 (char *, argc + 1);
  int n = 0;
  for (int i = 0; i < argc; i++)
    {
      const char *next = i + 1 < argc ? argv[i + 1] : "";
      if (strcmp (argv[i], "--recompute") == 0
          && (strcmp (next, "none") == 0 || strcmp (next, "selective") == 0
              || strcmp (next, "full") == 0))
        {
          char *joined = g_strconcat (argv[i], "=", next, NULL);
          g_ptr_array_add (owned, joined);
          out[n++] = joined;
          i++;
        }
      else
        out[n++] = argv[i];
    }
  return out;
}

static int
gen_transformer_list (void)
{
  guint n;
  const WlTransformerModel *m = wl_transformer_presets (&n);
  for (guint i = 0; i < n; i++)
    {
      /* B is billions here (of parameters), never bytes: said with each. */
      printf ("%-12s %.2fB parameters: layers %u hidden %u heads %u kv-heads %u ffn %u%s vocab %u "
              "seq %u tokens",
              m[i].name, (double) wl_transformer_params (&m[i]) / 1e9, m[i].layers, m[i].hidden,
              m[i].heads, m[i].kv_heads > 0 ? m[i].kv_heads : m[i].heads, m[i].ffn,
              m[i].gated_ffn ? " (gated)" : "", m[i].vocab, m[i].seq);
      if (m[i].experts > 0)
        printf (" experts %u top-k %u (%.2fB parameters active a token)", m[i].experts,
                m[i].top_k, (double) wl_transformer_active_params (&m[i]) / 1e9);
      printf ("\n");
    }
  return 0;
}

/* The model and schedule of REQ from the preset, the model sizes given
 * (which override the preset's) and --schedule. */
static gboolean
gen_transformer_model (const TransformerOptions *o, WlGenTransformer *req, GError **error)
{
  if (o->preset != NULL)
    {
      const WlTransformerModel *m = wl_transformer_preset (o->preset);
      if (m == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "unknown preset '%s' (see --list)", o->preset);
          return FALSE;
        }
      req->model = *m;
    }
  else
    {
      req->model.name = "custom";
      req->model.ffn = (guint32) (4 * MAX (o->model[1], 0));
    }
  guint32 *fields[6] = { &req->model.layers, &req->model.hidden, &req->model.heads,
                         &req->model.ffn, &req->model.vocab, &req->model.seq };
  for (guint i = 0; i < 6; i++)
    if (o->model[i] != APP_GEN_ABSENT) /* at least 1: app_gen_transformer_values */
      *fields[i] = (guint32) o->model[i];
  if (o->sched != NULL && g_ascii_strcasecmp (o->sched, "gpipe") == 0)
    req->schedule = WL_PIPE_GPIPE;
  else if (o->sched != NULL && g_ascii_strcasecmp (o->sched, "1f1b") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--schedule: '%s' is not 1f1b or gpipe",
                   o->sched);
      return FALSE;
    }
  return TRUE;
}

/* The whole request: parallel layout, ZeRO stage, device, then the model
 * (with --experts and --top-k over the preset's). */
static gboolean
gen_transformer_request (const TransformerOptions *o, WlGenTransformer *req, GError **error)
{
  req->micro_batch = (guint32) o->b;
  req->global_batch = (guint32) MAX (o->B, 0);
  req->tp = (guint32) o->tp;
  req->pp = (guint32) o->pp;
  req->dp = (guint32) o->dp;
  req->microbatches = (guint32) o->M;
  req->recompute = o->recompute;
  req->zero = o->fsdp ? 3 : (guint32) MAX (o->zero, 0);
  req->ep = (guint32) o->ep;
  req->device = o->device_name != NULL ? wl_device_preset (o->device_name) : NULL;
  req->virtual_stages = (guint32) o->vstages;
  req->cp = (guint32) o->cp;
  req->no_sequence_parallel = o->no_sp;
  gboolean framework_ok = app_gen_framework (o->dtype, o->attention, req, NULL);
  g_assert (framework_ok); /* checked with the options */
  req->distributed_optimizer = o->dist_opt;
  req->no_dp_overlap = o->no_dp_overlap;
  req->dp_coalesce = o->dp_coalesce;
  req->grad_clip = o->grad_clip;
  req->loss_scale = o->loss_scale;
  req->unfused_grad_accum = o->grad_accum;
  req->comm_groups_out = o->groups_out;
  /* Megatron-LM core's default bucket: max (40 M, 1 M x dp) parameters
   * (megatron/core/distributed/distributed_data_parallel.py), bf16
   * gradients. */
  req->dp_bucket_B = 2 * MAX ((guint64) 40000000, (guint64) 1000000 * (guint64) o->dp);
  if (o->dp_bucket != NULL && !sim_units_parse_bytes (o->dp_bucket, &req->dp_bucket_B, NULL))
    return FALSE; /* checked in gen_transformer_check */
  if (!gen_transformer_model (o, req, error))
    return FALSE;
  if (o->kv_heads > 0)
    req->model.kv_heads = (guint32) o->kv_heads;
  if (o->gated_ffn)
    req->model.gated_ffn = TRUE;
  if (o->experts >= 0)
    req->model.experts = (guint32) o->experts;
  /* --experts 0 makes a mixture-of-experts preset dense: its top-k goes with it. */
  if (o->experts == 0 && o->top_k < 0)
    req->model.top_k = 0;
  if (o->top_k >= 0)
    req->model.top_k = (guint32) o->top_k;
  else if (req->model.experts > 0 && req->model.top_k == 0)
    req->model.top_k = MIN (2, req->model.experts);
  return TRUE;
}

static AppCli *
gen_transformer_context (TransformerOptions *o)
{
  GOptionEntry entries[] = {
    { "preset", 'p', 0, G_OPTION_ARG_STRING, &o->preset, "Model preset (see --list)", "NAME" },
    { "list", 'l', 0, G_OPTION_ARG_NONE, &o->list, "List the presets with their parameters", NULL },
    { "layers", 0, 0, G_OPTION_ARG_INT, &o->model[0], "Layers (overrides the preset's)", "L" },
    { "hidden", 0, 0, G_OPTION_ARG_INT, &o->model[1], "Hidden size", "H" },
    { "heads", 0, 0, G_OPTION_ARG_INT, &o->model[2], "Attention heads", "N" },
    { "ffn", 0, 0, G_OPTION_ARG_INT, &o->model[3], "FFN size (default 4 x hidden)", "F" },
    { "vocab", 0, 0, G_OPTION_ARG_INT, &o->model[4], "Vocabulary size", "V" },
    { "seq", 0, 0, G_OPTION_ARG_INT, &o->model[5], "Sequence length in tokens", "S" },
    { "micro-batch", 'b', 0, G_OPTION_ARG_INT, &o->b, "Sequences per micro-batch", "B" },
    { "global-batch", 'B', 0, G_OPTION_ARG_INT, &o->B, "Sequences per iteration", "B" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &o->tp, "Tensor-parallel degree (default 1)", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &o->pp, "Pipeline stages (default 1)", "N" },
    { "dp", 0, 0, G_OPTION_ARG_INT, &o->dp,
      "Data-parallel degree (default: ranks / (tp x pp), or 1)", "N" },
    { "ranks", 0, 0, G_OPTION_ARG_INT, &o->ranks,
      "Total ranks: tp x pp x dp (checked, or gives dp)", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &o->ep,
      "Expert-parallel degree (default 1): EP groups of ep consecutive DP indices", "N" },
    { "experts", 0, 0, G_OPTION_ARG_INT, &o->experts,
      "Experts per layer (mixture of experts; 0 = dense; overrides the preset's)", "E" },
    { "top-k", 0, 0, G_OPTION_ARG_INT, &o->top_k, "Experts per token (default 2 with --experts)",
      "K" },
    { "microbatches", 'm', 0, G_OPTION_ARG_INT, &o->M,
      "Micro-batches per pipeline (default global-batch / (micro-batch x dp))", "M" },
    { "schedule", 0, 0, G_OPTION_ARG_STRING, &o->sched, "1f1b (default) or gpipe", "NAME" },
    { "recompute", 0, G_OPTION_FLAG_OPTIONAL_ARG, G_OPTION_ARG_CALLBACK, (gpointer) parse_recompute,
      "Activation recomputation: none (default), selective (core attention) or full (every "
      "layer; --recompute alone)", "KIND" },
    { "virtual-stages", 0, 0, G_OPTION_ARG_INT, &o->vstages,
      "Model chunks per stage: interleaved 1F1B as Megatron-LM (default 1; needs pp > 1 and "
      "micro-batches a multiple of pp)", "V" },
    { "cp", 0, 0, G_OPTION_ARG_INT, &o->cp,
      "Context-parallel degree (default 1): ring attention over the CP group", "N" },
    { "no-sequence-parallel", 0, 0, G_OPTION_ARG_NONE, &o->no_sp,
      "TP all-reduces instead of sequence parallelism's all-gathers / reduce-scatters", NULL },
    { "dtype", 0, 0, G_OPTION_ARG_STRING, &o->dtype,
      "bf16 (default) or fp8 (Transformer Engine: the layers' GEMMs in FP8)", "bf16|fp8" },
    { "attention", 0, 0, G_OPTION_ARG_STRING, &o->attention,
      "flash (default: FlashAttention) or unfused (Megatron 2021: GEMMs, softmax, dropout)",
      "flash|unfused" },
    { "distributed-optimizer", 0, 0, G_OPTION_ARG_NONE, &o->dist_opt,
      "Megatron's distributed optimizer: gradients reduce-scattered, parameters all-gathered",
      NULL },
    { "dp-bucket", 0, 0, G_OPTION_ARG_STRING, &o->dp_bucket,
      "Gradient bucket (e.g. 80MB; default Megatron's max (40 M, 1 M x dp) bf16 parameters)",
      "SIZE" },
    { "no-dp-overlap", 0, 0, G_OPTION_ARG_NONE, &o->no_dp_overlap,
      "Reduce the gradients after the whole backward (Megatron 2021, --DDP-impl local)", NULL },
    { "dp-coalesce", 0, 0, G_OPTION_ARG_NONE, &o->dp_coalesce,
      "With --no-dp-overlap: gradients flattened, divided, copied back (2021 local DDP)", NULL },
    { "grad-clip", 0, 0, G_OPTION_ARG_NONE, &o->grad_clip,
      "Optimizer step reads the fp32 gradients for their L2 norm (Megatron --clip-grad)", NULL },
    { "loss-scale", 0, 0, G_OPTION_ARG_NONE, &o->loss_scale,
      "Optimizer step unscales the fp32 gradients, checks inf/NaN (FP16 loss scaling)", NULL },
    { "unfused-grad-accum", 0, 0, G_OPTION_ARG_NONE, &o->grad_accum,
      "Each micro-batch but the first adds its gradients to the sum (Megatron before 2022)", NULL },
    { "kv-heads", 0, 0, G_OPTION_ARG_INT, &o->kv_heads,
      "Key/value heads (grouped-query attention; default = heads)", "N" },
    { "gated-ffn", 0, 0, G_OPTION_ARG_NONE, &o->gated_ffn,
      "Gated FFN (SwiGLU, three h x f matrices), RMSNorm and RoPE, as in Llama", NULL },
    { "zero", 0, 0, G_OPTION_ARG_INT, &o->zero,
      "ZeRO stage 0 (default), 1 (optimizer), 2 (+ gradients) or 3 (+ parameters)", "0|1|2|3" },
    { "fsdp", 0, 0, G_OPTION_ARG_NONE, &o->fsdp, "Fully sharded data parallelism (= --zero 3)",
      NULL },
    { "device", 0, 0, G_OPTION_ARG_STRING, &o->device_name,
      "Device preset (H100-SXM, ...): compute nodes get their roofline durations (bf16, whole "
      "us) and each stage's per-rank memory is checked against its capacity", "NAME" },
    { "strict-memory", 0, 0, G_OPTION_ARG_NONE, &o->strict_memory,
      "Fail (exit 1, no trace written) when a stage exceeds the device memory", NULL },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &o->out, "Write PREFIX.0.et .. PREFIX.<ranks-1>.et",
      "PREFIX" },
    { "comm-groups-out", 0, 0, G_OPTION_ARG_FILENAME, &o->groups_out,
      "Write the process groups to FILE as ASTRA-sim's comm-group JSON (its "
      "--comm-group-configuration; orrery run's --comm-groups) instead of a METADATA node in "
      "every trace, which ASTRA-sim 2.x asserts on", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  AppCli *cli = app_cli_new ("- write one training iteration of a decoder transformer "
                             "(dense or mixture-of-experts)");
  GOptionContext *ctx = app_cli_context (cli);
  GOptionGroup *group = g_option_group_new ("transformer", "", "", o, NULL);
  app_cli_add_entries (cli, group, entries);
  g_option_context_set_main_group (ctx, group);
  g_option_context_set_description (
      ctx, "Ranks: tp x cp x dp x pp, rank = t + tp x (c + cp x (d + dp x p)).  Compute\n"
           "nodes list Megatron-LM's kernels; tensor parallelism uses sequence parallelism\n"
           "(all-gather / reduce-scatter per block), the pipeline sends 1/tp per rank,\n"
           "data parallelism reduces gradients in buckets during the last backward.\n"
           "See workload/gen_transformer.h for the model and its FLOP count.\n"
           "Prints each stage's per-rank memory (bf16 weights, fp32 gradients and Adam,\n"
           "sharded per --zero; activations as in Korthikanti et al. 2022, at the peak of\n"
           "the stage's schedule); with --device, a verdict per stage (\"fits, 61.2 of 79.6\n"
           "GiB\" / \"does not fit by 12.4 GiB\"), stages over its capacity warned about\n"
           "(errors with --strict-memory).\n\n"
           APP_CLI_EXIT_CODES_TOOL_HELP "\n");
  return cli;
}

static gboolean
dp_bucket_ok (const char *text)
{
  guint64 bytes = 0;
  return sim_units_parse_bytes (text, &bytes, NULL) && bytes > 0;
}

/* The required options absent or not positive, as "--micro-batch and
 * --out", or NULL when none is. */
static char *
gen_transformer_missing (const TransformerOptions *o)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  if (o->b <= 0)
    g_ptr_array_add (names, "--micro-batch");
  if (o->B <= 0 && o->M <= 0)
    g_ptr_array_add (names, o->M < 0 ? "--microbatches (at least 1)" : "--global-batch");
  if (o->tp <= 0)
    g_ptr_array_add (names, "--tp (at least 1)");
  if (o->pp <= 0)
    g_ptr_array_add (names, "--pp (at least 1)");
  if (o->dp <= 0)
    g_ptr_array_add (names, "--dp (at least 1)");
  if (o->out == NULL)
    g_ptr_array_add (names, "--out");
  if (names->len == 0)
    return NULL;
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (s, "%s%s", i == 0 ? "" : i + 1 == names->len ? " and " : ", ",
                            (const char *) names->pdata[i]);
  return g_string_free (s, FALSE);
}

/* The checks on the options, in the order their messages take precedence;
 * run after the default dp is filled in. */
static gboolean
gen_transformer_check (const TransformerOptions *o, GError **error)
{
  gint cp = MAX (o->cp, 1);
  WlGenTransformer probe = { 0 };
  if (!app_gen_transformer_values (o, error))
    return FALSE;
  g_autofree char *missing = gen_transformer_missing (o);
  gint64 model = (gint64) MAX (o->tp, 1) * MAX (o->pp, 1) * cp; /* ranks per DP replica */
  if (o->ranks < 0 || (o->ranks > 0 && (o->tp <= 0 || o->pp <= 0)))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--ranks, --tp and --pp must be at least 1 (--ranks %d, --tp %d, --pp %d)",
                 o->ranks, o->tp, o->pp);
  else if (o->ranks > 0 && o->ranks % model != 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--ranks %d is not a multiple of tp x pp%s = %" G_GINT64_FORMAT
                 " (one data-parallel replica)", o->ranks, cp > 1 ? " x cp" : "", model);
  else if (o->ranks > 0 && o->dp != 0 && o->dp * model != o->ranks)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--ranks %d is not tp x pp%s x dp = %" G_GINT64_FORMAT " x %d = %" G_GINT64_FORMAT,
                 o->ranks, cp > 1 ? " x cp" : "", model, o->dp, model * o->dp);
  else if (missing != NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "missing %s (needed: --preset NAME or the model sizes, --micro-batch b, "
                 "--global-batch B, --tp N --pp N --dp N or --ranks N, --out PREFIX)",
                 missing);
  else if (o->vstages <= 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--virtual-stages must be at least 1");
  else if (o->ep <= 0 || (o->experts != OPT_ABSENT && o->experts < 0)
           || (o->top_k != OPT_ABSENT && o->top_k < 0))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--ep must be at least 1, --experts and --top-k at least 0");
  else if (o->zero > 3 || (o->zero != OPT_ABSENT && o->zero < 0)
           || (o->fsdp && o->zero >= 0 && o->zero != 3))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--zero must be 0, 1, 2 or 3 (--fsdp means 3)");
  else if (o->cp <= 0 || o->kv_heads < 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--cp must be at least 1, --kv-heads at least 0");
  else if (!app_gen_framework (o->dtype, o->attention, &probe, error))
    return FALSE;
  else if (o->dp_bucket != NULL && !dp_bucket_ok (o->dp_bucket))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--dp-bucket: '%s' is not a size above 0 with its unit (e.g. 80MB)",
                 o->dp_bucket);
  else if (o->dp_bucket != NULL && o->zero > 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--dp-bucket applies to ZeRO 0 (Megatron's buckets); --zero %d reduces each "
                 "layer on its own", o->zero);
  else if (o->dp_bucket != NULL && o->fsdp)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--dp-bucket applies to ZeRO 0 (Megatron's buckets); --fsdp reduces each "
                 "layer on its own");
  else if (o->strict_memory && o->device_name == NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--strict-memory needs --device NAME");
  else if (o->device_name != NULL && wl_device_preset (o->device_name) == NULL)
    {
      g_autofree char *names = wl_device_preset_names ();
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "unknown device '%s' (one of %s)",
                   o->device_name, names);
    }
  else
    return TRUE;
  return FALSE;
}

static int
cmd_gen_transformer (int argc, char **argv)
{
  const gint no = APP_GEN_ABSENT;
  TransformerOptions o = { .tp = 1, .pp = 1, .zero = OPT_ABSENT, .ep = 1, .experts = OPT_ABSENT,
                           .top_k = OPT_ABSENT,
                           .vstages = 1, .cp = 1, .ranks = APP_GEN_RANKS_ABSENT, .b = no, .B = no,
                           .model = { no, no, no, no, no, no } };
  g_autoptr (AppCli) cli = gen_transformer_context (&o);
  GError *error = NULL;
  WlGenTransformer req = { 0 };
  AppGenSet *set = NULL;
  int code = 0;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  g_autofree char **args = join_recompute (argc, argv, owned);
  char **parse_argv = args;
  int parse_argc = (int) g_strv_length (args);
  gboolean parsed = app_cli_parse (cli, &parse_argc, &parse_argv, owned, &error)
                    && app_gen_ranks_given (&o.ranks, &error);
  gint cp = MAX (o.cp, 1);
  if (parsed && o.dp == 0)
    o.dp = o.ranks > 0 && o.tp > 0 && o.pp > 0 ? MAX (o.ranks / (o.tp * o.pp * cp), 1) : 1;
  if (!parsed)
    code = app_cli_fail ("gen transformer", error);
  else if (o.list)
    code = gen_transformer_list ();
  else if (!gen_transformer_check (&o, &error) || !gen_transformer_request (&o, &req, &error)
           || !app_gen_transformer_memory (&req, o.strict_memory, &error)
           || !gen_transformer_output_check (&req, &error)
           || !app_gen_groups_out_check (o.groups_out, o.out, &error)
           || (set = app_gen_set_begin (o.out, transformer_ranks (&req), &error)) == NULL
           || !app_gen_set_end ("gen transformer", set,
                                wl_gen_transformer (o.out, &req, &error)))
    code = app_cli_fail ("gen transformer", error);
  else
    {
      g_autofree char *with_cp = cp > 1 ? g_strdup_printf (" cp %d", cp) : g_strdup ("");
      g_autofree char *wrote = app_gen_set_text (o.out, transformer_ranks (&req));
      app_gen_transformer_split_note (&req);
      /* Both FLOP counts, named as run's summary names them: one figure
       * called "FLOPs per iteration" matched neither of run's lines. */
      printf ("%s: %d ranks (tp %d pp %d dp %d%s), %u micro-batches, %" G_GUINT64_FORMAT
              " parameters, %.4g hardware and %.4g model FLOPs per iteration; wrote %s\n",
              req.model.name, o.tp * o.pp * o.dp * cp, o.tp, o.pp, o.dp, with_cp,
              wl_gen_transformer_microbatches (&req, NULL), wl_transformer_params (&req.model),
              wl_gen_transformer_flops (&req), wl_gen_transformer_model_flops (&req), wrote);
    }
  g_free (o.dtype);
  g_free (o.attention);
  g_free (o.dp_bucket);
  g_free (o.groups_out);
  g_free (o.preset);
  g_free (o.sched);
  g_free (o.out);
  g_free (o.device_name);
  return code;
}

gboolean
app_gen_framework (const char *dtype, const char *attention, WlGenTransformer *req,
                   GError **error)
{
  if (dtype != NULL && g_ascii_strcasecmp (dtype, "bf16") != 0
      && g_ascii_strcasecmp (dtype, "fp8") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--dtype: '%s' is not bf16 or fp8", dtype);
      return FALSE;
    }
  if (attention != NULL && g_ascii_strcasecmp (attention, "flash") != 0
      && g_ascii_strcasecmp (attention, "unfused") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--attention: '%s' is not flash or unfused",
                   attention);
      return FALSE;
    }
  req->fp8 = dtype != NULL && g_ascii_strcasecmp (dtype, "fp8") == 0;
  req->attention = attention != NULL && g_ascii_strcasecmp (attention, "unfused") == 0
                       ? WL_ATTENTION_UNFUSED
                       : WL_ATTENTION_FLASH;
  return TRUE;
}

static void
gen_usage (FILE *out)
{
  fprintf (out, "usage: orrery gen GENERATOR [OPTIONS]\n\n"
                "Generators:\n"
                "  collective   one collective (or a sequence of them) on every rank:\n"
                "               --type KIND --ranks N --bytes SIZE --out PREFIX [--groups SIZE]\n"
                "               [--stride S] [--root R] [--count K]\n"
                "  transformer  one training iteration of a transformer, per rank:\n"
                "               --preset NAME (--list: the presets) --micro-batch b\n"
                "               --global-batch B --tp N --pp N --dp N --out PREFIX\n"
                "  dlrm         one DLRM training iteration, per rank, tables sharded:\n"
                "               --preset NAME | --tables FILE.csv --ranks N --out PREFIX\n\n"
                "'orrery gen GENERATOR --help' lists its options, with units and defaults.\n"
                "The folder of --out PREFIX is made when it does not exist.\n\n"
                APP_CLI_EXIT_CODES_TOOL_HELP "\n");
}

int
app_cmd_gen (int argc, char **argv)
{
  GError *error = NULL;
  if (!app_gen_no_cluster (argc, argv, &error))
    return app_cli_fail ("gen", error);
  static const char *const generators[] = { "collective", "transformer", "dlrm", NULL };
  if (argc >= 2 && g_strv_contains (generators, argv[1]))
    {
      /* --help's "Usage:" line names the generator as typed: "orrery gen dlrm". */
      g_autofree char *name = g_strconcat ("orrery gen ", argv[1], NULL);
      g_set_prgname (name);
    }
  if (argc >= 2 && strcmp (argv[1], "collective") == 0)
    return cmd_gen_collective (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "transformer") == 0)
    return cmd_gen_transformer (argc - 1, argv + 1);
  if (argc >= 2 && strcmp (argv[1], "dlrm") == 0)
    return app_cmd_gen_dlrm (argc - 1, argv + 1);
  if (argc >= 2 && (strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0))
    {
      gen_usage (stdout);
      return 0;
    }
  const char *near = argc >= 2 ? app_cli_nearest (argv[1], generators) : NULL;
  if (argc >= 2)
    fprintf (stderr, "orrery gen: unknown generator '%s' (%s%s%s)\n", argv[1],
             near != NULL ? "did you mean " : "collective, transformer, dlrm",
             near != NULL ? near : "", near != NULL ? "?" : "");
  gen_usage (stderr);
  return SIM_ERROR_INPUT;
}
