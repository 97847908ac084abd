/* replay.c: the replay core: per-rank ready queues, slots, timing and
 * completions, over a node source (replay_source.h) that holds the rank's
 * nodes in memory or streams them. */
#include "workload/replay.h"

#include <math.h>
#include <string.h>

#include "workload/compute.h"
#include "workload/graph_cache.h"
#include "workload/kernels.h"
#include "workload/replay_private.h"

static void fail_in_event (WlReplay *r, GError *error);

/* Each op's slot (WlOp order); COLL and SEND take their stream's with
 * separate comm streams.  A table: a switch here was 22 instructions a
 * lookup, two lookups a node. */
static const guint8 slot_by_op[] = { SLOT_NONE, SLOT_COMP, SLOT_CPU, SLOT_COMM,
                                     SLOT_COMM, SLOT_NONE, SLOT_NONE };
G_STATIC_ASSERT (WL_OP_SKIP == 0 && WL_OP_COLL == 3 && WL_OP_SEND == 4 && WL_OP_MEM == 6);

/* The queue of N on rank K: its slot, or with separate comm streams its
 * stream's comm slots. */
static inline guint
slot_of (const WlRank *k, const WlNode *n)
{
  guint s = slot_by_op[n->op];
  if (s == SLOT_COMM && n->comm_stream != 0 && k->n_queues > SLOT_N)
    return SLOT_N + n->comm_stream - 1u;
  return s;
}

/* Double K's ready queue F; a failure stops the run with an error. */
static gboolean
fifo_grow (WlRank *k, WlFifo *f)
{
  guint32 cap = MAX (8u, f->cap * 2);
  GError *error = NULL;
  guint32 *buf = sim_try_alloc (cap, sizeof (guint32), FALSE, "a ready queue", &error);
  if (buf == NULL)
    {
      g_prefix_error (&error, "rank %u: ", k->rank);
      fail_in_event (k->replay, error);
      return FALSE;
    }
  for (guint32 i = 0; i < f->len; i++)
    buf[i] = f->buf[(f->head + i) % f->cap];
  g_free (f->buf);
  f->buf = buf;
  f->head = 0;
  f->cap = cap;
  return TRUE;
}

static guint32
fifo_pop (WlFifo *f)
{
  g_assert (f->len > 0);
  guint32 v = f->buf[f->head];
  f->head = (f->head + 1) & (f->cap - 1); /* cap: 8, doubled (fifo_grow) */
  f->len--;
  return v;
}

static inline void
fifo_push (WlRank *k, WlFifo *f, guint32 v)
{
  if (f->len == f->cap && !fifo_grow (k, f))
    return;
  f->buf[(f->head + f->len++) & (f->cap - 1)] = v;
}


WlReplay *
wl_replay_new (SimSched *sched, Sys *sys, const WlParams *params)
{
  g_return_val_if_fail (sched != NULL && sys != NULL && params != NULL, NULL);
  WlReplay *r = g_new0 (WlReplay, 1);
  r->sched = sched;
  r->clock = sim_sched_clock (sched);
  r->sys = sys;
  r->params = *params;
  r->cache = wl_graph_cache_new_full (params->lenient);
  r->graphs = g_ptr_array_new ();
  r->scans = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_trace_scan_free);
  r->traces = g_array_new (FALSE, FALSE, sizeof (WlTrace));
  return r;
}

void
wl_replay_ranks_clear (WlReplay *r)
{
  for (guint32 i = 0; i < r->n_ranks; i++)
    {
      WlRank *k = &r->ranks[i];
      wl_node_source_free (k->src);
      for (guint s = 0; s < k->n_queues; s++)
        g_free (k->ready[s].buf);
      g_free (k->ready);
      g_free (k->busy);
      g_free (k->limit);
      if (k->sm_held != NULL)
        g_array_unref (k->sm_held);
      if (k->sm_running != NULL)
        g_array_unref (k->sm_running);
      if (i == 0 || !r->lockstep)
        g_free (k->rec); /* in lockstep every rank shares rank 0's */
      memset (k, 0, sizeof *k);
    }
  r->n_ranks = 0;
}

void
wl_replay_free (WlReplay *r)
{
  if (r == NULL)
    return;
  wl_replay_ranks_clear (r);
  g_free (r->ranks);
  wl_replay_traces_free (r);
  g_array_unref (r->traces);
  g_ptr_array_unref (r->graphs);
  g_ptr_array_unref (r->scans);
  if (r->group_map != NULL)
    g_hash_table_unref (r->group_map);
  if (r->sys_groups != NULL)
    g_array_unref (r->sys_groups);
  wl_replay_classes_clear (r);
  if (r->classes_why != NULL)
    g_string_free (r->classes_why, TRUE);
  wl_graph_cache_free (r->cache);
  g_clear_error (&r->error);
  g_clear_error (&r->check_error);
  g_free (r->needs_all);
  g_free (r);
}

/* ---- timing ------------------------------------------------------------------- */

/* See replay_private.h. */
SimTime
wl_replay_compute_time (const WlRank *k, const WlNode *n)
{
  const WlParams *p = &k->replay->params;
  double speed = k->speed;
  gboolean comp = n->op == WL_OP_COMP;
  if (comp && p->compute == WL_COMPUTE_KERNEL && n->kernel_list != 0)
    return wl_params_round_ns (p, wl_kernel_lists_ns (k->kernels, n->kernel_list,
                                                      p->kernel_device, p->kernel_table)
                                    / speed);
  gboolean by_ops = p->compute == WL_COMPUTE_ROOFLINE || p->compute == WL_COMPUTE_KERNEL;
  gboolean modelled = by_ops ? n->num_ops > 0 : p->compute == WL_COMPUTE_SCALED ? comp : FALSE;
  if (!comp)
    speed = 1.0;
  if (modelled)
    return wl_params_round_ns (p, wl_compute_node_ns (p, n) / speed);
  if (n->duration_ps == 0 && p->timing.empty_compute_time > 0)
    return p->timing.empty_compute_time;
  if (speed == 1.0)
    return n->duration_ps;
  return wl_params_round_ns (p, (double) n->duration_ps / (double) SIM_PS_PER_NS / speed);
}

static SimTime
memory_time (const WlParams *p, const WlNode *n)
{
  if (p->mem.kind == WL_MEM_NONE)
    return wl_params_round_ns (p, (double) n->bytes / p->mem_bw_Bps * 1e9);
  return sim_time_add (p->mem.latency,
                       wl_params_round_ns (p, (double) n->bytes / p->mem.bandwidth_Bps * 1e9));
}

/* ---- replay --------------------------------------------------------------------- */

static guint
slot_limit (const WlReplay *r, guint slot)
{
  switch (slot)
    {
    case SLOT_COMP:
      return r->params.slots_comp;
    case SLOT_CPU:
      return r->params.slots_cpu;
    case SLOT_COMM:
      return r->params.slots_comm;
    case SLOT_NONE:
      return G_MAXUINT;
    default:
      return r->params.slots_comm; /* another comm stream's */
    }
}

/* Stop the run with ERROR (taken; the first error is kept). */
static void
fail_in_event (WlReplay *r, GError *error)
{
  if (r->error == NULL)
    r->error = error;
  else
    g_error_free (error);
  sim_sched_stop (r->sched);
}

/* Charge the time since the last change of what is in flight (inline:
 * twice a node). */
G_ALWAYS_INLINE static inline void
account (WlRank *k, SimTime now)
{
  SimTime dt = now - k->acct_since;
  k->acct_since = now;
  if (k->comp_in_flight > 0)
    k->stats.compute_busy += dt;
  if (k->comm_in_flight > 0)
    {
      k->stats.comm_busy += dt;
      if (k->comp_in_flight == 0)
        k->stats.exposed_comm += dt;
      /* The compute stream waits on another stage's activations or
       * gradients: the pipeline's bubble, not the cost of communication.
       * A receive of a collective exchange (an all-to-all sent as p2p) is
       * communication, and counts as such even beside a pipeline's (with
       * two exchanges at once, the first in the trace's table waits). */
      if (k->comp_in_flight == 0 && k->exch_in_flight > 0)
        {
          guint i = 0;
          while (k->exch_by[i] == 0)
            i++;
          k->stats.exchange_wait += dt;
          k->stats.exchange_wait_by[i] += dt;
        }
      else if (k->comp_in_flight == 0 && k->recv_in_flight > 0)
        k->stats.pipeline_bubble += dt;
    }
}

static gboolean
is_comm (const WlNode *n)
{
  return n->op == WL_OP_COLL || n->op == WL_OP_SEND || n->op == WL_OP_RECV;
}

static void
in_flight_change (WlRank *k, const WlNode *n, SimTime now, int delta)
{
  if (n->op == WL_OP_COMP)
    {
      account (k, now);
      k->comp_in_flight += delta;
    }
  else if (is_comm (n))
    {
      account (k, now);
      k->comm_in_flight += delta;
      gboolean remote = n->op == WL_OP_RECV && n->peer_src != WL_RANK_SELF
                        && n->peer_src != k->rank;
      if (remote && n->exchange != 0)
        {
          k->exch_in_flight += delta;
          k->exch_by[n->exchange - 1] += delta;
        }
      else if (remote)
        k->recv_in_flight += delta;
      if (n->op == WL_OP_RECV && n->exchange != 0 && delta > 0)
        k->stats.exchange_recvs++;
      if (n->exchange != 0 && n->op != WL_OP_COLL)
        wl_replay_exchange_note (&k->stats, n, remote, now, delta);
    }
}

static void on_node_done (SimSched *sched, gpointer data, guint64 index);

/* ---- recording ------------------------------------------------------------------- */

void
wl_replay_set_recording (WlReplay *r, gboolean on)
{
  g_return_if_fail (r != NULL);
  r->recording = on;
}

/* Recording's per-node records, allocated for every rank the run starts
 * before any starts: a run stopped by a limit may never start some ranks,
 * and the records' readers (critical path, timeline, report) must find
 * their nodes there, not run. */
static void
record_alloc (WlRank *k)
{
  guint32 n = k->stats.nodes;
  k->rec = g_new (WlNodeRecord, MAX (n, 1u));
  for (guint32 v = 0; v < n; v++)
    k->rec[v] = (WlNodeRecord) { .ready = SIM_TIME_MAX, .start = SIM_TIME_MAX,
                                 .end = SIM_TIME_MAX, .pred = WL_NO_NODE,
                                 .peer_rank = WL_NO_NODE, .peer_index = WL_NO_NODE };
}

/* Node ARG of rank DATA (a WlRank) met node PEER_ARG of rank PEER_DATA:
 * the system layer's answer to which send a receive matched (and the
 * reverse), or which member joined a collective last (a SysP2PMatchFunc
 * and a SysCollJoinerFunc). */
static void
record_peer (gpointer data, guint64 arg, gpointer peer_data, guint64 peer_arg)
{
  WlRank *k = data;
  const WlRank *peer = peer_data;
  k->rec[arg].peer_rank = peer->rank;
  k->rec[arg].peer_index = (guint32) peer_arg;
}

const WlNodeRecord *
wl_replay_records (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return r->ranks[rank].rec;
}

/* wl_replay_node_group's answer read in line, once per collective node
 * (its call and preconditions were a tenth of the request's cost); an
 * index off the table is still left to it, to warn as it does. */
static inline guint64
node_group (const WlReplay *r, const WlNode *n)
{
  const GArray *groups = r->sys_groups;
  if (G_LIKELY (groups != NULL && n->sys_group_index < groups->len))
    return g_array_index (groups, guint64, n->sys_group_index);
  return wl_replay_node_group (r, n);
}

/* Node INDEX (N), a collective, joins its instance in the system layer
 * (or, with WlTiming.broadcast_as_delay, a broadcast waits out its
 * duration). */
static void
launch_coll (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  WlReplay *r = k->replay;
  if (n->coll_kind == SYS_COLL_BROADCAST && r->params.timing.broadcast_as_delay)
    {
      sim_sched_at (r->sched, sim_time_add (now, n->duration_ps), on_node_done, k, index);
      return;
    }
  guint32 ctas = 0;
  SysCollRequest req = { .kind = (SysCollKind) n->coll_kind, .bytes = n->bytes,
                         .group = node_group (r, n), .priority = n->priority,
                         .root = n->root == WL_RANK_SELF ? SYS_ROOT_FIRST : n->root,
                         .involved_dims = n->involved, .node_id = n->id, .order = index,
                         .on_done = on_node_done, .data = k, .arg = index,
                         .on_last_joiner = k->rec != NULL ? record_peer : NULL,
                         .ctas = &ctas };
  /* A streamed trace keeps no names: its messages give the id alone. */
  if (k->graph != NULL && k->graph->names != NULL)
    req.node_name = k->graph->names[index];
  GError *error = NULL;
  if (!sys_coll_join (r->sys, k->rank, &req, &error))
    {
      sim_error_prefix (&error, "%s: ", k->src->path);
      fail_in_event (r, error);
      return;
    }
  wl_replay_sm_hold (k, n, index, ctas);
}

/* Node INDEX (N), a send or a receive, is posted to the system layer. */
static void
launch_p2p (WlRank *k, guint32 index, const WlNode *n)
{
  WlReplay *r = k->replay;
  gboolean send = n->op == WL_OP_SEND;
  SysP2PRequest req = { .src = send ? k->rank : n->peer_src,
                        .dst = send ? n->peer_dst : k->rank, .tag = n->tag,
                        .bytes = n->bytes, .node_id = n->id, .order = index,
                        .on_done = on_node_done, .data = k, .arg = index,
                        .on_match = k->rec != NULL ? record_peer : NULL };
  if (send && r->rep_of != NULL)
    wl_replay_class_channel (r, &req);
  GError *error = NULL;
  if (!(send ? sys_p2p_send (r->sys, &req, &error) : sys_p2p_recv (r->sys, &req, &error)))
    {
      fail_in_event (r, error);
      return;
    }
  wl_replay_sm_hold (k, n, index, 0);
}

/* Count node N as it starts at NOW, and record its start. */
static void
note_start (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  in_flight_change (k, n, now, +1);
  if (n->op == WL_OP_COLL)
    {
      k->stats.colls++;
      k->stats.coll_bytes += n->bytes;
    }
  else if (n->op == WL_OP_SEND)
    {
      k->stats.sends++;
      k->stats.send_bytes += n->bytes;
    }
  if (k->rec != NULL)
    {
      k->rec[index].start = now;
      k->rec[index].pred = k->finishing;
    }
}

/* Start node INDEX (N): account for it and hand it to the compute model
 * or the system layer, which calls on_node_done when it is complete. */
static void
launch_node (WlRank *k, guint32 index, const WlNode *n)
{
  WlReplay *r = k->replay;
  SimTime now = *r->clock;
  note_start (k, index, n, now);
  switch ((WlOp) n->op)
    {
    case WL_OP_COMP:
    case WL_OP_CPU:
      {
        SimTime t = wl_replay_compute_time (k, n);
        if (n->op == WL_OP_COMP)
          {
            k->stats.compute += t;
            k->stats.flops += (double) n->num_ops;
            if (n->comp_flags & WL_COMP_RECOMPUTE)
              k->stats.recompute_flops += (double) n->num_ops;
            if (n->kernel_list != 0 && k->kernels != NULL)
              wl_kernel_lists_matrix_flops (k->kernels, n->kernel_list, k->stats.matrix_flops);
          }
        else
          k->stats.cpu += t;
        if (n->op == WL_OP_COMP && wl_replay_sm_start (k, index, n, t, on_node_done))
          return;
        sim_sched_at (r->sched, sim_time_add (now, t), on_node_done, k, index);
        return;
      }
    case WL_OP_MEM:
      sim_sched_at (r->sched, sim_time_add (now, memory_time (&r->params, n)), on_node_done, k,
                    index);
      return;
    case WL_OP_SKIP:
      sim_sched_at (r->sched, now, on_node_done, k, index);
      return;
    case WL_OP_COLL:
      launch_coll (k, index, n, now);
      return;
    case WL_OP_SEND:
    case WL_OP_RECV:
      launch_p2p (k, index, n);
      return;
    }
  g_assert_not_reached ();
}

/* Start node INDEX. */
static void
launch (WlRank *k, guint32 index)
{
  WlNodeSource *src = k->src;
  *wl_node_source_state (src, index) = NODE_RUNNING;
  launch_node (k, index, wl_node_source_node (src, index));
}

/* Start queue S's ready nodes while it has free slots. */
static inline void
issue_queue (WlRank *k, guint s)
{
  WlFifo *f = &k->ready[s];
  guint limit = k->limit[s];
  while (f->len > 0 && k->busy[s] < limit)
    {
      k->busy[s]++;
      launch (k, fifo_pop (f));
    }
}

/* Start the ready nodes of the queues from READY_SHARED_BIT on, which
 * share its bit, and clear the bit when all are left empty (asked after
 * the launches, which may fill queues: a node that completes as it starts
 * releases its dependents there and then). */
static void
issue_shared (WlRank *k)
{
  gboolean empty = TRUE;
  for (guint q = READY_SHARED_BIT; q < k->n_queues; q++)
    issue_queue (k, q);
  for (guint q = READY_SHARED_BIT; q < k->n_queues; q++)
    empty &= k->ready[q].len == 0;
  if (empty)
    k->ready_mask &= ~(G_GUINT64_CONSTANT (1) << READY_SHARED_BIT);
}

/* Start every ready node that has a free slot, queue by queue in order
 * (a queue that a launch fills is looked at when its turn comes, not
 * again).  Only the queues ready_mask marks are visited. */
static void
issue (WlRank *k)
{
  guint64 mask = k->ready_mask;
  while (mask != 0)
    {
      guint s = (guint) __builtin_ctzll (mask);
      if (s == READY_SHARED_BIT)
        issue_shared (k);
      else
        {
          issue_queue (k, s);
          if (k->ready[s].len == 0)
            k->ready_mask &= ~(G_GUINT64_CONSTANT (1) << s);
        }
      /* The queues after S, as they are now; 2 << 63 is 0 in unsigned
       * arithmetic, which leaves no bit. */
      mask = k->ready_mask & ~((G_GUINT64_CONSTANT (2) << s) - 1);
    }
}

/* Node INDEX is ready: queued, and its queue marked. */
static inline void
ready_node (WlRank *k, guint32 index)
{
  WlNodeSource *src = k->src;
  *wl_node_source_state (src, index) = NODE_READY;
  if (k->rec != NULL)
    k->rec[index].ready = *k->replay->clock;
  guint s = slot_of (k, wl_node_source_node (src, index));
  fifo_push (k, &k->ready[s], index);
  k->ready_mask |= G_GUINT64_CONSTANT (1) << MIN (s, READY_SHARED_BIT);
}

/* A WlNodeReadyFunc: the source calls it for each node it makes ready. */
static void
make_ready (gpointer data, guint32 index)
{
  ready_node (data, index);
}

/* Node N's dependents whose last dependency it was are ready, in file
 * order, counted down in the arrays the source lends (replay_source.h). */
static void
release_in_place (WlRank *k, const WlNode *n)
{
  WlNodeSource *src = k->src;
  guint32 *left = src->parents_left;
  const guint32 *child = src->children + n->child_start, *end = child + n->n_children;
  for (; child < end; child++)
    if (--left[*child] == 0)
      ready_node (k, *child);
}

/* What a completion does before releasing dependents. */
static void
complete (WlRank *k, guint32 index, const WlNode *n, SimTime now)
{
  k->busy[slot_of (k, n)]--;
  k->stats.nodes_done++;
  k->stats.finish = now;
  in_flight_change (k, n, now, -1);
  wl_replay_sm_release (k, n, index, now);
  if (k->rec != NULL)
    k->rec[index].end = now;
}

/* Issue what node INDEX's completion made ready (or freed a slot for),
 * noting INDEX as their predecessor (WL_NO_NODE: the rank's start); then
 * stop the run with the source's error when nothing can run any more
 * although nodes are left. */
static void
issue_after (WlRank *k, guint32 index, SimTime now)
{
  guint32 outer = k->finishing;
  k->finishing = index;
  issue (k);
  k->finishing = outer;
  if (k->src->klass->stuck == NULL || k->stats.nodes_done >= k->stats.nodes)
    return;
  guint pending = k->ready_mask != 0;
  for (guint s = 0; s < k->n_queues; s++)
    pending += k->busy[s];
  GError *error = NULL;
  if (pending == 0 && !k->src->klass->stuck (k->src, now, &error))
    fail_in_event (k->replay, error);
}

static void
on_node_done (SimSched *sched, gpointer data, guint64 index)
{
  (void) sched;
  WlRank *k = data;
  WlNodeSource *src = k->src;
  SimTime now = *k->replay->clock;
  const WlNode *n = wl_node_source_node (src, (guint32) index);
  complete (k, (guint32) index, n, now);
  *wl_node_source_state (src, (guint32) index) = NODE_DONE;
  GError *error = NULL;
  if (src->parents_left != NULL)
    release_in_place (k, n);
  else if (!src->klass->release (src, (guint32) index, now, &error))
    {
      fail_in_event (k->replay, error);
      return;
    }
  issue_after (k, (guint32) index, now);
}

static void
on_rank_start (SimSched *sched, gpointer data, guint64 arg)
{
  (void) arg;
  WlRank *k = data;
  SimTime now = sim_sched_now (sched);
  k->finishing = WL_NO_NODE;
  GError *error = NULL;
  if (!k->src->klass->start (k->src, now, &error))
    {
      fail_in_event (k->replay, error);
      return;
    }
  issue_after (k, WL_NO_NODE, now);
}

void
wl_replay_rank_init (WlReplay *r, WlRank *k, guint32 rank, WlNodeSource *src)
{
  k->replay = r;
  k->rank = rank;
  k->src = src;
  src->ready = make_ready;
  src->ready_data = k;
  k->speed = wl_params_rank_speed (&r->params, rank);
  k->stats.nodes = src->n_nodes;
  /* Separate comm streams: a queue and slots for each stream after the
   * first (ASTRA-sim inputs never ask for them). */
  k->n_queues = SLOT_N + (r->params.separate_comm_streams ? MAX (src->n_streams, 1u) - 1 : 0);
  k->ready = g_new0 (WlFifo, k->n_queues);
  k->busy = g_new0 (guint, k->n_queues);
  k->limit = g_new (guint, k->n_queues);
  for (guint s = 0; s < k->n_queues; s++)
    k->limit[s] = slot_limit (r, s);
}

gboolean
wl_replay_start (WlReplay *r, GError **error)
{
  guint32 n = r->lockstep ? 1 : r->n_ranks;
  for (guint32 i = 0; i < n; i++)
    if (wl_replay_simulated (r, i) && r->ranks[i].graph != NULL
        && !wl_graph_expand (r->ranks[i].graph, error))
      return FALSE;
  for (guint32 i = 0; i < n; i++)
    {
      if (!wl_replay_simulated (r, i))
        continue;
      if (r->recording && r->ranks[i].rec == NULL)
        record_alloc (&r->ranks[i]);
      sim_sched_at (r->sched, sim_sched_now (r->sched), on_rank_start, &r->ranks[i], 0);
    }
  return TRUE;
}

/* ---- results ---------------------------------------------------------------------- */

gboolean
wl_replay_ok (const WlReplay *r, GError **error)
{
  if (r->error == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (r->error));
  return FALSE;
}

guint32
wl_replay_unfinished (const WlReplay *r)
{
  guint32 count = 0;
  for (guint32 i = 0; i < r->n_ranks; i++)
    count += r->ranks[i].stats.nodes_done < r->ranks[i].stats.nodes;
  return count;
}

static const char *
op_name (const WlNode *n)
{
  static const char *const names[] = { "skipped", "COMP", "CPU COMP", "COMM_COLL", "COMM_SEND",
                                       "COMM_RECV", "MEM" };
  return names[n->op];
}

static void
describe_rank (const WlRank *k, GString *out)
{
  guint32 running = 0, ready = 0;
  g_string_append_printf (out, "rank %u: %u of %u nodes unfinished", k->rank,
                          k->stats.nodes - k->stats.nodes_done, k->stats.nodes);
  /* Running nodes are resident; a streamed trace's nodes not read yet all
   * wait (any that would be ready was an error when read). */
  guint32 first = 0, end = 0;
  k->src->klass->range (k->src, &first, &end);
  for (guint32 v = first; v < end; v++)
    {
      guint8 state = NODE_DONE;
      const WlNode *n = k->src->klass->peek (k->src, v, &state);
      if (n == NULL || state != NODE_RUNNING)
        continue;
      if (running++ < 4)
        {
          g_string_append_printf (out, "%s node %" G_GUINT64_FORMAT " (%s", running == 1 ? "; blocked in" : ",",
                                  n->id, op_name (n));
          if (n->op == WL_OP_RECV)
            g_string_append_printf (out, " from rank %u tag %d", n->peer_src, n->tag);
          else if (n->op == WL_OP_SEND)
            g_string_append_printf (out, " to rank %u tag %d", n->peer_dst, n->tag);
          g_string_append_c (out, ')');
        }
    }
  for (guint s = 0; s < k->n_queues; s++)
    ready += k->ready[s].len;
  guint32 waiting = k->stats.nodes - k->stats.nodes_done - running - ready;
  if (waiting > 0)
    g_string_append_printf (out, "; %u nodes wait on their dependencies", waiting);
  g_string_append_c (out, '\n');
}

void
wl_replay_describe_blocked (const WlReplay *r, GString *out, guint max_ranks)
{
  guint shown = 0, total = 0;
  for (guint32 i = 0; i < r->n_ranks; i++)
    if (r->ranks[i].stats.nodes_done < r->ranks[i].stats.nodes)
      {
        if (shown++ < max_ranks)
          describe_rank (&r->ranks[i], out);
        total++;
      }
  if (total > max_ranks)
    g_string_append_printf (out, "... and %u more ranks\n", total - max_ranks);
}

guint32
wl_replay_ranks (const WlReplay *r)
{
  return r->n_ranks;
}

const WlRankStats *
wl_replay_rank_stats (const WlReplay *r, guint32 rank)
{
  g_return_val_if_fail (rank < r->n_ranks, NULL);
  return &r->ranks[rank].stats;
}

guint
wl_replay_distinct_graphs (const WlReplay *r)
{
  return r->traces->len;
}

guint64
wl_replay_unknown_nodes (const WlReplay *r)
{
  guint64 total = 0;
  for (guint i = 0; i < r->traces->len; i++)
    total += g_array_index (r->traces, WlTrace, i).n_skipped_unknown;
  return total;
}

void
wl_replay_lenient_stats (const WlReplay *r, WlLenientStats *out)
{
  g_return_if_fail (r != NULL && out != NULL);
  *out = (WlLenientStats) { 0 };
  for (guint32 i = 0; i < r->n_ranks; i++)
    wl_lenient_stats_add (out, r->ranks[i].dropped);
}

gboolean
wl_replay_check_windows (const WlReplay *r, GError **error)
{
  for (guint32 i = 0; i < r->n_ranks; i++)
    {
      const WlRank *k = &r->ranks[i];
      if (k->src->klass->check_end == NULL || k->stats.nodes_done == k->stats.nodes)
        continue;
      if (!k->src->klass->check_end (k->src, sim_sched_now (r->sched), error))
        return FALSE;
    }
  return TRUE;
}
