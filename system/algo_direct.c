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
 * This row's timing (algo_direct_packets.c is ASTRA-sim's, for the kinds
 * ASTRA-sim has).  Each message waits the endpoint delay e
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
 * Rooted kinds and the barrier (ASTRA-sim has none of them, so both rows
 * run them alike).  c = ctx->in_bytes, for scatter and gather one
 * member's piece; the root's j-th peer (j = 0..n-2) is root + 1 + j (mod n).
 * As above every message waits e at its sender before it leaves; a member
 * that receives also pays e once, after it has consumed (and reduced) its
 * last message, before it is done (as the ring's chains do).  The window
 * limits the messages one member has in flight; only the broadcast and
 * scatter root and the barrier send more than one.
 *   broadcast, scatter: the root sends c to every peer, message j to peer
 *     j.  Messages 0..W-1 leave at start + e.  The root learns of an arrival
 *     only by being told: peer j, once its message has arrived and it has
 *     started, is done e later and then, when j + W < n-1 (its answer opens
 *     a slot), sends the root a 0-byte acknowledgement; the k-th to arrive
 *     sends message W + k - 1 at its arrival + e.  The root is done when its
 *     last message leaves.  A window costs n-1-W acknowledgements.
 *   reduce, gather: every peer sends its c to the root at start + e and is
 *     done then.  The root consumes arrivals in order from its start (reduce:
 *     each ends at max (its arrival, the previous end) + rc(c)) and is done e
 *     after the last.
 *   barrier: as all-gather (sliding window on arrivals) with 0-byte
 *     messages, done e after its n-1-th arrival (or when its last message
 *     leaves, if that is later).
 * Closed forms, every member starting at 0, delay D per message
 * (acknowledgements too), M = ceil ((n-1)/W):
 *   broadcast, scatter: message j leaves at e + 2 floor (j/W) (D + e);
 *     peer j done at (2 floor (j/W) + 1)(D + e) + e, the root at
 *     e + 2 (M - 1)(D + e); n-1 + (n-1-W) messages, (n-1) c bytes.
 *   reduce: peers e, root D + 2e + (n-1) rc(c); gather: peers e, root
 *     D + 2e; n-1 messages, (n-1) c bytes.
 *   barrier: every member M (D + e) + e; n (n-1) messages of 0 bytes.
 */
#include "system/algo_direct.h"

DirectShape
sys_direct_shape (const SysPhaseCtx *ctx)
{
  DirectShape s;
  s.half = ctx->n - 1;
  s.ar = ctx->op == SYS_COLL_ALL_REDUCE;
  s.k = s.ar ? 2 * s.half : s.half;
  s.w = ctx->param == 0 ? s.half : MIN (ctx->param, s.half);
  if (ctx->op == SYS_COLL_BARRIER)
    s.m = 0;
  else if (ctx->op == SYS_COLL_ALL_GATHER || sys_coll_kind_rooted (ctx->op))
    s.m = ctx->in_bytes;
  else
    s.m = sys_phase_split (ctx, ctx->in_bytes, ctx->n);
  return s;
}

SimTime
sys_direct_open (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run)
{
  SimTime at = sim_time_add (sys_phase_now (ctx), sys_phase_endpoint_delay (ctx));
  for (guint32 j = 0; j < s->w; j++)
    sys_direct_send (ctx, s, j, at);
  run->bits = at;
  /* Only first-half messages can arrive before the start: a second-half one
   * needs the partner to have all of its first half, this member's too. */
  g_assert (run->arrived <= s->half);
  return at;
}

void
sys_direct_send (const SysPhaseCtx *ctx, const DirectShape *s, guint32 tag, SimTime at)
{
  g_assert (s->half > 0); /* a phase of one rank sends nothing */
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
  SimTime at = sim_time_add (t, sys_phase_endpoint_delay (ctx));
  sys_direct_send (ctx, s, first + slot + s->w, at);
  run->bits = MAX (run->bits, at);
}

/* The all-gather half of all-reduce, once the reductions end at T. */
static void
native_second_half (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime T)
{
  SimTime at = sim_time_add (T, sys_phase_endpoint_delay (ctx));
  for (guint32 j = 0; j < s->w; j++)
    sys_direct_send (ctx, s, s->half + j, at);
  run->bits = MAX (run->bits, at);
  for (guint32 g = 0; g < run->arrived - run->processed; g++)
    native_open_slot (ctx, s, run, s->half, g, T);
}

static void
native_first (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime now)
{
  guint32 i = run->processed++;
  gboolean reduces = ctx->op == SYS_COLL_ALL_REDUCE || ctx->op == SYS_COLL_REDUCE_SCATTER;
  run->busy_until = sim_time_add (MAX (now, run->busy_until),
                                 reduces ? sys_phase_reduce_cost (ctx, s->m) : 0);
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
  SimTime got = MAX (now, run->busy_until);
  /* A barrier member pays e after its last arrival (see the header). */
  if (ctx->op == SYS_COLL_BARRIER)
    got = sim_time_add (got, sys_phase_endpoint_delay (ctx));
  sys_phase_finish (ctx, MAX (got, run->bits));
}

static void
native_start (const SysPhaseCtx *ctx, SysRun *run)
{
  DirectShape s = sys_direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  sys_direct_open (ctx, &s, run);
  run->busy_until = now;
  while (run->processed < run->arrived)
    native_first (ctx, &s, run, now);
  if (native_done (&s, run))
    native_finish (ctx, run, now);
}

/* A message arrived at a started member (counted in run->arrived). */
static void
native_receive (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, guint32 step)
{
  SimTime now = sys_phase_now (ctx);
  if (step < s->half)
    native_first (ctx, s, run, now);
  else if (run->processed == s->half)
    native_open_slot (ctx, s, run, s->half, run->arrived - run->processed - 1,
                      MAX (now, run->busy_until));
  /* else: an all-gather arrival before this member's reductions end; the
   * second half counts it when it opens. */
  if (native_done (s, run))
    native_finish (ctx, run, now);
}

/* ---- rooted kinds ------------------------------------------------------------
 * SysRun: arrived = data messages in (the broadcast and scatter root:
 * acknowledgements in); processed = those consumed; busy_until = the end of
 * the last reduction (the latest consumption when nothing reduces).  Data
 * messages carry tag 0, acknowledgements tag 1. */

#define DIRECT_TAG_DATA 0
#define DIRECT_TAG_ACK 1

/* Broadcast and scatter flow out of the root; reduce and gather into it. */
static gboolean
rooted_outward (SysCollKind op)
{
  return op == SYS_COLL_BROADCAST || op == SYS_COLL_SCATTER;
}

/* This member's index j among the root's peers (not for the root). */
static guint32
rooted_peer (const SysPhaseCtx *ctx)
{
  return (ctx->pos + ctx->n - ctx->root) % ctx->n - 1;
}

static void
rooted_send_data (const SysPhaseCtx *ctx, const DirectShape *s, guint32 j, SimTime at)
{
  sys_phase_send (ctx, (ctx->root + 1 + j) % ctx->n, DIRECT_TAG_DATA, s->m, at);
}

/* A receiver (a peer of broadcast and scatter, the root of reduce and
 * gather) consumes what has arrived, and is done e after the last. */
static void
rooted_drain (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run)
{
  SimTime now = sys_phase_now (ctx);
  SimTime rc = ctx->op == SYS_COLL_REDUCE ? sys_phase_reduce_cost (ctx, s->m) : 0;
  guint32 expected = rooted_outward (ctx->op) ? 1 : s->half;
  if (run->processed == run->arrived)
    return;
  while (run->processed < run->arrived)
    {
      run->busy_until = sim_time_add (MAX (now, run->busy_until), rc);
      run->processed++;
    }
  g_assert (run->processed <= expected);
  if (run->processed < expected)
    return;
  SimTime t = sim_time_add (run->busy_until, sys_phase_endpoint_delay (ctx));
  sys_phase_finish (ctx, t);
  if (rooted_outward (ctx->op) && rooted_peer (ctx) + s->w < s->half)
    sys_phase_send (ctx, ctx->root, DIRECT_TAG_ACK, 0, t);
}

static void
rooted_start (const SysPhaseCtx *ctx, SysRun *run)
{
  DirectShape s = sys_direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  SimTime at = sim_time_add (now, sys_phase_endpoint_delay (ctx));
  gboolean root = ctx->pos == ctx->root;
  run->busy_until = now;
  if (root && rooted_outward (ctx->op))
    {
      for (guint32 j = 0; j < s.w; j++)
        rooted_send_data (ctx, &s, j, at);
      if (s.w == s.half)
        sys_phase_finish (ctx, at);
    }
  else if (!root && !rooted_outward (ctx->op))
    {
      sys_phase_send (ctx, ctx->root, DIRECT_TAG_DATA, s.m, at);
      sys_phase_finish (ctx, at);
    }
  else
    rooted_drain (ctx, &s, run);
}

static void
rooted_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  DirectShape s = sys_direct_shape (ctx);
  run->arrived++;
  if (ctx->pos == ctx->root && rooted_outward (ctx->op))
    {
      /* An acknowledgement: the root has started, as it sent the data. */
      g_assert (step == DIRECT_TAG_ACK && run->started);
      guint32 j = s.w + run->arrived - 1;
      g_assert (j < s.half);
      SimTime at = sim_time_add (sys_phase_now (ctx), sys_phase_endpoint_delay (ctx));
      rooted_send_data (ctx, &s, j, at);
      if (j == s.half - 1)
        sys_phase_finish (ctx, at);
      return;
    }
  g_assert (step == DIRECT_TAG_DATA);
  if (run->started)
    rooted_drain (ctx, &s, run);
}

/* ---- the class ------------------------------------------------------------ */

/* The reference row packetises what ASTRA-sim's AllToAll class runs. */
static gboolean
packetised (const SysPhaseCtx *ctx)
{
  return ctx->algo->timing == SYS_TIMING_REFERENCE && ctx->op != SYS_COLL_BARRIER;
}

void
sys_direct_start (const SysPhaseCtx *ctx, SysRun *run)
{
  if (sys_coll_kind_rooted (ctx->op))
    rooted_start (ctx, run);
  else if (packetised (ctx))
    sys_direct_packet_start (ctx, run);
  else
    native_start (ctx, run);
}

void
sys_direct_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  if (sys_coll_kind_rooted (ctx->op))
    {
      rooted_on_message (ctx, run, step);
      return;
    }
  DirectShape s = sys_direct_shape (ctx);
  run->arrived++;
  if (!run->started)
    return;
  if (packetised (ctx))
    sys_direct_packet_receive (ctx, &s, run, step);
  else
    native_receive (ctx, &s, run, step);
}

const SysAlgoClass sys_algo_direct = {
  DIRECT_ROW,
  .help = "every member sends each peer its piece directly; directN: at most N in flight",
  .timing = SYS_TIMING_NATIVE,
};
