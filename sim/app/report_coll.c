/* report_coll.c: the summary's collectives table; see report_coll.h. */
#include "sim/app/report_coll.h"

#include <string.h>
#include "sim/app/port_bound.h"
#include "sim/app/report_perf.h"
#include "sim/units.h"

/* nccl-tests' sizes and bus bandwidth: S is the size nccl-tests prints for
 * the operation (all-gather, gather, scatter: the whole output, p times
 * comm_size), and busbw = S / t x factor. */
static double
bus_factor (SysCollKind kind, guint32 p)
{
  double n = p;
  switch (kind)
    {
    case SYS_COLL_ALL_REDUCE:
      return 2.0 * (n - 1) / n;
    case SYS_COLL_REDUCE_SCATTER:
    case SYS_COLL_ALL_GATHER:
    case SYS_COLL_ALL_TO_ALL:
    case SYS_COLL_GATHER:
    case SYS_COLL_SCATTER:
      return (n - 1) / n;
    case SYS_COLL_BROADCAST:
    case SYS_COLL_REDUCE:
      return 1.0;
    default:
      return 0.0;
    }
}

static guint64
nccl_bytes (SysCollKind kind, guint64 bytes, guint32 p)
{
  gboolean times_p = kind == SYS_COLL_ALL_GATHER || kind == SYS_COLL_GATHER
                     || kind == SYS_COLL_SCATTER;
  if (!times_p || p == 0)
    return bytes;
  return bytes > G_MAXUINT64 / p ? G_MAXUINT64 : bytes * p;
}

guint64
app_coll_row_size (const SysCollGroupStats *st)
{
  return nccl_bytes (st->kind, st->bytes, st->ranks);
}

/* Algorithm and bus bandwidth of a row in bytes/s, over the time its
 * collectives ran with every member present; FALSE when undefined. */
gboolean
app_coll_row_bandwidth (const SysCollGroupStats *st, double *alg, double *bus)
{
  SimTime t = st->busy - st->wait;
  double factor = bus_factor (st->kind, st->ranks);
  if (t == 0 || factor == 0.0 || st->ranks < 2)
    return FALSE;
  *alg = (double) app_coll_row_size (st) / ((double) t / 1e12);
  *bus = *alg * factor;
  return TRUE;
}

char *
app_coll_group_name (guint64 group)
{
  return group == SYS_GROUP_WORLD ? g_strdup ("all") : g_strdup_printf ("%" G_GUINT64_FORMAT, group);
}

/* Rows that differ only in their group print as one. */
static gboolean
same_but_group (const SysCollGroupStats *a, const SysCollGroupStats *b)
{
  return a->kind == b->kind && a->ranks == b->ranks && a->count == b->count
         && a->bytes == b->bytes && a->busy == b->busy && a->wait == b->wait
         && strcmp (a->algorithm, b->algorithm) == 0 && a->group != SYS_GROUP_WORLD
         && b->group != SYS_GROUP_WORLD;
}

/* "all", "7", "1-8" or "1-8 (4 groups)" for rows[i..j). */
static char *
groups_label (const SysCollGroupStats *rows, guint i, guint j)
{
  if (j - i == 1)
    return app_coll_group_name (rows[i].group);
  gboolean consecutive = rows[j - 1].group - rows[i].group == j - i - 1;
  if (consecutive)
    return g_strdup_printf ("%" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT, rows[i].group,
                            rows[j - 1].group);
  return g_strdup_printf ("%u groups", j - i);
}

/* Name a row whose bus bandwidth exceeds what its members' ports carry
 * (port_bound.h): a number no machine can produce. */
static void
warn_ports (const AppPortBounds *bounds, const SysCollGroupStats *st, const char *group,
            GString *warnings)
{
  double alg, bus, bound;
  if (!app_coll_row_bandwidth (st, &alg, &bus)
      || !app_port_exceeds (bounds, st->group, st->in_network, bus, &bound))
    return;
  g_autofree char *buss = sim_units_format_bandwidth (bus);
  g_autofree char *bounds_s = sim_units_format_bandwidth (bound);
  g_string_append_printf (warnings,
                          "warning: %s on group %s (%u ranks): busbw %s exceeds the %s its "
                          "members' ports can carry\n",
                          sys_coll_kind_name (st->kind), group, st->ranks, buss, bounds_s);
}

/* The exchanges as rows of the collectives table (kind "exchange", the
 * name in the algorithm column; app_exchange_stats says what each holds). */
static void
print_exchange_rows (const GArray *exch, FILE *out)
{
  for (guint i = 0; i < exch->len; i++)
    {
      const AppExchangeStat *x = &g_array_index (exch, AppExchangeStat, i);
      g_autofree char *bytes = sim_units_format_bytes (x->bytes);
      g_autofree char *total = sim_units_format_time (x->done - MIN (x->first, x->done));
      g_autofree char *late = sim_units_format_time (x->last_join - MIN (x->first, x->last_join));
      double alg, bus;
      gboolean bw = app_exchange_bandwidth (x, &alg, &bus);
      g_autofree char *algs = bw ? sim_units_format_gbps (alg) : g_strdup ("-");
      g_autofree char *buss = bw ? sim_units_format_gbps (bus) : g_strdup ("-");
      fprintf (out, "  %-14s %-9s %5u %6" G_GUINT64_FORMAT " %10s %11s %11s %11s %12s %12s  %s\n",
               "exchange", "-", x->ranks, x->msgs, bytes, total, "-", late, algs, buss, x->name);
    }
  if (exch->len > 0)
    fprintf (out, "  (exchange rows: count its messages, size their bytes summed over ranks, "
                  "time from the first send to the last receive;\n   busbw the bytes a rank "
                  "received over the time all had started, algbw x ranks / (ranks - 1))\n");
}

void
app_report_collectives (const AppSim *sim, FILE *out)
{
  g_autoptr (GArray) arr = sys_coll_group_stats (app_sim_sys (sim));
  g_autoptr (GArray) exch = app_exchange_stats (sim);
  const SysCollGroupStats *rows = (const SysCollGroupStats *) arr->data;
  if (arr->len == 0 && exch->len == 0)
    return;
  g_autoptr (AppPortBounds) bounds = app_port_bounds_new (sim);
  g_autoptr (GString) warnings = g_string_new (NULL);
  fprintf (out, "collectives (per group; time from the first member's join to the last one "
                "done;\n  bandwidth as nccl-tests, over the time with every member present, "
                "in GB/s = 10^9 B/s;\n  size as nccl-tests: all-gather's output, "
                "reduce-scatter's input, summed over the count):\n");
  fprintf (out, "  %-14s %-9s %5s %6s %10s %11s %11s %11s %12s %12s  %s\n", "kind", "group",
           "ranks", "count", "size", "total time", "mean time", "late joins", "algbw GB/s",
           "busbw GB/s",
           "algorithm");
  for (guint i = 0, j; i < arr->len; i = j)
    {
      for (j = i + 1; j < arr->len && same_but_group (&rows[i], &rows[j]); j++)
        ;
      const SysCollGroupStats *st = &rows[i];
      g_autofree char *group = groups_label (rows, i, j);
      g_autofree char *bytes = sim_units_format_bytes (app_coll_row_size (st));
      g_autofree char *total = sim_units_format_time (st->busy);
      g_autofree char *mean = sim_units_format_time (st->busy / st->count);
      g_autofree char *wait = sim_units_format_time (st->wait);
      double alg, bus;
      gboolean bw = app_coll_row_bandwidth (st, &alg, &bus);
      g_autofree char *algs = bw ? sim_units_format_gbps (alg) : g_strdup ("-");
      g_autofree char *buss = bw ? sim_units_format_gbps (bus) : g_strdup ("-");
      fprintf (out, "  %-14s %-9s %5u %6" G_GUINT64_FORMAT " %10s %11s %11s %11s %12s %12s  %s\n",
               sys_coll_kind_name (st->kind), group, st->ranks, st->count, bytes, total, mean, wait,
               algs, buss, st->algorithm);
      warn_ports (bounds, st, group, warnings);
    }
  print_exchange_rows (exch, out);
  if (arr->len > 1)
    fprintf (out, "  (a row of several groups shows each group's figures: they are identical)\n");
  if (warnings->len > 0)
    fprintf (out, "%s  (the link model gave messages in flight more bandwidth than their ports "
                  "have, as ASTRA-sim's analytical backend does)\n", warnings->str);
}
