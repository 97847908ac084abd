/* test_p2p.c: point-to-point sends and receives (system/p2p.c): completion
 * times, in-order matching on (src, dst, tag), size mismatches and
 * diagnostics of receives that never match.
 *
 * Runs over the shared fake link model (support/sysfix.h), set to deliver
 * every message D = 250 ns after it leaves.  Expected times follow p2p.c's
 * contract: a send completes at delivery, a receive at max(delivery, its
 * own posting).
 */
#include <check.h>
#include <string.h>

#include "sim/error.h"
#include "support/sysfix.h"

#define NS(x) ((SimTime) (x) * 1000)

static const SimTime D_ring = NS (250);

/* ------------------------------------------------------------ fixture */

/* A ring of 4 ranks on the fake network, default system parameters. */
static void
setup (void)
{
  sf_setup ();
  const guint32 p = 4;
  sf_build_rings (&p, &D_ring, 1);
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
  gboolean ok = p->is_send ? sys_p2p_send (sf.sys, &p->req, &error)
                           : sys_p2p_recv (sf.sys, &p->req, &error);
  ck_assert_msg (ok, "post %u: %s", (guint) arg, error ? error->message : "?");
}

/* posts[i] as a send or receive src -> dst of `bytes`, reported as
 * (tag 9, id i), posted at time t. */
static void
post_at (guint i, gboolean is_send, guint32 src, guint32 dst, gint64 tag, guint64 bytes, SimTime t)
{
  posts[i] = (Post) { is_send, { .src = src, .dst = dst, .tag = tag, .bytes = bytes,
                                 .node_id = 100 + i, .on_done = sf_on_done,
                                 .arg = (G_GUINT64_CONSTANT (9) << 32) | i } };
  sim_sched_at (sf.sched, t, post_now, NULL, i);
}

/* Send at 0 (delivery at D = 250 ns), receive posted before or after it:
 * the send completes at delivery, the receive at max(delivery, post). */
START_TEST (test_p2p_send_then_recv)
{
  post_at (0, TRUE, 1, 2, 5, 100, 0);
  post_at (1, FALSE, 1, 2, 5, 100, NS (100));
  post_at (2, TRUE, 3, 0, 5, 100, 0);
  post_at (3, FALSE, 3, 0, 5, 100, NS (1000));
  sf_run_quiet ();
  ck_assert_uint_eq (sf_done_at (9, 0), D_ring);
  ck_assert_uint_eq (sf_done_at (9, 1), D_ring);
  ck_assert_uint_eq (sf_done_at (9, 2), D_ring);
  ck_assert_uint_eq (sf_done_at (9, 3), NS (1000));
  ck_assert_uint_eq (sf.fake.messages, 2);
}
END_TEST

START_TEST (test_p2p_recv_then_send)
{
  post_at (0, FALSE, 1, 2, 5, 100, 0);
  post_at (1, TRUE, 1, 2, 5, 100, NS (50));
  sf_run_quiet ();
  ck_assert_uint_eq (sf_done_at (9, 0), NS (50) + D_ring);
  ck_assert_uint_eq (sf_done_at (9, 1), NS (50) + D_ring);
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
  sf_run_quiet ();
  ck_assert_uint_eq (sf_done_at (9, 0), NS (10) + D_ring);
  ck_assert_uint_eq (sf_done_at (9, 1), NS (20) + D_ring);
  ck_assert_uint_eq (sf_done_at (9, 2), D_ring);
  ck_assert_uint_eq (sf_done_at (9, 3), D_ring);
  ck_assert_uint_eq (sf_done_at (9, 4), NS (10) + D_ring);
  ck_assert_uint_eq (sf_done_at (9, 5), NS (20) + D_ring);
}
END_TEST

START_TEST (test_p2p_self)
{
  post_at (0, TRUE, 2, 2, 0, 64, NS (3));
  post_at (1, FALSE, 2, 2, 0, 64, NS (5));
  sf_run_quiet ();
  ck_assert_uint_eq (sf_done_at (9, 0), NS (3));
  ck_assert_uint_eq (sf_done_at (9, 1), NS (5));
  ck_assert_uint_eq (sf.fake.messages, 0);
}
END_TEST

START_TEST (test_p2p_size_mismatch)
{
  GError *error = NULL;
  /* Receive first, then a send of another size: the send fails. */
  SysP2PRequest recv = { .src = 1, .dst = 2, .tag = 3, .bytes = 200, .node_id = 22 };
  SysP2PRequest send = { .src = 1, .dst = 2, .tag = 3, .bytes = 100, .node_id = 11 };
  ck_assert (sys_p2p_recv (sf.sys, &recv, NULL));
  ck_assert (!sys_p2p_send (sf.sys, &send, &error));
  sf_assert_error (error, (const char *[]) { "node 11", "node 22", "100", "200", NULL });
  g_clear_error (&error);
  /* Send first, then a receive of another size: the receive fails. */
  SysP2PRequest send2 = { .src = 0, .dst = 3, .tag = 4, .bytes = 64, .node_id = 33 };
  SysP2PRequest recv2 = { .src = 0, .dst = 3, .tag = 4, .bytes = 65, .node_id = 44 };
  ck_assert (sys_p2p_send (sf.sys, &send2, NULL));
  ck_assert (!sys_p2p_recv (sf.sys, &recv2, &error));
  sf_assert_error (error, (const char *[]) { "node 33", "node 44", "64", "65", NULL });
  g_clear_error (&error);
  /* A send to a rank that does not exist. */
  SysP2PRequest far = { .src = 0, .dst = 4, .tag = 0, .bytes = 1, .node_id = 55 };
  ck_assert (!sys_p2p_send (sf.sys, &far, &error));
  sf_assert_error (error, (const char *[]) { "node 55", NULL });
  g_clear_error (&error);
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
}
END_TEST

START_TEST (test_p2p_unmatched_recv)
{
  post_at (0, FALSE, 1, 3, 9, 64, 0);
  post_at (1, TRUE, 0, 2, 1, 64, 0); /* a send without a receive is no waiter */
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
  g_autoptr (GString) out = g_string_new (NULL);
  ck_assert_uint_eq (sys_describe_pending (sf.sys, out), 1);
  ck_assert_msg (strstr (out->str, "rank 3 node 100 waits to receive 64 bytes from rank 1 (tag 9)")
                   != NULL,
                 "%s", out->str);
  ck_assert_uint_eq (sf_done_at (9, 1), D_ring);
  ck_assert_uint_eq (sf.done->len, 1);
}
END_TEST

/* Rendezvous from 1 KiB: a 1 KiB send posted at 0 whose receive comes at
 * 1000 ns leaves only then (delivery 1250 ns, both complete then); a 100-byte
 * send on the same ranks stays eager (delivered at 250 ns, its receive
 * completes when posted at 1000 ns).  A rendezvous send whose receive never
 * comes is reported as waiting. */
START_TEST (test_p2p_rendezvous)
{
  sf_teardown ();
  sf_setup ();
  sf.params.rendezvous_threshold = 1024;
  const guint32 p = 4;
  sf_build_rings (&p, &D_ring, 1);
  post_at (0, TRUE, 1, 2, 5, 1024, 0);
  post_at (1, FALSE, 1, 2, 5, 1024, NS (1000));
  post_at (2, TRUE, 0, 3, 5, 100, 0);
  post_at (3, FALSE, 0, 3, 5, 100, NS (1000));
  post_at (4, TRUE, 2, 0, 6, 4096, 0);
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sf_done_at (9, 0), NS (1000) + D_ring);
  ck_assert_uint_eq (sf_done_at (9, 1), NS (1000) + D_ring);
  ck_assert_uint_eq (sf_done_at (9, 2), D_ring);
  ck_assert_uint_eq (sf_done_at (9, 3), NS (1000));
  ck_assert_uint_eq (sf.done->len, 4);
  g_autoptr (GString) out = g_string_new (NULL);
  ck_assert_uint_eq (sys_describe_pending (sf.sys, out), 1);
  ck_assert_msg (strstr (out->str, "rank 2 node 104 waits to send 4096 bytes to rank 0 (tag 6, "
                                   "rendezvous): no matching receive")
                   != NULL,
                 "%s", out->str);
}
END_TEST

/* --------------------------------------------------------------- main */

static void
add (Suite *s, const char *name, const TTest *test)
{
  tcase_add_test (tu_tcase (s, name, setup, sf_teardown, 0), test);
}

int
main (void)
{
  Suite *s = suite_create ("p2p");
  add (s, "send_then_recv", test_p2p_send_then_recv);
  add (s, "recv_then_send", test_p2p_recv_then_send);
  add (s, "in_order", test_p2p_in_order);
  add (s, "self", test_p2p_self);
  add (s, "size_mismatch", test_p2p_size_mismatch);
  add (s, "unmatched_recv", test_p2p_unmatched_recv);
  add (s, "rendezvous", test_p2p_rendezvous);
  return tu_run_suite (s);
}
