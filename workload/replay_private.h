/* replay_private.h: the replay core's state, shared by the files of the
 * replay module: replay.c (issuing and completing nodes, results),
 * replay_load.c (loading and its checks) and replay_groups.c (process
 * groups).  How a rank's nodes are held is the
 * node source's business (replay_source.h); nothing here knows whether a
 * trace is in memory or streamed.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_PRIVATE_H
#define ORRERY_WORKLOAD_REPLAY_PRIVATE_H

#include "workload/graph_cache.h"
#include "workload/replay.h"
#include "workload/replay_check.h"
#include "workload/replay_source.h"

/* Which slot a node occupies.  With separate comm streams, stream index
 * s > 0 has its own comm slots, queue SLOT_N + s - 1 (index 0 keeps
 * SLOT_COMM). */
enum
{
  SLOT_COMP,
  SLOT_CPU,
  SLOT_COMM,
  SLOT_NONE,
  SLOT_N
};

typedef struct
{
  guint32 *buf;
  guint32 head, len, cap;
} WlFifo;

/* WlRank.ready_mask's last bit, shared by the queues from this one on. */
#define READY_SHARED_BIT 63u

typedef struct
{
  WlReplay *replay;
  WlNodeSource *src;    /* its nodes (owned) */
  WlGraph *graph;       /* in memory: the graph (wl_replay_graph; its node source holds
                         * the reference; expanded when compact); NULL when streamed */
  const WlLenientStats *dropped; /* what lenient loading dropped from its file */
  WlKernelLists *kernels; /* its trace's kernel lists (borrowed from the graph or scan) */
  guint32 rank;
  WlFifo *ready;        /* n_queues ready queues: SLOT_* then extra comm streams */
  /* Which ready queues hold nodes: bit s for queue s < READY_SHARED_BIT,
   * and that bit for all the queues from it on (set: scan them), so that
   * issuing finds the next queue with a find-first-set, not by looking at
   * every queue (up to SLOT_N + 63 with separate comm streams). */
  guint64 ready_mask;
  guint *busy;          /* nodes running per queue */
  guint *limit;         /* slots per queue (the parameters' slots_*), looked up once */
  guint n_queues;       /* SLOT_N, plus n_streams - 1 with separate comm streams */
  double speed; /* COMP speed factor (wl_params_rank_speed) */
  guint comp_in_flight;
  guint comm_in_flight;
  guint recv_in_flight; /* receives from another rank in flight, outside any exchange */
  guint exch_in_flight; /* receives from another rank in flight, part of an exchange */
  guint exch_by[WL_MAX_EXCHANGES]; /* those, by WlNode.exchange - 1 */
  const GPtrArray *exchanges; /* its trace's exchange names (borrowed from the graph
                               * or scan) */
  SimTime acct_since;   /* last change of comp/comm_in_flight */
  guint32 finishing;    /* the node whose completion is being handled */
  WlRankStats stats;
  WlNodeRecord *rec;    /* recording: per node */
  /* Communication kernels on its SMs (replay_sm.c): the CTAs of the
   * collectives in flight, each collective's in sm_held (of its node
   * index and CTAs; NULL until one holds any), the sends and receives in
   * flight, and the COMP nodes running at the rate they leave (NULL
   * until one runs). */
  guint32 coll_ctas;
  guint32 p2p_in_flight;
  GArray *sm_held;
  GArray *sm_running;
} WlRank;

/* Node INDEX (N), a collective, send or receive, has started on K: a
 * collective on CTAS CTAs (SysCollRequest.ctas), a send or receive on
 * sys_p2p_ctas's.  COMP nodes running on K run at the new rate. */
void wl_replay_sm_hold (WlRank *k, const WlNode *n, guint32 index, guint32 ctas);
/* Node INDEX (N) has completed on K at NOW: what wl_replay_sm_hold held is
 * free again; a COMP node's time beyond FREE_T (wl_replay_sm_start) is
 * added to k->stats.compute and compute_contention. */
void wl_replay_sm_release (WlRank *k, const WlNode *n, guint32 index, SimTime now);
/* COMP node INDEX (N) starts on K now, FREE_T long on the whole device:
 * under the kernel model with sm_contention (wl_params.h) it runs at the
 * rate of its kernels on the SMs K's communication leaves free, repriced
 * as that changes, ON_DONE (K, INDEX) scheduled at its end, and TRUE;
 * otherwise FALSE and nothing is done. */
gboolean wl_replay_sm_start (WlRank *k, guint32 index, const WlNode *n, SimTime free_t,
                             SimHandler on_done);

/* A compute node's time: the compute model (compute.h; kernels.h for
 * COMP nodes with kernels under the kernel model, each distinct list
 * priced once) for COMP nodes, divided by rank K's speed; host nodes keep
 * their roofline time (as in ASTRA-sim) or trace duration, at speed 1.
 * A node launched on K runs exactly this long (replay.c). */
SimTime wl_replay_compute_time (const WlRank *k, const WlNode *n);

/* A distinct trace file (by content), in memory or streamed: what process
 * groups and the load checks need of it. */
typedef struct
{
  const char *path;       /* borrowed from its graph or first pass */
  const GArray *group_defs; /* WlGroupDef from METADATA nodes, borrowed */
  guint32 n_skipped_unknown;
  WlTraceFacts facts;     /* its GlobalMetadata's iteration facts */
  WlTraceCheck *check;    /* what the load checks noted (owned) */
} WlTrace;

struct _WlReplay
{
  SimSched *sched;
  const SimTime *clock; /* sim_sched_clock (sched): now, read without a call */
  Sys *sys;
  WlParams params;
  guint32 n_ranks;
  WlRank *ranks;
  WlGraphCache *cache;
  GPtrArray *graphs;      /* in memory: distinct WlGraph*, borrowed from the cache */
  GPtrArray *scans;       /* streamed: distinct WlTraceScan*, owned */
  GArray *traces;         /* WlTrace, one per distinct file */
  GError *error;
  gboolean recording;
  gboolean lockstep;
  guint64 budget;         /* bytes for the traces' nodes; 0: no limit */
  char *needs_all;        /* an option that needs every node in memory, or NULL */
  guint32 forced_window;  /* stream with this window whatever the budget; 0: no */
  guint32 window;         /* streamed: nodes per rank; 0: in memory */
  GHashTable *group_map;  /* guint64* trace group id -> index into sys_groups */
  GArray *sys_groups;     /* guint64: the system groups collectives run on, each
                           * once, by index (WlNode.sys_group_index) */
  /* Symmetry classes (replay_classes.c), NULL/0 when none: */
  guint32 *rep_of;        /* per rank: the rank simulated for its class */
  guint32 n_classes;
  GHashTable *class_peer; /* (simulated rank << 32 | class) -> its peer there */
  GArray *class_peer_keys; /* the keys and values class_peer points into */
  GArray *class_images;   /* guint64 pairs: group no simulated rank joined, its image */
  GString *classes_why;   /* wl_replay_classes_why; NULL until classes are tried */
  WlNodeCheckFunc check;  /* called for every node of every distinct trace */
  gpointer check_data;
  GError *check_error;    /* its first failure */
  guint64 trace_bytes;    /* wl_replay_trace_bytes */
  guint64 held_bytes;     /* wl_replay_held_bytes */
};

/* ---- replay.c ------------------------------------------------------------------------ */

/* Make RANK's source K ready to run (the core's side of a node source):
 * SRC is taken. */
void wl_replay_rank_init (WlReplay *r, WlRank *k, guint32 rank, WlNodeSource *src);

/* Free what each rank holds and forget the ranks, keeping the array. */
void wl_replay_ranks_clear (WlReplay *r);

/* wl_graphs_alike: graph.h. */

/* ---- replay_load.c ------------------------------------------------------------------- */

void wl_replay_traces_free (WlReplay *r);

/* ---- replay_classes.c ---------------------------------------------------------------- */

void wl_replay_classes_clear (WlReplay *r);
/* A send from a simulated rank: the channel it is matched on (its
 * destination's stand-in and that one's peer in the sender's class). */
void wl_replay_class_channel (const WlReplay *r, SysP2PRequest *req);

/* Note in S a send of an exchange (N->exchange != 0) starting (DELTA >
 * 0: its rank's first send of it marks the exchange's start; a receive is
 * posted long before data moves) or a receive from another rank (REMOTE)
 * done at NOW: WlRankStats' exchange_*_by. */
void wl_replay_exchange_note (WlRankStats *s, const WlNode *n, gboolean remote, SimTime now,
                              int delta);

/* ---- replay_classes_why.c ------------------------------------------------------------ */

/* Append "the group of N ranks a, b, ..., z" (long lists cut). */
void wl_classes_why_group (GString *out, WlReplay *r, guint64 grp);
/* Append "KIND of BYTES B on GROUP (its image: GROUP)" for collective
 * node X on group GRP, whose image is IMG (the image left out when the
 * same). */
void wl_classes_why_use (GString *out, WlReplay *r, guint64 grp, guint64 img, const WlNode *x);

/* What wl_replay_classes found, for wl_classes_why_say: REFUSED, when not
 * NULL, the reason and DETAIL what it concerns (NULL or "" when nothing
 * more).  ROLES_WHY and ROLES_USE: why some groups' places are roles and
 * the first such collective, or NULL.  PERIOD: the largest period places
 * were taken mod (node-shift symmetry, replay_classes.c (4''')), 0 when
 * none; PERIOD_WHY: why a group whose members play roles has none, or
 * why periods were refused (then PERIOD is 0, and PERIOD_DETAIL what the
 * refusal concerns), or NULL. */
typedef struct
{
  const char *refused, *detail, *roles_why, *roles_use;
  guint32 period;
  const char *period_why, *period_detail;
} WlClassesWhy;

/* Say in r->classes_why what wl_replay_classes found: COUNTS the classes
 * after each of its steps (trace shapes, places in groups with roles,
 * peers), or why it refused (SAY). */
void wl_classes_why_say (WlReplay *r, const guint32 counts[3], const WlClassesWhy *say);

#endif /* ORRERY_WORKLOAD_REPLAY_PRIVATE_H */
