/* test_out_file.c: an output's temporary file is removed when the process
 * dies of SIGINT, SIGTERM or SIGHUP while writing it (sim/out_file.c).
 *
 * Each case forks a child that opens an output, writes to it and raises
 * the signal before its commit, as a user's Ctrl-C during a large
 * --timeline does.  The child must die of that signal (the handler puts
 * back the action there was and raises it again), and the folder must hold
 * nothing: no output (it was never committed) and no NAME.XXXXXX file.
 */
#include <check.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/out_file.h"
#include "support/testutil.h"

/* The names in tu_scratch/out, sorted, separated by spaces. */
static char *
listing (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  ck_assert (d != NULL);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

/* What a child holds when it dies or exits, kept reachable from here so
 * that valgrind's memcheck (make check) does not count the open outputs of
 * a process killed by design as leaks. */
SimOutFile *child_files[2]; /* not static: stores to them must stay */
char *child_paths[2];
char *child_dir; /* the caller's folder, which the optimiser may hold in a register only */

/* In a child: open DIR/out.json and a second output, write, raise SIG. */
static void
child_dies_writing (const char *dir, int sig)
{
  /* Check's runner handles SIGINT and SIGTERM (killing its process
   * group) and its test processes inherit that: the child starts from the
   * default actions, as orrery does. */
  signal (sig, SIG_DFL);
  char *a = child_paths[0] = g_build_filename (dir, "out.json", NULL);
  char *b = child_paths[1] = g_build_filename (dir, "stats.csv", NULL);
  SimOutFile *fa = child_files[0] = sim_out_file_open (a, NULL);
  SimOutFile *fb = child_files[1] = sim_out_file_open (b, NULL);
  if (fa == NULL || fb == NULL || write (sim_out_file_fd (fa), "{", 1) != 1)
    _exit (3);
  raise (sig);
  _exit (4); /* not reached: the signal kills */
}

/* Run BODY (DIR, SIG) in a child over a fresh tu_scratch/out: its wait
 * status; *DIR the folder (the caller's to free). */
static int
in_child (void (*body) (const char *dir, int sig), int sig, char **dir)
{
  *dir = child_dir = tu_scratch_path ("out");
  ck_assert (g_mkdir_with_parents (*dir, 0755) == 0);
  pid_t pid = fork ();
  ck_assert (pid >= 0);
  if (pid == 0)
    body (*dir, sig);
  int status = 0;
  ck_assert (waitpid (pid, &status, 0) == pid);
  return status;
}

static void
dies_clean (int sig)
{
  g_autofree char *dir = NULL;
  int status = in_child (child_dies_writing, sig, &dir);
  ck_assert_msg (WIFSIGNALED (status) && WTERMSIG (status) == sig,
                 "the child did not die of signal %d (status %d)", sig, status);
  g_autofree char *left = listing (dir);
  ck_assert_msg (left[0] == '\0', "signal %d left: %s", sig, left);
}

START_TEST (test_sigint_removes_temporary)
{
  dies_clean (SIGINT);
}
END_TEST

START_TEST (test_sigterm_removes_temporary)
{
  dies_clean (SIGTERM);
}
END_TEST

START_TEST (test_sighup_removes_temporary)
{
  dies_clean (SIGHUP);
}
END_TEST

/* In a child: SIG ignored, open DIR/out.json, write, raise SIG, commit. */
static void
child_ignores (const char *dir, int sig)
{
  signal (sig, SIG_IGN);
  char *a = child_paths[0] = g_build_filename (dir, "out.json", NULL);
  SimOutFile *fa = child_files[0] = sim_out_file_open (a, NULL);
  if (fa == NULL || write (sim_out_file_fd (fa), "{}", 2) != 2)
    _exit (3);
  raise (sig);
  _exit (sim_out_file_commit (fa, NULL) ? 0 : 5);
}

/* A signal ignored (a background job's SIGINT) stays ignored: the child
 * lives on, and its committed output is in place. */
START_TEST (test_ignored_stays_ignored)
{
  g_autofree char *dir = NULL;
  int status = in_child (child_ignores, SIGINT, &dir);
  ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 0, "status %d", status);
  g_autofree char *left = listing (dir);
  ck_assert_str_eq (left, "out.json");
}
END_TEST

static volatile sig_atomic_t noted;

static void
note_signal (int sig)
{
  noted = sig;
}

/* In a child: a handler of its own for SIG, that returns; open DIR/out.json
 * (the output's handler goes in front of it) and remove its temporary file
 * behind the writer's back, so that the handler's unlink fails; then raise
 * SIG with errno EDOM: exits 0 when the own handler ran and errno is still
 * EDOM after it. */
static void
child_keeps_errno (const char *dir, int sig)
{
  signal (sig, note_signal);
  char *a = child_paths[0] = g_build_filename (dir, "out.json", NULL);
  SimOutFile *fa = child_files[0] = sim_out_file_open (a, NULL);
  if (fa == NULL)
    _exit (3);
  /* Closed before _exit, which runs no cleanup: memcheck counts an open
   * GDir then as lost. */
  GDir *d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "out.json."))
      {
        g_autofree char *tmp = g_build_filename (dir, name, NULL);
        g_unlink (tmp);
      }
  if (d != NULL)
    g_dir_close (d);
  errno = EDOM;
  raise (sig);
  int e = errno;
  _exit (noted != sig ? 4 : e != EDOM ? 5 : 0);
}

/* A handler must leave errno as it found it (async-signal safety): with a
 * handler behind it that returns, the process goes on from where the
 * signal came, and read ENOENT of the unlink there. */
START_TEST (test_errno_kept)
{
  g_autofree char *dir = NULL;
  int status = in_child (child_keeps_errno, SIGHUP, &dir);
  ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 0, "status %d", status);
}
END_TEST

static Suite *
out_file_suite (void)
{
  Suite *s = suite_create ("out_file");
  TCase *tc = tu_tcase (s, "signals", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_sigint_removes_temporary);
  tcase_add_test (tc, test_sigterm_removes_temporary);
  tcase_add_test (tc, test_sighup_removes_temporary);
  tcase_add_test (tc, test_ignored_stays_ignored);
  tcase_add_test (tc, test_errno_kept);
  return s;
}

int
main (void)
{
  return tu_run_suite (out_file_suite ());
}
