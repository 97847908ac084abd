/* simtime.h: simulated time, an unsigned 64-bit count of picoseconds.
 *
 * Models: the simulation clock.  There is no floating-point clock anywhere in
 * orrery: every duration is rounded to whole picoseconds where it is computed,
 * so that event order, and therefore every output, is exactly reproducible.
 * 2^64 ps is about 213 days of simulated time.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_SIMTIME_H
#define ORRERY_SIM_SIMTIME_H

#include <glib.h>

typedef guint64 SimTime;

#define SIM_TIME_MAX G_MAXUINT64
#define SIM_PS_PER_NS G_GUINT64_CONSTANT(1000)
#define SIM_PS_PER_US G_GUINT64_CONSTANT(1000000)
#define SIM_PS_PER_MS G_GUINT64_CONSTANT(1000000000)
#define SIM_PS_PER_S G_GUINT64_CONSTANT(1000000000000)

/* The conversions saturate at SIM_TIME_MAX rather than wrap. */
static inline SimTime
sim_time_from_ns (guint64 ns)
{
  return ns > SIM_TIME_MAX / SIM_PS_PER_NS ? SIM_TIME_MAX : ns * SIM_PS_PER_NS;
}

static inline SimTime
sim_time_from_us (guint64 us)
{
  return us > SIM_TIME_MAX / SIM_PS_PER_US ? SIM_TIME_MAX : us * SIM_PS_PER_US;
}

/* Whole nanoseconds of a double-precision count, truncated (ASTRA-sim's
 * rounding); NaN and negatives are 0, and a count past the clock saturates
 * instead of being converted out of range (undefined behaviour). */
static inline SimTime
sim_time_from_ns_truncated (double ns)
{
  if (!(ns > 0.0))
    return 0;
  const guint64 max_ns = SIM_TIME_MAX / SIM_PS_PER_NS; /* whole ns the clock holds */
  if (ns >= (double) max_ns)
    return SIM_TIME_MAX;
  return sim_time_from_ns ((guint64) ns);
}

/* Whole nanoseconds, rounded down. */
static inline guint64
sim_time_to_ns (SimTime t)
{
  return t / SIM_PS_PER_NS;
}

static inline double
sim_time_to_seconds (SimTime t)
{
  return (double) t / (double) SIM_PS_PER_S;
}

/* Saturating addition: a clock that would wrap stays at SIM_TIME_MAX, which
 * callers treat as "never" and which the limit checks report. */
static inline SimTime
sim_time_add (SimTime a, SimTime b)
{
  return (a > SIM_TIME_MAX - b) ? SIM_TIME_MAX : a + b;
}

/* Saturating product of a duration and a count (hops x latency, passes x a
 * memory pass), for the same reason. */
static inline SimTime
sim_time_mul (SimTime a, guint64 n)
{
  return (n != 0 && a > SIM_TIME_MAX / n) ? SIM_TIME_MAX : a * n;
}

#endif /* ORRERY_SIM_SIMTIME_H */
