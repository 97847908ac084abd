/* cmd_gen_transformer.h: the options of `orrery gen transformer`, shared by
 * cmd_gen.c (parsing, the request) and cmd_gen_transformer.c (the checks on
 * the values given, each message naming its option, and the note on an
 * uneven layer split).
 *
 * Layer: sim/app.  May include: GLib, workload.
 */
#ifndef ORRERY_SIM_APP_CMD_GEN_TRANSFORMER_H
#define ORRERY_SIM_APP_CMD_GEN_TRANSFORMER_H

#include <glib.h>

#include "workload/gen_transformer.h"

/* An integer option not given (told apart from an explicit 0). */
#define APP_GEN_ABSENT G_MININT

/* The options of gen transformer.  Model sizes (layers, hidden, heads, ffn,
 * vocab, seq), the micro-batch and the global batch that are absent stay at
 * APP_GEN_ABSENT, so that an explicit 0 can be refused; experts, top_k and
 * zero at -1. */
typedef struct
{
  char *preset;
  char *sched;
  char *out;
  char *device_name;
  char *dtype;
  char *attention;
  char *dp_bucket;
  char *groups_out;
  gint model[6];
  gint b, B, tp, pp, dp, M, zero, ranks, ep, experts, top_k, vstages, cp, kv_heads;
  WlRecompute recompute;
  gboolean list, strict_memory, fsdp, no_sp, dist_opt, no_dp_overlap, gated_ffn;
  gboolean dp_coalesce, grad_clip, loss_scale, grad_accum;
} TransformerOptions;

/* The option names of TransformerOptions.model, in its order. */
extern const char *const app_gen_model_options[6];

/* The values given that no layout can take, each named with its option:
 * a model size, micro-batch or global batch below 1 ("--layers 0: must be
 * at least 1"), --fsdp with another --zero, --distributed-optimizer or
 * --no-dp-overlap with ZeRO above 0.  FALSE with ERROR set at the first. */
gboolean app_gen_transformer_values (const TransformerOptions *o, GError **error);

/* When REQ's layers do not divide by pp x virtual stages, say on stderr how
 * they are split (the first L mod (pp v) chunks take one more,
 * workload/gen_transformer.h), which Megatron-LM would refuse. */
void app_gen_transformer_split_note (const WlGenTransformer *req);

/* Print each stage's per-rank memory of REQ on stdout; with REQ's device,
 * check it against the capacity: a warning on stderr per stage over it,
 * or (STRICT) an error (FALSE with ERROR set). */
gboolean app_gen_transformer_memory (const WlGenTransformer *req, gboolean strict,
                                     GError **error);


#endif /* ORRERY_SIM_APP_CMD_GEN_TRANSFORMER_H */
