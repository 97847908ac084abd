/* replay_classes.c: symmetry classes, the general form of the symmetric
 * shortcut (replay.h, wl_replay_classes).
 *
 * The argument.  Ranks are partitioned into classes such that:
 *   (1) the ranks of a class have the same trace up to the ranks it names
 *       (same nodes, times, sizes, dependencies, kernel lists) and compute
 *       at the same speed;
 *   (2) node by node, the peer of a send or receive lies in the same class
 *       at every rank of a class (partition refinement makes this so);
 *   (3) a rank talks to at most one rank of each class, and that rank
 *       talks back to it (pairs of classes are joined by a matching), over
 *       routes the network prices and ports alike (net_routes_alike);
 *   (4) every group a collective runs on lies inside one class and runs
 *       each of its collectives alike at every member (sys_group_alike),
 *       or lies across classes as (4') says; the groups of a rank map
 *       node by node onto those of its class's simulated rank, one to one,
 *       and a group inside a class runs each collective as its image
 *       (laid out alike over nodes, the same plan, routes priced alike:
 *       sys_group_mirrors), so that its members start and end with the
 *       image's (without it a group of two inside node 0 stood for one
 *       across two nodes, and an even NCCL group for an uneven one).
 *   (4') Roles.  A collective whose members play different roles (NCCL's
 *       tree: root, inner members, leaves) is not alike at its members,
 *       but member m of one group does what member m of another does when
 *       the two are laid out alike: the ranks of such a group are split
 *       by their place in it (wl_classes_split_roles), so that the group lies across
 *       classes, one place per class.  Then either every member of the
 *       group is simulated (a "whole" group: it runs as in the full run),
 *       or none is, and its image (the group of the same node at its
 *       class's simulated rank) holds, in each place, the simulated rank
 *       of the class of the group's member there, and runs each of its
 *       collectives as the group does, place by place: the same plan
 *       from algorithms whose members' parts depend on their places alone
 *       (SysAlgoClass.mirror_why), every message between two places
 *       priced and using its ports alike (sys_group_mirrors).
 *   (4'') Ties at a shared port.  A member of a tree over more than two
 *       nodes hears from two others at one instant, at one port.  The
 *       network serves the messages of one instant at a port in the
 *       order of (when they leave, their node's place in the sender's
 *       trace, the tie key), and the tie key of a collective whose
 *       members play roles is 1 + the sender's place in its group
 *       (NetMessage.tie; SysColl.tie_by_place: decided by the collective
 *       alone, not lockstep, so the same in a run with classes as in the
 *       full run), 0 for any other message.  A mirror maps place m to
 *       place m, and a member's class, so its trace and its nodes'
 *       places, to the class of the member there: two messages at a
 *       port of the full run carry the keys their images carry at the
 *       stand-in's port, and meet in the same order.  Equal keys from
 *       different senders (the same place in two groups, two alike
 *       collectives, point-to-point messages) are served in the order
 *       the run sends them: those are still checked (net_alias_ties).
 *   (4''') Node shift.  A group whose members play roles may still repeat
 *       node by node: k members per node, in member order (member m is
 *       local m mod k of the group's node m / k), every collective on it
 *       an NCCL ring whose lines pass from place p to p + 1 inside a node
 *       and, at a node's exit, from the NIC of the line's entry member to
 *       the next node's (the wrap from the last node to the first too),
 *       each hop priced and using its ports as the hop k places back
 *       (sys_group_period, sys_nccl_plan_period: asked of every use, and
 *       the same k for all).  Shifting the group by one node (place p to
 *       p + k mod n) then maps every line, hop and route onto itself, so
 *       by induction over steps member p does, at the same times, what
 *       member p mod k does: places p and p + k are one role, not two
 *       (wl_classes_split_roles takes places mod k).  The group that
 *       holds simulated ranks holds them at places 0 .. k-1, the class
 *       of the member at place m being that of place m mod k (whole);
 *       only those run (SysColl.period): the others join and are done
 *       when their stand-in does, and a message to place q is delivered
 *       to place q mod k, the stand-in, which in the full run receives
 *       at that instant its image shifted by q - q mod k places: the one
 *       from the place as many places before the sender, which is of the
 *       sender's class and sends over a route priced and ported alike.
 *       It is received at the stand-in's ports (net_set_rank_alias) and
 *       carries the tie key of that image's sender ((4''): 1 + its
 *       place), so it meets the stand-in's other messages in the order of
 *       the full run.  This is lockstep (sys_phase_send's "comes back as
 *       the one its symmetric peer sends") with a period.  Groups that
 *       mirror such a group hold, in place m, a rank of the class of its
 *       member in place m (placed_alike).  Anything not shown periodic
 *       (trees, other algorithms, uses of one group with different
 *       periods, a group not laid out node by node) keeps a class per
 *       place; when the classes found with periods fail a later check,
 *       they are searched again without (wl_replay_classes).
 * Then, by induction over events, every rank of a class starts and ends
 * each node when the class's first rank does: collectives because their
 * members are alike, or, across classes, because a whole group's members
 * start as in the full run and a group that mirrors it starts, place by
 * place, when it does and costs the same; messages because the sender's
 * and the receiver's classes both move in step and the route costs the
 * same.  A rank's ports see in the full run the mirror image of what its
 * class's simulated rank's see: a whole group's messages are real
 * messages between simulated ranks, and a mirrored group's meet the
 * ports of its own members only, as its image's meet theirs.  So the
 * first rank of each class is simulated for all (and a collective on a
 * group across classes runs with each of its members, not in lockstep:
 * SysColl.lockstep).  A message to a rank that is
 * not simulated is matched at the rank that stands for it, on the channel
 * from its one peer in the sender's class (3), and received at its ports
 * (net_set_rank_alias), which in the full run receive the mirror image.
 *
 * What the argument takes as given: things that happen at one instant
 * happen in the same order at the rank that stands for a class as at the
 * ranks it stands for.  Over shared ports the network makes it so for
 * messages: those of one instant claim ports in the order of their nodes
 * in their senders' traces and then of their tie keys ((4'');
 * link_analytical.c), not in the order the run happens to handle their
 * senders.  What is left is checked as the run goes: two messages with the
 * same place and tie key from different senders meeting at a port at once
 * (net_alias_ties), two collectives picking from
 * one of a rank's dimension queues at once while others wait there
 * (sys_class_overlaps), and a collective in lockstep waiting in a rank's
 * queue for a phase the rank owes under the line order
 * (sys_class_line_holds); each stops the run, which the application redoes
 * over every rank (app_sim_run).  Two of one rank's own events at one
 * instant (a delivery and a compute end) are not checked: tests run every
 * workload both ways and compare every figure (tests/support/modes.c,
 * tests/scripts/test_symmetry_classes.sh).
 *
 * Cost: linear in the nodes of the distinct traces and the ranks' peers,
 * times the refinement's rounds (at most the classes' count, a few for a
 * pipeline: classes split from the ends inwards).
 */
#include "workload/replay_classes_private.h"

#include <string.h>

#include "workload/kernels.h"

/* The peer a send or receive names, or WL_RANK_SELF for a node that is
 * neither. */
static guint32
p2p_peer (const WlNode *n)
{
  if (n->op == WL_OP_SEND)
    return n->peer_dst;
  if (n->op == WL_OP_RECV)
    return n->peer_src;
  return WL_RANK_SELF;
}

/* Same node but for the ranks and groups it names and its root (compared
 * by wl_graphs_alike_shape): reads nothing a rename changes. */
static gboolean
same_shape_node (const WlNode *x, const WlNode *y)
{
  if (x->op != y->op || x->duration_ps != y->duration_ps || x->num_ops != y->num_ops
      || x->bytes != y->bytes || x->child_start != y->child_start
      || x->n_children != y->n_children || x->n_parents != y->n_parents
      || x->priority != y->priority || x->involved != y->involved
      || x->coll_kind != y->coll_kind || x->comm_stream != y->comm_stream)
    return FALSE;
  switch ((WlOp) x->op)
    {
    case WL_OP_COMP:
      return x->kernel_list == y->kernel_list && x->comp_flags == y->comp_flags;
    case WL_OP_SEND:
    case WL_OP_RECV:
      return x->tag == y->tag;
    case WL_OP_COLL:
      return TRUE;
    default:
      return x->group == y->group;
    }
}

/* The graph whose nodes G's are but for the ranks and groups they name
 * (same_shape ignores those but roots): G's base, unless G moved a
 * root, or G. */
static const WlGraph *
shape_of (const WlGraph *g)
{
  return g->base != NULL && !g->roots_moved ? g->base : g;
}

/* Whether A and B have one shape (and roots): the answer for their
 * shape_of pair, noted in MEMO (ClassesPair* -> 1 alike, 2 not), since
 * graphs of one shape_of are alike.  Ranks of a class read against other
 * files than its first rank's meet the same pair again and again. */
static gboolean
same_shape (const WlGraph *a, const WlGraph *b, GHashTable *memo)
{
  ClassesPair key = { shape_of (a), shape_of (b) };
  if (key.a == key.b)
    return TRUE;
  gint known = GPOINTER_TO_INT (g_hash_table_lookup (memo, &key));
  if (known != 0)
    return known == 1;
  gboolean alike = wl_graphs_alike_shape (a, b, same_shape_node);
  g_hash_table_insert (memo, g_memdup2 (&key, sizeof key), GINT_TO_POINTER (alike ? 1 : 2));
  return alike;
}

/* A hash of what same_shape compares (a cheap subset). */
static guint64
shape_hash (const WlGraph *g)
{
  guint64 h = g->n_nodes;
  for (guint32 v = 0; v < g->n_nodes; v++)
    {
      const WlNode *n = &g->nodes[v];
      h = wl_classes_mix (h, n->op | (guint64) n->n_children << 8 | (guint64) n->n_parents << 40);
      h = wl_classes_mix (h, n->duration_ps ^ n->num_ops ^ (n->bytes << 1));
    }
  return h;
}

/* The indices of the sends and receives of rank I's trace. */
static const GArray *
p2p_nodes (Classes *c, guint32 i)
{
  const WlGraph *g = c->r->ranks[i].graph;
  GArray *a = g_hash_table_lookup (c->p2p, g);
  if (a != NULL)
    return a;
  a = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 hint = 0;
  WlNode tmp;
  if (g->nodes != NULL)
    {
      for (guint32 v = 0; v < g->n_nodes; v++)
        if (p2p_peer (wl_graph_node_at (g, v, &hint, &tmp)) != WL_RANK_SELF)
          g_array_append_val (a, v);
      g_hash_table_insert (c->p2p, (gpointer) g, a);
      return a;
    }
  /* A compact graph's ops are its base's: only those nodes are looked at
   * (a walk of every node of every rank was most of the checks' time). */
  GArray *ops = g_hash_table_lookup (c->p2p_ops, g->base);
  if (ops == NULL)
    {
      ops = g_array_new (FALSE, FALSE, sizeof (guint32));
      const WlNode *shape = wl_graph_shape_nodes (g);
      for (guint32 v = 0; v < g->n_nodes; v++)
        if (shape[v].op == WL_OP_SEND || shape[v].op == WL_OP_RECV)
          g_array_append_val (ops, v);
      g_hash_table_insert (c->p2p_ops, g->base, ops);
    }
  for (guint e = 0; e < ops->len; e++)
    {
      guint32 v = g_array_index (ops, guint32, e);
      if (p2p_peer (wl_graph_node_at (g, v, &hint, &tmp)) != WL_RANK_SELF)
        g_array_append_val (a, v);
    }
  g_hash_table_insert (c->p2p, (gpointer) g, a);
  return a;
}

/* The peer of rank I's node V; HINT (0 at first, or NULL) as
 * wl_graph_node_at's: a walk of rising V finds each node at once. */
static guint32
peer_of (const Classes *c, guint32 i, guint32 v, guint32 *hint)
{
  WlNode tmp;
  return p2p_peer (wl_graph_node_at (c->r->ranks[i].graph, v, hint, &tmp));
}

static void
classes_free (Classes *c)
{
  g_hash_table_unref (c->p2p);
  g_hash_table_unref (c->p2p_ops);
  g_string_free (c->roles_use, TRUE);
  g_string_free (c->detail, TRUE);
  g_hash_table_unref (c->period);
  g_free (c->cls);
  g_free (c->peer_off);
  g_free (c->peers);
}

/* (1): classes of ranks with the same trace shape and speed. */
static void
initial_classes (Classes *c)
{
  WlReplay *r = c->r;
  g_autoptr (GHashTable) first = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr (GArray) keys = g_array_sized_new (FALSE, FALSE, sizeof (guint64), c->n);
  g_array_set_size (keys, c->n);
  g_autoptr (GHashTable) graph_hash = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr (GHashTable) alike = g_hash_table_new_full (wl_classes_pair_hash,
                                                       wl_classes_pair_equal, g_free, NULL);
  for (guint32 i = 0; i < c->n; i++)
    {
      const WlGraph *g = r->ranks[i].graph;
      /* What shape_hash reads a renamed graph has from its base. */
      const WlGraph *hashed = g->base != NULL ? g->base : g;
      guint64 *h = g_hash_table_lookup (graph_hash, hashed);
      if (h == NULL)
        {
          h = g_new (guint64, 1);
          *h = shape_hash (hashed);
          g_hash_table_insert (graph_hash, (gpointer) hashed, h);
        }
      double speed = wl_params_rank_speed (&r->params, i);
      guint64 s;
      memcpy (&s, &speed, sizeof s);
      guint64 *key = &g_array_index (keys, guint64, i);
      *key = wl_classes_mix (*h, s);
      /* Ranks whose hashes meet are compared.  The hash leaves out tags,
       * comm streams and kernel lists, so unlike ranks meet often (pairs
       * of stages alike but for their tags): on a mismatch, probe on to
       * the next key, until the rank's class or a free key is found. */
      guint32 *j;
      while ((j = g_hash_table_lookup (first, key)) != NULL
             && !(same_shape (r->ranks[*j].graph, g, alike)
                  && wl_params_rank_speed (&r->params, *j) == speed))
        *key = wl_classes_mix (*key, 1);
      if (j != NULL)
        c->cls[i] = *j;
      else
        {
          c->cls[i] = i;
          g_hash_table_insert (first, key, &c->cls[i]);
        }
    }
}

/* (2): split classes until the peers of every send and receive lie, node
 * by node, in the same class at every rank of a class.  Returns the
 * number of classes. */
static guint32
refine (Classes *c)
{
  guint32 n = c->n, count = 0;
  for (guint32 i = 0; i < n; i++)
    count += c->cls[i] == i;
  g_autofree guint32 *next = g_new (guint32, n);
  for (;;)
    {
      g_autoptr (GHashTable) seen = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      guint32 now = 0;
      for (guint32 i = 0; i < n; i++)
        {
          const GArray *nodes = p2p_nodes (c, i);
          const guint32 *idx = (const guint32 *) nodes->data;
          guint64 h = c->cls[i];
          guint32 hi = 0, hj = 0;
          for (guint e = 0; e < nodes->len; e++)
            h = wl_classes_mix (h, c->cls[peer_of (c, i, idx[e], &hi)]);
          guint64 *key = g_new (guint64, 2);
          key[0] = h;
          /* The class's first rank with this signature: a signature
           * shared across classes stays apart by the class in the key. */
          gpointer found = g_hash_table_lookup (seen, key);
          guint32 j = found != NULL ? GPOINTER_TO_UINT (found) - 1 : i;
          gboolean same = found != NULL && c->cls[j] == c->cls[i];
          hi = 0;
          for (guint e = 0; same && e < nodes->len; e++)
            same = c->cls[peer_of (c, i, idx[e], &hi)] == c->cls[peer_of (c, j, idx[e], &hj)];
          if (same)
            {
              next[i] = j;
              g_free (key);
            }
          else
            {
              next[i] = i;
              now++;
              if (found == NULL)
                g_hash_table_insert (seen, key, GUINT_TO_POINTER (i + 1));
              else
                g_free (key);
            }
        }
      memcpy (c->cls, next, n * sizeof (guint32));
      if (now == count)
        return now;
      count = now;
    }
}

/* Every send and receive names a rank that exists. */
static gboolean
peers_valid (Classes *c, const char **why)
{
  for (guint32 i = 0; i < c->n; i++)
    {
      const GArray *nodes = p2p_nodes (c, i);
      guint32 hint = 0;
      for (guint e = 0; e < nodes->len; e++)
        if (peer_of (c, i, g_array_index (nodes, guint32, e), &hint) >= c->n)
          {
            g_string_append_printf (c->detail, "rank %u names rank %u", i,
                                    peer_of (c, i, g_array_index (nodes, guint32, e), NULL));
            return (*why = "a send or receive names a rank outside the run", FALSE);
          }
    }
  return TRUE;
}

/* Rank I's peer in class K, or WL_RANK_SELF. */
static guint32
peer_in (const Classes *c, guint32 i, guint32 k)
{
  for (guint32 e = c->peer_off[i]; e < c->peer_off[i + 1]; e++)
    if (c->cls[c->peers[e]] == k)
      return c->peers[e];
  return WL_RANK_SELF;
}

/* (3): each rank's peers, one per class; matchings; routes alike. */
static gboolean
check_peers (Classes *c, const char **why)
{
  WlReplay *r = c->r;
  g_autoptr (GArray) peers = g_array_new (FALSE, FALSE, sizeof (guint32));
  c->peer_off = g_new (guint32, c->n + 1);
  for (guint32 i = 0; i < c->n; i++)
    {
      c->peer_off[i] = peers->len;
      const GArray *nodes = p2p_nodes (c, i);
      guint32 hint = 0;
      for (guint n = 0; n < nodes->len; n++)
        {
          guint32 p = peer_of (c, i, g_array_index (nodes, guint32, n), &hint);
          const guint32 *have = &g_array_index (peers, guint32, c->peer_off[i]);
          guint32 k = peers->len - c->peer_off[i], e = 0;
          while (e < k && have[e] != p && c->cls[have[e]] != c->cls[p])
            e++;
          if (e == k)
            g_array_append_val (peers, p);
          else if (have[e] != p)
            {
              g_string_append_printf (c->detail, "rank %u with ranks %u and %u", i, have[e], p);
              return (*why = "a rank exchanges messages with two ranks of one class", FALSE);
            }
        }
    }
  c->peer_off[c->n] = peers->len;
  c->peers = (guint32 *) g_array_free (g_steal_pointer (&peers), FALSE);
  Net *net = sys_net (r->sys);
  for (guint32 i = 0; i < c->n; i++)
    for (guint32 e = c->peer_off[i]; e < c->peer_off[i + 1]; e++)
      {
        guint32 q = c->peers[e], rep = c->cls[i];
        if (peer_in (c, q, c->cls[i]) != i)
          {
            g_string_append_printf (c->detail, "rank %u to rank %u, which exchanges messages "
                                    "with rank %u", i, q, peer_in (c, q, c->cls[i]));
            return (*why = "a rank sends to a rank that exchanges messages with another of its "
                           "class", FALSE);
          }
        NetRoutesDiff d = net_routes_differ (net, i, q, rep, peer_in (c, rep, c->cls[q]));
        if (d != NET_ROUTES_ALIKE)
          {
            g_string_append_printf (c->detail, "rank %u to rank %u, and rank %u to rank %u", i, q,
                                    rep, peer_in (c, rep, c->cls[q]));
            return (*why = d == NET_ROUTES_PORTS
                             ? "messages between two classes take equal-cost routes through "
                               "different ports (a graph's routes are picked per pair of ranks)"
                             : "messages between two classes take routes priced differently",
                    FALSE);
          }
      }
  return TRUE;
}

/* The channel peers of the simulated ranks: (rank, class) -> its peer. */
static void
keep_channels (WlReplay *r, const Classes *c)
{
  r->class_peer = g_hash_table_new (g_int64_hash, g_int64_equal);
  r->class_peer_keys = g_array_new (FALSE, FALSE, sizeof (guint64) * 2);
  guint64 entries = 0;
  for (guint32 i = 0; i < c->n; i++)
    if (c->cls[i] == i)
      entries += c->peer_off[i + 1] - c->peer_off[i];
  g_array_set_size (r->class_peer_keys, (guint) entries);
  guint64 *slot = (guint64 *) r->class_peer_keys->data;
  for (guint32 i = 0; i < c->n; i++)
    if (c->cls[i] == i)
      for (guint32 e = c->peer_off[i]; e < c->peer_off[i + 1]; e++, slot += 2)
        {
          slot[0] = (guint64) i << 32 | c->cls[c->peers[e]];
          slot[1] = c->peers[e];
          g_hash_table_insert (r->class_peer, &slot[0], &slot[1]);
        }
}

/* The number of classes of C as it stands. */
static guint32
count_classes (const Classes *c)
{
  guint32 count = 0;
  for (guint32 i = 0; i < c->n; i++)
    count += c->cls[i] == i;
  return count;
}

/* (1) to (4): C's classes, counted in COUNTS (shapes, roles, peers).
 * FALSE with *WHY when they do not hold. */
static gboolean
search (Classes *c, guint32 counts[3], const char **why)
{
  c->cls = g_new (guint32, c->n);
  initial_classes (c);
  counts[0] = count_classes (c);
  wl_classes_split_roles (c);
  counts[1] = count_classes (c);
  gboolean ok = peers_valid (c, why);
  guint32 count = ok ? refine (c) : 0;
  counts[2] = count;
  /* Every rank alone once split by roles: the reason is the roles'. */
  if (ok && count == c->n)
    {
      if (c->roles_why != NULL)
        g_string_append_printf (c->detail, "every rank is a class alone once split by its "
                                "places: %s", c->roles_use->str);
      ok = (*why = c->roles_why != NULL ? c->roles_why
                                        : "no two ranks run the same trace up to their peers",
            FALSE);
    }
  return ok && check_peers (c, why) && wl_classes_check_groups (c, why);
}

/* C as before search, but for the traces' caches. */
static void
search_reset (Classes *c)
{
  g_clear_pointer (&c->cls, g_free);
  g_clear_pointer (&c->peer_off, g_free);
  g_clear_pointer (&c->peers, g_free);
  g_clear_pointer (&c->r->class_images, g_array_unref);
  g_hash_table_remove_all (c->period);
  g_string_truncate (c->roles_use, 0);
  g_string_truncate (c->detail, 0);
  c->roles_why = NULL;
  c->max_period = 0;
  c->period_why = NULL;
}

gboolean
wl_replay_classes (WlReplay *r, const char **why)
{
  g_return_val_if_fail (r != NULL && r->rep_of == NULL, FALSE);
  if (r->classes_why == NULL)
    r->classes_why = g_string_new (NULL);
  g_string_truncate (r->classes_why, 0);
  guint32 counts[3] = { 0, 0, 0 };
  if (r->window > 0 || r->recording)
    {
      *why = r->window > 0 ? "the traces are streamed (they do not fit the memory budget)"
                           : "--report, --timeline and --critical-path record every rank's nodes";
      wl_classes_why_say (r, counts, &(WlClassesWhy) { .refused = *why });
      return FALSE;
    }
  Classes c = { .r = r, .n = r->n_ranks,
                .p2p = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) g_array_unref),
                .p2p_ops = g_hash_table_new_full (NULL, NULL, NULL,
                                                  (GDestroyNotify) g_array_unref),
                .roles_use = g_string_new (NULL), .detail = g_string_new (NULL),
                .periods = TRUE,
                .period = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free) };
  gboolean ok = search (&c, counts, why);
  /* (4''') refused: today's classes, one per place. */
  const char *period_refused = NULL;
  g_autofree char *period_detail = NULL;
  if (!ok && c.max_period > 0)
    {
      period_refused = *why;
      period_detail = g_strdup (c.detail->str);
      search_reset (&c);
      c.periods = FALSE;
      ok = search (&c, counts, why);
    }
  if (ok)
    {
      keep_channels (r, &c);
      r->rep_of = g_steal_pointer (&c.cls);
      r->n_classes = counts[2];
      ok = sys_set_classes (r->sys, r->rep_of, why);
    }
  if (!ok)
    wl_replay_classes_clear (r);
  WlClassesWhy say = { .refused = ok ? NULL : *why, .detail = c.detail->str,
                       .roles_why = c.roles_why, .roles_use = c.roles_use->str,
                       .period = c.periods ? c.max_period : 0,
                       .period_why = c.periods ? c.period_why : period_refused,
                       .period_detail = period_detail };
  wl_classes_why_say (r, counts, &say);
  classes_free (&c);
  return ok;
}

void
wl_replay_classes_clear (WlReplay *r)
{
  g_clear_pointer (&r->rep_of, g_free);
  g_clear_pointer (&r->class_peer, g_hash_table_unref);
  g_clear_pointer (&r->class_peer_keys, g_array_unref);
  g_clear_pointer (&r->class_images, g_array_unref);
  r->n_classes = 0;
}

guint32
wl_replay_n_classes (const WlReplay *r)
{
  return r->n_classes;
}

gboolean
wl_replay_simulated (const WlReplay *r, guint32 rank)
{
  if (r->lockstep)
    return rank == 0;
  return r->rep_of == NULL || r->rep_of[rank] == rank;
}

void
wl_replay_class_channel (const WlReplay *r, SysP2PRequest *req)
{
  guint32 stand_in = r->rep_of[req->dst];
  guint64 key = (guint64) stand_in << 32 | r->rep_of[req->src];
  const guint64 *peer = g_hash_table_lookup (r->class_peer, &key);
  g_assert (peer != NULL);
  req->chan_alias = TRUE;
  req->chan_src = (guint32) *peer;
  req->chan_dst = stand_in;
}

void
wl_replay_classes_finish (WlReplay *r)
{
  g_return_if_fail (r->rep_of != NULL);
  for (guint32 i = 0; i < r->n_ranks; i++)
    {
      guint32 rep = r->rep_of[i];
      if (rep == i)
        continue;
      WlNodeSource *src0 = r->ranks[rep].src, *src = r->ranks[i].src;
      r->ranks[i].stats = r->ranks[rep].stats;
      /* Arrays lent (in-memory sources) are copied whole: a call of
       * each class per node was 1 M instructions of the Llama-2 row. */
      if (src->states != NULL && src0->states != NULL)
        memcpy (src->states, src0->states, src0->n_nodes);
      else
        for (guint32 v = 0; v < src0->n_nodes; v++)
          *wl_node_source_state (src, v) = *wl_node_source_state (src0, v);
    }
  sys_classes_finish (r->sys, (const guint64 *) r->class_images->data,
                      r->class_images->len / 2);
}
