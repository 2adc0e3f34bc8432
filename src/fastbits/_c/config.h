/* The runtime's settings, kept so that a change from one thread never tears a read in another,
   the values a thread's config_context gives it, and the grain rule that turns them into a
   call's thread count.

   Each setting has a process-wide value (set_config), and a thread may hold its own value of
   any of them (config_context, on that thread only).  A call takes one snapshot
   (fb_config_get) and decides everything from it: whether its result is streamed around the
   cache, and how many threads share its work.  The process-wide values are read and written
   with atomic operations; a snapshot taken while set_config runs may mix old and new values,
   but never holds half a value.  A thread's own values are its own: no other thread reads them. */
#ifndef FASTBITS_CONFIG_H
#define FASTBITS_CONFIG_H

#include "platform.h"

#define FB_MAX_THREADS 256 /* threads one call may use: the caller and 255 helpers */

/* The settings the runtime keeps, by index; the grains first, so that a kind of work is the
   index of its grain (bytes of work per thread). */
enum {
    FB_GRAIN_CACHED = 0,   /* elementwise, the result stays in cache */
    FB_GRAIN_STREAMED = 1, /* elementwise, the result streamed around the cache */
    FB_GRAIN_STRIDED = 2,  /* transposes, gathers of short rows, packing */
    FB_GRAIN_KINDS = 3,
    FB_NUM_THREADS = FB_GRAIN_KINDS, /* threads a call may use, caller included (>= 1) */
    FB_STREAM_THRESHOLD,   /* result bytes from which a result is streamed */
    FB_OUTPUT_POOL,        /* 1: large fresh results come from the output pool */
    FB_POOL_THRESHOLD,     /* bytes from which a fresh result comes from the pool */
    FB_SPIN_NS,            /* how long helpers watch for the next call (team.h) */
    FB_TASK_THREADS,       /* a dask task's thread cap (no C reads it) */
    FB_SETTINGS
};

/* One call's settings: everything the engine decides a call from (engine.h). */
typedef struct {
    int num_threads;                /* threads a call may use, caller included (1..FB_MAX_THREADS) */
    fb_ssize grain[FB_GRAIN_KINDS]; /* bytes of work per thread, by kind (>= 1) */
    fb_ssize stream_threshold;      /* result bytes from which a result is streamed */
    int output_pool;                /* 1: fresh results of pool_threshold bytes come from the pool */
    fb_ssize pool_threshold;
    fb_ssize spin_ns;               /* how long the team watches for shares and for the next call */
} fb_config_t;

/* This thread's own values: those of ``mask``'s bits (1 << index), and a cap on its calls'
   threads (``limit``, 0: none) that a task scheduler sets (fb_local_threads_set). */
typedef struct {
    unsigned mask;
    int limit;
    fb_ssize value[FB_SETTINGS];
} fb_local_t;

extern FB_HIDDEN fb_ssize fb_settings[FB_SETTINGS];
extern FB_HIDDEN FB_THREAD_LOCAL fb_local_t fb_local;
extern FB_HIDDEN long fb_locals_active; /* the threads that have values of their own now */

/* Setting ``k`` as a call on this thread sees it; ``local`` is &fb_local, or NULL while no
   thread has values of its own (then no call reads its thread-local storage, which costs a
   function call in a shared library: the smallest calls notice it). */
static inline fb_ssize fb_value(const fb_local_t *local, int k) {
    if (local && (local->mask >> k & 1u)) return local->value[k];
    return FB_LOAD(&fb_settings[k]);
}

static inline fb_ssize fb_setting(int k) { return fb_value(FB_LOAD(&fb_locals_active) ? &fb_local : NULL, k); }

/* The settings in force for a call on this thread.  Inline: every call takes one, the smallest
   included. */
static inline void fb_config_get(fb_config_t *config) {
    const fb_local_t *local = FB_LOAD(&fb_locals_active) ? &fb_local : NULL;
    fb_ssize n = FB_THREADS ? fb_value(local, FB_NUM_THREADS) : 1;
    int k;
    if (local && local->limit > 0 && local->limit < n) n = local->limit;
    config->num_threads = n < FB_MAX_THREADS ? (int)n : FB_MAX_THREADS;
    for (k = 0; k < FB_GRAIN_KINDS; k++) config->grain[k] = fb_value(local, k);
    config->stream_threshold = fb_value(local, FB_STREAM_THRESHOLD);
    config->output_pool = fb_value(local, FB_OUTPUT_POOL) != 0;
    config->pool_threshold = fb_value(local, FB_POOL_THRESHOLD);
    config->spin_ns = fb_value(local, FB_SPIN_NS);
}

/* Set setting ``k`` (clamped to its range: counts at least 1, bytes and times at least 0): this
   thread's own value where it has one, else the process-wide value. */
void fb_setting_set(int k, fb_ssize value);

/* This thread's own values: drop them all, then give it one of setting ``k``. */
void fb_local_clear(void);
void fb_local_set(int k, fb_ssize value);

/* A cap on the threads of calls made from the calling thread only (0: none); returns the one
   it replaces.  A task scheduler that runs fastbits calls on several threads at once sets it,
   so that their teams do not oversubscribe the cores. */
int fb_local_threads_set(int n);

/* The thread count of calls on this thread (1 in a build without the team), under the names
   threadpoolctl looks up in the loaded extension (ctypes): its limits act as set_config's. */
FB_EXPORT int fastbits_get_num_threads(void);
FB_EXPORT void fastbits_set_num_threads(int n);

/* The grain rule: the threads a call of ``work`` bytes of the given kind uses,
   min(num_threads, max(1, work / grain)), and never more than ``units`` (the pieces its loop
   can be cut into).  The engine (engine.c) asks it for every call, on one snapshot.  The first
   test is work / grain < 2 without a division; it halves work rather than doubling the grain,
   which may be as large as 2**62 and would overflow. */
static inline int fb_threads_for(const fb_config_t *config, int kind, fb_ssize work, fb_ssize units) {
    fb_ssize n;
    if (work / 2 < config->grain[kind] || units < 2) return 1;
    n = work / config->grain[kind];
    if (n > config->num_threads) n = config->num_threads;
    if (n > units) n = units;
    return n < 1 ? 1 : (int)n;
}

#endif /* FASTBITS_CONFIG_H */
