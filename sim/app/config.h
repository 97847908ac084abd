/* config.h: one simulation's configuration, from a native cluster XML or from
 * an ASTRA-sim experiment's network YAML + system JSON + memory JSON.
 *
 * Models: the parameters of every layer (network, system, workload) and the
 * process groups, with every quantity already converted to the program's
 * units (bytes, bytes/s, picoseconds, FLOP/s).  Both ways in fill the same
 * structure; the README's config reference maps each ASTRA-sim key to its
 * XML attribute.
 *
 * Ownership: AppConfig owns `groups` and the strings; app_config_clear()
 * releases them.
 *
 * Layer: sim/app.  May include: every layer.
 */
#ifndef ORRERY_SIM_APP_CONFIG_H
#define ORRERY_SIM_APP_CONFIG_H

#include <glib.h>

#include "network/topo.h"
#include "system/sys_params.h"
#include "workload/groups.h"
#include "workload/kernels.h"
#include "workload/wl_params.h"

typedef struct
{
  NetSpec net;
  SysParams sys;
  WlParams wl;
  WlGroups *groups;    /* NULL when no groups are defined */
  NetGraphSpec *graph; /* an explicit network graph (net.graph points here), or NULL */
  const char *generator; /* the generator element that made graph ("rail", static), or NULL */
  guint generator_line;  /* its line in the cluster XML */
  /* <fat-tree>'s k and oversubscription, for the summary; 0 without one. */
  guint32 fat_tree_k, fat_tree_oversubscription;
  gboolean astra_mode; /* loaded from ASTRA-sim inputs: print its "finished" lines */
  GPtrArray *sources;  /* paths of the files read, in order (char *) */
  GPtrArray *warnings; /* what the loaders noted for stderr, one line each (char *) */
  WlKernelTable *kernel_table; /* <compute kernel-table>, or NULL (wl.kernel_table
                                * points here) */
} AppConfig;

/* Defaults of every layer, no groups, no sources. */
void app_config_init (AppConfig *cfg);

/* Whose timing rules a configuration follows: orrery's own (exact
 * picoseconds, rounding sizes up), or the reference simulator's, ASTRA-sim
 * (whole nanoseconds truncated, its variants of the algorithms, broadcast
 * waited out as a delay, empty nodes costing 1 ns: see
 * ../shared/reference/ASTRA-SIM.md).  It is one choice, made when a
 * configuration is read (ASTRA-sim inputs, or rounding="astra-ns" in a
 * cluster XML); each layer receives its part of it as data. */
typedef enum
{
  APP_COMPAT_NATIVE,
  APP_COMPAT_REFERENCE
} AppCompat;

/* Set every layer's part of COMPAT: the network's rounding, the system
 * layer's policy (SysCompat) and the replay's timing (WlTiming).  The
 * loaders fill their own copies of the three before committing them. */
void app_compat_apply (AppCompat compat, NetSpec *net, SysParams *sys, WlParams *wl);
void app_config_clear (AppConfig *cfg);

/* The loaders' warnings on stderr, one a line: "orrery CMD: warning: LINE"
 * (every command that reads a config says what it ignores). */
void app_config_print_warnings (const AppConfig *cfg, const char *cmd);

/* ASTRA-sim inputs, read as they are (see ../shared/reference/ASTRA-SIM.md):
 * network YAML (topology, npus_count, bandwidth in GB/s that are GiB/s,
 * latency in ns), system JSON, optional remote-memory JSON (mem_json may be
 * NULL).  Sets astra_mode and the ASTRA-sim rounding in every layer.  Errors
 * name the file, the key and, where known, the line; a key accepted that
 * orrery does not act on (track-local-mem) adds a line to cfg->warnings. */
gboolean app_config_load_astra (AppConfig *cfg, const char *net_yml, const char *sys_json,
                                const char *mem_json, GError **error);

/* An ASTRA-sim comm-group JSON: {"<id>": [ranks...], ...}.  Adds to
 * cfg->groups (creating it). */
gboolean app_config_load_comm_groups (AppConfig *cfg, const char *path, GError **error);

/* Configuration files (cluster XML, ASTRA-sim YAML and JSON, comm groups,
 * sweep specs) are read whole, up to this many bytes; a longer input is
 * refused rather than read without end (a device such as /dev/zero, a
 * stream that never closes, a trace given where a config belongs). */
#define APP_CONFIG_MAX_BYTES ((gsize) 256 << 20)
#define APP_CONFIG_MAX_TEXT "256 MiB"

/* Read PATH (a regular file or a pipe) whole into *TEXT (NUL-terminated,
 * free with g_free) and *LEN.  An input error naming the file when it
 * cannot be read or passes APP_CONFIG_MAX_BYTES. */
gboolean app_config_read_file (const char *path, char **text, gsize *len, GError **error);

/* A native cluster XML, validated against configs/cluster.rng (compiled into
 * the binary, so it runs from anywhere).  Every quantity carries its unit.
 * Errors name the file and line. */
gboolean app_config_load_xml (AppConfig *cfg, const char *path, GError **error);

#endif /* ORRERY_SIM_APP_CONFIG_H */
