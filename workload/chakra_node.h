/* chakra_node.h: reading a Chakra node's attributes, and the names of the
 * schema's node and collective types.
 *
 * What it models: ChakraProtoMsg__AttributeProto values as real traces
 * write them: integers in any of protobuf's ten integer kinds or as bool
 * (writers disagree on kinds), truth lists in any integer list kind, and
 * attributes with a name but no value, which strict loading refuses and
 * lenient loading drops.  Errors are WL_ERROR, SIM_ERROR_INPUT, naming the
 * node id and the attribute.  The frames that carry the nodes are read and
 * written in chakra.h, which includes this header.
 * Ownership: strings and messages returned are borrowed from the node or
 * from static storage; lists returned are the caller's.
 *
 * Layer: workload.  May include: sim, GLib, protobuf-c.
 */
#ifndef ORRERY_WORKLOAD_CHAKRA_NODE_H
#define ORRERY_WORKLOAD_CHAKRA_NODE_H

#include <glib.h>

#include "chakra.pb-c.h"
#include "workload/wl_error.h"

/* ------------------------------------------------------------ attributes */

/* The first attribute of N called NAME, or NULL.  Borrowed from N.  A linear
 * scan: nodes carry a handful of attributes. */
const ChakraProtoMsg__AttributeProto *wl_chakra_attr_find (const ChakraProtoMsg__Node *n,
                                                           const char *name);

/* The attributes orrery reads, by name (FORMAT.md's table, and the
 * generators' is_recompute, kernels and exchange); WL_ATTR_OTHER: any other name. */
typedef enum
{
  WL_ATTR_IS_CPU_OP,
  WL_ATTR_NUM_OPS,
  WL_ATTR_TENSOR_SIZE,
  WL_ATTR_IS_RECOMPUTE,
  WL_ATTR_KERNELS,
  WL_ATTR_COMM_TYPE,
  WL_ATTR_COMM_SIZE,
  WL_ATTR_COMM_SRC,
  WL_ATTR_COMM_DST,
  WL_ATTR_COMM_TAG,
  WL_ATTR_COMM_PRIORITY,
  WL_ATTR_COMM_ROOT,
  WL_ATTR_ROOT,
  WL_ATTR_PG_NAME,
  WL_ATTR_INVOLVED_DIM,
  WL_ATTR_STREAM,
  WL_ATTR_EXCHANGE,
  WL_ATTR_OTHER /* also the number of the names above */
} WlAttrKey;

/* The name of KEY ("comm_type"); NULL for WL_ATTR_OTHER. */
const char *wl_chakra_attr_name (WlAttrKey key);
/* The key of the LEN bytes at NAME (no NUL needed): a switch on the length
 * and one or two bytes, then one comparison (no hashing).  Any name that
 * is not exactly one of the above is WL_ATTR_OTHER. */
WlAttrKey wl_chakra_attr_key (const char *name, gsize len);

/* The static copy of the name at NAME (LEN bytes) when it is one of the
 * above, else NULL: a decoder may point an attribute's name at it rather
 * than copy it (never freed, never written), which wl_chakra_attr_index
 * then recognises by its address. */
const char *wl_chakra_attr_known (const char *name, gsize len);

/* N's attributes by key: the first attribute with each name (as
 * wl_chakra_attr_find finds it), or NULL.  AGAIN: the first attribute
 * whose name is one of the keys and was met before in N (NULL: none), a
 * trace readers disagree on (ASTRA-sim's keeps the last value).  Borrowed
 * from N. */
typedef struct
{
  const ChakraProtoMsg__AttributeProto *of[WL_ATTR_OTHER];
  const ChakraProtoMsg__AttributeProto *again;
} WlAttrIndex;
/* What loading and inspect say of WlAttrIndex.again, after its name. */
#define WL_ATTR_AGAIN_WHY                                                                       \
  "is given twice (ASTRA-sim keeps the last value, other readers the first): keep one"
/* Fill IDX from N: one pass over its attributes, each name measured and
 * dispatched once, instead of a scan per attribute looked up. */
void wl_chakra_attr_index (const ChakraProtoMsg__Node *n, WlAttrIndex *idx);

/* The attribute NAME of N as a signed integer.  Any integer kind (int32,
 * int64, uint32, uint64, sint32, sint64, fixed32, fixed64, sfixed32,
 * sfixed64) or bool (0/1) is accepted, because writers disagree on kinds.
 * Returns TRUE and sets *OUT when present; FALSE with ERROR unset when
 * absent (*OUT untouched, so it may hold the default); FALSE with ERROR set
 * (SIM_ERROR_INPUT, naming the attribute and the node id) when it has
 * another kind, or is unsigned above G_MAXINT64.  An attribute with a name
 * but no value (value_case NOT_SET) is an error too: "node N: attribute
 * "NAME" has no value (valueless attribute)"; callers that want to treat it
 * as absent remove it first (wl_chakra_node_drop_valueless). */
gboolean wl_chakra_attr_int (const ChakraProtoMsg__Node *n, const char *name, gint64 *out,
                             GError **error);

/* As wl_chakra_attr_int for the attribute A of N found already (NULL:
 * absent), e.g. from a WlAttrIndex; likewise the _at forms below. */
gboolean wl_chakra_attr_int_at (const ChakraProtoMsg__Node *n,
                                const ChakraProtoMsg__AttributeProto *a, gint64 *out,
                                GError **error);
gboolean wl_chakra_attr_uint_at (const ChakraProtoMsg__Node *n,
                                 const ChakraProtoMsg__AttributeProto *a, guint64 *out,
                                 GError **error);
gboolean wl_chakra_attr_bool_at (const ChakraProtoMsg__Node *n,
                                 const ChakraProtoMsg__AttributeProto *a, gboolean *out,
                                 GError **error);
gboolean wl_chakra_attr_string_at (const ChakraProtoMsg__Node *n,
                                   const ChakraProtoMsg__AttributeProto *a, const char **out,
                                   GError **error);
gboolean wl_chakra_attr_bool_list_at (const ChakraProtoMsg__Node *n,
                                      const ChakraProtoMsg__AttributeProto *a, GArray **out,
                                      GError **error);

/* As wl_chakra_attr_int, as an unsigned integer: a negative value is an
 * error. */
gboolean wl_chakra_attr_uint (const ChakraProtoMsg__Node *n, const char *name, guint64 *out,
                              GError **error);

/* As wl_chakra_attr_int, as a truth value: nonzero is TRUE. */
gboolean wl_chakra_attr_bool (const ChakraProtoMsg__Node *n, const char *name, gboolean *out,
                              GError **error);

/* The attribute NAME of N as text: only string_val is accepted.  *OUT is
 * borrowed from N.  Absent and wrong-kind cases as for wl_chakra_attr_int. */
gboolean wl_chakra_attr_string (const ChakraProtoMsg__Node *n, const char *name,
                                const char **out, GError **error);

/* The attribute NAME of N as a list of truth values: bool_list, or any
 * integer list kind (nonzero is TRUE).  On success *OUT is a new GArray of
 * gboolean that the caller owns (g_array_unref).  Absent and wrong-kind
 * cases as for wl_chakra_attr_int (*OUT untouched). */
gboolean wl_chakra_attr_bool_list (const ChakraProtoMsg__Node *n, const char *name,
                                   GArray **out, GError **error);

/* Remove from N every attribute that has a name but no value, freeing it,
 * and return how many were removed (0 leaves N untouched).  Lenient loading
 * uses this to take such attributes as absent. */
guint wl_chakra_node_drop_valueless (ChakraProtoMsg__Node *n);

/* As wl_chakra_node_drop_valueless for a node a reader lends
 * (WL_CHAKRA_BORROW_NODES): the attributes are removed from N's list but
 * not freed, their memory being the reader's. */
guint wl_chakra_node_unlink_valueless (ChakraProtoMsg__Node *n);

/* ------------------------------------------------------------ trace facts */

/* What a generated trace says about the whole iteration, in GlobalMetadata
 * attributes (the same in every rank's file): tokens_per_iteration (global
 * batch x sequence length, an integer), model_flops (the FLOPs of one
 * iteration over all ranks, an integer or a double) and flops_formula (a
 * string naming how model_flops was counted, e.g. "6N+attention"); and
 * about its own rank: peak_memory_bytes (the device memory the rank needs
 * at its peak, by the generator's estimate of parameters, gradients,
 * optimizer state and activations, an integer). */
typedef struct
{
  double model_flops;            /* 0: absent */
  guint64 tokens_per_iteration;  /* 0: absent */
  const char *flops_formula;     /* held for the process (one copy per text: pointers
                                  * compare); at most 256 bytes; NULL: absent */
  guint64 peak_memory_B;         /* this rank's; 0: absent */
} WlTraceFacts;

/* How many attributes wl_chakra_facts_attrs writes at most. */
#define WL_TRACE_FACTS_MAX 4

/* Read META's facts into *OUT (every one absent when META is NULL: a
 * headerless file).  FALSE with ERROR set (WL_ERROR, SIM_ERROR_INPUT:
 * "GlobalMetadata: attribute "NAME" is ...") when one has the wrong kind or
 * is negative. */
gboolean wl_chakra_metadata_facts (const ChakraProtoMsg__GlobalMetadata *meta, WlTraceFacts *out,
                                   GError **error);

/* Whether NAME is one of the facts' attribute names. */
gboolean wl_chakra_is_fact (const char *name);

/* Fill ATTRS[0..] (borrowed strings: they must outlive the writing) with
 * the facts FACTS has, and return how many (0 to WL_TRACE_FACTS_MAX). */
guint wl_chakra_facts_attrs (const WlTraceFacts *facts,
                             ChakraProtoMsg__AttributeProto attrs[WL_TRACE_FACTS_MAX]);

/* ------------------------------------------------------------------ names */

/* "COMP_NODE", "COMM_COLL_NODE", ... for a NodeType value; NULL for values
 * the schema does not define (callers print the number). */
const char *wl_chakra_node_type_name (int type);

/* "ALL_REDUCE", "REDUCE_SCATTER", ... for a CollectiveCommType value; NULL
 * for values the schema does not define. */
const char *wl_chakra_comm_type_name (int comm_type);

#endif /* ORRERY_WORKLOAD_CHAKRA_NODE_H */
