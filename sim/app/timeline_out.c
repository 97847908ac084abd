/* timeline_out.c: the timeline's buffered, optionally gzip-compressed
 * output and its JSON number and string formatting; see timeline_out.h. */
#include "sim/app/timeline_out.h"

#include <errno.h>
#include <unistd.h>
#include <zlib.h>

#include "sim/app/json_out.h"
#include "sim/out_file.h"
#include "sim/error.h"

#define TL_FLUSH_BYTES ((gsize) 64 * 1024)

/* The first error is kept and later writes are dropped. */
struct _AppTimelineOut
{
  char *path;
  SimOutFile *file;
  gzFile gz;
  GString *buf;
  gboolean first_event;
  GError *error;
};

AppTimelineOut *
app_timeline_out_open (const char *path, GError **error)
{
  g_autoptr (GError) ioerr = NULL;
  SimOutFile *file = sim_out_file_open (path, &ioerr);
  if (file == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write timeline %s: %s", path,
                   ioerr->message);
      return NULL;
    }
  /* zlib gets its own descriptor: gzclose closes it, the file's own stays
   * for the commit. */
  errno = 0;
  int fd = dup (sim_out_file_fd (file));
  gzFile gz = fd >= 0 ? gzdopen (fd, g_str_has_suffix (path, ".gz") ? "wb6" : "wbT") : NULL;
  if (gz == NULL)
    {
      int err = errno;
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "cannot write timeline %s: %s", path,
                   err != 0 ? g_strerror (err) : "out of memory");
      if (fd >= 0)
        close (fd);
      sim_out_file_discard (file);
      return NULL;
    }
  gzbuffer (gz, 128 * 1024);
  AppTimelineOut *out = g_new0 (AppTimelineOut, 1);
  out->path = g_strdup (path);
  out->file = file;
  out->gz = gz;
  out->buf = g_string_sized_new (TL_FLUSH_BYTES + 4096);
  out->first_event = TRUE;
  return out;
}

GString *
app_timeline_out_text (AppTimelineOut *out)
{
  return out->buf;
}

static void
out_fail (AppTimelineOut *out, const char *why)
{
  if (out->error == NULL)
    out->error = g_error_new (SIM_ERROR, SIM_ERROR_INPUT, "cannot write timeline %s: %s",
                              out->path, why);
}

static void
out_flush (AppTimelineOut *out)
{
  if (out->error == NULL && out->buf->len > 0
      && gzwrite (out->gz, out->buf->str, (unsigned) out->buf->len) != (int) out->buf->len)
    {
      int errnum = 0;
      const char *msg = gzerror (out->gz, &errnum);
      out_fail (out, errnum == Z_ERRNO ? g_strerror (errno) : msg);
    }
  g_string_truncate (out->buf, 0);
}

gboolean
app_timeline_out_close (AppTimelineOut *out, GError **error)
{
  out_flush (out);
  errno = 0;
  int rc = gzclose (out->gz);
  int err = errno;
  out->gz = NULL;
  if (rc != Z_OK)
    out_fail (out, rc == Z_ERRNO && err != 0 ? g_strerror (err) : "zlib could not finish the file");
  g_autoptr (GError) ioerr = NULL;
  if (out->error != NULL)
    sim_out_file_discard (out->file);
  else if (!sim_out_file_commit (out->file, &ioerr))
    out_fail (out, ioerr->message);
  gboolean ok = out->error == NULL;
  if (!ok)
    g_propagate_error (error, out->error);
  g_string_free (out->buf, TRUE);
  g_free (out->path);
  g_free (out);
  return ok;
}

GString *
app_timeline_out_event (AppTimelineOut *out)
{
  if (out->buf->len >= TL_FLUSH_BYTES)
    out_flush (out);
  if (!out->first_event)
    g_string_append (out->buf, ",\n");
  out->first_event = FALSE;
  return out->buf;
}

void
app_timeline_append_u64 (GString *s, guint64 v)
{
  char digits[20];
  int i = 20;
  do
    {
      digits[--i] = (char) ('0' + v % 10);
      v /= 10;
    }
  while (v != 0);
  g_string_append_len (s, digits + i, 20 - i);
}

void
app_timeline_append_us (GString *s, SimTime ps)
{
  app_timeline_append_u64 (s, ps / SIM_PS_PER_US);
  char frac[7] = ".";
  guint64 f = ps % SIM_PS_PER_US;
  for (int i = 6; i >= 1; i--)
    {
      frac[i] = (char) ('0' + f % 10);
      f /= 10;
    }
  g_string_append_len (s, frac, 7);
}

void
app_timeline_append_string (GString *s, const char *text)
{
  app_json_append_string (s, text);
}

void
app_timeline_append_key (GString *s, const char *key)
{
  g_string_append_c (s, ',');
  g_string_append_c (s, '"');
  g_string_append (s, key);
  g_string_append (s, "\":");
}
