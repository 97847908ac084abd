/* tp_nodes.h: the run's warning when a tensor-parallel group spans nodes.
 *
 * What it models: `orrery gen transformer --tp N` writes traces for any
 * cluster, so it cannot know that N is wider than a node; `run` does.  A TP
 * group is the process group of a collective whose name starts with "tp_"
 * (the names gen transformer gives them: tp_all_gather, tp_reduce_scatter,
 * tp_all_reduce).  On a native cluster whose innermost dimension is a
 * node's GPUs (net_node_gpus), a TP group with ranks on two nodes or more
 * runs its per-layer collectives through the NICs, at a fraction of
 * NVLink's bandwidth: the run is still simulated as asked, and stderr says
 * so once, with the count of such groups and the first.  ASTRA-sim inputs
 * (whose dimensions are not nodes) and streamed runs (whose traces are not
 * held in memory) are not checked.
 * Ownership: nothing is kept.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_TP_NODES_H
#define ORRERY_SIM_APP_TP_NODES_H

#include <stdio.h>

#include "sim/app/simulation.h"

/* After the traces are loaded and their groups bound: write the warning to
 * OUT when some TP group spans nodes (one line), else nothing. */
void app_tp_nodes_warn (AppSim *sim, FILE *out);

#endif /* ORRERY_SIM_APP_TP_NODES_H */
