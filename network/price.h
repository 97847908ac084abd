/* price.h: a small direct-mapped table of exact prices, keyed by a byte
 * count and a rate.
 *
 * Models: a price is a SimTime (picoseconds) that depends only on a number
 * of bytes and a rate in bytes/s: a serialization bytes / bandwidth, or a
 * reduction through local memory.  The exact price is a 128-bit division
 * (net_serialization_ps), and collectives send runs of a few distinct sizes
 * over a few distinct bandwidths, interleaved across members and chunks, so
 * a one-entry memo misses where a small table holds every pair.  Each pair
 * has one place (a hash of the pair); a pair that finds its place taken by
 * another computes its price again and takes the place: the answer is the
 * same price, bit for bit, as without the table.
 *
 * Ownership: a table is a plain value, embedded where it is used and
 * zero-initialised (every place empty); nothing is allocated.  Not
 * thread-safe.
 *
 * Layer: network.  May include: sim, GLib.
 */
#ifndef ORRERY_NETWORK_PRICE_H
#define ORRERY_NETWORK_PRICE_H

#include <glib.h>
#include <string.h>

#include "sim/simtime.h"

#define NET_PRICE_SLOTS 64 /* places, a power of two */

typedef struct
{
  guint64 bytes;
  double rate;
  SimTime price;
  gboolean used;
} NetPriceSlot;

typedef struct
{
  NetPriceSlot slot[NET_PRICE_SLOTS];
} NetPriceTable;

/* The place of (bytes, rate): a multiplicative hash of both. */
static inline guint
net_price_slot_of (guint64 bytes, double rate)
{
  guint64 bits;
  memcpy (&bits, &rate, sizeof bits);
  guint64 h = (bytes ^ (bits * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
  return (guint) (h >> 58) & (NET_PRICE_SLOTS - 1);
}

/* The price of (bytes, rate) if the table holds it: TRUE and *price set. */
static inline gboolean
net_price_find (const NetPriceTable *table, guint64 bytes, double rate, SimTime *price)
{
  const NetPriceSlot *s = &table->slot[net_price_slot_of (bytes, rate)];
  if (!s->used || s->bytes != bytes || s->rate != rate)
    return FALSE;
  *price = s->price;
  return TRUE;
}

/* Remember price for (bytes, rate), in place of whatever pair held its
 * place. */
static inline void
net_price_store (NetPriceTable *table, guint64 bytes, double rate, SimTime price)
{
  table->slot[net_price_slot_of (bytes, rate)]
      = (NetPriceSlot) { .bytes = bytes, .rate = rate, .price = price, .used = TRUE };
}

/* net_serialization_ps (bytes, bandwidth_Bps), through the table. */
SimTime net_price_serialization (NetPriceTable *table, guint64 bytes, double bandwidth_Bps);

#endif /* ORRERY_NETWORK_PRICE_H */
