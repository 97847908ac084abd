/* lenient.c: the counters of what lenient loading dropped, and their wording. */
#include "workload/lenient.h"

void
wl_lenient_stats_add (WlLenientStats *a, const WlLenientStats *b)
{
  g_return_if_fail (a != NULL && b != NULL);
  a->dangling_deps_dropped += b->dangling_deps_dropped;
  a->cycle_edges_dropped += b->cycle_edges_dropped;
  a->colls_skipped += b->colls_skipped;
  a->valueless_attrs_ignored += b->valueless_attrs_ignored;
  a->duplicate_nodes_dropped += b->duplicate_nodes_dropped;
  a->truncated_frames += b->truncated_frames;
  a->headerless_files += b->headerless_files;
}

guint64
wl_lenient_stats_total (const WlLenientStats *s)
{
  g_return_val_if_fail (s != NULL, 0);
  return s->dangling_deps_dropped + s->cycle_edges_dropped + s->colls_skipped
         + s->valueless_attrs_ignored + s->duplicate_nodes_dropped + s->truncated_frames
         + s->headerless_files;
}

/* Append ", N WHAT" (WHAT or PLURAL by N) when N > 0. */
static void
describe_count (GString *out, guint64 n, const char *what, const char *plural)
{
  if (n == 0)
    return;
  g_string_append_printf (out, "%s%" G_GUINT64_FORMAT " %s", out->len > 0 ? ", " : "", n,
                          n == 1 ? what : plural);
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
  describe_count (items, s->dangling_deps_dropped, "dangling dependency dropped",
                  "dangling dependencies dropped");
  describe_count (items, s->cycle_edges_dropped, "dependency closing a cycle dropped",
                  "dependencies closing cycles dropped");
  describe_count (items, s->colls_skipped, "collective without comm_type/comm_size skipped",
                  "collectives without comm_type/comm_size skipped");
  describe_count (items, s->valueless_attrs_ignored, "valueless attribute ignored",
                  "valueless attributes ignored");
  describe_count (items, s->duplicate_nodes_dropped, "node with a repeated id dropped",
                  "nodes with repeated ids dropped");
  describe_count (items, s->truncated_frames, "truncated last frame dropped",
                  "truncated last frames dropped");
  describe_count (items, s->headerless_files, "headerless (pre-2024) file read",
                  "headerless (pre-2024) files read");
  g_string_append_printf (out, "lenient: %s (orrery inspect names them)", items->str);
}
