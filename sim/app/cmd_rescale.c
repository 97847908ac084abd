/* cmd_rescale.c: `orrery rescale` (declared in cmd_gen.h, whose output
 * checks it shares with gen). */
#include "sim/app/cmd_gen.h"

#include <stdio.h>
#include <sys/stat.h>

#include "sim/app/cli.h"
#include "sim/error.h"
#include "workload/chakra_json.h"
#include "workload/rescale.h"

/* rescale writes rank 0's trace Q times: its size (a gzip file's from its
 * trailer, the decompressed size modulo 2^32) per file.  A missing file is
 * left to wl_rescale to report. */
static gboolean
rescale_output_check (const char *from, guint64 q, GError **error)
{
  g_autofree char *path0 = wl_chakra_trace_path (from, 0);
  guint64 size = 0;
  struct stat st;
  /* Only a regular file is sized (opening a FIFO would block). */
  FILE *f = g_file_test (path0, G_FILE_TEST_IS_REGULAR) ? fopen (path0, "rb") : NULL;
  if (f != NULL && fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode))
    {
      size = (guint64) st.st_size;
      guint8 b[4];
      if (size >= 18 && fread (b, 1, 2, f) == 2 && b[0] == 0x1f && b[1] == 0x8b
          && fseek (f, -4, SEEK_END) == 0 && fread (b, 1, 4, f) == 4)
        size = MAX (size, (guint64) b[0] | (guint64) b[1] << 8 | (guint64) b[2] << 16
                              | (guint64) b[3] << 24);
    }
  if (f != NULL)
    fclose (f);
  return app_gen_output_check (q, size, error);
}

int
app_cmd_rescale (int argc, char **argv)
{
  char *from = NULL, *out = NULL;
  gint ranks = APP_GEN_RANKS_ABSENT;
  GOptionEntry entries[] = {
    { "from", 'f', 0, G_OPTION_ARG_FILENAME, &from,
      "Data-parallel traces PREFIX.0.et .. PREFIX.<p-1>.et (p = the files there are)", "PREFIX" },
    { "ranks", 'n', 0, G_OPTION_ARG_INT, &ranks, "Ranks to write for (q >= 1)", "Q" },
    { "out", 'o', 0, G_OPTION_ARG_FILENAME, &out, "Write PREFIX2.0.et .. PREFIX2.<Q-1>.et",
      "PREFIX2" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  g_autoptr (AppCli) cli
      = app_cli_new ("- rewrite a data-parallel trace set for another number of ranks");
  GOptionContext *ctx = app_cli_context (cli);
  app_cli_add_entries (cli, NULL, entries);
  g_option_context_set_description (
      ctx, "Every rank's trace must be the same (rank 0's is written Q times).  Collectives\n"
           "must span all ranks; all-reduce, reduce-scatter, all-to-all, reduce and broadcast\n"
           "keep comm_size (the whole buffer), all-gather, gather and scatter get\n"
           "comm_size x p / Q (each rank's shard, rounded up).  Point-to-point nodes and\n"
           "subgroup collectives are refused.\n\n" APP_CLI_EXIT_CODES_TOOL_HELP "\n");
  GError *error = NULL;
  WlRescaleInfo info = { 0 };
  AppGenSet *set = NULL;
  int code = 0;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  if (!app_cli_parse (cli, &argc, &argv, owned, &error) || !app_gen_ranks_given (&ranks, &error))
    code = app_cli_fail ("rescale", error);
  else if (from == NULL || out == NULL || ranks <= 0)
    code = app_cli_fail ("rescale", g_error_new (SIM_ERROR, SIM_ERROR_INPUT,
                                                 "need --from PREFIX --ranks Q (Q >= 1) "
                                                 "--out PREFIX2"));
  else if (!rescale_output_check (from, (guint64) ranks, &error)
           || (set = app_gen_set_begin (out, (guint32) ranks, &error)) == NULL
           || !app_gen_set_end ("rescale", set, wl_rescale_info (from, (guint32) ranks, out,
                                                                 &info, &error)))
    code = app_cli_fail ("rescale", error);
  else
    {
      g_autofree char *wrote = app_gen_set_text (out, (guint32) ranks);
      printf ("rescaled %u ranks to %d: wrote %s\n", info.p, ranks, wrote);
      if (info.sharded)
        fprintf (stderr,
                 "orrery rescale: warning: the traces shard state over the ranks (all-gathers "
                 "and reduce-scatters: ZeRO or a distributed optimizer): their collectives are "
                 "rescaled, not the compute on the shards (an optimizer step over 1/%u of the "
                 "parameters stays so), and each rank's peak_memory_bytes is left out; gen "
                 "transformer --dp %d writes such a set as it is\n", info.p, ranks);
    }
  g_free (from);
  g_free (out);
  return code;
}
