/* json_keys.c: a key repeated within one JSON object; see json_keys.h. */
#include "workload/json_keys.h"

#include "sim/error.h"

struct _WlJsonKeys
{
  JsonParser *parser;
  gulong handler;
  GHashTable *parsed; /* JsonObject* -> members parsed into it */
  char *repeated;     /* the first key seen twice */
};

static void
on_member (JsonParser *parser, JsonObject *object, const char *name, gpointer data)
{
  (void) parser;
  WlJsonKeys *k = data;
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (k->parsed, object)) + 1;
  g_hash_table_insert (k->parsed, object, GUINT_TO_POINTER (n));
  if (k->repeated == NULL && json_object_get_size (object) < n)
    k->repeated = g_strdup (name);
}

WlJsonKeys *
wl_json_keys_watch (JsonParser *parser)
{
  g_return_val_if_fail (JSON_IS_PARSER (parser), NULL);
  WlJsonKeys *k = g_new0 (WlJsonKeys, 1);
  k->parser = parser;
  k->parsed = g_hash_table_new (g_direct_hash, g_direct_equal);
  k->handler = g_signal_connect (parser, "object-member", G_CALLBACK (on_member), k);
  return k;
}

void
wl_json_keys_free (WlJsonKeys *k)
{
  if (k == NULL)
    return;
  g_signal_handler_disconnect (k->parser, k->handler);
  g_hash_table_unref (k->parsed);
  g_free (k->repeated);
  g_free (k);
}

const char *
wl_json_keys_repeated (const WlJsonKeys *k)
{
  g_return_val_if_fail (k != NULL, NULL);
  return k->repeated;
}

gboolean
wl_json_keys_check (const WlJsonKeys *k, const char *where, GError **error)
{
  g_return_val_if_fail (k != NULL, FALSE);
  if (k->repeated == NULL)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: key \"%s\" appears twice in one object",
               where, k->repeated);
  return FALSE;
}
