/* algo_nccl.c: NCCL's algorithms as message patterns (see algo_nccl.h). */
#include "system/algo_nccl.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"

/* ---- the group's shape ---------------------------------------------------------- */

/* A dimension's link kind, the default spelled out: the innermost
 * dimension is NVLink, the others the network. */
static NetLinkKind
dim_link (const NetSpec *spec, guint d)
{
  NetLinkKind k = spec->dims[d].link;
  if (k == NET_LINK_DEFAULT)
    k = d == 0 ? NET_LINK_NVLINK : NET_LINK_NET;
  return k;
}

/* NCCL counts an NVLink at SMxx_NVLINK_BW GB/s (src/graph/topo.h, NCCL
 * 2.26.2: SM70 20.0, SM80 20.0, SM90 20.6, SM100 40.0); the datasheets give
 * 25 GB/s per link and direction for NVLink 2, 3 and 4 (V100: 6 links, 150
 * GB/s; A100: 12 links, 300 GB/s; H100: 18 links, 450 GB/s) and 50 for
 * NVLink 5 (B200: 18 links, 900 GB/s).  The link count is the configured
 * bandwidth over the datasheet figure. */
static double
nccl_nvlink_GBps (SysGpuArch gpu, double dim_GBps)
{
  double datasheet = gpu == SYS_GPU_BLACKWELL ? 50.0 : 25.0;
  double nccl = gpu == SYS_GPU_BLACKWELL ? 40.0 : gpu == SYS_GPU_HOPPER ? 20.6 : 20.0;
  double links = MAX (1.0, round (dim_GBps / datasheet));
  return links * nccl;
}

/* The GPU's PCIe x16 link as NCCL counts it (src/graph/topo.cc: width x
 * speed / 80 GB/s): Gen3 12 (V100), Gen4 24 (A100), Gen5 48 (H100, B200),
 * generations from the GPUs' datasheets. */
static double
nccl_pci_GBps (SysGpuArch gpu)
{
  switch (gpu)
    {
    case SYS_GPU_VOLTA: return 12.0;
    case SYS_GPU_AMPERE: return 24.0;
    default: return 48.0;
    }
}

/* Node index of a rank: its coordinates on the network dimensions. */
static guint64
node_key (const NetTopo *topo, guint32 rank)
{
  const NetSpec *spec = net_topo_spec (topo);
  guint64 key = 0;
  for (guint d = 0; d < spec->n_dims; d++)
    if (dim_link (spec, d) == NET_LINK_NET)
      key = key * spec->dims[d].size + net_topo_coord (topo, rank, d);
  return key;
}

static gboolean
group_layout (SysNcclGroup *g, const NetTopo *topo, const guint32 *ranks, guint32 n,
              GError **error)
{
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g->node_of = g_new (guint32, n);
  g->local_of = g_new (guint32, n);
  g_autofree guint32 *count = g_new0 (guint32, n);
  for (guint32 i = 0; i < n; i++)
    {
      gint64 key = (gint64) node_key (topo, ranks[i]);
      gpointer v = g_hash_table_lookup (index, &key);
      if (v == NULL)
        {
          v = GUINT_TO_POINTER (g_hash_table_size (index) + 1);
          g_hash_table_insert (index, g_memdup2 (&key, sizeof key), v);
        }
      guint32 node = GPOINTER_TO_UINT (v) - 1;
      g->node_of[i] = node;
      g->local_of[i] = count[node]++;
    }
  g->nodes = g_hash_table_size (index);
  g->ppn = count[0];
  for (guint32 k = 1; k < g->nodes; k++)
    if (count[k] != g->ppn)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "NCCL library: a group of %u ranks has %u GPUs on its first node and %u "
                     "on node %u; NCCL's model needs the same number on every node",
                     n, g->ppn, count[k], k);
        return FALSE;
      }
  g->member_at = g_new (guint32, n);
  for (guint32 i = 0; i < n; i++)
    g->member_at[g->node_of[i] * g->ppn + g->local_of[i]] = i;
  return TRUE;
}

/* The machine NCCL sees: links of the innermost dimension the group spans
 * inside a node, NICs of the first network dimension it spans. */
static void
group_machine (const SysNcclGroup *g, const NetTopo *topo, const guint32 *ranks, guint32 n,
               const SysLibraryParams *lib, SysNcclMachine *m)
{
  const NetSpec *spec = net_topo_spec (topo);
  *m = (SysNcclMachine) { .gpu = lib->gpu, .cpu = lib->cpu, .nodes = g->nodes, .ranks = n,
                          .intra = NET_LINK_NVLINK, .collnet = lib->collnet,
                          .net_latency_us = (double) lib->net_latency / 1e6,
                          .pci_GBps = nccl_pci_GBps (lib->gpu) };
  gboolean intra_set = FALSE, net_set = FALSE;
  for (guint d = 0; d < spec->n_dims; d++)
    {
      gboolean spans = FALSE;
      for (guint32 i = 1; i < n && !spans; i++)
        spans = net_topo_coord (topo, ranks[i], d) != net_topo_coord (topo, ranks[0], d);
      if (!spans)
        continue;
      NetLinkKind k = dim_link (spec, d);
      double GBps = spec->dims[d].bandwidth_Bps / 1e9;
      if (k == NET_LINK_NET && !net_set)
        {
          m->nic_GBps = GBps;
          net_set = TRUE;
        }
      else if (k != NET_LINK_NET && !intra_set)
        {
          m->intra = k;
          m->nvswitch = k == NET_LINK_NVLINK && spec->dims[d].kind == NET_DIM_SWITCH;
          m->intra_GBps = k == NET_LINK_NVLINK ? nccl_nvlink_GBps (lib->gpu, GBps) : GBps;
          intra_set = TRUE;
        }
    }
  if (!intra_set)
    m->intra_GBps = m->pci_GBps;
}

SysNcclGroup *
sys_nccl_group_new (const NetTopo *topo, const guint32 *ranks, guint32 n,
                    const SysLibraryParams *lib, GError **error)
{
  SysNcclGroup *g = g_new0 (SysNcclGroup, 1);
  SysNcclMachine m;
  if (!group_layout (g, topo, ranks, n, error))
    goto fail;
  group_machine (g, topo, ranks, n, lib, &m);
  if (!sys_nccl_model_init (&g->model, &m, lib, error))
    goto fail;
  return g;
fail:
  sys_nccl_group_free (g);
  return NULL;
}

void
sys_nccl_group_free (SysNcclGroup *g)
{
  if (g == NULL)
    return;
  g_free (g->node_of);
  g_free (g->local_of);
  g_free (g->member_at);
  g_free (g);
}

/* ---- plans ----------------------------------------------------------------------- */

/* Saturating, as every time is: a plan past the clock ends the run there. */
static SimTime
us_to_ps (double us)
{
  double ps = round (us * 1e6);
  return ps >= 0x1p64 ? SIM_TIME_MAX : (SimTime) ps;
}

gboolean
sys_nccl_plan (const SysNcclGroup *g, SysCollKind kind, guint64 bytes, SysNcclPlan *out,
               GError **error)
{
  const SysNcclModel *model = &g->model;
  guint32 n = model->m.ranks;
  *out = (SysNcclPlan) { .g = g, .lines = 1 };
  g_assert (sys_nccl_func_of (kind, &out->func));
  /* NCCL's nBytes: an all-gather's whole output (comm_size is the
   * per-rank input), otherwise the buffer. */
  guint64 nbytes = kind == SYS_COLL_ALL_GATHER ? bytes * n : bytes;
  if (!sys_nccl_choose (model, out->func, nbytes, &out->choice))
    {
      g_autoptr (GString) has = g_string_new (NULL);
      SysLibraryParams open = { .library = SYS_LIBRARY_NCCL, .gpu = model->m.gpu };
      SysNcclModel all;
      if (sys_nccl_model_init (&all, &model->m, &open, NULL))
        for (guint a = 0; a < SYS_NCCL_ALGOS; a++)
          for (guint p = 0; p < SYS_NCCL_PROTOS; p++)
            if (all.bw[out->func][a][p] > 0)
              g_string_append_printf (has, "%s%s/%s", has->len ? ", " : "",
                                      sys_nccl_algo_name (a), sys_nccl_proto_name (p));
      if (has->len > 0)
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "NCCL library: no algorithm and protocol left for %s of %" G_GUINT64_FORMAT
                     " bytes on %u ranks (%u node%s): nccl-algo / nccl-proto rule out all this "
                     "machine has for it (%s)",
                     sys_coll_kind_name (kind), bytes, n, g->nodes, g->nodes == 1 ? "" : "s",
                     has->str);
      else
        {
          /* Nothing to rule out: the links are below every speed NCCL's
           * search tries.  NCCL then falls back to one channel at 0.1
           * GB/s (src/graph/search.cc, "Could not find a path for
           * pattern"), which is not modelled. */
          g_autofree char *why = sys_nccl_no_channel_why (&model->m);
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "NCCL library: no algorithm for %s of %" G_GUINT64_FORMAT
                       " bytes on %u ranks (%u node%s): NCCL's topology search finds no channel "
                       "on this machine (%s); NCCL would fall back to one channel of 0.1 GB/s, "
                       "which orrery does not model: give the links more bandwidth, or use "
                       "<system library=\"per-dimension\">",
                       sys_coll_kind_name (kind), bytes, n, g->nodes, g->nodes == 1 ? "" : "s",
                       why);
        }
      return FALSE;
    }
  SysNcclChoice *c = &out->choice;
  double raw = model->lat[out->func][c->algo][c->proto];
  double scale = raw > 0 ? c->lat_us / raw : 1.0; /* the ring plateau factor */
  out->base = us_to_ps (model->base_lat[c->algo][c->proto] * scale);
  out->intra_lat = us_to_ps (model->intra_lat[c->algo][c->proto] * scale);
  out->inter_lat = us_to_ps (model->inter_lat[c->algo][c->proto] * scale);
  out->time = us_to_ps (c->time_us);
  out->wire = c->proto == SYS_NCCL_LL ? 2.0 : c->proto == SYS_NCCL_LL128 ? 128.0 / 120.0 : 1.0;
  gboolean ring = c->algo == SYS_NCCL_RING && out->func != SYS_NCCL_BROADCAST
                  && out->func != SYS_NCCL_REDUCE;
  if (ring)
    {
      out->nsteps = out->func == SYS_NCCL_ALL_REDUCE ? 2 * (n - 1) : n - 1;
      out->lines = g->nodes > 1 ? g->ppn : 1;
      out->rate_Bps = c->bus_GBps * 1e9 / out->lines;
    }
  return TRUE;
}

void
sys_nccl_plan_label (const SysNcclPlan *plan, char *buf, gsize size)
{
  g_snprintf (buf, size, "nccl %s/%s x%u", sys_nccl_algo_name (plan->choice.algo),
              sys_nccl_proto_name (plan->choice.proto), plan->choice.channels);
}

gboolean
sys_nccl_plan_in_network (const SysNcclPlan *plan)
{
  SysNcclAlgo a = plan->choice.algo;
  return a == SYS_NCCL_NVLS || a == SYS_NCCL_NVLS_TREE || a == SYS_NCCL_COLLNET_DIRECT
         || a == SYS_NCCL_COLLNET_CHAIN;
}

const SysAlgoClass *
sys_nccl_plan_algo (const SysNcclPlan *plan)
{
  return plan->nsteps > 0 ? &sys_algo_nccl_ring : &sys_algo_nccl_timed;
}

static guint64
wire_bytes (const SysNcclPlan *plan, guint64 bytes)
{
  return (guint64) ceil ((double) bytes * plan->wire);
}

/* ---- the ring ----------------------------------------------------------------------- */

/* Line c of a ring: in every node the GPUs from local index c on, the last
 * one passing to the next node's GPU c over rail c (NCCL's rings enter and
 * leave a node through one NIC).  Where member `m` sends, and from which
 * rank's NIC. */
typedef struct
{
  guint32 to;    /* the successor member */
  guint32 from;  /* the member whose rank the message leaves (its NIC) */
  guint32 via;   /* the member whose rank it reaches */
  gboolean inter;
} RingHop;

static RingHop
ring_hop (const SysNcclPlan *plan, guint32 member, guint32 line)
{
  const SysNcclGroup *g = plan->g;
  guint32 node = g->node_of[member], local = g->local_of[member];
  guint32 entry = line % g->ppn;
  guint32 exit = (entry + g->ppn - 1) % g->ppn;
  RingHop h = { .from = member, .inter = FALSE };
  if (local != exit || g->nodes == 1)
    {
      h.to = h.via = g->member_at[node * g->ppn + (local + 1) % g->ppn];
      return h;
    }
  guint32 next = (node + 1) % g->nodes;
  h.inter = TRUE;
  h.to = g->member_at[next * g->ppn + entry];
  h.from = g->member_at[node * g->ppn + entry];
  h.via = h.to;
  return h;
}

gboolean
sys_nccl_plan_alike (const SysNcclPlan *plan, Net *net, const guint32 *ranks, guint32 n,
                     const char **why)
{
  const SysNcclGroup *g = plan->g;
  g_assert (g->nodes > 0 && g->ppn > 0);
  if (plan->nsteps == 0)
    return (*why = "NCCL's tree, NVLS and CollNet algorithms give members different roles",
            FALSE);
  if (g->nodes > 1 && g->ppn > 1)
    return (*why = "NCCL's rings cross nodes at some members only", FALSE);
  /* Every line takes the same hops (one node, or one member per node). */
  RingHop first = ring_hop (plan, 0, 0);
  for (guint32 m = 0; m < n; m++)
    {
      RingHop h = ring_hop (plan, m, 0);
      if (h.from != m || h.via != h.to
          || !net_routes_alike (net, ranks[m], ranks[h.to], ranks[0], ranks[first.to]))
        return (*why = "NCCL's ring hops cost differently at different members", FALSE);
    }
  return TRUE;
}

guint32
sys_nccl_plan_period (const SysNcclPlan *plan, Net *net, const guint32 *ranks, guint32 n,
                      const char **why)
{
  const SysNcclGroup *g = plan->g;
  if (plan->nsteps == 0)
    return (*why = "NCCL's tree, NVLS and CollNet algorithms give members different roles", 0);
  if (g->nodes < 2 || g->ppn < 2)
    return (*why = "NCCL's ring stays inside one node or takes one member per node", 0);
  guint32 k = g->ppn;
  for (guint32 m = 0; m < n; m++)
    if (g->member_at[m] != m)
      return (*why = "a group whose members are not laid out node by node in their order", 0);
  /* Member m = node * k + local: each line's hop from m is that of m mod k
   * moved by m's node (ring_hop), and must be priced alike. */
  for (guint32 line = 0; line < plan->lines; line++)
    for (guint32 m = k; m < n; m++)
      {
        RingHop h = ring_hop (plan, m, line), h0 = ring_hop (plan, m % k, line);
        guint32 shift = m - m % k;
        if (h.inter != h0.inter || h.from != (h0.from + shift) % n || h.to != (h0.to + shift) % n
            || !net_routes_alike (net, ranks[h.from], ranks[h.via], ranks[h0.from],
                                  ranks[h0.via]))
          return (*why = "NCCL's ring hops between nodes cost differently at different nodes", 0);
      }
  return k;
}

gboolean
sys_nccl_plans_mirror (const SysNcclPlan *a, const SysNcclPlan *b, guint32 n, const char **why)
{
  const SysNcclGroup *x = a->g, *y = b->g;
  const SysNcclChoice *p = &a->choice, *q = &b->choice;
  if (x->nodes != y->nodes || x->ppn != y->ppn
      || memcmp (x->node_of, y->node_of, n * sizeof *x->node_of) != 0
      || memcmp (x->local_of, y->local_of, n * sizeof *x->local_of) != 0)
    return (*why = "a process group and its image are laid out differently over nodes", FALSE);
  if (a->func != b->func || p->algo != q->algo || p->proto != q->proto
      || p->time_us != q->time_us || p->lat_us != q->lat_us || p->bw_GBps != q->bw_GBps
      || p->bus_GBps != q->bus_GBps || p->channels != q->channels || a->lines != b->lines
      || a->nsteps != b->nsteps || a->base != b->base || a->intra_lat != b->intra_lat
      || a->inter_lat != b->inter_lat || a->time != b->time || a->rate_Bps != b->rate_Bps
      || a->wire != b->wire)
    return (*why = "NCCL plans a collective differently on a process group and its image", FALSE);
  const SysAlgoClass *row = sys_nccl_plan_algo (a);
  if (row->mirror_why != NULL)
    return (*why = row->mirror_why, FALSE);
  return TRUE;
}

gboolean
sys_nccl_plan_pair (const SysNcclPlan *plan, guint32 i, guint32 j)
{
  const SysNcclGroup *g = plan->g;
  switch (plan->choice.algo)
    {
    case SYS_NCCL_RING:
    case SYS_NCCL_TREE:
    case SYS_NCCL_COLLNET_CHAIN:
    case SYS_NCCL_NVLS_TREE:
    case SYS_NCCL_NVLS:
    case SYS_NCCL_COLLNET_DIRECT:
      /* ring_hop, timed_peers (chain_send serves rooted kinds, which
       * mirror nothing: sys_group_mirrors refuses them first). */
      return g->node_of[i] == g->node_of[j] || g->local_of[i] == g->local_of[j];
    default:
      return TRUE;
    }
}

/* The data of one step of one line. */
static guint64
ring_step_bytes (const SysPhaseCtx *ctx, const SysNcclPlan *plan)
{
  if (plan->func == SYS_NCCL_ALL_GATHER)
    return ctx->in_bytes;
  return (ctx->in_bytes + ctx->n - 1) / ctx->n;
}

/* Send step `step` once the member's copy engine is free (run->busy_until)
 * and no earlier than `t`: it is busy for the data's serialization at the
 * line's bus bandwidth, and the data is usable at the successor a step
 * latency after that (latencies pipeline, bandwidth does not), and not
 * before the network has delivered it. */
static void
ring_send (const SysPhaseCtx *ctx, SysRun *run, guint32 step, SimTime t)
{
  const SysNcclPlan *plan = sys_phase_nccl (ctx);
  RingHop h = ring_hop (plan, ctx->member, ctx->chunk);
  guint64 m = ring_step_bytes (ctx, plan);
  guint64 w = wire_bytes (plan, m);
  SimTime start = MAX (t, run->busy_until);
  run->busy_until = sim_time_add (start, sys_phase_serialization (ctx, m, plan->rate_Bps));
  sys_phase_send_routed (ctx, h.from, h.via, h.to, step, w, start);
  sys_phase_notify (ctx, h.to,
                    sim_time_add (run->busy_until, h.inter ? plan->inter_lat : plan->intra_lat));
}

/* A step is complete when its message has arrived and its readiness
 * event has passed (run->bits counts those); both come in step order. */
static void
ring_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  const SysNcclPlan *plan = sys_phase_nccl (ctx);
  SimTime now = sys_phase_now (ctx);
  while (run->started && run->processed < MIN (run->arrived, run->bits))
    {
      run->processed++;
      if (run->processed < plan->nsteps)
        ring_send (ctx, run, run->processed, now);
      else
        sys_phase_finish (ctx, MAX (now, run->busy_until));
    }
}

static void
ring_start (const SysPhaseCtx *ctx, SysRun *run)
{
  const SysNcclPlan *plan = sys_phase_nccl (ctx);
  run->busy_until = 0;
  ring_send (ctx, run, 0, sim_time_add (sys_phase_now (ctx), plan->base));
  ring_drain (ctx, run);
}

static void
ring_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  if (step == sys_phase_ready_step (ctx))
    run->bits++;
  else
    run->arrived++;
  ring_drain (ctx, run);
}

const SysAlgoClass sys_algo_nccl_ring = {
  .name = "nccl-ring",
  .help = "NCCL's ring, one line per rail across nodes, priced by NCCL's tuning model",
  .timing = SYS_TIMING_NATIVE,
  .kinds = SYS_KIND_BIT (SYS_COLL_ALL_REDUCE) | SYS_KIND_BIT (SYS_COLL_REDUCE_SCATTER)
           | SYS_KIND_BIT (SYS_COLL_ALL_GATHER),
  .alike = SYS_ALIKE_NEVER,
  .unlike_why = "NCCL's rings cross nodes at some members only",
  .links_why = "NCCL's rings cross nodes at some members only",
  .start = ring_start,
  .on_message = ring_on_message,
};

/* ---- the other algorithms: NCCL's time, the algorithm's traffic ------------------- */

/* A timed algorithm's data to one peer goes in TIMED_PIECES messages spread
 * evenly over its predicted time, as NCCL streams it (one burst at the
 * start would queue all of a member's messages at its ports at once). */
#define TIMED_PIECES 8

/* A walk over a member's peers: counts the messages it sends (one peer's
 * data in TIMED_PIECES), and when `send`, sends piece `piece` to each now.
 * Pieces go out in time order (the member's pacing events), as ports
 * serve messages in the order they are posted. */
typedef struct
{
  const SysPhaseCtx *ctx;
  const SysNcclPlan *plan;
  gboolean send;
  guint piece;
  guint n;
} Peers;

static void
peer_add (Peers *p, guint32 to, guint64 bytes)
{
  p->n += TIMED_PIECES;
  if (!p->send)
    return;
  guint64 w = wire_bytes (p->plan, bytes);
  sys_phase_send_routed (p->ctx, p->ctx->member, to, to, 0,
                         w / TIMED_PIECES + (p->piece < w % TIMED_PIECES),
                         sys_phase_now (p->ctx));
}

/* NCCL's double binary tree over nodes, between the members of local
 * index `local`: tree 0 a binary tree in node order (parent (k-1)/2),
 * tree 1 the same over the nodes in reverse order, so that a node
 * interior in one is (mostly) a leaf in the other; each carries half the
 * data. */
static void
peers_node_tree (const SysNcclGroup *g, guint32 node, guint32 local, guint64 bytes, Peers *p)
{
  guint64 half = (bytes + 1) / 2;
  for (guint t = 0; t < 2; t++)
    {
      guint32 k = t == 0 ? node : g->nodes - 1 - node;
      guint32 parent = (k - 1) / 2;
      if (k > 0)
        peer_add (p, g->member_at[(t == 0 ? parent : g->nodes - 1 - parent) * g->ppn + local],
                  half);
      for (guint32 c = 2 * k + 1; c <= 2 * k + 2 && c < g->nodes; c++)
        peer_add (p, g->member_at[(t == 0 ? c : g->nodes - 1 - c) * g->ppn + local], half);
    }
}

/* Every other GPU of the node (NVLS: the switch exchanges with all). */
static void
peers_node_all (const SysNcclGroup *g, guint32 node, guint32 local, guint64 bytes, Peers *p)
{
  for (guint32 l = 0; l < g->ppn; l++)
    if (l != local)
      peer_add (p, g->member_at[node * g->ppn + l], bytes);
}

/* The rail neighbours in the next and previous node. */
static void
peers_rail_ring (const SysNcclGroup *g, guint32 node, guint32 local, guint64 bytes, Peers *p)
{
  if (g->nodes < 2)
    return;
  peer_add (p, g->member_at[(node + 1) % g->nodes * g->ppn + local], bytes);
  if (g->nodes > 2)
    peer_add (p, g->member_at[(node + g->nodes - 1) % g->nodes * g->ppn + local], bytes);
}

/* Whom a member sends to, and how much; every pattern but the rooted chain
 * is symmetric, so a member also receives one message from each. */
static void
timed_peers (Peers *p)
{
  const SysPhaseCtx *ctx = p->ctx;
  const SysNcclPlan *plan = p->plan;
  const SysNcclGroup *g = plan->g;
  guint32 node = g->node_of[ctx->member], local = g->local_of[ctx->member];
  guint64 s = ctx->in_bytes;
  guint64 shard = (s + g->ppn - 1) / g->ppn;
  if (plan->func == SYS_NCCL_ALL_GATHER)
    shard = s;
  switch (plan->choice.algo)
    {
    case SYS_NCCL_TREE:
    case SYS_NCCL_COLLNET_CHAIN:
      /* A chain through the node, reduced up and broadcast down; across
       * nodes each channel's tree leaves through its own NIC, so the
       * inter-node edges run per rail with the rail's share. */
      if (local > 0)
        peer_add (p, g->member_at[node * g->ppn + local - 1], s);
      if (local + 1 < g->ppn)
        peer_add (p, g->member_at[node * g->ppn + local + 1], s);
      if (plan->choice.algo == SYS_NCCL_TREE)
        peers_node_tree (g, node, local, shard, p);
      else
        peers_rail_ring (g, node, local, shard, p);
      break;
    case SYS_NCCL_NVLS_TREE:
      peers_node_all (g, node, local, shard, p);
      peers_node_tree (g, node, local, shard, p);
      break;
    case SYS_NCCL_NVLS:
    case SYS_NCCL_COLLNET_DIRECT:
      peers_node_all (g, node, local, shard, p);
      peers_rail_ring (g, node, local, shard, p);
      break;
    case SYS_NCCL_PAT:
      for (guint32 i = 0; i < ctx->n; i++)
        if (i != ctx->member)
          peer_add (p, i, plan->func == SYS_NCCL_ALL_GATHER ? s : (s + ctx->n - 1) / ctx->n);
      break;
    default:
      break;
    }
}

/* Rooted rings (broadcast, reduce): a pipelined chain from the root
 * (broadcast) or into it (reduce). */
static guint32
chain_distance (const SysPhaseCtx *ctx)
{
  return (ctx->pos + ctx->n - ctx->root) % ctx->n;
}

static gboolean
timed_chain (const SysNcclPlan *plan)
{
  return plan->func == SYS_NCCL_BROADCAST || plan->func == SYS_NCCL_REDUCE;
}

/* A chain's hop: inside a node one message; to the next node one part per
 * rail, GPU c to GPU c, each channel leaving through its own NIC. */
static void
chain_send (const SysPhaseCtx *ctx, const SysNcclPlan *plan, SimTime t)
{
  const SysNcclGroup *g = plan->g;
  guint32 to = (ctx->pos + 1) % ctx->n;
  guint64 w = wire_bytes (plan, ctx->in_bytes);
  guint32 from_node = g->node_of[ctx->member], to_node = g->node_of[to];
  if (from_node == to_node)
    {
      sys_phase_send_routed (ctx, ctx->pos, to, to, 0, w, t);
      return;
    }
  for (guint32 c = 0; c < g->ppn; c++)
    sys_phase_send_routed (ctx, g->member_at[from_node * g->ppn + c],
                           g->member_at[to_node * g->ppn + c], to, 0,
                           w / g->ppn + (c < w % g->ppn), t);
}

static guint32
timed_expected (const SysPhaseCtx *ctx, const SysNcclPlan *plan)
{
  if (timed_chain (plan))
    {
      if (chain_distance (ctx) == (plan->func == SYS_NCCL_BROADCAST ? 0u : 1u))
        return 0;
      /* From another node the data comes over every rail. */
      const SysNcclGroup *g = plan->g;
      guint32 prev = (ctx->pos + ctx->n - 1) % ctx->n;
      return g->node_of[prev] != g->node_of[ctx->member] ? g->ppn : 1;
    }
  Peers p = { .ctx = ctx, .plan = plan };
  timed_peers (&p);
  return p.n;
}

/* Run state: bits the messages expected (counted at start), processed the
 * pieces sent so far (TIMED_PIECES + 1 once finished), busy_until NCCL's
 * predicted end. */
static void
timed_drain (const SysPhaseCtx *ctx, SysRun *run)
{
  if (!run->started || run->processed != TIMED_PIECES || run->arrived < run->bits)
    return;
  run->processed++;
  sys_phase_finish (ctx, MAX (sys_phase_now (ctx), run->busy_until));
}

/* The pace of a member's pieces: its predicted time after the base
 * latency, in TIMED_PIECES equal parts. */
static SimTime
timed_pace (const SysNcclPlan *plan)
{
  return (plan->time > plan->base ? plan->time - plan->base : 0) / TIMED_PIECES;
}

/* Send the next piece to every peer, and come back for the one after. */
static void
timed_send_piece (const SysPhaseCtx *ctx, SysRun *run)
{
  const SysNcclPlan *plan = sys_phase_nccl (ctx);
  Peers p = { .ctx = ctx, .plan = plan, .send = TRUE, .piece = run->processed };
  timed_peers (&p);
  if (++run->processed < TIMED_PIECES)
    sys_phase_notify (ctx, ctx->member, sim_time_add (sys_phase_now (ctx), timed_pace (plan)));
}

static void
timed_start (const SysPhaseCtx *ctx, SysRun *run)
{
  const SysNcclPlan *plan = sys_phase_nccl (ctx);
  SimTime now = sys_phase_now (ctx);
  SimTime t = sim_time_add (now, plan->base);
  run->busy_until = sim_time_add (now, plan->time);
  run->bits = timed_expected (ctx, plan);
  if (timed_chain (plan))
    {
      guint32 d = chain_distance (ctx);
      gboolean sends = plan->func == SYS_NCCL_BROADCAST ? d + 1 < ctx->n : d != 0;
      if (sends)
        chain_send (ctx, plan, t);
      run->processed = TIMED_PIECES;
    }
  else
    sys_phase_notify (ctx, ctx->member, t);
  timed_drain (ctx, run);
}

static void
timed_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  if (step == sys_phase_ready_step (ctx))
    timed_send_piece (ctx, run);
  else
    run->arrived++;
  timed_drain (ctx, run);
}

const SysAlgoClass sys_algo_nccl_timed = {
  .name = "nccl-timed",
  .help = "NCCL's trees, NVLS, CollNet and rooted rings: NCCL's predicted time, their traffic "
          "through the network",
  .timing = SYS_TIMING_NATIVE,
  .kinds = SYS_KIND_BIT (SYS_COLL_ALL_REDUCE) | SYS_KIND_BIT (SYS_COLL_REDUCE_SCATTER)
           | SYS_KIND_BIT (SYS_COLL_ALL_GATHER) | SYS_KIND_BIT (SYS_COLL_BROADCAST)
           | SYS_KIND_BIT (SYS_COLL_REDUCE),
  .alike = SYS_ALIKE_NEVER,
  .unlike_why = "NCCL's trees give members different roles",
  .links_why = "NCCL's trees give members different roles",
  .start = timed_start,
  .on_message = timed_on_message,
};
