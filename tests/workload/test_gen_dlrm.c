/* test_gen_dlrm.c: the DLRM generator: the MLPerf DLRM-DCNv2 preset's
 * parameters and memory per GPU against hand computation from the model
 * definition, each sharding type's all-to-all bytes per rank worked by
 * hand on small examples, the lookup cost model's closed form, the
 * placement rule, and the errors of bad tables CSV and plan lines.
 */
#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim/error.h"
#include "workload/chakra.h"
#include "workload/gen_dlrm.h"
#include "workload/wl_error.h"
#include "support/testutil.h"

/* ERROR is the workload layer's input error (WL_ERROR, SIM_ERROR_INPUT)
 * and says NEEDLE. */
static void
assert_input (const GError *error, const char *needle)
{
  ck_assert_msg (error != NULL, "expected an error containing '%s'", needle);
  ck_assert_msg (error->domain == WL_ERROR && error->code == SIM_ERROR_INPUT,
                 "wrong domain/code for: %s", error->message);
  ck_assert_msg (strstr (error->message, needle) != NULL, "'%s' not in: %s", needle,
                 error->message);
}

/* Preset parameters by hand (mlcommons/training recommendation_v2
 * torchrec_dlrm README: 26 tables of dimension 128; bottom 13-512-256-128,
 * DCNv2 3 layers of rank 512, top 1024-1024-512-256-1):
 *   rows: five tables of 40,000,000 = 200,000,000, the 21 others
 *   39060 + 17295 + 7424 + 20265 + 3 + 7122 + 1543 + 63 + 3067956 + 405282
 *   + 10 + 2209 + 11938 + 155 + 4 + 976 + 14 + 590152 + 12973 + 108 + 36
 *   = 4,184,588; 204,184,588 rows x 128 = 26,135,627,264 parameters.
 *   bottom: 13 x 512 + 512 = 7,168; 512 x 256 + 256 = 131,328;
 *   256 x 128 + 128 = 32,896: 171,392.
 *   DCN over N = 27 x 128 = 3,456 features: per layer 2 x 3456 x 512 +
 *   3456 = 3,542,400; x 3 = 10,627,200.
 *   top from 3,456: 3,539,968 + 1,049,600 + 524,800 + 131,328 + 257 =
 *   5,245,953.  MLPs and interaction: 16,044,545. */
START_TEST (test_preset_params)
{
  WlDlrmModel m = { 0 };
  ck_assert (wl_dlrm_preset ("DLRM-DCNv2-Criteo1TB", &m));
  ck_assert_uint_eq (m.tables->len, 26);
  ck_assert_uint_eq (wl_dlrm_embedding_params (&m), 26135627264ull);
  ck_assert_uint_eq (wl_dlrm_interaction_out (&m), 3456);
  ck_assert_uint_eq (wl_dlrm_mlp_params (&m), 171392 + 10627200 + 5245953);
  double pooling = 0;
  for (guint i = 0; i < m.tables->len; i++)
    pooling += g_array_index (m.tables, WlDlrmTable, i).pooling;
  ck_assert_int_eq ((int) pooling, 214); /* the multi-hot sizes' sum */
  /* The dot interaction: D + F (F - 1) / 2 = 128 + 27 x 26 / 2 = 479;
   * the top MLP then starts 479 x 1024 + 1024 = 491,520 instead of
   * 3,539,968, and there is no cross network. */
  m.dcn = FALSE;
  ck_assert_uint_eq (wl_dlrm_interaction_out (&m), 479);
  ck_assert_uint_eq (wl_dlrm_mlp_params (&m), 171392 + 5245953 - 3539968 + 491520);
  ck_assert (!wl_dlrm_preset ("dlrm", &m));
  wl_dlrm_model_clear (&m);
}
END_TEST

static WlGenDlrm
preset_req (guint32 ranks)
{
  WlGenDlrm r = { .ranks = ranks, .global_batch = 65536, .dtype = WL_DTYPE_FP32,
                  .emb_opt = WL_EMB_OPT_ADAGRAD, .sharding = WL_SHARD_TABLE_WISE };
  ck_assert (wl_dlrm_preset ("dlrm-dcnv2-criteo1tb", &r.model));
  return r;
}

static guint32
shards_on (const WlDlrmLayout *l, guint32 rank, guint32 *first_table)
{
  guint32 n = 0;
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *s = &g_array_index (l->shards, WlDlrmShard, i);
      if (s->rank == rank && n++ == 0)
        *first_table = s->table;
    }
  return n;
}

/* Table-wise on 8 GPUs, fp32, exact Adagrad: largest first onto the
 * least-loaded rank puts the 40 M-row tables 0, 9, 19, 20, 21 on ranks 0 .. 4,
 * table 10 (3,067,956 rows) on 5, 22 (590,152) on 6, 11 (405,282) on 7,
 * and then every smaller table on rank 7, the least loaded from then on
 * (405,282 x 512 B < 590,152 x 512 B, and the 18 others hold 0.15 M rows).
 * Rank 0: 40 M x 128 x 4 = 20,480,000,000 B of table, the same of fp32
 * Adagrad state, and the MLPs: 16,044,545 x (4 weight + 4 gradient + 4
 * state) = 192,534,540: 41,152,534,540 B (38.33 GiB). */
START_TEST (test_preset_memory)
{
  WlGenDlrm r = preset_req (8);
  GError *error = NULL;
  WlDlrmLayout *l = wl_dlrm_layout_new (&r, &error);
  g_assert_no_error (error);
  const guint32 big[] = { 0, 9, 19, 20, 21, 10, 22, 11 };
  for (guint32 k = 0; k < 8; k++)
    {
      guint32 t = 99;
      ck_assert_uint_eq (shards_on (l, k, &t), k < 7 ? 1 : 19);
      ck_assert_uint_eq (t, big[k]);
    }
  ck_assert_uint_eq (l->emb_B[0], 20480000000ull);
  ck_assert_uint_eq (l->emb_state_B[0], 20480000000ull);
  ck_assert_uint_eq (l->total_B[0], 41152534540ull);
  /* Rank 5: table 10, 3,067,956 x 512 = 1,570,793,472 B, twice. */
  ck_assert_uint_eq (l->total_B[5], 2 * 1570793472ull + 192534540);
  wl_dlrm_layout_free (l);
  /* Row-wise Adagrad keeps one fp32 a row: 40 M x 4 = 160,000,000 B. */
  r.emb_opt = WL_EMB_OPT_ROWWISE_ADAGRAD;
  l = wl_dlrm_layout_new (&r, &error);
  ck_assert_uint_eq (l->total_B[0], 20480000000ull + 160000000 + 192534540);
  wl_dlrm_layout_free (l);
  /* bf16 halves the table and the MLP weights and gradients, not the
   * fp32 state: 10,240,000,000 + 160,000,000 + 16,044,545 x 8. */
  r.dtype = WL_DTYPE_BF16;
  l = wl_dlrm_layout_new (&r, &error);
  ck_assert_uint_eq (l->total_B[0], 10240000000ull + 160000000 + 16044545ull * 8);
  wl_dlrm_layout_free (l);
  /* Lazy Adam (fp32 tables): two fp32 moments a parameter, 40 M x 128 x 8
   * = 40,960,000,000 B, and the MLPs 16,044,545 x (4 + 4 + 8) =
   * 256,712,720 B; fp16 MLP compute (--mlp-dtype) keeps the fp32 master
   * weights, gradients and state: the same bytes. */
  r.dtype = WL_DTYPE_FP32;
  r.emb_opt = WL_EMB_OPT_ADAM;
  for (int mixed = 0; mixed < 2; mixed++)
    {
      r.mlp_dtype_set = mixed;
      r.mlp_dtype = WL_DTYPE_FP16;
      l = wl_dlrm_layout_new (&r, &error);
      g_assert_no_error (error);
      ck_assert_uint_eq (l->emb_state_B[0], 40960000000ull);
      ck_assert_uint_eq (l->total_B[0], 20480000000ull + 40960000000ull + 256712720ull);
      wl_dlrm_layout_free (l);
    }
  r.mlp_dtype = WL_DTYPE_FP8;
  ck_assert (wl_dlrm_layout_new (&r, &error) == NULL);
  g_clear_error (&error);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

/* Four tables of dimension 16 (rows 1000, 800, 600, 400; pooling 2), 4
 * ranks, B = 64 (b = 16 a rank), fp32: a pooled embedding of one sample
 * is 16 x 4 = 64 B, of a rank's samples b x 64 = 1024 B. */
static WlGenDlrm
small_req (WlShardKind kind, const guint64 *rows, guint n)
{
  WlGenDlrm r = { .ranks = 4, .global_batch = 64, .dtype = WL_DTYPE_FP32,
                  .emb_opt = WL_EMB_OPT_ROWWISE_ADAGRAD, .sharding = kind,
                  .model = { .name = "small", .n_bottom = 2, .bottom = { 13, 16 }, .n_top = 1,
                             .top = { 1 } } };
  r.model.tables = g_array_new (FALSE, FALSE, sizeof (WlDlrmTable));
  for (guint i = 0; i < n; i++)
    {
      WlDlrmTable t = { rows[i], 16, 2 };
      g_array_append_val (r.model.tables, t);
    }
  return r;
}

static const guint64 four[] = { 1000, 800, 600, 400 };

static void
assert_a2a (WlShardKind kind, const guint64 *rows, guint n, guint32 nl, const guint64 *sent,
            const guint64 *recv)
{
  WlGenDlrm r = small_req (kind, rows, n);
  r.ranks_per_node = nl;
  GError *error = NULL;
  g_autoptr (WlDlrmLayout) l = wl_dlrm_layout_new (&r, &error);
  g_assert_no_error (error);
  for (guint32 k = 0; k < 4; k++)
    {
      guint64 s = 0, v = 0;
      wl_dlrm_layout_a2a (l, k, &s, &v);
      ck_assert_msg (s == sent[k] && v == recv[k],
                     "%s rank %u: sent %" G_GUINT64_FORMAT " received %" G_GUINT64_FORMAT
                     ", expected %" G_GUINT64_FORMAT " and %" G_GUINT64_FORMAT,
                     wl_shard_kind_name (kind), k, s, v, sent[k], recv[k]);
    }
  wl_dlrm_model_clear (&r.model);
}

/* Table-wise: one table a rank; each sends its b x 64 = 1024 B to the 3
 * others and receives 3 tables' 1024 B.  Five tables (1000, 300, 300,
 * 200, 200 rows): the fifth goes to rank 3, the least loaded (12,800 B
 * against 19,200), which then sends 2 x 3 x 1024 and the others receive 4
 * x 1024 (rank 3: 3 x 1024). */
START_TEST (test_a2a_table_wise)
{
  const guint64 s4[] = { 3072, 3072, 3072, 3072 };
  assert_a2a (WL_SHARD_TABLE_WISE, four, 4, 0, s4, s4);
  const guint64 five[] = { 1000, 300, 300, 200, 200 };
  const guint64 s5[] = { 3072, 3072, 3072, 6144 }, r5[] = { 4096, 4096, 4096, 3072 };
  assert_a2a (WL_SHARD_TABLE_WISE, five, 5, 0, s5, r5);
}
END_TEST

/* Row-wise: every rank holds a block of every table and sends its partial
 * pools of each other rank's b samples, b x 16 x 4 = 1024 B a table: 4
 * tables x 3 ranks x 1024 = 12,288 B sent and received (a reduce-scatter
 * of B x 64 = 4096 B a table, (N - 1) / N of it). */
START_TEST (test_a2a_row_wise)
{
  const guint64 s[] = { 12288, 12288, 12288, 12288 };
  assert_a2a (WL_SHARD_ROW_WISE, four, 4, 0, s, s);
}
END_TEST

/* Column-wise: 16 columns in 4 shards of 4 (the largest divisor of 16 up
 * to 4 ranks), placed largest first: each table's 4 shards on ranks 0 ..
 * 3 (equal loads, ties to the lowest rank), so 4 shards a rank, each
 * sending b x 4 x 4 = 256 B to 3 ranks: 3072 B, received alike. */
START_TEST (test_a2a_column_wise)
{
  const guint64 s[] = { 3072, 3072, 3072, 3072 };
  assert_a2a (WL_SHARD_COLUMN_WISE, four, 4, 0, s, s);
}
END_TEST

/* Table-row-wise with 2 ranks a node: tables onto the least-loaded node,
 * largest first: table 0 (64,000 B) node 0, table 1 (51,200) node 1,
 * table 2 (38,400) node 1 (51,200 < 64,000), table 3 node 0 (64,000 <
 * 89,600).  A table on node 0: stage 1, rank 0 sends rank 1 the partial
 * pools of the samples of local rank 1 on both nodes, B / 2 x 64 = 2048 B
 * (and rank 1 rank 0 alike); stage 2, each rank sends its peer of the same
 * local rank on node 1 b x 64 = 1024 B.  Two tables a node: sent 2 x
 * (2048 + 1024) = 6144; received 2 x 2048 from the node and 2 x 1024 from
 * the other: 6144. */
START_TEST (test_a2a_table_row_wise)
{
  const guint64 s[] = { 6144, 6144, 6144, 6144 };
  assert_a2a (WL_SHARD_TABLE_ROW_WISE, four, 4, 2, s, s);
}
END_TEST

/* Data-parallel: no exchange; the tables' gradients all-reduced: (1000 +
 * 800 + 600 + 400) x 16 x 4 = 179,200 B.  The input distribution of
 * table-wise: each rank sends each other table's owner b (8 x 2 + 4) =
 * 320 B (int64 indices, int32 lengths): 3 x 320 = 960 B. */
START_TEST (test_data_parallel_and_input)
{
  const guint64 zero[] = { 0, 0, 0, 0 };
  assert_a2a (WL_SHARD_DATA_PARALLEL, four, 4, 0, zero, zero);
  WlGenDlrm r = small_req (WL_SHARD_DATA_PARALLEL, four, 4);
  g_autoptr (WlDlrmLayout) l = wl_dlrm_layout_new (&r, NULL);
  ck_assert_uint_eq (l->dp_table_B, 179200);
  ck_assert_uint_eq (l->shards->len, 0);
  r.sharding = WL_SHARD_TABLE_WISE;
  g_autoptr (WlDlrmLayout) tw = wl_dlrm_layout_new (&r, NULL);
  guint64 in = 0;
  for (guint32 d = 0; d < 4; d++)
    in += tw->input[0 * 4 + d];
  ck_assert_uint_eq (in, 960);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

/* A plan mixing types: table 0 row-wise on ranks 0 and 1, table 1
 * column-wise on ranks 2 and 3 (two shards of 8 columns), table 2
 * table-wise on rank 3, table 3 by --sharding (data-parallel).  Sent:
 * rank 0: 3 x 1024 (its rows of table 0 to the 3 others); rank 1 the
 * same; rank 2: 3 x b x 8 x 4 = 1536; rank 3: 1536 + 3 x 1024 = 4608.
 * Received: rank 0: 1024 (table 0 from rank 1) + 2 x 512 (table 1) +
 * 1024 (table 2) = 3072; rank 1 alike; rank 2: 2 x 1024 + 512 + 1024 =
 * 3584; rank 3: 2 x 1024 + 512 = 2560. */
START_TEST (test_plan_mixed)
{
  WlGenDlrm r = small_req (WL_SHARD_DATA_PARALLEL, four, 4);
  GError *error = NULL;
  WlDlrmTablePlan *plan = wl_dlrm_plan_parse ("p.plan", "# table,type,ranks\n"
                                              "0,row_wise,0-1\n1,column-wise,2 3\n"
                                              "2,table_wise,3\n", 4, 4, &error);
  g_assert_no_error (error);
  r.plan = plan;
  g_autoptr (WlDlrmLayout) l = wl_dlrm_layout_new (&r, &error);
  g_assert_no_error (error);
  const guint64 sent[] = { 3072, 3072, 1536, 4608 }, recv[] = { 3072, 3072, 3584, 2560 };
  for (guint32 k = 0; k < 4; k++)
    {
      guint64 s = 0, v = 0;
      wl_dlrm_layout_a2a (l, k, &s, &v);
      ck_assert_uint_eq (s, sent[k]);
      ck_assert_uint_eq (v, recv[k]);
    }
  ck_assert_uint_eq (l->dp_table_B, 400 * 64);
  wl_dlrm_plan_free (plan, 4);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

/* The lookup model by hand, on an H100 (L2 50 MiB).  A table of 1000 rows
 * of 16 fp32 (64 B, two sectors), 100 lookups into 10 bags: it fits the
 * L2, so only the first touch of each distinct row reads HBM:
 * U = 1000 (1 - 0.999^100) = 95.2079; forward 64 U + 8 x 100 + 4 x 10 +
 * 10 x 64 = 6093.30 + 800 + 40 + 640 = 7573 B; backward (row-wise Adagrad,
 * its 4-byte state a 32-byte sector): 10 x 64 + 16 x 100 + U (2 x 64 +
 * 2 x 32) = 640 + 1600 + 18279.9 = 20520 B.  A table of 10^9 rows of 128
 * fp32 (512 GB) and 10^6 lookups: repeat touches hit with 52428800 /
 * 5.12e11 = 1.024e-4. */
START_TEST (test_lookup_cost)
{
  WlGenDlrm r = { .dtype = WL_DTYPE_FP32, .emb_opt = WL_EMB_OPT_ROWWISE_ADAGRAD,
                  .device = "H100-SXM" };
  WlLookupCost c = wl_dlrm_lookup_cost (&r, 1000, 16, 100, 10);
  double U = 1000 * (1 - pow (0.999, 100));
  ck_assert (fabs (c.distinct_rows - U) < 1e-6);
  ck_assert (c.hit == 1.0);
  ck_assert_uint_eq (c.fwd_B, 7573);
  ck_assert_uint_eq (c.bwd_B, 20520);
  c = wl_dlrm_lookup_cost (&r, 1000000000, 128, 1e6, 1000);
  double U2 = 1e9 * (1 - pow (1 - 1e-9, 1e6)), hit = 52428800.0 / 512e9;
  ck_assert (fabs (c.hit - hit) < 1e-12);
  double fwd = (U2 + (1e6 - U2) * (1 - hit)) * 512 + 8e6 + 4000 + 1000 * 512;
  ck_assert_msg (fabs ((double) c.fwd_B - fwd) <= 2, "%" G_GUINT64_FORMAT " vs %.1f", c.fwd_B,
                 fwd);
  /* A device without a known L2 (B200): no cache effect at all. */
  r.device = "B200";
  c = wl_dlrm_lookup_cost (&r, 1000, 16, 100, 10);
  ck_assert (c.hit == 0.0);
  ck_assert_uint_eq (c.fwd_B, (guint64) llround (100 * 64.0 + 800) + 40 + 640);
}
END_TEST

static void
assert_tables_error (const char *text, const char *needle)
{
  g_autoptr (GArray) t = g_array_new (FALSE, FALSE, sizeof (WlDlrmTable));
  GError *error = NULL;
  ck_assert (!wl_dlrm_tables_parse ("t.csv", text, t, &error));
  assert_input (error, needle);
  g_error_free (error);
}

START_TEST (test_tables_csv)
{
  g_autoptr (GArray) t = g_array_new (FALSE, FALSE, sizeof (WlDlrmTable));
  ck_assert (wl_dlrm_tables_parse ("t.csv", "# tables\nRows, dim, pooling\n1000,16,2.5\n\n"
                                   "40000000,16,100\n", t, NULL));
  ck_assert_uint_eq (t->len, 2);
  ck_assert (g_array_index (t, WlDlrmTable, 0).pooling == 2.5);
  ck_assert_uint_eq (g_array_index (t, WlDlrmTable, 1).rows, 40000000);
  /* A UTF-8 byte-order mark (spreadsheets write one) is skipped. */
  g_array_set_size (t, 0);
  ck_assert (wl_dlrm_tables_parse ("t.csv", "\xef\xbb\xbfrows,dim,pooling\n7,16,1\n", t, NULL));
  ck_assert_uint_eq (t->len, 1);
  assert_tables_error ("rows,dims,pooling\n1,2,3\n", "t.csv:1: the header must be");
  assert_tables_error ("rows,dim,pooling\n1,2,3\n\n1,0,3\n", "t.csv:4: dim '0' must be");
  assert_tables_error ("rows,dim,pooling\n1,2\n", "t.csv:2: needs 3 fields: rows,dim,pooling "
                       "(this line has 2)");
  assert_tables_error ("rows,dim,pooling\n-5,2,1\n",
                       "t.csv:2: rows '-5' must be a whole number 1 .. 2^40");
  assert_tables_error ("rows,dim,pooling\n5,2,0\n", "t.csv:2: pooling '0' must be");
  assert_tables_error ("rows,dim,pooling\n5,2,nan\n", "t.csv:2: pooling 'nan' must be");
  /* Decimal only, and at least WL_DLRM_MIN_POOLING (0.001). */
  assert_tables_error ("rows,dim,pooling\n5,2,0x10\n", "t.csv:2: pooling '0x10' must be a decimal");
  assert_tables_error ("rows,dim,pooling\n5,2,1e-300\n", "t.csv:2: pooling '1e-300' must be");
  assert_tables_error ("rows,dim,pooling\n5,2,0.0009\n", "t.csv:2: pooling '0.0009' must be");
  assert_tables_error ("rows,dim,pooling\n5,2,inf\n", "t.csv:2: pooling 'inf' must be");
  /* Mixed dimensions: the line, both dimensions and the first table's line. */
  assert_tables_error ("rows,dim,pooling\n5,16,1\n# c\n5,8,1\n",
                       "t.csv:4: dim 8 differs from the first table's 16 (line 2)");
  assert_tables_error ("rows,dim,pooling\n", "t.csv: no tables");
}
END_TEST

static void
assert_plan_error (const char *text, const char *needle)
{
  GError *error = NULL;
  ck_assert (wl_dlrm_plan_parse ("p.plan", text, 4, 4, &error) == NULL);
  assert_input (error, needle);
  g_error_free (error);
}

START_TEST (test_plan_errors)
{
  assert_plan_error ("0,table_wise,1\n1,sideways\n", "p.plan:2: type 'sideways' is not");
  assert_plan_error ("4,row_wise\n", "p.plan:1: table '4' is not a table's index, 0 .. 3");
  /* The planner's listing names tables t0, t1, ...: not an index. */
  assert_plan_error ("t0,row_wise\n", "p.plan:1: table 't0' is not a table's index, 0 .. 3");
  assert_plan_error ("0,row_wise\n\n0,table_wise\n",
                     "p.plan:3: table 0 is given twice (first on line 1)");
  assert_plan_error ("0,row_wise,0-4\n", "p.plan:1: rank 4 is out of range 0 .. 3");
  assert_plan_error ("0,table_wise,99999999999999999999\n",
                     "p.plan:1: rank 99999999999999999999 is out of range 0 .. 3");
  assert_plan_error ("0,row_wise,1 1\n", "p.plan:1: rank 1 is given twice");
  assert_plan_error ("0,row_wise,x\n", "p.plan:1: ranks must be");
  assert_plan_error ("0,table_wise,0 1\n", "p.plan:1: table_wise takes one rank");
  assert_plan_error ("0,data_parallel,0\n", "p.plan:1: data_parallel takes no ranks");
  assert_plan_error ("0\n", "p.plan:1: needs TABLE,TYPE");
  /* An empty file, or one of comments only, was taken for "every table
   * --sharding's" without a word. */
  assert_plan_error ("", "p.plan: no plan lines");
  assert_plan_error ("# table,type,ranks\n\n", "p.plan: no plan lines");
  /* Ranks that do not fit the type are refused with the request. */
  WlGenDlrm r = small_req (WL_SHARD_TABLE_WISE, four, 4);
  WlDlrmTablePlan *plan = wl_dlrm_plan_parse ("p.plan", "1,column_wise,0-2\n", 4, 4, NULL);
  r.plan = plan;
  GError *error = NULL;
  ck_assert (wl_dlrm_layout_new (&r, &error) == NULL);
  assert_input (error, "table 1: 3 column shards do not divide its dimension 16");
  g_clear_error (&error);
  /* With the plan's file named, the message names its line (1). */
  r.plan_path = "p.plan";
  ck_assert (wl_dlrm_layout_new (&r, &error) == NULL);
  assert_input (error, "p.plan:1: table 1: 3 column shards do not divide its dimension 16");
  g_clear_error (&error);
  r.plan_path = NULL;
  wl_dlrm_plan_free (plan, 4);
  plan = wl_dlrm_plan_parse ("p.plan", "1,table_row_wise,1-2\n", 4, 4, NULL);
  r.plan = plan;
  r.ranks_per_node = 2;
  ck_assert (wl_dlrm_layout_new (&r, &error) == NULL);
  assert_input (error, "table 1: table_row_wise ranks 1 and 2 must be on one node (2 ranks a "
                      "node)");
  g_clear_error (&error);
  wl_dlrm_plan_free (plan, 4);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

START_TEST (test_request_errors)
{
  WlGenDlrm r = small_req (WL_SHARD_TABLE_WISE, four, 4);
  GError *error = NULL;
  r.global_batch = 66;
  ck_assert (!wl_gen_dlrm_check (&r, &error));
  assert_input (error, "must be a positive multiple of the ranks (4)");
  g_clear_error (&error);
  r.global_batch = 64;
  r.model.bottom[1] = 32;
  ck_assert (!wl_gen_dlrm_check (&r, &error));
  assert_input (error, "the bottom MLP ends at 32 but the tables' dimension is 16");
  g_clear_error (&error);
  r.model.bottom[1] = 16;
  g_array_index (r.model.tables, WlDlrmTable, 2).dim = 8;
  ck_assert (!wl_gen_dlrm_check (&r, &error));
  assert_input (error, "the same dimension");
  g_clear_error (&error);
  g_array_index (r.model.tables, WlDlrmTable, 2).dim = 16;
  r.sharding = WL_SHARD_TABLE_ROW_WISE;
  r.ranks_per_node = 3;
  ck_assert (!wl_gen_dlrm_check (&r, &error));
  assert_input (error, "a multiple of the ranks a node (3)");
  g_clear_error (&error);
  guint32 sizes[WL_DLRM_MAX_MLP], n = 0;
  ck_assert (wl_dlrm_mlp_parse ("--top-mlp", "1024-1024-512-256-1", sizes, &n, NULL));
  ck_assert_uint_eq (n, 5);
  ck_assert_uint_eq (sizes[4], 1);
  ck_assert (!wl_dlrm_mlp_parse ("--top-mlp", "1024--1", sizes, &n, &error));
  assert_input (error, "--top-mlp: '1024--1' is not layer sizes");
  g_clear_error (&error);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

/* ---- the graph of one rank (gen_dlrm_emit.c's header) */

typedef struct
{
  GHashTable *by_name; /* name -> node (COMP and COLL names are unique) */
  GPtrArray *nodes;    /* every node, owned */
} Trace;

static void
trace_read (Trace *t, const char *path)
{
  GError *error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  t->nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_chakra_node_free);
  t->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    {
      g_ptr_array_add (t->nodes, n);
      if (strcmp (n->name, "send") != 0 && strcmp (n->name, "recv") != 0)
        g_hash_table_insert (t->by_name, n->name, n);
    }
  g_assert_no_error (error);
}

static guint64
id_of (const Trace *t, const char *name)
{
  const ChakraProtoMsg__Node *n = g_hash_table_lookup (t->by_name, name);
  ck_assert_msg (n != NULL, "no node %s", name);
  return n->id;
}

/* The ids of the sends (SEND) or receives with TAG. */
static GArray *
p2p_ids (const Trace *t, gboolean send, gint64 tag)
{
  GArray *a = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint i = 0; i < t->nodes->len; i++)
    {
      const ChakraProtoMsg__Node *n = g_ptr_array_index (t->nodes, i);
      gint64 v = -1;
      int type = send ? CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
                      : CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
      if ((int) n->type == type && wl_chakra_attr_int (n, "comm_tag", &v, NULL) && v == tag)
        {
          /* Each tag's messages form one named all-to-all (the node's name
           * and its `exchange`): 2 the pooled embeddings forward, 5 their
           * gradients backward. */
          const char *x = NULL;
          ck_assert (wl_chakra_attr_string (n, "exchange", &x, NULL));
          ck_assert_str_eq (n->name, x);
          if (tag == 2)
            ck_assert_str_eq (x, "all-to-all (pooled embeddings, forward)");
          if (tag == 5)
            ck_assert_str_eq (x, "all-to-all (embedding gradients, backward)");
          g_array_append_val (a, n->id);
        }
    }
  return a;
}

/* Node NAME (or node ID when NAME is NULL) depends on exactly the N ids
 * of WANT and the ids of the arrays MORE (NULL-terminated). */
static void
assert_deps (const Trace *t, const char *name, guint64 id, const guint64 *want, guint n, ...)
{
  const ChakraProtoMsg__Node *node = NULL;
  if (name != NULL)
    node = g_hash_table_lookup (t->by_name, name);
  for (guint i = 0; node == NULL && i < t->nodes->len; i++)
    if (((ChakraProtoMsg__Node *) g_ptr_array_index (t->nodes, i))->id == id)
      node = g_ptr_array_index (t->nodes, i);
  ck_assert_msg (node != NULL, "no node %s", name != NULL ? name : "by id");
  g_autoptr (GArray) all = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_array_append_vals (all, want, n);
  va_list ap;
  va_start (ap, n);
  for (const GArray *more = va_arg (ap, const GArray *); more != NULL;
       more = va_arg (ap, const GArray *))
    g_array_append_vals (all, more->data, more->len);
  va_end (ap);
  ck_assert_msg (node->n_data_deps == all->len, "%s: %zu dependencies, expected %u",
                 node->name, node->n_data_deps, all->len);
  for (guint i = 0; i < all->len; i++)
    {
      gboolean found = FALSE;
      for (gsize j = 0; j < node->n_data_deps; j++)
        found = found || node->data_deps[j] == g_array_index (all, guint64, i);
      ck_assert_msg (found, "%s does not depend on node %" G_GUINT64_FORMAT, node->name,
                     g_array_index (all, guint64, i));
    }
}

static gint64
attr (const Trace *t, const char *name, const char *key)
{
  gint64 v = -1;
  ck_assert (wl_chakra_attr_int (g_hash_table_lookup (t->by_name, name), key, &v, NULL));
  return v;
}

/* The inter_fwd and inter_bwd kernels of rank 0 of the four tables
 * table-wise, dot interaction, FUSED or not. */
static void
inter_kernels (gboolean fused, char **fwd, char **bwd)
{
  WlGenDlrm r = small_req (WL_SHARD_TABLE_WISE, four, 4);
  r.model.dot_fused = fused;
  g_autofree char *prefix = tu_scratch_path (fused ? "fused" : "unfused");
  GError *error = NULL;
  ck_assert (wl_gen_dlrm (prefix, &r, &error));
  g_assert_no_error (error);
  g_autofree char *path = g_strdup_printf ("%s.0.et", prefix);
  Trace t;
  trace_read (&t, path);
  const char *f = NULL, *b = NULL;
  ck_assert (wl_chakra_attr_string (g_hash_table_lookup (t.by_name, "inter_fwd"), "kernels",
                                    &f, NULL));
  ck_assert (wl_chakra_attr_string (g_hash_table_lookup (t.by_name, "inter_bwd"), "kernels",
                                    &b, NULL));
  *fwd = g_strdup (f);
  *bwd = g_strdup (b);
  g_hash_table_destroy (t.by_name);
  g_ptr_array_free (t.nodes, TRUE);
  wl_dlrm_model_clear (&r.model);
}

/* The dot interaction's two forms, by hand: 64 samples on 4 ranks, b =
 * 16 a rank, F = 4 tables + 1 = 5 features of D = 16, N = 80, tri = 10,
 * fp32 (4 bytes).  Both first concatenate (backward: split) the features,
 * 2 b N 4 = 10,240 B.  Unfused (TorchRec): a batched GEMM F x D by D x F
 * per sample (m = n = 5, k = 16, batch 16), then the lower-triangle
 * gather, b (F^2 + tri) 4 = 2,240 B; backward the gather's gradient (2,240
 * B) and the GEMM F x F by F x D twice a sample (batch 32).  Fused (DLE's
 * dot_based_interact): forward reads the features and writes the top
 * MLP's input, b (N + D + tri) 4 = 16 x 106 x 4 = 6,784 B; backward reads
 * that gradient and the features and writes their gradient, b (2 N + D +
 * tri) 4 = 16 x 186 x 4 = 11,904 B. */
START_TEST (test_dot_interaction_kernels)
{
  g_autofree char *uf = NULL, *ub = NULL, *ff = NULL, *fb = NULL;
  inter_kernels (FALSE, &uf, &ub);
  inter_kernels (TRUE, &ff, &fb);
  ck_assert_str_eq (uf, "mem:bytes=10240,what=concat,flops=0;"
                        "gemm:m=5,n=5,k=16,batch=16,dtype=fp32;"
                        "mem:bytes=2240,what=tril,flops=0");
  ck_assert_str_eq (ub, "mem:bytes=10240,what=split,flops=0;"
                        "mem:bytes=2240,what=tril_bwd,flops=0;"
                        "gemm:m=5,n=16,k=5,batch=32,dtype=fp32");
  ck_assert_str_eq (ff, "mem:bytes=10240,what=concat,flops=0;"
                        "mem:bytes=6784,what=dot_interact,flops=0");
  ck_assert_str_eq (fb, "mem:bytes=10240,what=split,flops=0;"
                        "mem:bytes=11904,what=dot_interact_bwd,flops=0");
}
END_TEST

/* The four tables table-row-wise on 2 nodes of 2 ranks (tags 1 .. 5 all
 * used), table 3 data-parallel, dot interaction: rank 0's graph is the one
 * written in gen_dlrm_emit.c's header, edge for edge; the all-reduces'
 * sizes: top MLP and interaction (F = 5: 16 + 10 = 26 features; 26 x 8 +
 * 8 + 8 x 1 + 1 = 225 parameters) 900 B, bottom (13 x 16 + 16 = 224) 896
 * B, data-parallel table 3, 400 x 16 x 4 = 25,600 B. */
START_TEST (test_graph)
{
  WlGenDlrm r = small_req (WL_SHARD_TABLE_ROW_WISE, four, 4);
  r.model.top[0] = 8;
  r.model.top[1] = 1;
  r.model.n_top = 2;
  r.ranks_per_node = 2;
  WlDlrmTablePlan *plan = wl_dlrm_plan_parse ("p.plan", "3,data_parallel\n", 4, 4, NULL);
  r.plan = plan;
  g_autofree char *prefix = tu_scratch_path ("d");
  GError *error = NULL;
  ck_assert (wl_gen_dlrm (prefix, &r, &error));
  g_assert_no_error (error);
  g_autofree char *path = g_strdup_printf ("%s.0.et", prefix);
  Trace t;
  trace_read (&t, path);
  guint64 emb = id_of (&t, "emb_fwd"), ib = id_of (&t, "inter_bwd");
  guint64 bb = id_of (&t, "bottom_bwd"), art = id_of (&t, "ar_top");
  guint64 arb = id_of (&t, "ar_bottom"), eb = id_of (&t, "emb_bwd");
  guint64 ard = id_of (&t, "ar_dp_tables");
  g_autoptr (GArray) r2 = p2p_ids (&t, FALSE, 2), r3 = p2p_ids (&t, FALSE, 3);
  g_autoptr (GArray) r4 = p2p_ids (&t, FALSE, 4), r5 = p2p_ids (&t, FALSE, 5);
  g_autoptr (GArray) in_s = p2p_ids (&t, TRUE, 1), in_r = p2p_ids (&t, FALSE, 1);
  /* Node 0 holds table 0 alone (64,000 B; tables 1 and 2 went to node 1,
   * as in test_a2a_table_row_wise): rank 0 exchanges stage 1 with rank 1
   * only, and stage 2 with rank 2 only (one message for node 1's two
   * tables); indices go to every other rank (table 0's rows on rank 1,
   * tables 1 and 2 on ranks 2 and 3). */
  ck_assert_uint_eq (r2->len, 1);
  ck_assert_uint_eq (r3->len, 1);
  ck_assert_uint_eq (in_s->len, 3);
  ck_assert_uint_eq (in_r->len, 3);
  assert_deps (&t, "emb_fwd", 0, NULL, 0, NULL);
  assert_deps (&t, "bottom_fwd", 0, &emb, 1, NULL);
  for (guint i = 0; i < in_s->len; i++)
    assert_deps (&t, NULL, g_array_index (in_s, guint64, i), NULL, 0, NULL);
  g_autoptr (GArray) s2 = p2p_ids (&t, TRUE, 2), s3 = p2p_ids (&t, TRUE, 3);
  assert_deps (&t, NULL, g_array_index (s2, guint64, 0), &emb, 1, NULL);
  assert_deps (&t, NULL, g_array_index (s3, guint64, 0), &emb, 1, r2, NULL);
  guint64 bf = id_of (&t, "bottom_fwd");
  assert_deps (&t, "inter_fwd", 0, &bf, 1, r2, r3, NULL);
  guint64 inf = id_of (&t, "inter_fwd"), tf = id_of (&t, "top_fwd");
  guint64 tb = id_of (&t, "top_bwd");
  assert_deps (&t, "top_fwd", 0, &inf, 1, NULL);
  assert_deps (&t, "top_bwd", 0, &tf, 1, NULL);
  assert_deps (&t, "inter_bwd", 0, &tb, 1, NULL);
  assert_deps (&t, "ar_top", 0, &ib, 1, NULL);
  g_autoptr (GArray) s4 = p2p_ids (&t, TRUE, 4), s5 = p2p_ids (&t, TRUE, 5);
  assert_deps (&t, NULL, g_array_index (s4, guint64, 0), &ib, 1, NULL);
  assert_deps (&t, NULL, g_array_index (s5, guint64, 0), &ib, 1, r4, NULL);
  assert_deps (&t, "bottom_bwd", 0, &ib, 1, NULL);
  guint64 pair[2] = { bb, art };
  assert_deps (&t, "ar_bottom", 0, pair, 2, NULL);
  assert_deps (&t, "emb_bwd", 0, &bb, 1, r4, r5, NULL);
  guint64 three[3] = { arb, eb, ard };
  assert_deps (&t, "ar_dp_tables", 0, three, 2, NULL);
  assert_deps (&t, "optimizer", 0, three, 3, NULL);
  ck_assert_int_eq (attr (&t, "ar_top", "comm_size"), 900);
  ck_assert_int_eq (attr (&t, "ar_bottom", "comm_size"), 896);
  ck_assert_int_eq (attr (&t, "ar_dp_tables", "comm_size"), 25600);
  ck_assert_int_eq (attr (&t, "ar_top", "stream"), 2);
  const ChakraProtoMsg__Node *top = g_hash_table_lookup (t.by_name, "top_fwd");
  ck_assert (top->duration_micros >= 1);
  ck_assert (attr (&t, "top_fwd", "num_ops") > 0);
  g_hash_table_destroy (t.by_name);
  g_ptr_array_free (t.nodes, TRUE);
  wl_dlrm_plan_free (plan, 4);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

/* The kernels attribute of node NAME. */
static const char *
kernels_of (const Trace *t, const char *name)
{
  const char *k = NULL;
  ck_assert (wl_chakra_attr_string (g_hash_table_lookup (t->by_name, name), "kernels", &k, NULL));
  return k;
}

static void
assert_has (const char *haystack, const char *needle)
{
  ck_assert_msg (strstr (haystack, needle) != NULL, "'%s' not in '%s'", needle, haystack);
}

/* DeepLearningExamples' TF2 step (--pipeline none --amp-casts), by hand on
 * the four tables table-wise (rank 0 holds table 0: 1000 rows, dim 16,
 * pooling 2), B = 64 (b = 16), embeddings fp32 (E = 4), MLPs fp16 (Em =
 * 2).  The exchange carries fp16: each rank sends b x 16 x 2 = 512 B to
 * each of the 3 others (fp32: 1024).  emb_fwd casts its pooled outputs,
 * 64 x 16 = 1024 elements, 4 + 2 bytes each: 6,144 B; emb_bwd casts the
 * gradients back (6,144 B) and unscales the gradient values, one row per
 * index: 64 x 2 x 16 = 2,048 elements read and written in fp32, 16,384 B.
 * The MLP weights: the bottom MLP's 13 x 16 + 16 = 224 cast in bottom_fwd
 * (224 x 6 = 1,344 B) and their gradients in bottom_bwd; the top MLP's 26
 * x 1 + 1 = 27 (the dot interaction's 16 + 10 features) in top_fwd (162
 * B); the optimizer unscales all 251 gradients, 251 x 8 = 2,008 B.  No
 * input distribution: no tag-1 message. */
START_TEST (test_dle_step)
{
  WlGenDlrm r = small_req (WL_SHARD_TABLE_WISE, four, 4);
  r.mlp_dtype_set = TRUE;
  r.mlp_dtype = WL_DTYPE_FP16;
  r.amp_casts = TRUE;
  r.pipeline_none = TRUE;
  GError *error = NULL;
  g_autoptr (WlDlrmLayout) l = wl_dlrm_layout_new (&r, &error);
  g_assert_no_error (error);
  guint64 sent = 0, recv = 0;
  wl_dlrm_layout_a2a (l, 0, &sent, &recv);
  ck_assert_uint_eq (sent, 3 * 512);
  ck_assert_uint_eq (recv, 3 * 512);
  g_autofree char *prefix = tu_scratch_path ("dle");
  ck_assert (wl_gen_dlrm (prefix, &r, &error));
  g_assert_no_error (error);
  g_autofree char *path = g_strdup_printf ("%s.0.et", prefix);
  Trace t;
  trace_read (&t, path);
  assert_has (kernels_of (&t, "emb_fwd"), "mem:bytes=6144,what=cast_emb,flops=0");
  assert_has (kernels_of (&t, "emb_bwd"), "mem:bytes=6144,what=cast_emb_grad,flops=0");
  assert_has (kernels_of (&t, "emb_bwd"), "mem:bytes=16384,what=unscale_emb,flops=2048");
  assert_has (kernels_of (&t, "bottom_fwd"), "mem:bytes=1344,what=cast_weights,flops=0");
  assert_has (kernels_of (&t, "bottom_bwd"), "mem:bytes=1344,what=cast_wgrad,flops=0");
  assert_has (kernels_of (&t, "top_fwd"), "mem:bytes=162,what=cast_weights,flops=0");
  assert_has (kernels_of (&t, "top_bwd"), "mem:bytes=162,what=cast_wgrad,flops=0");
  assert_has (kernels_of (&t, "optimizer"), "mem:bytes=2008,what=unscale,flops=251");
  g_autoptr (GArray) in_s = p2p_ids (&t, TRUE, 1), in_r = p2p_ids (&t, FALSE, 1);
  ck_assert_uint_eq (in_s->len + in_r->len, 0);
  g_autoptr (GArray) s2 = p2p_ids (&t, TRUE, 2);
  ck_assert_uint_eq (s2->len, 3);
  for (guint i = 0; i < t.nodes->len; i++)
    {
      const ChakraProtoMsg__Node *n = g_ptr_array_index (t.nodes, i);
      gint64 tag = -1, size = -1;
      if ((int) n->type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
          && wl_chakra_attr_int (n, "comm_tag", &tag, NULL) && tag == 2)
        ck_assert (wl_chakra_attr_int (n, "comm_size", &size, NULL) && size == 512);
    }
  g_hash_table_destroy (t.by_name);
  g_ptr_array_free (t.nodes, TRUE);
  /* Without the options the step is TorchRec's: no casts, fp32 exchange. */
  r.amp_casts = FALSE;
  r.pipeline_none = FALSE;
  g_autoptr (WlDlrmLayout) l2 = wl_dlrm_layout_new (&r, &error);
  wl_dlrm_layout_a2a (l2, 0, &sent, &recv);
  ck_assert_uint_eq (sent, 3 * 1024);
  wl_dlrm_model_clear (&r.model);
}
END_TEST

static Suite *
gen_dlrm_suite (void)
{
  Suite *s = suite_create ("gen_dlrm");
  TCase *tc = tcase_create ("core");
  tcase_add_test (tc, test_preset_params);
  tcase_add_test (tc, test_preset_memory);
  tcase_add_test (tc, test_a2a_table_wise);
  tcase_add_test (tc, test_a2a_row_wise);
  tcase_add_test (tc, test_a2a_column_wise);
  tcase_add_test (tc, test_a2a_table_row_wise);
  tcase_add_test (tc, test_data_parallel_and_input);
  tcase_add_test (tc, test_plan_mixed);
  tcase_add_test (tc, test_lookup_cost);
  tcase_add_test (tc, test_tables_csv);
  tcase_add_test (tc, test_plan_errors);
  tcase_add_test (tc, test_request_errors);
  suite_add_tcase (s, tc);
  TCase *files = tcase_create ("files");
  tcase_add_checked_fixture (files, tu_scratch_setup, tu_scratch_teardown);
  tcase_add_test (files, test_dle_step);
  tcase_add_test (files, test_graph);
  tcase_add_test (files, test_dot_interaction_kernels);
  suite_add_tcase (s, files);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_dlrm_suite ());
}
