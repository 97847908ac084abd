/* deps.c: dependency resolution and cycle search shared by graph loading,
 * streaming and the inspector. */
#include "workload/deps.h"

#include <stdlib.h>
#include <string.h>

#include "workload/idmap.h"
#include "workload/wl_alloc.h"
#include "workload/wl_error.h"

gboolean
wl_trace_id_error (const char *path, guint64 id, guint32 n_nodes, GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: node %" G_GUINT64_FORMAT ": %s", path, id,
               n_nodes == G_MAXUINT32 - 1 ? "too many nodes in one trace"
                                          : "the id appears twice in the trace (duplicate id)");
  return FALSE;
}

void
wl_dangling_error (const char *path, guint64 child, guint64 parent, const char *why,
                   GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: node %" G_GUINT64_FORMAT " depends on node %" G_GUINT64_FORMAT
               ", which is not in the trace (dangling dependency)%s",
               path, child, parent, why != NULL ? why : "");
}

void
wl_cycle_describe (GString *out, const guint64 *ids, guint32 len)
{
  g_return_if_fail (out != NULL && ids != NULL && len > 0);
  g_string_append_printf (out, "dependency cycle through %u node%s: ", len, len == 1 ? "" : "s");
  for (guint32 i = 0; i < len && i < WL_CYCLE_MAX_IDS; i++)
    g_string_append_printf (out, "%" G_GUINT64_FORMAT " -> ", ids[i]);
  if (len > WL_CYCLE_MAX_IDS)
    g_string_append (out, "... -> ");
  g_string_append_printf (out, "%" G_GUINT64_FORMAT " (each depends on the next)", ids[0]);
}

gboolean
wl_cycle_search (guint32 n, const guint32 *start, const guint32 *target,
                 WlCycleFunc on_cycle, gpointer data, GError **error)
{
  g_return_val_if_fail (start != NULL && on_cycle != NULL, FALSE);
  const char *what = "the dependency cycle search";
  /* Per node: 0 new, 1 on the path, 2 done; its position on the path; the
   * path; the next dependency to follow. */
  g_autofree guint8 *state = sim_try_alloc (n, 1, TRUE, what, error);
  g_autofree guint32 *pos = state ? sim_try_alloc (n, 4, FALSE, what, error) : NULL;
  g_autofree guint32 *stack = pos ? sim_try_alloc (n, 4, FALSE, what, error) : NULL;
  g_autofree guint32 *next = stack ? sim_try_alloc (n, 4, FALSE, what, error) : NULL;
  if (next == NULL)
    return FALSE;
  for (guint32 root = 0; root < n; root++)
    {
      if (state[root] != 0)
        continue;
      guint32 top = 0;
      stack[top++] = root;
      state[root] = 1;
      pos[root] = 0;
      next[root] = start[root];
      while (top > 0)
        {
          guint32 v = stack[top - 1];
          if (next[v] == start[v + 1])
            {
              state[v] = 2;
              top--;
              continue;
            }
          guint32 k = next[v]++;
          guint32 w = target[k];
          if (w == WL_CYCLE_NO_NODE)
            continue;
          if (state[w] == 1)
            {
              if (!on_cycle (data, k, stack + pos[w], top - pos[w]))
                return FALSE;
            }
          else if (state[w] == 0)
            {
              state[w] = 1;
              pos[w] = top;
              next[w] = start[w];
              stack[top++] = w;
            }
        }
    }
  return TRUE;
}


gboolean
wl_cycle_error (const char *path, const guint64 *ids, guint32 len, const char *why,
                GError **error)
{
  g_autoptr (GString) text = g_string_new (NULL);
  wl_cycle_describe (text, ids, len);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: %s%s", path, text->str,
               why != NULL ? why : "");
  return FALSE;
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

void
wl_deps_unique (const ChakraProtoMsg__Node *n, GArray *out, GArray *sorted)
{
  g_array_set_size (out, 0);
  g_array_append_vals (out, n->data_deps, n->n_data_deps);
  g_array_append_vals (out, n->ctrl_deps, n->n_ctrl_deps);
  guint64 *ids = (guint64 *) out->data;
  guint len = out->len, kept = 0;
  if (len <= 16)
    {
      for (guint i = 0; i < len; i++)
        {
          guint j = 0;
          while (j < kept && ids[j] != ids[i])
            j++;
          if (j == kept)
            ids[kept++] = ids[i];
        }
    }
  else
    {
      /* Sorted copy, each id marked as taken at its first place. */
      g_array_set_size (sorted, 0);
      g_array_append_vals (sorted, ids, len);
      qsort (sorted->data, len, sizeof (guint64), cmp_u64);
      g_autofree guint8 *taken = g_malloc0 (len);
      const guint64 *s = (const guint64 *) sorted->data;
      for (guint i = 0; i < len; i++)
        {
          const guint64 *hit = bsearch (&ids[i], s, len, sizeof (guint64), cmp_u64);
          while (hit > s && hit[-1] == ids[i])
            hit--;
          if (taken[hit - s])
            continue;
          taken[hit - s] = 1;
          ids[kept++] = ids[i];
        }
    }
  g_array_set_size (out, kept);
}

/* The path found by wl_cycle_reach: START first, then from TARGET back
 * along FROM (each node's discoverer) to START, exclusive. */
static void
reach_path (WlIdMap *from, guint32 start, guint32 target, GArray *path)
{
  g_array_append_val (path, start);
  for (guint32 w = target; w != start; wl_id_map_lookup (from, w, &w))
    g_array_append_val (path, w);
}

gboolean
wl_cycle_reach (const guint32 *starts, guint n_starts, guint32 target,
                WlDependentsFunc dependents, gpointer data, GArray *path, GError **error)
{
  g_autoptr (WlIdMap) from = wl_id_map_new ("the cycle search");
  g_autoptr (GArray) stack = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GArray) next = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < n_starts; i++)
    {
      guint32 start = starts[i];
      if (wl_id_map_lookup (from, start, NULL))
        continue;
      if (!wl_id_map_insert (from, start, start, error))
        return FALSE;
      g_array_set_size (stack, 0);
      g_array_append_val (stack, start);
      while (stack->len > 0)
        {
          guint32 v = g_array_index (stack, guint32, stack->len - 1);
          g_array_set_size (stack, stack->len - 1);
          if (v == target)
            {
              reach_path (from, start, target, path);
              return TRUE;
            }
          g_array_set_size (next, 0);
          dependents (data, v, next);
          for (guint j = 0; j < next->len; j++)
            {
              guint32 c = g_array_index (next, guint32, j);
              if (wl_id_map_lookup (from, c, NULL))
                continue;
              if (!wl_id_map_insert (from, c, v, error))
                return FALSE;
              g_array_append_val (stack, c);
            }
        }
    }
  return FALSE;
}
