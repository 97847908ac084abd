/* test_graph.c: explicit network graphs: checks, widest-then-shortest paths, equal-cost
 * spreading, and whole runs over a graph given in the cluster XML.
 *
 * Expected values are worked by hand in the comments.
 */
#include <check.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "workload/gen.h"
#include "support/modes.h"
#include "support/testutil.h"

#define NS(x) ((SimTime) (x) * 1000)

/* Two groups of two ranks, each group on its own leaf switch, the leaves
 * joined by two spine switches (two equal-cost paths between the groups). */
static NetGraphSpec *
two_spines (void)
{
  NetGraphSpec *g = net_graph_spec_new (4);
  guint32 leaf0 = net_graph_spec_add_switch (g, "leaf0");
  guint32 leaf1 = net_graph_spec_add_switch (g, "leaf1");
  guint32 spine0 = net_graph_spec_add_switch (g, "spine0");
  guint32 spine1 = net_graph_spec_add_switch (g, "spine1");
  net_graph_spec_add_link (g, 0, leaf0, 1e9, NS (10), TRUE, 1);
  net_graph_spec_add_link (g, 1, leaf0, 1e9, NS (10), TRUE, 2);
  net_graph_spec_add_link (g, 2, leaf1, 1e9, NS (10), TRUE, 3);
  net_graph_spec_add_link (g, 3, leaf1, 1e9, NS (10), TRUE, 4);
  for (guint32 s = spine0; s <= spine1; s++)
    {
      net_graph_spec_add_link (g, leaf0, s, 1e9, NS (10), TRUE, 5);
      net_graph_spec_add_link (g, leaf1, s, 1e9, NS (10), TRUE, 6);
    }
  return g;
}

/* Within a group: 2 links; across: 4 (rank, leaf, spine, leaf, rank).
 * Routes are stable, and across pairs take both spines between them. */
START_TEST (test_paths_and_ecmp)
{
  g_autoptr (NetGraphSpec) spec = two_spines ();
  GError *error = NULL;
  g_autoptr (NetGraph) g = net_graph_new (spec, &error);
  g_assert_no_error (error);
  ck_assert_uint_eq (net_graph_hops (g, 0, 1), 2);
  ck_assert_uint_eq (net_graph_hops (g, 0, 3), 4);
  gboolean used[2] = { FALSE, FALSE };
  for (guint32 src = 0; src < 2; src++)
    for (guint32 dst = 2; dst < 4; dst++)
      {
        guint32 first = net_graph_next (g, src, src, dst);
        guint32 leaf = net_graph_link (g, first)->to;
        guint32 up = net_graph_next (g, leaf, src, dst);
        guint32 spine = net_graph_link (g, up)->to;
        ck_assert (spine == 6 || spine == 7);
        ck_assert_uint_eq (net_graph_next (g, leaf, src, dst), up); /* stable */
        used[spine - 6] = TRUE;
      }
  ck_assert (used[0] && used[1]);
}
END_TEST

/* r0 and r1 joined directly by a narrow 10 GB/s link (1 hop), through
 * switch "s" by 100 GB/s links (2 hops), and through "a" then "b" by
 * 100 GB/s links (3 hops); r2 hangs off r0 by a 10 GB/s link.  Widest then
 * shortest: r0 -> r1 goes through s (100 GB/s beats the direct 10 GB/s,
 * and 2 hops beat a-b's 3), as does r1 -> r0.  r2 -> r1 is at most
 * 10 GB/s wide whatever it takes (its only link), so it takes the fewest
 * links of those at least 10 GB/s wide: r2, r0, r1 (2 hops), not through
 * s (3): the width asked for is the source's, not r0's own widest. */
static NetGraphSpec *
narrow_shortcut (void)
{
  NetGraphSpec *g = net_graph_spec_new (3);
  guint32 s = net_graph_spec_add_switch (g, "s");
  guint32 a = net_graph_spec_add_switch (g, "a");
  guint32 b = net_graph_spec_add_switch (g, "b");
  net_graph_spec_add_link (g, 0, 1, 10e9, NS (10), TRUE, 1);
  net_graph_spec_add_link (g, 0, s, 100e9, NS (10), TRUE, 2);
  net_graph_spec_add_link (g, s, 1, 100e9, NS (10), TRUE, 3);
  net_graph_spec_add_link (g, 0, a, 100e9, NS (10), TRUE, 4);
  net_graph_spec_add_link (g, a, b, 100e9, NS (10), TRUE, 5);
  net_graph_spec_add_link (g, b, 1, 100e9, NS (10), TRUE, 6);
  net_graph_spec_add_link (g, 2, 0, 10e9, NS (10), TRUE, 7);
  return g;
}

START_TEST (test_widest_then_shortest)
{
  g_autoptr (NetGraphSpec) spec = narrow_shortcut ();
  GError *error = NULL;
  g_autoptr (NetGraph) g = net_graph_new (spec, &error);
  g_assert_no_error (error);
  const guint32 s = 3;
  ck_assert_uint_eq (net_graph_hops (g, 0, 1), 2);
  ck_assert_uint_eq (net_graph_hops (g, 1, 0), 2);
  const NetGraphLink *up = net_graph_link (g, net_graph_next (g, 0, 0, 1));
  ck_assert_uint_eq (up->to, s);
  ck_assert_uint_eq (net_graph_link (g, net_graph_next (g, s, 0, 1))->to, 1);
  ck_assert_uint_eq (net_graph_link (g, net_graph_next (g, 1, 1, 0))->to, s);
  ck_assert_uint_eq (net_graph_hops (g, 2, 1), 2);
  ck_assert_uint_eq (net_graph_link (g, net_graph_next (g, 2, 2, 1))->to, 0);
  const NetGraphLink *direct = net_graph_link (g, net_graph_next (g, 0, 2, 1));
  ck_assert_uint_eq (direct->to, 1);
  ck_assert (direct->bandwidth_Bps == 10e9);
  /* r1 -> r2: 10 GB/s at best (r2's link), 2 hops through r0. */
  ck_assert_uint_eq (net_graph_hops (g, 1, 2), 2);
  ck_assert_uint_eq (net_graph_link (g, net_graph_next (g, 1, 1, 2))->to, 0);
}
END_TEST

START_TEST (test_graph_errors)
{
  GError *error = NULL;
  g_autoptr (NetGraphSpec) split = net_graph_spec_new (3);
  guint32 sw = net_graph_spec_add_switch (split, "sw");
  net_graph_spec_add_link (split, 0, sw, 1e9, 0, TRUE, 7);
  net_graph_spec_add_link (split, 1, sw, 1e9, 0, TRUE, 8);
  split->source = g_strdup ("c.xml");
  ck_assert_ptr_null (net_graph_new (split, &error));
  tu_assert_input_error (error, "c.xml: the network is not connected: r2 cannot reach r0");
  g_clear_error (&error);
  net_graph_spec_add_link (split, 2, 9, 1e9, 0, FALSE, 12);
  ck_assert_ptr_null (net_graph_new (split, &error));
  tu_assert_input_error (error, "c.xml:12: link names a device that does not exist");
  g_clear_error (&error);
}
END_TEST

static AppSim *
run_xml (const char *xml, const char *model, GError **error)
{
  g_autofree char *path = tu_scratch_path ("net.xml");
  g_assert_true (g_file_set_contents (path, xml, -1, NULL));
  static AppConfig cfg;
  app_config_init (&cfg);
  if (!app_config_load_xml (&cfg, path, error))
    {
      app_config_clear (&cfg);
      return NULL;
    }
  net_model_parse (model, &cfg.net.model);
  g_autofree char *wl = tu_scratch_path ("a2a");
  g_assert_true (wl_gen_collective (wl, SYS_COLL_ALL_TO_ALL, 4, 4000, NULL));
  AppSim *sim = tu_sim_all_modes (&(TuSimRequest) { .cfg = &cfg, .prefix = wl }, error);
  if (sim == NULL)
    app_config_clear (&cfg);
  return sim;
}

static const char *star
    = "<cluster rounding=\"ps\">\n"
      "  <network ranks=\"4\">\n"
      "    <switch id=\"sw\"/>\n"
      "    <link from=\"r0\" to=\"sw\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "    <link from=\"r1\" to=\"sw\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "    <link from=\"r2\" to=\"sw\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "    <link from=\"r3\" to=\"sw\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "  </network>\n"
      "  <system endpoint-delay=\"0ns\" splits=\"1\" reduction-passes=\"0\"/>\n"
      "</cluster>\n";

/* A ring all-to-all of 4000 bytes on 4 ranks around a switch: 6 steps of
 * 1000-byte messages r_i -> sw -> r_i+1.  analytical: 200 ns + 1000 ns a
 * step; flow: the same (one flow per link at a time); congestion: store
 * and forward, 2 x (100 + 1000) ns a step. */
START_TEST (test_xml_graph_models)
{
  static const struct
  {
    const char *model;
    SimTime step;
  } cases[] = { { "analytical", NS (1200) }, { "flow", NS (1200) }, { "congestion", NS (2200) } };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      GError *error = NULL;
      AppSim *sim = run_xml (star, cases[i].model, &error);
      g_assert_no_error (error);
      ck_assert_uint_eq (app_sim_end_time (sim), 6 * cases[i].step);
      const AppConfig *cfg = app_sim_config (sim);
      app_sim_free (sim);
      app_config_clear ((AppConfig *) cfg);
    }
}
END_TEST

START_TEST (test_xml_graph_errors)
{
  GError *error = NULL;
  g_autofree char *bad = g_strdup (star);
  char *at = strstr (bad, "to=\"sw\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n    <link from=\"r3\"");
  memcpy (at, "to=\"sx\"", 7);
  ck_assert_ptr_null (run_xml (bad, "flow", &error));
  tu_assert_input_error (error, "net.xml:6: <link>: no rank or switch named 'sx'");
  g_clear_error (&error);

  g_autofree char *cut = g_strdup (star);
  at = strstr (cut, "    <link from=\"r3\"");
  memset (at, ' ', strchr (at, '\n') - at);
  ck_assert_ptr_null (run_xml (cut, "flow", &error));
  tu_assert_input_error (error, "the network is not connected: r3 cannot reach r0");
  g_clear_error (&error);

  g_autofree char *dims = g_strdup (star);
  at = strstr (dims, "<network ranks=\"4\">");
  memcpy (at, "<network ranks=\"5\">", 19);
  ck_assert_ptr_null (run_xml (dims, "flow", &error));
  tu_assert_input_error (error, "r4 cannot reach r0");
  g_clear_error (&error);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("graph");
  tcase_add_test (tu_tcase (s, "paths_and_ecmp", NULL, NULL, 0), test_paths_and_ecmp);
  tcase_add_test (tu_tcase (s, "widest_then_shortest", NULL, NULL, 0),
                  test_widest_then_shortest);
  tcase_add_test (tu_tcase (s, "graph_errors", NULL, NULL, 0), test_graph_errors);
  tcase_add_test (tu_tcase (s, "xml_graph_models", tu_scratch_setup, tu_scratch_teardown, 0),
                  test_xml_graph_models);
  tcase_add_test (tu_tcase (s, "xml_graph_errors", tu_scratch_setup, tu_scratch_teardown, 0),
                  test_xml_graph_errors);
  return tu_run_suite (s);
}
