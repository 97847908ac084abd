/* test_rooted.c: broadcast, reduce, gather, scatter and the barrier on the
 * direct and halving-doubling algorithms, against closed forms.
 *
 * The system layer runs over the shared fake link model (support/sysfix.h),
 * which delivers every message a fixed delay D after it leaves and counts
 * what it carries.  Expected finish times are written here from the
 * algorithms' definitions (the headers of system/algo_direct.c and
 * system/algo_hd.c), every member starting at 0, with e the endpoint delay
 * and rc the reduction of one member's c bytes; d is a member's place
 * relative to the root, (rank - root) mod n, R = ceil (log2 n):
 *   direct, window W, M = ceil ((n-1)/W) rounds; the root's peer j = d - 1:
 *     broadcast, scatter: peer j (2 floor (j/W) + 1)(D + e) + e, the root
 *       e + 2 (M - 1)(D + e) (each round waits for the acknowledgements of
 *       the one before: D + e there, D + e back);
 *     reduce: peers e, root D + 2e + (n-1) rc; gather: peers e, root D + 2e;
 *     barrier: M (D + e) + e.
 *   halving-doubling (binomial trees, dissemination):
 *     broadcast: t = floor (log2 d), arrival (t + 1) e + popcount (d) D, done
 *       e per send later (at least one e); the root R e;
 *     reduce: worked up the tree from the leaves (done at e): a member's
 *       children's messages arrive at their end + D, are reduced one after
 *       another, and it is done e after the last; for n = 2^R this is
 *       (h + 1) e + h (D + rc) with h children;
 *     scatter: down the halving tree, each hop D plus e for every send the
 *       parent makes before and including this one (algo_hd.c's cap());
 *     gather: e + floor (log2 (subtree size)) (D + e);
 *     barrier: R (D + e) + e.
 * The late-joiner tests work their cases out step by step.  Every test ends
 * with nothing left in the queue or pending.
 */
#include <check.h>

#include "support/sysfix.h"
#include "system/algo.h"

#define NS(x) ((SimTime) (x) * 1000)

/* e = 7 ns, D = 300 ns; one memory pass at 1 GB/s prices c = 400 bytes at
 * 400 ns, exactly, in both modes. */
static const SimTime e = NS (7), D = NS (300), rc = NS (400);
static const guint64 c = 400;

static const char *const algos[] = { "direct", "direct2", "halvingDoubling" };
static const SysCollKind rooted_kinds[] = { SYS_COLL_BROADCAST, SYS_COLL_REDUCE,
                                            SYS_COLL_GATHER, SYS_COLL_SCATTER,
                                            SYS_COLL_BARRIER };
static const guint32 ns[] = { 2, 3, 4, 7, 8, 16 };

/* ------------------------------------------------------------ helpers */

static guint64
ceil_div (guint64 a, guint64 b)
{
  return (a + b - 1) / b;
}

/* ceil (log2 x) and floor (log2 x), x >= 1. */
static guint
clog2 (guint64 x)
{
  guint k = 0;
  while ((G_GUINT64_CONSTANT (1) << k) < x)
    k++;
  return k;
}

static guint
flog2 (guint64 x)
{
  guint k = 0;
  while ((G_GUINT64_CONSTANT (2) << k) <= x)
    k++;
  return k;
}

static guint
lowbit_exp (guint32 d)
{
  guint k = 0;
  while ((d & (1u << k)) == 0)
    k++;
  return k;
}

static void
setup_params (const char *algo, SysCollKind kind, gboolean astra)
{
  sf.params.endpoint_delay = e;
  sf.params.reduction_passes = 1;
  sf.params.local_mem_bw_Bps = 1e9;
  sf_compat (&sf.params, astra);
  ck_assert (sys_params_set_impl (&sf.params, kind, &algo, 1, NULL));
}

static void
join_rooted (guint32 rank, SysCollKind kind, guint32 root)
{
  SysCollRequest req = sf_coll_req (kind, c, SYS_GROUP_WORLD, 0, rank);
  req.root = root;
  GError *error = NULL;
  ck_assert_msg (sys_coll_join (sf.sys, rank, &req, &error), "join %u: %s", rank,
                 error ? error->message : "");
}

/* Member `arg` joins now (a late joiner); data packs the kind and root. */
static void
join_late (SimSched *s, gpointer data, guint64 arg)
{
  (void) s;
  guint64 kr = GPOINTER_TO_SIZE (data);
  join_rooted ((guint32) arg, (SysCollKind) (kr >> 32), (guint32) kr);
}

static void
assert_done (guint32 rank, SimTime expect)
{
  SimTime t = sf_done_at (0, rank);
  ck_assert_msg (t == expect, "rank %u done at %" G_GUINT64_FORMAT " ps, expected %"
                 G_GUINT64_FORMAT, rank, t, expect);
}

/* ------------------------------------------------- direct: closed forms */

static SimTime
direct_T (SysCollKind kind, guint64 n, guint64 W, guint64 d)
{
  guint64 M = ceil_div (n - 1, W);
  switch (kind)
    {
    case SYS_COLL_BROADCAST:
    case SYS_COLL_SCATTER:
      return d == 0 ? e + 2 * (M - 1) * (D + e) : (2 * ((d - 1) / W) + 1) * (D + e) + e;
    case SYS_COLL_REDUCE:
      return d == 0 ? D + 2 * e + (n - 1) * rc : e;
    case SYS_COLL_GATHER:
      return d == 0 ? D + 2 * e : e;
    default:
      return M * (D + e) + e;
    }
}

/* Messages, bytes and who sent to whom: the root sends peer j its data and,
 * in broadcast and scatter, peer j acknowledges when j + W < n-1. */
static void
direct_check_traffic (SysCollKind kind, guint32 n, guint32 W, guint32 root)
{
  gboolean out = kind == SYS_COLL_BROADCAST || kind == SYS_COLL_SCATTER;
  guint64 msgs = kind == SYS_COLL_BARRIER ? (guint64) n * (n - 1)
                 : out                    ? (n - 1) + (n - 1 - W)
                                          : n - 1;
  ck_assert_uint_eq (sf.fake.messages, msgs);
  ck_assert_uint_eq (sf.fake.bytes, kind == SYS_COLL_BARRIER ? 0 : (n - 1) * c);
  for (guint32 x = 0; x < n; x++)
    for (guint32 y = 0; y < n; y++)
      {
        guint64 want;
        guint32 dx = (x + n - root) % n, dy = (y + n - root) % n;
        if (x == y)
          want = 0;
        else if (kind == SYS_COLL_BARRIER)
          want = 1;
        else if (out)
          want = dx == 0 || (dy == 0 && dx - 1 + W < n - 1);
        else
          want = dy == 0;
        ck_assert_msg (sf.fake.edge[x][y] == want, "%u -> %u: %" G_GUINT64_FORMAT, x, y,
                       sf.fake.edge[x][y]);
      }
}

/* ---------------------------------------- halving-doubling: closed forms */

/* Reduce on the doubling tree: when member d sends to its parent (the root:
 * is done).  Children d + 2^i, i above d's top bit, arrive at their end + D
 * and are reduced in arrival order from 0. */
static SimTime
hd_reduce_T (guint32 n, guint32 d)
{
  SimTime arr[32];
  guint k = 0;
  for (guint i = d == 0 ? 0 : flog2 (d) + 1; d + (G_GUINT64_CONSTANT (1) << i) < n; i++)
    arr[k++] = hd_reduce_T (n, d + (1u << i)) + D;
  for (guint a = 1; a < k; a++) /* insertion sort */
    for (guint b = a; b > 0 && arr[b - 1] > arr[b]; b--)
      {
        SimTime tmp = arr[b];
        arr[b] = arr[b - 1];
        arr[b - 1] = tmp;
      }
  SimTime end = 0;
  for (guint a = 0; a < k; a++)
    end = MAX (end, arr[a]) + rc;
  return end + e;
}

/* Sends member x makes in scatter (the halving tree): bits i < its lowest
 * set bit (the root: all i < R) with x + 2^i < n. */
static guint
hd_scatter_cap (guint32 n, guint32 x)
{
  guint L = x == 0 ? clog2 (n) : lowbit_exp (x);
  return MIN (L, clog2 (n - x));
}

static SimTime
hd_T (SysCollKind kind, guint32 n, guint32 d)
{
  guint R = clog2 (n);
  switch (kind)
    {
    case SYS_COLL_BROADCAST:
      {
        if (d == 0)
          return R * e;
        guint t = flog2 (d), sends = 0;
        for (guint i = t + 1; d + (G_GUINT64_CONSTANT (1) << i) < n; i++)
          sends++;
        return (t + 1) * e + __builtin_popcount (d) * D + MAX (1u, sends) * e;
      }
    case SYS_COLL_REDUCE:
      {
        SimTime T = hd_reduce_T (n, d);
        if ((n & (n - 1)) == 0)
          {
            /* n = 2^R: h children, h = R for the root. */
            guint h = d == 0 ? R : R - 1 - flog2 (d);
            ck_assert_uint_eq (T, (h + 1) * e + h * (D + rc));
          }
        return T;
      }
    case SYS_COLL_SCATTER:
      {
        SimTime A = 0;
        guint32 x = 0;
        for (guint b = 32; b-- > 0;)
          if (d & (1u << b))
            {
              A += (hd_scatter_cap (n, x) - b) * e + D;
              x += 1u << b;
            }
        if ((n & (n - 1)) == 0 && d != 0)
          ck_assert_uint_eq (A, (R - lowbit_exp (d)) * e + __builtin_popcount (d) * D);
        return A + MAX (1u, hd_scatter_cap (n, d)) * e;
      }
    case SYS_COLL_GATHER:
      {
        guint64 size = d == 0 ? n : MIN (1u << lowbit_exp (d), n - d);
        return e + flog2 (size) * (D + e);
      }
    default:
      return R * (D + e) + e;
    }
}

/* Messages, bytes and edges: each tree edge carries one message (parent to
 * child outward, child to parent inward); the barrier's member x sends to
 * x + 2^i for i < R. */
static void
hd_check_traffic (SysCollKind kind, guint32 n, guint32 root)
{
  guint R = clog2 (n);
  gboolean tree = kind != SYS_COLL_BARRIER;
  gboolean halving = kind == SYS_COLL_SCATTER || kind == SYS_COLL_GATHER;
  gboolean out = kind == SYS_COLL_BROADCAST || kind == SYS_COLL_SCATTER;
  ck_assert_uint_eq (sf.fake.messages, tree ? n - 1 : (guint64) n * R);
  guint64 bytes = 0;
  if (halving)
    for (guint32 y = 0; y < n; y++)
      bytes += __builtin_popcount (y) * c; /* piece y travels one hop a bit */
  else if (tree)
    bytes = (n - 1) * c;
  ck_assert_uint_eq (sf.fake.bytes, bytes);
  guint64 want[16][16] = { { 0 } };
  for (guint32 d = 1; d < n && tree; d++)
    {
      guint32 parent = halving ? d - (1u << lowbit_exp (d)) : d - (1u << flog2 (d));
      guint32 a = (root + parent) % n, b = (root + d) % n;
      if (out)
        want[a][b] = 1;
      else
        want[b][a] = 1;
    }
  for (guint32 x = 0; x < n && !tree; x++)
    for (guint i = 0; i < R; i++)
      want[x][(x + (1u << i)) % n] = 1;
  for (guint32 x = 0; x < n; x++)
    for (guint32 y = 0; y < n; y++)
      ck_assert_msg (sf.fake.edge[x][y] == want[x][y], "%u -> %u: %" G_GUINT64_FORMAT, x, y,
                     sf.fake.edge[x][y]);
}

/* ------------------------------------------------------------ lockstep */

/* Every (algorithm, kind) pair, n in ns, root 0 or n/2, native and ASTRA
 * mode (which these kinds ignore: the same times).
 * _i = (((algo x 5 + kind) x 6 + n index) x 2 + root index) x 2 + astra. */
START_TEST (test_lockstep)
{
  const gboolean astra = _i % 2;
  const guint32 n = ns[(_i / 4) % 6];
  const guint32 root = (_i / 2) % 2 == 0 ? 0 : n / 2;
  const SysCollKind kind = rooted_kinds[(_i / 24) % 5];
  const guint a = _i / 120;
  const guint32 W = a == 1 ? MIN (2, n - 1) : n - 1;
  setup_params (algos[a], kind, astra);
  sf_build_rings (&n, &D, 1);
  for (guint32 r = 0; r < n; r++)
    join_rooted (r, kind, root);
  sf_run_quiet ();
  for (guint32 r = 0; r < n; r++)
    {
      guint32 d = (r + n - root) % n;
      assert_done (r, a == 2 ? hd_T (kind, n, d) : direct_T (kind, n, W, d));
    }
  if (a == 2)
    hd_check_traffic (kind, n, root);
  else
    direct_check_traffic (kind, n, W, root);
}
END_TEST

/* ------------------------------------------------------------ late joiners */

typedef struct
{
  const char *algo;
  SysCollKind kind;
  guint32 n, root, late;
} LateCase;

static const LateCase late_cases[] = {
  { "direct1", SYS_COLL_BROADCAST, 4, 0, 1 },
  { "direct", SYS_COLL_REDUCE, 5, 0, 0 },
  { "halvingDoubling", SYS_COLL_BARRIER, 4, 0, 0 },
  { "halvingDoubling", SYS_COLL_BROADCAST, 8, 0, 1 },
  { "halvingDoubling", SYS_COLL_REDUCE, 8, 0, 0 },
};

/* One member (`late`) joins at L = 20 us, after everything the others can
 * do without it has happened; the others at 0.
 *   0: direct1 broadcast, n = 4, peer 1 late: message 0 waits for it, so
 *      1 is done at L + e and acknowledges then; the root sends message 1
 *      at L + 2e + D, peer 2 gets it at L + 2e + 2D, is done e later and
 *      acknowledges; message 2 leaves at L + 4e + 3D (the root is done) and
 *      peer 3 is done at L + 5e + 4D.
 *   1: direct reduce, n = 5, root late: peers e; the root reduces all four
 *      from L: L + 4 rc + e.
 *   2: dissemination, n = 4, member 0 late: x sends round 0 to x + 1 and
 *      round 1 to x + 2.  0: both its messages are in at L, so L + 3e.
 *      1: round 0 from 0 at L + e + D, round 1 sent at L + 2e + D (3's
 *      round 1 is long in): L + 3e + D.  2: round 1 from 0 at L + 2e + D:
 *      L + 3e + D.  3: round 1 from 1 at L + 2e + 2D: L + 3e + 2D.
 *   3: HD broadcast, n = 8, member 1 late: it has the data at L and sends
 *      to 3 at L + e and 5 at L + 2e (done); 3 gets it at L + e + D,
 *      sends to 7 at L + 2e + D (done); 5 at L + 2e + D, done e later;
 *      7 at L + 2e + 2D, done e later.  0, 2, 4, 6 as in lockstep.
 *   4: HD reduce, n = 8, root late: its children 1, 2, 4 are in before L:
 *      L + 3 rc + e; the others as in lockstep. */
START_TEST (test_late)
{
  const LateCase *lc = &late_cases[_i];
  const SimTime L = NS (20000);
  setup_params (lc->algo, lc->kind, FALSE);
  sf_build_rings (&lc->n, &D, 1);
  for (guint32 r = 0; r < lc->n; r++)
    if (r != lc->late)
      join_rooted (r, lc->kind, lc->root);
  sim_sched_at (sf.sched, L, join_late,
                GSIZE_TO_POINTER ((guint64) lc->kind << 32 | lc->root), lc->late);
  sf_run_quiet ();
  SimTime expect[8];
  for (guint32 r = 0; r < lc->n; r++)
    expect[r] = hd_T (lc->kind, lc->n, r);
  switch (_i)
    {
    case 0:
      expect[0] = L + 4 * e + 3 * D;
      expect[1] = L + e;
      expect[2] = L + 3 * e + 2 * D;
      expect[3] = L + 5 * e + 4 * D;
      break;
    case 1:
      expect[0] = L + 4 * rc + e;
      for (guint32 r = 1; r < 5; r++)
        expect[r] = e;
      break;
    case 2:
      expect[0] = L + 3 * e;
      expect[1] = expect[2] = L + 3 * e + D;
      expect[3] = L + 3 * e + 2 * D;
      break;
    case 3:
      expect[1] = L + 2 * e;
      expect[3] = L + 2 * e + D;
      expect[5] = L + 3 * e + D;
      expect[7] = L + 3 * e + 2 * D;
      break;
    default:
      expect[0] = L + 3 * rc + e;
      break;
    }
  for (guint32 r = 0; r < lc->n; r++)
    assert_done (r, expect[r]);
}
END_TEST

/* Both algorithms accept every kind they now implement; halving-doubling
 * still has no all-to-all. */
START_TEST (test_supports)
{
  for (guint k = 0; k < G_N_ELEMENTS (rooted_kinds); k++)
    {
      ck_assert (sys_algo_supports (sys_algo_lookup ("direct", NULL), rooted_kinds[k]));
      ck_assert (sys_algo_supports (sys_algo_lookup ("halvingDoubling", NULL), rooted_kinds[k]));
    }
  ck_assert (!sys_algo_supports (sys_algo_lookup ("halvingDoubling", NULL), SYS_COLL_ALL_TO_ALL));
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
  Suite *s = suite_create ("rooted");
  tcase_add_loop_test (tcase (s, "lockstep"), test_lockstep, 0,
                       (int) (G_N_ELEMENTS (algos) * G_N_ELEMENTS (rooted_kinds)
                              * G_N_ELEMENTS (ns) * 4));
  tcase_add_loop_test (tcase (s, "late"), test_late, 0, (int) G_N_ELEMENTS (late_cases));
  tcase_add_test (tcase (s, "supports"), test_supports);
  return tu_run_suite (s);
}
