/* config_astra_net.c: ASTRA-sim's network YAML read as it is (libyaml):
 * four lists (topology, npus_count, bandwidth, latency), one entry per
 * dimension.  YAML bandwidth "GB/s" are GiB/s (x 2^30 B/s) and latency is
 * in ns (../shared/reference/ASTRA-SIM.md).  Depth is bounded before the
 * document is loaded, so a deeply nested file is refused in linear time.
 */
#include "sim/app/config_astra_private.h"

#include <math.h>
#include <string.h>
#include <yaml.h>

#include "sim/error.h"
#include "sim/nesting.h"
#include "sim/units.h"

#define GIB 1073741824.0 /* 2^30: ASTRA-sim's network "GB" */

/* ------------------------------------------------------------------------ */
/* Network YAML                                                             */

/* The four lists of the network YAML, one entry per dimension. */
enum
{
  NET_KEY_TOPOLOGY,
  NET_KEY_NPUS,
  NET_KEY_BANDWIDTH,
  NET_KEY_LATENCY,
  NET_KEY_N
};

static const char *const net_keys[NET_KEY_N] = { "topology", "npus_count", "bandwidth",
                                                  "latency" };

static gulong
yaml_line (const yaml_node_t *node)
{
  return (gulong) node->start_mark.line + 1;
}

/* One scalar entry of a network list into dimension `dim` of spec. */
static gboolean
net_entry_convert (guint key, const char *text, NetDimSpec *dim, GError **error)
{
  switch (key)
    {
    case NET_KEY_TOPOLOGY:
      if (net_dim_kind_parse (text, &dim->kind))
        return TRUE;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "unknown topology '%s' (expected Ring, FullyConnected or Switch)", text);
      return FALSE;
    case NET_KEY_NPUS:
      {
        guint64 n = 0;
        if (!g_ascii_string_to_unsigned (text, 10, 1, G_MAXUINT32, &n, NULL))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "npus_count '%s' is not a whole number from 1 to %u", text, G_MAXUINT32);
            return FALSE;
          }
        dim->size = (guint32) n;
        return TRUE;
      }
    case NET_KEY_BANDWIDTH:
      {
        char *end = NULL;
        double v = g_ascii_strtod (text, &end);
        while (end != NULL && g_ascii_isspace (*end))
          end++;
        if (end == text || *end != '\0' || !isfinite (v) || !(v > 0))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "bandwidth '%s' is not a positive number (GB/s, read as GiB/s)", text);
            return FALSE;
          }
        /* A power of two: the product is as exact as the number itself. */
        dim->bandwidth_Bps = v * GIB;
        return TRUE;
      }
    case NET_KEY_LATENCY:
      /* Parsed from the text, not a double, so 936.25 ns is 936250 ps. */
      if (sim_units_parse_scaled (text, SIM_PS_PER_NS, &dim->latency, error))
        return TRUE;
      g_prefix_error (error, "latency (ns): ");
      return FALSE;
    default:
      g_assert_not_reached ();
    }
}

/* Whether mapping ROOT of DOC has the key NAME. */
static gboolean
has_key (yaml_document_t *doc, const yaml_node_t *root, const char *name)
{
  for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
       pair < root->data.mapping.pairs.top; pair++)
    {
      const yaml_node_t *key = yaml_document_get_node (doc, pair->key);
      if (key != NULL && key->type == YAML_SCALAR_NODE
          && strcmp ((const char *) key->data.scalar.value, name) == 0)
        return TRUE;
    }
  return FALSE;
}

/* FALSE with ERROR naming both lines when two keys of mapping ROOT are the
 * same scalar: libyaml keeps both pairs and a lookup takes one of them, so
 * a second `bandwidth:` would silently replace the first.  Quadratic in the
 * number of keys, which is a handful in any real file and bounded by the
 * file's size in any other. */
static gboolean
net_yaml_unique_keys (const char *path, yaml_document_t *doc, const yaml_node_t *root,
                      GError **error)
{
  for (yaml_node_pair_t *b = root->data.mapping.pairs.start; b < root->data.mapping.pairs.top;
       b++)
    {
      const yaml_node_t *kb = yaml_document_get_node (doc, b->key);
      if (kb == NULL || kb->type != YAML_SCALAR_NODE)
        continue;
      for (yaml_node_pair_t *a = root->data.mapping.pairs.start; a < b; a++)
        {
          const yaml_node_t *ka = yaml_document_get_node (doc, a->key);
          if (ka == NULL || ka->type != YAML_SCALAR_NODE
              || ka->data.scalar.length != kb->data.scalar.length
              || memcmp (ka->data.scalar.value, kb->data.scalar.value, ka->data.scalar.length)
                     != 0)
            continue;
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s:%lu: duplicate key '%s' (first on line %lu): each key may appear "
                       "once",
                       path, yaml_line (kb), (const char *) kb->data.scalar.value,
                       yaml_line (ka));
          return FALSE;
        }
    }
  return TRUE;
}

/* The root mapping's lists, by key; NULL where absent. */
static gboolean
net_yaml_lists (const char *path, yaml_document_t *doc, yaml_node_t *lists[NET_KEY_N],
                GError **error)
{
  yaml_node_t *root = yaml_document_get_root_node (doc);
  if (root == NULL || root->type != YAML_MAPPING_NODE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s:%lu: expected a mapping with topology, npus_count, bandwidth and latency",
                   path, root != NULL ? yaml_line (root) : 1ul);
      return FALSE;
    }
  if (!net_yaml_unique_keys (path, doc, root, error))
    return FALSE;
  for (yaml_node_pair_t *pair = root->data.mapping.pairs.start;
       pair < root->data.mapping.pairs.top; pair++)
    {
      yaml_node_t *key = yaml_document_get_node (doc, pair->key);
      yaml_node_t *value = yaml_document_get_node (doc, pair->value);
      if (key == NULL || value == NULL || key->type != YAML_SCALAR_NODE)
        continue;
      for (guint k = 0; k < NET_KEY_N; k++)
        {
          if (strcmp ((const char *) key->data.scalar.value, net_keys[k]) != 0)
            continue;
          if (value->type != YAML_SEQUENCE_NODE)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                           "%s:%lu: '%s' must be a list, one entry per dimension", path,
                           yaml_line (value), net_keys[k]);
              return FALSE;
            }
          lists[k] = value;
        }
    }
  for (guint k = 0; k < NET_KEY_N; k++)
    if (lists[k] == NULL)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: missing '%s'%s", path, net_keys[k],
                     has_key (doc, root, "logical-dims")
                         ? " (this is ASTRA-sim's ns-3 logical network, 'logical-dims'; orrery "
                           "reads the analytical backend's network file: topology, npus_count, "
                           "bandwidth and latency per dimension)"
                         : "");
        return FALSE;
      }
  return TRUE;
}

static guint
yaml_seq_len (const yaml_node_t *seq)
{
  return (guint) (seq->data.sequence.items.top - seq->data.sequence.items.start);
}

/* Check the lists' lengths and convert them into spec->dims. */
static gboolean
net_yaml_convert (const char *path, yaml_document_t *doc, yaml_node_t *lists[NET_KEY_N],
                  NetSpec *spec, GError **error)
{
  guint n = yaml_seq_len (lists[0]);
  gboolean same = TRUE;
  for (guint k = 1; k < NET_KEY_N; k++)
    same = same && yaml_seq_len (lists[k]) == n;
  if (!same || n == 0 || n > NET_MAX_DIMS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s: topology has %u entries, npus_count %u, bandwidth %u, latency %u: "
                   "each list needs one entry per dimension, 1 to %d dimensions",
                   path, n, yaml_seq_len (lists[1]), yaml_seq_len (lists[2]),
                   yaml_seq_len (lists[3]), NET_MAX_DIMS);
      return FALSE;
    }
  spec->n_dims = n;
  for (guint k = 0; k < NET_KEY_N; k++)
    for (guint d = 0; d < n; d++)
      {
        yaml_node_t *item = yaml_document_get_node (doc, lists[k]->data.sequence.items.start[d]);
        if (item == NULL || item->type != YAML_SCALAR_NODE)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                         "%s:%lu: '%s' entry %u must be a single value", path,
                         item != NULL ? yaml_line (item) : yaml_line (lists[k]), net_keys[k], d);
            return FALSE;
          }
        if (!net_entry_convert (k, (const char *) item->data.scalar.value, &spec->dims[d], error))
          {
            sim_error_prefix (error, "%s:%lu: '%s' entry %u: ", path, yaml_line (item),
                              net_keys[k], d);
            return FALSE;
          }
      }
  guint64 ranks = 1;
  for (guint d = 0; d < n; d++)
    if ((ranks *= spec->dims[d].size) > NET_MAX_RANKS)
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                     "%s:%lu: npus_count makes %" G_GUINT64_FORMAT " ranks or more; at most "
                     NET_MAX_RANKS_TEXT " are supported", path, yaml_line (lists[1]), ranks);
        return FALSE;
      }
  return TRUE;
}

/* Refuse YAML nested deeper than SIM_NESTING_MAX before libyaml's loader
 * sees it: the scanner walks a slot per open flow level at every token
 * (100,000 levels took 40 s) and deep trees cost the loader as much.  This
 * event pass stops at the first level too deep, so it stays linear; a
 * syntax error ends it early and is left to the loader to report. */
static gboolean
net_yaml_depth_check (const char *path, const char *text, gsize len, GError **error)
{
  yaml_parser_t parser;
  if (!yaml_parser_initialize (&parser))
    g_error ("libyaml: out of memory");
  yaml_parser_set_input_string (&parser, (const unsigned char *) text, len);
  guint depth = 0;
  gboolean ok = TRUE, done = FALSE;
  yaml_event_t ev;
  while (ok && !done && yaml_parser_parse (&parser, &ev))
    {
      if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
        depth++;
      else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
        depth--;
      if (depth > SIM_NESTING_MAX)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                       "%s:%lu: YAML nested deeper than %d levels", path,
                       (gulong) ev.start_mark.line + 1, SIM_NESTING_MAX);
          ok = FALSE;
        }
      done = ev.type == YAML_STREAM_END_EVENT;
      yaml_event_delete (&ev);
    }
  yaml_parser_delete (&parser);
  return ok;
}

/* Read a network YAML into spec (dims only). */
gboolean
app_astra_net_yaml_load (const char *path, NetSpec *spec, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!app_config_read_file (path, &text, &len, error)
      || !net_yaml_depth_check (path, text, len, error))
    return FALSE;
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize (&parser))
    g_error ("libyaml: out of memory");
  yaml_parser_set_input_string (&parser, (const unsigned char *) text, len);
  if (!yaml_parser_load (&parser, &doc))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%lu: YAML: %s%s%s%s", path,
                   (gulong) parser.problem_mark.line + 1,
                   parser.problem != NULL ? parser.problem : "syntax error",
                   parser.context != NULL ? " (" : "",
                   parser.context != NULL ? parser.context : "",
                   parser.context != NULL ? ")" : "");
      yaml_parser_delete (&parser);
      return FALSE;
    }
  yaml_parser_delete (&parser);
  yaml_node_t *lists[NET_KEY_N] = { NULL };
  gboolean ok = net_yaml_lists (path, &doc, lists, error)
                && net_yaml_convert (path, &doc, lists, spec, error);
  yaml_document_delete (&doc);
  return ok;
}
