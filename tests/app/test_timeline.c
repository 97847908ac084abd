/* test_timeline.c: --timeline writes a Chrome trace-event file: one
 * process per rank, every node that ran exactly once with exact times,
 * lanes that never overlap, flow arrows from sends to receives, args,
 * rank and window filters, gzip output, and byte-identical files from two
 * runs.
 *
 * The hand-made workload's expected times come from the durations the test
 * chose; the shared multitenancy trace is checked against its own node ids,
 * read with the trace reader.
 */
#include <check.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "sim/app/simulation.h"
#include "sim/app/timeline.h"
#include "sim/error.h"
#include "workload/graph.h"
#include "support/modes.h"
#include "support/testutil.h"

enum
{
  T_MEM_LOAD = 2, T_COMP = 4, T_SEND = 5, T_RECV = 6, T_COLL = 7, C_ALL_REDUCE = 0
};

/* A name with a quote, a backslash, a control character, non-ASCII UTF-8
 * and a byte that is not UTF-8 (written out as U+FFFD). */
#define ODD_NAME "host \"step\" \\ \x01 caf\xc3\xa9 \xff"
#define ODD_NAME_JSON "host \"step\" \\ \x01 caf\xc3\xa9 \xef\xbf\xbd"

/* ---- fixtures ------------------------------------------------------------------ */

/* A 2-rank ring at 1 byte per ns, 100 ns per hop, no endpoint delay; all-reduce
 * with the "direct" algorithm. */
static char *
write_config (void)
{
  char *path = tu_scratch_path ("ring2.xml");
  const char *xml
      = "<?xml version=\"1.0\"?>\n"
        "<cluster name=\"ring2\" rounding=\"ps\">\n"
        "  <network model=\"analytical\">\n"
        "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
        "  </network>\n"
        "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\" active-chunks-per-dim=\"1\"\n"
        "          splits=\"1\" local-mem-bw=\"1000GB/s\" reduction-passes=\"3\">\n"
        "    <algorithm collective=\"all-reduce\" dims=\"direct\"/>\n"
        "  </system>\n"
        "</cluster>\n";
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  return path;
}

/* Rank 0: compute 1 (5 us from time 0), sends 2 and 3 to rank 1 (tags 7, 8)
 * one after the other, all-reduce 4 (1000 B), host node 5 with an odd name,
 * an unnamed memory load 6 (a root).  Rank 1: receives 1 and 2, both posted
 * at time 0 (so they overlap: two lanes), the all-reduce 3, compute 4
 * (3 us).  Returns the prefix. */
static char *
write_workload (void)
{
  char *prefix = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *comp = tu_comp (1, 5);
  ChakraProtoMsg__Node *s7 = tu_p2p (2, T_SEND, 0, 1, 7, 1000);
  tu_node_dep (s7, 1);
  ChakraProtoMsg__Node *s8 = tu_p2p (3, T_SEND, 0, 1, 8, 1000);
  tu_node_dep (s8, 2);
  ChakraProtoMsg__Node *ar0 = tu_coll (4, C_ALL_REDUCE, 1000);
  tu_node_dep (ar0, 3);
  ChakraProtoMsg__Node *host = tu_node_new (5, T_COMP, ODD_NAME);
  host->duration_micros = 2;
  tu_node_attr_bool (host, "is_cpu_op", TRUE);
  tu_node_dep (host, 4);
  ChakraProtoMsg__Node *load = tu_node_new (6, T_MEM_LOAD, "");
  tu_node_attr_int (load, "tensor_size", 64);
  tu_write_rank (prefix, 0, (ChakraProtoMsg__Node *[]) { comp, s7, s8, ar0, host, load }, 6);

  ChakraProtoMsg__Node *r7 = tu_p2p (1, T_RECV, 0, 1, 7, 1000);
  ChakraProtoMsg__Node *r8 = tu_p2p (2, T_RECV, 0, 1, 8, 1000);
  ChakraProtoMsg__Node *ar1 = tu_coll (3, C_ALL_REDUCE, 1000);
  tu_node_dep (ar1, 1);
  tu_node_dep (ar1, 2);
  ChakraProtoMsg__Node *comp1 = tu_comp (4, 3);
  tu_node_dep (comp1, 3);
  tu_write_rank (prefix, 1, (ChakraProtoMsg__Node *[]) { r7, r8, ar1, comp1 }, 4);
  return prefix;
}

/* Run `orrery run` on the hand-made workload with --timeline `out` (none
 * when NULL) and the extra options (NULL-terminated); returns the exit
 * status. */
static int
run_timeline (const char *out, const char *const *extra, char **output)
{
  g_autofree char *cfg = write_config ();
  g_autofree char *wl = write_workload ();
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *base[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", wl,
                         "--timeline", out };
  /* OUT NULL: a run without --timeline. */
  for (guint i = 0; i < G_N_ELEMENTS (base) - (out == NULL ? 2 : 0); i++)
    g_ptr_array_add (argv, (gpointer) base[i]);
  for (guint i = 0; extra != NULL && extra[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) extra[i]);
  g_ptr_array_add (argv, NULL);
  return tu_run_modes (output, (const char *const *) argv->pdata);
}

static void
run_ok (const char *out, const char *const *extra)
{
  g_autofree char *output = NULL;
  int rc = run_timeline (out, extra, &output);
  ck_assert_msg (rc == 0, "exit %d: %s", rc, output);
}

/* ---- reading the file ---------------------------------------------------------- */

/* The whole file, inflated when it is gzip. */
static char *
read_timeline (const char *path, gsize *len)
{
  gzFile gz = gzopen (path, "rb");
  ck_assert_ptr_nonnull (gz);
  GString *text = g_string_new (NULL);
  char buf[65536];
  int n;
  while ((n = gzread (gz, buf, sizeof buf)) > 0)
    g_string_append_len (text, buf, n);
  ck_assert_int_eq (n, 0);
  ck_assert_int_eq (gzclose (gz), Z_OK);
  *len = text->len;
  return g_string_free (text, FALSE);
}

static JsonParser *
parse_timeline (const char *path)
{
  gsize len = 0;
  g_autofree char *text = read_timeline (path, &len);
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  json_parser_load_from_data (parser, text, (gssize) len, &error);
  g_assert_no_error (error);
  return parser;
}

static JsonArray *
events_of (JsonParser *parser)
{
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  ck_assert_str_eq (json_object_get_string_member (root, "displayTimeUnit"), "ns");
  ck_assert (json_object_has_member (root, "otherData"));
  return json_object_get_array_member (root, "traceEvents");
}

static gboolean
is_ph (JsonObject *e, const char *ph)
{
  return strcmp (json_object_get_string_member (e, "ph"), ph) == 0;
}

/* Microseconds with six decimals back to picoseconds. */
static gint64
ps_of (JsonObject *e, const char *member)
{
  return (gint64) llround (json_object_get_double_member (e, member) * 1e6);
}

/* The X event of node `id` on `pid`, or NULL. */
static JsonObject *
find_node (JsonArray *events, gint64 pid, gint64 id)
{
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      if (is_ph (e, "X") && json_object_get_int_member (e, "pid") == pid
          && json_object_get_int_member (json_object_get_object_member (e, "args"), "node_id")
                 == id)
        return e;
    }
  return NULL;
}

/* The thread_name of (pid, tid), or NULL. */
static const char *
thread_name (JsonArray *events, gint64 pid, gint64 tid)
{
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      if (is_ph (e, "M") && strcmp (json_object_get_string_member (e, "name"), "thread_name") == 0
          && json_object_get_int_member (e, "pid") == pid
          && json_object_get_int_member (e, "tid") == tid)
        return json_object_get_string_member (json_object_get_object_member (e, "args"), "name");
    }
  return NULL;
}

typedef struct
{
  gint64 pid, tid, ts, end;
} Slice;

static int
slice_cmp (const void *pa, const void *pb)
{
  const Slice *a = pa, *b = pb;
  if (a->pid != b->pid)
    return a->pid < b->pid ? -1 : 1;
  if (a->tid != b->tid)
    return a->tid < b->tid ? -1 : 1;
  if (a->ts != b->ts)
    return a->ts < b->ts ? -1 : 1;
  return (a->end > b->end) - (a->end < b->end);
}

/* No two X events of one (pid, tid) overlap, and every one has a named
 * thread. */
static void
assert_lanes_disjoint (JsonArray *events)
{
  g_autoptr (GArray) slices = g_array_new (FALSE, FALSE, sizeof (Slice));
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      if (!is_ph (e, "X"))
        continue;
      Slice s = { json_object_get_int_member (e, "pid"), json_object_get_int_member (e, "tid"),
                  ps_of (e, "ts"), ps_of (e, "ts") + ps_of (e, "dur") };
      g_array_append_val (slices, s);
    }
  g_array_sort (slices, slice_cmp);
  for (guint i = 0; i < slices->len; i++)
    {
      Slice *s = &g_array_index (slices, Slice, i);
      ck_assert_msg (thread_name (events, s->pid, s->tid) != NULL, "pid %" G_GINT64_FORMAT
                     " tid %" G_GINT64_FORMAT " has no thread_name", s->pid, s->tid);
      if (i == 0)
        continue;
      Slice *p = s - 1;
      if (p->pid == s->pid && p->tid == s->tid)
        ck_assert_msg (p->end <= s->ts, "overlap on pid %" G_GINT64_FORMAT " tid %" G_GINT64_FORMAT,
                       s->pid, s->tid);
    }
}

/* Every flow id has one "s" and one "f"; returns the number of arrows. */
static guint
count_flows (JsonArray *events)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  guint starts = 0, finishes = 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      gboolean s = is_ph (e, "s"), f = is_ph (e, "f");
      if (!s && !f)
        continue;
      ck_assert_str_eq (json_object_get_string_member (e, "cat"), "p2p");
      starts += s;
      finishes += f;
      gint64 *id = g_new (gint64, 1);
      *id = json_object_get_int_member (e, "id") * 2 + f;
      ck_assert_msg (!g_hash_table_contains (seen, id), "flow id repeated");
      g_hash_table_add (seen, id);
    }
  ck_assert_uint_eq (starts, finishes);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, seen);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      gint64 other = *(gint64 *) key ^ 1;
      ck_assert (g_hash_table_contains (seen, &other));
    }
  return starts;
}

/* Process names by pid: a bit per pid < 64. */
static guint64
process_mask (JsonArray *events)
{
  guint64 mask = 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      if (!is_ph (e, "M") || strcmp (json_object_get_string_member (e, "name"), "process_name") != 0)
        continue;
      gint64 pid = json_object_get_int_member (e, "pid");
      g_autofree char *want = g_strdup_printf ("rank %" G_GINT64_FORMAT, pid);
      ck_assert_str_eq (json_object_get_string_member (json_object_get_object_member (e, "args"),
                                                       "name"), want);
      ck_assert (pid >= 0 && pid < 64 && !(mask & (G_GUINT64_CONSTANT (1) << pid)));
      mask |= G_GUINT64_CONSTANT (1) << pid;
    }
  return mask;
}

/* ---- 1: the shared multitenancy trace ----------------------------------------- */

static void
assert_rank_ids (JsonArray *events, const char *prefix, guint32 rank)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  GError *error = NULL;
  g_autoptr (WlGraph) g = wl_graph_load (path, &error);
  g_assert_no_error (error);
  g_autoptr (GHashTable) expected = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                                           NULL);
  for (guint32 i = 0; i < g->n_nodes; i++)
    g_hash_table_add (expected, g_memdup2 (&g->nodes[i].id, sizeof (guint64)));
  ck_assert_uint_eq (g_hash_table_size (expected), g->n_nodes);
  guint found = 0;
  for (guint i = 0; i < json_array_get_length (events); i++)
    {
      JsonObject *e = json_array_get_object_element (events, i);
      if (!is_ph (e, "X") || json_object_get_int_member (e, "pid") != rank)
        continue;
      gint64 id = json_object_get_int_member (json_object_get_object_member (e, "args"),
                                              "node_id");
      ck_assert_msg (g_hash_table_remove (expected, &id), "rank %u: node %" G_GINT64_FORMAT
                     " not in its trace, or written twice", rank, id);
      found++;
    }
  ck_assert_msg (g_hash_table_size (expected) == 0, "rank %u: %u nodes missing", rank,
                 g_hash_table_size (expected));
  ck_assert_uint_eq (found, g->n_nodes);
}

START_TEST (test_multitenancy_every_node_once)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autofree char *base = g_build_filename (shared, "traces/astra-sim-artifacts/examples",
                                            "multitenancy", NULL);
  g_autofree char *net = g_build_filename (base, "configs/network/ring_1d_8nodes.yml", NULL);
  g_autofree char *sys = g_build_filename (base, "configs/system/hgx_h100_1d.json", NULL);
  g_autofree char *groups = g_build_filename (base, "inputs/mergedAB/mergedAB.json", NULL);
  g_autofree char *wl = g_build_filename (base, "inputs/mergedAB/mergedAB", NULL);
  g_autofree char *out = tu_scratch_path ("mt.json");
  const char *argv[] = { tu_orrery (), "run", "-q", "--astra-network", net, "--astra-system", sys,
                         "--comm-groups", groups, "--workload", wl, "--timeline", out, NULL };
  g_autofree char *output = NULL;
  int rc = tu_run_modes (&output, argv);
  ck_assert_msg (rc == 0, "exit %d: %s", rc, output);

  g_autoptr (JsonParser) parser = parse_timeline (out);
  JsonArray *events = events_of (parser);
  ck_assert_uint_eq (process_mask (events), 0xff);
  for (guint32 r = 0; r < 8; r++)
    assert_rank_ids (events, wl, r);
  assert_lanes_disjoint (events);
  count_flows (events);
}
END_TEST

/* ---- 2: the hand-made workload -------------------------------------------------- */

static JsonObject *
args_of (JsonObject *e)
{
  return json_object_get_object_member (e, "args");
}

START_TEST (test_threads_times_args_flows)
{
  g_autofree char *out = tu_scratch_path ("t.json");
  run_ok (out, NULL);
  gsize len = 0;
  g_autofree char *text = read_timeline (out, &len);
  g_autoptr (JsonParser) parser = parse_timeline (out);
  JsonArray *events = events_of (parser);
  ck_assert_uint_eq (process_mask (events), 0x3);
  assert_lanes_disjoint (events);

  /* Compute 1 on rank 0: from 0 for exactly 5 us, printed exactly. */
  JsonObject *comp = find_node (events, 0, 1);
  ck_assert_ptr_nonnull (comp);
  ck_assert_int_eq (ps_of (comp, "ts"), 0);
  ck_assert_int_eq (ps_of (comp, "dur"), 5000000);
  ck_assert_ptr_nonnull (strstr (text, "\"ts\":0.000000,\"dur\":5.000000,"));
  ck_assert_str_eq (json_object_get_string_member (comp, "cat"), "compute");
  ck_assert_str_eq (json_object_get_string_member (args_of (comp), "type"), "COMP_NODE");
  ck_assert_str_eq (thread_name (events, 0, json_object_get_int_member (comp, "tid")), "compute");

  /* The first send leaves when the compute ends. */
  JsonObject *s7 = find_node (events, 0, 2);
  ck_assert_ptr_nonnull (s7);
  ck_assert_int_eq (ps_of (s7, "ts"), 5000000);
  ck_assert_str_eq (json_object_get_string_member (s7, "cat"), "comm");
  ck_assert_int_eq (json_object_get_int_member (args_of (s7), "bytes"), 1000);
  ck_assert_int_eq (json_object_get_int_member (args_of (s7), "peer"), 1);
  ck_assert_str_eq (thread_name (events, 0, json_object_get_int_member (s7, "tid")),
                    "communication");

  /* The all-reduce: bytes, group, algorithm. */
  JsonObject *ar = find_node (events, 0, 4);
  ck_assert_ptr_nonnull (ar);
  ck_assert_int_eq (json_object_get_int_member (args_of (ar), "bytes"), 1000);
  ck_assert_str_eq (json_object_get_string_member (args_of (ar), "group"), "all");
  ck_assert_str_eq (json_object_get_string_member (args_of (ar), "algorithm"), "direct");
  ck_assert_str_eq (json_object_get_string_member (args_of (ar), "collective"), "all_reduce");

  /* Host node: cpu thread, 2 us, its odd name escaped and read back. */
  JsonObject *host = find_node (events, 0, 5);
  ck_assert_ptr_nonnull (host);
  ck_assert_str_eq (json_object_get_string_member (host, "name"), ODD_NAME_JSON);
  ck_assert_str_eq (json_object_get_string_member (host, "cat"), "cpu");
  ck_assert_int_eq (ps_of (host, "dur"), 2000000);
  ck_assert_str_eq (thread_name (events, 0, json_object_get_int_member (host, "tid")), "cpu");

  /* The unnamed load: named after its type, on "other". */
  JsonObject *load = find_node (events, 0, 6);
  ck_assert_ptr_nonnull (load);
  ck_assert_str_eq (json_object_get_string_member (load, "name"), "MEM_LOAD_NODE 6");
  ck_assert_str_eq (json_object_get_string_member (load, "cat"), "memory");
  ck_assert_int_eq (json_object_get_int_member (args_of (load), "bytes"), 64);
  ck_assert_str_eq (thread_name (events, 0, json_object_get_int_member (load, "tid")), "other");

  /* Rank 1's receives overlap from time 0: two lanes. */
  JsonObject *r7 = find_node (events, 1, 1), *r8 = find_node (events, 1, 2);
  ck_assert_ptr_nonnull (r7);
  ck_assert_ptr_nonnull (r8);
  ck_assert_int_eq (json_object_get_int_member (args_of (r7), "peer"), 0);
  gint64 t7 = json_object_get_int_member (r7, "tid"), t8 = json_object_get_int_member (r8, "tid");
  ck_assert_int_ne (t7, t8);
  const char *n7 = thread_name (events, 1, t7), *n8 = thread_name (events, 1, t8);
  ck_assert_msg ((strcmp (n7, "communication") == 0 && strcmp (n8, "communication #2") == 0)
                     || (strcmp (n8, "communication") == 0
                         && strcmp (n7, "communication #2") == 0),
                 "%s / %s", n7, n8);

  /* Two arrows, each from a send's start on rank 0 to inside its receive on
   * rank 1. */
  ck_assert_uint_eq (count_flows (events), 2);
  JsonObject *sends[] = { s7, find_node (events, 0, 3) }, *recvs[] = { r7, r8 };
  for (guint k = 0; k < 2; k++)
    {
      JsonObject *s = NULL, *f = NULL;
      for (guint i = 0; i < json_array_get_length (events); i++)
        {
          JsonObject *e = json_array_get_object_element (events, i);
          if (is_ph (e, "s") && ps_of (e, "ts") == ps_of (sends[k], "ts"))
            s = e;
        }
      ck_assert_ptr_nonnull (s);
      for (guint i = 0; i < json_array_get_length (events); i++)
        {
          JsonObject *e = json_array_get_object_element (events, i);
          if (is_ph (e, "f")
              && json_object_get_int_member (e, "id") == json_object_get_int_member (s, "id"))
            f = e;
        }
      ck_assert_ptr_nonnull (f);
      ck_assert_int_eq (json_object_get_int_member (s, "pid"), 0);
      ck_assert_int_eq (json_object_get_int_member (s, "tid"),
                        json_object_get_int_member (sends[k], "tid"));
      ck_assert_int_eq (json_object_get_int_member (f, "pid"), 1);
      ck_assert_int_eq (json_object_get_int_member (f, "tid"),
                        json_object_get_int_member (recvs[k], "tid"));
      ck_assert_str_eq (json_object_get_string_member (f, "bp"), "e");
      ck_assert_int_ge (ps_of (f, "ts"), ps_of (recvs[k], "ts"));
      ck_assert_int_le (ps_of (f, "ts"), ps_of (recvs[k], "ts") + ps_of (recvs[k], "dur"));
    }
}
END_TEST

/* ---- 3: filters ------------------------------------------------------------------ */

START_TEST (test_rank_filter)
{
  g_autofree char *out = tu_scratch_path ("r1.json");
  run_ok (out, (const char *[]) { "--timeline-ranks", "1", NULL });
  g_autoptr (JsonParser) parser = parse_timeline (out);
  JsonArray *events = events_of (parser);
  ck_assert_uint_eq (process_mask (events), 0x2);
  for (guint i = 0; i < json_array_get_length (events); i++)
    ck_assert_int_eq (
        json_object_get_int_member (json_array_get_object_element (events, i), "pid"), 1);
  ck_assert_ptr_nonnull (find_node (events, 1, 4));
  /* The senders are not in the file: no arrows. */
  ck_assert_uint_eq (count_flows (events), 0);
}
END_TEST

/* Nodes overlapping the window are kept whole; one that ends where the
 * window starts is not. */
START_TEST (test_window_filter)
{
  g_autofree char *early = tu_scratch_path ("early.json");
  run_ok (early, (const char *[]) { "--timeline-window", "0us-1us", NULL });
  g_autoptr (JsonParser) p1 = parse_timeline (early);
  JsonArray *e1 = events_of (p1);
  JsonObject *comp = find_node (e1, 0, 1);
  ck_assert_ptr_nonnull (comp);
  ck_assert_int_eq (ps_of (comp, "dur"), 5000000);
  ck_assert_ptr_nonnull (find_node (e1, 0, 6)); /* zero-length, at 0 */
  ck_assert_ptr_null (find_node (e1, 0, 2));    /* the send starts at 5 us */
  ck_assert_ptr_null (find_node (e1, 0, 5));
  ck_assert_uint_eq (count_flows (e1), 0);

  g_autofree char *later = tu_scratch_path ("later.json");
  run_ok (later, (const char *[]) { "--timeline-window", "5us-5.001us", NULL });
  g_autoptr (JsonParser) p2 = parse_timeline (later);
  JsonArray *e2 = events_of (p2);
  ck_assert_ptr_null (find_node (e2, 0, 1)); /* ends at 5 us */
  ck_assert_ptr_nonnull (find_node (e2, 0, 2));
  ck_assert_ptr_nonnull (find_node (e2, 1, 1));
  ck_assert_uint_ge (count_flows (e2), 1);
  assert_lanes_disjoint (e2);
}
END_TEST

static void
expect_exit_1 (const char *option, const char *value, const char *needle)
{
  g_autofree char *out = tu_scratch_path ("bad.json");
  g_autofree char *output = NULL;
  const char *extra[] = { option, value, NULL };
  ck_assert_int_eq (run_timeline (out, extra, &output), 1);
  ck_assert_msg (strstr (output, option) != NULL, "'%s' not in: %s", option, output);
  ck_assert_msg (strstr (output, needle) != NULL, "'%s' not in: %s", needle, output);
}

START_TEST (test_bad_filters)
{
  expect_exit_1 ("--timeline-ranks", "3-1", "3-1");
  expect_exit_1 ("--timeline-ranks", "0,,1", "empty");
  expect_exit_1 ("--timeline-ranks", "x", "'x'");
  expect_exit_1 ("--timeline-ranks", "1-", "1-");
  expect_exit_1 ("--timeline-ranks", "5", "rank 5");
  expect_exit_1 ("--timeline-ranks", "0-2", "rank 2");
  expect_exit_1 ("--timeline-window", "20us-10us", "FROM must be before TO");
  expect_exit_1 ("--timeline-window", "10us", "FROM-TO");
  expect_exit_1 ("--timeline-window", "10-20us", "unit");
  expect_exit_1 ("--timeline-window", "1us-2us-3us", "FROM-TO");
  /* A side left out is named (both once read "'' is not a time"). */
  expect_exit_1 ("--timeline-window", "-1us", "'-1us': FROM is missing: expected FROM-TO");
  expect_exit_1 ("--timeline-window", "1us-", "'1us-': TO is missing: expected FROM-TO");
}
END_TEST

/* A filter without --timeline did nothing and said nothing: refused. */
START_TEST (test_filter_without_timeline)
{
  static const char *const options[][2] = { { "--timeline-ranks", "0" },
                                             { "--timeline-window", "1us-2us" } };
  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      g_autofree char *output = NULL;
      int status = run_timeline (NULL, (const char *[]) { options[i][0], options[i][1], NULL },
                                 &output);
      ck_assert_int_eq (status, 1);
      g_autofree char *want = g_strdup_printf ("%s filters the timeline: give --timeline "
                                               "FILE.json too", options[i][0]);
      ck_assert_msg (strstr (output, want) != NULL, "'%s' not in: %s", want, output);
    }
}
END_TEST

/* The same checks without the program, and valid lists. */
START_TEST (test_check_filters)
{
  GError *error = NULL;
  ck_assert (app_timeline_check_filters (NULL, NULL, &error));
  ck_assert (app_timeline_check_filters ("0-7,64", "10ms-20ms", &error));
  ck_assert (app_timeline_check_filters (" 3 , 1 - 2 ", "0 ns - 1 s", &error));
  g_assert_no_error (error);
  static const char *const bad_ranks[] = { "", ",", "1,", "-1", "1--2", "4294967296", "a-b" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_ranks); i++)
    {
      ck_assert (!app_timeline_check_filters (bad_ranks[i], NULL, &error));
      tu_assert_input_error (error, "--timeline-ranks");
      g_clear_error (&error);
    }
  static const char *const bad_windows[] = { "", "-", "1ms-", "-1ms", "1ms-1ms", "1e-3s-2s" };
  for (guint i = 0; i < G_N_ELEMENTS (bad_windows); i++)
    {
      ck_assert (!app_timeline_check_filters (NULL, bad_windows[i], &error));
      tu_assert_input_error (error, "--timeline-window");
      g_clear_error (&error);
    }
}
END_TEST

/* A file that cannot be written, and a run without records. */
START_TEST (test_write_errors)
{
  if (g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    {
      g_autofree char *output = NULL;
      ck_assert_int_eq (run_timeline ("/dev/full", NULL, &output), 1);
      ck_assert_msg (strstr (output, "/dev/full") != NULL, "%s", output);
    }
  g_autofree char *nodir = tu_scratch_path ("no/such/dir.json");
  g_autofree char *output = NULL;
  ck_assert_int_eq (run_timeline (nodir, NULL, &output), 1);
  ck_assert_msg (strstr (output, nodir) != NULL, "%s", output);

  g_autofree char *cfg_path = write_config ();
  g_autofree char *wl = write_workload ();
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  app_config_load_xml (&cfg, cfg_path, &error);
  g_assert_no_error (error);
  AppSim *sim = tu_sim_all_modes_ok (&cfg, wl);
  g_autofree char *out = tu_scratch_path ("off.json");
  ck_assert (!app_timeline_write (sim, out, NULL, NULL, &error));
  g_assert_error (error, SIM_ERROR, SIM_ERROR_INTERNAL);
  ck_assert_ptr_nonnull (strstr (error->message, "recording"));
  g_clear_error (&error);
  ck_assert (!g_file_test (out, G_FILE_TEST_EXISTS));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* ---- 4, 5: gzip and determinism ------------------------------------------------ */

START_TEST (test_gzip_matches_plain)
{
  g_autofree char *plain = tu_scratch_path ("t.json");
  g_autofree char *gz = tu_scratch_path ("t.json.gz");
  run_ok (plain, NULL);
  run_ok (gz, NULL);
  g_autofree char *raw = NULL;
  gsize raw_len = 0;
  g_assert_true (g_file_get_contents (gz, &raw, &raw_len, NULL));
  ck_assert_uint_ge (raw_len, 2);
  ck_assert_uint_eq ((guchar) raw[0], 0x1f);
  ck_assert_uint_eq ((guchar) raw[1], 0x8b);

  g_autofree char *a = NULL;
  gsize la = 0, lb = 0;
  g_assert_true (g_file_get_contents (plain, &a, &la, NULL));
  ck_assert (la < 2 || (guchar) a[0] != 0x1f);
  g_autofree char *b = read_timeline (gz, &lb);
  ck_assert_uint_eq (la, lb);
  ck_assert (memcmp (a, b, la) == 0);
}
END_TEST

START_TEST (test_deterministic)
{
  g_autofree char *p1 = tu_scratch_path ("a.json");
  g_autofree char *p2 = tu_scratch_path ("b.json");
  run_ok (p1, NULL);
  run_ok (p2, NULL);
  g_autofree char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  g_assert_true (g_file_get_contents (p1, &a, &la, NULL));
  g_assert_true (g_file_get_contents (p2, &b, &lb, NULL));
  ck_assert_uint_gt (la, 0);
  ck_assert_uint_eq (la, lb);
  ck_assert (memcmp (a, b, la) == 0);
}
END_TEST

static Suite *
timeline_suite (void)
{
  Suite *s = suite_create ("timeline");
  TCase *tc = tu_tcase (s, "timeline", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_multitenancy_every_node_once);
  tcase_add_test (tc, test_threads_times_args_flows);
  tcase_add_test (tc, test_rank_filter);
  tcase_add_test (tc, test_window_filter);
  tcase_add_test (tc, test_bad_filters);
  tcase_add_test (tc, test_filter_without_timeline);
  tcase_add_test (tc, test_check_filters);
  tcase_add_test (tc, test_write_errors);
  tcase_add_test (tc, test_gzip_matches_plain);
  tcase_add_test (tc, test_deterministic);
  return s;
}

int
main (void)
{
  return tu_run_suite (timeline_suite ());
}
