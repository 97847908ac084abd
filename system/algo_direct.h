/* algo_direct.h: what the two direct rows share: the native one
 * (algo_direct.c) and ASTRA-sim's packetised one (algo_direct_packets.c),
 * which runs the rooted kinds and the barrier as the native one does.
 * Only those two files include it.
 *
 * Layer: system.  May include: network, sim, GLib.
 */
#ifndef ORRERY_SYSTEM_ALGO_DIRECT_H
#define ORRERY_SYSTEM_ALGO_DIRECT_H

#include "system/algo.h"

typedef struct
{
  guint32 half; /* messages per half: n - 1 */
  guint32 k;    /* messages in all */
  guint32 w;    /* window */
  guint64 m;    /* bytes per message */
  gboolean ar;
} DirectShape;

/* The phase's shape: halves, window and message size. */
DirectShape sys_direct_shape (const SysPhaseCtx *ctx);

/* Message `tag` (0-based over the whole phase) leaves at `at`. */
void sys_direct_send (const SysPhaseCtx *ctx, const DirectShape *s, guint32 tag, SimTime at);

/* The native row's vtable. */
void sys_direct_start (const SysPhaseCtx *ctx, SysRun *run);
void sys_direct_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step);

#endif /* ORRERY_SYSTEM_ALGO_DIRECT_H */
