/* sweep_spec.h: a sweep spec as read and checked: its grid of params (each
 * with its value list and, for a select, the nodes of the base cluster XML
 * that take the value), its axes, and the templates that may hold {name}
 * placeholders.  The file format is in sweep.h; sweep_expand.c writes the
 * points from what is here.
 *
 * What it models: point i's values come from i's digits in the mixed radix
 * of the axes' lengths (the first axis varying slowest); values are strings
 * as written.  Line numbers are the spec's, for FILE:LINE messages.
 * Ownership: an AppSweepSpec owns everything it points to but `path`
 * (borrowed from app_sweep_spec_load's caller); app_sweep_spec_clear frees
 * it.  Values and params handed out are borrowed from the spec.
 *
 * Layer: sim/app.  May include: sim, sim/app (config, xml_schema), GLib,
 * libxml2.
 */
#ifndef ORRERY_SIM_APP_SWEEP_SPEC_H
#define ORRERY_SIM_APP_SWEEP_SPEC_H

#include <glib.h>

#include "sim/app/xml_lib.h"

/* What separates the words of a value list or a command line. */
#define APP_SWEEP_BLANKS " \t\r\n"

/* One <param>. */
typedef struct
{
  char *name;
  char *select;       /* NULL when the param reaches points by placeholders only */
  long line;
  GPtrArray *values;  /* char *, the list in order */
  GPtrArray *targets; /* xmlNode * of the base document that take the value */
  gboolean used;      /* by a select or a placeholder */
} AppSweepParam;

/* One axis of the grid: a param alone, or a zip of consecutive params. */
typedef struct
{
  guint first;
  guint n_params;
  guint n_values;
} AppSweepAxis;

/* The strings that may hold placeholders. */
typedef enum
{
  APP_SWEEP_T_NETWORK,
  APP_SWEEP_T_SYSTEM,
  APP_SWEEP_T_MEMORY,
  APP_SWEEP_T_GROUPS,
  APP_SWEEP_T_PREFIX,
  APP_SWEEP_T_GENERATE,
  APP_SWEEP_T_OPTIONS,
  APP_SWEEP_T_N
} AppSweepTemplate;

/* A spec as read and checked. */
typedef struct
{
  const char *path; /* as given: messages name it */
  char *dir;        /* the spec's directory, absolute: relative paths start there */
  char *text;       /* the spec's bytes */
  gsize len;
  char *config;     /* the base cluster XML, absolute, or NULL (ASTRA-sim inputs) */
  long config_line;
  xmlDoc *base;
  char *tmpl[APP_SWEEP_T_N]; /* NULL when absent */
  long tmpl_line[APP_SWEEP_T_N];
  GPtrArray *params;   /* AppSweepParam *, in document order */
  GHashTable *by_name; /* name -> index + 1 */
  GArray *axes;        /* AppSweepAxis */
  guint64 n_points;
} AppSweepSpec;

/* Read, validate and check the spec at PATH into S (zeroed): FALSE with a
 * FILE:LINE error at the first fault; S must be cleared either way. */
gboolean app_sweep_spec_load (AppSweepSpec *s, const char *path, GError **error);

/* Free what S holds (not S). */
void app_sweep_spec_clear (AppSweepSpec *s);

/* Param I, in document order. */
AppSweepParam *app_sweep_spec_param (const AppSweepSpec *s, guint i);

/* PATH made absolute from the spec's directory (caller frees). */
char *app_sweep_spec_resolve (const AppSweepSpec *s, const char *path);

/* Point INDEX's value of every param into VALS (one per param, borrowed
 * from the spec). */
void app_sweep_point_values (const AppSweepSpec *s, guint64 index, const char **vals);

/* TEXT, template T (APP_SWEEP_T_OPTIONS or APP_SWEEP_T_GENERATE) with
 * POINT's values in its placeholders (POINT NULL: the template itself),
 * sets nothing the sweep sets: no --config, --workload, --report ... in
 * run options, alone, with "=VALUE" or as a letter of a short-option group
 * ("-qr"); no --out in generate.  Else an input error at the template's
 * line naming the point and the word. */
gboolean app_sweep_spec_check_words (const AppSweepSpec *s, int t, const char *text,
                                     const char *point, GError **error);

/* The next placeholder "{name}" in TEXT at or after *POS: TRUE with its
 * span [*START, *POS) (braces included). */
gboolean app_sweep_next_placeholder (const char *text, gsize *pos, gsize *start);

#endif /* ORRERY_SIM_APP_SWEEP_SPEC_H */
