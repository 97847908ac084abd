/* fuzz_chakra_json.c: libFuzzer target for Chakra traces in JSON
 * (workload/chakra_json.c: wl_chakra_json_to_et, and wl_chakra_convert
 * both ways).
 *
 * Input: the JSON's bytes.  What reads as a trace must convert to a .et
 * that the binary reader reads to the end, and round-trip: that .et written
 * as JSON and read back gives the same bytes (aborts when not).
 *
 * Layer: tests.  May include: workload, GLib.
 */
#include <string.h>

#include "fuzz_common.h"
#include "workload/chakra.h"
#include "workload/chakra_json.h"

/* Every node of the .et BYTES, read to the end without an error. */
static void
read_all (GBytes *bytes)
{
  gsize len = 0;
  const guint8 *data = g_bytes_get_data (bytes, &len);
  static const guint8 none[1];
  GError *error = NULL;
  WlChakraReader *r = wl_chakra_reader_open_bytes ("t.et", data != NULL ? data : none, len,
                                                   WL_CHAKRA_ALLOW_EMPTY, &error);
  if (r == NULL)
    g_error ("fuzz: converted JSON does not open as .et: %s", error->message);
  ChakraProtoMsg__Node *n;
  while ((n = wl_chakra_reader_next (r, &error)) != NULL)
    wl_chakra_node_free (n);
  if (error != NULL)
    g_error ("fuzz: converted JSON does not read as .et: %s", error->message);
  wl_chakra_reader_free (r);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  GBytes *et = wl_chakra_json_to_et ("t.json", (const char *) data, size, &error);
  g_clear_error (&error);
  if (et != NULL && g_bytes_get_size (et) > 0)
    {
      read_all (et);
      char *in = fuzz_write ("t.et", g_bytes_get_data (et, NULL), g_bytes_get_size (et));
      char *json = g_build_filename (fuzz_tmpdir (), "t2.json", NULL);
      char *back = g_build_filename (fuzz_tmpdir (), "t2.et", NULL);
      /* Writing JSON may refuse (a string that is not UTF-8); reading what
       * was written may not. */
      if (wl_chakra_convert (in, json, &error))
        {
          if (!wl_chakra_convert (json, back, &error))
            g_error ("fuzz: JSON orrery wrote does not read back: %s", error->message);
          gchar *a = NULL, *b = NULL;
          gsize la = 0, lb = 0;
          if (!g_file_get_contents (in, &a, &la, NULL) || !g_file_get_contents (back, &b, &lb, NULL)
              || la != lb || memcmp (a, b, la) != 0)
            g_error ("fuzz: .et -> JSON -> .et changed the bytes");
          g_free (a);
          g_free (b);
        }
      g_clear_error (&error);
      g_free (in);
      g_free (json);
      g_free (back);
    }
  if (et != NULL)
    g_bytes_unref (et);
  return 0;
}
