/* pb_arena.c: bump allocation for protobuf-c, reset per frame. */
#include "workload/pb_arena.h"

/* Blocks are aligned as malloc aligns them (16 bytes on x86-64), which is
 * what protobuf-c's messages (doubles, 64-bit ints, pointers) need. */
#define ARENA_ALIGN ((gsize) 16)
/* The first main block: a typical trace node with its attributes decodes
 * into about 1 KiB. */
#define ARENA_FIRST_BYTES ((gsize) 8 * 1024)

struct _WlPbArena
{
  WlPbArenaBump bump;  /* first: wl_pb_arena_alloc reads it through the arena */
  GPtrArray *overflow; /* blocks past the main one, freed at reset */
  gsize overflow_bytes;
};

G_STATIC_ASSERT (ARENA_ALIGN == 16); /* wl_pb_arena_alloc rounds to 16 too */

static void *
arena_alloc (void *data, size_t size)
{
  WlPbArena *a = data;
  gsize need = (size + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
  if (need < size)
    return NULL; /* the rounding overflowed: nothing could hold it */
  a->bump.demand += need;
  if (need <= a->bump.cap - a->bump.used)
    {
      void *p = a->bump.block + a->bump.used;
      a->bump.used += need;
      return p;
    }
  void *p = g_try_malloc (MAX (need, (gsize) 1));
  if (p != NULL)
    {
      g_ptr_array_add (a->overflow, p);
      a->overflow_bytes += need;
    }
  return p;
}

static void
arena_free (void *data, void *pointer)
{
  (void) data;
  (void) pointer; /* released all at once by wl_pb_arena_reset */
}

WlPbArena *
wl_pb_arena_new (void)
{
  WlPbArena *a = g_new0 (WlPbArena, 1);
  a->bump.allocator = (ProtobufCAllocator) { .alloc = arena_alloc, .free = arena_free,
                                        .allocator_data = a };
  a->overflow = g_ptr_array_new_with_free_func (g_free);
  return a;
}

void
wl_pb_arena_free (WlPbArena *a)
{
  if (a == NULL)
    return;
  g_ptr_array_unref (a->overflow);
  g_free (a->bump.block);
  g_free (a);
}

ProtobufCAllocator *
wl_pb_arena_allocator (WlPbArena *a)
{
  g_return_val_if_fail (a != NULL, NULL);
  return &a->bump.allocator;
}

void
wl_pb_arena_reset (WlPbArena *a)
{
  g_return_if_fail (a != NULL);
  if (a->overflow->len > 0 || a->bump.cap == 0)
    {
      /* Grow the main block so that a frame like the last one fits in it;
       * if that fails, keep the old block and overflow again. */
      gsize want = MAX (MAX (a->bump.demand, 2 * a->bump.cap), ARENA_FIRST_BYTES);
      guint8 *bigger = g_try_malloc (want);
      if (bigger != NULL)
        {
          g_free (a->bump.block);
          a->bump.block = bigger;
          a->bump.cap = want;
        }
      g_ptr_array_set_size (a->overflow, 0);
      a->overflow_bytes = 0;
    }
  a->bump.used = 0;
  a->bump.demand = 0;
}

gsize
wl_pb_arena_bytes (const WlPbArena *a)
{
  g_return_val_if_fail (a != NULL, 0);
  return a->bump.cap + a->overflow_bytes;
}
