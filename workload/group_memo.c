/* group_memo.c: one parse per distinct METADATA group list. */
#include "workload/group_memo.h"

#include <pthread.h>

#include "workload/group_list.h"

typedef struct
{
  GArray *defs;    /* WlGroupDef: what the parse appended */
  const char *why; /* its result: NULL or a static message */
  char *fault;     /* when it parsed: wl_group_defs_fault's answer */
} MemoEntry;

struct _WlGroupMemo
{
  GHashTable *by_json; /* list text (owned) -> MemoEntry* (owned) */
  pthread_mutex_t lock; /* files decoded on several threads share the memo
                         * (pthread's: ThreadSanitizer sees it, not GMutex) */
};

static void
entry_free (gpointer p)
{
  MemoEntry *e = p;
  g_array_unref (e->defs);
  g_free (e->fault);
  g_free (e);
}

WlGroupMemo *
wl_group_memo_new (void)
{
  WlGroupMemo *m = g_new0 (WlGroupMemo, 1);
  m->by_json = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, entry_free);
  pthread_mutex_init (&m->lock, NULL);
  return m;
}

void
wl_group_memo_free (WlGroupMemo *m)
{
  if (m == NULL)
    return;
  g_hash_table_unref (m->by_json);
  pthread_mutex_destroy (&m->lock);
  g_free (m);
}

const char *
wl_group_memo_parse (WlGroupMemo *m, const char *json, GArray *defs)
{
  g_return_val_if_fail (m != NULL && json != NULL && defs != NULL, "no process-group list");
  /* Held through the parse: a thread that wants the same list waits for it
   * rather than parsing it again. */
  pthread_mutex_lock (&m->lock);
  MemoEntry *e = g_hash_table_lookup (m->by_json, json);
  if (e == NULL)
    {
      e = g_new (MemoEntry, 1);
      e->defs = wl_group_defs_new ();
      e->why = wl_group_defs_parse (json, e->defs);
      e->fault = e->why == NULL ? wl_group_defs_fault (e->defs, 0) : NULL;
      g_hash_table_insert (m->by_json, g_strdup (json), e);
    }
  for (guint i = 0; i < e->defs->len; i++)
    {
      const WlGroupDef *d = &g_array_index (e->defs, WlGroupDef, i);
      WlGroupDef copy = { .id = d->id, .ranks = g_array_ref (d->ranks) };
      g_array_append_val (defs, copy);
    }
  const char *why = e->why != NULL ? e->why : e->fault;
  pthread_mutex_unlock (&m->lock);
  return why;
}

guint
wl_group_memo_size (const WlGroupMemo *m)
{
  g_return_val_if_fail (m != NULL, 0);
  pthread_mutex_lock ((pthread_mutex_t *) &m->lock);
  guint n = g_hash_table_size (m->by_json);
  pthread_mutex_unlock ((pthread_mutex_t *) &m->lock);
  return n;
}
