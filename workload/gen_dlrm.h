/* gen_dlrm.h: one training iteration of a DLRM (deep learning
 * recommendation model) as Chakra traces, one per rank, with its embedding
 * tables sharded as TorchRec shards them, and the lookup cost model.
 *
 * What it models (units: bytes, FLOPs, samples; E the element size of the
 * dtype: fp32 4, bf16 / fp16 2):
 * - Model (TorchRec torchrec/models/dlrm.py, DLRM and DLRM_DCN): T
 *   embedding tables (rows R_t, dimension D, pooling factor L_t: indices
 *   per sample, multi-hot), a bottom MLP from the dense features to D, an
 *   interaction (dot: the pairwise dot products of the F = T + 1 vectors
 *   and the bottom output, D + F (F - 1) / 2 features; DCNv2: a low-rank
 *   cross network of `dcn_layers` layers of rank r over N = F D features,
 *   x_{l+1} = x_0 * (W_l (V_l x_l) + b_l) + x_l, with V_l r x N, W_l N x r,
 *   b_l N: 2 N r + N parameters a layer; its output, N features, goes on),
 *   and a top MLP to one logit.  Every MLP layer is a Linear with bias
 *   (out x in + out parameters).
 * - Batch: B samples a step over all ranks (global), b = B / ranks local.
 * - Sharding (TorchRec's types): table-wise (a table on one rank),
 *   row-wise (rows in equal blocks of ceil (R / n) over n ranks),
 *   column-wise (D cut in c equal column shards, c the largest divisor of
 *   D up to the ranks, each placed as a table), table-row-wise (row-wise
 *   over the ranks of one node), data-parallel (on every rank).  Placement
 *   (gen_dlrm_shard.c): table-wise and column-wise shards, largest first
 *   (R x D_shard bytes, ties by table order), each onto the rank holding
 *   the fewest embedding bytes so far (ties: the lowest rank); table-row-
 *   wise tables likewise onto the node holding the fewest.
 * - Communication of one iteration (pairwise bytes, so that uneven
 *   placements are exact; sent as COMM_SEND / COMM_RECV pairs; in the
 *   pooled embeddings' exchange E is the MLPs' type with amp_casts):
 *   forward pooled embeddings: a table-wise or column-wise shard of width
 *   Ds on rank o sends b x Ds x E to every other rank; a row-wise shard
 *   sends its partial pools of each rank's b samples, b x D x E, to every
 *   other rank (a reduce-scatter done directly); table-row-wise: stage 1,
 *   the partial pools to the other ranks of the node, (B / nl) x D x E each
 *   (nl ranks a node), then stage 2, each rank sends the summed pools of
 *   the samples of the same local rank on every other node, b x D x E per
 *   node.  Backward: the same bytes the other way (gradients of the pooled
 *   embeddings; all-gather for row-wise).  Data-parallel tables: an
 *   all-reduce of the whole table gradient, R x D x E, over all ranks.
 *   Input distribution (the next batch's indices, as TrainPipelineSparseDist
 *   prefetches it): each rank sends to each shard's rank the indices of its
 *   b samples that shard looks up, 8 bytes an index (int64) and 4 bytes a
 *   sample (int32 lengths): b (8 L + 4) for a whole table or a column
 *   shard, b (8 L s + 4) for a row shard holding the share s of the rows.
 *   MLP gradients: an all-reduce of their P_mlp x E bytes over all ranks.
 * - Memory per rank: embedding shards (rows x Ds x E), their optimizer
 *   state (exact Adagrad: rows x Ds x 4, FBGEMM's fp32 momentum; row-wise
 *   Adagrad: rows x 4; lazy Adam: rows x Ds x 8, two fp32 moments; SGD:
 *   0), data-parallel tables whole with their gradient (R x D x E) and
 *   state, the MLPs' weights and gradients (P_mlp x E each) and their
 *   Adagrad state (P_mlp x 4; Adam P_mlp x 8).  Activations are not
 *   counted.
 * - Mixed precision (mlp_dtype_set): the MLPs' and interaction's GEMMs and
 *   activations in mlp_dtype; everything else above in dtype (E).
 *
 * Layer: workload.  May include: system, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GEN_DLRM_H
#define ORRERY_WORKLOAD_GEN_DLRM_H

#include <glib.h>

#include "workload/compute.h"

typedef enum
{
  WL_SHARD_TABLE_WISE = 0,
  WL_SHARD_ROW_WISE,
  WL_SHARD_COLUMN_WISE,
  WL_SHARD_TABLE_ROW_WISE,
  WL_SHARD_DATA_PARALLEL,
  WL_SHARD_N
} WlShardKind;

/* The embeddings' optimizer, fused into their backward (FBGEMM). */
typedef enum
{
  WL_EMB_OPT_ADAGRAD = 0,  /* EXACT_ADAGRAD: fp32 state per element */
  WL_EMB_OPT_ROWWISE_ADAGRAD, /* EXACT_ROWWISE_ADAGRAD: one fp32 per row */
  WL_EMB_OPT_SGD,
  WL_EMB_OPT_ADAM /* lazy Adam (TF Addons LazyAdam): two fp32 a parameter */
} WlEmbOptimizer;

typedef struct
{
  guint64 rows;
  guint32 dim;
  double pooling; /* indices per sample (mean), > 0 */
} WlDlrmTable;

#define WL_DLRM_MAX_MLP 16
#define WL_DLRM_MAX_RANKS 1024
#define WL_DLRM_MAX_DCN_LAYERS 16
#define WL_DLRM_MAX_TABLES 4096
/* The smallest pooling factor a tables file may give: one index in a
 * thousand samples (a feature that rare costs less than a node's
 * overhead; below it a table is better dropped). */
#define WL_DLRM_MIN_POOLING 1e-3

typedef struct
{
  const char *name;       /* borrowed; "custom" when made from options */
  GArray *tables;         /* WlDlrmTable; owned (wl_dlrm_model_clear) */
  guint32 bottom[WL_DLRM_MAX_MLP]; /* sizes, the dense features first */
  guint32 n_bottom;       /* >= 2 */
  guint32 top[WL_DLRM_MAX_MLP];    /* the top MLP's layer sizes (its input: the interaction's) */
  guint32 n_top;          /* >= 1 */
  gboolean dcn;           /* DCNv2 interaction, else dot */
  gboolean dot_fused;     /* dot: one fused kernel (NVIDIA DLE's dot_based_interact),
                           * else TorchRec's bmm + tril gather */
  guint32 dcn_layers, dcn_rank;
} WlDlrmModel;

/* One table's sharding in a plan: its kind and, when n_ranks > 0, its
 * ranks (else the placement rule's). */
typedef struct
{
  WlShardKind kind;
  guint32 n_ranks;
  guint32 *ranks; /* owned by the plan array's owner (wl_dlrm_plan_free) */
  guint32 line;   /* its line in the plan file (1-based); 0: none */
} WlDlrmTablePlan;

typedef struct
{
  WlDlrmModel model;
  guint32 ranks;          /* >= 1, <= WL_DLRM_MAX_RANKS */
  guint32 ranks_per_node; /* table-row-wise: ranks of a node (0 = 8) */
  guint64 global_batch;   /* B, a multiple of ranks */
  WlDtype dtype;          /* MLPs and embeddings: fp32, bf16 or fp16 */
  /* When set, the MLPs' compute type (GEMMs, activations, interaction) as
   * automatic mixed precision runs them; weights, gradients, their
   * all-reduce and optimizer stay in dtype (the master copy). */
  gboolean mlp_dtype_set;
  WlDtype mlp_dtype;
  WlEmbOptimizer emb_opt;
  /* FALSE (TorchRec's TrainPipelineSparseDist, the default): the next
   * batch's indices are distributed during the step (the input_dist
   * exchange).  TRUE (--pipeline none, NVIDIA DeepLearningExamples' TF2
   * step): no input distribution: each rank's data loader reads its own
   * tables' indices for the global batch (data_parallel_input=False). */
  gboolean pipeline_none;
  /* The mixed-precision work of Keras "mixed_float16" as DeepLearningExamples'
   * TF2 DLRM runs it (needs mlp_dtype_set; memory-bound kernels by their
   * bytes, E = dtype's bytes, Em = mlp_dtype's, n the elements):
   *   the lookups cast to Em before the exchange (distributed-embeddings'
   *   dist_model_parallel.py: tf.cast (output, self.compute_dtype)), so the
   *   exchange carries Em; n (E + Em) forward, the gradients' cast back
   *   n (Em + E) backward, n = global batch x the rank's shard columns;
   *   the MLP weights cast to Em on each forward (Keras AutoCastVariable)
   *   and their gradients back to fp32, P (E + Em) each way;
   *   the loss scale's unscale of every gradient (LossScaleOptimizer.
   *   get_unscaled_gradients in nn/trainer.py): the MLPs' P x 2E and the
   *   embeddings' gradient values n x 2E.  The loss scale is static
   *   (main.py: LossScaleOptimizer (..., dynamic=False)), so there is no
   *   all-finite check (Keras applies the gradients unconditionally). */
  gboolean amp_casts;
  /* The embeddings' backward and update as TensorFlow runs them (--emb-update
   * tf, NVIDIA DeepLearningExamples' TF2 step) instead of FBGEMM's fused
   * TBE backward: the gather's gradient is an IndexedSlices (one value row
   * per index), which the Keras optimizer applies with its own kernels
   * (gen_dlrm_emit.c, wl_dlrm_lookup_cost).  sgd and adam only. */
  gboolean tf_update;
  /* When set, the pooled embeddings' exchange (and its gradients') element
   * type, written directly by the lookups with no cast kernel: HugeCTR's
   * embedding collection under mixed precision (emb_type fp16, Model::add
   * in HugeCTR/src/pybind/model.cpp) with fp32 tables.  Not with amp_casts. */
  gboolean exchange_dtype_set;
  WlDtype exchange_dtype;
  const char *device;     /* kernel-model device (H100-SXM, ...); NULL: H100-SXM */
  WlShardKind sharding;   /* for every table without a plan line */
  const WlDlrmTablePlan *plan; /* NULL, or one per table (kind < WL_SHARD_N: given) */
  /* The plan's file, for the checks' messages ("PATH:LINE: table 0: ...");
   * NULL: the messages name the table only.  Borrowed. */
  const char *plan_path;
} WlGenDlrm;

/* One shard: rows [row0, row0 + rows) and columns [col0, col0 + cols) of
 * a table on a rank. */
typedef struct
{
  guint32 table, rank;
  guint64 row0, rows;
  guint32 col0, cols;
} WlDlrmShard;

/* The plan resolved: shards, pairwise bytes and memory (gen_dlrm_shard.c). */
typedef struct
{
  guint32 ranks, nl; /* nl: ranks per node */
  WlShardKind *kind; /* per table */
  GArray *shards;    /* WlDlrmShard, data-parallel tables excluded */
  /* N x N pairwise bytes [src * N + dst] of one iteration, forward; the
   * backward sends the same the other way.  fwd: the pooled embeddings
   * (table-row-wise: its stage 1); fwd2: table-row-wise stage 2; input:
   * the indices of the input distribution. */
  guint64 *fwd, *fwd2, *input;
  guint64 dp_table_B; /* the data-parallel tables' gradient, all-reduced */
  guint64 dp_B;       /* on every rank: those tables, their gradient and state */
  guint64 mlp_params;
  /* Per rank: embedding shard bytes, their optimizer state, and the total
   * (with data-parallel tables, MLP weights, gradients and state). */
  guint64 *emb_B, *emb_state_B, *total_B;
} WlDlrmLayout;

/* ---- model */

/* "dlrm-dcnv2-criteo1tb" (case-insensitive) into *OUT (tables owned by
 * OUT), or FALSE.  wl_dlrm_preset_names: "dlrm-dcnv2-criteo1tb". */
gboolean wl_dlrm_preset (const char *name, WlDlrmModel *out);
const char *wl_dlrm_preset_names (void);
void wl_dlrm_model_clear (WlDlrmModel *m);

/* "13-512-256-128" into SIZES (at most WL_DLRM_MAX_MLP, each >= 1), *N.
 * FALSE with ERROR (SIM_ERROR_INPUT) naming OPTION and the text. */
gboolean wl_dlrm_mlp_parse (const char *option, const char *text, guint32 *sizes, guint32 *n,
                            GError **error);

/* A tables CSV: a header line `rows,dim,pooling` (any case, spaces
 * around fields allowed), then one table a line; blank lines and lines
 * starting with '#' skipped.  Appends to TABLES (WlDlrmTable).  FALSE with
 * ERROR "PATH:LINE: ..." on a bad line. */
gboolean wl_dlrm_tables_parse (const char *path, const char *text, GArray *tables,
                               GError **error);

/* A plan file: one line per table, `TABLE,TYPE[,RANKS]`: TABLE its index
 * (0-based, in the tables' order), TYPE table_wise, row_wise, column_wise,
 * table_row_wise or data_parallel, RANKS ranks separated by spaces, a-b
 * for a range (table_wise: one rank; data_parallel: none).  Blank lines
 * and '#' lines skipped.  Returns N_TABLES entries (kind WL_SHARD_N where
 * a table has no line), or NULL with ERROR "PATH:LINE: ..." (an unknown
 * type or table, a table given twice, a rank out of range or twice), or
 * "PATH: no plan lines" when it has none. */
WlDlrmTablePlan *wl_dlrm_plan_parse (const char *path, const char *text, guint32 n_tables,
                                     guint32 ranks, GError **error);
void wl_dlrm_plan_free (WlDlrmTablePlan *plan, guint32 n_tables);

/* "table_wise" (also table-wise), ... -> kind; name of a kind. */
gboolean wl_shard_kind_parse (const char *name, WlShardKind *out);
const char *wl_shard_kind_name (WlShardKind kind);

/* Parameters: the embeddings' (sum R_t D) and the MLPs' with the
 * interaction's (the closed forms above). */
guint64 wl_dlrm_embedding_params (const WlDlrmModel *m);
guint64 wl_dlrm_mlp_params (const WlDlrmModel *m);
/* The interaction's output width: D + F (F - 1) / 2 (dot) or F D (DCN). */
guint32 wl_dlrm_interaction_out (const WlDlrmModel *m);

/* Element bytes of a dtype (fp32 4, bf16 / fp16 2). */
guint32 wl_dlrm_elem_bytes (WlDtype dtype);
/* The bytes of an element of the pooled embeddings' exchange: exchange_dtype
 * when set, the MLPs' compute type with amp_casts (the lookups cast before
 * it), else dtype's. */
guint32 wl_dlrm_exchange_bytes (const WlGenDlrm *req);

/* ---- layout (gen_dlrm_shard.c) */

/* Check REQ (FALSE with ERROR, SIM_ERROR_INPUT: no tables, a zero size,
 * the bottom MLP not ending at D, tables of different dimensions, ranks
 * out of 1 .. WL_DLRM_MAX_RANKS, B not a multiple of ranks, a plan's ranks
 * that do not fit its type, column shards that do not divide D). */
gboolean wl_gen_dlrm_check (const WlGenDlrm *req, GError **error);

/* The layout of REQ (checked first), or NULL with ERROR. */
WlDlrmLayout *wl_dlrm_layout_new (const WlGenDlrm *req, GError **error);
void wl_dlrm_layout_free (WlDlrmLayout *l);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlDlrmLayout, wl_dlrm_layout_free)

/* Bytes RANK sends (SENT) and receives (RECV) in the forward pooled-
 * embedding exchange, both stages, itself excluded (the backward's are
 * the same, swapped). */
void wl_dlrm_layout_a2a (const WlDlrmLayout *l, guint32 rank, guint64 *sent, guint64 *recv);

/* ---- lookup cost model and traces (gen_dlrm_emit.c) */

/* L2 bytes of a kernel-model device (A100 40 MiB, H100 / H200 50 MiB, ...;
 * sources beside the table), 0 when unknown (no cache effect). */
double wl_dlrm_l2_bytes (const char *device);

/* The lookup model of one shard of ROWS x COLS on one rank for N lookups
 * (indices) into it, pooled into OUTPUTS bags.  HBM bytes of the forward:
 * rows read from HBM (the first touch of each distinct row, and repeat
 * touches that miss the L2) x the row's bytes rounded up to 32-byte
 * sectors, + 8 N index bytes + 4 OUTPUTS lengths + OUTPUTS x COLS x E
 * written.  Backward (with the fused optimizer): the pooled gradient read
 * (OUTPUTS x COLS x E), the indices read and sorted (16 N), and per
 * distinct row touched a read and a write of the row and of its optimizer
 * state.  With tf_update, TensorFlow's kernels instead (gen_dlrm_emit.c,
 * "TensorFlow's sparse update"; r = the row's sector bytes, v = COLS x E,
 * U the distinct rows): the pooled gradient broadcast to one value row an
 * index when N > OUTPUTS ((OUTPUTS + N) v); SGD: the values scaled by the
 * learning rate, 2 N v unless amp_casts (XLA Lite fuses it with the loss
 * scale's unscale), and ResourceScatterAdd, N v + 8 N + 2 U r; lazy Adam:
 * Unique (16 N), UnsortedSegmentSum (zero-fill U v, N v + 4 N read, 2 U r),
 * two ResourceGathers (U r + U v each), the update's elementwise math as
 * one fused kernel (6 U v), two ResourceScatterUpdates (U v + U r each)
 * and ResourceScatterSub (U v + 2 U r). */
typedef struct
{
  double distinct_rows; /* U = R (1 - (1 - 1/R)^N): uniform indices */
  double hit;           /* L2 hit rate of a repeat touch: min (1, L2 / shard bytes) */
  guint64 fwd_B, bwd_B;
} WlLookupCost;

WlLookupCost wl_dlrm_lookup_cost (const WlGenDlrm *req, guint64 rows, guint32 cols, double n,
                                  guint64 outputs);

/* The kernels (kernels.h's grammar, ';'-separated) of a rank's compute
 * nodes whose work no sharding plan changes: the bottom MLP, the
 * interaction, the top MLP and the loss, forward and backward (bottom_fwd,
 * inter_fwd, top_fwd, top_bwd, inter_bwd, bottom_bwd), as the traces have
 * them; a new string.  REQ must have passed wl_gen_dlrm_check. */
char *wl_dlrm_dense_kernels (const WlGenDlrm *req);

/* Write PREFIX.0.et .. PREFIX.(ranks - 1).et.  FALSE with ERROR on a bad
 * request or a write error. */
gboolean wl_gen_dlrm (const char *prefix, const WlGenDlrm *req, GError **error);

/* Every rank's graph of the iteration wl_gen_dlrm would write (WlGraph*,
 * owned by the array, in rank order, named PREFIX.<rank>.et), made in
 * memory: each rank's trace is encoded and read as its file would be.
 * NULL with ERROR as wl_gen_dlrm fails. */
GPtrArray *wl_gen_dlrm_graphs (const char *prefix, const WlGenDlrm *req, GError **error);

#endif /* ORRERY_WORKLOAD_GEN_DLRM_H */
