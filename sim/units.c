/* units.c: exact parsing of quantities with units, and their formatting. */
#include "sim/units.h"

#include <math.h>

#include <string.h>

#include "sim/error.h"

/* A unit is the rational num/den of the program's unit: 1 ns = 1000/1 ps,
 * 1 Gb/s = 1e9/8 B/s. */
typedef struct
{
  const char *name;
  guint64 num;
  guint64 den;
} Unit;

typedef struct
{
  const char *what; /* "time", "size", ... for messages */
  const Unit *units;
  guint n_units;
} UnitSet;

#define K1 G_GUINT64_CONSTANT (1000)
#define K2 (K1 * K1)
#define K3 (K2 * K1)
#define K4 (K3 * K1)
#define K5 (K4 * K1)
#define BIN(n) (G_GUINT64_CONSTANT (1) << (10 * (n)))

static const Unit time_units[] = {
  { "ps", 1, 1 }, { "ns", K1, 1 }, { "us", K2, 1 }, { "µs", K2, 1 }, { "ms", K3, 1 },
  { "s", K4, 1 },
};

static const Unit byte_units[] = {
  { "B", 1, 1 },         { "KB", K1, 1 },       { "MB", K2, 1 },       { "GB", K3, 1 },
  { "TB", K4, 1 },       { "KiB", BIN (1), 1 }, { "MiB", BIN (2), 1 }, { "GiB", BIN (3), 1 },
  { "TiB", BIN (4), 1 },
};

static const Unit bandwidth_units[] = {
  { "B/s", 1, 1 },         { "KB/s", K1, 1 },       { "MB/s", K2, 1 },
  { "GB/s", K3, 1 },       { "TB/s", K4, 1 },       { "KiB/s", BIN (1), 1 },
  { "MiB/s", BIN (2), 1 }, { "GiB/s", BIN (3), 1 }, { "TiB/s", BIN (4), 1 },
  { "Kb/s", K1, 8 },       { "Mb/s", K2, 8 },       { "Gb/s", K3, 8 },
  { "Tb/s", K4, 8 },       { "Kbps", K1, 8 },       { "Mbps", K2, 8 },
  { "Gbps", K3, 8 },       { "Tbps", K4, 8 },
};

static const Unit flops_units[] = {
  { "FLOP/s", 1, 1 },   { "KFLOP/s", K1, 1 }, { "MFLOP/s", K2, 1 }, { "GFLOP/s", K3, 1 },
  { "TFLOP/s", K4, 1 }, { "PFLOP/s", K5, 1 }, { "FLOPS", 1, 1 },    { "KFLOPS", K1, 1 },
  { "MFLOPS", K2, 1 },  { "GFLOPS", K3, 1 },  { "TFLOPS", K4, 1 },  { "PFLOPS", K5, 1 },
};

static const UnitSet time_set = { "time", time_units, G_N_ELEMENTS (time_units) };
static const UnitSet byte_set = { "size", byte_units, G_N_ELEMENTS (byte_units) };
static const UnitSet bandwidth_set = { "bandwidth", bandwidth_units,
                                       G_N_ELEMENTS (bandwidth_units) };
static const UnitSet flops_set = { "compute rate", flops_units, G_N_ELEMENTS (flops_units) };

/* An exact decimal: mant x 10^exp10, with no trailing zeros in mant. */
typedef struct
{
  guint64 mant;
  int exp10;
} Decimal;

/* Exponents beyond this are out of range for every unit; the bound keeps the
 * exponent arithmetic far from int overflow. */
#define EXP10_LIMIT 400

typedef enum
{
  DEC_OK,
  DEC_NOT_WHOLE,
  DEC_OVERFLOW,
  DEC_TOO_LONG /* more significant digits than 64 bits hold */
} DecStatus;

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* Append one digit to the mantissa; leading zeros change nothing. */
static void
decimal_push (Decimal *d, guint digit, DecStatus *status)
{
  if (d->mant > (G_MAXUINT64 - digit) / 10)
    *status = DEC_TOO_LONG;
  else
    d->mant = d->mant * 10 + digit;
}

/* Scan "digits[.digits][e[+-]digits]" at p.  Returns the end of the number,
 * or NULL when p does not start with a digit.  *status is DEC_TOO_LONG when
 * the significant digits do not fit in 64 bits. */
static const char *
decimal_scan (const char *p, Decimal *d, DecStatus *status)
{
  if (!g_ascii_isdigit (*p))
    return NULL;
  *status = DEC_OK;
  d->mant = 0;
  d->exp10 = 0;
  /* Zeros are held back until a nonzero digit follows, so that trailing
   * zeros ("500", "1.50") become exponent instead of filling the mantissa. */
  guint pending_zeros = 0;
  gboolean in_fraction = FALSE;
  for (;; p++)
    {
      if (*p == '.' && !in_fraction && g_ascii_isdigit (p[1]))
        {
          in_fraction = TRUE;
          continue;
        }
      if (!g_ascii_isdigit (*p))
        break;
      if (in_fraction)
        d->exp10--;
      if (*p == '0')
        {
          pending_zeros++;
          continue;
        }
      for (; pending_zeros > 0; pending_zeros--)
        decimal_push (d, 0, status);
      decimal_push (d, (guint) (*p - '0'), status);
    }
  d->exp10 += (int) MIN (pending_zeros, (guint) EXP10_LIMIT + 1);
  if ((*p == 'e' || *p == 'E')
      && (g_ascii_isdigit (p[1]) || ((p[1] == '+' || p[1] == '-') && g_ascii_isdigit (p[2]))))
    {
      p++;
      int sign = *p == '-' ? -1 : 1;
      if (*p == '+' || *p == '-')
        p++;
      int e = 0;
      for (; g_ascii_isdigit (*p); p++)
        if (e <= EXP10_LIMIT)
          e = e * 10 + (*p - '0');
      d->exp10 += sign * MIN (e, EXP10_LIMIT + 1);
    }
  if (d->mant == 0)
    d->exp10 = 0;
  if (*status == DEC_OK && (d->exp10 > EXP10_LIMIT || d->exp10 < -EXP10_LIMIT))
    *status = d->exp10 > 0 ? DEC_OVERFLOW : DEC_NOT_WHOLE;
  return p;
}

/* d x num as a whole number, with integer arithmetic only.  A negative
 * exponent is a division by 2^k 5^k: each factor must come out of the
 * mantissa or of num, else the result is not whole. */
static DecStatus
decimal_times (Decimal d, guint64 num, guint64 *out)
{
  if (d.mant == 0 || num == 0)
    {
      *out = 0;
      return DEC_OK;
    }
  guint64 m = d.mant;
  for (int i = 0; i < -d.exp10; i++)
    {
      static const guint64 primes[] = { 2, 5 };
      for (guint j = 0; j < G_N_ELEMENTS (primes); j++)
        {
          if (m % primes[j] == 0)
            m /= primes[j];
          else if (num % primes[j] == 0)
            num /= primes[j];
          else
            return DEC_NOT_WHOLE;
        }
    }
  for (int i = 0; i < d.exp10; i++)
    if (!g_uint64_checked_mul (&m, m, 10))
      return DEC_OVERFLOW;
  if (!g_uint64_checked_mul (&m, m, num))
    return DEC_OVERFLOW;
  *out = m;
  return DEC_OK;
}

static char *
unit_set_list (const UnitSet *set)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < set->n_units; i++)
    g_string_append_printf (s, "%s%s", i > 0 ? ", " : "", set->units[i].name);
  return g_string_free (s, FALSE);
}

/* A quantity as written: a decimal (with its scan status) and a unit. */
typedef struct
{
  Decimal d;
  DecStatus status;
  const Unit *unit;
} Quantity;

/* Split text into a decimal and one of set's units. */
static gboolean
quantity_split (const char *text, const UnitSet *set, Quantity *q, GError **error)
{
  Decimal *d = &q->d;
  DecStatus *status = &q->status;
  const char *p = text;
  while (is_blank (*p))
    p++;
  const char *end = decimal_scan (p, d, status);
  if (end == NULL)
    {
      g_autofree char *list = unit_set_list (set);
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "'%s' is not a %s: expected a non-negative number and a unit (%s)", text,
                   set->what, list);
      return FALSE;
    }
  while (is_blank (*end))
    end++;
  size_t len = strlen (end);
  while (len > 0 && is_blank (end[len - 1]))
    len--;
  for (guint i = 0; i < set->n_units; i++)
    if (strlen (set->units[i].name) == len && strncmp (end, set->units[i].name, len) == 0)
      {
        q->unit = &set->units[i];
        return TRUE;
      }
  /* Zero is zero in every unit: "--bytes 0" needs none. */
  guint64 zero = 1;
  if (len == 0 && *status == DEC_OK && decimal_times (*d, 1, &zero) == DEC_OK && zero == 0)
    {
      q->unit = &set->units[0];
      return TRUE;
    }
  g_autofree char *list = unit_set_list (set);
  if (len == 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "'%s': a %s needs a unit (%s)", text,
                 set->what, list);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "'%s': unknown %s unit '%.*s' (accepted: %s)",
                 text, set->what, (int) len, end, list);
  return FALSE;
}

static gboolean
report_status (DecStatus status, const char *text, const char *whole_of, GError **error)
{
  if (status == DEC_NOT_WHOLE)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "'%s' is not a whole number of %s", text,
                 whole_of);
  else if (status == DEC_OVERFLOW)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "'%s' is too large (over 2^64 %s)", text,
                 whole_of);
  else if (status == DEC_TOO_LONG)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                 "'%s' has more significant digits than 64 bits hold", text);
  return status == DEC_OK;
}

static gboolean
parse_exact (const char *text, const UnitSet *set, const char *whole_of, guint64 *out,
             GError **error)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  Quantity q;
  if (!quantity_split (text, set, &q, error))
    return FALSE;
  guint64 v = 0;
  DecStatus status = q.status;
  if (status == DEC_OK)
    status = decimal_times (q.d, q.unit->num, &v);
  if (!report_status (status, text, whole_of, error))
    return FALSE;
  *out = v;
  return TRUE;
}

gboolean
sim_units_parse_time (const char *text, SimTime *ps, GError **error)
{
  return parse_exact (text, &time_set, "picoseconds", ps, error);
}

gboolean
sim_units_parse_bytes (const char *text, guint64 *bytes, GError **error)
{
  return parse_exact (text, &byte_set, "bytes", bytes, error);
}

/* A rate as a double.  Exact through integers when the value in the
 * program's unit is whole and fits in 64 bits (the usual case: "50GiB/s");
 * otherwise the correctly rounded number times the unit. */
static gboolean
parse_rate (const char *text, const UnitSet *set, double *out, GError **error)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  Quantity q;
  if (!quantity_split (text, set, &q, error))
    return FALSE;
  const Unit *unit = q.unit;
  guint64 whole = 0;
  double v;
  if (q.status == DEC_OK && decimal_times (q.d, unit->num, &whole) == DEC_OK)
    v = (double) whole / (double) unit->den;
  else
    v = g_ascii_strtod (text, NULL) * (double) unit->num / (double) unit->den;
  if (!(v > 0) || v > G_MAXDOUBLE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "'%s': a %s must be positive and finite",
                   text, set->what);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
sim_units_parse_bandwidth (const char *text, double *Bps, GError **error)
{
  return parse_rate (text, &bandwidth_set, Bps, error);
}

gboolean
sim_units_parse_flops (const char *text, double *flops, GError **error)
{
  return parse_rate (text, &flops_set, flops, error);
}

gboolean
sim_units_parse_scaled (const char *text, guint64 scale, guint64 *out, GError **error)
{
  g_return_val_if_fail (text != NULL && out != NULL, FALSE);
  const char *p = text;
  while (is_blank (*p))
    p++;
  Decimal d;
  DecStatus status = DEC_OK;
  const char *end = decimal_scan (p, &d, &status);
  while (end != NULL && is_blank (*end))
    end++;
  if (end == NULL || *end != '\0')
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT, "'%s' is not a non-negative number", text);
      return FALSE;
    }
  guint64 v = 0;
  if (status == DEC_OK)
    status = decimal_times (d, scale, &v);
  if (status == DEC_NOT_WHOLE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
                   "'%s' x %" G_GUINT64_FORMAT " is not a whole number", text, scale);
      return FALSE;
    }
  if (!report_status (status, text, "units", error))
    return FALSE;
  *out = v;
  return TRUE;
}

/* v / step rounded to nearest, without the overflow of v + step / 2. */
static guint64
div_round (guint64 v, guint64 step)
{
  return v / step + (v % step >= step - step / 2 ? 1 : 0);
}

char *
sim_units_format_time (SimTime ps)
{
  if (ps < SIM_PS_PER_US)
    {
      guint64 ns = ps / SIM_PS_PER_NS;
      guint frac = (guint) (ps % SIM_PS_PER_NS);
      if (frac == 0)
        return g_strdup_printf ("%" G_GUINT64_FORMAT " ns", ns);
      char digits[4];
      g_snprintf (digits, sizeof digits, "%03u", frac);
      for (int i = 2; i > 0 && digits[i] == '0'; i--)
        digits[i] = '\0';
      return g_strdup_printf ("%" G_GUINT64_FORMAT ".%s ns", ns, digits);
    }
  static const struct
  {
    const char *name;
    guint64 ps;
  } units[] = { { "us", SIM_PS_PER_US }, { "ms", SIM_PS_PER_MS }, { "s", SIM_PS_PER_S } };
  /* Pick the unit after rounding, so that 999.9996 us prints as 1.000 ms. */
  guint i = 0;
  guint64 milli = div_round (ps, units[0].ps / 1000);
  while (i + 1 < G_N_ELEMENTS (units) && milli >= (guint64) 1000 * 1000)
    {
      i++;
      milli = div_round (ps, units[i].ps / 1000);
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT ".%03u %s", milli / 1000, (guint) (milli % 1000),
                          units[i].name);
}

char *
sim_units_format_bytes (guint64 bytes)
{
  static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
  guint i = 0;
  while (i + 1 < G_N_ELEMENTS (names) && bytes >= BIN (i + 1))
    i++;
  if (i == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " B", bytes);
  if (bytes % BIN (i) == 0)
    return g_strdup_printf ("%" G_GUINT64_FORMAT " %s", bytes / BIN (i), names[i]);
  return g_strdup_printf ("%.2f %s", (double) bytes / (double) BIN (i), names[i]);
}

char *
sim_units_format_gbps (double Bps)
{
  if (Bps == 0.0 || !isfinite (Bps) || fabs (Bps) >= 1e7)
    return g_strdup_printf ("%.2f", Bps / 1e9);
  return g_strdup_printf ("%.3g", Bps / 1e9);
}

char *
sim_units_format_bandwidth (double Bps)
{
  /* GB/s with two decimals shows every bandwidth from 0.01 GB/s up; below
   * that, the largest decimal unit in which it is at least 1, so that a
   * tiny bandwidth never reads "0.00 GB/s". */
  static const struct
  {
    const char *name;
    double scale;
  } below[] = { { "MB/s", 1e6 }, { "KB/s", 1e3 } };
  if (Bps == 0.0 || !isfinite (Bps) || fabs (Bps) >= 1e7)
    return g_strdup_printf ("%.2f GB/s", Bps / 1e9);
  for (guint i = 0; i < G_N_ELEMENTS (below); i++)
    if (fabs (Bps) >= below[i].scale)
      return g_strdup_printf ("%.2f %s", Bps / below[i].scale, below[i].name);
  return g_strdup_printf ("%.3g B/s", Bps);
}
