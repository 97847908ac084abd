/* link_analytical.c: the contention-free link model.
 *
 * A message arrives hops x latency + bytes / bandwidth after it leaves, on
 * the dimension it travels (net_delay()), whatever else is in flight.  It
 * therefore needs no state and exactly one event per message: the delivery.
 */
#include "network/net_private.h"

static void
analytical_send (Net *net, SimTime at, guint32 src, guint32 dst, guint64 bytes,
                 SimHandler on_delivered, gpointer data, guint64 arg)
{
  SimTime arrival = sim_time_add (at, net_delay (net, src, dst, bytes));
  sim_sched_at (net->sched, arrival, on_delivered, data, arg);
}

const NetModelClass net_analytical_class = {
  .name = "analytical",
  .help = "no contention",
  .sharing = NET_SHARING_NONE,
  .send = analytical_send,
};
