/* test_sweep.c: `orrery sweep` as the sweep script drives it: expanding a
 * spec into points (row-major order, zips, ranges, XPath edits of the base
 * config, spec errors with FILE:LINE, re-expansion), running points (results
 * equal to running `orrery run` by hand and to the closed form of a ring
 * all-reduce; "done already"; failed and pending points) and gathering the
 * CSV; with ../shared, ASTRA-sim's microbenchmarks against its own results.
 */
#include <check.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/app/xml_lib.h"
#include "support/modes.h"
#include "support/testutil.h"

/* ---- helpers ------------------------------------------------------------------ */

/* A 4-rank ring at exactly 1 byte per ns, 100 ns per hop, no endpoint delay,
 * reductions at 1000 GB/s with 3 passes (as in test_cli.c). */
static void
write_ring4 (void)
{
  g_free (tu_write_file (
      "ring4.xml",
      "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"ring4\" rounding=\"ps\">\n"
      "  <network model=\"analytical\">\n"
      "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "    <dim kind=\"Ring\" size=\"2\" bandwidth=\"1GB/s\" latency=\"100ns\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\" active-chunks-per-dim=\"1\"\n"
      "          splits=\"1\" local-mem-bw=\"1000GB/s\" reduction-passes=\"3\">\n"
      "    <algorithm collective=\"all-reduce\" dims=\"ring ring\"/>\n"
      "  </system>\n"
      "</cluster>\n"));
}

/* A one-dimensional 4-rank ring, the same figures: the closed forms below. */
static char *
ring1d (const char *name, const char *bandwidth)
{
  g_autofree char *xml = g_strdup_printf (
      "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"ring4\" rounding=\"ps\">\n"
      "  <network model=\"analytical\">\n"
      "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"%s\" latency=\"100ns\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"FIFO\" endpoint-delay=\"0ns\" active-chunks-per-dim=\"1\"\n"
      "          splits=\"1\" local-mem-bw=\"1000GB/s\" reduction-passes=\"3\"/>\n"
      "</cluster>\n",
      bandwidth);
  return tu_write_file (name, xml);
}

/* Not inlined: gcc 12 at -O3 then takes the pointers callers find in the
 * result for pointers to `text` itself (-Wdangling-pointer). */
static G_GNUC_NO_INLINE char *
slurp (const char *path)
{
  char *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "cannot read %s", path);
  return text;
}

static char *
point_file (const char *out, const char *id, const char *name)
{
  return g_build_filename (out, "points", id, name, NULL);
}

/* `orrery sweep ARGS...`: the exit status, output in *output (may be NULL). */
static int
sweep (char **output, const char *cmd, const char *a, const char *b)
{
  const char *argv[] = { tu_orrery (), "sweep", cmd, a, b, NULL };
  return tu_run (output, argv);
}

/* Expand tu_scratch/spec.xml (written from text) into tu_scratch/out; it
 * must succeed and print n. */
static char *
expand_ok (const char *text, const char *n)
{
  g_autofree char *spec = tu_write_file ("spec.xml", text);
  char *out = tu_scratch_path ("out");
  g_autofree char *output = NULL;
  ck_assert_msg (sweep (&output, "expand", spec, out) == 0, "%s", output);
  g_autofree char *want = g_strdup_printf ("%s\n", n);
  ck_assert_str_eq (output, want);
  return out;
}

/* points.tsv's lines, header first. */
static char **
points_tsv (const char *out)
{
  g_autofree char *path = g_build_filename (out, "points.tsv", NULL);
  g_autofree char *text = slurp (path);
  g_strchomp (text);
  return g_strsplit (text, "\n", -1);
}

/* sweep.csv's lines after a gather, header first. */
static char **
gather (const char *out)
{
  g_autofree char *output = NULL;
  ck_assert_msg (sweep (&output, "gather", out, NULL) == 0, "%s", output);
  g_autofree char *path = g_build_filename (out, "sweep.csv", NULL);
  g_autofree char *want = g_strdup_printf ("%s\n", path);
  ck_assert_str_eq (output, want);
  g_autofree char *text = slurp (path);
  g_strchomp (text);
  return g_strsplit (text, "\n", -1);
}

/* Run point id; its exit status, output in *output. */
static int
run_point (const char *out, const char *id, char **output)
{
  return sweep (output, "run", out, id);
}

/* One field (0-based) of a CSV line without quoted fields. */
static char *
csv_col (const char *line, guint col)
{
  g_auto (GStrv) f = g_strsplit (line, ",", -1);
  ck_assert_uint_gt (g_strv_length (f), col);
  return g_strdup (f[col]);
}

/* ---- expansion --------------------------------------------------------------- */

/* 3 x 4 x 2: 24 points, the first param slowest; ids as wide as "24". */
START_TEST (test_expand_row_major)
{
  write_ring4 ();
  g_autofree char *out = expand_ok (
      "<sweep name=\"grid\">\n"
      "  <config path=\"ring4.xml\"/>\n"
      "  <workload prefix=\"traces/{a}/{b}\"/>\n"
      "  <run-options>--network-model {c} --critical-path 2</run-options>\n"
      "  <grid>\n"
      "    <param name=\"a\" values=\"x y z\"/>\n"
      "    <param name=\"b\" values=\"1 2 3 4\"/>\n"
      "    <param name=\"c\" values=\"analytical congestion\"/>\n"
      "  </grid>\n"
      "</sweep>\n",
      "24");
  const char *a[] = { "x", "y", "z" }, *b[] = { "1", "2", "3", "4" };
  const char *c[] = { "analytical", "congestion" };
  g_auto (GStrv) lines = points_tsv (out);
  ck_assert_uint_eq (g_strv_length (lines), 25);
  ck_assert_str_eq (lines[0], "point\ta\tb\tc");
  for (guint i = 0; i < 24; i++)
    {
      g_autofree char *want
          = g_strdup_printf ("%02u\t%s\t%s\t%s", i, a[i / 8], b[i / 2 % 4], c[i % 2]);
      ck_assert_str_eq (lines[i + 1], want);
    }
  g_autofree char *ids = NULL;
  ck_assert_int_eq (sweep (&ids, "points", out, NULL), 0);
  ck_assert (g_str_has_prefix (ids, "00\n01\n02\n"));
  ck_assert (g_str_has_suffix (ids, "\n22\n23\n"));

  const guint some[] = { 0, 13, 23 };
  for (guint k = 0; k < G_N_ELEMENTS (some); k++)
    {
      guint i = some[k];
      g_autofree char *id = g_strdup_printf ("%02u", i);
      g_autofree char *dir = g_build_filename (out, "points", id, NULL);
      g_autofree char *args_path = point_file (out, id, "args");
      g_autofree char *args = slurp (args_path);
      g_autofree char *want = g_strdup_printf (
          "--config\n%s/config.xml\n--workload\n%s/traces/%s/%s\n--report\n%s/report.json\n"
          "--stats\n%s/stats.csv\n--quiet\n--network-model\n%s\n--critical-path\n2\n",
          dir, tu_scratch, a[i / 8], b[i / 2 % 4], dir, dir, c[i % 2]);
      ck_assert_str_eq (args, want);
      g_autofree char *params_path = point_file (out, id, "params.tsv");
      g_autofree char *params = slurp (params_path);
      g_autofree char *row
          = g_strdup_printf ("point\ta\tb\tc\n%s\t%s\t%s\t%s\n", id, a[i / 8], b[i / 2 % 4], c[i % 2]);
      ck_assert_str_eq (params, row);
      g_autofree char *gen = point_file (out, id, "gen-args");
      ck_assert (!g_file_test (gen, G_FILE_TEST_EXISTS));
    }
  /* spec.xml is a byte copy. */
  g_autofree char *copy_path = g_build_filename (out, "spec.xml", NULL);
  g_autofree char *spec_path = tu_scratch_path ("spec.xml");
  g_autofree char *copy = slurp (copy_path), *orig = slurp (spec_path);
  ck_assert_str_eq (copy, orig);
}
END_TEST

/* A zip of two 3-lists advances them together: 3 x 2 = 6 points; a
 * generated workload gets gen-args with --out in the point. */
START_TEST (test_expand_zip)
{
  write_ring4 ();
  g_autofree char *out = expand_ok (
      "<sweep>\n"
      "  <config path=\"ring4.xml\"/>\n"
      "  <generate>gen transformer --preset llama2-7b --tp {tp} --dp {dp} --pp 1 "
      "--micro-batch {mb} --global-batch 8</generate>\n"
      "  <grid>\n"
      "    <zip>\n"
      "      <param name=\"tp\" values=\"1 2 4\"/>\n"
      "      <param name=\"dp\" values=\"4 2 1\"/>\n"
      "    </zip>\n"
      "    <param name=\"mb\" values=\"1 2\"/>\n"
      "  </grid>\n"
      "</sweep>\n",
      "6");
  g_auto (GStrv) lines = points_tsv (out);
  const char *want[] = { "point\ttp\tdp\tmb", "0\t1\t4\t1", "1\t1\t4\t2", "2\t2\t2\t1",
                         "3\t2\t2\t2",        "4\t4\t1\t1", "5\t4\t1\t2", NULL };
  ck_assert_uint_eq (g_strv_length (lines), 7);
  for (guint i = 0; want[i] != NULL; i++)
    ck_assert_str_eq (lines[i], want[i]);
  g_autofree char *gen_path = point_file (out, "3", "gen-args");
  g_autofree char *gen = slurp (gen_path);
  g_autofree char *dir = g_build_filename (out, "points", "3", NULL);
  g_autofree char *gen_want = g_strdup_printf (
      "transformer\n--preset\nllama2-7b\n--tp\n2\n--dp\n2\n--pp\n1\n--micro-batch\n2\n"
      "--global-batch\n8\n--out\n%s/workload/w\n", dir);
  ck_assert_str_eq (gen, gen_want);
  g_autofree char *args_path = point_file (out, "3", "args");
  g_autofree char *args = slurp (args_path);
  g_autofree char *wl = g_strdup_printf ("--workload\n%s/workload/w\n", dir);
  ck_assert_msg (strstr (args, wl) != NULL, "%s", args);
}
END_TEST

/* Integer ranges: by a step (both ways) and geometric, both ends included. */
START_TEST (test_expand_ranges)
{
  write_ring4 ();
  g_autofree char *out = expand_ok (
      "<sweep>\n"
      "  <config path=\"ring4.xml\"/>\n"
      "  <workload prefix=\"t/{up}/{down}/{geo}\"/>\n"
      "  <grid>\n"
      "    <param name=\"up\" from=\"1\" to=\"16\" step=\"5\"/>\n"
      "    <param name=\"down\" from=\"10\" to=\"1\" step=\"-4\"/>\n"
      "    <param name=\"geo\" from=\"1\" to=\"100\" factor=\"4\"/>\n"
      "  </grid>\n"
      "</sweep>\n",
      "48");
  g_auto (GStrv) lines = points_tsv (out);
  /* up: 1 6 11 16; down: 10 6 2; geo: 1 4 16 64. */
  const char *up[] = { "1", "6", "11", "16" }, *down[] = { "10", "6", "2" };
  const char *geo[] = { "1", "4", "16", "64" };
  for (guint i = 0; i < 48; i++)
    {
      g_autofree char *want
          = g_strdup_printf ("%02u\t%s\t%s\t%s", i, up[i / 12], down[i / 4 % 3], geo[i % 4]);
      ck_assert_str_eq (lines[i + 1], want);
    }
  ck_assert_ptr_null (lines[49]);
}
END_TEST

/* The value of the first node xpath matches in the XML file at path. */
static char *
xpath_value (const char *path, const char *xpath, int *n_matches)
{
  xmlDoc *doc = xmlReadFile (path, NULL, XML_PARSE_NONET);
  ck_assert_ptr_nonnull (doc);
  xmlXPathContext *ctx = xmlXPathNewContext (doc);
  xmlXPathObject *r = xmlXPathEvalExpression ((const xmlChar *) xpath, ctx);
  ck_assert (r != NULL && r->nodesetval != NULL && r->nodesetval->nodeNr > 0);
  *n_matches = r->nodesetval->nodeNr;
  xmlChar *v = xmlNodeGetContent (r->nodesetval->nodeTab[*n_matches - 1]);
  char *s = g_strdup ((const char *) v);
  xmlFree (v);
  xmlXPathFreeObject (r);
  xmlXPathFreeContext (ctx);
  xmlFreeDoc (doc);
  return s;
}

/* XPath selects edit each point's copy of the base config, every match of
 * a select (both dims' latency), and the copies are valid cluster XML. */
START_TEST (test_expand_xpath_edits)
{
  write_ring4 ();
  g_autofree char *out = expand_ok (
      "<sweep>\n"
      "  <config path=\"ring4.xml\"/>\n"
      "  <workload prefix=\"t\"/>\n"
      "  <grid>\n"
      "    <param name=\"bw\" select=\"/cluster/network/dim[2]/@bandwidth\" "
      "values=\"100Gb/s 400Gb/s\"/>\n"
      "    <param name=\"lat\" select=\"//dim/@latency\" values=\"1us 2us\"/>\n"
      "    <param name=\"splits\" select=\"/cluster/system/@splits\" from=\"1\" to=\"4\" "
      "factor=\"2\"/>\n"
      "  </grid>\n"
      "</sweep>\n",
      "12");
  /* Point 11 = (400Gb/s, 2us, 4); point 4 = (100Gb/s, 2us, 2). */
  const struct
  {
    const char *id, *bw, *lat, *splits;
  } cases[] = { { "11", "400Gb/s", "2us", "4" }, { "04", "100Gb/s", "2us", "2" },
                { "00", "100Gb/s", "1us", "1" } };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *cfg = point_file (out, cases[k].id, "config.xml");
      int n = 0;
      g_autofree char *bw = xpath_value (cfg, "/cluster/network/dim[2]/@bandwidth", &n);
      ck_assert_str_eq (bw, cases[k].bw);
      g_autofree char *bw1 = xpath_value (cfg, "/cluster/network/dim[1]/@bandwidth", &n);
      ck_assert_str_eq (bw1, "1GB/s");
      g_autofree char *lat1 = xpath_value (cfg, "/cluster/network/dim[1]/@latency", &n);
      g_autofree char *lat2 = xpath_value (cfg, "/cluster/network/dim[2]/@latency", &n);
      ck_assert_str_eq (lat1, cases[k].lat);
      ck_assert_str_eq (lat2, cases[k].lat);
      g_autofree char *splits = xpath_value (cfg, "/cluster/system/@splits", &n);
      ck_assert_str_eq (splits, cases[k].splits);
      AppConfig c;
      app_config_init (&c);
      GError *error = NULL;
      app_config_load_xml (&c, cfg, &error);
      g_assert_no_error (error);
      app_config_clear (&c);
    }
}
END_TEST

typedef struct
{
  const char *grid;   /* the <grid>'s contents */
  const char *extra;  /* more elements, or "" */
  int line;           /* the line the message names */
  const char *needle; /* in the message */
} SpecError;

/* Spec errors: exit 1, one line "spec.xml:LINE: ...", no directory made. */
START_TEST (test_expand_errors)
{
  write_ring4 ();
  const SpecError cases[] = {
    /* Schema violations: caught by the walk with a precise message, or by
     * the validator. */
    { "<param name=\"a\" values=\"1\" bogus=\"2\"/>", "", 5, "unknown attribute 'bogus'" },
    { "<param name=\"a\" values=\"1\"/>", "<astra network=\"n\" system=\"s\"/>\n", 4,
      "give one <config> or one <astra>, not both" },
    { "<param name=\"a\" values=\"1\"/>", "<run-options>--x {a}<b/></run-options>\n", 4,
      "unexpected element" },
    { "<param name=\"a\" values=\"1\"/>", "<generate>x</generate>\n", 4,
      "give one <workload> or one <generate>" },
    /* The rest. */
    { "<param name=\"a\" values=\"1\"/>", "<run-options>--x {a} {nope}</run-options>\n", 4,
      "unknown placeholder {nope}" },
    { "<param name=\"a\" values=\"1\"/>\n<param name=\"unused\" values=\"1 2\"/>", "", 6,
      "param 'unused' is used nowhere" },
    { "<zip><param name=\"a\" values=\"1 2 3\"/><param name=\"b\" values=\"1 2\"/></zip>",
      "<run-options>--x {b}</run-options>\n", 6, "'a' has 3 values, 'b' has 2" },
    { "<param name=\"a\" values=\"1\"/>\n"
      "<param name=\"bw\" select=\"/cluster/network/dim[3]/@bandwidth\" values=\"1GB/s\"/>",
      "", 6, "select '/cluster/network/dim[3]/@bandwidth' matches nothing" },
    { "<param name=\"a\" values=\"1\"/>\n<param name=\"a\" values=\"2\"/>", "", 6,
      "param 'a' is defined twice (first on line 5)" },
    { "<param name=\"a\" values=\"1\"/>\n<param name=\"b\" select=\"//dim[\" values=\"2\"/>", "",
      6, "is not an XPath expression" },
    { "<param name=\"a\" from=\"1\" to=\"1000\"/>\n<param name=\"b\" from=\"1\" to=\"1001\"/>",
      "<run-options>--x {b}</run-options>\n", 7, "1001000 points up to here, more than the "
      "limit of 1000000" },
    { "<param name=\"a\" values=\"1\"/>\n<param name=\"b\" values=\"1\"/>",
      "<run-options>--report {b}</run-options>\n", 4, "--report is set by the sweep itself" },
    { "<param name=\"1a\" values=\"1\"/>", "", 5, "'1a' is not a param name" },
    { "<param name=\"a\" from=\"5\" to=\"1\"/>", "", 5, "gives no values" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      g_autofree char *text = g_strdup_printf ("<sweep>\n"
                                               "  <config path=\"ring4.xml\"/>\n"
                                               "  <workload prefix=\"t/{a}\"/>\n"
                                               "%s"
                                               "  <grid>\n"
                                               "%s\n"
                                               "  </grid>\n"
                                               "</sweep>\n",
                                               cases[k].extra, cases[k].grid);
      g_autofree char *spec = tu_write_file ("spec.xml", text);
      g_autofree char *out = tu_scratch_path ("out");
      g_autofree char *output = NULL;
      ck_assert_int_eq (sweep (&output, "expand", spec, out), 1);
      g_autofree char *where = g_strdup_printf ("orrery sweep expand: %s:%d: ", spec, cases[k].line);
      ck_assert_msg (g_str_has_prefix (output, where), "case %u: '%s' does not start %s", k,
                     output, where);
      ck_assert_msg (strstr (output, cases[k].needle) != NULL, "case %u: '%s' not in %s", k,
                     cases[k].needle, output);
      ck_assert_msg (strchr (output, '\n') == output + strlen (output) - 1, "not one line: %s",
                     output);
      ck_assert (!g_file_test (out, G_FILE_TEST_EXISTS));
    }
  /* A select needs a native config. */
  g_autofree char *spec = tu_write_file (
      "spec.xml", "<sweep>\n  <astra network=\"n.yml\" system=\"s.json\"/>\n"
                  "  <workload prefix=\"t\"/>\n"
                  "  <grid><param name=\"a\" select=\"//@x\" values=\"1\"/></grid>\n</sweep>\n");
  g_autofree char *out = tu_scratch_path ("out");
  g_autofree char *output = NULL;
  ck_assert_int_eq (sweep (&output, "expand", spec, out), 1);
  ck_assert_msg (strstr (output, "spec.xml:4: param 'a': select edits a native <config>") != NULL,
                 "%s", output);
}
END_TEST

static const char small_spec[] = "<sweep>\n"
                                 "  <config path=\"ring4.xml\"/>\n"
                                 "  <workload prefix=\"t/{a}\"/>\n"
                                 "  <grid><param name=\"a\" values=\"1 2 3\"/></grid>\n"
                                 "</sweep>\n";

/* Re-expanding the same spec leaves existing points alone and adds missing
 * ones; another spec, or a directory that is not a sweep, is refused. */
START_TEST (test_reexpand)
{
  write_ring4 ();
  g_autofree char *out = expand_ok (small_spec, "3");
  g_autofree char *marker = point_file (out, "1", "done");
  ck_assert (g_file_set_contents (marker, "kept", -1, NULL));
  g_autofree char *args1 = point_file (out, "1", "args");
  ck_assert (g_file_set_contents (args1, "edited", -1, NULL));
  g_autofree char *dir2 = g_build_filename (out, "points", "2", NULL);
  tu_rmdir (dir2);
  g_free (expand_ok (small_spec, "3"));
  g_autofree char *m = slurp (marker), *a = slurp (args1);
  ck_assert_str_eq (m, "kept");
  ck_assert_str_eq (a, "edited");
  g_autofree char *args2 = point_file (out, "2", "args");
  ck_assert (g_file_test (args2, G_FILE_TEST_IS_REGULAR));

  g_autofree char *other = g_strconcat (small_spec, "<!-- changed -->\n", NULL);
  g_autofree char *spec = tu_write_file ("spec.xml", other);
  g_autofree char *output = NULL;
  ck_assert_int_eq (sweep (&output, "expand", spec, out), 1);
  ck_assert_msg (strstr (output, "expanded from another spec") != NULL
                     && strstr (output, "new directory") != NULL,
                 "%s", output);

  g_autofree char *junk = tu_scratch_path ("junk");
  g_autofree char *junk_file = g_build_filename (junk, "f", NULL);
  ck_assert_int_eq (g_mkdir (junk, 0777), 0);
  ck_assert (g_file_set_contents (junk_file, "", -1, NULL));
  g_autofree char *output2 = NULL;
  ck_assert_int_eq (sweep (&output2, "expand", spec, junk), 1);
  ck_assert_msg (strstr (output2, "not a sweep") != NULL, "%s", output2);
}
END_TEST

/* ---- running and gathering --------------------------------------------------- */

/* simulated_time_ns of `orrery run` by hand on cfg and a generated
 * all-reduce of `bytes` on 4 ranks. */
static gint64
by_hand (const char *cfg, const char *bytes)
{
  g_autofree char *name = g_strdup_printf ("hand-%s", bytes);
  g_autofree char *prefix = tu_scratch_path (name);
  g_autofree char *report = g_strdup_printf ("%s.json", prefix);
  const char *gen[] = { tu_orrery (), "gen", "collective", "--type", "all_reduce", "--ranks", "4",
                        "--bytes", bytes, "--out", prefix, NULL };
  ck_assert_int_eq (tu_run (NULL, gen), 0);
  const char *run[] = { tu_orrery (), "run", "-q", "--config", cfg, "--workload", prefix,
                        "--report", report, NULL };
  g_autofree char *output = NULL;
  ck_assert_msg (tu_run_modes (&output, run) == 0, "%s", output);
  g_autofree char *json = slurp (report);
  const char *t = strstr (json, "\"simulated_time_ns\"");
  ck_assert_ptr_nonnull (t);
  return g_ascii_strtoll (strchr (t, ':') + 1, NULL, 10);
}

/* Ring all-reduce of b bytes on 4 ranks at B bytes/ns, 100 ns per hop:
 * 6 steps of 100 ns + (b/4)/B, and 3 reducing steps of 3 passes over b/4
 * bytes at 1000 bytes/ns, in whole ns (rounded down). */
static gint64
ring_closed_form (double b, double B)
{
  return (gint64) (6 * (100 + b / 4 / B) + 9 * (b / 4 / 1000));
}

static const char bw_spec[]
    = "<sweep name=\"bw\">\n"
      "  <config path=\"ring1d.xml\"/>\n"
      "  <generate>gen collective --type all_reduce --ranks 4 --bytes {size}</generate>\n"
      "  <grid>\n"
      "    <param name=\"bw\" select=\"/cluster/network/dim/@bandwidth\" values=\"1GB/s 4GB/s\"/>\n"
      "    <param name=\"size\" values=\"1000B 100000B\"/>\n"
      "  </grid>\n"
      "</sweep>\n";

/* Every point of a 2 x 2 sweep runs; gather gives what `orrery run` by hand
 * gives, the closed form, and less time with more bandwidth. */
START_TEST (test_run_and_gather)
{
  g_free (ring1d ("ring1d.xml", "1GB/s"));
  g_autofree char *out = expand_ok (bw_spec, "4");
  const char *ids[] = { "0", "1", "2", "3" };
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *output = NULL;
      ck_assert_msg (run_point (out, ids[i], &output) == 0, "%s", output);
      g_autofree char *done = point_file (out, ids[i], "done");
      g_autofree char *status_path = point_file (out, ids[i], "status");
      g_autofree char *status = slurp (status_path);
      ck_assert (g_file_test (done, G_FILE_TEST_IS_REGULAR));
      ck_assert_str_eq (status, "0\n");
    }
  g_auto (GStrv) csv = gather (out);
  ck_assert_str_eq (csv[0], "point,bw,size,status,simulated_time_ns,compute_ns,exposed_comm_ns,"
                            "pipeline_bubble_ns,busbw_GBps,peak_memory_GiB,fits_memory,wall_s,error");
  ck_assert_uint_eq (g_strv_length (csv), 5);
  const char *bws[] = { "1GB/s", "1GB/s", "4GB/s", "4GB/s" };
  const char *sizes[] = { "1000B", "100000B", "1000B", "100000B" };
  const double rate[] = { 1, 1, 4, 4 }, bytes[] = { 1000, 100000, 1000, 100000 };
  gint64 t[4];
  for (guint i = 0; i < 4; i++)
    {
      g_autofree char *prefix = g_strdup_printf ("%u,%s,%s,ok,", i, bws[i], sizes[i]);
      ck_assert_msg (g_str_has_prefix (csv[i + 1], prefix), "%s", csv[i + 1]);
      g_autofree char *ts = csv_col (csv[i + 1], 4), *comp = csv_col (csv[i + 1], 5);
      g_autofree char *exposed = csv_col (csv[i + 1], 6), *bubble = csv_col (csv[i + 1], 7);
      g_autofree char *busbw = csv_col (csv[i + 1], 8), *mem = csv_col (csv[i + 1], 9);
      g_autofree char *fits = csv_col (csv[i + 1], 10), *wall = csv_col (csv[i + 1], 11);
      g_autofree char *err = csv_col (csv[i + 1], 12);
      t[i] = g_ascii_strtoll (ts, NULL, 10);
      g_autofree char *cfg_name = g_strdup_printf ("hand%u.xml", i);
      g_autofree char *cfg = ring1d (cfg_name, bws[i]);
      ck_assert_int_eq (t[i], by_hand (cfg, sizes[i]));
      ck_assert_int_eq (t[i], ring_closed_form (bytes[i], rate[i]));
      /* Nothing but the collective: no compute, all of it exposed. */
      ck_assert_str_eq (comp, "0");
      ck_assert_int_eq (g_ascii_strtoll (exposed, NULL, 10), t[i]);
      ck_assert_str_eq (bubble, "0"); /* no pipeline, no bubble */
      ck_assert (g_ascii_strtod (busbw, NULL) > 0);
      /* A collective's traces give no peak memory: nothing to hold. */
      ck_assert_str_eq (mem, "");
      ck_assert_str_eq (fits, "");
      g_autofree char *wall_path = point_file (out, ids[i], "wall_s");
      g_autofree char *wall_file = slurp (wall_path);
      ck_assert_str_eq (g_strchomp (wall_file), wall);
      ck_assert_str_eq (err, "");
    }
  ck_assert_int_lt (t[2], t[0]);
  ck_assert_int_lt (t[3], t[1]);
  /* Gathering again gives the same file. */
  g_autofree char *csv_path = g_build_filename (out, "sweep.csv", NULL);
  g_autofree char *before = slurp (csv_path);
  g_auto (GStrv) again = gather (out);
  g_autofree char *after = slurp (csv_path);
  ck_assert_str_eq (before, after);
}
END_TEST

typedef struct
{
  char *name;
  char *text;
  struct stat st;
} FileState;

static void
file_state_free (gpointer p)
{
  FileState *f = p;
  g_free (f->name);
  g_free (f->text);
  g_free (f);
}

/* Every regular file of dir: name, contents and stat. */
static GPtrArray *
snapshot (const char *dir)
{
  GPtrArray *files = g_ptr_array_new_with_free_func (file_state_free);
  GDir *d = g_dir_open (dir, 0, NULL);
  ck_assert_ptr_nonnull (d);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
        continue;
      FileState *f = g_new0 (FileState, 1);
      f->name = g_strdup (name);
      f->text = slurp (path);
      ck_assert_int_eq (stat (path, &f->st), 0);
      g_ptr_array_add (files, f);
    }
  g_dir_close (d);
  return files;
}

/* A point with `done` is not run again: "done already", nothing changes. */
START_TEST (test_run_done_already)
{
  g_free (ring1d ("ring1d.xml", "1GB/s"));
  g_autofree char *out = expand_ok (bw_spec, "4");
  g_autofree char *output = NULL;
  ck_assert_msg (run_point (out, "2", &output) == 0, "%s", output);
  g_autofree char *dir = g_build_filename (out, "points", "2", NULL);
  g_autoptr (GPtrArray) before = snapshot (dir);
  ck_assert_uint_ge (before->len, 10);
  g_usleep (20000);
  g_autofree char *again = NULL;
  ck_assert_int_eq (run_point (out, "2", &again), 0);
  ck_assert_str_eq (again, "point 2: done already\n");
  g_autoptr (GPtrArray) after = snapshot (dir);
  ck_assert_uint_eq (after->len, before->len);
  for (guint i = 0; i < before->len; i++)
    {
      const FileState *b = before->pdata[i];
      const FileState *a = NULL;
      for (guint j = 0; j < after->len; j++)
        if (strcmp (((FileState *) after->pdata[j])->name, b->name) == 0)
          a = after->pdata[j];
      ck_assert_msg (a != NULL, "%s vanished", b->name);
      ck_assert_str_eq (a->text, b->text);
      ck_assert_int_eq (a->st.st_mtim.tv_sec, b->st.st_mtim.tv_sec);
      ck_assert_int_eq (a->st.st_mtim.tv_nsec, b->st.st_mtim.tv_nsec);
    }
  /* Not a point: an input error. */
  g_autofree char *bad = NULL;
  ck_assert_int_eq (run_point (out, "7", &bad), 1);
  ck_assert_msg (strstr (bad, "no point '7'") != NULL, "%s", bad);
}
END_TEST

/* A point whose config is invalid fails with orrery run's exit status and
 * message and leaves no done; the others run; unrun points are pending. */
START_TEST (test_failed_and_pending)
{
  g_free (ring1d ("ring1d.xml", "1GB/s"));
  g_autofree char *out = expand_ok (
      "<sweep>\n"
      "  <config path=\"ring1d.xml\"/>\n"
      "  <generate>gen collective --type all_reduce --ranks 4 --bytes 1000B</generate>\n"
      "  <grid>\n"
      "    <param name=\"bw\" select=\"//dim/@bandwidth\" values=\"2GB/s fast 0GB/s 3GB/s\"/>\n"
      "  </grid>\n"
      "</sweep>\n",
      "4");
  g_autofree char *o0 = NULL, *o1 = NULL, *o2 = NULL;
  ck_assert_msg (run_point (out, "0", &o0) == 0, "%s", o0);
  ck_assert_int_eq (run_point (out, "1", &o1), 1);
  ck_assert_msg (strstr (o1, "'fast' is not a bandwidth") != NULL, "%s", o1);
  ck_assert_int_eq (run_point (out, "2", &o2), 1);
  g_autofree char *done1 = point_file (out, "1", "done");
  ck_assert (!g_file_test (done1, G_FILE_TEST_EXISTS));
  g_autofree char *status_path = point_file (out, "1", "status");
  g_autofree char *status = slurp (status_path);
  ck_assert_msg (g_str_has_prefix (status, "1\norrery run: ") && strstr (status, "config.xml:4:"),
                 "%s", status);

  g_auto (GStrv) csv = gather (out);
  ck_assert_uint_eq (g_strv_length (csv), 5);
  ck_assert_msg (g_str_has_prefix (csv[1], "0,2GB/s,ok,1352,0,1352,"), "%s", csv[1]);
  ck_assert_msg (g_str_has_prefix (csv[2], "1,fast,failed,,,,,"), "%s", csv[2]);
  /* The message has commas: the field is quoted. */
  ck_assert_msg (strstr (csv[2], ",\"exit 1: orrery run: ") != NULL
                     && strstr (csv[2], "'fast' is not a bandwidth") != NULL
                     && g_str_has_suffix (csv[2], ")\""),
                 "%s", csv[2]);
  ck_assert_msg (g_str_has_prefix (csv[3], "2,0GB/s,failed,") && strstr (csv[3], "positive"),
                 "%s", csv[3]);
  ck_assert_str_eq (csv[4], "3,3GB/s,pending,,,,,,,,,");

  /* A rerun retries the failed point (and fails again). */
  g_autofree char *o1b = NULL;
  ck_assert_int_eq (run_point (out, "1", &o1b), 1);
}
END_TEST

/* Values with commas and quotes are quoted as RFC 4180 says. */
START_TEST (test_gather_quoting)
{
  write_ring4 ();
  g_autofree char *out = expand_ok ("<sweep>\n"
                                    "  <config path=\"ring4.xml\"/>\n"
                                    "  <workload prefix=\"t/{a}\"/>\n"
                                    "  <grid><param name=\"a\" values=\"0-3,8 say&quot;hi\"/></grid>\n"
                                    "</sweep>\n",
                                    "2");
  g_auto (GStrv) csv = gather (out);
  ck_assert_str_eq (csv[1], "0,\"0-3,8\",pending,,,,,,,,,");
  ck_assert_str_eq (csv[2], "1,\"say\"\"hi\",pending,,,,,,,,,");
}
END_TEST

/* A report whose ranks give a pipeline bubble (held in their
 * exposed_comm_ns, as run writes them): exposed_comm_ns is the mean of
 * exposed less bubble, (60 + 80) / 2 = 70, and pipeline_bubble_ns the
 * bubble's, (40 + 0) / 2 = 20, as the summary splits them; a bubble
 * above its rank's exposed communication fails the point.  The first
 * report's efficiency object gives the memory columns. */
START_TEST (test_gather_bubble)
{
  write_ring4 ();
  g_autofree char *out = expand_ok ("<sweep>\n"
                                    "  <config path=\"ring4.xml\"/>\n"
                                    "  <workload prefix=\"t/{a}\"/>\n"
                                    "  <grid><param name=\"a\" values=\"x y\"/></grid>\n"
                                    "</sweep>\n",
                                    "2");
  static const char *const reports[] = {
    "{\"simulated_time_ns\": 500, \"ranks\": ["
    "{\"compute_ns\": 300, \"exposed_comm_ns\": 100, \"pipeline_bubble_ns\": 40}, "
    "{\"compute_ns\": 301, \"exposed_comm_ns\": 80, \"pipeline_bubble_ns\": 0}], "
    "\"collectives\": [], "
    "\"efficiency\": {\"peak_memory_bytes\": 3221225472, \"memory_fits\": false}}",
    "{\"simulated_time_ns\": 500, \"ranks\": ["
    "{\"compute_ns\": 300, \"exposed_comm_ns\": 10, \"pipeline_bubble_ns\": 40}], "
    "\"collectives\": []}",
  };
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *id = g_strdup_printf ("%u", i);
      g_autofree char *report = point_file (out, id, "report.json");
      g_autofree char *done = point_file (out, id, "done");
      ck_assert (g_file_set_contents (report, reports[i], -1, NULL));
      ck_assert (g_file_set_contents (done, "", 0, NULL));
    }
  g_auto (GStrv) csv = gather (out);
  /* The memory columns: 3 x 2^30 bytes, 3.00 GiB; memory_fits false. */
  ck_assert_str_eq (csv[1], "0,x,ok,500,300,70,20,,3.00,no,,");
  ck_assert_msg (g_str_has_prefix (csv[2], "1,y,failed,,,,,,,")
                     && strstr (csv[2], "pipeline_bubble_ns is above exposed_comm_ns") != NULL,
                 "%s", csv[2]);
}
END_TEST

/* The native example: default.xml's rail bandwidth x all-reduce size. */
START_TEST (test_example_bandwidth)
{
  g_autofree char *out = tu_scratch_path ("bw");
  g_autofree char *output = NULL;
  ck_assert_int_eq (sweep (&output, "expand", "configs/sweeps/bandwidth.xml", out), 0);
  ck_assert_str_eq (output, "16\n");
  g_autofree char *cfg = point_file (out, "15", "config.xml");
  int n = 0;
  g_autofree char *bw = xpath_value (cfg, "/cluster/network/dim[2]/@bandwidth", &n);
  ck_assert_str_eq (bw, "800Gb/s");
  g_autofree char *o = NULL;
  ck_assert_msg (run_point (out, "00", &o) == 0, "%s", o);
}
END_TEST

/* ---- ASTRA-sim's microbenchmarks (../shared) ------------------------------------- */

/* ASTRA-sim's finish time for (collective, 8 npus, topology, backend). */
static gint64
reference_ns (const char *shared, const char *coll, const char *topo, const char *backend)
{
  g_autofree char *path = g_build_filename (shared, "reference", "astra-sim-microbench.tsv", NULL);
  g_autofree char *text = slurp (path);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    {
      g_auto (GStrv) f = g_strsplit (*l, "\t", -1);
      if (g_strv_length (f) == 8 && strcmp (f[0], coll) == 0 && strcmp (f[1], "8") == 0
          && strcmp (f[2], topo) == 0 && strcmp (f[3], backend) == 0)
        return g_ascii_strtoll (f[7], NULL, 10);
    }
  ck_abort_msg ("no reference row for %s %s %s", coll, topo, backend);
  return -1;
}

START_TEST (test_astra_microbench)
{
  const char *shared_rel = tu_shared_dir ();
  if (shared_rel == NULL)
    return;
  g_autofree char *shared = g_canonicalize_filename (shared_rel, NULL);
  g_autofree char *text = g_strdup_printf (
      "<sweep name=\"microbench\">\n"
      "  <astra network=\"%s/reference/configs/{topology}_8npus.yml\"\n"
      "         system=\"%s/reference/configs/Ring_4chunks.json\"\n"
      "         memory=\"%s/reference/configs/no_memory_expansion.json\"/>\n"
      "  <workload prefix=\"%s/traces/astra-sim/examples/workload/microbenchmarks/"
      "{collective}/8npus_1MB/{collective}\"/>\n"
      "  <run-options>--network-model {model}</run-options>\n"
      "  <grid>\n"
      "    <param name=\"topology\" values=\"Ring FullyConnected Switch\"/>\n"
      "    <param name=\"collective\" values=\"all_reduce all_gather reduce_scatter "
      "all_to_all\"/>\n"
      "    <param name=\"model\" values=\"analytical congestion\"/>\n"
      "  </grid>\n"
      "</sweep>\n",
      shared, shared, shared, shared);
  g_autofree char *out = expand_ok (text, "24");
  /* 06: Ring all_to_all analytical; 16, 17: Switch all_reduce, both models. */
  const struct
  {
    const char *id, *topo, *coll, *backend;
  } runs[] = { { "06", "Ring", "all_to_all", "unaware" },
               { "16", "Switch", "all_reduce", "unaware" },
               { "17", "Switch", "all_reduce", "aware" } };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      g_autofree char *o = NULL;
      ck_assert_msg (run_point (out, runs[i].id, &o) == 0, "%s", o);
    }
  g_auto (GStrv) csv = gather (out);
  ck_assert_uint_eq (g_strv_length (csv), 25);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      const char *row = csv[g_ascii_strtoull (runs[i].id, NULL, 10) + 1];
      g_autofree char *prefix = g_strdup_printf (
          "%s,%s,%s,%s,ok,", runs[i].id, runs[i].topo, runs[i].coll,
          strcmp (runs[i].backend, "aware") == 0 ? "congestion" : "analytical");
      ck_assert_msg (g_str_has_prefix (row, prefix), "%s", row);
      g_autofree char *t = csv_col (row, 5);
      ck_assert_int_eq (g_ascii_strtoll (t, NULL, 10),
                        reference_ns (shared, runs[i].coll, runs[i].topo, runs[i].backend));
    }
  ck_assert_msg (g_str_has_prefix (csv[1], "00,Ring,all_reduce,analytical,pending,"), "%s", csv[1]);

  /* The example spec finds the same data when it sits where the example
   * expects it (the repository and shared/ side by side). */
  g_autofree char *example_shared = g_canonicalize_filename ("../shared", NULL);
  if (strcmp (example_shared, shared) == 0)
    {
      g_autofree char *out2 = tu_scratch_path ("example");
      g_autofree char *o = NULL;
      ck_assert_int_eq (sweep (&o, "expand", "configs/sweeps/microbench.xml", out2), 0);
      ck_assert_str_eq (o, "24\n");
      g_autofree char *args_path = point_file (out2, "17", "args");
      g_autofree char *args = slurp (args_path);
      g_auto (GStrv) lines = g_strsplit (args, "\n", -1);
      ck_assert_str_eq (lines[0], "--astra-network");
      ck_assert_msg (g_str_has_suffix (lines[1], "/Switch_8npus.yml")
                         && g_file_test (lines[1], G_FILE_TEST_IS_REGULAR),
                     "%s", lines[1]);
      g_autofree char *trace0 = g_strdup_printf ("%s.0.et", lines[7]);
      ck_assert_msg (g_file_test (trace0, G_FILE_TEST_IS_REGULAR), "%s", trace0);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sweep");
  TCase *tc = tu_tcase (s, "expand", tu_scratch_setup, tu_scratch_teardown, 30);
  tcase_add_test (tc, test_expand_row_major);
  tcase_add_test (tc, test_expand_zip);
  tcase_add_test (tc, test_expand_ranges);
  tcase_add_test (tc, test_expand_xpath_edits);
  tcase_add_test (tc, test_expand_errors);
  tcase_add_test (tc, test_reexpand);
  tc = tu_tcase (s, "run", tu_scratch_setup, tu_scratch_teardown, 120);
  tcase_add_test (tc, test_run_and_gather);
  tcase_add_test (tc, test_run_done_already);
  tcase_add_test (tc, test_failed_and_pending);
  tcase_add_test (tc, test_gather_quoting);
  tcase_add_test (tc, test_gather_bubble);
  tcase_add_test (tc, test_example_bandwidth);
  tcase_add_test (tc, test_astra_microbench);
  return tu_run_suite (s);
}
