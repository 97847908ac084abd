/* test_config.c: ASTRA-sim inputs and the native cluster XML (the units
 * they are written in are tested in tests/sim/test_units.c).
 *
 * Expected values are written out from the units' definitions (50 GiB/s =
 * 50 x 2^30 B/s, 936.25 ns = 936250 ps), never taken from earlier output.
 * The reference ASTRA-sim files come from $SHARED (default ../shared); tests
 * that need them print a note and pass when it is absent.  Every test that
 * writes files gets a fresh temporary directory.  Run from the repository
 * root (the XML tests read configs/).
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "sim/app/config.h"
#include "sim/error.h"
#include "support/testutil.h"

#define GIB 1073741824.0

/* $SHARED/sub, or NULL (with a note) when the shared tree is absent. */
static char *
shared_path (const char *sub)
{
  const char *root = g_getenv ("SHARED");
  char *path = g_build_filename (root != NULL ? root : "../shared", sub, NULL);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      printf ("note: %s absent, reference check skipped\n", path);
      g_free (path);
      return NULL;
    }
  return path;
}

/* Load a native XML file that must be accepted. */
static void
load_xml_ok (AppConfig *cfg, const char *path)
{
  GError *error = NULL;
  ck_assert_msg (app_config_load_xml (cfg, path, &error), "%s", error ? error->message : "");
}

/* Load ASTRA-sim inputs that must be accepted. */
static void
load_astra_ok (AppConfig *cfg, const char *yml, const char *sys, const char *mem)
{
  GError *error = NULL;
  ck_assert_msg (app_config_load_astra (cfg, yml, sys, mem, &error), "%s",
                 error ? error->message : "");
}

/* ------------------------------------------------------------------------ */
/* ASTRA-sim inputs                                                         */

static const char ring4chunks[] = "{\n"
                                  "  \"scheduling-policy\": \"LIFO\",\n"
                                  "  \"endpoint-delay\": 10,\n"
                                  "  \"active-chunks-per-dimension\": 1,\n"
                                  "  \"preferred-dataset-splits\": 4,\n"
                                  "  \"all-reduce-implementation\": [\"ring\"],\n"
                                  "  \"all-gather-implementation\": [\"ring\"],\n"
                                  "  \"reduce-scatter-implementation\": [\"ring\"],\n"
                                  "  \"all-to-all-implementation\": [\"ring\"],\n"
                                  "  \"collective-optimization\": \"localBWAware\",\n"
                                  "  \"local-mem-bw\": 1600,\n"
                                  "  \"boost-mode\": 0,\n"
                                  "  \"roofline-enabled\": 0,\n"
                                  "  \"peak-perf\": 900\n"
                                  "}\n";

static const char no_mem[] = "{ \"memory-type\": \"NO_MEMORY_EXPANSION\" }\n";

/* Load a YAML and a system JSON given as text; the error is the caller's. */
static gboolean
load_astra_text (AppConfig *cfg, const char *yml, const char *sys, GError **error)
{
  g_autofree char *y = tu_write_file ("net.yml", yml);
  g_autofree char *s = tu_write_file ("sys.json", sys);
  return app_config_load_astra (cfg, y, s, NULL, error);
}

START_TEST (test_astra_values)
{
  g_autofree char *yml = tu_write_file ("net.yml", "topology: [ Switch ]\n"
                                                   "npus_count: [ 8 ]\n"
                                                   "bandwidth: [ 50.0 ]  # GB/s\n"
                                                   "latency: [ 500.0 ]  # ns\n");
  g_autofree char *sys = tu_write_file (
      "sys.json", "{ \"scheduling-policy\": \"FIFO\", \"endpoint-delay\": 10,\n"
                  "  \"active-chunks-per-dimension\": 2, \"preferred-dataset-splits\": 4,\n"
                  "  \"all-reduce-implementation\": [\"halvingDoubling\", \"direct\"],\n"
                  "  \"all-to-all-implementation\": [\"oneRing\"],\n"
                  "  \"collective-optimization\": \"baseline\",\n"
                  "  \"local-mem-bw\": 1600, \"roofline-enabled\": 1, \"peak-perf\": 700,\n"
                  "  \"L\": 0, \"o\": 0, \"g\": 0, \"G\": 0.005, \"model-shared-bus\": 0,\n"
                  "  \"local-reduction-delay\": 1, \"track-local-mem\": 1,\n"
                  "  \"trace-enabled\": 0, \"boost-mode\": 0, \"replay-only\": 0,\n"
                  "  \"local-mem-trace-filename\": \"mem_trace/x\" }\n");
  g_autofree char *mem = tu_write_file ("mem.json", no_mem);
  AppConfig cfg;
  app_config_init (&cfg);
  load_astra_ok (&cfg, yml, sys, mem);
  ck_assert_uint_eq (cfg.net.n_dims, 1);
  ck_assert_int_eq (cfg.net.dims[0].kind, NET_DIM_SWITCH);
  ck_assert_uint_eq (cfg.net.dims[0].size, 8);
  ck_assert (cfg.net.dims[0].bandwidth_Bps == 53687091200.0);
  ck_assert_uint_eq (cfg.net.dims[0].latency, 500000);
  ck_assert_int_eq (cfg.net.model, NET_MODEL_ANALYTICAL);
  ck_assert_int_eq (cfg.net.rounding, NET_ROUND_NS_TRUNCATED);
  ck_assert_int_eq (cfg.sys.policy, SYS_SCHED_FIFO);
  ck_assert_uint_eq (cfg.sys.endpoint_delay, 10000);
  ck_assert_uint_eq (cfg.sys.active_chunks_per_dim, 2);
  ck_assert_uint_eq (cfg.sys.splits, 4);
  ck_assert_int_eq (cfg.sys.opt, SYS_OPT_BASELINE);
  ck_assert_uint_eq (cfg.sys.n_impl[SYS_COLL_ALL_REDUCE], 2);
  ck_assert_str_eq (cfg.sys.impl[SYS_COLL_ALL_REDUCE][0], "halvingDoubling");
  ck_assert_str_eq (cfg.sys.impl[SYS_COLL_ALL_REDUCE][1], "direct");
  ck_assert_str_eq (cfg.sys.impl[SYS_COLL_ALL_TO_ALL][0], "oneRing");
  ck_assert_str_eq (cfg.sys.impl[SYS_COLL_ALL_GATHER][0], "ring");
  ck_assert (cfg.sys.local_mem_bw_Bps == 1.6e12);
  ck_assert (cfg.wl.mem_bw_Bps == 1.6e12);
  ck_assert_uint_eq (cfg.sys.reduction_passes, 3);
  ck_assert (!sys_compat_is_native (&cfg.sys.compat)
             && cfg.wl.timing.rounding == WL_ROUND_NS_TRUNCATED
             && cfg.wl.timing.broadcast_as_delay && cfg.wl.timing.empty_compute_time == 1000);
  ck_assert_int_eq (cfg.wl.compute, WL_COMPUTE_ROOFLINE);
  ck_assert (cfg.wl.peak_flops == 700e12);
  ck_assert_int_eq (cfg.wl.mem.kind, WL_MEM_NONE);
  ck_assert_uint_eq (cfg.wl.slots_comp + cfg.wl.slots_cpu + cfg.wl.slots_comm, 3);
  ck_assert (cfg.astra_mode);
  ck_assert_uint_eq (cfg.sources->len, 3);
  ck_assert_str_eq (g_ptr_array_index (cfg.sources, 0), yml);
  ck_assert_str_eq (g_ptr_array_index (cfg.sources, 2), mem);
  ck_assert_ptr_null (cfg.groups);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_astra_yaml_forms)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  /* Comments, a tab after a value, block and flow lists, quoted scalars,
   * keys orrery does not use, and a fractional latency. */
  ck_assert_msg (load_astra_text (&cfg,
                                  "# 3D basic-topology\n"
                                  "topology: [ Ring, FullyConnected, \"Switch\" ]  # 3 dims\n"
                                  "npus_count:\n  - 2\n  - 8\n  - 4\t\n"
                                  "units-count: [ 1, 2 ]\nlinks-count: whatever\n"
                                  "bandwidth: [ 200.0, 100, 0.5 ]\t# GB/s\n"
                                  "latency: [ 936.25, 500.0, 2e3 ]\n",
                                  ring4chunks, &error),
                 "%s", error ? error->message : "");
  ck_assert_uint_eq (cfg.net.n_dims, 3);
  ck_assert_int_eq (cfg.net.dims[0].kind, NET_DIM_RING);
  ck_assert_int_eq (cfg.net.dims[1].kind, NET_DIM_FULLY_CONNECTED);
  ck_assert_int_eq (cfg.net.dims[2].kind, NET_DIM_SWITCH);
  ck_assert_uint_eq (cfg.net.dims[0].size, 2);
  ck_assert_uint_eq (cfg.net.dims[1].size, 8);
  ck_assert_uint_eq (cfg.net.dims[2].size, 4);
  ck_assert (cfg.net.dims[0].bandwidth_Bps == 200 * GIB);
  ck_assert (cfg.net.dims[1].bandwidth_Bps == 100 * GIB);
  ck_assert (cfg.net.dims[2].bandwidth_Bps == GIB / 2);
  ck_assert_uint_eq (cfg.net.dims[0].latency, 936250);
  ck_assert_uint_eq (cfg.net.dims[1].latency, 500000);
  ck_assert_uint_eq (cfg.net.dims[2].latency, 2000000);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_astra_length_mismatch)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert (!load_astra_text (&cfg,
                               "topology: [ Ring, Ring ]\nnpus_count: [ 4 ]\n"
                               "bandwidth: [ 50, 50 ]\nlatency: [ 500, 500 ]\n",
                               ring4chunks, &error));
  g_autofree char *yml = tu_scratch_path ("net.yml");
  tu_assert_input_error (error, yml);
  tu_assert_input_error (error, "topology has 2 entries, npus_count 1");
  g_clear_error (&error);
  /* A failed load leaves the configuration as it was. */
  ck_assert_uint_eq (cfg.net.n_dims, 0);
  ck_assert_uint_eq (cfg.sources->len, 0);
  ck_assert (!cfg.astra_mode);
  ck_assert (!load_astra_text (&cfg, "topology: []\nnpus_count: []\nbandwidth: []\nlatency: []\n",
                               ring4chunks, &error));
  tu_assert_input_error (error, "topology has 0 entries");
  g_clear_error (&error);
  ck_assert (!load_astra_text (&cfg, "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\n",
                               ring4chunks, &error));
  tu_assert_input_error (error, "missing 'latency'");
  g_clear_error (&error);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_astra_yaml_lines)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  g_autofree char *yml = tu_scratch_path ("net.yml");
  static const struct
  {
    const char *text;
    int line;
    const char *needle;
  } cases[] = {
    { "topology: [ Ring ]\nnpus_count: [ 4 ]\n\nlatency: [ 500 ]\nbandwidth: [ 50 ] ]\n", 5,
      "YAML" },
    { "topology: [ Ring ]\n# four\nnpus_count: [ four ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n", 3,
      "'four'" },
    { "topology: [ Torus ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n", 1,
      "unknown topology 'Torus'" },
    { "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 0.0001 ]\n", 4,
      "latency" },
    { "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ -5 ]\nlatency: [ 5 ]\n", 3,
      "bandwidth '-5'" },
    { "topology: [ Ring ]\nnpus_count: 4\nbandwidth: [ 5 ]\nlatency: [ 5 ]\n", 2,
      "'npus_count' must be a list" },
    /* A key given twice is refused, naming both lines: the second
     * bandwidth silently replaced the first. */
    { "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 5 ]\nbandwidth: [ 25 ]\n",
      5, "duplicate key 'bandwidth' (first on line 3)" },
    { "links-count: [ 1 ]\ntopology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\n"
      "links-count: [ 2 ]\nlatency: [ 5 ]\n",
      5, "duplicate key 'links-count' (first on line 1)" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ck_assert_msg (!load_astra_text (&cfg, cases[i].text, ring4chunks, &error), "case %u", i);
      g_autofree char *where = g_strdup_printf ("%s:%d: ", yml, cases[i].line);
      tu_assert_input_error (error, where);
      tu_assert_input_error (error, cases[i].needle);
      g_clear_error (&error);
    }
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_astra_json_errors)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  g_autofree char *sys = tu_scratch_path ("sys.json");
  static const char yml[] =
      "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  static const struct
  {
    const char *json;
    const char *key;
  } cases[] = {
    { "{ \"preferred-dataset-splits\": \"4\" }", "'preferred-dataset-splits': expected a whole" },
    { "{ \"active-chunks-per-dimension\": 0 }", "'active-chunks-per-dimension'" },
    { "{ \"all-reduce-implementation\": \"ring\" }", "'all-reduce-implementation': expected a list" },
    { "{ \"all-gather-implementation\": [] }", "'all-gather-implementation'" },
    { "{ \"reduce-scatter-implementation\": [ 1 ] }", "'reduce-scatter-implementation'" },
    { "{ \"endpoint-delay\": true }", "'endpoint-delay': expected a number" },
    { "{ \"endpoint-delay\": -1 }", "'endpoint-delay'" },
    { "{ \"scheduling-policy\": \"RANDOM\" }", "'scheduling-policy': unknown policy 'RANDOM'" },
    { "{ \"collective-optimization\": 3 }", "'collective-optimization': expected a string" },
    { "{ \"local-mem-bw\": 0 }", "'local-mem-bw'" },
    { "{ \"peak-perf\": \"900\" }", "'peak-perf'" },
    { "{ \"roofline-enabled\": 2 }", "'roofline-enabled'" },
    /* Custom collectives run now: a missing one names the file it looked for. */
    { "{ \"all-reduce-implementation-custom\": [\"x\"] }", "x.0.et: no such file" },
    { "{ \"all-gather-implementation-custom\": \"x\" }", "expected a list of one trace prefix" },
    { "{ \"per-node-custom-implementation\": \"n.yml\" }", "chosen per workload node" },
    { "[ 1, 2 ]", "expected a JSON object" },
    { "{ \"scheduling-policy\": \"LIFO\",, }", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      ck_assert_msg (!load_astra_text (&cfg, yml, cases[i].json, &error), "case %u", i);
      tu_assert_input_error (error, sys);
      tu_assert_input_error (error, cases[i].key);
      g_clear_error (&error);
    }
  ck_assert_uint_eq (cfg.net.n_dims, 0);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_astra_float_times_and_memory)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  g_autofree char *yml = tu_write_file (
      "net.yml", "topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n");
  g_autofree char *sys = tu_write_file ("sys.json", "{ \"endpoint-delay\": 936.25,"
                                                    " \"active-chunks-per-dimension\": 2.0 }");
  g_autofree char *mem = tu_write_file (
      "mem.json", "{ \"memory-type\": \"PER_NODE_MEMORY_EXPANSION\","
                  " \"remote-mem-latency\": 100,"
                  " \"remote-mem-bw\": 64, \"num-nodes\": 2,"
                  " \"num-npus-per-node\": 8 }");
  load_astra_ok (&cfg, yml, sys, mem);
  ck_assert_uint_eq (cfg.sys.endpoint_delay, 936250);
  ck_assert_uint_eq (cfg.sys.active_chunks_per_dim, 2);
  /* Keys the file leaves out keep the layer defaults. */
  ck_assert_uint_eq (cfg.sys.splits, 1);
  ck_assert_int_eq (cfg.wl.mem.kind, WL_MEM_PER_NODE);
  ck_assert_uint_eq (cfg.wl.mem.latency, 100000);
  ck_assert (cfg.wl.mem.bandwidth_Bps == 64e9);
  ck_assert_uint_eq (cfg.wl.mem.num_nodes, 2);
  ck_assert_uint_eq (cfg.wl.mem.npus_per_node, 8);
  g_autofree char *bad = tu_write_file ("bad.json", "{ \"memory-type\": \"CXL\" }");
  ck_assert (!app_config_load_astra (&cfg, yml, sys, bad, &error));
  tu_assert_input_error (error, bad);
  tu_assert_input_error (error, "'memory-type': unknown memory type 'CXL'");
  g_clear_error (&error);
  g_autofree char *nobw = tu_write_file ("nobw.json", "{ \"memory-type\": \"MEMORY_POOL\" }");
  ck_assert (!app_config_load_astra (&cfg, yml, sys, nobw, &error));
  tu_assert_input_error (error, "needs remote-mem-bw");
  g_clear_error (&error);
  ck_assert (!app_config_load_astra (&cfg, yml, sys, "/nonexistent/mem.json", &error));
  tu_assert_input_error (error, "/nonexistent/mem.json");
  g_clear_error (&error);
  ck_assert_uint_eq (cfg.sources->len, 3);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_comm_groups)
{
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  g_autofree char *a = tu_write_file (
      "a.json", "{ \"0\": [0, 1, 2, 3], \"1.0\": [4, 5], \"7\": [6] }");
  ck_assert_msg (app_config_load_comm_groups (&cfg, a, &error), "%s",
                 error ? error->message : "");
  ck_assert_ptr_nonnull (cfg.groups);
  ck_assert_uint_eq (wl_groups_count (cfg.groups), 3);
  guint n = 0;
  const guint32 *r = wl_groups_lookup (cfg.groups, 1, &n);
  ck_assert_ptr_nonnull (r);
  ck_assert_uint_eq (n, 2);
  ck_assert_uint_eq (r[0], 4);
  ck_assert_uint_eq (r[1], 5);
  ck_assert (!cfg.astra_mode);
  ck_assert_uint_eq (cfg.sources->len, 1);
  g_autofree char *b = tu_write_file ("b.json", "{ \"8\": [7] }");
  ck_assert (app_config_load_comm_groups (&cfg, b, NULL));
  ck_assert_uint_eq (wl_groups_count (cfg.groups), 4);
  static const struct
  {
    const char *json;
    const char *needle;
  } bad[] = {
    { "{ \"9\": [1], \"0\": [1] }", "group '0' is already defined" },
    { "{ \"9\": [-1] }", "group '9': entry 0" },
    { "{ \"9\": [1.5] }", "a rank is a whole number" },
    { "{ \"abc\": [1] }", "group id 'abc'" },
    { "{ \"9\": [1, 1] }", "twice" },
    { "{ \"9\": [] }", "no ranks" },
    { "{ \"9\": 3 }", "expected a list of ranks" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *c = tu_write_file ("c.json", bad[i].json);
      ck_assert_msg (!app_config_load_comm_groups (&cfg, c, &error), "case %u", i);
      tu_assert_input_error (error, c);
      tu_assert_input_error (error, bad[i].needle);
      g_clear_error (&error);
    }
  ck_assert_uint_eq (wl_groups_count (cfg.groups), 4);
  ck_assert_ptr_null (wl_groups_lookup (cfg.groups, 9, NULL));
  app_config_clear (&cfg);
}
END_TEST

/* ASTRA-sim's reference configs, as shipped. */
START_TEST (test_astra_reference_files)
{
  g_autofree char *dir = shared_path ("reference/configs");
  if (dir == NULL)
    return;
  static const char *const kinds[] = { "Ring", "FullyConnected", "Switch" };
  static const NetDimKind kind_ids[] = { NET_DIM_RING, NET_DIM_FULLY_CONNECTED, NET_DIM_SWITCH };
  static const guint sizes[] = { 4, 8, 16 };
  g_autofree char *sys = g_build_filename (dir, "Ring_4chunks.json", NULL);
  g_autofree char *mem = g_build_filename (dir, "no_memory_expansion.json", NULL);
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autofree char *name = g_strdup_printf ("%s_%unpus.yml", kinds[k], sizes[s]);
        g_autofree char *yml = g_build_filename (dir, name, NULL);
        AppConfig cfg;
        app_config_init (&cfg);
        load_astra_ok (&cfg, yml, sys, mem);
        ck_assert_uint_eq (cfg.net.n_dims, 1);
        ck_assert_int_eq (cfg.net.dims[0].kind, kind_ids[k]);
        ck_assert_uint_eq (cfg.net.dims[0].size, sizes[s]);
        ck_assert (cfg.net.dims[0].bandwidth_Bps == 53687091200.0);
        ck_assert_uint_eq (cfg.net.dims[0].latency, 500000);
        ck_assert_uint_eq (cfg.sys.splits, 4);
        ck_assert_int_eq (cfg.sys.policy, SYS_SCHED_LIFO);
        ck_assert_uint_eq (cfg.sys.endpoint_delay, 10000);
        ck_assert (cfg.sys.local_mem_bw_Bps == 1.6e12);
        ck_assert (cfg.wl.peak_flops == 900e12);
        ck_assert_int_eq (cfg.wl.compute, WL_COMPUTE_REPLAY);
        app_config_clear (&cfg);
      }
}
END_TEST

/* Files under dir (recursively) for which keep() holds, sorted. */
static void
collect_files (const char *dir, gboolean (*keep) (const char *path), GPtrArray *out)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          collect_files (path, keep, out);
          g_free (path);
        }
      else if (keep (path))
        g_ptr_array_add (out, path);
      else
        g_free (path);
    }
  g_dir_close (d);
}

static gboolean
is_network_yml (const char *path)
{
  return g_str_has_suffix (path, ".yml") || g_str_has_suffix (path, ".yaml");
}

static gboolean
is_system_json (const char *path)
{
  return g_str_has_suffix (path, ".json")
         && (strstr (path, "/system/") != NULL || g_str_has_suffix (path, "/sys.json"));
}

static gboolean
is_memory_json (const char *path)
{
  return g_str_has_suffix (path, ".json")
         && (strstr (path, "RemoteMemory") != NULL || strstr (path, "memory_expansion") != NULL);
}

static gboolean
is_comm_group_json (const char *path)
{
  return g_str_has_suffix (path, "/comm_group.json");
}

/* Every ASTRA-sim input among the shared examples loads. */
START_TEST (test_astra_every_shared_input)
{
  g_autofree char *ref = shared_path ("reference/configs");
  if (ref == NULL)
    return;
  g_autofree char *yml0 = g_build_filename (ref, "Ring_4npus.yml", NULL);
  g_autofree char *sys0 = g_build_filename (ref, "Ring_4chunks.json", NULL);
  static const char *const roots[] = { "astra-configs", "traces/astra-sim-artifacts/examples" };
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (roots); i++)
    {
      g_autofree char *root = shared_path (roots[i]);
      if (root == NULL)
        continue;
      guint before = files->len;
      collect_files (root, is_network_yml, files);
      collect_files (root, is_system_json, files);
      collect_files (root, is_memory_json, files);
      collect_files (root, is_comm_group_json, files);
      ck_assert_uint_gt (files->len, before);
    }
  for (guint i = 0; i < files->len; i++)
    {
      const char *f = g_ptr_array_index (files, i);
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      gboolean ok;
      if (is_network_yml (f))
        ok = app_config_load_astra (&cfg, f, sys0, NULL, &error);
      else if (is_system_json (f))
        ok = app_config_load_astra (&cfg, yml0, f, NULL, &error);
      else if (is_memory_json (f))
        ok = app_config_load_astra (&cfg, yml0, sys0, f, &error);
      else
        ok = app_config_load_comm_groups (&cfg, f, &error);
      /* Some shipped files hold placeholders ("bandwidth: [ tbd ]"), which
       * must be refused with the value quoted. */
      g_autofree char *text = NULL;
      ck_assert (g_file_get_contents (f, &text, NULL, NULL));
      if (strstr (text, "[ tbd") != NULL)
        {
          ck_assert_msg (!ok, "%s: placeholder accepted", f);
          tu_assert_input_error (error, "'tbd'");
          g_clear_error (&error);
        }
      else
        ck_assert_msg (ok, "%s: %s", f, error ? error->message : "");
      app_config_clear (&cfg);
    }
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Native XML                                                               */

/* The two configurations describe the same simulation, field by field. */
static void
assert_same_config (const AppConfig *a, const AppConfig *b, const char *what)
{
  ck_assert_msg (a->net.n_dims == b->net.n_dims, "%s: n_dims", what);
  for (guint d = 0; d < a->net.n_dims; d++)
    {
      const NetDimSpec *x = &a->net.dims[d], *y = &b->net.dims[d];
      ck_assert_msg (x->kind == y->kind && x->size == y->size, "%s: dim %u shape", what, d);
      ck_assert_msg (x->bandwidth_Bps == y->bandwidth_Bps, "%s: dim %u bandwidth %.17g %.17g",
                     what, d, x->bandwidth_Bps, y->bandwidth_Bps);
      ck_assert_msg (x->latency == y->latency, "%s: dim %u latency", what, d);
    }
  ck_assert_msg (a->net.model == b->net.model, "%s: net model", what);
  ck_assert_msg (a->net.rounding == b->net.rounding, "%s: net rounding", what);
  const SysParams *s = &a->sys, *t = &b->sys;
  ck_assert_msg (s->policy == t->policy, "%s: policy", what);
  ck_assert_msg (s->endpoint_delay == t->endpoint_delay, "%s: endpoint delay", what);
  ck_assert_msg (s->active_chunks_per_dim == t->active_chunks_per_dim, "%s: chunks", what);
  ck_assert_msg (s->splits == t->splits, "%s: splits", what);
  ck_assert_msg (s->opt == t->opt, "%s: collective optimization", what);
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      ck_assert_msg (s->n_impl[k] == t->n_impl[k], "%s: n_impl[%u]", what, k);
      for (guint i = 0; i < s->n_impl[k]; i++)
        ck_assert_msg (strcmp (s->impl[k][i], t->impl[k][i]) == 0, "%s: impl[%u][%u]", what, k,
                       i);
    }
  ck_assert_msg (s->local_mem_bw_Bps == t->local_mem_bw_Bps, "%s: local mem bw", what);
  ck_assert_msg (s->reduction_passes == t->reduction_passes, "%s: passes", what);
  ck_assert_msg (sys_compat_is_native (&s->compat) == sys_compat_is_native (&t->compat),
                 "%s: sys rounding", what);
  const WlParams *w = &a->wl, *v = &b->wl;
  ck_assert_msg (w->compute == v->compute, "%s: compute model", what);
  ck_assert_msg (w->peak_flops == v->peak_flops, "%s: peak", what);
  ck_assert_msg (w->mem_bw_Bps == v->mem_bw_Bps, "%s: mem bw", what);
  ck_assert_msg (w->timing.rounding == v->timing.rounding
                     && w->timing.broadcast_as_delay == v->timing.broadcast_as_delay
                     && w->timing.empty_compute_time == v->timing.empty_compute_time,
                 "%s: wl rounding", what);
  ck_assert_msg (w->slots_comp == v->slots_comp && w->slots_cpu == v->slots_cpu
                     && w->slots_comm == v->slots_comm,
                 "%s: slots", what);
  ck_assert_msg (w->mem.kind == v->mem.kind && w->mem.latency == v->mem.latency
                     && w->mem.bandwidth_Bps == v->mem.bandwidth_Bps
                     && w->mem.num_nodes == v->mem.num_nodes
                     && w->mem.npus_per_node == v->mem.npus_per_node,
                 "%s: remote memory", what);
}

START_TEST (test_xml_every_config_loads)
{
  static const char *const dirs[] = { "configs", "configs/astra/equivalent" };
  guint count = 0;
  for (guint i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      GDir *d = g_dir_open (dirs[i], 0, NULL);
      ck_assert_msg (d != NULL, "%s missing: run from the repository root", dirs[i]);
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          if (!g_str_has_suffix (name, ".xml"))
            continue;
          g_autofree char *path = g_build_filename (dirs[i], name, NULL);
          AppConfig cfg;
          app_config_init (&cfg);
          load_xml_ok (&cfg, path);
          ck_assert (!cfg.astra_mode);
          ck_assert_uint_eq (cfg.sources->len, 1);
          ck_assert_str_eq (g_ptr_array_index (cfg.sources, 0), path);
          ck_assert_uint_ge (cfg.net.n_dims, 1);
          app_config_clear (&cfg);
          count++;
        }
      g_dir_close (d);
    }
  ck_assert_uint_ge (count, 10);
}
END_TEST

/* configs/astra/equivalent/X.xml is the reference X.yml + Ring_4chunks.json. */
START_TEST (test_xml_equivalent_to_astra)
{
  g_autofree char *dir = shared_path ("reference/configs");
  if (dir == NULL)
    return;
  g_autofree char *sys = g_build_filename (dir, "Ring_4chunks.json", NULL);
  g_autofree char *mem = g_build_filename (dir, "no_memory_expansion.json", NULL);
  static const char *const kinds[] = { "Ring", "FullyConnected", "Switch" };
  static const guint sizes[] = { 4, 8, 16 };
  for (guint k = 0; k < G_N_ELEMENTS (kinds); k++)
    for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
      {
        g_autofree char *base = g_strdup_printf ("%s_%unpus", kinds[k], sizes[s]);
        g_autofree char *yml_name = g_strconcat (base, ".yml", NULL);
        g_autofree char *yml = g_build_filename (dir, yml_name, NULL);
        g_autofree char *xml = g_strdup_printf ("configs/astra/equivalent/%s.xml", base);
        AppConfig astra, native;
        app_config_init (&astra);
        app_config_init (&native);
        load_astra_ok (&astra, yml, sys, mem);
        load_xml_ok (&native, xml);
        assert_same_config (&astra, &native, base);
        app_config_clear (&astra);
        app_config_clear (&native);
      }
}
END_TEST

/* The same proof without $SHARED: the reference files' text, written here. */
START_TEST (test_xml_equivalent_local)
{
  AppConfig astra, native;
  app_config_init (&astra);
  app_config_init (&native);
  g_autofree char *yml = tu_write_file ("Switch_16npus.yml", "topology: [ Switch ]\n"
                                                             "npus_count: [ 16 ]\n"
                                                             "bandwidth: [ 50.0 ]  # GB/s\n"
                                                             "latency: [ 500.0 ]  # ns\n");
  g_autofree char *sys = tu_write_file ("Ring_4chunks.json", ring4chunks);
  g_autofree char *mem = tu_write_file ("mem.json", no_mem);
  load_astra_ok (&astra, yml, sys, mem);
  load_xml_ok (&native, "configs/astra/equivalent/Switch_16npus.xml");
  assert_same_config (&astra, &native, "Switch_16npus");
  app_config_clear (&astra);
  app_config_clear (&native);
}
END_TEST

START_TEST (test_xml_default)
{
  AppConfig cfg;
  app_config_init (&cfg);
  load_xml_ok (&cfg, "configs/default.xml");
  ck_assert_uint_eq (cfg.net.n_dims, 2);
  ck_assert_uint_eq (cfg.net.dims[0].size * cfg.net.dims[1].size, 64);
  ck_assert_int_eq (cfg.net.dims[0].kind, NET_DIM_SWITCH);
  ck_assert (cfg.net.dims[0].bandwidth_Bps == 450e9);
  ck_assert_uint_eq (cfg.net.dims[0].latency, 500000);
  ck_assert (cfg.net.dims[1].bandwidth_Bps == 400e9 / 8);
  ck_assert_uint_eq (cfg.net.dims[1].latency, 2000000);
  ck_assert_int_eq (cfg.net.rounding, NET_ROUND_PS);
  ck_assert (sys_compat_is_native (&cfg.sys.compat) && cfg.wl.timing.rounding == WL_ROUND_PS
             && !cfg.wl.timing.broadcast_as_delay && cfg.wl.timing.empty_compute_time == 0);
  ck_assert_uint_eq (cfg.sys.active_chunks_per_dim, 2);
  ck_assert_uint_eq (cfg.sys.splits, 4);
  /* Collectives through NCCL's library; all-to-all on the two rings. */
  ck_assert_int_eq (cfg.sys.lib.library, SYS_LIBRARY_NCCL);
  ck_assert_int_eq (cfg.sys.lib.gpu, SYS_GPU_HOPPER);
  ck_assert_int_eq (cfg.net.dims[0].link, NET_LINK_NVLINK);
  ck_assert_int_eq (cfg.net.dims[1].link, NET_LINK_NET);
  ck_assert_uint_eq (cfg.sys.n_impl[SYS_COLL_ALL_TO_ALL], 2);
  ck_assert (cfg.sys.local_mem_bw_Bps == 3350e9);
  /* The kernel compute model on the H100 SXM preset (datasheet: 989.5
   * TFLOP/s dense bf16, 3.35 TB/s), one comm slot per stream. */
  ck_assert_int_eq (cfg.wl.compute, WL_COMPUTE_KERNEL);
  ck_assert (cfg.wl.peak_flops == 989.5e12);
  ck_assert (cfg.wl.mem_bw_Bps == 3.35e12);
  ck_assert (cfg.wl.separate_comm_streams);
  app_config_clear (&cfg);
}
END_TEST

/* A minimal file: every layer keeps its *_init defaults. */
START_TEST (test_xml_defaults)
{
  g_autofree char *path = tu_write_file (
      "min.xml", "<cluster><network><dim kind=\"Ring\" size=\"4\" bandwidth=\"1GB/s\""
                 " latency=\"1ns\"/></network></cluster>\n");
  AppConfig cfg, ref;
  app_config_init (&cfg);
  app_config_init (&ref);
  load_xml_ok (&cfg, path);
  ref.net = cfg.net;
  assert_same_config (&cfg, &ref, "defaults");
  ck_assert (cfg.net.dims[0].bandwidth_Bps == 1e9);
  ck_assert_ptr_null (cfg.groups);
  app_config_clear (&cfg);
  app_config_clear (&ref);
  /* Without <compute mem-bw>, the compute model uses the system's memory. */
  g_autofree char *mem = tu_write_file (
      "mem.xml", "<cluster><system local-mem-bw=\"2TB/s\"/><network><dim kind=\"Ring\""
                 " size=\"4\" bandwidth=\"1GB/s\" latency=\"1ns\"/></network></cluster>\n");
  app_config_init (&cfg);
  load_xml_ok (&cfg, mem);
  ck_assert (cfg.sys.local_mem_bw_Bps == 2e12);
  ck_assert (cfg.wl.mem_bw_Bps == 2e12);
  app_config_clear (&cfg);
  g_autofree char *node = tu_write_file (
      "node.xml", "<cluster><network><dim kind=\"Switch\" size=\"16\" bandwidth=\"1GB/s\""
                  " latency=\"1ns\"/></network><slots compute=\"2\" cpu=\"3\" comm=\"4\"/>"
                  "<memory type=\"per-node\" latency=\"0.5us\" bandwidth=\"64GB/s\""
                  " nodes=\"2\" npus-per-node=\"8\"/></cluster>\n");
  app_config_init (&cfg);
  load_xml_ok (&cfg, node);
  ck_assert_int_eq (cfg.wl.mem.kind, WL_MEM_PER_NODE);
  ck_assert_uint_eq (cfg.wl.mem.latency, 500000);
  ck_assert (cfg.wl.mem.bandwidth_Bps == 64e9);
  ck_assert_uint_eq (cfg.wl.mem.num_nodes, 2);
  ck_assert_uint_eq (cfg.wl.mem.npus_per_node, 8);
  ck_assert_uint_eq (cfg.wl.slots_comp, 2);
  ck_assert_uint_eq (cfg.wl.slots_cpu, 3);
  ck_assert_uint_eq (cfg.wl.slots_comm, 4);
  /* Shared comm streams unless asked; no peak named without a device or
   * <compute peak>. */
  ck_assert (!cfg.wl.separate_comm_streams);
  ck_assert_str_eq (cfg.wl.peak_label, "");
  app_config_clear (&cfg);
  g_autofree char *streams = tu_write_file (
      "streams.xml", "<cluster><network><dim kind=\"Switch\" size=\"16\" bandwidth=\"1GB/s\""
                     " latency=\"1ns\"/></network><slots comm-streams=\"separate\"/>"
                     "<compute device=\"H100-SXM\" dtype=\"fp8\"/></cluster>\n");
  app_config_init (&cfg);
  load_xml_ok (&cfg, streams);
  ck_assert (cfg.wl.separate_comm_streams);
  ck_assert_str_eq (cfg.wl.peak_label, "H100-SXM fp8");
  app_config_clear (&cfg);
}
END_TEST

/* A valid file with one line replaced must fail at that line. */
static const char xml_template[] =
    "<?xml version=\"1.0\"?>\n"                                                          /* 1 */
    "<cluster name=\"t\" rounding=\"ps\">\n"                                             /* 2 */
    "  <network>\n"                                                                      /* 3 */
    "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"50GiB/s\" latency=\"500ns\"/>\n"     /* 4 */
    "    <dim kind=\"Switch\" size=\"4\" bandwidth=\"400Gb/s\" latency=\"2us\"/>\n"     /* 5 */
    "  </network>\n"                                                                     /* 6 */
    "  <system splits=\"4\">\n"                                                          /* 7 */
    "    <algorithm collective=\"all-reduce\" dims=\"ring direct\"/>\n"                 /* 8 */
    "  </system>\n"                                                                      /* 9 */
    "  <compute model=\"roofline\" peak=\"989TFLOP/s\"/>\n"                             /* 10 */
    "  <groups>\n"                                                                       /* 11 */
    "    <group id=\"1\" ranks=\"0-3,8\"/>\n"                                            /* 12 */
    "  </groups>\n"                                                                      /* 13 */
    "</cluster>\n";                                                                      /* 14 */

/* The template with line `line` (1-based) replaced by text. */
static char *
xml_with_line (int line, const char *text)
{
  g_auto (GStrv) lines = g_strsplit (xml_template, "\n", -1);
  g_free (lines[line - 1]);
  lines[line - 1] = g_strdup (text);
  g_autofree char *joined = g_strjoinv ("\n", lines);
  return tu_write_file ("typo.xml", joined);
}

START_TEST (test_xml_template_and_groups)
{
  g_autofree char *path = tu_write_file ("ok.xml", xml_template);
  AppConfig cfg;
  app_config_init (&cfg);
  load_xml_ok (&cfg, path);
  ck_assert_uint_eq (cfg.net.dims[1].size, 4);
  ck_assert (cfg.net.dims[1].bandwidth_Bps == 5e10);
  ck_assert_str_eq (cfg.sys.impl[SYS_COLL_ALL_REDUCE][1], "direct");
  ck_assert_ptr_nonnull (cfg.groups);
  guint n = 0;
  const guint32 *r = wl_groups_lookup (cfg.groups, 1, &n);
  ck_assert_ptr_nonnull (r);
  ck_assert_uint_eq (n, 5);
  static const guint32 want[] = { 0, 1, 2, 3, 8 };
  for (guint i = 0; i < n; i++)
    ck_assert_uint_eq (r[i], want[i]);
  /* The same id again, from a second file, is refused and changes nothing. */
  GError *error = NULL;
  ck_assert (!app_config_load_xml (&cfg, path, &error));
  tu_assert_input_error (error, "group 1 is already defined");
  g_clear_error (&error);
  ck_assert_uint_eq (cfg.sources->len, 1);
  app_config_clear (&cfg);
}
END_TEST

START_TEST (test_xml_errors_located)
{
  static const struct
  {
    int line;
    const char *text;
    const char *needle;
  } cases[] = {
    { 10, "  <computer model=\"roofline\"/>", "computer" },
    { 4, "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"50GB\" latency=\"500ns\"/>",
      "unknown bandwidth unit 'GB'" },
    { 4, "    <dim kind=\"Ring\" bandwidth=\"50GiB/s\" latency=\"500ns\"/>",
      "missing attribute 'size'" },
    { 4, "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"50GiB/s\" latency=\"500\"/>",
      "needs a unit" },
    { 4, "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"50GiB/s\" latency=\"1.0001ps\"/>",
      "not a whole number of picoseconds" },
    { 4, "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"0GB/s\" latency=\"5ns\"/>", "positive" },
    { 4, "    <dim kind=\"Torus\" size=\"4\" bandwidth=\"1GB/s\" latency=\"5ns\"/>", "Torus" },
    { 7, "  <system splits=\"4\" foo=\"1\">", "unknown attribute 'foo'" },
    { 8, "    <algorithm collective=\"all-reduce\" dims=\"rign\"/>", "unknown algorithm 'rign'" },
    { 8, "    <algorithm collective=\"all-reduce\" dims=\"ring ring ring\"/>",
      "3 algorithms for a network of 2 dimensions" },
    { 10, "  <compute peak=\"989TFLOP\"/>", "989TFLOP" },
    { 12, "    <group id=\"1\" ranks=\"3-1\"/>", "'3-1'" },
    { 12, "    <group id=\"1\" ranks=\"0-16\"/>", "rank 16 is out of range" },
    { 12, "    <group id=\"1\" ranks=\"1,1\"/>", "twice" },
    { 10, "  <memory type=\"pool\" latency=\"1us\"/>", "needs a bandwidth" },
    { 10, "  <memory type=\"per-node\" bandwidth=\"1GB/s\" nodes=\"2\"/>", "npus-per-node" },
    { 6, "  </netwrk>", "" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = xml_with_line (cases[i].line, cases[i].text);
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      ck_assert_msg (!app_config_load_xml (&cfg, path, &error), "case %u accepted", i);
      g_autofree char *where = g_strdup_printf ("%s:%d: ", path, cases[i].line);
      tu_assert_input_error (error, where);
      tu_assert_input_error (error, cases[i].needle);
      g_clear_error (&error);
      ck_assert_uint_eq (cfg.net.n_dims, 0);
      ck_assert_uint_eq (cfg.sources->len, 0);
      app_config_clear (&cfg);
    }
  AppConfig cfg;
  app_config_init (&cfg);
  GError *error = NULL;
  ck_assert (!app_config_load_xml (&cfg, "/nonexistent/cluster.xml", &error));
  tu_assert_input_error (error, "/nonexistent/cluster.xml");
  g_clear_error (&error);
  g_autofree char *nonet = tu_write_file ("nonet.xml", "<cluster/>\n");
  ck_assert (!app_config_load_xml (&cfg, nonet, &error));
  tu_assert_input_error (error, ":1: ");
  g_clear_error (&error);
  app_config_clear (&cfg);
}
END_TEST

static Suite *
config_suite (void)
{
  Suite *s = suite_create ("config");
  TCase *tc = tu_tcase (s, "astra", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_astra_values);
  tcase_add_test (tc, test_astra_yaml_forms);
  tcase_add_test (tc, test_astra_length_mismatch);
  tcase_add_test (tc, test_astra_yaml_lines);
  tcase_add_test (tc, test_astra_json_errors);
  tcase_add_test (tc, test_astra_float_times_and_memory);
  tcase_add_test (tc, test_comm_groups);
  tcase_add_test (tc, test_astra_reference_files);
  tcase_add_test (tc, test_astra_every_shared_input);
  tc = tu_tcase (s, "xml", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_xml_every_config_loads);
  tcase_add_test (tc, test_xml_equivalent_to_astra);
  tcase_add_test (tc, test_xml_equivalent_local);
  tcase_add_test (tc, test_xml_default);
  tcase_add_test (tc, test_xml_defaults);
  tcase_add_test (tc, test_xml_template_and_groups);
  tcase_add_test (tc, test_xml_errors_located);
  return s;
}

int
main (void)
{
  return tu_run_suite (config_suite ());
}
