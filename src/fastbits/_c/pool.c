/* The output pool (see pool.h for the contract). */
#include "pool.h"

#include <string.h>

#if defined(__linux__) || defined(__APPLE__)
#include <sys/mman.h>
#include "clock.h"
#include <pthread.h>
#include <unistd.h>
#endif

/* FB_FORCE_POOL: the real pool in a sanitizer build too.  Python builds never define it (under
   ASan a reused block could hide a use-after-free, see pool.h); scripts/tsan.sh defines it to
   test the pool's own locking under ThreadSanitizer. */
#if defined(MADV_FREE) && FB_THREADS && (!FB_SANITIZED || defined(FB_FORCE_POOL)) && !defined(FB_NO_POOL)
#define FB_POOL 1
#else
#define FB_POOL 0
#endif

/* Every block starts with a header holding its capacity: fb_pool_free learns it from there. */
#define HEADER 64
#define ROUND ((size_t)1 << 21) /* capacities are multiples of 2 MiB (one huge page) */

#if FB_POOL

typedef struct {
    char *base;  /* NULL: the slot is empty */
    size_t cap;
    double since; /* when it became idle (monotonic seconds) */
} idle_block;

static idle_block slots[FB_POOL_SLOTS];
static size_t idle_bytes, hits, misses;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int fb_pool_available(void) { return 1; }

static double now(void) { return 1e-9 * (double)fb_now_ns(); }

static char *new_block(size_t cap) {
    void *base = NULL;
    if (posix_memalign(&base, ROUND, cap + HEADER) != 0) return NULL;
#if defined(MADV_HUGEPAGE)
    (void)madvise(base, cap + HEADER, MADV_HUGEPAGE);
#endif
    *(size_t *)base = cap;
    return (char *)base;
}

/* Empty slot i and return its block (called with the lock held, as the functions below). */
static char *take(int i) {
    char *base = slots[i].base;
    idle_bytes -= slots[i].cap;
    slots[i].base = NULL;
    slots[i].cap = 0;
    return base;
}

/* Empty the slots whose block has been idle too long into drop[]. */
static int take_aged(char **drop, double t) {
    int i, n = 0;
    for (i = 0; i < FB_POOL_SLOTS; i++)
        if (slots[i].base != NULL && t - slots[i].since > FB_POOL_MAX_AGE) drop[n++] = take(i);
    return n;
}

void *fb_pool_malloc(void *ctx, size_t size) {
    int i, best = -1, ndrop;
    char *base = NULL, *drop[FB_POOL_SLOTS];
    size_t cap;
    (void)ctx;
    if (size == 0) size = 1;
    if (size > ((size_t)-1) - ROUND - HEADER) return NULL;
    pthread_mutex_lock(&lock);
    ndrop = take_aged(drop, now());
    for (i = 0; i < FB_POOL_SLOTS; i++) {
        if (slots[i].base != NULL && slots[i].cap >= size && slots[i].cap <= 2 * size + ROUND
            && (best < 0 || slots[i].cap < slots[best].cap))
            best = i;
    }
    if (best >= 0) {
        base = take(best);
        hits++;
    } else {
        misses++;
    }
    pthread_mutex_unlock(&lock);
    for (i = 0; i < ndrop; i++) free(drop[i]);
    if (base == NULL) {
        cap = (size + ROUND - 1) / ROUND * ROUND;
        base = new_block(cap);
    }
    return base == NULL ? NULL : base + HEADER;
}

void fb_pool_free(void *ctx, void *ptr, size_t size) {
    int i, slot = -1, ndrop;
    char *base, *drop[FB_POOL_SLOTS + 1];
    size_t cap, page;
    double t;
    (void)ctx;
    (void)size;
    if (ptr == NULL) return;
    base = (char *)ptr - HEADER;
    cap = *(size_t *)base;
    /* Idle pages go back to the kernel whenever it needs memory; until then they stay mapped,
       and writing them again costs no page fault.  (The first page holds the header.) */
    page = (size_t)sysconf(_SC_PAGESIZE);
    if (cap + HEADER > page) (void)madvise(base + page, cap + HEADER - page, MADV_FREE);
    t = now();
    pthread_mutex_lock(&lock);
    ndrop = take_aged(drop, t);
    /* Keep it, making room by freeing the blocks idle longest: the block freed last is the one
       the next large result (often of the same size) most likely wants. */
    while (cap <= FB_POOL_MAX_BYTES) {
        int oldest = -1;
        slot = -1;
        for (i = 0; i < FB_POOL_SLOTS; i++) {
            if (slots[i].base == NULL) slot = i;
            else if (oldest < 0 || slots[i].since < slots[oldest].since) oldest = i;
        }
        if (slot >= 0 && idle_bytes + cap <= FB_POOL_MAX_BYTES) break;
        drop[ndrop++] = take(oldest); /* (oldest exists: an empty pool has room) */
    }
    if (cap <= FB_POOL_MAX_BYTES) {
        idle_bytes += cap;
        slots[slot].base = base;
        slots[slot].cap = cap;
        slots[slot].since = t;
    } else {
        drop[ndrop++] = base;
    }
    pthread_mutex_unlock(&lock);
    for (i = 0; i < ndrop; i++) free(drop[i]);
}

void *fb_pool_realloc(void *ctx, void *ptr, size_t new_size) {
    size_t cap;
    void *moved;
    if (ptr == NULL) return fb_pool_malloc(ctx, new_size);
    cap = *(size_t *)((char *)ptr - HEADER);
    if (new_size <= cap) return ptr;
    moved = fb_pool_malloc(ctx, new_size);
    if (moved == NULL) return NULL;
    memcpy(moved, ptr, cap);
    fb_pool_free(ctx, ptr, cap);
    return moved;
}

size_t fb_pool_release(void) {
    int i;
    char *drop[FB_POOL_SLOTS];
    size_t released;
    pthread_mutex_lock(&lock);
    released = idle_bytes;
    for (i = 0; i < FB_POOL_SLOTS; i++) drop[i] = take(i);
    pthread_mutex_unlock(&lock);
    for (i = 0; i < FB_POOL_SLOTS; i++) free(drop[i]);
    return released;
}

void fb_pool_stats(fb_pool_stats_t *stats) {
    int i;
    pthread_mutex_lock(&lock);
    stats->hits = hits;
    stats->misses = misses;
    stats->idle_bytes = idle_bytes;
    stats->idle_blocks = 0;
    for (i = 0; i < FB_POOL_SLOTS; i++) stats->idle_blocks += slots[i].base != NULL;
    pthread_mutex_unlock(&lock);
}

/* fork(): the forking thread takes the lock first, so that the child never copies the slots
   and counters half-updated by another thread (a slot's new base beside its old cap would hand
   out a block as larger than it is; a half-done idle_bytes update wraps it below 0).  The parent
   gives the lock back; in the child it is held by a thread that does not exist there (the
   forking thread has another id): start it afresh. */
static void before_fork(void) { pthread_mutex_lock(&lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&lock); }
static void after_fork_child(void) { pthread_mutex_init(&lock, NULL); }

int fb_pool_init(void) {
    static int registered; /* once: a second prepare handler would take the lock twice */
    int status = 0;
    pthread_mutex_lock(&lock);
    if (!registered) {
        status = pthread_atfork(before_fork, after_fork_parent, after_fork_child);
        registered = status == 0;
    }
    pthread_mutex_unlock(&lock);
    return status;
}

#else /* no pool: plain malloc */

int fb_pool_available(void) { return 0; }
void *fb_pool_malloc(void *ctx, size_t size) { (void)ctx; return malloc(size ? size : 1); }
void *fb_pool_realloc(void *ctx, void *ptr, size_t new_size) { (void)ctx; return realloc(ptr, new_size ? new_size : 1); }
void fb_pool_free(void *ctx, void *ptr, size_t size) { (void)ctx; (void)size; free(ptr); }
size_t fb_pool_release(void) { return 0; }
void fb_pool_stats(fb_pool_stats_t *stats) { memset(stats, 0, sizeof(*stats)); }
int fb_pool_init(void) { return 0; }

#endif

void *fb_pool_calloc(void *ctx, size_t nelem, size_t elsize) {
    void *p;
    if (elsize != 0 && nelem > ((size_t)-1) / elsize) return NULL;
    p = fb_pool_malloc(ctx, nelem * elsize);
    if (p != NULL) memset(p, 0, nelem * elsize);
    return p;
}
