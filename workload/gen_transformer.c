/* gen_transformer.c: the dense transformer training-iteration generator. */
#include "workload/gen_transformer.h"

#include <math.h>

#include <string.h>

#include "sim/error.h"
#include "system/sys_params.h"
#include "workload/chakra.h"
#include "workload/gen.h"
#include "workload/wl_error.h"

static const WlTransformerModel presets[] = {
  { "gpt3-175b", 96, 12288, 96, 0, 4 * 12288, 50257, 2048, FALSE, 0, 0 },
  { "llama2-7b", 32, 4096, 32, 0, 11008, 32000, 4096, TRUE, 0, 0 },
  { "llama2-70b", 80, 8192, 64, 8, 28672, 32000, 4096, TRUE, 0, 0 },
  { "llama3-8b", 32, 4096, 32, 8, 14336, 128256, 8192, TRUE, 0, 0 },
  { "llama3-70b", 80, 8192, 64, 8, 28672, 128256, 8192, TRUE, 0, 0 },
  { "llama3-405b", 126, 16384, 128, 8, 53248, 128256, 8192, TRUE, 0, 0 },
  { "mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 4096, TRUE, 8, 2 },
};

const WlTransformerModel *
wl_transformer_presets (guint *n)
{
  *n = G_N_ELEMENTS (presets);
  return presets;
}

const WlTransformerModel *
wl_transformer_preset (const char *name)
{
  for (guint i = 0; i < G_N_ELEMENTS (presets); i++)
    if (g_ascii_strcasecmp (name, presets[i].name) == 0)
      return &presets[i];
  return NULL;
}

static guint64
ffn_mats (const WlTransformerModel *m)
{
  return m->gated_ffn ? 3 : 2;
}

/* Q and output projections h x h, K and V h x (h kv_heads / heads). */
static guint64
attn_params (const WlTransformerModel *m)
{
  guint64 h = m->hidden, kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
  return 2 * h * h + 2 * h * (h * kv / m->heads);
}

/* One FFN (one expert). */
static guint64
ffn_params (const WlTransformerModel *m)
{
  return ffn_mats (m) * m->hidden * m->ffn;
}

static guint64
layer_params (const WlTransformerModel *m)
{
  return attn_params (m) + (m->experts > 0 ? m->experts : 1) * ffn_params (m);
}

guint64
wl_transformer_params (const WlTransformerModel *m)
{
  return m->layers * layer_params (m) + 2 * (guint64) m->vocab * m->hidden;
}

guint64
wl_transformer_active_params (const WlTransformerModel *m)
{
  guint64 k = m->experts > 0 ? m->top_k : 1;
  return m->layers * (attn_params (m) + k * ffn_params (m)) + 2 * (guint64) m->vocab * m->hidden;
}

static guint32
ep_of (const WlGenTransformer *r)
{
  return r->ep > 0 ? r->ep : 1;
}

/* A layer's parameters on one rank (all tp slices together), synchronised
 * over the full DP group (dense) or the expert-DP group (experts). */
static guint64
dense_part (const WlTransformerModel *m)
{
  return m->experts > 0 ? attn_params (m) : layer_params (m);
}

static guint64
expert_part (const WlGenTransformer *r)
{
  return r->model.experts > 0 ? r->model.experts / ep_of (r) * ffn_params (&r->model) : 0;
}

static guint64
layer_local (const WlGenTransformer *r)
{
  return dense_part (&r->model) + expert_part (r);
}

static gboolean
bad (GError **error, const char *msg)
{
  g_set_error_literal (error, WL_ERROR, SIM_ERROR_INPUT, msg);
  return FALSE;
}

guint32
wl_gen_transformer_microbatches (const WlGenTransformer *r, GError **error)
{
  const WlTransformerModel *m = &r->model;
  if (m->layers == 0 || m->hidden == 0 || m->heads == 0 || m->ffn == 0 || m->vocab == 0
      || m->seq == 0)
    return bad (error, "the model needs layers, hidden, heads, ffn, vocab and seq above 0");
  if (r->micro_batch == 0 || r->tp == 0 || r->pp == 0 || r->dp == 0)
    return bad (error, "micro-batch, tp, pp and dp must be at least 1");
  if (m->layers < r->pp)
    return bad (error, "more pipeline stages than layers");
  if (m->hidden % r->tp != 0 || m->heads % r->tp != 0 || m->ffn % r->tp != 0)
    return bad (error, "tp must divide hidden, heads and ffn");
  if (r->zero > 3)
    return bad (error, "the ZeRO stage must be 0, 1, 2 or 3");
  if (m->kv_heads > m->heads || (m->kv_heads > 0 && m->heads % m->kv_heads != 0))
    return bad (error, "kv heads must divide heads");
  if (r->dp % ep_of (r) != 0)
    return bad (error, "ep must divide dp");
  if (m->experts == 0 && ep_of (r) > 1)
    return bad (error, "expert parallelism needs experts");
  if (m->experts > 0 && (m->top_k == 0 || m->top_k > m->experts || m->experts % ep_of (r) != 0))
    return bad (error, "top-k must be 1 .. experts and ep must divide experts");
  guint64 per_step = (guint64) r->micro_batch * r->dp;
  if (r->microbatches > 0)
    {
      if (r->global_batch > 0 && r->global_batch != per_step * r->microbatches)
        return bad (error, "global batch != micro-batch x dp x microbatches");
      return r->microbatches;
    }
  if (r->global_batch == 0 || r->global_batch % per_step != 0)
    return bad (error, "the global batch must be a positive multiple of micro-batch x dp");
  return (guint32) (r->global_batch / per_step);
}

/* Forward FLOPs of one micro-batch on all tp ranks together. */
typedef struct
{
  guint64 attn, mlp, head, tokens, act_bytes;
} Costs;

static Costs
costs_of (const WlGenTransformer *r)
{
  const WlTransformerModel *m = &r->model;
  guint64 b = r->micro_batch, s = m->seq, h = m->hidden, t = b * s;
  return (Costs) { .attn = 2 * t * attn_params (m) + 4 * b * s * s * h,
                   .mlp = 2 * (guint64) (m->experts > 0 ? m->top_k : 1) * ffn_mats (m) * t * h * m->ffn,
                   .head = 2 * t * h * m->vocab,
                   .tokens = t,
                   .act_bytes = 2 * t * h };
}

double
wl_gen_transformer_flops (const WlGenTransformer *r)
{
  guint32 M = wl_gen_transformer_microbatches (r, NULL);
  Costs c = costs_of (r);
  double layers = (double) r->model.layers * (double) (c.attn + c.mlp);
  double fwd = layers + (double) c.head;
  return (double) M * r->dp * (3 * fwd + (r->recompute ? layers : 0));
}

/* ---- memory (see the header) ------------------------------------------------ */

static guint32
stage_layers (const WlGenTransformer *r, guint32 p)
{
  return r->model.layers / r->pp + (p < r->model.layers % r->pp ? 1 : 0);
}

gboolean
wl_gen_transformer_memory (const WlGenTransformer *r, WlStageMemory *out, GError **error)
{
  g_return_val_if_fail (r != NULL && out != NULL, FALSE);
  guint32 M = wl_gen_transformer_microbatches (r, error);
  if (M == 0)
    return FALSE;
  const WlTransformerModel *m = &r->model;
  guint64 s = m->seq, b = r->micro_batch, h = m->hidden, a = m->heads, tp = r->tp;
  guint64 emb = (guint64) m->vocab * h;
  /* tp divides h and heads, so both terms divide exactly. */
  /* With sequence parallelism even the one kept input is split over the
   * tensor group. */
  guint64 per_layer = r->recompute ? 2 * s * b * h / tp : (34 * s * b * h + 5 * a * s * s * b) / tp;
  for (guint32 p = 0; p < r->pp; p++)
    {
      WlStageMemory *o = &out[p];
      o->layers = stage_layers (r, p);
      guint64 params = o->layers * dense_part (m) + (p == 0 ? emb : 0)
                       + (p + 1 == r->pp ? emb : 0);
      guint64 n = params / tp, ne = o->layers * expert_part (r) / tp;
      o->in_flight = r->schedule == WL_PIPE_GPIPE ? M : MIN (M, r->pp - p);
      guint64 dp = r->dp, edp = r->dp / ep_of (r);
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
      o->grads_B = r->zero >= 2 ? 2 * n / dp + 2 * ne / edp : 2 * n + 2 * ne;
      o->optimizer_B = r->zero >= 1 ? 12 * n / dp + 12 * ne / edp : 12 * n + 12 * ne;
      o->activations_B = (guint64) o->layers * o->in_flight * per_layer;
      o->total_B = o->params_B + o->grads_B + o->optimizer_B + o->activations_B;
    }
  return TRUE;
}

/* ---- emission ---------------------------------------------------------------- */

typedef struct
{
  const WlGenTransformer *req;
  Costs c;
  guint32 M, t, d, p, nl;
  WlChakraWriter *w;
  GError **error;
  gboolean ok;
  guint64 next_id, last, extra;
  gboolean has_last, has_extra; /* extra: a second dependency, used once */
  guint64 duration_us;          /* of the next node emitted (compute only) */
  char tp_pg[16], dp_pg[16], ep_pg[16], edp_pg[16];
} Emit;

static guint32
rank_of (const WlGenTransformer *r, guint32 t, guint32 d, guint32 p)
{
  return t + r->tp * (d + r->dp * p);
}


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
 * activation or gradient for micro-batch MB with the stage PEER. */
static void
p2p (Emit *e, gboolean send, guint32 peer_stage, guint32 mb, gboolean grad)
{
  const WlGenTransformer *r = e->req;
  guint32 me = rank_of (r, e->t, e->d, e->p), peer = rank_of (r, e->t, e->d, peer_stage);
  ChakraProtoMsg__AttributeProto a[4];
  wl_chakra_attr_set_int32 (&a[0], "comm_src", (gint32) (send ? me : peer));
  wl_chakra_attr_set_int32 (&a[1], "comm_dst", (gint32) (send ? peer : me));
  wl_chakra_attr_set_int32 (&a[2], "comm_tag", (gint32) (2 * mb + (grad ? 1 : 0)));
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

static gboolean
last_stage (const Emit *e)
{
  return e->p + 1 == e->req->pp;
}

static void
forward (Emit *e, guint32 mb)
{
  const WlTransformerModel *m = &e->req->model;
  if (e->p > 0)
    p2p (e, FALSE, e->p - 1, mb, FALSE);
  else
    dp_gather (e, (guint64) m->vocab * m->hidden); /* the embedding */
  for (guint32 l = 0; l < e->nl; l++)
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
  if (last_stage (e))
    dp_gather (e, (guint64) m->vocab * m->hidden);
  if (last_stage (e))
    comp (e, "lm_head_fwd", e->c.head,
          2 * ((guint64) e->req->model.vocab * e->req->model.hidden / e->req->tp + e->c.tokens * e->req->model.hidden));
  else
    p2p (e, TRUE, e->p + 1, mb, FALSE);
}

static void
backward (Emit *e, guint32 mb)
{
  const WlTransformerModel *m = &e->req->model;
  gboolean final = mb + 1 == e->M;
  if (last_stage (e))
    {
      dp_gather (e, (guint64) m->vocab * m->hidden);
      comp (e, "lm_head_bwd", 2 * e->c.head,
            4 * ((guint64) m->vocab * m->hidden / e->req->tp + e->c.tokens * m->hidden));
      if (final)
        dp_grads (e, (guint64) m->vocab * m->hidden);
    }
  else
    p2p (e, FALSE, e->p + 1, mb, TRUE);
  for (guint32 l = 0; l < e->nl; l++)
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
  if (e->p > 0)
    p2p (e, TRUE, e->p - 1, mb, TRUE);
  else if (final)
    dp_grads (e, (guint64) m->vocab * m->hidden);
}

static void
schedule (Emit *e)
{
  guint32 M = e->M;
  if (e->req->schedule == WL_PIPE_GPIPE)
    {
      for (guint32 i = 0; i < M; i++)
        forward (e, i);
      for (guint32 i = 0; i < M; i++)
        backward (e, i);
      return;
    }
  guint32 warm = MIN (e->req->pp - e->p - 1, M);
  for (guint32 i = 0; i < warm; i++)
    forward (e, i);
  for (guint32 i = 0; i + warm < M; i++)
    {
      forward (e, warm + i);
      backward (e, i);
    }
  for (guint32 i = M - warm; i < M; i++)
    backward (e, i);
}

static char *
groups_json (const WlGenTransformer *r)
{
  GString *s = g_string_new ("[");
  g_autofree guint32 *m = g_new (guint32, MAX (MAX (r->tp, r->dp), 1u));
  for (guint32 p = 0; p < r->pp && r->tp > 1; p++)
    for (guint32 d = 0; d < r->dp; d++)
      {
        for (guint32 t = 0; t < r->tp; t++)
          m[t] = rank_of (r, t, d, p);
        wl_gen_group_append (s, 1 + d + r->dp * p, m, r->tp);
      }
  for (guint32 p = 0; p < r->pp && r->dp > 1; p++)
    for (guint32 t = 0; t < r->tp; t++)
      {
        for (guint32 d = 0; d < r->dp; d++)
          m[d] = rank_of (r, t, d, p);
        wl_gen_group_append (s, 1 + r->dp * r->pp + t + r->tp * p, m, r->dp);
      }
  /* Expert parallelism: EP groups (ep consecutive DP indices), then the
   * expert-DP groups (same d mod ep). */
  guint32 ep = ep_of (r), edp = r->dp / ep, base = 1 + r->dp * r->pp + r->tp * r->pp;
  for (guint32 p = 0; p < r->pp && ep > 1; p++)
    for (guint32 g = 0; g < edp; g++)
      for (guint32 t = 0; t < r->tp; t++)
        {
          for (guint32 i = 0; i < ep; i++)
            m[i] = rank_of (r, t, g * ep + i, p);
          wl_gen_group_append (s, base + t + r->tp * (g + edp * p), m, ep);
        }
  base += r->tp * r->pp * edp;
  for (guint32 p = 0; p < r->pp && ep > 1 && edp > 1; p++)
    for (guint32 i = 0; i < ep; i++)
      for (guint32 t = 0; t < r->tp; t++)
        {
          for (guint32 g = 0; g < edp; g++)
            m[g] = rank_of (r, t, g * ep + i, p);
          wl_gen_group_append (s, base + t + r->tp * (i + ep * p), m, edp);
        }
  g_string_append (s, "]");
  return g_string_free (s, FALSE);
}

static gboolean
write_rank (const char *prefix, const WlGenTransformer *r, guint32 M, guint32 rank,
            const char *groups, GError **error)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", error);
  if (w == NULL)
    return FALSE;
  Emit e = { .req = r, .c = costs_of (r), .M = M, .w = w, .error = error, .ok = TRUE,
             .t = rank % r->tp, .d = rank / r->tp % r->dp, .p = rank / (r->tp * r->dp) };
  e.nl = stage_layers (r, e.p);
  g_snprintf (e.tp_pg, sizeof e.tp_pg, "%u", 1 + e.d + r->dp * e.p);
  g_snprintf (e.dp_pg, sizeof e.dp_pg, "%u", 1 + r->dp * r->pp + e.t + r->tp * e.p);
  guint32 ep = ep_of (r), edp = r->dp / ep, base = 1 + r->dp * r->pp + r->tp * r->pp;
  g_snprintf (e.ep_pg, sizeof e.ep_pg, "%u", base + e.t + r->tp * (e.d / ep + edp * e.p));
  if (ep > 1)
    g_snprintf (e.edp_pg, sizeof e.edp_pg, "%u",
                base + r->tp * r->pp * edp + e.t + r->tp * (e.d % ep + ep * e.p));
  else
    memcpy (e.edp_pg, e.dp_pg, sizeof e.edp_pg);
  if (r->tp > 1 || r->dp > 1)
    {
      ChakraProtoMsg__IOInfo in = CHAKRA_PROTO_MSG__IOINFO__INIT;
      in.values = (char *) groups;
      ChakraProtoMsg__Node meta = CHAKRA_PROTO_MSG__NODE__INIT;
      meta.id = e.next_id++;
      meta.name = (char *) "process_groups";
      meta.type = CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE;
      meta.inputs = &in;
      if (!wl_chakra_writer_add (w, &meta, error))
        return FALSE;
      e.last = meta.id;
      e.has_last = TRUE;
    }
  schedule (&e);
  return e.ok && wl_chakra_writer_close (w, error);
}

gboolean
wl_gen_transformer (const char *prefix, const WlGenTransformer *req, GError **error)
{
  g_return_val_if_fail (prefix != NULL && req != NULL, FALSE);
  guint32 M = wl_gen_transformer_microbatches (req, error);
  if (M == 0)
    return FALSE;
  g_autofree char *groups = groups_json (req);
  guint32 ranks = req->tp * req->pp * req->dp;
  for (guint32 r = 0; r < ranks; r++)
    if (!write_rank (prefix, req, M, r, groups, error))
      return FALSE;
  return TRUE;
}
