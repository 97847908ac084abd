/* sweep_spec.c: reading a sweep spec (configs/sweep.rng) and expanding it
 * into point directories; the format and the directory are in
 * sim/app/sweep.h.
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
#include "sim/app/sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <string.h>

#include "sim/app/config.h"
#include "sim/app/xml_schema.h"
#include "sim/error.h"
#include "sweep_rng.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlXPathContext, xmlXPathFreeContext)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlXPathObject, xmlXPathFreeObject)

/* The schema compiled into the binary. */
static const AppXmlSchema sweep_schema = { "configs/sweep.rng", sweep_rng, sizeof sweep_rng };

#define BLANKS " \t\r\n"

typedef struct
{
  char *name;
  char *select;       /* NULL when the param reaches points by placeholders only */
  long line;
  GPtrArray *values;  /* char *, the list in order */
  GPtrArray *targets; /* xmlNode * of the base document that take the value */
  gboolean used;      /* by a select or a placeholder */
} Param;

/* One axis of the grid: a param alone, or a zip of consecutive params. */
typedef struct
{
  guint first;
  guint n_params;
  guint n_values;
} Axis;

/* The strings that may hold placeholders. */
enum
{
  T_NETWORK,
  T_SYSTEM,
  T_MEMORY,
  T_GROUPS,
  T_PREFIX,
  T_GENERATE,
  T_OPTIONS,
  T_N
};

static const char *const template_what[T_N] = {
  "<astra network>", "<astra system>", "<astra memory>", "<astra comm-groups>",
  "<workload prefix>", "<generate>", "<run-options>"
};

/* The `orrery run` options that T_NETWORK .. T_GROUPS stand for. */
static const char *const astra_option[] = { "--astra-network", "--astra-system",
                                            "--astra-memory", "--comm-groups" };

typedef struct
{
  const char *path; /* as given: messages name it */
  char *dir;        /* the spec's directory, absolute: relative paths start there */
  char *text;       /* the spec's bytes */
  gsize len;
  char *config;     /* the base cluster XML, absolute, or NULL (ASTRA-sim inputs) */
  long config_line;
  xmlDoc *base;
  char *tmpl[T_N]; /* NULL when absent */
  long tmpl_line[T_N];
  GPtrArray *params;   /* Param *, in document order */
  GHashTable *by_name; /* name -> index + 1 */
  GArray *axes;        /* Axis */
  guint64 n_points;
} Spec;

static void
param_free (gpointer p)
{
  Param *pa = p;
  g_free (pa->name);
  g_free (pa->select);
  g_ptr_array_unref (pa->values);
  g_ptr_array_unref (pa->targets);
  g_free (pa);
}

static void
spec_clear (Spec *s)
{
  g_free (s->dir);
  g_free (s->text);
  g_free (s->config);
  if (s->base != NULL)
    xmlFreeDoc (s->base);
  for (int t = 0; t < T_N; t++)
    g_free (s->tmpl[t]);
  g_clear_pointer (&s->params, g_ptr_array_unref);
  g_clear_pointer (&s->by_name, g_hash_table_unref);
  g_clear_pointer (&s->axes, g_array_unref);
}

static Param *
param_at (const Spec *s, guint i)
{
  return g_ptr_array_index (s->params, i);
}

/* "FILE:LINE: message" for things that are no longer nodes. */
static gboolean G_GNUC_PRINTF (4, 5)
fail_line (const Spec *s, long line, GError **error, const char *format, ...)
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
static char *
spec_resolve (const Spec *s, const char *path)
{
  return g_canonicalize_filename (path, s->dir);
}

/* node has only the listed attributes (NULL-terminated) and no child
 * elements unless `children` (then only those). */
static gboolean
check_node (const Spec *s, const xmlNode *node, const char *const *attrs,
            const char *const *children, GError **error)
{
  static const char *const none[] = { NULL };
  for (const xmlAttr *a = node->properties; a != NULL; a = a->next)
    if (!g_strv_contains (attrs, (const char *) a->name))
      {
        g_autofree char *known = g_strjoinv (", ", (char **) attrs);
        return app_xml_fail_at (s->path, node, error, "unknown attribute '%s' (expected: %s)",
                                (const char *) a->name, known);
      }
  children = children != NULL ? children : none;
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE && !g_strv_contains (children, (const char *) c->name))
      return app_xml_fail_at (s->path, c, error, "unexpected element in <%s>",
                              (const char *) node->name);
  return TRUE;
}

/* A whole number, or a FILE:LINE error. */
static gboolean
parse_int (const Spec *s, const xmlNode *node, const char *name, const char *text, gint64 *out,
           GError **error)
{
  if (g_ascii_string_to_signed (text, 10, G_MININT64, G_MAXINT64, out, NULL))
    return TRUE;
  return app_xml_fail_at (s->path, node, error, "%s '%s' is not a whole number", name, text);
}

/* from, from + step, ... up to to (inclusive). */
static gboolean
range_step (const Spec *s, const xmlNode *node, gint64 from, gint64 to, gint64 step,
            GPtrArray *values, GError **error)
{
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
range_factor (const Spec *s, const xmlNode *node, gint64 from, gint64 to, gint64 factor,
              GPtrArray *values, GError **error)
{
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
param_values (const Spec *s, const xmlNode *node, Param *p, GError **error)
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
      g_auto (GStrv) words = g_strsplit_set (values, BLANKS, -1);
      for (char **w = words; *w != NULL; w++)
        if (**w != '\0')
          g_ptr_array_add (p->values, g_strdup (*w));
      if (p->values->len == 0)
        return app_xml_fail_at (s->path, node, error, "param '%s' has no values", p->name);
      return TRUE;
    }
  gint64 from = 0, to = 0, step = 1, factor = 0;
  if (from_s == NULL || to_s == NULL)
    return app_xml_fail_at (s->path, node, error, "a range needs both from and to");
  if (step_s != NULL && factor_s != NULL)
    return app_xml_fail_at (s->path, node, error, "give step or factor, not both");
  if (!parse_int (s, node, "from", from_s, &from, error)
      || !parse_int (s, node, "to", to_s, &to, error)
      || (step_s != NULL && !parse_int (s, node, "step", step_s, &step, error))
      || (factor_s != NULL && !parse_int (s, node, "factor", factor_s, &factor, error)))
    return FALSE;
  return factor_s != NULL ? range_factor (s, node, from, to, factor, p->values, error)
                          : range_step (s, node, from, to, step, p->values, error);
}

static gboolean
read_param (Spec *s, const xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "name", "select", "values", "from", "to", "step",
                                       "factor", NULL };
  if (!check_node (s, node, attrs, NULL, error))
    return FALSE;
  Param *p = g_new0 (Param, 1);
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
                            p->name, param_at (s, GPOINTER_TO_UINT (seen) - 1)->line);
  g_hash_table_insert (s->by_name, p->name, GUINT_TO_POINTER (s->params->len));
  return param_values (s, node, p, error);
}

static gboolean
add_axis (Spec *s, const xmlNode *node, guint first, GError **error)
{
  Axis ax = { first, s->params->len - first, param_at (s, first)->values->len };
  for (guint i = first + 1; i < s->params->len; i++)
    if (param_at (s, i)->values->len != ax.n_values)
      return app_xml_fail_at (s->path, node, error,
                              "the lists of a zip advance together and must have one length: "
                              "'%s' has %u values, '%s' has %u",
                              param_at (s, first)->name, ax.n_values, param_at (s, i)->name,
                              param_at (s, i)->values->len);
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
read_grid (Spec *s, const xmlNode *grid, GError **error)
{
  static const char *const none[] = { NULL };
  static const char *const grid_children[] = { "param", "zip", NULL };
  static const char *const zip_children[] = { "param", NULL };
  if (!check_node (s, grid, none, grid_children, error))
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
          if (!check_node (s, c, none, zip_children, error))
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
set_template (Spec *s, int t, const xmlNode *node, char *text)
{
  s->tmpl[t] = text;
  s->tmpl_line[t] = xmlGetLineNo (node);
}

static gboolean
read_source (Spec *s, const xmlNode *c, GError **error)
{
  static const char *const config_attrs[] = { "path", NULL };
  static const char *const astra_attrs[] = { "network", "system", "memory", "comm-groups", NULL };
  if (s->config_line > 0 || s->tmpl[T_NETWORK] != NULL)
    return app_xml_fail_at (s->path, c, error, "give one <config> or one <astra>, not both or two");
  if (app_xml_is (c, "config"))
    {
      g_autofree char *path = app_xml_attr (c, "path");
      if (!check_node (s, c, config_attrs, NULL, error))
        return FALSE;
      if (path == NULL || *path == '\0')
        return app_xml_fail_at (s->path, c, error, "missing attribute 'path'");
      s->config = spec_resolve (s, path);
      s->config_line = xmlGetLineNo (c);
      return TRUE;
    }
  if (!check_node (s, c, astra_attrs, NULL, error))
    return FALSE;
  for (int t = T_NETWORK; t <= T_GROUPS; t++)
    set_template (s, t, c, app_xml_attr (c, astra_attrs[t - T_NETWORK]));
  if (s->tmpl[T_NETWORK] == NULL || s->tmpl[T_SYSTEM] == NULL)
    return app_xml_fail_at (s->path, c, error, "needs both network and system");
  return TRUE;
}

static gboolean
read_workload (Spec *s, const xmlNode *c, GError **error)
{
  static const char *const prefix_attrs[] = { "prefix", NULL };
  static const char *const none[] = { NULL };
  if (s->tmpl[T_PREFIX] != NULL || s->tmpl[T_GENERATE] != NULL)
    return app_xml_fail_at (s->path, c, error,
                            "give one <workload> or one <generate>, not both or two");
  if (app_xml_is (c, "workload"))
    {
      if (!check_node (s, c, prefix_attrs, NULL, error))
        return FALSE;
      set_template (s, T_PREFIX, c, app_xml_attr (c, "prefix"));
      if (s->tmpl[T_PREFIX] == NULL || *s->tmpl[T_PREFIX] == '\0')
        return app_xml_fail_at (s->path, c, error, "missing attribute 'prefix'");
      return TRUE;
    }
  if (!check_node (s, c, none, NULL, error))
    return FALSE;
  set_template (s, T_GENERATE, c, text_of (c));
  return TRUE;
}

/* The elements of <sweep>, each at most once. */
static gboolean
read_sweep (Spec *s, const xmlNode *root, GError **error)
{
  static const char *const root_attrs[] = { "name", NULL };
  static const char *const none[] = { NULL };
  static const char *const children[] = { "config", "astra", "workload", "generate",
                                          "run-options", "grid", NULL };
  if (!app_xml_is (root, "sweep"))
    return app_xml_fail_at (s->path, root, error, "the root element must be <sweep>");
  if (!check_node (s, root, root_attrs, children, error))
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
          if (s->tmpl[T_OPTIONS] != NULL)
            return app_xml_fail_at (s->path, c, error, "only one <run-options> is allowed");
          ok = check_node (s, c, none, NULL, error);
          set_template (s, T_OPTIONS, c, text_of (c));
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
  if (s->config_line == 0 && s->tmpl[T_NETWORK] == NULL)
    return app_xml_fail_at (s->path, root, error,
                            "needs a <config path> or an <astra network system>");
  if (s->tmpl[T_PREFIX] == NULL && s->tmpl[T_GENERATE] == NULL)
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

/* Find the nodes p->select matches in the base document; each must be an
 * attribute, a text node or an element that holds only text, and no node
 * may be set by two params (seen: node -> param). */
static gboolean
select_targets (const Spec *s, Param *p, GHashTable *seen, GError **error)
{
  g_autoptr (xmlXPathContext) ctx = xmlXPathNewContext (s->base);
  g_autofree char *msg = NULL;
  xmlSetStructuredErrorFunc (&msg, xpath_error);
  g_autoptr (xmlXPathObject) r = xmlXPathEvalExpression ((const xmlChar *) p->select, ctx);
  xmlSetStructuredErrorFunc (NULL, NULL);
  if (r == NULL)
    return fail_line (s, p->line, error, "param '%s': select '%s' is not an XPath expression (%s)",
                      p->name, p->select, msg != NULL ? msg : "syntax error");
  if (r->type != XPATH_NODESET)
    return fail_line (s, p->line, error, "param '%s': select '%s' gives a value, not nodes",
                      p->name, p->select);
  if (r->nodesetval == NULL || r->nodesetval->nodeNr == 0)
    return fail_line (s, p->line, error, "param '%s': select '%s' matches nothing in %s",
                      p->name, p->select, s->config);
  for (int i = 0; i < r->nodesetval->nodeNr; i++)
    {
      xmlNode *n = r->nodesetval->nodeTab[i];
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
      Param *other = g_hash_table_lookup (seen, key);
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
static gboolean
next_placeholder (const char *text, gsize *pos, gsize *start)
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
check_placeholders (Spec *s, GError **error)
{
  for (int t = 0; t < T_N; t++)
    {
      const char *text = s->tmpl[t];
      gsize pos = 0, start = 0;
      while (text != NULL && next_placeholder (text, &pos, &start))
        {
          g_autofree char *name = g_strndup (text + start + 1, pos - start - 2);
          gpointer i = g_hash_table_lookup (s->by_name, name);
          if (i == NULL)
            return fail_line (s, s->tmpl_line[t], error,
                              "%s: unknown placeholder {%s}: no param of that name",
                              template_what[t], name);
          param_at (s, GPOINTER_TO_UINT (i) - 1)->used = TRUE;
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

/* <run-options> may not set what the sweep sets; <generate> is an `orrery
 * gen` command line without --out. */
static gboolean
check_command_lines (const Spec *s, GError **error)
{
  static const char *const sweep_sets[] = { "--config", "-c", "--astra-network", "--astra-system",
                                             "--astra-memory", "--comm-groups", "--workload",
                                             "-w", "--report", "-r", "--stats", NULL };
  static const char *const out_opts[] = { "--out", "-o", NULL };
  g_auto (GStrv) opts = g_strsplit_set (s->tmpl[T_OPTIONS] != NULL ? s->tmpl[T_OPTIONS] : "",
                                        BLANKS, -1);
  for (char **w = opts; *w != NULL; w++)
    if (option_in (*w, sweep_sets) != NULL)
      return fail_line (s, s->tmpl_line[T_OPTIONS], error,
                        "<run-options>: %s is set by the sweep itself", option_in (*w, sweep_sets));
  if (s->tmpl[T_GENERATE] == NULL)
    return TRUE;
  g_auto (GStrv) gen = g_strsplit_set (s->tmpl[T_GENERATE], BLANKS, -1);
  guint n = 0;
  const char *words[2] = { NULL, NULL };
  for (char **w = gen; *w != NULL; w++)
    {
      if (option_in (*w, out_opts) != NULL)
        return fail_line (s, s->tmpl_line[T_GENERATE], error,
                          "<generate>: leave out %s: orrery writes each point's workload into "
                          "its directory", *w);
      if (**w != '\0' && n < 2)
        words[n++] = *w;
    }
  const char *kind = g_strcmp0 (words[0], "gen") == 0 ? words[1] : words[0];
  if (g_strcmp0 (kind, "collective") != 0 && g_strcmp0 (kind, "transformer") != 0)
    return fail_line (s, s->tmpl_line[T_GENERATE], error,
                      "<generate>: '%s' is not a generator (gen collective ... or gen "
                      "transformer ...)", kind != NULL ? kind : "");
  return TRUE;
}

/* The checks across elements, once everything is read. */
static gboolean
check_spec (Spec *s, GError **error)
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
      Param *p = param_at (s, i);
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
    if (!param_at (s, i)->used)
      return fail_line (s, param_at (s, i)->line, error,
                        "param '%s' is used nowhere: give it a select, or write {%s} in an "
                        "<astra> path, the workload prefix, <generate> or <run-options>",
                        param_at (s, i)->name, param_at (s, i)->name);
  return TRUE;
}

static gboolean
spec_load (Spec *s, const char *path, GError **error)
{
  s->path = path;
  s->params = g_ptr_array_new_with_free_func (param_free);
  s->by_name = g_hash_table_new (g_str_hash, g_str_equal);
  s->axes = g_array_new (FALSE, FALSE, sizeof (Axis));
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
      = app_xml_validate (path, doc, &sweep_schema, APP_XML_REPORT_FIRST, &schema_err);
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

/* ------------------------------------------------------------------------ */
/* Expanding                                                                */

/* Point `index`'s value of every param (borrowed from the spec). */
static void
point_values (const Spec *s, guint64 index, const char **vals)
{
  for (guint a = s->axes->len; a-- > 0;)
    {
      const Axis *ax = &g_array_index (s->axes, Axis, a);
      guint v = (guint) (index % ax->n_values);
      index /= ax->n_values;
      for (guint p = ax->first; p < ax->first + ax->n_params; p++)
        vals[p] = g_ptr_array_index (param_at (s, p)->values, v);
    }
}

/* tmpl with every {name} replaced by the point's value. */
static char *
substitute (const Spec *s, const char *tmpl, const char *const *vals)
{
  GString *out = g_string_new (NULL);
  gsize pos = 0, start = 0, done = 0;
  while (next_placeholder (tmpl, &pos, &start))
    {
      g_autofree char *name = g_strndup (tmpl + start + 1, pos - start - 2);
      guint i = GPOINTER_TO_UINT (g_hash_table_lookup (s->by_name, name)) - 1;
      g_string_append_len (out, tmpl + done, (gssize) (start - done));
      g_string_append (out, vals[i]);
      done = pos;
    }
  g_string_append (out, tmpl + done);
  return g_string_free (out, FALSE);
}

/* The words of a template for this point, one per line, after `skip_gen`
 * drops a leading "gen". */
static void
append_words (const Spec *s, int t, const char *const *vals, gboolean skip_gen, GString *out)
{
  g_autofree char *text = substitute (s, s->tmpl[t], vals);
  g_auto (GStrv) words = g_strsplit_set (text, BLANKS, -1);
  gboolean first = TRUE;
  for (char **w = words; *w != NULL; w++)
    {
      if (**w == '\0')
        continue;
      if (!(first && skip_gen && strcmp (*w, "gen") == 0))
        g_string_append_printf (out, "%s\n", *w);
      first = FALSE;
    }
}

/* A path template for this point, absolute. */
static char *
point_path (const Spec *s, int t, const char *const *vals)
{
  g_autofree char *path = substitute (s, s->tmpl[t], vals);
  return spec_resolve (s, path);
}

static void
set_value (xmlNode *node, const char *value)
{
  /* Text nodes take their content as it is; attributes and elements parse
   * entity references, so the value is escaped for them. */
  if (node->type == XML_TEXT_NODE || node->type == XML_CDATA_SECTION_NODE)
    {
      xmlNodeSetContent (node, (const xmlChar *) value);
      return;
    }
  xmlChar *escaped = xmlEncodeSpecialChars (node->doc, (const xmlChar *) value);
  xmlNodeSetContent (node, escaped);
  xmlFree (escaped);
}

static gboolean
write_file (const char *dir, const char *name, const char *text, gssize len, GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr (GError) io = NULL;
  if (g_file_set_contents (path, text, len, &io))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s", io->message);
  return FALSE;
}

/* The base config with this point's values, as tmp/config.xml. */
static gboolean
write_config (const Spec *s, const char *const *vals, const char *tmp, GError **error)
{
  for (guint i = 0; i < s->params->len; i++)
    for (guint k = 0; k < param_at (s, i)->targets->len; k++)
      set_value (g_ptr_array_index (param_at (s, i)->targets, k), vals[i]);
  xmlChar *mem = NULL;
  int size = 0;
  xmlDocDumpMemory (s->base, &mem, &size);
  gboolean ok = write_file (tmp, "config.xml", (const char *) mem, size, error);
  xmlFree (mem);
  return ok;
}

/* The `orrery run` arguments of a point whose directory is `dir`. */
static char *
run_args (const Spec *s, const char *const *vals, const char *dir)
{
  GString *a = g_string_new (NULL);
  if (s->base != NULL)
    g_string_append_printf (a, "--config\n%s/config.xml\n", dir);
  for (int t = T_NETWORK; t <= T_GROUPS; t++)
    if (s->tmpl[t] != NULL)
      {
        g_autofree char *path = point_path (s, t, vals);
        g_string_append_printf (a, "%s\n%s\n", astra_option[t - T_NETWORK], path);
      }
  if (s->tmpl[T_PREFIX] != NULL)
    {
      g_autofree char *prefix = point_path (s, T_PREFIX, vals);
      g_string_append_printf (a, "--workload\n%s\n", prefix);
    }
  else
    g_string_append_printf (a, "--workload\n%s/workload/w\n", dir);
  if (s->tmpl[T_OPTIONS] != NULL)
    append_words (s, T_OPTIONS, vals, FALSE, a);
  g_string_append_printf (a, "--report\n%s/report.json\n--stats\n%s/stats.csv\n--quiet\n", dir,
                          dir);
  return g_string_free (a, FALSE);
}

/* "point\t<names>\n": the header of points.tsv and params.tsv. */
static char *
tsv_header (const Spec *s)
{
  GString *h = g_string_new ("point");
  for (guint i = 0; i < s->params->len; i++)
    g_string_append_printf (h, "\t%s", param_at (s, i)->name);
  g_string_append_c (h, '\n');
  return g_string_free (h, FALSE);
}

static void
append_row (const Spec *s, const char *id, const char *const *vals, GString *out)
{
  g_string_append (out, id);
  for (guint i = 0; i < s->params->len; i++)
    g_string_append_printf (out, "\t%s", vals[i]);
  g_string_append_c (out, '\n');
}

/* Recursive by design: one level per directory level of a points tree that
 * this program wrote (symlinks are not followed). */
static void
remove_tree (const char *path) /* NOLINT(misc-no-recursion) */
{
  GDir *d = g_file_test (path, G_FILE_TEST_IS_SYMLINK) ? NULL : g_dir_open (path, 0, NULL);
  if (d != NULL)
    {
      const char *name;
      while ((name = g_dir_read_name (d)) != NULL)
        {
          g_autofree char *p = g_build_filename (path, name, NULL);
          remove_tree (p);
        }
      g_dir_close (d);
    }
  g_remove (path);
}

static gboolean
io_fail (const char *path, const char *what, GError **error)
{
  int e = errno;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot %s: %s", path, what,
               g_strerror (e));
  return FALSE;
}

/* Write points/ID (through a temporary directory renamed into place, so
 * that a point directory is always complete) unless it exists. */
static gboolean
write_point (const Spec *s, const char *out, guint64 index, int width, const char *header,
             GError **error)
{
  g_autofree char *id = g_strdup_printf ("%0*" G_GUINT64_FORMAT, width, index);
  g_autofree char *dir = g_build_filename (out, "points", id, NULL);
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autofree char *tmp_name = g_strdup_printf (".%s.tmp", id);
  g_autofree char *tmp = g_build_filename (out, "points", tmp_name, NULL);
  remove_tree (tmp);
  if (g_mkdir (tmp, 0777) != 0)
    return io_fail (tmp, "create the directory", error);
  g_autofree const char **vals = g_new (const char *, s->params->len + 1);
  point_values (s, index, vals);
  g_autofree char *args = run_args (s, vals, dir);
  g_autoptr (GString) params = g_string_new (header);
  append_row (s, id, vals, params);
  if ((s->base != NULL && !write_config (s, vals, tmp, error))
      || !write_file (tmp, "args", args, -1, error)
      || !write_file (tmp, "params.tsv", params->str, (gssize) params->len, error))
    return FALSE;
  if (s->tmpl[T_GENERATE] != NULL)
    {
      g_autoptr (GString) gen = g_string_new (NULL);
      append_words (s, T_GENERATE, vals, TRUE, gen);
      g_string_append_printf (gen, "--out\n%s/workload/w\n", dir);
      if (!write_file (tmp, "gen-args", gen->str, (gssize) gen->len, error))
        return FALSE;
    }
  if (g_rename (tmp, dir) != 0)
    return io_fail (dir, "rename the point's directory into place", error);
  return TRUE;
}

/* A fresh directory gets spec.xml; one expanded before must hold the same
 * spec. */
static gboolean
prepare_outdir (const Spec *s, const char *out, GError **error)
{
  g_autofree char *copy = g_build_filename (out, "spec.xml", NULL);
  g_autofree char *points = g_build_filename (out, "points", NULL);
  g_autofree char *old = NULL;
  gsize old_len = 0;
  if (g_file_get_contents (copy, &old, &old_len, NULL))
    {
      if (old_len != s->len || memcmp (old, s->text, s->len) != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: expanded from another spec (%s differs from %s): expand this spec "
                       "into a new directory",
                       out, copy, s->path);
          return FALSE;
        }
    }
  else if (g_file_test (out, G_FILE_TEST_EXISTS))
    {
      GDir *d = g_dir_open (out, 0, NULL);
      gboolean empty = d != NULL && g_dir_read_name (d) == NULL;
      if (d != NULL)
        g_dir_close (d);
      if (!empty)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: not an empty directory and not a sweep (no spec.xml): expand into a "
                       "new directory",
                       out);
          return FALSE;
        }
    }
  if (g_mkdir_with_parents (points, 0777) != 0)
    return io_fail (points, "create the directory", error);
  return old != NULL || write_file (out, "spec.xml", s->text, (gssize) s->len, error);
}

/* points.tsv last: its presence says that every point directory is there. */
static gboolean
write_points_tsv (const Spec *s, const char *out, int width, const char *header, GError **error)
{
  g_autofree char *path = g_build_filename (out, "points.tsv", NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autoptr (GString) tsv = g_string_new (header);
  g_autofree const char **vals = g_new (const char *, s->params->len + 1);
  for (guint64 i = 0; i < s->n_points; i++)
    {
      g_autofree char *id = g_strdup_printf ("%0*" G_GUINT64_FORMAT, width, i);
      point_values (s, i, vals);
      append_row (s, id, vals, tsv);
    }
  return write_file (out, "points.tsv", tsv->str, (gssize) tsv->len, error);
}

gboolean
app_sweep_expand (const char *spec_path, const char *outdir, guint64 *n_points, GError **error)
{
  g_return_val_if_fail (spec_path != NULL && outdir != NULL, FALSE);
  Spec s = { 0 };
  gboolean ok = spec_load (&s, spec_path, error);
  g_autofree char *out = g_canonicalize_filename (outdir, NULL);
  g_autofree char *header = ok ? tsv_header (&s) : NULL;
  /* Ids are as wide as the point count. */
  char count[24];
  int width = g_snprintf (count, sizeof count, "%" G_GUINT64_FORMAT, s.n_points);
  ok = ok && prepare_outdir (&s, out, error);
  for (guint64 i = 0; ok && i < s.n_points; i++)
    ok = write_point (&s, out, i, width, header, error);
  ok = ok && write_points_tsv (&s, out, width, header, error);
  if (ok && n_points != NULL)
    *n_points = s.n_points;
  spec_clear (&s);
  return ok;
}
