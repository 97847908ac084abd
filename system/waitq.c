/* waitq.c: a binary heap of waiting chunk phases and a ring of tickets
 * (see waitq.h). */
#include "system/waitq.h"

/* Whether a runs before b: higher priority, then older. */
static inline gboolean
runs_before (const SysWaiting *a, const SysWaiting *b)
{
  return a->priority > b->priority || (a->priority == b->priority && a->order < b->order);
}

void
sys_waitq_push (SysWaitQueue *q, const SysWaiting *w)
{
  if (q->len == q->cap)
    {
      q->cap = q->cap ? q->cap * 2 : 8;
      q->heap = g_renew (SysWaiting, q->heap, q->cap);
    }
  guint i = q->len++;
  while (i > 0 && runs_before (w, &q->heap[(i - 1) / 2]))
    {
      q->heap[i] = q->heap[(i - 1) / 2];
      i = (i - 1) / 2;
    }
  q->heap[i] = *w;
}

gboolean
sys_waitq_pop (SysWaitQueue *q, SysWaiting *out)
{
  if (q->len == 0)
    return FALSE;
  *out = q->heap[0];
  SysWaiting last = q->heap[--q->len];
  guint i = 0, n = q->len;
  for (;;)
    {
      guint c = 2 * i + 1;
      if (c >= n)
        break;
      if (c + 1 < n && runs_before (&q->heap[c + 1], &q->heap[c]))
        c++;
      if (!runs_before (&q->heap[c], &last))
        break;
      q->heap[i] = q->heap[c];
      i = c;
    }
  if (n > 0)
    q->heap[i] = last;
  return TRUE;
}

void
sys_waitq_clear (SysWaitQueue *q)
{
  g_free (q->heap);
  *q = (SysWaitQueue) { 0 };
}

void
sys_tickets_push (SysTickets *t, guint32 ticket)
{
  g_assert (ticket != 0);
  if (t->len == t->cap)
    {
      /* Grow, and unwrap what wrapped round the end into the new room. */
      guint old = t->cap;
      t->cap = old ? old * 2 : 8;
      t->ring = g_renew (guint32, t->ring, t->cap);
      for (guint i = 0; i < t->head; i++)
        t->ring[old + i] = t->ring[i];
    }
  guint at = t->head + t->len;
  t->ring[at < t->cap ? at : at - t->cap] = ticket;
  t->len++;
}

void
sys_tickets_pop (SysTickets *t)
{
  g_assert (t->len > 0);
  t->head = t->head + 1 == t->cap ? 0 : t->head + 1;
  t->len--;
}

void
sys_tickets_clear (SysTickets *t)
{
  g_free (t->ring);
  *t = (SysTickets) { 0 };
}
