/* test_price.c: the price table (network/price.h) gives exactly the price
 * computed without it, for pairs that share a place as for pairs that do
 * not.
 *
 * Expected values: ceil(bytes x 10^12 / bandwidth) ps written out here for
 * a few pairs, and net_serialization_ps, the uncached price, for the rest.
 */
#include <check.h>

#include "network/net.h"
#include "network/price.h"
#include "support/testutil.h"

/* Hand-worked: 1 MiB at 50 GB/s is 1048576 x 10^12 / (5 x 10^10) =
 * 20971520 ps exactly; 1000 bytes at 3 B/s is 333.33.. s, rounded up to
 * 333333333333334 ps; 1 byte at 400 GB/s is 2.5 ps, rounded up to 3. */
START_TEST (test_price_hand_worked)
{
  NetPriceTable table = { 0 };
  for (guint round = 0; round < 2; round++) /* a miss, then a hit */
    {
      ck_assert_uint_eq (net_price_serialization (&table, 1048576, 50e9), 20971520);
      ck_assert_uint_eq (net_price_serialization (&table, 1000, 3.0), 333333333333334ull);
      ck_assert_uint_eq (net_price_serialization (&table, 1, 400e9), 3);
      ck_assert_uint_eq (net_price_serialization (&table, 0, 400e9), 0);
    }
}
END_TEST

/* Pairs whose places collide evict each other in turn: each lookup must
 * still give its own pair's price, never the other's. */
START_TEST (test_price_collisions)
{
  NetPriceTable table = { 0 };
  const double rates[] = { 50e9, 25e9, 12.5e9, 1e9 + 0.5, 3.0 };
  guint64 bytes[NET_PRICE_SLOTS + 1];
  /* NET_PRICE_SLOTS + 1 sizes at one rate: two at least share a place. */
  for (guint i = 0; i <= NET_PRICE_SLOTS; i++)
    bytes[i] = 4096 * (guint64) (i + 1) + i;
  gboolean collided = FALSE;
  for (guint i = 0; i <= NET_PRICE_SLOTS && !collided; i++)
    for (guint j = 0; j < i; j++)
      collided |= net_price_slot_of (bytes[i], 50e9) == net_price_slot_of (bytes[j], 50e9);
  ck_assert (collided);
  for (guint round = 0; round < 3; round++)
    for (guint r = 0; r < G_N_ELEMENTS (rates); r++)
      for (guint i = 0; i <= NET_PRICE_SLOTS; i++)
        {
          guint64 b = round == 1 ? bytes[NET_PRICE_SLOTS - i] : bytes[i];
          ck_assert_uint_eq (net_price_serialization (&table, b, rates[r]),
                             net_serialization_ps (b, rates[r]));
        }
}
END_TEST

/* The same byte count at two rates that share a place, and two byte counts
 * at one rate: found, the pair alone is what matches. */
START_TEST (test_price_find_matches_pair)
{
  NetPriceTable table = { 0 };
  SimTime got = 0;
  ck_assert (!net_price_find (&table, 100, 1e9, &got)); /* empty */
  net_price_store (&table, 100, 1e9, 7);
  ck_assert (net_price_find (&table, 100, 1e9, &got));
  ck_assert_uint_eq (got, 7);
  /* Find a rate and a byte count that take 100 @ 1e9's place. */
  guint place = net_price_slot_of (100, 1e9);
  double other_rate = 0;
  for (guint k = 2; other_rate == 0; k++)
    if (net_price_slot_of (100, k * 1e9) == place)
      other_rate = k * 1e9;
  guint64 other_bytes = 0;
  for (guint64 b = 101; other_bytes == 0; b++)
    if (net_price_slot_of (b, 1e9) == place)
      other_bytes = b;
  ck_assert (!net_price_find (&table, 100, other_rate, &got));
  ck_assert (!net_price_find (&table, other_bytes, 1e9, &got));
  net_price_store (&table, other_bytes, 1e9, 9);
  ck_assert (!net_price_find (&table, 100, 1e9, &got)); /* evicted */
  ck_assert (net_price_find (&table, other_bytes, 1e9, &got));
  ck_assert_uint_eq (got, 9);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("price");
  TCase *tc = tu_tcase (s, "price", NULL, NULL, 0);
  tcase_add_test (tc, test_price_hand_worked);
  tcase_add_test (tc, test_price_collisions);
  tcase_add_test (tc, test_price_find_matches_pair);
  return tu_run_suite (s);
}
