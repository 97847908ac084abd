/* links.c: link layout and dimension-order routing over it. */
#include "network/links.h"

#include <string.h>

#include "sim/error.h"

/* Links per rank in dimension d: Ring 2 (+1, -1), Switch 2 (up, down),
 * FullyConnected one per destination coordinate. */
static guint32
links_per_rank (const NetDimSpec *dim)
{
  return dim->kind == NET_DIM_FULLY_CONNECTED ? dim->size : 2;
}

gboolean
net_links_init (NetLinks *links, const NetTopo *topo, GError **error)
{
  links->topo = topo;
  links->spec = net_topo_spec (topo);
  links->graph = net_topo_graph (topo);
  if (links->graph != NULL)
    {
      links->n_links = net_graph_links (links->graph);
      return TRUE;
    }
  guint64 total = 0;
  for (guint d = 0; d < links->spec->n_dims; d++)
    {
      links->base[d] = (guint32) total;
      total += (guint64) net_topo_ranks (topo) * links_per_rank (&links->spec->dims[d]);
      if (total > G_MAXUINT32 / 2)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "a link-level model of this topology would need more than %u links",
                       G_MAXUINT32 / 2);
          return FALSE;
        }
    }
  links->n_links = (guint32) total;
  return TRUE;
}

guint32
net_links_next (const NetLinks *links, NetCursor *cursor)
{
  const NetTopo *topo = links->topo;
  g_assert (!net_cursor_arrived (cursor));
  if (links->graph != NULL)
    {
      guint32 l = net_graph_next (links->graph, cursor->at, cursor->src, cursor->dst);
      cursor->at = net_graph_link (links->graph, l)->to;
      return l;
    }
  if (cursor->in_switch >= 0)
    {
      guint d = (guint) cursor->in_switch;
      /* Down from the switch to the member with dst's coordinate. */
      guint32 stride = net_topo_stride (topo, d);
      guint32 here = net_topo_coord (topo, cursor->at, d);
      guint32 there = net_topo_coord (topo, cursor->dst, d);
      cursor->at = cursor->at - here * stride + there * stride;
      cursor->in_switch = -1;
      return links->base[d] + cursor->at * 2 + 1;
    }
  guint d = net_topo_route_dim (topo, cursor->at, cursor->dst);
  const NetDimSpec *dim = &links->spec->dims[d];
  guint32 stride = net_topo_stride (topo, d);
  guint32 here = net_topo_coord (topo, cursor->at, d);
  guint32 there = net_topo_coord (topo, cursor->dst, d);
  guint32 from = cursor->at;
  switch (dim->kind)
    {
    case NET_DIM_RING:
      {
        guint32 fwd = (there + dim->size - here) % dim->size;
        gboolean up = fwd <= dim->size - fwd;
        guint32 next = up ? (here + 1) % dim->size : (here + dim->size - 1) % dim->size;
        cursor->at = cursor->at - here * stride + next * stride;
        return links->base[d] + from * 2 + (up ? 0 : 1);
      }
    case NET_DIM_FULLY_CONNECTED:
      cursor->at = cursor->at - here * stride + there * stride;
      return links->base[d] + from * dim->size + there;
    case NET_DIM_SWITCH:
    default:
      cursor->in_switch = (gint16) d;
      return links->base[d] + from * 2;
    }
}

guint
net_links_dim (const NetLinks *links, guint32 link)
{
  if (links->graph != NULL)
    return 0;
  guint d = 0;
  while (d + 1 < links->spec->n_dims && link >= links->base[d + 1])
    d++;
  return d;
}

double
net_links_bandwidth (const NetLinks *links, guint32 link)
{
  if (links->graph != NULL)
    return net_graph_link (links->graph, link)->bandwidth_Bps;
  return links->spec->dims[net_links_dim (links, link)].bandwidth_Bps;
}

SimTime
net_links_latency (const NetLinks *links, guint32 link)
{
  if (links->graph != NULL)
    return net_graph_link (links->graph, link)->latency;
  return links->spec->dims[net_links_dim (links, link)].latency;
}

void
net_links_ends (const NetLinks *links, guint32 id, char *from, char *to, gsize size)
{
  if (links->graph != NULL)
    {
      const NetGraphLink *l = net_graph_link (links->graph, id);
      g_strlcpy (from, net_graph_name (links->graph, l->from), size);
      g_strlcpy (to, net_graph_name (links->graph, l->to), size);
      return;
    }
  const NetTopo *topo = links->topo;
  guint d = net_links_dim (links, id);
  const NetDimSpec *dim = &links->spec->dims[d];
  guint32 per = links_per_rank (dim);
  guint32 rank = (id - links->base[d]) / per, k = (id - links->base[d]) % per;
  guint32 stride = net_topo_stride (topo, d), here = net_topo_coord (topo, rank, d);
  guint32 line = rank - here * stride;
  g_snprintf (from, size, "r%u", rank);
  switch (dim->kind)
    {
    case NET_DIM_RING:
      {
        guint32 next = k == 0 ? (here + 1) % dim->size : (here + dim->size - 1) % dim->size;
        g_snprintf (to, size, "r%u", line + next * stride);
        break;
      }
    case NET_DIM_FULLY_CONNECTED:
      g_snprintf (to, size, "r%u", line + k * stride);
      break;
    case NET_DIM_SWITCH:
    default:
      if (k == 0)
        g_snprintf (to, size, "sw%u.%u", d, line);
      else
        {
          g_snprintf (from, size, "sw%u.%u", d, line);
          g_snprintf (to, size, "r%u", rank);
        }
      break;
    }
}

void
net_links_stats (const NetLinks *links, guint32 link, guint64 bytes, guint64 messages,
                 SimTime busy, guint32 peak_queue, NetLinkStats *out)
{
  memset (out, 0, sizeof *out);
  out->dim = net_links_dim (links, link);
  out->bytes = bytes;
  out->messages = messages;
  out->busy = busy;
  out->peak_queue = peak_queue;
  net_links_ends (links, link, out->from, out->to, sizeof out->from);
}
