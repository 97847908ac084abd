/* replay_classes_private.h: the state of the search for symmetry classes,
 * shared by replay_classes.c (traces, peers, the refinement, the result)
 * and replay_classes_groups.c (process groups: roles, and groups inside
 * or across classes).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_CLASSES_PRIVATE_H
#define ORRERY_WORKLOAD_REPLAY_CLASSES_PRIVATE_H

#include "workload/replay_private.h"

/* The state of the search, freed by classes_free. */
typedef struct
{
  WlReplay *r;
  guint32 n;
  guint32 *cls;       /* per rank: its class (the class's first rank) */
  guint32 *peer_off;  /* per rank + 1: offsets into peers */
  guint32 *peers;     /* per rank: its distinct peers, one per class */
  GHashTable *p2p;    /* WlGraph* -> GArray of its sends' and receives' indices */
  GHashTable *p2p_ops; /* a compact graph's base -> GArray of the indices of its nodes
                        * whose op is a send or a receive */
  const char *roles_why; /* why some ranks were split by roles (split_roles), or NULL */
  GString *roles_use;   /* the first collective whose group's places are roles, in words */
  GString *detail;      /* what a refusal concerns, in words (wl_replay_classes_why) */
  /* (4'''): node-shift symmetry.  Whether groups whose members play roles
   * may be split by their places mod their period (sys_group_period); per
   * such group its period, G_MAXUINT32 where some use has none. */
  gboolean periods;
  GHashTable *period;     /* guint64 group -> guint32 */
  guint32 max_period;     /* the largest period a group was split by (0: none) */
  const char *period_why; /* why a group whose members play roles has no period, or NULL */
} Classes;

/* V mixed into the hash H (not cryptographic: classes found by it are
 * compared in full). */
static inline guint64
wl_classes_mix (guint64 h, guint64 v)
{
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

/* Two things (graphs), a table's key: wl_classes_pair_hash and
 * wl_classes_pair_equal. */
typedef struct
{
  gconstpointer a, b;
} ClassesPair;

static inline guint
wl_classes_pair_hash (gconstpointer p)
{
  const ClassesPair *k = p;
  return g_direct_hash (k->a) ^ (g_direct_hash (k->b) * 31u);
}

static inline gboolean
wl_classes_pair_equal (gconstpointer x, gconstpointer y)
{
  const ClassesPair *k = x, *l = y;
  return k->a == l->a && k->b == l->b;
}

/* ---- replay_classes_groups.c ---------------------------------------------------------- */

/* (4'): the ranks of C split by their places in the groups whose
 * collectives their members do not run alike. */
void wl_classes_split_roles (Classes *c);
/* (4'''): the period of group GRP of N members that C split its ranks by
 * (places p and p + period one role), N where none. */
guint32 wl_classes_period (const Classes *c, guint64 grp, guint32 n);
/* (4): the groups inside or across C's classes, checked; fills
 * r->class_images.  FALSE with WHY set when one does not hold. */
gboolean wl_classes_check_groups (Classes *c, const char **why);

#endif /* ORRERY_WORKLOAD_REPLAY_CLASSES_PRIVATE_H */
