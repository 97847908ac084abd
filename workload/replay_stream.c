/* replay_stream.c: the node source of a streamed trace: a window over the
 * file (stream.h) that reads ahead as the rank starts and as its nodes
 * finish. */
#include "workload/replay_source.h"

#include "sim/units.h"
#include "workload/wl_error.h"

typedef struct
{
  WlNodeSource base;
  WlStream *stream;
  const char *path;  /* the file, for messages (borrowed from the first pass) */
  guint32 rank;
  guint32 window;
  GHashTable *map;   /* trace group id -> sys_group_index (borrowed), once resolved */
} StreamSource;

static WlNode *
stream_node (WlNodeSource *src, guint32 index)
{
  return wl_stream_node (((StreamSource *) src)->stream, index);
}

static guint8 *
stream_state (WlNodeSource *src, guint32 index)
{
  return wl_stream_state (((StreamSource *) src)->stream, index);
}

/* A node of the window is ready (a WlStreamReadyFunc). */
static void
stream_ready (gpointer data, guint32 seq)
{
  WlNodeSource *src = data;
  src->ready (src->ready_data, seq);
}

static gboolean
stream_start (WlNodeSource *src, SimTime now, GError **error)
{
  WlStreamFill fill = { .now = now, .started = FALSE, .ready = stream_ready, .data = src };
  return wl_stream_fill (((StreamSource *) src)->stream, &fill, error);
}

/* Release INDEX's dependents, then read ahead: after them, so that the
 * dependents read now, which come later in the file, are released after
 * them, as in memory. */
static gboolean
stream_release (WlNodeSource *src, guint32 index, SimTime now, GError **error)
{
  WlStream *s = ((StreamSource *) src)->stream;
  WlStreamFill fill = { .now = now, .started = TRUE, .finishing = TRUE,
                        .finishing_id = wl_stream_node (s, index)->id, .ready = stream_ready,
                        .data = src };
  wl_stream_finish (s, index, stream_ready, src);
  return wl_stream_fill (s, &fill, error);
}

/* Nothing can run although nodes are left: their dependencies lie beyond
 * the window. */
static gboolean
stream_stuck (WlNodeSource *src, SimTime now, GError **error)
{
  return wl_stream_stuck (((StreamSource *) src)->stream, now, error);
}

static const WlNode *
stream_peek (WlNodeSource *src, guint32 index, guint8 *state)
{
  WlStream *s = ((StreamSource *) src)->stream;
  if (!wl_stream_resident (s, index))
    return NULL;
  *state = *wl_stream_state (s, index);
  return wl_stream_node (s, index);
}

static void
stream_range (const WlNodeSource *src, guint32 *first, guint32 *end)
{
  const WlStream *s = ((const StreamSource *) src)->stream;
  *first = wl_stream_first (s);
  *end = wl_stream_end (s);
}

/* Nodes are resolved as they enter the window (stream_prepare). */
static void
stream_resolve (WlNodeSource *src, GHashTable *map)
{
  ((StreamSource *) src)->map = map;
}

static void
stream_prepare (gpointer data, WlNode *n)
{
  const StreamSource *ss = data;
  if (n->op != WL_OP_COLL || ss->map == NULL)
    return;
  gpointer at;
  if (g_hash_table_lookup_extended (ss->map, &n->group, NULL, &at))
    n->sys_group_index = GPOINTER_TO_UINT (at);
}

/* A run that stopped with nodes not read yet and the window full cannot
 * tell a deadlock from a window too small. */
static gboolean
stream_check_end (const WlNodeSource *src, SimTime now, GError **error)
{
  const StreamSource *ss = (const StreamSource *) src;
  if (wl_stream_read_all (ss->stream))
    return TRUE;
  g_autofree char *t = sim_units_format_time (now);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "%s: rank %u: the run stopped at %s with nodes of this trace not read yet "
               "and the memory budget's window (%u nodes) full: either the workload "
               "deadlocks, or the budget is too small to stream it; give a larger "
               "--memory-budget, or --memory-budget none, to tell", ss->path, ss->rank, t,
               ss->window);
  return FALSE;
}

static void
stream_free (WlNodeSource *src)
{
  wl_stream_free (((StreamSource *) src)->stream);
  g_free (src);
}

static const WlNodeSourceClass stream_class = {
  .node = stream_node,
  .state = stream_state,
  .start = stream_start,
  .release = stream_release,
  .stuck = stream_stuck,
  .peek = stream_peek,
  .range = stream_range,
  .resolve = stream_resolve,
  .check_end = stream_check_end,
  .free = stream_free,
};

WlNodeSource *
wl_stream_source_new (const WlStreamParams *params, GError **error)
{
  g_return_val_if_fail (params != NULL && params->scan != NULL, NULL);
  StreamSource *ss = g_new0 (StreamSource, 1);
  ss->base.klass = &stream_class;
  ss->base.path = params->scan->path;
  ss->base.n_nodes = params->scan->n_nodes;
  ss->base.n_streams = params->scan->n_streams;
  ss->path = params->scan->path;
  ss->rank = params->rank;
  ss->window = wl_stream_window_nodes (params->window);
  WlStreamParams p = *params;
  p.prepare = stream_prepare;
  p.data = ss;
  ss->stream = wl_stream_open (&p, error);
  if (ss->stream == NULL)
    {
      g_free (ss);
      return NULL;
    }
  return &ss->base;
}
