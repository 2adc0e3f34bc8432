/* The runtime's settings and the grain rule (see config.h). */
#include "config.h"

/* Relaxed atomics (FB_LOAD, FB_STORE): each setting is independent, and a call needs only
   untorn values.  The runtime sets each from the settings' table (fastbits/_config.py) at
   import, before any call reads it. */
static int thread_limit = 1;
static fb_ssize grains[FB_GRAIN_KINDS];
static fb_ssize stream_bytes;
static FB_THREAD_LOCAL int local_limit;

int fb_threads_get(void) { return FB_THREADS ? FB_LOAD(&thread_limit) : 1; }
void fb_threads_set(int n) { FB_STORE(&thread_limit, n < 1 ? 1 : n); }
int fastbits_get_num_threads(void) { return fb_threads_get(); }
void fastbits_set_num_threads(int n) { fb_threads_set(n); }

void fb_grain_set(int kind, fb_ssize bytes) {
    if (kind >= 0 && kind < FB_GRAIN_KINDS) FB_STORE(&grains[kind], bytes < 1 ? 1 : bytes);
}
fb_ssize fb_grain_get(int kind) { return kind >= 0 && kind < FB_GRAIN_KINDS ? FB_LOAD(&grains[kind]) : 1; }

void fb_stream_threshold_set(fb_ssize bytes) { FB_STORE(&stream_bytes, bytes < 0 ? 0 : bytes); }
fb_ssize fb_stream_threshold_get(void) { return FB_LOAD(&stream_bytes); }

int fb_local_threads_set(int n) {
    const int old = local_limit;
    local_limit = n < 0 ? 0 : n;
    return old;
}

void fb_config_get(fb_config_t *config) {
    int k, n = fb_threads_get();
    if (local_limit > 0 && local_limit < n) n = local_limit;
    config->num_threads = n < FB_MAX_THREADS ? n : FB_MAX_THREADS;
    for (k = 0; k < FB_GRAIN_KINDS; k++) config->grain[k] = FB_LOAD(&grains[k]);
    config->stream_threshold = FB_LOAD(&stream_bytes);
}
