/* pb_arena.h: a bump allocator for protobuf-c decoding, reset per frame.
 *
 * Models: protobuf-c asks its allocator for every sub-message, repeated
 * field and string of a node it unpacks (a dozen or more small blocks per
 * node), and frees each one again.  A trace reader that needs each node only
 * until the next one decodes into an arena instead: allocation is a pointer
 * bump in one block, freeing a block does nothing, and the whole arena is
 * reset before the next frame.  Memory is the largest node decoded so far
 * (rounded up), whatever the file size.
 *
 * Ownership: the arena owns every block it hands out; wl_pb_arena_reset
 * makes them all invalid at once.  Free with wl_pb_arena_free (NULL
 * accepted).
 *
 * Layer: workload.  May include: GLib, protobuf-c.
 */
#ifndef ORRERY_WORKLOAD_PB_ARENA_H
#define ORRERY_WORKLOAD_PB_ARENA_H

#include <glib.h>
#include <protobuf-c/protobuf-c.h>

typedef struct _WlPbArena WlPbArena;

WlPbArena *wl_pb_arena_new (void);
void wl_pb_arena_free (WlPbArena *arena); /* accepts NULL */

/* The allocator to pass to protobuf-c's unpack functions (borrowed from the
 * arena).  Its alloc returns NULL when memory runs out, as malloc would,
 * so that unpacking fails instead of aborting; its free does nothing. */
ProtobufCAllocator *wl_pb_arena_allocator (WlPbArena *arena);

/* The arena's bump state, first in it: public only for the inline fast
 * path of wl_pb_arena_alloc (read and written through that alone). */
typedef struct
{
  ProtobufCAllocator allocator; /* alloc/free, allocator_data = the arena */
  guint8 *block;                /* the main block */
  gsize cap;                    /* its size */
  gsize used;                   /* bytes handed out from it since the last reset */
  gsize demand;                 /* bytes asked for since the last reset */
} WlPbArenaBump;

/* SIZE bytes from ARENA, as its allocator's alloc gives them: a pointer
 * bump inline when the main block has room, else the allocator's call
 * (overflow blocks, NULL when memory runs out).  For decoders that call it
 * per string and sub-message. */
static inline void *
wl_pb_arena_alloc (WlPbArena *arena, gsize size)
{
  WlPbArenaBump *b = (WlPbArenaBump *) arena;
  gsize need = (size + 15) & ~(gsize) 15; /* ARENA_ALIGN (pb_arena.c) */
  if (need >= size && need <= b->cap - b->used)
    {
      void *p = b->block + b->used;
      b->used += need;
      b->demand += need;
      return p;
    }
  return b->allocator.alloc (arena, size);
}

/* Forget every block handed out.  When the last frame overflowed the main
 * block, the main block grows to hold such a frame in one piece. */
void wl_pb_arena_reset (WlPbArena *arena);

/* Bytes the arena holds (its main block and any overflow blocks). */
gsize wl_pb_arena_bytes (const WlPbArena *arena);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (WlPbArena, wl_pb_arena_free)

#endif /* ORRERY_WORKLOAD_PB_ARENA_H */
