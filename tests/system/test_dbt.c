/* test_dbt.c: the double binary tree all-reduce against closed forms and a
 * reference written here from its rules.
 *
 * The trees are built here on their own, not with the algorithm's code:
 *   native tree 0: position 0 is the root, with one child P (the largest
 *     power of two below n); the others hang as in the in-order complete
 *     binary tree over 1..2P-1 with the positions >= n cut out, so each one's
 *     parent is its nearest ancestor below n there (found by binary search
 *     from P), or 0;  native tree 1: tree 0 mirrored (n even) or shifted by
 *     one (n odd);
 *   ASTRA-sim's RootMax / RootMin (p = 2^q): a root at p-1 / 0 whose only
 *     child heads an in-order complete tree over the other ids, built by
 *     halving intervals.
 * Expected times come from the closed forms in system/algo_dbt.c's header,
 * with D the fake network's fixed delay, e the endpoint delay and r the
 * reduction cost of one tree's data: native, a member at depths d0, d1 of
 * trees of height H finishes at e + H (D + r + e) + max (d0, d1)(D + e);
 * ASTRA, a member at depth d finishes at e + (q + d)(D + e + R), a leaf at
 * 2e + 2qD + (2q - 1)(e + R).  Where members start at different times (late
 * joiners, several chunks) the expected times come from ref_tree, the rules
 * followed event by event on the test's own trees.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "sim/error.h"
#include "support/sysfix.h"
#include "system/algo.h"

#define NS(x) ((SimTime) (x) * 1000)
#define MAXN 64
#define NONE G_MAXUINT32

/* ---------------------------------------------------------------- trees */

typedef struct
{
  guint32 n;
  guint32 parent[MAXN]; /* NONE at the root */
  guint depth[MAXN];
  guint children[MAXN];
  guint height;
} Tree;

static void
tree_finish (Tree *t)
{
  t->height = 0;
  memset (t->children, 0, sizeof t->children);
  for (guint32 x = 0; x < t->n; x++)
    {
      guint d = 0;
      for (guint32 y = x; t->parent[y] != NONE; y = t->parent[y])
        {
          d++;
          ck_assert_uint_le (d, t->n); /* no cycle */
        }
      t->depth[x] = d;
      t->height = MAX (t->height, d);
      if (t->parent[x] != NONE)
        t->children[t->parent[x]]++;
    }
  for (guint32 x = 0; x < t->n; x++)
    ck_assert_uint_le (t->children[x], 2);
}

/* Native tree 0's parent of x != 0: see the top of the file. */
static guint32
native_parent0 (guint32 n, guint32 x)
{
  guint32 P = 1;
  while (2 * P < n)
    P *= 2;
  guint32 at = P, step = P / 2, found = 0;
  while (at != x)
    {
      if (at < n)
        found = at;
      at = x < at ? at - step : at + step;
      step /= 2;
    }
  return found;
}

static void
native_trees (guint32 n, Tree t[2])
{
  t[0].n = t[1].n = n;
  t[0].parent[0] = NONE;
  for (guint32 x = 1; x < n; x++)
    t[0].parent[x] = native_parent0 (n, x);
  for (guint32 x = 0; x < n; x++)
    {
      /* Position x of tree 0 is position map (x) of tree 1. */
      guint32 mx = n % 2 == 0 ? n - 1 - x : (x + 1) % n;
      guint32 p = t[0].parent[x];
      t[1].parent[mx] = p == NONE ? NONE : n % 2 == 0 ? n - 1 - p : (p + 1) % n;
    }
  tree_finish (&t[0]);
  tree_finish (&t[1]);
}

/* An in-order complete tree over [lo, hi] (2^k - 1 ids) under `up`. */
static void
inorder (Tree *t, guint32 lo, guint32 hi, guint32 up)
{
  guint32 mid = lo + (hi - lo) / 2;
  t->parent[mid] = up;
  if (lo < mid)
    inorder (t, lo, mid - 1, mid);
  if (mid < hi)
    inorder (t, mid + 1, hi, mid);
}

static void
astra_tree (guint32 p, gboolean root_max, Tree *t)
{
  t->n = p;
  if (root_max)
    {
      t->parent[p - 1] = NONE;
      inorder (t, 0, p - 2, p - 1);
    }
  else
    {
      t->parent[0] = NONE;
      inorder (t, 1, p - 1, 0);
    }
  tree_finish (t);
}

static guint
ceil_log2 (guint32 n)
{
  guint h = 0;
  while ((G_GUINT64_CONSTANT (1) << h) < n)
    h++;
  return h;
}

/* --------------------------------------------------------- the reference */

typedef struct
{
  SimTime D, e, r;
  gboolean astra; /* inner nodes pay r on the way down too */
} Cost;

/* One tree by the rules of algo_dbt.c, members starting at s[]: a leaf sends
 * up at s + e; an inner node at max (s, last child in) + r + e (the root
 * turns round then); the result leaves each inner node e (+ r in ASTRA mode)
 * after it arrives and a leaf is done e after.  fin[x]: when x is done. */
static void
ref_tree (const Tree *t, const SimTime *s, const Cost *c, SimTime *fin)
{
  SimTime up[MAXN], last_in[MAXN];
  for (guint32 x = 0; x < t->n; x++)
    last_in[x] = 0;
  for (guint d = t->height + 1; d-- > 0;)
    for (guint32 x = 0; x < t->n; x++)
      if (t->depth[x] == d)
        {
          up[x] = t->children[x] == 0 ? s[x] + c->e : MAX (s[x], last_in[x]) + c->r + c->e;
          if (t->parent[x] != NONE)
            last_in[t->parent[x]] = MAX (last_in[t->parent[x]], up[x] + c->D);
        }
  for (guint d = 0; d <= t->height; d++)
    for (guint32 x = 0; x < t->n; x++)
      if (t->depth[x] == d)
        {
          if (t->parent[x] == NONE)
            fin[x] = up[x];
          else
            fin[x] = fin[t->parent[x]] + c->D + c->e
                     + (c->astra && t->children[x] > 0 ? c->r : 0);
        }
}

/* ---------------------------------------------------------------- setup */

static void
use_dbt (gboolean astra)
{
  const char *name = "doubleBinaryTree";
  ck_assert (sys_params_set_impl (&sf.params, SYS_COLL_ALL_REDUCE, &name, 1, NULL));
  sf_compat (&sf.params, astra);
  sf.params.active_chunks_per_dim = 1;
}

static void
assert_member_done (guint32 x, SimTime expect)
{
  SimTime t = sf_done_at (0, x);
  ck_assert_msg (t == expect, "member %u done at %" G_GUINT64_FORMAT " ps, expected %"
                 G_GUINT64_FORMAT, x, t, expect);
}

/* Every tree edge carries `per_edge` messages each way. */
static void
assert_edges (const Tree *trees, guint n_trees, const guint *per_edge)
{
  guint32 n = trees[0].n;
  if (n > SF_MAX_EDGE)
    return;
  for (guint32 a = 0; a < n; a++)
    for (guint32 b = 0; b < n; b++)
      {
        guint64 expect = 0;
        for (guint i = 0; i < n_trees; i++)
          expect += per_edge[i] * ((trees[i].parent[a] == b) + (trees[i].parent[b] == a));
        ck_assert_msg (sf.fake.edge[a][b] == expect, "edge %u -> %u: %" G_GUINT64_FORMAT
                       " messages, expected %" G_GUINT64_FORMAT, a, b, sf.fake.edge[a][b],
                       expect);
      }
}

/* ---------------------------------------------------------- native mode */

static const guint32 sizes[] = { 2, 3, 4, 7, 8, 16, 64 };

START_TEST (test_native_lockstep)
{
  const guint32 n = sizes[_i];
  const SimTime D = NS (300), e = NS (7);
  const guint64 c = 4096; /* halves of 2048 */
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 2;
  sf.params.local_mem_bw_Bps = 250e9; /* 4 ps per byte */
  use_dbt (FALSE);
  sf_build_rings (&n, &D, 1);
  sf_join_world (n, SYS_COLL_ALL_REDUCE, c, 0);
  sf_run_quiet ();

  Tree t[2];
  native_trees (n, t);
  const guint H = ceil_log2 (n);
  ck_assert_uint_eq (t[0].height, H);
  ck_assert_uint_eq (t[1].height, H);
  const SimTime r = 2 * sf_ser_ps (c / 2, 250000000000ull);
  ck_assert_uint_eq (r, 8 * 2048);
  const Cost cost = { D, e, r, FALSE };
  SimTime fin[2][MAXN], s[MAXN] = { 0 }, end = 0;
  ref_tree (&t[0], s, &cost, fin[0]);
  ref_tree (&t[1], s, &cost, fin[1]);
  for (guint32 x = 0; x < n; x++)
    {
      /* No member is a leaf in both trees; exactly one root each. */
      ck_assert (t[0].children[x] > 0 || t[1].children[x] > 0);
      SimTime T = e + H * (D + r + e) + MAX (t[0].depth[x], t[1].depth[x]) * (D + e);
      ck_assert_uint_eq (MAX (fin[0][x], fin[1][x]), T); /* the reference agrees */
      assert_member_done (x, T);
      end = MAX (end, T);
    }
  ck_assert_uint_eq (sim_sched_now (sf.sched), end);

  /* Each tree: n-1 messages up and n-1 down, of half the chunk. */
  ck_assert_uint_eq (sf.fake.messages, 2 * 2 * (n - 1));
  ck_assert_uint_eq (sf.fake.bytes, 2 * 2 * (n - 1) * (c / 2));
  ck_assert_uint_eq (sf.fake.min_bytes, c / 2);
  ck_assert_uint_eq (sf.fake.max_bytes, c / 2);
  assert_edges (t, 2, (const guint[]) { 1, 1 });
  SysCollStats st;
  sys_coll_stats (sf.sys, SYS_COLL_ALL_REDUCE, &st);
  ck_assert_uint_eq (st.count, 1);
  ck_assert_uint_eq (st.busy, end);
}
END_TEST

/* The trees of the header's examples: n = 8 is ASTRA-sim's pair, MIN then
 * MAX; n = 7 shifts tree 0 (0 -> 4 -> {2, 6}, 2 -> {1, 3}, 6 -> {5}). */
START_TEST (test_native_shapes)
{
  Tree t[2], amax, amin;
  native_trees (8, t);
  astra_tree (8, TRUE, &amax);
  astra_tree (8, FALSE, &amin);
  static const guint32 max8[] = { 1, 3, 1, 7, 5, 3, 5, NONE };
  static const guint32 min8[] = { NONE, 2, 4, 2, 0, 6, 4, 6 };
  for (guint32 x = 0; x < 8; x++)
    {
      ck_assert_uint_eq (amax.parent[x], max8[x]);
      ck_assert_uint_eq (amin.parent[x], min8[x]);
      ck_assert_uint_eq (t[0].parent[x], min8[x]);
      ck_assert_uint_eq (t[1].parent[x], max8[x]);
    }
  native_trees (7, t);
  static const guint32 t0[] = { NONE, 2, 4, 2, 0, 6, 4 };
  static const guint32 t1[] = { 5, NONE, 3, 5, 3, 1, 0 };
  for (guint32 x = 0; x < 7; x++)
    {
      ck_assert_uint_eq (t[0].parent[x], t0[x]);
      ck_assert_uint_eq (t[1].parent[x], t1[x]);
    }
}
END_TEST

/* Several chunks of odd size (halves differ by a byte), one active chunk:
 * each member starts chunk k+1 when it finishes chunk k, so the chunks
 * after the first start at different times on different members. */
START_TEST (test_native_chunks)
{
  static const guint32 ns[] = { 3, 8, 13 };
  const guint32 n = ns[_i];
  const SimTime D = NS (200), e = NS (5);
  const guint S = 3;
  const guint64 c = 1001; /* halves of 501 and 500 */
  sf.params.splits = S;
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 1;
  sf.params.local_mem_bw_Bps = 1e12; /* 1 ps per byte */
  use_dbt (FALSE);
  sf_build_rings (&n, &D, 1);
  sf_join_world (n, SYS_COLL_ALL_REDUCE, S * c, 0);
  sf_run_quiet ();

  Tree t[2];
  native_trees (n, t);
  SimTime s[MAXN] = { 0 }, fin[2][MAXN];
  for (guint k = 0; k < S; k++)
    {
      ref_tree (&t[0], s, &(Cost) { D, e, 501, FALSE }, fin[0]);
      ref_tree (&t[1], s, &(Cost) { D, e, 500, FALSE }, fin[1]);
      for (guint32 x = 0; x < n; x++)
        s[x] = MAX (fin[0][x], fin[1][x]);
    }
  for (guint32 x = 0; x < n; x++)
    assert_member_done (x, s[x]);
  ck_assert_uint_eq (sf.fake.messages, S * 2 * 2 * (n - 1));
  ck_assert_uint_eq (sf.fake.bytes, S * 2 * (n - 1) * c);
  ck_assert_uint_eq (sf.fake.min_bytes, 500);
  ck_assert_uint_eq (sf.fake.max_bytes, 501);
  assert_edges (t, 2, (const guint[]) { S, S });
}
END_TEST

/* One member joins late, at L: its children's halves wait for it (start
 * consumes what arrived), and everything above and after it is late. */
typedef struct
{
  guint32 n, late;
  SimTime L;
} LateCase;

static const LateCase late_cases[] = {
  { 8, 0, NS (5000) },  /* both roots' neighbourhood: 0 is tree 0's root */
  { 8, 3, NS (150) },   /* a leaf of tree 0, a little late */
  { 8, 4, NS (700) },   /* inner in both */
  { 5, 2, NS (400) },
  { 6, 5, NS (100000) }, /* far later than the whole collective */
};

static void
join_later (SimSched *sched, gpointer data, guint64 arg)
{
  (void) sched;
  (void) data;
  sf_join ((guint32) arg, SYS_COLL_ALL_REDUCE, 2000, SYS_GROUP_WORLD, 0);
}

START_TEST (test_native_late_joiner)
{
  const LateCase *lc = &late_cases[_i];
  const SimTime D = NS (250), e = NS (3);
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 1;
  sf.params.local_mem_bw_Bps = 1e12;
  use_dbt (FALSE);
  sf_build_rings (&lc->n, &D, 1);
  for (guint32 x = 0; x < lc->n; x++)
    if (x != lc->late)
      sf_join (x, SYS_COLL_ALL_REDUCE, 2000, SYS_GROUP_WORLD, 0);
  sim_sched_at (sf.sched, lc->L, join_later, NULL, lc->late);
  sf_run_quiet ();

  Tree t[2];
  native_trees (lc->n, t);
  SimTime s[MAXN] = { 0 }, fin[2][MAXN];
  s[lc->late] = lc->L;
  const Cost cost = { D, e, 1000, FALSE };
  ref_tree (&t[0], s, &cost, fin[0]);
  ref_tree (&t[1], s, &cost, fin[1]);
  for (guint32 x = 0; x < lc->n; x++)
    assert_member_done (x, MAX (fin[0][x], fin[1][x]));
  ck_assert_uint_eq (sf.fake.messages, 4 * (lc->n - 1));
}
END_TEST

/* ------------------------------------------------------------ ASTRA mode */

/* ASTRA-sim's memory pass: trunc (bytes / (L GB/s) x 1e9) ns, in double
 * precision (../shared/reference/ASTRA-SIM.md). */
static SimTime
astra_reduce (guint64 bytes, double L_Bps, guint passes)
{
  return NS (passes * (guint64) ((double) bytes / L_Bps * 1e9));
}

/* Section 2.5's example: FC, p = 8, one chunk of 262144 bytes over
 * 50 GiB/s links with 500 ns latency, e = 10 ns, L = 1600 GB/s, 3 passes.
 * The chunk uses RootMax: leaves 0, 2, 4, 6 at 34807 ns, the root 7 at
 * 17653 ns, inner nodes at depth d at e + (q + d)(n + e + R). */
START_TEST (test_astra_fc8)
{
  const guint32 p = 8, q = 3;
  const guint64 c = 262144;
  sf.params.endpoint_delay = NS (10);
  sf.params.local_mem_bw_Bps = 1600e9;
  sf.params.reduction_passes = 3;
  sf.params.splits = 1;
  use_dbt (TRUE);
  NetDimSpec d = sf_dim (NET_DIM_FULLY_CONNECTED, p, 50.0 * (1u << 30), NS (500));
  sf_build (&d, 1, NET_ROUND_NS_TRUNCATED, FALSE);
  sf_join_world (p, SYS_COLL_ALL_REDUCE, c, 0);
  sf_run_quiet ();

  /* One hop: trunc (500 + c / (50 x 2^30 / 1e9)) = 5382 ns; R = 3 x 163. */
  const SimTime n_ = NS ((guint64) (500.0 + (double) c / (50.0 * 1073741824.0 / 1e9)));
  const SimTime e = NS (10), R = astra_reduce (c, 1600e9, 3);
  ck_assert_uint_eq (n_, NS (5382));
  ck_assert_uint_eq (R, NS (489));
  const SimTime leaf = 2 * e + 2 * q * n_ + (2 * q - 1) * (e + R);
  const SimTime root = e + q * n_ + q * (e + R);
  ck_assert_uint_eq (leaf, NS (34807));
  ck_assert_uint_eq (root, NS (17653));
  Tree amax;
  astra_tree (p, TRUE, &amax);
  for (guint32 x = 0; x < p; x++)
    {
      guint dx = amax.depth[x];
      SimTime T = dx == q ? leaf : e + (q + dx) * (n_ + e + R);
      assert_member_done (x, T);
    }
  sf_assert_done_at (0, (const guint32[]) { 0, 2, 4, 6 }, 4, NS (34807));
  sf_assert_done_at (0, (const guint32[]) { 7 }, 1, NS (17653));
  ck_assert_uint_eq (net_messages (sf.net), 2 * (p - 1));
  ck_assert_uint_eq (net_bytes (sf.net), 2 * (p - 1) * c);
}
END_TEST

/* Fake network, p = 2^q: one chunk in lockstep (the closed form) or four
 * (RootMax, RootMin, RootMax, RootMin, staggered: the reference). */
START_TEST (test_astra_chunks)
{
  static const guint32 ps[] = { 2, 4, 8, 16 };
  const guint32 p = ps[_i / 2];
  const guint S = _i % 2 == 0 ? 1 : 4;
  const guint q = ceil_log2 (p);
  const SimTime D = NS (400), e = NS (10);
  const guint64 c = 3000;
  sf.params.endpoint_delay = e;
  sf.params.local_mem_bw_Bps = 1600e9;
  sf.params.reduction_passes = 3;
  sf.params.splits = S;
  use_dbt (TRUE);
  sf_build_rings (&p, &D, 1);
  sf_join_world (p, SYS_COLL_ALL_REDUCE, S * c, 0);
  sf_run_quiet ();

  Tree t[2]; /* RootMax, RootMin */
  astra_tree (p, TRUE, &t[0]);
  astra_tree (p, FALSE, &t[1]);
  const SimTime R = astra_reduce (c, 1600e9, 3);
  ck_assert_uint_eq (R, NS (3 * 1));
  const Cost cost = { D, e, R, TRUE };
  SimTime s[MAXN] = { 0 }, fin[MAXN];
  for (guint k = 0; k < S; k++)
    {
      ref_tree (&t[k % 2], s, &cost, fin);
      memcpy (s, fin, sizeof fin);
    }
  for (guint32 x = 0; x < p; x++)
    {
      if (S == 1)
        {
          guint dx = t[0].depth[x];
          SimTime T = dx == q ? 2 * e + 2 * q * D + (2 * q - 1) * (e + R)
                              : e + (q + dx) * (D + e + R);
          ck_assert_uint_eq (s[x], T);
        }
      assert_member_done (x, s[x]);
    }
  ck_assert_uint_eq (sf.fake.messages, S * 2 * (p - 1));
  ck_assert_uint_eq (sf.fake.min_bytes, c);
  ck_assert_uint_eq (sf.fake.max_bytes, c);
  assert_edges (t, 2, (const guint[]) { (S + 1) / 2, S / 2 });
}
END_TEST

/* ASTRA mode on a size that is not a power of two runs the native
 * algorithm: two trees, half the chunk each, no reduction on the way down. */
START_TEST (test_astra_not_pow2)
{
  const guint32 n = 6;
  const SimTime D = NS (100), e = NS (10);
  const guint64 c = 4000;
  sf.params.endpoint_delay = e;
  sf.params.local_mem_bw_Bps = 1600e9;
  sf.params.reduction_passes = 3;
  use_dbt (TRUE);
  sf_build_rings (&n, &D, 1);
  sf_join_world (n, SYS_COLL_ALL_REDUCE, c, 0);
  sf_run_quiet ();
  Tree t[2];
  native_trees (n, t);
  const SimTime r = astra_reduce (c / 2, 1600e9, 3);
  const guint H = ceil_log2 (n);
  for (guint32 x = 0; x < n; x++)
    assert_member_done (x, e + H * (D + r + e) + MAX (t[0].depth[x], t[1].depth[x]) * (D + e));
  ck_assert_uint_eq (sf.fake.messages, 4 * (n - 1));
  ck_assert_uint_eq (sf.fake.max_bytes, c / 2);
  assert_edges (t, 2, (const guint[]) { 1, 1 });
}
END_TEST

/* ------------------------------------------------------------ the table */

START_TEST (test_table)
{
  guint32 param = 7;
  const SysAlgoClass *a = sys_algo_lookup ("doubleBinaryTree", &param);
  ck_assert_ptr_eq (a, &sys_algo_dbt);
  ck_assert_uint_eq (param, 0);
  ck_assert (sys_algo_supports (a, SYS_COLL_ALL_REDUCE));
  ck_assert (!sys_algo_supports (a, SYS_COLL_REDUCE_SCATTER));
  ck_assert (!sys_algo_supports (a, SYS_COLL_ALL_GATHER));
  ck_assert (!sys_algo_supports (a, SYS_COLL_ALL_TO_ALL));

  /* Configured for a kind it does not implement: sys_new says so. */
  NetDimSpec d = sf_dim (NET_DIM_RING, 4, 1e9, 0);
  NetSpec spec = sf_spec (&d, 1, NET_ROUND_PS);
  sf_build_net (&spec, TRUE);
  const char *name = "doubleBinaryTree";
  ck_assert (sys_params_set_impl (&sf.params, SYS_COLL_REDUCE_SCATTER, &name, 1, NULL));
  GError *error = NULL;
  ck_assert_ptr_null (sys_new (sf.sched, sf.net, &sf.params, &error));
  sf_assert_error (error, (const char *[]) { "reduce_scatter", "'doubleBinaryTree'", NULL });
  g_clear_error (&error);
}
END_TEST

/* --------------------------------------------------------------- main */

static TCase *
tcase (Suite *s, const char *name)
{
  return tu_tcase (s, name, sf_setup, sf_teardown, 120);
}

int
main (void)
{
  Suite *s = suite_create ("dbt");
  tcase_add_loop_test (tcase (s, "native_lockstep"), test_native_lockstep, 0,
                       (int) G_N_ELEMENTS (sizes));
  tcase_add_test (tcase (s, "native_shapes"), test_native_shapes);
  tcase_add_loop_test (tcase (s, "native_chunks"), test_native_chunks, 0, 3);
  tcase_add_loop_test (tcase (s, "native_late_joiner"), test_native_late_joiner, 0,
                       (int) G_N_ELEMENTS (late_cases));
  tcase_add_test (tcase (s, "astra_fc8"), test_astra_fc8);
  tcase_add_loop_test (tcase (s, "astra_chunks"), test_astra_chunks, 0, 8);
  tcase_add_test (tcase (s, "astra_not_pow2"), test_astra_not_pow2);
  tcase_add_test (tcase (s, "table"), test_table);
  return tu_run_suite (s);
}
