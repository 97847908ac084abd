/* idmap.c: node id -> value, open addressing with linear probing. */
#include "workload/idmap.h"

#include <string.h>

#include "workload/wl_alloc.h"

#define EMPTY G_MAXUINT32
#define MIN_SLOTS 16u

struct _WlIdMap
{
  guint64 *keys;
  guint32 *values; /* EMPTY: a free slot */
  guint32 slots;   /* a power of two, or 0 before the first insertion */
  guint32 used;
  guint32 mod;     /* the largest prime at most slots: home slots are below it */
  const char *what;
};

static inline guint32
slot_of (const WlIdMap *m, guint64 id)
{
  /* As GLib's hash tables do for integer keys: times 11, modulo a prime.
   * Trace ids mostly come in runs of consecutive values, which land 11
   * slots apart, so that lookups in file order walk memory at a steady
   * stride the processor prefetches (a scattering hash would make each a
   * cache miss), and a window of consecutive ids leaves short probe runs
   * (mapping them to consecutive slots would make a miss walk the whole
   * window).  The prime spreads ids apart by powers of two. */
  return (guint32) (((id ^ (id >> 32)) * 11) % m->mod);
}

/* The largest prime at most N (N >= 2). */
static guint32
prime_at_most (guint32 n)
{
  for (;; n--)
    {
      gboolean prime = n >= 2;
      for (guint32 d = 2; prime && (guint64) d * d <= n; d++)
        prime = n % d != 0;
      if (prime)
        return n;
    }
}

WlIdMap *
wl_id_map_new (const char *what)
{
  WlIdMap *m = g_new0 (WlIdMap, 1);
  m->what = what;
  return m;
}

void
wl_id_map_free (WlIdMap *m)
{
  if (m == NULL)
    return;
  g_free (m->keys);
  g_free (m->values);
  g_free (m);
}

/* Rebuild with SLOTS slots (a power of two, more than m->used). */
static gboolean
resize (WlIdMap *m, guint32 slots, GError **error)
{
  guint64 *keys = sim_try_alloc (slots, sizeof (guint64), FALSE, m->what, error);
  guint32 *values = keys != NULL ? sim_try_alloc (slots, sizeof (guint32), FALSE, m->what, error)
                                 : NULL;
  if (values == NULL)
    {
      g_free (keys);
      return FALSE;
    }
  memset (values, 0xff, (gsize) slots * sizeof (guint32));
  guint64 *old_keys = m->keys;
  guint32 *old_values = m->values, old_slots = m->slots;
  m->keys = keys;
  m->values = values;
  m->slots = slots;
  m->mod = prime_at_most (slots);
  for (guint32 i = 0; i < old_slots; i++)
    if (old_values[i] != EMPTY)
      {
        guint32 s = slot_of (m, old_keys[i]);
        while (values[s] != EMPTY)
          s = (s + 1) & (slots - 1);
        keys[s] = old_keys[i];
        values[s] = old_values[i];
      }
  g_free (old_keys);
  g_free (old_values);
  return TRUE;
}

gboolean
wl_id_map_insert (WlIdMap *m, guint64 id, guint32 value, GError **error)
{
  g_return_val_if_fail (value != EMPTY, FALSE);
  if ((m->used + 1) * 2 > m->slots)
    {
      if (m->slots >= (1u << 31))
        return sim_alloc_error ((guint64) m->slots * 2, 12, m->what, error);
      if (!resize (m, MAX (m->slots * 2, MIN_SLOTS), error))
        return FALSE;
    }
  guint32 s = slot_of (m, id);
  while (m->values[s] != EMPTY && m->keys[s] != id)
    s = (s + 1) & (m->slots - 1);
  if (m->values[s] == EMPTY)
    m->used++;
  m->keys[s] = id;
  m->values[s] = value;
  return TRUE;
}

gboolean
wl_id_map_lookup (const WlIdMap *m, guint64 id, guint32 *value)
{
  if (m->used == 0)
    return FALSE;
  for (guint32 s = slot_of (m, id);; s = (s + 1) & (m->slots - 1))
    {
      if (m->values[s] == EMPTY)
        return FALSE;
      if (m->keys[s] == id)
        {
          if (value != NULL)
            *value = m->values[s];
          return TRUE;
        }
    }
}

gboolean
wl_id_map_remove (WlIdMap *m, guint64 id)
{
  if (m->used == 0)
    return FALSE;
  guint32 mask = m->slots - 1, s = slot_of (m, id);
  while (m->values[s] != EMPTY && m->keys[s] != id)
    s = (s + 1) & mask;
  if (m->values[s] == EMPTY)
    return FALSE;
  /* Backward shift: move later entries of the probe run into the hole when
   * their home slot does not lie cyclically in (hole, their slot]. */
  guint32 hole = s;
  for (guint32 j = (s + 1) & mask; m->values[j] != EMPTY; j = (j + 1) & mask)
    {
      guint32 home = slot_of (m, m->keys[j]);
      gboolean stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
      if (stays)
        continue;
      m->keys[hole] = m->keys[j];
      m->values[hole] = m->values[j];
      hole = j;
    }
  m->values[hole] = EMPTY;
  m->used--;
  /* Shrink a map that emptied out, so that a window's index follows the
   * window.  A failed shrink just keeps the larger arrays. */
  if (m->slots > MIN_SLOTS && m->used * 8 < m->slots)
    resize (m, m->slots / 2, NULL);
  return TRUE;
}
