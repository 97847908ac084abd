/* gen_topo.c: the generator registry, the helpers generators share, and
 * building a generator's network with its limits checked. */
#include "network/gen_topo.h"

#include <math.h>
#include <string.h>

#include "sim/error.h"
#include "sim/registry.h"

guint64
net_gen_mul_sat (guint64 a, guint64 b)
{
  guint64 r = 0;
  return g_uint64_checked_mul (&r, a, b) ? r : G_MAXUINT64;
}

guint64
net_gen_add_sat (guint64 a, guint64 b)
{
  guint64 r = 0;
  return g_uint64_checked_add (&r, a, b) ? r : G_MAXUINT64;
}

gboolean
net_gen_fail (const NetGenParams *p, GError **error, const char *format, ...)
              {
              va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: %s", net_gen_name (p->kind), msg);
  return FALSE;
}

gboolean
net_gen_check_link (const NetGenParams *p, const NetGenLink *l, const char *what, GError **error)
{
  if (!(l->bandwidth_Bps > 0.0) || !isfinite (l->bandwidth_Bps))
    return net_gen_fail (p, error, "%s must be a positive number of bytes/s", what);
  return TRUE;
}

void
net_gen_link (NetGraphSpec *g, const NetGenParams *p, guint32 a, guint32 b, const NetGenLink *l)
{
  net_graph_spec_add_link (g, a, b, l->bandwidth_Bps, l->latency, TRUE, p->line);
}

guint32
net_gen_switch (NetGraphSpec *g, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *name = g_strdup_vprintf (format, ap);
  va_end (ap);
  return net_graph_spec_add_switch (g, name);
}

void
net_gen_dim (NetSpec *spec, NetDimKind kind, NetLinkKind link, guint32 size,
             const NetGenLink *l)
{
  spec->dims[spec->n_dims++] = (NetDimSpec) { .kind = kind, .link = link, .size = size,
                                              .bandwidth_Bps = l->bandwidth_Bps,
                                              .latency = l->latency };
}

guint32
net_gen_node_gpus (guint32 gpus)
{
  return MAX (gpus, 1u);
}

gboolean
net_gen_check_nodes (const NetGenParams *p, guint32 gpus, const NetGenLink *nvlink,
                     GError **error)
{
  if (net_gen_node_gpus (gpus) == 1)
    return TRUE;
  if (nvlink->bandwidth_Bps == 0.0)
    return net_gen_fail (p, error,
                         "gpus=\"%u\" needs nvlink-bandwidth and nvlink-latency "
                         "(the NVSwitch inside each node)", gpus);
  return net_gen_check_link (p, nvlink, "the nvlink bandwidth", error);
}

void
net_gen_nodes_build (NetGraphSpec *g, const NetGenParams *p, guint32 nodes, guint32 gpus,
                     const NetGenLink *nvlink, NetSpec *spec)
{
  if (gpus < 2)
    return;
  for (guint32 n = 0; n < nodes; n++)
    {
      guint32 nvs = net_gen_switch (g, "nvs%u", n);
      for (guint32 i = 0; i < gpus; i++)
        net_gen_link (g, p, i + gpus * n, nvs, nvlink);
    }
  net_gen_dim (spec, NET_DIM_SWITCH, NET_LINK_NVLINK, gpus, nvlink);
}

static const NetGenClass *const builtin[] = {
  [NET_GEN_FAT_TREE] = &net_gen_fat_tree,
  [NET_GEN_TORUS] = &net_gen_torus,
  [NET_GEN_RAIL] = &net_gen_rail,
  [NET_GEN_DRAGONFLY] = &net_gen_dragonfly,
};

static SimRegistry registry = SIM_REGISTRY_INIT (builtin);

guint
net_gen_count (void)
{
  return sim_registry_count (&registry);
}

const NetGenClass *
net_gen_class (NetGenKind kind)
{
  return sim_registry_nth (&registry, (guint) kind);
}

const char *
net_gen_name (NetGenKind kind)
{
  const NetGenClass *klass = net_gen_class (kind);
  return klass != NULL ? klass->name : "unknown";
}

gboolean
net_gen_parse_name (const char *name, NetGenKind *out)
{
  const NetGenClass *klass;
  for (guint i = 0; (klass = net_gen_class ((NetGenKind) i)) != NULL; i++)
    if (g_strcmp0 (name, klass->name) == 0)
      {
        *out = (NetGenKind) i;
        return TRUE;
      }
  return FALSE;
}

/* One element name, one generator. */
static gboolean
same_generator (const void *row, const void *other)
{
  return strcmp (((const NetGenClass *) row)->name, ((const NetGenClass *) other)->name) == 0;
}

gboolean
net_gen_register (const NetGenClass *klass, NetGenKind *kind_out, GError **error)
{
  g_return_val_if_fail (klass != NULL && klass->name != NULL && klass->attrs != NULL
                            && klass->count != NULL && klass->build != NULL, FALSE);
  const SimRegistryName name = { "generator", klass->name };
  guint kind;
  if (!sim_registry_add (&registry, klass, same_generator, &name, &kind, error))
    return FALSE;
  if (kind_out != NULL)
    *kind_out = (NetGenKind) kind;
  return TRUE;
}

guint64
net_gen_ranks (const NetGenParams *p)
{
  g_return_val_if_fail (p != NULL && net_gen_class (p->kind) != NULL, 0);
  NetGenCounts c;
  return net_gen_class (p->kind)->count (p, &c, NULL) ? c.ranks : 0;
}

gboolean
net_gen_topology (const NetGenParams *p, NetSpec *spec, NetGraphSpec **graph_out,
                  GError **error)
{
  g_return_val_if_fail (p != NULL && spec != NULL && graph_out != NULL, FALSE);
  const NetGenClass *cls = net_gen_class (p->kind);
  g_return_val_if_fail (cls != NULL, FALSE);
  NetGenCounts c;
  if (!cls->count (p, &c, error))
    return FALSE;
  if (c.ranks > NET_GEN_MAX_RANKS)
    return net_gen_fail (p, error,
                         "%" G_GUINT64_FORMAT " ranks is more than the %d supported",
                         c.ranks, NET_GEN_MAX_RANKS);
  /* Device and link numbers are 32-bit; ask for no more than half of that
   * range of directed links, as the dimension layout does (links.c). */
  if (net_gen_add_sat (c.ranks, c.switches) > G_MAXINT32 || c.links > G_MAXUINT32 / 4)
    return net_gen_fail (p, error, "%" G_GUINT64_FORMAT " switches and %" G_GUINT64_FORMAT
                         " duplex links are too many to model",
                         c.switches, c.links);
  g_autoptr (NetGraphSpec) g = net_graph_spec_new ((guint32) c.ranks);
  NetSpec built = *spec;
  built.n_dims = 0;
  cls->build (p, g, &built);
  g_assert (g->switches == c.switches && g->links->len == 2 * c.links);
  built.graph = g;
  *spec = built;
  *graph_out = g_steal_pointer (&g);
  return TRUE;
}
