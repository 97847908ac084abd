/* test_queue.c: the event queue's trusted push (sim/queue.h,
 * sim_queue_push_trusted), which the ring's send makes on the queue
 * sim_sched_queue() lends, without sim_sched_at's checks.
 *
 * Its events run as sim_sched_at's would: by time, ties first-in first-out,
 * the order written out in the test.  What it trusts, a time not below the
 * scheduler's now, is asserted in the builds that check it (sanitizer
 * builds, SIM_QUEUE_CHECKED): a push into the past aborts there, where
 * without the check its event ran next with the clock gone back.  Each
 * test builds its own scheduler.
 */
#include <check.h>
#include <signal.h>

#include "sim/queue.h"
#include "sim/sched.h"
#include "support/testutil.h"

static GArray *seen; /* (now, arg) pairs, as guint64, in the order run */

static void
record (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  guint64 pair[2] = { sim_sched_now (s), arg };
  g_array_append_vals (seen, pair, 2);
}

/* At 100: trusted pushes at 100 (now), 300, 100 and 200 beside one of
 * sim_sched_at at 200. */
static void
push_some (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  (void) arg;
  SimQueue *q = sim_sched_queue (s);
  sim_queue_push_trusted (q, 100, record, NULL, 1);
  sim_queue_push_trusted (q, 300, record, NULL, 2);
  sim_sched_at (s, 200, record, NULL, 3);
  sim_queue_push_trusted (q, 100, record, NULL, 4);
  sim_queue_push_trusted (q, 200, record, NULL, 5);
}

START_TEST (test_trusted_in_order)
{
  SimSched *s = sim_sched_new ();
  seen = g_array_new (FALSE, FALSE, sizeof (guint64));
  sim_sched_at (s, 100, push_some, NULL, 0);
  ck_assert_int_eq (sim_sched_run (s, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  /* By time, ties in the order pushed, whichever way. */
  const guint64 want[] = { 100, 1, 100, 4, 200, 3, 200, 5, 300, 2 };
  ck_assert_uint_eq (seen->len, G_N_ELEMENTS (want));
  for (guint i = 0; i < seen->len; i++)
    ck_assert_uint_eq (g_array_index (seen, guint64, i), want[i]);
  g_array_unref (seen);
  sim_sched_free (s);
}
END_TEST

#ifdef SIM_QUEUE_CHECKED
/* At 100: a trusted push at 50, below now. */
static void
push_past (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  (void) arg;
  sim_queue_push_trusted (sim_sched_queue (s), 50, record, NULL, 1);
}

START_TEST (test_trusted_into_past_aborts)
{
  SimSched *s = sim_sched_new ();
  seen = g_array_new (FALSE, FALSE, sizeof (guint64));
  sim_sched_at (s, 100, push_past, NULL, 0);
  sim_sched_run (s, SIM_TIME_MAX, 0);
  /* Not reached where the push is checked: its event ran at 50, after 100. */
  ck_abort_msg ("the push into the past was taken (clock %" G_GUINT64_FORMAT ")",
                seen->len > 0 ? g_array_index (seen, guint64, 0) : 0);
}
END_TEST
#endif

static Suite *
queue_suite (void)
{
  Suite *s = suite_create ("queue");
  TCase *tc = tcase_create ("trusted");
  tcase_add_test (tc, test_trusted_in_order);
#ifdef SIM_QUEUE_CHECKED
  tcase_add_test_raise_signal (tc, test_trusted_into_past_aborts, SIGABRT);
#endif
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return tu_run_suite (queue_suite ());
}
