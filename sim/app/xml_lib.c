/* xml_lib.c: opening libxml2 on first use and resolving the functions
 * orrery calls; the contract, and why, are in sim/app/xml_lib.h.
 */
#include "sim/app/xml_lib.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

/* Each function's name and its pointer's place in AppXmlLib. */
static const struct
{
  const char *name;
  gsize offset;
} functions[] = {
#define APP_XML_ROW(name) { #name, G_STRUCT_OFFSET (AppXmlLib, fn_##name) },
  APP_XML_FUNCTIONS (APP_XML_ROW)
#undef APP_XML_ROW
};

/* A symbol of the open library, or exit 1 naming it. */
static void *
need (void *handle, const char *name)
{
  dlerror ();
  void *p = dlsym (handle, name);
  if (p == NULL)
    {
      const char *why = dlerror ();
      g_printerr ("orrery: cannot load libxml2 (%s), which XML inputs need: no symbol %s (%s)\n",
                  APP_XML_SONAME, name, why != NULL ? why : "dlsym gave NULL");
      exit (1);
    }
  return p;
}

const AppXmlLib *
app_xml_lib (void)
{
  /* Filled once, under g_once: the only writer; readers see it complete. */
  static AppXmlLib lib;
  static const AppXmlLib *done;
  if (g_once_init_enter (&done))
    {
      /* Lazy binding: libxml2's own calls are bound as they are first
       * made, as when it was linked (immediate binding cost an XML run
       * 1.9 M instructions more: sim/README.md, "Start-up: libxml2
       * opened on first use"). */
      void *handle = dlopen (APP_XML_SONAME, RTLD_LAZY | RTLD_LOCAL);
      if (handle == NULL)
        {
          const char *why = dlerror ();
          g_printerr ("orrery: cannot load libxml2 (%s), which XML inputs need: %s\n",
                      APP_XML_SONAME, why != NULL ? why : "not found");
          exit (1);
        }
      /* dlsym's object pointer stored as a function pointer: POSIX
       * requires the two to convert (XSH dlsym, "Application Usage"). */
      for (gsize i = 0; i < G_N_ELEMENTS (functions); i++)
        {
          void *p = need (handle, functions[i].name);
          memcpy ((char *) &lib + functions[i].offset, &p, sizeof p);
        }
      lib.xmlFree_var = need (handle, "xmlFree");
      g_once_init_leave (&done, &lib);
    }
  return done;
}
