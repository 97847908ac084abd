/* cli.c: exit status by error domain and code; see cli.h. */
#include "sim/app/cli.h"

#include <stdio.h>

#include "sim/error.h"
#include "sim/printable.h"
#include "workload/wl_error.h"

int
app_cli_exit_status (const GError *error)
{
  g_return_val_if_fail (error != NULL, SIM_ERROR_INTERNAL);
  if (error->domain != SIM_ERROR && error->domain != WL_ERROR)
    return SIM_ERROR_INPUT;
  if (error->code >= SIM_ERROR_INPUT && error->code <= SIM_ERROR_LIMIT)
    return error->code;
  return SIM_ERROR_INTERNAL;
}

int
app_cli_fail (const char *cmd, GError *error)
{
  int code = app_cli_exit_status (error);
  /* Messages quote names and paths from the inputs byte for byte. */
  g_autofree char *msg = sim_printable (error->message, TRUE);
  fprintf (stderr, "orrery %s: %s%s\n", cmd, code == SIM_ERROR_INTERNAL ? "internal error: " : "",
           msg);
  g_error_free (error);
  return code;
}
