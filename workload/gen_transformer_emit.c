/* gen_transformer_emit.c: a rank's nodes of a transformer iteration: a
 * micro-batch's forward and backward of one model chunk, one compute node
 * per block with its kernels (gen_transformer_kernels.c), the TP, CP, EP
 * and pipeline communication around them, the data-parallel gradient
 * buckets and the optimizer step (see gen_transformer.h). */
#include <math.h>

#include "sim/error.h"
#include "system/sys_params.h"
#include "workload/gen.h"
#include "workload/gen_transformer_private.h"


/* Append a node depending on the chain's last node (and the extra
 * dependency, once, and MORE); CHAIN makes it the new last node (nodes off
 * the chain, like sends and gradient all-reduces, are waited for by
 * nothing) and has it wait for the pending join too.  Returns its id. */
static guint64
emit_after (Emit *e, const char *name, int type, ChakraProtoMsg__AttributeProto *attrs, gsize n,
            gboolean chain, const GArray *more)
{
  ChakraProtoMsg__AttributeProto *ptrs[8];
  g_assert (n <= G_N_ELEMENTS (ptrs));
  for (gsize i = 0; i < n; i++)
    ptrs[i] = &attrs[i];
  ChakraProtoMsg__Node node = CHAKRA_PROTO_MSG__NODE__INIT;
  /* Most nodes have up to three dependencies: no allocation for those. */
  guint64 few[3];
  g_autofree guint64 *many = more != NULL && more->len > 0 ? g_new (guint64, 3 + more->len) : NULL;
  guint64 *deps = many != NULL ? many : few;
  gsize n_deps = 0;
  if (e->has_last)
    deps[n_deps++] = e->last;
  if (e->has_extra)
    deps[n_deps++] = e->extra;
  if (chain && e->has_join)
    deps[n_deps++] = e->join;
  if (many != NULL)
    for (guint i = 0; i < more->len; i++)
      deps[n_deps++] = g_array_index (more, guint64, i);
  e->has_extra = FALSE;
  e->has_join = e->has_join && !chain;
  node.id = e->next_id++;
  node.name = (char *) name;
  node.duration_micros = e->duration_us;
  e->duration_us = 0;
  node.type = type;
  node.attr = ptrs;
  node.n_attr = n;
  node.n_data_deps = n_deps;
  node.data_deps = n_deps > 0 ? deps : NULL;
  if (e->ok)
    e->ok = wl_chakra_writer_add (e->w, &node, e->error);
  if (chain)
    {
      e->last = node.id;
      e->has_last = TRUE;
    }
  return node.id;
}

static guint64
emit (Emit *e, const char *name, int type, ChakraProtoMsg__AttributeProto *attrs, gsize n,
      gboolean chain)
{
  return emit_after (e, name, type, attrs, n, chain, NULL);
}

/* A compute node running kernels K (on the chain, after MORE): num_ops
 * their FLOPs, tensor_size their bytes, is_recompute when RECOMPUTE. */
static void
comp_after (Emit *e, const char *name, const WlTfKernels *k, gboolean recompute,
            const GArray *more)
{
  ChakraProtoMsg__AttributeProto a[4];
  wl_chakra_attr_set_int64 (&a[0], "num_ops", (gint64) k->flops);
  a[1] = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a[1].name = (char *) "tensor_size";
  a[1].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
  a[1].uint64_val = k->bytes;
  wl_chakra_attr_set_string (&a[2], "kernels", k->s->str);
  a[3] = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a[3].name = (char *) "is_recompute";
  a[3].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
  a[3].bool_val = TRUE;
  e->duration_us = 0;
  WlRoofline roof;
  /* Kernels of no FLOPs at all (gradient copies and additions): the
   * roofline's memory time, its limit as the FLOPs go to 0. */
  if (e->req->device != NULL && wl_device_roofline (e->req->device, WL_DTYPE_BF16, &roof))
    e->duration_us = (guint64) ceil (
      (k->flops > 0 ? wl_roofline_ns (&roof, k->flops, k->bytes)
                    : (double) k->bytes / (roof.mem_bw_Bps * roof.memory_eff) * 1e9)
      / 1000.0);
  emit_after (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, a, recompute ? 4 : 3, TRUE, more);
}

typedef void (*BlockKernels) (const Emit *e, WlTfKernels *k, gboolean bwd);

/* A block's kernels are the same in every layer and micro-batch of the
 * rank: built once. */
typedef struct
{
  BlockKernels fn;
  gboolean bwd;
  WlTfKernels k;
} CachedKernels;

static const WlTfKernels *
kernels_of (Emit *e, BlockKernels fn, gboolean bwd)
{
  if (e->kernel_cache == NULL)
    e->kernel_cache = g_array_new (FALSE, FALSE, sizeof (CachedKernels));
  for (guint i = 0; i < e->kernel_cache->len; i++)
    {
      CachedKernels *c = &g_array_index (e->kernel_cache, CachedKernels, i);
      if (c->fn == fn && c->bwd == bwd)
        return &c->k;
    }
  CachedKernels c = { .fn = fn, .bwd = bwd };
  wl_tf_kernels_init (&c.k);
  fn (e, &c.k, bwd);
  g_array_append_val (e->kernel_cache, c);
  return &g_array_index (e->kernel_cache, CachedKernels, e->kernel_cache->len - 1).k;
}

void
wl_tf_emit_clear (Emit *e)
{
  for (guint i = 0; e->kernel_cache != NULL && i < e->kernel_cache->len; i++)
    wl_tf_kernels_clear (&g_array_index (e->kernel_cache, CachedKernels, i).k);
  if (e->kernel_cache != NULL)
    g_array_free (e->kernel_cache, TRUE);
  e->kernel_cache = NULL;
}

/* One block's forward or backward (BWD) as a compute node. */
static void
block (Emit *e, const char *name, BlockKernels fn, gboolean bwd, gboolean recompute)
{
  comp_after (e, name, kernels_of (e, fn, bwd), recompute, NULL);
}

/* Communication streams (issue 16's interface): TP, CP, EP and pipeline
 * traffic on the compute chain's stream 0, data-parallel collectives on 1. */
enum
{
  STREAM_CHAIN = 0,
  STREAM_DP = 1
};

static guint64
coll (Emit *e, const char *name, SysCollKind kind, guint64 bytes, const char *pg, gboolean chain,
      int stream)
{
  ChakraProtoMsg__AttributeProto a[4];
  wl_chakra_attr_set_int64 (&a[0], "comm_type", wl_chakra_comm_type_of (kind));
  wl_chakra_attr_set_int64 (&a[1], "comm_size", (gint64) bytes);
  wl_chakra_attr_set_string (&a[2], "pg_name", pg);
  wl_chakra_attr_set_int32 (&a[3], "stream", stream);
  return emit (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, a, 4, chain);
}

/* A send (asynchronous: off the chain) or a receive (on it, unless
 * ASIDE) of BYTES between this rank and PEER with TAG; returns its id. */
static guint64
p2p_node (Emit *e, const char *name, gboolean send, guint32 peer, gint32 tag, guint64 bytes,
          gboolean aside)
{
  const WlGenTransformer *r = e->req;
  guint32 me = rank_of (r, e->t, e->c_idx, e->d, e->p);
  ChakraProtoMsg__AttributeProto a[5];
  wl_chakra_attr_set_int32 (&a[0], "comm_src", (gint32) (send ? me : peer));
  wl_chakra_attr_set_int32 (&a[1], "comm_dst", (gint32) (send ? peer : me));
  wl_chakra_attr_set_int32 (&a[2], "comm_tag", tag);
  wl_chakra_attr_set_int64 (&a[3], "comm_size", (gint64) bytes);
  wl_chakra_attr_set_int32 (&a[4], "stream", STREAM_CHAIN);
  return emit (e, name,
               send ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
                    : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE,
               a, 5, !send && !aside);
}

/* Activation bytes of a micro-batch on one CP rank (all its TP ranks). */
static guint64
cp_act (const Emit *e)
{
  return e->c.act_bytes / wl_tf_cp (e->req);
}

/* An activation or gradient for micro-batch MB with the stage PEER, across
 * the boundary after model chunk K (between chunks K and K + 1).  The tag
 * is 2 (mb + M (K / pp)) (+1 for gradients): unique per micro-batch and
 * boundary between two stages, and 2 mb (+1) without interleaving.  Each TP
 * rank sends its 1/tp of the activation (Megatron's scatter/gather,
 * Narayanan et al. SC21 section 4.1; v2.5's p2p_communication.py
 * split_tensor_into_1d_equal_chunks); without sequence parallelism the
 * receiver all-gathers the pieces on its TP group (with it, the shard is
 * what the rank needs). */
static void
p2p (Emit *e, gboolean send, guint32 peer_stage, guint32 k, guint32 mb, gboolean grad)
{
  const WlGenTransformer *r = e->req;
  guint32 peer = rank_of (r, e->t, e->c_idx, e->d, peer_stage);
  guint64 piece = cp_act (e) / r->tp;
  const char *name = grad ? (send ? "send_grad" : "recv_grad") : (send ? "send_act" : "recv_act");
  p2p_node (e, name, send, peer, (gint32) (2 * (mb + e->M * (k / r->pp)) + (grad ? 1 : 0)), piece,
            FALSE);
  if (!send && r->no_sequence_parallel && r->tp > 1)
    coll (e, "pp_all_gather", SYS_COLL_ALL_GATHER, piece, e->tp_pg, TRUE, STREAM_CHAIN);
}

/* Ring attention's exchanges on the CP group (Transformer Engine's
 * AttnFuncWithCPAndKVP2P): cp - 1 times, the K/V chunk (or, DKV, its
 * accumulated gradient) to the next CP rank and one from the previous,
 * 2 b (s / cp) hkv d 2 / tp bytes, each hop after the previous one's
 * receive (the ring forwards what it got).  Matching is in order per (src,
 * dst, tag), so one tag per kind suffices (above the pipeline's). */
enum
{
  CP_TAG_KV = 1 << 24,
  CP_TAG_DKV
};

/* The exchanges off the chain (K/V: they overlap the attention pieces, as
 * Transformer Engine computes one piece while the next chunk travels;
 * cp_join makes the node after the attention wait for the last), or on it
 * (dK/dV after the backward: the accumulated gradients return after the
 * last piece).  Returns the last receive's id (G_MAXUINT64: none). */
static guint64
cp_exchange (Emit *e, gboolean dkv)
{
  const WlGenTransformer *r = e->req;
  const WlTransformerModel *m = &r->model;
  guint32 cp = wl_tf_cp (r);
  guint64 recv = G_MAXUINT64;
  if (cp == 1)
    return recv;
  guint64 kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
  guint64 bytes = 2 * e->c.tokens / cp * (m->hidden / m->heads * kv) * 2 / r->tp;
  guint32 next = rank_of (r, e->t, (e->c_idx + 1) % cp, e->d, e->p);
  guint32 prev = rank_of (r, e->t, (e->c_idx + cp - 1) % cp, e->d, e->p);
  for (guint32 i = 0; i + 1 < cp; i++)
    {
      for (int send = 1; send >= 0; send--)
        {
          e->has_extra = !dkv && i > 0;
          e->extra = recv;
          guint64 id = p2p_node (e, send ? (dkv ? "cp_send_dkv" : "cp_send_kv")
                                         : (dkv ? "cp_recv_dkv" : "cp_recv_kv"),
                                 send, send ? next : prev, dkv ? CP_TAG_DKV : CP_TAG_KV, bytes,
                                 !dkv);
          if (!send)
            recv = id;
        }
    }
  return recv;
}

/* The next node on the chain waits for RECV (from cp_exchange) too. */
static void
cp_join (Emit *e, guint64 recv)
{
  if (recv == G_MAXUINT64)
    return;
  e->join = recv;
  e->has_join = TRUE;
}

/* The TP communication around a block: with sequence parallelism the
 * all-gather before it (GATHER) or the reduce-scatter after it; without,
 * nothing before and an all-reduce after (Megatron's f / g operators,
 * Shoeybi et al. 2019; Korthikanti et al. 2022 section 4.2.2).  Both on
 * the CP rank's activation (t / cp tokens). */
static void
tp_coll_elem (Emit *e, gboolean gather, guint64 elem_bytes)
{
  const WlGenTransformer *r = e->req;
  if (r->tp <= 1) /* tp >= 1 (checked): no TP group alone */
    return;
  if (r->no_sequence_parallel)
    {
      if (!gather)
        coll (e, "tp_all_reduce", SYS_COLL_ALL_REDUCE, cp_act (e), e->tp_pg, TRUE, STREAM_CHAIN);
    }
  else if (gather)
    coll (e, "tp_all_gather", SYS_COLL_ALL_GATHER, cp_act (e) / 2 * elem_bytes / r->tp, e->tp_pg,
          TRUE, STREAM_CHAIN);
  else
    coll (e, "tp_reduce_scatter", SYS_COLL_REDUCE_SCATTER, cp_act (e), e->tp_pg, TRUE,
          STREAM_CHAIN);
}

static void
tp_coll (Emit *e, gboolean gather)
{
  tp_coll_elem (e, gather, 2);
}

/* The all-gather before a layer block's forward: of the norm's output,
 * which is FP8 (1 byte) when the GEMM after it is (Transformer Engine 1.10
 * layernorm_linear.py: the FP8 ln_out gathered, gather_along_first_dim).
 * The backward's gathers stay at bf16 size: there Transformer Engine
 * gathers the FP8 output gradient (base.py grad_output_preprocess) and
 * gathers the FP8 norm output again for the weight gradient, together the
 * bytes of one bf16 gather (as one collective here). */
static void
tp_gather_fwd (Emit *e)
{
  tp_coll_elem (e, TRUE, e->req->fp8 ? 1 : 2);
}

/* Transformer Engine's FP8 copies of model chunk K's weights, before its
 * first micro-batch's forward (wl_tf_kernels_fp8_weights). */
static void
fp8_weights (Emit *e, guint32 k)
{
  guint32 layers = wl_tf_chunk_layers (e->req, k);
  if (!e->req->fp8 || layers == 0)
    return;
  WlTfKernels kk;
  wl_tf_kernels_init (&kk);
  wl_tf_kernels_fp8_weights (e, &kk, layers);
  comp_after (e, "fp8_weight_cast", &kk, FALSE, NULL);
  wl_tf_kernels_clear (&kk);
}

/* Ranks of the FP8 amax reduction: Megatron-core's fp8_group, the TP x DP
 * x CP ranks of the stage (megatron/core/transformer/transformer_block.py
 * get_amax_reduction_group (with_context_parallel=True), parallel_state.py
 * _TENSOR_AND_DATA_PARALLEL_GROUP_WITH_CP). */
static guint32
amax_n (const WlGenTransformer *r)
{
  return r->tp * wl_tf_cp (r) * r->dp;
}

/* The end of model chunk K's FP8 region, forward or backward (BWD): the
 * amaxes of every FP8 tensor of the rank's modules (all its chunks: they
 * share Transformer Engine's global buffer, fp8.py
 * add_fp8_tensors_to_global_buffer) all-reduced (MAX) over the amax group
 * on the compute stream (async_op=False), then concatenated and the
 * histories and scales updated (wl_tf_kernels_fp8_amax; Transformer
 * Engine concatenates before the all-reduce).  Megatron-core wraps each
 * chunk's TransformerBlock in one fp8_autocast: forward, at its exit;
 * backward, at the end of its first FP8 module's backward. */
static void
fp8_amax (Emit *e, guint32 k, gboolean bwd)
{
  const WlGenTransformer *r = e->req;
  if (!r->fp8 || wl_tf_chunk_layers (r, k) == 0)
    return;
  guint64 n = (guint64) (bwd ? WL_TF_FP8_AMAX_BWD : WL_TF_FP8_AMAX_FWD) * stage_layers (r, e->p);
  if (amax_n (r) > 1)
    coll (e, "fp8_amax_all_reduce", SYS_COLL_ALL_REDUCE, 4 * n, e->amax_pg, TRUE, STREAM_CHAIN);
  WlTfKernels kk;
  wl_tf_kernels_init (&kk);
  wl_tf_kernels_fp8_amax (&kk, n);
  comp_after (e, "fp8_amax_update", &kk, FALSE, NULL);
  wl_tf_kernels_clear (&kk);
}

/* Ranks a dense gradient is reduced over: the DP x CP ranks of the same
 * (t, p) (Megatron reduces over its dp_cp group: megatron/core/
 * distributed/distributed_data_parallel.py). */
static guint32
dp_n (const Emit *e)
{
  return e->req->dp * wl_tf_cp (e->req);
}

/* The gradient synchronisation of PARAMS parameters (all tp ranks) after
 * their last backward, off the chain on stream 1: an all-reduce (ZeRO 0,
 * 1) or a reduce-scatter (ZeRO 2, 3, or the distributed optimizer) of
 * their bf16 gradients.  ZeRO 1 and 2 and the distributed optimizer then
 * all-gather the updated parameter shards, after the optimizer step that
 * updates them (step).  The optimizer step waits for every gradient
 * collective. */
static void
dp_grads_on (Emit *e, guint64 params, const char *pg, guint32 n)
{
  const WlGenTransformer *r = e->req;
  if (n == 1)
    return;
  guint64 bytes = 2 * (params / r->tp);
  gboolean rs = r->zero >= 2 || r->distributed_optimizer;
  guint64 g = coll (e, rs ? "dp_reduce_scatter" : "dp_all_reduce",
                    rs ? SYS_COLL_REDUCE_SCATTER : SYS_COLL_ALL_REDUCE, bytes, pg, FALSE,
                    STREAM_DP);
  g_array_append_val (e->grad_ids, g);
  if (r->distributed_optimizer || r->zero == 1 || r->zero == 2)
    {
      WlTfGather gather = { .params = params, .pg = pg, .n = n };
      g_array_append_val (e->gathers, gather);
    }
}

static void
dp_grads (Emit *e, guint64 params)
{
  dp_grads_on (e, params, e->dp_pg, dp_n (e));
}

/* ZeRO-3: the blocking all-gather of a unit's parameters before its use
 * (each rank contributes its 1/n shard). */
static void
dp_gather_on (Emit *e, guint64 params, const char *pg, guint32 n)
{
  const WlGenTransformer *r = e->req;
  if (r->zero >= 3 && n > 1)
    coll (e, "dp_param_all_gather", SYS_COLL_ALL_GATHER, wl_tf_zero3_shard (r, params, n), pg, TRUE,
          STREAM_DP);
}

static void
dp_gather (Emit *e, guint64 params)
{
  dp_gather_on (e, params, e->dp_pg, dp_n (e));
}

/* Gradients in Megatron's buckets (ZeRO 0 with --dp-bucket or without
 * overlap), else one collective per unit (a layer, the embedding, the LM
 * head). */
static gboolean
bucketed (const WlGenTransformer *r)
{
  return r->zero == 0 && (r->dp_bucket_B > 0 || r->no_dp_overlap);
}

/* Close the open bucket: its collective now (overlapped with the rest of
 * the backward), or at the end of the backward without overlap. */
static void
flush (Emit *e)
{
  if (e->bucket == 0)
    return;
  if (e->req->no_dp_overlap)
    g_array_append_val (e->deferred, e->bucket);
  else
    dp_grads (e, e->bucket);
  e->bucket = 0;
}

/* PARAMS dense parameters got their last gradient.  Megatron fills a
 * bucket in backward order and launches it once it holds at least
 * bucket_size parameters (megatron/core/distributed/param_and_grad_buffer.py),
 * but only on the first stage's first model chunk: later stages and chunks
 * get one bucket each (distributed_data_parallel.py: bucket_size = None
 * when pp_rank > 0; megatron/training: disable_bucketing for chunks > 0),
 * and every chunk gets one without overlap (overlap_grad_reduce off). */
static void
unit_done (Emit *e, guint64 params, gboolean first_chunk)
{
  const WlGenTransformer *r = e->req;
  if (!bucketed (r))
    {
      dp_grads (e, params);
      return;
    }
  e->bucket += params;
  /* Each rank's buffer holds its 1/tp of the parameters, 2 bytes each. */
  if (!r->no_dp_overlap && first_chunk && e->bucket / r->tp >= r->dp_bucket_B / 2)
    flush (e);
}

/* A layer's gradients: the MLP's after its backward (the experts on the
 * expert-DP group of dp / ep ranks, one collective per layer), the
 * attention's after its own; unbucketed, the whole layer after the
 * attention. */
static void
mlp_grads (Emit *e, gboolean first_chunk)
{
  const WlGenTransformer *r = e->req;
  if (!bucketed (r))
    return;
  if (r->model.experts > 0)
    dp_grads_on (e, expert_part (r), e->edp_pg, r->dp / ep_of (r));
  else
    unit_done (e, ffn_params (&r->model), first_chunk);
}

static void
attn_grads (Emit *e, gboolean first_chunk)
{
  const WlGenTransformer *r = e->req;
  if (bucketed (r))
    {
      unit_done (e, attn_params (&r->model), first_chunk);
      return;
    }
  dp_grads (e, dense_part (&r->model));
  if (r->model.experts > 0)
    dp_grads_on (e, expert_part (r), e->edp_pg, r->dp / ep_of (r));
}

static void
layer_gather (Emit *e)
{
  dp_gather (e, dense_part (&e->req->model));
  if (e->req->model.experts > 0)
    dp_gather_on (e, expert_part (e->req), e->edp_pg, e->req->dp / ep_of (e->req));
}

/* A dispatch or combine all-to-all of an MoE layer on the EP group: the
 * rank's sequence-parallel share of the tokens, each sent to top_k experts. */
static void
ep_a2a (Emit *e, const char *name)
{
  const WlGenTransformer *r = e->req;
  if (r->model.experts == 0 || ep_of (r) == 1)
    return;
  coll (e, name, SYS_COLL_ALL_TO_ALL, wl_tf_ep_a2a_bytes (r, e->c.act_bytes), e->ep_pg, TRUE,
        STREAM_CHAIN);
}

/* The parameters the rank's optimizer step updates: its stage's, 1/tp,
 * sharded over the DP x CP ranks (experts: expert-DP ranks) with ZeRO or
 * the distributed optimizer. */
guint64
wl_tf_step_params (const WlGenTransformer *r, guint32 p)
{
  guint64 emb = wl_tf_padded_vocab (r) * r->model.hidden, n = stage_layers (r, p);
  guint64 dense = n * dense_part (&r->model) + (p == 0 ? emb : 0) + (p + 1 == r->pp ? emb : 0);
  guint64 experts = n * expert_part (r);
  dense /= r->tp;
  experts /= r->tp;
  if (r->zero >= 1 || r->distributed_optimizer)
    {
      dense /= (guint64) r->dp * wl_tf_cp (r);
      experts /= r->dp / ep_of (r);
    }
  return dense + experts;
}

/* Local DDP's coalescing of PARAMS gradients on the chain: the flatten and
 * divide before the deferred all-reduces (which follow it), or the copy
 * back after every gradient collective (UNFLATTEN). */
static void
coalesce (Emit *e, guint64 params, gboolean unflatten)
{
  WlTfKernels k;
  wl_tf_kernels_init (&k);
  wl_tf_kernels_coalesce (&k, params, unflatten);
  comp_after (e, unflatten ? "dp_unflatten" : "dp_flatten", &k, FALSE,
              unflatten ? e->grad_ids : NULL);
  wl_tf_kernels_clear (&k);
}

/* After the rank's last backward: the gradient collectives left for the
 * end (no overlap: Megatron-LM v2.5's local DDP all-reduced after the
 * whole backward, megatron/training.py train_step), the optimizer step
 * after all of them, then the all-gathers of the updated parameter shards
 * (the distributed optimizer's: megatron/core/optimizer/
 * distrib_optimizer.py; ZeRO 1 and 2's: DeepSpeed's stage-1/2 optimizer
 * gathers the updated fp16 partitions at the end of its step,
 * deepspeed/runtime/zero/stage_1_and_2.py step), each on the group that
 * sharded its bucket. */
static void
step (Emit *e)
{
  const WlGenTransformer *r = e->req;
  guint64 deferred = 0;
  for (guint i = 0; i < e->deferred->len; i++)
    deferred += g_array_index (e->deferred, guint64, i);
  if (r->dp_coalesce && deferred > 0)
    coalesce (e, deferred / r->tp, FALSE);
  for (guint i = 0; i < e->deferred->len; i++)
    dp_grads (e, g_array_index (e->deferred, guint64, i));
  g_array_set_size (e->deferred, 0);
  if (r->dp_coalesce && deferred > 0)
    coalesce (e, deferred / r->tp, TRUE);
  WlTfKernels k;
  wl_tf_kernels_init (&k);
  wl_tf_kernels_optimizer (&k, wl_tf_step_params (r, e->p), r);
  comp_after (e, "optimizer_step", &k, FALSE, e->grad_ids);
  wl_tf_kernels_clear (&k);
  g_array_set_size (e->grad_ids, 0);
  for (guint i = 0; i < e->gathers->len; i++)
    {
      const WlTfGather *g = &g_array_index (e->gathers, WlTfGather, i);
      coll (e, "dp_param_all_gather", SYS_COLL_ALL_GATHER, 2 * (g->params / r->tp) / g->n, g->pg,
            FALSE, STREAM_DP);
    }
  g_array_set_size (e->gathers, 0);
}

/* Model chunk index of the rank's chunk CHUNK, and whether it is the last
 * (the one with the LM head). */
static guint32
chunk_index (const Emit *e, guint32 chunk)
{
  return chunk * e->req->pp + e->p;
}

static gboolean
last_chunk (const Emit *e, guint32 k)
{
  return k + 1 == e->req->pp * wl_tf_vstages (e->req);
}

/* One layer's forward, or its full recomputation (RECOMPUTE: the same
 * nodes, TP, CP and EP communication included, its compute nodes marked
 * is_recompute). */
static void
layer_fwd (Emit *e, gboolean recompute)
{
  tp_gather_fwd (e);
  guint64 kv = cp_exchange (e, FALSE);
  block (e, recompute ? "recompute_attn_fwd" : "attn_fwd", wl_tf_kernels_attn, FALSE, recompute);
  cp_join (e, kv);
  tp_coll (e, FALSE);
  ep_a2a (e, "ep_dispatch");
  tp_gather_fwd (e);
  block (e, recompute ? "recompute_mlp_fwd" : "mlp_fwd", wl_tf_kernels_mlp, FALSE, recompute);
  tp_coll (e, FALSE);
  ep_a2a (e, "ep_combine");
}

void
wl_tf_forward (Emit *e, guint32 chunk, guint32 mb)
{
  const WlTransformerModel *m = &e->req->model;
  guint32 k = chunk_index (e, chunk), pp = e->req->pp;
  if (k > 0)
    p2p (e, FALSE, (k - 1) % pp, k - 1, mb, FALSE);
  else
    {
      dp_gather (e, wl_tf_padded_vocab (e->req) * m->hidden);
      block (e, "embedding_fwd", wl_tf_kernels_embed, FALSE, FALSE);
      tp_coll (e, FALSE); /* VocabParallelEmbedding's reduce(-scatter) */
    }
  if (mb == 0)
    fp8_weights (e, k);
  for (guint32 l = 0; l < wl_tf_chunk_layers (e->req, k); l++)
    {
      layer_gather (e);
      layer_fwd (e, FALSE);
    }
  fp8_amax (e, k, FALSE);
  if (last_chunk (e, k))
    {
      dp_gather (e, wl_tf_padded_vocab (e->req) * m->hidden);
      tp_coll (e, TRUE); /* the output layer's input, gathered under SP */
      block (e, "lm_head_fwd", wl_tf_kernels_head, FALSE, FALSE);
    }
  else
    p2p (e, TRUE, (k + 1) % pp, k, mb, FALSE);
}

/* One layer's backward (after its recomputation, if any); FINAL: the last
 * micro-batch's, which reduces the gradients. */
static void
layer_bwd (Emit *e, gboolean final, gboolean first_chunk)
{
  const WlGenTransformer *r = e->req;
  layer_gather (e);
  if (r->recompute == WL_RECOMPUTE_FULL)
    layer_fwd (e, TRUE);
  ep_a2a (e, "ep_combine_bwd");
  tp_coll (e, TRUE);
  block (e, "mlp_bwd", wl_tf_kernels_mlp, TRUE, FALSE);
  tp_coll (e, FALSE);
  if (final)
    mlp_grads (e, first_chunk);
  ep_a2a (e, "ep_dispatch_bwd");
  tp_coll (e, TRUE);
  if (r->recompute == WL_RECOMPUTE_SELECTIVE)
    {
      /* Only the core attention again (Korthikanti et al. 2022 section 5),
       * its ring exchanges with it. */
      guint64 kv = cp_exchange (e, FALSE);
      block (e, "recompute_core_attn", wl_tf_kernels_core, FALSE, TRUE);
      cp_join (e, kv);
    }
  guint64 kv = cp_exchange (e, FALSE);
  block (e, "attn_bwd", wl_tf_kernels_attn, TRUE, FALSE);
  cp_join (e, kv);
  cp_exchange (e, TRUE);
  tp_coll (e, FALSE);
  if (final)
    attn_grads (e, first_chunk);
}

/* Unfused gradient accumulation (WlGenTransformer unfused_grad_accum): the
 * additions of a later micro-batch's gradients of model chunk K, on the
 * chain after its layers' backward. */
static void
grad_accum (Emit *e, guint32 k)
{
  const WlGenTransformer *r = e->req;
  guint64 emb = wl_tf_padded_vocab (r) * r->model.hidden;
  guint64 params = wl_tf_chunk_layers (r, k) * layer_local (r) + (k == 0 ? emb : 0)
                   + (last_chunk (e, k) ? emb : 0);
  WlTfKernels kk;
  wl_tf_kernels_init (&kk);
  wl_tf_kernels_grad_accum (&kk, params / r->tp);
  comp_after (e, "grad_accum", &kk, FALSE, NULL);
  wl_tf_kernels_clear (&kk);
}

void
wl_tf_backward (Emit *e, guint32 chunk, guint32 mb)
{
  const WlTransformerModel *m = &e->req->model;
  guint32 k = chunk_index (e, chunk), pp = e->req->pp;
  guint64 emb = wl_tf_padded_vocab (e->req) * m->hidden;
  gboolean final = mb + 1 == e->M, first_chunk = k == 0;
  if (last_chunk (e, k))
    {
      dp_gather (e, emb);
      block (e, "lm_head_bwd", wl_tf_kernels_head, TRUE, FALSE);
      tp_coll (e, FALSE);
      if (final)
        unit_done (e, emb, first_chunk);
    }
  else
    p2p (e, FALSE, (k + 1) % pp, k, mb, TRUE);
  for (guint32 l = 0; l < wl_tf_chunk_layers (e->req, k); l++)
    layer_bwd (e, final, first_chunk);
  fp8_amax (e, k, TRUE);
  if (e->req->unfused_grad_accum && mb > 0)
    grad_accum (e, k);
  if (k > 0)
    p2p (e, TRUE, (k - 1) % pp, k - 1, mb, TRUE);
  else
    {
      tp_coll (e, TRUE);
      block (e, "embedding_bwd", wl_tf_kernels_embed, TRUE, FALSE);
      if (final)
        unit_done (e, emb, first_chunk);
    }
  if (final)
    flush (e);
  /* The rank's last backward is its first chunk's last micro-batch's. */
  if (final && chunk == 0)
    step (e);
}
