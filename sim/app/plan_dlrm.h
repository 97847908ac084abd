/* plan_dlrm.h: `orrery plan --dlrm`: the embedding sharding planner of a
 * DLRM (workload/gen_dlrm.h) on a cluster.
 *
 * What it models: the baselines the sharding papers compare against
 * (greedy table-wise by size: gen dlrm's placement; greedy table-wise by
 * the lookup cost model's bytes, largest first onto the rank with the
 * least; every table row-wise, column-wise, table-row-wise, data-parallel),
 * then a local search from the best of them: move a table-wise table to the
 * rank with the least lookup cost, or change one table's sharding type,
 * tables in decreasing lookup cost; each neighbour's layout is checked
 * against the device's memory (pruned when a rank does not fit, counted)
 * and simulated as `orrery run` runs the traces `gen dlrm` writes (made in
 * memory, wl_gen_dlrm_graphs), PLAN_DLRM_BATCH at a time over --jobs
 * worker processes (plan_pool.h); the best neighbour of a batch that is
 * faster than the current plan replaces it, and the search ends at a local
 * optimum or after --budget candidates.  A neighbour whose lower bound
 * (plan_dlrm_bound.c: the busiest GPU's embedding bytes at the HBM
 * bandwidth plus the time of the nodes no plan changes) is not below the
 * current plan's time cannot replace it and is not simulated (bounded-out,
 * still counted in the budget, so the search takes the path --exhaustive
 * takes).  Batches do not depend on --jobs, so neither does any output.
 * --explain ID repeats the search up to candidate ID, then prints its
 * plan, balance per GPU and critical path.  Times are picoseconds, memory
 * bytes.
 *
 * Outputs: stdout (counts, baselines, the best plan per table, its balance
 * of lookup cost and of all-to-all bytes per GPU, max over mean), DIR/plan.txt
 * (gen dlrm's --plan format, reproducing the best plan) and DIR/plan.csv
 * (every candidate).
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_DLRM_H
#define ORRERY_SIM_APP_PLAN_DLRM_H

/* Candidates simulated between two decisions of the search. */
#define PLAN_DLRM_BATCH 8
/* --budget's default: simulations of the search, baselines aside. */
#define PLAN_DLRM_BUDGET 64

/* `orrery plan --dlrm ...` with argv[0] "plan": the exit status. */
int app_cmd_plan_dlrm (int argc, char **argv);

#endif /* ORRERY_SIM_APP_PLAN_DLRM_H */
