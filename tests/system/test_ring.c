/* test_ring.c: the ring algorithm and chunk scheduling against closed forms.
 *
 * The system layer runs over the shared fake link model (support/sysfix.h),
 * which delivers every message a fixed delay D after it leaves (one D per
 * topology dimension, so that a test also sees which dimension a phase used)
 * and records what was sent; some tests use the real analytical model
 * instead.  Expected finish times are closed forms written in each test from
 * the ring's definition (system/algo_ring.c, ../shared/reference/ASTRA-SIM.md):
 * in lockstep a member finishes a phase of k steps, r of them reducing, after
 *     e + k (D + e) + r rc
 * where e is the endpoint delay and rc the reduction cost of one message;
 * chunks of one collective run one after another when one is active per
 * dimension.  Every test ends with nothing left in the queue or pending.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "sim/error.h"
#include "system/algo.h"
#include "support/sysfix.h"

#define GIB (G_GUINT64_CONSTANT (1) << 30)
#define MIB (G_GUINT64_CONSTANT (1) << 20)
#define NS(x) ((SimTime) (x) * 1000)

/* ------------------------------------------------------------ helpers */

/* A 1-D ring of p ranks on the fake network, delay D, every message checked
 * to go to the ring successor. */
static void
build_fake_ring (guint32 p, SimTime D)
{
  sf.fake.ring_check = TRUE;
  sf_build_rings (&p, &D, 1);
}

/* Ring steps k and reducing steps r of a collective on n members (the table
 * in algo_ring.c's header, from the algorithms' definitions). */
static void
ring_k_r (SysCollKind kind, guint64 n, guint64 *k, guint64 *r)
{
  switch (kind)
    {
    case SYS_COLL_ALL_REDUCE: *k = 2 * (n - 1); *r = n - 1; break;
    case SYS_COLL_REDUCE_SCATTER: *k = n - 1; *r = n - 1; break;
    case SYS_COLL_ALL_GATHER: *k = n - 1; *r = 0; break;
    default: *k = n * (n - 1) / 2; *r = 0; break;
    }
}

/* ------------------------------------------- lockstep closed form, fake net */

static const guint32 loop_p[] = { 2, 3, 4, 7, 8, 16, 64 };
static const guint loop_S[] = { 1, 4 };

/* _i = (p index) x 8 + kind x 2 + (S index). */
START_TEST (test_lockstep)
{
  guint32 p = loop_p[_i / 8];
  SysCollKind kind = (SysCollKind) ((_i / 2) % 4);
  guint S = loop_S[_i % 2];
  const SimTime D = NS (250), e = NS (7);
  sf.params.splits = S;
  sf.params.active_chunks_per_dim = 1;
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 2;
  sf.params.local_mem_bw_Bps = 250e9; /* 4 ps per byte */
  sf_compat (&sf.params, FALSE);
  build_fake_ring (p, D);

  const guint64 c = (guint64) p * 1024; /* chunk */
  const guint64 bytes = S * c;
  sf_join_world (p, kind, bytes, 0);
  sf_run_quiet ();

  guint64 k, r;
  ring_k_r (kind, p, &k, &r);
  guint64 m = kind == SYS_COLL_ALL_GATHER ? c : c / p;
  SimTime rc = 2 * sf_ser_ps (m, 250000000000ull); /* passes x ceil(m / L) */
  ck_assert_uint_eq (rc, 8 * m);
  SimTime T = S * sf_phase_time (k, r, D, e, rc);
  sf_assert_all_done_at (0, p, T);
  ck_assert_uint_eq (sim_sched_now (sf.sched), T);

  /* p k messages per chunk, all of m bytes, all to the ring successor. */
  ck_assert_uint_eq (sf.fake.messages, S * p * k);
  ck_assert_uint_eq (sf.fake.bytes, S * p * k * m);
  ck_assert_uint_eq (sf.fake.min_bytes, m);
  ck_assert_uint_eq (sf.fake.max_bytes, m);
  ck_assert_uint_eq (sf.fake.off_ring, 0);
  ck_assert_uint_eq (net_messages (sf.net), S * p * k);
  ck_assert_uint_eq (net_bytes (sf.net), S * p * k * m);

  SysCollStats st;
  sys_coll_stats (sf.sys, kind, &st);
  ck_assert_uint_eq (st.count, 1);
  ck_assert_uint_eq (st.bytes, bytes);
  ck_assert_uint_eq (st.busy, T);
  for (guint other = 0; other < SYS_COLL_N; other++)
    if (other != kind)
      {
        sys_coll_stats (sf.sys, (SysCollKind) other, &st);
        ck_assert_uint_eq (st.count, 0);
      }
}
END_TEST

/* Sizes that do not divide: exact mode gives no byte away (chunks of
 * ceil/floor of bytes / S, messages of ceil(chunk / p)); ASTRA mode divides
 * with integer division everywhere and prices a memory pass in whole ns. */
START_TEST (test_uneven_sizes)
{
  const SimTime D = NS (100), e = NS (3);
  sf.params.splits = 2;
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 3;
  sf.params.local_mem_bw_Bps = 1e9; /* 1 byte per ns */
  sf_compat (&sf.params, _i == 1);
  build_fake_ring (3, D);
  sf_join_world (3, SYS_COLL_ALL_REDUCE, 601, 0);
  sf_run_quiet ();
  /* All-reduce on 3: k = 4, r = 2. */
  SimTime T;
  if (_i == 0)
    {
      /* Chunks of 301 and 300 bytes; messages of 101 and 100; a pass over
       * m bytes at 1 B/ns is m ns. */
      T = sf_phase_time (4, 2, D, e, 3 * NS (101)) + sf_phase_time (4, 2, D, e, 3 * NS (100));
      ck_assert_uint_eq (sf.fake.min_bytes, 100);
      ck_assert_uint_eq (sf.fake.max_bytes, 101);
      ck_assert_uint_eq (sf.fake.bytes, 3 * 4 * (101 + 100));
    }
  else
    {
      /* ASTRA-sim cuts chunks of 601 / 2 = 300 bytes until the size is used
       * up, the 1-byte remainder as a full chunk: 3 chunks, messages of 100. */
      T = 3 * sf_phase_time (4, 2, D, e, 3 * NS (100));
      ck_assert_uint_eq (sf.fake.min_bytes, 100);
      ck_assert_uint_eq (sf.fake.max_bytes, 100);
    }
  sf_assert_all_done_at (0, 3, T);
}
END_TEST

/* ------------------------------------------------ alpha-beta, real network */

/* Ring all-reduce of n bytes in one chunk, no endpoint delay, no reduction
 * cost: 2(p-1) (a + n/(pB)), the message time rounded up to whole ps. */
START_TEST (test_alpha_beta)
{
  static const guint32 ps[] = { 2, 5, 8 };
  static const guint64 ns[] = { MIB, MIB + 5, 1000 };
  guint32 p = ps[_i % 3];
  guint64 n = ns[_i / 3];
  const SimTime a = NS (500);
  const guint64 B = 3000000000ull; /* 3 GB/s */
  sf.params.endpoint_delay = 0;
  sf.params.reduction_passes = 0;
  sf.params.splits = 1;
  NetDimSpec d = sf_dim (NET_DIM_RING, p, (double) B, a);
  sf_build (&d, 1, NET_ROUND_PS, FALSE);
  sf_join_world (p, SYS_COLL_ALL_REDUCE, n, 0);
  sf_run_quiet ();
  guint64 m = (n + p - 1) / p;
  SimTime T = 2 * (p - 1) * (a + sf_ser_ps (m, B));
  sf_assert_all_done_at (0, p, T);
  if (p == 8 && n == MIB)
    /* 131072 B at 3 GB/s = 43690666.67 -> 43690667 ps; 14 x (500000 + that). */
    ck_assert_uint_eq (T, G_GUINT64_CONSTANT (618669338));
  ck_assert_uint_eq (net_messages (sf.net), (guint64) p * 2 * (p - 1));
}
END_TEST

/* -------------------------------------------- ASTRA-sim's published figures */

typedef struct
{
  SysCollKind kind;
  guint32 p;
  NetDimKind topo;
  guint64 expect_ns;
} AstraCase;

static const AstraCase astra_cases[] = {
  { SYS_COLL_ALL_REDUCE, 16, NET_DIM_RING, 99640 },
  { SYS_COLL_ALL_REDUCE, 1024, NET_DIM_RING, 4206616 },
  { SYS_COLL_ALL_GATHER, 8, NET_DIM_RING, 151016 },
  { SYS_COLL_ALL_TO_ALL, 4, NET_DIM_RING, 41560 },
  { SYS_COLL_ALL_REDUCE, 8, NET_DIM_SWITCH, 92440 },
};

/* T = S (k floor(h a + m/B) + r 3 floor(m/L) + (k+1) e) ns, with S = 4,
 * 1 MiB, 50 GiB/s, 500 ns, e = 10 ns, L = 1600 B/ns, 3 passes. */
START_TEST (test_astra_closed_form)
{
  const AstraCase *ac = &astra_cases[_i];
  sf.params.splits = 4;
  sf.params.active_chunks_per_dim = 1;
  sf.params.endpoint_delay = NS (10);
  sf.params.local_mem_bw_Bps = 1600e9;
  sf.params.reduction_passes = 3;
  sf_compat (&sf.params, TRUE);
  NetDimSpec d = sf_dim (ac->topo, ac->p, 50.0 * GIB, NS (500));
  sf_build (&d, 1, NET_ROUND_NS_TRUNCATED, FALSE);
  sf_join_world (ac->p, ac->kind, MIB, 0);
  sf_run_quiet ();

  const guint64 S = 4, c = MIB / S;
  guint64 k, r;
  ring_k_r (ac->kind, ac->p, &k, &r);
  guint64 m = ac->kind == SYS_COLL_ALL_GATHER ? c : c / ac->p;
  double B = 50.0 * 1073741824.0 / 1e9; /* bytes per ns */
  guint64 h = ac->topo == NET_DIM_SWITCH ? 2 : 1;
  guint64 hop = (guint64) ((double) h * 500.0 + (double) m / B);
  guint64 T_ns = S * (k * hop + r * 3 * (m / 1600) + (k + 1) * 10);
  ck_assert_uint_eq (T_ns, ac->expect_ns);
  sf_assert_all_done_at (0, ac->p, NS (ac->expect_ns));
}
END_TEST

/* The congestion-unaware rows of ASTRA-sim's own microbenchmark results
 * (../shared/reference/astra-sim-microbench.tsv: 4, 8 and 16 ranks, four
 * collectives, Ring / FullyConnected / Switch, 1 MiB, 50 GB/s, 500 ns,
 * Ring_4chunks.json): an independent reference for the same setup. */
START_TEST (test_astra_microbench)
{
  const char *shared = g_getenv ("SHARED") != NULL ? g_getenv ("SHARED") : "../shared";
  g_autofree char *path = g_build_filename (shared, "reference", "astra-sim-microbench.tsv", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    {
      printf ("skipped: %s not found\n", path);
      return;
    }
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint rows = 0;
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      if (g_strv_length (f) < 8 || strcmp (f[3], "unaware") != 0)
        continue;
      SysCollKind kind = SYS_COLL_N;
      for (guint k = 0; k < SYS_COLL_N; k++)
        if (strcmp (f[0], sys_coll_kind_name ((SysCollKind) k)) == 0)
          kind = (SysCollKind) k;
      NetDimKind dk;
      ck_assert_msg (kind != SYS_COLL_N && net_dim_kind_parse (f[2], &dk), "row %u: %s", i,
                     lines[i]);
      guint32 p = (guint32) g_ascii_strtoull (f[1], NULL, 10);
      guint64 expect_ns = g_ascii_strtoull (f[7], NULL, 10);

      sf_teardown ();
      sf_setup ();
      sf.params.splits = 4;
      sf.params.endpoint_delay = NS (10);
      sf.params.local_mem_bw_Bps = 1600e9;
      sf.params.reduction_passes = 3;
      sf_compat (&sf.params, TRUE);
      NetDimSpec d = sf_dim (dk, p, 50.0 * GIB, NS (500));
      sf_build (&d, 1, NET_ROUND_NS_TRUNCATED, FALSE);
      sf_join_world (p, kind, MIB, 0);
      sf_run_quiet ();
      for (guint32 r = 0; r < p; r++)
        ck_assert_msg (sf_done_at (0, r) == NS (expect_ns),
                       "%s %u %s: rank %u finished at %" G_GUINT64_FORMAT " ps, ASTRA-sim %"
                       G_GUINT64_FORMAT " ns", f[0], p, f[2], r, sf_done_at (0, r), expect_ns);
      rows++;
    }
  ck_assert_uint_eq (rows, 36);
}
END_TEST

/* ------------------------------------------------- two dimensions, fake net */

/* The 4 x 2 fixture: dims 0 and 1 with fake delays D0, D1; e = 7 ns, two
 * passes at 4 ps per byte (rc(m) = 8m ps). */
static const SimTime e2 = NS (7), D0 = NS (300);

static void
build_4x2 (SimTime D1, guint S, SysCollOpt opt)
{
  sf.params.splits = S;
  sf.params.active_chunks_per_dim = 1;
  sf.params.endpoint_delay = e2;
  sf.params.reduction_passes = 2;
  sf.params.local_mem_bw_Bps = 250e9;
  sf.params.opt = opt;
  const guint32 sizes[] = { 4, 2 };
  const SimTime delays[] = { D0, D1 };
  sf_build_rings (sizes, delays, 2);
}

/* Per-phase times for a chunk of c = 32768 bytes:
 *   RS on dim 0 (n = 4): m = c/4 = 8192, k = 3, r = 3      -> T1
 *   AR on dim 1 (n = 2) of c/4: m = 4096, k = 2, r = 1     -> T2
 *   AG on dim 0 (n = 4) of c/4: m = 8192, k = 3, r = 0     -> T3 */
static SimTime
t_rs0 (void)
{
  return sf_phase_time (3, 3, D0, e2, 8 * 8192);
}

static SimTime
t_ar1 (SimTime D1)
{
  return sf_phase_time (2, 1, D1, e2, 8 * 4096);
}

static SimTime
t_ag0 (void)
{
  return sf_phase_time (3, 0, D0, e2, 0);
}

START_TEST (test_2d_local_bw_aware)
{
  const SimTime D1 = NS (1100);
  build_4x2 (D1, 1, SYS_OPT_LOCAL_BW_AWARE);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 32768, 0);
  sf_run_quiet ();
  SimTime T = t_rs0 () + t_ar1 (D1) + t_ag0 ();
  ck_assert_uint_eq (T, 7000 + 3 * 307000 + 3 * 65536 + 7000 + 2 * 1107000 + 32768 + 7000
                          + 3 * 307000);
  sf_assert_all_done_at (0, 8, T);
  /* Dim 0 carries RS and AG: 8 ranks x 3 steps each, 8192 B; dim 1 the AR:
   * 8 x 2 messages of 4096 B. */
  ck_assert_uint_eq (sf.fake.dim_messages[0], 48);
  ck_assert_uint_eq (sf.fake.dim_bytes[0], 48 * 8192);
  ck_assert_uint_eq (sf.fake.dim_messages[1], 16);
  ck_assert_uint_eq (sf.fake.dim_bytes[1], 16 * 4096);
}
END_TEST

/* Two chunks A and B, one active chunk per dimension.  Derivation:
 *   dim 0: A's RS runs [0, T1]; B's RS, waiting behind it, runs [T1, 2T1].
 *   dim 1: A's AR runs [T1, T1 + T2].
 *   A's AG joins dim 0's queue at T1 + T2 and starts when dim 0 is free:
 *     a = max(T1 + T2, 2T1); it runs [a, a + T3].
 *   B's AR joins dim 1 at 2T1 and starts when A's AR is over: also at
 *     max(2T1, T1 + T2) = a; it runs [a, a + T2].
 *   B's AG starts when both B's AR and A's AG are over:
 *     max(a + T2, a + T3), and takes T3.
 * Finish = a + max(T2, T3) + T3.  The three cases below have
 * T2 < T3 < T1 (finish 2T1 + 2T3), T3 < T2 < T1 (2T1 + T2 + T3) and
 * T2 > T1 (T1 + 2T2 + T3). */
START_TEST (test_2d_pipeline)
{
  static const SimTime d1s[] = { NS (100), NS (500), NS (600) };
  const SimTime D1 = d1s[_i];
  build_4x2 (D1, 2, SYS_OPT_LOCAL_BW_AWARE);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 2 * 32768, 0);
  sf_run_quiet ();
  SimTime T1 = t_rs0 (), T2 = t_ar1 (D1), T3 = t_ag0 ();
  SimTime expect;
  switch (_i)
    {
    case 0:
      ck_assert (T2 < T3 && T3 < T1);
      expect = 2 * T1 + 2 * T3;
      break;
    case 1:
      ck_assert (T3 < T2 && T2 < T1);
      expect = 2 * T1 + T2 + T3;
      break;
    default:
      ck_assert (T2 > T1);
      expect = T1 + 2 * T2 + T3;
      break;
    }
  SimTime a = MAX (T1 + T2, 2 * T1);
  ck_assert_uint_eq (expect, a + MAX (T2, T3) + T3);
  sf_assert_all_done_at (0, 8, expect);
}
END_TEST

/* Three chunks A, B, C, one active chunk per dimension, T2 < T1.  The
 * chunks of one collective share its priority, so each dimension serves its
 * phases in arrival order: dim 0 runs RS_A, RS_B, RS_C before AG_A (queued
 * at T1 + T2, after RS_C), whatever the policy.  Every AG is ready before
 * dim 0 frees up (AG_A at T1 + T2, AG_B at 2T1 + T2, AG_C at 3T1 + T2), so
 * dim 0 never idles: finish = 3T1 + 3T3. */
START_TEST (test_2d_phases_keep_order)
{
  const SimTime D1 = NS (100);
  sf.params.policy = _i == 0 ? SYS_SCHED_LIFO : SYS_SCHED_FIFO;
  build_4x2 (D1, 3, SYS_OPT_LOCAL_BW_AWARE);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 3 * 32768, 0);
  sf_run_quiet ();
  SimTime T1 = t_rs0 (), T2 = t_ar1 (D1), T3 = t_ag0 ();
  ck_assert (T2 < T1 && T2 + T1 < 3 * T1);
  sf_assert_all_done_at (0, 8, 3 * T1 + 3 * T3);
}
END_TEST

/* Baseline: the whole chunk all-reduced on dim 0 (n = 4: k = 6, r = 3,
 * m = c/4), then again on dim 1 (n = 2: k = 2, r = 1, m = c/2). */
START_TEST (test_2d_baseline)
{
  const SimTime D1 = NS (1100);
  build_4x2 (D1, 1, SYS_OPT_BASELINE);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 32768, 0);
  sf_run_quiet ();
  SimTime T = sf_phase_time (6, 3, D0, e2, 8 * 8192) + sf_phase_time (2, 1, D1, e2, 8 * 16384);
  sf_assert_all_done_at (0, 8, T);
  ck_assert_uint_eq (sf.fake.dim_messages[0], 8 * 6);
  ck_assert_uint_eq (sf.fake.dim_messages[1], 8 * 2);
  ck_assert_uint_eq (sf.fake.dim_bytes[1], 8 * 2 * 16384);
}
END_TEST

/* Involved dimensions: only dim 1 (an all-reduce of the whole chunk between
 * r and r + 4); none at all completes at once. */
/* oneRing: one ring over all 8 ranks in id order.  Neighbours i -> i+1
 * always differ in dimension 0 first (3 -> 4 is (3,0) -> (0,1)), so every
 * message costs D0: the 1-D closed form with p = 8 (k = 14, r = 7) and the
 * chunk's messages of 32768 / 8 bytes. */
START_TEST (test_one_ring)
{
  const char *one[] = { "oneRing" };
  GError *error = NULL;
  ck_assert (sys_params_set_impl (&sf.params, SYS_COLL_ALL_REDUCE, one, 1, &error));
  build_4x2 (NS (1100), 1, SYS_OPT_LOCAL_BW_AWARE);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 32768, 0);
  sf_run_quiet ();
  sf_assert_all_done_at (0, 8, sf_phase_time (14, 7, D0, e2, 8 * 4096));
  ck_assert_uint_eq (sf.fake.dim_messages[0], 8 * 14);
  ck_assert_uint_eq (sf.fake.dim_messages[1], 0);
}
END_TEST

/* localBWAware with doubleBinaryTree on dimension 0: the tree only
 * all-reduces, so dimension 0 all-reduces the whole chunk c (2 lines x 2
 * trees x 2(4-1) messages of c/2) and dimension 1 then all-reduces c too
 * (4 lines x 2 members x 2 steps of c/2); no all-gather comes back down. */
START_TEST (test_2d_tree_below)
{
  const char *algos[] = { "doubleBinaryTree", "ring" };
  GError *error = NULL;
  ck_assert (sys_params_set_impl (&sf.params, SYS_COLL_ALL_REDUCE, algos, 2, &error));
  build_4x2 (NS (1100), 1, SYS_OPT_LOCAL_BW_AWARE);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 32768, 0);
  sf_run_quiet ();
  ck_assert_uint_eq (sf.fake.dim_messages[0], 24);
  ck_assert_uint_eq (sf.fake.dim_bytes[0], 24 * 16384);
  ck_assert_uint_eq (sf.fake.dim_messages[1], 16);
  ck_assert_uint_eq (sf.fake.dim_bytes[1], 16 * 16384);
}
END_TEST

/* ASTRA-sim's rule for an algorithm a kind lacks (kind_check_at_use):
 * all-to-all listed as ring on dimension 0 and halvingDoubling on dimension
 * 1 of the 4 x 2 rings.  The system builds; an all-to-all on dimension 0
 * alone runs (4 members, ring: 4 x 3 / 2 = 6 messages per line, 2 lines x
 * 4 members = 48 on dimension 0, none on 1); one over both dimensions is
 * refused as its first member joins, naming the dimension and algorithm;
 * an all-reduce still runs.  Without the rule the system does not build. */
START_TEST (test_kind_at_use)
{
  const char *algos[] = { "ring", "halvingDoubling" };
  GError *error = NULL;
  ck_assert (sys_params_set_impl (&sf.params, SYS_COLL_ALL_TO_ALL, algos, 2, &error));
  sf.params.kind_check_at_use = TRUE;
  build_4x2 (NS (1100), 1, SYS_OPT_LOCAL_BW_AWARE);
  for (guint32 r = 0; r < 8; r++)
    {
      SysCollRequest req = sf_coll_req (SYS_COLL_ALL_TO_ALL, 32768, SYS_GROUP_WORLD, 0, r);
      req.involved_dims = 1u << 0;
      ck_assert (sys_coll_join (sf.sys, r, &req, &error));
    }
  sf_run_quiet ();
  ck_assert_uint_eq (sf.done->len, 8);
  ck_assert_uint_eq (sf.fake.dim_messages[0], 48);
  ck_assert_uint_eq (sf.fake.dim_messages[1], 0);
  SysCollRequest both = sf_coll_req (SYS_COLL_ALL_TO_ALL, 32768, SYS_GROUP_WORLD, 1, 0);
  both.node_name = "a2a";
  ck_assert (!sys_coll_join (sf.sys, 0, &both, &error));
  sf_assert_error (error, (const char *[]) { "rank 0 node 1001 \"a2a\" (all ranks): ",
                                             "all_to_all on dimension 1: the config's algorithm "
                                             "'halvingDoubling' has no all_to_all",
                                             NULL });
  g_clear_error (&error);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, 32768, 2);
  sf_run_quiet ();
  ck_assert_uint_eq (sf.done->len, 16);

  /* Native rule: refused when the system is built. */
  sf.params.kind_check_at_use = FALSE;
  ck_assert (sys_new (sf.sched, sf.net, &sf.params, &error) == NULL);
  sf_assert_error (error, (const char *[]) { "all_to_all: algorithm 'halvingDoubling' "
                                             "(dimension 1) does not exist", NULL });
  g_clear_error (&error);
}
END_TEST

/* Rooted kinds as chains along the ring, p members, root r, one chunk of c
 * bytes, delay D per message, endpoint delay e, reduction cost rc.  With
 * j a member's place in the chain (0 for the source; broadcast and scatter
 * start at the root, reduce and gather at the member after it and end at
 * the root): f(j) = e + j (D + e) (+ j rc for reduce).  Bytes on the wire:
 * broadcast and reduce (p-1)c; scatter and gather c p(p-1)/2.  A barrier is
 * an all-reduce of nothing: e + 2(p-1)(D + e) for everybody. */
static const SysCollKind rooted_kinds[] = { SYS_COLL_BROADCAST, SYS_COLL_SCATTER,
                                            SYS_COLL_REDUCE, SYS_COLL_GATHER, SYS_COLL_BARRIER };

START_TEST (test_rooted)
{
  /* Every kind for p in loop_p, the root in the middle (p / 2). */
  const struct
  {
    SysCollKind kind;
    guint32 p, root;
  } c_ = { rooted_kinds[_i / G_N_ELEMENTS (loop_p)], loop_p[_i % G_N_ELEMENTS (loop_p)],
           loop_p[_i % G_N_ELEMENTS (loop_p)] / 2 },
    *rc = &c_;
  const SimTime D = NS (300), e = NS (5);
  const guint64 c = 4000;
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 1;
  sf.params.local_mem_bw_Bps = 1e9; /* 1 ns per byte */
  const SimTime red = NS (c);
  build_fake_ring (rc->p, D);
  for (guint32 r = 0; r < rc->p; r++)
    {
      SysCollRequest req = sf_coll_req (rc->kind, c, SYS_GROUP_WORLD, 0, r);
      req.root = rc->root;
      GError *error = NULL;
      ck_assert_msg (sys_coll_join (sf.sys, r, &req, &error), "%s", error ? error->message : "");
    }
  sf_run_quiet ();
  guint64 p = rc->p;
  if (rc->kind == SYS_COLL_BARRIER)
    {
      sf_assert_all_done_at (0, rc->p, e + 2 * (p - 1) * (D + e));
      ck_assert_uint_eq (sf.fake.bytes, 0);
      return;
    }
  gboolean outward = rc->kind == SYS_COLL_BROADCAST || rc->kind == SYS_COLL_SCATTER;
  for (guint32 r = 0; r < rc->p; r++)
    {
      guint64 d = (r + p - rc->root) % p;
      guint64 j = outward ? d : (d + p - 1) % p;
      SimTime expect = e + j * (D + e) + (rc->kind == SYS_COLL_REDUCE ? j * red : 0);
      ck_assert_msg (sf_done_at (0, r) == expect, "rank %u: %" G_GUINT64_FORMAT " != %"
                     G_GUINT64_FORMAT, r, sf_done_at (0, r), expect);
    }
  ck_assert_uint_eq (sf.fake.messages, p - 1);
  guint64 wire = (rc->kind == SYS_COLL_BROADCAST || rc->kind == SYS_COLL_REDUCE)
                     ? (p - 1) * c
                     : c * p * (p - 1) / 2;
  ck_assert_uint_eq (sf.fake.bytes, wire);
}
END_TEST

/* A root outside the group, and members that disagree on the root. */
START_TEST (test_rooted_errors)
{
  build_fake_ring (4, NS (100));
  SysCollRequest req = sf_coll_req (SYS_COLL_BROADCAST, 64, SYS_GROUP_WORLD, 0, 0);
  req.root = 9;
  GError *error = NULL;
  ck_assert (!sys_coll_join (sf.sys, 0, &req, &error));
  sf_assert_error (error, (const char *[]) { "root of its broadcast, rank 9", NULL });
  g_clear_error (&error);
  req.root = 1;
  ck_assert (sys_coll_join (sf.sys, 0, &req, NULL));
  req.root = 2;
  ck_assert (!sys_coll_join (sf.sys, 1, &req, &error));
  sf_assert_error (error, (const char *[]) { "root rank 2 here but rank 1", NULL });
  g_clear_error (&error);
}
END_TEST

START_TEST (test_2d_involved_dims)
{
  const SimTime D1 = NS (1100);
  build_4x2 (D1, 1, SYS_OPT_LOCAL_BW_AWARE);
  for (guint32 r = 0; r < 8; r++)
    {
      SysCollRequest req = { .kind = SYS_COLL_ALL_REDUCE, .bytes = 32768,
                             .group = SYS_GROUP_WORLD, .involved_dims = 1u << 1,
                             .on_done = sf_on_done, .arg = r };
      ck_assert (sys_coll_join (sf.sys, r, &req, NULL));
      SysCollRequest none = req;
      none.involved_dims = 0;
      none.arg = (G_GUINT64_CONSTANT (1) << 32) | r;
      ck_assert (sys_coll_join (sf.sys, r, &none, NULL));
    }
  sf_run_quiet ();
  sf_assert_all_done_at (0, 8, sf_phase_time (2, 1, D1, e2, 8 * 16384));
  sf_assert_all_done_at (1, 8, 0);
  ck_assert_uint_eq (sf.fake.dim_messages[0], 0);
  ck_assert_uint_eq (sf.fake.dim_messages[1], 16);
}
END_TEST

/* ------------------------------------------------------------ late joiner */

/* Rank 0 joins at L, the others at 0; one chunk.  From the ring's rules
 * (algo_ring.c): member i sends step 0 at t_i(0) = s_i + e and, for j >= 1,
 *   t_i(j) = max(t_{i-1}(j-1) + D, t_i(j-1)) + red(j-1) + e
 * (a message is processed once it has arrived and the endpoint is free;
 * t_i(j-1) >= s_i, so the start time needs no term of its own), finishing
 * at t_i(k).  Unrolling, every path back from (i, k) to step 0 takes k
 * moves, d of them to the predecessor, and collects the same red() + e
 * terms; so
 *   f_i = (k+1) e + R + max over 0 <= d <= k of (d D + [i - d = 0 mod p] L)
 *       = (k+1) e + R + max(k D, d*_i D + L)
 * with R the total reduction cost and d*_i the largest d <= k with
 * d = i (mod p): i + p floor((k - i) / p).  A rank far enough downstream of
 * the late one finishes L - (k - d*) D late, or not at all late if that is
 * negative. */
static void
join_later (SimSched *s, gpointer data, guint64 arg)
{
  (void) s;
  SysCollKind kind = (SysCollKind) GPOINTER_TO_UINT (data);
  sf_join ((guint32) arg, kind, 12000 * 5 * 4, SYS_GROUP_WORLD, 0);
}

typedef struct
{
  SysCollKind kind;
  guint32 p;
  SimTime L;
} LateCase;

static const LateCase late_cases[] = {
  { SYS_COLL_ALL_REDUCE, 4, NS (100000) }, /* far later than the whole collective */
  { SYS_COLL_ALL_REDUCE, 4, NS (150) },    /* a little late: only some ranks feel it */
  { SYS_COLL_ALL_REDUCE, 5, NS (700) },
  { SYS_COLL_ALL_TO_ALL, 4, NS (100000) },
  { SYS_COLL_ALL_TO_ALL, 5, NS (600) },
  { SYS_COLL_ALL_GATHER, 4, NS (2000) },
  { SYS_COLL_REDUCE_SCATTER, 5, NS (250) },
};

START_TEST (test_late_joiner)
{
  const LateCase *lc = &late_cases[_i];
  const SimTime D = NS (200), e = NS (5);
  const guint32 p = lc->p;
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 1;
  sf.params.local_mem_bw_Bps = 1e12; /* 1 ps per byte */
  build_fake_ring (p, D);
  for (guint32 r = 1; r < p; r++)
    sf_join (r, lc->kind, 12000 * 5 * 4, SYS_GROUP_WORLD, 0);
  sim_sched_at (sf.sched, lc->L, join_later, GUINT_TO_POINTER (lc->kind), 0);
  sf_run_quiet ();

  guint64 k, r;
  ring_k_r (lc->kind, p, &k, &r);
  const guint64 c = 12000 * 5 * 4; /* divisible by 4 and 5 */
  guint64 m = lc->kind == SYS_COLL_ALL_GATHER ? c : c / p;
  SimTime R = r * m; /* one pass at 1 ps per byte */
  SimTime lockstep = sf_phase_time (k, r, D, e, m);
  gboolean someone_on_time = FALSE;
  for (guint32 i = 0; i < p; i++)
    {
      guint64 dstar = i + p * ((k - i) / p);
      SimTime f = (k + 1) * e + R + MAX (k * D, dstar * D + lc->L);
      SimTime t = sf_done_at (0, i);
      ck_assert_msg (t == f, "case %d rank %u: finished at %" G_GUINT64_FORMAT ", expected %"
                     G_GUINT64_FORMAT, _i, i, t, f);
      ck_assert (f >= lockstep);
      someone_on_time |= f == lockstep;
    }
  /* Rank 0 itself finishes (k - d*_0) D earlier than L + lockstep. */
  if (lc->L >= k * D)
    ck_assert_uint_eq (sf_done_at (0, 0), lc->L + lockstep - (k - p * (k / p)) * D);
  if (_i == 1)
    ck_assert (someone_on_time);
}
END_TEST

/* ------------------------------------------------- the ring's prepare hook */

/* What the ring works out once per chunk phase (ring_prepare), on a line
 * of 4 members whose chunk phase takes in 1000 bytes, a share of 250: the
 * steps and reducing steps of the table in algo_ring.c's header (all-reduce
 * 2 x 3 steps, the first 3 reducing; reduce-scatter 3, all reducing;
 * all-gather 3 of the whole 1000 bytes; all-to-all 4 x 3 / 2 = 6; barrier
 * 6 of nothing, none reducing), and nothing for a rooted kind, which runs
 * as a chain (steps 0 sends the ring's step down its other path). */
START_TEST (test_prepare)
{
  static const struct
  {
    SysCollKind op;
    guint32 steps, reducing;
    guint64 bytes;
  } cases[] = {
    { SYS_COLL_ALL_REDUCE, 6, 3, 250 },    { SYS_COLL_REDUCE_SCATTER, 3, 3, 250 },
    { SYS_COLL_ALL_GATHER, 3, 0, 1000 },   { SYS_COLL_ALL_TO_ALL, 6, 0, 250 },
    { SYS_COLL_BARRIER, 6, 0, 0 },         { SYS_COLL_BROADCAST, 0, 0, 0 },
  };
  ck_assert_ptr_nonnull (sys_algo_ring.prepare);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      SysPhaseCtx ctx = { .op = cases[i].op, .n = 4, .in_bytes = 1000, .share = 250,
                          .step_bits = 8 };
      sys_algo_ring.prepare (&ctx);
      ck_assert_uint_eq (ctx.steps, cases[i].steps);
      ck_assert_uint_eq (ctx.reducing_steps, cases[i].reducing);
      ck_assert_uint_eq (ctx.step_bytes, cases[i].bytes);
    }
}
END_TEST

/* --------------------------------------------------------------- main */

static TCase *
tcase (Suite *s, const char *name)
{
  return tu_tcase (s, name, sf_setup, sf_teardown, 300);
}

int
main (void)
{
  Suite *s = suite_create ("ring");
  tcase_add_test (tcase (s, "prepare"), test_prepare);
  tcase_add_loop_test (tcase (s, "lockstep"), test_lockstep, 0,
                       (int) (G_N_ELEMENTS (loop_p) * 4 * G_N_ELEMENTS (loop_S)));
  tcase_add_loop_test (tcase (s, "uneven_sizes"), test_uneven_sizes, 0, 2);
  tcase_add_loop_test (tcase (s, "alpha_beta"), test_alpha_beta, 0, 9);
  tcase_add_loop_test (tcase (s, "astra_closed_form"), test_astra_closed_form, 0,
                       (int) G_N_ELEMENTS (astra_cases));
  tcase_add_test (tcase (s, "astra_microbench"), test_astra_microbench);
  tcase_add_test (tcase (s, "2d_local_bw_aware"), test_2d_local_bw_aware);
  tcase_add_loop_test (tcase (s, "2d_pipeline"), test_2d_pipeline, 0, 3);
  tcase_add_loop_test (tcase (s, "2d_phases_keep_order"), test_2d_phases_keep_order, 0, 2);
  tcase_add_test (tcase (s, "2d_baseline"), test_2d_baseline);
  tcase_add_test (tcase (s, "2d_involved_dims"), test_2d_involved_dims);
  tcase_add_test (tcase (s, "one_ring"), test_one_ring);
  tcase_add_loop_test (tcase (s, "rooted"), test_rooted, 0,
                       (int) (G_N_ELEMENTS (rooted_kinds) * G_N_ELEMENTS (loop_p)));
  tcase_add_test (tcase (s, "rooted_errors"), test_rooted_errors);
  tcase_add_test (tcase (s, "2d_tree_below"), test_2d_tree_below);
  tcase_add_test (tcase (s, "kind_at_use"), test_kind_at_use);
  tcase_add_loop_test (tcase (s, "late_joiner"), test_late_joiner, 0,
                       (int) G_N_ELEMENTS (late_cases));
  return tu_run_suite (s);
}
