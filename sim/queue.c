/* queue.c: the monotone radix heap behind the scheduler (see queue.h). */
#include "sim/queue.h"

#include <string.h>

G_STATIC_ASSERT (SIM_QUEUE_WORDS <= 64); /* the summary is one word */
G_STATIC_ASSERT (SIM_QUEUE_RUN_MAX <= G_MAXUINT16); /* the sort counts in 16 bits */

#define SIM_QUEUE_MIN_CAPACITY 16

/* Buckets up to this length are sorted by insertion alone, without the
 * bucket sort's bins; and no bin of the bucket sort may hold more. */
#define SIM_QUEUE_SMALL_SORT 16

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
  queue->front_bucket = &queue->bucket[0];
  return queue;
}

/* Make bucket b the front, from its first entry (the old front's are
 * spent or moved out): its entries are no longer others. */
static inline void
queue_set_front (SimQueue *queue, guint b)
{
  queue->front = b;
  queue->front_bucket = &queue->bucket[b];
  queue->head = 0;
  queue->others -= queue->bucket[b].len;
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
  g_free (queue->scratch);
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
  if (queue->n_spares < SIM_QUEUE_SPARES
      && queue->spare_cap + bucket->cap <= sim_queue_length (queue))
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
  SimQueueBucket none = { NULL, 0, 0 };
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

/* Make room for an entry in bucket b, by compacting the front or growing
 * the array. */
static void
queue_grow (SimQueue *queue, guint b)
{
  SimQueueBucket *bucket = &queue->bucket[b];
  /* The front only empties when its range is spent, so a long chain of
   * events that each schedule the next at the current time would grow it
   * without bound: drop its spent entries instead, once they are fifteen
   * sixteenths.  Each drop moves the live entries, at most a sixteenth of
   * the array, for the fifteen sixteenths that pushes may then fill: a
   * fifteenth of an entry moved per push (at seven eighths, a seventh: the
   * every-rank ring all-reduce ran 16 M instructions more, of its 1.3 G, and
   * 0.4 MB less of array; at three quarters, a third; at a half, each live
   * entry moved once per push). */
  if (b == queue->front && queue->head > 0 && queue->head >= bucket->len - bucket->len / 16)
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

/* Append v[0..len), in order, to the buckets of their times relative to
 * the floor.  The caller guarantees that every target is empty (they all
 * lie below the bucket or front the entries come from), so each keeps the
 * order of v, where equal times lie in insertion order: ties stay FIFO. */
G_GNUC_NO_INLINE static void
queue_redistribute (SimQueue *queue, const SimQueueEntry *v, guint len)
{
  SimTime floor = queue->floor;
  guint64 summary = queue->summary;
  for (guint k = 0; k < len; k++)
    {
      const SimQueueEntry *entry = &v[k];
      guint t = sim_queue_bucket_of (entry->time, floor);
      SimQueueBucket *dst = &queue->bucket[t];
      if (G_UNLIKELY (dst->len == dst->cap))
        queue_grow (queue, t);
      if (dst->len == 0)
        {
          queue->nonempty[t / 64] |= G_GUINT64_CONSTANT (1) << (t % 64);
          summary |= G_GUINT64_CONSTANT (1) << (t / 64);
        }
      dst->v[dst->len++] = *entry;
    }
  queue->summary = summary;
}

/* Sort v[0..len) by time, stably, by insertion: for short runs, and to
 * finish the bucket sort below. */
static void
queue_insertion_sort (SimQueueEntry *v, guint len)
{
  for (guint k = 1; k < len; k++)
    {
      if (v[k - 1].time <= v[k].time)
        continue;
      SimQueueEntry entry = v[k];
      guint j = k;
      for (; j > 0 && v[j - 1].time > entry.time; j--)
        v[j] = v[j - 1];
      v[j] = entry;
    }
}

/* Sort bucket's entries, whose times lie in [min, max], by time, stably,
 * or return FALSE, having changed nothing, if that would be slow.  A
 * counting sort into the scratch array by (time - min) >> shift, a bin of
 * one time or a few, then an insertion sort within the bins: about a pass
 * per step while the times are spread, as a simulation's are.  Times
 * bunched into few bins would make the insertion sort quadratic, so a bin
 * of more than SIM_QUEUE_SMALL_SORT entries (of more than one time) makes
 * it give up.  Both steps are stable, so equal times stay in insertion
 * order. */
static gboolean
queue_bucket_sort (SimQueue *queue, SimQueueBucket *bucket, SimTime min, SimTime max)
{
  guint len = bucket->len;
  if (len <= SIM_QUEUE_SMALL_SORT)
    {
      queue_insertion_sort (bucket->v, len);
      return TRUE;
    }
  if (min == max)
    return TRUE; /* all ties: in order already */
  /* Bins: one per time if that makes fewer than two per entry (as in a
   * level-1 bucket of a dense queue), and no insertion sort is needed;
   * otherwise a power of two between a half and one per entry, which on
   * the hold model costs less in passes over the bins than it adds in
   * shifts to the insertion sort. */
  guint bits = 64 - (guint) __builtin_clzll ((guint64) len - 1);
  guint span_bits = 64 - (guint) __builtin_clzll (max - min);
  guint shift = 0;
  if (span_bits <= bits)
    bits = span_bits;
  else
    {
      bits--;
      shift = span_bits - bits;
    }
  guint n_bins = 1u << bits;
  guint16 start[2 * SIM_QUEUE_RUN_MAX];
  memset (start, 0, n_bins * sizeof (guint16));
  const SimQueueEntry *v = bucket->v;
  for (guint k = 0; k < len; k++)
    start[(v[k].time - min) >> shift]++;
  guint16 sum = 0, most = 0;
  for (guint d = 0; d < n_bins; d++)
    {
      guint16 count = start[d];
      start[d] = sum;
      sum += count;
      most = MAX (most, count);
    }
  if (shift > 0 && most > SIM_QUEUE_SMALL_SORT)
    return FALSE;
  if (queue->scratch_cap < len)
    {
      /* Nothing to keep: a fresh array rather than a copying realloc. */
      g_free (queue->scratch);
      queue->scratch_cap = MAX (len, 2 * queue->scratch_cap);
      queue->scratch = g_new (SimQueueEntry, queue->scratch_cap);
    }
  SimQueueEntry *sorted = queue->scratch;
  for (guint k = 0; k < len; k++)
    sorted[start[(v[k].time - min) >> shift]++] = v[k];
  /* Trade arrays: the bucket takes the sorted one. */
  queue->scratch = bucket->v;
  bucket->v = sorted;
  guint cap = bucket->cap;
  bucket->cap = queue->scratch_cap;
  queue->scratch_cap = cap;
  if (shift > 0 && most > 1)
    queue_insertion_sort (sorted, len);
  return TRUE;
}

gboolean
sim_queue_advance_slow (SimQueue *queue, SimTime until)
{
  /* Spent: head == len.  head first, so that the length the clear reads
   * counts no spent entries. */
  queue->head = 0;
  queue_bucket_clear (queue, queue->front_bucket);
  for (;;)
    {
      if (queue->summary == 0)
        return FALSE;
      guint b = queue_first_bucket (queue);
      SimQueueBucket *first = &queue->bucket[b];
      SimTime min = first->v[0].time, max = min;
      if (b >= SIM_QUEUE_RADIX) /* a level-0 bucket holds one time */
        for (guint k = 1; k < first->len; k++)
          {
            min = MIN (min, first->v[k].time);
            max = MAX (max, first->v[k].time);
          }
      /* Checked before moving anything: raising the floor past until would
       * forbid the caller to schedule between now and until. */
      if (min > until)
        return FALSE;
      queue->floor = min;
      queue_mark_empty (queue, b);
      if (b < SIM_QUEUE_RADIX
          || (first->len <= SIM_QUEUE_RUN_MAX && queue_bucket_sort (queue, first, min, max)))
        {
          guint level = b / SIM_QUEUE_RADIX;
          queue_set_front (queue, b);
          /* The front owns its bucket's whole range: the times that share
           * every digit above level with min. */
          queue->run_last = min | ((G_GUINT64_CONSTANT (1) << (level * SIM_QUEUE_RADIX_BITS)) - 1);
          queue->front_tail = max;
          return TRUE;
        }
      /* Every target lies below b, so is empty, and the next round finds
       * the floor's level-0 bucket first. */
      queue_redistribute (queue, first->v, first->len);
      queue_bucket_clear (queue, first);
    }
}

/* Move the front's unspent entries to lower levels: see queue.h.  The front
 * lies above level 0 (a level-0 front holds one time, so every push into it
 * is an append) and the buckets below it are empty; its entries are read in
 * order, so ties stay in order. */
static void
queue_spill_front (SimQueue *queue)
{
  SimQueueBucket *front = queue->front_bucket;
  guint unspent = front->len - queue->head;
  queue_redistribute (queue, front->v + queue->head, unspent);
  queue->others += unspent;
  queue->head = 0;
  queue_bucket_clear (queue, front);
  queue_set_front (queue, queue_level0_of (queue->floor));
  queue->run_last = queue->floor;
  queue->front_tail = queue->floor;
  queue_mark_empty (queue, queue->front);
}

/* The entry for a push of time, in the front's range, placed in the front
 * after every entry at or before time.  Usually an append; otherwise the
 * shorter side moves, the entries before the place down into the last spent
 * slot or those after it up.  Returns NULL, having changed nothing, if that
 * would move more than SIM_QUEUE_INSERT_MAX entries. */
static SimQueueEntry *
queue_push_front (SimQueue *queue, SimTime time)
{
  SimQueueBucket *front = &queue->bucket[queue->front];
  guint head = queue->head, len = front->len, pos = len;
  if (len > head && front->v[len - 1].time > time)
    {
      const SimQueueEntry *v = front->v;
      guint lo = head, hi = len - 1; /* v[hi].time > time */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;
          if (v[mid].time <= time)
            lo = mid + 1;
          else
            hi = mid;
        }
      pos = lo;
      if (head > 0 && pos - head <= len - pos)
        {
          if (pos - head > SIM_QUEUE_INSERT_MAX)
            return NULL;
          memmove (front->v + head - 1, front->v + head, (pos - head) * sizeof (SimQueueEntry));
          queue->head = head - 1;
          front->v[pos - 1].time = time;
          return &front->v[pos - 1];
        }
      if (len - pos > SIM_QUEUE_INSERT_MAX)
        return NULL;
    }
  if (G_UNLIKELY (len == front->cap))
    {
      queue_grow (queue, queue->front); /* may drop the spent entries */
      pos -= head - queue->head;
      len = front->len;
    }
  SimQueueEntry *v = front->v;
  if (pos < len)
    memmove (v + pos + 1, v + pos, (len - pos) * sizeof (SimQueueEntry));
  front->len = len + 1;
  v[pos].time = time;
  queue->front_tail = MAX (queue->front_tail, time);
  return &v[pos];
}

/* The entry for a push of time, time set, placed where it belongs. */
static SimQueueEntry *
queue_push_entry (SimQueue *queue, SimTime time)
{
  if (time <= queue->run_last)
    {
      SimQueueEntry *entry = queue_push_front (queue, time);
      if (G_LIKELY (entry != NULL))
        return entry;
      /* Too far into the front to shift: spill it.  time then lies above
       * the new front, a level-0 bucket, or at its one time, an append. */
      queue_spill_front (queue);
      if (time <= queue->run_last)
        return queue_push_front (queue, time);
    }
  guint b = sim_queue_bucket_of (time, queue->floor);
  SimQueueBucket *bucket = &queue->bucket[b];
  if (bucket->len == bucket->cap)
    queue_grow (queue, b);
  if (bucket->len == 0)
    {
      queue->nonempty[b / 64] |= G_GUINT64_CONSTANT (1) << (b % 64);
      queue->summary |= G_GUINT64_CONSTANT (1) << (b / 64);
    }
  queue->others++;
  SimQueueEntry *entry = &bucket->v[bucket->len++];
  entry->time = time;
  return entry;
}

void
sim_queue_push (SimQueue *queue, SimTime time, SimHandler fn, gpointer data, guint64 arg)
{
  SimQueueEntry *entry = queue_push_entry (queue, time);
  entry->fn = fn;
  entry->data = data;
  entry->arg = arg;
}
