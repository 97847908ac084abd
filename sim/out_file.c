/* out_file.c: output files written atomically when they are regular
 * files, in place otherwise; see out_file.h. */
#include "sim/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The kernel's limit on links followed in one lookup. */
#define OUT_FILE_MAX_LINKS 40

struct _SimOutFile
{
  char *target;        /* the name replaced at commit, or written in place */
  char *tmp;           /* TARGET.XXXXXX, renamed to TARGET; NULL in place */
  int fd;
  gboolean no_sync; /* sim_out_file_skip_sync */
  int slot;         /* its place in the open temporary files, or -1 */
};

/* ---- temporary files removed on SIGINT, SIGTERM and SIGHUP --------------------------
 * A run interrupted while it writes its outputs (a 1,024-GPU timeline takes
 * seconds) left its NAME.XXXXXX files behind.  The temporary files open are
 * kept in fixed slots (a path copied, a flag set after it) that a signal
 * handler can read; the handler removes them, puts back the action that was
 * there before it and raises the signal again, so the process dies of it
 * (or the planner's handler runs) as without it.  A signal ignored when the
 * first file opened (a background job's SIGINT) stays ignored.  More files
 * open at once than slots: the rest are not removed on a signal, as
 * before. */
#define OUT_FILE_SLOTS 16
#define OUT_FILE_SLOT_PATH 4096
static const int out_signals[] = { SIGINT, SIGTERM, SIGHUP };
static char slot_path[OUT_FILE_SLOTS][OUT_FILE_SLOT_PATH];
static volatile sig_atomic_t slot_used[OUT_FILE_SLOTS];
static struct sigaction old_action[G_N_ELEMENTS (out_signals)];
static volatile sig_atomic_t handler_on[G_N_ELEMENTS (out_signals)];
static GMutex slot_lock;

static void
on_signal (int sig)
{
  /* The action put back may be a handler that returns (the planner's, which
   * notes an interrupt): the code interrupted must then find errno as it
   * left it, not an unlink's ENOENT. */
  int saved_errno = errno;
  for (int i = 0; i < OUT_FILE_SLOTS; i++)
    if (slot_used[i])
      unlink (slot_path[i]);
  for (guint k = 0; k < G_N_ELEMENTS (out_signals); k++)
    if (out_signals[k] == sig && handler_on[k])
      {
        handler_on[k] = 0;
        sigaction (sig, &old_action[k], NULL);
      }
  raise (sig);
  /* cppcheck-suppress unreachableCode ; raise returns where the action is a
   * handler that returns, or once the signal is unblocked */
  errno = saved_errno;
}

/* Install on_signal where it is not (slot_lock held). */
static void
catch_signals (void)
{
  for (guint k = 0; k < G_N_ELEMENTS (out_signals); k++)
    {
      struct sigaction now;
      if (handler_on[k] || sigaction (out_signals[k], NULL, &now) != 0
          || now.sa_handler == SIG_IGN)
        continue;
      struct sigaction act = { 0 };
      act.sa_handler = on_signal;
      sigemptyset (&act.sa_mask);
      if (sigaction (out_signals[k], &act, &old_action[k]) == 0)
        handler_on[k] = 1;
    }
}

/* TMP's slot, or -1 when every slot is taken or the path is too long. */
static int
slot_take (const char *tmp)
{
  if (strlen (tmp) >= OUT_FILE_SLOT_PATH)
    return -1;
  g_mutex_lock (&slot_lock);
  int slot = -1;
  for (int i = 0; i < OUT_FILE_SLOTS && slot < 0; i++)
    if (!slot_used[i])
      slot = i;
  if (slot >= 0)
    {
      g_strlcpy (slot_path[slot], tmp, OUT_FILE_SLOT_PATH);
      slot_used[slot] = 1;
      catch_signals ();
    }
  g_mutex_unlock (&slot_lock);
  return slot;
}

static void
slot_give (int slot)
{
  if (slot < 0)
    return;
  g_mutex_lock (&slot_lock);
  slot_used[slot] = 0;
  g_mutex_unlock (&slot_lock);
}

void
sim_out_file_error (GError **error, int err, const char *format, const char *file)
{
  g_autofree char *display = g_filename_display_name (file);
  g_autofree char *what = g_strdup_printf (format, display);
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "%s: %s", what,
               g_strerror (err));
}

/* PATH with its chain of symbolic links followed: the name a rename must
 * replace for the link to survive.  NULL when the chain enters /proc (a
 * /proc/self/fd link names a file this process has open, to be written
 * through, not replaced). */
static char *
follow_links (const char *path)
{
  g_autofree char *p = g_strdup (path);
  for (int i = 0; i < OUT_FILE_MAX_LINKS; i++)
    {
      GStatBuf st;
      if (g_str_has_prefix (p, "/proc/"))
        return NULL;
      if (g_lstat (p, &st) != 0 || !S_ISLNK (st.st_mode))
        break;
      g_autofree char *to = g_file_read_link (p, NULL);
      if (to == NULL)
        break;
      g_autofree char *dir = g_path_get_dirname (p);
      char *next = g_path_is_absolute (to) ? g_strdup (to) : g_build_filename (dir, to, NULL);
      g_free (p);
      p = next;
    }
  return g_steal_pointer (&p);
}

/* The name to replace atomically for PATH, or NULL when PATH is written in
 * place: it exists and is neither a regular file nor a directory, or the
 * links lead somewhere other than the file it names. */
static char *
atomic_target (const char *path)
{
  GStatBuf st;
  gboolean exists = g_stat (path, &st) == 0;
  if (exists && !S_ISREG (st.st_mode) && !S_ISDIR (st.st_mode))
    return NULL;
  g_autofree char *target = follow_links (path);
  if (target == NULL)
    return NULL;
  GStatBuf at;
  if (exists && (g_stat (target, &at) != 0 || at.st_dev != st.st_dev || at.st_ino != st.st_ino))
    return NULL;
  return g_steal_pointer (&target);
}

/* Create the temporary file TMP (TARGET.XXXXXX, the Xs replaced): its
 * descriptor, or -1 with ERROR set.  The message names the template, not
 * the random name, so that it is the same from run to run. */
static int
make_temp (char *tmp, const char *target, GError **error)
{
  errno = 0;
  int fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0666);
  if (fd < 0)
    {
      int err = errno;
      g_autofree char *dir = g_path_get_dirname (target);
      g_autofree char *templ = g_strdup_printf ("%s.XXXXXX", target);
      if (err == ENOENT && !g_file_test (dir, G_FILE_TEST_IS_DIR))
        {
          /* The usual cause, said plainly: a folder to make first. */
          g_autofree char *display = g_filename_display_name (dir);
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
                       "the folder %s does not exist", display);
        }
      else
        sim_out_file_error (error, err, "Failed to create file “%s”", templ);
    }
  return fd;
}

SimOutFile *
sim_out_file_open (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *target = atomic_target (path);
  g_autofree char *tmp = NULL;
  int fd;
  errno = 0;
  if (target == NULL)
    {
      fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
      if (fd < 0)
        sim_out_file_error (error, errno, "Failed to open file “%s”", path);
    }
  else
    {
      tmp = g_strdup_printf ("%s.XXXXXX", target);
      fd = make_temp (tmp, target, error);
    }
  if (fd < 0)
    return NULL;
  SimOutFile *out = g_new0 (SimOutFile, 1);
  out->target = target != NULL ? g_steal_pointer (&target) : g_strdup (path);
  out->tmp = g_steal_pointer (&tmp);
  out->fd = fd;
  out->slot = out->tmp != NULL ? slot_take (out->tmp) : -1;
  return out;
}

int
sim_out_file_fd (const SimOutFile *out)
{
  g_return_val_if_fail (out != NULL, -1);
  return out->fd;
}

void
sim_out_file_skip_sync (SimOutFile *out)
{
  g_return_if_fail (out != NULL);
  out->no_sync = TRUE;
}

const char *
sim_out_file_name (const SimOutFile *out)
{
  g_return_val_if_fail (out != NULL, NULL);
  return out->target;
}

/* Whether the old TARGET must be synced over: it exists with contents (or
 * cannot be looked at), so a crash after the rename must not leave it
 * empty.  g_file_set_contents' rule (G_FILE_SET_CONTENTS_ONLY_EXISTING). */
static gboolean
needs_fsync (const char *target)
{
  GStatBuf st;
  errno = 0;
  if (g_lstat (target, &st) == 0)
    return st.st_size > 0;
  return errno != ENOENT;
}

static void
out_free (SimOutFile *out)
{
  slot_give (out->slot);
  g_free (out->target);
  g_free (out->tmp);
  g_free (out);
}

gboolean
sim_out_file_commit (SimOutFile *out, GError **error)
{
  g_return_val_if_fail (out != NULL, FALSE);
  GError *local = NULL;
  const char *name = out->tmp != NULL ? out->tmp : out->target;
  if (out->tmp != NULL && !out->no_sync && needs_fsync (out->target) && fsync (out->fd) != 0)
    sim_out_file_error (&local, errno, "Failed to write file “%s”: fsync() failed", name);
  if (close (out->fd) != 0 && local == NULL)
    sim_out_file_error (&local, errno, "Failed to close file “%s”", name);
  if (local == NULL && out->tmp != NULL && g_rename (out->tmp, out->target) != 0)
    {
      int err = errno;
      g_autofree char *from = g_filename_display_name (out->tmp);
      g_autofree char *to = g_filename_display_name (out->target);
      g_set_error (&local, G_FILE_ERROR, g_file_error_from_errno (err),
                   "Failed to rename file “%s” to “%s”: g_rename() failed: %s", from, to,
                   g_strerror (err));
    }
  if (local != NULL && out->tmp != NULL)
    g_unlink (out->tmp);
  out_free (out);
  if (local == NULL)
    return TRUE;
  g_propagate_error (error, local);
  return FALSE;
}

void
sim_out_file_discard (SimOutFile *out)
{
  if (out == NULL)
    return;
  close (out->fd);
  if (out->tmp != NULL)
    g_unlink (out->tmp);
  out_free (out);
}

gboolean
sim_out_file_set_contents (const char *path, const char *text, gssize len, GError **error)
{
  g_return_val_if_fail (path != NULL && text != NULL, FALSE);
  SimOutFile *out = sim_out_file_open (path, error);
  if (out == NULL)
    return FALSE;
  gsize left = len < 0 ? strlen (text) : (gsize) len;
  while (left > 0)
    {
      ssize_t n = write (out->fd, text, left);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          sim_out_file_error (error, errno, "Failed to write file “%s”: write() failed",
                          out->target);
          sim_out_file_discard (out);
          return FALSE;
        }
      text += n;
      left -= (gsize) n;
    }
  return sim_out_file_commit (out, error);
}

gboolean
sim_out_file_check (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, FALSE);
  g_autofree char *target = atomic_target (path);
  errno = 0;
  if (target == NULL)
    {
      if (g_access (path, W_OK) == 0)
        return TRUE;
      sim_out_file_error (error, errno, "Failed to open file “%s”", path);
      return FALSE;
    }
  /* A folder would fail only at the rename, after the work: say so now. */
  if (g_file_test (target, G_FILE_TEST_IS_DIR))
    {
      g_autofree char *display = g_filename_display_name (target);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR,
                   "%s is a folder: name a file in it", display);
      return FALSE;
    }
  g_autofree char *tmp = g_strdup_printf ("%s.XXXXXX", target);
  int fd = make_temp (tmp, target, error);
  if (fd < 0)
    return FALSE;
  close (fd);
  g_unlink (tmp);
  return TRUE;
}

char *
sim_out_file_identity (const char *path)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *target = atomic_target (path);
  if (target == NULL)
    return NULL;
  g_autofree char *dir = g_path_get_dirname (target);
  g_autofree char *base = g_path_get_basename (target);
  char *real = realpath (dir, NULL);
  if (real == NULL)
    return NULL;
  char *id = g_build_filename (real, base, NULL);
  free (real);
  return id;
}

gboolean
sim_out_file_is (const char *out, const char *in)
{
  g_return_val_if_fail (out != NULL && in != NULL, FALSE);
  GStatBuf o, i;
  return g_stat (out, &o) == 0 && S_ISREG (o.st_mode) && g_stat (in, &i) == 0
         && o.st_dev == i.st_dev && o.st_ino == i.st_ino;
}

/* PATH with its folder resolved (sim_out_file_identity), or, when the
 * folder does not exist yet, PATH made absolute and tidied. */
static char *
resolved_name (const char *path)
{
  char *id = sim_out_file_identity (path);
  return id != NULL ? id : g_canonicalize_filename (path, NULL);
}

gboolean
sim_out_file_names_set (const char *out, const char *prefix)
{
  g_return_val_if_fail (out != NULL && prefix != NULL, FALSE);
  g_autofree char *id = resolved_name (out);
  g_autofree char *stem = g_strdup_printf ("%s.", prefix);
  g_autofree char *head = resolved_name (stem);
  if (!g_str_has_prefix (id, head))
    return FALSE;
  const char *p = id + strlen (head);
  const char *digits = p;
  while (g_ascii_isdigit (*p))
    p++;
  return p > digits && (strcmp (p, ".et") == 0 || strcmp (p, ".json") == 0);
}

gboolean
sim_out_file_in_set (const char *out, const char *prefix)
{
  g_return_val_if_fail (out != NULL && prefix != NULL, FALSE);
  GStatBuf st;
  return g_stat (out, &st) == 0 && S_ISREG (st.st_mode) && sim_out_file_names_set (out, prefix);
}
