/* report_coll.h: the summary's collectives table (per group and
 * algorithm: counts, bytes, times and nccl-tests' bandwidths), split from
 * report.c, whose JSON report shares a row's bandwidth and group name. */
#ifndef ORRERY_SIM_APP_REPORT_COLL_H
#define ORRERY_SIM_APP_REPORT_COLL_H

#include <glib.h>
#include <stdio.h>

#include "sim/app/simulation.h"

/* Print the collectives table (and exchange rows) of SIM to OUT. */
void app_report_collectives (const AppSim *sim, FILE *out);
/* ST's algbw and busbw in bytes/s as nccl-tests defines them, over the
 * time its collectives ran with every member present; FALSE where
 * undefined. */
gboolean app_coll_row_bandwidth (const SysCollGroupStats *st, double *alg, double *bus);
/* ST's size as nccl-tests prints it, summed over its count: the whole
 * buffer of all-gather, gather and scatter (the members x comm_size),
 * comm_size otherwise; saturated at 2^64 - 1.  The table's size column and
 * the JSON report's collectives[].size_bytes. */
guint64 app_coll_row_size (const SysCollGroupStats *st);
/* "all" or the group's id (free it). */
char *app_coll_group_name (guint64 group);

#endif /* ORRERY_SIM_APP_REPORT_COLL_H */
