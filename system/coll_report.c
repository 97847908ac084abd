/* coll_report.c: what collectives report: the algorithms a finished one
 * ran (the collective table's rows and records) and, for diagnostics, the
 * ones still waiting for members.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#include "system/coll_private.h"

#include <string.h>

/* The algorithms of a collective's phases, one per topology dimension in
 * the order first used ("ring,direct"); "-" when it needs no network. */
static void
coll_algorithms (const SysColl *coll, char *buf, gsize size)
{
  if (coll->is_nccl)
    {
      sys_nccl_plan_label (&coll->nccl, buf, size);
      return;
    }
  guint32 seen = 0;
  buf[0] = '\0';
  for (guint i = 0; i < coll->n_phases; i++)
    {
      guint d = coll->phase[i].topo_dim;
      if (seen & (1u << d))
        continue;
      seen |= 1u << d;
      if (buf[0] != '\0')
        g_strlcat (buf, ",", size);
      g_strlcat (buf, coll->phase[i].algo->name, size);
    }
  if (buf[0] == '\0')
    g_strlcpy (buf, "-", size);
}

/* What a collective's row is found by: its kind and group and what
 * coll_algorithms makes its text from (NCCL's algorithm, protocol and
 * channels, or the rows of its phases in the order of their dimensions'
 * first use).  Equal keys give equal text; the text decides the row. */
typedef struct
{
  guint64 group;
  guint32 kind, nccl, algo, proto, channels, n;
  const SysAlgoClass *rows[SYS_MAX_PHASES];
} SysStatsKey;

static guint
stats_key_hash (gconstpointer p)
{
  const SysStatsKey *k = p;
  guint h = g_int64_hash (&k->group) ^ (k->kind * 0x9E3779B1u) ^ (k->algo << 8) ^ (k->proto << 16)
            ^ (k->channels << 20) ^ k->n;
  for (guint32 i = 0; i < k->n; i++)
    h = h * 31u + g_direct_hash (k->rows[i]);
  return h;
}

static gboolean
stats_key_equal (gconstpointer a, gconstpointer b)
{
  const SysStatsKey *x = a, *y = b;
  if (x->group != y->group || x->kind != y->kind || x->nccl != y->nccl || x->algo != y->algo
      || x->proto != y->proto || x->channels != y->channels || x->n != y->n)
    return FALSE;
  for (guint32 i = 0; i < x->n; i++)
    if (x->rows[i] != y->rows[i])
      return FALSE;
  return TRUE;
}

GHashTable *
sys_stats_rows_new (void)
{
  return g_hash_table_new_full (stats_key_hash, stats_key_equal, g_free, NULL);
}

static void
stats_key (const SysColl *coll, SysStatsKey *k)
{
  memset (k, 0, sizeof *k);
  k->group = coll->group->id;
  k->kind = coll->kind;
  if (coll->is_nccl)
    {
      k->nccl = 1;
      k->algo = coll->nccl.choice.algo;
      k->proto = coll->nccl.choice.proto;
      k->channels = coll->nccl.choice.channels;
      return;
    }
  guint32 seen = 0;
  for (guint i = 0; i < coll->n_phases; i++)
    {
      guint d = coll->phase[i].topo_dim;
      if (seen & (1u << d))
        continue;
      seen |= 1u << d;
      k->rows[k->n++] = coll->phase[i].algo;
    }
}

/* The row + 1 of a collective: by its text, the first time its key is met. */
static gpointer
stats_row (Sys *sys, const SysColl *coll)
{
  SysStatsKey k;
  stats_key (coll, &k);
  gpointer row = g_hash_table_lookup (sys->group_stats_rows, &k);
  if (row != NULL)
    return row;
  char algo[sizeof ((SysCollGroupStats *) NULL)->algorithm];
  coll_algorithms (coll, algo, sizeof algo);
  char key[sizeof algo + 48];
  g_snprintf (key, sizeof key, "%d/%" G_GUINT64_FORMAT "/%s", (int) coll->kind, coll->group->id,
              algo);
  row = g_hash_table_lookup (sys->group_stats_index, key);
  if (row == NULL)
    {
      SysCollGroupStats st = { .kind = coll->kind, .group = coll->group->id,
                               .ranks = coll->group->n };
      g_strlcpy (st.algorithm, algo, sizeof st.algorithm);
      st.in_network = coll->is_nccl && sys_nccl_plan_in_network (&coll->nccl);
      g_array_append_val (sys->group_stats, st);
      row = GUINT_TO_POINTER (sys->group_stats->len);
      g_hash_table_insert (sys->group_stats_index, g_strdup (key), row);
    }
  g_hash_table_insert (sys->group_stats_rows, g_memdup2 (&k, sizeof k), row);
  return row;
}

void
sys_coll_stats_add (Sys *sys, const SysColl *coll, SimTime now)
{
  /* A plan's row, once found, is kept with it: the same for every
   * instance (its key is the plan's group, kind and algorithms). */
  gpointer row = GUINT_TO_POINTER (sys_coll_memo_stats_row (coll));
  if (row == NULL)
    {
      row = stats_row (sys, coll);
      sys_coll_memo_keep_stats_row (coll, GPOINTER_TO_UINT (row));
    }
  SysCollGroupStats *st = &g_array_index (sys->group_stats, SysCollGroupStats,
                                          GPOINTER_TO_UINT (row) - 1);
  st->count++;
  st->bytes += coll->bytes;
  st->busy += now - coll->first_join;
  st->wait += coll->last_join - coll->first_join;
  if (sys->no_coll_records)
    return;
  /* Written in place: g_array_set_size only grows the array (no clearing,
   * not zero-terminated), which costs less than g_array_append_val's copy
   * through memcpy, once per collective. */
  GArray *recs = sys->coll_records;
  guint i = recs->len;
  g_array_set_size (recs, i + 1);
  g_array_index (recs, SysCollRecord, i) = (SysCollRecord){
    .kind = coll->kind, .group = coll->group->id, .seq = coll->seq,
    .ranks = coll->group->n, .bytes = coll->bytes, .first_join = coll->first_join,
    .last_join = coll->last_join, .done = now, .row = GPOINTER_TO_UINT (row) - 1
  };
}

/* ---- diagnostics ----------------------------------------------------------- */

static void
append_rank_list (GString *out, const SysColl *coll, gboolean joined)
{
  guint shown = 0, total = 0;
  for (guint32 i = 0; i < coll->group->n; i++)
    if ((coll->members[i].joined != 0) == joined)
      {
        if (shown < 16)
          g_string_append_printf (out, "%s%u", shown ? "," : "", coll->group->ranks[i]);
        shown += shown < 16;
        total++;
      }
  if (total > shown)
    g_string_append_printf (out, ",... (%u in all)", total);
  if (total == 0)
    g_string_append (out, "none");
}

void
sys_coll_describe (const SysColl *coll, GString *out)
{
  g_autofree char *label = sys_group_label (coll->group);
  g_string_append_printf (out,
                          "collective #%u on %s (%s, %" G_GUINT64_FORMAT
                          " bytes): %u of %u ranks joined: ",
                          coll->seq, label, sys_coll_kind_name (coll->kind), coll->bytes,
                          coll->joined, coll->group->n);
  append_rank_list (out, coll, TRUE);
  g_string_append (out, "; never joined: ");
  append_rank_list (out, coll, FALSE);
  g_string_append_c (out, '\n');
}

static gint
cmp_colls (gconstpointer a, gconstpointer b)
{
  const SysColl *x = *(SysColl *const *) a, *y = *(SysColl *const *) b;
  if (x->group->id != y->group->id)
    return x->group->id < y->group->id ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

guint
sys_describe_pending (const Sys *sys, GString *out)
{
  g_autoptr (GPtrArray) colls = g_ptr_array_new ();
  for (SysColl *coll = sys->live_colls; coll != NULL; coll = coll->live_next)
    g_ptr_array_add (colls, coll);
  g_ptr_array_sort (colls, cmp_colls);
  for (guint i = 0; i < colls->len; i++)
    sys_coll_describe (colls->pdata[i], out);
  return colls->len + sys_p2p_describe (sys->p2p, out);
}
