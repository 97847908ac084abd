/* test_report_memory.c: the memory the report, the timeline and the
 * critical path take, through the binary (simulation.h:
 * app_sim_set_output_memory).
 *
 * A chain of CHAIN_NODES compute nodes on one rank makes the critical path
 * visit every node (the largest path per node, as scripts/bench's 1 M-node
 * case).  With a memory budget the traces fit in but the node records and
 * what the outputs allocate after the run do not, run must refuse before
 * simulating (exit 1, nothing simulated, no file), naming the sizes, where
 * it used to simulate and then run out of memory writing the report (an
 * abort in GLib when the allocation failed).  The budget is found, not
 * written in: the smallest at which the traces load in memory, by
 * bisection over runs without records; records and outputs (40 + 100 bytes
 * a node here) do not fit in what the loader's working memory leaves.
 * Given room for them, the same run completes and its report lists every
 * node on the path.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra.h"

/* Over 1 MiB of records (the message names them in MiB), and a dozen runs
 * that valgrind takes in about a minute. */
#define CHAIN_NODES 30000

static char *config_path;
static char *workload;

/* PREFIX.0.et: CHAIN_NODES compute nodes of 1 us, each depending on the
 * previous one. */
static void
write_chain (const char *prefix)
{
  g_autofree char *path = g_strdup_printf ("%s.0.et", prefix);
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", &error);
  g_assert_no_error (error);
  ChakraProtoMsg__Node node;
  chakra_proto_msg__node__init (&node);
  node.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
  node.duration_micros = 1;
  guint64 dep = 0;
  for (guint64 id = 1; id <= CHAIN_NODES; id++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "comp_%" G_GUINT64_FORMAT, id);
      node.id = id;
      node.name = name;
      dep = id - 1;
      node.data_deps = &dep;
      node.n_data_deps = id > 1 ? 1 : 0;
      ck_assert (wl_chakra_writer_add (w, &node, &error));
    }
  ck_assert (wl_chakra_writer_close (w, &error));
}

static void
setup (void)
{
  tu_scratch_setup ();
  config_path = tu_write_file (
      "one_rank.xml",
      "<cluster name=\"one-rank\" rounding=\"ps\">\n"
      "  <network model=\"analytical\">\n"
      "    <dim kind=\"Ring\" size=\"1\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\" active-chunks-per-dim=\"1\"\n"
      "          splits=\"1\" local-mem-bw=\"1000GB/s\" reduction-passes=\"3\"/>\n"
      "</cluster>\n");
  workload = tu_scratch_path ("chain");
  write_chain (workload);
}

static void
teardown (void)
{
  g_clear_pointer (&config_path, g_free);
  g_clear_pointer (&workload, g_free);
  tu_scratch_teardown ();
}

/* Run with a budget of KIB KiB and EXTRA (NULL-terminated): the exit
 * status, the output in *OUT. */
static int
run_budget (guint64 kib, const char *const *extra, char **out)
{
  g_autofree char *budget = g_strdup_printf ("%" G_GUINT64_FORMAT "KiB", kib);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *head[] = { tu_orrery (), "run", "--config", config_path, "--workload", workload,
                         "--memory-budget", budget };
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (gpointer) head[i]);
  for (guint i = 0; extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  return tu_run (out, (const char *const *) argv->pdata);
}

/* The smallest budget, in KiB, at which the chain loads in memory (a run
 * without records says nothing of streaming), to 16 KiB: between 32 and
 * 1024 bytes a node (a graph node alone is 88). */
static guint64
smallest_in_memory_kib (void)
{
  g_autofree char *stats = tu_scratch_path ("s.csv");
  const char *extra[] = { "--stats", stats, NULL };
  guint64 lo = CHAIN_NODES * 32 / 1024, hi = CHAIN_NODES; /* streamed at lo, in memory at hi */
  while (hi - lo > 16)
    {
      guint64 mid = lo + (hi - lo) / 2;
      g_autofree char *out = NULL;
      ck_assert_int_eq (run_budget (mid, extra, &out), 0);
      if (strstr (out, "streamed") != NULL)
        lo = mid;
      else
        hi = mid;
    }
  return hi;
}

START_TEST (test_outputs_over_budget_refused_up_front)
{
  guint64 kib = smallest_in_memory_kib ();
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *timeline = tu_scratch_path ("t.json");
  const char *extra[] = { "--report", report, "--timeline", timeline, "--critical-path", "3",
                          NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (run_budget (kib, extra, &out), 1);
  /* Sizes named: the records are 40 bytes a node. */
  g_autofree char *records = g_strdup_printf ("needs %.2f MiB of node records",
                                              CHAIN_NODES * 40.0 / 1048576.0);
  ck_assert_msg (strstr (out, "--report/--timeline/--critical-path") != NULL
                   && strstr (out, records) != NULL
                   && strstr (out, "for the outputs written after the run") != NULL
                   && strstr (out, "passes the memory budget") != NULL,
                 "%s", out);
  /* Before simulating: no summary, no file. */
  ck_assert_msg (strstr (out, "simulated time") == NULL, "%s", out);
  ck_assert (!g_file_test (report, G_FILE_TEST_EXISTS));
  ck_assert (!g_file_test (timeline, G_FILE_TEST_EXISTS));

  /* With room for them (records and outputs are under 200 bytes a node),
   * the same run completes and the path holds every node. */
  g_clear_pointer (&out, g_free);
  guint64 room = kib + CHAIN_NODES * 200 / 1024;
  ck_assert_int_eq (run_budget (room, extra, &out), 0);
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  ck_assert (json_parser_load_from_file (p, report, &error));
  JsonObject *cp = json_object_get_object_member (json_node_get_object (json_parser_get_root (p)),
                                                  "critical_path");
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (cp, "steps")),
                     CHAIN_NODES);
}
END_TEST

static Suite *
report_memory_suite (void)
{
  Suite *s = suite_create ("report_memory");
  TCase *tc = tu_tcase (s, "report_memory", setup, teardown, 60);
  tcase_add_test (tc, test_outputs_over_budget_refused_up_front);
  return s;
}

int
main (void)
{
  return tu_run_suite (report_memory_suite ());
}
