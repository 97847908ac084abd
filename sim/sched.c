/* sched.c: the discrete-event scheduler (see sched.h).
 *
 * Each queue entry carries its whole event (time, handler, data, arg), 32
 * bytes, so the run loop reads nothing but the queue.  Most events are
 * never cancelled, and sim_sched_at() queues them as they are: cancel costs
 * them nothing.  An event queued by sim_sched_at_cancellable() holds a slot
 * of a side table with its handler, data and arg, and a generation; the
 * queue entry runs a trampoline whose arg is the slot and generation (the
 * id).  The trampoline frees the slot, bumping its generation so that a
 * stale id no longer matches, and runs the event unless it was cancelled;
 * a cancelled one takes back the count of events run that the run loop gave
 * it.  Generations start at 1 and slot 0 is never handed out, so no id is
 * 0.  (A stale id could only be mistaken for a live one after its slot had
 * been reused 2^31 - 1 times.)
 */
#include "sim/sched.h"

#include "sim/queue.h"

#define SIM_SCHED_GEN_MAX 0x7fffffffu
#define SIM_SCHED_MIN_SLOTS 64

/* A cancellable event's slot. */
typedef struct
{
  SimHandler fn;
  gpointer data;
  guint64 arg;
  guint32 gen;  /* of the id that names the slot now */
  guint32 dead; /* that event was cancelled */
} SimSchedSlot;

struct _SimSched
{
  SimQueue *queue;
  guint64 events_run;
  gboolean stop;
  gboolean running;
  /* While running: the events_run at which the loop leaves, the budget's
   * end (G_MAXUINT64, never reached, for none), or the count at a stop, so
   * that one test per event covers both. */
  guint64 limit;
  /* Hand-grown arrays: the free stack never holds more than every slot, so
   * both share one capacity. */
  SimSchedSlot *slots;
  guint32 *free_stack;
  guint32 n_slots;
  guint32 n_free;
  guint32 cap_slots;
  gsize n_cancelled; /* cancelled events still in the queue */
  /* Not beside events_run: the compiler would then pack the run loop's
   * two stores into one of a vector built from two registers, two
   * instructions more an event. */
  SimTime now;
  SimHandler instant_end;  /* sim_sched_at_instant_end's hook, or NULL */
  gpointer instant_end_data;
  /* n_cancelled == 0 && instant_end == NULL, kept up to date so that the
   * run loop tests one field for both (sched_note). */
  gboolean plain;
  /* While running: the events_run at which sched_run_front hands back to
   * the general loop: limit while plain, else the count when plain fell
   * (or the run stopped), so that its one test per event covers the
   * budget, a stop, a cancel and the instant's hook. */
  guint64 watch;
};

/* plain fell, or the run stopped: sched_run_front leaves at its next
 * test. */
static inline void
sched_unwatch (SimSched *sched)
{
  sched->watch = sched->events_run;
}

/* Set plain again after n_cancelled or instant_end changed. */
static inline void
sched_note (SimSched *sched)
{
  sched->plain = sched->n_cancelled == 0 && sched->instant_end == NULL;
  if (!sched->plain)
    sched_unwatch (sched);
}

SimSched *
sim_sched_new (void)
{
  SimSched *sched = g_new0 (SimSched, 1);
  sched->queue = sim_queue_new ();
  sched->cap_slots = SIM_SCHED_MIN_SLOTS;
  sched->slots = g_new0 (SimSchedSlot, sched->cap_slots);
  sched->free_stack = g_new (guint32, sched->cap_slots);
  sched->n_slots = 1; /* slot 0 is never used */
  sched->plain = TRUE;
  return sched;
}

void
sim_sched_free (SimSched *sched)
{
  if (sched == NULL)
    return;
  sim_queue_free (sched->queue);
  g_free (sched->slots);
  g_free (sched->free_stack);
  g_free (sched);
}

SimTime
sim_sched_now (const SimSched *sched)
{
  g_return_val_if_fail (sched != NULL, 0);
  return sched->now;
}

const SimTime *
sim_sched_clock (const SimSched *sched)
{
  g_return_val_if_fail (sched != NULL, NULL);
  return &sched->now;
}

/* The slow path is a tail call, so that the common path calls nothing;
 * inlined always, so that sim_sched_at's common path is a leaf (the
 * compiler kept it out of line, a call and a return on every event). */
G_ALWAYS_INLINE static inline void
sched_push (SimSched *sched, SimTime t, SimHandler fn, gpointer data, guint64 arg)
{
  sim_queue_push_trusted (sched->queue, t, fn, data, arg);
}

SimQueue *
sim_sched_queue (SimSched *sched)
{
  g_return_val_if_fail (sched != NULL, NULL);
  return sched->queue;
}

void
sim_sched_at (SimSched *sched, SimTime t, SimHandler fn, gpointer data, guint64 arg)
{
  g_return_if_fail (sched != NULL);
  g_return_if_fail (fn != NULL);
  g_return_if_fail (t >= sched->now);
  sched_push (sched, t, fn, data, arg);
}

void
sim_sched_after (SimSched *sched, SimTime delay, SimHandler fn, gpointer data, guint64 arg)
{
  g_return_if_fail (sched != NULL);
  g_return_if_fail (fn != NULL);
  sched_push (sched, sim_time_add (sched->now, delay), fn, data, arg);
}

/* The queue entry of a cancellable event: free its slot, then run it unless
 * it was cancelled. */
static void
sched_fire_cancellable (SimSched *sched, gpointer data, guint64 id)
{
  (void) data;
  SimSchedSlot *s = &sched->slots[(guint32) id];
  SimSchedSlot event = *s;
  s->gen = s->gen == SIM_SCHED_GEN_MAX ? 1 : s->gen + 1;
  s->dead = FALSE;
  sched->free_stack[sched->n_free++] = (guint32) id;
  if (event.dead)
    {
      sched->n_cancelled--;
      sched_note (sched);
      sched->events_run--; /* not run after all */
      return;
    }
  event.fn (sched, event.data, event.arg);
}

SimEventId
sim_sched_at_cancellable (SimSched *sched, SimTime t, SimHandler fn, gpointer data, guint64 arg)
{
  g_return_val_if_fail (sched != NULL, 0);
  g_return_val_if_fail (fn != NULL, 0);
  g_return_val_if_fail (t >= sched->now, 0);
  guint32 slot;
  if (sched->n_free > 0)
    slot = sched->free_stack[--sched->n_free];
  else
    {
      if (sched->n_slots == sched->cap_slots)
        {
          /* Slot numbers fill the id's low 32 bits. */
          g_assert (sched->cap_slots <= G_MAXUINT32 / 2);
          sched->cap_slots *= 2;
          sched->slots = g_renew (SimSchedSlot, sched->slots, sched->cap_slots);
          sched->free_stack = g_renew (guint32, sched->free_stack, sched->cap_slots);
        }
      slot = sched->n_slots++;
      sched->slots[slot].gen = 1;
    }
  SimSchedSlot *s = &sched->slots[slot];
  s->fn = fn;
  s->data = data;
  s->arg = arg;
  s->dead = FALSE;
  SimEventId id = ((SimEventId) s->gen << 32) | slot;
  sched_push (sched, t, sched_fire_cancellable, NULL, id);
  return id;
}

void
sim_sched_at_instant_end (SimSched *sched, SimHandler fn, gpointer data)
{
  g_return_if_fail (sched != NULL);
  g_return_if_fail (fn != NULL);
  g_return_if_fail (sched->instant_end == NULL
                    || (sched->instant_end == fn && sched->instant_end_data == data));
  sched->instant_end = fn;
  sched->instant_end_data = data;
  sched->plain = FALSE;
  sched_unwatch (sched);
}

gboolean
sim_sched_cancel (SimSched *sched, SimEventId id)
{
  g_return_val_if_fail (sched != NULL, FALSE);
  guint32 slot = (guint32) id;
  guint32 gen = (guint32) (id >> 32);
  if (slot == 0 || slot >= sched->n_slots || gen == 0 || sched->slots[slot].gen != gen
      || sched->slots[slot].dead)
    return FALSE;
  sched->slots[slot].dead = TRUE;
  sched->n_cancelled++;
  sched->plain = FALSE;
  sched_unwatch (sched);
  return TRUE;
}

/* Live events in the queue. */
static inline gsize
sched_live (const SimSched *sched)
{
  return sim_queue_length (sched->queue) - sched->n_cancelled;
}

/* The next event due by until, or NULL.  The entry is the queue's: valid
 * until the next push or pop.  With only cancelled events left the queue
 * counts as empty, so that the clock does not move to their times. */
static inline const SimQueueEntry *
sched_pop (SimSched *sched, SimTime until)
{
  if (G_UNLIKELY (sched->n_cancelled != 0) && sched_live (sched) == 0)
    return NULL;
  return sim_queue_pop_until (sched->queue, until);
}

/* Run the event of entry, popped: the clock moves to its time. */
G_ALWAYS_INLINE static inline void
sched_fire (SimSched *sched, const SimQueueEntry *entry)
{
  /* Read before the handler runs: its pushes may move the entry. */
  SimHandler fn = entry->fn;
  gpointer data = entry->data;
  guint64 arg = entry->arg;
  sched->now = entry->time;
  sched->events_run++;
  fn (sched, data, arg);
}

/* Run events from the queue's front while it holds the next one, plain
 * holds and events_run has not reached limit: the general loop's
 * iteration in sim_sched_run, for its common case, with one test an event
 * where it has three (limit, plain, hook) and the queue in a register (3
 * and 1 of the every-rank ring all-reduce's 100 instructions an event).
 * Leaves with nothing popped that it did not run, for the general loop to
 * look at the run's state. */
static inline void
sched_run_front (SimSched *sched, SimQueue *queue, SimTime until)
{
  sched->watch = sched->plain ? sched->limit : sched->events_run;
  while (sched->events_run != sched->watch)
    {
      const SimQueueEntry *entry = sim_queue_pop_until (queue, until);
      if (entry == NULL)
        return;
      sched_fire (sched, entry);
    }
}

/* Beyond what sched.h says: on SIM_RUN_TIME_LIMIT the clock is left at
 * until (when that is later than now), as the run has simulated up to it;
 * a budget spent exactly as the queue runs dry reports SIM_RUN_EMPTY.  The
 * budget is counted on events_run itself, which a cancelled event's
 * trampoline takes back, so the loop keeps no count of its own. */
SimRunStatus
sim_sched_run (SimSched *sched, SimTime until, guint64 max_events)
{
  g_return_val_if_fail (sched != NULL, SIM_RUN_EMPTY);
  g_return_val_if_fail (!sched->running, SIM_RUN_STOPPED);
  sched->running = TRUE;
  sched->stop = FALSE;
  /* The events_run at which the budget is spent; G_MAXUINT64, never
   * reached, for none.  sim_sched_stop() lowers it to the events run. */
  guint64 budget = max_events == 0 || max_events > G_MAXUINT64 - sched->events_run
                     ? G_MAXUINT64
                     : sched->events_run + max_events;
  sched->limit = budget;
  SimQueue *queue = sched->queue;
  SimRunStatus status;
  for (;;)
    {
      sched_run_front (sched, queue, until);
      /* A handler stopped the run, or the budget is spent.  A run that
       * ends exactly on its budget, or with only cancelled events left,
       * reports the normal end. */
      if (G_UNLIKELY (sched->events_run == sched->limit))
        {
          if (sched->stop)
            status = SIM_RUN_STOPPED;
          else
            status = sched_live (sched) == 0 && sched->instant_end == NULL ? SIM_RUN_EMPTY
                                                                           : SIM_RUN_EVENT_LIMIT;
          break;
        }
      /* With the instant's hook armed, only events at now may run before
       * it; with neither it nor cancelled events, the queue's front is the
       * next event. */
      gboolean hook = FALSE;
      const SimQueueEntry *entry;
      if (sched->plain)
        entry = sim_queue_pop_until (queue, until);
      else
        {
          hook = sched->instant_end != NULL;
          entry = sched_pop (sched, hook ? MIN (until, sched->now) : until);
        }
      if (G_UNLIKELY (hook) && entry == NULL)
        {
          SimHandler fn = sched->instant_end;
          sched->instant_end = NULL;
          sched_note (sched);
          fn (sched, sched->instant_end_data, 0);
          continue;
        }
      if (entry == NULL)
        {
          if (sched_live (sched) == 0)
            status = SIM_RUN_EMPTY;
          else
            {
              /* The clock moves to the limit: the queue may have moved past
               * now, dropping cancelled events before the limit. */
              sched->now = MAX (sched->now, until);
              status = SIM_RUN_TIME_LIMIT;
            }
          break;
        }
      sched_fire (sched, entry);
    }
  sched->stop = FALSE;
  sched->running = FALSE;
  return status;
}

void
sim_sched_stop (SimSched *sched)
{
  g_return_if_fail (sched != NULL);
  sched->stop = TRUE;
  sched->limit = sched->events_run; /* the loop's next test leaves */
  sched_unwatch (sched);
}

guint64
sim_sched_events_run (const SimSched *sched)
{
  g_return_val_if_fail (sched != NULL, 0);
  return sched->events_run;
}

gsize
sim_sched_pending (const SimSched *sched)
{
  g_return_val_if_fail (sched != NULL, 0);
  return sched_live (sched);
}
