/* queue.h: the scheduler's priority queue, a monotone radix heap.
 *
 * Models: a set of scheduled events popped in (time, insertion order)
 * order: events with equal times come out first-in first-out.  Times are
 * SimTime picoseconds.  An entry carries the whole event, handler included,
 * so that running it touches no memory but the queue's own; the queue looks
 * only at the time.
 *
 * The queue is monotone: a pushed time must not be below the time of the
 * last entry popped (the floor).  A discrete-event simulator never schedules
 * into the past, and this is what lets a radix heap replace a comparison
 * heap.  Times are read as digits of SIM_QUEUE_RADIX_BITS bits; an entry's
 * level is the highest digit in which its time differs from the floor (0
 * when equal), and its bucket is level * SIM_QUEUE_RADIX + its digit there.
 * Bucket order is then time order, and a level-0 bucket holds one time.  A
 * push is an append.  Pops read the front, a bucket of entries at the floor,
 * from a head.  When it runs out the floor moves to the smallest time of the
 * first non-empty bucket (kept on append, found through a bitmap).  If that
 * bucket holds one time (it is at level 0, or holds one entry) it becomes
 * the front as it is.  Otherwise its entries, which all differ from the new
 * floor only in lower digits, move to lower levels and the floor's level-0
 * bucket becomes the front.  An entry thus moves at most once per level,
 * through contiguous memory, where a heap misses the cache on every level of
 * every pop once the queue outgrows it.
 *
 * Ties are FIFO without a sequence number: every bucket stays in insertion
 * order, because appends carry ever-newer entries and a bucket is only ever
 * emptied, in order, into buckets below it, which are empty at that moment.
 * Entries pushed at the floor while the front is a higher bucket go to the
 * floor's level-0 bucket, which is newer and comes next.
 *
 * The structures are in this header only so that push and pop, the
 * scheduler's hot path, can be inlined into it; the sim_queue_*_slow
 * functions are their out-of-line halves.  Nothing but sched.c uses them.
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
 * events queued and as fast as any with 10^3. */
#define SIM_QUEUE_RADIX_BITS 8
#define SIM_QUEUE_RADIX (1u << SIM_QUEUE_RADIX_BITS)
#define SIM_QUEUE_LEVELS (63 / SIM_QUEUE_RADIX_BITS + 1)
#define SIM_QUEUE_BUCKETS (SIM_QUEUE_LEVELS * SIM_QUEUE_RADIX)
#define SIM_QUEUE_WORDS ((SIM_QUEUE_BUCKETS + 63) / 64)
#define SIM_QUEUE_SPARES 16

/* A growable array of entries.  Hand-rolled rather than a GArray because
 * the append is the hot path of every schedule: an inline length check and
 * a store, where g_array_append_val is a call and a memcpy. */
typedef struct
{
  SimQueueEntry *v;
  guint len;
  guint cap;
  SimTime min; /* the smallest time in v; SIM_TIME_MAX while empty */
} SimQueueBucket;

typedef struct _SimQueue SimQueue;

struct _SimQueue
{
  SimTime floor;
  guint front; /* the bucket pops read, all at the floor */
  guint head;  /* the front's next entry; those before it are spent */
  gsize length;
  /* Bit b of the bitmap is set while bucket b, other than the front, holds
   * entries (the front's bit may stay set until it runs out), and bit w of
   * summary while word w is non-zero, so the first non-empty bucket is two
   * count-trailing-zeros away. */
  guint64 summary;
  guint64 nonempty[SIM_QUEUE_WORDS];
  SimQueueBucket bucket[SIM_QUEUE_BUCKETS];
  /* Large arrays of emptied buckets, kept for reuse (see queue.c). */
  SimQueueBucket spares[SIM_QUEUE_SPARES];
  guint n_spares;
  gsize spare_cap; /* their total capacity, in entries */
};

/* A new, empty queue with floor 0.  Free with sim_queue_free(). */
SimQueue *sim_queue_new (void);
void sim_queue_free (SimQueue *queue); /* accepts NULL */

/* Out-of-line halves of the functions below.  sim_queue_grow_slow() makes
 * room in bucket b, by compacting the front or growing the array;
 * sim_queue_advance_slow() moves the floor on once the front has run out,
 * returning FALSE, with the floor unchanged, if the queue is empty or its
 * next time lies after until. */
void sim_queue_grow_slow (SimQueue *queue, guint b);
gboolean sim_queue_advance_slow (SimQueue *queue, SimTime until);

/* The bucket time belongs in, relative to floor (time >= floor).  The "| 1"
 * puts a time equal to the floor at level 0 without a branch. */
static inline guint
sim_queue_bucket_of (SimTime time, SimTime floor)
{
  guint msb = 63 - (guint) __builtin_clzll ((time ^ floor) | 1);
  guint level = msb / SIM_QUEUE_RADIX_BITS;
  guint digit = (guint) (time >> (level * SIM_QUEUE_RADIX_BITS)) & (SIM_QUEUE_RADIX - 1);
  return level * SIM_QUEUE_RADIX + digit;
}

/* Add an entry at time and return it, time set, for the caller to fill in
 * the rest: writing in place saves a copy on the hot path.  The pointer is
 * the queue's and valid until the next push or pop.  time must be >= the
 * floor: a programming error otherwise (critical warning, NULL). */
static inline SimQueueEntry *
sim_queue_push (SimQueue *queue, SimTime time)
{
  g_return_val_if_fail (time >= queue->floor, NULL);
  guint b = sim_queue_bucket_of (time, queue->floor);
  SimQueueBucket *bucket = &queue->bucket[b];
  if (G_UNLIKELY (bucket->len == bucket->cap))
    sim_queue_grow_slow (queue, b);
  bucket->min = MIN (bucket->min, time);
  queue->nonempty[b / 64] |= G_GUINT64_CONSTANT (1) << (b % 64);
  queue->summary |= G_GUINT64_CONSTANT (1) << (b / 64);
  queue->length++;
  SimQueueEntry *entry = &bucket->v[bucket->len++];
  entry->time = time;
  return entry;
}

/* Remove the first entry, in (time, insertion order), and return it,
 * provided its time is <= until.  The pointer is the queue's and valid
 * until the next push or pop.  Returns NULL, leaving the queue and its floor
 * unchanged, when the queue is empty or the first entry lies after until. */
static inline const SimQueueEntry *
sim_queue_pop_until (SimQueue *queue, SimTime until)
{
  SimQueueBucket *front = &queue->bucket[queue->front];
  if (queue->head == front->len)
    {
      if (!sim_queue_advance_slow (queue, until))
        return NULL;
      front = &queue->bucket[queue->front];
    }
  else if (queue->floor > until)
    return NULL;
  queue->length--;
  return &front->v[queue->head++];
}

/* Entries in the queue. */
static inline gsize
sim_queue_length (const SimQueue *queue)
{
  return queue->length;
}

#endif /* ORRERY_SIM_QUEUE_H */
