/* test_replay.c: per-rank replay: dependencies, slots, timing, sharing of
 * identical graphs, and the diagnostics for broken workloads.
 *
 * Workloads are written by the test with the Chakra writer; expected times
 * are sums and maxima of the durations the test chose.  The cluster is
 * tu_exact_ring: a message of b bytes between ring neighbours takes
 * 100 + b ns.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

enum
{
  T_META = 1, T_MEM_LOAD = 2, T_MEM_STORE = 3, T_COMP = 4, T_SEND = 5, T_RECV = 6, T_COLL = 7
};

/* Run the workload in every mode (tu_sim_all_modes: they must agree);
 * returns the simulation (caller frees) or NULL with error. */
static AppSim *
run (AppConfig *cfg, GError **error)
{
  g_autofree char *p = tu_scratch_path ("wl");
  return tu_sim_all_modes (&(TuSimRequest) { .cfg = cfg, .prefix = p }, error);
}

/* Run the workload, which must succeed; the caller frees the simulation. */
static AppSim *
run_ok (AppConfig *cfg)
{
  GError *error = NULL;
  AppSim *sim = run (cfg, &error);
  g_assert_no_error (error);
  return sim;
}

/* Run the workload on a cluster of `ranks`: it must fail with domain/code
 * and a message holding every one of the NULL-terminated needles. */
static void
expect_run_error (guint32 ranks, GQuark domain, gint code, const char *const *needles)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, ranks);
  GError *error = NULL;
  ck_assert_ptr_null (run (&cfg, &error));
  g_assert_error (error, domain, code);
  for (const char *const *n = needles; *n != NULL; n++)
    ck_assert_msg (strstr (error->message, *n) != NULL, "'%s' not in: %s", *n, error->message);
  g_error_free (error);
  app_config_clear (&cfg);
}

static void
expect_load_error (guint32 ranks, const char *needle)
{
  expect_run_error (ranks, WL_ERROR, SIM_ERROR_INPUT, (const char *[]) { needle, NULL });
}

static SimTime
finish (AppSim *sim, guint32 rank)
{
  return wl_replay_rank_stats (app_sim_replay (sim), rank)->finish;
}

/* A chain a -> b -> c given out of order in the file, with one data and one
 * control dependency: the times add up. */
START_TEST (test_chain_out_of_order)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *c = tu_comp (3, 30), *a = tu_comp (1, 10), *b = tu_comp (2, 20);
  tu_node_dep (c, 2);
  tu_node_ctrl_dep (b, 1);
  ChakraProtoMsg__Node *nodes[] = { c, a, b };
  tu_write_rank (wl, 0, nodes, 3);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  AppSim *sim = run_ok (&cfg);
  ck_assert_uint_eq (finish (sim, 0), sim_time_from_us (60));
  ck_assert_uint_eq (wl_replay_rank_stats (app_sim_replay (sim), 0)->compute, sim_time_from_us (60));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Two independent compute nodes share one accelerator slot: they run one
 * after the other; with two slots, side by side.  A CPU node runs beside
 * accelerator work. */
START_TEST (test_slots)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *a = tu_comp (1, 10), *b = tu_comp (2, 20), *cpu = tu_comp (3, 25);
  tu_node_attr_bool (cpu, "is_cpu_op", TRUE);
  ChakraProtoMsg__Node *nodes[] = { a, b, cpu };
  tu_write_rank (wl, 0, nodes, 3);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  AppSim *sim = run_ok (&cfg);
  ck_assert_uint_eq (finish (sim, 0), sim_time_from_us (30));
  const WlRankStats *st = wl_replay_rank_stats (app_sim_replay (sim), 0);
  ck_assert_uint_eq (st->compute, sim_time_from_us (30));
  ck_assert_uint_eq (st->cpu, sim_time_from_us (25));
  app_sim_free (sim);
  cfg.wl.slots_comp = 2;
  sim = run_ok (&cfg);
  ck_assert_uint_eq (finish (sim, 0), sim_time_from_us (25));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* The compute floor (wl_replay_compute_floor) is the busiest rank's COMP
 * time over the compute slots: rank 0 computes 10 + 20 us (its 25 us CPU
 * node runs beside them, on the host), rank 1 40 us; so 40 us with one
 * slot, 20 us with two.  Neither is above the run's end. */
START_TEST (test_compute_floor)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *a = tu_comp (1, 10), *b = tu_comp (2, 20), *cpu = tu_comp (3, 25);
  tu_node_attr_bool (cpu, "is_cpu_op", TRUE);
  ChakraProtoMsg__Node *r0[] = { a, b, cpu };
  tu_write_rank (wl, 0, r0, 3);
  ChakraProtoMsg__Node *c = tu_comp (1, 40);
  ChakraProtoMsg__Node *r1[] = { c };
  tu_write_rank (wl, 1, r1, 1);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_ok (&cfg);
  ck_assert_uint_eq (wl_replay_compute_floor (app_sim_replay (sim)), sim_time_from_us (40));
  ck_assert_uint_le (wl_replay_compute_floor (app_sim_replay (sim)), app_sim_end_time (sim));
  app_sim_free (sim);
  cfg.wl.slots_comp = 2;
  sim = run_ok (&cfg);
  ck_assert_uint_eq (wl_replay_compute_floor (app_sim_replay (sim)), sim_time_from_us (20));
  ck_assert_uint_le (wl_replay_compute_floor (app_sim_replay (sim)), app_sim_end_time (sim));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* METADATA and unknown node types take no time.  A collective waits for its
 * late member: ring all-reduce of 400 bytes on 2 ranks, 2 steps of 200 bytes
 * (200 ns on the wire + 100 ns latency each).  Rank 1 joins at 10 us and
 * sends its step 0 at once; rank 0 joins at 50 us, finds that data waiting,
 * and sends steps 0 and 1 at 50 us: its port serializes them one after the
 * other (native configs share ports), so they reach rank 1 at 50.3 and
 * 50.5 us.  Rank 1 takes step 0 at 50.3 and sends its step 1, reaching rank
 * 0 at 50.6 us; it finishes with step 1 at 50.5 us. */
START_TEST (test_late_joiner_and_skips)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *meta = tu_node_new (1, T_META, "meta");
      ChakraProtoMsg__Node *odd = tu_node_new (2, 9, "future type");
      ChakraProtoMsg__Node *work = tu_comp (3, r == 0 ? 50 : 10);
      ChakraProtoMsg__Node *ar = tu_coll (4, 0, 400);
      tu_node_dep (odd, 1);
      tu_node_dep (work, 2);
      tu_node_dep (ar, 3);
      ChakraProtoMsg__Node *nodes[] = { meta, odd, work, ar };
      tu_write_rank (wl, r, nodes, 4);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_ok (&cfg);
  ck_assert_uint_eq (finish (sim, 0), sim_time_from_us (50) + 2 * sim_time_from_ns (300));
  ck_assert_uint_eq (finish (sim, 1), sim_time_from_us (50) + sim_time_from_ns (500));
  /* One per distinct graph: the two ranks' files differ. */
  ck_assert_uint_eq (wl_replay_unknown_nodes (app_sim_replay (sim)), 2);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Byte-identical files share one graph; different ones do not. */
START_TEST (test_identical_files_share_graph)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_coll (1, 0, r == 3 ? 800 : 800) };
      tu_write_rank (wl, r, nodes, 1);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  AppSim *sim = run_ok (&cfg);
  ck_assert_uint_eq (wl_replay_distinct_graphs (app_sim_replay (sim)), 1);
  /* Ring all-reduce, 4 ranks, 800 bytes: 6 steps of (100 + 200) ns. */
  ck_assert_uint_eq (finish (sim, 2), 6 * sim_time_from_ns (300));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Send/recv: the receive completes when the data is in (100 ns + 1000 B at
 * 1 B/ns after the sender's 5 us of compute). */
START_TEST (test_send_recv)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *w = tu_comp (1, 5), *s = tu_p2p (2, T_SEND, 0, 1, 7, 1000);
  tu_node_dep (s, 1);
  ChakraProtoMsg__Node *n0[] = { w, s };
  tu_write_rank (wl, 0, n0, 2);
  ChakraProtoMsg__Node *n1[] = { tu_p2p (1, T_RECV, 0, 1, 7, 1000), tu_comp (2, 1) };
  tu_node_dep (n1[1], 1);
  tu_write_rank (wl, 1, n1, 2);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_ok (&cfg);
  SimTime arrive = sim_time_from_us (5) + sim_time_from_ns (100 + 1000);
  ck_assert_uint_eq (finish (sim, 0), arrive);
  ck_assert_uint_eq (finish (sim, 1), arrive + sim_time_from_us (1));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* A receive nobody sends to: the run deadlocks, and the error names the rank,
 * the node and what it waits for. */
START_TEST (test_deadlock_report)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *n0[] = { tu_comp (1, 1) };
  tu_write_rank (wl, 0, n0, 1);
  ChakraProtoMsg__Node *n1[] = { tu_p2p (5, T_RECV, 0, 1, 3, 64), tu_comp (6, 1) };
  tu_node_dep (n1[1], 5);
  tu_write_rank (wl, 1, n1, 2);
  expect_run_error (2, SIM_ERROR, SIM_ERROR_DEADLOCK,
                    (const char *[]) { "rank 1: 2 of 2 nodes unfinished",
                                       "node 5 (COMM_RECV from rank 0 tag 3)", "no matching send",
                                       NULL });
}
END_TEST

/* A collective that one rank never reaches. */
START_TEST (test_missing_member)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 3; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { r == 2 ? tu_comp (1, 1) : tu_coll (1, 0, 300) };
      tu_write_rank (wl, r, nodes, 1);
    }
  expect_run_error (3, SIM_ERROR, SIM_ERROR_DEADLOCK,
                    (const char *[]) { "2 of 3 ranks joined: 0,1; never joined: 2", NULL });
}
END_TEST

START_TEST (test_dangling_dependency)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *a = tu_comp (1, 1);
  tu_node_dep (a, 99);
  ChakraProtoMsg__Node *nodes[] = { a };
  tu_write_rank (wl, 0, nodes, 1);
  expect_load_error (1, "node 1 depends on node 99, which is not in the trace");
}
END_TEST

START_TEST (test_cycle)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *a = tu_comp (10, 1), *b = tu_comp (20, 1), *c = tu_comp (30, 1);
  tu_node_dep (a, 30);
  tu_node_dep (b, 10);
  tu_node_ctrl_dep (c, 20);
  ChakraProtoMsg__Node *nodes[] = { a, b, c };
  tu_write_rank (wl, 0, nodes, 3);
  expect_load_error (1, "dependency cycle through 3 nodes");
}
END_TEST

START_TEST (test_rank_count_mismatch)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1) };
      tu_write_rank (wl, r, nodes, 1);
    }
  expect_load_error (8, "the topology has 8 ranks but the workload has only 4 trace files");
  expect_load_error (2, "more trace files than the topology's 2 ranks");
}
END_TEST

/* A file past a gap beyond the topology's ranks (wl.3.et, with wl.2.et
 * missing) is named, not left out of the run without a word. */
START_TEST (test_file_past_gap)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    if (r != 2)
      {
        ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1) };
        tu_write_rank (wl, r, nodes, 1);
      }
  expect_load_error (2, "wl.3.et: the trace set ");
  expect_load_error (2, "has a file past the topology's 2 ranks (");
  expect_load_error (2, "wl.2.et is missing)");
}
END_TEST

/* One trace where two are wanted: "only 1 trace file", in the singular. */
START_TEST (test_one_trace_of_two)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 1) };
  tu_write_rank (wl, 0, nodes, 1);
  expect_load_error (2, "wl.1.et: not found: the topology has 2 ranks but the workload has only "
                        "1 trace file (");
}
END_TEST

/* PREFIX.0.et a folder: it, not the count of traces, is named (the message
 * was "wl.1.et: not found: ... only 1 trace files"). */
START_TEST (test_first_trace_a_folder)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  g_autofree char *first = tu_scratch_path ("wl.0.et");
  ck_assert_int_eq (g_mkdir (first, 0755), 0);
  g_autofree char *want = g_strdup_printf ("%s: a directory, not a trace file", first);
  expect_load_error (4, want);
}
END_TEST

START_TEST (test_unsupported_collective)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *nodes[] = { tu_coll (1, 12, 100) };
  tu_write_rank (wl, 0, nodes, 1);
  expect_load_error (1, "comm_type 12 is not a collective type (0 to 9)");
}
END_TEST

START_TEST (test_send_from_wrong_rank)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *n0[] = { tu_p2p (4, T_SEND, 1, 0, 0, 8) };
  tu_write_rank (wl, 0, n0, 1);
  ChakraProtoMsg__Node *n1[] = { tu_comp (1, 1) };
  tu_write_rank (wl, 1, n1, 1);
  expect_load_error (2, "rank 0 node 4: comm_src is not this rank");
}
END_TEST

/* Memory operations take no slot: a local load of 2000 bytes at 1 GB/s
 * (2000 ns) and a second of 500 bytes run side by side with a compute node.
 * With per-NPU remote memory (500 ns + bytes at 2 GB/s) the same loads take
 * 1500 and 750 ns. */
START_TEST (test_memory_ops)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (int remote = 0; remote < 2; remote++)
    {
      ChakraProtoMsg__Node *a = tu_node_new (1, T_MEM_LOAD, "load");
      ChakraProtoMsg__Node *b = tu_node_new (2, T_MEM_STORE, "store");
      tu_node_attr_int (a, "tensor_size", 2000);
      tu_node_attr_int (b, "tensor_size", 500);
      ChakraProtoMsg__Node *nodes[] = { a, b, tu_comp (3, 1) };
      tu_write_rank (wl, 0, nodes, 3);
      AppConfig cfg;
      tu_exact_ring (&cfg, 1);
      cfg.wl.mem_bw_Bps = 1e9;
      if (remote)
        cfg.wl.mem = (WlMemSpec) { .kind = WL_MEM_PER_NPU, .latency = sim_time_from_ns (500),
                                   .bandwidth_Bps = 2e9 };
      AppSim *sim = run_ok (&cfg);
      ck_assert_uint_eq (finish (sim, 0), sim_time_from_ns (remote ? 1500 : 2000));
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* Process groups defined by METADATA nodes: {0, 1} and {2, 3} on a ring of
 * 4, each a 2-member all-reduce of 400 bytes: 2 steps of 200 bytes, one hop
 * each (300 ns).  A collective naming an undefined group is an error. */
START_TEST (test_metadata_groups)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *meta = tu_node_new (1, T_META, "pgs");
      tu_node_inputs (meta, "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                            "{\"pg_name\": \"2\", \"ranks\": [2, 3]}]");
      ChakraProtoMsg__Node *ar = tu_coll (2, 0, 400);
      tu_node_attr_string (ar, "pg_name", r < 2 ? "1" : "2.0");
      tu_node_dep (ar, 1);
      ChakraProtoMsg__Node *nodes[] = { meta, ar };
      tu_write_rank (wl, r, nodes, 2);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  AppSim *sim = run_ok (&cfg);
  for (guint32 r = 0; r < 4; r++)
    ck_assert_uint_eq (finish (sim, r), sim_time_from_ns (600));
  app_sim_free (sim);
  app_config_clear (&cfg);

  ChakraProtoMsg__Node *ar = tu_coll (2, 0, 400);
  tu_node_attr_string (ar, "pg_name", "5");
  ChakraProtoMsg__Node *nodes[] = { ar };
  tu_write_rank (wl, 0, nodes, 1);
  expect_load_error (4, "process group 5 (pg_name) is not defined");
}
END_TEST

/* Communication streams.  A ring of 4 without port sharing (a message of b
 * bytes to a neighbour takes 100 + b ns whatever else is in flight), two
 * 2-member groups: 1 = {0, 1} (tensor parallel, stream 0) and 2 = {0, 3}
 * (data parallel, stream 1; 3 is 0's other neighbour).  Rank 0 has the DP
 * all-reduce first in its file, then the TP one, both ready at 0; rank 1
 * joins TP at 0; rank 3 joins DP after 50 us of compute; rank 2 computes
 * 1 us.  Each all-reduce is of 400 bytes: 2 steps of 200 bytes, 300 ns
 * each; a member is done when its last step arrives.  The system layer
 * allows two chunks in flight per rank, so that only the comm slots
 * serialize the two.
 * DP: rank 0 sends step 0 at 0; rank 3 joins at 50 us, finds it and sends
 *   its steps 0 and 1, both arriving at 50.3 us: rank 0 is done at 50.3 us;
 *   rank 0's step 1 (sent at 50.3) reaches rank 3 at 50.6 us.
 * Shared slots (one comm slot): rank 0 joins TP when DP frees the slot, at
 *   50.3 us, and sends steps 0 and 1 (rank 1's step 0 came at 0.3 us); they
 *   reach rank 1 at 50.6 us, whose step 1 reaches rank 0 at 50.9 us.
 *   Finishes: 50.9, 50.6, 1, 50.6 us.
 * Separate streams: TP runs at once on both: done at 0.6 us; DP as above.
 *   Finishes: 50.3, 0.6, 1, 50.6 us. */
START_TEST (test_comm_streams)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *meta = tu_node_new (1, T_META, "pgs");
      tu_node_inputs (meta, "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                            "{\"pg_name\": \"2\", \"ranks\": [0, 3]}]");
      ChakraProtoMsg__Node *dp = tu_coll (2, 0, 400), *tp = tu_coll (3, 0, 400);
      tu_node_attr_string (dp, "pg_name", "2");
      tu_node_attr_int (dp, "stream", 1);
      tu_node_attr_string (tp, "pg_name", "1");
      tu_node_attr_int (tp, "stream", 0);
      tu_node_dep (tp, 1);
      ChakraProtoMsg__Node *work = tu_comp (4, r == 2 ? 1 : 50);
      tu_node_dep (dp, r == 3 ? 4 : 1);
      ChakraProtoMsg__Node *n0[] = { meta, dp, tp }, *n1[] = { meta, tp }, *n2[] = { meta, work },
                           *n3[] = { meta, work, dp };
      ChakraProtoMsg__Node **pick[] = { n0, n1, n2, n3 };
      const guint len[] = { 3, 2, 2, 3 };
      tu_write_rank (wl, r, pick[r], len[r]);
      /* Nodes a rank does not use are freed here. */
      if (r != 0 && r != 3)
        tu_node_free (dp);
      if (r > 1)
        tu_node_free (tp);
      if (r < 2)
        tu_node_free (work);
    }
  const guint64 want_ns[2][4] = { { 50900, 50600, 1000, 50600 }, { 50300, 600, 1000, 50600 } };
  for (guint separate = 0; separate < 2; separate++)
    {
      AppConfig cfg;
      tu_exact_ring (&cfg, 4);
      cfg.net.share_ports = FALSE;
      /* The system layer lets a rank run both collectives' chunks at once;
       * only the replay's comm slots may hold one back. */
      cfg.sys.active_chunks_per_dim = 2;
      cfg.wl.separate_comm_streams = separate;
      AppSim *sim = run_ok (&cfg);
      for (guint32 r = 0; r < 4; r++)
        ck_assert_msg (finish (sim, r) == sim_time_from_ns (want_ns[separate][r]),
                       "%s: rank %u finished at %" G_GUINT64_FORMAT " ps",
                       separate ? "separate" : "shared", r, finish (sim, r));
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* More comm streams than the replay's bitmask of ready queues has bits
 * (one per queue below 63; the queues from 63 on share the last): rank 0
 * sends rank 1 1000 bytes (1.1 us on tu_exact_ring, ports not shared) on
 * each stream value 0..64, and a second message on value 61; values 63
 * and 64 share the last stream index (WL_MAX_STREAMS), so with separate
 * streams, value 61's (queue SLOT_N + 60 = 64) and the last index's
 * (queue 66) second messages wait for their first: every first message
 * is done at 1.1 us, those two at 2.2 us, on both ranks.  On one shared
 * comm slot the 66 messages go one after another: 72.6 us. */
START_TEST (test_comm_streams_past_mask)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  enum { N_SENDS = 66 };
  ChakraProtoMsg__Node *sends[N_SENDS], *recvs[N_SENDS];
  for (guint i = 0; i < N_SENDS; i++)
    {
      sends[i] = tu_p2p (i + 1, T_SEND, 0, 1, i, 1000);
      tu_node_attr_int (sends[i], "stream", i < N_SENDS - 1 ? i : 61);
      recvs[i] = tu_p2p (i + 1, T_RECV, 0, 1, i, 1000);
    }
  tu_write_rank (wl, 0, sends, N_SENDS);
  tu_write_rank (wl, 1, recvs, N_SENDS);
  const guint64 want_ns[2] = { 66 * 1100, 2200 };
  for (guint separate = 0; separate < 2; separate++)
    {
      AppConfig cfg;
      tu_exact_ring (&cfg, 2);
      cfg.net.share_ports = FALSE;
      cfg.wl.separate_comm_streams = separate;
      AppSim *sim = run_ok (&cfg);
      for (guint32 r = 0; r < 2; r++)
        ck_assert_msg (finish (sim, r) == sim_time_from_ns (want_ns[separate]),
                       "%s: rank %u finished at %" G_GUINT64_FORMAT " ps",
                       separate ? "separate" : "shared", r, finish (sim, r));
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* The pipeline bubble on two stages, messages of 1000 bytes (1.1 us):
 * rank 0: forward 10 us, send to rank 1; a receive from rank 1 (posted at
 *   0), then backward 20 us.  Rank 1: receive, forward 10 us, backward
 *   20 us, send to rank 0.
 * Rank 1's receive arrives at 11.1 us: its bubble is [0, 11.1]; it
 *   computes until 41.1 us and sends until 42.2 us: exposed communication
 *   12.2 us, of which 1.1 us is not bubble.
 * Rank 0 computes [0, 10], then waits on rank 1's message (its own send in
 *   flight until 11.1 us) until 42.2 us: bubble and exposed communication
 *   32.2 us; backward until 62.2 us. */
START_TEST (test_pipeline_bubble)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *fwd0 = tu_comp (1, 10), *send0 = tu_p2p (2, T_SEND, 0, 1, 1, 1000);
  ChakraProtoMsg__Node *recv0 = tu_p2p (3, T_RECV, 1, 0, 2, 1000), *bwd0 = tu_comp (4, 20);
  tu_node_dep (send0, 1);
  tu_node_dep (bwd0, 3);
  ChakraProtoMsg__Node *n0[] = { fwd0, send0, recv0, bwd0 };
  tu_write_rank (wl, 0, n0, 4);
  ChakraProtoMsg__Node *recv1 = tu_p2p (1, T_RECV, 0, 1, 1, 1000), *fwd1 = tu_comp (2, 10);
  ChakraProtoMsg__Node *bwd1 = tu_comp (3, 20), *send1 = tu_p2p (4, T_SEND, 1, 0, 2, 1000);
  tu_node_dep (fwd1, 1);
  tu_node_dep (bwd1, 2);
  tu_node_dep (send1, 3);
  ChakraProtoMsg__Node *n1[] = { recv1, fwd1, bwd1, send1 };
  tu_write_rank (wl, 1, n1, 4);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_ok (&cfg);
  const WlRankStats *s0 = wl_replay_rank_stats (app_sim_replay (sim), 0);
  const WlRankStats *s1 = wl_replay_rank_stats (app_sim_replay (sim), 1);
  ck_assert_uint_eq (s0->finish, sim_time_from_ns (62200));
  ck_assert_uint_eq (s0->pipeline_bubble, sim_time_from_ns (32200));
  ck_assert_uint_eq (s0->exposed_comm, sim_time_from_ns (32200));
  ck_assert_uint_eq (s1->finish, sim_time_from_ns (42200));
  ck_assert_uint_eq (s1->pipeline_bubble, sim_time_from_ns (11100));
  ck_assert_uint_eq (s1->exposed_comm, sim_time_from_ns (12200));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* test_pipeline_bubble's two ranks with the messages of tag 1 (rank 0 to
 * rank 1) marked as a collective exchange (`exchange` on the send and the
 * receive), and with ALL, tag 2's too.  Rank 1's wait on its receive,
 * [0, 11.1 us], is then communication: exchange_wait 11.1 us, bubble 0,
 * exposed communication still 12.2 us.  Rank 0 waits on tag 2 over
 * [10, 42.2 us]: bubble 32.2 us, or with ALL exchange wait 32.2 us.  A
 * closed form, the same as test_pipeline_bubble's: only the split moves. */
static void
exchange_run (gboolean all)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *fwd0 = tu_comp (1, 10), *send0 = tu_p2p (2, T_SEND, 0, 1, 1, 1000);
  ChakraProtoMsg__Node *recv0 = tu_p2p (3, T_RECV, 1, 0, 2, 1000), *bwd0 = tu_comp (4, 20);
  tu_node_attr_string (send0, "exchange", "all-to-all (test)");
  tu_node_dep (send0, 1);
  tu_node_dep (bwd0, 3);
  ChakraProtoMsg__Node *recv1 = tu_p2p (1, T_RECV, 0, 1, 1, 1000), *fwd1 = tu_comp (2, 10);
  ChakraProtoMsg__Node *bwd1 = tu_comp (3, 20), *send1 = tu_p2p (4, T_SEND, 1, 0, 2, 1000);
  tu_node_attr_string (recv1, "exchange", "all-to-all (test)");
  if (all)
    {
      tu_node_attr_string (recv0, "exchange", "back");
      tu_node_attr_string (send1, "exchange", "back");
    }
  ChakraProtoMsg__Node *n0[] = { fwd0, send0, recv0, bwd0 };
  tu_write_rank (wl, 0, n0, 4);
  tu_node_dep (fwd1, 1);
  tu_node_dep (bwd1, 2);
  tu_node_dep (send1, 3);
  ChakraProtoMsg__Node *n1[] = { recv1, fwd1, bwd1, send1 };
  tu_write_rank (wl, 1, n1, 4);
  AppConfig cfg;
  tu_exact_ring (&cfg, 2);
  AppSim *sim = run_ok (&cfg);
  const WlRankStats *s0 = wl_replay_rank_stats (app_sim_replay (sim), 0);
  const WlRankStats *s1 = wl_replay_rank_stats (app_sim_replay (sim), 1);
  ck_assert_uint_eq (s0->finish, sim_time_from_ns (62200));
  ck_assert_uint_eq (s0->exposed_comm, sim_time_from_ns (32200));
  ck_assert_uint_eq (s0->pipeline_bubble, all ? 0 : sim_time_from_ns (32200));
  ck_assert_uint_eq (s0->exchange_wait, all ? sim_time_from_ns (32200) : 0);
  ck_assert_uint_eq (s0->exchange_recvs, all ? 1 : 0);
  ck_assert_uint_eq (s1->finish, sim_time_from_ns (42200));
  ck_assert_uint_eq (s1->exposed_comm, sim_time_from_ns (12200));
  ck_assert_uint_eq (s1->pipeline_bubble, 0);
  ck_assert_uint_eq (s1->exchange_wait, sim_time_from_ns (11100));
  ck_assert_uint_eq (s1->exchange_recvs, 1);
  /* By name: rank 1's first exchange (its only one unless ALL); rank 0's
   * second ("back", after its send's "all-to-all (test)"). */
  WlReplay *replay = app_sim_replay (sim);
  ck_assert_str_eq (wl_replay_exchange_name (replay, 1, 0), "all-to-all (test)");
  if (!all)
    ck_assert_ptr_null (wl_replay_exchange_name (replay, 1, 1));
  ck_assert_uint_eq (s1->exchange_wait_by[0], sim_time_from_ns (11100));
  ck_assert_str_eq (wl_replay_exchange_name (replay, 0, 0), "all-to-all (test)");
  if (all)
    {
      ck_assert_str_eq (wl_replay_exchange_name (replay, 0, 1), "back");
      ck_assert_uint_eq (s0->exchange_wait_by[1], sim_time_from_ns (32200));
    }
  app_sim_free (sim);
  app_config_clear (&cfg);
}

START_TEST (test_exchange_wait)
{
  exchange_run (FALSE);
  exchange_run (TRUE);
}
END_TEST

/* An `exchange` that is not a string is an error naming the node. */
START_TEST (test_exchange_not_string)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 2; r++)
    {
      ChakraProtoMsg__Node *n = tu_p2p (7, r == 0 ? T_SEND : T_RECV, 0, 1, 1, 1000);
      tu_node_attr_int (n, "exchange", 3);
      ChakraProtoMsg__Node *one[] = { n };
      tu_write_rank (wl, r, one, 1);
    }
  expect_load_error (2, "exchange");
}
END_TEST

/* FLOPs as the replay counts them: num_ops of every COMP node, and apart
 * those of nodes marked is_recompute. */
START_TEST (test_flops_and_recompute)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  ChakraProtoMsg__Node *a = tu_comp (1, 10), *b = tu_comp (2, 10);
  tu_node_attr_int (a, "num_ops", 5000);
  tu_node_attr_int (b, "num_ops", 3000);
  tu_node_attr_bool (b, "is_recompute", TRUE);
  tu_node_dep (b, 1);
  ChakraProtoMsg__Node *nodes[] = { a, b };
  tu_write_rank (wl, 0, nodes, 2);
  AppConfig cfg;
  tu_exact_ring (&cfg, 1);
  AppSim *sim = run_ok (&cfg);
  const WlRankStats *st = wl_replay_rank_stats (app_sim_replay (sim), 0);
  ck_assert (st->flops == 8000.0);
  ck_assert (st->recompute_flops == 3000.0);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Write rank R's trace: METADATA groups 1 = {0, 1}, 2 = {2, 3} and
 * 9 = all four ranks, then a chain of all-reduces naming PG[0], PG[1], ...
 * (NULL: no pg_name). */
static void
write_group_chain (const char *wl, guint32 r, const char *const *pg, guint n)
{
  ChakraProtoMsg__Node *nodes[4];
  nodes[0] = tu_node_new (1, T_META, "pgs");
  tu_node_inputs (nodes[0], "[{\"pg_name\": \"1\", \"ranks\": [0, 1]}, "
                            "{\"pg_name\": \"2\", \"ranks\": [2, 3]}, "
                            "{\"pg_name\": \"9\", \"ranks\": [0, 1, 2, 3]}]");
  g_assert (n < G_N_ELEMENTS (nodes));
  for (guint i = 0; i < n; i++)
    {
      nodes[i + 1] = tu_coll (i + 2, 0, 400);
      if (pg[i] != NULL)
        tu_node_attr_string (nodes[i + 1], "pg_name", pg[i]);
      tu_node_dep (nodes[i + 1], i + 1);
    }
  tu_write_rank (wl, r, nodes, n + 1);
}

/* A collective keeps the group its trace names ("2.0" is group 2) and runs
 * on the system group that binding chose: group 9 names all ranks, so it
 * runs on the world, as no pg_name does, and the two share one index.
 * Traces that differ only in naming the world two ways are the same graph
 * for the symmetric shortcut. */
START_TEST (test_trace_and_system_groups)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    write_group_chain (wl, r, (const char *[]) { r < 2 ? "1" : "2.0", "9", NULL }, 3);
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  AppSim *sim = run_ok (&cfg);
  const WlReplay *replay = app_sim_replay (sim);
  for (guint32 r = 0; r < 4; r++)
    {
      const WlGraph *g = wl_replay_graph (replay, r);
      ck_assert_ptr_nonnull (g);
      const WlNode *sub = &g->nodes[1], *nine = &g->nodes[2], *all = &g->nodes[3];
      ck_assert_uint_eq (sub->group, r < 2 ? 1 : 2);
      ck_assert_uint_eq (wl_replay_node_group (replay, sub), r < 2 ? 1 : 2);
      ck_assert_uint_eq (nine->group, 9);
      ck_assert_uint_eq (wl_replay_node_group (replay, nine), SYS_GROUP_WORLD);
      ck_assert_uint_eq (all->group, WL_GROUP_ALL);
      ck_assert_uint_eq (wl_replay_node_group (replay, all), SYS_GROUP_WORLD);
      ck_assert_uint_eq (nine->sys_group_index, all->sys_group_index);
    }
  app_sim_free (sim);

  for (guint32 r = 0; r < 4; r++)
    write_group_chain (wl, r, (const char *[]) { r < 2 ? "9" : NULL }, 1);
  sim = run_ok (&cfg);
  ck_assert_msg (app_sim_symmetric (sim), "not symmetric: %s", app_sim_not_symmetric (sim));
  ck_assert_uint_eq (wl_replay_graph (app_sim_replay (sim), 0)->nodes[1].group, 9);
  ck_assert_uint_eq (wl_replay_graph (app_sim_replay (sim), 2)->nodes[1].group, WL_GROUP_ALL);
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* Rooted collectives from a trace: a broadcast from the group's first
 * member (rank 0) down the ring of 4, 400 bytes per hop (500 ns each), so
 * rank d finishes at d x 500 ns; in ASTRA mode the broadcast only waits out
 * its 7 us, as ASTRA-sim does.  A gather into comm_root = 2: the chain
 * 3 -> 0 -> 1 -> 2 carries 400, 800, 1200 bytes. */
START_TEST (test_rooted_from_trace)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *bc = tu_coll (1, 5, 400);
      bc->duration_micros = 7;
      ChakraProtoMsg__Node *nodes[] = { bc };
      tu_write_rank (wl, r, nodes, 1);
    }
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  AppSim *sim = run_ok (&cfg);
  for (guint32 r = 0; r < 4; r++)
    ck_assert_uint_eq (finish (sim, r), sim_time_from_ns (500 * r));
  app_sim_free (sim);
  cfg.wl.timing = WL_TIMING_REFERENCE;
  sim = run_ok (&cfg);
  for (guint32 r = 0; r < 4; r++)
    ck_assert_uint_eq (finish (sim, r), sim_time_from_us (7));
  app_sim_free (sim);
  app_config_clear (&cfg);

  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *g = tu_coll (1, 3, 400);
      tu_node_attr_int (g, "comm_root", 2);
      ChakraProtoMsg__Node *nodes[] = { g };
      tu_write_rank (wl, r, nodes, 1);
    }
  tu_exact_ring (&cfg, 4);
  sim = run_ok (&cfg);
  ck_assert_uint_eq (finish (sim, 3), 0);
  ck_assert_uint_eq (finish (sim, 0), sim_time_from_ns (100 + 400));
  ck_assert_uint_eq (finish (sim, 1), sim_time_from_ns (500 + 100 + 800));
  ck_assert_uint_eq (finish (sim, 2), sim_time_from_ns (1400 + 100 + 1200));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

static Suite *
replay_suite (void)
{
  Suite *s = suite_create ("replay");
  TCase *tc = tu_tcase (s, "replay", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_chain_out_of_order);
  tcase_add_test (tc, test_slots);
  tcase_add_test (tc, test_compute_floor);
  tcase_add_test (tc, test_late_joiner_and_skips);
  tcase_add_test (tc, test_identical_files_share_graph);
  tcase_add_test (tc, test_send_recv);
  tcase_add_test (tc, test_deadlock_report);
  tcase_add_test (tc, test_missing_member);
  tcase_add_test (tc, test_dangling_dependency);
  tcase_add_test (tc, test_cycle);
  tcase_add_test (tc, test_rank_count_mismatch);
  tcase_add_test (tc, test_file_past_gap);
  tcase_add_test (tc, test_one_trace_of_two);
  tcase_add_test (tc, test_first_trace_a_folder);
  tcase_add_test (tc, test_unsupported_collective);
  tcase_add_test (tc, test_send_from_wrong_rank);
  tcase_add_test (tc, test_memory_ops);
  tcase_add_test (tc, test_metadata_groups);
  tcase_add_test (tc, test_trace_and_system_groups);
  tcase_add_test (tc, test_rooted_from_trace);
  tcase_add_test (tc, test_comm_streams);
  tcase_add_test (tc, test_comm_streams_past_mask);
  tcase_add_test (tc, test_pipeline_bubble);
  tcase_add_test (tc, test_exchange_wait);
  tcase_add_test (tc, test_exchange_not_string);
  tcase_add_test (tc, test_flops_and_recompute);
  return s;
}

int
main (void)
{
  return tu_run_suite (replay_suite ());
}
