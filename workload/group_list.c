/* group_list.c: METADATA process-group lists, read in every writer's form. */
#include "workload/group_list.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "sim/json_numbers.h"
#include "sim/nesting.h"
#include "sim/out_file.h"
#include "workload/groups.h"
#include "workload/json_keys.h"
#include "workload/wl_error.h"

/* How many times a list may come wrapped in a string inside a list: once
 * in the converter's form; a second wrapping is a writer's mistake. */
#define MAX_WRAPS 1

/* Append code point CP to OUT as JSON string content. */
static void
put_code_point (GString *out, gunichar cp)
{
  if (cp == '"' || cp == '\\')
    g_string_append_printf (out, "\\%c", (char) cp);
  else if (cp < 0x20)
    g_string_append_printf (out, "\\u%04x", cp);
  else
    g_string_append_unichar (out, cp);
}

/* The value of the N hex digits at S, or -1 when they are not. */
static gint64
hex_digits (const char *s, guint n)
{
  gint64 v = 0;
  for (guint i = 0; i < n; i++)
    {
      int d = g_ascii_xdigit_value (s[i]);
      if (d < 0)
        return -1;
      v = v * 16 + d;
    }
  return v;
}

/* The code point of the one-character Python escape \C, or -1. */
static gint64
py_escape (char c)
{
  switch (c)
    {
    case '\\': case '\'': case '"':
      return c;
    case 'n':
      return '\n';
    case 'r':
      return '\r';
    case 't':
      return '\t';
    case 'b':
      return '\b';
    case 'f':
      return '\f';
    case 'a':
      return '\a';
    case 'v':
      return '\v';
    case '0':
      return 0;
    default:
      return -1;
    }
}

/* The Python string literal at *P (quote character at **P) as a JSON
 * string appended to OUT; *P then points after it.  FALSE for an escape
 * Python would not write in a repr, or a literal without its end. */
static gboolean
py_string (const char **p, GString *out)
{
  char quote = **p;
  const char *s = *p + 1;
  g_string_append_c (out, '"');
  while (*s != quote)
    {
      if (*s == '\0' || *s == '\n')
        return FALSE;
      if (*s != '\\')
        {
          gunichar c = g_utf8_get_char_validated (s, -1);
          if (c == (gunichar) -1 || c == (gunichar) -2)
            return FALSE;
          put_code_point (out, c);
          s = g_utf8_next_char (s);
          continue;
        }
      guint width = s[1] == 'x' ? 2 : s[1] == 'u' ? 4 : s[1] == 'U' ? 8 : 0;
      gint64 cp = width > 0 ? hex_digits (s + 2, width) : py_escape (s[1]);
      if (cp < 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return FALSE;
      put_code_point (out, (gunichar) cp);
      s += 2 + width;
    }
  g_string_append_c (out, '"');
  *p = s + 1;
  return TRUE;
}

/* TEXT, a Python literal of lists, tuples, dicts, strings, numbers and
 * True/False/None, as JSON text (a new string), or NULL when it is not
 * one.  Only the spelling changes; the parser checks the structure. */
static char *
py_to_json (const char *text)
{
  static const char *const words[][2]
      = { { "True", "true" }, { "False", "false" }, { "None", "null" } };
  g_autoptr (GString) out = g_string_new (NULL);
  const char *p = text;
  while (*p != '\0')
    {
      if (*p == '\'' || *p == '"')
        {
          if (!py_string (&p, out))
            return NULL;
          continue;
        }
      gboolean word = FALSE;
      for (guint i = 0; i < G_N_ELEMENTS (words) && !word; i++)
        if (strncmp (p, words[i][0], strlen (words[i][0])) == 0)
          {
            g_string_append (out, words[i][1]);
            p += strlen (words[i][0]);
            word = TRUE;
          }
      if (word)
        continue;
      if (*p == '(' || *p == ')')
        g_string_append_c (out, *p == '(' ? '[' : ']');
      else if (strchr ("[]{},: \t\r\n+-.eE", *p) != NULL || g_ascii_isdigit (*p))
        g_string_append_c (out, *p);
      else
        return NULL;
      p++;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The group id of NAME (a numeric string or a non-negative integer), or
 * FALSE. */
static gboolean
group_name (JsonNode *name, guint64 *id)
{
  if (name == NULL || !JSON_NODE_HOLDS_VALUE (name))
    return FALSE;
  if (json_node_get_value_type (name) == G_TYPE_STRING)
    return wl_group_id_parse (json_node_get_string (name), id) && *id != WL_GROUP_ALL;
  if (json_node_get_value_type (name) != G_TYPE_INT64 || json_node_get_int (name) < 0)
    return FALSE;
  *id = (guint64) json_node_get_int (name);
  return TRUE;
}

/* One group object appended to DEFS; NULL or what is wrong. */
static const char *
group_from_object (JsonObject *o, GArray *defs)
{
  guint64 id;
  if (!group_name (json_object_get_member (o, "pg_name"), &id))
    return "METADATA process group needs a numeric \"pg_name\" (a decimal string or a "
           "non-negative integer)";
  JsonNode *ranks = json_object_get_member (o, "ranks");
  if (ranks != NULL && !JSON_NODE_HOLDS_NULL (ranks) && !JSON_NODE_HOLDS_ARRAY (ranks))
    return "METADATA process group \"ranks\" must be a list (empty, null or absent for every "
           "rank)";
  WlGroupDef def = { .id = id, .ranks = g_array_new (FALSE, FALSE, sizeof (guint32)) };
  g_array_append_val (defs, def);
  JsonArray *ra = ranks != NULL && JSON_NODE_HOLDS_ARRAY (ranks) ? json_node_get_array (ranks)
                                                                 : NULL;
  for (guint j = 0; ra != NULL && j < json_array_get_length (ra); j++)
    {
      JsonNode *r = json_array_get_element (ra, j);
      gint64 v = JSON_NODE_HOLDS_VALUE (r) ? json_node_get_int (r) : -1;
      if (!JSON_NODE_HOLDS_VALUE (r) || json_node_get_value_type (r) != G_TYPE_INT64 || v < 0
          || v >= G_MAXINT32)
        return "METADATA process group ranks must be ranks";
      guint32 rank = (guint32) v;
      g_array_append_val (def.ranks, rank);
    }
  return NULL;
}

static const char *parse_list (const char *text, GArray *defs, guint wraps);

/* The parsed list ROOT: its groups, or the lists in its strings (parsed in
 * turn: the recursion stops at MAX_WRAPS). */
static const char *
read_list (JsonNode *root, GArray *defs, guint wraps) /* NOLINT(misc-no-recursion) */
{
  /* No root: a text of no JSON at all (a string '' or of spaces). */
  if (root == NULL || !JSON_NODE_HOLDS_ARRAY (root))
    return "METADATA process groups must be a JSON list";
  JsonArray *list = json_node_get_array (root);
  for (guint i = 0; i < json_array_get_length (list); i++)
    {
      JsonNode *item = json_array_get_element (list, i);
      const char *why;
      if (JSON_NODE_HOLDS_OBJECT (item))
        why = group_from_object (json_node_get_object (item), defs);
      else if (JSON_NODE_HOLDS_VALUE (item) && json_node_get_value_type (item) == G_TYPE_STRING
               && wraps < MAX_WRAPS)
        why = parse_list (json_node_get_string (item), defs, wraps + 1);
      else
        why = wraps < MAX_WRAPS
                ? "METADATA process-group list items must be groups or strings holding a list"
                : "METADATA process-group list in a string must hold groups";
      if (why != NULL)
        return why;
    }
  return NULL;
}

/* TEXT as JSON into PARSER: NULL, or what is wrong. */
static const char *
load_json (JsonParser *parser, WlJsonKeys *keys, const char *text)
{
  if (!sim_json_depth_check (text, -1, NULL))
    return "METADATA node's process-group JSON nests deeper than 256 levels";
  /* json-glib would wrap -18446744073709551615 to rank 1 (sim/json_numbers.h). */
  if (!sim_json_numbers_check (text, -1, SIM_JSON_INT64, NULL, NULL))
    return "METADATA node's process-group JSON has a number beyond 64 bits (an integer outside "
           "-2^63 .. 2^63 - 1, or past a double's range)";
  if (!json_parser_load_from_data (parser, text, -1, NULL))
    return "METADATA node's process-group JSON does not parse";
  if (wl_json_keys_repeated (keys) != NULL)
    return g_strcmp0 (wl_json_keys_repeated (keys), "ranks") == 0
             ? "METADATA process group has the key \"ranks\" twice"
           : g_strcmp0 (wl_json_keys_repeated (keys), "pg_name") == 0
             ? "METADATA process group has the key \"pg_name\" twice"
             : "METADATA process-group JSON has a key twice in one object";
  return NULL;
}

/* Whether TEXT has a string in single quotes: then it is a Python literal
 * (json-glib would take 'x' as a string, but without Python's escapes). */
static gboolean
single_quoted (const char *text)
{
  gboolean in_string = FALSE;
  for (const char *p = text; *p != '\0'; p++)
    if (in_string)
      {
        if (*p == '\\' && p[1] != '\0')
          p++;
        else if (*p == '"')
          in_string = FALSE;
      }
    else if (*p == '"')
      in_string = TRUE;
    else if (*p == '\'')
      return TRUE;
  return FALSE;
}

/* ---- the common form, read directly ------------------------------------------------ */

/* The generators' and the converter's list, ['[{"pg_name": "1", "ranks":
 * [0, 1]}, ...]'], goes through py_to_json and two JSON parses: 0.85 M
 * instructions a trace set on issue 17's Llama-2 row, where the whole
 * classes run is 37 M.  A list that is exactly that form (ASCII, no
 * escapes, each group with a decimal string pg_name and a list of ranks,
 * each key once) is read here to the same groups; anything else, even a
 * faulty list, is declined to the general path, which says what is
 * wrong. */
typedef struct
{
  const char *p;
} Scan;

/* Spaces only: a newline ends a Python string (py_string), and the
 * writers put nothing else between tokens. */
static void
scan_space (Scan *s)
{
  while (*s->p == ' ')
    s->p++;
}

/* The character C (after spaces) taken. */
static gboolean
scan_char (Scan *s, char c)
{
  scan_space (s);
  if (*s->p != c)
    return FALSE;
  s->p++;
  return TRUE;
}

/* A JSON string of printable ASCII without escapes into *AT, *LEN (a
 * quote ' would end the Python string that holds the list). */
static gboolean
scan_plain_string (Scan *s, const char **at, gsize *len)
{
  if (!scan_char (s, '"'))
    return FALSE;
  const char *start = s->p;
  for (; *s->p != '"'; s->p++)
    if (*s->p < 0x20 || *s->p > 0x7e || *s->p == '\\' || *s->p == '\'')
      return FALSE;
  *at = start;
  *len = (gsize) (s->p - start);
  s->p++;
  return TRUE;
}

/* A rank: decimal digits, no leading zero, below G_MAXINT32 (what
 * group_from_object takes). */
static gboolean
scan_rank (Scan *s, guint32 *rank)
{
  scan_space (s);
  if (!g_ascii_isdigit (*s->p) || (s->p[0] == '0' && g_ascii_isdigit (s->p[1])))
    return FALSE;
  guint64 v = 0;
  for (guint n = 0; g_ascii_isdigit (*s->p); n++, s->p++)
    {
      if (n == 10)
        return FALSE;
      v = v * 10 + (guint64) (*s->p - '0');
    }
  if (v >= G_MAXINT32 || *s->p == '.' || *s->p == 'e' || *s->p == 'E')
    return FALSE;
  *rank = (guint32) v;
  return TRUE;
}

/* "ranks": [...] after its key: into RANKS. */
static gboolean
scan_ranks (Scan *s, GArray *ranks)
{
  if (!scan_char (s, '['))
    return FALSE;
  if (scan_char (s, ']'))
    return TRUE;
  do
    {
      guint32 r;
      if (!scan_rank (s, &r))
        return FALSE;
      g_array_append_val (ranks, r);
    }
  while (scan_char (s, ','));
  return scan_char (s, ']');
}

/* One group object, its two keys once each, appended to DEFS. */
static gboolean
scan_group (Scan *s, GArray *defs)
{
  if (!scan_char (s, '{'))
    return FALSE;
  WlGroupDef def = { .ranks = g_array_new (FALSE, FALSE, sizeof (guint32)) };
  g_array_append_val (defs, def); /* DEFS frees RANKS, whatever follows */
  gboolean named = FALSE, ranked = FALSE;
  do
    {
      const char *key, *val;
      gsize klen, vlen;
      if (!scan_plain_string (s, &key, &klen) || !scan_char (s, ':'))
        return FALSE;
      if (klen == 7 && memcmp (key, "pg_name", 7) == 0 && !named)
        {
          if (!scan_plain_string (s, &val, &vlen) || vlen == 0)
            return FALSE;
          g_autofree char *name = g_strndup (val, vlen);
          guint64 id;
          if (!wl_group_id_parse (name, &id) || id == WL_GROUP_ALL)
            return FALSE;
          g_array_index (defs, WlGroupDef, defs->len - 1).id = id;
          named = TRUE;
        }
      else if (klen == 5 && memcmp (key, "ranks", 5) == 0 && !ranked)
        {
          if (!scan_ranks (s, def.ranks))
            return FALSE;
          ranked = TRUE;
        }
      else
        return FALSE;
    }
  while (scan_char (s, ','));
  return named && ranked && scan_char (s, '}');
}

/* TEXT in the common form: its groups appended to DEFS and TRUE; else
 * FALSE with DEFS as it was. */
static gboolean
scan_common_list (const char *text, GArray *defs)
{
  guint from = defs->len;
  Scan s = { text };
  gboolean ok = scan_char (&s, '[') && scan_char (&s, '\'') && scan_char (&s, '[');
  if (ok && !scan_char (&s, ']'))
    {
      do
        ok = scan_group (&s, defs);
      while (ok && scan_char (&s, ','));
      ok = ok && scan_char (&s, ']');
    }
  /* The inner list is a Python string's whole text: nothing but spaces
   * after it in the string, and the outer list holds that string only. */
  ok = ok && scan_char (&s, '\'') && scan_char (&s, ']');
  if (ok)
    scan_space (&s);
  if (ok && *s.p == '\0')
    return TRUE;
  g_array_remove_range (defs, from, defs->len - from);
  return FALSE;
}

/* TEXT as JSON, or as a Python literal when it is one (or does not parse
 * as JSON), WRAPS strings deep. */
static const char *
parse_list (const char *text, GArray *defs, guint wraps) /* NOLINT(misc-no-recursion) */
{
  const char *why = NULL;
  if (!single_quoted (text))
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_autoptr (WlJsonKeys) keys = wl_json_keys_watch (parser);
      why = load_json (parser, keys, text);
      if (why == NULL)
        return read_list (json_parser_get_root (parser), defs, wraps);
      if (strstr (why, "does not parse") == NULL)
        return why;
    }
  g_autofree char *json = py_to_json (text);
  if (json == NULL)
    return why != NULL ? why : "METADATA node's process-group JSON does not parse";
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (WlJsonKeys) keys = wl_json_keys_watch (parser);
  why = load_json (parser, keys, json);
  return why != NULL ? why : read_list (json_parser_get_root (parser), defs, wraps);
}

gboolean
wl_group_list_node (const ChakraProtoMsg__Node *n)
{
  g_return_val_if_fail (n != NULL, FALSE);
  gboolean kind = n->type == CHAKRA_PROTO_MSG__NODE_TYPE__METADATA_NODE
                  || (n->name != NULL && strstr (n->name, "process_group:init") != NULL);
  return kind && n->inputs != NULL && n->inputs->values != NULL
         && strstr (n->inputs->values, "pg_name") != NULL;
}

const char *
wl_group_defs_parse (const char *text, GArray *defs)
{
  g_return_val_if_fail (text != NULL && defs != NULL, "no process-group list");
  if (scan_common_list (text, defs))
    return NULL;
  return parse_list (text, defs, 0);
}

char *
wl_group_list_wrap (const char *json)
{
  g_return_val_if_fail (json != NULL, NULL);
  GString *s = g_string_new ("['");
  for (const char *p = json; *p != '\0'; p++)
    {
      if (*p == '\\' || *p == '\'')
        g_string_append_c (s, '\\');
      g_string_append_c (s, *p);
    }
  g_string_append (s, "']");
  return g_string_free (s, FALSE);
}

gboolean
wl_group_list_write_comm_groups (const char *list, const char *path, GError **error)
{
  g_return_val_if_fail (list != NULL && path != NULL, FALSE);
  g_autoptr (GArray) defs = wl_group_defs_new ();
  const char *why = wl_group_defs_parse (list, defs);
  if (why != NULL)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: %s", path, why);
      return FALSE;
    }
  g_autoptr (GString) s = g_string_new ("{");
  for (guint i = 0; i < defs->len; i++)
    {
      const WlGroupDef *d = &g_array_index (defs, WlGroupDef, i);
      g_string_append_printf (s, "%s\n  \"%" G_GUINT64_FORMAT "\": [", i > 0 ? "," : "", d->id);
      for (guint j = 0; j < d->ranks->len; j++)
        g_string_append_printf (s, "%s%u", j > 0 ? ", " : "", g_array_index (d->ranks, guint32, j));
      g_string_append_c (s, ']');
    }
  g_string_append (s, "\n}\n");
  g_autoptr (GError) err = NULL;
  if (!sim_out_file_set_contents (path, s->str, (gssize) s->len, &err))
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "%s: cannot write: %s", path, err->message);
      return FALSE;
    }
  return TRUE;
}
