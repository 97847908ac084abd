/* test_limits.c: runs stopped by --max-events and --max-sim-time, absurd
 * sizes rejected before simulating, and a simulated clock that overflows.
 *
 * Expected values are worked out by hand from the workloads: chains of COMP
 * nodes of fixed durations on an exact ring.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <string.h>

#include "sim/app/plotdata.h"
#include "support/modes.h"
#include "support/report_read.h"
#include "support/testutil.h"

/* A ring of `ranks` at exactly 1 byte per ns, 100 ns per hop. */
static char *
write_ring (guint ranks)
{
  return tu_ring_config (ranks, "local-mem-bw=\"1000GB/s\" reduction-passes=\"3\"", "");
}

/* Every rank of `ranks` runs a chain of `n` COMP nodes of `micros` us each. */
static char *
write_chains (guint ranks, guint n, guint64 micros)
{
  char *prefix = tu_scratch_path ("chain");
  for (guint32 r = 0; r < ranks; r++)
    {
      g_autofree ChakraProtoMsg__Node **nodes = g_new (ChakraProtoMsg__Node *, n);
      for (guint i = 0; i < n; i++)
        {
          nodes[i] = tu_comp (i + 1, micros);
          if (i > 0)
            tu_node_dep (nodes[i], i);
        }
      tu_write_rank (prefix, r, nodes, n);
    }
  return prefix;
}

static JsonNode *
load_json (const char *path)
{
  g_autoptr (JsonParser) p = json_parser_new ();
  g_autoptr (GError) error = NULL;
  ck_assert_msg (json_parser_load_from_file (p, path, &error), "%s",
                 error ? error->message : "");
  return json_node_copy (json_parser_get_root (p));
}

static char *
read_text (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* orrery run --config CFG --workload WL, then the extra arguments.  Without
 * extras, in every mode (tu_run_modes); the extras here pick a mode or a
 * limit (where a run stops depends on the events the mode simulates), so
 * those runs are made once, as given. */
static int
run (char **out, const char *cfg, const char *wl, const char *const *extra)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *head[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl };
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (gpointer) head[i]);
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  const char *const *args = (const char *const *) argv->pdata;
  return extra == NULL ? tu_run_modes (out, args) : tu_run (out, args);
}

#define US G_GINT64_CONSTANT (1000000)

/* A chain of 10 us COMP nodes stopped at 35 us: the nodes ending at 10, 20
 * and 30 us finished, the fourth was running.  Each rank's finish is 30 us,
 * its compute 30 us; the critical path is the three finished nodes. */
static void
check_time_limit (const char *symmetry)
{
  g_autofree char *cfg = write_ring (2);
  g_autofree char *wl = write_chains (2, 5, 10);
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *stats = tu_scratch_path ("s.csv");
  g_autofree char *timeline = tu_scratch_path ("t.json");
  const char *extra[] = { "--max-sim-time", "35us", "--report", report, "--stats", stats,
                          "--timeline", timeline, "--symmetry", symmetry, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, cfg, wl, extra), 4);
  ck_assert_msg (strstr (out, "INCOMPLETE: stopped at simulated time 35.000 us; 0 of 2 ranks "
                              "finished\n") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "orrery run: stopped at simulated time 35.000 us "
                              "(--max-sim-time)") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "simulated time: 30.000 us") != NULL, "%s", out);

  g_autoptr (JsonNode) root = load_json (report);
  JsonObject *o = json_node_get_object (root);
  ck_assert (!json_object_get_boolean_member (o, "complete"));
  ck_assert_str_eq (json_object_get_string_member (o, "stopped"), "max-sim-time");
  ck_assert_int_eq (json_object_get_int_member (o, "stopped_at_ps"), 35 * US);
  ck_assert_int_eq (json_object_get_int_member (o, "ranks_finished"), 0);
  ck_assert_int_eq (json_object_get_int_member (o, "simulated_time_ps"), 30 * US);
  JsonArray *ranks = json_object_get_array_member (o, "ranks");
  ck_assert_uint_eq (json_array_get_length (ranks), 2);
  for (guint r = 0; r < 2; r++)
    {
      JsonObject *rk = json_array_get_object_element (ranks, r);
      ck_assert_int_eq (json_object_get_int_member (rk, "finish_ps"), 30 * US);
      ck_assert_int_eq (json_object_get_int_member (rk, "compute_ps"), 30 * US);
      ck_assert_int_eq (json_object_get_int_member (rk, "idle_ps"), 0);
    }
  JsonObject *cp = json_object_get_object_member (o, "critical_path");
  ck_assert_int_eq (json_object_get_int_member (cp, "length_ps"), 30 * US);
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (cp, "steps")), 3);
  ck_assert (json_object_has_member (o, "overview"));

  g_autofree char *csv = read_text (stats);
  ck_assert_msg (strstr (csv, "\n0,30000000,30000000,0,0,0,0,0,5,0,0,0\n"
                              "1,30000000,30000000,0,0,0,0,0,5,0,0,0\n") != NULL, "%s", csv);
  g_autofree char *tl = read_text (timeline);
  ck_assert_ptr_nonnull (strstr (tl, "traceEvents"));
}

START_TEST (test_max_sim_time_symmetric)
{
  check_time_limit ("auto");
}
END_TEST

START_TEST (test_max_sim_time_every_rank)
{
  check_time_limit ("off");
}
END_TEST

/* Simulating every rank, a chain of n nodes takes one start event per rank
 * and one completion per node: 2 x (1 + 4) = 10 events for two ranks of 4
 * nodes.  Events at one time run rank 0 first: after 6 events (2 starts, 2
 * completions at 10 us, 2 at 20 us) each rank finished 2 nodes. */
START_TEST (test_max_events)
{
  g_autofree char *cfg = write_ring (2);
  g_autofree char *wl = write_chains (2, 4, 10);
  g_autofree char *full = tu_scratch_path ("full.json");
  const char *plain[] = { "-q", "--symmetry", "off", "--report", full, NULL };
  ck_assert_int_eq (run (NULL, cfg, wl, plain), 0);
  g_autoptr (JsonNode) froot = load_json (full);
  JsonObject *fo = json_node_get_object (froot);
  ck_assert_int_eq (json_object_get_int_member (fo, "events"), 10);
  ck_assert (json_object_get_boolean_member (fo, "complete"));
  ck_assert (!json_object_has_member (fo, "stopped"));

  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *stats = tu_scratch_path ("s.csv");
  const char *extra[] = { "--symmetry", "off", "--max-events", "6", "--report", report,
                          "--stats", stats, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, cfg, wl, extra), 4);
  ck_assert_msg (strstr (out, "INCOMPLETE: stopped at the event limit 6; 0 of 2 ranks finished\n")
                     != NULL, "%s", out);
  ck_assert_msg (strstr (out, "orrery run: stopped at the event limit 6 (--max-events)") != NULL,
                 "%s", out);
  g_autoptr (JsonNode) root = load_json (report);
  JsonObject *o = json_node_get_object (root);
  ck_assert (!json_object_get_boolean_member (o, "complete"));
  ck_assert_str_eq (json_object_get_string_member (o, "stopped"), "max-events");
  ck_assert_int_eq (json_object_get_int_member (o, "events"), 6);
  ck_assert_int_eq (json_object_get_int_member (o, "stopped_at_ps"), 20 * US);
  ck_assert_int_eq (json_object_get_int_member (o, "simulated_time_ps"), 20 * US);
  g_autofree char *csv = read_text (stats);
  ck_assert_msg (strstr (csv, "\n0,20000000,20000000,0,0,0,0,0,4,0,0,0\n"
                              "1,20000000,20000000,0,0,0,0,0,4,0,0,0\n") != NULL, "%s", csv);

  /* Quiet: no summary, the one line on stderr still. */
  const char *quiet[] = { "-q", "--symmetry", "off", "--max-events", "9", NULL };
  g_autofree char *qout = NULL;
  ck_assert_int_eq (run (&qout, cfg, wl, quiet), 4);
  ck_assert_str_eq (qout, "orrery run: stopped at the event limit 9 (--max-events); 1 of 2 "
                          "ranks finished; the outputs cover what was simulated\n");
}
END_TEST

/* An event limit reached before every rank has started: with one event
 * only rank 0 starts (its first 10 us node is running), so no node has
 * finished.  The outputs that read the node records (critical path,
 * report, timeline) cover that, where rank 1 had no records and the run
 * crashed. */
START_TEST (test_max_events_before_every_rank_starts)
{
  g_autofree char *cfg = write_ring (2);
  g_autofree char *wl = write_chains (2, 4, 10);
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *timeline = tu_scratch_path ("t.json");
  const char *extra[] = { "--symmetry", "off", "--max-events", "1", "--report", report,
                          "--timeline", timeline, "--critical-path", "3", NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, cfg, wl, extra), 4);
  ck_assert_msg (strstr (out, "critical path: 0 ns in 0 steps") != NULL, "%s", out);
  g_autoptr (JsonNode) root = load_json (report);
  JsonObject *o = json_node_get_object (root);
  ck_assert_int_eq (json_object_get_int_member (o, "events"), 1);
  ck_assert_int_eq (json_object_get_int_member (o, "ranks_finished"), 0);
  JsonObject *cp = json_object_get_object_member (o, "critical_path");
  ck_assert_uint_eq (json_array_get_length (json_object_get_array_member (cp, "steps")), 0);
  g_autofree char *tl = read_text (timeline);
  ck_assert_ptr_nonnull (strstr (tl, "traceEvents"));
}
END_TEST

/* Limits the run does not reach, including an event limit equal to the
 * events it needs and a time limit at its last event, change nothing. */
START_TEST (test_limits_not_reached)
{
  g_autofree char *cfg = write_ring (2);
  g_autofree char *wl = write_chains (2, 4, 10);
  g_autofree char *base = tu_scratch_path ("base.json");
  const char *plain[] = { "-q", "--symmetry", "off", "--report", base, NULL };
  ck_assert_int_eq (run (NULL, cfg, wl, plain), 0);
  g_autofree char *expected = read_text (base);
  ck_assert_ptr_nonnull (strstr (expected, "\"complete\" : true"));
  const char *limits[][4] = { { "--max-events", "10", NULL, NULL },
                              { "--max-events", "1000000", "--max-sim-time", "1s" },
                              { "--max-sim-time", "40us", NULL, NULL } };
  for (guint i = 0; i < G_N_ELEMENTS (limits); i++)
    {
      g_autofree char *path = tu_scratch_path ("limited.json");
      const char *extra[] = { "-q", "--symmetry", "off", "--report", path, limits[i][0],
                              limits[i][1], limits[i][2], limits[i][3], NULL };
      g_autofree char *out = NULL;
      ck_assert_int_eq (run (&out, cfg, wl, extra), 0);
      ck_assert_str_eq (out, "");
      g_autofree char *got = read_text (path);
      ck_assert_str_eq (got, expected);
    }
}
END_TEST

START_TEST (test_bad_limit_values)
{
  g_autofree char *cfg = write_ring (2);
  g_autofree char *wl = write_chains (2, 1, 10);
  const char *bad[][2] = { { "--max-events", "0" },      { "--max-events", "-5" },
                           { "--max-events", "many" },   { "--max-events", "10us" },
                           { "--max-sim-time", "0us" },  { "--max-sim-time", "-1ms" },
                           { "--max-sim-time", "10" },   { "--max-sim-time", "soon" } };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      const char *extra[] = { bad[i][0], bad[i][1], NULL };
      g_autofree char *out = NULL;
      ck_assert_int_eq (run (&out, cfg, wl, extra), 1);
      g_autofree char *want = g_strdup_printf ("orrery run: %s: '%s'", bad[i][0], bad[i][1]);
      ck_assert_msg (g_str_has_prefix (out, want), "%s", out);
      ck_assert_msg (strchr (out, '\n') == out + strlen (out) - 1, "one line: %s", out);
    }
  /* 2^64 is a whole number of events, too large to count: said so (it
   * was "not a whole number of events"); 2^64 - 1 is a limit never
   * reached. */
  g_autofree char *out = NULL;
  const char *huge[] = { "--max-events", "18446744073709551616", NULL };
  ck_assert_int_eq (run (&out, cfg, wl, huge), 1);
  ck_assert_str_eq (out, "orrery run: --max-events: '18446744073709551616' is too large "
                         "(over 2^64 - 1 events)\n");
  g_clear_pointer (&out, g_free);
  const char *top[] = { "--max-events", "18446744073709551615", "-q", NULL };
  ck_assert_int_eq (run (&out, cfg, wl, top), 0);
}
END_TEST

/* ---- absurd sizes, rejected before simulating ----------------------------------- */

static void
expect_error (const char *cfg, const char *wl, int code, const char *needle)
{
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, cfg, wl, NULL), code);
  ck_assert_msg (strstr (out, needle) != NULL, "expected '%s' in: %s", needle, out);
}

static char *
write_dims (const char *dims)
{
  g_autofree char *xml = g_strdup_printf (
      "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"big\">\n"
      "  <network model=\"analytical\">\n%s"
      "  </network>\n"
      "</cluster>\n", dims);
  return tu_write_file ("big.xml", xml);
}

START_TEST (test_dimension_size_zero)
{
  g_autofree char *wl = write_chains (1, 1, 10);
  g_autofree char *cfg = write_dims (
      "    <dim kind=\"Ring\" size=\"0\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n");
  expect_error (cfg, wl, 1, "big.xml:4");
  g_autofree char *net = tu_write_file (
      "net.yml", "topology: [ Ring ]\nnpus_count: [ 0 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
  g_autofree char *sys = tu_write_file ("sys.json", "{\"scheduling-policy\": \"LIFO\"}\n");
  const char *argv[] = { tu_orrery (), "run", "--astra-network", net, "--astra-system", sys,
                         "--workload", wl, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 1);
  ck_assert_msg (strstr (out, "net.yml:2: 'npus_count' entry 0") != NULL, "%s", out);
}
END_TEST

/* 1000 x 1000 x 1000 = 10^9 ranks: far above the 2^24 supported. */
START_TEST (test_too_many_ranks)
{
  g_autofree char *wl = write_chains (1, 1, 10);
  g_autofree char *cfg = write_dims (
      "    <dim kind=\"Ring\" size=\"1000\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "    <dim kind=\"Ring\" size=\"1000\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "    <dim kind=\"Ring\" size=\"1000\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n");
  expect_error (cfg, wl, 1, "big.xml:6: <dim>: the dimensions make 1000000000 ranks or more; at most "
                            "16777216 (2^24");
  g_autofree char *net = tu_write_file ("net.yml", "topology: [ Ring, Ring, Ring ]\n"
                                                   "npus_count: [ 1000, 1000, 1000 ]\n"
                                                   "bandwidth: [ 50, 50, 50 ]\n"
                                                   "latency: [ 500, 500, 500 ]\n");
  g_autofree char *sys = tu_write_file ("sys.json", "{\"scheduling-policy\": \"LIFO\"}\n");
  const char *argv[] = { tu_orrery (), "run", "--astra-network", net, "--astra-system", sys,
                         "--workload", wl, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 1);
  ck_assert_msg (strstr (out, "net.yml:2: npus_count makes 1000000000 ranks or more; at most "
                              "16777216") != NULL, "%s", out);
}
END_TEST

/* Collectives on 4 ranks at 1 GB/s.  An all-gather of 2^62 bytes moves 4
 * times that through a rank: beyond 2^63 bytes.  An all-reduce of 2^61
 * bytes fits the counters (2 x 2^61) but takes 2^62 x 1000 ps: beyond the
 * clock. */
START_TEST (test_comm_size_overflow)
{
  g_autofree char *cfg = write_ring (4);
  struct
  {
    int type;
    gint64 bytes;
    const char *needle;
  } cases[] = {
    { CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_GATHER, G_GINT64_CONSTANT (1) << 62,
      "chain.0.et: node 1: comm_size 4611686018427387904 bytes x 4 (what it moves through one "
      "rank) overflows 2^63 bytes" },
    { CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, G_GINT64_CONSTANT (1) << 61,
      "chain.0.et: node 1: comm_size 2305843009213693952 bytes x 2 at the slowest link "
      "(1.00 GB/s) takes past 2^63 ps" },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *wl = tu_scratch_path ("chain");
      for (guint32 r = 0; r < 4; r++)
        {
          ChakraProtoMsg__Node *nodes[] = { tu_coll (1, cases[c].type, cases[c].bytes) };
          tu_write_rank (wl, r, nodes, 1);
        }
      expect_error (cfg, wl, 1, cases[c].needle);
    }
}
END_TEST

/* A bandwidth too small for "0.00 GB/s" is printed in a unit that shows
 * it: in the summary's network line (2 KB/s) and in the clock-overflow
 * error (0.25 B/s: an all-reduce of 4 MiB moves 2 x 4 MiB = 2^23 bytes
 * through a rank, 2^25 s = 3.4e19 ps, past 2^63 ps). */
START_TEST (test_tiny_bandwidth_shown)
{
  g_autofree char *wl = tu_scratch_path ("chain");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = {
        tu_coll (1, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 4 << 20) };
      tu_write_rank (wl, r, nodes, 1);
    }
  g_autofree char *slow = tu_write_file ("slow.xml",
                                         "<cluster name=\"slow\"><network model=\"analytical\">"
                                         "<dim kind=\"Ring\" size=\"4\" bandwidth=\"0.25B/s\""
                                         " latency=\"1ns\"/></network></cluster>\n");
  expect_error (slow, wl, 1, "at the slowest link (0.25 B/s) takes past 2^63 ps");
  g_autofree char *wl2 = tu_scratch_path ("small");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = {
        tu_coll (1, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 4096) };
      tu_write_rank (wl2, r, nodes, 1);
    }
  g_autofree char *kb = tu_write_file ("kb.xml",
                                       "<cluster name=\"kb\"><network model=\"analytical\">"
                                       "<dim kind=\"Ring\" size=\"4\" bandwidth=\"2KB/s\""
                                       " latency=\"1ns\"/></network></cluster>\n");
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, kb, wl2, NULL), 0);
  ck_assert_msg (strstr (out, "Ring 4 (2.00 KB/s") != NULL && strstr (out, "0.00 GB/s") == NULL,
                 "%s", out);
  /* The collectives table keeps its column's unit, GB/s, stated in the
   * header (the row said "1.33 KB/s  2.00 KB/s" under "algbw  busbw"): a
   * ring all-reduce of 4096 B on 4 ranks is 6 steps of 1024 B at 2000 B/s,
   * 3.072 s; algbw 4096 B / 3.072 s = 1333.3 B/s, busbw x 2 (4 - 1) / 4 =
   * 2000 B/s. */
  ck_assert_msg (strstr (out, "late joins   algbw GB/s   busbw GB/s  algorithm\n") != NULL, "%s",
                 out);
  ck_assert_msg (strstr (out, "3.072 s        0 ns     1.33e-06        2e-06  ring\n") != NULL,
                 "%s", out);
}
END_TEST

START_TEST (test_duration_overflow)
{
  g_autofree char *cfg = write_ring (1);
  /* 2 x 10^13 us = 2 x 10^19 ps > 2^64. */
  g_autofree char *wl = write_chains (1, 1, G_GUINT64_CONSTANT (20000000000000));
  expect_error (cfg, wl, 1, "duration_micros overflows the clock");
}
END_TEST

/* One node of 10^13 us: the clock holds its 10^19 ps (under 2^64), which
 * is past 2^63, and the report and the stats write it exactly (the report
 * once wrote it through a gint64, as -8446744073709551616). */
START_TEST (test_time_past_2_63)
{
  g_autofree char *cfg = write_ring (1);
  g_autofree char *wl = write_chains (1, 1, G_GUINT64_CONSTANT (10000000000000));
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *stats = tu_scratch_path ("s.csv");
  const char *extra[] = { "--report", report, "--stats", stats, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, cfg, wl, extra), 0);
  g_autofree char *json = read_text (report);
  ck_assert (strstr (json, "\"simulated_time_ps\" : 10000000000000000000,") != NULL);
  ck_assert (strstr (json, "\"finish_ps\" : 10000000000000000000,") != NULL);
  ck_assert (strstr (json, "\"finish_ns\" : 10000000000000000,") != NULL);
  ck_assert (strstr (json, ": -") == NULL); /* no negative figure */
  g_autofree char *csv = read_text (stats);
  ck_assert_msg (strstr (csv, "\n0,10000000000000000000,10000000000000000000,") != NULL, "%s",
                 csv);
  /* plot-data reads the report as it is written: 10^19 ps = 10^10 ms. */
  g_autofree char *plot = tu_scratch_path ("plot");
  GError *error = NULL;
  ck_assert_msg (app_plot_data (report, plot, &error), "%s", error ? error->message : "");
  g_autofree char *meta_path = g_build_filename (plot, "meta.gp", NULL);
  g_autofree char *meta = read_text (meta_path);
  ck_assert_msg (strstr (meta, "simulated_ms = 10000000000.000000000\n") != NULL, "%s", meta);
}
END_TEST

/* Two nodes of 10^13 us (10^19 ps) each: the second ends past 2^64 ps. */
START_TEST (test_clock_overflow)
{
  g_autofree char *cfg = write_ring (1);
  g_autofree char *wl = write_chains (1, 2, G_GUINT64_CONSTANT (10000000000000));
  g_autofree char *report = tu_scratch_path ("r.json");
  const char *extra[] = { "--report", report, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (run (&out, cfg, wl, extra), 4);
  ck_assert_msg (strstr (out, "orrery run: simulated time overflows the clock") != NULL, "%s",
                 out);
  ck_assert_msg (strstr (out, "rank 0: 1 of 2 nodes unfinished; blocked in node 2") != NULL,
                 "%s", out);
  ck_assert (!g_file_test (report, G_FILE_TEST_EXISTS));
}
END_TEST

/* A configuration that never ends (/dev/zero) is refused after 256 MiB
 * rather than read until memory runs out: in every loader and a sweep's
 * <config path>. */
START_TEST (test_endless_config)
{
  if (!g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    return;
  g_autofree char *wl = write_chains (1, 1, 10);
  g_autofree char *cfg = write_ring (1);
  const char *needle = "/dev/zero: longer than 256 MiB: not a configuration file";
  g_autofree char *sys = tu_write_file ("sys.json", "{\"scheduling-policy\": \"LIFO\"}\n");
  const char *runs[][9] = {
    { "run", "--config", "/dev/zero", "--workload", wl, NULL },
    { "run", "--astra-network", "/dev/zero", "--astra-system", sys, "--workload", wl, NULL },
    { "run", "--config", cfg, "--comm-groups", "/dev/zero", "--workload", wl, NULL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      const char *argv[10] = { tu_orrery () };
      for (guint k = 0; runs[i][k] != NULL; k++)
        argv[k + 1] = runs[i][k];
      g_autofree char *out = NULL;
      ck_assert_int_eq (tu_run (&out, argv), 1);
      ck_assert_msg (strstr (out, needle) != NULL, "case %u: %s", i, out);
    }
  g_autofree char *spec = tu_write_file (
      "endless.xml", "<sweep name=\"endless\">\n"
                     "  <config path=\"/dev/zero\"/>\n"
                     "  <workload prefix=\"w\"/>\n"
                     "  <grid><param name=\"n\" select=\"/cluster/@name\" "
                     "values=\"a b\"/></grid>\n"
                     "</sweep>\n");
  g_autofree char *outdir = tu_scratch_path ("endless-out");
  const char *argv[] = { tu_orrery (), "sweep", "expand", spec, outdir, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 1);
  ck_assert_msg (strstr (out, needle) != NULL, "%s", out);
}
END_TEST

/* Memory exhaustion is reported, not a crash: 2^24 ranks (the most
 * supported) in an address space of 1 GB, where the per-rank collective
 * queues (analytical) or the links' state (congestion) cannot be allocated.
 * Skipped under AddressSanitizer and valgrind, whose own bookkeeping needs
 * more address space than that. */
START_TEST (test_out_of_memory)
{
#ifdef __SANITIZE_ADDRESS__
  return;
#endif
  if (g_getenv ("ORRERY_UNDER_VALGRIND") != NULL)
    return;
  struct
  {
    const char *model, *needle;
  } cases[] = {
    { "analytical", "out of memory allocating 16777216 x " },
    { "congestion", "out of memory allocating 67108864 x " },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *xml = g_strdup_printf (
          "<?xml version=\"1.0\"?>\n"
          "<cluster name=\"huge\" rounding=\"ps\">\n"
          "  <network model=\"%s\">\n"
          "    <dim kind=\"Switch\" size=\"4096\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
          "    <dim kind=\"Switch\" size=\"4096\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
          "  </network>\n"
          "</cluster>\n", cases[c].model);
      g_autofree char *cfg = tu_write_file ("huge.xml", xml);
      g_autofree char *wl = tu_scratch_path ("absent");
      g_autofree char *script = g_strdup_printf ("ulimit -v 1000000 && exec \"$0\" run --config "
                                                 "'%s' --workload '%s'", cfg, wl);
      const char *argv[] = { "/bin/sh", "-c", script, tu_orrery (), NULL };
      g_autofree char *out = NULL;
      ck_assert_int_eq (tu_run (&out, argv), 1);
      ck_assert_msg (strstr (out, cases[c].needle) != NULL, "%s: %s", cases[c].model, out);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("limits");
  TCase *tc = tu_tcase (s, "limits", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_max_sim_time_symmetric);
  tcase_add_test (tc, test_max_sim_time_every_rank);
  tcase_add_test (tc, test_max_events);
  tcase_add_test (tc, test_max_events_before_every_rank_starts);
  tcase_add_test (tc, test_limits_not_reached);
  tcase_add_test (tc, test_bad_limit_values);
  tcase_add_test (tc, test_dimension_size_zero);
  tcase_add_test (tc, test_too_many_ranks);
  tcase_add_test (tc, test_comm_size_overflow);
  tcase_add_test (tc, test_tiny_bandwidth_shown);
  tcase_add_test (tc, test_duration_overflow);
  tcase_add_test (tc, test_clock_overflow);
  tcase_add_test (tc, test_time_past_2_63);
  tcase_add_test (tc, test_endless_config);
  tcase_add_test (tc, test_out_of_memory);
  return tu_run_suite (s);
}
