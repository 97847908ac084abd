/* gen_transformer_mem.c: per-stage memory of a transformer iteration (see
 * gen_transformer.h). */
#include "workload/gen_transformer_private.h"

gboolean
wl_gen_transformer_memory (const WlGenTransformer *r, WlStageMemory *out, GError **error)
{
  g_return_val_if_fail (r != NULL && out != NULL, FALSE);
  guint32 M = wl_gen_transformer_microbatches (r, error);
  if (M == 0)
    return FALSE;
  const WlTransformerModel *m = &r->model;
  guint64 s = m->seq, b = r->micro_batch, h = m->hidden, a = m->heads, tp = r->tp;
  guint64 emb = (guint64) m->vocab * h;
  /* tp divides h and heads, so both terms divide exactly. */
  /* With sequence parallelism even the one kept input is split over the
   * tensor group. */
  guint64 per_layer = r->recompute ? 2 * s * b * h / tp : (34 * s * b * h + 5 * a * s * s * b) / tp;
  for (guint32 p = 0; p < r->pp; p++)
    {
      WlStageMemory *o = &out[p];
      o->layers = stage_layers (r, p);
      guint64 params = o->layers * dense_part (m) + (p == 0 ? emb : 0)
                       + (p + 1 == r->pp ? emb : 0);
      guint64 n = params / tp, ne = o->layers * expert_part (r) / tp;
      o->in_flight = r->schedule == WL_PIPE_GPIPE ? M : MIN (M, r->pp - p);
      guint64 dp = r->dp, edp = r->dp / ep_of (r);
      o->params_B = r->zero >= 3 ? 2 * n / dp + 2 * ne / edp : 2 * n + 2 * ne;
      if (r->zero >= 3 && dp > 1)
        {
          /* The largest unit gathered at once: a layer, or the embedding /
           * LM head on the first / last stage; twice (current + prefetch). */
          guint64 unit = layer_local (r);
          if (p == 0 || p + 1 == r->pp)
            unit = MAX (unit, emb);
          o->params_B += 2 * (2 * (unit / tp));
        }
      o->grads_B = r->zero >= 2 ? 2 * n / dp + 2 * ne / edp : 2 * n + 2 * ne;
      o->optimizer_B = r->zero >= 1 ? 12 * n / dp + 12 * ne / edp : 12 * n + 12 * ne;
      o->activations_B = (guint64) o->layers * o->in_flight * per_layer;
      o->total_B = o->params_B + o->grads_B + o->optimizer_B + o->activations_B;
    }
  return TRUE;
}
