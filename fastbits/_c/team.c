/* The thread team and its thread limit (see team.h for the contract). */
#include "team.h"

#if defined(__GNUC__) || defined(__clang__)
#define FB_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define FB_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
#define FB_LOAD(p) (*(volatile int *)(p))
#define FB_STORE(p, v) (*(volatile int *)(p) = (v))
#endif

static int fb_thread_limit = 1;

/* A build without the team always reports 1: it accepts a limit but runs on the caller. */
int fb_threads_get(void) { return FB_THREADS ? FB_LOAD(&fb_thread_limit) : 1; }

/* The limit is kept as given; a call uses at most FB_MAX_THREADS of it. */
void fb_threads_set(int n) { FB_STORE(&fb_thread_limit, n < 1 ? 1 : n); }

int fastbits_get_num_threads(void) { return fb_threads_get(); }
void fastbits_set_num_threads(int n) { fb_threads_set(n); }

#if FB_THREADS
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>

static long fb_spin_ns = FB_TEAM_SPIN_NS;
static int fb_spin_helpers = FB_MAX_THREADS;

void fb_team_set_spin(long nanoseconds, int helpers) {
    __atomic_store_n(&fb_spin_ns, nanoseconds < 0 ? 0 : nanoseconds, __ATOMIC_RELAXED);
    __atomic_store_n(&fb_spin_helpers, helpers < 0 ? 0 : helpers, __ATOMIC_RELAXED);
}

long fb_team_get_spin(void) { return __atomic_load_n(&fb_spin_ns, __ATOMIC_RELAXED); }

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

int fb_team_available(void) { return 1; }

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t wake;    /* helpers wait here for a call */
    pthread_cond_t idle;    /* the caller waits here for joined helpers to leave */
    int started;            /* helper threads running */
    int busy;               /* a call is using the team */
    int open;               /* the call still takes helpers */
    int allowed;            /* helpers 1..allowed may join it */
    int joined;             /* helpers inside it */
    int sleeping;           /* helpers waiting on ``wake`` (not spinning) */
    unsigned long call;     /* call number (atomic): a change wakes the helpers */
    fb_piece_fn fn;
    void *ctx;
    fb_ssize npieces;
    fb_ssize next;          /* next unclaimed piece (atomic) */
    fb_ssize helper_pieces; /* statistics: pieces run by helpers so far, */
    fb_ssize watched;       /* calls a helper they allowed saw while watching, */
    fb_ssize woken;         /* and calls it was woken for */
} fb_team_t;

static fb_team_t team = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER};

/* Claim and run pieces until none is left; return how many this thread ran. */
static fb_ssize run_pieces(fb_piece_fn fn, void *ctx, fb_ssize npieces, int slot) {
    fb_ssize piece, done = 0;
    for (;;) {
        piece = __atomic_fetch_add(&team.next, 1, __ATOMIC_RELAXED);
        if (piece >= npieces) return done;
        fn(ctx, piece, slot);
        done++;
    }
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Watch for the call after ``seen`` for the spin time, without the lock: a helper that has just
   run a piece answers the next call at once, where one asleep on the condition variable is
   woken by the kernel tens of microseconds later.  Spins for FB_TEAM_PAUSE_NS, then yields the
   CPU between looks.  The time is read again at each look, so that a new setting applies at
   once.  Returns when a call came or the time is up. */
static void spin_for_call(unsigned long seen, int slot) {
    long long start, elapsed;
    unsigned i = 0;
    if (slot > __atomic_load_n(&fb_spin_helpers, __ATOMIC_RELAXED) || fb_team_get_spin() <= 0) return;
    start = now_ns();
    while (__atomic_load_n(&team.call, __ATOMIC_ACQUIRE) == seen) {
        CPU_RELAX();
        if ((++i & 255) == 0) {
            elapsed = now_ns() - start;
            if (elapsed > fb_team_get_spin()) return;
            if (elapsed > FB_TEAM_PAUSE_NS) sched_yield();
        }
    }
}

static void *helper_main(void *arg) {
    const int slot = (int)(intptr_t)arg;
    unsigned long seen;
    fb_piece_fn fn;
    void *ctx;
    fb_ssize npieces, done;
    int slept;
    pthread_mutex_lock(&team.mu);
    seen = team.call;
    for (;;) {
        if (team.call == seen) {
            pthread_mutex_unlock(&team.mu);
            spin_for_call(seen, slot);
            pthread_mutex_lock(&team.mu);
            slept = team.call == seen;
            team.sleeping++;
            while (team.call == seen) pthread_cond_wait(&team.wake, &team.mu);
            team.sleeping--;
            if (slot <= team.allowed) { /* a helper this call could use */
                if (slept)
                    team.woken++;
                else
                    team.watched++;
            }
        }
        seen = team.call;
        if (!team.open || slot > team.allowed) continue;
        team.joined++;
        fn = team.fn;
        ctx = team.ctx;
        npieces = team.npieces;
        pthread_mutex_unlock(&team.mu);
        done = run_pieces(fn, ctx, npieces, slot);
        pthread_mutex_lock(&team.mu);
        team.helper_pieces += done;
        if (--team.joined == 0 && !team.open) pthread_cond_signal(&team.idle);
    }
    return NULL;
}

/* Start helpers up to ``want`` (called with mu held); return how many run. */
static int grow(int want) {
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t thread;
    if (want > FB_MAX_THREADS - 1) want = FB_MAX_THREADS - 1;
    if (team.started >= want) return team.started;
    if (pthread_attr_init(&attr) != 0) return team.started;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1 << 20);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* helpers take no signals */
    while (team.started < want) {
        if (pthread_create(&thread, &attr, helper_main, (void *)(intptr_t)(team.started + 1)) != 0) break;
        team.started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return team.started;
}

void fb_team_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers) {
    fb_ssize piece;
    if (helpers > 0) {
        pthread_mutex_lock(&team.mu);
        if (!team.busy && grow(helpers) > 0) {
            team.busy = 1;
            team.open = 1;
            team.allowed = helpers;
            team.joined = 0;
            team.fn = fn;
            team.ctx = ctx;
            team.npieces = npieces;
            __atomic_store_n(&team.next, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&team.call, team.call + 1, __ATOMIC_RELEASE);
            if (team.sleeping > 0) pthread_cond_broadcast(&team.wake); /* spinning helpers see it */
            pthread_mutex_unlock(&team.mu);
            run_pieces(fn, ctx, npieces, 0);
            pthread_mutex_lock(&team.mu);
            team.open = 0;
            while (team.joined > 0) pthread_cond_wait(&team.idle, &team.mu);
            team.busy = 0;
            team.fn = NULL;
            team.ctx = NULL;
            pthread_mutex_unlock(&team.mu);
            return;
        }
        pthread_mutex_unlock(&team.mu);
    }
    for (piece = 0; piece < npieces; piece++) fn(ctx, piece, 0);
}

/* In a child made by fork() no helper exists and the mutex may be held by a thread that does
   not exist there: start afresh. */
static void after_fork_child(void) {
    pthread_mutex_init(&team.mu, NULL);
    pthread_cond_init(&team.wake, NULL);
    pthread_cond_init(&team.idle, NULL);
    team.started = 0;
    team.busy = 0;
    team.open = 0;
    team.joined = 0;
    team.sleeping = 0;
    team.fn = NULL;
    team.ctx = NULL;
}

int fb_team_init(void) { return pthread_atfork(NULL, NULL, after_fork_child); }

void fb_team_stats(fb_team_stats_t *stats) {
    pthread_mutex_lock(&team.mu);
    stats->started = team.started;
    stats->helper_pieces = team.helper_pieces;
    stats->calls_watched = team.watched;
    stats->calls_woken = team.woken;
    pthread_mutex_unlock(&team.mu);
}

#else /* no threads: every call runs on its caller */

int fb_team_available(void) { return 0; }

static long fb_spin_ns = FB_TEAM_SPIN_NS;

/* Kept and reported, though no helper exists to spin. */
void fb_team_set_spin(long nanoseconds, int helpers) {
    fb_spin_ns = nanoseconds < 0 ? 0 : nanoseconds;
    (void)helpers;
}

long fb_team_get_spin(void) { return fb_spin_ns; }

void fb_team_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers) {
    fb_ssize piece;
    (void)helpers;
    for (piece = 0; piece < npieces; piece++) fn(ctx, piece, 0);
}

int fb_team_init(void) { return 0; }

void fb_team_stats(fb_team_stats_t *stats) {
    stats->started = 0;
    stats->helper_pieces = 0;
    stats->calls_watched = 0;
    stats->calls_woken = 0;
}

#endif
