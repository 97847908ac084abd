/* replay_sm.c: compute slowed by the communication that overlaps it.  NCCL
 * runs each collective, send and receive as a kernel of one CTA per
 * channel (v2.26.2 src/enqueue.cc, ncclLaunchKernel: grid = the plan's
 * channels), each CTA resident on its SM until the operation ends; a GEMM
 * running beside it has the other SMs.  Under the kernel compute model a
 * COMP node runs at the rate of its kernels priced on the SMs its rank's
 * communication in flight leaves free (kernels.h, wl_kernel_lists_ns_on);
 * when that changes (a collective starts or ends), the share of the node
 * still to run is repriced at the new rate and its completion moved.  The
 * node's kernels are priced as a whole: each kernel's wave count is the one
 * it would have if the node's whole run saw the same SMs.  Memory-bound
 * kernels keep the device's bandwidth.  See replay_private.h. */
#include "workload/replay_private.h"

#include "workload/kernels.h"

typedef struct
{
  guint32 index; /* the collective's node */
  guint32 ctas;
} Held;

/* A COMP node running at the rate communication leaves it. */
typedef struct
{
  guint32 index;
  guint32 list;    /* its kernel list */
  SimTime start;
  SimTime since;   /* when `left` was last brought up to date */
  SimTime free_t;  /* its time on the whole device */
  double left;     /* the fraction of its work still to run at `since` */
  double ns;       /* its time at the current rate, ns */
  SimEventId done; /* its completion */
  SimHandler on_done;
} Running;

/* Whether K's run prices compute by SMs at all: when not, nothing is held,
 * counted or repriced (the common case costs a test per node). */
static gboolean
sm_on (const WlRank *k)
{
  const WlParams *p = &k->replay->params;
  return p->sm_contention && p->compute == WL_COMPUTE_KERNEL && p->kernel_device != NULL;
}

static gboolean
applies (const WlRank *k, const WlNode *n)
{
  return sm_on (k) && n->op == WL_OP_COMP && n->kernel_list != 0 && k->kernels != NULL;
}

/* The SMs K's communication in flight leaves free (at least one). */
static guint32
free_sms (const WlRank *k)
{
  guint32 n_sm = k->replay->params.kernel_device->n_sm;
  guint32 ctas = k->coll_ctas + sys_p2p_ctas (k->replay->sys, k->p2p_in_flight);
  return ctas < n_sm ? n_sm - ctas : 1;
}

/* List LIST's time on K's free SMs at K's speed, ns. */
static double
list_ns (WlRank *k, guint32 list)
{
  const WlParams *p = &k->replay->params;
  return wl_kernel_lists_ns_on (k->kernels, list, p->kernel_device, p->kernel_table,
                                free_sms (k))
         / k->speed;
}

gboolean
wl_replay_sm_start (WlRank *k, guint32 index, const WlNode *n, SimTime free_t,
                    SimHandler on_done)
{
  if (!applies (k, n))
    return FALSE;
  WlReplay *r = k->replay;
  SimTime now = sim_sched_now (r->sched);
  Running run = { .index = index, .list = n->kernel_list, .start = now, .since = now,
                  .free_t = free_t, .left = 1.0, .ns = list_ns (k, n->kernel_list),
                  .on_done = on_done };
  SimTime t = wl_params_round_ns (&r->params, run.ns);
  run.done = sim_sched_at_cancellable (r->sched, sim_time_add (now, t), on_done, k, index);
  if (k->sm_running == NULL)
    k->sm_running = g_array_new (FALSE, FALSE, sizeof (Running));
  g_array_append_val (k->sm_running, run);
  return TRUE;
}

/* The free SMs of K changed at NOW: every running COMP node's remaining
 * work runs at the new rate from now on. */
static void
reprice (WlRank *k, SimTime now)
{
  if (k->sm_running == NULL)
    return;
  WlReplay *r = k->replay;
  for (guint i = 0; i < k->sm_running->len; i++)
    {
      Running *run = &g_array_index (k->sm_running, Running, i);
      double ns = list_ns (k, run->list);
      if (ns == run->ns)
        continue;
      double ran = (double) (now - run->since) / (double) SIM_PS_PER_NS;
      run->left = MAX (run->left - ran / run->ns, 0.0);
      run->since = now;
      run->ns = ns;
      sim_sched_cancel (r->sched, run->done);
      SimTime t = wl_params_round_ns (&r->params, run->left * ns);
      run->done = sim_sched_at_cancellable (r->sched, sim_time_add (now, t), run->on_done, k,
                                            run->index);
    }
}

/* COMP node INDEX completed at NOW: the time communication added to it. */
static void
comp_done (WlRank *k, guint32 index, SimTime now)
{
  for (guint i = 0; k->sm_running != NULL && i < k->sm_running->len; i++)
    {
      const Running *run = &g_array_index (k->sm_running, Running, i);
      if (run->index != index)
        continue;
      SimTime took = now - run->start;
      if (took > run->free_t)
        {
          k->stats.compute += took - run->free_t;
          k->stats.compute_contention += took - run->free_t;
        }
      g_array_remove_index_fast (k->sm_running, i);
      return;
    }
}

void
wl_replay_sm_hold (WlRank *k, const WlNode *n, guint32 index, guint32 ctas)
{
  if (!sm_on (k))
    return;
  if (n->op != WL_OP_COLL)
    k->p2p_in_flight++;
  else if (ctas > 0)
    {
      if (k->sm_held == NULL)
        k->sm_held = g_array_new (FALSE, FALSE, sizeof (Held));
      Held h = { .index = index, .ctas = ctas };
      g_array_append_val (k->sm_held, h);
      k->coll_ctas += ctas;
    }
  else
    return;
  reprice (k, sim_sched_now (k->replay->sched));
}

void
wl_replay_sm_release (WlRank *k, const WlNode *n, guint32 index, SimTime now)
{
  if (!sm_on (k))
    return;
  if (n->op == WL_OP_COMP)
    {
      comp_done (k, index, now);
      return;
    }
  if (n->op == WL_OP_SEND || n->op == WL_OP_RECV)
    {
      if (k->p2p_in_flight == 0)
        return;
      k->p2p_in_flight--;
      reprice (k, now);
      return;
    }
  for (guint i = 0; n->op == WL_OP_COLL && k->sm_held != NULL && i < k->sm_held->len; i++)
    {
      Held *h = &g_array_index (k->sm_held, Held, i);
      if (h->index == index)
        {
          k->coll_ctas -= h->ctas;
          g_array_remove_index_fast (k->sm_held, i);
          reprice (k, now);
          return;
        }
    }
}
