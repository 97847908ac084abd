/* timeline.c: a finished run as a Chrome trace-event JSON file.
 *
 * The file is written in three passes over the recorded nodes: first every
 * selected rank's nodes are spread over lanes (per thread, greedy interval
 * partitioning in start order, the lowest free lane first), then each rank's
 * metadata and complete events are written in node order, then the flow
 * arrows of point-to-point messages, after every slice they bind to.  Text
 * goes through a 64 KiB buffer to zlib (timeline_out.h: compressing for
 * ".gz", transparent otherwise), so memory is the records plus a lane
 * number per node, never the JSON.  Numbers are formatted with integer arithmetic only: times in
 * microseconds with six decimals are exact picoseconds.
 *
 * Args of a complete event: node_id, type (the Chakra node type, or the
 * replay operation for types orrery does not know), bytes (communication
 * and memory nodes), collective, group ("all" or the group id, always a
 * string so that the field has one type) and algorithm (collectives), peer
 * and tag (sends and receives).
 *
 * Layer: sim/app.  May include: every layer.
 */
#include "sim/app/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "sim/app/timeline_out.h"
#include "sim/error.h"
#include "sim/units.h"
#include "system/algo.h"
#include "system/sys_params.h"
#include "workload/chakra.h"

#define TL_NO_LANE G_MAXUINT32

/* The threads of a rank's process; a thread's lane l has tid l * TL_N_THREADS
 * + thread, so lane 0 of each thread keeps a fixed tid. */
typedef enum
{
  TL_THREAD_COMPUTE,
  TL_THREAD_COMM,
  TL_THREAD_CPU,
  TL_THREAD_OTHER,
  TL_N_THREADS
} TlThread;

static const char *const thread_names[TL_N_THREADS] = { "compute", "communication", "cpu",
                                                         "other" };

typedef guint32 TlLaneCounts[TL_N_THREADS];

typedef struct
{
  guint32 lo, hi; /* inclusive */
} TlRange;

typedef struct
{
  WlReplay *replay;
  const SysParams *params;
  guint32 n_ranks;
  gboolean *keep_rank;        /* per rank */
  gboolean windowed;
  SimTime from, to;
  guint32 **lanes;            /* per rank (NULL if not kept): per node, or TL_NO_LANE */
  TlLaneCounts *n_lanes;      /* per rank: lanes used by each thread */
  char *algorithms[SYS_COLL_N]; /* per kind: names joined by "," */
  AppTimelineOut *out;        /* from app_timeline_out_open to _close */
} Timeline;

/* ---- filters ------------------------------------------------------------------ */

static gboolean
bad_filter (GError **error, const char *option, const char *text, const char *why)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--%s: '%s': %s", option, text, why);
  return FALSE;
}

/* A rank: decimal digits only, below 2^32. */
static gboolean
parse_rank (const char *text, guint32 *out)
{
  if (*text == '\0')
    return FALSE;
  guint64 v = 0;
  for (const char *p = text; *p != '\0'; p++)
    {
      if (!g_ascii_isdigit (*p))
        return FALSE;
      v = v * 10 + (guint64) (*p - '0');
      if (v > G_MAXUINT32)
        return FALSE;
    }
  *out = (guint32) v;
  return TRUE;
}

/* "R" or "LO-HI", blanks around it allowed. */
static gboolean
parse_rank_item (const char *whole, const char *raw, TlRange *out, GError **error)
{
  g_autofree char *item = g_strstrip (g_strdup (raw));
  if (*item == '\0')
    return bad_filter (error, "timeline-ranks", whole, "empty item (expected e.g. 0-7,64)");
  char *dash = strchr (item, '-');
  if (dash != NULL)
    *dash = '\0';
  const char *hi_text = dash != NULL ? g_strstrip (dash + 1) : item;
  g_strchomp (item);
  if (!parse_rank (item, &out->lo) || !parse_rank (hi_text, &out->hi))
    {
      g_autofree char *shown = g_strstrip (g_strdup (raw));
      g_autofree char *why = g_strdup_printf ("'%s' is not a rank or a range LO-HI "
                                              "(expected e.g. 0-7,64)", shown);
      return bad_filter (error, "timeline-ranks", whole, why);
    }
  if (out->lo > out->hi)
    return bad_filter (error, "timeline-ranks", whole, "a range goes from low to high");
  return TRUE;
}

/* Comma-separated ranks and inclusive ranges, appended to `ranges`. */
static gboolean
parse_rank_list (const char *text, GArray *ranges, GError **error)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  if (items[0] == NULL)
    return bad_filter (error, "timeline-ranks", text, "empty list (expected e.g. 0-7,64)");
  for (guint i = 0; items[i] != NULL; i++)
    {
      TlRange r;
      if (!parse_rank_item (text, items[i], &r, error))
        return FALSE;
      g_array_append_val (ranges, r);
    }
  return TRUE;
}

static gboolean
parse_window_side (const char *whole, const char *raw, const char *name, SimTime *out,
                   GError **error)
{
  g_autofree char *side = g_strstrip (g_strdup (raw));
  /* "-1ms" and "1ms-" hold no FROM or no TO ("'' is not a time" said
   * nothing of which, or that times here are never negative). */
  if (*side == '\0')
    {
      g_autofree char *why = g_strdup_printf ("%s is missing: expected FROM-TO, e.g. 10ms-20ms "
                                              "(times from the start, never negative)", name);
      return bad_filter (error, "timeline-window", whole, why);
    }
  GError *sub = NULL;
  if (sim_units_parse_time (side, out, &sub))
    return TRUE;
  bad_filter (error, "timeline-window", whole, sub->message);
  g_error_free (sub);
  return FALSE;
}

/* "FROM-TO", both times with units, FROM < TO.  Times hold no '-', so the
 * only '-' separates them. */
static gboolean
parse_window (const char *text, SimTime *from, SimTime *to, GError **error)
{
  const char *dash = strchr (text, '-');
  if (dash == NULL || strchr (dash + 1, '-') != NULL)
    return bad_filter (error, "timeline-window", text, "expected FROM-TO, e.g. 10ms-20ms");
  g_autofree char *left = g_strndup (text, (gsize) (dash - text));
  if (!parse_window_side (text, left, "FROM", from, error)
      || !parse_window_side (text, dash + 1, "TO", to, error))
    return FALSE;
  if (*from >= *to)
    return bad_filter (error, "timeline-window", text, "FROM must be before TO");
  return TRUE;
}

gboolean
app_timeline_check_filters (const char *ranks, const char *window, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  if (ranks != NULL)
    {
      g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (TlRange));
      if (!parse_rank_list (ranks, ranges, error))
        return FALSE;
    }
  SimTime from, to;
  return window == NULL || parse_window (window, &from, &to, error);
}

/* Fill tl->keep_rank from the list (NULL: every rank). */
static gboolean
select_ranks (Timeline *tl, const char *ranks, GError **error)
{
  tl->keep_rank = g_new0 (gboolean, tl->n_ranks);
  if (ranks == NULL)
    {
      for (guint32 r = 0; r < tl->n_ranks; r++)
        tl->keep_rank[r] = TRUE;
      return TRUE;
    }
  g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (TlRange));
  if (!parse_rank_list (ranks, ranges, error))
    return FALSE;
  for (guint i = 0; i < ranges->len; i++)
    {
      TlRange r = g_array_index (ranges, TlRange, i);
      if (r.hi >= tl->n_ranks)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "--timeline-ranks: rank %u is beyond this run's %u ranks (0-%u)", r.hi,
                       tl->n_ranks, tl->n_ranks - 1);
          return FALSE;
        }
      for (guint64 k = r.lo; k <= r.hi; k++)
        tl->keep_rank[k] = TRUE;
    }
  return TRUE;
}

/* A node that finished, and overlaps the window if there is one. */
static gboolean
keep_node (const Timeline *tl, const WlNodeRecord *rec)
{
  if (rec->start == SIM_TIME_MAX || rec->end == SIM_TIME_MAX)
    return FALSE;
  if (!tl->windowed)
    return TRUE;
  if (rec->start == rec->end)
    return rec->start >= tl->from && rec->start <= tl->to;
  return rec->start < tl->to && rec->end > tl->from;
}

/* ---- lanes -------------------------------------------------------------------- */

typedef struct
{
  SimTime start, end;
  guint32 index;
  guint32 thread;
} TlSpan;

typedef struct
{
  guint64 key;
  guint32 lane;
} LaneSlot;

/* A binary min-heap of slots ordered by (key, lane). */
typedef struct
{
  LaneSlot *v;
  guint n, cap;
} LaneHeap;

static gboolean
slot_less (const LaneSlot *a, const LaneSlot *b)
{
  return a->key < b->key || (a->key == b->key && a->lane < b->lane);
}

static void
heap_push (LaneHeap *h, guint64 key, guint32 lane)
{
  if (h->n == h->cap)
    {
      h->cap = h->cap == 0 ? 16 : h->cap * 2;
      h->v = g_renew (LaneSlot, h->v, h->cap);
    }
  guint i = h->n++;
  h->v[i] = (LaneSlot) { key, lane };
  while (i > 0 && slot_less (&h->v[i], &h->v[(i - 1) / 2]))
    {
      LaneSlot t = h->v[i];
      h->v[i] = h->v[(i - 1) / 2];
      h->v[(i - 1) / 2] = t;
      i = (i - 1) / 2;
    }
}

static LaneSlot
heap_pop (LaneHeap *h)
{
  LaneSlot top = h->v[0];
  h->v[0] = h->v[--h->n];
  guint i = 0;
  for (;;)
    {
      guint m = i, l = 2 * i + 1, r = l + 1;
      if (l < h->n && slot_less (&h->v[l], &h->v[m]))
        m = l;
      if (r < h->n && slot_less (&h->v[r], &h->v[m]))
        m = r;
      if (m == i)
        return top;
      LaneSlot t = h->v[i];
      h->v[i] = h->v[m];
      h->v[m] = t;
      i = m;
    }
}

static int
span_cmp (const void *pa, const void *pb)
{
  const TlSpan *a = pa, *b = pb;
  if (a->thread != b->thread)
    return a->thread < b->thread ? -1 : 1;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Spans of one thread, sorted by start: each goes on the lowest-numbered
 * lane whose last span ended by its start.  Returns the lanes used. */
static guint32
partition (const TlSpan *spans, guint n, guint32 *lanes)
{
  LaneHeap busy = { 0 }, idle = { 0 };
  guint32 used = 0;
  for (guint i = 0; i < n; i++)
    {
      while (busy.n > 0 && busy.v[0].key <= spans[i].start)
        {
          LaneSlot s = heap_pop (&busy);
          heap_push (&idle, s.lane, s.lane);
        }
      guint32 lane = idle.n > 0 ? heap_pop (&idle).lane : used++;
      lanes[spans[i].index] = lane;
      heap_push (&busy, spans[i].end, lane);
    }
  g_free (busy.v);
  g_free (idle.v);
  return used;
}

static TlThread
op_thread (WlOp op)
{
  switch (op)
    {
    case WL_OP_COMP:
      return TL_THREAD_COMPUTE;
    case WL_OP_COLL:
    case WL_OP_SEND:
    case WL_OP_RECV:
      return TL_THREAD_COMM;
    case WL_OP_CPU:
      return TL_THREAD_CPU;
    case WL_OP_SKIP:
    case WL_OP_MEM:
    default:
      return TL_THREAD_OTHER;
    }
}

/* The lane of each kept node of `rank` (TL_NO_LANE for the others), and the
 * lanes each thread uses; NULL with ERROR set when they cannot be
 * allocated (app_timeline_node_bytes a node). */
static guint32 *
rank_lanes (const Timeline *tl, guint32 rank, guint32 n_lanes[TL_N_THREADS], GError **error)
{
  const WlGraph *g = wl_replay_graph (tl->replay, rank);
  const WlNodeRecord *rec = wl_replay_records (tl->replay, rank);
  g_autofree TlSpan *spans = sim_try_alloc (g->n_nodes, sizeof (TlSpan), FALSE,
                                            "a rank's spans in the timeline", error);
  if (spans == NULL)
    return NULL;
  guint32 *lanes = sim_try_alloc (g->n_nodes, sizeof (guint32), FALSE,
                                  "a rank's lanes in the timeline", error);
  if (lanes == NULL)
    return NULL;
  guint n = 0;
  for (guint32 i = 0; i < g->n_nodes; i++)
    {
      lanes[i] = TL_NO_LANE;
      if (keep_node (tl, &rec[i]))
        spans[n++] = (TlSpan) { rec[i].start, rec[i].end, i, op_thread (g->nodes[i].op) };
    }
  qsort (spans, n, sizeof (TlSpan), span_cmp);
  for (guint k = 0; k < TL_N_THREADS; k++)
    n_lanes[k] = 0;
  for (guint a = 0; a < n;)
    {
      guint b = a;
      while (b < n && spans[b].thread == spans[a].thread)
        b++;
      n_lanes[spans[a].thread] = partition (spans + a, b - a, lanes);
      a = b;
    }
  return lanes;
}

static void
append_pid_tid (GString *s, guint32 pid, guint64 tid)
{
  g_string_append (s, ",\"pid\":");
  app_timeline_append_u64 (s, pid);
  g_string_append (s, ",\"tid\":");
  app_timeline_append_u64 (s, tid);
}

/* ---- events ------------------------------------------------------------------- */

static guint64
lane_tid (TlThread thread, guint32 lane)
{
  return (guint64) lane * TL_N_THREADS + thread;
}

static void
write_header (Timeline *tl, SimTime end, const char *ranks, const char *window)
{
  GString *s = app_timeline_out_text (tl->out);
  g_string_append (s, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"orrery\"");
  app_timeline_append_key (s, "simulated_end_ps");
  app_timeline_append_u64 (s, end);
  app_timeline_append_key (s, "simulated_end_us");
  app_timeline_append_us (s, end);
  app_timeline_append_key (s, "ranks");
  app_timeline_append_u64 (s, tl->n_ranks);
  if (ranks != NULL)
    {
      app_timeline_append_key (s, "timeline_ranks");
      app_timeline_append_string (s, ranks);
    }
  if (window != NULL)
    {
      app_timeline_append_key (s, "timeline_window");
      app_timeline_append_string (s, window);
    }
  g_string_append (s, "},\"traceEvents\":[\n");
}

/* A metadata event's start: name, phase and pid; the caller adds the rest
 * through meta_tid and meta_args_*. */
static GString *
meta_begin (Timeline *tl, const char *what, guint32 pid)
{
  GString *s = app_timeline_out_event (tl->out);
  g_string_append (s, "{\"name\":\"");
  g_string_append (s, what);
  g_string_append (s, "\",\"ph\":\"M\",\"pid\":");
  app_timeline_append_u64 (s, pid);
  return s;
}

static void
meta_tid (GString *s, guint64 tid)
{
  g_string_append (s, ",\"tid\":");
  app_timeline_append_u64 (s, tid);
}

static void
meta_args_name (GString *s, const char *name)
{
  g_string_append (s, ",\"args\":{\"name\":");
  app_timeline_append_string (s, name);
  g_string_append (s, "}}");
}

static void
meta_args_sort (GString *s, guint64 sort_index)
{
  g_string_append (s, ",\"args\":{\"sort_index\":");
  app_timeline_append_u64 (s, sort_index);
  g_string_append (s, "}}");
}

/* The process of `rank` and the threads (lanes) it uses, in thread order. */
static void
write_rank_meta (Timeline *tl, guint32 rank)
{
  g_autofree char *pname = g_strdup_printf ("rank %u", rank);
  meta_args_name (meta_begin (tl, "process_name", rank), pname);
  meta_args_sort (meta_begin (tl, "process_sort_index", rank), rank);
  guint64 order = 0;
  for (guint k = 0; k < TL_N_THREADS; k++)
    for (guint32 l = 0; l < tl->n_lanes[rank][k]; l++)
      {
        g_autofree char *tname = l == 0 ? g_strdup (thread_names[k])
                                        : g_strdup_printf ("%s #%u", thread_names[k], l + 1);
        GString *s = meta_begin (tl, "thread_name", rank);
        meta_tid (s, lane_tid (k, l));
        meta_args_name (s, tname);
        s = meta_begin (tl, "thread_sort_index", rank);
        meta_tid (s, lane_tid (k, l));
        meta_args_sort (s, order++);
      }
}

static const char *
op_category (WlOp op)
{
  static const char *const cats[] = { [WL_OP_SKIP] = "other", [WL_OP_COMP] = "compute",
                                      [WL_OP_CPU] = "cpu",    [WL_OP_COLL] = "comm",
                                      [WL_OP_SEND] = "comm",  [WL_OP_RECV] = "comm",
                                      [WL_OP_MEM] = "memory" };
  return op < G_N_ELEMENTS (cats) ? cats[op] : "other";
}

/* The Chakra type's name, or the replay operation for unknown types. */
static const char *
node_type (const WlNode *n)
{
  static const char *const ops[] = { [WL_OP_SKIP] = "skip", [WL_OP_COMP] = "comp",
                                     [WL_OP_CPU] = "cpu",   [WL_OP_COLL] = "coll",
                                     [WL_OP_SEND] = "send", [WL_OP_RECV] = "recv",
                                     [WL_OP_MEM] = "mem" };
  const char *t = wl_chakra_node_type_name (n->chakra_type);
  if (t != NULL)
    return t;
  return n->op < G_N_ELEMENTS (ops) ? ops[n->op] : "unknown";
}

static void
append_comm_args (const Timeline *tl, GString *s, guint32 rank, const WlNode *n)
{
  if (n->op == WL_OP_COLL)
    {
      app_timeline_append_key (s, "collective");
      app_timeline_append_string (s, sys_coll_kind_name (n->coll_kind));
      app_timeline_append_key (s, "group");
      guint64 group = wl_replay_node_group (tl->replay, n);
      if (group == SYS_GROUP_WORLD)
        g_string_append (s, "\"all\"");
      else
        {
          g_string_append_c (s, '"');
          app_timeline_append_u64 (s, group);
          g_string_append_c (s, '"');
        }
      app_timeline_append_key (s, "algorithm");
      app_timeline_append_string (s, n->coll_kind < SYS_COLL_N ? tl->algorithms[n->coll_kind] : "");
    }
  else if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    {
      guint32 peer = n->op == WL_OP_SEND ? n->peer_dst : n->peer_src;
      app_timeline_append_key (s, "peer");
      app_timeline_append_u64 (s, peer == WL_RANK_SELF ? rank : peer);
      app_timeline_append_key (s, "tag");
      g_string_append_printf (s, "%d", n->tag);
      const char *exchange = n->exchange != 0
                                 ? wl_replay_exchange_name (tl->replay, rank, n->exchange - 1)
                                 : NULL;
      if (exchange != NULL)
        {
          app_timeline_append_key (s, "exchange");
          app_timeline_append_string (s, exchange);
        }
    }
}

/* One complete event for node `i` of `rank`. */
static void
write_node (Timeline *tl, guint32 rank, const WlGraph *g, const WlNodeRecord *rec, guint32 i)
{
  const WlNode *n = &g->nodes[i];
  const char *type = node_type (n);
  GString *s = app_timeline_out_event (tl->out);
  g_string_append (s, "{\"name\":");
  const char *name = g->names != NULL ? g->names[i] : NULL;
  if (name != NULL && *name != '\0')
    app_timeline_append_string (s, name);
  else
    {
      g_autofree char *fallback = g_strdup_printf ("%s %" G_GUINT64_FORMAT, type, n->id);
      app_timeline_append_string (s, fallback);
    }
  g_string_append (s, ",\"cat\":\"");
  g_string_append (s, op_category (n->op));
  g_string_append (s, "\",\"ph\":\"X\"");
  append_pid_tid (s, rank, lane_tid (op_thread (n->op), tl->lanes[rank][i]));
  g_string_append (s, ",\"ts\":");
  app_timeline_append_us (s, rec->start);
  g_string_append (s, ",\"dur\":");
  app_timeline_append_us (s, rec->end - rec->start);
  g_string_append (s, ",\"args\":{\"node_id\":");
  app_timeline_append_u64 (s, n->id);
  app_timeline_append_key (s, "type");
  app_timeline_append_string (s, type);
  if (n->op == WL_OP_COLL || n->op == WL_OP_SEND || n->op == WL_OP_RECV || n->op == WL_OP_MEM)
    {
      app_timeline_append_key (s, "bytes");
      app_timeline_append_u64 (s, n->bytes);
    }
  append_comm_args (tl, s, rank, n);
  g_string_append (s, "}}");
}

static void
write_rank (Timeline *tl, guint32 rank)
{
  const WlGraph *g = wl_replay_graph (tl->replay, rank);
  const WlNodeRecord *rec = wl_replay_records (tl->replay, rank);
  write_rank_meta (tl, rank);
  for (guint32 i = 0; i < g->n_nodes; i++)
    if (tl->lanes[rank][i] != TL_NO_LANE)
      write_node (tl, rank, g, &rec[i], i);
}

/* One end of a flow arrow. */
typedef struct
{
  guint32 pid;
  guint64 tid;
  SimTime ts;
} TlFlowEnd;

static void
write_flow_end (Timeline *tl, char ph, guint64 id, const TlFlowEnd *end)
{
  GString *s = app_timeline_out_event (tl->out);
  g_string_append (s, "{\"name\":\"message\",\"cat\":\"p2p\",\"ph\":\"");
  g_string_append_c (s, ph);
  g_string_append (s, ph == 'f' ? "\",\"bp\":\"e\",\"id\":" : "\",\"id\":");
  app_timeline_append_u64 (s, id);
  append_pid_tid (s, end->pid, end->tid);
  g_string_append (s, ",\"ts\":");
  app_timeline_append_us (s, end->ts);
  g_string_append_c (s, '}');
}

/* Where the arrow lands: 1 ns before the receive ends, so that viewers that
 * keep nanoseconds still see it inside the slice; its start when shorter. */
static SimTime
arrival_time (const WlNodeRecord *recv)
{
  return recv->end - recv->start >= SIM_PS_PER_NS ? recv->end - SIM_PS_PER_NS : recv->start;
}

/* Arrows from each written send to its written receive, numbered in output
 * order. */
static void
write_flows (Timeline *tl)
{
  guint64 next_id = 1;
  for (guint32 r = 0; r < tl->n_ranks; r++)
    {
      if (!tl->keep_rank[r])
        continue;
      const WlGraph *g = wl_replay_graph (tl->replay, r);
      const WlNodeRecord *rec = wl_replay_records (tl->replay, r);
      for (guint32 i = 0; i < g->n_nodes; i++)
        {
          if (g->nodes[i].op != WL_OP_SEND || tl->lanes[r][i] == TL_NO_LANE)
            continue;
          guint32 pr = rec[i].peer_rank, pi = rec[i].peer_index;
          if (pr == WL_NO_NODE || pr >= tl->n_ranks || !tl->keep_rank[pr]
              || tl->lanes[pr][pi] == TL_NO_LANE)
            continue;
          const WlNodeRecord *recv = &wl_replay_records (tl->replay, pr)[pi];
          TlFlowEnd from = { r, lane_tid (TL_THREAD_COMM, tl->lanes[r][i]), rec[i].start };
          TlFlowEnd to = { pr, lane_tid (TL_THREAD_COMM, tl->lanes[pr][pi]),
                           arrival_time (recv) };
          guint64 id = next_id++;
          write_flow_end (tl, 's', id, &from);
          write_flow_end (tl, 'f', id, &to);
        }
    }
}

/* ---- driver ------------------------------------------------------------------- */

static void
timeline_clear (Timeline *tl)
{
  for (guint32 r = 0; tl->lanes != NULL && r < tl->n_ranks; r++)
    g_free (tl->lanes[r]);
  g_free (tl->lanes);
  g_free (tl->n_lanes);
  g_free (tl->keep_rank);
  for (guint k = 0; k < SYS_COLL_N; k++)
    g_free (tl->algorithms[k]);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Timeline, timeline_clear)

static void
join_algorithms (Timeline *tl)
{
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      if (tl->params->program[k] != NULL)
        {
          /* A program runs the kind whatever the lists say. */
          tl->algorithms[k] = g_strdup (tl->params->program[k]->name);
          continue;
        }
      GString *names = g_string_new (NULL);
      for (guint i = 0; i < tl->params->n_impl[k]; i++)
        {
          if (i > 0)
            g_string_append_c (names, ',');
          g_string_append (names, tl->params->impl[k][i]);
        }
      tl->algorithms[k] = g_string_free (names, FALSE);
    }
}

guint
app_timeline_node_bytes (void)
{
  return (guint) (sizeof (guint32) + sizeof (TlSpan));
}

gboolean
app_timeline_write (const AppSim *sim, const char *path, const char *ranks, const char *window,
                    GError **error)
{
  g_return_val_if_fail (sim != NULL && path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_auto (Timeline) tl = { 0 };
  tl.replay = app_sim_replay (sim);
  tl.params = sys_params (app_sim_sys (sim));
  tl.n_ranks = wl_replay_ranks (tl.replay);
  if (tl.n_ranks == 0 || wl_replay_records (tl.replay, 0) == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INTERNAL,
                   "timeline %s: per-node recording was off during the run", path);
      return FALSE;
    }
  if (!select_ranks (&tl, ranks, error))
    return FALSE;
  if (window != NULL && !parse_window (window, &tl.from, &tl.to, error))
    return FALSE;
  tl.windowed = window != NULL;
  join_algorithms (&tl);
  tl.lanes = g_new0 (guint32 *, tl.n_ranks);
  tl.n_lanes = g_new0 (TlLaneCounts, tl.n_ranks);
  for (guint32 r = 0; r < tl.n_ranks; r++)
    if (tl.keep_rank[r] && (tl.lanes[r] = rank_lanes (&tl, r, tl.n_lanes[r], error)) == NULL)
      return FALSE;

  tl.out = app_timeline_out_open (path, error);
  if (tl.out == NULL)
    return FALSE;
  write_header (&tl, app_sim_end_time (sim), ranks, window);
  for (guint32 r = 0; r < tl.n_ranks; r++)
    if (tl.keep_rank[r])
      write_rank (&tl, r);
  write_flows (&tl);
  g_string_append (app_timeline_out_text (tl.out), "\n]}\n");
  return app_timeline_out_close (tl.out, error);
}
