/* test_gen_transformer_megatron.c: Megatron-LM's behaviours in the
 * transformer generator's emission: the kernel lists of one layer worked by
 * hand, full and selective recomputation, scatter/gather pipeline sends,
 * TP without sequence parallelism, context parallelism's ring traffic, the
 * data-parallel buckets and the optimizer step, the streams, and the FLOP
 * identity (sum of num_ops = wl_gen_transformer_flops = the closed form) in
 * every mode; small runs simulated to the end.
 */
#include <check.h>
#include <math.h>
#include <string.h>

#include "workload/chakra.h"
#include "workload/gen_transformer.h"
#include "support/testutil.h"

/* A small GPT-style model: L layers, h 256, 4 heads (d 64), f 1024, V 1000,
 * s 128.  Megatron pads the vocabulary to a multiple of 128 tp (tokenizer.py,
 * _vocab_size_with_padding): at tp 2, V' = ceil (1000 / 256) x 256 = 1024,
 * 512 rows per TP rank. */
static WlTransformerModel
small_model (guint32 layers)
{
  return (WlTransformerModel) { "custom", layers, 256, 4, 0, 1024, 1000, 128, FALSE, 0, 0 };
}

static WlGenTransformer
small_req (guint32 layers, guint32 tp, guint32 pp, guint32 dp, guint32 M)
{
  return (WlGenTransformer) { .model = small_model (layers), .micro_batch = 1, .microbatches = M,
                              .tp = tp, .pp = pp, .dp = dp };
}

static char *
generate (const WlGenTransformer *req, const char *tag)
{
  char *p = tu_scratch_path (tag);
  GError *error = NULL;
  ck_assert_msg (wl_gen_transformer (p, req, &error), "%s: %s", tag,
                 error != NULL ? error->message : "");
  return p;
}

/* Every node of rank R's trace, in file order (free with g_ptr_array_unref). */
static GPtrArray *
read_nodes (const char *prefix, guint32 r)
{
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, r);
  GError *error = NULL;
  g_autoptr (WlChakraReader) rd = wl_chakra_reader_open (path, &error);
  g_assert_no_error (error);
  GPtrArray *nodes = g_ptr_array_new_with_free_func ((GDestroyNotify) wl_chakra_node_free);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (rd, &error)) != NULL)
    g_ptr_array_add (nodes, n);
  g_assert_no_error (error);
  return nodes;
}

static gint64
attr_i (const ChakraProtoMsg__Node *n, const char *name)
{
  gint64 v = -1;
  ck_assert_msg (wl_chakra_attr_int (n, name, &v, NULL), "no %s on %s", name, n->name);
  return v;
}

static const char *
attr_s (const ChakraProtoMsg__Node *n, const char *name)
{
  const char *v = NULL;
  return wl_chakra_attr_string (n, name, &v, NULL) ? v : NULL;
}

static gboolean
is_recompute (const ChakraProtoMsg__Node *n)
{
  for (gsize i = 0; i < n->n_attr; i++)
    if (strcmp (n->attr[i]->name, "is_recompute") == 0)
      return n->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE_BOOL_VAL
             && n->attr[i]->bool_val;
  return FALSE;
}

static const ChakraProtoMsg__Node *
first_named (GPtrArray *nodes, const char *name)
{
  for (guint i = 0; i < nodes->len; i++)
    {
      const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
      if (strcmp (n->name, name) == 0)
        return n;
    }
  ck_abort_msg ("no node %s", name);
  return NULL;
}

/* Counts and comm_size sums of rank R's nodes of NAME (NULL: any) and
 * node TYPE. */
typedef struct
{
  guint n;
  guint64 bytes;
} Tally;

static Tally
tally (GPtrArray *nodes, const char *name, int type)
{
  Tally t = { 0 };
  for (guint i = 0; i < nodes->len; i++)
    {
      const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
      if ((int) n->type != type || (name != NULL && strcmp (n->name, name) != 0))
        continue;
      t.n++;
      if (type != CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE)
        t.bytes += (guint64) attr_i (n, "comm_size");
    }
  return t;
}

#define COMP CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE
#define COLL CHAKRA_PROTO_MSG__NODE_TYPE__COMM_COLL_NODE
#define SEND CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE
#define RECV CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE

/* One layer's kernels by hand, TP rank 0 of 2, b 1, s 128: tokens 128,
 * the sequence-parallel shard 64; heads 2 per rank, d 64.
 * GPT: QKV n = (2 + 2 x 2) 64 = 384; LayerNorm 2 x 2 bytes x 64 x 256 =
 * 65536; dropout + add 7 x 64 x 256 = 114688; GeLU 4 x 128 x 512 = 262144.
 * FLOPs: QKV 2 x 128 x 384 x 256 = 25165824, attention (causal) 4 x 2 x
 * 128^2 x 64 / 2 = 4194304, output 2 x 128 x 256 x 128 = 8388608: 37748736;
 * MLP 2 x (2 x 128 x 512 x 256) = 67108864. */
START_TEST (test_kernels_gpt_layer)
{
  WlGenTransformer req = small_req (2, 2, 1, 1, 1);
  g_autofree char *p = generate (&req, "gpt");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  const ChakraProtoMsg__Node *a = first_named (nodes, "attn_fwd");
  ck_assert_str_eq (attr_s (a, "kernels"),
                    "mem:bytes=65536,what=layernorm;gemm:m=128,n=384,k=256;"
                    "attn:dir=fwd,b=1,hq=2,sq=128,d=64,causal=1;"
                    "gemm:m=128,n=256,k=128;mem:bytes=114688,what=dropout_add");
  ck_assert_int_eq (attr_i (a, "num_ops"), 37748736);
  const ChakraProtoMsg__Node *m = first_named (nodes, "mlp_fwd");
  ck_assert_str_eq (attr_s (m, "kernels"),
                    "mem:bytes=65536,what=layernorm;gemm:m=128,n=512,k=256;"
                    "mem:bytes=262144,what=gelu;gemm:m=128,n=256,k=512;"
                    "mem:bytes=114688,what=dropout_add");
  ck_assert_int_eq (attr_i (m, "num_ops"), 67108864);
  /* The LM head: rank 0's 512 of the padded 1024 rows, in bf16; the
   * vocab-parallel cross entropy's 10 bytes per logit, 10 x 128 x 512 =
   * 655360; the GEMM's 2 x 128 x 512 x 256 FLOPs. */
  const ChakraProtoMsg__Node *head = first_named (nodes, "lm_head_fwd");
  ck_assert_str_eq (attr_s (head, "kernels"),
                    "mem:bytes=65536,what=layernorm;gemm:m=128,n=512,k=256;"
                    "mem:bytes=655360,what=cross_entropy");
  ck_assert_int_eq (attr_i (head, "num_ops"), 2 * 128 * 512 * 256);
}
END_TEST

/* Megatron-LM's eager layer of 2021-2022 (--attention unfused, no sequence
 * parallelism: the SC21 rows), tp 2: per rank 128 tokens, h 256, 2 heads
 * of 64 (128 wide), QKV 384 wide, FFN 512.  Beside the unfused core
 * attention: the QKV bias added after the GEMM, 4 x 128 x 384 = 196608
 * bytes; the context's permute copy, 4 x 128 x 128 = 65536, forward and
 * backward; backward, the bias gradients (2 bytes per output-gradient
 * element: dense and FC2 2 x 128 x 256 = 65536, QKV 2 x 128 x 384 =
 * 98304, FC1 2 x 128 x 512 = 131072), the q, k, v gradients concatenated
 * (4 x 128 x 384 = 196608) and the residual stream's two gradients added
 * after each norm (6 x 128 x 256 = 196608). */
START_TEST (test_kernels_eager_layer)
{
  WlGenTransformer req = small_req (2, 2, 1, 1, 1);
  req.attention = WL_ATTENTION_UNFUSED;
  req.no_sequence_parallel = TRUE;
  g_autofree char *p = generate (&req, "eager");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  ck_assert_str_eq (attr_s (first_named (nodes, "attn_fwd"), "kernels"),
                    "mem:bytes=131072,what=layernorm;gemm:m=128,n=384,k=256;"
                    "mem:bytes=196608,what=bias;"
                    "gemm:m=128,n=128,k=64,batch=2;mem:bytes=131072,what=softmax;"
                    "mem:bytes=163840,what=dropout;gemm:m=128,n=64,k=128,batch=2;"
                    "mem:bytes=65536,what=transpose;gemm:m=128,n=256,k=128;"
                    "mem:bytes=229376,what=dropout_add");
  ck_assert_str_eq (attr_s (first_named (nodes, "attn_bwd"), "kernels"),
                    "mem:bytes=229376,what=dropout_add;mem:bytes=65536,what=bias_grad;"
                    "gemm:m=128,n=128,k=256;gemm:m=128,n=256,k=128;"
                    "mem:bytes=65536,what=transpose;"
                    "gemm:m=128,n=128,k=64,batch=2;gemm:m=128,n=64,k=128,batch=2;"
                    "mem:bytes=163840,what=dropout;mem:bytes=196608,what=softmax;"
                    "gemm:m=128,n=64,k=128,batch=2;gemm:m=64,n=128,k=128,batch=2;"
                    "mem:bytes=196608,what=concat;mem:bytes=98304,what=bias_grad;"
                    "gemm:m=128,n=256,k=384;gemm:m=256,n=384,k=128;"
                    "mem:bytes=196608,what=layernorm;mem:bytes=196608,what=grad_add");
  ck_assert_str_eq (attr_s (first_named (nodes, "mlp_bwd"), "kernels"),
                    "mem:bytes=229376,what=dropout_add;mem:bytes=65536,what=bias_grad;"
                    "gemm:m=128,n=512,k=256;gemm:m=512,n=256,k=128;"
                    "mem:bytes=393216,what=gelu;mem:bytes=131072,what=bias_grad;"
                    "gemm:m=128,n=256,k=512;gemm:m=256,n=512,k=128;"
                    "mem:bytes=196608,what=layernorm;mem:bytes=196608,what=grad_add");
  /* FlashAttention (Megatron core with Transformer Engine) keeps none. */
  req.attention = WL_ATTENTION_FLASH;
  g_autofree char *q = generate (&req, "te");
  g_autoptr (GPtrArray) te = read_nodes (q, 0);
  for (guint i = 0; i < te->len; i++)
    {
      const char *k = attr_s (g_ptr_array_index (te, i), "kernels");
      if (k != NULL)
        ck_assert (strstr (k, "bias") == NULL && strstr (k, "grad_add") == NULL
                   && strstr (k, "transpose") == NULL && strstr (k, "concat") == NULL);
    }
}
END_TEST

/* Llama-style (gated FFN, 2 kv heads: 1 per rank) with FP8 GEMMs: QKV n =
 * (2 + 2 x 1) 64 = 256; RoPE on q and k 2 x 2 x 128 x 3 x 64 = 98304; the
 * add 6 x 64 x 256 = 98304; the output projection's input cast to FP8 with
 * its transpose, 4 x 128 x 128 = 65536 (the QKV's comes from the norm).
 * Backward: each GEMM's dY cast 4 x 128 x 256 = 131072, the norm output's
 * transpose 2 x 128 x 256 = 65536; output projection dgrad (128 x 128 x
 * 256) and wgrad (128 x 256 x 128), attention 2.5 x 4194304, QKV dgrad
 * (128 x 256 x 256) and wgrad (256 x 256 x 128): 16777216 + 10485760 +
 * 33554432 = 60817408 FLOPs.  The MLP: FC1 2 f / tp = 1024 wide, SwiGLU
 * 6 x 128 x 512 bytes, FC2's input cast 4 x 128 x 512. */

/* Llama-style (gated FFN, 2 kv heads: 1 per rank) with FP8 GEMMs under
 * sequence parallelism (Transformer Engine 1.10's casts,
 * gen_transformer_kernels.c): QKV n = (2 + 2 x 1) 64 = 256; the norm writes
 * FP8, 2 + 1 bytes x 64 x 256 = 49152; RoPE on q and k 2 x 2 x 128 x 3 x
 * 64 = 98304; the add 6 x 64 x 256 = 98304; the output projection's input
 * cast to FP8 without its transpose (SP), 3 x 128 x 128 = 49152 (the QKV's
 * comes from the norm).  Backward: the output projection's dY shard cast,
 * 3 x 64 x 256 = 49152, the gathered dY transposed 2 x 128 x 256 = 65536,
 * its input transposed 2 x 128 x 128 = 32768; QKV's dY cast with its
 * transpose 4 x 128 x 256 = 131072, the norm output's transpose 2 x 128 x
 * 256 = 65536; output projection dgrad (128 x 128 x 256) and wgrad (128 x
 * 256 x 128), attention 2.5 x 4194304, QKV dgrad (128 x 256 x 256) and
 * wgrad (256 x 256 x 128): 16777216 + 10485760 + 33554432 = 60817408
 * FLOPs.  The MLP: FC1 2 f / tp = 1024 wide, SwiGLU 6 x 128 x 512 bytes,
 * FC2's input cast 3 x 128 x 512 = 196608. */
START_TEST (test_kernels_llama_layer)
{
  WlGenTransformer req = small_req (2, 2, 1, 1, 1);
  req.model.kv_heads = 2;
  req.model.gated_ffn = TRUE;
  req.fp8 = TRUE;
  g_autofree char *p = generate (&req, "llama");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  ck_assert_str_eq (attr_s (first_named (nodes, "attn_fwd"), "kernels"),
                    "mem:bytes=49152,what=rmsnorm;gemm:m=128,n=256,k=256,dtype=fp8;"
                    "mem:bytes=98304,what=rope;"
                    "attn:dir=fwd,b=1,hq=2,hkv=1,sq=128,d=64,causal=1;"
                    "mem:bytes=49152,what=cast;gemm:m=128,n=256,k=128,dtype=fp8;"
                    "mem:bytes=98304,what=add");
  const ChakraProtoMsg__Node *b = first_named (nodes, "attn_bwd");
  ck_assert_str_eq (attr_s (b, "kernels"),
                    "mem:bytes=98304,what=add;mem:bytes=49152,what=cast;"
                    "mem:bytes=65536,what=transpose;mem:bytes=32768,what=transpose;"
                    "gemm:m=128,n=128,k=256,dtype=fp8;gemm:m=128,n=256,k=128,dtype=fp8;"
                    "attn:dir=bwd,b=1,hq=2,hkv=1,sq=128,d=64,causal=1;"
                    "mem:bytes=98304,what=rope;mem:bytes=131072,what=cast;"
                    "mem:bytes=65536,what=transpose;gemm:m=128,n=256,k=256,dtype=fp8;"
                    "gemm:m=256,n=256,k=128,dtype=fp8;mem:bytes=98304,what=rmsnorm");
  ck_assert_int_eq (attr_i (b, "num_ops"), 60817408);
  ck_assert_str_eq (attr_s (first_named (nodes, "mlp_fwd"), "kernels"),
                    "mem:bytes=49152,what=rmsnorm;gemm:m=128,n=1024,k=256,dtype=fp8;"
                    "mem:bytes=393216,what=swiglu;mem:bytes=196608,what=cast;"
                    "gemm:m=128,n=256,k=512,dtype=fp8;mem:bytes=98304,what=add");
  /* The LM head stays in bf16 (the grammar's default dtype), V' / tp =
   * 1024 / 2 = 512 rows. */
  ck_assert (strstr (attr_s (first_named (nodes, "lm_head_fwd"), "kernels"),
                     "gemm:m=128,n=512,k=256;")
             != NULL);
}
END_TEST

/* The same layer without sequence parallelism: the output projection's
 * and FC2's inputs cast with their transposes, 4 x 128 x 128 = 65536 and
 * 4 x 128 x 512 = 262144; the norm on all 128 tokens, 3 x 128 x 256 =
 * 98304; backward every dY cast with its transpose, 4 x 128 x 256 =
 * 131072, no input transpose for the row-parallel GEMMs. */
START_TEST (test_kernels_fp8_no_sp)
{
  WlGenTransformer req = small_req (2, 2, 1, 1, 1);
  req.model.kv_heads = 2;
  req.model.gated_ffn = TRUE;
  req.fp8 = TRUE;
  req.no_sequence_parallel = TRUE;
  g_autofree char *p = generate (&req, "fp8nosp");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  ck_assert_str_eq (attr_s (first_named (nodes, "attn_fwd"), "kernels"),
                    "mem:bytes=98304,what=rmsnorm;gemm:m=128,n=256,k=256,dtype=fp8;"
                    "mem:bytes=98304,what=rope;"
                    "attn:dir=fwd,b=1,hq=2,hkv=1,sq=128,d=64,causal=1;"
                    "mem:bytes=65536,what=cast;gemm:m=128,n=256,k=128,dtype=fp8;"
                    "mem:bytes=196608,what=add");
  ck_assert (strstr (attr_s (first_named (nodes, "attn_bwd"), "kernels"),
                     "mem:bytes=196608,what=add;mem:bytes=131072,what=cast;gemm:")
             != NULL);
  ck_assert (strstr (attr_s (first_named (nodes, "mlp_fwd"), "kernels"),
                     "mem:bytes=262144,what=cast;gemm:m=128,n=256,k=512,dtype=fp8;")
             != NULL);
}
END_TEST

/* Transformer Engine's FP8 bookkeeping (the Llama layer above, tp 2, L 2,
 * M 2): the weights' FP8 copies once per iteration, before the first
 * micro-batch: QKV 4 x 256 x 256 = 262144, the output projection 4 x 128 x
 * 256 = 131072, FC1 4 x 256 x 1024 = 1048576, FC2 4 x 512 x 256 = 524288
 * bytes, each launched once per layer, one operation per element.  Each
 * micro-batch's forward ends with the amax reduction over 21 x 2 = 42
 * tensors: an all-reduce of 4 x 42 = 168 bytes on the TP x DP group (here
 * the 2 TP ranks, a group of its own), the concatenation 8 x 42 = 336
 * bytes, the update (8 x 1024 + 16) x 42 = 344736 bytes and 1024 x 42 =
 * 43008 operations; each backward with 14 x 2 = 28 tensors: 112 bytes
 * all-reduced.  The forward all-gathers move the FP8 norm output:
 * 64 x 256 x 1 byte per rank = 16384 bytes. */
START_TEST (test_fp8_bookkeeping)
{
  WlGenTransformer req = small_req (2, 2, 1, 1, 2);
  req.model.kv_heads = 2;
  req.model.gated_ffn = TRUE;
  req.fp8 = TRUE;
  g_autofree char *p = generate (&req, "fp8book");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  ck_assert_uint_eq (tally (nodes, "fp8_weight_cast", COMP).n, 1);
  ck_assert_str_eq (attr_s (first_named (nodes, "fp8_weight_cast"), "kernels"),
                    "mem:bytes=262144,what=fp8_weight_cast,flops=65536,count=2;"
                    "mem:bytes=131072,what=fp8_weight_cast,flops=32768,count=2;"
                    "mem:bytes=1048576,what=fp8_weight_cast,flops=262144,count=2;"
                    "mem:bytes=524288,what=fp8_weight_cast,flops=131072,count=2");
  ck_assert_str_eq (attr_s (first_named (nodes, "fp8_amax_update"), "kernels"),
                    "mem:bytes=336,what=amax_cat;"
                    "mem:bytes=344736,what=amax_update,flops=43008");
  Tally ar = tally (nodes, "fp8_amax_all_reduce", COLL);
  ck_assert_uint_eq (ar.n, 4);
  ck_assert_uint_eq (ar.bytes, 2 * (168 + 112));
  const ChakraProtoMsg__Node *a = first_named (nodes, "fp8_amax_all_reduce");
  ck_assert_str_ne (attr_s (a, "pg_name"), attr_s (first_named (nodes, "tp_all_gather"),
                                                   "pg_name"));
  ck_assert_uint_eq ((guint64) attr_i (first_named (nodes, "tp_all_gather"), "comm_size"),
                     16384);
  /* bf16: none of it, the all-gathers of bf16 (32768 bytes). */
  req.fp8 = FALSE;
  g_autofree char *q = generate (&req, "bf16book");
  g_autoptr (GPtrArray) bf = read_nodes (q, 0);
  ck_assert_uint_eq (tally (bf, "fp8_amax_all_reduce", COLL).n, 0);
  for (guint i = 0; i < bf->len; i++)
    ck_assert (strncmp (((const ChakraProtoMsg__Node *) g_ptr_array_index (bf, i))->name, "fp8",
                        3) != 0);
  ck_assert_uint_eq ((guint64) attr_i (first_named (bf, "tp_all_gather"), "comm_size"), 32768);
}
END_TEST

/* Full recomputation repeats each layer's forward with its TP collectives
 * (tp 2, L 2, M 2: 6 all-gathers and 6 reduce-scatters per layer and
 * micro-batch, plus the embedding's and LM head's one each per micro-batch:
 * 28), its compute nodes marked is_recompute with the forward's kernels. */
START_TEST (test_recompute_full)
{
  WlGenTransformer req = small_req (2, 2, 1, 1, 2);
  req.recompute = WL_RECOMPUTE_FULL;
  g_autofree char *p = generate (&req, "full");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  ck_assert_uint_eq (tally (nodes, "tp_all_gather", COLL).n, 28);
  ck_assert_uint_eq (tally (nodes, "tp_reduce_scatter", COLL).n, 28);
  guint recomputed = 0;
  const char *fwd = attr_s (first_named (nodes, "attn_fwd"), "kernels");
  for (guint i = 0; i < nodes->len; i++)
    {
      const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
      ck_assert_int_eq (is_recompute (n), g_str_has_prefix (n->name, "recompute_"));
      if (strcmp (n->name, "recompute_attn_fwd") == 0)
        ck_assert_str_eq (attr_s (n, "kernels"), fwd);
      recomputed += is_recompute (n);
    }
  ck_assert_uint_eq (recomputed, 2 * 2 * 2);
}
END_TEST

/* Selective recomputation: only the core attention again (L M = 4 nodes),
 * no TP collective repeated: (4 L + 2) M = 20 all-gathers. */
START_TEST (test_recompute_selective)
{
  for (guint unfused = 0; unfused < 2; unfused++)
    {
      WlGenTransformer req = small_req (2, 2, 1, 1, 2);
      req.recompute = WL_RECOMPUTE_SELECTIVE;
      req.attention = unfused ? WL_ATTENTION_UNFUSED : WL_ATTENTION_FLASH;
      g_autofree char *p = generate (&req, unfused ? "sel-unfused" : "sel");
      g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
      ck_assert_uint_eq (tally (nodes, "tp_all_gather", COLL).n, 20);
      ck_assert_uint_eq (tally (nodes, "recompute_core_attn", COMP).n, 4);
      const ChakraProtoMsg__Node *n = first_named (nodes, "recompute_core_attn");
      ck_assert (is_recompute (n));
      /* Unfused (Megatron 2021): QK^T over b x heads = 2 products, the
       * scores 2 x 128^2 elements: softmax reads and writes 2 bytes each
       * (131072), dropout adds a 1-byte mask (163840), then AV. */
      ck_assert_str_eq (attr_s (n, "kernels"),
                        unfused ? "gemm:m=128,n=128,k=64,batch=2;"
                                  "mem:bytes=131072,what=softmax;mem:bytes=163840,what=dropout;"
                                  "gemm:m=128,n=64,k=128,batch=2"
                                : "attn:dir=fwd,b=1,hq=2,sq=128,d=64,causal=1");
      ck_assert_int_eq (attr_i (n, "num_ops"), unfused ? 2 * 2 * (2 * 128 * 128 * 64) : 4194304);
    }
}
END_TEST

/* Pipeline sends: each TP rank sends b s h 2 / tp = 32768 bytes; without
 * sequence parallelism the receiver all-gathers the pieces on its TP
 * group; TP all-reduces of t h 2 = 65536 bytes after each block (2 per
 * layer forward, 2 backward), the embedding's forward and the LM head's
 * backward: tp 2, pp 2 (1 layer each), M 2. */
START_TEST (test_pipeline_and_no_sp)
{
  for (guint no_sp = 0; no_sp < 2; no_sp++)
    {
      WlGenTransformer req = small_req (2, 2, 2, 1, 2);
      req.no_sequence_parallel = no_sp;
      g_autofree char *p = generate (&req, no_sp ? "nosp" : "sp");
      for (guint32 r = 0; r < 4; r++)
        {
          g_autoptr (GPtrArray) nodes = read_nodes (p, r);
          Tally s = tally (nodes, NULL, SEND), v = tally (nodes, NULL, RECV);
          ck_assert_uint_eq (s.n, 2);
          ck_assert_uint_eq (s.bytes, 2 * 32768);
          ck_assert_uint_eq (v.bytes, 2 * 32768);
          Tally ar = tally (nodes, "tp_all_reduce", COLL), pg = tally (nodes, "pp_all_gather", COLL);
          Tally rs = tally (nodes, "tp_reduce_scatter", COLL);
          ck_assert_uint_eq (ar.n, no_sp ? (4 + 1) * 2 : 0);
          ck_assert_uint_eq (ar.bytes, no_sp ? (4 + 1) * 2 * 65536 : 0);
          ck_assert_uint_eq (pg.n, no_sp ? 2 : 0);
          ck_assert_uint_eq (pg.bytes, no_sp ? 2 * 32768 : 0);
          ck_assert_uint_eq (rs.n, no_sp ? 0 : (4 + 1) * 2);
        }
    }
}
END_TEST

/* Context parallelism, cp 2, tp 2, dp 2 (rank = t + 2 (c + 2 d)), L 2,
 * M 1: per layer cp - 1 K/V exchanges forward, and cp - 1 K/V and cp - 1
 * dK/dV backward, each 2 b (s / cp) (h kv / heads) 2 / tp = 2 x 64 x 256 x
 * 2 / 2 = 32768 bytes, to the next CP rank; attention in cp causal-balanced
 * pieces of equal FLOPs, overlapping the K/V exchange; gradients reduced
 * over the 4 DP x CP ranks. */
START_TEST (test_context_parallel)
{
  WlGenTransformer req = small_req (2, 2, 1, 2, 1);
  req.cp = 2;
  g_autofree char *p = generate (&req, "cp");
  for (guint32 r = 0; r < 8; r++)
    {
      guint32 t = r % 2, c = r / 2 % 2;
      g_autoptr (GPtrArray) nodes = read_nodes (p, r);
      Tally s = tally (nodes, NULL, SEND), v = tally (nodes, NULL, RECV);
      ck_assert_uint_eq (s.n, 3 * 2);
      ck_assert_uint_eq (s.bytes, 3 * 2 * 32768);
      ck_assert_uint_eq (v.bytes, 3 * 2 * 32768);
      const ChakraProtoMsg__Node *send = first_named (nodes, "cp_send_kv");
      ck_assert_int_eq (attr_i (send, "comm_dst"), (gint64) (r - 2 * c + 2 * (1 - c)));
      /* The TP all-gathers are of the CP rank's 64 tokens. */
      ck_assert_int_eq (attr_i (first_named (nodes, "tp_all_gather"), "comm_size"), 64 * 256);
      const char *k = attr_s (first_named (nodes, "attn_fwd"), "kernels");
      const char *piece = c == 0 ? "attn:dir=fwd,b=1,hq=2,sq=32,skv=64,d=64;"
                                 : "attn:dir=fwd,b=1,hq=2,sq=64,skv=32,d=64;";
      ck_assert_msg (strstr (k, "attn:dir=fwd,b=1,hq=2,sq=64,d=64,causal=1;") != NULL
                         && strstr (k, piece) != NULL,
                     "%s", k);
      /* The K/V receive overlaps the attention block: the block does not
       * wait for it, the reduce-scatter after the block does. */
      guint at = 0;
      while (strcmp (((ChakraProtoMsg__Node *) g_ptr_array_index (nodes, at))->name, "attn_fwd") != 0)
        at++;
      const ChakraProtoMsg__Node *attn = g_ptr_array_index (nodes, at);
      const ChakraProtoMsg__Node *recv = g_ptr_array_index (nodes, at - 1);
      const ChakraProtoMsg__Node *after = g_ptr_array_index (nodes, at + 1);
      ck_assert_str_eq (recv->name, "cp_recv_kv");
      ck_assert_str_eq (after->name, "tp_reduce_scatter");
      gboolean attn_waits = FALSE, after_waits = FALSE;
      for (gsize i = 0; i < attn->n_data_deps; i++)
        attn_waits |= attn->data_deps[i] == recv->id;
      for (gsize i = 0; i < after->n_data_deps; i++)
        after_waits |= after->data_deps[i] == recv->id;
      ck_assert (!attn_waits && after_waits);
      const ChakraProtoMsg__Node *g = first_named (nodes, "dp_all_reduce");
      g_autofree char *dpg = g_strdup_printf ("%u", 1 + 2 * 2 * 1 + t);
      ck_assert_str_eq (attr_s (g, "pg_name"), dpg);
    }
  req.model.seq = 130; /* not a multiple of 2 cp */
  GError *error = NULL;
  ck_assert_uint_eq (wl_gen_transformer_microbatches (&req, &error), 0);
  ck_assert_msg (strstr (error->message, "2 x cp") != NULL, "%s", error->message);
  g_clear_error (&error);
}
END_TEST

/* Buckets: L 5 over pp 2 (3 + 2 layers), tp 2, dp 2, a bucket of 600000
 * bytes: 300000 parameters of a rank's buffer (its 1/tp share).  Stage 0,
 * backward order: each layer's MLP (2 h f / tp = 262144 parameters) then
 * attention (4 h^2 / tp = 131072) closes a bucket of 393216 parameters, a
 * comm_size of 2 x 393216 = 786432 bytes, three times, then the
 * embedding's V' h / tp = 1024 x 256 / 2 = 131072 (262144 bytes); stage 1
 * is one bucket (Megatron buckets only the first stage): 262144 + 2 x
 * 786432 = 1835008 bytes. */
START_TEST (test_dp_buckets)
{
  static const guint64 stage0[] = { 786432, 786432, 786432, 262144 };
  for (guint dist = 0; dist < 2; dist++)
    {
      WlGenTransformer req = small_req (5, 2, 2, 2, 2);
      req.dp_bucket_B = 600000;
      req.distributed_optimizer = dist;
      g_autofree char *p = generate (&req, dist ? "buckets-dist" : "buckets");
      for (guint32 st = 0; st < 2; st++)
        {
          g_autoptr (GPtrArray) nodes = read_nodes (p, 4 * st);
          const char *kind = dist ? "dp_reduce_scatter" : "dp_all_reduce";
          guint got = 0;
          gboolean stepped = FALSE;
          guint64 total = 0;
          for (guint i = 0; i < nodes->len; i++)
            {
              const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
              if (strcmp (n->name, "optimizer_step") == 0)
                {
                  stepped = TRUE;
                  ck_assert_uint_eq (n->n_data_deps, 1 + (st == 0 ? 4 : 1));
                }
              if (strcmp (n->name, kind) == 0)
                {
                  guint64 want = st == 0 ? stage0[got] : 1835008;
                  ck_assert_int_eq (attr_i (n, "comm_size"), (gint64) want);
                  ck_assert_int_eq (attr_i (n, "stream"), 1);
                  ck_assert (!stepped);
                  got++;
                  total += want;
                }
              if (strcmp (n->name, "dp_param_all_gather") == 0)
                {
                  ck_assert (dist && stepped);
                  ck_assert_int_eq (attr_i (n, "stream"), 1);
                }
            }
          ck_assert_uint_eq (got, st == 0 ? 4 : 1);
          Tally ag = tally (nodes, "dp_param_all_gather", COLL);
          ck_assert_uint_eq (ag.n, dist ? got : 0);
          ck_assert_uint_eq (ag.bytes, dist ? total / 2 : 0);
        }
    }
}
END_TEST

/* ZeRO 1 and 2 (and the distributed optimizer): every parameter
 * all-gather follows the optimizer step that updates the shards it
 * gathers, by a chain of dependencies back to the step (data or control),
 * and comes after it in the file; one gather per gradient collective
 * (units: 3 layers + the embedding on stage 0), each of the 1/dp shard. */
START_TEST (test_gathers_after_step)
{
  for (guint mode = 0; mode < 3; mode++)
    {
      WlGenTransformer req = small_req (5, 2, 2, 2, 2);
      req.zero = mode < 2 ? mode + 1 : 0;
      req.distributed_optimizer = mode == 2;
      g_autofree char *tag = g_strdup_printf ("gather%u", mode);
      g_autofree char *p = generate (&req, tag);
      g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
      g_autoptr (GHashTable) after = g_hash_table_new (g_int64_hash, g_int64_equal);
      guint n_grad = 0, n_gather = 0;
      guint64 grad_bytes = 0, gather_bytes = 0;
      for (guint i = 0; i < nodes->len; i++)
        {
          ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
          if (strcmp (n->name, "optimizer_step") == 0)
            g_hash_table_add (after, &n->id);
          if (strcmp (n->name, "dp_all_reduce") == 0 || strcmp (n->name, "dp_reduce_scatter") == 0)
            {
              n_grad++;
              grad_bytes += (guint64) attr_i (n, "comm_size");
            }
          if (strcmp (n->name, "dp_param_all_gather") != 0)
            continue;
          gboolean follows = FALSE;
          for (gsize d = 0; d < n->n_data_deps; d++)
            follows = follows || g_hash_table_contains (after, &n->data_deps[d]);
          for (gsize d = 0; d < n->n_ctrl_deps; d++)
            follows = follows || g_hash_table_contains (after, &n->ctrl_deps[d]);
          ck_assert_msg (follows, "mode %u: gather %" G_GUINT64_FORMAT " before the step", mode,
                         n->id);
          g_hash_table_add (after, &n->id);
          n_gather++;
          gather_bytes += (guint64) attr_i (n, "comm_size");
        }
      ck_assert_uint_eq (n_grad, 4);
      ck_assert_uint_eq (n_gather, 4);
      ck_assert_uint_eq (gather_bytes, grad_bytes / 2);
    }
}
END_TEST

/* The optimizer step: 6 + 28 + 6 = 40 bytes and 16 FLOPs per parameter
 * the rank updates: stage 0 of the run above holds 3 layers (3 x 786432)
 * and the embedding (V' h = 1024 x 256 = 262144), 2621440 parameters,
 * 1310720 per TP rank, 655360 with the distributed optimizer over dp 2;
 * without overlap one all-reduce of 2 bytes x 1310720 = 2621440.  Without overlap every gradient
 * collective comes after the backward's last compute node, one per stage. */
START_TEST (test_optimizer_step)
{
  for (guint mode = 0; mode < 3; mode++)
    {
      WlGenTransformer req = small_req (5, 2, 2, 2, 2);
      req.dp_bucket_B = 1200000;
      req.distributed_optimizer = mode == 1;
      req.no_dp_overlap = mode == 2;
      g_autofree char *tag = g_strdup_printf ("opt%u", mode);
      g_autofree char *p = generate (&req, tag);
      g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
      const ChakraProtoMsg__Node *o = first_named (nodes, "optimizer_step");
      guint64 params = mode == 1 ? 655360 : 1310720;
      g_autofree char *want = g_strdup_printf ("mem:bytes=%" G_GUINT64_FORMAT ",what=copy;"
                                               "mem:bytes=%" G_GUINT64_FORMAT ",what=adam,"
                                               "flops=%" G_GUINT64_FORMAT ";"
                                               "mem:bytes=%" G_GUINT64_FORMAT ",what=copy",
                                               6 * params, 28 * params, 16 * params, 6 * params);
      ck_assert_str_eq (attr_s (o, "kernels"), want);
      guint64 bytes = 0;
      ck_assert (wl_chakra_attr_uint (o, "tensor_size", &bytes, NULL));
      ck_assert_uint_eq (bytes, 40 * params);
      ck_assert_int_eq (attr_i (o, "num_ops"), (gint64) (16 * params));
      if (mode != 2)
        continue;
      guint last_bwd = 0, first_grad = G_MAXUINT, n_grad = 0;
      for (guint i = 0; i < nodes->len; i++)
        {
          const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
          if (strcmp (n->name, "embedding_bwd") == 0)
            last_bwd = i;
          if (strcmp (n->name, "dp_all_reduce") == 0)
            {
              first_grad = MIN (first_grad, i);
              n_grad++;
              ck_assert_int_eq (attr_i (n, "comm_size"), 2621440);
            }
        }
      ck_assert_uint_eq (n_grad, 1);
      ck_assert_uint_gt (first_grad, last_bwd);
    }
}
END_TEST

/* Megatron-LM 2021's fp16 optimizer and local DDP, by hand on the run
 * above (stage 0, rank 0: p = 1310720 parameters per TP rank, all of them
 * in the one deferred all-reduce of 2 p bytes): the optimizer step reads
 * and writes 6 + 8 (unscale) + 4 (norm) + 28 + 6 = 52 p bytes; the flatten
 * node 4 p + 4 p (copy, divide) lies between the last backward and the
 * all-reduce, the unflatten 4 p after the all-reduce (a dependency) and
 * before the step.  Unfused gradient accumulation: of the 2 micro-batches
 * only the second adds its gradients, 6 bytes per parameter of the chunk:
 * stage 0 6 p (3 layers and the embedding), stage 1 (2 x 786432 + 262144
 * for the LM head) / 2 = 917504 parameters, 5505024 bytes, after its last
 * attention backward and before its last gradient send. */
START_TEST (test_megatron_2021_step)
{
  WlGenTransformer req = small_req (5, 2, 2, 2, 2);
  req.dp_bucket_B = 1200000;
  req.no_dp_overlap = req.dp_coalesce = req.grad_clip = req.loss_scale = TRUE;
  req.unfused_grad_accum = TRUE;
  g_autofree char *p = generate (&req, "opt2021");
  g_autoptr (GPtrArray) nodes = read_nodes (p, 0);
  const guint64 n = 1310720;
  g_autofree char *want = g_strdup_printf (
    "mem:bytes=%" G_GUINT64_FORMAT ",what=copy;mem:bytes=%" G_GUINT64_FORMAT ",what=unscale;"
    "mem:bytes=%" G_GUINT64_FORMAT ",what=grad_norm;mem:bytes=%" G_GUINT64_FORMAT
    ",what=adam,flops=%" G_GUINT64_FORMAT ";mem:bytes=%" G_GUINT64_FORMAT ",what=copy",
    6 * n, 8 * n, 4 * n, 28 * n, 16 * n, 6 * n);
  const ChakraProtoMsg__Node *o = first_named (nodes, "optimizer_step");
  ck_assert_str_eq (attr_s (o, "kernels"), want);
  guint64 bytes = 0;
  ck_assert (wl_chakra_attr_uint (o, "tensor_size", &bytes, NULL));
  ck_assert_uint_eq (bytes, 52 * n);
  g_autofree char *flat = g_strdup_printf ("mem:bytes=%" G_GUINT64_FORMAT ",what=flatten;"
                                           "mem:bytes=%" G_GUINT64_FORMAT ",what=divide",
                                           4 * n, 4 * n);
  g_autofree char *unflat = g_strdup_printf ("mem:bytes=%" G_GUINT64_FORMAT ",what=unflatten",
                                             4 * n);
  ck_assert_str_eq (attr_s (first_named (nodes, "dp_flatten"), "kernels"), flat);
  const ChakraProtoMsg__Node *u = first_named (nodes, "dp_unflatten");
  ck_assert_str_eq (attr_s (u, "kernels"), unflat);
  const ChakraProtoMsg__Node *ar = first_named (nodes, "dp_all_reduce");
  ck_assert_int_eq (attr_i (ar, "comm_size"), (gint64) (2 * n));
  gboolean on_ar = FALSE;
  for (gsize i = 0; i < u->n_data_deps; i++)
    on_ar = on_ar || u->data_deps[i] == ar->id;
  ck_assert (on_ar);
  guint at[5] = { 0 };
  static const char *order[] = { "embedding_bwd", "dp_flatten", "dp_all_reduce", "dp_unflatten",
                                 "optimizer_step" };
  for (guint i = 0; i < nodes->len; i++)
    for (guint k = 0; k < 5; k++)
      if (strcmp (((const ChakraProtoMsg__Node *) g_ptr_array_index (nodes, i))->name,
                  order[k]) == 0)
        at[k] = i;
  for (guint k = 1; k < 5; k++)
    ck_assert_uint_gt (at[k], at[k - 1]);
  ck_assert_uint_eq (tally (nodes, "grad_accum", COMP).n, 1);
  g_autofree char *acc0 = g_strdup_printf ("mem:bytes=%" G_GUINT64_FORMAT ",what=grad_accum",
                                           6 * n);
  ck_assert_str_eq (attr_s (first_named (nodes, "grad_accum"), "kernels"), acc0);
  g_autoptr (GPtrArray) last = read_nodes (p, 4);
  ck_assert_uint_eq (tally (last, "grad_accum", COMP).n, 1);
  ck_assert_str_eq (attr_s (first_named (last, "grad_accum"), "kernels"),
                    "mem:bytes=5505024,what=grad_accum");
  guint acc = 0, attn = 0, send = 0;
  for (guint i = 0; i < last->len; i++)
    {
      const char *name = ((const ChakraProtoMsg__Node *) g_ptr_array_index (last, i))->name;
      acc = strcmp (name, "grad_accum") == 0 ? i : acc;
      attn = strcmp (name, "attn_bwd") == 0 ? i : attn;
      send = strcmp (name, "send_grad") == 0 ? i : send;
    }
  ck_assert_uint_gt (acc, attn);
  ck_assert_uint_gt (send, acc);
  /* With a device, a node of memory kernels alone lasts its bytes at the
   * roofline's bandwidth (A100-80GB: 2039 GB/s x its memory efficiency),
   * in whole microseconds rounded up: 5505024 / (2.039e12 x eff). */
  req.device = wl_device_preset ("A100-80GB");
  WlRoofline roof;
  ck_assert (wl_device_roofline (req.device, WL_DTYPE_BF16, &roof));
  ck_assert (fabs (roof.mem_bw_Bps - 2.039e12) < 1e9);
  g_autofree char *pd = generate (&req, "opt2021-device");
  g_autoptr (GPtrArray) dev = read_nodes (pd, 4);
  ck_assert_uint_eq (first_named (dev, "grad_accum")->duration_micros,
                     (guint64) ceil (5505024 / (2.039e12 * roof.memory_eff) * 1e6));
  ck_assert_uint_gt (first_named (dev, "grad_accum")->duration_micros, 0);
  WlGenTransformer plain = small_req (5, 2, 2, 2, 2);
  g_autofree char *q = generate (&plain, "opt2021-plain");
  g_autoptr (GPtrArray) none = read_nodes (q, 0);
  ck_assert_uint_eq (tally (none, "grad_accum", COMP).n, 0);
}
END_TEST

/* Streams: TP, CP and pipeline communication on 0, DP on 1. */
START_TEST (test_streams)
{
  WlGenTransformer req = small_req (2, 2, 2, 2, 2);
  req.cp = 2;
  req.dp_bucket_B = 1000000;
  req.distributed_optimizer = TRUE;
  g_autofree char *p = generate (&req, "streams");
  for (guint32 r = 0; r < 16; r++)
    {
      g_autoptr (GPtrArray) nodes = read_nodes (p, r);
      for (guint i = 0; i < nodes->len; i++)
        {
          const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
          if (n->type == COLL || n->type == SEND || n->type == RECV)
            ck_assert_int_eq (attr_i (n, "stream"), g_str_has_prefix (n->name, "dp_") ? 1 : 0);
        }
    }
}
END_TEST

/* The closed form of an iteration's FLOPs, written apart from the
 * generator: per micro-batch of t = b s tokens, a layer's GEMMs 2 t (4 h^2
 * + 2 h f), attention forward 2 b s^2 h (causal flash) or 4 (unfused),
 * backward 2.5 x or 2 x; the LM head 2 t h V' forward, twice backward,
 * V' = ceil (V / (128 tp)) x 128 tp the padded vocabulary (1024 here);
 * recomputation one forward of the layers (full) or of the attention
 * (selective); the embedding's operation per element forward and backward
 * on each TP rank; Adam's 16 per parameter (embedding and head 2 V' h) on
 * every rank (sharded over DP x CP with the distributed optimizer). */
static double
closed_form (const WlGenTransformer *r)
{
  const WlTransformerModel *m = &r->model;
  double b = r->micro_batch, s = m->seq, h = m->hidden, f = m->ffn, L = m->layers;
  double V = ceil (m->vocab / (128.0 * r->tp)) * 128.0 * r->tp;
  double t = b * s, M = r->microbatches, cp = r->cp ? r->cp : 1;
  double gemm = 2 * t * (4 * h * h + 2 * h * f);
  gboolean flash = r->attention == WL_ATTENTION_FLASH;
  double af = (flash ? 2 : 4) * b * s * s * h, ab = flash ? 2.5 * af : 2 * af;
  double rc = r->recompute == WL_RECOMPUTE_FULL ? L * (gemm + af)
              : r->recompute == WL_RECOMPUTE_SELECTIVE ? L * af
                                                       : 0;
  double per_mb = L * (3 * gemm + af + ab) + 3 * 2 * t * h * V + rc + 2 * r->tp * t * h;
  double params = L * (4 * h * h + 2 * h * f) + 2 * V * h;
  double adam = 16 * params * (r->distributed_optimizer ? 1 : r->dp * cp);
  /* FP8: each weight element cast once per iteration on each of the cp x
   * dp replicas; each rank's amax histories (1024 values) maxed over the
   * (21 + 14) tensors of each of its layers once per micro-batch (one
   * chunk per stage here). */
  double fp8 = r->fp8 ? cp * r->dp * L * (4 * h * h + 2 * h * f)
                          + r->tp * cp * r->dp * M * 1024 * 35 * L
                      : 0;
  return M * r->dp * per_mb + adam + fp8;
}

START_TEST (test_flop_identity)
{
  guint cases = 0;
  for (guint rc = 0; rc < 3; rc++)
    for (guint mode = 0; mode < 16; mode++)
      {
        gboolean no_sp = mode & 1, unfused = mode & 2, fp8 = mode & 4, cp2 = mode & 8;
        if (unfused && cp2)
          continue;
        WlGenTransformer req = small_req (3, 2, 2, 2, 2);
        req.recompute = rc;
        req.no_sequence_parallel = no_sp;
        req.attention = unfused ? WL_ATTENTION_UNFUSED : WL_ATTENTION_FLASH;
        req.fp8 = fp8;
        req.cp = cp2 ? 2 : 1;
        req.distributed_optimizer = rc == 1;
        req.dp_bucket_B = rc == 2 ? 1000000 : 0;
        g_autofree char *tag = g_strdup_printf ("id%u-%u", rc, mode);
        g_autofree char *p = generate (&req, tag);
        double total = 0;
        for (guint32 r = 0; r < 8 * req.cp; r++)
          {
            g_autoptr (GPtrArray) nodes = read_nodes (p, r);
            for (guint i = 0; i < nodes->len; i++)
              {
                const ChakraProtoMsg__Node *n = g_ptr_array_index (nodes, i);
                if (n->type == COMP)
                  total += (double) attr_i (n, "num_ops");
              }
          }
        double want = closed_form (&req);
        ck_assert_msg (fabs (total - want) <= 1e-12 * want, "%s: %.17g, want %.17g", tag, total,
                       want);
        ck_assert_msg (fabs (wl_gen_transformer_flops (&req) - want) <= 1e-12 * want, "%s", tag);
        cases++;
      }
  ck_assert_uint_eq (cases, 3 * 12);
}
END_TEST

/* Small runs on 8 ranks simulated to the end, in each new mode. */
START_TEST (test_runs_complete)
{
  for (guint mode = 0; mode < 4; mode++)
    {
      WlGenTransformer req = small_req (3, 2, 2, 2, 2);
      if (mode == 0)
        req.cp = 2, req.dp = 1;
      if (mode == 1)
        req.no_sequence_parallel = TRUE, req.recompute = WL_RECOMPUTE_SELECTIVE;
      if (mode == 2)
        req.distributed_optimizer = TRUE, req.dp_bucket_B = 1000000;
      if (mode == 3)
        req.no_dp_overlap = TRUE, req.attention = WL_ATTENTION_UNFUSED, req.fp8 = TRUE,
        req.recompute = WL_RECOMPUTE_FULL;
      g_autofree char *tag = g_strdup_printf ("run%u", mode);
      g_autofree char *p = generate (&req, tag);
      tu_assert_completes_2x4 (p);
    }
}
END_TEST

/* The command line: the new options, their errors. */
START_TEST (test_cli_options)
{
  g_autofree char *p = tu_scratch_path ("cli");
  const char *base[] = { tu_orrery (), "gen", "transformer", "--layers", "3", "--hidden", "256",
                         "--heads", "4", "--vocab", "1000", "--seq", "128", "--micro-batch", "1",
                         "--global-batch", "4", "--tp", "2", "--pp", "2", "--out", p };
  static const struct
  {
    const char *args[4];
    int code;
    const char *says;
  } cases[] = {
    { { "--recompute", "selective", "--cp", "2" }, 0, "8 ranks (tp 2 pp 2 dp 1 cp 2)" },
    { { "--recompute", "--no-dp-overlap", "--dp", "1" }, 0, "4 ranks" },
    { { "--no-sequence-parallel", "--dtype", "fp8", "--gated-ffn" }, 0, "4 ranks" },
    { { "--kv-heads", "2", "--attention", "unfused" }, 0, "4 ranks" },
    { { "--distributed-optimizer", "--dp-bucket", "8MB" }, 0, "4 ranks" },
    { { "--recompute", "most" }, 1, "--recompute: 'most'" },
    { { "--dtype", "fp4" }, 1, "--dtype: 'fp4'" },
    { { "--attention", "sparse" }, 1, "--attention: 'sparse'" },
    { { "--dp-bucket", "lots" }, 1, "--dp-bucket: 'lots'" },
    { { "--dp-bucket", "40" }, 1, "above 0 with its unit (e.g. 80MB)" },
    { { "--dp-bucket", "8MB", "--zero", "1" }, 1, "--dp-bucket applies to ZeRO 0" },
    { { "--dp-bucket", "8MB", "--fsdp" }, 1, "--dp-bucket applies to ZeRO 0" },
    { { "--dtype", "fp8", "--device", "A100-80GB" }, 0, "a A100-80GB has no FP8 units" },
    { { "--cp", "0" }, 1, "--cp must be at least 1" },
    { { "--cp", "2", "--attention", "unfused" }, 1, "needs flash attention" },
    { { "--kv-heads", "3" }, 1, "kv heads" },
    { { "--distributed-optimizer", "--zero", "1" }, 1, "ZeRO stage 0" },
    { { "--no-dp-overlap", "--dp-coalesce", "--grad-clip", "--loss-scale" }, 0, "4 ranks" },
    { { "--dp-coalesce", "--unfused-grad-accum" }, 1, "it needs --no-dp-overlap" },
    { { "--unfused-grad-accum", "--grad-clip" }, 0, "4 ranks" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const char *argv[G_N_ELEMENTS (base) + 5] = { NULL };
      memcpy (argv, base, sizeof base);
      for (guint k = 0; k < 4 && cases[i].args[k] != NULL; k++)
        argv[G_N_ELEMENTS (base) + k] = cases[i].args[k];
      g_autofree char *out = NULL;
      ck_assert_int_eq (tu_run (&out, argv), cases[i].code);
      ck_assert_msg (strstr (out, cases[i].says) != NULL, "%u: %s", i, out);
    }
}
END_TEST

static Suite *
megatron_suite (void)
{
  Suite *s = suite_create ("gen_transformer_megatron");
  TCase *tc = tu_tcase (s, "megatron", tu_scratch_setup, tu_scratch_teardown, 60);
  tcase_add_test (tc, test_kernels_gpt_layer);
  tcase_add_test (tc, test_kernels_llama_layer);
  tcase_add_test (tc, test_kernels_eager_layer);

  tcase_add_test (tc, test_kernels_fp8_no_sp);
  tcase_add_test (tc, test_fp8_bookkeeping);
  tcase_add_test (tc, test_recompute_full);
  tcase_add_test (tc, test_recompute_selective);
  tcase_add_test (tc, test_pipeline_and_no_sp);
  tcase_add_test (tc, test_context_parallel);
  tcase_add_test (tc, test_dp_buckets);
  tcase_add_test (tc, test_optimizer_step);
  tcase_add_test (tc, test_gathers_after_step);
  tcase_add_test (tc, test_megatron_2021_step);
  tcase_add_test (tc, test_streams);
  tcase_add_test (tc, test_flop_identity);
  tcase_add_test (tc, test_runs_complete);
  tcase_add_test (tc, test_cli_options);
  return s;
}

int
main (void)
{
  return tu_run_suite (megatron_suite ());
}
