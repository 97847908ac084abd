/* test_flow.c: the fluid flow model (link_flow.c): max-min fair sharing,
 * bandwidth freed by finishing flows, late starters.
 *
 * Links of 1 GB/s (1 byte per ns) and 100 ns latency.  On a Switch of 4 a
 * flow from r_i to r_j uses r_i's up link and r_j's down link and arrives
 * 200 ns after its last byte left.  Every expected time is worked by hand
 * from max-min fairness (progressive filling) in the comments; the last
 * test checks the model's incremental sharing against max-min computed from
 * scratch after every event of a run.
 */
#include <check.h>

#include "network/gen_topo.h"
#include "network/graph.h"
#include "network/links.h"
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

/* Starts and ends at shared instants.  At 0, f0 (r1 -> r0, 4000 B), f1
 * (r2 -> r0, 2000 B) and f2 (r1 -> r3, 3000 B) start together: r1's up link
 * (f0, f2) and r0's down link (f0, f1) both have the smallest share, B/2;
 * r1's up link freezes f0 and f2 at B/2, and r0's down link has B/2 left
 * for f1 alone: B/2 each.  f1 ends at 2000 / (1/2) = 4 us, the instant f3
 * (r2 -> r0, 1000 B) starts (its start runs first: it was scheduled
 * first; r0's down link is shared three ways for no time, no byte moves at
 * those rates).  Then f0 has 2000 B left, f2 1000 B, f3 1000 B: r1's up
 * link gives f0 and f2 B/2, r0's down link has B/2 left for f3.  f2 and f3
 * end together at 4 + 1000 / (1/2) = 6 us; f0, with 1000 B left and the
 * links to itself, at 7 us.  Each arrives 200 ns after. */
START_TEST (test_same_instant_starts_and_ends)
{
  build_1d (NET_DIM_SWITCH, 4);
  send (0, 1, 0, 4000, 0);
  send (1, 2, 0, 2000, 0);
  send (2, 1, 3, 3000, 0);
  send (3, 2, 0, 1000, NS (4000));
  run ();
  ck_assert_uint_eq (sf_done_at (0, 1), NS (4000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 2), NS (6000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 3), NS (6000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 0), NS (7000) + 2 * LAT);
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

/* Two components that share no link: A is f0 (1000 B) and f1 (3000 B) from
 * r0 to r1 (r0's up link, r1's down link), B is f2, f3, f4 (3000 B each)
 * from r2 to r3.  A: B/2 each; f0 ends at 2 us, and f1, with 2000 B left,
 * gets the whole link: 2 us more, 4 us.  B: B/3 each (1e9/3 bytes/s, not a
 * binary fraction), 3000 / (1/3 byte per ns) = 9 us, untouched by A's ends.
 * Had A's end at 2 us refilled B as well, B's remaining bytes would have been
 * brought up to date, 3000 - 1e9/3 x 2e-6 = 2333.3333333333335 in doubles,
 * and its end recomputed as 2 us + ceil (2333.3333333333335 / (1e9/3) x
 * 1e12) ps = 9 us + 1 ps: the component must stay as it was. */
START_TEST (test_disjoint_components_keep_their_ends)
{
  build_1d (NET_DIM_SWITCH, 4);
  send (0, 0, 1, 1000, 0);
  send (1, 0, 1, 3000, 0);
  for (guint32 i = 2; i < 5; i++)
    send (i, 2, 3, 3000, 0);
  run ();
  ck_assert_uint_eq (sf_done_at (0, 0), NS (2000) + 2 * LAT);
  ck_assert_uint_eq (sf_done_at (0, 1), NS (4000) + 2 * LAT);
  for (guint32 i = 2; i < 5; i++)
    ck_assert_uint_eq (sf_done_at (0, i), NS (9000) + 2 * LAT);
}
END_TEST


/* ---- the incremental allocation against one from scratch ------------------------ */

#define MAX_HOPS 8

typedef struct
{
  guint32 path[MAX_HOPS];
  guint32 n_hops;
  double rate;     /* the model's */
  double expected; /* from scratch */
} SeenFlow;

static void
see_flow (const guint32 *path, guint32 n_hops, double rate, gpointer user)
{
  GArray *seen = user;
  ck_assert_uint_le (n_hops, MAX_HOPS);
  SeenFlow fl = { .n_hops = n_hops, .rate = rate };
  memcpy (fl.path, path, n_hops * sizeof (guint32));
  g_array_append_val (seen, fl);
}

/* Max-min from scratch over every flow in flight, by progressive filling
 * that scans the links in id order (the model fills only a component, and
 * picks each round's link by a tournament over its links' shares in the
 * order it reached them).  The capacities make every share an integer,
 * which the filling checks: then no operation rounds, the result does not
 * depend on the order, and the model must match it exactly.  Returns the
 * number of rounds; *busy: the links carrying flows. */
static guint
max_min_from_scratch (GArray *seen, const NetLinks *layout, guint *busy)
{
  guint32 n_links = layout->n_links;
  g_autofree double *cap = g_new (double, n_links);
  g_autofree guint32 *unfrozen = g_new0 (guint32, n_links);
  g_autofree gboolean *frozen = g_new0 (gboolean, seen->len);
  for (guint32 l = 0; l < n_links; l++)
    cap[l] = net_links_bandwidth (layout, l);
  for (guint i = 0; i < seen->len; i++)
    {
      const SeenFlow *fl = &g_array_index (seen, SeenFlow, i);
      for (guint32 h = 0; h < fl->n_hops; h++)
        *busy += unfrozen[fl->path[h]]++ == 0;
    }
  guint left = seen->len, rounds = 0;
  while (left > 0)
    {
      guint32 best = n_links;
      for (guint32 l = 0; l < n_links; l++)
        if (unfrozen[l] > 0 && (best == n_links || cap[l] / unfrozen[l] < cap[best] / unfrozen[best]))
          best = l;
      double share = cap[best] / unfrozen[best];
      ck_assert_msg (share == floor (share) && share * unfrozen[best] == cap[best],
                     "share %.17g of link %u is not exact: the test's capacities are wrong",
                     share, best);
      for (guint i = 0; i < seen->len; i++)
        {
          SeenFlow *fl = &g_array_index (seen, SeenFlow, i);
          gboolean on_best = FALSE;
          for (guint32 h = 0; h < fl->n_hops; h++)
            on_best |= fl->path[h] == best;
          if (frozen[i] || !on_best)
            continue;
          frozen[i] = TRUE;
          fl->expected = share;
          left--;
          for (guint32 h = 0; h < fl->n_hops; h++)
            {
              cap[fl->path[h]] -= share;
              unfrozen[fl->path[h]]--;
            }
        }
      rounds++;
    }
  return rounds;
}

/* A run, and what it exercised. */
typedef struct
{
  guint32 side;      /* a Switch of side inside a Ring of side */
  double capacity;   /* the Switch's links; the Ring's are twice as fast */
  guint n;           /* flows */
  guint64 spread_ns; /* they start over [0, spread) */
  guint64 instant_ns; /* and on multiples of this (0: any ns) */
  gboolean two_sizes; /* 250 or 500 KB each, rather than 0.1 to 1 MB */
} ScratchCase;

typedef struct
{
  guint most;      /* flows in flight at once */
  guint contended; /* events after which sharing took several rounds */
  guint rejoined;  /* events that started a flow after some had ended */
  guint busy;      /* the most links carrying flows at once */
  guint together;  /* events that changed the flows in flight at the
                    * instant of the event before */
  guint checks;
} ScratchSeen;

/* Flows of 0.1 to 1 MB between pseudo-random pairs, started at
 * pseudo-random times so that starts and ends interleave; after every event
 * the rates of the flows in flight must equal max-min from scratch, to the
 * bit. */
static ScratchSeen
run_against_scratch (const ScratchCase *k)
{
  NetDimSpec dims[2] = { sf_dim (NET_DIM_SWITCH, k->side, k->capacity, LAT),
                         sf_dim (NET_DIM_RING, k->side, 2 * k->capacity, LAT) };
  NetSpec spec = sf_spec (dims, 2, NET_ROUND_PS);
  spec.model = NET_MODEL_FLOW;
  sf_build_net (&spec, FALSE);
  NetLinks layout;
  ck_assert (net_links_init (&layout, sf.topo, NULL));
  guint32 x = 12345, ranks = k->side * k->side;
  for (guint i = 0; i < k->n; i++)
    {
      x = x * 1103515245u + 12345u;
      guint32 src = (x >> 8) % ranks, dst = (src + 1 + (x >> 16) % (ranks - 1)) % ranks;
      guint64 bytes = k->two_sizes ? 250000 * (1 + (x >> 4) % 2) : 100000 + (x >> 4) % 900000;
      guint64 at = (x >> 12) % k->spread_ns;
      if (k->instant_ns > 0)
        at -= at % k->instant_ns;
      send (i, src, dst, bytes, NS (at));
    }
  ScratchSeen out = { 0 };
  guint prev = 0;
  SimTime prev_at = SIM_TIME_MAX;
  gboolean fell = FALSE;
  g_autoptr (GArray) seen = g_array_new (FALSE, FALSE, sizeof (SeenFlow));
  for (;;)
    {
      SimRunStatus st = sim_sched_run (sf.sched, SIM_TIME_MAX, 1);
      guint busy = 0;
      g_array_set_size (seen, 0);
      ck_assert (net_flow_visit (sf.net, see_flow, seen));
      if (seen->len > 0 && max_min_from_scratch (seen, &layout, &busy) > 1)
        out.contended++;
      for (guint i = 0; i < seen->len; i++)
        {
          const SeenFlow *fl = &g_array_index (seen, SeenFlow, i);
          ck_assert_msg (fl->rate == fl->expected, "flow %u of %u: rate %.17g, from scratch %.17g",
                         i, seen->len, fl->rate, fl->expected);
        }
      out.most = MAX (out.most, seen->len);
      out.busy = MAX (out.busy, busy);
      out.rejoined += fell && seen->len > prev;
      out.together += sim_sched_now (sf.sched) == prev_at && seen->len != prev;
      prev_at = sim_sched_now (sf.sched);
      fell |= seen->len < prev;
      prev = seen->len;
      out.checks++;
      if (st == SIM_RUN_EMPTY)
        break;
      ck_assert_int_eq (st, SIM_RUN_EVENT_LIMIT);
    }
  for (guint i = 0; i < k->n; i++)
    ck_assert_uint_lt (sf_done_at (0, i), SIM_TIME_MAX);
  return out;
}

/* 48 flows on a 4 x 4 grid, starting over 2 ms.  C = 2^17 3^4 5^2 7 bytes/s
 * (about 1.86 GB/s) divides by every product of fair-share denominators
 * this run meets (the filling above checks). */
START_TEST (test_incremental_equals_from_scratch)
{
  ScratchCase k = { .side = 4, .capacity = 131072.0 * 81 * 25 * 7, .n = 48, .spread_ns = 2000000 };
  ScratchSeen seen = run_against_scratch (&k);
  /* The run exercised what it is for: many flows at once, sharing that
   * needed several rounds, flows starting after others had ended. */
  ck_assert_uint_ge (seen.most, 10);
  ck_assert_uint_ge (seen.contended, 50);
  ck_assert_uint_ge (seen.rejoined, 10);
  ck_assert_uint_ge (seen.checks, 2 * k.n);
}
END_TEST

/* The same on an 8 x 8 grid (256 links) with 300 flows starting over 300 ns
 * (each takes 0.02 to 0.2 us alone), so that more than 128 links carry flows
 * at once: a tournament of eight levels and more.  C = 2^10 3^4 5^2 7^2 11 13 17 19 bytes/s
 * (about 4.7 TB/s) keeps every share of this run an integer. */
START_TEST (test_incremental_equals_from_scratch_large)
{
  ScratchCase k = { .side = 8, .capacity = 1024.0 * 81 * 25 * 49 * 11 * 13 * 17 * 19, .n = 300,
                    .spread_ns = 300 };
  ScratchSeen seen = run_against_scratch (&k);
  ck_assert_uint_ge (seen.busy, 128);
  ck_assert_uint_ge (seen.contended, 100);
  ck_assert_uint_ge (seen.rejoined, 10);
}
END_TEST

/* Flows that start on multiples of 100 us, half of them 250 KB and half
 * 500 KB, so that several start at one instant and equal ones end at one
 * instant: after every single start and end, even between two at the same
 * instant, the rates must equal max-min from scratch.  C as in the first
 * run. */
START_TEST (test_incremental_equals_from_scratch_shared_instants)
{
  ScratchCase k = { .side = 4, .capacity = 131072.0 * 81 * 25 * 7, .n = 48, .spread_ns = 2000000,
                    .instant_ns = 100000, .two_sizes = TRUE };
  ScratchSeen seen = run_against_scratch (&k);
  ck_assert_uint_ge (seen.most, 10);
  ck_assert_uint_ge (seen.contended, 50);
  ck_assert_uint_ge (seen.together, 20);
}
END_TEST

/* ---- the incremental model against the full recomputation, rounding ------------- */

/* The model refills only the flows whose rate may change (link_flow_inc.c);
 * its reference is the max-min allocation, computed by the check path
 * (net_flow_check) as progressive filling over the whole component of
 * every start and end.  Capacities here are not integers, so sums round:
 * the two must agree within a relative 1e-9 in every rate (the proof makes
 * them equal in exact arithmetic; what is left is rounding, about 1e-14)
 * and within 1 ps in every end time (each is rounded up to a picosecond
 * from remaining bytes that were themselves rounded, so the same instant
 * can come out one picosecond apart). */

static guint32
rnd (guint32 *x)
{
  *x = *x * 1103515245u + 12345u;
  return *x >> 8;
}

/* Random flows on the built network: n of 1 KB to 1 MB between random
 * pairs, starting over `spread_ns`, on multiples of 500 ns for odd seeds
 * (so that starts and ends share instants).  Returns the check path's
 * figures; every flow must have arrived. */
static NetFlowCheck
random_flows (guint32 seed, guint32 ranks, guint n, guint64 spread_ns, gboolean never_whole)
{
  ck_assert (net_flow_check (sf.net, TRUE, never_whole));
  guint32 x = seed;
  for (guint i = 0; i < n; i++)
    {
      guint32 src = rnd (&x) % ranks, dst = (src + 1 + rnd (&x) % (ranks - 1)) % ranks;
      guint64 bytes = 1000 + rnd (&x) % 1000000, at = rnd (&x) % spread_ns;
      if (seed % 2 == 1)
        at -= at % 500;
      send (i, src, dst, bytes, NS (at));
    }
  run ();
  for (guint i = 0; i < n; i++)
    ck_assert_uint_lt (sf_done_at (0, i), SIM_TIME_MAX);
  NetFlowCheck k;
  ck_assert (net_flow_checked (sf.net, &k));
  ck_assert_uint_eq (k.changes, 2 * n); /* every start and every end checked */
  ck_assert_msg (k.worst_rel <= 1e-9, "seed %u: a rate %.3g from the reference's", seed,
                 k.worst_rel);
  ck_assert_msg (k.worst_ps <= 1, "seed %u: an end time %" G_GUINT64_FORMAT " ps from the"
                 " reference's", seed, k.worst_ps);
  return k;
}

/* A random connected graph: 4 to 15 ranks, each on one of 1 to 6 switches
 * (a random tree of them, plus a few links between random switches and from
 * random ranks to a second switch), every link duplex with its own
 * bandwidth of 1 to 100 GB/s in steps that are not integers. */
static guint32
random_graph (guint32 seed)
{
  guint32 x = seed * 7919u + 1;
  guint32 ranks = 4 + rnd (&x) % 12, switches = 1 + rnd (&x) % 6;
  NetGraphSpec *g = net_graph_spec_new (ranks);
  guint32 sw[6];
  for (guint32 i = 0; i < switches; i++)
    {
      g_autofree char *name = g_strdup_printf ("sw%u", i);
      sw[i] = net_graph_spec_add_switch (g, name);
    }
#define BW() (1e9 * (1 + rnd (&x) % 99) / 1.37)
  for (guint32 i = 1; i < switches; i++)
    net_graph_spec_add_link (g, sw[i], sw[rnd (&x) % i], BW (), NS (100), TRUE, 0);
  for (guint32 e = rnd (&x) % 4; e > 0 && switches > 1; e--)
    {
      guint32 a = rnd (&x) % switches, b = (a + 1 + rnd (&x) % (switches - 1)) % switches;
      net_graph_spec_add_link (g, sw[a], sw[b], BW (), NS (100), TRUE, 0);
    }
  for (guint32 r = 0; r < ranks; r++)
    {
      guint32 a = rnd (&x) % switches;
      net_graph_spec_add_link (g, r, sw[a], BW (), NS (100), TRUE, 0);
      if (switches > 1 && rnd (&x) % 4 == 0)
        net_graph_spec_add_link (g, r, sw[(a + 1) % switches], BW (), NS (100), TRUE, 0);
    }
#undef BW
  NetDimSpec dim = sf_dim (NET_DIM_SWITCH, ranks, 1e9, NS (100));
  NetSpec spec = sf_spec (&dim, 1, NET_ROUND_PS);
  spec.graph = g;
  spec.model = NET_MODEL_FLOW;
  sf_build_net (&spec, FALSE);
  net_graph_spec_free (g);
  return ranks;
}

/* One random case: its network (built by the case's callback) and the
 * arguments of its random_flows. */
typedef struct
{
  guint32 ranks, flow_seed;
  guint n;
  guint64 spread_ns;
  gboolean never_whole;
} RandomCase;

/* Cases 1 .. N_CASES, each on a fresh fixture: BUILD builds case SEED's
 * network and fills in its flows, which must stay within rounding of the
 * reference (random_flows).  Returns the flows compared and refilled,
 * summed over the cases. */
static NetFlowCheck
random_cases (guint32 n_cases, void (*build) (guint32 seed, RandomCase *c))
{
  NetFlowCheck sum = { 0 };
  for (guint32 seed = 1; seed <= n_cases; seed++)
    {
      if (seed > 1)
        {
          sf_teardown ();
          sf_setup ();
        }
      RandomCase c;
      build (seed, &c);
      NetFlowCheck k = random_flows (c.flow_seed, c.ranks, c.n, c.spread_ns, c.never_whole);
      sum.flows += k.flows;
      sum.refilled += k.refilled;
    }
  return sum;
}

/* Case SEED of 120: random graph (SEED - 1) % 60 + 1 with 10 to 209 flows,
 * the second 60 with the model's rounds of refilling run to the end. */
static void
graph_case (guint32 seed, RandomCase *c)
{
  c->ranks = random_graph ((seed - 1) % 60 + 1);
  c->flow_seed = (seed - 1) % 60 + 1;
  c->n = 10 + rnd (&c->flow_seed) % 200;
  c->spread_ns = 20000;
  c->never_whole = seed > 60;
}

/* 60 random graphs with 10 to 209 flows each, twice: as the model runs,
 * and with its rounds of refilling and checking run to the end however
 * large they grow (it would refill whole components instead). */
START_TEST (test_incremental_within_rounding_random_graphs)
{
  NetFlowCheck sum = random_cases (120, graph_case);
  /* It recomputed less than the components, which is what is checked. */
  ck_assert_uint_gt (sum.flows, 100000);
  ck_assert_uint_lt (sum.refilled, sum.flows);
}
END_TEST

/* A k-ary fat-tree, oversubscribed OVERSUB:1, every link of BW bytes/s and
 * 1 us, built as the flow model's network; its ranks. */
static guint32
fat_tree (guint k, guint oversub, double bw)
{
  NetGenParams p = { .kind = NET_GEN_FAT_TREE };
  p.fat_tree.k = k;
  p.fat_tree.oversubscription = oversub;
  p.fat_tree.link = (NetGenLink) { bw, NS (1000) };
  NetSpec spec = { .model = NET_MODEL_FLOW };
  NetGraphSpec *g = NULL;
  GError *error = NULL;
  ck_assert (net_gen_topology (&p, &spec, &g, &error));
  sf_build_net (&spec, FALSE);
  guint32 ranks = g->ranks;
  net_graph_spec_free (g);
  return ranks;
}

/* Case SEED of 6: a k = 4 fat-tree at 1:1 to 3:1 with 100 to 400 flows. */
static void
fat_tree_case (guint32 seed, RandomCase *c)
{
  c->ranks = fat_tree (4, 1 + seed % 3, 50e9 / 3);
  c->flow_seed = seed;
  c->n = 100 * (1 + seed % 4);
  c->spread_ns = 2000;
  c->never_whole = seed % 2 == 0;
}

/* Fat-trees (k = 4, oversubscribed 1:1 to 3:1, links of 400 Gb/s / 3) with
 * 100 to 400 flows: many flows on few levels of shares, the bench's case. */
START_TEST (test_incremental_within_rounding_fat_trees)
{
  NetFlowCheck sum = random_cases (6, fat_tree_case);
  ck_assert_uint_lt (sum.refilled, sum.flows);
}
END_TEST

/* The bench's fabric, a k = 8 fat-tree at 2:1 (256 hosts), with 2,000
 * flows over 400 us: a change's component holds 130 flows on average while
 * the change reaches few of them, so the model keeps most rates (it
 * refilled 18 % of the flows the reference refilled when this was written;
 * the test asks for under a quarter). */
START_TEST (test_incremental_within_rounding_large_fat_tree)
{
  guint32 ranks = fat_tree (8, 2, 50e9);
  NetFlowCheck k = random_flows (3, ranks, 2000, 400000, FALSE);
  ck_assert_uint_lt (4 * k.refilled, k.flows);
}
END_TEST

/* Runs are deterministic: the same random graph and flows twice give every
 * arrival at the same picosecond. */
START_TEST (test_incremental_deterministic)
{
  g_autoptr (GArray) first = NULL;
  for (guint run_no = 0; run_no < 2; run_no++)
    {
      if (run_no > 0)
        {
          first = g_array_copy (sf.done);
          sf_teardown ();
          sf_setup ();
        }
      guint32 ranks = random_graph (17);
      random_flows (17, ranks, 200, 20000, FALSE);
    }
  ck_assert_uint_eq (first->len, sf.done->len);
  ck_assert (memcmp (first->data, sf.done->data, first->len * sizeof (SfDone)) == 0);
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
    { "disjoint_components_keep_their_ends", test_disjoint_components_keep_their_ends },
    { "same_instant_starts_and_ends", test_same_instant_starts_and_ends },
    { "incremental_equals_from_scratch", test_incremental_equals_from_scratch },
    { "incremental_equals_from_scratch_large", test_incremental_equals_from_scratch_large },
    { "incremental_equals_from_scratch_shared_instants",
      test_incremental_equals_from_scratch_shared_instants },
    { "incremental_within_rounding_random_graphs",
      test_incremental_within_rounding_random_graphs },
    { "incremental_within_rounding_fat_trees", test_incremental_within_rounding_fat_trees },
    { "incremental_within_rounding_large_fat_tree",
      test_incremental_within_rounding_large_fat_tree },
    { "incremental_deterministic", test_incremental_deterministic },
  };
  /* The comparisons with the check path refill whole components at every
   * change (about 1 s of CPU time in all): room for a loaded machine. */
  for (guint i = 0; i < G_N_ELEMENTS (tests); i++)
    tcase_add_test (tu_tcase (s, tests[i].name, sf_setup, sf_teardown,
                              g_str_has_prefix (tests[i].name, "incremental_") ? 60 : 0),
                    tests[i].test);
  return tu_run_suite (s);
}
