/* waitq.h: the chunk phases waiting for one dimension of one rank, in the
 * order they are to run, and the tickets of those its lines started first.
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

/* Tickets, oldest first: the places in its lines' order of the chunk
 * phases a rank owes one of its dimension queues (coll.c, line_allows).  A
 * ring buffer; starts zeroed (empty, nothing allocated). */
typedef struct
{
  guint32 *ring;
  guint head; /* ring[head] is the oldest */
  guint len;
  guint cap;
} SysTickets;

/* Add a ticket after the others. */
void sys_tickets_push (SysTickets *t, guint32 ticket);
/* The oldest ticket, 0 when there is none (no ticket is 0). */
static inline guint32
sys_tickets_first (const SysTickets *t)
{
  return t->len > 0 ? t->ring[t->head] : 0;
}
/* Take out the oldest ticket; the queue must not be empty. */
void sys_tickets_pop (SysTickets *t);
/* Free the ring; the queue is then empty.  Accepts an empty queue. */
void sys_tickets_clear (SysTickets *t);

#endif /* ORRERY_SYSTEM_WAITQ_H */
