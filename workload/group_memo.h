/* group_memo.h: METADATA process-group lists parsed once per distinct list.
 *
 * Models: every file of a generated trace carries the same METADATA node,
 * whose JSON list names every process group of the run (its size grows
 * with the ranks), so parsing it in each file is quadratic in ranks.  The
 * memo keys each parse by the list's exact bytes: a list seen before costs
 * a hash and a comparison, and its groups' rank arrays are shared (by
 * reference) among the files that carry it.  A list that fails to parse
 * fails again, with the same message and the same groups read before the
 * fault, exactly as wl_group_defs_parse would; a list that parses but
 * names a rank twice in a group fails with wl_group_defs_fault's message
 * (owned by the memo).  Time: linear in the bytes
 * of the lists looked up, plus one parse per distinct list.
 *
 * Threads: the memo may be used from several threads at once (a lock
 * around each look-up and parse).
 *
 * Ownership: the memo holds a copy of each distinct list and its parsed
 * groups; wl_group_memo_parse appends new references to DEFS.
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GROUP_MEMO_H
#define ORRERY_WORKLOAD_GROUP_MEMO_H

#include <glib.h>

#include "workload/node.h"

WlGroupMemo *wl_group_memo_new (void);
void wl_group_memo_free (WlGroupMemo *memo); /* accepts NULL */

/* wl_group_defs_parse (JSON, DEFS), parsing JSON only the first time the
 * memo sees it: the same return value (NULL, the same static message, or
 * the groups' fault, valid while the memo lives) and the same groups
 * appended to DEFS, their rank arrays shared with the memo. */
const char *wl_group_memo_parse (WlGroupMemo *memo, const char *json, GArray *defs);

/* Distinct lists parsed so far. */
guint wl_group_memo_size (const WlGroupMemo *memo);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGroupMemo, wl_group_memo_free)

#endif /* ORRERY_WORKLOAD_GROUP_MEMO_H */
