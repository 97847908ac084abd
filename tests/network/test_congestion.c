/* test_congestion.c: the store-and-forward link model (link_congestion.c).
 *
 * Links of 1 GB/s (1 byte per ns, so a message of b bytes is busy on a link
 * for b ns) and 100 ns latency: a hop takes 100 + b ns from the moment the
 * message gets the link.  Expected delivery times are worked out by hand
 * from the model's rules: routes, FIFO links, store-and-forward switches.
 */
#include <check.h>

#include "support/sysfix.h"
#include "support/testutil.h"

#define NS(x) ((SimTime) (x) * 1000)

static const SimTime LAT = NS (100);

static void
build (const NetDimSpec *dims, guint n, NetRounding rounding)
{
  NetSpec spec = sf_spec (dims, n, rounding);
  spec.model = NET_MODEL_CONGESTION;
  sf_build_net (&spec, FALSE);
  ck_assert_str_eq (net_model_name (sf.net), "congestion");
}

static void
build_1d (NetDimKind kind, guint32 size)
{
  NetDimSpec d = sf_dim (kind, size, 1e9, LAT);
  build (&d, 1, NET_ROUND_PS);
}

/* Message i of tag 0 from src to dst, leaving at `at`. */
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

/* Two messages on one link at once: the second waits for the first's
 * serialization (FIFO), a message on another link does not. */
START_TEST (test_fifo_link)
{
  build_1d (NET_DIM_RING, 4);
  send (0, 0, 1, 1000, 0);
  send (1, 0, 1, 500, 0);
  send (2, 1, 2, 1000, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), LAT + NS (1000));
  ck_assert_uint_eq (sf_done_at (0, 1), NS (1000) + LAT + NS (500));
  ck_assert_uint_eq (sf_done_at (0, 2), LAT + NS (1000));
}
END_TEST

/* Incast through a switch: three senders reach the switch together over
 * their own up links (100 + 1000 ns), then share rank 0's down link. */
START_TEST (test_switch_incast)
{
  build_1d (NET_DIM_SWITCH, 4);
  for (guint32 r = 1; r < 4; r++)
    send (r, r, 0, 1000, 0);
  run ();
  SimTime hop = LAT + NS (1000);
  ck_assert_uint_eq (sf_done_at (0, 1), 2 * hop);
  ck_assert_uint_eq (sf_done_at (0, 2), 2 * hop + NS (1000));
  ck_assert_uint_eq (sf_done_at (0, 3), 2 * hop + NS (2000));
  /* Link 1 is rank 0's down link: three messages, two of which waited
   * behind the first at once. */
  ck_assert_uint_eq (net_links (sf.net), 8);
  NetLinkStats st;
  net_link_stats (sf.net, 1, &st);
  ck_assert_str_eq (st.from, "sw0.0");
  ck_assert_str_eq (st.to, "r0");
  ck_assert_uint_eq (st.messages, 3);
  ck_assert_uint_eq (st.bytes, 3000);
  ck_assert_uint_eq (st.busy, NS (3000));
  ck_assert_uint_eq (st.peak_queue, 2);
  net_link_stats (sf.net, 2, &st);
  ck_assert_str_eq (st.from, "r1");
  ck_assert_str_eq (st.to, "sw0.0");
  ck_assert_uint_eq (st.peak_queue, 0);
}
END_TEST

/* Store and forward on a ring: 0 -> 2 is two hops clockwise, 0 -> 6 two
 * hops the other way, 0 -> 4 on a ring of 8 goes clockwise (a tie); the
 * first leg of 0 -> 4 shares the link 0 -> 1 with 0 -> 2 and waits. */
START_TEST (test_ring_routes)
{
  build_1d (NET_DIM_RING, 8);
  SimTime hop = LAT + NS (200);
  send (0, 0, 2, 200, 0);
  send (1, 0, 6, 200, 0);
  send (2, 0, 4, 200, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), 2 * hop);
  ck_assert_uint_eq (sf_done_at (0, 1), 2 * hop);
  /* 0 -> 1 from 200 ns (after message 0), then 1 -> 2 waits for message 0's
   * second leg, which holds it from 300 to 500 ns: it gets it at 500. */
  SimTime at1 = NS (200) + hop;
  ck_assert_uint_eq (at1, NS (500));
  SimTime at2 = MAX (at1, hop + NS (200)) + hop;
  ck_assert_uint_eq (sf_done_at (0, 2), at2 + 2 * hop);
}
END_TEST

/* Dimension-order routing on Ring 4 x Switch 2: 0 -> 5 = (1, 1) takes the
 * ring hop to rank 1, then up and down rank 1's switch. */
START_TEST (test_two_dimensions)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 4, 1e9, LAT), sf_dim (NET_DIM_SWITCH, 2, 2e9, NS (50)) };
  build (dims, 2, NET_ROUND_PS);
  send (0, 0, 5, 1000, 0);
  send (1, 2, 6, 1000, 0); /* dimension 1 only */
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), LAT + NS (1000) + 2 * (NS (50) + NS (500)));
  ck_assert_uint_eq (sf_done_at (0, 1), 2 * (NS (50) + NS (500)));
}
END_TEST

/* A message that leaves later takes its link only then: a send at 2 us
 * queues behind nothing; one scheduled at 0 on the same link behind a 1 us
 * message waits. FullyConnected links are per pair. */
START_TEST (test_send_ahead_and_full_mesh)
{
  build_1d (NET_DIM_FULLY_CONNECTED, 4);
  send (0, 0, 3, 1000, 0);
  send (1, 0, 3, 100, NS (2000));
  send (2, 0, 2, 100, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), LAT + NS (1000));
  ck_assert_uint_eq (sf_done_at (0, 1), NS (2000) + LAT + NS (100));
  ck_assert_uint_eq (sf_done_at (0, 2), LAT + NS (100));
}
END_TEST

/* ASTRA-sim's arithmetic: 16384 bytes at 50 GiB/s (305.17 ns) and 500 ns:
 * a hop arrives after floor(500 + 305.17) = 805 ns and frees its link after
 * floor(305.17) = 305 ns; through a switch 2 x 805. */
START_TEST (test_astra_rounding)
{
  NetDimSpec d = sf_dim (NET_DIM_SWITCH, 4, 50.0 * 1073741824.0, NS (500));
  build (&d, 1, NET_ROUND_NS_TRUNCATED);
  send (0, 1, 0, 16384, 0);
  send (1, 2, 0, 16384, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), NS (1610));
  ck_assert_uint_eq (sf_done_at (0, 1), NS (805 + 305 + 805));
}
END_TEST

/* Packets of 500 bytes pipeline through the switch: a 2000-byte message
 * from r1 to r0 is 4 packets; packet i gets r1's up link at 500i ns, reaches
 * the switch at 500i + 600 and r0 at 500i + 1200 (the down link is free by
 * then), so the message is in at 2700 ns, where whole it takes 2 x 2100. */
START_TEST (test_packets)
{
  NetDimSpec d = sf_dim (NET_DIM_SWITCH, 4, 1e9, LAT);
  NetSpec spec = sf_spec (&d, 1, NET_ROUND_PS);
  spec.model = NET_MODEL_CONGESTION;
  spec.packet_bytes = 500;
  sf_build_net (&spec, FALSE);
  send (0, 1, 0, 2000, 0);
  send (1, 2, 3, 300, 0); /* shorter than a packet: whole */
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), NS (2700));
  ck_assert_uint_eq (sf_done_at (0, 1), 2 * (LAT + NS (300)));
  NetLinkStats st;
  net_link_stats (sf.net, 1, &st); /* r0's down link */
  ck_assert_uint_eq (st.messages, 4);
  ck_assert_uint_eq (st.bytes, 2000);
}
END_TEST

/* Many messages in flight reuse the pool: 1000 sends around a ring, all
 * delivered once. */
START_TEST (test_many_messages)
{
  build_1d (NET_DIM_RING, 16);
  for (guint32 i = 0; i < 1000; i++)
    send (i, i % 16, (i * 7 + 3) % 16 == i % 16 ? (i + 1) % 16 : (i * 7 + 3) % 16, 64, NS (i % 50));
  run ();
  ck_assert_uint_eq (sf.done->len, 1000);
  ck_assert_uint_eq (net_messages (sf.net), 1000);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("congestion");
  const struct
  {
    const char *name;
    const TTest *test;
  } tests[] = {
    { "fifo_link", test_fifo_link },
    { "switch_incast", test_switch_incast },
    { "ring_routes", test_ring_routes },
    { "two_dimensions", test_two_dimensions },
    { "send_ahead_and_full_mesh", test_send_ahead_and_full_mesh },
    { "astra_rounding", test_astra_rounding },
    { "many_messages", test_many_messages },
    { "packets", test_packets },
  };
  for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
    tcase_add_test (tu_tcase (s, tests[i].name, sf_setup, sf_teardown, 0), tests[i].test);
  return tu_run_suite (s);
}
