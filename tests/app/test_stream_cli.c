/* test_stream_cli.c: `orrery run --memory-budget` end to end, through the
 * built binary: a streamed run prints the same summary and writes the same
 * --stats and --links files, byte for byte, as the run that loads the
 * traces whole; options that need every node are refused; bad values are
 * usage errors; and a trace too large for the address space is an
 * out-of-memory error (exit 1), not a crash, while streaming it fits.
 */
#include <check.h>
#include <string.h>
#include <sys/wait.h>

#include "support/testutil.h"
#include "workload/chakra.h"

/* Run ARGV (NULL-terminated); stdout and stderr apart.  Returns the exit
 * status. */
static int
run (const char *const *argv, char **out, char **err)
{
  int status = 0;
  GError *error = NULL;
  ck_assert (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err,
                           &status, &error));
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static char *
contents (const char *path)
{
  char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s", path);
  return text;
}

/* A transformer iteration on 8 ranks (tensor 2, pipeline 2, data 2): no
 * two ranks alike, so the symmetric shortcut is out either way. */
static char *
gen_transformer (void)
{
  char *prefix = tu_scratch_path ("t8");
  const char *argv[] = { tu_orrery (), "gen", "transformer", "--preset", "llama2-7b",
                         "--layers", "4", "--tp", "2", "--pp", "2", "--dp", "2",
                         "--global-batch", "8", "--micro-batch", "1", "--out", prefix, NULL };
  ck_assert_int_eq (tu_run (NULL, argv), 0);
  return prefix;
}

/* Run the workload with the extra option OPT (or none): exit 0; the
 * summary, the --stats and --links files' contents are returned, and
 * stderr. */
typedef struct
{
  char *summary, *stats, *links, *err;
} Outputs;

static void
outputs_clear (Outputs *o)
{
  g_free (o->summary);
  g_free (o->stats);
  g_free (o->links);
  g_free (o->err);
}

static Outputs
run_outputs (const char *cfg, const char *wl, const char *opt, const char *value)
{
  g_autofree char *stats = tu_scratch_path ("stats.csv");
  g_autofree char *links = tu_scratch_path ("links.csv");
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                         "--stats", stats, "--links", links, opt, value, NULL };
  Outputs o = { 0 };
  ck_assert_int_eq (run (argv, &o.summary, &o.err), 0);
  o.stats = contents (stats);
  o.links = contents (links);
  return o;
}

static void
assert_same_outputs (const Outputs *a, const Outputs *b)
{
  ck_assert_str_eq (a->summary, b->summary);
  ck_assert_str_eq (a->stats, b->stats);
  ck_assert_str_eq (a->links, b->links);
}

/* A tiny budget streams (the smallest window, 64 nodes per rank, against
 * some 300 nodes per rank): the same summary, stats and links as the
 * default run, which loads the traces whole; "none" and "0" load them
 * whole too. */
START_TEST (test_same_outputs)
{
  g_autofree char *cfg = tu_write_file ("c8.xml", tu_cluster_c4x2);
  g_autofree char *wl = gen_transformer ();
  Outputs whole = run_outputs (cfg, wl, NULL, NULL);
  ck_assert_msg (strstr (whole.err, "streamed") == NULL, "%s", whole.err);
  ck_assert_msg (strstr (whole.summary, "simulated time:") != NULL, "%s", whole.summary);
  const char *budgets[] = { "1B", "10KiB", "50KB" };
  for (guint i = 0; i < G_N_ELEMENTS (budgets); i++)
    {
      Outputs streamed = run_outputs (cfg, wl, "--memory-budget", budgets[i]);
      ck_assert_msg (strstr (streamed.err, "streamed, 64 nodes per rank at a time") != NULL,
                     "%s: %s", budgets[i], streamed.err);
      assert_same_outputs (&whole, &streamed);
      outputs_clear (&streamed);
    }
  const char *unlimited[] = { "none", "0", "1GiB" };
  for (guint i = 0; i < G_N_ELEMENTS (unlimited); i++)
    {
      Outputs o = run_outputs (cfg, wl, "--memory-budget", unlimited[i]);
      ck_assert_msg (strstr (o.err, "streamed") == NULL, "%s: %s", unlimited[i], o.err);
      assert_same_outputs (&whole, &o);
      outputs_clear (&o);
    }
  outputs_clear (&whole);
}
END_TEST

/* A symmetric workload (one all-reduce, every rank alike): the default
 * takes the shortcut; streamed, every rank is simulated, with the results
 * of --symmetry off. */
START_TEST (test_symmetry_falls_back)
{
  g_autofree char *cfg = tu_write_file ("c8.xml", tu_cluster_c4x2);
  g_autofree char *wl = tu_scratch_path ("ar");
  const char *gen[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks", "8",
                        "--bytes", "1MiB", "--count", "3", "--out", wl, NULL };
  ck_assert_int_eq (tu_run (NULL, gen), 0);
  g_autofree char *s1 = NULL, *e1 = NULL, *s2 = NULL, *e2 = NULL, *s3 = NULL, *e3 = NULL;
  const char *dflt[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl, NULL };
  const char *off[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                        "--symmetry", "off", NULL };
  const char *streamed[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                             "--memory-budget", "1B", NULL };
  ck_assert_int_eq (run (dflt, &s1, &e1), 0);
  ck_assert_int_eq (run (off, &s2, &e2), 0);
  ck_assert_int_eq (run (streamed, &s3, &e3), 0);
  ck_assert_msg (strstr (s1, "symmetric: every rank runs the same trace") != NULL, "%s", s1);
  ck_assert_msg (strstr (e3, "streamed") != NULL, "%s", e3);
  ck_assert_str_eq (s2, s3);
}
END_TEST

/* A window names the nodes it holds.  A budget of 9 MiB on 2 ranks is 4.5
 * MiB each, 64 KiB for the reader and 128 bytes a slot: 36352 slots, held
 * in blocks of 4096 nodes, so 8 blocks: 32768 nodes.  Every node is ready
 * at the start, so node 32768 (the first not held) is read too late, and
 * the message must say the window is of 32768 nodes, not 36352. */
START_TEST (test_window_named_as_held)
{
  g_autofree char *cfg = tu_write_file ("r2.xml",
                                        "<?xml version=\"1.0\"?>\n"
                                        "<cluster name=\"r2\">\n"
                                        "  <network model=\"analytical\">\n"
                                        "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\""
                                        " latency=\"100ns\"/>\n"
                                        "  </network>\n"
                                        "</cluster>\n");
  g_autofree char *wl = tu_scratch_path ("flat");
  enum { N = 300000 }; /* ranks unlike (durations): 2 graphs over the budget */
  g_autofree ChakraProtoMsg__Node **nodes = g_new (ChakraProtoMsg__Node *, N);
  for (guint32 r = 0; r < 2; r++)
    {
      for (guint i = 0; i < N; i++)
        nodes[i] = tu_comp (i, 1 + r);
      tu_write_rank (wl, r, nodes, N);
    }
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                         "--memory-budget", "9MiB", NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = run (argv, &out, &err);
  ck_assert_msg (status == 1, "exit %d: %s", status, err);
  ck_assert_msg (strstr (err, "32768 nodes") != NULL && strstr (err, "36352") == NULL, "%s", err);
}
END_TEST

/* --report, --timeline and --critical-path keep a record per node: with a
 * budget the traces do not fit, they are refused before anything runs. */
START_TEST (test_refused)
{
  g_autofree char *cfg = tu_write_file ("c8.xml", tu_cluster_c4x2);
  g_autofree char *wl = gen_transformer ();
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *timeline = tu_scratch_path ("t.json");
  struct
  {
    const char *opt, *value, *named;
  } cases[] = {
    { "--report", report, "--report needs every trace node in memory" },
    { "--timeline", timeline, "--timeline needs every trace node in memory" },
    { "--critical-path", "3", "--critical-path needs every trace node in memory" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                             "--memory-budget", "1KiB", cases[i].opt, cases[i].value, NULL };
      g_autofree char *out = NULL, *err = NULL;
      ck_assert_int_eq (run (argv, &out, &err), 1);
      ck_assert_msg (strstr (err, cases[i].named) != NULL, "%s", err);
      ck_assert_msg (strstr (err, "do not fit the memory budget (--memory-budget 1 KiB)") != NULL
                     && strstr (err, "--memory-budget none") != NULL, "%s", err);
      ck_assert_str_eq (out, "");
    }
  ck_assert (!g_file_test (report, G_FILE_TEST_EXISTS));
  ck_assert (!g_file_test (timeline, G_FILE_TEST_EXISTS));
  /* Several at once are named together; with room for the traces, they
   * work. */
  const char *both[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                         "--memory-budget", "1KiB", "--report", report, "--timeline", timeline,
                         NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq (run (both, &out, &err), 1);
  ck_assert_msg (strstr (err, "--report/--timeline needs every trace node") != NULL, "%s", err);
  const char *fits[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", wl,
                         "--memory-budget", "64MiB", "--report", report, NULL };
  ck_assert_int_eq (tu_run (NULL, fits), 0);
  ck_assert (g_file_test (report, G_FILE_TEST_EXISTS));
}
END_TEST

START_TEST (test_bad_values)
{
  g_autofree char *cfg = tu_write_file ("c8.xml", tu_cluster_c4x2);
  g_autofree char *wl = gen_transformer ();
  const char *bad[] = { "12x", "5", "-1MiB", "1.5B", "lots", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl,
                             "--memory-budget", bad[i], NULL };
      g_autofree char *out = NULL, *err = NULL;
      ck_assert_int_eq (run (argv, &out, &err), 1);
      ck_assert_msg (g_str_has_prefix (err, "orrery run: --memory-budget: "), "'%s': %s", bad[i],
                     err);
      ck_assert_str_eq (out, "");
    }
  const char *help[] = { tu_orrery (), "run", "--help", NULL };
  g_autofree char *out = NULL, *err = NULL;
  ck_assert_int_eq (run (help, &out, &err), 0);
  ck_assert_msg (strstr (out, "--memory-budget=SIZE") != NULL, "%s", out);
}
END_TEST

/* 2,000,000 COMP nodes of 1 us in a chain, 17 bytes each in the file: in
 * memory they take some 300 MB, more than an address space of 200 MB
 * holds.  Loaded whole (--memory-budget none) that is an input error, exit
 * 1, "out of memory allocating N bytes for ..."; streamed with a 32 MiB
 * budget the run fits and finishes at 2 s.  Skipped under
 * AddressSanitizer and valgrind, whose own bookkeeping needs more address
 * space. */
START_TEST (test_out_of_memory)
{
#if defined(__SANITIZE_ADDRESS__)
  return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return;
#endif
#endif
  if (g_getenv ("ORRERY_UNDER_VALGRIND") != NULL)
    return;
  g_autofree char *cfg = tu_write_file (
      "one.xml", "<?xml version=\"1.0\"?>\n"
                 "<cluster name=\"one\" rounding=\"ps\">\n"
                 "  <network model=\"analytical\">\n"
                 "    <dim kind=\"Ring\" size=\"1\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
                 "  </network>\n"
                 "</cluster>\n");
  g_autofree char *wl = tu_scratch_path ("big");
  g_autofree char *path = g_strdup_printf ("%s.0.et", wl);
  GError *error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", &error);
  g_assert_no_error (error);
  ChakraProtoMsg__Node n = CHAKRA_PROTO_MSG__NODE__INIT;
  n.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
  n.name = (char *) "c";
  n.duration_micros = 1;
  guint64 dep = 0;
  n.data_deps = &dep;
  for (guint64 id = 1; id <= 2000000; id++)
    {
      n.id = id;
      dep = id - 1;
      n.n_data_deps = id > 1;
      ck_assert (wl_chakra_writer_add (w, &n, &error));
    }
  ck_assert (wl_chakra_writer_close (w, &error));
  const char *budgets[] = { "none", "32MiB" };
  for (guint i = 0; i < G_N_ELEMENTS (budgets); i++)
    {
      g_autofree char *script = g_strdup_printf (
          "ulimit -v 200000 && exec \"$0\" run --config '%s' --workload '%s' --memory-budget %s",
          cfg, wl, budgets[i]);
      const char *argv[] = { "/bin/sh", "-c", script, tu_orrery (), NULL };
      g_autofree char *out = NULL, *err = NULL;
      int status = run (argv, &out, &err);
      if (i == 0)
        {
          ck_assert_int_eq (status, 1);
          ck_assert_msg (g_str_has_prefix (err, "orrery run: ")
                         && strstr (err, "big.0.et: out of memory allocating ") != NULL
                         && strstr (err, " bytes for ") != NULL, "%s", err);
        }
      else
        {
          ck_assert_msg (status == 0, "%s", err);
          ck_assert_msg (strstr (out, "simulated time: 2.000 s") != NULL, "%s", out);
        }
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("stream_cli");
  TCase *tc = tu_tcase (s, "stream_cli", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_test (tc, test_same_outputs);
  tcase_add_test (tc, test_symmetry_falls_back);
  tcase_add_test (tc, test_refused);
  tcase_add_test (tc, test_window_named_as_held);
  tcase_add_test (tc, test_bad_values);
  tcase_add_test (tc, test_out_of_memory);
  return tu_run_suite (s);
}
