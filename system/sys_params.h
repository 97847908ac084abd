/* sys_params.h: the system layer's configuration.
 *
 * Models: how collectives are cut into chunks and scheduled on the network
 * dimensions, which algorithm runs on each dimension, and what each message
 * costs at the endpoints (a fixed delay per message, and for reductions a
 * pass over local memory).  These are ASTRA-sim's system-config knobs, one to
 * one (see configs/README.md).
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_SYS_PARAMS_H
#define ORRERY_SYSTEM_SYS_PARAMS_H

#include <glib.h>

#include "network/topo.h"
#include "sim/simtime.h"

/* Collective kinds; the order is the report order. */
typedef enum
{
  SYS_COLL_ALL_REDUCE,
  SYS_COLL_REDUCE_SCATTER,
  SYS_COLL_ALL_GATHER,
  SYS_COLL_ALL_TO_ALL,
  /* Kinds ASTRA-sim does not simulate.  The rooted ones have a root rank;
   * they and the barrier run over the group as one flat line. */
  SYS_COLL_BROADCAST, /* the root's c bytes to every member */
  SYS_COLL_REDUCE,    /* every member's c bytes reduced into the root */
  SYS_COLL_GATHER,    /* every member's c bytes collected at the root */
  SYS_COLL_SCATTER,   /* the root's c bytes for each member, delivered */
  SYS_COLL_BARRIER,   /* no data: nobody leaves before everybody arrived */
  SYS_COLL_N
} SysCollKind;

/* Does this kind have a root? */
static inline gboolean
sys_coll_kind_rooted (SysCollKind kind)
{
  return kind == SYS_COLL_BROADCAST || kind == SYS_COLL_REDUCE || kind == SYS_COLL_GATHER
         || kind == SYS_COLL_SCATTER;
}

typedef enum
{
  SYS_SCHED_LIFO,
  SYS_SCHED_FIFO,
  SYS_SCHED_EXPLICIT
} SysSchedPolicy;

typedef enum
{
  SYS_OPT_LOCAL_BW_AWARE, /* multi-dim all-reduce: RS up, AR on the last, AG down */
  SYS_OPT_BASELINE        /* one dimension after another, the whole collective each */
} SysCollOpt;

#define SYS_ALGO_NAME_MAX 32

/* Which timings an algorithm row gives: orrery's own, or those of the
 * reference simulator's classes (ASTRA-sim's collective classes, quirks
 * included).  Names resolve to rows of the policy's timing first. */
typedef enum
{
  SYS_TIMING_NATIVE,
  SYS_TIMING_REFERENCE
} SysTiming;

/* How a size is divided among n members (and a collective among chunks). */
typedef enum
{
  SYS_SPLIT_UP,  /* rounded up: no byte is lost */
  SYS_SPLIT_DOWN /* integer division (ASTRA-sim) */
} SysSplitRounding;

typedef enum
{
  /* `splits` chunks sharing the bytes exactly (the first ones a byte more). */
  SYS_CHUNKS_EXACT,
  /* Chunks of size / splits bytes (at least one byte per rank of the
   * system, except for all-gather) until the size is used up, the last one
   * full-sized too (ASTRA-sim). */
  SYS_CHUNKS_FIXED_SIZE
} SysChunking;

typedef enum
{
  SYS_MEM_EXACT_PS,    /* each memory pass in exact picoseconds, rounded up */
  SYS_MEM_TRUNCATED_NS /* in double-precision ns, truncated (ASTRA-sim) */
} SysMemPricing;

/* Compatibility with another simulator's timing, as one policy: named
 * behaviours chosen when the configuration is read (sim/app: ASTRA-sim
 * inputs, or rounding="astra-ns" in a cluster XML) and passed down as data.
 * sys_compat_native gives orrery's own behaviour. */
typedef struct
{
  SysSplitRounding split;
  SysChunking chunking;
  SysMemPricing reduce_pricing;
  SysTiming timing; /* algorithm rows preferred when resolving names */
  /* The logical topology has as many dimensions as each kind's algorithm
   * list names; the others are never used (ASTRA-sim's logical topology). */
  gboolean dims_from_impl;
  /* A group smaller than the system runs as one flat line in the listed
   * order on dimension 0's queue, with algorithm `subgroup_algorithm`, each
   * message costing `subgroup_delay` in place of the endpoint delay: what
   * ASTRA-sim does with a communicator group (its reference runs,
   * tests/system/test_coll.c, pin the 10 ns). */
  gboolean subgroups_flat;
  const char *subgroup_algorithm; /* static */
  SimTime subgroup_delay;
} SysCompat;

/* orrery's own behaviour: split up, exact chunks, exact ps, native rows,
 * every dimension, groups laid over the topology. */
void sys_compat_native (SysCompat *compat);
/* ASTRA-sim's analytical backend: split down, fixed-size chunks, truncated
 * ns, reference rows, dimensions from the algorithm lists, flat subgroups
 * running "ring" at 10 ns a message. */
void sys_compat_reference (SysCompat *compat);
/* Is `compat` the native policy? */
gboolean sys_compat_is_native (const SysCompat *compat);

/* Which collective library the ranks run.  PER_DIMENSION: the algorithm
 * lists per dimension (impl), chunked and pipelined across dimensions as
 * ASTRA-sim does.  NCCL: NCCL's algorithms and protocols, chosen per
 * collective and size by NCCL's tuning model (system/nccl.h). */
typedef enum
{
  SYS_LIBRARY_PER_DIMENSION,
  SYS_LIBRARY_NCCL
} SysLibrary;

/* The GPU generation whose NCCL constants apply (NCCL's compute-capability
 * index): from the compute device. */
typedef enum
{
  SYS_GPU_UNKNOWN,
  SYS_GPU_VOLTA,
  SYS_GPU_AMPERE,
  SYS_GPU_HOPPER,
  SYS_GPU_BLACKWELL
} SysGpuArch;

typedef enum
{
  SYS_CPU_INTEL,
  SYS_CPU_AMD,
  SYS_CPU_ARM
} SysCpuVendor;

#define SYS_NCCL_LIST_MAX 128

/* A tuner plugin NCCL asks before its own model (system/nccl_tuner.h). */
typedef enum
{
  SYS_NCCL_TUNER_NONE,         /* NCCL's own model chooses */
  SYS_NCCL_TUNER_AWS_OFI_NCCL, /* aws-ofi-nccl's region tuner on AWS p5/p5e */
  SYS_NCCL_TUNERS
} SysNcclTuner;

typedef struct
{
  SysLibrary library;
  SysGpuArch gpu;
  SysCpuVendor cpu;
  /* NCCL_ALGO / NCCL_PROTO syntax ("ring,tree", "^LL128",
   * "allreduce:tree;^ring"); "" leaves NCCL's choice. */
  char algorithms[SYS_NCCL_LIST_MAX];
  char protocols[SYS_NCCL_LIST_MAX];
  /* In-network reduction (SHARP) on the network: CollNet algorithms. */
  gboolean collnet;
  /* The latency the network plugin reports to NCCL (ncclNetProperties_t
   * latency), which NCCL's model adds to every step across nodes: 0 for
   * NCCL's own InfiniBand and socket transports; aws-ofi-nccl reports 75 us
   * on AWS p4d/p5 (src/platform-aws.cpp). */
  SimTime net_latency;
  /* The tuner plugin NCCL loads: NONE unless the config names one. */
  SysNcclTuner tuner;
} SysLibraryParams;

/* The most chunks a collective is cut into (`splits`).  Each chunk costs
 * every member state and events in every phase, so a count in the millions
 * (a typo, or 2^32 - 1) would exhaust memory or run for hours; 65,536 is
 * far past any useful pipelining (ASTRA-sim's examples use 1 to 64). */
#define SYS_SPLITS_MAX 65536u

typedef struct
{
  SysSchedPolicy policy;
  SimTime endpoint_delay;      /* added once per message, ps */
  guint active_chunks_per_dim; /* chunks in flight per dimension and rank, >= 1 */
  guint splits;                /* chunks per collective, >= 1 */
  SysCollOpt opt;
  /* Algorithm per collective kind and dimension.  n_impl[k] names are given;
   * a topology with more dimensions reuses the last one. */
  char impl[SYS_COLL_N][NET_MAX_DIMS][SYS_ALGO_NAME_MAX];
  guint n_impl[SYS_COLL_N];
  /* An algorithm that exists but lacks a kind it is listed for (say
   * halvingDoubling for all-to-all) is refused when the system is built
   * (FALSE), or only when a collective of that kind reaches a dimension
   * that runs it (TRUE: ASTRA-sim's system inputs, which it accepts so, and
   * which often list one algorithm for all four kinds).  Unknown names are
   * refused at build time either way. */
  gboolean kind_check_at_use;
  double local_mem_bw_Bps; /* bytes/s of local memory, prices reductions */
  guint reduction_passes;  /* memory passes per reduced message (ASTRA-sim: 3) */
  SysCompat compat; /* native unless the configuration asks otherwise */
  /* Point-to-point messages of at least this many bytes use rendezvous (the
   * data leaves once the receive is posted); smaller ones are eager.
   * G_MAXUINT64: always eager (ASTRA-sim); 0: always rendezvous. */
  guint64 rendezvous_threshold;
  SysLibraryParams lib; /* library PER_DIMENSION unless the config says */
  /* A program (system/program.h) per kind, or NULL: when set it runs that
   * kind over the whole group, whatever impl names.  Owned elsewhere (the
   * configuration's loader); it must outlive every Sys made from these. */
  const struct _SysAlgoClass *program[SYS_COLL_N];
} SysParams;

/* Defaults: LIFO, 10 ns endpoint delay, 1 active chunk, 1 split,
 * localBWAware, "ring" for every kind, 1600 GB/s, 3 passes, the native
 * compatibility policy, eager point-to-point messages, algorithms checked
 * against their kinds when the system is built. */
void sys_params_init (SysParams *params);

/* Set the algorithm list of one collective kind from names; FALSE with an
 * error naming the kind when there are none or too many. */
gboolean sys_params_set_impl (SysParams *params, SysCollKind kind, const char *const *names,
                              guint n, GError **error);

const char *sys_coll_kind_name (SysCollKind kind); /* "all_reduce", ... */
const char *sys_sched_policy_name (SysSchedPolicy policy);
gboolean sys_sched_policy_parse (const char *name, SysSchedPolicy *out);
gboolean sys_coll_opt_parse (const char *name, SysCollOpt *out);
const char *sys_coll_opt_name (SysCollOpt opt);

#endif /* ORRERY_SYSTEM_SYS_PARAMS_H */
