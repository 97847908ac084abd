/* sweep_run.c: running one point of an expanded sweep, gathering the
 * points' reports into one CSV, and the `orrery sweep` command line
 * (sim/app/sweep.h).
 *
 * A point runs as child processes of this same program (`orrery gen`, then
 * `orrery run`), so that a crash or a leak in one point cannot take the
 * sweep with it, and so that each point's output is exactly what running its
 * args by hand prints.  Only `done` says a point succeeded: it is written
 * last and atomically, so an interrupted run leaves the point to be retried.
 */
#include "sim/app/sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "sim/app/cli.h"
#include "sim/out_file.h"
#include "sim/error.h"
#include "sim/nesting.h"
#include "workload/json_keys.h"

static gboolean
io_error (GError **error, GError *io)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s", io->message);
  g_error_free (io);
  return FALSE;
}

gboolean
app_sweep_write_file (const char *dir, const char *name, const char *text, gssize len,
                      GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  GError *io = NULL;
  return sim_out_file_set_contents (path, text, len, &io) || io_error (error, io);
}

/* A file's text with surrounding blanks removed, or NULL when unreadable. */
static char *
read_trimmed (const char *dir, const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return g_strstrip (text);
}

/* ------------------------------------------------------------------------ */
/* The points of a sweep directory                                          */

/* points.tsv split into rows of fields (header first). */
static GPtrArray *
read_points_tsv (const char *outdir, GError **error)
{
  g_autofree char *path = g_build_filename (outdir, "points.tsv", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (path, &text, NULL, NULL))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: not an expanded sweep (no points.tsv): run orrery sweep expand SPEC %s",
                   outdir, outdir);
      return NULL;
    }
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (**l != '\0')
      g_ptr_array_add (rows, g_strsplit (*l, "\t", -1));
  if (rows->len == 0 || g_strcmp0 (((char **) rows->pdata[0])[0], "point") != 0)
    {
      g_ptr_array_unref (rows);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:1: not a sweep's points.tsv", path);
      return NULL;
    }
  return rows;
}

char **
app_sweep_points (const char *outdir, GError **error)
{
  g_return_val_if_fail (outdir != NULL, NULL);
  g_autoptr (GPtrArray) rows = read_points_tsv (outdir, error);
  if (rows == NULL)
    return NULL;
  GPtrArray *ids = g_ptr_array_new ();
  for (guint i = 1; i < rows->len; i++)
    g_ptr_array_add (ids, g_strdup (((char **) rows->pdata[i])[0]));
  g_ptr_array_add (ids, NULL);
  return (char **) g_ptr_array_free (ids, FALSE);
}

/* ------------------------------------------------------------------------ */
/* Running a point                                                          */

char *
app_sweep_self_path (const char *argv0)
{
  char *self = g_file_read_link ("/proc/self/exe", NULL);
  if (self != NULL || argv0 == NULL)
    return self;
  if (strchr (argv0, '/') != NULL)
    return g_canonicalize_filename (argv0, NULL);
  return g_find_program_in_path (argv0);
}

/* The error line of a child's stderr: the last line that starts with
 * "orrery " (orrery's one-line errors; the schema validator's details may
 * follow it), else the last non-blank line, else NULL. */
static char *
error_line (const char *text)
{
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  const char *last = NULL;
  for (guint n = g_strv_length (lines); n-- > 0;)
    {
      g_strstrip (lines[n]);
      if (g_str_has_prefix (lines[n], "orrery "))
        return g_strdup (lines[n]);
      if (last == NULL && lines[n][0] != '\0')
        last = lines[n];
    }
  return g_strdup (last);
}

/* self followed by `first` and the lines of dir/name: NULL-terminated. */
static char **
child_argv (const char *self, const char *first, const char *dir, const char *name,
            GError **error)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autofree char *text = NULL;
  GError *io = NULL;
  if (!g_file_get_contents (path, &text, NULL, &io))
    {
      io_error (error, io);
      return NULL;
    }
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, g_strdup (self));
  g_ptr_array_add (argv, g_strdup (first));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l != NULL; l++)
    if (**l != '\0')
      g_ptr_array_add (argv, g_strdup (*l));
  g_ptr_array_add (argv, NULL);
  return (char **) g_ptr_array_free (argv, FALSE);
}

/* What a point's children printed, in order of the children. */
typedef struct
{
  GString *out;
  GString *err;
} ChildOutput;

/* Run argv in the point's directory DIR, appending its output to the
 * captured stdout and stderr; its exit status, 128 + the signal when
 * killed; -1 (error set) when it cannot start.  In DIR, because the
 * relative paths of <run-options> and <generate> (--timeline t.json,
 * --comm-groups-out g.json) are outputs: each point's then lands in its
 * own directory, whatever the scheduler's working directory, instead of
 * every point writing one file where `sweep run` happened to start. */
static int
spawn (char **argv, const char *dir, ChildOutput *captured, GError **error)
{
  g_autofree char *o = NULL, *e = NULL;
  int wait_status = 0;
  GError *spawn_error = NULL;
  if (!g_spawn_sync (dir, argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &o, &e, &wait_status,
                     &spawn_error))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", argv[0], spawn_error->message);
      g_error_free (spawn_error);
      return -1;
    }
  g_string_append (captured->out, o);
  g_string_append (captured->err, e);
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  return WIFSIGNALED (wait_status) ? 128 + WTERMSIG (wait_status) : 128;
}

/* The generator when there is one, then the simulation (timed). */
static gboolean
run_children (const char *dir, const char *self, ChildOutput *captured, AppSweepRun *run,
              GError **error)
{
  g_autofree char *gen_args = g_build_filename (dir, "gen-args", NULL);
  if (g_file_test (gen_args, G_FILE_TEST_EXISTS))
    {
      g_autofree char *wl = g_build_filename (dir, "workload", NULL);
      g_auto (GStrv) argv = child_argv (self, "gen", dir, "gen-args", error);
      if (argv == NULL)
        return FALSE;
      if (g_mkdir_with_parents (wl, 0777) != 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot create: %s", wl,
                       g_strerror (errno));
          return FALSE;
        }
      run->exit_status = spawn (argv, dir, captured, error);
      if (run->exit_status != 0)
        return run->exit_status > 0;
    }
  g_auto (GStrv) argv = child_argv (self, "run", dir, "args", error);
  if (argv == NULL)
    return FALSE;
  gint64 start = g_get_monotonic_time ();
  run->exit_status = spawn (argv, dir, captured, error);
  run->wall_s = (double) (g_get_monotonic_time () - start) / 1e6;
  return run->exit_status >= 0;
}

/* status, wall_s, stdout, stderr; then done, last and atomically. */
static gboolean
record_run (const char *dir, const ChildOutput *captured, AppSweepRun *run, GError **error)
{
  if (run->exit_status != 0)
    {
      run->message = error_line (captured->err->str);
      if (run->message == NULL)
        run->message = g_strdup_printf ("exit status %d, nothing on stderr", run->exit_status);
    }
  g_autofree char *status = g_strdup_printf ("%d\n%s%s", run->exit_status,
                                             run->message != NULL ? run->message : "",
                                             run->message != NULL ? "\n" : "");
  char wall[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (wall, sizeof wall, "%.6f", run->wall_s);
  g_autofree char *wall_line = g_strconcat (wall, "\n", NULL);
  const GString *out = captured->out, *err = captured->err;
  if (!app_sweep_write_file (dir, "stdout", out->str, (gssize) out->len, error)
      || !app_sweep_write_file (dir, "stderr", err->str, (gssize) err->len, error)
      || !app_sweep_write_file (dir, "wall_s", wall_line, -1, error)
      || !app_sweep_write_file (dir, "status", status, -1, error))
    return FALSE;
  if (run->exit_status != 0)
    return TRUE;
  g_autofree char *tmp = g_build_filename (dir, "done.tmp", NULL);
  g_autofree char *done = g_build_filename (dir, "done", NULL);
  if (!app_sweep_write_file (dir, "done.tmp", "", 0, error))
    return FALSE;
  if (g_rename (tmp, done) != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: cannot rename to %s: %s", tmp, done,
                   g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

static gboolean
valid_id (const char *id)
{
  if (*id == '\0')
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_isdigit (*p))
      return FALSE;
  return TRUE;
}

gboolean
app_sweep_run_point (const char *outdir, const char *id, const char *self, AppSweepRun *run,
                     GError **error)
{
  g_return_val_if_fail (outdir != NULL && id != NULL && self != NULL && run != NULL, FALSE);
  *run = (AppSweepRun) { 0 };
  g_autofree char *dir = g_build_filename (outdir, "points", id, NULL);
  g_autofree char *args = g_build_filename (dir, "args", NULL);
  if (!valid_id (id) || !g_file_test (args, G_FILE_TEST_IS_REGULAR))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: no point '%s' (orrery sweep points %s lists them)", outdir, id, outdir);
      return FALSE;
    }
  g_autofree char *done = g_build_filename (dir, "done", NULL);
  if (g_file_test (done, G_FILE_TEST_EXISTS))
    {
      run->done_already = TRUE;
      return TRUE;
    }
  /* Results of an earlier failed try must not pass for this one's. */
  static const char *const stale[] = { "status", "wall_s", "report.json", "stats.csv",
                                       "done.tmp" };
  for (guint i = 0; i < G_N_ELEMENTS (stale); i++)
    {
      g_autofree char *p = g_build_filename (dir, stale[i], NULL);
      g_remove (p);
    }
  g_autoptr (GString) out = g_string_new (NULL);
  g_autoptr (GString) err = g_string_new (NULL);
  ChildOutput captured = { out, err };
  return run_children (dir, self, &captured, run, error)
         && record_run (dir, &captured, run, error);
}

/* ------------------------------------------------------------------------ */
/* Gathering                                                                */

/* RFC 4180: fields with a comma, a quote or a line break are quoted, their
 * quotes doubled. */
static void
csv_field (GString *row, const char *field, gboolean first)
{
  if (!first)
    g_string_append_c (row, ',');
  if (field == NULL || strpbrk (field, ",\"\r\n") == NULL)
    {
      g_string_append (row, field != NULL ? field : "");
      return;
    }
  g_string_append_c (row, '"');
  for (const char *p = field; *p != '\0'; p++)
    {
      if (*p == '"')
        g_string_append_c (row, '"');
      g_string_append_c (row, *p);
    }
  g_string_append_c (row, '"');
}

/* The shortest decimal that reads back as v. */
static char *
shortest_double (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  for (int digits = 1; digits < 17; digits++)
    {
      char format[8];
      g_snprintf (format, sizeof format, "%%.%dg", digits);
      g_ascii_formatd (buf, sizeof buf, format, v);
      if (g_ascii_strtod (buf, NULL) == v)
        return g_strdup (buf);
    }
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

/* An integer member of o, or an error naming it. */
static gboolean
int_member (JsonObject *o, const char *name, const char *where, gint64 *out, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n != NULL && JSON_NODE_HOLDS_VALUE (n) && json_node_get_value_type (n) == G_TYPE_INT64)
    {
      *out = json_node_get_int (n);
      return TRUE;
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "no integer \"%s\" in %s", name, where);
  return FALSE;
}

static JsonArray *
array_member (JsonObject *o, const char *name, GError **error)
{
  JsonNode *n = json_object_get_member (o, name);
  if (n != NULL && JSON_NODE_HOLDS_ARRAY (n))
    return json_node_get_array (n);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "no array \"%s\"", name);
  return NULL;
}

/* The figures a row has after its status (report_figures). */
#define SWEEP_FIGURES 7

/* The memory columns of an ok row from the report's efficiency object
 * (native runs of traces that give their peak memory): the peak per GPU in
 * GiB and whether it fits the device, "yes" or "no"; empty where the
 * report does not say. */
static void
memory_figures (JsonObject *o, char **fields)
{
  JsonNode *en = json_object_get_member (o, "efficiency");
  JsonObject *e = en != NULL && JSON_NODE_HOLDS_OBJECT (en) ? json_node_get_object (en) : NULL;
  JsonNode *need = e != NULL ? json_object_get_member (e, "peak_memory_bytes") : NULL;
  JsonNode *fits = e != NULL ? json_object_get_member (e, "memory_fits") : NULL;
  fields[0] = need != NULL && JSON_NODE_HOLDS_VALUE (need)
                  ? g_strdup_printf ("%.2f", json_node_get_double (need) / 1073741824.0)
                  : g_strdup ("");
  fields[1] = g_strdup (fits != NULL && JSON_NODE_HOLDS_VALUE (fits)
                            ? (json_node_get_boolean (fits) ? "yes" : "no")
                            : "");
}

/* The seven figures of an ok row, from report.json.  The report's
 * ranks[].exposed_comm_ns holds the pipeline bubble where it gives one
 * (pipeline_bubble_ns, native runs): the columns split them as the
 * summary does, exposed communication less the bubble, and the bubble
 * (empty where the report gives none). */
static gboolean
report_figures (const char *dir, char **fields, GError **error)
{
  g_autofree char *path = g_build_filename (dir, "report.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (WlJsonKeys) keys = wl_json_keys_watch (parser);
  if (!sim_json_depth_check_file (path, error) || !json_parser_load_from_file (parser, path, error)
      || !wl_json_keys_check (keys, path, error))
    return FALSE;
  JsonNode *root = json_parser_get_root (parser);
  JsonObject *o = root != NULL && JSON_NODE_HOLDS_OBJECT (root) ? json_node_get_object (root)
                                                                  : NULL;
  JsonArray *ranks = o != NULL ? array_member (o, "ranks", error) : NULL;
  JsonArray *colls = ranks != NULL ? array_member (o, "collectives", error) : NULL;
  gint64 t = 0, compute = 0, exposed = 0, bubble = 0;
  gboolean bubbles = FALSE;
  if (colls == NULL || !int_member (o, "simulated_time_ns", "the report", &t, error))
    return FALSE;
  guint n = json_array_get_length (ranks);
  for (guint r = 0; r < n; r++)
    {
      JsonNode *rn = json_array_get_element (ranks, r);
      JsonObject *ro = JSON_NODE_HOLDS_OBJECT (rn) ? json_node_get_object (rn) : NULL;
      gint64 c = 0, e = 0, b = 0;
      if (ro == NULL || !int_member (ro, "compute_ns", "ranks[]", &c, error)
          || !int_member (ro, "exposed_comm_ns", "ranks[]", &e, error))
        return FALSE;
      if (json_object_has_member (ro, "pipeline_bubble_ns"))
        {
          if (!int_member (ro, "pipeline_bubble_ns", "ranks[]", &b, error))
            return FALSE;
          if (b > e)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                           "ranks[%u]: pipeline_bubble_ns is above exposed_comm_ns, which holds it",
                           r);
              return FALSE;
            }
          bubbles = TRUE;
        }
      compute += c;
      exposed += e - b;
      bubble += b;
    }
  double busbw = -1;
  for (guint i = 0; i < json_array_get_length (colls); i++)
    {
      JsonNode *cn = json_array_get_element (colls, i);
      JsonObject *co = JSON_NODE_HOLDS_OBJECT (cn) ? json_node_get_object (cn) : NULL;
      /* The column is the collectives' best busbw; exchange rows (p2p
       * all-to-alls) are not collectives' and keep out of it. */
      if (co != NULL && g_strcmp0 (json_object_get_string_member_with_default (co, "kind", ""),
                                   "exchange") == 0)
        continue;
      JsonNode *b = co != NULL ? json_object_get_member (co, "busbw_GBps") : NULL;
      if (b != NULL && JSON_NODE_HOLDS_VALUE (b))
        busbw = MAX (busbw, json_node_get_double (b));
    }
  fields[0] = g_strdup_printf ("%" G_GINT64_FORMAT, t);
  fields[1] = g_strdup_printf ("%" G_GINT64_FORMAT, n > 0 ? compute / (gint64) n : 0);
  fields[2] = g_strdup_printf ("%" G_GINT64_FORMAT, n > 0 ? exposed / (gint64) n : 0);
  fields[3] = bubbles ? g_strdup_printf ("%" G_GINT64_FORMAT, bubble / (gint64) n) : g_strdup ("");
  fields[4] = busbw >= 0 ? shortest_double (busbw) : g_strdup ("");
  memory_figures (o, fields + 5);
  return TRUE;
}

/* status and the columns after the params of one point. */
static void
gather_point (const char *outdir, const char *id, GString *row)
{
  g_autofree char *dir = g_build_filename (outdir, "points", id, NULL);
  g_autofree char *done = g_build_filename (dir, "done", NULL);
  g_autofree char *wall = read_trimmed (dir, "wall_s");
  g_autofree char *status = read_trimmed (dir, "status");
  char *figures[SWEEP_FIGURES] = { NULL };
  g_autofree char *message = NULL;
  const char *state = "pending";
  if (g_file_test (done, G_FILE_TEST_EXISTS))
    {
      GError *error = NULL;
      state = "ok";
      if (!report_figures (dir, figures, &error))
        {
          state = "failed";
          message = g_strdup_printf ("%s/report.json: %s", dir, error->message);
          g_error_free (error);
        }
    }
  else if (status != NULL && g_ascii_strtoll (status, NULL, 10) != 0)
    {
      const char *nl = strchr (status, '\n');
      state = "failed";
      message = g_strdup_printf ("exit %" G_GINT64_FORMAT ": %s", g_ascii_strtoll (status, NULL, 10),
                                 nl != NULL ? nl + 1 : "");
    }
  else
    g_clear_pointer (&wall, g_free);
  csv_field (row, state, FALSE);
  for (int i = 0; i < SWEEP_FIGURES; i++)
    {
      csv_field (row, figures[i], FALSE);
      g_free (figures[i]);
    }
  csv_field (row, wall, FALSE);
  csv_field (row, message, FALSE);
  g_string_append_c (row, '\n');
}

gboolean
app_sweep_gather (const char *outdir, char **csv_path, GError **error)
{
  g_return_val_if_fail (outdir != NULL, FALSE);
  g_autoptr (GPtrArray) rows = read_points_tsv (outdir, error);
  if (rows == NULL)
    return FALSE;
  g_autoptr (GString) csv = g_string_new (NULL);
  char **header = rows->pdata[0];
  for (char **f = header; *f != NULL; f++)
    csv_field (csv, *f, f == header);
  g_string_append (csv, ",status,simulated_time_ns,compute_ns,exposed_comm_ns,"
                        "pipeline_bubble_ns,busbw_GBps,peak_memory_GiB,fits_memory,wall_s,"
                        "error\n");
  for (guint i = 1; i < rows->len; i++)
    {
      char **row = rows->pdata[i];
      for (char **f = row; *f != NULL; f++)
        csv_field (csv, *f, f == row);
      gather_point (outdir, row[0], csv);
    }
  if (!app_sweep_write_file (outdir, "sweep.csv", csv->str, (gssize) csv->len, error))
    return FALSE;
  if (csv_path != NULL)
    *csv_path = g_build_filename (outdir, "sweep.csv", NULL);
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The command line                                                         */

static const char usage_text[]
    = "usage: orrery sweep expand SPEC OUTDIR   validate the spec, write a directory per point\n"
      "       orrery sweep points OUTDIR        print the point ids, one per line\n"
      "       orrery sweep run OUTDIR ID        run one point (nothing when it is done)\n"
      "       orrery sweep gather OUTDIR        write OUTDIR/sweep.csv and print its path\n\n"
      "SPEC is an XML sweep spec (configs/sweep.rng; examples in configs/sweeps/): a base\n"
      "<config> or <astra> inputs, a <workload> or a <generate> command, optional\n"
      "<run-options>, and a <grid> of params (value lists, ranges, zips) that edit the\n"
      "config through XPath selects or fill {name} placeholders.  scripts/sweep runs every\n"
      "point with GNU parallel or Slurm.  Re-expanding the same spec into OUTDIR adds only\n"
      "missing points; a point runs again only when it has no OUTDIR/points/ID/done.\n\n"
      "Exit status: 0 success, 1 usage or input error; run: a failed point's own status.\n";


static int
cmd_expand (const char *spec, const char *outdir)
{
  GError *error = NULL;
  guint64 n = 0;
  if (!app_sweep_expand (spec, outdir, &n, &error))
    return app_cli_fail ("sweep expand", error);
  printf ("%" G_GUINT64_FORMAT "\n", n);
  return 0;
}

static int
cmd_points (const char *outdir)
{
  GError *error = NULL;
  g_auto (GStrv) ids = app_sweep_points (outdir, &error);
  if (ids == NULL)
    return app_cli_fail ("sweep points", error);
  for (char **id = ids; *id != NULL; id++)
    printf ("%s\n", *id);
  return 0;
}

static int
cmd_run (const char *outdir, const char *id, const char *argv0)
{
  GError *error = NULL;
  g_autofree char *self = app_sweep_self_path (argv0);
  AppSweepRun run = { 0 };
  if (self == NULL)
    return app_cli_fail ("sweep run", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                     "cannot find this program's path (%s)", argv0));
  if (!app_sweep_run_point (outdir, id, self, &run, &error))
    return app_cli_fail ("sweep run", error);
  if (run.done_already)
    printf ("point %s: done already\n", id);
  else if (run.exit_status == 0)
    printf ("point %s: ok in %.3f s\n", id, run.wall_s);
  else
    fprintf (stderr, "orrery sweep run: %s/points/%s: exit status %d: %s\n", outdir, id,
             run.exit_status, run.message);
  g_free (run.message);
  return run.exit_status;
}

static int
cmd_gather (const char *outdir)
{
  GError *error = NULL;
  g_autofree char *path = NULL;
  if (!app_sweep_gather (outdir, &path, &error))
    return app_cli_fail ("sweep gather", error);
  printf ("%s\n", path);
  return 0;
}

int
app_sweep_main (int argc, char **argv, const char *argv0)
{
  const char *sub = argc >= 2 ? argv[1] : "";
  if (strcmp (sub, "--help") == 0 || strcmp (sub, "-h") == 0 || strcmp (sub, "help") == 0)
    {
      fputs (usage_text, stdout);
      return 0;
    }
  if (strcmp (sub, "expand") == 0 && argc == 4)
    return cmd_expand (argv[2], argv[3]);
  if (strcmp (sub, "points") == 0 && argc == 3)
    return cmd_points (argv[2]);
  if (strcmp (sub, "run") == 0 && argc == 4)
    return cmd_run (argv[2], argv[3], argv0);
  if (strcmp (sub, "gather") == 0 && argc == 3)
    return cmd_gather (argv[2]);
  fputs (usage_text, stderr);
  return SIM_ERROR_INPUT;
}
