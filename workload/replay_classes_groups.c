/* replay_classes_groups.c: the process-group side of symmetry classes
 * (the argument is in replay_classes.c): (4') the ranks of a group whose
 * members play roles split by their places (wl_classes_split_roles), and
 * (4) every group inside one class, alike there and laid out as its
 * image, or across classes whole or mirroring its image
 * (wl_classes_check_groups).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#include "workload/replay_classes_private.h"

#include <string.h>

/* Whether collective node X is one the system runs (a broadcast may be
 * a delay only). */
static gboolean
runs_coll (const WlReplay *r, const WlNode *x)
{
  return x->op == WL_OP_COLL
         && !(x->coll_kind == SYS_COLL_BROADCAST && r->params.timing.broadcast_as_delay);
}

/* The key of a collective for the checks run once per kind of use. */
static GBytes *
use_key (guint64 grp, const WlNode *x)
{
  guint64 key[4] = { grp, x->coll_kind, x->bytes, x->involved };
  return g_bytes_new (key, sizeof key);
}

/* (4'''): the period of group GRP as far as its use X says
 * (sys_group_period), folded into c->period: a group repeats with period
 * k when every use of it whose members play roles does. */
static void
note_period (Classes *c, guint64 grp, const WlNode *x)
{
  guint32 *have = g_hash_table_lookup (c->period, &grp);
  if (have != NULL && *have == G_MAXUINT32)
    return;
  const char *why = NULL;
  guint32 k = sys_group_period (c->r->sys, grp, (SysCollKind) x->coll_kind, x->bytes,
                                x->involved, &why);
  if (k != 0 && have != NULL && *have != k)
    why = "the collectives of a group repeat with different periods";
  if (k == 0 || (have != NULL && *have != k))
    {
      k = G_MAXUINT32;
      if (c->period_why == NULL)
        c->period_why = why;
    }
  if (have != NULL)
    *have = k;
  else
    g_hash_table_insert (c->period, g_memdup2 (&grp, sizeof grp), g_memdup2 (&k, sizeof k));
}

guint32
wl_classes_period (const Classes *c, guint64 grp, guint32 n)
{
  const guint32 *k = c->period != NULL ? g_hash_table_lookup (c->period, &grp) : NULL;
  return k != NULL && *k != G_MAXUINT32 && *k < n ? *k : n;
}

/* Uses met lately, by a few bits of their group and bytes, with what
 * was found of each (a check's answer never changes): a rank's
 * collectives cycle through a few dozen uses (a layer's, over and over),
 * and a look here costs a fifth of one in a hash table. */
#define RECENT_USES 256
G_STATIC_ASSERT (RECENT_USES == 256); /* recent_slot's top 8 bits */
typedef struct
{
  guint64 v[5];
  gint answer; /* 0: an empty slot */
} RecentUse;

static guint
recent_slot (const guint64 *now)
{
  guint64 h = (now[0] ^ (now[1] << 21) ^ (now[2] << 42) ^ now[3] ^ (now[4] << 11))
              * 0x9E3779B97F4A7C15ull;
  return (guint) (h >> 56); /* RECENT_USES slots */
}

/* What was noted of use NOW (five words) in RECENT, or 0. */
static gint
recent_answer (const RecentUse *recent, const guint64 *now)
{
  const RecentUse *e = &recent[recent_slot (now)];
  return e->answer != 0 && memcmp (e->v, now, sizeof e->v) == 0 ? e->answer : 0;
}

/* Note ANSWER (not 0) of use NOW, in place of what its slot held. */
static void
recent_note (RecentUse *recent, const guint64 *now, gint answer)
{
  RecentUse *e = &recent[recent_slot (now)];
  memcpy (e->v, now, sizeof e->v);
  e->answer = answer;
}

/* (4'): roles.  The groups on which some collective is not run alike by
 * the members (sys_group_alike): the places of their members are roles,
 * and ranks in different places are put in different classes.  A rank's
 * roles are summed over its groups (a sum: the order the groups are met
 * in is no part of it); two ranks whose roles the sum mixes up are found
 * out by wl_classes_check_groups. */
void
wl_classes_split_roles (Classes *c)
{
  WlReplay *r = c->r;
  g_autoptr (GHashTable) asked = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                       (GDestroyNotify) g_bytes_unref, NULL);
  /* Per class's first rank: the indices of its collective nodes that are
   * not alike (the class's ranks have its shape, so the same nodes). */
  g_autoptr (GHashTable) role_nodes = g_hash_table_new_full (NULL, NULL, NULL,
                                                            (GDestroyNotify) g_array_unref);
  RecentUse recent[RECENT_USES] = { { { 0 }, 0 } };
  for (guint32 i = 0; i < c->n; i++)
    {
      if (c->cls[i] != i)
        continue;
      const WlGraph *g = r->ranks[i].graph;
      GArray *nodes = NULL;
      /* Long stretches of collectives on one group: the use last asked
       * about is known. */
      guint64 last[4] = { 0, 0, 0, 0 };
      gboolean have_last = FALSE, last_unlike = FALSE;
      guint32 hint = 0;
      WlNode tmp;
      for (guint32 v = 0; v < g->n_nodes; v++)
        {
          const WlNode *x = wl_graph_node_at (g, v, &hint, &tmp);
          if (!runs_coll (r, x))
            continue;
          guint64 grp = wl_replay_node_group (r, x);
          guint64 now[4] = { grp, x->coll_kind, x->bytes, x->involved };
          if (!have_last || memcmp (now, last, sizeof now) != 0)
            {
              memcpy (last, now, sizeof now);
              have_last = TRUE;
              guint64 key[5] = { grp, x->coll_kind, x->bytes, x->involved, 0 };
              gint seen = recent_answer (recent, key);
              GBytes *b = seen != 0 ? NULL : use_key (grp, x);
              gpointer known = seen != 0 ? GINT_TO_POINTER (seen) : g_hash_table_lookup (asked, b);
              if (known != NULL)
                {
                  if (b != NULL)
                    g_bytes_unref (b);
                  last_unlike = GPOINTER_TO_INT (known) == 2;
                  recent_note (recent, key, GPOINTER_TO_INT (known));
                }
              else
                {
                  const char *why = NULL;
                  SysCollKind kind = (SysCollKind) x->coll_kind;
                  last_unlike = !sys_group_alike (r->sys, grp, kind, x->bytes, x->involved, &why);
                  g_hash_table_insert (asked, b, GINT_TO_POINTER (last_unlike ? 2 : 1));
                  recent_note (recent, key, last_unlike ? 2 : 1);
                  /* Over shared ports too: two members' messages that meet
                   * at one member's port at once are served by their
                   * places in the group ((4'')). */
                  if (last_unlike && c->roles_why == NULL)
                    {
                      c->roles_why = why;
                      wl_classes_why_use (c->roles_use, r, grp, grp, x);
                    }
                }
            }
          if (!last_unlike)
            continue;
          if (nodes == NULL)
            {
              nodes = g_array_new (FALSE, FALSE, sizeof (guint32));
              g_hash_table_insert (role_nodes, GUINT_TO_POINTER (i), nodes);
            }
          g_array_append_val (nodes, v);
        }
    }
  if (g_hash_table_size (role_nodes) == 0)
    return;
  /* The groups with roles: those of every rank at its class's role nodes;
   * their periods from every use of theirs. */
  g_autoptr (GHashTable) roles = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) period_asked = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                              (GDestroyNotify) g_bytes_unref,
                                                              NULL);
  for (guint32 i = 0; i < c->n; i++)
    {
      const GArray *nodes = g_hash_table_lookup (role_nodes, GUINT_TO_POINTER (c->cls[i]));
      const WlGraph *g = r->ranks[i].graph;
      guint64 last[4] = { 0, 0, 0, 0 };
      guint32 hint = 0;
      WlNode tmp;
      for (guint e = 0; nodes != NULL && e < nodes->len; e++)
        {
          guint32 v = g_array_index (nodes, guint32, e);
          const WlNode *x = wl_graph_node_at (g, v, &hint, &tmp);
          guint64 grp = wl_replay_node_group (r, x);
          guint64 now[4] = { grp, x->coll_kind, x->bytes, x->involved };
          if (e > 0 && memcmp (now, last, sizeof now) == 0)
            continue;
          memcpy (last, now, sizeof now);
          if (!g_hash_table_contains (roles, &grp))
            g_hash_table_add (roles, g_memdup2 (&grp, sizeof grp));
          if (c->periods && g_hash_table_add (period_asked, use_key (grp, x)))
            note_period (c, grp, x);
        }
    }
  GHashTableIter it;
  gpointer k;
  g_autofree guint64 *role = g_new0 (guint64, c->n);
  g_hash_table_iter_init (&it, roles);
  while (g_hash_table_iter_next (&it, &k, NULL))
    {
      guint32 n = 0;
      const guint32 *ranks = sys_group_ranks (r->sys, *(guint64 *) k, &n);
      /* (4'''): places p and p + period are one role. */
      guint32 period = wl_classes_period (c, *(guint64 *) k, n);
      if (period < n)
        c->max_period = MAX (c->max_period, period);
      for (guint32 m = 0; m < n; m++)
        role[ranks[m]] += wl_classes_mix (wl_classes_mix (n, m % period + 1), 2);
    }
  /* Split each class by role: the first rank of each (class, role). */
  g_autoptr (GHashTable) first = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree guint64 *key = g_new (guint64, c->n);
  g_autofree guint32 *next = g_new (guint32, c->n);
  for (guint32 i = 0; i < c->n; i++)
    {
      key[i] = wl_classes_mix (c->cls[i], role[i]);
      guint32 *j;
      /* Probe past keys that meet by chance. */
      while ((j = g_hash_table_lookup (first, &key[i])) != NULL
             && !(c->cls[*j] == c->cls[i] && role[*j] == role[i]))
        key[i] = wl_classes_mix (key[i], 1);
      if (j != NULL)
        next[i] = *j;
      else
        {
          next[i] = i;
          g_hash_table_insert (first, &key[i], &next[i]);
        }
    }
  memcpy (c->cls, next, c->n * sizeof (guint32));
}

/* Whether group GRP holds ranks of more than one class. */
static gboolean
spans (const Classes *c, guint64 grp)
{
  guint32 n = 0;
  const guint32 *ranks = sys_group_ranks (c->r->sys, grp, &n);
  for (guint32 m = 1; m < n; m++)
    if (c->cls[ranks[m]] != c->cls[ranks[0]])
      return TRUE;
  return FALSE;
}

/* A group across classes met at a simulated rank: all its members are
 * simulated (its image is itself), or with a period k (4''') its first k
 * are, and member m's class is that of member m mod k.  Its period (n:
 * whole), or 0 with *WHY. */
static guint32
whole (const Classes *c, guint64 grp, const char **why)
{
  guint32 n = 0;
  const guint32 *ranks = sys_group_ranks (c->r->sys, grp, &n);
  guint32 k = wl_classes_period (c, grp, n);
  for (guint32 m = 0; m < n; m++)
    if (c->cls[ranks[m]] != ranks[m % k])
      return (*why = k < n ? "a process group across classes whose first members do not stand "
                             "for the members a period on"
                           : "a process group across classes holds simulated ranks and others",
              0);
  return k;
}

/* A group across classes that no simulated rank joins, and its image:
 * the image's member in each place is the rank simulated for the group's
 * member there. */
static gboolean
placed_alike (const Classes *c, guint64 grp, guint64 img, const char **why)
{
  guint32 n = 0, n0 = 0;
  const guint32 *ranks = sys_group_ranks (c->r->sys, grp, &n);
  const guint32 *image = sys_group_ranks (c->r->sys, img, &n0);
  if (n != n0)
    return (*why = "a process group and its image differ in size", FALSE);
  /* The image's member in place m is simulated (a whole image), or stands
   * for it (a periodic one: its class's). */
  for (guint32 m = 0; m < n; m++)
    if (c->cls[ranks[m]] != c->cls[image[m]])
      return (*why = "a process group across classes whose image holds its members' classes "
                     "in other places", FALSE);
  return TRUE;
}

/* (4'''): a periodic group's collective X repeats with the group's
 * period (every use of it: one whose members are alike does not, and no
 * other algorithm delivers a message at the member a period back). */
static gboolean
runs_periodic (const Classes *c, guint64 grp, const WlNode *x, const char **why)
{
  guint32 n = 0;
  (void) sys_group_ranks (c->r->sys, grp, &n);
  guint32 k = sys_group_period (c->r->sys, grp, (SysCollKind) x->coll_kind, x->bytes,
                                x->involved, why);
  if (k != wl_classes_period (c, grp, n))
    return (*why = k == 0 ? *why : "a collective repeats with another period than its group's",
            FALSE);
  return TRUE;
}

/* A use of a group as wl_classes_check_groups meets it: the group, its
 * image, the collective's kind, bytes and dimensions. */
typedef struct
{
  guint64 v[5];
} GroupUse;

/* The hash of the N words at V. */
static guint
words_hash (const guint64 *v, guint n)
{
  guint64 h = 0;
  for (guint i = 0; i < n; i++)
    h = wl_classes_mix (h, v[i]);
  return (guint) (h ^ (h >> 32));
}

static guint
use_hash (gconstpointer p)
{
  const GroupUse *u = p;
  return words_hash (u->v, G_N_ELEMENTS (u->v));
}

static gboolean
use_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (GroupUse)) == 0;
}

/* A use of a group as first_uses tells uses apart: the rank's group slot
 * and its base's group index, the same two of the first rank's (or its
 * own group index and no slot), the collective's kind, bytes and
 * dimensions. */
typedef struct
{
  guint64 v[7];
} SlotUse;

static guint
slot_use_hash (gconstpointer p)
{
  const SlotUse *u = p;
  return words_hash (u->v, G_N_ELEMENTS (u->v));
}

static gboolean
slot_use_equal (gconstpointer a, gconstpointer b)
{
  return memcmp (a, b, sizeof (SlotUse)) == 0;
}

/* The slot and base group index by which G0 names node V's group: a
 * graph of tables names it through its base's slot; one with its own
 * nodes names it itself, with no slot. */
static void
namer_of (const WlGraph *g0, guint32 v, guint64 *slot, guint64 *index)
{
  if (g0->nodes != NULL)
    *slot = WL_NO_SLOT, *index = g0->nodes[v].sys_group_index;
  else
    *slot = g0->base->slots->slot[(gsize) 2 * v],
    *index = g0->base->nodes[v].sys_group_index;
}

/* The collectives of BASE (a base of tables) that a walk of a rank's
 * nodes must visit when the rank is BASE renamed by a table and its
 * class's first rank is G0, a graph with its own nodes or one renamed by
 * a table (of any base): the first of each distinct use (the rank's
 * group slot and base group index, G0's namer_of, kind, bytes and
 * dimensions), by rising index.  Each use names the same group and image
 * at every collective it has in such a rank, so the walk's first meeting
 * of each (group, image, kind, bytes, dimensions), in order, is at one
 * of these nodes: the check meets what a walk of every node meets, in
 * the same order, at the same nodes. */
static GArray *
first_uses (const WlReplay *r, const WlGraph *base, const WlGraph *g0)
{
  const WlNameSlots *s = base->slots;
  GArray *out = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr (GHashTable) seen = g_hash_table_new_full (slot_use_hash, slot_use_equal, g_free,
                                                       NULL);
  for (guint32 v = 0; v < base->n_nodes; v++)
    {
      const WlNode *x = &base->nodes[v];
      if (!runs_coll (r, x))
        continue;
      SlotUse u = { { s->slot[(gsize) 2 * v], x->sys_group_index, 0, 0, x->coll_kind, x->bytes,
                      x->involved } };
      namer_of (g0, v, &u.v[2], &u.v[3]);
      if (g_hash_table_contains (seen, &u))
        continue;
      g_hash_table_add (seen, g_memdup2 (&u, sizeof u));
      g_array_append_val (out, v);
    }
  return out;
}

/* The nodes of rank graph G (its class's first rank's G0) that
 * wl_classes_check_groups visits: first_uses, cached in FIRST, when G is
 * renamed by a table and G0 has its own nodes or is renamed by one; else
 * NULL (every node). */
static const GArray *
uses_to_visit (const WlReplay *r, const WlGraph *g, const WlGraph *g0, GHashTable *first)
{
  if (g->nodes != NULL || g->table == NULL || (g0->nodes == NULL && g0->table == NULL))
    return NULL;
  /* What first_uses depends on: the rank's base, and its class's first
   * rank's base of tables, or that rank itself. */
  ClassesPair key = { g->base, g0->nodes != NULL ? (gconstpointer) g0 : (gconstpointer) g0->base };
  GArray *a = g_hash_table_lookup (first, &key);
  if (a == NULL)
    {
      a = first_uses (r, g->base, g0);
      g_hash_table_insert (first, g_memdup2 (&key, sizeof key), a);
    }
  return a;
}

/* What wl_classes_check_groups knows of one group. */
enum
{
  GROUP_IN_CLASS = 1, /* inside one class */
  GROUP_WHOLE,        /* across classes, every member simulated */
  GROUP_MIRROR,       /* across classes, no member simulated, placed as its image */
  GROUP_PERIODIC      /* across classes, its first members simulated, standing for the
                       * rest a period on (4''') */
};

/* (4): groups inside classes, or across classes whole or mirroring a
 * whole one; mapped onto the simulated ranks' groups, and alike there, or
 * run as their images.  Fills r->class_images with (group, image) pairs. */
gboolean
wl_classes_check_groups (Classes *c, const char **why)
{
  WlReplay *r = c->r;
  g_autoptr (GHashTable) image = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_autoptr (GHashTable) state = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr (GHashTable) asked = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                       (GDestroyNotify) g_bytes_unref, NULL);
  /* The uses met so far: meeting one again checks nothing new (its group's
   * image is its image, its group's state is known, and its use was asked
   * about or needs not be: at a class's first rank in the first pass, at
   * another then, or later at the same) so it is skipped.  Ranks renamed
   * alike meet the same few uses thousands of times. */
  g_autoptr (GHashTable) met = g_hash_table_new_full (use_hash, use_equal, g_free, NULL);
  g_autoptr (GHashTable) first = g_hash_table_new_full (wl_classes_pair_hash, wl_classes_pair_equal, g_free,
                                                       (GDestroyNotify) g_array_unref);
  RecentUse recent[RECENT_USES] = { { { 0 }, 0 } };
  /* The simulated ranks first: their groups are their own images. */
  for (int pass = 0; pass < 2; pass++)
    for (guint32 i = 0; i < c->n; i++)
      {
        if ((c->cls[i] == i) != (pass == 0))
          continue;
        const WlGraph *g = r->ranks[i].graph, *g0 = r->ranks[c->cls[i]].graph;
        /* Long stretches of collectives on one group: the use last
         * checked is known. */
        guint64 last[5] = { 0, 0, 0, 0, 0 };
        gboolean have_last = FALSE;
        guint32 hint = 0, hint0 = 0;
        /* Which nodes are collectives is the same in the graph and its
         * base (a compact graph's shape). */
        const WlNode *shape = wl_graph_shape_nodes (g);
        const GArray *visit = uses_to_visit (r, g, g0, first);
        guint32 n_visit = visit != NULL ? visit->len : g->n_nodes;
        for (guint32 e = 0; e < n_visit; e++)
          {
            guint32 v = visit != NULL ? g_array_index (visit, guint32, e) : e;
            if (!runs_coll (r, &shape[v]))
              continue;
            /* Its kind, bytes and dimensions are the shape's (a compact
             * graph names other groups, nothing else): only the groups
             * are read, without a copy of the node. */
            const WlNode *x = &shape[v];
            guint64 grp = wl_replay_group_at (r, wl_graph_group_index_at (g, v, &hint));
            guint64 img = wl_replay_group_at (r, wl_graph_group_index_at (g0, v, &hint0));
            guint64 now[5] = { grp, img, x->coll_kind, x->bytes, x->involved };
            if (have_last && memcmp (now, last, sizeof now) == 0)
              continue;
            memcpy (last, now, sizeof now);
            have_last = TRUE;
            if (recent_answer (recent, now) != 0 || g_hash_table_contains (met, now))
              {
                recent_note (recent, now, 1);
                continue;
              }
            g_hash_table_add (met, g_memdup2 (now, sizeof now));
            recent_note (recent, now, 1);
            guint64 *have = g_hash_table_lookup (image, &grp);
            if (have == NULL)
              g_hash_table_insert (image, g_memdup2 (&grp, sizeof grp), g_memdup2 (&img, sizeof img));
            else if (*have != img)
              {
                wl_classes_why_use (c->detail, r, grp, img, x);
                return (*why = "the ranks of a class use their process groups in different orders",
                        FALSE);
              }
            gint st = GPOINTER_TO_INT (g_hash_table_lookup (state, &grp));
            if (st == 0)
              {
                if (!spans (c, grp))
                  st = GROUP_IN_CLASS;
                else if (pass > 0)
                  {
                    if (!placed_alike (c, grp, img, why))
                      {
                        wl_classes_why_use (c->detail, r, grp, img, x);
                        return FALSE;
                      }
                    st = GROUP_MIRROR;
                  }
                else
                  {
                    guint32 n = 0, k = whole (c, grp, why);
                    (void) sys_group_ranks (r->sys, grp, &n);
                    if (k == 0)
                      {
                        wl_classes_why_use (c->detail, r, grp, img, x);
                        return FALSE;
                      }
                    st = k < n ? GROUP_PERIODIC : GROUP_WHOLE;
                  }
                g_hash_table_insert (state, g_memdup2 (&grp, sizeof grp), GINT_TO_POINTER (st));
              }
            /* A whole group runs as it would in the full run.  A group
             * inside a class met at another rank than the class's first
             * runs as its image (alike at its members, checked there) does
             * only when the two are laid out and priced alike: a group of
             * two inside node 0 does not stand for one across two nodes,
             * nor an even group of NCCL's for an uneven one. */
            if (st == GROUP_WHOLE || (st == GROUP_IN_CLASS && grp == img && pass > 0))
              continue;
            GBytes *b = use_key (grp, x);
            if (!g_hash_table_add (asked, b))
              continue;
            gboolean mirror = st == GROUP_MIRROR || (st == GROUP_IN_CLASS && grp != img);
            if (st == GROUP_PERIODIC ? !runs_periodic (c, grp, x, why)
                : !mirror
                    ? !sys_group_alike (r->sys, grp, (SysCollKind) x->coll_kind, x->bytes,
                                        x->involved, why)
                    : !sys_group_mirrors (r->sys, grp, img, (SysCollKind) x->coll_kind, x->bytes,
                                          x->involved, why))
              {
                wl_classes_why_use (c->detail, r, grp, img, x);
                return FALSE;
              }
          }
      }
  r->class_images = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init (&it, image);
  while (g_hash_table_iter_next (&it, &k, &v))
    if (*(guint64 *) k != *(guint64 *) v)
      {
        g_array_append_val (r->class_images, *(guint64 *) k);
        g_array_append_val (r->class_images, *(guint64 *) v);
      }
  return TRUE;
}
