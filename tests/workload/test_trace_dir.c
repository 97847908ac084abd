/* test_trace_dir.c: which files of a trace set exist, read from one listing
 * of its directory (trace_dir.h), against the file system's own answer
 * (g_file_test, access(2)) for every name a load asks about: each rank's
 * .et and .json, the rank after the last, a missing rank, a .json beside an
 * .et, links that resolve and one that dangles, with and without a listing
 * (too few files, too many other entries, no directory part).  And the
 * trace-path helpers that loading uses (chakra_json.h) give with a listing
 * what they give without one.
 */
#include <check.h>
#include <string.h>
#include <unistd.h>

#include "support/testutil.h"
#include "workload/chakra_json.h"
#include "workload/trace_dir.h"
#include "workload/wl_error.h"

#define N_FILES 40 /* at least WL_TRACE_DIR_MIN_FILES: listed */

/* Create the empty file tu_scratch/NAME. */
static void
touch (const char *name)
{
  g_autofree char *path = tu_scratch_path (name);
  ck_assert (g_file_set_contents (path, "", 0, NULL));
}

/* A set "w" of N_FILES .et files, but for rank 7 (missing) and rank 9 (a
 * .json only); "w.3.json" beside "w.3.et"; "w.5.et" a link to "w.4.et",
 * "w.6.json" a dangling link; and files of other sets ("wx.0.et",
 * "v.0.et"). */
static void
make_set (void)
{
  for (guint r = 0; r < N_FILES; r++)
    {
      if (r == 5 || r == 7 || r == 9)
        continue;
      g_autofree char *name = g_strdup_printf ("w.%u.et", r);
      touch (name);
    }
  touch ("w.9.json");
  touch ("w.3.json");
  touch ("wx.0.et");
  touch ("v.0.et");
  g_autofree char *l5 = tu_scratch_path ("w.5.et");
  g_autofree char *l6 = tu_scratch_path ("w.6.json");
  ck_assert_int_eq (symlink ("w.4.et", l5), 0);
  ck_assert_int_eq (symlink ("nowhere.et", l6), 0);
}

/* Every name a load of PREFIX asks about, answered by DIR as by the file
 * system. */
static void
assert_same_answers (const WlTraceDir *dir, const char *prefix)
{
  static const char *const forms[] = { "et", "json", "et.gz" };
  for (guint r = 0; r <= N_FILES + 1; r++)
    for (guint f = 0; f < G_N_ELEMENTS (forms); f++)
      {
        g_autofree char *path = g_strdup_printf ("%s.%u.%s", prefix, r, forms[f]);
        gboolean fs = access (path, F_OK) == 0;
        ck_assert_msg (wl_trace_dir_exists (dir, path) == fs, "%s: access says %d, the listing not",
                       path, fs);
      }
  /* Names outside the set are asked of the file system. */
  g_autofree char *other = g_strconcat (prefix, "x.0.et", NULL);
  ck_assert (wl_trace_dir_exists (dir, other) == (access (other, F_OK) == 0));
  ck_assert (!wl_trace_dir_exists (dir, "/nonexistent/w.0.et"));
}

START_TEST (test_listed_same_as_access)
{
  make_set ();
  g_autofree char *prefix = tu_scratch_path ("w");
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, N_FILES);
  ck_assert (wl_trace_dir_listed (dir));
  assert_same_answers (dir, prefix);
  /* The cases that matter, by hand. */
  g_autofree char *et3 = g_strconcat (prefix, ".3.json", NULL);
  g_autofree char *et5 = g_strconcat (prefix, ".5.et", NULL);
  g_autofree char *js6 = g_strconcat (prefix, ".6.json", NULL);
  g_autofree char *et7 = g_strconcat (prefix, ".7.et", NULL);
  g_autofree char *et40 = g_strconcat (prefix, ".40.et", NULL);
  ck_assert (wl_trace_dir_exists (dir, et3));
  ck_assert (wl_trace_dir_exists (dir, et5));  /* a link to a file */
  ck_assert (!wl_trace_dir_exists (dir, js6)); /* a dangling link */
  ck_assert (!wl_trace_dir_exists (dir, et7));
  ck_assert (!wl_trace_dir_exists (dir, et40));
  ck_assert (wl_trace_dir_exists (NULL, et5));
  ck_assert (!wl_trace_dir_exists (NULL, et7));
}
END_TEST

/* Too few files to list, and a directory holding more than
 * WL_TRACE_DIR_MAX_ENTRIES entries per file: the same answers, from the
 * file system. */
START_TEST (test_unlisted_same_as_access)
{
  make_set ();
  g_autofree char *prefix = tu_scratch_path ("w");
  g_autoptr (WlTraceDir) few = wl_trace_dir_new (prefix, WL_TRACE_DIR_MIN_FILES - 1);
  ck_assert (!wl_trace_dir_listed (few));
  assert_same_answers (few, prefix);
  for (guint k = 0; k < WL_TRACE_DIR_MAX_ENTRIES * WL_TRACE_DIR_MIN_FILES + 80; k++)
    {
      g_autofree char *name = g_strdup_printf ("other%u", k);
      touch (name);
    }
  g_autoptr (WlTraceDir) crowded = wl_trace_dir_new (prefix, WL_TRACE_DIR_MIN_FILES);
  ck_assert (!wl_trace_dir_listed (crowded));
  assert_same_answers (crowded, prefix);
}
END_TEST

/* A prefix without a directory part lists the working directory. */
START_TEST (test_relative_prefix)
{
  make_set ();
  ck_assert_int_eq (chdir (tu_scratch), 0);
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new ("w", N_FILES);
  ck_assert (wl_trace_dir_listed (dir));
  assert_same_answers (dir, "w");
  ck_assert (wl_trace_dir_exists (dir, "w.0.et"));
  ck_assert (!wl_trace_dir_exists (dir, "w.7.et"));
}
END_TEST

/* The trace path and the form check as loading calls them: with the
 * listing, the same path, existence and error as without. */
START_TEST (test_trace_path_in)
{
  make_set ();
  g_autofree char *prefix = tu_scratch_path ("w");
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, N_FILES);
  g_autofree char *first = wl_chakra_trace_path (prefix, 0);
  for (guint r = 0; r <= N_FILES; r++)
    {
      gboolean exists = FALSE;
      g_autofree char *p = wl_chakra_trace_path (prefix, r);
      g_autofree char *q = wl_chakra_trace_path_in (dir, prefix, r, &exists);
      ck_assert_str_eq (p, q);
      ck_assert (exists == (access (p, F_OK) == 0));
      GError *e1 = NULL, *e2 = NULL;
      gboolean ok1 = wl_chakra_trace_form_check (prefix, r, p, r > 0 ? first : NULL, &e1);
      gboolean ok2 = wl_chakra_trace_form_check_in (dir, prefix, r, p, r > 0 ? first : NULL, &e2);
      ck_assert (ok1 == ok2);
      if (!ok1)
        ck_assert_str_eq (e1->message, e2->message);
      g_clear_error (&e1);
      g_clear_error (&e2);
    }
  /* By hand: rank 9 is its .json, rank 7 is missing (named as .et), and
   * rank 3's .json beside its .et is refused, naming both. */
  gboolean exists;
  g_autofree char *p9 = wl_chakra_trace_path_in (dir, prefix, 9, &exists);
  ck_assert (exists && g_str_has_suffix (p9, "w.9.json"));
  g_autofree char *p7 = wl_chakra_trace_path_in (dir, prefix, 7, &exists);
  ck_assert (!exists && g_str_has_suffix (p7, "w.7.et"));
  g_autofree char *p3 = wl_chakra_trace_path_in (dir, prefix, 3, &exists);
  GError *error = NULL;
  ck_assert (!wl_chakra_trace_form_check_in (dir, prefix, 3, p3, first, &error));
  ck_assert (g_error_matches (error, WL_ERROR, SIM_ERROR_INPUT));
  ck_assert_ptr_nonnull (strstr (error->message, "w.3.et and "));
  ck_assert_ptr_nonnull (strstr (error->message, "w.3.json: a workload's traces are all .et"));
  g_clear_error (&error);
}
END_TEST

/* The set's first file past its ranks: found past a gap, with or without
 * a listing made beforehand; the lowest rank, its .et before its .json;
 * names that only look like the set's are not taken; a dangling link is
 * not a file. */
START_TEST (test_past)
{
  touch ("p.0.et");
  touch ("p.1.et");
  touch ("p.012.et");     /* a leading zero: not how a set numbers ranks */
  touch ("p.5.et.bak");
  touch ("p.x.6.et");
  touch ("px.7.et");
  g_autofree char *prefix = tu_scratch_path ("p");
  g_autoptr (WlTraceDir) none = wl_trace_dir_new (prefix, 2); /* not listed: too few */
  ck_assert (!wl_trace_dir_listed (none));
  ck_assert_ptr_null (wl_trace_dir_past (none, 2));
  g_autofree char *dangling = tu_scratch_path ("p.4.et");
  ck_assert_int_eq (symlink ("nowhere", dangling), 0);
  touch ("p.9.json");
  touch ("p.9.et");
  touch ("p.11.et");
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, 2);
  g_autofree char *past = wl_trace_dir_past (dir, 2);
  g_autofree char *want = tu_scratch_path ("p.9.et");
  ck_assert_str_eq (past, want);
  ck_assert (wl_trace_dir_listed (dir));
  g_autofree char *past10 = wl_trace_dir_past (dir, 10);
  g_autofree char *want10 = tu_scratch_path ("p.11.et");
  ck_assert_str_eq (past10, want10);
  ck_assert_ptr_null (wl_trace_dir_past (dir, 12));
}
END_TEST

/* A directory of more entries than a listing is kept for (here 400
 * others beside a set of 2, whose limit is 32 x 8 + 64): the stray past
 * the gap is found all the same, the listing being for that question
 * alone worth its cost (it was given up, and the stray passed). */
START_TEST (test_past_crowded)
{
  touch ("q.0.et");
  touch ("q.1.et");
  touch ("q.3.et");
  for (guint i = 0; i < 400; i++)
    {
      g_autofree char *name = g_strdup_printf ("other.%u", i);
      touch (name);
    }
  g_autofree char *prefix = tu_scratch_path ("q");
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, 2);
  g_autofree char *past = wl_trace_dir_past (dir, 2);
  g_autofree char *want = tu_scratch_path ("q.3.et");
  ck_assert_str_eq (past, want);
  /* And a set big enough to be listed at first, given up as crowded. */
  for (guint r = 2; r < 40; r++)
    if (r != 3)
      {
        g_autofree char *name = g_strdup_printf ("q.%u.et", r);
        touch (name);
      }
  for (guint i = 400; i < 800; i++)
    {
      g_autofree char *name = g_strdup_printf ("other.%u", i);
      touch (name);
    }
  touch ("q.41.et");
  g_autoptr (WlTraceDir) big = wl_trace_dir_new (prefix, 40); /* limit 384 */
  ck_assert (!wl_trace_dir_listed (big));
  g_autofree char *past40 = wl_trace_dir_past (big, 40);
  g_autofree char *want40 = tu_scratch_path ("q.41.et");
  ck_assert_str_eq (past40, want40);
}
END_TEST

/* A number past any rank (2^32, or more digits than 64 bits hold) is
 * still a file of the set past the topology's ranks, as 2^32 - 1 is
 * (those two were not seen as the set's and passed). */
START_TEST (test_past_huge)
{
  static const char *const names[]
      = { "r.4294967296.et", "r.99999999999999999999.json", "r.4294967295.et" };
  touch ("r.0.et");
  g_autofree char *prefix = tu_scratch_path ("r");
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      touch (names[i]);
      g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, 1);
      g_autofree char *past = wl_trace_dir_past (dir, 1);
      g_autofree char *want = tu_scratch_path (names[i]);
      ck_assert_str_eq (past, want);
      g_autofree char *path = tu_scratch_path (names[i]);
      ck_assert_int_eq (unlink (path), 0);
    }
  /* Of two huge ones the lower, whatever the listing's order (in byte
   * order the higher comes first). */
  touch ("r.100000000000000000000.et");
  touch ("r.99999999999999999999.json");
  touch ("r.99999999999999999999.et");
  g_autoptr (WlTraceDir) dir = wl_trace_dir_new (prefix, 1);
  g_autofree char *past = wl_trace_dir_past (dir, 1);
  g_autofree char *want = tu_scratch_path ("r.99999999999999999999.et");
  ck_assert_str_eq (past, want);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("trace_dir");
  TCase *tc = tu_tcase (s, "trace_dir", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_listed_same_as_access);
  tcase_add_test (tc, test_unlisted_same_as_access);
  tcase_add_test (tc, test_relative_prefix);
  tcase_add_test (tc, test_trace_path_in);
  tcase_add_test (tc, test_past);
  tcase_add_test (tc, test_past_crowded);
  tcase_add_test (tc, test_past_huge);
  return tu_run_suite (s);
}
