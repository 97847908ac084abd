/* gen_transformer.c: the dense transformer training-iteration generator:
 * presets, checks, FLOPs, groups and the files (emission, schedule and
 * memory in gen_transformer_{emit,sched,mem}.c). */
#include "workload/gen_transformer.h"
#include "workload/gen_transformer_private.h"

#include <math.h>

#include <string.h>

#include "sim/error.h"
#include "system/sys_params.h"
#include "workload/group_memo.h"
#include "workload/chakra.h"
#include "workload/gen.h"
#include "workload/group_list.h"
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

static gboolean
bad (GError **error, const char *msg)
{
  g_set_error_literal (error, WL_ERROR, SIM_ERROR_INPUT, msg);
  return FALSE;
}

/* Whether every byte and parameter count the generator and the memory
 * model form fits 64 bits with room (2^62), worked in doubles: a
 * micro-batch's largest tensor b s max (h, 2 f, V') x 8 bytes (fp32 logits,
 * gated FFN), its attention scores b a s^2 x 8, and the model's
 * parameters x 18 bytes (weights, fp32 gradients, Adam); V' the padded
 * vocabulary, which the kernels and the memory model use. */
static gboolean
sizes_fit (const WlGenTransformer *r, GError **error)
{
  const WlTransformerModel *m = &r->model;
  double b = r->micro_batch, s = m->seq, h = m->hidden, f = m->ffn;
  double V = (double) wl_tf_padded_vocab (r);
  double E = m->experts > 0 ? m->experts : 1, limit = 4611686018427387904.0; /* 2^62 */
  double params = (double) m->layers * (4 * h * h + 3 * h * f * E) + 2 * V * h;
  if (b * s * MAX (MAX (h, 2 * f), V) * 8 >= limit || b * m->heads * s * s * 8 >= limit
      || params * 18 >= limit)
    return bad (error, "the model or micro-batch is too large: its tensors or parameters pass "
                       "2^62 bytes");
  return TRUE;
}

guint32
wl_gen_transformer_microbatches (const WlGenTransformer *r, GError **error)
{
  const WlTransformerModel *m = &r->model;
  if (m->layers == 0 || m->hidden == 0 || m->heads == 0 || m->ffn == 0 || m->vocab == 0
      || m->seq == 0)
    return bad (error, "the model needs layers, hidden, heads, ffn, vocab and seq above 0");
  if (m->hidden % m->heads != 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "heads must divide hidden (the head "
                   "dimension is hidden / heads): heads %u does not divide hidden %u",
                   m->heads, m->hidden);
      return 0;
    }
  if (!sizes_fit (r, error))
    return 0;
  if (r->micro_batch == 0 || r->tp == 0 || r->pp == 0 || r->dp == 0)
    return bad (error, "micro-batch, tp, pp and dp must be at least 1");
  if (m->layers < r->pp)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "more pipeline stages than layers: pp %u, layers %u", r->pp, m->layers);
      return 0;
    }
  const struct { const char *what; guint64 v; } sizes[] = {
    { "hidden", m->hidden }, { "heads", m->heads }, { "ffn", m->ffn } };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (sizes[i].v % r->tp != 0)
      {
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                     "tp must divide hidden, heads and ffn: tp %u does not divide %s %"
                     G_GUINT64_FORMAT, r->tp, sizes[i].what, sizes[i].v);
        return FALSE;
      }
  if (r->zero > 3)
    return bad (error, "the ZeRO stage must be 0, 1, 2 or 3");
  if (m->kv_heads > m->heads || (m->kv_heads > 0 && m->heads % m->kv_heads != 0))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "kv heads must divide heads: kv heads %u, heads %u", m->kv_heads, m->heads);
      return 0;
    }
  if (m->kv_heads > 0 && m->kv_heads % r->tp != 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "tp must divide the kv heads: tp %u does not divide kv heads %" G_GUINT64_FORMAT,
                   r->tp, (guint64) m->kv_heads);
      return FALSE;
    }
  if (wl_tf_cp (r) > 1 && m->seq % (2 * wl_tf_cp (r)) != 0)
    return bad (error, "the sequence must split in 2 x cp chunks (causal load balancing)");
  if (wl_tf_cp (r) > 1 && r->attention != WL_ATTENTION_FLASH)
    return bad (error, "context parallelism needs flash attention");
  if (wl_tf_cp (r) > 1 && m->experts > 0)
    return bad (error, "context parallelism with experts is not modelled");
  if (r->zero > 0 && (r->distributed_optimizer || r->no_dp_overlap))
    return bad (error, "the distributed optimizer and no DP overlap are for ZeRO stage 0");
  if (r->dp_coalesce && !r->no_dp_overlap)
    return bad (error, "--dp-coalesce is local DDP's, which reduces after the backward: "
                "it needs --no-dp-overlap");
  if (r->dp % ep_of (r) != 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "ep must divide dp: ep %u, dp %u",
                   ep_of (r), r->dp);
      return 0;
    }
  if (m->experts == 0 && ep_of (r) > 1)
    return bad (error, "expert parallelism needs experts");
  /* A dense model has no router: a top-k given for it would be dropped
   * without a word, so the run would not be the one asked for. */
  if (m->experts == 0 && m->top_k > 0)
    return bad (error, "top-k chooses among experts: a dense model has none (give --experts)");
  if (m->experts > 0 && (m->top_k == 0 || m->top_k > m->experts || m->experts % ep_of (r) != 0))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "top-k must be 1 .. experts and ep must "
                   "divide experts: top-k %u, experts %u, ep %u", m->top_k, m->experts,
                   ep_of (r));
      return 0;
    }
  guint64 per_step = (guint64) r->micro_batch * r->dp;
  if (r->microbatches > 0)
    {
      if (r->global_batch > 0 && r->global_batch != per_step * r->microbatches)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "the global batch (%" G_GUINT64_FORMAT ") is not micro-batch x dp x "
                       "microbatches = %u x %u x %u = %" G_GUINT64_FORMAT,
                       (guint64) r->global_batch, r->micro_batch, r->dp, r->microbatches,
                       per_step * r->microbatches);
          return 0;
        }
      return wl_tf_sched_check (r, r->microbatches, error) ? r->microbatches : 0;
    }
  if (r->global_batch == 0 || r->global_batch % per_step != 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "the global batch (%" G_GUINT64_FORMAT ") must be a positive multiple of "
                   "micro-batch x dp = %u x %u = %" G_GUINT64_FORMAT " sequences",
                   (guint64) r->global_batch, r->micro_batch, r->dp, per_step);
      return 0;
    }
  guint32 M = (guint32) (r->global_batch / per_step);
  return wl_tf_sched_check (r, M, error) ? M : 0;
}


double
wl_gen_transformer_model_flops (const WlGenTransformer *r)
{
  const WlTransformerModel *m = &r->model;
  guint64 K = m->experts > 0 ? m->top_k : 1;
  double B = (double) r->global_batch, s = m->seq, h = m->hidden, L = m->layers;
  if (B == 0)
    B = (double) r->microbatches * r->micro_batch * r->dp;
  double layer = 2.0 * s * (double) attn_params (m) + 2.0 * (double) (K * ffn_mats (m)) * s * h * m->ffn
                 + 4.0 * s * s * h;
  return 3.0 * B * (L * layer + 2.0 * s * h * m->vocab);
}

/* Transformer Engine's FP8 bookkeeping's operations over all ranks
 * (gen_transformer_emit.c fp8_weights and fp8_amax): one per weight
 * element per iteration (every layer's weights on each of the cp x dp
 * replicas), and the amax histories' maximum, H per FP8 tensor, at the end
 * of each forward and backward of every chunk that has layers. */
static double
fp8_ops (const WlGenTransformer *r, guint32 M)
{
  if (!r->fp8)
    return 0;
  double ranks = (double) r->tp * wl_tf_cp (r) * r->dp, amax = 0;
  for (guint32 p = 0; p < r->pp; p++)
    for (guint32 c = 0; c < wl_tf_vstages (r); c++)
      if (wl_tf_chunk_layers (r, c * r->pp + p) > 0)
        amax += (double) M * WL_TF_FP8_AMAX_HISTORY * (WL_TF_FP8_AMAX_FWD + WL_TF_FP8_AMAX_BWD)
                * stage_layers (r, p);
  return (double) wl_tf_cp (r) * r->dp * r->model.layers * (double) layer_local (r)
         + ranks * amax;
}

double
wl_gen_transformer_flops (const WlGenTransformer *r)
{
  guint32 M = wl_gen_transformer_microbatches (r, NULL);
  const WlTransformerModel *m = &r->model;
  Costs c = costs_of (r);
  double b = r->micro_batch, s = m->seq, h = m->hidden, L = m->layers;
  /* A layer's GEMMs, its attention forward (causal FlashAttention computes
   * half the scores) and backward (2.5 x the forward; unfused: 2 x). */
  double gemms = 2.0 * (double) c.tokens * (double) attn_params (m) + (double) c.mlp;
  gboolean flash = r->attention == WL_ATTENTION_FLASH;
  double attn_f = (flash ? 2 : 4) * b * s * s * h, attn_b = (flash ? 5 : 8) * b * s * s * h;
  double recompute = r->recompute == WL_RECOMPUTE_FULL        ? L * (gemms + attn_f)
                     : r->recompute == WL_RECOMPUTE_SELECTIVE ? L * attn_f
                                                              : 0;
  /* The embedding's one operation per element forward and backward, on
   * every TP rank. */
  double embed = 2.0 * r->tp * (double) c.tokens * h;
  double per_mb = L * (3 * gemms + attn_f + attn_b) + 3.0 * (double) c.head + recompute + embed;
  /* Adam on every rank (all tp x cp x dp ranks of a stage alike). */
  double adam = 0;
  for (guint32 p = 0; p < r->pp; p++)
    adam += (double) r->tp * wl_tf_cp (r) * r->dp * WL_TF_ADAM_FLOPS
            * (double) wl_tf_step_params (r, p);
  return (double) M * r->dp * per_mb + adam + fp8_ops (r, M);
}

/* Group numbers: TP groups 1 + c + cp (d + dp p); DP (x CP) groups after
 * them, t + tp p; EP and expert-DP groups (cp = 1 only) after those; CP
 * groups last, t + tp (d + dp p). */
static guint32
dp_group_base (const WlGenTransformer *r)
{
  return 1 + wl_tf_cp (r) * r->dp * r->pp;
}

static guint32
cp_group_base (const WlGenTransformer *r)
{
  guint32 ep = ep_of (r), edp = r->dp / ep;
  guint32 n_ep = ep > 1 ? r->tp * r->pp * edp : 0, n_edp = ep > 1 && edp > 1 ? r->tp * r->pp * ep : 0;
  return dp_group_base (r) + r->tp * r->pp + n_ep + n_edp;
}

/* FP8 amax groups (fp8 only; gen_transformer_emit.c fp8_amax): one per
 * stage p, all its TP x CP x DP ranks: base + p, the base above every
 * name name_groups can give, groups defined or not (EP and expert-DP
 * names exist without EP, and wl_gen_transformer_graphs renames them):
 * TP names below dp_group_base, DP names below it + tp pp, EP and
 * expert-DP names below that + tp pp (dp / ep + ep), CP names below
 * cp_group_base + tp dp pp. */
static guint32
amax_group_base (const WlGenTransformer *r)
{
  guint32 ep = ep_of (r), tp_pp = r->tp * r->pp;
  return dp_group_base (r) + tp_pp * (1 + r->dp / ep + ep) + r->tp * r->dp * r->pp;
}

static gboolean
has_amax_groups (const WlGenTransformer *r)
{
  return r->fp8 && r->tp * wl_tf_cp (r) * r->dp > 1;
}

static void
tp_dp_groups (GString *s, const WlGenTransformer *r, guint32 *m)
{
  guint32 cp = wl_tf_cp (r);
  for (guint32 p = 0; p < r->pp && r->tp > 1; p++)
    for (guint32 d = 0; d < r->dp; d++)
      for (guint32 c = 0; c < cp; c++)
        {
          for (guint32 t = 0; t < r->tp; t++)
            m[t] = rank_of (r, t, c, d, p);
          wl_gen_group_append (s, 1 + c + cp * (d + r->dp * p), m, r->tp);
        }
  for (guint32 p = 0; p < r->pp && r->dp * cp > 1; p++)
    for (guint32 t = 0; t < r->tp; t++)
      {
        for (guint32 d = 0; d < r->dp; d++)
          for (guint32 c = 0; c < cp; c++)
            m[c + cp * d] = rank_of (r, t, c, d, p);
        wl_gen_group_append (s, dp_group_base (r) + t + r->tp * p, m, r->dp * cp);
      }
}

static char *
groups_json (const WlGenTransformer *r)
{
  GString *s = g_string_new ("[");
  guint32 cp = wl_tf_cp (r);
  g_autofree guint32 *m = g_new (guint32, MAX (r->tp * r->dp * cp, 1u));
  tp_dp_groups (s, r, m);
  /* Expert parallelism: EP groups (ep consecutive DP indices), then the
   * expert-DP groups (same d mod ep). */
  guint32 ep = ep_of (r), edp = r->dp / ep, base = dp_group_base (r) + r->tp * r->pp;
  for (guint32 p = 0; p < r->pp && ep > 1; p++)
    for (guint32 g = 0; g < edp; g++)
      for (guint32 t = 0; t < r->tp; t++)
        {
          for (guint32 i = 0; i < ep; i++)
            m[i] = rank_of (r, t, 0, g * ep + i, p);
          wl_gen_group_append (s, base + t + r->tp * (g + edp * p), m, ep);
        }
  base += r->tp * r->pp * edp;
  for (guint32 p = 0; p < r->pp && ep > 1 && edp > 1; p++)
    for (guint32 i = 0; i < ep; i++)
      for (guint32 t = 0; t < r->tp; t++)
        {
          for (guint32 g = 0; g < edp; g++)
            m[g] = rank_of (r, t, 0, g * ep + i, p);
          wl_gen_group_append (s, base + t + r->tp * (i + ep * p), m, edp);
        }
  for (guint32 p = 0; p < r->pp && cp > 1; p++)
    for (guint32 d = 0; d < r->dp; d++)
      for (guint32 t = 0; t < r->tp; t++)
        {
          for (guint32 c = 0; c < cp; c++)
            m[c] = rank_of (r, t, c, d, p);
          wl_gen_group_append (s, cp_group_base (r) + t + r->tp * (d + r->dp * p), m, cp);
        }
  for (guint32 p = 0; p < r->pp && has_amax_groups (r); p++)
    {
      guint32 n = r->tp * cp * r->dp;
      for (guint32 i = 0; i < n; i++)
        m[i] = rank_of (r, 0, 0, 0, p) + i;
      wl_gen_group_append (s, amax_group_base (r) + p, m, n);
    }
  g_string_append (s, "]");
  g_autofree char *json = g_string_free (s, FALSE);
  return wl_group_list_wrap (json);
}

/* The rank's process-group names (see groups_json). */
static void
name_groups (Emit *e)
{
  const WlGenTransformer *r = e->req;
  guint32 cp = wl_tf_cp (r), ep = ep_of (r), edp = r->dp / ep;
  guint32 base = dp_group_base (r) + r->tp * r->pp;
  g_snprintf (e->tp_pg, sizeof e->tp_pg, "%u", 1 + e->c_idx + cp * (e->d + r->dp * e->p));
  g_snprintf (e->dp_pg, sizeof e->dp_pg, "%u", dp_group_base (r) + e->t + r->tp * e->p);
  g_snprintf (e->ep_pg, sizeof e->ep_pg, "%u", base + e->t + r->tp * (e->d / ep + edp * e->p));
  if (ep > 1)
    g_snprintf (e->edp_pg, sizeof e->edp_pg, "%u",
                base + r->tp * r->pp * edp + e->t + r->tp * (e->d % ep + ep * e->p));
  else
    memcpy (e->edp_pg, e->dp_pg, sizeof e->edp_pg);
  g_snprintf (e->amax_pg, sizeof e->amax_pg, "%u", amax_group_base (r) + e->p);
}

static gboolean
write_meta (Emit *e, const char *groups, GError **error)
{
  const WlGenTransformer *r = e->req;
  if ((r->tp == 1 && r->dp == 1 && wl_tf_cp (r) == 1) || r->comm_groups_out != NULL)
    return TRUE;
  ChakraProtoMsg__IOInfo in = CHAKRA_PROTO_MSG__IOINFO__INIT;
  in.values = (char *) groups;
  ChakraProtoMsg__Node meta = CHAKRA_PROTO_MSG__NODE__INIT;
  meta.id = e->next_id++;
  meta.name = (char *) "process_groups";
  meta.type = CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE;
  meta.inputs = &in;
  if (!wl_chakra_writer_add (e->w, &meta, error))
    return FALSE;
  e->last = meta.id;
  e->has_last = TRUE;
  return TRUE;
}

/* The facts a rank's trace records: about the iteration, the same in
 * every rank's, and its stage's peak memory, PEAK_B (gen_transformer_mem.c). */
static WlTraceFacts
facts_of (const WlGenTransformer *r, guint32 M, guint64 peak_B)
{
  return (WlTraceFacts) { .model_flops = wl_gen_transformer_model_flops (r),
                          .tokens_per_iteration = (guint64) M * r->micro_batch * r->dp
                                                  * r->model.seq,
                          .flops_formula = WL_TF_MODEL_FLOPS_FORMULA,
                          .peak_memory_B = peak_B };
}

/* Each stage's memory (R->pp of them), for the ranks' facts; NULL with
 * ERROR set when the request has none. */
static WlStageMemory *
stages_memory (const WlGenTransformer *r, GError **error)
{
  WlStageMemory *mem = g_new0 (WlStageMemory, r->pp);
  if (!wl_gen_transformer_memory (r, mem, error))
    g_clear_pointer (&mem, g_free);
  return mem;
}

/* RANK's pipeline stage. */
static guint32
stage_of (const WlGenTransformer *r, guint32 rank)
{
  return rank / (r->tp * wl_tf_cp (r) * r->dp);
}

/* The emission state of RANK, its groups named. */
static Emit
emit_init (const WlGenTransformer *r, guint32 M, guint32 rank)
{
  g_assert (r->tp > 0 && r->dp > 0); /* checked with the request */
  guint32 cp = wl_tf_cp (r);
  Emit e = { .req = r, .c = costs_of (r), .M = M, .ok = TRUE, .t = rank % r->tp,
             .c_idx = rank / r->tp % cp, .d = rank / (r->tp * cp) % r->dp,
             .p = rank / (r->tp * cp * r->dp) };
  name_groups (&e);
  return e;
}

/* Write RANK's nodes to W (frame 0 written). */
static gboolean
emit_rank (WlChakraWriter *w, const WlGenTransformer *r, guint32 M, guint32 rank,
           const char *groups, GError **error)
{
  g_autoptr (GArray) grad_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) gathers = g_array_new (FALSE, FALSE, sizeof (WlTfGather));
  g_autoptr (GArray) deferred = g_array_new (FALSE, FALSE, sizeof (guint64));
  Emit e = emit_init (r, M, rank);
  e.w = w;
  e.error = error;
  e.grad_ids = grad_ids;
  e.gathers = gathers;
  e.deferred = deferred;
  if (!write_meta (&e, groups, error))
    return FALSE;
  wl_tf_schedule (&e);
  wl_tf_emit_clear (&e);
  return e.ok;
}

static gboolean
write_rank (const char *prefix, const WlGenTransformer *r, guint32 M, guint32 rank,
            const char *groups, const WlStageMemory *mem, GError **error)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  WlTraceFacts facts = facts_of (r, M, mem[stage_of (r, rank)].total_B);
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_full (path, "0.0.4", &facts, error);
  return w != NULL && emit_rank (w, r, M, rank, groups, error)
         && wl_chakra_writer_close (w, error);
}

gboolean
wl_gen_transformer (const char *prefix, const WlGenTransformer *req, GError **error)
{
  g_return_val_if_fail (prefix != NULL && req != NULL, FALSE);
  guint32 M = wl_gen_transformer_microbatches (req, error);
  if (M == 0)
    return FALSE;
  g_autofree WlStageMemory *mem = stages_memory (req, error);
  if (mem == NULL)
    return FALSE;
  g_autofree char *groups = groups_json (req);
  guint32 ranks = req->tp * req->pp * req->dp * wl_tf_cp (req);
  for (guint32 r = 0; r < ranks; r++)
    if (!write_rank (prefix, req, M, r, groups, mem, error))
      return FALSE;
  return req->comm_groups_out == NULL
         || wl_group_list_write_comm_groups (groups, req->comm_groups_out, error);
}

/* RANK's trace made in memory and read as PREFIX.<rank>.et would be. */
static WlGraph *
graph_of_rank (const char *prefix, const WlGenTransformer *r, guint32 M, guint32 rank,
               const char *groups, const WlStageMemory *mem, WlGroupMemo *memo, GError **error)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  WlTraceFacts facts = facts_of (r, M, mem[stage_of (r, rank)].total_B);
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_memory (path, "0.0.4", &facts);
  if (!emit_rank (w, r, M, rank, groups, error))
    return NULL;
  g_autoptr (GBytes) bytes = wl_chakra_writer_steal_bytes (w);
  gsize n = 0;
  const guint8 *data = g_bytes_get_data (bytes, &n);
  WlGraphLoad req = { .path = path, .limit = G_MAXUINT64, .bytes = data, .n_bytes = n,
                      .group_memo = memo };
  return wl_graph_load_request (&req, error);
}

/* Add the pair (id FROM in the stand-in's names, id TO in the rank's) to
 * MAP (guint64 pairs) unless it is the identity or already there. */
static void
map_group (GArray *map, const char *from, const char *to)
{
  guint64 pair[2] = { g_ascii_strtoull (from, NULL, 10), g_ascii_strtoull (to, NULL, 10) };
  if (pair[0] == pair[1])
    return;
  for (guint i = 0; i < map->len; i += 2)
    if (g_array_index (map, guint64, i) == pair[0])
      return;
  g_array_append_vals (map, pair, 2);
}

GPtrArray *
wl_gen_transformer_graphs (const char *prefix, const WlGenTransformer *req, GError **error)
{
  g_return_val_if_fail (prefix != NULL && req != NULL && req->comm_groups_out == NULL, NULL);
  guint32 M = wl_gen_transformer_microbatches (req, error);
  if (M == 0)
    return NULL;
  g_autofree WlStageMemory *mem = stages_memory (req, error);
  if (mem == NULL)
    return NULL;
  g_autofree char *groups = groups_json (req);
  g_autoptr (WlGroupMemo) memo = wl_group_memo_new ();
  guint32 cp = wl_tf_cp (req), ranks = req->tp * req->pp * req->dp * cp;
  g_autoptr (GPtrArray) out = g_ptr_array_new_full (ranks, (GDestroyNotify) wl_graph_unref);
  g_autoptr (GArray) map = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint32 rank = 0; rank < ranks; rank++)
    {
      /* The stand-in: the rank of TP and DP index 0 with the same CP index
       * and stage, whose trace is this rank's but for the ranks and groups
       * it names (nothing emitted depends on the TP or DP index but
       * through rank_of and name_groups). */
      Emit e = emit_init (req, M, rank);
      guint32 rank0 = rank_of (req, 0, e.c_idx, 0, e.p);
      WlGraph *g;
      if (rank0 == rank)
        g = graph_of_rank (prefix, req, M, rank, groups, mem, memo, error);
      else
        {
          Emit e0 = emit_init (req, M, rank0);
          g_array_set_size (map, 0);
          map_group (map, e0.tp_pg, e.tp_pg);
          map_group (map, e0.dp_pg, e.dp_pg);
          map_group (map, e0.ep_pg, e.ep_pg);
          map_group (map, e0.edp_pg, e.edp_pg);
          g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
          g = wl_graph_renamed (g_ptr_array_index (out, rank0), path,
                                (gint64) rank - (gint64) rank0, (const guint64 *) map->data,
                                map->len / 2, error);
        }
      if (g == NULL)
        return NULL;
      g_ptr_array_add (out, g);
    }
  return g_steal_pointer (&out);
}
