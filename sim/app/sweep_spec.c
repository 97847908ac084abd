/* sweep_spec.c: reading a sweep spec (configs/sweep.rng) into its grid of
 * params and its templates (sweep_spec.h); the format is in sim/app/sweep.h,
 * the expansion into point directories in sweep_expand.c.
 *
 * A spec is parsed with libxml2 (no network, line numbers kept) and
 * validated against the schema compiled into the binary
 * (build/gen/sweep_rng.h), both by sim/app/xml_schema.h, then walked.  As
 * in the cluster loader, the walk checks the structure too, so that a
 * violation reads "spec.xml:7: <astra>: give <config> or <astra>, not both"
 * rather than libxml2's "Extra element astra in interleave"; the
 * validator's message is the fallback.  Every check runs before anything is
 * written, so a bad spec leaves no directory behind.
 *
 * Points are not stored: point i's values come from i's digits in the mixed
 * radix of the axes' lengths, and the base cluster XML is edited in place
 * (the nodes each select matched, found once) and written out per point.
 */
#include "sim/app/sweep_spec.h"

#include <stdarg.h>
#include <string.h>

#include "sim/app/config.h"
#include "sim/app/sweep.h"
#include "sim/app/xml_lib.h"
#include "sim/app/xml_schema.h"
#include "sim/error.h"
#include "sweep_rng.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlXPathContext, xmlXPathFreeContext)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlXPathObject, xmlXPathFreeObject)

/* The schema compiled into the binary. */
static const AppXmlSchema sweep_schema = { "configs/sweep.rng", sweep_rng, sizeof sweep_rng };
/* <grid>'s params validated apart: inside <sweep>'s <interleave> libxml2
 * took time quadratic in them (80,000: 16 s). */
static const char *const sweep_apart[] = { "grid", NULL };

/* What each template is, for messages. */
static const char *const template_what[APP_SWEEP_T_N] = {
  "<astra network>", "<astra system>", "<astra memory>", "<astra comm-groups>",
  "<workload prefix>", "<generate>", "<run-options>"
};

static void
param_free (gpointer p)
{
  AppSweepParam *pa = p;
  g_free (pa->name);
  g_free (pa->select);
  g_ptr_array_unref (pa->values);
  g_ptr_array_unref (pa->targets);
  g_free (pa);
}

void
app_sweep_spec_clear (AppSweepSpec *s)
{
  g_free (s->dir);
  g_free (s->text);
  g_free (s->config);
  if (s->base != NULL)
    xmlFreeDoc (s->base);
  for (int t = 0; t < APP_SWEEP_T_N; t++)
    g_free (s->tmpl[t]);
  g_clear_pointer (&s->params, g_ptr_array_unref);
  g_clear_pointer (&s->by_name, g_hash_table_unref);
  g_clear_pointer (&s->axes, g_array_unref);
}

AppSweepParam *
app_sweep_spec_param (const AppSweepSpec *s, guint i)
{
  return g_ptr_array_index (s->params, i);
}

/* "FILE:LINE: message" for things that are no longer nodes. */
static gboolean G_GNUC_PRINTF (4, 5)
fail_line (const AppSweepSpec *s, long line, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%ld: %s", s->path, line, msg);
  return FALSE;
}

/* An element's text (the caller g_frees it). */
static char *
text_of (const xmlNode *node)
{
  xmlChar *v = xmlNodeGetContent (node);
  char *s = g_strdup (v != NULL ? (const char *) v : "");
  xmlFree (v);
  return s;
}

/* A path of the spec, made absolute from the spec's directory. */
char *
app_sweep_spec_resolve (const AppSweepSpec *s, const char *path)
{
  return g_canonicalize_filename (path, s->dir);
}

/* NODE has only the attributes ATTRS and the child elements CHILDREN
 * (NULL-terminated; NULL: none).  Any child may repeat here: the walk
 * reports a repeated element itself, saying which one to keep. */
static gboolean
check_element (const AppSweepSpec *s, const xmlNode *node, const char *const *attrs,
               const char *const *children, GError **error)
{
  const AppXmlShape shape = { attrs, children, "*" };
  return app_xml_check_element (s->path, node, &shape, error);
}

/* The attribute NAME of NODE as a whole number, left alone when absent; a
 * FILE:LINE error when it is not one. */
static gboolean
parse_int (const AppSweepSpec *s, const xmlNode *node, const char *name, gint64 *out,
           GError **error)
{
  g_autofree char *text = app_xml_attr (node, name);
  if (text == NULL || g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, out, NULL))
    return TRUE;
  return app_xml_fail_at (s->path, node, error, "%s '%s' is not a whole number", name, text);
}

/* A range of a <param>: from, to (inclusive) and the step or the factor. */
typedef struct
{
  gint64 from;
  gint64 to;
  gint64 by;
} Range;

/* from, from + step, ... up to to (inclusive). */
static gboolean
range_step (const AppSweepSpec *s, const xmlNode *node, const Range *r, GPtrArray *values,
            GError **error)
{
  gint64 from = r->from, to = r->to, step = r->by;
  if (step == 0 || (step > 0 && from > to) || (step < 0 && from < to))
    return app_xml_fail_at (s->path, node, error,
                            "from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                            " by step %" G_GINT64_FORMAT " gives no values",
                            from, to, step);
  /* Unsigned arithmetic: |to - from| and every value are exact even where
   * the signed differences would overflow. */
  guint64 span = to >= from ? (guint64) to - (guint64) from : (guint64) from - (guint64) to;
  guint64 astep = step > 0 ? (guint64) step : 0 - (guint64) step;
  /* cppcheck-suppress zerodivcond ; step == 0 returned above, so astep > 0 */
  if (span / astep >= APP_SWEEP_MAX_POINTS)
    return app_xml_fail_at (s->path, node, error, "the range has more than %d values",
                            APP_SWEEP_MAX_POINTS);
  for (guint64 k = 0; k <= span / astep; k++)
    g_ptr_array_add (values, g_strdup_printf ("%" G_GINT64_FORMAT,
                                              (gint64) ((guint64) from + k * (guint64) step)));
  return TRUE;
}

/* from, from x factor, ... up to to (inclusive). */
static gboolean
range_factor (const AppSweepSpec *s, const xmlNode *node, const Range *r, GPtrArray *values,
              GError **error)
{
  gint64 from = r->from, to = r->to, factor = r->by;
  if (factor < 2)
    return app_xml_fail_at (s->path, node, error, "factor %" G_GINT64_FORMAT " must be 2 or more",
                            factor);
  if (from < 1 || to < from)
    return app_xml_fail_at (s->path, node, error,
                            "a geometric range needs 1 <= from <= to (from %" G_GINT64_FORMAT
                            ", to %" G_GINT64_FORMAT ")",
                            from, to);
  for (gint64 v = from;; v *= factor)
    {
      g_ptr_array_add (values, g_strdup_printf ("%" G_GINT64_FORMAT, v));
      if (v > to / factor)
        break;
    }
  return TRUE;
}

static gboolean
valid_name (const char *name)
{
  if (!(g_ascii_isalpha (name[0]) || name[0] == '_'))
    return FALSE;
  for (const char *p = name + 1; *p != '\0'; p++)
    if (!(g_ascii_isalnum (*p) || *p == '_'))
      return FALSE;
  return TRUE;
}

/* The value list of a <param>: values="...", or a range. */
static gboolean
param_values (const AppSweepSpec *s, const xmlNode *node, AppSweepParam *p, GError **error)
{
  g_autofree char *values = app_xml_attr (node, "values"), *from_s = app_xml_attr (node, "from");
  g_autofree char *to_s = app_xml_attr (node, "to"), *step_s = app_xml_attr (node, "step");
  g_autofree char *factor_s = app_xml_attr (node, "factor");
  if ((values != NULL) == (from_s != NULL || to_s != NULL))
    return app_xml_fail_at (s->path, node, error,
                            "param '%s' needs values=\"...\" or from=\"\" to=\"\", one of the two",
                            p->name);
  if (values != NULL)
    {
      if (step_s != NULL || factor_s != NULL)
        return app_xml_fail_at (s->path, node, error,
                                "step and factor go with from and to, not values");
      g_auto (GStrv) words = g_strsplit_set (values, APP_SWEEP_BLANKS, -1);
      for (char **w = words; *w != NULL; w++)
        if (**w != '\0')
          g_ptr_array_add (p->values, g_strdup (*w));
      if (p->values->len == 0)
        return app_xml_fail_at (s->path, node, error, "param '%s' has no values", p->name);
      return TRUE;
    }
  /* Without a factor, the step (default 1); with one, the factor. */
  Range r = { .by = factor_s != NULL ? 0 : 1 };
  if (from_s == NULL || to_s == NULL)
    return app_xml_fail_at (s->path, node, error, "a range needs both from and to");
  if (step_s != NULL && factor_s != NULL)
    return app_xml_fail_at (s->path, node, error, "give step or factor, not both");
  if (!parse_int (s, node, "from", &r.from, error) || !parse_int (s, node, "to", &r.to, error)
      || !parse_int (s, node, factor_s != NULL ? "factor" : "step", &r.by, error))
    return FALSE;
  return factor_s != NULL ? range_factor (s, node, &r, p->values, error)
                          : range_step (s, node, &r, p->values, error);
}

static gboolean
read_param (AppSweepSpec *s, const xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "name", "select", "values", "from", "to", "step",
                                       "factor", NULL };
  if (!check_element (s, node, attrs, NULL, error))
    return FALSE;
  AppSweepParam *p = g_new0 (AppSweepParam, 1);
  p->name = app_xml_attr (node, "name");
  p->select = app_xml_attr (node, "select");
  p->line = xmlGetLineNo (node);
  p->values = g_ptr_array_new_with_free_func (g_free);
  p->targets = g_ptr_array_new ();
  g_ptr_array_add (s->params, p);
  if (p->name == NULL)
    return app_xml_fail_at (s->path, node, error, "missing attribute 'name'");
  if (!valid_name (p->name))
    return app_xml_fail_at (s->path, node, error,
                            "'%s' is not a param name (a letter or _, then letters, digits or _)",
                            p->name);
  gpointer seen = g_hash_table_lookup (s->by_name, p->name);
  if (seen != NULL)
    return app_xml_fail_at (s->path, node, error, "param '%s' is defined twice (first on line %ld)",
                            p->name, app_sweep_spec_param (s, GPOINTER_TO_UINT (seen) - 1)->line);
  g_hash_table_insert (s->by_name, p->name, GUINT_TO_POINTER (s->params->len));
  return param_values (s, node, p, error);
}

/* The values of AX at position V, joined by a unit separator (no value
 * holds one: they are XML attribute words), to compare two positions. */
static char *
axis_key (const AppSweepSpec *s, const AppSweepAxis *ax, guint v)
{
  GString *k = g_string_new (NULL);
  for (guint i = ax->first; i < ax->first + ax->n_params; i++)
    g_string_append_printf (k, "%s\x1f", (const char *) g_ptr_array_index (
                              app_sweep_spec_param (s, i)->values, v));
  return g_string_free (k, FALSE);
}

/* A value (a zip's tuple of values) listed twice would make every point
 * with it twice, the same run under two ids and two rows of sweep.csv:
 * refused, naming it.  Values are compared as written (1MiB and 1048576
 * differ). */
static gboolean
axis_distinct (const AppSweepSpec *s, const xmlNode *node, const AppSweepAxis *ax,
               GError **error)
{
  g_autoptr (GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint v = 0; v < ax->n_values; v++)
    {
      char *key = axis_key (s, ax, v);
      gpointer before = g_hash_table_lookup (seen, key);
      if (before == NULL)
        {
          g_hash_table_insert (seen, key, GUINT_TO_POINTER (v + 1));
          continue;
        }
      g_free (key);
      const AppSweepParam *p = app_sweep_spec_param (s, ax->first);
      const char *val = g_ptr_array_index (p->values, v);
      if (ax->n_params == 1)
        return app_xml_fail_at (s->path, node, error,
                                "param '%s' lists the value %s twice (values %u and %u): each "
                                "point would run twice; remove one", p->name, val,
                                GPOINTER_TO_UINT (before), v + 1);
      return app_xml_fail_at (s->path, node, error,
                              "the zip lists the same values twice (positions %u and %u, "
                              "'%s' = %s ...): each point would run twice; remove one",
                              GPOINTER_TO_UINT (before), v + 1, p->name, val);
    }
  return TRUE;
}

static gboolean
add_axis (AppSweepSpec *s, const xmlNode *node, guint first, GError **error)
{
  AppSweepAxis ax = { first, s->params->len - first, app_sweep_spec_param (s, first)->values->len };
  for (guint i = first + 1; i < s->params->len; i++)
    if (app_sweep_spec_param (s, i)->values->len != ax.n_values)
      return app_xml_fail_at (s->path, node, error,
                              "the lists of a zip advance together and must have one length: "
                              "'%s' has %u values, '%s' has %u",
                              app_sweep_spec_param (s, first)->name, ax.n_values, app_sweep_spec_param (s, i)->name,
                              app_sweep_spec_param (s, i)->values->len);
  if (!axis_distinct (s, node, &ax, error))
    return FALSE;
  /* Both factors are at most APP_SWEEP_MAX_POINTS: the product fits. */
  s->n_points *= ax.n_values;
  if (s->n_points > APP_SWEEP_MAX_POINTS)
    return app_xml_fail_at (s->path, node, error,
                            "the grid has %" G_GUINT64_FORMAT " points up to here, more than the "
                            "limit of %d",
                            s->n_points, APP_SWEEP_MAX_POINTS);
  g_array_append_val (s->axes, ax);
  return TRUE;
}

static gboolean
read_grid (AppSweepSpec *s, const xmlNode *grid, GError **error)
{
  static const char *const grid_children[] = { "param", "zip", NULL };
  static const char *const zip_children[] = { "param", NULL };
  if (!check_element (s, grid, NULL, grid_children, error))
    return FALSE;
  s->n_points = 1;
  for (const xmlNode *c = grid->children; c != NULL; c = c->next)
    {
      guint first = s->params->len;
      if (app_xml_is (c, "param"))
        {
          if (!read_param (s, c, error) || !add_axis (s, c, first, error))
            return FALSE;
        }
      else if (app_xml_is (c, "zip"))
        {
          if (!check_element (s, c, NULL, zip_children, error))
            return FALSE;
          for (const xmlNode *p = c->children; p != NULL; p = p->next)
            if (app_xml_is (p, "param") && !read_param (s, p, error))
              return FALSE;
          if (s->params->len == first)
            return app_xml_fail_at (s->path, c, error, "a zip needs at least one <param>");
          if (!add_axis (s, c, first, error))
            return FALSE;
        }
    }
  if (s->axes->len == 0)
    return app_xml_fail_at (s->path, grid, error, "the grid needs at least one <param>");
  return TRUE;
}

/* The text of <generate> or <run-options>, or a template attribute. */
static void
set_template (AppSweepSpec *s, int t, const xmlNode *node, char *text)
{
  s->tmpl[t] = text;
  s->tmpl_line[t] = xmlGetLineNo (node);
}

static gboolean
read_source (AppSweepSpec *s, const xmlNode *c, GError **error)
{
  static const char *const config_attrs[] = { "path", NULL };
  static const char *const astra_attrs[] = { "network", "system", "memory", "comm-groups", NULL };
  if (s->config_line > 0 || s->tmpl[APP_SWEEP_T_NETWORK] != NULL)
    return app_xml_fail_at (s->path, c, error, "give one <config> or one <astra>, not both or two");
  if (app_xml_is (c, "config"))
    {
      g_autofree char *path = app_xml_attr (c, "path");
      if (!check_element (s, c, config_attrs, NULL, error))
        return FALSE;
      if (path == NULL || *path == '\0')
        return app_xml_fail_at (s->path, c, error, "missing attribute 'path'");
      s->config = app_sweep_spec_resolve (s, path);
      s->config_line = xmlGetLineNo (c);
      return TRUE;
    }
  if (!check_element (s, c, astra_attrs, NULL, error))
    return FALSE;
  for (int t = APP_SWEEP_T_NETWORK; t <= APP_SWEEP_T_GROUPS; t++)
    set_template (s, t, c, app_xml_attr (c, astra_attrs[t - APP_SWEEP_T_NETWORK]));
  if (s->tmpl[APP_SWEEP_T_NETWORK] == NULL || s->tmpl[APP_SWEEP_T_SYSTEM] == NULL)
    return app_xml_fail_at (s->path, c, error, "needs both network and system");
  return TRUE;
}

static gboolean
read_workload (AppSweepSpec *s, const xmlNode *c, GError **error)
{
  static const char *const prefix_attrs[] = { "prefix", NULL };
  if (s->tmpl[APP_SWEEP_T_PREFIX] != NULL || s->tmpl[APP_SWEEP_T_GENERATE] != NULL)
    return app_xml_fail_at (s->path, c, error,
                            "give one <workload> or one <generate>, not both or two");
  if (app_xml_is (c, "workload"))
    {
      if (!check_element (s, c, prefix_attrs, NULL, error))
        return FALSE;
      set_template (s, APP_SWEEP_T_PREFIX, c, app_xml_attr (c, "prefix"));
      if (s->tmpl[APP_SWEEP_T_PREFIX] == NULL || *s->tmpl[APP_SWEEP_T_PREFIX] == '\0')
        return app_xml_fail_at (s->path, c, error, "missing attribute 'prefix'");
      return TRUE;
    }
  if (!check_element (s, c, NULL, NULL, error))
    return FALSE;
  set_template (s, APP_SWEEP_T_GENERATE, c, text_of (c));
  return TRUE;
}

/* The elements of <sweep>, each at most once. */
static gboolean
read_sweep (AppSweepSpec *s, const xmlNode *root, GError **error)
{
  static const char *const root_attrs[] = { "name", NULL };
  static const char *const children[] = { "config", "astra", "workload", "generate",
                                          "run-options", "grid", NULL };
  if (!app_xml_is (root, "sweep"))
    return app_xml_fail_at (s->path, root, error, "the root element must be <sweep>");
  if (!check_element (s, root, root_attrs, children, error))
    return FALSE;
  const xmlNode *grid = NULL;
  for (const xmlNode *c = root->children; c != NULL; c = c->next)
    {
      gboolean ok = TRUE;
      if (app_xml_is (c, "config") || app_xml_is (c, "astra"))
        ok = read_source (s, c, error);
      else if (app_xml_is (c, "workload") || app_xml_is (c, "generate"))
        ok = read_workload (s, c, error);
      else if (app_xml_is (c, "run-options"))
        {
          if (s->tmpl[APP_SWEEP_T_OPTIONS] != NULL)
            return app_xml_fail_at (s->path, c, error, "only one <run-options> is allowed");
          ok = check_element (s, c, NULL, NULL, error);
          set_template (s, APP_SWEEP_T_OPTIONS, c, text_of (c));
        }
      else if (app_xml_is (c, "grid"))
        {
          if (grid != NULL)
            return app_xml_fail_at (s->path, c, error, "only one <grid> is allowed");
          grid = c;
        }
      if (!ok)
        return FALSE;
    }
  if (s->config_line == 0 && s->tmpl[APP_SWEEP_T_NETWORK] == NULL)
    return app_xml_fail_at (s->path, root, error,
                            "needs a <config path> or an <astra network system>");
  if (s->tmpl[APP_SWEEP_T_PREFIX] == NULL && s->tmpl[APP_SWEEP_T_GENERATE] == NULL)
    return app_xml_fail_at (s->path, root, error, "needs a <workload prefix> or a <generate>");
  if (grid == NULL)
    return app_xml_fail_at (s->path, root, error, "needs a <grid> of params");
  return read_grid (s, grid, error);
}

/* ------------------------------------------------------------------------ */
/* Selects, placeholders and command lines                                  */

/* libxml2 reports an XPath syntax error's text only to the global handler:
 * keep the first one. */
static void
xpath_error (void *data, APP_XML_ERROR_CONST xmlError *err)
{
  char **msg = data;
  if (*msg == NULL && err->message != NULL)
    *msg = g_strchomp (g_strdup (err->message));
}

/* Some XPath errors (an unknown function) go to libxml2's generic handler,
 * which prints them on stderr: keep the first one instead, without the
 * name of the libxml2 function that raised it, for orrery's one line. */
static void G_GNUC_PRINTF (2, 3)
xpath_generic_error (void *data, const char *fmt, ...)
{
  char **msg = data;
  if (*msg != NULL)
    return;
  va_list ap;
  va_start (ap, fmt);
  char *text = g_strchomp (g_strdup_vprintf (fmt, ap));
  va_end (ap);
  const char *colon = strstr (text, ": ");
  *msg = g_strdup (colon != NULL && strncmp (text, "xml", 3) == 0 ? colon + 2 : text);
  g_free (text);
}

/* Find the nodes p->select matches in the base document; each must be an
 * attribute, a text node or an element that holds only text, and no node
 * may be set by two params (seen: node -> param). */
static gboolean
select_targets (const AppSweepSpec *s, AppSweepParam *p, GHashTable *seen, GError **error)
{
  g_autoptr (xmlXPathContext) ctx = xmlXPathNewContext (s->base);
  g_autofree char *msg = NULL, *detail = NULL;
  xmlSetStructuredErrorFunc (&msg, xpath_error);
  xmlSetGenericErrorFunc (&detail, xpath_generic_error);
  g_autoptr (xmlXPathObject) r = xmlXPathEvalExpression ((const xmlChar *) p->select, ctx);
  xmlSetStructuredErrorFunc (NULL, NULL);
  xmlSetGenericErrorFunc (NULL, NULL);
  if (r == NULL)
    return fail_line (s, p->line, error,
                      "param '%s': select '%s' is not an XPath expression (%s%s%s)", p->name,
                      p->select, msg != NULL ? msg : "syntax error", detail != NULL ? ": " : "",
                      detail != NULL ? detail : "");
  if (r->type != XPATH_NODESET)
    return fail_line (s, p->line, error, "param '%s': select '%s' gives a value, not nodes",
                      p->name, p->select);
  if (r->nodesetval == NULL || r->nodesetval->nodeNr == 0)
    return fail_line (s, p->line, error, "param '%s': select '%s' matches nothing in %s",
                      p->name, p->select, s->config);
  for (int i = 0; i < r->nodesetval->nodeNr; i++)
    {
      xmlNode *n = r->nodesetval->nodeTab[i];
      /* A namespace node is an xmlNs and the document an xmlDoc, not
       * xmlNodes: nothing else of them may be read (their line neither). */
      if (n->type != XML_ELEMENT_NODE && n->type != XML_ATTRIBUTE_NODE
          && n->type != XML_TEXT_NODE && n->type != XML_CDATA_SECTION_NODE
          && n->type != XML_COMMENT_NODE && n->type != XML_PI_NODE)
        return fail_line (s, p->line, error,
                          "param '%s': select '%s' matches a node of %s that is not an element, "
                          "attribute or text (a namespace or the document), which cannot take a "
                          "value (select attributes, or elements that hold only text)",
                          p->name, p->select, s->config);
      gboolean ok = n->type == XML_ATTRIBUTE_NODE || n->type == XML_TEXT_NODE
                    || n->type == XML_CDATA_SECTION_NODE;
      if (n->type == XML_ELEMENT_NODE)
        {
          ok = TRUE;
          for (const xmlNode *c = n->children; c != NULL; c = c->next)
            ok = ok && c->type != XML_ELEMENT_NODE;
        }
      if (!ok)
        return fail_line (s, p->line, error,
                          "param '%s': select '%s' matches a node on line %ld of %s that cannot "
                          "take a value (select attributes, or elements that hold only text)",
                          p->name, p->select, xmlGetLineNo (n), s->config);
      /* Setting an element's text replaces its text nodes: a text node
       * counts as its element, so that no target is freed by another. */
      gboolean text = n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE;
      xmlNode *key = text && n->parent != NULL ? n->parent : n;
      AppSweepParam *other = g_hash_table_lookup (seen, key);
      if (other == p)
        continue;
      if (other != NULL)
        return fail_line (s, p->line, error,
                          "param '%s': select '%s' matches a node (line %ld of %s) that param "
                          "'%s' sets too",
                          p->name, p->select, xmlGetLineNo (n), s->config, other->name);
      g_hash_table_insert (seen, key, p);
      g_ptr_array_add (p->targets, n);
    }
  p->used = TRUE;
  return TRUE;
}

/* The next placeholder "{name}" in text at or after *pos: TRUE with its
 * span [*start, *pos) (braces included). */
gboolean
app_sweep_next_placeholder (const char *text, gsize *pos, gsize *start)
{
  for (const char *p = strchr (text + *pos, '{'); p != NULL; p = strchr (p + 1, '{'))
    {
      const char *q = p + 1;
      if (!(g_ascii_isalpha (*q) || *q == '_'))
        continue;
      while (g_ascii_isalnum (*q) || *q == '_')
        q++;
      if (*q != '}')
        continue;
      *start = (gsize) (p - text);
      *pos = (gsize) (q + 1 - text);
      return TRUE;
    }
  return FALSE;
}

/* Every placeholder names a param; mark those params used. */
static gboolean
check_placeholders (AppSweepSpec *s, GError **error)
{
  for (int t = 0; t < APP_SWEEP_T_N; t++)
    {
      const char *text = s->tmpl[t];
      gsize pos = 0, start = 0;
      while (text != NULL && app_sweep_next_placeholder (text, &pos, &start))
        {
          g_autofree char *name = g_strndup (text + start + 1, pos - start - 2);
          gpointer i = g_hash_table_lookup (s->by_name, name);
          if (i == NULL)
            return fail_line (s, s->tmpl_line[t], error,
                              "%s: unknown placeholder {%s}: no param of that name",
                              template_what[t], name);
          app_sweep_spec_param (s, GPOINTER_TO_UINT (i) - 1)->used = TRUE;
        }
    }
  return TRUE;
}

/* An option that is one of names (NULL-terminated), as "--name", "-n" or
 * "--name=value". */
static const char *
option_in (const char *word, const char *const *names)
{
  for (; *names != NULL; names++)
    {
      gsize n = strlen (*names);
      if (strncmp (word, *names, n) == 0 && (word[n] == '\0' || word[n] == '='))
        return *names;
    }
  return NULL;
}

/* The option among NAMES that WORD sets, or NULL: "--report" or
 * "--report=F", and a short one alone or in a group ("-r", "-qr": GOption
 * reads each letter as an option, and the last takes the next word). */
static const char *
option_set (const char *word, const char *const *names)
{
  const char *name = option_in (word, names);
  if (name != NULL || word[0] != '-' || word[1] == '-')
    return name;
  for (const char *c = word + 1; *c != '\0' && *c != '='; c++)
    for (const char *const *n = names; *n != NULL; n++)
      if ((*n)[1] == *c && (*n)[2] == '\0')
        return *n;
  return NULL;
}

gboolean
app_sweep_spec_check_words (const AppSweepSpec *s, int t, const char *text, const char *point,
                            GError **error)
{
  static const char *const sweep_sets[] = { "--config", "-c", "--astra-network", "--astra-system",
                                             "--astra-memory", "--comm-groups", "--workload",
                                             "-w", "--report", "-r", "--stats", NULL };
  static const char *const out_opts[] = { "--out", "-o", NULL };
  g_return_val_if_fail (t == APP_SWEEP_T_OPTIONS || t == APP_SWEEP_T_GENERATE, FALSE);
  g_auto (GStrv) words = g_strsplit_set (text, APP_SWEEP_BLANKS, -1);
  g_autofree char *where = point != NULL ? g_strdup_printf (" of point %s", point) : g_strdup ("");
  const char *tag = t == APP_SWEEP_T_OPTIONS ? "<run-options>" : "<generate>";
  /* Words are split at blanks and passed as written: a quote would reach
   * the command as a character of a word ('"my' 'run.json"'), and an
   * unterminated one would hide nothing, so either is refused. */
  const char *quote = strpbrk (text, "\"'"), *word = quote;
  while (word != NULL && word > text && strchr (APP_SWEEP_BLANKS, word[-1]) == NULL)
    word--;
  if (quote != NULL)
    return fail_line (s, s->tmpl_line[t], error,
                      "%s%s: quote %c in '%.*s': quotes are not read (words are split at blanks "
                      "and passed as written, so a word cannot hold a blank): remove it",
                      tag, where, *quote,
                      (int) (quote - word + (gssize) strcspn (quote, APP_SWEEP_BLANKS)), word);
  for (char **w = words; *w != NULL; w++)
    {
      const char *set = option_set (*w, t == APP_SWEEP_T_OPTIONS ? sweep_sets : out_opts);
      g_autofree char *in = set != NULL && strcmp (set, *w) != 0
                                ? g_strdup_printf (" (in '%s')", *w)
                                : g_strdup ("");
      if (set != NULL && t == APP_SWEEP_T_OPTIONS)
        return fail_line (s, s->tmpl_line[t], error,
                          "<run-options>%s: %s is set by the sweep itself%s", where, set, in);
      if (set != NULL)
        return fail_line (s, s->tmpl_line[t], error,
                          "<generate>%s: leave out %s%s: orrery writes each point's workload "
                          "into its directory", where, set, in);
    }
  return TRUE;
}

/* <run-options> may not set what the sweep sets; <generate> is an `orrery
 * gen` command line without --out. */
static gboolean
check_command_lines (const AppSweepSpec *s, GError **error)
{
  if (s->tmpl[APP_SWEEP_T_OPTIONS] != NULL
      && !app_sweep_spec_check_words (s, APP_SWEEP_T_OPTIONS, s->tmpl[APP_SWEEP_T_OPTIONS], NULL,
                                      error))
    return FALSE;
  if (s->tmpl[APP_SWEEP_T_GENERATE] == NULL)
    return TRUE;
  if (!app_sweep_spec_check_words (s, APP_SWEEP_T_GENERATE, s->tmpl[APP_SWEEP_T_GENERATE], NULL,
                                   error))
    return FALSE;
  g_auto (GStrv) gen = g_strsplit_set (s->tmpl[APP_SWEEP_T_GENERATE], APP_SWEEP_BLANKS, -1);
  guint n = 0;
  const char *words[2] = { NULL, NULL };
  for (char **w = gen; *w != NULL; w++)
    if (**w != '\0' && n < 2)
      words[n++] = *w;
  const char *kind = g_strcmp0 (words[0], "gen") == 0 ? words[1] : words[0];
  if (g_strcmp0 (kind, "collective") != 0 && g_strcmp0 (kind, "transformer") != 0
      && g_strcmp0 (kind, "dlrm") != 0)
    return fail_line (s, s->tmpl_line[APP_SWEEP_T_GENERATE], error,
                      "<generate>: '%s' is not a generator (gen collective ..., gen "
                      "transformer ... or gen dlrm ...)", kind != NULL ? kind : "");
  return TRUE;
}

/* The checks across elements, once everything is read. */
static gboolean
check_spec (AppSweepSpec *s, GError **error)
{
  if (s->config != NULL)
    {
      AppConfig cfg;
      app_config_init (&cfg);
      gboolean ok = app_config_load_xml (&cfg, s->config, error);
      app_config_clear (&cfg);
      g_autofree char *text = NULL;
      gsize len = 0;
      if (!ok)
        return FALSE;
      if (!app_config_read_file (s->config, &text, &len, NULL))
        return fail_line (s, s->config_line, error, "<config>: cannot read %s", s->config);
      s->base = app_xml_read_text (s->config, text, len, error);
      if (s->base == NULL)
        return FALSE;
    }
  g_autoptr (GHashTable) seen = g_hash_table_new (NULL, NULL);
  for (guint i = 0; i < s->params->len; i++)
    {
      AppSweepParam *p = app_sweep_spec_param (s, i);
      if (p->select != NULL && s->base == NULL)
        return fail_line (s, p->line, error,
                          "param '%s': select edits a native <config>, and this sweep has none",
                          p->name);
      if (p->select != NULL && !select_targets (s, p, seen, error))
        return FALSE;
    }
  if (!check_placeholders (s, error) || !check_command_lines (s, error))
    return FALSE;
  for (guint i = 0; i < s->params->len; i++)
    if (!app_sweep_spec_param (s, i)->used)
      return fail_line (s, app_sweep_spec_param (s, i)->line, error,
                        "param '%s' is used nowhere: give it a select, or write {%s} in an "
                        "<astra> path, the workload prefix, <generate> or <run-options>",
                        app_sweep_spec_param (s, i)->name, app_sweep_spec_param (s, i)->name);
  return TRUE;
}

gboolean
app_sweep_spec_load (AppSweepSpec *s, const char *path, GError **error)
{
  s->path = path;
  s->params = g_ptr_array_new_with_free_func (param_free);
  s->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  s->axes = g_array_new (FALSE, FALSE, sizeof (AppSweepAxis));
  if (!app_config_read_file (path, &s->text, &s->len, error))
    return FALSE;
  g_autofree char *dir = g_path_get_dirname (path);
  s->dir = g_canonicalize_filename (dir, NULL);
  g_autoptr (xmlDoc) doc = app_xml_read_text (path, s->text, s->len, error);
  if (doc == NULL)
    return FALSE;
  /* The walk's message is the more precise; the schema's stands when the
   * walk finds nothing wrong. */
  GError *schema_err = NULL;
  gboolean valid
      = app_xml_validate_apart (path, doc, &sweep_schema, sweep_apart, APP_XML_REPORT_FIRST,
                                &schema_err);
  if (!read_sweep (s, xmlDocGetRootElement (doc), error))
    {
      g_clear_error (&schema_err);
      return FALSE;
    }
  if (!valid)
    {
      g_propagate_error (error, schema_err);
      return FALSE;
    }
  return check_spec (s, error);
}

/* Point `index`'s value of every param (borrowed from the spec). */
void
app_sweep_point_values (const AppSweepSpec *s, guint64 index, const char **vals)
{
  for (guint a = s->axes->len; a-- > 0;)
    {
      const AppSweepAxis *ax = &g_array_index (s->axes, AppSweepAxis, a);
      guint v = (guint) (index % ax->n_values);
      index /= ax->n_values;
      for (guint p = ax->first; p < ax->first + ax->n_params; p++)
        vals[p] = g_ptr_array_index (app_sweep_spec_param (s, p)->values, v);
    }
}
