/* algo_nccl.h: running a collective as NCCL would (the NCCL library).
 *
 * Models: per collective, NCCL's choice of algorithm and protocol
 * (system/nccl.h) for the group's shape, then the chosen algorithm's
 * messages through the network model:
 *   ring  (all-reduce, reduce-scatter, all-gather): every member sends each
 *         step to its successor; a step's data is ready at the successor
 *         a step latency (NVLink, PCIe or network, NCCL's hwLat) plus
 *         bytes / (the protocol's bus bandwidth) after it was sent, and not
 *         before the network delivers it.  Without contention a member
 *         therefore finishes base + sum of its steps' latencies + size /
 *         algorithm bandwidth after it starts: NCCL's own prediction.
 *         Across nodes the ring runs one line per rail (NCCL's channels
 *         enter and leave a node through the NIC of their GPU), so every
 *         NIC carries its share.
 *   other algorithms (trees, NVLS, CollNet, PAT, rooted rings): each member
 *         sends the algorithm's traffic (tree edges, NVLS exchanges inside
 *         the node, rail-aligned tree edges across nodes) and finishes at
 *         NCCL's predicted time or when its last message arrives, whichever
 *         is later, so contention can only slow it.
 * Messages carry the protocol's wire bytes: LL moves 8 bytes per 4 of data
 * (flag and data in one word), LL128 128 per 120, Simple its data.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_ALGO_NCCL_H
#define ORRERY_SYSTEM_ALGO_NCCL_H

#include "system/algo.h"
#include "system/nccl.h"

/* A group's shape as NCCL sees it and its tuning tables, built on the
 * group's first NCCL collective. */
typedef struct
{
  /* NCCL's tables as NCCL sees the machine: they choose and they time (the
   * network plugin's reported latency included, as NCCL's model counts it
   * for every step across nodes). */
  SysNcclModel model;
  guint32 nodes, ppn;
  guint32 *node_of;   /* member -> node index (order of first member) */
  guint32 *local_of;  /* member -> index inside its node */
  guint32 *member_at; /* node * ppn + local -> member */
} SysNcclGroup;

/* One collective's plan. */
typedef struct
{
  const SysNcclGroup *g;
  SysNcclFunc func;
  SysNcclChoice choice;
  guint32 lines;      /* ring lines simulated (chunks of the collective) */
  guint32 nsteps;     /* ring steps */
  SimTime base;       /* before the first step: NCCL's base latency */
  SimTime intra_lat, inter_lat; /* a step's latency inside / across nodes */
  SimTime time;       /* NCCL's predicted time (timed algorithms) */
  double rate_Bps;    /* a line's bus bandwidth, bytes/s */
  double wire;        /* wire bytes per data byte */
} SysNcclPlan;

/* The shape of `group` for library `lib` on `topo`; NULL with an input
 * error when NCCL's model cannot price it (an unknown GPU, nodes with
 * different GPU counts). */
SysNcclGroup *sys_nccl_group_new (const NetTopo *topo, const guint32 *ranks, guint32 n,
                                  const SysLibraryParams *lib, GError **error);
void sys_nccl_group_free (SysNcclGroup *g);

/* Plan a collective of `kind` and `bytes` (comm_size) on the group; FALSE
 * with an input error when the enabled algorithms leave none for it. */
gboolean sys_nccl_plan (const SysNcclGroup *g, SysCollKind kind, guint64 bytes,
                        SysNcclPlan *out, GError **error);

/* "Ring/LL128 x24": what produced the plan, for the collective table. */
void sys_nccl_plan_label (const SysNcclPlan *plan, char *buf, gsize size);

/* Whether the plan's algorithm reduces inside the switches (NVLS, NVLS
 * trees, CollNet). */
gboolean sys_nccl_plan_in_network (const SysNcclPlan *plan);

/* Whether every member of the group (ranks, n) runs the plan alike, at the
 * same times (symmetry classes, sys_group_alike): a ring whose lines stay
 * inside one node or take one member per node, each member sending from
 * its own rank over routes priced alike.  FALSE with *why (static). */
gboolean sys_nccl_plan_alike (const SysNcclPlan *plan, Net *net, const guint32 *ranks,
                              guint32 n, const char **why);

/* Node-shift symmetry (symmetry classes, sys_group_period): the number of
 * members per node, k, when the plan is a ring across nodes (k > 1) whose
 * members are laid out node by node in member order (member m is local
 * m mod k of node m / k) and whose every hop, of every line, is priced and
 * uses its ports as the hop of the member k, 2k, ... places before it:
 * then member m runs each step as member m mod k does, and a message to
 * member q stands for the one member q mod k gets, from the member the
 * same number of nodes before its sender.  0 with *why (static) otherwise. */
guint32 sys_nccl_plan_period (const SysNcclPlan *plan, Net *net, const guint32 *ranks,
                              guint32 n, const char **why);

/* Whether plans A and B (of groups of as many members) are the same but
 * for the ranks they run on: the same choice, steps, times and rates, on
 * groups of the same node layout member by member, so that each member of
 * one runs as the member at its place in the other given routes priced
 * alike (sys_group_mirrors).  FALSE with *why (static). */
gboolean sys_nccl_plans_mirror (const SysNcclPlan *a, const SysNcclPlan *b, guint32 n,
                                const char **why);

/* Whether the plan's algorithm may send a message between the ranks of
 * members I and J (either way, from one's rank or NIC to the other's):
 * the ring's and the trees', NVLS's and CollNet's messages go between
 * members of one node, or between members of the same local index in two
 * nodes (rail-aligned); PAT's, and those of any other algorithm, between
 * any two.  What the places of a group and its image must route alike for
 * (sys_group_mirrors): a superset of the pairs that carry messages. */
gboolean sys_nccl_plan_pair (const SysNcclPlan *plan, guint32 i, guint32 j);

/* The row that runs the plan. */
const SysAlgoClass *sys_nccl_plan_algo (const SysNcclPlan *plan);

/* The plan of the collective a phase belongs to (coll.c). */
const SysNcclPlan *sys_phase_nccl (const SysPhaseCtx *ctx);

/* Send `bytes` from the rank of member `from` to the rank of member `via`
 * at `at`, delivered as a message of `step` to member `to`'s run (flat
 * lines only: positions are members). */
void sys_phase_send_routed (const SysPhaseCtx *ctx, guint32 from, guint32 via, guint32 to,
                            guint32 step, guint64 bytes, SimTime at);
/* Give member `to`'s run, at `at`, a message of step sys_phase_ready_step:
 * a sender's data is usable then and not before (it streams the data at
 * its own pace), without any traffic. */
void sys_phase_notify (const SysPhaseCtx *ctx, guint32 to, SimTime at);

/* The step number of readiness messages. */
guint32 sys_phase_ready_step (const SysPhaseCtx *ctx);

extern const SysAlgoClass sys_algo_nccl_ring;
extern const SysAlgoClass sys_algo_nccl_timed;

#endif /* ORRERY_SYSTEM_ALGO_NCCL_H */
