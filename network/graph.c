/* graph.c: explicit network graphs, checked, with cached widest-then-shortest routes. */
#include "network/graph.h"

#include <math.h>
#include <stdlib.h>

#include "sim/error.h"

NetGraphSpec *
net_graph_spec_new (guint32 ranks)
{
  NetGraphSpec *s = g_new0 (NetGraphSpec, 1);
  s->ranks = ranks;
  s->links = g_array_new (FALSE, FALSE, sizeof (NetGraphLink));
  s->names = g_ptr_array_new_with_free_func (g_free);
  for (guint32 r = 0; r < ranks; r++)
    g_ptr_array_add (s->names, g_strdup_printf ("r%u", r));
  return s;
}

void
net_graph_spec_free (NetGraphSpec *s)
{
  if (s == NULL)
    return;
  g_array_unref (s->links);
  g_ptr_array_unref (s->names);
  g_free (s->source);
  g_free (s);
}

NetGraphSpec *
net_graph_spec_copy (const NetGraphSpec *s)
{
  NetGraphSpec *c = net_graph_spec_new (0);
  c->ranks = s->ranks;
  c->switches = s->switches;
  g_array_append_vals (c->links, s->links->data, s->links->len);
  for (guint i = 0; i < s->names->len; i++)
    g_ptr_array_add (c->names, g_strdup (s->names->pdata[i]));
  c->source = g_strdup (s->source);
  return c;
}

guint32
net_graph_spec_add_switch (NetGraphSpec *s, const char *name)
{
  g_ptr_array_add (s->names, g_strdup (name));
  return s->ranks + s->switches++;
}

void
net_graph_spec_add_link (NetGraphSpec *s, guint32 from, guint32 to, double bandwidth_Bps,
                         SimTime latency, gboolean duplex, guint line)
{
  NetGraphLink l = { from, to, bandwidth_Bps, latency, line };
  g_array_append_val (s->links, l);
  if (duplex)
    {
      NetGraphLink back = { to, from, bandwidth_Bps, latency, line };
      g_array_append_val (s->links, back);
    }
}

/* Routes to one destination rank r, made the first time a route to it is
 * asked for.  A route to r ends with one of the links into r, so for any
 * device v != r, its hops to r over the links of width index <= w are
 * 1 + the least of its hops to each p with a link p -> r of index <= w (a
 * shortest path to p through r would give a shorter one to r), and the
 * widest route from v to r is as narrow as the wider of such a link and
 * v's widest route to p, at best.  Where every device linked into r is a
 * switch, r's hops and widths are so derived from its in-neighbours'
 * (kept per switch in NetGraph, shared by the ranks on the same switches:
 * the same values, so the same routes, for far fewer searches); where a
 * rank links into r, r keeps its own searches.  via: the links into r;
 * widest: per rank, the width index of its widest route to r (own search;
 * NULL when shared or every link has one width); dist[w]: every device's
 * hops to r over the links of index <= w (own search, NULL when shared). */
typedef struct
{
  guint32 dst;
  gboolean shared;
  guint32 n_via;
  guint32 *via;           /* links into dst */
  guint32 *widest;
  guint32 *dist[];
} GraphDest;

struct _NetGraph
{
  NetGraphSpec *spec;
  guint32 devices;
  guint32 *out_start; /* CSR: links leaving device v: out_links[out_start[v] ..] */
  guint32 *out_links;
  guint32 *in_start;  /* the same by the device links lead to */
  guint32 *in_links;
  /* The distinct link bandwidths, widest first; per link the index of its
   * own; the links in order of that index (then file order), width w's
   * being by_width[width_start[w] .. width_start[w + 1]). */
  double *widths;
  guint32 n_widths;
  guint32 *link_width;
  guint32 *by_width, *width_start;
  GraphDest **dest; /* per destination rank, created on first use */
  /* Per device p, made on first use by a destination linked from p: the
   * width index of every rank's widest route to p (to_widest[p]), and
   * every device's hops to p over the links of index <= w
   * (to_dist[w * devices + p]). */
  guint32 **to_widest;
  guint32 **to_dist;
};

static gboolean
graph_check_links (const NetGraphSpec *s, guint32 devices, GError **error)
{
  for (guint i = 0; i < s->links->len; i++)
    {
      const NetGraphLink *l = &g_array_index (s->links, NetGraphLink, i);
      const char *what = NULL;
      if (l->from >= devices || l->to >= devices)
        what = "names a device that does not exist";
      else if (l->from == l->to)
        what = "connects a device to itself";
      else if (!(l->bandwidth_Bps > 0.0) || !isfinite (l->bandwidth_Bps))
        what = "needs a positive bandwidth";
      if (what != NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%u: link %s",
                       s->source ? s->source : "network", l->line, what);
          return FALSE;
        }
    }
  return TRUE;
}

/* Hops between every device and `root` by a breadth-first search over the
 * links of width index <= w (at least widths[w] wide), linear in devices
 * and links: towards root (every device's hops to it, following the links
 * leading into each device backwards) or away from it. */
static guint32 *
graph_bfs (const NetGraph *g, guint32 root, guint32 w, gboolean towards)
{
  const guint32 *start = towards ? g->in_start : g->out_start;
  const guint32 *links = towards ? g->in_links : g->out_links;
  guint32 *dist = g_new (guint32, g->devices);
  for (guint32 v = 0; v < g->devices; v++)
    dist[v] = G_MAXUINT32;
  g_autofree guint32 *queue = g_new (guint32, g->devices);
  guint32 head = 0, tail = 0;
  dist[root] = 0;
  queue[tail++] = root;
  while (head < tail)
    {
      guint32 v = queue[head++];
      for (guint32 i = start[v]; i < start[v + 1]; i++)
        {
          if (g->link_width[links[i]] > w)
            continue;
          const NetGraphLink *l = net_graph_link (g, links[i]);
          guint32 next = towards ? l->from : l->to;
          if (dist[next] == G_MAXUINT32)
            {
              dist[next] = dist[v] + 1;
              queue[tail++] = next;
            }
        }
    }
  return dist;
}

/* The width of every rank's widest route to dst, linear in devices and
 * links: the links are let in width by width, widest first, and whatever
 * reaches dst through the links let in so far is found by a breadth-first
 * search (links into a device already found are followed when it is; a
 * link let in later whose head was found earlier, when its width comes). */
static guint32 *
graph_widest (const NetGraph *g, guint32 dst)
{
  guint32 *wid = g_new (guint32, g->devices);
  for (guint32 v = 0; v < g->devices; v++)
    wid[v] = G_MAXUINT32;
  g_autofree guint32 *queue = g_new (guint32, g->devices);
  guint32 head = 0, tail = 0;
  wid[dst] = 0;
  queue[tail++] = dst;
  for (guint32 w = 0; w < g->n_widths; w++)
    {
      for (guint32 i = g->width_start[w]; i < g->width_start[w + 1]; i++)
        {
          const NetGraphLink *l = net_graph_link (g, g->by_width[i]);
          if (wid[l->to] != G_MAXUINT32 && wid[l->from] == G_MAXUINT32)
            {
              wid[l->from] = w;
              queue[tail++] = l->from;
            }
        }
      while (head < tail)
        {
          guint32 v = queue[head++];
          for (guint32 i = g->in_start[v]; i < g->in_start[v + 1]; i++)
            {
              guint32 from = net_graph_link (g, g->in_links[i])->from;
              if (g->link_width[g->in_links[i]] <= w && wid[from] == G_MAXUINT32)
                {
                  wid[from] = w;
                  queue[tail++] = from;
                }
            }
        }
    }
  /* Only the ranks' are kept: routes start at ranks. */
  return g_renew (guint32, wid, MAX (g->spec->ranks, 1u));
}

static int
cmp_width_desc (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x < y) - (x > y);
}

/* widths, n_widths, link_width, by_width and width_start (see NetGraph). */
static void
graph_widths (NetGraph *g)
{
  const GArray *links = g->spec->links;
  guint32 n = links->len;
  g->widths = g_new (double, MAX (n, 1u));
  for (guint32 i = 0; i < n; i++)
    g->widths[i] = g_array_index (links, NetGraphLink, i).bandwidth_Bps;
  qsort (g->widths, n, sizeof (double), cmp_width_desc);
  g->n_widths = 0;
  for (guint32 i = 0; i < n; i++)
    if (g->n_widths == 0 || g->widths[g->n_widths - 1] != g->widths[i])
      g->widths[g->n_widths++] = g->widths[i];
  g->link_width = g_new (guint32, MAX (n, 1u));
  g->width_start = g_new0 (guint32, g->n_widths + 1);
  for (guint32 i = 0; i < n; i++)
    {
      double bw = g_array_index (links, NetGraphLink, i).bandwidth_Bps;
      /* Binary search in the descending distinct widths. */
      guint32 lo = 0, hi = g->n_widths - 1;
      while (lo < hi)
        {
          guint32 mid = (lo + hi) / 2;
          if (g->widths[mid] > bw)
            lo = mid + 1;
          else
            hi = mid;
        }
      g->link_width[i] = lo;
      g->width_start[lo + 1]++;
    }
  for (guint32 w = 0; w < g->n_widths; w++)
    g->width_start[w + 1] += g->width_start[w];
  g->by_width = g_new (guint32, MAX (n, 1u));
  g_autofree guint32 *fill = g_memdup2 (g->width_start, (g->n_widths + 1) * sizeof (guint32));
  for (guint32 i = 0; i < n; i++)
    g->by_width[fill[g->link_width[i]]++] = i;
}

/* Compressed rows of the links by one end: row v lists the links whose
 * `from` (by_to FALSE) or `to` (TRUE) is v, in file order. */
static void
graph_csr (const NetGraphSpec *spec, guint32 devices, gboolean by_to, guint32 **start_out,
           guint32 **links_out)
{
  guint32 *start = g_new0 (guint32, devices + 1);
  guint32 *links = g_new (guint32, MAX (spec->links->len, 1u));
  for (guint i = 0; i < spec->links->len; i++)
    {
      const NetGraphLink *l = &g_array_index (spec->links, NetGraphLink, i);
      start[(by_to ? l->to : l->from) + 1]++;
    }
  for (guint32 v = 0; v < devices; v++)
    start[v + 1] += start[v];
  g_autofree guint32 *fill = g_memdup2 (start, devices * sizeof (guint32));
  for (guint i = 0; i < spec->links->len; i++)
    {
      const NetGraphLink *l = &g_array_index (spec->links, NetGraphLink, i);
      links[fill[by_to ? l->to : l->from]++] = i;
    }
  *start_out = start;
  *links_out = links;
}

/* The routes to dst, made on its first use: shared where every device
 * linked into dst is a switch; with one width, that width's hop counts are
 * all a route needs. */
static GraphDest *
graph_dest_make (NetGraph *g, guint32 dst)
{
  GraphDest *d = g_malloc0 (sizeof (GraphDest) + MAX (g->n_widths, 1u) * sizeof (guint32 *));
  d->dst = dst;
  d->n_via = g->in_start[dst + 1] - g->in_start[dst];
  d->via = g_memdup2 (g->in_links + g->in_start[dst], MAX (d->n_via, 1u) * sizeof (guint32));
  d->shared = d->n_via > 0;
  for (guint32 j = 0; j < d->n_via; j++)
    d->shared = d->shared && net_graph_link (g, d->via[j])->from >= g->spec->ranks;
  if (!d->shared && g->n_widths > 1)
    d->widest = graph_widest (g, dst);
  g->dest[dst] = d;
  return d;
}

/* The width index of the widest route from rank src to d's destination. */
static guint32
graph_dest_widest (NetGraph *g, const GraphDest *d, guint32 src)
{
  if (g->n_widths <= 1 || src == d->dst)
    return 0;
  if (!d->shared)
    return d->widest[src];
  guint32 best = G_MAXUINT32;
  for (guint32 j = 0; j < d->n_via; j++)
    {
      guint32 p = net_graph_link (g, d->via[j])->from;
      if (G_UNLIKELY (g->to_widest[p] == NULL))
        g->to_widest[p] = graph_widest (g, p);
      guint32 w = g->to_widest[p][src];
      if (w != G_MAXUINT32)
        best = MIN (best, MAX (w, g->link_width[d->via[j]]));
    }
  return best;
}

/* Hops to a destination over the links of one width index or wider: own
 * (dist) or derived from the in-neighbours' (the n arrays in `to`). */
typedef struct
{
  const guint32 *dist;
  guint32 dst, n;
  const guint32 *to[8];
} GraphHops;

static inline guint32
graph_hops_at (const GraphHops *h, guint32 v)
{
  if (h->dist != NULL)
    return h->dist[v];
  if (v == h->dst)
    return 0;
  guint32 best = G_MAXUINT32;
  for (guint32 j = 0; j < h->n; j++)
    best = MIN (best, h->to[j][v]);
  return best == G_MAXUINT32 ? best : best + 1;
}

/* The width of the route from src to dst, and every device's hops to dst
 * over links at least that wide (searched on first use).  Every message
 * asks, hop by hop. */
static void
graph_dist (NetGraph *g, guint32 src, guint32 dst, guint32 *w_out, GraphHops *h)
{
  GraphDest *d = g->dest[dst];
  if (G_UNLIKELY (d == NULL))
    d = graph_dest_make (g, dst);
  guint32 w = graph_dest_widest (g, d, src);
  *w_out = w;
  h->dst = dst;
  h->n = 0;
  h->dist = NULL;
  /* More in-neighbours than fit: an own search (the same values). */
  if (!d->shared || d->n_via > G_N_ELEMENTS (h->to))
    {
      if (G_UNLIKELY (d->dist[w] == NULL))
        d->dist[w] = graph_bfs (g, dst, w, TRUE);
      h->dist = d->dist[w];
      return;
    }
  for (guint32 j = 0; j < d->n_via; j++)
    {
      if (g->link_width[d->via[j]] > w)
        continue;
      guint32 p = net_graph_link (g, d->via[j])->from;
      guint32 **slot = &g->to_dist[(gsize) w * g->devices + p];
      if (G_UNLIKELY (*slot == NULL))
        *slot = graph_bfs (g, p, w, TRUE);
      guint32 k = 0;
      while (k < h->n && h->to[k] != *slot)
        k++;
      if (k == h->n)
        h->to[h->n++] = *slot;
    }
}

NetGraph *
net_graph_new (const NetGraphSpec *spec, GError **error)
{
  guint32 devices = spec->ranks + spec->switches;
  if (!graph_check_links (spec, devices, error))
    return NULL;
  g_autoptr (NetGraph) g = g_new0 (NetGraph, 1);
  g->spec = net_graph_spec_copy (spec);
  g->devices = devices;
  graph_csr (spec, devices, FALSE, &g->out_start, &g->out_links);
  graph_csr (spec, devices, TRUE, &g->in_start, &g->in_links);
  graph_widths (g);
  g->dest = g_new0 (GraphDest *, spec->ranks);
  g->to_widest = g_new0 (guint32 *, devices);
  g->to_dist = g_new0 (guint32 *, (gsize) MAX (g->n_widths, 1u) * devices);
  /* Every rank must reach every other: all reach rank 0, and rank 0 reaches
   * all (one search each way over every link; routes are searched per
   * destination as they are asked for, so memory grows with the
   * destinations used, not ranks x devices). */
  guint32 all = g->n_widths > 0 ? g->n_widths - 1 : 0;
  g_autofree guint32 *to0 = graph_bfs (g, 0, all, TRUE);
  g_autofree guint32 *from0 = graph_bfs (g, 0, all, FALSE);
  for (guint32 r = 1; r < spec->ranks; r++)
    {
      guint32 a = r, b = 0;
      if (to0[r] != G_MAXUINT32)
        {
          if (from0[r] != G_MAXUINT32)
            continue;
          a = 0, b = r;
        }
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: the network is not connected: %s cannot reach %s",
                   spec->source ? spec->source : "network", net_graph_name (g, a),
                   net_graph_name (g, b));
      return NULL;
    }
  return g_steal_pointer (&g);
}

void
net_graph_free (NetGraph *g)
{
  if (g == NULL)
    return;
  for (guint32 r = 0; g->dest != NULL && r < g->spec->ranks; r++)
    if (g->dest[r] != NULL)
      {
        for (guint32 w = 0; w < MAX (g->n_widths, 1u); w++)
          g_free (g->dest[r]->dist[w]);
        g_free (g->dest[r]->widest);
        g_free (g->dest[r]->via);
        g_free (g->dest[r]);
      }
  g_free (g->dest);
  for (gsize i = 0; g->to_widest != NULL && i < g->devices; i++)
    g_free (g->to_widest[i]);
  for (gsize i = 0; g->to_dist != NULL && i < (gsize) MAX (g->n_widths, 1u) * g->devices; i++)
    g_free (g->to_dist[i]);
  g_free (g->to_widest);
  g_free (g->to_dist);
  g_free (g->widths);
  g_free (g->link_width);
  g_free (g->by_width);
  g_free (g->width_start);
  g_free (g->out_start);
  g_free (g->out_links);
  g_free (g->in_start);
  g_free (g->in_links);
  net_graph_spec_free (g->spec);
  g_free (g);
}

guint32
net_graph_links (const NetGraph *g)
{
  return g->spec->links->len;
}

const NetGraphLink *
net_graph_link (const NetGraph *g, guint32 link)
{
  return &g_array_index (g->spec->links, NetGraphLink, link);
}

const char *
net_graph_name (const NetGraph *g, guint32 device)
{
  return device < g->spec->names->len ? g->spec->names->pdata[device] : "?";
}

guint32
net_graph_next (NetGraph *g, guint32 at, guint32 src, guint32 dst)
{
  guint32 w = 0;
  GraphHops h;
  graph_dist (g, src, dst, &w, &h);
  guint32 here = graph_hops_at (&h, at);
  g_assert (at != dst && here != G_MAXUINT32);
  /* The narrowest width lets every link in (the common case: a route
   * through the fabric), which spares looking up each link's width. */
  guint32 narrow = w + 1 >= g->n_widths ? G_MAXUINT32 : w;
  /* One hop away, the candidates are the links from `at` into dst (only
   * dst is 0 hops from it): dst's in-links, fewer than a big switch's
   * out-links, in the same (file) order. */
  gboolean last = here == 1;
  const guint32 *row = last ? g->in_links + g->in_start[dst] : g->out_links + g->out_start[at];
  guint32 n = last ? g->in_start[dst + 1] - g->in_start[dst]
                   : g->out_start[at + 1] - g->out_start[at];
  guint32 candidates = 0;
  for (guint32 i = 0; i < n; i++)
    {
      const NetGraphLink *l = net_graph_link (g, row[i]);
      candidates += (last ? l->from == at : graph_hops_at (&h, l->to) + 1 == here)
                    && (narrow == G_MAXUINT32 || g->link_width[row[i]] <= narrow);
    }
  g_assert (candidates > 0);
  /* A stable hash of the pair and the device picks among equal-cost next
   * links (splitmix64's finalizer: every input bit moves every output bit). */
  guint64 hash = ((guint64) src << 42) ^ ((guint64) dst << 21) ^ at;
  hash = (hash ^ (hash >> 30)) * 0xBF58476D1CE4E5B9ull;
  hash = (hash ^ (hash >> 27)) * 0x94D049BB133111EBull;
  hash ^= hash >> 31;
  guint32 pick = (guint32) (hash % candidates);
  for (guint32 i = 0; i < n; i++)
    {
      const NetGraphLink *l = net_graph_link (g, row[i]);
      if ((last ? l->from == at : graph_hops_at (&h, l->to) + 1 == here)
          && (narrow == G_MAXUINT32 || g->link_width[row[i]] <= narrow) && pick-- == 0)
        return row[i];
    }
  g_assert_not_reached ();
  return 0;
}

guint32
net_graph_hops (NetGraph *g, guint32 src, guint32 dst)
{
  guint32 w = 0;
  GraphHops h;
  graph_dist (g, src, dst, &w, &h);
  return graph_hops_at (&h, src);
}
