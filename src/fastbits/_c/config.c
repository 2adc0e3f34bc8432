/* The runtime's settings and a thread's own values (see config.h). */
#include "config.h"

#include <limits.h>

/* Relaxed atomics (FB_LOAD, FB_STORE): each setting is independent, and a call needs only
   untorn values.  The runtime sets each from the settings' table (fastbits/_config.py) at
   import, before any call reads it. */
fb_ssize fb_settings[FB_SETTINGS] = {1, 1, 1, 1};
FB_THREAD_LOCAL fb_local_t fb_local;
long fb_locals_active;

static fb_ssize clamped(int k, fb_ssize value) {
    const fb_ssize least = k < FB_GRAIN_KINDS || k == FB_NUM_THREADS || k == FB_TASK_THREADS;
    if (value < least) return least;
    if (k == FB_NUM_THREADS && value > INT_MAX) return INT_MAX;
    return value;
}

void fb_setting_set(int k, fb_ssize value) {
    if (k < 0 || k >= FB_SETTINGS) return;
    if (fb_local.mask >> k & 1u) fb_local.value[k] = clamped(k, value);
    else FB_STORE(&fb_settings[k], clamped(k, value));
}

/* Whether this thread has values of its own; count it in fb_locals_active when that changes.
   A thread that ends with values of its own (or a fork child, of its parent's other threads)
   leaves the count above 0: then calls read their thread's storage, and find it empty. */
static int has_own(void) { return fb_local.mask != 0 || fb_local.limit > 0; }
static void recount(int had) {
    if (has_own() != had) FB_ADD(&fb_locals_active, had ? -1 : 1);
}

void fb_local_clear(void) {
    const int had = has_own();
    fb_local.mask = 0;
    recount(had);
}

void fb_local_set(int k, fb_ssize value) {
    int had;
    if (k < 0 || k >= FB_SETTINGS) return;
    had = has_own();
    fb_local.value[k] = clamped(k, value);
    fb_local.mask |= 1u << k;
    recount(had);
}

int fb_local_threads_set(int n) {
    const int old = fb_local.limit, had = has_own();
    fb_local.limit = n < 0 ? 0 : n;
    recount(had);
    return old;
}

int fastbits_get_num_threads(void) { return FB_THREADS ? (int)fb_setting(FB_NUM_THREADS) : 1; }
void fastbits_set_num_threads(int n) { fb_setting_set(FB_NUM_THREADS, n); }
