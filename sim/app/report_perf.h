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
 * device's for its data type or <compute peak> (WlParams.peak_label says
 * which); without a configured peak neither is available.  tokens/s =
 * tokens_per_iteration / time, when the traces give it.  The pipeline
 * bubble of a rank is the time its compute waits on a receive from another
 * rank (WlRankStats.pipeline_bubble, part of exposed_comm); the summary's
 * exposed communication is the rest.
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
  double peak_flops;       /* per GPU, FLOP/s; 0: the config names no peak */
  const char *peak_label;  /* borrowed from the config; "" when no peak */
  guint64 tokens;          /* per iteration; 0: unknown */
  SimTime mean_bubble;     /* pipeline bubble, mean over ranks (rounded down) */
  SimTime mean_exposed;    /* exposed communication less the bubble, likewise */
} AppEfficiency;

/* The run's figures above. */
void app_efficiency (const AppSim *sim, AppEfficiency *out);

/* Whether the run reports them (not an ASTRA-sim-compatible run). */
gboolean app_efficiency_reported (const AppSim *sim);

/* MFU and HFU as fractions; FALSE when there is no peak or no time. */
gboolean app_efficiency_mfu (const AppEfficiency *e, double *mfu, double *hfu);

/* The summary's lines: MFU/HFU and the peak, TFLOP/s per GPU, model FLOPs
 * and their source, tokens/s, the mean exposed communication and bubble. */
void app_report_efficiency (const AppSim *sim, FILE *out);

/* The JSON report's "efficiency" member (nulls where not available). */
void app_report_efficiency_json (const AppSim *sim, AppJsonOut *j);

#endif /* ORRERY_SIM_APP_REPORT_PERF_H */
