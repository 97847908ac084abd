/* test_node_source.c: the in-memory node source (replay_mem.c) and the
 * arrays it lends the replay core (replay_source.h): once its rank starts,
 * node i and its state byte are read in place, and they are the very ones
 * the source's class answers with; before the start it lends nothing and
 * the core's readers go through the class.
 *
 * The trace is a hand-made chain with one fork: node 1 (10 us), then 2 and
 * 3 both after 1, then 4 after 2 and 3.  Its ready nodes are worked out by
 * hand: at the start node 1 alone (the one without parents); 1's end frees
 * 2 and 3; 2's end alone frees nothing (4 waits for 3); 3's end frees 4.
 */
#include <check.h>

#include "support/testutil.h"
#include "workload/graph.h"
#include "workload/replay_source.h"

typedef struct
{
  guint32 ready[8];
  guint n;
} Readied;

static void
note_ready (gpointer data, guint32 index)
{
  Readied *r = data;
  ck_assert_uint_lt (r->n, G_N_ELEMENTS (r->ready));
  r->ready[r->n++] = index;
}

/* The fork above as rank 0's trace under tu_scratch; its graph. */
static WlGraph *
fork_graph (void)
{
  g_autofree char *prefix = tu_scratch_path ("fork");
  ChakraProtoMsg__Node *n1 = tu_comp (1, 10);
  ChakraProtoMsg__Node *n2 = tu_comp (2, 1);
  ChakraProtoMsg__Node *n3 = tu_comp (3, 2);
  ChakraProtoMsg__Node *n4 = tu_comp (4, 3);
  tu_node_dep (n2, 1);
  tu_node_dep (n3, 1);
  tu_node_dep (n4, 2);
  tu_node_dep (n4, 3);
  ChakraProtoMsg__Node *nodes[] = { n1, n2, n3, n4 };
  tu_write_rank (prefix, 0, nodes, 4);
  g_autofree char *path = g_strdup_printf ("%s.0.et", prefix);
  GError *error = NULL;
  WlGraph *g = wl_graph_load (path, &error);
  ck_assert_msg (g != NULL, "%s", error != NULL ? error->message : "");
  ck_assert_uint_eq (g->n_nodes, 4);
  return g;
}

/* An in-memory source over the fork, its ready nodes noted in R. */
static WlNodeSource *
fork_source (Readied *r)
{
  GError *error = NULL;
  WlNodeSource *src = wl_mem_source_new (fork_graph (), 0, TRUE, &error);
  ck_assert_ptr_nonnull (src);
  *r = (Readied) { 0 };
  src->ready = note_ready;
  src->ready_data = r;
  return src;
}

START_TEST (test_lends_after_start)
{
  GError *error = NULL;
  Readied r;
  WlNodeSource *src = fork_source (&r);
  /* Before the start: the states lent (the class's own array, which a
   * rank that classes do not simulate is copied into), the nodes not:
   * their reader goes through the class. */
  ck_assert_ptr_null (src->nodes);
  ck_assert_ptr_eq (src->states, src->klass->state (src, 0));
  ck_assert_ptr_eq (wl_node_source_node (src, 3), src->klass->node (src, 3));
  ck_assert_ptr_eq (wl_node_source_state (src, 3), src->klass->state (src, 3));
  ck_assert (src->klass->start (src, 0, &error));
  ck_assert_ptr_nonnull (src->nodes);
  ck_assert_ptr_nonnull (src->states);
  for (guint32 v = 0; v < src->n_nodes; v++)
    {
      ck_assert_ptr_eq (wl_node_source_node (src, v), src->klass->node (src, v));
      ck_assert_ptr_eq (wl_node_source_state (src, v), src->klass->state (src, v));
      ck_assert_uint_eq (wl_node_source_node (src, v)->id, v + 1);
    }
  /* A state written in place is the one the class reads. */
  *wl_node_source_state (src, 2) = NODE_DONE;
  ck_assert_uint_eq (*src->klass->state (src, 2), NODE_DONE);
  ck_assert_uint_eq (r.n, 1);
  ck_assert_uint_eq (r.ready[0], 0);
  wl_node_source_free (src);
}
END_TEST

/* Releases through the lent arrays' source make ready what the hand count
 * says, in file order. */
START_TEST (test_releases)
{
  GError *error = NULL;
  Readied r;
  WlNodeSource *src = fork_source (&r);
  ck_assert (src->klass->start (src, 0, &error));
  ck_assert (src->klass->release (src, 0, 0, &error));
  ck_assert_uint_eq (r.n, 3);
  ck_assert_uint_eq (r.ready[1], 1);
  ck_assert_uint_eq (r.ready[2], 2);
  ck_assert (src->klass->release (src, 1, 0, &error));
  ck_assert_uint_eq (r.n, 3);
  ck_assert (src->klass->release (src, 2, 0, &error));
  ck_assert_uint_eq (r.n, 4);
  ck_assert_uint_eq (r.ready[3], 3);
  wl_node_source_free (src);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("node_source");
  TCase *tc = tu_tcase (s, "mem", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_lends_after_start);
  tcase_add_test (tc, test_releases);
  return tu_run_suite (s);
}
