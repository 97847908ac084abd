/* inspect.c: per-rank trace summaries and a list of every defect found. */
#include "workload/inspect.h"
#include "workload/inspect_private.h"

#include <stdlib.h>
#include <string.h>

#include "workload/chakra.h"
#include "workload/chakra_json.h"
#include "workload/graph.h"
#include "workload/group_list.h"
#include "workload/group_memo.h"
#include "workload/kernels.h"
#include "workload/wl_error.h"

enum
{
  CK_METADATA = 1, CK_COMP = 4, CK_SEND = 5, CK_RECV = 6, CK_COLL = 7, CK_BARRIER = 9
};

/* Where a process group was first defined, as run's check sees the
 * definitions (replay_groups.c): its ranks (a reference), file and node. */
typedef struct
{
  guint64 id;
  GArray *ranks;
  const char *path; /* the RankInfo's */
  guint64 node;
  guint list;         /* the last list that defined it so (a count of lists) */
  guint64 list_node;  /* and its node */
} GroupFirst;

static void
group_first_free (gpointer p)
{
  GroupFirst *f = p;
  g_array_unref (f->ranks);
  g_free (f);
}

/* One file while it is being read. */
typedef struct
{
  WlInspectReport *report;
  RankInfo *info;
  WlInspectRank *fig;
  GArray *ids;        /* guint64, file order */
  GArray *dep_start;  /* guint32 per node, then the total: deps of node v are
                       * dep_ids[dep_start[v] .. dep_start[v + 1]] */
  GArray *dep_ids;    /* guint64 */
  GArray *dep_node;   /* guint32 per dependency: its node's index, or
                       * WL_CYCLE_NO_NODE when dangling */
  GHashTable *index;  /* id -> first index + 1 */
  GHashTable *dups;   /* id -> times seen, for ids seen twice or more */
} FileScan;

static void
defect (FileScan *s, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
defect (FileScan *s, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_ptr_array_add (s->report->defects, g_strdup_printf ("%s: %s", s->info->path, msg));
}

/* An attribute of the wrong kind is a defect, not a failure: record it and
 * go on as if it were absent. */
static gboolean
attr_int (FileScan *s, const ChakraProtoMsg__Node *n, const char *name, gint64 *out)
{
  g_autoptr (GError) err = NULL;
  if (wl_chakra_attr_int (n, name, out, &err))
    return TRUE;
  if (err != NULL)
    defect (s, "%s", err->message);
  return FALSE;
}

static void
scan_collective (FileScan *s, const ChakraProtoMsg__Node *n)
{
  CollEntry e = { .id = n->id, .type = -1, .size = -1 };
  /* The loader's checks, so that inspect names what run would refuse. */
  WlAttrIndex idx;
  wl_chakra_attr_index (n, &idx);
  WlCollAttrs c;
  g_autoptr (GError) bad = NULL;
  if (!wl_node_coll_attrs (n, idx.of[WL_ATTR_COMM_TYPE], idx.of[WL_ATTR_COMM_SIZE], &c, &bad))
    defect (s, "%s", bad->message);
  gboolean has_type = c.has_type;
  e.type = has_type ? c.type : -1;
  e.size = c.has_size ? (gint64) MIN (c.bytes, (guint64) G_MAXINT64) : -1;
  if (bad == NULL && !has_type)
    defect (s, "node %" G_GUINT64_FORMAT ": COMM_COLL node without comm_type", n->id);
  if (bad == NULL && !c.has_size && e.type != CK_BARRIER)
    defect (s, "node %" G_GUINT64_FORMAT ": COMM_COLL node without comm_size", n->id);
  if (has_type)
    {
      int slot = e.type >= 0 && e.type < WL_INSPECT_COLL_OTHER ? (int) e.type
                                                              : WL_INSPECT_COLL_OTHER;
      s->fig->coll_count[slot]++;
      s->fig->coll_bytes[slot] += e.size > 0 ? (guint64) e.size : 0;
    }
  const char *pg = NULL;
  g_autoptr (GError) err = NULL;
  if (!wl_chakra_attr_string (n, "pg_name", &pg, &err) && err != NULL)
    defect (s, "%s", err->message);
  e.pg = g_strdup (pg ? pg : "");
  g_array_append_val (s->info->colls, e);
  /* cppcheck-suppress memleak ; g_array_append_val copied e: colls owns e.pg */
}

static void
scan_p2p (FileScan *s, const ChakraProtoMsg__Node *n)
{
  gboolean send = (int) n->type == CK_SEND;
  const char *attr = send ? "comm_src" : "comm_dst";
  gint64 v;
  if (attr_int (s, n, attr, &v) && v != (gint64) s->info->rank)
    defect (s,
            "node %" G_GUINT64_FORMAT ": %s with %s = %" G_GINT64_FORMAT
            ", but this file is rank %u",
            n->id, send ? "COMM_SEND" : "COMM_RECV", attr, v, s->info->rank);
}

/* A compute node's `kernels` attribute that the run would refuse: of the
 * wrong kind, or not in the grammar (workload/kernels.h), worded as the
 * run words it. */
static void
scan_kernels (FileScan *s, const ChakraProtoMsg__Node *n)
{
  const char *text = NULL;
  g_autoptr (GError) err = NULL;
  if (!wl_chakra_attr_string (n, "kernels", &text, &err))
    {
      if (err != NULL)
        defect (s, "%s", err->message);
      return;
    }
  g_autoptr (GArray) list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  if (!wl_kernels_parse (text, list, &err))
    defect (s, "node %" G_GUINT64_FORMAT ": %s", n->id, err->message);
  else
    s->fig->kernel_nodes++;
}

/* Report every attribute with a name and no value, then drop them so that
 * the checks below see them as absent (as lenient loading does). */
static void
scan_valueless (FileScan *s, ChakraProtoMsg__Node *n)
{
  for (size_t i = 0; i < n->n_attr; i++)
    if (n->attr[i]->value_case == CHAKRA_PROTO_MSG__ATTRIBUTE_PROTO__VALUE__NOT_SET)
      defect (s, "node %" G_GUINT64_FORMAT ": attribute \"%s\" has no value (valueless attribute)",
              n->id, n->attr[i]->name);
  wl_chakra_node_drop_valueless (n);
}

/* A name loading reads given twice, refused as loading refuses it. */
static void
scan_repeated (FileScan *s, const ChakraProtoMsg__Node *n)
{
  WlAttrIndex idx;
  wl_chakra_attr_index (n, &idx);
  if (idx.again != NULL)
    defect (s, "node %" G_GUINT64_FORMAT ": attribute \"%s\" " WL_ATTR_AGAIN_WHY, n->id,
            idx.again->name);
}

static gboolean
same_ranks (const GArray *a, const GArray *b)
{
  return a == b
         || (a->len == b->len && memcmp (a->data, b->data, a->len * sizeof (guint32)) == 0);
}

/* Group D of node N, against the definitions before it: another set of
 * ranks under the same id is a defect, worded as run words it
 * (replay_groups.c): "twice" where this file holds its first definition
 * (in this METADATA list or another) or this list defined it before, else
 * against its first definition. */
static void
note_group (FileScan *s, const WlGroupDef *d, guint64 node)
{
  WlInspectReport *r = s->report;
  GroupFirst *f = g_hash_table_lookup (r->group_first, &d->id);
  if (f == NULL)
    {
      f = g_new (GroupFirst, 1);
      *f = (GroupFirst) { .id = d->id, .ranks = g_array_ref (d->ranks), .path = s->info->path,
                          .node = node };
      g_hash_table_insert (r->group_first, &f->id, f);
    }
  else if (same_ranks (f->ranks, d->ranks))
    ;
  else if (f->path == s->info->path || f->list == r->lists)
    {
      defect (s, "node %" G_GUINT64_FORMAT ": METADATA defines process group %" G_GUINT64_FORMAT
              " twice, with other ranks (node %" G_GUINT64_FORMAT " first)", node, d->id,
              f->path == s->info->path ? f->node : f->list_node);
      return;
    }
  else
    {
      defect (s, "node %" G_GUINT64_FORMAT ": METADATA defines process group %" G_GUINT64_FORMAT
              " with other ranks than %s (node %" G_GUINT64_FORMAT ")", node, d->id, f->path,
              f->node);
      return;
    }
  f->list = r->lists;
  f->list_node = node;
}

/* A METADATA node's process groups, refused as graph loading refuses them
 * (workload/node.c: a list that does not parse, a rank listed twice; and
 * replay_groups.c: a group defined again with other ranks). */
static void
scan_metadata (FileScan *s, const ChakraProtoMsg__Node *n)
{
  if (!wl_group_list_node (n))
    return;
  g_autoptr (GArray) defs = wl_group_defs_new ();
  const char *why = wl_group_memo_parse (s->report->groups, n->inputs->values, defs);
  if (why != NULL)
    {
      defect (s, "node %" G_GUINT64_FORMAT ": %s", n->id, why);
      return;
    }
  /* A rank past the set's files, as run refuses it (replay_groups.c); a
   * lone file's world is not known. */
  guint world = s->report->ranks->len;
  for (guint i = 0; world > 1 && i < defs->len; i++)
    {
      const WlGroupDef *d = &g_array_index (defs, WlGroupDef, i);
      for (guint j = 0; j < d->ranks->len; j++)
        if (g_array_index (d->ranks, guint32, j) >= world)
          {
            defect (s, "node %" G_GUINT64_FORMAT ": METADATA process group %" G_GUINT64_FORMAT
                    " names rank %u, but there are %u ranks", n->id, d->id,
                    g_array_index (d->ranks, guint32, j), world);
            break;
          }
    }
  s->report->lists++;
  for (guint i = 0; i < defs->len; i++)
    note_group (s, &g_array_index (defs, WlGroupDef, i), n->id);
}

static void
scan_node (FileScan *s, ChakraProtoMsg__Node *n)
{
  scan_valueless (s, n);
  scan_repeated (s, n);
  guint32 index = s->ids->len;
  g_array_append_val (s->ids, n->id);
  gpointer key = (gpointer) (guintptr) n->id;
  gpointer seen = g_hash_table_lookup (s->index, key);
  if (seen == NULL)
    g_hash_table_insert (s->index, key, GUINT_TO_POINTER (index + 1u));
  else
    g_hash_table_insert (s->dups, key,
                         GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (s->dups, key))
                                           + 1u));
  g_array_append_vals (s->dep_ids, n->data_deps, n->n_data_deps);
  g_array_append_vals (s->dep_ids, n->ctrl_deps, n->n_ctrl_deps);
  guint32 end = s->dep_ids->len;
  g_array_append_val (s->dep_start, end);

  int slot = n->type < WL_INSPECT_TYPE_UNKNOWN ? (int) n->type : WL_INSPECT_TYPE_UNKNOWN;
  s->fig->nodes[slot]++;
  if ((int) n->type == CK_COMP)
    {
      s->fig->compute_micros += n->duration_micros;
      scan_kernels (s, n);
      scan_metadata (s, n); /* the converter's process_group:init, before METADATA */
    }
  else if ((int) n->type == CK_COLL)
    scan_collective (s, n);
  else if ((int) n->type == CK_METADATA)
    scan_metadata (s, n);
  else if ((int) n->type == CK_SEND || (int) n->type == CK_RECV)
    scan_p2p (s, n);
}

static int
cmp_u64 (const void *a, const void *b)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return (x > y) - (x < y);
}

/* Duplicates in id order, so the output does not depend on hashing. */
static void
report_duplicates (FileScan *s)
{
  g_autoptr (GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  GHashTableIter it;
  gpointer key, val;
  g_hash_table_iter_init (&it, s->dups);
  while (g_hash_table_iter_next (&it, &key, &val))
    {
      guint64 id = (guint64) (guintptr) key;
      g_array_append_val (ids, id);
    }
  if (ids->len > 1)
    qsort (ids->data, ids->len, sizeof (guint64), cmp_u64);
  for (guint i = 0; i < ids->len; i++)
    {
      guint64 id = g_array_index (ids, guint64, i);
      guint extra = GPOINTER_TO_UINT (g_hash_table_lookup (s->dups, (gpointer) (guintptr) id));
      /* Loading stops at the second copy with the words "appears twice in
       * the trace": the same words here, and the count when there are more. */
      if (extra == 1)
        defect (s, "node %" G_GUINT64_FORMAT ": the id appears twice in the trace (duplicate id)",
                id);
      else
        defect (s, "node %" G_GUINT64_FORMAT ": the id appears %u times in the trace (duplicate "
                "id)", id, extra + 1);
    }
}

/* Resolve each dependency id to the index of its node (the first with that
 * id) in dep_node, or WL_CYCLE_NO_NODE for a dangling one, which is
 * reported. */
static void
resolve_deps (FileScan *s)
{
  const guint32 *start = (const guint32 *) s->dep_start->data;
  const guint64 *deps = (const guint64 *) s->dep_ids->data;
  g_array_set_size (s->dep_node, s->dep_ids->len);
  guint32 *node = (guint32 *) s->dep_node->data;
  for (guint v = 0; v < s->ids->len; v++)
    for (guint32 k = start[v]; k < start[v + 1]; k++)
      {
        gpointer hit = g_hash_table_lookup (s->index, (gpointer) (guintptr) deps[k]);
        if (hit == NULL)
          defect (s,
                  "node %" G_GUINT64_FORMAT " depends on node %" G_GUINT64_FORMAT
                  ", which is not in the trace (dangling dependency)",
                  g_array_index (s->ids, guint64, v), deps[k]);
        node[k] = hit != NULL ? GPOINTER_TO_UINT (hit) - 1 : WL_CYCLE_NO_NODE;
      }
}

/* The cycle PATH[0 .. LEN-1], worded as wl_graph_load words it. */
static gboolean
report_cycle (gpointer data, guint32 slot, const guint32 *path, guint32 len)
{
  (void) slot;
  FileScan *s = data;
  const guint64 *ids = (const guint64 *) s->ids->data;
  g_autoptr (GArray) cycle = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint32 i = 0; i < len; i++)
    g_array_append_val (cycle, ids[path[i]]);
  g_autoptr (GString) text = g_string_new (NULL);
  wl_cycle_describe (text, (const guint64 *) cycle->data, len);
  defect (s, "%s", text->str);
  return TRUE;
}

/* The search wl_graph_load runs (wl_cycle_search); every edge back to a node
 * on the current path closes a cycle, reported with the path's ids.  Dangling
 * dependencies, already reported, are not followed. */
static gboolean
find_cycles (FileScan *s, GError **error)
{
  GError *local = NULL;
  wl_cycle_search (s->ids->len, (const guint32 *) s->dep_start->data,
                   (const guint32 *) s->dep_node->data, report_cycle, s, &local);
  if (local == NULL)
    return TRUE;
  g_propagate_prefixed_error (error, local, "%s: ", s->info->path);
  return FALSE;
}

/* The first node of a headerless file, worded as the strict reader words it. */
static void
report_headerless (FileScan *s, const ChakraProtoMsg__Node *n)
{
  const char *type = wl_chakra_node_type_name (n->type);
  defect (s, "headerless (pre-2024) Chakra trace: frame 0 is a Node (id %" G_GUINT64_FORMAT
          ", type %s), not a GlobalMetadata; convert it with a current Chakra converter",
          n->id, type != NULL ? type : "?");
}

/* Read every node of the file; a truncated last frame is a defect (the
 * nodes before it are checked), other framing errors a failure. */
static gboolean
read_file (FileScan *s, WlChakraReader *r, GError **error)
{
  if (wl_chakra_reader_is_empty (r))
    {
      defect (s, "empty trace (no GlobalMetadata frame)");
      return TRUE;
    }
  for (gboolean first = TRUE;; first = FALSE)
    {
      ChakraProtoMsg__Node *next = NULL;
      char *cut = NULL;
      if (!wl_chakra_reader_step (r, TRUE, &next, &cut, error))
        return FALSE;
      g_autoptr (ChakraProtoMsg__Node) n = next;
      if (n == NULL)
        {
          /* A cut last frame is a defect; the reader's message names the file. */
          if (cut != NULL)
            g_ptr_array_add (s->report->defects, cut);
          return TRUE;
        }
      if (first && wl_chakra_reader_is_headerless (r))
        report_headerless (s, n);
      scan_node (s, n);
    }
}

static gboolean
scan_file (WlInspectReport *report, guint i, GError **error)
{
  RankInfo *info = &g_array_index (report->ranks, RankInfo, i);
  FileScan s = { .report = report, .info = info,
                 .fig = &g_array_index (report->figures, WlInspectRank, i) };
  g_autoptr (WlChakraReader) r = wl_chakra_reader_open_full (
    info->path, WL_CHAKRA_ALLOW_HEADERLESS | WL_CHAKRA_ALLOW_EMPTY, error);
  if (r == NULL)
    return FALSE;
  s.ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  s.dep_start = g_array_new (FALSE, FALSE, sizeof (guint32));
  s.dep_ids = g_array_new (FALSE, FALSE, sizeof (guint64));
  s.dep_node = g_array_new (FALSE, FALSE, sizeof (guint32));
  s.index = g_hash_table_new (g_direct_hash, g_direct_equal);
  s.dups = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint32 zero = 0;
  g_array_append_val (s.dep_start, zero);
  /* The rank's own fact, peak_memory_bytes, is a figure; a fact run would
   * refuse is a defect. */
  WlTraceFacts facts;
  GError *bad = NULL;
  if (wl_chakra_metadata_facts (wl_chakra_reader_metadata (r), &facts, &bad))
    s.fig->peak_memory_B = facts.peak_memory_B;
  else
    {
      defect (&s, "%s", bad->message);
      g_error_free (bad);
    }
  gboolean ok = read_file (&s, r, error);
  if (ok)
    {
      report_duplicates (&s);
      resolve_deps (&s);
      ok = find_cycles (&s, error);
    }
  g_array_unref (s.ids);
  g_array_unref (s.dep_start);
  g_array_unref (s.dep_ids);
  g_array_unref (s.dep_node);
  g_hash_table_unref (s.index);
  g_hash_table_unref (s.dups);
  return ok;
}

/* The N in a name ending ".N.et" (or ".N.json"), or FALLBACK. */
static guint32
rank_of_path (const char *path, guint32 fallback)
{
  gsize ext = g_str_has_suffix (path, ".et") ? 3 : g_str_has_suffix (path, ".json") ? 5 : 0;
  if (ext == 0)
    return fallback;
  gsize len = strlen (path) - ext;
  gsize d = len;
  while (d > 0 && g_ascii_isdigit (path[d - 1]))
    d--;
  if (d == len || d == 0 || path[d - 1] != '.' || len - d > 9)
    return fallback;
  return (guint32) strtoul (path + d, NULL, 10);
}

static void
rank_info_clear (gpointer p)
{
  RankInfo *info = p;
  g_free (info->path);
  for (guint i = 0; i < info->colls->len; i++)
    g_free (g_array_index (info->colls, CollEntry, i).pg);
  g_array_unref (info->colls);
}

WlInspectReport *
wl_inspect_files (const char *const *paths, guint n, GError **error)
{
  g_return_val_if_fail (paths != NULL || n == 0, NULL);
  g_autoptr (WlInspectReport) report = g_new0 (WlInspectReport, 1);
  report->ranks = g_array_sized_new (FALSE, TRUE, sizeof (RankInfo), n);
  g_array_set_clear_func (report->ranks, rank_info_clear);
  report->figures = g_array_sized_new (FALSE, TRUE, sizeof (WlInspectRank), n);
  report->defects = g_ptr_array_new_with_free_func (g_free);
  report->groups = wl_group_memo_new ();
  report->group_first = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL,
                                               group_first_free);
  for (guint i = 0; i < n; i++)
    {
      RankInfo info = { .path = g_strdup (paths[i]), .rank = rank_of_path (paths[i], i),
                        .colls = g_array_new (FALSE, FALSE, sizeof (CollEntry)) };
      g_array_append_val (report->ranks, info);
    }
  g_array_set_size (report->figures, n);
  for (guint i = 0; i < n; i++)
    if (!scan_file (report, i, error))
      return NULL;
  if (n > 1)
    wl_inspect_compare_sequences (report);
  return g_steal_pointer (&report);
}

/* Whether every one of PATHS is a regular file (else ERROR says what it
 * is): inspect reads each to its end, and a device such as /dev/zero never
 * ends. */
static gboolean
all_regular (const GPtrArray *paths, GError **error)
{
  for (guint i = 0; i < paths->len; i++)
    if (!wl_path_check_regular (g_ptr_array_index (paths, i), error))
      return FALSE;
  return TRUE;
}

GPtrArray *
wl_inspect_resolve (const char *arg, GError **error)
{
  g_return_val_if_fail (arg != NULL, NULL);
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  if (g_file_test (arg, G_FILE_TEST_IS_REGULAR))
    {
      g_ptr_array_add (paths, g_strdup (arg));
      return paths;
    }
  for (guint r = 0;; r++)
    {
      char *p = wl_chakra_trace_path (arg, r);
      /* Any file of the name counts, so that loading says what a device
       * or a directory given as a trace is. */
      if (!g_file_test (p, G_FILE_TEST_EXISTS))
        {
          /* A gap is no end: with PREFIX.5.et gone and PREFIX.6.et there,
           * the five files before it read as a set of five ranks, and
           * every process group naming rank 5 or above as a defect. */
          g_autofree char *next = wl_chakra_trace_path (arg, r + 1);
          if (r > 0 && g_file_test (next, G_FILE_TEST_EXISTS))
            {
              g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                           "%s: not found, but %s is: the trace set has a gap at rank %u "
                           "(inspect reads %s.0.et, %s.1.et, ... up to the first missing one)",
                           p, next, r, arg, arg);
              g_free (p);
              g_ptr_array_unref (paths);
              return NULL;
            }
          g_free (p);
          break;
        }
      g_ptr_array_add (paths, p);
      if (!wl_chakra_trace_form_check (arg, r, p, r > 0 ? paths->pdata[0] : NULL, error))
        {
          g_ptr_array_unref (paths);
          return NULL;
        }
    }
  if (paths->len == 0 && g_file_test (arg, G_FILE_TEST_EXISTS))
    g_ptr_array_add (paths, g_strdup (arg)); /* refused below, saying what it is */
  if (!all_regular (paths, error))
    {
      g_ptr_array_unref (paths);
      return NULL;
    }
  if (paths->len == 0)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: no such file, and no %s.0.et (give a trace file or a PREFIX)", arg, arg);
      g_ptr_array_unref (paths);
      return NULL;
    }
  return paths;
}
