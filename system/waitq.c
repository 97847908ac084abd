/* waitq.c: a binary heap of waiting chunk phases and the list of those a
 * rank owes (see waitq.h). */
#include "system/waitq.h"

#include <string.h>

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
sys_owed_push (SysOwedList *l, const SysOwed *o)
{
  if (l->len == l->cap)
    {
      l->cap = l->cap ? l->cap * 2 : 8;
      l->items = g_renew (SysOwed, l->items, l->cap);
    }
  l->items[l->len++] = *o;
}

void
sys_owed_remove (SysOwedList *l, guint i)
{
  g_assert (i < l->len);
  /* The list is short and the item taken is mostly its first or only one:
   * a loop of plain copies costs less than a call to memmove. */
  for (guint j = i + 1; j < l->len; j++)
    l->items[j - 1] = l->items[j];
  l->len--;
}

void
sys_owed_clear (SysOwedList *l)
{
  g_free (l->items);
  *l = (SysOwedList) { 0 };
}
