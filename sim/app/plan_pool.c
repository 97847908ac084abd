/* plan_pool.c: the planners' worker processes and progress line; see
 * plan_pool.h. */
#include "sim/app/plan_pool.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/app/simulation.h"
#include "sim/units.h"

/* The worker processes of the batch in flight (the parent's), to pass a
 * signal on to: an interrupt from a terminal reaches them all, one sent to
 * the parent alone (kill, timeout) would not. */
static pid_t live_workers[PLAN_POOL_MAX_WORKERS];
static volatile sig_atomic_t n_live_workers;
/* plan_pool_defer_interrupts: whether SIGINT and SIGTERM are noted
 * (caught_signal) rather than fatal, and the first one noted. */
static volatile sig_atomic_t defer_interrupts, caught_signal;
/* While deferred, one job still forks a worker when the last batch took
 * at least this long per item (or none has run yet), so that an interrupt
 * stops a slow simulation at once; quicker batches run in this process,
 * where a fork (its page copies: about 40 ms per batch measured on 8
 * GPUs' quick candidates, doubling their search) would cost more than the
 * wait: at most 8 x 50 ms = 0.4 s. */
#define FORK_ONE_US 50000
static gint64 last_item_us = G_MAXINT64;

/* SIGINT, SIGTERM, SIGHUP, SIGPIPE: pass it on to the workers, then die
 * of the signal as without the handler; or, for SIGINT or SIGTERM while
 * deferred, note the first and return (the workers die of it, the
 * parent reaps them and ends the search). */
static void
on_fatal_signal (int sig)
{
  for (sig_atomic_t j = 0; j < n_live_workers; j++)
    kill (live_workers[j], sig);
  if (defer_interrupts && (sig == SIGINT || sig == SIGTERM))
    {
      /* Later ones too (timeout and kill -SIG -PGID send one to the
       * process and one to its group): the parent, which only waits for
       * its workers now, ends the search as soon as they are gone. */
      if (caught_signal == 0)
        caught_signal = sig;
      return;
    }
  signal (sig, SIG_DFL);
  raise (sig);
}

void
plan_pool_catch_signals (void)
{
  struct sigaction sa;
  memset (&sa, 0, sizeof sa);
  sa.sa_handler = on_fatal_signal;
  sigemptyset (&sa.sa_mask);
  const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    sigaction (sigs[i], &sa, NULL);
}

void
plan_pool_defer_interrupts (gboolean on)
{
  defer_interrupts = on;
  last_item_us = G_MAXINT64;
}

int
plan_pool_interrupted (void)
{
  return caught_signal;
}

/* A worker: run every W-th item from FIRST, writing one record each (its
 * index, then the encoder's bytes) to FD; never returns. */
static void G_GNUC_NORETURN
worker (const PlanPool *pool, gpointer *items, guint n, guint first, guint w, int fd)
{
  gsize size = sizeof (guint32) + pool->record_size;
  g_autofree char *rec = g_malloc0 (size);
  for (guint i = first; i < n; i += w)
    {
      /* This process's copy of the item: the parent's is untouched. */
      pool->run (pool->data, items[i]);
      guint32 index = i;
      memcpy (rec, &index, sizeof index);
      pool->encode (items[i], rec + sizeof index);
      if (write (fd, rec, size) != (ssize_t) size)
        _exit (2);
    }
  _exit (0);
}

/* Read FD's records into the items until end of file, marking GOT. */
static void
gather (const PlanPool *pool, int fd, gpointer *items, guint n, gboolean *got)
{
  gsize size = sizeof (guint32) + pool->record_size;
  g_autofree char *rec = g_malloc0 (size);
  for (;;)
    {
      gsize have = 0;
      while (have < size)
        {
          ssize_t r = read (fd, rec + have, size - have);
          if (r <= 0 && !(r < 0 && errno == EINTR))
            return;
          have += r > 0 ? (gsize) r : 0;
        }
      guint32 index;
      memcpy (&index, rec, sizeof index);
      if (index < n)
        {
          pool->decode (items[index], rec + sizeof index);
          got[index] = TRUE;
        }
    }
}

void
plan_pool_run (const PlanPool *pool, gpointer *items, guint n, guint jobs)
{
  guint w = MIN (MIN (MAX (jobs, 1u), n), PLAN_POOL_MAX_WORKERS), started = 0;
  if (w == 0 || caught_signal != 0)
    return;
  int fds[PLAN_POOL_MAX_WORKERS];
  pid_t pids[PLAN_POOL_MAX_WORKERS];
  g_autofree gboolean *got = g_new0 (gboolean, n);
  gboolean fork_one = defer_interrupts && last_item_us >= FORK_ONE_US;
  gint64 t0 = g_get_monotonic_time ();
  fflush (stdout);
  fflush (stderr);
  /* While interrupts are deferred even one job may run in a worker: a
   * simulation in this process could not be stopped short. */
  for (guint j = 0; j < w && (w > 1 || fork_one) && caught_signal == 0; j++, started++)
    {
      int p[2];
      if (pipe (p) != 0)
        break;
      pids[j] = fork ();
      if (pids[j] == 0)
        {
          n_live_workers = 0;
          defer_interrupts = 0;
          close (p[0]);
          worker (pool, items, n, j, w, p[1]);
        }
      close (p[1]);
      if (pids[j] < 0)
        {
          close (p[0]);
          break;
        }
      fds[j] = p[0];
      live_workers[j] = pids[j];
      n_live_workers = (sig_atomic_t) (j + 1);
      if (caught_signal != 0) /* noted before this worker was listed */
        kill (pids[j], caught_signal);
    }
  for (guint j = 0; j < started; j++)
    {
      gather (pool, fds[j], items, n, got);
      close (fds[j]);
      while (waitpid (pids[j], NULL, 0) < 0 && errno == EINTR)
        ;
    }
  n_live_workers = 0;
  for (guint i = 0; i < n && caught_signal == 0; i++)
    if (!got[i] && i % w >= started)
      pool->run (pool->data, items[i]); /* its worker never started (or one job) */
    else if (!got[i])
      pool->fail (items[i], "its worker process died");
  last_item_us = (g_get_monotonic_time () - t0) / n;
}

gboolean
plan_pool_progress_after (gint64 *us, GError **error)
{
  *us = -1;
  return !isatty (STDERR_FILENO) || app_progress_after (us, error);
}

void
plan_pool_progress (guint done, guint n, guint64 best_ps, gint64 elapsed, gint64 after,
                    gboolean *drawn)
{
  if (elapsed < after || done == 0)
    return;
  double left_s = (double) elapsed / 1e6 / done * (n - MIN (done, n));
  g_autofree char *left = left_s < 60 ? g_strdup_printf ("%.0f s", ceil (left_s))
                          : left_s < 3600 ? g_strdup_printf ("%.0f min", ceil (left_s / 60))
                                          : g_strdup_printf ("%.1f h", left_s / 3600);
  g_autofree char *best = best_ps == G_MAXUINT64 ? g_strdup ("none yet")
                                                 : sim_units_format_time (best_ps);
  fprintf (stderr, "\r\033[Korrery plan: %u of %u candidates, best %s, at most about %s left",
           done, n, best, left);
  fflush (stderr);
  *drawn = TRUE;
}
