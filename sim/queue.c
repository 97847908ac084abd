/* queue.c: the monotone radix heap behind the scheduler (see queue.h). */
#include "sim/queue.h"

#include <string.h>

G_STATIC_ASSERT (SIM_QUEUE_WORDS <= 64); /* the summary is one word */

#define SIM_QUEUE_MIN_CAPACITY 16

/* An emptied bucket keeps its array up to this capacity.  A larger one goes
 * to a few spares that the next bucket to outgrow its array takes instead of
 * growing: as the clock advances every bucket of a level takes its turn
 * holding a large share of the queue, and keeping each one's peak would hold
 * many times the queue's size, while freeing and regrowing them churns the
 * allocator. */
#define SIM_QUEUE_KEEP_CAPACITY 256

SimQueue *
sim_queue_new (void)
{
  SimQueue *queue = g_new0 (SimQueue, 1);
  for (guint b = 0; b < SIM_QUEUE_BUCKETS; b++)
    queue->bucket[b].min = SIM_TIME_MAX;
  return queue;
}

void
sim_queue_free (SimQueue *queue)
{
  if (queue == NULL)
    return;
  for (guint b = 0; b < SIM_QUEUE_BUCKETS; b++)
    g_free (queue->bucket[b].v);
  for (guint k = 0; k < queue->n_spares; k++)
    g_free (queue->spares[k].v);
  g_free (queue);
}

/* The level-0 bucket of floor: where entries at the floor are pushed. */
static inline guint
queue_level0_of (SimTime floor)
{
  return (guint) floor & (SIM_QUEUE_RADIX - 1);
}

static inline void
queue_mark_empty (SimQueue *queue, guint b)
{
  guint64 word = queue->nonempty[b / 64] & ~(G_GUINT64_CONSTANT (1) << (b % 64));
  queue->nonempty[b / 64] = word;
  queue->summary &= ~((guint64) (word == 0) << (b / 64));
}

/* Give up bucket's array, emptied, to the spares, up to a total capacity
 * of the queue's length, or else to the allocator. */
static void
queue_bucket_release (SimQueue *queue, SimQueueBucket *bucket)
{
  if (queue->n_spares < SIM_QUEUE_SPARES && queue->spare_cap + bucket->cap <= queue->length)
    {
      queue->spares[queue->n_spares++] = *bucket;
      queue->spare_cap += bucket->cap;
    }
  else
    g_free (bucket->v);
  bucket->v = NULL;
  bucket->cap = 0;
}

/* The largest spare, if it is larger than cap: taken out of the spares and
 * returned (NULL array otherwise). */
static SimQueueBucket
queue_take_spare (SimQueue *queue, guint cap)
{
  SimQueueBucket none = { NULL, 0, 0, 0 };
  guint best = 0;
  for (guint k = 1; k < queue->n_spares; k++)
    if (queue->spares[k].cap > queue->spares[best].cap)
      best = k;
  if (queue->n_spares == 0 || queue->spares[best].cap <= cap)
    return none;
  SimQueueBucket spare = queue->spares[best];
  queue->spares[best] = queue->spares[--queue->n_spares];
  queue->spare_cap -= spare.cap;
  return spare;
}

void
sim_queue_grow_slow (SimQueue *queue, guint b)
{
  SimQueueBucket *bucket = &queue->bucket[b];
  /* The front only empties when the time advances, so a long chain of
   * events that each schedule the next at the current time would grow it
   * without bound: drop its spent entries instead, once they are half. */
  if (b == queue->front && queue->head > 0 && queue->head >= bucket->len / 2)
    {
      bucket->len -= queue->head;
      memmove (bucket->v, bucket->v + queue->head, bucket->len * sizeof (SimQueueEntry));
      queue->head = 0;
      return;
    }
  SimQueueBucket spare = queue_take_spare (queue, bucket->cap);
  if (spare.v != NULL)
    {
      if (bucket->len > 0) /* memcpy may not be passed NULL, even for 0 bytes */
        memcpy (spare.v, bucket->v, bucket->len * sizeof (SimQueueEntry));
      g_free (bucket->v);
      bucket->v = spare.v;
      bucket->cap = spare.cap;
      return;
    }
  guint cap = bucket->cap ? bucket->cap * 2 : SIM_QUEUE_MIN_CAPACITY;
  g_assert (cap > bucket->cap); /* more than 2^31 entries in one bucket */
  bucket->v = g_renew (SimQueueEntry, bucket->v, cap);
  bucket->cap = cap;
}

static inline void
queue_bucket_clear (SimQueue *queue, SimQueueBucket *bucket)
{
  bucket->len = 0;
  bucket->min = SIM_TIME_MAX;
  if (G_UNLIKELY (bucket->cap > SIM_QUEUE_KEEP_CAPACITY))
    queue_bucket_release (queue, bucket);
}

/* The first non-empty bucket; there must be one. */
static inline guint
queue_first_bucket (const SimQueue *queue)
{
  guint w = (guint) __builtin_ctzll (queue->summary);
  return w * 64 + (guint) __builtin_ctzll (queue->nonempty[w]);
}

/* Move the entries of bucket b, above level 0, to the levels below it
 * relative to the new floor, its smallest time (already set).  Every target
 * is below b and therefore empty before the move, and b is read in order,
 * so each bucket stays in insertion order: this is what makes ties FIFO. */
G_GNUC_NO_INLINE static void
queue_redistribute (SimQueue *queue, guint b)
{
  SimQueueBucket *src = &queue->bucket[b];
  SimTime floor = queue->floor;
  guint64 summary = queue->summary;
  /* Locals, because the compiler cannot tell that the stores below never
   * touch the source bucket. */
  const SimQueueEntry *v = src->v;
  guint len = src->len;
  for (guint k = 0; k < len; k++)
    {
      const SimQueueEntry *entry = &v[k];
      guint t = sim_queue_bucket_of (entry->time, floor);
      SimQueueBucket *dst = &queue->bucket[t];
      if (G_UNLIKELY (dst->len == dst->cap))
        sim_queue_grow_slow (queue, t);
      dst->min = MIN (dst->min, entry->time);
      dst->v[dst->len++] = *entry;
      queue->nonempty[t / 64] |= G_GUINT64_CONSTANT (1) << (t % 64);
      summary |= G_GUINT64_CONSTANT (1) << (t / 64);
    }
  queue->summary = summary;
  queue_bucket_clear (queue, src);
}

gboolean
sim_queue_advance_slow (SimQueue *queue, SimTime until)
{
  guint f = queue->front;
  queue_bucket_clear (queue, &queue->bucket[f]);
  queue_mark_empty (queue, f);
  queue->head = 0;
  if (queue->summary == 0)
    return FALSE;
  guint b = queue_first_bucket (queue);
  SimQueueBucket *first = &queue->bucket[b];
  /* Checked before moving anything: raising the floor past until would
   * forbid the caller to schedule between now and until. */
  if (first->min > until)
    return FALSE;
  queue->floor = first->min;
  queue_mark_empty (queue, b);
  if (b < SIM_QUEUE_RADIX || first->len == 1)
    queue->front = b; /* one time only: nothing to sort out */
  else
    {
      queue_redistribute (queue, b);
      queue->front = queue_level0_of (queue->floor);
    }
  return TRUE;
}
