/* coll_program.h: ASTRA-sim's custom collectives (Chakra-defined
 * algorithms) read into a program (system/program.h).
 *
 * Models: ASTRA-sim's CustomAlgorithm: one Chakra trace per position of the
 * collective's group, PREFIX.<pos>.et, of COMM_SEND_NODE (comm_dst,
 * comm_size, comm_tag), COMM_RECV_NODE (comm_src, comm_size, comm_tag) and
 * COMP_NODE nodes with data and control dependencies.  Peers are positions
 * in the group (ASTRA-sim maps them through the group's member list); a
 * node's comm_size is used as it is, whatever the collective's size (as
 * ASTRA-sim does); a COMP_NODE takes duration_micros x 1000 ns, 1 ns when
 * 0.  The program runs with the P2P timing: ASTRA-sim's front-end sends and
 * receives.
 *
 * Layer: workload.  May include: system, sim, GLib, protobuf-c, zlib.
 */
#ifndef ORRERY_WORKLOAD_COLL_PROGRAM_H
#define ORRERY_WORKLOAD_COLL_PROGRAM_H

#include "system/program.h"

/* Read PREFIX.0.et, PREFIX.1.et, ... up to the first that does not exist
 * (PREFIX.0.et must); `name` is what reports call the algorithm.  A sealed
 * program, or NULL with an input error naming the file and node: a node of
 * another type, a missing comm_size or peer, a peer outside the files' count,
 * an unknown dependency, a send without its receive, a cycle. */
SysProgram *wl_coll_program_load_et (const char *prefix, const char *name, GError **error);

#endif /* ORRERY_WORKLOAD_COLL_PROGRAM_H */
