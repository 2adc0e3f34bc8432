/* ThreadSanitizer test of fastbits' settings, thread team and output pool, as C
   (scripts/tsan.sh builds and runs it, linked with src/fastbits/_c/config.c, team.c and pool.c, the
   pool forced on: FB_FORCE_POOL).

   What it hammers, from several OS threads at once:
   - fb_team_run from several callers: the shares of each call write disjoint parts of a buffer;
     every share must run exactly once, on its own helper's slot or the caller's (0), and the
     buffer must hold every share's values when the call returns.  The job (buffer, flags) is
     freed right after the call, so a helper still inside it afterwards is a race TSan reports.
   - the settings (fb_setting_set of the thread count, the grains, the streaming threshold and
     the spin time, the threadpoolctl names) changed while those calls run, and each caller's
     own values (fb_local_set, fb_local_clear, fb_local_threads_set: a config_context and a
     task's cap), each call taking a snapshot (fb_config_get) and its shares from the grain rule
     as the runtime does, and posting its spin time to the helpers; fb_team_stats too.
   - the pool: malloc, calloc, realloc (larger and smaller), free, release and stats, with block
     sizes that reuse, replace and age idle blocks; every block is filled with its owner's pattern
     and checked before it is freed, so a block handed to two owners at once is found.
   - fork() while the team and the pool are busy in other threads: the child runs team calls
     (with new helpers) and pool operations and checks them.

   Exit status: 0 when every check held; 1 when one failed.  A TSan report ends the run with
   TSan's exit code (scripts/tsan.sh sets halt_on_error=1 and exitcode=66). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pool.h"
#include "team.h"

#define CALLERS 4        /* OS threads calling fb_team_run at once */
#define CALLS 300        /* calls each */
#define POOL_THREADS 3   /* OS threads using the pool at once */
#define POOL_OPS 120     /* operations each */
#define FORKS 6
#define MAX_HELPERS 7
#define MIB ((size_t)1 << 20)

static int failures;
static int stop_limiter, stop_busy;
static long team_calls, pool_ops;

#define FAIL(...)                                                                                 \
    do {                                                                                          \
        fprintf(stderr, "tsan_team: FAILED at line %d: ", __LINE__);                              \
        fprintf(stderr, __VA_ARGS__);                                                             \
        fputc('\n', stderr);                                                                      \
        __atomic_add_fetch(&failures, 1, __ATOMIC_RELAXED);                                       \
    } while (0)

static uint32_t next_random(uint32_t *state) { /* xorshift32 */
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* ------------------------------------------------------------------------------------------ */
/* the thread team */

typedef struct {
    uint32_t *buf;
    unsigned char *ran; /* one flag a share: set by the one thread that ran it */
    fb_ssize n;         /* values in the buffer */
    int nshares;
    uint32_t tag;
    int spin; /* busy work a share, to keep the team busy longer */
} job_t;

static uint32_t value_at(uint32_t tag, fb_ssize i) { return tag ^ ((uint32_t)i * 2654435761u); }

static void fill_share(void *ctx, int share, int slot) {
    job_t *job = (job_t *)ctx;
    fb_ssize i, start = share * job->n / job->nshares, end = (share + 1) * job->n / job->nshares;
    volatile uint32_t sink = 0;
    if (slot != 0 && slot != share) FAIL("share %d ran on slot %d", share, slot);
    if (job->ran[share]) FAIL("share %d ran twice", share);
    job->ran[share] = 1;
    for (i = start; i < end; i++) job->buf[i] = value_at(job->tag, i);
    for (i = 0; i < job->spin; i++) sink += (uint32_t)i;
    (void)sink;
}

/* One team call of ``n`` values in ``nshares`` shares, checked; 0 when it held. */
static int run_job(int nshares, fb_ssize n, uint32_t tag, int spin) {
    fb_ssize i;
    int bad = 0;
    job_t *job = (job_t *)malloc(sizeof(job_t));
    if (nshares < 1) nshares = 1;
    job->buf = (uint32_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(uint32_t));
    job->ran = (unsigned char *)calloc((size_t)nshares, 1);
    job->n = n;
    job->nshares = nshares;
    job->tag = tag;
    job->spin = spin;
    fb_team_run(fill_share, job, nshares, fb_setting(FB_SPIN_NS));
    if (fb_team_last_shares() != nshares) FAIL("last shares %d, not %d", fb_team_last_shares(), nshares);
    for (i = 0; i < nshares; i++)
        if (!job->ran[i]) { FAIL("share %ld of %d did not run", (long)i, nshares); bad = 1; break; }
    for (i = 0; i < n; i++)
        if (job->buf[i] != value_at(tag, i)) { FAIL("value %ld of %ld wrong after the call", (long)i, (long)n); bad = 1; break; }
    /* freed at once: a helper still touching the job after fb_team_run returned races with this */
    free(job->buf);
    free(job->ran);
    free(job);
    __atomic_add_fetch(&team_calls, 1, __ATOMIC_RELAXED);
    return bad;
}

static void *caller_main(void *arg) {
    uint32_t state = 0x9E3779B9u ^ (uint32_t)(intptr_t)arg * 7919u;
    int call, shares;
    fb_config_t config;
    for (call = 0; call < CALLS; call++) {
        fb_ssize n = (fb_ssize)(next_random(&state) % 65536);
        if (call % 10 == 0) fb_local_threads_set((int)(next_random(&state) % 4)); /* 0: none */
        if (call % 7 == 0) { /* a config_context of this thread's own, or none */
            fb_local_clear();
            if (call % 14 == 0) {
                fb_local_set(FB_NUM_THREADS, 1 + (fb_ssize)(next_random(&state) % 4));
                fb_local_set(FB_SPIN_NS, (fb_ssize)(next_random(&state) % 3) * 50000);
                fb_local_set((int)(next_random(&state) % FB_GRAIN_KINDS), (fb_ssize)1 << (10 + call % 12));
            }
        }
        fb_config_get(&config); /* the snapshot, and the rule, as the runtime takes them */
        if (config.num_threads < 1 || config.num_threads > FB_MAX_THREADS) FAIL("snapshot threads %d", config.num_threads);
        shares = fb_threads_for(&config, (int)(next_random(&state) % FB_GRAIN_KINDS), 4 * n, n > 0 ? n : 1);
        if (shares > MAX_HELPERS + 1) shares = MAX_HELPERS + 1;
        run_job(shares, n, next_random(&state), (int)(next_random(&state) % 200));
    }
    return NULL;
}

/* Changes the settings while the callers run, and reads the team's statistics. */
static void *limiter_main(void *arg) {
    int i = 0, k;
    fb_team_stats_t team;
    (void)arg;
    while (!__atomic_load_n(&stop_limiter, __ATOMIC_ACQUIRE)) {
        if (i % 2) fb_setting_set(FB_NUM_THREADS, 1 + i % 9);
        else fastbits_set_num_threads(i % 5 - 1); /* 0 and -1 clamp to 1 */
        if (fastbits_get_num_threads() < 1) FAIL("thread limit below 1");
        fb_setting_set(i % FB_GRAIN_KINDS, (fb_ssize)1 << (10 + i % 12));
        for (k = 0; k < FB_GRAIN_KINDS; k++)
            if (fb_setting(k) < 1) FAIL("grain %d below 1", k);
        fb_setting_set(FB_STREAM_THRESHOLD, (fb_ssize)(i % 3) << 20);
        if (i % 7 == 0) fb_setting_set(FB_SPIN_NS, (i % 3) * 100000L);
        if (fb_setting(FB_SPIN_NS) < 0) FAIL("spin time below 0");
        fb_team_stats(&team);
        if (team.started < 0 || team.started > FB_MAX_THREADS - 1 || team.helper_shares < 0 || team.parallel_calls < 0)
            FAIL("team stats %d %ld", team.started, (long)team.helper_shares);
        i++;
        usleep(50);
    }
    return NULL;
}

/* Keeps the team busy with long calls (for the forks). */
static void *busy_main(void *arg) {
    uint32_t tag = 1;
    (void)arg;
    while (!__atomic_load_n(&stop_busy, __ATOMIC_ACQUIRE)) run_job(4, 65536, tag++, 20000);
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* the output pool */

typedef struct {
    uint64_t *p;
    size_t size; /* bytes */
    uint64_t tag;
} block_t;

static void fill_block(block_t *b) {
    size_t i, n = b->size / 8;
    /* every 61st word (cheap under TSan), and a mark in the last one */
    for (i = 0; i + 1 < n; i += 61) b->p[i] = b->tag + i;
    if (n) b->p[n - 1] = b->tag ^ 0xFFFF;
}

static int check_block(const block_t *b, size_t upto) {
    size_t i, n = upto / 8;
    for (i = 0; i < n && i + 1 < b->size / 8; i += 61)
        if (b->p[i] != b->tag + i) { FAIL("pool block %p (%zu bytes) word %zu overwritten: %#llx, not %#llx", (void *)b->p, b->size, i, (unsigned long long)b->p[i], (unsigned long long)(b->tag + i)); return 1; }
    if (upto == b->size && n && b->p[n - 1] != (b->tag ^ 0xFFFF)) { FAIL("pool block %p last word overwritten", (void *)b->p); return 1; }
    return 0;
}

static int check_zero(const uint64_t *p, size_t size) {
    size_t i;
    for (i = 0; i < size / 8; i += 37)
        if (p[i] != 0) { FAIL("calloc'ed pool block %p not zero at word %zu", (void *)p, i); return 1; }
    return 0;
}

static void *pool_main(void *arg) {
    uint32_t state = 0xC0FFEEu + (uint32_t)(intptr_t)arg * 104729u;
    block_t live[3] = {{0}};
    int op, k;
    fb_pool_stats_t stats;
    for (op = 0; op < POOL_OPS; op++) {
        block_t *b = &live[next_random(&state) % 3];
        size_t size = (1 + next_random(&state) % 6) * MIB + next_random(&state) % 4096;
        uint32_t what = next_random(&state) % 10;
        if (b->p != NULL) { /* free it, or grow or shrink it in place or by a move */
            check_block(b, b->size);
            if (what < 5) {
                fb_pool_free(NULL, b->p, b->size);
                b->p = NULL;
            } else {
                uint64_t *moved = (uint64_t *)fb_pool_realloc(NULL, b->p, size);
                if (moved == NULL) { FAIL("fb_pool_realloc(%zu) failed", size); continue; }
                b->p = moved;
                check_block(b, size < b->size ? size : b->size); /* the old contents moved */
                b->size = size;
                fill_block(b);
            }
        } else if (what < 3) {
            b->p = (uint64_t *)fb_pool_calloc(NULL, size / 8, 8);
            b->size = size / 8 * 8;
            if (b->p == NULL) { FAIL("fb_pool_calloc(%zu) failed", size); continue; }
            check_zero(b->p, b->size);
            b->tag = ((uint64_t)next_random(&state) << 32) | op;
            fill_block(b);
        } else {
            b->p = (uint64_t *)fb_pool_malloc(NULL, size);
            b->size = size;
            if (b->p == NULL) { FAIL("fb_pool_malloc(%zu) failed", size); continue; }
            b->tag = ((uint64_t)next_random(&state) << 32) | op;
            fill_block(b);
        }
        if (what == 9) fb_pool_release();
        fb_pool_stats(&stats);
        if (stats.idle_blocks > FB_POOL_SLOTS || stats.idle_bytes > FB_POOL_MAX_BYTES)
            FAIL("pool stats out of bounds: %zu blocks, %zu bytes", stats.idle_blocks, stats.idle_bytes);
        __atomic_add_fetch(&pool_ops, 1, __ATOMIC_RELAXED);
    }
    for (k = 0; k < 3; k++)
        if (live[k].p != NULL) { check_block(&live[k], live[k].size); fb_pool_free(NULL, live[k].p, live[k].size); }
    return NULL;
}

/* ------------------------------------------------------------------------------------------ */
/* fork while busy */

/* In the child: team calls with helpers made anew, and pool operations. */
static int child_work(void) {
    int i, bad = 0, failed_before = __atomic_load_n(&failures, __ATOMIC_RELAXED);
    uint64_t *p;
    fb_pool_stats_t stats;
    /* the pool as the child inherited it: its counters agree with its blocks (capacities are
       multiples of 2 MiB), as they do only if no update was half done at the fork */
    fb_pool_stats(&stats);
    if (stats.idle_blocks > FB_POOL_SLOTS || stats.idle_bytes > FB_POOL_MAX_BYTES
        || stats.idle_bytes < stats.idle_blocks * 2 * MIB || (stats.idle_bytes == 0) != (stats.idle_blocks == 0))
        FAIL("child inherited inconsistent pool stats: %zu blocks, %zu bytes", stats.idle_blocks, stats.idle_bytes);
    fb_setting_set(FB_NUM_THREADS, 4);
    for (i = 0; i < 20; i++) bad |= run_job(4, 16384, 0xABCD0000u + (uint32_t)i, 0);
    for (i = 0; i < 6; i++) {
        p = (uint64_t *)fb_pool_malloc(NULL, 3 * MIB);
        if (p == NULL) return 1;
        memset(p, 0x5A, 3 * MIB);
        fb_pool_free(NULL, p, 3 * MIB);
    }
    fb_pool_stats(&stats);
    if (stats.idle_blocks > FB_POOL_SLOTS) bad = 1;
    fb_pool_release();
    return bad || __atomic_load_n(&failures, __ATOMIC_RELAXED) != failed_before;
}

static void fork_while_busy(void) {
    pthread_t busy, pool;
    int i, status;
    pid_t pid;
    __atomic_store_n(&stop_busy, 0, __ATOMIC_RELEASE);
    pthread_create(&busy, NULL, busy_main, NULL);
    pthread_create(&pool, NULL, pool_main, (void *)(intptr_t)99);
    for (i = 0; i < FORKS; i++) {
        usleep(20000 + 7000 * i);
        pid = fork();
        if (pid < 0) { FAIL("fork failed"); break; }
        if (pid == 0) _exit(child_work());
        if (waitpid(pid, &status, 0) != pid) { FAIL("waitpid failed"); continue; }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            FAIL("forked child %d: %s %d", i, WIFEXITED(status) ? "exit status" : "killed by signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    __atomic_store_n(&stop_busy, 1, __ATOMIC_RELEASE);
    pthread_join(busy, NULL);
    pthread_join(pool, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* --planted-race: a race TSan must report (scripts/tsan.sh checks that it does) */

static long planted;

static void racy_share(void *ctx, int share, int slot) {
    volatile int i;
    (void)ctx;
    (void)slot;
    for (i = 0; i < 20000; i++) {}
    planted += share; /* every thread of the call, unsynchronized */
}

static int planted_race(void) {
    int call;
    fb_setting_set(FB_NUM_THREADS, 4);
    for (call = 0; call < 200; call++) fb_team_run(racy_share, NULL, 4, 0);
    printf("tsan_team: the planted race ran (%ld) and TSan did not stop it\n", planted);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */

int main(int argc, char **argv) {
    pthread_t callers[CALLERS], pools[POOL_THREADS], limiter;
    int i;
    if (!fb_team_available()) { fprintf(stderr, "tsan_team: built without the team (FB_THREADS 0)\n"); return 1; }
    if (!fb_pool_available()) { fprintf(stderr, "tsan_team: the pool is pass-through: build with -DFB_FORCE_POOL\n"); return 1; }
    if (fb_team_init() != 0 || fb_team_init() != 0 || fb_pool_init() != 0 || fb_pool_init() != 0) { /* a 2nd init: no-op */
        fprintf(stderr, "tsan_team: could not register the fork handlers\n");
        return 1;
    }
    if (argc > 1 && strcmp(argv[1], "--planted-race") == 0) return planted_race();
    fb_setting_set(FB_NUM_THREADS, 4);
    for (i = 0; i < FB_GRAIN_KINDS; i++) fb_setting_set(i, 1 << 18); /* as the runtime's import does */
    fb_setting_set(FB_SPIN_NS, 500000);

    /* 1. callers, the limiter and the pool, all at once */
    pthread_create(&limiter, NULL, limiter_main, NULL);
    for (i = 0; i < CALLERS; i++) pthread_create(&callers[i], NULL, caller_main, (void *)(intptr_t)i);
    for (i = 0; i < POOL_THREADS; i++) pthread_create(&pools[i], NULL, pool_main, (void *)(intptr_t)i);
    for (i = 0; i < CALLERS; i++) pthread_join(callers[i], NULL);
    for (i = 0; i < POOL_THREADS; i++) pthread_join(pools[i], NULL);
    __atomic_store_n(&stop_limiter, 1, __ATOMIC_RELEASE);
    pthread_join(limiter, NULL);

    /* 2. fork while the team and the pool are busy */
    fb_setting_set(FB_NUM_THREADS, 4);
    fork_while_busy();

    /* 3. the limit as set, and the pool empty after a release */
    fb_setting_set(FB_NUM_THREADS, 3);
    if (fb_setting(FB_NUM_THREADS) != 3 || fastbits_get_num_threads() != 3) FAIL("thread limit not kept");
    fb_pool_release();
    {
        fb_pool_stats_t stats;
        fb_team_stats_t team;
        fb_pool_stats(&stats);
        if (stats.idle_bytes != 0 || stats.idle_blocks != 0) FAIL("pool not empty after release");
        fb_team_stats(&team);
        printf("tsan_team: %ld team calls (%d helpers, %ld shared, %ld shares on helpers), "
               "%ld pool operations (%zu hits, %zu misses), %d forks\n",
               __atomic_load_n(&team_calls, __ATOMIC_RELAXED), team.started, (long)team.parallel_calls,
               (long)team.helper_shares, __atomic_load_n(&pool_ops, __ATOMIC_RELAXED), stats.hits, stats.misses, FORKS);
    }
    if (failures) {
        fprintf(stderr, "tsan_team: %d check(s) failed\n", failures);
        return 1;
    }
    printf("tsan_team: every check held\n");
    return 0;
}
