/* The output pool: large blocks kept after their array died, so that the next large result
   finds its pages already mapped and is written without page faults.

   An allocator with numpy's PyDataMem_Handler signatures (the runtime installs it only around
   the allocation of a large fresh result).  A block is handed out only after the array that
   owned it was freed, so live arrays never share memory.  The pool is bounded (FB_POOL_SLOTS
   blocks, FB_POOL_MAX_BYTES idle: a block freed into a full pool takes the place of the blocks
   idle longest), gives idle memory back: MADV_FREE lets the kernel take an
   idle block's pages whenever it needs memory, and a block idle for FB_POOL_MAX_AGE seconds is
   freed at the next pool operation; fb_pool_release() frees every idle block at once.  It does
   not exist in sanitizer builds (reuse could hide a use-after-free) nor where there is no
   MADV_FREE: there fb_pool_available() is 0 and the functions below pass through to malloc. */
#ifndef FASTBITS_POOL_H
#define FASTBITS_POOL_H

#include "platform.h"

#define FB_POOL_SLOTS 4
#define FB_POOL_MAX_BYTES ((size_t)256 << 20)
#define FB_POOL_MAX_AGE 10.0 /* seconds */

typedef struct {
    size_t hits;       /* allocations served from an idle block */
    size_t misses;     /* allocations that took new memory */
    size_t idle_bytes; /* bytes held idle now */
    size_t idle_blocks;
} fb_pool_stats_t;

int fb_pool_available(void);
void *fb_pool_malloc(void *ctx, size_t size);
void *fb_pool_calloc(void *ctx, size_t nelem, size_t elsize);
void *fb_pool_realloc(void *ctx, void *ptr, size_t new_size);
void fb_pool_free(void *ctx, void *ptr, size_t size);

/* Free every idle block; return the bytes given back. */
size_t fb_pool_release(void);
void fb_pool_stats(fb_pool_stats_t *stats);

/* Register the fork handler; 0 on success. */
int fb_pool_init(void);

#endif /* FASTBITS_POOL_H */
