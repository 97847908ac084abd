/* config_xml.c: the native cluster XML (format: configs/cluster.rng).
 *
 * A file is parsed with libxml2 (no network, line numbers kept) and
 * validated against the schema compiled into the binary
 * (build/gen/cluster_rng.h), both by sim/app/xml_schema.h, then walked to
 * fill fresh layer defaults, converting every quantity with sim/units.  The
 * walk checks what it reads as strictly as the schema does, because
 * libxml2's RelaxNG messages are vague ("Element dim failed to validate
 * attributes"): when validation fails, the walk's precise message
 * ("<dim bandwidth>: '50GB': unknown bandwidth unit") comes first and the
 * validator's about other lines follow (those about the walk's line say
 * less, or mislead).  Either way every message starts with FILE:LINE.
 */
#include "sim/app/config.h"

#include <string.h>

#include "cluster_rng.h"
#include "sim/app/config_xml_private.h"
#include "sim/app/programs.h"
#include "sim/app/xml_lib.h"
#include "sim/app/xml_schema.h"
#include "network/gen_topo.h"
#include "sim/error.h"
#include "sim/units.h"
#include "system/algo.h"
#include "system/nccl.h"
#include "workload/compute.h"

/* The schema compiled into the binary. */
static const AppXmlSchema cluster_schema = { "configs/cluster.rng", cluster_rng,
                                             sizeof cluster_rng };

/* ------------------------------------------------------------------------ */
/* Elements                                                                 */

static gboolean
xml_rounding (XmlLoad *l, const xmlNode *cluster, GError **error)
{
  static const char *const names[] = { "ps", "astra-ns", NULL };
  int r = -1;
  if (!app_xml_attr_choice (l, cluster, "rounding", names, &r, error))
    return FALSE;
  app_compat_apply (r == 1 ? APP_COMPAT_REFERENCE : APP_COMPAT_NATIVE, &l->net, &l->sys, &l->wl);
  return TRUE;
}


/* The algorithm names a config may write, from the registry's native rows:
 * every name, then every flat ("one") variant (NULL-terminated). */
static GPtrArray *
algorithm_names (void)
{
  GPtrArray *out = g_ptr_array_new_with_free_func (g_free);
  for (guint flat = 0; flat < 2; flat++)
    for (guint i = 0; i < sys_algo_count (); i++)
      {
        const SysAlgoClass *a = sys_algo_nth (i);
        if (a->timing != SYS_TIMING_NATIVE || (flat && !a->flat_variant))
          continue;
        g_ptr_array_add (out, flat ? sys_algo_flat_name (a) : g_strdup (a->name));
      }
  g_ptr_array_add (out, NULL);
  return out;
}

/* "direct and oneDirect may end in a window, as in direct8": the rows that
 * take a window. */
static char *
algorithm_window_note (void)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < sys_algo_count (); i++)
    {
      const SysAlgoClass *a = sys_algo_nth (i);
      if (a->timing != SYS_TIMING_NATIVE || !a->windowed)
        continue;
      g_autofree char *flat = sys_algo_flat_name (a);
      g_string_append_printf (out, "; %s%s%s may end in a window, as in %s8", a->name,
                              a->flat_variant ? " and " : "", a->flat_variant ? flat : "",
                              a->name);
    }
  return g_string_free (out, FALSE);
}

/* A name a native row takes: its name or its flat variant, ending in a
 * window (1 to 9 digits, no leading 0) only where the row takes one. */
static gboolean
algorithm_known (const char *word)
{
  SysAlgoRef ref;
  if (!sys_algo_resolve (word, SYS_TIMING_NATIVE, &ref) || (ref.flat && !ref.algo->flat_variant))
    return FALSE;
  const char *n = word + strlen (word);
  while (n > word && g_ascii_isdigit (n[-1]))
    n--;
  if (*n == '\0')
    return TRUE;
  return ref.algo->windowed && *n != '0' && strlen (n) <= 9;
}

/* msccl="FILE.xml": the kind runs that MSCCL program (its path relative
 * to the config), with the policy's timing. */
static gboolean
xml_algorithm_msccl (XmlLoad *l, const xmlNode *node, SysCollKind kind, const char *file,
                     gboolean dims_too, GError **error)
{
  if (dims_too)
    return app_xml_fail (l, node, error, "dims and msccl together: give one");
  g_autofree char *dir = g_path_get_dirname (l->path);
  g_autofree char *path = g_path_is_absolute (file) ? g_strdup (file)
                                                     : g_build_filename (dir, file, NULL);
  SysProgTiming timing = sys_compat_is_native (&l->sys.compat) ? SYS_PROG_TIMING_NATIVE
                                                                : SYS_PROG_TIMING_P2P;
  const SysAlgoClass *algo = app_program_get (APP_PROGRAM_MSCCL, path, timing, kind, error);
  if (algo == NULL)
    return app_xml_attr_located (l, node, "msccl", error);
  l->sys.program[kind] = algo;
  return TRUE;
}

static gboolean
xml_algorithm (XmlLoad *l, const xmlNode *node, GError **error)
{
  /* The order of SysCollKind. */
  static const char *const colls[] = { "all-reduce", "reduce-scatter", "all-gather",
                                       "all-to-all", "broadcast", "reduce", "gather",
                                       "scatter", "barrier", NULL };
  static const char *const attrs[] = { "collective", "dims", "msccl", NULL };
  int kind = -1;
  g_autofree char *text = NULL, *msccl = NULL;
  if (!app_xml_check_node (l, node, attrs, NULL, NULL, error)
      || !app_xml_attr_choice (l, node, "collective", colls, &kind, error)
      || !app_xml_attr_text (l, node, "msccl", FALSE, &msccl, error)
      || !app_xml_attr_text (l, node, "dims", msccl == NULL, &text, error))
    return FALSE;
  if (kind < 0)
    return app_xml_fail (l, node, error, "missing attribute 'collective'");
  if (l->impl_seen[kind])
    return app_xml_fail (l, node, error, "a second <algorithm> for %s", colls[kind]);
  l->impl_seen[kind] = TRUE;
  if (msccl != NULL)
    return xml_algorithm_msccl (l, node, (SysCollKind) kind, msccl, text != NULL, error);
  g_auto (GStrv) words = g_strsplit_set (text, " \t\r\n", -1);
  g_autoptr (GPtrArray) names = g_ptr_array_new ();
  for (guint i = 0; words[i] != NULL; i++)
    {
      if (words[i][0] == '\0')
        continue;
      if (!algorithm_known (words[i]))
        {
          g_autoptr (GPtrArray) known = algorithm_names ();
          g_autofree char *list = app_xml_list_join ((const char *const *) known->pdata);
          g_autofree char *note = algorithm_window_note ();
          return app_xml_fail (l, node, error, "unknown algorithm '%s' (expected: %s%s)",
                               words[i], list, note);
        }
      g_ptr_array_add (names, words[i]);
    }
  if (names->len > l->net.n_dims)
    return app_xml_fail (l, node, error, "%u algorithms for a network of %u dimensions",
                     names->len, l->net.n_dims);
  if (!sys_params_set_impl (&l->sys, (SysCollKind) kind, (const char *const *) names->pdata,
                            names->len, error))
    return app_xml_attr_located (l, node, "dims", error);
  /* <system library> is read before its <algorithm> rows. */
  SysNcclFunc func;
  if (l->sys.lib.library == SYS_LIBRARY_NCCL && sys_nccl_func_of ((SysCollKind) kind, &func))
    g_ptr_array_add (l->warnings,
                     g_strdup_printf ("%s:%u: <algorithm collective=\"%s\"> is ignored with "
                                      "library=\"nccl\", whose tuning model picks the algorithm "
                                      "(nccl-algo= narrows its choice)",
                                      l->path, (guint) node->line, colls[kind]));
  return TRUE;
}

static gboolean
xml_system (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "scheduling", "endpoint-delay", "active-chunks-per-dim",
                                       "splits", "collective-optimization", "local-mem-bw",
                                       "reduction-passes", "rendezvous-threshold", "library",
                                       "nccl-algo", "nccl-proto", "cpu", "collnet", "gpu",
                                       "net-latency", "tuner", NULL };
  static const char *const children[] = { "algorithm", NULL };
  /* The order of SysSchedPolicy and SysCollOpt. */
  static const char *const policies[] = { "LIFO", "FIFO", "EXPLICIT", NULL };
  static const char *const opts[] = { "localBWAware", "baseline", NULL };
  int policy = -1, opt = -1;
  if (!app_xml_check_node (l, node, attrs, children, "algorithm", error)
      || !app_xml_attr_choice (l, node, "scheduling", policies, &policy, error)
      || !app_xml_attr_time (l, node, "endpoint-delay", FALSE, &l->sys.endpoint_delay, error)
      || !app_xml_attr_uint (l, node, "active-chunks-per-dim", FALSE, 1, G_MAXUINT,
                     &l->sys.active_chunks_per_dim, error)
      || !app_xml_attr_uint (l, node, "splits", FALSE, 1, SYS_SPLITS_MAX, &l->sys.splits,
                             error)
      || !app_xml_attr_choice (l, node, "collective-optimization", opts, &opt, error)
      || !app_xml_attr_bandwidth (l, node, "local-mem-bw", FALSE, &l->sys.local_mem_bw_Bps, error)
      || !app_xml_attr_uint (l, node, "reduction-passes", FALSE, 0, 999, &l->sys.reduction_passes,
                     error)
      || !app_xml_attr_bytes (l, node, "rendezvous-threshold", &l->sys.rendezvous_threshold, error)
      || !app_xml_library (l, node, error))
    return FALSE;
  if (policy >= 0)
    l->sys.policy = (SysSchedPolicy) policy;
  if (opt >= 0)
    l->sys.opt = (SysCollOpt) opt;
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    if (app_xml_is (c, "algorithm") && !xml_algorithm (l, c, error))
      return FALSE;
  return TRUE;
}

/* A number in (0, 1]. */
static gboolean
attr_fraction (XmlLoad *l, const xmlNode *node, const char *name, double *out, GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, FALSE, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;
  char *end = NULL;
  double v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !(v > 0.0 && v <= 1.0))
    return app_xml_fail (l, node, error, "%s '%s' is not a number in (0, 1]", name, text);
  *out = v;
  return TRUE;
}

/* A custom device: <device name fp32 bf16 fp16 fp8 mem-bw mem-capacity
 * matrix-efficiency memory-efficiency>.  Its name borrows from `name`. */
static gboolean
xml_device (XmlLoad *l, const xmlNode *node, char **name, WlDevice *d, GError **error)
{
  static const char *const attrs[] = { "name",         "fp32",          "bf16",
                                       "fp16",         "fp8",           "tf32",
                                       "mem-bw",
                                       "mem-capacity", "matrix-efficiency", "memory-efficiency",
                                       NULL };
  guint64 capacity = 0;
  *d = (WlDevice) { .matrix_eff = 1.0, .memory_eff = 1.0 };
  if (!app_xml_check_node (l, node, attrs, NULL, NULL, error)
      || !app_xml_attr_text (l, node, "name", TRUE, name, error))
    return FALSE;
  for (guint t = 0; t < WL_DTYPE_N; t++)
    if (!app_xml_attr_flops (l, node, wl_dtype_name ((WlDtype) t), &d->peak_flops[t], error))
      return FALSE;
  if (!app_xml_attr_bandwidth (l, node, "mem-bw", TRUE, &d->mem_bw_Bps, error)
      || !app_xml_attr_bytes (l, node, "mem-capacity", &capacity, error)
      || !attr_fraction (l, node, "matrix-efficiency", &d->matrix_eff, error)
      || !attr_fraction (l, node, "memory-efficiency", &d->memory_eff, error))
    return FALSE;
  if (wl_device_preset (*name) != NULL)
    return app_xml_fail (l, node, error, "name '%s' is a preset's; choose another", *name);
  d->name = *name;
  d->mem_capacity_B = (double) capacity;
  return TRUE;
}

/* The device attribute `attr` names: a <device> child of compute, else a
 * preset; its roofline for dtype into roof (and the device into *found). */
static gboolean
device_lookup (XmlLoad *l, const xmlNode *compute, const char *attr, const char *name,
               const GArray *custom, WlDtype dtype, WlRoofline *roof, const WlDevice **found,
               GError **error)
{
  const WlDevice *d = NULL;
  for (guint i = 0; i < custom->len && d == NULL; i++)
    if (g_ascii_strcasecmp (g_array_index (custom, WlDevice, i).name, name) == 0)
      d = &g_array_index (custom, WlDevice, i);
  if (d == NULL)
    d = wl_device_preset (name);
  if (d == NULL)
    {
      g_autofree char *known = wl_device_preset_names ();
      return app_xml_fail (l, compute, error, "%s '%s' is neither a <device> here nor a preset "
                       "(presets: %s)", attr, name, known);
    }
  if (!wl_device_roofline (d, dtype, roof))
    return app_xml_fail (l, compute, error, "%s '%s' has no %s peak", attr, name,
                     wl_dtype_name (dtype));
  *found = d;
  return TRUE;
}

/* Apply <compute device captured-on dtype> to l->wl.  The device sets peak,
 * memory bandwidth, capacity and efficiencies; attributes override them. */
static gboolean
xml_compute_devices (XmlLoad *l, const xmlNode *node, const GArray *custom, GError **error)
{
  g_autofree char *device = NULL;
  g_autofree char *captured = NULL;
  g_autofree char *dtype_text = NULL;
  WlDtype dtype = WL_DTYPE_BF16;
  if (!app_xml_attr_text (l, node, "device", FALSE, &device, error)
      || !app_xml_attr_text (l, node, "captured-on", FALSE, &captured, error)
      || !app_xml_attr_text (l, node, "dtype", FALSE, &dtype_text, error))
    return FALSE;
  if (dtype_text != NULL && !wl_dtype_parse (dtype_text, &dtype))
    return app_xml_fail (l, node, error, "dtype '%s' is not one of: fp32, tf32, bf16, fp16, fp8",
                     dtype_text);
  const WlDevice *d = NULL;
  if (device != NULL)
    {
      WlRoofline roof;
      /* device_lookup sets roof and d when it returns TRUE; clang's analyzer
       * does not follow the variadic app_xml_fail, which always returns FALSE. */
      if (!device_lookup (l, node, "device", device, custom, dtype, &roof, &d, error))
        return FALSE;
      l->wl.peak_flops = roof.peak_flops; /* NOLINT(clang-analyzer-core.uninitialized.Assign) */
      l->wl.mem_bw_Bps = roof.mem_bw_Bps;
      l->wl.matrix_eff = roof.matrix_eff;
      l->wl.memory_eff = roof.memory_eff;
      l->wl.mem_capacity_B = d->mem_capacity_B; /* NOLINT(clang-analyzer-core.NullDereference) */
      g_strlcpy (l->wl.device, d->name, sizeof l->wl.device);
      g_snprintf (l->wl.peak_label, sizeof l->wl.peak_label, "%s %s", d->name,
                  wl_dtype_name (dtype));
      for (guint t = 0; t < WL_DTYPE_N; t++)
        l->wl.dtype_peak[t] = d->peak_flops[t];
      l->wl.peak_dtype = dtype;
    }
  if (l->wl.compute == WL_COMPUTE_SCALED && captured == NULL)
    return app_xml_fail (l, node, error, "model 'scaled' needs captured-on (the trace's device)");
  if (l->wl.compute != WL_COMPUTE_SCALED && captured != NULL)
    return app_xml_fail (l, node, error, "captured-on applies only to model 'scaled'");
  if (captured != NULL
      && !device_lookup (l, node, "captured-on", captured, custom, dtype, &l->wl.captured, &d,
                         error))
    return FALSE;
  return TRUE;
}

static gboolean
xml_compute (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "model",  "peak",        "mem-bw",
                                       "device", "captured-on", "dtype",
                                       "matrix-efficiency", "memory-efficiency",
                                       "kernel-table", "sm-contention", NULL };
  static const char *const children[] = { "device", NULL };
  /* The order of WlComputeModel. */
  static const char *const models[] = { "replay", "roofline", "scaled", "kernel", NULL };
  int model = -1;
  if (!app_xml_check_node (l, node, attrs, children, "device", error)
      || !app_xml_attr_choice (l, node, "model", models, &model, error))
    return FALSE;
  if (model >= 0)
    l->wl.compute = (WlComputeModel) model;
  g_autoptr (GArray) custom = g_array_new (FALSE, FALSE, sizeof (WlDevice));
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (!app_xml_is (c, "device"))
        continue;
      char *name = NULL;
      WlDevice d;
      gboolean ok = xml_device (l, c, &name, &d, error);
      if (name != NULL)
        g_ptr_array_add (names, name);
      if (!ok)
        return FALSE;
      g_array_append_val (custom, d);
    }
  if (!xml_compute_devices (l, node, custom, error) || !app_xml_kernel_model (l, node, error))
    return FALSE;
  /* A peak given outright wins over the device's (reports name which). */
  if (xmlHasProp (node, (const xmlChar *) "peak") != NULL)
    {
      g_strlcpy (l->wl.peak_label, "the config's peak", sizeof l->wl.peak_label);
      memset (l->wl.dtype_peak, 0, sizeof l->wl.dtype_peak);
    }
  return app_xml_attr_flops (l, node, "peak", &l->wl.peak_flops, error)
         && app_xml_attr_bandwidth (l, node, "mem-bw", FALSE, &l->wl.mem_bw_Bps, error)
         && attr_fraction (l, node, "matrix-efficiency", &l->wl.matrix_eff, error)
         && attr_fraction (l, node, "memory-efficiency", &l->wl.memory_eff, error);
}

static gboolean
xml_slots (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "compute", "cpu", "comm", "comm-streams", NULL };
  static const char *const streams[] = { "shared", "separate", NULL };
  int separate = -1;
  if (!app_xml_check_node (l, node, attrs, NULL, NULL, error)
      || !app_xml_attr_uint (l, node, "compute", FALSE, 1, G_MAXUINT, &l->wl.slots_comp, error)
      || !app_xml_attr_uint (l, node, "cpu", FALSE, 1, G_MAXUINT, &l->wl.slots_cpu, error)
      || !app_xml_attr_uint (l, node, "comm", FALSE, 1, G_MAXUINT, &l->wl.slots_comm, error)
      || !app_xml_attr_choice (l, node, "comm-streams", streams, &separate, error))
    return FALSE;
  if (separate >= 0)
    l->wl.separate_comm_streams = separate == 1;
  return TRUE;
}

static gboolean
xml_memory (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const attrs[] = { "type", "latency", "bandwidth", "nodes",
                                       "npus-per-node", NULL };
  /* The order of WlMemKind. */
  static const char *const types[] = { "none", "per-node", "per-npu", "pool", NULL };
  int type = -1;
  if (!app_xml_check_node (l, node, attrs, NULL, NULL, error)
      || !app_xml_attr_choice (l, node, "type", types, &type, error)
      || !app_xml_attr_time (l, node, "latency", FALSE, &l->wl.mem.latency, error)
      || !app_xml_attr_bandwidth (l, node, "bandwidth", FALSE, &l->wl.mem.bandwidth_Bps, error)
      || !app_xml_attr_uint (l, node, "nodes", FALSE, 1, G_MAXUINT32, &l->wl.mem.num_nodes, error)
      || !app_xml_attr_uint (l, node, "npus-per-node", FALSE, 1, G_MAXUINT32, &l->wl.mem.npus_per_node,
                     error))
    return FALSE;
  if (type >= 0)
    l->wl.mem.kind = (WlMemKind) type;
  /* Remote memory is priced by its bandwidth, per-node expansion by its
   * layout: without them the workload would divide by zero. */
  if (l->wl.mem.kind != WL_MEM_NONE && l->wl.mem.bandwidth_Bps <= 0)
    return app_xml_fail (l, node, error, "type '%s' needs a bandwidth", types[l->wl.mem.kind]);
  if (l->wl.mem.kind == WL_MEM_PER_NODE
      && (l->wl.mem.num_nodes == 0 || l->wl.mem.npus_per_node == 0))
    return app_xml_fail (l, node, error, "type 'per-node' needs nodes and npus-per-node");
  return TRUE;
}

/* "0-3,8,10-11": ranks and ascending ranges, each rank < n_ranks. */
static gboolean
ranks_parse (const char *text, guint64 n_ranks, GArray *out, GError **error)
{
  g_auto (GStrv) items = g_strsplit (text, ",", -1);
  for (guint i = 0; items[i] != NULL; i++)
    {
      char *item = g_strstrip (items[i]);
      char *dash = strchr (item, '-');
      if (dash != NULL)
        *dash = '\0';
      guint64 a = 0, b = 0;
      if (!g_ascii_string_to_unsigned (item, 10, 0, G_MAXUINT32 - 1, &a, NULL)
          || (dash != NULL
              && !g_ascii_string_to_unsigned (dash + 1, 10, 0, G_MAXUINT32 - 1, &b, NULL))
          || (dash != NULL && b < a))
        {
          if (dash != NULL)
            *dash = '-';
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "'%s' is not a rank or an ascending range of ranks", item);
          return FALSE;
        }
      b = dash != NULL ? b : a;
      if (b >= n_ranks)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "rank %" G_GUINT64_FORMAT " is out of range: the network has %"
                       G_GUINT64_FORMAT " ranks", b, n_ranks);
          return FALSE;
        }
      for (guint64 r = a; r <= b; r++)
        {
          guint32 rank = (guint32) r;
          g_array_append_val (out, rank);
        }
    }
  return TRUE;
}

static gboolean
xml_groups (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const children[] = { "group", NULL };
  static const char *const attrs[] = { "id", "ranks", NULL };
  if (!app_xml_check_node (l, node, NULL, children, "group", error))
    return FALSE;
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (!app_xml_is (c, "group"))
        continue;
      g_autofree char *id_text = NULL;
      g_autofree char *ranks_text = NULL;
      guint64 id = 0;
      if (!app_xml_check_node (l, c, attrs, NULL, NULL, error)
          || !app_xml_attr_text (l, c, "id", TRUE, &id_text, error)
          || !app_xml_attr_text (l, c, "ranks", TRUE, &ranks_text, error))
        return FALSE;
      if (!wl_group_id_parse (id_text, &id) || id == WL_GROUP_ALL)
        return app_xml_fail (l, c, error, "id '%s' is not a non-negative integer", id_text);
      g_autoptr (GArray) ranks = g_array_new (FALSE, FALSE, sizeof (guint32));
      if (!ranks_parse (ranks_text, l->n_ranks, ranks, error))
        return app_xml_attr_located (l, c, "ranks", error);
      if (l->groups == NULL)
        l->groups = wl_groups_new ();
      if (!wl_groups_define (l->groups, id, (const guint32 *) ranks->data, ranks->len, error))
        return app_xml_attr_located (l, c, "ranks", error);
      g_array_append_val (l->group_ids, id);
    }
  return TRUE;
}

/* <ranks><rank id="17" speed="0.8"/><rank ids="0-7" speed="1.25"/></ranks>:
 * per-rank speed factors, as runs of consecutive ranks; a later <rank>
 * wins. */
static gboolean
xml_ranks (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const children[] = { "rank", NULL };
  static const char *const attrs[] = { "id", "ids", "speed", NULL };
  if (!app_xml_check_node (l, node, NULL, children, "rank", error))
    return FALSE;
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (!app_xml_is (c, "rank"))
        continue;
      g_autofree char *id = NULL;
      g_autofree char *ids = NULL;
      g_autofree char *speed_text = NULL;
      if (!app_xml_check_node (l, c, attrs, NULL, NULL, error)
          || !app_xml_attr_text (l, c, "id", FALSE, &id, error)
          || !app_xml_attr_text (l, c, "ids", FALSE, &ids, error)
          || !app_xml_attr_text (l, c, "speed", TRUE, &speed_text, error))
        return FALSE;
      if ((id == NULL) == (ids == NULL))
        return app_xml_fail (l, c, error, "give either id or ids");
      char *end = NULL;
      double speed = g_ascii_strtod (speed_text, &end);
      if (end == speed_text || *end != '\0' || !(speed > 0.0 && speed < 1e6))
        return app_xml_fail (l, c, error, "speed '%s' is not a positive number", speed_text);
      g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (guint32));
      if ((id != NULL && strchr (id, ',') != NULL) || (id != NULL && strchr (id, '-') != NULL))
        return app_xml_fail (l, c, error, "id '%s' is not one rank (ranges go in ids)", id);
      if (!ranks_parse (id != NULL ? id : ids, l->n_ranks, list, error))
        return app_xml_attr_located (l, c, id != NULL ? "id" : "ids", error);
      for (guint i = 0; i < list->len;)
        {
          guint32 first = g_array_index (list, guint32, i);
          guint32 last = first;
          for (i++; i < list->len && g_array_index (list, guint32, i) == last + 1; i++)
            last++;
          if (l->wl.n_speed_rules == WL_MAX_SPEED_RULES)
            return app_xml_fail (l, c, error, "more than %d runs of ranks with speeds",
                             WL_MAX_SPEED_RULES);
          l->wl.speed_rules[l->wl.n_speed_rules++] = (WlSpeedRule) { first, last, speed };
        }
    }
  return TRUE;
}

/* Walk the whole tree into l.  Also run on a document that failed
 * validation, for its precise message, so it assumes nothing. */
static gboolean
xml_walk (XmlLoad *l, const xmlNode *root, GError **error)
{
  static const char *const attrs[] = { "name", "rounding", NULL };
  static const char *const children[] = { "network", "system", "compute",
                                          "slots",   "memory", "groups",
                                          "ranks",   NULL };
  if (root == NULL || !app_xml_is (root, "cluster"))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%ld: the root element must be <cluster>",
                   l->path, root != NULL ? xmlGetLineNo (root) : 1L);
      return FALSE;
    }
  if (!app_xml_check_node (l, root, attrs, children, NULL, error) || !xml_rounding (l, root, error)
      || !app_xml_network (l, root, error))
    return FALSE;
  const xmlNode *system = app_xml_child (root, "system");
  if (system != NULL && !xml_system (l, system, error))
    return FALSE;
  for (guint d = 0; d < l->net.n_dims && l->sys.lib.library == SYS_LIBRARY_NCCL; d++)
    if (l->net.dims[d].graph_priced)
      return app_xml_fail (l, system, error, "library=\"nccl\" reads each dimension's "
                           "bandwidth (its NVLink and NIC speeds): give the explicit graph <dim>s, "
                           "each with bandwidth and latency");
  /* One memory: what prices reductions also bounds roofline compute, unless
   * <compute mem-bw> says otherwise. */
  l->wl.mem_bw_Bps = l->sys.local_mem_bw_Bps;
  const xmlNode *compute = app_xml_child (root, "compute");
  const xmlNode *slots = app_xml_child (root, "slots");
  const xmlNode *memory = app_xml_child (root, "memory");
  const xmlNode *groups = app_xml_child (root, "groups");
  const xmlNode *ranks = app_xml_child (root, "ranks");
  return (compute == NULL || xml_compute (l, compute, error))
         && app_xml_library_gpu (l, system, error)
         && (slots == NULL || xml_slots (l, slots, error))
         && (memory == NULL || xml_memory (l, memory, error))
         && (groups == NULL || xml_groups (l, groups, error))
         && (ranks == NULL || xml_ranks (l, ranks, error));
}

/* ------------------------------------------------------------------------ */
/* Loading                                                                  */

static void
xml_load_init (XmlLoad *l, const char *path)
{
  memset (l, 0, sizeof *l);
  l->path = path;
  l->net.model = NET_MODEL_ANALYTICAL;
  sys_params_init (&l->sys);
  wl_params_init (&l->wl);
  app_compat_apply (APP_COMPAT_NATIVE, &l->net, &l->sys, &l->wl);
  l->group_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  l->warnings = g_ptr_array_new_with_free_func (g_free);
}

static void
xml_load_clear (XmlLoad *l)
{
  g_clear_pointer (&l->groups, wl_groups_free);
  g_clear_pointer (&l->group_ids, g_array_unref);
  g_clear_pointer (&l->graph, net_graph_spec_free);
  g_clear_pointer (&l->kernel_table, wl_kernel_table_free);
  g_clear_pointer (&l->warnings, g_ptr_array_unref);
}

/* Move the loaded groups into cfg; FALSE if an id is defined there already. */
static gboolean
xml_groups_commit (XmlLoad *l, AppConfig *cfg, GError **error)
{
  if (l->groups == NULL)
    return TRUE;
  if (cfg->groups == NULL)
    {
      cfg->groups = g_steal_pointer (&l->groups);
      return TRUE;
    }
  for (guint i = 0; i < l->group_ids->len; i++)
    if (wl_groups_lookup (cfg->groups, g_array_index (l->group_ids, guint64, i), NULL) != NULL)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: group %" G_GUINT64_FORMAT
                     " is already defined", l->path, g_array_index (l->group_ids, guint64, i));
        return FALSE;
      }
  for (guint i = 0; i < l->group_ids->len; i++)
    {
      guint64 id = g_array_index (l->group_ids, guint64, i);
      guint n = 0;
      const guint32 *ranks = wl_groups_lookup (l->groups, id, &n);
      if (!wl_groups_define (cfg->groups, id, ranks, n, NULL))
        g_assert_not_reached (); /* checked above */
    }
  return TRUE;
}

/* libxml2's validator is quadratic in the content of an element inside an
 * <interleave>, which <cluster>'s children are (200,000 <group>s took over
 * a minute): the long lists are validated apart. */
static const char *const cluster_apart[] = { "network", "groups", NULL };

/* Whether LINE is a located message of PATH ("PATH:LINE: ..."); its length
 * up to and with the colon after the line number in *LEN. */
static gboolean
located (const char *path, const char *line, gsize *len)
{
  gsize n = strlen (path);
  if (strncmp (line, path, n) != 0 || line[n] != ':' || !g_ascii_isdigit (line[n + 1]))
    return FALSE;
  const char *e = line + n + 1;
  while (g_ascii_isdigit (*e))
    e++;
  *len = (gsize) (e - line) + 1;
  return *e == ':';
}

/* Whether a validator line (after its "FILE:LINE: ") only restates that
 * something inside the element failed: libxml2 follows every error in
 * <cluster>'s content with "Element cluster failed to validate content"
 * at the <cluster> line (and "Invalid sequence in interleave" when the
 * element was <network>), which named a second place to look at but no
 * second mistake. */
static gboolean
knock_on (const char *message)
{
  return g_str_has_suffix (message, " failed to validate content")
         || strcmp (message, "Invalid sequence in interleave") == 0;
}

/* Whether some line of LINES other than THAT is located at the same
 * "FILE:LINE:" (its first LEN bytes) and is no knock-on. */
static gboolean
another_at (char **lines, const char *that, gsize len)
{
  for (char **l = lines; *l != NULL; l++)
    if (*l != that && strncmp (*l, that, len) == 0 && (*l)[len] == ' '
        && !knock_on (*l + len + 1))
      return TRUE;
  return FALSE;
}

/* The validator's lines (SCHEMA) worth adding to the walk's error (WALK):
 * those about other lines of the file.  Its lines about the walk's line,
 * and its unlocated ones, say less than the walk does or mislead (a
 * missing nvlink-bandwidth reads "Invalid attribute nvlink-latency", its
 * pair); so do its knock-ons (knock_on), and "Expecting an element X, got
 * nothing" beside another message at the same line (a bad attribute of
 * <compute> reads as a missing <device>, the other way the schema allows
 * <compute> to be written).  A new string, empty when none are. */
static char *
schema_lines_besides (const char *path, const char *walk, const char *schema)
{
  gsize at = 0, len = 0;
  if (!located (path, walk, &at))
    at = 0;
  g_auto (GStrv) lines = g_strsplit (schema, "\n", -1);
  GString *out = g_string_new (NULL);
  for (char **l = lines; *l != NULL; l++)
    {
      if (!located (path, *l, &len) || (at > 0 && len == at && strncmp (*l, walk, at) == 0))
        continue;
      const char *message = *l + len + ((*l)[len] == ' ');
      if (knock_on (message)
          || (g_str_has_prefix (message, "Expecting an element ")
              && another_at (lines, *l, len)))
        continue;
      g_string_append_printf (out, "\n%s", *l);
    }
  return g_string_free (out, FALSE);
}

gboolean
app_config_load_xml (AppConfig *cfg, const char *path, GError **error)
{
  g_return_val_if_fail (cfg != NULL && path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);
  g_autoptr (xmlDoc) doc = app_xml_read (path, error);
  if (doc == NULL)
    {
      /* ASTRA-sim's files are the likeliest non-XML given here: say where
       * they go rather than leave libxml2's "Start tag expected" alone. */
      if (error != NULL && *error != NULL
          && (g_str_has_suffix (path, ".yml") || g_str_has_suffix (path, ".yaml")
              || g_str_has_suffix (path, ".json")))
        {
          char *was = (*error)->message;
          (*error)->message = g_strdup_printf (
              "%s (--config takes orrery's cluster XML, configs/README.md; ASTRA-sim's "
              "network .yml is orrery run's --astra-network, its system .json --astra-system)",
              was);
          g_free (was);
        }
      return FALSE;
    }
  g_autoptr (GError) invalid = NULL;
  g_autoptr (GError) walk_error = NULL;
  gboolean valid
      = app_xml_validate_apart (path, doc, &cluster_schema, cluster_apart,
                                APP_XML_REPORT_SEVERAL, &invalid);
  XmlLoad l;
  xml_load_init (&l, path);
  gboolean ok = xml_walk (&l, xmlDocGetRootElement (doc), &walk_error);
  if (!valid)
    {
      if (walk_error != NULL)
        {
          g_autofree char *rest = schema_lines_besides (path, walk_error->message,
                                                        invalid->message);
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s%s", walk_error->message, rest);
        }
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s", invalid->message);
      ok = FALSE;
    }
  else if (!ok || !xml_groups_commit (&l, cfg, &walk_error))
    {
      g_propagate_error (error, g_steal_pointer (&walk_error));
      ok = FALSE;
    }
  if (ok)
    {
      cfg->net = l.net;
      g_clear_pointer (&cfg->graph, net_graph_spec_free);
      cfg->graph = g_steal_pointer (&l.graph);
      cfg->net.graph = cfg->graph;
      cfg->generator = l.generator;
      cfg->generator_line = l.generator_line;
      cfg->fat_tree_k = l.fat_tree_k;
      cfg->fat_tree_oversubscription = l.fat_tree_oversubscription;
      cfg->sys = l.sys;
      cfg->wl = l.wl;
      g_clear_pointer (&cfg->kernel_table, wl_kernel_table_free);
      cfg->kernel_table = g_steal_pointer (&l.kernel_table);
      cfg->astra_mode = FALSE;
      g_ptr_array_add (cfg->sources, g_strdup (path));
      for (guint i = 0; i < l.warnings->len; i++)
        g_ptr_array_add (cfg->warnings, g_strdup (l.warnings->pdata[i]));
    }
  xml_load_clear (&l);
  return ok;
}
