/* sysfix.h: the fixture the network and system-layer suites share: a fake
 * link model that delivers every message a fixed delay after it leaves (one
 * delay per route dimension) and counts what it carries; the scheduler,
 * topology, network and system layer a test builds over it (or over the real
 * analytical model); a log of the completions the system layer reports; and
 * the helpers that join collectives, run a simulation to its end and check
 * when each completion ran.  A suite registers sf_setup / sf_teardown (or a
 * setup of its own that calls sf_setup first) as a Check fixture and reaches
 * the state through the one global `sf`, fresh in every test.
 *
 * Layer: tests.  May include: every layer.
 */
#ifndef ORRERY_TESTS_SYSFIX_H
#define ORRERY_TESTS_SYSFIX_H

#include <glib.h>

#include "network/net.h"
#include "sim/sched.h"
#include "system/sys.h"
#include "testutil.h"

/* The fake link model's counters track (src, dst) pairs below this rank. */
#define SF_MAX_EDGE 16

/* What the fake link model does and has seen since sf_setup. */
typedef struct
{
  SimTime delay[NET_MAX_DIMS]; /* delivery delay per route dimension; 0 unless set */
  gboolean ring_check;         /* count in off_ring messages not sent to src + 1 */
  guint64 messages, bytes;     /* all messages */
  guint64 min_bytes, max_bytes; /* of one message; min starts at G_MAXUINT64 */
  guint64 off_ring;
  guint64 dim_messages[NET_MAX_DIMS], dim_bytes[NET_MAX_DIMS]; /* per route dimension */
  guint64 edge[SF_MAX_EDGE][SF_MAX_EDGE]; /* messages src -> dst */
} SfFake;

/* A completion reported through sf_on_done: the tag and id packed into its
 * argument, and when it ran. */
typedef struct
{
  guint32 tag, id;
  SimTime t;
} SfDone;

typedef struct
{
  SimSched *sched; /* from sf_setup */
  NetTopo *topo;   /* NULL until sf_build_net or sf_build */
  Net *net;        /* likewise */
  Sys *sys;        /* NULL until sf_build */
  SysParams params; /* sys_params_init's defaults until the test changes them */
  SfFake fake;
  GArray *done; /* of SfDone, in the order they ran */
} SfFixture;

extern SfFixture sf;

/* The fake link model: counts each message in sf.fake and delivers it at
 * `at` + sf.fake.delay[the route dimension of src -> dst]. */
extern const NetModelClass sf_fake_class;

/* Check fixture: a new scheduler, zeroed counters, default params and an
 * empty completion log; sf_teardown frees whatever was built. */
void sf_setup (void);
void sf_teardown (void);

/* One dimension and a spec (analytical model) of n of them; ASTRA-sim's
 * rounding brings its innermost-dimension routes (NetSpec.innermost_route),
 * as a configuration does. */
NetDimSpec sf_dim (NetDimKind kind, guint32 size, double bandwidth_Bps, SimTime latency);
NetSpec sf_spec (const NetDimSpec *dims, guint n, NetRounding rounding);

/* sf.topo and sf.net from a spec that must be valid, over the fake link
 * model or the spec's own. */
void sf_build_net (const NetSpec *spec, gboolean use_fake);

/* sf_build_net from n dims, then sf.sys from sf.params; all must succeed. */
void sf_build (const NetDimSpec *dims, guint n, NetRounding rounding, gboolean use_fake);

/* sf_build over the fake model of n Ring dimensions of the given sizes
 * (1 GB/s, 1 ps latency: unused by the fake), dimension d delivering after
 * delays[d]; exact ps rounding. */
void sf_build_rings (const guint32 *sizes, const SimTime *delays, guint n);

/* A completion handler: appends (arg >> 32, arg & 0xffffffff, now) to
 * sf.done. */
void sf_on_done (SimSched *s, gpointer data, guint64 arg);

/* A request for a collective on every involved dimension that reports
 * (tag, rank) to sf_on_done; its node id is 1000 + tag. */
SysCollRequest sf_coll_req (SysCollKind kind, guint64 bytes, guint64 group, guint32 tag,
                            guint32 rank);

/* Join sf_coll_req (kind, bytes, group, tag, rank) on rank; it must be
 * accepted. */
void sf_join (guint32 rank, SysCollKind kind, guint64 bytes, guint64 group, guint32 tag);

/* sf_join (r, kind, bytes, SYS_GROUP_WORLD, tag) for every rank r < p. */
void sf_join_world (guint32 p, SysCollKind kind, guint64 bytes, guint32 tag);

/* Run to the end; the run must end with an empty queue, no error, and
 * nothing pending in the system layer. */
void sf_run_quiet (void);

/* When (tag, id) completed; it must have completed exactly once. */
SimTime sf_done_at (guint32 tag, guint32 id);

/* (tag, ids[i]) for every i < n, or (tag, r) for every rank r < p, completed
 * once each, at expect. */
void sf_assert_done_at (guint32 tag, const guint32 *ids, guint n, SimTime expect);
void sf_assert_all_done_at (guint32 tag, guint32 p, SimTime expect);

/* tu_assert_input_error for each of the NULL-terminated needles. */
void sf_assert_error (const GError *error, const char *const *needles);

/* ceil(bytes x 10^12 / bw) ps for a whole bandwidth, by long division in
 * 128 bits. */
SimTime sf_ser_ps (guint64 bytes, guint64 bw);

/* One lockstep ring phase of k steps, r of them reducing, with link delay D,
 * endpoint delay e and reduction cost rc: e + k (D + e) + r rc. */
SimTime sf_phase_time (guint64 k, guint64 r, SimTime D, SimTime e, SimTime rc);

/* The compatibility policy: ASTRA-sim's (reference) or orrery's own. */
static inline void
sf_compat (SysParams *params, gboolean reference)
{
  if (reference)
    sys_compat_reference (&params->compat);
  else
    sys_compat_native (&params->compat);
}

#endif
