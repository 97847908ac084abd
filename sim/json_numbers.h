/* json_numbers.h: the numbers of a JSON text that json-glib would misread,
 * found before it parses the text.
 *
 * json-glib 1.6 reads an integer (a number without fraction or exponent)
 * with strtoull and keeps it as a gint64, and says nothing when it does
 * not fit: 2^63 .. 2^64 - 1 come out negative (9223372036854775808 as
 * -2^63), anything larger saturates to -1, and a negative integer below
 * -2^63 wraps (-18446744073709551615 reads as 1, a count that looks
 * valid).  A number beyond a double's range (1e400) comes out infinite,
 * and numbers JSON does not allow are read its own way: 010 as octal 8,
 * 0x10 as 16, .5 and 5. as 0.5 and 5 (nlohmann::json and protobuf refuse
 * them all).
 * Every JSON entry point runs this scan on the text it parses, so that
 * such a number is an input error, or read as the caller's format says.
 *
 * What it models: JSON numbers outside strings ("..." with backslash
 * escapes), each named by the member it is the value of, or, in a list, by
 * the member holding the list; the rest of the syntax is the parser's.
 * Lines count LF characters, from 1.  Time: linear in the text.
 *
 * Ownership: the text is borrowed; a rewritten text is the caller's.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_JSON_NUMBERS_H
#define ORRERY_SIM_JSON_NUMBERS_H

#include <glib.h>

/* Which integers a format holds. */
typedef enum
{
  /* -2^63 .. 2^63 - 1: what json-glib holds; others are an error. */
  SIM_JSON_INT64,
  /* 0 .. 2^64 - 1 (and -0), which the caller reads back as unsigned (an
   * integer node holds its value modulo 2^64); a negative integer or one past
   * 2^64 - 1 is made a fraction (".0" after it, the text rewritten), which
   * the caller's whole-number members refuse by name. */
  SIM_JSON_UINT64,
  /* Any integer; one beyond a gint64 is read as the double nearest to it,
   * as nlohmann::json (ASTRA-sim's reader) reads it, so that a key read as
   * a float gets ASTRA-sim's value and a key read as a count refuses it.
   * The text is rewritten for json-glib (".0" after such integers).  In
   * both rewriting modes an integer past a double's range (10^309) is an
   * error, as 1e309 is: nlohmann::json refuses the infinity. */
  SIM_JSON_DOUBLE,
} SimJsonInts;

/* Check the numbers of TEXT (LEN bytes, or up to its NUL when LEN is
 * negative) against INTS.  TRUE when json-glib reads them right; then
 * *REWRITTEN (may be NULL for SIM_JSON_INT64, which never rewrites) is
 * NULL, or the text to parse instead (the same lines; free with
 * g_string_free).  Else an input error (SIM_ERROR, SIM_ERROR_INPUT) for
 * the first bad number, "L: \"KEY\": 18446744073709551616 is ...", which
 * the caller prefixes with "FILE:"; the others say "... is beyond the
 * range of a double" and "... is not a JSON number". */
gboolean sim_json_numbers_check (const char *text, gssize len, SimJsonInts ints,
                                 GString **rewritten, GError **error);

#endif /* ORRERY_SIM_JSON_NUMBERS_H */
