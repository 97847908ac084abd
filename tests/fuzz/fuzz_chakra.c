/* fuzz_chakra.c: libFuzzer target for the Chakra trace reader
 * (workload/chakra.c: framing, gzip), the typed attribute helpers and type
 * names (workload/chakra_node.c) and the graph builder (workload/graph.c,
 * which decodes nodes with workload/node.c and reports dangling ids and
 * cycles with workload/deps.c).
 *
 * Input: one selector byte, then the trace's bytes.  Bit 0 of the selector
 * gzips the rest before writing it (so the reader's inflate path sees valid
 * gzip streams, not only the rare input that starts with 1f 8b); bit 1
 * opens with WL_CHAKRA_ALLOW_HEADERLESS.  The file is read node by node,
 * every attribute of every node through each typed helper, then loaded
 * again as a WlGraph.
 *
 * Layer: tests.  May include: workload, GLib, zlib.
 */
#include <string.h>
#include <zlib.h>

#include "fuzz_common.h"
#include "workload/chakra.h"
#include "workload/graph.h"

/* data as one gzip member (a new GByteArray). */
static GByteArray *
gzip_bytes (const uint8_t *data, size_t size)
{
  z_stream z = { 0 };
  if (deflateInit2 (&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    g_error ("fuzz: deflateInit2 failed");
  GByteArray *out = g_byte_array_sized_new ((guint) deflateBound (&z, size));
  g_byte_array_set_size (out, (guint) deflateBound (&z, size));
  z.next_in = (Bytef *) data;
  z.avail_in = (uInt) size;
  z.next_out = out->data;
  z.avail_out = out->len;
  if (deflate (&z, Z_FINISH) != Z_STREAM_END)
    g_error ("fuzz: deflate failed");
  g_byte_array_set_size (out, (guint) z.total_out);
  deflateEnd (&z);
  return out;
}

/* Every typed view of every attribute: the helpers must refuse wrong kinds
 * with an error, never misread them. */
static void
read_attributes (const ChakraProtoMsg__Node *n)
{
  for (size_t i = 0; i < n->n_attr; i++)
    {
      const char *name = n->attr[i]->name;
      if (name == NULL)
        continue;
      gint64 s = 0;
      guint64 u = 0;
      gboolean b = FALSE;
      const char *str = NULL;
      GArray *list = NULL;
      GError *e = NULL;
      wl_chakra_attr_int (n, name, &s, &e);
      g_clear_error (&e);
      wl_chakra_attr_uint (n, name, &u, &e);
      g_clear_error (&e);
      wl_chakra_attr_bool (n, name, &b, &e);
      g_clear_error (&e);
      wl_chakra_attr_string (n, name, &str, &e);
      g_clear_error (&e);
      if (wl_chakra_attr_bool_list (n, name, &list, &e))
        g_array_unref (list);
      g_clear_error (&e);
      if (wl_chakra_attr_find (n, name) == NULL)
        g_error ("fuzz: attribute '%s' not found by name", name);
    }
  (void) wl_chakra_node_type_name (n->type);
}

static void
read_nodes (const char *path, WlChakraReadFlags flags)
{
  GError *error = NULL;
  WlChakraReader *r = wl_chakra_reader_open_full (path, flags, &error);
  if (r == NULL)
    {
      g_clear_error (&error);
      return;
    }
  (void) wl_chakra_reader_version (r);
  (void) wl_chakra_reader_metadata (r);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    {
      read_attributes (n);
      wl_chakra_node_free (n);
    }
  g_clear_error (&error);
  /* After the end or an error, the reader stays there. */
  n = wl_chakra_reader_next (r, &error);
  if (n != NULL)
    g_error ("fuzz: a node after the end of the trace");
  g_clear_error (&error);
  wl_chakra_reader_free (r);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  uint8_t selector = data[0];
  data++;
  size--;
  char *path;
  if (selector & 1)
    {
      GByteArray *gz = gzip_bytes (data, size);
      path = fuzz_write ("trace.0.et.gz", gz->data, gz->len);
      g_byte_array_unref (gz);
    }
  else
    path = fuzz_write ("trace.0.et", data, size);
  read_nodes (path, (selector & 2) ? WL_CHAKRA_ALLOW_HEADERLESS : WL_CHAKRA_READ_DEFAULT);
  GError *error = NULL;
  WlGraph *g = wl_graph_load (path, &error);
  if (g != NULL)
    {
      (void) wl_graph_bytes (g);
      wl_graph_unref (g);
    }
  g_clear_error (&error);
  fuzz_remove_tree (path);
  g_free (path);
  return 0;
}
