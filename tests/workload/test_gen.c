/* test_gen.c: the collective generator: plain and grouped layouts read back
 * with the Chakra reader, the layout errors, the command line, and grouped
 * all-reduces simulated against the ring closed form.
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/gen.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

/* All nodes of PREFIX.<rank>.et (a new GPtrArray that frees them). */
static GPtrArray *
read_rank (const char *prefix, guint32 rank)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  GError *error = NULL;
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  ck_assert_str_eq (wl_chakra_reader_version (r), "0.0.4");
  GPtrArray *nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_chakra_node_free);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    g_ptr_array_add (nodes, n);
  g_assert_no_error (error);
  return nodes;
}

static gint64
attr_int (const ChakraProtoMsg__Node *n, const char *name)
{
  gint64 v = -1;
  GError *error = NULL;
  ck_assert_msg (wl_chakra_attr_int (n, name, &v, &error), "no %s on node %" G_GUINT64_FORMAT,
                 name, n->id);
  return v;
}

static const char *
attr_str (const ChakraProtoMsg__Node *n, const char *name)
{
  const char *v = NULL;
  return wl_chakra_attr_string (n, name, &v, NULL) ? v : NULL;
}

/* Without a layout: one COMM_COLL node, id 0, no group, no dependency. */
START_TEST (test_plain)
{
  g_autofree char *p = tu_scratch_path ("ar");
  GError *error = NULL;
  ck_assert (wl_gen_collective (p, SYS_COLL_ALL_REDUCE, 4, 1 << 20, &error));
  for (guint32 r = 0; r < 4; r++)
    {
      g_autoptr (GPtrArray) nodes = read_rank (p, r);
      ck_assert_uint_eq (nodes->len, 1);
      ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, 0);
      ck_assert_uint_eq (n->id, 0);
      ck_assert_int_eq (n->type, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
      ck_assert_uint_eq (n->n_data_deps, 0);
      ck_assert_int_eq (attr_int (n, "comm_type"), 0);
      ck_assert_int_eq (attr_int (n, "comm_size"), 1 << 20);
      ck_assert_ptr_null (wl_chakra_attr_find (n, "pg_name"));
      ck_assert_ptr_null (wl_chakra_attr_find (n, "comm_root"));
    }
}
END_TEST

/* 16 ranks, groups of 4 members 2 apart: blocks of 8 ranks, two groups
 * each ({0,2,4,6}, {1,3,5,7}, {8,...}, {9,...}).  Rank 5 is in group 2,
 * whose member 1 (the root) is rank 3.  Two broadcasts, chained. */
START_TEST (test_groups_stride_root_count)
{
  g_autofree char *p = tu_scratch_path ("bc");
  WlGenCollective req = { .kind = SYS_COLL_BROADCAST, .ranks = 16, .bytes = 1024,
                          .group_size = 4, .stride = 2, .root = 1, .count = 2 };
  GError *error = NULL;
  ck_assert (wl_gen_collective_full (p, &req, &error));
  /* The PyTorch converter's form, which ASTRA-sim reads: the JSON list
   * as the one string of a Python list. */
  static const char *groups = "['[{\"pg_name\": \"1\", \"ranks\": [0, 2, 4, 6]}, "
                              "{\"pg_name\": \"2\", \"ranks\": [1, 3, 5, 7]}, "
                              "{\"pg_name\": \"3\", \"ranks\": [8, 10, 12, 14]}, "
                              "{\"pg_name\": \"4\", \"ranks\": [9, 11, 13, 15]}]']";
  static const struct { guint32 rank; const char *pg; gint64 root; } want[] = {
    { 5, "2", 3 }, { 0, "1", 2 }, { 14, "3", 10 }, { 9, "4", 11 }
  };
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      g_autoptr (GPtrArray) nodes = read_rank (p, want[k].rank);
      ck_assert_uint_eq (nodes->len, 3);
      ChakraProtoMsg__Node *meta = g_ptr_array_index (nodes, 0);
      ck_assert_int_eq (meta->type, CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE);
      ck_assert_ptr_nonnull (meta->inputs);
      ck_assert_str_eq (meta->inputs->values, groups);
      for (guint i = 1; i < 3; i++)
        {
          ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
          ck_assert_uint_eq (n->id, i);
          ck_assert_int_eq (n->type, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE);
          ck_assert_uint_eq (n->n_data_deps, 1);
          ck_assert_uint_eq (n->data_deps[0], i - 1);
          ck_assert_int_eq (attr_int (n, "comm_type"), 5);
          ck_assert_int_eq (attr_int (n, "comm_size"), 1024);
          ck_assert_str_eq (attr_str (n, "pg_name"), want[k].pg);
          ck_assert_int_eq (attr_int (n, "comm_root"), want[k].root);
        }
    }
}
END_TEST

static void
expect_gen_error (guint32 ranks, guint32 size, guint32 stride, guint32 root, const char *needle)
{
  g_autofree char *p = tu_scratch_path ("bad");
  WlGenCollective req = { .kind = SYS_COLL_GATHER, .ranks = ranks, .bytes = 8,
                          .group_size = size, .stride = stride, .root = root };
  GError *error = NULL;
  ck_assert (!wl_gen_collective_full (p, &req, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_msg (strstr (error->message, needle) != NULL, "'%s' not in: %s", needle,
                 error->message);
  g_error_free (error);
  g_autofree char *first = g_strdup_printf ("%s.0.et", p);
  ck_assert (!g_file_test (first, G_FILE_TEST_EXISTS));
}

START_TEST (test_layout_errors)
{
  expect_gen_error (16, 3, 1, 0, "groups of 3 ranks do not tile 16 ranks: 16 is not a multiple of 3");
  expect_gen_error (16, 5, 3, 0, "groups of 5 members 3 ranks apart do not tile 16 ranks");
  expect_gen_error (16, 0, 3, 0, "groups of 5 members 3 ranks apart do not tile 16 ranks");
  expect_gen_error (16, 8, 4, 0, "span 32 ranks, more than the 16 there are");
  expect_gen_error (16, 0, 32, 0, "a stride of 32 leaves no room for a group in 16 ranks");
  expect_gen_error (16, 4, 1, 4, "root 4 is not a member index of a group of 4 (0 to 3)");
}
END_TEST

/* The command line: options reach the generator; errors exit 1 with the
 * reason. */
START_TEST (test_cli)
{
  g_autofree char *p = tu_scratch_path ("cli");
  g_autofree char *out = NULL;
  const char *ok[] = { tu_orrery (), "gen", "collective", "--type", "all-gather", "--ranks", "8",
                       "--bytes", "1KiB", "--stride", "4", "--count", "3", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, ok), 0);
  g_autoptr (GPtrArray) nodes = read_rank (p, 6);
  ck_assert_uint_eq (nodes->len, 4); /* METADATA + 3 */
  ck_assert_str_eq (((ChakraProtoMsg__Node *) g_ptr_array_index (nodes, 0))->inputs->values,
                    "['[{\"pg_name\": \"1\", \"ranks\": [0, 4]}, "
                    "{\"pg_name\": \"2\", \"ranks\": [1, 5]}, "
                    "{\"pg_name\": \"3\", \"ranks\": [2, 6]}, "
                    "{\"pg_name\": \"4\", \"ranks\": [3, 7]}]']");
  ck_assert_str_eq (attr_str (g_ptr_array_index (nodes, 3), "pg_name"), "3");

  g_free (g_steal_pointer (&out));
  const char *bad[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks",
                        "64", "--bytes", "1KiB", "--groups", "6", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, bad), 1);
  ck_assert_msg (strstr (out, "groups of 6 ranks do not tile 64 ranks") != NULL, "%s", out);
  g_free (g_steal_pointer (&out));
  const char *root[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks",
                         "4", "--bytes", "1KiB", "--root", "1", "--out", p, NULL };
  ck_assert_int_eq (tu_run (&out, root), 1);
  ck_assert_msg (strstr (out, "--root applies to rooted collectives") != NULL, "%s", out);
}
END_TEST

/* 16 ranks as Ring 4 x Ring 4 (1 byte per ns, 100 ns per hop, exact ps,
 * no endpoint or reduction cost).  Groups of 4 consecutive ranks are the
 * lines of dimension 0, groups of stride 4 those of dimension 1: each
 * all-reduce of c bytes is a ring of 4, 2 x 3 steps of c/4 bytes, so
 * 6 x (100 + c/4) ns, and K of them back to back take K times that. */
static void
run_grouped (guint32 stride, guint32 count)
{
  g_autofree char *p = tu_scratch_path ("grp");
  const guint64 c = 4000;
  WlGenCollective req = { .kind = SYS_COLL_ALL_REDUCE, .ranks = 16, .bytes = c,
                          .group_size = 4, .stride = stride, .count = count };
  GError *error = NULL;
  ck_assert (wl_gen_collective_full (p, &req, &error));
  AppConfig cfg;
  app_config_init (&cfg);
  cfg.net.n_dims = 2;
  for (guint d = 0; d < 2; d++)
    cfg.net.dims[d] = (NetDimSpec) { .kind = NET_DIM_RING, .size = 4, .bandwidth_Bps = 1e9,
                                     .latency = sim_time_from_ns (100) };
  cfg.net.model = NET_MODEL_ANALYTICAL;
  cfg.net.rounding = NET_ROUND_PS;
  cfg.sys.endpoint_delay = 0;
  cfg.sys.reduction_passes = 0;
  AppSim *sim = tu_sim_all_modes_ok (&cfg, p);
  SimTime want = count * 2 * 3 * sim_time_from_ns (100 + c / 4);
  for (guint32 r = 0; r < 16; r++)
    ck_assert_uint_eq (wl_replay_rank_stats (app_sim_replay (sim), r)->finish, want);
  app_sim_free (sim);
  app_config_clear (&cfg);
}

START_TEST (test_grouped_all_reduce_rows)
{
  run_grouped (1, 1);
}
END_TEST

START_TEST (test_grouped_all_reduce_columns)
{
  run_grouped (4, 3);
}
END_TEST

static Suite *
gen_suite (void)
{
  Suite *s = suite_create ("gen");
  TCase *tc = tu_tcase (s, "gen", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_plain);
  tcase_add_test (tc, test_groups_stride_root_count);
  tcase_add_test (tc, test_layout_errors);
  tcase_add_test (tc, test_cli);
  tcase_add_test (tc, test_grouped_all_reduce_rows);
  tcase_add_test (tc, test_grouped_all_reduce_columns);
  return s;
}

int
main (void)
{
  return tu_run_suite (gen_suite ());
}
