/* gen_dlrm_shard.c: the DLRM generator's sharding: the request's checks,
 * the placement of every table's shards, the pairwise bytes of an
 * iteration's exchanges and the memory per rank (see gen_dlrm.h). */
#include "workload/gen_dlrm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "workload/wl_error.h"

static gboolean
bad (GError **error, const char *msg)
{
  g_set_error_literal (error, WL_ERROR, SIM_ERROR_INPUT, msg);
  return FALSE;
}

static guint32
nl_of (const WlGenDlrm *r)
{
  return r->ranks_per_node > 0 ? r->ranks_per_node : MIN (8u, r->ranks);
}

static WlShardKind
kind_of (const WlGenDlrm *r, guint32 t)
{
  return r->plan != NULL && r->plan[t].kind < WL_SHARD_N ? r->plan[t].kind : r->sharding;
}

static const WlDlrmTable *
table_at (const WlGenDlrm *r, guint32 t)
{
  return &g_array_index (r->model.tables, WlDlrmTable, t);
}

/* The largest divisor of D up to N: the default column shards. */
static guint32
column_shards (guint32 D, guint32 n)
{
  for (guint32 c = MIN (D, n); c > 1; c--)
    if (D % c == 0)
      return c;
  return 1;
}

static gboolean
check_model (const WlGenDlrm *r, GError **error)
{
  const WlDlrmModel *m = &r->model;
  if (m->tables == NULL || m->tables->len == 0)
    return bad (error, "the model has no embedding tables");
  if (m->tables->len > WL_DLRM_MAX_TABLES)
    return bad (error, "more than 4096 embedding tables");
  guint32 D = table_at (r, 0)->dim;
  double bytes = 0;
  for (guint32 t = 0; t < m->tables->len; t++)
    {
      const WlDlrmTable *tb = table_at (r, t);
      if (tb->dim != D)
        return bad (error, "every table must have the same dimension (the interaction "
                           "stacks them)");
      if (tb->rows == 0 || !(tb->pooling > 0))
        return bad (error, "every table needs rows and a pooling factor above 0");
      bytes += (double) tb->rows * D * 8;
    }
  if (bytes >= 0x1p60)
    return bad (error, "the tables pass 2^60 bytes");
  if (m->n_bottom < 2 || m->n_top < 1)
    return bad (error, "the bottom MLP needs the dense features and a layer, the top MLP a "
                       "layer");
  if (m->bottom[m->n_bottom - 1] != D)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "the bottom MLP ends at %u but the tables' dimension is %u (they must "
                   "match: the interaction stacks them)", m->bottom[m->n_bottom - 1], D);
      return FALSE;
    }
  if (m->dcn && (m->dcn_layers == 0 || m->dcn_rank == 0))
    return bad (error, "the DCN interaction needs layers and a rank above 0");
  return TRUE;
}

/* "PATH:LINE: " of plan entry P when the request names its file, else "". */
static char *
plan_where (const WlGenDlrm *r, const WlDlrmTablePlan *p)
{
  if (r->plan_path == NULL || p->line == 0)
    return g_strdup ("");
  return g_strdup_printf ("%s:%u: ", r->plan_path, p->line);
}

/* A table's ranks in a plan, against its type. */
static gboolean
check_plan_ranks (const WlGenDlrm *r, guint32 t, GError **error)
{
  const WlDlrmTablePlan *p = r->plan != NULL ? &r->plan[t] : NULL;
  if (p == NULL || p->kind >= WL_SHARD_N || p->n_ranks == 0)
    return TRUE;
  g_autofree char *at = plan_where (r, p);
  for (guint32 i = 0; i < p->n_ranks; i++)
    if (p->ranks[i] >= r->ranks)
      {
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%stable %u: rank %u is out of range "
                     "(0 .. %u)", at, t, p->ranks[i], r->ranks - 1);
        return FALSE;
      }
  guint32 D = table_at (r, t)->dim, nl = nl_of (r);
  if (p->kind == WL_SHARD_COLUMN_WISE && D % p->n_ranks != 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%stable %u: %u column shards do not "
                   "divide its dimension %u", at, t, p->n_ranks, D);
      return FALSE;
    }
  for (guint32 i = 1; p->kind == WL_SHARD_TABLE_ROW_WISE && i < p->n_ranks; i++)
    if (p->ranks[i] / nl != p->ranks[0] / nl)
      {
        g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%stable %u: table_row_wise ranks %u and "
                     "%u must be on one node (%u ranks a node)", at, t, p->ranks[0],
                     p->ranks[i], nl);
        return FALSE;
      }
  return TRUE;
}

/* The most bytes or FLOPs one iteration may come to: the traces' num_ops
 * is a signed 64-bit count and the generator sums bytes in unsigned 64-bit
 * ones, which past 2^63 would wrap into a silent wrong figure. */
#define SIZE_LIMIT 0x1p62

/* Bounds, in doubles, of an iteration's work, refused at SIZE_LIMIT.
 * Lookups: each of a table's B x pooling indices reads and writes a row
 * and its optimizer state (at most 8 bytes a column), in 32-byte sectors,
 * on at most min (D, N) column shards: 256 bytes a column and 256 a lookup
 * bound it; each of at most N shards pools B bags of D elements (4 D + 8
 * bytes a bag).  That bound also holds every exchange's sum: a shard's
 * indices are 8 bytes a lookup and a pooled bag at most 4 D bytes to each
 * rank.  Dense: forward and backward are 6 FLOPs a parameter and sample,
 * the dot interaction's batched GEMM 6 F^2 D a sample, and each
 * memory-bound kernel moves fewer than 16 bytes a FLOP of those. */
static gboolean
check_size (const WlGenDlrm *r, GError **error)
{
  const WlDlrmModel *m = &r->model;
  double B = (double) r->global_batch, N = r->ranks, lookups = 0;
  guint32 D = table_at (r, 0)->dim, F = m->tables->len + 1;
  for (guint32 t = 0; t < m->tables->len; t++)
    lookups += B * (table_at (r, t)->pooling * (256.0 * D + 256.0) + N * (4.0 * D + 8.0));
  if (lookups >= SIZE_LIMIT)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "one iteration's embedding lookups and all-to-alls could pass 2^62 bytes "
                   "(%.3g: the global batch %" G_GUINT64_FORMAT " x each table's pooling x "
                   "its rows' bytes, summed): give a smaller batch, pooling or tables",
                   lookups, r->global_batch);
      return FALSE;
    }
  double P = (double) wl_dlrm_mlp_params (m);
  double dense = 16.0 * B * (P + ((double) F * F + F) * D);
  if (dense >= SIZE_LIMIT)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "one iteration's MLPs and interaction could pass 2^62 FLOPs (%.3g: the "
                   "global batch %" G_GUINT64_FORMAT " x their %.0f parameters x 16): give a "
                   "smaller batch or MLPs", dense, r->global_batch, P);
      return FALSE;
    }
  return TRUE;
}

gboolean
wl_gen_dlrm_check (const WlGenDlrm *r, GError **error)
{
  g_return_val_if_fail (r != NULL, FALSE);
  if (!check_model (r, error))
    return FALSE;
  if (r->ranks == 0 || r->ranks > WL_DLRM_MAX_RANKS)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "ranks must be 1 .. %d", WL_DLRM_MAX_RANKS);
      return FALSE;
    }
  if (r->global_batch == 0 || r->global_batch % r->ranks != 0 || r->global_batch > G_MAXINT32)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "the global batch (%" G_GUINT64_FORMAT " samples) must be a positive "
                   "multiple of the ranks (%u), at most 2147483647", r->global_batch, r->ranks);
      return FALSE;
    }
  if (!check_size (r, error))
    return FALSE;
  if (r->dtype != WL_DTYPE_FP32 && r->dtype != WL_DTYPE_BF16 && r->dtype != WL_DTYPE_FP16)
    return bad (error, "the dtype must be fp32, bf16 or fp16");
  if (r->mlp_dtype_set && r->mlp_dtype != WL_DTYPE_FP32 && r->mlp_dtype != WL_DTYPE_BF16
      && r->mlp_dtype != WL_DTYPE_FP16 && r->mlp_dtype != WL_DTYPE_TF32)
    return bad (error, "the MLPs' dtype must be fp32, tf32, bf16 or fp16");
  if (r->mlp_dtype_set && r->mlp_dtype == WL_DTYPE_TF32 && r->dtype != WL_DTYPE_FP32)
    return bad (error, "the MLPs' dtype tf32 needs the dtype fp32");
  if (r->sharding >= WL_SHARD_N)
    return bad (error, "unknown sharding");
  gboolean twrw = FALSE;
  for (guint32 t = 0; t < r->model.tables->len; t++)
    {
      twrw = twrw || kind_of (r, t) == WL_SHARD_TABLE_ROW_WISE;
      if (!check_plan_ranks (r, t, error))
        return FALSE;
    }
  if (twrw && r->ranks % nl_of (r) != 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "table_row_wise needs the ranks (%u) to be "
                   "a multiple of the ranks a node (%u)", r->ranks, nl_of (r));
      return FALSE;
    }
  return TRUE;
}

/* ---- placement */

typedef struct
{
  const WlGenDlrm *req;
  WlDlrmLayout *l;
  guint32 E;
  guint32 Ex; /* an exchanged element's bytes (wl_dlrm_exchange_bytes) */
  guint64 b, B; /* local and global batch */
} Build;

static void
add_shard (Build *s, guint32 t, guint32 rank, guint64 row0, guint64 rows, guint32 col0,
           guint32 cols)
{
  if (rows == 0)
    return;
  WlDlrmShard sh = { t, rank, row0, rows, col0, cols };
  g_array_append_val (s->l->shards, sh);
  s->l->emb_B[rank] += rows * cols * s->E;
}

/* ROWS of table T in blocks of ceil (R / n) over the N ranks RANKS. */
static void
add_rows (Build *s, guint32 t, const guint32 *ranks, guint32 n)
{
  const WlDlrmTable *tb = table_at (s->req, t);
  guint64 blk = (tb->rows + n - 1) / n;
  for (guint32 i = 0; i < n; i++)
    {
      guint64 row0 = MIN (tb->rows, i * blk);
      add_shard (s, t, ranks[i], row0, MIN (tb->rows - row0, blk), 0, tb->dim);
    }
}

/* A table-wise or column-wise shard waiting for its rank. */
typedef struct
{
  guint32 table, col0, cols;
  guint64 bytes;
} Item;

static int
item_cmp (const void *pa, const void *pb)
{
  const Item *a = pa, *b = pb;
  if (a->bytes != b->bytes)
    return a->bytes > b->bytes ? -1 : 1;
  if (a->table != b->table)
    return a->table < b->table ? -1 : 1;
  return a->col0 < b->col0 ? -1 : a->col0 > b->col0;
}

/* The least-loaded of N groups of SIZE consecutive ranks (ties: the first). */
static guint32
least_loaded (const Build *s, guint32 n, guint32 size)
{
  guint32 best = 0;
  guint64 best_load = G_MAXUINT64;
  for (guint32 g = 0; g < n; g++)
    {
      guint64 load = 0;
      for (guint32 i = 0; i < size; i++)
        load += s->l->emb_B[g * size + i];
      if (load < best_load)
        {
          best = g;
          best_load = load;
        }
    }
  return best;
}

static void
all_ranks (guint32 *out, guint32 n, guint32 first)
{
  for (guint32 i = 0; i < n; i++)
    out[i] = first + i;
}

/* Shards with their ranks given or fixed by their type (row-wise on all
 * ranks), then table-row-wise tables onto the least-loaded node, largest
 * first, then table-wise and column-wise shards onto the least-loaded
 * rank, largest first. */
static void
place (Build *s)
{
  const WlGenDlrm *r = s->req;
  guint32 T = r->model.tables->len, N = r->ranks, nl = nl_of (r);
  g_autofree guint32 *every = g_new (guint32, N);
  all_ranks (every, N, 0);
  g_autoptr (GArray) items = g_array_new (FALSE, FALSE, sizeof (Item));
  g_autoptr (GArray) twrw = g_array_new (FALSE, FALSE, sizeof (Item));
  for (guint32 t = 0; t < T; t++)
    {
      const WlDlrmTable *tb = table_at (r, t);
      const WlDlrmTablePlan *p = r->plan != NULL && r->plan[t].kind < WL_SHARD_N ? &r->plan[t]
                                                                               : NULL;
      guint32 n = p != NULL ? p->n_ranks : 0;
      WlShardKind k = kind_of (r, t);
      s->l->kind[t] = k;
      if (k == WL_SHARD_DATA_PARALLEL)
        s->l->dp_table_B += tb->rows * tb->dim * s->E;
      else if (k == WL_SHARD_ROW_WISE)
        add_rows (s, t, n > 0 ? p->ranks : every, n > 0 ? n : N);
      else if (k == WL_SHARD_TABLE_ROW_WISE && n > 0)
        add_rows (s, t, p->ranks, n);
      else if (k == WL_SHARD_TABLE_ROW_WISE)
        {
          Item it = { t, 0, tb->dim, tb->rows * tb->dim * s->E };
          g_array_append_val (twrw, it);
        }
      else if (n > 0) /* table-wise on its rank, or column shards on theirs */
        for (guint32 i = 0; i < n; i++)
          add_shard (s, t, p->ranks[i], 0, tb->rows, i * (tb->dim / n), tb->dim / n);
      else
        {
          guint32 c = k == WL_SHARD_COLUMN_WISE ? column_shards (tb->dim, N) : 1;
          for (guint32 i = 0; i < c; i++)
            {
              Item it = { t, i * (tb->dim / c), tb->dim / c, tb->rows * (tb->dim / c) * s->E };
              g_array_append_val (items, it);
            }
        }
    }
  g_array_sort (twrw, item_cmp);
  g_autofree guint32 *node = g_new (guint32, nl);
  for (guint i = 0; i < twrw->len; i++)
    {
      const Item *it = &g_array_index (twrw, Item, i);
      all_ranks (node, nl, least_loaded (s, N / nl, nl) * nl);
      add_rows (s, it->table, node, nl);
    }
  g_array_sort (items, item_cmp);
  for (guint i = 0; i < items->len; i++)
    {
      const Item *it = &g_array_index (items, Item, i);
      add_shard (s, it->table, least_loaded (s, N, 1), 0, table_at (r, it->table)->rows,
                 it->col0, it->cols);
    }
}

/* ---- exchanges */

static guint64
index_bytes (guint64 b, double pooling, double share)
{
  return (guint64) llround ((double) b * 8.0 * pooling * share) + 4 * b;
}

/* Stage 2 of table-row-wise table T on node H: every rank of the node
 * sends the pools of the same local rank on each other node. */
static void
twrw_stage2 (Build *s, guint32 h)
{
  WlDlrmLayout *l = s->l;
  guint32 N = l->ranks, nl = l->nl;
  guint64 pool = s->b * table_at (s->req, 0)->dim * s->Ex;
  for (guint32 j = 0; j < nl; j++)
    for (guint32 h2 = 0; h2 < N / nl; h2++)
      if (h2 != h)
        l->fwd2[(h * nl + j) * N + h2 * nl + j] += pool;
}

static void
exchanges (Build *s)
{
  WlDlrmLayout *l = s->l;
  guint32 N = l->ranks, nl = l->nl, D = table_at (s->req, 0)->dim;
  g_autofree gboolean *staged = g_new0 (gboolean, s->req->model.tables->len);
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (l->shards, WlDlrmShard, i);
      const WlDlrmTable *tb = table_at (s->req, sh->table);
      WlShardKind k = l->kind[sh->table];
      guint32 o = sh->rank;
      double share = (double) sh->rows / (double) tb->rows;
      for (guint32 src = 0; src < N; src++)
        if (src != o)
          l->input[src * N + o] += index_bytes (s->b, tb->pooling, share);
      if (k == WL_SHARD_TABLE_ROW_WISE)
        {
          guint32 h = o / nl;
          for (guint32 d = h * nl; d < (h + 1) * nl; d++)
            if (d != o)
              l->fwd[o * N + d] += s->B / nl * D * s->Ex;
          if (!staged[sh->table])
            twrw_stage2 (s, h);
          staged[sh->table] = TRUE;
          continue;
        }
      guint64 pool = s->b * (k == WL_SHARD_ROW_WISE ? D : sh->cols) * s->Ex;
      for (guint32 d = 0; d < N; d++)
        if (d != o)
          l->fwd[o * N + d] += pool;
    }
}

/* Memory per rank (gen_dlrm.h). */
static void
memory (Build *s)
{
  WlDlrmLayout *l = s->l;
  const WlGenDlrm *r = s->req;
  /* fp32 state bytes a parameter (per element) or a row (row-wise). */
  guint64 el = r->emb_opt == WL_EMB_OPT_ADAGRAD ? 4 : r->emb_opt == WL_EMB_OPT_ADAM ? 8 : 0;
  guint64 row = r->emb_opt == WL_EMB_OPT_ROWWISE_ADAGRAD ? 4 : 0;
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (l->shards, WlDlrmShard, i);
      l->emb_state_B[sh->rank] += sh->rows * sh->cols * el + sh->rows * row;
    }
  guint64 dp_state = 0;
  for (guint32 t = 0; t < r->model.tables->len; t++)
    if (l->kind[t] == WL_SHARD_DATA_PARALLEL)
      {
        const WlDlrmTable *tb = table_at (r, t);
        dp_state += tb->rows * tb->dim * el + tb->rows * row;
      }
  /* The MLPs' state: Adagrad one fp32 a parameter, Adam two. */
  guint64 mlp = l->mlp_params * (2 * s->E + (r->emb_opt == WL_EMB_OPT_SGD    ? 0
                                             : r->emb_opt == WL_EMB_OPT_ADAM ? 8
                                                                             : 4));
  l->dp_B = 2 * l->dp_table_B + dp_state;
  for (guint32 k = 0; k < l->ranks; k++)
    l->total_B[k] = l->emb_B[k] + l->emb_state_B[k] + l->dp_B + mlp;
}

WlDlrmLayout *
wl_dlrm_layout_new (const WlGenDlrm *req, GError **error)
{
  if (!wl_gen_dlrm_check (req, error))
    return NULL;
  guint32 N = req->ranks, T = req->model.tables->len;
  WlDlrmLayout *l = g_new0 (WlDlrmLayout, 1);
  l->ranks = N;
  l->nl = nl_of (req);
  l->kind = g_new0 (WlShardKind, T);
  l->shards = g_array_new (FALSE, FALSE, sizeof (WlDlrmShard));
  l->fwd = g_new0 (guint64, (gsize) N * N);
  l->fwd2 = g_new0 (guint64, (gsize) N * N);
  l->input = g_new0 (guint64, (gsize) N * N);
  l->emb_B = g_new0 (guint64, N);
  l->emb_state_B = g_new0 (guint64, N);
  l->total_B = g_new0 (guint64, N);
  l->mlp_params = wl_dlrm_mlp_params (&req->model);
  Build s = { req, l, wl_dlrm_elem_bytes (req->dtype), wl_dlrm_exchange_bytes (req),
              req->global_batch / N, req->global_batch };
  place (&s);
  exchanges (&s);
  memory (&s);
  return l;
}

void
wl_dlrm_layout_free (WlDlrmLayout *l)
{
  if (l == NULL)
    return;
  g_free (l->kind);
  g_array_free (l->shards, TRUE);
  g_free (l->fwd);
  g_free (l->fwd2);
  g_free (l->input);
  g_free (l->emb_B);
  g_free (l->emb_state_B);
  g_free (l->total_B);
  g_free (l);
}

void
wl_dlrm_layout_a2a (const WlDlrmLayout *l, guint32 rank, guint64 *sent, guint64 *recv)
{
  guint32 N = l->ranks;
  *sent = *recv = 0;
  for (guint32 k = 0; k < N; k++)
    {
      *sent += l->fwd[rank * N + k] + l->fwd2[rank * N + k];
      *recv += l->fwd[k * N + rank] + l->fwd2[k * N + rank];
    }
}
