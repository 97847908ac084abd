/* bench_queue.c: the scheduler under the hold model.
 *
 * Models: a simulation with a steady population of pending events.  The
 * scheduler is filled with N events, then each event, when it runs,
 * schedules one successor an exponentially distributed delay later (mean
 * 1 us), so the population stays at N while the clock advances.  This
 * drives the path the simulator uses, sim_sched_at() and dispatch through
 * sim_sched_run(), and reports events per second of wall time.
 *
 * Delays come from a fixed-seed GRand, drawn before the clock starts into a
 * table that the handlers cycle through, so that the measurement is of the
 * scheduler and not of the random number generator, and every run is the
 * same sequence of operations.
 *
 * Usage: bench_queue [SCALE]   SCALE multiplies the operation counts
 * (default 1: about a second per case here; 0.01 for a quick check).
 * Output: CSV on stdout, one row per case.
 *
 * Layer: bench.  May include: GLib, sim/.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include <glib.h>

#include "sim/sched.h"

#define BENCH_SEED 42
#define BENCH_DELAYS (1u << 16) /* a power of two: the cycle is a mask */
#define BENCH_MEAN_DELAY_PS 1e6

typedef struct
{
  const SimTime *delays;
  guint next;
} BenchHold;

typedef struct
{
  const char *name;
  guint resident;
  guint64 ops; /* at SCALE 1 */
} BenchCase;

/* The handler: schedule one successor, keeping the population constant. */
static void
bench_hold_fire (SimSched *sched, gpointer data, guint64 arg)
{
  BenchHold *hold = data;
  SimTime delay = hold->delays[hold->next++ & (BENCH_DELAYS - 1)];
  sim_sched_at (sched, sim_sched_now (sched) + delay, bench_hold_fire, hold, arg);
}

static SimTime *
bench_delays_new (GRand *rand)
{
  SimTime *delays = g_new (SimTime, BENCH_DELAYS);
  for (guint k = 0; k < BENCH_DELAYS; k++)
    {
      /* 1 - u lies in (0, 1], so the logarithm is finite. */
      double u = 1.0 - g_rand_double (rand);
      delays[k] = (SimTime) llround (-log (u) * BENCH_MEAN_DELAY_PS);
    }
  return delays;
}

static double
bench_peak_rss_mb (void)
{
  struct rusage usage;
  if (getrusage (RUSAGE_SELF, &usage) != 0)
    return 0.0;
  return (double) usage.ru_maxrss / 1024.0; /* ru_maxrss is in KiB on Linux */
}

static void
bench_hold_run (const BenchCase *bc, double scale)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (BENCH_SEED);
  g_autofree SimTime *delays = bench_delays_new (rand);
  BenchHold hold = { delays, 0 };
  g_autoptr (SimSched) sched = sim_sched_new ();

  for (guint k = 0; k < bc->resident; k++)
    sim_sched_at (sched, delays[k & (BENCH_DELAYS - 1)], bench_hold_fire, &hold, 0);
  hold.next = bc->resident;
  /* One turnover of the population first, so that the timed part sees the
   * steady state of the hold model rather than the initial fill. */
  sim_sched_run (sched, SIM_TIME_MAX, bc->resident);

  guint64 ops = (guint64) MAX (1.0, (double) bc->ops * scale);
  gint64 start = g_get_monotonic_time ();
  SimRunStatus status = sim_sched_run (sched, SIM_TIME_MAX, ops);
  double wall_s = (double) (g_get_monotonic_time () - start) / 1e6;
  g_assert (status == SIM_RUN_EVENT_LIMIT);
  g_assert (sim_sched_pending (sched) == bc->resident);

  printf ("%s,%u,%" G_GUINT64_FORMAT ",%.6f,%.0f,%.1f\n", bc->name, bc->resident, ops, wall_s,
          wall_s > 0 ? (double) ops / wall_s : 0.0, bench_peak_rss_mb ());
  fflush (stdout);
}

int
main (int argc, char **argv)
{
  static const BenchCase cases[] = {
    { "queue_hold_1k", 1000, 20000000 },
    { "queue_hold_1m", 1000000, 7000000 },
  };
  double scale = 1.0;
  if (argc > 2 || (argc == 2 && (scale = g_ascii_strtod (argv[1], NULL)) <= 0.0))
    {
      fprintf (stderr, "usage: %s [SCALE]   (SCALE > 0 multiplies the operation counts)\n",
               argv[0]);
      return 2;
    }
  printf ("case,resident,events,wall_s,events_per_s,peak_rss_mb\n");
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++)
    bench_hold_run (&cases[k], scale);
  return 0;
}
