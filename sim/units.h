/* units.h: quantities with units: exact parsing of config text, and
 * formatting for people.
 *
 * Models: the units a config may use, each a multiple of the program's own
 * unit.  Time: ps, ns, us (also "µs"), ms, s -> picoseconds (SimTime).
 * Sizes: B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of
 * 1024) -> bytes.  Bandwidth: B/s, KB/s .. TB/s (decimal), KiB/s .. TiB/s
 * (binary), and bits per second Kb/s .. Tb/s or Kbps .. Tbps (decimal, / 8)
 * -> bytes/s; case matters ("B" is a byte, "b" a bit).  Compute rate: FLOP/s
 * with an optional K, M, G, T or P prefix (decimal), "FLOPS" accepted for
 * "FLOP/s" -> FLOP/s.
 *
 * Text is an unsigned decimal number ("936.25", optionally with an exponent,
 * "5e2"), optional blanks, and a unit.  Time and sizes are parsed with
 * integer arithmetic only, so "936.25ns" is exactly 936250 ps; a value that
 * is not a whole number of picoseconds or bytes, or that does not fit in 64
 * bits, is an error.  A number without a unit is an error that lists the
 * accepted units.  Error messages quote the text; callers prefix the
 * location (file:line, attribute).
 *
 * Ownership: parsers write through their out parameter only on success;
 * formatters return a newly allocated string that the caller frees.
 *
 * Layer: sim.  May include: GLib.
 */
#ifndef ORRERY_SIM_UNITS_H
#define ORRERY_SIM_UNITS_H

#include <glib.h>

#include "sim/simtime.h"

/* "500ns", "1.5us", "2ms", "1s", "10ps" -> picoseconds.  Here and in
 * sim_units_parse_bytes a zero ("0", "0.0") needs no unit; any other
 * number does. */
gboolean sim_units_parse_time (const char *text, SimTime *ps, GError **error);

/* "1MiB", "1.5KB", "64B" -> bytes. */
gboolean sim_units_parse_bytes (const char *text, guint64 *bytes, GError **error);

/* "50GiB/s", "1600GB/s", "400Gb/s", "400Gbps" -> bytes/s, > 0.  Exact
 * whenever the result is a whole number of bytes/s below 2^64. */
gboolean sim_units_parse_bandwidth (const char *text, double *Bps, GError **error);

/* "989TFLOP/s", "900TFLOPS" -> FLOP/s, > 0. */
gboolean sim_units_parse_flops (const char *text, double *flops, GError **error);

/* A plain decimal number without a unit ("936.25", "500", "5e2") times
 * `scale`, exactly: for the unit-less numbers of ASTRA-sim's inputs, whose
 * unit is implied by the key (latency in ns: scale 1000 gives ps).  Fails
 * when the product is not a whole number or does not fit in 64 bits. */
gboolean sim_units_parse_scaled (const char *text, guint64 scale, guint64 *out,
                                 GError **error);

/* "936.25 ns" (below 1 us: ns with up to 3 decimals), "99.640 us",
 * "4.207 ms", "1.500 s": the largest unit that keeps the value >= 1, three
 * decimals, rounded to nearest. */
char *sim_units_format_time (SimTime ps);

/* "512 B", "64 MiB" (whole multiples without decimals), "1.50 GiB". */
char *sim_units_format_bytes (guint64 bytes);

/* "50.00 GB/s": decimal gigabytes per second, two decimals, from 0.01 GB/s
 * up (and 0); a smaller bandwidth in MB/s or KB/s, two decimals, or in B/s,
 * three significant digits ("4.00 MB/s", "0.25 B/s"): never "0.00 GB/s". */
char *sim_units_format_bandwidth (double Bps);

/* Bps in GB/s without the unit, for a table column whose header states it
 * (one unit a column): two decimals from 0.01 GB/s up (and 0), three
 * significant digits below ("0.004", "2.5e-06"), never "0.00". */
char *sim_units_format_gbps (double Bps);

#endif /* ORRERY_SIM_UNITS_H */
