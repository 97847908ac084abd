/* replay_private.h: what the two parts of the replay share: replay.c (the
 * trace graphs in memory, the launch of nodes, process groups, results) and
 * replay_stream.c (streamed traces: their loading and completions).  Only
 * workload/replay*.c include it.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_PRIVATE_H
#define ORRERY_WORKLOAD_REPLAY_PRIVATE_H

#include "workload/graph_cache.h"
#include "workload/replay.h"
#include "workload/stream.h"

/* Which slot a node occupies. */
enum
{
  SLOT_COMP,
  SLOT_CPU,
  SLOT_COMM,
  SLOT_NONE,
  SLOT_N
};

/* Node states, per rank. */
enum
{
  NODE_WAITING,
  NODE_READY,
  NODE_RUNNING,
  NODE_DONE
};

typedef struct
{
  guint32 *buf;
  guint32 head, len, cap;
} WlFifo;

/* Streaming: what the first pass over one distinct file found that the
 * checks after loading need (graph loading's checks, which look at every
 * node, are summarised here so that no node is kept). */
typedef struct
{
  guint64 position;     /* nodes seen so far */
  WlNode first_self;    /* the first send/receive with its own rank explicit */
  WlNode other_self;    /* the first whose explicit own rank differs from that */
  WlNode bad_peer;      /* the first with a missing or out-of-range peer */
  guint64 first_self_at, other_self_at, bad_peer_at; /* positions; G_MAXUINT64: none */
  GError *compute;      /* the first COMP node the compute model cannot time */
  GArray *colls;        /* CollGroup: each group id collectives use, in order of first use */
  GHashTable *seen;     /* guint64* group ids in colls */
} ScanInfo;

/* A process group id used by collectives, and the first node using it. */
typedef struct
{
  guint64 group;
  guint64 node;
} CollGroup;

typedef struct
{
  WlReplay *replay;
  WlGraph *graph;       /* in memory; NULL when streamed */
  guint32 rank;
  guint32 *parents_left;
  guint8 *state;
  WlFifo ready[SLOT_N];
  guint busy[SLOT_N];
  double speed; /* COMP speed factor (wl_params_rank_speed) */
  guint comp_in_flight;
  guint comm_in_flight;
  SimTime acct_since;   /* last change of comp/comm_in_flight */
  guint32 finishing;    /* the node whose completion is being handled */
  WlRankStats stats;
  WlNodeRecord *rec;    /* recording: per node */
  GHashTable *coll_seq; /* recording: group id -> next collective sequence */
  /* Streamed traces (after the fields the in-memory replay uses, which
   * stay where they were): */
  WlStream *stream;     /* the window; NULL when in memory */
  SimHandler done;      /* on_node_done, or wl_replay_on_stream_done */
  WlTraceScan *scan;    /* the first pass over its file (shared) */
  ScanInfo *info;       /* what the checks need from it (shared) */
} WlRank;

/* Recording: one collective instance, (group, sequence), and the member
 * that joined it last so far. */
typedef struct
{
  guint32 last_rank, last_index;
  SimTime last_join;
} WlCollInst;

/* Recording: point-to-point nodes waiting for their match on one
 * (src, dst, tag), as rank << 32 | index. */
typedef struct
{
  guint32 src, dst;
  gint32 tag;
} WlP2PKey;

typedef struct
{
  GArray *sends, *recvs; /* guint64 */
  guint send_head, recv_head;
} WlP2PWait;

struct _WlReplay
{
  SimSched *sched;
  Sys *sys;
  WlParams params;
  guint32 n_ranks;
  WlRank *ranks;
  WlGraphCache *cache;
  GPtrArray *graphs; /* distinct WlGraph*, borrowed from the cache */
  GError *error;
  gboolean recording;
  gboolean lockstep;
  GArray *insts;          /* WlCollInst */
  GHashTable *inst_index; /* guint64* group -> GArray of guint32 instance per sequence */
  GHashTable *p2p_wait;   /* WlP2PKey* -> WlP2PWait* */
  guint64 budget;         /* bytes for the traces' nodes; 0: no limit */
  char *needs_all;        /* an option that needs every node in memory, or NULL */
  guint32 forced_window;  /* stream with this window whatever the budget; 0: no */
  guint32 window;         /* streamed: nodes per rank; 0: in memory */
  GPtrArray *scans;       /* streamed: distinct WlTraceScan*, owned */
  GPtrArray *infos;       /* streamed: their ScanInfo*, owned */
  GHashTable *group_map;  /* streamed: guint64* group id -> guint64* system group */
  WlNodeCheckFunc check;  /* called for every node of every distinct trace */
  gpointer check_data;
  GError *check_error;    /* its first failure */
};

/* ---- shared by replay.c and replay_stream.c ---------------------------------------- */

static inline guint
wl_replay_slot_of (const WlNode *n)
{
  switch ((WlOp) n->op)
    {
    case WL_OP_COMP:
      return SLOT_COMP;
    case WL_OP_CPU:
      return SLOT_CPU;
    case WL_OP_COLL:
    case WL_OP_SEND:
      return SLOT_COMM;
    case WL_OP_RECV:
    case WL_OP_MEM:
    case WL_OP_SKIP:
      break;
    }
  return SLOT_NONE;
}

/* Double K's ready queue F; FALSE (the run stopped with an out-of-memory
 * error) when it cannot grow. */
gboolean wl_replay_fifo_grow (WlRank *k, WlFifo *f);

static inline void
wl_replay_fifo_push (WlRank *k, WlFifo *f, guint32 v)
{
  if (f->len == f->cap && !wl_replay_fifo_grow (k, f))
    return;
  f->buf[(f->head + f->len++) % f->cap] = v;
}

/* Stop the run with ERROR (taken; the first error is kept). */
void wl_replay_fail_in_event (WlReplay *r, GError *error);

/* What a completion of node INDEX (N) at NOW does before its dependents are
 * released: slots, counts, accounting, records. */
void wl_replay_complete (WlRank *k, guint32 index, const WlNode *n, SimTime now);

/* Issue what node INDEX's completion made ready (or freed a slot for),
 * noting INDEX as their predecessor (WL_NO_NODE: the rank's start). */
void wl_replay_issue_after (WlRank *k, guint32 index);

/* The node check (wl_replay_set_node_check) on N of PATH, keeping its first
 * failure. */
void wl_replay_node_check (WlReplay *r, const char *path, const WlNode *n);

/* Whether the compute model cannot time N, and the error that says so. */
gboolean wl_replay_untimeable (const WlParams *p, const WlNode *n);
void wl_replay_untimeable_error (const char *path, const WlNode *n, GError **error);

/* check_rank's parts: a send or receive naming another rank than RANK as
 * its own, one without a peer or with one beyond the topology (NULL when
 * fine), and the error naming it. */
const char *wl_replay_self_problem (const WlNode *n, guint32 rank);
const char *wl_replay_peer_problem (const WlNode *n, guint32 n_ranks);
gboolean wl_replay_p2p_error (const char *path, guint32 rank, const WlNode *n, const char *what,
                              GError **error);

/* The system group that collectives naming group ID run on, or FALSE with
 * ERROR set (naming PATH and NODE) when ID is not defined. */
gboolean wl_replay_system_group (const WlGroups *groups, GHashTable *defs, GHashTable *world,
                                 guint64 id, const char *path, guint64 node, guint64 *out,
                                 GError **error);

/* ---- replay_stream.c ---------------------------------------------------------------- */

/* Streamed loading, once the traces did not fit the budget: the first
 * pass over each distinct file, its checks, and each rank's window. */
gboolean wl_replay_load_streamed (WlReplay *r, const char *const *paths, guint32 ranks,
                                  GError **error);

/* FALSE with ERROR set when an option needs every node in memory. */
gboolean wl_replay_may_stream (const WlReplay *r, GError **error);

/* Map each group id the streamed traces' collectives use to its system
 * group (r->group_map), checking that it is defined. */
gboolean wl_replay_resolve_streamed_groups (WlReplay *r, const WlGroups *groups,
                                            GHashTable *defs, GHashTable *world,
                                            GError **error);

/* A streamed rank's start, and a streamed node's completion (SimHandler). */
void wl_replay_on_stream_start (SimSched *sched, gpointer data, guint64 arg);
void wl_replay_on_stream_done (SimSched *sched, gpointer data, guint64 index);

void wl_replay_scan_info_free (gpointer p);

#endif /* ORRERY_WORKLOAD_REPLAY_PRIVATE_H */
