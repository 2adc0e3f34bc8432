/* The runtime's settings, stored so that a change from one thread never tears a read in
   another, and the grain rule that turns them into a call's thread count.

   A call takes one snapshot (fb_config_get) and decides everything from it: whether its
   result is streamed around the cache, and how many threads share its work.  Each field is
   read and written with atomic operations; a snapshot taken while set_config runs may mix old
   and new fields, but never holds half a value. */
#ifndef FASTBITS_CONFIG_H
#define FASTBITS_CONFIG_H

#include "platform.h"

#define FB_MAX_THREADS 256 /* threads one call may use: the caller and 255 helpers */

/* The kinds of work, each with its own grain (bytes of work per thread). */
enum {
    FB_GRAIN_CACHED = 0,   /* elementwise, the result stays in cache */
    FB_GRAIN_STREAMED = 1, /* elementwise, the result streamed around the cache */
    FB_GRAIN_STRIDED = 2,  /* transposes, gathers of short rows, packing */
    FB_GRAIN_KINDS = 3
};

typedef struct {
    int num_threads;               /* threads a call may use, caller included (1..FB_MAX_THREADS) */
    fb_ssize grain[FB_GRAIN_KINDS]; /* bytes of work per thread, by kind (>= 1) */
    fb_ssize stream_threshold;     /* bytes moved from which a result is streamed */
} fb_config_t;

/* Where the settings are kept (config.c): read them through fb_config_get, change them through
   the functions below. */
extern FB_HIDDEN struct fb_settings {
    int thread_limit;
    fb_ssize grains[FB_GRAIN_KINDS];
    fb_ssize stream_bytes;
    int local_limits; /* whether any thread ever set its own limit: else no call reads one */
} fb_settings;
extern FB_HIDDEN FB_THREAD_LOCAL int fb_local_limit;

/* The settings in force for a call on this thread: the process-wide ones, with num_threads
   capped by this thread's own limit (fb_local_threads_set) where it has one.  Inline: every
   call takes one, the smallest included. */
static inline void fb_config_get(fb_config_t *config) {
    int k, n = FB_THREADS ? FB_LOAD(&fb_settings.thread_limit) : 1;
    if (FB_LOAD(&fb_settings.local_limits) && fb_local_limit > 0 && fb_local_limit < n) n = fb_local_limit;
    config->num_threads = n < FB_MAX_THREADS ? n : FB_MAX_THREADS;
    for (k = 0; k < FB_GRAIN_KINDS; k++) config->grain[k] = FB_LOAD(&fb_settings.grains[k]);
    config->stream_threshold = FB_LOAD(&fb_settings.stream_bytes);
}

/* Process-wide settings.  The thread limit is kept as given (at least 1); a call uses at most
   FB_MAX_THREADS of it, and 1 in a build without the team. */
int fb_threads_get(void);
void fb_threads_set(int n);
void fb_grain_set(int kind, fb_ssize bytes);
fb_ssize fb_grain_get(int kind);
void fb_stream_threshold_set(fb_ssize bytes);
fb_ssize fb_stream_threshold_get(void);

/* A limit on the threads of calls made from the calling thread only (0: none); returns the
   one it replaces.  A task scheduler that runs fastbits calls on several threads at once sets
   it, so that their teams do not oversubscribe the cores. */
int fb_local_threads_set(int n);

/* The thread limit under the names threadpoolctl looks up in the loaded extension (ctypes). */
FB_EXPORT int fastbits_get_num_threads(void);
FB_EXPORT void fastbits_set_num_threads(int n);

/* The grain rule: the threads a call of ``work`` bytes of the given kind uses,
   min(num_threads, max(1, work / grain)), and never more than ``units`` (the pieces its loop
   can be cut into).  The engine (engine.c) asks it for every call, on one snapshot. */
static inline int fb_threads_for(const fb_config_t *config, int kind, fb_ssize work, fb_ssize units) {
    fb_ssize n;
    if (work < 2 * config->grain[kind] || units < 2) return 1; /* the same, without a division */
    n = work / config->grain[kind];
    if (n > config->num_threads) n = config->num_threads;
    if (n > units) n = units;
    return n < 1 ? 1 : (int)n;
}

#endif /* FASTBITS_CONFIG_H */
