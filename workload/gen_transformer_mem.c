/* gen_transformer_mem.c: per-stage memory of a transformer iteration and
 * its verdict against a device (the formulas and their sources are in
 * gen_transformer.h).  Activations are counted by walking the stage's own
 * order of forwards and backwards (wl_tf_step), so the micro-batches in
 * flight are those of the schedule the traces follow. */
#include "workload/gen_transformer_private.h"

/* Activation bytes of one micro-batch: per layer (kept for the backward
 * under the request's recomputation, and with none), and the extras of the
 * first model chunk (embedding) and the last (final norm, LM head, loss). */
typedef struct
{
  guint64 layer_B, none_B, first_B, last_B;
} ActCosts;

/* 1 when the model trains with dropout (a 1-byte mask per dropout): GPT
 * style, Megatron-LM's default hidden dropout 0.1; 0 for gated-FFN (Llama
 * style) models, trained without dropout, where PyTorch's dropout at p = 0
 * returns its input and keeps no mask. */
static guint64
dropout_masks (const WlTransformerModel *m)
{
  return m->gated_ffn ? 0 : 1;
}

/* One layer's activations kept until its backward under recomputation RC
 * (Korthikanti et al. 2022, Section 4, with the changes in the header). */
static guint64
layer_bytes (const WlGenTransformer *r, WlRecompute rc)
{
  const WlTransformerModel *m = &r->model;
  guint64 cp = r->cp > 0 ? r->cp : 1, tp = r->tp, sp = r->no_sequence_parallel ? 1 : tp;
  guint64 tok = (guint64) m->seq * r->micro_batch / cp, h = m->hidden, a = m->heads;
  guint64 kv = m->kv_heads > 0 ? m->kv_heads : a, f = m->ffn;
  guint64 k = m->experts > 0 ? m->top_k : 1;
  if (rc == WL_RECOMPUTE_FULL)
    return 2 * tok * h / sp; /* the layer's input */
  /* Outside the tensor-parallel regions (split only by sequence
   * parallelism): norm inputs 2 + 2, QKV and FC1 inputs 2 + 2, the two
   * dropout masks 1 + 1 (none without dropout). */
  guint64 outside = (8 + 2 * dropout_masks (m)) * tok * h / sp;
  /* Inside (split by tp): Q 2, K and V 2 kv / a each, the attention output
   * 2; the FFN intermediates (top-k copies with experts): GeLU's input and
   * output 2 f + 2 f, or SwiGLU's input (gate and up) 4 f and output 2 f. */
  guint64 inside = tok * (4 * h + 4 * h * kv / a) + k * tok * (m->gated_ffn ? 6 : 4) * f;
  /* The attention core: unfused, softmax output 2, its dropout mask 1 and
   * the dropout output 2 per score (a s x s / cp scores); FlashAttention
   * keeps only the fp32 log-sum-exp per query and head. */
  guint64 core = r->attention == WL_ATTENTION_UNFUSED ? 5 * a * tok * m->seq : 4 * a * tok;
  if (rc == WL_RECOMPUTE_SELECTIVE)
    core = 0;
  return outside + inside / tp + core / tp;
}

static ActCosts
act_costs (const WlGenTransformer *r)
{
  const WlTransformerModel *m = &r->model;
  guint64 cp = r->cp > 0 ? r->cp : 1, tp = r->tp, sp = r->no_sequence_parallel ? 1 : tp;
  guint64 tok = (guint64) m->seq * r->micro_batch / cp, h = m->hidden;
  return (ActCosts) {
    .layer_B = layer_bytes (r, r->recompute),
    .none_B = layer_bytes (r, WL_RECOMPUTE_NONE),
    .first_B = dropout_masks (m) * tok * h / sp,                /* embedding dropout mask */
    .last_B = 4 * tok * h / sp + 4 * tok * wl_tf_padded_vocab (r) / tp,      /* norm, head input, fp32 logits */
  };
}

/* The peak of stage P's activations over its order, and the chunk
 * forwards held then at most (O->in_flight); plus, with recomputation, one
 * layer's rematerialised activations (the layer in backward). */
static void
peak_activations (const WlGenTransformer *r, guint32 M, guint32 p, WlStageMemory *o)
{
  ActCosts a = act_costs (r);
  guint32 n = r->pp * wl_tf_vstages (r), steps = 2 * M * wl_tf_vstages (r);
  guint64 cur = 0, peak = 0;
  guint32 live = 0;
  o->in_flight = 0;
  for (guint32 i = 0; i < steps; i++)
    {
      WlTfStep s = wl_tf_step (r, M, p, i);
      guint32 k = s.chunk * r->pp + p;
      guint64 bytes = wl_tf_chunk_layers (r, k) * a.layer_B + (k == 0 ? a.first_B : 0)
                      + (k + 1 == n ? a.last_B : 0);
      cur = s.fwd ? cur + bytes : cur - bytes;
      live = s.fwd ? live + 1 : live - 1;
      peak = MAX (peak, cur);
      o->in_flight = MAX (o->in_flight, live);
    }
  o->layer_B = a.layer_B;
  o->activations_B = peak + (o->layers > 0 ? a.none_B - a.layer_B : 0);
}

gboolean
wl_gen_transformer_memory (const WlGenTransformer *r, WlStageMemory *out, GError **error)
{
  g_return_val_if_fail (r != NULL && out != NULL, FALSE);
  guint32 M = wl_gen_transformer_microbatches (r, error);
  if (M == 0)
    return FALSE;
  const WlTransformerModel *m = &r->model;
  guint64 tp = r->tp, emb = wl_tf_padded_vocab (r) * m->hidden, cp = r->cp > 0 ? r->cp : 1;
  guint64 dp = r->dp, edp = r->dp / ep_of (r);
  /* Optimizer shards: Megatron's distributed optimizer over DP x CP,
   * ZeRO over the DP group (the expert-DP group for experts). */
  guint64 opt = r->distributed_optimizer ? dp * cp : r->zero >= 1 ? dp : 1;
  guint64 eopt = r->distributed_optimizer ? edp * cp : r->zero >= 1 ? edp : 1;
  for (guint32 p = 0; p < r->pp; p++)
    {
      WlStageMemory *o = &out[p];
      o->layers = stage_layers (r, p);
      guint64 params = o->layers * dense_part (m) + (p == 0 ? emb : 0)
                       + (p + 1 == r->pp ? emb : 0);
      guint64 n = params / tp, ne = o->layers * expert_part (r) / tp;
      o->params_B = r->zero >= 3 ? 2 * n / dp + 2 * ne / edp : 2 * n + 2 * ne;
      if (r->zero >= 3 && dp > 1)
        {
          /* The largest unit gathered at once: a layer, or the embedding /
           * LM head on the first / last stage; twice (current + prefetch). */
          guint64 unit = layer_local (r);
          if (p == 0 || p + 1 == r->pp)
            unit = MAX (unit, emb);
          o->params_B += 2 * (2 * (unit / tp));
        }
      /* FP8: Transformer Engine's FP8 copy of each layer weight and its
       * transpose, kept from the first micro-batch to the last (TE 1.10
       * module/base.py get_fp8_workspace, cache_name "weight"): 1 + 1 bytes
       * per element. */
      if (r->fp8)
        o->params_B += 2 * (o->layers * layer_local (r) / tp);
      o->grads_B = r->zero >= 2 ? 4 * n / dp + 4 * ne / edp : 4 * n + 4 * ne;
      o->optimizer_B = 12 * n / opt + 12 * ne / eopt;
      peak_activations (r, M, p, o);
      o->total_B = o->params_B + o->grads_B + o->optimizer_B + o->activations_B;
    }
  return TRUE;
}

char *
wl_gen_transformer_verdict (guint32 p, const WlStageMemory *mem, const WlDevice *device)
{
  const double GiB = 1024.0 * 1024.0 * 1024.0;
  double need = (double) mem->total_B, have = device->mem_capacity_B;
  if (need <= have)
    return g_strdup_printf ("stage %u: fits, %.1f of %.1f GiB", p, need / GiB, have / GiB);
  return g_strdup_printf ("stage %u: does not fit by %.1f GiB", p, (need - have) / GiB);
}
