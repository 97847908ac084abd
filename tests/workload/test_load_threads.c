/* test_load_threads.c: parallel loading (wl_graph_cache_prefetch) against
 * the one-thread path it must equal: on a generated set where some files
 * are byte-identical copies of others, every rank gets the same graph,
 * node by node, shared by the same ranks (the lowest's); a fault in a
 * later file is reported as the one-thread load reports it, and the same
 * budget stops both at the same file; all of it also when the files are
 * hashed a file or two at a time (wl_graph_cache_set_piece), and when the
 * first files are taken on the caller's thread (wl_graph_cache_set_serial).
 */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/graph.h"
#include "workload/graph_cache.h"
#include "workload/kernels.h"

#define RANKS 8

/* A generated 8-rank set (TP 2, PP 2, DP 2: every file distinct; 4 of
 * the preset's 32 layers, which keeps the suite under valgrind to a
 * fraction of the time, with files of 9 KB still), then
 * ranks 3, 5 and 6 overwritten with copies of ranks 1, 1 and 2, so that
 * the set has five distinct files and three duplicates.  PATHS receives
 * the files (owned). */
static void
write_set (char **paths)
{
  g_autofree char *prefix = tu_scratch_path ("set");
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b", "--tp",
                         "2", "--pp", "2", "--layers", "4", "--ranks", "8", "--global-batch", "4",
                         "--micro-batch", "1", "--out", prefix, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 0);
  for (guint i = 0; i < RANKS; i++)
    paths[i] = g_strdup_printf ("%s.%u.et", prefix, i);
  static const guint copies[][2] = { { 3, 1 }, { 5, 1 }, { 6, 2 } };
  for (guint c = 0; c < G_N_ELEMENTS (copies); c++)
    {
      g_autofree char *bytes = NULL;
      gsize len = 0;
      ck_assert (g_file_get_contents (paths[copies[c][1]], &bytes, &len, NULL));
      ck_assert (g_file_set_contents (paths[copies[c][0]], bytes, (gssize) len, NULL));
    }
}

static void
free_paths (char **paths)
{
  for (guint i = 0; i < RANKS; i++)
    g_free (paths[i]);
}

/* What loading PATHS in rank order gave, call by call. */
typedef struct
{
  WlGraph *graphs[RANKS]; /* NULL past the stop */
  guint32 stopped_at;     /* the call that failed, or RANKS */
  gboolean over;
  char *message;          /* its error, or NULL */
} LoadResult;

/* How a load is made. */
typedef struct
{
  guint threads;
  guint64 budget; /* each file gets what is left of it (0: none) */
  guint64 piece;  /* files hashed in pieces of these bytes (0: the default,
                   * one piece here) */
  guint64 serial; /* wl_graph_cache_set_serial's bytes (0: none) */
} LoadHow;

/* Load PATHS as replay does (replay_load.c): each file with what is left
 * of HOW's budget after the graphs before it. */
static void
load_how (char **paths, const LoadHow *how, LoadResult *res)
{
  *res = (LoadResult) { .stopped_at = RANKS };
  guint64 budget = how->budget;
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  wl_graph_cache_set_threads (cache, how->threads);
  if (how->piece > 0)
    wl_graph_cache_set_piece (cache, how->piece);
  wl_graph_cache_set_serial (cache, how->serial);
  wl_graph_cache_prefetch (cache, (const char *const *) paths, RANKS,
                           budget == 0 ? G_MAXUINT64 : budget);
  guint64 total = 0;
  for (guint32 i = 0; i < RANKS; i++)
    {
      guint64 limit = budget == 0 ? G_MAXUINT64 : budget - MIN (total, budget);
      guint before = wl_graph_cache_distinct (cache);
      GError *error = NULL;
      res->graphs[i] = wl_graph_cache_load_limited (cache, paths[i], limit, &res->over, &error);
      if (res->graphs[i] == NULL)
        {
          res->stopped_at = i;
          res->message = error != NULL ? g_strdup (error->message) : NULL;
          g_clear_error (&error);
          return;
        }
      if (wl_graph_cache_distinct (cache) > before)
        total += wl_graph_bytes (res->graphs[i]);
    }
}

/* Load PATHS on THREADS threads, hashed in pieces of PIECE bytes (0: the
 * default). */
static void
load_pieces (char **paths, guint threads, guint64 budget, guint64 piece, LoadResult *res)
{
  LoadHow how = { .threads = threads, .budget = budget, .piece = piece };
  load_how (paths, &how, res);
}

static void
load_all (char **paths, guint threads, guint64 budget, LoadResult *res)
{
  load_pieces (paths, threads, budget, 0, res);
}

static void
result_clear (LoadResult *res)
{
  for (guint i = 0; i < RANKS; i++)
    g_clear_pointer (&res->graphs[i], wl_graph_unref);
  g_clear_pointer (&res->message, g_free);
}

/* A and B are equal, field by field and node by node. */
static void
assert_same_graph (const WlGraph *a, const WlGraph *b)
{
  ck_assert_str_eq (a->path, b->path);
  ck_assert_uint_eq (a->n_nodes, b->n_nodes);
  ck_assert_uint_eq (a->n_roots, b->n_roots);
  ck_assert_uint_eq (a->n_streams, b->n_streams);
  ck_assert_uint_eq (a->name_bytes, b->name_bytes);
  ck_assert_uint_eq (a->n_skipped_unknown, b->n_skipped_unknown);
  ck_assert_uint_eq (a->group_defs->len, b->group_defs->len);
  /* Compact renamed graphs (graph.h) are read through wl_graph_node_at. */
  guint32 ha = 0, hb = 0;
  WlNode ta, tb;
  for (guint32 v = 0; v < a->n_nodes; v++)
    {
      const WlNode *x = wl_graph_node_at (a, v, &ha, &ta);
      const WlNode *y = wl_graph_node_at (b, v, &hb, &tb);
      tu_assert_same_node (x, y);
      ck_assert_uint_eq (x->child_start, y->child_start);
      ck_assert_uint_eq (x->n_children, y->n_children);
      ck_assert_uint_eq (x->n_parents, y->n_parents);
      ck_assert_str_eq (a->names[v], b->names[v]);
      for (guint32 k = 0; k < x->n_children; k++)
        ck_assert_uint_eq (a->children[x->child_start + k], b->children[y->child_start + k]);
    }
  ck_assert (wl_kernel_lists_equal (a->kernels, b->kernels));
}

/* SERIAL and PARALLEL stopped at the same call, the same way, and gave
 * the same graphs before it, shared by the same ranks. */
static void
assert_same_load (const LoadResult *serial, const LoadResult *parallel)
{
  ck_assert_uint_eq (serial->stopped_at, parallel->stopped_at);
  ck_assert_int_eq (serial->over, parallel->over);
  ck_assert_str_eq (serial->message ? serial->message : "(none)",
                    parallel->message ? parallel->message : "(none)");
  for (guint32 i = 0; i < serial->stopped_at; i++)
    {
      assert_same_graph (serial->graphs[i], parallel->graphs[i]);
      for (guint32 j = 0; j < i; j++)
        ck_assert_int_eq (serial->graphs[i] == serial->graphs[j],
                          parallel->graphs[i] == parallel->graphs[j]);
    }
}

START_TEST (test_same_graphs)
{
  char *paths[RANKS];
  write_set (paths);
  LoadResult one, two, three;
  load_all (paths, 1, 0, &one);
  load_all (paths, 2, 0, &two);
  load_all (paths, 3, 0, &three);
  ck_assert_uint_eq (one.stopped_at, RANKS);
  /* The copies share the graph of the lowest rank with their bytes. */
  ck_assert_ptr_eq (two.graphs[3], two.graphs[1]);
  ck_assert_ptr_eq (two.graphs[5], two.graphs[1]);
  ck_assert_ptr_eq (two.graphs[6], two.graphs[2]);
  ck_assert_ptr_ne (two.graphs[4], two.graphs[0]);
  ck_assert_str_eq (two.graphs[5]->path, paths[1]);
  assert_same_load (&one, &two);
  assert_same_load (&one, &three);
  /* Hashed a file or two at a time (pieces of 1 byte: each piece is the
   * files claimed before the first one's bytes are counted), then
   * decoded: the same graphs, shared alike. */
  LoadResult small2, small3;
  load_pieces (paths, 2, 0, 1, &small2);
  load_pieces (paths, 3, 0, 1, &small3);
  assert_same_load (&one, &small2);
  assert_same_load (&one, &small3);
  ck_assert_ptr_eq (small2.graphs[6], small2.graphs[2]);
  result_clear (&small2);
  result_clear (&small3);
  result_clear (&one);
  result_clear (&two);
  result_clear (&three);
  free_paths (paths);
}
END_TEST

/* PATH's length in bytes. */
static guint64
file_len (const char *path)
{
  GStatBuf st;
  ck_assert_int_eq (g_stat (path, &st), 0);
  return (guint64) st.st_size;
}

/* The first files taken on the caller's thread (wl_graph_cache_set_serial),
 * the rest by the workers: the same graphs as one thread gives, shared
 * alike (ranks 3 and 6, taken by the workers, copy ranks 1 and 2, taken
 * before them), and the same budget stops. */
START_TEST (test_serial_start)
{
  char *paths[RANKS];
  write_set (paths);
  /* Ranks 0 to 2 serial: the workers start at rank 3. */
  guint64 three = file_len (paths[0]) + file_len (paths[1]) + file_len (paths[2]);
  LoadResult one, mixed, all_serial;
  load_all (paths, 1, 0, &one);
  load_how (paths, &(LoadHow) { .threads = 2, .serial = three }, &mixed);
  load_how (paths, &(LoadHow) { .threads = 2, .serial = G_MAXUINT64 }, &all_serial);
  ck_assert_uint_eq (one.stopped_at, RANKS);
  assert_same_load (&one, &mixed);
  assert_same_load (&one, &all_serial);
  ck_assert_ptr_eq (mixed.graphs[3], mixed.graphs[1]);
  ck_assert_ptr_eq (mixed.graphs[6], mixed.graphs[2]);
  guint64 sum = 0;
  for (guint32 i = 0; i < RANKS; i++)
    sum += wl_graph_bytes (one.graphs[i]);
  result_clear (&one);
  result_clear (&mixed);
  result_clear (&all_serial);
  for (guint step = 1; step <= 10; step++)
    {
      guint64 budget = sum * step / 8;
      LoadResult a, b;
      load_all (paths, 1, budget, &a);
      load_how (paths, &(LoadHow) { .threads = 2, .budget = budget, .serial = three }, &b);
      assert_same_load (&a, &b);
      result_clear (&a);
      result_clear (&b);
    }
  free_paths (paths);
}
END_TEST

/* Cut PATH's file short by BYTES. */
static void
cut_file (const char *path, gsize bytes)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  ck_assert (g_file_get_contents (path, &data, &len, NULL));
  ck_assert (len > bytes);
  ck_assert (g_file_set_contents (path, data, (gssize) (len - bytes), NULL));
}

START_TEST (test_first_fault_in_rank_order)
{
  char *paths[RANKS];
  write_set (paths);
  /* Rank 4 truncated, rank 7 missing: the load stops at rank 4, with the
   * reader's truncation message naming it, whatever the threads. */
  cut_file (paths[4], 3);
  ck_assert_int_eq (g_unlink (paths[7]), 0);
  LoadResult one, two;
  load_all (paths, 1, 0, &one);
  load_all (paths, 2, 0, &two);
  ck_assert_uint_eq (one.stopped_at, 4);
  ck_assert_ptr_nonnull (one.message);
  ck_assert (g_str_has_prefix (one.message, paths[4]));
  ck_assert_ptr_nonnull (strstr (one.message, "truncated"));
  assert_same_load (&one, &two);
  LoadResult small;
  load_pieces (paths, 2, 0, 1, &small);
  assert_same_load (&one, &small);
  result_clear (&small);
  result_clear (&one);
  result_clear (&two);
  /* Rank 2 missing too: now it is the first fault. */
  ck_assert_int_eq (g_unlink (paths[2]), 0);
  load_all (paths, 1, 0, &one);
  load_all (paths, 2, 0, &two);
  ck_assert_uint_eq (one.stopped_at, 2);
  ck_assert_ptr_nonnull (strstr (one.message, "Failed to open"));
  assert_same_load (&one, &two);
  result_clear (&one);
  result_clear (&two);
  free_paths (paths);
}
END_TEST

START_TEST (test_same_budget_stop)
{
  char *paths[RANKS];
  write_set (paths);
  /* The bytes of all the distinct graphs (ranks 0, 1, 2, 4, 7). */
  LoadResult all;
  load_all (paths, 1, 0, &all);
  guint64 sum = 0;
  static const guint32 distinct[] = { 0, 1, 2, 4, 7 };
  for (guint k = 0; k < G_N_ELEMENTS (distinct); k++)
    sum += wl_graph_bytes (all.graphs[distinct[k]]);
  result_clear (&all);
  /* Budgets from a tenth of that to three times it: the small ones stop
   * the load over them in rank 0, the middle ones at a later file (the
   * workers have decoded past it by then), the large ones not at all; with
   * one thread or two, at the same file. */
  guint in_middle = 0, whole = 0, in_first = 0;
  for (guint step = 1; step <= 30; step++)
    {
      guint64 budget = sum * step / 10;
      LoadResult one, two, small;
      load_all (paths, 1, budget, &one);
      load_all (paths, 2, budget, &two);
      load_pieces (paths, 2, budget, 1, &small);
      assert_same_load (&one, &two);
      assert_same_load (&one, &small);
      result_clear (&small);
      ck_assert_ptr_null (one.message);
      ck_assert_int_eq (one.over, one.stopped_at < RANKS);
      in_first += one.stopped_at == 0;
      in_middle += one.stopped_at > 0 && one.stopped_at < RANKS;
      whole += one.stopped_at == RANKS;
      result_clear (&one);
      result_clear (&two);
    }
  ck_assert_uint_gt (in_first, 0);
  ck_assert_uint_gt (in_middle, 0);
  ck_assert_uint_gt (whole, 0);
  free_paths (paths);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("load_threads");
  TCase *tc = tu_tcase (s, "load_threads", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_test (tc, test_same_graphs);
  tcase_add_test (tc, test_first_fault_in_rank_order);
  tcase_add_test (tc, test_same_budget_stop);
  tcase_add_test (tc, test_serial_start);
  return tu_run_suite (s);
}
