/* The thread tuner (see tune.h for what it does and why). */
#include "tune.h"

#include <string.h>

#define DUEL_BLOCK 3                 /* calls per block of a duel, the first untimed */
#define DUEL_CALLS (4 * DUEL_BLOCK)  /* four blocks: the mode not chosen, the chosen, again both */
#define DUEL_SAMPLES (2 * (DUEL_BLOCK - 1)) /* timed calls per mode */
#define FIRST_INTERVAL 16            /* calls between duels after one that changed the choice */
#define LAST_INTERVAL 1024           /* ... and at most */

static int fb_tune_on = 1;

#if FB_THREADS
#include <pthread.h>
#include <sched.h>
#include <time.h>

int fb_tune_get(void) { return __atomic_load_n(&fb_tune_on, __ATOMIC_RELAXED); }

typedef struct {
    int lock;               /* 1 while a thread updates the class (atomic) */
    int helpers;            /* the team size the measurements are for; 0: none yet */
    int team;               /* the choice: 1 team, 0 alone (atomic: read without the lock) */
    int step;               /* the next call's place in a duel, or -1 between duels */
    unsigned duel;          /* the duel's number: a timing that comes back after it ended is dropped */
    int interval;           /* calls between the last duel and the next */
    fb_ssize left;          /* calls before the next duel */
    int taken[2];           /* timings taken in this duel, alone [0] and on the team [1] */
    double rate[2][DUEL_SAMPLES]; /* their nanoseconds per byte of work */
    fb_ssize calls[2], duels, switches;
} fb_class_t;

static fb_class_t classes[FB_TUNE_CLASSES];

static int try_lock(fb_class_t *c) { return !__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE); }
static void unlock(fb_class_t *c) { __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE); }

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A new class, or one whose team changed size (called locked): on the team, a duel first, after
   which the choice runs FIRST_INTERVAL calls whichever it is. */
static void start_class(fb_class_t *c, int helpers) {
    c->helpers = helpers;
    __atomic_store_n(&c->team, 1, __ATOMIC_RELAXED);
    c->interval = FIRST_INTERVAL / 2;
    c->left = 0;
    c->step = -1;
}

void fb_tune_set(int on) {
    int k;
    if (on && !fb_tune_get()) /* forget: what was measured may not hold any more */
        for (k = 0; k < FB_TUNE_CLASSES; k++) {
            while (!try_lock(&classes[k])) sched_yield();
            classes[k].helpers = 0;
            unlock(&classes[k]);
        }
    __atomic_store_n(&fb_tune_on, on ? 1 : 0, __ATOMIC_RELAXED);
}

static double median(double *v, int n) {
    int i, j;
    double x;
    for (i = 1; i < n; i++) { /* insertion sort: n is 4 */
        x = v[i];
        for (j = i; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The duel is over (called locked): choose, and run the choice for the next interval's calls.
   A duel that lost its timings to other threads' calls keeps the choice and comes again soon. */
static void decide(fb_class_t *c) {
    int team = c->team;
    if (c->taken[0] > 0 && c->taken[1] > 0) {
        team = median(c->rate[1], c->taken[1]) < (1.0 - FB_TUNE_MARGIN) * median(c->rate[0], c->taken[0]);
        c->duels++;
        if (team != c->team) c->switches++;
        c->interval = team != c->team ? FIRST_INTERVAL : c->interval >= LAST_INTERVAL / 2 ? LAST_INTERVAL : 2 * c->interval;
    }
    __atomic_store_n(&c->team, team, __ATOMIC_RELAXED);
    c->left = c->interval;
    c->step = -1;
}

/* The mode of the class's next call (called locked); *timed: whether to time it. */
static int next_mode(fb_class_t *c, int *timed) {
    int mode;
    *timed = 0;
    if (c->step < 0 && c->left-- > 0) return c->team;
    if (c->step < 0) { /* a duel begins */
        c->step = 0;
        c->duel++;
        c->taken[0] = c->taken[1] = 0;
    }
    mode = (c->step / DUEL_BLOCK) % 2 ? c->team : !c->team;
    *timed = c->step % DUEL_BLOCK != 0;
    c->step++; /* at DUEL_CALLS, the next call decides: the last timing is in by then */
    return mode;
}

void fb_tuned_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers, fb_ssize work, int quick, int kind) {
    fb_class_t *c;
    int size = 0, mode, timed;
    unsigned duel;
    long long start;
    double rate;
    if (helpers <= 0 || work >= FB_TUNE_MAX_WORK || work <= 0 || !fb_tune_get() || kind < 0 || kind >= FB_TUNE_KINDS) {
        fb_team_run(fn, ctx, npieces, helpers, quick);
        return;
    }
    while (size < FB_TUNE_SIZES - 1 && work >= (fb_ssize)1 << (FB_TUNE_MIN_LOG + 1 + size)) size++;
    c = &classes[size * FB_TUNE_KINDS + kind];
    if (!try_lock(c)) { /* another thread is at it: its current choice, untimed */
        fb_team_run(fn, ctx, npieces, __atomic_load_n(&c->team, __ATOMIC_RELAXED) ? helpers : 0, quick);
        return;
    }
    if (c->helpers != helpers) start_class(c, helpers);
    if (c->step >= DUEL_CALLS) decide(c);
    mode = next_mode(c, &timed);
    c->calls[mode]++;
    duel = c->duel;
    unlock(c);
    start = timed ? now_ns() : 0;
    fb_team_run(fn, ctx, npieces, mode ? helpers : 0, quick);
    if (!timed) return;
    rate = (double)(now_ns() - start) / (double)work;
    if (!try_lock(c)) return; /* a timing lost: the duel decides on the others */
    if (c->duel == duel && c->helpers == helpers && c->taken[mode] < DUEL_SAMPLES) c->rate[mode][c->taken[mode]++] = rate;
    unlock(c);
}

int fb_tune_report(fb_tune_class_t *out) {
    int k, n = 0, size;
    fb_class_t *c;
    for (k = 0; k < FB_TUNE_CLASSES; k++) {
        c = &classes[k];
        while (!try_lock(c)) sched_yield();
        if (c->calls[0] + c->calls[1] > 0) {
            size = k / FB_TUNE_KINDS;
            out[n].work_from = size == 0 ? 0 : (fb_ssize)1 << (FB_TUNE_MIN_LOG + size);
            out[n].work_to = size == FB_TUNE_SIZES - 1 ? FB_TUNE_MAX_WORK : (fb_ssize)1 << (FB_TUNE_MIN_LOG + 1 + size);
            out[n].kind = k % FB_TUNE_KINDS;
            out[n].helpers = c->helpers;
            out[n].team = c->team;
            out[n].calls_alone = c->calls[0];
            out[n].calls_team = c->calls[1];
            out[n].duels = c->duels;
            out[n].switches = c->switches;
            n++;
        }
        unlock(c);
    }
    return n;
}

/* In a child made by fork() a class may be locked by a thread that does not exist there. */
static void after_fork_child(void) { memset(classes, 0, sizeof classes); }

int fb_tune_init(void) { return pthread_atfork(NULL, NULL, after_fork_child); }

#else /* no threads: every call runs on its caller, and nothing is tuned */

int fb_tune_get(void) { return fb_tune_on; }

void fb_tune_set(int on) { fb_tune_on = on ? 1 : 0; }

void fb_tuned_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers, fb_ssize work, int quick, int kind) {
    (void)work;
    (void)kind;
    fb_team_run(fn, ctx, npieces, helpers, quick);
}

int fb_tune_report(fb_tune_class_t *out) {
    (void)out;
    return 0;
}

int fb_tune_init(void) { return 0; }

#endif
