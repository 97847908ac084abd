/* plan_path.h: `orrery plan --explain`'s critical path, grouped by node
 * name.
 *
 * Models: a generated candidate's path repeats the same layer's nodes
 * (mlp_bwd, attn_bwd, ... once per layer and micro-batch), so its longest
 * steps are rows of one name; grouped by name and kind of node, each row
 * says how many steps the path has of it, their total time and the
 * longest one, the names with the most time first.  Times in ps, printed
 * with units.
 *
 * Ownership: the simulation is borrowed.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PLAN_PATH_H
#define ORRERY_SIM_APP_PLAN_PATH_H

#include <stdio.h>

#include <glib.h>

#include "sim/app/simulation.h"

/* The critical path of SIM (a finished, recorded run): its length and
 * steps, then the TOP names with the most time on it (name and kind, steps,
 * total, longest, share of the path) on OUT.  FALSE with ERROR set when
 * the path cannot be allocated. */
gboolean plan_path_print (const AppSim *sim, guint top, FILE *out, GError **error);

#endif /* ORRERY_SIM_APP_PLAN_PATH_H */
