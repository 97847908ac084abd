/* waitq.h: the chunk phases waiting for one dimension of one rank, in the
 * order they are to run, and those its lines started first (owed).
 *
 * Models: a waiting entry carries a priority (its collective's: LIFO, FIFO
 * or the trace's explicit one, see coll.c) and its arrival order; the next
 * to run is the highest priority, the oldest (lowest order) among equals.
 * A binary heap on (priority descending, order ascending): push and pop in
 * O(log n) where a scan of the list took O(n) per pick.  Orders are unique
 * (a counter per system), so the order is total and the heap returns exactly
 * the entry the scan would have picked.
 *
 * Ownership: the queue owns its array; entries are copied in and out.
 * Not thread-safe.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_WAITQ_H
#define ORRERY_SYSTEM_WAITQ_H

#include <glib.h>

typedef struct _SysColl SysColl;

/* A chunk phase waiting for its dimension on one rank, or a run of them:
 * with MORE > 0 the entry stands for MORE + 1 entries of one priority,
 * the k-th (k <= MORE) of run run_index + k x STRIDE and order order + k.
 * A collective's chunks arrive so (coll.c's join), and one entry for them
 * all is one push and one sift where a chunk each was four: the heap's
 * pushes and pops were 6.6 M instructions of the every-rank Llama-2 row.
 * Their orders must be the range's alone (taken together from the
 * counter), which is what lets a pop take the first of the run and leave
 * the rest in place, still first (sys_waitq_pop). */
typedef struct
{
  SysColl *coll;
  guint64 run_index;
  gint64 priority;
  guint32 order; /* arrival order, for FIFO/LIFO and ties */
  guint32 more;  /* entries after this one in the run; 0: a single entry */
  guint32 stride; /* the run_index step between them */
} SysWaiting;

typedef struct
{
  SysWaiting *heap; /* heap[0] runs next */
  guint len;
  guint cap;
} SysWaitQueue;

/* Make room for one more entry (push's slow path). */
void sys_waitq_grow (SysWaitQueue *q);

/* Push and pop are inline: each runs once per chunk phase, on every rank,
 * and the call cost about a fifth of their instructions. */

/* Whether a runs before b: higher priority, then older. */
static inline gboolean
sys_waitq_runs_before (const SysWaiting *a, const SysWaiting *b)
{
  return a->priority > b->priority || (a->priority == b->priority && a->order < b->order);
}

/* Add w.  The queue starts zeroed (empty, nothing allocated). */
static inline void
sys_waitq_push (SysWaitQueue *q, const SysWaiting *w)
{
  if (q->len == q->cap)
    sys_waitq_grow (q);
  guint i = q->len++;
  while (i > 0 && sys_waitq_runs_before (w, &q->heap[(i - 1) / 2]))
    {
      q->heap[i] = q->heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  q->heap[i] = *w;
}

/* Take out the entry that runs next into *out, a single one (more 0);
 * FALSE when empty.  The first of a run leaves the rest at the top
 * without a sift: they share its priority, and every other entry of that
 * priority came after the whole run (a higher order) or before its first
 * (which would then have not been first). */
static inline gboolean
sys_waitq_pop (SysWaitQueue *q, SysWaiting *out)
{
  if (q->len == 0)
    return FALSE;
  *out = q->heap[0];
  if (out->more > 0)
    {
      SysWaiting *rest = &q->heap[0];
      out->more = 0;
      rest->more--;
      rest->order++;
      rest->run_index += rest->stride;
      return TRUE;
    }
  SysWaiting last = q->heap[--q->len];
  guint i = 0, n = q->len;
  for (;;)
    {
      guint c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && sys_waitq_runs_before (&q->heap[c + 1], &q->heap[c]))
        c++;
      if (!sys_waitq_runs_before (&q->heap[c], &last))
        break;
      q->heap[i] = q->heap[c];
      i = c;
    }
  if (n > 0)
    q->heap[i] = last;
  return TRUE;
}

/* Free the array; the queue is then empty.  Accepts an empty queue. */
void sys_waitq_clear (SysWaitQueue *q);

/* A chunk phase a rank owes one of its dimension queues: another member of
 * its line started it first, with this ticket (coll.c, "the line order").
 * The line is the members first + i x stride (i < n, the phase's context)
 * of COLL's group; the rank is its member MEMBER. */
typedef struct
{
  SysColl *coll;
  guint32 ticket;
  guint32 member;
  guint32 first;
  guint32 chunk_phase;
} SysOwed;

/* What a rank owes one queue, oldest first (few: what its peers started
 * ahead of it).  Starts zeroed (empty, nothing allocated). */
typedef struct
{
  SysOwed *items;
  guint len;
  guint cap;
} SysOwedList;

/* Make room for one more item (push's slow path). */
void sys_owed_grow (SysOwedList *l);
/* Add one after the others (inline: once per chunk phase a line's first
 * member starts, for each other member). */
static inline void
sys_owed_push (SysOwedList *l, const SysOwed *o)
{
  if (l->len == l->cap)
    sys_owed_grow (l);
  l->items[l->len++] = *o;
}
/* Take out item I (< len), keeping the others' order.  Inline for the
 * common case, the last item (mostly the only one); sys_owed_remove_at
 * moves the others. */
void sys_owed_remove_at (SysOwedList *l, guint i);
static inline void
sys_owed_remove (SysOwedList *l, guint i)
{
  if (G_LIKELY (i + 1 == l->len))
    l->len--;
  else
    sys_owed_remove_at (l, i);
}
/* Free the array; the list is then empty.  Accepts an empty list. */
void sys_owed_clear (SysOwedList *l);

#endif /* ORRERY_SYSTEM_WAITQ_H */
