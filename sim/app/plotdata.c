/* plotdata.c: a run's JSON report read back and written out as gnuplot
 * data files (the formats are in plotdata.h). */
#include "sim/app/plotdata.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "sim/app/json_skim.h"
#include "sim/out_file.h"
#include "sim/error.h"
#include "sim/json_numbers.h"
#include "sim/nesting.h"
#include "workload/json_keys.h"

#define PS_PER_MS G_GUINT64_CONSTANT (1000000000)

/* Overview fractions are doubles computed by the writer: allow the last
 * bits of rounding past 0 and 1. */
#define FRACTION_SLACK 1e-9

/* Shares are written in millionths, so that the four of a bin, printed
 * with six decimals, add up to exactly 1. */
#define SHARE_UNITS 1000000

/* One (rank, bin) of the overview, in millionths of the bin; bubble is
 * the part of comm in the pipeline bubble (0 where the report gives
 * none). */
typedef struct
{
  guint32 compute;
  guint32 comm;
  guint32 bubble;
} PlotShare;

/* Where one rank's time went, in ps; the four add up to the simulated time.
 * BUBBLE is the part of EXPOSED spent in the pipeline bubble (a native
 * report's pipeline_bubble_ps; 0 without one). */
typedef struct
{
  guint64 compute;
  guint64 exposed;
  guint64 idle;
  guint64 after;
  guint64 bubble;
} PlotRank;

/* The report as read.  `path` is borrowed, for messages. */
typedef struct
{
  const char *path;
  guint64 schema;
  guint64 sim_time;
  GArray *ranks; /* PlotRank, indexed by rank */
  gboolean has_overview;
  gboolean has_bubble; /* some bin of the overview has a bubble */
  guint bins;
  guint64 bin_ps;
  GArray *shares; /* PlotShare: the overview, rank by rank, bin by bin */
} PlotReport;

/* An object of the report and its path from the root, by which messages
 * name its members: "" or ending in '.' ("ranks[2]."). */
typedef struct
{
  const PlotReport *rep;
  JsonObject *obj;
  const char *where;
} PlotObj;

/* ---- typed members ------------------------------------------------------- */

/* What a JSON node is, for messages ("a string", "the number -3"). */
static char *
describe (JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      return g_strdup ("an object");
    case JSON_NODE_ARRAY:
      return g_strdup ("a list");
    case JSON_NODE_NULL:
      return g_strdup ("null");
    case JSON_NODE_VALUE:
      break;
    }
  GType t = json_node_get_value_type (node);
  if (t == G_TYPE_STRING)
    return g_strdup ("a string");
  if (t == G_TYPE_BOOLEAN)
    return g_strdup ("a boolean");
  /* Integers are read unsigned (sim/json_numbers.h). */
  if (t == G_TYPE_INT64)
    return g_strdup_printf ("the number %" G_GUINT64_FORMAT, (guint64) json_node_get_int (node));
  return g_strdup_printf ("the number %g", json_node_get_double (node));
}

/* Members are named by their path from the root: `where` is "" or ends in
 * '.' ("ranks[2]."). */
static gboolean
type_error (const PlotObj *at, const char *name, const char *expected, JsonNode *node,
            GError **error)
{
  g_autofree char *got = describe (node);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: member \"%s%s\" must be %s, got %s",
               at->rep->path, at->where, name, expected, got);
  return FALSE;
}

/* What a member must hold: a test, and the words for it in messages. */
typedef struct
{
  gboolean (*holds) (JsonNode *node);
  const char *expected;
} MemberKind;

static gboolean
holds_int (JsonNode *node)
{
  return JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_INT64;
}

static gboolean
holds_array (JsonNode *node)
{
  return JSON_NODE_HOLDS_ARRAY (node);
}

static const MemberKind whole_number = { holds_int, "a whole number" };
static const MemberKind list = { holds_array, "a list" };

/* The member NAME of OBJ, which must be there and hold KIND: else NULL
 * with an error that names it. */
static JsonNode *
get_member (const PlotObj *at, const char *name, const MemberKind *kind, GError **error)
{
  JsonNode *node = json_object_get_member (at->obj, name);
  if (node == NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: missing member \"%s%s\"",
                 at->rep->path, at->where, name);
  else if (!kind->holds (node))
    type_error (at, name, kind->expected, node, error);
  else
    return node;
  return NULL;
}

/* A time, count or number: a whole number >= 0, up to 2^64 - 1 as the
 * report writes times (app_json_out_uint).  json-glib keeps an integer as
 * a gint64, wrapping one past 2^63: the text is read with every negative
 * integer, and every one past 2^64 - 1, made a fraction first
 * (sim/json_numbers.h), so an integer node holds its value modulo 2^64,
 * exactly. */
static gboolean
get_uint (const PlotObj *at, const char *name, guint64 *out, GError **error)
{
  JsonNode *node = json_object_get_member (at->obj, name);
  double v = node != NULL && JSON_NODE_HOLDS_VALUE (node)
                 && json_node_get_value_type (node) == G_TYPE_DOUBLE
               ? json_node_get_double (node)
               : 0.5;
  if (v < 0 && floor (v) == v)
    return type_error (at, name, "a whole number >= 0", node, error);
  /* Below 2^64 only the text makes a whole value a fraction (5.0, 1e3):
   * "got the number 5" would not say what is wrong. */
  if (v >= 0 && v < 0x1p64 && floor (v) == v)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: member \"%s%s\" must be a whole number, got %.1f (a fraction; write %.0f)",
                   at->rep->path, at->where, name, v, v);
      return FALSE;
    }
  node = get_member (at, name, &whole_number, error);
  if (node == NULL)
    return FALSE;
  *out = (guint64) json_node_get_int (node);
  return TRUE;
}

static JsonArray *
get_array (const PlotObj *at, const char *name, GError **error)
{
  JsonNode *node = get_member (at, name, &list, error);
  return node != NULL ? json_node_get_array (node) : NULL;
}

/* Element i of the list of objects ARRAY, the member NAME of AT. */
static JsonObject *
get_element_object (const PlotObj *at, JsonArray *array, const char *name, guint i,
                    GError **error)
{
  JsonNode *node = json_array_get_element (array, i);
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      g_autofree char *item = g_strdup_printf ("%s[%u]", name, i);
      type_error (at, item, "an object", node, error);
      return NULL;
    }
  return json_node_get_object (node);
}

/* ---- ranks ----------------------------------------------------------------- */

/* a + b == want, without overflow. */
static gboolean
sums_to (guint64 a, guint64 b, guint64 want)
{
  guint64 sum = 0;
  return g_uint64_checked_add (&sum, a, b) && sum == want;
}

/* A schema 2 rank must account for the whole simulated time. */
static gboolean
check_rank_v2 (const PlotReport *rep, const char *where, guint64 finish, const PlotRank *pr,
               GError **error)
{
  guint64 busy = 0;
  if (!g_uint64_checked_add (&busy, pr->compute, pr->exposed) || !sums_to (busy, pr->idle, finish))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: %scompute_ps + exposed_comm_ps + idle_ps differs from finish_ps",
                   rep->path, where);
      return FALSE;
    }
  if (!sums_to (finish, pr->after, rep->sim_time))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: %sfinish_ps + after_finish_ps differs from simulated_time_ps",
                   rep->path, where);
      return FALSE;
    }
  return TRUE;
}

/* Schema 1 has no idle time: everything after the finish is waiting. */
static gboolean
derive_rank_v1 (const PlotReport *rep, const char *where, guint64 finish, PlotRank *pr,
                GError **error)
{
  if (finish > rep->sim_time)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: %sfinish_ps is after simulated_time_ps", rep->path, where);
      return FALSE;
    }
  pr->idle = 0;
  pr->after = rep->sim_time - finish;
  return TRUE;
}

/* Element i of the list of per-rank objects RANKS, the member "ranks" of
 * PARENT (the root or the overview), whose "rank" must be i: *RANK is set
 * to it, and its path (the caller's to free) is returned; NULL with an
 * error when it is not. */
static char *
rank_object (const PlotObj *parent, JsonArray *ranks, guint i, PlotObj *rank, GError **error)
{
  JsonObject *obj = get_element_object (parent, ranks, "ranks", i, error);
  if (obj == NULL)
    return NULL;
  g_autofree char *where = g_strdup_printf ("%sranks[%u].", parent->where, i);
  *rank = (PlotObj) { parent->rep, obj, where };
  guint64 r = 0;
  if (!get_uint (rank, "rank", &r, error))
    return NULL;
  if (r != i)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: member \"%srank\" must be %u (ranks in order), got %" G_GUINT64_FORMAT,
                   parent->rep->path, where, i, r);
      return NULL;
    }
  return g_steal_pointer (&where);
}

static gboolean
parse_rank (PlotReport *rep, JsonArray *ranks, guint i, GError **error)
{
  const PlotObj root = { rep, NULL, "" };
  PlotObj at;
  g_autofree char *where = rank_object (&root, ranks, i, &at, error);
  if (where == NULL)
    return FALSE;
  PlotRank pr = { 0 };
  guint64 finish = 0;
  if (!get_uint (&at, "finish_ps", &finish, error)
      || !get_uint (&at, "compute_ps", &pr.compute, error)
      || !get_uint (&at, "exposed_comm_ps", &pr.exposed, error))
    return FALSE;
  if (rep->schema == 1)
    {
      if (!derive_rank_v1 (rep, where, finish, &pr, error))
        return FALSE;
    }
  else if (!get_uint (&at, "idle_ps", &pr.idle, error)
           || !get_uint (&at, "after_finish_ps", &pr.after, error)
           || !check_rank_v2 (rep, where, finish, &pr, error))
    return FALSE;
  /* The summary counts the bubble apart from exposed communication, and so
   * does the plot; the report's exposed_comm_ps holds it. */
  if (json_object_has_member (at.obj, "pipeline_bubble_ps")
      && !get_uint (&at, "pipeline_bubble_ps", &pr.bubble, error))
    return FALSE;
  if (pr.bubble > pr.exposed)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: %spipeline_bubble_ps is above exposed_comm_ps, which holds it",
                   rep->path, where);
      return FALSE;
    }
  g_array_append_val (rep->ranks, pr);
  return TRUE;
}

static gboolean
parse_header (PlotReport *rep, JsonObject *root, GError **error)
{
  const PlotObj at = { rep, root, "" };
  if (!get_uint (&at, "schema_version", &rep->schema, error))
    return FALSE;
  if (rep->schema < 1 || rep->schema > 3)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: schema_version %" G_GUINT64_FORMAT " is not supported (1 to 3 are)",
                   rep->path, rep->schema);
      return FALSE;
    }
  return get_uint (&at, "simulated_time_ps", &rep->sim_time, error);
}

static gboolean
parse_ranks (PlotReport *rep, JsonObject *root, GError **error)
{
  const PlotObj at = { rep, root, "" };
  JsonArray *ranks = get_array (&at, "ranks", error);
  if (ranks == NULL)
    return FALSE;
  for (guint i = 0; i < json_array_get_length (ranks); i++)
    if (!parse_rank (rep, ranks, i, error))
      return FALSE;
  return TRUE;
}

/* ---- overview -------------------------------------------------------------- */

/* A bin's shares in millionths: rounded each, communication trimmed where
 * the two rounded up past the whole bin, and the bubble where it rounded
 * past communication. */
static PlotShare
bin_share (double compute, double comm, double bubble)
{
  guint32 c = (guint32) lround (compute * SHARE_UNITS);
  guint32 m = MIN ((guint32) lround (comm * SHARE_UNITS), SHARE_UNITS - c);
  guint32 u = (guint32) lround (bubble * SHARE_UNITS);
  return (PlotShare) { c, m, MIN (u, m) };
}

/* The list `name` of an overview rank: one fraction in [0, 1] per bin,
 * copied into out[bins]. */
static gboolean
get_fractions (const PlotObj *at, const char *name, double *out, GError **error)
{
  const PlotReport *rep = at->rep;
  JsonArray *array = get_array (at, name, error);
  if (array == NULL)
    return FALSE;
  if (json_array_get_length (array) != rep->bins)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: member \"%s%s\" has %u entries, overview.bins is %u", rep->path,
                   at->where, name, json_array_get_length (array), rep->bins);
      return FALSE;
    }
  for (guint b = 0; b < rep->bins; b++)
    {
      JsonNode *node = json_array_get_element (array, b);
      GType t = JSON_NODE_HOLDS_VALUE (node) ? json_node_get_value_type (node) : G_TYPE_NONE;
      double v = (t == G_TYPE_INT64 || t == G_TYPE_DOUBLE) ? json_node_get_double (node) : NAN;
      if (!(v >= -FRACTION_SLACK && v <= 1.0 + FRACTION_SLACK))
        {
          g_autofree char *item = g_strdup_printf ("%s[%u]", name, b);
          return type_error (at, item, "a number from 0 to 1", node, error);
        }
      out[b] = CLAMP (v, 0.0, 1.0);
    }
  return TRUE;
}

static gboolean
parse_overview_rank (PlotReport *rep, JsonArray *ranks, guint i, GError **error)
{
  const PlotObj overview = { rep, NULL, "overview." };
  PlotObj at;
  g_autofree char *where = rank_object (&overview, ranks, i, &at, error);
  if (where == NULL)
    return FALSE;
  g_autofree double *compute = g_new (double, rep->bins);
  g_autofree double *comm = g_new (double, rep->bins);
  g_autofree double *bubble = g_new0 (double, rep->bins);
  if (!get_fractions (&at, "compute", compute, error)
      || !get_fractions (&at, "comm", comm, error))
    return FALSE;
  /* A native report's ranks give the bubble, the part of comm that the
   * plot draws apart, as ranks.dat's pipeline_bubble_ms. */
  if (json_object_has_member (at.obj, "bubble") && !get_fractions (&at, "bubble", bubble, error))
    return FALSE;
  for (guint b = 0; b < rep->bins; b++)
    {
      /* Compute and communication in flight without compute exclude each
       * other: more than the whole bin is a broken report. */
      if (compute[b] + comm[b] > 1.0 + FRACTION_SLACK)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: %scompute[%u] + %scomm[%u] is %g, more than the whole bin",
                       rep->path, where, b, where, b, compute[b] + comm[b]);
          return FALSE;
        }
      if (bubble[b] > comm[b] + FRACTION_SLACK)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: %sbubble[%u] is %g, above %scomm[%u] (%g), which holds it",
                       rep->path, where, b, bubble[b], where, b, comm[b]);
          return FALSE;
        }
      PlotShare share = bin_share (compute[b], comm[b], bubble[b]);
      rep->has_bubble |= share.bubble > 0;
      g_array_append_val (rep->shares, share);
    }
  return TRUE;
}

/* bins and bin_ps, and that the bins' span fits in 64 bits. */
static gboolean
parse_bins (PlotReport *rep, JsonObject *ov, GError **error)
{
  guint64 bins = 0;
  guint64 span = 0;
  const PlotObj at = { rep, ov, "overview." };
  if (!get_uint (&at, "bins", &bins, error))
    return FALSE;
  if (bins < 1 || bins > G_MAXUINT)
    return type_error (&at, "bins", "a whole number from 1 to 4294967295",
                       json_object_get_member (ov, "bins"), error);
  rep->bins = (guint) bins;
  if (!get_uint (&at, "bin_ps", &rep->bin_ps, error))
    return FALSE;
  if (!g_uint64_checked_mul (&span, rep->bin_ps, rep->bins))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: overview.bins x overview.bin_ps is too large", rep->path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
parse_overview (PlotReport *rep, JsonObject *root, GError **error)
{
  JsonNode *node = json_object_get_member (root, "overview");
  if (node == NULL)
    return TRUE;
  if (!JSON_NODE_HOLDS_OBJECT (node))
    {
      const PlotObj top = { rep, root, "" };
      return type_error (&top, "overview", "an object", node, error);
    }
  JsonObject *ov = json_node_get_object (node);
  if (!parse_bins (rep, ov, error))
    return FALSE;
  const PlotObj at = { rep, ov, "overview." };
  JsonArray *ranks = get_array (&at, "ranks", error);
  if (ranks == NULL)
    return FALSE;
  if (json_array_get_length (ranks) != rep->ranks->len)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: member \"overview.ranks\" has %u entries, \"ranks\" has %u", rep->path,
                   json_array_get_length (ranks), rep->ranks->len);
      return FALSE;
    }
  for (guint i = 0; i < json_array_get_length (ranks); i++)
    if (!parse_overview_rank (rep, ranks, i, error))
      return FALSE;
  rep->has_overview = TRUE;
  return TRUE;
}

/* ---- reading --------------------------------------------------------------- */

/* The report's root object; the parser owns it.  Every failure becomes an
 * input error that names the file.  Only the members read here are parsed
 * when the report is plain JSON (json_skim.h): a long run's critical path
 * is most of its report and would be a tree of gigabytes; any other file
 * is parsed whole, so that its errors are json-glib's. */
static JsonObject *
load_root (JsonParser *parser, const char *path, GError **error)
{
  static const char *const members[] = { "schema_version", "simulated_time_ps", "ranks",
                                         "overview", NULL };
  g_autofree char *skim = app_json_skim (path, members);
  g_autoptr (GError) local = NULL;
  /* A skimmed text nests 32 levels at most; the whole file is checked. */
  if (skim == NULL && !sim_json_depth_check_file (path, error))
    return NULL;
  g_autoptr (WlJsonKeys) keys = wl_json_keys_watch (parser);
  g_autofree char *whole = NULL;
  gsize len = 0;
  if (skim == NULL && !g_file_get_contents (path, &whole, &len, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s", local->message);
      return NULL;
    }
  if (whole != NULL && strlen (whole) != len)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: holds a NUL byte: not JSON", path);
      return NULL;
    }
  /* Integers are read unsigned: a negative one, or one past 2^64 - 1, is
   * made a fraction that no whole-number member accepts
   * (sim/json_numbers.h). */
  const char *text = skim != NULL ? skim : whole;
  g_autoptr (GString) rewritten = NULL;
  if (!sim_json_numbers_check (text, -1, SIM_JSON_UINT64, &rewritten, error))
    {
      sim_error_prefix (error, "%s:", path);
      return NULL;
    }
  if (!json_parser_load_from_data (parser, rewritten != NULL ? rewritten->str : text, -1, &local))
    {
      if (g_str_has_prefix (local->message, "<data>"))
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s%s", path,
                     local->message + strlen ("<data>"));
      else if (strstr (local->message, path) != NULL)
        g_set_error_literal (error, SIM_ERROR, SIM_ERROR_INPUT, local->message);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", path, local->message);
      return NULL;
    }
  if (!wl_json_keys_check (keys, path, error))
    return NULL;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_autofree char *got = root != NULL ? describe (root) : g_strdup ("nothing");
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: expected a JSON object, got %s", path,
                   got);
      return NULL;
    }
  return json_node_get_object (root);
}

static gboolean
read_report (PlotReport *rep, GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = load_root (parser, rep->path, error);
  return root != NULL && parse_header (rep, root, error) && parse_ranks (rep, root, error)
         && parse_overview (rep, root, error);
}

/* ---- writing --------------------------------------------------------------- */

/* ps as ms with nine decimals: exact, and the same in every locale. */
static void
append_ms (GString *s, guint64 ps)
{
  g_string_append_printf (s, "%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT, ps / PS_PER_MS,
                          ps % PS_PER_MS);
}

static gboolean
write_file (const char *dir, const char *name, const GString *text, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) local = NULL;
  if (!sim_out_file_set_contents (path, text->str, (gssize) text->len, &local))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write %s: %s", path,
                   local->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_ranks (const PlotReport *rep, const char *dir, GError **error)
{
  g_autoptr (GString) s = g_string_new ("# rank compute_ms exposed_comm_ms idle_ms "
                                        "after_finish_ms pipeline_bubble_ms "
                                        "(exposed less the bubble)\n");
  for (guint r = 0; r < rep->ranks->len; r++)
    {
      const PlotRank *pr = &g_array_index (rep->ranks, PlotRank, r);
      g_string_append_printf (s, "%u ", r);
      append_ms (s, pr->compute);
      g_string_append_c (s, ' ');
      append_ms (s, pr->exposed - pr->bubble);
      g_string_append_c (s, ' ');
      append_ms (s, pr->idle);
      g_string_append_c (s, ' ');
      append_ms (s, pr->after);
      g_string_append_c (s, ' ');
      append_ms (s, pr->bubble);
      g_string_append_c (s, '\n');
    }
  return write_file (dir, "ranks.dat", s, error);
}

/* A share in millionths as a fraction with six decimals. */
static void
append_share (GString *s, guint32 millionths)
{
  g_string_append_printf (s, " %u.%06u", millionths / SHARE_UNITS, millionths % SHARE_UNITS);
}

static gboolean
write_overview (const PlotReport *rep, const char *dir, GError **error)
{
  g_autoptr (GString) s = g_string_new ("# time_ms rank compute comm idle bubble "
                                        "(bin middle; shares of the bin, adding up to 1; "
                                        "comm less the bubble)\n");
  for (guint r = 0; r < rep->ranks->len; r++)
    {
      for (guint b = 0; b < rep->bins; b++)
        {
          const PlotShare *sh = &g_array_index (rep->shares, PlotShare, (gsize) r * rep->bins + b);
          append_ms (s, b * rep->bin_ps + rep->bin_ps / 2);
          g_string_append_printf (s, " %u", r);
          append_share (s, sh->compute);
          append_share (s, sh->comm - sh->bubble);
          append_share (s, SHARE_UNITS - sh->compute - sh->comm);
          append_share (s, sh->bubble);
          g_string_append_c (s, '\n');
        }
      g_string_append_c (s, '\n');
    }
  return write_file (dir, "overview.dat", s, error);
}

/* Without an overview, an overview.dat left by an earlier report would be
 * plotted as this one's. */
static gboolean
remove_overview (const char *dir, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "overview.dat", NULL);
  if (g_remove (path) != 0 && errno != ENOENT)
    {
      int e = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot remove %s: %s", path,
                   g_strerror (e));
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_meta (const PlotReport *rep, const char *dir, GError **error)
{
  g_autoptr (GString) s = g_string_new ("# the run, for the plot's ranges\n");
  g_string_append_printf (s, "schema_version = %" G_GUINT64_FORMAT "\n", rep->schema);
  g_string_append (s, "simulated_ms = ");
  append_ms (s, rep->sim_time);
  g_string_append_printf (s, "\nranks = %u\noverview = %d\nbubble = %d\nbins = %u\nbin_ms = ",
                          rep->ranks->len, rep->has_overview ? 1 : 0, rep->has_bubble ? 1 : 0,
                          rep->bins);
  append_ms (s, rep->bin_ps);
  g_string_append_c (s, '\n');
  return write_file (dir, "meta.gp", s, error);
}

static gboolean
write_all (const PlotReport *rep, const char *dir, GError **error)
{
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      int e = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot create %s: %s", dir,
                   g_strerror (e));
      return FALSE;
    }
  if (!write_ranks (rep, dir, error))
    return FALSE;
  if (rep->has_overview ? !write_overview (rep, dir, error) : !remove_overview (dir, error))
    return FALSE;
  return write_meta (rep, dir, error);
}

gboolean
app_plot_data (const char *report_path, const char *out_dir, GError **error)
{
  g_return_val_if_fail (report_path != NULL && out_dir != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  PlotReport rep = {
    .path = report_path,
    .ranks = g_array_new (FALSE, FALSE, sizeof (PlotRank)),
    .shares = g_array_new (FALSE, FALSE, sizeof (PlotShare)),
  };
  gboolean ok = read_report (&rep, error) && write_all (&rep, out_dir, error);
  g_array_unref (rep.ranks);
  g_array_unref (rep.shares);
  return ok;
}
