/* The thread tuner (see tune.h for what it does and why). */
#include "tune.h"

#include <string.h>

#define PROBE_CALLS 5     /* calls of a probe: the other mode, the first untimed */
#define PROBE_SAMPLES (PROBE_CALLS - 1)
#define HISTORY 4         /* the chosen mode's latest timings kept */
#define FIRST_INTERVAL 16 /* calls between probes after a decision that changed the choice */
#define LAST_INTERVAL 1024 /* ... and at most */
#define FAR_BEHIND 1.25   /* a mode this much slower is probed a quarter as often, not half;
                             a team this much faster is joined on one probe */
#define DRIFT 1.5         /* the chosen mode this much slower than when chosen: probe now */
#define SAMPLE_EVERY 4    /* between probes, one call in this many is timed */

static int fb_tune_on = 1;

#if FB_THREADS
#include <pthread.h>
#include <sched.h>
#include <time.h>

int fb_tune_get(void) { return __atomic_load_n(&fb_tune_on, __ATOMIC_RELAXED); }

typedef struct {
    int lock;               /* 1 while a thread updates the class (atomic) */
    uint64_t key;           /* the class's calls (make_key); 0: a free place (atomic: read unlocked) */
    uint64_t used;          /* the tuner's call count at its last call (atomic: read unlocked) */
    int team;               /* the choice: 1 team, 0 alone (atomic: read unlocked) */
    int probe;              /* the next call's place in a probe, PROBE_CALLS when it is over, -1 none */
    unsigned epoch;         /* changes with each probe and choice: a timing from before is dropped */
    int skip;               /* the next call in the chosen mode follows a probe: not timed */
    int interval;           /* calls between the last probe and the next */
    fb_ssize left;          /* calls before the next probe */
    int leaning;            /* the last probe, of the team, found it faster: the next may move to it */
    int taken;              /* timings of the chosen mode in ``history`` (at most HISTORY), */
    int next;               /* and where the next goes */
    double history[HISTORY]; /* the chosen mode's latest timings, nanoseconds per byte of work */
    double ref;             /* their median when the choice was last made, or 0 */
    int probed;             /* timings in this probe */
    double probe_rate[PROBE_SAMPLES];
    fb_ssize calls[2], probes, switches;
} fb_class_t;

static fb_class_t classes[FB_TUNE_CLASSES];
static uint64_t tuned_calls; /* calls that found their class (atomic) */

static int try_lock(fb_class_t *c) { return !__atomic_exchange_n(&c->lock, 1, __ATOMIC_ACQUIRE); }
static void unlock(fb_class_t *c) { __atomic_store_n(&c->lock, 0, __ATOMIC_RELEASE); }
static void lock(fb_class_t *c) {
    while (!try_lock(c)) sched_yield();
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* A class's key: never 0.  signature: 32 bits; helpers: 8 (at most FB_MAX_THREADS - 1 = 255);
   size: 4; kind: 2. */
static uint64_t make_key(uint32_t signature, int helpers, int size, int kind) {
    return (uint64_t)1 << 63 | (uint64_t)signature << 20 | (uint64_t)helpers << 6 | (uint64_t)size << 2 | (uint64_t)kind;
}

/* The class of ``key``: its place in its set, or the place it is to take (the free one, else the
   one used least lately). */
static fb_class_t *find(uint64_t key) {
    uint64_t h = key * 0x9E3779B97F4A7C15ULL; /* Fibonacci hashing: the high bits pick the set */
    fb_class_t *set = &classes[(h >> 40) % (FB_TUNE_CLASSES / FB_TUNE_WAYS) * FB_TUNE_WAYS], *oldest = set;
    int w;
    for (w = 0; w < FB_TUNE_WAYS; w++) {
        if (__atomic_load_n(&set[w].key, __ATOMIC_RELAXED) == key) return &set[w];
        if (__atomic_load_n(&set[w].used, __ATOMIC_RELAXED) < __atomic_load_n(&oldest->used, __ATOMIC_RELAXED)) oldest = &set[w];
    }
    return oldest;
}

/* A class taking its place for ``key`` (called locked): five calls on the team, the first
   untimed, then a probe of its caller alone. */
static void start_class(fb_class_t *c, uint64_t key) {
    __atomic_store_n(&c->key, key, __ATOMIC_RELAXED);
    __atomic_store_n(&c->team, 1, __ATOMIC_RELAXED);
    c->probe = -1;
    c->epoch++;
    c->skip = 1;
    c->interval = FIRST_INTERVAL;
    c->left = 0;
    c->leaning = 0;
    c->taken = c->next = 0;
    c->ref = 0;
    c->calls[0] = c->calls[1] = c->probes = c->switches = 0;
}

void fb_tune_set(int on) { __atomic_store_n(&fb_tune_on, on ? 1 : 0, __ATOMIC_RELAXED); }

/* The median of n (1 to HISTORY) values. */
static double median(const double *values, int n) {
    double v[HISTORY], x;
    int i, j;
    for (i = 0; i < n; i++) { /* insertion sort */
        x = values[i];
        for (j = i; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1];
        v[j] = x;
    }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The probe is over (called locked): compare the median of its timings with the median of
   the chosen mode's latest.  Medians, of four: a median of two was one delayed call away from
   the wrong choice (a transposed OR of 4 MiB, 2.2 ms on the team and 3.7 ms alone, went to one
   thread after such a probe), and the fastest of two favoured the team, whose calls vary of
   themselves (a helper that joins late): with it an OR of 64K int32 with a scalar spent half a
   full run on the team, at 15-17 µs a call against 12 µs alone.  The team is chosen when its
   median is at least FB_TUNE_JOIN below its caller's alone, and kept while it is at least
   FB_TUNE_STAY below; a class on its caller alone moves to the team at once when its caller
   alone is FAR_BEHIND, otherwise on the second of two probes in a row that find the team
   faster (the first brings the second FIRST_INTERVAL calls later): where the team's calls are
   fast in some milliseconds and slow in others, one probe of four calls could land on fast
   ones, and an OR of 1M int8 changed mode 12 times in 620 calls of a full benchmark run, at
   61.6 µs a call against 58.3 µs on one thread; but a second probe for every gain kept a 1M
   int32 AND out=, 1.5 times faster on the team, alone for a third of its row after the
   machine had slowed its team for a moment.  Leaving the team takes one probe: the caller
   alone is the safe side.  A probe
   that changes the choice makes its timings the new mode's history, and the next probe comes
   FIRST_INTERVAL calls later, as it does after a class's first probe; one that keeps it comes
   back twice as late as the last, four times when the probed mode was FAR_BEHIND, up to
   LAST_INTERVAL.  The winner's median is kept (ref) to see it turn slower.  A probe that lost
   its timings to other threads' calls keeps the choice and comes again as soon. */
static void decide(fb_class_t *c) {
    double probed, chosen, team_rate, alone_rate;
    int team, k;
    c->probe = -1;
    c->epoch++;
    if (c->probed == 0 || c->taken == 0) {
        c->skip = 1;
        c->left = c->interval;
        return;
    }
    probed = median(c->probe_rate, c->probed);
    chosen = median(c->history, c->taken);
    team_rate = c->team ? chosen : probed;
    alone_rate = c->team ? probed : chosen;
    team = team_rate < (1.0 - (c->team ? FB_TUNE_STAY : FB_TUNE_JOIN)) * alone_rate;
    if (team && !c->team && !c->leaning && FAR_BEHIND * team_rate > alone_rate) {
        c->leaning = 1; /* a gain under FAR_BEHIND, once: probe again soon */
        team = 0;
    } else {
        c->leaning = 0;
    }
    c->probes++;
    if (team != c->team) {
        c->switches++;
        __atomic_store_n(&c->team, team, __ATOMIC_RELAXED);
        for (k = 0; k < c->probed; k++) c->history[k] = c->probe_rate[k];
        c->taken = c->probed;
        c->next = c->probed % HISTORY;
        c->skip = 0; /* the calls go on in the mode the probe ran */
        c->interval = FIRST_INTERVAL;
        c->ref = probed;
    } else {
        c->skip = 1;
        c->ref = chosen;
        c->interval = c->probes == 1 || c->leaning ? FIRST_INTERVAL
                                                    : c->interval * (probed > FAR_BEHIND * chosen ? 4 : 2);
        if (c->interval > LAST_INTERVAL) c->interval = LAST_INTERVAL;
    }
    c->left = c->interval;
}

/* The mode of the class's next call (called locked); *timed: whether to time it. */
static int next_mode(fb_class_t *c, int *timed) {
    if (c->probe < 0 && c->left <= 0 && c->taken >= HISTORY) { /* a probe begins */
        c->probe = 0;
        c->probed = 0;
        c->epoch++;
    }
    if (c->probe >= 0) {
        *timed = c->probe > 0;
        c->probe++;
        return !c->team;
    }
    c->left--;
    /* the four calls before a probe, and every SAMPLE_EVERY-th one (to see the machine change) */
    *timed = !c->skip && (c->left < HISTORY || c->left % SAMPLE_EVERY == 0);
    c->skip = 0;
    return c->team;
}

/* A timing of a call in ``mode`` (called locked). */
static void record(fb_class_t *c, int mode, double rate) {
    if (mode != c->team) {
        if (c->probed < PROBE_SAMPLES) c->probe_rate[c->probed++] = rate;
        return;
    }
    c->history[c->next] = rate;
    c->next = (c->next + 1) % HISTORY;
    if (c->taken < HISTORY) c->taken++;
    if (c->ref > 0 && c->taken == HISTORY && c->probe < 0 && c->left > HISTORY &&
        median(c->history, HISTORY) > DRIFT * c->ref)
        c->left = HISTORY; /* the machine changed under the choice: time the next four, then probe */
}

int fb_tune_begin(fb_tune_call_t *call, int helpers, uint32_t signature, fb_ssize work, int kind) {
    fb_class_t *c;
    int size = 0;
    call->slot = NULL;
    call->timed = 0;
    call->team = 1;
    if (helpers <= 0 || helpers > 255 || work >= FB_TUNE_MAX_WORK || work <= 0 || !fb_tune_get() || kind < 0 ||
        kind >= FB_TUNE_KINDS)
        return 1;
    while (size < FB_TUNE_SIZES - 1 && work >= (fb_ssize)1 << (FB_TUNE_MIN_LOG + 1 + size)) size++;
    call->key = make_key(signature, helpers, size, kind);
    c = find(call->key);
    if (!try_lock(c)) { /* another thread is at it: its choice if it is this class, untimed */
        call->team = __atomic_load_n(&c->key, __ATOMIC_RELAXED) != call->key || __atomic_load_n(&c->team, __ATOMIC_RELAXED);
        return call->team;
    }
    if (c->key != call->key) start_class(c, call->key);
    __atomic_store_n(&c->used, __atomic_add_fetch(&tuned_calls, 1, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    if (c->probe >= PROBE_CALLS) decide(c);
    call->team = next_mode(c, &call->timed);
    c->calls[call->team]++;
    call->epoch = c->epoch;
    unlock(c);
    call->slot = c;
    call->work = work;
    call->start = call->timed ? now_ns() : 0;
    return call->team;
}

void fb_tune_end(fb_tune_call_t *call) {
    fb_class_t *c = (fb_class_t *)call->slot;
    double rate;
    if (c == NULL || !call->timed) return;
    rate = (double)(now_ns() - call->start) / (double)call->work;
    if (!try_lock(c)) return; /* a timing lost: the decision rests on the others */
    if (c->key == call->key && c->epoch == call->epoch) record(c, call->team, rate);
    unlock(c);
}

int fb_tune_report(fb_tune_class_t *out) {
    int k, n = 0, size;
    fb_class_t *c;
    for (k = 0; k < FB_TUNE_CLASSES; k++) {
        c = &classes[k];
        lock(c);
        if (c->key != 0 && c->calls[0] + c->calls[1] > 0) {
            size = (int)(c->key >> 2 & 15);
            out[n].signature = (uint32_t)(c->key >> 20);
            out[n].helpers = (int)(c->key >> 6 & 255);
            out[n].kind = (int)(c->key & 3);
            out[n].work_from = size == 0 ? 0 : (fb_ssize)1 << (FB_TUNE_MIN_LOG + size);
            out[n].work_to = size == FB_TUNE_SIZES - 1 ? FB_TUNE_MAX_WORK : (fb_ssize)1 << (FB_TUNE_MIN_LOG + 1 + size);
            out[n].team = c->team;
            out[n].calls_alone = c->calls[0];
            out[n].calls_team = c->calls[1];
            out[n].probes = c->probes;
            out[n].switches = c->switches;
            n++;
        }
        unlock(c);
    }
    return n;
}

/* In a child made by fork() a class may be locked by a thread that does not exist there. */
static void after_fork_child(void) {
    memset(classes, 0, sizeof classes);
    tuned_calls = 0;
}

int fb_tune_init(void) { return pthread_atfork(NULL, NULL, after_fork_child); }

#else /* no threads: every call runs on its caller, and nothing is tuned */

int fb_tune_get(void) { return fb_tune_on; }

void fb_tune_set(int on) { fb_tune_on = on ? 1 : 0; }

int fb_tune_begin(fb_tune_call_t *call, int helpers, uint32_t signature, fb_ssize work, int kind) {
    (void)helpers;
    (void)signature;
    (void)work;
    (void)kind;
    call->slot = NULL;
    call->timed = 0;
    return call->team = 1;
}

void fb_tune_end(fb_tune_call_t *call) { (void)call; }

int fb_tune_report(fb_tune_class_t *out) {
    (void)out;
    return 0;
}

int fb_tune_init(void) { return 0; }

#endif
