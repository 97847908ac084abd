/* replay_mem.c: the node source of a trace graph held in memory. */
#include "workload/replay_source.h"

#include "sim/error.h"

typedef struct
{
  WlNodeSource base;
  WlGraph *graph;        /* one reference (the graph is shared by byte-identical ranks) */
  gboolean owner;        /* the first rank holding the graph */
  guint32 *parents_left; /* per node: unfinished dependencies */
  guint8 *state;         /* per node: NODE_* */
} MemSource;

/* A compact graph (graph.h) is given its node array when a node is first
 * asked for: the run expands the graphs of the ranks it simulates before it
 * starts (wl_replay_expand), so this is for what reads another rank after. */
static WlNode *
mem_node (WlNodeSource *src, guint32 index)
{
  WlGraph *g = ((MemSource *) src)->graph;
  if (G_UNLIKELY (g->nodes == NULL))
    {
      g_autoptr (GError) error = NULL;
      if (!wl_graph_expand (g, &error))
        g_error ("%s", error->message);
    }
  return &g->nodes[index];
}

static guint8 *
mem_state (WlNodeSource *src, guint32 index)
{
  return &((MemSource *) src)->state[index];
}

/* The dependency counts are made when the rank starts: a rank that
 * symmetry classes do not simulate never needs them. */
static gboolean
mem_start (WlNodeSource *src, SimTime now, GError **error)
{
  (void) now;
  MemSource *m = (MemSource *) src;
  const WlGraph *g = m->graph;
  const WlNode *nodes = wl_graph_shape_nodes (g);
  gboolean fill = m->parents_left == NULL;
  if (fill)
    {
      m->parents_left = sim_try_alloc (g->n_nodes, sizeof (guint32), FALSE,
                                       "the replay's dependency counts", error);
      if (m->parents_left == NULL)
        {
          g_prefix_error (error, "%s: ", g->path);
          return FALSE;
        }
    }
  /* The graph is expanded (wl_replay_start) or stays compact (its nodes
   * then come through mem_node); neither array moves from here on. */
  src->nodes = g->nodes;
  if (g->nodes != NULL)
    {
      src->children = g->children;
      src->parents_left = m->parents_left;
    }
  /* One pass makes the counts and readies the roots (making ready reads
   * no count). */
  for (guint32 v = 0; v < g->n_nodes; v++)
    {
      guint32 p = nodes[v].n_parents;
      if (fill)
        m->parents_left[v] = p;
      if (p == 0)
        src->ready (src->ready_data, v);
    }
  return TRUE;
}

static gboolean
mem_release (WlNodeSource *src, guint32 index, SimTime now, GError **error)
{
  (void) now;
  (void) error;
  MemSource *m = (MemSource *) src;
  const WlGraph *g = m->graph;
  /* The lent array where the graph was expanded when the rank started. */
  const WlNode *n = src->nodes != NULL ? &src->nodes[index] : &wl_graph_shape_nodes (g)[index];
  for (guint32 c = 0; c < n->n_children; c++)
    {
      guint32 child = g->children[n->child_start + c];
      if (--m->parents_left[child] == 0)
        src->ready (src->ready_data, child);
    }
  return TRUE;
}

static const WlNode *
mem_peek (WlNodeSource *src, guint32 index, guint8 *state)
{
  *state = *mem_state (src, index);
  return mem_node (src, index);
}

static void
mem_range (const WlNodeSource *src, guint32 *first, guint32 *end)
{
  *first = 0;
  *end = src->n_nodes;
}

/* The graph is shared by byte-identical ranks: its first rank sets its
 * collectives' group index, once. */
static void
mem_resolve (WlNodeSource *src, GHashTable *map)
{
  MemSource *m = (MemSource *) src;
  if (!m->owner)
    return;
  /* A trace runs long stretches of collectives on one group: the last
   * lookup is kept. */
  guint64 last = WL_GROUP_ALL;
  guint32 last_index = 0;
  gboolean have_last = FALSE;
  /* A compact graph's other nodes are its base's, which its own rank
   * resolves. */
  if (m->graph->nodes == NULL)
    wl_graph_bind_groups (m->graph, map);
  for (guint32 v = 0; m->graph->nodes != NULL && v < m->graph->n_nodes; v++)
    {
      WlNode *n = &m->graph->nodes[v];
      gpointer at;
      if (n->op != WL_OP_COLL)
        continue;
      if (have_last && n->group == last)
        n->sys_group_index = last_index;
      else if (g_hash_table_lookup_extended (map, &n->group, NULL, &at))
        {
          n->sys_group_index = last_index = GPOINTER_TO_UINT (at);
          last = n->group;
          have_last = TRUE;
        }
    }
}

static void
mem_free (WlNodeSource *src)
{
  MemSource *m = (MemSource *) src;
  wl_graph_unref (m->graph);
  g_free (m->parents_left);
  g_free (m->state);
  g_free (m);
}

static const WlNodeSourceClass mem_class = {
  .node = mem_node,
  .state = mem_state,
  .start = mem_start,
  .release = mem_release,
  .stuck = NULL,
  .peek = mem_peek,
  .range = mem_range,
  .resolve = mem_resolve,
  .check_end = NULL,
  .free = mem_free,
};

WlNodeSource *
wl_mem_source_new (WlGraph *graph, guint32 rank, gboolean owner, GError **error)
{
  g_return_val_if_fail (graph != NULL, NULL);
  MemSource *m = g_new0 (MemSource, 1);
  m->base.klass = &mem_class;
  m->base.path = graph->path;
  m->base.n_nodes = graph->n_nodes;
  m->base.n_streams = graph->n_streams;
  m->graph = graph;
  m->owner = owner;
  m->state = sim_try_alloc (graph->n_nodes, 1, TRUE, "the replay's node states", error);
  if (m->state == NULL)
    {
      g_prefix_error (error, "%s: rank %u: ", graph->path, rank);
      mem_free (&m->base);
      return NULL;
    }
  /* Lent from the start (the array never moves): a rank that symmetry
   * classes do not simulate takes its states from its class's
   * representative in one copy (wl_replay_classes_finish). */
  m->base.states = m->state;
  return &m->base;
}

void
wl_node_source_free (WlNodeSource *src)
{
  if (src != NULL)
    src->klass->free (src);
}
