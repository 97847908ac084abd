/* testutil.h: helpers shared by the test suites: where the shared test data
 * is, temporary directories, and writing small traces.
 *
 * Layer: tests.  May include: every layer.
 */
#ifndef ORRERY_TESTS_TESTUTIL_H
#define ORRERY_TESTS_TESTUTIL_H

#include <glib.h>

#include "workload/chakra.h"

/* $SHARED, or "../shared"; NULL (after printing why) when it is absent, so
 * that suites that use it skip with a message. */
const char *tu_shared_dir (void);

/* A new empty temporary directory; tu_rmdir removes it and its files. */
char *tu_mkdtemp (void);
void tu_rmdir (const char *dir);

/* The orrery binary under test: $ORRERY, or build/orrery. */
const char *tu_orrery (void);

/* Run a command line (argv, NULL-terminated); capture stdout+stderr into
 * *output (may be NULL) and return the exit status. */
int tu_run (char **output, const char *const *argv);

/* A node under construction for trace fixtures.  Attributes added are owned
 * by the node and freed with tu_node_free. */
ChakraProtoMsg__Node *tu_node_new (guint64 id, int type, const char *name);
void tu_node_free (ChakraProtoMsg__Node *n);
void tu_node_dep (ChakraProtoMsg__Node *n, guint64 dep);
void tu_node_ctrl_dep (ChakraProtoMsg__Node *n, guint64 dep);
void tu_node_attr_int (ChakraProtoMsg__Node *n, const char *name, gint64 v);
void tu_node_attr_bool (ChakraProtoMsg__Node *n, const char *name, gboolean v);
void tu_node_attr_string (ChakraProtoMsg__Node *n, const char *name, const char *v);

/* Write nodes (an array of n) as a trace file; asserts on failure. */
void tu_write_trace (const char *path, ChakraProtoMsg__Node **nodes, guint n);

#endif
