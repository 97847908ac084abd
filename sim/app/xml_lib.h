/* xml_lib.h: libxml2, opened on first use rather than linked.
 *
 * build/orrery does not link libxml2: the library and what it drags in
 * (ICU's libicuuc and libicudata, libstdc++, liblzma) cost every process
 * about 1.5 ms of CPU and 3.7 M instructions at start-up, a tenth of a
 * whole Llama-2 run from ASTRA-sim inputs (YAML and JSON), which never
 * reads XML (sim/README.md, "Start-up: libxml2 opened on first use").
 * The first call of a libxml2 function made through this header
 * dlopen()s the library and resolves every symbol listed below; a library
 * or symbol that cannot be found is reported by name ("orrery: cannot load
 * libxml2 (libxml2.so.2), which XML inputs need: ...") and the process
 * exits with status 1.  libxml2's headers still give the types, so a
 * build needs libxml2-dev as before.
 *
 * How: each function is called through a pointer in AppXmlLib, and a macro
 * of the function's own name (below) turns a call "xmlFreeDoc (doc)" into
 * one through that pointer, so the code that uses libxml2 reads as
 * libxml2's.  Include this header, never libxml2's own, where libxml2 is
 * called: a call that bypasses it is an undefined reference at link time,
 * and a symbol used without a row in APP_XML_FUNCTIONS and a macro does
 * not compile.  xmlFree is a variable (a pointer to libxml2's free
 * function), resolved as one.
 *
 * Ownership: the library stays open until the process ends; the table is
 * shared, read-only once filled, and safe to use from any thread.
 *
 * Layer: sim/app.  May include: GLib, libxml2.
 */
#ifndef ORRERY_SIM_APP_XML_LIB_H
#define ORRERY_SIM_APP_XML_LIB_H

#include <glib.h>
#include <libxml/globals.h>
#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

/* The library's file name: libxml2 2.14 bumped its soname (its NEWS:
 * "the soname was bumped from libxml2.so.2 to libxml2.so.16"). */
#if LIBXML_VERSION >= 21400
#define APP_XML_SONAME "libxml2.so.16"
#else
#define APP_XML_SONAME "libxml2.so.2"
#endif

/* Every libxml2 function orrery and its tests call, once each. */
#define APP_XML_FUNCTIONS(X)                                                                   \
  X (xmlCtxtGetLastError)                                                                      \
  X (xmlCtxtReadMemory)                                                                        \
  X (xmlDocCopyNode)                                                                           \
  X (xmlDocDumpMemory)                                                                         \
  X (xmlDocGetRootElement)                                                                     \
  X (xmlDocSetRootElement)                                                                     \
  X (xmlEncodeSpecialChars)                                                                    \
  X (xmlFreeDoc)                                                                               \
  X (xmlFreeParserCtxt)                                                                        \
  X (xmlGetLineNo)                                                                             \
  X (xmlGetNoNsProp)                                                                           \
  X (xmlGetProp)                                                                               \
  X (xmlHasProp)                                                                               \
  X (xmlInitParser)                                                                            \
  X (xmlNewDoc)                                                                                \
  X (xmlNewParserCtxt)                                                                         \
  X (xmlNodeGetContent)                                                                        \
  X (xmlNodeSetContent)                                                                        \
  X (xmlReadFile)                                                                              \
  X (xmlReadMemory)                                                                            \
  X (xmlRelaxNGFree)                                                                           \
  X (xmlRelaxNGFreeParserCtxt)                                                                 \
  X (xmlRelaxNGFreeValidCtxt)                                                                  \
  X (xmlRelaxNGNewMemParserCtxt)                                                               \
  X (xmlRelaxNGNewValidCtxt)                                                                   \
  X (xmlRelaxNGParse)                                                                          \
  X (xmlRelaxNGSetParserStructuredErrors)                                                      \
  X (xmlRelaxNGSetValidStructuredErrors)                                                       \
  X (xmlRelaxNGValidateDoc)                                                                    \
  X (xmlSetGenericErrorFunc)                                                                   \
  X (xmlSetListDoc)                                                                            \
  X (xmlSetProp)                                                                               \
  X (xmlSetStructuredErrorFunc)                                                                \
  X (xmlStrEqual)                                                                              \
  X (xmlXPathEvalExpression)                                                                   \
  X (xmlXPathFreeContext)                                                                      \
  X (xmlXPathFreeObject)                                                                       \
  X (xmlXPathNewContext)                                                                       \
  X (xmlXPathRegisterNs)

/* The resolved library: a pointer per function (fn_ and its name), of the
 * type libxml2's header declares, and the address of the variable xmlFree.
 * The prefix keeps a member's name from being taken for the macro below. */
#define APP_XML_MEMBER(name) __typeof__ (name) *fn_##name;
typedef struct
{
  APP_XML_FUNCTIONS (APP_XML_MEMBER)
  xmlFreeFunc *xmlFree_var;
} AppXmlLib;
#undef APP_XML_MEMBER

/* The library, opened and resolved at the first call (any thread; later
 * calls return the same table).  Exits the process with status 1 and a
 * message naming the library or symbol when it cannot be loaded. */
const AppXmlLib *app_xml_lib (void);

/* Calls by libxml2's names go through the table.  A macro's own name in
 * its expansion is not expanded again, so __typeof__ above and these
 * expansions refer to libxml2's declarations. */
#define xmlCtxtGetLastError (app_xml_lib ()->fn_xmlCtxtGetLastError)
#define xmlCtxtReadMemory (app_xml_lib ()->fn_xmlCtxtReadMemory)
#define xmlDocCopyNode (app_xml_lib ()->fn_xmlDocCopyNode)
#define xmlDocDumpMemory (app_xml_lib ()->fn_xmlDocDumpMemory)
#define xmlDocGetRootElement (app_xml_lib ()->fn_xmlDocGetRootElement)
#define xmlDocSetRootElement (app_xml_lib ()->fn_xmlDocSetRootElement)
#define xmlEncodeSpecialChars (app_xml_lib ()->fn_xmlEncodeSpecialChars)
#define xmlFreeDoc (app_xml_lib ()->fn_xmlFreeDoc)
#define xmlFreeParserCtxt (app_xml_lib ()->fn_xmlFreeParserCtxt)
#define xmlGetLineNo (app_xml_lib ()->fn_xmlGetLineNo)
#define xmlGetNoNsProp (app_xml_lib ()->fn_xmlGetNoNsProp)
#define xmlGetProp (app_xml_lib ()->fn_xmlGetProp)
#define xmlHasProp (app_xml_lib ()->fn_xmlHasProp)
#define xmlInitParser (app_xml_lib ()->fn_xmlInitParser)
#define xmlNewDoc (app_xml_lib ()->fn_xmlNewDoc)
#define xmlNewParserCtxt (app_xml_lib ()->fn_xmlNewParserCtxt)
#define xmlNodeGetContent (app_xml_lib ()->fn_xmlNodeGetContent)
#define xmlNodeSetContent (app_xml_lib ()->fn_xmlNodeSetContent)
#define xmlReadFile (app_xml_lib ()->fn_xmlReadFile)
#define xmlReadMemory (app_xml_lib ()->fn_xmlReadMemory)
#define xmlRelaxNGFree (app_xml_lib ()->fn_xmlRelaxNGFree)
#define xmlRelaxNGFreeParserCtxt (app_xml_lib ()->fn_xmlRelaxNGFreeParserCtxt)
#define xmlRelaxNGFreeValidCtxt (app_xml_lib ()->fn_xmlRelaxNGFreeValidCtxt)
#define xmlRelaxNGNewMemParserCtxt (app_xml_lib ()->fn_xmlRelaxNGNewMemParserCtxt)
#define xmlRelaxNGNewValidCtxt (app_xml_lib ()->fn_xmlRelaxNGNewValidCtxt)
#define xmlRelaxNGParse (app_xml_lib ()->fn_xmlRelaxNGParse)
#define xmlRelaxNGSetParserStructuredErrors (app_xml_lib ()->fn_xmlRelaxNGSetParserStructuredErrors)
#define xmlRelaxNGSetValidStructuredErrors (app_xml_lib ()->fn_xmlRelaxNGSetValidStructuredErrors)
#define xmlRelaxNGValidateDoc (app_xml_lib ()->fn_xmlRelaxNGValidateDoc)
#define xmlSetGenericErrorFunc (app_xml_lib ()->fn_xmlSetGenericErrorFunc)
#define xmlSetListDoc (app_xml_lib ()->fn_xmlSetListDoc)
#define xmlSetProp (app_xml_lib ()->fn_xmlSetProp)
#define xmlSetStructuredErrorFunc (app_xml_lib ()->fn_xmlSetStructuredErrorFunc)
#define xmlStrEqual (app_xml_lib ()->fn_xmlStrEqual)
#define xmlXPathEvalExpression (app_xml_lib ()->fn_xmlXPathEvalExpression)
#define xmlXPathFreeContext (app_xml_lib ()->fn_xmlXPathFreeContext)
#define xmlXPathFreeObject (app_xml_lib ()->fn_xmlXPathFreeObject)
#define xmlXPathNewContext (app_xml_lib ()->fn_xmlXPathNewContext)
#define xmlXPathRegisterNs (app_xml_lib ()->fn_xmlXPathRegisterNs)

/* libxml2 declares xmlFree as a variable holding its free function (or,
 * built with per-thread allocators, as a macro over one): the global
 * variable is read, which holds free() unless xmlMemSetup changed it, and
 * orrery never calls that. */
#undef xmlFree
#define xmlFree (*app_xml_lib ()->xmlFree_var)

#endif /* ORRERY_SIM_APP_XML_LIB_H */
