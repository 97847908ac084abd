/* bench_chain.c: the trace of the `--report` memory benchmark.
 *
 * Models: one rank running a chain of N COMP nodes, node i + 1 depending on
 * node i, each 1 us, so that the critical path (and the JSON report's
 * "critical_path.steps") holds every node: the largest report per node the
 * simulator writes.
 *
 * Usage: bench_chain PREFIX N   writes PREFIX.0.et (Chakra, version 0.0.4).
 *
 * Layer: bench.  May include: GLib, workload/.
 */
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "workload/chakra.h"

int
main (int argc, char **argv)
{
  guint64 n = argc == 3 ? g_ascii_strtoull (argv[2], NULL, 10) : 0;
  if (n == 0)
    {
      fprintf (stderr, "usage: bench_chain PREFIX N (N > 0)\n");
      return 2;
    }
  g_autofree char *path = g_strdup_printf ("%s.0.et", argv[1]);
  g_autoptr (GError) error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open (path, "0.0.4", &error);
  ChakraProtoMsg__Node node;
  chakra_proto_msg__node__init (&node);
  node.type = CHAKRA_PROTO_MSG__NODE_TYPE__COMP_NODE;
  node.duration_micros = 1;
  guint64 dep = 0;
  for (guint64 id = 1; w != NULL && id <= n; id++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "comp_%" G_GUINT64_FORMAT, id);
      node.id = id;
      node.name = name;
      dep = id - 1;
      node.data_deps = &dep;
      node.n_data_deps = id > 1 ? 1 : 0;
      if (!wl_chakra_writer_add (w, &node, &error))
        break;
    }
  if (w == NULL || error != NULL || !wl_chakra_writer_close (w, &error))
    {
      fprintf (stderr, "bench_chain: %s\n", error->message);
      return 1;
    }
  return 0;
}
