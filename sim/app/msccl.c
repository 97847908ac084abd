/* msccl.c: MSCCL XML read into a program (programs.h has the format).
 *
 * A step becomes one or two operations (a receive that sends on becomes a
 * receive and a send after it); the next step of its thread block and any
 * step naming it in depid/deps wait for its last one.  Channels are
 * (sender, receiver, chan): a thread block sending to a peer on a channel
 * is the only one of its gpu that does, so the order of its steps is the
 * order of the channel's messages (the same for receiving).
 */
#include "sim/app/programs.h"

#include <string.h>

#include "sim/app/xml_schema.h"
#include "sim/error.h"

typedef struct
{
  const char *path;
  SysProgram *prog;
  guint32 ngpus;
  SysCollKind kind;
  gint64 nchunks; /* nchunksperloop */
  /* The <gpu> being read: its id and its buffers' chunk counts (i, o, s). */
  guint32 gpu;
  gint64 chunks[3];
} Msccl;

typedef struct
{
  xmlNode *node;
  guint32 first_op, last_op;
  gint64 depid, deps;
} Step;

typedef struct
{
  xmlNode *node;
  gint64 id, send, recv, chan;
  GArray *steps; /* Step */
} Tb;

/* An integer attribute; `fallback` when absent unless `required`. */
static gboolean
attr_int (const Msccl *m, xmlNode *node, const char *name, gboolean required, gint64 fallback,
          gint64 min, gint64 *out, GError **error)
{
  xmlChar *text = xmlGetProp (node, (const xmlChar *) name);
  if (text == NULL)
    {
      *out = fallback;
      return required ? app_xml_fail_at (m->path, node, error, "needs %s", name) : TRUE;
    }
  gint64 v = 0;
  gboolean ok = g_ascii_string_to_signed ((const char *) text, 10, min, G_MAXINT32, &v, NULL);
  if (!ok)
    app_xml_fail_at (m->path, node, error, "%s=\"%s\": expected a whole number from %"
                     G_GINT64_FORMAT, name, (const char *) text, min);
  xmlFree (text);
  *out = v;
  return ok;
}

static char *
attr_text (xmlNode *node, const char *name)
{
  xmlChar *text = xmlGetProp (node, (const xmlChar *) name);
  char *s = g_strdup (text != NULL ? (const char *) text : "");
  xmlFree (text);
  return s;
}

static gboolean
coll_kind (const char *coll, SysCollKind *out)
{
  static const struct
  {
    const char *name;
    SysCollKind kind;
  } names[] = { { "allreduce", SYS_COLL_ALL_REDUCE }, { "allgather", SYS_COLL_ALL_GATHER },
                { "reducescatter", SYS_COLL_REDUCE_SCATTER }, { "alltoall", SYS_COLL_ALL_TO_ALL } };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_ascii_strcasecmp (coll, names[i].name) == 0)
      return (*out = names[i].kind, TRUE);
  return FALSE;
}

/* A buffer's chunk count on this gpu. */
static gboolean
buffer_chunks (const Msccl *m, xmlNode *step, const char *which, gint64 *out, GError **error)
{
  g_autofree char *buf = attr_text (step, which);
  const char *names = "ios";
  const char *at = buf[0] != '\0' && buf[1] == '\0' ? strchr (names, buf[0]) : NULL;
  if (at == NULL)
    return app_xml_fail_at (m->path, step, error, "%s=\"%s\": expected i, o or s", which, buf);
  *out = m->chunks[at - names];
  return TRUE;
}

/* The chunks a step touches lie in its buffers. */
static gboolean
check_range (const Msccl *m, xmlNode *step, gboolean src, gboolean dst, gint64 cnt,
             GError **error)
{
  for (int side = 0; side < 2; side++)
    {
      if (!(side == 0 ? src : dst))
        continue;
      const char *buf = side == 0 ? "srcbuf" : "dstbuf", *off = side == 0 ? "srcoff" : "dstoff";
      gint64 have = 0, at = 0;
      if (!buffer_chunks (m, step, buf, &have, error)
          || !attr_int (m, step, off, TRUE, 0, 0, &at, error))
        return FALSE;
      if (at + cnt > have)
        {
          g_autofree char *b = attr_text (step, buf);
          return app_xml_fail_at (m->path, step, error,
                                  "%s=\"%" G_GINT64_FORMAT "\" cnt=\"%" G_GINT64_FORMAT
                                  "\": chunks %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT
                                  " of buffer %s, which has %" G_GINT64_FORMAT " on this gpu",
                                  off, at, cnt, at, at + cnt - 1, b, have);
        }
    }
  return TRUE;
}

/* The operations of one step: receive, send, or a local one. */
static gboolean
add_step (Msccl *m, const Tb *tb, xmlNode *node, guint32 index, Step *out, GError **error)
{
  g_autofree char *type = attr_text (node, "type");
  gint64 cnt = 0;
  gboolean nop = strcmp (type, "nop") == 0;
  if (!attr_int (m, node, "cnt", TRUE, 0, nop ? 0 : 1, &cnt, error))
    return FALSE;
  gboolean recv = g_str_has_prefix (type, "r") && strcmp (type, "re") != 0;
  gboolean reduce = strcmp (type, "rrc") == 0 || strcmp (type, "rrs") == 0
                    || strcmp (type, "rrcs") == 0;
  gboolean send = strcmp (type, "s") == 0 || strcmp (type, "rrs") == 0
                  || strcmp (type, "rcs") == 0 || strcmp (type, "rrcs") == 0;
  gboolean local = strcmp (type, "cpy") == 0 || strcmp (type, "re") == 0 || nop;
  if (!(recv && (reduce || send || strcmp (type, "r") == 0)) && !send && !local)
    return app_xml_fail_at (m->path, node, error,
                            "type=\"%s\": unknown step type (s, r, rrc, rrs, rcs, rrcs, cpy, re, "
                            "nop)", type);
  if ((send && tb->send < 0) || (recv && tb->recv < 0))
    return app_xml_fail_at (m->path, node, error,
                            "a %s step in a thread block with no %s peer (%s=\"-1\")", type,
                            send && tb->send < 0 ? "send" : "recv",
                            send && tb->send < 0 ? "send" : "recv");
  if (!nop && !check_range (m, node, send || local, recv || local, cnt, error))
    return FALSE;
  g_autofree char *label = g_strdup_printf ("%s:%ld: gpu %u tb %" G_GINT64_FORMAT " step %u (%s)",
                                            m->path, xmlGetLineNo (node), m->gpu, tb->id, index,
                                            type);
  SysProgOpSpec spec = { .amount = (guint64) cnt, .tag = tb->chan };
  out->node = node;
  if (recv)
    {
      spec.kind = SYS_PROG_RECV;
      spec.peer = (guint32) tb->recv;
      spec.mem = reduce ? SYS_PROG_MEM_REDUCE : SYS_PROG_MEM_NONE;
      out->first_op = out->last_op = sys_program_add (m->prog, m->gpu, &spec, label);
    }
  if (send)
    {
      spec.kind = SYS_PROG_SEND;
      spec.peer = (guint32) tb->send;
      spec.mem = SYS_PROG_MEM_NONE;
      guint32 op = sys_program_add (m->prog, m->gpu, &spec, label);
      if (recv)
        sys_program_add_dep (m->prog, m->gpu, op, out->first_op);
      else
        out->first_op = op;
      out->last_op = op;
    }
  if (local)
    {
      spec.kind = SYS_PROG_COMPUTE;
      spec.mem = nop ? SYS_PROG_MEM_NONE
                     : strcmp (type, "re") == 0 ? SYS_PROG_MEM_REDUCE : SYS_PROG_MEM_COPY;
      out->first_op = out->last_op = sys_program_add (m->prog, m->gpu, &spec, label);
    }
  return attr_int (m, node, "depid", FALSE, -1, -1, &out->depid, error)
         && attr_int (m, node, "deps", FALSE, -1, -1, &out->deps, error);
}

static gboolean
read_tb (Msccl *m, Tb *tb, GError **error)
{
  guint32 index = 0;
  for (xmlNode *s = tb->node->children; s != NULL; s = s->next)
    {
      if (s->type != XML_ELEMENT_NODE)
        continue;
      if (!app_xml_is (s, "step"))
        return app_xml_fail_at (m->path, s, error, "expected <step> in <tb>");
      gint64 num = 0;
      if (!attr_int (m, s, "s", TRUE, 0, 0, &num, error))
        return FALSE;
      if (num != index)
        return app_xml_fail_at (m->path, s, error, "s=\"%" G_GINT64_FORMAT "\": expected %u "
                                "(a thread block's steps are numbered from 0 in order)", num,
                                index);
      Step step = { 0 };
      if (!add_step (m, tb, s, index, &step, error))
        return FALSE;
      if (index > 0)
        sys_program_add_dep (m->prog, m->gpu, step.first_op,
                             g_array_index (tb->steps, Step, index - 1).last_op);
      g_array_append_val (tb->steps, step);
      index++;
    }
  return TRUE;
}

static const Tb *
find_tb (const GArray *tbs, gint64 id)
{
  for (guint i = 0; i < tbs->len; i++)
    if (g_array_index (tbs, Tb, i).id == id)
      return &g_array_index (tbs, Tb, i);
  return NULL;
}

/* depid/deps: the step waits for a step of another thread block. */
static gboolean
link_deps (Msccl *m, const GArray *tbs, GError **error)
{
  for (guint i = 0; i < tbs->len; i++)
    {
      const Tb *tb = &g_array_index (tbs, Tb, i);
      for (guint s = 0; s < tb->steps->len; s++)
        {
          const Step *step = &g_array_index (tb->steps, Step, s);
          if (step->depid < 0)
            continue;
          const Tb *dep = find_tb (tbs, step->depid);
          if (dep == NULL || step->deps < 0 || step->deps >= dep->steps->len)
            return app_xml_fail_at (m->path, step->node, error,
                                    "depid=\"%" G_GINT64_FORMAT "\" deps=\"%" G_GINT64_FORMAT
                                    "\": gpu %u has no such thread block and step",
                                    step->depid, step->deps, m->gpu);
          sys_program_add_dep (m->prog, m->gpu, step->first_op,
                               g_array_index (dep->steps, Step, step->deps).last_op);
        }
    }
  return TRUE;
}

static void
tb_clear (gpointer p)
{
  Tb *tb = p;
  g_clear_pointer (&tb->steps, g_array_unref);
}

/* One thread block's attributes, checked against its gpu's others. */
static gboolean
tb_attrs (Msccl *m, xmlNode *node, const GArray *tbs, Tb *tb, GError **error)
{
  *tb = (Tb) { .node = node };
  if (!attr_int (m, node, "id", TRUE, 0, 0, &tb->id, error)
      || !attr_int (m, node, "send", TRUE, -1, -1, &tb->send, error)
      || !attr_int (m, node, "recv", TRUE, -1, -1, &tb->recv, error)
      || !attr_int (m, node, "chan", FALSE, 0, 0, &tb->chan, error))
    return FALSE;
  if (find_tb (tbs, tb->id) != NULL)
    return app_xml_fail_at (m->path, node, error, "gpu %u has two thread blocks with id %"
                            G_GINT64_FORMAT, m->gpu, tb->id);
  for (int side = 0; side < 2; side++)
    {
      gint64 peer = side == 0 ? tb->send : tb->recv;
      const char *what = side == 0 ? "send" : "recv";
      if (peer >= m->ngpus || peer == m->gpu)
        return app_xml_fail_at (m->path, node, error, "%s=\"%" G_GINT64_FORMAT "\": the peer "
                                "must be another gpu, 0 to %u (or -1 for none)", what, peer,
                                m->ngpus - 1);
      for (guint i = 0; peer >= 0 && i < tbs->len; i++)
        {
          const Tb *o = &g_array_index (tbs, Tb, i);
          if ((side == 0 ? o->send : o->recv) == peer && o->chan == tb->chan)
            return app_xml_fail_at (m->path, node, error,
                                    "gpu %u: thread blocks %" G_GINT64_FORMAT " and %"
                                    G_GINT64_FORMAT " both %s gpu %" G_GINT64_FORMAT
                                    " on channel %" G_GINT64_FORMAT
                                    " (the order of their messages would be undefined)",
                                    m->gpu, o->id, tb->id, side == 0 ? "send to" : "receive from",
                                    peer, tb->chan);
        }
    }
  tb->steps = g_array_new (FALSE, FALSE, sizeof (Step));
  return TRUE;
}

/* The MSCCL runtime's rule (microsoft/msccl, src/graph/topo.cc, where it
 * loads an algorithm): a gpu's i_chunks and o_chunks, when given (not 0),
 * times their multiplier equal nchunksperloop; the multiplier is ngpus for
 * an all-gather's input and a reduce-scatter's output (a rank's share),
 * else 1.  A file that breaks it would run chunks of the wrong size. */
static gboolean
chunks_per_loop (const Msccl *m, xmlNode *node, const gint64 *chunks, GError **error)
{
  for (int b = 0; b < 2; b++)
    {
      gint64 mult = (b == 0 && m->kind == SYS_COLL_ALL_GATHER)
                            || (b == 1 && m->kind == SYS_COLL_REDUCE_SCATTER)
                        ? m->ngpus
                        : 1;
      if (chunks[b] == 0 || chunks[b] * mult == m->nchunks)
        continue;
      g_autofree char *times = mult > 1 ? g_strdup_printf (" x ngpus (%" G_GINT64_FORMAT ")",
                                                           mult)
                                        : g_strdup ("");
      const char *name = b == 0 ? "i_chunks" : "o_chunks";
      return app_xml_fail_at (m->path, node, error,
                              "%s=\"%" G_GINT64_FORMAT "\" but nchunksperloop=\"%" G_GINT64_FORMAT
                              "\": the MSCCL runtime requires %s%s = nchunksperloop (or %s 0)",
                              name, chunks[b], m->nchunks, name, times, name);
    }
  return TRUE;
}

static gboolean
read_gpu (Msccl *m, xmlNode *node, gboolean *seen, GError **error)
{
  gint64 id = 0, chunks[3] = { 0 };
  if (!attr_int (m, node, "id", TRUE, 0, 0, &id, error)
      || !attr_int (m, node, "i_chunks", FALSE, 0, 0, &chunks[0], error)
      || !attr_int (m, node, "o_chunks", FALSE, 0, 0, &chunks[1], error)
      || !attr_int (m, node, "s_chunks", FALSE, 0, 0, &chunks[2], error))
    return FALSE;
  if (id >= m->ngpus)
    return app_xml_fail_at (m->path, node, error, "id=\"%" G_GINT64_FORMAT "\": ngpus is %u "
                            "(ids 0 to %u)", id, m->ngpus, m->ngpus - 1);
  if (seen[id])
    return app_xml_fail_at (m->path, node, error, "a second <gpu id=\"%" G_GINT64_FORMAT "\">",
                            id);
  seen[id] = TRUE;
  if (!chunks_per_loop (m, node, chunks, error))
    return FALSE;
  m->gpu = (guint32) id;
  memcpy (m->chunks, chunks, sizeof chunks);
  g_autoptr (GArray) tbs = g_array_new (FALSE, FALSE, sizeof (Tb));
  g_array_set_clear_func (tbs, tb_clear);
  for (xmlNode *t = node->children; t != NULL; t = t->next)
    {
      if (t->type != XML_ELEMENT_NODE)
        continue;
      if (!app_xml_is (t, "tb"))
        return app_xml_fail_at (m->path, t, error, "expected <tb> in <gpu>");
      Tb tb;
      if (!tb_attrs (m, t, tbs, &tb, error))
        return FALSE;
      g_array_append_val (tbs, tb);
      if (!read_tb (m, &g_array_index (tbs, Tb, tbs->len - 1), error))
        return FALSE;
    }
  return link_deps (m, tbs, error);
}

/* <algo>'s attributes: a program to fill, or FALSE. */
static gboolean
read_algo (Msccl *m, xmlNode *root, SysProgTiming timing, SysCollKind kind, GError **error)
{
  if (!app_xml_is (root, "algo"))
    return app_xml_fail_at (m->path, root, error, "expected <algo> (an MSCCL algorithm)");
  gint64 ngpus = 0, nchunks = 0;
  if (!attr_int (m, root, "ngpus", TRUE, 0, 2, &ngpus, error)
      || !attr_int (m, root, "nchunksperloop", TRUE, 0, 1, &nchunks, error))
    return FALSE;
  g_autofree char *coll = attr_text (root, "coll");
  SysCollKind is;
  if (!coll_kind (coll, &is))
    return app_xml_fail_at (m->path, root, error, "coll=\"%s\": expected allreduce, allgather, "
                            "reducescatter or alltoall", coll);
  if (is != kind)
    return app_xml_fail_at (m->path, root, error, "coll=\"%s\", but it is given for %s", coll,
                            sys_coll_kind_name (kind));
  g_autofree char *name = attr_text (root, "name");
  g_autofree char *row = g_strdup_printf ("msccl:%s", name[0] != '\0' ? name : m->path);
  /* Nothing is sized by ngpus before it is checked against the file: one
   * <gpu> each (ngpus="100000000" would allocate gigabytes first). */
  guint32 gpus = 0;
  for (xmlNode *g = root->children; g != NULL; g = g->next)
    gpus += g->type == XML_ELEMENT_NODE && app_xml_is (g, "gpu");
  if (ngpus > gpus)
    return app_xml_fail_at (m->path, root, error, "ngpus=\"%" G_GINT64_FORMAT "\" but there %s "
                            "%u <gpu> element%s (one per gpu)", ngpus, gpus == 1 ? "is" : "are",
                            gpus, gpus == 1 ? "" : "s");
  m->ngpus = (guint32) ngpus;
  m->kind = kind;
  m->nchunks = nchunks;
  m->prog = sys_program_new (row, m->path, m->ngpus, timing, (guint32) nchunks);
  sys_program_set_kinds (m->prog, SYS_KIND_BIT (kind));
  return TRUE;
}

SysProgram *
app_msccl_load (const char *path, SysProgTiming timing, SysCollKind kind, GError **error)
{
  g_autoptr (xmlDoc) doc = app_xml_read (path, error);
  if (doc == NULL)
    return NULL;
  xmlNode *root = xmlDocGetRootElement (doc);
  Msccl m = { .path = path };
  if (root == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "%s: no <algo> element", path);
      return NULL;
    }
  if (!read_algo (&m, root, timing, kind, error))
    return NULL;
  g_autofree gboolean *seen = g_new0 (gboolean, m.ngpus);
  gboolean ok = TRUE;
  for (xmlNode *g = root->children; ok && g != NULL; g = g->next)
    if (g->type == XML_ELEMENT_NODE)
      ok = app_xml_is (g, "gpu") ? read_gpu (&m, g, seen, error)
                                 : app_xml_fail_at (path, g, error, "expected <gpu> in <algo>");
  for (guint32 i = 0; ok && i < m.ngpus; i++)
    if (!seen[i])
      ok = app_xml_fail_at (path, root, error, "ngpus=\"%u\" but there is no <gpu id=\"%u\">",
                            m.ngpus, i);
  if (ok)
    ok = sys_program_seal (m.prog, error);
  if (!ok)
    {
      sys_program_free (m.prog);
      return NULL;
    }
  return m.prog;
}
