/* Checks of the thread tuner (fastbits/_c/tune.c) and the thread team's quick rule
   (fastbits/_c/team.c), as C, with pieces whose time is known: tests/test_tuner_c.py builds it
   with those two files and runs it.

   A piece sleeps (nanosleep), so that two threads run two pieces in the time of one whatever
   else the machine runs: there the team must win.  A "serial" piece sleeps holding one mutex,
   so that two threads take as long as one, or longer: there the caller must run alone.  A
   class whose pieces turn from one to the other must follow.  Each check prints a line; the
   exit status is 0 when every check held. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "team.h"
#include "tune.h"

#define PIECES 8
#define WORK ((fb_ssize)1 << 20)

static int failures;
static pthread_mutex_t serial = PTHREAD_MUTEX_INITIALIZER;

static void check(int ok, const char *what) {
    printf("%s: %s\n", ok ? "held" : "FAILED", what);
    if (!ok) failures++;
}

typedef struct {
    int serial;     /* one piece at a time */
    long piece_ns;
} job_t;

static void piece(void *ctx, fb_ssize p, int slot) {
    const job_t *job = (const job_t *)ctx;
    struct timespec t = {0, job->piece_ns};
    (void)p;
    (void)slot;
    if (job->serial) pthread_mutex_lock(&serial);
    nanosleep(&t, NULL);
    if (job->serial) pthread_mutex_unlock(&serial);
}

/* One call as the runtime makes it: the tuner's choice, the team or the caller alone. */
static void call(const job_t *job, uint32_t signature) {
    fb_tune_call_t tuned;
    int team = fb_tune_begin(&tuned, 1, signature, WORK, FB_TUNE_CACHED);
    if (!team) fb_team_note_call();
    fb_team_run(piece, (void *)job, PIECES, team ? 1 : 0, 0);
    fb_tune_end(&tuned);
}

/* The class of ``signature``: 1 when it uses the team now; its calls on the team and alone. */
static int choice(uint32_t signature, fb_ssize *team_calls, fb_ssize *alone_calls) {
    fb_tune_class_t classes[FB_TUNE_CLASSES];
    int k, n = fb_tune_report(classes);
    for (k = 0; k < n; k++)
        if (classes[k].signature == signature) {
            *team_calls = classes[k].calls_team;
            *alone_calls = classes[k].calls_alone;
            return classes[k].team;
        }
    *team_calls = *alone_calls = -1;
    return -1;
}

static fb_ssize woken(void) {
    fb_team_stats_t stats;
    fb_team_stats(&stats);
    return stats.calls_woken + stats.calls_watched;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* The helper counts a call it was woken for when it wakes: wait for it, up to 2 s. */
static fb_ssize woken_after(fb_ssize before) {
    int i;
    for (i = 0; i < 2000 && woken() == before; i++) sleep_ms(1);
    return woken() - before;
}

int main(void) {
    job_t parallel = {0, 100000}, serialized = {1, 100000};
    fb_ssize team_calls, alone_calls, before;
    int i, now;
    char what[200];
    if (!fb_team_available()) {
        printf("skipped: built without the team\n");
        return 0;
    }
    if (fb_team_init() != 0 || fb_tune_init() != 0) return 2;
    fb_threads_set(2);
    fb_team_set_spin(1000000L, 1);

    for (i = 0; i < 150; i++) call(&parallel, 1);
    now = choice(1, &team_calls, &alone_calls);
    snprintf(what, sizeof what, "pieces that overlap on two threads: the team (%ld calls on it, %ld alone)",
             (long)team_calls, (long)alone_calls);
    check(now == 1 && team_calls >= 120, what);

    for (i = 0; i < 150; i++) call(&serialized, 2);
    now = choice(2, &team_calls, &alone_calls);
    snprintf(what, sizeof what, "pieces one at a time: the caller alone (%ld calls on the team, %ld alone)",
             (long)team_calls, (long)alone_calls);
    check(now == 0 && alone_calls >= 120, what);

    /* A class follows a change within its interval between probes, at most 1024 calls, and the
       probe's 3: each phase is longer than that. */
    for (i = 0; i < 300; i++) call(&parallel, 3);
    check(choice(3, &team_calls, &alone_calls) == 1, "a class on the team before its pieces change");
    for (i = 0; i < 1100; i++) call(&serialized, 3);
    now = choice(3, &team_calls, &alone_calls);
    check(now == 0, "a class whose pieces stop overlapping goes to its caller alone");
    for (i = 0; i < 1100; i++) call(&parallel, 3);
    now = choice(3, &team_calls, &alone_calls);
    check(now == 1, "... and back to the team when they overlap again");

    /* ... but a class whose chosen mode turns slow does not wait for its next probe */
    for (i = 0; i < 1100; i++) call(&parallel, 5); /* probes now 1024 calls apart */
    for (i = 0; i < 20; i++) call(&serialized, 5);
    check(choice(5, &team_calls, &alone_calls) == 0, "a class whose team calls take twice as long probes at once");

    fb_tune_set(0);
    for (i = 0; i < 40; i++) call(&serialized, 4);
    check(choice(4, &team_calls, &alone_calls) == -1, "tuning off: no class, every call on the team");
    fb_tune_set(1);

    /* The quick rule: a quick call that finds the helpers asleep wakes them only when the last
       call came within the spin time; a call the tuner ran alone counts. */
    fb_team_set_spin(20000000L, 0); /* 20 ms, and no helper watches: they sleep at once */
    sleep_ms(50);
    before = woken();
    fb_team_run(piece, &parallel, PIECES, 1, 1);
    sleep_ms(50);
    check(woken() == before, "a quick call 50 ms after the last wakes no helper");
    fb_team_note_call(); /* a call run alone, as the runtime reports it */
    before = woken();
    fb_team_run(piece, &parallel, PIECES, 1, 1);
    check(woken_after(before) >= 1, "a quick call just after one run alone wakes the helper");

    printf(failures ? "%d check(s) failed\n" : "every check held\n", failures);
    return failures ? 1 : 0;
}
