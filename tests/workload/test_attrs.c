/* test_attrs.c: the attribute dispatch (wl_chakra_attr_key and
 * wl_chakra_attr_index, chakra_node.h) against the names of
 * ../shared/chakra/FORMAT.md's attribute table and against
 * wl_chakra_attr_find, the scan it replaces, including on nodes that the
 * fast decoder made (whose known names are its static copies).
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra_decode.h"
#include "workload/chakra_node.h"

/* The names in the first column of FORMAT.md's attribute table, in order
 * (cells such as "comm_src, comm_dst, comm_tag" split). */
static GPtrArray *
format_names (const char *shared)
{
  g_autofree char *path = g_build_filename (shared, "chakra", "FORMAT.md", NULL);
  g_autofree char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "%s", path);
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean in_table = FALSE;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "| attribute |"))
        {
          in_table = TRUE;
          i++; /* the |---| row */
          continue;
        }
      if (!in_table)
        continue;
      if (lines[i][0] != '|')
        break;
      g_auto (GStrv) cells = g_strsplit (lines[i] + 1, "|", 2);
      g_auto (GStrv) cell_names = g_strsplit (cells[0], ",", -1);
      for (guint k = 0; cell_names[k] != NULL; k++)
        g_ptr_array_add (names, g_strstrip (g_strdup (cell_names[k])));
    }
  return names;
}

START_TEST (test_format_names)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autoptr (GPtrArray) names = format_names (shared);
  /* FORMAT.md's table: 10 rows, 16 names; the converters' provenance (all
   * but `stream`, which orrery reads) is ignored. */
  ck_assert_uint_eq (names->len, 16);
  static const char *const ignored[] = { "tid", "seq_id", "op_schema", "rf_id" };
  guint known = 0;
  for (guint i = 0; i < names->len; i++)
    {
      const char *name = names->pdata[i];
      WlAttrKey k = wl_chakra_attr_key (name, strlen (name));
      gboolean is_ignored = FALSE;
      for (guint j = 0; j < G_N_ELEMENTS (ignored); j++)
        is_ignored |= strcmp (name, ignored[j]) == 0;
      if (is_ignored)
        {
          ck_assert_int_eq (k, WL_ATTR_OTHER);
          continue;
        }
      ck_assert_msg (k != WL_ATTR_OTHER, "%s not dispatched", name);
      ck_assert_str_eq (wl_chakra_attr_name (k), name);
      ck_assert_ptr_eq (wl_chakra_attr_known (name, strlen (name)), wl_chakra_attr_name (k));
      known++;
    }
  ck_assert_uint_eq (known, 12);
}
END_TEST

/* Every key's name comes back as that key, and no near miss does: each
 * byte changed, one byte short, one byte more. */
START_TEST (test_near_misses)
{
  for (WlAttrKey k = 0; k < WL_ATTR_OTHER; k++)
    {
      const char *name = wl_chakra_attr_name (k);
      gsize len = strlen (name);
      ck_assert_int_eq (wl_chakra_attr_key (name, len), k);
      ck_assert_int_eq (wl_chakra_attr_key (name, len - 1), WL_ATTR_OTHER);
      g_autofree char *longer = g_strdup_printf ("%sx", name);
      ck_assert_int_eq (wl_chakra_attr_key (longer, len + 1), WL_ATTR_OTHER);
      for (gsize i = 0; i < len; i++)
        {
          g_autofree char *miss = g_strdup (name);
          miss[i] = miss[i] == 'x' ? 'y' : 'x';
          ck_assert_msg (wl_chakra_attr_key (miss, len) == WL_ATTR_OTHER, "%s", miss);
          ck_assert_ptr_null (wl_chakra_attr_known (miss, len));
        }
    }
  ck_assert_ptr_null (wl_chakra_attr_name (WL_ATTR_OTHER));
  ck_assert_int_eq (wl_chakra_attr_key ("", 0), WL_ATTR_OTHER);
}
END_TEST

/* IDX holds, for every key, what wl_chakra_attr_find finds for its name. */
static void
assert_index_is_find (const ChakraProtoMsg__Node *n)
{
  WlAttrIndex idx;
  wl_chakra_attr_index (n, &idx);
  for (WlAttrKey k = 0; k < WL_ATTR_OTHER; k++)
    ck_assert_ptr_eq (idx.of[k], wl_chakra_attr_find (n, wl_chakra_attr_name (k)));
}

START_TEST (test_index_is_find)
{
  ChakraProtoMsg__Node *n = tu_coll (7, 0, 1024);
  tu_node_attr_int (n, "comm_type", 2);      /* a repeat: indexed as AGAIN */
  tu_node_attr_string (n, "pg_name", "3");
  tu_node_attr_int (n, "comm_sizes", 5);     /* near misses */
  tu_node_attr_int (n, "comm_siz", 5);
  tu_node_attr_bool (n, "is_cpu_op", TRUE);
  tu_node_attr_int (n, "tid", 1);
  assert_index_is_find (n);
  WlAttrIndex idx;
  wl_chakra_attr_index (n, &idx);
  ck_assert_ptr_eq (idx.of[WL_ATTR_COMM_TYPE], n->attr[0]);
  ck_assert_ptr_eq (idx.of[WL_ATTR_COMM_SIZE], n->attr[1]);
  ck_assert_ptr_null (idx.of[WL_ATTR_STREAM]);
  ck_assert_ptr_eq (idx.again, n->attr[2]); /* the repeated comm_type, for loading to refuse */
  /* The same node through the writer's bytes and the fast decoder, whose
   * known names are the static copies. */
  gsize len = chakra_proto_msg__node__get_packed_size (n);
  g_autofree guint8 *buf = g_malloc (len);
  chakra_proto_msg__node__pack (n, buf);
  g_autoptr (WlPbArena) arena = wl_pb_arena_new ();
  ChakraProtoMsg__Node *d = wl_chakra_decode_fast (arena, len, buf);
  ck_assert_ptr_nonnull (d);
  ck_assert_ptr_eq (d->attr[0]->name, wl_chakra_attr_name (WL_ATTR_COMM_TYPE));
  ck_assert_str_eq (d->attr[4]->name, "comm_sizes");
  assert_index_is_find (d);
  wl_chakra_attr_index (d, &idx);
  ck_assert_ptr_eq (idx.of[WL_ATTR_PG_NAME], d->attr[3]);
  tu_node_free (n);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("attrs");
  TCase *tc = tu_tcase (s, "attrs", NULL, NULL, 30);
  tcase_add_test (tc, test_format_names);
  tcase_add_test (tc, test_near_misses);
  tcase_add_test (tc, test_index_is_find);
  return tu_run_suite (s);
}
