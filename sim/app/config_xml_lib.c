/* config_xml_lib.c: the collective library of the cluster XML, read from
 * <system library nccl-algo nccl-proto cpu collnet gpu net-latency tuner> into SysParams.lib
 * (system/sys_params.h).
 *
 * The NCCL library's tuning constants depend on the GPU generation, which a
 * config usually says already through <compute device>: gpu= defaults to
 * the generation of that device, and is required with library="nccl" when
 * the device is none that NCCL's model has constants for.  The NCCL_ALGO /
 * NCCL_PROTO lists are checked by the NCCL model's own parser
 * (system/nccl.h) as the file is read.  Knobs that only the NCCL library
 * reads are refused with the per-dimension library, as elsewhere in this
 * reader a knob that would change nothing is.
 */
#include "sim/app/config_xml_private.h"

#include <string.h>

#include "sim/error.h"
#include "system/nccl.h"
#include "system/nccl_tuner.h"

/* The GPU generation a device name belongs to (NCCL's constants exist for
 * these four, system/sys_params.h), SYS_GPU_UNKNOWN for any other.  Names
 * are the device presets' (configs/devices/README.md) and their custom
 * variants ("A100-40GB", "H100-PCIe"): the generation is the product
 * family, whatever the memory or form factor. */
static SysGpuArch
gpu_of_device (const char *device)
{
  static const struct
  {
    const char *prefix;
    SysGpuArch gpu;
  } families[] = {
    { "V100", SYS_GPU_VOLTA },     { "A100", SYS_GPU_AMPERE },
    { "H100", SYS_GPU_HOPPER },    { "H200", SYS_GPU_HOPPER },
    { "B200", SYS_GPU_BLACKWELL },
  };
  for (guint i = 0; i < G_N_ELEMENTS (families); i++)
    if (g_ascii_strncasecmp (device, families[i].prefix, strlen (families[i].prefix)) == 0)
      return families[i].gpu;
  return SYS_GPU_UNKNOWN;
}

/* nccl-algo or nccl-proto, kept as written (NCCL_ALGO / NCCL_PROTO
 * syntax; system/nccl.h checks the names) in out, which holds
 * SYS_NCCL_LIST_MAX bytes. */
static gboolean
attr_nccl_list (XmlLoad *l, const xmlNode *node, const char *name, char *out, GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, FALSE, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;
  if (strlen (text) >= SYS_NCCL_LIST_MAX)
    return app_xml_fail (l, node, error, "%s is longer than %d characters", name,
                         SYS_NCCL_LIST_MAX - 1);
  g_strlcpy (out, text, SYS_NCCL_LIST_MAX);
  return TRUE;
}

gboolean
app_xml_library (XmlLoad *l, const xmlNode *system, GError **error)
{
  /* The orders of SysLibrary and SysCpuVendor; SysGpuArch after
   * SYS_GPU_UNKNOWN, which no config may name. */
  static const char *const libraries[] = { "per-dimension", "nccl", NULL };
  static const char *const cpus[] = { "intel", "amd", "arm", NULL };
  static const char *const gpus[] = { "volta", "ampere", "hopper", "blackwell", NULL };
  static const char *const booleans[] = { "false", "true", NULL };
  static const char *const nccl_only[] = { "nccl-algo", "nccl-proto", "collnet", "net-latency",
                                           "tuner", NULL };
  /* The tuner registry's names, in SysNcclTuner order. */
  const char *tuners[SYS_NCCL_TUNERS + 1] = { NULL };
  for (guint i = 0; i < SYS_NCCL_TUNERS; i++)
    tuners[i] = sys_nccl_tuner_name ((SysNcclTuner) i);
  SysLibraryParams *lib = &l->sys.lib;
  int library = -1, cpu = -1, gpu = -1, collnet = -1, tuner = -1;
  if (!app_xml_attr_choice (l, system, "library", libraries, &library, error)
      || !app_xml_attr_choice (l, system, "tuner", tuners, &tuner, error)
      || !app_xml_attr_choice (l, system, "cpu", cpus, &cpu, error)
      || !app_xml_attr_choice (l, system, "gpu", gpus, &gpu, error)
      || !app_xml_attr_choice (l, system, "collnet", booleans, &collnet, error)
      || !attr_nccl_list (l, system, "nccl-algo", lib->algorithms, error)
      || !attr_nccl_list (l, system, "nccl-proto", lib->protocols, error)
      || !app_xml_attr_time (l, system, "net-latency", FALSE, &lib->net_latency, error))
    return FALSE;
  lib->library = library >= 0 ? (SysLibrary) library : SYS_LIBRARY_PER_DIMENSION;
  for (guint i = 0; nccl_only[i] != NULL && lib->library != SYS_LIBRARY_NCCL; i++)
    if (xmlHasProp (system, (const xmlChar *) nccl_only[i]) != NULL)
      return app_xml_fail (l, system, error, "%s applies only to library=\"nccl\"",
                           nccl_only[i]);
  /* The lists' names now, with the line, rather than when a collective
   * first reads them. */
  if (lib->library == SYS_LIBRARY_NCCL && !sys_nccl_check_lists (lib, error))
    {
      sim_error_prefix (error, "%s:%ld: <system>: ", l->path, xmlGetLineNo (system));
      return FALSE;
    }
  if (cpu >= 0)
    lib->cpu = (SysCpuVendor) cpu;
  lib->collnet = collnet == 1;
  lib->tuner = tuner >= 0 ? (SysNcclTuner) tuner : SYS_NCCL_TUNER_NONE;
  if (gpu >= 0)
    lib->gpu = (SysGpuArch) (SYS_GPU_VOLTA + gpu);
  l->gpu_given = gpu >= 0;
  return TRUE;
}

gboolean
app_xml_library_gpu (XmlLoad *l, const xmlNode *system, GError **error)
{
  if (l->gpu_given)
    return TRUE;
  l->sys.lib.gpu = gpu_of_device (l->wl.device);
  if (l->sys.lib.gpu != SYS_GPU_UNKNOWN || l->sys.lib.library != SYS_LIBRARY_NCCL)
    return TRUE;
  g_autofree char *which = l->wl.device[0] != '\0'
                               ? g_strdup_printf ("device %s is", l->wl.device)
                               : g_strdup ("<compute> names no device, so the GPU is");
  return app_xml_fail (l, system, error,
                       "NCCL's tuning model has constants for volta, ampere, hopper and "
                       "blackwell GPUs; %s none of them: set gpu=\"volta|ampere|hopper|"
                       "blackwell\" (the generation whose constants apply)",
                       which);
}
