/* program.c: building and checking a program (program.h); the engine that
 * runs one is algo_program.c. */
#include "system/program_private.h"

#include "sim/error.h"

SysProgram *
sys_program_new (const char *name, const char *source, guint32 n, SysProgTiming timing,
                 guint32 chunks)
{
  g_return_val_if_fail (name != NULL && source != NULL && n > 0, NULL);
  SysProgram *prog = g_new0 (SysProgram, 1);
  prog->name = g_strdup (name);
  prog->source = g_strdup (source);
  prog->n = n;
  prog->timing = timing;
  prog->chunks = chunks;
  prog->labels = g_string_chunk_new (4096);
  prog->build = g_new0 (GArray *, n);
  prog->deps = g_new0 (GArray *, n);
  for (guint32 p = 0; p < n; p++)
    {
      prog->build[p] = g_array_new (FALSE, TRUE, sizeof (SysProgOp));
      prog->deps[p] = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
    }
  sys_program_class_init (prog);
  return prog;
}

void
sys_program_free (SysProgram *prog)
{
  if (prog == NULL)
    return;
  for (guint32 p = 0; p < prog->n; p++)
    {
      if (prog->build[p] != NULL)
        g_array_unref (prog->build[p]);
      if (prog->deps[p] != NULL)
        g_array_unref (prog->deps[p]);
      if (prog->ops != NULL)
        g_free (prog->ops[p]);
      if (prog->succ != NULL)
        g_free (prog->succ[p]);
    }
  g_free (prog->build);
  g_free (prog->deps);
  g_free (prog->ops);
  g_free (prog->n_ops);
  g_free (prog->succ);
  g_string_chunk_free (prog->labels);
  g_free (prog->name);
  g_free (prog->source);
  g_free (prog->rank_prefix);
  g_free (prog->rank_suffix);
  g_free (prog);
}

guint32
sys_program_add (SysProgram *prog, guint32 pos, const SysProgOpSpec *spec, const char *label)
{
  g_return_val_if_fail (prog != NULL && pos < prog->n && prog->build != NULL, 0);
  SysProgOp op = { .spec = *spec, .label = g_string_chunk_insert (prog->labels, label) };
  g_array_append_val (prog->build[pos], op);
  return prog->build[pos]->len - 1;
}

void
sys_program_add_dep (SysProgram *prog, guint32 pos, guint32 op, guint32 dep)
{
  g_return_if_fail (prog != NULL && pos < prog->n && prog->build != NULL);
  g_return_if_fail (op < prog->build[pos]->len && dep < prog->build[pos]->len);
  guint32 pair[2] = { op, dep };
  g_array_append_vals (prog->deps[pos], pair, 1);
}

const char *
sys_program_label (const SysProgram *prog, guint32 pos, guint32 op)
{
  return prog->ops != NULL ? prog->ops[pos][op].label
                           : g_array_index (prog->build[pos], SysProgOp, op).label;
}

guint32
sys_program_size (const SysProgram *prog)
{
  return prog->n;
}

const char *
sys_program_source (const SysProgram *prog)
{
  return prog->source;
}

void
sys_program_set_rank_files (SysProgram *prog, const char *prefix, const char *suffix)
{
  g_free (prog->rank_prefix);
  g_free (prog->rank_suffix);
  prog->rank_prefix = g_strdup (prefix);
  prog->rank_suffix = g_strdup (suffix);
}

void
sys_program_set_kinds (SysProgram *prog, guint32 kinds)
{
  prog->algo.kinds = kinds;
}

const SysAlgoClass *
sys_program_algo (const SysProgram *prog)
{
  g_return_val_if_fail (prog != NULL && prog->ops != NULL, NULL);
  return &prog->algo;
}

/* ---- sealing ---------------------------------------------------------------- */

/* Successor lists from the dependency pairs (a dependency named twice
 * counts twice on both sides, which keeps the counts consistent). */
static void
seal_edges (SysProgram *prog)
{
  prog->ops = g_new0 (SysProgOp *, prog->n);
  prog->n_ops = g_new0 (guint32, prog->n);
  prog->succ = g_new0 (guint32 *, prog->n);
  for (guint32 p = 0; p < prog->n; p++)
    {
      guint32 n = prog->build[p]->len;
      prog->n_ops[p] = n;
      prog->max_ops = MAX (prog->max_ops, n);
      prog->ops[p] = (SysProgOp *) g_array_free (prog->build[p], FALSE);
      prog->build[p] = NULL;
      SysProgOp *ops = prog->ops[p];
      const guint32 *pairs = (const guint32 *) (void *) prog->deps[p]->data;
      guint32 n_pairs = prog->deps[p]->len;
      for (guint32 i = 0; i < n_pairs; i++)
        {
          ops[pairs[2 * (gsize) i]].n_deps++;
          ops[pairs[2 * (gsize) i + 1]].n_succ++;
        }
      guint32 at = 0;
      for (guint32 i = 0; i < n; i++)
        {
          ops[i].succ_first = at;
          at += ops[i].n_succ;
          ops[i].n_succ = 0;
        }
      prog->succ[p] = g_new (guint32, MAX (n_pairs, 1u));
      for (guint32 i = 0; i < n_pairs; i++)
        {
          SysProgOp *d = &ops[pairs[2 * (gsize) i + 1]];
          prog->succ[p][d->succ_first + d->n_succ++] = pairs[2 * (gsize) i];
        }
      g_array_unref (prog->deps[p]);
      prog->deps[p] = NULL;
    }
}

static gboolean
seal_peers (SysProgram *prog, GError **error)
{
  for (guint32 p = 0; p < prog->n; p++)
    for (guint32 i = 0; i < prog->n_ops[p]; i++)
      {
        const SysProgOp *op = &prog->ops[p][i];
        if (op->spec.kind == SYS_PROG_COMPUTE)
          continue;
        const char *what = op->spec.kind == SYS_PROG_SEND ? "sends to" : "receives from";
        if (op->spec.peer >= prog->n)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "%s: %s position %u, but the program has %u positions (0 to %u)",
                         op->label, what, op->spec.peer, prog->n, prog->n - 1);
            return FALSE;
          }
        if (op->spec.peer == p)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s itself (position %u)",
                         op->label, what, p);
            return FALSE;
          }
      }
  return TRUE;
}

typedef struct
{
  guint32 src, dst;
  gint64 tag;
} ChanKey;

static guint
chan_hash (gconstpointer p)
{
  const ChanKey *k = p;
  return g_int64_hash (&k->tag) ^ (k->src * 0x9E3779B1u) ^ (k->dst * 0x85EBCA77u);
}

static gboolean
chan_equal (gconstpointer a, gconstpointer b)
{
  const ChanKey *x = a, *y = b;
  return x->src == y->src && x->dst == y->dst && x->tag == y->tag;
}

/* One channel's operations in program order: sends at the source, receives
 * at the destination, each (position, index) packed in 64 bits. */
typedef struct
{
  ChanKey key;
  GArray *sends, *recvs;
} Chan;

static void
chan_free (gpointer p)
{
  Chan *c = p;
  g_array_unref (c->sends);
  g_array_unref (c->recvs);
  g_free (c);
}

static GHashTable *
seal_channels (const SysProgram *prog, GPtrArray *order)
{
  GHashTable *chans = g_hash_table_new_full (chan_hash, chan_equal, NULL, chan_free);
  for (guint32 p = 0; p < prog->n; p++)
    for (guint32 i = 0; i < prog->n_ops[p]; i++)
      {
        const SysProgOp *op = &prog->ops[p][i];
        if (op->spec.kind == SYS_PROG_COMPUTE)
          continue;
        gboolean send = op->spec.kind == SYS_PROG_SEND;
        ChanKey key = { send ? p : op->spec.peer, send ? op->spec.peer : p, op->spec.tag };
        Chan *c = g_hash_table_lookup (chans, &key);
        if (c == NULL)
          {
            c = g_new0 (Chan, 1);
            c->key = key;
            c->sends = g_array_new (FALSE, FALSE, sizeof (guint64));
            c->recvs = g_array_new (FALSE, FALSE, sizeof (guint64));
            g_hash_table_insert (chans, &c->key, c);
            g_ptr_array_add (order, c);
          }
        guint64 ref = ((guint64) p << 32) | i;
        g_array_append_val (send ? c->sends : c->recvs, ref);
      }
  return chans;
}

#define REF_POS(r) ((guint32) ((r) >> 32))
#define REF_OP(r) ((guint32) (r))

static gboolean
seal_match_one (SysProgram *prog, const Chan *c, GError **error)
{
  guint32 ns = c->sends->len, nr = c->recvs->len;
  for (guint32 k = 0; k < MIN (ns, nr); k++)
    {
      guint64 s = g_array_index (c->sends, guint64, k), r = g_array_index (c->recvs, guint64, k);
      SysProgOp *so = &prog->ops[REF_POS (s)][REF_OP (s)];
      SysProgOp *ro = &prog->ops[REF_POS (r)][REF_OP (r)];
      if (so->spec.amount != ro->spec.amount)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s: sends %" G_GUINT64_FORMAT "%s but the receive it meets, %s, "
                       "expects %" G_GUINT64_FORMAT,
                       so->label, so->spec.amount, prog->chunks ? " chunks" : " bytes", ro->label,
                       ro->spec.amount);
          return FALSE;
        }
      so->match = REF_OP (r);
      ro->match = REF_OP (s);
    }
  if (ns == nr)
    return TRUE;
  gboolean extra_send = ns > nr;
  guint64 odd = g_array_index (extra_send ? c->sends : c->recvs, guint64, MIN (ns, nr));
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "%s: %s with no matching %s (position %u sends %u times to position %u on "
               "tag/channel %" G_GINT64_FORMAT ", which receives %u times)",
               prog->ops[REF_POS (odd)][REF_OP (odd)].label, extra_send ? "a send" : "a receive",
               extra_send ? "receive" : "send", c->key.src, ns, c->key.dst, c->key.tag, nr);
  return FALSE;
}

static gboolean
seal_match (SysProgram *prog, GError **error)
{
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  GHashTable *chans = seal_channels (prog, order);
  gboolean ok = TRUE;
  /* In the order channels were first met, so that the error is stable. */
  for (guint i = 0; ok && i < order->len; i++)
    ok = seal_match_one (prog, order->pdata[i], error);
  g_hash_table_unref (chans);
  return ok;
}

/* The operations Kahn's algorithm left (waiting > 0), less those that only
 * wait on a cycle without being on one: peel, from the end, every leftover
 * that no leftover waits on.  What stays has waiting > 0. */
static void
seal_on_cycles (const SysProgram *prog, const guint32 *base, guint32 *waiting)
{
  guint32 total = base[prog->n];
  guint32 *waited = g_new0 (guint32, MAX (total, 1u)); /* leftover successors */
  GArray **preds = g_new0 (GArray *, MAX (total, 1u));
  for (guint32 p = 0; p < prog->n; p++)
    for (guint32 i = 0; i < prog->n_ops[p]; i++)
      {
        if (waiting[base[p] + i] == 0)
          continue;
        const SysProgOp *op = &prog->ops[p][i];
        for (guint32 s = 0; s <= op->n_succ; s++)
          {
            guint32 q = p, j;
            if (s < op->n_succ)
              j = prog->succ[p][op->succ_first + s];
            else if (op->spec.kind == SYS_PROG_SEND)
              q = op->spec.peer, j = op->match;
            else
              break;
            if (waiting[base[q] + j] == 0)
              continue;
            waited[base[p] + i]++;
            if (preds[base[q] + j] == NULL)
              preds[base[q] + j] = g_array_new (FALSE, FALSE, sizeof (guint32));
            guint32 from = base[p] + i;
            g_array_append_val (preds[base[q] + j], from);
          }
      }
  g_autoptr (GArray) queue = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 k = 0; k < total; k++)
    if (waiting[k] > 0 && waited[k] == 0)
      g_array_append_val (queue, k);
  for (guint q = 0; q < queue->len; q++)
    {
      guint32 k = g_array_index (queue, guint32, q);
      waiting[k] = 0;
      for (guint e = 0; preds[k] != NULL && e < preds[k]->len; e++)
        {
          guint32 from = g_array_index (preds[k], guint32, e);
          if (--waited[from] == 0)
            g_array_append_val (queue, from);
        }
    }
  for (guint32 k = 0; k < total; k++)
    if (preds[k] != NULL)
      g_array_unref (preds[k]);
  g_free (preds);
  g_free (waited);
}

/* Kahn's algorithm over every operation of every position, a matched send
 * counting as one more dependency of its receive.  What is left over waits
 * on itself. */
static gboolean
seal_acyclic (SysProgram *prog, GError **error)
{
  guint32 *base = g_new (guint32, prog->n + 1);
  base[0] = 0;
  for (guint32 p = 0; p < prog->n; p++)
    base[p + 1] = base[p] + prog->n_ops[p];
  guint32 total = base[prog->n];
  guint32 *waiting = g_new (guint32, MAX (total, 1u));
  guint64 *stack = g_new (guint64, MAX (total, 1u));
  guint32 top = 0, done = 0;
  for (guint32 p = 0; p < prog->n; p++)
    for (guint32 i = 0; i < prog->n_ops[p]; i++)
      {
        const SysProgOp *op = &prog->ops[p][i];
        waiting[base[p] + i] = op->n_deps + (op->spec.kind == SYS_PROG_RECV);
        if (waiting[base[p] + i] == 0)
          stack[top++] = ((guint64) p << 32) | i;
      }
  while (top > 0)
    {
      guint64 ref = stack[--top];
      guint32 p = REF_POS (ref), i = REF_OP (ref);
      const SysProgOp *op = &prog->ops[p][i];
      done++;
      for (guint32 s = 0; s < op->n_succ; s++)
        {
          guint32 j = prog->succ[p][op->succ_first + s];
          if (--waiting[base[p] + j] == 0)
            stack[top++] = ((guint64) p << 32) | j;
        }
      if (op->spec.kind == SYS_PROG_SEND)
        {
          guint32 q = op->spec.peer, j = op->match;
          if (--waiting[base[q] + j] == 0)
            stack[top++] = ((guint64) q << 32) | j;
        }
    }
  gboolean ok = done == total;
  if (!ok)
    {
      seal_on_cycles (prog, base, waiting);
      /* Name a few of the operations on a cycle. */
      g_autoptr (GString) names = g_string_new (NULL);
      guint shown = 0, on = 0;
      for (guint32 p = 0; p < prog->n; p++)
        for (guint32 i = 0; i < prog->n_ops[p]; i++)
          if (waiting[base[p] + i] > 0 && on++ < 4)
            g_string_append_printf (names, "%s%s", shown++ ? "; " : "", prog->ops[p][i].label);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: %u operations wait on each other in a cycle of dependencies and "
                   "messages (the program would deadlock): %s%s",
                   prog->source, on, names->str, on > shown ? "; ..." : "");
    }
  g_free (base);
  g_free (waiting);
  g_free (stack);
  return ok;
}

gboolean
sys_program_seal (SysProgram *prog, GError **error)
{
  g_return_val_if_fail (prog != NULL && prog->ops == NULL, FALSE);
  seal_edges (prog);
  if (!seal_peers (prog, error) || !seal_match (prog, error) || !seal_acyclic (prog, error))
    return FALSE;
  prog->algo.max_steps = MAX (prog->max_ops, 1u);
  prog->sealed = TRUE;
  return TRUE;
}
