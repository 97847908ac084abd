/* gen_transformer_private.h: what the transformer generator's files share:
 * the model's parameter counts, a micro-batch's costs, the rank layout and
 * the emission state (gen_transformer_emit.c writes a rank's nodes,
 * gen_transformer_sched.c orders them, gen_transformer_mem.c counts memory).
 *
 * Layer: workload.  May include: system, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GEN_TRANSFORMER_PRIVATE_H
#define ORRERY_WORKLOAD_GEN_TRANSFORMER_PRIVATE_H

#include <glib.h>

#include "workload/chakra.h"
#include "workload/gen_transformer.h"

static inline guint64
ffn_mats (const WlTransformerModel *m)
{
  return m->gated_ffn ? 3 : 2;
}

/* Q and output projections h x h, K and V h x (h kv_heads / heads). */
static inline guint64
attn_params (const WlTransformerModel *m)
{
  guint64 h = m->hidden, kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
  return 2 * h * h + 2 * h * (h * kv / m->heads);
}

/* One FFN (one expert). */
static inline guint64
ffn_params (const WlTransformerModel *m)
{
  return ffn_mats (m) * m->hidden * m->ffn;
}

static inline guint64
layer_params (const WlTransformerModel *m)
{
  return attn_params (m) + (m->experts > 0 ? m->experts : 1) * ffn_params (m);
}

static inline guint32
ep_of (const WlGenTransformer *r)
{
  return r->ep > 0 ? r->ep : 1;
}

/* A layer's parameters on one rank (all tp slices together), synchronised
 * over the full DP group (dense) or the expert-DP group (experts). */
static inline guint64
dense_part (const WlTransformerModel *m)
{
  return m->experts > 0 ? attn_params (m) : layer_params (m);
}

static inline guint64
expert_part (const WlGenTransformer *r)
{
  return r->model.experts > 0 ? r->model.experts / ep_of (r) * ffn_params (&r->model) : 0;
}

static inline guint64
layer_local (const WlGenTransformer *r)
{
  return dense_part (&r->model) + expert_part (r);
}

/* The bytes a member of ZeRO-3's all-gather of PARAMS parameters over N
 * ranks contributes (its 1/n shard of the rank's 1/tp, 2 bytes each): what
 * the generator gathers and the bound's floor counts. */
static inline guint64
wl_tf_zero3_shard (const WlGenTransformer *r, guint64 params, guint32 n)
{
  return 2 * (params / r->tp) / n;
}

/* The comm_size of an MoE layer's dispatch or combine all-to-all on the EP
 * group: the rank's sequence-parallel share of ACT_BYTES of activations,
 * each token sent to top_k experts. */
static inline guint64
wl_tf_ep_a2a_bytes (const WlGenTransformer *r, guint64 act_bytes)
{
  return r->model.top_k * act_bytes / r->tp;
}

/* The vocabulary as Megatron-LM holds it: padded to a multiple of 128 x tp
 * (megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding,
 * --make-vocab-size-divisible-by 128 by default), so that every TP rank
 * holds the same number of rows: GPT-3's 50,257 are 51,200 at TP 8. */
static inline guint64
wl_tf_padded_vocab (const WlGenTransformer *r)
{
  /* tp >= 1, checked by the generator; MAX says so to the analyzer. */
  guint64 unit = 128 * (guint64) MAX (r->tp, 1u);
  return (r->model.vocab + unit - 1) / unit * unit;
}

/* Forward FLOPs of one micro-batch on all tp ranks together (the LM head
 * over the padded vocabulary, as its kernels run it). */
typedef struct
{
  guint64 attn, mlp, head, tokens, act_bytes;
} Costs;

static inline Costs
costs_of (const WlGenTransformer *r)
{
  const WlTransformerModel *m = &r->model;
  guint64 b = r->micro_batch, s = m->seq, h = m->hidden, t = b * s;
  return (Costs) { .attn = 2 * t * attn_params (m) + 4 * b * s * s * h,
                   .mlp = 2 * (guint64) (m->experts > 0 ? m->top_k : 1) * ffn_mats (m) * t * h * m->ffn,
                   .head = 2 * t * h * wl_tf_padded_vocab (r),
                   .tokens = t,
                   .act_bytes = 2 * t * h };
}

/* Virtual stages (model chunks per stage), at least 1. */
static inline guint32
wl_tf_vstages (const WlGenTransformer *r)
{
  return r->virtual_stages > 0 ? r->virtual_stages : 1;
}

/* Layers of model chunk K (0 .. pp v - 1; chunk C of stage P is K = C pp +
 * P, as Megatron-LM interleaves): L / (pp v), the first L mod (pp v)
 * chunks one more.  With v = 1 chunk K is stage K. */
static inline guint32
wl_tf_chunk_layers (const WlGenTransformer *r, guint32 k)
{
  guint32 n = r->pp * wl_tf_vstages (r);
  return r->model.layers / n + (k < r->model.layers % n ? 1 : 0);
}

/* Layers held by stage P: its chunks' together. */
static inline guint32
stage_layers (const WlGenTransformer *r, guint32 p)
{
  guint32 n = 0;
  for (guint32 c = 0; c < wl_tf_vstages (r); c++)
    n += wl_tf_chunk_layers (r, c * r->pp + p);
  return n;
}

/* Context-parallel degree, at least 1. */
static inline guint32
wl_tf_cp (const WlGenTransformer *r)
{
  return r->cp > 0 ? r->cp : 1;
}

/* A bucket's parameter shards to all-gather after the optimizer step:
 * its parameters (all tp ranks), the group that sharded them (one of
 * Emit's names) and its size. */
typedef struct
{
  guint64 params;
  const char *pg;
  guint32 n;
} WlTfGather;

typedef struct
{
  const WlGenTransformer *req;
  Costs c;
  guint32 M, t, d, p;
  guint32 c_idx; /* the rank's CP index */
  WlChakraWriter *w;
  GError **error;
  gboolean ok;
  guint64 next_id, last, extra;
  gboolean has_last, has_extra; /* extra: a second dependency, used once */
  guint64 join;                 /* a dependency of the next node on the chain */
  gboolean has_join;
  guint64 duration_us;          /* of the next node emitted (compute only) */
  char tp_pg[16], dp_pg[16], ep_pg[16], edp_pg[16];
  char amax_pg[16]; /* FP8 amax reduction: the stage's TP x CP x DP ranks */
  /* Data-parallel gradients (gen_transformer_emit.c): the parameters in
   * the open bucket, the gradient collectives the optimizer step waits for
   * (guint64 node ids), the buckets whose updated shards are all-gathered
   * after the step (WlTfGather: ZeRO 1 and 2, the distributed optimizer),
   * and those left for the end of the backward (no overlap). */
  guint64 bucket;
  GArray *grad_ids, *gathers, *deferred;
  GArray *kernel_cache; /* gen_transformer_emit.c's; freed by wl_tf_emit_clear */
} Emit;

/* Megatron-LM's order: rank = t + tp (c + cp (d + dp p)) for TP index t,
 * CP index c, DP index d, stage p. */
static inline guint32
rank_of (const WlGenTransformer *r, guint32 t, guint32 c, guint32 d, guint32 p)
{
  return t + r->tp * (c + wl_tf_cp (r) * (d + r->dp * p));
}

/* A compute node's kernels (the `kernels` attribute) and their totals. */
typedef struct
{
  GString *s;
  guint64 flops, bytes;
} WlTfKernels;

void wl_tf_kernels_init (WlTfKernels *k);
void wl_tf_kernels_clear (WlTfKernels *k);

/* Append one rank's kernels of a block's forward or backward (BWD)
 * (gen_transformer_kernels.c): the core attention alone (selective
 * recomputation), the attention block, the MLP block, the LM head, the
 * embedding; and the optimizer step over PARAMS parameters. */
void wl_tf_kernels_core (const Emit *e, WlTfKernels *k, gboolean bwd);
void wl_tf_kernels_attn (const Emit *e, WlTfKernels *k, gboolean bwd);
void wl_tf_kernels_mlp (const Emit *e, WlTfKernels *k, gboolean bwd);
void wl_tf_kernels_head (const Emit *e, WlTfKernels *k, gboolean bwd);
void wl_tf_kernels_embed (const Emit *e, WlTfKernels *k, gboolean bwd);
void wl_tf_kernels_optimizer (WlTfKernels *k, guint64 params, const WlGenTransformer *r);
void wl_tf_kernels_coalesce (WlTfKernels *k, guint64 params, gboolean unflatten);
void wl_tf_kernels_grad_accum (WlTfKernels *k, guint64 params);

/* Transformer Engine's FP8 bookkeeping (gen_transformer_kernels.c): the
 * FP8 copies of LAYERS layers' weights; the amax concatenation and the
 * history and scale update around the amax all-reduce. */
void wl_tf_kernels_fp8_weights (const Emit *e, WlTfKernels *k, guint64 layers);
void wl_tf_kernels_fp8_amax (WlTfKernels *k, guint64 n_amax);

/* Delayed scaling's amax history, fp32 values per FP8 tensor: NeMo's
 * fp8_amax_history_len 1024 with fp8_amax_compute_algo max (NeMo 24.09
 * examples/nlp/language_modeling/conf/megatron_gpt_config.yaml and the
 * NeMo-Framework-Launcher training configs; Megatron-core's own default is
 * 1). */
#define WL_TF_FP8_AMAX_HISTORY 1024

/* FP8 tensors whose amaxes a transformer layer's Transformer Engine
 * modules register per region (TE 1.10 module/base.py
 * init_fp8_meta_tensors: 3 per GEMM forward, 2 backward): QKV, output
 * projection, FC1, FC2 (one GEMM each) and DotProductAttention (num_gemms
 * = 3, attention.py), 7 GEMMs: 21 forward, 14 backward. */
#define WL_TF_FP8_AMAX_FWD 21
#define WL_TF_FP8_AMAX_BWD 14

/* Adam's arithmetic per parameter, as Apex's multi_tensor_adam.cu does it
 * (counted: m and v updates 7, bias corrections and the denominator 4,
 * weight decay and the step 5). */
#define WL_TF_ADAM_FLOPS 16

/* The parameters one rank of stage P updates in its optimizer step
 * (gen_transformer_emit.c). */
guint64 wl_tf_step_params (const WlGenTransformer *r, guint32 p);

/* Emit micro-batch MB's forward (backward) of model chunk CHUNK (0 ..
 * virtual stages - 1) of the rank's stage (gen_transformer_emit.c). */
void wl_tf_forward (Emit *e, guint32 chunk, guint32 mb);
void wl_tf_backward (Emit *e, guint32 chunk, guint32 mb);

/* One step of a stage's order: a forward or backward of micro-batch MB
 * through the stage's chunk CHUNK (0 .. virtual stages - 1). */
typedef struct
{
  gboolean fwd;
  guint32 chunk, mb;
} WlTfStep;

/* FALSE with ERROR set (WL_ERROR, SIM_ERROR_INPUT) when REQ's virtual
 * stages cannot be scheduled with M micro-batches (gen_transformer_sched.c). */
gboolean wl_tf_sched_check (const WlGenTransformer *req, guint32 M, GError **error);

/* Step I (0 .. 2 M v - 1) of stage P's order under REQ's schedule. */
WlTfStep wl_tf_step (const WlGenTransformer *req, guint32 M, guint32 p, guint32 i);

/* Free what emitting the rank's nodes kept (gen_transformer_emit.c). */
void wl_tf_emit_clear (Emit *e);

/* Emit the rank's whole iteration in its schedule's order
 * (gen_transformer_sched.c). */
void wl_tf_schedule (Emit *e);

#endif /* ORRERY_WORKLOAD_GEN_TRANSFORMER_PRIVATE_H */
