/* test_sched.c: the discrete-event scheduler (sim/sched.h) and, through it,
 * its queue.
 *
 * Expected orders are written out in the tests, or follow from a closed
 * form for the ones that fill a bucket of the queue; the "queue" tests are
 * shaped to reach each of its paths (sim/queue.h, included through
 * sched_check.h for its thresholds, so that they keep doing so).  The large
 * randomized runs checked against an independent reference are in
 * test_sched_reference.c.  Each test builds its own scheduler in a fresh
 * fixture.
 */
#include <check.h>
#include <signal.h>

#include "sim/sched.h"
#include "sched_check.h"
#include "support/testutil.h"

static SimSched *sched;

/* What the handlers saw: (now, arg) in the order they ran. */
typedef struct
{
  SimTime now;
  guint64 arg;
} Seen;
static GArray *seen;
/* When not 0: the events a queue test runs in all, every one scheduled
 * before the first record () of the event that schedules it, so that at
 * each record () the events still pending are those not yet seen.  The
 * queue counts its front's entries by where its head is, the others as
 * they come and go (sim/queue.h): this checks that count through every
 * path that moves entries between the front and the rest. */
static guint pending_total;

/* ------------------------------------------------------------ fixture */

static void
setup (void)
{
  sched = sim_sched_new ();
  seen = g_array_new (FALSE, FALSE, sizeof (Seen));
  pending_total = 0;
}

static void
teardown (void)
{
  g_clear_pointer (&sched, sim_sched_free);
  g_clear_pointer (&seen, g_array_unref);
}

/* ------------------------------------------------------------ helpers */

static void
record (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  Seen r = { sim_sched_now (s), arg };
  g_array_append_val (seen, r);
  CHECK_QUIET (pending_total == 0 || sim_sched_pending (s) == pending_total - seen->len,
               "after event %u (arg %" G_GUINT64_FORMAT "): %zu pending, want %u", seen->len,
               arg, sim_sched_pending (s), pending_total - seen->len);
}

static SimEventId
at (SimTime t, guint64 arg)
{
  SimEventId id = sim_sched_at_cancellable (sched, t, record, NULL, arg);
  ck_assert_uint_ne (id, 0);
  return id;
}

/* The args seen so far equal want[0..n). */
static void
assert_seen_args (const guint64 *want, guint n)
{
  ck_assert_uint_eq (seen->len, n);
  for (guint k = 0; k < n; k++)
    ck_assert_msg (g_array_index (seen, Seen, k).arg == want[k],
                   "event %u: arg %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, k,
                   g_array_index (seen, Seen, k).arg, want[k]);
}

/* ------------------------------------------------------------ basics */

START_TEST (test_empty)
{
  ck_assert_uint_eq (sim_sched_now (sched), 0);
  ck_assert_uint_eq (sim_sched_pending (sched), 0);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_sched_events_run (sched), 0);
  sim_sched_free (NULL);
}
END_TEST

START_TEST (test_order_by_time)
{
  static const SimTime times[] = { 50, 10, 30, 20, 40, 0 };
  for (guint k = 0; k < G_N_ELEMENTS (times); k++)
    at (times[k], k);
  ck_assert_uint_eq (sim_sched_pending (sched), 6);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 5, 1, 3, 2, 4, 0 };
  assert_seen_args (want, 6);
  for (guint k = 0; k < 6; k++) /* now() in each handler is its own time */
    ck_assert_uint_eq (g_array_index (seen, Seen, k).now, times[want[k]]);
  ck_assert_uint_eq (sim_sched_now (sched), 50);
  ck_assert_uint_eq (sim_sched_events_run (sched), 6);
  ck_assert_uint_eq (sim_sched_pending (sched), 0);
}
END_TEST

START_TEST (test_fifo_equal_times)
{
  /* Interleave three times so that ties are not also insertion runs. */
  for (guint k = 0; k < 300; k++)
    at (1000 + (k % 3) * SIM_PS_PER_US, k);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  guint64 want[300];
  for (guint k = 0; k < 300; k++)
    want[k] = (k % 100) * 3 + k / 100;
  assert_seen_args (want, 300);
}
END_TEST

/* At 5: schedules two events at now, one with sim_sched_after (0). */
static void
spawn_at_now (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  sim_sched_at (s, sim_sched_now (s), record, NULL, 100);
  sim_sched_after (s, 0, record, NULL, 101);
  sim_sched_after (s, 25, record, NULL, 102);
}

START_TEST (test_fifo_at_now_from_handler)
{
  sim_sched_at (sched, 5, spawn_at_now, NULL, 1);
  at (5, 2);
  at (5, 3);
  at (6, 4);
  at (30, 5);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  static const guint64 want[] = { 1, 2, 3, 100, 101, 4, 5, 102 };
  assert_seen_args (want, 8);
  ck_assert_uint_eq (g_array_index (seen, Seen, 3).now, 5);
  ck_assert_uint_eq (g_array_index (seen, Seen, 7).now, 30); /* 5 + 25, after arg 5 */
}
END_TEST

/* Schedules the next link of a chain at now until arg reaches 0. */
static void
chain_at_now (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  if (arg > 0)
    sim_sched_after (s, 0, chain_at_now, NULL, arg - 1);
}

START_TEST (test_long_chain_at_one_time)
{
  /* 100,000 events at one time, each scheduled by the one before, with
   * another event at the same time queued first and one just after. */
  at (7, G_MAXUINT64);
  sim_sched_at (sched, 7, chain_at_now, NULL, 99999);
  at (8, G_MAXUINT64 - 1);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  ck_assert_uint_eq (seen->len, 100002);
  ck_assert_uint_eq (g_array_index (seen, Seen, 0).arg, G_MAXUINT64);
  for (guint k = 1; k <= 100000; k++)
    CHECK_QUIET (g_array_index (seen, Seen, k).arg == 100000 - k
                   && g_array_index (seen, Seen, k).now == 7,
                 "chain event %u out of order", k);
  ck_assert_uint_eq (g_array_index (seen, Seen, 100001).arg, G_MAXUINT64 - 1);
}
END_TEST

START_TEST (test_extreme_times)
{
  at (SIM_TIME_MAX, 3);
  at (SIM_TIME_MAX - 1, 2);
  at (G_GUINT64_CONSTANT (1) << 63, 1);
  at (0, 0);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 0, 1, 2, 3 };
  assert_seen_args (want, 4);
  ck_assert_uint_eq (sim_sched_now (sched), SIM_TIME_MAX);
  /* A delay past the end of time saturates at SIM_TIME_MAX. */
  sim_sched_after (sched, 10, record, NULL, 4);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (g_array_index (seen, Seen, 4).now, SIM_TIME_MAX);
}
END_TEST

START_TEST (test_schedule_into_past_is_fatal)
{
  at (100, 0);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  sim_sched_at (sched, 99, record, NULL, 1); /* critical, made fatal */
}
END_TEST

/* ------------------------------------------------------------ queue */

/* n events at times base + step * ((k * mul) % mod), for k in [0, n), arg
 * k, and the order they must run in: by time, then by k.  With mul and mod
 * coprime, time r comes from the k with (k * mul) % mod == r, in order. */
static guint64 *
schedule_permuted (SimTime base, SimTime step, guint mul, guint mod, guint n)
{
  for (guint k = 0; k < n; k++)
    sim_sched_at (sched, base + step * ((k * mul) % mod), record, NULL, k);
  guint64 *want = g_new (guint64, n);
  guint w = 0;
  for (guint r = 0; r < mod; r++)
    for (guint k = 0; k < n; k++)
      if ((k * mul) % mod == r)
        want[w++] = k;
  ck_assert_uint_eq (w, n);
  return want;
}

/* Each event ran at its time: base + step * ((arg * mul) % mod). */
static void
assert_seen_permuted_times (SimTime base, SimTime step, guint mul, guint mod)
{
  for (guint k = 0; k < seen->len; k++)
    {
      const Seen *r = &g_array_index (seen, Seen, k);
      CHECK_QUIET (r->now == base + step * ((r->arg * mul) % mod),
                   "event %u: arg %" G_GUINT64_FORMAT " ran at %" G_GUINT64_FORMAT, k, r->arg,
                   r->now);
    }
}

START_TEST (test_run_sorted_with_ties)
{
  /* 400 events at 300 times 100 ps apart (100 of them twice), in one
   * level-2 bucket: sorted into the front with bins of a time or two. */
  G_STATIC_ASSERT (400 <= SIM_QUEUE_RUN_MAX);
  pending_total = 400;
  g_autofree guint64 *want = schedule_permuted (LEVEL2 (5), 100, 7, 300, 400);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  assert_seen_args (want, 400);
  assert_seen_permuted_times (LEVEL2 (5), 100, 7, 300);
}
END_TEST

START_TEST (test_run_dense)
{
  /* 400 events, two at each of 200 consecutive picoseconds, in one
   * level-1 bucket (times 768 to 967): a bin per time. */
  G_STATIC_ASSERT (400 <= SIM_QUEUE_RUN_MAX);
  SimTime base = (SimTime) 3 << SIM_QUEUE_RADIX_BITS;
  g_autofree guint64 *want = schedule_permuted (base, 1, 7, 200, 400);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  assert_seen_args (want, 400);
  assert_seen_permuted_times (base, 1, 7, 200);
}
END_TEST

START_TEST (test_run_bunched)
{
  /* 200 events at 100 consecutive picoseconds, two each, scheduled from
   * the last time down, and one far off in the same level-2 bucket: the
   * sort's bins would be crowded, so the bucket goes down a level instead.
   * Time base + j comes from k = 2 (99 - j) and the one after it. */
  SimTime base = LEVEL2 (2);
  pending_total = 201;
  for (guint k = 0; k < 200; k++)
    sim_sched_at (sched, base + 99 - k / 2, record, NULL, k);
  sim_sched_at (sched, base + 60000, record, NULL, 200);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  guint64 want[201];
  for (guint j = 0; j < 100; j++)
    {
      want[2 * j] = 2 * (99 - j);
      want[2 * j + 1] = 2 * (99 - j) + 1;
    }
  want[200] = 200;
  assert_seen_args (want, 201);
}
END_TEST

START_TEST (test_run_too_large)
{
  /* More events in one level-2 bucket than the front is sorted from: the
   * bucket goes down a level, then its parts are sorted. */
  guint n = SIM_QUEUE_RUN_MAX + 100;
  pending_total = n;
  g_autofree guint64 *want = schedule_permuted (LEVEL2 (7), 50, 13, 300, n);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  assert_seen_args (want, n);
}
END_TEST

/* At the first of ten events LEVEL2 (3) + 1000 k: schedules into the
 * front, before, between, at and after its entries, and past its range. */
static void
insert_into_front (SimSched *s, gpointer data, guint64 arg)
{
  SimTime t = sim_sched_now (s);
  sim_sched_at (s, t + 5000, record, NULL, 105);  /* at k = 5: after it */
  sim_sched_at (s, t + 500, record, NULL, 100);   /* between k = 0 and 1 */
  sim_sched_at (s, t, record, NULL, 101);         /* now: next */
  sim_sched_at (s, t + 9500, record, NULL, 109);  /* after the last */
  sim_sched_at (s, LEVEL2 (4) - 1, record, NULL, 110); /* the range's end */
  sim_sched_at (s, LEVEL2 (4), record, NULL, 111);     /* the next bucket */
  sim_sched_at (s, t + 3000, record, NULL, 103);  /* at k = 3, twice */
  sim_sched_at (s, t + 3000, record, NULL, 104);
  record (s, data, arg); /* last, for pending_total */
}

START_TEST (test_insert_into_front)
{
  pending_total = 18;
  sim_sched_at (sched, LEVEL2 (3), insert_into_front, NULL, 0);
  for (guint k = 1; k < 10; k++)
    sim_sched_at (sched, LEVEL2 (3) + 1000 * k, record, NULL, k);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 0, 101, 100, 1, 2, 3, 103, 104, 4,
                                  5, 105, 6, 7, 8, 9, 109, 110, 111 };
  assert_seen_args (want, G_N_ELEMENTS (want));
  ck_assert_uint_eq (g_array_index (seen, Seen, 1).now, LEVEL2 (3));
  ck_assert_uint_eq (sim_sched_now (sched), LEVEL2 (4));
}
END_TEST

/* The spill test's run: n events LEVEL2 (9) + 10 k, and the event after
 * which an insertion lands. */
#define SPILL_N (6 * SIM_QUEUE_INSERT_MAX + 1)
#define SPILL_T(k) (LEVEL2 (9) + 10 * (SimTime) (k))
static guint spill_at;

/* At the first event of the run: an insertion after event spill_at, too
 * far from both ends of the run to shift (so the run goes down a level),
 * and then more. */
static void
spill_front (SimSched *s, gpointer data, guint64 arg)
{
  sim_sched_at (s, SPILL_T (spill_at) + 5, record, NULL, 1000);
  sim_sched_at (s, SPILL_T (spill_at), record, NULL, 1001); /* after spill_at */
  sim_sched_at (s, SPILL_T (0), record, NULL, 1002);        /* now: next */
  sim_sched_at (s, SPILL_T (0) + 7, record, NULL, 1003);
  sim_sched_at (s, SPILL_T (SPILL_N - 1) + 1, record, NULL, 1004);
  record (s, data, arg); /* last, for pending_total */
}

START_TEST (test_spill_front)
{
  /* _i = 0: in the middle, where the entries before the place would move
   * down; 1: two thirds in, where those after it would move up. */
  G_STATIC_ASSERT (SPILL_N <= SIM_QUEUE_RUN_MAX && 10 * SPILL_N < LEVEL2 (1));
  spill_at = _i == 0 ? SPILL_N / 2 : 2 * SPILL_N / 3;
  pending_total = SPILL_N + 5;
  sim_sched_at (sched, SPILL_T (0), spill_front, NULL, 0);
  for (guint k = 1; k < SPILL_N; k++)
    sim_sched_at (sched, SPILL_T (k), record, NULL, k);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  guint64 want[SPILL_N + 5];
  guint w = 0;
  want[w++] = 0;
  want[w++] = 1002;
  want[w++] = 1003;
  for (guint k = 1; k <= spill_at; k++)
    want[w++] = k;
  want[w++] = 1001;
  want[w++] = 1000;
  for (guint k = spill_at + 1; k < SPILL_N; k++)
    want[w++] = k;
  want[w++] = 1004;
  assert_seen_args (want, w);
}
END_TEST

/* At the first event of the run: three more at now. */
static void
spill_front_at_now (SimSched *s, gpointer data, guint64 arg)
{
  for (guint k = 0; k < 3; k++)
    sim_sched_at (s, sim_sched_now (s), record, NULL, 1000 + k);
  record (s, data, arg); /* last, for pending_total */
}

START_TEST (test_spill_front_at_now)
{
  /* The first push at now takes the spent slot before the run; the second
   * finds none, and the whole run after it too long to shift, so the run
   * goes down a level and the push joins the first at the new front. */
  pending_total = SPILL_N + 3;
  sim_sched_at (sched, SPILL_T (0), spill_front_at_now, NULL, 0);
  for (guint k = 1; k < SPILL_N; k++)
    sim_sched_at (sched, SPILL_T (k), record, NULL, k);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  guint64 want[SPILL_N + 3];
  guint w = 0;
  want[w++] = 0;
  for (guint k = 0; k < 3; k++)
    want[w++] = 1000 + k;
  for (guint k = 1; k < SPILL_N; k++)
    want[w++] = k;
  assert_seen_args (want, w);
  ck_assert_uint_eq (g_array_index (seen, Seen, 3).now, SPILL_T (0));
}
END_TEST

/* At T, with another event at T queued: two more at now and one later. */
static void
push_at_floor (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  sim_sched_after (s, 0, record, NULL, 10);
  sim_sched_at (s, sim_sched_now (s), record, NULL, 11);
  sim_sched_after (s, 100, record, NULL, 12);
}

START_TEST (test_push_at_floor_in_run)
{
  /* The front holds several times of a level-2 bucket; pushes at the
   * floor go after the entries already at it, before later times. */
  SimTime t = LEVEL2 (16);
  sim_sched_at (sched, t, push_at_floor, NULL, 0);
  sim_sched_at (sched, t, record, NULL, 1);
  sim_sched_at (sched, t + 100, record, NULL, 2);
  sim_sched_at (sched, t + 200, record, NULL, 3);
  sim_sched_at (sched, t + 50, record, NULL, 4);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 0, 1, 10, 11, 4, 2, 12, 3 };
  assert_seen_args (want, G_N_ELEMENTS (want));
}
END_TEST

/* In the level-7 run below: one more into it, and a third at the end of
 * time. */
static void
push_far (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  sim_sched_at (s, sim_sched_now (s) + ((SimTime) 1 << 44) + 1, record, NULL, 500);
  sim_sched_at (s, SIM_TIME_MAX, record, NULL, 502);
}

START_TEST (test_run_top_level)
{
  /* 120 events at 40 times 2^44 ps apart from 2^62, in one level-7
   * bucket, then two at the end of time. */
  SimTime base = (SimTime) 1 << 62;
  g_autofree guint64 *want = schedule_permuted (base, (SimTime) 1 << 44, 7, 40, 120);
  sim_sched_at (sched, SIM_TIME_MAX, record, NULL, 501);
  sim_sched_at (sched, SIM_TIME_MAX, record, NULL, 503);
  /* One more at base, after the others there, that schedules in turn. */
  sim_sched_at (sched, base, push_far, NULL, 120);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  /* The event at base that also schedules comes after the three k at base
   * (want[0..2]), and base + 2^44 + 1 after the three at base + 2^44. */
  g_autofree guint64 *all = g_new (guint64, 125);
  guint w = 0;
  for (guint k = 0; k < 120; k++)
    {
      all[w++] = want[k];
      if (k == 2)
        all[w++] = 120; /* the last at base */
      if (k == 5)
        all[w++] = 500;
    }
  all[w++] = 501;
  all[w++] = 503;
  all[w++] = 502;
  assert_seen_args (all, w);
  ck_assert_uint_eq (g_array_index (seen, Seen, 7).now, base + ((SimTime) 1 << 44) + 1);
  ck_assert_uint_eq (sim_sched_now (sched), SIM_TIME_MAX);
}
END_TEST

/* ------------------------------------------------------------ cancel */

START_TEST (test_cancel_pending)
{
  at (10, 0);
  SimEventId b = at (20, 1);
  at (30, 2);
  ck_assert (sim_sched_cancel (sched, b));
  ck_assert_uint_eq (sim_sched_pending (sched), 2);
  ck_assert (!sim_sched_cancel (sched, b)); /* twice */
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 0, 2 };
  assert_seen_args (want, 2);
  ck_assert_uint_eq (sim_sched_events_run (sched), 2);
  ck_assert_uint_eq (sim_sched_now (sched), 30);
  ck_assert (!sim_sched_cancel (sched, b)); /* and after the run */
}
END_TEST

START_TEST (test_cancel_after_run)
{
  SimEventId a = at (10, 0);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  ck_assert (!sim_sched_cancel (sched, a));
  /* The next event may reuse a's slot: a's id must still be stale, and the
   * new event must not be the one cancelled. */
  SimEventId b = at (20, 1);
  ck_assert (!sim_sched_cancel (sched, a));
  ck_assert_uint_ne (a, b);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  static const guint64 want[] = { 0, 1 };
  assert_seen_args (want, 2);
  ck_assert (!sim_sched_cancel (sched, b));
}
END_TEST

START_TEST (test_cancel_bad_ids)
{
  SimEventId a = at (10, 0);
  ck_assert (!sim_sched_cancel (sched, 0));
  ck_assert (!sim_sched_cancel (sched, a + 1));
  ck_assert (!sim_sched_cancel (sched, a ^ (G_GUINT64_CONSTANT (1) << 63)));
  ck_assert (!sim_sched_cancel (sched, G_MAXUINT64));
  ck_assert (!sim_sched_cancel (sched, a + (G_GUINT64_CONSTANT (1) << 32)));
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  ck_assert_uint_eq (seen->len, 1);
}
END_TEST

static SimEventId victim;

/* Cancels the victim (arg 1: expect success) and then itself (never). */
static void
canceller (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  ck_assert (sim_sched_cancel (s, victim) == (arg == 1));
}

START_TEST (test_cancel_from_handler)
{
  sim_sched_at (sched, 10, canceller, NULL, 1);
  victim = at (20, 2);
  at (20, 3);
  at (30, 4);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 1, 3, 4 };
  assert_seen_args (want, 3);
}
END_TEST

static void
cancel_self (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  ck_assert (!sim_sched_cancel (s, victim)); /* already running */
}

START_TEST (test_cancel_running_event)
{
  victim = sim_sched_at_cancellable (sched, 10, cancel_self, NULL, 1);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  ck_assert_uint_eq (seen->len, 1);
}
END_TEST

START_TEST (test_cancel_everything)
{
  SimEventId ids[5];
  for (guint k = 0; k < 5; k++)
    ids[k] = at (10 * (k + 1), k);
  for (guint k = 0; k < 5; k++)
    ck_assert (sim_sched_cancel (sched, ids[k]));
  ck_assert_uint_eq (sim_sched_pending (sched), 0);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_sched_events_run (sched), 0);
  ck_assert_uint_eq (sim_sched_now (sched), 0);
  /* The clock did not move, so now is still a valid time. */
  at (0, 9);
  sim_sched_run (sched, SIM_TIME_MAX, 0);
  static const guint64 want[] = { 9 };
  assert_seen_args (want, 1);
}
END_TEST

/* ------------------------------------------------------------ limits */

START_TEST (test_time_limit)
{
  at (10, 0);
  at (20, 1);
  at (30, 2);
  ck_assert_int_eq (sim_sched_run (sched, 5, 0), SIM_RUN_TIME_LIMIT);
  ck_assert_uint_eq (seen->len, 0);
  ck_assert_uint_eq (sim_sched_now (sched), 5);
  at (6, 10); /* between the clock and the next event */
  ck_assert_int_eq (sim_sched_run (sched, 20, 0), SIM_RUN_TIME_LIMIT);
  static const guint64 want1[] = { 10, 0, 1 }; /* an event at the limit runs */
  assert_seen_args (want1, 3);
  ck_assert_uint_eq (sim_sched_now (sched), 20);
  ck_assert_uint_eq (sim_sched_pending (sched), 1);
  at (20, 11);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want2[] = { 10, 0, 1, 11, 2 };
  assert_seen_args (want2, 5);
  ck_assert_uint_eq (sim_sched_events_run (sched), 5);
}
END_TEST

START_TEST (test_time_limit_after_cancelled)
{
  SimEventId x = at (10, 0);
  at (30, 1);
  ck_assert (sim_sched_cancel (sched, x));
  ck_assert_int_eq (sim_sched_run (sched, 20, 0), SIM_RUN_TIME_LIMIT);
  ck_assert_uint_eq (sim_sched_now (sched), 20);
  at (20, 2);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 2, 1 };
  assert_seen_args (want, 2);
}
END_TEST

START_TEST (test_event_limit)
{
  for (guint k = 0; k < 10; k++)
    at (k, k);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 3), SIM_RUN_EVENT_LIMIT);
  ck_assert_uint_eq (seen->len, 3);
  ck_assert_uint_eq (sim_sched_now (sched), 2);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 3), SIM_RUN_EVENT_LIMIT);
  ck_assert_uint_eq (seen->len, 6);
  ck_assert_uint_eq (sim_sched_pending (sched), 4);
  /* A budget that ends exactly with the queue reports the normal end. */
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 4), SIM_RUN_EMPTY);
  guint64 want[10];
  for (guint k = 0; k < 10; k++)
    want[k] = k;
  assert_seen_args (want, 10);
  ck_assert_uint_eq (sim_sched_events_run (sched), 10);
}
END_TEST

/* The budget holds across the loop's two paths: a cancelled event first
 * (the general loop, not plain), then plain events (the front's loop, which
 * must take the budget up where the other left it). */
START_TEST (test_event_limit_after_cancelled)
{
  SimEventId x = at (5, 99);
  for (guint k = 0; k < 10; k++)
    at (10 + k, k);
  ck_assert (sim_sched_cancel (sched, x));
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 3), SIM_RUN_EVENT_LIMIT);
  static const guint64 want[] = { 0, 1, 2 };
  assert_seen_args (want, 3);
  ck_assert_uint_eq (sim_sched_events_run (sched), 3);
  ck_assert_uint_eq (sim_sched_now (sched), 12);
  ck_assert_uint_eq (sim_sched_pending (sched), 7);
}
END_TEST

static void
stopper (SimSched *s, gpointer data, guint64 arg)
{
  record (s, data, arg);
  sim_sched_stop (s);
}

START_TEST (test_stop_from_handler)
{
  at (10, 0);
  sim_sched_at (sched, 20, stopper, NULL, 1);
  at (20, 2);
  at (30, 3);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_STOPPED);
  static const guint64 want1[] = { 0, 1 };
  assert_seen_args (want1, 2);
  ck_assert_uint_eq (sim_sched_now (sched), 20);
  ck_assert_uint_eq (sim_sched_pending (sched), 2);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want2[] = { 0, 1, 2, 3 };
  assert_seen_args (want2, 4);
}
END_TEST

/* The instant's hook (arg 100 + its run count): records, and schedules an
 * event at now the first time (arg 50), which runs after it. */
static guint hook_runs;

static void
instant_hook (SimSched *s, gpointer data, guint64 arg)
{
  (void) arg;
  record (s, data, 100 + hook_runs++);
  if (hook_runs == 1)
    at (sim_sched_now (s), 50);
}

/* Arms the hook (twice: the second is a no-op), then records. */
static void
arm_and_record (SimSched *s, gpointer data, guint64 arg)
{
  sim_sched_at_instant_end (s, instant_hook, NULL);
  sim_sched_at_instant_end (s, instant_hook, NULL);
  record (s, data, arg);
  if (arg == 1)
    at (sim_sched_now (s), 2); /* at this instant: before the hook */
}

/* At 10: events 0 and 1 (which arms the hook and schedules 2 at 10), then
 * 2, then the hook (100), then what it scheduled at 10 (50), then 30 at
 * time 30; at 30 event 4 arms it again and it runs as the queue runs dry
 * (101).  The hook is no event: 6 run.  A hook armed when a time limit
 * stops the run runs before it stops. */
START_TEST (test_instant_end)
{
  hook_runs = 0;
  at (10, 0);
  sim_sched_at (sched, 10, arm_and_record, NULL, 1);
  at (30, 3);
  sim_sched_at (sched, 30, arm_and_record, NULL, 4);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  static const guint64 want[] = { 0, 1, 2, 100, 50, 3, 4, 101 };
  assert_seen_args (want, 8);
  for (guint k = 0; k < 8; k++)
    ck_assert_uint_eq (g_array_index (seen, Seen, k).now, k < 5 ? 10 : 30);
  ck_assert_uint_eq (sim_sched_events_run (sched), 6);
  sim_sched_at (sched, 40, arm_and_record, NULL, 5);
  at (50, 6);
  ck_assert_int_eq (sim_sched_run (sched, 45, 0), SIM_RUN_TIME_LIMIT);
  static const guint64 want2[] = { 0, 1, 2, 100, 50, 3, 4, 101, 5, 102 };
  assert_seen_args (want2, 10);
  ck_assert_uint_eq (g_array_index (seen, Seen, 9).now, 40);
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *
sched_suite (void)
{
  Suite *s = suite_create ("sched");
  TCase *tc = tu_tcase (s, "order", setup, teardown, 0);
  tcase_add_test (tc, test_empty);
  tcase_add_test (tc, test_order_by_time);
  tcase_add_test (tc, test_fifo_equal_times);
  tcase_add_test (tc, test_fifo_at_now_from_handler);
  tcase_add_test (tc, test_long_chain_at_one_time);
  tcase_add_test (tc, test_extreme_times);
  tcase_add_test_raise_signal (tc, test_schedule_into_past_is_fatal, SIGTRAP);

  tc = tu_tcase (s, "queue", setup, teardown, 0);
  tcase_add_test (tc, test_run_sorted_with_ties);
  tcase_add_test (tc, test_run_dense);
  tcase_add_test (tc, test_run_bunched);
  tcase_add_test (tc, test_run_too_large);
  tcase_add_test (tc, test_insert_into_front);
  tcase_add_loop_test (tc, test_spill_front, 0, 2);
  tcase_add_test (tc, test_spill_front_at_now);
  tcase_add_test (tc, test_push_at_floor_in_run);
  tcase_add_test (tc, test_run_top_level);

  tc = tu_tcase (s, "cancel", setup, teardown, 0);
  tcase_add_test (tc, test_cancel_pending);
  tcase_add_test (tc, test_cancel_after_run);
  tcase_add_test (tc, test_cancel_bad_ids);
  tcase_add_test (tc, test_cancel_from_handler);
  tcase_add_test (tc, test_cancel_running_event);
  tcase_add_test (tc, test_cancel_everything);

  tc = tu_tcase (s, "limits", setup, teardown, 0);
  tcase_add_test (tc, test_time_limit);
  tcase_add_test (tc, test_time_limit_after_cancelled);
  tcase_add_test (tc, test_event_limit);
  tcase_add_test (tc, test_event_limit_after_cancelled);
  tcase_add_test (tc, test_stop_from_handler);
  tcase_add_test (tc, test_instant_end);
  return s;
}

int
main (void)
{
  return tu_run_suite (sched_suite ());
}
