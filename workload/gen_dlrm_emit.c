/* gen_dlrm_emit.c: the DLRM generator's traces: the lookup cost model,
 * every compute node's kernels (GEMMs by shape, memory-bound kernels by
 * bytes) and one rank's iteration as TorchRec's TrainPipelineSparseDist
 * runs it (see gen_dlrm.h and README, "gen dlrm").
 *
 * The graph of one rank (ids in this order):
 *   input_dist   sends / receives of the next batch's indices (tag 1,
 *                stream 3); nothing waits for them (the pipeline's
 *                prefetch: they overlap the whole iteration); none with
 *                pipeline_none (DeepLearningExamples' TF2 step)
 *   emb_fwd      the rank's lookups, one kernel per sharding type
 *   bottom_fwd   after emb_fwd (one compute stream)
 *   a2a_fwd      sends of the pooled embeddings after emb_fwd (tag 2,
 *                stream 1), receives posted at once; table-row-wise
 *                stage 2 (tag 3) after every tag-2 receive
 *   inter_fwd    after bottom_fwd and every tag 2 / 3 receive
 *   top_fwd      the top MLP and the loss, then top_bwd, inter_bwd
 *   ar_top       all-reduce of the top MLP's and interaction's gradients
 *                after inter_bwd (stream 2)
 *   a2a_bwd      the pooled-embedding gradients, after inter_bwd: stage 2
 *                reversed (tag 4), then stage 1 reversed (tag 5)
 *   bottom_bwd   after inter_bwd; ar_bottom after it and ar_top
 *   emb_bwd      after bottom_bwd and every tag 4 / 5 receive: gradient
 *                and fused optimizer update of the touched rows
 *   ar_dp_tables after emb_bwd and ar_bottom (data-parallel tables only)
 *   optimizer    the MLPs' Adagrad (or SGD) step, after every all-reduce
 *                (and the data-parallel tables' update).
 * With amp_casts (gen_dlrm.h) the nodes gain their memory-bound casts:
 * emb_fwd cast_emb, emb_bwd cast_emb_grad and unscale_emb, bottom_fwd and
 * top_fwd cast_weights, top_bwd and bottom_bwd cast_wgrad, optimizer
 * unscale; the exchanges carry the MLPs' type. */
#include "workload/gen_dlrm.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "system/sys_params.h"
#include "workload/chakra.h"
#include "workload/gen.h"
#include "workload/graph.h"
#include "workload/kernels.h"

/* Last-level cache before HBM, bytes.  A100: 40 MiB L2 (NVIDIA A100
 * Tensor Core GPU Architecture whitepaper, 2020, "40 MB L2 cache";
 * cudaDeviceProp.l2CacheSize 41943040).  H100 SXM5: 50 MiB (NVIDIA H100
 * Tensor Core GPU Architecture whitepaper, 2022, "50 MB L2 cache").
 * H200: the same GH100 GPU with HBM3e (NVIDIA H200 product brief), 50 MiB.
 * MI300X: 256 MiB AMD Infinity Cache in front of HBM (AMD CDNA 3
 * Instruction Set Architecture / white paper, 2023).  B200: not in the
 * NVIDIA documents cited in configs/devices/README.md: 0, no cache effect. */
static const struct
{
  const char *device;
  double bytes;
} l2_sizes[] = {
  { "A100-80GB", 40.0 * 1048576 },
  { "H100-SXM", 50.0 * 1048576 },
  { "H200", 50.0 * 1048576 },
  { "MI300X", 256.0 * 1048576 },
};

double
wl_dlrm_l2_bytes (const char *device)
{
  for (guint i = 0; device != NULL && i < G_N_ELEMENTS (l2_sizes); i++)
    if (g_ascii_strcasecmp (device, l2_sizes[i].device) == 0)
      return l2_sizes[i].bytes;
  return 0;
}

/* GPUs move global memory in 32-byte sectors (NVIDIA CUDA C++ Best
 * Practices Guide, "Coalesced Access to Global Memory"): a row of fewer
 * bytes, or not a multiple, costs whole sectors. */
#define SECTOR_B 32

static guint64
sectors (guint64 bytes)
{
  return (bytes + SECTOR_B - 1) / SECTOR_B * SECTOR_B;
}

static const char *
device_of (const WlGenDlrm *req)
{
  return req->device != NULL ? req->device : "H100-SXM";
}

/* The fused optimizer's state of one row of COLS, bytes (gen_dlrm.h). */
static guint64
state_row_B (WlEmbOptimizer opt, guint32 cols)
{
  return opt == WL_EMB_OPT_ADAGRAD            ? (guint64) cols * 4
         : opt == WL_EMB_OPT_ADAM            ? (guint64) cols * 8
         : opt == WL_EMB_OPT_ROWWISE_ADAGRAD ? 4
                                             : 0;
}

/* TensorFlow's sparse update (tf_update): the backward of the lookups and
 * the embeddings' optimizer as NVIDIA DeepLearningExamples' TF2 DLRM/DCNv2
 * step runs them, HBM bytes of one shard (gen_dlrm.h; U distinct rows,
 * HBM_ROWS the row touches that miss the L2, r the row's sector bytes, v
 * = COLS x E the bytes of one value row).  The source: one-hot inputs
 * reach tf.nn.embedding_lookup (distributed-embeddings
 * ops/embedding_lookup_ops.py, embedding_lookup: dim1 == 1), whose
 * gradient is an IndexedSlices of the incoming gradient, one row an index
 * (a multi-hot sum first broadcasts the pooled gradient to its N rows);
 * trainer.py's _weight_update applies it with the Keras legacy optimizer:
 * - SGD without momentum (main.py create_optimizers): ResourceScatterAdd
 *   of -lr x values (Keras gradient_descent.py, _resource_apply_sparse_
 *   duplicate_indices).  The scaling is a pointwise Mul, which XLA Lite
 *   (--xla: tf_xla_auto_jit=fusible) clusters with the loss scale's
 *   unscale, itself a Mul of the same values (amp_casts); alone, its own
 *   kernel (2 N v).
 * - Lazy Adam (TF Addons LazyAdam): the base optimizer's
 *   _deduplicate_indexed_slices (Unique, UnsortedSegmentSum), then
 *   tf.gather of m and of v, m_t = b1 m + (1 - b1) g, v_t = b2 v + (1 -
 *   b2) g^2, the step lr m_t / (sqrt v_t + eps), ResourceScatterUpdate of m
 *   and of v, ResourceScatterSub of the variable.  The elementwise ops
 *   are in XLA's fusible allowlist (tensorflow/compiler/jit/mark_for_
 *   compilation_pass.cc, GetAllowlistTable: "PW") and run as one fused
 *   kernel reading g, m, v and writing m_t, v_t and the step (6 U v); the
 *   gathers, scatters, Unique and UnsortedSegmentSum are not in it
 *   (GetKnownXLAAllowlistOp lists them as known to be outside) and run
 *   each as its own TensorFlow kernel.  Unique sorts the indices: 16 N, as
 *   the fused model's sort. */
static guint64
tf_update_bytes (const WlGenDlrm *req, double U, double hbm_rows, guint64 row_B, guint32 cols,
                 double n, guint64 outputs)
{
  double v = (double) cols * wl_dlrm_elem_bytes (req->dtype), r = (double) row_B;
  double B = n > (double) outputs ? ((double) outputs + n) * v : 0;
  if (req->emb_opt == WL_EMB_OPT_SGD)
    {
      if (!(req->amp_casts && req->mlp_dtype_set))
        B += 2 * n * v;
      B += n * v + 8 * n + 2 * hbm_rows * r;
    }
  else
    B += 16 * n + (U * v + n * v + 4 * n + 2 * U * r) /* UnsortedSegmentSum */
         + 2 * (U * r + U * v) + 6 * U * v + 2 * (U * v + U * r) + (U * v + 2 * U * r);
  return (guint64) llround (B);
}

WlLookupCost
wl_dlrm_lookup_cost (const WlGenDlrm *req, guint64 rows, guint32 cols, double n, guint64 outputs)
{
  WlLookupCost c = { 0 };
  guint64 E = wl_dlrm_elem_bytes (req->dtype), row_B = sectors (cols * E);
  double shard_B = (double) rows * (double) cols * (double) E;
  double l2 = wl_dlrm_l2_bytes (device_of (req));
  /* Uniform indices: the expected distinct rows of n draws among R. */
  c.distinct_rows = n > 0 ? (double) rows * -expm1 (n * log1p (-1.0 / (double) rows)) : 0;
  c.hit = shard_B <= l2 ? 1.0 : l2 / shard_B;
  double hbm_rows = c.distinct_rows + (n - c.distinct_rows) * (1.0 - c.hit);
  c.fwd_B = (guint64) llround (hbm_rows * (double) row_B + 8.0 * n) + 4 * outputs
            + outputs * cols * E;
  guint64 state = state_row_B (req->emb_opt, cols);
  double touched_B = (double) (2 * row_B + 2 * (state > 0 ? sectors (state) : 0));
  c.bwd_B = outputs * cols * E + (guint64) llround (16.0 * n)
            + (guint64) llround (c.distinct_rows * touched_B);
  if (req->tf_update)
    c.bwd_B = tf_update_bytes (req, c.distinct_rows, hbm_rows, row_B, cols, n, outputs);
  return c;
}

/* ---- emission */

typedef struct
{
  const WlGenDlrm *req;
  const WlDlrmLayout *l;
  const WlKernelDevice *dev;
  WlChakraWriter *w;
  GError **error;
  gboolean ok;
  guint32 me, E, Em; /* E: embeddings' and master weights' bytes; Em: MLP compute */
  gboolean amp;      /* the request's amp_casts (and an MLP type set) */
  guint64 b, next_id;
  const char *dt; /* the GEMMs' dtype name */
} Em;

enum
{
  STREAM_COMPUTE = 0,
  STREAM_A2A = 1,
  STREAM_DP = 2,
  STREAM_INPUT = 3
};

/* Append a node of TYPE with ATTRS and the dependencies DEPS (guint64
 * ids; NULL: none); returns its id. */
static guint64
node (Em *e, const char *name, int type, ChakraProtoMsg__AttributeProto *attrs, gsize n,
      const GArray *deps, guint64 duration_us)
{
  ChakraProtoMsg__AttributeProto *ptrs[8];
  g_assert (n <= G_N_ELEMENTS (ptrs));
  for (gsize i = 0; i < n; i++)
    ptrs[i] = &attrs[i];
  ChakraProtoMsg__Node nd = CHAKRA_PROTO_MSG__NODE__INIT;
  nd.id = e->next_id++;
  nd.name = (char *) name;
  nd.type = type;
  nd.duration_micros = duration_us;
  nd.attr = ptrs;
  nd.n_attr = n;
  nd.n_data_deps = deps != NULL ? deps->len : 0;
  nd.data_deps = deps != NULL && deps->len > 0 ? (guint64 *) deps->data : NULL;
  if (e->ok)
    e->ok = wl_chakra_writer_add (e->w, &nd, e->error);
  return nd.id;
}

static GArray *
ids_new (void)
{
  return g_array_new (FALSE, FALSE, sizeof (guint64));
}

static GArray *
ids_of (guint n, const guint64 *v)
{
  GArray *a = ids_new ();
  g_array_append_vals (a, v, n);
  return a;
}

/* A compute node running KERNELS (kernels.h's grammar), priced on the
 * device by the kernel model: num_ops its FLOPs, tensor_size its bytes,
 * duration_micros its time rounded up to whole microseconds; EXTRA (may be
 * NULL) an attribute "embedding_shards" naming the shards it looks up. */
static guint64
comp (Em *e, const char *name, const GString *kernels, const char *extra, const GArray *deps)
{
  g_autoptr (GArray) ks = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  g_autoptr (GError) err = NULL;
  gboolean parsed = wl_kernels_parse (kernels->str, ks, &err);
  g_assert (parsed); /* the generator writes the grammar */
  double flops = 0, bytes = 0;
  for (guint i = 0; i < ks->len; i++)
    {
      const WlKernel *k = &g_array_index (ks, WlKernel, i);
      flops += wl_kernel_flops (k) * (double) k->count;
      bytes += wl_kernel_bytes (k) * (double) k->count;
    }
  ChakraProtoMsg__AttributeProto a[4];
  wl_chakra_attr_set_int64 (&a[0], "num_ops", (gint64) llround (flops));
  wl_chakra_attr_set_uint (&a[1], "tensor_size", (guint64) llround (bytes));
  wl_chakra_attr_set_string (&a[2], "kernels", kernels->str);
  if (extra != NULL)
    wl_chakra_attr_set_string (&a[3], "embedding_shards", extra);
  guint64 us = (guint64) ceil (wl_kernel_list_ns (e->dev, NULL, ks) / 1000.0);
  return node (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, a, extra != NULL ? 4 : 3, deps,
               us);
}

static void
k_sep (GString *k)
{
  if (k->len > 0)
    g_string_append_c (k, ';');
}

static void
k_gemm (Em *e, GString *k, guint64 m, guint64 n, guint64 kk, guint64 batch)
{
  k_sep (k);
  g_string_append_printf (k, "gemm:m=%" G_GUINT64_FORMAT ",n=%" G_GUINT64_FORMAT
                          ",k=%" G_GUINT64_FORMAT ",batch=%" G_GUINT64_FORMAT ",dtype=%s",
                          m, n, kk, batch, e->dt);
}

static void
k_mem (GString *k, const char *what, guint64 bytes, guint64 flops)
{
  k_sep (k);
  g_string_append_printf (k, "mem:bytes=%" G_GUINT64_FORMAT ",what=%s,flops=%" G_GUINT64_FORMAT,
                          MAX (bytes, 1), what, flops);
}

/* An MLP's forward over the local batch: per layer its GEMM and the bias
 * (+ ReLU, but after the top MLP's last layer) read and written. */
static void
mlp_fwd (Em *e, GString *k, guint64 in, const guint32 *sizes, guint32 n, gboolean last_relu)
{
  for (guint32 i = 0; i < n; i++)
    {
      k_gemm (e, k, e->b, sizes[i], in, 1);
      k_mem (k, i + 1 < n || last_relu ? "bias_relu" : "bias", 2 * e->b * sizes[i] * e->Em,
             e->b * sizes[i]);
      in = sizes[i];
    }
}

/* Its backward: per layer (last first) the activation's backward (the
 * gradient and the output read, the gradient written), the weight
 * gradient and, unless it is the first layer of the bottom MLP (whose
 * input, the dense features, needs none), the input gradient. */
static void
mlp_bwd (Em *e, GString *k, guint64 in, const guint32 *sizes, guint32 n, gboolean input_grad)
{
  for (guint32 j = n; j-- > 0;)
    {
      guint64 lin = j > 0 ? sizes[j - 1] : in;
      k_mem (k, "relu_bwd", 3 * e->b * sizes[j] * e->Em, e->b * sizes[j]);
      k_gemm (e, k, sizes[j], lin, e->b, 1);
      if (j > 0 || input_grad)
        k_gemm (e, k, e->b, lin, sizes[j], 1);
    }
}

static guint32
dim (const Em *e)
{
  return g_array_index (e->req->model.tables, WlDlrmTable, 0).dim;
}

/* The interaction forward (dot: the F vectors stacked, their Gram matrix
 * per sample, its strict lower triangle gathered; DCN: stacked, then per
 * layer V x, W (V x), and x_0 * (. + b) + x_l) or backward. */
static void
interaction (Em *e, GString *k, gboolean bwd)
{
  const WlDlrmModel *m = &e->req->model;
  guint64 F = m->tables->len + 1, D = dim (e), b = e->b, N = F * D, r = m->dcn_rank;
  k_mem (k, bwd ? "split" : "concat", 2 * b * N * e->Em, 0);
  if (!m->dcn && m->dot_fused)
    {
      /* One fused kernel (NVIDIA DeepLearningExamples' dot_based_interact
       * CUDA op, TF2 DLRM "dot_custom_cuda"): the F x F Gram is formed in
       * shared memory on tensor cores and only its strict lower triangle
       * leaves the SM.  Forward: the F x D features read, the top MLP's
       * input (the bottom MLP's D outputs and the tri products) written;
       * backward: that gradient and the features read, their gradient
       * written.  Its tensor-core FLOPs (2 F^2 D a sample forward, twice
       * backward) are far under its memory time at a tensor-core rate and
       * are not charged (a mem kernel's FLOPs run at the fp32 rate). */
      guint64 tri = F * (F - 1) / 2;
      k_mem (k, bwd ? "dot_interact_bwd" : "dot_interact",
             b * ((bwd ? 2 : 1) * N + D + tri) * e->Em, 0);
      return;
    }
  if (!m->dcn)
    {
      guint64 tri = F * (F - 1) / 2;
      if (!bwd)
        k_gemm (e, k, F, F, D, b);
      k_mem (k, bwd ? "tril_bwd" : "tril", b * (F * F + tri) * e->Em, 0);
      if (bwd)
        k_gemm (e, k, F, D, F, 2 * b);
      return;
    }
  for (guint32 i = 0; i < m->dcn_layers; i++)
    {
      if (!bwd)
        {
          k_gemm (e, k, b, r, N, 1);
          k_gemm (e, k, b, N, r, 1);
          k_mem (k, "cross", 4 * b * N * e->Em, 3 * b * N);
          continue;
        }
      k_mem (k, "cross_bwd", 6 * b * N * e->Em, 4 * b * N);
      k_gemm (e, k, b, r, N, 1); /* dgrad through W */
      k_gemm (e, k, N, r, b, 1); /* W's gradient */
      k_gemm (e, k, b, N, r, 1); /* dgrad through V */
      k_gemm (e, k, r, N, b, 1); /* V's gradient */
    }
}

/* The lookups of the rank, one TBE kernel per sharding type (TorchRec
 * groups a rank's tables by sharding type into one FBGEMM
 * TableBatchedEmbedding each), forward or backward; SHARDS names them. */
static void
lookups (Em *e, GString *k, GString *shards, gboolean bwd)
{
  const WlGenDlrm *r = e->req;
  const WlDlrmLayout *l = e->l;
  guint64 fwd[WL_SHARD_N] = { 0 }, bw[WL_SHARD_N] = { 0 }, adds[WL_SHARD_N] = { 0 };
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (l->shards, WlDlrmShard, i);
      if (sh->rank != e->me)
        continue;
      const WlDlrmTable *tb = &g_array_index (r->model.tables, WlDlrmTable, sh->table);
      double n = (double) r->global_batch * tb->pooling * (double) sh->rows / (double) tb->rows;
      WlLookupCost c = wl_dlrm_lookup_cost (r, sh->rows, sh->cols, n, r->global_batch);
      WlShardKind kind = l->kind[sh->table];
      fwd[kind] += c.fwd_B;
      bw[kind] += c.bwd_B;
      adds[kind] += (guint64) llround (n * sh->cols);
      g_string_append_printf (shards, "%st%u:%s,rows=%" G_GUINT64_FORMAT "+%" G_GUINT64_FORMAT
                              ",cols=%u+%u,lookups=%.0f", shards->len > 0 ? ";" : "",
                              sh->table, wl_shard_kind_name (kind), sh->row0, sh->rows,
                              sh->col0, sh->cols, n);
    }
  for (guint32 t = 0; t < r->model.tables->len; t++)
    if (l->kind[t] == WL_SHARD_DATA_PARALLEL)
      {
        const WlDlrmTable *tb = &g_array_index (r->model.tables, WlDlrmTable, t);
        double n = (double) e->b * tb->pooling;
        WlLookupCost c = wl_dlrm_lookup_cost (r, tb->rows, tb->dim, n, e->b);
        fwd[WL_SHARD_DATA_PARALLEL] += c.fwd_B;
        /* A dense gradient: the whole table's, written. */
        bw[WL_SHARD_DATA_PARALLEL] += e->b * tb->dim * e->E + (guint64) llround (16.0 * n)
                                      + tb->rows * tb->dim * e->E;
        adds[WL_SHARD_DATA_PARALLEL] += (guint64) llround (n * tb->dim);
        g_string_append_printf (shards, "%st%u:data_parallel,rows=0+%" G_GUINT64_FORMAT
                                ",cols=0+%u,lookups=%.0f", shards->len > 0 ? ";" : "", t,
                                tb->rows, tb->dim, n);
      }
  static const char *const fwd_what[WL_SHARD_N] = { "tbe_fwd_tw", "tbe_fwd_rw", "tbe_fwd_cw",
                                                    "tbe_fwd_twrw", "tbe_fwd_dp" };
  static const char *const bwd_what[WL_SHARD_N] = { "tbe_bwd_tw", "tbe_bwd_rw", "tbe_bwd_cw",
                                                    "tbe_bwd_twrw", "tbe_bwd_dp" };
  static const char *const tf_what[WL_SHARD_N] = { "tf_update_tw", "tf_update_rw",
                                                   "tf_update_cw", "tf_update_twrw",
                                                   "tf_update_dp" };
  for (guint i = 0; i < WL_SHARD_N; i++)
    if (fwd[i] > 0)
      k_mem (k, bwd ? (r->tf_update ? tf_what[i] : bwd_what[i]) : fwd_what[i],
             bwd ? bw[i] : fwd[i], adds[i]);
}

/* Keras mixed precision's casts around the rank's lookups (amp_casts,
 * gen_dlrm.h): forward, the pooled outputs (global batch x the shard's
 * columns; a data-parallel table's local batch x dim) cast from E to Em
 * before the exchange; backward, the received gradients cast back and
 * the loss scale's unscale of the embedding gradients' values (one row
 * per index: lookups x columns), read and written in E. */
static void
amp_lookups (Em *e, GString *k, gboolean bwd)
{
  const WlGenDlrm *r = e->req;
  guint64 outs = 0, values = 0;
  for (guint i = 0; i < e->l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (e->l->shards, WlDlrmShard, i);
      if (sh->rank != e->me)
        continue;
      const WlDlrmTable *tb = &g_array_index (r->model.tables, WlDlrmTable, sh->table);
      outs += r->global_batch * sh->cols;
      values += (guint64) llround ((double) r->global_batch * tb->pooling * (double) sh->rows
                                   / (double) tb->rows * sh->cols);
    }
  for (guint32 t = 0; t < r->model.tables->len; t++)
    if (e->l->kind[t] == WL_SHARD_DATA_PARALLEL)
      {
        const WlDlrmTable *tb = &g_array_index (r->model.tables, WlDlrmTable, t);
        outs += e->b * tb->dim;
        values += (guint64) llround ((double) e->b * tb->pooling * tb->dim);
      }
  if (outs == 0)
    return;
  k_mem (k, bwd ? "cast_emb_grad" : "cast_emb", outs * (e->E + e->Em), 0);
  if (bwd)
    k_mem (k, "unscale_emb", values * 2 * e->E, values);
}

/* The collective each tag's sends and receives form, as their `exchange`
 * attribute and node name say it (node.h: a wait on such a receive is
 * communication, not the pipeline's bubble). */
static const char *
exchange_name (gint32 tag)
{
  switch (tag)
    {
    case 1: return "all-to-all (sparse indices, next batch)";
    case 2: return "all-to-all (pooled embeddings, forward)";
    case 3: return "all-to-all (pooled embeddings, forward, stage 2)";
    case 4: return "all-to-all (embedding gradients, backward, stage 2)";
    default: return "all-to-all (embedding gradients, backward)";
    }
}

/* Sends of MATRIX's row ME (TRANSPOSE: its column) with TAG after DEPS,
 * in the order me + 1, me + 2, ... (mod N), and the receives of the other
 * way, posted at once; the receives' ids are appended to RECVS. */
static void
exchange (Em *e, const guint64 *matrix, gboolean transpose, gint32 tag, int stream,
          const GArray *deps, GArray *recvs)
{
  guint32 N = e->l->ranks;
  const char *name = exchange_name (tag);
  for (guint32 i = 1; i < N; i++)
    {
      guint32 d = (e->me + i) % N;
      guint64 bytes = transpose ? matrix[d * N + e->me] : matrix[e->me * N + d];
      if (bytes == 0)
        continue;
      ChakraProtoMsg__AttributeProto a[6];
      wl_chakra_attr_set_int32 (&a[0], "comm_src", (gint32) e->me);
      wl_chakra_attr_set_int32 (&a[1], "comm_dst", (gint32) d);
      wl_chakra_attr_set_int32 (&a[2], "comm_tag", tag);
      wl_chakra_attr_set_int64 (&a[3], "comm_size", (gint64) bytes);
      wl_chakra_attr_set_int32 (&a[4], "stream", stream);
      wl_chakra_attr_set_string (&a[5], "exchange", name);
      node (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, a, 6, deps, 0);
    }
  for (guint32 i = 1; i < N; i++)
    {
      guint32 s = (e->me + N - i) % N;
      guint64 bytes = transpose ? matrix[e->me * N + s] : matrix[s * N + e->me];
      if (bytes == 0)
        continue;
      ChakraProtoMsg__AttributeProto a[6];
      wl_chakra_attr_set_int32 (&a[0], "comm_src", (gint32) s);
      wl_chakra_attr_set_int32 (&a[1], "comm_dst", (gint32) e->me);
      wl_chakra_attr_set_int32 (&a[2], "comm_tag", tag);
      wl_chakra_attr_set_int64 (&a[3], "comm_size", (gint64) bytes);
      wl_chakra_attr_set_int32 (&a[4], "stream", stream);
      wl_chakra_attr_set_string (&a[5], "exchange", name);
      guint64 id = node (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, a, 6, NULL, 0);
      g_array_append_val (recvs, id);
    }
}

/* An all-reduce of BYTES over all ranks (no group), after DEPS. */
static guint64
all_reduce (Em *e, const char *name, guint64 bytes, const GArray *deps)
{
  ChakraProtoMsg__AttributeProto a[3];
  wl_chakra_attr_set_int64 (&a[0], "comm_type", wl_chakra_comm_type_of (SYS_COLL_ALL_REDUCE));
  wl_chakra_attr_set_int64 (&a[1], "comm_size", (gint64) MAX (bytes, 1));
  wl_chakra_attr_set_int32 (&a[2], "stream", STREAM_DP);
  return node (e, name, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, a, 3, deps, 0);
}

/* The bottom MLP's parameters. */
static guint64
bottom_params (const WlDlrmModel *m)
{
  guint64 bottom = 0, in = m->bottom[0];
  for (guint32 i = 1; i < m->n_bottom; i++)
    {
      bottom += in * m->bottom[i] + m->bottom[i];
      in = m->bottom[i];
    }
  return bottom;
}

/* The parameters whose gradients ar_top reduces: the top MLP's and the
 * interaction's. */
static guint64
top_params (const WlDlrmModel *m)
{
  return wl_dlrm_mlp_params (m) - bottom_params (m);
}

/* Keras mixed precision's cast of P fp32 weights to Em (forward, "cast_
 * weights") or of their Em gradients back (backward, "cast_wgrad"):
 * P (E + Em) bytes, with amp_casts only. */
static void
amp_weights (Em *e, GString *k, const char *what, guint64 P)
{
  if (e->amp)
    k_mem (k, what, P * (e->E + e->Em), 0);
}

/* Memory-bound optimizer kernel of P parameters: bytes and FLOPs.  SGD
 * reads the weight and gradient and writes the weight; Adagrad also reads
 * and writes its fp32 state (5 FLOPs a parameter); Adam (Kingma and Ba,
 * ICLR 2015, Algorithm 1) its two fp32 moments (about 12 FLOPs: the two
 * moment updates, the square root and the scaled step). */
static void
opt_kernel (Em *e, GString *k, const char *what, guint64 P)
{
  WlEmbOptimizer o = e->req->emb_opt;
  const char *name = o == WL_EMB_OPT_SGD ? "sgd" : o == WL_EMB_OPT_ADAM ? "adam" : "adagrad";
  guint64 state = o == WL_EMB_OPT_SGD ? 0 : o == WL_EMB_OPT_ADAM ? 16 : 8;
  guint64 flops = o == WL_EMB_OPT_SGD ? 2 : o == WL_EMB_OPT_ADAM ? 12 : 5;
  g_autofree char *full = g_strdup_printf ("%s%s", name, what);
  k_mem (k, full, P * (3 * (guint64) e->E + state), flops * P);
}

static void
optimizer (Em *e, GString *k)
{
  /* The loss scale's unscale of the MLP gradients (amp_casts), read and
   * written in E, before the step. */
  if (e->amp)
    k_mem (k, "unscale", e->l->mlp_params * 2 * e->E, e->l->mlp_params);
  opt_kernel (e, k, "", e->l->mlp_params);
  for (guint32 t = 0; t < e->req->model.tables->len; t++)
    if (e->l->kind[t] == WL_SHARD_DATA_PARALLEL)
      {
        const WlDlrmTable *tb = &g_array_index (e->req->model.tables, WlDlrmTable, t);
        opt_kernel (e, k, "_dp_table", tb->rows * tb->dim);
      }
}

static void
emit_rank (Em *e)
{
  const WlDlrmModel *m = &e->req->model;
  const WlDlrmLayout *l = e->l;
  g_autoptr (GArray) none = ids_new ();
  g_autoptr (GArray) recvs_in = ids_new ();
  if (!e->req->pipeline_none)
    exchange (e, l->input, FALSE, 1, STREAM_INPUT, none, recvs_in);
  g_autoptr (GString) k = g_string_new (NULL);
  g_autoptr (GString) shards = g_string_new (NULL);
  lookups (e, k, shards, FALSE);
  if (e->amp)
    amp_lookups (e, k, FALSE);
  if (k->len == 0)
    k_mem (k, "tbe_fwd_none", 1, 0);
  guint64 emb_fwd = comp (e, "emb_fwd", k, shards->str, none);
  g_autoptr (GArray) after_emb = ids_of (1, &emb_fwd);
  g_string_truncate (k, 0);
  amp_weights (e, k, "cast_weights", bottom_params (m));
  mlp_fwd (e, k, m->bottom[0], m->bottom + 1, m->n_bottom - 1, TRUE);
  guint64 bottom_fwd = comp (e, "bottom_fwd", k, NULL, after_emb);
  g_autoptr (GArray) recvs = ids_new ();
  exchange (e, l->fwd, FALSE, 2, STREAM_A2A, after_emb, recvs);
  g_autoptr (GArray) stage2_deps = ids_of (recvs->len, (const guint64 *) recvs->data);
  g_array_append_val (stage2_deps, emb_fwd);
  exchange (e, l->fwd2, FALSE, 3, STREAM_A2A, stage2_deps, recvs);
  g_array_append_val (recvs, bottom_fwd);
  g_string_truncate (k, 0);
  interaction (e, k, FALSE);
  guint64 id = comp (e, "inter_fwd", k, NULL, recvs);
  g_string_truncate (k, 0);
  amp_weights (e, k, "cast_weights", top_params (m));
  mlp_fwd (e, k, wl_dlrm_interaction_out (m), m->top, m->n_top, FALSE);
  k_mem (k, "bce_loss", 3 * e->b * 4, 4 * e->b);
  g_autoptr (GArray) dep = ids_of (1, &id);
  id = comp (e, "top_fwd", k, NULL, dep);
  g_string_truncate (k, 0);
  mlp_bwd (e, k, wl_dlrm_interaction_out (m), m->top, m->n_top, TRUE);
  amp_weights (e, k, "cast_wgrad", top_params (m));
  g_array_index (dep, guint64, 0) = id;
  id = comp (e, "top_bwd", k, NULL, dep);
  g_string_truncate (k, 0);
  interaction (e, k, TRUE);
  g_array_index (dep, guint64, 0) = id;
  guint64 inter_bwd = comp (e, "inter_bwd", k, NULL, dep);
  g_array_index (dep, guint64, 0) = inter_bwd;
  guint64 ar_top = all_reduce (e, "ar_top", top_params (m) * e->E, dep);
  g_autoptr (GArray) bwd_recvs = ids_new ();
  exchange (e, l->fwd2, TRUE, 4, STREAM_A2A, dep, bwd_recvs);
  g_autoptr (GArray) stage1_deps = ids_of (bwd_recvs->len, (const guint64 *) bwd_recvs->data);
  g_array_append_val (stage1_deps, inter_bwd);
  exchange (e, l->fwd, TRUE, 5, STREAM_A2A, stage1_deps, bwd_recvs);
  g_string_truncate (k, 0);
  mlp_bwd (e, k, m->bottom[0], m->bottom + 1, m->n_bottom - 1, FALSE);
  amp_weights (e, k, "cast_wgrad", bottom_params (m));
  guint64 bottom_bwd = comp (e, "bottom_bwd", k, NULL, dep);
  guint64 pair[2] = { bottom_bwd, ar_top };
  g_autoptr (GArray) ar_deps = ids_of (2, pair);
  guint64 ar_bottom = all_reduce (e, "ar_bottom", (l->mlp_params - top_params (m)) * e->E,
                                  ar_deps);
  g_array_append_val (bwd_recvs, bottom_bwd);
  g_string_truncate (k, 0);
  g_string_truncate (shards, 0);
  if (e->amp)
    amp_lookups (e, k, TRUE);
  lookups (e, k, shards, TRUE);
  if (k->len == 0)
    k_mem (k, "tbe_bwd_none", 1, 0);
  guint64 emb_bwd = comp (e, "emb_bwd", k, NULL, bwd_recvs);
  guint64 last[3] = { ar_bottom, emb_bwd, 0 };
  g_autoptr (GArray) opt_deps = ids_of (2, last);
  if (l->dp_table_B > 0)
    {
      guint64 ar_dp = all_reduce (e, "ar_dp_tables", l->dp_table_B, opt_deps);
      g_array_append_val (opt_deps, ar_dp);
    }
  g_string_truncate (k, 0);
  optimizer (e, k);
  comp (e, "optimizer", k, NULL, opt_deps);
}

char *
wl_dlrm_dense_kernels (const WlGenDlrm *req)
{
  const WlDlrmModel *m = &req->model;
  WlDtype mlp = req->mlp_dtype_set ? req->mlp_dtype : req->dtype;
  Em e = { .req = req, .dev = wl_kernel_device (device_of (req)), .ok = TRUE,
           .E = wl_dlrm_elem_bytes (req->dtype), .Em = wl_dlrm_elem_bytes (mlp),
           .b = req->global_batch / req->ranks, .dt = wl_dtype_name (mlp) };
  GString *k = g_string_new (NULL);
  /* As emit_rank makes them: bottom_fwd, inter_fwd, top_fwd, top_bwd,
   * inter_bwd, bottom_bwd. */
  mlp_fwd (&e, k, m->bottom[0], m->bottom + 1, m->n_bottom - 1, TRUE);
  interaction (&e, k, FALSE);
  mlp_fwd (&e, k, wl_dlrm_interaction_out (m), m->top, m->n_top, FALSE);
  k_mem (k, "bce_loss", 3 * e.b * 4, 4 * e.b);
  mlp_bwd (&e, k, wl_dlrm_interaction_out (m), m->top, m->n_top, TRUE);
  interaction (&e, k, TRUE);
  mlp_bwd (&e, k, m->bottom[0], m->bottom + 1, m->n_bottom - 1, FALSE);
  return g_string_free (k, FALSE);
}

/* Emits rank RANK's graph into W: the one place a rank's emitter is set
 * up, for the files (wl_gen_dlrm) and the in-memory graphs
 * (wl_gen_dlrm_graphs) alike. */
static gboolean
emit_rank_to (WlChakraWriter *w, const WlGenDlrm *req, const WlDlrmLayout *l, guint32 rank,
              GError **error)
{
  WlDtype mlp = req->mlp_dtype_set ? req->mlp_dtype : req->dtype;
  Em e = { .req = req, .l = l, .dev = wl_kernel_device (device_of (req)), .w = w,
           .error = error, .ok = TRUE, .me = rank, .E = wl_dlrm_elem_bytes (req->dtype),
           .Em = wl_dlrm_elem_bytes (mlp), .amp = req->amp_casts && req->mlp_dtype_set,
           .b = req->global_batch / req->ranks, .dt = wl_dtype_name (mlp) };
  emit_rank (&e);
  return e.ok;
}

static gboolean
write_rank (const char *prefix, const WlGenDlrm *req, const WlDlrmLayout *l, guint32 rank,
            GError **error)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  WlTraceFacts facts = { .peak_memory_B = l->total_B[rank] };
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_full (path, "0.0.4", &facts, error);
  if (w == NULL)
    return FALSE;
  return emit_rank_to (w, req, l, rank, error) && wl_chakra_writer_close (w, error);
}

gboolean
wl_gen_dlrm (const char *prefix, const WlGenDlrm *req, GError **error)
{
  g_return_val_if_fail (prefix != NULL && req != NULL, FALSE);
  if (wl_kernel_device (device_of (req)) == NULL)
    {
      g_autofree char *names = wl_kernel_device_names ();
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "unknown device '%s' (one of %s)",
                   device_of (req), names);
      return FALSE;
    }
  g_autoptr (WlDlrmLayout) l = wl_dlrm_layout_new (req, error);
  if (l == NULL)
    return FALSE;
  for (guint32 r = 0; r < req->ranks; r++)
    if (!write_rank (prefix, req, l, r, error))
      return FALSE;
  return TRUE;
}

GPtrArray *
wl_gen_dlrm_graphs (const char *prefix, const WlGenDlrm *req, GError **error)
{
  g_return_val_if_fail (prefix != NULL && req != NULL, NULL);
  if (wl_kernel_device (device_of (req)) == NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "unknown device '%s'", device_of (req));
      return NULL;
    }
  g_autoptr (WlDlrmLayout) l = wl_dlrm_layout_new (req, error);
  if (l == NULL)
    return NULL;
  g_autoptr (GPtrArray) out = g_ptr_array_new_full (req->ranks, (GDestroyNotify) wl_graph_unref);
  for (guint32 rank = 0; rank < req->ranks; rank++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
      WlTraceFacts facts = { .peak_memory_B = l->total_B[rank] };
      g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_memory (path, "0.0.4", &facts);
      if (!emit_rank_to (w, req, l, rank, error))
        return NULL;
      g_autoptr (GBytes) bytes = wl_chakra_writer_steal_bytes (w);
      gsize n = 0;
      const guint8 *data = g_bytes_get_data (bytes, &n);
      WlGraphLoad load = { .path = path, .limit = G_MAXUINT64, .bytes = data, .n_bytes = n };
      WlGraph *g = wl_graph_load_request (&load, error);
      if (g == NULL)
        return NULL;
      g_ptr_array_add (out, g);
    }
  return g_steal_pointer (&out);
}
