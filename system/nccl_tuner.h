/* nccl_tuner.h: NCCL tuner plugins, for the NCCL library profile.
 *
 * Models: a tuner plugin that NCCL (2.19 and later) loads and asks, for every
 * collective, which algorithm and protocol to run.  NCCL's getAlgoInfo
 * (src/enqueue.cc, 2.26.2) fills its cost table from its own model, hands the
 * plugin the function, nBytes and that table, and runs the pair the plugin
 * marks; a pair NCCL cannot run (cost NCCL_ALGO_PROTO_IGNORE: no bandwidth
 * in its model) is never picked, and when the plugin marks nothing NCCL's
 * own model chooses.  The registry holds one built-in tuner, aws-ofi-nccl's
 * region tuner as it runs on AWS p5/p5e (8 x H100/H200, 32 x 100 Gb/s EFA):
 * regions of the (message size, rank count) plane, each meaning one
 * (algorithm, protocol) pair.  Its tables and rules are cited in
 * nccl_tuner.c.
 *
 * Units: sizes in bytes.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_NCCL_TUNER_H
#define ORRERY_SYSTEM_NCCL_TUNER_H

#include <glib.h>

#include "system/nccl.h"
#include "system/sys_params.h"

/* What NCCL hands a tuner for one collective. */
typedef struct
{
  SysNcclFunc func;
  guint64 bytes; /* NCCL's nBytes, as sys_nccl_choose takes them */
  guint32 ranks; /* the communicator's ranks and nodes */
  guint32 nodes;
  /* The pairs NCCL can run here (its cost table without IGNORE entries). */
  gboolean runs[SYS_NCCL_ALGOS][SYS_NCCL_PROTOS];
} SysNcclTunerQuery;

/* The pair `tuner` chooses for `q` in *algo and *proto, or FALSE when it
 * chooses none (SYS_NCCL_TUNER_NONE always): NCCL's own model then does.
 * A chosen pair is always one q->runs allows. */
gboolean sys_nccl_tuner_choose (SysNcclTuner tuner, const SysNcclTunerQuery *q,
                                SysNcclAlgo *algo, SysNcclProto *proto);

/* "none", "aws-ofi-nccl": the names a config gives, in SysNcclTuner order. */
const char *sys_nccl_tuner_name (SysNcclTuner tuner);

#endif /* ORRERY_SYSTEM_NCCL_TUNER_H */
