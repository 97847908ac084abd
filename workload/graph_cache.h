/* graph_cache.h: sharing one trace graph among byte-identical files.
 *
 * Models: data-parallel traces are often byte-identical across ranks; the
 * cache keys each loaded graph by a fast hash of its file's bytes
 * (wl_bytes_hash) and takes a file for an earlier one only when their bytes
 * are equal, compared in full: a second identical file costs a hash and a
 * comparison and nothing else, and no result rests on the hash.
 *
 * Each file is mapped, hashed, and parsed from the mapping only when no
 * earlier file has its bytes (linear in the bytes of the files).  Gzip files
 * are the exception: they are inflated from the file itself (zlib reads
 * only files), so they are read twice.  A trace file must not shrink while
 * it is loaded (a mapped file cut short under the reader is a SIGBUS, as
 * for any program that maps its input).  METADATA
 * group lists are parsed once per distinct list for all the cache's files
 * (group_memo.h).
 *
 * Files alike but for names: a new file is first read against the bytes
 * of the last new file of its length before it (or, when there is none,
 * of the last new file: loading one file at a time) (wl_graph_delta):
 * where every frame is the same byte for byte, or the
 * same node but for the ranks and group it names (the traces of
 * data-parallel replicas, tensor-parallel peers and like pipeline stages
 * of a generated iteration), its graph is a renamed graph, exactly what
 * its own load gives, at the cost of a comparison and of decoding the
 * frames that differ; anything else loads in full.  That file is mapped
 * again for it (it must not change meanwhile).
 *
 * Threads: a cache is used from one thread; wl_graph_cache_prefetch runs
 * workers of its own, joined before it is freed.
 *
 * Ownership: the cache holds one reference to each graph it made and hands
 * out new references (wl_graph_unref them).
 *
 * Layer: workload.  May include: system, network, sim, GLib.
 */
#ifndef ORRERY_WORKLOAD_GRAPH_CACHE_H
#define ORRERY_WORKLOAD_GRAPH_CACHE_H

#include <glib.h>

#include "workload/bytes_hash.h"
#include "workload/graph.h"

/* The SHA-256 of the file at PATH (lower-case hex, newly allocated), read
 * mapped (in pieces when it cannot be mapped); NULL with ERROR set
 * (WL_ERROR, SIM_ERROR_INPUT) when it cannot be read.  What a report
 * prints; loading does not take it (wl_bytes_hash). */
char *wl_file_sha256 (const char *path, GError **error);


/* A file's bytes, read (mapped, over 64 MiB) and their hash, taken in one pass:
 * what loading needs to find a file it may have seen (then compared byte
 * for byte) and, when it has not, to parse it without reading it again. */
typedef struct
{
  const guint8 *bytes; /* the file's bytes, or NULL when it could not be mapped
                        * (empty, or the system refused): then read the file */
  gsize len;
  guint64 hash;        /* wl_bytes_hash of the bytes (0 when BYTES is NULL) */
  gpointer map;        /* private: the mapping of a large file */
  gpointer heap;       /* private: a file's bytes, read (owned) */
  gsize cap;           /* private: HEAP's size */
  gboolean hashed;     /* private: HASH was taken as the bytes were read */
} WlFileImage;

/* Map PATH into IMG (zeroed first), or read it when small, without hashing
 * it; IMG->bytes stays NULL for a file that cannot be mapped or read
 * (empty).  FALSE with ERROR set when it cannot be opened or is not a
 * regular file.  For graph_cache.c, which hashes only what it needs. */
gboolean wl_file_image_map (WlFileImage *img, const char *path, GError **error);
/* Map PATH and hash it into IMG (overwritten: clear it first if it holds
 * an image).  FALSE with ERROR set when it cannot be opened or is not a
 * regular file.  A file that cannot be mapped is never taken for another
 * (IMG->bytes NULL). */
gboolean wl_file_image_open (WlFileImage *img, const char *path, GError **error);
/* Whether the file at PATH (mapped for the comparison) holds IMG's bytes,
 * compared in full; FALSE when either could not be mapped. */
gboolean wl_file_image_same (const WlFileImage *img, const char *path);
/* Unmap IMG; IMG may be cleared again. */
void wl_file_image_clear (WlFileImage *img);
/* Free the buffers that large files were read into, kept for the next
 * reads (file_image.c); loading works as before after it. */
void wl_file_image_pool_drain (void);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (WlFileImage, wl_file_image_clear)

/* Loads files, sharing one graph among byte-identical files. */
typedef struct _WlGraphCache WlGraphCache;
/* A cache whose graphs are loaded leniently (wl_graph_load_full). */
WlGraphCache *wl_graph_cache_new_full (gboolean lenient);
void wl_graph_cache_free (WlGraphCache *cache); /* accepts NULL */
/* A new reference to the graph of PATH, loading a new file with
 * wl_graph_load_limited (a file identical to one already loaded costs
 * nothing and never stops). */
WlGraph *wl_graph_cache_load_limited (WlGraphCache *cache, const char *path, guint64 limit,
                                      gboolean *over, GError **error);
guint wl_graph_cache_distinct (const WlGraphCache *cache);
/* Bytes of the files the cache was asked for, each time (mapped files). */
guint64 wl_graph_cache_bytes (const WlGraphCache *cache);

/* Parallel loading.  The most worker threads a load uses. */
#define WL_LOAD_THREADS_MAX 64
/* The bytes of files a replay loading on threads reads on its own thread
 * first (wl_graph_cache_set_serial, wl_replay_set_load_threads).  On the
 * Llama-2 7B TP4 PP2 DP4 set (32 files, 7.4 MB) two threads took 28 ms of
 * CPU time (perf stat task-clock, 2,560 page faults, 1,800 of them in the
 * reads into the held bytes) and one 17 ms (790 faults), in the same wall
 * time; GPT-3's 198 MB load in 0.45 s of wall time on two threads against
 * 1.2 s on one (tests/README.md "Performance"). */
#define WL_LOAD_SERIAL_BYTES ((guint64) 16 << 20)
/* Load with THREADS threads (1, the default: every file in the caller's
 * thread, when asked; at most WL_LOAD_THREADS_MAX). */
void wl_graph_cache_set_threads (WlGraphCache *cache, guint threads);
/* Announce that wl_graph_cache_load_limited will be called for PATHS[0 ..
 * N-1] in that order, each with a limit of at most LIMIT: with more than
 * one thread, the files are mapped and hashed on worker threads (each
 * let go once hashed, so that the pages of the whole set are not held at
 * once), then the distinct ones (the lowest rank of each hash) mapped
 * again and decoded there, in rank order, while the caller takes them (a
 * file must not change between the two).  That is done a piece at a time
 * (files in rank order up to wl_graph_cache_set_piece's bytes, 32 MiB
 * by default; a piece's bytes, read, are kept to its decode, and a file's
 * for the next file of its length in the piece): a piece is hashed
 * when the caller has taken every file
 * before it, and decoded while its pages are still in the page cache,
 * so that a trace set larger than the page cache is read from disk once,
 * not twice; a file whose hash an earlier one
 * has is compared with the files of that hash by the caller, and loaded
 * there in the rare case that none has its bytes.  Each call returns exactly what
 * it would have returned without the announcement (the same graph, shared
 * by the same files, the same error or the same *OVER): a file is decoded
 * with LIMIT and the working memory it reached (WlGraphLoad.peak) decides
 * whether the call's own limit would have stopped it.  The workers claim
 * no file past one that failed, nor past the point where the graphs
 * decoded already hold more than LIMIT bytes (the caller, which counts at
 * least those, cannot get past them): memory stays within about LIMIT
 * plus one file per thread.  A call out of the announced order ends the
 * announcement, and so does wl_graph_cache_prefetch_end. */
/* The bytes of a piece of the files a prefetch hashes before decoding
 * them (at least one file a piece; rounded up to KiB). */
void wl_graph_cache_set_piece (WlGraphCache *cache, guint64 bytes);
/* Take the announced files on the caller's thread alone, as without the
 * announcement, until the files taken hold BYTES (0, the default: start the
 * workers at once); the workers then take the rest.  On a set of a few MB
 * the threads cost more than they save: each file's bytes are held from
 * its hash to its decode in pages of its own, where the caller's thread
 * reads each into one buffer used again (see WL_LOAD_SERIAL_BYTES). */
void wl_graph_cache_set_serial (WlGraphCache *cache, guint64 bytes);
void wl_graph_cache_prefetch (WlGraphCache *cache, const char *const *paths, guint32 n,
                              guint64 limit);
/* Stop and join the workers, and drop what they decoded that was not
 * taken; the cache is as if loaded without an announcement. */
void wl_graph_cache_prefetch_end (WlGraphCache *cache);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlGraphCache, wl_graph_cache_free)

#endif /* ORRERY_WORKLOAD_GRAPH_CACHE_H */
