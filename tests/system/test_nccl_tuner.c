/* test_nccl_tuner.c: the aws-ofi-nccl region tuner (system/nccl_tuner.h)
 * and sys_nccl_choose's use of it.
 *
 * Expected choices are read off the plugin's P5/P5e vertex tables
 * (src/tuner/nccl_ofi_regions.cpp, region_init_internal_p5_p5e) by hand, in
 * the log-log plane (x = log2 bytes, y = log2 ranks).  8 GPUs per node,
 * all-reduce, at a rank count y the regions cut the size axis at:
 *   32 ranks (4 nodes): Tree/LL128 up to the vertex (36 MiB, 32); Ring/LL128
 *     from it to its edge (1 GiB, 17)-(2 GiB, 64), crossed at 2^30.48 =
 *     1.39 GiB; nothing up to Ring/Simple's vertex (1.5 GiB, 32); Ring/Simple
 *     up to its edge at TUNER_MAX_SIZE (100 GiB).
 *   64 ranks: Tree/LL128 to the vertex (112 MiB, 64); Ring/LL128 to the
 *     vertex (2 GiB, 64); nothing to Ring/Simple's vertex (2.5 GiB, 64).
 *   128 ranks: Tree/LL128 to (288 MiB, 128); Ring/LL128 to (2 GiB, 128);
 *     NVLSTree/Simple's lower edge (2 GiB, 128)-(6 GiB, 128); beyond,
 *     Ring/Simple (its edge (2.5 GiB, 64)-(7.5 GiB, 160) crosses y = 7 at
 *     5.7 GiB, so the vertex (6 GiB, 128) is in both, NVLSTree listed first).
 *   256 ranks: Tree/LL128 to (288 MiB, 256); then NVLSTree/Simple; Ring/LL128
 *     only on its upper edge (1074790400, 256)-(2 GiB, 256), listed before
 *     NVLSTree; NVLSTree again beyond 2 GiB up to the edge of slope 1 through
 *     (9 GiB, 192) (12 GiB at 256 ranks: 9 GiB x 256/192), Ring/Simple past it.
 * Points are either well inside a region or exactly on a vertex or an
 * axis-parallel edge; an independent script following the plugin's own ray
 * casting gave the same choices.
 */
#include <check.h>

#include "support/sysfix.h"
#include "support/testutil.h"
#include "system/nccl.h"
#include "system/nccl_tuner.h"

#define MiB ((guint64) 1 << 20)
#define GiB ((guint64) 1 << 30)
#define AR SYS_NCCL_ALL_REDUCE

/* A query every pair of which NCCL can run. */
static SysNcclTunerQuery
query (SysNcclFunc func, guint64 bytes, guint32 ranks, guint32 nodes)
{
  SysNcclTunerQuery q = { .func = func, .bytes = bytes, .ranks = ranks, .nodes = nodes };
  for (guint a = 0; a < SYS_NCCL_ALGOS; a++)
    for (guint p = 0; p < SYS_NCCL_PROTOS; p++)
      q.runs[a][p] = TRUE;
  return q;
}

static void
expect_q (const SysNcclTunerQuery *q, SysNcclAlgo algo, SysNcclProto proto)
{
  SysNcclAlgo a = SYS_NCCL_ALGOS;
  SysNcclProto p = SYS_NCCL_PROTOS;
  ck_assert_msg (sys_nccl_tuner_choose (SYS_NCCL_TUNER_AWS_OFI_NCCL, q, &a, &p),
                 "%" G_GUINT64_FORMAT " B on %u ranks: no choice", q->bytes, q->ranks);
  ck_assert_msg (a == algo && p == proto, "%" G_GUINT64_FORMAT " B on %u ranks: %s/%s",
                 q->bytes, q->ranks, sys_nccl_algo_name (a), sys_nccl_proto_name (p));
}

static void
expect_none_q (const SysNcclTunerQuery *q)
{
  SysNcclAlgo a = SYS_NCCL_ALGOS;
  SysNcclProto p = SYS_NCCL_PROTOS;
  ck_assert_msg (!sys_nccl_tuner_choose (SYS_NCCL_TUNER_AWS_OFI_NCCL, q, &a, &p),
                 "%" G_GUINT64_FORMAT " B on %u ranks: %s/%s", q->bytes, q->ranks,
                 sys_nccl_algo_name (a), sys_nccl_proto_name (p));
}

/* All-reduce on `nodes` nodes of 8 GPUs. */
static void
expect8 (guint32 nodes, guint64 bytes, SysNcclAlgo algo, SysNcclProto proto)
{
  SysNcclTunerQuery q = query (AR, bytes, 8 * nodes, nodes);
  expect_q (&q, algo, proto);
}

static void
expect8_none (guint32 nodes, guint64 bytes)
{
  SysNcclTunerQuery q = query (AR, bytes, 8 * nodes, nodes);
  expect_none_q (&q);
}

#define TREE_LL128 SYS_NCCL_TREE, SYS_NCCL_LL128
#define RING_LL128 SYS_NCCL_RING, SYS_NCCL_LL128
#define RING_SIMPLE SYS_NCCL_RING, SYS_NCCL_SIMPLE
#define NVLSTREE_SIMPLE SYS_NCCL_NVLS_TREE, SYS_NCCL_SIMPLE

START_TEST (test_four_nodes)
{
  expect8 (4, 8, TREE_LL128);
  expect8 (4, 32 * MiB, TREE_LL128);
  expect8 (4, 36 * MiB, TREE_LL128); /* the vertex: Tree/LL128 is listed first */
  expect8 (4, 40 * MiB, RING_LL128);
  expect8 (4, 64 * MiB, RING_LL128);
  expect8 (4, 1 * GiB, RING_LL128);
  expect8 (4, 1280 * MiB, RING_LL128); /* below 1.39 GiB */
  expect8_none (4, 1504 * MiB);        /* between 1.39 and 1.5 GiB */
  expect8 (4, 1536 * MiB, RING_SIMPLE);
  expect8 (4, 2 * GiB, RING_SIMPLE);
  expect8 (4, 8 * GiB, RING_SIMPLE);
  expect8_none (4, 128 * GiB); /* beyond TUNER_MAX_SIZE */
}
END_TEST

START_TEST (test_eight_nodes)
{
  expect8 (8, 8, TREE_LL128);
  expect8 (8, 64 * MiB, TREE_LL128);
  expect8 (8, 112 * MiB, TREE_LL128);
  expect8 (8, 120 * MiB, RING_LL128);
  expect8 (8, 128 * MiB, RING_LL128);
  expect8 (8, 2 * GiB, RING_LL128);
  expect8_none (8, 2304 * MiB);
  expect8 (8, 2560 * MiB, RING_SIMPLE);
  expect8 (8, 4 * GiB, RING_SIMPLE);
  expect8 (8, 8 * GiB, RING_SIMPLE);
}
END_TEST

START_TEST (test_sixteen_nodes)
{
  expect8 (16, 8, TREE_LL128);
  expect8 (16, 256 * MiB, TREE_LL128);
  expect8 (16, 288 * MiB, TREE_LL128);
  expect8 (16, 320 * MiB, RING_LL128);
  expect8 (16, 512 * MiB, RING_LL128);
  expect8 (16, 1 * GiB, RING_LL128);
  expect8 (16, 2 * GiB, RING_LL128);
  expect8 (16, 3 * GiB, NVLSTREE_SIMPLE);
  expect8 (16, 4 * GiB, NVLSTREE_SIMPLE);
  expect8 (16, 6 * GiB, NVLSTREE_SIMPLE);
  expect8 (16, 8 * GiB, RING_SIMPLE);
}
END_TEST

START_TEST (test_thirty_two_nodes)
{
  expect8 (32, 8, TREE_LL128);
  expect8 (32, 256 * MiB, TREE_LL128);
  expect8 (32, 288 * MiB, TREE_LL128);
  expect8 (32, 320 * MiB, NVLSTREE_SIMPLE);
  expect8 (32, 512 * MiB, NVLSTREE_SIMPLE);
  expect8 (32, 1 * GiB, NVLSTREE_SIMPLE);
  expect8 (32, 1074790400, RING_LL128); /* Ring/LL128's vertex, 1 GiB + 1 MiB */
  expect8 (32, 1536 * MiB, RING_LL128);
  expect8 (32, 2 * GiB, RING_LL128);
  expect8 (32, 2304 * MiB, NVLSTREE_SIMPLE);
  expect8 (32, 4 * GiB, NVLSTREE_SIMPLE);
  expect8 (32, 8 * GiB, NVLSTREE_SIMPLE);
  expect8 (32, 16 * GiB, RING_SIMPLE);
}
END_TEST

/* Two nodes or fewer: no choice whatever the size (since v1.15.0). */
START_TEST (test_two_nodes_or_fewer)
{
  static const guint64 sizes[] = { 8, 1 * MiB, 32 * MiB, 1 * GiB, 8 * GiB };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      expect8_none (2, sizes[i]);
      expect8_none (1, sizes[i]);
      SysNcclTunerQuery q = query (AR, sizes[i], 4, 2); /* two per node */
      expect_none_q (&q);
      q = query (SYS_NCCL_ALL_GATHER, sizes[i] * 2, 2, 2); /* one per node */
      expect_none_q (&q);
    }
}
END_TEST

/* A pair NCCL cannot run is skipped and the next region tried: on 16 nodes
 * the vertex (6 GiB, 128) is also Ring/Simple's; (4 GiB, 128) only
 * NVLSTree's; on 32 nodes 512 MiB only NVLSTree's. */
START_TEST (test_unavailable_pair)
{
  SysNcclTunerQuery q = query (AR, 6 * GiB, 128, 16);
  q.runs[SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE] = FALSE;
  expect_q (&q, RING_SIMPLE);
  q.bytes = 4 * GiB;
  expect_none_q (&q);
  q = query (AR, 512 * MiB, 256, 32);
  q.runs[SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE] = FALSE;
  expect_none_q (&q);
  q.runs[SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE] = TRUE;
  q.runs[SYS_NCCL_TREE][SYS_NCCL_LL128] = FALSE;
  q.bytes = 8; /* Tree/LL128's region only */
  expect_none_q (&q);
}
END_TEST

/* The other shapes the P5 tables cover, on 4 nodes.  Two GPUs per node (8
 * ranks, y = 3): Tree/LL128 to the vertex (1051648, 8), Ring/LL128 to
 * (41842688, 8), NVLSTree/Simple to (275775488, 8), Ring/Simple beyond.
 * One GPU per node (4 ranks, y = 2): all-reduce Ring/LL128 up to its edge
 * (4736000, 2)-(269484032, 128), crossed at 2^23.15 B = 9.3 MB, Ring/Simple
 * beyond; all-gather Ring/Simple from its edge (4 MiB, 2)-(8 GiB, 2048),
 * crossed at 2^23.1 B = 9.0 MB; reduce-scatter from (8 MiB, 2)-(4 GiB,
 * 1024), slope 1, crossed at 16 MiB.  No table for other functions or for
 * 8 GPUs per node and all-gather. */
START_TEST (test_other_shapes)
{
  SysNcclTunerQuery q = query (AR, 1 * MiB, 8, 4);
  expect_q (&q, TREE_LL128);
  q.bytes = 16 * MiB;
  expect_q (&q, RING_LL128);
  q.bytes = 128 * MiB;
  expect_q (&q, NVLSTREE_SIMPLE);
  q.bytes = 1 * GiB;
  expect_q (&q, RING_SIMPLE);
  q = query (AR, 8 * MiB, 4, 4);
  expect_q (&q, RING_LL128);
  q.bytes = 16 * MiB;
  expect_q (&q, RING_SIMPLE);
  q = query (AR, 1 * MiB, 16, 16); /* 16 ranks: Tree/LL128 to (2367488, 16) */
  expect_q (&q, TREE_LL128);
  q = query (SYS_NCCL_ALL_GATHER, 8 * MiB, 4, 4);
  expect_none_q (&q);
  q.bytes = 16 * MiB;
  expect_q (&q, RING_SIMPLE);
  q = query (SYS_NCCL_REDUCE_SCATTER, 12 * MiB, 4, 4);
  expect_none_q (&q);
  q.bytes = 32 * MiB;
  expect_q (&q, RING_SIMPLE);
  q = query (SYS_NCCL_BROADCAST, 32 * MiB, 4, 4);
  expect_none_q (&q);
  q = query (SYS_NCCL_ALL_GATHER, 1 * GiB, 32, 4);
  expect_none_q (&q);
  q = query (AR, 32 * MiB, 16, 4); /* 4 GPUs per node: no table */
  expect_none_q (&q);
}
END_TEST

START_TEST (test_registry)
{
  ck_assert_str_eq (sys_nccl_tuner_name (SYS_NCCL_TUNER_NONE), "none");
  ck_assert_str_eq (sys_nccl_tuner_name (SYS_NCCL_TUNER_AWS_OFI_NCCL), "aws-ofi-nccl");
  SysNcclTunerQuery q = query (AR, 8, 32, 4);
  SysNcclAlgo a;
  SysNcclProto p;
  ck_assert (!sys_nccl_tuner_choose (SYS_NCCL_TUNER_NONE, &q, &a, &p));
}
END_TEST

/* ---- sys_nccl_choose with a tuner ------------------------------------------- */

/* As test_nccl.c's H100 x N: 8 H100 SXM per node on NVSwitch, a 50 GB/s
 * NIC per GPU. */
static void
init (SysNcclModel *model, guint32 nodes, SysNcclTuner tuner, const char *algo)
{
  SysNcclMachine m = { .gpu = SYS_GPU_HOPPER, .cpu = SYS_CPU_INTEL, .nodes = nodes,
                       .ranks = 8 * nodes, .intra = NET_LINK_NVLINK, .nvswitch = TRUE,
                       .intra_GBps = 18 * 20.6, .nic_GBps = 50, .pci_GBps = 48 };
  SysLibraryParams lib = { .library = SYS_LIBRARY_NCCL, .gpu = SYS_GPU_HOPPER, .tuner = tuner };
  g_strlcpy (lib.algorithms, algo, sizeof lib.algorithms);
  GError *error = NULL;
  ck_assert_msg (sys_nccl_model_init (model, &m, &lib, &error), "%s",
                 error ? error->message : "");
}

/* The tuner's pair is run, priced by NCCL's model (never faster than
 * NCCL's own least-time choice); without a choice from the tuner, NCCL's
 * own choice stands. */
START_TEST (test_choose_honours_tuner)
{
  static SysNcclModel own, tuned;
  SysNcclChoice c, o;
  init (&own, 4, SYS_NCCL_TUNER_NONE, "");
  init (&tuned, 4, SYS_NCCL_TUNER_AWS_OFI_NCCL, "");
  ck_assert_int_eq (tuned.tuner, SYS_NCCL_TUNER_AWS_OFI_NCCL);
  static const struct
  {
    guint64 bytes;
    SysNcclAlgo algo;
    SysNcclProto proto;
  } cases[] = { { 8, TREE_LL128 }, { 1 * GiB, RING_LL128 }, { 8 * GiB, RING_SIMPLE } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ck_assert (sys_nccl_choose (&tuned, AR, cases[i].bytes, &c));
      ck_assert_int_eq (c.algo, cases[i].algo);
      ck_assert_int_eq (c.proto, cases[i].proto);
      ck_assert_double_eq (c.time_us,
                           sys_nccl_time (&tuned, AR, c.algo, c.proto, cases[i].bytes));
      ck_assert (sys_nccl_choose (&own, AR, cases[i].bytes, &o));
      ck_assert (c.time_us >= o.time_us);
    }
  /* 1504 MiB on 4 nodes: in no region. */
  ck_assert (sys_nccl_choose (&tuned, AR, 1504 * MiB, &c));
  ck_assert (sys_nccl_choose (&own, AR, 1504 * MiB, &o));
  ck_assert (c.algo == o.algo && c.proto == o.proto && c.time_us == o.time_us);
  /* Two nodes: NCCL's own choice at every size. */
  init (&own, 2, SYS_NCCL_TUNER_NONE, "");
  init (&tuned, 2, SYS_NCCL_TUNER_AWS_OFI_NCCL, "");
  for (guint64 bytes = 8; bytes <= 8 * GiB; bytes *= 4)
    {
      ck_assert (sys_nccl_choose (&tuned, AR, bytes, &c));
      ck_assert (sys_nccl_choose (&own, AR, bytes, &o));
      ck_assert (c.algo == o.algo && c.proto == o.proto);
    }
  /* NVLSTree ruled out by the enable list on 32 nodes: 512 MiB falls back
   * to NCCL's own choice among what is left. */
  init (&own, 32, SYS_NCCL_TUNER_NONE, "^nvlstree");
  init (&tuned, 32, SYS_NCCL_TUNER_AWS_OFI_NCCL, "^nvlstree");
  ck_assert (sys_nccl_choose (&tuned, AR, 512 * MiB, &c));
  ck_assert (sys_nccl_choose (&own, AR, 512 * MiB, &o));
  ck_assert (c.algo == o.algo && c.proto == o.proto);
  ck_assert_int_ne (c.algo, SYS_NCCL_NVLS_TREE);
  /* With it, the tuner's NVLSTree/Simple, which NCCL's model has here. */
  init (&tuned, 32, SYS_NCCL_TUNER_AWS_OFI_NCCL, "");
  ck_assert (tuned.bw[AR][SYS_NCCL_NVLS_TREE][SYS_NCCL_SIMPLE] > 0);
  ck_assert (sys_nccl_choose (&tuned, AR, 512 * MiB, &c));
  ck_assert_int_eq (c.algo, SYS_NCCL_NVLS_TREE);
  ck_assert_int_eq (c.proto, SYS_NCCL_SIMPLE);
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
  Suite *s = suite_create ("nccl_tuner");
  add (s, "four_nodes", test_four_nodes);
  add (s, "eight_nodes", test_eight_nodes);
  add (s, "sixteen_nodes", test_sixteen_nodes);
  add (s, "thirty_two_nodes", test_thirty_two_nodes);
  add (s, "two_nodes_or_fewer", test_two_nodes_or_fewer);
  add (s, "unavailable_pair", test_unavailable_pair);
  add (s, "other_shapes", test_other_shapes);
  add (s, "registry", test_registry);
  add (s, "choose_honours_tuner", test_choose_honours_tuner);
  return tu_run_suite (s);
}
