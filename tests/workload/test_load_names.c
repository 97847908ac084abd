/* test_load_names.c: node names as a strict load keeps them (graph.c
 * interns each name once, remembering the names it met lately by a few of
 * their bytes).  A trace whose names repeat, differ in length, and share
 * the bytes that place them (first, middle and last byte and length: the
 * same slot) or are empty loads with every node's own name, equal names
 * as one string.  Expected names are the ones written, by hand.
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/graph.h"

START_TEST (test_names_repeat)
{
  static const char *const names[] = {
    "attn_fwd", "tp_all_gather", "attn_fwd", "axxxb", "ayxxb", "axxxb", "",
    "mlp", "mlp_fwd", "mlp", "", "ayxxb", "tp_all_gather", "a", "a", "attn_fwd",
  };
  guint n = G_N_ELEMENTS (names);
  ChakraProtoMsg__Node *nodes[G_N_ELEMENTS (names)];
  for (guint i = 0; i < n; i++)
    {
      nodes[i] = tu_node_new (i + 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, names[i]);
      nodes[i]->duration_micros = 1;
      if (i > 0)
        tu_node_dep (nodes[i], i);
    }
  g_autofree char *prefix = tu_scratch_path ("names");
  tu_write_rank (prefix, 0, nodes, n);
  g_autofree char *path = g_strdup_printf ("%s.0.et", prefix);
  g_autoptr (WlGraph) g = wl_graph_load (path, NULL);
  ck_assert_ptr_nonnull (g);
  ck_assert_uint_eq (g->n_nodes, n);
  for (guint i = 0; i < n; i++)
    {
      ck_assert_str_eq (g->names[i], names[i]);
      for (guint j = 0; j < i; j++)
        if (strcmp (names[i], names[j]) == 0)
          ck_assert_ptr_eq (g->names[i], g->names[j]); /* one copy of each name */
        else
          ck_assert_ptr_ne (g->names[i], g->names[j]);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("load_names");
  TCase *tc = tu_tcase (s, "load_names", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_names_repeat);
  return tu_run_suite (s);
}
