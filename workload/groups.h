/* groups.h: process groups: named sets of ranks that run collectives together.
 *
 * Models: a group id is a non-negative integer written as a decimal string
 * ("1"; some writers emit "1.0", the same id).  Groups come from a comm-group
 * JSON ({"<id>": [ranks...]}), from METADATA nodes, or from the cluster XML.
 * An id without a definition, and the empty name, mean all ranks.
 *
 * Ownership: WlGroups owns copies of the rank lists.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GROUPS_H
#define ORRERY_WORKLOAD_GROUPS_H

#include <glib.h>

typedef struct _WlGroups WlGroups;

WlGroups *wl_groups_new (void);
void wl_groups_free (WlGroups *groups); /* accepts NULL */

/* Parse a group name ("3", "3.0", "" for all ranks) into an id.  The empty
 * name gives WL_GROUP_ALL.  FALSE (no error set) for anything else. */
#define WL_GROUP_ALL G_MAXUINT64
gboolean wl_group_id_parse (const char *name, guint64 *id);

/* Whether RANKS[0 .. N-1] name each rank at most once: else FALSE with
 * "process group ID lists rank R twice".  Every source of groups (comm-group
 * JSON, cluster XML, METADATA nodes) is checked by this one rule. */
gboolean wl_group_ranks_check (guint64 id, const guint32 *ranks, guint n, GError **error);

/* Define group `id` with n distinct ranks (copied, kept in the given order).
 * Fails on an empty list, a repeated rank, or an id defined twice. */
gboolean wl_groups_define (WlGroups *groups, guint64 id, const guint32 *ranks, guint n,
                           GError **error);

/* The ranks of group `id`, or NULL if it is not defined. */
const guint32 *wl_groups_lookup (const WlGroups *groups, guint64 id, guint *n);

guint wl_groups_count (const WlGroups *groups);

/* The defined ids, ascending (a new GArray of guint64). */
GArray *wl_groups_ids (const WlGroups *groups);

/* The largest rank named by any group, or -1 when there are none. */
gint64 wl_groups_max_rank (const WlGroups *groups);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGroups, wl_groups_free)

#endif /* ORRERY_WORKLOAD_GROUPS_H */
