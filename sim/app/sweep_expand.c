/* sweep_expand.c: expanding a checked sweep spec into point directories
 * (app_sweep_expand, sweep.h): per point its config.xml (the base cluster
 * XML with the point's values set in place), its `orrery run` and `orrery
 * gen` arguments and its params.tsv; then points.tsv.  Every path written
 * is absolute.
 *
 * Layer: sim/app.  May include: sim, sim/app, GLib, libxml2.
 */
#include "sim/app/sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

#include "sim/app/sweep_spec.h"
#include "sim/app/xml_lib.h"
#include "sim/error.h"

/* The `orrery run` options that APP_SWEEP_T_NETWORK .. APP_SWEEP_T_GROUPS stand for. */
static const char *const astra_option[] = { "--astra-network", "--astra-system",
                                            "--astra-memory", "--comm-groups" };

/* tmpl with every {name} replaced by the point's value. */
static char *
substitute (const AppSweepSpec *s, const char *tmpl, const char *const *vals)
{
  GString *out = g_string_new (NULL);
  gsize pos = 0, start = 0, done = 0;
  while (app_sweep_next_placeholder (tmpl, &pos, &start))
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
append_words (const AppSweepSpec *s, int t, const char *const *vals, gboolean skip_gen, GString *out)
{
  g_autofree char *text = substitute (s, s->tmpl[t], vals);
  g_auto (GStrv) words = g_strsplit_set (text, APP_SWEEP_BLANKS, -1);
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
point_path (const AppSweepSpec *s, int t, const char *const *vals)
{
  g_autofree char *path = substitute (s, s->tmpl[t], vals);
  return app_sweep_spec_resolve (s, path);
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

/* An attribute naming a file relative to the base config, on element c:
 * written absolute, since the point's config.xml lives elsewhere.  (The
 * attribute node stays, so a parameter targeting it keeps its target.) */
static void
absolute_path_attr (const AppSweepSpec *s, xmlNode *c, const char *attr)
{
  xmlChar *file = xmlGetProp (c, (const xmlChar *) attr);
  if (file != NULL && !g_path_is_absolute ((const char *) file))
    {
      g_autofree char *dir = g_path_get_dirname (s->config);
      g_autofree char *path = g_canonicalize_filename ((const char *) file, dir);
      xmlSetProp (c, (const xmlChar *) attr, (const xmlChar *) path);
    }
  xmlFree (file);
}

/* The files the base config names: <compute kernel-table> and
 * <system><algorithm msccl>. */
static void
absolute_paths (const AppSweepSpec *s)
{
  xmlNode *root = xmlDocGetRootElement (s->base);
  for (xmlNode *c = root != NULL ? root->children : NULL; c != NULL; c = c->next)
    {
      if (c->type != XML_ELEMENT_NODE)
        continue;
      if (xmlStrEqual (c->name, (const xmlChar *) "compute"))
        absolute_path_attr (s, c, "kernel-table");
      if (!xmlStrEqual (c->name, (const xmlChar *) "system"))
        continue;
      for (xmlNode *a = c->children; a != NULL; a = a->next)
        if (a->type == XML_ELEMENT_NODE && xmlStrEqual (a->name, (const xmlChar *) "algorithm"))
          absolute_path_attr (s, a, "msccl");
    }
}

/* The base config with this point's values, as tmp/config.xml. */
static gboolean
write_config (const AppSweepSpec *s, const char *const *vals, const char *tmp, GError **error)
{
  for (guint i = 0; i < s->params->len; i++)
    for (guint k = 0; k < app_sweep_spec_param (s, i)->targets->len; k++)
      set_value (g_ptr_array_index (app_sweep_spec_param (s, i)->targets, k), vals[i]);
  absolute_paths (s);
  xmlChar *mem = NULL;
  int size = 0;
  xmlDocDumpMemory (s->base, &mem, &size);
  gboolean ok = app_sweep_write_file (tmp, "config.xml", (const char *) mem, size, error);
  xmlFree (mem);
  return ok;
}

/* The `orrery run` arguments of a point whose directory is `dir`. */
static char *
run_args (const AppSweepSpec *s, const char *const *vals, const char *dir)
{
  GString *a = g_string_new (NULL);
  if (s->base != NULL)
    g_string_append_printf (a, "--config\n%s/config.xml\n", dir);
  for (int t = APP_SWEEP_T_NETWORK; t <= APP_SWEEP_T_GROUPS; t++)
    if (s->tmpl[t] != NULL)
      {
        g_autofree char *path = point_path (s, t, vals);
        g_string_append_printf (a, "%s\n%s\n", astra_option[t - APP_SWEEP_T_NETWORK], path);
      }
  if (s->tmpl[APP_SWEEP_T_PREFIX] != NULL)
    {
      g_autofree char *prefix = point_path (s, APP_SWEEP_T_PREFIX, vals);
      g_string_append_printf (a, "--workload\n%s\n", prefix);
    }
  else
    g_string_append_printf (a, "--workload\n%s/workload/w\n", dir);
  /* The sweep's own outputs before the spec's options: a last option of
   * those that takes a value can then swallow nothing of the sweep's. */
  g_string_append_printf (a, "--report\n%s/report.json\n--stats\n%s/stats.csv\n--quiet\n", dir,
                          dir);
  if (s->tmpl[APP_SWEEP_T_OPTIONS] != NULL)
    append_words (s, APP_SWEEP_T_OPTIONS, vals, FALSE, a);
  return g_string_free (a, FALSE);
}

/* Every point's run options and generate line, placeholders filled, set
 * nothing the sweep sets (the templates were checked as written; a value
 * such as "--config=other.xml" is only seen here).  Before anything is
 * written, so that a refused spec leaves no points. */
static gboolean
check_points (const AppSweepSpec *s, int width, GError **error)
{
  static const int templates[] = { APP_SWEEP_T_OPTIONS, APP_SWEEP_T_GENERATE };
  g_autofree const char **vals = g_new (const char *, s->params->len + 1);
  for (guint k = 0; k < G_N_ELEMENTS (templates); k++)
    {
      const char *tmpl = s->tmpl[templates[k]];
      gsize pos = 0, start = 0;
      if (tmpl == NULL || !app_sweep_next_placeholder (tmpl, &pos, &start))
        continue;
      for (guint64 i = 0; i < s->n_points; i++)
        {
          app_sweep_point_values (s, i, vals);
          g_autofree char *text = substitute (s, tmpl, vals);
          g_autofree char *id = g_strdup_printf ("%0*" G_GUINT64_FORMAT, width, i);
          if (!app_sweep_spec_check_words (s, templates[k], text, id, error))
            return FALSE;
        }
    }
  return TRUE;
}

/* "point\t<names>\n": the header of points.tsv and params.tsv. */
static char *
tsv_header (const AppSweepSpec *s)
{
  GString *h = g_string_new ("point");
  for (guint i = 0; i < s->params->len; i++)
    g_string_append_printf (h, "\t%s", app_sweep_spec_param (s, i)->name);
  g_string_append_c (h, '\n');
  return g_string_free (h, FALSE);
}

static void
append_row (const AppSweepSpec *s, const char *id, const char *const *vals, GString *out)
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

/* Where the points go: the sweep directory (absolute), the width of the
 * zero-padded ids, and the header of the .tsv files. */
typedef struct
{
  const char *out;
  int width;
  const char *header;
} PointsDir;

/* Write points/ID (through a temporary directory renamed into place, so
 * that a point directory is always complete) unless it exists. */
static gboolean
write_point (const AppSweepSpec *s, const PointsDir *pd, guint64 index, GError **error)
{
  const char *out = pd->out;
  g_autofree char *id = g_strdup_printf ("%0*" G_GUINT64_FORMAT, pd->width, index);
  g_autofree char *dir = g_build_filename (out, "points", id, NULL);
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autofree char *tmp_name = g_strdup_printf (".%s.tmp", id);
  g_autofree char *tmp = g_build_filename (out, "points", tmp_name, NULL);
  remove_tree (tmp);
  if (g_mkdir (tmp, 0777) != 0)
    return io_fail (tmp, "create the directory", error);
  g_autofree const char **vals = g_new (const char *, s->params->len + 1);
  app_sweep_point_values (s, index, vals);
  g_autofree char *args = run_args (s, vals, dir);
  g_autoptr (GString) params = g_string_new (pd->header);
  append_row (s, id, vals, params);
  if ((s->base != NULL && !write_config (s, vals, tmp, error))
      || !app_sweep_write_file (tmp, "args", args, -1, error)
      || !app_sweep_write_file (tmp, "params.tsv", params->str, (gssize) params->len, error))
    return FALSE;
  if (s->tmpl[APP_SWEEP_T_GENERATE] != NULL)
    {
      g_autoptr (GString) gen = g_string_new (NULL);
      append_words (s, APP_SWEEP_T_GENERATE, vals, TRUE, gen);
      g_string_append_printf (gen, "--out\n%s/workload/w\n", dir);
      if (!app_sweep_write_file (tmp, "gen-args", gen->str, (gssize) gen->len, error))
        return FALSE;
    }
  if (g_rename (tmp, dir) != 0)
    return io_fail (dir, "rename the point's directory into place", error);
  return TRUE;
}

/* A fresh directory gets spec.xml; one expanded before must hold the same
 * spec. */
static gboolean
prepare_outdir (const AppSweepSpec *s, const char *out, GError **error)
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
  return old != NULL || app_sweep_write_file (out, "spec.xml", s->text, (gssize) s->len, error);
}

/* points.tsv last: its presence says that every point directory is there. */
static gboolean
write_points_tsv (const AppSweepSpec *s, const PointsDir *pd, GError **error)
{
  const char *out = pd->out;
  g_autofree char *path = g_build_filename (out, "points.tsv", NULL);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  g_autoptr (GString) tsv = g_string_new (pd->header);
  g_autofree const char **vals = g_new (const char *, s->params->len + 1);
  for (guint64 i = 0; i < s->n_points; i++)
    {
      g_autofree char *id = g_strdup_printf ("%0*" G_GUINT64_FORMAT, pd->width, i);
      app_sweep_point_values (s, i, vals);
      append_row (s, id, vals, tsv);
    }
  return app_sweep_write_file (out, "points.tsv", tsv->str, (gssize) tsv->len, error);
}

gboolean
app_sweep_expand (const char *spec_path, const char *outdir, guint64 *n_points, GError **error)
{
  g_return_val_if_fail (spec_path != NULL && outdir != NULL, FALSE);
  AppSweepSpec s = { 0 };
  gboolean ok = app_sweep_spec_load (&s, spec_path, error);
  g_autofree char *out = g_canonicalize_filename (outdir, NULL);
  g_autofree char *header = ok ? tsv_header (&s) : NULL;
  /* Ids are as wide as the point count. */
  char count[24];
  PointsDir pd = { out, g_snprintf (count, sizeof count, "%" G_GUINT64_FORMAT, s.n_points),
                   header };
  ok = ok && check_points (&s, pd.width, error) && prepare_outdir (&s, out, error);
  for (guint64 i = 0; ok && i < s.n_points; i++)
    ok = write_point (&s, &pd, i, error);
  ok = ok && write_points_tsv (&s, &pd, error);
  if (ok && n_points != NULL)
    *n_points = s.n_points;
  app_sweep_spec_clear (&s);
  return ok;
}
