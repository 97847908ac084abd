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

/* A half's first W messages leave at now + e, returned; run->bits is set
 * to that time. */
SimTime sys_direct_open (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run);

/* Message `tag` (0-based over the whole phase) leaves at `at`. */
void sys_direct_send (const SysPhaseCtx *ctx, const DirectShape *s, guint32 tag, SimTime at);

/* Both rows' vtable: the rooted kinds and the barrier as algo_direct.c
 * says, the others by the row's timing. */
void sys_direct_start (const SysPhaseCtx *ctx, SysRun *run);
void sys_direct_on_message (const SysPhaseCtx *ctx, SysRun *run, guint32 step);

/* The packetised timing of the unrooted kinds but the barrier
 * (algo_direct_packets.c). */
void sys_direct_packet_start (const SysPhaseCtx *ctx, SysRun *run);
/* A message arrived at a started member (counted in run->arrived). */
void sys_direct_packet_receive (const SysPhaseCtx *ctx, const DirectShape *s, SysRun *run,
                                guint32 step);

/* What both rows' classes hold. */
#define DIRECT_ROW                                                                              \
  .name = "direct", .kinds = SYS_KINDS_ALL, .flat_variant = TRUE, .windowed = TRUE,              \
  .alike = SYS_ALIKE_ALWAYS,                                                                     \
  .links_why = "on a link model, direct messages of different members share links",            \
  .start = sys_direct_start, .on_message = sys_direct_on_message

#endif /* ORRERY_SYSTEM_ALGO_DIRECT_H */
