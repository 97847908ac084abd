/* test_rename_table.c: compact renamed graphs held as a rename table (a
 * map of the base's ranks and groups, graph.h "Rename tables").  A table
 * made by hand reads and expands as the same renames written as patches
 * do; wl_graph_delta gives a table where the differing nodes follow one
 * map (of the base's names, or over an earlier file's table), and
 * patches otherwise, equal node by node to each file's strict load
 * either way.  Traces of four nodes: a compute node, a send from 0
 * to 3, a receive from 3 to 0 and a collective on a group.
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "support/modes.h"
#include "support/testutil.h"
#include "workload/graph.h"
#include "workload/wl_error.h"

/* The send's destination, the receive's source and the collective's group. */
typedef struct
{
  gint64 send_dst, recv_src;
  const char *group;
} Names;

static void
write_names (const char *prefix, guint32 rank, const Names *n)
{
  ChakraProtoMsg__Node *nodes[4];
  nodes[0] = tu_comp (1, 10);
  nodes[1] = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, n->send_dst, 7, 64);
  tu_node_dep (nodes[1], 1);
  nodes[2] = tu_p2p (3, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, n->recv_src, 0, 7, 64);
  tu_node_dep (nodes[2], 2);
  nodes[3] = tu_coll (4, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 4096);
  tu_node_attr_string (nodes[3], "pg_name", n->group);
  tu_node_dep (nodes[3], 3);
  tu_write_rank (prefix, rank, nodes, 4);
}

static const Names BASE = { 3, 3, "5" };

static WlGraph *
load_rank (const char *prefix, guint32 rank)
{
  g_autofree char *p = g_strdup_printf ("%s.%u.et", prefix, rank);
  WlGraph *g = wl_graph_load (p, NULL);
  ck_assert_ptr_nonnull (g);
  return g;
}

/* Rank RANK's file read against rank PREV's (PREV_G). */
static WlGraph *
delta_against (WlGraph *prev_g, const char *prefix, guint32 prev, guint32 rank)
{
  g_autofree char *p0 = g_strdup_printf ("%s.%u.et", prefix, prev);
  g_autofree char *p = g_strdup_printf ("%s.%u.et", prefix, rank);
  g_autofree char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  ck_assert (g_file_get_contents (p0, &a, &la, NULL));
  ck_assert (g_file_get_contents (p, &b, &lb, NULL));
  return wl_graph_delta (prev_g, (const guint8 *) a, la, p, (const guint8 *) b, lb);
}

/* Rank RANK's file read against rank 0's (BASE_G). */
static WlGraph *
delta_of (WlGraph *base_g, const char *prefix, guint32 rank)
{
  return delta_against (base_g, prefix, 0, rank);
}

/* D reads (and then expands to) FULL's nodes. */
static void
assert_reads_as (WlGraph *d, const WlGraph *full)
{
  WlNode tmp;
  guint32 hint = 0, hint_group = 0, hint_root = 0;
  ck_assert_uint_eq (d->n_nodes, full->n_nodes);
  for (guint32 v = 0; v < d->n_nodes; v++)
    {
      tu_assert_same_node (wl_graph_node_at (d, v, &hint, &tmp), &full->nodes[v]);
      /* Its root read alone (any node) is the node's. */
      ck_assert_uint_eq (wl_graph_root_at (d, v, &hint_root), full->nodes[v].root);
      /* A collective's group index read alone is the node's. */
      if (full->nodes[v].op == WL_OP_COLL)
        ck_assert_uint_eq (wl_graph_group_index_at (d, v, &hint_group),
                           full->nodes[v].sys_group_index);
    }
  ck_assert (wl_graph_expand (d, NULL));
  ck_assert_ptr_null (d->table);
  for (guint32 v = 0; v < d->n_nodes; v++)
    tu_assert_same_node (&d->nodes[v], &full->nodes[v]);
}

/* The same node but for its names and root (what renames change). */
static gboolean
same_but_names (const WlNode *x, const WlNode *y)
{
  return x->op == y->op && x->duration_ps == y->duration_ps && x->bytes == y->bytes
         && x->n_children == y->n_children && x->n_parents == y->n_parents;
}

/* The base names ranks 0 and 3 and group 5; the table sends 0 to 2, 3 to
 * 7 and 5 to 9.  Hand-expected: the send 2 -> 7, the receive 7 -> 2, the
 * collective on 9; the compute node is the base's own.  The same renames
 * as three patches expand to the same array, and both bind group 9 to
 * the system group index the map gives. */
START_TEST (test_table_by_hand)
{
  g_autofree char *prefix = tu_scratch_path ("hand");
  write_names (prefix, 0, &BASE);
  g_autoptr (WlGraph) base = load_rank (prefix, 0);
  const WlNameSlots *s = wl_graph_name_slots (base);
  ck_assert_ptr_nonnull (s);
  ck_assert_uint_eq (s->n_ranks, 2);
  ck_assert_uint_eq (s->ranks[0], 0);
  ck_assert_uint_eq (s->ranks[1], 3);
  ck_assert_uint_eq (s->n_groups, 1);
  ck_assert_uint_eq (s->groups[0], 5);
  ck_assert_uint_eq (s->rank_uses[0], 2); /* the send's source, the receive's destination */
  ck_assert_uint_eq (s->rank_uses[1], 2);
  ck_assert_uint_eq (s->named, 3);
  /* Each of the three first names its names in its place. */
  ck_assert_uint_eq (s->n_firsts, 3);
  ck_assert_uint_eq (s->firsts[0], 1);
  ck_assert_uint_eq (s->firsts[2], 3);
  /* The one collective reads the one group a table can rename. */
  g_autoptr (GArray) firsts = wl_graph_group_firsts (base);
  ck_assert_uint_eq (firsts->len, 1);
  ck_assert_uint_eq (g_array_index (firsts, guint32, 0), 3);
  WlRenameTable *t = wl_rename_table_new (s);
  t->rank_to[0] = 2;
  t->rank_to[1] = 7;
  t->group_to[0] = 9;
  g_autoptr (WlGraph) g = wl_graph_tabled_take (base, "tabled.et", t);
  ck_assert_ptr_null (g->nodes);
  ck_assert (!g->roots_moved);
  WlNode tmp;
  ck_assert_ptr_eq (wl_graph_node_at (g, 0, NULL, &tmp), &base->nodes[0]);
  ck_assert_uint_eq (wl_graph_node_at (g, 1, NULL, &tmp)->peer_src, 2);
  ck_assert_uint_eq (wl_graph_node_at (g, 1, NULL, &tmp)->peer_dst, 7);
  ck_assert_uint_eq (wl_graph_node_at (g, 2, NULL, &tmp)->peer_src, 7);
  ck_assert_uint_eq (wl_graph_node_at (g, 2, NULL, &tmp)->peer_dst, 2);
  ck_assert_uint_eq (wl_graph_node_at (g, 3, NULL, &tmp)->group, 9);
  ck_assert_uint_eq (wl_graph_node_at (g, 3, NULL, &tmp)->duration_ps,
                     base->nodes[3].duration_ps);
  /* The same renames as patches. */
  WlNodePatch *p = g_new0 (WlNodePatch, 3);
  p[0] = (WlNodePatch) { .index = 1, .a = 2, .b = 7 };
  p[1] = (WlNodePatch) { .index = 2, .a = 7, .b = 2 };
  p[2] = (WlNodePatch) { .index = 3, .group = 9, .a = WL_RANK_SELF,
                         .b = base->nodes[3].sys_group_index };
  g_autoptr (WlGraph) pg = wl_graph_patched_take (base, "patched.et", p, 3);
  /* Alike but for names, the table's and the patches' graph; not so one
   * whose collective's root a patch moves to rank 2 (read without a copy
   * of the node, wl_graph_root_at). */
  WlNodePatch *q = g_memdup2 (p, 3 * sizeof *p);
  q[2].a = 2;
  g_autoptr (WlGraph) rooted = wl_graph_patched_take (base, "rooted.et", q, 3);
  ck_assert_uint_eq (wl_graph_root_at (rooted, 3, NULL), 2);
  ck_assert_uint_eq (wl_graph_root_at (pg, 3, NULL), WL_RANK_SELF);
  ck_assert (wl_graphs_alike_shape (g, pg, same_but_names));
  ck_assert (!wl_graphs_alike_shape (g, rooted, same_but_names));
  ck_assert (!wl_graphs_alike_shape (rooted, pg, same_but_names));
  g_autoptr (GHashTable) map = g_hash_table_new (g_int64_hash, g_int64_equal);
  static const guint64 nine = 9;
  g_hash_table_insert (map, (gpointer) &nine, GUINT_TO_POINTER (4));
  wl_graph_bind_groups (g, map);
  wl_graph_bind_groups (pg, map);
  ck_assert_uint_eq (wl_graph_node_at (g, 3, NULL, &tmp)->sys_group_index, 4);
  ck_assert_uint_eq (wl_graph_group_index_at (g, 3, NULL), 4);
  ck_assert_uint_eq (wl_graph_group_index_at (pg, 3, NULL), 4);
  ck_assert (wl_graph_expand (g, NULL));
  ck_assert (wl_graph_expand (pg, NULL));
  ck_assert_ptr_null (g->table);
  for (guint32 v = 0; v < 4; v++)
    tu_assert_same_node (&g->nodes[v], &pg->nodes[v]);
  ck_assert_int_eq (memcmp (g->nodes, pg->nodes, 4 * sizeof (WlNode)), 0);
  ck_assert_uint_eq (g->nodes[3].sys_group_index, 4);
}
END_TEST

/* Rank 1: 3 -> 5 at both nodes and group 5 -> 6, one map: a table.  Rank
 * 2: the send maps 3 to 5, the receive 3 to 6: patches.  Rank 3: the send
 * maps 3 to 5 while the receive keeps 3 (with the group moved, so that
 * patches are not the smaller anyway): patches.  Each reads as its own
 * strict load. */
START_TEST (test_delta_table_or_patches)
{
  g_autofree char *prefix = tu_scratch_path ("delta");
  const Names ranks[] = { BASE, { 5, 5, "6" }, { 5, 6, "5" }, { 5, 3, "6" } };
  for (guint32 r = 0; r < G_N_ELEMENTS (ranks); r++)
    write_names (prefix, r, &ranks[r]);
  g_autoptr (WlGraph) base = load_rank (prefix, 0);
  for (guint32 r = 1; r < G_N_ELEMENTS (ranks); r++)
    {
      g_autoptr (WlGraph) full = load_rank (prefix, r);
      g_autoptr (WlGraph) d = delta_of (base, prefix, r);
      ck_assert_ptr_nonnull (d);
      ck_assert_ptr_eq (d->base, base);
      ck_assert_ptr_null (d->nodes);
      if (r == 1)
        {
          ck_assert_ptr_nonnull (d->table);
          ck_assert_uint_eq (d->n_patches, 0);
          ck_assert_uint_eq (d->table->rank_to[0], 0);
          ck_assert_uint_eq (d->table->rank_to[1], 5);
          ck_assert_uint_eq (d->table->group_to[0], 6);
        }
      else
        {
          ck_assert_ptr_null (d->table);
          ck_assert_uint_eq (d->n_patches, 2);
        }
      assert_reads_as (d, full);
    }
}
END_TEST

/* Files read against a table (rank 1: 3 -> 5, 5 -> 6): rank 2 renames
 * the receive's 3 to 7 while the send, the same frame as rank 1's, keeps
 * 5: no one map, patches.  Rank 3 renames both to 8 and keeps rank 1's
 * group 6 (the collective's frame is rank 1's): a table, 3 -> 8, 5 -> 6.
 * Each reads as its own strict load. */
START_TEST (test_delta_over_table)
{
  g_autofree char *prefix = tu_scratch_path ("over");
  const Names ranks[] = { BASE, { 5, 5, "6" }, { 5, 7, "6" }, { 8, 8, "6" } };
  for (guint32 r = 0; r < G_N_ELEMENTS (ranks); r++)
    write_names (prefix, r, &ranks[r]);
  g_autoptr (WlGraph) base = load_rank (prefix, 0);
  g_autoptr (WlGraph) one = delta_of (base, prefix, 1);
  ck_assert_ptr_nonnull (one);
  ck_assert_ptr_nonnull (one->table);
  for (guint32 r = 2; r < G_N_ELEMENTS (ranks); r++)
    {
      g_autoptr (WlGraph) full = load_rank (prefix, r);
      g_autoptr (WlGraph) d = delta_against (one, prefix, 1, r);
      ck_assert_ptr_nonnull (d);
      ck_assert_ptr_eq (d->base, base);
      if (r == 2)
        {
          ck_assert_ptr_null (d->table);
          ck_assert_uint_eq (d->n_patches, 3); /* all three name other than rank 0's */
        }
      else
        {
          ck_assert_ptr_nonnull (d->table);
          ck_assert_uint_eq (d->table->rank_to[0], 0);
          ck_assert_uint_eq (d->table->rank_to[1], 8);
          ck_assert_uint_eq (d->table->group_to[0], 6);
        }
      assert_reads_as (d, full);
    }
}
END_TEST

/* wl_rename_table_from_patches refuses a WL_RANK_SELF renamed to a rank:
 * the collective's root is "none" in the base. */
START_TEST (test_self_stays_self)
{
  g_autofree char *prefix = tu_scratch_path ("self");
  write_names (prefix, 0, &BASE);
  g_autoptr (WlGraph) base = load_rank (prefix, 0);
  ck_assert_ptr_nonnull (wl_graph_name_slots (base));
  ck_assert_uint_eq (base->nodes[3].root, WL_RANK_SELF);
  WlNodePatch p = { .index = 3, .group = 5, .a = 1 };
  ck_assert_ptr_null (wl_rename_table_from_patches (base, &p, 1));
  p.a = WL_RANK_SELF;
  p.group = 8;
  WlRenameTable *t = wl_rename_table_from_patches (base, &p, 1);
  ck_assert_ptr_nonnull (t);
  ck_assert_uint_eq (t->group_to[0], 8);
  ck_assert_uint_eq (t->rank_to[1], 3);
  wl_rename_table_free (t);
}
END_TEST

/* Rank R of a pairs trace that names OWN as its own rank and PEER as
 * its peer: a send and a receive, twice. */
static void
write_pair (const char *prefix, guint32 r, gint64 own, gint64 peer)
{
  ChakraProtoMsg__Node *nodes[5];
  nodes[0] = tu_comp (1, 5);
  for (guint k = 0; k < 2; k++)
    {
      nodes[1 + 2 * k] = tu_p2p (2 + 2 * k, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, own,
                                 peer, (gint64) k, 64);
      nodes[2 + 2 * k] = tu_p2p (3 + 2 * k, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE, peer,
                                 own, (gint64) k, 64);
      tu_node_dep (nodes[1 + 2 * k], 1 + 2 * k);
      tu_node_dep (nodes[2 + 2 * k], 2 + 2 * k);
    }
  tu_write_rank (prefix, r, nodes, 5);
}

/* Pairs 0<->1, 2<->3: ranks 1 to 3 are tables of rank 0's names (0 and 1
 * swapped or moved by 2), and the run checks their names as it checks
 * full traces': it runs; with rank 2's file naming 3 as its own rank (a
 * table still, 0 -> 3, 1 -> 2), it refuses at rank 2's first send, node
 * 2, as the full load's check does. */
START_TEST (test_checked_names)
{
  g_autofree char *prefix = tu_scratch_path ("wl");
  for (int bad = 0; bad < 2; bad++)
    {
      for (guint32 r = 0; r < 4; r++)
        write_pair (prefix, r, bad && r == 2 ? 3 : r, bad && r == 2 ? 2 : r ^ 1);
      AppConfig cfg;
      tu_exact_ring (&cfg, 4);
      GError *error = NULL;
      AppSim *sim = tu_sim_all_modes (&(TuSimRequest) { .cfg = &cfg, .prefix = prefix }, &error);
      if (bad)
        {
          ck_assert_ptr_null (sim);
          g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
          ck_assert_msg (strstr (error->message, "rank 2 node 2: comm_src is not this rank"),
                         "%s", error->message);
          g_clear_error (&error);
        }
      else
        {
          g_assert_no_error (error);
          app_sim_free (sim);
        }
      app_config_clear (&cfg);
    }
}
END_TEST

/* A base whose names come back between others that share their low bits
 * (groups 0, 16, 32, 48; ranks 1, 17, 33, each met again after another):
 * its slots hold each name once, sorted, counted at every use.
 * Hand-counted: groups 0 x3, 16 x2, 32 x2, 48 x1; sends 0 -> 1, 17, 1,
 * 33, 17, so rank 0 is used 5 times, 1 twice, 17 twice, 33 once. */
START_TEST (test_slots_names_repeat)
{
  static const char *const groups[] = { "0", "16", "0", "32", "16", "48", "32", "0" };
  static const gint64 dsts[] = { 1, 17, 1, 33, 17 };
  ChakraProtoMsg__Node *nodes[G_N_ELEMENTS (groups) + G_N_ELEMENTS (dsts)];
  guint n = 0;
  for (guint i = 0; i < G_N_ELEMENTS (groups); i++, n++)
    {
      nodes[n] = tu_coll (n + 1, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 4096);
      tu_node_attr_string (nodes[n], "pg_name", groups[i]);
    }
  for (guint i = 0; i < G_N_ELEMENTS (dsts); i++, n++)
    nodes[n] = tu_p2p (n + 1, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, 0, dsts[i], 7, 64);
  g_autofree char *prefix = tu_scratch_path ("repeat");
  tu_write_rank (prefix, 0, nodes, n);
  g_autoptr (WlGraph) base = load_rank (prefix, 0);
  const WlNameSlots *s = wl_graph_name_slots (base);
  ck_assert_ptr_nonnull (s);
  static const guint64 want_groups[] = { 0, 16, 32, 48 };
  static const guint32 group_uses[] = { 3, 2, 2, 1 };
  ck_assert_uint_eq (s->n_groups, G_N_ELEMENTS (want_groups));
  for (guint i = 0; i < G_N_ELEMENTS (want_groups); i++)
    {
      ck_assert_uint_eq (s->groups[i], want_groups[i]);
      ck_assert_uint_eq (s->group_uses[i], group_uses[i]);
    }
  static const guint32 want_ranks[] = { 0, 1, 17, 33 };
  static const guint32 rank_uses[] = { 5, 2, 2, 1 };
  ck_assert_uint_eq (s->n_ranks, G_N_ELEMENTS (want_ranks));
  for (guint i = 0; i < G_N_ELEMENTS (want_ranks); i++)
    {
      ck_assert_uint_eq (s->ranks[i], want_ranks[i]);
      ck_assert_uint_eq (s->rank_uses[i], rank_uses[i]);
    }
  ck_assert_uint_eq (s->named, n);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("rename_table");
  TCase *tc = tu_tcase (s, "table", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_table_by_hand);
  tcase_add_test (tc, test_delta_table_or_patches);
  tcase_add_test (tc, test_delta_over_table);
  tcase_add_test (tc, test_self_stays_self);
  tcase_add_test (tc, test_checked_names);
  tcase_add_test (tc, test_slots_names_repeat);
  return tu_run_suite (s);
}
