/* sys_private.h: the system layer's shared internals (sys.c, coll.c,
 * group.c, p2p.c).  Only system/ includes it.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_SYS_PRIVATE_H
#define ORRERY_SYSTEM_SYS_PRIVATE_H

#include "system/algo.h"
#include "system/algo_nccl.h"
#include "system/sys.h"
#include "network/price.h"
#include "system/waitq.h"

/* One dimension of a group: members along it are `stride` apart in member
 * order, and it runs on topology dimension `topo_dim`. */
typedef struct
{
  guint topo_dim;
  guint32 size;
  guint32 stride;
} SysGroupDim;

/* A plan sys_nccl_plan gave a group, for (kind + 1, bytes); kind_1 0: an
 * empty place.  A plan is a function of the group, the kind and the bytes,
 * and a training step's collectives ask the same few again and again
 * (coll_plan.c). */
typedef struct
{
  guint64 bytes;
  guint32 kind_1;
  SysNcclPlan plan;
} SysNcclMemo;

#define SYS_NCCL_MEMO 16 /* places, a power of two */

typedef struct _SysCollMemo SysCollMemo;

/* A place of SysGroup.live: COLL (NULL: none) is the collective of
 * sequence number SEQ. */
typedef struct
{
  SysColl *coll;
  guint32 seq;
} SysLiveSlot;

#define SYS_GROUP_HINTS 64 /* a power of two */

typedef struct
{
  guint64 id;
  guint32 n;
  guint32 *ranks;         /* member index -> rank */
  GHashTable *member_of;  /* rank + 1 -> member index + 1; NULL for the world */
  guint n_dims;
  /* dims[n_dims] is the flat dimension: every member in order, for the
   * "one" algorithms and the rooted kinds. */
  SysGroupDim dims[NET_MAX_DIMS + 1];
  /* Laid out flat by the compatibility policy (SysCompat.subgroups_flat):
   * one line in the listed order on dimension 0's queue, running
   * Sys.subgroup_algo, each message costing SysCompat.subgroup_delay. */
  gboolean policy_flat;
  /* Members along each group dimension (the flat one aside) differ only in
   * that dimension's topology coordinate, so a message between them
   * travels that dimension (a sub-grid of the topology: group.c). */
  gboolean aligned;
  guint32 *next_seq;      /* per member: sequence number of its next collective */
  /* Per member and group dimension (flat one included): the member's
   * position on that dimension's line, (member / stride) % size, computed
   * once: the message path needs it for every message.  NULL for groups too
   * large to tabulate (then computed). */
  guint32 *pos;
  /* Its live collectives (joined, not done), the one of sequence number s
   * at s mod live_cap, a power of two grown until no two of them share a
   * place: members join in sequence order, so the live ones span a few
   * numbers, and a join finds its collective without hashing. */
  SysLiveSlot *live;
  guint32 live_cap;
  SysNcclGroup *nccl;     /* the NCCL library's view, built on first use */
  SysNcclMemo *nccl_memo; /* SYS_NCCL_MEMO plans of it by (kind, bytes), or NULL */
  /* Whether NCCL's rings run alike at every member (sys_nccl_plan_alike,
   * which for a plan with ring steps asks only of the group's layout):
   * 0 not asked yet, 1 no, 2 yes.  Asked per collective otherwise. */
  guint8 nccl_rings_alike;
  /* Its collectives' plans by request and the storage of finished ones
   * (coll_plan.c), or NULL before its first collective. */
  SysCollMemo *coll_memo;
} SysGroup;

/* Free a group's SysCollMemo (accepts NULL). */
void sys_coll_memo_free (SysCollMemo *memo);

typedef struct
{
  guint16 active[NET_MAX_DIMS];
  gint64 issued; /* collectives this rank has joined: LIFO/FIFO priorities */
  SysWaitQueue waiting[NET_MAX_DIMS];
  /* Symmetry classes: per dimension, the last instant its queue was used
   * and the collective that used it, by group and sequence number
   * (sys_class_overlaps). */
  SimTime used_at[NET_MAX_DIMS];
  const SysGroup *used_group[NET_MAX_DIMS];
  guint32 used_seq[NET_MAX_DIMS];
  /* Per dimension, the chunk phases that another member of one of the
   * rank's lines started there first and this rank has not yet, oldest
   * first (coll.c, "the line order"). */
  SysOwedList owed[NET_MAX_DIMS];
} SysRankQueues;

struct _Sys
{
  SimSched *sched;
  Net *net;
  const NetTopo *topo;
  SysParams params;
  SysAlgoRef algo[SYS_COLL_N][NET_MAX_DIMS]; /* per kind and topology dim */
  const SysAlgoClass *subgroup_algo; /* SysCompat.subgroup_algorithm, resolved */
  SysGroup *world;
  GHashTable *groups;     /* guint64* id -> SysGroup* */
  /* The last group found of each id modulo SYS_GROUP_HINTS (sys_group_find:
   * every collective join asks; groups are never removed). */
  SysGroup *group_hint[SYS_GROUP_HINTS];
  SysRankQueues *queues;  /* per rank */
  guint32 queue_order;
  guint32 line_clock;     /* the last ticket handed out (coll.c, line_note_start) */
  SysColl *live_colls;    /* the live collectives (SysColl.live_next), for diagnostics */
  SysCollStats stats[SYS_COLL_N];
  GArray *group_stats;          /* SysCollGroupStats */
  GHashTable *group_stats_index; /* "kind/group/algorithms" -> row + 1 */
  GHashTable *group_stats_rows;  /* SysStatsKey -> row + 1: what group_stats_index
                                  * gave for it (coll_report.c) */
  GArray *coll_records;          /* SysCollRecord, in completion order */
  gboolean no_coll_records;      /* sys_set_coll_records (sys, FALSE) */
  NetPriceTable reduce_prices; /* sys_phase_reduce_cost's, keyed by bytes and local_mem_bw */
  NetPriceTable serial_prices; /* sys_phase_serialization's */
  struct _SysP2P *p2p;
  gboolean lockstep;      /* sys_set_lockstep */
  gboolean classes;       /* sys_set_classes */
  const guint32 *rep_of;  /* ... its argument (borrowed), or NULL */
  gboolean classes_shared; /* ... over shared ports: the queues are watched */
  guint64 class_overlaps; /* see sys_class_overlaps */
  guint64 class_line_holds; /* see sys_class_line_holds */
};

/* sys.c */
/* The names a configuration may give KIND under TIMING, as a new string
 * ("ring, direct, ..."), for messages. */
char *sys_algorithms_for (SysCollKind kind, SysTiming timing);

/* group.c */
/* NULL, with an input error, when its arrays cannot be allocated. */
/* flat_subgroups: lay a group smaller than the system out flat, in the
 * order given (SysCompat.subgroups_flat). */
SysGroup *sys_group_new (const NetTopo *topo, guint64 id, const guint32 *ranks, guint32 n,
                         gboolean flat_subgroups, GError **error);
void sys_group_free (SysGroup *group);
/* sys_group_alike, of GROUP itself. */
gboolean sys_group_alike_of (Sys *sys, SysGroup *group, SysCollKind kind, guint64 bytes,
                             guint32 involved, const char **why);
/* The member index of `rank`, or -1 if it is not in the group. */
gint64 sys_group_member (const SysGroup *group, guint32 rank);
SysGroup *sys_group_find (Sys *sys, guint64 id);
/* GROUP's live collective of sequence number SEQ, or NULL. */
static inline SysColl *
sys_group_live (const SysGroup *group, guint32 seq)
{
  const SysLiveSlot *s = &group->live[seq & (group->live_cap - 1)];
  return s->seq == seq ? s->coll : NULL;
}
/* COLL, of sequence number SEQ, is live on GROUP (none of that number is). */
void sys_group_live_add (SysGroup *group, guint32 seq, SysColl *coll);
/* The collective of sequence number SEQ, live on GROUP, is done. */
void sys_group_live_remove (SysGroup *group, guint32 seq);
/* "all ranks" or "group 7", for messages (a new string). */
char *sys_group_label (const SysGroup *group);

/* coll.c */
void sys_coll_free (SysColl *coll);
void sys_coll_describe (const SysColl *coll, GString *out);

/* p2p.c */
struct _SysP2P *sys_p2p_new (void);
void sys_p2p_free (struct _SysP2P *p2p);
guint sys_p2p_describe (const struct _SysP2P *p2p, GString *out);

/* The table of group_stats_rows (coll_report.c), which finds a finished
 * collective's row by what its algorithms' names are made from, sparing
 * their text per collective. */
GHashTable *sys_stats_rows_new (void);

#endif /* ORRERY_SYSTEM_SYS_PRIVATE_H */
