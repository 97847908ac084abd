/* algo_dbt.c: the double binary tree all-reduce on one dimension.
 *
 * Shapes.  Tree 0 is NCCL's binary tree over positions 0..n-1: position 0
 * is the root and has one child, P, the largest power of two below n; a
 * position x != 0 whose lowest set bit is b has children x - b/2 and x + b'
 * (b' the largest power of two <= b/2 with x + b' < n, if any), so the tree
 * is the in-order complete binary tree over 1..2P-1 with the positions >= n
 * cut out (each replaced by its in-range left descendant).  Odd positions are
 * its leaves.  Tree 1 is tree 0 mirrored (x -> n-1-x) when n is even, or
 * shifted by one (x -> x+1 mod n) when n is odd: either way its leaves are
 * the even positions other than 0, so no member is a leaf in both.  Both
 * trees have height H = ceil(log2 n).
 *
 * Native row (sys_algo_dbt, or n not a power of two).  The chunk is cut
 * in two halves (the first sys_phase_split (c, 2) bytes, the rest), one per
 * tree, and the trees run at once, as independent channels (NCCL gives each
 * tree its own): work on one never delays the other.  Per tree:
 *   leaf   sends its half to its parent at start + e; when its parent's
 *          result arrives (at a), it finishes at a + e;
 *   inner  once started and every child's half has arrived (the later of
 *          the two at t), reduces them: it sends up at t + r + e, where r is
 *          sys_phase_reduce_cost of the half (the root instead turns round:
 *          it sends the result down and finishes there); when the result
 *          comes down (at a) it forwards it to its children at a + e and
 *          finishes.
 * A member's phase ends when both of its trees are done.  Each tree sends
 * n-1 messages up and n-1 down, of one half each.  With every member
 * starting at 0, a fixed per-message delay D, endpoint delay e and r per
 * half, a node whose subtree has height h sends up at e + h (D + r + e), the
 * roots turn at e + H (D + r + e), and a member at depth d_0 in tree 0 and
 * d_1 in tree 1 finishes at
 *     e + H (D + r + e) + max (d_0, d_1) (D + e).
 *
 * Reference row (sys_algo_dbt_reference, n = 2^q) reproduces ASTRA-sim's
 * DoubleBinaryTreeAllReduce (../shared/reference/ASTRA-SIM.md): one tree per
 * chunk carrying the whole chunk, alternately RootMax (chunk 0, 2, ...) and
 * RootMin.  RootMin is a root at position 0 with one child heading the
 * in-order complete tree over 1..n-1 (tree 0 above, for a power of two);
 * RootMax its mirror (tree 1).  Costs: a leaf's first send waits e; every
 * arrival at an inner node or root costs e + R (R = reduce cost of the
 * chunk), on the way down too; a leaf's result costs e.  So, in lockstep
 * with delay D, a member at depth d finishes at
 *     e + (q + d)(D + e + R)            for 0 <= d < q (root, inner),
 *     2e + 2q D + (2q - 1)(e + R)       for d = q (leaves),
 * the ranks finishing at different times.  ASTRA-sim's class does not
 * support other sizes (its lookup has holes); they run the native algorithm.
 *
 * Like ASTRA-sim's class, the phase always all-reduces its input, whatever
 * ctx->op says; the table only offers it for all-reduce.
 */
#include "system/algo.h"

#define DBT_NONE G_MAXUINT32

/* A message's step: tree << 1 | direction. */
enum
{
  DBT_UP = 0,   /* child to parent: a partial sum */
  DBT_DOWN = 1, /* parent to child: the result */
};

/* Progress of one tree in SysRun.bits, 8 bits per tree. */
enum
{
  DBT_CHILDREN_MASK = 0x3, /* children whose half has arrived */
  DBT_PARENT_IN = 1u << 2, /* the result has come down */
  DBT_UP_DONE = 1u << 3,   /* sent up (the root: turned round) */
  DBT_DONE = 1u << 4,      /* this member is done with the tree */
};

typedef struct
{
  guint32 parent;   /* DBT_NONE at the root */
  guint32 child[2]; /* DBT_NONE where absent, child[1] only with child[0] */
  guint n_children;
} DbtNode;

/* NCCL's binary tree (tree 0): see the header. */
static DbtNode
btree_node (guint32 n, guint32 x)
{
  DbtNode node = { .parent = DBT_NONE, .child = { DBT_NONE, DBT_NONE }, .n_children = 0 };
  guint32 bit = 1;
  while (bit < n && (bit & x) == 0)
    bit <<= 1;
  if (x == 0)
    {
      node.child[node.n_children++] = bit >> 1;
      return node;
    }
  guint32 up = (x ^ bit) | (bit << 1);
  node.parent = up < n ? up : x ^ bit;
  guint32 low = bit >> 1;
  if (low == 0)
    return node;
  node.child[node.n_children++] = x - low;
  while (low > 0 && x + low >= n)
    low >>= 1;
  if (low > 0)
    node.child[node.n_children++] = x + low;
  return node;
}

/* Position x of tree 0 as position map(x) of tree 1, and back. */
static guint32
tree1_from0 (guint32 n, guint32 x)
{
  if (x == DBT_NONE)
    return DBT_NONE;
  return n % 2 == 0 ? n - 1 - x : (x + 1) % n;
}

static guint32
tree1_to0 (guint32 n, guint32 x)
{
  return n % 2 == 0 ? n - 1 - x : (x + n - 1) % n;
}

static DbtNode
dbt_node (guint32 n, guint tree, guint32 pos)
{
  if (tree == 0)
    return btree_node (n, pos);
  DbtNode node = btree_node (n, tree1_to0 (n, pos));
  node.parent = tree1_from0 (n, node.parent);
  node.child[0] = tree1_from0 (n, node.child[0]);
  node.child[1] = tree1_from0 (n, node.child[1]);
  return node;
}

/* ASTRA-sim's timing applies (one tree per chunk, R on the way down): the
 * reference row on a power of two. */
static gboolean
dbt_ref (const SysPhaseCtx *ctx)
{
  return ctx->algo->timing == SYS_TIMING_REFERENCE && (ctx->n & (ctx->n - 1)) == 0;
}

/* The trees this member works on: [first, last]. */
static void
dbt_trees (const SysPhaseCtx *ctx, guint *first, guint *last)
{
  if (dbt_ref (ctx))
    *first = *last = ctx->chunk % 2 == 0 ? 1 : 0; /* RootMax first */
  else
    {
      *first = 0;
      *last = 1;
    }
}

static guint64
dbt_bytes (const SysPhaseCtx *ctx, guint tree)
{
  if (dbt_ref (ctx))
    return ctx->in_bytes;
  guint64 half = sys_phase_split (ctx, ctx->in_bytes, 2);
  return tree == 0 ? half : ctx->in_bytes - half;
}

static guint
dbt_get (const SysRun *run, guint tree)
{
  return (guint) (run->bits >> (8 * tree)) & 0xff;
}

static void
dbt_set (SysRun *run, guint tree, guint flags)
{
  run->bits |= (guint64) flags << (8 * tree);
}

static void
dbt_send_down (const SysPhaseCtx *ctx, const DbtNode *node, guint tree, guint64 bytes,
               SimTime at)
{
  for (guint i = 0; i < node->n_children; i++)
    sys_phase_send (ctx, node->child[i], tree << 1 | DBT_DOWN, bytes, at);
}

/* This member is done with `tree` at `at`; the phase ends with its last
 * tree. */
static void
dbt_tree_done (const SysPhaseCtx *ctx, SysRun *run, guint tree, SimTime at)
{
  guint first, last;
  dbt_trees (ctx, &first, &last);
  dbt_set (run, tree, DBT_DONE);
  run->busy_until = MAX (run->busy_until, at);
  if (++run->processed == last - first + 1)
    sys_phase_finish (ctx, run->busy_until);
}

/* Take `tree` as far as what has arrived allows (the member has started). */
static void
dbt_progress (const SysPhaseCtx *ctx, SysRun *run, guint tree)
{
  DbtNode node = dbt_node (ctx->n, tree, ctx->pos);
  guint64 bytes = dbt_bytes (ctx, tree);
  SimTime now = sys_phase_now (ctx);
  SimTime e = sys_phase_endpoint_delay (ctx);
  guint st = dbt_get (run, tree);
  if ((st & DBT_UP_DONE) == 0)
    {
      /* "| DBT_UP" (0) is there to mirror "| DBT_DOWN" in dbt_send_down. */
      if (node.n_children == 0)
        /* cppcheck-suppress badBitmaskCheck */
        sys_phase_send (ctx, node.parent, tree << 1 | DBT_UP, bytes, sim_time_add (now, e));
      else if ((st & DBT_CHILDREN_MASK) == node.n_children)
        {
          SimTime t = sim_time_add (sim_time_add (now, sys_phase_reduce_cost (ctx, bytes)), e);
          if (node.parent == DBT_NONE)
            {
              dbt_send_down (ctx, &node, tree, bytes, t);
              dbt_tree_done (ctx, run, tree, t);
            }
          else
            /* cppcheck-suppress badBitmaskCheck */
            sys_phase_send (ctx, node.parent, tree << 1 | DBT_UP, bytes, t);
        }
      else
        return;
      dbt_set (run, tree, DBT_UP_DONE);
      st = dbt_get (run, tree);
    }
  if ((st & (DBT_PARENT_IN | DBT_DONE)) == DBT_PARENT_IN)
    {
      SimTime t = sim_time_add (now, e);
      /* ASTRA-sim processes the result like a partial sum on inner nodes. */
      if (dbt_ref (ctx) && node.n_children > 0)
        t = sim_time_add (t, sys_phase_reduce_cost (ctx, bytes));
      dbt_send_down (ctx, &node, tree, bytes, t);
      dbt_tree_done (ctx, run, tree, t);
    }
}

static void
dbt_start (const SysPhaseCtx *ctx, SysRun *run)
{
  guint first, last;
  dbt_trees (ctx, &first, &last);
  for (guint tree = first; tree <= last; tree++)
    dbt_progress (ctx, run, tree);
}

static void
dbt_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step)
{
  guint tree = step >> 1;
  guint first, last;
  dbt_trees (ctx, &first, &last);
  g_assert (tree >= first && tree <= last);
  guint st = dbt_get (run, tree);
  if ((step & 1) == DBT_UP)
    {
      /* cppcheck-suppress assertWithSideEffect ; dbt_node is a pure function */
      g_assert ((st & DBT_CHILDREN_MASK) < dbt_node (ctx->n, tree, ctx->pos).n_children);
      run->bits += (guint64) 1 << (8 * tree); /* one more child */
    }
  else
    {
      g_assert ((st & DBT_PARENT_IN) == 0);
      dbt_set (run, tree, DBT_PARENT_IN);
    }
  run->arrived++;
  if (run->started)
    dbt_progress (ctx, run, tree);
}

#define DBT_ROW                                                                                 \
  .name = "doubleBinaryTree",                                                                    \
  .help = "two binary trees, each reducing and broadcasting half the data (all-reduce only)",    \
  .kinds = SYS_KIND_BIT (SYS_COLL_ALL_REDUCE), .alike = SYS_ALIKE_NEVER,                         \
  .unlike_why = "the double binary tree gives members different roles",                       \
  .links_why = "the double binary tree gives members different roles",                        \
  .start = dbt_start, .on_message = dbt_on_message

const SysAlgoClass sys_algo_dbt = { DBT_ROW, .timing = SYS_TIMING_NATIVE };

/* ASTRA-sim's DoubleBinaryTreeAllReduce on powers of two (see the header). */
const SysAlgoClass sys_algo_dbt_reference = { DBT_ROW, .timing = SYS_TIMING_REFERENCE };
