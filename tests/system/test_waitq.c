/* test_waitq.c: the per-(rank, dimension) wait queue (system/waitq.h) runs
 * the highest priority first, the oldest among equals, exactly as the
 * linear scan it replaced picked.
 *
 * Expected orders are worked by hand from the rule for the three policies'
 * priorities (coll.c's collective_priority: LIFO gives the k-th collective a
 * rank joins priority k, FIFO -k, EXPLICIT the trace's number), and, for a
 * long mixed sequence, the scan itself written out here.
 *
 * test_waitq_runs_match_scan: a run of entries pushed as one pops as its
 * entries pushed one by one would.
 *
 * test_owed_list: what a rank owes a queue (SysOwedList) keeps its order
 * as it grows and as items leave from anywhere in it.
 */
#include <check.h>

#include "support/testutil.h"
#include "system/waitq.h"

/* Push entries named by their run_index with the given priorities; orders
 * count from *order. */
static void
push (SysWaitQueue *q, guint32 *order, guint64 name, gint64 priority)
{
  SysWaiting w = { .coll = NULL, .run_index = name, .priority = priority, .order = (*order)++ };
  sys_waitq_push (q, &w);
}

/* Pop n entries and check their names. */
static void
assert_pops (SysWaitQueue *q, const guint64 *want, guint n)
{
  for (guint i = 0; i < n; i++)
    {
      SysWaiting w;
      ck_assert (sys_waitq_pop (q, &w));
      ck_assert_uint_eq (w.run_index, want[i]);
    }
}

/* LIFO: collective 1 queues chunks 10, 11; collective 2 (priority 2) queues
 * 20, 21: 20 and 21 run first, in their order.  Then collective 1's chunk 10
 * moves on to its next phase (12, priority 1, newest) while 3's chunk 30
 * arrives: 30, then 11 (older than 12), then 12. */
START_TEST (test_waitq_lifo)
{
  SysWaitQueue q = { 0 };
  guint32 order = 0;
  push (&q, &order, 10, 1);
  push (&q, &order, 11, 1);
  push (&q, &order, 20, 2);
  push (&q, &order, 21, 2);
  const guint64 first[] = { 20, 21, 10 };
  assert_pops (&q, first, 3);
  push (&q, &order, 12, 1);
  push (&q, &order, 30, 3);
  const guint64 rest[] = { 30, 11, 12 };
  assert_pops (&q, rest, 3);
  SysWaiting w;
  ck_assert (!sys_waitq_pop (&q, &w));
  sys_waitq_clear (&q);
}
END_TEST

/* FIFO: priorities -1, -2, -3 in joining order: the first collective's
 * chunks all run before the second's, whatever arrives later. */
START_TEST (test_waitq_fifo)
{
  SysWaitQueue q = { 0 };
  guint32 order = 0;
  push (&q, &order, 30, -3);
  push (&q, &order, 20, -2);
  push (&q, &order, 10, -1);
  push (&q, &order, 11, -1);
  push (&q, &order, 21, -2);
  const guint64 want[] = { 10, 11, 20, 21, 30 };
  assert_pops (&q, want, 5);
  sys_waitq_clear (&q);
}
END_TEST

/* EXPLICIT: the trace's priorities 5, 5, 7, 0, 7 (orders 0..4): the two
 * 7s oldest first, then the two 5s, then 0. */
START_TEST (test_waitq_explicit)
{
  SysWaitQueue q = { 0 };
  guint32 order = 0;
  push (&q, &order, 0, 5);
  push (&q, &order, 1, 5);
  push (&q, &order, 2, 7);
  push (&q, &order, 3, 0);
  push (&q, &order, 4, 7);
  const guint64 want[] = { 2, 4, 0, 1, 3 };
  assert_pops (&q, want, 5);
  sys_waitq_clear (&q);
}
END_TEST

/* The linear scan the heap replaced: index of the highest priority, the
 * lowest order among equals. */
static guint
scan_pick (const GArray *list)
{
  const SysWaiting *w = (const SysWaiting *) list->data;
  guint best = 0;
  for (guint i = 1; i < list->len; i++)
    if (w[i].priority > w[best].priority
        || (w[i].priority == w[best].priority && w[i].order < w[best].order))
      best = i;
  return best;
}

/* Pop Q empty, each entry the one the scan picks from LIST (emptied too):
 * the number popped. */
static guint
drain_as_scan (SysWaitQueue *q, GArray *list)
{
  guint pops = 0;
  while (list->len > 0)
    {
      guint i = scan_pick (list);
      SysWaiting got;
      ck_assert (sys_waitq_pop (q, &got));
      ck_assert_uint_eq (got.run_index, g_array_index (list, SysWaiting, i).run_index);
      g_array_remove_index (list, i);
      pops++;
    }
  SysWaiting w;
  ck_assert (!sys_waitq_pop (q, &w));
  return pops;
}

/* A long run of pushes (few distinct priorities, so many ties) and pops,
 * interleaved: every pop is the entry the scan picks. */
START_TEST (test_waitq_matches_scan)
{
  SysWaitQueue q = { 0 };
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (SysWaiting));
  GRand *rand = g_rand_new_with_seed (17);
  guint32 order = 0;
  for (guint step = 0; step < 5000; step++)
    {
      if (list->len == 0 || g_rand_int_range (rand, 0, 3) != 0)
        {
          SysWaiting w = { .run_index = step, .priority = g_rand_int_range (rand, -3, 4),
                           .order = order++ };
          sys_waitq_push (&q, &w);
          g_array_append_val (list, w);
          continue;
        }
      guint i = scan_pick (list);
      SysWaiting want = g_array_index (list, SysWaiting, i), got;
      g_array_remove_index (list, i);
      ck_assert (sys_waitq_pop (&q, &got));
      ck_assert_uint_eq (got.run_index, want.run_index);
    }
  drain_as_scan (&q, list);
  g_rand_free (rand);
  sys_waitq_clear (&q);
}
END_TEST

/* Runs (SysWaiting.more): a push of a run of k entries pops as k pushes of
 * one each would, interleaved with singles and other runs.  The scan's list
 * holds the run written out, entry by entry; the queue, the run. */
START_TEST (test_waitq_runs_match_scan)
{
  SysWaitQueue q = { 0 };
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (SysWaiting));
  GRand *rand = g_rand_new_with_seed (29);
  guint32 order = 0;
  guint64 name = 0;
  guint pops = 0;
  for (guint step = 0; step < 3000; step++)
    {
      if (list->len == 0 || g_rand_int_range (rand, 0, 3) == 0)
        {
          guint32 k = (guint32) g_rand_int_range (rand, 1, 6);
          SysWaiting w = { .run_index = name, .priority = g_rand_int_range (rand, -2, 3),
                           .order = order, .more = k - 1, .stride = 3 };
          sys_waitq_push (&q, &w);
          for (guint32 j = 0; j < k; j++)
            {
              SysWaiting one = { .run_index = name + 3 * j, .priority = w.priority,
                                 .order = order + j };
              g_array_append_val (list, one);
            }
          order += k;
          name += 1000;
          continue;
        }
      guint i = scan_pick (list);
      SysWaiting want = g_array_index (list, SysWaiting, i), got;
      g_array_remove_index (list, i);
      ck_assert (sys_waitq_pop (&q, &got));
      ck_assert_uint_eq (got.run_index, want.run_index);
      ck_assert_uint_eq (got.order, want.order);
      ck_assert_uint_eq (got.more, 0);
      pops++;
    }
  pops += drain_as_scan (&q, list);
  ck_assert_uint_eq (pops, order); /* every entry of every run, once */
  g_rand_free (rand);
  sys_waitq_clear (&q);
}
END_TEST

/* Push tickets 1 .. 20 (the array grows from 8 to 16 to 32), take out the
 * first, the last and one in the middle: the others stay in their order. */
START_TEST (test_owed_list)
{
  SysOwedList l = { 0 };
  for (guint32 k = 1; k <= 20; k++)
    sys_owed_push (&l, &(SysOwed) { .ticket = k, .member = 100 + k });
  ck_assert_uint_eq (l.cap, 32);
  sys_owed_remove (&l, 0);
  sys_owed_remove (&l, l.len - 1);
  sys_owed_remove (&l, 9); /* ticket 11 */
  ck_assert_uint_eq (l.len, 17);
  guint32 want = 2;
  for (guint i = 0; i < l.len; i++, want++)
    {
      want += want == 11;
      ck_assert_uint_eq (l.items[i].ticket, want);
      ck_assert_uint_eq (l.items[i].member, 100 + want);
    }
  sys_owed_clear (&l);
  ck_assert (l.items == NULL && l.len == 0);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("waitq");
  TCase *tc = tu_tcase (s, "waitq", NULL, NULL, 0);
  tcase_add_test (tc, test_waitq_lifo);
  tcase_add_test (tc, test_waitq_fifo);
  tcase_add_test (tc, test_waitq_explicit);
  tcase_add_test (tc, test_waitq_matches_scan);
  tcase_add_test (tc, test_waitq_runs_match_scan);
  tcase_add_test (tc, test_owed_list);
  return tu_run_suite (s);
}
