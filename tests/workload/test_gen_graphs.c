/* test_gen_graphs.c: the transformer generator's graphs made in memory
 * (wl_gen_transformer_graphs, what `orrery plan` simulates) against the
 * graphs of the files wl_gen_transformer writes, loaded as `orrery run`
 * loads them: every rank, every node, its dependents, name, groups and
 * kernel lists, over layouts that name ranks and groups in every way the
 * generator does (TP, DP, pipeline sends, CP ring exchanges, EP and
 * expert-DP groups, ZeRO, interleaving); the same simulated iteration
 * both ways; and wl_graph_renamed's moves and its error.
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "workload/gen_transformer.h"
#include "workload/graph.h"
#include "workload/kernels.h"
#include "workload/replay.h"
#include "workload/wl_error.h"
#include "support/testutil.h"

typedef struct
{
  const char *preset;
  guint32 tp, pp, dp, cp, ep, vstages, zero;
  gboolean dist_opt, no_sp;
  WlRecompute recompute;
} Layout;

static const Layout layouts[] = {
  { "llama2-7b", 2, 2, 2, 1, 0, 0, 0, FALSE, FALSE, WL_RECOMPUTE_NONE },
  { "llama2-7b", 2, 2, 2, 1, 0, 2, 0, TRUE, TRUE, WL_RECOMPUTE_SELECTIVE },
  { "llama2-7b", 2, 2, 1, 2, 0, 0, 1, FALSE, FALSE, WL_RECOMPUTE_FULL },
  { "llama2-7b", 1, 2, 4, 1, 0, 0, 3, FALSE, FALSE, WL_RECOMPUTE_NONE },
  { "mixtral-8x7b", 2, 1, 4, 1, 2, 0, 0, FALSE, FALSE, WL_RECOMPUTE_NONE },
};

/* A small request of layout L: 4 layers, short sequences. */
static WlGenTransformer
request_of (const Layout *l)
{
  WlGenTransformer req = { .model = *wl_transformer_preset (l->preset), .micro_batch = 1,
                           .tp = l->tp, .pp = l->pp, .dp = l->dp, .cp = l->cp, .ep = l->ep,
                           .virtual_stages = l->vstages, .zero = l->zero,
                           .distributed_optimizer = l->dist_opt,
                           .no_sequence_parallel = l->no_sp, .recompute = l->recompute };
  req.model.layers = 4;
  req.model.seq = 256;
  req.model.vocab = 1000;
  req.global_batch = 4 * l->dp;
  return req;
}

static void
assert_same_graph (const WlGraph *a, const WlGraph *b)
{
  ck_assert_str_eq (a->path, b->path);
  ck_assert_uint_eq (a->n_nodes, b->n_nodes);
  ck_assert_uint_eq (a->n_roots, b->n_roots);
  ck_assert_uint_eq (a->n_streams, b->n_streams);
  ck_assert_uint_eq (a->n_skipped_unknown, b->n_skipped_unknown);
  guint64 edges = 0;
  guint32 hint = 0;
  WlNode tmp;
  for (guint32 v = 0; v < a->n_nodes; v++)
    {
      /* A renamed rank's graph is compact: its nodes read through
       * wl_graph_node_at. */
      const WlNode *x = wl_graph_node_at (a, v, &hint, &tmp), *y = &b->nodes[v];
      tu_assert_same_node (x, y);
      if (x->op == WL_OP_COMP)
        {
          ck_assert_uint_eq (x->kernel_list, y->kernel_list);
          ck_assert_uint_eq (x->comp_flags, y->comp_flags);
        }
      ck_assert_uint_eq (x->child_start, y->child_start);
      ck_assert_uint_eq (x->n_children, y->n_children);
      ck_assert_uint_eq (x->n_parents, y->n_parents);
      ck_assert_str_eq (a->names[v], b->names[v]);
      edges += x->n_children;
    }
  if (edges > 0)
    ck_assert (memcmp (a->children, b->children, edges * sizeof (guint32)) == 0);
  ck_assert (wl_kernel_lists_equal (a->kernels, b->kernels));
  ck_assert_uint_eq (a->group_defs->len, b->group_defs->len);
  for (guint i = 0; i < a->group_defs->len; i++)
    {
      const WlGroupDef *x = &g_array_index (a->group_defs, WlGroupDef, i);
      const WlGroupDef *y = &g_array_index (b->group_defs, WlGroupDef, i);
      ck_assert_uint_eq (x->id, y->id);
      ck_assert_uint_eq (x->ranks->len, y->ranks->len);
      ck_assert (memcmp (x->ranks->data, y->ranks->data, x->ranks->len * sizeof (guint32)) == 0);
    }
  ck_assert (a->facts.model_flops == b->facts.model_flops);
  ck_assert_uint_eq (a->facts.tokens_per_iteration, b->facts.tokens_per_iteration);
}

/* Every rank's graph made in memory is the graph of its file. */
START_TEST (test_graphs_are_the_files)
{
  const Layout *l = &layouts[_i];
  WlGenTransformer req = request_of (l);
  g_autofree char *prefix = tu_scratch_path ("w");
  GError *error = NULL;
  ck_assert_msg (wl_gen_transformer (prefix, &req, &error), "%s", error ? error->message : "");
  g_autoptr (GPtrArray) graphs = wl_gen_transformer_graphs (prefix, &req, &error);
  ck_assert_msg (graphs != NULL, "%s", error ? error->message : "");
  guint32 ranks = l->tp * l->pp * l->dp * MAX (l->cp, 1u);
  ck_assert_uint_eq (graphs->len, ranks);
  guint renamed = 0;
  for (guint32 r = 0; r < ranks; r++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
      g_autoptr (WlGraph) file = wl_graph_load (path, &error);
      ck_assert_msg (file != NULL, "%s", error ? error->message : "");
      const WlGraph *mem = g_ptr_array_index (graphs, r);
      assert_same_graph (mem, file);
      renamed += mem->base != NULL;
    }
  /* One trace made per stage and CP index; the others renamed. */
  ck_assert_uint_eq (renamed, ranks - l->pp * MAX (l->cp, 1u));
}
END_TEST

/* The in-memory graphs simulate to the files' iteration, figure by figure
 * (the 2 x 4 ring grid of tu_assert_completes_2x4, 8 ranks). */
START_TEST (test_same_iteration)
{
  WlGenTransformer req = request_of (&layouts[1]);
  g_autofree char *prefix = tu_scratch_path ("w");
  GError *error = NULL;
  ck_assert (wl_gen_transformer (prefix, &req, &error));
  g_autoptr (GPtrArray) graphs = wl_gen_transformer_graphs (prefix, &req, &error);
  ck_assert (graphs != NULL);
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  for (int sym = 0; sym < 2; sym++)
    {
      g_autoptr (AppSim) files = app_sim_new (&cfg, prefix, &error);
      ck_assert_msg (files != NULL, "%s", error ? error->message : "");
      g_autoptr (AppSim) mem = app_sim_new_graphs (&cfg, NULL, prefix, graphs, &error);
      ck_assert_msg (mem != NULL, "%s", error ? error->message : "");
      app_sim_set_symmetry (files, sym);
      app_sim_set_symmetry (mem, sym);
      ck_assert (app_sim_run (files, &error));
      ck_assert (app_sim_run (mem, &error));
      ck_assert_uint_gt (app_sim_end_time (mem), 0);
      ck_assert_uint_eq (app_sim_end_time (mem), app_sim_end_time (files));
      for (guint32 r = 0; r < 8; r++)
        {
          const WlRankStats *x = wl_replay_rank_stats (app_sim_replay (mem), r);
          const WlRankStats *y = wl_replay_rank_stats (app_sim_replay (files), r);
          ck_assert_uint_eq (x->finish, y->finish);
          ck_assert_uint_eq (x->compute_busy, y->compute_busy);
          ck_assert_uint_eq (x->exposed_comm, y->exposed_comm);
        }
    }
  /* A topology of another size is refused, naming both counts. */
  cfg.net.dims[1].size = 2;
  g_autoptr (AppSim) bad = app_sim_new_graphs (&cfg, NULL, "cand", graphs, &error);
  ck_assert (bad == NULL);
  tu_assert_input_error (error, "cand: the workload has 8 ranks but the topology has 4");
  g_clear_error (&error);
  app_config_clear (&cfg);
}
END_TEST

/* wl_graph_renamed by hand: a send to 1 and a receive from 1 at rank 0,
 * and a collective on group 7, moved by 2 with 7 -> 9. */
START_TEST (test_renamed)
{
  ChakraProtoMsg__Node *nodes[3];
  for (guint i = 0; i < 3; i++)
    {
      nodes[i] = g_new0 (ChakraProtoMsg__Node, 1);
      chakra_proto_msg__node__init (nodes[i]);
      nodes[i]->id = i + 1;
      nodes[i]->name = g_strdup_printf ("n%u", i);
    }
  nodes[0]->type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE;
  tu_node_attr_int (nodes[0], "comm_src", 0);
  tu_node_attr_int (nodes[0], "comm_dst", 1);
  tu_node_attr_int (nodes[0], "comm_size", 64);
  nodes[1]->type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE;
  tu_node_attr_int (nodes[1], "comm_src", 1);
  tu_node_attr_int (nodes[1], "comm_dst", 0);
  tu_node_attr_int (nodes[1], "comm_size", 64);
  tu_node_dep (nodes[1], 1);
  nodes[2]->type = CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE;
  tu_node_attr_int (nodes[2], "comm_type", 0);
  tu_node_attr_int (nodes[2], "comm_size", 128);
  tu_node_attr_string (nodes[2], "pg_name", "7");
  tu_node_dep (nodes[2], 2);
  g_autofree char *path = tu_scratch_path ("r.et");
  tu_write_trace (path, nodes, 3);
  for (guint i = 0; i < 3; i++)
    tu_node_free (nodes[i]);
  GError *error = NULL;
  g_autoptr (WlGraph) base = wl_graph_load (path, &error);
  ck_assert (base != NULL);
  const guint64 map[] = { 5, 6, 7, 9 };
  g_autoptr (WlGraph) g = wl_graph_renamed (base, "moved.et", 2, map, 2, &error);
  ck_assert (g != NULL);
  ck_assert_str_eq (g->path, "moved.et");
  /* Compact: the names are a table of the base's (ranks 0 and 1 to 2
   * and 3, group 7 to 9), no patches and no node array until it is
   * expanded. */
  ck_assert_ptr_null (g->nodes);
  ck_assert_uint_eq (g->n_patches, 0);
  ck_assert_ptr_nonnull (g->table);
  ck_assert_uint_eq (g->table->rank_to[0], 2);
  ck_assert_uint_eq (g->table->rank_to[1], 3);
  ck_assert_uint_eq (g->table->group_to[0], 9);
  WlNode tmp;
  for (int expanded = 0; expanded < 2; expanded++)
    {
      const WlNode *n0 = wl_graph_node_at (g, 0, NULL, &tmp);
      ck_assert_uint_eq (n0->peer_src, 2);
      ck_assert_uint_eq (n0->peer_dst, 3);
      const WlNode *n1 = wl_graph_node_at (g, 1, NULL, &tmp);
      ck_assert_uint_eq (n1->peer_src, 3);
      ck_assert_uint_eq (n1->peer_dst, 2);
      const WlNode *n2 = wl_graph_node_at (g, 2, NULL, &tmp);
      ck_assert_uint_eq (n2->group, 9);
      ck_assert_uint_eq (n2->root, WL_RANK_SELF);
      ck_assert (wl_graph_expand (g, &error));
      ck_assert_ptr_nonnull (g->nodes);
    }
  /* A collective whose group the map leaves and whose root is none is
   * the base's node itself. */
  const guint64 other[] = { 5, 6 };
  g_autoptr (WlGraph) kept = wl_graph_renamed (base, "kept.et", 2, other, 1, &error);
  ck_assert (kept != NULL);
  ck_assert_uint_eq (kept->table->group_to[0], 7);
  ck_assert_ptr_eq (wl_graph_node_at (kept, 2, NULL, &tmp), &base->nodes[2]);
  /* The base keeps its names; the dependents are shared. */
  ck_assert_uint_eq (base->nodes[0].peer_dst, 1);
  ck_assert_uint_eq (base->nodes[2].group, 7);
  ck_assert_ptr_eq (g->children, base->children);
  ck_assert_str_eq (g->names[2], "n2");
  ck_assert_uint_lt (wl_graph_bytes (g), wl_graph_bytes (base));
  /* A move below rank 0 is an error naming the node. */
  WlGraph *none = wl_graph_renamed (base, "neg.et", -1, NULL, 0, &error);
  ck_assert (none == NULL);
  ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
  ck_assert_str_eq (error->message, "neg.et: node 1: a rank moved by -1 leaves the ranks");
  g_clear_error (&error);
}
END_TEST

static Suite *
gen_graphs_suite (void)
{
  Suite *s = suite_create ("gen_graphs");
  TCase *tc = tu_tcase (s, "gen_graphs", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_loop_test (tc, test_graphs_are_the_files, 0, G_N_ELEMENTS (layouts));
  tcase_add_test (tc, test_same_iteration);
  tcase_add_test (tc, test_renamed);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_graphs_suite ());
}
