/* coll_report.c: what collectives report: the algorithms a finished one
 * ran (the collective table's rows and records) and, for diagnostics, the
 * ones still waiting for members.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#include "system/coll_private.h"

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

void
sys_coll_stats_add (Sys *sys, const SysColl *coll, SimTime now)
{
  char algo[sizeof ((SysCollGroupStats *) NULL)->algorithm];
  coll_algorithms (coll, algo, sizeof algo);
  char key[sizeof algo + 48];
  g_snprintf (key, sizeof key, "%d/%" G_GUINT64_FORMAT "/%s", (int) coll->kind, coll->group->id,
              algo);
  gpointer row = g_hash_table_lookup (sys->group_stats_index, key);
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
  SysCollGroupStats *st = &g_array_index (sys->group_stats, SysCollGroupStats,
                                          GPOINTER_TO_UINT (row) - 1);
  st->count++;
  st->bytes += coll->bytes;
  st->busy += now - coll->first_join;
  st->wait += coll->last_join - coll->first_join;
  SysCollRecord rec = { .kind = coll->kind, .group = coll->group->id, .seq = coll->seq,
                        .ranks = coll->group->n, .bytes = coll->bytes,
                        .first_join = coll->first_join, .last_join = coll->last_join,
                        .done = now, .row = GPOINTER_TO_UINT (row) - 1 };
  g_array_append_val (sys->coll_records, rec);
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
  GHashTableIter it;
  gpointer coll;
  g_hash_table_iter_init (&it, sys->live_colls);
  while (g_hash_table_iter_next (&it, &coll, NULL))
    g_ptr_array_add (colls, coll);
  g_ptr_array_sort (colls, cmp_colls);
  for (guint i = 0; i < colls->len; i++)
    sys_coll_describe (colls->pdata[i], out);
  return colls->len + sys_p2p_describe (sys->p2p, out);
}
