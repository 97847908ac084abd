/* chakra_node.c: a Chakra node's attributes, read with the kinds writers
 * actually use, and the names of the schema's enum values; see
 * chakra_node.h. */
#include "workload/chakra_node.h"

#include <math.h>
#include <string.h>

/* The union member name of an AttributeProto value kind, e.g. VC (INT32_VAL). */
#define VC(kind) CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_##kind

/* An integer attribute widened without loss: signed kinds in S, unsigned
 * kinds and bool in U. */
typedef struct
{
  gboolean is_signed;
  gint64 s;
  guint64 u;
} IntValue;

static gboolean
int_value (const ChakraProtoMsg__AttributeProto *a, IntValue *v)
{
  *v = (IntValue) { 0 };
  switch (a->value_case)
    {
    case VC (INT32_VAL): v->is_signed = TRUE; v->s = a->int32_val; return TRUE;
    case VC (INT64_VAL): v->is_signed = TRUE; v->s = a->int64_val; return TRUE;
    case VC (SINT32_VAL): v->is_signed = TRUE; v->s = a->sint32_val; return TRUE;
    case VC (SINT64_VAL): v->is_signed = TRUE; v->s = a->sint64_val; return TRUE;
    case VC (SFIXED32_VAL): v->is_signed = TRUE; v->s = a->sfixed32_val; return TRUE;
    case VC (SFIXED64_VAL): v->is_signed = TRUE; v->s = a->sfixed64_val; return TRUE;
    case VC (UINT32_VAL): v->u = a->uint32_val; return TRUE;
    case VC (UINT64_VAL): v->u = a->uint64_val; return TRUE;
    case VC (FIXED32_VAL): v->u = a->fixed32_val; return TRUE;
    case VC (FIXED64_VAL): v->u = a->fixed64_val; return TRUE;
    case VC (BOOL_VAL): v->u = a->bool_val ? 1 : 0; return TRUE;
    default: return FALSE;
    }
}

static void
attr_error (GError **error, const ChakraProtoMsg__Node *n,
            const ChakraProtoMsg__AttributeProto *a, const char *problem)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "node %" G_GUINT64_FORMAT ": attribute \"%s\" %s", n->id, a->name, problem);
}

/* Report that A has the wrong kind, naming the kind it has. */
static void
kind_error (GError **error, const ChakraProtoMsg__Node *n,
            const ChakraProtoMsg__AttributeProto *a, const char *expected)
{
  if (a->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET)
    {
      attr_error (error, n, a, "has no value (valueless attribute)");
      return;
    }
  const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field (
    &chakra_proto_msg__attribute_proto__descriptor, (unsigned) a->value_case);
  g_autofree char *problem = g_strdup_printf ("is %s, expected %s",
                                              f != NULL ? f->name : "of an unknown kind", expected);
  attr_error (error, n, a, problem);
}

/* A (NULL: absent) as an integer: 1 when present (*V set), 0 when absent,
 * -1 with ERROR set when it has another kind. */
static int
lookup_int (const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a,
            IntValue *v, GError **error)
{
  if (a == NULL)
    return 0;
  if (!int_value (a, v))
    {
      kind_error (error, n, a, "an integer or bool");
      return -1;
    }
  return 1;
}

const ChakraProtoMsg__AttributeProto *
wl_chakra_attr_find (const ChakraProtoMsg__Node *n, const char *name)
{
  g_return_val_if_fail (n != NULL && name != NULL, NULL);
  /* Called several times per node while loading: the first byte rules out
   * most attributes before a full comparison. */
  for (size_t i = 0; i < n->n_attr; i++)
    {
      const char *an = n->attr[i]->name;
      if (an != NULL && an[0] == name[0] && strcmp (an, name) == 0)
        return n->attr[i];
    }
  return NULL;
}

/* Indexed by WlAttrKey. */
static const char ATTR_NAMES[WL_ATTR_OTHER][16] = {
  [WL_ATTR_IS_CPU_OP] = "is_cpu_op",         [WL_ATTR_NUM_OPS] = "num_ops",
  [WL_ATTR_TENSOR_SIZE] = "tensor_size",     [WL_ATTR_IS_RECOMPUTE] = "is_recompute",
  [WL_ATTR_KERNELS] = "kernels",             [WL_ATTR_COMM_TYPE] = "comm_type",
  [WL_ATTR_COMM_SIZE] = "comm_size",         [WL_ATTR_COMM_SRC] = "comm_src",
  [WL_ATTR_COMM_DST] = "comm_dst",           [WL_ATTR_COMM_TAG] = "comm_tag",
  [WL_ATTR_COMM_PRIORITY] = "comm_priority", [WL_ATTR_COMM_ROOT] = "comm_root",
  [WL_ATTR_ROOT] = "root",                   [WL_ATTR_PG_NAME] = "pg_name",
  [WL_ATTR_INVOLVED_DIM] = "involved_dim",   [WL_ATTR_STREAM] = "stream",
  [WL_ATTR_EXCHANGE] = "exchange",
};

const char *
wl_chakra_attr_name (WlAttrKey key)
{
  return key < WL_ATTR_OTHER ? ATTR_NAMES[key] : NULL;
}

/* NAME (LEN bytes) is KEY's name: a comparison of a constant length, which
 * the compiler turns into a load or two. */
#define IS(key, len) (memcmp (name, ATTR_NAMES[key], len) == 0 ? (key) : WL_ATTR_OTHER)

WlAttrKey
wl_chakra_attr_key (const char *name, gsize len)
{
  /* The one candidate of each length, told apart by a byte where they
   * differ, then compared whole. */
  switch (len)
    {
    case 4: return IS (WL_ATTR_ROOT, 4);
    case 6: return IS (WL_ATTR_STREAM, 6);
    case 7:
      return name[0] == 'n'   ? IS (WL_ATTR_NUM_OPS, 7)
             : name[0] == 'p' ? IS (WL_ATTR_PG_NAME, 7)
                              : IS (WL_ATTR_KERNELS, 7);
    case 8:
      return name[5] == 's'   ? IS (WL_ATTR_COMM_SRC, 8)
             : name[5] == 'd' ? IS (WL_ATTR_COMM_DST, 8)
             : name[5] == 'n' ? IS (WL_ATTR_EXCHANGE, 8)
                              : IS (WL_ATTR_COMM_TAG, 8);
    case 9:
      return name[0] == 'i'   ? IS (WL_ATTR_IS_CPU_OP, 9)
             : name[5] == 't' ? IS (WL_ATTR_COMM_TYPE, 9)
             : name[5] == 's' ? IS (WL_ATTR_COMM_SIZE, 9)
                              : IS (WL_ATTR_COMM_ROOT, 9);
    case 11: return IS (WL_ATTR_TENSOR_SIZE, 11);
    case 12:
      return name[1] == 's' ? IS (WL_ATTR_IS_RECOMPUTE, 12) : IS (WL_ATTR_INVOLVED_DIM, 12);
    case 13: return IS (WL_ATTR_COMM_PRIORITY, 13);
    default: return WL_ATTR_OTHER;
    }
}

#undef IS

const char *
wl_chakra_attr_known (const char *name, gsize len)
{
  WlAttrKey k = wl_chakra_attr_key (name, len);
  return k != WL_ATTR_OTHER ? ATTR_NAMES[k] : NULL;
}

void
wl_chakra_attr_index (const ChakraProtoMsg__Node *n, WlAttrIndex *idx)
{
  g_return_if_fail (n != NULL && idx != NULL);
  memset (idx, 0, sizeof *idx);
  for (size_t i = 0; i < n->n_attr; i++)
    {
      const char *an = n->attr[i]->name;
      if (an == NULL)
        continue;
      /* A name from wl_chakra_attr_known is known by its address; any other
       * is measured (a name with a NUL inside is what strcmp takes it for). */
      guintptr off = (guintptr) an - (guintptr) ATTR_NAMES[0];
      WlAttrKey k = off < sizeof ATTR_NAMES && off % sizeof ATTR_NAMES[0] == 0
                      ? (WlAttrKey) (off / sizeof ATTR_NAMES[0])
                      : wl_chakra_attr_key (an, strlen (an));
      if (k != WL_ATTR_OTHER && idx->of[k] == NULL)
        idx->of[k] = n->attr[i];
      else if (k != WL_ATTR_OTHER && idx->again == NULL)
        idx->again = n->attr[i];
    }
}

/* Does V fit a signed (WANT_SIGNED) or an unsigned 64-bit integer?  FALSE
 * with ERROR set, naming A of N, when it does not. */
static gboolean
int_fits (const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a,
          const IntValue *v, gboolean want_signed, GError **error)
{
  g_autofree char *problem = NULL;
  if (want_signed && !v->is_signed && v->u > (guint64) G_MAXINT64)
    problem = g_strdup_printf ("is %" G_GUINT64_FORMAT
                               ", above the largest signed 64-bit integer", v->u);
  else if (!want_signed && v->is_signed && v->s < 0)
    problem = g_strdup_printf ("is %" G_GINT64_FORMAT ", expected a non-negative integer", v->s);
  if (problem != NULL)
    attr_error (error, n, a, problem);
  return problem == NULL;
}

gboolean
wl_chakra_attr_int_at (const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a,
                       gint64 *out, GError **error)
{
  g_return_val_if_fail (n != NULL && out != NULL, FALSE);
  IntValue v;
  if (lookup_int (n, a, &v, error) <= 0 || !int_fits (n, a, &v, TRUE, error))
    return FALSE;
  *out = v.is_signed ? v.s : (gint64) v.u;
  return TRUE;
}

gboolean
wl_chakra_attr_int (const ChakraProtoMsg__Node *n, const char *name, gint64 *out,
                    GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  return wl_chakra_attr_int_at (n, wl_chakra_attr_find (n, name), out, error);
}

gboolean
wl_chakra_attr_uint_at (const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a,
                        guint64 *out, GError **error)
{
  g_return_val_if_fail (n != NULL && out != NULL, FALSE);
  IntValue v;
  if (lookup_int (n, a, &v, error) <= 0 || !int_fits (n, a, &v, FALSE, error))
    return FALSE;
  *out = v.is_signed ? (guint64) v.s : v.u;
  return TRUE;
}

gboolean
wl_chakra_attr_uint (const ChakraProtoMsg__Node *n, const char *name, guint64 *out,
                     GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  return wl_chakra_attr_uint_at (n, wl_chakra_attr_find (n, name), out, error);
}

gboolean
wl_chakra_attr_bool_at (const ChakraProtoMsg__Node *n, const ChakraProtoMsg__AttributeProto *a,
                        gboolean *out, GError **error)
{
  g_return_val_if_fail (n != NULL && out != NULL, FALSE);
  IntValue v;
  if (lookup_int (n, a, &v, error) <= 0)
    return FALSE;
  *out = v.is_signed ? v.s != 0 : v.u != 0;
  return TRUE;
}

gboolean
wl_chakra_attr_bool (const ChakraProtoMsg__Node *n, const char *name, gboolean *out,
                     GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  return wl_chakra_attr_bool_at (n, wl_chakra_attr_find (n, name), out, error);
}

gboolean
wl_chakra_attr_string_at (const ChakraProtoMsg__Node *n,
                          const ChakraProtoMsg__AttributeProto *a, const char **out,
                          GError **error)
{
  g_return_val_if_fail (n != NULL && out != NULL, FALSE);
  if (a == NULL)
    return FALSE;
  if (a->value_case != VC (STRING_VAL))
    {
      kind_error (error, n, a, "string_val");
      return FALSE;
    }
  *out = a->string_val;
  return TRUE;
}

gboolean
wl_chakra_attr_string (const ChakraProtoMsg__Node *n, const char *name, const char **out,
                       GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  return wl_chakra_attr_string_at (n, wl_chakra_attr_find (n, name), out, error);
}

/* ---- trace facts ---------------------------------------------------------------- */

/* The facts' attribute names, spelled once for reading, writing and
 * wl_chakra_is_fact. */
#define FACT_TOKENS "tokens_per_iteration"
#define FACT_FLOPS "model_flops"
#define FACT_FORMULA "flops_formula"
#define FACT_MEMORY "peak_memory_bytes"

static gboolean
meta_error (GError **error, const ChakraProtoMsg__AttributeProto *a, const char *expected)
{
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
               "GlobalMetadata: attribute \"%s\" is not %s", a->name, expected);
  return FALSE;
}

/* A non-negative integer of any kind, widened. */
static gboolean
meta_count (const ChakraProtoMsg__AttributeProto *a, guint64 *out, GError **error)
{
  IntValue v;
  if (!int_value (a, &v) || (v.is_signed && v.s < 0))
    return meta_error (error, a, "a non-negative integer");
  *out = v.is_signed ? (guint64) v.s : v.u;
  return TRUE;
}

/* Formulas are few (orrery writes one; a run's traces share theirs), and
 * come from untrusted files: kept in a table of our own, bounded, rather
 * than GLib's string interning, which never frees and whose table growth
 * leaks by design (a fuzzer's millions of inputs grew it without end). */
#define FORMULA_MAX_BYTES 256
#define FORMULAS_MAX 1024

static GMutex formulas_lock;
static GHashTable *formulas; /* char * -> itself, owned, for the process */

/* TEXT's one copy for the process (pointers compare equal when the texts
 * do), or NULL with ERROR set when it is too long or too many are held. */
static const char *
formula_intern (const ChakraProtoMsg__AttributeProto *a, GError **error)
{
  if (strlen (a->string_val) > FORMULA_MAX_BYTES)
    return meta_error (error, a, "a string of at most 256 bytes"), NULL;
  g_mutex_lock (&formulas_lock);
  if (formulas == NULL)
    formulas = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  char *held = g_hash_table_lookup (formulas, a->string_val);
  if (held == NULL && g_hash_table_size (formulas) < FORMULAS_MAX)
    {
      held = g_strdup (a->string_val);
      g_hash_table_add (formulas, held);
    }
  g_mutex_unlock (&formulas_lock);
  if (held == NULL)
    g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                 "GlobalMetadata: attribute \"%s\": more than %d distinct formulas in one "
                 "process", a->name, FORMULAS_MAX);
  return held;
}

/* Read A into *OUT when it is one of the facts. */
static gboolean
meta_fact (const ChakraProtoMsg__AttributeProto *a, WlTraceFacts *out, GError **error)
{
  if (g_strcmp0 (a->name, FACT_TOKENS) == 0)
    return meta_count (a, &out->tokens_per_iteration, error);
  if (g_strcmp0 (a->name, FACT_MEMORY) == 0)
    return meta_count (a, &out->peak_memory_B, error);
  if (g_strcmp0 (a->name, FACT_FLOPS) == 0)
    {
      /* A double too: the FLOPs of a large run pass 2^64. */
      guint64 v = 0;
      if (a->value_case == VC (DOUBLE_VAL) && a->double_val >= 0.0 && isfinite (a->double_val))
        out->model_flops = a->double_val;
      else if (meta_count (a, &v, NULL))
        out->model_flops = (double) v;
      else
        return meta_error (error, a, "a finite non-negative number");
      return TRUE;
    }
  if (g_strcmp0 (a->name, FACT_FORMULA) == 0)
    {
      /* Reports copy it into JSON, which must be UTF-8. */
      if (a->value_case != VC (STRING_VAL) || !g_utf8_validate (a->string_val, -1, NULL))
        return meta_error (error, a, "a UTF-8 string");
      out->flops_formula = formula_intern (a, error);
      return out->flops_formula != NULL;
    }
  return TRUE;
}

gboolean
wl_chakra_is_fact (const char *name)
{
  static const char *const names[] = { FACT_TOKENS, FACT_FLOPS, FACT_FORMULA, FACT_MEMORY };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

gboolean
wl_chakra_metadata_facts (const ChakraProtoMsg__GlobalMetadata *meta, WlTraceFacts *out,
                          GError **error)
{
  g_return_val_if_fail (out != NULL, FALSE);
  *out = (WlTraceFacts) { 0 };
  if (meta == NULL)
    return TRUE;
  for (size_t i = 0; i < meta->n_attr; i++)
    if (!meta_fact (meta->attr[i], out, error))
      return FALSE;
  return TRUE;
}

guint
wl_chakra_facts_attrs (const WlTraceFacts *facts,
                       ChakraProtoMsg__AttributeProto attrs[WL_TRACE_FACTS_MAX])
{
  g_return_val_if_fail (facts != NULL && attrs != NULL, 0);
  guint n = 0;
  if (facts->tokens_per_iteration > 0)
    {
      chakra_proto_msg__attribute_proto__init (&attrs[n]);
      attrs[n].name = (char *) FACT_TOKENS;
      attrs[n].value_case = VC (UINT64_VAL);
      attrs[n++].uint64_val = facts->tokens_per_iteration;
    }
  if (facts->model_flops > 0.0)
    {
      /* An integer while it is one (what Chakra's integer readers expect),
       * a double past 2^64. */
      chakra_proto_msg__attribute_proto__init (&attrs[n]);
      attrs[n].name = (char *) FACT_FLOPS;
      if (facts->model_flops < 18446744073709551616.0
          && facts->model_flops == (double) (guint64) facts->model_flops)
        {
          attrs[n].value_case = VC (UINT64_VAL);
          attrs[n].uint64_val = (guint64) facts->model_flops;
        }
      else
        {
          attrs[n].value_case = VC (DOUBLE_VAL);
          attrs[n].double_val = facts->model_flops;
        }
      n++;
    }
  if (facts->flops_formula != NULL)
    {
      chakra_proto_msg__attribute_proto__init (&attrs[n]);
      attrs[n].name = (char *) FACT_FORMULA;
      attrs[n].value_case = VC (STRING_VAL);
      attrs[n++].string_val = (char *) facts->flops_formula;
    }
  if (facts->peak_memory_B > 0)
    {
      chakra_proto_msg__attribute_proto__init (&attrs[n]);
      attrs[n].name = (char *) FACT_MEMORY;
      attrs[n].value_case = VC (UINT64_VAL);
      attrs[n++].uint64_val = facts->peak_memory_B;
    }
  return n;
}

/* Remove N's valueless attributes, freeing them when FREE_THEM. */
static guint
remove_valueless (ChakraProtoMsg__Node *n, gboolean free_them)
{
  size_t kept = 0;
  for (size_t i = 0; i < n->n_attr; i++)
    {
      if (n->attr[i]->value_case != CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET)
        n->attr[kept++] = n->attr[i];
      else if (free_them)
        chakra_proto_msg__attribute_proto__free_unpacked (n->attr[i], NULL);
    }
  guint dropped = (guint) (n->n_attr - kept);
  n->n_attr = kept;
  return dropped;
}

guint
wl_chakra_node_drop_valueless (ChakraProtoMsg__Node *n)
{
  g_return_val_if_fail (n != NULL, 0);
  return remove_valueless (n, TRUE);
}

guint
wl_chakra_node_unlink_valueless (ChakraProtoMsg__Node *n)
{
  g_return_val_if_fail (n != NULL, 0);
  return remove_valueless (n, FALSE);
}

/* Append LIST's values to ARR as gboolean; a NULL list is empty. */
#define APPEND_TRUTHS(arr, list)                                              \
  do                                                                          \
    {                                                                         \
      for (size_t i_ = 0; (list) != NULL && i_ < (list)->n_values; i_++)      \
        {                                                                     \
          gboolean b_ = (list)->values[i_] != 0;                              \
          g_array_append_val ((arr), b_);                                     \
        }                                                                     \
    }                                                                         \
  while (0)

gboolean
wl_chakra_attr_bool_list (const ChakraProtoMsg__Node *n, const char *name, GArray **out,
                          GError **error)
{
  g_return_val_if_fail (n != NULL && name != NULL && out != NULL, FALSE);
  return wl_chakra_attr_bool_list_at (n, wl_chakra_attr_find (n, name), out, error);
}

gboolean
wl_chakra_attr_bool_list_at (const ChakraProtoMsg__Node *n,
                             const ChakraProtoMsg__AttributeProto *a, GArray **out,
                             GError **error)
{
  g_return_val_if_fail (n != NULL && out != NULL, FALSE);
  if (a == NULL)
    return FALSE;
  g_autoptr (GArray) arr = g_array_new (FALSE, FALSE, sizeof (gboolean));
  switch (a->value_case)
    {
    case VC (BOOL_LIST): APPEND_TRUTHS (arr, a->bool_list); break;
    case VC (INT32_LIST): APPEND_TRUTHS (arr, a->int32_list); break;
    case VC (INT64_LIST): APPEND_TRUTHS (arr, a->int64_list); break;
    case VC (UINT32_LIST): APPEND_TRUTHS (arr, a->uint32_list); break;
    case VC (UINT64_LIST): APPEND_TRUTHS (arr, a->uint64_list); break;
    case VC (SINT32_LIST): APPEND_TRUTHS (arr, a->sint32_list); break;
    case VC (SINT64_LIST): APPEND_TRUTHS (arr, a->sint64_list); break;
    case VC (FIXED32_LIST): APPEND_TRUTHS (arr, a->fixed32_list); break;
    case VC (FIXED64_LIST): APPEND_TRUTHS (arr, a->fixed64_list); break;
    case VC (SFIXED32_LIST): APPEND_TRUTHS (arr, a->sfixed32_list); break;
    case VC (SFIXED64_LIST): APPEND_TRUTHS (arr, a->sfixed64_list); break;
    default:
      kind_error (error, n, a, "a bool or integer list");
      return FALSE;
    }
  *out = g_steal_pointer (&arr);
  return TRUE;
}

/* ---- names ---------------------------------------------------------------------- */

const char *
wl_chakra_node_type_name (int type)
{
  const ProtobufCEnumValue *v =
    protobuf_c_enum_descriptor_get_value (&chakra_proto_msg__node_type__descriptor, type);
  return v != NULL ? v->name : NULL;
}

const char *
wl_chakra_comm_type_name (int comm_type)
{
  const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value (
    &chakra_proto_msg__collective_comm_type__descriptor, comm_type);
  return v != NULL ? v->name : NULL;
}
