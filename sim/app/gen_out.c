/* gen_out.c: what `orrery gen` and `orrery rescale` check of where they
 * write and of options that belong to another command (cmd_gen.h). */
#include "sim/app/cmd_gen.h"

#include <errno.h>
#include <string.h>

#include "sim/error.h"

/* Make the folder PREFIX's files go into (`--out runs/llama/x`: runs/llama)
 * when it does not exist, once the options have passed every check. */
gboolean
app_gen_out_folder (const char *prefix, GError **error)
{
  gsize n = strlen (prefix);
  if (n > 0 && G_IS_DIR_SEPARATOR (prefix[n - 1]))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--out %s: a prefix, not a folder (it would write hidden files %s.0.et ..): "
                   "name the files, e.g. --out %strace for %strace.0.et ..",
                   prefix, prefix, prefix, prefix);
      return FALSE;
    }
  g_autofree char *dir = g_path_get_dirname (prefix);
  if (g_file_test (dir, G_FILE_TEST_IS_DIR))
    return TRUE;
  if (g_file_test (dir, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--out %s: %s is not a folder", prefix,
                   dir);
      return FALSE;
    }
  if (g_mkdir_with_parents (dir, 0777) == 0)
    return TRUE;
  int errsv = errno;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--out %s: cannot make the folder %s: %s",
               prefix, dir, g_strerror (errsv));
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
