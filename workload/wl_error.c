/* wl_error.c: the workload error domain, and the check that a trace is a
 * file. */
#include "workload/wl_error.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

G_DEFINE_QUARK (orrery-workload-error-quark, wl_error)

/* What a file of MODE is, in words. */
static const char *
file_kind (mode_t mode)
{
  if (S_ISDIR (mode))
    return "a directory";
  if (S_ISCHR (mode))
    return "a character device";
  if (S_ISBLK (mode))
    return "a block device";
  if (S_ISFIFO (mode))
    return "a pipe (FIFO)";
  if (S_ISSOCK (mode))
    return "a socket";
  return "not a regular file";
}

gboolean
wl_file_check_regular (int fd, const char *path, GError **error)
{
  struct stat st;
  return wl_file_check_regular_stat (fd, path, &st, error);
}

gboolean
wl_file_check_regular_stat (int fd, const char *path, struct stat *st, GError **error)
{
  if (fstat (fd, st) != 0)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: %s", path, g_strerror (errsv));
      return FALSE;
    }
  if (S_ISREG (st->st_mode))
    return TRUE;
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: %s, not a trace file (a trace is a regular file, read more than once)",
               path, file_kind (st->st_mode));
  return FALSE;
}

gboolean
wl_path_check_regular (const char *path, GError **error)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    {
      int errsv = errno;
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: %s", path, g_strerror (errsv));
      return FALSE;
    }
  gboolean ok = wl_file_check_regular (fd, path, error);
  close (fd);
  return ok;
}
