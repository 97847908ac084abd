/* cmd_gen_transformer.c: the checks on gen transformer's option values and
 * its per-stage memory lines; see cmd_gen_transformer.h. */
#include "sim/app/cmd_gen_transformer.h"

#include <stdio.h>

#include "sim/error.h"

const char *const app_gen_model_options[6] = { "--layers", "--hidden", "--heads",
                                               "--ffn",    "--vocab",  "--seq" };

/* FALSE with ERROR set when OPTION was given a VALUE below 1. */
static gboolean
at_least_one (const char *option, gint value, GError **error)
{
  if (value == APP_GEN_ABSENT || value >= 1)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s %d: must be at least 1", option, value);
  return FALSE;
}

gboolean
app_gen_transformer_values (const TransformerOptions *o, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (o->model); i++)
    if (!at_least_one (app_gen_model_options[i], o->model[i], error))
      return FALSE;
  if (!at_least_one ("--micro-batch", o->b, error)
      || !at_least_one ("--global-batch", o->B, error))
    return FALSE;
  const char *stage0 = o->dist_opt ? "--distributed-optimizer" : "--no-dp-overlap";
  if (o->fsdp && o->zero >= 0 && o->zero <= 3 && o->zero != 3)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "--fsdp is ZeRO stage 3: it conflicts with --zero %d", o->zero);
  else if ((o->dist_opt || o->no_dp_overlap) && o->fsdp)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "%s is for ZeRO stage 0: it conflicts with --fsdp (ZeRO stage 3)", stage0);
  else if ((o->dist_opt || o->no_dp_overlap) && o->zero > 0 && o->zero <= 3)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "%s is for ZeRO stage 0: it conflicts with --zero %d", stage0, o->zero);
  else
    return TRUE;
  return FALSE;
}

void
app_gen_transformer_split_note (const WlGenTransformer *req)
{
  guint32 v = req->virtual_stages > 0 ? req->virtual_stages : 1;
  guint32 chunks = req->pp * v, layers = req->model.layers;
  if (chunks == 0 || layers % chunks == 0)
    return;
  g_autofree char *over = v > 1 ? g_strdup_printf ("%u model chunks (pp %u x virtual stages %u)",
                                                   chunks, req->pp, v)
                                : g_strdup_printf ("%u pipeline stages", chunks);
  fprintf (stderr,
           "orrery gen transformer: note: %u layers do not divide evenly over %s: the first "
           "%u hold %u layers, the other %u hold %u (Megatron-LM asserts an even split; "
           "orrery plan leaves such layouts out)\n",
           layers, over, layers % chunks, layers / chunks + 1, chunks - layers % chunks,
           layers / chunks);
}

/* One stage's memory line on stdout; with DEVICE, its capacity. */
static void
print_stage_memory (guint32 p, const WlStageMemory *mem, const WlDevice *device)
{
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  printf ("stage %u: parameters %.2f GiB, gradients %.2f GiB, optimizer %.2f GiB, "
          "activations %.2f GiB, total %.2f GiB",
          p, (double) mem->params_B / GiB, (double) mem->grads_B / GiB,
          (double) mem->optimizer_B / GiB, (double) mem->activations_B / GiB,
          (double) mem->total_B / GiB);
  if (device != NULL)
    printf (" of %.2f GiB", device->mem_capacity_B / GiB);
  printf ("\n");
}

/* See cmd_gen_transformer.h. */
gboolean
app_gen_transformer_memory (const WlGenTransformer *req, gboolean strict, GError **error)
{
  const WlDevice *device = req->device;
  if (device != NULL && req->fp8 && !(device->peak_flops[WL_DTYPE_FP8] > 0))
    fprintf (stderr, "orrery gen transformer: warning: a %s has no FP8 units; its FP8 GEMMs "
                     "run at the bf16 rate under the kernel compute model\n", device->name);
  g_autofree WlStageMemory *mem = g_new0 (WlStageMemory, req->pp);
  if (!wl_gen_transformer_memory (req, mem, error))
    return FALSE;
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  gint64 over = -1;
  for (guint32 p = 0; p < req->pp; p++)
    {
      print_stage_memory (p, &mem[p], device);
      if (device != NULL)
        {
          g_autofree char *verdict = wl_gen_transformer_verdict (p, &mem[p], device);
          printf ("%s\n", verdict);
        }
      if (device != NULL && (double) mem[p].total_B > device->mem_capacity_B)
        {
          if (over < 0)
            over = p;
          if (!strict)
            fprintf (stderr,
                     "orrery gen transformer: warning: stage %u needs %.2f GiB per rank, more than "
                     "the %.2f GiB of the %s\n",
                     p, (double) mem[p].total_B / GiB, device->mem_capacity_B / GiB, device->name);
        }
    }
  fflush (stdout);
  if (strict && over >= 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "stage %u needs %.2f GiB per rank, more than the %.2f GiB of the %s "
                   "(--strict-memory)",
                   (guint) over, (double) mem[over].total_B / GiB, device->mem_capacity_B / GiB,
                   device->name);
      return FALSE;
    }
  return TRUE;
}
