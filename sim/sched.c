/* sched.c: the discrete-event scheduler (see sched.h).
 *
 * Each queue entry carries its whole event (time, handler, data, arg), so
 * the run loop reads nothing but the queue.  What cancel needs lives beside
 * it: every queued event holds a slot in a table of generations, and its id
 * is the slot and the generation it was given.  When an event leaves the
 * queue its slot's generation is bumped, so a cancel of an event that
 * already ran finds a newer generation and returns FALSE; a cancel marks
 * the slot dead, so a second one returns FALSE too.  Generations start at 1
 * and slot 0 is never handed out, so no id is 0.  (A stale id could only be
 * mistaken for a live one after its slot had been reused 2^31 - 1 times.)
 *
 * Cancel is lazy and nearly free when unused: the run loop reads a popped
 * event's slot only while some cancelled event is still queued.  Otherwise
 * a slot costs the loop one store, the generation bump, and the slot goes
 * on a stack of free slots, with its next generation, for the next schedule
 * to reuse without reading the table.  With a million events queued that
 * one store misses the cache and, measured, halved the event rate, so it is
 * made SIM_SCHED_LAG pops late, after a prefetch.  A cancel first catches up
 * on the late stores, so it sees the table as if none were late.
 */
#include "sim/sched.h"

#include "sim/queue.h"

/* A slot's state: the generation of the id that names it now, with the
 * dead bit set once that event is cancelled.  Generations use the other 31
 * bits, and wrap from 2^31 - 1 to 1. */
#define SIM_SCHED_DEAD 0x80000000u
#define SIM_SCHED_GEN_MAX 0x7fffffffu
#define SIM_SCHED_MIN_SLOTS 64

/* How many pops late a generation bump is stored (a power of two): enough
 * for the prefetch to arrive from memory. */
#define SIM_SCHED_LAG 16

typedef struct
{
  guint32 slot;
  guint32 gen;
} SimSchedSlot;

struct _SimSched
{
  SimQueue *queue;
  SimTime now;
  guint64 events_run;
  gboolean stop;
  gboolean running;
  /* Hand-grown arrays rather than GArrays: the hot path indexes them
   * directly and they grow rarely.  The free stack never holds more than
   * every slot, so both share one capacity. */
  guint32 *state; /* per slot */
  SimSchedSlot *free_stack;
  guint32 n_slots;
  guint32 n_free;
  guint32 cap_slots;
  gsize n_cancelled; /* cancelled events still in the queue */
  /* Generation bumps not yet stored, as (slot, generation): a ring whose
   * oldest place is late_next.  Unused places name slot 0, the scratch. */
  SimSchedSlot late[SIM_SCHED_LAG];
  guint late_next;
};

SimSched *
sim_sched_new (void)
{
  SimSched *sched = g_new0 (SimSched, 1);
  sched->queue = sim_queue_new ();
  sched->cap_slots = SIM_SCHED_MIN_SLOTS;
  sched->state = g_new0 (guint32, sched->cap_slots);
  sched->free_stack = g_new (SimSchedSlot, sched->cap_slots);
  sched->n_slots = 1; /* slot 0 is the scratch */
  return sched;
}

void
sim_sched_free (SimSched *sched)
{
  if (sched == NULL)
    return;
  sim_queue_free (sched->queue);
  g_free (sched->state);
  g_free (sched->free_stack);
  g_free (sched);
}

SimTime
sim_sched_now (const SimSched *sched)
{
  g_return_val_if_fail (sched != NULL, 0);
  return sched->now;
}

/* A slot never used before, at generation 1. */
G_GNUC_NO_INLINE static SimSchedSlot
sched_slot_new (SimSched *sched)
{
  if (sched->n_slots == sched->cap_slots)
    {
      /* Slot numbers fill the id's low 32 bits. */
      g_assert (sched->cap_slots <= G_MAXUINT32 / 2);
      sched->cap_slots *= 2;
      sched->state = g_renew (guint32, sched->state, sched->cap_slots);
      sched->free_stack = g_renew (SimSchedSlot, sched->free_stack, sched->cap_slots);
    }
  SimSchedSlot fresh = { sched->n_slots++, 1 };
  sched->state[fresh.slot] = fresh.gen;
  return fresh;
}

/* Retire the slot of an event leaving the queue.  The new generation is
 * computed from the entry, not read from the table, and stored late; the
 * slot is free for reuse at once, as a new event's id carries its
 * generation and the late store agrees with it. */
static inline void
sched_slot_release (SimSched *sched, guint32 slot, guint32 gen)
{
  guint32 next = gen == SIM_SCHED_GEN_MAX ? 1 : gen + 1;
  SimSchedSlot *late = &sched->late[sched->late_next];
  sched->state[late->slot] = late->gen;
  __builtin_prefetch (&sched->state[slot], 1);
  *late = (SimSchedSlot){ slot, next };
  sched->late_next = (sched->late_next + 1) % SIM_SCHED_LAG;
  sched->free_stack[sched->n_free++] = (SimSchedSlot){ slot, next };
}

/* Store every late generation bump, oldest first. */
static void
sched_catch_up (SimSched *sched)
{
  for (guint k = 0; k < SIM_SCHED_LAG; k++)
    {
      SimSchedSlot *late = &sched->late[(sched->late_next + k) % SIM_SCHED_LAG];
      sched->state[late->slot] = late->gen;
      *late = (SimSchedSlot){ 0, 0 };
    }
}

/* sim_sched_at() without the checks, shared with sim_sched_after(). */
static inline SimEventId
sched_push (SimSched *sched, SimTime t, SimHandler fn, gpointer data, guint64 arg)
{
  SimSchedSlot s = G_LIKELY (sched->n_free > 0) ? sched->free_stack[--sched->n_free]
                                                : sched_slot_new (sched);
  SimQueueEntry *entry = sim_queue_push (sched->queue, t);
  entry->fn = fn;
  entry->data = data;
  entry->arg = arg;
  entry->slot = s.slot;
  entry->gen = s.gen;
  return ((SimEventId) s.gen << 32) | s.slot;
}

SimEventId
sim_sched_at (SimSched *sched, SimTime t, SimHandler fn, gpointer data, guint64 arg)
{
  g_return_val_if_fail (sched != NULL, 0);
  g_return_val_if_fail (fn != NULL, 0);
  g_return_val_if_fail (t >= sched->now, 0);
  return sched_push (sched, t, fn, data, arg);
}

SimEventId
sim_sched_after (SimSched *sched, SimTime delay, SimHandler fn, gpointer data, guint64 arg)
{
  g_return_val_if_fail (sched != NULL, 0);
  g_return_val_if_fail (fn != NULL, 0);
  return sched_push (sched, sim_time_add (sched->now, delay), fn, data, arg);
}

gboolean
sim_sched_cancel (SimSched *sched, SimEventId id)
{
  g_return_val_if_fail (sched != NULL, FALSE);
  guint32 slot = (guint32) id;
  guint32 gen = (guint32) (id >> 32);
  sched_catch_up (sched);
  /* A dead bit in the id itself would match a cancelled slot's state. */
  if (slot == 0 || slot >= sched->n_slots || gen == 0 || gen > SIM_SCHED_GEN_MAX
      || sched->state[slot] != gen)
    return FALSE;
  sched->state[slot] = gen | SIM_SCHED_DEAD;
  sched->n_cancelled++;
  return TRUE;
}

/* Live events in the queue. */
static inline gsize
sched_live (const SimSched *sched)
{
  return sim_queue_length (sched->queue) - sched->n_cancelled;
}

/* The next live event due by until, dropping cancelled ones on the way;
 * NULL if there is none.  The entry is the queue's: valid until the next
 * push or pop.  Popping raises the queue's floor to the entry's time, so
 * cancelled entries are only popped while a live one follows: the clock then
 * reaches the live one's time, or the limit, and stays at or above the
 * floor, as pushes at the current time need. */
static inline const SimQueueEntry *
sched_pop_live (SimSched *sched, SimTime until)
{
  for (;;)
    {
      if (G_UNLIKELY (sched->n_cancelled != 0) && sched_live (sched) == 0)
        return NULL;
      const SimQueueEntry *entry = sim_queue_pop_until (sched->queue, until);
      if (entry == NULL)
        return NULL;
      gboolean dead = G_UNLIKELY (sched->n_cancelled != 0)
                      && sched->state[entry->slot] == (entry->gen | SIM_SCHED_DEAD);
      sched_slot_release (sched, entry->slot, entry->gen);
      if (!dead)
        return entry;
      sched->n_cancelled--;
    }
}

/* Beyond what sched.h says: on SIM_RUN_TIME_LIMIT the clock is left at
 * until (when that is later than now), as the run has simulated up to it;
 * a budget spent exactly as the queue runs dry reports SIM_RUN_EMPTY. */
SimRunStatus
sim_sched_run (SimSched *sched, SimTime until, guint64 max_events)
{
  g_return_val_if_fail (sched != NULL, SIM_RUN_EMPTY);
  g_return_val_if_fail (!sched->running, SIM_RUN_STOPPED);
  sched->running = TRUE;
  sched->stop = FALSE;
  SimRunStatus status;
  guint64 ran = 0;
  for (;;)
    {
      /* A run that ends exactly on its budget, or with only cancelled
       * events left, reports the normal end. */
      if (max_events != 0 && ran == max_events)
        {
          status = sched_live (sched) == 0 ? SIM_RUN_EMPTY : SIM_RUN_EVENT_LIMIT;
          break;
        }
      const SimQueueEntry *entry = sched_pop_live (sched, until);
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
      /* Read before the handler runs: its pushes may move the entry. */
      SimHandler fn = entry->fn;
      gpointer data = entry->data;
      guint64 arg = entry->arg;
      sched->now = entry->time;
      sched->events_run++;
      ran++;
      fn (sched, data, arg);
      if (G_UNLIKELY (sched->stop))
        {
          status = SIM_RUN_STOPPED;
          break;
        }
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
