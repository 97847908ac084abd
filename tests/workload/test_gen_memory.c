/* test_gen_memory.c: the transformer generator's memory model: one layer's
 * activations worked by hand in each mode (FlashAttention or unfused,
 * recomputation none / selective / full, with and without sequence
 * parallelism, CP, GQA, gated FFN), the micro-batches in flight under
 * interleaved 1F1B against the schedule written out by hand, the
 * distributed optimizer, the verdict lines, and the acceptance cases:
 * Llama-3 70B TP8 PP4 and NeMo's recipe fit an H100, the published runs of
 * shared/reference/published/training.tsv fit with their own
 * configurations, Llama-3 70B on one GPU is refused with --strict-memory.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "workload/compute.h"
#include "workload/gen_transformer.h"
#include "support/testutil.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

/* h 1024, 16 heads, 4 key/value heads, gated FFN 2816, s 2048, b 2, tp 4,
 * cp 2: T = s b / cp = 2048 tokens per rank. */
static WlGenTransformer
one_layer (void)
{
  return (WlGenTransformer) { .model = { "custom", 1, 1024, 16, 4, 2816, 1000, 2048, TRUE },
                              .micro_batch = 2, .tp = 4, .pp = 1, .dp = 1, .microbatches = 1,
                              .cp = 2 };
}

static guint64
layer_bytes (const WlGenTransformer *req)
{
  WlStageMemory mem[1];
  GError *error = NULL;
  ck_assert (wl_gen_transformer_memory (req, mem, &error));
  g_assert_no_error (error);
  return mem[0].layer_B;
}

/* By hand, T = 2048, h = 1024:
 *   outside the TP regions 8 T h = 16777216 (/ tp 4 with SP: 4194304):
 *   the two norms' and two GEMMs' inputs; no dropout masks (gated FFN:
 *   Llama style, no dropout);
 *   inside, / 4: Q 2 T h 4194304, K and V 2 T h / 4 each 2097152, the
 *   attention output 4194304, SwiGLU input 4 T f 23068672, FC2 input
 *   2 T f 11534336: 45088768 / 4 = 11272192;
 *   FlashAttention's log-sum-exp 4 a T = 131072, / 4 = 32768;
 *   unfused scores 5 a T s = 335544320, / 4 = 83886080. */
START_TEST (test_layer_by_hand)
{
  WlGenTransformer req = one_layer ();
  ck_assert_uint_eq (layer_bytes (&req), 4194304 + 11272192 + 32768);
  req.recompute = WL_RECOMPUTE_FULL; /* the input, 2 T h / 4 */
  ck_assert_uint_eq (layer_bytes (&req), 1048576);
  req.no_sequence_parallel = TRUE; /* the input whole: 2 T h */
  ck_assert_uint_eq (layer_bytes (&req), 4194304);
  req.recompute = WL_RECOMPUTE_NONE; /* outside the TP regions whole */
  ck_assert_uint_eq (layer_bytes (&req), 16777216 + 11272192 + 32768);
  /* CP 1: twice the tokens, twice the bytes. */
  WlGenTransformer one = one_layer (), two = one_layer ();
  one.cp = 1;
  ck_assert_uint_eq (layer_bytes (&one), 2 * layer_bytes (&two));
  /* Unfused attention has no context parallelism (Megatron's CP needs
   * Transformer Engine's fused attention): cp 1, T = 4096, the terms above
   * double; the scores 5 a T s / 4 = 167772160. */
  WlGenTransformer u = one_layer ();
  u.cp = 1;
  u.attention = WL_ATTENTION_UNFUSED;
  ck_assert_uint_eq (layer_bytes (&u), 2 * (4194304 + 11272192) + 167772160);
  u.recompute = WL_RECOMPUTE_SELECTIVE; /* the attention core goes */
  ck_assert_uint_eq (layer_bytes (&u), 2 * (4194304 + 11272192));
}
END_TEST

/* FP8: Transformer Engine's FP8 copy of each layer weight and its
 * transpose, 2 bytes per element of the rank's 1/tp of the layer: QKV and
 * output projection 2 h^2 + 2 h (h kv / heads) = 2097152 + 524288, the
 * gated FFN 3 h f = 8650752: 11272192 / 4 x 2 = 5636096 bytes more. */
START_TEST (test_fp8_weight_copies)
{
  WlGenTransformer req = one_layer ();
  WlStageMemory bf[1], f8[1];
  ck_assert (wl_gen_transformer_memory (&req, bf, NULL));
  req.fp8 = TRUE;
  ck_assert (wl_gen_transformer_memory (&req, f8, NULL));
  ck_assert_uint_eq (f8[0].params_B - bf[0].params_B, 5636096);
  ck_assert_uint_eq (f8[0].total_B - bf[0].total_B, 5636096);
}
END_TEST

/* Korthikanti et al. Table 2 on GPT-3's layer shape (h 12288, 96 heads,
 * s 2048, b 1, f = 4 h, no GQA), t = 8, unfused: with SP
 * s b h (34 / t + 5 a s / (h t)); without SP s b h (10 + 24 / t +
 * 5 a s / (h t)); selective with SP 34 s b h / t; full with SP 2 s b h / t. */
START_TEST (test_table2)
{
  WlGenTransformer req = { .model = *wl_transformer_preset ("gpt3-175b"), .micro_batch = 1,
                           .tp = 8, .pp = 1, .dp = 1, .microbatches = 1,
                           .attention = WL_ATTENTION_UNFUSED };
  const double sbh = 2048.0 * 12288, as_h = 96.0 * 2048 / 12288;
  ck_assert_uint_eq (layer_bytes (&req), (guint64) (sbh * (34.0 / 8 + 5 * as_h / 8)));
  req.no_sequence_parallel = TRUE;
  ck_assert_uint_eq (layer_bytes (&req), (guint64) (sbh * (10 + 24.0 / 8 + 5 * as_h / 8)));
  req.no_sequence_parallel = FALSE;
  req.recompute = WL_RECOMPUTE_SELECTIVE;
  ck_assert_uint_eq (layer_bytes (&req), (guint64) (sbh * 34 / 8));
  req.recompute = WL_RECOMPUTE_FULL;
  ck_assert_uint_eq (layer_bytes (&req), (guint64) (sbh * 2 / 8));
}
END_TEST

/* Interleaved pp 2 v 2 M 4, one layer per chunk, h 256, 4 heads, f 1024,
 * V 1000, s 128, b 1, tp 1, FlashAttention: a layer holds
 * s b h 34 + 4 a s b = 1114112 + 2048 = 1116160 bytes; the embedding's mask
 * s b h = 32768; the last chunk's norm and head inputs 4 s b h = 131072 and
 * fp32 logits 4 s b V' = 4 x 128 x 1024 = 524288, with the vocabulary padded
 * as Megatron pads it, V' = ceil (1000 / (128 tp)) x 128 tp = 1024 at tp 1.
 * From the order written out by hand
 * (test_gen_interleave.c), stage 0 peaks with 5 chunk forwards held (its 4
 * warm-up forwards + 1), 4 of them on chunk 0 (after F0.3 and after
 * F1.2); stage 1 with 3 (2 + 1), one of them on the last chunk. */
START_TEST (test_in_flight_interleaved)
{
  WlGenTransformer req = { .model = { "custom", 4, 256, 4, 0, 1024, 1000, 128, FALSE },
                           .micro_batch = 1, .tp = 1, .pp = 2, .dp = 1, .microbatches = 4,
                           .virtual_stages = 2 };
  WlStageMemory mem[4];
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  ck_assert_uint_eq (mem[0].in_flight, 5);
  ck_assert_uint_eq (mem[1].in_flight, 3);
  ck_assert_uint_eq (mem[0].layer_B, 1116160);
  ck_assert_uint_eq (mem[0].activations_B, 5 * 1116160 + 4 * 32768);
  ck_assert_uint_eq (mem[1].activations_B, 3 * 1116160 + 131072 + 524288);
  /* pp 4 v 2 M 8: warm-up (4 - p - 1) x 2 + (2 - 1) x 4, + 1: 11, 9, 7, 5;
   * with M 4 stage 0's 11 is capped by M v = 8. */
  req.model.layers = 8;
  req.pp = 4;
  req.microbatches = 8;
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  for (guint32 p = 0; p < 4; p++)
    ck_assert_uint_eq (mem[p].in_flight, (4 - p - 1) * 2 + 4 + 1);
  req.microbatches = 4;
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  ck_assert_uint_eq (mem[0].in_flight, 8);
  ck_assert_uint_eq (mem[1].in_flight, 8);
  ck_assert_uint_eq (mem[2].in_flight, 7);
}
END_TEST

/* Megatron's distributed optimizer: 6 + 12 / d bytes per parameter, d =
 * dp x cp; and 18 without it.  One stage, 2 layers of 4 h^2 + 2 h f =
 * 786432 parameters; the vocabulary padded as Megatron pads it, V' =
 * ceil (1000 / (128 x 2)) x 256 = 1024, so V' h = 262144 twice; tp 2:
 * n = (1572864 + 524288) / 2 = 1048576 per rank. */
START_TEST (test_distributed_optimizer)
{
  WlGenTransformer req = { .model = { "custom", 2, 256, 4, 0, 1024, 1000, 128, FALSE },
                           .micro_batch = 1, .tp = 2, .pp = 1, .dp = 4, .microbatches = 1,
                           .cp = 2, .distributed_optimizer = TRUE };
  WlStageMemory mem[1];
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  ck_assert_uint_eq (mem[0].params_B, 2 * 1048576);
  ck_assert_uint_eq (mem[0].grads_B, 4 * 1048576);
  ck_assert_uint_eq (mem[0].optimizer_B, 12 * 1048576 / 8);
  req.distributed_optimizer = FALSE;
  ck_assert (wl_gen_transformer_memory (&req, mem, NULL));
  ck_assert_uint_eq (mem[0].optimizer_B, 12 * 1048576);
}
END_TEST

/* 81,559 MiB = 79.648 GiB (H100 SXM as the driver gives it). */
START_TEST (test_verdict)
{
  const WlDevice *h100 = wl_device_preset ("H100-SXM");
  WlStageMemory m = { .total_B = (guint64) (60 * GIB) };
  g_autofree char *fits = wl_gen_transformer_verdict (0, &m, h100);
  ck_assert_str_eq (fits, "stage 0: fits, 60.0 of 79.6 GiB");
  m.total_B = (guint64) (90 * GIB); /* 90 - 79.648 = 10.352 */
  g_autofree char *over = wl_gen_transformer_verdict (3, &m, h100);
  ck_assert_str_eq (over, "stage 3: does not fit by 10.4 GiB");
  m.total_B = 81559ull * 1048576; /* exactly full */
  g_autofree char *full = wl_gen_transformer_verdict (1, &m, h100);
  ck_assert_str_eq (full, "stage 1: fits, 79.6 of 79.6 GiB");
}
END_TEST

/* Every stage of REQ needs at most CAPACITY bytes per rank. */
static void
assert_fits_in (const WlGenTransformer *req, double capacity, const char *what)
{
  g_autofree WlStageMemory *mem = g_new0 (WlStageMemory, req->pp);
  GError *error = NULL;
  ck_assert_msg (wl_gen_transformer_memory (req, mem, &error), "%s: %s", what,
                 error != NULL ? error->message : "");
  for (guint32 p = 0; p < req->pp; p++)
    ck_assert_msg ((double) mem[p].total_B <= capacity, "%s: stage %u needs %.1f GiB", what, p,
                   (double) mem[p].total_B / GIB);
}

/* Every stage of REQ fits DEVICE's memory. */
static void
assert_fits (const WlGenTransformer *req, const char *device, const char *what)
{
  const WlDevice *dev = wl_device_preset (device);
  ck_assert_ptr_nonnull (dev);
  assert_fits_in (req, dev->mem_capacity_B, what);
}

/* Llama-3 70B, s 8192, b 1, TP8 PP4 on H100: with interleaving (v 5),
 * FlashAttention, the distributed optimizer, no or selective
 * recomputation, CP 1 or 2; and NeMo's llama3_70b pretrain recipe (NeMo
 * nemo/collections/llm/recipes/llama3_70b.py: TP4 PP4 VP5 CP2, sequence
 * parallelism, micro-batch 1, global batch 512, 4 nodes of 8, distributed
 * fused Adam): dp 1. */
START_TEST (test_llama3_70b_fits)
{
  WlGenTransformer req = { .model = *wl_transformer_preset ("llama3-70b"), .micro_batch = 1,
                           .global_batch = 512, .tp = 8, .pp = 4, .dp = 2, .virtual_stages = 5,
                           .distributed_optimizer = TRUE, .cp = 1 };
  for (guint32 cp = 1; cp <= 2; cp++)
    for (guint rc = 0; rc < 2; rc++)
      {
        req.cp = cp;
        req.recompute = rc ? WL_RECOMPUTE_SELECTIVE : WL_RECOMPUTE_NONE;
        assert_fits (&req, "H100-SXM", "llama3-70b tp8 pp4 v5");
      }
  WlGenTransformer nemo = { .model = *wl_transformer_preset ("llama3-70b"), .micro_batch = 1,
                            .global_batch = 512, .tp = 4, .pp = 4, .dp = 1, .cp = 2,
                            .virtual_stages = 5, .distributed_optimizer = TRUE };
  /* 74.8 GiB on stage 0, within the 81559 MiB (79.6 GiB) that an H100 SXM
   * 80 GB gives a program (nvidia-smi), the preset's capacity. */
  assert_fits (&nemo, "H100-SXM", "nemo llama3_70b recipe");
}
END_TEST

/* A published row's request: MEG rows (Megatron-LM SC21 on A100 80 GB) with
 * full recomputation, unfused attention, no sequence parallelism (it came
 * later: Korthikanti et al. 2022) and no distributed optimizer; NEMO rows
 * (H100) with NeMo's defaults: FlashAttention, sequence parallelism, the
 * distributed optimizer (distributed fused Adam), no recomputation, their
 * vp.  FP8 is not modelled in memory (activations counted in bf16). */
static gboolean
row_request (char **f, WlGenTransformer *req)
{
  *req = (WlGenTransformer) { .tp = atoi (f[5]), .pp = atoi (f[6]), .dp = atoi (f[7]),
                              .virtual_stages = atoi (f[8]), .micro_batch = atoi (f[9]),
                              .global_batch = atoi (f[10]) };
  if (strcmp (f[13], "custom") != 0)
    req->model = *wl_transformer_preset (f[13]);
  else
    {
      int L = 0, h = 0, a = 0, V = 0, s = 0;
      ck_assert_int_eq (sscanf (f[14], "layers=%d hidden=%d heads=%d vocab=%d seq=%d", &L, &h, &a,
                                &V, &s),
                        5);
      req->model = (WlTransformerModel) { "custom", L, h, a, 0, 4 * h, V, s, FALSE, 0, 0 };
    }
  gboolean meg = strcmp (f[15], "MEG") == 0;
  req->recompute = strcmp (f[11], "full") == 0 ? WL_RECOMPUTE_FULL : WL_RECOMPUTE_NONE;
  req->attention = meg ? WL_ATTENTION_UNFUSED : WL_ATTENTION_FLASH;
  req->no_sequence_parallel = meg;
  req->distributed_optimizer = !meg;
  return meg;
}

START_TEST (test_published_rows_fit)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autofree char *path = g_build_filename (shared, "reference", "published", "training.tsv",
                                            NULL);
  g_autofree char *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint rows = 0;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (lines[i][0] == '#' || lines[i][0] == '\0' || g_str_has_prefix (lines[i], "case\t"))
        continue;
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      ck_assert_uint_eq (g_strv_length (f), 16);
      WlGenTransformer req;
      gboolean meg = row_request (f, &req);
      assert_fits (&req, meg ? "A100-80GB" : "H100-SXM", f[0]);
      rows++;
    }
  ck_assert_uint_ge (rows, 13);
}
END_TEST

/* Through the binary: a verdict line per stage with --device; Llama-3 70B
 * on one GPU refused with --strict-memory before any trace is written. */
START_TEST (test_cli_verdict)
{
  g_autofree char *p = tu_scratch_path ("v"), *q = tu_scratch_path ("big");
  g_autofree char *first = g_strdup_printf ("%s.0.et", q);
  g_autofree char *out = NULL;
  const char *fits[] = { tu_orrery (), "gen", "transformer", "--layers", "4", "--hidden", "256",
                         "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                         "--microbatches", "4", "--pp", "2", "--virtual-stages", "2",
                         "--device", "H100-SXM", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, fits), 0);
  ck_assert_msg (strstr (out, "stage 0: fits, 0.0 of 79.6 GiB\n") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "stage 1: fits, 0.0 of 79.6 GiB\n") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  const char *big[] = { tu_orrery (), "gen", "transformer", "--preset", "llama3-70b",
                        "--micro-batch", "1", "--global-batch", "8", "--device", "H100-SXM",
                        "--strict-memory", "--out", q, NULL };
  ck_assert_int_eq (tu_run (&out, big), 1);
  ck_assert_msg (strstr (out, "stage 0: does not fit by ") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "--strict-memory") != NULL, "%s", out);
  ck_assert (!g_file_test (first, G_FILE_TEST_EXISTS));
}
END_TEST

static Suite *
gen_memory_suite (void)
{
  Suite *s = suite_create ("gen_memory");
  TCase *tc = tu_tcase (s, "gen_memory", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_layer_by_hand);
  tcase_add_test (tc, test_table2);
  tcase_add_test (tc, test_fp8_weight_copies);
  tcase_add_test (tc, test_in_flight_interleaved);
  tcase_add_test (tc, test_distributed_optimizer);
  tcase_add_test (tc, test_verdict);
  tcase_add_test (tc, test_llama3_70b_fits);
  tcase_add_test (tc, test_published_rows_fit);
  tcase_add_test (tc, test_cli_verdict);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_memory_suite ());
}
