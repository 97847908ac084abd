/* suggest.h: how near a mistyped name is to the names a program knows, for
 * "did you mean" hints (options, algorithm names).
 *
 * Models: the Levenshtein distance, the fewest single-byte insertions,
 * deletions and substitutions that turn one string into the other, with
 * ASCII case optionally ignored.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_SUGGEST_H
#define ORRERY_SIM_SUGGEST_H

#include <glib.h>

/* The edit distance of A and B (bytes; ASCII letters compared without case
 * when FOLD_CASE). */
guint sim_edit_distance (const char *a, const char *b, gboolean fold_case);

#endif /* ORRERY_SIM_SUGGEST_H */
