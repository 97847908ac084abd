/* port_bound.h: the most bus bandwidth a collective's members' ports can
 * carry, for the reports' warning.
 *
 * Models: an all-reduce of S bytes on n members moves at least
 * 2(n-1)/n x S through each member's ports (Patarasuk and Yuan, "Bandwidth
 * optimal all-reduce algorithms for clusters of workstations", JPDC 69(2),
 * 2009), and nccl-tests' bus bandwidth is exactly the size times that
 * factor over the time (the other kinds likewise, with their factors).  So
 * busbw can never exceed the bandwidth a member can push out at once: the
 * sum, over the topology dimensions the group spans, of the rank's egress
 * bandwidth there (bytes/s, per direction):
 *   Switch                   1 x bandwidth (its up link);
 *   Ring of more than 2      2 x bandwidth (a link each way round);
 *   Ring of 2                1 x bandwidth (both neighbours are the same
 *                            rank; routes go clockwise on the tie, so
 *                            every model uses one link);
 *   FullyConnected of n      (n - 1) x bandwidth (a link to each peer);
 *   explicit graph           the sum of the rank's outgoing links (the
 *                            smallest over the members).
 * A row above its bound means the link model gave messages bandwidth no
 * wire has: possible only under ASTRA-sim's analytical semantics (every
 * message in flight gets a link's full bandwidth).  Algorithms that reduce
 * inside the network (NVLS, SHARP) move less through the ports and are
 * exempt (SysCollGroupStats.in_network).
 *
 * Ownership: AppPortBounds borrows nothing after it is built.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_PORT_BOUND_H
#define ORRERY_SIM_APP_PORT_BOUND_H

#include <glib.h>

#include "sim/app/simulation.h"

typedef struct _AppPortBounds AppPortBounds;

/* The bounds of every process group the finished run's collectives used
 * (their members found from the traces). */
AppPortBounds *app_port_bounds_new (const AppSim *sim);
void app_port_bounds_free (AppPortBounds *bounds); /* accepts NULL */

/* The bound of GROUP (SYS_GROUP_WORLD or a group id) in bytes/s; FALSE
 * when its members are not known (streamed traces keep no graphs). */
gboolean app_port_bound (const AppPortBounds *bounds, guint64 group, double *out_Bps);

/* Whether BUS_BPS (bytes/s) exceeds the bound of GROUP; FALSE when unknown
 * or exempt (IN_NETWORK: the row's algorithm reduces inside the switches,
 * SysCollGroupStats.in_network).  BOUND_BPS gets the bound (0 when
 * unknown). */
gboolean app_port_exceeds (const AppPortBounds *bounds, guint64 group, gboolean in_network,
                           double bus_Bps, double *bound_Bps);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (AppPortBounds, app_port_bounds_free)

#endif /* ORRERY_SIM_APP_PORT_BOUND_H */
