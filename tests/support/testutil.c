/* testutil.c: helpers shared by the test suites. */
#include "testutil.h"

#include "sim/app/simulation.h"
#include "modes.h"

#include <glib/gstdio.h>
#include <sys/wait.h>
#include <string.h>

#include "sim/error.h"

int
tu_run_suite (Suite *s)
{
  g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? 0 : 1;
}

TCase *
tu_tcase (Suite *s, const char *name, void (*setup) (void), void (*teardown) (void),
          double timeout_s)
{
  TCase *tc = tcase_create (name);
  if (setup != NULL || teardown != NULL)
    tcase_add_checked_fixture (tc, setup, teardown);
  if (timeout_s > 0)
    tcase_set_timeout (tc, timeout_s);
  suite_add_tcase (s, tc);
  return tc;
}

const char *
tu_shared_dir (void)
{
  static char *dir = NULL;
  if (dir == NULL)
    dir = g_strdup (g_getenv ("SHARED") ? g_getenv ("SHARED") : "../shared");
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_print ("skipped: %s not found (set SHARED to the shared test data)\n", dir);
      return NULL;
    }
  return dir;
}

char *
tu_mkdtemp (void)
{
  GError *error = NULL;
  char *dir = g_dir_make_tmp ("orrery-test-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

void
tu_rmdir (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (g_file_test (p, G_FILE_TEST_IS_DIR))
        tu_rmdir (p);
      else
        g_unlink (p);
    }
  g_dir_close (d);
  g_rmdir (dir);
}

char *tu_scratch;

void
tu_scratch_setup (void)
{
  tu_scratch = tu_mkdtemp ();
}

void
tu_scratch_teardown (void)
{
  tu_rmdir (tu_scratch);
  g_clear_pointer (&tu_scratch, g_free);
}

char *
tu_scratch_path (const char *name)
{
  /* Without the fixture the path would be relative to the current
   * directory: a test would write into the source tree. */
  g_assert (tu_scratch != NULL);
  return g_build_filename (tu_scratch, name, NULL);
}

char *
tu_write_file (const char *name, const char *text)
{
  char *path = tu_scratch_path (name);
  ck_assert (g_file_set_contents (path, text, -1, NULL));
  return path;
}

void
tu_assert_input_error (const GError *error, const char *needle)
{
  ck_assert_msg (error != NULL, "expected an error containing '%s'", needle);
  ck_assert_msg (error->domain == SIM_ERROR && error->code == SIM_ERROR_INPUT,
                 "wrong domain/code for: %s", error->message);
  ck_assert_msg (strstr (error->message, needle) != NULL, "'%s' not in: %s", needle,
                 error->message);
}

const char *
tu_orrery (void)
{
  return g_getenv ("ORRERY") ? g_getenv ("ORRERY") : "build/orrery";
}

int
tu_run (char **output, const char *const *argv)
{
  char *out = NULL, *err = NULL;
  int status = 0;
  GError *error = NULL;
  gboolean ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out,
                              &err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  if (output != NULL)
    *output = g_strconcat (out, err, NULL);
  g_free (out);
  g_free (err);
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

int
tu_run_workload (char **output, const char *config, const char *prefix)
{
  const char *argv[] = { tu_orrery (), "run", "--config", config, "--workload", prefix, NULL };
  return tu_run (output, argv);
}

int
tu_inspect (char **output, const char *prefix)
{
  const char *argv[] = { tu_orrery (), "inspect", prefix, NULL };
  return tu_run (output, argv);
}

ChakraProtoMsg__Node *
tu_node_new (guint64 id, int type, const char *name)
{
  ChakraProtoMsg__Node *n = g_new0 (ChakraProtoMsg__Node, 1);
  chakra_proto_msg__node__init (n);
  n->id = id;
  n->type = (ChakraProtoMsg__NodeType) type;
  n->name = g_strdup (name);
  return n;
}

void
tu_node_free (ChakraProtoMsg__Node *n)
{
  for (gsize i = 0; i < n->n_attr; i++)
    {
      if (n->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL)
        g_free (n->attr[i]->string_val);
      g_free (n->attr[i]->name);
      g_free (n->attr[i]);
    }
  g_free (n->attr);
  if (n->inputs != NULL)
    {
      g_free (n->inputs->values);
      g_free (n->inputs);
    }
  g_free (n->data_deps);
  g_free (n->ctrl_deps);
  g_free (n->name);
  g_free (n);
}

GBytes *
tu_node_frame (ChakraProtoMsg__Node *n)
{
  gsize len = chakra_proto_msg__node__get_packed_size (n);
  guint8 *buf = g_malloc (len);
  chakra_proto_msg__node__pack (n, buf);
  tu_node_free (n);
  return g_bytes_new_take (buf, len);
}

void
tu_node_dep (ChakraProtoMsg__Node *n, guint64 dep)
{
  n->data_deps = g_renew (guint64, n->data_deps, n->n_data_deps + 1);
  n->data_deps[n->n_data_deps++] = dep;
}

void
tu_node_ctrl_dep (ChakraProtoMsg__Node *n, guint64 dep)
{
  n->ctrl_deps = g_renew (guint64, n->ctrl_deps, n->n_ctrl_deps + 1);
  n->ctrl_deps[n->n_ctrl_deps++] = dep;
}

static ChakraProtoMsg__AttributeProto *
add_attr (ChakraProtoMsg__Node *n, const char *name)
{
  ChakraProtoMsg__AttributeProto *a = g_new0 (ChakraProtoMsg__AttributeProto, 1);
  chakra_proto_msg__attribute_proto__init (a);
  a->name = g_strdup (name);
  n->attr = g_renew (ChakraProtoMsg__AttributeProto *, n->attr, n->n_attr + 1);
  n->attr[n->n_attr++] = a;
  return a;
}

void
tu_node_attr_int (ChakraProtoMsg__Node *n, const char *name, gint64 v)
{
  ChakraProtoMsg__AttributeProto *a = add_attr (n, name);
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_INT64_VAL;
  a->int64_val = v;
}

void
tu_node_attr_bool (ChakraProtoMsg__Node *n, const char *name, gboolean v)
{
  ChakraProtoMsg__AttributeProto *a = add_attr (n, name);
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL;
  a->bool_val = v;
}

void
tu_node_attr_string (ChakraProtoMsg__Node *n, const char *name, const char *v)
{
  ChakraProtoMsg__AttributeProto *a = add_attr (n, name);
  a->value_case = CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_STRING_VAL;
  a->string_val = g_strdup (v);
}

void
tu_write_trace (const char *path, ChakraProtoMsg__Node **nodes, guint n)
{
  GError *error = NULL;
  WlChakraWriter *w = wl_chakra_writer_open (path, "0.0.4", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < n; i++)
    {
      wl_chakra_writer_add (w, nodes[i], &error);
      g_assert_no_error (error);
    }
  wl_chakra_writer_close (w, &error);
  g_assert_no_error (error);
  wl_chakra_writer_free (w);
}

void
tu_node_inputs (ChakraProtoMsg__Node *n, const char *values)
{
  n->inputs = g_new0 (ChakraProtoMsg__IOInfo, 1);
  chakra_proto_msg__ioinfo__init (n->inputs);
  n->inputs->values = g_strdup (values);
}

ChakraProtoMsg__Node *
tu_comp (guint64 id, guint64 micros)
{
  ChakraProtoMsg__Node *n = tu_node_new (id, CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE, "comp");
  n->duration_micros = micros;
  return n;
}

ChakraProtoMsg__Node *
tu_coll (guint64 id, int comm_type, gint64 bytes)
{
  ChakraProtoMsg__Node *n = tu_node_new (id, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE, "coll");
  tu_node_attr_int (n, "comm_type", comm_type);
  tu_node_attr_int (n, "comm_size", bytes);
  return n;
}

ChakraProtoMsg__Node *
tu_p2p (guint64 id, int type, gint64 src, gint64 dst, gint64 tag, gint64 bytes)
{
  ChakraProtoMsg__Node *n = tu_node_new (
      id, type, type == CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE ? "send" : "recv");
  tu_node_attr_int (n, "comm_src", src);
  tu_node_attr_int (n, "comm_dst", dst);
  tu_node_attr_int (n, "comm_tag", tag);
  tu_node_attr_int (n, "comm_size", bytes);
  return n;
}

void
tu_write_rank (const char *prefix, guint32 rank, ChakraProtoMsg__Node **nodes, guint n)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  tu_write_trace (path, nodes, n);
  for (guint i = 0; i < n; i++)
    tu_node_free (nodes[i]);
}

void
tu_exact_ring (AppConfig *cfg, guint32 ranks)
{
  app_config_init (cfg);
  cfg->net.n_dims = 1;
  cfg->net.dims[0] = (NetDimSpec) { .kind = NET_DIM_RING, .size = ranks, .bandwidth_Bps = 1e9,
                                    .latency = sim_time_from_ns (100) };
  cfg->net.model = NET_MODEL_ANALYTICAL;
  cfg->net.rounding = NET_ROUND_PS;
  cfg->sys.endpoint_delay = 0;
  cfg->sys.reduction_passes = 0;
}

void
tu_config_2x4 (AppConfig *cfg)
{
  app_config_init (cfg);
  cfg->net.n_dims = 2;
  cfg->net.dims[0] = (NetDimSpec) { .kind = NET_DIM_RING, .size = 2, .bandwidth_Bps = 100e9,
                                    .latency = sim_time_from_ns (500) };
  cfg->net.dims[1] = (NetDimSpec) { .kind = NET_DIM_RING, .size = 4, .bandwidth_Bps = 25e9,
                                    .latency = sim_time_from_ns (1000) };
  cfg->wl.compute = WL_COMPUTE_ROOFLINE;
}

void
tu_assert_completes_2x4 (const char *prefix)
{
  AppConfig cfg;
  tu_config_2x4 (&cfg);
  AppSim *sim = tu_sim_all_modes_ok (&cfg, prefix);
  const WlReplay *rp = app_sim_replay (sim);
  g_assert_cmpuint (wl_replay_unfinished (rp), ==, 0);
  for (guint32 r = 0; r < 8; r++)
    g_assert_cmpuint (wl_replay_rank_stats (rp, r)->finish, >, 0);
  app_sim_free (sim);
  app_config_clear (&cfg);
}

const char tu_cluster_c4x2[]
    = "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"c4x2\" rounding=\"ps\">\n"
      "  <network model=\"congestion\">\n"
      "    <dim kind=\"Switch\" size=\"4\" bandwidth=\"100GB/s\" latency=\"500ns\"/>\n"
      "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"25GB/s\" latency=\"1us\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"FIFO\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"2\"\n"
      "          splits=\"4\" local-mem-bw=\"1600GB/s\" reduction-passes=\"3\"/>\n"
      "  <compute model=\"roofline\" device=\"H100-SXM\" dtype=\"bf16\"/>\n"
      "</cluster>\n";

void
tu_assert_same_node (const WlNode *x, const WlNode *y)
{
  ck_assert_uint_eq (x->id, y->id);
  ck_assert_uint_eq (x->duration_ps, y->duration_ps);
  ck_assert_uint_eq (x->num_ops, y->num_ops);
  ck_assert_uint_eq (x->bytes, y->bytes);
  ck_assert_uint_eq (x->group, y->group);
  ck_assert_uint_eq (x->peer_src, y->peer_src);
  ck_assert_uint_eq (x->peer_dst, y->peer_dst);
  ck_assert_int_eq (x->tag, y->tag);
  ck_assert_int_eq (x->priority, y->priority);
  ck_assert_uint_eq (x->involved, y->involved);
  ck_assert_uint_eq (x->root, y->root);
  ck_assert_uint_eq (x->op, y->op);
  ck_assert_uint_eq (x->coll_kind, y->coll_kind);
  ck_assert_uint_eq (x->chakra_type, y->chakra_type);
  ck_assert_uint_eq (x->comm_stream, y->comm_stream);
}

WlKernel
tu_kernel (const char *text)
{
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  GError *error = NULL;
  ck_assert_msg (wl_kernels_parse (text, list, &error), "%s: %s", text,
                 error ? error->message : "");
  ck_assert_uint_eq (list->len, 1);
  return g_array_index (list, WlKernel, 0);
}
