/* config_xml_net.c: the <network> element of the cluster XML: building-block
 * dimensions, an explicit graph of switches and links, or a topology
 * generator. */
#include "sim/app/config_xml_private.h"

#include <string.h>

#include "network/gen_topo.h"
#include "network/net.h"
#include "sim/error.h"
#include "sim/units.h"

/* A <dim>; in a network with <link>s (GRAPH) its bandwidth and latency may
 * be left out together, the links pricing messages (graph_priced). */
static gboolean
xml_dim (XmlLoad *l, const xmlNode *node, gboolean graph, NetDimSpec *dim, GError **error)
{
  /* The same names and order as NetDimKind. */
  static const char *const kinds[] = { "Ring", "FullyConnected", "Switch", NULL };
  /* NetLinkKind after NET_LINK_DEFAULT, which is the attribute's absence. */
  static const char *const links[] = { "nvlink", "pcie", "net", NULL };
  static const char *const attrs[] = { "kind", "size", "bandwidth", "latency", "link", NULL };
  int kind = -1, link = -1;
  guint size = 0;
  if (!app_xml_check_node (l, node, attrs, NULL, NULL, error)
      || !app_xml_attr_choice (l, node, "kind", kinds, &kind, error)
      || !app_xml_attr_choice (l, node, "link", links, &link, error))
    return FALSE;
  if (kind < 0)
    return app_xml_fail (l, node, error, "missing attribute 'kind'");
  xmlNode *n = (xmlNode *) node;
  gboolean bw = xmlHasProp (n, (const xmlChar *) "bandwidth") != NULL;
  gboolean lat = xmlHasProp (n, (const xmlChar *) "latency") != NULL;
  *dim = (NetDimSpec) { .bandwidth_Bps = 1, .latency = 0, .graph_priced = graph && !bw && !lat };
  if (graph && bw != lat)
    return app_xml_fail (l, node, error, "missing attribute '%s': with <link>s, give a <dim> "
                         "bandwidth and latency together (library=\"nccl\" reads them) or "
                         "neither (the links price messages)", bw ? "latency" : "bandwidth");
  if (!app_xml_attr_uint (l, node, "size", TRUE, 1, G_MAXUINT32, &size, error)
      || (!dim->graph_priced
          && (!app_xml_attr_bandwidth (l, node, "bandwidth", TRUE, &dim->bandwidth_Bps, error)
              || !app_xml_attr_time (l, node, "latency", TRUE, &dim->latency, error))))
    return FALSE;
  dim->kind = (NetDimKind) kind;
  dim->link = link >= 0 ? (NetLinkKind) (NET_LINK_NVLINK + link) : NET_LINK_DEFAULT;
  dim->size = size;
  return TRUE;
}

/* A device of the explicit graph by name: "r<N>" for rank N, or a switch's
 * id; -1 when there is none.  BY_NAME maps the names of g->names to their
 * index + 1 (a walk of the list per lookup was quadratic in the links). */
static gint64
graph_device (GHashTable *by_name, const char *name)
{
  return (gint64) GPOINTER_TO_SIZE (g_hash_table_lookup (by_name, name)) - 1;
}

static void
graph_name_add (GHashTable *by_name, const NetGraphSpec *g)
{
  guint i = g->names->len - 1;
  g_hash_table_insert (by_name, g->names->pdata[i], GSIZE_TO_POINTER ((gsize) i + 1));
}

/* <switch id> and <link from to bandwidth latency [duplex]> in file order:
 * switches may be named before or after the links that use them. */
static gboolean
xml_graph (XmlLoad *l, const xmlNode *node, GError **error)
{
  static const char *const switch_attrs[] = { "id", NULL };
  static const char *const link_attrs[] = { "from", "to", "bandwidth", "latency", "duplex", NULL };
  l->graph = net_graph_spec_new ((guint32) l->n_ranks);
  l->graph->source = g_strdup (l->path);
  g_autoptr (GHashTable) by_name = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint i = 0; i < l->graph->names->len; i++)
    g_hash_table_insert (by_name, l->graph->names->pdata[i], GSIZE_TO_POINTER ((gsize) i + 1));
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (!app_xml_is (c, "switch"))
        continue;
      g_autofree char *id = NULL;
      if (!app_xml_check_node (l, c, switch_attrs, NULL, NULL, error)
          || !app_xml_attr_text (l, c, "id", TRUE, &id, error))
        return FALSE;
      if (graph_device (by_name, id) >= 0)
        return app_xml_fail (l, c, error, "a second device named '%s'", id);
      net_graph_spec_add_switch (l->graph, id);
      graph_name_add (by_name, l->graph);
    }
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (!app_xml_is (c, "link"))
        continue;
      g_autofree char *from = NULL, *to = NULL, *duplex = NULL;
      double bw = 0;
      SimTime lat = 0;
      if (!app_xml_check_node (l, c, link_attrs, NULL, NULL, error)
          || !app_xml_attr_text (l, c, "from", TRUE, &from, error)
          || !app_xml_attr_text (l, c, "to", TRUE, &to, error)
          || !app_xml_attr_bandwidth (l, c, "bandwidth", TRUE, &bw, error)
          || !app_xml_attr_time (l, c, "latency", TRUE, &lat, error)
          || !app_xml_attr_text (l, c, "duplex", FALSE, &duplex, error))
        return FALSE;
      gint64 a = graph_device (by_name, from), b = graph_device (by_name, to);
      if (a < 0 || b < 0)
        return app_xml_fail (l, c, error,
                         "no rank or switch named '%s' (ranks are r0 .. r%" G_GUINT64_FORMAT
                         ", switches need a <switch id>)",
                         a < 0 ? from : to, l->n_ranks - 1);
      if (a == b)
        return app_xml_fail (l, c, error, "'%s' to itself", from);
      net_graph_spec_add_link (l->graph, (guint32) a, (guint32) b, bw, lat,
                               duplex == NULL || g_strcmp0 (duplex, "true") == 0,
                               (guint) xmlGetLineNo (c));
    }
  l->net.graph = l->graph;
  return TRUE;
}

/* A bandwidth and a latency attribute, both required, as one link class. */
static gboolean
attr_link_class (XmlLoad *l, const xmlNode *node, const char *bandwidth, const char *latency,
                 NetGenLink *out, GError **error)
{
  return app_xml_attr_bandwidth (l, node, bandwidth, TRUE, &out->bandwidth_Bps, error)
         && app_xml_attr_time (l, node, latency, TRUE, &out->latency, error);
}

/* One attribute (pair) of a generator's table into p. */
static gboolean
xml_gen_attr (XmlLoad *l, const xmlNode *node, const NetGenAttr *a, NetGenParams *p,
              GError **error)
{
  gpointer field = G_STRUCT_MEMBER_P (p, a->offset);
  switch (a->type)
    {
    case NET_GEN_ATTR_COUNT:
      *(guint32 *) field = a->default_value;
      return app_xml_attr_uint (l, node, a->name, a->required, 1, G_MAXUINT32, field, error);
    case NET_GEN_ATTR_LINK:
      {
        g_autofree char *bandwidth = g_strconcat (a->name, "bandwidth", NULL);
        g_autofree char *latency = g_strconcat (a->name, "latency", NULL);
        /* An optional class is given whole or not at all (left zero). */
        if (!a->required && xmlHasProp (node, (const xmlChar *) bandwidth) == NULL
            && xmlHasProp (node, (const xmlChar *) latency) == NULL)
          return TRUE;
        return attr_link_class (l, node, bandwidth, latency, field, error);
      }
    case NET_GEN_ATTR_TEXT:
    default:
      {
        g_autofree char *text = NULL;
        if (!app_xml_attr_text (l, node, a->name, a->required, &text, error))
          return FALSE;
        if (text != NULL && !a->parse (text, p, error))
          return app_xml_attr_located (l, node, a->name, error);
        return TRUE;
      }
    }
}

/* A generator's element, read by its attribute table (network/gen_topo.h). */
static gboolean
xml_gen_params (XmlLoad *l, const xmlNode *node, const NetGenClass *klass, NetGenParams *p,
                GError **error)
{
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (const NetGenAttr *a = klass->attrs; a->name != NULL; a++)
    if (a->type == NET_GEN_ATTR_LINK)
      {
        g_ptr_array_add (names, g_strconcat (a->name, "bandwidth", NULL));
        g_ptr_array_add (names, g_strconcat (a->name, "latency", NULL));
      }
    else
      g_ptr_array_add (names, g_strdup (a->name));
  g_ptr_array_add (names, NULL);
  if (!app_xml_check_node (l, node, (const char *const *) names->pdata, NULL, NULL, error))
    return FALSE;
  for (const NetGenAttr *a = klass->attrs; a->name != NULL; a++)
    if (!xml_gen_attr (l, node, a, p, error))
      return FALSE;
  return TRUE;
}

/* The generator element of <network>, or NULL when it has none; FALSE when
 * it has two, or one besides <dim>, <switch> or <link>. */
static gboolean
xml_find_generator (XmlLoad *l, const xmlNode *node, const xmlNode **gen, GError **error)
{
  NetGenKind kind;
  *gen = NULL;
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE && net_gen_parse_name ((const char *) c->name, &kind))
      {
        if (*gen != NULL)
          return app_xml_fail (l, c, error, "a second generator in <network> (<%s> is on line %ld)",
                           (const char *) (*gen)->name, xmlGetLineNo (*gen));
        *gen = c;
      }
  for (const xmlNode *c = node->children; *gen != NULL && c != NULL; c = c->next)
    if (app_xml_is (c, "dim") || app_xml_is (c, "switch") || app_xml_is (c, "link"))
      return app_xml_fail (l, c, error,
                       "cannot be combined with <%s> (line %ld), which makes the whole network",
                       (const char *) (*gen)->name, xmlGetLineNo (*gen));
  return TRUE;
}

/* Build the network a generator element describes (network/gen_topo.h). */
static gboolean
xml_generator (XmlLoad *l, const xmlNode *node, guint ranks, GError **error)
{
  NetGenParams p;
  memset (&p, 0, sizeof p);
  if (!net_gen_parse_name ((const char *) node->name, &p.kind))
    g_assert_not_reached (); /* xml_find_generator chose it */
  p.line = (guint) xmlGetLineNo (node);
  if (!xml_gen_params (l, node, net_gen_class (p.kind), &p, error))
    return FALSE;
  /* Refused before building: a graph of 2^25 ranks took 14 s and 7 GB
   * only for the topology to refuse it (above 2^31 the generator says). */
  guint64 made = net_gen_ranks (&p);
  if (made > NET_MAX_RANKS && made <= NET_GEN_MAX_RANKS)
    return app_xml_fail (l, node, error,
                         "makes %" G_GUINT64_FORMAT " ranks; at most " NET_MAX_RANKS_TEXT
                         " are supported", made);
  if (!net_gen_topology (&p, &l->net, &l->graph, error))
    {
      sim_error_prefix (error, "%s:%ld: ", l->path, xmlGetLineNo (node));
      return FALSE;
    }
  l->graph->source = g_strdup (l->path);
  l->generator = net_gen_name (p.kind);
  l->generator_line = p.line;
  if (p.kind == NET_GEN_FAT_TREE)
    {
      l->fat_tree_k = p.fat_tree.k;
      l->fat_tree_oversubscription = p.fat_tree.oversubscription;
    }
  l->n_ranks = l->graph->ranks;
  if (ranks != 0 && ranks != l->n_ranks)
    return app_xml_fail (l, node, error,
                     "makes %" G_GUINT64_FORMAT " ranks, but <network ranks=\"%u\">", l->n_ranks,
                     ranks);
  return TRUE;
}

/* The <dim>s of <network>, innermost first, and the rank count they make. */
static gboolean
xml_dims (XmlLoad *l, const xmlNode *node, gboolean graph, GError **error)
{
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (!app_xml_is (c, "dim"))
        continue;
      if (l->net.n_dims == NET_MAX_DIMS)
        return app_xml_fail (l, c, error, "more than %d dimensions", NET_MAX_DIMS);
      NetDimSpec *dim = &l->net.dims[l->net.n_dims];
      if (!xml_dim (l, c, graph, dim, error))
        return FALSE;
      l->net.n_dims++;
      if (!g_uint64_checked_mul (&l->n_ranks, l->n_ranks, dim->size)
          || l->n_ranks > NET_MAX_RANKS)
        return app_xml_fail (l, c, error,
                             "the dimensions make %" G_GUINT64_FORMAT " ranks or more; at most "
                             NET_MAX_RANKS_TEXT " are supported", l->n_ranks);
    }
  return TRUE;
}

/* The elements <network> may hold: the explicit ones, then every
 * generator's (NULL-terminated). */
static GPtrArray *
network_children (void)
{
  GPtrArray *out = g_ptr_array_new ();
  g_ptr_array_add (out, "dim");
  g_ptr_array_add (out, "switch");
  g_ptr_array_add (out, "link");
  for (guint i = 0; i < net_gen_count (); i++)
    g_ptr_array_add (out, (gpointer) net_gen_name ((NetGenKind) i));
  g_ptr_array_add (out, NULL);
  return out;
}

/* The link models' names in the order of their ids (NULL-terminated). */
static GPtrArray *
model_names (void)
{
  GPtrArray *out = g_ptr_array_new ();
  for (guint i = 0; i < net_model_count (); i++)
    g_ptr_array_add (out, (gpointer) net_model_name_of ((NetModelKind) i));
  g_ptr_array_add (out, NULL);
  return out;
}

/* "<fat-tree>, <torus>, ...", for messages. */
static char *
generator_list (void)
{
  GString *out = g_string_new (NULL);
  for (guint i = 0; i < net_gen_count (); i++)
    g_string_append_printf (out, "%s<%s>", i ? ", " : "", net_gen_name ((NetGenKind) i));
  return g_string_free (out, FALSE);
}

/* packet-size= on a model other than congestion, the only one that cuts
 * messages into packets: refused, since its reader would believe it
 * applied.  0 (whole messages) is every model's way, so a sweep may set it
 * for any. */
static gboolean
packets_fit_model (XmlLoad *l, const xmlNode *node, GError **error)
{
  if (l->net.packet_bytes == 0 || l->net.model == NET_MODEL_CONGESTION)
    return TRUE;
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, "packet-size", FALSE, &text, error))
    return FALSE;
  return app_xml_fail (l, node, error,
                       "packet-size=\"%s\": only the congestion model cuts messages into "
                       "packets; this network's model is %s (model=\"congestion\", or no "
                       "packet-size=)",
                       text != NULL ? text : "", net_model_name_of (l->net.model));
}

gboolean
app_xml_network (XmlLoad *l, const xmlNode *cluster, GError **error)
{
  static const char *const attrs[] = { "model", "ranks", "packet-size", NULL };
  g_autoptr (GPtrArray) children = network_children ();
  g_autoptr (GPtrArray) models = model_names ();
  const xmlNode *node = app_xml_child (cluster, "network");
  if (node == NULL)
    return app_xml_fail (l, cluster, error, "missing <network>");
  int model = -1;
  guint ranks = 0;
  if (!app_xml_check_node (l, node, attrs, (const char *const *) children->pdata, "*", error)
      || !app_xml_attr_choice (l, node, "model", (const char *const *) models->pdata, &model,
                               error)
      || !app_xml_attr_uint (l, node, "ranks", FALSE, 1, G_MAXINT32, &ranks, error)
      || !app_xml_attr_bytes (l, node, "packet-size", &l->net.packet_bytes, error))
    return FALSE;
  l->net.model = model >= 0 ? (NetModelKind) model : NET_MODEL_ANALYTICAL;
  if (!packets_fit_model (l, node, error))
    return FALSE;
  l->net.n_dims = 0;
  l->n_ranks = 1;
  const xmlNode *gen = NULL;
  if (!xml_find_generator (l, node, &gen, error))
    return FALSE;
  if (gen != NULL)
    return xml_generator (l, gen, ranks, error);
  gboolean graph = app_xml_child (node, "link") != NULL;
  if (!xml_dims (l, node, graph, error))
    return FALSE;
  if (l->net.n_dims == 0 && !graph)
    {
      g_autofree char *gens = generator_list ();
      return app_xml_fail (l, node, error,
                           "needs at least one <dim>, or <link>s, or a generator (%s)", gens);
    }
  if (l->net.n_dims == 0)
    {
      /* A graph without declared dimensions: its ranks form one flat
       * dimension for the collectives (pricing follows the graph). */
      if (ranks == 0)
        return app_xml_fail (l, node, error, "a graph without <dim>s needs ranks=\"N\"");
      l->net.dims[0] = (NetDimSpec) { .kind = NET_DIM_SWITCH, .size = ranks,
                                      .bandwidth_Bps = 1, .latency = 0, .graph_priced = TRUE };
      l->net.n_dims = 1;
      l->n_ranks = ranks;
    }
  else if (ranks != 0 && ranks != l->n_ranks)
    return app_xml_fail (l, node, error,
                     "ranks=\"%u\" but the dimensions make %" G_GUINT64_FORMAT " ranks", ranks,
                     l->n_ranks);
  return !graph || xml_graph (l, node, error);
}
