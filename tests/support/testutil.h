/* testutil.h: helpers shared by the test suites: running a Check suite,
 * where the shared test data is, temporary directories (and a per-test
 * scratch directory fixture), input-error checks, writing small traces, and
 * the exact ring cluster that hand-timed workloads run on.  A suite that
 * simulates a workload runs it through modes.h, in every mode.
 *
 * Layer: tests.  May include: every layer.
 */
#ifndef ORRERY_TESTS_TESTUTIL_H
#define ORRERY_TESTS_TESTUTIL_H

#include <check.h>
#include <glib.h>

#include "sim/app/config.h"
#include "workload/chakra.h"
#include "workload/kernels.h"
#include "workload/node.h"

/* Run every test of s (CK_NORMAL output) with GLib criticals and warnings
 * fatal, free the runner, and return main's exit status: 0 when all
 * passed, else 1. */
int tu_run_suite (Suite *s);

/* A test case `name` added to s with the checked fixture setup/teardown
 * (either may be NULL) and, when timeout_s > 0, that timeout. */
TCase *tu_tcase (Suite *s, const char *name, void (*setup) (void), void (*teardown) (void),
                 double timeout_s);

/* $SHARED, or "../shared"; NULL (after printing why) when it is absent, so
 * that suites that use it skip with a message. */
const char *tu_shared_dir (void);

/* A new empty temporary directory; tu_rmdir removes it and its files. */
char *tu_mkdtemp (void);
void tu_rmdir (const char *dir);

/* A fresh temporary directory per test: tu_scratch_setup (a Check fixture)
 * creates tu_scratch, tu_scratch_teardown removes it with its contents.
 * tu_scratch_path is tu_scratch/name (the caller frees it). */
extern char *tu_scratch;
void tu_scratch_setup (void);
void tu_scratch_teardown (void);
char *tu_scratch_path (const char *name);

/* An 8-rank cluster XML: Switch 4 x Ring 2 (100 GB/s 500 ns, 25 GB/s 1 us),
 * congestion model, FIFO, 2 active chunks per dimension, 4 splits, roofline
 * H100 bf16: a transformer's tensor pairs and pipeline stages cross both
 * dimensions, and it has links to report. */
extern const char tu_cluster_c4x2[];

/* Write text to tu_scratch/name (asserts it can); the path is the caller's. */
char *tu_write_file (const char *name, const char *text);

/* Check assertions: the error is set, is SIM_ERROR / SIM_ERROR_INPUT, and its
 * message holds needle. */
void tu_assert_input_error (const GError *error, const char *needle);

/* The orrery binary under test: $ORRERY, or build/orrery. */
const char *tu_orrery (void);

/* Run a command line (argv, NULL-terminated); capture stdout+stderr into
 * *output (may be NULL) and return the exit status. */
int tu_run (char **output, const char *const *argv);

/* `orrery run --config CONFIG --workload PREFIX` and `orrery inspect
 * PREFIX` through tu_run. */
int tu_run_workload (char **output, const char *config, const char *prefix);
int tu_inspect (char **output, const char *prefix);

/* A node under construction for trace fixtures.  Attributes added are owned
 * by the node and freed with tu_node_free. */
ChakraProtoMsg__Node *tu_node_new (guint64 id, int type, const char *name);
void tu_node_free (ChakraProtoMsg__Node *n);
/* N packed as a trace frame's bytes, without the length (N is freed). */
GBytes *tu_node_frame (ChakraProtoMsg__Node *n);
void tu_node_dep (ChakraProtoMsg__Node *n, guint64 dep);
void tu_node_ctrl_dep (ChakraProtoMsg__Node *n, guint64 dep);
void tu_node_attr_int (ChakraProtoMsg__Node *n, const char *name, gint64 v);
void tu_node_attr_bool (ChakraProtoMsg__Node *n, const char *name, gboolean v);
void tu_node_attr_string (ChakraProtoMsg__Node *n, const char *name, const char *v);
/* Set inputs.values (METADATA nodes carry process groups there as JSON). */
void tu_node_inputs (ChakraProtoMsg__Node *n, const char *values);

/* A COMP node of `micros` microseconds, and a COMM_COLL node of a Chakra
 * comm_type and comm_size. */
ChakraProtoMsg__Node *tu_comp (guint64 id, guint64 micros);
ChakraProtoMsg__Node *tu_coll (guint64 id, int comm_type, gint64 bytes);

/* A point-to-point node: type is COMM_SEND_NODE (5, named "send") or
 * COMM_RECV_NODE (6, named "recv"), with comm_src, comm_dst, comm_tag and
 * comm_size (bytes). */
ChakraProtoMsg__Node *tu_p2p (guint64 id, int type, gint64 src, gint64 dst, gint64 tag,
                              gint64 bytes);

/* Simulate the 8-rank trace set PREFIX on a 2 x 4 ring (100 GB/s, 500 ns;
 * 25 GB/s, 1 us) with the default roofline compute model, in every mode
 * (tu_sim_all_modes): it must run to completion, every rank finishing after
 * time 0. */
void tu_assert_completes_2x4 (const char *prefix);

/* A config of 8 ranks, Ring 2 (100 GB/s, 500 ns) x Ring 4 (25 GB/s, 1 us),
 * the roofline compute model (app_config_clear it). */
void tu_config_2x4 (AppConfig *cfg);

/* Write nodes (an array of n) as a trace file; asserts on failure. */
void tu_write_trace (const char *path, ChakraProtoMsg__Node **nodes, guint n);

/* Write nodes (an array of n) as rank `rank`'s trace of the set PREFIX, the
 * file PREFIX.RANK.et, and free the nodes (not the array). */
void tu_write_rank (const char *prefix, guint32 rank, ChakraProtoMsg__Node **nodes, guint n);

/* Initialise cfg (app_config_init; the caller clears it) as the exact
 * cluster of hand-timed tests: a 1-D Ring of `ranks`, the analytical model
 * with exact ps timing, 1 GB/s (1 byte per ns), 100 ns per hop, no endpoint
 * delay or reduction cost, so that a message of b bytes between neighbours
 * takes 100 + b ns. */
void tu_exact_ring (AppConfig *cfg, guint32 ranks);

/* Every field of two trace nodes but their dependencies' places is equal
 * (Check assertions). */
void tu_assert_same_node (const WlNode *x, const WlNode *y);

/* The single kernel of TEXT in the `kernels` grammar (workload/kernels.h),
 * asserted to parse. */
WlKernel tu_kernel (const char *text);

#endif
