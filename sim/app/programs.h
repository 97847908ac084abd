/* programs.h: collective algorithms given as programs (system/program.h),
 * read from the files that define them: ASTRA-sim's custom collectives
 * (Chakra traces, workload/coll_program.h) and MSCCL XML.
 *
 * MSCCL XML (msccl-tools / MSCCLang output; TACCL and TE-CCL write it
 * too): <algo name nchunksperloop ngpus coll ...> holds one <gpu id
 * i_chunks o_chunks s_chunks> per rank, each with <tb id send recv chan>
 * thread blocks of <step s type srcbuf srcoff dstbuf dstoff cnt depid deps>
 * steps.  A thread block runs its steps in order; depid/deps name a step of
 * another thread block of the same gpu that must be done first; a block
 * sends only to its `send` peer and receives only from its `recv` peer, on
 * channel `chan`.  Step types, as the MSCCL runtime runs them: s (send), r
 * (receive), rrc (receive, reduce into the local chunk), rrs and rrcs
 * (receive, reduce, send the result on), rcs (receive, send it on), cpy (a
 * local copy: one memory pass), re (a local reduction), nop (a dependency
 * only).  A chunk is the collective's buffer / nchunksperloop bytes, the
 * buffer being MSCCL's count summed over ranks (sizePerMscclChunk): the
 * whole buffer for allreduce, reducescatter and alltoall, every rank's input
 * together (n x comm_size) for allgather.  A step moves cnt chunks.
 *
 * Programs are read once per process and path and kept for its life (one
 * may serve several simulations, sweep points running in threads).
 *
 * Layer: sim/app.  May include: workload, system, sim, GLib, libxml2.
 */
#ifndef ORRERY_SIM_APP_PROGRAMS_H
#define ORRERY_SIM_APP_PROGRAMS_H

#include "system/program.h"
#include "system/sys_params.h"

typedef enum
{
  APP_PROGRAM_CHAKRA, /* PATH is a prefix: PATH.<rank>.et */
  APP_PROGRAM_MSCCL   /* PATH is an MSCCL XML file */
} AppProgramForm;

/* The algorithm row of the program at PATH for collective KIND, read once
 * per process (and form, timing and kind).  NULL with an input error naming
 * the file, and the line or node, otherwise. */
const SysAlgoClass *app_program_get (AppProgramForm form, const char *path, SysProgTiming timing,
                                     SysCollKind kind, GError **error);

/* An MSCCL XML file as a sealed program for KIND (its coll must be KIND's). */
SysProgram *app_msccl_load (const char *path, SysProgTiming timing, SysCollKind kind,
                            GError **error);

#endif /* ORRERY_SIM_APP_PROGRAMS_H */
