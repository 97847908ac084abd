/* test_plan.c: the planner's search space (sim/app/plan_space.c): the
 * --space grammar, and the enumeration of the default space counted by
 * hand.  The simulations, the bound and --jobs are tested through the
 * command, in tests/scripts/test_plan.sh.
 */
#include <check.h>
#include <string.h>

#include "sim/app/plan_space.h"
#include "support/testutil.h"
#include "workload/compute.h"

/* A 4-layer model on one node of 8 H100s, B = 16. */
static PlanProblem
tiny_problem (void)
{
  PlanProblem pb = { .gpus = 8, .node_gpus = 8, .global_batch = 16,
                     .device = wl_device_preset ("H100-SXM") };
  pb.model = (WlTransformerModel) { .name = "tiny", .layers = 4, .hidden = 512, .heads = 8,
                                    .ffn = 2048, .vocab = 1024, .seq = 512 };
  return pb;
}

static guint
count (GArray *cands, PlanStatus status, const char *reason)
{
  guint n = 0;
  for (guint i = 0; i < cands->len; i++)
    {
      const PlanCandidate *c = &g_array_index (cands, PlanCandidate, i);
      n += c->status == status && (reason == NULL || strcmp (c->reason, reason) == 0);
    }
  return n;
}

START_TEST (test_space_grammar)
{
  PlanSpace s;
  GError *error = NULL;
  ck_assert (plan_space_parse (" tp=1, 8 ; zero=dist,0;recompute=full;tp-across=yes", &s, &error));
  ck_assert_uint_eq (s.n[PLAN_TP], 2);
  ck_assert_uint_eq (s.values[PLAN_TP][1], 8);
  ck_assert_uint_eq (s.values[PLAN_ZERO][0], PLAN_ZERO_DIST);
  ck_assert_uint_eq (s.values[PLAN_RECOMPUTE][0], WL_RECOMPUTE_FULL);
  ck_assert_uint_eq (s.n[PLAN_PP], 0); /* the default */
  ck_assert (s.tp_across);
  const char *bad[][2] = { { "pipeline=2", "unknown key 'pipeline'" },
                           { "tp=0", "'0' is not a value of tp" },
                           { "zero=4", "'4' is not a value of zero" },
                           { "sched=zb", "'zb' is not a value of sched" },
                           { "tp", "'tp' is not KEY=VALUES" },
                           { "tp-across=maybe", "tp-across: 'maybe' is not yes or no" },
                           { "tp=", "tp lists no values" },
                           { "tp=1;tp=2", "tp is given twice" },
                           { "tp=2,2", "'2' is listed twice" },
                           { "", "names no KEY=VALUES" },
                           { " ; ", "names no KEY=VALUES" } };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      ck_assert (!plan_space_parse (bad[i][0], &s, &error));
      tu_assert_input_error (error, bad[i][1]);
      g_clear_error (&error);
    }
}
END_TEST

/* The default space: tp 1,2,4,8 (the divisors of 8), pp 1,2,4 (the
 * divisors of 8 up to 4 layers), v 1,2, cp 1, ep 1 (dense), zero 5
 * values, recompute 3, schedule 2.  Writing tp pp = 2^s, the (tp, pp)
 * pairs by s: s = 0: 1, 1: 2, 2: 3, 3: 3 (so dp = 8 / 2^s = 8, 4, 2, 1),
 * and 12 - 9 = 3 with s > 3, which do not divide the GPUs.  The
 * micro-batches are the powers of two dividing 16 / dp: 2, 3, 4, 5 values
 * for dp 8, 4, 2, 1, and the one value 1 where there is no dp.  So
 * 1 x 2 + 2 x 3 + 3 x 4 + 3 x 5 + 3 x 1 = 38 (tp, pp, mb), times
 * 2 x 5 x 3 x 2 = 60: 2,280 candidates, of which 3 x 60 = 180 do not
 * divide the GPUs.  Virtual stages with one stage: pp 1 with tp 1, 2, 4,
 * 8 (s = 0 .. 3), mb counts 2, 3, 4, 5: 14, times zero 5 x recompute 3 x
 * schedule 2 = 420 with v = 2. */
START_TEST (test_default_space)
{
  PlanSpace s;
  ck_assert (plan_space_parse (NULL, &s, NULL));
  PlanProblem pb = tiny_problem ();
  g_autoptr (GArray) cands = plan_space_enumerate (&s, &pb);
  ck_assert_uint_eq (cands->len, 2280);
  ck_assert_uint_eq (count (cands, PLAN_PRUNED, "gpus % (tp pp cp)"), 180);
  ck_assert_uint_eq (count (cands, PLAN_PRUNED, "virtual stages need pp > 1"), 420);
  ck_assert_uint_eq (count (cands, PLAN_PRUNED, "tp wider than a node"), 0);
  ck_assert_uint_eq (count (cands, PLAN_PRUNED, "memory"), 0);
  for (guint i = 0; i < cands->len; i++)
    ck_assert_uint_eq (g_array_index (cands, PlanCandidate, i).id, i);
}
END_TEST

/* Memory from the generator's model: Llama-2 7B at 18 bytes per parameter
 * (bf16 weights, fp32 gradients, Adam) on one GPU needs at least 18 x
 * 6.74e9 = 1.21e11 bytes, over the H100's 80 GiB (8.55e10); over tp 8,
 * 1.5e10 plus activations fits. */
START_TEST (test_memory)
{
  PlanSpace s;
  ck_assert (plan_space_parse ("tp=1,8;pp=1;v=1;cp=1;mb=1;zero=0;recompute=none;sched=1f1b", &s,
                               NULL));
  PlanProblem pb = tiny_problem ();
  pb.model = *wl_transformer_preset ("llama2-7b");
  g_autoptr (GArray) cands = plan_space_enumerate (&s, &pb);
  ck_assert_uint_eq (cands->len, 2);
  const PlanCandidate *one = &g_array_index (cands, PlanCandidate, 0);
  const PlanCandidate *eight = &g_array_index (cands, PlanCandidate, 1);
  ck_assert_int_eq (one->status, PLAN_PRUNED);
  ck_assert_str_eq (one->reason, "memory");
  ck_assert_uint_ge (one->mem_B, 18 * wl_transformer_params (&pb.model));
  ck_assert_int_eq (eight->status, PLAN_PENDING);
  ck_assert_uint_ge (eight->mem_B, 18 * wl_transformer_params (&pb.model) / 8);
}
END_TEST

/* tp-across=yes: tp takes the divisors of all 16 GPUs, 1 2 4 8 16, and 16
 * then fails the 8 heads; without it the divisors of a node's 8. */
START_TEST (test_tp_across)
{
  PlanSpace s;
  const char *narrow = "pp=1;v=1;cp=1;mb=1;zero=0;recompute=none;sched=1f1b";
  g_autofree char *across = g_strconcat (narrow, ";tp-across=yes", NULL);
  PlanProblem pb = tiny_problem ();
  pb.gpus = 16;
  ck_assert (plan_space_parse (narrow, &s, NULL));
  g_autoptr (GArray) node = plan_space_enumerate (&s, &pb);
  ck_assert_uint_eq (node->len, 4);
  ck_assert_uint_eq (count (node, PLAN_PENDING, NULL), 4);
  ck_assert (plan_space_parse (across, &s, NULL));
  g_autoptr (GArray) all = plan_space_enumerate (&s, &pb);
  ck_assert_uint_eq (all->len, 5);
  ck_assert_uint_eq (g_array_index (all, PlanCandidate, 4).k.tp, 16);
  ck_assert_uint_eq (count (all, PLAN_PRUNED, "heads % tp"), 1);
}
END_TEST

static Suite *
plan_suite (void)
{
  Suite *s = suite_create ("plan");
  TCase *tc = tu_tcase (s, "plan", NULL, NULL, 60);
  tcase_add_test (tc, test_space_grammar);
  tcase_add_test (tc, test_default_space);
  tcase_add_test (tc, test_memory);
  tcase_add_test (tc, test_tp_across);
  return s;
}

int
main (void)
{
  return tu_run_suite (plan_suite ());
}
