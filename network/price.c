/* price.c: the price table's out-of-line half (see price.h). */
#include "network/price.h"

#include "network/net.h"

SimTime
net_price_serialization (NetPriceTable *table, guint64 bytes, double bandwidth_Bps)
{
  SimTime ps;
  if (net_price_find (table, bytes, bandwidth_Bps, &ps))
    return ps;
  ps = net_serialization_ps (bytes, bandwidth_Bps);
  net_price_store (table, bytes, bandwidth_Bps, ps);
  return ps;
}
