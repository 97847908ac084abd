/* gen_dlrm.c: the DLRM generator's model: the preset, the parameter
 * counts, and the parsers of MLP sizes, tables CSV files and plan files
 * (layout in gen_dlrm_shard.c, traces in gen_dlrm_emit.c). */
#include "workload/gen_dlrm.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "workload/wl_error.h"

/* The MLPerf Training reference DLRM-DCNv2 (github.com/mlcommons/training,
 * recommendation_v2/torchrec_dlrm/README.MD, "Run the MLPerf DLRM v2
 * benchmark", commit aa344c7): --num_embeddings_per_feature (the 26
 * Criteo 1TB categorical features' rows), --multi_hot_sizes (indices per
 * sample, the pooling factors of the synthetic multi-hot dataset),
 * --embedding_dim 128, --dense_arch_layer_sizes 512,256,128 over the 13
 * dense features (torchrec.datasets.criteo DEFAULT_INT_NAMES),
 * --over_arch_layer_sizes 1024,1024,512,256,1, --interaction_type=dcn
 * --dcn_num_layers=3 --dcn_low_rank_dim=512, --adagrad (the embeddings'
 * optimizer fused in backward: FBGEMM's EXACT_ADAGRAD, dlrm_main.py), and
 * GLOBAL_BATCH_SIZE=65536. */
static const guint64 criteo_rows[26] = {
  40000000, 39060, 17295, 7424, 20265, 3, 7122, 1543, 63, 40000000, 3067956, 405282, 10,
  2209, 11938, 155, 4, 976, 14, 40000000, 40000000, 40000000, 590152, 12973, 108, 36
};
static const guint32 criteo_hot[26] = { 3, 2, 1, 2, 6, 1, 1, 1, 1, 7, 3, 8, 1,
                                        6, 9, 5, 1, 1, 1, 12, 100, 27, 10, 3, 1, 1 };

static const char preset_name[] = "dlrm-dcnv2-criteo1tb";

const char *
wl_dlrm_preset_names (void)
{
  return preset_name;
}

gboolean
wl_dlrm_preset (const char *name, WlDlrmModel *out)
{
  g_return_val_if_fail (name != NULL && out != NULL, FALSE);
  if (g_ascii_strcasecmp (name, preset_name) != 0)
    return FALSE;
  *out = (WlDlrmModel) { .name = preset_name, .n_bottom = 4, .bottom = { 13, 512, 256, 128 },
                         .n_top = 5, .top = { 1024, 1024, 512, 256, 1 }, .dcn = TRUE,
                         .dcn_layers = 3, .dcn_rank = 512 };
  out->tables = g_array_new (FALSE, FALSE, sizeof (WlDlrmTable));
  for (guint i = 0; i < G_N_ELEMENTS (criteo_rows); i++)
    {
      WlDlrmTable t = { criteo_rows[i], 128, criteo_hot[i] };
      g_array_append_val (out->tables, t);
    }
  return TRUE;
}

void
wl_dlrm_model_clear (WlDlrmModel *m)
{
  if (m != NULL && m->tables != NULL)
    g_array_free (m->tables, TRUE);
  if (m != NULL)
    m->tables = NULL;
}

guint32
wl_dlrm_elem_bytes (WlDtype dtype)
{
  return dtype == WL_DTYPE_FP32 || dtype == WL_DTYPE_TF32 ? 4 : dtype == WL_DTYPE_FP8 ? 1 : 2;
}

guint32
wl_dlrm_exchange_bytes (const WlGenDlrm *req)
{
  if (req->exchange_dtype_set)
    return wl_dlrm_elem_bytes (req->exchange_dtype);
  return wl_dlrm_elem_bytes (req->amp_casts && req->mlp_dtype_set ? req->mlp_dtype : req->dtype);
}

static guint32
dim_of (const WlDlrmModel *m)
{
  return m->tables != NULL && m->tables->len > 0 ? g_array_index (m->tables, WlDlrmTable, 0).dim
                                                 : 0;
}

guint64
wl_dlrm_embedding_params (const WlDlrmModel *m)
{
  guint64 n = 0;
  for (guint i = 0; m->tables != NULL && i < m->tables->len; i++)
    {
      const WlDlrmTable *t = &g_array_index (m->tables, WlDlrmTable, i);
      n += t->rows * t->dim;
    }
  return n;
}

guint32
wl_dlrm_interaction_out (const WlDlrmModel *m)
{
  guint32 F = (m->tables != NULL ? m->tables->len : 0) + 1, D = dim_of (m);
  return m->dcn ? F * D : D + F * (F - 1) / 2;
}

/* Linear layers IN -> SIZES[0] -> ... with biases. */
static guint64
mlp_params (guint64 in, const guint32 *sizes, guint32 n)
{
  guint64 p = 0;
  for (guint32 i = 0; i < n; i++)
    {
      p += in * sizes[i] + sizes[i];
      in = sizes[i];
    }
  return p;
}

guint64
wl_dlrm_mlp_params (const WlDlrmModel *m)
{
  guint64 N = wl_dlrm_interaction_out (m);
  guint64 dcn = m->dcn ? (guint64) m->dcn_layers * (2 * N * m->dcn_rank + N) : 0;
  return mlp_params (m->bottom[0], m->bottom + 1, m->n_bottom - 1) + dcn
         + mlp_params (N, m->top, m->n_top);
}

/* ---- parsers */

/* A whole number in 1 .. LIMIT from TEXT (spaces around allowed). */
static gboolean
parse_count (const char *text, guint64 limit, guint64 *out)
{
  g_autofree char *s = g_strstrip (g_strdup (text));
  if (s[0] < '0' || s[0] > '9')
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull (s, &end, 10);
  if (errno != 0 || *end != '\0' || v == 0 || v > limit)
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
wl_dlrm_mlp_parse (const char *option, const char *text, guint32 *sizes, guint32 *n,
                   GError **error)
{
  g_auto (GStrv) parts = g_strsplit (text, "-", -1);
  guint len = g_strv_length (parts);
  gboolean ok = len >= 1 && len <= WL_DLRM_MAX_MLP;
  for (guint i = 0; ok && i < len; i++)
    {
      guint64 v = 0;
      ok = parse_count (parts[i], 1u << 20, &v);
      sizes[i] = (guint32) v;
    }
  if (!ok)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: '%s' is not layer sizes such as 13-512-256-128 (1 to %d whole numbers "
                   "from 1 to 1048576, joined by '-')", option, text, WL_DLRM_MAX_MLP);
      return FALSE;
    }
  *n = len;
  return TRUE;
}

/* The non-blank, non-comment lines of TEXT, each with its line number,
 * through FN; stops at the first FALSE. */
typedef gboolean (*LineFn) (const char *path, guint line, char **fields, gpointer data,
                            GError **error);

static gboolean
each_line (const char *path, const char *text, LineFn fn, gpointer data, GError **error)
{
  if (g_str_has_prefix (text, "\xef\xbb\xbf")) /* a UTF-8 byte-order mark, as spreadsheets
                                                 * write */
    text += 3;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autofree char *line = g_strstrip (g_strdup (lines[i]));
      if (line[0] == '\0' || line[0] == '#')
        continue;
      g_auto (GStrv) fields = g_strsplit (line, ",", -1);
      for (guint f = 0; fields[f] != NULL; f++)
        g_strstrip (fields[f]);
      if (!fn (path, i + 1, fields, data, error))
        return FALSE;
    }
  return TRUE;
}

typedef struct
{
  GArray *tables;
  gboolean header;
  guint first_line; /* the first table's */
} TablesParse;

/* Whether TEXT is a decimal number as people write one (digits, a point,
 * an exponent: 0.5, 2, 1e3): not hexadecimal, inf or nan. */
static gboolean
is_decimal (const char *text)
{
  return (g_ascii_isdigit (text[0]) || text[0] == '.')
         && strspn (text, "0123456789.eE+-") == strlen (text);
}

static gboolean
table_line (const char *path, guint line, char **f, gpointer data, GError **error)
{
  TablesParse *p = data;
  guint n = g_strv_length (f);
  if (!p->header)
    {
      if (n != 3 || g_ascii_strcasecmp (f[0], "rows") != 0 || g_ascii_strcasecmp (f[1], "dim") != 0
          || g_ascii_strcasecmp (f[2], "pooling") != 0)
        {
          g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                       "%s:%u: the header must be 'rows,dim,pooling'", path, line);
          return FALSE;
        }
      p->header = TRUE;
      return TRUE;
    }
  if (n != 3)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s:%u: needs 3 fields: rows,dim,pooling (this line has %u)", path, line, n);
      return FALSE;
    }
  guint64 rows = 0, dim = 0;
  char *end = NULL;
  double pooling = g_ascii_strtod (f[2], &end);
  /* The field at fault, by name and as written, and what it must be. */
  guint at = !parse_count (f[0], (guint64) 1 << 40, &rows) ? 0
             : !parse_count (f[1], 65536, &dim)             ? 1
             : !is_decimal (f[2]) || end == f[2] || *end != '\0'
                     || !(pooling >= WL_DLRM_MIN_POOLING) || pooling > 1e6
                 ? 2
                 : 3;
  static const char *const field[3] = { "rows", "dim", "pooling" };
  static const char *const must[3] = { "a whole number 1 .. 2^40", "a whole number 1 .. 65536",
                                       "a decimal number from 0.001 to 1e6 (indices a sample)" };
  if (at < 3)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%u: %s '%.40s' must be %s", path, line,
                   field[at], f[at], must[at]);
      return FALSE;
    }
  if (p->tables->len == WL_DLRM_MAX_TABLES)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%u: more than %d tables", path, line,
                   WL_DLRM_MAX_TABLES);
      return FALSE;
    }
  if (p->tables->len == 0)
    p->first_line = line;
  else if (dim != g_array_index (p->tables, WlDlrmTable, 0).dim)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s:%u: dim %" G_GUINT64_FORMAT " differs from the first table's %u (line "
                   "%u): every table must have the same dimension (the interaction stacks them)",
                   path, line, dim, g_array_index (p->tables, WlDlrmTable, 0).dim,
                   p->first_line);
      return FALSE;
    }
  WlDlrmTable t = { rows, (guint32) dim, pooling };
  g_array_append_val (p->tables, t);
  return TRUE;
}

gboolean
wl_dlrm_tables_parse (const char *path, const char *text, GArray *tables, GError **error)
{
  TablesParse p = { tables, FALSE, 0 };
  if (!each_line (path, text, table_line, &p, error))
    return FALSE;
  if (tables->len == 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: no tables (a header line "
                   "'rows,dim,pooling', then one table a line)", path);
      return FALSE;
    }
  return TRUE;
}

static const char *const kind_names[WL_SHARD_N] = { "table_wise", "row_wise", "column_wise",
                                                    "table_row_wise", "data_parallel" };

const char *
wl_shard_kind_name (WlShardKind kind)
{
  return kind < WL_SHARD_N ? kind_names[kind] : "?";
}

gboolean
wl_shard_kind_parse (const char *name, WlShardKind *out)
{
  g_autofree char *s = g_strdelimit (g_strdup (name), "-", '_');
  for (guint i = 0; i < WL_SHARD_N; i++)
    if (g_ascii_strcasecmp (s, kind_names[i]) == 0)
      {
        *out = (WlShardKind) i;
        return TRUE;
      }
  return FALSE;
}

typedef struct
{
  WlDlrmTablePlan *plan;
  guint32 n_tables, ranks;
} PlanParse;

/* TEXT ("0 3 5-7": ranks 0, 3, 5, 6, 7) into E's ranks; FALSE with *BAD
 * saying why (in WHY, of BAD_LEN bytes, when it names a rank). */
static gboolean
plan_ranks (const char *text, guint32 ranks, WlDlrmTablePlan *e, const char **bad, char *why,
            gsize bad_len)
{
  g_auto (GStrv) words = g_strsplit_set (text, " \t", -1);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree gboolean *seen = g_new0 (gboolean, ranks);
  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      g_auto (GStrv) ends = g_strsplit (words[i], "-", 3);
      guint n = g_strv_length (ends);
      gboolean ok = n <= 2 && ends[0][0] != '\0'
                    && strspn (ends[0], "0123456789") == strlen (ends[0])
                    && (n == 1 || (ends[1][0] != '\0'
                                   && strspn (ends[1], "0123456789") == strlen (ends[1])));
      guint64 a = ok ? g_ascii_strtoull (ends[0], NULL, 10) : 0;
      guint64 b = ok && n == 2 ? g_ascii_strtoull (ends[1], NULL, 10) : a;
      if (!ok || b < a)
        {
          *bad = "ranks must be whole numbers or ranges a-b, separated by spaces";
          return FALSE;
        }
      for (guint64 r = a; r <= b; r++)
        {
          if (r >= ranks || seen[r])
            {
              if (r >= ranks)
                g_snprintf (why, bad_len, "rank %s is out of range 0 .. %u",
                            r == a ? ends[0] : ends[1], ranks - 1);
              else
                g_snprintf (why, bad_len, "rank %" G_GUINT64_FORMAT " is given twice", r);
              *bad = why;
              return FALSE;
            }
          seen[r] = TRUE;
          guint32 v = (guint32) r;
          g_array_append_val (out, v);
        }
    }
  e->n_ranks = out->len;
  e->ranks = (guint32 *) g_array_free (g_steal_pointer (&out), FALSE);
  return TRUE;
}

static gboolean
plan_line (const char *path, guint line, char **f, gpointer data, GError **error)
{
  PlanParse *p = data;
  guint n = g_strv_length (f);
  guint64 t = 0;
  WlShardKind kind = WL_SHARD_N;
  const char *bad = NULL;
  /* cppcheck-suppress variableScope ; BAD may point into it after the block */
  char why[160];
  gboolean is_index = f[0] != NULL && f[0][0] != '\0'
                      && strspn (f[0], "0123456789") == strlen (f[0]);
  errno = 0;
  if (is_index)
    t = g_ascii_strtoull (f[0], NULL, 10);
  if (n < 2 || n > 3)
    bad = "needs TABLE,TYPE[,RANKS]";
  else if (!is_index || errno != 0 || t >= p->n_tables)
    {
      g_snprintf (why, sizeof why, "table '%.40s' is not a table's index, 0 .. %u (the "
                  "tables' order, 0-based)", f[0], p->n_tables - 1);
      bad = why;
    }
  else if (!wl_shard_kind_parse (f[1], &kind))
    {
      g_snprintf (why, sizeof why, "type '%.40s' is not table_wise, row_wise, column_wise, "
                  "table_row_wise or data_parallel", f[1]);
      bad = why;
    }
  else if (p->plan[t].kind != WL_SHARD_N)
    {
      g_snprintf (why, sizeof why, "table %" G_GUINT64_FORMAT " is given twice (first on "
                  "line %u)", t, p->plan[t].line);
      bad = why;
    }
  /* "0,row_wise," (a trailing comma): an empty RANKS would give the table
   * the placement rule's ranks while the line seems to set them. */
  if (bad == NULL && n == 3 && f[2][strspn (f[2], " \t")] == '\0')
    bad = "RANKS (after the second comma) is empty: give ranks like '0 2 4-7', or drop the "
          "comma to leave them to the placement rule";
  if (bad == NULL)
    {
      p->plan[t].kind = kind;
      p->plan[t].line = line;
      if (n == 3)
        plan_ranks (f[2], p->ranks, &p->plan[t], &bad, why, sizeof why);
    }
  if (bad == NULL && kind == WL_SHARD_TABLE_WISE && p->plan[t].n_ranks > 1)
    bad = "table_wise takes one rank";
  if (bad == NULL && kind == WL_SHARD_DATA_PARALLEL && p->plan[t].n_ranks > 0)
    bad = "data_parallel takes no ranks (every rank holds the table)";
  if (bad != NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s:%u: %s", path, line, bad);
      return FALSE;
    }
  return TRUE;
}

WlDlrmTablePlan *
wl_dlrm_plan_parse (const char *path, const char *text, guint32 n_tables, guint32 ranks,
                    GError **error)
{
  PlanParse p = { g_new0 (WlDlrmTablePlan, n_tables), n_tables, ranks };
  for (guint32 i = 0; i < n_tables; i++)
    p.plan[i].kind = WL_SHARD_N;
  if (!each_line (path, text, plan_line, &p, error))
    {
      wl_dlrm_plan_free (p.plan, n_tables);
      return NULL;
    }
  /* A file without a line (empty, or comments only) would leave every
   * table to --sharding, silently: most likely the wrong file. */
  gboolean any = FALSE;
  for (guint32 i = 0; i < n_tables && !any; i++)
    any = p.plan[i].kind != WL_SHARD_N;
  if (!any)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: no plan lines (TABLE,TYPE[,RANKS], "
                   "one table a line): without one, leave --plan out", path);
      wl_dlrm_plan_free (p.plan, n_tables);
      return NULL;
    }
  return p.plan;
}

void
wl_dlrm_plan_free (WlDlrmTablePlan *plan, guint32 n_tables)
{
  for (guint32 i = 0; plan != NULL && i < n_tables; i++)
    g_free (plan[i].ranks);
  g_free (plan);
}
