/* plan_dlrm_search.c: `orrery plan --dlrm`'s candidates: their layouts,
 * memory check and balance, simulation over worker processes, the
 * baselines and the local search; see plan_dlrm.h. */
#include "sim/app/plan_dlrm_private.h"

#include <stdio.h>
#include <string.h>

#include "sim/app/plan_pool.h"
#include "sim/app/report.h"
#include "sim/app/simulation.h"
#include "sim/error.h"

DlrmCand *
dlrm_cand_new (const DlrmEnv *env, const DlrmCand *from, const char *what)
{
  DlrmCand *c = g_new0 (DlrmCand, 1);
  c->kind = g_new (WlShardKind, env->T);
  c->rank = g_new (guint32, env->T);
  for (guint32 t = 0; t < env->T; t++)
    {
      c->kind[t] = from != NULL ? from->kind[t] : WL_SHARD_TABLE_WISE;
      c->rank[t] = from != NULL ? from->rank[t] : DLRM_PLACED;
    }
  g_strlcpy (c->what, what, sizeof c->what);
  return c;
}

void
dlrm_cand_free (DlrmCand *c)
{
  if (c == NULL)
    return;
  g_free (c->kind);
  g_free (c->rank);
  g_free (c);
}

/* C's request: ENV's with C's plan (TP, T entries, borrowing C's ranks). */
static void
cand_request (const DlrmEnv *env, const DlrmCand *c, WlGenDlrm *req, WlDlrmTablePlan *tp)
{
  *req = env->base;
  for (guint32 t = 0; t < env->T; t++)
    tp[t] = (WlDlrmTablePlan) { .kind = c->kind[t],
                                .n_ranks = c->rank[t] != DLRM_PLACED ? 1 : 0,
                                .ranks = c->rank[t] != DLRM_PLACED ? &c->rank[t] : NULL };
  req->plan = tp;
}

WlDlrmLayout *
dlrm_cand_layout (const DlrmEnv *env, const DlrmCand *c, GError **error)
{
  WlGenDlrm req;
  g_autofree WlDlrmTablePlan *tp = g_new0 (WlDlrmTablePlan, env->T);
  cand_request (env, c, &req, tp);
  return wl_dlrm_layout_new (&req, error);
}

/* The lookup cost of a table looked up whole: its forward and backward
 * HBM bytes (the lookup model's, gen_dlrm.h), as on one rank. */
static double
table_cost (const WlGenDlrm *req, guint32 t)
{
  const WlDlrmTable *tb = &g_array_index (req->model.tables, WlDlrmTable, t);
  WlLookupCost c = wl_dlrm_lookup_cost (req, tb->rows, tb->dim,
                                        (double) req->global_batch * tb->pooling,
                                        req->global_batch);
  return (double) c.fwd_B + (double) c.bwd_B;
}

void
dlrm_rank_bytes (const DlrmEnv *env, const WlDlrmLayout *l, gboolean dense_grad, double *out)
{
  const WlGenDlrm *r = &env->base;
  guint64 b = r->global_batch / r->ranks;
  guint64 E = wl_dlrm_elem_bytes (r->dtype);
  memset (out, 0, sizeof (double) * r->ranks);
  for (guint i = 0; i < l->shards->len; i++)
    {
      const WlDlrmShard *sh = &g_array_index (l->shards, WlDlrmShard, i);
      const WlDlrmTable *tb = &g_array_index (r->model.tables, WlDlrmTable, sh->table);
      double n = (double) r->global_batch * tb->pooling * (double) sh->rows / (double) tb->rows;
      WlLookupCost c = wl_dlrm_lookup_cost (r, sh->rows, sh->cols, n, r->global_batch);
      out[sh->rank] += (double) c.fwd_B + (double) c.bwd_B;
    }
  for (guint32 t = 0; t < env->T; t++)
    if (l->kind[t] == WL_SHARD_DATA_PARALLEL)
      {
        const WlDlrmTable *tb = &g_array_index (r->model.tables, WlDlrmTable, t);
        WlLookupCost c = wl_dlrm_lookup_cost (r, tb->rows, tb->dim, (double) b * tb->pooling, b);
        /* The bound's backward: the dense gradient of the rank's samples
         * and of the whole table written (the data-parallel update). */
        double bwd = dense_grad ? (double) (b * tb->dim * E) + (double) (tb->rows * tb->dim * E)
                                : (double) c.bwd_B;
        for (guint32 k = 0; k < r->ranks; k++)
          out[k] += (double) c.fwd_B + bwd;
      }
}

/* Max over mean of N values (1 when they are all 0). */
static double
max_over_mean (const double *v, guint32 n)
{
  double sum = 0.0, max = 0.0;
  for (guint32 i = 0; i < n; i++)
    {
      sum += v[i];
      max = MAX (max, v[i]);
    }
  return sum > 0.0 ? max / (sum / n) : 1.0;
}

gboolean
dlrm_cand_prepare (const DlrmEnv *env, DlrmCand *c)
{
  GError *error = NULL;
  g_autoptr (WlDlrmLayout) l = dlrm_cand_layout (env, c, &error);
  if (l == NULL)
    {
      c->status = DLRM_FAILED;
      g_strlcpy (c->note, error->message, sizeof c->note);
      g_error_free (error);
      return FALSE;
    }
  guint32 N = env->base.ranks, worst = 0;
  g_autofree double *v = g_new0 (double, N);
  for (guint32 k = 0; k < N; k++)
    if (l->total_B[k] > l->total_B[worst])
      worst = k;
  c->mem_B = l->total_B[worst];
  dlrm_rank_bytes (env, l, FALSE, v);
  c->lookup_bal = max_over_mean (v, N);
  for (guint32 k = 0; k < N; k++)
    {
      guint64 sent = 0, recv = 0;
      wl_dlrm_layout_a2a (l, k, &sent, &recv);
      v[k] = (double) sent + (double) recv;
    }
  c->comm_bal = max_over_mean (v, N);
  c->bound_ps = dlrm_cand_bound (env, l);
  if ((double) c->mem_B > env->capacity_B)
    {
      c->status = DLRM_PRUNED;
      g_snprintf (c->note, sizeof c->note, "memory: rank %u needs %.2f GiB of %.2f GiB", worst,
                  (double) c->mem_B / 1073741824.0, env->capacity_B / 1073741824.0);
      return FALSE;
    }
  c->status = DLRM_PENDING;
  return TRUE;
}

gboolean
dlrm_cand_simulate (const DlrmEnv *env, const DlrmCand *c, guint explain, guint64 *iter_ps,
                    GError **error)
{
  WlGenDlrm req;
  g_autofree WlDlrmTablePlan *tp = g_new0 (WlDlrmTablePlan, env->T);
  cand_request (env, c, &req, tp);
  g_autoptr (GPtrArray) graphs = wl_gen_dlrm_graphs ("candidate", &req, error);
  if (graphs == NULL)
    return FALSE;
  g_autoptr (AppSim) sim = app_sim_new_graphs (env->cfg, env->topo, "candidate", graphs, error);
  if (sim == NULL)
    return FALSE;
  app_sim_set_symmetry (sim, TRUE);
  app_sim_set_recording (sim, explain > 0);
  if (!app_sim_run (sim, error))
    return FALSE;
  *iter_ps = app_sim_end_time (sim);
  return explain == 0 || app_report_critical_path (sim, explain, stdout, error);
}

/* Simulate candidate ITEM here, setting its status. */
static void
run_here (gpointer data, gpointer item)
{
  const DlrmEnv *env = data;
  DlrmCand *c = item;
  GError *error = NULL;
  if (dlrm_cand_simulate (env, c, 0, &c->iter_ps, &error))
    c->status = DLRM_SIMULATED;
  else
    {
      c->status = DLRM_FAILED;
      g_strlcpy (c->note, error != NULL ? error->message : "failed", sizeof c->note);
      g_clear_error (&error);
    }
}

/* A worker's record of one candidate. */
typedef struct
{
  DlrmStatus status;
  guint64 iter_ps;
  char note[sizeof ((DlrmCand *) 0)->note];
} Record;

static void
encode (gconstpointer item, gpointer record)
{
  const DlrmCand *c = item;
  Record rec;
  memset (&rec, 0, sizeof rec); /* the padding after status too: the whole record is written */
  rec.status = c->status;
  rec.iter_ps = c->iter_ps;
  memcpy (rec.note, c->note, sizeof rec.note);
  memcpy (record, &rec, sizeof rec);
}

static void
decode (gpointer item, gconstpointer record)
{
  DlrmCand *c = item;
  Record rec;
  memcpy (&rec, record, sizeof rec);
  c->status = rec.status;
  c->iter_ps = rec.iter_ps;
  memcpy (c->note, rec.note, sizeof rec.note);
}

static void
fail (gpointer item, const char *why)
{
  DlrmCand *c = item;
  c->status = DLRM_FAILED;
  g_strlcpy (c->note, why, sizeof c->note);
}

/* Simulate the N candidates of BATCH over up to JOBS worker processes
 * (plan_pool.h). */
static void
run_batch (const DlrmEnv *env, DlrmCand **batch, guint n, guint jobs)
{
  PlanPool pool = { .data = (gpointer) env, .record_size = sizeof (Record), .run = run_here,
                    .encode = encode, .decode = decode, .fail = fail };
  plan_pool_run (&pool, (gpointer *) batch, n, jobs);
}

/* Add C to ALL, numbered. */
static void
record (GPtrArray *all, DlrmCand *c)
{
  c->id = all->len;
  g_ptr_array_add (all, c);
}

/* The least of LOAD over N ranks other than SKIP (ties: the lowest). */
static guint32
least (const double *load, guint32 n, guint32 skip)
{
  guint32 best = G_MAXUINT32;
  for (guint32 k = 0; k < n; k++)
    if (k != skip && (best == G_MAXUINT32 || load[k] < load[best]))
      best = k;
  return best;
}

/* Tables by decreasing whole-table lookup cost (ties: table order). */
static guint32 *
tables_by_cost (const DlrmEnv *env)
{
  guint32 *order = g_new (guint32, env->T);
  g_autofree double *cost = g_new (double, env->T);
  for (guint32 t = 0; t < env->T; t++)
    {
      order[t] = t;
      cost[t] = table_cost (&env->base, t);
    }
  for (guint32 i = 1; i < env->T; i++) /* insertion sort: stable */
    for (guint32 j = i; j > 0 && cost[order[j]] > cost[order[j - 1]]; j--)
      {
        guint32 x = order[j];
        order[j] = order[j - 1];
        order[j - 1] = x;
      }
  return order;
}

/* The baselines, in this order, into ALL. */
static void
baselines (const DlrmEnv *env, GPtrArray *all)
{
  DlrmCand *c = dlrm_cand_new (env, NULL, "table-wise greedy by size (gen dlrm's)");
  c->baseline = TRUE;
  record (all, c);
  c = dlrm_cand_new (env, NULL, "table-wise greedy by lookup cost");
  c->baseline = TRUE;
  g_autofree guint32 *order = tables_by_cost (env);
  g_autofree double *load = g_new0 (double, env->base.ranks);
  for (guint32 i = 0; i < env->T; i++)
    {
      guint32 t = order[i], k = least (load, env->base.ranks, G_MAXUINT32);
      c->rank[t] = k;
      load[k] += table_cost (&env->base, t);
    }
  record (all, c);
  /* The same, with every table whose lookup cost passes a GPU's share of
   * the total split column-wise over the GPUs first. */
  c = dlrm_cand_new (env, NULL, "hot tables column-wise, the rest by cost");
  c->baseline = TRUE;
  double total = 0.0;
  for (guint32 t = 0; t < env->T; t++)
    total += table_cost (&env->base, t);
  memset (load, 0, sizeof (double) * env->base.ranks);
  for (guint32 i = 0; i < env->T; i++)
    {
      guint32 t = order[i];
      double cost = table_cost (&env->base, t);
      if (cost > total / env->base.ranks && env->base.ranks > 1)
        {
          c->kind[t] = WL_SHARD_COLUMN_WISE;
          for (guint32 k = 0; k < env->base.ranks; k++)
            load[k] += cost / env->base.ranks;
          continue;
        }
      guint32 k = least (load, env->base.ranks, G_MAXUINT32);
      c->rank[t] = k;
      load[k] += cost;
    }
  record (all, c);
  static const struct
  {
    WlShardKind kind;
    const char *what;
  } uniform[] = {
    { WL_SHARD_ROW_WISE, "every table row-wise" },
    { WL_SHARD_COLUMN_WISE, "every table column-wise" },
    { WL_SHARD_TABLE_ROW_WISE, "every table table-row-wise" },
    { WL_SHARD_DATA_PARALLEL, "every table data-parallel" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (uniform); i++)
    {
      c = dlrm_cand_new (env, NULL, uniform[i].what);
      c->baseline = TRUE;
      for (guint32 t = 0; t < env->T; t++)
        c->kind[t] = uniform[i].kind;
      record (all, c);
    }
}

/* A plan's key, to try each plan once. */
static char *
plan_key (const DlrmEnv *env, const DlrmCand *c)
{
  GString *s = g_string_new (NULL);
  for (guint32 t = 0; t < env->T; t++)
    g_string_append_printf (s, "%d:%u,", (int) c->kind[t], c->rank[t]);
  return g_string_free (s, FALSE);
}

/* CUR's neighbours not in SEEN, in the search's order: tables by
 * decreasing lookup cost; for each, a table-wise table moved to the rank
 * with the least lookup cost, then its type changed to column-wise,
 * row-wise, table-row-wise, data-parallel, table-wise (onto the rank with
 * the least lookup cost), its own excepted. */
static GPtrArray *
neighbours (const DlrmEnv *env, const DlrmCand *cur, GHashTable *seen)
{
  GPtrArray *out = g_ptr_array_new_with_free_func ((GDestroyNotify) dlrm_cand_free);
  g_autoptr (WlDlrmLayout) l = dlrm_cand_layout (env, cur, NULL);
  if (l == NULL)
    return out;
  guint32 N = env->base.ranks;
  g_autofree double *load = g_new0 (double, N);
  dlrm_rank_bytes (env, l, FALSE, load);
  g_autofree guint32 *order = tables_by_cost (env);
  static const WlShardKind kinds[] = { WL_SHARD_COLUMN_WISE, WL_SHARD_ROW_WISE,
                                       WL_SHARD_TABLE_ROW_WISE, WL_SHARD_DATA_PARALLEL,
                                       WL_SHARD_TABLE_WISE };
  for (guint32 i = 0; i < env->T; i++)
    {
      guint32 t = order[i];
      char what[64];
      if (cur->kind[t] == WL_SHARD_TABLE_WISE)
        {
          guint32 from = G_MAXUINT32;
          for (guint j = 0; j < l->shards->len && from == G_MAXUINT32; j++)
            if (g_array_index (l->shards, WlDlrmShard, j).table == t)
              from = g_array_index (l->shards, WlDlrmShard, j).rank;
          guint32 to = least (load, N, from);
          if (to != G_MAXUINT32)
            {
              g_snprintf (what, sizeof what, "t%u to rank %u", t, to);
              DlrmCand *c = dlrm_cand_new (env, cur, what);
              c->rank[t] = to;
              g_ptr_array_add (out, c);
            }
        }
      for (guint j = 0; j < G_N_ELEMENTS (kinds); j++)
        if (kinds[j] != cur->kind[t])
          {
            guint32 to = least (load, N, G_MAXUINT32);
            if (kinds[j] == WL_SHARD_TABLE_WISE)
              g_snprintf (what, sizeof what, "t%u table_wise on rank %u", t, to);
            else
              g_snprintf (what, sizeof what, "t%u %s", t, wl_shard_kind_name (kinds[j]));
            DlrmCand *c = dlrm_cand_new (env, cur, what);
            c->kind[t] = kinds[j];
            c->rank[t] = kinds[j] == WL_SHARD_TABLE_WISE ? to : DLRM_PLACED;
            g_ptr_array_add (out, c);
          }
    }
  for (guint i = 0; i < out->len;)
    {
      char *key = plan_key (env, g_ptr_array_index (out, i));
      if (g_hash_table_contains (seen, key))
        {
          g_free (key);
          g_ptr_array_remove_index (out, i);
        }
      else
        {
          g_hash_table_add (seen, key);
          i++;
        }
    }
  return out;
}

/* The faster of A and B (simulated ones; ties: the lower id), or NULL. */
static DlrmCand *
faster (DlrmCand *a, DlrmCand *b)
{
  if (b == NULL || b->status != DLRM_SIMULATED)
    return a;
  if (a == NULL || b->iter_ps < a->iter_ps || (b->iter_ps == a->iter_ps && b->id < a->id))
    return b;
  return a;
}

/* Prepare and simulate the N candidates of CANDS in batches; the
 * simulations counted in *SPENT. */
static void
evaluate (const DlrmEnv *env, DlrmCand **cands, guint n, guint *spent)
{
  DlrmCand *batch[PLAN_DLRM_BATCH];
  guint m = 0;
  for (guint i = 0; i <= n; i++)
    {
      if (i < n && dlrm_cand_prepare (env, cands[i]))
        batch[m++] = cands[i];
      if (m > 0 && (m == PLAN_DLRM_BATCH || i == n))
        {
          run_batch (env, batch, m, env->jobs);
          *spent += m;
          m = 0;
        }
    }
}

/* The progress line after a batch (plan_pool_progress): candidates tried
 * of the baselines and the budget, the best time so far. */
static void
progress (const DlrmEnv *env, guint tried, const DlrmCand *cur, gint64 t0, gboolean *drawn)
{
  if (env->progress_us >= 0)
    plan_pool_progress (tried, DLRM_BASELINES + env->budget, cur != NULL ? cur->iter_ps
                                                                          : G_MAXUINT64,
                        g_get_monotonic_time () - t0, env->progress_us, drawn);
}

/* Simulate the M candidates of BATCH, but (without --exhaustive) those
 * whose bound is not below CUR's time: they cannot beat it, and are
 * DLRM_BOUNDED. */
static void
run_bounded (const DlrmEnv *env, DlrmCand **batch, guint m, const DlrmCand *cur)
{
  DlrmCand *run[PLAN_DLRM_BATCH];
  guint r = 0;
  for (guint j = 0; j < m; j++)
    if (!env->exhaustive && batch[j]->bound_ps > 0 && batch[j]->bound_ps >= cur->iter_ps)
      {
        batch[j]->status = DLRM_BOUNDED;
        g_snprintf (batch[j]->note, sizeof batch[j]->note,
                    "bound %" G_GUINT64_FORMAT " ps >= the current plan's %" G_GUINT64_FORMAT
                    " ps", batch[j]->bound_ps, cur->iter_ps);
      }
    else
      run[r++] = batch[j];
  run_batch (env, run, r, env->jobs);
}

DlrmCand *
dlrm_search (const DlrmEnv *env, GPtrArray *all)
{
  gint64 t0 = g_get_monotonic_time ();
  gboolean drawn = FALSE;
  baselines (env, all);
  if (all->len > env->stop_id)
    return NULL;
  guint spent = 0;
  evaluate (env, (DlrmCand **) all->pdata, all->len, &spent);
  DlrmCand *cur = NULL;
  for (guint i = 0; i < all->len; i++)
    cur = faster (cur, g_ptr_array_index (all, i));
  if (cur == NULL)
    return NULL;
  cur->accepted = TRUE;
  progress (env, all->len, cur, t0, &drawn);
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < all->len; i++)
    g_hash_table_add (seen, plan_key (env, g_ptr_array_index (all, i)));
  spent = 0;
  gboolean improved = TRUE;
  while (improved && spent < env->budget)
    {
      improved = FALSE;
      g_autoptr (GPtrArray) nb = neighbours (env, cur, seen);
      guint i = 0;
      while (i < nb->len && spent < env->budget && !improved)
        {
          /* The next batch: up to the budget's rest of candidates that fit
           * (those that do not are recorded, pruned, on the way). */
          DlrmCand *batch[PLAN_DLRM_BATCH];
          guint m = 0;
          while (i < nb->len && m < MIN (PLAN_DLRM_BATCH, env->budget - spent))
            {
              DlrmCand *c = g_ptr_array_steal_index (nb, i);
              record (all, c);
              if (c->id >= env->stop_id)
                return NULL;
              if (dlrm_cand_prepare (env, c))
                batch[m++] = c;
            }
          if (m == 0)
            continue;
          run_bounded (env, batch, m, cur);
          spent += m;
          DlrmCand *best = NULL;
          for (guint j = 0; j < m; j++)
            best = faster (best, batch[j]);
          if (best != NULL && best->iter_ps < cur->iter_ps)
            {
              cur = best;
              cur->accepted = TRUE;
              improved = TRUE;
            }
          progress (env, DLRM_BASELINES + spent, cur, t0, &drawn);
        }
    }
  if (drawn)
    fputs ("\r\033[K", stderr);
  return cur;
}
