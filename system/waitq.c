/* waitq.c: a binary heap of waiting chunk phases and the list of those a
 * rank owes (see waitq.h). */
#include "system/waitq.h"

void
sys_waitq_grow (SysWaitQueue *q)
{
  q->cap = q->cap ? q->cap * 2 : 8;
  q->heap = g_renew (SysWaiting, q->heap, q->cap);
}

void
sys_waitq_clear (SysWaitQueue *q)
{
  g_free (q->heap);
  *q = (SysWaitQueue) { 0 };
}

void
sys_owed_grow (SysOwedList *l)
{
  l->cap = l->cap ? l->cap * 2 : 8;
  l->items = g_renew (SysOwed, l->items, l->cap);
}

void
sys_owed_remove_at (SysOwedList *l, guint i)
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
