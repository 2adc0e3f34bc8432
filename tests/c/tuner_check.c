/* Checks of the thread tuner (fastbits/_c/tune.c) and the thread team's quick rule
   (fastbits/_c/team.c), as C, with pieces whose time is known: tests/test_tuner_c.py builds it
   with those two files and runs it.

   A piece sleeps (nanosleep), so that two threads run two pieces in the time of one whatever
   else the machine runs: there the team must win.  A "serial" piece sleeps holding one mutex,
   so that two threads cannot overlap, and four times as long on a helper (as on a CPU shared
   with other work): there the team is clearly slower and the caller must run alone.  A class
   whose pieces turn from one to the other must follow.  First, calls whose time is set by the
   mode the tuner chose (the clock read until then, no helper) check its margins.  Each check
   prints a line; the exit status is 0 when every check held.

   The checks need a helper that runs when woken: on a machine whose CPUs are all busy with
   other work it joins late or not at all, and the team is no team.  So the program first times
   calls of the overlapping pieces on the team and alone, untuned; where the team is not at
   least 1.3 times faster it prints why and exits with 77 (the test is skipped). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int serial;     /* one piece at a time, and helper_ns on a helper */
    long piece_ns;
    long helper_ns;
} job_t;

static void piece(void *ctx, fb_ssize p, int slot) {
    const job_t *job = (const job_t *)ctx;
    struct timespec t = {0, job->serial && slot > 0 ? job->helper_ns : job->piece_ns};
    (void)p;
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

/* The tuner's report of the class of ``signature``; its team, calls, probes and switches -1
   when there is none. */
static fb_tune_class_t class_of(uint32_t signature) {
    fb_tune_class_t classes[FB_TUNE_CLASSES], none;
    int k, n = fb_tune_report(classes);
    for (k = 0; k < n; k++)
        if (classes[k].signature == signature) return classes[k];
    memset(&none, 0, sizeof none);
    none.team = -1;
    none.calls_team = none.calls_alone = none.probes = none.switches = -1;
    return none;
}

/* The class of ``signature``: 1 when it uses the team now; its calls on the team and alone. */
static int choice(uint32_t signature, fb_ssize *team_calls, fb_ssize *alone_calls) {
    fb_tune_class_t c = class_of(signature);
    *team_calls = c.calls_team;
    *alone_calls = c.calls_alone;
    return c.team;
}

static double seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median time of 15 untuned calls of ``job`` with ``helpers`` helpers, after 5 more. */
static double untuned(const job_t *job, int helpers) {
    double t[20], start;
    int i;
    for (i = 0; i < 20; i++) {
        start = seconds();
        fb_team_run(piece, (void *)job, PIECES, helpers, 0);
        t[i] = seconds() - start;
    }
    qsort(t + 5, 15, sizeof t[0], by_value);
    return t[5 + 7];
}

/* A call that takes alone_us on its caller alone and team_us on the team, as the tuner chose:
   the clock read until then (no piece, no helper), to check the tuner's margins. */
static int timed_call(double alone_us, double team_us, uint32_t signature) {
    fb_tune_call_t tuned;
    int team = fb_tune_begin(&tuned, 1, signature, WORK, FB_TUNE_CACHED);
    double until = seconds() + 1e-6 * (team ? team_us : alone_us);
    while (seconds() < until) {
    }
    fb_tune_end(&tuned);
    return team;
}

/* 3000 calls of the class of ``signature`` at 50 µs alone and ``team_us`` on the team: it must
   stay where it is (``team``), the other mode no more than its probes. */
static void stays(uint32_t signature, double team_us, int team, const char *what) {
    fb_ssize team_calls, alone_calls;
    char line[200];
    int i, now;
    for (i = 0; i < 3000; i++) timed_call(50, team_us, signature);
    now = choice(signature, &team_calls, &alone_calls);
    snprintf(line, sizeof line, "%s (%ld calls on the team, %ld alone)", what, (long)team_calls, (long)alone_calls);
    check(now == team && (team ? alone_calls : team_calls) < 100, line);
}

/* The margins: the team is chosen when its median is FB_TUNE_JOIN below alone's (10 %), and kept
   while it is FB_TUNE_STAY below (2 %).  A team 6 % faster is not chosen, and once chosen is not
   left when it is 4 % faster: with one margin of 5 % both ways a class whose modes were that
   close changed mode on every other probe.  And a class on its caller alone moves to the team
   on the second of two probes that find it faster, not on one, unless the first finds it at
   least 1.25 times as fast. */
static void margins(void) {
    fb_ssize team_calls, alone_calls, before;
    int i, now, on_team;
    char what[200];
    for (i = 0; i < 200; i++) timed_call(50, 75, 10);
    check(choice(10, &team_calls, &alone_calls) == 0, "a team 1.5 times slower: the caller alone");
    stays(10, 47, 0, "... and the team 6 % faster: still alone");
    for (i = 0; i < 3000; i++) timed_call(50, 42.5, 10);
    check(choice(10, &team_calls, &alone_calls) == 1, "... and 15 % faster: the team");
    for (i = 0; i < 200; i++) timed_call(50, 25, 11);
    check(choice(11, &team_calls, &alone_calls) == 1, "a team twice as fast: the team");
    stays(11, 48, 1, "... and only 4 % faster: still the team");

    for (i = 0; i < 200; i++) timed_call(50, 75, 12);
    before = class_of(12).switches;
    for (i = 0, on_team = 0; i < 400; i++) /* the next five calls on the team (a probe) are faster */
        on_team += timed_call(50, on_team < 5 ? 42.5 : 75, 12);
    now = choice(12, &team_calls, &alone_calls);
    snprintf(what, sizeof what, "one probe that finds the team 15 %% faster, the next slower: no move (%ld "
             "switches, %d calls on the team)", (long)(class_of(12).switches - before), on_team);
    check(now == 0 && class_of(12).switches == before && on_team >= 5, what);

    for (i = 0; i < 200; i++) timed_call(50, 75, 13);
    before = class_of(13).probes;
    for (i = 0; i < 3000 && choice(13, &team_calls, &alone_calls) == 0; i++) timed_call(50, 25, 13);
    snprintf(what, sizeof what, "a team twice as fast is joined on one probe (probes since it turned fast: %ld)",
             (long)(class_of(13).probes - before));
    check(class_of(13).team == 1 && class_of(13).probes - before == 1, what);
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
    job_t parallel = {0, 100000, 100000}, serialized = {1, 100000, 400000};
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
    margins(); /* no helper runs in these: checked even where the CPUs are busy */
    {
        double team = untuned(&parallel, 1), alone = untuned(&parallel, 0);
        if (team > alone / 1.3) {
            printf("skipped: the team is not a team here (overlapping pieces %.0f µs a call on it, %.0f µs "
                   "alone): the CPUs are busy with other work\n", team * 1e6, alone * 1e6);
            return 77;
        }
    }

    /* (300 calls: a first probe of the caller alone that wins by chance takes the class off the
       team, and two probes, 16 calls apart, bring it back) */
    for (i = 0; i < 300; i++) call(&parallel, 1);
    now = choice(1, &team_calls, &alone_calls);
    snprintf(what, sizeof what, "pieces that overlap on two threads: the team (%ld calls on it, %ld alone)",
             (long)team_calls, (long)alone_calls);
    check(now == 1 && team_calls >= 200, what);

    for (i = 0; i < 150; i++) call(&serialized, 2);
    now = choice(2, &team_calls, &alone_calls);
    snprintf(what, sizeof what, "pieces one at a time: the caller alone (%ld calls on the team, %ld alone)",
             (long)team_calls, (long)alone_calls);
    check(now == 0 && alone_calls >= 120, what);

    /* A class follows a change within its interval between probes, at most 1024 calls, and the
       probe's 5; to the team, 16 more and a second probe.  Each phase is longer than that, the
       way back twice as long: a probe that a busy machine spoils comes again. */
    for (i = 0; i < 300; i++) call(&parallel, 3);
    check(choice(3, &team_calls, &alone_calls) == 1, "a class on the team before its pieces change");
    for (i = 0; i < 1100; i++) call(&serialized, 3);
    now = choice(3, &team_calls, &alone_calls);
    check(now == 0, "a class whose pieces stop overlapping goes to its caller alone");
    for (i = 0; i < 2200; i++) call(&parallel, 3);
    now = choice(3, &team_calls, &alone_calls);
    check(now == 1, "... and back to the team when they overlap again");

    /* ... but a class whose chosen mode turns slow does not wait for its next probe: it sees
       it in its timings (one call in four), times four calls in a row and probes (five calls) */
    for (i = 0; i < 1100; i++) call(&parallel, 5); /* probes now 1024 calls apart */
    now = choice(5, &team_calls, &alone_calls);
    for (i = 0; i < 100; i++) call(&serialized, 5);
    snprintf(what, sizeof what, "a class whose team calls take twice as long probes at once (on the team before: %d)", now);
    check(now == 1 && choice(5, &team_calls, &alone_calls) == 0, what);

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
