/* replay_classes_why.c: what symmetry classes say of themselves
 * (wl_replay_classes_why): why the ranks fell into as many classes as
 * they did, or why the classes were refused, naming the group, ranks and
 * collective concerned, so that a user who sees a slow run knows what
 * kept it from simulating fewer ranks.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#include "workload/replay_private.h"

/* Ranks listed whole up to this many; more are cut in the middle. */
#define WHY_RANKS 8

void
wl_classes_why_group (GString *out, WlReplay *r, guint64 grp)
{
  guint32 n = 0;
  const guint32 *ranks = sys_group_ranks (r->sys, grp, &n);
  g_string_append_printf (out, "the group of %u ranks ", n);
  for (guint32 m = 0; m < n; m++)
    {
      if (n > WHY_RANKS && m == WHY_RANKS - 2)
        {
          g_string_append (out, ", ...");
          m = n - 2;
          continue;
        }
      g_string_append_printf (out, m == 0 ? "%u" : ", %u", ranks[m]);
    }
}

void
wl_classes_why_use (GString *out, WlReplay *r, guint64 grp, guint64 img, const WlNode *x)
{
  g_autofree char *size = g_strdup_printf ("%" G_GUINT64_FORMAT " B", x->bytes);
  g_string_append_printf (out, "%s of %s on ", sys_coll_kind_name ((SysCollKind) x->coll_kind),
                          size);
  wl_classes_why_group (out, r, grp);
  if (img != grp)
    {
      g_string_append (out, " (its image: ");
      wl_classes_why_group (out, r, img);
      g_string_append (out, ")");
    }
}

void
wl_classes_why_say (WlReplay *r, const guint32 counts[3], const WlClassesWhy *say)
{
  GString *out = r->classes_why;
  if (say->refused != NULL)
    {
      g_string_append_printf (out, "refused: %s", say->refused);
      if (say->detail != NULL && *say->detail != '\0')
        g_string_append_printf (out, ": %s", say->detail);
      return;
    }
  g_string_append_printf (out, "%u of ranks alike but for the ranks they name", counts[0]);
  if (say->roles_why != NULL)
    {
      g_string_append_printf (out, "; %u split by their places", counts[1]);
      if (say->period > 0)
        g_string_append_printf (out, " mod %u (the groups repeat node by node)", say->period);
      g_string_append_printf (out, " in groups whose members play roles (%s: %s)",
                              say->roles_why, say->roles_use);
      if (say->period_why != NULL)
        {
          g_string_append_printf (out, "; %s places not taken mod a period: %s",
                                  say->period > 0 ? "some" : "the", say->period_why);
          if (say->period_detail != NULL && *say->period_detail != '\0')
            g_string_append_printf (out, ": %s", say->period_detail);
        }
    }
  if (counts[2] != counts[1])
    g_string_append_printf (out, "; %u split by the classes of their sends' and receives' "
                            "peers", counts[2]);
}

const char *
wl_replay_classes_why (const WlReplay *r)
{
  return r->classes_why != NULL && r->classes_why->len > 0 ? r->classes_why->str : NULL;
}
