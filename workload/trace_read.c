/* trace_read.c: reading a trace file node by node (node.h's wl_trace_read
 * and wl_trace_read_raw): each frame decoded in place where the caller's
 * raw function takes it, else unpacked by protobuf-c into the reader's
 * arena; node.c decodes the nodes. */
#include "workload/node.h"

#include "workload/chakra.h"
#include "workload/chakra_raw.h"

/* The next node of R to FUNC, or its frame to RAW_FUNC when RAW (not
 * NULL) reads it and RAW_FUNC takes it; *END at the end of the file. */
static gboolean
read_one (WlNodeDecoder *d, WlChakraReader *r, WlRawNode *raw, const WlTraceFuncs *funcs,
          gpointer data, gboolean *end, GError **error)
{
  ChakraProtoMsg__Node *n = NULL;
  g_autofree char *cut = NULL;
  WlChakraFrame frame;
  if (raw != NULL && wl_chakra_reader_next_frame (r, &frame))
    {
      if (wl_chakra_raw_node (frame.data, frame.len, raw))
        {
          WlTake take = funcs->raw (data, raw, error);
          if (take != WL_TAKE_DECLINED)
            return take == WL_TAKE_DONE;
        }
      if (!wl_chakra_reader_step_frame (r, &frame, d->lenient, &n, &cut, error))
        return FALSE;
    }
  else if (!wl_chakra_reader_step (r, d->lenient, &n, &cut, error))
    return FALSE;
  if (n == NULL)
    {
      d->dropped.truncated_frames += cut != NULL ? 1 : 0;
      *end = TRUE;
      return TRUE;
    }
  return funcs->node (data, n, error);
}

/* Call the functions with each node of R in turn (see wl_trace_read_raw). */
static gboolean
read_nodes (WlNodeDecoder *d, WlChakraReader *r, const WlTraceFuncs *funcs, gpointer data,
            GError **error)
{
  WlRawNode raw;
  gboolean use_raw = funcs->raw != NULL && !d->lenient;
  if (use_raw)
    wl_raw_node_init (&raw);
  gboolean end = FALSE, ok = TRUE;
  while (ok && !end)
    ok = read_one (d, r, use_raw ? &raw : NULL, funcs, data, &end, error);
  if (use_raw)
    wl_raw_node_clear (&raw);
  return ok;
}

gboolean
wl_trace_read (WlNodeDecoder *d, WlTraceNodeFunc func, gpointer data, GError **error)
{
  WlTraceFuncs funcs = { .node = func };
  return wl_trace_read_raw (d, &funcs, data, error);
}

gboolean
wl_trace_read_raw (WlNodeDecoder *d, const WlTraceFuncs *funcs, gpointer data, GError **error)
{
  g_return_val_if_fail (d != NULL && d->path != NULL && funcs != NULL, FALSE);
  /* Each node is needed only until the next one: the reader lends them
   * from its arena (no malloc per node). */
  WlChakraReadFlags flags = WL_CHAKRA_BORROW_NODES
                            | (d->lenient ? WL_CHAKRA_ALLOW_HEADERLESS : WL_CHAKRA_READ_DEFAULT);
  g_autoptr (WlChakraReader) r
    = d->bytes != NULL || d->n_bytes > 0
        ? wl_chakra_reader_open_bytes (d->path, d->bytes, d->n_bytes, flags, error)
        : wl_chakra_reader_open_full (d->path, flags, error);
  if (r == NULL)
    return FALSE;
  if (!wl_chakra_metadata_facts (wl_chakra_reader_metadata (r), &d->facts, error))
    {
      g_prefix_error (error, "%s: ", d->path);
      return FALSE;
    }
  d->dropped.headerless_files = wl_chakra_reader_is_headerless (r) ? 1 : 0;
  d->borrowed = TRUE;
  gboolean ok = read_nodes (d, r, funcs, data, error);
  d->borrowed = FALSE;
  return ok;
}
