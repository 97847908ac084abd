/* test_sched_reference.c: the discrete-event scheduler (sim/sched.h) and
 * its queue against an independent reference, on large randomized runs.
 *
 * Every event the test schedules is logged with its time and a sequence
 * number counted by the test, and a correct run executes exactly that log
 * sorted by (time, sequence) with qsort, less the events cancelled.  This
 * holds for events scheduled from handlers too, since each is scheduled at
 * or after the current time with a sequence number above every earlier one.
 * Each test builds its own scheduler in a fresh fixture.  The small tests,
 * with their orders written out, are in test_sched.c.
 */
#include <check.h>
#include <stdlib.h>

#include "sim/sched.h"
#include "sched_check.h"
#include "support/testutil.h"

static SimSched *sched;

static void
setup (void)
{
  sched = sim_sched_new ();
}

static void
teardown (void)
{
  g_clear_pointer (&sched, sim_sched_free);
}

/* One scheduled event as the reference sees it. */
typedef struct
{
  SimTime t;
  guint64 seq;
  SimEventId id;
  gboolean cancelled;
  gboolean ran;
} Ref;

/* A randomized workload: a log of everything scheduled, in seq order. */
typedef struct
{
  GRand *rand;
  GArray *log;  /* Ref, indexed by seq */
  guint64 cap;  /* events to schedule in all */
  guint mode;   /* which delay distribution */
  gboolean cancels;
  GArray *order; /* seqs in the order they ran */
} Work;

static int
ref_cmp (const void *a, const void *b)
{
  const Ref *x = a, *y = b;
  if (x->t != y->t)
    return x->t < y->t ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A delay from one of several shapes: ties, a narrow range, a wide one, a
 * mix spanning many radix levels, one level-2 bucket's width (so that many
 * pushes land in the middle of the queue's front), and half at now with
 * the rest within a level-1 bucket's width. */
#define WORK_MODES 6

static SimTime
work_delay (Work *w)
{
  switch (w->mode)
    {
    case 0:
      return g_rand_int_range (w->rand, 0, 4);
    case 1:
      return g_rand_int_range (w->rand, 0, 1000);
    case 2:
      return (SimTime) g_rand_int (w->rand) << g_rand_int_range (w->rand, 0, 30);
    case 3:
      {
        guint shape = g_rand_int_range (w->rand, 0, 4);
        return shape == 0 ? 0 : (SimTime) g_rand_int (w->rand) >> g_rand_int_range (w->rand, 0, 32);
      }
    case 4:
      return g_rand_int_range (w->rand, 0, (gint32) LEVEL2 (1));
    default:
      return g_rand_boolean (w->rand) ? 0 : g_rand_int_range (w->rand, 0, 300);
    }
}

static void work_fire (SimSched *s, gpointer data, guint64 arg);

static void
work_schedule (Work *w, SimTime t)
{
  Ref r = { t, w->log->len, 0, FALSE, FALSE };
  r.id = sim_sched_at_cancellable (sched, t, work_fire, w, r.seq);
  CHECK_QUIET (r.id != 0, "no id for seq %" G_GUINT64_FORMAT, r.seq);
  g_array_append_val (w->log, r);
}

/* Each event schedules up to three more (1.5 on average, so the population
 * grows rather than dies out) until the cap, and now and then
 * cancels a random earlier event; the reference knows whether it ran. */
static void
work_fire (SimSched *s, gpointer data, guint64 arg)
{
  Work *w = data;
  Ref *me = &g_array_index (w->log, Ref, arg);
  CHECK_QUIET (!me->cancelled && !me->ran, "seq %" G_GUINT64_FORMAT " ran twice or cancelled",
               arg);
  CHECK_QUIET (sim_sched_now (s) == me->t, "seq %" G_GUINT64_FORMAT " ran at the wrong time",
               arg);
  me->ran = TRUE;
  g_array_append_val (w->order, arg);
  guint spawn = g_rand_int_range (w->rand, 0, 4);
  for (guint k = 0; k < spawn && w->log->len < w->cap; k++)
    work_schedule (w, sim_sched_now (s) + work_delay (w));
  if (w->cancels && g_rand_int_range (w->rand, 0, 4) == 0)
    {
      Ref *r = &g_array_index (w->log, Ref, g_rand_int_range (w->rand, 0, w->log->len));
      gboolean want = !r->ran && !r->cancelled;
      CHECK_QUIET (sim_sched_cancel (s, r->id) == want, "cancel of seq %" G_GUINT64_FORMAT
                   " returned %d", r->seq, !want);
      r->cancelled |= want;
    }
}

/* Run a workload of `initial` events at random times below `span` and
 * check the run against the sorted log.  With step, run it in slices, the
 * first step picoseconds long and each 1% longer than the one before (some
 * delays reach 2^61 ps), checking that the time limit stops at each
 * slice's end. */
static void
check_against_reference (guint mode, gboolean cancels, guint initial, guint64 cap,
                         SimTime span, SimTime step)
{
  Work w = { g_rand_new_with_seed (1000 + mode * 2 + cancels),
             g_array_new (FALSE, FALSE, sizeof (Ref)), cap, mode, cancels,
             g_array_new (FALSE, FALSE, sizeof (guint64)) };
  for (guint k = 0; k < initial; k++)
    work_schedule (&w, (SimTime) g_rand_double_range (w.rand, 0, (double) span));
  if (step == 0)
    ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  else
    for (SimTime until = step;; step += step / 100, until += step)
      {
        SimRunStatus status = sim_sched_run (sched, until, 0);
        if (status == SIM_RUN_EMPTY)
          break;
        CHECK_QUIET (status == SIM_RUN_TIME_LIMIT && sim_sched_now (sched) == until,
                     "slice to %" G_GUINT64_FORMAT ": status %d, now %" G_GUINT64_FORMAT, until,
                     status, sim_sched_now (sched));
      }

  g_autofree Ref *sorted = g_memdup2 (w.log->data, w.log->len * sizeof (Ref));
  qsort (sorted, w.log->len, sizeof (Ref), ref_cmp);
  guint n = 0, n_cancelled = 0;
  for (guint k = 0; k < w.log->len; k++)
    {
      if (sorted[k].cancelled)
        {
          n_cancelled++;
          continue;
        }
      CHECK_QUIET (n < w.order->len, "only %u events ran", w.order->len);
      CHECK_QUIET (g_array_index (w.order, guint64, n) == sorted[k].seq,
                   "position %u: ran seq %" G_GUINT64_FORMAT ", want %" G_GUINT64_FORMAT, n,
                   g_array_index (w.order, guint64, n), sorted[k].seq);
      n++;
    }
  ck_assert_uint_eq (n, w.order->len);
  ck_assert_uint_eq (sim_sched_events_run (sched), n);
  ck_assert_uint_eq (n + n_cancelled, w.log->len);
  ck_assert_uint_eq (sim_sched_pending (sched), 0);
  ck_assert_uint_eq (w.log->len, cap);
  ck_assert (!cancels || n_cancelled > 0);
  g_rand_free (w.rand);
  g_array_unref (w.log);
  g_array_unref (w.order);
}

START_TEST (test_reference_static_ties)
{
  /* 100,000 events over 1,000 ps: about a hundred per time. */
  check_against_reference (0, FALSE, 100000, 100000, 1000, 0);
}
END_TEST

START_TEST (test_reference_static_wide)
{
  check_against_reference (0, FALSE, 100000, 100000, G_GUINT64_CONSTANT (1) << 62, 0);
}
END_TEST

START_TEST (test_reference_dynamic)
{
  /* _i selects the delay shape; each run schedules 200,000 events. */
  check_against_reference ((guint) _i, FALSE, 1000, 200000, 1000000, 0);
}
END_TEST

START_TEST (test_reference_dynamic_cancels)
{
  check_against_reference ((guint) _i, TRUE, 1000, 200000, 1000000, 0);
}
END_TEST

START_TEST (test_reference_time_slices)
{
  /* The same workloads run in slices must give the same order. */
  check_against_reference ((guint) _i, TRUE, 1000, 50000, 1000000, 7919);
}
END_TEST

/* ------------------------------------------------------------ suite */

static Suite *
sched_reference_suite (void)
{
  Suite *s = suite_create ("sched_reference");
  TCase *tc = tu_tcase (s, "reference", setup, teardown, 60);
  tcase_add_test (tc, test_reference_static_ties);
  tcase_add_test (tc, test_reference_static_wide);
  tcase_add_loop_test (tc, test_reference_dynamic, 0, WORK_MODES);
  tcase_add_loop_test (tc, test_reference_dynamic_cancels, 0, WORK_MODES);
  tcase_add_loop_test (tc, test_reference_time_slices, 0, WORK_MODES);
  return s;
}

int
main (void)
{
  return tu_run_suite (sched_reference_suite ());
}
