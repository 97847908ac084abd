/* test_report.c: the JSON report (--report), the per-rank CSV (--stats) and
 * the critical-path listing (--critical-path) of the orrery program.
 *
 * Each test writes a native cluster config and small traces, runs the
 * binary and reads what it wrote.  The cluster is exact: a 1-D ring at
 * 1 GB/s (1 byte per ns), 100 ns per hop, no endpoint delay, no reduction
 * cost, one chunk per collective: a message of b bytes between ring
 * neighbours takes 100 + b ns.  A ring member sends step 0 when it joins
 * and step j + 1 once step j has arrived from its predecessor; an
 * all-reduce on p ranks takes 2(p - 1) steps of S/p bytes, an all-gather
 * p - 1 steps of comm_size bytes (system/algo_ring.c).  Expected figures are
 * derived in the comments from those rules and nccl-tests' definitions.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support/modes.h"
#include "support/report_read.h"
#include "support/testutil.h"
#include "workload/chakra.h"

enum
{
  T_COMP = 4, T_SEND = 5, T_RECV = 6
};

enum
{
  ALL_REDUCE = 0, ALL_GATHER = 2
};

static ChakraProtoMsg__Node *
coll_in (guint64 id, int comm_type, gint64 bytes, const char *group)
{
  ChakraProtoMsg__Node *n = tu_coll (id, comm_type, bytes);
  tu_node_attr_string (n, "pg_name", group);
  return n;
}

/* Three ranks on a 3-ring, with a message, two all-reduces on all ranks and
 * an all-gather on group 1 = {0, 1} (defined in the config):
 *   rank 0: 1 COMP 10 us -> 2 SEND 1000 B to 1 -> 3 all-reduce 300 B
 *           -> 4 all-gather 200 B on group 1 -> 5 all-reduce 600 B
 *   rank 1: 1 COMP 2 us; 2 RECV from 0 -> 3 COMP 3 us -> 4 all-reduce 300 B
 *           -> 5 all-gather 200 B on group 1 -> 6 all-reduce 600 B
 *   rank 2: 1 COMP `late_us` -> 2 all-reduce 300 B -> 3 all-reduce 600 B
 * With `tail` FALSE only the first all-reduce is there (nodes 1-3, 1-4,
 * 1-2). */
static const char groups_xml[] = "  <groups><group id=\"1\" ranks=\"0-1\"/></groups>\n";

static void
write_three_ranks (guint64 late_us, gboolean tail)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *s0 = tu_p2p (2, T_SEND, 0, 1, 0, 1000);
  ChakraProtoMsg__Node *a0 = tu_coll (3, ALL_REDUCE, 300);
  ChakraProtoMsg__Node *g0 = coll_in (4, ALL_GATHER, 200, "1");
  ChakraProtoMsg__Node *b0 = tu_coll (5, ALL_REDUCE, 600);
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 10), s0, a0, g0, b0 };
  tu_node_dep (s0, 1);
  tu_node_dep (a0, 2);
  tu_node_dep (g0, 3);
  tu_node_dep (b0, 4);
  tu_write_rank (wl, 0, n0, tail ? 5 : 3);
  if (!tail)
    {
      tu_node_free (g0);
      tu_node_free (b0);
    }
  ChakraProtoMsg__Node *c1 = tu_comp (3, 3), *a1 = tu_coll (4, ALL_REDUCE, 300);
  ChakraProtoMsg__Node *g1 = coll_in (5, ALL_GATHER, 200, "1");
  ChakraProtoMsg__Node *b1 = tu_coll (6, ALL_REDUCE, 600);
  ChakraProtoMsg__Node *r1 = tu_p2p (2, T_RECV, 0, 1, 0, 1000);
  ChakraProtoMsg__Node *n1[] = { tu_comp (1, 2), r1, c1, a1, g1, b1 };
  tu_node_dep (c1, 2);
  tu_node_dep (a1, 3);
  tu_node_dep (g1, 4);
  tu_node_dep (b1, 5);
  tu_write_rank (wl, 1, n1, tail ? 6 : 4);
  if (!tail)
    {
      tu_node_free (g1);
      tu_node_free (b1);
    }
  ChakraProtoMsg__Node *a2 = tu_coll (2, ALL_REDUCE, 300), *b2 = tu_coll (3, ALL_REDUCE, 600);
  ChakraProtoMsg__Node *n2[] = { tu_comp (1, late_us), a2, b2 };
  tu_node_dep (a2, 1);
  tu_node_dep (b2, 2);
  tu_write_rank (wl, 2, n2, tail ? 3 : 2);
  if (!tail)
    tu_node_free (b2);
}

static char *
file_sha256 (const char *path)
{
  g_autofree char *bytes = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &bytes, &len, NULL));
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) bytes, len);
}

/* Schema 2; the inputs name the config and every trace with their SHA-256
 * (computed here from the files); one entry per rank. */
START_TEST (test_structure_and_inputs)
{
  write_three_ranks (50, TRUE);
  g_autofree char *cfg = tu_report_ring (3, groups_xml);
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *out = tu_report_run (cfg, (const char *[]) { "-q", "--report", report, NULL });
  g_autoptr (JsonParser) parser = tu_json_load (report);
  JsonObject *root = tu_json_root (parser);
  ck_assert_int_eq (tu_json_int (root, "schema_version"), 3);
  JsonObject *inputs = json_object_get_object_member (root, "inputs");
  ck_assert_ptr_nonnull (inputs);
  g_autofree char *wl = tu_scratch_path ("wl");
  ck_assert_str_eq (json_object_get_string_member (inputs, "workload"), wl);
  JsonArray *configs = tu_json_array (inputs, "configs");
  ck_assert_uint_eq (json_array_get_length (configs), 1);
  JsonObject *c = json_array_get_object_element (configs, 0);
  ck_assert_str_eq (json_object_get_string_member (c, "path"), cfg);
  g_autofree char *cfg_sum = file_sha256 (cfg);
  ck_assert_str_eq (json_object_get_string_member (c, "sha256"), cfg_sum);
  JsonArray *traces = tu_json_array (inputs, "traces");
  ck_assert_uint_eq (json_array_get_length (traces), 3);
  for (guint r = 0; r < 3; r++)
    {
      JsonObject *t = json_array_get_object_element (traces, r);
      g_autofree char *path = g_strdup_printf ("%s.%u.et", wl, r);
      g_autofree char *sum = file_sha256 (path);
      ck_assert_str_eq (json_object_get_string_member (t, "path"), path);
      ck_assert_str_eq (json_object_get_string_member (t, "sha256"), sum);
    }
  JsonArray *ranks = tu_json_array (root, "ranks");
  ck_assert_uint_eq (json_array_get_length (ranks), 3);
  const gint64 nodes[] = { 5, 6, 3 };
  for (guint r = 0; r < 3; r++)
    {
      JsonObject *o = json_array_get_object_element (ranks, r);
      ck_assert_int_eq (tu_json_int (o, "rank"), r);
      ck_assert_int_eq (tu_json_int (o, "nodes"), nodes[r]);
    }
  ck_assert (json_object_has_member (root, "critical_path"));
  JsonObject *ov = json_object_get_object_member (root, "overview");
  ck_assert_ptr_nonnull (ov);
  ck_assert_int_eq (tu_json_int (ov, "bins"), 100);
  ck_assert_int_eq (tu_json_int (ov, "bin_ps"), tu_json_ps (root, "simulated_time") / 100);
  ck_assert_uint_eq (json_array_get_length (tu_json_array (ov, "ranks")), 3);
}
END_TEST

/* (kind, group) as one string, for grouping. */
/* Assert that overview.ranks[r].bubble of the report at root holds, bin by
 * bin, want(b) (the writer's three decimals), and is within its comm. */
static void
assert_bubble_bins (JsonObject *root, guint r, double (*want) (guint b))
{
  JsonObject *ov = json_object_get_object_member (root, "overview");
  JsonArray *ranks = json_object_get_array_member (ov, "ranks");
  JsonObject *o = json_array_get_object_element (ranks, r);
  JsonArray *bubble = tu_json_array (o, "bubble");
  JsonArray *comm = tu_json_array (o, "comm");
  ck_assert_uint_eq (json_array_get_length (bubble), 100);
  for (guint b = 0; b < 100; b++)
    {
      double got = json_array_get_double_element (bubble, b);
      ck_assert_msg (fabs (got - want (b)) < 1e-9, "rank %u bin %u bubble %g, want %g", r, b,
                     got, want (b));
      ck_assert (got <= json_array_get_double_element (comm, b));
    }
}

static double
no_bubble (guint b)
{
  (void) b;
  return 0.0;
}

/* test_breakdown_by_hand's rank 1: bubble over [4, 16.1] us, in 100 bins
 * of 161 ns: bin 24, [3.864, 4.025) us, holds 25/161 = 0.155 of it, the
 * bins after it all. */
static double
rank1_bubble (guint b)
{
  return b < 24 ? 0.0 : (b == 24 ? 0.155 : 1.0);
}

static char *
row_key (JsonObject *o)
{
  return g_strdup_printf ("%s/%s", json_object_get_string_member (o, "kind"),
                          json_object_get_string_member (o, "group"));
}

/* Per rank: compute + exposed + idle = finish and finish + after_finish =
 * the simulated time, exactly; the CSV holds the same figures; the
 * collective table's totals are the sums over its instances; the ranks'
 * collective counts and bytes are the table's counts and bytes times its
 * ranks; the overview's bins, weighted, give back each rank's compute and
 * exposed communication to within their 3-decimal rounding. */
START_TEST (test_sums_and_stats_agree)
{
  write_three_ranks (50, TRUE);
  g_autofree char *cfg = tu_report_ring (3, groups_xml);
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *csv = tu_scratch_path ("s.csv");
  g_autofree char *out = tu_report_run (
      cfg, (const char *[]) { "-q", "--report", report, "--stats", csv, NULL });
  g_autoptr (JsonParser) parser = tu_json_load (report);
  JsonObject *root = tu_json_root (parser);
  gint64 end = tu_json_ps (root, "simulated_time");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  JsonArray *ranks = tu_json_array (root, "ranks");
  gint64 max_finish = 0, coll_sum = 0, coll_bytes_sum = 0;
  gboolean some_after = FALSE;
  for (guint r = 0; r < json_array_get_length (ranks); r++)
    {
      JsonObject *o = json_array_get_object_element (ranks, r);
      gint64 fin = tu_json_ps (o, "finish"), comp = tu_json_ps (o, "compute");
      gint64 exposed = tu_json_ps (o, "exposed_comm"), idle = tu_json_ps (o, "idle");
      gint64 after = tu_json_ps (o, "after_finish"), busy = tu_json_ps (o, "comm_busy");
      gint64 cpu = tu_json_ps (o, "cpu");
      tu_json_ps (o, "astra_exposed_comm");
      ck_assert_int_eq (comp + exposed + idle, fin);
      ck_assert_int_eq (fin + after, end);
      ck_assert (exposed <= busy && busy <= fin);
      max_finish = MAX (max_finish, fin);
      some_after |= after > 0;
      coll_sum += tu_json_int (o, "collectives");
      coll_bytes_sum += tu_json_int (o, "collective_bytes");
      g_auto (GStrv) f = tu_stats_row (text, r);
      const gint64 want[] = { r,     fin,  comp, exposed, idle,
                              after, busy, cpu,  tu_json_int (o, "nodes") };
      for (guint i = 0; i < G_N_ELEMENTS (want); i++)
        ck_assert_msg (tu_stats_field (f, i) == want[i],
                       "rank %u column %u: %s, JSON %" G_GINT64_FORMAT,
                       r, i, f[i], want[i]);
    }
  ck_assert_int_eq (max_finish, end);
  ck_assert (some_after); /* the ranks finish at different times */
  g_auto (GStrv) rows = g_strsplit (text, "\n", -1);
  ck_assert_uint_eq (g_strv_length (rows), 1 + 3 + 1);

  /* Instances grouped by (kind, group): count, bytes, total, late joins. */
  JsonArray *inst = tu_json_array (root, "collective_instances");
  ck_assert_uint_eq (json_array_get_length (inst), 3);
  g_autoptr (GHashTable) sums = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < json_array_get_length (inst); i++)
    {
      JsonObject *o = json_array_get_object_element (inst, i);
      char *key = row_key (o);
      gint64 *s = g_hash_table_lookup (sums, key);
      if (s == NULL)
        {
          s = g_new0 (gint64, 5);
          g_hash_table_insert (sums, key, s);
        }
      else
        g_free (key);
      gint64 first = tu_json_ps (o, "first_join"), last = tu_json_ps (o, "last_join");
      gint64 done = tu_json_ps (o, "done");
      ck_assert (first <= last && last <= done && done <= end);
      s[0]++;
      s[1] += tu_json_int (o, "bytes");
      s[2] += done - first;
      s[3] += last - first;
      s[4] = tu_json_int (o, "ranks");
    }
  JsonArray *colls = tu_json_array (root, "collectives");
  ck_assert_uint_eq (json_array_get_length (colls), 2);
  gint64 rows_colls = 0, rows_bytes = 0;
  for (guint i = 0; i < json_array_get_length (colls); i++)
    {
      JsonObject *o = json_array_get_object_element (colls, i);
      g_autofree char *key = row_key (o);
      gint64 *s = g_hash_table_lookup (sums, key);
      ck_assert_msg (s != NULL, "row %s has no instances", key);
      ck_assert_int_eq (tu_json_int (o, "count"), s[0]);
      /* nccl-tests' size, the summary's: all-gather's is its whole output,
       * the members times comm_size (all_gather/1: 2 x 200 bytes). */
      gboolean gather = g_str_equal (json_object_get_string_member (o, "kind"), "all_gather");
      ck_assert_int_eq (tu_json_int (o, "size_bytes"), gather ? s[1] * s[4] : s[1]);
      ck_assert (!json_object_has_member (o, "bytes"));
      ck_assert_int_eq (tu_json_ps (o, "total"), s[2]);
      ck_assert_int_eq (tu_json_ps (o, "late_joins"), s[3]);
      ck_assert_int_eq (tu_json_ps (o, "mean"), s[2] / s[0]);
      ck_assert_int_eq (tu_json_int (o, "ranks"), s[4]);
      rows_colls += s[0] * s[4];
      rows_bytes += s[1] * s[4];
    }
  /* all_reduce/all: 2 x 3 ranks; all_gather/1: 1 x 2 ranks. */
  ck_assert_int_eq (rows_colls, 8);
  ck_assert_int_eq (coll_sum, rows_colls);
  /* (300 + 600) x 3 + 200 x 2. */
  ck_assert_int_eq (rows_bytes, 3100);
  ck_assert_int_eq (coll_bytes_sum, rows_bytes);

  /* The overview, rounded to 3 decimals per bin: within 0.0005 x end. */
  JsonObject *ov = json_object_get_object_member (root, "overview");
  JsonArray *ovr = tu_json_array (ov, "ranks");
  for (guint r = 0; r < 3; r++)
    {
      JsonObject *o = json_array_get_object_element (ovr, r);
      JsonObject *rank = json_array_get_object_element (ranks, r);
      JsonArray *comp = tu_json_array (o, "compute"), *comm = tu_json_array (o, "comm");
      ck_assert_uint_eq (json_array_get_length (comp), 100);
      ck_assert_uint_eq (json_array_get_length (comm), 100);
      double cs = 0, es = 0;
      for (guint i = 0; i < 100; i++)
        {
          double w = (double) ((end * (i + 1)) / 100 - (end * i) / 100);
          double c = json_array_get_double_element (comp, i);
          double e = json_array_get_double_element (comm, i);
          ck_assert (c >= 0 && e >= 0 && c + e <= 1.0 + 1e-12);
          cs += c * w;
          es += e * w;
        }
      ck_assert (fabs (cs - (double) tu_json_ps (rank, "compute")) <= 0.0005 * (double) end + 1);
      ck_assert (fabs (es - (double) tu_json_ps (rank, "exposed_comm"))
                 <= 0.0005 * (double) end + 1);
    }
}
END_TEST

/* Two ranks:
 *   rank 0: 1 COMP 10 us -> 2 host COMP 5 us -> 3 SEND 1000 B to rank 1
 *   rank 1: 1 RECV 1000 B from rank 0; 2 COMP 4 us (independent)
 * Rank 0: COMP [0, 10], host [10, 15], send [15, 16.1] us (100 + 1000 ns):
 *   finish 16.1, compute 10, exposed 1.1, idle 5 (the host node), comm busy
 *   1.1, cpu 5, ASTRA's exposed (finish - compute) 6.1 us.
 * Rank 1: receive [0, 16.1], COMP [0, 4]: finish 16.1, compute 4, exposed
 *   12.1, idle 0, comm busy 16.1, cpu 0, ASTRA's exposed 12.1 us.
 * Both end at 16.1 us: nothing after finishing. */
START_TEST (test_breakdown_by_hand)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *cpu = tu_comp (2, 5), *s0 = tu_p2p (3, T_SEND, 0, 1, 0, 1000);
  tu_node_attr_bool (cpu, "is_cpu_op", TRUE);
  tu_node_dep (cpu, 1);
  tu_node_dep (s0, 2);
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 10), cpu, s0 };
  tu_write_rank (wl, 0, n0, 3);
  ChakraProtoMsg__Node *n1[] = { tu_p2p (1, T_RECV, 0, 1, 0, 1000), tu_comp (2, 4) };
  tu_write_rank (wl, 1, n1, 2);
  g_autofree char *cfg = tu_report_ring (2, "");
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *csv = tu_scratch_path ("s.csv");
  g_autofree char *out = tu_report_run (
      cfg, (const char *[]) { "-q", "--report", report, "--stats", csv, NULL });
  g_autoptr (JsonParser) parser = tu_json_load (report);
  JsonObject *root = tu_json_root (parser);
  ck_assert_int_eq (tu_json_ps (root, "simulated_time"), TU_NS (16100));
  /* finish, compute, exposed, idle, after, comm busy, cpu, astra exposed */
  const gint64 want[2][8] = {
    { TU_NS (16100), TU_US (10), TU_NS (1100), TU_US (5), 0, TU_NS (1100), TU_US (5),
      TU_NS (6100) },
    { TU_NS (16100), TU_US (4), TU_NS (12100), 0, 0, TU_NS (16100), 0, TU_NS (12100) },
  };
  const char *names[] = { "finish", "compute", "exposed_comm", "idle", "after_finish",
                          "comm_busy", "cpu", "astra_exposed_comm" };
  JsonArray *ranks = tu_json_array (root, "ranks");
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  for (guint r = 0; r < 2; r++)
    {
      JsonObject *o = json_array_get_object_element (ranks, r);
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        ck_assert_msg (tu_json_ps (o, names[i]) == want[r][i], "rank %u %s: %" G_GINT64_FORMAT
                       " ps, want %" G_GINT64_FORMAT, r, names[i], tu_json_ps (o, names[i]),
                       want[r][i]);
      ck_assert_int_eq (tu_json_int (o, "sends"), r == 0 ? 1 : 0);
      ck_assert_int_eq (tu_json_int (o, "send_bytes"), r == 0 ? 1000 : 0);
      ck_assert_int_eq (tu_json_int (o, "collectives"), 0);
      g_auto (GStrv) f = tu_stats_row (text, r);
      for (guint i = 0; i < 7; i++)
        ck_assert_int_eq (tu_stats_field (f, i + 1), want[r][i]);
      /* The pipeline bubble: rank 1's receive from rank 0 in flight with
       * no compute, [4, 16.1] us; rank 0 receives nothing. */
      gint64 bubble = r == 0 ? 0 : TU_NS (12100);
      ck_assert_int_eq (tu_json_ps (o, "pipeline_bubble"), bubble);
      ck_assert_int_eq (tu_stats_field (f, 9), bubble);
    }
  /* The overview gives the same bubble bin by bin, for the timeline plot. */
  assert_bubble_bins (root, 0, no_bubble);
  assert_bubble_bins (root, 1, rank1_bubble);
  ck_assert_uint_eq (json_array_get_length (tu_json_array (root, "collectives")), 0);
}
END_TEST

/* A collective exchange (sends and receives with an `exchange` attribute):
 *   rank 0: 1 COMP 10 us -> 2 SEND 1000 B to rank 1 (exchange "x")
 *   rank 1: 1 RECV 1000 B from rank 0 (exchange "x"); 2 COMP 4 us
 * Rank 0 sends over [10, 11.1] us: exposed 1.1 us, no exchange wait (a
 * send).  Rank 1's receive is in flight over [0, 11.1], computing over
 * [0, 4]: exposed 7.1 us, all of it waiting on the exchange, bubble 0.
 * The summary's row shows 0 ns, 0 ns, 7.100 us; the CSV adds the column,
 * the report the member and the mean (7.1 / 2 = 3.55 us). */
START_TEST (test_exchange_outputs)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *s0 = tu_p2p (2, T_SEND, 0, 1, 0, 1000);
  tu_node_attr_string (s0, "exchange", "x");
  tu_node_dep (s0, 1);
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 10), s0 };
  tu_write_rank (wl, 0, n0, 2);
  ChakraProtoMsg__Node *r1 = tu_p2p (1, T_RECV, 0, 1, 0, 1000);
  tu_node_attr_string (r1, "exchange", "x");
  ChakraProtoMsg__Node *n1[] = { r1, tu_comp (2, 4) };
  tu_write_rank (wl, 1, n1, 2);
  g_autofree char *cfg = tu_report_ring (2, "");
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *csv = tu_scratch_path ("s.csv");
  g_autofree char *out = tu_report_run (
      cfg, (const char *[]) { "--report", report, "--stats", csv, NULL });
  ck_assert_msg (strstr (out, "    in exchanges                   0 ns           0 ns"
                              "       7.100 us\n")
                     != NULL,
                 "%s", out);
  ck_assert_msg (strstr (out, "  pipeline bubble                  0 ns           0 ns"
                              "           0 ns\n")
                     != NULL,
                 "%s", out);
  /* The table by name: x, 0 ns, 0 ns, 7.1 us. */
  g_autofree char *row = g_strdup_printf ("  %-48s %14s %14s %14s\n", "x", "0 ns", "0 ns",
                                          "7.100 us");
  ck_assert_msg (strstr (out, row) != NULL, "%s", out);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (csv, &text, NULL, NULL));
  ck_assert_msg (strstr (text, ",hardware_flops,exchange_wait_ps\n") != NULL, "%s", text);
  g_autoptr (JsonParser) parser = tu_json_load (report);
  JsonObject *root = tu_json_root (parser);
  JsonArray *ranks = tu_json_array (root, "ranks");
  for (guint r = 0; r < 2; r++)
    {
      g_auto (GStrv) f = tu_stats_row (text, r);
      JsonObject *o = json_array_get_object_element (ranks, r);
      gint64 wait = r == 0 ? 0 : TU_NS (7100);
      ck_assert_int_eq (tu_stats_field (f, 3), r == 0 ? TU_NS (1100) : TU_NS (7100));
      ck_assert_int_eq (tu_stats_field (f, 9), 0);
      ck_assert_int_eq (tu_stats_field (f, 12), wait);
      ck_assert_int_eq (tu_json_ps (o, "exchange_wait"), wait);
      /* An exchange's receive is no bubble in the overview either. */
      assert_bubble_bins (root, r, no_bubble);
    }
  JsonObject *e = json_object_get_object_member (root, "efficiency");
  ck_assert_int_eq (json_object_get_int_member (e, "mean_exchange_wait_ps"), TU_NS (3550));
  JsonArray *ex = json_object_get_array_member (e, "exchanges");
  ck_assert_uint_eq (json_array_get_length (ex), 1);
  JsonObject *x = json_array_get_object_element (ex, 0);
  ck_assert_str_eq (json_object_get_string_member (x, "name"), "x");
  ck_assert_int_eq (json_object_get_int_member (x, "min_wait_ps"), 0);
  ck_assert_int_eq (json_object_get_int_member (x, "max_wait_ps"), TU_NS (7100));
  ck_assert_int_eq (json_object_get_int_member (x, "mean_wait_ps"), TU_NS (3550));
  /* The exchange as a row of the collectives table: 2 ranks took part, 1
   * message of 1000 B, from the send's start (10 us) to the receive's end
   * (11.1 us): 1.1 us, no late join (one rank sent); busbw the bytes a
   * rank received, 1000 / 2, over 1.1 us = 0.4545 GB/s, algbw x 2 / 1. */
  JsonArray *colls = tu_json_array (root, "collectives");
  ck_assert_uint_eq (json_array_get_length (colls), 1);
  JsonObject *c = json_array_get_object_element (colls, 0);
  ck_assert_str_eq (json_object_get_string_member (c, "kind"), "exchange");
  ck_assert_str_eq (json_object_get_string_member (c, "name"), "x");
  ck_assert_int_eq (json_object_get_int_member (c, "ranks"), 2);
  ck_assert_int_eq (json_object_get_int_member (c, "count"), 1);
  ck_assert_int_eq (json_object_get_int_member (c, "size_bytes"), 1000);
  ck_assert_int_eq (tu_json_ps (c, "total"), TU_NS (1100));
  ck_assert_int_eq (tu_json_ps (c, "late_joins"), 0);
  double bus = 500.0 / 1.1e-6 / 1e9;
  ck_assert (fabs (json_object_get_double_member (c, "busbw_GBps") - bus) < 1e-9);
  ck_assert (fabs (json_object_get_double_member (c, "algbw_GBps") - 2 * bus) < 1e-9);
  ck_assert_msg (strstr (out, "  exchange       -             2      1") != NULL, "%s", out);
  ck_assert_msg (strstr (out, "1.100 us           -        0 ns") != NULL, "%s", out);
}
END_TEST


/* The three-rank workload with rank 2 early (5 us) and only the first
 * all-reduce (300 B, 4 steps of 100 B, 200 ns a hop).  Rank 0 sends at
 * 10 us, the data is in at 11.1 us; joins: rank 2 at 5, rank 0 at 11.1,
 * rank 1 at 14.1 us (after its 3 us COMP).  From rank 1's join, steps move
 * around the ring in 0.2 us: done at 14.5 (rank 0), 14.7 (rank 1), 14.9 us
 * (rank 2).  The path, walked back from rank 2's all-reduce:
 *   rank 0 node 1 compute     [0, 10]       10   us
 *   rank 1 node 2 receive     [10, 11.1]    1.1  us  waited for rank 0 node 2
 *   rank 1 node 3 compute     [11.1, 14.1]  3    us
 *   rank 2 node 2 collective  [14.1, 14.9]  0.8  us  waited for rank 1 node 4
 * --critical-path 3 lists the 3 longest: rank 0 node 1, rank 1 node 3,
 * rank 1 node 2, and one more line for the rest. */
START_TEST (test_critical_path)
{
  write_three_ranks (5, FALSE);
  g_autofree char *cfg = tu_report_ring (3, "");
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *out = tu_report_run (
      cfg, (const char *[]) { "--critical-path", "3", "--report", report, NULL });
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  guint at = 0;
  while (lines[at] != NULL && !g_str_has_prefix (lines[at], "critical path:"))
    at++;
  ck_assert_msg (lines[at] != NULL, "no critical path in: %s", out);
  ck_assert_msg (strstr (lines[at], "in 4 steps") != NULL, "%s", lines[at]);
  ck_assert_msg (strstr (lines[at + 1], "contribution") != NULL, "%s", lines[at + 1]);
  const guint want[3][2] = { { 0, 1 }, { 1, 3 }, { 1, 2 } };
  const char *types[] = { "compute", "compute", "receive" };
  for (guint i = 0; i < 3; i++)
    {
      const char *line = lines[at + 2 + i];
      ck_assert_ptr_nonnull (line);
      guint rank = 99, node = 99;
      char type[32] = "";
      ck_assert_msg (sscanf (line, "%u %u %31s", &rank, &node, type) == 3, "'%s'", line);
      ck_assert_msg (rank == want[i][0] && node == want[i][1] && strcmp (type, types[i]) == 0,
                     "line %u: '%s'", i, line);
    }
  ck_assert_msg (strstr (lines[at + 4], "after rank 0 node 2 arrived") != NULL, "%s",
                 lines[at + 4]);
  ck_assert_msg (strstr (lines[at + 5], "1 more step") != NULL, "%s", lines[at + 5]);

  g_autoptr (JsonParser) parser = tu_json_load (report);
  JsonObject *root = tu_json_root (parser);
  JsonObject *cp = json_object_get_object_member (root, "critical_path");
  ck_assert_ptr_nonnull (cp);
  gint64 length = tu_json_ps (cp, "length");
  ck_assert_int_eq (length, TU_NS (14900));
  ck_assert_int_eq (length, tu_json_ps (root, "simulated_time"));
  JsonObject *by = json_object_get_object_member (cp, "by_type");
  ck_assert_int_eq (tu_json_ps (by, "compute"), TU_US (13));
  ck_assert_int_eq (tu_json_ps (by, "receive"), TU_NS (1100));
  ck_assert_int_eq (tu_json_ps (by, "collective"), TU_NS (800));
  ck_assert_int_eq (tu_json_ps (by, "send") + tu_json_ps (by, "cpu") + tu_json_ps (by, "memory")
                        + tu_json_ps (by, "other"), 0);
  JsonArray *steps = tu_json_array (cp, "steps");
  ck_assert_uint_eq (json_array_get_length (steps), 4);
  const struct
  {
    gint64 rank, node;
    const char *type;
    gint64 from, to, wrank, wnode;
  } path[] = {
    { 0, 1, "compute", 0, TU_US (10), -1, -1 },
    { 1, 2, "receive", TU_US (10), TU_NS (11100), 0, 2 },
    { 1, 3, "compute", TU_NS (11100), TU_NS (14100), -1, -1 },
    { 2, 2, "collective", TU_NS (14100), TU_NS (14900), 1, 4 },
  };
  gint64 sum = 0;
  for (guint i = 0; i < 4; i++)
    {
      JsonObject *s = json_array_get_object_element (steps, i);
      ck_assert_int_eq (tu_json_int (s, "rank"), path[i].rank);
      ck_assert_int_eq (tu_json_int (s, "node"), path[i].node);
      ck_assert_str_eq (json_object_get_string_member (s, "type"), path[i].type);
      ck_assert_int_eq (tu_json_ps (s, "from"), path[i].from);
      ck_assert_int_eq (tu_json_ps (s, "to"), path[i].to);
      ck_assert_int_eq (tu_json_ps (s, "contribution"), path[i].to - path[i].from);
      ck_assert_int_eq (json_object_has_member (s, "waited_for"), path[i].wrank >= 0);
      if (path[i].wrank >= 0)
        {
          JsonObject *w = json_object_get_object_member (s, "waited_for");
          ck_assert_int_eq (tu_json_int (w, "rank"), path[i].wrank);
          ck_assert_int_eq (tu_json_int (w, "node"), path[i].wnode);
        }
      sum += tu_json_ps (s, "contribution");
    }
  ck_assert_int_eq (sum, length);
}
END_TEST

static char *
read_all (const char *path)
{
  char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* Two runs of the same inputs write byte-identical reports and CSVs. */
START_TEST (test_determinism)
{
  write_three_ranks (50, TRUE);
  g_autofree char *cfg = tu_report_ring (3, groups_xml);
  g_autofree char *r1 = tu_scratch_path ("r1.json"), *r2 = tu_scratch_path ("r2.json");
  g_autofree char *s1 = tu_scratch_path ("s1.csv"), *s2 = tu_scratch_path ("s2.csv");
  g_autofree char *o1 = tu_report_run (
      cfg, (const char *[]) { "-q", "--report", r1, "--stats", s1, NULL });
  g_autofree char *o2 = tu_report_run (
      cfg, (const char *[]) { "--report", r2, "--stats", s2, "--critical-path", "2", NULL });
  g_autofree char *a = read_all (r1), *b = read_all (r2);
  g_autofree char *c = read_all (s1), *d = read_all (s2);
  ck_assert_msg (strcmp (a, b) == 0, "the reports differ");
  ck_assert_msg (strcmp (c, d) == 0, "the CSVs differ");
}
END_TEST

/* The report is written as it is produced (sim/app/json_out.h) in the
 * layout json-glib's generator gave it: read back with json-glib's parser
 * and written out by its pretty generator, every byte is the same (ints,
 * %.17g doubles and strings round-trip exactly).  A run with every
 * section: collectives, groups, a wait on the critical path, overview. */
START_TEST (test_layout_is_json_glib)
{
  write_three_ranks (50, TRUE);
  g_autofree char *cfg = tu_report_ring (3, groups_xml);
  g_autofree char *report = tu_scratch_path ("r.json");
  g_autofree char *out = tu_report_run (cfg, (const char *[]) { "-q", "--report", report, NULL });
  g_autofree char *text = read_all (report);
  g_autoptr (JsonParser) parser = tu_json_load (report);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *again = json_generator_to_data (gen, NULL);
  ck_assert_str_eq (text, again);
}
END_TEST

static guint
scratch_entries (void)
{
  g_autoptr (GDir) dir = g_dir_open (tu_scratch, 0, NULL);
  guint n = 0;
  while (g_dir_read_name (dir) != NULL)
    n++;
  return n;
}

/* A report that cannot be written is an input error (exit status 1)
 * naming it, and leaves nothing behind: not in a missing directory, and
 * where the path is a directory (refused before the run, not at the final
 * rename) the directory stays as it was and no temporary file is left. */
START_TEST (test_report_not_written)
{
  write_three_ranks (50, TRUE);
  g_autofree char *cfg = tu_report_ring (3, groups_xml);
  g_autofree char *wl = tu_scratch_path ("wl");
  g_autofree char *missing = tu_scratch_path ("missing/r.json");
  g_autofree char *busy = tu_scratch_path ("busy");
  ck_assert_int_eq (g_mkdir (busy, 0755), 0);
  g_autofree char *inside = tu_write_file ("busy/x", "x");
  guint before = scratch_entries ();
  const char *paths[] = { missing, busy };
  g_autofree char *missing_dir = g_path_get_dirname (missing);
  g_autofree char *no_folder = g_strdup_printf (": the folder %s does not exist", missing_dir);
  g_autofree char *is_folder = g_strdup_printf (": %s is a folder: name a file in it", busy);
  const char *why[] = { no_folder, is_folder };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      const char *argv[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", wl,
                             "--report", paths[i], NULL };
      g_autofree char *out = NULL;
      ck_assert_int_eq (tu_run (&out, argv), 1);
      g_autofree char *want = g_strdup_printf ("cannot write report %s%s", paths[i], why[i]);
      ck_assert_msg (strstr (out, want) != NULL, "%s", out);
      ck_assert_uint_eq (scratch_entries (), before);
    }
  g_autofree char *x = read_all (inside);
  ck_assert_str_eq (x, "x");
}
END_TEST

static Suite *
report_suite (void)
{
  Suite *s = suite_create ("report");
  TCase *tc = tu_tcase (s, "report", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_structure_and_inputs);
  tcase_add_test (tc, test_sums_and_stats_agree);
  tcase_add_test (tc, test_breakdown_by_hand);
  tcase_add_test (tc, test_critical_path);
  tcase_add_test (tc, test_determinism);
  tcase_add_test (tc, test_exchange_outputs);
  tcase_add_test (tc, test_layout_is_json_glib);
  tcase_add_test (tc, test_report_not_written);
  return s;
}

int
main (void)
{
  return tu_run_suite (report_suite ());
}
