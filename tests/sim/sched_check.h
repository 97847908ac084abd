/* sched_check.h: what the two scheduler suites (test_sched.c and
 * test_sched_reference.c) share: a quiet assertion for loops over many
 * events, and the width of the queue's level-2 buckets.
 *
 * Layer: tests.  May include: sim, check.
 */
#ifndef ORRERY_TESTS_SIM_SCHED_CHECK_H
#define ORRERY_TESTS_SIM_SCHED_CHECK_H

#include <check.h>
#include <glib.h>

#include "sim/queue.h"

/* For checks inside loops over many events: Check's own assertions record
 * their location through the runner's pipe on every call, even when they
 * pass, which would dominate the run time. */
#define CHECK_QUIET(expr, ...)                                                                     \
  do                                                                                               \
    {                                                                                              \
      if (G_UNLIKELY (!(expr)))                                                                    \
        ck_abort_msg (__VA_ARGS__);                                                                \
    }                                                                                              \
  while (0)

/* The start of digit d's bucket at level 2, relative to floor 0: every
 * time in [LEVEL2 (d), LEVEL2 (d + 1)) shares it. */
#define LEVEL2(d) ((SimTime) (d) << (2 * SIM_QUEUE_RADIX_BITS))

#endif /* ORRERY_TESTS_SIM_SCHED_CHECK_H */
