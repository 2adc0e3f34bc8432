/* The runtime's settings and the grain rule (see config.h). */
#include "config.h"

/* Relaxed atomics (FB_LOAD, FB_STORE): each setting is independent, and a call needs only
   untorn values.  The runtime sets each from the settings' table (fastbits/_config.py) at
   import, before any call reads it. */
struct fb_settings fb_settings = {1, {0}, 0, 0};
FB_THREAD_LOCAL int fb_local_limit;

int fb_threads_get(void) { return FB_THREADS ? FB_LOAD(&fb_settings.thread_limit) : 1; }
void fb_threads_set(int n) { FB_STORE(&fb_settings.thread_limit, n < 1 ? 1 : n); }
int fastbits_get_num_threads(void) { return fb_threads_get(); }
void fastbits_set_num_threads(int n) { fb_threads_set(n); }

void fb_grain_set(int kind, fb_ssize bytes) {
    if (kind >= 0 && kind < FB_GRAIN_KINDS) FB_STORE(&fb_settings.grains[kind], bytes < 1 ? 1 : bytes);
}
fb_ssize fb_grain_get(int kind) { return kind >= 0 && kind < FB_GRAIN_KINDS ? FB_LOAD(&fb_settings.grains[kind]) : 1; }

void fb_stream_threshold_set(fb_ssize bytes) { FB_STORE(&fb_settings.stream_bytes, bytes < 0 ? 0 : bytes); }
fb_ssize fb_stream_threshold_get(void) { return FB_LOAD(&fb_settings.stream_bytes); }

int fb_local_threads_set(int n) {
    const int old = fb_local_limit;
    fb_local_limit = n < 0 ? 0 : n;
    if (n > 0) FB_STORE(&fb_settings.local_limits, 1);
    return old;
}
