/* test_p2p.c: point-to-point sends and receives (system/p2p.c): completion
 * times, in-order matching on (src, dst, tag), size mismatches and
 * diagnostics of receives that never match.
 *
 * Runs over a fake link model that delivers every message D = 250 ns after
 * it leaves.  Expected times follow p2p.c's contract: a send completes at
 * delivery, a receive at max(delivery, its own posting).
 */
#include <check.h>
#include <string.h>

#include "network/net.h"
#include "sim/error.h"
#include "sim/sched.h"
#include "system/sys.h"

#define NS(x) ((SimTime) (x) * 1000)

static const SimTime D_ring = NS (250);

/* ------------------------------------------------------------ fake network */

static guint64 fake_messages;

static void
fake_send (Net *n, SimTime at, guint32 src, guint32 dst, guint64 bytes, SimHandler fn,
           gpointer data, guint64 arg)
{
  (void) src;
  (void) dst;
  (void) bytes;
  fake_messages++;
  sim_sched_at (net_sched (n), at + D_ring, fn, data, arg);
}

static const NetModelClass fake_class = { .name = "fake", .send = fake_send };

/* ------------------------------------------------------------ fixture */

static SimSched *sched;
static NetTopo *topo;
static Net *net;
static Sys *sys;

typedef struct
{
  guint32 tag, id;
  SimTime t;
} Done;
static GArray *done_log;

/* A ring of 4 ranks on the fake network, default system parameters. */
static void
setup (void)
{
  sched = sim_sched_new ();
  NetSpec spec;
  memset (&spec, 0, sizeof spec);
  spec.n_dims = 1;
  spec.dims[0] = (NetDimSpec) { .kind = NET_DIM_RING, .size = 4, .bandwidth_Bps = 1e9,
                                .latency = 1 };
  topo = net_topo_new (&spec, NULL);
  ck_assert_ptr_nonnull (topo);
  net = net_new_with_model (sched, topo, &fake_class);
  SysParams params;
  sys_params_init (&params);
  sys = sys_new (sched, net, &params, NULL);
  ck_assert_ptr_nonnull (sys);
  fake_messages = 0;
  done_log = g_array_new (FALSE, FALSE, sizeof (Done));
}

static void
teardown (void)
{
  g_clear_pointer (&sys, sys_free);
  g_clear_pointer (&net, net_free);
  g_clear_pointer (&topo, net_topo_free);
  g_clear_pointer (&sched, sim_sched_free);
  g_clear_pointer (&done_log, g_array_unref);
}

/* ------------------------------------------------------------ helpers */

static void
on_done (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  Done d = { (guint32) (arg >> 32), (guint32) arg, sim_sched_now (s) };
  g_array_append_val (done_log, d);
}

static void
run_quiet (void)
{
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  GError *error = NULL;
  ck_assert_msg (sys_ok (sys, &error), "sys: %s", error ? error->message : "?");
  ck_assert_uint_eq (sim_sched_pending (sched), 0);
  g_autoptr (GString) pending = g_string_new (NULL);
  ck_assert_msg (sys_describe_pending (sys, pending) == 0, "pending: %s", pending->str);
}

static SimTime
done_at (guint32 tag, guint32 id)
{
  SimTime t = SIM_TIME_MAX;
  guint seen = 0;
  for (guint i = 0; i < done_log->len; i++)
    {
      const Done *d = &g_array_index (done_log, Done, i);
      if (d->tag == tag && d->id == id)
        {
          t = d->t;
          seen++;
        }
    }
  ck_assert_msg (seen == 1, "%u/%u completed %u times", tag, id, seen);
  return t;
}

static void
assert_error (GError *error, const char *const *needles)
{
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (error->domain == SIM_ERROR && error->code == SIM_ERROR_INPUT,
                 "wrong domain/code: %s", error->message);
  for (const char *const *n = needles; *n != NULL; n++)
    ck_assert_msg (strstr (error->message, *n) != NULL, "'%s' not in: %s", *n, error->message);
}

/* ------------------------------------------------------------------- tests */

/* Posts scheduled at given times: arg indexes posts[]. */
typedef struct
{
  gboolean is_send;
  SysP2PRequest req;
} Post;

static Post posts[8];

static void
post_now (SimSched *s, gpointer data, guint64 arg)
{
  (void) s;
  (void) data;
  const Post *p = &posts[arg];
  GError *error = NULL;
  gboolean ok = p->is_send ? sys_p2p_send (sys, &p->req, &error)
                           : sys_p2p_recv (sys, &p->req, &error);
  ck_assert_msg (ok, "post %u: %s", (guint) arg, error ? error->message : "?");
}

/* posts[i] as a send or receive src -> dst of `bytes`, reported as
 * (tag 9, id i), posted at time t. */
static void
post_at (guint i, gboolean is_send, guint32 src, guint32 dst, gint64 tag, guint64 bytes, SimTime t)
{
  posts[i] = (Post) { is_send, { .src = src, .dst = dst, .tag = tag, .bytes = bytes,
                                 .node_id = 100 + i, .on_done = on_done,
                                 .arg = (G_GUINT64_CONSTANT (9) << 32) | i } };
  sim_sched_at (sched, t, post_now, NULL, i);
}

/* Send at 0 (delivery at D = 250 ns), receive posted before or after it:
 * the send completes at delivery, the receive at max(delivery, post). */
START_TEST (test_p2p_send_then_recv)
{
  post_at (0, TRUE, 1, 2, 5, 100, 0);
  post_at (1, FALSE, 1, 2, 5, 100, NS (100));
  post_at (2, TRUE, 3, 0, 5, 100, 0);
  post_at (3, FALSE, 3, 0, 5, 100, NS (1000));
  run_quiet ();
  ck_assert_uint_eq (done_at (9, 0), D_ring);
  ck_assert_uint_eq (done_at (9, 1), D_ring);
  ck_assert_uint_eq (done_at (9, 2), D_ring);
  ck_assert_uint_eq (done_at (9, 3), NS (1000));
  ck_assert_uint_eq (fake_messages, 2);
}
END_TEST

START_TEST (test_p2p_recv_then_send)
{
  post_at (0, FALSE, 1, 2, 5, 100, 0);
  post_at (1, TRUE, 1, 2, 5, 100, NS (50));
  run_quiet ();
  ck_assert_uint_eq (done_at (9, 0), NS (50) + D_ring);
  ck_assert_uint_eq (done_at (9, 1), NS (50) + D_ring);
}
END_TEST

/* On one (src, dst, tag) the n-th send meets the n-th receive (sizes
 * 100 then 200 would mismatch otherwise); another tag is another channel. */
START_TEST (test_p2p_in_order)
{
  post_at (0, FALSE, 1, 2, 5, 100, 0);
  post_at (1, FALSE, 1, 2, 5, 200, 0);
  post_at (2, FALSE, 1, 2, 6, 300, 0);
  post_at (3, TRUE, 1, 2, 6, 300, 0);
  post_at (4, TRUE, 1, 2, 5, 100, NS (10));
  post_at (5, TRUE, 1, 2, 5, 200, NS (20));
  run_quiet ();
  ck_assert_uint_eq (done_at (9, 0), NS (10) + D_ring);
  ck_assert_uint_eq (done_at (9, 1), NS (20) + D_ring);
  ck_assert_uint_eq (done_at (9, 2), D_ring);
  ck_assert_uint_eq (done_at (9, 3), D_ring);
  ck_assert_uint_eq (done_at (9, 4), NS (10) + D_ring);
  ck_assert_uint_eq (done_at (9, 5), NS (20) + D_ring);
}
END_TEST

START_TEST (test_p2p_self)
{
  post_at (0, TRUE, 2, 2, 0, 64, NS (3));
  post_at (1, FALSE, 2, 2, 0, 64, NS (5));
  run_quiet ();
  ck_assert_uint_eq (done_at (9, 0), NS (3));
  ck_assert_uint_eq (done_at (9, 1), NS (5));
  ck_assert_uint_eq (fake_messages, 0);
}
END_TEST

START_TEST (test_p2p_size_mismatch)
{
  GError *error = NULL;
  /* Receive first, then a send of another size: the send fails. */
  SysP2PRequest recv = { .src = 1, .dst = 2, .tag = 3, .bytes = 200, .node_id = 22 };
  SysP2PRequest send = { .src = 1, .dst = 2, .tag = 3, .bytes = 100, .node_id = 11 };
  ck_assert (sys_p2p_recv (sys, &recv, NULL));
  ck_assert (!sys_p2p_send (sys, &send, &error));
  assert_error (error, (const char *[]) { "node 11", "node 22", "100", "200", NULL });
  g_clear_error (&error);
  /* Send first, then a receive of another size: the receive fails. */
  SysP2PRequest send2 = { .src = 0, .dst = 3, .tag = 4, .bytes = 64, .node_id = 33 };
  SysP2PRequest recv2 = { .src = 0, .dst = 3, .tag = 4, .bytes = 65, .node_id = 44 };
  ck_assert (sys_p2p_send (sys, &send2, NULL));
  ck_assert (!sys_p2p_recv (sys, &recv2, &error));
  assert_error (error, (const char *[]) { "node 33", "node 44", "64", "65", NULL });
  g_clear_error (&error);
  /* A send to a rank that does not exist. */
  SysP2PRequest far = { .src = 0, .dst = 4, .tag = 0, .bytes = 1, .node_id = 55 };
  ck_assert (!sys_p2p_send (sys, &far, &error));
  assert_error (error, (const char *[]) { "node 55", NULL });
  g_clear_error (&error);
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
}
END_TEST

START_TEST (test_p2p_unmatched_recv)
{
  post_at (0, FALSE, 1, 3, 9, 64, 0);
  post_at (1, TRUE, 0, 2, 1, 64, 0); /* a send without a receive is no waiter */
  ck_assert_int_eq (sim_sched_run (sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_sched_pending (sched), 0);
  g_autoptr (GString) out = g_string_new (NULL);
  ck_assert_uint_eq (sys_describe_pending (sys, out), 1);
  ck_assert_msg (strstr (out->str, "rank 3 node 100 waits to receive 64 bytes from rank 1 (tag 9)")
                   != NULL,
                 "%s", out->str);
  ck_assert_uint_eq (done_at (9, 1), D_ring);
  ck_assert_uint_eq (done_log->len, 1);
}
END_TEST

/* --------------------------------------------------------------- main */

static void
add (Suite *s, const char *name, const TTest *test)
{
  TCase *tc = tcase_create (name);
  tcase_add_checked_fixture (tc, setup, teardown);
  tcase_add_test (tc, test);
  suite_add_tcase (s, tc);
}

int
main (void)
{
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  Suite *s = suite_create ("p2p");
  add (s, "send_then_recv", test_p2p_send_then_recv);
  add (s, "recv_then_send", test_p2p_recv_then_send);
  add (s, "in_order", test_p2p_in_order);
  add (s, "self", test_p2p_self);
  add (s, "size_mismatch", test_p2p_size_mismatch);
  add (s, "unmatched_recv", test_p2p_unmatched_recv);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}
