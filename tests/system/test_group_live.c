/* test_group_live.c: a group's table of live collectives by sequence number
 * (SysGroup.live, system/group.c) finds each live one by its number, nothing
 * for a number not live (also one that shares its place), and grows when
 * two live numbers would share a place.
 *
 * Places are s mod the table's size (a power of two), so the expected sizes
 * are worked by hand: numbers 0 .. 19 all live need 32 places (at 16, 0 and
 * 16 share one); 5 and 13 need 16 (at 8 they share place 5).  The table
 * never reads a collective, so distinct addresses stand for them.
 */
#include <check.h>

#include "support/testutil.h"
#include "system/sys_private.h"

static char colls[64];

static SysColl *
coll (guint i)
{
  return (SysColl *) &colls[i];
}

/* A group with only its live table, as sys_group_new starts it (8 places). */
static void
group_init (SysGroup *g)
{
  *g = (SysGroup) { .live_cap = 8 };
  g->live = g_new0 (SysLiveSlot, g->live_cap);
}

START_TEST (test_live_grow)
{
  SysGroup g;
  group_init (&g);
  for (guint32 s = 0; s < 20; s++)
    sys_group_live_add (&g, s, coll (s));
  ck_assert_uint_eq (g.live_cap, 32);
  for (guint32 s = 0; s < 20; s++)
    ck_assert_ptr_eq (sys_group_live (&g, s), coll (s));
  ck_assert_ptr_null (sys_group_live (&g, 20)); /* a free place */
  ck_assert_ptr_null (sys_group_live (&g, 36)); /* place 4, which 4 holds */
  g_free (g.live);
}
END_TEST

START_TEST (test_live_remove)
{
  SysGroup g;
  group_init (&g);
  sys_group_live_add (&g, 5, coll (5));
  ck_assert_uint_eq (g.live_cap, 8);
  sys_group_live_add (&g, 13, coll (13));
  ck_assert_uint_eq (g.live_cap, 16);
  sys_group_live_remove (&g, 5);
  ck_assert_ptr_null (sys_group_live (&g, 5));
  ck_assert_ptr_eq (sys_group_live (&g, 13), coll (13));
  /* 21 takes place 5, free again: no growth. */
  sys_group_live_add (&g, 21, coll (21));
  ck_assert_uint_eq (g.live_cap, 16);
  ck_assert_ptr_eq (sys_group_live (&g, 21), coll (21));
  ck_assert_ptr_null (sys_group_live (&g, 5));
  sys_group_live_remove (&g, 13);
  sys_group_live_remove (&g, 21);
  for (guint32 s = 0; s < 64; s++)
    ck_assert_ptr_null (sys_group_live (&g, s));
  g_free (g.live);
}
END_TEST

/* Sequence numbers wrap at 2^32: the last and the first share nothing. */
START_TEST (test_live_wrap)
{
  SysGroup g;
  group_init (&g);
  sys_group_live_add (&g, G_MAXUINT32, coll (1));
  sys_group_live_add (&g, 0, coll (2));
  ck_assert_uint_eq (g.live_cap, 8);
  ck_assert_ptr_eq (sys_group_live (&g, G_MAXUINT32), coll (1));
  ck_assert_ptr_eq (sys_group_live (&g, 0), coll (2));
  ck_assert_ptr_null (sys_group_live (&g, 7));
  g_free (g.live);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("group_live");
  TCase *tc = tu_tcase (s, "group_live", NULL, NULL, 0);
  tcase_add_test (tc, test_live_grow);
  tcase_add_test (tc, test_live_remove);
  tcase_add_test (tc, test_live_wrap);
  return tu_run_suite (s);
}
