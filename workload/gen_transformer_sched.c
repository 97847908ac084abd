/* gen_transformer_sched.c: the order of a rank's forwards and backwards
 * (GPipe, 1F1B, interleaved 1F1B; see gen_transformer.h).  The order is a
 * function of the step index so that the memory model
 * (gen_transformer_mem.c) walks the very order the traces are written in.
 *
 * Interleaved 1F1B follows Megatron-LM,
 * megatron/core/pipeline_parallel/schedules.py
 * (forward_backward_pipelining_with_interleaving, get_pp_rank_microbatches,
 * get_schedule_table; NVIDIA/Megatron-LM at d98e8a6), with its default
 * microbatch_group_size_per_vp_stage = pp
 * (megatron/core/model_parallel_config.py). */
#include "workload/gen_transformer_private.h"

#include "sim/error.h"
#include "workload/wl_error.h"

gboolean
wl_tf_sched_check (const WlGenTransformer *r, guint32 M, GError **error)
{
  guint32 v = wl_tf_vstages (r);
  const char *msg = NULL;
  if (v == 1)
    return TRUE;
  if (r->schedule == WL_PIPE_GPIPE)
    msg = "virtual stages need the 1F1B schedule (interleaved 1F1B)";
  else if (r->pp < 2)
    msg = "virtual stages need pp > 1 (interleaved 1F1B, as Megatron-LM)";
  else if (M % r->pp != 0)
    msg = "with virtual stages the micro-batches per pipeline must be a multiple of pp "
          "(Megatron-LM's interleaved schedule)";
  else if ((guint64) r->pp * v > r->model.layers)
    msg = "more model chunks (pp x virtual stages) than layers";
  if (msg == NULL)
    return TRUE;
  g_set_error_literal (error, WL_ERROR, SIM_ERROR_INPUT, msg);
  return FALSE;
}

/* Forwards before the first backward on stage P: 1F1B pp - p - 1;
 * interleaved (pp - p - 1) x 2 + (v - 1) x pp; at most all of them. */
static guint32
warmup (const WlGenTransformer *r, guint32 M, guint32 p)
{
  guint32 v = wl_tf_vstages (r);
  guint64 w = v == 1 ? r->pp - p - 1 : (guint64) (r->pp - p - 1) * 2 + (guint64) (v - 1) * r->pp;
  return (guint32) MIN (w, (guint64) M * v);
}

/* Virtual micro-batch K's chunk and micro-batch (get_schedule_table with
 * groups of pp micro-batches): in each group of pp v, pp micro-batches run
 * through chunk 0, then the same pp through chunk 1, ...  Backwards take
 * the chunks in reverse. */
static WlTfStep
virtual_step (const WlGenTransformer *r, guint32 k, gboolean fwd)
{
  guint32 v = wl_tf_vstages (r), g = k / (r->pp * v), i = k % (r->pp * v);
  guint32 chunk = i / r->pp;
  return (WlTfStep) { .fwd = fwd, .chunk = fwd ? chunk : v - 1 - chunk,
                      .mb = g * r->pp + i % r->pp };
}

WlTfStep
wl_tf_step (const WlGenTransformer *r, guint32 M, guint32 p, guint32 i)
{
  if (r->schedule == WL_PIPE_GPIPE)
    return (WlTfStep) { .fwd = i < M, .chunk = 0, .mb = i < M ? i : i - M };
  guint32 total = M * wl_tf_vstages (r), w = warmup (r, M, p);
  if (i < w)
    return virtual_step (r, i, TRUE);
  guint32 j = i - w;
  if (j < 2 * (total - w))
    return virtual_step (r, j % 2 == 0 ? w + j / 2 : j / 2, j % 2 == 0);
  return virtual_step (r, i - total, FALSE);
}

void
wl_tf_schedule (Emit *e)
{
  guint32 steps = 2 * e->M * wl_tf_vstages (e->req);
  for (guint32 i = 0; i < steps; i++)
    {
      WlTfStep s = wl_tf_step (e->req, e->M, e->p, i);
      if (s.fwd)
        wl_tf_forward (e, s.chunk, s.mb);
      else
        wl_tf_backward (e, s.chunk, s.mb);
    }
}
