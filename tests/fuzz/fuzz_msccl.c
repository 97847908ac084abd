/* fuzz_msccl.c: libFuzzer target for the MSCCL XML reader (app_msccl_load,
 * sim/app/msccl.c) and the program checks under it (sys_program_seal,
 * system/program.c: matching, the cycle search and its naming).
 *
 * Input: a selector byte (bits 0-1: the kind it is read for, all-reduce,
 * reduce-scatter, all-gather or all-to-all; bit 2: ASTRA-sim's timing),
 * then the XML.  A program read must be sealed into a row of its name.
 *
 * Layer: tests.  May include: sim/app, system, GLib.
 */
#include "fuzz_common.h"
#include "sim/app/programs.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 1)
    return 0;
  static const SysCollKind kinds[] = { SYS_COLL_ALL_REDUCE, SYS_COLL_REDUCE_SCATTER,
                                       SYS_COLL_ALL_GATHER, SYS_COLL_ALL_TO_ALL };
  SysCollKind kind = kinds[data[0] & 3];
  SysProgTiming timing = (data[0] & 4) ? SYS_PROG_TIMING_P2P : SYS_PROG_TIMING_NATIVE;
  char *path = fuzz_write ("algo.xml", data + 1, size - 1);
  GError *error = NULL;
  SysProgram *prog = app_msccl_load (path, timing, kind, &error);
  if (prog != NULL)
    {
      const SysAlgoClass *algo = sys_program_algo (prog);
      if (algo == NULL || !g_str_has_prefix (algo->name, "msccl:")
          || !sys_algo_supports (algo, kind) || sys_program_size (prog) < 2)
        g_error ("fuzz: a program read is not a sealed row for its kind");
      sys_program_free (prog);
    }
  else if (error == NULL)
    g_error ("fuzz: a program refused without an error");
  g_clear_error (&error);
  g_free (path);
  return 0;
}
