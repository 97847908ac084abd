/* test_flow.c: the fluid flow model (link_flow.c): max-min fair sharing,
 * bandwidth freed by finishing flows, late starters.
 *
 * Links of 1 GB/s (1 byte per ns) and 100 ns latency.  On a Switch of 4 a
 * flow from r_i to r_j uses r_i's up link and r_j's down link and arrives
 * 200 ns after its last byte left.  Every expected time is worked by hand
 * from max-min fairness (progressive filling) in the comments.
 */
#include <check.h>

#include "support/sysfix.h"
#include "support/testutil.h"

#define NS(x) ((SimTime) (x) * 1000)

static const SimTime LAT = NS (100);

static void
build_1d (NetDimKind kind, guint32 size)
{
  NetDimSpec d = sf_dim (kind, size, 1e9, LAT);
  NetSpec spec = sf_spec (&d, 1, NET_ROUND_PS);
  spec.model = NET_MODEL_FLOW;
  sf_build_net (&spec, FALSE);
  ck_assert_str_eq (net_model_name (sf.net), "flow");
}

static void
send (guint32 i, guint32 src, guint32 dst, guint64 bytes, SimTime at)
{
  net_send (sf.net, at, src, dst, bytes, sf_on_done, NULL, i);
}

static void
run (void)
{
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
}

/* n = 3 flows of 3000 bytes into r0 share its down link: B/3 each, so all
 * three take 3000 / (1/3 byte per ns) = 9 us and arrive together. */
START_TEST (test_incast_shares_equally)
{
  build_1d (NET_DIM_SWITCH, 4);
  for (guint32 r = 1; r < 4; r++)
    send (r, r, 0, 3000, 0);
  run ();
  for (guint32 r = 1; r < 4; r++)
    ck_assert_uint_eq (sf_done_at (0, r), NS (9000) + 2 * LAT);
  NetLinkStats st;
  net_link_stats (sf.net, 1, &st); /* r0's down link */
  ck_assert_str_eq (st.to, "r0");
  ck_assert_uint_eq (st.bytes, 9000);
  ck_assert_uint_eq (st.peak_queue, 3);
  ck_assert_uint_eq (st.busy, NS (9000));
}
END_TEST

/* f1..f3 (3000 B) into r0, and f4 (8000 B) from r1 to r2, sharing r1's up
 * link with f1 and alone on r2's down link.  Filling: r0's down link has
 * the smallest share, B/3, and freezes f1..f3; r1's up link then has
 * B - B/3 = 2B/3 left for f4 alone.  At 9 us f1..f3 end (arriving at
 * 9.2 us); f4 has sent 9 us x 2/3 B/ns = 6000 B and now gets the whole
 * link: its last 2000 B take 2 us, so it arrives at 11 us + 200 ns. */
START_TEST (test_max_min_and_freed_bandwidth)
{
  build_1d (NET_DIM_SWITCH, 4);
  for (guint32 r = 1; r < 4; r++)
    send (r, r, 0, 3000, 0);
  send (4, 1, 2, 8000, 0);
  run ();
  for (guint32 r = 1; r < 4; r++)
    ck_assert_uint_eq (sf_done_at (0, r), NS (9000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 4), NS (11000) + 2 * LAT);
}
END_TEST

/* Two flows of 1000 and 2000 B into r0: B/2 each until the small one ends
 * at 2 us; the big one's last 1000 B then take 1 us: 3 us. */
START_TEST (test_finish_frees)
{
  build_1d (NET_DIM_SWITCH, 4);
  send (0, 1, 0, 1000, 0);
  send (1, 2, 0, 2000, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), NS (2000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 1), NS (3000) + 2 * LAT);
}
END_TEST

/* A flow alone for 1 us (1000 of its 2000 B sent), then a second one of
 * 2000 B joins (leaving at 1 us): B/2 each; the first ends 2 us later (at
 * 3 us), the second has 1000 B left and takes 1 more us: 4 us. */
START_TEST (test_late_starter)
{
  build_1d (NET_DIM_SWITCH, 4);
  send (0, 1, 0, 2000, 0);
  send (1, 2, 0, 2000, NS (1000));
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), NS (3000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 1), NS (4000) + 2 * LAT);
}
END_TEST

/* Two hops on a ring, uncontended: 1000 B at full rate, then the route's
 * two latencies; an empty message takes only the latencies. */
START_TEST (test_ring_route_latency)
{
  build_1d (NET_DIM_RING, 8);
  send (0, 0, 2, 1000, 0);
  send (1, 0, 6, 0, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), NS (1000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 1), 2 * LAT);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("flow");
  const struct
  {
    const char *name;
    const TTest *test;
  } tests[] = {
    { "incast_shares_equally", test_incast_shares_equally },
    { "max_min_and_freed_bandwidth", test_max_min_and_freed_bandwidth },
    { "finish_frees", test_finish_frees },
    { "late_starter", test_late_starter },
    { "ring_route_latency", test_ring_route_latency },
  };
  for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
    tcase_add_test (tu_tcase (s, tests[i].name, sf_setup, sf_teardown, 0), tests[i].test);
  return tu_run_suite (s);
}
