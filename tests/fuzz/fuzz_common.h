/* fuzz_common.h: what the libFuzzer targets (tests/fuzz/fuzz_*.c) share.
 *
 * Every loader under test reads a path, so a target writes its input into a
 * file and passes that file's path.  Each fuzzing process has one private
 * temporary directory (made on first use, removed with everything in it at
 * exit); no target writes anywhere else.  GLib criticals (a failed
 * g_return_if_fail: a caller broke a contract) abort, so that the fuzzer
 * reports them; warnings and messages are dropped, to keep the output
 * readable at thousands of runs a second.
 *
 * Layer: tests.  May include: GLib.
 */
#ifndef ORRERY_TESTS_FUZZ_COMMON_H
#define ORRERY_TESTS_FUZZ_COMMON_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* The libFuzzer entry points.  Each target defines LLVMFuzzerTestOneInput.
 * fuzz_common.c defines LLVMFuzzerInitialize weakly, as making the private
 * directory (and with it setting the log handlers) before the first input;
 * a target with more to prepare defines its own, which replaces it and makes
 * the directory itself (fuzz_tmpdir) before anything else. */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv);

/* The process's private directory (absolute; borrowed, lives until exit). */
const char *fuzz_tmpdir (void);

/* Write len bytes to NAME (a relative path, whose directories must exist)
 * inside the private directory; returns the absolute path (g_free it).
 * Aborts when the file cannot be written: that is the harness failing, not
 * the code under test. */
char *fuzz_write (const char *name, const void *data, size_t len);

/* Remove path and, if it is a directory, everything under it. */
void fuzz_remove_tree (const char *path);

#endif /* ORRERY_TESTS_FUZZ_COMMON_H */
