/* modes.h: run one simulation in every mode the simulator has and check
 * that the modes agree, as ROSS reruns its tests under each scheduler.
 *
 * The modes (TuMode):
 *   TU_MODE_AUTO        traces in memory, symmetric shortcut allowed (taken
 *                       when the workload allows it, as `orrery run` does);
 *   TU_MODE_EVERY_RANK  traces in memory, every rank simulated
 *                       (app_sim_set_symmetry FALSE, `--symmetry off`);
 *   TU_MODE_STREAMED    traces streamed (a 1-byte memory budget: the
 *                       smallest window, WL_STREAM_MIN_WINDOW nodes per
 *                       rank), every rank simulated.
 * Streamed and symmetric is impossible by design (a streamed replay never
 * takes the shortcut: it would need rank 0's whole trace up front): the
 * helper asserts that the streamed run refuses it, with the streaming
 * reason.  A run that records nodes (report, timeline, critical path) cannot
 * be streamed either: for those the streamed mode is skipped, its reason is
 * kept in TuSimModes.skipped, and the helper asserts that a streamed run
 * with recording is refused with an input error.  The streamed replay also
 * refuses by design what --lenient repairs across the whole trace
 * (dangling dependencies, cycles) and a trace that its smallest window
 * cannot read ahead of the replay: such an input error (naming the memory
 * budget) is kept as the streamed mode's error, marked skipped, and the
 * in-memory modes are still compared.
 *
 * Agreement: each run either fails in every mode, with the same error
 * domain, code and message, or succeeds in every mode with the same results
 * (tu_sim_result_diff): every rank's figures (finish, compute, exposed
 * communication, idle, ... the whole WlRankStats), the end time, the ranks
 * finished, the distinct graphs, the per-collective statistics (kind, group,
 * count, bytes, busy, wait, algorithms), with recording every node's record
 * (ready, start, end, the node it waited for: what timelines and the
 * critical path are made of); and, between the two modes that simulate
 * every rank, the event count, every link's statistics and the records'
 * peers (the symmetric shortcut simulates rank 0 alone, so its events and
 * link loads are its own, and so is the peer its records name for a
 * collective whose members joined at the same instant: rank 0, where
 * simulating every rank names the last to join in event order).  Limits
 * (app_sim_set_limits) are not offered: where a run stops depends on the
 * events simulated, which the shortcut changes.
 *
 * The end-to-end variant (tu_run_modes) runs the binary with the same argv
 * as is, with `--symmetry off` and with `--memory-budget 1B` appended, and
 * compares exit status, output and the output files.
 *
 * Ownership: results and simulations handed out are the caller's.
 *
 * Layer: tests.  May include: every layer.
 */
#ifndef ORRERY_TESTS_MODES_H
#define ORRERY_TESTS_MODES_H

#include <glib.h>

#include "sim/app/simulation.h"

typedef enum
{
  TU_MODE_AUTO,
  TU_MODE_EVERY_RANK,
  TU_MODE_STREAMED,
  TU_N_MODES
} TuMode;

/* "in memory, symmetric allowed", "in memory, every rank", "streamed, every
 * rank": for messages. */
const char *tu_mode_name (TuMode mode);

/* What to simulate. */
typedef struct
{
  const AppConfig *cfg;  /* borrowed */
  const char *prefix;    /* the trace set PREFIX.<rank>.et */
  gboolean recording;    /* app_sim_set_recording (the streamed mode is skipped) */
} TuSimRequest;

/* The runs of every mode. */
typedef struct
{
  AppSim *sim[TU_N_MODES];      /* NULL where the mode failed or was skipped */
  GError *error[TU_N_MODES];    /* the failure of a mode, or NULL */
  /* Why a mode was not run or not compared (static), or NULL: the streamed
   * mode is skipped for recording, and not compared when the streamed
   * replay refuses the workload by design (its error is kept). */
  const char *skipped[TU_N_MODES];
  /* Why the auto mode did not take the shortcut (app_sim_not_symmetric),
   * or NULL when it did. */
  const char *not_symmetric;
} TuSimModes;

/* Run REQ in every mode into OUT and assert that the modes agree (see the
 * header); OUT is the caller's to clear. */
void tu_sim_modes_run (const TuSimRequest *req, TuSimModes *out);
void tu_sim_modes_clear (TuSimModes *modes);

/* tu_sim_modes_run, handing over the auto mode's simulation (the caller's
 * to free) or NULL with its error (the same in every mode). */
AppSim *tu_sim_all_modes (const TuSimRequest *req, GError **error);

/* tu_sim_all_modes of the whole trace set on CFG, which must succeed. */
AppSim *tu_sim_all_modes_ok (const AppConfig *cfg, const char *prefix);

/* A finished simulation's results, as the modes compare them. */
typedef struct
{
  guint32 ranks;
  WlRankStats *rank;      /* ranks of them */
  SimTime end;
  guint32 finished;
  guint distinct_graphs;
  guint64 events;
  GArray *colls;          /* of SysCollGroupStats */
  guint32 n_links;
  NetLinkStats *links;    /* n_links of them */
  /* With recording: each rank's node records (n_records[r] of them), else
   * NULL. */
  WlNodeRecord **records;
  guint32 *n_records;
} TuSimResult;

/* SIM's results, after app_sim_run succeeded; clear with
 * tu_sim_result_clear. */
void tu_sim_result_take (const AppSim *sim, TuSimResult *out);
void tu_sim_result_clear (TuSimResult *res);

/* Where A and B differ, one line per difference (the first few per kind);
 * with every_rank, the events and links too.  NULL when they agree (else
 * the caller frees). */
char *tu_sim_result_diff (const TuSimResult *a, const TuSimResult *b, gboolean every_rank);

/* Where two errors of a run differ (either may be NULL: the run
 * succeeded), or NULL when they agree. */
char *tu_sim_error_diff (const GError *a, const GError *b);

/* Run the binary with ARGV (NULL-terminated, as tu_run) as is, with
 * `--symmetry off`, and with `--memory-budget 1B` appended: every run must
 * exit with the same status, print the same output (apart from the lines
 * that name the mode: the summary's "symmetric:" line, the streaming
 * notice, the events-per-second line) and write the same --stats, --links,
 * --report (but for its "symmetric" flag and event count) and --timeline
 * files.  The run as is goes last, so its files stay for the test;
 * its output goes to *output (may be NULL) and its status is returned.
 * An argv that records (--report, --timeline, --critical-path/-p) is not
 * compared streamed: where it succeeds in memory, the streamed run must be
 * refused for it (exit status 1, "needs every trace node").  A streamed
 * run refused by design (exit status 1 and the refusal, as
 * tu_sim_modes_run) is not compared either.  An argv that already picks a
 * mode (--symmetry, --memory-budget) or a limit (--max-events,
 * --max-sim-time) is a programming error: test the mode directly. */
int tu_run_modes (char **output, const char *const *argv);

#endif
