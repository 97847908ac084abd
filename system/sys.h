/* sys.h: the system layer: collectives and point-to-point messages.
 *
 * Models: each rank's communication library.  A collective is identified by
 * its process group and its sequence number within that group on each member
 * (the n-th collective a rank issues on group g meets the n-th of every other
 * member).  It is cut into chunks; each chunk runs a list of phases, one per
 * network dimension the group spans (localBWAware all-reduce: reduce-scatter
 * up the dimensions, all-reduce on the last, all-gather back down), and each
 * phase runs that dimension's algorithm.  Every rank has, per dimension, a
 * queue of chunk phases and a limit of active ones, so chunks pipeline across
 * dimensions.  A message of a step leaves when its sender reaches that step;
 * a step that needs data waits for it, so a late joiner delays its peers.
 * Every message costs an endpoint delay; every reducing step a pass over local
 * memory.  Point-to-point sends and receives match on (src, dst, tag) in order.
 *
 * Ownership: Sys borrows the scheduler and network.  Completion callbacks
 * (on_done) are SimHandlers run at the simulated time of completion; the
 * informational ones run synchronously inside the system layer: on_match
 * within the sys_p2p_send/recv call that completes a pair, on_last_joiner
 * just before on_done.  Neither may call back into Sys.  Callback data is
 * borrowed.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_SYS_H
#define ORRERY_SYSTEM_SYS_H

#include <glib.h>

#include "network/net.h"
#include "sim/sched.h"
#include "system/sys_params.h"

typedef struct _Sys Sys;

/* A process group as the system layer sees it: an id and its ranks.  Groups
 * are registered once; the id WL-side "all ranks" group is SYS_GROUP_WORLD. */
#define SYS_GROUP_WORLD G_MAXUINT64

#define SYS_ROOT_FIRST G_MAXUINT32

/* Called when a member's part of a collective is complete, just before its
 * on_done: DATA and ARG are the member's own, JOINER_DATA and JOINER_ARG
 * those of the member that joined the collective last so far (possibly
 * itself). */
typedef void (*SysCollJoinerFunc) (gpointer data, guint64 arg, gpointer joiner_data,
                                   guint64 joiner_arg);

typedef struct
{
  SysCollKind kind;
  guint64 bytes;          /* comm_size: see FORMAT.md (all-gather: per-rank input) */
  guint64 group;          /* a registered group id, or SYS_GROUP_WORLD */
  gint32 priority;        /* EXPLICIT scheduling: higher runs first */
  guint32 root;           /* rooted kinds: the root rank; SYS_ROOT_FIRST: the
                           * group's first member */
  guint32 involved_dims;  /* bit d set: may use topology dimension d */
  guint64 node_id;        /* for diagnostics only */
  const char *node_name;  /* for diagnostics only, borrowed; NULL or "": none */
  guint32 order;          /* the node's place in its rank's trace: this rank's
                           * messages go in this order among others claiming
                           * a shared port at one instant (NetMessage.order) */
  SimHandler on_done;     /* run when this rank's part is complete */
  gpointer data;
  guint64 arg;
  SysCollJoinerFunc on_last_joiner; /* may be NULL */
  /* When not NULL, set by a successful join to the CTAs (thread blocks,
   * each resident on one SM for the whole collective) this rank's part
   * runs on: under the NCCL library, the channels NCCL runs it on for its
   * size (SysNcclChoice.channels: NVLS's own count for NVLS); 0 where the
   * library models no kernel (per-dimension algorithms, programs). */
  guint32 *ctas;
} SysCollRequest;

/* Called when a send and a receive are matched (as the second of the two
 * is posted), before either completes: DATA and ARG are the request's own,
 * PEER_DATA and PEER_ARG those of the request it matched. */
typedef void (*SysP2PMatchFunc) (gpointer data, guint64 arg, gpointer peer_data,
                                 guint64 peer_arg);

typedef struct
{
  guint32 src, dst;
  gint64 tag;
  guint64 bytes;
  guint64 node_id;    /* for diagnostics only */
  guint32 order;      /* a send's place in its rank's trace (NetMessage.order) */
  SimHandler on_done; /* send: at delivery; receive: when the data is in */
  gpointer data;
  guint64 arg;
  SysP2PMatchFunc on_match; /* may be NULL */
  /* Symmetry classes: a send from a simulated rank to a rank it stands
   * for is matched on the channel (chan_src, chan_dst, tag) of the rank
   * that stands for dst, while its data still travels from src to dst. */
  gboolean chan_alias;
  guint32 chan_src, chan_dst;
} SysP2PRequest;

/* The most bytes a collective of KIND moves through one of its RANKS
 * members, as a multiple of its comm_size: gathering kinds collect
 * (scatter hands out) comm_size from or to each member; an all-reduce
 * sends about twice its buffer; the others at most their buffer (2 is kept
 * for a margin).  For checking sizes before a run. */
static inline guint64
sys_coll_rank_bytes_factor (SysCollKind kind, guint32 ranks)
{
  switch (kind)
    {
    case SYS_COLL_ALL_GATHER:
    case SYS_COLL_GATHER:
    case SYS_COLL_SCATTER:
      return MAX (ranks, 2u);
    default:
      return 2;
    }
}

/* Resolves every configured algorithm name; fails naming the collective and
 * the algorithm when the pair does not exist. */
Sys *sys_new (SimSched *sched, Net *net, const SysParams *params, GError **error);
void sys_free (Sys *sys); /* accepts NULL */

/* Register group `id` with n distinct ranks (copied).  The ranks must exist
 * in the topology.  A group of every rank runs as the world does, but its
 * collectives are its own (matched on `id`, not with the world's). */
gboolean sys_group_add (Sys *sys, guint64 id, const guint32 *ranks, guint n, GError **error);

/* Rank `rank` joins its next collective on req->group, now.  Fails (input
 * error) when the rank is not in the group or when the collective it meets
 * disagrees in kind or size with what other members joined. */
gboolean sys_coll_join (Sys *sys, guint32 rank, const SysCollRequest *req, GError **error);

/* Post a send (at req->src) or a receive (at req->dst), now.  Fails when a
 * matched pair disagrees in size (naming both nodes). */
gboolean sys_p2p_send (Sys *sys, const SysP2PRequest *req, GError **error);
gboolean sys_p2p_recv (Sys *sys, const SysP2PRequest *req, GError **error);

/* Append to `out` one line per collective and message still incomplete:
 * which group and sequence, which ranks joined and which did not; which
 * receives wait for which sends.  Returns the number of lines. */
guint sys_describe_pending (const Sys *sys, GString *out);

/* Per-kind totals over the run, for reports. */
typedef struct
{
  guint64 count;   /* collectives completed (counted once, not per member) */
  guint64 bytes;   /* sum of their sizes */
  SimTime busy;    /* sum over collectives of (last member done - first join) */
} SysCollStats;

void sys_coll_stats (const Sys *sys, SysCollKind kind, SysCollStats *out);

/* Totals per collective kind, process group and algorithms. */
typedef struct
{
  SysCollKind kind;
  guint64 group;       /* SYS_GROUP_WORLD or a group id */
  guint32 ranks;       /* the group's members */
  guint64 count;       /* collectives completed */
  guint64 bytes;       /* sum of their sizes (comm_size) */
  SimTime busy;        /* sum of (last member done - first member joined) */
  SimTime wait;        /* sum of (last member joined - first member joined) */
  char algorithm[64];  /* per dimension used, in order: "ring,direct"; "-": none */
  gboolean in_network; /* it reduces inside the switches (NVLS, CollNet): less
                        * data crosses the members' ports than busbw counts */
} SysCollGroupStats;

/* A new array of SysCollGroupStats, ordered by kind, then group (the world
 * first), then algorithms. */
GArray *sys_coll_group_stats (const Sys *sys);

/* One completed collective. */
typedef struct
{
  SysCollKind kind;
  guint64 group;       /* SYS_GROUP_WORLD or a group id */
  guint32 seq;         /* its sequence number on the group */
  guint32 ranks;
  guint64 bytes;
  SimTime first_join, last_join, done; /* done: its last member finished */
  guint row;           /* internal */
} SysCollRecord;

/* Every completed collective, in order of completion. */
const SysCollRecord *sys_coll_records (const Sys *sys, guint *n);

/* Whether completed collectives are kept for sys_coll_records (default
 * on); off, it gives none, and nothing else changes (the planner reads
 * only the per-group statistics). */
void sys_set_coll_records (Sys *sys, gboolean on);

const SysParams *sys_params (const Sys *sys);

/* The CTAs OPS sends and receives in flight on one rank run on under the
 * NCCL library: its channels per peer each (sys.c cites NCCL's default),
 * at most NCCL's channel limit in all; 0 under the other libraries. */
guint32 sys_p2p_ctas (const Sys *sys, guint32 ops);
Net *sys_net (const Sys *sys);

/* The ranks of group `id` in member order (n set), or NULL for an unknown
 * group. */
const guint32 *sys_group_ranks (Sys *sys, guint64 id, guint32 *n);

/* Lockstep: every rank of the world runs the same collectives at the same
 * times, so that one rank stands for all.  Only rank 0 joins; the others are
 * taken to have joined with it, and each message rank 0 sends comes back to
 * rank 0 as the one its symmetric peer sends it, at the same time, priced
 * for the real pair.  Exact where the algorithm and the network treat every
 * member alike: see sys_symmetric. */
void sys_set_lockstep (Sys *sys, gboolean on);

/* Whether a collective of `kind` on the whole world over the dimensions of
 * `involved_dims` is symmetric: every member sends and receives alike, at
 * the same times.  FALSE (with *why, a static string) otherwise. */
gboolean sys_symmetric (const Sys *sys, SysCollKind kind, guint32 involved_dims,
                        const char **why);

/* Symmetry classes, the general form of lockstep: ranks fall into classes
 * whose members do the same things at the same times (the workload layer
 * proves it: workload/replay.h), and only one rank per class runs,
 * rep_of[rank] (one entry per rank, borrowed; rep_of[r] == r for the
 * simulated ones).  Every group a collective runs on lies inside one
 * class, and its members are taken to join with the one that runs, as in
 * lockstep; the network receives each message at the ports of the rank
 * that stands for its destination (net_set_rank_alias).  FALSE with *why
 * when the network cannot. */
gboolean sys_set_classes (Sys *sys, const guint32 *rep_of, const char **why);

/* With symmetry classes: how many times two collectives used one queue of
 * a simulated rank (the chunk phases waiting for one of its dimensions) at
 * the same instant.  Which went first is then the order the run happened
 * to handle them in, which the ranks a class stands for may meet
 * differently: the results are then not known to be every rank's (the
 * application redoes the run).  (At the rank's ports the messages of one
 * instant go in the order of their nodes, which is every rank's:
 * network/link_analytical.c.) */
guint64 sys_class_overlaps (const Sys *sys);

/* With symmetry classes: how many times a collective run in lockstep (its
 * group inside one class) waited in a queue of the simulated rank for a
 * chunk phase the rank owed there: one of another collective that a
 * member of one of its lines had started first (coll.c, "the line
 * order").  The ranks the class stands for would each have waited for
 * tickets of their own, which the run does not show: the application
 * redoes the run over every rank. */
guint64 sys_class_line_holds (const Sys *sys);

/* Whether the members of group `id` run a collective of `kind`,
 * `bytes` and `involved_dims` alike, each at the same times, so that one
 * can stand for all (what sys_symmetric asks of the world, for a
 * group).  FALSE with *why (static) otherwise. */
gboolean sys_group_alike (Sys *sys, guint64 id, SysCollKind kind, guint64 bytes,
                          guint32 involved_dims, const char **why);

/* Node-shift symmetry: the period k of a collective of `kind`, `bytes` and
 * `involved_dims` on group `id` whose members are not alike
 * (sys_group_alike): under the NCCL library a ring across nodes whose
 * places p and p + k do the same at the same times, each hop between
 * places priced and using its ports as the one k places before it, the
 * wrap too (sys_nccl_plan_period).  Symmetry classes then simulate places
 * 0 .. k-1 only and deliver a message to place q at place q mod k.  0
 * with *why (static) when not provable: every other kind, library and
 * algorithm. */
guint32 sys_group_period (Sys *sys, guint64 id, SysCollKind kind, guint64 bytes,
                          guint32 involved_dims, const char **why);

/* Whether a collective of `kind`, `bytes` and `involved_dims` on group
 * `id` runs at each member as the same collective on group `image` runs
 * at the member in the same place, given that each starts when that one
 * does: the two are laid out alike (dimensions, or NCCL's nodes), get the
 * same plan from algorithms whose members' parts depend on their places
 * alone (SysAlgoClass.mirror_why), and every message between two places
 * is priced, and uses its ports, alike in both (net_routes_alike; under
 * NCCL the pairs of places its plan sends between, sys_nccl_plan_pair,
 * else every pair).  What
 * symmetry classes ask of a group across classes that no simulated rank
 * joins, and of a group inside a class that is not its own image.  FALSE
 * with *why (static) otherwise. */
gboolean sys_group_mirrors (Sys *sys, guint64 id, guint64 image, SysCollKind kind, guint64 bytes,
                            guint32 involved_dims, const char **why);

/* After a run with symmetry classes: group `groups[2i]`, which no
 * simulated rank joined, ran exactly what `groups[2i + 1]` ran (its image
 * in the simulated ranks' groups): give it those collectives' statistics,
 * per kind and in the per-group table. */
void sys_classes_finish (Sys *sys, const guint64 *groups, guint n_pairs);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Sys, sys_free)

#endif /* ORRERY_SYSTEM_SYS_H */
