/* test_determinism.c: the same inputs give the same outputs, byte for byte,
 * whatever order the file system lists the trace files in.
 *
 * Each case generates a workload, then runs `orrery run` on it with every
 * output the case's model supports (--report, --stats, --links where the
 * model has links, --timeline, --critical-path 5) four times:
 *
 *   1. on the trace files as written;
 *   2. again, unchanged;
 *   3. on copies written one by one in a scrambled rank order (a fixed
 *      permutation) into a fresh directory, which is then renamed to the
 *      original directory's path (the original moved aside), so that the
 *      report's inputs.workload and traces[].path, and the summary's
 *      workload line, legitimately stay the same;
 *   4. likewise with hard links made in reverse rank order.
 *
 * Every output file of runs 2-4, the summary on stdout, and stderr without
 * its wall-time line (the one line that may differ) must equal run 1's byte
 * for byte.  Where a file system lists entries in creation order (tmpfs,
 * btrfs) runs 3 and 4 see a directory listing in a different order from
 * run 1; where it lists them by a hash of the name (ext4) the listing is
 * already unrelated to rank order.  Either way a reader that took files in
 * listing order would give rank r another rank's trace.  The traces go to
 * /dev/shm when it is a tmpfs, so that the listings do differ (checked),
 * and to the scratch directory otherwise.
 *
 * The cases exercise different paths: a transformer iteration with tensor,
 * pipeline and data parallelism on a 2-D cluster on the congestion and flow
 * models (which keep per-link state), a pipeline-heavy one, a hand-written
 * all-pairs point-to-point exchange where every message starts at the same
 * instant (ties everywhere), collectives on row and column groups with
 * several collectives in a row, and the symmetric shortcut both taken and
 * turned off (--symmetry off).
 */
#include <check.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/testutil.h"

/* 16 ranks = Ring 4 x Switch 4: rows (--groups 4) lie in the ring, columns
 * (--stride 4) in the switch. */
static const char cluster16[]
    = "<?xml version=\"1.0\"?>\n"
      "<cluster name=\"c4x4\" rounding=\"ps\">\n"
      "  <network model=\"congestion\">\n"
      "    <dim kind=\"Ring\" size=\"4\" bandwidth=\"100GB/s\" latency=\"500ns\"/>\n"
      "    <dim kind=\"Switch\" size=\"4\" bandwidth=\"25GB/s\" latency=\"1us\"/>\n"
      "  </network>\n"
      "  <system scheduling=\"LIFO\" endpoint-delay=\"10ns\" active-chunks-per-dim=\"2\"\n"
      "          splits=\"4\" local-mem-bw=\"1600GB/s\" reduction-passes=\"3\"/>\n"
      "</cluster>\n";

/* The brief's small transformer: 2 layers, hidden 512, 8 heads. */
#define SMALL_MODEL "--layers", "2", "--hidden", "512", "--heads", "8", "--vocab", "1000", "--seq", "256"

/* NULL marks a hand-written workload (write_p2p_exchange) instead. */
#define P2P NULL

/* Whether the summary must say "symmetric:" (the shortcut was taken). */
typedef enum
{
  SYM_TAKEN,
  SYM_NOT_TAKEN,
} SymExpect;

typedef struct
{
  const char *name;
  guint32 ranks;             /* 8 (tu_cluster_c4x2) or 16 (cluster16) */
  const char *const gen[40]; /* arguments after `orrery gen`, without --out; P2P: none */
  const char *model;         /* --network-model */
  const char *symmetry;      /* --symmetry */
  gboolean links;            /* the model has links: --links */
  const char *extra;         /* one more option (e.g. "--packet-size=4KiB"), or NULL */
  const char *timeline;      /* the timeline's file name (.gz compresses) */
  SymExpect sym;
} DetCase;

static const DetCase cases[] = {
  { "transformer tp2 pp2 dp2, congestion", 8,
    { "transformer", SMALL_MODEL, "-b", "1", "-B", "8", "--tp", "2", "--pp", "2", "--dp", "2",
      "--ranks", "8", NULL },
    "congestion", "auto", TRUE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "transformer tp2 pp2 dp2, flow", 8,
    { "transformer", SMALL_MODEL, "-b", "1", "-B", "8", "--tp", "2", "--pp", "2", "--dp", "2",
      "--ranks", "8", NULL },
    "flow", "auto", TRUE, NULL, "timeline.json.gz", SYM_NOT_TAKEN },
  { "transformer tp2 pp2 dp2, analytical", 8,
    { "transformer", SMALL_MODEL, "-b", "1", "-B", "8", "--tp", "2", "--pp", "2", "--dp", "2",
      "--ranks", "8", NULL },
    "analytical", "auto", FALSE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "transformer pp4 dp2 gpipe (point-to-point heavy), congestion", 8,
    { "transformer", "--layers", "4", "--hidden", "512", "--heads", "8", "--vocab", "1000",
      "--seq", "256", "-b", "1", "-B", "16", "--tp", "1", "--pp", "4", "--dp", "2", "--ranks",
      "8", "--schedule", "gpipe", NULL },
    "congestion", "off", TRUE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "all-pairs point-to-point, flow", 8, { P2P }, "flow", "auto", TRUE, NULL, "timeline.json",
    SYM_NOT_TAKEN },
  { "all-pairs point-to-point, congestion in 4 KiB packets", 8, { P2P }, "congestion", "auto",
    TRUE, "--packet-size=4KiB", "timeline.json", SYM_NOT_TAKEN },
  { "all_reduce on row groups x3, congestion", 16,
    { "collective", "--type", "all_reduce", "--ranks", "16", "--bytes", "1MiB", "--groups", "4",
      "--count", "3", NULL },
    "congestion", "auto", TRUE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "all_to_all on column groups x3, flow", 16,
    { "collective", "--type", "all_to_all", "--ranks", "16", "--bytes", "1MiB", "--stride", "4",
      "--count", "3", NULL },
    "flow", "auto", TRUE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "broadcast on column groups, root 1, x2, analytical, symmetry off", 16,
    { "collective", "--type", "broadcast", "--ranks", "16", "--bytes", "1MiB", "--stride", "4",
      "--root", "1", "--count", "2", NULL },
    "analytical", "off", FALSE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "reduce_scatter on all ranks x3, analytical, symmetric", 16,
    { "collective", "--type", "reduce_scatter", "--ranks", "16", "--bytes", "1MiB", "--count",
      "3", NULL },
    "analytical", "auto", FALSE, NULL, "timeline.json", SYM_TAKEN },
  { "reduce_scatter on all ranks x3, analytical, symmetry off", 16,
    { "collective", "--type", "reduce_scatter", "--ranks", "16", "--bytes", "1MiB", "--count",
      "3", NULL },
    "analytical", "off", FALSE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "transformer dp8, analytical, symmetric", 8,
    { "transformer", SMALL_MODEL, "-b", "1", "-B", "8", "--tp", "1", "--pp", "1", "--dp", "8",
      "--ranks", "8", NULL },
    "analytical", "auto", FALSE, NULL, "timeline.json", SYM_TAKEN },
  { "transformer dp8, analytical, symmetry off", 8,
    { "transformer", SMALL_MODEL, "-b", "1", "-B", "8", "--tp", "1", "--pp", "1", "--dp", "8",
      "--ranks", "8", NULL },
    "analytical", "off", FALSE, NULL, "timeline.json", SYM_NOT_TAKEN },
  { "transformer tp2 dp4 mixture of experts ep2 zero 2, flow", 8,
    { "transformer", SMALL_MODEL, "-b", "1", "-B", "8", "--tp", "2", "--pp", "1", "--dp", "4",
      "--ep", "2", "--experts", "4", "--top-k", "2", "--zero", "2", "--ranks", "8", NULL },
    "flow", "off", TRUE, NULL, "timeline.json", SYM_NOT_TAKEN },
};

/* Every rank sends to every other rank, all at once after a common compute
 * step (sizes 64, 128 and 192 KiB by distance, so that messages of several
 * pairs share links and finish at equal times), then computes once more
 * after its last receive. */
static void
write_p2p_exchange (const char *prefix, guint32 ranks)
{
  for (guint32 r = 0; r < ranks; r++)
    {
      guint n = 0;
      ChakraProtoMsg__Node *nodes[2 + 2 * 16];
      nodes[n++] = tu_comp (1, 5);
      ChakraProtoMsg__Node *last = tu_comp (2, 3);
      for (guint32 k = 1; k < ranks; k++)
        {
          gint64 bytes = 65536 * (1 + k % 3);
          ChakraProtoMsg__Node *send = tu_p2p (10 + k, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE,
                                               r, (r + k) % ranks, k, bytes);
          ChakraProtoMsg__Node *recv
              = tu_p2p (100 + k, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_RECV_NODE,
                        (r + ranks - k) % ranks, r, k, bytes);
          tu_node_dep (send, 1);
          tu_node_dep (recv, 1);
          tu_node_dep (last, 100 + k);
          nodes[n++] = send;
          nodes[n++] = recv;
        }
      nodes[n++] = last;
      tu_write_rank (prefix, r, nodes, n);
    }
}

/* Where the trace directories go: a directory on /dev/shm when that is a
 * tmpfs (which lists entries in creation order), else tu_scratch.  The
 * fixture removes it. */
#define TMPFS_MAGIC_NUMBER 0x01021994
static char *traces_root;
static gboolean traces_on_tmpfs;

static void
setup (void)
{
  tu_scratch_setup ();
  struct statfs fs;
  traces_root = NULL;
  traces_on_tmpfs = statfs ("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC_NUMBER
                    && access ("/dev/shm", W_OK) == 0;
  if (traces_on_tmpfs)
    {
      traces_root = g_build_filename ("/dev/shm", "orrery-det-XXXXXX", NULL);
      traces_on_tmpfs = g_mkdtemp (traces_root) != NULL;
    }
  if (!traces_on_tmpfs)
    {
      g_free (traces_root);
      traces_root = g_strdup (tu_scratch);
    }
}

static void
teardown (void)
{
  if (traces_on_tmpfs)
    tu_rmdir (traces_root);
  g_clear_pointer (&traces_root, g_free);
  tu_scratch_teardown ();
}

/* The workload of case c in a directory of its own: the trace prefix. */
static char *
make_workload (const DetCase *c)
{
  g_autofree char *dir = g_build_filename (traces_root, "wl", NULL);
  ck_assert_int_eq (g_mkdir (dir, 0755), 0);
  char *prefix = g_build_filename (dir, "w", NULL);
  if (c->gen[0] == P2P)
    {
      write_p2p_exchange (prefix, c->ranks);
      return prefix;
    }
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) tu_orrery ());
  g_ptr_array_add (argv, (gpointer) "gen");
  for (guint i = 0; c->gen[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) c->gen[i]);
  g_ptr_array_add (argv, (gpointer) "--out");
  g_ptr_array_add (argv, prefix);
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL;
  ck_assert_msg (tu_run (&out, (const char *const *) argv->pdata) == 0, "%s: gen: %s", c->name,
                 out);
  return prefix;
}

/* stderr without the wall-time line ("orrery: N events in T s wall (...)"),
 * the one output that depends on the machine. */
static char *
strip_wall_line (const char *err)
{
  g_auto (GStrv) lines = g_strsplit (err, "\n", -1);
  GString *kept = g_string_new (NULL);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      if (g_str_has_prefix (lines[i], "orrery: ") && strstr (lines[i], " s wall") != NULL)
        continue;
      g_string_append (kept, lines[i]);
      if (lines[i + 1] != NULL)
        g_string_append_c (kept, '\n');
    }
  return g_string_free (kept, FALSE);
}

/* Run case c on the trace set prefix, writing every output, and stdout and
 * the filtered stderr, under a new directory tu_scratch/out: that
 * directory's path (the caller frees). */
static char *
run_case (const DetCase *c, const char *config, const char *prefix, const char *out)
{
  char *dir = tu_scratch_path (out);
  ck_assert_int_eq (g_mkdir (dir, 0755), 0);
  g_autofree char *report = g_build_filename (dir, "report.json", NULL);
  g_autofree char *stats = g_build_filename (dir, "stats.csv", NULL);
  g_autofree char *links = g_build_filename (dir, "links.csv", NULL);
  g_autofree char *timeline = g_build_filename (dir, c->timeline, NULL);
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  const char *const fixed[] = { tu_orrery (), "run", "--config", config, "--workload", prefix,
                                "--network-model", c->model, "--symmetry", c->symmetry,
                                "--report", report, "--stats", stats, "--timeline", timeline,
                                "--critical-path", "5" };
  for (guint i = 0; i < G_N_ELEMENTS (fixed); i++)
    g_ptr_array_add (argv, (gpointer) fixed[i]);
  if (c->links)
    {
      g_ptr_array_add (argv, (gpointer) "--links");
      g_ptr_array_add (argv, links);
    }
  if (c->extra != NULL)
    g_ptr_array_add (argv, (gpointer) c->extra);
  g_ptr_array_add (argv, NULL);

  g_autofree char *sout = NULL, *serr = NULL;
  int status = 0;
  GError *error = NULL;
  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &sout, &serr,
                &status, &error);
  g_assert_no_error (error);
  ck_assert_msg (WIFEXITED (status) && WEXITSTATUS (status) == 0, "%s: orrery run failed: %s%s",
                 c->name, sout, serr);
  ck_assert_msg (strstr (sout, "simulated time: ") != NULL, "%s: no summary: %s", c->name, sout);
  ck_assert_msg ((strstr (sout, "symmetric:") != NULL) == (c->sym == SYM_TAKEN),
                 "%s: symmetric shortcut %s: %s", c->name,
                 c->sym == SYM_TAKEN ? "not taken" : "taken", sout);

  g_autofree char *stdout_path = g_build_filename (dir, "stdout.txt", NULL);
  g_autofree char *stderr_path = g_build_filename (dir, "stderr.txt", NULL);
  g_autofree char *kept = strip_wall_line (serr);
  ck_assert (g_file_set_contents (stdout_path, sout, -1, NULL));
  ck_assert (g_file_set_contents (stderr_path, kept, -1, NULL));
  return dir;
}

/* Assert file name has the same bytes in directories a and b; on a
 * difference, say where (byte, line) and show both lines. */
static void
assert_same_file (const char *what, const char *a, const char *b, const char *name)
{
  g_autofree char *pa = g_build_filename (a, name, NULL);
  g_autofree char *pb = g_build_filename (b, name, NULL);
  g_autofree char *x = NULL, *y = NULL;
  gsize lx = 0, ly = 0;
  ck_assert_msg (g_file_get_contents (pa, &x, &lx, NULL), "%s: %s not written", what, pa);
  ck_assert_msg (g_file_get_contents (pb, &y, &ly, NULL), "%s: %s not written", what, pb);
  ck_assert_msg (lx > 0 || g_str_has_prefix (name, "std"), "%s: %s is empty", what, pa);
  gsize i = 0;
  while (i < lx && i < ly && x[i] == y[i])
    i++;
  if (i == lx && lx == ly)
    return;
  gsize line = 1, start = 0;
  for (gsize j = 0; j < i; j++)
    if (x[j] == '\n')
      line++, start = j + 1;
  const char *ex = memchr (x + start, '\n', lx - start);
  const char *ey = ly > start ? memchr (y + start, '\n', ly - start) : NULL;
  int nx = (int) MIN ((ex ? (gsize) (ex - x) : lx) - start, 200);
  int ny = ly > start ? (int) MIN ((ey ? (gsize) (ey - y) : ly) - start, 200) : 0;
  ck_abort_msg ("%s: %s differs (%" G_GSIZE_FORMAT " vs %" G_GSIZE_FORMAT
                " bytes) from byte %" G_GSIZE_FORMAT ", line %" G_GSIZE_FORMAT ":\n  %.*s\n  %.*s",
                what, name, lx, ly, i, line, nx, x + start, ny, ly > start ? y + start : "");
}

static void
assert_same_outputs (const DetCase *c, const char *what, const char *a, const char *b)
{
  g_autofree char *label = g_strdup_printf ("%s (%s)", c->name, what);
  const char *names[] = { "stdout.txt", "stderr.txt", "report.json", "stats.csv", c->timeline,
                          c->links ? "links.csv" : NULL };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (names[i] != NULL)
      assert_same_file (label, a, b, names[i]);
}

/* The rank order k-th created in the scrambled copy: 3 + 5k mod n, a
 * permutation for the rank counts used here (5 is prime to 8 and 16),
 * neither rank order nor its reverse. */
static guint32
scrambled_rank (guint32 k, guint32 n)
{
  return (3 + 5 * k) % n;
}

/* Build a directory holding the trace files of prefix (in dir/base) with
 * their entries created in another order (copies in a scrambled order, or
 * hard links in reverse order), then swap it in at dir's path; the
 * original is moved to dir.N. */
/* The names in dir in the order the file system lists them, joined by
 * spaces. */
static char *
listing (const char *dir)
{
  GDir *d = g_dir_open (dir, 0, NULL);
  ck_assert_msg (d != NULL, "cannot list %s", dir);
  GString *names = g_string_new (NULL);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    g_string_append_printf (names, "%s%s", names->len > 0 ? " " : "", name);
  g_dir_close (d);
  return g_string_free (names, FALSE);
}

static void
reorder_traces (const char *prefix, guint32 ranks, gboolean links, guint n)
{
  g_autofree char *dir = g_path_get_dirname (prefix);
  g_autofree char *base = g_path_get_basename (prefix);
  g_autofree char *fresh = g_strdup_printf ("%s.new", dir);
  g_autofree char *aside = g_strdup_printf ("%s.%u", dir, n);
  ck_assert_int_eq (g_mkdir (fresh, 0755), 0);
  for (guint32 k = 0; k < ranks; k++)
    {
      guint32 r = links ? ranks - 1 - k : scrambled_rank (k, ranks);
      g_autofree char *name = g_strdup_printf ("%s.%u.et", base, r);
      g_autofree char *from = g_build_filename (dir, name, NULL);
      g_autofree char *to = g_build_filename (fresh, name, NULL);
      if (links)
        ck_assert_msg (link (from, to) == 0, "link %s %s", from, to);
      else
        {
          g_autofree char *bytes = NULL;
          gsize len = 0;
          ck_assert (g_file_get_contents (from, &bytes, &len, NULL));
          FILE *f = fopen (to, "wb");
          ck_assert_msg (f != NULL, "cannot create %s", to);
          ck_assert_uint_eq (fwrite (bytes, 1, len, f), len);
          ck_assert_int_eq (fclose (f), 0);
        }
    }
  /* Nothing else may be there (an extra PREFIX.N.et would be an error),
   * and on a tmpfs the new directory lists its entries in another order. */
  g_autofree char *before = listing (dir);
  g_autofree char *after = listing (fresh);
  g_auto (GStrv) names = g_strsplit (before, " ", -1);
  ck_assert_uint_eq (g_strv_length (names), ranks);
  if (traces_on_tmpfs)
    ck_assert_msg (strcmp (before, after) != 0, "%s and %s both list as: %s", dir, fresh, after);
  ck_assert_int_eq (g_rename (dir, aside), 0);
  ck_assert_int_eq (g_rename (fresh, dir), 0);
}

START_TEST (test_byte_identical)
{
  const DetCase *c = &cases[_i];
  g_autofree char *config
      = tu_write_file ("cluster.xml", c->ranks == 8 ? tu_cluster_c4x2 : cluster16);
  g_autofree char *prefix = make_workload (c);
  g_autofree char *first = run_case (c, config, prefix, "run1");
  g_autofree char *second = run_case (c, config, prefix, "run2");
  assert_same_outputs (c, "second run", first, second);

  reorder_traces (prefix, c->ranks, FALSE, 1);
  g_autofree char *scrambled = run_case (c, config, prefix, "run3");
  assert_same_outputs (c, "traces created in a scrambled order", first, scrambled);

  reorder_traces (prefix, c->ranks, TRUE, 2);
  g_autofree char *reversed = run_case (c, config, prefix, "run4");
  assert_same_outputs (c, "traces linked in reverse order", first, reversed);
}
END_TEST

static Suite *
determinism_suite (void)
{
  Suite *s = suite_create ("determinism");
  TCase *tc = tu_tcase (s, "determinism", setup, teardown, 120);
  tcase_add_loop_test (tc, test_byte_identical, 0, G_N_ELEMENTS (cases));
  return s;
}

int
main (void)
{
  return tu_run_suite (determinism_suite ());
}
