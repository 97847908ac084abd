/* test_peers.c: the system layer tells each request which peer it met:
 * a send or receive the request it was matched with (SysP2PMatchFunc,
 * when the second of the two is posted), a collective member the member
 * that joined last (SysCollJoinerFunc, just before its on_done).  The
 * workload records these as node peers instead of matching anything itself.
 *
 * Runs over the shared fake link model (support/sysfix.h), delivering every
 * message D = 250 ns after it leaves.  Expected pairs follow the matching
 * rule written in sys.h (the n-th send on (src, dst, tag) meets the n-th
 * receive) and the join order the tests choose.
 */
#include <check.h>

#include "support/sysfix.h"

#define NS(x) ((SimTime) (x) * 1000)

static const SimTime D_ring = NS (250);

/* One report: request SELF met PEER, at T. */
typedef struct
{
  guint64 self, peer;
  SimTime t;
} Met;

static GArray *met;

static void
setup (void)
{
  sf_setup ();
  const guint32 p = 4;
  sf_build_rings (&p, &D_ring, 1);
  met = g_array_new (FALSE, FALSE, sizeof (Met));
}

static void
teardown (void)
{
  g_array_unref (met);
  sf_teardown ();
}

/* A SysP2PMatchFunc and a SysCollJoinerFunc: note who met whom. */
static void
on_met (gpointer data, guint64 arg, gpointer peer_data, guint64 peer_arg)
{
  (void) data;
  (void) peer_data;
  Met m = { .self = arg, .peer = peer_arg, .t = sim_sched_now (sf.sched) };
  g_array_append_val (met, m);
}

/* The peer request SELF was told of, and when; fails when it was told
 * nothing or more than once. */
static Met
met_of (guint64 self)
{
  const Met *hit = NULL;
  for (guint i = 0; i < met->len; i++)
    if (g_array_index (met, Met, i).self == self)
      {
        ck_assert_msg (hit == NULL, "request %" G_GUINT64_FORMAT " told twice", self);
        hit = &g_array_index (met, Met, i);
      }
  ck_assert_msg (hit != NULL, "request %" G_GUINT64_FORMAT " never told", self);
  return *hit;
}

/* ------------------------------------------------------------ messages */

static SysP2PRequest posts[8];
static gboolean is_send[8];

static void
post_now (SimSched *s, gpointer data, guint64 i)
{
  (void) s;
  (void) data;
  GError *error = NULL;
  gboolean ok = is_send[i] ? sys_p2p_send (sf.sys, &posts[i], &error)
                           : sys_p2p_recv (sf.sys, &posts[i], &error);
  ck_assert_msg (ok, "post %u: %s", (guint) i, error ? error->message : "?");
}

/* Post I (a send or a receive src -> dst on TAG) at T; it reports (9, I). */
static void
post_at (guint i, gboolean send, guint32 src, guint32 dst, gint64 tag, SimTime t)
{
  is_send[i] = send;
  posts[i] = (SysP2PRequest) { .src = src, .dst = dst, .tag = tag, .bytes = 100,
                               .node_id = 100 + i, .on_done = sf_on_done,
                               .arg = (G_GUINT64_CONSTANT (9) << 32) | i, .on_match = on_met };
  sim_sched_at (sf.sched, t, post_now, NULL, i);
}

#define P(i) ((G_GUINT64_CONSTANT (9) << 32) | (i))

/* Two receives wait on channel (1, 2, 5); the sends that come later meet
 * them in order, each pair told when its second side is posted.  On
 * channel (1, 2, 6) the send comes first. */
START_TEST (test_p2p_pairs)
{
  post_at (0, FALSE, 1, 2, 5, 0);
  post_at (1, FALSE, 1, 2, 5, 0);
  post_at (2, TRUE, 1, 2, 5, NS (10));
  post_at (3, TRUE, 1, 2, 5, NS (20));
  post_at (4, TRUE, 1, 2, 6, 0);
  post_at (5, FALSE, 1, 2, 6, NS (5));
  sf_run_quiet ();
  ck_assert_uint_eq (met->len, 6);
  const guint64 pairs[][2] = { { 0, 2 }, { 2, 0 }, { 1, 3 }, { 3, 1 }, { 4, 5 }, { 5, 4 } };
  const SimTime when[] = { NS (10), NS (10), NS (20), NS (20), NS (5), NS (5) };
  for (guint k = 0; k < G_N_ELEMENTS (pairs); k++)
    {
      Met m = met_of (P (pairs[k][0]));
      ck_assert_uint_eq (m.peer, P (pairs[k][1]));
      ck_assert_uint_eq (m.t, when[k]);
    }
}
END_TEST

/* A send never matched is told nothing. */
START_TEST (test_p2p_unmatched)
{
  post_at (0, TRUE, 0, 3, 1, 0);
  sf_run_quiet ();
  ck_assert_uint_eq (met->len, 0);
}
END_TEST

/* ---------------------------------------------------------- collectives */

static void
join_now (SimSched *s, gpointer data, guint64 arg)
{
  (void) s;
  (void) data;
  guint32 tag = (guint32) (arg >> 32), rank = (guint32) arg;
  SysCollRequest req = sf_coll_req (SYS_COLL_ALL_REDUCE, 4096, SYS_GROUP_WORLD, tag, rank);
  req.on_last_joiner = on_met;
  GError *error = NULL;
  ck_assert_msg (sys_coll_join (sf.sys, rank, &req, &error), "join rank %u: %s", rank,
                 error ? error->message : "?");
}

static void
join_at (guint32 tag, guint32 rank, SimTime t)
{
  sim_sched_at (sf.sched, t, join_now, NULL, ((guint64) tag << 32) | rank);
}

#define C(tag, rank) (((guint64) (tag) << 32) | (rank))

/* Ranks join at 0, 30, 10 and 20 ns: every member's last joiner is rank 1,
 * told when that member is done.  On the next all-reduce rank 3 joins
 * last, and is its own last joiner too. */
START_TEST (test_coll_last_joiner)
{
  const SimTime at[2][4] = { { 0, NS (30), NS (10), NS (20) },
                             { NS (5000), NS (5001), NS (5002), NS (5003) } };
  for (guint32 tag = 1; tag <= 2; tag++)
    for (guint32 r = 0; r < 4; r++)
      join_at (tag, r, at[tag - 1][r]);
  sf_run_quiet ();
  ck_assert_uint_eq (met->len, 8);
  for (guint32 r = 0; r < 4; r++)
    {
      Met first = met_of (C (1, r)), second = met_of (C (2, r));
      ck_assert_uint_eq (first.peer, C (1, 1));
      ck_assert_uint_eq (second.peer, C (2, 3));
      ck_assert_uint_eq (first.t, sf_done_at (1, r));
      ck_assert_uint_eq (second.t, sf_done_at (2, r));
    }
}
END_TEST

/* In lockstep only rank 0 joins and stands for all: it is its own last
 * joiner. */
START_TEST (test_coll_lockstep)
{
  sys_set_lockstep (sf.sys, TRUE);
  join_at (7, 0, NS (3));
  sf_run_quiet ();
  ck_assert_uint_eq (met->len, 1);
  ck_assert_uint_eq (met_of (C (7, 0)).peer, C (7, 0));
}
END_TEST

/* --------------------------------------------------------------- main */

static void
add (Suite *s, const char *name, const TTest *test)
{
  tcase_add_test (tu_tcase (s, name, setup, teardown, 0), test);
}

int
main (void)
{
  Suite *s = suite_create ("peers");
  add (s, "p2p_pairs", test_p2p_pairs);
  add (s, "p2p_unmatched", test_p2p_unmatched);
  add (s, "coll_last_joiner", test_coll_last_joiner);
  add (s, "coll_lockstep", test_coll_lockstep);
  return tu_run_suite (s);
}
