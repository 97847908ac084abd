/* kernels.c: the `kernels` attribute, kernel lists, the measured table and
 * list prices (see kernels.h). */
#include "workload/kernels.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/error.h"
#include "sim/units.h"
#include "workload/wl_error.h"

/* ---- grammar ------------------------------------------------------------------ */

static const char *const op_names[WL_KERNEL_N] = { "gemm", "attn", "mem" };

/* A key of an op.  Numeric keys name a guint64 field; the others are read
 * by name (dtype, dir, causal, what). */
typedef struct
{
  const char *name;
  gssize offset;     /* of the guint64 field, or -1 */
  gboolean required;
} KeySpec;

#define F(field) ((gssize) G_STRUCT_OFFSET (WlKernel, field))
static const KeySpec gemm_keys[] = {
  { "m", F (m), TRUE }, { "n", F (n), TRUE }, { "k", F (k), TRUE }, { "batch", F (batch), FALSE },
  { "dtype", -1, FALSE }, { "count", F (count), FALSE }, { NULL, 0, FALSE },
};
static const KeySpec attn_keys[] = {
  { "dir", -1, TRUE },     { "b", F (b), TRUE },        { "hq", F (hq), TRUE },
  { "hkv", F (hkv), FALSE }, { "sq", F (sq), TRUE },      { "skv", F (skv), FALSE },
  { "d", F (d), TRUE },    { "causal", -1, FALSE },     { "dtype", -1, FALSE },
  { "count", F (count), FALSE }, { NULL, 0, FALSE },
};
static const KeySpec mem_keys[] = {
  { "bytes", F (bytes), TRUE }, { "what", -1, FALSE }, { "flops", F (flops), FALSE },
  { "count", F (count), FALSE }, { NULL, 0, FALSE },
};
#undef F
static const KeySpec *const op_keys[WL_KERNEL_N] = { gemm_keys, attn_keys, mem_keys };

static gboolean
bad (GError **error, const char *format, ...) G_GNUC_PRINTF (2, 3);

static gboolean
bad (GError **error, const char *format, ...)
{
  va_list ap;
  va_start (ap, format);
  g_autofree char *msg = g_strdup_vprintf (format, ap);
  va_end (ap);
  g_set_error (error, WL_ERROR, SIM_ERROR_INPUT, "kernels: %s", msg);
  return FALSE;
}

static gboolean
parse_u64 (const char *text, guint64 *out)
{
  if (!g_ascii_isdigit (text[0]))
    return FALSE;
  char *end = NULL;
  errno = 0;
  guint64 v = g_ascii_strtoull (text, &end, 10);
  if (errno != 0 || *end != '\0')
    return FALSE;
  *out = v;
  return TRUE;
}

/* A key that is not a plain integer. */
static gboolean
set_special (WlKernel *k, const char *op, const char *key, const char *value, GError **error)
{
  WlDtype t;
  if (strcmp (key, "dtype") == 0)
    {
      if (!wl_dtype_parse (value, &t))
        return bad (error, "'%s' dtype '%s' is not one of fp32, tf32, bf16, fp16, fp8", op, value);
      k->dtype = (guint8) t;
    }
  else if (strcmp (key, "dir") == 0)
    {
      if (strcmp (value, "fwd") != 0 && strcmp (value, "bwd") != 0)
        return bad (error, "'%s' dir '%s' is not fwd or bwd", op, value);
      k->bwd = strcmp (value, "bwd") == 0;
    }
  else if (strcmp (key, "causal") == 0)
    {
      if (strcmp (value, "0") != 0 && strcmp (value, "1") != 0)
        return bad (error, "'%s' causal '%s' is not 0 or 1", op, value);
      k->causal = value[0] == '1';
    }
  else
    {
      gsize len = strlen (value);
      if (len == 0 || len >= sizeof k->what || strspn (value, "abcdefghijklmnopqrstuvwxyz0123456789_") != len)
        return bad (error, "'%s' what '%s' is not a name ([a-z0-9_], up to %u characters)", op,
                    value, (unsigned) sizeof k->what - 1);
      g_strlcpy (k->what, value, sizeof k->what);
    }
  return TRUE;
}

/* One key=value of op; SEEN has a bit per key of the op's list. */
static gboolean
parse_kv (WlKernel *k, const char *kv, guint *seen, GError **error)
{
  const char *op = op_names[k->op];
  const char *eq = strchr (kv, '=');
  if (eq == NULL || eq == kv)
    return bad (error, "'%s' in '%s' is not key=value", kv, op);
  g_autofree char *key = g_strndup (kv, (gsize) (eq - kv));
  const KeySpec *spec = op_keys[k->op];
  guint i = 0;
  while (spec[i].name != NULL && strcmp (spec[i].name, key) != 0)
    i++;
  if (spec[i].name == NULL)
    return bad (error, "'%s' has no key '%s'", op, key);
  if (*seen & (1u << i))
    return bad (error, "'%s' gives %s twice", op, key);
  *seen |= 1u << i;
  if (spec[i].offset < 0)
    return set_special (k, op, key, eq + 1, error);
  guint64 *field = G_STRUCT_MEMBER_P (k, spec[i].offset);
  if (!parse_u64 (eq + 1, field))
    return bad (error, "'%s' %s='%s' is not a decimal integer", op, key, eq + 1);
  gboolean may_be_zero = strcmp (key, "bytes") == 0 || strcmp (key, "flops") == 0;
  if (*field == 0 && !may_be_zero)
    return bad (error, "'%s' %s must be at least 1", op, key);
  return TRUE;
}

/* OP's keys given in KVS, separated by SEP, into *K (defaults first). */
static gboolean
parse_kernel (WlKernelOp op, const char *kvs, char sep, WlKernel *k, GError **error)
{
  *k = (WlKernel) { .op = (guint8) op, .dtype = WL_DTYPE_BF16, .count = 1, .batch = 1 };
  g_strlcpy (k->what, "mem", sizeof k->what);
  guint seen = 0;
  char seps[2] = { sep, '\0' };
  g_auto (GStrv) parts = g_strsplit (kvs, seps, -1);
  for (guint i = 0; parts[i] != NULL; i++)
    if (!parse_kv (k, parts[i], &seen, error))
      return FALSE;
  const KeySpec *spec = op_keys[op];
  for (guint i = 0; spec[i].name != NULL; i++)
    if (spec[i].required && !(seen & (1u << i)))
      return bad (error, "'%s' needs %s", op_names[op], spec[i].name);
  if (op == WL_KERNEL_ATTN)
    {
      k->hkv = k->hkv > 0 ? k->hkv : k->hq;
      k->skv = k->skv > 0 ? k->skv : k->sq;
    }
  return TRUE;
}

static gboolean
op_parse (const char *name, WlKernelOp *op, GError **error)
{
  for (guint i = 0; i < WL_KERNEL_N; i++)
    if (strcmp (name, op_names[i]) == 0)
      {
        *op = (WlKernelOp) i;
        return TRUE;
      }
  return bad (error, "'%s' is not a kernel (gemm, attn, mem)", name);
}

gboolean
wl_kernels_parse (const char *text, GArray *out, GError **error)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  g_auto (GStrv) items = g_strsplit (text, ";", -1);
  if (items[0] == NULL)
    return bad (error, "the list is empty");
  for (guint i = 0; items[i] != NULL; i++)
    {
      const char *colon = strchr (items[i], ':');
      if (colon == NULL)
        return bad (error, "'%s' is not op:key=value,...", items[i]);
      g_autofree char *name = g_strndup (items[i], (gsize) (colon - items[i]));
      WlKernelOp op = WL_KERNEL_GEMM;
      WlKernel k;
      if (!op_parse (name, &op, error) || !parse_kernel (op, colon + 1, ',', &k, error))
        return FALSE;
      g_array_append_val (out, k);
    }
  return TRUE;
}

/* The kernel's shapes after defaults, dtype and count left out: what the
 * measured table matches on. */
static void
kernel_key (const WlKernel *k, GString *s)
{
  switch ((WlKernelOp) k->op)
    {
    case WL_KERNEL_GEMM:
      g_string_append_printf (s, "gemm m=%" G_GUINT64_FORMAT " n=%" G_GUINT64_FORMAT
                              " k=%" G_GUINT64_FORMAT " batch=%" G_GUINT64_FORMAT,
                              k->m, k->n, k->k, k->batch);
      break;
    case WL_KERNEL_ATTN:
      g_string_append_printf (s, "attn dir=%s b=%" G_GUINT64_FORMAT " hq=%" G_GUINT64_FORMAT
                              " hkv=%" G_GUINT64_FORMAT " sq=%" G_GUINT64_FORMAT
                              " skv=%" G_GUINT64_FORMAT " d=%" G_GUINT64_FORMAT " causal=%d",
                              k->bwd ? "bwd" : "fwd", k->b, k->hq, k->hkv, k->sq, k->skv, k->d,
                              k->causal);
      break;
    case WL_KERNEL_MEM:
    case WL_KERNEL_N:
    default:
      g_string_append_printf (s, "mem bytes=%" G_GUINT64_FORMAT " what=%s flops=%" G_GUINT64_FORMAT,
                              k->bytes, k->what, k->flops);
      break;
    }
  g_string_append_printf (s, " dtype=%s", wl_dtype_name ((WlDtype) k->dtype));
}

/* ---- lists ---------------------------------------------------------------------- */

struct _WlKernelLists
{
  guint32 *slots;      /* open addressing by text_hash: a number, 0 empty */
  guint32 mask;        /* slots - 1 (a power of two less one) */
  GArray *hashes;      /* guint64 text_hash per number - 1 */
  GArray *lens;        /* gsize: each text's length */
  GPtrArray *texts;    /* char *, by number - 1 */
  GPtrArray *lists;    /* GArray of WlKernel, by number - 1 */
  GArray *ns;          /* double per list: its price, NAN until computed */
  /* Per list, a GArray of MatrixTerm: the terms wl_kernel_lists_matrix_flops
   * adds, made when the list is (it runs once per compute node). */
  GPtrArray *matrix;
  const WlKernelDevice *priced_dev;
  const WlKernelTable *priced_table;
  GHashTable *ns_on;   /* (index << 32 | SMs) -> double: prices on fewer SMs */
  /* The numbers of texts met lately, in a slot by their length and three
   * of their bytes (recent_slot; 0 empty): a trace's compute nodes repeat
   * a few texts of hundreds of bytes, which are then compared, not
   * hashed. */
  guint32 recent[64];
};

/* TEXT's (LEN bytes, LEN > 0) slot in L->recent. */
static inline guint32 *
recent_slot (WlKernelLists *l, const char *text, gsize len)
{
  const guchar *p = (const guchar *) text;
  gsize h = len * 31u + (gsize) p[0] * 7u + (gsize) p[len / 2] * 131u + p[len - 1];
  return &l->recent[h % G_N_ELEMENTS (l->recent)];
}

/* The hash of a `kernels` text of N bytes, eight bytes at a time: loading
 * looks up every COMP node's text (often hundreds of bytes).  The table
 * is never iterated, so the hash decides nothing but speed. */
static guint64
text_hash (const char *s, gsize n)
{
  /* FNV-1a's 64-bit prime, applied per 64-bit word, then folded. */
  guint64 h = 0xcbf29ce484222325ULL ^ n;
  gsize i = 0;
  for (; i + 8 <= n; i += 8)
    {
      guint64 w;
      memcpy (&w, s + i, sizeof w);
      h = (h ^ w) * 0x100000001b3ULL;
      h ^= h >> 32;
    }
  for (; i < n; i++)
    h = (h ^ (guchar) s[i]) * 0x100000001b3ULL;
  return h ^ (h >> 29);
}

#define FIRST_SLOTS 64u

/* One GEMM or attention kernel's matrix FLOPs, count x wl_kernel_flops,
 * and the dtype they count for. */
typedef struct
{
  guint32 dtype;
  double flops;
} MatrixTerm;

/* LIST's MatrixTerms, in its order (a new array). */
static GArray *
matrix_terms (const GArray *list)
{
  GArray *terms = g_array_new (FALSE, FALSE, sizeof (MatrixTerm));
  for (guint i = 0; i < list->len; i++)
    {
      const WlKernel *k = &g_array_index (list, WlKernel, i);
      if ((k->op == WL_KERNEL_GEMM || k->op == WL_KERNEL_ATTN) && k->dtype < WL_DTYPE_N)
        {
          MatrixTerm t = { .dtype = k->dtype, .flops = (double) k->count * wl_kernel_flops (k) };
          g_array_append_val (terms, t);
        }
    }
  return terms;
}

WlKernelLists *
wl_kernel_lists_new (void)
{
  WlKernelLists *l = g_new0 (WlKernelLists, 1);
  l->slots = g_new0 (guint32, FIRST_SLOTS);
  l->mask = FIRST_SLOTS - 1;
  l->hashes = g_array_new (FALSE, FALSE, sizeof (guint64));
  l->lens = g_array_new (FALSE, FALSE, sizeof (gsize));
  l->texts = g_ptr_array_new_with_free_func (g_free);
  l->lists = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  l->ns = g_array_new (FALSE, FALSE, sizeof (double));
  l->matrix = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  return l;
}

void
wl_kernel_lists_free (WlKernelLists *l)
{
  if (l == NULL)
    return;
  g_free (l->slots);
  g_array_unref (l->hashes);
  g_array_unref (l->lens);
  g_ptr_array_unref (l->texts);
  g_ptr_array_unref (l->lists);
  g_array_unref (l->ns);
  g_ptr_array_unref (l->matrix);
  if (l->ns_on != NULL)
    g_hash_table_unref (l->ns_on);
  g_free (l);
}

/* The slot of the text with hash H, LEN bytes at TEXT: its number's, or
 * the empty one where it would go. */
static guint32 *
find_slot (const WlKernelLists *l, guint64 h, const char *text, gsize len)
{
  for (guint32 i = (guint32) h & l->mask;; i = (i + 1) & l->mask)
    {
      guint32 k = l->slots[i];
      if (k == 0
          || (g_array_index (l->hashes, guint64, k - 1) == h
              && g_array_index (l->lens, gsize, k - 1) == len
              && memcmp (l->texts->pdata[k - 1], text, len) == 0))
        return &l->slots[i];
    }
}

/* Twice the slots, once they are half full. */
static void
grow_slots (WlKernelLists *l)
{
  guint32 n = l->mask + 1;
  if (l->texts->len < n / 2)
    return;
  g_free (l->slots);
  l->slots = g_new0 (guint32, (gsize) 2 * n);
  l->mask = 2 * n - 1;
  for (guint32 k = 1; k <= l->texts->len; k++)
    {
      guint32 i = (guint32) g_array_index (l->hashes, guint64, k - 1) & l->mask;
      while (l->slots[i] != 0)
        i = (i + 1) & l->mask;
      l->slots[i] = k;
    }
}

gboolean
wl_kernel_lists_intern (WlKernelLists *l, const char *text, guint32 *index, GError **error)
{
  g_return_val_if_fail (text != NULL, FALSE);
  return wl_kernel_lists_intern_len (l, text, strlen (text), index, error);
}

gboolean
wl_kernel_lists_intern_len (WlKernelLists *l, const char *text, gsize len, guint32 *index,
                            GError **error)
{
  g_return_val_if_fail (l != NULL && text != NULL && index != NULL, FALSE);
  guint32 *recent = len > 0 ? recent_slot (l, text, len) : NULL;
  if (recent != NULL && *recent != 0 && g_array_index (l->lens, gsize, *recent - 1) == len
      && memcmp (l->texts->pdata[*recent - 1], text, len) == 0)
    {
      *index = *recent;
      return TRUE;
    }
  guint64 h = text_hash (text, len);
  guint32 *slot = find_slot (l, h, text, len);
  if (*slot != 0)
    {
      *index = *slot;
      if (recent != NULL)
        *recent = *slot;
      return TRUE;
    }
  char *copy = g_strndup (text, len);
  GArray *list = g_array_new (FALSE, FALSE, sizeof (WlKernel));
  if (!wl_kernels_parse (copy, list, error))
    {
      g_array_unref (list);
      g_free (copy);
      return FALSE;
    }
  g_ptr_array_add (l->texts, copy);
  g_ptr_array_add (l->lists, list);
  g_ptr_array_add (l->matrix, matrix_terms (list));
  g_array_append_val (l->hashes, h);
  g_array_append_val (l->lens, len);
  double unpriced = NAN;
  g_array_append_val (l->ns, unpriced);
  *index = l->texts->len;
  *slot = *index;
  if (recent != NULL)
    *recent = *index;
  grow_slots (l);
  return TRUE;
}

gboolean
wl_kernel_lists_equal (const WlKernelLists *a, const WlKernelLists *b)
{
  guint na = a != NULL ? a->texts->len : 0, nb = b != NULL ? b->texts->len : 0;
  if (na != nb)
    return FALSE;
  for (guint i = 0; i < na; i++)
    if (strcmp (a->texts->pdata[i], b->texts->pdata[i]) != 0)
      return FALSE;
  return TRUE;
}

void
wl_kernel_lists_table_use (const WlKernelLists *l, const WlKernelTable *table, const char *device,
                           GHashTable *seen, guint *distinct, guint *from_table)
{
  g_return_if_fail (l != NULL && seen != NULL && distinct != NULL && from_table != NULL);
  for (guint i = 0; i < l->lists->len; i++)
    {
      const GArray *ks = g_ptr_array_index (l->lists, i);
      for (guint j = 0; j < ks->len; j++)
        {
          const WlKernel *k = &g_array_index (ks, WlKernel, j);
          GString *s = g_string_new (NULL);
          kernel_key (k, s);
          char *key = g_string_free (s, FALSE);
          if (!g_hash_table_add (seen, key))
            continue; /* seen: GLib kept one copy of the key */
          (*distinct)++;
          *from_table += wl_kernel_table_ns (table, device, k) >= 0;
        }
    }
}

/* ---- pricing -------------------------------------------------------------------- */

/* wl_kernel_list_ns on SMS of DEV's SMs. */
static double
list_ns_on (const WlKernelDevice *dev, const WlKernelTable *table, const GArray *kernels,
            guint32 sms)
{
  double total = 0;
  for (guint i = 0; i < kernels->len; i++)
    {
      const WlKernel *k = &g_array_index (kernels, WlKernel, i);
      double ns = wl_kernel_table_ns (table, dev->name, k);
      if (ns < 0)
        ns = wl_kernel_ns_on (dev, k, sms);
      total += (double) k->count * (ns + dev->launch_ns);
    }
  return total;
}

double
wl_kernel_list_ns (const WlKernelDevice *dev, const WlKernelTable *table, const GArray *kernels)
{
  g_return_val_if_fail (dev != NULL && kernels != NULL, 0.0);
  return list_ns_on (dev, table, kernels, dev->n_sm);
}

/* Forget the prices when the device or table changes. */
static void
priced_for (WlKernelLists *l, const WlKernelDevice *dev, const WlKernelTable *table)
{
  if (l->priced_dev == dev && l->priced_table == table)
    return;
  for (guint i = 0; i < l->ns->len; i++)
    g_array_index (l->ns, double, i) = NAN;
  if (l->ns_on != NULL)
    g_hash_table_remove_all (l->ns_on);
  l->priced_dev = dev;
  l->priced_table = table;
}

double
wl_kernel_lists_ns (WlKernelLists *l, guint32 index, const WlKernelDevice *dev,
                    const WlKernelTable *table)
{
  g_return_val_if_fail (l != NULL && index >= 1 && index <= l->lists->len, 0.0);
  priced_for (l, dev, table);
  double *ns = &g_array_index (l->ns, double, index - 1);
  if (isnan (*ns))
    *ns = wl_kernel_list_ns (dev, table, l->lists->pdata[index - 1]);
  return *ns;
}

double
wl_kernel_lists_ns_on (WlKernelLists *l, guint32 index, const WlKernelDevice *dev,
                       const WlKernelTable *table, guint32 sms)
{
  g_return_val_if_fail (l != NULL && dev != NULL && index >= 1 && index <= l->lists->len, 0.0);
  if (sms >= dev->n_sm)
    return wl_kernel_lists_ns (l, index, dev, table);
  priced_for (l, dev, table);
  if (l->ns_on == NULL)
    l->ns_on = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  gint64 key = (gint64) index << 32 | sms;
  const double *got = g_hash_table_lookup (l->ns_on, &key);
  if (got != NULL)
    return *got;
  double ns = list_ns_on (dev, table, l->lists->pdata[index - 1], MAX (sms, 1u));
  g_hash_table_insert (l->ns_on, g_memdup2 (&key, sizeof key), g_memdup2 (&ns, sizeof ns));
  return ns;
}

void
wl_kernel_lists_matrix_flops (const WlKernelLists *l, guint32 index, double out[WL_DTYPE_N])
{
  g_return_if_fail (l != NULL && index >= 1 && index <= l->lists->len);
  /* The terms one by one, in the list's order: the same sums, to the bit,
   * as adding each kernel's count x FLOPs here. */
  const GArray *terms = l->matrix->pdata[index - 1];
  for (guint i = 0; i < terms->len; i++)
    {
      const MatrixTerm *t = &g_array_index (terms, MatrixTerm, i);
      out[t->dtype] += t->flops;
    }
}

/* ---- the measured table --------------------------------------------------------- */

struct _WlKernelTable
{
  GHashTable *ns; /* "DEVICE\tKEY" (device lower-cased) -> double* ns */
  GPtrArray *devices; /* the rows' devices as first written, each once (char *) */
};

void
wl_kernel_table_free (WlKernelTable *t)
{
  if (t == NULL)
    return;
  g_hash_table_unref (t->ns);
  g_ptr_array_unref (t->devices);
  g_free (t);
}

static char *
table_key (const char *device, const WlKernel *k)
{
  GString *s = g_string_new (NULL);
  g_autofree char *dev = g_ascii_strdown (device, -1);
  g_string_append_printf (s, "%s\t", dev);
  kernel_key (k, s);
  return g_string_free (s, FALSE);
}

double
wl_kernel_table_ns (const WlKernelTable *t, const char *device, const WlKernel *k)
{
  if (t == NULL || g_hash_table_size (t->ns) == 0)
    return -1.0;
  g_autofree char *key = table_key (device, k);
  const double *ns = g_hash_table_lookup (t->ns, key);
  return ns != NULL ? *ns : -1.0;
}

/* "812us" -> 812000 ns. */
static gboolean
time_parse (const char *text, double *ns)
{
  /* The project's unit parser: decimal only, exact, every time unit. */
  SimTime ps = 0;
  if (!sim_units_parse_time (text, &ps, NULL) || ps == 0)
    return FALSE;
  *ns = (double) ps / 1000.0;
  return TRUE;
}

/* One row: operator,shapes,dtype,device,time. */
static gboolean
table_row (WlKernelTable *t, char **cols, GError **error)
{
  if (g_strv_length (cols) != 5)
    return bad (error, "a row has 5 columns: operator,shapes,dtype,device,time");
  WlKernelOp op = WL_KERNEL_GEMM;
  WlKernel k;
  WlDtype dtype;
  double ns;
  /* Shapes spaced by several blanks or a tab (a spreadsheet's doing) are
   * the same shapes: one space between pairs, as the grammar has them. */
  g_auto (GStrv) pairs = g_strsplit_set (cols[1], " \t", -1);
  g_autoptr (GString) shapes = g_string_new (NULL);
  for (guint i = 0; pairs[i] != NULL; i++)
    if (pairs[i][0] != '\0')
      g_string_append_printf (shapes, "%s%s", shapes->len > 0 ? " " : "", pairs[i]);
  if (!op_parse (g_strstrip (cols[0]), &op, error)
      || !parse_kernel (op, shapes->str, ' ', &k, error))
    return FALSE;
  if (strstr (cols[1], "dtype=") != NULL || strstr (cols[1], "count=") != NULL)
    return bad (error, "dtype and count are columns of their own, not shapes");
  if (!wl_dtype_parse (g_strstrip (cols[2]), &dtype))
    return bad (error, "dtype '%s' is not one of fp32, tf32, bf16, fp16, fp8", cols[2]);
  k.dtype = (guint8) dtype;
  if (!time_parse (g_strstrip (cols[4]), &ns))
    return bad (error, "time '%s' is not a positive number with a unit (ns, us, ms, s)", cols[4]);
  const WlKernelDevice *dev = wl_kernel_device (g_strstrip (cols[3]));
  if (dev == NULL)
    {
      g_autofree char *known = wl_kernel_device_names ();
      return bad (error, "device '%s' is not a preset (%s)", cols[3], known);
    }
  if (ns < wl_kernel_bound_ns (dev, &k) * (1.0 - 1e-9))
    return bad (error, "%s (%.6g ns) is faster than %s's peak and bandwidth allow (%.6g ns)",
                cols[4], ns, dev->name, wl_kernel_bound_ns (dev, &k));
  char *key = table_key (cols[3], &k);
  if (g_hash_table_contains (t->ns, key))
    {
      g_free (key);
      return bad (error, "this kernel is in the table already");
    }
  g_hash_table_insert (t->ns, key, g_memdup2 (&ns, sizeof ns));
  if (!wl_kernel_table_has_device (t, cols[3]))
    g_ptr_array_add (t->devices, g_strdup (cols[3]));
  return TRUE;
}

WlKernelTable *
wl_kernel_table_parse (const char *path, const char *text, gsize len, GError **error)
{
  g_return_val_if_fail (path != NULL && text != NULL, NULL);
  /* A NUL would end the text early and drop every row after it unseen. */
  const char *nul = memchr (text, '\0', len);
  if (nul != NULL)
    {
      guint line = 1;
      for (const char *c = text; c < nul; c++)
        line += *c == '\n';
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s:%u: a NUL byte: not a text CSV file", path, line);
      return NULL;
    }
  WlKernelTable *t = g_new0 (WlKernelTable, 1);
  t->ns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  t->devices = g_ptr_array_new_with_free_func (g_free);
  /* A UTF-8 byte-order mark, which Excel's "CSV UTF-8" writes first, is no
   * part of the header. */
  if (len >= 3 && memcmp (text, "\xef\xbb\xbf", 3) == 0)
    text += 3;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  gboolean header = FALSE;
  for (guint i = 0; lines[i] != NULL; i++)
    {
      char *line = g_strstrip (lines[i]);
      if (line[0] == '\0' || line[0] == '#')
        continue;
      g_auto (GStrv) cols = g_strsplit (line, ",", -1);
      gboolean ok = header ? table_row (t, cols, error)
                           : strcmp (line, "operator,shapes,dtype,device,time") == 0
                               || bad (error, "the first line must be the header "
                                              "operator,shapes,dtype,device,time");
      if (!ok)
        {
          g_prefix_error (error, "%s:%u: ", path, i + 1);
          wl_kernel_table_free (t);
          return NULL;
        }
      header = TRUE;
    }
  /* A 0-byte file (or blanks and comments alone) is no table: most likely
   * the wrong file or one not yet written. */
  if (!header)
    {
      g_set_error (error, WL_ERROR, SIM_ERROR_INPUT,
                   "%s: empty: a kernel table's first line is the header "
                   "operator,shapes,dtype,device,time", path);
      wl_kernel_table_free (t);
      return NULL;
    }
  return t;
}

gboolean
wl_kernel_table_has_device (const WlKernelTable *t, const char *device)
{
  /* As table_key matches them: the device's name without case. */
  for (guint i = 0; i < t->devices->len; i++)
    if (g_ascii_strcasecmp (t->devices->pdata[i], device) == 0)
      return TRUE;
  return FALSE;
}

char *
wl_kernel_table_devices (const WlKernelTable *t)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < t->devices->len; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", (const char *) t->devices->pdata[i]);
  return g_string_free (s, FALSE);
}
