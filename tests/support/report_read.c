/* report_read.c: the report suites' ring, run and JSON reading; see
 * report_read.h. */
#include "report_read.h"

#include <check.h>
#include <math.h>

#include "modes.h"
#include "testutil.h"

char *
tu_ring_config (guint ranks, const char *reduce, const char *extra)
{
  g_autofree char *xml = g_strdup_printf (
      "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"ring\" rounding=\"ps\">\n"
      "  <network model=\"analytical\">\n"
      "    <dim kind=\"Ring\" size=\"%u\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\" active-chunks-per-dim=\"1\"\n"
      "          splits=\"1\" %s/>\n"
      "%s"
      "</cluster>\n",
      ranks, reduce, extra);
  return tu_write_file ("ring.xml", xml);
}

char *
tu_report_ring (guint ranks, const char *extra)
{
  return tu_ring_config (ranks, "reduction-passes=\"0\"", extra);
}

char *
tu_report_run (const char *cfg, const char *const *extra)
{
  g_autofree char *wl = tu_scratch_path ("wl");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *head[] = { tu_orrery (), "run", "--config", cfg, "--workload", wl };
  for (guint i = 0; i < G_N_ELEMENTS (head); i++)
    g_ptr_array_add (argv, (gpointer) head[i]);
  for (const char *const *a = extra; *a != NULL; a++)
    g_ptr_array_add (argv, (gpointer) *a);
  g_ptr_array_add (argv, NULL);
  char *out = NULL;
  int status = tu_run_modes (&out, (const char *const *) argv->pdata);
  ck_assert_msg (status == 0, "exit %d: %s", status, out);
  return out;
}

JsonParser *
tu_json_load (const char *path)
{
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  json_parser_load_from_file (parser, path, &error);
  g_assert_no_error (error);
  return parser;
}

JsonObject *
tu_json_root (JsonParser *parser)
{
  return json_node_get_object (json_parser_get_root (parser));
}

gint64
tu_json_int (JsonObject *o, const char *name)
{
  ck_assert_msg (json_object_has_member (o, name), "no member %s", name);
  return json_object_get_int_member (o, name);
}

double
tu_json_double (JsonObject *o, const char *name)
{
  ck_assert_msg (json_object_has_member (o, name), "no member %s", name);
  return json_object_get_double_member (o, name);
}

JsonArray *
tu_json_array (JsonObject *o, const char *name)
{
  ck_assert_msg (json_object_has_member (o, name), "no member %s", name);
  return json_object_get_array_member (o, name);
}

gint64
tu_json_ps (JsonObject *o, const char *name)
{
  g_autofree char *ps = g_strdup_printf ("%s_ps", name);
  g_autofree char *ns = g_strdup_printf ("%s_ns", name);
  gint64 v = tu_json_int (o, ps);
  ck_assert_int_eq (tu_json_int (o, ns), v / 1000);
  return v;
}

void
tu_assert_rel (double got, double want)
{
  ck_assert_msg (fabs (got - want) <= 1e-9 * fabs (want), "%.17g, want %.17g", got, want);
}

GStrv
tu_stats_row (const char *text, guint rank)
{
  g_auto (GStrv) rows = g_strsplit (text, "\n", -1);
  /* Traces with exchanges add exchange_wait_ps. */
  ck_assert_msg (g_str_has_prefix (rows[0], "rank,finish_ps,compute_ps,exposed_comm_ps,idle_ps,"
                                            "after_finish_ps,comm_busy_ps,cpu_ps,nodes,"
                                            "pipeline_bubble_ps,model_flops,hardware_flops"),
                 "%s", rows[0]);
  ck_assert (g_strv_length (rows) > rank + 1);
  GStrv f = g_strsplit (rows[rank + 1], ",", -1);
  ck_assert_uint_ge (g_strv_length (f), 12);
  return f;
}

gint64
tu_stats_field (GStrv f, guint i)
{
  return g_ascii_strtoll (f[i], NULL, 10);
}
