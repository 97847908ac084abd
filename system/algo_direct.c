/* algo_direct.c: the direct algorithm on one dimension ("direct", "directN").
 *
 * Every member sends its piece for every other member straight to it: the
 * j-th message of a half (j = 0..n-2) goes to pos + 1 + j and the j-th one
 * expected comes from pos - 1 - j (mod n).  A half is n-1 messages of
 * m = split (c, n) bytes (all-gather: its input c); all-reduce is a
 * reduce-scatter half followed by an all-gather half (message tags 0..n-2,
 * then n-1..2n-3).  At most W = min (N, n-1) messages of a half are in
 * flight, W = n-1 for plain "direct": the first W leave at once and each
 * arrival lets the next one go (a sliding window).  All-to-all is one half
 * of split (c, n)-byte messages, like all-gather's.
 *
 * Native mode (ctx->astra FALSE).  Each message waits the endpoint delay e
 * before it leaves: the first W at start + e, message j + W at (the time of
 * the j-th arrival of the half) + e.  Reduce-scatter reduces every arrival,
 * one after another on the member's memory (rc each): the i-th is reduced by
 * max (its arrival, the previous reduction's end) + rc.  All-reduce starts
 * its all-gather half when the last reduction ends, at T_rs, and the window
 * of that half counts from T_rs.  A member ends when everything it expects
 * has arrived (and is reduced) and its last message has left.  Closed forms,
 * every member starting at 0, a fixed delay D per message, M = ceil ((n-1)
 * / W) rounds: round r's messages leave at e + r (D + e) and arrive at
 * (r + 1)(D + e), so
 *   all-gather, all-to-all:  T = M (D + e)
 *   reduce-scatter:          T_rs = max_{r<M} [(r + 1)(D + e) + (n - 1 - r W) rc]
 *   all-reduce:              T = T_rs + M (D + e)
 * (with W = n-1: D + e, D + e + (n-1) rc, 2 (D + e) + (n-1) rc).
 *
 * ASTRA mode (ctx->astra TRUE) reproduces ASTRA-sim's AllToAll class
 * (astra-sim/system/collective/AllToAll.cc over Ring.cc), as packets:
 * k = n-1 sends
 * (all-reduce 2(n-1)); packet j (1-based) goes to pos + 1 + (j-1) mod (n-1)
 * with tag j-1.  Packets 1..W exist at start and leave at start + e; the
 * i-th receipt creates packet W + i, which costs e, plus R(m) when ASTRA-sim
 * processes it: packets come in blocks of W, alternately "zero latency" and
 * not; the second block of every pair reduces for reduce-scatter, and for
 * all-reduce only in odd pairs (its toggle).  Packets leave in order, each
 * once its own cost is paid.  All-reduce holds its second half: packets
 * n..2n-2 leave no earlier than H, when the packet made by the (n-1)-th
 * receipt has paid its cost (ASTRA-sim: the first bundle done after that
 * receipt), and second-half receipts count from H.  The phase ends when the
 * last cost is paid.  In lockstep, n_j the delay of message j, R = R(m), M as above:
 *   RS, W = n-1:  T = 2e + max n_j + R       AG, A2A:  T = 2e + max n_j
 *   uniform n:    RS T = e + M (n + e) + ceil (M/2) R; AG, A2A without R
 *   AR, W = n-1:  T = 3e + 2 max n_j + R (when no receipt comes less than
 *                 e + R before the last one of the first half)
 * Where members do not run in lockstep this is an approximation: ASTRA-sim
 * posts each receive when the matching packet leaves and may send a packet
 * on an earlier packet's bundle; here receipts count from the first send of
 * their half and each packet waits for its own cost.
 */
#include "system/algo.h"

typedef struct
{
  guint32 half; /* messages per half: n - 1 */
  guint32 k;    /* messages in all */
  guint32 w;    /* window */
  guint64 m;    /* bytes per message */
  gboolean ar;
} DirectShape;

static gboolean
direct_supports (SysCollKind op)
{
  return op == SYS_COLL_ALL_REDUCE || op == SYS_COLL_REDUCE_SCATTER || op == SYS_COLL_ALL_GATHER
         || op == SYS_COLL_ALL_TO_ALL;
}

static DirectShape
direct_shape (const SysPhaseCtx *ctx)
{
  DirectShape s;
  s.half = ctx->n - 1;
  s.ar = ctx->op == SYS_COLL_ALL_REDUCE;
  s.k = s.ar ? 2 * s.half : s.half;
  s.w = ctx->param == 0 ? s.half : MIN (ctx->param, s.half);
  s.m = ctx->op == SYS_COLL_ALL_GATHER ? ctx->in_bytes
                                       : sys_phase_split (ctx, ctx->in_bytes, ctx->n);
  return s;
}

/* Message `tag` (0-based over the whole phase) leaves at `at`. */
static void
direct_send (const SysPhaseCtx *ctx, const DirectShape *s, guint32 tag, SimTime at)
{
  sys_phase_send (ctx, (ctx->pos + 1 + tag % s->half) % ctx->n, tag, s->m, at);
}

/* ---- native ---------------------------------------------------------------
 * SysRun: processed = first-half arrivals consumed (all of them once the
 * member has started, so arrived - processed are second-half arrivals);
 * busy_until = end of the last reduction (the latest arrival when nothing
 * reduces; T_rs during all-reduce's second half); bits = when the latest
 * message leaves. */

static void
native_open_slot (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, guint32 first,
                  guint32 slot, SimTime t)
{
  if (slot + s->w >= s->half)
    return;
  SimTime at = t + sys_phase_endpoint_delay (ctx);
  direct_send (ctx, s, first + slot + s->w, at);
  run->bits = MAX (run->bits, at);
}

/* The all-gather half of all-reduce, once the reductions end at T. */
static void
native_second_half (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime T)
{
  SimTime at = T + sys_phase_endpoint_delay (ctx);
  for (guint32 j = 0; j < s->w; j++)
    direct_send (ctx, s, s->half + j, at);
  run->bits = MAX (run->bits, at);
  for (guint32 g = 0; g < run->arrived - run->processed; g++)
    native_open_slot (ctx, s, run, s->half, g, T);
}

static void
native_first (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime now)
{
  guint32 i = run->processed++;
  gboolean reduces = ctx->op == SYS_COLL_ALL_REDUCE || ctx->op == SYS_COLL_REDUCE_SCATTER;
  run->busy_until = MAX (now, run->busy_until) + (reduces ? sys_phase_reduce_cost (ctx, s->m) : 0);
  native_open_slot (ctx, s, run, 0, i, now);
  if (s->ar && run->processed == s->half)
    native_second_half (ctx, s, run, run->busy_until);
}

static gboolean
native_done (const DirectShape *s, const SysRun *run)
{
  return run->processed == s->half && run->arrived == s->k;
}

static void
native_finish (const SysPhaseCtx *ctx, SysRun *run, SimTime now)
{
  sys_phase_finish (ctx, MAX (now, MAX (run->busy_until, run->bits)));
}

static void
native_start (const SysPhaseCtx *ctx, SysRun *run)
{
  DirectShape s = direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  SimTime at = now + sys_phase_endpoint_delay (ctx);
  for (guint32 j = 0; j < s.w; j++)
    direct_send (ctx, &s, j, at);
  run->busy_until = now;
  run->bits = at;
  /* Only first-half messages can arrive before the start: a second-half one
   * needs the partner to have all of its first half, this member's too. */
  g_assert (run->arrived <= s.half);
  while (run->processed < run->arrived)
    native_first (ctx, &s, run, now);
  if (native_done (&s, run))
    native_finish (ctx, run, now);
}

static void
native_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  DirectShape s = direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  run->arrived++;
  if (!run->started)
    return;
  if (step < s.half)
    native_first (ctx, &s, run, now);
  else if (run->processed == s.half)
    native_open_slot (ctx, &s, run, s.half, run->arrived - run->processed - 1,
                      MAX (now, run->busy_until));
  /* else: an all-gather arrival before this member's reductions end; the
   * second half counts it when it opens. */
  if (native_done (&s, run))
    native_finish (ctx, run, now);
}

/* ---- ASTRA-sim ------------------------------------------------------------
 * SysRun: processed = receipts so far; busy_until = the latest send or
 * packet cost end; bits = the time receipts count from (start + e, then H). */

/* Does packet j (1-based) cost a reduction in ASTRA-sim? */
static gboolean
astra_packet_reduces (SysCollKind op, guint32 j, guint32 w)
{
  guint32 block = (j - 1) / w;
  if (op == SYS_COLL_REDUCE_SCATTER)
    return block % 2 == 1;
  if (op == SYS_COLL_ALL_REDUCE)
    return block % 4 == 1;
  return FALSE;
}

/* One receipt, counted at t: it creates the next packet. */
static void
astra_receipt (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime t)
{
  guint32 mid = s->half;
  guint32 i = ++run->processed;
  guint32 j = s->w + i;
  SimTime cost = t + sys_phase_endpoint_delay (ctx);
  if (astra_packet_reduces (ctx->op, j, s->w))
    cost += sys_phase_reduce_cost (ctx, s->m);
  gboolean held = s->ar && j > mid && i <= mid;
  if (j <= s->k && !held)
    {
      SimTime at = MAX (cost, run->busy_until);
      direct_send (ctx, s, j - 1, at);
      run->busy_until = at;
    }
  run->busy_until = MAX (run->busy_until, cost);
  if (s->ar && i == mid)
    {
      /* The first half is in: the held packets (made since the n-1-th
       * send, this one included) leave together. */
      SimTime at = run->busy_until;
      for (guint32 h = mid + 1; h <= MIN (s->w + mid, s->k); h++)
        direct_send (ctx, s, h - 1, at);
      run->busy_until = at;
      run->bits = at;
    }
}

/* Count every arrival that may be counted now. */
static void
astra_drain (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime now)
{
  /* Before the first half is complete, what is left uncounted is second
   * half, which waits. */
  while (run->processed < run->arrived && (!s->ar || run->processed >= s->half))
    astra_receipt (ctx, s, run, MAX (now, run->bits));
  if (run->processed == s->k)
    sys_phase_finish (ctx, run->busy_until);
}

static void
astra_start (const SysPhaseCtx *ctx, SysRun *run)
{
  DirectShape s = direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  SimTime at = now + sys_phase_endpoint_delay (ctx);
  for (guint32 j = 0; j < s.w; j++)
    direct_send (ctx, &s, j, at);
  run->busy_until = at;
  run->bits = at;
  /* Everything that arrived before the start is first half (see
   * native_start); a first-half receipt completes it at the latest. */
  g_assert (run->arrived <= s.half);
  while (run->processed < run->arrived)
    astra_receipt (ctx, &s, run, at);
  astra_drain (ctx, &s, run, now);
}

static void
astra_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  DirectShape s = direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  run->arrived++;
  if (!run->started)
    return;
  if (step < s.half && run->processed < s.half)
    astra_receipt (ctx, &s, run, MAX (now, run->bits));
  astra_drain (ctx, &s, run, now);
}

/* ---- the class ------------------------------------------------------------ */

static void
direct_start (const SysPhaseCtx *ctx, SysRun *run)
{
  if (ctx->astra)
    astra_start (ctx, run);
  else
    native_start (ctx, run);
}

static void
direct_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  if (ctx->astra)
    astra_on_message (ctx, run, step);
  else
    native_on_message (ctx, run, step);
}

const SysAlgoClass sys_algo_direct = {
  .name = "direct",
  .supports = direct_supports,
  .start = direct_start,
  .on_message = direct_on_message,
};
