/* test_net_span.c: messages between ranks that differ in several
 * dimensions, in the analytical link model (network/net_private.h,
 * NetSpan).
 *
 * Natively such a message crosses every dimension in which its ranks
 * differ, so it costs every one's hops x latency plus bytes / the narrowest
 * of their bandwidths, and holds its sender's egress port on the first and
 * its receiver's ingress port on the last; under ASTRA-sim compatibility
 * (NetSpec.innermost_route) it travels the innermost one only
 * (../shared/reference/ASTRA-SIM.md: "travels the first differing
 * dimension").  Expected times are worked by hand in each test, in ps.
 */
#include <check.h>
#include <string.h>

#include "support/sysfix.h"

/* Deliveries seen: the time of each, by arg (1-based). */
static SimTime arrived[8];

static void
setup (void)
{
  sf_setup ();
  memset (arrived, 0, sizeof arrived);
}

static void
on_delivered (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  ck_assert_uint_lt (arg, G_N_ELEMENTS (arrived));
  ck_assert_uint_eq (arrived[arg], 0);
  arrived[arg] = sim_sched_now (s);
}

/* The cluster the fuzzer found it on: 3 nodes of 2 GPUs, an NVSwitch
 * (450 GB/s, 500 ns a hop) inside a node, a 50 GB/s switched network (2 us
 * a hop) between them.  Rank r = (GPU r % 2, node r / 2). */
static void
build_3x2 (gboolean astra, gboolean share)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_SWITCH, 2, 450e9, 500000),
                        sf_dim (NET_DIM_SWITCH, 3, 50e9, 2000000) };
  NetSpec spec = sf_spec (dims, 2, NET_ROUND_PS);
  spec.innermost_route = astra;
  spec.share_ports = share;
  sf_build_net (&spec, FALSE);
}

/* 1 MB from rank 0 = (0, 0): to 1 = (1, 0) in its node, 1 us of hops +
 * ceil(10^18 / 450e9) = 2222223; to 2 = (0, 1), the same GPU of the next
 * node, 4 us + 10^18 / 50e9 = 20 us; to 3 = (1, 1), another GPU of the
 * next node, both: 1 us + 4 us + 20 us.  ASTRA-sim's rule prices 0 -> 3
 * as 0 -> 1. */
START_TEST (test_span_delay)
{
  const guint64 MB = 1000000;
  build_3x2 (FALSE, FALSE);
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, MB), 1000000 + 2222223);
  ck_assert_uint_eq (net_delay (sf.net, 0, 2, MB), 4000000 + 20000000);
  ck_assert_uint_eq (net_delay (sf.net, 0, 3, MB), 5000000 + 20000000);
  ck_assert_uint_eq (net_delay (sf.net, 5, 0, MB), 5000000 + 20000000); /* (1,2) -> (0,0) */
  sf_teardown ();
  sf_setup ();
  build_3x2 (TRUE, FALSE);
  ck_assert_uint_eq (net_delay (sf.net, 0, 3, MB), 1000000 + 2222223);
  ck_assert_uint_eq (net_delay (sf.net, 0, 2, MB), 4000000 + 20000000);
}
END_TEST

/* A ring dimension's hops count too: Ring 4 (100 GB/s, 100 ns) x Switch 2
 * (25 GB/s, 1 us); 0 -> 6 = (2, 1): 2 ring hops + 2 switch hops =
 * 2.2 us, + 1000 B / 25 GB/s = 40 ns.  Sent, it arrives then. */
START_TEST (test_span_ring_hops)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 4, 100e9, 100000),
                        sf_dim (NET_DIM_SWITCH, 2, 25e9, 1000000) };
  NetSpec spec = sf_spec (dims, 2, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  ck_assert_uint_eq (net_delay (sf.net, 0, 6, 1000), 2200000 + 40000);
  net_send (sf.net, 0, 0, 6, 1000, on_delivered, NULL, 1);
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (arrived[1], 2240000);
}
END_TEST

/* Shared ports, 1000 B each, sent at 0 in this order:
 *   1: 0 -> 3 holds rank 0's egress on dim 0 and rank 3's ingress on dim 1,
 *      each from 0 for 1000 B / 50 GB/s = 20 ns: arrives 5 us + 20 ns;
 *   2: 1 -> 3 (dim 1 only) finds rank 3's dim-1 ingress busy to 20 ns:
 *      4 us + 20 ns after that, 4.04 us;
 *   3: 0 -> 1 (dim 0 only) finds rank 0's dim-0 egress busy to 20 ns:
 *      1 us + ceil(10^15 / 450e9) = 2223 ps after that.
 * Under ASTRA-sim's rule message 1 is a dim-0 message (1 us + 2223 ps),
 * and 2 then waits for nothing (4.02 us). */
START_TEST (test_span_ports)
{
  for (guint astra = 0; astra < 2; astra++)
    {
      build_3x2 (astra, TRUE);
      net_send (sf.net, 0, 0, 3, 1000, on_delivered, NULL, 1);
      net_send (sf.net, 0, 1, 3, 1000, on_delivered, NULL, 2);
      net_send (sf.net, 0, 0, 1, 1000, on_delivered, NULL, 3);
      ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
      if (!astra)
        {
          ck_assert_uint_eq (arrived[1], 5020000);
          ck_assert_uint_eq (arrived[2], 20000 + 4020000);
          ck_assert_uint_eq (arrived[3], 20000 + 1002223);
        }
      else
        {
          ck_assert_uint_eq (arrived[1], 1002223);
          ck_assert_uint_eq (arrived[2], 4020000);
          ck_assert_uint_eq (arrived[3], 2223 + 1002223);
        }
      sf_teardown ();
      setup ();
    }
}
END_TEST

/* Symmetry classes compare routes: 0 -> 3 and 2 -> 5 = (0,1) -> (1,2) both
 * cross both dimensions the same way; 0 -> 3 and 0 -> 1 are alike only
 * under ASTRA-sim's rule, where both travel dimension 0 alone. */
START_TEST (test_span_routes_alike)
{
  build_3x2 (FALSE, FALSE);
  ck_assert (net_routes_alike (sf.net, 0, 3, 2, 5));
  ck_assert (!net_routes_alike (sf.net, 0, 3, 0, 1));
  ck_assert (!net_routes_alike (sf.net, 0, 3, 0, 2));
  /* Per-dimension topologies tell only prices apart (ports follow them). */
  ck_assert_int_eq (net_routes_differ (sf.net, 0, 3, 0, 1), NET_ROUTES_PRICED);
  ck_assert_int_eq (net_routes_differ (sf.net, 0, 3, 2, 5), NET_ROUTES_ALIKE);
  ck_assert_int_eq (net_routes_differ (sf.net, 0, 0, 0, 1), NET_ROUTES_PRICED);
  sf_teardown ();
  sf_setup ();
  build_3x2 (TRUE, FALSE);
  ck_assert (net_routes_alike (sf.net, 0, 3, 2, 5));
  ck_assert (net_routes_alike (sf.net, 0, 3, 0, 1));
  ck_assert (!net_routes_alike (sf.net, 0, 3, 0, 2));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("net_span");
  TCase *tc = tu_tcase (s, "span", setup, sf_teardown, 0);
  tcase_add_test (tc, test_span_delay);
  tcase_add_test (tc, test_span_ring_hops);
  tcase_add_test (tc, test_span_ports);
  tcase_add_test (tc, test_span_routes_alike);
  return tu_run_suite (s);
}
