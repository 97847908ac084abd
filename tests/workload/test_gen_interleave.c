/* test_gen_interleave.c: interleaved 1F1B (virtual stages) in the
 * transformer generator: each rank's order of forwards and backwards on a
 * small case written out by hand from Megatron-LM's schedule, the requests
 * it refuses, and the simulated pipeline bubble against the closed form of
 * Narayanan et al. (SC21, Section 2.2.2): (p - 1) / (v m) of the ideal time,
 * (p - 1) / m without interleaving.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/chakra.h"
#include "workload/gen_transformer.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

static gint64
attr_i (const ChakraProtoMsg__Node *n, const char *name)
{
  gint64 v = -1;
  ck_assert (wl_chakra_attr_int (n, name, &v, NULL));
  return v;
}

/* Rank P's order as "F0.0 F0.1 B1.0 ..." (kind, the stage's chunk, the
 * micro-batch), read back from its pipeline sends and receives: the tag of
 * the boundary after model chunk b is 2 (mb + M (b / pp)) (+1 for
 * gradients), b mod pp being the stage that owns chunk b (see
 * gen_transformer.h); a forward of chunk k receives across boundary k - 1
 * and sends across k, a backward the reverse. */
static char *
rank_order (const char *prefix, guint32 p, guint32 pp, guint32 M)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, p);
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (path, NULL);
  ck_assert_ptr_nonnull (rd);
  GString *out = g_string_new (NULL);
  char last[32] = "";
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (rd, NULL)) != NULL)
    {
      gboolean send = n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
      if (send || n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE)
        {
          gint64 tag = attr_i (n, "comm_tag");
          gboolean grad = tag % 2 == 1;
          guint32 mb = (guint32) (tag / 2 % M), group = (guint32) (tag / 2 / M);
          /* The boundary's owner: this stage for a forward send or a
           * backward receive, the previous stage otherwise. */
          gboolean mine = send != grad;
          guint32 b = group * pp + (mine ? p : (p + pp - 1) % pp);
          guint32 k = mine ? b : b + 1;
          char step[32];
          g_snprintf (step, sizeof step, "%c%u.%u", grad ? 'B' : 'F', k / pp, mb);
          if (strcmp (step, last) != 0)
            g_string_append_printf (out, "%s%s", out->len > 0 ? " " : "", step);
          memcpy (last, step, sizeof last);
        }
      wl_chakra_node_free (n);
    }
  return g_string_free (out, FALSE);
}

static WlGenTransformer
small (guint32 layers, guint32 pp, guint32 v, guint32 M)
{
  return (WlGenTransformer) { .model = { "custom", layers, 256, 4, 0, 1024, 1000, 128, FALSE },
                              .micro_batch = 1, .tp = 1, .pp = pp, .dp = 1, .microbatches = M,
                              .virtual_stages = v };
}

/* pp 2, v 2, M 4, written out from schedules.py: virtual micro-batch k
 * (0 .. 7) is chunk (k mod 4) / 2, micro-batch 2 (k / 4) + k mod 2
 * (groups of pp micro-batches per chunk); backward k takes chunk
 * 1 - that.  Warm-up: rank 0 (2 - 0 - 1) x 2 + (2 - 1) x 2 = 4 forwards,
 * rank 1 (2 - 1 - 1) x 2 + 2 = 2; then forward w + i, backward i
 * alternate; then the remaining backwards. */
START_TEST (test_order_pp2_v2_m4)
{
  g_autofree char *p = tu_scratch_path ("order");
  WlGenTransformer req = small (4, 2, 2, 4);
  GError *error = NULL;
  ck_assert (wl_gen_transformer (p, &req, &error));
  g_assert_no_error (error);
  g_autofree char *r0 = rank_order (p, 0, 2, 4), *r1 = rank_order (p, 1, 2, 4);
  ck_assert_str_eq (r0, "F0.0 F0.1 F1.0 F1.1 "
                        "F0.2 B1.0 F0.3 B1.1 F1.2 B0.0 F1.3 B0.1 "
                        "B1.2 B1.3 B0.2 B0.3");
  ck_assert_str_eq (r1, "F0.0 F0.1 "
                        "F1.0 B1.0 F1.1 B1.1 F0.2 B0.0 F0.3 B0.1 F1.2 B1.2 F1.3 B1.3 "
                        "B0.2 B0.3");
  /* Without interleaving (v 1): rank 0 warms up with 1 forward. */
  req = small (4, 2, 1, 4);
  ck_assert (wl_gen_transformer (p, &req, NULL));
  g_autofree char *s0 = rank_order (p, 0, 2, 4);
  ck_assert_str_eq (s0, "F0.0 F0.1 B0.0 F0.2 B0.1 F0.3 B0.2 B0.3");
}
END_TEST

/* Megatron-LM's conditions: pp > 1, micro-batches a multiple of pp; and at
 * least one layer per chunk, and 1F1B. */
START_TEST (test_refused)
{
  struct { WlGenTransformer req; const char *msg; } bad[] = {
    { small (4, 1, 2, 4), "pp > 1" },
    { small (4, 2, 2, 3), "multiple of pp" },
    { small (5, 3, 2, 3), "than layers" },
    { small (4, 2, 2, 4), "1F1B" },
  };
  bad[3].req.schedule = WL_PIPE_GPIPE;
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      GError *error = NULL;
      ck_assert_uint_eq (wl_gen_transformer_microbatches (&bad[i].req, &error), 0);
      ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
      ck_assert_msg (strstr (error->message, bad[i].msg) != NULL, "%s", error->message);
      g_clear_error (&error);
    }
  /* Uneven chunks are accepted (Megatron requires L divisible by pp v;
   * here the first chunks take one more layer). */
  WlGenTransformer uneven = small (5, 2, 2, 4);
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&uneven, NULL), 4);
  g_autofree char *out = NULL;
  const char *cli[] = { tu_orrery (), "gen", "transformer", "--layers", "4", "--hidden", "256",
                        "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                        "--microbatches", "3", "--pp", "2", "--virtual-stages", "2",
                        "--out", "x", NULL };
  ck_assert_int_eq (tu_run (&out, cli), 1);
  ck_assert_msg (strstr (out, "multiple of pp") != NULL, "%s", out);
}
END_TEST

/* The simulated bubble: pp stages of 8 layers per chunk (equal compute per
 * chunk; the embedding, final norm and LM head on the end stages, with a
 * vocabulary of 8, padded to V' = 128 as Megatron pads it at tp 1, are
 * memory-bound kernels of t h bytes and a t x V' x h GEMM of 2 x 1024 x
 * 128 x 2048 = 0.54 GFLOP forward against a chunk's 8 x 2 t (4 h^2 +
 * 2 h f) = 824.6 GFLOP: under 1 % of a chunk's time), on a
 * ring with a practically free network (1 PB/s, no latency): the
 * iteration's end over the ideal time (the busiest rank's compute, M v
 * chunk forwards and backwards) is 1 + (p - 1) / (v m).  Tolerance 2 % of
 * the fraction: the end stages' extra kernels move it by about their
 * share of the stage's compute, 1 % here. */
static void
check_bubble (guint32 pp, guint32 v, guint32 M)
{
  g_autofree char *tag = g_strdup_printf ("bubble-%u-%u-%u", pp, v, M);
  g_autofree char *p = tu_scratch_path (tag);
  WlGenTransformer req = { .model = { "custom", 8 * pp * v, 2048, 16, 0, 8192, 8, 1024, FALSE },
                           .micro_batch = 1, .tp = 1, .pp = pp, .dp = 1, .microbatches = M,
                           .virtual_stages = v };
  ck_assert (wl_gen_transformer (p, &req, NULL));
  AppConfig cfg;
  tu_exact_ring (&cfg, pp);
  cfg.net.dims[0].bandwidth_Bps = 1e15;
  cfg.net.dims[0].latency = 0;
  cfg.wl.compute = WL_COMPUTE_ROOFLINE;
  AppSim *sim = tu_sim_all_modes_ok (&cfg, p);
  const WlReplay *rp = app_sim_replay (sim);
  double end = 0, ideal = 0;
  for (guint32 r = 0; r < pp; r++)
    {
      const WlRankStats *st = wl_replay_rank_stats (rp, r);
      end = MAX (end, (double) st->finish);
      ideal = MAX (ideal, (double) st->compute);
    }
  /* The optimizer step after the last backward is compute outside the
   * pipeline: memory-bound, 40 bytes per parameter (gen_transformer.h) of
   * the stage's 8 v layers (4 h^2 + 2 h f each; the V' h = 128 x 2048 of
   * the embedding or head on the end stages, V = 8 padded to V' = 128, is
   * under 0.07 % of them), at the memory bandwidth; it comes off the
   * ideal. */
  double params = 8.0 * v * (4.0 * 2048 * 2048 + 2.0 * 2048 * 8192);
  ideal -= 40.0 * params / cfg.wl.mem_bw_Bps * 1e12;
  end -= 40.0 * params / cfg.wl.mem_bw_Bps * 1e12;
  double bubble = (end - ideal) / ideal, want = (double) (pp - 1) / (v * M);
  ck_assert_msg (fabs (bubble - want) <= 0.02 * want,
                 "pp %u v %u M %u: bubble %.4f of the ideal, closed form %.4f", pp, v, M, bubble,
                 want);
  app_sim_free (sim);
  app_config_clear (&cfg);
}

START_TEST (test_bubble)
{
  check_bubble (4, 1, 8); /* 3/8 */
  check_bubble (4, 2, 8); /* 3/16 */
  check_bubble (4, 4, 8); /* 3/32 */
  check_bubble (2, 3, 4); /* 1/12 */
}
END_TEST

/* With every parallelism (tp 2, pp 2, dp 2; the TP and DP collectives in
 * the interleaved order), through the command line, to completion. */
START_TEST (test_run_all_parallelisms)
{
  g_autofree char *p = tu_scratch_path ("all");
  g_autofree char *out = NULL;
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--layers", "6", "--hidden", "256",
                         "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                         "--global-batch", "8", "--tp", "2", "--pp", "2", "--dp", "2",
                         "--virtual-stages", "3", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, argv), 0);
  ck_assert_msg (strstr (out, "8 ranks (tp 2 pp 2 dp 2), 4 micro-batches") != NULL, "%s", out);
  tu_assert_completes_2x4 (p);
}
END_TEST

static Suite *
gen_interleave_suite (void)
{
  Suite *s = suite_create ("gen_interleave");
  TCase *tc = tu_tcase (s, "gen_interleave", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_order_pp2_v2_m4);
  tcase_add_test (tc, test_refused);
  tcase_add_test (tc, test_bubble);
  tcase_add_test (tc, test_run_all_parallelisms);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_interleave_suite ());
}
