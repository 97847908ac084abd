/* lenient.c: the counters of what lenient loading dropped, and their wording. */
#include "workload/lenient.h"

#include <stddef.h>

/* Every counter, in the order the summary names them, with its words for
 * one and for several. */
static const struct
{
  size_t offset;
  const char *one, *many;
} counters[] = {
  { offsetof (WlLenientStats, dangling_deps_dropped), "dangling dependency dropped",
    "dangling dependencies dropped" },
  { offsetof (WlLenientStats, cycle_edges_dropped), "dependency closing a cycle dropped",
    "dependencies closing cycles dropped" },
  { offsetof (WlLenientStats, colls_skipped), "collective without comm_type/comm_size skipped",
    "collectives without comm_type/comm_size skipped" },
  { offsetof (WlLenientStats, valueless_attrs_ignored), "valueless attribute ignored",
    "valueless attributes ignored" },
  { offsetof (WlLenientStats, duplicate_nodes_dropped), "node with a repeated id dropped",
    "nodes with repeated ids dropped" },
  { offsetof (WlLenientStats, truncated_frames), "truncated last frame dropped",
    "truncated last frames dropped" },
  { offsetof (WlLenientStats, headerless_files), "headerless (pre-2024) file read",
    "headerless (pre-2024) files read" },
};

/* Every field of WlLenientStats is a counter in the table. */
G_STATIC_ASSERT (sizeof (WlLenientStats) == G_N_ELEMENTS (counters) * sizeof (guint64));

static guint64 *
counter (WlLenientStats *s, guint i)
{
  return (guint64 *) ((guint8 *) s + counters[i].offset);
}

static guint64
counter_value (const WlLenientStats *s, guint i)
{
  return *(const guint64 *) ((const guint8 *) s + counters[i].offset);
}

void
wl_lenient_stats_add (WlLenientStats *a, const WlLenientStats *b)
{
  g_return_if_fail (a != NULL && b != NULL);
  for (guint i = 0; i < G_N_ELEMENTS (counters); i++)
    *counter (a, i) += counter_value (b, i);
}

guint64
wl_lenient_stats_total (const WlLenientStats *s)
{
  g_return_val_if_fail (s != NULL, 0);
  guint64 total = 0;
  for (guint i = 0; i < G_N_ELEMENTS (counters); i++)
    total += counter_value (s, i);
  return total;
}

void
wl_lenient_stats_describe (const WlLenientStats *s, GString *out)
{
  g_return_if_fail (s != NULL && out != NULL);
  if (wl_lenient_stats_total (s) == 0)
    {
      g_string_append (out, "lenient: the traces were clean");
      return;
    }
  g_autoptr (GString) items = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (counters); i++)
    {
      guint64 n = counter_value (s, i);
      if (n > 0)
        g_string_append_printf (items, "%s%" G_GUINT64_FORMAT " %s", items->len > 0 ? ", " : "",
                                n, n == 1 ? counters[i].one : counters[i].many);
    }
  g_string_append_printf (out, "lenient: %s (orrery inspect names them)", items->str);
}
