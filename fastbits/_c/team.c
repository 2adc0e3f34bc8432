/* The thread team and its thread limit (see team.h for the contract). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* sched_getcpu */
#endif
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
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

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
    int caller_cpu;         /* the CPU the last call was made on, or -1 (atomic) */
    long long last_call_ns; /* when the last call began (now_ns), 0 before the first (atomic) */
    int joins;              /* helpers that joined the current call */
    int missed;             /* calls in a row that no helper joined, though one should have */
    long long woken_ns;     /* when sleeping helpers were last woken and none has run since, or 0 */
    long tids[FB_MAX_THREADS]; /* each helper's thread id (Linux), 0 where unknown */
    fb_piece_fn fn;
    void *ctx;
    fb_ssize npieces;
    int shares;             /* the call's pieces come in this many shares, one per slot */
    fb_ssize helper_pieces; /* statistics: pieces run by helpers so far, */
    fb_ssize watched;       /* calls a helper they allowed saw while watching, */
    fb_ssize woken;         /* and calls it was woken for */
} fb_team_t;

/* The next unclaimed piece of each share (atomic), a cache line each.  Share s is pieces
   [s * npieces / shares, (s + 1) * npieces / shares): the thread in slot s claims its own share
   first, from the front, then the others' that are left.  So the same piece goes to the same
   thread call after call, and its data stays in that thread's cache: claiming every piece from
   one counter sent each piece to whichever thread came first, and the pieces' cache lines moved
   between the CPUs' caches at each call (measured: a 64K int32 AND on two threads 20-22 µs
   against 14 µs on one, when the two CPUs did not share a cache; ~8.5 µs when they did).  A
   helper that comes late, or never, leaves its share to the others. */
typedef struct {
    fb_ssize next;
    char pad[64 - sizeof(fb_ssize)];
} fb_share_t;
static fb_share_t shares[FB_MAX_THREADS];

static fb_team_t team = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
                         .idle = PTHREAD_COND_INITIALIZER, .caller_cpu = -1};

/* Claim and run pieces until none is left, its own share first; return how many this thread ran. */
static fb_ssize run_pieces(fb_piece_fn fn, void *ctx, fb_ssize npieces, int nshares, int slot) {
    fb_ssize piece, end, done = 0;
    int k, s;
    for (k = 0; k < nshares; k++) {
        s = (slot + k) % nshares;
        end = (fb_ssize)(s + 1) * npieces / nshares;
        for (;;) {
            piece = __atomic_fetch_add(&shares[s].next, 1, __ATOMIC_RELAXED);
            if (piece >= end) break;
            fn(ctx, piece, slot);
            done++;
        }
    }
    return done;
}

/* The CPU the calling thread runs on, or -1 where the system does not say. */
static int current_cpu(void) {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

/* Move thread ``tid`` (0: the calling thread) off ``cpu``, the caller's: its affinity mask for a
   moment without that CPU (the kernel moves it at once), then the mask it had again.  Linux
   wakes a sleeping helper on the CPU it last ran on or its waker's, and its load balancer leaves
   a thread that just ran where it is: a helper that once landed on the caller's CPU (after the
   caller slept, say) stayed there, taking the caller's time or starved by it, while the CPU
   beside it idled (measured: a 64K int32 AND on two threads 31 µs there, 8.5 µs off it, 14 µs
   on one thread).  Nothing is pinned: the mask comes back whole, and a CPU outside it is never
   used. */
static void move_off_cpu(long tid, int cpu) {
#if defined(__linux__)
    cpu_set_t allowed, others;
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity((pid_t)tid, sizeof allowed, &allowed) != 0) return;
    others = allowed;
    CPU_CLR(cpu, &others);
    if (CPU_COUNT(&others) == 0) return;
    if (sched_setaffinity((pid_t)tid, sizeof others, &others) == 0) sched_setaffinity((pid_t)tid, sizeof allowed, &allowed);
#else
    (void)tid;
    (void)cpu;
#endif
}

/* A helper about to watch or to work: off the caller's CPU if it is on it. */
static void step_aside(void) {
    const int cpu = current_cpu();
    if (cpu >= 0 && cpu == __atomic_load_n(&team.caller_cpu, __ATOMIC_RELAXED)) move_off_cpu(0, cpu);
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
   once.  A helper never watches on the CPU of the last call's caller, where it would take the
   caller's time: it steps aside first, and looks again every 256 rounds.  Returns when a call
   came or the time is up. */
static void spin_for_call(unsigned long seen, int slot) {
    long long start, elapsed;
    unsigned i = 0;
    if (slot > __atomic_load_n(&fb_spin_helpers, __ATOMIC_RELAXED) || fb_team_get_spin() <= 0) return;
    step_aside();
    start = now_ns();
    while (__atomic_load_n(&team.call, __ATOMIC_ACQUIRE) == seen) {
        CPU_RELAX();
        if ((++i & 255) == 0) {
            elapsed = now_ns() - start;
            if (elapsed > fb_team_get_spin()) return;
            step_aside();
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
    int slept, nshares;
    pthread_mutex_lock(&team.mu);
#if defined(__linux__)
    team.tids[slot] = (long)syscall(SYS_gettid);
#endif
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
            team.woken_ns = 0;
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
        team.joins++;
        fn = team.fn;
        ctx = team.ctx;
        npieces = team.npieces;
        nshares = team.shares;
        pthread_mutex_unlock(&team.mu);
        step_aside();
        done = run_pieces(fn, ctx, npieces, nshares, slot);
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

/* After a call (called with mu held): ``awake`` helpers were watching at its start.  A second
   call in a row that no helper joined though one was watching, or had been woken more than
   FB_TEAM_STARVED_NS before, means the helpers cannot get a CPU, most likely because they share
   the caller's, where one that watches yields to the caller and one woken waits for it; move
   them off it.  (A helper still waking up is no reason: the kernel takes tens of microseconds.) */
#define FB_TEAM_STARVED_NS 500000LL
static void after_call(int awake, int cpu, int helpers) {
    int slot;
    const int starved = awake > 0 || (team.woken_ns != 0 && now_ns() - team.woken_ns > FB_TEAM_STARVED_NS);
    if (team.joins > 0 || !starved) {
        team.missed = 0;
        return;
    }
    if (++team.missed < 2) return;
    team.missed = 0;
    for (slot = 1; slot <= helpers && slot <= team.started; slot++)
        if (team.tids[slot] > 0) move_off_cpu(team.tids[slot], cpu);
}

void fb_team_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers, int quick) {
    fb_ssize piece;
    long long now, last;
    int awake, cpu, s, nshares, alone;
    if (helpers > 0) {
        now = now_ns();
        pthread_mutex_lock(&team.mu);
        last = __atomic_exchange_n(&team.last_call_ns, now, __ATOMIC_RELAXED);
        /* a short call, no helper watching, and none called for lately: alone, waking none */
        alone = quick && team.sleeping >= team.started && (last == 0 || now - last > fb_team_get_spin());
        if (!alone && !team.busy && grow(helpers) > 0) {
            team.busy = 1;
            team.open = 1;
            team.allowed = helpers;
            team.joined = 0;
            team.joins = 0;
            team.fn = fn;
            team.ctx = ctx;
            team.npieces = npieces;
            cpu = current_cpu();
            __atomic_store_n(&team.caller_cpu, cpu, __ATOMIC_RELAXED);
            nshares = team.shares = (helpers < team.started ? helpers : team.started) + 1;
            for (s = 0; s < nshares; s++)
                __atomic_store_n(&shares[s].next, (fb_ssize)s * npieces / nshares, __ATOMIC_RELAXED);
            __atomic_store_n(&team.call, team.call + 1, __ATOMIC_RELEASE);
            awake = team.started - team.sleeping;
            if (team.sleeping > 0) {
                pthread_cond_broadcast(&team.wake); /* watching helpers see the call number */
                if (team.woken_ns == 0) team.woken_ns = now;
            }
            pthread_mutex_unlock(&team.mu);
            run_pieces(fn, ctx, npieces, nshares, 0);
            pthread_mutex_lock(&team.mu);
            team.open = 0;
            while (team.joined > 0) pthread_cond_wait(&team.idle, &team.mu);
            after_call(awake, cpu, helpers);
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

void fb_team_note_call(void) { __atomic_store_n(&team.last_call_ns, now_ns(), __ATOMIC_RELAXED); }

/* In a child made by fork() no helper exists and the mutex may be held by a thread that does
   not exist there: start afresh. */
static void after_fork_child(void) {
    pthread_mutex_init(&team.mu, NULL);
    pthread_cond_init(&team.wake, NULL);
    pthread_cond_init(&team.idle, NULL);
    team.started = 0;
    team.missed = 0;
    team.woken_ns = 0;
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

void fb_team_run(fb_piece_fn fn, void *ctx, fb_ssize npieces, int helpers, int quick) {
    fb_ssize piece;
    (void)helpers;
    (void)quick;
    for (piece = 0; piece < npieces; piece++) fn(ctx, piece, 0);
}

void fb_team_note_call(void) {}

int fb_team_init(void) { return 0; }

void fb_team_stats(fb_team_stats_t *stats) {
    stats->started = 0;
    stats->helper_pieces = 0;
    stats->calls_watched = 0;
    stats->calls_woken = 0;
}

#endif
