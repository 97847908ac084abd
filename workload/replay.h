/* replay.h: replaying every rank's trace graph through the system layer.
 *
 * Models: each rank issues its ready nodes (all dependencies finished) in the
 * order they became ready, subject to its execution slots: at most
 * slots_comp accelerator compute nodes, slots_cpu host nodes and slots_comm
 * communication nodes (collectives and sends) at once; receives, memory
 * operations and skipped nodes take no slot.  COMP time comes from the
 * compute model (wl_params.h), collectives and messages from the system
 * layer.  Finishing a node releases its dependents.
 *
 * Per rank it accounts: the finish time (last node done), accelerator compute
 * time, and exposed communication = finish - compute (ASTRA-sim's figure).
 *
 * Memory budget and streaming.  By default every rank's trace is loaded
 * whole (graph.h; byte-identical files share one graph).  With a budget
 * (wl_replay_set_memory_budget), loading keeps a running total of the bytes
 * it holds: for each distinct file, its graph (wl_graph_bytes: 88 bytes per
 * node, 4 per dependency edge, the node names) or, while the file is being
 * read, the loader's working memory (WL_LOAD_NODE_BYTES per node read so
 * far, WL_LOAD_DEP_BYTES per dependency, the names); for each rank, 5 bytes
 * per node of its trace.  As soon as the total would pass the budget, what
 * was loaded is freed and every rank's trace is streamed instead
 * (stream.h): a first pass over each distinct file checks it, then each
 * rank reads its file during the run into a window of
 * max (WL_STREAM_MIN_WINDOW, (budget / ranks - WL_STREAM_RANK_BYTES) /
 * WL_STREAM_NODE_BYTES) nodes.  The decision depends only on the budget and
 * the files' contents.  A streamed replay gives the same results as the
 * in-memory one, or stops with an input error when the window is too small
 * to read every node before it would become ready (stream.h); it cannot
 * record nodes (wl_replay_set_recording) and is never symmetric.
 *
 * Out of memory: the per-rank and per-node arrays (ranks, dependency
 * counts, states, ready queues) are allocated with checks; a failure is an
 * input error, "out of memory allocating N x S bytes for ...", at load, or
 * during the run (wl_replay_ok).
 *
 * Ownership: WlReplay borrows the scheduler, system layer and params; it
 * owns the graphs (shared between byte-identical files), or when streamed
 * the first passes (shared alike) and each rank's window.
 *
 * Files: replay.c is the core (slots, timing, completions) over a node
 * source per rank (replay_source.h: replay_mem.c holds a graph in memory,
 * replay_stream.c streams a window); replay_load.c loads and checks the
 * traces (replay_check.h, one pass per distinct file either way);
 * replay_groups.c binds process groups (a collective keeps the group its
 * trace names, WlNode.group, and gets the index of the system group it
 * runs on, wl_replay_node_group).  Node records take their peers
 * from the system layer (which send a receive matched, which member joined
 * a collective last).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_REPLAY_H
#define ORRERY_WORKLOAD_REPLAY_H

#include <glib.h>

#include "sim/sched.h"
#include "system/sys.h"
#include "workload/graph.h"
#include "workload/groups.h"
#include "workload/wl_params.h"

typedef struct _WlReplay WlReplay;

typedef struct
{
  SimTime finish;       /* when its last node finished (0 if it had none) */
  SimTime compute;      /* accelerator compute time, summed over COMP nodes */
  /* The part of compute added by communication kernels holding SMs when
   * a COMP node started (replay_sm.c; kernel model only). */
  SimTime compute_contention;
  SimTime cpu;          /* host compute time, summed */
  /* Over [0, finish], each instant is one of: accelerator compute in flight
   * (compute_busy), communication (a collective, send or receive) in flight
   * but no compute (exposed_comm), or neither (idle: host work, memory
   * operations, nothing).  compute_busy + exposed_comm + idle = finish. */
  SimTime compute_busy;
  SimTime exposed_comm;
  /* The part of exposed_comm with a receive from another rank in flight
   * (and no compute) and no exchange's receive: the compute stream waits
   * for a pipeline stage's activations or gradients, the pipeline's
   * bubble. */
  SimTime pipeline_bubble;
  /* The part of exposed_comm with a receive of a collective exchange (a
   * RECV node with an `exchange` attribute, e.g. an all-to-all sent as
   * point-to-point messages) in flight: communication, not bubble, even
   * when a pipeline receive is in flight too.  Disjoint from
   * pipeline_bubble. */
  SimTime exchange_wait;
  /* exchange_wait by the exchange's index in the rank's trace
   * (WlNode.exchange - 1; wl_replay_exchange_name), the first one in
   * flight taking the time when several are. */
  SimTime exchange_wait_by[WL_MAX_EXCHANGES];
  guint32 exchange_recvs; /* RECV nodes of exchanges it started */
  /* By exchange index as exchange_wait_by: the bytes (comm_size) and count
   * of its receives from other ranks that completed, when its first send
   * started (bit i of exchange_started set once one did; a receive is
   * posted before data moves) and when its last receive completed: the
   * summary's exchange rows. */
  guint64 exchange_bytes_by[WL_MAX_EXCHANGES];
  guint32 exchange_msgs_by[WL_MAX_EXCHANGES];
  SimTime exchange_start_by[WL_MAX_EXCHANGES];
  SimTime exchange_done_by[WL_MAX_EXCHANGES];
  guint32 exchange_started;
  double flops;           /* num_ops of the COMP nodes it started, summed */
  double recompute_flops; /* the part in nodes marked is_recompute */
  /* GEMM and attention FLOPs of the `kernels` of the COMP nodes it started,
   * by WlDtype (wl_kernel_lists_matrix_flops): which dtype the model's
   * FLOPs run in, for MFU's peak. */
  double matrix_flops[WL_DTYPE_N];
  SimTime comm_busy;    /* time with at least one collective, send or receive in flight */
  guint64 coll_bytes;   /* comm_size of the collectives it joined, summed */
  guint64 send_bytes;   /* bytes of its sends */
  guint32 colls;        /* collectives it joined */
  guint32 sends;
  guint32 nodes;        /* nodes in its trace */
  guint32 nodes_done;
} WlRankStats;

/* Per-node timing kept when recording is on (wl_replay_set_recording). */
#define WL_NO_NODE G_MAXUINT32

typedef struct
{
  SimTime ready;       /* all its dependencies were done */
  SimTime start;       /* it was issued (a slot was free); SIM_TIME_MAX: never */
  SimTime end;         /* it finished; SIM_TIME_MAX: never */
  /* The node of the same rank whose completion issued this one: its last
   * dependency to finish, or the node that freed its slot.  WL_NO_NODE for
   * nodes issued when the rank started. */
  guint32 pred;
  /* COLL: the member that joined last before this rank's part completed (may
   * be this rank itself); SEND: the matching receive; RECV: the matching
   * send.  WL_NO_NODE when none (unmatched, or a broadcast replayed as a
   * delay: WlTiming). */
  guint32 peer_rank;
  guint32 peer_index;  /* that node's index in peer_rank's graph */
} WlNodeRecord;

WlReplay *wl_replay_new (SimSched *sched, Sys *sys, const WlParams *params);
void wl_replay_free (WlReplay *replay); /* accepts NULL */

/* Load within BYTES (0: no limit, the default), streaming the traces when
 * they do not fit (see the header comment).  NEEDS_ALL_NODES, when not
 * NULL, names an option that needs every node in memory (e.g.
 * "--timeline"): streaming is then refused at load with an input error
 * saying so ("the traces do not fit the memory budget (--memory-budget X)
 * and would be streamed, but OPTION needs every trace node in memory ...").
 * Call before loading. */
void wl_replay_set_memory_budget (WlReplay *replay, guint64 bytes, const char *needs_all_nodes);

/* Decode the trace files on THREADS worker threads (1, the default: in
 * the caller's thread; at most WL_LOAD_THREADS_MAX).  Whatever THREADS,
 * the load has the same result: the same graphs, shared by the same
 * ranks (the lowest rank's), the same error (of the first failing file in
 * rank order), the same decision to stream (wl_graph_cache_prefetch).
 * Streamed loading stays in the caller's thread, and so do the first
 * WL_LOAD_SERIAL_BYTES of the files (wl_graph_cache_set_serial).  Call
 * before loading. */
void wl_replay_set_load_threads (WlReplay *replay, guint threads);

/* Stream every trace with a window of NODES per rank, whatever the budget
 * (tests; 0: decide by the budget).  Call before loading. */
void wl_replay_set_stream_window (WlReplay *replay, guint32 nodes);

/* Whether the traces are streamed, and each rank's window (0 in memory), in
 * slots of the budget; it holds wl_stream_window_nodes of them. */
gboolean wl_replay_streamed (const WlReplay *replay);
guint32 wl_replay_stream_window (const WlReplay *replay);

/* A check of each node, made during loading on every node of every
 * distinct trace (in rank order of first appearance, then file order),
 * streamed or not; the first failure is kept and returned by
 * wl_replay_node_check_ok, so that the caller reports it when it wants. */
typedef gboolean (*WlNodeCheckFunc) (gpointer data, const char *path, const WlNode *n,
                                     GError **error);
void wl_replay_set_node_check (WlReplay *replay, WlNodeCheckFunc check, gpointer data);
gboolean wl_replay_node_check_ok (const WlReplay *replay, GError **error);

/* After a streamed run that ended with unfinished ranks: FALSE with ERROR
 * set (SIM_ERROR_INPUT) when a rank stopped with nodes not read yet (its
 * window full), since a larger window might have let it go on: the run
 * cannot tell a deadlock from a budget too small.  TRUE otherwise (in
 * memory, always). */
gboolean wl_replay_check_windows (const WlReplay *replay, GError **error);

/* Load PREFIX.0.et .. PREFIX.(ranks-1).et.  Fails when one is missing or
 * unreadable, or when PREFIX.<ranks>.et exists too (the trace was made for
 * more ranks than the topology has).  With params->lenient, each file is
 * loaded leniently (wl_graph_load_full): what is dropped is counted
 * (wl_replay_lenient_stats). */
gboolean wl_replay_load (WlReplay *replay, const char *prefix, guint32 ranks, GError **error);

/* Load one graph per rank from explicit paths (tests, generators). */
gboolean wl_replay_load_files (WlReplay *replay, const char *const *paths, guint32 ranks,
                               GError **error);
/* Take GRAPHS[0 .. RANKS-1] (borrowed: each rank holds a reference) as the
 * ranks' traces, in memory (no budget: they are there already), checked
 * as loaded files are; ranks given one graph share it. */
gboolean wl_replay_load_graphs (WlReplay *replay, WlGraph *const *graphs, guint32 ranks,
                                GError **error);

/* Register with the system layer every group that `groups` (may be NULL) or
 * the traces' METADATA nodes define; a definition in `groups` wins.  Checks
 * that every collective names a defined group, "0" or none. */
gboolean wl_replay_bind_groups (WlReplay *replay, const WlGroups *groups, GError **error);

/* Keep a WlNodeRecord per node of every rank (40 bytes a node), for
 * timelines and the critical path.  Call before wl_replay_start. */
void wl_replay_set_recording (WlReplay *replay, gboolean on);
/* The records of `rank`'s nodes, indexed like its graph's nodes; NULL when
 * recording is off. */
const WlNodeRecord *wl_replay_records (const WlReplay *replay, guint32 rank);
/* The graph `rank` replays (shared between byte-identical files), with
 * its node array (a compact graph, graph.h, is expanded: memory per rank
 * again); NULL when the traces are streamed. */
const WlGraph *wl_replay_graph (const WlReplay *replay, guint32 rank);
/* The same graph, compact or not: read its nodes with wl_graph_node_at. */
const WlGraph *wl_replay_graph_compact (const WlReplay *replay, guint32 rank);
/* The system group (sys.h) that NODE, a collective of one of the replay's
 * traces, runs on: SYS_GROUP_WORLD for all ranks.  Call after
 * wl_replay_bind_groups. */
guint64 wl_replay_node_group (const WlReplay *replay, const WlNode *node);
/* The same from a collective's group index alone (WlNode.sys_group_index,
 * wl_graph_group_index_at). */
guint64 wl_replay_group_at (const WlReplay *replay, guint32 sys_group_index);

/* Whether every rank does the same thing at the same time, so that rank 0
 * can stand for all (sys_set_lockstep): one trace graph shared by every
 * rank, no point-to-point nodes, collectives on the whole world only and
 * symmetric there (sys_symmetric), one compute speed.  FALSE with *why (a
 * static string) otherwise.  Call after wl_replay_bind_groups. */
gboolean wl_replay_symmetric (const WlReplay *replay, const char **why);

/* Run rank 0 only (wl_replay_start), and after the run give every rank rank
 * 0's figures and records (wl_replay_lockstep_finish); the system layer is
 * switched alike (sys_set_lockstep).  Needs wl_replay_symmetric. */
void wl_replay_set_lockstep (WlReplay *replay, gboolean on);
void wl_replay_lockstep_finish (WlReplay *replay);
gboolean wl_replay_lockstep (const WlReplay *replay);

/* Symmetry classes, the general form of the symmetric shortcut: ranks
 * whose traces are the same up to the ranks and groups they name, in a
 * pattern the network and the collectives' algorithms respect (DP
 * replicas, TP peers, like pipeline stages), fall into classes, and the
 * first rank of each is simulated for its class, with the same results
 * (replay_classes.c gives the conditions and the argument).  Call after
 * wl_replay_bind_groups, before wl_replay_start; TRUE when classes were
 * found and set up (the system layer and network switched: sys_set_classes),
 * FALSE with *why (a static string) when not, and nothing changed.  Not
 * with recording (node records name peers) or streamed traces. */
gboolean wl_replay_classes (WlReplay *replay, const char **why);
/* What the last wl_replay_classes found, in words, or NULL before it ran:
 * "refused: WHY: the group, ranks or collective concerned", or how the
 * classes came to be as many as they are (trace shapes, places in groups
 * whose members play roles, peers of sends and receives).  Owned by the
 * replay, valid until the next wl_replay_classes or wl_replay_free. */
const char *wl_replay_classes_why (const WlReplay *replay);
/* The number of classes (0: none set up). */
guint32 wl_replay_n_classes (const WlReplay *replay);
/* After the run: every rank gets its class's figures and node states, and
 * the groups no simulated rank joined their images' collective statistics. */
void wl_replay_classes_finish (WlReplay *replay);
/* Whether RANK is simulated (not stood for by another: lockstep or
 * symmetry classes). */
gboolean wl_replay_simulated (const WlReplay *replay, guint32 rank);

/* A lower bound of the run's end, in ps, known before it: the largest sum
 * over one rank of its COMP nodes' times (each priced as the run prices
 * it: a launched node runs exactly that long), over the compute slots
 * (slots_comp of them run at once), rounded down.  Every rank starts at 0
 * and finishes no earlier, and the run ends at the last finish.  0 with
 * streamed traces. */
SimTime wl_replay_compute_floor (const WlReplay *replay);

/* Schedule every rank's first nodes at time 0, once the ranks simulated
 * (all, or the classes' first ranks, or rank 0 in lockstep) have their
 * node arrays (compact graphs, graph.h, expanded).  FALSE with ERROR set
 * (WL_ERROR, SIM_ERROR_INPUT) when the memory for them cannot be had. */
gboolean wl_replay_start (WlReplay *replay, GError **error);

/* After the run: FALSE with the first error raised inside an event. */
gboolean wl_replay_ok (const WlReplay *replay, GError **error);

/* Ranks with unfinished nodes after the run. */
guint32 wl_replay_unfinished (const WlReplay *replay);

/* One line per blocked rank (at most `max_ranks`): what it waits for. */
void wl_replay_describe_blocked (const WlReplay *replay, GString *out, guint max_ranks);

guint32 wl_replay_ranks (const WlReplay *replay);
/* The name of exchange I (WlRankStats.exchange_wait_by) in RANK's trace,
 * or NULL past its last.  Borrowed from the replay. */
const char *wl_replay_exchange_name (const WlReplay *replay, guint32 rank, guint i);
const WlRankStats *wl_replay_rank_stats (const WlReplay *replay, guint32 rank);
/* Bytes of the ranks' trace files read by the load (a file shared by
 * byte-identical ranks counts once per rank; files that could not be mapped,
 * such as pipes, count 0). */
guint64 wl_replay_trace_bytes (const WlReplay *replay);
/* The bytes the memory budget counted for the traces loaded in memory
 * (their graphs and the ranks' counters, as the loading above counts
 * them); 0 when streamed or loaded from graphs. */
guint64 wl_replay_held_bytes (const WlReplay *replay);
/* Distinct trace files (by content), in memory or streamed. */
guint wl_replay_distinct_graphs (const WlReplay *replay);
/* Nodes of types orrery does not know, skipped, over all distinct graphs. */
guint64 wl_replay_unknown_nodes (const WlReplay *replay);

/* What lenient loading dropped, summed over the ranks loaded (a file shared
 * by byte-identical ranks counts once per rank, as each rank's file has the
 * defects); all zero after a strict load.  wl_lenient_stats_describe words
 * it for the summary. */
void wl_replay_lenient_stats (const WlReplay *replay, WlLenientStats *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlReplay, wl_replay_free)

/* The traces' GlobalMetadata facts (chakra_node.h's WlTraceFacts: model
 * FLOPs and their formula, tokens per iteration) when every distinct trace
 * of the run gives the same; a fact that some trace lacks or gives
 * otherwise is absent.  peak_memory_B, a rank's own fact, is the largest
 * any trace gives (wl_replay_peak_memory). */
void wl_replay_trace_facts (const WlReplay *replay, WlTraceFacts *out);

/* How many distinct kernels the run's loaded traces list (*DISTINCT) and
 * how many of them its measured kernel table prices (*FROM_TABLE); both 0
 * without a table, and for streamed traces (not held). */
void wl_replay_kernel_table_use (const WlReplay *replay, guint *distinct, guint *from_table);

/* The largest peak_memory_bytes any trace of the run gives (0: none gives
 * one), the first trace that gives it in *PATH (NULL: none) and, in
 * *MISSING of *TRACES, how many of the run's distinct traces give none
 * (each out pointer may be NULL). */
guint64 wl_replay_peak_memory (const WlReplay *replay, const char **path, guint *missing,
                               guint *traces);

#endif /* ORRERY_WORKLOAD_REPLAY_H */
