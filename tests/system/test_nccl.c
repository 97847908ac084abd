/* test_nccl.c: NCCL's tuning model (system/nccl.h) and the NCCL library's
 * runs (system/algo_nccl.h), against values worked by hand from NCCL
 * 2.26.2's formulas and constants (src/graph/{search,tuning}.cc).
 *
 * The machines:
 *   H100 node: 8 H100 SXM on NVSwitch, 450 GB/s per GPU = 18 NVLinks, which
 *     NCCL counts at 20.6 GB/s: 370.8 GB/s.
 *   H100 xN: N such nodes, a 400 Gb/s (50 GB/s) NIC per GPU behind PCIe
 *     Gen5 x16 (48 GB/s as NCCL counts it).
 *   A100 node: 8 A100 SXM, 300 GB/s = 12 NVLinks at 20 GB/s: 240 GB/s.
 *
 * Hand-worked search results (closed form of ncclTopoCompute):
 *   H100 node ring: speeds 60, 50, 40, 30 (sm90 intra table) give 6x60,
 *     7x50, 9x40, 12x30; the first of the best totals (360) is 6x60, the
 *     channel duplication makes it 12x30.  Tree: 12 channels (the rings'),
 *     12 x 30 <= 370.8 * 8/7.  NVLS: 8 heads, (8+1) s <= 370.8: s = 40.
 *   H100 xN ring: inter table from 48 (the NIC path): leaving the node a
 *     channel makes 7 NVLink sends, the exit GPU changing from channel to
 *     channel, so a GPU carries 7/8 of 48 per channel: 8 channels (one per
 *     NIC) load 336 <= 370.8; 8 x 48 = 384 reaches the GPU's total: done;
 *     48 < 50 with 8 > 4 channels: no duplication.  NVLS: 8 x 40, then
 *     pass 2 raises the inter speed to 48.
 *   A100 node ring: 40 (pre-sm90 table) gives 6 x 40 = 240 = the GPU's
 *     total: done; duplicated to 12 x 20.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "support/sysfix.h"
#include "system/algo_nccl.h"
#include "system/nccl.h"

#define NS(x) ((SimTime) (x) * 1000)
#define US(x) ((SimTime) llround ((x) * 1e6))

static SysNcclMachine
h100 (guint32 nodes)
{
  return (SysNcclMachine) { .gpu = SYS_GPU_HOPPER, .cpu = SYS_CPU_INTEL, .nodes = nodes,
                            .ranks = 8 * nodes, .intra = NET_LINK_NVLINK, .nvswitch = TRUE,
                            .intra_GBps = 18 * 20.6, .nic_GBps = nodes > 1 ? 50 : 0,
                            .pci_GBps = 48 };
}

static SysNcclModel model;

static void
init (const SysNcclMachine *m, const char *algo, const char *proto)
{
  SysLibraryParams lib = { .library = SYS_LIBRARY_NCCL, .gpu = m->gpu };
  g_strlcpy (lib.algorithms, algo, sizeof lib.algorithms);
  g_strlcpy (lib.protocols, proto, sizeof lib.protocols);
  GError *error = NULL;
  ck_assert_msg (sys_nccl_model_init (&model, m, &lib, &error), "%s",
                 error ? error->message : "");
}

#define AR SYS_NCCL_ALL_REDUCE

static void
assert_graph (SysNcclAlgo a, guint32 channels, double intra, double inter)
{
  ck_assert_uint_eq (model.graph[a].channels, channels);
  ck_assert_double_eq_tol (model.graph[a].bw_intra, intra, 1e-9);
  ck_assert_double_eq_tol (model.graph[a].bw_inter, inter, 1e-9);
}

START_TEST (test_search)
{
  SysNcclMachine m = h100 (1);
  init (&m, "", "");
  assert_graph (SYS_NCCL_RING, 12, 30, 30);
  assert_graph (SYS_NCCL_TREE, 12, 30, 30);
  assert_graph (SYS_NCCL_NVLS, 8, 40, 40);
  ck_assert_uint_eq (model.channels, 24); /* rings run on twice the graph's channels */
  m = h100 (4);
  init (&m, "", "");
  assert_graph (SYS_NCCL_RING, 8, 48, 48);
  assert_graph (SYS_NCCL_NVLS, 8, 40, 48);
  ck_assert_uint_eq (model.channels, 16);
  SysNcclMachine a = { .gpu = SYS_GPU_AMPERE, .nodes = 1, .ranks = 8, .intra = NET_LINK_NVLINK,
                       .nvswitch = TRUE, .intra_GBps = 12 * 20.0, .pci_GBps = 24 };
  init (&a, "", "");
  assert_graph (SYS_NCCL_RING, 12, 20, 20);
  ck_assert_uint_eq (model.graph[SYS_NCCL_NVLS].channels, 0); /* NVLS needs Hopper */
  /* H100s wired to each other without an NVSwitch: no NVLS either, and
   * NCCL's choice never names it. */
  m = h100 (1);
  m.nvswitch = FALSE;
  init (&m, "", "");
  ck_assert_uint_eq (model.graph[SYS_NCCL_NVLS].channels, 0);
  ck_assert_double_eq (model.bw[AR][SYS_NCCL_NVLS][SYS_NCCL_SIMPLE], 0);
  for (guint e = 3; e <= 33; e++)
    {
      SysNcclChoice c;
      ck_assert (sys_nccl_choose (&model, AR, G_GUINT64_CONSTANT (1) << e, &c));
      ck_assert_int_ne (c.algo, SYS_NCCL_NVLS);
    }
  /* PCIe inside the node: no LL128 by default (NCCL enables it on NVLink
   * only), but a list that names it enables it, as NCCL_PROTO does. */
  m.intra = NET_LINK_PCIE;
  m.intra_GBps = 48;
  init (&m, "", "");
  ck_assert_double_eq (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_LL128], 0);
  ck_assert_double_gt (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_SIMPLE], 0);
  init (&m, "", "^LL");
  ck_assert_double_gt (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_LL128], 0);
  /* Two GPUs on an NVSwitch: no NVLS (transport/nvls.cc). */
  m = h100 (1);
  m.ranks = 2;
  init (&m, "", "");
  ck_assert_uint_eq (model.graph[SYS_NCCL_NVLS].channels, 0);
}
END_TEST

/* The tuning tables, one node: bus bandwidth x ratio and latency. */
START_TEST (test_tables_one_node)
{
  SysNcclMachine m = h100 (1);
  init (&m, "", "");
  /* Ring Simple: 12 x 30 = 360 GB/s bus, x 8/14 algorithm; 8.4 + 14 x 3.4 us. */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_SIMPLE], 360.0 * 8 / 14, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_RING][SYS_NCCL_SIMPLE], 56.0, 1e-9);
  /* Ring LL: min (llMaxBw 141, 360 / 2); 6.6 + 14 x 0.6. */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_LL], 141.0 * 8 / 14, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_RING][SYS_NCCL_LL], 15.0, 1e-9);
  /* Ring LL128: min (360 x 0.92, 12 x 36.7); 14 + 14 x 1.9. */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_LL128], 331.2 * 8 / 14, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_RING][SYS_NCCL_LL128], 40.6, 1e-9);
  /* Tree Simple: min (360 x 0.92, 12 x 38.7) x 1/2; 8.4 + 2 (7 x 4.0). */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_TREE][SYS_NCCL_SIMPLE], 331.2 / 2, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_TREE][SYS_NCCL_SIMPLE], 64.4, 1e-9);
  /* NVLS: 8 x 40 x 5/6; its NVLink latency 25 us alone. */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_NVLS][SYS_NCCL_SIMPLE], 320.0 * 5 / 6, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_NVLS][SYS_NCCL_SIMPLE], 25.0, 1e-9);
  /* NVLS runs Simple only; NVLS trees need several nodes. */
  ck_assert_double_eq (model.bw[AR][SYS_NCCL_NVLS][SYS_NCCL_LL], 0);
  ck_assert_double_eq (model.bw[AR][SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE], 0);
  /* Rooted kinds run rings only. */
  ck_assert_double_eq (model.bw[SYS_NCCL_BROADCAST][SYS_NCCL_TREE][SYS_NCCL_SIMPLE], 0);
}
END_TEST

/* Two nodes: NVLS trees, and trees whose LL is capped by llMaxBw. */
START_TEST (test_tables_two_nodes)
{
  SysNcclMachine m = h100 (2);
  init (&m, "", "");
  /* NVLSTree: min (40, 48) x 8 x 5/6; 25 (NVLink) + 2 log2(2) x 14 (net). */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE], 320.0 * 5 / 6, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE], 53.0, 1e-9);
  /* Tree LL: min (min (360 x .92, 8 x 41.4) / 3.8, 39.0) x 1/2;
   * 6.8 + 2 (7 x 0.6 + 1 x 5.0). */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_TREE][SYS_NCCL_LL], 19.5, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_TREE][SYS_NCCL_LL], 25.2, 1e-9);
  /* Ring Simple across nodes: 28 intra steps at max (3.4, 3 x 1.0 net
   * overhead), 2 at 14: 8.4 + 95.2 + 28; 8 x 48 GB/s x 16/30. */
  ck_assert_double_eq_tol (model.bw[AR][SYS_NCCL_RING][SYS_NCCL_SIMPLE], 384.0 * 16 / 30, 1e-9);
  ck_assert_double_eq_tol (model.lat[AR][SYS_NCCL_RING][SYS_NCCL_SIMPLE], 131.6, 1e-9);
  /* Multi-node NVLS needs in-network reduction (CollNet). */
  ck_assert_double_eq (model.bw[AR][SYS_NCCL_NVLS][SYS_NCCL_SIMPLE], 0);
  /* Rooted rings across nodes: channels entering at different GPUs are
   * not the same path, so every one of the 16 steps pays its latency,
   * Simple the tree's network 14 us: 8.4 + 16 x 14. */
  ck_assert_double_eq_tol (model.lat[SYS_NCCL_BROADCAST][SYS_NCCL_RING][SYS_NCCL_SIMPLE],
                           8.4 + 16 * 14.0, 1e-9);
}
END_TEST

typedef struct
{
  guint64 bytes;
  SysNcclAlgo algo;
  SysNcclProto proto;
} Pick;

static void
assert_picks (const Pick *picks, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      SysNcclChoice c;
      ck_assert (sys_nccl_choose (&model, AR, picks[i].bytes, &c));
      ck_assert_msg (c.algo == picks[i].algo && c.proto == picks[i].proto,
                     "%" G_GUINT64_FORMAT " B: got %s/%s", picks[i].bytes,
                     sys_nccl_algo_name (c.algo), sys_nccl_proto_name (c.proto));
    }
}

/* Selection by size: the least of lat + bytes / bw.  One node, all
 * algorithms: Ring/LL (15 us, 80.57 GB/s) against NVLS (25 us, 266.67):
 * equal at 25.6 x 1000 / (1/80.571 - 1/266.67) = 1.108 MB: 1 MiB is
 * Ring/LL (28.01 vs 28.93 us), 2 MiB NVLS (32.86 vs 41.03).  Rings only:
 * LL against LL128 (40.6 us, 189.26 GB/s) are equal at 3.59 MB, LL128
 * against Simple (56 us, 205.71 GB/s) at 36.0 MB. */
START_TEST (test_selection)
{
  SysNcclMachine m = h100 (1);
  init (&m, "", "");
  const Pick all[] = { { 8, SYS_NCCL_RING, SYS_NCCL_LL },
                       { 1 << 20, SYS_NCCL_RING, SYS_NCCL_LL },
                       { 2 << 20, SYS_NCCL_NVLS, SYS_NCCL_SIMPLE },
                       { G_GUINT64_CONSTANT (8) << 30, SYS_NCCL_NVLS, SYS_NCCL_SIMPLE } };
  assert_picks (all, G_N_ELEMENTS (all));
  init (&m, "ring", "");
  const Pick rings[] = { { 2 << 20, SYS_NCCL_RING, SYS_NCCL_LL },
                         { 4 << 20, SYS_NCCL_RING, SYS_NCCL_LL128 },
                         { 32 << 20, SYS_NCCL_RING, SYS_NCCL_LL128 },
                         { 64 << 20, SYS_NCCL_RING, SYS_NCCL_SIMPLE } };
  assert_picks (rings, G_N_ELEMENTS (rings));
  /* NCCL_PROTO syntax: everything but LL, and per function. */
  init (&m, "ring", "^LL");
  const Pick no_ll[] = { { 8, SYS_NCCL_RING, SYS_NCCL_LL128 } };
  assert_picks (no_ll, 1);
  init (&m, "allreduce:tree", "Simple");
  const Pick tree[] = { { 8, SYS_NCCL_TREE, SYS_NCCL_SIMPLE } };
  assert_picks (tree, 1);
  /* Two nodes, 8 B: Tree/LL at 25.2 us. */
  m = h100 (2);
  init (&m, "", "");
  SysNcclChoice c;
  ck_assert (sys_nccl_choose (&model, AR, 8, &c));
  ck_assert_int_eq (c.algo, SYS_NCCL_TREE);
  ck_assert_int_eq (c.proto, SYS_NCCL_LL);
  ck_assert_double_eq_tol (c.time_us, 25.2 + 8 / (1000 * 19.5), 1e-9);
}
END_TEST

/* Protocol times for one size, 4 MiB on one node's rings:
 *   LL     15   + 4194304 / (1000 x 80.571)  = 67.057 us
 *   LL128  40.6 + 4194304 / (1000 x 189.257) = 62.762 us
 *   Simple 56   + 4194304 / (1000 x 205.714) = 76.389 us */
START_TEST (test_protocol_times)
{
  SysNcclMachine m = h100 (1);
  init (&m, "", "");
  guint64 b = 4 << 20;
  ck_assert_double_eq_tol (sys_nccl_time (&model, AR, SYS_NCCL_RING, SYS_NCCL_LL, b),
                           15 + b / (1000 * 141.0 * 8 / 14), 1e-9);
  ck_assert_double_eq_tol (sys_nccl_time (&model, AR, SYS_NCCL_RING, SYS_NCCL_LL128, b),
                           40.6 + b / (1000 * 331.2 * 8 / 14), 1e-9);
  ck_assert_double_eq_tol (sys_nccl_time (&model, AR, SYS_NCCL_RING, SYS_NCCL_SIMPLE, b),
                           56 + b / (1000 * 360.0 * 8 / 14), 1e-9);
  ck_assert_double_eq_tol (sys_nccl_time (&model, AR, SYS_NCCL_RING, SYS_NCCL_LL, b), 67.057, 1e-3);
  /* Trees' medium sizes take treeCorrectionFactor: 4 MiB = 64 B << 16,
   * Simple's factor 0.7. */
  ck_assert_double_eq_tol (sys_nccl_time (&model, AR, SYS_NCCL_TREE, SYS_NCCL_SIMPLE, b),
                           64.4 + b / (1000 * 165.6 * 0.7), 1e-9);
}
END_TEST

/* Channels for the size: fewer while each thread gets less than its
 * threshold (Ring LL: 8 x 8 ranks bytes a thread, 512 threads).  24
 * channels at 1 MiB; 64 KiB = 2 x 512 x 64: 2 channels. */
START_TEST (test_channels)
{
  SysNcclMachine m = h100 (1);
  init (&m, "ring", "LL");
  SysNcclChoice c;
  ck_assert (sys_nccl_choose (&model, AR, 1 << 20, &c));
  ck_assert_uint_eq (c.channels, 24);
  ck_assert (sys_nccl_choose (&model, AR, 64 << 10, &c));
  ck_assert_uint_eq (c.channels, 2);
}
END_TEST

START_TEST (test_lists)
{
  SysLibraryParams lib = { .library = SYS_LIBRARY_NCCL };
  GError *error = NULL;
  g_strlcpy (lib.algorithms, "ring,nvls_tree,CollNetDirect", sizeof lib.algorithms);
  ck_assert (sys_nccl_check_lists (&lib, NULL));
  g_strlcpy (lib.algorithms, "rnig", sizeof lib.algorithms);
  ck_assert (!sys_nccl_check_lists (&lib, &error));
  const char *const bad[] = { "nccl-algo", "rnig", "Ring", NULL };
  sf_assert_error (error, bad);
  g_clear_error (&error);
  g_strlcpy (lib.algorithms, "ring;tree", sizeof lib.algorithms);
  ck_assert (!sys_nccl_check_lists (&lib, &error));
  g_clear_error (&error);
  lib.algorithms[0] = '\0';
  g_strlcpy (lib.protocols, "allreduce:LL;reducescatter:^Simple", sizeof lib.protocols);
  ck_assert (sys_nccl_check_lists (&lib, NULL));
  g_strlcpy (lib.protocols, "allreduse:LL", sizeof lib.protocols);
  ck_assert (!sys_nccl_check_lists (&lib, &error));
  const char *const badf[] = { "nccl-proto", "allreduse", NULL };
  sf_assert_error (error, badf);
  g_clear_error (&error);
}
END_TEST

/* ---- runs ---------------------------------------------------------------------------- */

static void
build_h100 (guint32 nodes, const char *algo, const char *proto)
{
  NetDimSpec dims[2] = { sf_dim (NET_DIM_SWITCH, 8, 450e9, NS (500)),
                         sf_dim (NET_DIM_SWITCH, nodes, 50e9, NS (2000)) };
  dims[0].link = NET_LINK_NVLINK;
  dims[1].link = NET_LINK_NET;
  sf.params.lib = (SysLibraryParams) { .library = SYS_LIBRARY_NCCL, .gpu = SYS_GPU_HOPPER };
  g_strlcpy (sf.params.lib.algorithms, algo, sizeof sf.params.lib.algorithms);
  g_strlcpy (sf.params.lib.protocols, proto, sizeof sf.params.lib.protocols);
  sf_build (dims, nodes > 1 ? 2 : 1, NET_ROUND_PS, FALSE);
}

/* One node, rings, 64 MiB (Simple): every member starts together, sends
 * 14 steps of 8 MiB, each ready 3.4 us + 8 MiB / 360 GB/s after it left
 * (more than the network's 1 us + 8 MiB / 450 GB/s), after NCCL's base
 * 8.4 us: 8.4 us + 14 (3.4 us + ceil (8388608 B / 360 GB/s)) =
 * 8,400,000 + 14 x (3,400,000 + 23,301,689) ps: NCCL's 382.22 us. */
START_TEST (test_ring_run)
{
  build_h100 (1, "ring", "Simple");
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 64 << 20, 1);
  sf_run_quiet ();
  sf_assert_all_done_at (1, 8, 8400000 + 14 * (3400000 + sf_ser_ps (8388608, 360000000000)));
  /* The collective table says what produced it: algorithm, protocol and
   * NCCL's 24 channels (64 MiB leaves every channel its threshold). */
  g_autoptr (GArray) rows = sys_coll_group_stats (sf.sys);
  ck_assert_uint_eq (rows->len, 1);
  ck_assert_str_eq (g_array_index (rows, SysCollGroupStats, 0).algorithm, "nccl Ring/Simple x24");
}
END_TEST

static void
join_rank5 (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched, (void) data, (void) arg;
  sf_join (5, SYS_COLL_ALL_REDUCE, 64 << 20, SYS_GROUP_WORLD, 1);
}

/* A late joiner delays everybody: the ring waits for its data.  Rank 5
 * joins 100 us late.  Its successor, rank 6, cannot finish before rank 5's
 * first step reached it (100 + 8.4 + 26.70 us) and every member's last step
 * needs rank 5's data; and nobody takes longer than 100 us + the ring
 * alone, since the others have only moved ahead meanwhile. */
START_TEST (test_ring_late_joiner)
{
  build_h100 (1, "ring", "Simple");
  for (guint32 r = 0; r < 8; r++)
    if (r != 5)
      sf_join (r, SYS_COLL_ALL_REDUCE, 64 << 20, SYS_GROUP_WORLD, 1);
  sim_sched_at (sf.sched, US (100), join_rank5, NULL, 0);
  sf_run_quiet ();
  SimTime alone = 8400000 + 14 * (3400000 + sf_ser_ps (8388608, 360000000000));
  SimTime hop = 3400000 + sf_ser_ps (8388608, 360000000000);
  for (guint32 r = 0; r < 8; r++)
    {
      ck_assert_uint_gt (sf_done_at (1, r), US (108.4) + hop);
      ck_assert_uint_le (sf_done_at (1, r), US (100) + alone);
    }
  ck_assert_uint_gt (sf_done_at (1, 5), US (108.4) + 7 * hop);
}
END_TEST

/* Trees, NVLS: NCCL's predicted time when the network keeps up. */
START_TEST (test_timed_run)
{
  build_h100 (1, "nvls", "");
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 64 << 20, 1);
  sf_run_quiet ();
  sf_assert_all_done_at (1, 8, US (25 + (double) (64 << 20) / (1000 * 320.0 * 5 / 6)));
}
END_TEST

/* Two nodes, rings: one line per rail; every NIC carries 1/8 of what
 * crosses, so no rail link carries more than it can. */
START_TEST (test_ring_rails)
{
  build_h100 (2, "ring", "Simple");
  sf_join_world (16, SYS_COLL_ALL_REDUCE, 256 << 20, 1);
  sf_run_quiet ();
  SysNcclChoice c;
  SysNcclMachine m = h100 (2);
  init (&m, "ring", "Simple");
  ck_assert (sys_nccl_choose (&model, AR, 256 << 20, &c));
  /* Rails: each member's step data reaches the next node 14 us x 1.4 (the
   * plateau factor) + its serialization after leaving, not before: within
   * NCCL's prediction give or take the two extra network steps a member's
   * chain of 30 steps crosses (4 rather than NCCL's 2). */
  SimTime t = sf_done_at (1, 0);
  ck_assert_uint_ge (t, US (c.time_us) - US (1));
  ck_assert_uint_le (t, US (c.time_us) + US (2 * 1.4 * (14 + 0 - 3.4)) + US (1));
}
END_TEST

/* Node-shift symmetry (workload/replay_classes.c, (4''')): on two nodes of
 * 8 the world's ring lines pass GPU to GPU inside a node and from GPU c to
 * GPU c of the other node over rail c, so shifting every rank by a node
 * maps the ring onto itself: the period is 8 members, and rank r finishes
 * when rank r + 8 does.  Simulating ranks 0-7 only, each standing for the
 * rank a node on (a message to rank 8 + c delivered at rank c), gives
 * each the time it has with all 16 simulated. */
START_TEST (test_ring_period)
{
  static guint32 rep_of[16];
  const char *why = NULL;
  build_h100 (2, "ring", "Simple");
  ck_assert_uint_eq (sys_group_period (sf.sys, SYS_GROUP_WORLD, SYS_COLL_ALL_REDUCE, 256 << 20,
                                       ~0u, &why), 8);
  sf_join_world (16, SYS_COLL_ALL_REDUCE, 256 << 20, 1);
  sf_run_quiet ();
  SimTime full[8];
  for (guint32 r = 0; r < 8; r++)
    {
      full[r] = sf_done_at (1, r);
      ck_assert_uint_eq (sf_done_at (1, r + 8), full[r]);
    }
  sf_teardown ();
  sf_setup ();
  build_h100 (2, "ring", "Simple");
  for (guint32 r = 0; r < 16; r++)
    rep_of[r] = r % 8;
  ck_assert_msg (sys_set_classes (sf.sys, rep_of, &why), "%s", why);
  for (guint32 r = 0; r < 8; r++)
    sf_join (r, SYS_COLL_ALL_REDUCE, 256 << 20, SYS_GROUP_WORLD, 1);
  sf_run_quiet ();
  for (guint32 r = 0; r < 8; r++)
    ck_assert_uint_eq (sf_done_at (1, r), full[r]);
  ck_assert_uint_eq (sf.done->len, 8);
}
END_TEST

/* No period where members play roles that a node shift does not keep
 * (trees by depth), nor where the ring stays inside one node (its members
 * are alike: sys_group_alike). */
START_TEST (test_no_period)
{
  const char *why = NULL;
  build_h100 (2, "tree", "Simple");
  ck_assert_uint_eq (sys_group_period (sf.sys, SYS_GROUP_WORLD, SYS_COLL_ALL_REDUCE, 256 << 20,
                                       ~0u, &why), 0);
  ck_assert_ptr_nonnull (strstr (why, "tree"));
  sf_teardown ();
  sf_setup ();
  build_h100 (1, "ring", "Simple");
  ck_assert_uint_eq (sys_group_period (sf.sys, SYS_GROUP_WORLD, SYS_COLL_ALL_REDUCE, 256 << 20,
                                       ~0u, &why), 0);
  ck_assert_ptr_nonnull (strstr (why, "one node"));
}
END_TEST

/* A broadcast across two nodes: a chain whose node-to-node hop goes over
 * every rail (1/8 of 1 GiB a NIC: 2.7 ms at 50 GB/s, within NCCL's
 * prediction), so every member finishes at NCCL's time: 8.4 + 16 x 14 us
 * + 1 GiB / 384 GB/s (8 x 48 GB/s, ratio 16/16). */
START_TEST (test_broadcast_rails)
{
  build_h100 (2, "ring", "Simple");
  sf_join_world (16, SYS_COLL_BROADCAST, 1 << 30, 1);
  sf_run_quiet ();
  sf_assert_all_done_at (1, 16, US (8.4 + 16 * 14.0 + (double) (1 << 30) / (1000 * 384.0)));
}
END_TEST

/* Lists that leave nothing: the error names the rank, node and group, and
 * what the machine has. */
START_TEST (test_nothing_left)
{
  build_h100 (2, "nvls", "");
  SysCollRequest req = sf_coll_req (SYS_COLL_ALL_REDUCE, 1 << 20, SYS_GROUP_WORLD, 1, 3);
  GError *error = NULL;
  ck_assert (!sys_coll_join (sf.sys, 3, &req, &error));
  const char *const needles[] = { "rank 3", "all ranks", "no algorithm and protocol left",
                                  "2 nodes", "Ring/Simple", "NVLSTree/Simple", NULL };
  sf_assert_error (error, needles);
  g_clear_error (&error);
}
END_TEST

static void
add (Suite *s, const char *name, const TTest *test)
{
  tcase_add_test (tu_tcase (s, name, sf_setup, sf_teardown, 0), test);
}

int
main (void)
{
  Suite *s = suite_create ("nccl");
  add (s, "search", test_search);
  add (s, "tables_one_node", test_tables_one_node);
  add (s, "tables_two_nodes", test_tables_two_nodes);
  add (s, "selection", test_selection);
  add (s, "protocol_times", test_protocol_times);
  add (s, "channels", test_channels);
  add (s, "lists", test_lists);
  add (s, "ring_run", test_ring_run);
  add (s, "ring_late_joiner", test_ring_late_joiner);
  add (s, "timed_run", test_timed_run);
  add (s, "ring_rails", test_ring_rails);
  add (s, "broadcast_rails", test_broadcast_rails);
  add (s, "ring_period", test_ring_period);
  add (s, "no_period", test_no_period);
  add (s, "nothing_left", test_nothing_left);
  return tu_run_suite (s);
}
