/* test_net.c: the topology (coordinates, routes, hop counts, validation) and
 * the network front end with its analytical link model.
 *
 * Expected values are closed forms written here: coordinates from
 * (r / stride) % size, hop counts from the shorter way around a ring, delays
 * from hops x latency + ceil(bytes x 10^12 / bandwidth) ps, and ASTRA-sim's
 * floor(h a + m / B) ns with B = GB/s x 2^30 / 10^9 bytes per ns
 * (../shared/reference/ASTRA-SIM.md).  Each test builds its own scheduler,
 * topology and network in a fresh fixture.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "network/topo.h"
#include "sim/error.h"
#include "support/sysfix.h"

#define GIB (G_GUINT64_CONSTANT (1) << 30)
#define MIB (G_GUINT64_CONSTANT (1) << 20)

/* Deliveries seen by the callback: (time, arg) in the order they ran. */
typedef struct
{
  SimTime t;
  guint64 arg;
} Delivery;
static GArray *deliveries;

/* ------------------------------------------------------------ fixture */

/* The shared fixture (support/sysfix.h) provides sf.sched, and sf.topo and
 * sf.net once a test builds them. */
static void
setup (void)
{
  sf_setup ();
  deliveries = g_array_new (FALSE, FALSE, sizeof (Delivery));
}

static void
teardown (void)
{
  sf_teardown ();
  g_clear_pointer (&deliveries, g_array_unref);
}

/* ------------------------------------------------------------ helpers */

/* The spec must be rejected with an input error whose message holds `needle`. */
static void
assert_topo_rejected (const NetSpec *spec, const char *needle)
{
  GError *error = NULL;
  NetTopo *t = net_topo_new (spec, &error);
  ck_assert_ptr_null (t);
  tu_assert_input_error (error, needle);
  g_error_free (error);
}

static void
on_delivered (SimSched *s, gpointer data, guint64 arg)
{
  ck_assert_ptr_eq (data, deliveries);
  Delivery d = { sim_sched_now (s), arg };
  g_array_append_val (deliveries, d);
}

/* ------------------------------------------------------------ topology */

START_TEST (test_coords_and_strides)
{
  /* 2 x 3 x 4: strides 1, 2, 6; rank 23 = (1, 2, 3); rank 17 = 1 + 2*2 + 6*2. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 2, 1e9, 1000), sf_dim (NET_DIM_SWITCH, 3, 1e9, 1000),
                        sf_dim (NET_DIM_FULLY_CONNECTED, 4, 1e9, 1000) };
  NetSpec spec = sf_spec (dims, 3, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  ck_assert_uint_eq (net_topo_ranks (sf.topo), 24);
  ck_assert_uint_eq (net_topo_dims (sf.topo), 3);
  ck_assert_uint_eq (net_topo_dim_size (sf.topo, 0), 2);
  ck_assert_uint_eq (net_topo_dim_size (sf.topo, 1), 3);
  ck_assert_uint_eq (net_topo_dim_size (sf.topo, 2), 4);
  ck_assert_uint_eq (net_topo_stride (sf.topo, 0), 1);
  ck_assert_uint_eq (net_topo_stride (sf.topo, 1), 2);
  ck_assert_uint_eq (net_topo_stride (sf.topo, 2), 6);
  ck_assert_uint_eq (net_topo_coord (sf.topo, 23, 0), 1);
  ck_assert_uint_eq (net_topo_coord (sf.topo, 23, 1), 2);
  ck_assert_uint_eq (net_topo_coord (sf.topo, 23, 2), 3);
  ck_assert_uint_eq (net_topo_coord (sf.topo, 17, 0), 1);
  ck_assert_uint_eq (net_topo_coord (sf.topo, 17, 1), 2);
  ck_assert_uint_eq (net_topo_coord (sf.topo, 17, 2), 2);
  /* Every rank is the mixed-radix number of its coordinates. */
  for (guint32 r = 0; r < 24; r++)
    ck_assert_uint_eq (net_topo_coord (sf.topo, r, 0) + 2 * net_topo_coord (sf.topo, r, 1)
                         + 6 * net_topo_coord (sf.topo, r, 2),
                       r);
  ck_assert_ptr_eq (net_topo (sf.net), sf.topo);
  ck_assert_ptr_eq (net_sched (sf.net), sf.sched);
  ck_assert_str_eq (net_model_name (sf.net), "analytical");
  /* The spec is copied. */
  spec.dims[0].size = 99;
  ck_assert_uint_eq (net_topo_spec (sf.topo)->dims[0].size, 2);
  ck_assert_uint_eq (net_topo_spec (sf.topo)->dims[2].kind, NET_DIM_FULLY_CONNECTED);
}
END_TEST

START_TEST (test_route_dim)
{
  /* 4 x 4 x 2 (strides 1, 4, 16): the innermost differing dimension wins. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 4, 1e9, 1000), sf_dim (NET_DIM_RING, 4, 1e9, 1000),
                        sf_dim (NET_DIM_RING, 2, 1e9, 1000) };
  NetSpec spec = sf_spec (dims, 3, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 0, 1), 0);
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 0, 4), 1);
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 0, 16), 2);
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 0, 5), 0);  /* (0,0,0) -> (1,1,0) */
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 0, 21), 0); /* (0,0,0) -> (1,1,1) */
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 1, 21), 1); /* (1,0,0) -> (1,1,1) */
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 5, 21), 2); /* (1,1,0) -> (1,1,1) */
  ck_assert_uint_eq (net_topo_route_dim (sf.topo, 31, 3), 1); /* (3,3,1) -> (3,0,0) */
  /* Hops are counted on that dimension only: (0,0,0) -> (2,3,1) is 2 hops
   * around dimension 0's ring, whatever the other coordinates. */
  ck_assert_uint_eq (net_topo_hops (sf.topo, 0, 2 + 3 * 4 + 16), 2);
  ck_assert_uint_eq (net_topo_hops (sf.topo, 0, 3 * 4 + 16), 1); /* dim 1: 0 -> 3 of 4 */
}
END_TEST

/* A caller that names the dimension two ranks differ in gets the route the
 * search finds: (0,0,0) -> (3,0,0) is 1 hop the short way round dimension
 * 0's ring of 4, (0,1,0) -> (0,3,0) 2 hops on dimension 1, and every pair
 * differing in one coordinate agrees with net_topo_route. */
START_TEST (test_route_on_named_dim)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 4, 1e9, 1000), sf_dim (NET_DIM_RING, 4, 1e9, 1000),
                        sf_dim (NET_DIM_SWITCH, 2, 1e9, 1000) };
  NetSpec spec = sf_spec (dims, 3, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  guint32 hops = 0;
  ck_assert_uint_eq (net_topo_route_on (sf.topo, 0, 0, 3, &hops), 0);
  ck_assert_uint_eq (hops, 1);
  ck_assert_uint_eq (net_topo_route_on (sf.topo, 1, 4, 12, &hops), 1);
  ck_assert_uint_eq (hops, 2);
  ck_assert_uint_eq (net_topo_route_on (sf.topo, 2, 5, 21, &hops), 2);
  ck_assert_uint_eq (hops, 2); /* a switch: up and down */
  /* (0,0,0) -> (1,1,0) differs in two coordinates: only the search knows. */
  ck_assert_uint_eq (net_topo_route_on (sf.topo, NET_DIM_UNKNOWN, 0, 5, &hops), 0);
  ck_assert_uint_eq (hops, 1);
  for (guint32 a = 0; a < 32; a++)
    for (guint d = 0; d < 3; d++)
      for (guint32 c = 0; c < net_topo_dim_size (sf.topo, d); c++)
        {
          guint32 b = a + (c - net_topo_coord (sf.topo, a, d)) * net_topo_stride (sf.topo, d);
          if (b == a)
            continue;
          guint32 want_hops = 0, got_hops = 0;
          guint want = net_topo_route (sf.topo, a, b, &want_hops);
          ck_assert_uint_eq (net_topo_route_on (sf.topo, d, a, b, &got_hops), want);
          ck_assert_uint_eq (got_hops, want_hops);
        }
}
END_TEST

/* Ring hop counts against min(|a-b|, n-|a-b|), for even and odd sizes. */
START_TEST (test_hops_ring)
{
  const guint32 sizes[] = { 2, 3, 7, 8 };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      guint32 n = sizes[i];
      NetDimSpec dims[] = { sf_dim (NET_DIM_RING, n, 1e9, 1000) };
      NetSpec spec = sf_spec (dims, 1, NET_ROUND_PS);
      g_autoptr (NetTopo) t = net_topo_new (&spec, NULL);
      ck_assert_ptr_nonnull (t);
      for (guint32 a = 0; a < n; a++)
        for (guint32 b = 0; b < n; b++)
          if (a != b)
            {
              guint32 diff = a > b ? a - b : b - a;
              guint32 expect = MIN (diff, n - diff);
              ck_assert_msg (net_topo_hops (t, a, b) == expect, "ring %u: %u -> %u: %u hops, want %u",
                             n, a, b, net_topo_hops (t, a, b), expect);
            }
    }
  /* Spelled out: the far side of an even ring is n/2 either way; an odd
   * ring has two far sides at (n-1)/2. */
  NetDimSpec d8[] = { sf_dim (NET_DIM_RING, 8, 1e9, 1000) };
  NetSpec s8 = sf_spec (d8, 1, NET_ROUND_PS);
  g_autoptr (NetTopo) t8 = net_topo_new (&s8, NULL);
  ck_assert_uint_eq (net_topo_hops (t8, 0, 4), 4);
  ck_assert_uint_eq (net_topo_hops (t8, 4, 0), 4);
  ck_assert_uint_eq (net_topo_hops (t8, 0, 5), 3);
  ck_assert_uint_eq (net_topo_hops (t8, 1, 7), 2);
  ck_assert_uint_eq (net_topo_hops (t8, 7, 0), 1);
  NetDimSpec d7[] = { sf_dim (NET_DIM_RING, 7, 1e9, 1000) };
  NetSpec s7 = sf_spec (d7, 1, NET_ROUND_PS);
  g_autoptr (NetTopo) t7 = net_topo_new (&s7, NULL);
  ck_assert_uint_eq (net_topo_hops (t7, 0, 3), 3);
  ck_assert_uint_eq (net_topo_hops (t7, 0, 4), 3);
  ck_assert_uint_eq (net_topo_hops (t7, 6, 0), 1);
  ck_assert_uint_eq (net_topo_hops (t7, 2, 6), 3);
}
END_TEST

START_TEST (test_hops_fc_switch)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_FULLY_CONNECTED, 5, 1e9, 1000),
                        sf_dim (NET_DIM_SWITCH, 6, 1e9, 1000) };
  NetSpec spec = sf_spec (dims, 2, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  for (guint32 a = 0; a < 30; a++)
    for (guint32 b = 0; b < 30; b++)
      if (a != b)
        {
          /* FullyConnected when they differ in dimension 0, else Switch. */
          guint32 expect = (a % 5 != b % 5) ? 1 : 2;
          ck_assert_uint_eq (net_topo_hops (sf.topo, a, b), expect);
        }
}
END_TEST

START_TEST (test_topo_errors)
{
  NetDimSpec ok = sf_dim (NET_DIM_RING, 4, 1e9, 1000);
  NetSpec spec = sf_spec (&ok, 1, NET_ROUND_PS);
  spec.n_dims = 0;
  assert_topo_rejected (&spec, "0 dimensions");
  spec.n_dims = NET_MAX_DIMS + 1;
  assert_topo_rejected (&spec, "dimensions");

  NetDimSpec zero[] = { ok, sf_dim (NET_DIM_RING, 0, 1e9, 1000) };
  NetSpec s0 = sf_spec (zero, 2, NET_ROUND_PS);
  assert_topo_rejected (&s0, "dimension 1 has size 0");

  const double bad_bw[] = { 0.0, -1.0, -1e9, NAN, INFINITY };
  for (guint i = 0; i < G_N_ELEMENTS (bad_bw); i++)
    {
      NetDimSpec bw[] = { sf_dim (NET_DIM_SWITCH, 2, bad_bw[i], 1000) };
      NetSpec sb = sf_spec (bw, 1, NET_ROUND_PS);
      assert_topo_rejected (&sb, "bandwidth");
    }

  /* 65536 x 65536 = 2^32 ranks overflows 32 bits. */
  NetDimSpec big[] = { sf_dim (NET_DIM_RING, 65536, 1e9, 1000),
                       sf_dim (NET_DIM_RING, 65536, 1e9, 1000) };
  NetSpec sbig = sf_spec (big, 2, NET_ROUND_PS);
  assert_topo_rejected (&sbig, "ranks");
  /* Eight dimensions of 2^31 - 1 would overflow even 64 bits if the product
   * were taken before checking. */
  NetDimSpec huge[NET_MAX_DIMS];
  for (guint d = 0; d < NET_MAX_DIMS; d++)
    huge[d] = sf_dim (NET_DIM_RING, G_MAXINT32, 1e9, 1000);
  NetSpec shuge = sf_spec (huge, NET_MAX_DIMS, NET_ROUND_PS);
  assert_topo_rejected (&shuge, "ranks");

  /* Size-1 dimensions are fine and contribute nothing. */
  NetDimSpec ones[] = { sf_dim (NET_DIM_RING, 1, 1e9, 1000),
                        sf_dim (NET_DIM_SWITCH, 3, 1e9, 1000) };
  NetSpec s1 = sf_spec (ones, 2, NET_ROUND_PS);
  g_autoptr (NetTopo) t1 = net_topo_new (&s1, NULL);
  ck_assert_ptr_nonnull (t1);
  ck_assert_uint_eq (net_topo_ranks (t1), 3);
  ck_assert_uint_eq (net_topo_route_dim (t1, 0, 2), 1);
  ck_assert_uint_eq (net_topo_hops (t1, 0, 2), 2);

  /* An unknown link model. */
  NetSpec sm = sf_spec (&ok, 1, NET_ROUND_PS);
  sm.model = (NetModelKind) 7;
  g_autoptr (NetTopo) tm = net_topo_new (&sm, NULL);
  ck_assert_ptr_nonnull (tm);
  GError *error = NULL;
  ck_assert_ptr_null (net_new (sf.sched, tm, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_int_eq (error->code, SIM_ERROR_INPUT);
  ck_assert_ptr_nonnull (strstr (error->message, "model"));
  g_error_free (error);
}
END_TEST

START_TEST (test_dim_kind_names)
{
  ck_assert_str_eq (net_dim_kind_name (NET_DIM_RING), "Ring");
  ck_assert_str_eq (net_dim_kind_name (NET_DIM_FULLY_CONNECTED), "FullyConnected");
  ck_assert_str_eq (net_dim_kind_name (NET_DIM_SWITCH), "Switch");
  NetDimKind k = NET_DIM_RING;
  ck_assert (net_dim_kind_parse ("switch", &k));
  ck_assert_int_eq (k, NET_DIM_SWITCH);
  ck_assert (net_dim_kind_parse ("FULLYCONNECTED", &k));
  ck_assert_int_eq (k, NET_DIM_FULLY_CONNECTED);
  ck_assert (net_dim_kind_parse ("Ring", &k));
  ck_assert_int_eq (k, NET_DIM_RING);
  ck_assert (!net_dim_kind_parse ("Torus", &k));
  ck_assert_int_eq (k, NET_DIM_RING); /* untouched */
}
END_TEST

/* ------------------------------------------------------- serialization */

START_TEST (test_serialization_exact)
{
  /* 1 MiB at 50 GiB/s: 2^20 x 10^12 / (50 x 2^30) = 10^12 / 51200 = 19531250 ps exactly. */
  ck_assert_uint_eq (net_serialization_ps (MIB, 50.0 * GIB), G_GUINT64_CONSTANT (19531250));
  /* 1 MiB + 1 byte: 19531250 + 10^12 / (50 x 2^30) = 19531250 + 18.626... -> 19531269. */
  ck_assert_uint_eq (net_serialization_ps (MIB + 1, 50.0 * GIB), G_GUINT64_CONSTANT (19531269));
  /* 1 byte at 3 GB/s: 333.33 ps -> 334; 3 bytes: exactly 1000 ps. */
  ck_assert_uint_eq (net_serialization_ps (1, 3e9), 334);
  ck_assert_uint_eq (net_serialization_ps (3, 3e9), 1000);
  /* 10 bytes at 1 TB/s is exactly 10 ps: no spurious rounding up. */
  ck_assert_uint_eq (net_serialization_ps (10, 1e12), 10);
  ck_assert_uint_eq (net_serialization_ps (0, 1e9), 0);
  /* 2^40 bytes at 1 GB/s: the numerator 2^40 x 10^12 needs more than 64 bits. */
  ck_assert_uint_eq (net_serialization_ps (G_GUINT64_CONSTANT (1) << 40, 1e9),
                     G_GUINT64_CONSTANT (1099511627776000));
  /* 2^30 bytes at 1 B/s is 1.07e21 ps, past 2^64: saturates. */
  ck_assert_uint_eq (net_serialization_ps (G_GUINT64_CONSTANT (1) << 30, 1.0), SIM_TIME_MAX);
  /* Against the 128-bit long division for a spread of sizes and bandwidths. */
  const guint64 bws[] = { 1, 7, 3000000001ull, 50 * GIB, 12500000000ull, 900000000000ull };
  const guint64 sizes[] = { 1, 2, 999, 4096, 1000003, 1ull << 33 };
  for (guint i = 0; i < G_N_ELEMENTS (bws); i++)
    for (guint j = 0; j < G_N_ELEMENTS (sizes); j++)
      {
        unsigned __int128 want = ((unsigned __int128) sizes[j] * 1000000000000ull + bws[i] - 1)
                                 / bws[i];
        SimTime expect = want > SIM_TIME_MAX ? SIM_TIME_MAX : (SimTime) want;
        ck_assert_msg (net_serialization_ps (sizes[j], (double) bws[i]) == expect,
                       "%" G_GUINT64_FORMAT " B at %" G_GUINT64_FORMAT " B/s", sizes[j], bws[i]);
      }
}
END_TEST

START_TEST (test_serialization_fractional_bw)
{
  /* 1000 bytes at 10^9 + 0.5 B/s: 10^15 / (10^9 + 0.5) = 999999.50000025 ps -> 1000000. */
  ck_assert_uint_eq (net_serialization_ps (1000, 1e9 + 0.5), 1000000);
  /* 1 byte at 0.75 B/s: 1.333e12 ps -> ceil = 1333333333334. */
  ck_assert_uint_eq (net_serialization_ps (1, 0.75), G_GUINT64_CONSTANT (1333333333334));
  /* 4096 bytes at 2.5 GB/s + 0.25: 1638399.99983616 ps -> 1638400. */
  ck_assert_uint_eq (net_serialization_ps (4096, 2.5e9 + 0.25), 1638400);
}
END_TEST

/* ---------------------------------------------------------------- delay */

START_TEST (test_delay_ps)
{
  /* Dim 0: Ring of 8, 3 GB/s, 250 ns; dim 1: Switch of 2, 50 GiB/s, 1.5 us. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 8, 3e9, 250000),
                        sf_dim (NET_DIM_SWITCH, 2, 50.0 * GIB, 1500000) };
  NetSpec spec = sf_spec (dims, 2, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  /* 0 -> 3: 3 hops on the ring: 750000 + ceil(1000 x 10^12 / 3e9) = 750000 + 333334. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 3, 1000), 750000 + 333334);
  ck_assert_uint_eq (net_delay (sf.net, 0, 3, 1000), 3 * 250000 + sf_ser_ps (1000, 3000000000ull));
  /* 0 -> 7: 1 hop the short way. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 7, 3), 250000 + 1000);
  /* 0 -> 8: the switch, 2 hops: 3000000 + 19531250 for 1 MiB. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 8, MIB), 3000000 + 19531250);
  /* 0 -> 12 = (4, 1) differs in both: 4 ring hops and the switch's 2
   * (test_net_span.c has the rest). */
  ck_assert_uint_eq (net_delay (sf.net, 0, 12, 0), 4 * 250000 + 2 * 1500000);
  ck_assert_uint_eq (net_delay (sf.net, 5, 13, 1), 3000000 + sf_ser_ps (1, 50 * GIB));
}
END_TEST

START_TEST (test_delay_astra)
{
  /* ASTRA: floor(h a + m / B) ns, B = 50 x 2^30 / 10^9 = 53.687091 B/ns. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 4, 50.0 * GIB, 500000),
                        sf_dim (NET_DIM_SWITCH, 4, 50.0 * GIB, 500000),
                        sf_dim (NET_DIM_FULLY_CONNECTED, 4, 50.0 * GIB, 500000) };
  NetSpec spec = sf_spec (dims, 3, NET_ROUND_NS_TRUNCATED);
  sf_build_net (&spec, FALSE);
  /* 16384 B: m / B = 16384 x 10^9 / (50 x 2^30) = 305.17578125 ns. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, 16384), sim_time_from_ns (805));  /* 500 + 305.18 */
  ck_assert_uint_eq (net_delay (sf.net, 0, 4, 16384), sim_time_from_ns (1305)); /* 1000 + 305.18 */
  ck_assert_uint_eq (net_delay (sf.net, 0, 16, 16384), sim_time_from_ns (805));
  ck_assert_uint_eq (net_delay (sf.net, 0, 2, 16384), sim_time_from_ns (1305)); /* 2 ring hops */
  /* 1 MiB: 19531.25 ns -> 20031 (1 hop); 65536: 1220.703125 -> 1720. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, MIB), sim_time_from_ns (20031));
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, 65536), sim_time_from_ns (1720));
  /* Zero bytes: exactly the latency. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 8, 0), sim_time_from_ns (1000));
  /* A result below one ns more than the latency is truncated away. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, 53), sim_time_from_ns (500)); /* 0.987 ns */
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, 54), sim_time_from_ns (501)); /* 1.006 ns */
}
END_TEST

START_TEST (test_delay_astra_fractional_latency)
{
  /* A latency of 936.25 ns: 1 hop + 0 bytes = 936.25 -> 936; 2 hops: 1872.5 -> 1872. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_SWITCH, 2, 1e9, 936250) };
  NetSpec spec = sf_spec (dims, 1, NET_ROUND_NS_TRUNCATED);
  sf_build_net (&spec, FALSE);
  ck_assert_uint_eq (net_delay (sf.net, 0, 1, 0), sim_time_from_ns (1872));
  /* + 100 bytes at 1 B/ns = 1972.5 -> 1972. */
  ck_assert_uint_eq (net_delay (sf.net, 1, 0, 100), sim_time_from_ns (1972));
}
END_TEST

/* ---------------------------------------------------------------- send */

START_TEST (test_send_schedules_delivery)
{
  /* Ring of 8, 1 GB/s (1000 ps per byte), 100 ns per hop. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 8, 1e9, 100000) };
  NetSpec spec = sf_spec (dims, 1, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  /* Leaving at 5 us, 1 hop, 2000 bytes: 5000000 + 100000 + 2000000. */
  net_send (sf.net, sim_time_from_us (5), 0, 1, 2000, on_delivered, deliveries, 1);
  /* Leaving now, 4 hops, 1 byte: 400000 + 1000. */
  net_send (sf.net, 0, 3, 7, 1, on_delivered, deliveries, 2);
  ck_assert_uint_eq (net_messages (sf.net), 2);
  ck_assert_uint_eq (net_bytes (sf.net), 2001);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 2);
  ck_assert_uint_eq (deliveries->len, 0); /* nothing runs before the loop does */
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (deliveries->len, 2);
  Delivery *d = (Delivery *) deliveries->data;
  ck_assert_uint_eq (d[0].arg, 2);
  ck_assert_uint_eq (d[0].t, 401000);
  ck_assert_uint_eq (d[1].arg, 1);
  ck_assert_uint_eq (d[1].t, 7100000);
  ck_assert_uint_eq (sim_sched_now (sf.sched), 7100000);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
}
END_TEST

static void
send_later (SimSched *s, gpointer data, guint64 arg)
{
  (void) s;
  (void) arg;
  /* At 1000 ns: 0 bytes, 1 hop: arrives at 1000 + 100 = 1100 ns. */
  net_send (data, sim_sched_now (s), 0, 1, 0, on_delivered, deliveries, 3);
  /* Sent ahead of time: leaves at 1050 ns, arrives at 1150 ns. */
  net_send (data, sim_sched_now (s) + 50000, 0, 1, 0, on_delivered, deliveries, 5);
}

START_TEST (test_send_fifo_at_equal_times)
{
  /* Ring of 8, 1 GB/s, 100 ns per hop.  Three messages arrive at 1100 ns by
   * different routes and sizes; they must be delivered in the order sent. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 8, 1e9, 100000) };
  NetSpec spec = sf_spec (dims, 1, NET_ROUND_PS);
  sf_build_net (&spec, FALSE);
  net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 1); /* 100 + 1000 ns */
  net_send (sf.net, 0, 0, 2, 900, on_delivered, deliveries, 2);  /* 200 + 900 ns */
  net_send (sf.net, 0, 5, 2, 800, on_delivered, deliveries, 4);  /* 300 + 800 ns */
  sim_sched_at (sf.sched, sim_time_from_ns (1000), send_later, sf.net, 0);
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (deliveries->len, 5);
  const guint64 order[] = { 1, 2, 4, 3, 5 };
  const SimTime at[] = { 1100000, 1100000, 1100000, 1100000, 1150000 };
  for (guint i = 0; i < 5; i++)
    {
      ck_assert_uint_eq (g_array_index (deliveries, Delivery, i).arg, order[i]);
      ck_assert_uint_eq (g_array_index (deliveries, Delivery, i).t, at[i]);
    }
  ck_assert_uint_eq (net_messages (sf.net), 5);
  ck_assert_uint_eq (net_bytes (sf.net), 2700);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
}
END_TEST

START_TEST (test_send_astra_rounding)
{
  /* The analytical model delivers at at + the ASTRA delay: 805 ns after 3 us. */
  NetDimSpec dims[] = { sf_dim (NET_DIM_RING, 4, 50.0 * GIB, 500000) };
  NetSpec spec = sf_spec (dims, 1, NET_ROUND_NS_TRUNCATED);
  sf_build_net (&spec, FALSE);
  net_send (sf.net, sim_time_from_us (3), 2, 3, 16384, on_delivered, deliveries, 9);
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (deliveries->len, 1);
  ck_assert_uint_eq (g_array_index (deliveries, Delivery, 0).t, sim_time_from_ns (3805));
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
}
END_TEST

START_TEST (test_custom_model)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_SWITCH, 4, 1e9, 100000) };
  NetSpec spec = sf_spec (dims, 1, NET_ROUND_PS);
  sf.fake.delay[0] = 42; /* the fake link model: everything arrives after 42 ps */
  sf_build_net (&spec, TRUE);
  ck_assert_str_eq (net_model_name (sf.net), "fake");
  net_send (sf.net, 100, 0, 3, 123456, on_delivered, deliveries, 7);
  ck_assert_uint_eq (sf.fake.messages, 1);
  /* The counters belong to the front end, whatever the model. */
  ck_assert_uint_eq (net_messages (sf.net), 1);
  ck_assert_uint_eq (net_bytes (sf.net), 123456);
  sim_sched_run (sf.sched, SIM_TIME_MAX, 0);
  ck_assert_uint_eq (deliveries->len, 1);
  ck_assert_uint_eq (g_array_index (deliveries, Delivery, 0).t, 142);
  /* net_delay is the contention-free formula, not the model's. */
  ck_assert_uint_eq (net_delay (sf.net, 0, 3, 1000), 200000 + 1000000);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
}
END_TEST

/* ---------------------------------------------------------- shared ports */

/* The deliveries' times, in the order of their args 1..n. */
static void
assert_arrivals (const SimTime *want, guint n)
{
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (deliveries->len, n);
  for (guint i = 0; i < n; i++)
    {
      const Delivery *d = &g_array_index (deliveries, Delivery, i);
      ck_assert_uint_ge (d->arg, 1);
      ck_assert_uint_le (d->arg, n);
      ck_assert_msg (d->t == want[d->arg - 1], "message %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT
                     " ps, want %" G_GUINT64_FORMAT, d->arg, d->t, want[d->arg - 1]);
    }
}

/* Switch of 4, 1 GB/s (1000 ps a byte), 100 ns a hop (2 hops): 1000 bytes
 * are serialized in S = 1 us and arrive S + 200 ns after they start. */
static void
switch_of_four (gboolean share)
{
  NetDimSpec dims[] = { sf_dim (NET_DIM_SWITCH, 4, 1e9, 100000) };
  NetSpec spec = sf_spec (dims, 1, NET_ROUND_PS);
  spec.share_ports = share;
  sf_build_net (&spec, FALSE);
}

/* Two messages leave rank 0 at once: with shared ports the second waits
 * for the first to leave rank 0's egress port, arriving 2S + 200 ns after
 * leaving; without, both arrive S + 200 ns after. */
START_TEST (test_ports_two_from_one_rank)
{
  for (guint share = 0; share < 2; share++)
    {
      switch_of_four (share);
      ck_assert_int_eq (net_sharing (sf.net), share ? NET_SHARING_PER_LINK : NET_SHARING_NONE);
      net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 1);
      net_send (sf.net, 0, 0, 2, 1000, on_delivered, deliveries, 2);
      const SimTime shared[] = { 1200000, 2200000 }, free_for_all[] = { 1200000, 1200000 };
      assert_arrivals (share ? shared : free_for_all, 2);
      g_array_set_size (deliveries, 0);
      sf_teardown ();
      sf_setup ();
    }
}
END_TEST

/* The receiver's ingress port is shared too; different pairs are not:
 * 1 -> 3 then 2 -> 3 (rank 3's ingress) and 0 -> 1 in parallel.  A
 * message that leaves later than its ports are free starts when it
 * leaves: 0 -> 2 at 5 us arrives at 6.2 us. */
START_TEST (test_ports_ingress_and_later)
{
  switch_of_four (TRUE);
  net_send (sf.net, 0, 1, 3, 1000, on_delivered, deliveries, 1);
  net_send (sf.net, 0, 2, 3, 1000, on_delivered, deliveries, 2);
  net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 3);
  net_send (sf.net, sim_time_from_us (5), 0, 2, 1000, on_delivered, deliveries, 4);
  const SimTime want[] = { 1200000, 2200000, 1200000, 6200000 };
  assert_arrivals (want, 4);
}
END_TEST

/* Send one message as the system layer does, with its node's place. */
static void
send_ordered (SimTime at, guint32 src, guint32 dst, guint32 order, guint64 arg)
{
  NetMessage m = { .at = at, .src = src, .dst = dst, .order = order, .dim = NET_DIM_UNKNOWN,
                   .bytes = 1000, .on_delivered = on_delivered, .data = deliveries, .arg = arg };
  net_send_message (sf.net, &m);
}

/* The messages of one instant claim the shared ports in (leaving time,
 * node place) order, not in the order they were sent:
 *   rank 0 sends to 1 for node 7, then to 2 for node 3: node 3's goes
 *   first (S + 200 ns = 1.2 us), node 7's after it (2.2 us);
 *   rank 1 sends to 3 for node 5, rank 2 to 3 for node 2, both at once:
 *   at rank 3's ingress port node 2's goes first (1.2 us), node 5's waits
 *   for it (2.2 us);
 *   rank 3 sends to 0 one leaving at 500 ns (node 1), then one leaving at 0
 *   (node 9): the one leaving first goes first (1.2 us), the other starts
 *   when the port is free at 1 us (2.2 us), not at 500 ns.
 * Without shared ports each arrives S + 200 ns after it leaves. */
START_TEST (test_ports_order_of_an_instant)
{
  for (guint share = 0; share < 2; share++)
    {
      switch_of_four (share);
      send_ordered (0, 0, 1, 7, 1);
      send_ordered (0, 0, 2, 3, 2);
      send_ordered (0, 1, 3, 5, 3);
      send_ordered (0, 2, 3, 2, 4);
      send_ordered (500000, 3, 0, 1, 5);
      send_ordered (0, 3, 0, 9, 6);
      const SimTime shared[] = { 2200000, 1200000, 2200000, 1200000, 2200000, 1200000 };
      const SimTime free_for_all[] = { 1200000, 1200000, 1200000, 1200000, 1700000, 1200000 };
      assert_arrivals (share ? shared : free_for_all, 6);
      g_array_set_size (deliveries, 0);
      sf_teardown ();
      sf_setup ();
    }
}
END_TEST

/* Many messages of one instant (more than the sort's runs of 16, so its
 * merges are used): rank 0 sends 1000 bytes to rank 1 forty times at 0,
 * message i (1 .. 40) for node place 17 i mod 40 (a permutation of 0 ..
 * 39, sent out of order); its egress port serves them by place, each S =
 * 1 us after the one before, so place k arrives at (k + 1) S + 200 ns. */
START_TEST (test_ports_order_of_many)
{
  switch_of_four (TRUE);
  SimTime want[40];
  for (guint32 i = 1; i <= 40; i++)
    {
      guint32 place = 17 * i % 40;
      send_ordered (0, 0, 1, place, i);
      want[i - 1] = (SimTime) (place + 1) * 1000000 + 200000;
    }
  assert_arrivals (want, 40);
}
END_TEST

/* Send one message of a collective whose members play roles: node place
 * ORDER, tie key TIE (1 + the sender's place in its group; 0: none). */
static void
send_tied (guint32 src, guint32 order, guint32 tie, guint64 arg)
{
  NetMessage m = { .at = 0, .src = src, .dst = 3, .order = order, .tie = tie,
                   .dim = NET_DIM_UNKNOWN, .bytes = 1000, .on_delivered = on_delivered,
                   .data = deliveries, .arg = arg };
  net_send_message (sf.net, &m);
}

/* The tie order at a shared port (network/README.md): ranks 1 and 2 send
 * 1000 bytes to rank 3 at one instant for nodes of one place; both reach
 * rank 3's ingress port at once, and the one with the lower tie key is
 * served first (S + 200 ns = 1.2 us), the other waits for it (2.2 us),
 * whichever was sent first:
 *   1. rank 2 (tie 3) sent before rank 1 (tie 2): rank 1's first;
 *   2. the same sent the other way round: rank 1's first;
 *   3. equal ties (two groups' members at one place): the one sent first;
 *   4. tie 0 (no roles) before tie 1;
 *   5. the node's place goes before the tie: order 3, tie 5 before order
 *      4, tie 1. */
START_TEST (test_ports_tie_by_place)
{
  static const guint32 src[5][2] = { { 2, 1 }, { 1, 2 }, { 2, 1 }, { 2, 1 }, { 2, 1 } };
  static const guint32 order[5][2] = { { 4, 4 }, { 4, 4 }, { 4, 4 }, { 4, 4 }, { 3, 4 } };
  static const guint32 tie[5][2] = { { 3, 2 }, { 2, 3 }, { 2, 2 }, { 1, 0 }, { 5, 1 } };
  static const SimTime want[5][2] = { { 2200000, 1200000 }, { 1200000, 2200000 },
                                      { 1200000, 2200000 }, { 2200000, 1200000 },
                                      { 1200000, 2200000 } };
  for (guint c = 0; c < 5; c++)
    {
      switch_of_four (TRUE);
      send_tied (src[c][0], order[c][0], tie[c][0], 1);
      send_tied (src[c][1], order[c][1], tie[c][1], 2);
      assert_arrivals (want[c], 2);
      g_array_set_size (deliveries, 0);
      sf_teardown ();
      sf_setup ();
    }
}
END_TEST

/* Ring of 8, 1 GB/s, 100 ns a hop: rank 0 sends 1000 bytes to 1 and to 2
 * clockwise (they share its clockwise port: 1.1 us, then 1 us later + 2
 * hops = 2.2 us) and to 7 counter-clockwise (its own port: 1.1 us).  On a
 * FullyConnected line of 4 every ordered pair is its own link: 0 -> 1 and
 * 0 -> 2 in parallel (1.1 us), a second 0 -> 1 after the first (2.1 us). */
START_TEST (test_ports_ring_and_fc)
{
  NetDimSpec ring[] = { sf_dim (NET_DIM_RING, 8, 1e9, 100000) };
  NetSpec spec = sf_spec (ring, 1, NET_ROUND_PS);
  spec.share_ports = TRUE;
  sf_build_net (&spec, FALSE);
  net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 1);
  net_send (sf.net, 0, 0, 2, 1000, on_delivered, deliveries, 2);
  net_send (sf.net, 0, 0, 7, 1000, on_delivered, deliveries, 3);
  const SimTime want_ring[] = { 1100000, 2200000, 1100000 };
  assert_arrivals (want_ring, 3);
  g_array_set_size (deliveries, 0);
  sf_teardown ();
  sf_setup ();
  NetDimSpec fc[] = { sf_dim (NET_DIM_FULLY_CONNECTED, 4, 1e9, 100000) };
  spec = sf_spec (fc, 1, NET_ROUND_PS);
  spec.share_ports = TRUE;
  sf_build_net (&spec, FALSE);
  net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 1);
  net_send (sf.net, 0, 0, 2, 1000, on_delivered, deliveries, 2);
  net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 3);
  const SimTime want_fc[] = { 1100000, 1100000, 2100000 };
  assert_arrivals (want_fc, 3);
}
END_TEST

/* An explicit graph of 3 ranks on one switch, duplex links of 1 GB/s and
 * 100 ns; *DIM is the switch dimension the spec names (kept by the caller:
 * the spec points at it).  The caller frees the graph. */
static NetSpec
three_on_switch (NetDimSpec *dim, NetGraphSpec **graph)
{
  NetGraphSpec *g = net_graph_spec_new (3);
  guint32 sw = net_graph_spec_add_switch (g, "sw");
  for (guint32 r = 0; r < 3; r++)
    net_graph_spec_add_link (g, r, sw, 1e9, 100000, TRUE, 0);
  *dim = sf_dim (NET_DIM_SWITCH, 3, 1e9, 100000);
  NetSpec spec = sf_spec (dim, 1, NET_ROUND_PS);
  spec.graph = g;
  *graph = g;
  return spec;
}

/* An explicit graph, 3 ranks on one switch (duplex links of 1 GB/s and
 * 100 ns): a message holds its route's first link (the sender's uplink)
 * and last link (the receiver's downlink).  0 -> 1 and 0 -> 2 share 0's
 * uplink: 1.2 us, then 2.2 us; 2 -> 1 then waits for 1's downlink, free at
 * 1 us: it starts then and arrives at 2.2 us. */
START_TEST (test_ports_graph)
{
  NetDimSpec dim;
  NetGraphSpec *g;
  NetSpec spec = three_on_switch (&dim, &g);
  spec.share_ports = TRUE;
  sf_build_net (&spec, FALSE);
  net_graph_spec_free (g);
  net_send (sf.net, 0, 0, 1, 1000, on_delivered, deliveries, 1);
  net_send (sf.net, 0, 0, 2, 1000, on_delivered, deliveries, 2);
  net_send (sf.net, 0, 2, 1, 1000, on_delivered, deliveries, 3);
  const SimTime want[] = { 1200000, 2200000, 2200000 };
  assert_arrivals (want, 3);
}
END_TEST

/* Route prices over a graph are kept with the topology
 * (net_topo_path_cache): a second Net on it, after the first is freed,
 * reads the same prices.  3 ranks on one switch, links of 1 GB/s and
 * 100 ns: 1000 bytes from any rank to another take 2 x 100 ns + 1 us. */
START_TEST (test_path_cache_shared)
{
  NetDimSpec dim;
  NetGraphSpec *g;
  NetSpec spec = three_on_switch (&dim, &g);
  NetTopo *topo = net_topo_new (&spec, NULL);
  net_graph_spec_free (g);
  ck_assert_ptr_nonnull (topo);
  ck_assert_ptr_null (*net_topo_path_cache (topo));
  for (guint k = 0; k < 2; k++)
    {
      SimSched *sched = sim_sched_new ();
      Net *net = net_new (sched, topo, NULL);
      ck_assert_ptr_nonnull (net);
      ck_assert_uint_eq (net_delay (net, 0, 1, 1000), 1200000);
      ck_assert_uint_eq (net_delay (net, 2, 0, 1000), 1200000);
      net_free (net);
      sim_sched_free (sched);
      ck_assert_ptr_nonnull (*net_topo_path_cache (topo));
    }
  net_topo_free (topo);
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
  Suite *s = suite_create ("net");
  add (s, "coords_strides", test_coords_and_strides);
  add (s, "route_dim", test_route_dim);
  add (s, "route_on_named_dim", test_route_on_named_dim);
  add (s, "hops_ring", test_hops_ring);
  add (s, "hops_fc_switch", test_hops_fc_switch);
  add (s, "topo_errors", test_topo_errors);
  add (s, "dim_kind_names", test_dim_kind_names);
  add (s, "serialization_exact", test_serialization_exact);
  add (s, "serialization_fractional", test_serialization_fractional_bw);
  add (s, "delay_ps", test_delay_ps);
  add (s, "delay_astra", test_delay_astra);
  add (s, "delay_astra_fractional_latency", test_delay_astra_fractional_latency);
  add (s, "send_schedules_delivery", test_send_schedules_delivery);
  add (s, "send_fifo_equal_times", test_send_fifo_at_equal_times);
  add (s, "send_astra_rounding", test_send_astra_rounding);
  add (s, "custom_model", test_custom_model);
  add (s, "ports_two_from_one_rank", test_ports_two_from_one_rank);
  add (s, "ports_order_of_an_instant", test_ports_order_of_an_instant);
  add (s, "ports_order_of_many", test_ports_order_of_many);
  add (s, "ports_tie_by_place", test_ports_tie_by_place);
  add (s, "ports_ingress_and_later", test_ports_ingress_and_later);
  add (s, "ports_ring_and_fc", test_ports_ring_and_fc);
  add (s, "ports_graph", test_ports_graph);
  add (s, "path_cache_shared", test_path_cache_shared);
  return tu_run_suite (s);
}
