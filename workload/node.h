/* node.h: one trace node as the replay sees it, decoded from Chakra.
 *
 * Models: a Chakra node reduced to what replay needs, with times already
 * in ps, sizes in bytes and the collective kind decoded (WlNode), and the
 * reading of a trace file node by node as graph loading and streaming both
 * do (wl_trace_read, with lenient loading's rules for headerless and
 * truncated files).  Node ids stay uint64 throughout.
 *
 * Ownership: a WlNode is a plain value; WlGroupDef arrays own their rank
 * lists (wl_group_defs_new sets the clear function).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_NODE_H
#define ORRERY_WORKLOAD_NODE_H

#include <glib.h>

#include "sim/simtime.h"
#include "workload/chakra.h"
#include "workload/groups.h"
#include "workload/lenient.h"

#define WL_RANK_SELF G_MAXUINT32

/* kernels.h (which needs this header through compute.h). */
typedef struct _WlKernelLists WlKernelLists;
/* group_memo.h (which needs WlGroupDef). */
typedef struct _WlGroupMemo WlGroupMemo;

/* What a node does in replay. */
typedef enum
{
  WL_OP_SKIP,    /* METADATA, INVALID, unknown types: completes at once */
  WL_OP_COMP,    /* accelerator compute */
  WL_OP_CPU,     /* host compute (is_cpu_op) */
  WL_OP_COLL,    /* collective */
  WL_OP_SEND,
  WL_OP_RECV,
  WL_OP_MEM      /* MEM_LOAD or MEM_STORE */
} WlOp;

typedef struct
{
  guint64 id;           /* the trace's node id */
  guint64 duration_ps;  /* duration_micros in ps (COMP, WAIT) */
  guint64 num_ops;      /* COMP: FLOPs, 0 when absent */
  guint64 bytes;        /* COLL/SEND/RECV: comm_size; COMP/MEM: tensor_size */
  guint64 group;        /* COLL: the trace's group id (WL_GROUP_ALL for all ranks) */
  guint32 child_start;  /* dependents: children[child_start .. +n_children] */
  guint32 n_children;
  guint32 n_parents;
  union                 /* what only one kind of node uses */
  {
    struct
    {
      guint32 peer_src; /* SEND/RECV: comm_src, or WL_RANK_SELF */
      guint32 peer_dst; /* SEND/RECV: comm_dst, or WL_RANK_SELF */
      gint32 tag;       /* SEND/RECV: comm_tag */
    };
    guint32 sys_group_index; /* COLL: set when the replay binds groups: the
                              * system group it runs on, as an index into
                              * the replay's table (wl_replay_node_group) */
    struct
    {
      guint32 kernel_list; /* COMP: its `kernels` attribute, as a number in
                            * the trace's WlKernelLists (kernels.h); 0: none */
      guint32 comp_flags;  /* COMP: WL_COMP_* bits */
    };
  };
  union
  {
    struct
    {
      gint32 priority;  /* COLL: comm_priority */
      guint32 involved; /* COLL: bit d set: dimension d may be used */
      guint32 root;     /* COLL, rooted kinds: the root rank, or WL_RANK_SELF: the
                         * group's first member */
    };
    /* SEND/RECV: its `exchange` attribute (a string: the name of the
     * collective exchange, e.g. an all-to-all, that this send or receive is
     * part of) as 1 + its index in the trace's table of names
     * (WlNodeDecoder.exchanges, by first appearance; names past
     * WL_MAX_EXCHANGES share the last index); 0 when absent.  Waiting on
     * such a receive is communication, not the pipeline's bubble
     * (WlRankStats.exchange_wait). */
    guint32 exchange;
  };
  guint8 op;            /* WlOp */
  guint8 coll_kind;     /* COLL: SysCollKind */
  guint8 chakra_type;   /* the trace's NodeType */
  /* COLL/SEND/RECV: the node's communication stream (its `stream`
   * attribute, 0 when absent) as an index into its trace's table of
   * stream values (WlNodeDecoder.streams, by first appearance): with
   * separate comm streams each index has its own slots.  (A node has a
   * trace duration exactly when duration_ps > 0: a duration that overflows
   * the clock is an error.) */
  guint8 comm_stream;
} WlNode;

/* WlNode.comp_flags: a COMP node's is_recompute attribute (a forward
 * repeated for full or selective recomputation: its FLOPs count for HFU,
 * not MFU). */
#define WL_COMP_RECOMPUTE (1u << 0)

/* Distinct exchange names a trace may have (WlNode.exchange). */
#define WL_MAX_EXCHANGES 16

/* Distinct comm stream values a trace may have; the nodes of any further
 * value share the last one's index (and slots). */
#define WL_MAX_STREAMS 64

/* A trace's stream values in order of first appearance. */
typedef struct
{
  gint64 values[WL_MAX_STREAMS];
  guint n;
} WlStreamTable;

/* The memory budget counts nodes at this size (it decides which traces are
 * streamed, to the byte): a field more changes which runs stream. */
G_STATIC_ASSERT (sizeof (WlNode) == 80);

/* A process group defined by a METADATA node. */
typedef struct
{
  guint64 id;
  GArray *ranks; /* guint32; empty means all ranks */
  guint64 node;  /* the METADATA node that defined it, for messages */
} WlGroupDef;

/* A new empty array of WlGroupDef (each def's ranks freed with it). */
GArray *wl_group_defs_new (void);

/* What is wrong with the groups DEFS[FROM ..] as --comm-groups would say it
 * (a rank listed twice: wl_group_ranks_check), a new string; NULL when
 * nothing is.  Parsing reads the list, this checks its groups. */
char *wl_group_defs_fault (const GArray *defs, guint from);

/* Decoding one node as graph loading does, shared with the streamed replay
 * (stream.h), which reads nodes one at a time. */
typedef struct
{
  const char *path;         /* the file, for messages */
  gboolean lenient;
  WlLenientStats dropped;   /* counts colls_skipped, valueless_attrs_ignored */
  guint32 unknown;          /* nodes of types orrery does not know */
  GArray *group_defs;       /* METADATA process groups are appended here
                             * (WlGroupDef); NULL: not decoded */
  WlStreamTable streams;    /* the comm streams met so far (WlNode.comm_stream) */
  GPtrArray *exchanges;     /* the exchange names met so far (char *, owned by the
                             * array; WlNode.exchange - 1); NULL: not kept (every
                             * exchange is then index 0) */
  WlTraceFacts facts;       /* the file's GlobalMetadata facts (wl_trace_read) */
  WlKernelLists *kernels;   /* COMP nodes' `kernels` attributes are numbered
                             * here (kernel_list); NULL: not decoded */
  WlGroupMemo *group_memo;  /* METADATA group lists are parsed through it
                             * (borrowed; NULL: parse each one) */
  const guint8 *bytes;      /* wl_trace_read: the file's bytes when the caller
                             * holds them (borrowed), read instead of PATH;
                             * NULL: read PATH */
  gsize n_bytes;
  gboolean borrowed;        /* the nodes being decoded are a reader's
                             * (WL_CHAKRA_BORROW_NODES): set by wl_trace_read */
} WlNodeDecoder;

/* A collective's comm_type and comm_size as every reader of traces takes
 * them (the loader, inspect): comm_type, when present, one of Chakra's
 * collective types (0 to 9; *KIND the SysCollKind it runs as), comm_size,
 * when present, a non-negative integer (bytes).  TYPE and SIZE are those
 * attributes of N (NULL: absent, as a WlAttrIndex gives them).  FALSE with
 * ERROR set (WL_ERROR, SIM_ERROR_INPUT, "node N: ...", the caller adds the
 * file) when either is of the wrong kind or out of range; absence is the
 * caller's to judge (has_type, has_size). */
typedef struct
{
  gboolean has_type, has_size;
  gint64 type;    /* comm_type as written */
  int kind;       /* its SysCollKind, -1 when absent */
  guint64 bytes;  /* comm_size; 0 when absent */
} WlCollAttrs;
gboolean wl_node_coll_attrs (const ChakraProtoMsg__Node *n,
                             const ChakraProtoMsg__AttributeProto *type,
                             const ChakraProtoMsg__AttributeProto *size, WlCollAttrs *out,
                             GError **error);

/* Decode N into *OUT: with d->lenient its valueless attributes are removed
 * first (and counted); a collective without comm_type or comm_size is a
 * skipped node (lenient) or an error.  FALSE with ERROR set (WL_ERROR,
 * SIM_ERROR_INPUT, "PATH: node ID: ...") when the node is bad.  Checks of
 * ids and dependencies are the caller's. */
gboolean wl_node_decode (WlNodeDecoder *d, ChakraProtoMsg__Node *n, WlNode *out, GError **error);

/* Called by wl_trace_read with each node (the callee may change it; it is
 * freed afterwards).  FALSE stops the reading: with ERROR set, an error. */
typedef gboolean (*WlTraceNodeFunc) (gpointer data, ChakraProtoMsg__Node *n, GError **error);

/* Read every node of D->path as graph loading does: with D->lenient, a
 * headerless file is read from its first node and a truncated last frame
 * ends the trace, each counted in D->dropped (headerless_files,
 * truncated_frames); otherwise both are errors.  D->facts receives the
 * file's GlobalMetadata facts.  Returns TRUE at the end of the trace, FALSE
 * with ERROR set on a read error, or FALSE when FUNC returned FALSE (with
 * its error, if it set one). */
gboolean wl_trace_read (WlNodeDecoder *d, WlTraceNodeFunc func, gpointer data, GError **error);

/* chakra_raw.h's frames read in place. */
typedef struct _WlRawNode WlRawNode;
typedef struct _WlRawNames WlRawNames;

/* What a WlTraceRawFunc did with a frame. */
typedef enum
{
  WL_TAKE_DONE,     /* took it */
  WL_TAKE_DECLINED, /* left it to the usual decoder (WlTraceNodeFunc), untouched */
  WL_TAKE_FAILED    /* an error (ERROR set), or a stop (ERROR unset) */
} WlTake;
typedef WlTake (*WlTraceRawFunc) (gpointer data, WlRawNode *raw, GError **error);

typedef struct
{
  WlTraceNodeFunc node;
  WlTraceRawFunc raw; /* NULL: every node decoded */
} WlTraceFuncs;

/* As wl_trace_read, but when FUNCS->raw is set and D is strict, each frame
 * that chakra_raw.h reads in place goes to FUNCS->raw first, and to
 * FUNCS->node, decoded, only when it declines: a cheaper path for graph
 * loading, to be taken only where it gives what FUNCS->node would. */
gboolean wl_trace_read_raw (WlNodeDecoder *d, const WlTraceFuncs *funcs, gpointer data,
                            GError **error);

/* wl_node_decode for a frame read in place (strict D only): TRUE with *OUT
 * what wl_node_decode gives for the frame's node, with the same notes in D
 * (streams, kernel lists, unknown types); FALSE, with D untouched, where
 * that decode would fail, for METADATA nodes, and for anything else this
 * path leaves to wl_node_decode. */
gboolean wl_node_decode_raw (WlNodeDecoder *d, WlRawNode *raw, WlNode *out);

/* N (a send, a receive or a collective) with the names RAW gives it (its
 * ranks, or its root and group) as wl_node_decode_raw reads them, into
 * *OUT: RAW needs only its name attributes (wl_chakra_raw_names_against).
 * FALSE where that decode would fail on them, or N is another kind. */
gboolean wl_node_decode_raw_names (WlRawNode *raw, const WlNode *n, WlNode *out);

#endif /* ORRERY_WORKLOAD_NODE_H */
