/* gen_transformer_emit.c: a rank's nodes of a transformer iteration: a
 * micro-batch's forward and backward of one model chunk (see
 * gen_transformer.h). */
#include <math.h>

#include "sim/error.h"
#include "system/sys_params.h"
#include "workload/gen.h"
#include "workload/gen_transformer_private.h"


/* Append a node depending on the chain's last node; CHAIN makes it the new
 * last node (nodes off the chain, like sends and gradient all-reduces, are
 * waited for by nothing).  Returns its id. */
static guint64
emit (Emit *e, const char *name, int type, ChakraProtoMsg__AttributeProto *attrs, gsize n,
      gboolean chain)
{
  ChakraProtoMsg__AttributeProto *ptrs[8];
  g_assert (n <= G_N_ELEMENTS (ptrs));
  for (gsize i = 0; i < n; i++)
    ptrs[i] = &attrs[i];
  ChakraProtoMsg__Node node = CHAKRA_PROTO_MSG__NODE__INIT;
  guint64 deps[2];
  gsize n_deps = 0;
  if (e->has_last)
    deps[n_deps++] = e->last;
  if (e->has_extra)
    deps[n_deps++] = e->extra;
  e->has_extra = FALSE;
  node.id = e->next_id++;
  node.name = (char *) name;
  node.duration_micros = e->duration_us;
  e->duration_us = 0;
  node.type = type;
  node.attr = ptrs;
  node.n_attr = n;
  if (n_deps > 0)
    {
      node.n_data_deps = n_deps;
      node.data_deps = deps;
    }
  if (e->ok)
    e->ok = wl_chakra_writer_add (e->w, &node, e->error);
  if (chain)
    {
      e->last = node.id;
      e->has_last = TRUE;
    }
  return node.id;
}

static void
comp (Emit *e, const char *name, guint64 flops, guint64 bytes)
{
  ChakraProtoMsg__AttributeProto a[2];
  wl_chakra_attr_set_int64 (&a[0], "num_ops", (gint64) (flops / e->req->tp));
  a[1] = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a[1].name = (char *) "tensor_size";
  a[1].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_UINT64_VAL;
  a[1].uint64_val = bytes;
  e->duration_us = 0;
  WlRoofline roof;
  if (e->req->device != NULL && wl_device_roofline (e->req->device, WL_DTYPE_BF16, &roof))
    e->duration_us = (guint64) ceil (wl_roofline_ns (&roof, flops / e->req->tp, bytes) / 1000.0);
  emit (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, a, 2, TRUE);
}

static guint64
coll (Emit *e, const char *name, SysCollKind kind, guint64 bytes, const char *pg, gboolean chain)
{
  ChakraProtoMsg__AttributeProto a[3];
  wl_chakra_attr_set_int64 (&a[0], "comm_type", wl_chakra_comm_type_of (kind));
  wl_chakra_attr_set_int64 (&a[1], "comm_size", (gint64) bytes);
  a[2] = (ChakraProtoMsg__AttributeProto) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__INIT;
  a[2].name = (char *) "pg_name";
  a[2].value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a[2].string_val = (char *) pg;
  return emit (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, a, 3, chain);
}

/* A send (asynchronous: off the chain) or a receive (on it) of an
 * activation or gradient for micro-batch MB with the stage PEER, across the
 * boundary after model chunk K (between chunks K and K + 1).  The tag is
 * 2 (mb + M (K / pp)) (+1 for gradients): unique per micro-batch and
 * boundary between two stages, and 2 mb (+1) without interleaving. */
static void
p2p (Emit *e, gboolean send, guint32 peer_stage, guint32 k, guint32 mb, gboolean grad)
{
  const WlGenTransformer *r = e->req;
  guint32 me = rank_of (r, e->t, e->d, e->p), peer = rank_of (r, e->t, e->d, peer_stage);
  ChakraProtoMsg__AttributeProto a[4];
  wl_chakra_attr_set_int32 (&a[0], "comm_src", (gint32) (send ? me : peer));
  wl_chakra_attr_set_int32 (&a[1], "comm_dst", (gint32) (send ? peer : me));
  wl_chakra_attr_set_int32 (&a[2], "comm_tag", (gint32) (2 * (mb + e->M * (k / r->pp)) + (grad ? 1 : 0)));
  wl_chakra_attr_set_int64 (&a[3], "comm_size", (gint64) e->c.act_bytes);
  const char *name = grad ? (send ? "send_grad" : "recv_grad") : (send ? "send_act" : "recv_act");
  emit (e, name,
        send ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE,
        a, 4, !send);
}

/* The sequence-parallel all-gather before, or reduce-scatter after, a block. */
static void
tp_coll (Emit *e, gboolean gather)
{
  if (e->req->tp == 1)
    return;
  if (gather)
    coll (e, "tp_all_gather", SYS_COLL_ALL_GATHER, e->c.act_bytes / e->req->tp, e->tp_pg, TRUE);
  else
    coll (e, "tp_reduce_scatter", SYS_COLL_REDUCE_SCATTER, e->c.act_bytes, e->tp_pg, TRUE);
}

/* Estimated bytes read and written by a block's forward: its weights (a
 * 1/tp share), its input and output, and its intermediates (1/tp). */
static guint64
block_bytes (const Emit *e, gboolean mlp)
{
  const WlTransformerModel *m = &e->req->model;
  guint64 h = m->hidden, t = e->c.tokens, tp = e->req->tp;
  guint64 weights = mlp ? expert_part (e->req) + (m->experts ? 0 : ffn_params (m)) : attn_params (m);
  guint64 inter = mlp ? (m->experts ? m->top_k : 1) * ffn_mats (m) * t * m->ffn : 4 * t * h;
  return 2 * (weights / tp + 2 * t * h + inter / tp);
}

/* The gradient synchronisation of a unit of PARAMS parameters (all tp
 * ranks) after its last backward, off the chain: an all-reduce (ZeRO 0, 1)
 * or a reduce-scatter (2, 3) of its bf16 gradients; ZeRO 1 and 2 then
 * all-gather the updated parameter shards (after the gradient collective). */
static void
dp_grads_on (Emit *e, guint64 params, const char *pg, guint32 n)
{
  const WlGenTransformer *r = e->req;
  if (n == 1)
    return;
  guint64 bytes = 2 * (params / r->tp);
  guint64 g = coll (e, r->zero >= 2 ? "dp_reduce_scatter" : "dp_all_reduce",
                    r->zero >= 2 ? SYS_COLL_REDUCE_SCATTER : SYS_COLL_ALL_REDUCE, bytes, pg,
                    FALSE);
  if (r->zero == 1 || r->zero == 2)
    {
      e->extra = g;
      e->has_extra = TRUE;
      coll (e, "dp_param_all_gather", SYS_COLL_ALL_GATHER, bytes / n, pg, FALSE);
    }
}

static void
dp_grads (Emit *e, guint64 params)
{
  dp_grads_on (e, params, e->dp_pg, e->req->dp);
}

/* ZeRO-3: the blocking all-gather of a unit's parameters before its use
 * (each rank contributes its 1/n shard). */
static void
dp_gather_on (Emit *e, guint64 params, const char *pg, guint32 n)
{
  const WlGenTransformer *r = e->req;
  if (r->zero >= 3 && n > 1)
    coll (e, "dp_param_all_gather", SYS_COLL_ALL_GATHER, 2 * (params / r->tp) / n, pg, TRUE);
}

static void
dp_gather (Emit *e, guint64 params)
{
  dp_gather_on (e, params, e->dp_pg, e->req->dp);
}

/* A layer's gradient synchronisation / ZeRO-3 gather: the dense part on the
 * DP group, the rank's experts on its expert-DP group of dp / ep ranks. */
static void
layer_grads (Emit *e)
{
  dp_grads (e, dense_part (&e->req->model));
  if (e->req->model.experts > 0)
    dp_grads_on (e, expert_part (e->req), e->edp_pg, e->req->dp / ep_of (e->req));
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
  coll (e, name, SYS_COLL_ALL_TO_ALL, r->model.top_k * e->c.act_bytes / r->tp, e->ep_pg, TRUE);
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

void
wl_tf_forward (Emit *e, guint32 chunk, guint32 mb)
{
  const WlTransformerModel *m = &e->req->model;
  guint32 k = chunk_index (e, chunk), pp = e->req->pp;
  if (k > 0)
    p2p (e, FALSE, (k - 1) % pp, k - 1, mb, FALSE);
  else
    dp_gather (e, (guint64) m->vocab * m->hidden); /* the embedding */
  for (guint32 l = 0; l < wl_tf_chunk_layers (e->req, k); l++)
    {
      layer_gather (e);
      tp_coll (e, TRUE);
      comp (e, "attn_fwd", e->c.attn, block_bytes (e, FALSE));
      tp_coll (e, FALSE);
      ep_a2a (e, "ep_dispatch");
      tp_coll (e, TRUE);
      comp (e, "mlp_fwd", e->c.mlp, block_bytes (e, TRUE));
      tp_coll (e, FALSE);
      ep_a2a (e, "ep_combine");
    }
  if (last_chunk (e, k))
    dp_gather (e, (guint64) m->vocab * m->hidden);
  if (last_chunk (e, k))
    comp (e, "lm_head_fwd", e->c.head,
          2 * ((guint64) e->req->model.vocab * e->req->model.hidden / e->req->tp + e->c.tokens * e->req->model.hidden));
  else
    p2p (e, TRUE, (k + 1) % pp, k, mb, FALSE);
}

void
wl_tf_backward (Emit *e, guint32 chunk, guint32 mb)
{
  const WlTransformerModel *m = &e->req->model;
  guint32 k = chunk_index (e, chunk), pp = e->req->pp;
  gboolean final = mb + 1 == e->M;
  if (last_chunk (e, k))
    {
      dp_gather (e, (guint64) m->vocab * m->hidden);
      comp (e, "lm_head_bwd", 2 * e->c.head,
            4 * ((guint64) m->vocab * m->hidden / e->req->tp + e->c.tokens * m->hidden));
      if (final)
        dp_grads (e, (guint64) m->vocab * m->hidden);
    }
  else
    p2p (e, FALSE, (k + 1) % pp, k, mb, TRUE);
  for (guint32 l = 0; l < wl_tf_chunk_layers (e->req, k); l++)
    {
      layer_gather (e);
      if (e->req->recompute)
        comp (e, "recompute_fwd", e->c.attn + e->c.mlp,
              block_bytes (e, FALSE) + block_bytes (e, TRUE));
      ep_a2a (e, "ep_combine_bwd");
      tp_coll (e, TRUE);
      comp (e, "mlp_bwd", 2 * e->c.mlp, 2 * block_bytes (e, TRUE));
      tp_coll (e, FALSE);
      ep_a2a (e, "ep_dispatch_bwd");
      tp_coll (e, TRUE);
      comp (e, "attn_bwd", 2 * e->c.attn, 2 * block_bytes (e, FALSE));
      tp_coll (e, FALSE);
      if (final)
        layer_grads (e);
    }
  if (k > 0)
    p2p (e, TRUE, (k - 1) % pp, k - 1, mb, TRUE);
  else if (final)
    dp_grads (e, (guint64) m->vocab * m->hidden);
}
