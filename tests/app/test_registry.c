/* test_registry.c: the registries of algorithms, link models and topology
 * generators are whole.
 *
 * 1. A throwaway algorithm, link model and generator, defined only in this
 *    file and added through the public registry API, run a simulation whose
 *    result is worked out by hand.
 * 2. The schema compiled into the binary (configs/cluster.rng) and the
 *    `--help` text list exactly what the tables hold.
 *
 * Layer: tests.  May include: every layer.
 */
#include <check.h>
#include <string.h>

#include "cluster_rng.h"
#include "network/gen_topo.h"
#include "network/net.h"
#include "sim/app/simulation.h"
#include "sim/app/xml_lib.h"
#include "system/algo.h"
#include "workload/gen.h"
#include "support/testutil.h"

/* ---- the throwaway rows ------------------------------------------------------ */

/* "fixed": every message arrives exactly 1 us after it leaves. */
#define FIXED_DELAY sim_time_from_us (1)

static void
fixed_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
            SimHandler on_delivered, gpointer data, guint64 arg)
{
  (void) src, (void) dst, (void) bytes;
  sim_sched_at (net_sched (net), at + FIXED_DELAY, on_delivered, data, arg);
}

static const NetModelClass fixed_model = {
  .name = "fixed",
  .help = "every message 1 us",
  .sharing = NET_SHARING_NONE,
  .send = fixed_send,
};

/* "shout": each member sends its whole input to its successor on the line
 * once, after the endpoint delay e, and is done when its predecessor's
 * message has arrived: a phase takes e + D on every member. */
static void
shout_finish_if_done (const SysPhaseCtx *ctx, SysRun *run)
{
  if (run->started && run->arrived == 1)
    sys_phase_finish (ctx, MAX (sys_phase_now (ctx), run->busy_until));
}

static void
shout_start (const SysPhaseCtx *ctx, SysRun *run)
{
  SimTime at = sys_phase_now (ctx) + sys_phase_endpoint_delay (ctx);
  sys_phase_send (ctx, (ctx->pos + 1) % ctx->n, 0, ctx->in_bytes, at);
  run->busy_until = at;
  shout_finish_if_done (ctx, run);
}

static void
shout_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  ck_assert_uint_eq (step, 0);
  run->arrived++;
  shout_finish_if_done (ctx, run);
}

static const SysAlgoClass shout_algo = {
  .name = "shout",
  .help = "one message to the successor",
  .timing = SYS_TIMING_NATIVE,
  .kinds = SYS_KIND_BIT (SYS_COLL_ALL_REDUCE),
  .alike = SYS_ALIKE_ALWAYS,
  .disjoint_links = TRUE,
  .start = shout_start,
  .on_message = shout_on_message,
};

/* The same messages, but claiming its members differ: the symmetric
 * shortcut must refuse with this class's reason. */
static const SysAlgoClass mumble_algo = {
  .name = "mumble",
  .help = "shout, members unlike",
  .timing = SYS_TIMING_NATIVE,
  .kinds = SYS_KIND_BIT (SYS_COLL_ALL_REDUCE),
  .alike = SYS_ALIKE_NEVER,
  .unlike_why = "mumble: its members differ",
  .links_why = "mumble: its members differ",
  .start = shout_start,
  .on_message = shout_on_message,
};

/* "bus": N ranks (attribute ranks) on one switch "bus"; one Switch
 * dimension of N. */
static gboolean
bus_count (const NetGenParams *p, NetGenCounts *c, GError **error)
{
  if (!net_gen_check_link (p, &p->any.link[0], "the bandwidth", error))
    return FALSE;
  c->ranks = p->any.count[0];
  c->switches = 1;
  c->links = p->any.count[0];
  return TRUE;
}

static void
bus_build (const NetGenParams *p, NetGraphSpec *g, NetSpec *spec)
{
  guint32 bus = net_gen_switch (g, "bus");
  for (guint32 r = 0; r < p->any.count[0]; r++)
    net_gen_link (g, p, r, bus, &p->any.link[0]);
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_DEFAULT, p->any.count[0], &p->any.link[0]);
}

static const NetGenAttr bus_attrs[] = {
  { "ranks", NET_GEN_ATTR_COUNT, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, any.count[0]), NULL },
  { "", NET_GEN_ATTR_LINK, TRUE, 0, G_STRUCT_OFFSET (NetGenParams, any.link[0]), NULL },
  { NULL },
};

static const NetGenClass bus_gen = {
  .name = "bus",
  .help = "every rank on one switch",
  .attrs = bus_attrs,
  .count = bus_count,
  .build = bus_build,
};

static NetModelKind fixed_kind;
static NetGenKind bus_kind;

/* Registers the rows once per process (Check may run every test in one). */
static void
register_rows (void)
{
  GError *error = NULL;
  if (sys_algo_lookup ("shout", NULL) != NULL)
    return;
  ck_assert (sys_algo_register (&shout_algo, &error));
  ck_assert (sys_algo_register (&mumble_algo, &error));
  ck_assert (net_model_register (&fixed_model, &fixed_kind, &error));
  ck_assert (net_gen_register (&bus_gen, &bus_kind, &error));
  g_assert_no_error (error);
}

/* Two all-reduces of `bytes` per rank on 4 ranks, back to back. */
static char *
two_all_reduces (guint64 bytes)
{
  char *prefix = tu_scratch_path ("two");
  WlGenCollective req = { .kind = SYS_COLL_ALL_REDUCE, .ranks = 4, .bytes = bytes,
                          .stride = 1, .count = 2 };
  GError *error = NULL;
  ck_assert (wl_gen_collective_full (prefix, &req, &error));
  g_assert_no_error (error);
  return prefix;
}

static AppSim *
run (const AppConfig *cfg, const char *prefix, gboolean symmetry)
{
  GError *error = NULL;
  AppSim *sim = app_sim_new (cfg, prefix, &error);
  g_assert_no_error (error);
  app_sim_set_symmetry (sim, symmetry);
  ck_assert (app_sim_run (sim, &error));
  g_assert_no_error (error);
  return sim;
}

static void
use_algorithm (AppConfig *cfg, const char *name)
{
  const char *names[] = { name };
  ck_assert (sys_params_set_impl (&cfg->sys, SYS_COLL_ALL_REDUCE, names, 1, NULL));
}

/* The three rows found by name, rejected twice, and run together: on the
 * bus of 4 ranks each all-reduce is one phase of e + D = 10 ns + 1 us on
 * every member, so two back to back end at 2 (e + D); 4 messages each. */
START_TEST (test_throwaway_rows)
{
  register_rows ();
  GError *error = NULL;
  ck_assert (!sys_algo_register (&shout_algo, &error));
  g_clear_error (&error);
  ck_assert (!net_model_register (&fixed_model, NULL, &error));
  g_clear_error (&error);
  ck_assert (!net_gen_register (&bus_gen, NULL, &error));
  g_clear_error (&error);
  NetModelKind m;
  NetGenKind gk;
  ck_assert (net_model_parse ("Fixed", &m) && m == fixed_kind);
  ck_assert (net_gen_parse_name ("bus", &gk) && gk == bus_kind);
  ck_assert_ptr_eq (sys_algo_lookup ("shout", NULL), &shout_algo);

  AppConfig cfg;
  app_config_init (&cfg);
  NetGenParams p = { .kind = bus_kind };
  p.any.count[0] = 4;
  p.any.link[0] = (NetGenLink) { .bandwidth_Bps = 1e9, .latency = 0 };
  ck_assert (net_gen_topology (&p, &cfg.net, &cfg.graph, &error));
  g_assert_no_error (error);
  ck_assert_uint_eq (cfg.graph->switches, 1);
  ck_assert_uint_eq (cfg.graph->links->len, 2 * 4);
  ck_assert_uint_eq (cfg.net.n_dims, 1);
  ck_assert_uint_eq (cfg.net.dims[0].size, 4);
  cfg.net.model = fixed_kind;
  use_algorithm (&cfg, "shout");
  g_autofree char *prefix = two_all_reduces (1000);
  AppSim *sim = run (&cfg, prefix, TRUE);
  SimTime e = sim_time_from_ns (10);
  ck_assert_uint_eq (app_sim_end_time (sim), 2 * (e + FIXED_DELAY));
  ck_assert_uint_eq (net_messages (app_sim_net (sim)), 2 * 4);
  ck_assert_uint_eq (net_bytes (app_sim_net (sim)), 2 * 4 * 1000);
  ck_assert_str_eq (net_model_name (app_sim_net (sim)), "fixed");
  /* A generated network is an explicit graph: no shortcut. */
  ck_assert (!app_sim_symmetric (sim));
  app_sim_free (sim);
  app_config_clear (&cfg);
}
END_TEST

/* On plain dimensions the symmetric shortcut asks the class: shout (alike,
 * neighbours only) takes it and gives the same time; mumble refuses with
 * its own reason. */
START_TEST (test_shortcut_asks_the_class)
{
  register_rows ();
  g_autofree char *prefix = two_all_reduces (1000);
  SimTime e = sim_time_from_ns (10);
  static const char *const algos[] = { "shout", "mumble" };
  for (guint a = 0; a < G_N_ELEMENTS (algos); a++)
    {
      AppConfig cfg;
      app_config_init (&cfg);
      cfg.net.n_dims = 1;
      cfg.net.dims[0] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = 4,
                                       .bandwidth_Bps = 1e9, .latency = 0 };
      cfg.net.model = fixed_kind;
      use_algorithm (&cfg, algos[a]);
      AppSim *sim = run (&cfg, prefix, TRUE);
      ck_assert_uint_eq (app_sim_end_time (sim), 2 * (e + FIXED_DELAY));
      ck_assert_int_eq (app_sim_symmetric (sim), a == 0);
      if (a == 1)
        ck_assert_str_eq (app_sim_not_symmetric (sim), "mumble: its members differ");
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

/* ---- the schema and --help follow the tables ---------------------------------- */

#define RNG_NS "http://relaxng.org/ns/structure/1.0"

/* The string values of an XPath over the compiled-in schema, in document
 * order, as one comma-separated string. */
static char *
schema_list (const char *xpath)
{
  xmlDocPtr doc = xmlReadMemory ((const char *) cluster_rng, sizeof cluster_rng, "cluster.rng",
                                 NULL, XML_PARSE_NONET);
  ck_assert_ptr_nonnull (doc);
  xmlXPathContextPtr ctx = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (ctx, BAD_CAST "rng", BAD_CAST RNG_NS);
  xmlXPathObjectPtr res = xmlXPathEvalExpression (BAD_CAST xpath, ctx);
  ck_assert_msg (res != NULL && res->nodesetval != NULL, "%s: no match", xpath);
  GString *out = g_string_new (NULL);
  for (int i = 0; i < res->nodesetval->nodeNr; i++)
    {
      xmlChar *text = xmlNodeGetContent (res->nodesetval->nodeTab[i]);
      g_string_append_printf (out, "%s%s", i ? "," : "", (const char *) text);
      xmlFree (text);
    }
  xmlXPathFreeObject (res);
  xmlXPathFreeContext (ctx);
  xmlFreeDoc (doc);
  return g_string_free (out, FALSE);
}

START_TEST (test_schema_models)
{
  g_autofree char *schema = schema_list (
      "//rng:element[@name='network']/rng:optional/rng:attribute[@name='model']//rng:value");
  GString *table = g_string_new (NULL);
  for (guint i = 0; i < net_model_count (); i++)
    g_string_append_printf (table, "%s%s", i ? "," : "", net_model_name_of ((NetModelKind) i));
  g_autofree char *t = g_string_free (table, FALSE);
  ck_assert_str_eq (schema, t);
}
END_TEST

/* The algorithm names: every native row, then every flat variant; the
 * pattern takes a window after exactly the windowed ones. */
START_TEST (test_schema_algorithms)
{
  g_autofree char *schema = schema_list (
      "//rng:element[@name='algorithm']/rng:choice/rng:attribute[@name='dims']//rng:value");
  g_autofree char *pattern = schema_list (
      "//rng:element[@name='algorithm']/rng:choice/rng:attribute[@name='dims']//rng:param[@name='pattern']");
  GString *names = g_string_new (NULL), *windowed = g_string_new (NULL);
  for (guint flat = 0; flat < 2; flat++)
    for (guint i = 0; i < sys_algo_count (); i++)
      {
        const SysAlgoClass *a = sys_algo_nth (i);
        if (a->timing != SYS_TIMING_NATIVE || (flat && !a->flat_variant))
          continue;
        g_autofree char *name = flat ? sys_algo_flat_name (a) : g_strdup (a->name);
        g_string_append_printf (names, "%s%s", names->len ? "," : "", name);
        if (a->windowed)
          g_string_append_printf (windowed, "%s%s", windowed->len ? "|" : "", name);
      }
  g_autofree char *n = g_string_free (names, FALSE);
  g_autofree char *w = g_string_free (windowed, FALSE);
  ck_assert_str_eq (schema, n);
  g_autofree char *expected = g_strdup_printf ("(%s)[1-9][0-9]{0,8}", w);
  ck_assert_str_eq (pattern, expected);
  /* Every reference row stands for a native row of its name. */
  for (guint i = 0; i < sys_algo_count (); i++)
    if (sys_algo_nth (i)->timing == SYS_TIMING_REFERENCE)
      ck_assert_ptr_nonnull (sys_algo_lookup (sys_algo_nth (i)->name, NULL));
}
END_TEST

/* Each generator's element and its attributes, required or optional, as
 * its attribute table lists them. */
START_TEST (test_schema_generators)
{
  g_autofree char *schema = schema_list (
      "//rng:define[@name='generator']/rng:choice/rng:element/@name");
  GString *table = g_string_new (NULL);
  for (guint i = 0; i < net_gen_count (); i++)
    g_string_append_printf (table, "%s%s", i ? "," : "", net_gen_name ((NetGenKind) i));
  g_autofree char *t = g_string_free (table, FALSE);
  ck_assert_str_eq (schema, t);
  for (guint i = 0; i < net_gen_count (); i++)
    {
      const NetGenClass *g = net_gen_class ((NetGenKind) i);
      for (const NetGenAttr *a = g->attrs; a->name != NULL; a++)
        {
          g_auto (GStrv) names = a->type == NET_GEN_ATTR_LINK
                                     ? g_strsplit_set ("bandwidth latency", " ", -1)
                                     : g_strsplit (a->name, "\x01", -1);
          for (guint k = 0; names[k] != NULL; k++)
            {
              g_autofree char *full = a->type == NET_GEN_ATTR_LINK
                                          ? g_strconcat (a->name, names[k], NULL)
                                          : g_strdup (names[k]);
              g_autofree char *xp = g_strdup_printf (
                  "//rng:define[@name='generator']/rng:choice/rng:element[@name='%s']/%s"
                  "rng:attribute[@name='%s']/@name",
                  g->name, a->required ? "" : "rng:optional/", full);
              g_autofree char *found = schema_list (xp);
              ck_assert_msg (strcmp (found, full) == 0, "%s: attribute %s (%s)", g->name, full,
                             a->required ? "required" : "optional");
            }
        }
    }
}
END_TEST

/* The compatibility policy picks rows by timing: ASTRA-sim's where it has
 * its own, the native row otherwise; "one" and a window resolve alike. */
START_TEST (test_policy_picks_rows)
{
  SysCompat reference;
  sys_compat_reference (&reference);
  static const struct
  {
    const char *name;
    const SysAlgoClass *native, *reference;
    guint32 param;
    gboolean flat;
  } cases[] = {
    { "ring", &sys_algo_ring, &sys_algo_ring, 0, FALSE },
    { "direct", &sys_algo_direct, &sys_algo_direct_packets, 0, FALSE },
    { "oneDirect8", &sys_algo_direct, &sys_algo_direct_packets, 8, TRUE },
    { "halvingDoubling", &sys_algo_hd, &sys_algo_hd_reference, 0, FALSE },
    { "doubleBinaryTree", &sys_algo_dbt, &sys_algo_dbt_reference, 0, FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    for (guint r = 0; r < 2; r++)
      {
        SysAlgoRef ref;
        ck_assert (sys_algo_resolve (cases[i].name, r ? reference.timing : SYS_TIMING_NATIVE,
                                     &ref));
        ck_assert_ptr_eq (ref.algo, r ? cases[i].reference : cases[i].native);
        ck_assert_uint_eq (ref.param, cases[i].param);
        ck_assert_int_eq (ref.flat, cases[i].flat);
      }
  SysAlgoRef ref;
  ck_assert (!sys_algo_resolve ("direct0", SYS_TIMING_NATIVE, &ref));
  ck_assert (!sys_algo_resolve ("rign", reference.timing, &ref));
  /* The policy's subgroup algorithm is a row. */
  ck_assert (sys_algo_resolve (reference.subgroup_algorithm, reference.timing, &ref));
  ck_assert_ptr_eq (ref.algo, &sys_algo_ring);
}
END_TEST

/* `orrery run --help` describes every link model as its row does. */
START_TEST (test_help_models)
{
  GString *line = g_string_new ("Link model, overriding the config: ");
  guint n = net_model_count ();
  for (guint i = 0; i < n; i++)
    {
      const NetModelClass *m = net_model_class ((NetModelKind) i);
      g_string_append_printf (line, "%s%s (%s)", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                              m->name, m->help);
    }
  const char *argv[] = { tu_orrery (), "run", "--help", NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 0);
  ck_assert_msg (strstr (out, line->str) != NULL, "--help lacks: %s", line->str);
  g_string_free (line, TRUE);
}
END_TEST

/* A configured algorithm that a collective lacks is refused naming the
 * rows that collective has: the built-in all-to-all rows are ring and
 * direct (halving-doubling and the double binary tree reduce). */
START_TEST (test_unknown_pair_lists_rows)
{
  /* The shared 8-rank cluster, its <system> given one <algorithm>. */
  g_auto (GStrv) parts = g_strsplit (tu_cluster_c4x2, "reduction-passes=\"3\"/>", 2);
  ck_assert_uint_eq (g_strv_length (parts), 2);
  g_autofree char *cfg_text = g_strconcat (
      parts[0], "reduction-passes=\"3\">\n"
      "    <algorithm collective=\"all-to-all\" dims=\"halvingDoubling ring\"/>\n"
      "  </system>", parts[1], NULL);
  g_autofree char *cfg = tu_write_file ("hd.xml", cfg_text);
  g_autofree char *prefix = two_all_reduces (1024);
  const char *argv[] = { tu_orrery (), "run", "--config", cfg, "--workload", prefix, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run (&out, argv), 1);
  ck_assert_msg (strstr (out, "all_to_all: algorithm 'halvingDoubling' (dimension 0) does not "
                              "exist for this collective (it has: ring, direct)") != NULL,
                 "%s", out);

  /* With ASTRA-sim inputs the names resolve to the reference rows where
   * there are some (direct), else to the native ones (ring): the same two,
   * named when an all-to-all reaches the algorithm (ASTRA-sim accepts the
   * list and fails there), while all-reduces run. */
  g_autofree char *net = tu_write_file ("net.yml", "topology: [ Ring ]\nnpus_count: [ 4 ]\n"
                                                   "bandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n");
  g_autofree char *sys = tu_write_file (
      "sys.json", "{\"scheduling-policy\": \"LIFO\", \"endpoint-delay\": 10,\n"
                  " \"active-chunks-per-dimension\": 1, \"preferred-dataset-splits\": 4,\n"
                  " \"all-reduce-implementation\": [\"ring\"],\n"
                  " \"all-gather-implementation\": [\"ring\"],\n"
                  " \"reduce-scatter-implementation\": [\"ring\"],\n"
                  " \"all-to-all-implementation\": [\"halvingDoubling\"],\n"
                  " \"collective-optimization\": \"localBWAware\", \"local-mem-bw\": 1600}\n");
  const char *astra[] = { tu_orrery (), "run", "--astra-network", net, "--astra-system", sys,
                          "--workload", prefix, NULL };
  g_autofree char *aout = NULL;
  ck_assert_int_eq (tu_run (&aout, astra), 0);
  g_autofree char *a2a = tu_scratch_path ("a2a");
  WlGenCollective req = { .kind = SYS_COLL_ALL_TO_ALL, .ranks = 4, .bytes = 1024, .stride = 1,
                          .count = 1 };
  ck_assert (wl_gen_collective_full (a2a, &req, NULL));
  astra[7] = a2a;
  g_autofree char *a2a_out = NULL;
  ck_assert_int_eq (tu_run (&a2a_out, astra), 1);
  ck_assert_msg (strstr (a2a_out, "all_to_all on dimension 0: the config's algorithm "
                                  "'halvingDoubling' has no all_to_all (algorithms that have: "
                                  "ring, direct)") != NULL,
                 "%s", a2a_out);
}
END_TEST

/* A name is a row once: registering it again (a link model in other
 * case, as configs may write it) is refused and adds nothing. */
START_TEST (test_registered_twice)
{
  guint algos = sys_algo_count (), models = net_model_count ();
  GError *error = NULL;
  ck_assert (!sys_algo_register (&sys_algo_ring, &error));
  tu_assert_input_error (error, "algorithm 'ring' is registered twice");
  g_clear_error (&error);
  NetModelClass loud = fixed_model;
  loud.name = "ANALYTICAL";
  ck_assert (!net_model_register (&loud, NULL, &error));
  tu_assert_input_error (error, "link model 'ANALYTICAL' is registered twice");
  g_clear_error (&error);
  ck_assert_uint_eq (sys_algo_count (), algos);
  ck_assert_uint_eq (net_model_count (), models);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("registry");
  TCase *tc = tu_tcase (s, "registry", tu_scratch_setup, tu_scratch_teardown, 60);
  /* The tables as built first: the throwaway rows join them for good. */
  tcase_add_test (tc, test_schema_models);
  tcase_add_test (tc, test_schema_algorithms);
  tcase_add_test (tc, test_schema_generators);
  tcase_add_test (tc, test_help_models);
  tcase_add_test (tc, test_unknown_pair_lists_rows);
  tcase_add_test (tc, test_registered_twice);
  tcase_add_test (tc, test_policy_picks_rows);
  tcase_add_test (tc, test_throwaway_rows);
  tcase_add_test (tc, test_shortcut_asks_the_class);
  return tu_run_suite (s);
}
