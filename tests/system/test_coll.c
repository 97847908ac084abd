/* test_coll.c: the system layer's bookkeeping around the algorithms:
 * scheduling policies on the per-rank dimension queues, process groups laid
 * over the topology, sequence matching, diagnostics of what never completed,
 * and configuration errors (system/coll.c, system/group.c).  Point-to-point
 * messages are in test_p2p.c.
 *
 * Runs over the shared fake link model (support/sysfix.h), which delivers
 * every message a fixed delay after it leaves (one delay per topology
 * dimension) and counts messages per dimension and per (src, dst); one
 * test of groups across nodes runs over the real analytical model.
 * Expected times are the ring's lockstep closed form e + k (D + e) + r rc
 * (see test_ring.c and algo_ring.c), composed by hand for each scenario.
 */
#include <check.h>
#include <string.h>

#include "sim/error.h"
#include "support/sysfix.h"

#define NS(x) ((SimTime) (x) * 1000)

/* ------------------------------------------------------------ fixture */

/* Common costs: e = 7 ns; two passes at 4 ps per byte (rc(m) = 8m ps). */
static const SimTime e = NS (7);

static void
setup (void)
{
  sf_setup ();
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 2;
  sf.params.local_mem_bw_Bps = 250e9;
  sf.params.active_chunks_per_dim = 1;
}

/* ------------------------------------------------------------ helpers */

static const SimTime D_ring = NS (250);

static void
build_ring (guint32 p)
{
  sf_build_rings (&p, &D_ring, 1);
}

/* 4 x 4 with D0 = 200 ns on dim 0 and D1 = 900 ns on dim 1. */
static const SimTime D0 = NS (200), D1 = NS (900);

static void
build_4x4 (void)
{
  const guint32 sizes[] = { 4, 4 };
  const SimTime D[] = { D0, D1 };
  sf_build_rings (sizes, D, 2);
}

static void
join_prio (guint32 rank, SysCollKind kind, guint64 bytes, guint32 tag, gint32 prio)
{
  SysCollRequest req = sf_coll_req (kind, bytes, SYS_GROUP_WORLD, tag, rank);
  req.priority = prio;
  ck_assert (sys_coll_join (sf.sys, rank, &req, NULL));
}

static void
add_group (guint64 id, const guint32 *ranks, guint n)
{
  GError *error = NULL;
  gboolean ok = sys_group_add (sf.sys, id, ranks, n, &error);
  ck_assert_msg (ok, "group %" G_GUINT64_FORMAT ": %s", id, error ? error->message : "?");
}

/* The tags completed by `rank`, in completion order, as a string "0,2,1". */
static char *
completion_order (guint32 rank)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < sf.done->len; i++)
    {
      const SfDone *d = &g_array_index (sf.done, SfDone, i);
      if (d->id == rank)
        g_string_append_printf (s, "%s%u", s->len ? "," : "", d->tag);
    }
  return g_string_free (s, FALSE);
}

/* One lockstep ring phase: e + k (D + e) + r rc. */
static SimTime
phase_time (guint64 k, guint64 r, SimTime D, SimTime rc)
{
  return sf_phase_time (k, r, D, e, rc);
}

/* Ring all-reduce of c bytes on n members: k = 2(n-1), r = n-1, m = c/n. */
static SimTime
ar_time (guint64 n, guint64 c, SimTime D)
{
  return phase_time (2 * (n - 1), n - 1, D, 8 * (c / n));
}

/* ------------------------------------------------------ scheduling policy */

/* Every rank issues a blocker W, then X and Y, at t = 0.  W takes the only
 * slot at once; X and Y both wait for it, and the policy picks which runs
 * next.  W: all-reduce of 4096 (m = 1024); X: all-reduce of 8192
 * (m = 2048); Y: all-gather of 2048 (k = 3, no reduction). */
typedef struct
{
  SysSchedPolicy policy;
  gint32 prio_x, prio_y;
  gboolean x_first;
} PolicyCase;

static const PolicyCase policy_cases[] = {
  { SYS_SCHED_FIFO, 0, 0, TRUE },
  { SYS_SCHED_LIFO, 0, 0, FALSE },
  { SYS_SCHED_EXPLICIT, 5, 1, TRUE },
  { SYS_SCHED_EXPLICIT, 1, 5, FALSE },
  { SYS_SCHED_EXPLICIT, -3, -3, TRUE }, /* equal: oldest first */
};

START_TEST (test_policy_waiting)
{
  const PolicyCase *pc = &policy_cases[_i];
  sf.params.policy = pc->policy;
  build_ring (4);
  for (guint32 r = 0; r < 4; r++)
    {
      join_prio (r, SYS_COLL_ALL_REDUCE, 4096, 0, G_MININT32);
      join_prio (r, SYS_COLL_ALL_REDUCE, 8192, 1, pc->prio_x);
      join_prio (r, SYS_COLL_ALL_GATHER, 2048, 2, pc->prio_y);
    }
  sf_run_quiet ();
  SimTime tw = ar_time (4, 4096, D_ring);
  SimTime tx = ar_time (4, 8192, D_ring);
  SimTime ty = phase_time (3, 0, D_ring, 0);
  const guint32 all[] = { 0, 1, 2, 3 };
  sf_assert_done_at (0, all, 4, tw);
  sf_assert_done_at (1, all, 4, pc->x_first ? tw + tx : tw + ty + tx);
  sf_assert_done_at (2, all, 4, pc->x_first ? tw + tx + ty : tw + ty);
  for (guint32 r = 0; r < 4; r++)
    {
      g_autofree char *order = completion_order (r);
      ck_assert_str_eq (order, pc->x_first ? "0,1,2" : "0,2,1");
    }
}
END_TEST

/* Four chunks each, no blocker: X's first chunk takes the free slot when X
 * is issued; the other seven chunk phases wait.  FIFO (or X preferred) runs
 * X's remaining chunks, then Y's: X done at 4 tx, Y at 4 tx + 4 ty.  LIFO
 * (or Y preferred) runs Y's four chunks next: Y done at tx + 4 ty, X at
 * 4 tx + 4 ty.  Chunk sizes: X 16384 / 4 = 4096 (m = 1024), Y 8192 / 4 =
 * 2048 (all-gather: m = 2048). */
START_TEST (test_policy_chunks)
{
  const PolicyCase *pc = &policy_cases[_i];
  sf.params.policy = pc->policy;
  sf.params.splits = 4;
  build_ring (4);
  for (guint32 r = 0; r < 4; r++)
    {
      join_prio (r, SYS_COLL_ALL_REDUCE, 16384, 1, pc->prio_x);
      join_prio (r, SYS_COLL_ALL_GATHER, 8192, 2, pc->prio_y);
    }
  sf_run_quiet ();
  SimTime tx = ar_time (4, 4096, D_ring);
  SimTime ty = phase_time (3, 0, D_ring, 0);
  const guint32 all[] = { 0, 1, 2, 3 };
  sf_assert_done_at (1, all, 4, pc->x_first ? 4 * tx : 4 * tx + 4 * ty);
  sf_assert_done_at (2, all, 4, pc->x_first ? 4 * tx + 4 * ty : tx + 4 * ty);
}
END_TEST

/* The policy orders waiting work only: a collective issued while its
 * dimension has a free slot starts at once, even under LIFO or when a
 * later one has a higher priority. */
START_TEST (test_policy_free_slot_starts_at_once)
{
  sf.params.policy = _i == 0 ? SYS_SCHED_LIFO : SYS_SCHED_EXPLICIT;
  build_ring (4);
  for (guint32 r = 0; r < 4; r++)
    {
      join_prio (r, SYS_COLL_ALL_REDUCE, 8192, 1, 0);
      join_prio (r, SYS_COLL_ALL_GATHER, 2048, 2, 9);
    }
  sf_run_quiet ();
  SimTime tx = ar_time (4, 8192, D_ring);
  SimTime ty = phase_time (3, 0, D_ring, 0);
  const guint32 all[] = { 0, 1, 2, 3 };
  sf_assert_done_at (1, all, 4, tx);
  sf_assert_done_at (2, all, 4, tx + ty);
}
END_TEST

/* Two active chunks per dimension: X and Y run side by side (the fake
 * network has no contention). */
START_TEST (test_two_active_chunks)
{
  sf.params.active_chunks_per_dim = 2;
  build_ring (4);
  for (guint32 r = 0; r < 4; r++)
    {
      sf_join (r, SYS_COLL_ALL_REDUCE, 8192, SYS_GROUP_WORLD, 1);
      sf_join (r, SYS_COLL_ALL_GATHER, 2048, SYS_GROUP_WORLD, 2);
    }
  sf_run_quiet ();
  const guint32 all[] = { 0, 1, 2, 3 };
  sf_assert_done_at (1, all, 4, ar_time (4, 8192, D_ring));
  sf_assert_done_at (2, all, 4, phase_time (3, 0, D_ring, 0));
}
END_TEST

/* ------------------------------------------------------------------ groups */

/* Sub-grid groups on 4 x 4 run on the dimensions they span. */
START_TEST (test_group_subgrid)
{
  build_4x4 ();
  const guint32 row[] = { 3, 1, 2, 0 };     /* dim 0 only, given unsorted */
  const guint32 col[] = { 12, 0, 8, 4 };    /* dim 1 only */
  const guint32 square[] = { 5, 0, 4, 1 };  /* 2 x 2 over both */
  add_group (1, row, 4);
  add_group (2, col, 4);
  add_group (3, square, 4);
  const guint64 c = 8192;
  switch (_i)
    {
    case 0:
      for (guint i = 0; i < 4; i++)
        sf_join (row[i], SYS_COLL_ALL_REDUCE, c, 1, 0);
      sf_run_quiet ();
      sf_assert_done_at (0, row, 4, ar_time (4, c, D0));
      ck_assert_uint_eq (sf.fake.dim_messages[0], 4 * 6);
      ck_assert_uint_eq (sf.fake.dim_messages[1], 0);
      /* The ring follows rank order: 0 -> 1 -> 2 -> 3 -> 0. */
      for (guint32 r = 0; r < 4; r++)
        ck_assert_uint_eq (sf.fake.edge[r][(r + 1) % 4], 6);
      break;
    case 1:
      for (guint i = 0; i < 4; i++)
        sf_join (col[i], SYS_COLL_ALL_REDUCE, c, 2, 0);
      sf_run_quiet ();
      sf_assert_done_at (0, col, 4, ar_time (4, c, D1));
      ck_assert_uint_eq (sf.fake.dim_messages[0], 0);
      ck_assert_uint_eq (sf.fake.dim_messages[1], 4 * 6);
      for (guint32 r = 0; r < 16; r += 4)
        ck_assert_uint_eq (sf.fake.edge[r][(r + 4) % 16], 6);
      break;
    default:
      /* localBWAware on 2 x 2: RS on dim 0 (n = 2: k = 1, r = 1, m = c/2),
       * AR on dim 1 of c/2 (k = 2, r = 1, m = c/4), AG on dim 0 of c/2
       * (k = 1, m = c/2). */
      for (guint i = 0; i < 4; i++)
        sf_join (square[i], SYS_COLL_ALL_REDUCE, c, 3, 0);
      sf_run_quiet ();
      sf_assert_done_at (0, square, 4,
                      phase_time (1, 1, D0, 8 * (c / 2)) + phase_time (2, 1, D1, 8 * (c / 4))
                        + phase_time (1, 0, D0, 0));
      ck_assert_uint_eq (sf.fake.dim_messages[0], 4 * 2);
      ck_assert_uint_eq (sf.fake.dim_messages[1], 4 * 2);
      break;
    }
}
END_TEST

/* A group that is no sub-grid is one flat line in the order given.  Its
 * messages travel whatever route the network picks between the two ranks
 * (the fake model's: the innermost differing dimension, net_topo_route),
 * here dimension 0 for each hop of 10 -> 0 -> 5 -> 10. */
START_TEST (test_group_flat)
{
  build_4x4 ();
  const guint32 odd[] = { 10, 0, 5 };
  add_group (9, odd, 3);
  const guint64 c = 3 * 4096;
  for (guint i = 0; i < 3; i++)
    sf_join (odd[i], SYS_COLL_ALL_REDUCE, c, 9, 0);
  sf_run_quiet ();
  sf_assert_done_at (0, odd, 3, ar_time (3, c, D0));
  ck_assert_uint_eq (sf.fake.edge[10][0], 4);
  ck_assert_uint_eq (sf.fake.edge[0][5], 4);
  ck_assert_uint_eq (sf.fake.edge[5][10], 4);
  ck_assert_uint_eq (sf.fake.messages, 12);
}
END_TEST

/* The fuzzer's case on the real analytical model: 3 nodes x 2 GPUs,
 * NVSwitch 450 GB/s 500 ns a hop, network 50 GB/s 2 us a hop, one chunk,
 * no endpoint delay or reduction cost: a ring all-reduce of c = 1 MiB on
 * a pair is two messages of c/2 = 524288 B one after the other,
 * 2 (a + ceil(524288 x 10^12 / B)) ps.
 *   {0, 1} inside node 0:  a = 2 x 500 ns, B = 450e9: 2 (1e6 + 1165085);
 *   {1, 3}, GPU 1 of nodes 0 and 1: a = 2 x 2 us, B = 50e9:
 *       2 (4e6 + 10485760);
 *   {0, 3}, GPU 0 of node 0 and GPU 1 of node 1 (no sub-grid): both
 *       dimensions, a = 1 us + 4 us, the network's 50 GB/s:
 *       2 (5e6 + 10485760), not {0, 1}'s time. */
START_TEST (test_group_across_nodes)
{
  static const guint32 pairs[][2] = { { 0, 1 }, { 1, 3 }, { 0, 3 } };
  static const SimTime want[] = { 2 * (1000000 + 1165085), 2 * (4000000 + 10485760),
                                  2 * (5000000 + 10485760) };
  sf.params.endpoint_delay = 0;
  sf.params.reduction_passes = 0;
  sf.params.splits = 1;
  NetDimSpec dims[] = { sf_dim (NET_DIM_SWITCH, 2, 450e9, NS (500)),
                        sf_dim (NET_DIM_SWITCH, 3, 50e9, NS (2000)) };
  sf_build (dims, 2, NET_ROUND_PS, FALSE);
  add_group (1, pairs[_i], 2);
  sf_join (pairs[_i][0], SYS_COLL_ALL_REDUCE, 1 << 20, 1, 0);
  sf_join (pairs[_i][1], SYS_COLL_ALL_REDUCE, 1 << 20, 1, 0);
  sf_run_quiet ();
  sf_assert_done_at (0, pairs[_i], 2, want[_i]);
}
END_TEST

/* In ASTRA mode a group smaller than the system is ASTRA-sim's: one flat
 * ring in the listed order (10 -> 0 -> 5, every hop on dimension 0), the
 * ring algorithm, and a fixed 10 ns per message instead of the endpoint
 * delay.  Reductions: 2 passes over m = 4100 bytes at 250 GB/s, each
 * truncated to whole ns: 2 x 16 ns. */
START_TEST (test_group_astra_local)
{
  sf_compat (&sf.params, TRUE);
  build_4x4 ();
  const guint32 odd[] = { 10, 0, 5 };
  add_group (9, odd, 3);
  for (guint i = 0; i < 3; i++)
    sf_join (odd[i], SYS_COLL_ALL_REDUCE, 3 * 4100, 9, 0);
  sf_run_quiet ();
  sf_assert_done_at (0, odd, 3, sf_phase_time (4, 2, D0, NS (10), NS (32)));
  ck_assert_uint_eq (sf.fake.edge[10][0], 4);
  ck_assert_uint_eq (sf.fake.edge[0][5], 4);
  ck_assert_uint_eq (sf.fake.edge[5][10], 4);
}
END_TEST

/* A flat group queues on the outermost dimension it spans (group.c): {0, 5}
 * spans dims 0 and 1, so on rank 0 it occupies dim 1's only slot, and the
 * column group {0, 4, 8, 12} that rank 0 issues next must wait for it;
 * the row group {0, 1, 2, 3} (dim 0) need not.
 *   {0, 5}: all-reduce of c on 2, messages on dim 0: T5 = ar_time(2, c, D0).
 *   Column, rank 0 starting at L = T5, the others at 0: the late-joiner
 *   closed form of test_ring.c, f_i = 7e + 3 rc + max(6 D1, d*_i D1 + L),
 *   d*_i = i + 4 floor((6 - i) / 4) for positions i = 0 (rank 0) .. 3. */
START_TEST (test_group_dimension_queue)
{
  sf.params.policy = SYS_SCHED_FIFO;
  build_4x4 ();
  const guint32 pair[] = { 0, 5 };
  const guint32 col[] = { 0, 4, 8, 12 };
  const guint32 row[] = { 0, 1, 2, 3 };
  add_group (1, pair, 2);
  add_group (2, col, 4);
  add_group (3, row, 4);
  const guint64 c = 8192;
  gboolean use_col = _i == 0;
  const guint32 *other = use_col ? col : row;
  guint64 other_id = use_col ? 2 : 3;
  sf_join (0, SYS_COLL_ALL_REDUCE, c, 1, 1);
  sf_join (5, SYS_COLL_ALL_REDUCE, c, 1, 1);
  for (guint i = 0; i < 4; i++)
    sf_join (other[i], SYS_COLL_ALL_REDUCE, c, other_id, 2);
  sf_run_quiet ();
  SimTime T5 = ar_time (2, c, D0);
  sf_assert_done_at (1, pair, 2, T5);
  if (!use_col)
    {
      sf_assert_done_at (2, row, 4, ar_time (4, c, D0));
      return;
    }
  const SimTime rc = 8 * (c / 4);
  for (guint32 i = 0; i < 4; i++)
    {
      guint64 dstar = i + 4 * ((6 - i) / 4);
      SimTime f = 7 * e + 3 * rc + MAX (6 * D1, dstar * D1 + T5);
      ck_assert_uint_eq (sf_done_at (2, col[i]), f);
    }
}
END_TEST

START_TEST (test_group_single_member)
{
  build_4x4 ();
  const guint32 one[] = { 6 };
  add_group (4, one, 1);
  sf_join (6, SYS_COLL_ALL_REDUCE, 1 << 20, 4, 0);
  sf_run_quiet ();
  ck_assert_uint_eq (sf_done_at (0, 6), 0);
  ck_assert_uint_eq (sf.fake.messages, 0);
}
END_TEST

START_TEST (test_group_errors)
{
  build_4x4 ();
  const guint32 row[] = { 0, 1, 2, 3 };
  add_group (1, row, 4);
  GError *error = NULL;
  /* Registered twice. */
  ck_assert (!sys_group_add (sf.sys, 1, row, 4, &error));
  sf_assert_error (error, (const char *[]) { "group 1", "twice", NULL });
  g_clear_error (&error);
  /* The world's id is taken. */
  ck_assert (!sys_group_add (sf.sys, SYS_GROUP_WORLD, row, 4, &error));
  g_clear_error (&error);
  /* A rank the topology lacks. */
  const guint32 bad[] = { 0, 16 };
  ck_assert (!sys_group_add (sf.sys, 2, bad, 2, &error));
  sf_assert_error (error, (const char *[]) { "rank 16", "16 ranks", NULL });
  g_clear_error (&error);
  /* A rank outside the group, an undefined group, a rank outside the world. */
  SysCollRequest req = sf_coll_req (SYS_COLL_ALL_REDUCE, 64, 1, 0, 5);
  req.node_id = 4242;
  ck_assert (!sys_coll_join (sf.sys, 5, &req, &error));
  sf_assert_error (error, (const char *[]) { "rank 5", "4242", "whose members are 0,1,2,3: rank 5 is not one of them", "group 1", NULL });
  g_clear_error (&error);
  req.group = 77;
  ck_assert (!sys_coll_join (sf.sys, 5, &req, &error));
  sf_assert_error (error, (const char *[]) { "group 77", "not defined", NULL });
  g_clear_error (&error);
  req.group = SYS_GROUP_WORLD;
  ck_assert (!sys_coll_join (sf.sys, 16, &req, &error));
  sf_assert_error (error, (const char *[]) { "all ranks, whose members are 0,1,2", NULL });
  g_clear_error (&error);
  sf_run_quiet ();
  ck_assert_uint_eq (sf.done->len, 0);
}
END_TEST

/* Members that disagree on the size or the kind of the n-th collective. */
START_TEST (test_group_mismatch)
{
  build_ring (4);
  sf_join (0, SYS_COLL_ALL_REDUCE, 1000, SYS_GROUP_WORLD, 0);
  GError *error = NULL;
  SysCollRequest req = sf_coll_req (SYS_COLL_ALL_REDUCE, 2000, SYS_GROUP_WORLD, 0, 1);
  req.node_id = 31337;
  ck_assert (!sys_coll_join (sf.sys, 1, &req, &error));
  sf_assert_error (error,
                   (const char *[]) { "1000", "2000", "rank 1", "31337", "all ranks", NULL });
  g_clear_error (&error);
  req.kind = SYS_COLL_ALL_GATHER;
  req.bytes = 1000;
  ck_assert (!sys_coll_join (sf.sys, 2, &req, &error));
  sf_assert_error (error, (const char *[]) { "all_gather", "all_reduce", "rank 2", NULL });
  g_clear_error (&error);
}
END_TEST

/* Each rank joins its second collective on a group from the first one's
 * completion: the n-th collective of one member meets the n-th of the
 * others.  The second is an all-gather of 1024 bytes on `second_group`. */
static guint64 second_group;

static void
join_second (SimSched *s, gpointer data, guint64 arg)
{
  sf_on_done (s, data, arg);
  guint32 rank = (guint32) arg;
  sf_join (rank, SYS_COLL_ALL_GATHER, 1024, second_group, 1);
}

/* Row group {0..3} on 4 x 4: all-reduce of 8192, then the all-gather
 * (k = 3, m = 1024, no reduction); with RECORDS off
 * (sys_set_coll_records), the same times and statistics and no record. */
static void
group_sequence (gboolean records)
{
  build_4x4 ();
  sys_set_coll_records (sf.sys, records);
  const guint32 row[] = { 2, 0, 3, 1 };
  add_group (1, row, 4);
  second_group = 1;
  for (guint i = 0; i < 4; i++)
    {
      SysCollRequest req = sf_coll_req (SYS_COLL_ALL_REDUCE, 8192, 1, 0, row[i]);
      req.on_done = join_second;
      ck_assert (sys_coll_join (sf.sys, row[i], &req, NULL));
    }
  sf_run_quiet ();
  SimTime t1 = ar_time (4, 8192, D0);
  sf_assert_done_at (0, row, 4, t1);
  sf_assert_done_at (1, row, 4, t1 + phase_time (3, 0, D0, 0));
  SysCollStats st;
  sys_coll_stats (sf.sys, SYS_COLL_ALL_REDUCE, &st);
  ck_assert_uint_eq (st.count, 1);
  sys_coll_stats (sf.sys, SYS_COLL_ALL_GATHER, &st);
  ck_assert_uint_eq (st.count, 1);
  ck_assert_uint_eq (st.bytes, 1024);
  ck_assert_uint_eq (st.busy, phase_time (3, 0, D0, 0));
  guint n = 0;
  const SysCollRecord *rec = sys_coll_records (sf.sys, &n);
  ck_assert_uint_eq (n, records ? 2 : 0);
  if (records)
    {
      ck_assert_uint_eq (rec[0].done, t1);
      ck_assert_uint_eq (rec[1].done, t1 + phase_time (3, 0, D0, 0));
      ck_assert_uint_eq (rec[1].bytes, 1024);
    }
}

START_TEST (test_group_sequence)
{
  group_sequence (TRUE);
}
END_TEST

START_TEST (test_group_sequence_no_records)
{
  group_sequence (FALSE);
}
END_TEST

/* On a world of 2 with two active chunks, rank 0 issues both collectives
 * at t = 0; rank 1 issues the all-gather from its all-reduce's completion
 * at t1.  Rank 0's all-gather must meet rank 1's all-gather (its second
 * collective), not its all-reduce.  The all-gather (k = 1) then has rank 1
 * as the late joiner (L = t1 > D): by the late-joiner closed form of
 * test_ring.c, rank 1 (d* = 0) finishes at 2e + L and rank 0 (d* = 1) at
 * 2e + D + L. */
START_TEST (test_group_sequence_ahead)
{
  sf.params.active_chunks_per_dim = 2;
  build_ring (2);
  second_group = SYS_GROUP_WORLD;
  sf_join (0, SYS_COLL_ALL_REDUCE, 8192, SYS_GROUP_WORLD, 0);
  sf_join (0, SYS_COLL_ALL_GATHER, 1024, SYS_GROUP_WORLD, 1);
  SysCollRequest req = sf_coll_req (SYS_COLL_ALL_REDUCE, 8192, SYS_GROUP_WORLD, 0, 1);
  req.on_done = join_second;
  ck_assert (sys_coll_join (sf.sys, 1, &req, NULL));
  /* Before the run: rank 1 has joined only collective #0. */
  g_autoptr (GString) pending = g_string_new (NULL);
  ck_assert_uint_eq (sys_describe_pending (sf.sys, pending), 2);
  ck_assert_ptr_nonnull (strstr (pending->str, "collective #1 on all ranks (all_gather"));
  ck_assert_ptr_nonnull (strstr (pending->str, "never joined: 1\n"));
  sf_run_quiet ();
  SimTime t1 = ar_time (2, 8192, D_ring);
  ck_assert_uint_eq (sf_done_at (0, 0), t1);
  ck_assert_uint_eq (sf_done_at (0, 1), t1);
  ck_assert_uint_eq (sf_done_at (1, 1), 2 * e + t1);
  ck_assert_uint_eq (sf_done_at (1, 0), 2 * e + D_ring + t1);
}
END_TEST

/* An empty rank list is an input error, not a group. */
/* A chain of CHAIN all-reduces on a ring of 4, each joined by every
 * member when its previous one is done, of eleven sizes in turn: a
 * group's plans (coll_plan.c: one per request, in eight places) are made,
 * copied into later instances, replaced by other sizes and made again,
 * and each finished instance's storage serves a later one.  Each takes
 * its closed-form time, whatever came before it. */
#define CHAIN 30

static guint64
chain_bytes (guint i)
{
  return 4096 * (1 + (i * 7) % 11);
}

/* Every third collective of the chain an all-gather when CHAIN_MIXED. */
static gboolean chain_mixed;

static SysCollKind
chain_kind (guint i)
{
  return chain_mixed && i % 3 == 1 ? SYS_COLL_ALL_GATHER : SYS_COLL_ALL_REDUCE;
}

static void
chain_next (SimSched *s, gpointer data, guint64 arg)
{
  sf_on_done (s, data, arg);
  guint32 rank = (guint32) arg, i = (guint32) (arg >> 32) + 1;
  if (i == CHAIN)
    return;
  SysCollRequest req = sf_coll_req (chain_kind (i), chain_bytes (i), SYS_GROUP_WORLD, i, rank);
  req.on_done = chain_next;
  ck_assert (sys_coll_join (sf.sys, rank, &req, NULL));
}

static void
chain_start (void)
{
  build_ring (4);
  for (guint32 r = 0; r < 4; r++)
    {
      SysCollRequest req = sf_coll_req (chain_kind (0), chain_bytes (0), SYS_GROUP_WORLD, 0, r);
      req.on_done = chain_next;
      ck_assert (sys_coll_join (sf.sys, r, &req, NULL));
    }
}

START_TEST (test_plans_reused)
{
  chain_mixed = FALSE;
  chain_start ();
  sf_run_quiet ();
  SimTime t = 0;
  for (guint i = 0; i < CHAIN; i++)
    {
      t += ar_time (4, chain_bytes (i), D_ring);
      sf_assert_all_done_at (i, 4, t);
    }
  SysCollStats st;
  sys_coll_stats (sf.sys, SYS_COLL_ALL_REDUCE, &st);
  ck_assert_uint_eq (st.count, CHAIN);
}
END_TEST

/* The chain with every third an all-gather: 22 requests on eight places,
 * so places are taken over by other kinds and sizes.  The statistics row
 * kept with a plan (coll_plan.c) is each instance's own: each kind's row
 * counts its collectives and their bytes (the sums of the chain's). */
START_TEST (test_plans_rows)
{
  chain_mixed = TRUE;
  chain_start ();
  sf_run_quiet ();
  guint64 count[2] = { 0, 0 }, bytes[2] = { 0, 0 };
  for (guint i = 0; i < CHAIN; i++)
    {
      guint k = chain_kind (i) == SYS_COLL_ALL_GATHER;
      count[k]++;
      bytes[k] += chain_bytes (i);
    }
  ck_assert_uint_eq (count[1], CHAIN / 3);
  g_autoptr (GArray) rows = sys_coll_group_stats (sf.sys);
  ck_assert_uint_eq (rows->len, 2);
  for (guint j = 0; j < rows->len; j++)
    {
      const SysCollGroupStats *st = &g_array_index (rows, SysCollGroupStats, j);
      guint k = st->kind == SYS_COLL_ALL_GATHER;
      ck_assert (k || st->kind == SYS_COLL_ALL_REDUCE);
      ck_assert_uint_eq (st->count, count[k]);
      ck_assert_uint_eq (st->bytes, bytes[k]);
    }
  guint n = 0;
  const SysCollRecord *rec = sys_coll_records (sf.sys, &n);
  ck_assert_uint_eq (n, CHAIN);
  for (guint i = 0; i < n; i++)
    ck_assert_int_eq (rec[i].kind, chain_kind (rec[i].seq));
}
END_TEST

START_TEST (test_empty_group)
{
  build_4x4 ();
  const guint32 none[] = { 0 };
  GError *error = NULL;
  ck_assert (!sys_group_add (sf.sys, 5, none, 0, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_ptr_nonnull (strstr (error->message, "group 5 has no ranks"));
  g_clear_error (&error);
}
END_TEST

/* ------------------------------------------------------------- pending */

START_TEST (test_pending_collective)
{
  g_autoptr (GString) out = g_string_new (NULL);
  switch (_i)
    {
    case 0:
      build_ring (4);
      sf_join (0, SYS_COLL_ALL_REDUCE, 4096, SYS_GROUP_WORLD, 0);
      sf_join (2, SYS_COLL_ALL_REDUCE, 4096, SYS_GROUP_WORLD, 0);
      break;
    case 1:
      {
        build_4x4 ();
        const guint32 row[] = { 0, 1, 2, 3 };
        add_group (7, row, 4);
        sf_join (1, SYS_COLL_REDUCE_SCATTER, 512, 7, 0);
        break;
      }
    default:
      build_ring (64);
      sf_join (0, SYS_COLL_ALL_TO_ALL, 6400, SYS_GROUP_WORLD, 0);
      break;
    }
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
  ck_assert_uint_eq (sf.done->len, 0);
  ck_assert_uint_eq (sys_describe_pending (sf.sys, out), 1);
  const char *const needles[][6] = {
    { "collective #0", "all ranks", "all_reduce", "2 of 4", "joined: 0,2", "never joined: 1,3" },
    { "collective #0", "group 7", "reduce_scatter", "1 of 4", "joined: 1;", "never joined: 0,2,3" },
    { "collective #0", "all ranks", "all_to_all", "1 of 64", "joined: 0;",
      "never joined: 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,... (63 in all)" },
  };
  for (guint i = 0; i < 6; i++)
    ck_assert_msg (strstr (out->str, needles[_i][i]) != NULL, "'%s' not in: %s", needles[_i][i],
                   out->str);
  ck_assert_int_eq (out->str[out->len - 1], '\n');
}
END_TEST

/* ------------------------------------------------------------------ config */

START_TEST (test_config_errors)
{
  const guint32 p = 4;
  NetDimSpec d = sf_dim (NET_DIM_RING, p, 1e9, 0);
  NetSpec spec = sf_spec (&d, 1, NET_ROUND_PS);
  sf_build_net (&spec, TRUE);
  GError *error = NULL;
  SysParams bad = sf.params;
  bad.splits = 0;
  ck_assert_ptr_null (sys_new (sf.sched, sf.net, &bad, &error));
  sf_assert_error (error, (const char *[]) { "splits", NULL });
  g_clear_error (&error);
  bad = sf.params;
  bad.active_chunks_per_dim = 0;
  ck_assert_ptr_null (sys_new (sf.sched, sf.net, &bad, &error));
  g_clear_error (&error);
  bad = sf.params;
  const char *names[] = { "ring", "direct" };
  const char *hd[] = { "halvingDoubling" };
  ck_assert (sys_params_set_impl (&bad, SYS_COLL_ALL_TO_ALL, hd, 1, NULL));
  ck_assert_ptr_null (sys_new (sf.sched, sf.net, &bad, &error));
  sf_assert_error (error, (const char *[]) { "all_to_all", "'halvingDoubling'", NULL });
  g_clear_error (&error);
  const char *nothing[] = { "spiral" };
  bad = sf.params;
  ck_assert (sys_params_set_impl (&bad, SYS_COLL_ALL_GATHER, nothing, 1, NULL));
  ck_assert_ptr_null (sys_new (sf.sched, sf.net, &bad, &error));
  sf_assert_error (error, (const char *[]) { "all_gather", "'spiral'", NULL });
  g_clear_error (&error);
  ck_assert (!sys_params_set_impl (&bad, SYS_COLL_ALL_TO_ALL, names, 0, &error));
  sf_assert_error (error, (const char *[]) { "all_to_all", NULL });
  g_clear_error (&error);
  /* Two names on a one-dimensional topology: the first is used. */
  bad = sf.params;
  ck_assert (sys_params_set_impl (&bad, SYS_COLL_ALL_REDUCE, names, 2, NULL));
  sf.sys = sys_new (sf.sched, sf.net, &bad, &error);
  ck_assert_ptr_nonnull (sf.sys);
  ck_assert_str_eq (sys_params (sf.sys)->impl[SYS_COLL_ALL_REDUCE][1], "direct");
}
END_TEST

/* --------------------------------------------------------------- main */

static TCase *
tcase (Suite *s, const char *name)
{
  return tu_tcase (s, name, setup, sf_teardown, 120);
}

int
main (void)
{
  Suite *s = suite_create ("coll");
  int n_policy = (int) G_N_ELEMENTS (policy_cases);
  tcase_add_loop_test (tcase (s, "policy_waiting"), test_policy_waiting, 0, n_policy);
  tcase_add_loop_test (tcase (s, "policy_chunks"), test_policy_chunks, 0, n_policy);
  tcase_add_loop_test (tcase (s, "policy_free_slot"), test_policy_free_slot_starts_at_once, 0, 2);
  tcase_add_test (tcase (s, "two_active_chunks"), test_two_active_chunks);
  tcase_add_loop_test (tcase (s, "group_subgrid"), test_group_subgrid, 0, 3);
  tcase_add_test (tcase (s, "group_flat"), test_group_flat);
  tcase_add_loop_test (tcase (s, "group_across_nodes"), test_group_across_nodes, 0, 3);
  tcase_add_test (tcase (s, "group_astra_local"), test_group_astra_local);
  tcase_add_loop_test (tcase (s, "group_dimension_queue"), test_group_dimension_queue, 0, 2);
  tcase_add_test (tcase (s, "group_single_member"), test_group_single_member);
  tcase_add_test (tcase (s, "group_errors"), test_group_errors);
  tcase_add_test (tcase (s, "group_mismatch"), test_group_mismatch);
  tcase_add_test (tcase (s, "group_sequence"), test_group_sequence);
  tcase_add_test (tcase (s, "group_sequence_no_records"), test_group_sequence_no_records);
  tcase_add_test (tcase (s, "group_sequence_ahead"), test_group_sequence_ahead);
  tcase_add_test (tcase (s, "plans_reused"), test_plans_reused);
  tcase_add_test (tcase (s, "plans_rows"), test_plans_rows);
  tcase_add_test (tcase (s, "empty_group"), test_empty_group);
  tcase_add_loop_test (tcase (s, "pending_collective"), test_pending_collective, 0, 3);
  tcase_add_test (tcase (s, "config_errors"), test_config_errors);
  return tu_run_suite (s);
}
