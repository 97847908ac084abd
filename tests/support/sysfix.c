/* sysfix.c: the fixture the network and system-layer suites share. */
#include "sysfix.h"

#include <string.h>

SfFixture sf;

/* ------------------------------------------------------- fake link model */

static void
fake_send (Net *n, SimTime at, guint32 src, guint32 dst, guint64 bytes, SimHandler fn,
           gpointer data, guint64 arg)
{
  const NetTopo *t = net_topo (n);
  guint d = net_topo_route_dim (t, src, dst);
  SfFake *f = &sf.fake;
  f->messages++;
  f->bytes += bytes;
  f->min_bytes = MIN (f->min_bytes, bytes);
  f->max_bytes = MAX (f->max_bytes, bytes);
  f->dim_messages[d]++;
  f->dim_bytes[d] += bytes;
  if (src < SF_MAX_EDGE && dst < SF_MAX_EDGE)
    f->edge[src][dst]++;
  if (f->ring_check && dst != (src + 1) % net_topo_ranks (t))
    f->off_ring++;
  sim_sched_at (net_sched (n), at + f->delay[d], fn, data, arg);
}

const NetModelClass sf_fake_class = { .name = "fake", .send = fake_send };

/* ---------------------------------------------------------------- fixture */

void
sf_setup (void)
{
  memset (&sf, 0, sizeof sf);
  sf.sched = sim_sched_new ();
  sf.fake.min_bytes = G_MAXUINT64;
  sys_params_init (&sf.params);
  sf.done = g_array_new (FALSE, FALSE, sizeof (SfDone));
}

void
sf_teardown (void)
{
  g_clear_pointer (&sf.sys, sys_free);
  g_clear_pointer (&sf.net, net_free);
  g_clear_pointer (&sf.topo, net_topo_free);
  g_clear_pointer (&sf.sched, sim_sched_free);
  g_clear_pointer (&sf.done, g_array_unref);
}

/* ---------------------------------------------------------------- building */

NetDimSpec
sf_dim (NetDimKind kind, guint32 size, double bandwidth_Bps, SimTime latency)
{
  return (NetDimSpec) { .kind = kind, .size = size, .bandwidth_Bps = bandwidth_Bps,
                        .latency = latency };
}

NetSpec
sf_spec (const NetDimSpec *dims, guint n, NetRounding rounding)
{
  NetSpec spec;
  memset (&spec, 0, sizeof spec);
  spec.n_dims = n;
  for (guint d = 0; d < n; d++)
    spec.dims[d] = dims[d];
  spec.model = NET_MODEL_ANALYTICAL;
  spec.rounding = rounding;
  /* As the configuration sets them together (app_compat_apply). */
  spec.innermost_route = rounding == NET_ROUND_NS_TRUNCATED;
  return spec;
}

void
sf_build_net (const NetSpec *spec, gboolean use_fake)
{
  GError *error = NULL;
  sf.topo = net_topo_new (spec, &error);
  ck_assert_msg (sf.topo != NULL, "net_topo_new: %s", error ? error->message : "?");
  if (use_fake)
    sf.net = net_new_with_model (sf.sched, sf.topo, &sf_fake_class, NULL);
  else
    sf.net = net_new (sf.sched, sf.topo, &error);
  ck_assert_msg (sf.net != NULL, "net_new: %s", error ? error->message : "?");
}

void
sf_build (const NetDimSpec *dims, guint n, NetRounding rounding, gboolean use_fake)
{
  NetSpec spec = sf_spec (dims, n, rounding);
  sf_build_net (&spec, use_fake);
  GError *error = NULL;
  sf.sys = sys_new (sf.sched, sf.net, &sf.params, &error);
  ck_assert_msg (sf.sys != NULL, "sys_new: %s", error ? error->message : "?");
}

void
sf_build_rings (const guint32 *sizes, const SimTime *delays, guint n)
{
  NetDimSpec dims[NET_MAX_DIMS];
  ck_assert_uint_le (n, NET_MAX_DIMS);
  for (guint d = 0; d < n; d++)
    {
      dims[d] = sf_dim (NET_DIM_RING, sizes[d], 1e9, 1);
      sf.fake.delay[d] = delays[d];
    }
  sf_build (dims, n, NET_ROUND_PS, TRUE);
}

/* ------------------------------------------------------------ collectives */

void
sf_on_done (SimSched *s, gpointer data, guint64 arg)
{
  (void) data;
  SfDone d = { (guint32) (arg >> 32), (guint32) arg, sim_sched_now (s) };
  g_array_append_val (sf.done, d);
}

SysCollRequest
sf_coll_req (SysCollKind kind, guint64 bytes, guint64 group, guint32 tag, guint32 rank)
{
  return (SysCollRequest) { .kind = kind, .bytes = bytes, .group = group,
                            .involved_dims = G_MAXUINT32, .node_id = 1000 + tag,
                            .on_done = sf_on_done, .arg = ((guint64) tag << 32) | rank };
}

void
sf_join (guint32 rank, SysCollKind kind, guint64 bytes, guint64 group, guint32 tag)
{
  SysCollRequest req = sf_coll_req (kind, bytes, group, tag, rank);
  GError *error = NULL;
  gboolean ok = sys_coll_join (sf.sys, rank, &req, &error);
  ck_assert_msg (ok, "join rank %u: %s", rank, error ? error->message : "?");
}

void
sf_join_world (guint32 p, SysCollKind kind, guint64 bytes, guint32 tag)
{
  for (guint32 r = 0; r < p; r++)
    sf_join (r, kind, bytes, SYS_GROUP_WORLD, tag);
}

void
sf_run_quiet (void)
{
  ck_assert_int_eq (sim_sched_run (sf.sched, SIM_TIME_MAX, 0), SIM_RUN_EMPTY);
  ck_assert_uint_eq (sim_sched_pending (sf.sched), 0);
  g_autoptr (GString) pending = g_string_new (NULL);
  ck_assert_msg (sys_describe_pending (sf.sys, pending) == 0, "pending: %s", pending->str);
}

/* ------------------------------------------------------------ completions */

SimTime
sf_done_at (guint32 tag, guint32 id)
{
  SimTime t = SIM_TIME_MAX;
  guint seen = 0;
  for (guint i = 0; i < sf.done->len; i++)
    {
      const SfDone *d = &g_array_index (sf.done, SfDone, i);
      if (d->tag == tag && d->id == id)
        {
          t = d->t;
          seen++;
        }
    }
  ck_assert_msg (seen == 1, "%u/%u completed %u times", tag, id, seen);
  return t;
}

static void
assert_one_done_at (guint32 tag, guint32 id, SimTime expect)
{
  SimTime t = sf_done_at (tag, id);
  ck_assert_msg (t == expect, "%u/%u done at %" G_GUINT64_FORMAT " ps, expected %"
                 G_GUINT64_FORMAT, tag, id, t, expect);
}

void
sf_assert_done_at (guint32 tag, const guint32 *ids, guint n, SimTime expect)
{
  for (guint i = 0; i < n; i++)
    assert_one_done_at (tag, ids[i], expect);
}

void
sf_assert_all_done_at (guint32 tag, guint32 p, SimTime expect)
{
  for (guint32 r = 0; r < p; r++)
    assert_one_done_at (tag, r, expect);
}

void
sf_assert_error (const GError *error, const char *const *needles)
{
  tu_assert_input_error (error, "");
  for (const char *const *n = needles; *n != NULL; n++)
    tu_assert_input_error (error, *n);
}

/* ------------------------------------------------------------ closed forms */

SimTime
sf_ser_ps (guint64 bytes, guint64 bw)
{
  unsigned __int128 num = (unsigned __int128) bytes * G_GUINT64_CONSTANT (1000000000000);
  return (SimTime) ((num + bw - 1) / bw);
}

SimTime
sf_phase_time (guint64 k, guint64 r, SimTime D, SimTime e, SimTime rc)
{
  return e + k * (D + e) + r * rc;
}
