/* algo_hd.c: halving-doubling (Rabenseifner) on one dimension; binomial
 * trees and dissemination for the rooted kinds and the barrier.
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
 * Native row (sys_algo_hd, or n not a power of two).  Sizes: a member
 * stands for 1 + [it has an extra] of the n original inputs, so a message
 * carrying the blocks of the members in a set S of power-of-two positions
 * weighs w = sum over S of that; it holds w/n of the vector: split (c w, n)
 * bytes for reduce-scatter and all-reduce (sys_phase_split: rounded up,
 * SYS_SPLIT_DOWN down), c w for all-gather.  With n = 2^q every w is a power of
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
 * Reference row (sys_algo_hd_reference, n = 2^q) reproduces ASTRA-sim's
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
 * the run hangs); orrery runs the native algorithm there, with the
 * policy's rounding of sizes.
 *
 * Rooted kinds and the barrier: binomial trees and dissemination, for any
 * n, the same in both modes (ASTRA-sim has none of them).  d = (pos - root)
 * mod n is a member's place relative to the root, R = ceil (log2 n), c =
 * ctx->in_bytes (scatter, gather: one member's piece).  As everywhere here a
 * message leaves e after what lets it go; a member sends its messages one
 * after another, e each.
 *   broadcast: recursive doubling.  In round i the members d < 2^i send c to
 *     d + 2^i when that is < n: member d, t = floor (log2 d) (the root: -1),
 *     receives from d - 2^t and sends to d + 2^i for i = t+1, t+2, ... .
 *   reduce: the mirror, the same tree: a member reduces each child's c
 *     (rc = rc(c), one after another as they arrive, from its start), then
 *     sends c to its parent e after the last reduction.
 *   scatter: recursive halving.  Member d with lowest set bit 2^L (the root:
 *     L = R) holds the pieces of its subtree [d, d + 2^L) (cut at n) and
 *     sends child d + 2^i, for i = L-1 down to 0 (those < n), the child's
 *     subtree: min (2^i, n - d - 2^i) c bytes; the root's first message goes
 *     2^(R-1) away.
 *   gather: the mirror: once every child's message has arrived, a member
 *     sends its subtree's min (2^L, n - d) c bytes to d - 2^L.
 *   barrier: dissemination.  In round i < R each member sends 0 bytes to
 *     pos + 2^i and waits for the message from pos - 2^i (mod n); round
 *     i + 1 leaves e after both round i's send and receipt.
 * A member is done when its last message has left, and no earlier than e
 * after it consumed (reduced) its last receipt (the root of a reduce or a
 * gather, a leaf of a broadcast or scatter, every barrier member then).
 * Closed forms, every member starting at 0, delay D per message:
 *   broadcast: d receives at A(d) = (t + 1) e + popcount (d) D and ends at
 *     A(d) + max (1, s) e, s its sends (the root: R e).  n-1 messages,
 *     (n-1) c bytes.
 *   reduce: worked up from the leaves (done at e): a member's children's
 *     messages arrive at their ends + D and are reduced one after another
 *     in arrival order; it is done e after the last.  For n = 2^R, a member
 *     with h children ends at (h+1) e + h (D + rc) (the root: h = R).
 *     n-1 messages, (n-1) c bytes.
 *   scatter: with cap(x) = min (L(x), ceil (log2 (n - x))) sends of member
 *     x, the send to x + 2^i is x's (cap(x) - i)-th, so along the path
 *     0 = x_0, x_1, ..., x_k = d adding bits b_1 > ... > b_k,
 *     A(d) = k D + e sum_m (cap(x_{m-1}) - b_m), and d ends at
 *     A(d) + max (1, cap(d)) e; n = 2^R: A(d) = (R - L(d)) e + popcount (d) D.
 *     n-1 messages, c sum_{y<n} popcount (y) bytes (each piece goes
 *     popcount of its relative place hops).
 *   gather: member d ends at e + floor (log2 min (2^L, n - d)) (D + e) (its
 *     subtree's height); the root at e + floor (log2 n) (D + e).  Messages
 *     and bytes as scatter.
 *   barrier: every member R (D + e) + e; n R messages of 0 bytes.
 */
#include "system/algo.h"

typedef struct
{
  guint32 p2;     /* largest power of two <= n */
  guint32 extra;  /* n - p2 */
  guint q;        /* log2 p2 */
  guint32 K;      /* power-of-two steps */
  gboolean ref;    /* ASTRA-sim's rules: the reference row and n a power of two */
} HdShape;

static HdShape
hd_shape (const SysPhaseCtx *ctx)
{
  HdShape s;
  s.q = g_bit_storage (ctx->n) - 1;
  s.p2 = 1u << s.q;
  s.extra = ctx->n - s.p2;
  s.K = ctx->op == SYS_COLL_ALL_REDUCE ? 2 * s.q : s.q;
  s.ref = ctx->algo->timing == SYS_TIMING_REFERENCE && s.extra == 0;
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

/* The reference row: the size of message `step` (1..K), every member
 * alike, by ASTRA-sim's own operations (uint64 size, int distance, double
 * factor). */
static guint64
hd_ref_bytes (const SysPhaseCtx *ctx, guint32 step)
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
  return s->ref ? hd_ref_bytes (ctx, step) : hd_native_bytes (ctx, s, x, step);
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
  if (s->ref)
    return step < s->q ? sys_phase_reduce_cost (ctx, hd_ref_bytes (ctx, step + 1)) : 0;
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
      SimTime t = sim_time_add (MAX (now, run->busy_until), hd_reduce_cost (ctx, &s, step));
      run->processed++;
      if (step == s.K + 1)
        sys_phase_finish (ctx, t); /* an extra has the result */
      else if (step < s.K)
        {
          run->busy_until = sim_time_add (t, e);
          hd_send (ctx, &s, step + 1, run->busy_until);
        }
      else if (ctx->pos < s.extra)
        {
          run->busy_until = sim_time_add (t, e);
          hd_send (ctx, &s, s.K + 1, run->busy_until);
          sys_phase_finish (ctx, run->busy_until);
        }
      else
        sys_phase_finish (ctx, s.ref ? sim_time_add (t, e) : t);
    }
}

/* ---- rooted kinds: binomial trees --------------------------------------------
 * SysRun: arrived = messages in, processed = those consumed, busy_until =
 * the end of the last reduction (the latest consumption when nothing
 * reduces).  Every tree message carries tag 0. */

#define HD_TREE_MAX 32 /* children of one member: at most R <= 32 */

/* ceil (log2 x), x >= 1. */
static guint32
hd_clog2 (guint64 x)
{
  return x <= 1 ? 0 : (guint32) g_bit_storage (x - 1);
}

static guint32
tree_rel (const SysPhaseCtx *ctx, guint32 pos)
{
  return (pos + ctx->n - ctx->root) % ctx->n;
}

static guint32
tree_abs (const SysPhaseCtx *ctx, guint32 d)
{
  return (ctx->root + d) % ctx->n;
}

/* Broadcast and reduce use the recursive-doubling tree (parent: d less its
 * highest bit); scatter and gather the recursive-halving one (d less its
 * lowest bit). */
static gboolean
tree_doubling (SysCollKind op)
{
  return op == SYS_COLL_BROADCAST || op == SYS_COLL_REDUCE;
}

static gboolean
tree_outward (SysCollKind op)
{
  return op == SYS_COLL_BROADCAST || op == SYS_COLL_SCATTER;
}

static guint32
tree_parent (SysCollKind op, guint32 d)
{
  guint32 bit = tree_doubling (op) ? 1u << (g_bit_storage (d) - 1) : d & -d;
  return d - bit;
}

/* The children of d, in the order it sends to them; returns how many. */
static guint
tree_children (const SysPhaseCtx *ctx, guint32 d, guint32 *out)
{
  guint64 n = ctx->n;
  guint k = 0;
  if (tree_doubling (ctx->op))
    {
      for (guint i = d == 0 ? 0 : g_bit_storage (d); d + (G_GUINT64_CONSTANT (1) << i) < n; i++)
        out[k++] = d + (1u << i);
      return k;
    }
  guint L = d == 0 ? hd_clog2 (n) : (guint) g_bit_nth_lsf (d, -1);
  for (guint i = L; i-- > 0;)
    if (d + (G_GUINT64_CONSTANT (1) << i) < n)
      out[k++] = d + (1u << i);
  return k;
}

/* The bytes between d (not the root) and its parent. */
static guint64
tree_bytes (const SysPhaseCtx *ctx, guint32 d)
{
  if (tree_doubling (ctx->op))
    return ctx->in_bytes;
  guint64 subtree = MIN ((guint64) (d & -d), (guint64) ctx->n - d);
  return subtree * ctx->in_bytes;
}

/* Outward: the member has the data at t; it sends to its children. */
static void
tree_fan_out (const SysPhaseCtx *ctx, guint32 d, SimTime t)
{
  guint32 kids[HD_TREE_MAX];
  guint k = tree_children (ctx, d, kids);
  SimTime e = sys_phase_endpoint_delay (ctx), at = t;
  for (guint i = 0; i < k; i++)
    {
      at = sim_time_add (at, e);
      sys_phase_send (ctx, tree_abs (ctx, kids[i]), 0, tree_bytes (ctx, kids[i]), at);
    }
  sys_phase_finish (ctx, MAX (at, sim_time_add (t, e)));
}

static void
tree_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  guint32 d = tree_rel (ctx, ctx->pos), kids[HD_TREE_MAX];
  SimTime now = sys_phase_now (ctx);
  if (tree_outward (ctx->op))
    {
      /* The root starts with the data; the others wait for their one
       * message. */
      if (run->processed == 0 && (d == 0 || run->arrived == 1))
        {
          run->processed = 1;
          tree_fan_out (ctx, d, now);
        }
      return;
    }
  guint k = tree_children (ctx, d, kids);
  SimTime rc = ctx->op == SYS_COLL_REDUCE ? sys_phase_reduce_cost (ctx, ctx->in_bytes) : 0;
  for (; run->processed < run->arrived; run->processed++)
    run->busy_until = sim_time_add (MAX (now, run->busy_until), rc);
  g_assert (run->processed <= k);
  /* Called at the start and on each arrival after it: a leaf sends at its
   * start, the others once their last child's message is in. */
  if (run->processed < k)
    return;
  SimTime t = sim_time_add (MAX (now, run->busy_until), sys_phase_endpoint_delay (ctx));
  if (d != 0)
    sys_phase_send (ctx, tree_abs (ctx, tree_parent (ctx->op, d)), 0, tree_bytes (ctx, d), t);
  sys_phase_finish (ctx, t);
}

/* ---- the barrier: dissemination ------------------------------------------------
 * SysRun: bits = rounds whose message has arrived; processed = rounds
 * complete; busy_until = when this member's latest message leaves. */

static void
diss_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  guint32 R = hd_clog2 (ctx->n);
  SimTime now = sys_phase_now (ctx), e = sys_phase_endpoint_delay (ctx);
  while (run->processed < R && (run->bits & (G_GUINT64_CONSTANT (1) << run->processed)) != 0)
    {
      SimTime t = sim_time_add (MAX (now, run->busy_until), e);
      guint32 i = ++run->processed;
      if (i == R)
        {
          sys_phase_finish (ctx, t);
          return;
        }
      run->busy_until = t;
      sys_phase_send (ctx, (ctx->pos + (1u << i)) % ctx->n, i, 0, t);
    }
}

static void
diss_start (const SysPhaseCtx *ctx, SysRun *run)
{
  run->busy_until = sim_time_add (sys_phase_now (ctx), sys_phase_endpoint_delay (ctx));
  sys_phase_send (ctx, (ctx->pos + 1) % ctx->n, 0, 0, run->busy_until);
  diss_drain (ctx, run);
}

static void
diss_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  guint64 bit = G_GUINT64_CONSTANT (1) << step;
  g_assert (step < hd_clog2 (ctx->n) && (run->bits & bit) == 0); /* one message a round */
  run->bits |= bit;
  run->arrived++;
  if (run->started)
    diss_drain (ctx, run);
}

/* ---- the class ------------------------------------------------------------------ */

static void
hd_start (const SysPhaseCtx *ctx, SysRun *run)
{
  if (ctx->op == SYS_COLL_BARRIER)
    {
      diss_start (ctx, run);
      return;
    }
  if (sys_coll_kind_rooted (ctx->op))
    {
      run->busy_until = sys_phase_now (ctx);
      tree_drain (ctx, run);
      return;
    }
  HdShape s = hd_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  run->busy_until = now;
  if (ctx->pos >= s.extra)
    {
      /* Extras fold in; partners wait for their extra first. */
      run->busy_until = sim_time_add (now, sys_phase_endpoint_delay (ctx));
      hd_send (ctx, &s, ctx->pos >= s.p2 ? 0 : 1, run->busy_until);
    }
  hd_drain (ctx, run);
}

static void
hd_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  if (ctx->op == SYS_COLL_BARRIER)
    {
      diss_on_message (ctx, run, step);
      return;
    }
  if (sys_coll_kind_rooted (ctx->op))
    {
      g_assert (step == 0);
      run->arrived++;
      if (run->started)
        tree_drain (ctx, run);
      return;
    }
  g_assert (step < 64);
  guint64 bit = G_GUINT64_CONSTANT (1) << step;
  g_assert ((run->bits & bit) == 0); /* one message per step */
  run->bits |= bit;
  run->arrived++;
  if (run->started)
    hd_drain (ctx, run);
}

#define HD_ROW                                                                                  \
  .name = "halvingDoubling",                                                                     \
  .help = "recursive halving then doubling, log2 n steps a half (non-powers of two fold in)",    \
  .kinds = SYS_KINDS_ALL & ~SYS_KIND_BIT (SYS_COLL_ALL_TO_ALL), .flat_variant = TRUE,            \
  .alike = SYS_ALIKE_POW2,                                                                       \
  .unlike_why = "halving-doubling on a dimension whose size is not a power of two",             \
  .links_why = "on a link model, halving-doubling's partners share links",                     \
  .start = hd_start, .on_message = hd_on_message

const SysAlgoClass sys_algo_hd = { HD_ROW, .timing = SYS_TIMING_NATIVE };

/* ASTRA-sim's HalvingDoubling class on powers of two (see the header). */
const SysAlgoClass sys_algo_hd_reference = { HD_ROW, .timing = SYS_TIMING_REFERENCE };
