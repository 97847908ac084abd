/* test_modes.c: the helper that runs every workload in every mode
 * (tests/support/modes.h) must see a disagreement between modes, and must
 * run each mode it claims to.
 *
 * The workloads are four ranks on tu_exact_ring (a message of b bytes
 * between neighbours takes 100 + b ns): an all-reduce that every rank runs
 * alike (the symmetric shortcut applies), and a ring of sends (it does not:
 * the ranks' traces differ).
 */
#include <check.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>

#include "sim/error.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

enum { T_COMP = 4, T_SEND = 5, T_RECV = 6 };

/* Every rank: 10 us of compute, then an all-reduce of 4 KB. */
static char *
write_allreduce (void)
{
  char *wl = tu_scratch_path ("ar");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *ar = tu_coll (2, 0, 4096);
      tu_node_dep (ar, 1);
      ChakraProtoMsg__Node *nodes[] = { tu_comp (1, 10), ar };
      tu_write_rank (wl, r, nodes, 2);
    }
  return wl;
}

/* Rank r sends 1000 bytes to r + 1 and receives from r - 1. */
static char *
write_ring_sends (void)
{
  char *wl = tu_scratch_path ("p2p");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_p2p (1, T_SEND, r, (r + 1) % 4, 0, 1000),
                                        tu_p2p (2, T_RECV, (r + 3) % 4, r, 0, 1000) };
      tu_write_rank (wl, r, nodes, 2);
    }
  return wl;
}

START_TEST (test_same_results_agree)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  g_autofree char *wl = write_allreduce ();
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, &m);
  TuSimResult a, b;
  tu_sim_result_take (m.sim[TU_MODE_EVERY_RANK], &a);
  tu_sim_result_take (m.sim[TU_MODE_STREAMED], &b);
  ck_assert_ptr_null (tu_sim_result_diff (&a, &b, TRUE));
  ck_assert_uint_eq (a.ranks, 4);
  ck_assert_uint_eq (a.finished, 4);
  tu_sim_result_clear (&a);
  tu_sim_result_clear (&b);
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}
END_TEST

/* Take the every-rank result of the all-reduce (recorded) twice; change one
 * figure of the second with EDIT; the diff must name it, as NEEDLE says
 * (NULL: it must see no difference). */
static void
assert_detects (void (*edit) (TuSimResult *), gboolean every_rank, const char *needle)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  cfg.net.model = NET_MODEL_CONGESTION; /* it has links */
  g_autofree char *wl = write_allreduce ();
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl, .recording = TRUE }, &m);
  TuSimResult a, b;
  tu_sim_result_take (m.sim[TU_MODE_EVERY_RANK], &a);
  tu_sim_result_take (m.sim[TU_MODE_EVERY_RANK], &b);
  edit (&b);
  g_autofree char *diff = tu_sim_result_diff (&a, &b, every_rank);
  if (needle == NULL)
    ck_assert_msg (diff == NULL, "reported: %s", diff);
  else
    ck_assert_msg (diff != NULL && strstr (diff, needle) != NULL, "'%s' not in: %s", needle,
                   diff ? diff : "(no difference)");
  tu_sim_result_clear (&a);
  tu_sim_result_clear (&b);
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}

/* One figure of a result changed by one, for assert_detects. */
static void
edit_finish (TuSimResult *r)
{
  r->rank[3].finish += 1;
}

static void
edit_exposed (TuSimResult *r)
{
  r->rank[2].exposed_comm += 1;
}

static void
edit_compute (TuSimResult *r)
{
  r->rank[1].compute -= 1;
}

static void
edit_idle (TuSimResult *r)
{
  r->rank[0].compute_busy -= 1;
}

static void
edit_sends (TuSimResult *r)
{
  r->rank[0].sends += 1;
}

static void
edit_end (TuSimResult *r)
{
  r->end += 1;
}

static void
edit_coll (TuSimResult *r)
{
  g_array_index (r->colls, SysCollGroupStats, 0).busy += 1;
}

static void
edit_events (TuSimResult *r)
{
  r->events += 1;
}

static void
edit_record (TuSimResult *r)
{
  r->records[2][1].end += 1;
}

static void
edit_peer (TuSimResult *r)
{
  r->records[1][1].peer_rank += 1;
}

static void
edit_link (TuSimResult *r)
{
  ck_assert_uint_gt (r->n_links, 0);
  r->links[r->n_links - 1].bytes += 1;
}

START_TEST (test_detects_each_figure)
{
  assert_detects (edit_finish, FALSE, "finish of rank 3: ");
  assert_detects (edit_exposed, FALSE, "exposed communication of rank 2: ");
  assert_detects (edit_compute, FALSE, "compute of rank 1: ");
  assert_detects (edit_idle, FALSE, "idle of rank 0: ");
  assert_detects (edit_sends, FALSE, "figures of rank 0 differ");
  assert_detects (edit_end, FALSE, "end time");
  assert_detects (edit_coll, FALSE, "collective row 0");
  assert_detects (edit_record, FALSE, "record of rank 2 node 1: ");
  assert_detects (edit_peer, TRUE, "record of rank 1 node 1: ");
  assert_detects (edit_events, TRUE, "events, run 0: ");
  assert_detects (edit_link, TRUE, "link ");
}
END_TEST

/* The shortcut simulates rank 0 alone: its events, links and the peers its
 * records name are its own, and compared only between the modes that
 * simulate every rank. */
START_TEST (test_events_and_links_only_every_rank)
{
  assert_detects (edit_events, FALSE, NULL);
  assert_detects (edit_link, FALSE, NULL);
  assert_detects (edit_peer, FALSE, NULL);
}
END_TEST

START_TEST (test_detects_error_difference)
{
  g_autoptr (GError) a = g_error_new_literal (SIM_ERROR, SIM_ERROR_INPUT, "rank 1 node 2: bad");
  g_autoptr (GError) same = g_error_copy (a);
  g_autoptr (GError) text = g_error_new_literal (SIM_ERROR, SIM_ERROR_INPUT, "rank 1 node 3: bad");
  g_autoptr (GError) code = g_error_new_literal (SIM_ERROR, SIM_ERROR_DEADLOCK,
                                                 "rank 1 node 2: bad");
  ck_assert_ptr_null (tu_sim_error_diff (NULL, NULL));
  ck_assert_ptr_null (tu_sim_error_diff (a, same));
  g_autofree char *d1 = tu_sim_error_diff (a, text);
  g_autofree char *d2 = tu_sim_error_diff (a, code);
  g_autofree char *d3 = tu_sim_error_diff (NULL, a);
  ck_assert_ptr_nonnull (d1);
  ck_assert_ptr_nonnull (strstr (d1, "node 3"));
  ck_assert_ptr_nonnull (d2);
  ck_assert_ptr_nonnull (d3);
  ck_assert_ptr_nonnull (strstr (d3, "the other did not"));
}
END_TEST

/* Every mode runs; the shortcut is taken in the auto mode alone. */
START_TEST (test_runs_every_mode)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  g_autofree char *wl = write_allreduce ();
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, &m);
  for (TuMode mode = TU_MODE_AUTO; mode < TU_N_MODES; mode++)
    {
      ck_assert_msg (m.sim[mode] != NULL, "%s did not run", tu_mode_name (mode));
      ck_assert_ptr_null (m.skipped[mode]);
    }
  ck_assert_ptr_null (m.not_symmetric);
  ck_assert (app_sim_symmetric (m.sim[TU_MODE_AUTO]));
  ck_assert (!app_sim_streamed (m.sim[TU_MODE_EVERY_RANK]));
  ck_assert (app_sim_streamed (m.sim[TU_MODE_STREAMED]));
  ck_assert (!app_sim_symmetric (m.sim[TU_MODE_STREAMED]));
  /* 10 us, then 2 (p - 1) = 6 ring steps of 4096 / 4 = 1024 bytes at
   * 100 + 1024 ns each. */
  ck_assert_uint_eq (app_sim_end_time (m.sim[TU_MODE_STREAMED]),
                     sim_time_from_ns (10000 + 6 * 1124));
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}
END_TEST

/* A workload the shortcut refuses: the refusal is kept, the rest runs. */
START_TEST (test_refused_shortcut_recorded)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  g_autofree char *wl = write_ring_sends ();
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, &m);
  ck_assert_ptr_nonnull (m.not_symmetric);
  for (TuMode mode = TU_MODE_AUTO; mode < TU_N_MODES; mode++)
    ck_assert_ptr_nonnull (m.sim[mode]);
  ck_assert_uint_eq (app_sim_end_time (m.sim[TU_MODE_AUTO]), sim_time_from_ns (1100));
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}
END_TEST

/* Recording skips the streamed mode, saying why. */
START_TEST (test_recording_skips_streamed)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  g_autofree char *wl = write_allreduce ();
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl, .recording = TRUE }, &m);
  ck_assert_ptr_null (m.sim[TU_MODE_STREAMED]);
  ck_assert_ptr_nonnull (strstr (m.skipped[TU_MODE_STREAMED], "streamed run refuses"));
  ck_assert_ptr_nonnull (m.sim[TU_MODE_AUTO]);
  ck_assert_ptr_nonnull (m.sim[TU_MODE_EVERY_RANK]);
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}
END_TEST

/* What --lenient repairs across a whole trace, the streamed replay refuses
 * by design: the refusal is kept, the in-memory modes still run and agree
 * (each rank's 3 us of compute, its dangling dependency dropped). */
START_TEST (test_stream_refusal_recorded)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  cfg.wl.lenient = TRUE;
  g_autofree char *wl = tu_scratch_path ("messy");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *c = tu_comp (1, 3);
      tu_node_dep (c, 99);
      ChakraProtoMsg__Node *nodes[] = { c };
      tu_write_rank (wl, r, nodes, 1);
    }
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, &m);
  ck_assert_ptr_nonnull (m.skipped[TU_MODE_STREAMED]);
  g_assert_error (m.error[TU_MODE_STREAMED], WL_ERROR, SIM_ERROR_INPUT);
  ck_assert_ptr_nonnull (strstr (m.error[TU_MODE_STREAMED]->message, "dangling"));
  ck_assert_ptr_nonnull (m.sim[TU_MODE_EVERY_RANK]);
  ck_assert_uint_eq (app_sim_end_time (m.sim[TU_MODE_AUTO]), sim_time_from_us (3));
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}
END_TEST

/* A failure is the same failure in every mode. */
START_TEST (test_same_error_every_mode)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, 4);
  g_autofree char *wl = tu_scratch_path ("stuck");
  for (guint32 r = 0; r < 4; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_p2p (1, T_RECV, (r + 3) % 4, r, 0, 1000) };
      tu_write_rank (wl, r, nodes, 1);
    }
  TuSimModes m;
  tu_sim_modes_run (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, &m);
  for (TuMode mode = TU_MODE_AUTO; mode < TU_N_MODES; mode++)
    g_assert_error (m.error[mode], SIM_ERROR, SIM_ERROR_DEADLOCK);
  tu_sim_modes_clear (&m);
  app_config_clear (&cfg);
}
END_TEST

/* The binary variant: the same run three ways gives the same output. */
START_TEST (test_binary_modes_agree)
{
  g_autofree char *wl = write_allreduce ();
  g_autofree char *cluster = tu_write_file ("c.xml", tu_cluster_c4x2);
  g_autofree char *wl8 = tu_scratch_path ("ar8");
  for (guint32 r = 0; r < 8; r++)
    {
      ChakraProtoMsg__Node *nodes[] = { tu_coll (1, 0, 1 << 20) };
      tu_write_rank (wl8, r, nodes, 1);
    }
  g_autofree char *stats = tu_scratch_path ("s.csv");
  const char *argv[] = { tu_orrery (), "run", "--config", cluster, "--workload", wl8,
                         "--stats", stats, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run_modes (&out, argv), 0);
  ck_assert_ptr_nonnull (strstr (out, "symmetric: "));
  ck_assert (g_file_test (stats, G_FILE_TEST_EXISTS));
}
END_TEST

/* A binary whose output depends on the options: tu_run_modes must stop
 * (its message is silenced: the failure is the expected outcome). */
START_TEST (test_binary_modes_disagree)
{
  ck_assert_ptr_nonnull (freopen ("/dev/null", "w", stderr));
  ck_assert_ptr_nonnull (freopen ("/dev/null", "w", stdout));
  g_autofree char *fake = tu_write_file ("fake", "#!/bin/sh\necho \"$@\"\n");
  ck_assert_int_eq (g_chmod (fake, 0755), 0);
  const char *argv[] = { fake, "run", NULL };
  tu_run_modes (NULL, argv);
}
END_TEST

static Suite *
modes_suite (void)
{
  Suite *s = suite_create ("modes");
  TCase *tc = tu_tcase (s, "modes", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_same_results_agree);
  tcase_add_test (tc, test_detects_each_figure);
  tcase_add_test (tc, test_events_and_links_only_every_rank);
  tcase_add_test (tc, test_detects_error_difference);
  tcase_add_test (tc, test_runs_every_mode);
  tcase_add_test (tc, test_refused_shortcut_recorded);
  tcase_add_test (tc, test_recording_skips_streamed);
  tcase_add_test (tc, test_stream_refusal_recorded);
  tcase_add_test (tc, test_same_error_every_mode);
  tcase_add_test (tc, test_binary_modes_agree);
  tcase_add_test_raise_signal (tc, test_binary_modes_disagree, SIGABRT);
  return s;
}

int
main (void)
{
  return tu_run_suite (modes_suite ());
}
