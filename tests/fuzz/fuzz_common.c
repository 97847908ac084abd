/* fuzz_common.c: the private temporary directory and log handling shared by
 * the fuzz targets (fuzz_common.h). */
#include "fuzz_common.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>

static char *tmpdir;

static void
drop_or_abort (const char *domain, GLogLevelFlags level, const char *message, gpointer data)
{
  (void) data;
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL))
    {
      g_printerr ("fuzz: %s: %s\n", domain != NULL ? domain : "(no domain)", message);
      abort ();
    }
}

static GLogWriterOutput
write_or_abort (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
  (void) data;
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL))
    {
      for (gsize i = 0; i < n_fields; i++)
        if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0)
          g_printerr ("fuzz: %s\n", (const char *) fields[i].value);
      abort ();
    }
  return G_LOG_WRITER_HANDLED;
}

void
fuzz_remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      GDir *dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          char *child = g_build_filename (path, name, NULL);
          fuzz_remove_tree (child);
          g_free (child);
        }
      if (dir != NULL)
        g_dir_close (dir);
    }
  g_remove (path);
}

static void
remove_tmpdir (void)
{
  if (tmpdir != NULL)
    fuzz_remove_tree (tmpdir);
  g_clear_pointer (&tmpdir, g_free);
}

const char *
fuzz_tmpdir (void)
{
  if (tmpdir == NULL)
    {
      GError *error = NULL;
      tmpdir = g_dir_make_tmp ("orrery-fuzz-XXXXXX", &error);
      if (tmpdir == NULL)
        g_error ("fuzz: cannot make a temporary directory: %s", error->message);
      atexit (remove_tmpdir);
      /* g_log() goes to the default handler, g_log_structured() to the
       * writer: set both. */
      g_log_set_default_handler (drop_or_abort, NULL);
      g_log_set_writer_func (write_or_abort, NULL, NULL);
    }
  return tmpdir;
}

/* Weak, so that a target's own definition takes its place (fuzz_common.h);
 * libFuzzer calls it once, before the first input. */
__attribute__ ((weak)) int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  (void) argc;
  (void) argv;
  fuzz_tmpdir ();
  return 0;
}

char *
fuzz_write (const char *name, const void *data, size_t len)
{
  /* Not g_file_set_contents: it syncs the file to disk, which would make
   * each run a hundred times slower. */
  char *path = g_build_filename (fuzz_tmpdir (), name, NULL);
  FILE *f = fopen (path, "wb");
  if (f == NULL || (len > 0 && fwrite (data, 1, len, f) != len) || fclose (f) != 0)
    g_error ("fuzz: cannot write %s", path);
  return path;
}
