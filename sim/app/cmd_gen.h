/* cmd_gen.h: the subcommands that write trace sets rather than simulate
 * them: `orrery gen collective`, `orrery gen transformer`, `orrery gen
 * dlrm` and `orrery rescale` (cmd_gen.c, cmd_gen_dlrm.c, cmd_rescale.c).
 *
 * What it models: option parsing and checking for the workload generators
 * (workload/gen.h, workload/gen_transformer.h, workload/gen_dlrm.h,
 * workload/rescale.h); sizes take units (64KiB), counts are whole numbers.
 * Exit status as in cli.h.
 * Ownership: argv is borrowed (GLib's option parser may reorder it).
 *
 * Layer: sim/app.  May include: sim, system (collective kinds), workload,
 * GLib.
 */
#ifndef ORRERY_SIM_APP_CMD_GEN_H
#define ORRERY_SIM_APP_CMD_GEN_H

#include <glib.h>

#include "workload/gen_dlrm.h"
#include "workload/gen_transformer.h"

/* `orrery gen SUB ...` with argv[0] "gen": the exit status. */
int app_cmd_gen (int argc, char **argv);

/* `orrery gen dlrm ...` with argv[0] "dlrm" (cmd_gen_dlrm.c): the exit
 * status. */
int app_cmd_gen_dlrm (int argc, char **argv);

/* What `gen dlrm` and `plan --dlrm` share: the model and how it trains,
 * as the options of those names take them (NULL: not given; the counts
 * APP_GEN_RANKS_ABSENT when not given). */
typedef struct
{
  const char *preset, *tables, *bottom, *top, *interaction, *interaction_kernel;
  const char *dtype, *mlp_dtype, *emb_opt;
  gint dcn_layers, dcn_rank;
} AppDlrmArgs;

/* REQ's model (its tables owned by REQ->model, also on failure:
 * wl_dlrm_model_clear), dtype, mlp_dtype and emb_opt from A.  FALSE with
 * ERROR set (SIM_ERROR_INPUT) as `gen dlrm` refuses them. */
gboolean app_gen_dlrm_request (const AppDlrmArgs *a, WlGenDlrm *req, GError **error);

/* `orrery rescale ...` with argv[0] "rescale": the exit status. */
int app_cmd_rescale (int argc, char **argv);

/* How the framework trains, as `gen transformer` and `plan` take it:
 * --dtype bf16|fp8 and --attention flash|unfused (NULL: the defaults, bf16
 * and flash), into REQ's fp8 and attention.  FALSE with ERROR set
 * (SIM_ERROR_INPUT) naming the option and the value it cannot take. */
gboolean app_gen_framework (const char *dtype, const char *attention, WlGenTransformer *req,
                            GError **error);

/* Make the folder of the output PREFIX (its dirname) with its parents when
 * it does not exist: FALSE with ERROR set when it cannot be made or names
 * something other than a folder, or when PREFIX is empty or ends in '/' (it
 * would name hidden files DIR/.0.et ..: the message asks for DIR/trace).  In
 * gen_out.c. */
gboolean app_gen_out_folder (const char *prefix, GError **error);

/* FALSE with ERROR set when GROUPS_OUT (--comm-groups-out; NULL: none)
 * names a trace of the set PREFIX (PREFIX.K.et): the groups would replace
 * the trace, or when GROUPS_OUT cannot be written (a folder, a folder that
 * does not exist other than the one --out makes): said with the path
 * given, before any work.  In gen_out.c. */
gboolean app_gen_groups_out_check (const char *groups_out, const char *prefix, GError **error);

/* A trace set PREFIX.0.et .. PREFIX.<RANKS-1>.et, written all or nothing.
 * _begin, before anything is printed or written: refuses (NULL, ERROR
 * set) an empty PREFIX or one ending in '/' (as app_gen_out_folder does)
 * and a set with a folder among its names; makes PREFIX's folder; notes
 * the files already there.  _end after the write (OK its outcome; SET
 * freed, NULL accepted): when it failed, removes the files this write made
 * (and the folders _begin made), so that no part of a set is left; when it
 * succeeded, removes PREFIX.K.et for K = RANKS, RANKS + 1, ... while they
 * are regular files (an earlier, larger set's tail, which `run` would
 * otherwise read with the new set and deadlock on), saying on stderr
 * "orrery CMD: removed PREFIX.4.et .. PREFIX.7.et, left from an earlier set
 * of 8 ranks".  Returns OK.  In gen_out.c. */
typedef struct _AppGenSet AppGenSet;
AppGenSet *app_gen_set_begin (const char *prefix, guint32 ranks, GError **error);
gboolean app_gen_set_end (const char *cmd, AppGenSet *set, gboolean ok);

/* "PREFIX.0.et .. PREFIX.<RANKS-1>.et", or "PREFIX.0.et" for one rank: the
 * files a generator says it wrote.  Free with g_free.  In gen_out.c. */
char *app_gen_set_text (const char *prefix, guint32 ranks);

/* Make the folder of the output file PATH (its dirname) with its parents
 * when it does not exist; *MADE (when MADE is not NULL) is then the
 * outermost folder made, a new string, or NULL when none was.  FALSE with
 * ERROR set ("WHATPATH: ...", WHAT e.g. "--out " or "") when it cannot be
 * made or names something other than a folder.  In gen_out.c. */
gboolean app_out_folder_make (const char *what, const char *path, char **made, GError **error);

/* After a failed write of PATH: remove the folders app_out_folder_make made
 * for it (MADE, up from PATH's folder), those that are still empty. */
void app_out_folder_unmake (const char *path, const char *made);

/* Whether PATH can name an output file: FALSE with ERROR set
 * (SIM_ERROR_INPUT, "PATH: a folder, not a file: ...") when it is a folder
 * or ends in '/'. */
gboolean app_out_file_name_ok (const char *path, GError **error);

/* `orrery gen` writes traces that fit any cluster and reads none: FALSE
 * with ERROR set (SIM_ERROR_INPUT) when ARGV holds a cluster's option
 * (--config, --gpus-per-node), saying that `run` warns about TP groups
 * wider than a node and `plan` keeps them within one.  In gen_out.c. */
gboolean app_gen_no_cluster (int argc, char **argv, GError **error);

/* --ranks as the generators and rescale take it: the option's variable
 * starts at APP_GEN_RANKS_ABSENT, and after parsing app_gen_ranks_given
 * turns absence into 0, or fails (SIM_ERROR_INPUT, "--ranks N: must be at
 * least 1") on a value given below 1, which used to read as absent.  In
 * gen_out.c. */
#define APP_GEN_RANKS_ABSENT G_MININT
gboolean app_gen_ranks_given (gint *ranks, GError **error);

/* RANKS files of about PER_FILE bytes each: within run's rank limit and
 * the output cap (ORRERY_GEN_MAX_OUTPUT), or FALSE with ERROR saying which
 * and the estimate. */
gboolean app_gen_output_check (guint64 ranks, guint64 per_file, GError **error);

#endif /* ORRERY_SIM_APP_CMD_GEN_H */
