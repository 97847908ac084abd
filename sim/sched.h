/* sched.h: the discrete-event scheduler, the one service every layer shares.
 *
 * Models: a single simulated clock and a queue of pending events.  Events run
 * in (time, insertion sequence) order: two events at the same picosecond run
 * first-in first-out, so a run is bit-for-bit deterministic.  Handlers may
 * schedule and cancel events, including at the current time (never earlier).
 *
 * Ownership: the scheduler owns its queue; the data pointers handed to it are
 * borrowed and must outlive the events that carry them.  Scheduling allocates
 * nothing per event once the queue has grown to its working size.
 *
 * Layer: sim.  May include: GLib, sim/simtime.h.
 */
#ifndef ORRERY_SIM_SCHED_H
#define ORRERY_SIM_SCHED_H

#include <glib.h>

#include "sim/simtime.h"

typedef struct _SimSched SimSched;

/* An event handler: data and arg are what was passed when scheduling. */
typedef void (*SimHandler) (SimSched *sched, gpointer data, guint64 arg);

/* Identifies a scheduled event for sim_sched_cancel(); never 0. */
typedef guint64 SimEventId;

typedef enum
{
  SIM_RUN_EMPTY,       /* the queue ran dry: the normal end */
  SIM_RUN_TIME_LIMIT,  /* the next event lies beyond the time limit */
  SIM_RUN_EVENT_LIMIT, /* the event budget is spent */
  SIM_RUN_STOPPED      /* a handler called sim_sched_stop() */
} SimRunStatus;

/* A new scheduler at time 0 with an empty queue.  Free with sim_sched_free(). */
SimSched *sim_sched_new (void);
void sim_sched_free (SimSched *sched); /* accepts NULL */

/* The current simulated time: the time of the event being run. */
SimTime sim_sched_now (const SimSched *sched);
/* Where the scheduler keeps that time, for hot paths that read it without
 * a call: valid, and read-only, as long as the scheduler lives. */
const SimTime *sim_sched_clock (const SimSched *sched);

/* Schedule fn(sched, data, arg) at absolute time t >= now. */
void sim_sched_at (SimSched *sched, SimTime t, SimHandler fn, gpointer data, guint64 arg);

/* The scheduler's event queue, for the one hot path that pushes without a
 * call and without sim_sched_at's argument checks, which its caller
 * guarantees (sim_queue_push_trusted, sim/queue.h): a ring step's send,
 * where the checks were 4 % of the every-rank ring all-reduce's
 * instructions and then the call 6 of its 106 an event.  Valid as long as
 * the scheduler lives. */
typedef struct _SimQueue SimQueue;
SimQueue *sim_sched_queue (SimSched *sched);

/* Schedule fn(sched, data, arg) after delay picoseconds. */
void sim_sched_after (SimSched *sched, SimTime delay, SimHandler fn, gpointer data, guint64 arg);

/* As sim_sched_at, for an event that may be cancelled: returns its id.
 * Plain events skip the bookkeeping that cancelling needs. */
SimEventId sim_sched_at_cancellable (SimSched *sched, SimTime t, SimHandler fn, gpointer data,
                                     guint64 arg);

/* Run fn (sched, data) once every event at the current time has run: after
 * the last of them, before the clock moves on (or the run ends, or stops
 * at a time limit).  Not an event: it is not counted in events_run, and
 * what it schedules at the current time runs after it.  One hook at a
 * time: arming it again before it ran is a no-op with the same fn and
 * data, and an error with others.  For work that must see all of an
 * instant's requests before serving them (the shared ports, in a
 * canonical order: network/link_analytical.c). */
void sim_sched_at_instant_end (SimSched *sched, SimHandler fn, gpointer data);

/* Cancel a pending event.  Returns FALSE if it already ran or was cancelled.
 * Cancelled events are dropped lazily when they reach the front. */
gboolean sim_sched_cancel (SimSched *sched, SimEventId id);

/* Run events in order until the queue is empty, the next event lies after
 * `until` (SIM_TIME_MAX: no limit), `max_events` have run (0: no limit), or a
 * handler calls sim_sched_stop().  May be called again to continue.  On
 * SIM_RUN_TIME_LIMIT the clock is left at `until` (if later than now). */
SimRunStatus sim_sched_run (SimSched *sched, SimTime until, guint64 max_events);

/* Ask sim_sched_run() to return after the current handler. */
void sim_sched_stop (SimSched *sched);

/* Events run so far (cancelled ones not counted). */
guint64 sim_sched_events_run (const SimSched *sched);

/* Events waiting in the queue (cancelled ones may still be counted). */
gsize sim_sched_pending (const SimSched *sched);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimSched, sim_sched_free)

#endif /* ORRERY_SIM_SCHED_H */
