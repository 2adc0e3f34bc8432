/* The thread team (see team.h for the contract). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getcpu, CPU_SET */
#endif
#include "team.h"

#include <string.h>

static FB_THREAD_LOCAL int last_shares;

int fb_team_last_shares(void) { return last_shares; }

void fb_team_note_inline(void) { last_shares = 1; }

#if FB_THREADS
#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include "clock.h"

#if defined(__x86_64__) || defined(__i386__)
#define CPU_RELAX() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define CPU_RELAX() __asm__ __volatile__("yield")
#else
#define CPU_RELAX() ((void)0)
#endif

int fb_team_available(void) { return 1; }

/* A helper's own wake-up signal, so that a call wakes only the helpers it uses. */
typedef struct {
    pthread_cond_t wake;
    int sleeping;        /* waiting on ``wake`` (under mu) */
    unsigned long first; /* the call number when it was started */
} fb_helper_t;

/* Whether a share was taken, by its helper or by the caller (atomic), a cache line each. */
typedef struct {
    int claimed;
    char pad[64 - sizeof(int)];
} fb_claim_t;

static struct {
    pthread_mutex_t mu;
    pthread_cond_t done;    /* the caller waits here for the shares in progress */
    int started;            /* helper threads running */
    int busy;               /* a call is using the team */
    int caller_waiting;     /* the caller waits on ``done`` */
    unsigned long call;     /* call number (atomic, changed under mu) */
    int nshares;            /* the current or last call's shares (atomic, changed under mu) */
    int pending;            /* the current call's shares not done yet (atomic) */
    fb_ssize spin;          /* the spin time (ns) of the call last posted (atomic, changed under mu) */
    fb_share_fn fn;
    void *ctx;
    fb_ssize parallel_calls;
    fb_ssize helper_shares;
} team = {.mu = PTHREAD_MUTEX_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static fb_helper_t helpers[FB_MAX_THREADS];
static fb_claim_t claims[FB_MAX_THREADS];

static int claim(int share) { return !__atomic_exchange_n(&claims[share].claimed, 1, __ATOMIC_ACQ_REL); }

/* The CPU of the last call's caller (Linux; -1 elsewhere or unknown). */
static int caller_cpu = -1;

static int current_cpu(void) {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

/* A helper on the CPU of the caller moves off it: its affinity mask for a moment without that
   CPU (the kernel moves it at once), then the mask it had again, so nothing stays pinned.
   Linux leaves a thread that ran lately where it is (it counts as cache-hot), so a helper that
   once landed on the caller's CPU, and watches there, would take turns with the caller while
   another CPU idles. */
static void step_aside(void) {
#if defined(__linux__)
    cpu_set_t allowed, others;
    const int cpu = current_cpu();
    if (cpu < 0 || cpu >= CPU_SETSIZE || cpu != __atomic_load_n(&caller_cpu, __ATOMIC_RELAXED)) return;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return;
    others = allowed;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) > 0 && sched_setaffinity(0, sizeof others, &others) == 0)
        sched_setaffinity(0, sizeof allowed, &allowed);
#endif
}

/* Watch for the call after ``seen`` for the last call's spin time, without the lock, if that call
   used this helper; it yields the CPU between looks, so that a thread that wants the core gets it. */
static void watch(unsigned long seen, int slot) {
    const fb_ssize spin = __atomic_load_n(&team.spin, __ATOMIC_RELAXED);
    long long start;
    unsigned i = 0;
    if (spin <= 0 || slot >= __atomic_load_n(&team.nshares, __ATOMIC_RELAXED)) return;
    step_aside();
    start = fb_now_ns();
    while (__atomic_load_n(&team.call, __ATOMIC_ACQUIRE) == seen) {
        CPU_RELAX();
        if ((++i & 255) == 0) {
            if (fb_now_ns() - start > spin) return;
            step_aside();
            sched_yield();
        }
    }
}

static void *helper_main(void *arg) {
    const int slot = (int)(intptr_t)arg;
    unsigned long seen;
    fb_share_fn fn;
    void *ctx;
    pthread_mutex_lock(&team.mu);
    seen = helpers[slot].first;
    for (;;) {
        if (team.call == seen) {
            pthread_mutex_unlock(&team.mu);
            watch(seen, slot);
            pthread_mutex_lock(&team.mu);
            while (team.call == seen) {
                helpers[slot].sleeping = 1;
                pthread_cond_wait(&helpers[slot].wake, &team.mu);
                helpers[slot].sleeping = 0;
            }
        }
        seen = team.call;
        /* Under mu, so the call cannot end and another begin between the check and the claim. */
        if (!team.busy || slot >= team.nshares || !claim(slot)) continue;
        fn = team.fn;
        ctx = team.ctx;
        pthread_mutex_unlock(&team.mu);
        step_aside();
        fn(ctx, slot, slot);
        pthread_mutex_lock(&team.mu);
        team.helper_shares++;
        if (__atomic_sub_fetch(&team.pending, 1, __ATOMIC_RELEASE) == 0 && team.caller_waiting)
            pthread_cond_signal(&team.done);
    }
    return NULL;
}

/* Start helpers up to ``want`` (called with mu held); return how many run. */
static int grow(int want) {
    pthread_attr_t attr;
    sigset_t all, old;
    pthread_t thread;
    int slot;
    if (want > FB_MAX_THREADS - 1) want = FB_MAX_THREADS - 1;
    if (team.started >= want || pthread_attr_init(&attr) != 0) return team.started;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 1 << 20);
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old); /* helpers take no signals */
    while (team.started < want) {
        slot = team.started + 1;
        if (pthread_cond_init(&helpers[slot].wake, NULL) != 0) break;
        helpers[slot].sleeping = 0;
        helpers[slot].first = team.call;
        if (pthread_create(&thread, &attr, helper_main, (void *)(intptr_t)slot) != 0) {
            pthread_cond_destroy(&helpers[slot].wake);
            break;
        }
        team.started = slot;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    return team.started;
}

void fb_team_run(fb_share_fn fn, void *ctx, int nshares, fb_ssize spin) {
    int s, mine = 0;
    unsigned i = 0;
    long long start;
    if (nshares > FB_MAX_THREADS) nshares = FB_MAX_THREADS;
    last_shares = nshares;
    if (nshares > 1) {
        pthread_mutex_lock(&team.mu);
        if (!team.busy && grow(nshares - 1) > 0) {
            team.busy = 1;
            __atomic_store_n(&caller_cpu, current_cpu(), __ATOMIC_RELAXED);
            team.fn = fn;
            team.ctx = ctx;
            team.parallel_calls++;
            __atomic_store_n(&team.spin, spin, __ATOMIC_RELAXED);
            for (s = 0; s < nshares; s++) __atomic_store_n(&claims[s].claimed, 0, __ATOMIC_RELAXED);
            __atomic_store_n(&team.pending, nshares, __ATOMIC_RELAXED);
            __atomic_store_n(&team.nshares, nshares, __ATOMIC_RELAXED);
            __atomic_store_n(&team.call, team.call + 1, __ATOMIC_RELEASE);
            for (s = 1; s < nshares && s <= team.started; s++)
                if (helpers[s].sleeping) pthread_cond_signal(&helpers[s].wake);
            pthread_mutex_unlock(&team.mu);
            /* Share 0, then every share no helper has taken yet. */
            for (s = 0; s < nshares; s++)
                if (claim(s)) {
                    fn(ctx, s, 0);
                    mine++;
                }
            /* Wait for the shares in progress: watch for the spin time, then sleep. */
            start = fb_now_ns();
            while (__atomic_load_n(&team.pending, __ATOMIC_ACQUIRE) > mine) {
                CPU_RELAX();
                if ((++i & 255) == 0 && fb_now_ns() - start > spin) break;
            }
            pthread_mutex_lock(&team.mu);
            __atomic_sub_fetch(&team.pending, mine, __ATOMIC_ACQ_REL);
            team.caller_waiting = 1;
            while (__atomic_load_n(&team.pending, __ATOMIC_ACQUIRE) > 0) pthread_cond_wait(&team.done, &team.mu);
            team.caller_waiting = 0;
            team.busy = 0;
            team.fn = NULL;
            team.ctx = NULL;
            pthread_mutex_unlock(&team.mu);
            return;
        }
        pthread_mutex_unlock(&team.mu);
    }
    for (s = 0; s < nshares; s++) fn(ctx, s, 0);
}

/* In a child made by fork() no helper exists and the mutex may be held by a thread that does
   not exist there: start afresh. */
static void after_fork_child(void) {
    pthread_mutex_init(&team.mu, NULL);
    pthread_cond_init(&team.done, NULL);
    team.started = 0;
    team.busy = 0;
    team.caller_waiting = 0;
    team.pending = 0;
    team.nshares = 0;
    team.fn = NULL;
    team.ctx = NULL;
}

int fb_team_init(void) {
    static int registered;
    if (registered) return 0;
    registered = 1;
    return pthread_atfork(NULL, NULL, after_fork_child);
}

void fb_team_stats(fb_team_stats_t *stats) {
    pthread_mutex_lock(&team.mu);
    stats->started = team.started;
    stats->parallel_calls = team.parallel_calls;
    stats->helper_shares = team.helper_shares;
    pthread_mutex_unlock(&team.mu);
}

#else /* no threads: every call runs on its caller */

int fb_team_available(void) { return 0; }

void fb_team_run(fb_share_fn fn, void *ctx, int nshares, fb_ssize spin) {
    int s;
    (void)spin;
    last_shares = nshares;
    for (s = 0; s < nshares; s++) fn(ctx, s, 0);
}

int fb_team_init(void) { return 0; }

void fb_team_stats(fb_team_stats_t *stats) { memset(stats, 0, sizeof(*stats)); }

#endif
