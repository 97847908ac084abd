/* xml_schema.c: reading an XML file, validating it against a compiled-in
 * RelaxNG schema and reporting at a node, messages located as FILE:LINE;
 * the contract is in sim/app/xml_schema.h.
 *
 * libxml2 reports through structured error handlers: the parser's first
 * error is kept by the handler (its context keeps only the last), and the
 * validator's messages are collected as they come, with the line taken from
 * the node when the message carries none.
 */
#include "sim/app/xml_schema.h"

#include "sim/app/config.h"
#include "sim/app/xml_lib.h"
#include "sim/error.h"

G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlParserCtxt, xmlFreeParserCtxt)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlRelaxNGParserCtxt, xmlRelaxNGFreeParserCtxt)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlRelaxNG, xmlRelaxNGFree)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (xmlRelaxNGValidCtxt, xmlRelaxNGFreeValidCtxt)

/* ------------------------------------------------------------------------ */
/* Reading                                                                  */

xmlDoc *
app_xml_read (const char *path, GError **error)
{
  g_return_val_if_fail (path != NULL, NULL);
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!app_config_read_file (path, &text, &len, error))
    return NULL;
  return app_xml_read_text (path, text, len, error);
}

/* A libxml2 message as one line of orrery's: some hold a newline ("Input is
 * not proper UTF-8, ...\nBytes: 0xC3 0x28"), folded into "; ". */
static char *
one_line (const char *message)
{
  g_auto (GStrv) parts = g_strsplit (message, "\n", -1);
  for (char **p = parts; *p != NULL; p++)
    g_strstrip (*p);
  g_autoptr (GPtrArray) kept = g_ptr_array_new ();
  for (char **p = parts; *p != NULL; p++)
    if (**p != '\0')
      g_ptr_array_add (kept, *p);
  g_ptr_array_add (kept, NULL);
  return g_strjoinv ("; ", (char **) kept->pdata);
}

/* The first error of a parse: libxml2 goes on after a well-formedness
 * error, and its context keeps the last one, which is seldom the mistake
 * (a tag left open at line 4 is reported as "Premature end of data" at the
 * file's last line). */
typedef struct
{
  int line;
  char *message;
} FirstError;

/* The parser's structured handler (DATA: the context, whose _private is the
 * FirstError): keeps the first error, warnings aside. */
static void
keep_first_error (void *data, APP_XML_ERROR_CONST xmlError *err)
{
  FirstError *first = ((xmlParserCtxt *) data)->_private;
  if (first->message == NULL && err->level >= XML_ERR_ERROR && err->message != NULL)
    {
      first->line = err->line;
      first->message = one_line (err->message);
    }
}

/* ERROR set to "PATH:LINE: MESSAGE" for a parse that failed: FIRST's error,
 * else the context's last, else a generic one. */
static void
set_parse_error (const char *path, xmlParserCtxt *ctxt, const FirstError *first, GError **error)
{
  APP_XML_ERROR_CONST xmlError *e = xmlCtxtGetLastError (ctxt);
  int line = first->message != NULL ? first->line : e != NULL ? e->line : 1;
  g_autofree char *msg = first->message != NULL ? g_strdup (first->message)
                         : one_line (e != NULL && e->message != NULL ? e->message
                                                                     : "not well-formed XML");
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%d: %s", path, MAX (line, 1), msg);
}

xmlDoc *
app_xml_read_text (const char *path, const char *text, gsize len, GError **error)
{
  g_return_val_if_fail (path != NULL && text != NULL, NULL);
  if (len > G_MAXINT)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: file too large", path);
      return NULL;
    }
  xmlInitParser ();
  g_autoptr (xmlParserCtxt) ctxt = xmlNewParserCtxt ();
  if (ctxt == NULL)
    g_error ("libxml2: out of memory");
  FirstError first = { 0, NULL };
  ctxt->_private = &first;
  ctxt->sax->serror = keep_first_error;
  xmlDoc *doc = xmlCtxtReadMemory (ctxt, text, (int) len, path, NULL,
                                   XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING
                                       | XML_PARSE_BIG_LINES);
  if (doc == NULL)
    set_parse_error (path, ctxt, &first, error);
  else if (doc->intSubset != NULL || doc->extSubset != NULL)
    {
      /* Entities are not substituted while parsing, but every later read of
       * an attribute expands them again: one entity used 4,000 times took
       * 57 s and 400 MB.  The schemas need no DTD, so none is accepted. */
      const char *at = g_strstr_len (text, (gssize) len, "<!DOCTYPE");
      guint line = 1;
      for (const char *p = text; at != NULL && p < at; p++)
        line += *p == '\n';
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "%s:%u: <!DOCTYPE> is not accepted: the schema needs no DTD or entities",
                   path, line);
      xmlFreeDoc (doc);
      doc = NULL;
    }
  g_free (first.message);
  return doc;
}

/* ------------------------------------------------------------------------ */
/* Validating                                                               */

typedef struct
{
  const char *path;
  GPtrArray *lined; /* char *: the first "FILE:LINE: message"s, up to the limit */
  guint n_lined;    /* all located messages, kept or not */
  char *unlined;    /* the first message without a line */
} XmlErrors;

static void
xml_errors_collect (void *data, APP_XML_ERROR_CONST xmlError *err)
{
  XmlErrors *errs = data;
  long line = err->line;
  if (line <= 0 && err->node != NULL)
    line = xmlGetLineNo ((xmlNode *) err->node);
  g_autofree char *msg = one_line (err->message != NULL ? err->message : "invalid");
  if (line <= 0)
    {
      if (errs->unlined == NULL)
        errs->unlined = g_strdup_printf ("%s: %s", errs->path, msg);
      return;
    }
  if (++errs->n_lined > APP_XML_MAX_MESSAGES)
    return;
  g_ptr_array_add (errs->lined, g_strdup_printf ("%s:%ld: %s", errs->path, line, msg));
}

/* The kept located messages, one a line (caller frees). */
static char *
xml_errors_join (const XmlErrors *errs)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < errs->lined->len; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? "\n" : "", (const char *) errs->lined->pdata[i]);
  return g_string_free (s, FALSE);
}

/* The message of a failed validation, shaped as report says (caller
 * frees). */
static char *
xml_errors_message (const XmlErrors *errs, const AppXmlSchema *schema, AppXmlReport report)
{
  if (report == APP_XML_REPORT_FIRST)
    return g_strdup_printf ("%s (does not match %s)",
                            errs->lined->len > 0 ? (const char *) errs->lined->pdata[0]
                            : errs->unlined != NULL ? errs->unlined
                                                    : errs->path,
                            schema->name);
  if (errs->lined->len == 0)
    return errs->unlined != NULL ? g_strdup (errs->unlined)
                                 : g_strdup_printf ("does not match %s", schema->name);
  char *lines = xml_errors_join (errs);
  if (errs->n_lined <= APP_XML_MAX_MESSAGES)
    return lines;
  char *more = g_strdup_printf ("%s\n(%u more)", lines, errs->n_lined - APP_XML_MAX_MESSAGES);
  g_free (lines);
  return more;
}

gboolean
app_xml_validate (const char *path, xmlDoc *doc, const AppXmlSchema *schema,
                  AppXmlReport report, GError **error)
{
  g_return_val_if_fail (path != NULL && doc != NULL && schema != NULL, FALSE);
  g_return_val_if_fail (schema->len <= G_MAXINT, FALSE);
  XmlErrors errs = { path, g_ptr_array_new_with_free_func (g_free), 0, NULL };
  g_autoptr (xmlRelaxNGParserCtxt) pctxt
      = xmlRelaxNGNewMemParserCtxt ((const char *) schema->rng, (int) schema->len);
  xmlRelaxNGSetParserStructuredErrors (pctxt, xml_errors_collect, &errs);
  g_autoptr (xmlRelaxNG) rng = xmlRelaxNGParse (pctxt);
  /* The schema is part of the program: failing to compile it is a bug. */
  if (rng == NULL)
    {
      g_autofree char *why = xml_errors_join (&errs);
      g_error ("%s does not compile: %s", schema->name,
               errs.lined->len > 0 ? why : errs.unlined != NULL ? errs.unlined : "");
    }
  g_autoptr (xmlRelaxNGValidCtxt) vctxt = xmlRelaxNGNewValidCtxt (rng);
  xmlRelaxNGSetValidStructuredErrors (vctxt, xml_errors_collect, &errs);
  gboolean ok = xmlRelaxNGValidateDoc (vctxt, doc) == 0;
  if (!ok)
    {
      g_autofree char *msg = xml_errors_message (&errs, schema, report);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s", msg);
    }
  g_ptr_array_unref (errs.lined);
  g_free (errs.unlined);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Located errors                                                           */

gboolean
app_xml_fail_valist (const char *path, const xmlNode *node, GError **error, const char *format,
                     va_list ap)
{
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s:%ld: <%s>: %s", path, xmlGetLineNo (node),
               (const char *) node->name, msg);
  return FALSE;
}

gboolean
app_xml_fail_at (const char *path, const xmlNode *node, GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  app_xml_fail_valist (path, node, error, format, ap);
  va_end (ap);
  return FALSE;
}

gboolean
app_xml_is (const xmlNode *node, const char *name)
{
  return node->type == XML_ELEMENT_NODE && strcmp ((const char *) node->name, name) == 0;
}

char *
app_xml_attr (const xmlNode *node, const char *name)
{
  xmlChar *v = xmlGetNoNsProp (node, (const xmlChar *) name);
  if (v == NULL)
    return NULL;
  char *s = g_strdup ((const char *) v);
  xmlFree (v);
  return s;
}

const xmlNode *
app_xml_child (const xmlNode *node, const char *name)
{
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    if (app_xml_is (c, name))
      return c;
  return NULL;
}

char *
app_xml_list_join (const char *const *list)
{
  return g_strjoinv (", ", (char **) list);
}

gboolean
app_xml_check_element (const char *path, const xmlNode *node, const AppXmlShape *shape,
                       GError **error)
{
  static const char *const none[] = { NULL };
  const char *const *attrs = shape->attrs != NULL ? shape->attrs : none;
  const char *const *children = shape->children != NULL ? shape->children : none;
  const char *repeatable = shape->repeatable;
  /* The names seen so far: a walk back over the earlier children for each
   * one was quadratic in a long list. */
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  for (const xmlAttr *a = node->properties; a != NULL; a = a->next)
    if (!g_strv_contains (attrs, (const char *) a->name))
      {
        g_autofree char *known = app_xml_list_join (attrs);
        return app_xml_fail_at (path, node, error, "unknown attribute '%s' (expected: %s)",
                                (const char *) a->name, *attrs != NULL ? known : "none");
      }
  for (const xmlNode *c = node->children; c != NULL; c = c->next)
    {
      if (c->type != XML_ELEMENT_NODE)
        continue;
      const char *name = (const char *) c->name;
      if (!g_strv_contains (children, name))
        {
          g_autofree char *known = app_xml_list_join (children);
          return app_xml_fail_at (path, c, error, "unexpected element in <%s> (expected: %s)",
                                  (const char *) node->name, *children != NULL ? known : "none");
        }
      /* "*": every child may repeat. */
      if (g_strcmp0 (repeatable, name) == 0 || g_strcmp0 (repeatable, "*") == 0)
        continue;
      if (!g_hash_table_add (seen, (gpointer) name))
        return app_xml_fail_at (path, c, error, "only one <%s> is allowed", name);
    }
  return TRUE;
}

/* schema started at its definition NAME instead of its <start> (caller
 * frees). */
static char *
schema_text_at (const AppXmlSchema *schema, const char *name, gsize *len)
{
  const char *text = (const char *) schema->rng;
  const char *start = g_strstr_len (text, (gssize) schema->len, "<start>");
  const char *end = start != NULL ? g_strstr_len (start, text + schema->len - start, "</start>")
                                  : NULL;
  g_assert (end != NULL); /* the schema is part of the program */
  char *s = g_strdup_printf ("%.*s<start><ref name=\"%s\"/>%.*s", (int) (start - text), text,
                             name, (int) (text + schema->len - end), end);
  *len = strlen (s);
  return s;
}

/* Move FROM's children under TO (whose document is DOC), in order. */
static void
move_children (xmlNode *from, xmlNode *to, xmlDoc *doc)
{
  to->children = from->children;
  to->last = from->last;
  from->children = from->last = NULL;
  for (xmlNode *c = to->children; c != NULL; c = c->next)
    c->parent = to;
  xmlSetListDoc (to->children, doc);
}

gboolean
app_xml_validate_apart (const char *path, xmlDoc *doc, const AppXmlSchema *schema,
                        const char *const *apart, AppXmlReport report, GError **error)
{
  guint n = g_strv_length ((char **) apart);
  xmlNode *root = xmlDocGetRootElement (doc);
  g_autofree xmlNode **node = g_new0 (xmlNode *, n);
  g_autofree xmlDoc **alone = g_new0 (xmlDoc *, n);
  for (guint i = 0; root != NULL && i < n; i++)
    {
      node[i] = (xmlNode *) app_xml_child (root, apart[i]);
      if (node[i] == NULL)
        continue;
      alone[i] = xmlNewDoc ((const xmlChar *) "1.0");
      xmlNode *copy = xmlDocCopyNode (node[i], alone[i], 2); /* attributes, no content */
      xmlDocSetRootElement (alone[i], copy);
      move_children (node[i], copy, alone[i]);
    }
  gboolean ok = app_xml_validate (path, doc, schema, report, error);
  for (guint i = 0; i < n; i++)
    {
      if (alone[i] == NULL)
        continue;
      gsize len = 0;
      g_autofree char *text = schema_text_at (schema, apart[i], &len);
      const AppXmlSchema part = { schema->name, (const unsigned char *) text, len };
      xmlNode *copy = xmlDocGetRootElement (alone[i]);
      ok = ok && app_xml_validate (path, alone[i], &part, report, error);
      move_children (copy, node[i], doc);
      xmlFreeDoc (alone[i]);
    }
  return ok;
}
