/* gen_out.c: what `orrery gen` and `orrery rescale` check of where they
 * write and of options that belong to another command (cmd_gen.h). */
#include "sim/app/cmd_gen.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <glib/gstdio.h>

#include "sim/error.h"
#include "sim/out_file.h"

/* A name that ends in '/' names a folder, not files. */
static gboolean
ends_in_slash (const char *path)
{
  gsize n = strlen (path);
  return n > 0 && G_IS_DIR_SEPARATOR (path[n - 1]);
}

gboolean
app_out_folder_make (const char *what, const char *path, char **made, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (path);
  if (made != NULL)
    *made = NULL;
  if (g_file_test (dir, G_FILE_TEST_IS_DIR))
    return TRUE;
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s%s: %s is not a folder", what, path,
                   dir);
      return FALSE;
    }
  /* The outermost folder that is missing: the one to remove on failure. */
  g_autofree char *top = g_strdup (dir);
  for (;;)
    {
      g_autofree char *up = g_path_get_dirname (top);
      if (g_file_test (up, G_FILE_TEST_EXISTS) || strcmp (up, top) == 0)
        break;
      g_free (top);
      top = g_steal_pointer (&up);
    }
  if (g_mkdir_with_parents (dir, 0777) == 0)
    {
      if (made != NULL)
        *made = g_steal_pointer (&top);
      return TRUE;
    }
  int errsv = errno;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s%s: cannot make the folder %s: %s", what,
               path, dir, g_strerror (errsv));
  return FALSE;
}

void
app_out_folder_unmake (const char *path, const char *made)
{
  if (made == NULL)
    return;
  g_autofree char *dir = g_path_get_dirname (path);
  while (g_rmdir (dir) == 0 && strcmp (dir, made) != 0)
    {
      char *up = g_path_get_dirname (dir);
      g_free (dir);
      dir = up;
    }
}

/* Make the folder PREFIX's files go into (`--out runs/llama/x`: runs/llama)
 * when it does not exist, once the options have passed every check. */
gboolean
app_gen_out_folder (const char *prefix, GError **error)
{
  if (prefix[0] == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--out '': an empty prefix (it would write hidden files .0.et ..): name "
                   "the files, e.g. --out trace for trace.0.et ..");
      return FALSE;
    }
  if (ends_in_slash (prefix))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--out %s: a prefix, not a folder (it would write hidden files %s.0.et ..): "
                   "name the files, e.g. --out %strace for %strace.0.et ..",
                   prefix, prefix, prefix, prefix);
      return FALSE;
    }
  return app_out_folder_make ("--out ", prefix, NULL, error);
}

/* ---- a trace set, written all or nothing ---------------------------------------- */

struct _AppGenSet
{
  char *prefix;
  guint32 ranks;
  char *made;    /* the outermost folder made for the set, or NULL */
  ino_t *before; /* PREFIX.k.et's inode before the write; 0: none */
};

/* PREFIX.K.et's inode when it is a regular file (not followed), else 0. */
static ino_t
regular_inode (const char *prefix, guint64 k)
{
  g_autofree char *path = g_strdup_printf ("%s.%" G_GUINT64_FORMAT ".et", prefix, k);
  GStatBuf st;
  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return 0;
  return st.st_ino;
}

AppGenSet *
app_gen_set_begin (const char *prefix, guint32 ranks, GError **error)
{
  if (prefix[0] == '\0' || ends_in_slash (prefix))
    {
      app_gen_out_folder (prefix, error);
      return NULL;
    }
  for (guint32 k = 0; k < ranks; k++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, k);
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "--out %s: %s is a folder: the set %s.0.et .. %s.%u.et cannot be "
                       "written (nothing was)", prefix, path, prefix, prefix, ranks - 1);
          return NULL;
        }
    }
  char *made = NULL;
  if (!app_out_folder_make ("--out ", prefix, &made, error))
    return NULL;
  AppGenSet *set = g_new0 (AppGenSet, 1);
  set->prefix = g_strdup (prefix);
  set->ranks = ranks;
  set->made = made;
  set->before = g_new0 (ino_t, ranks);
  for (guint32 k = 0; k < ranks; k++)
    set->before[k] = regular_inode (prefix, k);
  return set;
}

/* After a set written whole: remove PREFIX.K.et for K = ranks, ranks + 1,
 * ... while each is a regular file (what is left of an earlier, larger
 * set, which a run would read with this one), saying so on stderr. */
static void
remove_stale_tail (const char *cmd, const AppGenSet *set)
{
  guint64 k = set->ranks;
  for (; regular_inode (set->prefix, k) != 0; k++)
    {
      g_autofree char *path = g_strdup_printf ("%s.%" G_GUINT64_FORMAT ".et", set->prefix, k);
      if (g_unlink (path) != 0)
        break;
    }
  if (k == set->ranks)
    return;
  if (k == set->ranks + 1)
    fprintf (stderr, "orrery %s: removed %s.%u.et, left from an earlier set of %"
             G_GUINT64_FORMAT " ranks\n", cmd, set->prefix, set->ranks, k);
  else
    fprintf (stderr, "orrery %s: removed %s.%u.et .. %s.%" G_GUINT64_FORMAT ".et, left from "
             "an earlier set of %" G_GUINT64_FORMAT " ranks\n", cmd, set->prefix, set->ranks,
             set->prefix, k - 1, k);
}

gboolean
app_gen_set_end (const char *cmd, AppGenSet *set, gboolean ok)
{
  if (set == NULL)
    return ok;
  if (ok)
    remove_stale_tail (cmd, set);
  else
    {
      /* The files this write made: new inodes (each was renamed into place). */
      for (guint32 k = 0; k < set->ranks; k++)
        {
          ino_t now = regular_inode (set->prefix, k);
          if (now != 0 && now != set->before[k])
            {
              g_autofree char *path = g_strdup_printf ("%s.%u.et", set->prefix, k);
              g_unlink (path);
            }
        }
      g_autofree char *first = g_strdup_printf ("%s.0.et", set->prefix);
      app_out_folder_unmake (first, set->made);
    }
  g_free (set->prefix);
  g_free (set->made);
  g_free (set->before);
  g_free (set);
  return ok;
}

char *
app_gen_set_text (const char *prefix, guint32 ranks)
{
  if (ranks <= 1)
    return g_strdup_printf ("%s.0.et", prefix);
  return g_strdup_printf ("%s.0.et .. %s.%u.et", prefix, prefix, ranks - 1);
}

gboolean
app_out_file_name_ok (const char *path, GError **error)
{
  if (!ends_in_slash (path) && !g_file_test (path, G_FILE_TEST_IS_DIR))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: a folder, not a file: name the output "
               "file (e.g. %s%sNAME.json)", path, path, ends_in_slash (path) ? "" : "/");
  return FALSE;
}

/* Whether ARG is the long option NAME, alone or as NAME=VALUE. */
static gboolean
is_option (const char *arg, const char *name)
{
  gsize n = strlen (name);
  return strncmp (arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

gboolean
app_gen_no_cluster (int argc, char **argv, GError **error)
{
  static const char *const cluster[] = { "--config", "--gpus-per-node" };
  for (int i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    for (guint k = 0; k < G_N_ELEMENTS (cluster); k++)
      if (is_option (argv[i], cluster[k]))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: gen writes traces for any cluster and reads none; `orrery run "
                       "--config FILE` warns when a TP group spans nodes, and `orrery plan "
                       "--config FILE` keeps TP within a node",
                       cluster[k]);
          return FALSE;
        }
  return TRUE;
}

gboolean
app_gen_ranks_given (gint *ranks, GError **error)
{
  if (*ranks == APP_GEN_RANKS_ABSENT)
    *ranks = 0;
  else if (*ranks < 1)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--ranks %d: must be at least 1", *ranks);
      return FALSE;
    }
  return TRUE;
}

/* Whether GROUPS_OUT can be written once the set PREFIX is: checked before
 * any work (sim_out_file_check), so that a folder, or a folder that does
 * not exist, is said in the path given, and not at the write, after the
 * traces.  Its folder may be the one --out makes. */
static gboolean
groups_out_writable (const char *groups_out, const char *prefix, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (groups_out);
  g_autofree char *set_dir = g_path_get_dirname (prefix);
  if (!g_file_test (dir, G_FILE_TEST_EXISTS) && strcmp (dir, set_dir) == 0)
    return TRUE;
  g_autoptr (GError) why = NULL;
  if (sim_out_file_check (groups_out, &why))
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--comm-groups-out %s: %s", groups_out,
               why->message);
  return FALSE;
}

gboolean
app_gen_groups_out_check (const char *groups_out, const char *prefix, GError **error)
{
  if (groups_out == NULL || prefix == NULL)
    return TRUE;
  if (!sim_out_file_names_set (groups_out, prefix))
    return groups_out_writable (groups_out, prefix, error);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "--comm-groups-out %s names a trace of the set --out %s: name another file "
               "(e.g. %s.groups.json)", groups_out, prefix, prefix);
  return FALSE;
}
