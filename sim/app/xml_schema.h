/* xml_schema.h: reading an XML input file and validating it against a
 * RelaxNG schema compiled into the binary, with every message located as
 * "FILE:LINE: message".
 *
 * It models what the XML loaders share (the cluster config,
 * configs/cluster.rng, in config_xml.c; the sweep spec, configs/sweep.rng,
 * in sweep_spec.c): libxml2 parses without the network and keeps line
 * numbers past 65535, its own printing to stderr is off, and its messages
 * come back in a GError of SIM_ERROR_INPUT.  A document with a <!DOCTYPE>
 * is refused: the schemas need none, and its entities would be expanded at
 * every read of an attribute that uses them.  The walks that follow
 * validation stay with each loader; they report at a node with
 * app_xml_fail_at, so that their messages and the validator's read alike.
 *
 * Ownership: a document returned is the caller's (xmlFreeDoc, or
 * g_autoptr (xmlDoc), whose cleanup is defined here once for sim/app);
 * paths, texts and schemas are borrowed for the call.
 *
 * Layer: sim/app.  May include: sim (errors), GLib, libxml2.
 */
#ifndef ORRERY_SIM_APP_XML_SCHEMA_H
#define ORRERY_SIM_APP_XML_SCHEMA_H

#include <glib.h>
#include <stdarg.h>

#include "sim/app/xml_lib.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlDoc, xmlFreeDoc)

/* libxml2 2.12 made the error structures it hands out const: the type of a
 * structured error handler's second parameter is APP_XML_ERROR_CONST
 * xmlError *. */
#if LIBXML_VERSION >= 21200
#define APP_XML_ERROR_CONST const
#else
#define APP_XML_ERROR_CONST
#endif

/* Located validation messages kept by APP_XML_REPORT_SEVERAL: enough to
 * find several typos in one run. */
#define APP_XML_MAX_MESSAGES 3

/* A schema compiled into the binary (build/gen/NAME_rng.h). */
typedef struct
{
  const char *name;         /* its source, for messages: "configs/cluster.rng" */
  const unsigned char *rng; /* its text, not NUL-terminated */
  gsize len;                /* bytes in rng */
} AppXmlSchema;

/* How a failed validation reads. */
typedef enum
{
  /* Up to APP_XML_MAX_MESSAGES "FILE:LINE: message" lines, then
   * "(N more)"; with none located, the first "FILE: message", else
   * "does not match NAME". */
  APP_XML_REPORT_SEVERAL,
  /* One line: the first "FILE:LINE: message" (else the first
   * "FILE: message", else "FILE"), then " (does not match NAME)". */
  APP_XML_REPORT_FIRST,
} AppXmlReport;

/* Parse the file at path.  NULL with an error when it cannot be read (the
 * GLib message, which names it), is over G_MAXINT bytes ("FILE: file too
 * large") or is not well-formed ("FILE:LINE: message", libxml2's last). */
xmlDoc *app_xml_read (const char *path, GError **error);

/* The same for text already read from path (len bytes); path names it in
 * the document and in messages. */
xmlDoc *app_xml_read_text (const char *path, const char *text, gsize len, GError **error);

/* Validate doc (read from path) against schema: FALSE with the validator's
 * messages, shaped as report says, in an error.  A schema that does not
 * compile is a bug in the program and aborts. */
gboolean app_xml_validate (const char *path, xmlDoc *doc, const AppXmlSchema *schema,
                           AppXmlReport report, GError **error);

/* The same, with the content of the root's first child of each name in
 * `apart` (NULL-terminated; each also the name of the schema's definition
 * of that element) validated on its own, against the schema started at
 * that definition, and the rest with that content left out (which the
 * schema must allow).  libxml2's validator is quadratic in the content of
 * an element inside an <interleave>: long lists go apart.  The document is
 * as it was afterwards. */
gboolean app_xml_validate_apart (const char *path, xmlDoc *doc, const AppXmlSchema *schema,
                                 const char *const *apart, AppXmlReport report,
                                 GError **error);

/* Set "FILE:LINE: <element>: message", the line node's in the document
 * read from path, and return FALSE: how the loaders' walks report what
 * they find wrong. */
gboolean app_xml_fail_at (const char *path, const xmlNode *node, GError **error,
                          const char *format, ...) G_GNUC_PRINTF (4, 5);
/* The same with the arguments in a va_list, for loaders' own wrappers. */
gboolean app_xml_fail_valist (const char *path, const xmlNode *node, GError **error,
                              const char *format, va_list ap) G_GNUC_PRINTF (4, 0);

/* Is node the element `name`? */
gboolean app_xml_is (const xmlNode *node, const char *name);
/* The first child element `name` of node, or NULL. */
const xmlNode *app_xml_child (const xmlNode *node, const char *name);

/* An attribute's value (caller frees), or NULL. */
char *app_xml_attr (const xmlNode *node, const char *name);

/* The names of LIST (NULL-terminated) as "a, b, c", for messages that say
 * what is known (caller frees). */
char *app_xml_list_join (const char *const *list);

/* What an element may hold, for app_xml_check_element. */
typedef struct
{
  const char *const *attrs;    /* its attributes, NULL-terminated; NULL: none */
  const char *const *children; /* its child elements, NULL-terminated; NULL: none */
  const char *repeatable;      /* the child that may repeat; "*": all; NULL: none */
} AppXmlShape;

/* Every attribute of node and every child element is in SHAPE, each child
 * at most once unless repeatable: else FALSE with the first offence
 * located as app_xml_fail_at does, naming what is allowed. */
gboolean app_xml_check_element (const char *path, const xmlNode *node, const AppXmlShape *shape,
                                GError **error);

#endif /* ORRERY_SIM_APP_XML_SCHEMA_H */
