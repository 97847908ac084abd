/* xml_lib.c: opening libxml2 on first use and resolving the functions
 * orrery calls; the contract, and why, are in sim/app/xml_lib.h.
 */
#include "sim/app/xml_lib.h"

#include <dlfcn.h>
#include <stdlib.h>

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
      void *handle = dlopen (APP_XML_SONAME, RTLD_NOW | RTLD_LOCAL);
      if (handle == NULL)
        {
          const char *why = dlerror ();
          g_printerr ("orrery: cannot load libxml2 (%s), which XML inputs need: %s\n",
                      APP_XML_SONAME, why != NULL ? why : "not found");
          exit (1);
        }
      /* dlsym's object pointer converted to a function pointer: POSIX
       * requires the conversion to work (XSH dlsym, "Application Usage"). */
#define APP_XML_RESOLVE(name) lib.fn_##name = (__typeof__ (lib.fn_##name)) need (handle, #name);
      APP_XML_FUNCTIONS (APP_XML_RESOLVE)
#undef APP_XML_RESOLVE
      lib.xmlFree_var = need (handle, "xmlFree");
      g_once_init_leave (&done, &lib);
    }
  return done;
}
