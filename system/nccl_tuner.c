/* nccl_tuner.c: the tuner registry and aws-ofi-nccl's region tuner for AWS
 * p5/p5e (system/nccl_tuner.h).
 *
 * Facts from github.com/aws/aws-ofi-nccl, src/tuner/nccl_ofi_regions.cpp and
 * include/tuner/nccl_ofi_tuner_region.h, read at commit 2daf7d30 (2026-08;
 * the file is the same in v1.21.1); the code is written anew:
 * - region_init_internal_p5_p5e: the regions per collective for three
 *   shapes of communicator, 8, 2 or 1 GPUs per node, as polygons whose
 *   vertices are (nBytes, nRanks).  Some vertices are "extended": the line
 *   through two given vertices carried on to x = TUNER_MAX_SIZE or
 *   y = TUNER_MAX_RANKS, whichever it meets first (extend_region).  The
 *   8-GPU all-reduce vertex lists are the same from v1.13.0-aws (2024-11)
 *   to HEAD.
 * - Since v1.19.0 (8f22799f, 2026-02) both the vertices and the query point
 *   are taken as (log2 nBytes, log2 nRanks) before testing (a 0 becoming
 *   1e-6 first), so edges are straight in the log-log plane; before, they
 *   were straight in bytes and ranks.  At power-of-two sizes and rank
 *   counts the choices of both agree on these tables.
 * - region_get_coll_info_internal_v3: no choice when the communicator spans
 *   two nodes or fewer ("regions are not well defined", since fec074ac,
 *   v1.15.0, 2025-02); otherwise the regions are tried in their order,
 *   skipping a pair NCCL cannot run, and the first that holds the point,
 *   inside or on its boundary (is_inside_region: within 1e-10 of an edge),
 *   wins.  For P5 the tuner sets no channel count.
 */
#include "system/nccl_tuner.h"

#include <math.h>
#include <string.h>

/* include/tuner/nccl_ofi_tuner_region.h: TUNER_MAX_SIZE, TUNER_MAX_RANKS,
 * TUNER_MAX_NUM_VERTICES. */
#define MAX_SIZE (100.0 * 1024 * 1024 * 1024)
#define MAX_RANKS (1024.0 * 1024)
#define MAX_VERTICES 20
#define MAX_REGIONS 8
/* is_inside_region: a point this close to an edge (log2 units) is on it. */
#define EDGE_EPS 1e-10

/* A vertex or query point in the log-log plane. */
typedef struct
{
  double x; /* log2 bytes */
  double y; /* log2 ranks */
} Pt;

typedef struct
{
  SysNcclAlgo algo;
  SysNcclProto proto;
  guint n;
  Pt v[MAX_VERTICES];
} Region;

typedef struct
{
  guint n;
  Region r[MAX_REGIONS];
} Regions;

static Pt
pt (double bytes, double ranks)
{
  return (Pt) { log2 (bytes > 0 ? bytes : 1e-6), log2 (ranks > 0 ? ranks : 1e-6) };
}

/* extend_region: the line through a and b carried to the far corner's x or
 * y, whichever it reaches first. */
static Pt
extend (Pt a, Pt b)
{
  Pt z = pt (MAX_SIZE, MAX_RANKS);
  if (a.x == b.x)
    return (Pt) { a.x, z.y };
  if (a.y == b.y)
    return (Pt) { z.x, a.y };
  double m = (a.y - b.y) / (a.x - b.x);
  double c = b.y - m * b.x;
  double y = m * z.x + c;
  return y < z.y ? (Pt) { z.x, y } : (Pt) { (z.y - c) / m, z.y };
}

static void
add (Regions *rs, SysNcclAlgo algo, SysNcclProto proto, const Pt *v, guint n)
{
  g_assert (rs->n < MAX_REGIONS && n <= MAX_VERTICES);
  Region *r = &rs->r[rs->n++];
  r->algo = algo;
  r->proto = proto;
  r->n = n;
  memcpy (r->v, v, n * sizeof *v);
}

#define ADD(rs, algo, proto, v) add (rs, SYS_NCCL_##algo, SYS_NCCL_##proto, v, G_N_ELEMENTS (v))

/* All-reduce with 8 GPUs per node (p5.48xlarge, p5e.48xlarge). */
static void
p5_allreduce_8 (Regions *rs)
{
  Pt ext_tree = extend (pt (402653184, 2048), pt (402653184, 4096));
  Pt ext_slope = extend (pt (8053063680, 160), pt (9663676416, 192));
  const Pt tree_ll128[] = {
    pt (0, 16),         pt (31457280, 16),  pt (37748736, 32),   pt (117440512, 64),
    pt (301989888, 128), pt (301989888, 256), pt (335544320, 512), pt (536870912, 1024),
    pt (402653184, 2048), pt (402653184, 4096), ext_tree,         { pt (0, 1).x, ext_tree.y },
  };
  /* Degenerate (a segment): two-node communicators, which get no choice. */
  const Pt nvlstree_2n[] = { pt (31457281, 16), pt (MAX_SIZE, 16), pt (31457281, 16) };
  const Pt ring_ll128[] = {
    pt (31457280, 17),   pt (1073741824, 17),  pt (2147483648, 64), pt (2147483648, 128),
    pt (1342177280, 160), pt (2147483648, 256), pt (1074790400, 256), pt (444596224, 160),
    pt (301989888, 128), pt (117440512, 64),   pt (37748736, 32),
  };
  const Pt nvlstree_simple[] = {
    pt (2147483648, 128), pt (6442450944, 128), pt (8053063680, 160), pt (9663676416, 192),
    ext_slope,            ext_tree,             pt (402653184, 4096), pt (402653184, 2048),
    pt (536870912, 1024), pt (335544320, 512),  pt (301989888, 256),  pt (310378496, 160),
    pt (444596224, 160),  pt (1074790400, 256), pt (2684354560, 256), pt (2147483648, 224),
    pt (1342177280, 160),
  };
  const Pt ring_simple[] = {
    pt (1073741824, 17), { ext_slope.x, pt (1, 17).y }, ext_slope, pt (9663676416, 192),
    pt (8053063680, 160), pt (2684354560, 64),          pt (1610612736, 32),
  };
  ADD (rs, TREE, LL128, tree_ll128);
  ADD (rs, NVLS_TREE, SIMPLE, nvlstree_2n);
  ADD (rs, RING, LL128, ring_ll128);
  ADD (rs, NVLS_TREE, SIMPLE, nvlstree_simple);
  ADD (rs, RING, SIMPLE, ring_simple);
}

/* All-reduce with 2 GPUs per node. */
static void
p5_allreduce_2 (Regions *rs)
{
  Pt ext_tree = extend (pt (88160256, 128), pt (178163712, 256));
  Pt ext_upper = extend (pt (787480576, 128), pt (1073741824, 256));
  Pt ext_lower = extend (pt (257114112, 128), pt (269484032, 256));
  const Pt tree_ll128[] = {
    pt (0, 4),         pt (1314816, 4),    pt (1051648, 8),     pt (1051648, 12),
    pt (2367488, 16),  pt (5525504, 32),   pt (9473024, 64),    pt (88160256, 128),
    pt (178163712, 256), ext_tree,         { pt (0, 1).x, ext_tree.y },
  };
  const Pt ring_ll128[] = {
    pt (1314816, 4),    pt (19736576, 4),   pt (41842688, 8),   pt (296747008, 64),
    pt (257114112, 128), pt (269484032, 256), pt (178163712, 256), pt (88160256, 128),
    pt (9473024, 64),   pt (5525504, 32),   pt (2367488, 16),   pt (1051648, 12),
    pt (1051648, 8),    pt (1314816, 4),
  };
  const Pt nvlstree_low[] = {
    pt (19736576, 4),   pt (81844224, 4),   pt (275775488, 8),
    pt (275775488, 48), pt (296747008, 64), pt (41842688, 8),
  };
  /* Degenerate segments at 4 ranks (two nodes: no choice). */
  const Pt tree_ll128_2n[] = { pt (81844224, 4), pt (269484032, 4), pt (81844224, 4) };
  const Pt tree_simple_2n[] = { pt (269484032, 4), pt (MAX_SIZE, 4), pt (269484032, 4) };
  const Pt ring_simple[] = {
    pt (81844224, 5),    pt (MAX_SIZE, 5),    pt (MAX_SIZE, 32),   pt (1073741824, 40),
    pt (1073741824, 128), pt (787480576, 128), pt (296747008, 64), pt (275775488, 48),
    pt (275775488, 8),   pt (81844224, 5),
  };
  const Pt tree_simple[] = {
    pt (296747008, 64), pt (787480576, 128), pt (1073741824, 256), ext_upper,
    ext_lower,          pt (269484032, 256), pt (257114112, 128),
  };
  const Pt nvlstree_high[] = {
    ext_upper,           pt (1073741824, 256), pt (787480576, 128),
    pt (1073741824, 128), pt (1073741824, 40), pt (MAX_SIZE, 32),
  };
  ADD (rs, TREE, LL128, tree_ll128);
  ADD (rs, RING, LL128, ring_ll128);
  ADD (rs, NVLS_TREE, SIMPLE, nvlstree_low);
  ADD (rs, TREE, LL128, tree_ll128_2n);
  ADD (rs, TREE, SIMPLE, tree_simple_2n);
  ADD (rs, RING, SIMPLE, ring_simple);
  ADD (rs, TREE, SIMPLE, tree_simple);
  ADD (rs, NVLS_TREE, SIMPLE, nvlstree_high);
}

/* One GPU per node: all-reduce, all-gather and reduce-scatter. */
static void
p5_one_per_node (Regions *rs, SysNcclFunc func)
{
  if (func == SYS_NCCL_ALL_REDUCE)
    {
      Pt ext_tree = extend (pt (9999360, 64), pt (119477248, 128));
      Pt ext_ring = extend (pt (4736000, 2), pt (269484032, 128));
      const Pt tree_ll128[] = { pt (0, 16),         pt (2367488, 16), pt (9999360, 64),
                                pt (119477248, 128), ext_tree,        pt (0, MAX_RANKS) };
      const Pt ring_ll128[] = {
        pt (0, 2),   pt (4736000, 2),    pt (269484032, 128), ext_ring,   ext_tree,
        pt (119477248, 128), pt (9999360, 64), pt (2367488, 16), pt (0, 16),
      };
      const Pt ring_simple[] = { pt (4736000, 2), pt (MAX_SIZE, 2), ext_ring,
                                 pt (269484032, 128) };
      ADD (rs, TREE, LL128, tree_ll128);
      ADD (rs, RING, LL128, ring_ll128);
      ADD (rs, RING, SIMPLE, ring_simple);
    }
  else if (func == SYS_NCCL_ALL_GATHER || func == SYS_NCCL_REDUCE_SCATTER)
    {
      /* All-gather from 4 MiB at 2 ranks to 8 GiB at 2048, reduce-scatter
       * from 8 MiB at 2 to 4 GiB at 1024, and larger. */
      gboolean ag = func == SYS_NCCL_ALL_GATHER;
      Pt lo = ag ? pt (4194304, 2) : pt (8388608, 2);
      Pt hi = ag ? pt (8589934592, 2048) : pt (4294967296, 1024);
      const Pt ring_simple[] = { lo, pt (MAX_SIZE, 2), extend (lo, hi), hi };
      ADD (rs, RING, SIMPLE, ring_simple);
    }
}

/* The regions for a communicator of `ranks` GPUs on `nodes` nodes; none for
 * shapes and functions the plugin has no tables for. */
static void
p5_regions (Regions *rs, SysNcclFunc func, guint32 ranks, guint32 nodes)
{
  rs->n = 0;
  if (ranks == 8 * nodes && func == SYS_NCCL_ALL_REDUCE)
    p5_allreduce_8 (rs);
  else if (ranks == 2 * nodes && func == SYS_NCCL_ALL_REDUCE)
    p5_allreduce_2 (rs);
  else if (ranks == nodes)
    p5_one_per_node (rs, func);
}

/* Is p within EDGE_EPS of the segment a-b? */
static gboolean
on_segment (Pt p, Pt a, Pt b)
{
  double dx = b.x - a.x, dy = b.y - a.y;
  double len2 = dx * dx + dy * dy;
  double t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0;
  t = CLAMP (t, 0.0, 1.0);
  double ex = a.x + t * dx - p.x, ey = a.y + t * dy - p.y;
  return sqrt (ex * ex + ey * ey) < EDGE_EPS;
}

/* Inside or on the boundary.  Off the boundary, the parity of the edges a
 * ray from p crosses (even-odd rule: the plugin casts its ray to a far
 * corner, any ray gives the same parity); here the ray runs towards +x and
 * an edge counts when one end lies above p and the other not.  On a
 * vertex or an axis-parallel edge the plugin's test is exact too; for a
 * point exactly on a sloped edge its result depends on rounding (the foot
 * of the perpendicular may come out a hair outside the edge), where this
 * one always counts the point on the edge. */
static gboolean
region_holds (const Region *r, Pt p)
{
  gboolean in = FALSE;
  for (guint i = 0, j = r->n - 1; i < r->n; j = i++)
    {
      Pt a = r->v[i], b = r->v[j];
      if (on_segment (p, a, b))
        return TRUE;
      if ((a.y > p.y) != (b.y > p.y) && p.x < a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y))
        in = !in;
    }
  return in;
}

static gboolean
aws_ofi_nccl_choose (const SysNcclTunerQuery *q, SysNcclAlgo *algo, SysNcclProto *proto)
{
  if (q->nodes <= 2)
    return FALSE;
  Regions rs;
  p5_regions (&rs, q->func, q->ranks, q->nodes);
  Pt p = pt ((double) q->bytes, q->ranks);
  for (guint i = 0; i < rs.n; i++)
    {
      const Region *r = &rs.r[i];
      if (q->runs[r->algo][r->proto] && region_holds (r, p))
        {
          *algo = r->algo;
          *proto = r->proto;
          return TRUE;
        }
    }
  return FALSE;
}

/* The registry, in SysNcclTuner order. */
static const struct
{
  const char *name;
  gboolean (*choose) (const SysNcclTunerQuery *q, SysNcclAlgo *algo, SysNcclProto *proto);
} tuners[SYS_NCCL_TUNERS] = {
  [SYS_NCCL_TUNER_NONE] = { "none", NULL },
  [SYS_NCCL_TUNER_AWS_OFI_NCCL] = { "aws-ofi-nccl", aws_ofi_nccl_choose },
};

gboolean
sys_nccl_tuner_choose (SysNcclTuner tuner, const SysNcclTunerQuery *q, SysNcclAlgo *algo,
                       SysNcclProto *proto)
{
  g_return_val_if_fail (tuner < SYS_NCCL_TUNERS && q != NULL && algo != NULL && proto != NULL,
                        FALSE);
  g_return_val_if_fail (q->func < SYS_NCCL_FUNCS, FALSE);
  return tuners[tuner].choose != NULL && tuners[tuner].choose (q, algo, proto);
}

const char *
sys_nccl_tuner_name (SysNcclTuner tuner)
{
  g_return_val_if_fail (tuner < SYS_NCCL_TUNERS, NULL);
  return tuners[tuner].name;
}
