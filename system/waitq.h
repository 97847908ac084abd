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

/* A chunk phase waiting for its dimension on one rank. */
typedef struct
{
  SysColl *coll;
  guint64 run_index;
  gint64 priority;
  guint32 order; /* arrival order, for FIFO/LIFO and ties */
} SysWaiting;

typedef struct
{
  SysWaiting *heap; /* heap[0] runs next */
  guint len;
  guint cap;
} SysWaitQueue;

/* Add w.  The queue starts zeroed (empty, nothing allocated). */
void sys_waitq_push (SysWaitQueue *q, const SysWaiting *w);
/* Take out the entry that runs next into *out; FALSE when empty. */
gboolean sys_waitq_pop (SysWaitQueue *q, SysWaiting *out);
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

/* Add one after the others. */
void sys_owed_push (SysOwedList *l, const SysOwed *o);
/* Take out item I (< len), keeping the others' order. */
void sys_owed_remove (SysOwedList *l, guint i);
/* Free the array; the list is then empty.  Accepts an empty list. */
void sys_owed_clear (SysOwedList *l);

#endif /* ORRERY_SYSTEM_WAITQ_H */
