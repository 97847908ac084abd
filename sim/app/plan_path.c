/* plan_path.c: the critical path grouped by node name; see plan_path.h. */
#include "sim/app/plan_path.h"

#include <string.h>

#include "sim/printable.h"
#include "sim/units.h"
#include "system/sys.h"
#include "workload/critpath.h"

/* One name (and kind) on the path. */
typedef struct
{
  const char *name; /* borrowed from the rank's graph */
  WlOp op;
  guint steps;
  SimTime total, longest, first; /* first: where it first appears, for ties */
} PathGroup;

static gint
by_total (gconstpointer a, gconstpointer b)
{
  const PathGroup *x = a, *y = b;
  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  return (x->first > y->first) - (x->first < y->first);
}

static const char *
kind_name (WlOp op)
{
  static const char *const names[] = { "other", "compute", "cpu", "collective", "send",
                                       "receive", "memory" };
  return (guint) op < G_N_ELEMENTS (names) ? names[op] : "other";
}

gboolean
plan_path_print (const AppSim *sim, guint top, FILE *out, GError **error)
{
  const WlReplay *replay = app_sim_replay (sim);
  g_autoptr (WlCritPath) path = wl_critical_path (
      replay, sys_params (app_sim_sys (sim))->rendezvous_threshold, error);
  if (path == NULL)
    return FALSE;
  g_autoptr (GArray) groups = g_array_new (FALSE, FALSE, sizeof (PathGroup));
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < path->len; i++)
    {
      const WlCritStep *st = &path->steps[i];
      const WlGraph *g = wl_replay_graph (replay, st->rank);
      const char *name = g->names[st->index] != NULL ? g->names[st->index] : "";
      WlOp op = g->nodes[st->index].op;
      g_autofree char *key = g_strdup_printf ("%d:%s", (int) op, name);
      gpointer at;
      if (!g_hash_table_lookup_extended (index, key, NULL, &at))
        {
          at = GUINT_TO_POINTER (groups->len);
          g_array_append_val (groups, ((PathGroup) { .name = name, .op = op, .first = st->from }));
          g_hash_table_insert (index, g_steal_pointer (&key), at);
        }
      PathGroup *pg = &g_array_index (groups, PathGroup, GPOINTER_TO_UINT (at));
      pg->steps++;
      pg->total += st->to - st->from;
      pg->longest = MAX (pg->longest, st->to - st->from);
    }
  g_array_sort (groups, by_total);
  SimTime length = path->len ? path->steps[path->len - 1].to : 0;
  g_autofree char *len_s = sim_units_format_time (length);
  fprintf (out, "critical path: %s in %u steps of %u names; by name, the most time first:\n",
           len_s, path->len, groups->len);
  fprintf (out, "  %-24s %-11s %6s %14s %14s %7s\n", "name", "type", "steps", "total", "longest",
           "share");
  for (guint i = 0; i < MIN (top, groups->len); i++)
    {
      const PathGroup *pg = &g_array_index (groups, PathGroup, i);
      g_autofree char *shown = sim_printable (pg->name, FALSE);
      g_autofree char *total = sim_units_format_time (pg->total);
      g_autofree char *longest = sim_units_format_time (pg->longest);
      fprintf (out, "  %-24s %-11s %6u %14s %14s %6.1f%%\n", shown, kind_name (pg->op), pg->steps,
               total, longest, length > 0 ? 100.0 * (double) pg->total / (double) length : 0.0);
    }
  if (groups->len > top)
    fprintf (out, "  ... %u more names\n", groups->len - top);
  return TRUE;
}
