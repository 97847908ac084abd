/* deps.h: resolving a trace's dependencies and searching them for cycles.
 *
 * Models: what graph loading (graph.h), streaming (stream.h) and the
 * inspector share about dependencies: the rule that an id in both
 * data_deps and ctrl_deps is one edge, the depth-first cycle search in
 * file order, the search that checks whether a new edge closes a cycle in
 * a partly read graph, and the words of their errors (duplicate ids,
 * dangling dependencies, cycles).
 *
 * Ownership: arrays passed in are borrowed; results go to caller-owned
 * arrays.
 *
 * Layer: workload.  May include: sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_DEPS_H
#define ORRERY_WORKLOAD_DEPS_H

#include <glib.h>

#include "workload/chakra.h"

/* Graph loading's errors for a node ID of PATH whose id was seen before
 * ("PATH: node ID: the id appears twice in the trace (duplicate id)"), or
 * that comes when N_NODES is G_MAXUINT32 - 1 ("... too many nodes in one
 * trace"), and for a dangling dependency ("PATH: node CHILD depends on node
 * PARENT, which is not in the trace (dangling dependency)", then WHY when
 * not NULL).  wl_trace_id_error returns FALSE. */
gboolean wl_trace_id_error (const char *path, guint64 id, guint32 n_nodes, GError **error);
void wl_dangling_error (const char *path, guint64 child, guint64 parent, const char *why,
                        GError **error);

/* Cycle messages list at most this many ids. */
#define WL_CYCLE_MAX_IDS 20

/* Append "dependency cycle through LEN nodes: a -> b -> ... -> a (each
 * depends on the next)" for the cycle IDS[0 .. LEN-1] (each depends on the
 * next, the last on the first); at most WL_CYCLE_MAX_IDS ids are listed.
 * Shared with the inspector so that both word cycles alike. */
void wl_cycle_describe (GString *out, const guint64 *ids, guint32 len);

/* A dependency that leads to no node (dangling, or dropped). */
#define WL_CYCLE_NO_NODE G_MAXUINT32

/* Called by wl_cycle_search for each dependency that closes a cycle: slot
 * SLOT's dependency leads back to PATH[0], and PATH[0 .. LEN-1] (node
 * indices, each depending on the next, the last on PATH[0]) is the cycle.
 * PATH is borrowed for the call.  Returns FALSE to stop the search. */
typedef gboolean (*WlCycleFunc) (gpointer data, guint32 slot, const guint32 *path, guint32 len);

/* The depth-first search along dependencies that both the graph builder and
 * the inspector run: from each of the N nodes in index order, following
 * node v's dependencies in slot order, slots START[v] .. START[v + 1] - 1
 * (START holds N + 1 entries).  TARGET[slot] is the index of the node that
 * dependency leads to, or WL_CYCLE_NO_NODE (not followed).  Each edge to a
 * node on the current path is passed to ON_CYCLE and never followed, so a
 * caller may drop it.  Returns FALSE when ON_CYCLE stopped the search, and
 * FALSE with ERROR set when its arrays (13 bytes a node) cannot be
 * allocated ("out of memory allocating N x S bytes for the dependency cycle
 * search"). */
gboolean wl_cycle_search (guint32 n, const guint32 *start, const guint32 *target,
                          WlCycleFunc on_cycle, gpointer data, GError **error);

/* Set ERROR to "PATH: dependency cycle through ..." (wl_cycle_describe of
 * IDS[0 .. LEN-1]) followed by WHY when not NULL; returns FALSE. */
gboolean wl_cycle_error (const char *path, const guint64 *ids, guint32 len, const char *why,
                         GError **error);

/* N's dependencies into OUT (guint64 ids), data_deps then ctrl_deps, each
 * id once, at its first place: an id in both lists is one edge.  SORTED
 * is scratch space.  Both arrays are the caller's, reused between calls. */
void wl_deps_unique (const ChakraProtoMsg__Node *n, GArray *out, GArray *sorted);

/* Append node V's dependents (guint32 indices), in the order to search
 * them, to OUT. */
typedef void (*WlDependentsFunc) (gpointer data, guint32 v, GArray *out);

/* Whether TARGET can be reached from one of STARTS[0 .. N_STARTS-1] along
 * dependents (a depth-first search, in the order DEPENDENTS gives): the
 * question a streamed trace asks when a node read just now becomes the
 * parent of dependents that waited for it.  On TRUE, PATH (guint32) gets
 * the start, then the nodes from TARGET back to the start, exclusive: read
 * as a cycle, each depends on the next.  FALSE with ERROR set when the
 * search's index cannot grow. */
gboolean wl_cycle_reach (const guint32 *starts, guint n_starts, guint32 target,
                         WlDependentsFunc dependents, gpointer data, GArray *path,
                         GError **error);

#endif /* ORRERY_WORKLOAD_DEPS_H */
