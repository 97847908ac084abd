/* test_rescale.c: data-parallel trace sets rescaled from 8 ranks to 64:
 * the sizes read back, the simulated times against the ring closed forms,
 * and the traces it refuses.
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "sim/error.h"
#include "workload/rescale.h"
#include "workload/wl_error.h"
#include "support/modes.h"
#include "support/testutil.h"

enum { T_META = 1, T_COMP = 4, T_SEND = 5, T_COLL = 7 };

#define AR_BYTES 8000 /* all-reduce: the whole gradient buffer */
#define AG_BYTES 1000 /* all-gather: each of 8 ranks' input */

static ChakraProtoMsg__Node *
coll (guint64 id, int comm_type, gint64 bytes, guint64 dep)
{
  ChakraProtoMsg__Node *n = tu_node_new (id, T_COLL, "coll");
  tu_node_attr_int (n, "comm_type", comm_type);
  tu_node_attr_int (n, "comm_size", bytes);
  tu_node_dep (n, dep);
  return n;
}

/* Write an 8-rank trace set: METADATA (group 1 = all 8 ranks, or the
 * `group` given), 10 us of compute, an all-reduce on pg_name "1", then an
 * all-gather on the world.  Rank `odd` (if below 8) gets a different
 * all-gather size; `send` adds a send after the compute. */
static char *
write_dp (const char *name, const char *group, guint32 odd, gboolean send)
{
  char *p = tu_scratch_path (name);
  for (guint32 r = 0; r < 8; r++)
    {
      ChakraProtoMsg__Node *meta = tu_node_new (1, T_META, "pgs");
      g_autofree char *json = g_strdup_printf ("[{\"pg_name\": \"1\", \"ranks\": %s}]",
                                               group ? group : "[0, 1, 2, 3, 4, 5, 6, 7]");
      tu_node_inputs (meta, json);
      ChakraProtoMsg__Node *work = tu_node_new (2, T_COMP, "fwd_bwd");
      work->duration_micros = 10;
      tu_node_dep (work, 1);
      ChakraProtoMsg__Node *ar = coll (3, 0, AR_BYTES, 2);
      tu_node_attr_string (ar, "pg_name", "1");
      ChakraProtoMsg__Node *ag = coll (4, 2, r == odd ? 2 * AG_BYTES : AG_BYTES, 3);
      ChakraProtoMsg__Node *nodes[5] = { meta, work, ar, ag };
      guint n = 4;
      if (send)
        {
          nodes[n] = tu_node_new (5, T_SEND, "send");
          tu_node_attr_int (nodes[n], "comm_src", r);
          tu_node_attr_int (nodes[n], "comm_dst", (r + 1) % 8);
          tu_node_attr_int (nodes[n], "comm_size", 64);
          tu_node_dep (nodes[n], 2);
          n++;
        }
      tu_write_rank (p, r, nodes, n);
    }
  return p;
}

static gint64
attr_int (const ChakraProtoMsg__Node *n, const char *name)
{
  gint64 v = -1;
  ck_assert (wl_chakra_attr_int (n, name, &v, NULL));
  return v;
}

/* Simulate PREFIX on tu_exact_ring's ring of `ranks` (1 byte per ns,
 * 100 ns per hop); the finish time of every rank (all equal). */
static SimTime
simulate (const char *prefix, guint32 ranks, SimTime *compute)
{
  AppConfig cfg;
  tu_exact_ring (&cfg, ranks);
  AppSim *sim = tu_sim_all_modes_ok (&cfg, prefix);
  const WlRankStats *st0 = wl_replay_rank_stats (app_sim_replay (sim), 0);
  SimTime finish = st0->finish;
  *compute = st0->compute;
  for (guint32 r = 1; r < ranks; r++)
    {
      const WlRankStats *st = wl_replay_rank_stats (app_sim_replay (sim), r);
      ck_assert_uint_eq (st->finish, finish);
      ck_assert_uint_eq (st->compute, *compute);
    }
  app_sim_free (sim);
  app_config_clear (&cfg);
  return finish;
}

/* Ring closed forms on q ranks: all-reduce of c bytes, 2(q-1) steps of c/q;
 * all-gather of input a per rank, q-1 steps of a. */
static SimTime
ring_time (guint32 q, guint64 ar, guint64 ag)
{
  return 2 * (q - 1) * sim_time_from_ns (100 + ar / q) + (q - 1) * sim_time_from_ns (100 + ag);
}

START_TEST (test_rescale_8_to_64)
{
  g_autofree char *from = write_dp ("dp8", NULL, 8, FALSE);
  g_autofree char *to = tu_scratch_path ("dp64");
  GError *error = NULL;
  guint32 p = 0;
  ck_assert (wl_rescale (from, 64, to, &p, &error));
  g_assert_no_error (error);
  ck_assert_uint_eq (p, 8);
  g_autofree char *last = g_strdup_printf ("%s.64.et", to);
  ck_assert (!g_file_test (last, G_FILE_TEST_EXISTS));

  g_autofree char *path = g_strdup_printf ("%s.63.et", to);
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  ck_assert_str_eq (wl_chakra_reader_version (rd), "0.0.4");
  g_autoptr (ChakraProtoMsg__Node) meta = wl_chakra_reader_next (rd, &error);
  g_autoptr (ChakraProtoMsg__Node) work = wl_chakra_reader_next (rd, &error);
  g_autoptr (ChakraProtoMsg__Node) ar = wl_chakra_reader_next (rd, &error);
  g_autoptr (ChakraProtoMsg__Node) ag = wl_chakra_reader_next (rd, &error);
  ck_assert_ptr_null (wl_chakra_reader_next (rd, &error));
  g_assert_no_error (error);
  GString *want = g_string_new ("['[{\"pg_name\": \"1\", \"ranks\": [0");
  for (guint r = 1; r < 64; r++)
    g_string_append_printf (want, ", %u", r);
  g_string_append (want, "]}]']");
  ck_assert_str_eq (meta->inputs->values, want->str);
  g_string_free (want, TRUE);
  ck_assert_uint_eq (work->duration_micros, 10);
  ck_assert_int_eq (attr_int (ar, "comm_size"), AR_BYTES);
  ck_assert_int_eq (attr_int (ag, "comm_size"), AG_BYTES * 8 / 64);
  ck_assert_uint_eq (ag->n_data_deps, 1);
  ck_assert_uint_eq (ag->data_deps[0], 3);

  SimTime c8, c64;
  SimTime t8 = simulate (from, 8, &c8);
  SimTime t64 = simulate (to, 64, &c64);
  ck_assert_uint_eq (c8, sim_time_from_us (10));
  ck_assert_uint_eq (c64, c8);
  ck_assert_uint_eq (t8, sim_time_from_us (10) + ring_time (8, AR_BYTES, AG_BYTES));
  ck_assert_uint_eq (t64, sim_time_from_us (10) + ring_time (64, AR_BYTES, AG_BYTES * 8 / 64));
}
END_TEST

static void
expect_refusal (const char *from, guint32 q, const char *const *needles)
{
  g_autofree char *to = tu_scratch_path ("out");
  GError *error = NULL;
  ck_assert (!wl_rescale (from, q, to, NULL, &error));
  g_assert_error (error, WL_ERROR, SIM_ERROR_INPUT);
  for (const char *const *n = needles; *n != NULL; n++)
    ck_assert_msg (strstr (error->message, *n) != NULL, "'%s' not in: %s", *n, error->message);
  g_error_free (error);
  g_autofree char *first = g_strdup_printf ("%s.0.et", to);
  ck_assert (!g_file_test (first, G_FILE_TEST_EXISTS));
}

START_TEST (test_refusals)
{
  g_autofree char *send = write_dp ("send", NULL, 8, TRUE);
  expect_refusal (send, 16,
                  (const char *[]) { "send.0.et node 5: COMM_SEND_NODE is point-to-point", NULL });
  g_autofree char *sub = write_dp ("sub", "[0, 1, 2, 3]", 8, FALSE);
  expect_refusal (sub, 16,
                  (const char *[]) { "sub.0.et node 3: ALL_REDUCE on process group 1, a proper "
                                     "subgroup of the 8 ranks", NULL });
  g_autofree char *odd = write_dp ("odd", NULL, 5, FALSE);
  expect_refusal (odd, 16,
                  (const char *[]) { "odd.5.et node 4: differs from node 4 of ",
                                     "odd.0.et in its attributes", "ranks are not all the same",
                                     NULL });
  g_autofree char *fine = write_dp ("fine", NULL, 8, FALSE);
  expect_refusal (fine, 0, (const char *[]) { "cannot rescale to 0 ranks: need at least 1", NULL });
  g_autofree char *none = tu_scratch_path ("none");
  expect_refusal (none, 4, (const char *[]) { "no trace ", "none.0.et", NULL });
  /* METADATA groups are read as graph loading reads them: a rank that is
   * not a rank is refused, naming the node. */
  g_autofree char *bad = write_dp ("bad", "[0, -1, 2]", 8, FALSE);
  expect_refusal (bad, 16, (const char *[]) { "bad.0.et node 1: METADATA process group ranks "
                                              "must be ranks", NULL });
}
END_TEST

/* The command line: refusals exit 1 with the reason; success writes q files. */
START_TEST (test_cli)
{
  g_autofree char *from = write_dp ("cli", NULL, 8, FALSE);
  g_autofree char *to = tu_scratch_path ("cli4");
  g_autofree char *out = NULL;
  const char *ok[] = { tu_orrery (), "rescale", "--from", from, "--ranks", "4", "--out", to, NULL };
  ck_assert_int_eq (tu_run (&out, ok), 0);
  ck_assert_msg (strstr (out, "rescaled 8 ranks to 4") != NULL, "%s", out);
  g_autofree char *f3 = g_strdup_printf ("%s.3.et", to);
  ck_assert (g_file_test (f3, G_FILE_TEST_EXISTS));
  g_free (g_steal_pointer (&out));
  g_autofree char *sub = write_dp ("clisub", "[0, 2]", 8, FALSE);
  const char *bad[] = { tu_orrery (), "rescale", "--from", sub, "--ranks", "4", "--out", to, NULL };
  ck_assert_int_eq (tu_run (&out, bad), 1);
  ck_assert_msg (strstr (out, "a proper subgroup") != NULL, "%s", out);
}
END_TEST

static Suite *
rescale_suite (void)
{
  Suite *s = suite_create ("rescale");
  TCase *tc = tu_tcase (s, "rescale", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_rescale_8_to_64);
  tcase_add_test (tc, test_refusals);
  tcase_add_test (tc, test_cli);
  return s;
}

int
main (void)
{
  return tu_run_suite (rescale_suite ());
}
