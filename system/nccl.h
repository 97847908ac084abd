/* nccl.h: NCCL's collective tuning model, for the NCCL library profile.
 *
 * Models: how NCCL (2.26, src/graph/{search,tuning}.cc) prices a collective
 * before it runs one: a topology search gives each algorithm's channel count
 * and per-channel bandwidth; the tuning model turns them into a latency (us)
 * and a bandwidth (GB/s) per function, algorithm and protocol; NCCL runs the
 * (algorithm, protocol) pair of least predicted time lat + bytes / bw.  The
 * constants are NCCL's (cited in nccl.c beside each table), the formulas are
 * written anew.  NCCL's topology search is a recursive search over the PCI
 * and NVLink graph; orrery's topologies are regular (every GPU of a node
 * alike, one NIC per GPU), so the search's outcome is computed in closed
 * form from the same speed tables and link budgets.
 *
 * Units: bandwidths in GB/s (10^9 B/s) and times in microseconds, as NCCL's
 * tables; sizes in bytes.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_NCCL_H
#define ORRERY_SYSTEM_NCCL_H

#include <glib.h>

#include "network/topo.h"
#include "system/sys_params.h"

/* NCCL's algorithms, protocols and functions, in NCCL's order. */
typedef enum
{
  SYS_NCCL_TREE,
  SYS_NCCL_RING,
  SYS_NCCL_COLLNET_DIRECT,
  SYS_NCCL_COLLNET_CHAIN,
  SYS_NCCL_NVLS,
  SYS_NCCL_NVLS_TREE,
  SYS_NCCL_PAT,
  SYS_NCCL_ALGOS
} SysNcclAlgo;

typedef enum
{
  SYS_NCCL_LL,
  SYS_NCCL_LL128,
  SYS_NCCL_SIMPLE,
  SYS_NCCL_PROTOS
} SysNcclProto;

typedef enum
{
  SYS_NCCL_BROADCAST,
  SYS_NCCL_REDUCE,
  SYS_NCCL_ALL_GATHER,
  SYS_NCCL_REDUCE_SCATTER,
  SYS_NCCL_ALL_REDUCE,
  SYS_NCCL_FUNCS
} SysNcclFunc;

/* One communicator's machine as NCCL's model sees it. */
typedef struct
{
  SysGpuArch gpu;
  SysCpuVendor cpu;
  guint32 nodes;        /* nodes the communicator spans, >= 1 */
  guint32 ranks;        /* GPUs in it, a multiple of nodes */
  NetLinkKind intra;    /* NET_LINK_NVLINK or NET_LINK_PCIE */
  gboolean nvswitch;    /* NVLink through NVSwitches (NVLS possible) */
  double intra_GBps;    /* a GPU's NVLink bandwidth as NCCL counts it, or its
                         * PCIe bandwidth without NVLink, per direction */
  double nic_GBps;      /* one NIC per GPU; 0 on a single node */
  double pci_GBps;      /* the GPU-NIC PCIe path, as NCCL counts it */
  double net_latency_us; /* the network plugin's reported latency */
  gboolean collnet;     /* in-network reduction configured */
} SysNcclMachine;

/* One algorithm's search result (NCCL's ncclTopoGraph, as far as the
 * tuning model reads it). */
typedef struct
{
  guint32 channels;     /* 0: the algorithm has no graph here */
  double bw_intra;      /* GB/s per channel */
  double bw_inter;
} SysNcclGraph;

/* The tuning tables of one communicator. */
typedef struct
{
  SysNcclMachine m;
  SysNcclGraph graph[SYS_NCCL_ALGOS];
  guint32 channels;      /* channels NCCL runs ring and tree collectives on */
  guint32 nvls_channels;
  /* NCCL's comm->bandwidths and comm->latencies: the algorithm bandwidth
   * (GB/s, 0: not available) and the latency (us). */
  double bw[SYS_NCCL_FUNCS][SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
  double lat[SYS_NCCL_FUNCS][SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
  /* The bus bandwidth behind bw (before the algorithm-bandwidth ratio) and
   * the latency of one step inside a node and across nodes, for
   * simulating the chosen algorithm step by step. */
  double bus_bw[SYS_NCCL_FUNCS][SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
  double intra_lat[SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
  double inter_lat[SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
  double base_lat[SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
  SysNcclTuner tuner; /* the plugin asked first (system/nccl_tuner.h) */
} SysNcclModel;

/* NCCL's choice for one collective, with what produced it. */
typedef struct
{
  SysNcclAlgo algo;
  SysNcclProto proto;
  double time_us;   /* predicted: lat x latency factor + bytes / bw */
  double lat_us;    /* the latency term, factors applied */
  double bw_GBps;   /* the algorithm bandwidth, factors applied */
  double bus_GBps;  /* the bus bandwidth each rank moves data at */
  guint32 channels; /* channels it runs on for this size */
} SysNcclChoice;

/* Build the tables for machine `m` with the enable lists of `lib`.  FALSE
 * (input error) for a machine NCCL's tables do not cover (unknown GPU) or
 * lists that do not parse. */
gboolean sys_nccl_model_init (SysNcclModel *model, const SysNcclMachine *m,
                              const SysLibraryParams *lib, GError **error);

/* Choose for function `func` moving `bytes` (NCCL's nBytes: the buffer of an
 * all-reduce, broadcast or reduce; the whole output of an all-gather and
 * input of a reduce-scatter): the model's tuner's pair when it names one,
 * else the pair of least predicted time.  FALSE when no algorithm is enabled for it
 * (the enable lists ruled all out): *out is then untouched. */
gboolean sys_nccl_choose (const SysNcclModel *model, SysNcclFunc func, guint64 bytes,
                          SysNcclChoice *out);

/* Predicted time (us) of one pair, or a negative number when the pair is not
 * available: NCCL's ncclTopoGetAlgoTime for one operation. */
double sys_nccl_time (const SysNcclModel *model, SysNcclFunc func, SysNcclAlgo algo,
                      SysNcclProto proto, guint64 bytes);

/* Check the NCCL_ALGO / NCCL_PROTO-syntax lists of `lib`, naming what is
 * wrong ("unknown algorithm 'rnig' in nccl-algo=..."). */
gboolean sys_nccl_check_lists (const SysLibraryParams *lib, GError **error);

/* Why NCCL's topology search finds no channel on machine `m` (every
 * algorithm's bandwidth 0, whatever the enable lists), in words for a
 * message: "between nodes its slowest channel is 0.12 GB/s and a GPU's NIC
 * path gives 0.0625 GB/s", or the same inside a node for the GPU's links;
 * "its search finds no channel that fits" otherwise.  Caller frees. */
char *sys_nccl_no_channel_why (const SysNcclMachine *m);

/* The function of a collective kind; FALSE for kinds NCCL runs as
 * point-to-point operations (all-to-all, gather, scatter) or not at all. */
gboolean sys_nccl_func_of (SysCollKind kind, SysNcclFunc *out);

const char *sys_nccl_algo_name (SysNcclAlgo algo);   /* "Ring", "NVLSTree" */
const char *sys_nccl_proto_name (SysNcclProto proto); /* "LL128" */

#endif /* ORRERY_SYSTEM_NCCL_H */
