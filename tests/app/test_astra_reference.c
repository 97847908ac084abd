/* test_astra_reference.c: orrery reproduces ASTRA-sim's analytical results.
 *
 * Every row of ../shared/reference/astra-sim-microbench.tsv (ASTRA-sim's own
 * finish times; "unaware" rows with the analytical link model, "aware" rows
 * with the congestion model) is simulated twice, through the ASTRA-sim
 * inputs and through the equivalent native XML in configs/astra/equivalent/,
 * and every rank must finish at the reference time to the nanosecond.  The
 * command line is checked on one row, including the "finished" lines.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "sim/app/simulation.h"
#include "support/modes.h"
#include "support/testutil.h"

typedef struct
{
  char *collective, *topology, *backend, *workload, *network, *system;
  guint npus;
  guint64 finish_ns;
} RefRow;

static void
ref_row_free (gpointer p)
{
  RefRow *r = p;
  g_free (r->collective);
  g_free (r->topology);
  g_free (r->backend);
  g_free (r->workload);
  g_free (r->network);
  g_free (r->system);
  g_free (r);
}

static GPtrArray *
load_rows (const char *shared)
{
  g_autofree char *path = g_build_filename (shared, "reference", "astra-sim-microbench.tsv", NULL);
  g_autofree char *text = NULL;
  GError *error = NULL;
  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  GPtrArray *rows = g_ptr_array_new_with_free_func (ref_row_free);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto (GStrv) f = g_strsplit (lines[i], "\t", -1);
      if (g_strv_length (f) != 8)
        continue;
      RefRow *r = g_new0 (RefRow, 1);
      r->collective = g_strdup (f[0]);
      r->npus = (guint) atoi (f[1]);
      r->topology = g_strdup (f[2]);
      r->backend = g_strdup (f[3]);
      r->workload = g_build_filename (shared, f[4], NULL);
      r->network = g_build_filename (shared, f[5], NULL);
      r->system = g_build_filename (shared, f[6], NULL);
      r->finish_ns = g_ascii_strtoull (f[7], NULL, 10);
      g_ptr_array_add (rows, r);
    }
  return rows;
}

static void
check_all_ranks (const AppConfig *cfg, const RefRow *row, const char *how)
{
  AppSim *sim = tu_sim_all_modes_ok (cfg, row->workload);
  WlReplay *replay = app_sim_replay (sim);
  ck_assert_uint_eq (wl_replay_ranks (replay), row->npus);
  for (guint32 r = 0; r < row->npus; r++)
    {
      SimTime t = wl_replay_rank_stats (replay, r)->finish;
      if (t != sim_time_from_ns (row->finish_ns))
        ck_abort_msg ("%s %u %s via %s: rank %u finishes at %" G_GUINT64_FORMAT
                      " ps, ASTRA-sim says %" G_GUINT64_FORMAT " ns",
                      row->collective, row->npus, row->topology, how, r, t, row->finish_ns);
    }
  app_sim_free (sim);
}

static NetModelKind
row_model (const RefRow *row)
{
  return strcmp (row->backend, "aware") == 0 ? NET_MODEL_CONGESTION : NET_MODEL_ANALYTICAL;
}

START_TEST (test_rows_astra_inputs)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autoptr (GPtrArray) rows = load_rows (shared);
  guint checked = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const RefRow *row = rows->pdata[i];
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      g_autofree char *mem = g_build_filename (shared, "reference", "configs",
                                               "no_memory_expansion.json", NULL);
      app_config_load_astra (&cfg, row->network, row->system, mem, &error);
      g_assert_no_error (error);
      cfg.net.model = row_model (row);
      check_all_ranks (&cfg, row, "ASTRA-sim inputs");
      app_config_clear (&cfg);
      checked++;
    }
  ck_assert_uint_eq (checked, 72);
}
END_TEST

START_TEST (test_rows_native_xml)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autoptr (GPtrArray) rows = load_rows (shared);
  guint checked = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const RefRow *row = rows->pdata[i];
      /* The equivalents are written for Ring_4chunks.json, the system config
       * of every row. */
      ck_assert (g_str_has_suffix (row->system, "Ring_4chunks.json"));
      g_autofree char *xml = g_strdup_printf ("configs/astra/equivalent/%s_%unpus.xml",
                                              row->topology, row->npus);
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      app_config_load_xml (&cfg, xml, &error);
      g_assert_no_error (error);
      cfg.net.model = row_model (row); /* as --network-model does */
      check_all_ranks (&cfg, row, xml);
      app_config_clear (&cfg);
      checked++;
    }
  ck_assert_uint_eq (checked, 72);
}
END_TEST

/* The command line prints ASTRA-sim's lines, one per rank, exactly, and
 * not with --quiet. */
START_TEST (test_cli_finished_lines)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  g_autofree char *net = g_build_filename (shared, "reference/configs/Ring_16npus.yml", NULL);
  g_autofree char *sys = g_build_filename (shared, "reference/configs/Ring_4chunks.json", NULL);
  g_autofree char *wl = g_build_filename (
      shared, "traces/astra-sim/examples/workload/microbenchmarks/all_reduce/16npus_1MB/all_reduce",
      NULL);
  const char *argv[] = { tu_orrery (), "run", "--astra-network", net, "--astra-system", sys,
                         "--workload", wl, NULL };
  g_autofree char *out = NULL;
  ck_assert_int_eq (tu_run_modes (&out, argv), 0);
  for (guint r = 0; r < 16; r++)
    {
      g_autofree char *line = g_strdup_printf (
          "sys[%u] finished, 99640 cycles, exposed communication 99640 cycles.\n", r);
      ck_assert_msg (strstr (out, line) != NULL, "missing: %s in\n%s", line, out);
    }
  ck_assert_ptr_nonnull (strstr (out, "simulated time: 99.640 us"));
  /* --quiet: errors only, so nothing at all from a run that succeeds. */
  const char *quiet[] = { tu_orrery (), "run", "-q", "--astra-network", net, "--astra-system", sys,
                          "--workload", wl, NULL };
  g_autofree char *none = NULL;
  ck_assert_int_eq (tu_run_modes (&none, quiet), 0);
  ck_assert_msg (none[0] == '\0', "-q printed:\n%s", none);
}
END_TEST

/* The process-group examples run to completion with their own configs:
 * every rank finishes every node (no deadlock, no error). */
START_TEST (test_group_examples_complete)
{
  const char *shared = tu_shared_dir ();
  if (shared == NULL)
    return;
  static const char *const tdirs[] = { "T1D-analytical", "T2D-analytical", "T3D-analytical" };
  for (guint i = 0; i < G_N_ELEMENTS (tdirs) + 1; i++)
    {
      g_autofree char *base = g_build_filename (shared, "traces/astra-sim-artifacts/examples",
                                                i < 3 ? tdirs[i] : "multitenancy", NULL);
      g_autofree char *net = NULL, *sys = NULL, *groups = NULL, *wl = NULL;
      if (i < 3)
        {
          net = g_build_filename (base, "inputs/network.yml", NULL);
          sys = g_build_filename (base, "inputs/sys.json", NULL);
          groups = g_build_filename (base, "inputs/comm_group.json", NULL);
          wl = g_build_filename (base, "trace/trace", NULL);
        }
      else
        {
          net = g_build_filename (base, "configs/network/ring_1d_8nodes.yml", NULL);
          sys = g_build_filename (base, "configs/system/hgx_h100_1d.json", NULL);
          groups = g_build_filename (base, "inputs/mergedAB/mergedAB.json", NULL);
          wl = g_build_filename (base, "inputs/mergedAB/mergedAB", NULL);
        }
      AppConfig cfg;
      app_config_init (&cfg);
      GError *error = NULL;
      app_config_load_astra (&cfg, net, sys, NULL, &error);
      g_assert_no_error (error);
      app_config_load_comm_groups (&cfg, groups, &error);
      g_assert_no_error (error);
      AppSim *sim = tu_sim_all_modes_ok (&cfg, wl);
      WlReplay *replay = app_sim_replay (sim);
      for (guint32 r = 0; r < wl_replay_ranks (replay); r++)
        {
          const WlRankStats *st = wl_replay_rank_stats (replay, r);
          ck_assert_uint_eq (st->nodes_done, st->nodes);
          ck_assert_uint_gt (st->finish, 0);
        }
      app_sim_free (sim);
      app_config_clear (&cfg);
    }
}
END_TEST

static Suite *
reference_suite (void)
{
  Suite *s = suite_create ("astra_reference");
  TCase *tc = tcase_create ("reference");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_rows_astra_inputs);
  tcase_add_test (tc, test_rows_native_xml);
  tcase_add_test (tc, test_cli_finished_lines);
  tcase_add_test (tc, test_group_examples_complete);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return tu_run_suite (reference_suite ());
}
