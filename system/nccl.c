/* nccl.c: NCCL's tuning model (see nccl.h).
 *
 * Every table below is NCCL 2.26.2's (github.com/NVIDIA/nccl, tag
 * v2.26.2-1), file and symbol named beside it; the code is orrery's own.
 */
#include "system/nccl.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "system/nccl_tuner.h"

/* ---- NCCL's constants -------------------------------------------------------- */

enum
{
  HW_NVLINK,
  HW_PCI,
  HW_NET,
  HW_N
};

/* src/graph/tuning.cc baseLat: us per operation, [algorithm][protocol]. */
static const double base_lat[SYS_NCCL_ALGOS][SYS_NCCL_PROTOS] = {
  { 6.8, 14.0, 8.4 }, { 6.6, 14.0, 8.4 }, /* Tree, Ring */
  { 0, 0, 0 }, { 0, 0, 0 },              /* CollNetDirect, CollNetChain */
  { 0, 0, 0 }, { 0, 0, 0 },              /* NVLS, NVLSTree */
  { 8.0, 8.0, 8.0 },                     /* PAT (its latency is set whole below) */
};

/* src/graph/tuning.cc hwLat: us per step, [link][algorithm][protocol]. */
static const double hw_lat[HW_N][SYS_NCCL_ALGOS][SYS_NCCL_PROTOS] = {
  { { .6, 1.25, 4.0 }, { .6, 1.9, 3.4 }, { 0, 0, 3.7 }, { 0, 0, 2.8 },
    { 0, 0, 25 }, { 0, 0, 25 }, { 0, 0, 4.0 } },
  { { 1.0, 1.9, 4.0 }, { 1.0, 2.5, 5.7 }, { 0, 0, 3.7 }, { 0, 0, 2.8 },
    { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 4.0 } },
  { { 5.0, 8.5, 14 }, { 2.7, 4.0, 14.0 }, { 0, 0, 31 }, { 0, 0, 30 },
    { 0, 0, 18 }, { 0, 0, 14 }, { 0, 0, 14 } },
};

/* src/graph/tuning.cc llMaxBws [gpu or CPU index][1 node, 2 nodes, more]:
 * rows Volta, Ampere, Hopper, Blackwell for one node; for several nodes
 * row 0 is an Intel host, row 1 an AMD one. */
static const double ll_max_bw[4][3] = {
  { 39.0, 39.0, 20.4 }, { 87.7, 22.5, 19.0 }, { 141.0, 45.0, 35.0 }, { 282.0, 90.0, 70.0 },
};
/* src/graph/tuning.cc perChMaxRingLL128Bws, perChMaxTreeLL128Bws,
 * perChMaxTreeBws: GB/s per channel [gpu][1 node, 2 nodes, more]. */
static const double ring_ll128_max[4][3] = {
  { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 36.7 }, { 73.4, 73.4, 73.4 },
};
static const double tree_ll128_max[4][3] = {
  { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 }, { 36.7, 36.7, 29.0 }, { 73.4, 73.4, 58.0 },
};
static const double tree_max[4][3] = {
  { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 }, { 38.7, 41.4, 36.0 }, { 77.4, 82.8, 72.0 },
};

/* src/graph/tuning.cc treeCorrectionFactor: tree all-reduce bandwidth
 * factors for sizes 64 B << i, [protocol][i]. */
static const double tree_correction[SYS_NCCL_PROTOS][23] = {
  { 1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0 },
  { 1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0 },
  { .9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9 },
};

/* src/graph/search.cc speedArrayIntra/Inter, sm90SpeedArray*,
 * sm100SpeedArray*: the per-channel bandwidths (GB/s) the search tries. */
static const double speeds_intra[] = { 40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 0 };
static const double speeds_inter[] = { 48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0,
                                       7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2, 0.24, 0.12, 0 };
static const double speeds_intra_sm90[] = { 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0, 0 };
static const double speeds_inter_sm90[] = { 48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5,
                                            15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12, 0 };
static const double speeds_intra_sm100[] = { 90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 0 };

/* src/include/device.h MAXCHANNELS (64; rings and trees search up to half),
 * NCCL_MAX_DIRECT_ARITY (7); src/transport/nvls.cc NVLS_NCHANNELS_SM90/100;
 * src/include/device.h NCCL_{SIMPLE,LL,LL128}_MAX_NTHREADS; src/include/
 * comm.h NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD. */
#define MAX_CHANNELS 64
#define MAX_DIRECT_ARITY 7
#define NVLS_CHANNELS_SM90 16
#define NVLS_CHANNELS_SM100 32
static const guint32 max_threads[SYS_NCCL_PROTOS] = { 512, 640, 512 };
static const guint32 thread_threshold[SYS_NCCL_PROTOS] = { 8, 8, 64 };

static const char *const algo_names[SYS_NCCL_ALGOS] = {
  "Tree", "Ring", "CollNetDirect", "CollNetChain", "NVLS", "NVLSTree", "PAT",
};
static const char *const proto_names[SYS_NCCL_PROTOS] = { "LL", "LL128", "Simple" };
/* NCCL's ncclFuncStr for its collectives, the prefixes NCCL_ALGO and
 * NCCL_PROTO entries may name (tuning.cc parses NCCL_NUM_FUNCTIONS). */
static const char *const func_names[] = {
  "Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce",
};
#define N_FUNC_NAMES G_N_ELEMENTS (func_names)

const char *
sys_nccl_algo_name (SysNcclAlgo algo)
{
  return algo < SYS_NCCL_ALGOS ? algo_names[algo] : "?";
}

const char *
sys_nccl_proto_name (SysNcclProto proto)
{
  return proto < SYS_NCCL_PROTOS ? proto_names[proto] : "?";
}

gboolean
sys_nccl_func_of (SysCollKind kind, SysNcclFunc *out)
{
  switch (kind)
    {
    case SYS_COLL_ALL_REDUCE: *out = SYS_NCCL_ALL_REDUCE; return TRUE;
    case SYS_COLL_REDUCE_SCATTER: *out = SYS_NCCL_REDUCE_SCATTER; return TRUE;
    case SYS_COLL_ALL_GATHER: *out = SYS_NCCL_ALL_GATHER; return TRUE;
    case SYS_COLL_BROADCAST: *out = SYS_NCCL_BROADCAST; return TRUE;
    case SYS_COLL_REDUCE: *out = SYS_NCCL_REDUCE; return TRUE;
    default: return FALSE;
    }
}

/* ---- NCCL_ALGO / NCCL_PROTO lists --------------------------------------------- */

/* Element names match NCCL's ignoring case; "nvls_tree" and
 * "collnet_direct" spell NCCL's "NVLSTree" and "CollNetDirect" too. */
static gint
element_index (const char *elem, const char *const *names, guint n)
{
  g_autofree char *plain = g_strdup (elem);
  char *w = plain;
  for (const char *r = elem; *r != '\0'; r++)
    if (*r != '_' && *r != '-')
      *w++ = *r;
  *w = '\0';
  for (guint i = 0; i < n; i++)
    if (g_ascii_strcasecmp (plain, names[i]) == 0)
      return (gint) i;
  return -1;
}

/* Parse `str` into enable[func][elem] (1: on) as NCCL's parseList does:
 * "a,b" sets exactly a and b; "^a" everything but a; "prefix:list" only for
 * that function; entries separated by ';', only the first without prefix. */
static gboolean
parse_list (const char *attr, const char *str, const char *const *names, guint n, guint8 *enable,
            GError **error)
{
  g_auto (GStrv) entries = g_strsplit (str, ";", -1);
  for (guint e = 0; entries[e] != NULL; e++)
    {
      char *entry = g_strstrip (entries[e]);
      char *colon = strchr (entry, ':');
      const char *list = colon != NULL ? colon + 1 : entry;
      gint func = -1;
      if (colon != NULL)
        {
          *colon = '\0';
          func = element_index (g_strstrip (entry), func_names, N_FUNC_NAMES);
          if (func < 0)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                           "%s=\"%s\": unknown function '%s' (NCCL's: Broadcast, Reduce, "
                           "AllGather, ReduceScatter, AllReduce)",
                           attr, str, entry);
              return FALSE;
            }
        }
      else if (e > 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s=\"%s\": only the first entry may omit a function prefix, as in "
                       "NCCL", attr, str);
          return FALSE;
        }
      gboolean negate = list[0] == '^';
      g_auto (GStrv) elems = g_strsplit (negate ? list + 1 : list, ",", -1);
      guint8 value[SYS_NCCL_ALGOS];
      memset (value, negate ? 1 : 0, sizeof value);
      for (guint i = 0; elems[i] != NULL; i++)
        {
          const char *el = g_strstrip (elems[i]);
          gint k = element_index (el, names, n);
          if (k < 0)
            {
              g_autofree char *known = g_strjoinv (", ", (char **) names);
              g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                           "%s=\"%s\": unknown name '%s' (it has: %s)", attr, str, el, known);
              return FALSE;
            }
          value[k] = negate ? 0 : 1;
        }
      for (guint f = 0; f < SYS_NCCL_FUNCS; f++)
        if (func < 0 || (guint) func == f)
          memcpy (enable + (gsize) f * n, value, n);
    }
  return TRUE;
}

typedef struct
{
  guint8 algo[SYS_NCCL_FUNCS][SYS_NCCL_ALGOS];
  guint8 proto[SYS_NCCL_FUNCS][SYS_NCCL_PROTOS];
} Enable;

static gboolean
parse_enable (const SysLibraryParams *lib, Enable *en, GError **error)
{
  /* 1 on, 0 off; LL128 2: NCCL's default rule decides (pair_enabled),
   * unless a list names it. */
  memset (en, 1, sizeof *en);
  for (guint f = 0; f < SYS_NCCL_FUNCS; f++)
    en->proto[f][SYS_NCCL_LL128] = 2;
  static const char *algo_list[SYS_NCCL_ALGOS + 1];
  static const char *proto_list[SYS_NCCL_PROTOS + 1];
  for (guint i = 0; i < SYS_NCCL_ALGOS; i++)
    algo_list[i] = algo_names[i];
  for (guint i = 0; i < SYS_NCCL_PROTOS; i++)
    proto_list[i] = proto_names[i];
  if (lib->algorithms[0] != '\0'
      && !parse_list ("nccl-algo", lib->algorithms, algo_list, SYS_NCCL_ALGOS, &en->algo[0][0],
                      error))
    return FALSE;
  if (lib->protocols[0] != '\0'
      && !parse_list ("nccl-proto", lib->protocols, proto_list, SYS_NCCL_PROTOS,
                      &en->proto[0][0], error))
    return FALSE;
  return TRUE;
}

gboolean
sys_nccl_check_lists (const SysLibraryParams *lib, GError **error)
{
  Enable en;
  return parse_enable (lib, &en, error);
}

/* ---- the topology search, in closed form --------------------------------------- */

/* What one channel of a pattern loads: each GPU's intra-node bandwidth
 * (`intra_per_ch` channels' worth per channel, plus `head_extra` for the
 * channel a GPU heads) and, across nodes, one NIC per channel. */
typedef struct
{
  guint32 min_ch, max_ch;
  gboolean nvls;     /* every GPU serves every channel, its own one twice */
  gboolean net;      /* channels leave the node through NICs */
} Pattern;

/* The most channels of per-channel bandwidth s that fit. */
static guint32
fit_channels (const SysNcclMachine *m, const Pattern *p, double s, double s_inter)
{
  /* NCCL compares float sums; allow for their rounding. */
  const double eps = 1e-6;
  guint32 n = p->max_ch;
  if (p->nvls)
    {
      /* (n + 1) s: n channels through each GPU's links, its own twice. */
      double k = floor (m->intra_GBps / s + eps) - 1.0;
      n = MIN (n, k < 0 ? 0 : (guint32) k);
    }
  else if (p->net && m->ranks / m->nodes > 1)
    {
      /* Leaving the node, a channel makes gpus - 1 NVLink sends, and the
       * GPU that hands over to the NIC changes from channel to channel:
       * each GPU carries (gpus - 1) / gpus of s per channel. */
      guint32 gpus = m->ranks / m->nodes; /* whole GPUs per node */
      double share = (double) (gpus - 1) / (double) gpus;
      n = MIN (n, (guint32) floor (m->intra_GBps / (share * s) + eps));
    }
  else
    n = MIN (n, (guint32) floor (m->intra_GBps / s + eps));
  if (p->net)
    {
      double path = MIN (m->nic_GBps, m->pci_GBps);
      guint32 gpus = m->ranks / m->nodes;
      guint32 per_nic = (guint32) floor (path / s_inter + eps);
      n = MIN (n, p->nvls ? (per_nic >= 1 ? n : 0) : gpus * per_nic);
    }
  return n;
}

static const double *
speed_table (const SysNcclMachine *m, gboolean inter)
{
  if (m->gpu >= SYS_GPU_BLACKWELL)
    return inter ? speeds_inter_sm90 : speeds_intra_sm100; /* sm100's inter table is sm90's */
  if (m->gpu >= SYS_GPU_HOPPER)
    return inter ? speeds_inter_sm90 : speeds_intra_sm90;
  return inter ? speeds_inter : speeds_intra;
}

/* The slowest per-channel speed a search tries (GB/s): the table's last. */
static double
slowest_speed (const SysNcclMachine *m, gboolean inter)
{
  const double *speeds = speed_table (m, inter);
  guint i = 0;
  while (speeds[i + 1] > 0)
    i++;
  return speeds[i];
}

char *
sys_nccl_no_channel_why (const SysNcclMachine *m)
{
  double path = MIN (m->nic_GBps, m->pci_GBps);
  if (m->nodes > 1 && path < slowest_speed (m, TRUE))
    return g_strdup_printf ("between nodes its slowest channel is %g GB/s and a GPU's NIC path "
                            "gives %g GB/s", slowest_speed (m, TRUE), path);
  if (m->intra_GBps < slowest_speed (m, FALSE))
    return g_strdup_printf ("inside a node its slowest channel is %g GB/s and a GPU's links "
                            "give %g GB/s", slowest_speed (m, FALSE), m->intra_GBps);
  return g_strdup ("its search finds no channel that fits");
}

/* ncclTopoCompute: pass 1 walks down the speed table from the fastest
 * usable speed, keeping the graph of most total bandwidth (NVLS: most
 * channels first), stopping at a perfect graph (max channels) or one that
 * uses the GPU's whole bandwidth; channels are then duplicated as
 * ncclTopoDupChannels does, and pass 2 raises the speed while it fits. */
static SysNcclGraph
search (const SysNcclMachine *m, const Pattern *p, gboolean ring)
{
  SysNcclGraph g = { 0 };
  const double *speeds = speed_table (m, p->net);
  double max_bw = p->net ? MIN (m->nic_GBps, m->pci_GBps) : m->intra_GBps;
  double total_bw = MAX (m->intra_GBps, p->net ? m->pci_GBps : 0);
  guint32 gpus = m->ranks / m->nodes;
  if (!ring && gpus > 1)
    total_bw *= (double) gpus / (gpus - 1);
  guint i = 0;
  while (speeds[i + 1] > 0 && (speeds[i] > max_bw || speeds[i] * p->min_ch > total_bw))
    i++;
  for (; speeds[i] > 0; i++)
    {
      double s = speeds[i];
      guint32 n = fit_channels (m, p, s, s);
      gboolean better = p->nvls ? (n > g.channels || n * s > g.channels * g.bw_inter)
                                : n * s > g.channels * g.bw_intra;
      if (n >= p->min_ch && n > 0 && better)
        g = (SysNcclGraph) { .channels = n, .bw_intra = s, .bw_inter = s };
      if (g.channels == p->max_ch || g.channels * g.bw_inter >= total_bw)
        break;
      if (g.channels > 0 && speeds[i + 1] / g.bw_inter <= .49)
        break;
    }
  if (g.channels == 0)
    return g;
  /* ncclTopoDupChannels (not for NVLS). */
  if (!p->nvls && g.bw_intra >= 25.0
      && !(m->gpu >= SYS_GPU_HOPPER && g.bw_intra < 50.0 && g.channels > 4))
    {
      guint32 dup = MIN (g.channels * 2, p->max_ch);
      guint32 div = (dup + g.channels - 1) / g.channels;
      g.bw_intra /= div;
      g.bw_inter /= div;
      g.channels = dup;
    }
  /* Pass 2: rings raise both speeds; NVLS its inter-node speed; trees
   * their intra-node speed, each while the graph still fits. */
  Pattern fixed = *p;
  fixed.min_ch = fixed.max_ch = g.channels;
  for (guint k = 0; speeds[k] > 0; k++)
    {
      double s = speeds[k];
      if (ring && s > g.bw_intra && fit_channels (m, &fixed, s, s) >= g.channels)
        {
          g.bw_intra = g.bw_inter = s;
          break;
        }
      if (p->nvls && p->net && s > g.bw_inter && s < 2 * g.bw_intra
          && fit_channels (m, &fixed, g.bw_intra, s) >= g.channels)
        {
          g.bw_inter = s;
          break;
        }
      if (!ring && !p->nvls && s > g.bw_intra && s < 2 * g.bw_inter
          && fit_channels (m, &fixed, s, g.bw_inter) >= g.channels)
        {
          g.bw_intra = s;
          break;
        }
    }
  return g;
}

static void
search_graphs (SysNcclModel *model)
{
  const SysNcclMachine *m = &model->m;
  gboolean net = m->nodes > 1;
  Pattern ring = { .min_ch = 1, .max_ch = MAX_CHANNELS / 2, .net = net };
  model->graph[SYS_NCCL_RING] = search (m, &ring, TRUE);
  guint32 rc = model->graph[SYS_NCCL_RING].channels;
  /* Trees and CollNet chains search for the rings' channel count. */
  Pattern tree = { .min_ch = rc, .max_ch = rc, .net = net };
  model->graph[SYS_NCCL_TREE] = rc > 0 ? search (m, &tree, FALSE) : (SysNcclGraph) { 0 };
  model->graph[SYS_NCCL_COLLNET_CHAIN] = model->graph[SYS_NCCL_TREE];
  model->graph[SYS_NCCL_PAT] = model->graph[SYS_NCCL_TREE]; /* init.cc prices PAT on trees */
  guint32 gpus = m->ranks / m->nodes;
  /* NVLS needs NVSwitches and Hopper or later: heads up to one per GPU
   * (all of them on a single node). */
  /* transport/nvls.cc: not on two GPUs or fewer. */
  if (m->nvswitch && m->gpu >= SYS_GPU_HOPPER && gpus > 2)
    {
      Pattern nvls = { .min_ch = net ? 1 : gpus, .max_ch = gpus, .nvls = TRUE, .net = net };
      model->graph[SYS_NCCL_NVLS] = search (m, &nvls, FALSE);
    }
  model->graph[SYS_NCCL_NVLS_TREE] = model->graph[SYS_NCCL_NVLS];
  if (m->collnet && m->nvswitch && gpus <= MAX_DIRECT_ARITY + 1)
    {
      Pattern direct = { .min_ch = 1, .max_ch = gpus, .net = net };
      model->graph[SYS_NCCL_COLLNET_DIRECT] = search (m, &direct, FALSE);
    }
  /* ncclTopoPostset: collectives run on twice the ring/tree channels. */
  guint32 nc = MIN (rc, model->graph[SYS_NCCL_TREE].channels);
  model->channels = MAX (1u, MIN (MAX_CHANNELS, nc * 2));
  model->nvls_channels = m->gpu >= SYS_GPU_BLACKWELL ? NVLS_CHANNELS_SM100 : NVLS_CHANNELS_SM90;
}

/* ---- the tuning model ------------------------------------------------------------ */

static guint
gpu_index (SysGpuArch gpu)
{
  switch (gpu)
    {
    case SYS_GPU_VOLTA: return 0;
    case SYS_GPU_AMPERE: return 1;
    case SYS_GPU_HOPPER: return 2;
    default: return 3;
    }
}

/* Which algorithms NCCL's tuning loop considers for a function. */
static gboolean
func_has_algo (SysNcclFunc f, SysNcclAlgo a)
{
  if (f == SYS_NCCL_BROADCAST || f == SYS_NCCL_REDUCE)
    return a == SYS_NCCL_RING;
  if (f == SYS_NCCL_ALL_GATHER || f == SYS_NCCL_REDUCE_SCATTER)
    return a == SYS_NCCL_PAT || a == SYS_NCCL_RING || a == SYS_NCCL_NVLS
           || a == SYS_NCCL_COLLNET_DIRECT;
  return a != SYS_NCCL_PAT;
}

/* The bus bandwidth of one (function, algorithm, protocol): channels x
 * per-channel bandwidth, with tuning.cc's "model refinements". */
static double
bus_bandwidth (const SysNcclModel *model, SysNcclFunc f, SysNcclAlgo a, SysNcclProto p)
{
  const SysNcclMachine *m = &model->m;
  const SysNcclGraph *g = &model->graph[a];
  guint n2 = m->nodes <= 2 ? m->nodes - 1 : 2;
  guint gi = gpu_index (m->gpu);
  guint li = m->nodes == 1 ? gi : (m->cpu == SYS_CPU_AMD ? 1 : 0);
  double ll_max = ll_max_bw[li][n2];
  gboolean collnet = a == SYS_NCCL_COLLNET_DIRECT || a == SYS_NCCL_COLLNET_CHAIN;
  double bw = m->nodes <= 2 || collnet ? g->bw_intra : g->bw_inter;
  if (a == SYS_NCCL_NVLS)
    bw = MIN (g->bw_intra, g->bw_inter);
  if (a == SYS_NCCL_NVLS_TREE)
    bw = MIN (g->bw_intra, m->nodes <= 2 ? g->bw_inter : g->bw_inter / 2);
  double bus = g->channels * bw;
  if (a == SYS_NCCL_RING && p == SYS_NCCL_LL)
    bus = MIN (ll_max, bus * .5);
  if (a == SYS_NCCL_RING && p == SYS_NCCL_LL128)
    bus = MIN (bus * .92, g->channels * ring_ll128_max[gi][n2]);
  if (a == SYS_NCCL_TREE && f == SYS_NCCL_ALL_REDUCE)
    bus = MIN (bus * .92, g->channels * tree_max[gi][n2]);
  if (a == SYS_NCCL_TREE && p == SYS_NCCL_LL)
    bus = MIN (bus * 1.0 / 3.8, ll_max);
  if (a == SYS_NCCL_TREE && p == SYS_NCCL_LL128)
    bus = MIN (bus * (m->nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
               g->channels * tree_ll128_max[gi][n2]);
  if (a == SYS_NCCL_PAT)
    bus *= .75;
  if (collnet && p != SYS_NCCL_SIMPLE)
    bus = 0;
  if (a == SYS_NCCL_COLLNET_DIRECT && p == SYS_NCCL_SIMPLE)
    {
      double ppn = (double) m->ranks / m->nodes;
      if (f == SYS_NCCL_ALL_GATHER || f == SYS_NCCL_REDUCE_SCATTER)
        {
          /* tuning.cc: the measured correction between 1 and 8 GPUs a node. */
          double w = (ppn - 1) / (8 - 1);
          bus = ppn * bw * (w * 0.85 + (1 - w) * 0.95);
        }
      else
        {
          double factor = ppn / (1.0 * g->channels);
          factor -= (factor - 1) / 2;
          bus /= factor;
          if (m->gpu >= SYS_GPU_HOPPER)
            bus *= .85;
        }
    }
  return bus;
}

/* From bus bandwidth to algorithm bandwidth (tuning.cc "Convert bus BW to
 * algorithm BW"). */
static double
algo_ratio (const SysNcclMachine *m, SysNcclFunc f, SysNcclAlgo a, guint32 nsteps)
{
  if (a != SYS_NCCL_RING && (f == SYS_NCCL_ALL_GATHER || f == SYS_NCCL_REDUCE_SCATTER))
    return 1.0;
  if (a == SYS_NCCL_RING)
    return (double) m->ranks / nsteps;
  if (a == SYS_NCCL_NVLS || a == SYS_NCCL_NVLS_TREE)
    return 5.0 / 6.0;
  return .5;
}

static guint32
log2_down (guint64 x)
{
  return x == 0 ? 0 : (guint32) g_bit_storage (x) - 1;
}

/* tuning.cc getNetOverhead: us a network post costs the proxy thread. */
static double
net_overhead (const SysNcclMachine *m)
{
  return m->cpu == SYS_CPU_AMD ? 2.0 : 1.0;
}

static double
latency (SysNcclModel *model, SysNcclFunc f, SysNcclAlgo a, SysNcclProto p, guint32 nsteps)
{
  const SysNcclMachine *m = &model->m;
  double ppn = (double) m->ranks / m->nodes;
  guint32 gpus = m->ranks / m->nodes;
  int intra_hw = m->intra == NET_LINK_NVLINK ? HW_NVLINK : HW_PCI;
  double intra = hw_lat[intra_hw][a][p];
  /* One GPU a node exposes the network's latency fully: the tree's. */
  double inter = (ppn == 1 ? hw_lat[HW_NET][SYS_NCCL_TREE][p] : hw_lat[HW_NET][a][p])
                 + m->net_latency_us;
  if (p == SYS_NCCL_SIMPLE)
    inter += m->net_latency_us; /* the flush */
  double lat = base_lat[a][p];
  guint32 lg = log2_down (m->nodes);
  switch (a)
    {
    case SYS_NCCL_RING:
      if (f == SYS_NCCL_BROADCAST || f == SYS_NCCL_REDUCE)
        {
          /* Rooted rings: a graph whose channels all take the same path
           * (sameChannels: one node) pays one step's latency, others every
           * step's, Simple at the tree's.  Across nodes with a NIC per GPU
           * the channels differ (each enters at its own NIC's GPU). */
          double step = hw_lat[m->nodes == 1 ? intra_hw : HW_NET][a][p];
          if (m->nodes > 1 && p == SYS_NCCL_SIMPLE)
            step = hw_lat[HW_NET][SYS_NCCL_TREE][p];
          intra = inter = step;
          lat += m->nodes == 1 ? step : nsteps * step;
          break;
        }
      if (m->nodes > 1)
        intra = MAX (intra, net_overhead (m) * (p == SYS_NCCL_SIMPLE ? 3 : 1));
      {
        guint32 inter_steps = m->nodes == 1 ? 0
                              : f == SYS_NCCL_ALL_REDUCE ? 2 * (m->nodes - 1) : m->nodes - 1;
        if (m->nodes == 1)
          inter = intra;
        lat += (nsteps - inter_steps) * intra + inter_steps * inter;
      }
      break;
    case SYS_NCCL_TREE:
      if (f == SYS_NCCL_ALL_REDUCE)
        lat += 2 * ((gpus - 1) * intra + lg * inter);
      break;
    case SYS_NCCL_COLLNET_DIRECT:
      lat += 2 * (MIN (1u, gpus - 1) * intra + (gpus - 1) * 0.4) + inter;
      break;
    case SYS_NCCL_COLLNET_CHAIN:
      lat += 2 * (gpus - 1) * intra + inter;
      break;
    case SYS_NCCL_NVLS:
      lat = intra + (m->nodes > 1 ? inter : 0);
      break;
    case SYS_NCCL_NVLS_TREE:
      lat += intra + 2 * lg * inter;
      break;
    case SYS_NCCL_PAT:
      lat = 8 + lg * (inter / 3.5) + m->ranks * 2.8;
      break;
    default:
      break;
    }
  model->intra_lat[a][p] = intra;
  model->inter_lat[a][p] = m->nodes > 1 ? inter : intra;
  model->base_lat[a][p] = a == SYS_NCCL_NVLS || a == SYS_NCCL_PAT ? 0 : base_lat[a][p];
  return lat;
}

/* Which pairs NCCL leaves enabled: its defaults (LL128 only on NVLink
 * systems; NVLS trees only across nodes; CollNet and multi-node NVLS only
 * with in-network reduction) and the user's lists. */
static gboolean
pair_enabled (const SysNcclModel *model, const Enable *en, SysNcclFunc f, SysNcclAlgo a,
              SysNcclProto p)
{
  const SysNcclMachine *m = &model->m;
  if (!en->algo[f][a] || !en->proto[f][p])
    return FALSE;
  if (p == SYS_NCCL_LL128 && en->proto[f][p] == 2 && m->intra != NET_LINK_NVLINK)
    return FALSE;
  if ((a == SYS_NCCL_NVLS || a == SYS_NCCL_NVLS_TREE) && p != SYS_NCCL_SIMPLE)
    return FALSE;
  if (a == SYS_NCCL_NVLS_TREE && m->nodes == 1)
    return FALSE;
  if (!m->collnet && (a == SYS_NCCL_COLLNET_DIRECT || a == SYS_NCCL_COLLNET_CHAIN
                      || (a == SYS_NCCL_NVLS && m->nodes > 1)))
    return FALSE;
  /* init.cc: CollNet below NCCL_COLLNET_NODE_THRESHOLD (2) nodes is off. */
  if ((a == SYS_NCCL_COLLNET_DIRECT || a == SYS_NCCL_COLLNET_CHAIN) && m->nodes < 2)
    return FALSE;
  if (a == SYS_NCCL_PAT && p != SYS_NCCL_SIMPLE)
    return FALSE;
  /* enqueue.cc: NVLS all-gather and reduce-scatter on one node only. */
  if (a == SYS_NCCL_NVLS && (f == SYS_NCCL_ALL_GATHER || f == SYS_NCCL_REDUCE_SCATTER)
      && (m->nodes > 1 || m->ranks > 32))
    return FALSE;
  /* PAT: one GPU a node. */
  if (a == SYS_NCCL_PAT && m->nodes != m->ranks)
    return FALSE;
  return TRUE;
}

gboolean
sys_nccl_model_init (SysNcclModel *model, const SysNcclMachine *m, const SysLibraryParams *lib,
                     GError **error)
{
  g_return_val_if_fail (model != NULL && m != NULL && lib != NULL, FALSE);
  memset (model, 0, sizeof *model);
  if (m->gpu == SYS_GPU_UNKNOWN)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "NCCL's tuning model has constants for Volta, Ampere, Hopper and Blackwell "
                   "GPUs only: say which the cluster has (gpu=...)");
      return FALSE;
    }
  g_return_val_if_fail (m->nodes >= 1 && m->ranks >= m->nodes && m->ranks % m->nodes == 0, FALSE);
  Enable en;
  if (!parse_enable (lib, &en, error))
    return FALSE;
  model->m = *m;
  model->tuner = lib->tuner;
  if (m->ranks < 2)
    return TRUE;
  search_graphs (model);
  for (guint f = 0; f < SYS_NCCL_FUNCS; f++)
    {
      guint32 nsteps = f == SYS_NCCL_ALL_REDUCE ? 2 * (m->ranks - 1)
                       : f == SYS_NCCL_ALL_GATHER || f == SYS_NCCL_REDUCE_SCATTER ? m->ranks - 1
                       : m->ranks;
      for (guint a = 0; a < SYS_NCCL_ALGOS; a++)
        for (guint p = 0; p < SYS_NCCL_PROTOS; p++)
          {
            if (!func_has_algo (f, a) || !pair_enabled (model, &en, f, a, p))
              continue;
            double bus = bus_bandwidth (model, f, a, p);
            model->bus_bw[f][a][p] = bus;
            model->bw[f][a][p] = bus * algo_ratio (m, f, a, nsteps);
            model->lat[f][a][p] = latency (model, f, a, p, nsteps);
          }
    }
  return TRUE;
}

/* ncclTopoGetAlgoTime for one operation: the latency and algorithm
 * bandwidth after the size-dependent factors; FALSE when not available. */
static gboolean
algo_terms (const SysNcclModel *model, SysNcclFunc func, SysNcclAlgo algo, SysNcclProto proto,
            guint64 bytes, double *lat_out, double *bw_out)
{
  double bw = model->bw[func][algo][proto];
  double lat = model->lat[func][algo][proto];
  if (bw <= 0)
    return FALSE;
  guint64 units = bytes >> 6;
  if (algo == SYS_NCCL_TREE && func == SYS_NCCL_ALL_REDUCE && units > 0
      && log2_down (units) < 23)
    bw *= tree_correction[proto][log2_down (units)];
  /* tuning.cc: the "plateau effect" of multi-node Simple rings. */
  if (algo == SYS_NCCL_RING && proto == SYS_NCCL_SIMPLE && model->m.nodes > 1
      && func == SYS_NCCL_ALL_REDUCE && bytes / ((guint64) model->channels * model->m.ranks) >= 64)
    lat *= model->m.gpu < SYS_GPU_AMPERE ? 1.9 : 1.4;
  *lat_out = lat;
  *bw_out = bw;
  return TRUE;
}

double
sys_nccl_time (const SysNcclModel *model, SysNcclFunc func, SysNcclAlgo algo, SysNcclProto proto,
               guint64 bytes)
{
  double lat, bw;
  if (!algo_terms (model, func, algo, proto, bytes, &lat, &bw))
    return -1.0;
  return lat + (double) bytes / (1000.0 * bw);
}

/* enqueue.cc topoGetAlgoInfo: fewer channels (then threads) while each
 * thread would get less than its threshold of bytes. */
static guint32
run_channels (const SysNcclModel *model, SysNcclAlgo a, SysNcclProto p, guint64 bytes)
{
  if (a == SYS_NCCL_NVLS || a == SYS_NCCL_NVLS_TREE)
    return model->nvls_channels;
  guint64 nc = model->channels;
  guint64 nt = max_threads[p];
  guint64 threshold = thread_threshold[p];
  if (a == SYS_NCCL_RING && p == SYS_NCCL_LL)
    threshold *= model->m.ranks;
  if (a == SYS_NCCL_COLLNET_DIRECT || a == SYS_NCCL_COLLNET_CHAIN)
    threshold = 512;
  while (bytes < nc * nt * threshold && nc >= 2)
    nc--;
  return (guint32) nc;
}

static gboolean nccl_price (const SysNcclModel *model, SysNcclFunc func, SysNcclAlgo algo,
                            SysNcclProto proto, guint64 bytes, SysNcclChoice *out);

gboolean
sys_nccl_choose (const SysNcclModel *model, SysNcclFunc func, guint64 bytes, SysNcclChoice *out)
{
  g_return_val_if_fail (model != NULL && func < SYS_NCCL_FUNCS && out != NULL, FALSE);
  double best = -1;
  SysNcclChoice c = { 0 };
  /* getAlgoInfo: a tuner plugin's pair first (only among the pairs NCCL
   * can run), timed by NCCL's model all the same; else the least time. */
  SysNcclTunerQuery q = { .func = func, .bytes = bytes, .ranks = model->m.ranks,
                          .nodes = model->m.nodes };
  for (guint a = 0; a < SYS_NCCL_ALGOS; a++)
    for (guint p = 0; p < SYS_NCCL_PROTOS; p++)
      q.runs[a][p] = model->bw[func][a][p] > 0;
  gboolean tuned = sys_nccl_tuner_choose (model->tuner, &q, &c.algo, &c.proto);
  if (tuned)
    best = sys_nccl_time (model, func, c.algo, c.proto, bytes);
  for (guint a = 0; a < SYS_NCCL_ALGOS && !tuned; a++)
    for (guint p = 0; p < SYS_NCCL_PROTOS; p++)
      {
        double t = sys_nccl_time (model, func, a, p, bytes);
        if (t >= 0 && (best < 0 || t < best))
          {
            best = t;
            c.algo = a;
            c.proto = p;
          }
      }
  if (best < 0)
    return FALSE;
  return nccl_price (model, func, c.algo, c.proto, bytes, out);
}

/* NCCL's prediction for one pair, as sys_nccl_choose reports its choice. */
static gboolean
nccl_price (const SysNcclModel *model, SysNcclFunc func, SysNcclAlgo algo, SysNcclProto proto,
            guint64 bytes, SysNcclChoice *out)
{
  SysNcclChoice c = { .algo = algo, .proto = proto };
  if (!algo_terms (model, func, algo, proto, bytes, &c.lat_us, &c.bw_GBps))
    return FALSE;
  c.time_us = c.lat_us + (double) bytes / (1000.0 * c.bw_GBps);
  /* The bus bandwidth each rank moves data at, the same factors applied. */
  c.bus_GBps = model->bus_bw[func][algo][proto] * c.bw_GBps / model->bw[func][algo][proto];
  c.channels = run_channels (model, algo, proto, bytes);
  *out = c;
  return TRUE;
}
