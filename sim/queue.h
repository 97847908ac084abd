/* queue.h: the scheduler's priority queue, a monotone radix heap whose
 * front is a sorted run.
 *
 * Models: a set of scheduled events popped in (time, insertion order)
 * order: events with equal times come out first-in first-out.  Times are
 * SimTime picoseconds.  An entry carries the whole event, handler included,
 * so that running it touches no memory but the queue's own; the queue looks
 * only at the time.
 *
 * The queue is monotone: a pushed time must not be below the time of the
 * last entry popped.  A discrete-event simulator never schedules into the
 * past, and this is what lets a radix heap replace a comparison heap.
 * Times are read as digits of SIM_QUEUE_RADIX_BITS bits, relative to a
 * floor that is at most every queued time: an entry's level is the highest
 * digit in which its time differs from the floor (0 when equal), and its
 * bucket is level * SIM_QUEUE_RADIX + its digit there.  A bucket covers a
 * range of times, the ones sharing its digits from its level up; bucket
 * order is time order, and a level-0 bucket holds one time.  Buckets are
 * arrays, and a push is usually an append.
 *
 * Pops read the front, one bucket sorted by (time, insertion order), from
 * a head.  The front owns its bucket's whole range, up to run_last: a push
 * in that range goes into the front at its place (an append, usually), so
 * every other bucket holds later times only and those below the front are
 * empty.  When the front runs out, the floor moves to the smallest time of
 * the first non-empty bucket, found through a bitmap, and that bucket
 * becomes the front, sorted (nothing to sort at level 0).  A run of many
 * times then costs one advance, where a pure radix heap advances once per
 * time.  The sort is a counting sort on (time - min) >> shift into about
 * one bin per entry, finished by an insertion sort, so a pass or two while
 * the times are spread, as a simulation's are.  A bucket that would sort
 * slowly, of more than SIM_QUEUE_RUN_MAX entries or with times bunched
 * into a few bins, is redistributed instead: its entries, which all differ
 * from the new floor only in lower digits, move to lower levels, and the
 * search starts again.  An insertion into the middle of the front that
 * would move more than SIM_QUEUE_INSERT_MAX entries spills the front
 * instead: its unspent entries move to lower levels in the same way, and
 * the floor's level-0 bucket becomes the front.  Each of these moves takes
 * an entry to a lower level, so an entry moves at most once per level,
 * through contiguous memory, where a heap misses the cache on every level
 * of every pop once the queue outgrows it.
 *
 * Ties are FIFO without a sequence number.  What each bucket keeps is that
 * entries with equal times lie in insertion order: appends carry newer
 * entries; a bucket is only ever emptied, in order, into empty buckets, or
 * sorted by a stable sort; and a push into the front goes after every
 * entry at its time.
 *
 * The structures are in this header only so that push and pop, the
 * scheduler's hot path, can be inlined into it; sim_queue_push() and
 * sim_queue_advance_slow() are their out-of-line halves.  Nothing but
 * sched.c uses them, but for sim_queue_push_trusted(), which the ring's
 * send (system/algo.h) and a chunk phase's end (sys_phase_finish,
 * system/coll.c) inline on the queue sim_sched_queue() lends.
 *
 * Ownership: the queue owns its buckets and the entries in them; pointers
 * to entries are lent until the next push or pop.  Nothing is allocated per
 * entry once the buckets have grown to their working size.  Not
 * thread-safe.
 *
 * Layer: sim (internal to sim/).  May include: GLib, sim/sched.h,
 * sim/simtime.h.
 */
#ifndef ORRERY_SIM_QUEUE_H
#define ORRERY_SIM_QUEUE_H

#include <glib.h>

#include "sim/sched.h"
#include "sim/simtime.h"

/* Builds under AddressSanitizer (make check-asan, the fuzz targets) check
 * what the release build trusts of sim_queue_push_trusted()'s caller: a
 * push below the last entry popped would be popped next, the clock going
 * back, and nothing else would tell.  The check costs a store a pop and a
 * test a push, which the release build does not pay. */
#if defined(__SANITIZE_ADDRESS__)
#define SIM_QUEUE_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SIM_QUEUE_CHECKED 1
#endif
#endif

/* One scheduled event: 32 bytes. */
typedef struct
{
  SimTime time;
  SimHandler fn;
  gpointer data;
  guint64 arg;
} SimQueueEntry;

/* Wider digits mean fewer moves but more buckets to keep in cache.  On the
 * hold model (bench_queue), 8 bits were the fastest of 4 to 8 with 10^6
 * events queued and as fast as any with 10^3; with the sorted front, 8
 * bits beat 6 and 7 by a third with 10^3 and tied with 10^6. */
#define SIM_QUEUE_RADIX_BITS 8
#define SIM_QUEUE_RADIX (1u << SIM_QUEUE_RADIX_BITS)
#define SIM_QUEUE_LEVELS (63 / SIM_QUEUE_RADIX_BITS + 1)
#define SIM_QUEUE_BUCKETS (SIM_QUEUE_LEVELS * SIM_QUEUE_RADIX)
#define SIM_QUEUE_WORDS ((SIM_QUEUE_BUCKETS + 63) / 64)
#define SIM_QUEUE_SPARES 16

/* The largest bucket sorted into the front as it is.  Sorting costs a few
 * passes over the bucket, where redistributing it costs a pass and then an
 * advance per distinct time; but a large front is more likely to take
 * insertions in the middle.  The hold model's buckets at the front hold
 * about 65 entries with 10^3 events queued (level 2) and 256 with 10^6
 * (level 1). */
#define SIM_QUEUE_RUN_MAX 1024
/* The most entries an insertion into the front shifts; beyond that the
 * front is spilled (see above), which bounds the cost of a push. */
#define SIM_QUEUE_INSERT_MAX 64

/* A growable array of entries.  Hand-rolled rather than a GArray because
 * the append is the hot path of every schedule: an inline length check and
 * a store, where g_array_append_val is a call and a memcpy. */
typedef struct
{
  SimQueueEntry *v;
  guint len;
  guint cap;
} SimQueueBucket;

struct _SimQueue
{
  SimTime floor;    /* <= every queued time, and in the front's range */
  SimTime run_last; /* the front's range ends here: pushes up to it join it */
  /* At or after the time of every unspent entry of the front, and at or
   * before run_last: a push from it to run_last is an append to the front
   * (sim_queue_try_push).  The last entry's time once pushed; left as it
   * is by pops, as a push is never before the last entry popped. */
  SimTime front_tail;
  guint front;      /* the bucket pops read, sorted from head on */
  /* &bucket[front], kept so that every push and pop reads one pointer
   * where the index cost a load, a shift and an add. */
  SimQueueBucket *front_bucket;
  guint head;       /* the front's next entry; those before it are spent */
  /* Entries outside the front.  The front's count is front_bucket->len -
   * head, kept by the pushes and pops that change those anyway, so the
   * common pop and push into the front count nothing (two read-modify-
   * writes of every ring step's four). */
  gsize others;
  /* Bit b of the bitmap is set while bucket b, other than the front, holds
   * entries (the front's bit is always clear, and no push but through the
   * front path reaches it), and bit w of summary while word w is non-zero,
   * so the first non-empty bucket is two count-trailing-zeros away.  An
   * append sets the bits only when the bucket was empty. */
  guint64 summary;
  guint64 nonempty[SIM_QUEUE_WORDS];
  SimQueueBucket bucket[SIM_QUEUE_BUCKETS];
  /* Where the front's sort writes; it then trades arrays with the bucket
   * sorted. */
  SimQueueEntry *scratch;
  guint scratch_cap;
  /* Large arrays of emptied buckets, kept for reuse (see queue.c). */
  SimQueueBucket spares[SIM_QUEUE_SPARES];
  guint n_spares;
  gsize spare_cap; /* their total capacity, in entries */
  /* SIM_QUEUE_CHECKED builds: the time of the last entry popped (0 until
   * one is), below which sim_queue_push_trusted() must not push. */
  SimTime popped;
};

/* A new, empty queue with floor 0.  Free with sim_queue_free(). */
SimQueue *sim_queue_new (void);
void sim_queue_free (SimQueue *queue); /* accepts NULL */

/* Out-of-line halves of the functions below.  sim_queue_push() is a whole
 * push of the event fn (data, arg) at time, for when sim_queue_try_push()
 * declines; sim_queue_advance_slow() finds the next front once the front
 * has run out, returning FALSE, with the floor unchanged, if the queue is
 * empty or its next time lies after until. */
void sim_queue_push (SimQueue *queue, SimTime time, SimHandler fn, gpointer data, guint64 arg);
gboolean sim_queue_advance_slow (SimQueue *queue, SimTime until);

/* The bucket time belongs in, relative to floor (time >= floor).  The "| 1"
 * puts a time equal to the floor at level 0 without a branch. */
G_ALWAYS_INLINE static inline guint
sim_queue_bucket_of (SimTime time, SimTime floor)
{
  guint msb = 63 - (guint) __builtin_clzll ((time ^ floor) | 1);
  guint level = msb / SIM_QUEUE_RADIX_BITS;
  guint digit = (guint) (time >> (level * SIM_QUEUE_RADIX_BITS)) & (SIM_QUEUE_RADIX - 1);
  return level * SIM_QUEUE_RADIX + digit;
}

/* Add the event fn (data, arg) at time, if that is the common case, an
 * append to a bucket with room; return FALSE, changing nothing, for a time
 * in the front's range or a full bucket, which the caller passes to
 * sim_queue_push().  Split so, the caller's fast path calls nothing and
 * can be a leaf function, which saves it spilling registers around a call
 * on every push; and the entry is written before the bitmap, so that the
 * arguments are dead by then.  time must not be below the time of the last
 * entry popped: the caller checks (sched.c does), as the queue would then
 * lose its order. */
/* Append an entry to bucket, which has room. */
G_ALWAYS_INLINE static inline void
sim_queue_append (SimQueueBucket *bucket, SimTime time, SimHandler fn, gpointer data,
                  guint64 arg)
{
  SimQueueEntry *entry = &bucket->v[bucket->len++];
  entry->time = time;
  entry->fn = fn;
  entry->data = data;
  entry->arg = arg;
}

/* The push's common cases, inlined: an append to a bucket above the
 * front, or to the front itself when the time is at or after its last
 * unspent entry's (events scheduled in time order, as a collective's
 * messages are; what queue_push_front would do, without its call).
 * FALSE, having changed nothing, for the rest. */
G_ALWAYS_INLINE static inline gboolean
sim_queue_try_push (SimQueue *queue, SimTime time, SimHandler fn, gpointer data, guint64 arg)
{
  if (time <= queue->run_last)
    {
      SimQueueBucket *front = queue->front_bucket;
      if (time < queue->front_tail || G_UNLIKELY (front->len == front->cap))
        return FALSE;
      queue->front_tail = time;
      sim_queue_append (front, time, fn, data, arg);
      return TRUE;
    }
  guint b = sim_queue_bucket_of (time, queue->floor);
  SimQueueBucket *bucket = &queue->bucket[b];
  guint len = bucket->len;
  if (G_UNLIKELY (len == bucket->cap))
    return FALSE;
  sim_queue_append (bucket, time, fn, data, arg);
  queue->others++;
  if (len == 0)
    {
      queue->nonempty[b / 64] |= G_GUINT64_CONSTANT (1) << (b % 64);
      queue->summary |= G_GUINT64_CONSTANT (1) << (b / 64);
    }
  return TRUE;
}

/* A whole push of the event fn (data, arg) at time, inline: the common
 * case calls nothing.  As sim_sched_at() without its checks: fn must not
 * be NULL nor time below the scheduler's now, which the caller
 * guarantees (asserted in SIM_QUEUE_CHECKED builds only). */
G_ALWAYS_INLINE static inline void
sim_queue_push_trusted (SimQueue *queue, SimTime time, SimHandler fn, gpointer data,
                        guint64 arg)
{
#ifdef SIM_QUEUE_CHECKED
  g_assert (fn != NULL && time >= queue->popped);
#endif
  if (G_UNLIKELY (!sim_queue_try_push (queue, time, fn, data, arg)))
    sim_queue_push (queue, time, fn, data, arg);
}

static inline const SimQueueEntry *
sim_queue_pop_until (SimQueue *queue, SimTime until)
{
  SimQueueBucket *front = queue->front_bucket;
  if (G_UNLIKELY (queue->head == front->len))
    {
      if (!sim_queue_advance_slow (queue, until))
        return NULL;
      front = queue->front_bucket;
    }
  const SimQueueEntry *entry = &front->v[queue->head];
  if (entry->time > until)
    return NULL;
  queue->head++;
#ifdef SIM_QUEUE_CHECKED
  queue->popped = entry->time;
#endif
  return entry;
}

/* Entries in the queue. */
static inline gsize
sim_queue_length (const SimQueue *queue)
{
  return queue->others + (queue->front_bucket->len - queue->head);
}

#endif /* ORRERY_SIM_QUEUE_H */
