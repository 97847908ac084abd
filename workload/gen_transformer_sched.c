/* gen_transformer_sched.c: the order of a rank's forwards and backwards
 * (GPipe, 1F1B; see gen_transformer.h). */
#include "workload/gen_transformer_private.h"

void
wl_tf_schedule (Emit *e)
{
  guint32 M = e->M;
  if (e->req->schedule == WL_PIPE_GPIPE)
    {
      for (guint32 i = 0; i < M; i++)
        wl_tf_forward (e, 0, i);
      for (guint32 i = 0; i < M; i++)
        wl_tf_backward (e, 0, i);
      return;
    }
  guint32 warm = MIN (e->req->pp - e->p - 1, M);
  for (guint32 i = 0; i < warm; i++)
    wl_tf_forward (e, 0, i);
  for (guint32 i = 0; i + warm < M; i++)
    {
      wl_tf_forward (e, 0, warm + i);
      wl_tf_backward (e, 0, i);
    }
  for (guint32 i = M - warm; i < M; i++)
    wl_tf_backward (e, 0, i);
}
