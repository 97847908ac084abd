/* sys_params.c: defaults and names of the system layer's configuration. */
#include "system/sys_params.h"

#include <string.h>

#include "sim/error.h"

static const char *const coll_kind_names[SYS_COLL_N] = {
  "all_reduce", "reduce_scatter", "all_gather", "all_to_all",
  "broadcast", "reduce", "gather", "scatter", "barrier",
};

void
sys_params_init (SysParams *params)
{
  g_return_if_fail (params != NULL);
  memset (params, 0, sizeof *params);
  params->policy = SYS_SCHED_LIFO;
  params->endpoint_delay = sim_time_from_ns (10);
  params->active_chunks_per_dim = 1;
  params->splits = 1;
  params->opt = SYS_OPT_LOCAL_BW_AWARE;
  for (guint k = 0; k < SYS_COLL_N; k++)
    {
      g_strlcpy (params->impl[k][0], "ring", SYS_ALGO_NAME_MAX);
      params->n_impl[k] = 1;
    }
  params->local_mem_bw_Bps = 1600e9;
  params->reduction_passes = 3;
  sys_compat_native (&params->compat);
  params->rendezvous_threshold = G_MAXUINT64;
}

gboolean
sys_params_set_impl (SysParams *params, SysCollKind kind, const char *const *names, guint n,
                     GError **error)
{
  g_return_val_if_fail (params != NULL && kind < SYS_COLL_N, FALSE);
  if (n == 0 || n > NET_MAX_DIMS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s implementation: %u algorithms given, expected 1 to %d (one per dimension)",
                   coll_kind_names[kind], n, NET_MAX_DIMS);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      if (g_strlcpy (params->impl[kind][i], names[i], SYS_ALGO_NAME_MAX) >= SYS_ALGO_NAME_MAX)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s implementation: algorithm name '%s' is too long",
                       coll_kind_names[kind], names[i]);
          return FALSE;
        }
    }
  params->n_impl[kind] = n;
  return TRUE;
}

const char *
sys_coll_kind_name (SysCollKind kind)
{
  return kind < SYS_COLL_N ? coll_kind_names[kind] : "unknown";
}

const char *
sys_sched_policy_name (SysSchedPolicy policy)
{
  switch (policy)
    {
    case SYS_SCHED_LIFO:
      return "LIFO";
    case SYS_SCHED_FIFO:
      return "FIFO";
    case SYS_SCHED_EXPLICIT:
      return "EXPLICIT";
    }
  return "unknown";
}

gboolean
sys_sched_policy_parse (const char *name, SysSchedPolicy *out)
{
  static const SysSchedPolicy all[] = { SYS_SCHED_LIFO, SYS_SCHED_FIFO, SYS_SCHED_EXPLICIT };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (g_ascii_strcasecmp (name, sys_sched_policy_name (all[i])) == 0)
      {
        *out = all[i];
        return TRUE;
      }
  return FALSE;
}

const char *
sys_coll_opt_name (SysCollOpt opt)
{
  return opt == SYS_OPT_BASELINE ? "baseline" : "localBWAware";
}

gboolean
sys_coll_opt_parse (const char *name, SysCollOpt *out)
{
  if (g_ascii_strcasecmp (name, "localBWAware") == 0)
    *out = SYS_OPT_LOCAL_BW_AWARE;
  else if (g_ascii_strcasecmp (name, "baseline") == 0)
    *out = SYS_OPT_BASELINE;
  else
    return FALSE;
  return TRUE;
}

void
sys_compat_native (SysCompat *compat)
{
  *compat = (SysCompat) { .split = SYS_SPLIT_UP, .chunking = SYS_CHUNKS_EXACT,
                          .reduce_pricing = SYS_MEM_EXACT_PS, .timing = SYS_TIMING_NATIVE };
}

void
sys_compat_reference (SysCompat *compat)
{
  *compat = (SysCompat) { .split = SYS_SPLIT_DOWN, .chunking = SYS_CHUNKS_FIXED_SIZE,
                          .reduce_pricing = SYS_MEM_TRUNCATED_NS,
                          .timing = SYS_TIMING_REFERENCE, .dims_from_impl = TRUE,
                          .subgroups_flat = TRUE, .subgroup_algorithm = "ring",
                          .subgroup_delay = sim_time_from_ns (10) };
}

gboolean
sys_compat_is_native (const SysCompat *compat)
{
  SysCompat native;
  sys_compat_native (&native);
  return compat->split == native.split && compat->chunking == native.chunking
         && compat->reduce_pricing == native.reduce_pricing && compat->timing == native.timing
         && compat->dims_from_impl == native.dims_from_impl
         && compat->subgroups_flat == native.subgroups_flat;
}
