/* algo_hd.c: halving-doubling (Rabenseifner) on one dimension.
 *
 * Shape.  n = p' + r with p' = 2^q the largest power of two <= n.  Positions
 * x < p' run the power-of-two algorithm; a position p' + k (k < r, an
 * "extra") folds into its partner k.  Steps, as message tags:
 *   0        fold-in: extra p'+k sends its whole input c to k (reduced there
 *            for all-reduce and reduce-scatter);
 *   1..K     the power-of-two exchange with x XOR 2^b;
 *   K+1      fold-out: k sends the extra its result.
 * Reduce-scatter (K = q) halves the vector while doubling the distance: step
 * i exchanges at bit b = i-1 the blocks of the partner's half.  All-gather
 * (K = q) doubles the data while halving the distance: bit q-i at step i.
 * All-reduce (K = 2q) is the reduce-scatter followed by the all-gather, bits
 * 0, 1, ..., q-1, q-1, ..., 0.  Without extras (n = 2^q) step 0 and K+1 do
 * not exist.  All-to-all is not offered.
 *
 * Native mode (ctx->astra FALSE, or n not a power of two).  Sizes: a member
 * stands for 1 + [it has an extra] of the n original inputs, so a message
 * carrying the blocks of the members in a set S of power-of-two positions
 * weighs w = sum over S of that; it holds w/n of the vector: split (c w, n)
 * bytes for reduce-scatter and all-reduce (sys_phase_split: rounded up,
 * ASTRA mode down), c w for all-gather.  With n = 2^q every w is a power of
 * two and the sizes are c/2, c/4, ..., c/p (and back up), c, 2c, ..., pc/2
 * for all-gather.  Fold-out: the whole result c (all-reduce), the extra's
 * own share split (c, n) (reduce-scatter), the (n-1) c it lacks (all-gather).
 * Timing: a member's first send leaves at start + e; a message of step i is
 * consumed once it has arrived and the member has sent its own step i, at
 * t = max (arrival, send), plus the reduction of the received bytes when
 * the step reduces (the fold-in of all-reduce/reduce-scatter and every
 * halving step); the next message leaves at t + e.  The phase ends at the
 * last t, or for a partner when its fold-out leaves.  Closed forms, every
 * member starting at 0, fixed delay D per message (a message of m bytes on
 * a uniform network: a + m/B), rc(m) the reduction of m bytes:
 *   n = 2^q:  T = sum over steps i of (e + D_i + rc_i),
 *             so an all-reduce with e = rc = 0 takes 2 q a + 2 (p-1)/p c/B.
 *   else (all-reduce; D the same for every message): partners start the
 *   power-of-two part L = e + D + rc(c) late, so member x < p' ends at
 *     F(x) = max over paths of the path's cost,
 *   a path running back from x through the steps, at each one either
 *   staying (e + the member's reduction) or crossing to the partner (the
 *   same plus D), and starting at x' with L [x' < r].  Each bit has two
 *   steps, so with no reduction cost F(x) = K e + max over x' of
 *   (L [x' < r] + D (2q - popcount (x XOR x'))); partners end at F + e,
 *   extras at F + e + D.  (The tests work the paths out for n = 3 and 7.)
 *
 * ASTRA mode (ctx->astra TRUE, n = 2^q) reproduces ASTRA-sim's
 * HalvingDoubling class (astra-sim/system/collective/HalvingDoubling.cc,
 * through its PacketBundle and MemBus delays): the same steps
 * and partners; sizes as its packets take them: m starts at c/2 (all-gather:
 * c), and after each message m becomes (uint64) (m / f) in double, f = 2
 * (all-gather 0.5); for all-reduce, when the distance would reach n, f
 * becomes 0.5 and the doubling is applied at once, so the all-gather half
 * sends 2 floor (m_q / 2), 4 floor (m_q / 2), ...  Every message waits e
 * first; of the halving steps, the receipt of step i < q costs R(m_{i+1})
 * (the NEXT message's size, ASTRA-sim's quirk), and no other receipt reduces;
 * the phase ends e after the last receipt.  In lockstep, with n(m, d) the
 * network's delay of m bytes to distance d:
 *   RS: T = e + sum_{i=1..q} [n(c/2^i, 2^{i-1}) + e] + sum_{i=2..q} R(c/2^i)
 *   AR: T = RS + sum_{i=q..1} [n(c/2^i, 2^{i-1}) + e]
 *   AG: T = e + sum_{i=1..q} [n(c 2^{i-1}, n/2^i) + e]
 * ASTRA-sim has no non-power-of-two rule (its partners do not pair up and
 * the run hangs); orrery runs the native algorithm there, with ASTRA
 * rounding of sizes.
 */
#include "system/algo.h"

typedef struct
{
  guint32 p2;     /* largest power of two <= n */
  guint32 extra;  /* n - p2 */
  guint q;        /* log2 p2 */
  guint32 K;      /* power-of-two steps */
  gboolean astra; /* ASTRA-sim's rules: ctx->astra and n a power of two */
} HdShape;

static gboolean
hd_supports (SysCollKind op)
{
  return op == SYS_COLL_ALL_REDUCE || op == SYS_COLL_REDUCE_SCATTER
         || op == SYS_COLL_ALL_GATHER;
}

static HdShape
hd_shape (const SysPhaseCtx *ctx)
{
  HdShape s;
  s.q = g_bit_storage (ctx->n) - 1;
  s.p2 = 1u << s.q;
  s.extra = ctx->n - s.p2;
  s.K = ctx->op == SYS_COLL_ALL_REDUCE ? 2 * s.q : s.q;
  s.astra = ctx->astra && s.extra == 0;
  g_assert (s.K + 1 < 64); /* steps fit SysRun.bits */
  return s;
}

/* Does power-of-two step i (1..K) belong to the halving (reducing) part? */
static gboolean
hd_halving (const SysPhaseCtx *ctx, const HdShape *s, guint32 i)
{
  return ctx->op == SYS_COLL_REDUCE_SCATTER || (ctx->op == SYS_COLL_ALL_REDUCE && i <= s->q);
}

/* The bit flipped at power-of-two step i: the partner is x ^ (1 << bit). */
static guint
hd_bit (const SysPhaseCtx *ctx, const HdShape *s, guint32 i)
{
  if (hd_halving (ctx, s, i))
    return i - 1;
  return ctx->op == SYS_COLL_ALL_REDUCE ? 2 * s->q - i : s->q - i;
}

/* Inputs stood for by the power-of-two positions z < p2 with z = y mod M
 * (M a power of two, y < M): one each, two with an extra. */
static guint64
hd_weight (const HdShape *s, guint32 y, guint32 M)
{
  guint64 w = s->p2 / M;
  if (y < s->extra)
    w += (s->extra - 1 - y) / M + 1;
  return w;
}

/* w/n of the c-byte vector, split as configured, without overflowing c w. */
static guint64
hd_share (const SysPhaseCtx *ctx, guint64 w)
{
  guint64 c = ctx->in_bytes, n = ctx->n;
  return (c / n) * w + sys_phase_split (ctx, (c % n) * w, ctx->n);
}

/* Native mode: the bytes position x sends at `step`. */
static guint64
hd_native_bytes (const SysPhaseCtx *ctx, const HdShape *s, guint32 x, guint32 step)
{
  guint64 c = ctx->in_bytes;
  gboolean ag = ctx->op == SYS_COLL_ALL_GATHER;
  if (step == 0)
    return c;
  if (step == s->K + 1)
    switch (ctx->op)
      {
      case SYS_COLL_REDUCE_SCATTER:
        return hd_share (ctx, 1);
      case SYS_COLL_ALL_GATHER:
        return c * (ctx->n - 1);
      default:
        return c;
      }
  guint b = hd_bit (ctx, s, step);
  guint32 M = 2u << b;
  /* Halving: the blocks of the partner's half of x's current range;
   * doubling: every block x holds, those congruent to x modulo M. */
  guint32 y = hd_halving (ctx, s, step) ? (x ^ (1u << b)) & (M - 1) : x & (M - 1);
  guint64 w = hd_weight (s, y, M);
  return ag ? c * w : hd_share (ctx, w);
}

/* ASTRA mode: the size of message `step` (1..K), every member alike, by
 * ASTRA-sim's own operations (uint64 size, int distance, double factor). */
static guint64
hd_astra_bytes (const SysPhaseCtx *ctx, guint32 step)
{
  gboolean ag = ctx->op == SYS_COLL_ALL_GATHER;
  guint64 m = ag ? ctx->in_bytes : ctx->in_bytes / 2;
  gint64 offset = ag ? ctx->n / 2 : 1;
  double f = ag ? 0.5 : 2.0;
  for (guint32 k = 1; k < step; k++)
    {
      offset = (gint64) ((double) offset * f);
      m = (guint64) ((double) m / f);
      if (offset == (gint64) ctx->n && ctx->op == SYS_COLL_ALL_REDUCE)
        {
          f = 0.5;
          offset = (gint64) ((double) offset * f);
          m = (guint64) ((double) m / f);
        }
    }
  return m;
}

static guint64
hd_bytes (const SysPhaseCtx *ctx, const HdShape *s, guint32 x, guint32 step)
{
  return s->astra ? hd_astra_bytes (ctx, step) : hd_native_bytes (ctx, s, x, step);
}

/* Where position pos sends its message of `step`. */
static guint32
hd_peer (const SysPhaseCtx *ctx, const HdShape *s, guint32 step)
{
  if (step == 0)
    return ctx->pos - s->p2;
  if (step == s->K + 1)
    return ctx->pos + s->p2;
  return ctx->pos ^ (1u << hd_bit (ctx, s, step));
}

/* The reduction this member does on consuming `step`. */
static SimTime
hd_reduce_cost (const SysPhaseCtx *ctx, const HdShape *s, guint32 step)
{
  if (ctx->op == SYS_COLL_ALL_GATHER || step == s->K + 1)
    return 0;
  if (s->astra)
    return step < s->q ? sys_phase_reduce_cost (ctx, hd_astra_bytes (ctx, step + 1)) : 0;
  if (step == 0)
    return sys_phase_reduce_cost (ctx, ctx->in_bytes);
  if (!hd_halving (ctx, s, step))
    return 0;
  return sys_phase_reduce_cost (ctx, hd_native_bytes (ctx, s, hd_peer (ctx, s, step), step));
}

/* The step this member consumes next, or G_MAXUINT32 when it is done. */
static guint32
hd_next (const SysPhaseCtx *ctx, const HdShape *s, const SysRun *run)
{
  guint32 step;
  if (ctx->pos >= s->p2)
    step = run->processed == 0 ? s->K + 1 : G_MAXUINT32;
  else
    step = ctx->pos < s->extra ? run->processed : run->processed + 1;
  return step <= s->K + 1 ? step : G_MAXUINT32;
}

static void
hd_send (const SysPhaseCtx *ctx, const HdShape *s, guint32 step, SimTime at)
{
  sys_phase_send (ctx, hd_peer (ctx, s, step), step, hd_bytes (ctx, s, ctx->pos, step), at);
}

/* Consume every message that is next in order and has arrived. */
static void
hd_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  HdShape s = hd_shape (ctx);
  SimTime e = sys_phase_endpoint_delay (ctx);
  SimTime now = sys_phase_now (ctx);
  guint32 step;
  while ((step = hd_next (ctx, &s, run)) != G_MAXUINT32
         && (run->bits & (G_GUINT64_CONSTANT (1) << step)) != 0)
    {
      SimTime t = MAX (now, run->busy_until) + hd_reduce_cost (ctx, &s, step);
      run->processed++;
      if (step == s.K + 1)
        sys_phase_finish (ctx, t); /* an extra has the result */
      else if (step < s.K)
        {
          run->busy_until = t + e;
          hd_send (ctx, &s, step + 1, run->busy_until);
        }
      else if (ctx->pos < s.extra)
        {
          run->busy_until = t + e;
          hd_send (ctx, &s, s.K + 1, run->busy_until);
          sys_phase_finish (ctx, run->busy_until);
        }
      else
        sys_phase_finish (ctx, s.astra ? t + e : t);
    }
}

static void
hd_start (const SysPhaseCtx *ctx, SysRun *run)
{
  HdShape s = hd_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  run->busy_until = now;
  if (ctx->pos >= s.extra)
    {
      /* Extras fold in; partners wait for their extra first. */
      run->busy_until = now + sys_phase_endpoint_delay (ctx);
      hd_send (ctx, &s, ctx->pos >= s.p2 ? 0 : 1, run->busy_until);
    }
  hd_drain (ctx, run);
}

static void
hd_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  g_assert (step < 64);
  guint64 bit = G_GUINT64_CONSTANT (1) << step;
  g_assert ((run->bits & bit) == 0); /* one message per step */
  run->bits |= bit;
  run->arrived++;
  if (run->started)
    hd_drain (ctx, run);
}

const SysAlgoClass sys_algo_hd = {
  .name = "halvingDoubling",
  .supports = hd_supports,
  .start = hd_start,
  .on_message = hd_on_message,
};
