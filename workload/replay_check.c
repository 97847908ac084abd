/* replay_check.c: the replay's checks of a trace, noted in one pass. */
#include "workload/replay_check.h"

#include "workload/wl_error.h"

WlTraceCheck *
wl_trace_check_new (const char *path, const WlParams *params, guint32 n_ranks,
                    WlTraceNodeHook hook, gpointer hook_data)
{
  WlTraceCheck *c = g_new0 (WlTraceCheck, 1);
  c->path = path;
  c->params = params;
  c->n_ranks = n_ranks;
  c->hook = hook;
  c->hook_data = hook_data;
  c->first_self_at = c->other_self_at = c->bad_peer_at = G_MAXUINT64;
  c->colls = g_array_new (FALSE, FALSE, sizeof (WlCollGroup));
  c->seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  return c;
}

void
wl_trace_check_free (WlTraceCheck *c)
{
  if (c == NULL)
    return;
  g_clear_error (&c->compute);
  g_array_unref (c->colls);
  g_hash_table_unref (c->seen);
  g_free (c);
}

/* Whether the compute model cannot time N. */
static gboolean
untimeable (const WlParams *p, const WlNode *n)
{
  gboolean by_ops = p->compute == WL_COMPUTE_ROOFLINE
                    || (p->compute == WL_COMPUTE_KERNEL && n->kernel_list == 0);
  return by_ops && n->op == WL_OP_COMP && n->num_ops == 0 && n->duration_ps == 0;
}

/* A send or receive naming another rank than RANK as its own (NULL when
 * it names none, or RANK). */
static const char *
self_problem (const WlNode *n, guint32 rank)
{
  gboolean send = n->op == WL_OP_SEND;
  guint32 self = send ? n->peer_src : n->peer_dst;
  if (self == WL_RANK_SELF || self == rank)
    return NULL;
  return send ? "comm_src is not this rank" : "comm_dst is not this rank";
}

/* A send or receive without a peer, or with one beyond the topology. */
static const char *
peer_problem (const WlNode *n, guint32 n_ranks)
{
  gboolean send = n->op == WL_OP_SEND;
  guint32 peer = send ? n->peer_dst : n->peer_src;
  if (peer == WL_RANK_SELF)
    return send ? "a send without comm_dst" : "a receive without comm_src";
  if (peer >= n_ranks)
    return send ? "comm_dst names a rank beyond the topology"
                : "comm_src names a rank beyond the topology";
  return NULL;
}

static guint32
own_rank (const WlNode *n)
{
  return n->op == WL_OP_SEND ? n->peer_src : n->peer_dst;
}

/* A send or receive: note the first that names its own rank, the first
 * that names another own rank than that one, and the first bad peer. */
static void
note_p2p (WlTraceCheck *c, const WlNode *n, guint64 at)
{
  guint32 self = own_rank (n);
  if (self != WL_RANK_SELF && c->first_self_at == G_MAXUINT64)
    {
      c->first_self = *n;
      c->first_self_at = at;
    }
  else if (self != WL_RANK_SELF && c->other_self_at == G_MAXUINT64
           && self != own_rank (&c->first_self))
    {
      c->other_self = *n;
      c->other_self_at = at;
    }
  if (c->bad_peer_at == G_MAXUINT64 && peer_problem (n, c->n_ranks) != NULL)
    {
      c->bad_peer = *n;
      c->bad_peer_at = at;
    }
}

/* What depends on the ranks and groups node N (at position AT) names:
 * its collective's group, its send's or receive's ranks. */
static void
note_names (WlTraceCheck *c, const WlNode *n, guint64 at)
{
  /* Collectives run in long stretches on one group: the last one met is
   * known without a lookup. */
  if (n->op == WL_OP_COLL && !(c->colls->len > 0 && n->group == c->last_group)
      && !g_hash_table_contains (c->seen, &n->group))
    {
      WlCollGroup cg = { .group = n->group, .node = n->id };
      g_array_append_val (c->colls, cg);
      g_hash_table_add (c->seen, g_memdup2 (&n->group, sizeof n->group));
    }
  if (n->op == WL_OP_COLL)
    c->last_group = n->group;
  if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    note_p2p (c, n, at);
}

gboolean
wl_trace_check_node (gpointer data, const WlNode *n, GError **error)
{
  (void) error;
  WlTraceCheck *c = data;
  guint64 at = c->position++;
  if (c->hook != NULL)
    c->hook (c->hook_data, c->path, n);
  if (c->compute == NULL && untimeable (c->params, n))
    g_set_error (&c->compute, WL_ERROR, SIM_ERROR_INPUT,
                 "%s: node %" G_GUINT64_FORMAT ": a COMP node with neither %snum_ops nor "
                 "duration_micros: the %s model cannot time it", c->path, n->id,
                 c->params->compute == WL_COMPUTE_KERNEL ? "kernels, " : "",
                 c->params->compute == WL_COMPUTE_KERNEL ? "kernel" : "roofline");
  note_names (c, n, at);
  return TRUE;
}

void
wl_trace_check_node_names (WlTraceCheck *c, const WlNode *n)
{
  note_names (c, n, c->position++);
}

void
wl_trace_check_skip (WlTraceCheck *c)
{
  c->position++;
}

static gboolean
p2p_error (const WlTraceCheck *c, guint32 rank, const WlNode *n, const char *what,
           GError **error)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: rank %u node %" G_GUINT64_FORMAT ": %s",
               c->path, rank, n->id, what);
  return FALSE;
}

gboolean
wl_trace_check_rank (const WlTraceCheck *c, guint32 rank, GError **error)
{
  /* Every explicit own rank before other_self equals first_self's: the
   * first that is not RANK is one of these two. */
  const WlNode *self = NULL;
  guint64 self_at = G_MAXUINT64;
  if (c->first_self_at != G_MAXUINT64 && self_problem (&c->first_self, rank) != NULL)
    {
      self = &c->first_self;
      self_at = c->first_self_at;
    }
  else if (c->other_self_at != G_MAXUINT64)
    {
      self = &c->other_self;
      self_at = c->other_self_at;
    }
  if (self != NULL && self_at <= c->bad_peer_at)
    return p2p_error (c, rank, self, self_problem (self, rank), error);
  if (c->bad_peer_at != G_MAXUINT64)
    return p2p_error (c, rank, &c->bad_peer, peer_problem (&c->bad_peer, c->n_ranks), error);
  return TRUE;
}

gboolean
wl_trace_check_compute (const WlTraceCheck *c, GError **error)
{
  if (c->compute == NULL)
    return TRUE;
  g_propagate_error (error, g_error_copy (c->compute));
  return FALSE;
}
