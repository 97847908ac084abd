/* config_astra_algo.c: the algorithm names an ASTRA-sim system config may
 * list in its *-implementation keys, checked as the file is read.
 *
 * ASTRA-sim refuses a name it cannot interpret when it reads the file, but
 * takes a known name for any kind and fails only when a collective of a
 * kind the algorithm lacks runs with it; orrery does the same (the second
 * check is the system layer's, SysParams.kind_check_at_use).  A name is a
 * registry row's ("ring"), its "one" form where the row has one
 * ("oneRing"), or a windowed row's name and a window ("direct8").  An
 * unknown name gets the nearest known one as a suggestion: these lists are
 * typed by hand, and "halvingDubling" should not cost a search.
 */
#include "sim/app/config_astra_private.h"

#include <string.h>

#include "sim/error.h"
#include "sim/suggest.h"
#include "system/algo.h"

/* Whether NAME resolves to a row in a form ASTRA-sim's syntax allows: a
 * window only after a windowed row's name, a whole number from 1 (ASTRA-sim
 * reads "direct08" as 8 too). */
static gboolean
name_known (const char *name)
{
  SysAlgoRef ref;
  if (!sys_algo_resolve (name, SYS_TIMING_REFERENCE, &ref) || (ref.flat && !ref.algo->flat_variant))
    return FALSE;
  gsize len = strlen (name), digits = 0;
  while (digits < len && g_ascii_isdigit (name[len - digits - 1]))
    digits++;
  return digits == 0 || (ref.algo->windowed && digits <= 9);
}

/* Every name a native row takes without a window, in table order, into
 * NAMES (new strings); into WINDOWS, "; direct and oneDirect may end in a
 * window, as in direct8" for each row that takes one. */
static void
names_add (GPtrArray *names, GString *windows)
{
  for (guint i = 0; i < sys_algo_count (); i++)
    {
      const SysAlgoClass *a = sys_algo_nth (i);
      if (a->timing != SYS_TIMING_NATIVE)
        continue;
      g_ptr_array_add (names, g_strdup (a->name));
      if (a->flat_variant)
        g_ptr_array_add (names, sys_algo_flat_name (a));
      if (a->windowed)
        g_string_append_printf (windows, "; %s%s%s may end in a window, as in %s8", a->name,
                                a->flat_variant ? " and " : "",
                                a->flat_variant ? (char *) names->pdata[names->len - 1] : "",
                                a->name);
    }
}

gboolean
app_astra_algorithm_check (const char *name, GError **error)
{
  g_return_val_if_fail (name != NULL, FALSE);
  if (name_known (name))
    return TRUE;
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GString) windows = g_string_new (NULL);
  names_add (names, windows);
  /* A suggestion within a third of the name's length (at least 2 edits),
   * so that a name far from every row gets the list alone. */
  const char *best = NULL;
  guint best_d = MAX (2u, (guint) strlen (name) / 3) + 1;
  for (guint i = 0; i < names->len; i++)
    {
      guint d = sim_edit_distance (name, names->pdata[i], TRUE);
      if (d < best_d)
        best = names->pdata[i], best_d = d;
    }
  g_ptr_array_add (names, NULL);
  g_autofree char *list = g_strjoinv (", ", (char **) names->pdata);
  g_autofree char *hint = best != NULL ? g_strdup_printf ("did you mean '%s'? ", best) : NULL;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INPUT,
               "unknown algorithm '%s' (%sknown: %s%s)", name, hint != NULL ? hint : "", list,
               windows->str);
  return FALSE;
}
