/* config_xml_attr.c: reading the nodes and attributes of the cluster XML
 * (config_xml_private.h): located errors ("FILE:LINE: <element>: ..."),
 * the attributes an element may have, and each attribute converted with
 * its unit (sim/units.h) and checked against its range.
 */
#include "sim/app/config_xml_private.h"

#include <string.h>

#include "sim/error.h"
#include "sim/units.h"

/* ------------------------------------------------------------------------ */
/* Nodes and attributes                                                     */

/* Set an error located at node: "FILE:LINE: <element>: message". */
gboolean
app_xml_fail (XmlLoad *l, const xmlNode *node, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  app_xml_fail_valist (l->path, node, error, format, ap);
  va_end (ap);
  return FALSE;
}

/* Every attribute of node is in attrs and every child element in children
 * (both NULL-terminated), each child at most once unless repeatable. */
gboolean
app_xml_check_node (XmlLoad *l, const xmlNode *node, const char *const *attrs,
                    const char *const *children, const char *repeatable, GError **error)
{
  const AppXmlShape shape = { attrs, children, repeatable };
  return app_xml_check_element (l->path, node, &shape, error);
}

/* The text of an attribute; *text stays NULL for an absent optional one. */
gboolean
app_xml_attr_text (XmlLoad *l, const xmlNode *node, const char *name, gboolean required, char **text,
                   GError **error)
{
  *text = app_xml_attr (node, name);
  if (*text == NULL && required)
    return app_xml_fail (l, node, error, "missing attribute '%s'", name);
  return TRUE;
}

gboolean
app_xml_attr_located (XmlLoad *l, const xmlNode *node, const char *name, GError **error)
{
  sim_error_prefix (error, "%s:%ld: <%s %s>: ", l->path, xmlGetLineNo (node),
                    (const char *) node->name, name);
  return FALSE;
}

gboolean
app_xml_attr_time (XmlLoad *l, const xmlNode *node, const char *name, gboolean required, SimTime *out,
                   GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, required, &text, error))
    return FALSE;
  if (text != NULL && !sim_units_parse_time (text, out, error))
    return app_xml_attr_located (l, node, name, error);
  return TRUE;
}

gboolean
app_xml_attr_bandwidth (XmlLoad *l, const xmlNode *node, const char *name, gboolean required,
                        double *out, GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, required, &text, error))
    return FALSE;
  if (text != NULL && !sim_units_parse_bandwidth (text, out, error))
    return app_xml_attr_located (l, node, name, error);
  return TRUE;
}

gboolean
app_xml_attr_bytes (XmlLoad *l, const xmlNode *node, const char *name, guint64 *out, GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, FALSE, &text, error))
    return FALSE;
  if (text != NULL && !sim_units_parse_bytes (text, out, error))
    return app_xml_attr_located (l, node, name, error);
  return TRUE;
}

gboolean
app_xml_attr_flops (XmlLoad *l, const xmlNode *node, const char *name, double *out, GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, FALSE, &text, error))
    return FALSE;
  if (text != NULL && !sim_units_parse_flops (text, out, error))
    return app_xml_attr_located (l, node, name, error);
  return TRUE;
}

/* A whole number in [min, max]. */
gboolean
app_xml_attr_uint (XmlLoad *l, const xmlNode *node, const char *name, gboolean required, guint min,
                   guint max, guint *out, GError **error)
{
  g_autofree char *text = NULL;
  if (!app_xml_attr_text (l, node, name, required, &text, error))
    return FALSE;
  guint64 v = 0;
  if (text == NULL)
    return TRUE;
  if (!g_ascii_string_to_unsigned (text, 10, min, max, &v, NULL))
    return app_xml_fail (l, node, error, "%s '%s' is not a whole number from %u to %u", name, text,
                     min, max);
  *out = (guint) v;
  return TRUE;
}

/* One of names (NULL-terminated): its index, or -1 when absent. */
gboolean
app_xml_attr_choice (XmlLoad *l, const xmlNode *node, const char *name, const char *const *names,
                     int *out, GError **error)
{
  g_autofree char *text = NULL;
  *out = -1;
  if (!app_xml_attr_text (l, node, name, FALSE, &text, error))
    return FALSE;
  if (text == NULL)
    return TRUE;
  for (int i = 0; names[i] != NULL; i++)
    if (strcmp (text, names[i]) == 0)
      {
        *out = i;
        return TRUE;
      }
  g_autofree char *known = app_xml_list_join (names);
  return app_xml_fail (l, node, error, "%s '%s' is not one of: %s", name, text, known);
}

