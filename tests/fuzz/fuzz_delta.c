/* fuzz_delta.c: libFuzzer target for reading a trace against an earlier
 * one (workload/graph_delta.c: wl_graph_delta, and the compact graphs it
 * makes: workload/graph_patch.c, the rename tables), differentially: each
 * graph the delta gives is compared, node by node and in everything else
 * graph.h promises, with the strict load of the same bytes, and the
 * target aborts where they differ or where the delta accepts bytes the
 * load refuses.
 *
 * Input: up to four trace files, each as a two-byte little-endian length
 * then that many bytes (the last file takes what is left when its length
 * runs past the end).  File 0 is loaded; each later one is read against
 * the graph of the one before it (the delta's graph when it gave one, else
 * the full load's), as the graph cache reads each file against the last
 * of its length, so that a frame_names handed on from one delta to the
 * next is exercised too.  The seeds are consecutive ranks of generated
 * trace sets (tests/fuzz/make-corpus), which differ only in the ranks and
 * groups they name.
 *
 * Layer: tests.  May include: workload, GLib.
 */
#include <string.h>

#include "fuzz_common.h"
#include "workload/graph.h"
#include "workload/kernels.h"

#define MAX_FILES 4

/* Abort naming the field and node V where the delta and the load differ. */
#define SAME(what, a, b, v)                                                                     \
  do                                                                                            \
    {                                                                                           \
      if ((a) != (b))                                                                           \
        g_error ("fuzz: delta and load differ in %s at node %u: %" G_GUINT64_FORMAT            \
                 " != %" G_GUINT64_FORMAT, what, (guint) (v), (guint64) (a), (guint64) (b));    \
    }                                                                                           \
  while (0)

/* The fields of a node that the delta must reproduce (both unions read
 * through every member, so any difference in their bits shows). */
static void
same_node (const WlNode *x, const WlNode *y, guint32 v)
{
  SAME ("id", x->id, y->id, v);
  SAME ("duration_ps", x->duration_ps, y->duration_ps, v);
  SAME ("num_ops", x->num_ops, y->num_ops, v);
  SAME ("bytes", x->bytes, y->bytes, v);
  SAME ("group", x->group, y->group, v);
  SAME ("peer_src", x->peer_src, y->peer_src, v);
  SAME ("peer_dst", x->peer_dst, y->peer_dst, v);
  SAME ("tag", x->tag, y->tag, v);
  SAME ("priority", x->priority, y->priority, v);
  SAME ("involved", x->involved, y->involved, v);
  SAME ("root", x->root, y->root, v);
  SAME ("op", x->op, y->op, v);
  SAME ("coll_kind", x->coll_kind, y->coll_kind, v);
  SAME ("chakra_type", x->chakra_type, y->chakra_type, v);
  SAME ("comm_stream", x->comm_stream, y->comm_stream, v);
  SAME ("n_parents", x->n_parents, y->n_parents, v);
  SAME ("n_children", x->n_children, y->n_children, v);
  SAME ("child_start", x->child_start, y->child_start, v);
}

/* The process groups, kernel lists, exchanges and facts: the delta's
 * are its base's, which must be what the load of its own bytes finds. */
static void
same_tables (const WlGraph *d, const WlGraph *full)
{
  SAME ("group_defs", d->group_defs->len, full->group_defs->len, 0);
  for (guint i = 0; i < d->group_defs->len; i++)
    {
      const WlGroupDef *a = &g_array_index (d->group_defs, WlGroupDef, i);
      const WlGroupDef *b = &g_array_index (full->group_defs, WlGroupDef, i);
      SAME ("group id", a->id, b->id, i);
      SAME ("group size", a->ranks->len, b->ranks->len, i);
      if (a->ranks->len > 0
          && memcmp (a->ranks->data, b->ranks->data, a->ranks->len * sizeof (guint32)) != 0)
        g_error ("fuzz: delta and load differ in the ranks of group %u", i);
    }
  if (!wl_kernel_lists_equal (d->kernels, full->kernels))
    g_error ("fuzz: delta and load differ in their kernel lists");
  SAME ("exchanges", d->exchanges->len, full->exchanges->len, 0);
  for (guint i = 0; i < d->exchanges->len; i++)
    if (strcmp (g_ptr_array_index (d->exchanges, i), g_ptr_array_index (full->exchanges, i)) != 0)
      g_error ("fuzz: delta and load differ in exchange name %u", i);
  SAME ("tokens_per_iteration", d->facts.tokens_per_iteration,
        full->facts.tokens_per_iteration, 0);
  if (memcmp (&d->facts.model_flops, &full->facts.model_flops, sizeof (double)) != 0
      || g_strcmp0 (d->facts.flops_formula, full->facts.flops_formula) != 0)
    g_error ("fuzz: delta and load differ in the trace's facts");
}

/* D (the delta's graph) against FULL (the load of the same bytes): what
 * graph.h promises, read through wl_graph_node_at while D is compact,
 * then again once it is expanded. */
static void
same_graph (WlGraph *d, const WlGraph *full)
{
  SAME ("n_nodes", d->n_nodes, full->n_nodes, 0);
  SAME ("n_roots", d->n_roots, full->n_roots, 0);
  SAME ("n_streams", d->n_streams, full->n_streams, 0);
  SAME ("n_skipped_unknown", d->n_skipped_unknown, full->n_skipped_unknown, 0);
  SAME ("load_peak", d->load_peak, full->load_peak, 0);
  if (strcmp (d->path, full->path) != 0)
    g_error ("fuzz: the delta's path '%s' is not '%s'", d->path, full->path);
  WlNode tmp;
  guint32 hint = 0, ghint = 0, rhint = 0;
  guint64 n_children = 0;
  for (guint32 v = 0; v < d->n_nodes; v++)
    {
      const WlNode *f = &full->nodes[v];
      same_node (wl_graph_node_at (d, v, &hint, &tmp), f, v);
      if (f->op == WL_OP_COLL)
        {
          SAME ("group index", wl_graph_group_index_at (d, v, &ghint), f->sys_group_index, v);
          SAME ("root", wl_graph_root_at (d, v, &rhint), f->root, v);
        }
      if (strcmp (d->names[v], full->names[v]) != 0)
        g_error ("fuzz: delta and load differ in the name of node %u", v);
      n_children += f->n_children;
    }
  if (n_children > 0
      && memcmp (d->children, full->children, n_children * sizeof (guint32)) != 0)
    g_error ("fuzz: delta and load differ in their dependencies");
  same_tables (d, full);
  GError *error = NULL;
  if (!wl_graph_expand (d, &error))
    g_error ("fuzz: expanding the delta's graph: %s", error->message);
  for (guint32 v = 0; v < d->n_nodes; v++)
    same_node (&d->nodes[v], &full->nodes[v], v);
}

/* The strict load of BYTES (LEN of them) as PATH, or NULL. */
static WlGraph *
load (const char *path, const uint8_t *bytes, size_t len)
{
  WlGraphLoad req = { .path = path, .limit = G_MAXUINT64, .bytes = bytes, .n_bytes = len };
  GError *error = NULL;
  WlGraph *g = wl_graph_load_request (&req, &error);
  g_clear_error (&error);
  return g;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  WlGraph *prev = NULL;
  const uint8_t *prev_bytes = NULL;
  size_t prev_len = 0;
  for (guint i = 0; i < MAX_FILES && size >= 2; i++)
    {
      size_t len = MIN ((size_t) data[0] | (size_t) data[1] << 8, size - 2);
      const uint8_t *bytes = data + 2;
      data += 2 + len;
      size -= 2 + len;
      char name[32];
      g_snprintf (name, sizeof name, "t.%u.et", i);
      char *path = fuzz_write (name, bytes, len);
      WlGraph *full = load (path, bytes, len);
      WlGraph *d = prev != NULL ? wl_graph_delta (prev, prev_bytes, prev_len, path, bytes, len)
                                : NULL;
      if (d != NULL && full == NULL)
        g_error ("fuzz: the delta read file %u, which the load refuses", i);
      if (d != NULL)
        same_graph (d, full);
      fuzz_remove_tree (path);
      g_free (path);
      wl_graph_unref (prev);
      prev = d != NULL ? d : full;
      if (d != NULL)
        wl_graph_unref (full);
      prev_bytes = bytes;
      prev_len = len;
      if (prev == NULL)
        break;
    }
  wl_graph_unref (prev);
  return 0;
}
