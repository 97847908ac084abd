/* test_load_delta.c: reading a trace against an earlier one that matches
 * it but for the ranks and groups it names (wl_graph_delta).  Hand-built
 * traces of three nodes: a compute node, a send on it, a collective on
 * the send.  A file that differs only in the send's peers or the
 * collective's group is read as a renamed graph equal, node by node, to
 * its own full load; any other difference (a size, a duration, a
 * dependency, a cut frame) is left to the full load, which gives its
 * error where there is one.  Through the cache, with one thread or two,
 * each file is read against the last one of its length before it.
 */
#include <check.h>
#include <string.h>

#include "support/testutil.h"
#include "workload/chakra_raw.h"
#include "workload/graph.h"
#include "workload/graph_cache.h"

/* What a variant changes in the base trace. */
typedef struct
{
  gint64 src, dst;   /* the send's comm_src, comm_dst */
  gint64 bytes;      /* its comm_size */
  guint64 micros;    /* the compute node's duration */
  const char *group; /* the collective's pg_name */
  guint64 coll_dep;  /* the node the collective depends on */
  guint64 peak_B;    /* GlobalMetadata's peak_memory_bytes (0: no facts) */
} Variant;

static const Variant BASE = { 0, 1, 1000, 10, "5", 2, 0 };

/* Write VARIANT as rank RANK of the set PREFIX. */
static void
write_variant (const char *prefix, guint32 rank, const Variant *v)
{
  ChakraProtoMsg__Node *nodes[3];
  nodes[0] = tu_comp (1, v->micros);
  nodes[1] = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, v->src, v->dst, 7,
                     v->bytes);
  tu_node_dep (nodes[1], 1);
  nodes[2] = tu_coll (3, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 4096);
  tu_node_attr_string (nodes[2], "pg_name", v->group);
  tu_node_dep (nodes[2], v->coll_dep);
  if (v->peak_B == 0)
    {
      tu_write_rank (prefix, rank, nodes, 3);
      return;
    }
  g_autofree char *path = g_strdup_printf ("%s.%u.et", prefix, rank);
  WlTraceFacts facts = { .peak_memory_B = v->peak_B };
  GError *error = NULL;
  g_autoptr (WlChakraWriter) w = wl_chakra_writer_open_full (path, "0.0.4", &facts, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 3; i++)
    {
      ck_assert (wl_chakra_writer_add (w, nodes[i], NULL));
      tu_node_free (nodes[i]);
    }
  ck_assert (wl_chakra_writer_close (w, NULL));
}

static char *
rank_path (const char *prefix, guint32 rank)
{
  return g_strdup_printf ("%s.%u.et", prefix, rank);
}

/* The file of rank RANK read against rank FROM's graph BASE_G: the delta
 * graph or NULL. */
static WlGraph *
delta_of_paths (WlGraph *base_g, const char *prefix, guint32 from, guint32 rank)
{
  g_autofree char *p0 = rank_path (prefix, from);
  g_autofree char *p = rank_path (prefix, rank);
  g_autofree char *a = NULL, *b = NULL;
  gsize la = 0, lb = 0;
  ck_assert (g_file_get_contents (p0, &a, &la, NULL));
  ck_assert (g_file_get_contents (p, &b, &lb, NULL));
  return wl_graph_delta (base_g, (const guint8 *) a, la, p, (const guint8 *) b, lb);
}

/* The file of rank RANK read against rank 0's graph BASE_G. */
static WlGraph *
delta_of (WlGraph *base_g, const char *prefix, guint32 rank)
{
  return delta_of_paths (base_g, prefix, 0, rank);
}

/* D equals FULL node by node, and shares BASE's arrays; a compact D (read
 * against another file: no node array of its own) read through
 * wl_graph_node_at, then expanded. */
static void
assert_same_as_full (WlGraph *d, const WlGraph *full, const WlGraph *base)
{
  if (d->nodes == NULL)
    {
      WlNode tmp;
      guint32 hint = 0;
      for (guint32 v = 0; v < d->n_nodes; v++)
        tu_assert_same_node (wl_graph_node_at (d, v, &hint, &tmp), &full->nodes[v]);
      for (guint32 v = d->n_nodes; v-- > 0;) /* falling: searched, not walked */
        tu_assert_same_node (wl_graph_node_at (d, v, NULL, &tmp), &full->nodes[v]);
      ck_assert (wl_graph_expand (d, NULL));
      ck_assert_ptr_null (d->patches);
      ck_assert_ptr_null (d->table);
    }
  ck_assert_ptr_eq (d->base, base);
  ck_assert_str_eq (d->path, full->path);
  ck_assert_uint_eq (d->n_nodes, full->n_nodes);
  ck_assert_uint_eq (d->n_roots, full->n_roots);
  ck_assert_uint_eq (d->n_streams, full->n_streams);
  ck_assert_uint_eq (d->group_defs->len, full->group_defs->len);
  ck_assert_uint_eq (d->load_peak, full->load_peak);
  for (guint32 v = 0; v < d->n_nodes; v++)
    {
      tu_assert_same_node (&d->nodes[v], &full->nodes[v]);
      ck_assert_uint_eq (d->nodes[v].n_children, full->nodes[v].n_children);
      ck_assert_uint_eq (d->nodes[v].n_parents, full->nodes[v].n_parents);
      ck_assert_str_eq (d->names[v], full->names[v]);
    }
}

/* Node arrays for renamed graphs, below and above the size that is
 * mapped (256 KiB: 3,277 nodes of 80 bytes), and all from the heap
 * (wl_graph_set_nodes_mapped (FALSE), as the planner has them), hold what
 * is written and are freed (valgrind and AddressSanitizer watch both
 * ways). */
START_TEST (test_nodes_arrays)
{
  const guint32 sizes[] = { 0, 1, 3276, 3277, 4096, 100000 };
  for (guint k = 0; k < 2 * G_N_ELEMENTS (sizes); k++)
    {
      guint32 n = sizes[k % G_N_ELEMENTS (sizes)];
      wl_graph_set_nodes_mapped (k < G_N_ELEMENTS (sizes));
      WlNode *nodes = wl_graph_nodes_new (n);
      ck_assert_ptr_nonnull (nodes);
      for (guint32 v = 0; v < n; v++)
        nodes[v].id = (guint64) v * 7 + 1;
      for (guint32 v = 0; v < n; v++)
        ck_assert_uint_eq (nodes[v].id, (guint64) v * 7 + 1);
      wl_graph_nodes_free (nodes, n);
    }
  wl_graph_set_nodes_mapped (TRUE);
  wl_graph_nodes_free (NULL, 5);
}
END_TEST

START_TEST (test_names_only)
{
  g_autofree char *prefix = tu_scratch_path ("names");
  write_variant (prefix, 0, &BASE);
  Variant peers = BASE, group = BASE;
  peers.src = 1;
  peers.dst = 0;
  group.group = "6";
  write_variant (prefix, 1, &peers);
  write_variant (prefix, 2, &group);
  g_autofree char *p0 = rank_path (prefix, 0);
  g_autoptr (WlGraph) base = wl_graph_load (p0, NULL);
  ck_assert_ptr_nonnull (base);
  for (guint32 rank = 1; rank <= 2; rank++)
    {
      g_autofree char *p = rank_path (prefix, rank);
      g_autoptr (WlGraph) full = wl_graph_load (p, NULL);
      g_autoptr (WlGraph) d = delta_of (base, prefix, rank);
      ck_assert_ptr_nonnull (full);
      ck_assert_ptr_nonnull (d);
      assert_same_as_full (d, full, base);
    }
  /* The values themselves, as written: each compact graph holds the one
   * node it renames. */
  WlNode tmp;
  g_autoptr (WlGraph) d1 = delta_of (base, prefix, 1);
  ck_assert_ptr_null (d1->nodes);
  ck_assert_uint_eq (d1->n_patches, 1);
  ck_assert_uint_eq (d1->patches[0].index, 1);
  ck_assert_uint_eq (wl_graph_node_at (d1, 1, NULL, &tmp)->peer_src, 1);
  ck_assert_uint_eq (wl_graph_node_at (d1, 1, NULL, &tmp)->peer_dst, 0);
  ck_assert_uint_eq (wl_graph_node_at (d1, 2, NULL, &tmp)->group, 5);
  ck_assert_ptr_eq (wl_graph_node_at (d1, 2, NULL, &tmp), &base->nodes[2]);
  g_autoptr (WlGraph) d2 = delta_of (base, prefix, 2);
  ck_assert_uint_eq (d2->n_patches, 1);
  ck_assert_uint_eq (wl_graph_node_at (d2, 2, NULL, &tmp)->group, 6);
  ck_assert_uint_eq (wl_graph_node_at (d2, 1, NULL, &tmp)->peer_dst, 1);
  ck_assert (wl_graph_shape_nodes (d2) == base->nodes);
  ck_assert (wl_graph_expand (d2, NULL));
  ck_assert_uint_eq (d2->nodes[2].group, 6);
  ck_assert (wl_graph_shape_nodes (d2) == d2->nodes);
}
END_TEST

START_TEST (test_other_differences_load_in_full)
{
  g_autofree char *prefix = tu_scratch_path ("other");
  write_variant (prefix, 0, &BASE);
  Variant size = BASE, time = BASE, dep = BASE;
  size.bytes = 2000;
  time.micros = 11;
  dep.coll_dep = 1;
  write_variant (prefix, 1, &size);
  write_variant (prefix, 2, &time);
  write_variant (prefix, 3, &dep);
  g_autofree char *p0 = rank_path (prefix, 0);
  g_autoptr (WlGraph) base = wl_graph_load (p0, NULL);
  for (guint32 rank = 1; rank <= 3; rank++)
    {
      g_autoptr (WlGraph) d = delta_of (base, prefix, rank);
      ck_assert_ptr_null (d);
    }
  /* Rank 0's own bytes cut short by a byte: not read against the base, and
   * the full load refuses it as the reader does. */
  g_autofree char *a = NULL;
  gsize la = 0;
  ck_assert (g_file_get_contents (p0, &a, &la, NULL));
  g_autofree char *cut = rank_path (prefix, 4);
  ck_assert (g_file_set_contents (cut, a, (gssize) la - 1, NULL));
  g_autoptr (WlGraph) d = delta_of (base, prefix, 4);
  ck_assert_ptr_null (d);
  GError *error = NULL;
  ck_assert_ptr_null (wl_graph_load (cut, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_ptr_nonnull (strstr (error->message, "truncated file?"));
  g_clear_error (&error);
  /* Gzip bytes are not frames: never read against a base. */
  g_autofree char *gz = g_malloc (la);
  memcpy (gz, a, la);
  gz[0] = 0x1f;
  gz[1] = (char) 0x8b;
  ck_assert_ptr_null (wl_graph_delta (base, (const guint8 *) a, la, p0, (const guint8 *) gz,
                                      la));
  /* A compute node whose comm_src differs: a name by its attribute's
   * name, but of a node that names no rank: not read against the base. */
  for (guint32 rank = 5; rank <= 6; rank++)
    {
      ChakraProtoMsg__Node *comp = tu_comp (1, 10);
      tu_node_attr_int (comp, "comm_src", rank);
      tu_write_rank (prefix, rank, &comp, 1);
    }
  g_autofree char *p5 = rank_path (prefix, 5);
  g_autoptr (WlGraph) comp5 = wl_graph_load (p5, NULL);
  ck_assert_ptr_nonnull (comp5);
  ck_assert_ptr_null (delta_of_paths (comp5, prefix, 5, 6));
  /* A lenient base: never. */
  g_autoptr (WlGraph) lenient = wl_graph_load_full (p0, TRUE, NULL);
  ck_assert_ptr_null (wl_graph_delta (lenient, (const guint8 *) a, la, p0,
                                      (const guint8 *) a, la));
}
END_TEST

/* Through the cache on THREADS threads: rank 1 (peers renamed) is read
 * against rank 0, rank 2 (another length) loads in full, rank 3 (group
 * renamed) is read against rank 1, the last file of its length: both are
 * renamed graphs of rank 0's. */
static void
check_cache (const char *prefix, guint threads)
{
  char *paths[4];
  for (guint32 i = 0; i < 4; i++)
    paths[i] = rank_path (prefix, i);
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  wl_graph_cache_set_threads (cache, threads);
  wl_graph_cache_prefetch (cache, (const char *const *) paths, 4, G_MAXUINT64);
  WlGraph *g[4];
  for (guint32 i = 0; i < 4; i++)
    {
      g[i] = wl_graph_cache_load_limited (cache, paths[i], G_MAXUINT64, NULL, NULL);
      ck_assert_ptr_nonnull (g[i]);
    }
  wl_graph_cache_prefetch_end (cache);
  ck_assert_ptr_null (g[0]->base);
  ck_assert_ptr_eq (g[1]->base, g[0]);
  ck_assert_ptr_null (g[2]->base);
  ck_assert_ptr_eq (g[3]->base, g[0]);
  ck_assert_uint_eq (wl_graph_cache_distinct (cache), 4);
  /* Rank 3 read against rank 1 (compact): its send is rank 0's again, its
   * collective renamed: one node of its own. */
  ck_assert_uint_eq (g[1]->n_patches, 1);
  ck_assert_uint_eq (g[3]->n_patches, 1);
  ck_assert_uint_eq (g[3]->patches[0].index, 2);
  for (guint32 i = 1; i < 4; i++)
    {
      g_autoptr (WlGraph) full = wl_graph_load (paths[i], NULL);
      if (g[i]->base != NULL)
        assert_same_as_full (g[i], full, g[0]);
    }
  for (guint32 i = 0; i < 4; i++)
    {
      wl_graph_unref (g[i]);
      g_free (paths[i]);
    }
}

/* A file read against a compact one keeps the earlier one's renamed nodes
 * where its frames are the same: ranks 1 and 2 name the same peers (not
 * rank 0's), rank 2 another group too. */
/* BASE, V1 and V2 written as ranks 0 to 2 of the set PREFIX (their
 * PATHS) and loaded in turn through CACHE into G. */
static void
load_three (const char *prefix, const Variant *v1, const Variant *v2, WlGraphCache *cache,
            char *paths[3], WlGraph *g[3])
{
  write_variant (prefix, 0, &BASE);
  write_variant (prefix, 1, v1);
  write_variant (prefix, 2, v2);
  for (guint32 i = 0; i < 3; i++)
    {
      paths[i] = rank_path (prefix, i);
      g[i] = wl_graph_cache_load_limited (cache, paths[i], G_MAXUINT64, NULL, NULL);
      ck_assert_ptr_nonnull (g[i]);
    }
}

START_TEST (test_carried_renames)
{
  g_autofree char *prefix = tu_scratch_path ("carry");
  Variant peers = BASE;
  peers.src = 1;
  peers.dst = 0;
  Variant both = peers;
  both.group = "6";
  char *paths[3];
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  WlGraph *g[3];
  load_three (prefix, &peers, &both, cache, paths, g);
  ck_assert_ptr_eq (g[2]->base, g[0]);
  ck_assert_ptr_null (g[2]->nodes);
  /* Its two renamed nodes follow one map of rank 0's names: a table. */
  ck_assert_ptr_nonnull (g[2]->table);
  g_autoptr (WlGraph) full = wl_graph_load (paths[2], NULL);
  assert_same_as_full (g[2], full, g[0]);
  for (guint32 i = 0; i < 3; i++)
    {
      wl_graph_unref (g[i]);
      g_free (paths[i]);
    }
}
END_TEST

START_TEST (test_cache_reads_against_first_of_length)
{
  g_autofree char *prefix = tu_scratch_path ("cache");
  write_variant (prefix, 0, &BASE);
  Variant peers = BASE, bigger = BASE, group = BASE;
  peers.src = 1;
  peers.dst = 0;
  bigger.bytes = 1 << 20; /* a longer varint: another length */
  group.group = "9";
  write_variant (prefix, 1, &peers);
  write_variant (prefix, 2, &bigger);
  write_variant (prefix, 3, &group);
  check_cache (prefix, 1);
  check_cache (prefix, 2);
}
END_TEST

/* Files alike but for their own facts (frame 0: gen transformer's
 * peak_memory_bytes, one per pipeline stage) are read against each other
 * all the same, each graph with its own file's facts: rank 1 (renamed
 * peers, 20 GiB) against rank 0 (10 GiB), rank 2 (rank 1's bytes but for
 * its group: the same frame 0) against rank 1, whose facts it takes, not
 * the base's, rank 3 (rank 2's but for 30 GiB) against rank 2.  All four
 * peaks are 5-byte varints (under 2^35): one file length. */
START_TEST (test_cache_own_facts)
{
  g_autofree char *prefix = tu_scratch_path ("facts");
  const guint64 GIB = G_GUINT64_CONSTANT (1) << 30;
  Variant v[4] = { BASE, BASE, BASE, BASE };
  v[0].peak_B = 10 * GIB;
  v[1].src = v[2].src = v[3].src = 1;
  v[1].dst = v[2].dst = v[3].dst = 0;
  v[1].peak_B = v[2].peak_B = 20 * GIB;
  v[2].group = v[3].group = "9";
  v[3].peak_B = 30 * GIB;
  char *paths[4];
  for (guint32 i = 0; i < 4; i++)
    {
      write_variant (prefix, i, &v[i]);
      paths[i] = rank_path (prefix, i);
    }
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  for (guint32 i = 0; i < 4; i++)
    {
      WlGraph *g = wl_graph_cache_load_limited (cache, paths[i], G_MAXUINT64, NULL, NULL);
      g_autoptr (WlGraph) full = wl_graph_load (paths[i], NULL);
      ck_assert_ptr_nonnull (g);
      ck_assert_ptr_nonnull (full);
      ck_assert_uint_eq (full->facts.peak_memory_B, v[i].peak_B);
      ck_assert_uint_eq (g->facts.peak_memory_B, v[i].peak_B);
      if (i > 0)
        {
          ck_assert_msg (g->base != NULL, "rank %u loaded in full", i);
          assert_same_as_full (g, full, g->base);
        }
      wl_graph_unref (g);
      g_free (paths[i]);
    }
}
END_TEST

/* Through the cache, on one thread or two, the bytes of the whole set
 * held at once or a file or two at a time (pieces of one byte): rank 1,
 * one byte apart from rank 0 outside the names (the compute node's
 * duration, 10 us -> 11 us), loads in full, equal to its own load; rank
 * 2, rank 1 with the send's peers renamed, is then read against rank 1,
 * the last file of its length, whose bytes loading held for it. */
START_TEST (test_cache_one_byte_off_loads_in_full)
{
  g_autofree char *prefix = tu_scratch_path ("byte");
  write_variant (prefix, 0, &BASE);
  Variant time = BASE;
  time.micros = 11;
  Variant renamed = time;
  renamed.src = 1;
  renamed.dst = 0;
  write_variant (prefix, 1, &time);
  write_variant (prefix, 2, &renamed);
  char *paths[3];
  gsize len[3];
  for (guint32 i = 0; i < 3; i++)
    {
      paths[i] = rank_path (prefix, i);
      g_autofree char *bytes = NULL;
      ck_assert (g_file_get_contents (paths[i], &bytes, &len[i], NULL));
    }
  /* The same length, so each is read against the one before it. */
  ck_assert_uint_eq (len[1], len[0]);
  ck_assert_uint_eq (len[2], len[0]);
  for (guint threads = 1; threads <= 2; threads++)
    for (guint piece = 0; piece <= 1; piece++)
      {
        g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
        wl_graph_cache_set_threads (cache, threads);
        if (piece > 0)
          wl_graph_cache_set_piece (cache, piece);
        wl_graph_cache_prefetch (cache, (const char *const *) paths, 3, G_MAXUINT64);
        WlGraph *g[3];
        for (guint32 i = 0; i < 3; i++)
          {
            g[i] = wl_graph_cache_load_limited (cache, paths[i], G_MAXUINT64, NULL, NULL);
            ck_assert_ptr_nonnull (g[i]);
          }
        wl_graph_cache_prefetch_end (cache);
        ck_assert_uint_eq (wl_graph_cache_distinct (cache), 3);
        ck_assert_ptr_null (g[1]->base);
        ck_assert_ptr_nonnull (g[1]->nodes);
        g_autoptr (WlGraph) full1 = wl_graph_load (paths[1], NULL);
        ck_assert_uint_eq (g[1]->n_nodes, full1->n_nodes);
        for (guint32 v = 0; v < full1->n_nodes; v++)
          tu_assert_same_node (&g[1]->nodes[v], &full1->nodes[v]);
        ck_assert_uint_eq (g[1]->nodes[0].duration_ps, 11000000);
        ck_assert_ptr_eq (g[2]->base, g[1]);
        ck_assert_uint_eq (g[2]->n_patches, 1);
        g_autoptr (WlGraph) full2 = wl_graph_load (paths[2], NULL);
        assert_same_as_full (g[2], full2, g[1]);
        for (guint32 i = 0; i < 3; i++)
          wl_graph_unref (g[i]);
      }
  for (guint32 i = 0; i < 3; i++)
    g_free (paths[i]);
}
END_TEST

/* Where each node's frame names sit is kept from a full load (a send's
 * and a collective's; not a compute node's), taken by the next file of
 * its length read against it and passed on to that file's graph; a file
 * of another length copies them (the earlier file keeps its own).  The
 * graphs are each file's own load, node by node; a name that does not
 * decode (pg_name "x") leaves the file to the full load, whose error
 * names it. */
START_TEST (test_frame_names_passed_on)
{
  g_autofree char *prefix = tu_scratch_path ("fnames");
  write_variant (prefix, 0, &BASE);
  Variant group = BASE, longer = BASE, both = BASE, word = BASE;
  group.group = "6";
  longer.group = "61";
  both.group = "7";
  both.src = 1;
  both.dst = 0;
  word.group = "x";
  write_variant (prefix, 1, &group);
  write_variant (prefix, 2, &longer);
  write_variant (prefix, 3, &both);
  write_variant (prefix, 4, &word);
  g_autofree char *p0 = rank_path (prefix, 0);
  g_autoptr (WlGraph) base = wl_graph_load (p0, NULL);
  ck_assert_ptr_nonnull (base->frame_names);
  ck_assert_uint_eq (base->frame_names[0].clean, 0);
  ck_assert_uint_eq (base->frame_names[1].clean, 1);
  ck_assert_uint_eq (base->frame_names[2].clean, 1);
  /* The send names comm_src and comm_dst (and pg_name); the collective
   * only pg_name. */
  ck_assert_uint_ne (base->frame_names[1].at[0], 0);
  ck_assert_uint_ne (base->frame_names[1].at[1], 0);
  ck_assert_uint_eq (base->frame_names[2].at[0], 0);
  ck_assert_uint_ne (base->frame_names[2].at[4], 0);
  WlRawNames coll = base->frame_names[2];
  /* Another length: copied. */
  g_autoptr (WlGraph) d2 = delta_of (base, prefix, 2);
  ck_assert_ptr_nonnull (d2);
  ck_assert_ptr_nonnull (base->frame_names);
  ck_assert_ptr_nonnull (d2->frame_names);
  g_autofree char *path2 = rank_path (prefix, 2);
  g_autoptr (WlGraph) full2 = wl_graph_load (path2, NULL);
  assert_same_as_full (d2, full2, base);
  /* The same length: taken, and the collective's name sits where it did. */
  g_autoptr (WlGraph) d1 = delta_of (base, prefix, 1);
  ck_assert_ptr_nonnull (d1);
  ck_assert_ptr_null (base->frame_names);
  ck_assert_ptr_nonnull (d1->frame_names);
  ck_assert (memcmp (&d1->frame_names[2], &coll, sizeof coll) == 0);
  g_autofree char *path1 = rank_path (prefix, 1);
  g_autoptr (WlGraph) full1 = wl_graph_load (path1, NULL);
  assert_same_as_full (d1, full1, base);
  /* Rank 3 read against rank 1 by their names. */
  g_autoptr (WlGraph) d3 = delta_of_paths (d1, prefix, 1, 3);
  ck_assert_ptr_nonnull (d3);
  ck_assert_ptr_null (d1->frame_names);
  g_autofree char *path3 = rank_path (prefix, 3);
  g_autoptr (WlGraph) full3 = wl_graph_load (path3, NULL);
  assert_same_as_full (d3, full3, base);
  /* pg_name "x": not read against rank 3; its load says why, naming the
   * file and the node. */
  ck_assert_ptr_null (delta_of_paths (d3, prefix, 3, 4));
  g_autofree char *path4 = rank_path (prefix, 4);
  GError *error = NULL;
  ck_assert_ptr_null (wl_graph_load (path4, &error));
  ck_assert_ptr_nonnull (error);
  ck_assert_ptr_nonnull (strstr (error->message, path4));
  ck_assert_ptr_nonnull (strstr (error->message, "pg_name"));
  ck_assert_ptr_nonnull (strstr (error->message, "node 3"));
  g_clear_error (&error);
}
END_TEST

/* Rank RANK of PREFIX: BASE but for the collective, whose pg_name is GROUP
 * and which also carries a string attribute of PAD bytes, written after
 * pg_name (PAD_FIRST FALSE) or before it. */
static void
write_padded (const char *prefix, guint32 rank, const char *group, gsize pad,
              gboolean pad_first)
{
  g_autofree char *filler = g_strnfill (pad, 'p');
  ChakraProtoMsg__Node *nodes[3];
  nodes[0] = tu_comp (1, BASE.micros);
  nodes[1] = tu_p2p (2, CHAKRA_PROTO_MSG__NODE_TYPE__COMM_SEND_NODE, BASE.src, BASE.dst, 7,
                     BASE.bytes);
  tu_node_dep (nodes[1], 1);
  nodes[2] = tu_coll (3, CHAKRA_PROTO_MSG__COLLECTIVE_COMM_TYPE__ALL_REDUCE, 4096);
  if (pad_first)
    tu_node_attr_string (nodes[2], "note", filler);
  tu_node_attr_string (nodes[2], "pg_name", group);
  if (!pad_first)
    tu_node_attr_string (nodes[2], "note", filler);
  tu_node_dep (nodes[2], 2);
  tu_write_rank (prefix, rank, nodes, 3);
}

/* A frame that differs but for its names and whose name lies beyond what a
 * note can hold (64 KiB in) is noted as not clean: rank 1 moves the
 * collective's pg_name behind 70,000 bytes of another attribute (the file
 * keeps rank 0's length), so rank 0's note, which places pg_name near the
 * frame's start, must not be passed on as rank 1's.  Rank 2, rank 1 but for
 * the group, read against rank 1 then reads that frame in full, and each
 * graph is its own file's full load. */
START_TEST (test_far_names_not_clean)
{
  g_autofree char *prefix = tu_scratch_path ("far");
  write_padded (prefix, 0, "5", 70000, FALSE);
  write_padded (prefix, 1, "6", 70000, TRUE);
  write_padded (prefix, 2, "7", 70000, TRUE);
  g_autofree char *p0 = rank_path (prefix, 0);
  g_autoptr (WlGraph) base = wl_graph_load (p0, NULL);
  ck_assert_ptr_nonnull (base);
  ck_assert_ptr_nonnull (base->frame_names);
  ck_assert_uint_eq (base->frame_names[2].clean, 1);
  ck_assert_uint_lt (base->frame_names[2].at[4], 256);
  g_autoptr (WlGraph) d1 = delta_of (base, prefix, 1);
  ck_assert_ptr_nonnull (d1);
  ck_assert_ptr_nonnull (d1->frame_names);
  ck_assert_uint_eq (d1->frame_names[2].clean, 0);
  g_autoptr (WlGraph) d2 = delta_of_paths (d1, prefix, 1, 2);
  ck_assert_ptr_nonnull (d2);
  for (guint32 r = 1; r <= 2; r++)
    {
      g_autofree char *p = rank_path (prefix, r);
      g_autoptr (WlGraph) full = wl_graph_load (p, NULL);
      ck_assert_ptr_nonnull (full);
      assert_same_as_full (r == 1 ? d1 : d2, full, base);
    }
}
END_TEST

/* Through the cache: rank 1, another length but only in a group's name,
 * is read against rank 0 (the last new file), not loaded in full; rank 2,
 * rank 0's length, against rank 0 too, by the names rank 0's load noted. */
START_TEST (test_cache_new_length_read_against_last)
{
  g_autofree char *prefix = tu_scratch_path ("newlen");
  /* BASE but for the collective's group. */
  const Variant longer = { 0, 1, 1000, 10, "61", 2, 0 }, group = { 0, 1, 1000, 10, "7", 2, 0 };
  g_autoptr (WlGraphCache) cache = wl_graph_cache_new_full (FALSE);
  char *paths[3];
  WlGraph *g[3];
  load_three (prefix, &longer, &group, cache, paths, g);
  ck_assert_ptr_eq (g[1]->base, g[0]);
  ck_assert_ptr_eq (g[2]->base, g[0]);
  ck_assert_ptr_nonnull (g[2]->frame_names);
  ck_assert_ptr_null (g[0]->frame_names);
  for (guint32 i = 1; i < 3; i++)
    {
      g_autoptr (WlGraph) full = wl_graph_load (paths[i], NULL);
      assert_same_as_full (g[i], full, g[0]);
    }
  for (guint32 i = 0; i < 3; i++)
    {
      wl_graph_unref (g[i]);
      g_free (paths[i]);
    }
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("load_delta");
  TCase *tc = tu_tcase (s, "delta", tu_scratch_setup, tu_scratch_teardown, 0);
  tcase_add_test (tc, test_nodes_arrays);
  tcase_add_test (tc, test_names_only);
  tcase_add_test (tc, test_frame_names_passed_on);
  tcase_add_test (tc, test_cache_new_length_read_against_last);
  tcase_add_test (tc, test_far_names_not_clean);
  tcase_add_test (tc, test_other_differences_load_in_full);
  tcase_add_test (tc, test_carried_renames);
  tcase_add_test (tc, test_cache_reads_against_first_of_length);
  tcase_add_test (tc, test_cache_own_facts);
  tcase_add_test (tc, test_cache_one_byte_off_loads_in_full);
  return tu_run_suite (s);
}
