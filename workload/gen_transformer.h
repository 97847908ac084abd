/* gen_transformer.h: one training iteration of a dense decoder-only
 * transformer as Chakra traces, under tensor (with or without sequence),
 * context, pipeline and data parallelism, as Megatron-LM runs it.
 *
 * What it models (units: FLOPs, bytes; bf16, 2 bytes per element):
 * - Model: L layers of hidden size h, FFN size f (two h x f matrices, or
 *   three for a gated FFN as in Llama), vocabulary V, sequence length s.
 *   Attention has heads query heads and kv_heads key/value heads (grouped-
 *   query attention; 0 means kv_heads = heads), so its projections hold
 *   A = 2h^2 + 2h (h kv_heads / heads) parameters (4h^2 without GQA).
 *   Parameters: L x (A + n_ffn x h x f) + 2 x V x h (embedding and LM head
 *   counted separately, as untied; biases and norms are ignored).
 * - Vocabulary padding: Megatron-LM pads the vocabulary to V' = ceil (V /
 *   (128 tp)) x 128 tp (megatron/training/tokenizer/tokenizer.py,
 *   _vocab_size_with_padding, --make-vocab-size-divisible-by 128 times the
 *   TP size), so every TP rank holds V' / tp rows (GPT-3's 50,257 are
 *   51,200 at TP 8).  V' is what the machine runs and stores: the LM head's
 *   and cross entropy's kernels, the embedding's and LM head's parameters
 *   (memory, the optimizer step, DP gradient buckets, ZeRO / FSDP gathers)
 *   and the last stage's logits.  The parameter count above and the model
 *   FLOPs (MFU, wl_gen_transformer_model_flops) keep the nominal V, the
 *   model's real parameters (PaLM's convention).
 * - Kernels (gen_transformer_kernels.c): every compute node, one per block
 *   (embedding, attention block, MLP block, LM head, their backwards,
 *   recomputations, the optimizer step), carries the `kernels` attribute:
 *   the GPU kernels Megatron-LM core with Transformer Engine runs for it on
 *   one TP / CP rank, with their shapes (issue 16's interface).  GPT-style
 *   models (no gated FFN) use LayerNorm, GeLU, learned positions and dropout;
 *   Llama-style (gated_ffn) RMSNorm, SwiGLU and RoPE, no dropout.  Attention
 *   block: norm, QKV GEMM (h x (hq + 2 hkv) d / tp), RoPE, core attention
 *   (one causal FlashAttention kernel, or Megatron 2021's batched QK^T,
 *   scale-mask-softmax, dropout and AV GEMMs), output projection,
 *   dropout + residual add; MLP block: norm, FC1 (2 f wide when gated),
 *   GeLU / SwiGLU, FC2, dropout + add (MoE: top_k x the tokens); LM head:
 *   final norm, h x V' / tp GEMM (the padded vocabulary; bf16 always),
 *   vocab-parallel cross entropy; embedding lookup on the first
 *   chunk.  Backward: each GEMM's dgrad and wgrad, the attention's backward
 *   kernel (or the unfused GEMMs' and softmax / dropout backward), the
 *   elementwise kernels' backward.  With fp8 the layers' GEMMs are FP8
 *   (Transformer Engine 1.10), with its casts (inputs not written in FP8 by
 *   a fused norm, dY backward) and transposes, the norms writing FP8 and
 *   the forward SP all-gathers moving it; per iteration the weights' FP8
 *   copies (node fp8_weight_cast, a chunk's first micro-batch), per chunk
 *   forward and backward the amax all-reduce (fp8_amax_all_reduce, over
 *   the stage's TP x CP x DP ranks) and the history and scale update
 *   (fp8_amax_update); attention, elementwise kernels and the LM head stay
 *   bf16.  num_ops is the sum of the kernels' FLOPs and tensor_size of
 *   their bytes (estimates of reads + writes for memory-bound kernels).
 * - FLOPs of one micro-batch of t = b x s tokens over all its ranks, per
 *   layer: GEMMs G = 2 t A + 2 n_ffn t h f (x top_k for MoE), attention
 *   2 b s^2 h forward (causal FlashAttention computes half of QK^T and AV's
 *   4 b s^2 h; unfused: 4 b s^2 h) and 2.5 x that backward (unfused 2 x);
 *   GEMMs twice forward backward; the LM head 2 t h V' forward, 4 t h V'
 *   backward; full recomputation one more forward of the layers (GEMMs and
 *   attention), selective one more attention forward.  Memory-bound
 *   kernels count 0 FLOPs but two: the embedding (one operation per element
 *   forward and backward, on every TP rank: 2 tp t h) and Adam (16 per
 *   parameter updated, WL_TF_ADAM_FLOPS) -- so that their nodes have num_ops
 *   for the roofline rule.  wl_gen_transformer_flops is the sum of num_ops
 *   over all ranks: M dp per-micro-batch FLOPs plus Adam's on every rank.
 * - Ranks: tp x cp x dp x pp, rank = t + tp (c + cp (d + dp p)) for TP index
 *   t, CP index c, DP index d, stage p (Megatron's tp-cp-dp-pp order).
 *   Model chunk k (interleaving: chunk c of stage p is c pp + p) holds
 *   L / (pp v) layers, the first L mod (pp v) chunks one more.
 * - Tensor parallelism with sequence parallelism (Megatron-LM, Korthikanti
 *   et al. 2022): per layer and micro-batch, forward: all-gather,
 *   attention, reduce-scatter, all-gather, MLP, reduce-scatter on the TP
 *   group; backward the mirror.  The gathered buffer is t / cp x h x 2
 *   bytes: reduce-scatters carry comm_size t h 2 / cp, all-gathers
 *   t h 2 / (cp tp) (each rank's input, as Chakra defines it).  The
 *   embedding's output is reduce-scattered (forward; all-gathered
 *   backward), the LM head's input all-gathered (reduce-scattered
 *   backward).  Without sequence parallelism (no_sequence_parallel): an
 *   all-reduce of t h 2 / cp after each block forward and backward, after
 *   the embedding forward and the LM head backward, nothing before.
 * - Recomputation: full repeats each layer's forward before its backward,
 *   TP, CP and EP communication included, its compute nodes marked
 *   is_recompute; selective recomputes only the core attention (its ring
 *   exchanges with it), marked the same.
 * - Pipeline: activations (forward) and gradients (backward) between the
 *   same (t, c, d) ranks of adjacent chunks, as COMM_SEND / COMM_RECV with
 *   comm_tag 2 (mb + M (k / pp)) (+1 for gradients), k the boundary's lower
 *   chunk.  Each TP rank sends its 1/tp of the t h 2 / cp bytes (Megatron's
 *   scatter/gather, Narayanan et al. SC21 section 4.1); without sequence
 *   parallelism the receiver all-gathers the pieces on its TP group.  Sends
 *   are asynchronous (nothing waits for them).  Order: gen_transformer_sched.c.
 * - Interleaved 1F1B (virtual_stages v > 1; Megatron-LM,
 *   megatron/core/pipeline_parallel/schedules.py,
 *   forward_backward_pipelining_with_interleaving): stage p holds the v
 *   model chunks c pp + p (c = 0 .. v - 1).  Virtual micro-batch k (0 ..
 *   M v - 1) is chunk (k mod pp v) / pp, micro-batch pp (k / pp v) +
 *   k mod pp (groups of pp micro-batches per chunk, Megatron's default
 *   microbatch_group_size_per_vp_stage); a backward takes chunk v - 1 - c.
 *   Stage p runs w = min ((pp - p - 1) x 2 + (v - 1) x pp, M v) forwards,
 *   then forward w + i and backward i alternately, then the remaining
 *   backwards.  Requires, as Megatron: pp > 1 and M a multiple of pp; also
 *   1F1B and at least one layer per chunk (pp v <= L).  Megatron also
 *   requires L divisible by pp v (and, without --overlap-p2p-comm, pp > 2);
 *   here the first L mod (pp v) chunks take one layer more.  The bubble is
 *   (pp - 1) / (v M) of the ideal time (Narayanan et al., SC21, 2.2.2).
 * - Context parallelism (cp > 1; flash attention, dense models, s a
 *   multiple of 2 cp): each rank holds s / cp tokens; per layer the forward
 *   exchanges the K/V chunk cp - 1 times around the CP ring (send to the
 *   next CP rank, receive from the previous, 2 b (s / cp) hkv d 2 / tp
 *   bytes, tag 2^24), the backward K/V cp - 1 times before and dK/dV cp - 1
 *   times after (tag 2^24 + 1).  Each hop follows the previous receive; the
 *   K/V exchanges run beside the attention block (Transformer Engine
 *   overlaps each piece with the next chunk's transfer) and the node after
 *   the block waits for them; the dK/dV exchanges are on the chain.  The attention splits in cp pieces of equal FLOPs, as
 *   Transformer Engine balances the causal mask: the diagonal (causal) and
 *   c pieces of s / cp queries against s / (2 cp) keys, cp - 1 - c of
 *   s / (2 cp) queries against s / cp keys.
 * - Data parallelism: gradients are reduced over the dp x cp ranks of the
 *   same (t, p) (Megatron's DP-CP group), 2 bytes per parameter of the tp
 *   share, off the chain on stream 1, during the last micro-batch's
 *   backward.  With dp_bucket_B = 0 (and ZeRO 1 .. 3): one collective per
 *   unit (a layer after its attention backward, the embedding, the LM
 *   head).  With dp_bucket_B > 0 (ZeRO 0): Megatron's buckets: on the first
 *   stage's first model chunk, blocks' gradients fill a bucket in backward
 *   order and it is reduced once the rank's share (1/tp) holds dp_bucket_B / 2
 *   parameters or more; every other chunk is one bucket, reduced at the end of its
 *   backward (Megatron turns bucketing off there).  no_dp_overlap (ZeRO 0):
 *   one bucket per chunk, all reduced after the rank's whole backward
 *   (Megatron 2021's local DDP).  Collectives are all-reduces, or reduce-
 *   scatters with the distributed optimizer, which all-gathers each
 *   bucket's updated shards (1 / (dp cp) of it) after the optimizer step.
 * - Optimizer step: after the rank's last backward and every gradient
 *   collective, a compute node of mem kernels over the parameters it
 *   updates (its stage's / tp, / (dp cp) with ZeRO >= 1 or the distributed
 *   optimizer): bf16 gradients to fp32 (6 bytes per parameter), Adam (28),
 *   fp32 parameters to bf16 (6); with loss_scale the fp32 gradients
 *   unscaled and checked for inf/NaN (8), with grad_clip their L2 norm
 *   (4), before Adam (Megatron-LM 2021, megatron/optimizer/optimizer.py and
 *   clip_grads.py; see wl_tf_kernels_optimizer).
 * - unfused_grad_accum: Megatron-LM before its gradient-accumulation
 *   fusion (commit 83b1e42f30, 2022-02-16) let PyTorch's AccumulateGrad add
 *   each micro-batch's 2-byte weight gradients to the accumulated ones
 *   (the first micro-batch's are kept as they are: the optimizer's
 *   zero_grad set them to None), 2 + 2 read and 2 written per parameter:
 *   a compute node "grad_accum" of 6 bytes per parameter of the model chunk
 *   (its layers, the embedding on the first chunk, the LM head on the last,
 *   / tp) after its layers' backward, for every micro-batch but the first.
 *   One node per chunk backward, not one per layer: the same time on the
 *   chain, but a gradient bucket reduced during the backward does not wait
 *   for the additions of its layers (with --no-dp-overlap, as the SC21
 *   pipelined runs, nothing differs).
 * - dp_coalesce (with no_dp_overlap): Megatron 2021's local DDP without
 *   contiguous buffers (megatron/model/distributed.py, allreduce_gradients)
 *   flattens each dtype's gradients into one buffer and divides it by dp
 *   (a compute node "dp_flatten" of 8 bytes per parameter, 2-byte
 *   gradients read and written twice) before the deferred all-reduces and
 *   copies the result back (node "dp_unflatten", 4 bytes per parameter)
 *   after them, before the optimizer step; the parameters its stage's / tp.
 * - Streams: TP, CP, EP and pipeline communication carry stream 0 (on the
 *   compute chain), data-parallel collectives 1.
 * - ZeRO (Rajbhandari et al. 2020) and FSDP, field zero (0 .. 3), on the DP
 *   group of dp ranks.  A "unit" is a layer, the embedding (first stage) or
 *   the LM head (last stage), with P_u = 2 x (its parameters / tp) bytes;
 *   every unit is treated alike.  Compute, TP and PP nodes and FLOPs do not
 *   depend on the stage.  With dp = 1 there is no DP traffic at any stage.
 *   - ZeRO-0 (default): the per-unit gradient all-reduce of P_u above.
 *   - ZeRO-1 (optimizer states sharded): the same all-reduce; after the
 *     optimizer step (which updates each rank's shard), an all-gather of
 *     the updated parameter shards, comm_size P_u / dp (each rank's
 *     input), on the DP stream (off the chain), as DeepSpeed's stage-1/2
 *     optimizer gathers them at the end of its step.
 *   - ZeRO-2 (+ gradients sharded): a reduce-scatter of P_u (comm_size the
 *     whole buffer) instead of the all-reduce, then the all-gather of
 *     P_u / dp after the step as in ZeRO-1.
 *   - ZeRO-3 / FSDP (+ parameters sharded): weights are not kept gathered
 *     between uses: before every forward of a layer or the LM head, and of
 *     the embedding on the first stage, for every micro-batch, a blocking
 *     all-gather of P_u / dp (on the chain); before every backward of a
 *     layer (before its recomputation, if any) and of the LM head another
 *     one (the embedding's backward needs no weights); then the reduce-
 *     scatter of P_u as in ZeRO-2, and no end-of-step all-gather.
 *   Gradient reduce-scatters / all-reduces happen once per iteration, after
 *   the last micro-batch's backward (the sharded-gradient memory below
 *   assumes sharded accumulation, whose per-micro-batch reduce-scatters are
 *   not modelled).  So per rank and iteration, with U the stage's units,
 *   ZeRO-0: |U| all-reduces; 1: |U| all-reduces + |U| all-gathers; 2: |U|
 *   reduce-scatters + |U| all-gathers; 3: |U| reduce-scatters and
 *   M (2 n_p + 2 [last] + [first]) all-gathers.
 * - Groups: a METADATA node defines TP groups 1 .. cp dp pp (index
 *   c + cp (d + dp p)) and DP (x CP) groups cp dp pp + 1 .. cp dp pp + tp pp
 *   (index t + tp p; the dp cp ranks of the same t and p); with ep > 1,
 *   after those, EP groups (index t + tp (d / ep + (dp / ep) p)), then
 *   expert-DP groups (index t + tp (d mod ep + ep p)); with cp > 1, last,
 *   CP groups (index t + tp (d + dp p)).  Every collective names its group
 *   in pg_name.  Groups of one rank are omitted, and so are their
 *   collectives.
 * - Each rank's compute and blocking communication form one chain (one
 *   stream); tensor_size is an estimate of bytes read and written.
 * - Mixture of experts (experts E > 0; 0 = dense): every layer's FFN is
 *   replaced by E experts of the same FFN shape (gated as in Llama when
 *   gated_ffn), each token routed to top_k K of them.  Parameters count all E
 *   experts (the router's h x E is ignored); the active parameters
 *   (wl_transformer_active_params) count K.  An MoE layer's FFN FLOPs are K
 *   x the dense FFN's, so an iteration costs 6 T N'_active + attention (+
 *   recompute), N'_active the active parameters less the embedding.
 * - Expert parallelism, ep (0 or 1: none; ep must divide dp and E): EP
 *   groups are formed inside the DP dimension: ep consecutive DP indices
 *   d = g ep .. g ep + ep - 1 of the same stage and TP index; each of their
 *   ranks holds E / ep experts of every layer.  Ranks stay tp x pp x dp.
 *   Per MoE layer and micro-batch, forward: after the attention's reduce-
 *   scatter a dispatch all-to-all, then the TP all-gather, the experts, the
 *   TP reduce-scatter and a combine all-to-all; backward the mirror (combine
 *   all-to-all, ..., dispatch all-to-all).  Each all-to-all's comm_size (the
 *   whole per-rank buffer, as Chakra defines it) is K x b x s x h x 2 / tp:
 *   the rank's sequence-parallel share of the tokens, each sent to K
 *   experts.  Routing is taken as perfectly balanced: every rank computes
 *   the expert FFNs for K t tokens (the ep K t token copies of its EP group
 *   spread evenly over ep ranks), i.e. K x the dense FFN FLOPs, 1/tp each,
 *   so the total FLOP identity above is exact.  Gradients (and ZeRO
 *   all-gathers) of a layer are split: the dense part (attention) on the DP
 *   group as before, the rank's E / ep experts on its expert-DP group, the
 *   dp / ep ranks with the same stage, TP index and d mod ep (with ep = 1
 *   that is the DP group, as a second collective).  MoE on every layer.
 * - Not modelled: the cross entropy's small TP all-reduces, the MoE
 *   router, tied-embedding synchronisation, TP communication overlapped
 *   with GEMMs, kernel launch overheads (the compute model's).
 * - Memory (wl_gen_transformer_memory): per rank of stage p, in bytes, for
 *   mixed-precision training with Adam as Megatron-LM does it.  With P_p
 *   the stage's parameters (its layers with E / ep experts each, plus V' h
 *   for the embedding on the first stage and V' h for the LM head on the
 *   last, V' the padded vocabulary) and N = P_p / tp:
 *     parameters 2 N (bf16); gradients 4 N: Megatron's fp32 main gradients,
 *     its default with bf16 (megatron/training/arguments.py: "bfloat16
 *     requires gradient accumulation and all-reduce to be done in fp32");
 *     optimizer 12 N (fp32 master weights, Adam m and v).  So 18 bytes per
 *     parameter, and with the distributed optimizer (distributed_optimizer)
 *     6 + 12 / d: the optimizer's 12 N sharded over d = dp x cp ranks (the
 *     DP-CP group), gradients and parameters not sharded (Megatron-LM
 *     docs/user-guide/features/dist_optimizer.md, "bf16 parameters, fp32
 *     gradients: 18 | 6 + 12/d").  ZeRO (Rajbhandari et al. 2020), on the DP
 *     group: ZeRO-1 optimizer 12 N / dp; ZeRO-2 also gradients 4 N / dp;
 *     ZeRO-3 also parameters 2 N / dp plus, when dp > 1, 2 x 2 x (U / tp)
 *     for the gathered weights transiently resident (the unit in use and
 *     the next one prefetched), U the largest unit of the stage (a layer,
 *     or V' h on the first and last stages).  Experts' shares use dp / ep.
 *     Divisions round down.
 *   Activations: the peak, over the stage's own order of forwards and
 *   backwards (the schedule above), of the bytes held by the chunk
 *   forwards whose backward has not run: per chunk forward, its layers x
 *   the per-layer bytes below, plus on model chunk 0 the embedding's
 *   dropout mask (T h / SP bytes; the embedding's output itself is the
 *   first layer's input, counted there) and on the last chunk the final
 *   norm's input and the LM head's input (2 + 2 bytes x T h / SP) and the
 *   fp32 logits the cross-entropy keeps (4 T V' / tp); Korthikanti et al.
 *   2022, Section 4.3.  in_flight is the most chunk forwards held at once:
 *   1F1B min (M, pp - p) micro-batches, GPipe M, interleaved 1F1B the
 *   warm-up count + 1 = (pp - p - 1) x 2 + (v - 1) x pp + 1 chunks of
 *   L / (pp v) layers (capped by M v).  With recomputation one layer's
 *   rematerialised activations (the no-recomputation bytes less those
 *   kept) are added once: the layer whose backward runs.
 *   Per layer and micro-batch (Korthikanti et al. 2022, "Reducing
 *   Activation Recomputation in Large Transformer Models", Section 4.1 and
 *   Table 2: 34 s b h + 5 a s^2 b bytes without parallelism, 2-byte
 *   activations, 1-byte dropout masks), with T = s b / cp the rank's tokens
 *   (context parallelism splits the sequence, so every term is divided by
 *   cp), SP = tp with sequence parallelism and 1 without it (Table 2's
 *   "tensor parallel" row: those terms are not divided), kv the key/value
 *   heads, f the FFN size, K top_k (1 when dense):
 *     outside the TP regions, / SP: 10 T h = the two norms' inputs 2 + 2,
 *       the QKV and FC1 GEMM inputs 2 + 2, the two dropout masks 1 + 1;
 *     inside, / tp: T h (4 + 4 kv / a) = Q 2, K and V 2 kv / a each (GQA
 *       makes them smaller), the attention output (out-projection input) 2;
 *       FFN: K T 4 f = GeLU's input and the FC2 input, 2 f + 2 f
 *       (Korthikanti's 16 s b h with f = 4 h), or, gated (SwiGLU), K T 6 f:
 *       the FC1 output that Megatron's SwiGLU keeps as its input (gate and
 *       up, 4 f; megatron/core/fusions/fused_bias_swiglu.py saves only its
 *       input) and the FC2 input 2 f;
 *     the attention core, / tp: unfused 5 a T s (softmax output 2, its
 *       dropout mask 1, the dropout output 2 per score); FlashAttention
 *       (Dao 2022: scores recomputed in the backward from Q, K, V, the
 *       output and the log-sum-exp) 4 a T, the fp32 log-sum-exp per query
 *       and head.  So with f = 4 h and kv = a: unfused 34 + 5 a s / h per
 *       s b h (Table 2), FlashAttention 34 + 4 a / h.
 *     Selective recomputation drops the attention core (34 T h / tp with
 *     SP, Table 2); full recomputation keeps the layer's input, 2 T h / SP.
 *   With fp8 the parameters include Transformer Engine's FP8 copies of the
 *   layers' weights and their transposes (2 bytes per weight element).
 *   Not counted: temporary buffers (workspace, communication and
 *   all-gathered buffers), FP8-stored activations (counted as bf16), the
 *   CUDA context, fragmentation.
 *   Dropout masks (the 1 + 1 per layer and the embedding's) are counted
 *   for models without a gated FFN (GPT style: Megatron-LM's default
 *   --hidden-dropout 0.1, as in Korthikanti); gated (Llama-style) models
 *   are taken as trained without dropout (Llama; NeMo's LlamaConfig,
 *   nemo/collections/llm/gpt/model/llama.py: hidden_dropout and
 *   attention_dropout 0.0), and PyTorch's dropout at p = 0
 *   returns its input, keeping no mask: outside the TP regions 8 T h.
 *   wl_gen_transformer_verdict says whether each stage fits a device.
 *
 * Layer: workload.  May include: system, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GEN_TRANSFORMER_H
#define ORRERY_WORKLOAD_GEN_TRANSFORMER_H

#include <glib.h>

#include "workload/compute.h"
#include "workload/graph.h"

typedef enum
{
  WL_PIPE_1F1B = 0,
  WL_PIPE_GPIPE
} WlPipeSchedule;

/* Activation recomputation (Korthikanti et al. 2022): none, full (every
 * layer's forward again before its backward) or selective (the attention
 * core only). */
typedef enum
{
  WL_RECOMPUTE_NONE = 0,
  WL_RECOMPUTE_FULL,
  WL_RECOMPUTE_SELECTIVE
} WlRecompute;

/* How attention runs: a fused FlashAttention kernel, or Megatron-LM 2021's
 * unfused core attention (batched GEMMs, softmax, dropout). */
typedef enum
{
  WL_ATTENTION_FLASH = 0,
  WL_ATTENTION_UNFUSED
} WlAttention;

typedef struct
{
  const char *name; /* borrowed; presets use static strings */
  guint32 layers, hidden, heads, kv_heads, ffn, vocab, seq;
  gboolean gated_ffn; /* three h x f matrices (SwiGLU) instead of two */
  guint32 experts, top_k; /* mixture of experts: E experts, K per token; 0 = dense */
} WlTransformerModel;

typedef struct
{
  WlTransformerModel model;
  guint32 micro_batch;  /* b, sequences per micro-batch */
  guint32 global_batch; /* B; 0 when microbatches is given */
  guint32 tp, pp, dp;   /* each >= 1 */
  guint32 microbatches; /* per pipeline; 0: B / (b x dp) */
  WlPipeSchedule schedule;
  WlRecompute recompute;
  guint32 zero; /* ZeRO stage 0 .. 3 (3 = FSDP); see above */
  guint32 ep;   /* expert-parallel degree (0 = 1); divides dp and experts */
  /* When set, compute nodes also carry duration_micros: their roofline time
   * (bf16) on this device, rounded up to whole microseconds (Chakra's
   * unit), so that the traces replay without a compute model. */
  const WlDevice *device;
  guint32 virtual_stages;        /* model chunks per stage, interleaved 1F1B (0 = 1) */
  guint32 cp;                    /* context-parallel degree (0 = 1) */
  gboolean no_sequence_parallel; /* TP all-reduces instead of SP gather/scatter */
  gboolean fp8;                  /* the layers' GEMMs in FP8 (Transformer Engine); else bf16 */
  WlAttention attention;
  gboolean distributed_optimizer; /* Megatron's: gradients reduce-scattered, params gathered */
  guint64 dp_bucket_B;           /* DP gradient bucket (bytes); 0: per layer */
  gboolean no_dp_overlap;        /* gradients reduced after the whole backward */
  gboolean dp_coalesce;          /* no_dp_overlap: local DDP's flatten, divide and unflatten */
  gboolean grad_clip;            /* optimizer step: the gradients' global L2 norm */
  gboolean loss_scale;           /* optimizer step: FP16 unscale and inf/NaN check */
  gboolean unfused_grad_accum;   /* later micro-batches add their gradients: 6 B/param */
  /* wl_gen_transformer: when set, the groups go to this file as ASTRA-sim's
   * comm-group JSON and the traces carry no METADATA node (gen.h). */
  const char *comm_groups_out;
} WlGenTransformer;

/* The presets: *n is set to their number; the array is static. */
const WlTransformerModel *wl_transformer_presets (guint *n);

/* The preset called NAME (case-insensitive: "gpt3-175b", "llama2-7b",
 * "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b", "mixtral-8x7b"), or
 * NULL.  The Llama-2 70B, Llama-3 and Mixtral models use 8 key/value heads.
 * Mixtral 8x7B: E 8, K 2, s 4096 (of its 32768 context; chosen to keep
 * traces small and comparable to Llama 2); 46.7B parameters, 12.9B active. */
const WlTransformerModel *wl_transformer_preset (const char *name);

/* Parameters of M as described above. */
guint64 wl_transformer_params (const WlTransformerModel *m);

/* Parameters used per token: as above with top_k experts per layer. */
guint64 wl_transformer_active_params (const WlTransformerModel *m);

/* Micro-batches per pipeline that REQ resolves to, or 0 with ERROR set
 * (SIM_ERROR_INPUT) when the request is inconsistent (a zero size, B not a
 * multiple of b x dp, B and microbatches disagreeing, more stages than
 * layers, heads or h not divisible by tp, a ZeRO stage above 3, ep not
 * dividing dp or E, ep > 1 without experts, top_k not in 1 .. E (or above
 * 0 without experts), tp not dividing the kv heads, s not a multiple of
 * 2 cp, cp > 1 with unfused attention or experts, the distributed optimizer
 * or no_dp_overlap with ZeRO above 0). */
guint32 wl_gen_transformer_microbatches (const WlGenTransformer *req, GError **error);

/* FLOPs of one iteration over all ranks (the closed form above). */
double wl_gen_transformer_flops (const WlGenTransformer *req);

/* Model FLOPs of one iteration, as MFU counts them (PaLM, Chowdhery et al.
 * 2022, Appendix B; Megatron-LM and NeMo count alike): forward and
 * backward of every layer's GEMMs (6 per parameter and token, top_k
 * experts) and attention scores without causal halving (12 L s^2 h per
 * sequence), and the LM head (6 s h V, the nominal vocabulary, not the
 * padded V' the kernels run), over the B global-batch sequences;
 * no recomputation, nothing for norms, activations or the optimizer.
 * Every generated trace carries it (GlobalMetadata model_flops, with
 * flops_formula WL_TF_MODEL_FLOPS_FORMULA, and tokens_per_iteration B s). */
double wl_gen_transformer_model_flops (const WlGenTransformer *req);
#define WL_TF_MODEL_FLOPS_FORMULA "6NT+12Ls^2hB (PaLM/Megatron; attention not halved)"

/* Per-rank memory of one pipeline stage (all its tp x dp ranks alike). */
typedef struct
{
  guint32 layers;    /* layers on the stage */
  guint32 in_flight; /* chunk forwards (micro-batches when v = 1) held at once, at most */
  guint64 layer_B;    /* activations of one layer and micro-batch */
  guint64 params_B, grads_B, optimizer_B, activations_B, total_B;
} WlStageMemory;

/* Fill OUT[0 .. pp - 1] (caller's array) with the formulas above.  FALSE
 * with ERROR set (as wl_gen_transformer_microbatches) on an inconsistent
 * request. */
gboolean wl_gen_transformer_memory (const WlGenTransformer *req, WlStageMemory *out,
                                    GError **error);

/* Stage P's verdict against DEVICE's memory, one line without newline
 * (caller frees): "stage 0: fits, 61.2 of 74.5 GiB" or "stage 3: does not
 * fit by 12.4 GiB" (GiB = 2^30 bytes). */
char *wl_gen_transformer_verdict (guint32 p, const WlStageMemory *mem, const WlDevice *device);

/* Write PREFIX.0.et .. PREFIX.(tp cp pp dp - 1).et for REQ (borrowed).  FALSE
 * with ERROR set (WL_ERROR, SIM_ERROR_INPUT) on an inconsistent request or a
 * write error. */
gboolean wl_gen_transformer (const char *prefix, const WlGenTransformer *req, GError **error);

/* Every rank's graph of the iteration wl_gen_transformer would write
 * (WlGraph*, owned by the array, in rank order), made in memory: the
 * trace of one rank per stage and CP index is encoded and read as its
 * file would be, and each other rank's graph is that rank's renamed
 * (wl_graph_renamed: its TP and DP indices move every rank it names;
 * its groups are its own), so the graphs are those of the files, named
 * PREFIX.<rank>.et, at a fraction of the cost.  NULL with ERROR set as
 * wl_gen_transformer fails. */
GPtrArray *wl_gen_transformer_graphs (const char *prefix, const WlGenTransformer *req,
                                      GError **error);

/* A lower bound in ps of the iteration time `orrery run` gives for REQ's
 * traces under PARAMS (its compute model, device, kernel table, speeds and
 * rounding), without making them: the longest path through each stage's
 * compute nodes in their schedule's order, the forward of micro-batch mb
 * through model chunk k after its forward through chunk k - 1 and its
 * backward through chunk k after that through chunk k + 1 (gen_transformer_
 * bound.c says why the run cannot be faster).  The nodes are priced as the
 * run prices them (compute slots do not help: a rank's compute nodes are one
 * dependency chain).  The communication on that chain (TP collectives, the
 * pipeline's receives and their all-gathers) takes at least the bytes a
 * rank must receive over NET's in_Bps (NULL or 0: communication free, the
 * bound for networks whose ports are not shared, such as ASTRA-sim's).
 * Microseconds even for thousands of micro-batches.  0 when REQ is
 * inconsistent (as wl_gen_transformer_microbatches) or PARAMS' kernel
 * model has no device. */
typedef struct
{
  double in_Bps; /* the most bytes/s any rank's ports take in at once, all summed */
  /* Whether every member of a reduce-scatter of S bytes over n ranks
   * receives n - 1 shards of S / n (the algorithms that can run it do so:
   * gen_transformer_bound.c lists them); FALSE: one shard. */
  gboolean rs_shards;
} WlTfNetFloor;

SimTime wl_gen_transformer_bound (const WlGenTransformer *req, const WlParams *params,
                                  const WlTfNetFloor *net);

/* Per-micro-batch compute of one model chunk on the ranks of its stage, in
 * ps: the forward and backward every micro-batch runs (the backward with
 * its recomputation and the communication floors on its chain), what only
 * the first forward adds (FP8 weight casts) and what every later backward
 * adds (unfused gradient accumulation); RECV, the least time from the
 * peer's send to the end of the receive before the chunk's forward (from
 * chunk k - 1) or backward (from chunk k + 1), where there is one. */
typedef struct
{
  SimTime fwd, bwd, fwd_first, bwd_later, recv;
} WlTfChunkCost;

/* The longest path wl_gen_transformer_bound takes, for REQ's schedule with
 * M micro-batches, the costs COST[k] of model chunk k (0 .. pp v - 1; chunk
 * c of stage p is c pp + p) and the optimizer step STEP[p] of stage p
 * (after its last backward's send): each stage runs its steps in
 * wl_tf_step's order, a forward of chunk k after that micro-batch's forward
 * of chunk k - 1 ends, a backward of chunk k after its backward of chunk
 * k + 1 (each plus COST[k].recv).  For 1F1B or GPipe with p stages of
 * forward f_s and backward b_s, no recv, it is at least max_s (sum_{j<s}
 * f_j + m (f_s + b_s) + sum_{j<s} b_j), the path through the first
 * micro-batch's forwards up to stage s, all of stage s's steps and the
 * last one's backwards back (equal stages: (m + p - 1) (f + b));
 * interleaved 1F1B with equal chunks gives (m v + p - 1)(f + b).  0 when
 * the orders cannot all be walked (none of the generator's). */
SimTime wl_gen_transformer_walk (const WlGenTransformer *req, guint32 M, const WlTfChunkCost *cost,
                                 const SimTime *step);

#endif /* ORRERY_WORKLOAD_GEN_TRANSFORMER_H */
