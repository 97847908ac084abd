/* inspect_report.c: the cross-rank comparison of an inspection's
 * collective sequences, its accessors and its printed report (inspect.h). */
#include "workload/inspect.h"
#include "workload/inspect_private.h"

#include <string.h>

#include "sim/printable.h"
#include "workload/chakra.h"

static char *
coll_text (const CollEntry *e)
{
  const char *name = e->type >= 0 ? wl_chakra_comm_type_name ((int) e->type) : NULL;
  g_autofree char *kind = name ? g_strdup (name)
                          : e->type < 0 ? g_strdup ("(no comm_type)")
                                        : g_strdup_printf ("comm_type %" G_GINT64_FORMAT, e->type);
  g_autofree char *size = e->size < 0 ? g_strdup ("no comm_size")
                                      : g_strdup_printf ("%" G_GINT64_FORMAT " bytes", e->size);
  return g_strdup_printf ("%s %s pg_name \"%s\" (node %" G_GUINT64_FORMAT ")", kind, size, e->pg,
                          e->id);
}

/* One rank's collectives, split by group: pg name ("" for all ranks) ->
 * GPtrArray of const CollEntry*, in file order.  One pass over its
 * collectives, so that comparing sequences stays linear in their number.
 * No pg_name names all ranks.  "0" does too unless a comm-group file
 * defines it, which inspect cannot see: it is compared as a group of its
 * own, so that a defined group "0" raises no false alarm. */
static GHashTable *
colls_by_group (const RankInfo *info)
{
  GHashTable *by = g_hash_table_new_full (g_str_hash, g_str_equal, NULL,
                                          (GDestroyNotify) g_ptr_array_unref);
  for (guint i = 0; i < info->colls->len; i++)
    {
      const CollEntry *c = &g_array_index (info->colls, CollEntry, i);
      GPtrArray *seq = g_hash_table_lookup (by, c->pg);
      if (seq == NULL)
        g_hash_table_insert (by, c->pg, seq = g_ptr_array_new ());
      g_ptr_array_add (seq, (gpointer) c);
    }
  return by;
}

/* Compare, group by group, the collectives each rank issues on that group
 * with those of the first rank that uses it (on all ranks: every rank must
 * take part).  Ranks of different groups may well differ.  BY holds each
 * rank's colls_by_group. */
static void
compare_group (WlInspectReport *report, GHashTable **by, const char *pg)
{
  static GPtrArray none = { NULL, 0 };
  const RankInfo *ref = NULL;
  const GPtrArray *ref_seq = NULL;
  for (guint i = 0; i < report->ranks->len && ref == NULL; i++)
    {
      const GPtrArray *seq = g_hash_table_lookup (by[i], pg);
      if (seq != NULL || pg[0] == '\0')
        {
          ref = &g_array_index (report->ranks, RankInfo, i);
          ref_seq = seq != NULL ? seq : &none;
        }
    }
  if (ref == NULL)
    return; /* no rank uses pg: nothing to compare */
  for (guint i = 0; i < report->ranks->len; i++)
    {
      const RankInfo *o = &g_array_index (report->ranks, RankInfo, i);
      const GPtrArray *seq = g_hash_table_lookup (by[i], pg);
      if (seq == NULL)
        seq = &none;
      guint n = seq->len, ref_n = ref_seq->len;
      if (o == ref || (n == 0 && pg[0] != '\0'))
        continue;
      guint k = 0;
      for (; k < MIN (n, ref_n); k++)
        {
          const CollEntry *a = ref_seq->pdata[k], *b = seq->pdata[k];
          if (a->type != b->type || a->size != b->size)
            break;
        }
      if (k == n && n == ref_n)
        continue;
      g_autofree char *mine = k < n ? coll_text (seq->pdata[k])
                                    : g_strdup ("the end of its collectives");
      g_autofree char *theirs = k < ref_n ? coll_text (ref_seq->pdata[k])
                                          : g_strdup ("the end of its collectives");
      g_ptr_array_add (report->defects,
                       g_strdup_printf ("%s: collective #%u on %s%s is %s, but rank %u (%s) has "
                                        "%s (collective sequences disagree)",
                                        o->path, k + 1, pg[0] ? "group " : "all ranks", pg, mine,
                                        ref->rank, ref->path, theirs));
    }
}

void
wl_inspect_compare_sequences (WlInspectReport *report)
{
  guint n_ranks = report->ranks->len;
  g_autofree GHashTable **by = g_new0 (GHashTable *, MAX (n_ranks, 1u));
  /* The groups in order of first appearance (rank by rank, file order),
   * all ranks first. */
  g_autoptr (GPtrArray) groups = g_ptr_array_new ();
  g_autoptr (GHashTable) known = g_hash_table_new (g_str_hash, g_str_equal);
  g_ptr_array_add (groups, (gpointer) "");
  g_hash_table_add (known, (gpointer) "");
  for (guint i = 0; i < n_ranks; i++)
    {
      const RankInfo *r = &g_array_index (report->ranks, RankInfo, i);
      by[i] = colls_by_group (r);
      for (guint k = 0; k < r->colls->len; k++)
        {
          char *pg = g_array_index (r->colls, CollEntry, k).pg;
          if (g_hash_table_add (known, pg))
            g_ptr_array_add (groups, pg);
        }
    }
  for (guint g = 0; g < groups->len; g++)
    compare_group (report, by, groups->pdata[g]);
  for (guint i = 0; i < n_ranks; i++)
    g_hash_table_unref (by[i]);
}

guint
wl_inspect_report_n_ranks (const WlInspectReport *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->ranks->len;
}

const WlInspectRank *
wl_inspect_report_rank (const WlInspectReport *r, guint i)
{
  g_return_val_if_fail (r != NULL && i < r->figures->len, NULL);
  return &g_array_index (r->figures, WlInspectRank, i);
}

guint
wl_inspect_report_n_defects (const WlInspectReport *r)
{
  g_return_val_if_fail (r != NULL, 0);
  return r->defects->len;
}

const char *
wl_inspect_report_defect (const WlInspectReport *r, guint i)
{
  g_return_val_if_fail (r != NULL && i < r->defects->len, NULL);
  return g_ptr_array_index (r->defects, i);
}

static const char *const type_names[WL_INSPECT_N_TYPES] = {
  "INVALID", "METADATA", "MEM_LOAD", "MEM_STORE", "COMP", "COMM_SEND", "COMM_RECV", "COMM_COLL",
  "unknown"
};

static void
print_figures (const WlInspectRank *f, FILE *out)
{
  guint64 total = 0;
  for (int t = 0; t < WL_INSPECT_N_TYPES; t++)
    total += f->nodes[t];
  fprintf (out, "%" G_GUINT64_FORMAT " nodes (", total);
  const char *sep = "";
  for (int t = 0; t < WL_INSPECT_N_TYPES; t++)
    if (f->nodes[t] > 0)
      {
        fprintf (out, "%s%s %" G_GUINT64_FORMAT, sep, type_names[t], f->nodes[t]);
        sep = ", ";
      }
  fprintf (out, "), compute %" G_GUINT64_FORMAT " us", f->compute_micros);
  /* A generated trace's durations are 0 or a roofline: under the kernel
   * model its kernel lists price the compute, which "compute 0 us" hid. */
  if (f->kernel_nodes > 0)
    fprintf (out, " in durations (%" G_GUINT64_FORMAT " compute node%s list%s kernels, which the "
             "kernel model prices instead)", f->kernel_nodes, f->kernel_nodes == 1 ? "" : "s",
             f->kernel_nodes == 1 ? "s" : "");
  for (int k = 0; k < WL_INSPECT_N_COLLS; k++)
    if (f->coll_count[k] > 0)
      {
        const char *name = k < WL_INSPECT_COLL_OTHER ? wl_chakra_comm_type_name (k) : NULL;
        fprintf (out, ", %s x%" G_GUINT64_FORMAT " %" G_GUINT64_FORMAT " bytes",
                 name ? name : "other", f->coll_count[k], f->coll_bytes[k]);
      }
  if (f->peak_memory_B > 0)
    fprintf (out, ", peak memory %.2f GiB (peak_memory_bytes)",
             (double) f->peak_memory_B / (1024.0 * 1024.0 * 1024.0));
  fputc ('\n', out);
}

/* Print the ranks in GROUP as "rank 3" or "ranks 0-3,5". */
static void
print_ranks (const WlInspectReport *r, const GArray *group, FILE *out)
{
  fputs (group->len == 1 ? "rank " : "ranks ", out);
  for (guint i = 0; i < group->len;)
    {
      guint j = i;
      guint32 first = g_array_index (r->ranks, RankInfo, g_array_index (group, guint, i)).rank;
      while (j + 1 < group->len
             && g_array_index (r->ranks, RankInfo, g_array_index (group, guint, j + 1)).rank
                    == first + (j + 1 - i))
        j++;
      fprintf (out, "%s%u", i > 0 ? "," : "", first);
      if (j > i)
        fprintf (out, "-%u", first + (j - i));
      i = j + 1;
    }
}

void
wl_inspect_report_print (const WlInspectReport *r, FILE *out)
{
  g_return_if_fail (r != NULL && out != NULL);
  guint n = r->ranks->len;
  fprintf (out, "%u file%s\n", n, n == 1 ? "" : "s");
  g_autofree guint8 *done = g_new0 (guint8, MAX (n, 1u));
  g_autoptr (GArray) group = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < n; i++)
    {
      if (done[i])
        continue;
      const WlInspectRank *fi = &g_array_index (r->figures, WlInspectRank, i);
      g_array_set_size (group, 0);
      for (guint j = i; j < n; j++)
        if (!done[j] && memcmp (fi, &g_array_index (r->figures, WlInspectRank, j), sizeof *fi) == 0)
          {
            done[j] = 1;
            g_array_append_val (group, j);
          }
      print_ranks (r, group, out);
      fputs (": ", out);
      print_figures (fi, out);
    }
  for (guint i = 0; i < r->defects->len; i++)
    {
      g_autofree char *defect = sim_printable (g_ptr_array_index (r->defects, i), FALSE);
      fprintf (out, "defect: %s\n", defect);
    }
  fprintf (out, "%u defect%s\n", r->defects->len, r->defects->len == 1 ? "" : "s");
}

void
wl_inspect_report_free (WlInspectReport *r)
{
  if (r == NULL)
    return;
  if (r->ranks != NULL)
    g_array_unref (r->ranks);
  if (r->figures != NULL)
    g_array_unref (r->figures);
  if (r->defects != NULL)
    g_ptr_array_unref (r->defects);
  wl_group_memo_free (r->groups);
  if (r->group_first != NULL)
    g_hash_table_unref (r->group_first);
  g_free (r);
}
