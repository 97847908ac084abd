/* algo_direct_packets.c: ASTRA-sim's timing of the direct algorithm (the
 * row of "direct" with SYS_TIMING_REFERENCE), for all-reduce,
 * reduce-scatter, all-gather and all-to-all; the rooted kinds and the
 * barrier run as in the native row (algo_direct.c, whose header gives the
 * message pattern and the window W).
 *
 * The reference row of "direct": ASTRA-sim's AllToAll class
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
#include "system/algo_direct.h"

/* SysRun: processed = receipts so far; busy_until = the latest send or
 * packet cost end; bits = the time receipts count from (start + e, then H). */

/* Does packet j (1-based) cost a reduction in ASTRA-sim? */
static gboolean
packet_reduces (SysCollKind op, guint32 j, guint32 w)
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
packet_receipt (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime t)
{
  guint32 mid = s->half;
  guint32 i = ++run->processed;
  guint32 j = s->w + i;
  SimTime cost = sim_time_add (t, sys_phase_endpoint_delay (ctx));
  if (packet_reduces (ctx->op, j, s->w))
    cost = sim_time_add (cost, sys_phase_reduce_cost (ctx, s->m));
  gboolean held = s->ar && j > mid && i <= mid;
  if (j <= s->k && !held)
    {
      SimTime at = MAX (cost, run->busy_until);
      sys_direct_send (ctx, s, j - 1, at);
      run->busy_until = at;
    }
  run->busy_until = MAX (run->busy_until, cost);
  if (s->ar && i == mid)
    {
      /* The first half is in: the held packets (made since the n-1-th
       * send, this one included) leave together. */
      SimTime at = run->busy_until;
      for (guint32 h = mid + 1; h <= MIN (s->w + mid, s->k); h++)
        sys_direct_send (ctx, s, h - 1, at);
      run->busy_until = at;
      run->bits = at;
    }
}

/* Count every arrival that may be counted now. */
static void
packet_drain (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run, SimTime now)
{
  /* Before the first half is complete, what is left uncounted is second
   * half, which waits. */
  while (run->processed < run->arrived && (!s->ar || run->processed >= s->half))
    packet_receipt (ctx, s, run, MAX (now, run->bits));
  if (run->processed == s->k)
    sys_phase_finish (ctx, run->busy_until);
}

void
sys_direct_packet_start (const SysPhaseCtx *ctx, SysRun *run)
{
  DirectShape s = sys_direct_shape (ctx);
  SimTime now = sys_phase_now (ctx);
  SimTime at = sys_direct_open (ctx, &s, run);
  run->busy_until = at;
  /* What arrived before the start is first half; a first-half receipt
   * completes it at the latest. */
  while (run->processed < run->arrived)
    packet_receipt (ctx, &s, run, at);
  packet_drain (ctx, &s, run, now);
}

void
sys_direct_packet_receive (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run,
                           guint32 step)
{
  SimTime now = sys_phase_now (ctx);
  if (step < s->half && run->processed < s->half)
    packet_receipt (ctx, s, run, MAX (now, run->bits));
  packet_drain (ctx, s, run, now);
}

/* ---- the class ------------------------------------------------------------ */

const SysAlgoClass sys_algo_direct_packets = {
  DIRECT_ROW,
  .help = "ASTRA-sim's AllToAll class: packets in windows, reductions on alternate blocks",
  .timing = SYS_TIMING_REFERENCE,
};
