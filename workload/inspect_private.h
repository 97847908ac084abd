/* inspect_private.h: what inspect.c (reading and checking each file) and
 * inspect_report.c (the cross-rank comparison, the accessors and the
 * printed report) share: a report's fields.
 *
 * Layer: workload.  May include: GLib, workload.
 */
#ifndef ORRERY_WORKLOAD_INSPECT_PRIVATE_H
#define ORRERY_WORKLOAD_INSPECT_PRIVATE_H

#include <glib.h>

#include "workload/group_memo.h"
#include "workload/inspect.h"

/* One COMM_COLL node, as the cross-rank comparison sees it; -1 for absent. */
typedef struct
{
  guint64 id;
  gint64 type;
  gint64 size;
  char *pg; /* "" when absent */
} CollEntry;

typedef struct
{
  char *path;
  guint32 rank;
  GArray *colls; /* CollEntry, file order */
} RankInfo;

struct _WlInspectReport
{
  GArray *ranks;     /* RankInfo */
  GArray *figures;   /* WlInspectRank, parallel to ranks */
  GPtrArray *defects; /* char * */
  WlGroupMemo *groups; /* METADATA lists, each checked once (group_memo.h) */
  GHashTable *group_first; /* group id -> GroupFirst: where it was first defined */
  guint lists;             /* METADATA lists read so far */
};

/* Every rank's collectives compared, group by group, with those of the
 * first rank that uses the group; each disagreement a defect. */
void wl_inspect_compare_sequences (WlInspectReport *report);

#endif /* ORRERY_WORKLOAD_INSPECT_PRIVATE_H */
