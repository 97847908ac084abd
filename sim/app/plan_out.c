/* plan_out.c: the planners' --out folder, checked before any simulation;
 * see plan_out.h. */
#include "sim/app/plan_out.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "sim/app/cmd_gen.h"
#include "sim/error.h"
#include "sim/out_file.h"

/* Whether DIR takes a new file: one is created and removed. */
static gboolean
takes_files (const char *dir, const char *first, GError **error)
{
  g_autofree char *name = g_strdup_printf (".plan-probe-%ld", (long) getpid ());
  g_autofree char *probe = g_build_filename (dir, name, NULL);
  int fd = g_open (probe, O_WRONLY | O_CREAT | O_EXCL, 0666);
  if (fd < 0)
    {
      int err = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--out: cannot create files in %s (%s): %s",
                   dir, first, g_strerror (err));
      return FALSE;
    }
  close (fd);
  g_unlink (probe);
  return TRUE;
}

/* Whether an output DIR/NAMES[i] is one of INS: ERROR names both. */
static gboolean
replaces_input (const char *dir, const char *const *names, guint n_names,
                const PlanOutInput *ins, guint n_ins, GError **error)
{
  for (guint i = 0; i < n_names; i++)
    {
      g_autofree char *out = g_build_filename (dir, names[i], NULL);
      for (guint k = 0; k < n_ins; k++)
        if (ins[k].path != NULL && sim_out_file_is (out, ins[k].path))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "--out %s: its %s is an input of the plan (%s %s): writing it would "
                         "destroy it; name another folder", dir, names[i], ins[k].option,
                         ins[k].path);
            return TRUE;
          }
    }
  return FALSE;
}

gboolean
plan_out_make (const char *dir, char **made, GError **error)
{
  g_return_val_if_fail (dir != NULL && made != NULL, FALSE);
  *made = NULL;
  if (*dir == '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--out: cannot create '': %s",
                   g_strerror (ENOENT));
      return FALSE;
    }
  if (g_file_test (dir, G_FILE_TEST_EXISTS) && !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--out: cannot create %s: a file of that name is there (--out names a "
                   "folder)", dir);
      return FALSE;
    }
  /* A file inside DIR, so that DIR itself is the folder made. */
  g_autofree char *inside = g_build_filename (dir, "plan.csv", NULL);
  return app_out_folder_make ("--out ", inside, made, error);
}

void
plan_out_unmake (const char *dir, const char *made)
{
  g_autofree char *inside = g_build_filename (dir, "plan.csv", NULL);
  app_out_folder_unmake (inside, made);
}

gboolean
plan_out_prepare (const char *dir, const char *const *names, guint n_names,
                  const PlanOutInput *ins, guint n_ins, GError **error)
{
  g_return_val_if_fail (dir != NULL && n_names > 0, FALSE);
  g_autofree char *made = NULL;
  if (!plan_out_make (dir, &made, error))
    return FALSE;
  gboolean ok = takes_files (dir, names[0], error)
                && !replaces_input (dir, names, n_names, ins, n_ins, error);
  plan_out_unmake (dir, made);
  return ok;
}

/* Whether the file at PATH is a regular file whose first bytes are
 * PREFIX (links not followed: a link is no planner's). */
static gboolean
starts_with (const char *path, const char *prefix)
{
  GStatBuf st;
  if (g_lstat (path, &st) != 0 || !S_ISREG (st.st_mode))
    return FALSE;
  gsize n = strlen (prefix);
  char head[64];
  g_return_val_if_fail (n <= sizeof head, FALSE);
  FILE *f = g_fopen (path, "rb");
  if (f == NULL)
    return FALSE;
  gboolean same = fread (head, 1, n, f) == n && memcmp (head, prefix, n) == 0;
  fclose (f);
  return same;
}

gboolean
plan_out_held_plan (const char *dir)
{
  g_return_val_if_fail (dir != NULL, FALSE);
  g_autofree char *path = g_build_filename (dir, "plan.csv", NULL);
  /* Both planners' CSV headers start so (cmd_plan.c, plan_dlrm.c). */
  return starts_with (path, "id,");
}

void
plan_out_remove_stale (const char *dir, gboolean wrote_txt, gboolean held_plan)
{
  g_return_if_fail (dir != NULL);
  /* Only beside an earlier plan's plan.csv: in any other folder a file
   * of these names is the user's (or an input of this plan). */
  if (!held_plan)
    return;
  /* scripts/plot --plan DIR/plan.csv: PREFIX DIR/plan (scripts/plot.d/plan.sh). */
  static const char *const stale[] = { "plan.txt", "plan-time-memory.png",
                                       "plan-time-memory.svg", "plan-time-memory.pdf",
                                       "plan-time-memory.dat" };
  for (guint i = wrote_txt ? 1 : 0; i < G_N_ELEMENTS (stale); i++)
    {
      g_autofree char *path = g_build_filename (dir, stale[i], NULL);
      /* plan.txt only as plan --dlrm writes it (plan_dlrm.c, write_plan). */
      if (i == 0 && !starts_with (path, "# orrery plan --dlrm: "))
        continue;
      if (g_file_test (path, G_FILE_TEST_IS_SYMLINK | G_FILE_TEST_EXISTS) && g_unlink (path) == 0)
        printf ("removed %s (an earlier plan's, stale beside the new plan.csv)\n", path);
    }
}

void
plan_out_device_note (const char *device, const char *sets, const WlParams *wl)
{
  g_return_if_fail (sets != NULL && wl != NULL);
  if (device == NULL || g_ascii_strcasecmp (device, wl->device) == 0
      || wl->compute == WL_COMPUTE_REPLAY)
    return;
  printf ("note: --device %s sets %s only; the compute is priced by the cluster's "
          "<compute>: %s%s\n", device, sets,
          wl->compute == WL_COMPUTE_KERNEL ? "kernels priced as " : "its peak and bandwidth",
          wl->compute != WL_COMPUTE_KERNEL ? "" : wl->device[0] ? wl->device : "its device");
}

void
plan_out_replay_note (const WlDevice *dev, const WlParams *wl)
{
  g_return_if_fail (dev != NULL && wl != NULL);
  if (wl->compute != WL_COMPUTE_REPLAY)
    return;
  printf ("note: the cluster's <compute> replays the traces' durations, which gen gives as "
          "the roofline of %s (bf16 %.1f TFLOP/s x matrix efficiency %.2f, memory %.2f TB/s x "
          "%.2f), not as kernels run (a config with <compute model=\"kernel\"> prices them)\n",
          dev->name, dev->peak_flops[WL_DTYPE_BF16] / 1e12, dev->matrix_eff,
          dev->mem_bw_Bps / 1e12, dev->memory_eff);
}
