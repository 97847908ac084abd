/* plan_space.c: the planner's space, enumerated and pruned; see
 * plan_space.h. */
#include "sim/app/plan_space.h"

#include <string.h>

#include "sim/error.h"

static const char *const key_names[PLAN_N_KEYS] = { "tp", "pp", "v", "cp", "ep",
                                                    "mb", "zero", "recompute", "sched" };

const char *
plan_zero_name (guint32 zero)
{
  static const char *const names[] = { "zero0", "zero1", "zero2", "zero3", "dist-opt" };
  return zero <= PLAN_ZERO_DIST ? names[zero] : "?";
}

const char *
plan_recompute_name (WlRecompute r)
{
  return r == WL_RECOMPUTE_FULL ? "full" : r == WL_RECOMPUTE_SELECTIVE ? "selective" : "none";
}

const char *
plan_sched_name (WlPipeSchedule s)
{
  return s == WL_PIPE_GPIPE ? "gpipe" : "1f1b";
}

/* One value of KEY as written in a spec: FALSE when it is not one. */
static gboolean
parse_value (PlanKey key, const char *text, guint32 *out)
{
  guint64 n = 0;
  switch (key)
    {
    case PLAN_ZERO:
      if (strcmp (text, "dist") == 0)
        {
          *out = PLAN_ZERO_DIST;
          return TRUE;
        }
      if (!g_ascii_string_to_unsigned (text, 10, 0, 3, &n, NULL))
        return FALSE;
      *out = (guint32) n;
      return TRUE;
    case PLAN_RECOMPUTE:
      *out = strcmp (text, "none") == 0        ? WL_RECOMPUTE_NONE
             : strcmp (text, "selective") == 0 ? WL_RECOMPUTE_SELECTIVE
             : strcmp (text, "full") == 0      ? WL_RECOMPUTE_FULL
                                               : G_MAXUINT32;
      return *out != G_MAXUINT32;
    case PLAN_SCHED:
      *out = strcmp (text, "1f1b") == 0 ? WL_PIPE_1F1B : strcmp (text, "gpipe") == 0 ? WL_PIPE_GPIPE
                                                                                  : G_MAXUINT32;
      return *out != G_MAXUINT32;
    default:
      if (!g_ascii_string_to_unsigned (text, 10, 1, 1u << 20, &n, NULL))
        return FALSE;
      *out = (guint32) n;
      return TRUE;
    }
}

/* KEY=VALUES (one clause of a spec) into OUT. */
static gboolean
parse_clause (const char *clause, PlanSpace *out, GError **error)
{
  g_auto (GStrv) kv = g_strsplit (clause, "=", 2);
  g_autofree char *key = g_strstrip (g_strdup (kv[0]));
  if (kv[1] == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--space: '%s' is not KEY=VALUES", clause);
      return FALSE;
    }
  if (strcmp (key, "tp-across") == 0)
    {
      g_autofree char *v = g_strstrip (g_strdup (kv[1]));
      out->tp_across = strcmp (v, "yes") == 0;
      if (out->tp_across || strcmp (v, "no") == 0)
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--space: tp-across: '%s' is not yes or no",
                   v);
      return FALSE;
    }
  guint k = 0;
  while (k < PLAN_N_KEYS && strcmp (key, key_names[k]) != 0)
    k++;
  if (k == PLAN_N_KEYS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "--space: unknown key '%s' (tp, pp, v, cp, ep, mb, zero, recompute, sched, "
                   "tp-across)", key);
      return FALSE;
    }
  if (out->n[k] > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--space: %s is given twice", key);
      return FALSE;
    }
  g_auto (GStrv) values = g_strsplit (kv[1], ",", -1);
  for (guint i = 0; values[i] != NULL; i++)
    {
      g_autofree char *v = g_strstrip (g_strdup (values[i]));
      if (out->n[k] == PLAN_MAX_VALUES)
        {
          /* '33' is a fine value of tp: what is wrong is the list's length. */
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "--space: %s lists more than %d values ('%s' and after)", key,
                       PLAN_MAX_VALUES, v);
          return FALSE;
        }
      guint32 *slot = &out->values[k][out->n[k]];
      if (!parse_value ((PlanKey) k, v, slot))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "--space: %s: '%s' is not a value of %s%s", key, v, key,
                       k == PLAN_ZERO         ? " (0, 1, 2, 3 or dist)"
                       : k == PLAN_RECOMPUTE  ? " (none, selective or full)"
                       : k == PLAN_SCHED      ? " (1f1b or gpipe)"
                                              : " (a whole number, at least 1)");
          return FALSE;
        }
      for (guint j = 0; j < out->n[k]; j++)
        if (out->values[k][j] == *slot)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--space: %s: '%s' is listed twice",
                         key, v);
            return FALSE;
          }
      out->n[k]++;
    }
  if (out->n[k] == 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--space: %s lists no values", key);
  return out->n[k] > 0;
}

gboolean
plan_space_parse (const char *spec, PlanSpace *out, GError **error)
{
  memset (out, 0, sizeof *out);
  if (spec == NULL)
    return TRUE;
  g_auto (GStrv) clauses = g_strsplit (spec, ";", -1);
  guint given = 0;
  for (guint i = 0; clauses[i] != NULL; i++)
    {
      g_autofree char *c = g_strstrip (g_strdup (clauses[i]));
      if (*c == '\0')
        continue; /* "tp=1;" */
      if (!parse_clause (c, out, error))
        return FALSE;
      given++;
    }
  if (given == 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "--space '%s' names no KEY=VALUES", spec);
  return given > 0;
}

/* KEY's values for the enumeration: the spec's, or the default, which may
 * depend on DP (the micro-batch's). */
static guint
key_values (const PlanSpace *s, const PlanProblem *pb, PlanKey key, guint32 dp, guint32 *out)
{
  if (s->n[key] > 0)
    {
      memcpy (out, s->values[key], s->n[key] * sizeof (guint32));
      return s->n[key];
    }
  const WlTransformerModel *m = &pb->model;
  guint n = 0;
  switch (key)
    {
    case PLAN_TP: /* divisors of a node's GPUs, or of all with tp-across */
      for (guint32 t = 1, g = s->tp_across ? pb->gpus : pb->node_gpus;
           t <= g && n < PLAN_MAX_VALUES; t++)
        if (g % t == 0)
          out[n++] = t;
      return n;
    case PLAN_PP: /* divisors of the GPUs, at most one stage per layer */
      for (guint32 p = 1; p <= MIN (pb->gpus, m->layers) && n < PLAN_MAX_VALUES; p++)
        if (pb->gpus % p == 0)
          out[n++] = p;
      return n;
    case PLAN_MB: /* powers of two dividing B / dp */
      for (guint32 b = 1; dp > 0 && pb->global_batch % dp == 0 && (pb->global_batch / dp) % b == 0
                          && n < PLAN_MAX_VALUES; b *= 2)
        out[n++] = b;
      if (n == 0)
        out[n++] = 1;
      return n;
    case PLAN_EP: /* divisors of the experts (dense: none) */
      out[n++] = 1;
      for (guint32 e = 2; e <= m->experts && n < PLAN_MAX_VALUES; e++)
        if (m->experts % e == 0)
          out[n++] = e;
      return n;
    case PLAN_V:
      out[n++] = 1;
      out[n++] = 2;
      return n;
    case PLAN_CP:
      /* 1 alone: the ranks of a CP group run different attention pieces,
       * so a DP x CP group spans symmetry classes and each CP candidate
       * simulates every rank (minutes at 1,024 GPUs); --space cp=1,2
       * searches them. */
      out[n++] = 1;
      return n;
    case PLAN_ZERO:
      for (guint32 z = 0; z <= PLAN_ZERO_DIST; z++)
        out[n++] = z;
      return n;
    case PLAN_RECOMPUTE:
      out[n++] = WL_RECOMPUTE_NONE;
      out[n++] = WL_RECOMPUTE_SELECTIVE;
      out[n++] = WL_RECOMPUTE_FULL;
      return n;
    default: /* PLAN_SCHED */
      out[n++] = WL_PIPE_1F1B;
      out[n++] = WL_PIPE_GPIPE;
      return n;
    }
}

void
plan_space_request (const PlanProblem *pb, const PlanKnobs *k, WlGenTransformer *req)
{
  memset (req, 0, sizeof *req);
  req->model = pb->model;
  req->micro_batch = k->mb;
  req->global_batch = pb->global_batch;
  req->tp = k->tp;
  req->pp = k->pp;
  req->dp = k->dp;
  req->virtual_stages = k->v;
  req->cp = k->cp;
  req->ep = k->ep;
  req->schedule = k->sched;
  req->recompute = k->recompute;
  req->zero = k->zero == PLAN_ZERO_DIST ? 0 : k->zero;
  req->distributed_optimizer = k->zero == PLAN_ZERO_DIST;
  req->device = pb->device;
  req->fp8 = pb->fp8;
  req->attention = pb->attention;
  req->no_sequence_parallel = pb->no_sp;
  req->no_dp_overlap = pb->no_dp_overlap;
  /* gen transformer's default bucket (cmd_gen.c): Megatron-LM core's max (40
   * M, 1 M x dp) parameters (megatron/core/distributed/
   * distributed_data_parallel.py), bf16 gradients; the bucket applies to
   * ZeRO 0 only. */
  if (req->zero == 0)
    req->dp_bucket_B = 2 * MAX ((guint64) 40000000, (guint64) 1000000 * k->dp);
}

/* The first divisibility or shape rule K breaks (static), or NULL. */
static const char *
shape_reason (const PlanProblem *pb, const PlanKnobs *k, gboolean tp_across)
{
  const WlTransformerModel *m = &pb->model;
  guint32 kv = m->kv_heads > 0 ? m->kv_heads : m->heads;
  if (k->tp > pb->node_gpus && !tp_across)
    return "tp wider than a node";
  if (k->dp == 0)
    return "gpus % (tp pp cp)";
  if (m->heads % k->tp != 0 || kv % k->tp != 0 || m->hidden % k->tp != 0)
    return "heads % tp";
  if (m->layers % k->pp != 0)
    return "layers % pp";
  if (k->v > 1 && k->pp < 2)
    return "virtual stages need pp > 1";
  if (k->v > 1 && k->sched != WL_PIPE_1F1B)
    return "virtual stages need 1f1b";
  if (k->v > 1 && m->layers % (k->pp * k->v) != 0)
    return "layers % (pp v)";
  if (k->cp > 1 && (m->experts > 0 || m->seq % (2 * k->cp) != 0))
    return m->experts > 0 ? "cp with experts" : "seq % (2 cp)";
  if (k->cp > 1 && pb->attention == WL_ATTENTION_UNFUSED)
    return "cp with unfused attention";
  if (k->zero != 0 && pb->no_dp_overlap)
    return "zero or dist with no-dp-overlap";
  if (k->ep > 1 && (m->experts == 0 || m->experts % k->ep != 0 || k->dp % k->ep != 0))
    return m->experts == 0 ? "ep without experts" : m->experts % k->ep ? "experts % ep" : "dp % ep";
  if (pb->global_batch % ((guint64) k->mb * k->dp) != 0)
    return "global-batch % (mb dp)";
  if (k->v > 1 && (pb->global_batch / (k->mb * k->dp)) % k->pp != 0)
    return "micro-batches % pp";
  return NULL;
}

/* The ZeRO stage whose traces Z gives with DP data-parallel ranks of CP
 * context-parallel ones: ZeRO shards over DP (none to shard with one), the
 * distributed optimizer over DP x CP. */
static guint32
zero_alike (guint32 z, guint32 dp, guint32 cp)
{
  if ((z > 0 && z < PLAN_ZERO_DIST && dp == 1) || (z == PLAN_ZERO_DIST && dp * cp == 1))
    return 0;
  return z;
}

/* Configurations that repeat another in the space: ZeRO stages with one
 * DP rank (the same traces and memory; the first of the alike values in
 * the space's order stands for them), and GPipe with one stage, which
 * 1F1B stands for (the same time; GPipe holds every micro-batch's
 * activations, so its memory is never below 1F1B's: Llama-2 7B at TP 8
 * and 8 micro-batches, 30.8 against 16.2 GiB, 534.098 ms each). */
static const char *
repeat_reason (const PlanSpace *s, const PlanProblem *pb, const PlanKnobs *k)
{
  static const char *const zero_same[PLAN_ZERO_DIST + 1]
      = { "same as zero0 (dp 1)", "same as zero1 (dp 1)", "same as zero2 (dp 1)",
          "same as zero3 (dp 1)", "same as dist (dp cp 1)" };
  guint32 values[PLAN_MAX_VALUES];
  guint n = key_values (s, pb, PLAN_ZERO, k->dp, values);
  guint32 mine = zero_alike (k->zero, k->dp, k->cp);
  for (guint i = 0; i < n && values[i] != k->zero; i++)
    if (zero_alike (values[i], k->dp, k->cp) == mine)
      return values[i] == 0 && k->zero == PLAN_ZERO_DIST ? "same as zero0 (dp cp 1)"
                                                         : zero_same[values[i]];
  /* With one stage every schedule takes the same time, and 1F1B the
   * least memory: it stands whenever the space lists it, whatever the
   * order (with "gpipe,1f1b" GPipe stood, and where its activations did
   * not fit, neither did anything). */
  n = key_values (s, pb, PLAN_SCHED, k->dp, values);
  if (k->pp == 1 && k->sched != WL_PIPE_1F1B)
    for (guint i = 0; i < n; i++)
      if (values[i] == WL_PIPE_1F1B)
        return "same as 1f1b (pp 1)";
  return NULL;
}

gboolean
plan_space_memory (const PlanProblem *pb, const PlanKnobs *k, guint64 *mem_B, GError **error)
{
  WlGenTransformer req;
  plan_space_request (pb, k, &req);
  g_autofree WlStageMemory *mem = g_new0 (WlStageMemory, k->pp);
  *mem_B = 0;
  if (!wl_gen_transformer_memory (&req, mem, error))
    return FALSE;
  for (guint32 p = 0; p < k->pp; p++)
    *mem_B = MAX (*mem_B, mem[p].total_B);
  return TRUE;
}

/* Prune C (knobs set) or leave it PLAN_PENDING with its memory. */
static void
judge (const PlanSpace *s, const PlanProblem *pb, PlanCandidate *c)
{
  c->status = PLAN_PRUNED;
  c->reason = shape_reason (pb, &c->k, s->tp_across);
  if (c->reason == NULL)
    c->reason = repeat_reason (s, pb, &c->k);
  if (c->reason != NULL)
    return;
  g_autoptr (GError) why = NULL;
  if (!plan_space_memory (pb, &c->k, &c->mem_B, &why))
    {
      /* The generator's own words, so that the user learns which size to
       * change; interned, since reasons outlive the candidate and are
       * counted by their text (a few distinct ones per space). */
      g_autofree char *text = g_strdup_printf ("refused by the generator (%s)",
                                               why != NULL ? why->message : "no reason given");
      c->reason = g_intern_string (text);
      return;
    }
  if ((double) c->mem_B > pb->device->mem_capacity_B)
    c->reason = "memory";
  else
    c->status = PLAN_PENDING;
}

/* The candidates of one (tp, pp, v, cp, ep): every b, zero, recompute and
 * schedule. */
static void
enumerate_inner (const PlanSpace *s, const PlanProblem *pb, PlanKnobs k, GArray *out)
{
  guint32 mb[PLAN_MAX_VALUES], zero[PLAN_MAX_VALUES], rc[PLAN_MAX_VALUES], sched[PLAN_MAX_VALUES];
  guint n_mb = key_values (s, pb, PLAN_MB, k.dp, mb);
  guint n_zero = key_values (s, pb, PLAN_ZERO, 0, zero);
  guint n_rc = key_values (s, pb, PLAN_RECOMPUTE, 0, rc);
  guint n_sched = key_values (s, pb, PLAN_SCHED, 0, sched);
  for (guint a = 0; a < n_mb; a++)
    for (guint z = 0; z < n_zero; z++)
      for (guint r = 0; r < n_rc; r++)
        for (guint q = 0; q < n_sched; q++)
          {
            PlanCandidate c = { .id = out->len, .k = k };
            c.k.mb = mb[a];
            c.k.zero = zero[z];
            c.k.recompute = (WlRecompute) rc[r];
            c.k.sched = (WlPipeSchedule) sched[q];
            judge (s, pb, &c);
            g_array_append_val (out, c);
          }
}

void
plan_space_none_fit (GArray *cands, const PlanProblem *pb, GError **error)
{
  const PlanCandidate *least = NULL;
  guint n_memory = 0;
  for (guint i = 0; i < cands->len; i++)
    {
      const PlanCandidate *c = &g_array_index (cands, PlanCandidate, i);
      if (c->status != PLAN_PRUNED || strcmp (c->reason, "memory") != 0)
        continue;
      n_memory++;
      if (least == NULL || c->mem_B < least->mem_B)
        least = c;
    }
  g_autofree char *all = cands->len == 1
      ? g_strdup ("the one candidate is pruned (the reason above)")
      : g_strdup_printf ("all %u are pruned (the reasons above)", cands->len);
  if (least == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "no candidate fits: %s", all);
      return;
    }
  const double gib = 1024.0 * 1024.0 * 1024.0;
  const PlanKnobs *k = &least->k;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "no candidate fits: %s; the least memory of the %u pruned for memory is %.2f "
               "GiB a GPU (candidate %u: tp %u, pp %u, v %u, dp %u, cp %u, ep %u, mb %u, %s, "
               "recompute %s, %s), above the %s's %.2f GiB: more GPUs (--gpus) or a device "
               "with more memory (--device)",
               all, n_memory, (double) least->mem_B / gib, least->id, k->tp, k->pp, k->v, k->dp,
               k->cp, k->ep, k->mb, plan_zero_name (k->zero), plan_recompute_name (k->recompute),
               plan_sched_name (k->sched), pb->device->name, pb->device->mem_capacity_B / gib);
}

guint64
plan_space_count (const PlanSpace *s, const PlanProblem *pb)
{
  guint32 tp[PLAN_MAX_VALUES], pp[PLAN_MAX_VALUES], cp[PLAN_MAX_VALUES], other[PLAN_MAX_VALUES];
  guint n_tp = key_values (s, pb, PLAN_TP, 0, tp), n_pp = key_values (s, pb, PLAN_PP, 0, pp);
  guint n_cp = key_values (s, pb, PLAN_CP, 0, cp);
  /* Every knob but the micro-batch has a list of its own; the
   * micro-batch's default depends on dp, so it is counted per (tp, pp, cp). */
  guint64 rest = 1, total = 0;
  const PlanKey fixed[] = { PLAN_V, PLAN_EP, PLAN_ZERO, PLAN_RECOMPUTE, PLAN_SCHED };
  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    rest *= key_values (s, pb, fixed[i], 0, other);
  for (guint a = 0; a < n_tp; a++)
    for (guint b = 0; b < n_pp; b++)
      for (guint d = 0; d < n_cp; d++)
        {
          guint64 cell = (guint64) tp[a] * pp[b] * cp[d];
          guint32 dp = pb->gpus % cell == 0 ? (guint32) (pb->gpus / cell) : 0;
          total += rest * key_values (s, pb, PLAN_MB, dp, other);
        }
  return total;
}

GArray *
plan_space_enumerate (const PlanSpace *s, const PlanProblem *pb)
{
  GArray *out = g_array_new (FALSE, TRUE, sizeof (PlanCandidate));
  guint32 tp[PLAN_MAX_VALUES], pp[PLAN_MAX_VALUES], v[PLAN_MAX_VALUES], cp[PLAN_MAX_VALUES],
      ep[PLAN_MAX_VALUES];
  guint n_tp = key_values (s, pb, PLAN_TP, 0, tp), n_pp = key_values (s, pb, PLAN_PP, 0, pp);
  guint n_v = key_values (s, pb, PLAN_V, 0, v), n_cp = key_values (s, pb, PLAN_CP, 0, cp);
  guint n_ep = key_values (s, pb, PLAN_EP, 0, ep);
  for (guint a = 0; a < n_tp; a++)
    for (guint b = 0; b < n_pp; b++)
      for (guint c = 0; c < n_v; c++)
        for (guint d = 0; d < n_cp; d++)
          for (guint e = 0; e < n_ep; e++)
            {
              guint64 cell = (guint64) tp[a] * pp[b] * cp[d];
              PlanKnobs k = { .tp = tp[a], .pp = pp[b], .v = v[c], .cp = cp[d], .ep = ep[e] };
              k.dp = pb->gpus % cell == 0 ? (guint32) (pb->gpus / cell) : 0;
              enumerate_inner (s, pb, k, out);
            }
  return out;
}
