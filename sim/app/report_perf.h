/* report_perf.h: how well a run used the machine: MFU, HFU, TFLOP/s per
 * GPU, tokens/s and the pipeline bubble, for the summary and the JSON
 * report.
 *
 * Models: one simulated run is one training iteration, its time the run's
 * end (the last rank's finish).  Model FLOPs are the traces' GlobalMetadata
 * model_flops (with the formula they name, flops_formula) when every trace
 * gives the same, else the num_ops of the COMP nodes not marked
 * is_recompute, summed over ranks; hardware FLOPs are the num_ops of every
 * COMP node (recomputation included).  MFU = model FLOPs / (time x ranks x
 * peak), HFU the same with hardware FLOPs, the peak being the configured
 * device's or <compute peak> (WlParams.peak_label says which); without a
 * configured peak neither is available.  The device's peak is that of the
 * dtype most of the traces' matrix FLOPs run in (the GEMM and attention
 * kernels of the COMP nodes' `kernels`, WlRankStats.matrix_flops; with
 * several, its share is named), else that of the config's dtype.  tokens/s =
 * tokens_per_iteration / time, when the traces give it.  The pipeline
 * bubble of a rank is the time its compute waits on a receive from another
 * rank (WlRankStats.pipeline_bubble, part of exposed_comm), unless the
 * receive is part of a collective exchange (an `exchange` attribute: an
 * all-to-all sent as sends and receives), whose wait is communication
 * (WlRankStats.exchange_wait); the summary's exposed communication is the
 * rest, exchanges included.
 *
 * ASTRA-sim-compatible runs (the reference timing) print none of this:
 * their outputs stay those of the reference.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_REPORT_PERF_H
#define ORRERY_SIM_APP_REPORT_PERF_H

#include <glib.h>
#include <stdio.h>

#include "sim/app/json_out.h"
#include "sim/app/simulation.h"

typedef struct
{
  guint32 ranks;
  double seconds;          /* the iteration: the run's end */
  double model_flops;      /* one iteration, all ranks */
  const char *formula;     /* the traces' flops_formula; NULL: summed from the nodes */
  gboolean from_metadata;  /* model_flops is the traces' GlobalMetadata figure */
  double hardware_flops;   /* every COMP node's num_ops, all ranks */
  SimTime compute;         /* accelerator compute time, all ranks */
  gboolean replayed;       /* the compute model replays the traces' durations */
  double peak_flops;       /* per GPU, FLOP/s; 0: the config names no peak */
  char peak_label[128];    /* where the peak comes from; "" when no peak */
  guint64 tokens;          /* per iteration; 0: unknown */
  SimTime mean_bubble;     /* pipeline bubble, mean over ranks (rounded down) */
  SimTime mean_exposed;    /* exposed communication less the bubble, likewise */
  SimTime mean_exchange;   /* the part of mean_exposed waiting on exchanges */
  gboolean exchanges;      /* the traces name collective exchanges (some rank
                            * started a receive with an `exchange` attribute) */
} AppEfficiency;

/* The run's figures above. */
void app_efficiency (const AppSim *sim, AppEfficiency *out);

/* Whether the run reports them (not an ASTRA-sim-compatible run). */
gboolean app_efficiency_reported (const AppSim *sim);

/* Whether communication kernels holding SMs slowed any rank's compute
 * (WlRankStats.compute_contention; workload/replay_sm.c): only then do the
 * summary, the JSON and the CSV say by how much. */
gboolean app_contention_reported (const AppSim *sim);

/* Whether the run reports the wait on collective exchanges: a native run
 * whose traces have receives with an `exchange` attribute. */
gboolean app_exchanges_reported (const AppSim *sim);

/* The memory a GPU needs by the traces (their GlobalMetadata's
 * peak_memory_bytes, which gen transformer writes per pipeline stage)
 * against the memory of the config's device. */
typedef struct
{
  guint64 need_B;     /* the largest of any rank's trace; 0: no trace gives it */
  const char *path;   /* the first trace that gives it (borrowed; NULL with need_B 0) */
  double have_B;      /* the device's memory, bytes; 0: the config names none */
  const char *device; /* its name ("" without a device) */
  guint missing;      /* distinct traces that give no figure (their ranks are not checked) */
  guint traces;       /* of the run's distinct traces */
} AppMemory;

/* The run's AppMemory; FALSE (nothing to say) for an ASTRA-sim-compatible
 * run or traces that give no peak memory. */
gboolean app_memory (const AppSim *sim, AppMemory *out);

/* Whether M's need is more than its device's memory (both known). */
gboolean app_memory_over (const AppMemory *m);

/* MFU and HFU as fractions; FALSE when there is no peak or no time. */
gboolean app_efficiency_mfu (const AppEfficiency *e, double *mfu, double *hfu);

/* The summary's lines: MFU/HFU and the peak, TFLOP/s per GPU, model FLOPs
 * and their source, tokens/s, the mean exposed communication and bubble. */
void app_report_efficiency (const AppSim *sim, FILE *out);

/* The summary's table of collective exchanges (runs whose traces have
 * them: app_exchanges_reported): per exchange name, the min, median and
 * max over ranks of the time waiting on its receives with no compute
 * (WlRankStats.exchange_wait_by, summed by name). */
void app_report_exchanges (const AppSim *sim, FILE *out);

/* A collective exchange (sends and receives sharing an `exchange` name)
 * as a row of the collectives table, over the ranks that took part. */
typedef struct
{
  const char *name;  /* borrowed from the replay */
  guint32 ranks;     /* ranks that sent or received any of it */
  guint64 msgs;      /* its receives from other ranks, done */
  guint64 bytes;     /* their comm_size, summed over ranks */
  SimTime first;     /* the first send's start (G_MAXUINT64: none started) */
  SimTime last_join; /* the last sending rank's first send's start */
  SimTime done;      /* the last receive's completion */
} AppExchangeStat;

/* The run's exchanges, by name in order of first appearance (rank 0's
 * first); empty unless app_exchanges_reported.  Free with g_array_unref. */
GArray *app_exchange_stats (const AppSim *sim);

/* An exchange row's bandwidths in bytes/s: busbw the bytes a rank received
 * (mean over ranks) over the time every rank had started (last_join to
 * done), algbw busbw x ranks / (ranks - 1), as nccl-tests reads an
 * all-to-all (its buffer holds the rank's own chunk too); FALSE when
 * undefined (one rank, no time). */
gboolean app_exchange_bandwidth (const AppExchangeStat *x, double *alg, double *bus);

/* The JSON report's "efficiency" member (nulls where not available). */
void app_report_efficiency_json (const AppSim *sim, AppJsonOut *j);

#endif /* ORRERY_SIM_APP_REPORT_PERF_H */
