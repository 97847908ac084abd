/* test_deps.c: the dependency module (workload/deps.c) that graph loading,
 * streaming and the inspector share: one edge per id whatever lists name
 * it, the file-order cycle search, the search a streamed window makes when
 * a new node becomes a parent, and the words of cycle errors.  Expected
 * values are worked by hand on graphs of three to five nodes.
 */
#include <check.h>

#include "workload/deps.h"
#include "workload/wl_error.h"
#include "support/testutil.h"

/* ------------------------------------------------------------ unique ids */

static void
assert_ids (const GArray *got, const guint64 *want, guint n)
{
  ck_assert_uint_eq (got->len, n);
  for (guint i = 0; i < n; i++)
    ck_assert_uint_eq (g_array_index (got, guint64, i), want[i]);
}

/* data_deps [5, 3, 5], ctrl_deps [3, 7]: 5, 3, 7, each at its first place. */
START_TEST (test_unique_few)
{
  g_autoptr (ChakraProtoMsg__Node) n = tu_node_new (1, 4, "n");
  tu_node_dep (n, 5);
  tu_node_dep (n, 3);
  tu_node_dep (n, 5);
  tu_node_ctrl_dep (n, 3);
  tu_node_ctrl_dep (n, 7);
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) sorted = g_array_new (FALSE, FALSE, sizeof (guint64));
  wl_deps_unique (n, out, sorted);
  assert_ids (out, (const guint64[]) { 5, 3, 7 }, 3);
}
END_TEST

/* More than 16 ids takes the sorted path: 20 data deps 100, 99, ..., 81
 * and control deps naming 90 and 50: 100 .. 81 in that order, then 50. */
START_TEST (test_unique_many)
{
  g_autoptr (ChakraProtoMsg__Node) n = tu_node_new (1, 4, "n");
  guint64 want[21];
  for (guint i = 0; i < 20; i++)
    {
      tu_node_dep (n, 100 - i);
      want[i] = 100 - i;
    }
  tu_node_ctrl_dep (n, 90);
  tu_node_ctrl_dep (n, 50);
  want[20] = 50;
  g_autoptr (GArray) out = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GArray) sorted = g_array_new (FALSE, FALSE, sizeof (guint64));
  wl_deps_unique (n, out, sorted);
  assert_ids (out, want, 21);
}
END_TEST

/* ----------------------------------------------------------- cycle search */

typedef struct
{
  guint calls;
  guint32 slot;
  guint32 path[8];
  guint32 len;
} Found;

static gboolean
on_cycle (gpointer data, guint32 slot, const guint32 *path, guint32 len)
{
  Found *f = data;
  if (f->calls++ == 0)
    {
      f->slot = slot;
      f->len = len;
      for (guint32 i = 0; i < len && i < G_N_ELEMENTS (f->path); i++)
        f->path[i] = path[i];
    }
  return TRUE;
}

/* Node 0 depends on 1 (slot 0), 1 on 2 (slot 1), 2 on 0 (slot 2) and on a
 * dangling id (slot 3, not followed), 3 on 0 (slot 4).  From node 0 the
 * search walks 0 -> 1 -> 2 and finds slot 2 leading back to 0: the cycle
 * 0, 1, 2, found once; node 3 reaches only finished nodes. */
START_TEST (test_cycle_search)
{
  const guint32 start[] = { 0, 1, 2, 4, 5 };
  const guint32 target[] = { 1, 2, 0, WL_CYCLE_NO_NODE, 0 };
  Found f = { 0 };
  ck_assert (wl_cycle_search (4, start, target, on_cycle, &f, NULL));
  ck_assert_uint_eq (f.calls, 1);
  ck_assert_uint_eq (f.slot, 2);
  ck_assert_uint_eq (f.len, 3);
  ck_assert_uint_eq (f.path[0], 0);
  ck_assert_uint_eq (f.path[1], 1);
  ck_assert_uint_eq (f.path[2], 2);
}
END_TEST

/* ------------------------------------------------- reach (streamed window) */

/* Dependents: 0 -> 1 -> 2, 3 -> 2, 4 -> nothing. */
static void
dependents (gpointer data, guint32 v, GArray *out)
{
  (void) data;
  static const guint32 next[] = { 1, 2, G_MAXUINT32, 2, G_MAXUINT32 };
  if (next[v] != G_MAXUINT32)
    g_array_append_val (out, next[v]);
}

static void
assert_path (const GArray *path, const guint32 *want, guint n)
{
  ck_assert_uint_eq (path->len, n);
  for (guint i = 0; i < n; i++)
    ck_assert_uint_eq (g_array_index (path, guint32, i), want[i]);
}

START_TEST (test_cycle_reach)
{
  g_autoptr (GArray) path = g_array_new (FALSE, FALSE, sizeof (guint32));
  /* From 0, node 2 is two steps down: the start, then back from 2. */
  ck_assert (wl_cycle_reach ((const guint32[]) { 0 }, 1, 2, dependents, NULL, path, NULL));
  assert_path (path, (const guint32[]) { 0, 2, 1 }, 3);
  /* From 4 then 3: 4 leads nowhere, 3 straight to 2. */
  g_array_set_size (path, 0);
  ck_assert (wl_cycle_reach ((const guint32[]) { 4, 3 }, 2, 2, dependents, NULL, path, NULL));
  assert_path (path, (const guint32[]) { 3, 2 }, 2);
  /* Nothing leads from 2 or 4 to 0. */
  g_array_set_size (path, 0);
  GError *error = NULL;
  ck_assert (!wl_cycle_reach ((const guint32[]) { 2, 4 }, 2, 0, dependents, NULL, path, &error));
  ck_assert_ptr_null (error);
  ck_assert_uint_eq (path->len, 0);
}
END_TEST

/* ---------------------------------------------------------------- words */

START_TEST (test_cycle_error)
{
  GError *error = NULL;
  ck_assert (!wl_cycle_error ("t.et", (const guint64[]) { 10, 11, 12 }, 3, "; why", &error));
  ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
  ck_assert_str_eq (error->message, "t.et: dependency cycle through 3 nodes: 10 -> 11 -> 12 -> "
                                    "10 (each depends on the next); why");
  g_clear_error (&error);
  /* A node depending on itself; more than WL_CYCLE_MAX_IDS ids are cut. */
  wl_cycle_error ("t.et", (const guint64[]) { 7 }, 1, NULL, &error);
  ck_assert_str_eq (error->message,
                    "t.et: dependency cycle through 1 node: 7 -> 7 (each depends on the next)");
  g_clear_error (&error);
  guint64 ids[WL_CYCLE_MAX_IDS + 1];
  for (guint i = 0; i < G_N_ELEMENTS (ids); i++)
    ids[i] = i + 1;
  g_autoptr (GString) text = g_string_new (NULL);
  wl_cycle_describe (text, ids, G_N_ELEMENTS (ids));
  ck_assert (g_str_has_prefix (text->str, "dependency cycle through 21 nodes: 1 -> 2 -> "));
  ck_assert (g_str_has_suffix (text->str, "19 -> 20 -> ... -> 1 (each depends on the next)"));
}
END_TEST

/* --------------------------------------------------------------- main */

int
main (void)
{
  Suite *s = suite_create ("deps");
  TCase *tc = tu_tcase (s, "deps", NULL, NULL, 0);
  tcase_add_test (tc, test_unique_few);
  tcase_add_test (tc, test_unique_many);
  tcase_add_test (tc, test_cycle_search);
  tcase_add_test (tc, test_cycle_reach);
  tcase_add_test (tc, test_cycle_error);
  return tu_run_suite (s);
}
