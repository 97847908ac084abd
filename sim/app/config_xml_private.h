/* config_xml_private.h: what the parts of the cluster XML loader share:
 * the load in progress and the helpers that read attributes with their
 * units and report errors as FILE:LINE.  Only sim/app/config_xml*.c include
 * it.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_CONFIG_XML_PRIVATE_H
#define ORRERY_SIM_APP_CONFIG_XML_PRIVATE_H

#include "sim/app/config.h"
#include "sim/app/xml_lib.h"
#include "sim/app/xml_schema.h"
#include "workload/kernels.h"

/* One load in progress: fresh defaults, filled as the tree is walked. */
typedef struct
{
  const char *path;
  NetSpec net;
  SysParams sys;
  WlParams wl;
  guint64 n_ranks;
  NetGraphSpec *graph; /* scratch, NULL until a <link> */
  const char *generator; /* the <network> generator element ("rail"), or NULL */
  guint generator_line;
  guint32 fat_tree_k, fat_tree_oversubscription; /* <fat-tree>'s, or 0 */
  gboolean impl_seen[SYS_COLL_N];
  WlGroups *groups; /* scratch, NULL until a <group> */
  GArray *group_ids; /* guint64, in file order */
  gboolean gpu_given; /* <system gpu> was written: the device does not decide */
  WlKernelTable *kernel_table; /* scratch: <compute kernel-table>, or NULL */
  GPtrArray *warnings;          /* lines for stderr ("FILE:LINE: ..."), AppConfig.warnings' */
} XmlLoad;

/* Set "FILE:LINE: <element>: message" and return FALSE. */
gboolean app_xml_fail (XmlLoad *l, const xmlNode *node, GError **error, const char *format, ...)
    G_GNUC_PRINTF (4, 5);
/* Only the listed attributes and child elements; a child element appears
 * once unless it is `repeatable` ("*": all may repeat). */
gboolean app_xml_check_node (XmlLoad *l, const xmlNode *node, const char *const *attrs,
                             const char *const *children, const char *repeatable,
                             GError **error);

/* Attribute readers: FALSE with a FILE:LINE error when the value is bad or
 * a required one is missing; an absent optional one leaves *out alone. */
gboolean app_xml_attr_text (XmlLoad *l, const xmlNode *node, const char *name, gboolean required,
                            char **text, GError **error);
gboolean app_xml_attr_located (XmlLoad *l, const xmlNode *node, const char *name, GError **error);
gboolean app_xml_attr_time (XmlLoad *l, const xmlNode *node, const char *name, gboolean required,
                            SimTime *out, GError **error);
gboolean app_xml_attr_bandwidth (XmlLoad *l, const xmlNode *node, const char *name,
                                 gboolean required, double *out, GError **error);
gboolean app_xml_attr_bytes (XmlLoad *l, const xmlNode *node, const char *name, guint64 *out,
                             GError **error);
gboolean app_xml_attr_flops (XmlLoad *l, const xmlNode *node, const char *name, double *out,
                             GError **error);
gboolean app_xml_attr_uint (XmlLoad *l, const xmlNode *node, const char *name, gboolean required,
                            guint min, guint max, guint *out, GError **error);
gboolean app_xml_attr_choice (XmlLoad *l, const xmlNode *node, const char *name,
                              const char *const *names, int *out, GError **error);

/* <network>: dimensions, an explicit graph or a generator
 * (config_xml_net.c). */
gboolean app_xml_network (XmlLoad *l, const xmlNode *cluster, GError **error);

/* The library attributes of <system> into l->sys.lib (config_xml_lib.c);
 * the caller has checked the element's attribute names. */
gboolean app_xml_library (XmlLoad *l, const xmlNode *system, GError **error);
/* Once <compute> is read: the GPU generation from its device, unless
 * <system gpu> said; FALSE (located at system, which is not NULL then) when
 * library="nccl" and the device is of no generation NCCL has constants
 * for.  system may be NULL when the file has no <system>. */
gboolean app_xml_library_gpu (XmlLoad *l, const xmlNode *system, GError **error);

/* <compute model="kernel" device kernel-table> (config_xml_kernel.c): the
 * device's kernel table into l->wl, the measured table read into
 * l->kernel_table; kernel-table with another model is an error. */
gboolean app_xml_kernel_model (XmlLoad *l, const xmlNode *compute, GError **error);

#endif /* ORRERY_SIM_APP_CONFIG_XML_PRIVATE_H */
