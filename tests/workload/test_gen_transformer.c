/* test_gen_transformer.c: the transformer generator: FLOPs of every preset
 * under several layouts against the closed form, per-rank communication
 * volumes by kind and process group against closed forms, pipeline sends
 * matched by receives, the command line, and small workloads simulated to
 * completion.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/chakra.h"
#include "workload/chakra_node.h"
#include "workload/gen_transformer.h"
#include "workload/wl_error.h"
#include "support/testutil.h"

typedef struct
{
  guint32 tp, pp, dp, b, B;
  WlPipeSchedule schedule;
  gboolean recompute;
} Layout;

/* Three layouts per preset: every parallelism, uneven stages (126 and 80
 * layers over 3 stages), GPipe and recomputation each somewhere. */
static const Layout layouts[] = {
  { 2, 2, 2, 1, 4, WL_PIPE_1F1B, FALSE },
  { 4, 3, 1, 1, 3, WL_PIPE_GPIPE, TRUE },
  { 1, 1, 4, 2, 16, WL_PIPE_1F1B, TRUE },
};

/* Per-rank totals read back from a trace. */
typedef struct
{
  double num_ops;
  guint64 ag, rs, ar, send, recv; /* comm_size sums (ag, rs: TP group) */
  guint n_ag, n_rs, n_ar, n_send, n_recv;
  guint64 dp_ag, dp_rs; /* all-gathers and reduce-scatters on the DP group */
  guint n_dp_ag, n_dp_rs;
  char *tp_pg, *dp_pg; /* the pg_name seen (all equal: asserted) */
} RankSums;

static gint64
attr_i (const ChakraProtoMsg__Node *n, const char *name)
{
  gint64 v = -1;
  GError *error = NULL;
  ck_assert_msg (wl_chakra_attr_int (n, name, &v, &error), "no %s on node %" G_GUINT64_FORMAT,
                 name, n->id);
  return v;
}

static void
same_pg (char **seen, const ChakraProtoMsg__Node *n)
{
  const char *pg = NULL;
  ck_assert (wl_chakra_attr_string (n, "pg_name", &pg, NULL));
  if (*seen == NULL)
    *seen = g_strdup (pg);
  ck_assert_str_eq (*seen, pg);
}

static gboolean
on_pg (const ChakraProtoMsg__Node *n, const char *want)
{
  const char *pg = NULL;
  ck_assert (wl_chakra_attr_string (n, "pg_name", &pg, NULL));
  return strcmp (pg, want) == 0;
}

/* Sum rank R's trace; record its sends as "src dst tag size" in SENDS and
 * its receives in RECVS (a send must find its receive).  Collectives on
 * DP_PG (the rank's DP group) are summed apart. */
static void
read_rank (const char *prefix, guint32 r, RankSums *s, GHashTable *sends, GHashTable *recvs,
           const char *dp_pg)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
  GError *error = NULL;
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  *s = (RankSums) { 0 };
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (rd, &error)) != NULL)
    {
      if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE)
        s->num_ops += (double) attr_i (n, "num_ops");
      else if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE)
        {
          gint64 kind = attr_i (n, "comm_type"), size = attr_i (n, "comm_size");
          if (kind == 2 && on_pg (n, dp_pg))
            s->dp_ag += size, s->n_dp_ag++, same_pg (&s->dp_pg, n);
          else if (kind == 7 && on_pg (n, dp_pg))
            s->dp_rs += size, s->n_dp_rs++, same_pg (&s->dp_pg, n);
          else if (kind == 2)
            s->ag += size, s->n_ag++, same_pg (&s->tp_pg, n);
          else if (kind == 7)
            s->rs += size, s->n_rs++, same_pg (&s->tp_pg, n);
          else if (kind == 0)
            s->ar += size, s->n_ar++, same_pg (&s->dp_pg, n);
          else
            ck_abort_msg ("unexpected comm_type %" G_GINT64_FORMAT, kind);
        }
      else if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
               || n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE)
        {
          gboolean send = n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
          gint64 size = attr_i (n, "comm_size");
          char *key = g_strdup_printf ("%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT
                                       " %" G_GINT64_FORMAT,
                                       attr_i (n, "comm_src"), attr_i (n, "comm_dst"),
                                       attr_i (n, "comm_tag"), size);
          ck_assert_int_eq (attr_i (n, send ? "comm_src" : "comm_dst"), r);
          ck_assert_msg (g_hash_table_add (send ? sends : recvs, key), "duplicate %s", key);
          if (send)
            s->send += size, s->n_send++;
          else
            s->recv += size, s->n_recv++;
        }
      wl_chakra_node_free (n);
    }
  g_assert_no_error (error);
}

/* The closed forms, written independently of the generator. */
static double
attn_params (const WlTransformerModel *m)
{
  double h = m->hidden, kv = m->kv_heads ? m->kv_heads : m->heads;
  return 2 * h * h + 2 * h * h * kv / m->heads;
}

static double
layer_params (const WlTransformerModel *m)
{
  return attn_params (m) + (m->gated_ffn ? 3.0 : 2.0) * m->hidden * m->ffn;
}

/* The vocabulary as Megatron-LM pads it (tokenizer.py,
 * _vocab_size_with_padding, --make-vocab-size-divisible-by 128): V' =
 * ceil (V / (128 tp)) x 128 tp.  The LM head's kernels, the embedding's
 * parameters (memory, Adam, DP traffic) and the logits use V'; the model
 * FLOPs of the metadata (PaLM's count) keep V. */
static double
padded_vocab (const WlTransformerModel *m, double tp)
{
  double unit = 128 * tp;
  return ceil (m->vocab / unit) * unit;
}

/* A layer's parameters used per token: top_k experts in an MoE layer. */
static double
active_layer_params (const WlTransformerModel *m)
{
  double k = m->experts ? m->top_k : 1;
  return attn_params (m) + k * (m->gated_ffn ? 3.0 : 2.0) * m->hidden * m->ffn;
}

/* 6 x N' x T + 7 L B s^2 h (causal FlashAttention: QK^T and AV 4 b s^2 h
 * halved forward, 2.5 x that backward), N' = active layer parameters + the
 * LM head's V' h (the padded vocabulary at TP degree TP); full
 * recomputation adds one forward of the layers:
 * 2 x L x active layer params x T + 2 L B s^2 h. */
static double
expected_flops (const WlTransformerModel *m, double B, double tp, gboolean recompute)
{
  double L = m->layers, h = m->hidden, s = m->seq, T = B * s;
  double n_prime = L * active_layer_params (m) + padded_vocab (m, tp) * h;
  double f = 6 * n_prime * T + 7 * L * B * s * s * h;
  if (recompute)
    f += 2 * L * active_layer_params (m) * T + 2 * L * B * s * s * h;
  return f;
}

/* Besides the model: the embedding's one operation per element forward
 * and backward on each of tp ranks (2 tp T h), and Adam's 16 FLOPs per
 * parameter updated: dp copies of the parameters (every expert, plus the
 * embedding and LM head's 2 V' h, padded) without sharding, one with
 * ZeRO >= 1. */
static double
overhead_flops (const WlTransformerModel *m, double B, double tp, double dp, gboolean sharded)
{
  double h = m->hidden, T = B * m->seq;
  double experts = m->experts ? m->experts : 1;
  double params = m->layers * (attn_params (m) + experts * (layer_params (m) - attn_params (m)))
                  + 2.0 * padded_vocab (m, tp) * h;
  return 2 * tp * T * h + 16 * (sharded ? 1 : dp) * params;
}

static void
check_layout (const WlTransformerModel *m, const Layout *lay, const char *tag)
{
  g_autofree char *p = tu_scratch_path (tag);
  WlGenTransformer req = { .model = *m, .micro_batch = lay->b, .global_batch = lay->B,
                           .tp = lay->tp, .pp = lay->pp, .dp = lay->dp,
                           .schedule = lay->schedule, .recompute = lay->recompute };
  GError *error = NULL;
  ck_assert (wl_gen_transformer (p, &req, &error));
  g_assert_no_error (error);
  g_autoptr (GHashTable) sends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) recvs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint32 ranks = lay->tp * lay->pp * lay->dp, M = lay->B / (lay->b * lay->dp);
  double total = 0, act = 2.0 * lay->b * m->seq * m->hidden;
  double vh = padded_vocab (m, lay->tp) * m->hidden;
  for (guint32 r = 0; r < ranks; r++)
    {
      RankSums s;
      guint32 t = r % lay->tp, d = r / lay->tp % lay->dp, st = r / (lay->tp * lay->dp);
      g_autofree char *dpg = g_strdup_printf ("%u", 1 + lay->dp * lay->pp + t + lay->tp * st);
      read_rank (p, r, &s, sends, recvs, dpg);
      ck_assert_uint_eq (s.n_dp_ag + s.n_dp_rs, 0);
      total += s.num_ops;
      guint32 nl = m->layers / lay->pp + (st < m->layers % lay->pp);
      gboolean first = st == 0, last = st + 1 == lay->pp;
      /* TP: 4 all-gathers of act/tp and 4 reduce-scatters of act per layer
       * and micro-batch (2 forward, 2 backward; 2 more of each with full
       * recomputation), and per micro-batch the embedding's reduce-scatter
       * (forward) and all-gather (backward) on the first stage, the LM
       * head's all-gather (forward) and reduce-scatter (backward) on the
       * last, on group 1 + d + dp st. */
      guint n_tp = lay->tp > 1 ? (lay->recompute ? 6 : 4) * nl * M + M * (first + last) : 0;
      ck_assert_uint_eq (s.n_ag, n_tp);
      ck_assert_uint_eq (s.n_rs, n_tp);
      ck_assert_uint_eq (s.ag, (guint64) (n_tp * act / lay->tp));
      ck_assert_uint_eq (s.rs, (guint64) (n_tp * act));
      if (n_tp > 0)
        {
          g_autofree char *pg = g_strdup_printf ("%u", 1 + d + lay->dp * st);
          ck_assert_str_eq (s.tp_pg, pg);
        }
      /* DP: one all-reduce per layer plus the embedding (first stage) and
       * the LM head (last, V' h each, padded), 2 bytes per parameter of
       * the tp share. */
      guint n_dp = lay->dp > 1 ? nl + first + last : 0;
      double dp_bytes = lay->dp > 1 ? 2 * (nl * layer_params (m) + (first + last) * vh) / lay->tp : 0;
      ck_assert_uint_eq (s.n_ar, n_dp);
      ck_assert_uint_eq (s.ar, (guint64) dp_bytes);
      if (n_dp > 0)
        {
          g_autofree char *pg
              = g_strdup_printf ("%u", 1 + lay->dp * lay->pp + t + lay->tp * st);
          ck_assert_str_eq (s.dp_pg, pg);
        }
      /* PP: activations to the next stage, gradients to the previous one,
       * each TP rank its 1/tp (scatter/gather; SP: no all-gather after). */
      guint n_pp = M * (!first + !last);
      ck_assert_uint_eq (s.n_send, n_pp);
      ck_assert_uint_eq (s.n_recv, n_pp);
      ck_assert_uint_eq (s.send, (guint64) (n_pp * act / lay->tp));
      ck_assert_uint_eq (s.recv, (guint64) (n_pp * act / lay->tp));
      g_free (s.tp_pg);
      g_free (s.dp_pg);
    }
  /* Every send has its receive. */
  ck_assert_uint_eq (g_hash_table_size (sends), g_hash_table_size (recvs));
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, sends);
  while (g_hash_table_iter_next (&it, &key, NULL))
    ck_assert_msg (g_hash_table_contains (recvs, key), "send %s has no receive", (char *) key);
  double want = expected_flops (m, lay->B, lay->tp, lay->recompute)
                + overhead_flops (m, lay->B, lay->tp, lay->dp, FALSE);
  ck_assert_msg (fabs (total - want) <= 1e-9 * want, "%s: %.6g FLOPs, want %.6g", tag, total,
                 want);
  ck_assert_msg (fabs (wl_gen_transformer_flops (&req) - want) <= 1e-9 * want, "%s", tag);
}

START_TEST (test_presets_flops_and_traffic)
{
  guint n;
  const WlTransformerModel *presets = wl_transformer_presets (&n);
  ck_assert_uint_eq (n, 7);
  /* The dense presets (Mixtral: test_gen_moe). */
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < G_N_ELEMENTS (layouts) && presets[i].experts == 0; k++)
      {
        g_autofree char *tag = g_strdup_printf ("%s-%u", presets[i].name, k);
        check_layout (&presets[i], &layouts[k], tag);
      }
}
END_TEST

/* Parameter counts of the presets against their published sizes (within
 * 2 %: biases and norms are not counted). */
START_TEST (test_preset_params)
{
  static const struct { const char *name; double billions; } want[] = {
    { "gpt3-175b", 175 }, { "llama2-7b", 6.74 }, { "llama2-70b", 68.98 },
    { "llama3-8b", 8.03 }, { "llama3-70b", 70.6 }, { "llama3-405b", 405.9 },
    { "mixtral-8x7b", 46.7 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      const WlTransformerModel *m = wl_transformer_preset (want[i].name);
      ck_assert_ptr_nonnull (m);
      double got = (double) wl_transformer_params (m) / 1e9;
      ck_assert_msg (fabs (got - want[i].billions) <= 0.02 * want[i].billions, "%s: %.2fB",
                     want[i].name, got);
    }
  const WlTransformerModel *mx = wl_transformer_preset ("mixtral-8x7b");
  double active = (double) wl_transformer_active_params (mx) / 1e9;
  ck_assert_msg (fabs (active - 12.9) <= 0.02 * 12.9, "mixtral active %.2fB", active);
  ck_assert_ptr_null (wl_transformer_preset ("gpt-5"));
}
END_TEST

START_TEST (test_request_errors)
{
  WlGenTransformer req = { .model = *wl_transformer_preset ("llama2-7b"), .micro_batch = 1,
                           .global_batch = 6, .tp = 1, .pp = 1, .dp = 4 };
  GError *error = NULL;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  g_clear_error (&error);
  req.global_batch = 8;
  req.tp = 3;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  ck_assert_msg (strstr (error->message, "tp must divide") != NULL, "%s", error->message);
  g_clear_error (&error);
  req.tp = 2;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 2);
  g_assert_no_error (error);
  /* 300 heads of a 4096 hidden: no whole head dimension. */
  WlGenTransformer odd = req;
  odd.model.heads = 300;
  odd.model.kv_heads = 0;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&odd, &error), 0);
  ck_assert_msg (strstr (error->message, "heads must divide hidden") != NULL, "%s",
                 error->message);
  g_clear_error (&error);
  /* b s h x 2 bytes would wrap 64 bits: 8192 x 2^30 x 2^20 x 8 = 2^76. */
  WlGenTransformer huge = req;
  huge.model.hidden = 1u << 20;
  huge.model.heads = 8;
  huge.model.kv_heads = 0;
  huge.model.seq = 1u << 30;
  huge.micro_batch = 8192;
  huge.global_batch = 8192 * 4;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&huge, &error), 0);
  ck_assert_msg (strstr (error->message, "too large") != NULL, "%s", error->message);
  g_clear_error (&error);
}
END_TEST

/* A small model on 8 ranks (Ring 2 x Ring 4), simulated to the end. */
static void
run_small (const char *schedule, gboolean recompute, const char *extra, const char *extra2)
{
  g_autofree char *p = tu_scratch_path (extra != NULL ? "zero" : schedule);
  g_autofree char *out = NULL;
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--layers", "5", "--hidden", "256",
                         "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                         "--global-batch", "8", "--tp", "2", "--pp", "2", "--dp", "2",
                         "--schedule", schedule, "--out", p,
                         recompute ? "--recompute" : extra, recompute ? extra : extra2,
                         recompute ? extra2 : NULL, NULL };
  ck_assert_int_eq (tu_run (&out, argv), 0);
  ck_assert_msg (strstr (out, "8 ranks (tp 2 pp 2 dp 2), 4 micro-batches") != NULL, "%s", out);
  tu_assert_completes_2x4 (p);
}

START_TEST (test_run_1f1b)
{
  run_small ("1f1b", FALSE, NULL, NULL);
}
END_TEST

START_TEST (test_run_gpipe_recompute)
{
  run_small ("gpipe", TRUE, NULL, NULL);
}
END_TEST

/* ZeRO-3 through --fsdp (with recomputation) and ZeRO-2 (whose parameter
 * all-gathers wait on the reduce-scatters), simulated to the end. */
START_TEST (test_run_fsdp)
{
  run_small ("1f1b", TRUE, "--fsdp", NULL);
  run_small ("gpipe", FALSE, "--zero", "2");
  g_autofree char *out = NULL;
  const char *bad[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b",
                        "--micro-batch", "1", "--global-batch", "8", "--zero", "2", "--fsdp",
                        "--out", "x", NULL };
  ck_assert_int_eq (tu_run (&out, bad), 1);
  ck_assert_msg (strstr (out, "--zero") != NULL, "%s", out);
}
END_TEST

/* ZeRO-1 with context parallelism, selective recomputation and two
 * sequences per micro-batch: the DP stream issues all-reduce, all-gather,
 * all-reduce, ... in that order at every rank, so the ranks of a DP x CP
 * group agree on the order of its collectives and the run completes (the
 * next all-reduce used to start before the all-gather at the CP ranks
 * whose backward ended first: "collective #8 is all_gather here but
 * all_reduce on the ranks that joined it first"). */
START_TEST (test_run_zero1_cp)
{
  g_autofree char *p = tu_scratch_path ("z1cp");
  g_autofree char *out = NULL;
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b", "--layers",
                         "4", "--hidden", "512", "--heads", "8", "--vocab", "1000", "--seq", "512",
                         "--micro-batch", "2", "--global-batch", "16", "--cp", "2", "--ranks", "8",
                         "--zero", "1", "--recompute=selective", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, argv), 0);
  /* configs/default.xml cut to its first node of 8 GPUs. */
  g_autofree char *xml = NULL;
  ck_assert (g_file_get_contents ("configs/default.xml", &xml, NULL, NULL));
  const char *nic = "<dim kind=\"Switch\" size=\"8\" bandwidth=\"400Gb/s\"";
  g_auto (GStrv) parts = g_strsplit (xml, nic, -1);
  ck_assert_uint_eq (g_strv_length (parts), 2);
  g_autofree char *one = g_strjoinv ("<dim kind=\"Switch\" size=\"1\" bandwidth=\"400Gb/s\"", parts);
  g_autofree char *cfg = tu_write_file ("node.xml", one);
  g_free (g_steal_pointer (&out));
  const char *run[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", p, NULL };
  ck_assert_msg (tu_run (&out, run) == 0, "%s", out);
}
END_TEST

/* The command line: --list, a full run through `orrery run`, errors. */
START_TEST (test_cli)
{
  g_autofree char *out = NULL;
  const char *list[] = { tu_orrery (), "gen", "transformer", "--list", NULL };
  ck_assert_int_eq (tu_run (&out, list), 0);
  ck_assert_msg (strstr (out, "llama3-405b") != NULL && strstr (out, "gpt3-175b") != NULL, "%s",
                 out);
  g_free (g_steal_pointer (&out));
  const char *bad[] = { tu_orrery (), "gen", "transformer", "--preset", "nope", "--micro-batch",
                        "1", "--global-batch", "8", "--out", "x", NULL };
  ck_assert_int_eq (tu_run (&out, bad), 1);
  ck_assert_msg (strstr (out, "unknown preset 'nope'") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  const char *sched[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b",
                          "--micro-batch", "1", "--global-batch", "8", "--schedule", "zb",
                          "--out", "x", NULL };
  ck_assert_int_eq (tu_run (&out, sched), 1);
  ck_assert_msg (strstr (out, "--schedule") != NULL, "%s", out);
}
END_TEST

/* Per-rank memory of a small custom model over 3 uneven stages (5 layers:
 * 2, 2, 1), both schedules, recomputation on and off, M binding or not,
 * recomputed here from the formulas in the header.  The vocabulary V =
 * 1000 padded as Megatron pads it: V' = ceil (1000 / (128 x 2)) x 256 =
 * 1024 at tp 2. */
START_TEST (test_memory)
{
  const guint64 L = 5, h = 256, a = 4, f = 1024, V = 1000, Vp = 1024, s = 128, b = 2, tp = 2,
                pp = 3;
  const guint64 layer = 4 * h * h + 2 * h * f, stage_layers[3] = { 2, 2, 1 };
  for (guint sched = 0; sched < 2; sched++)
    for (guint rc = 0; rc < 2; rc++)
      for (guint32 M = 2; M <= 4; M += 2)
        {
          WlGenTransformer req = { .model = { "custom", L, h, a, 0, f, V, s, FALSE },
                                   .micro_batch = b, .tp = tp, .pp = pp, .dp = 2,
                                   .microbatches = M,
                                   .schedule = sched ? WL_PIPE_GPIPE : WL_PIPE_1F1B,
                                   .recompute = rc, .attention = WL_ATTENTION_UNFUSED };
          WlStageMemory mem[3];
          GError *error = NULL;
          ck_assert (wl_gen_transformer_memory (&req, mem, &error));
          g_assert_no_error (error);
          for (guint64 p = 0; p < pp; p++)
            {
              guint64 params = stage_layers[p] * layer + (p == 0 ? Vp * h : 0)
                               + (p == pp - 1 ? Vp * h : 0);
              guint64 n = params / tp;
              guint64 per_layer = rc ? 2 * s * b * h / tp
                                     : (guint64) ((double) s * b * h
                                                  * (34.0 + 5.0 * a * s / h) / tp);
              guint64 in_flight = sched ? M : MIN (M, pp - p);
              /* Per micro-batch in flight, besides the layers: the
               * embedding's dropout mask s b h / tp on the first stage; the
               * final norm's and LM head's inputs 4 s b h / tp and the fp32
               * logits 4 s b V' / tp on the last.  With recomputation, once,
               * the layer being recomputed (no-recompute bytes less those
               * kept). */
              guint64 io = (p == 0 ? s * b * h / tp : 0)
                           + (p == pp - 1 ? 4 * s * b * h / tp + 4 * s * b * Vp / tp : 0);
              guint64 working = rc ? (guint64) ((double) s * b * h * (34.0 + 5.0 * a * s / h) / tp)
                                         - per_layer
                                   : 0;
              guint64 act = in_flight * (stage_layers[p] * per_layer + io) + working;
              ck_assert_uint_eq (mem[p].layers, stage_layers[p]);
              ck_assert_uint_eq (mem[p].in_flight, in_flight);
              ck_assert_uint_eq (mem[p].layer_B, per_layer);
              ck_assert_uint_eq (mem[p].params_B, 2 * n);
              ck_assert_uint_eq (mem[p].grads_B, 4 * n);
              ck_assert_uint_eq (mem[p].optimizer_B, 12 * n);
              ck_assert_uint_eq (mem[p].activations_B, act);
              ck_assert_uint_eq (mem[p].total_B, 18 * n + act);
            }
        }
  /* Spot values: stage 0, 1F1B, M 4, no recomputation: 3 in flight; two
   * layers of 4 h^2 + 2 h f = 786432 and V' h = 1024 x 256 = 262144, / tp 2,
   * 2 bytes each: 2 (2 x 786432 + 262144) / 2 = 1835008. */
  WlGenTransformer req = { .model = { "custom", L, h, a, 0, f, V, s, FALSE }, .micro_batch = b,
                           .tp = tp, .pp = pp, .dp = 1, .microbatches = 4,
                           .attention = WL_ATTENTION_UNFUSED };
  WlStageMemory mem[3];
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  ck_assert_uint_eq (mem[0].params_B, 2 * (2 * 786432 + 262144) / 2);
  ck_assert_uint_eq (mem[0].activations_B, 2 * 3 * ((34 * 128 * 2 * 256 + 5 * 4 * 128 * 128 * 2) / 2)
                                               + 3 * (128 * 2 * 256 / 2));
  req.tp = 3; /* does not divide h */
  GError *error = NULL;
  ck_assert (!wl_gen_transformer_memory (&req, mem, &error));
  ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
  ck_assert_msg (strstr (error->message, "tp must divide") != NULL, "%s", error->message);
  g_clear_error (&error);
}
END_TEST

/* --device: GPT-3 175B on one rank per stage does not fit an H100 (a
 * warning, or exit 1 before writing with --strict-memory); a small model
 * fits. */
START_TEST (test_cli_memory)
{
  g_autofree char *p = tu_scratch_path ("mem");
  g_autofree char *first = g_strdup_printf ("%s.0.et", p);
  g_autofree char *out = NULL;
  const char *strict[] = { tu_orrery (), "gen", "transformer", "--preset", "gpt3-175b",
                           "--micro-batch", "1", "--global-batch", "8", "--tp", "1", "--pp", "1",
                           "--dp", "8", "--device", "H100-SXM", "--strict-memory", "--out", p,
                           NULL };
  ck_assert_int_eq (tu_run (&out, strict), 1);
  ck_assert_msg (strstr (out, "stage 0: parameters") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "stage 0 needs") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "--strict-memory") != NULL, "%s", out);
  ck_assert (!g_file_test (first, G_FILE_TEST_EXISTS));
  g_free (g_steal_pointer (&out));
  const char *warn[] = { tu_orrery (), "gen", "transformer", "--preset", "gpt3-175b",
                         "--micro-batch", "1", "--global-batch", "8", "--dp", "8",
                         "--device", "h100-sxm", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, warn), 0);
  ck_assert_msg (strstr (out, "warning: stage 0 needs") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "of 79.65 GiB") != NULL, "%s", out);
  ck_assert (g_file_test (first, G_FILE_TEST_EXISTS));
  g_free (g_steal_pointer (&out));
  const char *fits[] = { tu_orrery (), "gen", "transformer", "--layers", "5", "--hidden", "256",
                         "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                         "--global-batch", "8", "--tp", "2", "--pp", "2", "--dp", "2",
                         "--device", "H100-SXM", "--strict-memory", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, fits), 0);
  ck_assert_msg (strstr (out, "stage 1: parameters") != NULL && strstr (out, "warning") == NULL,
                 "%s", out);
  ck_assert_msg (strstr (out, "8 ranks") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  const char *nodev[] = { tu_orrery (), "gen", "transformer", "--layers", "5", "--hidden", "256",
                          "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                          "--global-batch", "8", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, nodev), 0);
  ck_assert_msg (strstr (out, "stage 0: parameters") != NULL && strstr (out, "GiB of") == NULL,
                 "%s", out);
  g_free (g_steal_pointer (&out));
  const char *baddev[] = { tu_orrery (), "gen", "transformer", "--layers", "5", "--hidden", "256",
                           "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch",
                           "1", "--global-batch", "8", "--device", "nope", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, baddev), 1);
  ck_assert_msg (strstr (out, "unknown device 'nope'") != NULL, "%s", out);
}
END_TEST

/* A small model (5 layers, h 256, V 1000, padded to V' = 1024 at tp 2) on
 * tp 2 pp 2 dp 4 (M 2) and on dp 1, each ZeRO stage: the DP traffic by kind against the closed forms of
 * the header (units: layers, the embedding on stage 0, the LM head on the
 * last), and compute, TP and PP traffic unchanged (the same FLOPs). */
START_TEST (test_zero_traffic)
{
  const WlTransformerModel m = { "custom", 5, 256, 4, 0, 1024, 1000, 128, FALSE, 0, 0 };
  for (guint32 dp = 1; dp <= 4; dp += 3)
    for (guint32 zero = 0; zero <= 3; zero++)
      {
        g_autofree char *tag = g_strdup_printf ("zero%u-dp%u", zero, dp);
        g_autofree char *p = tu_scratch_path (tag);
        const guint32 tp = 2, pp = 2, M = 2;
        WlGenTransformer req = { .model = m, .micro_batch = 1, .microbatches = M, .tp = tp,
                                 .pp = pp, .dp = dp, .zero = zero };
        GError *error = NULL;
        ck_assert (wl_gen_transformer (p, &req, &error));
        g_assert_no_error (error);
        g_autoptr (GHashTable) sends = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
        g_autoptr (GHashTable) recvs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
        double total = 0;
        const double act = 2.0 * 128 * 256;
        for (guint32 r = 0; r < tp * pp * dp; r++)
          {
            RankSums s;
            guint32 t = r % tp, st = r / (tp * dp);
            g_autofree char *dpg = g_strdup_printf ("%u", 1 + dp * pp + t + tp * st);
            read_rank (p, r, &s, sends, recvs, dpg);
            total += s.num_ops;
            guint32 nl = st == 0 ? 3 : 2;
            gboolean first = st == 0, last = st + 1 == pp;
            /* Unit bytes P_u = 2 params / tp: a layer 786432, V' h 262144
             * (V' = ceil (1000 / 256) x 256 = 1024; was V h 256000). */
            double P_layer = 2 * layer_params (&m) / tp, P_emb = 2.0 * 1024 * 256 / tp;
            double P_all = nl * P_layer + (first + last) * P_emb;
            guint units = nl + first + last;
            guint n_ar = 0, n_rs = 0, n_ag = 0;
            double ar = 0, rs = 0, ag = 0;
            if (dp > 1)
              {
                if (zero <= 1)
                  n_ar = units, ar = P_all;
                else
                  n_rs = units, rs = P_all;
                if (zero == 1 || zero == 2)
                  n_ag = units, ag = P_all / dp;
                if (zero == 3)
                  {
                    n_ag = M * (2 * nl + 2 * last + first);
                    ag = M * (2 * nl * P_layer + (2 * last + first) * P_emb) / dp;
                  }
              }
            ck_assert_uint_eq (s.n_ar, n_ar);
            ck_assert_uint_eq (s.ar, (guint64) ar);
            ck_assert_uint_eq (s.n_dp_rs, n_rs);
            ck_assert_uint_eq (s.dp_rs, (guint64) rs);
            ck_assert_uint_eq (s.n_dp_ag, n_ag);
            ck_assert_uint_eq (s.dp_ag, (guint64) ag);
            if (dp > 1)
              ck_assert_str_eq (s.dp_pg, dpg);
            /* TP and PP as without ZeRO (the embedding's two collectives on
             * the first stage, the LM head's on the last, per micro-batch). */
            guint n_tp = 4 * nl * M + M;
            ck_assert_uint_eq (s.n_ag, n_tp);
            ck_assert_uint_eq (s.n_rs, n_tp);
            ck_assert_uint_eq (s.ag, (guint64) (n_tp * act / tp));
            ck_assert_uint_eq (s.rs, (guint64) (n_tp * act));
            ck_assert_uint_eq (s.n_send, M);
            ck_assert_uint_eq (s.n_recv, M);
            g_free (s.tp_pg);
            g_free (s.dp_pg);
          }
        double want = expected_flops (&m, (double) M * dp, tp, FALSE)
                      + overhead_flops (&m, (double) M * dp, tp, dp, zero >= 1);
        ck_assert_msg (fabs (total - want) <= 1e-9 * want, "%s: %.6g FLOPs", tag, total);
        ck_assert_msg (fabs (wl_gen_transformer_flops (&req) - want) <= 1e-9 * want, "%s", tag);
      }
  /* The presets' FLOPs under ZeRO-3 (one layout). */
  guint n;
  const WlTransformerModel *presets = wl_transformer_presets (&n);
  for (guint i = 0; i < n; i++)
    {
      WlGenTransformer req = { .model = presets[i], .micro_batch = 1, .global_batch = 8,
                               .tp = 2, .pp = 2, .dp = 4, .zero = 3 };
      double want = expected_flops (&presets[i], 8, 2, FALSE) + overhead_flops (&presets[i], 8, 2, 4, TRUE);
      ck_assert (fabs (wl_gen_transformer_flops (&req) - want) <= 1e-9 * want);
    }
  WlGenTransformer bad_req = { .model = m, .micro_batch = 1, .microbatches = 2, .tp = 1,
                               .pp = 1, .dp = 2, .zero = 4 };
  GError *error = NULL;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&bad_req, &error), 0);
  ck_assert_msg (strstr (error->message, "ZeRO") != NULL, "%s", error->message);
  g_clear_error (&error);
}
END_TEST

/* Memory per ZeRO stage: 3 stages (layers 2, 2, 1), tp 2, dp 4 and dp 1;
 * the embedding and LM head V' h with V = 1000 padded to V' = 1024
 * (ceil (1000 / (128 x 2)) x 256). */
START_TEST (test_zero_memory)
{
  const guint64 h = 256, f = 1024, V = 1000, Vp = 1024, tp = 2, pp = 3;
  const guint64 layer = 4 * h * h + 2 * h * f, stage_layers[3] = { 2, 2, 1 };
  for (guint64 dp = 1; dp <= 4; dp += 3)
    for (guint32 zero = 0; zero <= 3; zero++)
      {
        WlGenTransformer req = { .model = { "custom", 5, h, 4, 0, f, V, 128, FALSE },
                                 .micro_batch = 1, .tp = tp, .pp = pp, .dp = (guint32) dp,
                                 .microbatches = 4, .zero = zero };
        WlGenTransformer base = req;
        base.zero = 0;
        WlStageMemory mem[3], mem0[3];
        ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
        ck_assert (wl_gen_transformer_memory (&base, mem0, NULL));
        for (guint64 p = 0; p < pp; p++)
          {
            gboolean edge = p == 0 || p == pp - 1;
            guint64 n = (stage_layers[p] * layer + (p == 0 ? Vp * h : 0)
                         + (p == pp - 1 ? Vp * h : 0)) / tp;
            guint64 unit = edge ? MAX (layer, Vp * h) : layer;
            guint64 params = zero >= 3 ? 2 * n / dp + (dp > 1 ? 4 * (unit / tp) : 0) : 2 * n;
            guint64 grads = zero >= 2 ? 4 * n / dp : 4 * n;
            guint64 opt = zero >= 1 ? 12 * n / dp : 12 * n;
            ck_assert_uint_eq (mem[p].params_B, params);
            ck_assert_uint_eq (mem[p].grads_B, grads);
            ck_assert_uint_eq (mem[p].optimizer_B, opt);
            ck_assert_uint_eq (mem[p].activations_B, mem0[p].activations_B);
            ck_assert_uint_eq (mem[p].total_B, params + grads + opt + mem0[p].activations_B);
          }
      }
  /* Spot value: stage 1 (2 layers), dp 4, ZeRO-3: n = 786432 per rank. */
  WlGenTransformer req = { .model = { "custom", 5, h, 4, 0, f, V, 128, FALSE },
                           .micro_batch = 1, .tp = tp, .pp = pp, .dp = 4, .microbatches = 4,
                           .zero = 3 };
  WlStageMemory mem[3];
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  ck_assert_uint_eq (mem[1].params_B, 2 * 786432 / 4 + 4 * 393216);
  ck_assert_uint_eq (mem[1].grads_B, 4 * 786432 / 4);
  ck_assert_uint_eq (mem[1].optimizer_B, 12 * 786432 / 4);
}
END_TEST

/* With a device, every compute node also carries its roofline time in whole
 * microseconds (rounded up): num_ops over the lesser of the H100 SXM's dense
 * bf16 peak (989.5 TFLOP/s) and its HBM bandwidth (3.35 TB/s) times the
 * node's FLOPs per byte.  Without one, none does. */
START_TEST (test_device_durations)
{
  WlGenTransformer req = { .model = { "custom", 2, 1024, 8, 0, 4096, 1000, 256, FALSE },
                           .micro_batch = 1, .tp = 2, .pp = 1, .dp = 1, .microbatches = 2 };
  req.model.kv_heads = 8;
  req.device = wl_device_preset ("H100-SXM");
  g_autofree char *with = tu_scratch_path ("with");
  GError *error = NULL;
  ck_assert (wl_gen_transformer (with, &req, &error));
  g_assert_no_error (error);
  g_autofree char *path = g_strdup_printf ("%s.0.et", with);
  WlChakraReader *r = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  guint comps = 0;
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    {
      if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE)
        {
          guint64 ops = 0, bytes = 0;
          ck_assert (wl_chakra_attr_uint (n, "num_ops", &ops, NULL));
          ck_assert (wl_chakra_attr_uint (n, "tensor_size", &bytes, NULL));
          double perf = 989.5e12;
          if (bytes > 0)
            perf = MIN (perf, 3.35e12 * (double) ops / (double) bytes);
          guint64 want = (guint64) ceil ((double) ops / perf * 1e9 / 1000.0);
          ck_assert_uint_eq (n->duration_micros, want);
          comps++;
        }
      wl_chakra_node_free (n);
    }
  g_assert_no_error (error);
  wl_chakra_reader_free (r);
  ck_assert_uint_gt (comps, 0);

  req.device = NULL;
  g_autofree char *without = tu_scratch_path ("without");
  ck_assert (wl_gen_transformer (without, &req, NULL));
  g_autofree char *path2 = g_strdup_printf ("%s.0.et", without);
  r = wl_chakra_reader_open (path2, NULL);
  while ((n = wl_chakra_reader_next (r, NULL)) != NULL)
    {
      ck_assert_uint_eq (n->duration_micros, 0);
      wl_chakra_node_free (n);
    }
  wl_chakra_reader_free (r);
}
END_TEST

/* --ranks gives dp (16 = tp 4 x pp 2 x dp 2) or is checked against it. */
/* Model FLOPs by hand (PaLM's count) for L 2, h 64, 4 heads, f 256, V 100,
 * s 32, B 4: a layer per sequence 2 s 4 h^2 = 1048576 (projections), 2 x 2
 * s h f = 2097152 (FFN), 4 s^2 h = 262144 (scores); two layers 6815744;
 * the head 2 s h V = 409600; forward 7225344, x 3 x B = 86704128.  Every
 * trace carries it, the token count B s = 128 and the formula's name. */
START_TEST (test_model_flops_facts)
{
  g_autofree char *p = tu_scratch_path ("facts");
  WlGenTransformer req = { .model = { "custom", 2, 64, 4, 0, 256, 100, 32, FALSE },
                           .micro_batch = 1, .global_batch = 4, .tp = 2, .pp = 1, .dp = 2 };
  ck_assert (wl_gen_transformer_model_flops (&req) == 86704128.0);
  ck_assert (wl_gen_transformer (p, &req, NULL));
  for (guint r = 0; r < 4; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", p, r);
      GError *error = NULL;
      WlChakraReader *rd = wl_chakra_reader_open (path, &error);
      g_assert_no_error (error);
      WlTraceFacts f;
      ck_assert (wl_chakra_metadata_facts (wl_chakra_reader_metadata (rd), &f, &error));
      ck_assert (f.model_flops == 86704128.0);
      ck_assert_uint_eq (f.tokens_per_iteration, 128);
      ck_assert_str_eq (f.flops_formula, WL_TF_MODEL_FLOPS_FORMULA);
      wl_chakra_reader_free (rd);
    }
}
END_TEST

START_TEST (test_cli_ranks)
{
  g_autofree char *out = tu_scratch_path ("ranks");
  const char *ok[] = { tu_orrery (), "gen", "transformer", "--layers", "2", "--hidden", "256",
                       "--heads", "4", "--ffn", "1024", "--vocab", "1000", "--seq", "64",
                       "--micro-batch", "1", "--global-batch", "4", "--ranks", "16", "--tp", "4",
                       "--pp", "2", "--out", out, NULL };
  g_autofree char *text = NULL;
  ck_assert_int_eq (tu_run (&text, ok), 0);
  ck_assert_msg (strstr (text, "16 ranks (tp 4 pp 2 dp 2)") != NULL, "%s", text);
  const char *bad[] = { tu_orrery (), "gen", "transformer", "--layers", "2", "--hidden", "256",
                        "--heads", "4", "--ffn", "1024", "--vocab", "1000", "--seq", "64",
                        "--micro-batch", "1", "--global-batch", "4", "--ranks", "16", "--tp", "4",
                        "--pp", "2", "--dp", "4", "--out", out, NULL };
  g_autofree char *err = NULL;
  ck_assert_int_eq (tu_run (&err, bad), 1);
  ck_assert_msg (strstr (err, "--ranks 16 is not tp x pp x dp") != NULL, "%s", err);
}
END_TEST

static Suite *
gen_transformer_suite (void)
{
  Suite *s = suite_create ("gen_transformer");
  TCase *tc = tu_tcase (s, "gen_transformer", tu_scratch_setup, tu_scratch_teardown, 30);
  tcase_add_test (tc, test_presets_flops_and_traffic);
  tcase_add_test (tc, test_preset_params);
  tcase_add_test (tc, test_request_errors);
  tcase_add_test (tc, test_run_1f1b);
  tcase_add_test (tc, test_run_gpipe_recompute);
  tcase_add_test (tc, test_cli);
  tcase_add_test (tc, test_memory);
  tcase_add_test (tc, test_cli_memory);
  tcase_add_test (tc, test_zero_traffic);
  tcase_add_test (tc, test_zero_memory);
  tcase_add_test (tc, test_run_fsdp);
  tcase_add_test (tc, test_run_zero1_cp);
  tcase_add_test (tc, test_device_durations);
  tcase_add_test (tc, test_cli_ranks);
  tcase_add_test (tc, test_model_flops_facts);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_transformer_suite ());
}
