/* gen_transformer_bound.c: a lower bound of the iteration time `orrery
 * run` gives for gen transformer's traces, from the pipeline's dependency
 * structure, without making the traces (wl_gen_transformer_bound,
 * gen_transformer.h).
 *
 * Why it is one.  Every compute node of a rank is emitted on its chain
 * (comp_after in gen_transformer_emit.c: each depends on the chain's last
 * node, and the receives and blocking collectives between them are on it
 * too), so a rank runs them one after the other in its schedule's order
 * (wl_tf_step), whatever its compute slots.  Across ranks of one TP, CP and
 * DP index, the forward of micro-batch mb through model chunk k starts after
 * its receive (wl_tf_forward: recv_act on the chain), which cannot complete
 * before the matching send is issued, after the forward of chunk k - 1
 * (send_act follows that forward's last node); the backward of chunk k
 * likewise after the backward of chunk k + 1 (wl_tf_backward: recv_grad).
 * Giving every communication node zero time (the TP, CP, EP and ZeRO-3
 * collectives on the chain, the pipeline's sends and receives, the
 * gradient collectives the optimizer step waits for), or only its floor
 * (below), leaves a graph whose longest path, compute node times and
 * floors summed along it, is at most the simulated time of the same path
 * (communication takes at least its floor, and a node starts no earlier
 * than its dependencies end), and the iteration ends
 * no earlier than any node.  This file walks that graph: each stage's order
 * as wl_tf_schedule emits it, a step starting at the later of its stage's
 * last end and its peer step's end; a stage's optimizer step follows its
 * last backward's send, so only the stage itself waits for it.  The classic
 * 1F1B form, max_s (sum_{j<s} f_j + m (f_s + b_s) + sum_{j<s} b_j), is a
 * path of this graph, so the walk is at least it (equal for equal stages,
 * (m + p - 1)(f + b)); GPipe and interleaved 1F1B ((m v + p - 1)(f + b) for
 * equal chunks) fall out of the same walk, and recomputation is inside each
 * backward's own compute nodes (full: the layer's forward nodes again;
 * selective: the core attention's).
 *
 * The compute nodes are priced as the run prices them (replay.c
 * wl_replay_compute_time): the same kernels (the generator's own kernel
 * functions), num_ops, bytes and trace duration, each node rounded alone, at
 * the fastest speed of its stage's ranks.  Nodes left out (the local DDP
 * flatten and unflatten, which depend on the buckets) only lower the bound.
 *
 * The communication floor.  Where the network's ports are shared (native
 * configs: NetSpec.share_ports; the analytical model holds a message's
 * receiver's ingress port on the dimension or first-and-last link it
 * travels for bytes / bandwidth, rounded up; the flow and congestion
 * models carry it over the rank's links, which are those ports), a rank
 * takes in at most in_Bps bytes/s, the sum of every port it has (every
 * dimension, every NIC and NVLink: whatever dimensions the group spans).
 * So a communication node whose completion at a rank needs B bytes to
 * arrive there, none sent before time t, ends no earlier than t + B /
 * in_Bps.  The nodes counted, and the bytes, for a group of n members
 * (n > 1), each the least over every algorithm orrery runs:
 *   - an all-gather of s bytes a member (comm_size): the n - 1 other
 *     shards must reach it, (n - 1) s, whatever the algorithm (rings,
 *     direct, halving-doubling, PAT, MSCCL programs, NVLS's multicast:
 *     the switch still delivers them through the rank's ports);
 *   - an all-reduce of S: every element of the result needs the others'
 *     values, so at least S would arrive, but orrery's NVLS and CollNet
 *     (algo_nccl.c timed_peers: a shard of ceil(S / g) from each of the
 *     g - 1 other GPUs of the node, plus the rail ring's across nodes)
 *     deliver (n - 1) ceil(S / n) in one node: (n - 1) floor(S / n) is
 *     the least;
 *   - a reduce-scatter of S (its input): its own shard's elements need
 *     the others' values, floor(S / n) at least, whatever the algorithm
 *     (a switch or another rank may reduce them first).  Rings, direct and
 *     NCCL's (ring, PAT, NVLS, CollNet: timed_peers) deliver n - 1 shards
 *     of S / n (rounded up or down) to every member, and so does a
 *     dimension-wise composition of them ((n0 - 1)/n0 S + (n1 - 1)/(n0
 *     n1) S = (n - 1)/n S): (n - 1) floor(S / n) where the caller says only
 *     those run (WlTfNetFloor.rs_shards; halving-doubling is not among
 *     them: on a group not a power of 2 its extra ranks get one shard);
 *   - a pipeline receive of s bytes: s, from when the peer's send is
 *     posted (after its chunk's last node: the walk's peer step end).
 * Only nodes on the rank's chain count (the next compute node depends on
 * them): the TP collectives around each block, all-reduces without
 * sequence parallelism, all-gathers and reduce-scatters with it
 * (tp_coll_elem), the all-gather after each pipeline receive without it,
 * the receives, and with cp = 1 ZeRO-3's parameter all-gathers and MoE's
 * all-to-alls (an all-to-all of x bytes a member: the n - 1 other
 * members' blocks, (n - 1) floor(x / n), whatever the algorithm).  Each
 * TP collective's members are the TP ranks of one (CP index, DP index,
 * stage), a ZeRO-3 gather's or an all-to-all's DP ranks of one (TP index,
 * CP index, stage): the walk for that CP index bounds each of their
 * arrivals at the collective from below (every one's steps are priced at
 * the stage's fastest speed), so none sends before the walk's time t
 * there.  Left at 0 (not proven here): the CP exchanges (peers of another
 * CP index, walked apart), ZeRO-3's gathers and the all-to-alls with cp >
 * 1 (likewise), the FP8 amax all-reduces and the data-parallel gradient
 * collectives (off the chain until the optimizer step; their groups span
 * the CP indices).  Each floor is rounded down and then 1 ns less, a
 * margin for floating point (the flow model's rates sum to a link's
 * capacity within a relative 1e-13, link_flow_inc.c: well under a
 * picosecond on a floor of milliseconds); no latency is added.  Without
 * shared ports (ASTRA-sim's semantics: every message in flight gets a
 * link's full bandwidth) in_Bps is 0 and communication is free, as
 * before. */
#include <math.h>

#include "sim/units.h"
#include "workload/gen_transformer_private.h"
#include "workload/kernels.h"
#include "workload/node.h"

/* What prices a rank's compute nodes. */
typedef struct
{
  const WlParams *p;
  double speed;
  WlTfNetFloor net; /* in_Bps: what a rank's ports take in at most (0: no floor) */
  Emit e; /* the kernel functions' view of the rank: req, costs, CP index, stage */
} Pricer;

/* The floor in ps of receiving BYTES (the file's comment says why):
 * rounded down, less 1 ns. */
static SimTime
recv_floor (const Pricer *x, guint64 bytes)
{
  if (!(x->net.in_Bps > 0.0) || bytes == 0)
    return 0;
  double ps = floor ((double) bytes / x->net.in_Bps * (double) SIM_PS_PER_S);
  return ps > (double) SIM_PS_PER_NS ? (SimTime) ps - SIM_PS_PER_NS : 0;
}

/* The floors of a member of a TP collective: an all-gather of SHARD bytes
 * a member, an all-reduce or reduce-scatter of BYTES. */
static SimTime
tp_gather_floor (const Pricer *x, guint64 shard)
{
  guint32 n = x->e.req->tp;
  return n > 1 ? recv_floor (x, (guint64) (n - 1) * shard) : 0;
}

static SimTime
tp_reduce_floor (const Pricer *x, guint64 bytes, gboolean scatter)
{
  guint32 n = x->e.req->tp;
  if (n <= 1)
    return 0;
  return recv_floor (x, (scatter && !x->net.rs_shards ? 1 : (guint64) (n - 1)) * (bytes / n));
}

/* ZeRO-3's all-gather of PARAMS parameters over N ranks before their use
 * (dp_gather_on in gen_transformer_emit.c: 2 (params / tp) / n bytes a
 * member, on the chain).  Its group is the DP x CP ranks of one TP index
 * and stage (the expert-DP ranks for experts): counted only with cp = 1,
 * when every member is of the CP index walked. */
static SimTime
zero3_floor (const Pricer *x, guint64 params, guint32 n)
{
  const WlGenTransformer *r = x->e.req;
  if (r->zero < 3 || n <= 1 || wl_tf_cp (r) > 1)
    return 0;
  return recv_floor (x, (guint64) (n - 1) * wl_tf_zero3_shard (r, params, n));
}

/* An MoE layer's all-to-all on the EP group (ep_a2a in
 * gen_transformer_emit.c: comm_size x = top_k act / tp, the rank's whole
 * buffer): a member receives the n - 1 other members' blocks, (n - 1)
 * floor(x / n) whatever the algorithm (nothing reduces them).  The group
 * is ep DP indices of one TP index and stage; its name does not tell CP
 * indices apart, so counted only with cp = 1. */
static SimTime
ep_floor (const Pricer *x)
{
  const WlGenTransformer *r = x->e.req;
  guint32 n = ep_of (r);
  if (r->model.experts == 0 || n <= 1 || wl_tf_cp (r) > 1)
    return 0;
  return recv_floor (x, (guint64) (n - 1) * (wl_tf_ep_a2a_bytes (r, x->e.c.act_bytes) / n));
}

/* A layer's ZeRO-3 gathers (layer_gather), and those of the embedding or
 * LM head's table. */
static SimTime
zero3_layer (const Pricer *x)
{
  const WlGenTransformer *r = x->e.req;
  SimTime t = zero3_floor (x, dense_part (&r->model), r->dp * wl_tf_cp (r));
  if (r->model.experts > 0)
    t += zero3_floor (x, expert_part (r), r->dp / ep_of (r));
  return t;
}

static SimTime
zero3_table (const Pricer *x)
{
  const WlGenTransformer *r = x->e.req;
  return zero3_floor (x, wl_tf_padded_vocab (r) * r->model.hidden, r->dp * wl_tf_cp (r));
}

/* The TP collectives of a block's chain (tp_coll_elem in
 * gen_transformer_emit.c): the all-gather before a forward block (GATHER_F,
 * of the norm's output, FP8 or bf16) or a backward one (GATHER_B), and the
 * all-reduce or reduce-scatter after either (AFTER). */
typedef struct
{
  SimTime gather_f, gather_b, after;
} TpFloors;

static TpFloors
tp_floors (const Pricer *x)
{
  const WlGenTransformer *r = x->e.req;
  TpFloors f = { 0 };
  if (r->tp <= 1)
    return f;
  guint64 act = x->e.c.act_bytes / wl_tf_cp (r); /* cp_act */
  if (r->no_sequence_parallel)
    {
      f.after = tp_reduce_floor (x, act, FALSE);
      return f;
    }
  f.gather_f = tp_gather_floor (x, act / 2 * (r->fp8 ? 1 : 2) / r->tp);
  f.gather_b = tp_gather_floor (x, act / 2 * 2 / r->tp);
  f.after = tp_reduce_floor (x, act, TRUE);
  return f;
}

/* The duration_micros comp_after writes for kernels K (0 without a
 * device). */
static guint64
trace_us (const WlGenTransformer *r, const WlTfKernels *k)
{
  WlRoofline roof;
  if (r->device == NULL || !wl_device_roofline (r->device, WL_DTYPE_BF16, &roof))
    return 0;
  return (guint64) ceil ((k->flops > 0 ? wl_roofline_ns (&roof, k->flops, k->bytes)
                                       : (double) k->bytes / (roof.mem_bw_Bps * roof.memory_eff)
                                           * 1e9)
                         / 1000.0);
}

/* The time of a compute node running kernels K, as wl_replay_compute_time
 * gives it at speed X->speed. */
static SimTime
price (const Pricer *x, const WlTfKernels *k)
{
  const WlParams *p = x->p;
  if (p->compute == WL_COMPUTE_KERNEL && k->s->len > 0)
    {
      g_autoptr (GArray) ks = g_array_new (FALSE, FALSE, sizeof (WlKernel));
      gboolean parsed = wl_kernels_parse (k->s->str, ks, NULL);
      g_assert (parsed); /* the generator writes the grammar */
      return wl_params_round_ns (p, wl_kernel_list_ns (p->kernel_device, p->kernel_table, ks)
                                      / x->speed);
    }
  WlNode n = { .op = WL_OP_COMP, .num_ops = k->flops, .bytes = k->bytes,
               .duration_ps = trace_us (x->e.req, k) * SIM_PS_PER_US };
  gboolean by_ops = p->compute == WL_COMPUTE_ROOFLINE || p->compute == WL_COMPUTE_KERNEL;
  if (by_ops ? n.num_ops > 0 : p->compute == WL_COMPUTE_SCALED)
    return wl_params_round_ns (p, wl_compute_node_ns (p, &n) / x->speed);
  if (n.duration_ps == 0 && p->timing.empty_compute_time > 0)
    return p->timing.empty_compute_time;
  if (x->speed == 1.0)
    return n.duration_ps;
  return wl_params_round_ns (p, (double) n.duration_ps / (double) SIM_PS_PER_NS / x->speed);
}

typedef void (*BlockKernels) (const Emit *e, WlTfKernels *k, gboolean bwd);

/* The price of one node of block FN (forward or BWD). */
static SimTime
block (const Pricer *x, BlockKernels fn, gboolean bwd)
{
  WlTfKernels k;
  wl_tf_kernels_init (&k);
  fn (&x->e, &k, bwd);
  SimTime t = price (x, &k);
  wl_tf_kernels_clear (&k);
  return t;
}

/* The prices of a rank's per-layer and per-end blocks: the same in
 * every chunk and micro-batch (kernels_of in gen_transformer_emit.c builds
 * them once per rank). */
typedef struct
{
  SimTime layer_f, layer_b, embed_f, embed_b, head_f, head_b;
} Blocks;

/* layer_fwd and layer_bwd (gen_transformer_emit.c): a layer's forward is
 * its attention and MLP blocks; its backward the MLP's and attention's
 * backward, after the whole forward again (full recomputation, the same
 * kernels and TP collectives) or the core attention's (selective); each
 * block with its TP collectives' floors (the embedding's reduce after its
 * forward, the all-gather before its backward; the head's all-gather
 * before its forward, at bf16 size, and reduce after its backward). */
static Blocks
blocks_of (const Pricer *x)
{
  const WlGenTransformer *r = x->e.req;
  TpFloors tp = tp_floors (x);
  SimTime ep = ep_floor (x); /* dispatch and combine, each way */
  Blocks b = { .layer_f = block (x, wl_tf_kernels_attn, FALSE)
                         + block (x, wl_tf_kernels_mlp, FALSE)
                         + 2 * (tp.gather_f + tp.after + ep),
               .layer_b = block (x, wl_tf_kernels_mlp, TRUE) + block (x, wl_tf_kernels_attn, TRUE)
                         + 2 * (tp.gather_b + tp.after + ep),
               .embed_f = block (x, wl_tf_kernels_embed, FALSE) + tp.after,
               .embed_b = block (x, wl_tf_kernels_embed, TRUE) + tp.gather_b,
               .head_f = block (x, wl_tf_kernels_head, FALSE) + tp.gather_b,
               .head_b = block (x, wl_tf_kernels_head, TRUE) + tp.after };
  if (r->recompute == WL_RECOMPUTE_FULL)
    b.layer_b += b.layer_f;
  else if (r->recompute == WL_RECOMPUTE_SELECTIVE)
    b.layer_b += block (x, wl_tf_kernels_core, FALSE);
  /* ZeRO-3's gathers: before each layer's forward and backward (not again
   * for its recomputation), the embedding's forward and the head's
   * forward and backward. */
  SimTime z = zero3_layer (x), table = zero3_table (x);
  b.layer_f += z;
  b.layer_b += z;
  b.embed_f += table;
  b.head_f += table;
  b.head_b += table;
  return b;
}


/* Model chunk K's costs (wl_tf_forward and wl_tf_backward of
 * gen_transformer_emit.c, node by node), its blocks priced in B. */
static WlTfChunkCost
chunk_cost (const Pricer *x, const Blocks *b, guint32 k)
{
  const WlGenTransformer *r = x->e.req;
  guint32 layers = wl_tf_chunk_layers (r, k), chunks = r->pp * wl_tf_vstages (r);
  gboolean last = k + 1 == chunks;
  WlTfChunkCost c = { .fwd = layers * b->layer_f, .bwd = layers * b->layer_b };
  if (chunks > 1)
    {
      /* The receives (p2p in gen_transformer_emit.c): each TP rank's 1/tp
       * of the activation or its gradient, then without sequence
       * parallelism its all-gather on the TP group. */
      guint64 piece = x->e.c.act_bytes / wl_tf_cp (r) / r->tp;
      c.recv = recv_floor (x, piece);
      SimTime gather = r->no_sequence_parallel ? tp_gather_floor (x, piece) : 0;
      c.fwd += k > 0 ? gather : 0;
      c.bwd += last ? 0 : gather;
    }
  if (k == 0)
    {
      c.fwd += b->embed_f;
      c.bwd += b->embed_b;
    }
  if (last)
    {
      c.fwd += b->head_f;
      c.bwd += b->head_b;
    }
  WlTfKernels kk;
  if (r->fp8 && layers > 0)
    {
      /* fp8_weights and fp8_amax: the amaxes of every chunk of the stage. */
      guint64 n = stage_layers (r, x->e.p);
      wl_tf_kernels_init (&kk);
      wl_tf_kernels_fp8_weights (&x->e, &kk, layers);
      c.fwd_first = price (x, &kk);
      wl_tf_kernels_clear (&kk);
      wl_tf_kernels_init (&kk);
      wl_tf_kernels_fp8_amax (&kk, WL_TF_FP8_AMAX_FWD * n);
      c.fwd += price (x, &kk);
      wl_tf_kernels_clear (&kk);
      wl_tf_kernels_init (&kk);
      wl_tf_kernels_fp8_amax (&kk, WL_TF_FP8_AMAX_BWD * n);
      c.bwd += price (x, &kk);
      wl_tf_kernels_clear (&kk);
    }
  if (r->unfused_grad_accum)
    {
      guint64 emb = wl_tf_padded_vocab (r) * r->model.hidden;
      guint64 params = layers * layer_local (r) + (k == 0 ? emb : 0) + (last ? emb : 0);
      wl_tf_kernels_init (&kk);
      wl_tf_kernels_grad_accum (&kk, params / r->tp);
      c.bwd_later = price (x, &kk);
      wl_tf_kernels_clear (&kk);
    }
  return c;
}

/* The optimizer step of stage P's ranks (step in gen_transformer_emit.c),
 * after their last backward. */
static SimTime
step_cost (const Pricer *x, guint32 p)
{
  WlTfKernels kk;
  wl_tf_kernels_init (&kk);
  wl_tf_kernels_optimizer (&kk, wl_tf_step_params (x->e.req, p), x->e.req);
  SimTime t = price (x, &kk);
  wl_tf_kernels_clear (&kk);
  return t;
}

/* The fastest speed of stage P's ranks of CP index C. */
static double
stage_speed (const WlGenTransformer *r, const WlParams *params, guint32 c, guint32 p)
{
  if (params->n_speed_rules == 0)
    return 1.0;
  double most = 0.0;
  for (guint32 d = 0; d < r->dp; d++)
    for (guint32 t = 0; t < r->tp; t++)
      most = MAX (most, wl_params_rank_speed (params, rank_of (r, t, c, d, p)));
  return most;
}

SimTime
wl_gen_transformer_walk (const WlGenTransformer *r, guint32 M, const WlTfChunkCost *cost,
                         const SimTime *step)
{
  g_return_val_if_fail (r != NULL && M > 0 && cost != NULL && step != NULL, 0);
  guint32 pp = r->pp, v = wl_tf_vstages (r), K = pp * v, steps = 2 * M * v;
  g_autofree SimTime *end_f = g_new (SimTime, (gsize) K * M);
  g_autofree SimTime *end_b = g_new (SimTime, (gsize) K * M);
  g_autofree SimTime *now = g_new0 (SimTime, pp);
  g_autofree guint32 *pos = g_new0 (guint32, pp);
  for (gsize i = 0; i < (gsize) K * M; i++)
    end_f[i] = end_b[i] = G_MAXUINT64; /* not yet reached */
  guint32 left = pp;
  while (left > 0)
    {
      gboolean moved = FALSE;
      for (guint32 p = 0; p < pp; p++)
        for (; pos[p] < steps; pos[p]++)
          {
            WlTfStep s = wl_tf_step (r, M, p, pos[p]);
            guint32 k = s.chunk * pp + p;
            gsize at = (gsize) k * M + s.mb;
            /* The peer step: the previous chunk's forward, the next
             * chunk's backward (the last chunk's backward follows its
             * own forward on this stage's chain). */
            SimTime dep = s.fwd ? (k > 0 ? end_f[at - M] : 0) : (k + 1 < K ? end_b[at + M] : 0);
            if (dep == G_MAXUINT64)
              break;
            if (s.fwd ? k > 0 : k + 1 < K)
              dep = sim_time_add (dep, cost[k].recv);
            SimTime t = MAX (now[p], dep);
            const WlTfChunkCost *c = &cost[k];
            if (s.fwd)
              t = sim_time_add (t, c->fwd + (s.mb == 0 ? c->fwd_first : 0));
            else
              t = sim_time_add (t, c->bwd + (s.mb > 0 ? c->bwd_later : 0));
            (s.fwd ? end_f : end_b)[at] = now[p] = t;
            /* The step follows the send of the stage's last gradient
             * (wl_tf_backward): the stage before does not wait for it. */
            if (!s.fwd && s.mb + 1 == M && s.chunk == 0)
              now[p] = sim_time_add (now[p], step[p]);
            moved = TRUE;
            if (pos[p] + 1 == steps)
              left--;
          }
      if (!moved && left > 0)
        return 0;
    }
  SimTime most = 0;
  for (guint32 p = 0; p < pp; p++)
    most = MAX (most, now[p]);
  return most;
}

SimTime
wl_gen_transformer_bound (const WlGenTransformer *req, const WlParams *params,
                          const WlTfNetFloor *net)
{
  g_return_val_if_fail (req != NULL && params != NULL, 0);
  guint32 M = wl_gen_transformer_microbatches (req, NULL);
  /* M > 0 implies tp and pp > 0 (said again for clang's analyzer). */
  if (M == 0 || req->tp == 0 || req->pp == 0
      || (params->compute == WL_COMPUTE_KERNEL && params->kernel_device == NULL))
    return 0;
  guint32 pp = req->pp, v = wl_tf_vstages (req), K = pp * v;
  g_autofree WlTfChunkCost *cost = g_new0 (WlTfChunkCost, K);
  g_autofree SimTime *step = g_new0 (SimTime, pp);
  Costs costs = costs_of (req);
  SimTime most = 0;
  for (guint32 c = 0; c < wl_tf_cp (req); c++)
    {
      Blocks b = { 0 };
      double priced = 0.0; /* the speed B was priced at (0: none yet) */
      for (guint32 p = 0; p < pp; p++)
        {
          Pricer x = { .p = params, .speed = stage_speed (req, params, c, p),
                       .net = net != NULL ? *net : (WlTfNetFloor) { 0 },
                       .e = { .req = req, .c = costs, .M = M, .c_idx = c, .p = p } };
          if (!(x.speed > 0.0))
            return 0;
          /* The blocks' kernels do not depend on the stage: priced again
           * only at another speed. */
          if (x.speed != priced)
            b = blocks_of (&x);
          priced = x.speed;
          for (guint32 ch = 0; ch < v; ch++)
            cost[ch * pp + p] = chunk_cost (&x, &b, ch * pp + p);
          step[p] = step_cost (&x, p);
        }
      most = MAX (most, wl_gen_transformer_walk (req, M, cost, step));
    }
  return most;
}
