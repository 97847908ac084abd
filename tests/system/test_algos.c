/* test_algos.c: halving-doubling and direct against closed forms.
 *
 * The system layer runs over the shared fake link model (support/sysfix.h),
 * which delivers every message a fixed delay D after it leaves and counts
 * what it carries, or over the real analytical model.  Expected times are
 * closed forms written here from the algorithms' definitions (the headers
 * of system/algo_hd.c and system/algo_direct.c, which for ASTRA mode follow
 * ASTRA-sim's HalvingDoubling and AllToAll classes), with e the endpoint delay
 * and rc(m) the reduction of m bytes:
 *   halving-doubling, native, n = 2^q, lockstep: one step per message, each
 *     e + D + rc (rc on the halving steps only, of the received bytes);
 *   direct, native, W in flight, M = ceil ((n-1)/W) rounds: round r leaves
 *     at e + r (D + e), arrives at (r+1)(D + e), and the reductions run one
 *     after another;
 *   ASTRA mode: every message waits e, the phase ends e after the last
 *     receipt, and the reductions fall where ASTRA-sim's packets put them.
 * Non-power-of-two halving-doubling and the late joiners are worked out step
 * by step in the comments of their tests.  Every test ends with nothing left
 * in the queue or pending.
 */
#include <check.h>

#include "support/sysfix.h"
#include "system/algo.h"

#define GIB (G_GUINT64_CONSTANT (1) << 30)
#define MIB (G_GUINT64_CONSTANT (1) << 20)
#define NS(x) ((SimTime) (x) * 1000)

static const SysCollKind kinds[] = { SYS_COLL_ALL_REDUCE, SYS_COLL_REDUCE_SCATTER,
                                     SYS_COLL_ALL_GATHER, SYS_COLL_ALL_TO_ALL };

/* ------------------------------------------------------------ helpers */

/* `name` for the four kinds both algorithms know, but all-to-all, which gets
 * `a2a`; the others keep their default (ring). */
static void
use_algo (const char *name, const char *a2a)
{
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      const char *n = k == SYS_COLL_ALL_TO_ALL ? a2a : name;
      ck_assert (sys_params_set_impl (&sf.params, (SysCollKind) k, &n, 1, NULL));
    }
}

static guint
log2u (guint32 p)
{
  ck_assert_uint_eq (p & (p - 1), 0);
  return g_bit_storage (p) - 1;
}

static guint64
ceil_div (guint64 a, guint64 b)
{
  return (a + b - 1) / b;
}

/* Member 0 joins a collective of (bytes << 8 | kind) now. */
static void
join_0 (SimSched *s, gpointer data, guint64 arg)
{
  (void) s;
  (void) data;
  sf_join (0, (SysCollKind) (arg & 0xff), arg >> 8, SYS_GROUP_WORLD, 0);
}

/* Every member r < p joins at 0 but member 0, at `at`. */
static void
join_all_but_0_late (guint32 p, SysCollKind kind, guint64 bytes, SimTime at)
{
  for (guint32 r = 1; r < p; r++)
    sf_join (r, kind, bytes, SYS_GROUP_WORLD, 0);
  sim_sched_at (sf.sched, at, join_0, NULL, bytes << 8 | kind);
}

static void
assert_done (guint32 x, SimTime expect)
{
  sf_assert_done_at (0, &x, 1, expect);
}

/* Native tests: e = 7 ns, two memory passes at 4 ps per byte (rc(m) =
 * 8m ps).  ASTRA tests, as in the ASTRA-sim notes' examples: e = 10 ns,
 * local memory 1600 GB/s (decimal), 3 passes; links of 50 GiB/s, 500 ns a
 * hop. */
static const SimTime fe = NS (7), ae = NS (10);

static void
params (gboolean astra, guint S)
{
  sf.params.splits = S;
  sf.params.endpoint_delay = astra ? ae : fe;
  sf.params.reduction_passes = astra ? 3 : 2;
  sf.params.local_mem_bw_Bps = astra ? 1600e9 : 250e9;
  sf_compat (&sf.params, astra);
}

static SimTime
rc (guint64 m)
{
  return 2 * sf_ser_ps (m, 250000000000ull);
}

static void
astra_build (NetDimKind kind, guint32 p)
{
  NetDimSpec d = sf_dim (kind, p, 50.0 * GIB, NS (500));
  sf_build (&d, 1, NET_ROUND_NS_TRUNCATED, FALSE);
}

/* trunc (h a + m / B) ns, B = 50 x 2^30 / 1e9 bytes per ns, h the hops to
 * distance d: Ring min (d, p - d), FullyConnected 1, Switch 2. */
static SimTime
astra_msg (NetDimKind kind, guint32 p, guint32 d, guint64 m)
{
  guint64 h = kind == NET_DIM_RING ? MIN (d, p - d) : kind == NET_DIM_SWITCH ? 2 : 1;
  return NS ((guint64) ((double) h * 500.0 + (double) m / (50.0 * 1073741824.0 / 1e9)));
}

/* R(m) = 3 trunc (m / (L 1e9) x 1e9) ns, in ASTRA-sim's double order. */
static SimTime
astra_R (guint64 m, double L_Bps)
{
  return NS (3 * (guint64) ((double) m / L_Bps * 1e9));
}

/* ===================================================== halving-doubling */

/* ASTRA-sim's halving-doubling closed forms for one chunk of c bytes (a
 * power of two) on p = 2^q, n(m, d) = astra_msg:
 *   RS: e + sum_{i=1..q} [n(c/2^i, 2^{i-1}) + e] + sum_{i=2..q} R(c/2^i)
 *   AR: RS + sum_{i=q..1} [n(c/2^i, 2^{i-1}) + e]
 *   AG: e + sum_{i=1..q} [n(c 2^{i-1}, p/2^i) + e] */
static SimTime
hd_astra_T (SysCollKind kind, NetDimKind topo, guint32 p, guint64 c)
{
  guint q = log2u (p);
  SimTime T = ae;
  if (kind == SYS_COLL_ALL_GATHER)
    {
      for (guint i = 1; i <= q; i++)
        T += astra_msg (topo, p, p >> i, c << (i - 1)) + ae;
      return T;
    }
  for (guint i = 1; i <= q; i++)
    T += astra_msg (topo, p, 1u << (i - 1), c >> i) + ae;
  for (guint i = 2; i <= q; i++)
    T += astra_R (c >> i, 1600e9);
  if (kind == SYS_COLL_ALL_REDUCE)
    for (guint i = q; i >= 1; i--)
      T += astra_msg (topo, p, 1u << (i - 1), c >> i) + ae;
  return T;
}

/* The closed forms for p in {2, 4, 8, 16, 64}, every kind and topology, 1 MiB
 * in 4 chunks; _i = ((p index) x 3 + kind) x 3 + topology.  The notes'
 * worked example is all-reduce on p = 8: 15792 ns a chunk on Ring (63168 in
 * all), 11792 on FullyConnected (47168), 14792 on Switch (59168). */
START_TEST (test_hd_astra_closed_form)
{
  static const guint32 ps[] = { 2, 4, 8, 16, 64 };
  static const NetDimKind topos[] = { NET_DIM_RING, NET_DIM_FULLY_CONNECTED, NET_DIM_SWITCH };
  static const guint64 example_ns[] = { 15792, 11792, 14792 };
  const guint32 p = ps[_i / 9];
  const SysCollKind kind = kinds[(_i / 3) % 3];
  const NetDimKind topo = topos[_i % 3];
  const guint q = log2u (p);
  params (TRUE, 4);
  use_algo ("halvingDoubling", "ring");
  astra_build (topo, p);
  sf_join_world (p, kind, MIB, 0);
  sf_run_quiet ();
  const guint64 c = MIB / 4;
  const SimTime T = hd_astra_T (kind, topo, p, c);
  if (p == 8 && kind == SYS_COLL_ALL_REDUCE)
    {
      ck_assert_uint_eq (T, NS (example_ns[_i % 3]));
      ck_assert_uint_eq (4 * T, NS (4 * example_ns[_i % 3]));
    }
  sf_assert_all_done_at (0, p, 4 * T);
  guint64 halves = 0; /* c/2 + ... + c/p */
  for (guint i = 1; i <= q; i++)
    halves += c >> i;
  guint64 steps = kind == SYS_COLL_ALL_REDUCE ? 2 * q : q;
  guint64 bytes = kind == SYS_COLL_ALL_GATHER ? c * (p - 1)
                  : kind == SYS_COLL_ALL_REDUCE ? 2 * halves : halves;
  ck_assert_uint_eq (net_messages (sf.net), 4 * p * steps);
  ck_assert_uint_eq (net_bytes (sf.net), 4 * p * bytes);
}
END_TEST

/* ASTRA-sim's sizes when halving truncates: all-reduce of c = 1006 on 4
 * members sends 503, 251, then (the doubling restarting from 251 / 2 = 125)
 * 250 and 500.  The receipt of step 1 reduces R(251), the next message's
 * size, and nothing else does: T = e + 4 (D + e) + R(251). */
START_TEST (test_hd_astra_sizes)
{
  const guint32 p = 4;
  const SimTime D = NS (300);
  params (TRUE, 1);
  sf.params.local_mem_bw_Bps = 1e9;
  use_algo ("halvingDoubling", "ring");
  sf_build_rings (&p, &D, 1);
  sf_join_world (p, SYS_COLL_ALL_REDUCE, 1006, 0);
  sf_run_quiet ();
  ck_assert_uint_ne (astra_R (251, 1e9), 0);
  sf_assert_all_done_at (0, p, ae + 4 * (D + ae) + astra_R (251, 1e9));
  ck_assert_uint_eq (sf.fake.messages, p * 4);
  ck_assert_uint_eq (sf.fake.bytes, p * (503 + 251 + 250 + 500));
  ck_assert_uint_eq (sf.fake.min_bytes, 250);
  ck_assert_uint_eq (sf.fake.max_bytes, 503);
}
END_TEST

/* Native, real network (FullyConnected: one hop of latency a for every
 * pair), no endpoint delay, no reduction cost, one chunk of n bytes:
 * 2 log2(p) a + 2 (p-1)/p n/B, each message's time rounded up to whole ps:
 * T = 2 sum_{i=1..q} (a + ceil (n/2^i / B)). */
START_TEST (test_hd_native_alpha_beta)
{
  static const guint32 ps[] = { 2, 4, 8, 16, 64 };
  const guint32 p = ps[_i];
  const guint q = log2u (p);
  const SimTime a = NS (500);
  const guint64 B = 3000000000ull, n = MIB;
  sf.params.endpoint_delay = 0;
  sf.params.reduction_passes = 0;
  sf.params.splits = 1;
  use_algo ("halvingDoubling", "ring");
  NetDimSpec d = sf_dim (NET_DIM_FULLY_CONNECTED, p, (double) B, a);
  sf_build (&d, 1, NET_ROUND_PS, FALSE);
  sf_join_world (p, SYS_COLL_ALL_REDUCE, n, 0);
  sf_run_quiet ();
  SimTime T = 0;
  for (guint i = 1; i <= q; i++)
    T += 2 * (a + sf_ser_ps (n >> i, B));
  sf_assert_all_done_at (0, p, T);
  /* Against the unrounded formula: each of the 2q messages rounds up by
   * less than a ps. */
  double exact = 2.0 * q * (double) a + 2.0 * (p - 1) / p * (double) n / (double) B * 1e12;
  ck_assert ((double) T >= exact - 1.0 && (double) T <= exact + 2 * q);
  ck_assert_uint_eq (net_messages (sf.net), (guint64) p * 2 * q);
}
END_TEST

/* Native over the fake network, p = 2^q, 2 chunks of c bytes (not a
 * multiple of p: sizes round up), in lockstep, one after the other:
 *   AR: sum_{i=1..q} (e + D + rc(ceil (c/2^i))) + q (e + D)
 *   RS: the first sum;  AG: q (e + D)
 * _i = (p index) x 3 + kind. */
START_TEST (test_hd_native_pow2)
{
  static const guint32 ps[] = { 2, 4, 8, 16, 64 };
  const guint32 p = ps[_i / 3];
  const SysCollKind kind = kinds[_i % 3];
  const guint q = log2u (p);
  const SimTime D = NS (250);
  const guint64 c = (guint64) p * 1000 + 3;
  params (FALSE, 2);
  use_algo ("halvingDoubling", "ring");
  sf_build_rings (&p, &D, 1);
  sf_join_world (p, kind, 2 * c, 0);
  sf_run_quiet ();
  SimTime T = 0;
  guint64 halves = 0;
  for (guint i = 1; i <= q; i++)
    {
      guint64 m = ceil_div (c, 1u << i);
      halves += m;
      if (kind == SYS_COLL_ALL_GATHER)
        T += fe + D;
      else
        T += fe + D + rc (m) + (kind == SYS_COLL_ALL_REDUCE ? fe + D : 0);
    }
  sf_assert_all_done_at (0, p, 2 * T);
  guint64 steps = kind == SYS_COLL_ALL_REDUCE ? 2 * q : q;
  guint64 bytes = kind == SYS_COLL_ALL_GATHER ? c * (p - 1)
                  : kind == SYS_COLL_ALL_REDUCE ? 2 * halves : halves;
  ck_assert_uint_eq (sf.fake.messages, 2 * p * steps);
  ck_assert_uint_eq (sf.fake.bytes, 2 * p * bytes);
  /* Partners differ in one bit: each pair carries 2 messages per chunk
   * for all-reduce, 1 otherwise, and no other pair carries any. */
  if (p <= SF_MAX_EDGE)
    for (guint32 x = 0; x < p; x++)
      for (guint32 y = 0; y < p; y++)
        {
          guint64 expect = x != y && ((x ^ y) & ((x ^ y) - 1)) == 0 ? 2 * steps / q : 0;
          ck_assert_uint_eq (sf.fake.edge[x][y], expect);
        }
}
END_TEST

/* Native all-reduce, p = 8, member 0 joining at J, the others at 0.  Each
 * step is P_i(x) = max (P_{i-1}(x ^ 2^b) + e + D, P_{i-1}(x) + e) + rc_i
 * from P_0(x) = join time: a max-plus recurrence, so member x ends at
 * sum_i (e + rc_i) plus the longest path's delays, max over starts x' of
 * (P_0(x') + D (number of steps where the path crosses)).  Every bit has two
 * steps; a path from x' crosses once for each bit where x and x' differ and
 * may cross twice for the others, so from x' = x (P_0 = 0) it is 2q D and
 * from member 0: J + D (2q - popcount (x)). */
START_TEST (test_hd_native_late)
{
  static const guint64 joins[] = { 100000, 375, 625 };
  const guint32 p = 8, q = 3;
  const SimTime D = NS (250), J = NS (joins[_i]);
  const guint64 c = 8000;
  params (FALSE, 1);
  use_algo ("halvingDoubling", "ring");
  sf_build_rings (&p, &D, 1);
  join_all_but_0_late (p, SYS_COLL_ALL_REDUCE, c, J);
  sf_run_quiet ();
  SimTime base = 2 * q * fe;
  for (guint i = 1; i <= q; i++)
    base += rc (c >> i);
  guint unaffected = 0;
  for (guint32 x = 0; x < p; x++)
    {
      SimTime late = J + D * (2 * q - (guint) __builtin_popcount (x));
      assert_done (x, base + MAX (2 * q * D, late));
      unaffected += late < 2 * q * D;
    }
  /* J = 1.5 D spares the members with two or three bits set (3, 5, 6, 7),
   * J = 2.5 D only 7. */
  ck_assert_uint_eq (unaffected, _i == 1 ? 4 : _i == 2 ? 1 : 0);
}
END_TEST

/* Native, not a power of two: p = p' + r, extras p' + k fold into k.  Fake
 * network (D for every message), c = 70001 bytes.  Shares: w/p of the
 * vector is ceil (c w / p) bytes.  Derivations (L = e + D + rc(c): the
 * fold-in arrives at e + D and is reduced; the partners start the power-of-
 * two part L late; a step ends at max (partner's send + D, own send) + the
 * member's reduction of what it received, and the next send leaves e
 * later; S_1 = start + e):
 *
 * p = 3 (p' = 2, r = 1).  Step 1 (bit 0): member 0 receives its block
 * (weight 2: its own and 2's), a = ceil (2c/3); member 1 receives b =
 * ceil (c/3).  P_1(0) = max (e + D, L + e) + rc(a) = L + e + rc(a),
 * P_1(1) = max (L + e + D, e) + rc(b) = L + e + D + rc(b).
 *   AR: step 2 (bit 0, no reduction): P_2(0) = max (P_1(1) + e + D,
 *     P_1(0) + e) = L + 2e + 2D + rc(b) (as 2D + rc(b) >= rc(a)), P_2(1) =
 *     max (P_1(0) + e + D, P_1(1) + e) = L + 2e + D + rc(a).  Member 0 sends
 *     the result c to 2 at P_2(0) + e (its end), 2 has it D later.
 *   RS: member 0 ends when the extra's share ceil (c/3) leaves at P_1(0) +
 *     e, 2 has it D later, 1 ends at P_1(1).
 *   AG: no reductions, L = e + D; member 0 sends 2c (weight 2) and 1 sends
 *     c; P_1(0) = L + e, P_1(1) = L + e + D; 0 sends the extra the 2c it
 *     lacks at P_1(0) + e.
 * p = 7 (p' = 4, r = 3): see test_hd_native_p7.  _i = 3: ASTRA mode, which
 * runs the native algorithm here (ASTRA-sim would hang), with its rounding. */
static SimTime
astra_rc (guint64 m)
{
  return astra_R (m, 1600e9);
}

START_TEST (test_hd_native_p3)
{
  const SysCollKind kind = kinds[_i % 3];
  const gboolean astra = _i == 3;
  const guint32 p = 3;
  const SimTime D = NS (1000), e = astra ? ae : fe;
  const guint64 c = astra ? 60000 : 70001;
  /* ASTRA rounding splits down; 60000 divides by 3 anyway. */
  const guint64 a = ceil_div (2 * c, 3), b = ceil_div (c, 3);
  SimTime (*red) (guint64) = astra ? astra_rc : rc;
  params (astra, 1);
  use_algo ("halvingDoubling", "ring");
  sf_build_rings (&p, &D, 1);
  sf_join_world (p, kind, c, 0);
  sf_run_quiet ();
  SimTime t0, t1, t2, bytes;
  if (kind == SYS_COLL_ALL_REDUCE)
    {
      SimTime L = e + D + red (c);
      ck_assert (2 * D + red (b) >= red (a));
      SimTime P2_0 = L + 2 * e + 2 * D + red (b);
      t0 = P2_0 + e;
      t1 = L + 2 * e + D + red (a);
      t2 = P2_0 + e + D;
      bytes = c + 2 * (a + b) + c;
    }
  else if (kind == SYS_COLL_REDUCE_SCATTER)
    {
      SimTime L = e + D + red (c);
      t0 = L + e + red (a) + e;
      t1 = L + e + D + red (b);
      t2 = t0 + D;
      bytes = c + (a + b) + b;
    }
  else
    {
      SimTime L = e + D;
      t0 = L + e + e;
      t1 = L + e + D;
      t2 = t0 + D;
      bytes = c + 3 * c + 2 * c;
    }
  assert_done (0, t0);
  assert_done (1, t1);
  assert_done (2, t2);
  ck_assert_uint_eq (sf.fake.bytes, bytes);
  ck_assert_uint_eq (sf.fake.messages, kind == SYS_COLL_ALL_REDUCE ? 6 : 4);
  /* The extra only talks to its partner. */
  ck_assert_uint_eq (sf.fake.edge[2][0], 1);
  ck_assert_uint_eq (sf.fake.edge[0][2], 1);
  ck_assert_uint_eq (sf.fake.edge[2][1] + sf.fake.edge[1][2], 0);
}
END_TEST

/* All-reduce on p = 7 (p' = 4, r = 3: members 0, 1, 2 have extras 4, 5, 6;
 * 3 has none and starts at 0, the others L = e + D + rc(c) late).  Received
 * weights: step 1 (bit 0) even members get blocks {0, 2} = 2 + 2 shares
 * (a = ceil (4c/7)), odd {1, 3} = 2 + 1 (b = ceil (3c/7)); step 2 (bit 1)
 * members 0-2 their own two shares (u = ceil (2c/7)), 3 one (v = ceil (c/7)).
 * With A, B, U, V their reductions:
 *   P_1: 0 L+e+D+A, 1 L+e+D+B, 2 max(e+D, L+e)+A = L+e+A, 3 L+e+D+B
 *   P_2 (pairs 0-2, 1-3): 0 L+2e+D+A+U, 1 L+2e+2D+B+U, 2 L+2e+2D+A+U,
 *       3 L+2e+2D+B+V
 *   P_3 (bit 1, no reduction): 0 L+3e+3D+A+U, 1 L+3e+3D+B+V (D+V >= U),
 *       2 L+3e+2D+A+U, 3 L+3e+3D+B+U
 *   P_4 (bit 0): 0 L+4e+4D+B+V (D+B+V >= A+U), 1 L+4e+4D+A+U,
 *       2 L+4e+4D+B+U (2D+B >= A), 3 L+4e+3D+A+U
 * Members 0-2 end when their fold-out leaves (P_4 + e), extras D later, 3 at
 * P_4(3).  Bytes: fold-in and fold-out 3c each; step 1 and 4 carry 2a + 2b,
 * steps 2 and 3 3u + v. */
START_TEST (test_hd_native_p7)
{
  const guint32 p = 7;
  const SimTime D = NS (1000), e = fe;
  const guint64 c = 70001;
  const guint64 a = ceil_div (4 * c, 7), b = ceil_div (3 * c, 7), u = ceil_div (2 * c, 7),
                v = ceil_div (c, 7);
  const SimTime A = rc (a), B = rc (b), U = rc (u), V = rc (v), L = e + D + rc (c);
  params (FALSE, 1);
  use_algo ("halvingDoubling", "ring");
  sf_build_rings (&p, &D, 1);
  sf_join_world (p, SYS_COLL_ALL_REDUCE, c, 0);
  sf_run_quiet ();
  ck_assert (D + V >= U && D + B + V >= A + U && 2 * D + B >= A);
  const SimTime P4[4] = { L + 4 * e + 4 * D + B + V, L + 4 * e + 4 * D + A + U,
                          L + 4 * e + 4 * D + B + U, L + 4 * e + 3 * D + A + U };
  for (guint32 k = 0; k < 3; k++)
    {
      assert_done (k, P4[k] + e);
      assert_done (4 + k, P4[k] + e + D);
    }
  assert_done (3, P4[3]);
  ck_assert_uint_eq (sf.fake.messages, 3 + 4 * 4 + 3);
  ck_assert_uint_eq (sf.fake.bytes, 6 * c + 2 * (2 * a + 2 * b) + 2 * (3 * u + v));
}
END_TEST

/* ================================================================ direct */

/* ASTRA mode, one chunk c = 262144 (m = c/p, all-gather c), n_j the delay
 * of message j, R = R(m), M = ceil ((p-1)/W) rounds.  The ASTRA-sim notes'
 * examples (p = 8, full window):
 *   FC  AR 3e + 2n + R = 2310    Ring AR 3e + 2 n(4 hops) + R = 5310
 *   FC  RS 2e + n + R = 1190     FC AG 2e + n(c) = 5402    FC A2A 2e + n = 1130
 * With W < p-1 on FC (one delay n for all): packets come in blocks of W,
 * "zero latency" (e) and not (e + R for reduce-scatter) in turn; round m's
 * packets are block m-1, made by round m-1's receipts, and the last
 * receipts make block M:
 *   RS: T = e + M (n + e) + ceil (M/2) R;   AG, A2A: T = e + M (n + e).
 * All-reduce, traced packet by packet (p = 4, W = 2 and p = 8, W = 4):
 * block 0 leaves at e; block 1 (e + R) at 2e + n + R, except the packets
 * past the first p-1, held; the last first-half receipt at 2e + 2n + R makes
 * a block-2 packet (e): H = 3e + 2n + R, when the held ones leave too; the
 * second half's receipts then cost e each (blocks 2 and 3 of an even round
 * do not reduce): T = 5e + 4n + R.  Each case runs 4 chunks in a row. */
typedef struct
{
  SysCollKind kind;
  NetDimKind topo;
  guint32 p, w;      /* w = 0: plain "direct" */
  guint64 chunk_ns;  /* the notes' figure, 0 if none */
} DirectAstraCase;

static const DirectAstraCase direct_astra_cases[] = {
  { SYS_COLL_ALL_REDUCE, NET_DIM_FULLY_CONNECTED, 8, 0, 2310 },
  { SYS_COLL_ALL_REDUCE, NET_DIM_RING, 8, 0, 5310 },
  { SYS_COLL_REDUCE_SCATTER, NET_DIM_FULLY_CONNECTED, 8, 0, 1190 },
  { SYS_COLL_ALL_GATHER, NET_DIM_FULLY_CONNECTED, 8, 0, 5402 },
  { SYS_COLL_ALL_TO_ALL, NET_DIM_FULLY_CONNECTED, 8, 0, 1130 },
  { SYS_COLL_REDUCE_SCATTER, NET_DIM_FULLY_CONNECTED, 8, 1, 0 },
  { SYS_COLL_REDUCE_SCATTER, NET_DIM_FULLY_CONNECTED, 8, 2, 0 },
  { SYS_COLL_REDUCE_SCATTER, NET_DIM_FULLY_CONNECTED, 8, 3, 0 },
  { SYS_COLL_REDUCE_SCATTER, NET_DIM_FULLY_CONNECTED, 8, 5, 0 },
  { SYS_COLL_ALL_GATHER, NET_DIM_FULLY_CONNECTED, 8, 3, 0 },
  { SYS_COLL_ALL_TO_ALL, NET_DIM_FULLY_CONNECTED, 8, 2, 0 },
  { SYS_COLL_ALL_TO_ALL, NET_DIM_FULLY_CONNECTED, 16, 4, 0 },
  { SYS_COLL_ALL_REDUCE, NET_DIM_FULLY_CONNECTED, 4, 2, 0 },
  { SYS_COLL_ALL_REDUCE, NET_DIM_FULLY_CONNECTED, 8, 4, 0 },
};

START_TEST (test_direct_astra)
{
  const DirectAstraCase *dc = &direct_astra_cases[_i];
  const guint32 p = dc->p;
  const guint64 c = MIB / 4;
  g_autofree char *name = dc->w == 0 ? g_strdup ("direct") : g_strdup_printf ("direct%u", dc->w);
  params (TRUE, 4);
  use_algo (name, name);
  astra_build (dc->topo, p);
  sf_join_world (p, dc->kind, MIB, 0);
  sf_run_quiet ();
  const guint64 m = dc->kind == SYS_COLL_ALL_GATHER ? c : c / p;
  const SimTime n = astra_msg (dc->topo, p, p / 2, m), R = astra_R (m, 1600e9);
  const guint64 M = dc->w == 0 ? 1 : ceil_div (p - 1, dc->w);
  const gboolean rs = dc->kind == SYS_COLL_REDUCE_SCATTER;
  SimTime T;
  if (dc->kind == SYS_COLL_ALL_REDUCE)
    T = dc->w == 0 ? 3 * ae + 2 * n + R : 5 * ae + 4 * n + R;
  else
    T = ae + M * (n + ae) + (rs ? (M + 1) / 2 * R : 0);
  if (dc->chunk_ns != 0)
    ck_assert_uint_eq (T, NS (dc->chunk_ns));
  sf_assert_all_done_at (0, p, 4 * T);
  guint64 k = dc->kind == SYS_COLL_ALL_REDUCE ? 2 * (p - 1) : p - 1;
  ck_assert_uint_eq (net_messages (sf.net), 4 * p * k);
  ck_assert_uint_eq (net_bytes (sf.net), 4 * p * k * m);
}
END_TEST

/* Native lockstep over the fake network, p in {2, 3, 4, 7, 8, 16}, every
 * kind, the full window and a smaller one; c = 4096 p + 1 bytes, so
 * m = ceil (c/p) = 4097 (all-gather: c) and rc(m) = 8m ps; rounds of W:
 *   AG, A2A: M (D + e)
 *   RS:      T_rs = max_{r<M} [(r+1)(D + e) + (p-1 - r W) rc(m)]
 *   AR:      T_rs + M (D + e)
 * (with W = p-1 = 15 the reductions outlast the network; with W = 5 the
 * last round decides).  _i = ((p index) x 4 + kind) x 2 + window. */
START_TEST (test_direct_native)
{
  static const guint32 ps[] = { 2, 3, 4, 7, 8, 16, 64 };
  const guint32 p = ps[_i / 8];
  const SysCollKind kind = kinds[(_i / 2) % 4];
  const guint32 W = _i % 2 == 0 ? p - 1 : MAX (1, (p - 1) / 3);
  const SimTime D = NS (250);
  const guint64 c = 4096 * (guint64) p + 1;
  g_autofree char *name = _i % 2 == 0 ? g_strdup ("direct") : g_strdup_printf ("direct%u", W);
  params (FALSE, 1);
  use_algo (name, name);
  sf_build_rings (&p, &D, 1);
  sf_join_world (p, kind, c, 0);
  sf_run_quiet ();
  const guint64 m = kind == SYS_COLL_ALL_GATHER ? c : 4097;
  const guint64 M = ceil_div (p - 1, W);
  SimTime Trs = 0;
  for (guint64 r = 0; r < M; r++)
    Trs = MAX (Trs, (r + 1) * (D + fe) + (p - 1 - r * W) * rc (m));
  SimTime T = kind == SYS_COLL_REDUCE_SCATTER ? Trs
              : kind == SYS_COLL_ALL_REDUCE   ? Trs + M * (D + fe)
                                              : M * (D + fe);
  sf_assert_all_done_at (0, p, T);
  const guint64 per_pair = kind == SYS_COLL_ALL_REDUCE ? 2 : 1;
  ck_assert_uint_eq (sf.fake.messages, per_pair * p * (p - 1));
  ck_assert_uint_eq (sf.fake.bytes, per_pair * p * (p - 1) * m);
  ck_assert_uint_eq (sf.fake.min_bytes, m);
  ck_assert_uint_eq (sf.fake.max_bytes, m);
  /* The fake network counts edges between the first SF_MAX_EDGE ranks. */
  for (guint32 x = 0; x < MIN (p, SF_MAX_EDGE); x++)
    for (guint32 y = 0; y < MIN (p, SF_MAX_EDGE); y++)
      ck_assert_uint_eq (sf.fake.edge[x][y], x == y ? 0 : per_pair);
}
END_TEST

/* Native, p = 5, member 0 joining at J = 5 us, the others at 0, full
 * window.  Everyone sends at its start + e, so members x != 0 get p-2
 * messages at e + D and member 0's at J + e + D:
 *   A2A: x != 0 ends at J + e + D; member 0, which had everything at its
 *        start, when its own messages leave: J + e.
 *   RS:  x != 0 reduces p-2 from e + D, then the last at
 *        max (J + e + D, e + D + (p-2) rc) + rc; member 0 reduces all p-1
 *        from J and ends at max (J + (p-1) rc, J + e). */
START_TEST (test_direct_native_late)
{
  const SysCollKind kind = _i == 0 ? SYS_COLL_ALL_TO_ALL : SYS_COLL_REDUCE_SCATTER;
  const guint32 p = 5;
  const SimTime D = NS (250), J = NS (5000);
  const guint64 c = 5 * 4096;
  params (FALSE, 1);
  use_algo ("direct", "direct");
  sf_build_rings (&p, &D, 1);
  join_all_but_0_late (p, kind, c, J);
  sf_run_quiet ();
  const SimTime r = rc (4096);
  for (guint32 x = 1; x < p; x++)
    assert_done (x, kind == SYS_COLL_ALL_TO_ALL
                        ? J + fe + D
                        : MAX (J + fe + D, fe + D + (p - 2) * r) + r);
  assert_done (0, kind == SYS_COLL_ALL_TO_ALL ? J + fe : MAX (J + (p - 1) * r, J + fe));
}
END_TEST

/* ================================================================ both */

/* The table: names, windows, supported kinds.  halvingDoubling configured
 * for all-to-all, which it does not implement, fails sys_new naming both. */
START_TEST (test_table)
{
  guint32 param = 99;
  ck_assert_ptr_eq (sys_algo_lookup ("halvingDoubling", &param), &sys_algo_hd);
  ck_assert_uint_eq (param, 0);
  ck_assert_ptr_eq (sys_algo_lookup ("direct", &param), &sys_algo_direct);
  ck_assert_uint_eq (param, 0);
  ck_assert_ptr_eq (sys_algo_lookup ("direct8", &param), &sys_algo_direct);
  ck_assert_uint_eq (param, 8);
  ck_assert_ptr_null (sys_algo_lookup ("direct0", &param));
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    {
      ck_assert (sys_algo_supports (&sys_algo_direct, kinds[k]));
      ck_assert (sys_algo_supports (&sys_algo_hd, kinds[k]) == (kinds[k] != SYS_COLL_ALL_TO_ALL));
    }
  NetDimSpec d = sf_dim (NET_DIM_RING, 4, 1e9, 0);
  NetSpec spec = sf_spec (&d, 1, NET_ROUND_PS);
  sf_build_net (&spec, TRUE);
  use_algo ("ring", "halvingDoubling");
  GError *error = NULL;
  ck_assert_ptr_null (sys_new (sf.sched, sf.net, &sf.params, &error));
  sf_assert_error (error, (const char *[]) { "all_to_all", "'halvingDoubling'", NULL });
  g_clear_error (&error);
}
END_TEST

/* localBWAware all-reduce on 4 x 2 fake rings (delays D0, D1), halving-
 * doubling on dim 0 and direct on dim 1, one chunk of c = 32768:
 *   RS on dim 0 (p = 4): sum_{i=1,2} (e + D0 + rc(c/2^i))
 *   AR on dim 1 (p = 2) of c/4: 2 (D1 + e) + rc(c/8)
 *   AG on dim 0 (p = 4) of c/4: 2 (e + D0)
 * Every member runs each phase in lockstep, so the phases add up. */
START_TEST (test_two_dims)
{
  const SimTime D0 = NS (300), D1 = NS (1100);
  const guint64 c = 32768;
  params (FALSE, 1);
  const char *names[] = { "halvingDoubling", "direct" };
  ck_assert (sys_params_set_impl (&sf.params, SYS_COLL_ALL_REDUCE, names, 2, NULL));
  const guint32 sizes[] = { 4, 2 };
  const SimTime delays[] = { D0, D1 };
  sf_build_rings (sizes, delays, 2);
  sf_join_world (8, SYS_COLL_ALL_REDUCE, c, 0);
  sf_run_quiet ();
  SimTime T = (fe + D0 + rc (c / 2)) + (fe + D0 + rc (c / 4)) + 2 * (D1 + fe) + rc (c / 8)
              + 2 * (fe + D0);
  sf_assert_all_done_at (0, 8, T);
  /* Dim 0: 8 members x (2 RS steps of c/2, c/4 + 2 AG steps of c/4, c/2);
   * dim 1: 8 x 2 messages of c/8. */
  ck_assert_uint_eq (sf.fake.dim_messages[0], 8 * 4);
  ck_assert_uint_eq (sf.fake.dim_bytes[0], 8 * (c / 2 + c / 4 + c / 4 + c / 2));
  ck_assert_uint_eq (sf.fake.dim_messages[1], 8 * 2);
  ck_assert_uint_eq (sf.fake.dim_bytes[1], 8 * 2 * (c / 8));
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
  Suite *s = suite_create ("algos");
  tcase_add_loop_test (tcase (s, "hd_astra_closed_form"), test_hd_astra_closed_form, 0, 45);
  tcase_add_test (tcase (s, "hd_astra_sizes"), test_hd_astra_sizes);
  tcase_add_loop_test (tcase (s, "hd_native_alpha_beta"), test_hd_native_alpha_beta, 0, 5);
  tcase_add_loop_test (tcase (s, "hd_native_pow2"), test_hd_native_pow2, 0, 15);
  tcase_add_loop_test (tcase (s, "hd_native_late"), test_hd_native_late, 0, 3);
  tcase_add_loop_test (tcase (s, "hd_native_p3"), test_hd_native_p3, 0, 4);
  tcase_add_test (tcase (s, "hd_native_p7"), test_hd_native_p7);
  tcase_add_loop_test (tcase (s, "direct_astra"), test_direct_astra, 0,
                       (int) G_N_ELEMENTS (direct_astra_cases));
  tcase_add_loop_test (tcase (s, "direct_native"), test_direct_native, 0, 56);
  tcase_add_loop_test (tcase (s, "direct_native_late"), test_direct_native_late, 0, 2);
  tcase_add_test (tcase (s, "table"), test_table);
  tcase_add_test (tcase (s, "two_dims"), test_two_dims);
  return tu_run_suite (s);
}
