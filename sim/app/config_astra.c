/* config_astra.c: ASTRA-sim's inputs read as they are: system, remote-memory
 * and comm-group JSON (json-glib); the network YAML in config_astra_net.c.
 *
 * Units are those ASTRA-sim gives its numbers (../shared/reference/ASTRA-SIM.md):
 * YAML bandwidth "GB/s" that are GiB/s (x 2^30 B/s), YAML latency and JSON
 * endpoint-delay and remote-mem-latency in ns, local-mem-bw and remote-mem-bw
 * in decimal GB/s (x 1e9 B/s: ASTRA-sim divides bytes by them as bytes per
 * ns), peak-perf in TFLOP/s.  Every key ASTRA-sim reads is reproduced,
 * or refused when it would change ASTRA-sim's timing in a way orrery does
 * not model (model-shared-bus and replay-only on), or accepted where it has
 * no effect on times: track-local-mem (a warning: its file is not
 * written), trace-enabled, and L/o/g/G and local-reduction-delay, which only
 * the shared bus reads (configs/README.md, "ASTRA-sim inputs", lists them all).  Keys
 * ASTRA-sim does not read (boost-mode) are ignored, as it ignores them;
 * keys a file leaves out keep the layer defaults, which are ASTRA-sim's.
 * Every loader fills copies and commits to the AppConfig only on success.
 */
#include "sim/app/config_astra_private.h"
#include "sim/app/programs.h"

#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "sim/json_numbers.h"
#include "sim/nesting.h"
#include "sim/suggest.h"
#include "sim/units.h"
#include "workload/json_keys.h"

/* ------------------------------------------------------------------------ */
/* JSON values                                                              */

static const char *
json_kind (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return "an object";
    case JSON_NODE_ARRAY:
      return "a list";
    case JSON_NODE_NULL:
      return "null";
    case JSON_NODE_VALUE:
      break;
    }
  GType t = json_node_get_value_type (node);
  if (t == G_TYPE_STRING)
    return "a string";
  if (t == G_TYPE_BOOLEAN)
    return "a boolean";
  return "a number";
}

static gboolean
json_is_number (JsonNode *node)
{
  if (!JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  GType t = json_node_get_value_type (node);
  return t == G_TYPE_INT64 || t == G_TYPE_DOUBLE;
}

static gboolean
json_get_string (JsonNode *node, const char **out, GError **error)
{
  if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
    {
      *out = json_node_get_string (node);
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a string, got %s", json_kind (node));
  return FALSE;
}

/* A number > 0 (> = 0 when zero_ok), integer or not. */
static gboolean
json_get_number (JsonNode *node, gboolean zero_ok, double *out, GError **error)
{
  double v = json_is_number (node) ? json_node_get_double (node) : NAN;
  if (isfinite (v) && (v > 0 || (zero_ok && v == 0)))
    {
      *out = v;
      return TRUE;
    }
  if (!json_is_number (node))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a number, got %s",
                 json_kind (node));
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a number %s 0, got %g",
                 zero_ok ? ">=" : ">", v);
  return FALSE;
}

/* A whole number >= min.  1.0 counts as whole: some writers emit floats. */
static gboolean
json_get_uint (JsonNode *node, guint min, guint *out, GError **error)
{
  double v = json_is_number (node) ? json_node_get_double (node) : NAN;
  if (isfinite (v) && v == floor (v) && v >= min && v <= G_MAXUINT)
    {
      *out = (guint) v;
      return TRUE;
    }
  if (json_is_number (node))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a whole number from %u to %u, got %g",
                 min, G_MAXUINT, v);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a whole number >= %u, got %s",
                 min, json_kind (node));
  return FALSE;
}

/* Nanoseconds, integer or not, to picoseconds.  Integers convert exactly;
 * a fraction is rounded to the nearest ps, since the JSON text is gone by
 * now and 0.1 ns is not exact as a double. */
static gboolean
json_get_ns (JsonNode *node, SimTime *out, GError **error)
{
  double ns = 0;
  if (!json_get_number (node, TRUE, &ns, error))
    return FALSE;
  if (json_node_get_value_type (node) == G_TYPE_INT64)
    {
      guint64 v = (guint64) json_node_get_int (node);
      if (g_uint64_checked_mul (out, v, SIM_PS_PER_NS))
        return TRUE;
    }
  else
    {
      double ps = round (ns * (double) SIM_PS_PER_NS);
      if (ps < 0x1p63)
        {
          *out = (SimTime) ps;
          return TRUE;
        }
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%g ns is too large", ns);
  return FALSE;
}

/* The root object of a JSON file; the parser owns it. */
static JsonObject *
json_load_object (JsonParser *parser, const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!app_config_read_file (path, &text, &len, error))
    return NULL;
  /* Integers past 64 bits are read as ASTRA-sim's nlohmann::json reads
   * them, as doubles, which json-glib would wrap (sim/json_numbers.h). */
  g_autoptr (GString) rewritten = NULL;
  if (!sim_json_depth_check (text, (gssize) len, error)
      || !sim_json_numbers_check (text, (gssize) len, SIM_JSON_DOUBLE, &rewritten, error))
    {
      sim_error_prefix (error, "%s:", path);
      return NULL;
    }
  g_autoptr (GError) parse = NULL;
  g_autoptr (WlJsonKeys) keys = wl_json_keys_watch (parser);
  if (!json_parser_load_from_data (parser, rewritten != NULL ? rewritten->str : text,
                                   rewritten != NULL ? (gssize) rewritten->len : (gssize) len,
                                   &parse))
    {
      /* json-glib names text it was given "<data>": name the file instead,
       * in the one domain and code of every config error. */
      const char *msg = parse->message;
      gboolean at = g_str_has_prefix (msg, "<data>:"); /* "<data>:LINE:COL: ..." */
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%s%s", path, at ? "" : " ",
                   at ? msg + strlen ("<data>:") : msg);
      return NULL;
    }
  if (!wl_json_keys_check (keys, path, error))
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: expected a JSON object, got %s",
                   path, root != NULL ? json_kind (root) : "nothing");
      return NULL;
    }
  return json_node_get_object (root);
}

/* ------------------------------------------------------------------------ */
/* System and memory JSON                                                   */

typedef struct
{
  SysParams *sys;
  WlParams *wl;
  GPtrArray *warnings; /* lines for stderr (char *, "FILE: ..."), AppConfig.warnings' */
  const char *path;    /* the file being read */
} AstraTarget;

typedef gboolean (*KeyFn) (AstraTarget *t, JsonNode *value, int arg, GError **error);

typedef struct
{
  const char *key;
  KeyFn fn;
  int arg; /* a collective kind, a field selector: the handler's choice */
} KeyHandler;

static gboolean
key_policy (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  const char *name = NULL;
  if (!json_get_string (value, &name, error))
    return FALSE;
  if (sys_sched_policy_parse (name, &t->sys->policy))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "unknown policy '%s' (LIFO, FIFO, EXPLICIT)",
               name);
  return FALSE;
}

static gboolean
key_endpoint_delay (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  return json_get_ns (value, &t->sys->endpoint_delay, error);
}

static gboolean
key_active_chunks (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  return json_get_uint (value, 1, &t->sys->active_chunks_per_dim, error);
}

static gboolean
key_splits (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  if (!json_get_uint (value, 1, &t->sys->splits, error))
    return FALSE;
  if (t->sys->splits <= SYS_SPLITS_MAX)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "%u chunks per collective: at most %u (each chunk costs every member state "
               "and events)", t->sys->splits, SYS_SPLITS_MAX);
  return FALSE;
}

static gboolean
key_impl (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  if (!JSON_NODE_HOLDS_ARRAY (value))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a list of algorithm names, got %s",
                   json_kind (value));
      return FALSE;
    }
  JsonArray *array = json_node_get_array (value);
  guint n = json_array_get_length (array);
  g_autofree const char **names = g_new0 (const char *, n + 1);
  for (guint i = 0; i < n; i++)
    if (!json_get_string (json_array_get_element (array, i), &names[i], error)
        || !app_astra_algorithm_check (names[i], error))
      {
        g_prefix_error (error, "entry %u: ", i);
        return FALSE;
      }
  return sys_params_set_impl (t->sys, (SysCollKind) arg, names, n, error);
}

/* Where a custom collective's files are: PREFIX as given (ASTRA-sim reads
 * it relative to its working directory, the root of its repository in its
 * examples), else relative to the system file's directory or the nearest
 * of its parents where it exists.  NULL when nowhere. */
static char *
custom_impl_find (const char *given, const char *sys_json, gboolean msccl)
{
  const char *suffix = msccl ? "" : ".0.et";
  g_autofree char *first = g_strconcat (given, suffix, NULL);
  if (g_file_test (first, G_FILE_TEST_EXISTS))
    return g_strdup (given);
  if (g_path_is_absolute (given))
    return NULL;
  g_autofree char *dir = g_path_get_dirname (sys_json);
  for (int depth = 0; depth < 64; depth++)
    {
      g_autofree char *prefix = g_build_filename (dir, given, NULL);
      g_autofree char *file = g_strconcat (prefix, suffix, NULL);
      if (g_file_test (file, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&prefix);
      g_autofree char *up = g_build_filename (dir, "..", NULL);
      g_autofree char *real = g_canonicalize_filename (up, NULL);
      g_autofree char *here = g_canonicalize_filename (dir, NULL);
      if (g_strcmp0 (real, here) == 0)
        break;
      g_free (dir);
      dir = g_steal_pointer (&up);
    }
  return NULL;
}

/* "KIND-implementation-custom": [PREFIX] runs KIND as the program PREFIX:
 * Chakra traces PREFIX.<rank>.et (ASTRA-sim's custom collectives), or an
 * MSCCL XML file when PREFIX ends in .xml. */
static gboolean
key_custom_impl (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  JsonArray *array = JSON_NODE_HOLDS_ARRAY (value) ? json_node_get_array (value) : NULL;
  if (array == NULL || json_array_get_length (array) != 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "expected a list of one trace prefix (one program covers every dimension), "
                   "got %s", array == NULL ? json_kind (value) : "a list of another length");
      return FALSE;
    }
  const char *given = NULL;
  if (!json_get_string (json_array_get_element (array, 0), &given, error))
    return FALSE;
  gboolean msccl = g_str_has_suffix (given, ".xml");
  g_autofree char *path = custom_impl_find (given, t->path, msccl);
  if (path == NULL)
    {
      g_autofree char *dir = g_path_get_dirname (t->path);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s%s: no such file (looked in the working directory, then in %s and its "
                   "parent directories)", given, msccl ? "" : ".0.et", dir);
      return FALSE;
    }
  const SysAlgoClass *algo = app_program_get (msccl ? APP_PROGRAM_MSCCL : APP_PROGRAM_CHAKRA,
                                              path, SYS_PROG_TIMING_P2P, (SysCollKind) arg,
                                              error);
  if (algo == NULL)
    return FALSE;
  t->sys->program[arg] = algo;
  return TRUE;
}

/* ASTRA-sim's custom collectives per workload node (a YAML of node id ->
 * trace prefix): running the kind's algorithm instead would be a plausible
 * but wrong answer, so it is refused. */
static gboolean
key_per_node_custom (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) t, (void) value, (void) arg;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "per-node custom collective algorithms (custom collectives chosen per "
               "workload node, a YAML of node id -> Chakra trace) are not supported: give "
               "each kind's (all-reduce-implementation-custom, ...)");
  return FALSE;
}

static gboolean
key_coll_opt (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  const char *name = NULL;
  if (!json_get_string (value, &name, error))
    return FALSE;
  if (sys_coll_opt_parse (name, &t->sys->opt))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "unknown collective optimization '%s' (localBWAware, baseline)", name);
  return FALSE;
}

static gboolean
key_local_mem_bw (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  double gbs = 0;
  if (!json_get_number (value, FALSE, &gbs, error))
    return FALSE;
  /* One memory: it prices reductions and bounds roofline compute. */
  t->sys->local_mem_bw_Bps = gbs * 1e9;
  t->wl->mem_bw_Bps = gbs * 1e9;
  return TRUE;
}

static gboolean
key_peak_perf (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  double tflops = 0;
  if (!json_get_number (value, FALSE, &tflops, error))
    return FALSE;
  t->wl->peak_flops = tflops * 1e12;
  return TRUE;
}

static gboolean
key_roofline (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  gboolean on;
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
    on = json_node_get_boolean (value);
  else if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_INT64
           && (json_node_get_int (value) == 0 || json_node_get_int (value) == 1))
    on = json_node_get_int (value) == 1;
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected 0 or 1, got %s",
                   json_kind (value));
      return FALSE;
    }
  t->wl->compute = on ? WL_COMPUTE_ROOFLINE : WL_COMPUTE_REPLAY;
  return TRUE;
}

/* ASTRA-sim's switches: a number or a boolean (true is 1).  ON_ONE: on
 * when the value is 1 (model-shared-bus), else when it is not 0 (the
 * others), as Sys::initialize_sys reads them. */
static gboolean
json_get_switch (JsonNode *value, gboolean on_one, gboolean *on, GError **error)
{
  double v;
  if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_BOOLEAN)
    v = json_node_get_boolean (value);
  else if (json_is_number (value))
    v = json_node_get_double (value);
  else
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected 0 or 1, got %s",
                   json_kind (value));
      return FALSE;
    }
  *on = on_one ? v == 1 : v != 0;
  return TRUE;
}

/* Switches that change ASTRA-sim's timing in ways orrery does not model:
 * refused when on (a plausible but different answer would be worse), each
 * with what orrery does instead; accepted when off, which is ASTRA-sim's
 * default. */
static gboolean
key_unmodelled_switch (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) t;
  gboolean on;
  if (!json_get_switch (value, arg == 0, &on, error))
    return FALSE;
  if (!on)
    return TRUE;
  if (arg == 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "1 models the bus between NPU and memory with LogGP (L, o, g, G, "
                 "local-reduction-delay), which orrery does not: it charges each message "
                 "endpoint-delay at its endpoint, as ASTRA-sim does with 0 (set 0 or leave "
                 "the key out)");
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "on, it makes ASTRA-sim replay every node, collectives and memory accesses "
                 "included, as a wait of its duration, which orrery does not reproduce: it "
                 "simulates the collectives through the network (set 0 or leave the key out)");
  return FALSE;
}

static gboolean
key_track_local_mem (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  gboolean on;
  if (!json_get_switch (value, FALSE, &on, error))
    return FALSE;
  /* Statistics only: ASTRA-sim's times do not change, so a warning. */
  if (on)
    g_ptr_array_add (t->warnings,
                     g_strdup_printf ("%s: 'track-local-mem': orrery does not track local memory "
                                      "use (no local-mem-trace-filename file, no peak memory "
                                      "line); simulated times are unaffected",
                                      t->path));
  return TRUE;
}

static const KeyHandler sys_keys[] = {
  { "scheduling-policy", key_policy, 0 },
  { "endpoint-delay", key_endpoint_delay, 0 },
  { "active-chunks-per-dimension", key_active_chunks, 0 },
  { "preferred-dataset-splits", key_splits, 0 },
  { "all-reduce-implementation", key_impl, SYS_COLL_ALL_REDUCE },
  { "reduce-scatter-implementation", key_impl, SYS_COLL_REDUCE_SCATTER },
  { "all-gather-implementation", key_impl, SYS_COLL_ALL_GATHER },
  { "all-to-all-implementation", key_impl, SYS_COLL_ALL_TO_ALL },
  { "all-reduce-implementation-custom", key_custom_impl, SYS_COLL_ALL_REDUCE },
  { "reduce-scatter-implementation-custom", key_custom_impl, SYS_COLL_REDUCE_SCATTER },
  { "all-gather-implementation-custom", key_custom_impl, SYS_COLL_ALL_GATHER },
  { "all-to-all-implementation-custom", key_custom_impl, SYS_COLL_ALL_TO_ALL },
  { "per-node-custom-implementation", key_per_node_custom, 0 },
  { "collective-optimization", key_coll_opt, 0 },
  { "local-mem-bw", key_local_mem_bw, 0 },
  { "peak-perf", key_peak_perf, 0 },
  { "roofline-enabled", key_roofline, 0 },
  { "model-shared-bus", key_unmodelled_switch, 0 },
  { "replay-only", key_unmodelled_switch, 1 },
  { "track-local-mem", key_track_local_mem, 0 },
};

static gboolean
key_mem_type (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  const char *name = NULL;
  if (!json_get_string (value, &name, error))
    return FALSE;
  if (wl_mem_kind_parse (name, &t->wl->mem.kind))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "unknown memory type '%s' (NO_MEMORY_EXPANSION, PER_NODE_MEMORY_EXPANSION, "
               "PER_NPU_MEMORY_EXPANSION, MEMORY_POOL)",
               name);
  return FALSE;
}

static gboolean
key_mem_latency (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  return json_get_ns (value, &t->wl->mem.latency, error);
}

static gboolean
key_mem_bw (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  (void) arg;
  double gbs = 0;
  if (!json_get_number (value, FALSE, &gbs, error))
    return FALSE;
  /* Decimal, like local-mem-bw: ASTRA-sim divides bytes by it as bytes/ns. */
  t->wl->mem.bandwidth_Bps = gbs * 1e9;
  return TRUE;
}

static gboolean
key_mem_count (AstraTarget *t, JsonNode *value, int arg, GError **error)
{
  guint n = 0;
  if (!json_get_uint (value, 1, &n, error))
    return FALSE;
  if (arg == 0)
    t->wl->mem.num_nodes = n;
  else
    t->wl->mem.npus_per_node = n;
  return TRUE;
}

static const KeyHandler mem_keys[] = {
  { "memory-type", key_mem_type, 0 },
  { "remote-mem-latency", key_mem_latency, 0 },
  { "remote-mem-bw", key_mem_bw, 0 },
  { "num-nodes", key_mem_count, 0 },
  { "num-npus-per-node", key_mem_count, 1 },
};

/* Remote memory other than none is priced by its bandwidth, and per-node
 * expansion by its node layout: refuse a file that leaves them out rather
 * than divide by zero later. */
static gboolean
mem_spec_check (const char *path, const WlMemSpec *mem, GError **error)
{
  if (mem->kind == WL_MEM_NONE)
    return TRUE;
  if (mem->bandwidth_Bps <= 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: memory-type %s needs remote-mem-bw",
                 path, wl_mem_kind_name (mem->kind));
  else if (mem->kind == WL_MEM_PER_NODE && (mem->num_nodes == 0 || mem->npus_per_node == 0))
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "%s: PER_NODE_MEMORY_EXPANSION needs num-nodes and num-npus-per-node", path);
  else
    return TRUE;
  return FALSE;
}

/* Keys ASTRA-sim reads that change none of its times (configs/README.md,
 * "ASTRA-sim inputs"): accepted without a handler, and never taken for a
 * misspelling. */
static const char *const no_effect_keys[] = {
  "L", "o", "g", "G", "local-reduction-delay", "local-mem-trace-filename", "trace-enabled", NULL
};

/* The key of KEYS (or no_effect_keys) within two edits of NAME, a key that
 * is neither, or NULL: "scheduling-polcy" was ignored without a word, and
 * the run went on with the default policy.  Names under 4 bytes are left
 * alone (ASTRA-sim's own L, o, g, G are that short). */
static const char *
near_key (const char *name, const KeyHandler *keys, guint n_keys)
{
  if (strlen (name) < 4 || g_strv_contains (no_effect_keys, name))
    return NULL;
  /* A known key first, by plain comparison: the distances, which cost
   * about as much as reading the file, are for the names that are not. */
  for (guint i = 0; i < n_keys; i++)
    if (strcmp (name, keys[i].key) == 0)
      return NULL;
  const char *best = NULL;
  guint best_d = 3;
  for (guint i = 0; i < n_keys; i++)
    {
      guint d = sim_edit_distance (name, keys[i].key, TRUE);
      if (d < best_d)
        {
          best = keys[i].key;
          best_d = d;
        }
    }
  for (const char *const *k = no_effect_keys; *k != NULL; k++)
    if (strlen (*k) >= 4 && sim_edit_distance (name, *k, TRUE) < best_d)
      {
        best = *k;
        best_d = sim_edit_distance (name, *k, TRUE);
      }
  return best;
}

/* Apply each known key of a JSON object file; others are ignored, as
 * ASTRA-sim ignores them, with a warning for one that looks like a known
 * key misspelt. */
static gboolean
json_keys_load (const char *path, const KeyHandler *keys, guint n_keys, AstraTarget *t,
                GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *obj = json_load_object (parser, path, error);
  if (obj == NULL)
    return FALSE;
  t->path = path;
  for (guint i = 0; i < n_keys; i++)
    {
      JsonNode *value = json_object_get_member (obj, keys[i].key);
      if (value != NULL && !keys[i].fn (t, value, keys[i].arg, error))
        {
          sim_error_prefix (error, "%s: '%s': ", path, keys[i].key);
          return FALSE;
        }
    }
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *m = members; m != NULL; m = m->next)
    {
      const char *near = near_key (m->data, keys, n_keys);
      if (near != NULL)
        g_ptr_array_add (t->warnings,
                         g_strdup_printf ("%s: '%s' is not a key ASTRA-sim reads, ignored: "
                                          "did you mean '%s'?",
                                          path, (const char *) m->data, near));
    }
  return TRUE;
}

gboolean
app_config_load_astra (AppConfig *cfg, const char *net_yml, const char *sys_json,
                       const char *mem_json, GError **error)
{
  g_return_val_if_fail (cfg != NULL && net_yml != NULL && sys_json != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  /* The files describe the whole simulation, so start from the defaults. */
  NetSpec net = { 0 };
  SysParams sys;
  WlParams wl;
  sys_params_init (&sys);
  wl_params_init (&wl);
  g_autoptr (GPtrArray) warnings = g_ptr_array_new_with_free_func (g_free);
  AstraTarget t = { &sys, &wl, warnings, NULL };
  if (!app_astra_net_yaml_load (net_yml, &net, error)
      || !json_keys_load (sys_json, sys_keys, G_N_ELEMENTS (sys_keys), &t, error)
      || (mem_json != NULL
          && (!json_keys_load (mem_json, mem_keys, G_N_ELEMENTS (mem_keys), &t, error)
              || !mem_spec_check (mem_json, &wl.mem, error))))
    return FALSE;
  /* ASTRA-sim's analytical semantics, everywhere. */
  net.model = NET_MODEL_ANALYTICAL;
  app_compat_apply (APP_COMPAT_REFERENCE, &net, &sys, &wl);
  sys.reduction_passes = 3;
  /* ASTRA-sim builds an algorithm for a kind only when a collective of that
   * kind runs, so a list it cannot run for some kind fails there. */
  sys.kind_check_at_use = TRUE;
  wl.slots_comp = 1;
  wl.slots_cpu = 1;
  wl.slots_comm = 1;
  cfg->net = net;
  cfg->sys = sys;
  cfg->wl = wl;
  cfg->astra_mode = TRUE;
  for (guint i = 0; i < warnings->len; i++)
    g_ptr_array_add (cfg->warnings, g_strdup (warnings->pdata[i]));
  g_ptr_array_add (cfg->sources, g_strdup (net_yml));
  g_ptr_array_add (cfg->sources, g_strdup (sys_json));
  if (mem_json != NULL)
    g_ptr_array_add (cfg->sources, g_strdup (mem_json));
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Comm groups JSON                                                         */

/* One group's rank list: non-negative integers (1.0 counts as whole, as
 * json_get_uint takes it and ASTRA-sim reads it). */
static GArray *
group_ranks (JsonNode *value, GError **error)
{
  if (!JSON_NODE_HOLDS_ARRAY (value))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "expected a list of ranks, got %s",
                   json_kind (value));
      return NULL;
    }
  JsonArray *array = json_node_get_array (value);
  guint n = json_array_get_length (array);
  g_autoptr (GArray) ranks = g_array_sized_new (FALSE, FALSE, sizeof (guint32), n);
  for (guint i = 0; i < n; i++)
    {
      JsonNode *item = json_array_get_element (array, i);
      double v = json_is_number (item) ? json_node_get_double (item) : NAN;
      if (!isfinite (v) || v != floor (v) || v < 0 || v >= G_MAXUINT32)
        {
          g_autofree char *got = json_is_number (item)
                                   ? g_strdup_printf ("%g", json_node_get_double (item))
                                   : g_strdup (json_kind (item));
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "entry %u: a rank is a whole number from 0 to %u, got %s", i,
                       G_MAXUINT32 - 1, got);
          return NULL;
        }
      guint32 rank = (guint32) v;
      g_array_append_val (ranks, rank);
    }
  return g_steal_pointer (&ranks);
}

gboolean
app_config_load_comm_groups (AppConfig *cfg, const char *path, GError **error)
{
  g_return_val_if_fail (cfg != NULL && path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *obj = json_load_object (parser, path, error);
  if (obj == NULL)
    return FALSE;
  /* Everything is checked in a scratch set first, so that a bad file leaves
   * cfg->groups as it was; the ids defined already there are checked too. */
  g_autoptr (WlGroups) scratch = wl_groups_new ();
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr (GList) members = json_object_get_members (obj);
  for (GList *m = members; m != NULL; m = m->next)
    {
      const char *name = m->data;
      guint64 id = 0;
      if (!wl_group_id_parse (name, &id) || id == WL_GROUP_ALL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: group id '%s' is not a whole number from 0 to %" G_GUINT64_FORMAT,
                       path, name, WL_GROUP_ALL - 1);
          return FALSE;
        }
      g_autoptr (GArray) ranks = group_ranks (json_object_get_member (obj, name), error);
      if (ranks == NULL
          || !wl_groups_define (scratch, id, (const guint32 *) ranks->data, ranks->len, error))
        {
          sim_error_prefix (error, "%s: group '%s': ", path, name);
          return FALSE;
        }
      if (cfg->groups != NULL && wl_groups_lookup (cfg->groups, id, NULL) != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: group '%s' is already defined", path, name);
          return FALSE;
        }
      g_array_append_val (ids, id);
    }
  if (cfg->groups == NULL)
    cfg->groups = g_steal_pointer (&scratch);
  else
    for (guint i = 0; i < ids->len; i++)
      {
        guint64 id = g_array_index (ids, guint64, i);
        guint n = 0;
        const guint32 *ranks = wl_groups_lookup (scratch, id, &n);
        if (!wl_groups_define (cfg->groups, id, ranks, n, NULL))
          g_assert_not_reached (); /* checked above */
      }
  g_ptr_array_add (cfg->sources, g_strdup (path));
  return TRUE;
}
