/* gen_transformer_kernels.c: the GPU kernels Megatron-LM (core, with
 * Transformer Engine) runs for each block of a transformer layer, as the
 * `kernels` attribute of a compute node (grammar: issue 16's interface),
 * with their FLOPs and bytes.  Shapes are one TP / CP rank's.
 *
 * Sources: Megatron-LM core's TransformerLayer (norm, self-attention with
 * QKV and output projections, dropout + residual add; norm, MLP with FC1
 * (2 f wide when gated: SwiGLU), activation, FC2, dropout + add),
 * megatron/core/transformer/{transformer_layer,attention,mlp}.py; the LM
 * head and vocab-parallel cross entropy, megatron/core/models/gpt/
 * gpt_model.py and megatron/core/tensor_parallel/cross_entropy.py; the 2021
 * unfused core attention (batched QK^T, fused scale-mask-softmax, dropout,
 * batched AV) of Megatron-LM v2.5, megatron/model/transformer.py
 * (ParallelAttention); ring attention with causal load balancing as
 * Transformer Engine's AttnFuncWithCPAndKVP2P splits it (step 0 causal over
 * the rank's two chunks, then cp - 1 non-causal pieces of half the rank's
 * queries or half the visiting keys: each piece the same FLOPs).
 *
 * Bytes of memory-bound kernels are reads + writes of their bf16 tensors
 * (estimates; masks 1 byte per element); FLOPs of memory-bound kernels are
 * left at 0, so num_ops counts the GEMMs and attention only.
 */
#include "workload/gen_transformer_private.h"

/* The shapes of one rank's share of a micro-batch. */
typedef struct
{
  guint64 tl;  /* tokens on the rank's CP slice: b s / cp */
  guint64 tsp; /* tokens of its elementwise kernels: tl / tp with SP, else tl */
  guint64 b, s, h, d, hq, hkv, f, moe_k, vocab, tp;
  gboolean llama; /* RMSNorm, SwiGLU, RoPE (gated FFN); else LayerNorm, GeLU */
  gboolean fp8;   /* the layers' GEMMs in FP8 (Transformer Engine) */
  gboolean sp;    /* Transformer Engine's sequence_parallel: TP > 1 with SP */
  guint64 experts; /* experts on the rank (1: a dense FFN) */
  const char *dt; /* their dtype */
} Dims;

static Dims
dims_of (const Emit *e)
{
  const WlGenTransformer *r = e->req;
  const WlTransformerModel *m = &r->model;
  guint64 tp = r->tp, cp = wl_tf_cp (r), kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
  Dims d = { .tp = tp, .b = r->micro_batch, .s = m->seq, .h = m->hidden, .d = m->hidden / m->heads,
             .hq = m->heads / tp, .hkv = kv / tp, .f = m->ffn / tp,
             .moe_k = m->experts > 0 ? m->top_k : 1, .llama = m->gated_ffn, .fp8 = r->fp8,
             .dt = r->fp8 ? "fp8" : "bf16" };
  d.sp = tp > 1 && !r->no_sequence_parallel;
  d.experts = m->experts > 0 ? m->experts / ep_of (r) : 1;
  d.tl = d.b * d.s / cp;
  d.tsp = r->no_sequence_parallel ? d.tl : d.tl / tp;
  /* The padded vocabulary's rows split evenly over TP ranks. */
  d.vocab = wl_tf_padded_vocab (r) / tp;
  return d;
}

void
wl_tf_kernels_init (WlTfKernels *k)
{
  *k = (WlTfKernels) { .s = g_string_new (NULL) };
}

void
wl_tf_kernels_clear (WlTfKernels *k)
{
  g_string_free (k->s, TRUE);
  k->s = NULL;
}

static void
sep (WlTfKernels *k)
{
  if (k->s->len > 0)
    g_string_append_c (k->s, ';');
}

static void
count_of (WlTfKernels *k, guint64 count)
{
  if (count != 1)
    g_string_append_printf (k->s, ",count=%" G_GUINT64_FORMAT, count);
}

/* C[m x n] = A[m x k] B[k x n], BATCH products, COUNT launches. */
static void
gemm (WlTfKernels *k, guint64 m, guint64 n, guint64 kk, guint64 batch, const char *dt,
      guint64 count)
{
  if (count == 0)
    return;
  sep (k);
  g_string_append_printf (k->s, "gemm:m=%" G_GUINT64_FORMAT ",n=%" G_GUINT64_FORMAT
                          ",k=%" G_GUINT64_FORMAT, m, n, kk);
  if (batch != 1)
    g_string_append_printf (k->s, ",batch=%" G_GUINT64_FORMAT, batch);
  if (!g_str_equal (dt, "bf16")) /* bf16: the grammar's default */
    g_string_append_printf (k->s, ",dtype=%s", dt);
  count_of (k, count);
  guint64 in = g_str_equal (dt, "fp8") ? 1 : 2;
  k->flops += 2 * m * n * kk * batch * count;
  k->bytes += ((m * kk + kk * n) * in + 2 * m * n) * batch * count;
}

/* A GEMM's backward: the input gradient dX = dY W^T and the weight
 * gradient dW = X^T dY (Transformer Engine runs both in the GEMM's dtype). */
static void
gemm_bwd (WlTfKernels *k, guint64 m, guint64 n, guint64 kk, guint64 batch, const char *dt)
{
  gemm (k, m, kk, n, batch, dt, 1);
  gemm (k, kk, n, m, batch, dt, 1);
}

/* A memory-bound kernel; FLOPS (0 but for the embedding and Adam, whose
 * nodes have no other kernel to time them under the roofline rule). */
static void
mem_ops (WlTfKernels *k, guint64 bytes, const char *what, guint64 flops)
{
  sep (k);
  g_string_append_printf (k->s, "mem:bytes=%" G_GUINT64_FORMAT ",what=%s", bytes, what);
  if (flops > 0)
    g_string_append_printf (k->s, ",flops=%" G_GUINT64_FORMAT, flops);
  k->bytes += bytes;
  k->flops += flops;
}

static void
mem (WlTfKernels *k, guint64 bytes, const char *what)
{
  mem_ops (k, bytes, what, 0);
}

/* A layer's GEMM, forward or backward, with Transformer Engine's FP8
 * casts (Transformer Engine 1.10, the release NeMo 24.09 shipped:
 * pytorch/module/linear.py _Linear, layernorm_linear.py _LayerNormLinear,
 * base.py grad_output_preprocess).  Bytes per element: a cast reads bf16
 * and writes FP8 (2 + 1), a fused cast-transpose writes the transpose too
 * (2 + 1 + 1), an FP8 transpose reads and writes FP8 (1 + 1).
 *
 * Forward: a GEMM after the norm (NORMED: QKV and FC1, column-parallel,
 * LayerNormLinear) gets its input in FP8 from the norm itself; the others
 * (the output projection and FC2, row-parallel, Linear) cast their input,
 * with its transpose for the weight gradient (fp8_cast_transpose_fused),
 * but under sequence parallelism the cast alone (cast_to_fp8: the
 * transpose is made in the backward).
 *
 * Backward: the output gradient dY cast with its transpose (column-
 * parallel, or no SP); a row-parallel GEMM under SP casts its rank's
 * sequence shard (m / tp rows), all-gathers it in FP8 and transposes the
 * gathered dY (tex.fp8_transpose).  The input's transpose for the weight
 * gradient: made in the backward for a normed GEMM (the norm wrote no
 * transpose) and under SP. */
static void
layer_gemm (WlTfKernels *k, const Dims *d, guint64 m, guint64 n, guint64 kk, gboolean normed)
{
  if (d->fp8 && !normed)
    mem (k, (d->sp ? 3 : 4) * m * kk, "cast");
  gemm (k, m, n, kk, 1, d->dt, 1);
}

static void
layer_gemm_bwd (WlTfKernels *k, const Dims *d, guint64 m, guint64 n, guint64 kk, gboolean normed)
{
  if (d->fp8 && d->sp && !normed)
    {
      mem (k, 3 * (m / d->tp) * n, "cast");
      mem (k, 2 * m * n, "transpose");
    }
  else if (d->fp8)
    mem (k, 4 * m * n, "cast");
  if (d->fp8 && (normed || d->sp))
    mem (k, 2 * m * kk, "transpose");
  gemm_bwd (k, m, n, kk, 1, d->dt);
}

/* A FlashAttention kernel: COUNT launches of SQ queries against SKV keys. */
static void
attn (WlTfKernels *k, const Dims *d, gboolean bwd, guint64 sq, guint64 skv, gboolean causal,
      guint64 count)
{
  if (count == 0)
    return;
  sep (k);
  /* hkv = hq, skv = sq and causal = 0 are the grammar's defaults. */
  g_string_append_printf (k->s, "attn:dir=%s,b=%" G_GUINT64_FORMAT ",hq=%" G_GUINT64_FORMAT,
                          bwd ? "bwd" : "fwd", d->b, d->hq);
  if (d->hkv != d->hq)
    g_string_append_printf (k->s, ",hkv=%" G_GUINT64_FORMAT, d->hkv);
  g_string_append_printf (k->s, ",sq=%" G_GUINT64_FORMAT, sq);
  if (skv != sq)
    g_string_append_printf (k->s, ",skv=%" G_GUINT64_FORMAT, skv);
  g_string_append_printf (k->s, ",d=%" G_GUINT64_FORMAT "%s", d->d, causal ? ",causal=1" : "");
  count_of (k, count);
  /* 4 b hq sq skv d forward, halved when causal; backward 2.5 x. */
  guint64 fwd = 4 * d->b * d->hq * sq * skv * d->d / (causal ? 2 : 1);
  k->flops += (bwd ? fwd * 5 / 2 : fwd) * count;
  /* Q, K, V and O read / written once; the backward about twice that. */
  k->bytes += 2 * d->b * d->d * (2 * d->hq * sq + 2 * d->hkv * skv) * (bwd ? 2 : 1) * count;
}

/* The core attention (QK^T, softmax, AV), forward or backward, as one rank
 * runs it. */
void
wl_tf_kernels_core (const Emit *e, WlTfKernels *k, gboolean bwd)
{
  Dims d = dims_of (e);
  guint64 cp = wl_tf_cp (e->req), sq = d.s / cp;
  if (e->req->attention == WL_ATTENTION_FLASH)
    {
      /* Ring attention (cp = 1: one causal kernel): the diagonal piece, then
       * c pieces of all local queries against half the visiting keys (from
       * lower CP ranks) and cp - 1 - c of half the queries against all. */
      attn (k, &d, bwd, sq, sq, TRUE, 1);
      attn (k, &d, bwd, sq, sq / 2, FALSE, e->c_idx);
      attn (k, &d, bwd, sq / 2, sq, FALSE, cp - 1 - e->c_idx);
      return;
    }
  guint64 batch = d.b * d.hq, scores = batch * d.s * d.s;
  if (!bwd)
    {
      gemm (k, d.s, d.s, d.d, batch, "bf16", 1);
      mem (k, 4 * scores, "softmax");
      mem (k, 5 * scores, "dropout");
      gemm (k, d.s, d.d, d.s, batch, "bf16", 1);
      return;
    }
  gemm_bwd (k, d.s, d.d, d.s, batch, "bf16");
  mem (k, 5 * scores, "dropout");
  mem (k, 6 * scores, "softmax");
  gemm_bwd (k, d.s, d.s, d.d, batch, "bf16");
}

static const char *
norm_name (const Dims *d)
{
  return d->llama ? "rmsnorm" : "layernorm";
}

/* The forward norm before QKV or FC1: bf16 read, its output written in
 * bf16, or in FP8 (1 byte) when the GEMM after it is FP8 (Transformer
 * Engine's LayerNormLinear: rmsnorm_fwd_fp8 / layernorm_fwd_fp8). */
static void
norm_fwd (WlTfKernels *k, const Dims *d)
{
  mem (k, (d->fp8 ? 3 : 4) * d->tsp * d->h, norm_name (d));
}

/* Dropout + residual add (GPT: read x and the residual, write, 1-byte
 * mask); Llama has no dropout: the add alone. */
static void
residual (WlTfKernels *k, const Dims *d)
{
  if (d->llama)
    mem (k, 6 * d->tsp * d->h, "add");
  else
    mem (k, 7 * d->tsp * d->h, "dropout_add");
}

/* The attention block: norm, QKV, RoPE, core attention, output
 * projection, dropout + add; backward in reverse. */
/* Megatron-LM's eager PyTorch layer of 2021-2022 (the unfused attention's
 * code, megatron/model/transformer.py and megatron/mpu/layers.py of
 * v2.5-v3.0), whose elementwise work around the GEMMs was not fused into
 * them as Transformer Engine's is (bias in the GEMM epilogue, bias
 * gradients in the weight-gradient GEMM's):
 * - the QKV projection keeps its bias (ColumnParallelLinear, skip_bias_add
 *   False): F.linear on the 3-D input is a matmul then `output += bias`
 *   (read 2, write 2 bytes per output element); its backward sums the
 *   output gradient over the tokens (read 2);
 * - the other three linears pass their bias to the fused bias-GeLU or
 *   bias-dropout-add (skip_bias_add True), whose backward returns the
 *   input's gradient for the bias too: autograd sums it to the bias's
 *   shape (read 2 per element);
 * - the context [b np s hn] -> [s b np hn] permute(...).contiguous() (read
 *   2, write 2); backward, the gradient's reshape copies it back (4);
 * - split_tensor_along_last_dim's q, k, v views of the QKV output: their
 *   gradients are concatenated backward (SplitBackward: read 2, write 2);
 * - the residual stream feeds both the norm and the residual add, so
 *   autograd adds the two gradients (read 2 + 2, write 2) after each
 *   block's norm backward.
 * Llama-style layers (no bias) take all but the bias terms. */
static gboolean
eager (const Emit *e)
{
  return e->req->attention == WL_ATTENTION_UNFUSED;
}

/* Autograd's sum of the residual stream's two gradients. */
static void
grad_add (const Emit *e, WlTfKernels *k, const Dims *d)
{
  if (eager (e))
    mem (k, 6 * d->tsp * d->h, "grad_add");
}

/* A bias gradient: OUT elements of the output gradient read and summed. */
static void
bias_grad (const Emit *e, WlTfKernels *k, const Dims *d, guint64 out)
{
  if (eager (e) && !d->llama)
    mem (k, 2 * out, "bias_grad");
}

void
wl_tf_kernels_attn (const Emit *e, WlTfKernels *k, gboolean bwd)
{
  Dims d = dims_of (e);
  guint64 qkv = (d.hq + 2 * d.hkv) * d.d, rope = 4 * d.tl * (d.hq + d.hkv) * d.d;
  gboolean bias = eager (e) && !d.llama;
  if (!bwd)
    {
      norm_fwd (k, &d);
      layer_gemm (k, &d, d.tl, qkv, d.h, TRUE);
      if (bias)
        mem (k, 4 * d.tl * qkv, "bias");
      if (d.llama)
        mem (k, rope, "rope");
      wl_tf_kernels_core (e, k, FALSE);
      if (eager (e))
        mem (k, 4 * d.tl * d.hq * d.d, "transpose");
      layer_gemm (k, &d, d.tl, d.h, d.hq * d.d, FALSE);
      residual (k, &d);
      return;
    }
  residual (k, &d);
  bias_grad (e, k, &d, d.tsp * d.h);
  layer_gemm_bwd (k, &d, d.tl, d.h, d.hq * d.d, FALSE);
  if (eager (e))
    mem (k, 4 * d.tl * d.hq * d.d, "transpose");
  wl_tf_kernels_core (e, k, TRUE);
  if (eager (e))
    mem (k, 4 * d.tl * qkv, "concat");
  if (d.llama)
    mem (k, rope, "rope");
  bias_grad (e, k, &d, d.tl * qkv);
  layer_gemm_bwd (k, &d, d.tl, qkv, d.h, TRUE);
  mem (k, 6 * d.tsp * d.h, norm_name (&d));
  grad_add (e, k, &d);
}

/* The MLP block: norm, FC1, GeLU or SwiGLU, FC2, dropout + add (an MoE
 * layer's experts run top_k x the tokens). */
void
wl_tf_kernels_mlp (const Emit *e, WlTfKernels *k, gboolean bwd)
{
  Dims d = dims_of (e);
  guint64 m = d.moe_k * d.tl, fc1 = (d.llama ? 2 : 1) * d.f;
  const char *act = d.llama ? "swiglu" : "gelu";
  /* GeLU reads and writes f per token; SwiGLU reads 2 f, writes f; their
   * backward reads the input(s) and dy and writes dx. */
  guint64 act_fwd = (d.llama ? 6 : 4) * m * d.f, act_bwd = (d.llama ? 10 : 6) * m * d.f;
  if (!bwd)
    {
      norm_fwd (k, &d);
      layer_gemm (k, &d, m, fc1, d.h, TRUE);
      mem (k, act_fwd, act);
      layer_gemm (k, &d, m, d.h, d.f, FALSE);
      residual (k, &d);
      return;
    }
  residual (k, &d);
  bias_grad (e, k, &d, d.tsp * d.h);
  layer_gemm_bwd (k, &d, m, d.h, d.f, FALSE);
  mem (k, act_bwd, act);
  bias_grad (e, k, &d, m * fc1);
  layer_gemm_bwd (k, &d, m, fc1, d.h, TRUE);
  mem (k, 6 * d.tsp * d.h, norm_name (&d));
  grad_add (e, k, &d);
}

/* The LM head (last chunk): final norm, the logits GEMM (bf16 under
 * Transformer Engine's FP8 recipes too), vocab-parallel cross entropy
 * (bf16 logits read, fp32 exponentials written and read again; backward
 * reads them and writes bf16 gradients). */
void
wl_tf_kernels_head (const Emit *e, WlTfKernels *k, gboolean bwd)
{
  Dims d = dims_of (e);
  if (!bwd)
    {
      mem (k, 4 * d.tsp * d.h, norm_name (&d));
      gemm (k, d.tl, d.vocab, d.h, 1, "bf16", 1);
      mem (k, 10 * d.tl * d.vocab, "cross_entropy");
      return;
    }
  mem (k, 6 * d.tl * d.vocab, "cross_entropy");
  gemm_bwd (k, d.tl, d.vocab, d.h, 1, "bf16");
  mem (k, 6 * d.tsp * d.h, norm_name (&d));
}

/* The embedding lookup (first chunk): rows read and written (GPT adds the
 * learned positions: a second table and the sum), one operation per
 * element (the sum, or the mask of ids outside the rank's vocabulary
 * shard, VocabParallelEmbedding); backward accumulates the rows'
 * gradients (one add per element). */
void
wl_tf_kernels_embed (const Emit *e, WlTfKernels *k, gboolean bwd)
{
  Dims d = dims_of (e);
  guint64 fwd = (d.llama ? 4 : 8) * d.tl * d.h;
  mem_ops (k, bwd ? fwd + 2 * d.tl * d.h : fwd, "embedding", d.tl * d.h);
}

/* COUNT launches of a memory-bound kernel of BYTES and FLOPS each. */
static void
mem_count (WlTfKernels *k, guint64 bytes, const char *what, guint64 flops, guint64 count)
{
  if (count == 0)
    return;
  sep (k);
  g_string_append_printf (k->s, "mem:bytes=%" G_GUINT64_FORMAT ",what=%s", bytes, what);
  if (flops > 0)
    g_string_append_printf (k->s, ",flops=%" G_GUINT64_FORMAT, flops);
  count_of (k, count);
  k->bytes += bytes * count;
  k->flops += flops * count;
}

/* One weight of N elements cast to FP8 with its transpose, COUNT times. */
static void
weight_cast (WlTfKernels *k, guint64 n, guint64 count)
{
  mem_count (k, 4 * n, "fp8_weight_cast", n, count);
}

/* Transformer Engine's FP8 copies of LAYERS layers' weights, made on a
 * model chunk's first micro-batch of the iteration and kept for the others
 * (TE 1.10 module/linear.py and layernorm_linear.py: get_fp8_workspace
 * with update_workspace = is_first_microbatch; Megatron-core calls
 * set_is_first_microbatch on the first micro-batch,
 * pipeline_parallel/schedules.py forward_step): each weight cast with its
 * transpose (for the input gradient), read bf16 and write FP8 twice,
 * 2 + 1 + 1 bytes per element, one launch per weight (QKV, output
 * projection, FC1 and FC2 of each expert); one operation per element (the
 * scaling). */
void
wl_tf_kernels_fp8_weights (const Emit *e, WlTfKernels *k, guint64 layers)
{
  Dims d = dims_of (e);
  guint64 qkv = (d.hq + 2 * d.hkv) * d.d, fc1 = (d.llama ? 2 : 1) * d.f;
  weight_cast (k, d.h * qkv, layers);
  weight_cast (k, d.hq * d.d * d.h, layers);
  weight_cast (k, d.h * fc1, layers * d.experts);
  weight_cast (k, d.f * d.h, layers * d.experts);
}

/* Transformer Engine's delayed-scaling bookkeeping at the end of an FP8
 * region's forward or backward over N_AMAX tensors (TE 1.10 fp8.py,
 * FP8GlobalStateManager.reduce_and_update_fp8_tensors): the modules'
 * current amaxes concatenated (torch.cat: 4 bytes read, 4 written each)
 * and, after their all-reduce, one fused kernel
 * (tex.fused_amax_and_scale_update_after_reduction,
 * common/recipe/delayed_scaling.cu) that reads each tensor's amax history
 * of WL_TF_FP8_AMAX_HISTORY fp32 values and writes it rolled (8 H bytes),
 * and reads the reduced amax and the scale and writes the scale and its
 * inverse (16 bytes); H operations per tensor (the max over its history).
 * Both here, after the all-reduce (the 8 bytes per tensor of the
 * concatenation before it change no time). */
void
wl_tf_kernels_fp8_amax (WlTfKernels *k, guint64 n_amax)
{
  mem (k, 8 * n_amax, "amax_cat");
  mem_ops (k, (8 * WL_TF_FP8_AMAX_HISTORY + 16) * n_amax, "amax_update",
           WL_TF_FP8_AMAX_HISTORY * n_amax);
}

/* The optimizer step over PARAMS parameters, as Megatron's mixed-precision
 * optimizer runs it (megatron/core/optimizer/optimizer.py,
 * Float16OptimizerWithFloat16Params): the bf16 gradients copied to fp32
 * main gradients (2 read + 4 written); with R's loss_scale the fp32 main
 * gradients unscaled and checked for inf/NaN in one pass (Megatron-LM 2021
 * megatron/optimizer/optimizer.py _unscale_main_grads_and_check_for_nan,
 * torch._amp_foreach_non_finite_check_and_unscale_: 4 read + 4 written);
 * with grad_clip their global L2 norm (megatron/optimizer/clip_grads.py,
 * apex multi_tensor_l2norm: 4 read; the rescale when the norm exceeds the
 * limit depends on the data and is left out); Adam (Apex / Transformer
 * Engine FusedAdam: fp32 parameter, gradient, m and v read, 16; parameter,
 * m and v written, 12; WL_TF_ADAM_FLOPS operations), the fp32 main
 * parameters copied to the bf16 model (4 + 2). */
void
wl_tf_kernels_optimizer (WlTfKernels *k, guint64 params, const WlGenTransformer *r)
{
  mem (k, 6 * params, "copy");
  if (r->loss_scale)
    mem (k, 8 * params, "unscale");
  if (r->grad_clip)
    mem (k, 4 * params, "grad_norm");
  mem_ops (k, 28 * params, "adam", WL_TF_ADAM_FLOPS * params);
  mem (k, 6 * params, "copy");
}

/* Local DDP's gradient coalescing (Megatron-LM 2021
 * megatron/model/distributed.py allreduce_gradients, no contiguous
 * buffers): before the all-reduce _flatten_dense_tensors copies PARAMS
 * 2-byte gradients into one buffer (2 + 2 bytes each) and divides it by
 * dp in place (2 + 2); after it the buffer is copied back (2 + 2, the
 * second node: UNFLATTEN). */
void
wl_tf_kernels_coalesce (WlTfKernels *k, guint64 params, gboolean unflatten)
{
  if (unflatten)
    mem (k, 4 * params, "unflatten");
  else
    {
      mem (k, 4 * params, "flatten");
      mem (k, 4 * params, "divide");
    }
}

/* PyTorch's AccumulateGrad for PARAMS 2-byte gradients: the accumulated
 * and the new gradient read, the sum written (2 + 2 + 2). */
void
wl_tf_kernels_grad_accum (WlTfKernels *k, guint64 params)
{
  mem (k, 6 * params, "grad_accum");
}
