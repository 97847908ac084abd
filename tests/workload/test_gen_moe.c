/* test_gen_moe.c: mixture-of-experts layers and expert parallelism in the
 * transformer generator: Mixtral FLOPs over all ranks against the analytic
 * count (6 x active parameters x tokens + attention (+ recompute)) for three
 * layouts, per-rank all-to-all and expert-gradient traffic by group against
 * closed forms, group membership, memory, the command line, and a small
 * MoE iteration simulated to completion.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/gen_transformer.h"
#include "workload/wl_error.h"
#include "support/testutil.h"

typedef struct
{
  guint32 tp, pp, dp, ep, b, B, zero;
  WlPipeSchedule schedule;
  gboolean recompute;
} Layout;

static const Layout layouts[] = {
  { 2, 2, 4, 2, 1, 8, 0, WL_PIPE_1F1B, FALSE },
  { 1, 1, 4, 4, 1, 8, 0, WL_PIPE_1F1B, TRUE },
  { 4, 2, 2, 1, 1, 4, 2, WL_PIPE_GPIPE, FALSE },
  { 2, 1, 8, 2, 1, 8, 1, WL_PIPE_1F1B, FALSE },
};

/* Closed forms, independent of the generator. */
static double
attn (const WlTransformerModel *m)
{
  double h = m->hidden, kv = m->kv_heads ? m->kv_heads : m->heads;
  return 2 * h * h + 2 * h * h * kv / m->heads;
}

static double
ffn (const WlTransformerModel *m)
{
  return (m->gated_ffn ? 3.0 : 2.0) * m->hidden * m->ffn;
}

/* The vocabulary as Megatron-LM pads it (tokenizer.py,
 * _vocab_size_with_padding, --make-vocab-size-divisible-by 128): V' =
 * ceil (V / (128 tp)) x 128 tp.  Mixtral's 32000 stay 32000 at tp 1 and 2
 * (250 x 128, 125 x 256) and become 63 x 512 = 32256 at tp 4. */
static double
padded_vocab (const WlTransformerModel *m, double tp)
{
  double unit = 128 * tp;
  return ceil (m->vocab / unit) * unit;
}

/* Causal FlashAttention: 2 b s^2 h forward, 2.5 x backward per layer.
 * Besides the model: the embedding's operation per element forward and
 * backward on each TP rank, and Adam's 16 FLOPs per parameter updated (dp
 * ranks each with the dense part and E / ep experts, or with ZeRO >= 1 one
 * copy of everything).  The LM head's FLOPs and the embedding's and head's
 * parameters are over the padded vocabulary V'. */
static double
analytic_flops (const WlTransformerModel *m, double B, const Layout *lay)
{
  double L = m->layers, h = m->hidden, s = m->seq, T = B * s;
  double active = attn (m) + m->top_k * ffn (m);
  double V = padded_vocab (m, lay->tp);
  double f = 6 * (L * active + V * h) * T + 7 * L * B * s * s * h;
  if (lay->recompute)
    f += 2 * L * active * T + 2 * L * B * s * s * h;
  double E = m->experts, emb = 2.0 * V * h;
  double adam = lay->zero >= 1 ? L * (attn (m) + E * ffn (m)) + emb
                               : lay->dp * (L * (attn (m) + E / lay->ep * ffn (m)) + emb);
  return f + 2.0 * lay->tp * T * h + 16 * adam;
}

static gint64
attr_i (const ChakraProtoMsg__Node *n, const char *name)
{
  gint64 v = -1;
  ck_assert (wl_chakra_attr_int (n, name, &v, NULL));
  return v;
}

typedef struct
{
  double num_ops;
  guint n_a2a, n_dp, n_edp, n_edp_ag;
  guint64 a2a, dp, edp, edp_ag;
} Sums;

/* Sum rank R's trace; collectives on EP_PG must be all-to-alls and vice
 * versa; gradient collectives (all-reduce / reduce-scatter) and all-gathers
 * on EDP_PG and DP_PG summed apart.  USERS counts ranks per pg_name. */
static void
read_rank (const char *prefix, guint32 r, const char *ep_pg, const char *dp_pg,
           const char *edp_pg, Sums *s, GHashTable *users)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
  GError *error = NULL;
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  *s = (Sums) { 0 };
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (rd, &error)) != NULL)
    {
      if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE)
        s->num_ops += (double) attr_i (n, "num_ops");
      else if (n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE)
        {
          gint64 kind = attr_i (n, "comm_type"), size = attr_i (n, "comm_size");
          const char *pg = NULL;
          ck_assert (wl_chakra_attr_string (n, "pg_name", &pg, NULL));
          g_hash_table_add (seen, g_strdup (pg));
          ck_assert_int_eq (kind == 6, strcmp (pg, ep_pg) == 0);
          if (kind == 6)
            s->a2a += size, s->n_a2a++;
          else if (strcmp (pg, edp_pg) == 0 && kind == 2)
            s->edp_ag += size, s->n_edp_ag++;
          else if (strcmp (pg, edp_pg) == 0)
            s->edp += size, s->n_edp++;
          else if (strcmp (pg, dp_pg) == 0 && kind != 2)
            s->dp += size, s->n_dp++;
        }
      wl_chakra_node_free (n);
    }
  g_assert_no_error (error);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, seen);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      guint c = GPOINTER_TO_UINT (g_hash_table_lookup (users, key));
      g_hash_table_insert (users, g_strdup (key), GUINT_TO_POINTER (c + 1));
    }
}

static void
check_layout (const Layout *lay, const char *tag)
{
  const WlTransformerModel *m = wl_transformer_preset ("mixtral-8x7b");
  ck_assert_ptr_nonnull (m);
  g_autofree char *p = tu_scratch_path (tag);
  WlGenTransformer req = { .model = *m, .micro_batch = lay->b, .global_batch = lay->B,
                           .tp = lay->tp, .pp = lay->pp, .dp = lay->dp, .ep = lay->ep,
                           .zero = lay->zero, .schedule = lay->schedule,
                           .recompute = lay->recompute };
  GError *error = NULL;
  ck_assert (wl_gen_transformer (p, &req, &error));
  g_assert_no_error (error);
  guint32 tp = lay->tp, pp = lay->pp, dp = lay->dp, ep = lay->ep, edp = dp / ep;
  guint32 ranks = tp * pp * dp, M = lay->B / (lay->b * dp);
  double K = m->top_k, E = m->experts, a2a = K * lay->b * m->seq * m->hidden * 2 / tp;
  double vh = padded_vocab (m, tp) * m->hidden, total = 0;
  g_autoptr (GHashTable) users = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint32 r = 0; r < ranks; r++)
    {
      guint32 t = r % tp, d = r / tp % dp, st = r / (tp * dp);
      guint32 base = 1 + dp * pp + tp * pp;
      g_autofree char *dpg = g_strdup_printf ("%u", 1 + dp * pp + t + tp * st);
      g_autofree char *epg = g_strdup_printf ("%u", base + t + tp * (d / ep + edp * st));
      g_autofree char *edpg
          = ep > 1 ? g_strdup_printf ("%u", base + tp * pp * edp + t + tp * (d % ep + ep * st))
                   : g_strdup ("none");
      Sums s;
      read_rank (p, r, ep > 1 ? epg : "none", dpg, edpg, &s, users);
      total += s.num_ops;
      guint32 nl = m->layers / pp + (st < m->layers % pp);
      gboolean first = st == 0, last = st + 1 == pp;
      /* 4 all-to-alls per MoE layer and micro-batch on the EP group (6:
       * full recomputation repeats the forward's two). */
      guint n_a2a = ep > 1 ? (lay->recompute ? 6 : 4) * nl * M : 0;
      ck_assert_uint_eq (s.n_a2a, n_a2a);
      ck_assert_uint_eq (s.a2a, (guint64) (n_a2a * a2a));
      /* Expert gradients: one per layer of E / ep experts on the expert-DP
       * group (ep = 1: on the DP group, next to the dense part's). */
      double exp_b = 2 * (E / ep * ffn (m)) / tp;
      double dense_b = 2 * (nl * attn (m) + (first + last) * vh) / tp;
      if (ep > 1)
        {
          guint n = edp > 1 ? nl : 0;
          ck_assert_uint_eq (s.n_edp, n);
          ck_assert_uint_eq (s.edp, (guint64) (n * exp_b));
          guint n_ag = lay->zero == 1 || lay->zero == 2 ? n : 0;
          ck_assert_uint_eq (s.n_edp_ag, n_ag);
          ck_assert_uint_eq (s.edp_ag, (guint64) (n_ag * exp_b / edp));
          ck_assert_uint_eq (s.n_dp, nl + first + last);
          ck_assert_uint_eq (s.dp, (guint64) dense_b);
        }
      else
        {
          ck_assert_uint_eq (s.n_dp, 2 * nl + first + last);
          ck_assert_uint_eq (s.dp, (guint64) (dense_b + nl * exp_b));
        }
    }
  /* Every EP group is used by ep ranks, every expert-DP group by dp / ep. */
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init (&it, users);
  guint n_ep = 0, n_edp = 0;
  guint32 base = 1 + dp * pp + tp * pp;
  while (g_hash_table_iter_next (&it, &key, &val))
    {
      guint32 pg = (guint32) atoi (key);
      if (ep > 1 && pg >= base && pg < base + tp * pp * edp)
        {
          ck_assert_uint_eq (GPOINTER_TO_UINT (val), ep);
          n_ep++;
        }
      else if (ep > 1 && pg >= base + tp * pp * edp)
        {
          ck_assert_uint_eq (GPOINTER_TO_UINT (val), edp);
          n_edp++;
        }
    }
  ck_assert_uint_eq (n_ep, ep > 1 ? tp * pp * edp : 0);
  ck_assert_uint_eq (n_edp, ep > 1 && edp > 1 ? tp * pp * ep : 0);
  double want = analytic_flops (m, lay->B, lay);
  ck_assert_msg (fabs (total - want) <= 0.02 * want, "%s: %.6g FLOPs, want %.6g", tag, total,
                 want);
  ck_assert_msg (fabs (total - want) <= 1e-9 * want, "%s: not exact", tag);
  ck_assert (fabs (wl_gen_transformer_flops (&req) - want) <= 1e-9 * want);
}

START_TEST (test_mixtral_layouts)
{
  for (guint k = 0; k < G_N_ELEMENTS (layouts); k++)
    {
      g_autofree char *tag = g_strdup_printf ("mixtral-%u", k);
      check_layout (&layouts[k], tag);
    }
}
END_TEST

START_TEST (test_moe_params_and_errors)
{
  const WlTransformerModel *m = wl_transformer_preset ("mixtral-8x7b");
  double total = (double) wl_transformer_params (m) / 1e9;
  double active = (double) wl_transformer_active_params (m) / 1e9;
  ck_assert_msg (fabs (total - 46.7) <= 0.01 * 46.7, "%.2f", total);
  ck_assert_msg (fabs (active - 12.9) <= 0.02 * 12.9, "%.2f", active);
  WlGenTransformer req = { .model = *m, .micro_batch = 1, .global_batch = 8, .tp = 1, .pp = 1,
                           .dp = 4, .ep = 3 };
  GError *error = NULL;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  ck_assert_msg (strstr (error->message, "ep must divide dp") != NULL, "%s", error->message);
  g_clear_error (&error);
  req.ep = 2;
  req.model.top_k = 9;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  g_clear_error (&error);
  req.model = *wl_transformer_preset ("llama2-7b");
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  ck_assert_msg (strstr (error->message, "needs experts") != NULL, "%s", error->message);
  g_clear_error (&error);
  /* A top-k on a dense model would be dropped without a word. */
  req.ep = 1;
  req.model.top_k = 2;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  ck_assert_msg (strstr (error->message, "dense model has none") != NULL, "%s", error->message);
  g_clear_error (&error);
  req.model.top_k = 0;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 2); /* 8 / (1 x 4) */
  /* Memory: E / ep experts per layer; ZeRO-1 shards their optimizer states
   * over dp / ep ranks, the dense part's over dp.  The embedding and head
   * are 2 V' h with V' = V = 32000 at tp 2 (125 x 256: no padding). */
  req.model = *m;
  req.ep = 2;
  req.zero = 1;
  req.tp = 2;
  WlStageMemory mem[1];
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  guint64 dense = (guint64) (32 * attn (m) + 2.0 * m->vocab * m->hidden) / 2;
  guint64 exp = (guint64) (32 * 4 * ffn (m)) / 2;
  ck_assert_uint_eq (mem[0].params_B, 2 * dense + 2 * exp);
  ck_assert_uint_eq (mem[0].optimizer_B, 12 * dense / 4 + 12 * exp / 2);
}
END_TEST

START_TEST (test_moe_cli)
{
  g_autofree char *out = NULL;
  const char *list[] = { tu_orrery (), "gen", "transformer", "--list", NULL };
  ck_assert_int_eq (tu_run (&out, list), 0);
  ck_assert_msg (strstr (out, "mixtral-8x7b 46.70B parameters") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  const char *bad[] = { tu_orrery (), "gen", "transformer", "--layers", "2", "--hidden", "256",
                        "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                        "--global-batch", "8", "--dp", "4", "--ep", "2", "--out", "x", NULL };
  ck_assert_int_eq (tu_run (&out, bad), 1);
  ck_assert_msg (strstr (out, "needs experts") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  /* --top-k without --experts on a dense model: refused, not ignored. */
  g_autofree char *dir = tu_mkdtemp ();
  g_autofree char *prefix = g_build_filename (dir, "t", NULL);
  const char *dense[] = { tu_orrery (), "gen", "transformer", "--layers", "2", "--hidden", "256",
                          "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch",
                          "1", "--global-batch", "4", "--dp", "4", "--top-k", "2", "--out",
                          prefix, NULL };
  ck_assert_int_eq (tu_run (&out, dense), 1);
  ck_assert_msg (strstr (out, "dense model has none") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  /* --experts 0 makes the MoE preset dense, its top-k with it: 4 ranks
   * written, and no experts in the summary. */
  const char *made_dense[] = { tu_orrery (), "gen", "transformer", "--preset", "mixtral-8x7b",
                               "--experts", "0", "--layers", "2", "--seq", "128",
                               "--micro-batch", "1", "--global-batch", "4", "--dp", "4",
                               "--out", prefix, NULL };
  ck_assert_int_eq (tu_run (&out, made_dense), 0);
  ck_assert_msg (strstr (out, "4 ranks") != NULL && strstr (out, "experts") == NULL, "%s", out);
  tu_rmdir (dir);
}
END_TEST

/* A small MoE model (4 experts, top-2) on tp 2 pp 2 dp 2 ep 2, simulated. */
START_TEST (test_moe_run)
{
  g_autofree char *p = tu_scratch_path ("moe");
  g_autofree char *out = NULL;
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--layers", "4", "--hidden", "256",
                         "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                         "--global-batch", "8", "--tp", "2", "--pp", "2", "--dp", "2", "--ep",
                         "2", "--experts", "4", "--top-k", "2", "--zero", "1", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, argv), 0);
  ck_assert_msg (strstr (out, "8 ranks (tp 2 pp 2 dp 2), 4 micro-batches") != NULL, "%s", out);
  tu_assert_completes_2x4 (p);
}
END_TEST

static Suite *
gen_moe_suite (void)
{
  Suite *s = suite_create ("gen_moe");
  TCase *tc = tu_tcase (s, "gen_moe", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_mixtral_layouts);
  tcase_add_test (tc, test_moe_params_and_errors);
  tcase_add_test (tc, test_moe_cli);
  tcase_add_test (tc, test_moe_run);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_moe_suite ());
}
